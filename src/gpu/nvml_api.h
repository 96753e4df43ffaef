/* nvml_api.h - the NVML (libnvidia-ml.so.1) declarations this project uses,
 * written from NVIDIA's nvml.h. nvml.h maps nvmlInit and the handle lookups
 * to their _v2 symbols with macros, which dlsym does not see, so they are
 * declared under the exported names. nvmlDeviceGetMemoryInfo (v1 struct) is
 * in every driver since NVML began. Never linked: nvml_bind.c resolves each
 * with (__typeof__(&fn))dlsym. */
#ifndef RVD_GPU_NVML_API_H
#define RVD_GPU_NVML_API_H

typedef int nvmlReturn_t; /* enum in C; int-sized */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlMemory_st {
    unsigned long long total, free, used; /* bytes */
} nvmlMemory_t;
enum { NVML_SUCCESS = 0 };

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);

/* nvml.h maps nvmlDeviceGetPciInfo to _v3; busId is "00000000:06:00.0"
 * (an 8-digit domain, upper-case hex), not sysfs' "0000:06:00.0" */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);

/* telemetry (src/telemetry/tel_src_nvml.c) */
typedef struct nvmlUtilization_st {
    unsigned int gpu, memory; /* percent */
} nvmlUtilization_t;
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };
enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3
};
typedef int nvmlClockType_t;
typedef int nvmlTemperatureSensors_t;
typedef int nvmlTemperatureThresholds_t;
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                       unsigned int *clock);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);         /* mW */
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit); /* mW */
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                 unsigned long long *energy); /* mJ */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                      unsigned int *temp);
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device,
                                               nvmlTemperatureThresholds_t thresholdType,
                                               unsigned int *temp);
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed); /* percent */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
/* clock-event reasons (driver 535+); the older name has the same signature */
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                    unsigned long long *clocksEventReasons);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                       unsigned long long *clocksThrottleReasons);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth);
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value);

/* processes (src/telemetry/tel_src_nvml.c). The _v3 calls take nvml.h's
 * nvmlProcessInfo_t (the v2 layout: pid, usedGpuMemory, gpuInstanceId,
 * computeInstanceId); usedGpuMemory is NVML_VALUE_NOT_AVAILABLE when the
 * driver cannot tell (Windows WDDM, some MIG setups). A buffer too small is
 * NVML_ERROR_INSUFFICIENT_SIZE with the needed count written back. */
enum { NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NOT_FOUND = 6, NVML_ERROR_INSUFFICIENT_SIZE = 7 };
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory; /* bytes */
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_t *infos);
/* per-process utilization samples newer than lastSeenTimeStamp (us since
 * the epoch); NVML_ERROR_NOT_FOUND when there is none */
typedef struct nvmlProcessUtilizationSample_st {
    unsigned int pid;
    unsigned long long timeStamp;                   /* us */
    unsigned int smUtil, memUtil, encUtil, decUtil; /* percent */
} nvmlProcessUtilizationSample_t;
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                             nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *processSamplesCount,
                                             unsigned long long lastSeenTimeStamp);

#endif
