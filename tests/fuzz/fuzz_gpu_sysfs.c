/* fuzz_gpu_sysfs.c - the GPU's sysfs text readers through the probes that
 * read them (gpu, pcie: ids and class, VRAM sizes, pp_dpm_* clock tables,
 * pp_features, link speed and width, hwmon sensors and labels, the DRM
 * nodes, the amdgpu module state), on a copy of the rx7900xtx-desktop
 * fixture (see sysroot_fuzz.h: the first input byte picks the file). */
#include "sysroot_fuzz.h"

#define GPU "/sys/devices/pci0000:80/0000:80:01.1/0000:84:00.0/0000:85:00.0/0000:86:00.0"

static const char *const targets[] = {GPU "/pp_dpm_sclk",
                                      GPU "/pp_dpm_mclk",
                                      GPU "/pp_dpm_pcie",
                                      GPU "/pp_dpm_socclk",
                                      GPU "/pp_features",
                                      GPU "/mem_info_vram_total",
                                      GPU "/mem_info_vis_vram_total",
                                      GPU "/mem_info_vram_used",
                                      GPU "/current_link_speed",
                                      GPU "/current_link_width",
                                      GPU "/max_link_speed",
                                      GPU "/max_link_width",
                                      GPU "/vendor",
                                      GPU "/device",
                                      GPU "/class",
                                      GPU "/vbios_version",
                                      GPU "/gpu_busy_percent",
                                      GPU "/power_dpm_force_performance_level",
                                      GPU "/hwmon/hwmon8/temp1_input",
                                      GPU "/hwmon/hwmon8/temp1_crit",
                                      GPU "/hwmon/hwmon8/temp2_label",
                                      GPU "/hwmon/hwmon8/temp2_emergency",
                                      GPU "/hwmon/hwmon8/power1_cap",
                                      GPU "/hwmon/hwmon8/power1_average",
                                      GPU "/hwmon/hwmon8/name",
                                      GPU "/hwmon/hwmon8/fan1_input",
                                      GPU "/drm/card1/dev",
                                      GPU "/drm/renderD128/dev",
                                      "/sys/module/amdgpu/initstate",
                                      "/sys/module/amdgpu/version",
                                      NULL};

static const char *const probes[] = {"driver", "gpu", "pcie", NULL};

static const struct sysroot_fuzz sf = {"rx7900xtx-desktop", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
