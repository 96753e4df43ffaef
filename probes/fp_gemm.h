/* fp_gemm.h - the GEMM the numerics probes measure: the backend's BLAS
 * (cuBLAS cublasGemmEx / rocBLAS when bound) when it has one, else the
 * project's own kernel (kernels/gemm.hip), and a name saying which. */
#ifndef RVD_FP_GEMM_H
#define RVD_FP_GEMM_H

#include "../src/gpu/backend.h"

struct fp_gemm {
    struct gpu_backend *b;
    gpu_module mod;
    gpu_function fn[3]; /* by enum gpu_dtype, own kernel only */
    char which[600];    /* "cuBLAS cublasGemmEx (libcublas.so.12)" / "own kernel ..." */
};

/* 0, or -1 with *why (malloc'd) */
int fp_gemm_init(struct fp_gemm *g, struct gpu_backend *b, const char *target, char **why);
/* C[m x n] fp32 = A[m x k] B[k x n], row-major device pointers, inputs of
 * type t, fp32 accumulation; 0 or the backend's error (text in b->err) */
int fp_gemm_run(struct fp_gemm *g, enum gpu_dtype t, int m, int n, int k, const void *A,
                const void *B, float *C, gpu_stream s);

#endif
