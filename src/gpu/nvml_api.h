/* nvml_api.h - the NVML (libnvidia-ml.so.1) declarations this project uses,
 * written from NVIDIA's nvml.h. nvml.h maps nvmlInit and the handle lookups
 * to their _v2 symbols with macros, which dlsym does not see, so they are
 * declared under the exported names. nvmlDeviceGetMemoryInfo (v1 struct) is
 * in every driver since NVML began. Never linked: vram_tel.c resolves each
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

#endif
