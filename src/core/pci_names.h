/* pci_names.h - PCI device names ("Navi 31 [Radeon RX 7900 XT/7900 XTX]")
 * from the pci.ids file under the root (rootfs.h), looked up with libpci, so
 * that a fixture or a replayed snapshot names its GPUs from the file it
 * carries, never from the host's. While collect records, closing the
 * lookup stages a minimal pci.ids holding only the lines that were found
 * (the whole file is 1.3 MB, many times the rest of a snapshot, and a
 * replay only ever asks for these GPUs), so the replay names them alike.
 *
 * Built without libpci (the Makefile's LIBPCI empty: libpci-dev absent),
 * every lookup is unknown with that reason and callers show the ids. */
#ifndef RVD_CORE_PCI_NAMES_H
#define RVD_CORE_PCI_NAMES_H

#include <stddef.h>

/* the places distributions install pci.ids (Debian/Ubuntu, Fedora/Arch,
 * older layouts), tried in this order */
#define PCI_NAMES_PATHS "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"
#define PCI_NAMES_WHY_MAX 200

struct pci_names;

/* never NULL: a lookup that cannot work (no libpci, no pci.ids) keeps the
 * reason and every lookup answers it */
struct pci_names *pci_names_open(void);
/* the root-relative pci.ids in use ("" when none), for a fact's source */
const char *pci_names_source(const struct pci_names *pn);

/* the device's name, and with subvendor/subdevice nonzero the board's
 * (subsystem) name: 0 and an owned string, or -ENOENT with why filled */
int pci_names_device(struct pci_names *pn, unsigned vendor, unsigned device, char **out, char *why,
                     size_t why_len);
int pci_names_board(struct pci_names *pn, unsigned vendor, unsigned device, unsigned subvendor,
                    unsigned subdevice, char **out, char *why, size_t why_len);

/* stages the excerpt while recording, then frees */
void pci_names_close(struct pci_names *pn);

#endif
