/* ops_gpu.h - the VLA ops over a GPU backend (src/gpu/backend.h): HIP or
 * CUDA, fp32 or reduced precision (bf16/fp16 GEMM inputs, fp32 accumulate,
 * fp32 activations, norms, softmax, RoPE and integrator). A context
 * (struct vla_gpu) is one device with its stream, kernels, weights and
 * buffers: the caller opens it, puts the weights on the device, runs passes
 * through the op table vla_gpu_ops returns, and closes it; every call below
 * takes it. Only ever used where a GPU runtime may be loaded (bench, or the
 * isolated child of the vla probe). Errors as ops.h says: a call that can
 * fail returns -1 and, where it has a char **why, the reason there; the
 * ops return nothing, so their first failure sticks to the context until
 * vla_gpu_failed reports it. */
#ifndef RVD_VLA_OPS_GPU_H
#define RVD_VLA_OPS_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "ops.h"
#include "weights.h"

struct vla_gpu;

struct vla_gpu_info {
    char backend[16]; /* "cuda" / "hip" */
    char device[256];
    char target[64];
    char blas[512];   /* BLAS library, "" = own GEMM kernel */
    char lt_why[512]; /* why batch-1 GEMMs do not use cuBLASLt, "" when they do */
    char pci[32];     /* the device's PCI address, "" when the runtime does not say */
    double open_s;    /* runtime load + context + kernel compile (or cache load) */
    int cache_hits, compiles;
    size_t total_mem;
};

/* kind: "auto" (HIP, else CUDA), "hip" or "cuda". 0 with *g the new
 * context, or -1 with *why (malloc'd) saying why there is no usable GPU. */
int vla_gpu_open(const char *kind, struct vla_gpu **g, char **why);
/* frees everything the context holds, the device buffers of its ops'
 * alloc included; NULL: nothing */
void vla_gpu_close(struct vla_gpu *g);
/* the ops over g's device memory (vla_model_init's table); valid until close */
const struct vla_ops *vla_gpu_ops(struct vla_gpu *g);
const struct vla_gpu_info *vla_gpu_info(struct vla_gpu *g);
/* 1 (the default): 16-bit copies written by their producers, the fused QKV
 * GEMM, batched vision attention; 0: the unfused path (the kernel tests'
 * A/B; ROCM_VLA_DOCTOR_VLA_NO_FUSE=1 at open) */
void vla_gpu_set_fuse(struct vla_gpu *g, int on);
/* 1 (the default): batch-1 GEMMs through cuBLASLt where the backend has it
 * (ROCM_VLA_DOCTOR_NO_BLASLT=1 at open: never); 0: through blas_gemm_ex (the
 * kernel tests' A/B). -1 when the backend has no cuBLASLt */
int vla_gpu_set_blaslt(struct vla_gpu *g, int on);
/* batch-1 GEMMs the Lt BLAS answered GPU_LT_NO_ALGO since open (they ran
 * through blas_gemm_ex instead); *why: the last reason, "" = none */
long long vla_gpu_lt_fallbacks(struct vla_gpu *g, const char **why);
/* since open: 16-bit GEMM operands found as a producer's shadow, found in a
 * mirror (the KV cache, x_t), and conversion kernels launched (the kernel
 * tests check that the fused paths ran) */
void vla_gpu_fuse_counts(struct vla_gpu *g, long long *shadow_hits, long long *mirror_hits,
                         long long *conversions);
/* the vision attention's GEMMs over cameras x heads (attn_ptrs.h): pointer-
 * array calls and strided fallbacks so far; NULL when the path is on and
 * never fell back, else why not (disabled, no such BLAS call, the last
 * fallback's reason) */
const char *vla_gpu_ptr_batch(struct vla_gpu *g, long long *calls, long long *fallbacks);
/* 1 (the default): vision attention in 16 bits through the fused kernel
 * (QK^T, online softmax, PV in one launch) where the target has it; 0: the
 * BLAS path (the kernel tests' A/B; ROCM_VLA_DOCTOR_NO_FLASH=1 at open).
 * -1 when this target has no fused kernel (then always the BLAS path) */
int vla_gpu_set_flash(struct vla_gpu *g, int on);
/* fused attention launches so far; NULL when the kernel is in use, else why
 * not */
const char *vla_gpu_flash(struct vla_gpu *g, long long *calls);
/* 1: the 16-bit GEMMs of at most 64 rows (a denoising step's weight
 * GEMMs) through the split-K weight-streaming kernel (ops_gpu_skinny.c); 0:
 * cuBLASLt / the BLAS (the default, ROCM_VLA_DOCTOR_SKINNY=1 at open turns
 * it on). -1 when this target has no such kernel (always the BLAS) */
int vla_gpu_set_skinny(struct vla_gpu *g, int on);
/* split-K GEMM launches so far; NULL when the kernel is in use, else why
 * not */
const char *vla_gpu_skinny(struct vla_gpu *g, long long *calls);
/* "fp32", "bf16" or "fp16": the precision of the GEMM inputs from now on */
int vla_gpu_set_dtype(struct vla_gpu *g, const char *dtype);

/* the weight arena on the device: the tensors of w's layout get device
 * pointers (w->t[i].data and the named pointers); values synthetic from the
 * counter RNG on the device, or copied from w's host arena (loaded from a
 * file) when host is set. The 16-bit copy for reduced precision is made
 * here too. 0 or -1. */
int vla_gpu_weights(struct vla_gpu *g, struct vla_weights *w, const struct vla_preset *p,
                    uint64_t seed, int from_host);
/* copy the device arena back to a host arena of the same layout (for --save-weights) */
int vla_gpu_weights_download(struct vla_gpu *g, float *host, size_t n);

/* one CUDA/HIP graph of the whole pass (vla_forward without statistics),
 * events at the stage boundaries. 0, or -1 with the reason in *why (then
 * the caller runs stream launches). Inputs are re-read from `in` and the
 * actions written to `actions` on every replay. */
int vla_gpu_graph_capture(struct vla_gpu *g, struct vla_model *m, const struct vla_inputs *in,
                          float *actions, char **why);
/* replay; stage_s[VLA_STAGES] from the events (NULL: not wanted). 0 or -1 */
int vla_gpu_graph_run(struct vla_gpu *g, double *stage_s, int nstages);

/* per-kernel time of the stream-launched work between begin and end: an
 * event after every launch (the gap before a launch counts to it); out[]
 * gets up to max rows by kernel name and stage; returns the rows or -1 */
struct vla_gpu_prof {
    const char *what;
    const char *stage; /* "vision", "prefix" or "steps" (the denoising steps and the tail) */
    int calls;
    double ms;
};
void vla_gpu_profile_begin(struct vla_gpu *g);
int vla_gpu_profile_end(struct vla_gpu *g, struct vla_gpu_prof *out, int max);

/* device memory in use by this process's pass: total - free at the moment of
 * the call, minus what was in use before vla_gpu_open */
size_t vla_gpu_used_bytes(struct vla_gpu *g);
/* bytes allocated by the ops (weights, activations, scratch), peak */
size_t vla_gpu_alloc_peak(struct vla_gpu *g);
/* ceilings measured now: FLOP/s of an 8192^3 GEMM in the current dtype
 * (0 without a BLAS) and bytes/s (read + write) of a device copy */
int vla_gpu_ceilings(struct vla_gpu *g, double *gemm_flops, double *copy_bytes_s);
/* the soak's GEMM load: reps n^3 GEMMs in the current dtype, synchronised; 0 or -1 */
int vla_gpu_load_gemm(struct vla_gpu *g, int n, int reps);
/* x_t after the last pass (normalised actions), [B * chunk * A] */
int vla_gpu_download_state(struct vla_gpu *g, const struct vla_model *m, float *host);
/* 0 while the context has not failed; -1 once it has, with the first
 * failure's reason in *why (malloc'd; why NULL: only asking). The ops
 * return nothing: run a pass, then ask here. */
int vla_gpu_failed(struct vla_gpu *g, char **why);

#endif
