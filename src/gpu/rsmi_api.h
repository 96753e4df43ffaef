/* rsmi_api.h - the rocm-smi-lib (librocm_smi64) declarations this project
 * uses, written from ROCm's rocm_smi/rocm_smi.h (checked against Debian's
 * librocm-smi-dev 5.2.3). Never linked: vram_tel.c resolves each with
 * (__typeof__(&fn))dlsym so that a call with the wrong signature fails the
 * build. Enumerations are their C type, unsigned int (see hip_api.h). */
#ifndef RVD_GPU_RSMI_API_H
#define RVD_GPU_RSMI_API_H

#include <stdint.h>

typedef unsigned int rsmi_status_t;
typedef unsigned int rsmi_memory_type_t;
enum { RSMI_STATUS_SUCCESS = 0, RSMI_STATUS_INIT_ERROR = 8 };
enum { RSMI_MEM_TYPE_VRAM = 0 };

rsmi_status_t rsmi_init(uint64_t init_flags);
rsmi_status_t rsmi_shut_down(void);
rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices);
/* BDFID = (domain << 32) | (bus << 8) | (device << 3) | function */
rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid);
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, rsmi_memory_type_t mem_type,
                                        uint64_t *total);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type,
                                        uint64_t *used);
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **status_string);

#endif
