/* torch_kernels.h - which library ran, from the names of the GPU kernels
 * torch.profiler saw (probes/torch_probe.py reports them raw): one
 * classifier for CUDA and ROCm answers, unit-tested on both
 * (tests/unit/test_torch_kernels.c). From the kernels that ran, never from
 * flags: a flag says what torch may pick, the kernel what it picked. */
#ifndef RVD_TORCH_KERNELS_H
#define RVD_TORCH_KERNELS_H

#include <stddef.h>

/* the scaled-dot-product attention backend: "cudnn", "flash",
 * "mem_efficient" (CUDA), "ck" (ROCm composable-kernel flash),
 * "aotriton" (ROCm AOTriton flash/mem-efficient), "math" (no fused
 * attention kernel, a softmax kernel ran), or NULL when no kernel tells */
const char *torch_sdpa_backend(const char *const *names, size_t n);

/* the GEMM library: "hipblaslt", "rocblas", "hipblaslt+rocblas", "cublaslt"
 * (nvjet kernels: cuBLASLt only), "cublas" (cuBLAS or cuBLASLt: their
 * older kernel names are shared), or NULL */
const char *torch_blas_library(const char *const *names, size_t n);

/* a host-to-device copy ran inside the pass: a CPU tensor in the loop */
int torch_has_htod(const char *const *names, size_t n);

#endif
