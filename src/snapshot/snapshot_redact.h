/* snapshot_redact.h - what collect keeps of the user and package databases.
 *
 * A snapshot is shared (a colleague, a bug report), so it carries only what
 * the probes read from /etc/passwd, /etc/group and /var/lib/dpkg/status:
 *   passwd: the running user's own line (probe_user: the primary gid);
 *   group:  the groups named render or video, the groups whose gid a probe
 *           resolves (the running user's primary and supplementary gids, the
 *           owners of /dev/kfd and /dev/dri/renderD*), and the groups that
 *           list the user; member lists keep the user's name only
 *           (probe_groupdb asks only "is the user a member");
 *   dpkg:   the paragraphs of the GPU-stack packages (SNAPSHOT_DPKG_KEEP),
 *           which include probe_rocm's libamdhip64-<N>.
 * Everything else (other accounts, their home directories and shells,
 * other members, every other installed package) is dropped. The filter runs
 * on collect's staging tree after the probes, so a replay parses the same
 * files with the same code and reaches the same verdicts. */
#ifndef RVD_SNAPSHOT_REDACT_H
#define RVD_SNAPSHOT_REDACT_H

#include <stddef.h>

/* the filters, pure; each returns a new string (caller frees) */
char *redact_passwd(const char *text, const char *user);
char *redact_group(const char *text, const char *user, const unsigned long *gids, size_t ngids);
char *redact_dpkg_status(const char *text);
/* is a package of the GPU stack kept in the snapshot? */
int redact_dpkg_keep(const char *package);

/* Free text on its way into something shared (the markdown summary): each
 * occurrence of a word in w (the host's name, a user's name; words shorter
 * than 2 characters are left alone) that no letter or digit touches, in any
 * case, becomes its stand-in (with `domain`, the .label.label after it
 * too: the host's full name),
 * and a home directory (/home/NAME, /var/home/NAME, /root) becomes "~",
 * so that /home/alice/venv/bin/python reads ~/venv/bin/python. Returns a new
 * string (caller frees). */
struct redact_word {
    const char *word;
    const char *as;
    int domain; /* a host name: its domain goes with it */
};
char *redact_text(const char *s, const struct redact_word *w, size_t n);

/* apply the filters to the staging tree at stage (the identity and devnodes
 * queries say who the user is and which gids matter); 0, or -1 after
 * printing why (a write error fails collect) */
int snapshot_redact(const char *stage);

#endif
