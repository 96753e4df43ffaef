/* tmpdirs.c - remove the run's private directories and unfinished files on
 * signals and exit(), and say what was interrupted (see tmpdirs.h). */
#include "tmpdirs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "children.h"
#include "util.h"

#define TMPDIRS_MAX 4
#define TMPFILES_MAX 64   /* every output option of one command at once, many times over */
#define TMPDIRS_DEPTH 128 /* deeper trees are left (a snapshot is far flatter) */

struct slot {
    volatile sig_atomic_t used;
    char path[PATH_MAX];
};
static struct slot slots[TMPDIRS_MAX];
static struct slot files[TMPFILES_MAX];
static pid_t owner;
static int installed;
static const char *volatile command_name = "run";
static const char *volatile step_name; /* the probe running, or NULL */

static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

/* remove everything below the directory dfd (which is closed); only
 * async-signal-safe calls, one small buffer per level */
static void remove_below(int dfd, int depth)
{
    char buf[1024];
    int progress = 1;
    /* entries removed while listing can make getdents skip others: list
     * again from the start until a pass removes nothing */
    while (progress) {
        progress = 0;
        if (lseek(dfd, 0, SEEK_SET) < 0)
            break;
        ssize_t n;
        while ((n = getdents64(dfd, buf, sizeof(buf))) > 0) {
            for (ssize_t off = 0; off < n;) {
                struct dirent64 *d = (struct dirent64 *)(buf + off);
                off += d->d_reclen;
                const char *name = d->d_name;
                if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
                    continue;
                int isdir = d->d_type == DT_DIR;
                if (d->d_type == DT_UNKNOWN) {
                    struct stat st;
                    isdir =
                        fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
                }
                if (isdir && depth < TMPDIRS_DEPTH) {
                    int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub >= 0)
                        remove_below(sub, depth + 1);
                }
                if (unlinkat(dfd, name, isdir ? AT_REMOVEDIR : 0) == 0)
                    progress = 1;
            }
        }
    }
    close(dfd);
}

/* how many directories and files were removed, for the one line */
struct removed {
    int dirs, files;
};

static struct removed remove_all_counted(void)
{
    struct removed r = {0, 0};
    if (getpid() != owner)
        return r;
    for (int i = 0; i < TMPFILES_MAX; i++) {
        if (!files[i].used)
            continue;
        if (unlink(files[i].path) == 0)
            r.files++;
        files[i].used = 0;
    }
    for (int i = 0; i < TMPDIRS_MAX; i++) {
        if (!slots[i].used)
            continue;
        int fd = open(slots[i].path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0)
            remove_below(fd, 0);
        if (rmdir(slots[i].path) == 0)
            r.dirs++;
        slots[i].used = 0;
    }
    return r;
}

static void remove_all(void)
{
    remove_all_counted();
}

/* async-signal-safe pieces of the one line */
static size_t put_str(char *buf, size_t at, size_t cap, const char *s)
{
    while (*s && at + 1 < cap)
        buf[at++] = *s++;
    return at;
}

static size_t put_count(char *buf, size_t at, size_t cap, int n, const char *one, const char *many)
{
    char digits[12];
    int k = 0;
    unsigned u = n < 0 ? 0u : (unsigned)n;
    do {
        digits[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u && k < (int)sizeof(digits));
    while (k > 0 && at + 1 < cap)
        buf[at++] = digits[--k];
    at = put_str(buf, at, cap, " ");
    return put_str(buf, at, cap, n == 1 ? one : many);
}

const char *tmpdirs_signal_name(int sig)
{
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    }
    return "a signal";
}

/* "rocm-vla-doctor: check interrupted by SIGINT; removed 2 unfinished
 * files and 1 temporary directory; no output was completed after that" */
static void say_interrupted(int sig, struct removed r)
{
    char line[384];
    size_t at = put_str(line, 0, sizeof(line), "rocm-vla-doctor: ");
    at = put_str(line, at, sizeof(line), command_name);
    at = put_str(line, at, sizeof(line), " interrupted by ");
    at = put_str(line, at, sizeof(line), tmpdirs_signal_name(sig));
    if (r.files || r.dirs) {
        at = put_str(line, at, sizeof(line), "; removed ");
        if (r.files)
            at = put_count(line, at, sizeof(line), r.files, "unfinished file", "unfinished files");
        if (r.files && r.dirs)
            at = put_str(line, at, sizeof(line), " and ");
        if (r.dirs)
            at = put_count(line, at, sizeof(line), r.dirs, "temporary directory",
                           "temporary directories");
    }
    at = put_str(line, at, sizeof(line), "; outputs not yet written are left as they were");
    const char *step = step_name;
    if (step) { /* where it stopped: the results so far are not reported */
        at = put_str(line, at, sizeof(line), "; the probe ");
        at = put_str(line, at, sizeof(line), step);
        at = put_str(line, at, sizeof(line), " was running");
    }
    at = put_str(line, at, sizeof(line), "\n");
    ssize_t w = write(STDERR_FILENO, line, at);
    (void)w;
}

static void on_signal(int sig)
{
    int saved = errno;
    children_end_all(); /* the probes' children first: they hold the files */
    int mine = getpid() == owner;
    struct removed r = remove_all_counted();
    if (mine)
        say_interrupted(sig, r);
    /* die of the same signal: it is blocked while this handler runs and is
     * delivered, with the default action, as soon as it returns */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig);
    errno = saved;
}

static void install(void)
{
    /* the first installer owns the entries; a forked child that registers
     * its own (it never does today) would take ownership of all */
    owner = getpid();
    if (installed)
        return;
    installed = 1;
    atexit(remove_all);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction old, sa;
        /* an ignored SIGHUP (nohup) stays ignored */
        if (sigaction(sigs[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask); /* no second signal inside the removal */
        sigaction(sigs[i], &sa, NULL);
    }
}

void tmpdirs_install(const char *command)
{
    if (command)
        command_name = command;
    install();
}

static void block_signals(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaddset(&block, sigs[i]);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* remember path in the first free slot; the path is written before the
 * slot is marked used, so the handler never reads half a name. A relative
 * name is kept as given: the run never changes its directory. */
static void remember(struct slot *tab, int n, const char *path)
{
    size_t len = strlen(path);
    if (len >= PATH_MAX)
        return;
    for (int i = 0; i < n; i++) {
        if (tab[i].used)
            continue;
        memcpy(tab[i].path, path, len + 1);
        tab[i].used = 1;
        return;
    }
}

static void forget(struct slot *tab, int n, const char *path)
{
    if (!path)
        return;
    for (int i = 0; i < n; i++)
        if (tab[i].used && strcmp(tab[i].path, path) == 0)
            tab[i].used = 0;
}

char *tmpdirs_make(char *tmpl)
{
    sigset_t old;
    block_signals(&old);
    install();
    char *dir = mkdtemp(tmpl);
    int e = errno;
    if (dir && dir[0] == '/')
        remember(slots, TMPDIRS_MAX, dir);
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return dir;
}

int tmpdirs_mkstemp(char *tmpl)
{
    sigset_t old;
    block_signals(&old);
    install();
    int fd = mkstemp(tmpl);
    int e = errno;
    if (fd >= 0)
        remember(files, TMPFILES_MAX, tmpl);
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

int tmpdirs_open(const char *path, int flags, mode_t mode)
{
    sigset_t old;
    block_signals(&old);
    install();
    int fd = open(path, O_CREAT | flags, mode);
    int e = errno;
    if (fd >= 0)
        remember(files, TMPFILES_MAX, path);
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

void tmpdirs_forget_file(const char *path)
{
    forget(files, TMPFILES_MAX, path);
}

void tmpdirs_forget(const char *dir)
{
    forget(slots, TMPDIRS_MAX, dir);
}

void tmpdirs_set_step(const char *step)
{
    step_name = step;
}

char *tmpdirs_template(const char *stem)
{
    const char *base = getenv("TMPDIR");
    if (!base || base[0] != '/')
        base = "/tmp";
    size_t bl = strlen(base);
    while (bl > 1 && base[bl - 1] == '/')
        bl--;
    return xasprintf("%.*s/%sXXXXXX", (int)bl, base, stem);
}
