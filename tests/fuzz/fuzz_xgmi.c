/* fuzz_xgmi.c - KFD's io_links of an XGMI hive (probes/probe_gpu_xgmi.c:
 * type, node_to, flags, max_bandwidth per link) and the hive id, by the
 * gpu probe on a copy of the mi300x-node fixture (see sysroot_fuzz.h: the
 * first byte picks the file): duplicated, disabled, out-of-range and
 * self links. */
#include "sysroot_fuzz.h"

#define TOPO "/sys/class/kfd/kfd/topology/nodes"

static const char *const targets[] = {TOPO "/2/io_links/1/properties",
                                      TOPO "/2/io_links/2/properties",
                                      TOPO "/2/io_links/3/properties",
                                      TOPO "/3/io_links/1/properties",
                                      NULL};

static const char *const probes[] = {"env", "gpu", NULL};

static const struct sysroot_fuzz sf = {"mi300x-node", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
