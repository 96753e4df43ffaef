/* blaslt_hip.h - the hipBLASLt binding of blaslt.h for the HIP backend
 * (backend.h's blas_lt). Only backend_hip.c uses this. */
#ifndef RVD_GPU_BLASLT_HIP_H
#define RVD_GPU_BLASLT_HIP_H

#include <stddef.h>

#include "blaslt.h"

/* dlopen the first of names that loads (backend_hip.c's list: its own
 * directory, the ROCm 7 and 6 sonames), create the handle and the
 * preference; NULL with the reason in *err (malloc'd), lib gets the path */
struct gpu_lt *gpu_lt_hip_open(const char *const *names, size_t n, char *lib, size_t lib_len,
                               char **err);

#endif
