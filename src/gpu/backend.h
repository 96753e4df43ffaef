/* backend.h - one interface to the GPU runtimes: HIP (the product), CUDA (the
 * reference on NVIDIA hardware) and CPU (the numerical reference).
 *
 * Vendor libraries are dlopen'd, never linked; use this only inside an
 * isolated probe child (isolate.h). Usage:
 *
 *     struct gpu_backend *b = gpu_backend_open(GPU_BACKEND_AUTO, &why);
 *     if (!b) { ...why says which libraries were tried and their dlerror... }
 *     b->device_count(b, &n); b->set_device(b, 0); b->props(b, 0, &p);
 *     gpu_kernel_load(b, "stream", &mod, &why);      // kcache.h: embedded kernels
 *     b->function(b, mod, "triad", &fn);
 *     void *args[] = {&a, &x, &n}; b->launch(b, fn, grid, block, 0, stream, args);
 *
 * Every call returns 0 or a nonzero vendor error code; the text of the last
 * failure ("hipMalloc: hipErrorOutOfMemory: out of memory") is in b->err.
 * Pointers returned by malloc are device pointers usable as kernel arguments.
 * The CPU backend implements memory, copies, gemm and the device properties
 * of the host; it has no modules, streams or graphs (those return -1). */
#ifndef RVD_GPU_BACKEND_H
#define RVD_GPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

enum gpu_backend_kind { GPU_BACKEND_AUTO, GPU_BACKEND_HIP, GPU_BACKEND_CUDA, GPU_BACKEND_CPU };
enum gpu_copy { GPU_H2D = 1, GPU_D2H = 2, GPU_D2D = 3, GPU_DEFAULT = 4 };
enum gpu_dtype { GPU_F32, GPU_F16, GPU_BF16 };
#define GPU_LT_NO_ALGO (-2) /* blas_lt: no algorithm, nothing ran */
/* blas_lt's epilogue after the bias */
enum gpu_lt_epi { GPU_LT_PLAIN, GPU_LT_GELU };

struct gpu_props {
    char name[256];
    char arch[128];     /* full ISA: "gfx90a:sramecc+:xnack-" (HSA) or "sm_90" */
    char target[64];    /* what the compiler takes: "gfx90a" / "sm_90" */
    char pci[32];       /* "0000:03:00.0" (sysfs spelling), "" when the runtime does not say */
    char arch_why[256]; /* why arch/target are "" (HIP: no HSA agent at this PCI address) */
    uint64_t total_mem;
    int cu_count;           /* CUs (AMD) or SMs (NVIDIA) */
    int managed;            /* managed memory supported */
    int concurrent_managed; /* host and device may touch managed memory at once */
    int pageable_access;    /* device may read plain malloc memory (HMM/XNACK) */
    int clock_khz, mem_clock_khz, mem_bus_width; /* -1 when unknown */
    int cc_major, cc_minor; /* compute capability (CUDA); gfx major/minor on HIP */
};

typedef void *gpu_stream; /* NULL = the null (legacy default) stream */
typedef void *gpu_event;
typedef void *gpu_module;
typedef void *gpu_function;
typedef void *gpu_graph;

struct gpu_backend {
    const char *name;     /* "hip", "cuda", "cpu" */
    char lib[512];        /* the runtime library actually loaded */
    char rtc_lib[512];    /* the runtime compiler library (hiprtc/nvrtc), "" if none */
    char blas_lib[512];   /* the BLAS used by gemm, "" = the project's own kernel */
    const char *blas_api; /* "cuBLAS cublasGemmEx" / "rocBLAS rocblas_gemm_ex"; NULL = none */
    char blas_err[512];   /* why there is no BLAS ("" when bound): dlerror, missing symbol,
                           * or ROCM_VLA_DOCTOR_NO_BLAS=1 */
    char rtc_err[512];    /* why no runtime compiler, "" when loaded */
    char extra_lib[512];  /* HIP: the hipBLASLt found beside rocBLAS, or why none (reported,
                           * not bound); "" elsewhere */
    int runtime_version;  /* HIP_VERSION-style (50221153) or CUDA 13000 */
    int driver_version;
    char err[512];      /* last failure, for facts */
    char init_err[256]; /* hipInit/cuInit failure ("" if fine): then 0 devices,
                         * but compile() still works (CI compiles with no GPU) */

    int (*device_count)(struct gpu_backend *b, int *n);
    int (*set_device)(struct gpu_backend *b, int dev);
    int (*props)(struct gpu_backend *b, int dev, struct gpu_props *p);
    int (*mem_info)(struct gpu_backend *b, size_t *free_b, size_t *total_b);

    int (*malloc)(struct gpu_backend *b, void **p, size_t n);
    int (*malloc_managed)(struct gpu_backend *b, void **p, size_t n);
    int (*malloc_host)(struct gpu_backend *b, void **p, size_t n); /* pinned */
    int (*free)(struct gpu_backend *b, void *p);
    int (*free_host)(struct gpu_backend *b, void *p);
    int (*memcpy)(struct gpu_backend *b, void *dst, const void *src, size_t n, enum gpu_copy k);
    int (*memcpy_async)(struct gpu_backend *b, void *dst, const void *src, size_t n,
                        enum gpu_copy k, gpu_stream s);
    int (*memset)(struct gpu_backend *b, void *p, int v, size_t n);
    /* dev = -1: to the host */
    int (*prefetch)(struct gpu_backend *b, const void *p, size_t n, int dev, gpu_stream s);
    /* where the last prefetch put [p, p+n): device index, -1 host, -2 mixed */
    int (*prefetch_location)(struct gpu_backend *b, const void *p, size_t n, int *loc);

    int (*stream_create)(struct gpu_backend *b, gpu_stream *s, int nonblocking);
    int (*stream_destroy)(struct gpu_backend *b, gpu_stream s);
    int (*stream_sync)(struct gpu_backend *b, gpu_stream s);
    int (*device_sync)(struct gpu_backend *b);
    int (*event_create)(struct gpu_backend *b, gpu_event *e);
    int (*event_destroy)(struct gpu_backend *b, gpu_event e);
    int (*event_record)(struct gpu_backend *b, gpu_event e, gpu_stream s);
    int (*event_sync)(struct gpu_backend *b, gpu_event e);
    int (*event_elapsed_ms)(struct gpu_backend *b, float *ms, gpu_event start, gpu_event stop);

    /* compile source for target ("gfx90a", "sm_90"); needs no device. *bin is
     * malloc'd; log receives the compiler's log. */
    int (*compile)(struct gpu_backend *b, const char *src, const char *name, const char *target,
                   void **bin, size_t *len, struct strbuf *log);
    int (*module_load)(struct gpu_backend *b, gpu_module *m, const void *bin, size_t len);
    int (*module_unload)(struct gpu_backend *b, gpu_module m);
    int (*function)(struct gpu_backend *b, gpu_module m, const char *name, gpu_function *f);
    int (*launch)(struct gpu_backend *b, gpu_function f, unsigned grid, unsigned block,
                  unsigned shmem, gpu_stream s, void **args);

    /* C[m x n] (fp32) = A[m x k] * B[k x n], row-major, inputs of type t,
     * fp32 accumulation; NULL when there is no BLAS (no cuBLAS / rocBLAS, or
     * ROCM_VLA_DOCTOR_NO_BLAS=1). Callers use gpu_gemm() (gemm.h), which
     * falls back to the project's kernel (kernels/gemm.hip) and names the path. */
    int (*blas_gemm)(struct gpu_backend *b, enum gpu_dtype t, int m, int n, int k, const void *A,
                     const void *B, float *C, gpu_stream s);

    /* row-major, strided-batched: C_i[m x n] = alpha op(A_i) op(B_i) + beta C_i, i < batch,
     * op(X) = X^T when trans*; X_i = X + i * sX elements; ld* in elements; A/B of type t,
     * C of type ct (GPU_F32 or t), fp32 accumulation. NULL when the backend has no BLAS
     * binding (the VLA ops then use their own kernel). Added for src/vla/ops_gpu.c. */
    int (*blas_gemm_ex)(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                        int transb, int m, int n, int k, float alpha, const void *A, long lda,
                        long long sA, const void *B, long ldb, long long sB, float beta, void *C,
                        long ldc, long long sC, int batch, gpu_stream s);
    /* as blas_gemm_ex, but batched over pointer arrays: A, B and C are DEVICE
     * arrays of batch device pointers (A_i = A[i]), so one call spans
     * operands that no single stride reaches (ops_gpu.c's vision attention:
     * cameras x heads). NULL when the BLAS lacks the call (cuBLAS
     * cublasGemmBatchedEx, rocBLAS rocblas_gemm_batched_ex); callers keep a
     * strided path. */
    int (*blas_gemm_ptrs)(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                          int transb, int m, int n, int k, float alpha, const void *const *A,
                          long lda, const void *const *B, long ldb, float beta, void *const *C,
                          long ldc, int batch, gpu_stream s);

    /* peer-to-peer between devices of this runtime (NULL where there is none):
     * whether dev can access peer's memory; from the current device (set_device),
     * enable its access to peer's memory (already enabled is success); copy n bytes
     * from src on device sdev to dst on device ddev on stream s of the current
     * device (events on s time it) */
    int (*can_access_peer)(struct gpu_backend *b, int dev, int peer, int *can);
    int (*enable_peer)(struct gpu_backend *b, int peer);
    int (*memcpy_peer_async)(struct gpu_backend *b, void *dst, int ddev, const void *src, int sdev,
                             size_t n, gpu_stream s);
    /* cuBLASLt (CUDA; NULL elsewhere, when libcublasLt is absent or with
     * ROCM_VLA_DOCTOR_NO_BLASLT=1 or ROCM_VLA_DOCTOR_NO_BLAS=1): row-major
     * C[m x n] (type ct: GPU_F32 or t) = epi(alpha op(A) op(B) + beta C +
     * bias), batch 1, bias of type bias_t (GPU_F32, also with a 16-bit ct,
     * or ct; n entries, NULL = none) added in the GEMM's epilogue; epi
     * GPU_LT_GELU applies GELU (the tanh form) after the bias (needs one).
     * The algorithm is chosen per shape by timing the library's candidates
     * once outside stream capture. GPU_LT_NO_ALGO: no algorithm for this
     * call (or the library refuses the epilogue or the types; asked once
     * per plan), nothing ran; the caller runs its own path. */
    int (*blas_lt)(struct gpu_backend *b, enum gpu_dtype t, enum gpu_dtype ct, int transa,
                   int transb, int m, int n, int k, float alpha, const void *A, long lda,
                   const void *B, long ldb, float beta, void *C, long ldc, const void *bias,
                   enum gpu_dtype bias_t, int epi, gpu_stream s);
    char blas_lt_lib[512];  /* the cuBLASLt loaded, "" = none */
    char blas_lt_err[512];  /* why none ("" when bound) */
    char blas_lt_note[512]; /* why the last GPU_LT_NO_ALGO ("" = none yet): the caller's BLAS ran */
    void (*close)(struct gpu_backend *b); /* frees what priv holds beyond itself; NULL = nothing */

    /* graph capture of everything issued on s, then replay */
    int (*graph_begin)(struct gpu_backend *b, gpu_stream s);
    int (*graph_end)(struct gpu_backend *b, gpu_stream s, gpu_graph *g);
    int (*graph_launch)(struct gpu_backend *b, gpu_graph g, gpu_stream s);
    int (*graph_destroy)(struct gpu_backend *b, gpu_graph g);

    void *priv;
};

/* Load and initialise a backend. AUTO tries HIP, then CUDA. NULL on failure,
 * with *why (malloc'd) saying what was tried. A runtime that loads but sees
 * no device is returned (device_count gives 0). Library paths can be forced
 * with ROCM_VLA_DOCTOR_HIP_LIB / ROCM_VLA_DOCTOR_CUDA_LIB (tests). */
struct gpu_backend *gpu_backend_open(enum gpu_backend_kind kind, char **why);
void gpu_backend_close(struct gpu_backend *b);

/* the directory whose libamdhip64, libhiprtc, libhsa-runtime64, rocBLAS and
 * hipBLASLt the HIP backend tries first (PyTorch's torch/lib when PyTorch
 * loads its wheel's own ROCm: rocm.torch_lib_set); NULL: the loader's search
 * alone. Set by the parent before it forks a GPU probe, so the child loads
 * what the user's model loads; a forced ROCM_VLA_DOCTOR_*_LIB still wins. */
void gpu_backend_hip_use_dir(const char *dir);
/* the directory set above, or NULL */
const char *gpu_backend_hip_dir(void);

/* the three implementations (backend_hip.c, backend_cuda.c, backend_cpu.c) */
struct gpu_backend *gpu_backend_hip_open(char **why);
struct gpu_backend *gpu_backend_cuda_open(char **why);
struct gpu_backend *gpu_backend_cpu_open(void);

/* Test hook: ROCM_VLA_DOCTOR_CPU_DEVICES=N (1..GPU_CPU_MAX_DEVICES) or a comma-separated
 * list of PCI addresses makes the CPU backend show that many devices, each with its own
 * PCI address (N: synthetic 00ff:<i>:00.0, paired with no sysfs GPU; a list: a fixture
 * machine's GPUs), and makes GPU_BACKEND_AUTO open it, also under --sysroot: the
 * multi-GPU logic (--gpu, per-GPU facts, peer-to-peer, the memory test) runs in CI.
 * Returns the count with pci[] filled, 0 when unset, -1 with why when malformed. */
#define GPU_CPU_MAX_DEVICES 16
int gpu_cpu_test_devices(char pci[][32], int max, char *why, size_t why_len);

/* IEEE binary16 and bfloat16 conversions, round to nearest even (backend_cpu.c) */
uint16_t gpu_float_to_half(float f);
float gpu_bf16_to_float(uint16_t h);
uint16_t gpu_float_to_bf16(float f);

/* helpers shared by the implementations */
void gpu_set_err(struct gpu_backend *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* dlopen the first of names[] that loads; errors of all attempts into *why */
void *gpu_dlopen_first(const char *const *names, size_t n, char *path, size_t path_len,
                       struct strbuf *why);
/* a vendor library: the path in the environment variable env when set, else
 * the first of names that loads; its path in lib. NULL with "not loaded:
 * <why>" in why. */
void *gpu_dlopen_env(const char *env, const char *const *names, size_t n, char *lib, size_t lib_n,
                     char *why, size_t why_n);

#endif
