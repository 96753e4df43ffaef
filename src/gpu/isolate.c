/* isolate.c - the fork + watchdog runner for GPU probes (see isolate.h).
 *
 * Why fork and not threads: a vendor library that segfaults or a kernel that
 * never returns cannot be recovered in-process. The child gets its own
 * process group so that SIGTERM/SIGKILL reach anything it started. Its
 * stdout and stderr both go to a pipe whose last lines become the message;
 * nothing it prints can corrupt the report on our stdout. */
#include "isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/children.h"
#include "../core/fact_wire.h"

static int child_fd = -1; /* facts pipe, in the child only */
static isolate_reap_fn reap = waitpid;
static void (*after_fork_fn)(void *);
static void *after_fork_arg;

void isolate_after_fork(void (*fn)(void *arg), void *arg)
{
    after_fork_fn = fn;
    after_fork_arg = arg;
}

void isolate_set_reap(isolate_reap_fn fn)
{
    reap = fn ? fn : waitpid;
}

/* "state D (disk sleep), wchan amdgpu_..." of a child that outlived SIGKILL.
 * Read directly, not through rootfs: this is the doctor's own child on the
 * machine it runs on, also when --sysroot points the probes elsewhere. */
static char *stuck_child_state(pid_t pid)
{
    char path[64], buf[4096], state[64] = "unknown", wchan[128] = "unknown";
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(buf, sizeof(buf), f)) {
        if (strncmp(buf, "State:", 6) == 0) {
            const char *v = buf + 6 + strspn(buf + 6, " \t");
            snprintf(state, sizeof(state), "%.*s", (int)strcspn(v, "\n"), v);
            break;
        }
    }
    if (f)
        fclose(f);
    snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
    f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof(wchan) - 1, f);
        buf[n] = '\0';
        /* "0" when running or when the kernel hides it (kptr_restrict) */
        if (n && strcmp(buf, "0") != 0)
            snprintf(wchan, sizeof(wchan), "%.100s", buf);
        else
            snprintf(wchan, sizeof(wchan), "not shown (%s)", n ? "0" : "empty");
        fclose(f);
    }
    return xasprintf("state %s, wchan %s", state, wchan);
}
static size_t child_sent = 0; /* facts [0, child_sent) already sent */

int isolate_in_child(void)
{
    return child_fd >= 0;
}

void isolate_flush(const struct factset *fs)
{
    if (child_fd < 0 || child_sent >= fs->n)
        return;
    fact_wire_write(child_fd, fs, child_sent);
    child_sent = fs->n;
}

static void set_status(struct factset *fs, const char *probe, const char *st, const char *msg)
{
    char name[FACT_NAME_MAX];
    snprintf(name, sizeof(name), "probe.%s.status", probe);
    fact_set_str(fs, name, st, "isolation runner");
    if (msg) {
        snprintf(name, sizeof(name), "probe.%s.message", probe);
        fact_set_str(fs, name, msg, "isolation runner");
    }
}

static void __attribute__((noreturn))
child_main(const struct probe *p, struct probe_ctx *ctx, int fact_w, int err_w)
{
    setpgid(0, 0);
    dup2(err_w, STDERR_FILENO);
    dup2(err_w, STDOUT_FILENO);
    if (err_w > STDERR_FILENO)
        close(err_w);
    signal(SIGPIPE, SIG_IGN);
    child_fd = fact_w;
    /* facts the parent already has are not sent back: only what this probe adds */
    child_sent = ctx->facts->n;
    size_t base = child_sent;
    int rc = p->run(ctx);
    if (rc < 0) {
        char msg[200];
        snprintf(msg, sizeof(msg), "internal error: %s", strerror(-rc));
        set_status(ctx->facts, p->name, "error", msg);
    }
    /* a final full resend covers facts that were replaced after a flush */
    child_sent = base;
    isolate_flush(ctx->facts);
    fflush(NULL);
    _exit(0);
}

/* the last `nlines` lines of text, joined with " | " */
static char *last_lines(const struct strbuf *sb, int nlines)
{
    if (!sb->len)
        return xstrdup("");
    const char *s = sb->buf, *e = sb->buf + sb->len;
    while (e > s && (e[-1] == '\n' || e[-1] == ' '))
        e--;
    const char *b = e;
    int n = 0;
    while (b > s) {
        if (b[-1] == '\n' && ++n == nlines)
            break;
        b--;
    }
    struct strbuf out = STRBUF_INIT;
    for (const char *p = b; p < e; p++) {
        if (*p == '\n')
            strbuf_adds(&out, " | ");
        else if ((unsigned char)*p >= 0x20 || *p == '\t')
            strbuf_addc(&out, *p);
    }
    if (!out.buf)
        strbuf_adds(&out, "");
    return strbuf_detach(&out);
}

/* read what is there; 1 at EOF or error */
static int drain(int fd, struct strbuf *sb, size_t keep_tail)
{
    char buf[4096];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof(buf));
        if (r > 0) {
            strbuf_add(sb, buf, (size_t)r);
            if (keep_tail && sb->len > 2 * keep_tail) {
                memmove(sb->buf, sb->buf + sb->len - keep_tail, keep_tail);
                sb->len = keep_tail;
                sb->buf[sb->len] = '\0';
            }
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return 0;
        return 1;
    }
}

void isolate_run(const struct probe *p, struct probe_ctx *ctx, double budget_s)
{
    if (budget_s <= 0)
        budget_s = ISOLATE_DEFAULT_BUDGET_S;
    int fp[2], ep[2];
    if (pipe2(fp, O_CLOEXEC) < 0) {
        set_status(ctx->facts, p->name, "error", "cannot create a pipe for the probe child");
        return;
    }
    if (pipe2(ep, O_CLOEXEC) < 0) {
        close(fp[0]);
        close(fp[1]);
        set_status(ctx->facts, p->name, "error", "cannot create a pipe for the probe child");
        return;
    }
    fflush(NULL); /* or buffered output would be written twice */
    double t0 = util_mono_s();
    pid_t pid = fork();
    if (pid < 0) {
        char msg[200];
        snprintf(msg, sizeof(msg), "fork failed: %s", strerror(errno));
        set_status(ctx->facts, p->name, "error", msg);
        close(fp[0]), close(fp[1]), close(ep[0]), close(ep[1]);
        after_fork_fn = NULL;
        return;
    }
    if (pid == 0) {
        close(fp[0]);
        close(ep[0]);
        child_main(p, ctx, fp[1], ep[1]);
    }
    setpgid(pid, pid); /* also here: no race with the child's own call */
    children_add(pid);
    if (after_fork_fn) {
        void (*fn)(void *) = after_fork_fn;
        after_fork_fn = NULL;
        fn(after_fork_arg);
    }
    close(fp[1]);
    close(ep[1]);
    fcntl(fp[0], F_SETFL, O_NONBLOCK);
    fcntl(ep[0], F_SETFL, O_NONBLOCK);

    struct strbuf facts = STRBUF_INIT, err = STRBUF_INIT;
    int fact_eof = 0, err_eof = 0, exited = 0, wstatus = 0, sig_sent = 0, stuck = 0;
    double deadline = t0 + budget_s, kill_at = 0, exit_t = 0, killed_t = 0;
    while (!exited || !fact_eof || !err_eof) {
        struct pollfd pf[2] = {{fp[0], POLLIN, 0}, {ep[0], POLLIN, 0}};
        double now = util_mono_s();
        if (!exited && !sig_sent && now >= deadline) {
            kill(-pid, SIGTERM);
            kill(pid, SIGTERM);
            sig_sent = SIGTERM;
            kill_at = now + ISOLATE_GRACE_S;
        } else if (!exited && sig_sent == SIGTERM && now >= kill_at) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            sig_sent = SIGKILL;
            killed_t = now;
        } else if (!exited && sig_sent == SIGKILL && now >= killed_t + ISOLATE_KILL_WAIT_S) {
            /* SIGKILL is delivered when the child leaves the kernel; in state D
             * that may be never: give up on it rather than poll forever */
            stuck = 1;
            break;
        }
        /* after the child exited, a grandchild may still hold the pipes: stop soon */
        if (exited && now >= exit_t + ISOLATE_GRACE_S)
            break;
        poll(pf, 2, 20);
        if (!fact_eof)
            fact_eof = drain(fp[0], &facts, 0);
        if (!err_eof)
            err_eof = drain(ep[0], &err, 16384);
        if (!exited) {
            pid_t w = reap(pid, &wstatus, WNOHANG);
            if (w == pid || (w < 0 && errno == ECHILD)) {
                exited = 1;
                exit_t = util_mono_s();
            }
        }
    }
    if (!exited && !stuck)
        reap(pid, &wstatus, 0);
    kill(-pid, SIGKILL); /* anything left in the child's group */
    children_forget(pid);
    char *stuck_state = stuck ? stuck_child_state(pid) : NULL;
    close(fp[0]);
    close(ep[0]);
    double wall = util_mono_s() - t0;

    fact_wire_parse(ctx->facts, facts.buf ? facts.buf : "", facts.len);
    char name[FACT_NAME_MAX];
    snprintf(name, sizeof(name), "probe.%s.wall_s", p->name);
    fact_set_float(ctx->facts, name, wall, "isolation runner");

    char *tail = last_lines(&err, 5);
    char *msg = NULL;
    const char *st = NULL;
    if (stuck) {
        st = "timeout";
        msg =
            xasprintf("no result within %.0f s; SIGTERM, then SIGKILL did not end the probe child "
                      "(pid %d) within %.0f s: %s (a GPU or driver hang in the kernel); it is "
                      "left behind%s%s",
                      budget_s, (int)pid, ISOLATE_KILL_WAIT_S, stuck_state,
                      *tail ? "; last output: " : "", tail);
    } else if (sig_sent) {
        st = "timeout";
        msg = xasprintf("no result within %.0f s; stopped with %s%s%s", budget_s,
                        sig_sent == SIGKILL ? "SIGTERM, then SIGKILL" : "SIGTERM",
                        *tail ? "; last output: " : "", tail);
    } else if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        st = "error";
        msg = xasprintf("the probe child was killed by SIG%s (%s)%s%s",
                        sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", strsignal(sig),
                        *tail ? "; last output: " : "", tail);
    } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
        st = "error";
        msg = xasprintf("the probe child exited with status %d%s%s", WEXITSTATUS(wstatus),
                        *tail ? "; last output: " : "", tail);
    }
    snprintf(name, sizeof(name), "probe.%s.status", p->name);
    if (st)
        set_status(ctx->facts, p->name, st, msg);
    else if (!fact_get(ctx->facts, name))
        set_status(ctx->facts, p->name, "ok", NULL);
    free(msg);
    free(tail);
    free(stuck_state);
    strbuf_release(&facts);
    strbuf_release(&err);
}
