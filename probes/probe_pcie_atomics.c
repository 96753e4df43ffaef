/* probe_pcie_atomics.c - PCIe AtomicOp support along a GPU's path, read
 * from config space the way the kernel's pci_enable_atomic_ops_to_root()
 * decides it: every switch port routes AtomicOps (DevCap2 bit 6), no switch
 * upstream port blocks them on egress (DevCtl2 bit 7), and the root port
 * completes 32- and 64-bit AtomicOps (DevCap2 bits 7 and 8). The GPU's own
 * DevCtl2 AtomicOp requester enable (bit 6) says whether amdgpu turned them
 * on.
 *
 * Each hop's config file is read through rootfs and parsed here, never by a
 * library given a host path: under --sysroot the kernel would follow a
 * snapshot's symlinks (and open its FIFOs) where the in-root reader does
 * not. The walk is libpci's (pci_scan_trad_caps, pci_find_cap): the
 * capability list from offset 0x34, each pointer masked to a dword, a loop
 * or an 0xff id ends it, and a byte past the end of the file reads as 0xff
 * (libpci's value for a failed read). sysfs gives non-root readers only the
 * first 64 bytes, which hold no PCI Express capability. */
#include "gpu_pci.h"
#include "pcie_regs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATOMICS_ROOT_REASON                                                                        \
    "PCI config space beyond 64 bytes needs root (run as root, or collect as root)"

/* config space as read: bytes past the end read as 0xff, like libpci */
struct config {
    const unsigned char *b;
    size_t len;
};

static unsigned cfg_byte(const struct config *c, size_t off)
{
    return off < c->len ? c->b[off] : 0xffu;
}

static unsigned cfg_word(const struct config *c, size_t off)
{
    return cfg_byte(c, off) | cfg_byte(c, off + 1) << 8;
}

static uint32_t cfg_long(const struct config *c, size_t off)
{
    return (uint32_t)cfg_word(c, off) | (uint32_t)cfg_word(c, off + 2) << 16;
}

void gp_config_caps(const void *buf, size_t len, struct gp_config_caps *out)
{
    const struct config c = {buf, len};
    memset(out, 0, sizeof(*out));
    if (!(cfg_word(&c, PCI_STATUS) & PCI_STATUS_CAP_LIST))
        return;
    unsigned char been_there[256] = {0};
    for (unsigned where = cfg_byte(&c, PCI_CAPABILITY_LIST) & ~3u; where;) {
        unsigned id = cfg_byte(&c, where), next = cfg_byte(&c, where + 1) & ~3u;
        if (been_there[where]++ || id == 0xff)
            break;
        if (id == PCI_CAP_ID_EXP) {
            unsigned flags = cfg_word(&c, where + PCI_EXP_FLAGS);
            out->pcie = 1;
            out->type = (flags & PCI_EXP_FLAGS_TYPE) >> 4;
            /* DevCap2/DevCtl2 exist from capability version 2 on */
            if ((flags & PCI_EXP_FLAGS_VERS) >= 2) {
                out->devcap2 = cfg_long(&c, where + PCI_EXP_DEVCAP2);
                out->devctl2 = (uint16_t)cfg_word(&c, where + PCI_EXP_DEVCTL2);
            }
            return;
        }
        where = next;
    }
}

/* the hop's capabilities, or -errno with *why set when config space is not
 * usable */
static int config_read(const char *bdf, const char **why, char *src, size_t srclen,
                       struct gp_config_caps *caps)
{
    char *buf;
    size_t len;
    snprintf(src, srclen, GP_PCI_DEVICES "/%s/config", bdf);
    int rc = rootfs_read(src, &buf, &len);
    if (rc)
        return rc;
    rc = 0;
    if (len <= 64) {
        *why = ATOMICS_ROOT_REASON;
        rc = -EACCES;
    } else if (buf[PCI_STATUS] & PCI_STATUS_CAP_LIST) {
        /* a copy made without root may pad the 64 bytes with zeros */
        size_t k = 64;
        while (k < len && buf[k] == 0)
            k++;
        if (k == len) {
            *why = "PCI config space beyond 64 bytes reads as zeros (captured without root? "
                   "run or collect as root)";
            rc = -EACCES;
        }
    }
    if (!rc)
        gp_config_caps(buf, len, caps);
    free(buf);
    return rc;
}

static void atomics_unknown(struct factset *fs, int gpu, const char *src, const char *reason)
{
    static const char *const names[] = {"atomics.requester_enabled", "atomics.path_ok",
                                        "atomics.missing_at"};
    char fn[FACT_NAME_MAX];
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, names[i]), src, "%s", reason);
}

static void add_missing(struct strbuf *sb, const char *bdf, const char *what)
{
    strbuf_addf(sb, "%s%s (%s)", sb->len ? ", " : "", bdf, what);
}

void gp_atomics_facts(struct factset *fs, int gpu, const struct pci_hop *hops, size_t n)
{
    char fn[FACT_NAME_MAX], src[128];
    if (n == 0) {
        atomics_unknown(fs, gpu, GP_PCI_DEVICES, "the GPU's PCI path is unknown");
        return;
    }
    struct gp_config_caps *caps = xcalloc(n, sizeof(*caps));
    for (size_t k = 0; k < n; k++) {
        const char *why = NULL;
        int rc = config_read(hops[k].bdf, &why, src, sizeof(src), &caps[k]);
        if (rc && why) {
            atomics_unknown(fs, gpu, src, why);
            free(caps);
            return;
        }
        if (rc) {
            char reason[192];
            snprintf(reason, sizeof(reason), "%s: %s", src,
                     rc == -ENOENT ? "not present" : strerror(-rc));
            atomics_unknown(fs, gpu, src, reason);
            free(caps);
            return;
        }
    }

    const struct gp_config_caps *g = &caps[n - 1];
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/config", hops[n - 1].bdf);
    /* without a PCIe capability nothing can enable requests: a real "no" */
    fact_set_bool(fs, fact_gpu_name(fn, gpu, "atomics.requester_enabled"),
                  g->pcie && (g->devctl2 & PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN) != 0, src);

    /* from the root port down, as a reader follows the path */
    struct strbuf missing = STRBUF_INIT;
    const uint32_t comp = PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP | PCI_EXP_DEVCAP2_64BIT_ATOMICOP_COMP;
    for (size_t k = 0; k + 1 < n; k++) {
        const struct gp_config_caps *c = &caps[k];
        const char *bdf = hops[k].bdf;
        if (!c->pcie)
            continue; /* the kernel checks PCIe port types only */
        switch (c->type) {
        case PCI_EXP_TYPE_ROOT_PORT:
            if ((c->devcap2 & comp) == comp)
                break;
            if (!(c->devcap2 & comp))
                add_missing(&missing, bdf, "root port: no 32-bit or 64-bit AtomicOp completer");
            else if (!(c->devcap2 & PCI_EXP_DEVCAP2_64BIT_ATOMICOP_COMP))
                add_missing(&missing, bdf, "root port: no 64-bit completer");
            else
                add_missing(&missing, bdf, "root port: no 32-bit completer");
            break;
        case PCI_EXP_TYPE_UPSTREAM:
        case PCI_EXP_TYPE_DOWNSTREAM: {
            const char *port = c->type == PCI_EXP_TYPE_UPSTREAM ? "switch upstream port"
                                                                : "switch downstream port";
            char what[96];
            if (!(c->devcap2 & PCI_EXP_DEVCAP2_ATOMICOP_ROUTING)) {
                snprintf(what, sizeof(what), "%s: no AtomicOp routing", port);
                add_missing(&missing, bdf, what);
            }
            if (c->type == PCI_EXP_TYPE_UPSTREAM &&
                (c->devctl2 & PCI_EXP_DEVCTL2_ATOMICOP_EGRESS_BLOCK)) {
                snprintf(what, sizeof(what), "%s: AtomicOp egress blocking on", port);
                add_missing(&missing, bdf, what);
            }
            break;
        }
        default:
            break;
        }
    }
    /* the kernel lets only PCIe endpoints request AtomicOps */
    if (!g->pcie)
        add_missing(&missing, hops[n - 1].bdf, "not a PCI Express device");
    else if (g->type != PCI_EXP_TYPE_ENDPOINT && g->type != PCI_EXP_TYPE_LEG_END &&
             g->type != PCI_EXP_TYPE_ROOT_INT_EP)
        add_missing(&missing, hops[n - 1].bdf, "not a PCI Express endpoint");
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/config (and every hop's)", hops[n - 1].bdf);
    fact_set_bool(fs, fact_gpu_name(fn, gpu, "atomics.path_ok"), missing.len == 0, src);
    fact_set_str(fs, fact_gpu_name(fn, gpu, "atomics.missing_at"), missing.buf ? missing.buf : "",
                 src);
    strbuf_release(&missing);
    free(caps);
}
