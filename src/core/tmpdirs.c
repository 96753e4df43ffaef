/* tmpdirs.c - remove the run's private directories on signals and exit()
 * (see tmpdirs.h). */
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

#define TMPDIRS_MAX 4
#define TMPDIRS_DEPTH 128 /* deeper trees are left (a snapshot is far flatter) */

static struct {
    volatile sig_atomic_t used;
    char path[PATH_MAX];
} slots[TMPDIRS_MAX];
static pid_t owner;
static int installed;

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

static void remove_all(void)
{
    if (getpid() != owner)
        return;
    for (int i = 0; i < TMPDIRS_MAX; i++) {
        if (!slots[i].used)
            continue;
        int fd = open(slots[i].path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0)
            remove_below(fd, 0);
        rmdir(slots[i].path);
        slots[i].used = 0;
    }
}

static void on_signal(int sig)
{
    int saved = errno;
    remove_all();
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

char *tmpdirs_make(char *tmpl)
{
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaddset(&block, sigs[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    install();
    char *dir = mkdtemp(tmpl);
    int e = errno;
    if (dir && dir[0] == '/' && strlen(dir) < PATH_MAX) {
        for (int i = 0; i < TMPDIRS_MAX; i++) {
            if (slots[i].used)
                continue;
            memcpy(slots[i].path, dir, strlen(dir) + 1);
            slots[i].used = 1;
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return dir;
}

void tmpdirs_forget(const char *dir)
{
    if (!dir)
        return;
    for (int i = 0; i < TMPDIRS_MAX; i++)
        if (slots[i].used && strcmp(slots[i].path, dir) == 0)
            slots[i].used = 0;
}
