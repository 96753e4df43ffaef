/* pci_addr.c - see pci_addr.h. */
#include "pci_addr.h"

#include <stdio.h>
#include <string.h>

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* exactly n hex digits at s */
static int hexn(const char *s, int n, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < n; i++) {
        int d = hexval(s[i]);
        if (d < 0)
            return -1;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return 0;
}

int pci_addr_parse(const char *s, struct pci_addr *a)
{
    if (!s)
        return -1;
    size_t len = strlen(s);
    /* domain of 4 (sysfs, HIP) or 8 (CUDA) digits, then "bb:dd.f" */
    int dl = len == 12 ? 4 : len == 16 ? 8 : -1;
    if (dl < 0 || s[dl] != ':' || s[dl + 3] != ':' || s[dl + 6] != '.')
        return -1;
    struct pci_addr r;
    if (hexn(s, dl, &r.domain) || hexn(s + dl + 1, 2, &r.bus) || hexn(s + dl + 4, 2, &r.dev) ||
        hexn(s + dl + 7, 1, &r.fn) || r.dev > 0x1f || r.fn > 7)
        return -1;
    *a = r;
    return 0;
}

void pci_addr_format(const struct pci_addr *a, char buf[PCI_ADDR_STR])
{
    snprintf(buf, PCI_ADDR_STR, "%04x:%02x:%02x.%x", a->domain, a->bus & 0xff, a->dev & 0x1f,
             a->fn & 7);
}

void pci_addr_from_hsa(uint32_t bdfid, uint32_t domain, struct pci_addr *a)
{
    a->domain = domain;
    a->bus = (bdfid >> 8) & 0xff;
    a->dev = (bdfid >> 3) & 0x1f;
    a->fn = bdfid & 7;
}

void pci_addr_from_rsmi(uint64_t bdfid, struct pci_addr *a, unsigned *partition)
{
    /* [63:32] domain, [31:28] partition, [27:16] reserved, [15:8] bus,
     * [7:3] device, [2:0] function */
    a->domain = (unsigned)(bdfid >> 32);
    a->bus = (unsigned)(bdfid >> 8) & 0xff;
    a->dev = (unsigned)(bdfid >> 3) & 0x1f;
    a->fn = (unsigned)bdfid & 7;
    if (partition)
        *partition = (unsigned)(bdfid >> 28) & 0xf;
}

enum pci_match pci_addr_match(const struct pci_addr *rt, const struct pci_addr *os)
{
    if (rt->domain != os->domain || rt->bus != os->bus || rt->dev != os->dev)
        return PCI_MATCH_NONE;
    if (rt->fn == os->fn)
        return PCI_MATCH_EXACT;
    /* a partition's id in the function bits of a device the OS sees as function 0 */
    return os->fn == 0 ? PCI_MATCH_PARTITION : PCI_MATCH_NONE;
}
