/* test_blaslt_hip.c - the HIP backend's hipBLASLt binding (src/gpu/
 * blaslt_hip.c through blaslt.c, wired as backend_hip.c's blas_lt) against a
 * fake libhipblaslt (tests/fake/fake_hipblaslt.c) that logs its calls, with
 * the fake libamdhip64, libhsa-runtime64 and librocblas: the call sequence of
 * one GEMM with bias and GELU in hipBLASLt's own attribute numbers (create,
 * preference, matmul descriptor, layouts, preference attribute, heuristic,
 * matmul, and every object destroyed at close); and each call failing in
 * turn: at open (the library absent, hipblasLtCreate, the preference,
 * ROCM_VLA_DOCTOR_NO_BLASLT, ROCM_VLA_DOCTOR_NO_BLAS)
 * blas_lt is NULL with the reason in blas_lt_err and the runtime.hip.blaslt
 * text while rocBLAS stays bound; during a GEMM (descriptor, an attribute, a
 * layout, the preference, the heuristic, no algorithm, the matmul itself)
 * GPU_LT_NO_ALGO with nothing run and the reason in blas_lt_note, a refused
 * plan not asked again, and rocBLAS's GEMM still answering. Every case
 * closes with no library object left (fake_hipblaslt.live) and, under ASan,
 * no leak of ours. */
/* layers: core gpu */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/gpu/backend.h"
#include "../../src/gpu/gpu_trace.h"
#include "test.h"

struct fake_hipblaslt {
    char log[4096];
    int live, matmuls;
};
static struct fake_hipblaslt *fk;
static char dir[1024];

static struct gpu_backend *open_hip(void)
{
    if (fk) /* from the previous case, which closed with nothing live */
        memset(fk, 0, sizeof(*fk));
    char *why = NULL;
    struct gpu_backend *b = gpu_backend_open(GPU_BACKEND_HIP, &why);
    if (!b)
        fprintf(stderr, "HIP backend on the fakes: %s\n", why ? why : "?");
    free(why);
    if (!fk) {
        char lib[1100];
        snprintf(lib, sizeof(lib), "%s/fake/libhipblaslt.so", dir);
        void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
        fk = h ? dlsym(h, "fake_hipblaslt") : NULL; /* loaded by this open: fresh */
    }
    return b;
}

/* operands are never read (the fakes run nothing): distinct addresses */
static float A[64], B[64], C[64], bias[8];

static int gemm(struct gpu_backend *b, int m, int epi)
{
    return b->blas_lt(b, GPU_BF16, GPU_BF16, 0, 1, m, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8, bias,
                      GPU_F32, epi, NULL);
}

static void test_sequence(void)
{
    struct gpu_backend *b = open_hip();
    CHECK(b && b->blas_lt && fk);
    if (!b || !b->blas_lt || !fk) {
        gpu_backend_close(b);
        return;
    }
    CHECK(strstr(b->blas_lt_lib, "fake/libhipblaslt.so") != NULL);
    CHECK_STR(b->extra_lib, b->blas_lt_lib); /* runtime.hip.blaslt: the library bound */
    CHECK(b->blas_lt_err[0] == '\0');
    CHECK(fk->live == 2); /* the handle and the preference */
    fk->log[0] = '\0';
    /* C = GELU(A B^T + bias): the library's A is our B^T (TRANSA 0 = OP_T
     * 112), its B our A (TRANSB 1 = OP_N 111), EPILOGUE 2 = GELU_BIAS 36,
     * BIAS_DATA_TYPE 4 = HIP_R_32F 0, then the bias pointer (3) and only the
     * workspace preference (1: hipBLASLt has no alignment preference) */
    CHECK(gemm(b, 4, GPU_LT_GELU) == 0);
    CHECK_STR(fk->log, "MatmulDescCreate DescSet:0=112 DescSet:1=111 DescSet:2=36 DescSet:4=0 "
                       "MatrixLayoutCreate MatrixLayoutCreate MatrixLayoutCreate DescSet:3 "
                       "MatmulPreferenceSetAttribute:1 MatmulAlgoGetHeuristic Matmul");
    CHECK(fk->matmuls == 1 && fk->live == 6);
    /* the plan is cached: the bias pointer and the matmul only */
    fk->log[0] = '\0';
    CHECK(gemm(b, 4, GPU_LT_GELU) == 0);
    CHECK_STR(fk->log, "DescSet:3 Matmul");
    /* a plain bias is another plan: EPILOGUE BIAS 4 */
    fk->log[0] = '\0';
    CHECK(gemm(b, 4, GPU_LT_PLAIN) == 0);
    CHECK(strstr(fk->log, "DescSet:2=4 ") != NULL && fk->matmuls == 3);
    CHECK(b->blas_lt_note[0] == '\0');
    fk->log[0] = '\0';
    gpu_backend_close(b);
    CHECK_STR(fk->log, "MatmulDescDestroy MatrixLayoutDestroy MatrixLayoutDestroy "
                       "MatrixLayoutDestroy MatmulDescDestroy MatrixLayoutDestroy "
                       "MatrixLayoutDestroy MatrixLayoutDestroy MatmulPreferenceDestroy Destroy");
    CHECK(fk->live == 0);
}

/* a failure at open: no blas_lt, the reason (with rocBLAS named as the path
 * taken) in blas_lt_err and the runtime.hip.blaslt text, rocBLAS bound */
static void open_fails(const char *fail, const char *want)
{
    if (fail)
        setenv("FAKE_HIPBLASLT_FAIL", fail, 1);
    struct gpu_backend *b = open_hip();
    unsetenv("FAKE_HIPBLASLT_FAIL");
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK(b->blas_lt == NULL && b->blas_lt_lib[0] == '\0');
    CHECK(strstr(b->blas_lt_err, want) != NULL);
    CHECK(strncmp(b->extra_lib, "no hipBLASLt: ", 14) == 0 && strstr(b->extra_lib, want));
    CHECK(b->blas_gemm_ex != NULL); /* the GEMMs go through rocBLAS */
    if (!strstr(b->blas_lt_err, want))
        fprintf(stderr, "  blas_lt_err: %s\n", b->blas_lt_err);
    gpu_backend_close(b);
    CHECK(!fk || fk->live == 0);
}

static void test_open_failures(void)
{
    open_fails("Create", "hipblasLtCreate: status 3; GEMMs through rocBLAS");
    open_fails("MatmulPreferenceCreate", "hipblasLtMatmulPreferenceCreate: status 3");
    setenv("ROCM_VLA_DOCTOR_NO_BLASLT", "1", 1);
    open_fails(NULL, "disabled by ROCM_VLA_DOCTOR_NO_BLASLT=1");
    unsetenv("ROCM_VLA_DOCTOR_NO_BLASLT");
    char keep[1100];
    snprintf(keep, sizeof(keep), "%s", getenv("ROCM_VLA_DOCTOR_HIPBLASLT_LIB"));
    setenv("ROCM_VLA_DOCTOR_HIPBLASLT_LIB", "/nonexistent/libhipblaslt.so.1", 1);
    open_fails(NULL, "/nonexistent/libhipblaslt.so.1");
    setenv("ROCM_VLA_DOCTOR_HIPBLASLT_LIB", keep, 1);
    /* no vendor BLAS at all: hipBLASLt dropped with rocBLAS, and said */
    setenv("ROCM_VLA_DOCTOR_NO_BLAS", "1", 1);
    struct gpu_backend *nb = open_hip();
    unsetenv("ROCM_VLA_DOCTOR_NO_BLAS");
    CHECK(nb && !nb->blas_lt && !nb->blas_gemm_ex);
    CHECK(nb && strstr(nb->blas_lt_err, "disabled by ROCM_VLA_DOCTOR_NO_BLAS"));
    CHECK(nb && strstr(nb->extra_lib, "no hipBLASLt: disabled by ROCM_VLA_DOCTOR_NO_BLAS"));
    gpu_backend_close(nb);
    CHECK(fk && fk->live == 0);
    /* no rocBLAS: nothing to fall back on, hipBLASLt is not tried */
    snprintf(keep, sizeof(keep), "%s", getenv("ROCM_VLA_DOCTOR_ROCBLAS_LIB"));
    setenv("ROCM_VLA_DOCTOR_ROCBLAS_LIB", "/nonexistent/librocblas.so", 1);
    struct gpu_backend *b = open_hip();
    CHECK(b && !b->blas_lt && strstr(b->blas_lt_err, "not tried: no rocBLAS"));
    gpu_backend_close(b);
    setenv("ROCM_VLA_DOCTOR_ROCBLAS_LIB", keep, 1);
}

/* a call failing during the first GEMM of a shape: GPU_LT_NO_ALGO, nothing
 * ran, the reason in blas_lt_note; the plan refused (when the heuristic or
 * the matmul refused) is not asked again; rocBLAS still runs */
static void gemm_fails(const char *fail, const char *algos, const char *want, int refused)
{
    struct gpu_backend *b = open_hip();
    CHECK(b && b->blas_lt && fk);
    if (!b || !b->blas_lt || !fk) {
        gpu_backend_close(b);
        return;
    }
    if (fail)
        setenv("FAKE_HIPBLASLT_FAIL", fail, 1);
    if (algos)
        setenv("FAKE_HIPBLASLT_ALGOS", algos, 1);
    CHECK(gemm(b, 4, GPU_LT_GELU) == GPU_LT_NO_ALGO);
    CHECK(fk->matmuls == 0);
    CHECK(strstr(b->blas_lt_note, want) != NULL);
    CHECK(strstr(b->blas_lt_note, "hipBLASLt: ") == b->blas_lt_note);
    CHECK(strstr(b->blas_lt_note, "; GEMM by ") && strstr(b->blas_lt_note, "fake/librocblas.so"));
    if (!strstr(b->blas_lt_note, want))
        fprintf(stderr, "  %s: blas_lt_note: %s\n", fail ? fail : algos, b->blas_lt_note);
    if (refused) {
        fk->log[0] = '\0';
        CHECK(gemm(b, 4, GPU_LT_GELU) == GPU_LT_NO_ALGO);
        CHECK(strstr(fk->log, "MatmulAlgoGetHeuristic") == NULL && fk->matmuls == 0);
    }
    unsetenv("FAKE_HIPBLASLT_FAIL");
    unsetenv("FAKE_HIPBLASLT_ALGOS");
    /* the caller's fallback: rocBLAS answers (the fake runs nothing) */
    CHECK(b->blas_gemm_ex(b, GPU_BF16, GPU_BF16, 0, 1, 4, 8, 16, 1.0f, A, 16, 0, B, 16, 0, 0.0f, C,
                          8, 0, 1, NULL) == 0);
    /* another shape still takes hipBLASLt */
    CHECK(gemm(b, 5, GPU_LT_GELU) == 0 && fk->matmuls == 1);
    gpu_backend_close(b);
    CHECK(fk->live == 0);
}

/* --trace-gpu: every hipBLASLt call through trace_gen.h, named by the
 * library, with its arguments (the attribute values decoded, the bias an
 * allocation's id where it is one) and result */
static void test_traced(void)
{
    char path[] = "/tmp/rvd-test-blaslt-trace.XXXXXX", why[512];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    CHECK(gpu_trace_open(path, why, sizeof(why)) == 0);
    struct gpu_backend *b = open_hip();
    CHECK(b && b->blas_lt);
    if (b && b->blas_lt)
        CHECK(gemm(b, 4, GPU_LT_GELU) == 0);
    gpu_backend_close(b);
    gpu_trace_close();
    static char text[65536];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    unlink(path);
    static const char *const want[] = {
        "\thipBLASLt\thipblasLtCreate(&p",
        "\thipBLASLt\thipblasLtMatmulPreferenceCreate(&p",
        "\thipBLASLt\thipblasLtMatmulDescCreate(&p",
        ", 2, 0)\t0\n", /* COMPUTE_32F, HIP_R_32F */
        "\thipblasLtMatmulDescSetAttribute(p",
        ", 0, &=112, 4)\t0\n", /* TRANSA = OP_T */
        ", 2, &=36, 4)\t0\n",  /* EPILOGUE = GELU_BIAS */
        "\thipblasLtMatrixLayoutCreate(&p",
        "\thipblasLtMatmulPreferenceSetAttribute(p",
        ", 1, &=0, 8)\t0\n", /* no workspace: the fake hipMalloc refuses 32 MiB */
        ", 3, &=p",          /* BIAS_POINTER: an id, never the address */
        "\thipblasLtMatmulAlgoGetHeuristic(p",
        ", 32, p",
        "\thipblasLtMatmul(p",
        "\thipblasLtMatmulDescDestroy(p",
        "\thipblasLtMatrixLayoutDestroy(p",
        "\thipblasLtMatmulPreferenceDestroy(p",
        "\thipblasLtDestroy(p",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(text, want[i])) {
            fprintf(stderr, "  the trace lacks '%s':\n%s\n", want[i], text);
            CHECK(0);
        }
}

static void test_gemm_failures(void)
{
    gemm_fails("MatmulDescCreate", NULL, "refused the matmul descriptor or a layout (status 3)", 0);
    gemm_fails("DescSet:0", NULL, "refused the matmul descriptor or a layout (status 3)", 0);
    gemm_fails("DescSet:2", NULL, "refused the matmul descriptor or a layout (status 3)", 0);
    gemm_fails("DescSet:4", NULL, "refused the matmul descriptor or a layout (status 3)", 0);
    gemm_fails("MatrixLayoutCreate", NULL, "refused the matmul descriptor or a layout", 0);
    gemm_fails("DescSet:3", NULL, "refused the bias pointer (status 3)", 0);
    gemm_fails("MatmulPreferenceSetAttribute", NULL, "heuristic failed (status 3)", 1);
    gemm_fails("MatmulAlgoGetHeuristic", NULL, "heuristic failed (status 3)", 1);
    gemm_fails(NULL, "0", "heuristic: no algorithm", 1);
    gemm_fails("Matmul", NULL, "matmul refused the plan's first run (status 3)", 1);
}

int main(int argc, char **argv)
{
    (void)argc;
    char *self = xstrdup(argv[0]);
    snprintf(dir, sizeof(dir), "%s", dirname(self));
    free(self);
    char lib[1100];
    snprintf(lib, sizeof(lib), "%s/fake/libhipblaslt.so", dir);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "%s is missing: make builds it (FAKE_LIBS)\n", lib);
        CHECK(0);
        return test_report();
    }
    setenv("ROCM_VLA_DOCTOR_HIPBLASLT_LIB", lib, 1);
    snprintf(lib, sizeof(lib), "%s/fake/libamdhip64.so", dir);
    setenv("ROCM_VLA_DOCTOR_HIP_LIB", lib, 1);
    snprintf(lib, sizeof(lib), "%s/fake/libhsa-runtime64.so", dir);
    setenv("ROCM_VLA_DOCTOR_HSA_LIB", lib, 1);
    snprintf(lib, sizeof(lib), "%s/fake/librocblas.so", dir);
    setenv("ROCM_VLA_DOCTOR_ROCBLAS_LIB", lib, 1);
    setenv("ROCM_VLA_DOCTOR_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    setenv("FAKE_HIP_DEVICES", "0000:03:00.0", 1);
    unsetenv("ROCM_VLA_DOCTOR_NO_BLAS");
    unsetenv("ROCM_VLA_DOCTOR_NO_BLASLT");
    unsetenv("FAKE_HIPBLASLT_FAIL");
    unsetenv("FAKE_HIPBLASLT_ALGOS");
    test_sequence();
    test_open_failures();
    test_gemm_failures();
    test_traced();
    return test_report();
}
