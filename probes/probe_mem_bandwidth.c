/* probe_mem_bandwidth.c - device memory bandwidth with BabelStream's five
 * kernels (kernels/babelstream.hip, engine and check in src/gpu/babelstream.h)
 * in the isolated child (probe "mem_bandwidth", check gpu.mem_bandwidth).
 *
 * Three arrays of 2^27 doubles (1 GiB each: three times the largest
 * last-level cache of any GPU we know, MI300X's 256 MB Infinity Cache, so
 * the figures are DRAM's), halved while the three would take more than half
 * the free VRAM; ROCM_VLA_DOCTOR_STREAM_N sets the length (the device tests
 * use odd sizes). BS_ROUNDS rounds, each kernel timed with events, the best
 * round reported; then 8 windows of each array and the dot product checked
 * against BabelStream's expected values.
 *
 * Facts membw.{copy,mul,add,triad,dot}_gbs, membw.best_gbs and best_kernel,
 * membw.array_bytes, membw.rounds, membw.checked, membw.max_rel_err,
 * membw.error ("" when every kernel ran and every value was right), and
 * membw.best_peak / best_fraction / best_vs_peak against runtime device 0's
 * derived memory bandwidth (probes/probe_peaks.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/babelstream.h"
#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "probe.h"

int probe_mem_bandwidth_run(struct probe_ctx *ctx);

#define BS_ROUNDS 20
#define BS_DEFAULT_N ((size_t)1 << 27)
#define BS_MIN_N ((size_t)1 << 20)
#define BS_BLOCK 256u
#define BS_DOT_BLOCKS 1024u

struct gdev {
    struct gpu_backend *b;
    gpu_function f[BS_NKERNELS + 1];
    double *arr[3], *sums, *host_sums;
    unsigned long long n;
    unsigned grid, dot_grid;
    gpu_event e0, e1;
};

static double g_run(void *self, enum bs_kernel k, double *dot, char *why, size_t whylen)
{
    struct gdev *g = self;
    struct gpu_backend *b = g->b;
    double va = BS_START_A, vb = BS_START_B, vc = BS_START_C, s = BS_SCALAR;
    void *init[] = {&g->arr[0], &g->arr[1], &g->arr[2], &va, &vb, &vc, &g->n};
    void *copy[] = {&g->arr[0], &g->arr[2], &g->n};
    void *mul[] = {&g->arr[1], &g->arr[2], &s, &g->n};
    void *add[] = {&g->arr[0], &g->arr[1], &g->arr[2], &g->n};
    void *triad[] = {&g->arr[0], &g->arr[1], &g->arr[2], &s, &g->n};
    void *dotp[] = {&g->arr[0], &g->arr[1], &g->sums, &g->n};
    void **args[] = {copy, mul, add, triad, dotp, init};
    float ms = 0;
    if (b->event_record(b, g->e0, NULL) ||
        b->launch(b, g->f[k], k == BS_DOT ? g->dot_grid : g->grid, BS_BLOCK, 0, NULL, args[k]) ||
        b->event_record(b, g->e1, NULL) || b->event_sync(b, g->e1) ||
        b->event_elapsed_ms(b, &ms, g->e0, g->e1)) {
        snprintf(why, whylen, "%s", b->err);
        return -1;
    }
    if (k == BS_DOT) {
        if (b->memcpy(b, g->host_sums, g->sums, g->dot_grid * sizeof(double), GPU_D2H)) {
            snprintf(why, whylen, "reading the dot product's block sums: %s", b->err);
            return -1;
        }
        double sum = 0;
        for (unsigned i = 0; i < g->dot_grid; i++)
            sum += g->host_sums[i];
        *dot = sum;
    }
    return ms;
}

static int g_read(void *self, int array, size_t at, size_t count, double *out, char *why,
                  size_t whylen)
{
    struct gdev *g = self;
    if (g->b->memcpy(g->b, out, g->arr[array] + at, count * sizeof(double), GPU_D2H)) {
        snprintf(why, whylen, "%s", g->b->err);
        return -1;
    }
    return 0;
}

/* the array length: ROCM_VLA_DOCTOR_STREAM_N, else 2^27 halved until three
 * arrays fit in half the free memory; 0 when not even 2^20 fit */
static size_t array_len(struct gpu_backend *b, char *why, size_t whylen)
{
    const char *env = getenv("ROCM_VLA_DOCTOR_STREAM_N");
    uint64_t forced;
    if (env && *env && str_parse_u64(env, &forced) == 0 && forced > 0 && forced < (1ull << 34))
        return (size_t)forced;
    size_t fr = 0, tot = 0, n = BS_DEFAULT_N;
    if (b->mem_info(b, &fr, &tot)) {
        snprintf(why, whylen, "free device memory is not known: %.200s", b->err);
        return 0;
    }
    while (n > BS_MIN_N && 3 * n * sizeof(double) > fr / 2)
        n /= 2;
    if (3 * n * sizeof(double) > fr / 2) {
        snprintf(why, whylen,
                 "only %zu MiB of device memory free: three arrays of %zu MiB do not "
                 "fit in half of it",
                 fr >> 20, (n * sizeof(double)) >> 20);
        return 0;
    }
    return n;
}

static void set_gbs(struct factset *fs, const struct bs_result *r, const char *src)
{
    char name[FACT_NAME_MAX];
    int best = -1;
    for (int k = 0; k < BS_NKERNELS; k++) {
        snprintf(name, sizeof(name), "membw.%s_gbs", bs_kernel_names[k]);
        if (r->gbs[k] > 0)
            fact_set_float(fs, name, r->gbs[k], src);
        else
            fact_set_unknown(fs, name, src, "not measured: %s", r->error);
        if (r->gbs[k] > 0 && (best < 0 || r->gbs[k] > r->gbs[best]))
            best = k;
    }
    if (best >= 0) {
        fact_set_float(fs, "membw.best_gbs", r->gbs[best], src);
        fact_set_str(fs, "membw.best_kernel", bs_kernel_names[best], src);
    } else {
        fact_set_unknown(fs, "membw.best_gbs", src, "not measured: %s", r->error);
        fact_set_unknown(fs, "membw.best_kernel", src, "not measured: %s", r->error);
    }
}

int probe_mem_bandwidth_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    if (gpu_probe_begin(ctx, "membw", &b, &p))
        return 0;
    char why[600] = "";
    size_t n = array_len(b, why, sizeof(why));
    if (!n) {
        gpu_probe_unavailable(ctx, "membw", "%s", why);
        return 0;
    }
    struct gdev g = {.b = b, .n = n};
    static const char *const fn[] = {"rvd_bs_copy",  "rvd_bs_mul", "rvd_bs_add",
                                     "rvd_bs_triad", "rvd_bs_dot", "rvd_bs_init"};
    gpu_module mod;
    char *kwhy = NULL;
    if (gpu_kernel_load(b, "babelstream", gpu_probe_target(&p), &mod, &kwhy)) {
        gpu_probe_unavailable(ctx, "membw", "kernels/babelstream.hip: %s", kwhy);
        free(kwhy);
        return 0;
    }
    for (int k = 0; k <= BS_NKERNELS; k++)
        if (b->function(b, mod, fn[k], &g.f[k])) {
            gpu_probe_unavailable(ctx, "membw", "%s: %s", fn[k], b->err);
            return 0;
        }
    unsigned long long blocks = (n + BS_BLOCK - 1) / BS_BLOCK;
    g.grid = (unsigned)(blocks < (1ull << 31) - 1 ? blocks : (1ull << 31) - 1);
    g.dot_grid = blocks < BS_DOT_BLOCKS ? (unsigned)blocks : BS_DOT_BLOCKS;
    g.host_sums = xcalloc(g.dot_grid, sizeof(double));
    for (int i = 0; i < 3; i++)
        if (b->malloc(b, (void **)&g.arr[i], n * sizeof(double))) {
            gpu_probe_unavailable(ctx, "membw", "%zu MiB array: %s", (n * 8) >> 20, b->err);
            goto out;
        }
    if (b->malloc(b, (void **)&g.sums, g.dot_grid * sizeof(double)) || b->event_create(b, &g.e0) ||
        b->event_create(b, &g.e1)) {
        gpu_probe_unavailable(ctx, "membw", "%s", b->err);
        goto out;
    }
    struct bs_dev dev = {g_run, g_read, &g};
    struct bs_result r;
    bs_measure(&dev, n, BS_ROUNDS, &r);
    const char *src = b->lib;
    fact_set_int(fs, "membw.array_bytes", (int64_t)(n * sizeof(double)), "probe");
    fact_set_int(fs, "membw.rounds", BS_ROUNDS, "probe");
    fact_set_int(fs, "membw.checked", (int64_t)r.checked, "probe");
    fact_set_float(fs, "membw.max_rel_err", r.max_rel_err, src);
    fact_set_str(fs, "membw.error", r.error, src);
    set_gbs(fs, &r, src);
    const struct fact *best = fact_get(fs, "membw.best_gbs");
    if (best && best->type == FACT_FLOAT) {
        gpu_probe_fraction(ctx, "membw.best", best->f, ctx->device, "mem_gbs");
    } else {
        static const char *const no[] = {"membw.best_peak", "membw.best_fraction"};
        for (size_t i = 0; i < ARRAY_SIZE(no); i++)
            fact_set_unknown(fs, no[i], src, "nothing measured: %s", r.error);
        fact_set_str(fs, "membw.best_vs_peak", "nothing measured", src);
    }
out:
    if (g.e0)
        b->event_destroy(b, g.e0);
    if (g.e1)
        b->event_destroy(b, g.e1);
    for (int i = 0; i < 3; i++)
        if (g.arr[i])
            b->free(b, g.arr[i]);
    if (g.sums)
        b->free(b, g.sums);
    free(g.host_sums);
    return 0;
}
