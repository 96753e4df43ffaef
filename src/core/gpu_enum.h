/* gpu_enum.h - the machine's GPUs from sysfs (through rootfs.h, so fixtures
 * and snapshots replay): the one enumeration the gpu probe (gpu.<i>, the
 * numbering the checks use) and the telemetry sampler's users (monitor,
 * soak, the dashboard) share, so neither looks up the other's code. */
#ifndef RVD_CORE_GPU_ENUM_H
#define RVD_CORE_GPU_ENUM_H

#include <stddef.h>

#include "pci_path.h"

#define GPU_ENUM_DIR "/sys/bus/pci/devices"

struct gpu_enum_dev {
    char bdf[16]; /* "0000:03:00.0", as sysfs names it */
    struct pci_bdf addr;
    unsigned cls; /* the class register (0x030000: VGA) */
    unsigned vendor, device;
};

struct gpu_enum {
    struct gpu_enum_dev *v;
    size_t n;
};

/* the display-class functions (0x03, any vendor: AMD, NVIDIA, a BMC's VGA)
 * and AMD's processing accelerators (0x12: MI300-class parts) in PCI
 * address order; a function whose class, vendor or device file cannot be
 * read is left out. 0, or -errno when GPU_ENUM_DIR cannot be listed (*out
 * is empty then). Release with gpu_enum_release. */
int gpu_enumerate(struct gpu_enum *out);
void gpu_enum_release(struct gpu_enum *e);

#endif
