/* ops_gpu_elem.c - the ops that are one kernel each (norms, activations,
 * RoPE, the layout kernels of the vision input and the time embedding, the
 * integrator's axpy, the statistics), the MLP block and the dense MoE. A
 * producer whose output a GEMM reads next writes its 16-bit shadow in the
 * same kernel; norms, softmax, RoPE and x_t stay fp32. */
#include <stdint.h>
#include <string.h>

#include "ops_gpu_ctx.h"

void vgpu_layernorm(void *ctx, const float *x, const float *w, const float *b, float *y, int T,
                    int D, float eps)
{
    struct vla_gpu *gp = ctx;
    size_t n = (size_t)T * D;
    vgpu_wrote(gp, y, n * sizeof(float));
    void *y16 = vgpu_shadow_target(gp, SH_NORM, n);
    int bf = gp->dt == GPU_BF16;
    LAUNCH(gp, K_vla_layernorm, (unsigned)(T < gp->gridmax ? T : gp->gridmax), &x, &w, &b, &y, &T,
           &D, &eps, &y16, &bf);
    vgpu_shadow_set(gp, SH_NORM, y, n, y16);
}

void vgpu_rmsnorm(void *ctx, const float *x, const float *w, float *y, int T, int D, float eps)
{
    struct vla_gpu *gp = ctx;
    size_t n = (size_t)T * D;
    vgpu_wrote(gp, y, n * sizeof(float));
    void *y16 = vgpu_shadow_target(gp, SH_NORM, n);
    int bf = gp->dt == GPU_BF16;
    /* 16-byte words where every row is aligned (kernels/vla_ops.hip) */
    int vec = D % 4 == 0 && (uintptr_t)x % 16 == 0 && (uintptr_t)w % 16 == 0 &&
              (uintptr_t)y % 16 == 0 && (uintptr_t)y16 % 8 == 0;
    LAUNCH(gp, K_vla_rmsnorm, (unsigned)(T < gp->gridmax ? T : gp->gridmax), &x, &w, &y, &T, &D,
           &eps, &y16, &bf, &vec);
    vgpu_shadow_set(gp, SH_NORM, y, n, y16);
}

static void act(struct vla_gpu *gp, float *x, size_t n, int which)
{
    uint64_t nn = n;
    vgpu_wrote(gp, x, n * sizeof(float));
    void *y16 = vgpu_shadow_target(gp, SH_ACT, n);
    int bf = gp->dt == GPU_BF16;
    LAUNCH(gp, K_vla_act, vgpu_grid_for(gp, nn), &x, &nn, &which, &y16, &bf);
    vgpu_shadow_set(gp, SH_ACT, x, n, y16);
}

void vgpu_gelu_tanh(void *ctx, float *x, size_t n)
{
    struct vla_gpu *gp = ctx;
    act(gp, x, n, 0);
}

void vgpu_silu(void *ctx, float *x, size_t n)
{
    struct vla_gpu *gp = ctx;
    act(gp, x, n, 1);
}

void vgpu_glu(void *ctx, const float *gate, const float *up, float *out, int T, int F, int ld,
              enum vla_act a)
{
    struct vla_gpu *gp = ctx;
    int silu = a == VLA_ACT_SWIGLU, bf = gp->dt == GPU_BF16;
    size_t n = (size_t)T * F;
    vgpu_wrote(gp, out, n * sizeof(float));
    void *y16 = vgpu_shadow_target(gp, SH_GLU, n);
    LAUNCH(gp, K_vla_glu, vgpu_grid_for(gp, (uint64_t)T * F), &gate, &up, &out, &T, &F, &ld, &silu,
           &y16, &bf);
    vgpu_shadow_set(gp, SH_GLU, out, n, y16);
}

void vgpu_rope(void *ctx, float *x, int T, int heads, int hd, int stride, int pos0, double theta)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, x, (size_t)T * stride * sizeof(float));
    LAUNCH(gp, K_vla_rope, vgpu_grid_for(gp, (uint64_t)T * (hd / 2)), &x, &T, &heads, &hd, &stride,
           &pos0, &theta);
}

void vgpu_bias_act(void *ctx, float *y, const float *bias, int T, int N, enum vla_bias_act a)
{
    struct vla_gpu *gp = ctx;
    size_t n = (size_t)T * N;
    vgpu_wrote(gp, y, n * sizeof(float));
    /* only an activation's output feeds a GEMM; a plain bias add (the
     * residual before the statistics) has no 16-bit reader */
    void *y16 = a == VLA_BIAS_ONLY ? NULL : vgpu_shadow_target(gp, SH_ACT, n);
    int act = a == VLA_BIAS_GELU_TANH ? 1 : a == VLA_BIAS_SILU ? 2 : 0, bf = gp->dt == GPU_BF16;
    LAUNCH(gp, K_vla_bias_act, vgpu_grid_for(gp, n), &y, &bias, &T, &N, &act, &y16, &bf);
    vgpu_shadow_set(gp, SH_ACT, y, n, y16);
}

void vgpu_bias_layernorm(void *ctx, float *x, const float *bias, const float *w, const float *b,
                         float *y, int T, int D, float eps)
{
    struct vla_gpu *gp = ctx;
    size_t n = (size_t)T * D;
    vgpu_wrote(gp, x, n * sizeof(float));
    vgpu_wrote(gp, y, n * sizeof(float));
    void *y16 = vgpu_shadow_target(gp, SH_NORM, n);
    int bf = gp->dt == GPU_BF16;
    LAUNCH(gp, K_vla_bias_layernorm, (unsigned)(T < gp->gridmax ? T : gp->gridmax), &x, &bias, &w,
           &b, &y, &T, &D, &eps, &y16, &bf);
    vgpu_shadow_set(gp, SH_NORM, y, n, y16);
}

void vgpu_mlp_block(void *ctx, const float *h, const float *w1, const float *b1, const float *w2,
                    float *hid, float *x, int T, int D, int F, enum vla_bias_act a)
{
    struct vla_gpu *gp = ctx;
    /* 16-bit: fc1's bias and GELU in its cuBLASLt epilogue, writing fc2's
     * 16-bit operand. Not in fp32, the GPU's reference precision: the
     * library's GELU is its own tanh, held only to the 16-bit bounds */
    if (a == VLA_BIAS_GELU_TANH && b1 && vgpu_blocks16(gp)) {
        enum gpu_dtype t = gp->dt;
        const void *A = vgpu_act_operand(gp, h, T, D, t, &gp->a16);
        const void *B1 = vgpu_weight16(gp, w1, F, D, &gp->wa16);
        void *y = vgpu_scratch(gp, &gp->hid16, (size_t)T * F * 2);
        vgpu_wrote(gp, hid, (size_t)T * F * sizeof(float));
        if (!vgpu_lt_ex(gp, t, t, 0, 1, T, F, D, 1.0f, A, D, B1, D, 0.0f, y, F, b1, GPU_LT_GELU)) {
            const void *B2 = vgpu_weight16(gp, w2, D, F, &gp->wb16);
            vgpu_wrote(gp, x, (size_t)T * D * sizeof(float));
            vgpu_gemm(gp, t, 0, 1, T, D, F, 1.0f, y, F, 0, B2, F, 0, 1.0f, x, D, 0, 1);
            return;
        }
    }
    /* the composition (and the fallback where there is no epilogue) */
    vgpu_matmul(gp, h, w1, NULL, hid, T, F, D, 0);
    vgpu_bias_act(gp, hid, b1, T, F, a);
    vgpu_matmul(gp, hid, w2, NULL, x, T, D, F, 1);
}

/* 16-bit: the gate/up GEMM writes its output in 16 bits, vla_glu16 reads
 * that and writes only the down GEMM's 16-bit operand, the down GEMM
 * accumulates into x. Against the composition (fp32 GEMM output, vla_glu
 * reading fp32 and writing fp32 and 16 bits) the GLU moves a third of the
 * bytes and the gate/up GEMM stores half: the prefix's GLU (816 x 16384)
 * was 2.4x its bandwidth time. Rounding gate and up to 16 bits before the
 * activation is what a 16-bit framework pass does (its linear layers write
 * 16 bits). In fp32, the GPU's reference precision, and without a BLAS
 * (the own GEMM kernel writes fp32): the composition. gu and hid, the fp32
 * scratch, are left unspecified. */
void vgpu_gated_mlp(void *ctx, const float *h, const float *gate_up, const float *down, float *gu,
                    float *hid, float *x, int T, int D, int F, enum vla_act a)
{
    struct vla_gpu *gp = ctx;
    if (vgpu_blocks16(gp) && T > 0 && F > 0) {
        enum gpu_dtype t = gp->dt;
        const void *A = vgpu_act_operand(gp, h, T, D, t, &gp->a16);
        const void *W1 = vgpu_weight16(gp, gate_up, 2 * F, D, &gp->wa16);
        void *gu16 = vgpu_scratch(gp, &gp->gu16, (size_t)T * 2 * F * 2);
        void *hid16 = vgpu_scratch(gp, &gp->glu16, (size_t)T * F * 2);
        vgpu_wrote(gp, gu, (size_t)T * 2 * F * sizeof(float));
        vgpu_wrote(gp, hid, (size_t)T * F * sizeof(float));
        vgpu_gemm16(gp, t, 0, 1, T, 2 * F, D, A, D, 0, W1, D, 0, gu16, 2 * F, 0, 1);
        int silu = a == VLA_ACT_SWIGLU, bf = t == GPU_BF16, vec = F % 8 == 0;
        uint64_t work = (uint64_t)T * F / (vec ? 8 : 1);
        LAUNCH(gp, K_vla_glu16, vgpu_grid_for(gp, work), &gu16, &hid16, &T, &F, &silu, &bf, &vec);
        const void *W2 = vgpu_weight16(gp, down, D, F, &gp->wb16);
        vgpu_wrote(gp, x, (size_t)T * D * sizeof(float));
        vgpu_gemm(gp, t, 0, 1, T, D, F, 1.0f, hid16, F, 0, W2, F, 0, 1.0f, x, D, 0, 1);
        return;
    }
    vgpu_matmul(gp, h, gate_up, NULL, gu, T, 2 * F, D, 0);
    vgpu_glu(gp, gu, gu + F, hid, T, F, 2 * F, a);
    vgpu_matmul(gp, hid, down, NULL, x, T, D, F, 1);
}

void vgpu_add(void *ctx, float *y, const float *x, size_t n)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, y, n * sizeof(float));
    float a = 1.0f;
    uint64_t nn = n;
    void *y16 = NULL;
    int bf = 0;
    LAUNCH(gp, K_vla_axpy, vgpu_grid_for(gp, nn), &y, &x, &a, &nn, &y16, &bf);
}

void vgpu_scale(void *ctx, float *x, size_t n, float s)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, x, n * sizeof(float));
    uint64_t nn = n;
    LAUNCH(gp, K_vla_scale, vgpu_grid_for(gp, nn), &x, &s, &nn);
}

/* y += a x; in 16-bit mode y's 16 bits go into the mirror of y's
 * allocation as well: the integrator state, which the next denoising step's
 * first GEMM reads across the stage boundary (no conversion kernel there) */
void vgpu_axpy(void *ctx, float *y, const float *x, float a, size_t n)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, y, n * sizeof(float));
    uint64_t nn = n;
    struct alloc_rec *r = vgpu_mirror_target(gp, y, n);
    void *y16 = r ? r->m16 + (y - r->p) : NULL;
    int bf = gp->dt == GPU_BF16;
    LAUNCH(gp, K_vla_axpy, vgpu_grid_for(gp, nn), &y, &x, &a, &nn, &y16, &bf);
    if (r && !gp->err)
        vla_spans_add(&r->valid, (size_t)(y - r->p), (size_t)(y - r->p) + n);
}

void vgpu_patchify(void *ctx, const float *img, float *out, int nimg, int S, int p, int g)
{
    struct vla_gpu *gp = ctx;
    uint64_t n = (uint64_t)nimg * g * g * 3 * p * p;
    vgpu_wrote(gp, out, n * sizeof(float));
    LAUNCH(gp, K_vla_patchify, vgpu_grid_for(gp, n), &img, &out, &nimg, &S, &p, &g);
}

void vgpu_pos_interp(void *ctx, const float *tab, int g0, float *out, int g1, int D)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, out, (size_t)g1 * g1 * D * sizeof(float));
    LAUNCH(gp, K_vla_pos_interp, vgpu_grid_for(gp, (uint64_t)g1 * g1 * D), &tab, &g0, &out, &g1,
           &D);
}

void vgpu_merge(void *ctx, const float *x, float *out, int g, int m, int D)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, out, (size_t)g * g * D * sizeof(float));
    LAUNCH(gp, K_vla_merge, vgpu_grid_for(gp, (uint64_t)g * g * D), &x, &out, &g, &m, &D);
}

void vgpu_embed(void *ctx, const float *table, const int32_t *tokens, float *out, int T, int D,
                float mul)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, out, (size_t)T * D * sizeof(float));
    int *dt = vgpu_scratch(gp, &gp->tok, (size_t)T * sizeof(int32_t));
    vgpu_h2d(gp, dt, tokens, (size_t)T * sizeof(int32_t));
    LAUNCH(gp, K_vla_embed, vgpu_grid_for(gp, (uint64_t)T * D), &table, &dt, &out, &T, &D, &mul);
}

void vgpu_concat_bcast(void *ctx, const float *a, int Da, const float *b, int Db, float *out, int T)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, out, (size_t)T * (Da + Db) * sizeof(float));
    LAUNCH(gp, K_vla_concat_bcast, vgpu_grid_for(gp, (uint64_t)T * (Da + Db)), &a, &Da, &b, &Db,
           &out, &T);
}

void vgpu_time_concat(void *ctx, const float *a, int Da, float *out, int T, int D, float t,
                      double min_p, double max_p)
{
    struct vla_gpu *gp = ctx;
    size_t n = (size_t)T * (Da + D);
    vgpu_wrote(gp, out, n * sizeof(float));
    void *y16 = vgpu_shadow_target(gp, SH_CAT, n);
    int bf = gp->dt == GPU_BF16;
    LAUNCH(gp, K_vla_time_concat, vgpu_grid_for(gp, n), &a, &Da, &out, &T, &D, &t, &min_p, &max_p,
           &y16, &bf);
    vgpu_shadow_set(gp, SH_CAT, out, n, y16);
}

void vgpu_time_embed(void *ctx, float *out, int D, float t, double min_p, double max_p)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, out, (size_t)D * sizeof(float));
    LAUNCH(gp, K_vla_time_embed, vgpu_grid_for(gp, (uint64_t)D / 2), &out, &D, &t, &min_p, &max_p);
}

void vgpu_moe_route(void *ctx, const float *logits, int T, int X, int k, enum vla_router r,
                    int *idx, float *wts)
{
    struct vla_gpu *gp = ctx;
    /* not used: moe_dense routes on the device */
    (void)logits, (void)T, (void)X, (void)k, (void)r, (void)idx, (void)wts;
    vgpu_fail_msg(gp, "moe_route called on the GPU backend");
}

void vgpu_gather_rows(void *ctx, const float *x, const int *rows, int n, int D, float *out)
{
    struct vla_gpu *gp = ctx;
    (void)x, (void)rows, (void)n, (void)D, (void)out;
    vgpu_fail_msg(gp, "gather_rows called on the GPU backend");
}

void vgpu_scatter_add_rows(void *ctx, const float *x, const int *rows, const float *w, int n, int D,
                           float *y)
{
    struct vla_gpu *gp = ctx;
    (void)x, (void)rows, (void)w, (void)n, (void)D, (void)y;
    vgpu_fail_msg(gp, "scatter_add_rows called on the GPU backend");
}

/* every expert on every token (the weights are read once either way: with
 * 50 tokens x top-4 nearly all 32 experts are hit), combined with dense
 * routing weights that are zero for experts not chosen */
void vgpu_moe_dense(void *ctx, const float *h, float *x, const float *router_w,
                    const float *gate_up_w, const float *down_w, int T, int D, int X, int k, int M,
                    enum vla_router r, enum vla_act a, float *logits)
{
    struct vla_gpu *gp = ctx;
    vgpu_matmul(gp, h, router_w, NULL, logits, T, X, D, 0);
    vgpu_wrote(gp, x, (size_t)T * D * sizeof(float));
    float *wd = vgpu_scratch(gp, &gp->moe_w, (size_t)T * X * sizeof(float));
    int sm = r == VLA_ROUTER_SOFTMAX;
    LAUNCH(gp, K_vla_moe_route, vgpu_grid_for(gp, (uint64_t)T), &logits, &T, &X, &k, &sm, &wd);
    float *gu = vgpu_scratch(gp, &gp->moe_gu, (size_t)X * T * 2 * M * sizeof(float));
    float *ac = vgpu_scratch(gp, &gp->moe_act, (size_t)X * T * M * sizeof(float));
    float *eo = vgpu_scratch(gp, &gp->moe_eo, (size_t)X * T * D * sizeof(float));
    enum gpu_dtype t;
    const void *Wg = vgpu_weight_operand(gp, gate_up_w, &t);
    const void *Wd = vgpu_weight_operand(gp, down_w, &t);
    const void *Ah = vgpu_act_operand(gp, h, T, D, t, &gp->a16);
    vgpu_gemm(gp, t, 0, 1, T, 2 * M, D, 1.0f, Ah, D, 0, Wg, D, (long long)2 * M * D, 0.0f, gu,
              2 * M, (long long)T * 2 * M, X);
    vgpu_glu(gp, gu, gu + M, ac, X * T, M, 2 * M, a);
    const void *Aa = vgpu_act_operand(gp, ac, X * T, M, t, &gp->a16);
    vgpu_gemm(gp, t, 0, 1, T, D, M, 1.0f, Aa, M, (long long)T * M, Wd, M, (long long)D * M, 0.0f,
              eo, D, (long long)T * D, X);
    LAUNCH(gp, K_vla_moe_combine, vgpu_grid_for(gp, (uint64_t)T * D), &eo, &wd, &T, &X, &D, &x);
}

void vgpu_denorm_clamp(void *ctx, const float *x, float *y, int T, int A, const float *mean,
                       const float *sd, const float *lo, const float *hi)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, y, (size_t)T * A * sizeof(float));
    LAUNCH(gp, K_vla_denorm_clamp, vgpu_grid_for(gp, (uint64_t)T * A), &x, &y, &T, &A, &mean, &sd,
           &lo, &hi);
}

float vgpu_max_abs(void *ctx, const float *x, size_t n, int *nonfinite)
{
    struct vla_gpu *gp = ctx;
    unsigned res[2] = {0, 0};
    unsigned *d = vgpu_scratch(gp, &gp->red, sizeof(res));
    uint64_t nn = n;
    vgpu_h2d(gp, d, res, sizeof(res));
    LAUNCH(gp, K_vla_max_abs, vgpu_grid_for(gp, nn), &x, &nn, &d);
    vgpu_d2h(gp, res, d, sizeof(res));
    vgpu_sync(gp);
    float m;
    memcpy(&m, &res[0], sizeof(m));
    if (nonfinite)
        *nonfinite = res[1] != 0 || gp->err;
    return m;
}
