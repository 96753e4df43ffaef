/* hip_api.h - the HIP runtime, hiprtc and HSA declarations this project uses,
 * written from ROCm's hip_runtime_api.h / hiprtc.h / hsa.h (checked against
 * Debian's ROCm 5.2 headers and ROCm/clr's 6.x hip_runtime_api.h). Never
 * linked: backend_hip.c resolves each with (__typeof__(&fn))dlsym so that a
 * call with the wrong signature fails the build.
 *
 * ABI notes: hipDeviceProp_t changed layout in 6.0 (hipGetDevicePropertiesR0600),
 * so this code never reads it; it asks hipDeviceGetAttribute, whose enum
 * values below are those of the CUDA-compatible block, equal in 5.x, 6.x and
 * 7.x (tests/data/rocm-abi.tsv names the headers compared).
 *
 * Enumerations are declared as their C type: GCC and Clang give a C enum with
 * no negative value the type unsigned int, so "typedef unsigned int" here is
 * the same type as the vendor's enum and tests/rocm_headers.sh can compare
 * every prototype exactly (__builtin_types_compatible_p) against the real
 * headers. The HSA handle structs are left to hsa.h when that is included
 * first (HSA_RUNTIME_INC_HSA_H_, the header test). */
#ifndef RVD_GPU_HIP_API_H
#define RVD_GPU_HIP_API_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned int hipError_t;
typedef int hipDevice_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipGraph *hipGraph_t;
typedef struct hipGraphExec *hipGraphExec_t;
typedef struct hipGraphNode *hipGraphNode_t;
typedef unsigned int hipDeviceAttribute_t;
typedef unsigned int hipMemcpyKind;
typedef unsigned int hipStreamCaptureMode;
typedef unsigned int hipMemRangeAttribute;

enum {
    hipDeviceAttributeClockRate = 5,
    hipDeviceAttributeConcurrentManagedAccess = 9,
    hipDeviceAttributeComputeCapabilityMajor = 23,
    hipDeviceAttributeManagedMemory = 24,
    hipDeviceAttributeMemoryBusWidth = 59,
    hipDeviceAttributeMemoryClockRate = 60,
    hipDeviceAttributeComputeCapabilityMinor = 61,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributePageableMemoryAccess = 65,
};
enum { hipStreamNonBlocking = 1, hipMemAttachGlobal = 1, hipHostMallocDefault = 0 };
enum { hipStreamCaptureModeGlobal = 0, hipStreamCaptureModeThreadLocal = 1 };
enum { hipMemRangeAttributeLastPrefetchLocation = 4 };
enum { hipCpuDeviceId = -1, hipInvalidDeviceId = -2 };
/* hipDeviceEnablePeerAccess on a pair already enabled */
enum { hipErrorPeerAccessAlreadyEnabled = 704 };

hipError_t hipInit(unsigned int flags);
hipError_t hipRuntimeGetVersion(int *runtimeVersion);
hipError_t hipDriverGetVersion(int *driverVersion);
const char *hipGetErrorName(hipError_t e);
const char *hipGetErrorString(hipError_t e);
hipError_t hipGetDeviceCount(int *count);
hipError_t hipSetDevice(int deviceId);
hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device);
hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device);
hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId);
hipError_t hipMemGetInfo(size_t *free, size_t *total);
hipError_t hipMalloc(void **ptr, size_t size);
hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags);
hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags);
hipError_t hipFree(void *ptr);
hipError_t hipHostFree(void *ptr);
hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream);
hipError_t hipMemset(void *dst, int value, size_t sizeBytes);
hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId);
hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags);
hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice,
                              size_t sizeBytes, hipStream_t stream);
hipError_t hipMemPrefetchAsync(const void *dev_ptr, size_t count, int device, hipStream_t stream);
hipError_t hipMemRangeGetAttribute(void *data, size_t data_size, hipMemRangeAttribute attribute,
                                   const void *dev_ptr, size_t count);
hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipDeviceSynchronize(void);
hipError_t hipEventCreate(hipEvent_t *event);
hipError_t hipEventDestroy(hipEvent_t event);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);
hipError_t hipModuleLoadData(hipModule_t *module, const void *image);
hipError_t hipModuleUnload(hipModule_t module);
hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *kname);
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void **kernelParams, void **extra);
hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode);
hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph);
hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                               hipGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize);
hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream);
hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec);
hipError_t hipGraphDestroy(hipGraph_t graph);

/* hiprtc: in libamdhip64 on ROCm 5.x, in libhiprtc.so.N on 6.x */
typedef unsigned int hiprtcResult;
typedef struct _hiprtcProgram *hiprtcProgram;
hiprtcResult hiprtcVersion(int *major, int *minor);
const char *hiprtcGetErrorString(hiprtcResult result);
hiprtcResult hiprtcCreateProgram(hiprtcProgram *prog, const char *src, const char *name,
                                 int numHeaders, const char **headers, const char **includeNames);
hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char **options);
hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t *logSizeRet);
hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char *log);
hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t *codeSizeRet);
hiprtcResult hiprtcGetCode(hiprtcProgram prog, char *code);
hiprtcResult hiprtcDestroyProgram(hiprtcProgram *prog);

/* HSA (libhsa-runtime64): the agents' ISA names, e.g. amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- */
typedef unsigned int hsa_status_t;
#ifndef HSA_RUNTIME_INC_HSA_H_
typedef struct hsa_agent_s {
    uint64_t handle;
} hsa_agent_t;
typedef struct hsa_isa_s {
    uint64_t handle;
} hsa_isa_t;
#endif
typedef unsigned int hsa_agent_info_t;
typedef unsigned int hsa_isa_info_t;
enum { HSA_AGENT_INFO_NAME = 0, HSA_AGENT_INFO_DEVICE = 17, HSA_DEVICE_TYPE_GPU = 1 };
/* hsa_ext_amd.h hsa_amd_agent_info_t: both uint32_t; BDFID is KFD's location_id */
enum { HSA_AMD_AGENT_INFO_BDFID = 0xA006, HSA_AMD_AGENT_INFO_DOMAIN = 0xA00F };
enum { HSA_ISA_INFO_NAME_LENGTH = 0, HSA_ISA_INFO_NAME = 1, HSA_STATUS_INFO_BREAK = 1 };
hsa_status_t hsa_init(void);
hsa_status_t hsa_shut_down(void);
hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t agent, void *data),
                                void *data);
hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void *value);
hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent,
                                    hsa_status_t (*callback)(hsa_isa_t isa, void *data),
                                    void *data);
hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void *value);

#endif
