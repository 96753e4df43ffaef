/* isolate.h - run one probe in a forked child with a watchdog.
 *
 * GPU runtimes are only ever loaded in the child: a hung kernel, a segfault
 * in a vendor library or an abort in the runtime kills the child, not the
 * doctor. The child sends its facts to the parent over a pipe (fact_wire.h)
 * as it goes; the parent keeps every complete record it received, even from
 * a child that died later. Outcome, as facts the checks engine maps:
 *   probe.<name>.status  "ok" | "error" | "timeout"
 *   probe.<name>.message signal or exit status and the child's last stderr
 *                        lines (absent on "ok")
 *   probe.<name>.wall_s  the child's wall time */
#ifndef RVD_ISOLATE_H
#define RVD_ISOLATE_H

#include <sys/types.h>

#include "../core/probe_def.h"

#define ISOLATE_DEFAULT_BUDGET_S 20.0
#define ISOLATE_GRACE_S 2.0
/* how long the runner waits for a child to die after SIGKILL: one stuck in
 * uninterruptible sleep (state D: a GPU hang inside an ioctl) never does, and
 * is then reported as a timeout with its state and wchan, and left behind */
#define ISOLATE_KILL_WAIT_S 3.0

/* run p in a child; budget_s <= 0 means the default. Facts land in ctx->facts. */
void isolate_run(const struct probe *p, struct probe_ctx *ctx, double budget_s);

/* in the child: send the facts produced since the last flush now, so that
 * they survive a later crash. A no-op outside an isolated child. */
void isolate_flush(const struct factset *fs);
/* 1 inside an isolated probe child */
int isolate_in_child(void);

/* fn(arg), once, in the parent right after the next isolate_run forked its
 * child (not called when fork fails). For a caller that needs a thread
 * beside the child (soak's sampler): a thread that exists at fork time can
 * hold a lock (malloc's, ASan's allocator's) that the child then waits for
 * forever, so such a thread must start after the fork. */
void isolate_after_fork(void (*fn)(void *arg), void *arg);

/* tests only: the function that reaps the child (waitpid; NULL restores it).
 * One that never reports the exit stands for a child that SIGKILL cannot end. */
typedef pid_t (*isolate_reap_fn)(pid_t pid, int *wstatus, int options);
void isolate_set_reap(isolate_reap_fn fn);

#endif
