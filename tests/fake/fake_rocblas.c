/* fake_rocblas.c - a fake librocblas for the HIP backend's binding of
 * rocblas_gemm_batched_ex (backend.h blas_gemm_ptrs; tests/unit/
 * test_vla_attn_ptrs.c): the handle and stream calls succeed, gemm_ex and
 * the strided call run nothing, and rocblas_gemm_batched_ex computes on the
 * host, column-major as rocBLAS defines it, with the pointer arrays read as
 * host memory (bf16 or fp32 inputs, C and D the same). FAKE_ROCBLAS_STATUS
 * set: that status is returned and nothing runs (a library that refuses).
 * Built with -DNO_BATCHED: a rocBLAS without the batched call. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void *handle_t;
enum { OP_N = 111, F32 = 151, BF16 = 168 };

int rocblas_create_handle(handle_t *h);
int rocblas_create_handle(handle_t *h)
{
    *h = (handle_t)0x1;
    return 0;
}
int rocblas_destroy_handle(handle_t h);
int rocblas_destroy_handle(handle_t h)
{
    (void)h;
    return 0;
}
int rocblas_set_stream(handle_t h, void *s);
int rocblas_set_stream(handle_t h, void *s)
{
    (void)h, (void)s;
    return 0;
}
int rocblas_gemm_ex(void);
int rocblas_gemm_ex(void)
{
    return 0;
}
int rocblas_gemm_strided_batched_ex(void);
int rocblas_gemm_strided_batched_ex(void)
{
    return 0;
}
const char *rocblas_status_to_string(int s);
const char *rocblas_status_to_string(int s)
{
    return s == 3 ? "rocblas_status_not_implemented" : "fake status";
}

#ifndef NO_BATCHED
static float get(const void *p, unsigned type, long i)
{
    if (type == F32)
        return ((const float *)p)[i];
    uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

int rocblas_gemm_batched_ex(handle_t h, unsigned ta, unsigned tb, int m, int n, int k,
                            const void *alpha, const void *a, unsigned at, int lda, const void *b,
                            unsigned bt, int ldb, const void *beta, const void *c, unsigned ct,
                            int ldc, void *d, unsigned dt, int ldd, int batch, unsigned compute,
                            unsigned algo, int32_t sol, uint32_t flags);
int rocblas_gemm_batched_ex(handle_t h, unsigned ta, unsigned tb, int m, int n, int k,
                            const void *alpha, const void *a, unsigned at, int lda, const void *b,
                            unsigned bt, int ldb, const void *beta, const void *c, unsigned ct,
                            int ldc, void *d, unsigned dt, int ldd, int batch, unsigned compute,
                            unsigned algo, int32_t sol, uint32_t flags)
{
    (void)h, (void)algo, (void)sol, (void)flags;
    const char *st = getenv("FAKE_ROCBLAS_STATUS");
    if (st && *st)
        return atoi(st);
    if (c != d || ct != dt || ldc != ldd || compute != F32 || (ct != F32 && ct != BF16))
        return 3;
    const void *const *A = a, *const *B = b;
    void *const *D = d;
    float al = *(const float *)alpha, be = *(const float *)beta;
    for (int z = 0; z < batch; z++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                float s = 0;
                for (int l = 0; l < k; l++)
                    s += get(A[z], at, ta == OP_N ? i + (long)l * lda : l + (long)i * lda) *
                         get(B[z], bt, tb == OP_N ? l + (long)j * ldb : j + (long)l * ldb);
                long o = i + (long)j * ldd;
                if (dt == F32) {
                    float *y = D[z];
                    y[o] = al * s + (be != 0 ? be * y[o] : 0);
                } else { /* truncation is enough: the test's values are exact */
                    float v = al * s;
                    uint32_t u;
                    memcpy(&u, &v, 4);
                    ((uint16_t *)D[z])[o] = (uint16_t)(u >> 16);
                }
            }
    return 0;
}
#endif
