/* pcie_regs.h - the PCI configuration-space offsets and bits that
 * probe_pcie_atomics.c decodes (PCI Local Bus 3.0, PCI Express Base 4.0
 * section 7.5.3). The names are the kernel's and libpci's where they agree;
 * where the kernel's include/uapi/linux/pci_regs.h names one differently
 * the kernel's name is given beside it. tests/unit/test_kernel_defs.c holds
 * each value against the kernel's lines in tests/data/kernel/pci_regs.txt. */
#ifndef RVD_PCIE_REGS_H
#define RVD_PCIE_REGS_H

#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAPABILITY_LIST 0x34
#define PCI_CAP_ID_EXP 0x10
#define PCI_EXP_FLAGS 0x02
#define PCI_EXP_FLAGS_VERS 0x000f
#define PCI_EXP_FLAGS_TYPE 0x00f0
#define PCI_EXP_DEVCAP2 0x24
#define PCI_EXP_DEVCTL2 0x28
#define PCI_EXP_TYPE_ENDPOINT 0x0
#define PCI_EXP_TYPE_LEG_END 0x1
#define PCI_EXP_TYPE_ROOT_PORT 0x4
#define PCI_EXP_TYPE_UPSTREAM 0x5
#define PCI_EXP_TYPE_DOWNSTREAM 0x6
#define PCI_EXP_TYPE_ROOT_INT_EP 0x9                  /* kernel: PCI_EXP_TYPE_RC_END */
#define PCI_EXP_DEVCAP2_ATOMICOP_ROUTING 0x0040u      /* kernel: _ATOMIC_ROUTE */
#define PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP 0x0080u   /* kernel: _ATOMIC_COMP32 */
#define PCI_EXP_DEVCAP2_64BIT_ATOMICOP_COMP 0x0100u   /* kernel: _ATOMIC_COMP64 */
#define PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN 0x0040u /* kernel: _ATOMIC_REQ */
#define PCI_EXP_DEVCTL2_ATOMICOP_EGRESS_BLOCK 0x0080u /* kernel: _ATOMIC_EGRESS_BLOCK */

#endif
