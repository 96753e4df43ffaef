/* gpu_pci.h - helpers shared by the GPU probe (probe_gpu*.c) and the PCIe
 * probe (probe_pcie*.c): tolerant sysfs readers, PCI addresses, gfx target
 * decoding and the PCIe link text formats. Everything reads through
 * rootfs.h, so fixtures and collected snapshots behave like the live host. */
#ifndef RVD_GPU_PCI_H
#define RVD_GPU_PCI_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/pci_path.h"
#include "probe.h"

#define GP_PCI_DEVICES "/sys/bus/pci/devices"
#define GP_KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
#define GP_VENDOR_AMD PCI_VENDOR_AMD

/* ---- sysfs text (probe_gpu_sysfs.c) ---------------------------------- */

/* (text files are read with rootfs_read_str/rootfs_readf_*, which drop the
 * NUL padding some capture tools add) */

/* "key value" lines of a KFD properties file: 0, or -ENOENT if absent */
int gp_kv_get(const char *text, const char *key, uint64_t *out);

/* ---- PCI addresses ------------------------------------------------------ */

/* struct pci_bdf and pci_bdf_parse: src/core/pci_path.h */
/* KFD location_id: bus << 8 | dev << 3 | fn */
unsigned gp_bdf_location_id(const struct pci_bdf *b);
/* vendor name for display devices, NULL when not in the table */
const char *gp_vendor_name(unsigned vendor);

/* ---- gfx targets (probe_gpu_gfx.c) -------------------------------------- */

/* gfx_target_version is decimal MMmmss */
#define GP_GFX_MAJOR(v) ((v) / 10000u)
#define GP_GFX_MINOR(v) ((v) / 100u % 100u)
#define GP_GFX_STEP(v) ((v) % 100u)
#define GP_GFX_NAME_MAX 24

/* "gfx" + major (decimal) + minor (hex) + stepping (hex): 90010 -> gfx90a */
void gp_gfx_name(unsigned version, char buf[GP_GFX_NAME_MAX]);
void gp_gfx_name_parts(unsigned major, unsigned minor, unsigned step, char buf[GP_GFX_NAME_MAX]);
/* "cdna3", "rdna2", "gcn5" ...; NULL when the major is not in the table */
const char *gp_gfx_family(unsigned version);
/* targets that only exist as APUs (integrated GPUs) */
int gp_gfx_is_apu_target(unsigned version);
/* 1 when KFD refuses the dGPU without PCIe atomics (kfd_device.c
 * needs_pci_atomics), 0 when it works without, -1 when not in the table */
int gp_gfx_needs_atomics(unsigned version);
/* HSA_OVERRIDE_GFX_VERSION as libhsakmt parses it ("%u.%u.%u", major <= 63,
 * minor and stepping <= 255, all decimal): 0 and {major, minor, stepping},
 * or -EINVAL. Kept as parts: a minor above 99 does not fit MMmmss. */
int gp_gfx_override_parse(const char *s, unsigned v[3]);

/* ---- PCIe atomics and MEC firmware (probe_gpu_atomics_fw.c) ------------- */

/* kfd_device.c's no_atomic_fw_version for a GC version: the MEC firmware
 * from which KFD runs the GPU without PCIe atomics, 0 for none */
int gp_no_atomic_fw_version(unsigned major, unsigned minor, unsigned step);
/* gpu.<gpu>.mec_fw and gpu.<gpu>.kfd_refuses_without_atomics; kfd_props is
 * the GPU's KFD node (NULL: none), gfxv its gfx_target_version (0: unknown) */
void gp_atomics_fw_facts(struct factset *fs, int gpu, const char *bdf, const char *kfd_props,
                         unsigned gfxv);

/* ---- DRM device sysfs (probe_gpu_drm.c) -------------------------------- */

/* gpu.<gpu>.{drm_card, render_minor, vram_bytes, vis_vram_bytes, perf_level,
 * busy_percent, temp_*, ras_*, power_w, vbios} from the PCI device directory
 * (= /sys/class/drm/cardN/device) and, when kfd_node >= 0, the KFD node's
 * mem_banks; kfd_props is that node's properties text or NULL. */
void gp_drm_facts(struct factset *fs, int gpu, const char *bdf, int kfd_node,
                  const char *kfd_props);

/* pp_power_profile_mode: the name of the profile marked active ('*'):
 * 0, -ENOENT when none is marked, -EINVAL for a name that does not fit */
int gp_power_profile_parse(const char *text, char *name, size_t n);

/* ---- NUMA affinity (probe_gpu_numa.c) --------------------------------- */

#define GP_CPUS_MAX 8192
struct gp_cpus {
    uint64_t bits[GP_CPUS_MAX / 64];
};
/* a cpulist ("0-3,8-11\n", "" for none): 0, -EINVAL, or -ERANGE for a CPU
 * number of GP_CPUS_MAX or more */
int gp_cpulist_parse(const char *text, struct gp_cpus *out);
int gp_cpus_count(const struct gp_cpus *c);
int gp_cpus_common(const struct gp_cpus *a, const struct gp_cpus *b);

struct gp_numa_host {
    int nodes; /* node<N> directories, or a negative errno */
    int have_allowed;
    struct gp_cpus allowed; /* the process's CPUs, when have_allowed */
};
/* host.numa_nodes, host.cpus_allowed, host.cpus_allowed_count */
void gp_numa_host_facts(struct factset *fs, struct gp_numa_host *h);
/* gpu.<gpu>.numa_node (unknown for -1), numa_node_cpus, numa_allowed_cpus
 * (the process's CPUs on that node; on a one-node host also when the
 * GPU's numa_node is -1) */
void gp_numa_facts(struct factset *fs, int gpu, const char *bdf, const struct gp_numa_host *h);

/* ---- firmware versions (probe_gpu_fw.c) ------------------------------- */

/* "mec_fw_version" -> "mec" (lowercase letters, digits, '_'): 0, or
 * -EINVAL for another file name */
int gp_fw_name(const char *file, char *name, size_t n);
/* gpu.<gpu>.fw.<name> for each <device>/fw_version/<name>_fw_version,
 * gpu.<gpu>.fw_count and gpu.<gpu>.fw_not_loaded (MEC/RLC reading 0) */
void gp_fw_facts(struct factset *fs, int gpu, const char *bdf);

/* ---- RAS (probe_gpu_ras.c) ---------------------------------------------- */

/* gpu.<gpu>.ras_* from <device>/ras: counters summed and per family
 * (memory, engine, link), the blocks with errors, the retired/pending/
 * failed bad pages and the driver's bad-page threshold; reads
 * gpu.<gpu>.vram_bytes, so it runs after the memory facts */
void gp_ras_facts(struct factset *fs, int gpu, const char *bdf);

/* ---- partition modes (probe_gpu_partition.c) --------------------------- */

/* gpu.<gpu>.{compute,memory}_partition and _partitions_available from the
 * device's current_/available_{compute,memory}_partition */
void gp_partition_facts(struct factset *fs, int gpu, const char *bdf);

/* ---- XGMI hive and links (probe_gpu_xgmi.c) ---------------------------- */

/* gpu.<i>.xgmi_* for GPUs 0..ngpu-1, after their gpu.<i>.kfd_node and gfx */
void gp_xgmi_facts(struct factset *fs, int ngpu);

/* ---- PCIe link text (probe_pcie.c) -------------------------------------- */

/* pp_dpm_pcie ("1: 16.0GT/s, x16 619Mhz *"): the fastest level */
int gp_dpm_pcie_top(const char *text, double *gts, unsigned *width);

/* ---- AtomicOp bits (probe_pcie_atomics.c) ------------------------------- */

/* the path hops: struct pci_hop (src/core/pci_path.h) */
/* Sets gpu.<gpu>.atomics.* for the path hops[0] (root port side) ..
 * hops[n-1] (the GPU). */
void gp_atomics_facts(struct factset *fs, int gpu, const struct pci_hop *hops, size_t n);

/* ---- PCIe health (probe_pcie_health.c) --------------------------------- */

/* one aer_dev_* file ("NAME count" lines and a TOTAL_... line): 0 and the
 * total of the line named total_name, non-zero counters appended to nonzero
 * as "NAME count" (may be NULL); -EINVAL without that total line */
int gp_aer_parse(const char *text, const char *total_name, int64_t *total, struct strlist *nonzero);
/* pcie.aspm_policy */
void gp_aspm_policy_fact(struct factset *fs);
/* gpu.<gpu>.{aer.*, aspm.*, pcie_replay_count} for the path hops[0..n-1]
 * (NULL when the path is unknown); slot: the hop whose link is the slot's */
void gp_health_facts(struct factset *fs, int gpu, const char *bdf, const struct pci_hop *h,
                     size_t n, size_t slot);

/* what one function's config space says about PCI Express */
struct gp_config_caps {
    int pcie;         /* has a PCI Express capability */
    unsigned type;    /* its device/port type (PCI_EXP_FLAGS bits 7:4) */
    uint32_t devcap2; /* 0 when the capability is version 1 */
    uint16_t devctl2;
};
/* parse config space (the bytes of a sysfs config file, any length) the
 * way libpci finds the PCI Express capability */
void gp_config_caps(const void *buf, size_t len, struct gp_config_caps *out);

#endif
