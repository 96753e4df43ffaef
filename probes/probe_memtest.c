/* probe_memtest.c - the VRAM pattern test (probe "memtest", check
 * gpu.memtest), once per selected GPU: a fraction of the free VRAM
 * (--memtest-fraction, default 0.05 at the standard level and 0.25 at full)
 * is allocated and run through the patterns of src/gpu/memtest.h by
 * kernels/memtest.hip, within a time bound (10 s standard, 60 s full: no
 * new pattern starts after it). On the CPU backend's test devices
 * (ROCM_VLA_DOCTOR_CPU_DEVICES) the C twin runs the same sequence over at
 * most 16 MiB of host memory, so that CI exercises the logic.
 *
 * Facts (renamed gpu.<j>.memtest.* by the per-GPU runner): memtest.fraction,
 * memtest.free_bytes, memtest.bytes, memtest.time_bound_s, memtest.engine,
 * memtest.base (the buffer's device address), memtest.patterns (completed),
 * memtest.complete, memtest.errors (mismatched words over every verify
 * pass), memtest.failed_patterns, memtest.first_errors (up to 16 failing
 * words, each once: the first pattern that caught it, offset, address,
 * expected, read) and memtest.first_error (the first of them), memtest.seconds, memtest.gbs (bytes
 * written and read per second), memtest.injected (the fault-injection hook's value, "" when unset:
 * a report says when its error was planted). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "../src/gpu/memtest.h"
#include "probe.h"

#define MEMTEST_CPU_CAP (16ull << 20)
#define MEMTEST_MIN (1ull << 20)

int probe_memtest_run(struct probe_ctx *ctx);

struct gpu_mt {
    struct gpu_backend *b;
    gpu_function fill, check;
    uint32_t *buf; /* device */
    uint64_t n, flip_word;
    uint32_t flip_mask;
    unsigned grid;
    uint64_t *count, *idx; /* device: the error record */
    uint32_t *want, *got;
};

static int gpu_fill(void *p, unsigned kind, unsigned arg)
{
    struct gpu_mt *g = p;
    void *args[] = {&g->buf, &g->n, &kind, &arg};
    return g->b->launch(g->b, g->fill, g->grid, 256, 0, NULL, args) || g->b->device_sync(g->b);
}

static int gpu_check(void *p, unsigned kind, unsigned arg, int invert, struct memtest_check *out)
{
    struct gpu_mt *g = p;
    struct gpu_backend *b = g->b;
    void *args[] = {&g->buf,       &g->n,     &kind,   &arg,     &invert, &g->flip_word,
                    &g->flip_mask, &g->count, &g->idx, &g->want, &g->got};
    if (b->memset(b, g->count, 0, sizeof(uint64_t)) ||
        b->launch(b, g->check, g->grid, 256, 0, NULL, args) || b->device_sync(b) ||
        b->memcpy(b, &out->count, g->count, sizeof(uint64_t), GPU_D2H))
        return -1;
    if (!out->count)
        return 0;
    return b->memcpy(b, out->word, g->idx, sizeof(out->word), GPU_D2H) ||
           b->memcpy(b, out->want, g->want, sizeof(out->want), GPU_D2H) ||
           b->memcpy(b, out->got, g->got, sizeof(out->got), GPU_D2H);
}

struct cpu_mt {
    uint32_t *buf;
    uint64_t n, flip_word;
    uint32_t flip_mask;
};

static int cpu_fill(void *p, unsigned kind, unsigned arg)
{
    struct cpu_mt *c = p;
    memtest_cpu_fill(c->buf, c->n, kind, arg);
    return 0;
}

static int cpu_check(void *p, unsigned kind, unsigned arg, int invert, struct memtest_check *out)
{
    struct cpu_mt *c = p;
    memtest_cpu_check(c->buf, c->n, kind, arg, invert, c->flip_word, c->flip_mask, out);
    return 0;
}

static void report(struct factset *fs, const struct memtest_result *r, const char *src)
{
    fact_set_list(fs, "memtest.patterns", &r->run, src);
    fact_set_bool(fs, "memtest.complete", r->complete, src);
    fact_set_int(fs, "memtest.errors", (int64_t)r->errors, src);
    fact_set_list(fs, "memtest.failed_patterns", &r->failed, src);
    fact_set_list(fs, "memtest.first_errors", &r->first, src);
    fact_set_str(fs, "memtest.first_error", r->first.n ? r->first.v[0] : "", src);
    fact_set_float(fs, "memtest.seconds", r->seconds, src);
    if (r->seconds > 0)
        fact_set_float(fs, "memtest.gbs", r->bytes / r->seconds / 1e9, src);
    else
        fact_set_unknown(fs, "memtest.gbs", src, "no pattern ran");
}

/* the GPU's buffers and functions; 0, or -1 with the reason in b->err / *why */
static int gpu_setup(struct probe_ctx *ctx, struct gpu_backend *b, const struct gpu_props *p,
                     struct gpu_mt *g, char **why)
{
    gpu_module mod;
    if (gpu_kernel_load(b, "memtest", gpu_probe_target(p), &mod, why))
        return -1;
    if (b->function(b, mod, "rvd_mt_fill", &g->fill) ||
        b->function(b, mod, "rvd_mt_check", &g->check) ||
        b->malloc(b, (void **)&g->count, sizeof(uint64_t)) ||
        b->malloc(b, (void **)&g->idx, MEMTEST_FIRST * sizeof(uint64_t)) ||
        b->malloc(b, (void **)&g->want, MEMTEST_FIRST * sizeof(uint32_t)) ||
        b->malloc(b, (void **)&g->got, MEMTEST_FIRST * sizeof(uint32_t))) {
        *why = xstrdup(b->err);
        return -1;
    }
    (void)ctx;
    /* enough threads to fill the device, each striding over the buffer */
    uint64_t threads = (uint64_t)(p->cu_count > 0 ? p->cu_count : 64) * 2048;
    if (threads > g->n)
        threads = g->n;
    g->grid = (unsigned)((threads + 255) / 256);
    return 0;
}

int probe_memtest_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    if (gpu_probe_begin_cpu_ok(ctx, "memtest", &b, &p))
        return 0;
    int cpu = strcmp(b->name, "cpu") == 0;
    double frac = ctx->opts && ctx->opts->memtest_fraction > 0 ? ctx->opts->memtest_fraction
                  : ctx->level >= LEVEL_FULL                   ? 0.25
                                                               : 0.05;
    double bound = ctx->level >= LEVEL_FULL ? 60 : 10;
    const char *src = b->lib[0] ? b->lib : b->name;
    fact_set_float(fs, "memtest.fraction", frac, "--memtest-fraction");
    fact_set_float(fs, "memtest.time_bound_s", bound, "probe_memtest.c");
    size_t free_b = 0, total_b = 0;
    if (b->mem_info(b, &free_b, &total_b)) {
        gpu_probe_unavailable(ctx, "memtest", "free memory unknown: %s", b->err);
        return 0;
    }
    fact_set_int(fs, "memtest.free_bytes", (int64_t)free_b, src);
    uint64_t bytes = (uint64_t)((double)free_b * frac) & ~(MEMTEST_MIN - 1);
    if (cpu && bytes > MEMTEST_CPU_CAP)
        bytes = MEMTEST_CPU_CAP;
    if (bytes < MEMTEST_MIN)
        bytes = MEMTEST_MIN;
    uint64_t flip_word = UINT64_MAX;
    uint32_t flip_mask = 0;
    int hook = memtest_flip_hook(ctx->device, &flip_word, &flip_mask);
    const char *hv = getenv("ROCM_VLA_DOCTOR_MEMTEST_FLIP");
    if (hook < 0) {
        gpu_probe_unavailable(
            ctx, "memtest",
            "ROCM_VLA_DOCTOR_MEMTEST_FLIP=%.40s: want OFFSET[:BIT][@DEVICE], BIT 0-7", hv);
        return 0;
    }
    /* a report says when its error was planted */
    fact_set_str(fs, "memtest.injected", hook ? hv : "", "ROCM_VLA_DOCTOR_MEMTEST_FLIP");
    void *buf = NULL;
    /* VRAM free now may be gone at the allocation: halve until it fits */
    while (b->malloc(b, &buf, bytes)) {
        if (bytes / 2 < MEMTEST_MIN) {
            gpu_probe_unavailable(ctx, "memtest", "cannot allocate %" PRIu64 " bytes: %s", bytes,
                                  b->err);
            return 0;
        }
        bytes /= 2;
    }
    fact_set_int(fs, "memtest.bytes", (int64_t)bytes, src);
    char base[32];
    snprintf(base, sizeof(base), "0x%" PRIxPTR, (uintptr_t)buf);
    fact_set_str(fs, "memtest.base", base, src);
    isolate_flush(fs);

    struct gpu_mt g = {b,         NULL, NULL, buf,  bytes / 4, flip_word,
                       flip_mask, 0,    NULL, NULL, NULL,      NULL};
    struct cpu_mt c = {buf, bytes / 4, flip_word, flip_mask};
    struct memtest_ops ops = {cpu ? cpu_fill : gpu_fill, cpu ? cpu_check : gpu_check,
                              cpu ? (void *)&c : (void *)&g};
    char *why = NULL;
    if (!cpu && gpu_setup(ctx, b, &p, &g, &why)) {
        gpu_probe_unavailable(ctx, "memtest", "%s", why);
        free(why);
        return 0;
    }
    fact_set_str(fs, "memtest.engine",
                 cpu ? "C twin (src/gpu/memtest.c) on the CPU backend" : "kernels/memtest.hip",
                 src);
    struct memtest_result r;
    char err[200];
    int rc = memtest_run(&ops, bytes / 4, (uint64_t)(uintptr_t)buf, bound, &r, err, sizeof(err));
    if (rc)
        gpu_probe_unavailable(ctx, "memtest", "%s: %s", err, b->err);
    else
        report(fs, &r, src);
    memtest_result_release(&r);
    b->free(b, buf);
    return 0;
}
