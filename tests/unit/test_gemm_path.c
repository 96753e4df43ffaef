/* test_gemm_path.c - gpu_gemm()'s path selection (src/gpu/gemm.h) on the CPU
 * backend: a backend BLAS is used and named; without one the own kernel is
 * chosen (and, the CPU backend having no compiler, fails with the reason);
 * a backend announcing rocBLAS gets its blas_gemm called with the caller's
 * arguments. Also the VRAM telemetry's fallback chain (src/gpu/vram_tel.h)
 * on the CPU backend and with a missing rocm-smi library. */
/* layers: core gpu */
#include <stdlib.h>
#include <string.h>

#include "../../src/gpu/backend.h"
#include "../../src/gpu/gemm.h"
#include "../../src/gpu/vram_tel.h"
#include "test.h"

static void test_cpu_blas(void)
{
    struct gpu_backend *b = gpu_backend_cpu_open();
    struct gpu_gemm g;
    char *why = NULL;
    CHECK_STR(gpu_gemm_path(b), "CPU reference k_gemm");
    CHECK(gpu_gemm_init(&g, b, "cpu", &why) == 0 && why == NULL);
    CHECK(g.own == 0);
    CHECK_STR(g.path, "CPU reference k_gemm");
    CHECK(strstr(g.detail, "plain C loops") != NULL);
    /* 2x3 * 3x2 in each input type; values exact in fp16 and bf16 */
    const float af[6] = {1, 2, 3, -1, 0.5f, 4}, bf[6] = {2, -1, 0.25f, 3, 1, 1};
    const float want[4] = {1 * 2 + 2 * 0.25f + 3 * 1, 1 * -1 + 2 * 3 + 3 * 1,
                           -1 * 2 + 0.5f * 0.25f + 4 * 1, -1 * -1 + 0.5f * 3 + 4 * 1};
    uint16_t ah[6], bh[6], ab[6], bb[6];
    for (int i = 0; i < 6; i++) {
        ah[i] = gpu_float_to_half(af[i]);
        bh[i] = gpu_float_to_half(bf[i]);
        ab[i] = gpu_float_to_bf16(af[i]);
        bb[i] = gpu_float_to_bf16(bf[i]);
    }
    const void *in[3][2] = {{af, bf}, {ah, bh}, {ab, bb}}; /* by enum gpu_dtype */
    for (int t = GPU_F32; t <= GPU_BF16; t++) {
        float c[4] = {-7, -7, -7, -7};
        CHECK(gpu_gemm(&g, (enum gpu_dtype)t, 2, 2, 3, in[t][0], in[t][1], c, NULL) == 0);
        CHECK(memcmp(c, want, sizeof(c)) == 0);
    }
    free(why);
    gpu_backend_close(b);
}

static void test_own_kernel_chosen(void)
{
    struct gpu_backend *b = gpu_backend_cpu_open();
    b->blas_gemm = NULL;
    b->blas_api = NULL;
    snprintf(b->blas_err, sizeof(b->blas_err), "no rocBLAS: librocblas.so: not found");
    struct gpu_gemm g;
    char *why = NULL;
    CHECK_STR(gpu_gemm_path(b), GPU_GEMM_OWN);
    CHECK_STR(GPU_GEMM_OWN, "own kernel rvd_gemm (no BLAS)");
    /* the own kernel needs a compiler: the CPU backend has none */
    CHECK(gpu_gemm_init(&g, b, "cpu", &why) == -1);
    CHECK(g.own == 1);
    CHECK_STR(g.path, GPU_GEMM_OWN);
    CHECK(strstr(g.detail, "kernels/gemm.hip") && strstr(g.detail, "librocblas.so: not found"));
    CHECK(why && strstr(why, "compiler"));
    free(why);
    gpu_backend_close(b);
}

static int fake_calls, fake_m, fake_n, fake_k;
static enum gpu_dtype fake_t;
static int fake_rocblas(struct gpu_backend *b, enum gpu_dtype t, int m, int n, int k, const void *A,
                        const void *B, float *C, gpu_stream s)
{
    (void)b, (void)A, (void)B, (void)C, (void)s;
    fake_calls++;
    fake_t = t, fake_m = m, fake_n = n, fake_k = k;
    return 0;
}

static void test_named_blas(void)
{
    struct gpu_backend *b = gpu_backend_cpu_open();
    b->name = "hip";
    b->blas_gemm = fake_rocblas;
    b->blas_api = "rocBLAS rocblas_gemm_ex";
    snprintf(b->blas_lib, sizeof(b->blas_lib), "librocblas.so.4");
    struct gpu_gemm g;
    char *why = NULL;
    CHECK(gpu_gemm_init(&g, b, "gfx90a", &why) == 0);
    CHECK_STR(g.path, "rocBLAS rocblas_gemm_ex");
    CHECK_STR(g.detail, "librocblas.so.4");
    float c = 0;
    uint16_t a = 0, bb = 0;
    CHECK(gpu_gemm(&g, GPU_BF16, 5, 7, 9, &a, &bb, &c, NULL) == 0);
    CHECK(fake_calls == 1 && fake_t == GPU_BF16 && fake_m == 5 && fake_n == 7 && fake_k == 9);
    b->blas_api = NULL; /* a BLAS without a name is still used, and says so */
    CHECK_STR(gpu_gemm_path(b), "BLAS (unnamed)");
    free(why);
    b->name = "cpu";
    gpu_backend_close(b);
}

static void test_vram_tel(void)
{
    struct gpu_backend *b = gpu_backend_cpu_open();
    struct gpu_props p;
    b->props(b, 0, &p);
    struct vram_tel t;
    uint64_t used = 0;
    vram_tel_open(&t, b, &p); /* the CPU backend: no vendor library, no PCI address */
    CHECK(t.src == VRAM_SRC_RUNTIME);
    CHECK_STR(t.source, "runtime mem info");
    CHECK(t.vendor_lib[0] == '\0');
    CHECK(strstr(t.tried, "amdgpu sysfs: no PCI address") != NULL);
    CHECK(vram_tel_used(&t, &used) == 0 && used > 0);
    vram_tel_close(&t);

    /* a HIP backend whose rocm-smi cannot load: the reason, then the fallback */
    setenv("ROCM_VLA_DOCTOR_RSMI_LIB", "/nonexistent/librocm_smi64.so.1", 1);
    b->name = "hip";
    vram_tel_open(&t, b, &p);
    CHECK(t.src == VRAM_SRC_RUNTIME);
    CHECK(strncmp(t.vendor_init, "not loaded: ", 12) == 0);
    CHECK(strstr(t.tried, "rocm-smi: not loaded") != NULL);
    vram_tel_close(&t);
    /* no device (p NULL): only the vendor library is tried; nothing to read */
    vram_tel_open(&t, b, NULL);
    CHECK(t.src == VRAM_SRC_NONE && vram_tel_used(&t, &used) == -1);
    CHECK_STR(t.source, "none");
    vram_tel_close(&t);
    unsetenv("ROCM_VLA_DOCTOR_RSMI_LIB");
    b->name = "cpu";
    gpu_backend_close(b);
}

int main(void)
{
    test_cpu_blas();
    test_own_kernel_chosen();
    test_named_blas();
    test_vram_tel();
    return test_report();
}
