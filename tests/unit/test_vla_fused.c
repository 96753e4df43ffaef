/* test_vla_fused.c - the CPU reference's fused ops (ops.h: bias_act,
 * bias_layernorm, qkv_rope, attention_packed, the vision blocks, attention_o,
 * time_concat) against the unfused compositions they replace, on odd shapes
 * (src/vla/ops_check.c, which `bench --kernel-test` also runs GPU vs CPU),
 * the odd preset's pass, and the op calls of one denoising step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vla/model.h"
#include "../../src/vla/ops_check.h"
#include "test.h"

/* a broken fused op must be caught: bias_act without its bias */
static void bad_bias_act(void *ctx, float *y, const float *bias, int T, int N,
                         enum vla_bias_act act)
{
    (void)bias;
    float *zero = calloc((size_t)N, sizeof(float));
    vla_ops_cpu.bias_act(ctx, y, zero, T, N, act);
    free(zero);
}

/* mlp_block without fc1's bias, attention_block without the QKV bias */
static void bad_mlp_block(void *ctx, const float *h, const float *w1, const float *b1,
                          const float *w2, float *hid, float *x, int T, int D, int F,
                          enum vla_bias_act act)
{
    (void)b1;
    float *zero = calloc((size_t)F, sizeof(float));
    vla_ops_cpu.mlp_block(ctx, h, w1, zero, w2, hid, x, T, D, F, act);
    free(zero);
}

static void bad_attention_block(void *ctx, const float *h, const float *qkv_w, const float *qkv_b,
                                const float *o_w, float *qkv, float *att, float *x, int C, int T,
                                int H, int hd, float scale)
{
    (void)qkv_b;
    vla_ops_cpu.attention_block(ctx, h, qkv_w, NULL, o_w, qkv, att, x, C, T, H, hd, scale);
}

/* ---- op calls per denoising step: the ops table counts what a step calls
 * (vla_forward syncs after vision, after the prefix and after every step,
 * so the calls between the third and the fourth sync are step 1's) */
enum {
    C_MATMUL,
    C_RMSNORM,
    C_GLU,
    C_GATED_MLP,
    C_QKV_ROPE,
    C_ATTENTION,
    C_ATTENTION_O,
    C_TIME_EMBED,
    C_CONCAT,
    C_TIME_CONCAT,
    C_BIAS_ACT,
    C_AXPY,
    C_N
};
static int syncs, calls[C_N];

static void count(int op)
{
    calls[op] += syncs == 3;
}

static void c_sync(void *ctx)
{
    (void)ctx;
    syncs++;
}

static void c_matmul(void *ctx, const float *x, const float *w, const float *b, float *y, int M,
                     int N, int K, int acc)
{
    count(C_MATMUL);
    vla_ops_cpu.matmul(ctx, x, w, b, y, M, N, K, acc);
}

static void c_rmsnorm(void *ctx, const float *x, const float *w, float *y, int T, int D, float eps)
{
    count(C_RMSNORM);
    vla_ops_cpu.rmsnorm(ctx, x, w, y, T, D, eps);
}

static void c_glu(void *ctx, const float *g, const float *u, float *o, int T, int F, int ld,
                  enum vla_act a)
{
    count(C_GLU);
    vla_ops_cpu.glu(ctx, g, u, o, T, F, ld, a);
}

static void c_gated_mlp(void *ctx, const float *h, const float *gu_w, const float *dw, float *gu,
                        float *hid, float *x, int T, int D, int F, enum vla_act a)
{
    count(C_GATED_MLP);
    vla_ops_cpu.gated_mlp(ctx, h, gu_w, dw, gu, hid, x, T, D, F, a);
}

static void c_qkv_rope(void *ctx, const float *h, const float *qw, const float *kvw, float *q,
                       float *kv, int nseq, size_t kvs, int T, int D, int H, int KV, int hd,
                       int pos0, double theta)
{
    count(C_QKV_ROPE);
    vla_ops_cpu.qkv_rope(ctx, h, qw, kvw, q, kv, nseq, kvs, T, D, H, KV, hd, pos0, theta);
}

static void c_attention(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                        float *out, int Tq, int Tk, int H, int KV, int hd, float scale)
{
    count(C_ATTENTION);
    vla_ops_cpu.attention(ctx, q, qs, k, v, ks, out, Tq, Tk, H, KV, hd, scale);
}

static void c_attention_o(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                          const float *ow, float *att, float *x, int Tq, int Tk, int H, int KV,
                          int hd, int D, float scale)
{
    count(C_ATTENTION_O);
    vla_ops_cpu.attention_o(ctx, q, qs, k, v, ks, ow, att, x, Tq, Tk, H, KV, hd, D, scale);
}

static void c_time_embed(void *ctx, float *out, int D, float t, double a, double b)
{
    count(C_TIME_EMBED);
    vla_ops_cpu.time_embed(ctx, out, D, t, a, b);
}

static void c_concat(void *ctx, const float *a, int Da, const float *b, int Db, float *out, int T)
{
    count(C_CONCAT);
    vla_ops_cpu.concat_bcast(ctx, a, Da, b, Db, out, T);
}

static void c_time_concat(void *ctx, const float *a, int Da, float *out, int T, int D, float t,
                          double lo, double hi)
{
    count(C_TIME_CONCAT);
    vla_ops_cpu.time_concat(ctx, a, Da, out, T, D, t, lo, hi);
}

static void c_bias_act(void *ctx, float *y, const float *b, int T, int N, enum vla_bias_act a)
{
    count(C_BIAS_ACT);
    vla_ops_cpu.bias_act(ctx, y, b, T, N, a);
}

static void c_axpy(void *ctx, float *y, const float *x, float a, size_t n)
{
    count(C_AXPY);
    vla_ops_cpu.axpy(ctx, y, x, a, n);
}

/* the odd preset's pass on ops o (NULL: the CPU's): actions into act,
 * statistics into st (may be NULL) */
static int odd_pass(const struct vla_ops *o, float *act, struct vla_stats *st)
{
    struct vla_preset p;
    if (vla_preset_load_string(&p, "odd", vla_odd_preset_yaml, strlen(vla_odd_preset_yaml)))
        return -1;
    struct vla_weights w;
    int rc = vla_weights_layout(&w, &p, 1);
    if (!rc)
        vla_weights_synthetic(&w, &p, 0);
    struct vla_model m;
    rc = rc || vla_model_init(&m, &p, &w, o ? o : &vla_ops_cpu, p.vision.image);
    if (!rc) {
        struct vla_inputs in;
        vla_inputs_synthetic(&in, &p, p.vision.image, 0);
        rc = vla_forward(&m, &in, act, NULL, st);
        vla_inputs_release(&in);
        vla_model_release(&m);
    }
    vla_weights_release(&w);
    vla_preset_release(&p);
    return rc;
}

static void test_step_op_calls(void)
{
    struct vla_ops o = vla_ops_cpu;
    o.sync = c_sync, o.matmul = c_matmul, o.rmsnorm = c_rmsnorm, o.glu = c_glu;
    o.gated_mlp = c_gated_mlp;
    o.qkv_rope = c_qkv_rope, o.attention = c_attention, o.attention_o = c_attention_o;
    o.time_embed = c_time_embed, o.concat_bcast = c_concat, o.time_concat = c_time_concat;
    o.bias_act = c_bias_act, o.axpy = c_axpy;
    float act[7 * 5], ref[7 * 5];
    CHECK(odd_pass(&o, act, NULL) == 0);
    CHECK(syncs == 3 + 3); /* vision, prefix, 3 steps, the tail */
    int total = 0;
    for (int i = 0; i < C_N; i++)
        total += calls[i];
    /* a step of the odd preset (2 dense expert layers): the input MLP
     * (matmul, time_concat, matmul, bias_act, matmul), per layer rmsnorm,
     * qkv_rope, attention_o, rmsnorm, gated_mlp, then rmsnorm, matmul, axpy.
     * Before the fused ops: 25 (time_embed and concat_bcast apart, attention
     * and the output projection apart, the MLP as matmul, glu, matmul). */
    CHECK(total == 5 + 2 * 5 + 3);
    CHECK(calls[C_GATED_MLP] == 2 && calls[C_GLU] == 0);
    CHECK(calls[C_ATTENTION] == 0 && calls[C_ATTENTION_O] == 2);
    CHECK(calls[C_TIME_EMBED] == 0 && calls[C_CONCAT] == 0 && calls[C_TIME_CONCAT] == 1);
    CHECK(calls[C_MATMUL] == 3 + 1);
    /* the counted table computes what the plain one does */
    CHECK(odd_pass(NULL, ref, NULL) == 0);
    CHECK(memcmp(act, ref, sizeof(act)) == 0);
}

int main(void)
{
    test_step_op_calls();

    /* fused == composition on the CPU (same arithmetic order: exact or
     * within fp32 rounding of the reassociated sums) */
    CHECK(vla_ops_check(&vla_ops_cpu, &vla_ops_cpu, 1e-6, stderr) == 0);

    /* the check itself fails a wrong op */
    struct vla_ops bad = vla_ops_cpu;
    bad.bias_act = bad_bias_act;
    CHECK(vla_ops_check(&vla_ops_cpu, &bad, 1e-6, NULL) > 0);
    bad = vla_ops_cpu;
    bad.mlp_block = bad_mlp_block;
    CHECK(vla_ops_check(&vla_ops_cpu, &bad, 1e-6, NULL) > 0);
    bad = vla_ops_cpu;
    bad.attention_block = bad_attention_block;
    CHECK(vla_ops_check(&vla_ops_cpu, &bad, 1e-6, NULL) > 0);

    /* the odd preset's pass is finite on the CPU */
    float act[7 * 5];
    struct vla_stats st = {0};
    CHECK(odd_pass(NULL, act, &st) == 0);
    CHECK(st.first_bad < 0);
    int finite = 1;
    for (int i = 0; i < 35; i++)
        finite &= isfinite(act[i]);
    CHECK(finite);
    vla_stats_release(&st);
    return test_report();
}
