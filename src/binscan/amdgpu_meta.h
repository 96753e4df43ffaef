/* amdgpu_meta.h - the kernels of an AMDGPU code object and their resources.
 *
 * hiprtc (and hipcc) produce an ELF64 of machine EM_AMDGPU (224) whose
 * SHT_NOTE section holds an "AMDGPU" note of type NT_AMDGPU_METADATA (32):
 * one msgpack map with "amdhsa.target" and "amdhsa.kernels", an array of one
 * map per kernel. The fields read here and their meaning: LLVM AMDGPUUsage,
 * "Code Object V3 Kernel Metadata Map" (.name, .sgpr_count, .vgpr_count,
 * .agpr_count (gfx90a and later), .group_segment_fixed_size (static LDS,
 * bytes), .private_segment_fixed_size (scratch per work-item, bytes),
 * .wavefront_size, .max_flat_workgroup_size, .kernarg_segment_size,
 * .sgpr_spill_count, .vgpr_spill_count). A code object in a clang offload
 * bundle is found by the caller (offload_bundle.h). Every offset is checked
 * against the buffer: a corrupt file is an error, never a crash. */
#ifndef RVD_BINSCAN_AMDGPU_META_H
#define RVD_BINSCAN_AMDGPU_META_H

#include <stddef.h>
#include <stdint.h>

/* a field the note does not state stays AMDGPU_UNKNOWN (unknown is never 0) */
#define AMDGPU_UNKNOWN UINT64_MAX

struct amdgpu_kernel {
    char *name;
    uint64_t sgprs, vgprs, agprs, lds, scratch, wave, max_wg, kernarg;
    uint64_t sgpr_spill, vgpr_spill;
};

struct amdgpu_meta {
    char *target; /* "amdgcn-amd-amdhsa--gfx90a", NULL when absent */
    struct amdgpu_kernel *k;
    size_t n;
};

/* Parse the code object in p[0..n). 0, or -1 with *err (owned) saying what
 * is wrong; kernels read before the error stay in *out. */
int amdgpu_meta_read(const unsigned char *p, size_t n, struct amdgpu_meta *out, char **err);
/* the msgpack note alone (the fuzz harness and the unit test feed it) */
int amdgpu_meta_parse_note(const unsigned char *p, size_t n, struct amdgpu_meta *out, char **err);
void amdgpu_meta_release(struct amdgpu_meta *m);

#endif
