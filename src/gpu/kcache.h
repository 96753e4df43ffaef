/* kcache.h - the kernels built into the binary (kernels/NAME.hip, embedded by
 * the Makefile) and their on-disk compile cache.
 *
 * A kernel is compiled at run time for the device's target with the
 * backend's compiler (hiprtc --offload-arch=gfxNNN, NVRTC -arch=sm_XX); the
 * code object is cached in $ROCM_VLA_DOCTOR_CACHE, else
 * $XDG_CACHE_HOME/rocm-vla-doctor, else ~/.cache/rocm-vla-doctor, keyed by a
 * hash of the full source, the target, the backend, its runtime version and
 * its compiler library. A warm run loads from the cache and compiles nothing. */
#ifndef RVD_GPU_KCACHE_H
#define RVD_GPU_KCACHE_H

#include "backend.h"

struct gpu_kernel_src {
    const char *name, *start, *end;
};
/* terminated by a {NULL, NULL, NULL} entry; includes "prelude" */
extern const struct gpu_kernel_src rvd_kernels[];

struct kcache_stats {
    int hits, compiles, failures;
    double compile_s;
};
extern struct kcache_stats kcache_stats;

/* compile (or load from the cache) kernels/<name>.hip for target; 0 or -1
 * with *why (malloc'd: the compiler's error and the tail of its log) */
int gpu_kernel_binary(struct gpu_backend *b, const char *name, const char *target, void **bin,
                      size_t *len, char **why);
/* the same, then loaded as a module on the current device */
int gpu_kernel_load(struct gpu_backend *b, const char *name, const char *target, gpu_module *m,
                    char **why);

#endif
