/* ops_cpu.c - the CPU fp32 implementation of the VLA ops (the reference).
 * Single-threaded and deterministic: every reduction has a fixed order, so
 * two runs (or a run and a save/load round trip) agree bitwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ops.h"

/* GCC vector extension: 4 floats (SSE2, the x86-64 baseline) */
typedef float v4f __attribute__((vector_size(16)));

static float *cpu_alloc(void *ctx, size_t n)
{
    (void)ctx; /* the CPU has no state */
    return xcalloc(n ? n : 1, sizeof(float));
}

static void cpu_release(void *ctx, float *p)
{
    (void)ctx; /* the CPU has no state */
    free(p);
}

static void cpu_copy(void *ctx, float *dst, const float *src, size_t n)
{
    (void)ctx; /* the CPU has no state */
    memmove(dst, src, n * sizeof(float));
}

static void cpu_sync(void *ctx)
{
    (void)ctx; /* the CPU has no state */
}

static inline v4f load4(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline float hsum(v4f v)
{
    return (v[0] + v[1]) + (v[2] + v[3]);
}

/* A register-blocked dot-product kernel: 2 rows of x against 4 rows of w,
 * 8 vector accumulators, so each loaded x vector is used 4 times and each w
 * vector twice. w rows are contiguous in K ([out, in] layout), which keeps
 * both operands streaming. Blocks of 64 w rows are walked for every x row
 * pair, so the w block stays in L2 while x is swept. */
static void cpu_matmul(void *ctx, const float *x, const float *w, const float *bias, float *y,
                       int M, int N, int K, int accumulate)
{
    (void)ctx; /* the CPU has no state */
    const int K4 = K & ~3;
    for (int jb = 0; jb < N; jb += 64) {
        int je = jb + 64 < N ? jb + 64 : N;
        for (int i = 0; i < M; i += 2) {
            int rows = i + 1 < M ? 2 : 1;
            const float *x0 = x + (size_t)i * K, *x1 = x0 + (rows == 2 ? K : 0);
            int j = jb;
            for (; j + 4 <= je; j += 4) {
                const float *w0 = w + (size_t)j * K, *w1 = w0 + K, *w2 = w1 + K, *w3 = w2 + K;
                v4f a00 = {0}, a01 = {0}, a02 = {0}, a03 = {0};
                v4f a10 = {0}, a11 = {0}, a12 = {0}, a13 = {0};
                for (int k = 0; k < K4; k += 4) {
                    v4f xa = load4(x0 + k), xb = load4(x1 + k);
                    v4f b0 = load4(w0 + k), b1 = load4(w1 + k), b2 = load4(w2 + k),
                        b3 = load4(w3 + k);
                    a00 += xa * b0, a01 += xa * b1, a02 += xa * b2, a03 += xa * b3;
                    a10 += xb * b0, a11 += xb * b1, a12 += xb * b2, a13 += xb * b3;
                }
                float s[2][4] = {{hsum(a00), hsum(a01), hsum(a02), hsum(a03)},
                                 {hsum(a10), hsum(a11), hsum(a12), hsum(a13)}};
                for (int k = K4; k < K; k++) {
                    s[0][0] += x0[k] * w0[k], s[0][1] += x0[k] * w1[k];
                    s[0][2] += x0[k] * w2[k], s[0][3] += x0[k] * w3[k];
                    s[1][0] += x1[k] * w0[k], s[1][1] += x1[k] * w1[k];
                    s[1][2] += x1[k] * w2[k], s[1][3] += x1[k] * w3[k];
                }
                for (int r = 0; r < rows; r++)
                    for (int c = 0; c < 4; c++) {
                        float v = s[r][c] + (bias ? bias[j + c] : 0.0f);
                        float *o = &y[(size_t)(i + r) * N + j + c];
                        *o = accumulate ? *o + v : v;
                    }
            }
            for (; j < je; j++) {
                const float *w0 = w + (size_t)j * K;
                for (int r = 0; r < rows; r++) {
                    const float *xr = r ? x1 : x0;
                    v4f a = {0};
                    for (int k = 0; k < K4; k += 4)
                        a += load4(xr + k) * load4(w0 + k);
                    float s = hsum(a);
                    for (int k = K4; k < K; k++)
                        s += xr[k] * w0[k];
                    s += bias ? bias[j] : 0.0f;
                    float *o = &y[(size_t)(i + r) * N + j];
                    *o = accumulate ? *o + s : s;
                }
            }
        }
    }
}

static void cpu_layernorm(void *ctx, const float *x, const float *w, const float *b, float *y,
                          int T, int D, float eps)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++) {
        const float *r = x + (size_t)t * D;
        float *o = y + (size_t)t * D;
        float mean = 0, var = 0;
        for (int i = 0; i < D; i++)
            mean += r[i];
        mean /= (float)D;
        for (int i = 0; i < D; i++)
            var += (r[i] - mean) * (r[i] - mean);
        var /= (float)D;
        float inv = 1.0f / sqrtf(var + eps);
        for (int i = 0; i < D; i++)
            o[i] = (r[i] - mean) * inv * w[i] + b[i];
    }
}

static void cpu_rmsnorm(void *ctx, const float *x, const float *w, float *y, int T, int D,
                        float eps)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++) {
        const float *r = x + (size_t)t * D;
        float *o = y + (size_t)t * D;
        float ss = 0;
        for (int i = 0; i < D; i++)
            ss += r[i] * r[i];
        float inv = 1.0f / sqrtf(ss / (float)D + eps);
        for (int i = 0; i < D; i++)
            o[i] = r[i] * inv * w[i];
    }
}

static inline float gelu_tanh1(float v)
{
    /* 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))) */
    return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}

static inline float silu1(float v)
{
    return v / (1.0f + expf(-v));
}

static void cpu_gelu_tanh(void *ctx, float *x, size_t n)
{
    (void)ctx; /* the CPU has no state */
    for (size_t i = 0; i < n; i++)
        x[i] = gelu_tanh1(x[i]);
}

static void cpu_silu(void *ctx, float *x, size_t n)
{
    (void)ctx; /* the CPU has no state */
    for (size_t i = 0; i < n; i++)
        x[i] = silu1(x[i]);
}

static void cpu_glu(void *ctx, const float *gate, const float *up, float *out, int T, int F, int ld,
                    enum vla_act act)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++)
        for (int f = 0; f < F; f++) {
            float g = gate[(size_t)t * ld + f];
            g = act == VLA_ACT_SWIGLU ? silu1(g) : gelu_tanh1(g);
            out[(size_t)t * F + f] = g * up[(size_t)t * ld + f];
        }
}

static void cpu_rope(void *ctx, float *x, int T, int heads, int hd, int stride, int pos0,
                     double theta)
{
    (void)ctx; /* the CPU has no state */
    int half = hd / 2;
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < half; i++) {
            /* angle in double, rotation in fp32 (models keep RoPE in fp32) */
            double ang = (double)(pos0 + t) * pow(theta, -2.0 * i / hd);
            float c = (float)cos(ang), s = (float)sin(ang);
            for (int h = 0; h < heads; h++) {
                float *r = x + (size_t)t * stride + (size_t)h * hd;
                float a = r[i], b = r[i + half];
                r[i] = a * c - b * s;
                r[i + half] = b * c + a * s;
            }
        }
    }
}

static void cpu_attention(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                          float *out, int Tq, int Tk, int H, int KV, int hd, float scale)
{
    (void)ctx; /* the CPU has no state */
    float *p = xmalloc((size_t)Tk * sizeof(float));
    int group = H / KV;
    for (int h = 0; h < H; h++) {
        int g = h / group;
        for (int i = 0; i < Tq; i++) {
            const float *qi = q + (size_t)i * qs + (size_t)h * hd;
            float mx = -INFINITY;
            for (int j = 0; j < Tk; j++) {
                const float *kj = k + (size_t)j * ks + (size_t)g * hd;
                float s = 0;
                for (int d = 0; d < hd; d++)
                    s += qi[d] * kj[d];
                p[j] = s * scale;
                mx = p[j] > mx ? p[j] : mx;
            }
            float sum = 0;
            for (int j = 0; j < Tk; j++) {
                p[j] = expf(p[j] - mx);
                sum += p[j];
            }
            float inv = 1.0f / sum;
            float *o = out + (size_t)i * H * hd + (size_t)h * hd;
            for (int d = 0; d < hd; d++)
                o[d] = 0;
            for (int j = 0; j < Tk; j++) {
                const float *vj = v + (size_t)j * ks + (size_t)g * hd;
                float pj = p[j] * inv;
                for (int d = 0; d < hd; d++)
                    o[d] += pj * vj[d];
            }
        }
    }
    free(p);
}

/* ---- fused operations (ops.h): the compositions they replace ---------- */

static void cpu_bias_act(void *ctx, float *y, const float *bias, int T, int N,
                         enum vla_bias_act act)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++) {
            float v = y[(size_t)t * N + n] + bias[n];
            y[(size_t)t * N + n] = act == VLA_BIAS_GELU_TANH ? gelu_tanh1(v)
                                   : act == VLA_BIAS_SILU    ? silu1(v)
                                                             : v;
        }
}

static void cpu_bias_layernorm(void *ctx, float *x, const float *bias, const float *w,
                               const float *b, float *y, int T, int D, float eps)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++) {
        float *r = x + (size_t)t * D;
        for (int i = 0; bias && i < D; i++)
            r[i] += bias[i];
        cpu_layernorm(ctx, r, w, b, y + (size_t)t * D, 1, D, eps);
    }
}

static void cpu_qkv_rope(void *ctx, const float *h, const float *q_w, const float *kv_w, float *q,
                         float *kv, int nseq, size_t kvs, int T, int D, int H, int KV, int hd,
                         int pos0, double theta)
{
    (void)ctx; /* the CPU has no state */
    int qd = H * hd, kvd = 2 * KV * hd;
    cpu_matmul(ctx, h, q_w, NULL, q, nseq * T, qd, D, 0);
    for (int s = 0; s < nseq; s++) { /* each sequence's K/V go to its own cache */
        cpu_matmul(ctx, h + (size_t)s * T * D, kv_w, NULL, kv + s * kvs, T, kvd, D, 0);
        cpu_rope(ctx, q + (size_t)s * T * qd, T, H, hd, qd, pos0, theta);
        cpu_rope(ctx, kv + s * kvs, T, KV, hd, kvd, pos0, theta);
    }
}

static void cpu_attention_o(void *ctx, const float *q, int qs, const float *k, const float *v,
                            int ks, const float *o_w, float *att, float *x, int Tq, int Tk, int H,
                            int KV, int hd, int D, float scale)
{
    (void)ctx; /* the CPU has no state */
    cpu_attention(ctx, q, qs, k, v, ks, att, Tq, Tk, H, KV, hd, scale);
    cpu_matmul(ctx, att, o_w, NULL, x, Tq, D, H * hd, 1);
}

static void cpu_attention_packed(void *ctx, const float *qkv, const float *bias, float *out, int C,
                                 int T, int H, int hd, float scale)
{
    (void)ctx; /* the CPU has no state */
    int W = H * hd;
    size_t n = (size_t)T * 3 * W;
    float *tmp = xmalloc(n * sizeof(float));
    for (int c = 0; c < C; c++) {
        const float *src = qkv + (size_t)c * n;
        for (size_t i = 0; i < n; i++)
            tmp[i] = src[i] + (bias ? bias[i % (3 * (size_t)W)] : 0.0f);
        cpu_attention(ctx, tmp, 3 * W, tmp + W, tmp + 2 * W, 3 * W, out + (size_t)c * T * W, T, T,
                      H, H, hd, scale);
    }
    free(tmp);
}

static void cpu_attention_block(void *ctx, const float *h, const float *qkv_w, const float *qkv_b,
                                const float *o_w, float *qkv, float *att, float *x, int C, int T,
                                int H, int hd, float scale)
{
    (void)ctx; /* the CPU has no state */
    int W = H * hd, M = C * T;
    cpu_matmul(ctx, h, qkv_w, NULL, qkv, M, 3 * W, W, 0);
    cpu_attention_packed(ctx, qkv, qkv_b, att, C, T, H, hd, scale);
    cpu_matmul(ctx, att, o_w, NULL, x, M, W, W, 1);
}

static void cpu_mlp_block(void *ctx, const float *h, const float *w1, const float *b1,
                          const float *w2, float *hid, float *x, int T, int D, int F,
                          enum vla_bias_act act)
{
    (void)ctx; /* the CPU has no state */
    cpu_matmul(ctx, h, w1, NULL, hid, T, F, D, 0);
    cpu_bias_act(ctx, hid, b1, T, F, act);
    cpu_matmul(ctx, hid, w2, NULL, x, T, D, F, 1);
}

static void cpu_gated_mlp(void *ctx, const float *h, const float *gate_up, const float *down,
                          float *gu, float *hid, float *x, int T, int D, int F, enum vla_act act)
{
    cpu_matmul(ctx, h, gate_up, NULL, gu, T, 2 * F, D, 0);
    cpu_glu(ctx, gu, gu + F, hid, T, F, 2 * F, act);
    cpu_matmul(ctx, hid, down, NULL, x, T, D, F, 1);
}

static void cpu_add(void *ctx, float *y, const float *x, size_t n)
{
    (void)ctx; /* the CPU has no state */
    for (size_t i = 0; i < n; i++)
        y[i] += x[i];
}

static void cpu_scale(void *ctx, float *x, size_t n, float s)
{
    (void)ctx; /* the CPU has no state */
    for (size_t i = 0; i < n; i++)
        x[i] *= s;
}

static void cpu_axpy(void *ctx, float *y, const float *x, float a, size_t n)
{
    (void)ctx; /* the CPU has no state */
    for (size_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

static void cpu_patchify(void *ctx, const float *img, float *out, int n, int S, int p, int g)
{
    (void)ctx; /* the CPU has no state */
    float *o = out;
    for (int im = 0; im < n; im++) {
        const float *src = img + (size_t)im * 3 * S * S;
        for (int gy = 0; gy < g; gy++)
            for (int gx = 0; gx < g; gx++)
                for (int c = 0; c < 3; c++)
                    for (int y = 0; y < p; y++)
                        for (int x = 0; x < p; x++)
                            *o++ = src[((size_t)c * S + gy * p + y) * S + gx * p + x];
    }
}

static void cpu_pos_interp(void *ctx, const float *tab, int g0, float *out, int g1, int D)
{
    (void)ctx; /* the CPU has no state */
    if (g0 == g1) {
        memcpy(out, tab, (size_t)g0 * g0 * D * sizeof(float));
        return;
    }
    double sc = (double)g0 / g1;
    for (int oy = 0; oy < g1; oy++) {
        double sy = (oy + 0.5) * sc - 0.5;
        sy = sy < 0 ? 0 : sy;
        int y0 = (int)sy, y1 = y0 + 1 < g0 ? y0 + 1 : g0 - 1;
        float fy = (float)(sy - y0);
        for (int ox = 0; ox < g1; ox++) {
            double sx = (ox + 0.5) * sc - 0.5;
            sx = sx < 0 ? 0 : sx;
            int x0 = (int)sx, x1 = x0 + 1 < g0 ? x0 + 1 : g0 - 1;
            float fx = (float)(sx - x0);
            const float *a = tab + ((size_t)y0 * g0 + x0) * D,
                        *b = tab + ((size_t)y0 * g0 + x1) * D;
            const float *c = tab + ((size_t)y1 * g0 + x0) * D,
                        *d = tab + ((size_t)y1 * g0 + x1) * D;
            float *o = out + ((size_t)oy * g1 + ox) * D;
            for (int i = 0; i < D; i++)
                o[i] =
                    (1 - fy) * ((1 - fx) * a[i] + fx * b[i]) + fy * ((1 - fx) * c[i] + fx * d[i]);
        }
    }
}

static void cpu_merge(void *ctx, const float *x, float *out, int g, int m, int D)
{
    (void)ctx; /* the CPU has no state */
    int go = g / m;
    for (int oy = 0; oy < go; oy++)
        for (int ox = 0; ox < go; ox++) {
            float *o = out + ((size_t)oy * go + ox) * m * m * D;
            for (int dy = 0; dy < m; dy++)
                for (int dx = 0; dx < m; dx++) {
                    memcpy(o, x + ((size_t)(oy * m + dy) * g + ox * m + dx) * D,
                           (size_t)D * sizeof(float));
                    o += D;
                }
        }
}

static void cpu_embed(void *ctx, const float *table, const int32_t *tokens, float *out, int T,
                      int D, float mul)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++)
        for (int i = 0; i < D; i++)
            out[(size_t)t * D + i] = table[(size_t)tokens[t] * D + i] * mul;
}

static void cpu_concat_bcast(void *ctx, const float *a, int Da, const float *b, int Db, float *out,
                             int T)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++) {
        memcpy(out + (size_t)t * (Da + Db), a + (size_t)t * Da, (size_t)Da * sizeof(float));
        memcpy(out + (size_t)t * (Da + Db) + Da, b, (size_t)Db * sizeof(float));
    }
}

static void cpu_time_embed(void *ctx, float *out, int D, float t, double min_period,
                           double max_period)
{
    (void)ctx; /* the CPU has no state */
    int half = D / 2;
    for (int i = 0; i < half; i++) {
        double frac = half > 1 ? (double)i / (half - 1) : 0.0;
        double period = min_period * pow(max_period / min_period, frac);
        double a = (double)t * (2.0 * M_PI / period);
        out[i] = (float)sin(a);
        out[half + i] = (float)cos(a);
    }
}

/* fused (ops.h): time_embed into a zeroed row, then concat_bcast */
static void cpu_time_concat(void *ctx, const float *a, int Da, float *out, int T, int D, float t,
                            double min_period, double max_period)
{
    (void)ctx; /* the CPU has no state */
    float *e = xcalloc((size_t)D, sizeof(float));
    cpu_time_embed(ctx, e, D, t, min_period, max_period);
    cpu_concat_bcast(ctx, a, Da, e, D, out, T);
    free(e);
}

static void cpu_moe_route(void *ctx, const float *logits, int T, int X, int k, enum vla_router r,
                          int *idx, float *wts)
{
    (void)ctx; /* the CPU has no state */
    float *s = xmalloc((size_t)X * sizeof(float));
    for (int t = 0; t < T; t++) {
        const float *l = logits + (size_t)t * X;
        if (r == VLA_ROUTER_SIGMOID) {
            for (int e = 0; e < X; e++)
                s[e] = 1.0f / (1.0f + expf(-l[e]));
        } else {
            float mx = -INFINITY, sum = 0;
            for (int e = 0; e < X; e++)
                mx = l[e] > mx ? l[e] : mx;
            for (int e = 0; e < X; e++)
                sum += s[e] = expf(l[e] - mx);
            for (int e = 0; e < X; e++)
                s[e] /= sum;
        }
        /* top-k by score, ties to the lower index */
        float tot = 0;
        for (int j = 0; j < k; j++) {
            int best = -1;
            for (int e = 0; e < X; e++) {
                int taken = 0;
                for (int q = 0; q < j; q++)
                    taken |= idx[(size_t)t * k + q] == e;
                if (!taken && (best < 0 || s[e] > s[best]))
                    best = e;
            }
            idx[(size_t)t * k + j] = best;
            wts[(size_t)t * k + j] = s[best];
            tot += s[best];
        }
        for (int j = 0; j < k; j++)
            wts[(size_t)t * k + j] /= tot;
    }
    free(s);
}

static void cpu_gather_rows(void *ctx, const float *x, const int *rows, int n, int D, float *out)
{
    (void)ctx; /* the CPU has no state */
    for (int i = 0; i < n; i++)
        memcpy(out + (size_t)i * D, x + (size_t)rows[i] * D, (size_t)D * sizeof(float));
}

static void cpu_scatter_add_rows(void *ctx, const float *x, const int *rows, const float *w, int n,
                                 int D, float *y)
{
    (void)ctx; /* the CPU has no state */
    for (int i = 0; i < n; i++)
        for (int d = 0; d < D; d++)
            y[(size_t)rows[i] * D + d] += w[i] * x[(size_t)i * D + d];
}

static void cpu_denorm_clamp(void *ctx, const float *x, float *y, int T, int A, const float *mean,
                             const float *std, const float *low, const float *high)
{
    (void)ctx; /* the CPU has no state */
    for (int t = 0; t < T; t++)
        for (int a = 0; a < A; a++) {
            float v = x[(size_t)t * A + a] * std[a] + mean[a];
            v = v < low[a] ? low[a] : v > high[a] ? high[a] : v;
            y[(size_t)t * A + a] = v;
        }
}

static float cpu_max_abs(void *ctx, const float *x, size_t n, int *nonfinite)
{
    (void)ctx; /* the CPU has no state */
    float m = 0;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            bad = 1;
        else if (fabsf(x[i]) > m)
            m = fabsf(x[i]);
    }
    if (nonfinite)
        *nonfinite = bad;
    return m;
}

const struct vla_ops vla_ops_cpu = {
    .name = "cpu",
    .host_memory = 1,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .upload = cpu_copy,
    .download = cpu_copy,
    .sync = cpu_sync,
    .matmul = cpu_matmul,
    .layernorm = cpu_layernorm,
    .rmsnorm = cpu_rmsnorm,
    .gelu_tanh = cpu_gelu_tanh,
    .silu = cpu_silu,
    .glu = cpu_glu,
    .rope = cpu_rope,
    .attention = cpu_attention,
    .add = cpu_add,
    .scale = cpu_scale,
    .axpy = cpu_axpy,
    .copy = cpu_copy,
    .patchify = cpu_patchify,
    .pos_interp = cpu_pos_interp,
    .merge = cpu_merge,
    .embed = cpu_embed,
    .concat_bcast = cpu_concat_bcast,
    .time_embed = cpu_time_embed,
    .moe_route = cpu_moe_route,
    .gather_rows = cpu_gather_rows,
    .scatter_add_rows = cpu_scatter_add_rows,
    .bias_act = cpu_bias_act,
    .bias_layernorm = cpu_bias_layernorm,
    .qkv_rope = cpu_qkv_rope,
    .attention_packed = cpu_attention_packed,
    .attention_block = cpu_attention_block,
    .mlp_block = cpu_mlp_block,
    .gated_mlp = cpu_gated_mlp,
    .attention_o = cpu_attention_o,
    .time_concat = cpu_time_concat,
    .denorm_clamp = cpu_denorm_clamp,
    .max_abs = cpu_max_abs,
};
