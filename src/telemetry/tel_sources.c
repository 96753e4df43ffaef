/* tel_sources.c - the telemetry sources (tel_source.h) in sampling order:
 * amdgpu's sysfs lists the AMD GPUs, rocm-smi-lib overlays them on a live
 * host, NVML adds the NVIDIA GPUs. A new source: its file and one line. */
#include "tel_source.h"

const struct tel_source_ops *const tel_sources[] = {
    &tel_src_sysfs,
    &tel_src_rsmi,
    &tel_src_nvml,
};
const size_t tel_nsources = ARRAY_SIZE(tel_sources);
