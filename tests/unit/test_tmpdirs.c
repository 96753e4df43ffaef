/* test_tmpdirs.c - what an interrupted run leaves (src/core/tmpdirs.c): a
 * child registers a temporary directory and files as the doctor does, is
 * sent a signal, and must die of it having removed them and said one line;
 * a forgotten file (renamed into place) and a file of a process that does
 * not own the entries (a forked probe child) are left alone. */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/core/tmpdirs.h"
#include "test.h"

static char base[PATH_MAX];

static int exists(const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", base, name);
    struct stat st;
    return lstat(p, &st) == 0;
}

/* the child: one directory with a file in it, two unfinished files, one
 * file renamed into place and forgotten, then a signal at itself */
static void child(int sig, int err_fd)
{
    dup2(err_fd, STDERR_FILENO);
    signal(sig, SIG_DFL);
    tmpdirs_install("check");
    char d[PATH_MAX + 64], f1[PATH_MAX + 64], f2[PATH_MAX + 64], kept[PATH_MAX + 64];
    snprintf(d, sizeof(d), "%s/dir.XXXXXX", base);
    char *dir = tmpdirs_make(d);
    if (!dir)
        _exit(90);
    char inner[PATH_MAX + 80];
    snprintf(inner, sizeof(inner), "%s/member", dir);
    close(open(inner, O_CREAT | O_WRONLY, 0600));
    snprintf(f1, sizeof(f1), "%s/report.json.tmp.XXXXXX", base);
    if (tmpdirs_mkstemp(f1) < 0)
        _exit(91);
    snprintf(f2, sizeof(f2), "%s/cache.bin.1.tmp", base);
    if (tmpdirs_open(f2, O_WRONLY | O_TRUNC, 0644) < 0)
        _exit(92);
    snprintf(kept, sizeof(kept), "%s/done.xml.tmp.XXXXXX", base);
    if (tmpdirs_mkstemp(kept) < 0)
        _exit(93);
    char final[PATH_MAX + 64];
    snprintf(final, sizeof(final), "%s/done.xml", base);
    rename(kept, final);
    tmpdirs_forget_file(kept);
    /* a forked grandchild gets the signal too (the terminal's process
     * group): it must neither remove the parent's entries nor speak */
    pid_t g = fork();
    if (g == 0) {
        raise(sig);
        _exit(94);
    }
    int st;
    waitpid(g, &st, 0);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != sig)
        _exit(95);
    if (access(f1, F_OK) != 0) /* the grandchild removed it */
        _exit(96);
    raise(sig);
    _exit(97);
}

static void one_signal(int sig, const char *want_line)
{
    char errpath[PATH_MAX + 16];
    snprintf(errpath, sizeof(errpath), "%s/stderr", base);
    int err_fd = open(errpath, O_CREAT | O_TRUNC | O_RDWR, 0600);
    pid_t p = fork();
    if (p == 0)
        child(sig, err_fd);
    int st;
    waitpid(p, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig);
    if (!WIFSIGNALED(st))
        fprintf(stderr, "child exit %d\n", WEXITSTATUS(st));
    char buf[512] = {0};
    ssize_t n = pread(err_fd, buf, sizeof(buf) - 1, 0);
    close(err_fd);
    unlink(errpath);
    CHECK(n > 0);
    CHECK_STR(buf, want_line);
    /* only the renamed report is left */
    CHECK(exists("done.xml"));
    CHECK(!exists("cache.bin.1.tmp"));
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "%s/done.xml", base);
    unlink(cmd);
    int left = 0;
    FILE *ls = NULL;
    snprintf(cmd, sizeof(cmd), "ls -A '%s'", base);
    ls = popen(cmd, "r");
    char line[PATH_MAX];
    while (ls && fgets(line, sizeof(line), ls)) {
        fprintf(stderr, "left: %s", line);
        left++;
    }
    if (ls)
        pclose(ls);
    CHECK(left == 0);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(base, sizeof(base), "%s/rvd-test-tmpdirs.XXXXXX", t && *t == '/' ? t : "/tmp");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    one_signal(SIGINT, "rocm-vla-doctor: check interrupted by SIGINT; removed 2 unfinished files "
                       "and 1 temporary directory; outputs not yet written are left as they "
                       "were\n");
    one_signal(SIGTERM, "rocm-vla-doctor: check interrupted by SIGTERM; removed 2 unfinished "
                        "files and 1 temporary directory; outputs not yet written are left as "
                        "they were\n");
    rmdir(base);
    return test_report();
}
