/* tmpdirs.h - what a run leaves behind when it is interrupted: its private
 * temporary directories (an unpacked --sysroot snapshot, collect's staging
 * tree) and its unfinished files (an output's `<target>.tmp.XXXXXX` before
 * the rename, a kernel-cache entry being written) are removed when the run
 * is killed by SIGINT, SIGTERM or SIGHUP, or ends through exit(), not only
 * on the normal path. The signal handler uses only async-signal-safe calls
 * (openat, getdents64, unlinkat, fstatat, write), says one line on stderr
 * about what was interrupted and what was removed, then re-raises the
 * signal with its default action, so the run dies of that signal and a
 * shell sees 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP): a parent shell
 * loop or make stops too, which an _exit(130) would not tell it.
 * Only the process that registered an entry removes it (a forked probe
 * child inherits the handler, never the ownership), and a signal whose
 * action was not the default when the handlers were installed (nohup's
 * ignored SIGHUP, a command's own stop handler installed later) is left
 * to its owner. */
#ifndef RVD_TMPDIRS_H
#define RVD_TMPDIRS_H

#include <sys/types.h>

/* install the handlers now (main does, first thing) and name the command
 * the one line will say was interrupted ("check", "collect", ...: a string
 * that lives as long as the run). Later calls only change the name. */
void tmpdirs_install(const char *command);

/* the step the run is in (a probe's name, a string that lives as long as
 * the run), or NULL between steps: the one line names it, so that an
 * interrupted run says where it stopped */
void tmpdirs_set_step(const char *step);
/* "SIGINT", "SIGTERM", "SIGHUP", else "a signal" (async-signal-safe) */
const char *tmpdirs_signal_name(int sig);

/* mkdtemp(tmpl) and remember the directory, with SIGINT/SIGTERM/SIGHUP
 * blocked in between so that no signal finds it made but not yet known;
 * installs the handlers on first use. tmpl (an absolute path) or NULL with
 * errno, as mkdtemp. */
char *tmpdirs_make(char *tmpl);
/* "$TMPDIR/<stem>XXXXXX" (/tmp when TMPDIR is unset or not absolute), for
 * tmpdirs_make; allocated */
char *tmpdirs_template(const char *stem);
/* dir was removed (or handed over): forget it */
void tmpdirs_forget(const char *dir);

/* mkstemp(tmpl), remembered the same way: an fd, or -1 with errno */
int tmpdirs_mkstemp(char *tmpl);
/* open(path, O_CREAT | flags, mode) of a temporary file with a name of the
 * caller's choosing, remembered the same way: an fd, or -1 with errno */
int tmpdirs_open(const char *path, int flags, mode_t mode);
/* the file was renamed into place or removed: forget it. Call it after the
 * rename, so that no signal finds the file made but forgotten. */
void tmpdirs_forget_file(const char *path);

#endif
