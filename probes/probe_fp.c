/* probe_fp.c - numerical correctness on the device (probe "fp", check
 * fp.correctness), each item against a CPU reference (src/gpu/fp_ref.h):
 *
 *  - fp16 and bf16 GEMM with fp32 accumulation through the GEMM the backend
 *    provides (src/gpu/gemm.h says which) on VLA shapes and odd shapes, against
 *    fp64; the error bound (k + 1) u32 sum|a||b| is derived in fp_ref.c.
 *    Facts fp.gemm.{f16,bf16}.max_bound_ratio (measured error / bound, max
 *    over checked elements), fp.gemm.nonfinite, fp.gemm.cases, fp.gemm.blas
 *    (the path: "cuBLAS cublasGemmEx", "rocBLAS rocblas_gemm_ex" or "own
 *    kernel rvd_gemm (no BLAS)"), fp.gemm.blas_lib (its library, or why none).
 *  - attention with large logits (pytorch#116176's shape class: 8 heads,
 *    seq 256, head_dim 64, logits ~5e3): the doctor's kernel (fp32 logits,
 *    max subtraction) must stay finite and within its bound; a naive all-fp16
 *    path is run for information. Facts fp.attn.*.
 *  - overflow (65504 * 2 in fp16 -> inf, bf16 keeps the range), denormals
 *    (fp32 1e-40 * 1, fp16 2^-24 * 1: kept or flushed), fminf/fmaxf/clamp
 *    with NaN. Facts fp.overflow.*, fp.denormal.*, fp.nan.*.
 *  - the device's float->fp16/bf16 conversions on ~520k tricky values
 *    (every value, tie and tie +-1 ulp) against CPU round-to-nearest-even.
 *    Facts fp.conv.*.
 *  - bitwise determinism of 5 repeated GEMMs and tree reductions (and, for
 *    information, how many distinct sums an atomicAdd reduction gives).
 *    Facts fp.determinism.*. */
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

int probe_fp_run(struct probe_ctx *ctx);

struct fpctx {
    struct factset *fs;
    struct gpu_backend *b;
    struct gpu_gemm g;
    gpu_module mod;
    const char *src;
};

/* full fp64 reference up to this many multiply-adds, else a 64 x 64 sample */
#define FP_FULL_MACS (1ull << 26)
#define FP_SAMPLE 64

static uint16_t to16(enum gpu_dtype t, float f)
{
    return t == GPU_F16 ? fp_f32_to_f16(f) : fp_f32_to_bf16(f);
}
static float from16(enum gpu_dtype t, uint16_t h)
{
    return t == GPU_F16 ? fp_f16_to_f32(h) : fp_bf16_to_f32(h);
}

/* random values in [-1, 1) rounded to t: h for the GPU, f (exact copies) for fp64 */
static void fill16(enum gpu_dtype t, uint16_t *h, float *f, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        h[i] = to16(t, fp_rng_uniform(seed, i) * 2 - 1);
        f[i] = from16(t, h[i]);
    }
}

/* upload, multiply, download; C is malloc'd by the caller (m*n) */
static int gpu_gemm16(struct fpctx *c, enum gpu_dtype t, int m, int n, int k, const uint16_t *A,
                      const uint16_t *B, float *C, int reps, int *identical)
{
    struct gpu_backend *b = c->b;
    void *dA = NULL, *dB = NULL, *dC = NULL;
    size_t sa = (size_t)m * k * 2, sb = (size_t)k * n * 2, sc = (size_t)m * n * 4;
    int rc = -1;
    float *again = reps > 1 ? xcalloc((size_t)m * n, sizeof(float)) : NULL;
    if (b->malloc(b, &dA, sa) || b->malloc(b, &dB, sb) || b->malloc(b, &dC, sc))
        goto out;
    if (b->memcpy(b, dA, A, sa, GPU_H2D) || b->memcpy(b, dB, B, sb, GPU_H2D) ||
        b->memset(b, dC, 0xff, sc)) /* NaN pattern: an element never written shows */
        goto out;
    if (gpu_gemm(&c->g, t, m, n, k, dA, dB, dC, NULL) || b->device_sync(b) ||
        b->memcpy(b, C, dC, sc, GPU_D2H))
        goto out;
    if (identical)
        *identical = 1;
    for (int r = 1; r < reps; r++) {
        if (b->memset(b, dC, 0xff, sc) || gpu_gemm(&c->g, t, m, n, k, dA, dB, dC, NULL) ||
            b->device_sync(b) || b->memcpy(b, again, dC, sc, GPU_D2H))
            goto out;
        if (memcmp(again, C, sc) != 0)
            *identical = 0;
    }
    rc = 0;
out:
    b->free(b, dA);
    b->free(b, dB);
    b->free(b, dC);
    free(again);
    return rc;
}

struct gemm_stat {
    double worst[3]; /* by dtype */
    long nonfinite;
    int failures;
};

static void gemm_case(struct fpctx *c, enum gpu_dtype t, int m, int k, int n, struct strlist *cases,
                      struct gemm_stat *st)
{
    uint64_t seed = (uint64_t)m * 1000003u + (uint64_t)k * 1009u + (uint64_t)n + (uint64_t)t;
    uint16_t *A = xcalloc((size_t)m * k, 2), *B = xcalloc((size_t)k * n, 2);
    float *Af = xcalloc((size_t)m * k, 4), *Bf = xcalloc((size_t)k * n, 4);
    float *C = xcalloc((size_t)m * n, 4);
    const char *tn = t == GPU_F16 ? "f16" : "bf16";
    fill16(t, A, Af, (size_t)m * k, seed);
    fill16(t, B, Bf, (size_t)k * n, seed + 1);
    if (gpu_gemm16(c, t, m, n, k, A, B, C, 1, NULL)) {
        strlist_add_owned(cases, xasprintf("%s %dx%dx%d: GEMM failed: %s", tn, m, k, n, c->b->err));
        st->failures++;
        goto out;
    }
    long nf = 0;
    for (size_t i = 0; i < (size_t)m * n; i++)
        if (!isfinite(C[i]))
            nf++;
    st->nonfinite += nf;
    /* rows and columns checked against fp64: all, or FP_SAMPLE of each spread
     * evenly (first and last included: edge tiles are where kernels go wrong) */
    int full = (uint64_t)m * n * k <= FP_FULL_MACS;
    int nr = full || m <= FP_SAMPLE ? m : FP_SAMPLE, nc = full || n <= FP_SAMPLE ? n : FP_SAMPLE;
    float *col = xcalloc((size_t)k, 4);
    double worst = 0, maxerr = 0;
    for (int cj = 0; cj < nc; cj++) {
        int j = nc == n ? cj : (int)((int64_t)cj * (n - 1) / (nc - 1));
        for (int l = 0; l < k; l++)
            col[l] = Bf[(size_t)l * n + j];
        for (int ri = 0; ri < nr; ri++) {
            int i = nr == m ? ri : (int)((int64_t)ri * (m - 1) / (nr - 1));
            double s, r = fp_dot_ref(Af + (size_t)i * k, col, k, &s);
            double err = (double)C[(size_t)i * n + j] - r;
            double q = fp_gemm_bound_ratio(err, k, s);
            if (q > worst || isnan(q))
                worst = isnan(q) ? INFINITY : q;
            if (fabs(err) > maxerr || isnan(err))
                maxerr = isnan(err) ? INFINITY : fabs(err);
        }
    }
    free(col);
    if (worst > st->worst[t])
        st->worst[t] = worst;
    strlist_add_owned(cases, xasprintf("%s %dx%dx%d (m x k x n): %d of %lld elements vs fp64, max "
                                       "|err| %.3g = %.3g of the bound%s",
                                       tn, m, k, n, nr * nc, (long long)m * n, maxerr, worst,
                                       nf ? ", NON-FINITE outputs" : ""));
out:
    free(A), free(B), free(Af), free(Bf), free(C);
}

static void gemm_items(struct fpctx *c)
{
    /* m x k x n: pi0's action expert (50 action tokens, width 1024), a
     * 256-token prefix at width 2048, pi0's MLP up and down projections over
     * 816 tokens (2048 <-> 16384), then odd sizes that break tiling */
    static const int shapes[][3] = {{256, 2048, 2048},  {50, 1024, 1024}, {816, 2048, 16384},
                                    {816, 16384, 2048}, {17, 33, 65},     {1, 1, 1},
                                    {127, 255, 511}};
    struct strlist cases = {0};
    struct gemm_stat st = {{0}, 0, 0};
    for (int t = GPU_F16; t <= GPU_BF16; t++)
        for (size_t i = 0; i < ARRAY_SIZE(shapes); i++)
            gemm_case(c, (enum gpu_dtype)t, shapes[i][0], shapes[i][1], shapes[i][2], &cases, &st);
    fact_set_str(c->fs, "fp.gemm.blas", c->g.path, c->src);
    fact_set_str(c->fs, "fp.gemm.blas_lib", c->g.detail, c->src);
    fact_set_list(c->fs, "fp.gemm.cases", &cases, c->src);
    fact_set_int(c->fs, "fp.gemm.failures", st.failures, c->src);
    fact_set_int(c->fs, "fp.gemm.nonfinite", st.nonfinite, c->src);
    if (st.failures) {
        fact_set_unknown(c->fs, "fp.gemm.f16.max_bound_ratio", c->src, "a GEMM failed");
        fact_set_unknown(c->fs, "fp.gemm.bf16.max_bound_ratio", c->src, "a GEMM failed");
    } else {
        /* inf (no bound holds) is stored as a huge finite number for JSON */
        fact_set_float(c->fs, "fp.gemm.f16.max_bound_ratio", fmin(st.worst[GPU_F16], 1e300),
                       c->src);
        fact_set_float(c->fs, "fp.gemm.bf16.max_bound_ratio", fmin(st.worst[GPU_BF16], 1e300),
                       c->src);
    }
    strlist_release(&cases);
}

static const char *minmax_semantics(float a, float b)
{
    if (!isnan(a) && !isnan(b))
        return "minNum/maxNum (IEEE 754-2008): the NaN operand is dropped";
    if (isnan(a) && isnan(b))
        return "NaN-propagating (IEEE 754-2019 minimum/maximum)";
    return "depends on the operand order";
}

static void special_items(struct fpctx *c)
{
    struct gpu_backend *b = c->b;
    struct factset *fs = c->fs;
    const float in[9] = {1e-40f, 1.0f, 65504.0f, 2.0f, NAN, 1.0f, -1.0f, 1e38f, 10.0f};
    const uint16_t h[4] = {0x0001, 0x3c00, 0x7bff, 0x4000};
    float out[11];
    uint16_t oh[3];
    void *din = NULL, *dh = NULL, *dout = NULL, *doh = NULL;
    gpu_function f;
    if (b->function(b, c->mod, "rvd_fp_special", &f) || b->malloc(b, &din, sizeof(in)) ||
        b->malloc(b, &dh, sizeof(h)) || b->malloc(b, &dout, sizeof(out)) ||
        b->malloc(b, &doh, sizeof(oh)) || b->memcpy(b, din, in, sizeof(in), GPU_H2D) ||
        b->memcpy(b, dh, h, sizeof(h), GPU_H2D)) {
        fact_set_unknown(fs, "fp.overflow.ok", c->src, "%s", b->err);
        return;
    }
    void *args[] = {&din, &dh, &dout, &doh};
    if (b->launch(b, f, 1, 1, 0, NULL, args) || b->device_sync(b) ||
        b->memcpy(b, out, dout, sizeof(out), GPU_D2H) ||
        b->memcpy(b, oh, doh, sizeof(oh), GPU_D2H)) {
        fact_set_unknown(fs, "fp.overflow.ok", c->src, "%s", b->err);
        return;
    }
    const char *s = c->src;
    /* denormals: information (a flush is a property, not an error) */
    /* compare bit patterns: 1e-40f is 0x000116c2, doubled exactly 0x00022d84
     * (not the float nearest to 2e-40, 0x00022d83) */
    uint32_t m32, a32;
    memcpy(&m32, &out[0], 4);
    memcpy(&a32, &out[1], 4);
    fact_set_bool(fs, "fp.denormal.f32_kept", m32 == 0x000116c2u && a32 == 0x00022d84u, s);
    fact_set_bool(fs, "fp.denormal.f16_kept", oh[0] == 0x0001 && out[10] == 0x1p-24f, s);
    /* overflow */
    int f16_inf = oh[1] == 0x7c00, f16_cvt_inf = oh[2] == 0x7c00;
    int f32_inf = isinf(out[8]) && out[8] > 0, bf16_ok = out[9] == 131072.0f;
    fact_set_bool(fs, "fp.overflow.f16_mul_inf", f16_inf, s);
    fact_set_bool(fs, "fp.overflow.f16_convert_inf", f16_cvt_inf, s);
    fact_set_bool(fs, "fp.overflow.f32_inf", f32_inf, s);
    fact_set_float(fs, "fp.overflow.bf16_65504x2", out[9], s);
    fact_set_bool(fs, "fp.overflow.ok", f16_inf && f16_cvt_inf && f32_inf && bf16_ok, s);
    /* NaN semantics: information; a clamp that turns NaN into a finite value
     * hides a broken policy output as a plausible action */
    fact_set_str(fs, "fp.nan.fminf", minmax_semantics(out[2], out[3]), s);
    fact_set_str(fs, "fp.nan.fmaxf", minmax_semantics(out[4], out[5]), s);
    char v[64];
    snprintf(v, sizeof(v), "%g", (double)out[6]);
    fact_set_str(fs, "fp.nan.clamp_fminmax", v, s);
    fact_set_bool(fs, "fp.nan.clamp_fminmax_hides_nan", !isnan(out[6]), s);
    snprintf(v, sizeof(v), "%g", (double)out[7]);
    fact_set_str(fs, "fp.nan.clamp_compare", v, s);
    fact_set_bool(fs, "fp.nan.clamp_compare_hides_nan", !isnan(out[7]), s);
    b->free(b, din), b->free(b, dh), b->free(b, dout), b->free(b, doh);
}

static void conv_items(struct fpctx *c)
{
    struct gpu_backend *b = c->b;
    size_t n = 0;
    float *x = fp_tricky_floats(&n);
    uint16_t *h = xcalloc(n, 2), *bf = xcalloc(n, 2);
    void *dx = NULL, *dh = NULL, *dbf = NULL, *dinfo = NULL;
    int info = -1, ni = (int)n;
    gpu_function f, fi;
    if (b->function(b, c->mod, "rvd_fp_convert", &f) ||
        b->function(b, c->mod, "rvd_fp_info", &fi) || b->malloc(b, &dx, n * 4) ||
        b->malloc(b, &dh, n * 2) || b->malloc(b, &dbf, n * 2) || b->malloc(b, &dinfo, 4) ||
        b->memcpy(b, dx, x, n * 4, GPU_H2D)) {
        fact_set_unknown(c->fs, "fp.conv.f16_mismatches", c->src, "%s", b->err);
        goto out;
    }
    void *args[] = {&dx, &dh, &dbf, &ni};
    void *iargs[] = {&dinfo};
    if (b->launch(b, f, 1024, 256, 0, NULL, args) || b->launch(b, fi, 1, 1, 0, NULL, iargs) ||
        b->device_sync(b) || b->memcpy(b, h, dh, n * 2, GPU_D2H) ||
        b->memcpy(b, bf, dbf, n * 2, GPU_D2H) || b->memcpy(b, &info, dinfo, 4, GPU_D2H)) {
        fact_set_unknown(c->fs, "fp.conv.f16_mismatches", c->src, "%s", b->err);
        goto out;
    }
    long m16 = 0, mbf = 0;
    char first[200] = "";
    for (size_t i = 0; i < n; i++) {
        uint16_t r16 = fp_f32_to_f16(x[i]), rbf = fp_f32_to_bf16(x[i]);
        uint32_t bits;
        memcpy(&bits, &x[i], 4);
        if (h[i] != r16 && !(fp_f16_isnan(h[i]) && fp_f16_isnan(r16))) {
            if (!m16++ && !first[0])
                snprintf(first, sizeof(first), "fp16 of %.9g (0x%08x): device 0x%04x, RNE 0x%04x",
                         (double)x[i], bits, h[i], r16);
        }
        if (bf[i] != rbf && !(fp_bf16_isnan(bf[i]) && fp_bf16_isnan(rbf))) {
            if (!mbf++ && !first[0])
                snprintf(first, sizeof(first), "bf16 of %.9g (0x%08x): device 0x%04x, RNE 0x%04x",
                         (double)x[i], bits, bf[i], rbf);
        }
    }
    fact_set_int(c->fs, "fp.conv.values", (int64_t)n, c->src);
    fact_set_int(c->fs, "fp.conv.f16_mismatches", m16, c->src);
    fact_set_int(c->fs, "fp.conv.bf16_mismatches", mbf, c->src);
    fact_set_str(c->fs, "fp.conv.first_mismatch", first, c->src);
    fact_set_str(c->fs, "fp.conv.f16_method",
                 "the device's conversion instruction (v_cvt_f16_f32 / cvt.rn.f16.f32)", c->src);
    fact_set_str(c->fs, "fp.conv.bf16_method",
                 info == 0 ? "the device's conversion instruction (cvt.rn.bf16.f32)"
                           : "software round-to-nearest-even in the kernel (no bf16 conversion "
                             "instruction used on this target)",
                 c->src);
out:
    b->free(b, dx), b->free(b, dh), b->free(b, dbf), b->free(b, dinfo);
    free(x), free(h), free(bf);
}

#define AT_H 8
#define AT_S 256
#define AT_D 64

/* fp64 attention of one (head, row) and the bound on the fp32 kernel's
 * error: logits carry at most delta = (d + 2) u * scale * max_j sum|q||k|
 * (the dot product's gamma_d and the scaling), which moves every softmax
 * weight by a factor within exp(+-2 delta) (numerator and denominator); the
 * exp, the subtraction of the max and the two sums over seq terms add
 * 8u + (2 seq + 4) u relative. So |o - o_ref| <= (expm1(2 delta + 8u) +
 * (2 seq + 4) u) * max|v|. */
static void attn_ref(const float *Q, const float *K, const float *V, int h, int i, float scale,
                     double *o, double *bound, double *maxlogit)
{
    double s[AT_S], m = -INFINITY, sa_max = 0, sum = 0, vmax = 0;
    const float *q = Q + ((size_t)h * AT_S + i) * AT_D;
    for (int j = 0; j < AT_S; j++) {
        double sa, d = fp_dot_ref(q, K + ((size_t)h * AT_S + j) * AT_D, AT_D, &sa);
        s[j] = d * scale;
        if (s[j] > m)
            m = s[j];
        if (sa * scale > sa_max)
            sa_max = sa * scale;
    }
    *maxlogit = m;
    for (int j = 0; j < AT_S; j++)
        sum += s[j] = exp(s[j] - m);
    for (int t = 0; t < AT_D; t++) {
        double acc = 0;
        for (int j = 0; j < AT_S; j++) {
            double v = V[((size_t)h * AT_S + j) * AT_D + t];
            acc += s[j] * v;
            if (fabs(v) > vmax)
                vmax = fabs(v);
        }
        o[t] = acc / sum;
    }
    double delta = (AT_D + 2) * FP_U32 * sa_max;
    *bound = (expm1(2 * delta + 8 * FP_U32) + (2 * AT_S + 4) * FP_U32) * vmax;
}

static void attn_items(struct fpctx *c)
{
    struct gpu_backend *b = c->b;
    size_t n = (size_t)AT_H * AT_S * AT_D;
    uint16_t *q16 = xcalloc(n, 2), *k16 = xcalloc(n, 2), *v16 = xcalloc(n, 2);
    float *q = xcalloc(n, 4), *k = xcalloc(n, 4), *v = xcalloc(n, 4), *o = xcalloc(n, 4);
    /* q, k in [16, 32): dot products 16k..65k (the fp16 range ends at 65504),
     * logits after 1/sqrt(64) about 2e3..8e3: exp() of them overflows fp32
     * and fp16 unless the row maximum is subtracted first */
    for (size_t i = 0; i < n; i++) {
        q16[i] = fp_f32_to_f16(16 + 16 * fp_rng_uniform(71, i));
        k16[i] = fp_f32_to_f16(16 + 16 * fp_rng_uniform(72, i));
        v16[i] = fp_f32_to_f16(fp_rng_uniform(73, i) * 2 - 1);
        q[i] = fp_f16_to_f32(q16[i]), k[i] = fp_f16_to_f32(k16[i]), v[i] = fp_f16_to_f32(v16[i]);
    }
    float scale = 0.125f; /* 1/sqrt(64) */
    int seq = AT_S, d = AT_D;
    void *dq = NULL, *dk = NULL, *dv = NULL, *dO = NULL;
    gpu_function fa, fn;
    if (b->function(b, c->mod, "rvd_fp_attention", &fa) ||
        b->function(b, c->mod, "rvd_fp_attention_naive", &fn) || b->malloc(b, &dq, n * 2) ||
        b->malloc(b, &dk, n * 2) || b->malloc(b, &dv, n * 2) || b->malloc(b, &dO, n * 4) ||
        b->memcpy(b, dq, q16, n * 2, GPU_H2D) || b->memcpy(b, dk, k16, n * 2, GPU_H2D) ||
        b->memcpy(b, dv, v16, n * 2, GPU_H2D)) {
        fact_set_unknown(c->fs, "fp.attn.finite", c->src, "%s", b->err);
        goto out;
    }
    void *args[] = {&dq, &dk, &dv, &dO, &seq, &d, &scale};
    if (b->launch(b, fa, AT_H * AT_S, 256, 0, NULL, args) || b->device_sync(b) ||
        b->memcpy(b, o, dO, n * 4, GPU_D2H)) {
        fact_set_unknown(c->fs, "fp.attn.finite", c->src, "%s", b->err);
        goto out;
    }
    long nonfinite = 0;
    double worst = 0, maxlogit = -INFINITY, ref[AT_D], bound, ml;
    for (int h = 0; h < AT_H; h++)
        for (int i = 0; i < AT_S; i++) {
            attn_ref(q, k, v, h, i, scale, ref, &bound, &ml);
            if (ml > maxlogit)
                maxlogit = ml;
            for (int t = 0; t < AT_D; t++) {
                float x = o[((size_t)h * AT_S + i) * AT_D + t];
                if (!isfinite(x)) {
                    nonfinite++;
                    worst = INFINITY;
                    continue;
                }
                double r = fabs((double)x - ref[t]) / bound;
                if (r > worst)
                    worst = r;
            }
        }
    fact_set_str(c->fs, "fp.attn.shape", "1 x 8 heads x seq 256 x head_dim 64, fp16 q/k/v", c->src);
    fact_set_float(c->fs, "fp.attn.max_logit", maxlogit, "fp64 reference");
    fact_set_bool(c->fs, "fp.attn.finite", nonfinite == 0, c->src);
    fact_set_float(c->fs, "fp.attn.max_bound_ratio", fmin(worst, 1e300), c->src);
    /* the naive fp16 path: information only */
    if (!b->memset(b, dO, 0, n * 4) && !b->launch(b, fn, AT_H * AT_S, 256, 0, NULL, args) &&
        !b->device_sync(b) && !b->memcpy(b, o, dO, n * 4, GPU_D2H)) {
        long bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += !isfinite(o[i]);
        fact_set_int(c->fs, "fp.attn.naive_f16_nonfinite", bad, c->src);
        fact_set_int(c->fs, "fp.attn.outputs", (int64_t)n, c->src);
    } else {
        fact_set_unknown(c->fs, "fp.attn.naive_f16_nonfinite", c->src, "%s", b->err);
    }
out:
    b->free(b, dq), b->free(b, dk), b->free(b, dv), b->free(b, dO);
    free(q16), free(k16), free(v16), free(q), free(k), free(v), free(o);
}

#define DET_RUNS 5

static void determinism_items(struct fpctx *c)
{
    struct gpu_backend *b = c->b;
    int m = 256, k = 2048, n = 2048, same = 0;
    uint16_t *A = xcalloc((size_t)m * k, 2), *B = xcalloc((size_t)k * n, 2);
    float *Af = xcalloc((size_t)m * k, 4), *Bf = xcalloc((size_t)k * n, 4);
    float *C = xcalloc((size_t)m * n, 4);
    fill16(GPU_F16, A, Af, (size_t)m * k, 91);
    fill16(GPU_F16, B, Bf, (size_t)k * n, 92);
    if (gpu_gemm16(c, GPU_F16, m, n, k, A, B, C, DET_RUNS, &same))
        fact_set_unknown(c->fs, "fp.determinism.gemm_identical", c->src, "%s", b->err);
    else
        fact_set_bool(c->fs, "fp.determinism.gemm_identical", same, c->src);
    free(A), free(B), free(Af), free(Bf), free(C);

    /* 4M floats: tree reduction (fixed launch shape) and atomicAdd */
    int nx = 1 << 22, grid = 1024;
    float *x = xcalloc((size_t)nx, 4);
    for (int i = 0; i < nx; i++)
        x[i] = fp_rng_uniform(93, (uint64_t)i) * 2 - 1;
    void *dx = NULL, *dp = NULL, *dr = NULL;
    gpu_function fr, fa;
    if (b->function(b, c->mod, "rvd_fp_reduce", &fr) ||
        b->function(b, c->mod, "rvd_fp_reduce_atomic", &fa) || b->malloc(b, &dx, (size_t)nx * 4) ||
        b->malloc(b, &dp, (size_t)grid * 4) || b->malloc(b, &dr, 4) ||
        b->memcpy(b, dx, x, (size_t)nx * 4, GPU_H2D)) {
        fact_set_unknown(c->fs, "fp.determinism.reduce_identical", c->src, "%s", b->err);
        goto out;
    }
    uint32_t tree[DET_RUNS], atom[DET_RUNS];
    for (int r = 0; r < DET_RUNS; r++) {
        void *a1[] = {&dx, &nx, &dp}, *a2[] = {&dp, &grid, &dr}, *a3[] = {&dx, &nx, &dr};
        if (b->launch(b, fr, (unsigned)grid, 256, 0, NULL, a1) ||
            b->launch(b, fr, 1, 256, 0, NULL, a2) || b->device_sync(b) ||
            b->memcpy(b, &tree[r], dr, 4, GPU_D2H) || b->memset(b, dr, 0, 4) ||
            b->launch(b, fa, (unsigned)grid, 256, 0, NULL, a3) || b->device_sync(b) ||
            b->memcpy(b, &atom[r], dr, 4, GPU_D2H)) {
            fact_set_unknown(c->fs, "fp.determinism.reduce_identical", c->src, "%s", b->err);
            goto out;
        }
    }
    int tree_same = 1, distinct = 1;
    for (int r = 1; r < DET_RUNS; r++) {
        tree_same &= tree[r] == tree[0];
        int seen = 0;
        for (int q = 0; q < r; q++)
            seen |= atom[q] == atom[r];
        distinct += !seen;
    }
    fact_set_bool(c->fs, "fp.determinism.reduce_identical", tree_same, c->src);
    fact_set_int(c->fs, "fp.determinism.atomic_distinct", distinct, c->src);
    fact_set_int(c->fs, "fp.determinism.runs", DET_RUNS, "probe");
out:
    b->free(b, dx), b->free(b, dp), b->free(b, dr);
    free(x);
}

int probe_fp_run(struct probe_ctx *ctx)
{
    struct fpctx c = {0};
    struct gpu_props p;
    c.fs = ctx->facts;
    if (gpu_probe_begin(ctx, "fp", &c.b, &p))
        return 0;
    char *why = NULL;
    if (gpu_kernel_load(c.b, "fp_numerics", gpu_probe_target(&p), &c.mod, &why) ||
        gpu_gemm_init(&c.g, c.b, gpu_probe_target(&p), &why)) {
        if (c.g.path)
            fact_set_str(c.fs, "fp.gemm.blas", c.g.path, c.b->lib);
        gpu_probe_unavailable(ctx, "fp", "%s", why ? why : c.b->err);
        free(why);
        return 0;
    }
    c.src = c.b->lib;
    special_items(&c);
    conv_items(&c);
    isolate_flush(c.fs);
    attn_items(&c);
    isolate_flush(c.fs);
    determinism_items(&c);
    isolate_flush(c.fs);
    gemm_items(&c);
    return 0;
}
