/* gpu_enum.c - see gpu_enum.h. */
#include "gpu_enum.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rootfs.h"

int gpu_enumerate(struct gpu_enum *out)
{
    struct strlist names = STRLIST_INIT;
    memset(out, 0, sizeof(*out));
    int rc = rootfs_list(GPU_ENUM_DIR, &names);
    if (rc)
        return rc;
    out->v = xcalloc(names.n + 1, sizeof(*out->v));
    for (size_t i = 0; i < names.n; i++) {
        struct pci_bdf addr;
        uint64_t cls, vendor, device;
        if (pci_bdf_parse(names.v[i], &addr))
            continue;
        if (rootfs_readf_u64(&cls, GPU_ENUM_DIR "/%s/class", names.v[i]))
            continue;
        if ((cls >> 16) != 0x03 && (cls >> 16) != 0x12)
            continue;
        if (rootfs_readf_u64(&vendor, GPU_ENUM_DIR "/%s/vendor", names.v[i]) ||
            rootfs_readf_u64(&device, GPU_ENUM_DIR "/%s/device", names.v[i]))
            continue;
        /* a processing accelerator of another vendor is not a GPU */
        if ((cls >> 16) == 0x12 && vendor != PCI_VENDOR_AMD)
            continue;
        struct gpu_enum_dev *d = &out->v[out->n++];
        snprintf(d->bdf, sizeof(d->bdf), "%s", names.v[i]);
        d->addr = addr;
        d->cls = (unsigned)cls;
        d->vendor = (unsigned)vendor;
        d->device = (unsigned)device;
    }
    strlist_release(&names);
    return 0;
}

void gpu_enum_release(struct gpu_enum *e)
{
    free(e->v);
    memset(e, 0, sizeof(*e));
}
