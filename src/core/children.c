/* children.c - see children.h. */
#include "children.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILDREN_MAX 32
#define CHILDREN_GRACE_STEPS 20 /* of 50 ms: the grace period before SIGKILL */

static volatile sig_atomic_t groups[CHILDREN_MAX];
static volatile sig_atomic_t owner;

void children_start(void)
{
    owner = (sig_atomic_t)getpid();
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

void children_add(pid_t pgid)
{
    for (int i = 0; i < CHILDREN_MAX; i++)
        if (groups[i] == 0) {
            groups[i] = (sig_atomic_t)pgid;
            return;
        }
}

void children_forget(pid_t pgid)
{
    for (int i = 0; i < CHILDREN_MAX; i++)
        if (groups[i] == (sig_atomic_t)pgid)
            groups[i] = 0;
}

/* the parent pid in /proc/PID/stat ("pid (comm) S ppid ..."), or -1 */
static long stat_ppid(const char *pid)
{
    char path[64] = "/proc/", buf[512];
    size_t n = 6;
    for (const char *p = pid; *p && n < sizeof(path) - 6; p++)
        path[n++] = *p;
    for (const char *p = "/stat"; *p; p++)
        path[n++] = *p;
    path[n] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    char *close_paren = NULL;
    for (char *p = buf; *p; p++)
        if (*p == ')')
            close_paren = p;
    if (!close_paren || close_paren[1] != ' ' || !close_paren[2] || close_paren[3] != ' ')
        return -1;
    long v = 0;
    for (char *p = close_paren + 4; *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (*p - '0');
    return v;
}

/* signal every process whose parent we are (the orphans a subreaper gets);
 * how many there were */
static int signal_orphans(int sig)
{
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    long me = (long)getpid();
    int found = 0;
    ssize_t n;
    while ((n = getdents64(fd, buf, sizeof(buf))) > 0)
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            long pid = 0;
            const char *p = d->d_name;
            for (; *p >= '0' && *p <= '9'; p++)
                pid = pid * 10 + (*p - '0');
            if (*p || pid <= 0 || stat_ppid(d->d_name) != me)
                continue;
            kill((pid_t)pid, sig);
            found++;
        }
    close(fd);
    return found;
}

static void reap(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

static int any_group_alive(void)
{
    for (int i = 0; i < CHILDREN_MAX; i++)
        if (groups[i] > 0 && kill(-(pid_t)groups[i], 0) == 0)
            return 1;
    return 0;
}

static void signal_groups(int sig)
{
    for (int i = 0; i < CHILDREN_MAX; i++)
        if (groups[i] > 0)
            kill(-(pid_t)groups[i], sig);
}

void children_end_all(void)
{
    if (owner == 0 || getpid() != (pid_t)owner)
        return;
    signal_groups(SIGTERM);
    signal_orphans(SIGTERM);
    struct timespec step = {0, 50 * 1000 * 1000};
    for (int i = 0; i < CHILDREN_GRACE_STEPS; i++) {
        reap(); /* zombies answer kill(0) too */
        /* a descendant orphaned by the TERM above is ours now */
        int orphans = signal_orphans(SIGTERM);
        if (!any_group_alive() && !orphans)
            return;
        nanosleep(&step, NULL);
    }
    signal_groups(SIGKILL);
    for (int i = 0; i < 3 && signal_orphans(SIGKILL); i++) {
        nanosleep(&step, NULL);
        reap();
    }
}
