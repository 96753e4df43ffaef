/* fp_gemm.c - see fp_gemm.h. */
#include "fp_gemm.h"

#include <stdio.h>
#include <string.h>

#include "../src/gpu/kcache.h"

int fp_gemm_init(struct fp_gemm *g, struct gpu_backend *b, const char *target, char **why)
{
    memset(g, 0, sizeof(*g));
    g->b = b;
    *why = NULL;
    if (b->blas_gemm) {
        const char *kind = strstr(b->blas_lib, "cublas")      ? "cuBLAS cublasGemmEx"
                           : strstr(b->blas_lib, "hipblaslt") ? "hipBLASLt"
                           : strstr(b->blas_lib, "rocblas")   ? "rocBLAS"
                                                              : "BLAS";
        snprintf(g->which, sizeof(g->which), "%s (%s)", kind, b->blas_lib);
        return 0;
    }
    if (gpu_kernel_load(b, "gemm", target, &g->mod, why))
        return -1;
    static const char *const names[] = {"rvd_gemm_f32", "rvd_gemm_f16", "rvd_gemm_bf16"};
    for (int i = 0; i < 3; i++)
        if (b->function(b, g->mod, names[i], &g->fn[i])) {
            *why = xasprintf("%s: %s", names[i], b->err);
            return -1;
        }
    snprintf(g->which, sizeof(g->which),
             "own kernel (kernels/gemm.hip, 16x16 tiles, fp32 FMA): no BLAS bound");
    return 0;
}

int fp_gemm_run(struct fp_gemm *g, enum gpu_dtype t, int m, int n, int k, const void *A,
                const void *B, float *C, gpu_stream s)
{
    struct gpu_backend *b = g->b;
    if (b->blas_gemm)
        return b->blas_gemm(b, t, m, n, k, A, B, C, s);
    unsigned grid = (unsigned)(((n + 15) / 16) * ((m + 15) / 16));
    void *args[] = {&A, &B, &C, &m, &n, &k};
    return b->launch(b, g->fn[t], grid, 256, 0, s, args);
}
