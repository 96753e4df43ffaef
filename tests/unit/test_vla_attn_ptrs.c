/* test_vla_attn_ptrs.c - the vision attention's GEMMs over cameras x heads
 * by pointer arrays (src/vla/attn_ptrs.c), on the CPU backend (its device
 * memory is host memory) with a host GEMM standing in for cuBLAS
 * cublasGemmBatchedEx / rocBLAS rocblas_gemm_batched_ex: every camera x
 * head's Q, K, V, S, P and O address in the uploaded arrays, the products
 * against a direct computation on odd shapes, the cache (a hit uploads
 * nothing, also while capturing; a moved buffer is a new entry), and each
 * fallback to the strided path: no such BLAS call, a miss while capturing,
 * the call failing. */
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/util.h"
#include "../../src/vla/attn_ptrs.h"
#include "test.h"

/* what the stand-in BLAS was last asked */
static struct {
    int calls, fail;
    int ta, tb, m, n, k, batch;
    long lda, ldb, ldc;
    enum gpu_dtype t, ct;
} fk;

static float in16(const void *p, long i)
{
    return gpu_bf16_to_float(((const uint16_t *)p)[i]);
}

/* row-major C_i = alpha op(A_i) op(B_i) + beta C_i over the arrays, bf16
 * inputs, C fp32 or bf16, as the vendor's call computes it */
static int host_gemm_ptrs(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int ta,
                          int tb, int m, int n, int k, float alpha, const void *const *A, long lda,
                          const void *const *B, long ldb, float beta, void *const *C, long ldc,
                          int batch, gpu_stream s)
{
    (void)s;
    fk.calls++;
    fk = (__typeof__(fk)){fk.calls, fk.fail, ta, tb, m, n, k, batch, lda, ldb, ldc, t, ct};
    if (fk.fail) {
        gpu_set_err(b, "cublasGemmBatchedEx: status 13");
        return 13;
    }
    for (int z = 0; z < batch; z++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double acc = 0;
                for (int l = 0; l < k; l++)
                    acc += (double)in16(A[z], ta ? (long)l * lda + i : (long)i * lda + l) *
                           in16(B[z], tb ? (long)j * ldb + l : (long)l * ldb + j);
                long at = (long)i * ldc + j;
                if (ct == GPU_F32)
                    ((float *)C[z])[at] = (float)(alpha * acc + beta * ((float *)C[z])[at]);
                else
                    ((uint16_t *)C[z])[at] = gpu_float_to_bf16((float)(alpha * acc));
            }
    return 0;
}

struct bufs {
    uint16_t *qkv, *P, *o16;
    float *S, *o32;
};

static void fill16(uint16_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = gpu_float_to_bf16((float)((seed >> 16) % 17) / 8.0f - 1.0f);
    }
}

/* the arrays point where attend16's strided calls read and write */
static void check_addresses(void *const *dev, const struct vla_attn_geom *g)
{
    int C = g->C, H = g->H, T = g->T, hd = g->hd, W = H * hd, CH = C * H, bad = 0;
    for (int c = 0; c < C; c++)
        for (int h = 0; h < H; h++) {
            int i = c * H + h;
            const uint16_t *q = (const uint16_t *)g->qkv16 + (size_t)c * T * 3 * W + h * hd;
            size_t o = (size_t)c * T * W + h * hd;
            void *want_o =
                g->ot == GPU_F32 ? (void *)((float *)g->out + o) : (void *)((uint16_t *)g->out + o);
            bad += dev[VLA_AP_Q * CH + i] != q;
            bad += dev[VLA_AP_K * CH + i] != q + W;
            bad += dev[VLA_AP_V * CH + i] != q + 2 * W;
            bad += dev[VLA_AP_S * CH + i] != g->S + (size_t)i * T * T;
            bad += dev[VLA_AP_P * CH + i] != (uint16_t *)g->P16 + (size_t)i * T * T;
            bad += dev[VLA_AP_O * CH + i] != want_o;
        }
    CHECK(bad == 0);
}

/* S and O against the sums written out from the [tokens, 3, heads, hd] rows */
static void check_products(const struct vla_attn_geom *g)
{
    int C = g->C, H = g->H, T = g->T, hd = g->hd, W = H * hd;
    const uint16_t *x = g->qkv16;
    int bad_s = 0, bad_o = 0;
    for (int c = 0; c < C; c++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                size_t qi = ((size_t)c * T + i) * 3 * W + h * hd;
                for (int j = 0; j < T; j++) {
                    size_t kj = ((size_t)c * T + j) * 3 * W + W + h * hd;
                    double s = 0;
                    for (int d = 0; d < hd; d++)
                        s += (double)in16(x, qi + d) * in16(x, kj + d);
                    bad_s += fabs(s - g->S[(((size_t)c * H + h) * T + i) * T + j]) > 1e-4;
                }
                for (int d = 0; d < hd; d++) {
                    double o = 0;
                    for (int j = 0; j < T; j++)
                        o += (double)in16(g->P16, (((size_t)c * H + h) * T + i) * T + j) *
                             in16(x, ((size_t)c * T + j) * 3 * W + 2 * W + h * hd + d);
                    size_t at = ((size_t)c * T + i) * W + h * hd + d;
                    double got = g->ot == GPU_F32 ? ((float *)g->out)[at] : in16(g->out, at);
                    /* a bf16 output: rounded once, half an ulp of 2^-8 */
                    bad_o += fabs(o - got) > (g->ot == GPU_F32 ? 1e-4 : 4e-3 * fmax(1, fabs(o)));
                }
            }
    CHECK(bad_s == 0);
    CHECK(bad_o == 0);
}

static void run_case(struct gpu_backend *b, int C, int T, int H, int hd, enum gpu_dtype ot)
{
    struct vla_attn_cache cache;
    memset(&cache, 0, sizeof(cache));
    int W = H * hd, CH = C * H;
    size_t TT = (size_t)T * T;
    uint16_t *qkv = calloc((size_t)C * T * 3 * W, 2), *P = calloc(CH * TT, 2);
    float *S = calloc(CH * TT, sizeof(float));
    void *out = calloc((size_t)C * T * W, ot == GPU_F32 ? 4 : 2);
    fill16(qkv, (size_t)C * T * 3 * W, 7u + (unsigned)T);
    fill16(P, CH * TT, 11u + (unsigned)C);
    struct vla_attn_geom g = {qkv, S, P, out, GPU_BF16, ot, C, T, H, hd};
    memset(&fk, 0, sizeof(fk));
    b->blas_gemm_ptrs = host_gemm_ptrs;

    /* scores: one call over every camera x head, the arrays uploaded once */
    CHECK(vla_attn_ptr_gemm(&cache, b, 0, VLA_AP_SCORES, &g, NULL) == 0);
    CHECK(fk.calls == 1 && fk.batch == CH && fk.m == T && fk.n == T && fk.k == hd);
    CHECK(fk.ta == 0 && fk.tb == 1 && fk.lda == 3 * W && fk.ldb == 3 * W && fk.ldc == T);
    CHECK(fk.t == GPU_BF16 && fk.ct == GPU_F32);
    CHECK(cache.n == 1 && cache.uploads == 1 && cache.e[0].dev != NULL);
    if (cache.n == 1 && cache.e[0].dev)
        check_addresses(cache.e[0].dev, &g);
    /* P V, from the same entry, while capturing: a hit uploads nothing */
    CHECK(vla_attn_ptr_gemm(&cache, b, 1, VLA_AP_PV, &g, NULL) == 0);
    CHECK(fk.calls == 2 && fk.batch == CH && fk.m == T && fk.n == hd && fk.k == T);
    CHECK(fk.ta == 0 && fk.tb == 0 && fk.lda == T && fk.ldb == 3 * W && fk.ldc == W);
    CHECK(fk.ct == ot);
    CHECK(cache.uploads == 1 && cache.calls == 2 && cache.fallbacks == 0 && cache.e[0].pinned);
    check_products(&g);

    /* a buffer that moved (scratch grew) while capturing: nothing uploads,
     * nothing runs, the caller falls back */
    void *out2 = calloc((size_t)C * T * W, ot == GPU_F32 ? 4 : 2);
    struct vla_attn_geom g2 = g;
    g2.out = out2;
    CHECK(vla_attn_ptr_gemm(&cache, b, 1, VLA_AP_PV, &g2, NULL) != 0);
    CHECK(fk.calls == 2 && cache.uploads == 1 && cache.fallbacks == 1);
    CHECK(strstr(cache.why, "graph capture") != NULL);
    /* outside a capture the moved buffer gets its own arrays */
    CHECK(vla_attn_ptr_gemm(&cache, b, 0, VLA_AP_PV, &g2, NULL) == 0);
    CHECK(cache.n == 2 && cache.uploads == 2 && !cache.e[1].pinned);
    if (cache.n == 2)
        check_addresses(cache.e[1].dev, &g2);

    /* the call failing: nonzero, the BLAS's message kept */
    fk.fail = 1;
    CHECK(vla_attn_ptr_gemm(&cache, b, 0, VLA_AP_SCORES, &g, NULL) == 13);
    CHECK(cache.fallbacks == 2 && strstr(cache.why, "status 13") != NULL);
    fk.fail = 0;

    /* no pointer-array call in the BLAS: nothing built, nothing runs */
    b->blas_gemm_ptrs = NULL;
    struct vla_attn_cache empty;
    memset(&empty, 0, sizeof(empty));
    CHECK(vla_attn_ptr_gemm(&empty, b, 0, VLA_AP_SCORES, &g, NULL) != 0);
    CHECK(empty.n == 0 && empty.uploads == 0 && empty.fallbacks == 1);
    CHECK(strstr(empty.why, "no pointer-array") != NULL);

    vla_attn_cache_free(&cache, b);
    CHECK(cache.n == 0);
    free(qkv), free(P), free(S), free(out), free(out2);
}

/* entries a graph read are never reused; the others are once the cache is full */
static void test_full(struct gpu_backend *b)
{
    struct vla_attn_cache cache;
    memset(&cache, 0, sizeof(cache));
    static uint16_t qkv[2 * 3 * 3 * 4], P[2 * 9], o[2 * 3 * 4 + 1];
    static float S[2 * 9 + 1];
    b->blas_gemm_ptrs = host_gemm_ptrs;
    for (int i = 0; i < VLA_AP_CACHE; i++) { /* every entry pinned by a capture */
        struct vla_attn_geom g = {qkv, S, P, o + (i & 1), GPU_BF16, GPU_BF16, 2, 3, 1, 4};
        g.T = 3 - (i >> 1) % 2, g.hd = 4 - (i >> 2) % 4, g.S = S + (i >> 4);
        CHECK(vla_attn_ptr_gemm(&cache, b, 0, VLA_AP_SCORES, &g, NULL) == 0);
        CHECK(vla_attn_ptr_gemm(&cache, b, 1, VLA_AP_SCORES, &g, NULL) == 0);
    }
    CHECK(cache.n == VLA_AP_CACHE && cache.uploads == VLA_AP_CACHE);
    struct vla_attn_geom g = {qkv, S, P, o, GPU_BF16, GPU_F32, 2, 3, 1, 4};
    CHECK(vla_attn_ptr_gemm(&cache, b, 0, VLA_AP_SCORES, &g, NULL) != 0);
    CHECK(strstr(cache.why, "held by graphs") != NULL);
    cache.e[5].pinned = 0; /* say that graph was never captured */
    CHECK(vla_attn_ptr_gemm(&cache, b, 0, VLA_AP_SCORES, &g, NULL) == 0);
    CHECK(cache.e[5].g.ot == GPU_F32 && cache.uploads == VLA_AP_CACHE + 1);
    vla_attn_cache_free(&cache, b);
}

/* row-major C_z = op(A_z) op(B_z) through b->blas_gemm_ptrs, against loops */
static void check_binding_gemm(struct gpu_backend *b, int tb, enum gpu_dtype ct)
{
    enum { M = 3, N = 5, K = 4, Z = 2, LD = 7 };
    static uint16_t A[Z][M * LD], B[Z][N * LD];
    static float C32[Z][M * LD];
    static uint16_t C16[Z][M * LD];
    for (int z = 0; z < Z; z++) {
        for (int i = 0; i < M * LD; i++)
            A[z][i] = gpu_float_to_bf16((float)((i * 3 + z) % 7 - 3));
        for (int i = 0; i < N * LD; i++)
            B[z][i] = gpu_float_to_bf16((float)((i * 5 + z) % 9 - 4));
    }
    const void *Ap[Z] = {A[0], A[1]}, *Bp[Z] = {B[0], B[1]};
    void *Cp[Z] = {ct == GPU_F32 ? (void *)C32[0] : C16[0],
                   ct == GPU_F32 ? (void *)C32[1] : C16[1]};
    CHECK(b->blas_gemm_ptrs(b, GPU_BF16, ct, 0, tb, M, N, K, 1.0f, Ap, LD, Bp, LD, 0.0f, Cp, LD, Z,
                            NULL) == 0);
    int bad = 0;
    for (int z = 0; z < Z; z++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float s = 0;
                for (int l = 0; l < K; l++)
                    s += in16(A[z], i * LD + l) * in16(B[z], tb ? j * LD + l : l * LD + j);
                float got = ct == GPU_F32 ? C32[z][i * LD + j] : in16(C16[z], i * LD + j);
                bad += got != s;
            }
    CHECK(bad == 0);
}

static struct gpu_backend *open_hip(const char *dir, const char *blas)
{
    char lib[1024];
    snprintf(lib, sizeof(lib), "%s/fake/%s", dir, blas);
    setenv("ROCM_VLA_DOCTOR_ROCBLAS_LIB", lib, 1);
    char *why = NULL;
    struct gpu_backend *b = gpu_backend_open(GPU_BACKEND_HIP, &why);
    if (!b)
        fprintf(stderr, "HIP backend on the fakes: %s\n", why ? why : "?");
    free(why);
    return b;
}

static void test_hip_binding(const char *dir)
{
    char lib[1024];
    snprintf(lib, sizeof(lib), "%s/fake/libamdhip64.so", dir);
    setenv("ROCM_VLA_DOCTOR_HIP_LIB", lib, 1);
    snprintf(lib, sizeof(lib), "%s/fake/libhsa-runtime64.so", dir);
    setenv("ROCM_VLA_DOCTOR_HSA_LIB", lib, 1);
    unsetenv("ROCM_VLA_DOCTOR_NO_BLAS");
    unsetenv("FAKE_ROCBLAS_STATUS");
    struct gpu_backend *b = open_hip(dir, "librocblas.so");
    CHECK(b != NULL && b->blas_gemm_ptrs != NULL);
    if (b && b->blas_gemm_ptrs) {
        check_binding_gemm(b, 1, GPU_F32);  /* the scores: K read transposed */
        check_binding_gemm(b, 0, GPU_BF16); /* P V into the 16-bit operand */
        setenv("FAKE_ROCBLAS_STATUS", "3", 1);
        const void *A[1] = {lib}, *B[1] = {lib};
        void *C[1] = {lib};
        CHECK(b->blas_gemm_ptrs(b, GPU_BF16, GPU_F32, 0, 1, 1, 1, 1, 1.0f, A, 1, B, 1, 0.0f, C, 1,
                                1, NULL) == 3);
        CHECK(strstr(b->err, "rocblas_gemm_batched_ex: status 3") != NULL);
        unsetenv("FAKE_ROCBLAS_STATUS");
    }
    if (b)
        gpu_backend_close(b);
    b = open_hip(dir, "librocblas_nobatch.so");
    CHECK(b != NULL && b->blas_gemm_ex != NULL && b->blas_gemm_ptrs == NULL);
    if (b)
        gpu_backend_close(b);
    setenv("ROCM_VLA_DOCTOR_NO_BLAS", "1", 1);
    b = open_hip(dir, "librocblas.so");
    CHECK(b != NULL && b->blas_gemm_ex == NULL && b->blas_gemm_ptrs == NULL);
    if (b)
        gpu_backend_close(b);
    unsetenv("ROCM_VLA_DOCTOR_NO_BLAS");
    unsetenv("ROCM_VLA_DOCTOR_ROCBLAS_LIB");
}

int main(int argc, char **argv)
{
    (void)argc;
    struct gpu_backend *b = gpu_backend_cpu_open();
    CHECK(b != NULL);
    if (!b)
        return test_report();
    run_case(b, 3, 7, 2, 36, GPU_BF16); /* kernel-test shapes: odd T, 2 and 3 cameras */
    run_case(b, 2, 37, 3, 8, GPU_F32);
    run_case(b, 3, 5, 1, 4, GPU_F32); /* one head: the arrays step by camera only */
    test_full(b);
    gpu_backend_close(b);
    /* the fake libraries sit next to this binary: <build>/tests/fake/ */
    char *self = xstrdup(argv[0]);
    test_hip_binding(dirname(self));
    free(self);
    return test_report();
}
