/* rsmi_bind.h - the one binding of rocm-smi-lib (librocm_smi64, dlopen'd):
 * the library, its functions resolved with __typeof__ from rsmi_api.h (a
 * wrong signature fails the build) and the pairing of its devices with a
 * PCI address. Its two users, the VRAM reading of the GPU probes
 * (vram_tel.c) and the telemetry sampler's rocm-smi source
 * (src/telemetry/tel_src_rsmi.c), call rsmi_init themselves: each words its
 * own status. The path can be forced with ROCM_VLA_DOCTOR_RSMI_LIB (tests). */
#ifndef RVD_GPU_RSMI_BIND_H
#define RVD_GPU_RSMI_BIND_H

#include <stddef.h>

#include "pci_addr.h"
#include "rsmi_api.h"

/* each function with its return and parameter types: the same list binds
 * them and generates their --trace-gpu wrappers (trace_gen.h); X0: none */
#define RSMI_BIND_FNS(X, X0)                                                                       \
    X(rsmi_status_t, rsmi_init, uint64_t)                                                          \
    X0(rsmi_status_t, rsmi_shut_down)                                                              \
    X(rsmi_status_t, rsmi_status_string, rsmi_status_t, const char **)                             \
    X(rsmi_status_t, rsmi_num_monitor_devices, uint32_t *)                                         \
    X(rsmi_status_t, rsmi_dev_pci_id_get, uint32_t, uint64_t *)                                    \
    X(rsmi_status_t, rsmi_dev_gpu_clk_freq_get, uint32_t, rsmi_clk_type_t, rsmi_frequencies_t *)   \
    X(rsmi_status_t, rsmi_dev_power_ave_get, uint32_t, uint32_t, uint64_t *)                       \
    X(rsmi_status_t, rsmi_dev_power_cap_get, uint32_t, uint32_t, uint64_t *)                       \
    X(rsmi_status_t, rsmi_dev_temp_metric_get, uint32_t, uint32_t, rsmi_temperature_metric_t,      \
      int64_t *)                                                                                   \
    X(rsmi_status_t, rsmi_dev_busy_percent_get, uint32_t, uint32_t *)                              \
    X(rsmi_status_t, rsmi_dev_fan_rpms_get, uint32_t, uint32_t, int64_t *)                         \
    X(rsmi_status_t, rsmi_dev_memory_usage_get, uint32_t, rsmi_memory_type_t, uint64_t *)          \
    X(rsmi_status_t, rsmi_dev_memory_total_get, uint32_t, rsmi_memory_type_t, uint64_t *)

#define RSMI_BIND_DECL(r, fn, ...) __typeof__(&fn) fn;
struct rsmi_bind {
    void *h;
    char lib[256]; /* the path that loaded */
    RSMI_BIND_FNS(RSMI_BIND_DECL, RSMI_BIND_DECL)
};

/* load the library and resolve every function (NULL: not in this library):
 * 0, or -1 with "not loaded: <why>" in why */
int rsmi_bind_load(struct rsmi_bind *b, char *why, size_t why_n);
/* rsmi_status_string's text for e, "?" when it has none */
const char *rsmi_bind_error(const struct rsmi_bind *b, rsmi_status_t e);
/* of devices 0..n-1, the one at PCI address want (decoded BDFIDs, never the
 * raw value; an exact function wins over a partition). hip: want is HIP's
 * address, whose function bits hold the partition id (HSA's BDFID), so a
 * partition id in [31:28] is compared as the function and the match is
 * tried both ways; else want is sysfs' (the OS function) and the partition
 * id is dropped. -1 when none is there. */
int rsmi_bind_find(const struct rsmi_bind *b, uint32_t n, const struct pci_addr *want, int hip);
/* rsmi_shut_down when initialised, and dlclose when unload (the GPU probe
 * child keeps the library mapped: see gpu_backend_close) */
void rsmi_bind_close(struct rsmi_bind *b, int initialised, int unload);

#endif
