/* pci_path.h - a PCI device's PCIe path from its root port down to the
 * device, read through rootfs.h (so fixtures and snapshots replay). One
 * walker for every consumer: the pcie.* probes (probes/probe_pcie*.c) judge
 * the path, the telemetry sampler (src/telemetry/) shows its narrowest and
 * slowest hop next to the GPU's own link.
 *
 * The device's canonical sysfs path (/sys/devices/pci0000:00/0000:00:01.1/
 * 0000:01:00.0/0000:02:00.0/0000:03:00.0) names every hop. A path is a root
 * port followed by pairs (switch upstream port, switch downstream port) and
 * the device: each link joins a downstream-facing port to the next hop, an
 * upstream-facing port, and is judged at that upstream-facing end, whose
 * max_link_* are the card's (or the switch's) capability. */
#ifndef RVD_PCI_PATH_H
#define RVD_PCI_PATH_H

#include <stddef.h>

struct pci_bdf {
    unsigned domain, bus, dev, fn;
};
/* "0000:03:00.0" (exactly that shape, lowercase or uppercase hex) */
int pci_bdf_parse(const char *s, struct pci_bdf *out);

/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s": 0 and GT/s, or -EINVAL */
int pci_link_speed_parse(const char *s, double *gts);

#define PCI_VENDOR_AMD 0x1002u
#define PCI_AMD_SWITCH_UP 0x1478u   /* Navi on-card switch, upstream port */
#define PCI_AMD_SWITCH_DOWN 0x1479u /* Navi on-card switch, downstream port */

struct pci_hop {
    char bdf[16];
    char dir[256]; /* its canonical sysfs directory */
    struct pci_bdf addr;
    unsigned vendor, device;
    int has_link;            /* current/max link files readable */
    double speed, max_speed; /* GT/s; 0 when unreadable */
    unsigned width, max_width;
};

/* every PCI-address component of /sys/bus/pci/devices/<bdf>'s canonical
 * path, root first, the device last (*out freed by the caller). 0, or
 * -errno (-ENOENT when the link does not lead to a PCI device directory) */
int pci_path_read(const char *bdf, struct pci_hop **out, size_t *n);
/* the link files of every hop again (links retrain; the path does not
 * change while the device is bound): cheaper than a new pci_path_read */
void pci_path_relink(struct pci_hop *h, size_t n);
/* the hop whose link is the slot's: the on-card switch's upstream port for
 * Navi cards (1002:1478 / 1002:1479), otherwise the device itself */
size_t pci_path_slot(const struct pci_hop *h, size_t n);
/* among the judged hops with link files: *narrow the one with the largest
 * width shortfall (current below max), *slow the one with the largest
 * speed ratio (max over current); on a tie the hop nearest the root.
 * 0, or -ENOENT (both -1) when no hop has readable link files. */
int pci_path_pick(const struct pci_hop *h, size_t n, long *narrow, long *slow);

#endif
