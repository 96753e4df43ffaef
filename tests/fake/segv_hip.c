/* segv_hip.c - a libamdhip64 whose hipInit crashes (SIGSEGV) after a line on
 * stderr: built by tests/gpu_ci.sh and tests/html.sh (pointed at with
 * ROCM_VLA_DOCTOR_HIP_LIB) to show that a crashing vendor library is an
 * error of the probes that load it, never a crashed or missing report.
 * Every other symbol the backend resolves is a stub. */
#include <signal.h>
#include <stdio.h>
int hipInit(unsigned f);
int hipRuntimeGetVersion(int *v);
int hipInit(unsigned f)
{
    (void)f;
    fprintf(stderr, "fake libamdhip64: crashing in hipInit\n");
    raise(SIGSEGV);
    return 0;
}
int hipRuntimeGetVersion(int *v)
{
    *v = 60000000;
    return 0;
}
#define STUB(n)                                                                                    \
    int n(void);                                                                                   \
    int n(void) { return 0; }
STUB(hipDriverGetVersion)
STUB(hipGetErrorName)
STUB(hipGetErrorString)
STUB(hipGetDeviceCount)
STUB(hipSetDevice)
STUB(hipDeviceGetName)
STUB(hipDeviceGetPCIBusId)
STUB(hipDeviceTotalMem)
STUB(hipDeviceGetAttribute)
STUB(hipMemGetInfo)
STUB(hipMalloc)
STUB(hipMallocManaged)
STUB(hipHostMalloc)
STUB(hipFree)
STUB(hipHostFree)
STUB(hipMemcpy)
STUB(hipMemcpyAsync)
STUB(hipMemset)
STUB(hipStreamCreateWithFlags)
STUB(hipStreamDestroy)
STUB(hipStreamSynchronize)
STUB(hipDeviceSynchronize)
STUB(hipEventCreate)
STUB(hipEventDestroy)
STUB(hipEventRecord)
STUB(hipEventSynchronize)
STUB(hipEventElapsedTime)
STUB(hipModuleLoadData)
STUB(hipModuleUnload)
STUB(hipModuleGetFunction)
STUB(hipModuleLaunchKernel)
