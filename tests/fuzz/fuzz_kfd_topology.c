/* fuzz_kfd_topology.c - KFD topology properties (nodes/N/properties,
 * gpu_id, mem_banks) and the /dev/kfd and device-node queries, through the
 * probes that read them (kfd, gpu), on a copy of the rx7900xtx-desktop
 * fixture (see sysroot_fuzz.h: the first input byte picks the file). */
#include "sysroot_fuzz.h"

#define TOPO "/sys/class/kfd/kfd/topology"

static const char *const targets[] = {TOPO "/nodes/0/properties",
                                      TOPO "/nodes/0/gpu_id",
                                      TOPO "/nodes/1/properties",
                                      TOPO "/nodes/1/gpu_id",
                                      TOPO "/nodes/1/mem_banks/0/properties",
                                      TOPO "/generation_id",
                                      "/.snapshot/kfd-open",
                                      "/.snapshot/devnodes",
                                      NULL};

static const char *const probes[] = {"driver", "kfd", "user", "gpu", NULL};

static const struct sysroot_fuzz sf = {"rx7900xtx-desktop", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
