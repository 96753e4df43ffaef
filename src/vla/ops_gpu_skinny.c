/* ops_gpu_skinny.c - the step's weight GEMMs (M <= 64 rows, 16-bit inputs)
 * through the project's split-K weight-streaming kernel (kernels/vla_ops.hip
 * vla_gemm_skinny_*) instead of cuBLASLt: a denoising step's ~76 GEMMs of
 * 50 rows each spend their time streaming weights, which cuBLASLt's small-M
 * algorithms did at 20-50 % of copy bandwidth (about 10 us a GEMM for 2-5
 * us of bytes). Where it is switched on and the call fits (below), one
 * launch per GEMM; else the caller's path. ROCM_VLA_DOCTOR_SKINNY=1 / 0 sets
 * the switch (vla_gpu_set_skinny for the kernel tests' A/B);
 * ROCM_VLA_DOCTOR_SKINNY_CTAS=N the blocks per SM the splits aim at (the
 * A/B's tuning knob, default 2). */
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ops_gpu_ctx.h"

#define SK_BN 64 /* a block's weight rows (VLA_SK_BN) */
#define SK_BK 64 /* a pipeline stage's k (VLA_SK_BK) */
#define SK_THREADS 128
#define SK_MAX_TILES 4096 /* the counters: N up to 262144 */

void vgpu_skinny_init(struct vla_gpu *gp)
{
    const char *e = getenv("ROCM_VLA_DOCTOR_SKINNY");
    gp->skinny_on = e && *e ? strcmp(e, "0") != 0 : VGPU_SKINNY_DEFAULT;
    const char *c = getenv("ROCM_VLA_DOCTOR_SKINNY_CTAS");
    char *end = NULL;
    long n = c && *c ? strtol(c, &end, 10) : 2;
    if (c && *c && (*end || n < 1 || n > 16)) {
        warning("ROCM_VLA_DOCTOR_SKINNY_CTAS=%s is not a whole number from 1 to 16: using 2", c);
        n = 2;
    }
    gp->skinny_ctas = (int)n;
}

/* splits of K (in SK_BK steps) so that tiles x splits is about the blocks
 * the device runs at once (sms x ctas); each split keeps at least two
 * stages of work, and no split is empty */
int vgpu_skinny_plan(int sms, int ctas, int n, int k, int *tiles, int *kslice)
{
    int t = (n + SK_BN - 1) / SK_BN, kb = (k + SK_BK - 1) / SK_BK;
    int want = (sms * ctas + t / 2) / t, most = kb / 2 > 0 ? kb / 2 : 1;
    int s = want < 1 ? 1 : want > most ? most : want;
    int per = (kb + s - 1) / s; /* stages a split */
    *tiles = t;
    *kslice = per * SK_BK;
    return (kb + per - 1) / per;
}

int vgpu_skinny(struct vla_gpu *gp, enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m,
                int n, int k, float alpha, const void *A, long lda, const void *B, long ldb,
                float beta, void *C, long ldc)
{
    if (!gp->skinny_on || !gp->flash_hw || gp->err || t == GPU_F32 || ta || !tb || m > 64 ||
        m < 1 || alpha != 1.0f || k % 8 || lda % 8 || ldb % 8 || (uintptr_t)A % 16 ||
        (uintptr_t)B % 16 || (ct != GPU_F32 && (ct != t || beta != 0.0f)))
        return 1;
    int tiles = 0, kslice = 0;
    int splits = vgpu_skinny_plan(gp->gridmax / 16, gp->skinny_ctas, n, k, &tiles, &kslice);
    if (tiles > SK_MAX_TILES)
        return 1;
    float *ws = NULL;
    unsigned *cnt = NULL;
    if (splits > 1) {
        ws = vgpu_scratch(gp, &gp->sk_ws, (size_t)splits * m * n * sizeof(float));
        if (!gp->sk_cnt.p) { /* zeroed once: every launch leaves its counters at 0 */
            if (!vgpu_scratch(gp, &gp->sk_cnt, SK_MAX_TILES * sizeof(unsigned)) ||
                gp->b->memset(gp->b, gp->sk_cnt.p, 0, gp->sk_cnt.cap)) {
                vgpu_fail(gp, "the split-K GEMM's counters");
                return 0;
            }
        }
        cnt = gp->sk_cnt.p;
        if (gp->err || !ws)
            return 0;
    }
    int out16 = ct != GPU_F32;
    void *args[] = {&A, &lda, &B, &ldb, &m, &n, &k, &kslice, &beta, &C, &ldc, &out16, &ws, &cnt};
    vgpu_launch_b(gp, t == GPU_BF16 ? K_vla_gemm_skinny_bf : K_vla_gemm_skinny_h,
                  (unsigned)(tiles * splits), SK_THREADS, 0, args);
    gp->skinny_calls++;
    return 0;
}

int vla_gpu_set_skinny(struct vla_gpu *gp, int on)
{
    if (!gp->flash_hw) /* no kernel here: the switch keeps its state */
        return -1;
    gp->skinny_on = on;
    return 0;
}

const char *vla_gpu_skinny(struct vla_gpu *gp, long long *calls)
{
    *calls = gp->skinny_calls;
    if (!gp->flash_hw)
        return "the split-K small-M GEMM needs cp.async, ldmatrix and mma.sync (CUDA sm_80 or "
               "newer); this target runs its Lt BLAS / BLAS GEMMs";
    if (!gp->skinny_on)
        return "off (ROCM_VLA_DOCTOR_SKINNY=0, the default, or the kernel tests' A/B)";
    return NULL;
}
