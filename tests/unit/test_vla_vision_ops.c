/* test_vla_vision_ops.c - the ops vision() issues through the ops table (a
 * GPU pass is exactly those calls): each vision block's attention half and
 * MLP go through attention_block and mlp_block, so the GPU keeps their
 * intermediates 16-bit and adds fc1's bias and GELU in the GEMM epilogue;
 * no separate attention_packed or GELU bias_act call is left. Every camera
 * is cut into patches by one patchify call and gets the position table by
 * one broadcast bias_act, not a launch per camera. The counted
 * pass's actions equal the plain one's bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vla/model.h"
#include "../../src/vla/ops_check.h"
#include "test.h"

static struct {
    int attention_block, mlp_block, attention_packed, bias_gelu, layernorms, patchify, adds;
} n;

static void count_attention_block(void *ctx, const float *h, const float *qkv_w, const float *qkv_b,
                                  const float *o_w, float *qkv, float *att, float *x, int C, int T,
                                  int H, int hd, float scale)
{
    n.attention_block++;
    vla_ops_cpu.attention_block(ctx, h, qkv_w, qkv_b, o_w, qkv, att, x, C, T, H, hd, scale);
}

static void count_mlp_block(void *ctx, const float *h, const float *w1, const float *b1,
                            const float *w2, float *hid, float *x, int T, int D, int F,
                            enum vla_bias_act act)
{
    n.mlp_block++;
    vla_ops_cpu.mlp_block(ctx, h, w1, b1, w2, hid, x, T, D, F, act);
}

static void count_attention_packed(void *ctx, const float *qkv, const float *bias, float *out,
                                   int C, int T, int H, int hd, float scale)
{
    n.attention_packed++;
    vla_ops_cpu.attention_packed(ctx, qkv, bias, out, C, T, H, hd, scale);
}

static void count_bias_act(void *ctx, float *y, const float *bias, int T, int N,
                           enum vla_bias_act act)
{
    n.bias_gelu += act == VLA_BIAS_GELU_TANH;
    vla_ops_cpu.bias_act(ctx, y, bias, T, N, act);
}

static void count_patchify(void *ctx, const float *img, float *out, int ni, int S, int p, int g)
{
    n.patchify++;
    vla_ops_cpu.patchify(ctx, img, out, ni, S, p, g);
}

static void count_add(void *ctx, float *y, const float *x, size_t len)
{
    n.adds++;
    vla_ops_cpu.add(ctx, y, x, len);
}

static void count_bias_layernorm(void *ctx, float *x, const float *bias, const float *w,
                                 const float *b, float *y, int T, int D, float eps)
{
    n.layernorms++;
    vla_ops_cpu.bias_layernorm(ctx, x, bias, w, b, y, T, D, eps);
}

/* the odd preset's pass on ops table o: actions into act */
static int odd_pass(const struct vla_preset *p, const struct vla_weights *w,
                    const struct vla_ops *o, float *act)
{
    struct vla_model m;
    if (vla_model_init(&m, p, w, o, p->vision.image))
        return -1;
    struct vla_inputs in;
    vla_inputs_synthetic(&in, p, p->vision.image, 0);
    int rc = vla_forward(&m, &in, act, NULL, NULL);
    vla_inputs_release(&in);
    vla_model_release(&m);
    return rc;
}

int main(void)
{
    struct vla_preset p;
    CHECK(vla_preset_load_string(&p, "odd", vla_odd_preset_yaml, strlen(vla_odd_preset_yaml)) == 0);
    struct vla_weights w;
    CHECK(vla_weights_layout(&w, &p, 1) == 0);
    vla_weights_synthetic(&w, &p, 0);
    size_t na = (size_t)p.chunk * p.action_dim;
    float *plain = calloc(na, sizeof(float)), *counted = calloc(na, sizeof(float));
    CHECK(odd_pass(&p, &w, &vla_ops_cpu, plain) == 0);

    struct vla_ops count = vla_ops_cpu;
    count.attention_block = count_attention_block;
    count.mlp_block = count_mlp_block;
    count.attention_packed = count_attention_packed;
    count.bias_act = count_bias_act;
    count.bias_layernorm = count_bias_layernorm;
    count.patchify = count_patchify;
    count.add = count_add;
    CHECK(odd_pass(&p, &w, &count, counted) == 0);
    CHECK(p.vision.depth == 2 && p.vision.mlp_act == VLA_ACT_GELU_TANH);
    CHECK(n.attention_block == p.vision.depth);
    CHECK(n.mlp_block == p.vision.depth);
    CHECK(n.attention_packed == 0);
    CHECK(n.bias_gelu == 0);
    CHECK(p.vision.cameras > 1 && n.patchify == 1); /* not one per camera */
    CHECK(n.adds == 0);                             /* the position table: one broadcast bias_act */
    /* two per block and the final norm: the blocks sit between them */
    CHECK(n.layernorms == 2 * p.vision.depth + 1);
    int finite = 1;
    for (size_t i = 0; i < na; i++)
        finite &= isfinite(plain[i]);
    CHECK(finite);
    CHECK(memcmp(plain, counted, na * sizeof(float)) == 0);

    free(plain);
    free(counted);
    vla_weights_release(&w);
    vla_preset_release(&p);
    return test_report();
}
