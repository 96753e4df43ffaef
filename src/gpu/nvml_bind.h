/* nvml_bind.h - the one binding of NVML (libnvidia-ml.so.1, dlopen'd): the
 * library and its functions resolved with __typeof__ from nvml_api.h (a
 * wrong signature fails the build). Its two users, the VRAM reading of the
 * GPU probes on the CUDA reference (vram_tel.c) and the telemetry sampler's
 * NVML source (src/telemetry/tel_src_nvml.c), call nvmlInit_v2 themselves:
 * each words its own status. The path can be forced with
 * ROCM_VLA_DOCTOR_NVML_LIB (tests). */
#ifndef RVD_GPU_NVML_BIND_H
#define RVD_GPU_NVML_BIND_H

#include <stddef.h>

#include "nvml_api.h"

#define NVML_BIND_FNS(X)                                                                           \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown)                                                                                \
    X(nvmlErrorString)                                                                             \
    X(nvmlDeviceGetCount_v2)                                                                       \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetHandleByPciBusId_v2)                                                            \
    X(nvmlDeviceGetPciInfo_v3)                                                                     \
    X(nvmlDeviceGetMemoryInfo)                                                                     \
    X(nvmlDeviceGetClockInfo)                                                                      \
    X(nvmlDeviceGetMaxClockInfo)                                                                   \
    X(nvmlDeviceGetPowerUsage)                                                                     \
    X(nvmlDeviceGetEnforcedPowerLimit)                                                             \
    X(nvmlDeviceGetTotalEnergyConsumption)                                                         \
    X(nvmlDeviceGetTemperature)                                                                    \
    X(nvmlDeviceGetTemperatureThreshold)                                                           \
    X(nvmlDeviceGetFanSpeed)                                                                       \
    X(nvmlDeviceGetUtilizationRates)                                                               \
    X(nvmlDeviceGetCurrentClocksEventReasons)                                                      \
    X(nvmlDeviceGetCurrentClocksThrottleReasons)                                                   \
    X(nvmlDeviceGetCurrPcieLinkGeneration)                                                         \
    X(nvmlDeviceGetCurrPcieLinkWidth)                                                              \
    X(nvmlDeviceGetMaxPcieLinkGeneration)                                                          \
    X(nvmlDeviceGetMaxPcieLinkWidth)                                                               \
    X(nvmlDeviceGetPcieReplayCounter)                                                              \
    X(nvmlDeviceGetComputeRunningProcesses_v3)                                                     \
    X(nvmlDeviceGetGraphicsRunningProcesses_v3)                                                    \
    X(nvmlDeviceGetProcessUtilization)

#define NVML_BIND_DECL(fn) __typeof__(&fn) fn;
struct nvml_bind {
    void *h;
    char lib[256]; /* the path that loaded */
    NVML_BIND_FNS(NVML_BIND_DECL)
};

/* load the library and resolve every function (NULL: not in this driver):
 * 0, or -1 with "not loaded: <why>" in why */
int nvml_bind_load(struct nvml_bind *b, char *why, size_t why_n);
/* NVML's text for e; "not in this driver" for -1 (a function not resolved) */
const char *nvml_bind_error(const struct nvml_bind *b, int e);
/* nvmlShutdown when initialised, and dlclose when unload (the GPU probe
 * child keeps the library mapped: see gpu_backend_close) */
void nvml_bind_close(struct nvml_bind *b, int initialised, int unload);

#endif
