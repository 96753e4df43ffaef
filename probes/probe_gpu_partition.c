/* probe_gpu_partition.c - the compute and memory partition modes of an
 * MI300-class GPU, from its PCI device directory (= /sys/class/drm/cardN/
 * device). Formats (kernel amdgpu_gfx.c amdgpu_gfx_get_current_compute_
 * partition / _available_compute_partition and amdgpu_gmc.c
 * current_memory_partition, torvalds/linux since 6.5): one mode and "\n"
 * ("SPX", "DPX", "TPX", "QPX", "CPX"; "NPS1" to "NPS8": nps_desc[]), the
 * available ones joined by ", ", or "Not supported". A GPU without the files
 * is not partitionable: the facts are unknown with that reason. How many
 * devices the runtime sees is counted from the KFD nodes (gpu.kfd_partitions,
 * probe_gpu.c), not derived from the mode's name. */
#include "gpu_pci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "SPX" or "NPS1, NPS4": each item one of modes[]; 0, else -1 */
static int mode_list(const char *text, const char *const *modes, struct strlist *out)
{
    struct strlist items = STRLIST_INIT;
    strlist_split(&items, text, ",");
    int rc = items.n ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < items.n; i++) {
        const char *it = str_trim(items.v[i]);
        int found = 0;
        for (const char *const *m = modes; *m && !found; m++)
            found = strcmp(it, *m) == 0;
        if (found)
            strlist_add(out, it);
        else
            rc = -1;
    }
    strlist_release(&items);
    return rc;
}

static void mode_facts(struct factset *fs, int gpu, const char *bdf, const char *kind,
                       const char *const *modes)
{
    char fn[FACT_NAME_MAX], cur_fact[48], avail_fact[48];
    snprintf(cur_fact, sizeof(cur_fact), "%s_partition", kind);
    snprintf(avail_fact, sizeof(avail_fact), "%s_partitions_available", kind);
    static const char *const which[] = {"current", "available"};
    for (int w = 0; w < 2; w++) {
        const char *fact = w == 0 ? cur_fact : avail_fact;
        char src[128], *text;
        snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/%s_%s_partition", bdf, which[w], kind);
        fact_gpu_name(fn, gpu, fact);
        int rc = rootfs_read_str(src, &text);
        if (rc == -ENOENT) {
            fact_set_unknown(fs, fn, src, "no %s_%s_partition: not a partitionable GPU", which[w],
                             kind);
            continue;
        }
        if (rc) {
            fact_set_errno(fs, fn, src, rc);
            continue;
        }
        struct strlist l = STRLIST_INIT;
        char *t = str_trim(text);
        if (strcmp(t, "Not supported") == 0)
            fact_set_unknown(fs, fn, src, "the driver says this GPU has no %s partitions", kind);
        else if (mode_list(t, modes, &l) || (w == 0 && l.n != 1))
            fact_set_unknown(fs, fn, src, "'%.40s' is no %s partition mode the kernel prints", t,
                             kind);
        else if (w == 0)
            fact_set_str(fs, fn, l.v[0], src);
        else
            fact_set_list(fs, fn, &l, src);
        strlist_release(&l);
        free(text);
    }
}

void gp_partition_facts(struct factset *fs, int gpu, const char *bdf)
{
    static const char *const compute[] = {"SPX", "DPX", "TPX", "QPX", "CPX", NULL};
    static const char *const memory[] = {"NPS1", "NPS2", "NPS3", "NPS4", "NPS6", "NPS8", NULL};
    mode_facts(fs, gpu, bdf, "compute", compute);
    mode_facts(fs, gpu, bdf, "memory", memory);
}
