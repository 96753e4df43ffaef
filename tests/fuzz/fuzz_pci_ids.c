/* fuzz_pci_ids.c - the root's pci.ids through libpci (src/core/pci_names.c)
 * by the gpu probe that names the GPUs, on a copy of the mi300x-node
 * fixture: a file libpci refuses makes the names unknown with the reason,
 * never the end of the run (see sysroot_fuzz.h: the first byte picks the
 * file). */
#include "sysroot_fuzz.h"

static const char *const targets[] = {"/usr/share/misc/pci.ids", NULL};

static const char *const probes[] = {"env", "gpu", NULL};

static const struct sysroot_fuzz sf = {"mi300x-node", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
