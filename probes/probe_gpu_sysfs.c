/* probe_gpu_sysfs.c - sysfs readers and PCI address helpers shared by the
 * GPU and PCIe probes (see gpu_pci.h). */
#include "gpu_pci.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_kv_get(const char *text, const char *key, uint64_t *out)
{
    size_t klen = strlen(key);
    for (const char *p = text; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (n > klen && strncmp(p, key, klen) == 0 && (p[klen] == ' ' || p[klen] == '\t')) {
            char *v = xstrndup(p + klen, n - klen);
            int rc = str_parse_u64(v, out);
            free(v);
            return rc;
        }
        p = eol ? eol + 1 : NULL;
    }
    return -ENOENT;
}

unsigned gp_bdf_location_id(const struct pci_bdf *b)
{
    return b->bus << 8 | b->dev << 3 | b->fn;
}

const char *gp_vendor_name(unsigned vendor)
{
    static const struct {
        unsigned id;
        const char *name;
    } tab[] = {
        {0x1002, "AMD"},    {0x10de, "NVIDIA"},    {0x8086, "Intel"}, {0x1a03, "ASPEED"},
        {0x102b, "Matrox"}, {0x15ad, "VMware"},    {0x1234, "QEMU"},  {0x1b36, "Red Hat"},
        {0x1af4, "virtio"}, {0x1414, "Microsoft"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
        if (tab[i].id == vendor)
            return tab[i].name;
    return NULL;
}
