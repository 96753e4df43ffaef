/* test_blaslt.c - the cuBLASLt binding's parts that run without a GPU
 * (src/gpu/blaslt_cuda.h): the operand alignment that keys the per-shape
 * plan cache (a plan chosen for 256-byte aligned operands must never run on
 * a 4-byte aligned one), and the load failing with a reason and no library
 * named where libcublasLt is absent; against a fake libcublasLt
 * (tests/fake/fake_cublaslt.c) the epilogue each call asks for: bias,
 * bias + GELU (the vision fc1), the bias kept fp32 with a 16-bit output, and
 * a refused GELU epilogue answered GPU_LT_NO_ALGO with nothing run (the
 * caller's fallback then runs: ops_gpu.c's bias_act kernel); and the tuner
 * (a fake backend): every timed run of a candidate starts after a flush of
 * the L2 (a large write finished before the first event), the fastest
 * candidate is kept, and without room for the flush buffer the candidates
 * are still timed, back to back. */
/* layers: core gpu */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/gpu/blaslt_cuda.h"
#include "test.h"

static void test_align(void)
{
    CHECK(gpu_lt_align((void *)0x10000, 1152, 2) == 256); /* capped */
    CHECK(gpu_lt_align((void *)0x10000, 100, 2) == 8);    /* pitch 200 bytes */
    CHECK(gpu_lt_align((void *)0x10004, 1024, 4) == 4);   /* one float past */
    CHECK(gpu_lt_align((void *)0x10010, 72, 2) == 16);    /* pitch 144 */
    CHECK(gpu_lt_align((void *)0x10000, 0, 4) == 256);    /* a vector: address only */
    CHECK(gpu_lt_align((void *)0x10002, 64, 2) == 2);
}

/* an absent library: no plan cache, the file named in the reason, no library
 * reported as bound (the load of a present one is the device's kernel test) */
static void test_open_absent(void)
{
    char lib[512] = "x", *err = NULL;
    setenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB", "/nonexistent/libcublasLt.so.99", 1);
    struct gpu_lt *lt = gpu_lt_open(lib, sizeof(lib), &err);
    unsetenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB");
    CHECK(lt == NULL);
    CHECK(lib[0] == '\0');
    CHECK(err && strstr(err, "/nonexistent/libcublasLt.so.99") != NULL);
    free(err);
}

struct fake_lt_last {
    int epi, bias_type, has_bias, calls, heuristics, algo;
};

static void test_epilogue(const char *path)
{
    char lib[512] = "", *err = NULL;
    setenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB", path, 1);
    struct gpu_lt *lt = gpu_lt_open(lib, sizeof(lib), &err);
    unsetenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB");
    CHECK(lt != NULL && err == NULL);
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    struct fake_lt_last *last = h ? dlsym(h, "fake_lt_last") : NULL;
    CHECK(last != NULL);
    if (!lt || !last) {
        gpu_lt_close(lt);
        return;
    }
    struct gpu_backend b;
    memset(&b, 0, sizeof(b));
    /* operands are never read (the fake runs nothing): distinct addresses */
    static float A[64], B[64], C[64], bias[8];
    unsetenv("FAKE_LT_REFUSE_GELU");
    /* 16-bit output, bias then GELU: epilogue 36, bias fp32 (CUDA_R_32F 0) */
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_BF16, 0, 1, 4, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      bias, GPU_F32, GPU_LT_GELU, NULL) == 0);
    CHECK(last->calls == 1 && last->epi == 36 && last->bias_type == 0 && last->has_bias);
    /* the same shape with a plain bias is another plan: epilogue 4 */
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_F32, 0, 1, 4, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      bias, GPU_F32, GPU_LT_PLAIN, NULL) == 0);
    CHECK(last->calls == 2 && last->epi == 4 && last->bias_type == 0);
    /* no bias: the default epilogue, no bias type set */
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_BF16, 0, 1, 4, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      NULL, GPU_F32, GPU_LT_PLAIN, NULL) == 0);
    CHECK(last->calls == 3 && last->epi == 1 && last->bias_type == -1 && !last->has_bias);
    /* GELU without a bias is not planned */
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_BF16, 0, 1, 4, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      NULL, GPU_F32, GPU_LT_GELU, NULL) == GPU_LT_NO_ALGO);
    CHECK(last->calls == 3);
    /* a library without a GELU algorithm: GPU_LT_NO_ALGO and nothing ran
     * (another shape: a new plan asks the heuristic) */
    setenv("FAKE_LT_REFUSE_GELU", "1", 1);
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_BF16, 0, 1, 5, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      bias, GPU_F32, GPU_LT_GELU, NULL) == GPU_LT_NO_ALGO);
    CHECK(last->calls == 3);
    /* while the plain bias epilogue still runs */
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_F32, 0, 1, 5, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      bias, GPU_F32, GPU_LT_PLAIN, NULL) == 0);
    CHECK(last->calls == 4 && last->epi == 4);
    /* a refused plan is not asked again */
    int heur = last->heuristics;
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_BF16, 0, 1, 5, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      bias, GPU_F32, GPU_LT_GELU, NULL) == GPU_LT_NO_ALGO);
    CHECK(last->heuristics == heur && last->calls == 4);
    unsetenv("FAKE_LT_REFUSE_GELU");
    /* no fp32 bias under a 16-bit output: the caller's retry with the bias
     * in the output's type (CUDA_R_16BF 14) is another plan, and runs */
    setenv("FAKE_LT_REFUSE_F32_BIAS", "1", 1);
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_BF16, 0, 1, 6, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      bias, GPU_F32, GPU_LT_GELU, NULL) == GPU_LT_NO_ALGO);
    CHECK(gpu_lt_gemm(lt, &b, 0, GPU_BF16, GPU_BF16, 0, 1, 6, 8, 16, 1.0f, A, 16, B, 16, 0.0f, C, 8,
                      bias, GPU_BF16, GPU_LT_GELU, NULL) == 0);
    CHECK(last->calls == 5 && last->epi == 36 && last->bias_type == 14);
    unsetenv("FAKE_LT_REFUSE_F32_BIAS");
    gpu_lt_close(lt);
    dlclose(h);
}

/* the tuner's view of a device: allocations counted, never memory (nothing
 * is read or written through them; the binding keeps its workspace for the
 * life of the device, as a device context does; a size over fb_cap refused), a flush counted when a
 * write of at least 64 MiB is finished (device_sync) before an event opens a timing, and each
 * candidate's time by its algorithm index: index 2 fastest */
static struct fake_lt_last *fb_last;
static size_t fb_cap, fb_pending;
static int fb_flushed, fb_cold_runs, fb_events, fb_live;
static char fb_mem[1];
static char fb_ev[2]; /* the two events the tuner creates, in order */

static int fb_malloc(struct gpu_backend *b, void **p, size_t n)
{
    (void)b;
    *p = n > fb_cap ? NULL : fb_mem;
    fb_live += *p != NULL;
    return *p ? 0 : -1;
}
static int fb_free(struct gpu_backend *b, void *p)
{
    (void)b, (void)p;
    fb_live--;
    return 0;
}
static int fb_memset(struct gpu_backend *b, void *p, int v, size_t n)
{
    (void)b, (void)p, (void)v;
    fb_pending = n;
    return 0;
}
static int fb_device_sync(struct gpu_backend *b)
{
    (void)b;
    fb_flushed = fb_pending >= (64u << 20);
    fb_pending = 0;
    return 0;
}
static int fb_stream_sync(struct gpu_backend *b, gpu_stream s)
{
    (void)b, (void)s;
    return 0;
}
static int fb_event_create(struct gpu_backend *b, gpu_event *e)
{
    (void)b;
    *e = &fb_ev[fb_events++ & 1];
    return 0;
}
static int fb_event_record(struct gpu_backend *b, gpu_event e, gpu_stream s)
{
    (void)b, (void)s;
    if (e == &fb_ev[0]) { /* a timing opens: was the L2 flushed just before? */
        fb_cold_runs += fb_flushed;
        fb_flushed = 0;
    }
    return 0;
}
static int fb_event_sync(struct gpu_backend *b, gpu_event e)
{
    (void)b, (void)e;
    return 0;
}
static int fb_elapsed(struct gpu_backend *b, float *ms, gpu_event s, gpu_event e)
{
    (void)b, (void)s, (void)e;
    static const float t[] = {3.0f, 2.0f, 1.0f, 4.0f};
    *ms = t[fb_last->algo & 3];
    return 0;
}

static void test_tune(const char *path)
{
    char lib[512] = "", *err = NULL;
    setenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB", path, 1);
    struct gpu_lt *lt = gpu_lt_open(lib, sizeof(lib), &err);
    unsetenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB");
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    fb_last = h ? dlsym(h, "fake_lt_last") : NULL;
    CHECK(lt != NULL && fb_last != NULL);
    if (!lt || !fb_last) {
        free(err);
        gpu_lt_close(lt);
        return;
    }
    struct gpu_backend b;
    memset(&b, 0, sizeof(b));
    b.malloc = fb_malloc, b.free = fb_free, b.memset = fb_memset;
    b.device_sync = fb_device_sync, b.stream_sync = fb_stream_sync;
    b.event_create = fb_event_create, b.event_record = fb_event_record;
    b.event_sync = fb_event_sync, b.event_elapsed_ms = fb_elapsed;
    static float A[64], B[64], C[64];
    setenv("FAKE_LT_CANDIDATES", "4", 1);
    fb_cap = (size_t)1 << 30;
    /* 4 candidates, 5 timed runs each, every one after a flush */
    fb_cold_runs = 0;
    CHECK(gpu_lt_gemm(lt, &b, 1, GPU_BF16, GPU_F32, 0, 1, 50, 64, 32, 1.0f, A, 32, B, 32, 0.0f, C,
                      64, NULL, GPU_F32, GPU_LT_PLAIN, NULL) == 0);
    CHECK(fb_cold_runs == 4 * 5);
    CHECK(fb_live == 1);       /* the workspace; the scratch output and the flush buffer freed */
    CHECK(fb_last->algo == 2); /* the fastest ran the caller's call */
    int calls = fb_last->calls;
    CHECK(gpu_lt_gemm(lt, &b, 1, GPU_BF16, GPU_F32, 0, 1, 50, 64, 32, 1.0f, A, 32, B, 32, 0.0f, C,
                      64, NULL, GPU_F32, GPU_LT_PLAIN, NULL) == 0);
    CHECK(fb_last->calls == calls + 1 && fb_last->algo == 2); /* timed once per plan */
    /* no room for the flush buffer (the scratch output fits): timed back to
     * back, no flush counted, still the fastest kept */
    fb_cap = 1u << 20;
    fb_cold_runs = 0;
    CHECK(gpu_lt_gemm(lt, &b, 1, GPU_BF16, GPU_F32, 0, 1, 40, 64, 32, 1.0f, A, 32, B, 32, 0.0f, C,
                      64, NULL, GPU_F32, GPU_LT_PLAIN, NULL) == 0);
    CHECK(fb_cold_runs == 0 && fb_last->algo == 2);
    unsetenv("FAKE_LT_CANDIDATES");
    gpu_lt_close(lt);
    dlclose(h);
}

int main(int argc, char **argv)
{
    (void)argc;
    test_align();
    test_open_absent();
    char *self = xstrdup(argv[0]);
    char lib[512];
    snprintf(lib, sizeof(lib), "%s/fake/libcublasLt.so", dirname(self));
    free(self);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "%s is missing: make builds it (FAKE_LIBS)\n", lib);
        CHECK(0);
    } else {
        test_epilogue(lib);
        test_tune(lib);
    }
    return test_report();
}
