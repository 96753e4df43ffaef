/* probe_def.h - what a probe is: its options, its context and its table
 * row. The probes (probes/probe.h) define the table; the isolation and the
 * GPU probes' helpers in src/gpu/ run its rows, so the types live below both. */
#ifndef RVD_PROBE_DEF_H
#define RVD_PROBE_DEF_H

#include <stddef.h>

#include "checks.h"
#include "fact.h"
#include "util.h"

struct probe_opts {
    const char *requirements; /* --requirements FILE, or NULL */
    const char *python;       /* --python PATH, or NULL for python3 on PATH */
    const char *vla_preset;   /* --preset NAME|FILE for the full level, or NULL */
    const char *vla_dtype;    /* --dtype bf16|fp16|fp32, or NULL */
    /* with --only: the probes whose facts the selected checks read, and what
     * those probes read (probes_select); NULL runs every probe of the level */
    const struct strlist *only_probes;
    /* --gpu N[,M]|all: the runtime devices the per-GPU probes measure; NULL = device 0 */
    const char *gpus;
    /* --memtest-fraction: the share of free VRAM the memory test covers; 0 = by level */
    double memtest_fraction;
    /* the loaded checks, passed rather than kept in a static so that the data
     * flow from checks.yaml into the probes stays visible: their `timeout:`
     * sets the GPU probes' budgets, their `peaks:` table feeds probe_peaks.c,
     * their wheel-index data the python and torch probes; NULL = defaults */
    const struct checkset *checks;
};

struct probe_ctx {
    struct factset *facts;
    enum level level;
    const struct probe_opts *opts;
    /* in a per-GPU probe's child: the runtime device to measure (0 by default) */
    int device;
};

/* ctx's checks (probe_opts.checks), or NULL */
static inline const struct checkset *probe_ctx_checks(const struct probe_ctx *ctx)
{
    return ctx && ctx->opts ? ctx->opts->checks : NULL;
}

enum { PROBE_HOST = 0, PROBE_GPU_ONCE = 1, PROBE_GPU_EACH = 2, PROBE_GPU_PAIRS = 3 };

struct probe {
    const char *name;
    enum level level;
    /* PROBE_HOST: in this process; PROBE_GPU_ONCE: one isolated child with a watchdog;
     * PROBE_GPU_EACH: one isolated child per selected GPU (--gpu), its facts renamed
     * gpu.<j>.* (probe_each_gpu.c); PROBE_GPU_PAIRS: one isolated child that reads
     * the selection (gpu.measured), made first if no per-GPU probe made it */
    int needs_gpu;
    /* 0, or -errno for an internal error (recorded as probe.<name>.status) */
    int (*run)(struct probe_ctx *ctx);
    const char *what; /* one line for `explain` and -v */
};

#endif
