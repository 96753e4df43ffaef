/* offload_bundle.h - which GPU targets a HIP library really contains.
 *
 * hipcc/clang put device code into the ELF section .hip_fatbin as clang
 * offload bundles, one per translation unit, concatenated and aligned:
 *
 *   "__CLANG_OFFLOAD_BUNDLE__"  uint64 entry count
 *   per entry: uint64 offset (from the bundle start), uint64 size,
 *              uint64 id length, id ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")
 *
 * Newer clang (LLVM 18+, ROCm 6.2+ with --offload-compress) writes compressed
 * bundles instead: "CCOB", uint16 version, uint16 method (0 zlib, 1 zstd),
 * then v1: uint32 uncompressed size; v2: uint32 total size, uint32
 * uncompressed size; v3: uint64 total size, uint64 uncompressed size; then a
 * uint64 hash and the compressed plain bundle. Only the start of the payload
 * is decompressed (the entry ids sit at its start); zlib is linked, zstd is
 * dlopen'ed (libzstd.so.1) and, when absent, the bundle is reported as
 * "compressed bundle, targets unknown".
 *
 * Every offset is checked against the section; a corrupt library is an error
 * naming the file, never a crash. Source: clang's ClangOffloadBundler.cpp and
 * llvm/lib/Object/OffloadBundle.cpp (formats), LLVM AMDGPUUsage (target ids,
 * generic targets). */
#ifndef RVD_OFFLOAD_BUNDLE_H
#define RVD_OFFLOAD_BUNDLE_H

#include <stddef.h>

#include "../core/strset.h"
#include "../core/util.h"

struct offload_scan {
    struct strlist targets; /* unique target ids, sorted: "gfx90a:xnack-" */
    struct strset seen;     /* the ids in targets, for the dedupe (borrowed) */
    unsigned bundles;       /* bundles found, plain and compressed */
    unsigned compressed;    /* of which compressed (CCOB) */
    unsigned unknown;       /* compressed bundles whose targets could not be read */
    char *unknown_why;      /* the first reason, e.g. "zstd: libzstd.so.1 not found" */
    int has_fatbin;         /* the file has a .hip_fatbin section */
    int has_wrapper;        /* the file has a .hipFatBinSegment section */
};

void offload_scan_release(struct offload_scan *s);

/* Scan the bytes of a .hip_fatbin section (or any buffer of concatenated
 * bundles). `what` names the buffer in messages. 0, or -EINVAL with *err
 * (owned) on a corrupt bundle; what was found before stays in *out. */
int offload_scan_buffer(const unsigned char *p, size_t n, const char *what,
                        struct offload_scan *out, char **err);

/* Map an ELF library read-only and scan its .hip_fatbin. A file without the
 * section is not an error (has_fatbin = 0). 0 or -errno with *err (owned). */
int offload_scan_file(const char *host_path, struct offload_scan *out, char **err);

/* The target id of a bundle entry id: "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
 * gives "gfx90a:xnack-", a SPIR-V entry gives "amdgcnspirv"; NULL for host
 * and other non-AMD GPU entries. Also accepts a full HSA ISA name
 * ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") or a bare target id. */
char *offload_target_from_id(const char *id, size_t n);

/* 1 when code built for `code` loads on a device whose target is `device`:
 * same processor (or a generic target that covers it, or SPIR-V), and every
 * feature (sramecc, xnack) stated by both sides has the same sign; a side
 * that does not state a feature accepts either. */
int offload_target_matches(const char *code, const char *device);

/* the processor of a target id: "gfx90a:xnack-" -> "gfx90a" (owned) */
char *offload_target_processor(const char *target);

/* gfx processor names in a Tensile/hipBLASLt file name
 * ("TensileLibrary_lazy_gfx90a.dat", "Kernels.so-000-gfx1030.hsaco"),
 * added to `out` when not yet there */
void offload_tensile_targets(const char *file_name, struct strlist *out);

#endif
