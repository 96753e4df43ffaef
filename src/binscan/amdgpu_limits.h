/* amdgpu_limits.h - what a kernel may use on an AMD GPU target, and the
 * check of a code object's kernel (amdgpu_meta.h) and its launch against it.
 *
 * A kernel over these limits fails to load or to launch on a real card
 * (hipModuleLaunchKernel: hipErrorInvalidValue / out of resources), which
 * this workplace, without an AMD GPU, can only find this way. */
#ifndef RVD_BINSCAN_AMDGPU_LIMITS_H
#define RVD_BINSCAN_AMDGPU_LIMITS_H

#include <stdint.h>

#include "../core/util.h"
#include "amdgpu_meta.h"

struct amdgpu_limits {
    const char *proc;   /* "gfx90a" */
    uint64_t lds;       /* bytes of LDS one workgroup may allocate (static + dynamic) */
    uint64_t vgprs;     /* architected VGPRs per lane */
    uint64_t agprs;     /* accumulation VGPRs per lane (0: the target has none) */
    uint64_t unified;   /* VGPRs + AGPRs per lane (0: no unified file) */
    uint64_t sgprs;     /* .sgpr_count at most (addressable + special SGPRs) */
    unsigned wave_mask; /* wavefront sizes allowed: bit 0 wave32, bit 1 wave64 */
    uint64_t max_wg;    /* work-items per workgroup, hardware */
    const char *source; /* where each number comes from */
};

/* the limits of a processor ("gfx90a", or a target id / ISA name that
 * names it), NULL for a processor not in the table */
const struct amdgpu_limits *amdgpu_limits_for(const char *target);

/* Check kernel k (built for lim) launched with `block` work-items and
 * `dyn_lds` bytes of dynamic LDS. Each violation is appended to `problems`
 * as a sentence; a field the note does not state is a violation too (unknown
 * is not within limits). Returns the number of violations. */
int amdgpu_check_kernel(const struct amdgpu_kernel *k, const struct amdgpu_limits *lim,
                        uint64_t block, uint64_t dyn_lds, struct strlist *problems);

#endif
