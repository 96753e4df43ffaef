/* fuzz_ras.c - amdgpu's RAS sysfs text (probes/ras_parse.c) through the
 * probe that reads it (probe_gpu_ras.c via the gpu probe): the per-block
 * counters ("ue: N" / "ce: N" / "de: N", "Query currently inaccessible"),
 * the bad-page table ("0x%08x : 0x%08x : R|P|F" lines) and the
 * bad_page_threshold module parameter, on a copy of the mi250x-degraded
 * fixture (see sysroot_fuzz.h: the first input byte picks the file). */
#include "sysroot_fuzz.h"

#define GPU "/sys/devices/pci0000:c0/0000:c0:01.1/0000:c1:00.0"

static const char *const targets[] = {GPU "/ras/umc_err_count",
                                      GPU "/ras/gfx_err_count",
                                      GPU "/ras/sdma_err_count",
                                      GPU "/ras/gpu_vram_bad_pages",
                                      "/sys/module/amdgpu/parameters/bad_page_threshold",
                                      GPU "/mem_info_vram_total",
                                      NULL};

static const char *const probes[] = {"gpu", NULL};

static const struct sysroot_fuzz sf = {"mi250x-degraded", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
