/* fuzz_partition.c - the compute and memory partition files of an
 * MI300-class GPU (probes/probe_gpu_partition.c) through the gpu probe, on a
 * copy of the mi300x-node fixture (see sysroot_fuzz.h: the first input byte
 * picks the file). */
#include "sysroot_fuzz.h"

#define GPU "/sys/devices/pci0000:04/0000:04:01.1/0000:05:00.0"

static const char *const targets[] = {
    GPU "/current_compute_partition", GPU "/available_compute_partition",
    GPU "/current_memory_partition", GPU "/available_memory_partition", NULL};

static const char *const probes[] = {"gpu", NULL};

static const struct sysroot_fuzz sf = {"mi300x-node", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
