/* ops.h - the operations of the VLA pass as a table of function pointers,
 * one table per backend: vla_ops_cpu (ops_cpu.c, host memory) and the
 * GPU's (ops_gpu.h: HIP or CUDA, one table per opened context). model.c
 * never touches activation memory itself: every read or write of a buffer
 * goes through these calls, each given the table's ctx first. Buffers are
 * float (fp32) arrays; shapes are row-major, a linear layer's weight is
 * [out, in] as in PyTorch.
 *
 * Error reasons (src/vla and src/gpu): a call that can fail returns -1 (or
 * NULL) and hands the reason back through a `char **why` argument,
 * malloc'd, NULL on success, the caller frees it. The ops return nothing; a
 * backend that can fail inside them (the GPU) keeps the first failure in
 * its context and gives it out the same way (vla_gpu_failed). Not yet so:
 * the struct gpu_backend method table's err[] (read after a failed method)
 * and gpu_cpu_test_devices, memtest_run and bs_dev's caller buffers, whose
 * callers live in probes/. */
#ifndef RVD_VLA_OPS_H
#define RVD_VLA_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "preset.h"

/* the activation of bias_act */
enum vla_bias_act { VLA_BIAS_ONLY, VLA_BIAS_GELU_TANH, VLA_BIAS_SILU };

struct vla_ops {
    const char *name;
    int host_memory; /* buffers are host memory: weights are used in place */
    /* the backend's state, the first argument of every op: NULL for the
     * CPU's table, a struct vla_gpu for the one vla_gpu_ops returns */
    void *ctx;
    /* memory: buffers of n floats owned by the backend */
    float *(*alloc)(void *ctx, size_t n);
    void (*release)(void *ctx, float *p);
    void (*upload)(void *ctx, float *dst, const float *host, size_t n);
    void (*download)(void *ctx, float *host, const float *src, size_t n);
    void (*sync)(void *ctx); /* wait for queued work (stage timing) */

    /* y[M,N] = x[M,K] . w[N,K]^T (+ bias[N]) (+ y if accumulate) */
    void (*matmul)(void *ctx, const float *x, const float *w, const float *bias, float *y, int M,
                   int N, int K, int accumulate);
    /* per row of D: y = (x - mean) / sqrt(var + eps) * w + b */
    void (*layernorm)(void *ctx, const float *x, const float *w, const float *b, float *y, int T,
                      int D, float eps);
    /* per row of D: y = x / sqrt(mean(x^2) + eps) * w; the variance in fp32 */
    void (*rmsnorm)(void *ctx, const float *x, const float *w, float *y, int T, int D, float eps);
    void (*gelu_tanh)(void *ctx, float *x, size_t n);
    void (*silu)(void *ctx, float *x, size_t n);
    /* out[t,f] = act(gate[t,f]) * up[t,f] with act gelu_tanh (GEGLU) or silu (SwiGLU);
     * gate and up are rows of length ld */
    void (*glu)(void *ctx, const float *gate, const float *up, float *out, int T, int F, int ld,
                enum vla_act act);
    /* rotate-half RoPE on [T, heads, hd] rows of `stride` floats, positions pos0.. */
    void (*rope)(void *ctx, float *x, int T, int heads, int hd, int stride, int pos0, double theta);
    /* softmax(q k^T * scale) v per head; head h reads kv head h / (H / KV).
     * q[Tq] rows of qs floats, k/v[Tk] rows of ks floats, out rows of H*hd */
    void (*attention)(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                      float *out, int Tq, int Tk, int H, int KV, int hd, float scale);
    void (*add)(void *ctx, float *y, const float *x, size_t n); /* y += x */
    void (*scale)(void *ctx, float *x, size_t n, float s);
    void (*axpy)(void *ctx, float *y, const float *x, float a, size_t n); /* y += a x */
    void (*copy)(void *ctx, float *dst, const float *src, size_t n);

    /* n images [n, C=3, S, S] -> patches [n, g^2, 3 p p] (channel, row,
     * column), g <= S/p: the top-left g p x g p pixels, as a stride-p
     * convolution without padding (the remainder pixels on the right and
     * bottom are dropped); every camera of every observation in one call */
    void (*patchify)(void *ctx, const float *img, float *out, int n, int S, int p, int g);
    /* learned position table [g0*g0, D] -> [g1*g1, D], bilinear, half-pixel
     * centres, edge-clamped (torch interpolate(align_corners=False)) */
    void (*pos_interp)(void *ctx, const float *tab, int g0, float *out, int g1, int D);
    /* tokens [g*g, D] -> [(g/m)^2, m*m*D]: each output row concatenates the
     * m x m neighbours in row-major order */
    void (*merge)(void *ctx, const float *x, float *out, int g, int m, int D);
    /* out[t] = table[tokens[t]] * mul (tokens: host array) */
    void (*embed)(void *ctx, const float *table, const int32_t *tokens, float *out, int T, int D,
                  float mul);
    /* out[t] = [a[t], b] for T rows: a [T, Da], b [Db] broadcast */
    void (*concat_bcast)(void *ctx, const float *a, int Da, const float *b, int Db, float *out,
                         int T);
    /* out[D] = [sin(t * w_i), cos(t * w_i)], w_i = 2 pi / (min_p (max_p/min_p)^(i/(D/2-1))) */
    void (*time_embed)(void *ctx, float *out, int D, float t, double min_period, double max_period);

    /* MoE routing: logits [T, X] -> top-k experts per token (host arrays idx,
     * wts [T, k]); sigmoid: weights = sigmoid scores renormalised over the
     * top-k; softmax: softmax over all, then renormalised over the top-k */
    void (*moe_route)(void *ctx, const float *logits, int T, int X, int k, enum vla_router r,
                      int *idx, float *wts);
    void (*gather_rows)(void *ctx, const float *x, const int *rows, int n, int D, float *out);
    /* y[rows[i]] += w[i] * x[i] */
    void (*scatter_add_rows)(void *ctx, const float *x, const int *rows, const float *w, int n,
                             int D, float *y);

    /* optional (NULL on the CPU): the whole sparse MoE on the backend, no host
     * round trip (so a GPU pass can be one graph): logits = h router_w^T
     * [T, X] -> top-k routing as moe_route -> x += sum_k w_k E_k(h), experts
     * in index order; gate_up [X, 2M, D], down [X, D, M]. The shared expert
     * is added by the caller. */
    void (*moe_dense)(void *ctx, const float *h, float *x, const float *router_w,
                      const float *gate_up_w, const float *down_w, int T, int D, int X, int k,
                      int M, enum vla_router r, enum vla_act act, float *logits);

    /* ---- fused operations: each replaces the composition named in its
     * comment (fewer kernels per layer on a GPU); ops_cpu.c implements them
     * as that composition or its equivalent loop, tests/unit/test_vla_fused.c
     * holds them to it, `bench --kernel-test` holds the GPU's to the CPU's. */
    /* y[t, n] = act(y[t, n] + bias[n])  (matmul's bias, then gelu_tanh / silu) */
    void (*bias_act)(void *ctx, float *y, const float *bias, int T, int N, enum vla_bias_act act);
    /* x[t] += bias (when not NULL), then y = layernorm(x)  (add, layernorm) */
    void (*bias_layernorm)(void *ctx, float *x, const float *bias, const float *w, const float *b,
                           float *y, int T, int D, float eps);
    /* q [T, H*hd] = h q_w^T, kv [T, 2*KV*hd] = h kv_w^T (k then v), RoPE on q
     * and k at positions pos0..  (two matmuls, two ropes); for nseq
     * sequences of T rows each: h and q are [nseq*T] rows, sequence s's kv
     * rows start at kv + s*kvs, positions restart at pos0 per sequence */
    void (*qkv_rope)(void *ctx, const float *h, const float *q_w, const float *kv_w, float *q,
                     float *kv, int nseq, size_t kvs, int T, int D, int H, int KV, int hd, int pos0,
                     double theta);
    /* C independent sequences of T tokens: qkv [C*T, 3*H*hd] rows (q, k, v) +
     * bias [3*H*hd] (NULL: none) -> out [C*T, H*hd], softmax attention per
     * sequence  (bias add, then one attention call per sequence) */
    void (*attention_packed)(void *ctx, const float *qkv, const float *bias, float *out, int C,
                             int T, int H, int hd, float scale);
    /* a vision block's attention half: qkv = h qkv_w^T + qkv_b, att =
     * attention_packed(qkv), x += att o_w^T (the o bias is the caller's);
     * h, x [C*T, H*hd]. qkv [C*T, 3*H*hd] and att are the caller's scratch,
     * left unspecified (a GPU may keep them 16-bit only)  (matmul,
     * attention_packed, matmul accumulating) */
    void (*attention_block)(void *ctx, const float *h, const float *qkv_w, const float *qkv_b,
                            const float *o_w, float *qkv, float *att, float *x, int C, int T, int H,
                            int hd, float scale);
    /* x [T, D] += act(h w1^T + b1) w2^T (w2's bias is the caller's); hid
     * [T, F] is scratch, left unspecified  (matmul, bias_act, matmul
     * accumulating) */
    void (*mlp_block)(void *ctx, const float *h, const float *w1, const float *b1, const float *w2,
                      float *hid, float *x, int T, int D, int F, enum vla_bias_act act);
    /* x [T, D] += (act(h gate^T) * (h up^T)) down^T: gate_up [2F, D] (the
     * gate's rows, then the up's), down [D, F], act gelu_tanh or silu; gu
     * [T, 2F] and hid [T, F] are scratch, left unspecified (a GPU in 16 bits
     * keeps them 16-bit only)  (matmul into gu, glu into hid, matmul
     * accumulating into x) */
    void (*gated_mlp)(void *ctx, const float *h, const float *gate_up, const float *down, float *gu,
                      float *hid, float *x, int T, int D, int F, enum vla_act act);
    /* x [Tq, D] += attention(q, k, v) o_w^T, o_w [D, H*hd]  (attention into
     * att [Tq, H*hd], then matmul accumulating into x); att is the caller's
     * scratch and holds nothing defined afterwards (a GPU in 16 bits keeps
     * the attention output in 16 bits only, as the GEMM after it reads it) */
    void (*attention_o)(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                        const float *o_w, float *att, float *x, int Tq, int Tk, int H, int KV,
                        int hd, int D, float scale);
    /* out [T, Da + D] = [a[t], time_embed(t)] per row  (time_embed into a
     * zeroed [D], then concat_bcast) */
    void (*time_concat)(void *ctx, const float *a, int Da, float *out, int T, int D, float t,
                        double min_period, double max_period);

    /* y [T, A] = x (normalised) * std + mean, clamped to [low, high]; y
     * may be x. Out of place, the integrator state x_t turns into the
     * actions without a copy before it */
    void (*denorm_clamp)(void *ctx, const float *x, float *y, int T, int A, const float *mean,
                         const float *std, const float *low, const float *high);
    /* max |x| and whether any element is NaN/Inf (the layer statistics) */
    float (*max_abs)(void *ctx, const float *x, size_t n, int *nonfinite);
};

extern const struct vla_ops vla_ops_cpu;
/* the GPU implementation: src/vla/ops_gpu.h */

#endif
