/* tmpdirs.h - the private temporary directories of a run (an unpacked
 * --sysroot snapshot, collect's staging tree) are removed when the run is
 * killed by SIGINT, SIGTERM or SIGHUP, or ends through exit(), not only on
 * the normal path. The signal handler uses only async-signal-safe calls
 * (openat, getdents64, unlinkat, fstatat), then re-raises the signal with
 * its default action so the exit status still says what killed the run.
 * Only the process that registered a directory removes it (a forked probe
 * child inherits the handler, never the ownership). */
#ifndef RVD_TMPDIRS_H
#define RVD_TMPDIRS_H

/* mkdtemp(tmpl) and remember the directory, with SIGINT/SIGTERM/SIGHUP
 * blocked in between so that no signal finds it made but not yet known;
 * installs the handlers on first use where the signal's action is the
 * default one. tmpl (an absolute path) or NULL with errno, as mkdtemp. */
char *tmpdirs_make(char *tmpl);
/* dir was removed (or handed over): forget it */
void tmpdirs_forget(const char *dir);

#endif
