/* amdgpu_limits.c - see amdgpu_limits.h */
#include "amdgpu_limits.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "offload_bundle.h"

/* Sources (LLVM, llvm/llvm-project):
 * - LDS: AMDGPUUsage "Memory Spaces" / "LDS" and AMDGPUBaseInfo.cpp
 *   getAddressableLocalMemorySize(): 65536 bytes for GFX7 and later (gfx950:
 *   163840), the allocation of one work-group, static plus dynamic.
 * - VGPRs: gfx90a has a unified file of 512 registers per lane, at most 256
 *   architected VGPRs and 256 AGPRs, total = alignTo(vgprs, 4) + agprs
 *   (AMDGPUBaseInfo.cpp getTotalNumVGPRs(); commit b7611370 citing the
 *   gfx90a ISA guide 3.6.4); gfx1030 (GFX10.3) addresses 256 VGPRs per lane
 *   in wave32 and wave64 and has no AGPRs (AMDGPUUsage ".agpr_count": GFX908
 *   and GFX90A only).
 * - SGPRs: 102 addressable on GFX9, 106 on GFX10 (AMDGPUBaseInfo.cpp
 *   getAddressableNumSGPRs()); AMDGPUUsage ".sgpr_count" counts the special
 *   SGPRs in: VCC (2), and on GFX7-GFX9 FLAT_SCRATCH (2) and XNACK_MASK (2)
 *   (AMDGPUBaseInfo.cpp getNumExtraSGPRs()). The limit on .sgpr_count is so
 *   102 + 6 = 108 on gfx90a and 106 + 2 = 108 on gfx1030 (hiprtc 5.2 emits
 *   108 for vla_rope on gfx1030: 106 addressable and VCC).
 * - Wavefront: 64 on GCN/CDNA, 32 (default) or 64 (wavefrontsize64) on
 *   RDNA (AMDGPUUsage "Processors" table, target features).
 * - Work-group: .max_flat_workgroup_size at most 1024 (AMDGPUUsage
 *   "amdgpu-flat-work-group-size", default 1024). */
static const struct amdgpu_limits table[] = {
    {"gfx90a", 65536, 256, 256, 512, 102 + 6, 2u, 1024,
     "LLVM AMDGPUUsage; AMDGPUBaseInfo.cpp (LDS, VGPR+AGPR 512, SGPR 102 + VCC, FLAT_SCRATCH, "
     "XNACK_MASK)"},
    {"gfx1030", 65536, 256, 0, 0, 106 + 2, 1u | 2u, 1024,
     "LLVM AMDGPUUsage; AMDGPUBaseInfo.cpp (LDS, VGPR 256, SGPR 106 + VCC)"},
};

const struct amdgpu_limits *amdgpu_limits_for(const char *target)
{
    if (!target)
        return NULL;
    /* "amdgcn-amd-amdhsa--gfx90a:xnack-" or "gfx90a": the processor alone */
    const char *t = strstr(target, "--");
    char *proc = offload_target_processor(t ? t + 2 : target);
    const struct amdgpu_limits *hit = NULL;
    for (size_t i = 0; proc && i < sizeof(table) / sizeof(table[0]); i++)
        if (strcmp(proc, table[i].proc) == 0)
            hit = &table[i];
    free(proc);
    return hit;
}

static int over(struct strlist *problems, const char *what, uint64_t have, uint64_t limit)
{
    if (have == AMDGPU_UNKNOWN) {
        strlist_add_owned(problems, xasprintf("%s unknown (not in the metadata note)", what));
        return 1;
    }
    if (have <= limit)
        return 0;
    strlist_add_owned(problems,
                      xasprintf("%s %" PRIu64 " over the limit %" PRIu64, what, have, limit));
    return 1;
}

int amdgpu_check_kernel(const struct amdgpu_kernel *k, const struct amdgpu_limits *lim,
                        uint64_t block, uint64_t dyn_lds, struct strlist *problems)
{
    int bad = over(problems, "VGPRs", k->vgprs, lim->vgprs);
    bad += over(problems, "SGPRs", k->sgprs, lim->sgprs);
    /* a target without AGPRs may leave .agpr_count out: only a stated
     * nonzero count is over its limit 0 */
    uint64_t agprs = k->agprs == AMDGPU_UNKNOWN && !lim->agprs ? 0 : k->agprs;
    bad += over(problems, "AGPRs", agprs, lim->agprs);
    if (lim->unified && k->vgprs != AMDGPU_UNKNOWN && agprs != AMDGPU_UNKNOWN)
        bad += over(problems, "VGPRs+AGPRs (unified file)", ((k->vgprs + 3) & ~3ull) + agprs,
                    lim->unified);
    bad += over(problems, "static LDS bytes", k->lds, lim->lds);
    if (k->lds != AMDGPU_UNKNOWN && k->lds <= lim->lds)
        bad += over(problems, "static + dynamic LDS bytes", k->lds + dyn_lds, lim->lds);
    if (k->wave == AMDGPU_UNKNOWN || (k->wave != 32 && k->wave != 64) ||
        !(lim->wave_mask & (k->wave == 32 ? 1u : 2u))) {
        strlist_add_owned(
            problems,
            k->wave == AMDGPU_UNKNOWN
                ? xstrdup("wavefront size unknown (not in the metadata note)")
                : xasprintf("wavefront size %" PRIu64 " not supported on %s", k->wave, lim->proc));
        bad++;
    }
    bad += over(problems, "max flat workgroup size", k->max_wg, lim->max_wg);
    bad += over(problems, "launch block size (work-items)", block,
                k->max_wg == AMDGPU_UNKNOWN ? lim->max_wg : k->max_wg);
    return bad;
}
