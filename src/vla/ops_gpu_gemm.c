/* ops_gpu_gemm.c - GEMM dispatch: batch 1 through cuBLASLt where the backend
 * has it (tuned per shape, bias and GELU epilogues), else the backend's BLAS
 * (strided-batched GemmEx), else the project's tiled kernel (HIP has no
 * rocBLAS GEMM binding yet); 16-bit inputs with fp32 accumulation. Also the
 * matmul op, the GEMM and copy ceilings, and the soak's GEMM load. */
#include "ops_gpu_ctx.h"

/* batch 1 through cuBLASLt (tuned per shape, bias and GELU in the
 * epilogue), output of type ct; 0 when it ran, 1 when the caller runs its
 * own path (no Lt, switched off, or no algorithm for this shape, types or
 * epilogue) */
int vgpu_lt_ex(struct vla_gpu *gp, enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m,
               int n, int k, float alpha, const void *A, long lda, const void *B, long ldb,
               float beta, void *C, long ldc, const float *bias, enum gpu_lt_epi epi)
{
    if (!gp->b->blas_lt || gp->no_lt || gp->err)
        return 1;
    int e = gp->b->blas_lt(gp->b, t, ct, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, bias,
                           GPU_F32, epi, gp->s);
    if (e == GPU_LT_NO_ALGO && bias && ct != GPU_F32 && gp->arena16 && gp->arena16_dt == ct &&
        vgpu_in_arena(gp, bias)) /* the bias in the output's type (the arena's 16-bit copy) */
        e = gp->b->blas_lt(gp->b, t, ct, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                           gp->arena16 + (bias - gp->arena), ct, epi, gp->s);
    if (e == GPU_LT_NO_ALGO) {
        gp->lt_fallbacks++;
        return 1;
    }
    if (e)
        vgpu_fail(gp, "GEMM (cuBLASLt / hipBLASLt)");
    vgpu_prof_mark(gp, epi == GPU_LT_GELU ? "GEMM + bias + GELU (Lt BLAS)"
                       : m <= 64          ? "GEMM, M <= 64 (Lt BLAS)"
                                          : "GEMM, M > 64 (Lt BLAS)");
    return 0;
}

static int gemm_lt(struct vla_gpu *gp, enum gpu_dtype t, int ta, int tb, int m, int n, int k,
                   float alpha, const void *A, long lda, const void *B, long ldb, float beta,
                   float *C, long ldc, const float *bias)
{
    return vgpu_lt_ex(gp, t, GPU_F32, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, bias,
                      GPU_LT_PLAIN);
}

/* C_i = alpha op(A_i) op(B_i) + beta C_i (row-major), C of type ct (fp32, or
 * t through the BLAS only: the own kernel writes fp32); inputs of type t */
void vgpu_gemm_ct(struct vla_gpu *gp, enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m,
                  int n, int k, float alpha, const void *A, long lda, long long sA, const void *B,
                  long ldb, long long sB, float beta, void *C, long ldc, long long sC, int batch)
{
    if (gp->err || m <= 0 || n <= 0 || batch <= 0)
        return;
    if (ct != GPU_F32 && !gp->b->blas_gemm_ex) {
        vgpu_fail(gp, "a 16-bit GEMM output without a BLAS");
        return;
    }
    if (batch == 1 && !vgpu_skinny(gp, t, ct, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
        return;
    if (batch == 1 && !vgpu_lt_ex(gp, t, ct, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                  NULL, GPU_LT_PLAIN))
        return;
    if (gp->b->blas_gemm_ex) {
        if (gp->b->blas_gemm_ex(gp->b, t, ct, ta, tb, m, n, k, alpha, A, lda, sA, B, ldb, sB, beta,
                                C, ldc, sC, batch, gp->s))
            vgpu_fail(gp, "GEMM");
        vgpu_prof_mark(gp, batch > 1 ? "GEMM, batched (BLAS)"
                           : m <= 64 ? "GEMM, M <= 64 (BLAS)"
                                     : "GEMM, M > 64 (BLAS)");
        return;
    }
    unsigned grid = (unsigned)(((n + 15) / 16) * ((m + 15) / 16) * batch);
    int bf = t == GPU_BF16;
    LAUNCH(gp, t == GPU_F32 ? K_vla_gemm_f32 : K_vla_gemm_w16, grid, &ta, &tb, &m, &n, &k, &alpha,
           &A, &lda, &sA, &B, &ldb, &sB, &beta, &C, &ldc, &sC, &bf);
}

/* gemm_ct with an fp32 C */
void vgpu_gemm(struct vla_gpu *gp, enum gpu_dtype t, int ta, int tb, int m, int n, int k,
               float alpha, const void *A, long lda, long long sA, const void *B, long ldb,
               long long sB, float beta, float *C, long ldc, long long sC, int batch)
{
    vgpu_gemm_ct(gp, t, GPU_F32, ta, tb, m, n, k, alpha, A, lda, sA, B, ldb, sB, beta, C, ldc, sC,
                 batch);
}

/* as vgpu_gemm(), alpha 1 and beta 0, C of the inputs' 16-bit type t: the next
 * GEMM's operand written by this one (the callers check that there is a
 * BLAS: the project's kernel writes fp32) */
void vgpu_gemm16(struct vla_gpu *gp, enum gpu_dtype t, int ta, int tb, int m, int n, int k,
                 const void *A, long lda, long long sA, const void *B, long ldb, long long sB,
                 void *C, long ldc, long long sC, int batch)
{
    vgpu_gemm_ct(gp, t, t, ta, tb, m, n, k, 1.0f, A, lda, sA, B, ldb, sB, 0.0f, C, ldc, sC, batch);
}

/* the 16-bit blocks (attention_block, mlp_block) keep their intermediates
 * 16-bit: a BLAS writes 16-bit outputs (the project's kernel writes fp32) */
int vgpu_blocks16(struct vla_gpu *gp)
{
    return gp->dt != GPU_F32 && !gp->no_shadow && gp->b->blas_gemm_ex;
}

void vgpu_matmul(void *ctx, const float *x, const float *w, const float *bias, float *y, int M,
                 int N, int K, int accumulate)
{
    struct vla_gpu *gp = ctx;
    enum gpu_dtype t;
    const void *B = vgpu_weight_operand16(gp, w, N, K, &t);
    const void *A = vgpu_act_operand(gp, x, M, K, t, &gp->a16);
    vgpu_wrote(gp, y, (size_t)M * N * sizeof(float));
    float beta = accumulate ? 1.0f : 0.0f;
    if (bias && !gp->err && M > 0 && N > 0 &&
        !gemm_lt(gp, t, 0, 1, M, N, K, 1.0f, A, K, B, K, beta, y, N, bias))
        return;
    vgpu_gemm(gp, t, 0, 1, M, N, K, 1.0f, A, K, 0, B, K, 0, beta, y, N, 0, 1);
    if (bias)
        LAUNCH(gp, K_vla_bias, vgpu_grid_for(gp, (uint64_t)M * N), &y, &bias, &M, &N);
}

/* ceilings measured in the same run, for the roofline fractions: a large
 * GEMM of the current dtype through the same path as the pass, and a
 * device-to-device copy (read + write bytes) */
int vla_gpu_ceilings(struct vla_gpu *gp, double *gemm_flops, double *copy_bytes_s)
{
    struct gpu_backend *b = gp->b;
    int err0 = gp->err;
    *gemm_flops = *copy_bytes_s = 0;
    gpu_event e0, e1;
    if (b->event_create(b, &e0))
        return -1;
    if (b->event_create(b, &e1)) {
        b->event_destroy(b, e0);
        return -1;
    }
    const int n = 8192;
    size_t es = gp->dt == GPU_F32 ? 4 : 2;
    void *A = vgpu_dev_alloc(gp, (size_t)n * n * es), *B = vgpu_dev_alloc(gp, (size_t)n * n * es);
    float *C = vgpu_dev_alloc(gp, (size_t)n * n * 4);
    if (A && B && C && b->blas_gemm_ex) {
        b->memset(b, A, 0, (size_t)n * n * es);
        b->memset(b, B, 0, (size_t)n * n * es);
        vgpu_gemm(gp, gp->dt, 0, 1, n, n, n, 1.0f, A, n, 0, B, n, 0, 0.0f, C, n, 0, 1);
        b->event_record(b, e0, gp->s);
        for (int i = 0; i < 5; i++)
            vgpu_gemm(gp, gp->dt, 0, 1, n, n, n, 1.0f, A, n, 0, B, n, 0, 0.0f, C, n, 0, 1);
        b->event_record(b, e1, gp->s);
        float ms = 0;
        if (!b->event_sync(b, e1) && !b->event_elapsed_ms(b, &ms, e0, e1) && ms > 0)
            *gemm_flops = 5 * 2.0 * n * n * (double)n / (ms * 1e-3);
    }
    if (A && B) { /* copy A -> B: n*n*es bytes read and written */
        size_t bytes = (size_t)n * n * es;
        b->memcpy_async(b, B, A, bytes, GPU_D2D, gp->s);
        b->event_record(b, e0, gp->s);
        for (int i = 0; i < 5; i++)
            b->memcpy_async(b, B, A, bytes, GPU_D2D, gp->s);
        b->event_record(b, e1, gp->s);
        float ms = 0;
        if (!b->event_sync(b, e1) && !b->event_elapsed_ms(b, &ms, e0, e1) && ms > 0)
            *copy_bytes_s = 5 * 2.0 * (double)bytes / (ms * 1e-3);
    }
    b->stream_sync(b, gp->s);
    void *bufs[] = {A, B, C};
    for (int i = 0; i < 3; i++)
        if (bufs[i])
            b->free(b, bufs[i]);
    b->event_destroy(b, e0);
    b->event_destroy(b, e1);
    gp->err = err0; /* a failed ceiling is no failure of the pass */
    return 0;
}

/* the soak's load: reps GEMMs of n x n x n in the current dtype, through
 * the same GEMM path as the pass (the backend's BLAS, else the project's
 * kernel), on buffers kept until vla_gpu_close; 0 or -1 */
int vla_gpu_load_gemm(struct vla_gpu *gp, int n, int reps)
{
    struct gpu_backend *b = gp->b;
    size_t es = gp->dt == GPU_F32 ? 4 : 2;
    if (gp->load.n != n) {
        if (gp->load.A)
            b->free(b, gp->load.A), b->free(b, gp->load.B), b->free(b, gp->load.C);
        gp->load.A = vgpu_dev_alloc(gp, (size_t)n * n * es);
        gp->load.B = vgpu_dev_alloc(gp, (size_t)n * n * es);
        gp->load.C = vgpu_dev_alloc(gp, (size_t)n * n * 4);
        if (!gp->load.A || !gp->load.B || !gp->load.C)
            return -1;
        b->memset(b, gp->load.A, 0, (size_t)n * n * es);
        b->memset(b, gp->load.B, 0, (size_t)n * n * es);
        gp->load.n = n;
    }
    for (int i = 0; i < reps; i++)
        vgpu_gemm(gp, gp->dt, 0, 1, n, n, n, 1.0f, gp->load.A, n, 0, gp->load.B, n, 0, 0.0f,
                  gp->load.C, n, 0, 1);
    b->stream_sync(b, gp->s);
    return gp->err ? -1 : 0;
}
