/* backend_cuda.c - the CUDA reference backend: libcuda.so.1 (driver API),
 * libnvrtc (run-time compilation to a cubin for sm_XX) and cuBLAS (GEMM).
 * All through dlopen; see cuda_api.h for the versioned symbol names. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blaslt_cuda.h"
#include "cuda_api.h"
#include "pci_addr.h"

#define CU_FNS(X)                                                                                  \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)    \
        X(cuDeviceGetPCIBusId) X(cuDeviceTotalMem_v2) X(cuDeviceGetAttribute)                      \
            X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemGetInfo_v2)  \
                X(cuMemAlloc_v2) X(cuMemAllocManaged) X(cuMemHostAlloc) X(cuMemFree_v2)            \
                    X(cuMemFreeHost) X(cuMemcpy) X(cuMemcpyAsync) X(cuMemsetD8_v2)                 \
                        X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamSynchronize)             \
                            X(cuEventCreate) X(cuEventDestroy_v2) X(cuEventRecord)                 \
                                X(cuEventSynchronize) X(cuModuleLoadData) X(cuModuleUnload)        \
                                    X(cuModuleGetFunction) X(cuLaunchKernel)
#define CU_OPT_FNS(X)                                                                              \
    X(cuMemPrefetchAsync_v2)                                                                       \
    X(cuDeviceCanAccessPeer)                                                                       \
    X(cuCtxEnablePeerAccess) X(cuMemcpyPeerAsync) X(cuMemPrefetchAsync) X(cuMemRangeGetAttribute)  \
        X(cuEventElapsedTime_v2) X(cuEventElapsedTime) X(cuStreamBeginCapture_v2)                  \
            X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch)                  \
                X(cuGraphExecDestroy) X(cuGraphDestroy) X(cuStreamIsCapturing)
#define RTC_FNS(X)                                                                                 \
    X(nvrtcGetErrorString)                                                                         \
    X(nvrtcVersion)                                                                                \
    X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcCompileProgram) X(nvrtcGetCUBINSize)       \
        X(nvrtcGetCUBIN) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog)
#define BLAS_FNS(X) X(cublasCreate_v2) X(cublasSetStream_v2) X(cublasGemmEx)
#define BLAS_OPT_FNS(X) X(cublasGemmStridedBatchedEx) X(cublasGemmBatchedEx)

#define DECL(fn) __typeof__(&fn) fn;
struct cu {
    void *h, *rtc, *blas;
    CU_FNS(DECL)
    CU_OPT_FNS(DECL)
    RTC_FNS(DECL)
    BLAS_FNS(DECL)
    BLAS_OPT_FNS(DECL)
    CUcontext ctx;
    CUcontext dev_ctx[64]; /* each device's primary context, once retained (peer copies) */
    cublasHandle_t handle;
    struct gpu_lt *lt;
    int dev;
};

static struct cu *C(struct gpu_backend *b)
{
    return b->priv;
}

static int chk(struct gpu_backend *b, const char *what, CUresult e)
{
    if (e) {
        const char *n = "?", *s = "?";
        C(b)->cuGetErrorName(e, &n);
        C(b)->cuGetErrorString(e, &s);
        gpu_set_err(b, "%s: %s: %s", what, n ? n : "?", s ? s : "?");
    }
    return e;
}
#define CALL(b, fn, ...) chk(b, #fn, C(b)->fn(__VA_ARGS__))
#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

static int c_device_count(struct gpu_backend *b, int *n)
{
    *n = 0;
    if (b->init_err[0])
        return 0;
    return CALL(b, cuDeviceGetCount, n);
}

static int c_set_device(struct gpu_backend *b, int dev)
{
    struct cu *c = C(b);
    CUdevice d;
    int e = CALL(b, cuDeviceGet, &d, dev);
    if (!e)
        e = CALL(b, cuDevicePrimaryCtxRetain, &c->ctx, d);
    if (!e)
        e = CALL(b, cuCtxSetCurrent, c->ctx);
    if (!e && dev >= 0 && dev < 64)
        c->dev_ctx[dev] = c->ctx;
    c->dev = dev;
    return e;
}

/* device dev's primary context (retained once; the runtime keeps it) */
static int dev_ctx(struct gpu_backend *b, int dev, CUcontext *out)
{
    struct cu *c = C(b);
    CUdevice d;
    if (dev < 0 || dev >= 64)
        return gpu_set_err(b, "no device %d", dev), -1;
    if (!c->dev_ctx[dev]) {
        int e = CALL(b, cuDeviceGet, &d, dev);
        if (!e)
            e = CALL(b, cuDevicePrimaryCtxRetain, &c->dev_ctx[dev], d);
        if (e)
            return e;
    }
    *out = c->dev_ctx[dev];
    return 0;
}

static int c_can_access_peer(struct gpu_backend *b, int dev, int peer, int *can)
{
    struct cu *c = C(b);
    CUdevice d, p;
    *can = 0;
    if (!c->cuDeviceCanAccessPeer)
        return gpu_set_err(b, "this CUDA driver has no cuDeviceCanAccessPeer"), -1;
    int e = CALL(b, cuDeviceGet, &d, dev);
    if (!e)
        e = CALL(b, cuDeviceGet, &p, peer);
    return e ? e : CALL(b, cuDeviceCanAccessPeer, can, d, p);
}

static int c_enable_peer(struct gpu_backend *b, int peer)
{
    CUcontext pc;
    if (!C(b)->cuCtxEnablePeerAccess)
        return gpu_set_err(b, "this CUDA driver has no cuCtxEnablePeerAccess"), -1;
    int e = dev_ctx(b, peer, &pc);
    if (e)
        return e;
    e = C(b)->cuCtxEnablePeerAccess(pc, 0);
    return e == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED ? 0 : chk(b, "cuCtxEnablePeerAccess", e);
}

static int c_memcpy_peer_async(struct gpu_backend *b, void *dst, int ddev, const void *src,
                               int sdev, size_t n, gpu_stream s)
{
    CUcontext dc, sc;
    if (!C(b)->cuMemcpyPeerAsync)
        return gpu_set_err(b, "this CUDA driver has no cuMemcpyPeerAsync"), -1;
    int e = dev_ctx(b, ddev, &dc);
    if (!e)
        e = dev_ctx(b, sdev, &sc);
    return e ? e : CALL(b, cuMemcpyPeerAsync, DP(dst), dc, DP(src), sc, n, s);
}

static int attr(struct gpu_backend *b, int a, CUdevice d)
{
    int v = -1;
    return C(b)->cuDeviceGetAttribute(&v, a, d) ? -1 : v;
}

static int c_props(struct gpu_backend *b, int dev, struct gpu_props *p)
{
    struct cu *c = C(b);
    memset(p, 0, sizeof(*p));
    CUdevice d;
    int e = CALL(b, cuDeviceGet, &d, dev);
    if (!e)
        e = CALL(b, cuDeviceGetName, p->name, (int)sizeof(p->name), d);
    if (e)
        return e;
    size_t total = 0;
    if (!c->cuDeviceTotalMem_v2(&total, d))
        p->total_mem = total;
    char pci[32] = "";
    struct pci_addr pa;
    /* CUDA writes "00000000:19:00.0": an 8-digit domain; kept in the sysfs spelling */
    if (!c->cuDeviceGetPCIBusId(pci, (int)sizeof(pci), d) && pci_addr_parse(pci, &pa) == 0)
        pci_addr_format(&pa, p->pci);
    p->cu_count = attr(b, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
    p->managed = attr(b, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, d);
    p->concurrent_managed = attr(b, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, d);
    p->pageable_access = attr(b, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, d);
    p->clock_khz = attr(b, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d);
    p->mem_clock_khz = attr(b, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, d);
    p->mem_bus_width = attr(b, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, d);
    p->cc_major = attr(b, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
    p->cc_minor = attr(b, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
    snprintf(p->target, sizeof(p->target), "sm_%d%d", p->cc_major, p->cc_minor);
    snprintf(p->arch, sizeof(p->arch), "%s", p->target);
    return 0;
}

static int c_mem_info(struct gpu_backend *b, size_t *f, size_t *t)
{
    return CALL(b, cuMemGetInfo_v2, f, t);
}
static int c_malloc(struct gpu_backend *b, void **p, size_t n)
{
    CUdeviceptr d = 0;
    int e = CALL(b, cuMemAlloc_v2, &d, n);
    *p = (void *)(uintptr_t)d;
    return e;
}
static int c_malloc_managed(struct gpu_backend *b, void **p, size_t n)
{
    CUdeviceptr d = 0;
    int e = CALL(b, cuMemAllocManaged, &d, n, CU_MEM_ATTACH_GLOBAL);
    *p = (void *)(uintptr_t)d;
    return e;
}
static int c_malloc_host(struct gpu_backend *b, void **p, size_t n)
{
    return CALL(b, cuMemHostAlloc, p, n, 0);
}
static int c_free(struct gpu_backend *b, void *p)
{
    return CALL(b, cuMemFree_v2, DP(p));
}
static int c_free_host(struct gpu_backend *b, void *p)
{
    return CALL(b, cuMemFreeHost, p);
}
/* unified addressing: cuMemcpy infers the direction from the pointers */
static int c_memcpy(struct gpu_backend *b, void *d, const void *s, size_t n, enum gpu_copy k)
{
    (void)k;
    return CALL(b, cuMemcpy, DP(d), DP(s), n);
}
static int c_memcpy_async(struct gpu_backend *b, void *d, const void *s, size_t n, enum gpu_copy k,
                          gpu_stream st)
{
    (void)k;
    return CALL(b, cuMemcpyAsync, DP(d), DP(s), n, st);
}
static int c_memset(struct gpu_backend *b, void *p, int v, size_t n)
{
    return CALL(b, cuMemsetD8_v2, DP(p), (unsigned char)v, n);
}
static int c_prefetch(struct gpu_backend *b, const void *p, size_t n, int dev, gpu_stream s)
{
    struct cu *c = C(b);
    if (c->cuMemPrefetchAsync_v2) {
        CUmemLocation loc = {dev < 0 ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE,
                             dev < 0 ? 0 : dev};
        return CALL(b, cuMemPrefetchAsync_v2, DP(p), n, loc, 0, s);
    }
    if (c->cuMemPrefetchAsync)
        return CALL(b, cuMemPrefetchAsync, DP(p), n, dev < 0 ? CU_DEVICE_CPU : dev, s);
    gpu_set_err(b, "no cuMemPrefetchAsync in this driver");
    return -1;
}
static int c_prefetch_location(struct gpu_backend *b, const void *p, size_t n, int *loc)
{
    if (!C(b)->cuMemRangeGetAttribute)
        return gpu_set_err(b, "no cuMemRangeGetAttribute"), -1;
    int v = -2;
    int e = CALL(b, cuMemRangeGetAttribute, &v, sizeof(v),
                 CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, DP(p), n);
    *loc = v == CU_DEVICE_CPU ? -1 : v < 0 ? -2 : v;
    return e;
}
static int c_stream_create(struct gpu_backend *b, gpu_stream *s, int nonblocking)
{
    return CALL(b, cuStreamCreate, (CUstream *)s, nonblocking ? CU_STREAM_NON_BLOCKING : 0);
}
static int c_stream_destroy(struct gpu_backend *b, gpu_stream s)
{
    return CALL(b, cuStreamDestroy_v2, s);
}
static int c_stream_sync(struct gpu_backend *b, gpu_stream s)
{
    return CALL(b, cuStreamSynchronize, s);
}
static int c_device_sync(struct gpu_backend *b)
{
    return CALL(b, cuCtxSynchronize);
}
static int c_event_create(struct gpu_backend *b, gpu_event *e)
{
    return CALL(b, cuEventCreate, (CUevent *)e, 0);
}
static int c_event_destroy(struct gpu_backend *b, gpu_event e)
{
    return CALL(b, cuEventDestroy_v2, e);
}
static int c_event_record(struct gpu_backend *b, gpu_event e, gpu_stream s)
{
    return CALL(b, cuEventRecord, e, s);
}
static int c_event_sync(struct gpu_backend *b, gpu_event e)
{
    return CALL(b, cuEventSynchronize, e);
}
static int c_event_elapsed(struct gpu_backend *b, float *ms, gpu_event a, gpu_event z)
{
    struct cu *c = C(b);
    if (c->cuEventElapsedTime_v2)
        return CALL(b, cuEventElapsedTime_v2, ms, a, z);
    if (c->cuEventElapsedTime)
        return CALL(b, cuEventElapsedTime, ms, a, z);
    return gpu_set_err(b, "no cuEventElapsedTime"), -1;
}

static int c_compile(struct gpu_backend *b, const char *src, const char *name, const char *target,
                     void **bin, size_t *len, struct strbuf *log)
{
    struct cu *c = C(b);
    *bin = NULL;
    *len = 0;
    if (!c->rtc) {
        gpu_set_err(b, "no NVRTC: %s", b->rtc_err);
        return -1;
    }
    nvrtcProgram prog = NULL;
    int e = c->nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
    if (e) {
        gpu_set_err(b, "nvrtcCreateProgram: %s", c->nvrtcGetErrorString(e));
        return e;
    }
    char arch[64];
    snprintf(arch, sizeof(arch), "-arch=%s", target);
    const char *opts[] = {arch, "-std=c++17"};
    e = c->nvrtcCompileProgram(prog, (int)ARRAY_SIZE(opts), opts);
    size_t ls = 0;
    if (!c->nvrtcGetProgramLogSize(prog, &ls) && ls > 1) {
        char *l = xmalloc(ls + 1);
        if (!c->nvrtcGetProgramLog(prog, l)) {
            l[ls] = '\0';
            strbuf_adds(log, l);
        }
        free(l);
    }
    if (e) {
        gpu_set_err(b, "nvrtcCompileProgram for %s: %s", target, c->nvrtcGetErrorString(e));
    } else if ((e = c->nvrtcGetCUBINSize(prog, len)) || *len == 0) {
        gpu_set_err(b, "nvrtcGetCUBINSize: %s", e ? c->nvrtcGetErrorString(e) : "empty");
        e = e ? e : -1;
    } else {
        *bin = xmalloc(*len);
        if ((e = c->nvrtcGetCUBIN(prog, *bin))) {
            gpu_set_err(b, "nvrtcGetCUBIN: %s", c->nvrtcGetErrorString(e));
            free(*bin);
            *bin = NULL;
        }
    }
    c->nvrtcDestroyProgram(&prog);
    return e;
}

static int c_module_load(struct gpu_backend *b, gpu_module *m, const void *bin, size_t len)
{
    (void)len;
    return CALL(b, cuModuleLoadData, (CUmodule *)m, bin);
}
static int c_module_unload(struct gpu_backend *b, gpu_module m)
{
    return CALL(b, cuModuleUnload, m);
}
static int c_function(struct gpu_backend *b, gpu_module m, const char *name, gpu_function *f)
{
    return CALL(b, cuModuleGetFunction, (CUfunction *)f, m, name);
}
static int c_launch(struct gpu_backend *b, gpu_function f, unsigned grid, unsigned block,
                    unsigned shmem, gpu_stream s, void **args)
{
    return CALL(b, cuLaunchKernel, f, grid, 1, 1, block, 1, 1, shmem, s, args, NULL);
}

/* the cuBLAS handle (made on the first GEMM: it needs a device) on stream s */
static int c_handle(struct gpu_backend *b, gpu_stream s)
{
    struct cu *c = C(b);
    if (!c->handle) {
        int e = c->cublasCreate_v2(&c->handle);
        if (e)
            return gpu_set_err(b, "cublasCreate: status %d", e), e;
    }
    c->cublasSetStream_v2(c->handle, s);
    return 0;
}

/* row-major C = A*B is column-major C^T = B^T * A^T: swap the operands */
static int c_blas_gemm(struct gpu_backend *b, enum gpu_dtype t, int m, int n, int k, const void *A,
                       const void *B, float *Cm, gpu_stream s)
{
    struct cu *c = C(b);
    int e = c_handle(b, s);
    if (e)
        return e;
    int ty = t == GPU_F16 ? CUDA_R_16F : t == GPU_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    float alpha = 1.0f, beta = 0.0f;
    e = c->cublasGemmEx(c->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, ty, n, A, ty, k,
                        &beta, Cm, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (e)
        gpu_set_err(b, "cublasGemmEx: status %d", e);
    return e;
}

static int cuda_type(enum gpu_dtype t)
{
    return t == GPU_F16 ? CUDA_R_16F : t == GPU_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T */
static int c_blas_gemm_ex(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                          int transb, int m, int n, int k, float alpha, const void *A, long lda,
                          long long sA, const void *B, long ldb, long long sB, float beta, void *Cm,
                          long ldc, long long sC, int batch, gpu_stream s)
{
    struct cu *c = C(b);
    int e = c_handle(b, s);
    if (e)
        return e;
    e = c->cublasGemmStridedBatchedEx(c->handle, transb ? 1 : CUBLAS_OP_N, transa ? 1 : CUBLAS_OP_N,
                                      n, m, k, &alpha, B, cuda_type(t), (int)ldb, sB, A,
                                      cuda_type(t), (int)lda, sA, &beta, Cm, cuda_type(ct),
                                      (int)ldc, sC, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (e)
        gpu_set_err(b, "cublasGemmStridedBatchedEx: status %d", e);
    return e;
}

/* backend.h blas_gemm_ptrs: the operands swapped as in c_blas_gemm_ex */
static int c_blas_gemm_ptrs(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                            int transb, int m, int n, int k, float alpha, const void *const *A,
                            long lda, const void *const *B, long ldb, float beta, void *const *Cm,
                            long ldc, int batch, gpu_stream s)
{
    struct cu *c = C(b);
    int e = c_handle(b, s);
    if (e)
        return e;
    e = c->cublasGemmBatchedEx(c->handle, transb ? 1 : CUBLAS_OP_N, transa ? 1 : CUBLAS_OP_N, n, m,
                               k, &alpha, B, cuda_type(t), (int)ldb, A, cuda_type(t), (int)lda,
                               &beta, Cm, cuda_type(ct), (int)ldc, batch, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT);
    if (e)
        gpu_set_err(b, "cublasGemmBatchedEx: status %d", e);
    return e;
}

/* the plan cache times candidates only where that is allowed: not while the
 * stream is captured into a graph (no allocation, no synchronisation there) */
static int c_blas_lt(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                     int transb, int m, int n, int k, float alpha, const void *A, long lda,
                     const void *B, long ldb, float beta, void *Cm, long ldc, const void *bias,
                     enum gpu_dtype bias_t, int epi, gpu_stream s)
{
    struct cu *c = C(b);
    int st = 1; /* unknown counts as capturing */
    if (c->cuStreamIsCapturing && c->cuStreamIsCapturing(s, &st))
        st = 1;
    return gpu_lt_gemm(c->lt, b, st == 0, t, ct, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                       beta, Cm, ldc, bias, bias_t, epi, s);
}

static void c_close(struct gpu_backend *b)
{
    gpu_lt_close(C(b)->lt);
}

static int c_graph_begin(struct gpu_backend *b, gpu_stream s)
{
    if (!C(b)->cuStreamBeginCapture_v2)
        return gpu_set_err(b, "no graph API"), -1;
    return CALL(b, cuStreamBeginCapture_v2, s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}
static int c_graph_end(struct gpu_backend *b, gpu_stream s, gpu_graph *g)
{
    CUgraph graph = NULL;
    int e = CALL(b, cuStreamEndCapture, s, &graph);
    if (e)
        return e;
    CUgraphExec ex = NULL;
    e = CALL(b, cuGraphInstantiateWithFlags, &ex, graph, 0);
    C(b)->cuGraphDestroy(graph);
    *g = ex;
    return e;
}
static int c_graph_launch(struct gpu_backend *b, gpu_graph g, gpu_stream s)
{
    return CALL(b, cuGraphLaunch, g, s);
}
static int c_graph_destroy(struct gpu_backend *b, gpu_graph g)
{
    return CALL(b, cuGraphExecDestroy, g);
}

static void load_rtc(struct gpu_backend *b, struct cu *c)
{
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                        "/usr/local/cuda/lib64/libnvrtc.so"};
    struct strbuf why = STRBUF_INIT;
    void *h = gpu_dlopen_first(names, ARRAY_SIZE(names), b->rtc_lib, sizeof(b->rtc_lib), &why);
    if (!h) {
        snprintf(b->rtc_err, sizeof(b->rtc_err), "%s", why.buf ? why.buf : "not found");
        strbuf_release(&why);
        return;
    }
    strbuf_release(&why);
#define LOADRTC(fn) c->fn = (__typeof__(&fn))dlsym(h, #fn);
    RTC_FNS(LOADRTC)
#define NEEDRTC(fn)                                                                                \
    if (!c->fn) {                                                                                  \
        snprintf(b->rtc_err, sizeof(b->rtc_err), "%.400s lacks %s", b->rtc_lib, #fn);              \
        return;                                                                                    \
    }
    RTC_FNS(NEEDRTC)
    c->rtc = h;
}

static void load_blas(struct gpu_backend *b, struct cu *c)
{
    static const char *const names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12",
                                        "/usr/local/cuda/lib64/libcublas.so"};
    struct strbuf why = STRBUF_INIT;
    void *h = gpu_dlopen_first(names, ARRAY_SIZE(names), b->blas_lib, sizeof(b->blas_lib), &why);
    if (!h) {
        snprintf(b->blas_err, sizeof(b->blas_err), "%s", why.buf ? why.buf : "not found");
        strbuf_release(&why);
        return;
    }
    strbuf_release(&why);
#define LOADBLAS(fn) c->fn = (__typeof__(&fn))dlsym(h, #fn);
    BLAS_FNS(LOADBLAS)
    BLAS_OPT_FNS(LOADBLAS)
    if (!c->cublasCreate_v2 || !c->cublasSetStream_v2 || !c->cublasGemmEx) {
        snprintf(b->blas_err, sizeof(b->blas_err),
                 "%.400s lacks cublasCreate_v2, "
                 "cublasSetStream_v2 or cublasGemmEx",
                 b->blas_lib);
        b->blas_lib[0] = '\0';
        return;
    }
    c->blas = h;
    b->blas_api = "cuBLAS cublasGemmEx";
    const char *off = getenv("ROCM_VLA_DOCTOR_NO_BLASLT");
    if (off && *off && strcmp(off, "0") != 0)
        snprintf(b->blas_lt_err, sizeof(b->blas_lt_err),
                 "disabled by ROCM_VLA_DOCTOR_NO_BLASLT=%.32s", off);
    else {
        char *lt_why = NULL;
        c->lt = gpu_lt_open(b->blas_lt_lib, sizeof(b->blas_lt_lib), &lt_why);
        if (!c->lt)
            snprintf(b->blas_lt_err, sizeof(b->blas_lt_err), "%s", lt_why);
        free(lt_why);
    }
}

/* a program that is only asked to compile (CI, no driver) still gets NVRTC */
struct gpu_backend *gpu_backend_cuda_open(char **why)
{
    const char *forced = getenv("ROCM_VLA_DOCTOR_CUDA_LIB");
    const char *const names[] = {forced, forced ? NULL : "libcuda.so.1",
                                 forced ? NULL : "libcuda.so"};
    struct strbuf sb = STRBUF_INIT;
    struct gpu_backend *b = xcalloc(1, sizeof(*b));
    struct cu *c = xcalloc(1, sizeof(*c));
    b->priv = c;
    b->name = "cuda";
    c->h = gpu_dlopen_first(names, ARRAY_SIZE(names), b->lib, sizeof(b->lib), &sb);
    if (!c->h)
        goto fail;
#define LOAD(fn) c->fn = (__typeof__(&fn))dlsym(c->h, #fn);
    CU_FNS(LOAD)
    CU_OPT_FNS(LOAD)
#define NEED(fn)                                                                                   \
    if (!c->fn) {                                                                                  \
        strbuf_addf(&sb, "%s lacks %s", b->lib, #fn);                                              \
        goto fail;                                                                                 \
    }
    CU_FNS(NEED)
    CUresult e = c->cuInit(0);
    if (e) { /* CUDA_ERROR_NO_DEVICE and friends: loaded, 0 devices */
        const char *n = "?";
        c->cuGetErrorName(e, &n);
        snprintf(b->init_err, sizeof(b->init_err), "cuInit: %s", n ? n : "?");
    }
    c->cuDriverGetVersion(&b->driver_version);
    b->runtime_version = b->driver_version;
    load_rtc(b, c);
    load_blas(b, c);
    if (!c->lt && !b->blas_lt_err[0])
        snprintf(b->blas_lt_err, sizeof(b->blas_lt_err), "not tried: no cuBLAS (%.400s)",
                 b->blas_err);
    b->device_count = c_device_count;
    b->set_device = c_set_device;
    b->props = c_props;
    b->mem_info = c_mem_info;
    b->malloc = c_malloc;
    b->malloc_managed = c_malloc_managed;
    b->malloc_host = c_malloc_host;
    b->free = c_free;
    b->free_host = c_free_host;
    b->memcpy = c_memcpy;
    b->memcpy_async = c_memcpy_async;
    b->memset = c_memset;
    b->can_access_peer = c_can_access_peer;
    b->enable_peer = c_enable_peer;
    b->memcpy_peer_async = c_memcpy_peer_async;
    b->prefetch = c_prefetch;
    b->prefetch_location = c_prefetch_location;
    b->stream_create = c_stream_create;
    b->stream_destroy = c_stream_destroy;
    b->stream_sync = c_stream_sync;
    b->device_sync = c_device_sync;
    b->event_create = c_event_create;
    b->event_destroy = c_event_destroy;
    b->event_record = c_event_record;
    b->event_sync = c_event_sync;
    b->event_elapsed_ms = c_event_elapsed;
    b->compile = c_compile;
    b->module_load = c_module_load;
    b->module_unload = c_module_unload;
    b->function = c_function;
    b->launch = c_launch;
    b->blas_gemm = c->blas ? c_blas_gemm : NULL;
    b->blas_gemm_ex = c->blas && c->cublasGemmStridedBatchedEx ? c_blas_gemm_ex : NULL;
    b->blas_gemm_ptrs = c->blas && c->cublasGemmBatchedEx ? c_blas_gemm_ptrs : NULL;
    b->blas_lt = c->lt ? c_blas_lt : NULL;
    b->close = c_close;
    b->graph_begin = c_graph_begin;
    b->graph_end = c_graph_end;
    b->graph_launch = c_graph_launch;
    b->graph_destroy = c_graph_destroy;
    strbuf_release(&sb);
    *why = NULL;
    return b;
fail:
    *why = strbuf_detach(&sb);
    if (c->h)
        dlclose(c->h);
    free(c);
    free(b);
    return NULL;
}
