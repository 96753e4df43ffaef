/* tui_workload.c - the dashboard's workload runs (see tui_workload.h).
 *
 * Process tree while a run is in flight:
 *   dashboard --fork--> helper --isolate_run()--> isolated probe child
 * The helper is in its own process group (the terminal's ^C is the
 * dashboard's to handle), reads nothing from the terminal and writes nothing
 * to it; it dies when the dashboard does (PR_SET_PDEATHSIG), and a
 * pthread_atfork hook gives the isolated child the same tie to the helper. */
#include "tui_workload.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/fact_wire.h"
#include "../gpu/isolate.h"

/* how long past the child's watchdog the helper may take before it is killed */
#define TUI_WL_SLACK_S 10.0

/* ---- the helper process ------------------------------------------------- */

static int helper_wfd = -1;
static pid_t helper_self;

/* in the isolated child, right after isolate_run's fork */
static void tie_to_helper(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != helper_self)
        _exit(1); /* the helper died before the tie was made */
    if (helper_wfd >= 0)
        close(helper_wfd); /* EOF for the dashboard means the helper is done */
}

static void __attribute__((noreturn))
helper_main(const struct tui_workload *w, int wfd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    setpgid(0, 0);
    /* the dashboard's flag-setting handlers are not ours */
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU};
    for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
        signal(sigs[i], SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    /* keep off the terminal: stdin at EOF, stdout/stderr into a closed pipe */
    int in[2], out[2];
    if (pipe(in) == 0) {
        close(in[1]);
        dup2(in[0], STDIN_FILENO);
        if (in[0] != STDIN_FILENO)
            close(in[0]);
    }
    if (pipe(out) == 0) {
        close(out[0]);
        dup2(out[1], STDOUT_FILENO);
        dup2(out[1], STDERR_FILENO);
        if (out[1] > STDERR_FILENO)
            close(out[1]);
    }
    helper_wfd = wfd;
    helper_self = getpid();
    pthread_atfork(NULL, NULL, tie_to_helper);
    struct factset fs = FACTSET_INIT;
    const struct probe *p = probe_find("vla");
    if (p) {
        struct probe_ctx ctx = {&fs, LEVEL_FULL, &w->popts, 0};
        isolate_run(p, &ctx, w->budget_s);
    } else {
        fact_set_str(&fs, "probe.vla.status", "error", "dashboard");
        fact_set_str(&fs, "probe.vla.message", "no vla probe in this build", "dashboard");
    }
    fact_wire_write(wfd, &fs, 0);
    _exit(0);
}

/* ---- the dashboard's side ----------------------------------------------- */

void tui_workload_init(struct tui_workload *w, const char *preset, const char *dtype,
                       double interval_s, const struct checkset *cs, int hist_cap)
{
    memset(w, 0, sizeof(*w));
    tui_ring_init(&w->p50, hist_cap);
    tui_ring_init(&w->p99, hist_cap);
    w->popts.vla_preset = preset;
    w->popts.vla_dtype = dtype;
    w->cs = cs;
    w->interval_s = interval_s;
    w->fd = -1;
    w->budget_total_ms = w->budget_rate_hz = NAN;
    /* the same watchdog as `check --level full`: the largest `timeout:` of
     * the checks that name the vla probe */
    for (size_t i = 0; cs && i < cs->n; i++)
        if (cs->v[i].probe && strcmp(cs->v[i].probe, "vla") == 0 &&
            cs->v[i].timeout_s > w->budget_s)
            w->budget_s = cs->v[i].timeout_s;
    if (w->budget_s <= 0)
        w->budget_s = ISOLATE_DEFAULT_BUDGET_S;
}

static double fact_num(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    if (f && f->type == FACT_FLOAT && isfinite(f->f))
        return f->f;
    if (f && f->type == FACT_INT)
        return (double)f->i;
    return NAN;
}

void tui_workload_sample(struct tui_workload *w)
{
    tui_ring_push(&w->p50, w->have ? fact_num(&w->facts, "vla.latency.total_ms") : NAN);
    tui_ring_push(&w->p99, w->have ? fact_num(&w->facts, "vla.latency.total_p99_ms") : NAN);
}

int tui_workload_running(const struct tui_workload *w)
{
    return w->pid > 0;
}

static int start(struct tui_workload *w, double now)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) < 0) {
        snprintf(w->error, sizeof(w->error), "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL); /* or buffered output would be written twice */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(w->error, sizeof(w->error), "fork failed: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        helper_main(w, fd[1], parent);
    }
    close(fd[1]);
    fcntl(fd[0], F_SETFL, O_NONBLOCK);
    w->pid = pid;
    w->fd = fd[0];
    w->started = now;
    w->wire.len = 0;
    if (w->wire.buf)
        w->wire.buf[0] = '\0';
    return 0;
}

int tui_workload_tick(struct tui_workload *w, double now)
{
    if (now < w->next_at)
        return 0;
    w->next_at = now + w->interval_s;
    if (w->pid > 0) {
        w->skipped++; /* the last run is still going: skip this round */
        return 0;
    }
    return start(w, now) == 0;
}

static void local_time(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, n, "%H:%M:%S", &tm);
}

static int has_vla_checks(const struct checkset *cs)
{
    for (size_t i = 0; cs && i < cs->n; i++)
        if (str_starts(cs->v[i].id, "vla."))
            return 1;
    return 0;
}

/* the helper is gone: take its facts as the last run */
static void finish(struct tui_workload *w, int wstatus, double now)
{
    struct factset fs = FACTSET_INIT;
    int n = fact_wire_parse(&fs, w->wire.buf ? w->wire.buf : "", w->wire.len);
    w->error[0] = '\0';
    if (n == 0) {
        if (WIFSIGNALED(wstatus))
            snprintf(w->error, sizeof(w->error), "the workload helper was killed by SIG%s",
                     sigabbrev_np(WTERMSIG(wstatus)) ? sigabbrev_np(WTERMSIG(wstatus)) : "?");
        else
            snprintf(w->error, sizeof(w->error), "the workload helper sent no facts (status %d)",
                     WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
        factset_release(&fs);
    } else {
        factset_release(&w->facts);
        w->facts = fs;
        w->have = 1;
        if (w->have_res)
            results_release(&w->res);
        w->have_res = 0;
        if (has_vla_checks(w->cs)) {
            struct strlist only = {0};
            strlist_add(&only, "vla.");
            struct run_filter flt = {LEVEL_FULL, &only};
            w->have_res = checks_run(w->cs, &w->facts, &flt, &w->res) == 0;
            strlist_release(&only);
        }
        if (checks_budget(w->cs, &w->facts, "vla.latency.total", "vla.latency.total_ms", 0,
                          &w->budget_total_ms))
            w->budget_total_ms = NAN;
        if (checks_budget(w->cs, &w->facts, "vla.control_rate", "vla.control_rate_hz", 1,
                          &w->budget_rate_hz))
            w->budget_rate_hz = NAN;
    }
    w->runs++;
    w->last_s = now - w->started;
    local_time(w->last_time, sizeof(w->last_time));
    w->pid = 0;
}

int tui_workload_poll(struct tui_workload *w, double now)
{
    if (w->pid <= 0)
        return 0;
    if (w->fd >= 0) {
        char buf[4096];
        for (;;) {
            ssize_t r = read(w->fd, buf, sizeof(buf));
            if (r > 0) {
                strbuf_add(&w->wire, buf, (size_t)r);
                continue;
            }
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0 && errno == EAGAIN)
                break;
            close(w->fd); /* EOF (or an error): the helper is done */
            w->fd = -1;
            break;
        }
    }
    /* a helper past its child's watchdog is stuck: stop it (its child
     * follows through PR_SET_PDEATHSIG) */
    if (now - w->started > w->budget_s + TUI_WL_SLACK_S)
        kill(w->pid, SIGKILL);
    int wstatus = 0;
    pid_t r = waitpid(w->pid, &wstatus, WNOHANG);
    if (r == 0)
        return 0;
    if (w->fd >= 0) {
        /* gone; whatever is still in the pipe is complete now */
        char buf[4096];
        ssize_t n;
        while ((n = read(w->fd, buf, sizeof(buf))) > 0)
            strbuf_add(&w->wire, buf, (size_t)n);
        close(w->fd);
        w->fd = -1;
    }
    finish(w, r == w->pid ? wstatus : 0, now);
    return 1;
}

void tui_workload_run_blocking(struct tui_workload *w)
{
    double now = util_mono_s();
    w->next_at = 0;
    if (!tui_workload_tick(w, now))
        return;
    while (w->pid > 0) {
        struct pollfd pf = {w->fd, POLLIN, 0};
        poll(&pf, w->fd >= 0 ? 1 : 0, 50);
        tui_workload_poll(w, util_mono_s());
    }
}

void tui_workload_release(struct tui_workload *w)
{
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        waitpid(w->pid, NULL, 0);
    }
    if (w->fd >= 0)
        close(w->fd);
    strbuf_release(&w->wire);
    factset_release(&w->facts);
    if (w->have_res)
        results_release(&w->res);
    tui_ring_release(&w->p50);
    tui_ring_release(&w->p99);
    memset(w, 0, sizeof(*w));
    w->fd = -1;
}
