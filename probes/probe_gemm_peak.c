/* probe_gemm_peak.c - GEMM throughput through the path gpu_gemm() takes
 * (src/gpu/gemm.h: cuBLAS, rocBLAS, else the project's own kernel; forced to
 * the own kernel by ROCM_VLA_DOCTOR_NO_BLAS=1) (probe "gemm_peak", check
 * gpu.gemm_peak): fp16, bf16 and fp32 inputs with
 * fp32 output and accumulation, square N x N x N with N = 8192 when a
 * GEMM of that size takes under GP_MAX_S (estimated from N = 2048), else
 * 4096 or 2048; inputs filled on the device with exact multiples of 1/128
 * from the counter RNG; 2 warm-up runs, then timed with events. A spot
 * check of 16 output elements against fp64 (the inputs regenerated on the
 * CPU from the same counters) uses the bound of fp_ref.c.
 * Facts gpu.gemm_peak.{fp16,bf16,fp32}_tflops, .{fp16,bf16,fp32}_n,
 * gpu.gemm_peak.blas (the path), gpu.gemm_peak.blas_lib (its library, or why
 * no BLAS; also recorded when there is no device, so a machine without a GPU
 * still says whether rocBLAS loads), gpu.gemm_peak.spot_ratio (max error / bound),
 * gpu.gemm_peak.spot_checked, gpu.gemm_peak.error ("" when every GEMM ran),
 * gpu.gemm_peak.{fp16,bf16}_peak and _fraction (the runtime device's derived
 * matrix peak, probe_peaks.c, and the measured share of it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/fp_ref.h"
#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "../src/gpu/gemm.h"
#include "probe.h"

#define GP_MAX_S 0.25   /* longest single GEMM we time: keeps the probe < 10 s */
#define GP_TARGET_S 0.6 /* timed time per dtype */
#define GP_SPOT 16

int probe_gemm_peak_run(struct probe_ctx *ctx);

struct gp {
    struct gpu_backend *b;
    struct gpu_gemm g;
    gpu_function fill;
    gpu_event e0, e1;
    void *A, *B;
    float *C;
};

static int fill(struct gp *s, void *p, uint64_t n, uint64_t seed, int dtype)
{
    void *args[] = {&p, &n, &seed, &dtype};
    return s->b->launch(s->b, s->fill, 4096, 256, 0, NULL, args);
}

/* ms per GEMM over reps runs, -1 on error */
static double time_gemm(struct gp *s, enum gpu_dtype t, int n, int reps)
{
    struct gpu_backend *b = s->b;
    if (b->event_record(b, s->e0, NULL))
        return -1;
    for (int r = 0; r < reps; r++)
        if (gpu_gemm(&s->g, t, n, n, n, s->A, s->B, s->C, NULL))
            return -1;
    float ms = 0;
    if (b->event_record(b, s->e1, NULL) || b->event_sync(b, s->e1) ||
        b->event_elapsed_ms(b, &ms, s->e0, s->e1))
        return -1;
    return ms / reps;
}

/* the spot check: C[i][j] of the last GEMM for GP_SPOT (i, j) pairs */
static int spot(struct gp *s, int n, uint64_t sa, uint64_t sb, double *worst)
{
    float *a = xcalloc((size_t)n, 4), *bc = xcalloc((size_t)n, 4);
    int rc = 0;
    for (int q = 0; q < GP_SPOT && !rc; q++) {
        int i = (int)(fp_rng_u64(77, (uint64_t)q) % (uint64_t)n);
        int j = q == 0 ? n - 1 : (int)(fp_rng_u64(78, (uint64_t)q) % (uint64_t)n);
        for (int l = 0; l < n; l++) {
            a[l] = fp_rng_fill(sa, (uint64_t)i * n + l);
            bc[l] = fp_rng_fill(sb, (uint64_t)l * n + j);
        }
        double abs, ref = fp_dot_ref(a, bc, n, &abs);
        float got;
        if (s->b->memcpy(s->b, &got, s->C + (size_t)i * n + j, 4, GPU_D2H)) {
            rc = -1;
            break;
        }
        double r = fp_gemm_bound_ratio((double)got - ref, n, abs);
        if (r > *worst || isnan(r))
            *worst = isnan(r) ? INFINITY : r;
    }
    free(a);
    free(bc);
    return rc;
}

int probe_gemm_peak_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gp s;
    struct gpu_props p;
    memset(&s, 0, sizeof(s));
    if (gpu_probe_begin(ctx, "gpu.gemm_peak", &s.b, &p)) {
        if (s.b) { /* a runtime without a device: which GEMM path it would take */
            char d[600];
            gpu_gemm_detail(s.b, d, sizeof(d));
            fact_set_str(fs, "gpu.gemm_peak.blas", gpu_gemm_path(s.b), s.b->lib);
            fact_set_str(fs, "gpu.gemm_peak.blas_lib", d, s.b->lib);
        }
        return 0;
    }
    struct gpu_backend *b = s.b;
    gpu_module mod;
    char *why = NULL;
    if (gpu_kernel_load(b, "fp_numerics", gpu_probe_target(&p), &mod, &why) ||
        b->function(b, mod, "rvd_fp_fill", &s.fill) ||
        gpu_gemm_init(&s.g, b, gpu_probe_target(&p), &why) || b->event_create(b, &s.e0) ||
        b->event_create(b, &s.e1)) {
        if (s.g.path)
            fact_set_str(fs, "gpu.gemm_peak.blas", s.g.path, b->lib);
        gpu_probe_unavailable(ctx, "gpu.gemm_peak", "%s", why ? why : b->err);
        free(why);
        return 0;
    }
    const char *src = b->lib;
    fact_set_str(fs, "gpu.gemm_peak.blas", s.g.path, src);
    fact_set_str(fs, "gpu.gemm_peak.blas_lib", s.g.detail, src);
    /* the largest size: A, B as fp32 (4 bytes) plus C, for N = 8192: 768 MiB */
    int nmax = 8192;
    size_t fr = 0, tot = 0;
    while (nmax > 2048 && !b->mem_info(b, &fr, &tot) && fr < 2 * 3 * (size_t)nmax * nmax * 4)
        nmax /= 2;
    size_t bytes = (size_t)nmax * nmax * 4;
    if (b->malloc(b, &s.A, bytes) || b->malloc(b, &s.B, bytes) ||
        b->malloc(b, (void **)&s.C, bytes)) {
        gpu_probe_unavailable(ctx, "gpu.gemm_peak", "%s", b->err);
        return 0;
    }
    static const struct {
        enum gpu_dtype t;
        const char *name;
    } types[] = {{GPU_F16, "fp16"}, {GPU_BF16, "bf16"}, {GPU_F32, "fp32"}};
    char err[600] = "";
    double worst = 0;
    int checked = 0;
    for (size_t ti = 0; ti < ARRAY_SIZE(types); ti++) {
        enum gpu_dtype t = types[ti].t;
        char name[FACT_NAME_MAX], pk[32];
        uint64_t sa = 1000 + ti, sb = 2000 + ti, total = (uint64_t)nmax * nmax;
        if (fill(&s, s.A, total, sa, (int)t) || fill(&s, s.B, total, sb, (int)t) ||
            b->device_sync(b)) {
            snprintf(err, sizeof(err), "%s fill: %s", types[ti].name, b->err);
            break;
        }
        /* estimate at 2048 (row-major 2048 x 2048 views of the same buffers:
         * the leading dimension is the size, so the first 2048^2 elements) */
        double ms = time_gemm(&s, t, 2048, 1);
        ms = ms < 0 ? ms : time_gemm(&s, t, 2048, 2);
        if (ms < 0) {
            snprintf(err, sizeof(err), "%s GEMM 2048: %s", types[ti].name, b->err);
            break;
        }
        int n = 2048;
        while (n < nmax && ms * pow(2 * n / 2048.0, 3) < GP_MAX_S * 1e3)
            n *= 2;
        double est = ms * pow(n / 2048.0, 3);
        int reps = (int)(GP_TARGET_S * 1e3 / (est > 1e-3 ? est : 1e-3));
        reps = reps < 3 ? 3 : reps > 50 ? 50 : reps;
        if (time_gemm(&s, t, n, 2) < 0 || (ms = time_gemm(&s, t, n, reps)) < 0) {
            snprintf(err, sizeof(err), "%s GEMM %d: %s", types[ti].name, n, b->err);
            break;
        }
        snprintf(name, sizeof(name), "gpu.gemm_peak.%s_tflops", types[ti].name);
        double tflops = 2.0 * n * (double)n * n / (ms * 1e-3) / 1e12;
        fact_set_float(fs, name, tflops, src);
        /* fp16/bf16 against the matrix peak derived from the device; fp32 is
         * not judged (rocBLAS runs it on CDNA's fp32 matrix units, above the
         * vector peak) */
        if (t != GPU_F32) {
            snprintf(name, sizeof(name), "gpu.gemm_peak.%s", types[ti].name);
            snprintf(pk, sizeof(pk), "%s_tflops", types[ti].name);
            gpu_probe_fraction(ctx, name, tflops, ctx->device, pk);
        }
        snprintf(name, sizeof(name), "gpu.gemm_peak.%s_n", types[ti].name);
        fact_set_int(fs, name, n, "probe");
        if (spot(&s, n, sa, sb, &worst)) {
            snprintf(err, sizeof(err), "%s spot check copy: %s", types[ti].name, b->err);
            break;
        }
        checked += GP_SPOT;
        isolate_flush(fs);
    }
    fact_set_str(fs, "gpu.gemm_peak.error", err, src);
    fact_set_int(fs, "gpu.gemm_peak.spot_checked", checked, "probe");
    if (checked)
        fact_set_float(fs, "gpu.gemm_peak.spot_ratio", fmin(worst, 1e300), src);
    else
        fact_set_unknown(fs, "gpu.gemm_peak.spot_ratio", src, "no GEMM completed: %s", err);
    b->free(b, s.A);
    b->free(b, s.B);
    b->free(b, s.C);
    return 0;
}
