/* probe_iommu.c - IOMMU presence and each AMD GPU's DMA domain type.
 *
 * /sys/class/iommu has one entry per IOMMU unit (ivhd* AMD-Vi, dmar* Intel
 * VT-d). A device's iommu_group/type is "identity" (passthrough) or
 * "DMA"/"DMA-FQ" (translated). GPUs come from probe_gpu (gpu.count,
 * gpu.<i>.pci); a missing gpu.count means no GPU probe ran: 0 GPUs. */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_iommu_run(struct probe_ctx *ctx);

static void iommu_units(struct factset *fs)
{
    struct strlist names = STRLIST_INIT;
    int rc = rootfs_list("/sys/class/iommu", &names);
    if (rc && rc != -ENOENT) {
        fact_set_errno(fs, "iommu.enabled", "/sys/class/iommu", rc);
        fact_set_errno(fs, "iommu.kind", "/sys/class/iommu", rc);
        return;
    }
    const char *kind = "none";
    for (size_t i = 0; i < names.n; i++) {
        if (str_starts(names.v[i], "ivhd")) {
            kind = "amd";
            break;
        }
        if (str_starts(names.v[i], "dmar")) {
            kind = "intel";
            break;
        }
        kind = "other";
    }
    fact_set_bool(fs, "iommu.enabled", names.n > 0, "/sys/class/iommu");
    fact_set_str(fs, "iommu.kind", kind, "/sys/class/iommu");
    strlist_release(&names);
}

static void iommu_cmdline(struct factset *fs)
{
    char *s;
    int rc = rootfs_read_str("/proc/cmdline", &s);
    if (rc) {
        fact_set_errno(fs, "iommu.pt_cmdline", "/proc/cmdline", rc);
        return;
    }
    struct strlist words = STRLIST_INIT;
    strlist_split(&words, s, " \t\n");
    fact_set_bool(fs, "iommu.pt_cmdline", strlist_has(&words, "iommu=pt"), "/proc/cmdline");
    strlist_release(&words);
    free(s);
}

static void gpu_domains(struct factset *fs)
{
    const char *src = "/sys/bus/pci/devices/<pci>/iommu_group/type";
    const struct fact *cnt = fact_get(fs, "gpu.count");
    int64_t n = 0;
    if (cnt && cnt->type == FACT_INT) {
        n = cnt->i;
    } else if (cnt) {
        fact_set_unknown(fs, "iommu.gpu_domains", src, "number of GPUs unknown");
        fact_set_unknown(fs, "iommu.translated_gpus", src, "number of GPUs unknown");
        return;
    }
    struct strlist doms = STRLIST_INIT;
    int64_t translated = 0;
    int unknown = 0;
    for (int64_t i = 0; i < n; i++) {
        char buf[FACT_NAME_MAX];
        const char *pci = probe_gpu_pci(fs, (int)i, buf);
        if (!pci) {
            unknown = 1;
            continue;
        }
        char *type = NULL, *grp = xasprintf("/sys/bus/pci/devices/%s/iommu_group", pci);
        int rc = rootfs_readf_str(&type, "%s/type", grp);
        if (rc == 0) {
            if (strcmp(type, "DMA") == 0 || strcmp(type, "DMA-FQ") == 0)
                translated++;
            strlist_add_owned(&doms, xasprintf("%s=%s", pci, type));
            free(type);
        } else if (!rootfs_exists(grp)) {
            strlist_add_owned(&doms, xasprintf("%s=none", pci));
        } else {
            unknown = 1; /* a group whose type cannot be read (old kernel) */
            strlist_add_owned(&doms, xasprintf("%s=unknown", pci));
        }
        free(grp);
    }
    fact_set_list(fs, "iommu.gpu_domains", &doms, src);
    if (unknown)
        fact_set_unknown(fs, "iommu.translated_gpus", src, "a GPU's IOMMU domain type is unknown");
    else
        fact_set_int(fs, "iommu.translated_gpus", translated, src);
    strlist_release(&doms);
}

int probe_iommu_run(struct probe_ctx *ctx)
{
    iommu_units(ctx->facts);
    iommu_cmdline(ctx->facts);
    gpu_domains(ctx->facts);
    return 0;
}
