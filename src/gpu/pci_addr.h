/* pci_addr.h - PCI addresses as the GPU runtimes and sysfs spell them, and
 * the one rule that pairs a runtime's device with a sysfs device.
 *
 * Runtimes number devices their own way (HIP_VISIBLE_DEVICES,
 * CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES renumber; an integrated GPU
 * may come first), so devices are paired by PCI address, never by list
 * position. Spellings: sysfs and HIP "0000:03:00.0", CUDA "00000000:19:00.0";
 * HSA gives HSA_AMD_AGENT_INFO_BDFID (bus << 8 | device << 3 | function, the
 * KFD location_id) and HSA_AMD_AGENT_INFO_DOMAIN; rocm-smi a 64-bit BDFID
 * (domain << 32, since ROCm 6.2 a partition id in bits [31:28], bus, device,
 * function).
 *
 * MI300 compute partitions: every partition is a device of its own for HSA,
 * HIP and rocm-smi, but the OS sees one PCI function (function 0). amdkfd
 * ORs the partition's node id into the function bits of location_id (GC
 * 9.4.3), HIP prints those bits as the function, and rocm-smi may put the
 * partition id in [31:28] or in the function bits (rocm_smi.h of ROCm 6.2+,
 * rsmi_dev_pci_id_get). pci_addr_match() says which case it saw. */
#ifndef RVD_GPU_PCI_ADDR_H
#define RVD_GPU_PCI_ADDR_H

#include <stdint.h>

struct pci_addr {
    unsigned domain, bus, dev, fn;
};

#define PCI_ADDR_STR 24 /* "ffffffff:ff:1f.7" and a NUL */

/* "0000:03:00.0", "00000000:19:00.0" (CUDA), upper- or lowercase hex: 0, or
 * -1 when it is not that shape */
int pci_addr_parse(const char *s, struct pci_addr *a);
/* the sysfs spelling, "0000:03:00.0" (4-digit domain unless it needs more) */
void pci_addr_format(const struct pci_addr *a, char buf[PCI_ADDR_STR]);
/* HSA_AMD_AGENT_INFO_BDFID and HSA_AMD_AGENT_INFO_DOMAIN */
void pci_addr_from_hsa(uint32_t bdfid, uint32_t domain, struct pci_addr *a);
/* rsmi_dev_pci_id_get's BDFID; *partition gets bits [31:28] (0 before 6.2) */
void pci_addr_from_rsmi(uint64_t bdfid, struct pci_addr *a, unsigned *partition);

enum pci_match {
    PCI_MATCH_NONE = 0,
    PCI_MATCH_PARTITION = 1, /* same device; the runtime's function bits hold a
                              * partition id and the OS function is 0 */
    PCI_MATCH_EXACT = 2,
};
/* how the runtime's address `rt` matches the OS (sysfs) address `os` */
enum pci_match pci_addr_match(const struct pci_addr *rt, const struct pci_addr *os);

#endif
