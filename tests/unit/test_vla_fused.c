/* test_vla_fused.c - the CPU reference's fused ops (ops.h: bias_act,
 * bias_layernorm, qkv_rope, attention_packed, the vision blocks) against the unfused
 * compositions they replace, on odd shapes (src/vla/ops_check.c, which
 * `bench --kernel-test` also runs GPU vs CPU), and the odd preset's pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vla/model.h"
#include "../../src/vla/ops_check.h"
#include "test.h"

/* a broken fused op must be caught: bias_act without its bias */
static void bad_bias_act(float *y, const float *bias, int T, int N, enum vla_bias_act act)
{
    (void)bias;
    float *zero = calloc((size_t)N, sizeof(float));
    vla_ops_cpu.bias_act(y, zero, T, N, act);
    free(zero);
}

/* mlp_block without fc1's bias, attention_block without the QKV bias */
static void bad_mlp_block(const float *h, const float *w1, const float *b1, const float *w2,
                          float *hid, float *x, int T, int D, int F, enum vla_bias_act act)
{
    (void)b1;
    float *zero = calloc((size_t)F, sizeof(float));
    vla_ops_cpu.mlp_block(h, w1, zero, w2, hid, x, T, D, F, act);
    free(zero);
}

static void bad_attention_block(const float *h, const float *qkv_w, const float *qkv_b,
                                const float *o_w, float *qkv, float *att, float *x, int C, int T,
                                int H, int hd, float scale)
{
    (void)qkv_b;
    vla_ops_cpu.attention_block(h, qkv_w, NULL, o_w, qkv, att, x, C, T, H, hd, scale);
}

int main(void)
{
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

    /* the odd preset loads and its pass is finite on the CPU */
    struct vla_preset p;
    CHECK(vla_preset_load_string(&p, "odd", vla_odd_preset_yaml, strlen(vla_odd_preset_yaml)) == 0);
    struct vla_weights w;
    CHECK(vla_weights_layout(&w, &p, 1) == 0);
    vla_weights_synthetic(&w, &p, 0);
    struct vla_model m;
    CHECK(vla_model_init(&m, &p, &w, &vla_ops_cpu, p.vision.image) == 0);
    struct vla_inputs in;
    vla_inputs_synthetic(&in, &p, p.vision.image, 0);
    float act[7 * 5];
    struct vla_stats st = {0};
    CHECK(vla_forward(&m, &in, act, NULL, &st) == 0);
    CHECK(st.first_bad < 0);
    int finite = 1;
    for (int i = 0; i < 35; i++)
        finite &= isfinite(act[i]);
    CHECK(finite);
    vla_stats_release(&st);
    vla_inputs_release(&in);
    vla_model_release(&m);
    vla_weights_release(&w);
    vla_preset_release(&p);
    return test_report();
}
