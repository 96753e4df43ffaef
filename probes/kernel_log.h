/* kernel_log.h - the catalogue of kernel-log signatures (kernel_log_sigs.c)
 * and the line parsers probe_kernel_log.c applies to them. Pure text in,
 * values out (no file access), so that the unit tests feed every entry its
 * own test line. */
#ifndef RVD_KERNEL_LOG_H
#define RVD_KERNEL_LOG_H

#include <stddef.h>

#include "../src/core/util.h"

enum kl_severity { KL_INFO, KL_WARN, KL_FAIL };

/* One row per way a message is printed; several rows may share an id. A
 * line matches when it contains needle and, if set, needle2, compared
 * without case when icase is set (amdgpu spells the same message "Failed" in
 * one file and "failed" in another), and does not contain unless (a case of
 * the message that a maintainer calls harmless, counted by its own row;
 * always compared without case). */
struct kl_signature {
    const char *id;
    const char *needle, *needle2;
    enum kl_severity severity;
    const char *source; /* the kernel file that prints it and its format */
    const char *test;   /* a log line this row must match (tests/unit) */
    int icase;
    const char *unless;
};

const struct kl_signature *kl_signatures(size_t *n);
int kl_match(const struct kl_signature *sig, const char *line);
/* "[ 8812.113201] ..." -> 0 and the seconds since boot; -1 without a
 * dmesg timestamp (journal or --notime output) */
int kl_timestamp(const char *line, double *seconds);
/* the faulting process of a VM fault's follow-up line: amdgpu prints
 * " in process NAME pid N thread NAME pid N" (gmc_v9_0.c, older kernels)
 * or " Process NAME pid N thread NAME pid N" (amdgpu_vm.c
 * amdgpu_vm_print_task_info, 6.10+). 0 and "NAME pid N" (caller frees), or
 * -1 when the line is not one of those. */
int kl_fault_process(const char *line, char **out);
/* a PCI BAR assignment line (drivers/pci/setup-res.c pci_assign_resource):
 * "DEV: BAR N: failed to assign [...]" (up to 6.7) or "DEV: BAR N [...]:
 * failed to assign" (6.8+), and "... assigned" alike. 1 for a failed and 2
 * for an assigned BAR, with "DEV BAR N" in *key and DEV in *dev (caller
 * frees both); 0 for any other line (VF BARs and bridge windows included:
 * they are not the device's own BAR). */
int kl_bar_event(const char *line, char **key, char **dev);
/* the ASIC that KFD refused in a kgd2kfd_probe line: "TAHITI" of
 * "amdgpu: TAHITI  not supported in kfd", "GC IP 0b0004" of the IP-discovery
 * wording. 0 and the name (caller frees), or -1 when the line names none. */
int kl_kfd_asic(const char *line, char **out);

#endif
