/* fuzz_virt.c - the VM-guest signals (probes/probe_virt.c): the CPU flags
 * line of /proc/cpuinfo, the DMI vendor and product names and the SR-IOV
 * counts, through the virt probe on a copy of the mi300x-node fixture (see
 * sysroot_fuzz.h: the first input byte picks the file). */
#include "sysroot_fuzz.h"

#define GPU "/sys/devices/pci0000:04/0000:04:01.1/0000:05:00.0"

static const char *const targets[] = {"/proc/cpuinfo",
                                      "/sys/class/dmi/id/sys_vendor",
                                      "/sys/class/dmi/id/product_name",
                                      GPU "/sriov_totalvfs",
                                      GPU "/sriov_numvfs",
                                      NULL};

static const char *const probes[] = {"gpu", "virt", NULL};

static const struct sysroot_fuzz sf = {"mi300x-node", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
