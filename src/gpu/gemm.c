/* gemm.c - see gemm.h. */
#include "gemm.h"

#include <stdio.h>
#include <string.h>

#include "kcache.h"

const char *gpu_gemm_path(const struct gpu_backend *b)
{
    if (!b->blas_gemm)
        return GPU_GEMM_OWN;
    return b->blas_api ? b->blas_api : "BLAS (unnamed)";
}

void gpu_gemm_detail(const struct gpu_backend *b, char *buf, size_t len)
{
    if (b->blas_gemm)
        snprintf(buf, len, "%s", b->blas_lib[0] ? b->blas_lib : "(library not recorded)");
    else
        snprintf(buf, len, "kernels/gemm.hip, 16x16 tiles, fp32 FMA; no BLAS: %s",
                 b->blas_err[0] ? b->blas_err : "none bound by this backend");
}

int gpu_gemm_init(struct gpu_gemm *g, struct gpu_backend *b, const char *target, char **why)
{
    memset(g, 0, sizeof(*g));
    g->b = b;
    g->path = gpu_gemm_path(b);
    gpu_gemm_detail(b, g->detail, sizeof(g->detail));
    *why = NULL;
    if (b->blas_gemm)
        return 0;
    g->own = 1;
    if (gpu_kernel_load(b, "gemm", target, &g->mod, why))
        return -1;
    static const char *const names[] = {"rvd_gemm_f32", "rvd_gemm_f16", "rvd_gemm_bf16"};
    for (int i = 0; i < 3; i++)
        if (b->function(b, g->mod, names[i], &g->fn[i])) {
            *why = xasprintf("%s: %s", names[i], b->err);
            return -1;
        }
    return 0;
}

int gpu_gemm(struct gpu_gemm *g, enum gpu_dtype t, int m, int n, int k, const void *A,
             const void *B, float *C, gpu_stream s)
{
    struct gpu_backend *b = g->b;
    if (!g->own)
        return b->blas_gemm(b, t, m, n, k, A, B, C, s);
    /* kernels/gemm.hip: 256 threads, one 16x16 output tile per block */
    unsigned grid = (unsigned)(((n + 15) / 16) * ((m + 15) / 16));
    void *args[] = {&A, &B, &C, &m, &n, &k};
    return b->launch(b, g->fn[t], grid, 256, 0, s, args);
}
