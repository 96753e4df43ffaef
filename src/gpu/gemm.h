/* gemm.h - the one GEMM every GPU probe calls: the backend's BLAS when it has
 * one (cuBLAS cublasGemmEx, rocBLAS rocblas_gemm_ex, the CPU reference loops),
 * else the project's own kernel (kernels/gemm.hip, compiled through the
 * kernel cache), and a name saying which path runs. ROCM_VLA_DOCTOR_NO_BLAS=1
 * (backend.c) removes the BLAS, so the own kernel can be tested anywhere.
 *
 *     struct gpu_gemm g;
 *     if (gpu_gemm_init(&g, b, target, &why)) { ...g.path says what failed... }
 *     gpu_gemm(&g, GPU_F16, m, n, k, dA, dB, dC, stream);  // fact: g.path
 */
#ifndef RVD_GPU_GEMM_H
#define RVD_GPU_GEMM_H

#include "backend.h"

#define GPU_GEMM_OWN "own kernel rvd_gemm (no BLAS)"

struct gpu_gemm {
    struct gpu_backend *b;
    gpu_module mod;
    gpu_function fn[3]; /* by enum gpu_dtype, own kernel only */
    int own;            /* 1: the own kernel runs */
    const char *path;   /* "cuBLAS cublasGemmEx" / "rocBLAS rocblas_gemm_ex" / GPU_GEMM_OWN */
    char detail[600];   /* the BLAS library, or why none is used */
};

/* the path gpu_gemm_init would pick for b (no compilation, no device) */
const char *gpu_gemm_path(const struct gpu_backend *b);
/* the library used, or why there is none, into buf */
void gpu_gemm_detail(const struct gpu_backend *b, char *buf, size_t len);

/* pick the path; for the own kernel, compile (or load from the cache)
 * kernels/gemm.hip for target. 0, or -1 with *why (malloc'd); g->path and
 * g->detail are set either way. */
int gpu_gemm_init(struct gpu_gemm *g, struct gpu_backend *b, const char *target, char **why);
/* C[m x n] fp32 = A[m x k] B[k x n], row-major device pointers, inputs of
 * type t, fp32 accumulation; 0 or the backend's error (text in b->err) */
int gpu_gemm(struct gpu_gemm *g, enum gpu_dtype t, int m, int n, int k, const void *A,
             const void *B, float *C, gpu_stream s);

#endif
