/* pci_path.c - the PCIe path walker (pci_path.h). */
#include "pci_path.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rootfs.h"
#include "util.h"

#define PCI_DEVICES "/sys/bus/pci/devices"

int pci_bdf_parse(const char *s, struct pci_bdf *out)
{
    /* dddd:bb:dd.f - fixed width, as sysfs names devices */
    static const char shape[] = "xxxx:xx:xx.x";
    if (strlen(s) != sizeof(shape) - 1)
        return -EINVAL;
    for (size_t i = 0; shape[i]; i++) {
        if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
            return -EINVAL;
    }
    unsigned d, b, dv, f;
    if (sscanf(s, "%4x:%2x:%2x.%1x", &d, &b, &dv, &f) != 4 || dv > 31 || f > 7)
        return -EINVAL;
    out->domain = d;
    out->bus = b;
    out->dev = dv;
    out->fn = f;
    return 0;
}

int pci_link_speed_parse(const char *s, double *gts)
{
    double v;
    char unit[8];
    if (sscanf(s, "%lf %7s", &v, unit) != 2 || strncmp(unit, "GT/s", 4) != 0 || v <= 0)
        return -EINVAL;
    *gts = v;
    return 0;
}

static void hop_read_link(struct pci_hop *h, const char *dir)
{
    char *s;
    uint64_t w, mw;
    int ok = 1;
    if (rootfs_readf_str(&s, "%s/current_link_speed", dir) == 0) {
        ok &= pci_link_speed_parse(s, &h->speed) == 0;
        free(s);
    } else {
        ok = 0;
    }
    if (ok && rootfs_readf_str(&s, "%s/max_link_speed", dir) == 0) {
        ok &= pci_link_speed_parse(s, &h->max_speed) == 0;
        free(s);
    } else {
        ok = 0;
    }
    ok = ok && rootfs_readf_u64(&w, "%s/current_link_width", dir) == 0 &&
         rootfs_readf_u64(&mw, "%s/max_link_width", dir) == 0 && w > 0 && mw > 0;
    if (ok) {
        h->width = (unsigned)w;
        h->max_width = (unsigned)mw;
    }
    h->has_link = ok;
}

int pci_path_read(const char *bdf, struct pci_hop **out, size_t *n)
{
    char *real, link[96];
    snprintf(link, sizeof(link), PCI_DEVICES "/%s", bdf);
    *out = NULL;
    *n = 0;
    int rc = rootfs_realpath(link, &real);
    if (rc)
        return rc;
    struct strlist comps = STRLIST_INIT;
    strlist_split(&comps, real, "/");
    *out = xcalloc(comps.n ? comps.n : 1, sizeof(**out));
    struct strbuf dir = STRBUF_INIT;
    for (size_t i = 0; i < comps.n; i++) {
        strbuf_addc(&dir, '/');
        strbuf_adds(&dir, comps.v[i]);
        struct pci_hop *h = &(*out)[*n];
        if (pci_bdf_parse(comps.v[i], &h->addr))
            continue;
        (*n)++;
        snprintf(h->bdf, sizeof(h->bdf), "%s", comps.v[i]);
        snprintf(h->dir, sizeof(h->dir), "%s", dir.buf);
        uint64_t v;
        if (rootfs_readf_u64(&v, "%s/vendor", dir.buf) == 0)
            h->vendor = (unsigned)v;
        if (rootfs_readf_u64(&v, "%s/device", dir.buf) == 0)
            h->device = (unsigned)v;
        hop_read_link(h, dir.buf);
    }
    strbuf_release(&dir);
    strlist_release(&comps);
    free(real);
    if (*n == 0 || strcmp((*out)[*n - 1].bdf, bdf) != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
        return -ENOENT;
    }
    return 0;
}

void pci_path_relink(struct pci_hop *h, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        h[k].speed = h[k].max_speed = 0;
        h[k].width = h[k].max_width = 0;
        hop_read_link(&h[k], h[k].dir);
    }
}

/* upstream-facing hops carry the judged end of a link (see pci_path.h) */
static int pci_path_judged(size_t k, size_t n)
{
    return n % 2 ? 1 : k % 2 == 1;
}

size_t pci_path_slot(const struct pci_hop *h, size_t n)
{
    if (n >= 3 && h[n - 2].vendor == PCI_VENDOR_AMD && h[n - 2].device == PCI_AMD_SWITCH_DOWN &&
        h[n - 3].vendor == PCI_VENDOR_AMD && h[n - 3].device == PCI_AMD_SWITCH_UP)
        return n - 3;
    return n - 1;
}

int pci_path_pick(const struct pci_hop *h, size_t n, long *narrow, long *slow)
{
    *narrow = *slow = -1;
    for (size_t k = 0; k < n; k++) {
        if (!h[k].has_link || !pci_path_judged(k, n))
            continue; /* host bridges and some virtual ports have no link files */
        /* largest shortfall wins; on a tie the hop nearest the root */
        int short_w = (int)h[k].max_width - (int)h[k].width;
        if (*narrow < 0 || short_w > (int)h[*narrow].max_width - (int)h[*narrow].width)
            *narrow = (long)k;
        double ratio = h[k].max_speed / h[k].speed;
        if (*slow < 0 || ratio > h[*slow].max_speed / h[*slow].speed + 1e-9)
            *slow = (long)k;
    }
    return *narrow < 0 ? -ENOENT : 0;
}
