/* blaslt_cuda.h - the cuBLASLt binding of blaslt.h for the CUDA backend
 * (backend.h's blas_lt). Only backend_cuda.c uses this. */
#ifndef RVD_GPU_BLASLT_CUDA_H
#define RVD_GPU_BLASLT_CUDA_H

#include <stddef.h>

#include "blaslt.h"

/* dlopen libcublasLt (ROCM_VLA_DOCTOR_CUBLASLT_LIB: only that file); NULL
 * with the reason in *err (malloc'd), lib gets the path loaded */
struct gpu_lt *gpu_lt_open(char *lib, size_t lib_len, char **err);

#endif
