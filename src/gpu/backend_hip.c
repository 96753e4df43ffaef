/* backend_hip.c - the HIP backend: libamdhip64 (.so, .so.7, .so.6, .so.5),
 * hiprtc (inside libamdhip64 on 5.x, libhiprtc.so.N on 6.x/7.x) and
 * libhsa-runtime64 for the ISA name with its xnack/sramecc features. See
 * hip_api.h for the ABI rules. GEMM: rocBLAS (librocblas.so, .so.5 of ROCm 7,
 * .so.4 of ROCm 6, .so.3, .so.0) through rocblas_gemm_ex when it loads, else
 * blas_gemm is NULL and gpu_gemm() uses the project's kernel (gemm.h;
 * blas_err says why). hipBLASLt (libhipblaslt.so.1 of ROCm 7, .so.0 of 6.x) is
 * bound as blas_lt (blaslt_hip.c: the tuned per-shape path cuBLASLt takes on
 * CUDA) where rocBLAS is, since every call it refuses runs through rocBLAS;
 * without it, or when it fails, blas_lt is NULL and blas_lt_err and extra_lib
 * (the runtime.hip.blaslt fact) say why the GEMMs go through rocBLAS.
 *
 * Devices: a HIP device's ISA name comes from the HSA agent at the same PCI
 * address (hipDeviceGetPCIBusId against HSA_AMD_AGENT_INFO_BDFID/DOMAIN),
 * never from the agent at the same list position: HIP_VISIBLE_DEVICES hides
 * devices from HIP but not from this process's HSA, and an integrated GPU is
 * an agent too. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blaslt_hip.h"
#include "gpu_trace.h"
#include "hip_api.h"
#include "pci_addr.h"
#include "rocblas_api.h"
#include "trace_gen.h"

/* The bound functions, each with its return and parameter types: the same
 * list declares the pointers, binds them and generates the --trace-gpu
 * wrappers (trace_gen.h), so no call escapes the trace. X0: no parameters. */
typedef hsa_status_t (*agent_cb_t)(hsa_agent_t, void *);
typedef hsa_status_t (*isa_cb_t)(hsa_isa_t, void *);
#define HIP_FNS(X, X0)                                                                             \
    X(hipError_t, hipInit, unsigned int)                                                           \
    X(hipError_t, hipRuntimeGetVersion, int *)                                                     \
    X(hipError_t, hipDriverGetVersion, int *)                                                      \
    X(const char *, hipGetErrorName, hipError_t)                                                   \
    X(const char *, hipGetErrorString, hipError_t)                                                 \
    X(hipError_t, hipGetDeviceCount, int *)                                                        \
    X(hipError_t, hipSetDevice, int)                                                               \
    X(hipError_t, hipDeviceGetName, char *, int, hipDevice_t)                                      \
    X(hipError_t, hipDeviceGetPCIBusId, char *, int, int)                                          \
    X(hipError_t, hipDeviceTotalMem, size_t *, hipDevice_t)                                        \
    X(hipError_t, hipDeviceGetAttribute, int *, hipDeviceAttribute_t, int)                         \
    X(hipError_t, hipMemGetInfo, size_t *, size_t *)                                               \
    X(hipError_t, hipMalloc, void **, size_t)                                                      \
    X(hipError_t, hipMallocManaged, void **, size_t, unsigned int)                                 \
    X(hipError_t, hipHostMalloc, void **, size_t, unsigned int)                                    \
    X(hipError_t, hipFree, void *)                                                                 \
    X(hipError_t, hipHostFree, void *)                                                             \
    X(hipError_t, hipMemcpy, void *, const void *, size_t, hipMemcpyKind)                          \
    X(hipError_t, hipMemcpyAsync, void *, const void *, size_t, hipMemcpyKind, hipStream_t)        \
    X(hipError_t, hipMemset, void *, int, size_t)                                                  \
    X(hipError_t, hipStreamCreateWithFlags, hipStream_t *, unsigned int)                           \
    X(hipError_t, hipStreamDestroy, hipStream_t)                                                   \
    X(hipError_t, hipStreamSynchronize, hipStream_t)                                               \
    X0(hipError_t, hipDeviceSynchronize)                                                           \
    X(hipError_t, hipEventCreate, hipEvent_t *)                                                    \
    X(hipError_t, hipEventDestroy, hipEvent_t)                                                     \
    X(hipError_t, hipEventRecord, hipEvent_t, hipStream_t)                                         \
    X(hipError_t, hipEventSynchronize, hipEvent_t)                                                 \
    X(hipError_t, hipEventElapsedTime, float *, hipEvent_t, hipEvent_t)                            \
    X(hipError_t, hipModuleLoadData, hipModule_t *, const void *)                                  \
    X(hipError_t, hipModuleUnload, hipModule_t)                                                    \
    X(hipError_t, hipModuleGetFunction, hipFunction_t *, hipModule_t, const char *)                \
    X(hipError_t, hipModuleLaunchKernel, hipFunction_t, unsigned int, unsigned int, unsigned int,  \
      unsigned int, unsigned int, unsigned int, unsigned int, hipStream_t, void **, void **)
/* optional: missing in old or stripped builds */
#define HIP_OPT_FNS(X, X0)                                                                         \
    X(hipError_t, hipMemPrefetchAsync, const void *, size_t, int, hipStream_t)                     \
    X(hipError_t, hipDeviceCanAccessPeer, int *, int, int)                                         \
    X(hipError_t, hipDeviceEnablePeerAccess, int, unsigned int)                                    \
    X(hipError_t, hipMemcpyPeerAsync, void *, int, const void *, int, size_t, hipStream_t)         \
    X(hipError_t, hipMemRangeGetAttribute, void *, size_t, hipMemRangeAttribute, const void *,     \
      size_t)                                                                                      \
    X(hipError_t, hipStreamBeginCapture, hipStream_t, hipStreamCaptureMode)                        \
    X(hipError_t, hipStreamEndCapture, hipStream_t, hipGraph_t *)                                  \
    X(hipError_t, hipGraphInstantiate, hipGraphExec_t *, hipGraph_t, hipGraphNode_t *, char *,     \
      size_t)                                                                                      \
    X(hipError_t, hipGraphLaunch, hipGraphExec_t, hipStream_t)                                     \
    X(hipError_t, hipGraphExecDestroy, hipGraphExec_t)                                             \
    X(hipError_t, hipGraphDestroy, hipGraph_t)
#define RTC_FNS(X, X0)                                                                             \
    X(hiprtcResult, hiprtcVersion, int *, int *)                                                   \
    X(const char *, hiprtcGetErrorString, hiprtcResult)                                            \
    X(hiprtcResult, hiprtcCreateProgram, hiprtcProgram *, const char *, const char *, int,         \
      const char **, const char **)                                                                \
    X(hiprtcResult, hiprtcCompileProgram, hiprtcProgram, int, const char **)                       \
    X(hiprtcResult, hiprtcGetProgramLogSize, hiprtcProgram, size_t *)                              \
    X(hiprtcResult, hiprtcGetProgramLog, hiprtcProgram, char *)                                    \
    X(hiprtcResult, hiprtcGetCodeSize, hiprtcProgram, size_t *)                                    \
    X(hiprtcResult, hiprtcGetCode, hiprtcProgram, char *)                                          \
    X(hiprtcResult, hiprtcDestroyProgram, hiprtcProgram *)
#define BLAS_FNS(X, X0)                                                                            \
    X(rocblas_status, rocblas_create_handle, rocblas_handle *)                                     \
    X(rocblas_status, rocblas_destroy_handle, rocblas_handle)                                      \
    X(rocblas_status, rocblas_set_stream, rocblas_handle, hipStream_t)                             \
    X(rocblas_status, rocblas_gemm_ex, rocblas_handle, rocblas_operation, rocblas_operation,       \
      rocblas_int, rocblas_int, rocblas_int, const void *, const void *, rocblas_datatype,         \
      rocblas_int, const void *, rocblas_datatype, rocblas_int, const void *, const void *,        \
      rocblas_datatype, rocblas_int, void *, rocblas_datatype, rocblas_int, rocblas_datatype,      \
      rocblas_gemm_algo, int32_t, uint32_t)
#define BLAS_OPT_FNS(X, X0)                                                                        \
    X(rocblas_status, rocblas_gemm_strided_batched_ex, rocblas_handle, rocblas_operation,          \
      rocblas_operation, rocblas_int, rocblas_int, rocblas_int, const void *, const void *,        \
      rocblas_datatype, rocblas_int, rocblas_stride, const void *, rocblas_datatype, rocblas_int,  \
      rocblas_stride, const void *, const void *, rocblas_datatype, rocblas_int, rocblas_stride,   \
      void *, rocblas_datatype, rocblas_int, rocblas_stride, rocblas_int, rocblas_datatype,        \
      rocblas_gemm_algo, int32_t, uint32_t)                                                        \
    X(rocblas_status, rocblas_gemm_batched_ex, rocblas_handle, rocblas_operation,                  \
      rocblas_operation, rocblas_int, rocblas_int, rocblas_int, const void *, const void *,        \
      rocblas_datatype, rocblas_int, const void *, rocblas_datatype, rocblas_int, const void *,    \
      const void *, rocblas_datatype, rocblas_int, void *, rocblas_datatype, rocblas_int,          \
      rocblas_int, rocblas_datatype, rocblas_gemm_algo, int32_t, uint32_t)                         \
    X(const char *, rocblas_status_to_string, rocblas_status)
#define HSA_FNS(X, X0)                                                                             \
    X0(hsa_status_t, hsa_init)                                                                     \
    X(hsa_status_t, hsa_iterate_agents, agent_cb_t, void *)                                        \
    X(hsa_status_t, hsa_agent_get_info, hsa_agent_t, hsa_agent_info_t, void *)                     \
    X(hsa_status_t, hsa_agent_iterate_isas, hsa_agent_t, isa_cb_t, void *)                         \
    X(hsa_status_t, hsa_isa_get_info_alt, hsa_isa_t, hsa_isa_info_t, void *)
#define ALL_FNS(X, X0)                                                                             \
    HIP_FNS(X, X0)                                                                                 \
    HIP_OPT_FNS(X, X0) RTC_FNS(X, X0) HSA_FNS(X, X0) BLAS_FNS(X, X0) BLAS_OPT_FNS(X, X0)

#define DECL(r, fn, ...) __typeof__(&fn) fn;
struct hip {
    void *h, *rtc, *hsa, *blas;
    ALL_FNS(DECL, DECL)
    rocblas_handle handle; /* created on the first GEMM (needs a device) */
    struct gpu_lt *lt;     /* hipBLASLt, NULL = GEMMs through rocBLAS */
    int capturing;         /* between graph_begin and graph_end: hipBLASLt must not tune */
    int hsa_ok;
    char hsa_why[256]; /* why there are no agents: library, symbol or hsa_init */
    int nagent;
    struct agent {
        char isa[128];          /* "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "" if none */
        char pci[PCI_ADDR_STR]; /* "" when HSA does not give the address */
        struct pci_addr addr;
    } agent[16]; /* HSA GPU agents, in enumeration order */
};

/* ---- --trace-gpu (gpu_trace.h): the real functions behind the wrappers --- */
static struct {
    ALL_FNS(DECL, DECL)
} tr_real;

static const char *tr_hip_name(unsigned e)
{
    return tr_real.hipGetErrorName ? tr_real.hipGetErrorName(e) : NULL;
}
static const char *tr_rtc_name(unsigned e)
{
    return tr_real.hiprtcGetErrorString ? tr_real.hiprtcGetErrorString(e) : NULL;
}
static const char *tr_blas_name(unsigned e)
{
    return tr_real.rocblas_status_to_string ? tr_real.rocblas_status_to_string(e) : NULL;
}
static void tr_agent(struct gpu_trace_call *c, hsa_agent_t a)
{
    gpu_trace_rec(c, GT_HANDLE, 0, a.handle, 0);
}
static void tr_isa(struct gpu_trace_call *c, hsa_isa_t a)
{
    gpu_trace_rec(c, GT_HANDLE, 0, a.handle, 0);
}
static void tr_agent_cb(struct gpu_trace_call *c, agent_cb_t f)
{
    gpu_trace_rec(c, GT_FN, 0, f != NULL, 0);
}
static void tr_isa_cb(struct gpu_trace_call *c, isa_cb_t f)
{
    gpu_trace_rec(c, GT_FN, 0, f != NULL, 0);
}
/* the handles these libraries return through a pointer */
#define GT_EXTRA_TYPES                                                                             \
    hipStream_t * : gt_out_handle,                                                                 \
                    hipEvent_t * : gt_out_handle,                                                  \
                                   hipModule_t                                                     \
                                       * : gt_out_handle,                                          \
                                           hipFunction_t                                           \
                                               * : gt_out_handle,                                  \
                                                   hipGraph_t                                      \
                                                       * : gt_out_handle,                          \
                                                           hipGraphExec_t                          \
                                                               * : gt_out_handle,                  \
                                                                   hiprtcProgram                   \
                                                                       * : gt_out_handle,          \
                                                                           rocblas_handle          \
                                                                               * : gt_out_handle,  \
                                                                                   hsa_agent_t     \
        : tr_agent,                                                                                \
          hsa_isa_t : tr_isa,                                                                      \
                      agent_cb_t : tr_agent_cb,                                                    \
                                   isa_cb_t : tr_isa_cb,

#define TW_HIP(r, fn, ...) GT_WRAPPER(tr_real, "hip", tr_hip_name, r, fn, __VA_ARGS__)
#define TW0_HIP(r, fn) GT_WRAPPER0(tr_real, "hip", tr_hip_name, r, fn)
#define TW_RTC(r, fn, ...) GT_WRAPPER(tr_real, "hiprtc", tr_rtc_name, r, fn, __VA_ARGS__)
#define TW_HSA(r, fn, ...) GT_WRAPPER(tr_real, "hsa", NULL, r, fn, __VA_ARGS__)
#define TW0_HSA(r, fn) GT_WRAPPER0(tr_real, "hsa", NULL, r, fn)
#define TW_BLAS(r, fn, ...) GT_WRAPPER(tr_real, "rocblas", tr_blas_name, r, fn, __VA_ARGS__)
HIP_FNS(TW_HIP, TW0_HIP)
HIP_OPT_FNS(TW_HIP, TW0_HIP)
RTC_FNS(TW_RTC, TW_RTC)
HSA_FNS(TW_HSA, TW0_HSA)
BLAS_FNS(TW_BLAS, TW_BLAS)
BLAS_OPT_FNS(TW_BLAS, TW_BLAS)

/* with a trace open, the bound pointers of one list become the wrappers */
#define WRAP(r, fn, ...)                                                                           \
    if (h->fn) {                                                                                   \
        tr_real.fn = h->fn;                                                                        \
        h->fn = tw_##fn;                                                                           \
    }
#define TRACE_LIST(LIST)                                                                           \
    do {                                                                                           \
        if (gpu_trace_on()) {                                                                      \
            LIST(WRAP, WRAP)                                                                       \
        }                                                                                          \
    } while (0)

static struct hip *H(struct gpu_backend *b)
{
    return b->priv;
}

/* record and return a failed call's code */
static int chk(struct gpu_backend *b, const char *what, hipError_t e)
{
    if (e) {
        struct hip *h = H(b);
        gpu_set_err(b, "%s: %s: %s", what, h->hipGetErrorName ? h->hipGetErrorName(e) : "?",
                    h->hipGetErrorString ? h->hipGetErrorString(e) : "?");
    }
    return e;
}
#define CALL(b, fn, ...) chk(b, #fn, H(b)->fn(__VA_ARGS__))

static int h_device_count(struct gpu_backend *b, int *n)
{
    *n = 0;
    if (b->init_err[0])
        return 0;
    return CALL(b, hipGetDeviceCount, n);
}

static int h_set_device(struct gpu_backend *b, int dev)
{
    return CALL(b, hipSetDevice, dev);
}

static int attr(struct gpu_backend *b, int a, int dev)
{
    int v = -1;
    if (H(b)->hipDeviceGetAttribute(&v, a, dev))
        return -1;
    return v;
}

/* the ISA name of the HSA agent at p->pci (see the comment at the top) */
static void isa_for(struct hip *h, struct gpu_props *p)
{
    struct pci_addr a;
    if (pci_addr_parse(p->pci, &a)) {
        if (!p->arch_why[0])
            snprintf(p->arch_why, sizeof(p->arch_why), "hipDeviceGetPCIBusId failed");
        snprintf(p->arch_why + strlen(p->arch_why), sizeof(p->arch_why) - strlen(p->arch_why),
                 ": without a PCI address the HSA agent (and so the ISA) cannot be told");
        return;
    }
    if (!h->hsa_ok) {
        snprintf(p->arch_why, sizeof(p->arch_why), "no HSA agents: %.200s", h->hsa_why);
        return;
    }
    struct strbuf seen = STRBUF_INIT;
    for (int i = 0; i < h->nagent; i++) {
        const struct agent *ag = &h->agent[i];
        if (!ag->pci[0] || pci_addr_match(&a, &ag->addr) != PCI_MATCH_EXACT) {
            strbuf_addf(&seen, "%s%s", seen.len ? ", " : "", ag->pci[0] ? ag->pci : "?");
            continue;
        }
        if (!ag->isa[0]) {
            snprintf(p->arch_why, sizeof(p->arch_why), "the HSA agent at %s has no ISA name",
                     p->pci);
            break;
        }
        const char *g = strstr(ag->isa, "--");
        snprintf(p->arch, sizeof(p->arch), "%s", g ? g + 2 : ag->isa);
        snprintf(p->target, sizeof(p->target), "%.*s", (int)strcspn(p->arch, ":"), p->arch);
        strbuf_release(&seen);
        return;
    }
    if (!p->arch_why[0])
        snprintf(p->arch_why, sizeof(p->arch_why), "no HSA GPU agent at PCI %s (agents at: %s)",
                 p->pci, seen.len ? seen.buf : "none");
    strbuf_release(&seen);
}

static int h_props(struct gpu_backend *b, int dev, struct gpu_props *p)
{
    struct hip *h = H(b);
    memset(p, 0, sizeof(*p));
    int e = CALL(b, hipDeviceGetName, p->name, (int)sizeof(p->name), dev);
    if (e)
        return e;
    size_t total = 0;
    if (!CALL(b, hipDeviceTotalMem, &total, dev))
        p->total_mem = total;
    char pci[32] = "";
    struct pci_addr pa;
    if (!h->hipDeviceGetPCIBusId(pci, (int)sizeof(pci), dev)) {
        if (pci_addr_parse(pci, &pa) == 0)
            pci_addr_format(&pa, p->pci);
        else
            snprintf(p->arch_why, sizeof(p->arch_why), "hipDeviceGetPCIBusId gave '%.32s'", pci);
    }
    p->cu_count = attr(b, hipDeviceAttributeMultiprocessorCount, dev);
    p->managed = attr(b, hipDeviceAttributeManagedMemory, dev);
    p->concurrent_managed = attr(b, hipDeviceAttributeConcurrentManagedAccess, dev);
    p->pageable_access = attr(b, hipDeviceAttributePageableMemoryAccess, dev);
    p->clock_khz = attr(b, hipDeviceAttributeClockRate, dev);
    p->mem_clock_khz = attr(b, hipDeviceAttributeMemoryClockRate, dev);
    p->mem_bus_width = attr(b, hipDeviceAttributeMemoryBusWidth, dev);
    p->cc_major = attr(b, hipDeviceAttributeComputeCapabilityMajor, dev);
    p->cc_minor = attr(b, hipDeviceAttributeComputeCapabilityMinor, dev);
    isa_for(h, p);
    return 0;
}

static int h_mem_info(struct gpu_backend *b, size_t *f, size_t *t)
{
    return CALL(b, hipMemGetInfo, f, t);
}
static int h_malloc(struct gpu_backend *b, void **p, size_t n)
{
    return CALL(b, hipMalloc, p, n);
}
static int h_malloc_managed(struct gpu_backend *b, void **p, size_t n)
{
    return CALL(b, hipMallocManaged, p, n, hipMemAttachGlobal);
}
static int h_malloc_host(struct gpu_backend *b, void **p, size_t n)
{
    return CALL(b, hipHostMalloc, p, n, hipHostMallocDefault);
}
static int h_free(struct gpu_backend *b, void *p)
{
    return CALL(b, hipFree, p);
}
static int h_free_host(struct gpu_backend *b, void *p)
{
    return CALL(b, hipHostFree, p);
}
static int h_memcpy(struct gpu_backend *b, void *d, const void *s, size_t n, enum gpu_copy k)
{
    return CALL(b, hipMemcpy, d, s, n, (hipMemcpyKind)k);
}
static int h_memcpy_async(struct gpu_backend *b, void *d, const void *s, size_t n, enum gpu_copy k,
                          gpu_stream st)
{
    return CALL(b, hipMemcpyAsync, d, s, n, (hipMemcpyKind)k, st);
}
static int h_memset(struct gpu_backend *b, void *p, int v, size_t n)
{
    return CALL(b, hipMemset, p, v, n);
}
static int h_can_access_peer(struct gpu_backend *b, int dev, int peer, int *can)
{
    *can = 0;
    if (!H(b)->hipDeviceCanAccessPeer)
        return gpu_set_err(b, "this HIP runtime has no hipDeviceCanAccessPeer"), -1;
    return CALL(b, hipDeviceCanAccessPeer, can, dev, peer);
}
static int h_enable_peer(struct gpu_backend *b, int peer)
{
    if (!H(b)->hipDeviceEnablePeerAccess)
        return gpu_set_err(b, "this HIP runtime has no hipDeviceEnablePeerAccess"), -1;
    hipError_t e = H(b)->hipDeviceEnablePeerAccess(peer, 0);
    return e == hipErrorPeerAccessAlreadyEnabled ? 0 : chk(b, "hipDeviceEnablePeerAccess", e);
}
static int h_memcpy_peer_async(struct gpu_backend *b, void *dst, int ddev, const void *src,
                               int sdev, size_t n, gpu_stream s)
{
    if (!H(b)->hipMemcpyPeerAsync)
        return gpu_set_err(b, "this HIP runtime has no hipMemcpyPeerAsync"), -1;
    return CALL(b, hipMemcpyPeerAsync, dst, ddev, src, sdev, n, s);
}
static int h_prefetch(struct gpu_backend *b, const void *p, size_t n, int dev, gpu_stream s)
{
    if (!H(b)->hipMemPrefetchAsync)
        return gpu_set_err(b, "hipMemPrefetchAsync not in this runtime"), -1;
    return CALL(b, hipMemPrefetchAsync, p, n, dev < 0 ? hipCpuDeviceId : dev, s);
}
static int h_prefetch_location(struct gpu_backend *b, const void *p, size_t n, int *loc)
{
    if (!H(b)->hipMemRangeGetAttribute)
        return gpu_set_err(b, "hipMemRangeGetAttribute not in this runtime"), -1;
    int v = hipInvalidDeviceId;
    int e = CALL(b, hipMemRangeGetAttribute, &v, sizeof(v),
                 hipMemRangeAttributeLastPrefetchLocation, p, n);
    *loc = v == hipCpuDeviceId ? -1 : v < 0 ? -2 : v;
    return e;
}
static int h_stream_create(struct gpu_backend *b, gpu_stream *s, int nonblocking)
{
    return CALL(b, hipStreamCreateWithFlags, (hipStream_t *)s,
                nonblocking ? hipStreamNonBlocking : 0);
}
static int h_stream_destroy(struct gpu_backend *b, gpu_stream s)
{
    return CALL(b, hipStreamDestroy, s);
}
static int h_stream_sync(struct gpu_backend *b, gpu_stream s)
{
    return CALL(b, hipStreamSynchronize, s);
}
static int h_device_sync(struct gpu_backend *b)
{
    return CALL(b, hipDeviceSynchronize);
}
static int h_event_create(struct gpu_backend *b, gpu_event *e)
{
    return CALL(b, hipEventCreate, (hipEvent_t *)e);
}
static int h_event_destroy(struct gpu_backend *b, gpu_event e)
{
    return CALL(b, hipEventDestroy, e);
}
static int h_event_record(struct gpu_backend *b, gpu_event e, gpu_stream s)
{
    return CALL(b, hipEventRecord, e, s);
}
static int h_event_sync(struct gpu_backend *b, gpu_event e)
{
    return CALL(b, hipEventSynchronize, e);
}
static int h_event_elapsed(struct gpu_backend *b, float *ms, gpu_event a, gpu_event z)
{
    return CALL(b, hipEventElapsedTime, ms, a, z);
}

static int h_compile(struct gpu_backend *b, const char *src, const char *name, const char *target,
                     void **bin, size_t *len, struct strbuf *log)
{
    struct hip *h = H(b);
    *bin = NULL;
    *len = 0;
    if (!h->rtc) {
        gpu_set_err(b, "no hiprtc: %s", b->rtc_err);
        return -1;
    }
    hiprtcProgram prog = NULL;
    int e = h->hiprtcCreateProgram(&prog, src, name, 0, NULL, NULL);
    if (e) {
        gpu_set_err(b, "hiprtcCreateProgram: %s", h->hiprtcGetErrorString(e));
        return e;
    }
    char arch[96];
    snprintf(arch, sizeof(arch), "--offload-arch=%s", target);
    const char *opts[] = {arch, "-O3", "-std=c++17"};
    e = h->hiprtcCompileProgram(prog, (int)ARRAY_SIZE(opts), opts);
    size_t ls = 0;
    if (!h->hiprtcGetProgramLogSize(prog, &ls) && ls > 1) {
        char *l = xmalloc(ls + 1);
        if (!h->hiprtcGetProgramLog(prog, l)) {
            l[ls] = '\0';
            strbuf_adds(log, l);
        }
        free(l);
    }
    if (e) {
        gpu_set_err(b, "hiprtcCompileProgram for %s: %s", target, h->hiprtcGetErrorString(e));
    } else if ((e = h->hiprtcGetCodeSize(prog, len)) || *len == 0) {
        gpu_set_err(b, "hiprtcGetCodeSize: %s", e ? h->hiprtcGetErrorString(e) : "empty code");
        e = e ? e : -1;
    } else {
        *bin = xmalloc(*len);
        if ((e = h->hiprtcGetCode(prog, *bin))) {
            gpu_set_err(b, "hiprtcGetCode: %s", h->hiprtcGetErrorString(e));
            free(*bin);
            *bin = NULL;
        }
    }
    h->hiprtcDestroyProgram(&prog);
    return e;
}

static int h_module_load(struct gpu_backend *b, gpu_module *m, const void *bin, size_t len)
{
    (void)len;
    return CALL(b, hipModuleLoadData, (hipModule_t *)m, bin);
}
static int h_module_unload(struct gpu_backend *b, gpu_module m)
{
    return CALL(b, hipModuleUnload, m);
}
static int h_function(struct gpu_backend *b, gpu_module m, const char *name, gpu_function *f)
{
    return CALL(b, hipModuleGetFunction, (hipFunction_t *)f, m, name);
}
static int h_launch(struct gpu_backend *b, gpu_function f, unsigned grid, unsigned block,
                    unsigned shmem, gpu_stream s, void **args)
{
    return CALL(b, hipModuleLaunchKernel, f, grid, 1, 1, block, 1, 1, shmem, s, args, NULL);
}
static int h_graph_begin(struct gpu_backend *b, gpu_stream s)
{
    if (!H(b)->hipStreamBeginCapture)
        return gpu_set_err(b, "no graph API in this runtime"), -1;
    int e = CALL(b, hipStreamBeginCapture, s, hipStreamCaptureModeThreadLocal);
    H(b)->capturing = !e;
    return e;
}
static int h_graph_end(struct gpu_backend *b, gpu_stream s, gpu_graph *g)
{
    hipGraph_t graph = NULL;
    H(b)->capturing = 0;
    int e = CALL(b, hipStreamEndCapture, s, &graph);
    if (e)
        return e;
    hipGraphExec_t ex = NULL;
    e = CALL(b, hipGraphInstantiate, &ex, graph, NULL, NULL, 0);
    H(b)->hipGraphDestroy(graph);
    *g = ex;
    return e;
}
static int h_graph_launch(struct gpu_backend *b, gpu_graph g, gpu_stream s)
{
    return CALL(b, hipGraphLaunch, g, s);
}
static int h_graph_destroy(struct gpu_backend *b, gpu_graph g)
{
    return CALL(b, hipGraphExecDestroy, g);
}

static int blas_chk(struct gpu_backend *b, const char *what, rocblas_status e)
{
    struct hip *h = H(b);
    if (e)
        gpu_set_err(b, "%s: status %d%s%s", what, e, h->rocblas_status_to_string ? " " : "",
                    h->rocblas_status_to_string ? h->rocblas_status_to_string(e) : "");
    return e;
}

static int blas_handle(struct gpu_backend *b, gpu_stream s)
{
    struct hip *h = H(b);
    int e = 0;
    if (!h->handle &&
        (e = blas_chk(b, "rocblas_create_handle", h->rocblas_create_handle(&h->handle))))
        return e;
    return blas_chk(b, "rocblas_set_stream", h->rocblas_set_stream(h->handle, s));
}

static rocblas_datatype roc_type(enum gpu_dtype t)
{
    return t == GPU_F16    ? rocblas_datatype_f16_r
           : t == GPU_BF16 ? rocblas_datatype_bf16_r
                           : rocblas_datatype_f32_r;
}

/* row-major C = A*B is column-major C^T = B^T * A^T: swap the operands
 * (the same mapping as the cuBLAS backend); C and D are the same buffer */
static int h_blas_gemm(struct gpu_backend *b, enum gpu_dtype t, int m, int n, int k, const void *A,
                       const void *B, float *C, gpu_stream s)
{
    struct hip *h = H(b);
    int e = blas_handle(b, s);
    if (e)
        return e;
    float alpha = 1.0f, beta = 0.0f;
    rocblas_datatype ty = roc_type(t);
    return blas_chk(b, "rocblas_gemm_ex",
                    h->rocblas_gemm_ex(h->handle, rocblas_operation_none, rocblas_operation_none, n,
                                       m, k, &alpha, B, ty, n, A, ty, k, &beta, C,
                                       rocblas_datatype_f32_r, n, C, rocblas_datatype_f32_r, n,
                                       rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, 0));
}

static rocblas_operation roc_op(int trans)
{
    return trans ? rocblas_operation_transpose : rocblas_operation_none;
}

/* backend.h blas_gemm_ex: row-major op(A) op(B) is column-major op(B)^T op(A)^T */
static int h_blas_gemm_ex(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                          int transb, int m, int n, int k, float alpha, const void *A, long lda,
                          long long sA, const void *B, long ldb, long long sB, float beta, void *Cm,
                          long ldc, long long sC, int batch, gpu_stream s)
{
    struct hip *h = H(b);
    rocblas_operation oa = roc_op(transa), ob = roc_op(transb);
    int e = blas_handle(b, s);
    if (e)
        return e;
    return blas_chk(b, "rocblas_gemm_strided_batched_ex",
                    h->rocblas_gemm_strided_batched_ex(
                        h->handle, ob, oa, n, m, k, &alpha, B, roc_type(t), (rocblas_int)ldb, sB, A,
                        roc_type(t), (rocblas_int)lda, sA, &beta, Cm, roc_type(ct),
                        (rocblas_int)ldc, sC, Cm, roc_type(ct), (rocblas_int)ldc, sC, batch,
                        rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, 0));
}

/* backend.h blas_gemm_ptrs: the operands swapped as in h_blas_gemm_ex; D is C */
static int h_blas_gemm_ptrs(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                            int transb, int m, int n, int k, float alpha, const void *const *A,
                            long lda, const void *const *B, long ldb, float beta, void *const *Cm,
                            long ldc, int batch, gpu_stream s)
{
    struct hip *h = H(b);
    rocblas_operation oa = roc_op(transa), ob = roc_op(transb);
    int e = blas_handle(b, s);
    if (e)
        return e;
    return blas_chk(b, "rocblas_gemm_batched_ex",
                    h->rocblas_gemm_batched_ex(
                        h->handle, ob, oa, n, m, k, &alpha, B, roc_type(t), (rocblas_int)ldb, A,
                        roc_type(t), (rocblas_int)lda, &beta, Cm, roc_type(ct), (rocblas_int)ldc,
                        (void *)Cm, roc_type(ct), (rocblas_int)ldc, batch, rocblas_datatype_f32_r,
                        rocblas_gemm_algo_standard, 0, 0));
}

/* backend.h blas_lt: tuned only outside this backend's own stream capture
 * (no allocation, no synchronisation inside one) */
static int h_blas_lt(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                     int transb, int m, int n, int k, float alpha, const void *A, long lda,
                     const void *B, long ldb, float beta, void *Cm, long ldc, const void *bias,
                     enum gpu_dtype bias_t, int epi, gpu_stream s)
{
    struct hip *h = H(b);
    return gpu_lt_gemm(h->lt, b, !h->capturing, t, ct, transa, transb, m, n, k, alpha, A, lda, B,
                       ldb, beta, Cm, ldc, bias, bias_t, epi, s);
}

static void h_close(struct gpu_backend *b)
{
    gpu_lt_close(H(b)->lt);
}

static char *hip_dir;

void gpu_backend_hip_use_dir(const char *dir)
{
    free(hip_dir);
    hip_dir = dir && *dir ? xstrdup(dir) : NULL;
}

const char *gpu_backend_hip_dir(void)
{
    return hip_dir;
}

/* "<hip_dir>/<file>" in buf, or NULL when no directory is set */
static const char *in_dir(char *buf, size_t n, const char *file)
{
    if (!hip_dir)
        return NULL;
    snprintf(buf, n, "%s/%s", hip_dir, file);
    return buf;
}

/* rocBLAS is optional: without it gpu_gemm() runs kernels/gemm.hip. Loading it
 * needs no device; the handle (which does) is made on the first GEMM. */
static void load_blas(struct gpu_backend *b, struct hip *h)
{
    const char *forced = getenv("ROCM_VLA_DOCTOR_ROCBLAS_LIB");
    char own[4096];
    const char *const names[] = {forced,
                                 forced ? NULL : in_dir(own, sizeof(own), "librocblas.so"),
                                 forced ? NULL : "librocblas.so",
                                 forced ? NULL : "librocblas.so.5",
                                 forced ? NULL : "librocblas.so.4",
                                 forced ? NULL : "librocblas.so.3",
                                 forced ? NULL : "librocblas.so.0",
                                 forced ? NULL : "/opt/rocm/lib/librocblas.so"};
    struct strbuf why = STRBUF_INIT;
    void *l = gpu_dlopen_first(names, ARRAY_SIZE(names), b->blas_lib, sizeof(b->blas_lib), &why);
    if (!l) {
        snprintf(b->blas_err, sizeof(b->blas_err), "no rocBLAS: %s",
                 why.buf ? why.buf : "not found");
        strbuf_release(&why);
        return;
    }
    strbuf_release(&why);
#define LOADBLAS(r, fn, ...) h->fn = (__typeof__(&fn))dlsym(l, #fn);
    BLAS_FNS(LOADBLAS, LOADBLAS)
    BLAS_OPT_FNS(LOADBLAS, LOADBLAS)
#define NEEDBLAS(r, fn, ...)                                                                       \
    if (!h->fn) {                                                                                  \
        snprintf(b->blas_err, sizeof(b->blas_err), "%.400s lacks %s", b->blas_lib, #fn);           \
        b->blas_lib[0] = '\0';                                                                     \
        return;                                                                                    \
    }
    BLAS_FNS(NEEDBLAS, NEEDBLAS)
    TRACE_LIST(BLAS_FNS);
    TRACE_LIST(BLAS_OPT_FNS);
    h->blas = l;
    b->blas_api = "rocBLAS rocblas_gemm_ex";
}

/* hipBLASLt (PyTorch's default GEMM path on MI200+ since ROCm 6): bound as
 * blas_lt where rocBLAS is (the fallback for what it refuses); extra_lib is
 * the library bound (its name says the ROCm series) or why the GEMMs go
 * through rocBLAS instead */
static void bind_blaslt(struct gpu_backend *b, struct hip *h)
{
    const char *off = getenv("ROCM_VLA_DOCTOR_NO_BLASLT");
    if (off && *off && strcmp(off, "0") != 0)
        snprintf(b->blas_lt_err, sizeof(b->blas_lt_err),
                 "disabled by ROCM_VLA_DOCTOR_NO_BLASLT=%.32s", off);
    else if (!h->blas)
        snprintf(b->blas_lt_err, sizeof(b->blas_lt_err), "not tried: no rocBLAS (%.400s)",
                 b->blas_err);
    else if (b->init_err[0]) /* hipblasLtCreate needs a device */
        snprintf(b->blas_lt_err, sizeof(b->blas_lt_err), "not tried: %.400s", b->init_err);
    if (b->blas_lt_err[0]) {
        snprintf(b->extra_lib, sizeof(b->extra_lib), "no hipBLASLt: %.480s", b->blas_lt_err);
        return;
    }
    const char *forced = getenv("ROCM_VLA_DOCTOR_HIPBLASLT_LIB");
    char own[4096];
    const char *const names[] = {forced,
                                 forced ? NULL : in_dir(own, sizeof(own), "libhipblaslt.so"),
                                 forced ? NULL : "libhipblaslt.so",
                                 forced ? NULL : "libhipblaslt.so.1",
                                 forced ? NULL : "libhipblaslt.so.0",
                                 forced ? NULL : "/opt/rocm/lib/libhipblaslt.so"};
    char *why = NULL;
    h->lt = gpu_lt_hip_open(names, ARRAY_SIZE(names), b->blas_lt_lib, sizeof(b->blas_lt_lib), &why);
    if (h->lt)
        snprintf(b->extra_lib, sizeof(b->extra_lib), "%s", b->blas_lt_lib);
    else {
        snprintf(b->blas_lt_err, sizeof(b->blas_lt_err), "%.300s; GEMMs through rocBLAS (%.160s)",
                 why ? why : "not loaded", b->blas_lib);
        snprintf(b->extra_lib, sizeof(b->extra_lib), "no hipBLASLt: %.480s", b->blas_lt_err);
    }
    free(why);
}

static hsa_status_t isa_cb(hsa_isa_t isa, void *data)
{
    struct hip *h = data;
    char name[128] = "";
    uint32_t nl = 0;
    if (h->hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &nl) || nl >= sizeof(name))
        return 0;
    if (h->hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name))
        return 0;
    snprintf(h->agent[h->nagent].isa, sizeof(h->agent[0].isa), "%s", name);
    return HSA_STATUS_INFO_BREAK; /* the first ISA is the agent's own */
}

static hsa_status_t agent_cb(hsa_agent_t agent, void *data)
{
    struct hip *h = data;
    int type = -1;
    if (h->hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) || type != HSA_DEVICE_TYPE_GPU)
        return 0;
    if (h->nagent >= (int)ARRAY_SIZE(h->agent))
        return HSA_STATUS_INFO_BREAK;
    struct agent *ag = &h->agent[h->nagent];
    memset(ag, 0, sizeof(*ag));
    uint32_t bdfid = 0, domain = 0;
    if (!h->hsa_agent_get_info(agent, HSA_AMD_AGENT_INFO_BDFID, &bdfid) &&
        !h->hsa_agent_get_info(agent, HSA_AMD_AGENT_INFO_DOMAIN, &domain)) {
        pci_addr_from_hsa(bdfid, domain, &ag->addr);
        pci_addr_format(&ag->addr, ag->pci);
    }
    h->hsa_agent_iterate_isas(agent, isa_cb, h);
    h->nagent++;
    return 0;
}

static void load_hsa(struct hip *h)
{
    const char *forced = getenv("ROCM_VLA_DOCTOR_HSA_LIB");
    char own[4096];
    const char *const names[] = {
        forced, forced ? NULL : in_dir(own, sizeof(own), "libhsa-runtime64.so"),
        forced ? NULL : "libhsa-runtime64.so.1", forced ? NULL : "libhsa-runtime64.so"};
    struct strbuf why = STRBUF_INIT;
    h->hsa = gpu_dlopen_first(names, ARRAY_SIZE(names), NULL, 0, &why);
    if (!h->hsa) {
        snprintf(h->hsa_why, sizeof(h->hsa_why), "%s", why.buf ? why.buf : "not found");
        strbuf_release(&why);
        return;
    }
    strbuf_release(&why);
#define LOADHSA(r, fn, ...) h->fn = (__typeof__(&fn))dlsym(h->hsa, #fn);
    HSA_FNS(LOADHSA, LOADHSA)
    if (!h->hsa_init || !h->hsa_iterate_agents || !h->hsa_agent_get_info ||
        !h->hsa_agent_iterate_isas || !h->hsa_isa_get_info_alt) {
        snprintf(h->hsa_why, sizeof(h->hsa_why), "libhsa-runtime64 lacks the hsa_* functions used");
        return;
    }
    TRACE_LIST(HSA_FNS);
    hsa_status_t e = h->hsa_init();
    if (e) {
        snprintf(h->hsa_why, sizeof(h->hsa_why), "hsa_init: status 0x%x", (unsigned)e);
        return;
    }
    h->hsa_ok = 1;
    h->hsa_iterate_agents(agent_cb, h);
}

static void load_rtc(struct gpu_backend *b, struct hip *h)
{
    /* 5.x: hiprtc is inside libamdhip64; 6.x: a separate libhiprtc.so.N */
    void *cand = NULL;
    if (dlsym(h->h, "hiprtcCompileProgram")) {
        cand = h->h;
        snprintf(b->rtc_lib, sizeof(b->rtc_lib), "%s", b->lib);
    } else {
        char own[4096];
        const char *const names[] = {in_dir(own, sizeof(own), "libhiprtc.so"), "libhiprtc.so",
                                     "libhiprtc.so.7", "libhiprtc.so.6",
                                     "/opt/rocm/lib/libhiprtc.so"};
        struct strbuf why = STRBUF_INIT;
        cand = gpu_dlopen_first(names, ARRAY_SIZE(names), b->rtc_lib, sizeof(b->rtc_lib), &why);
        if (!cand)
            snprintf(b->rtc_err, sizeof(b->rtc_err), "%s", why.buf ? why.buf : "not found");
        strbuf_release(&why);
        if (!cand)
            return;
    }
#define LOADRTC(r, fn, ...) h->fn = (__typeof__(&fn))dlsym(cand, #fn);
    RTC_FNS(LOADRTC, LOADRTC)
#define NEEDRTC(r, fn, ...)                                                                        \
    if (!h->fn) {                                                                                  \
        snprintf(b->rtc_err, sizeof(b->rtc_err), "%.400s lacks %s", b->rtc_lib, #fn);              \
        return;                                                                                    \
    }
    RTC_FNS(NEEDRTC, NEEDRTC)
    TRACE_LIST(RTC_FNS);
    h->rtc = cand;
}

struct gpu_backend *gpu_backend_hip_open(char **why)
{
    const char *forced = getenv("ROCM_VLA_DOCTOR_HIP_LIB");
    char own[4096];
    const char *const names[] = {forced,
                                 forced ? NULL : in_dir(own, sizeof(own), "libamdhip64.so"),
                                 forced ? NULL : "libamdhip64.so",
                                 forced ? NULL : "libamdhip64.so.7",
                                 forced ? NULL : "libamdhip64.so.6",
                                 forced ? NULL : "libamdhip64.so.5",
                                 forced ? NULL : "/opt/rocm/lib/libamdhip64.so"};
    struct strbuf sb = STRBUF_INIT;
    struct gpu_backend *b = xcalloc(1, sizeof(*b));
    struct hip *h = xcalloc(1, sizeof(*h));
    b->priv = h;
    b->name = "hip";
    h->h = gpu_dlopen_first(names, ARRAY_SIZE(names), b->lib, sizeof(b->lib), &sb);
    if (!h->h)
        goto fail;
#define LOAD(r, fn, ...) h->fn = (__typeof__(&fn))dlsym(h->h, #fn);
    HIP_FNS(LOAD, LOAD)
    HIP_OPT_FNS(LOAD, LOAD)
#define NEED(r, fn, ...)                                                                           \
    if (!h->fn) {                                                                                  \
        strbuf_addf(&sb, "%s lacks %s", b->lib, #fn);                                              \
        goto fail;                                                                                 \
    }
    HIP_FNS(NEED, NEED)
    TRACE_LIST(HIP_FNS);
    TRACE_LIST(HIP_OPT_FNS);
    h->hipRuntimeGetVersion(&b->runtime_version);
    load_rtc(b, h);
    /* with no GPU, hipInit fails (hipErrorNoDevice, or hipErrorInvalidDevice
     * on ROCm 5.2): that is a loaded runtime with 0 devices, not a load failure */
    hipError_t e = h->hipInit(0);
    if (e)
        snprintf(b->init_err, sizeof(b->init_err), "hipInit: %s (%s)", h->hipGetErrorName(e),
                 h->hipGetErrorString(e));
    h->hipDriverGetVersion(&b->driver_version);
    load_hsa(h);
    load_blas(b, h);
    bind_blaslt(b, h);
    b->device_count = h_device_count;
    b->set_device = h_set_device;
    b->props = h_props;
    b->mem_info = h_mem_info;
    b->malloc = h_malloc;
    b->malloc_managed = h_malloc_managed;
    b->malloc_host = h_malloc_host;
    b->free = h_free;
    b->free_host = h_free_host;
    b->memcpy = h_memcpy;
    b->memcpy_async = h_memcpy_async;
    b->memset = h_memset;
    b->can_access_peer = h_can_access_peer;
    b->enable_peer = h_enable_peer;
    b->memcpy_peer_async = h_memcpy_peer_async;
    b->prefetch = h_prefetch;
    b->prefetch_location = h_prefetch_location;
    b->stream_create = h_stream_create;
    b->stream_destroy = h_stream_destroy;
    b->stream_sync = h_stream_sync;
    b->device_sync = h_device_sync;
    b->event_create = h_event_create;
    b->event_destroy = h_event_destroy;
    b->event_record = h_event_record;
    b->event_sync = h_event_sync;
    b->event_elapsed_ms = h_event_elapsed;
    b->compile = h_compile;
    b->module_load = h_module_load;
    b->module_unload = h_module_unload;
    b->function = h_function;
    b->launch = h_launch;
    b->blas_gemm = h->blas ? h_blas_gemm : NULL;
    b->blas_gemm_ex = h->blas && h->rocblas_gemm_strided_batched_ex ? h_blas_gemm_ex : NULL;
    b->blas_gemm_ptrs = h->blas && h->rocblas_gemm_batched_ex ? h_blas_gemm_ptrs : NULL;
    b->blas_lt = h->lt ? h_blas_lt : NULL;
    b->close = h_close;
    b->graph_begin = h_graph_begin;
    b->graph_end = h_graph_end;
    b->graph_launch = h_graph_launch;
    b->graph_destroy = h_graph_destroy;
    strbuf_release(&sb);
    *why = NULL;
    return b;
fail:
    *why = strbuf_detach(&sb);
    if (h->h)
        dlclose(h->h);
    free(h);
    free(b);
    return NULL;
}
