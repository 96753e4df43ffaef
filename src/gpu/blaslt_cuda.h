/* blaslt_cuda.h - GEMMs through cuBLASLt for the CUDA backend (backend.h's
 * blas_lt): the library's heuristic candidates for each shape, timed once
 * outside stream capture and the fastest kept (a per-shape plan cache), with
 * the bias (and GELU, backend.h's GPU_LT_GELU) added in the GEMM's epilogue. Only backend_cuda.c
 * uses this. */
#ifndef RVD_GPU_BLASLT_CUDA_H
#define RVD_GPU_BLASLT_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

struct gpu_lt;

/* dlopen libcublasLt; NULL with the reason in *err (malloc'd), lib gets
 * the path loaded */
struct gpu_lt *gpu_lt_open(char *lib, size_t lib_len, char **err);

/* backend.h's blas_lt; tune = 0 while the stream is being captured (no
 * allocation, no timing: the heuristic's first choice, timed on a later call) */
int gpu_lt_gemm(struct gpu_lt *lt, struct gpu_backend *b, int tune, enum gpu_dtype t,
                enum gpu_dtype ct, int transa, int transb, int m, int n, int k, float alpha,
                const void *A, long lda, const void *B, long ldb, float beta, void *C, long ldc,
                const void *bias, enum gpu_dtype bias_t, int epi, gpu_stream s);

/* the alignment in bytes an algorithm may assume for a matrix at p with
 * rows ld elements of es bytes apart: the largest power of two dividing
 * both the address and the row pitch, at most 256 (what the library asks
 * at most); part of a plan's key, so a plan never meets a less aligned
 * operand than the one it was chosen for */
uint32_t gpu_lt_align(const void *p, long ld, size_t es);

/* the plans and the cache (not the library's handle, the workspace or the
 * events: the backend keeps those until its process exits) */
void gpu_lt_close(struct gpu_lt *lt);

#endif
