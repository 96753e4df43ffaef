/* test_isolate.c - the isolation runner with fake probes: one that hangs,
 * one that segfaults, one that aborts, one that exits nonzero, one that
 * writes facts then succeeds; plus the fact wire format and truncation. */
/* layers: core gpu */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/core/fact_wire.h"
#include "../../src/gpu/isolate.h"
#include "test.h"

static int fake_hang(struct probe_ctx *ctx)
{
    fact_set_int(ctx->facts, "fake.before_hang", 7, "test");
    isolate_flush(ctx->facts);
    fprintf(stderr, "about to hang\n");
    for (;;)
        pause();
    return 0;
}

static int fake_hang_ignore_term(struct probe_ctx *ctx)
{
    (void)ctx;
    signal(SIGTERM, SIG_IGN);
    for (;;)
        pause();
    return 0;
}

static int fake_segv(struct probe_ctx *ctx)
{
    fact_set_str(ctx->facts, "fake.segv_first", "kept", "test");
    isolate_flush(ctx->facts);
    fprintf(stderr, "line one\nline two\ncrashing in vendor init\n");
    raise(SIGSEGV);
    return 0;
}

static int fake_abort(struct probe_ctx *ctx)
{
    (void)ctx;
    fprintf(stderr, "hipErrorNoBinaryForGpu: Unable to find code object\n");
    abort();
}

static int fake_exit3(struct probe_ctx *ctx)
{
    (void)ctx;
    _exit(3);
}

static int fake_ok(struct probe_ctx *ctx)
{
    struct strlist l = STRLIST_INIT;
    strlist_add(&l, "a\tb");
    strlist_add(&l, "c\\d\ne");
    fact_set_list(ctx->facts, "fake.list", &l, "test");
    strlist_release(&l);
    fact_set_float(ctx->facts, "fake.f", 0.1, "src");
    fact_set_bool(ctx->facts, "fake.b", 1, NULL);
    fact_set_unknown(ctx->facts, "fake.u", "api", "no device: %s", "ENODEV");
    fact_set_int(ctx->facts, "fake.i", -5, NULL);
    fact_set_int(ctx->facts, "fake.i", 42, NULL); /* replaced after a flush */
    printf("stdout must not leak into the report\n");
    return 0;
}

static int fake_errno(struct probe_ctx *ctx)
{
    (void)ctx;
    return -5; /* EIO */
}

static pid_t never_reaps(pid_t pid, int *wstatus, int options)
{
    (void)pid, (void)wstatus, (void)options;
    return 0; /* "still running" */
}

static void unbounded(int sig)
{
    (void)sig;
    static const char msg[] = "test_isolate: the runner never gave up on an unkillable child\n";
    if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
        _exit(1);
    _exit(1);
}

static const char *str(const struct factset *fs, const char *n)
{
    const struct fact *f = fact_get(fs, n);
    return f && f->type == FACT_STR ? f->s : NULL;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* isolate_after_fork: the hook runs once, in the parent, with the child
 * already forked (its pid differs), and is cleared for the next run */
static int hook_calls;
static pid_t hook_pid;
static void after_fork_hook(void *arg)
{
    hook_calls++;
    hook_pid = getpid();
    *(int *)arg = 1;
}

static int fake_quick(struct probe_ctx *c)
{
    fact_set_int(c->facts, "fake.child_pid", (int64_t)getpid(), NULL);
    return 0;
}

static void test_after_fork(struct probe_ctx *ctx)
{
    int flag = 0;
    struct probe quick = {"quick", LEVEL_STANDARD, 1, fake_quick, "returns"};
    isolate_after_fork(after_fork_hook, &flag);
    isolate_run(&quick, ctx, 5);
    CHECK(hook_calls == 1 && flag == 1 && hook_pid == getpid());
    const struct fact *cp = fact_get(ctx->facts, "fake.child_pid");
    CHECK(cp && cp->type == FACT_INT && cp->i != (int64_t)getpid());
    isolate_run(&quick, ctx, 5);
    CHECK(hook_calls == 1); /* cleared after one use */
}

int main(void)
{
    struct factset fs = FACTSET_INIT;
    struct probe_opts po = {0};
    struct probe_ctx ctx = {&fs, LEVEL_STANDARD, &po, 0};
    fact_set_str(&fs, "parent.fact", "x", NULL);
    test_after_fork(&ctx);

    struct probe hang = {"hang", LEVEL_STANDARD, 1, fake_hang, "hangs"};
    double t = mono();
    isolate_run(&hang, &ctx, 0.5);
    t = mono() - t;
    CHECK_STR(str(&fs, "probe.hang.status"), "timeout");
    CHECK(str(&fs, "probe.hang.message") && strstr(str(&fs, "probe.hang.message"), "SIGTERM"));
    CHECK(str(&fs, "probe.hang.message") &&
          strstr(str(&fs, "probe.hang.message"), "about to hang"));
    CHECK(fact_get(&fs, "fake.before_hang") && fact_get(&fs, "fake.before_hang")->i == 7);
    CHECK(t < 2.0);

    struct probe stubborn = {"stubborn", LEVEL_STANDARD, 1, fake_hang_ignore_term, "ignores TERM"};
    t = mono();
    isolate_run(&stubborn, &ctx, 0.3);
    t = mono() - t;
    CHECK_STR(str(&fs, "probe.stubborn.status"), "timeout");
    CHECK(str(&fs, "probe.stubborn.message") &&
          strstr(str(&fs, "probe.stubborn.message"), "SIGKILL"));
    CHECK(t >= 0.3 + ISOLATE_GRACE_S - 0.1 && t < 0.3 + ISOLATE_GRACE_S + 1.5);

    /* a child that SIGKILL does not end (state D in a GPU ioctl): the reaper never
     * reports its exit, as waitpid does not for a process stuck in the kernel.
     * The run must end within the bound, name the state read from /proc (here
     * the real killed child, a zombie nobody reaped) and leave the child. */
    isolate_set_reap(never_reaps);
    signal(SIGALRM, unbounded);
    alarm(30); /* without the bound the runner polls forever */
    struct probe dstate = {"dstate", LEVEL_STANDARD, 1, fake_hang_ignore_term, "unkillable"};
    t = mono();
    isolate_run(&dstate, &ctx, 0.3);
    t = mono() - t;
    alarm(0);
    isolate_set_reap(NULL);
    CHECK_STR(str(&fs, "probe.dstate.status"), "timeout");
    const char *m = str(&fs, "probe.dstate.message");
    CHECK(m && strstr(m, "SIGKILL did not end the probe child"));
    CHECK(m && strstr(m, "state Z (zombie)") && strstr(m, "wchan ") && strstr(m, "left behind"));
    CHECK(t >= 0.3 + ISOLATE_GRACE_S + ISOLATE_KILL_WAIT_S - 0.1 &&
          t < 0.3 + ISOLATE_GRACE_S + ISOLATE_KILL_WAIT_S + 1.5);
    const char *pidp = m ? strstr(m, "(pid ") : NULL;
    CHECK(pidp != NULL);
    if (pidp) /* the test's own cleanup: the child really died */
        CHECK(waitpid((pid_t)atoi(pidp + 5), NULL, 0) > 0);

    struct probe segv = {"segv", LEVEL_STANDARD, 1, fake_segv, "segfaults"};
    isolate_run(&segv, &ctx, 5);
    CHECK_STR(str(&fs, "probe.segv.status"), "error");
    m = str(&fs, "probe.segv.message");
    CHECK(m && strstr(m, "SIGSEGV"));
    CHECK(m && strstr(m, "line two | crashing in vendor init"));
    CHECK_STR(str(&fs, "fake.segv_first"), "kept");

    struct probe ab = {"abrt", LEVEL_STANDARD, 1, fake_abort, "aborts"};
    isolate_run(&ab, &ctx, 5);
    CHECK_STR(str(&fs, "probe.abrt.status"), "error");
    m = str(&fs, "probe.abrt.message");
    CHECK(m && strstr(m, "SIGABRT") && strstr(m, "hipErrorNoBinaryForGpu"));

    struct probe ex = {"exit3", LEVEL_STANDARD, 1, fake_exit3, "exits 3"};
    isolate_run(&ex, &ctx, 5);
    CHECK_STR(str(&fs, "probe.exit3.status"), "error");
    CHECK(str(&fs, "probe.exit3.message") && strstr(str(&fs, "probe.exit3.message"), "status 3"));

    struct probe er = {"eio", LEVEL_STANDARD, 1, fake_errno, "returns -EIO"};
    isolate_run(&er, &ctx, 5);
    CHECK_STR(str(&fs, "probe.eio.status"), "error");
    CHECK(str(&fs, "probe.eio.message") &&
          strstr(str(&fs, "probe.eio.message"), "Input/output error"));

    struct probe ok = {"ok", LEVEL_STANDARD, 1, fake_ok, "writes facts"};
    isolate_run(&ok, &ctx, 5);
    CHECK_STR(str(&fs, "probe.ok.status"), "ok");
    CHECK(fact_get(&fs, "probe.ok.message") == NULL);
    const struct fact *f = fact_get(&fs, "fake.list");
    CHECK(f && f->type == FACT_LIST && f->list.n == 2);
    if (f && f->list.n == 2) {
        CHECK_STR(f->list.v[0], "a\tb");
        CHECK_STR(f->list.v[1], "c\\d\ne");
    }
    f = fact_get(&fs, "fake.f");
    CHECK(f && f->type == FACT_FLOAT && f->f == 0.1);
    CHECK_STR(f ? f->source : NULL, "src");
    f = fact_get(&fs, "fake.b");
    CHECK(f && f->type == FACT_BOOL && f->b && f->source == NULL);
    f = fact_get(&fs, "fake.u");
    CHECK(f && f->type == FACT_UNKNOWN && f->reason && strstr(f->reason, "ENODEV"));
    f = fact_get(&fs, "fake.i");
    CHECK(f && f->type == FACT_INT && f->i == 42);
    CHECK(fact_get(&fs, "probe.ok.wall_s") != NULL);
    CHECK_STR(str(&fs, "parent.fact"), "x");
    CHECK(!isolate_in_child());

    /* truncation: a record cut anywhere is dropped, earlier ones are kept */
    struct strbuf sb = STRBUF_INIT;
    struct factset src = FACTSET_INIT;
    fact_set_str(&src, "a.one", "first", "s1");
    fact_set_str(&src, "a.two", "second", "s2");
    for (size_t i = 0; i < src.n; i++)
        fact_wire_encode(&sb, src.v[i]);
    int all_ok = 1;
    for (size_t cut = 0; cut < sb.len; cut++) {
        struct factset dst = FACTSET_INIT;
        int n = fact_wire_parse(&dst, sb.buf, cut);
        size_t first_len = strchr(sb.buf, '\n') - sb.buf + 1;
        if (n != (cut >= first_len ? 1 : 0) || fact_get(&dst, "a.two"))
            all_ok = 0;
        factset_release(&dst);
    }
    CHECK(all_ok);
    struct factset dst = FACTSET_INIT;
    CHECK(fact_wire_parse(&dst, sb.buf, sb.len) == 2);
    CHECK(fact_wire_parse(&dst, "i\tx\tnotanumber\t\t\nz\ty\t1\t\t\ns\tonly\t3fields\n", 40) == 0);
    factset_release(&dst);
    factset_release(&src);
    strbuf_release(&sb);
    factset_release(&fs);
    return test_report();
}
