/* rsmi_api.h - the rocm-smi-lib (librocm_smi64) declarations this project
 * uses, written from ROCm's rocm_smi/rocm_smi.h (checked against Debian's
 * librocm-smi-dev 5.2.3). Never linked: rsmi_bind.c resolves each with
 * (__typeof__(&fn))dlsym so that a call with the wrong signature fails the
 * build. Enumerations are their C type, unsigned int (see hip_api.h). */
#ifndef RVD_GPU_RSMI_API_H
#define RVD_GPU_RSMI_API_H

#include <stdint.h>

typedef unsigned int rsmi_status_t;
typedef unsigned int rsmi_memory_type_t;
typedef unsigned int rsmi_clk_type_t;
typedef unsigned int rsmi_temperature_metric_t;
enum { RSMI_STATUS_SUCCESS = 0, RSMI_STATUS_INIT_ERROR = 8 };
enum { RSMI_MEM_TYPE_VRAM = 0, RSMI_MEM_TYPE_GTT = 2 };
enum { RSMI_CLK_TYPE_SYS = 0, RSMI_CLK_TYPE_MEM = 4 };
enum { RSMI_TEMP_CURRENT = 0, RSMI_TEMP_CRITICAL = 5 };
enum { RSMI_TEMP_TYPE_EDGE = 0, RSMI_TEMP_TYPE_JUNCTION = 1, RSMI_TEMP_TYPE_MEMORY = 2 };

/* the vendor's own struct when rocm_smi.h came first (the header test:
 * two anonymous structs are never the same type) */
#ifndef INCLUDE_ROCM_SMI_ROCM_SMI_H_
#define RSMI_MAX_NUM_FREQUENCIES 32
typedef struct {
    uint32_t num_supported;
    uint32_t current;
    uint64_t frequency[RSMI_MAX_NUM_FREQUENCIES];
} rsmi_frequencies_t;
#endif

rsmi_status_t rsmi_init(uint64_t init_flags);
rsmi_status_t rsmi_shut_down(void);
rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices);
/* BDFID = (domain << 32) | (bus << 8) | (device << 3) | function */
rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid);
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, rsmi_memory_type_t mem_type,
                                        uint64_t *total);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type,
                                        uint64_t *used);
rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv_ind, rsmi_clk_type_t clk_type,
                                        rsmi_frequencies_t *f);
rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *power);
rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *cap);
rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv_ind, uint32_t sensor_type,
                                       rsmi_temperature_metric_t metric, int64_t *temperature);
rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t *busy_percent);
rsmi_status_t rsmi_dev_fan_rpms_get(uint32_t dv_ind, uint32_t sensor_ind, int64_t *speed);
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **status_string);

#endif
