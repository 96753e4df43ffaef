/* probe_pcie_atomics.c - PCIe AtomicOp support along a GPU's path, read
 * from config space with libpci the way the kernel's
 * pci_enable_atomic_ops_to_root() decides it: every switch port routes
 * AtomicOps (DevCap2 bit 6), no switch upstream port blocks them on egress
 * (DevCtl2 bit 7), and the root port completes 32- and 64-bit AtomicOps
 * (DevCap2 bits 7 and 8). The GPU's own DevCtl2 AtomicOp requester enable
 * (bit 6) says whether amdgpu turned them on.
 *
 * libpci reads <sysfs.path>/devices/<bdf>/config by itself; each config file
 * is also read once through rootfs so that collect records it and so that
 * the unprivileged case is seen: sysfs gives non-root readers only the
 * first 64 bytes, which hold no PCI Express capability. */
#include "gpu_pci.h"

#include <errno.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATOMICS_ROOT_REASON                                                                        \
    "PCI config space beyond 64 bytes needs root (run as root, or collect as root)"

struct hop_caps {
    int pcie;         /* has a PCI Express capability */
    unsigned type;    /* PCI_EXP_TYPE_* */
    uint32_t devcap2; /* 0 when the capability is version 1 */
    uint16_t devctl2;
};

/* libpci's default error handler exits; ours jumps back instead */
static jmp_buf pci_jmp;
static char pci_msg[256];

static void __attribute__((noreturn, format(printf, 1, 2))) pci_err(char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    vsnprintf(pci_msg, sizeof(pci_msg), msg, ap);
    va_end(ap);
    longjmp(pci_jmp, 1);
}

static void __attribute__((format(printf, 1, 2))) pci_quiet(char *msg, ...)
{
    (void)msg;
}

/* 0, or -errno with *why set when config space is not usable */
static int config_check(const char *bdf, const char **why, char *src, size_t srclen)
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
    } else if (buf[0x06] & PCI_STATUS_CAP_LIST) {
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
    free(buf);
    return rc;
}

static void read_caps(struct pci_access *acc, const struct gp_hop *h, struct hop_caps *c)
{
    struct pci_dev *d =
        pci_get_dev(acc, (int)h->addr.domain, (int)h->addr.bus, (int)h->addr.dev, (int)h->addr.fn);
    memset(c, 0, sizeof(*c));
    if (!d)
        return;
    struct pci_cap *cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
    if (cap) {
        uint16_t flags = pci_read_word(d, cap->addr + PCI_EXP_FLAGS);
        c->pcie = 1;
        c->type = (flags & PCI_EXP_FLAGS_TYPE) >> 4;
        /* DevCap2/DevCtl2 exist from capability version 2 on */
        if ((flags & PCI_EXP_FLAGS_VERS) >= 2) {
            c->devcap2 = pci_read_long(d, cap->addr + PCI_EXP_DEVCAP2);
            c->devctl2 = pci_read_word(d, cap->addr + PCI_EXP_DEVCTL2);
        }
    }
    pci_free_dev(d);
}

/* libpci over the (possibly re-rooted) /sys/bus/pci; 0 or -EIO with pci_msg */
static int read_all_caps(const struct gp_hop *hops, size_t n, struct hop_caps *caps)
{
    char *sysfs;
    int rc = rootfs_host_path("/sys/bus/pci", &sysfs);
    if (rc) {
        snprintf(pci_msg, sizeof(pci_msg), "/sys/bus/pci: %s", strerror(-rc));
        return rc;
    }
    struct pci_access *volatile acc = pci_alloc();
    if (setjmp(pci_jmp)) {
        /* a libpci error: leak what it held rather than trust its state */
        free(sysfs);
        return -EIO;
    }
    acc->error = pci_err;
    acc->warning = pci_quiet;
    acc->debug = pci_quiet;
    acc->method = PCI_ACCESS_SYS_BUS_PCI;
    pci_set_param(acc, "sysfs.path", sysfs);
    pci_init(acc);
    for (size_t k = 0; k < n; k++)
        read_caps(acc, &hops[k], &caps[k]);
    pci_cleanup(acc);
    free(sysfs);
    return 0;
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

void gp_atomics_facts(struct factset *fs, int gpu, const struct gp_hop *hops, size_t n)
{
    char fn[FACT_NAME_MAX], src[128];
    if (n == 0) {
        atomics_unknown(fs, gpu, GP_PCI_DEVICES, "the GPU's PCI path is unknown");
        return;
    }
    for (size_t k = 0; k < n; k++) {
        const char *why = NULL;
        int rc = config_check(hops[k].bdf, &why, src, sizeof(src));
        if (rc && why) {
            atomics_unknown(fs, gpu, src, why);
            return;
        }
        if (rc) {
            char reason[192];
            snprintf(reason, sizeof(reason), "%s: %s", src,
                     rc == -ENOENT ? "not present" : strerror(-rc));
            atomics_unknown(fs, gpu, src, reason);
            return;
        }
    }

    struct hop_caps *caps = xcalloc(n, sizeof(*caps));
    if (read_all_caps(hops, n, caps)) {
        atomics_unknown(fs, gpu, "libpci", pci_msg);
        free(caps);
        return;
    }

    const struct hop_caps *g = &caps[n - 1];
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/config", hops[n - 1].bdf);
    /* without a PCIe capability nothing can enable requests: a real "no" */
    fact_set_bool(fs, fact_gpu_name(fn, gpu, "atomics.requester_enabled"),
                  g->pcie && (g->devctl2 & PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN) != 0, src);

    /* from the root port down, as a reader follows the path */
    struct strbuf missing = STRBUF_INIT;
    const uint32_t comp = PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP | PCI_EXP_DEVCAP2_64BIT_ATOMICOP_COMP;
    for (size_t k = 0; k + 1 < n; k++) {
        const struct hop_caps *c = &caps[k];
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
