/* blaslt.h - GEMMs through a "Lt" BLAS (cuBLASLt on CUDA, hipBLASLt on HIP)
 * for backend.h's blas_lt: the library's heuristic candidates for each shape,
 * timed once outside stream capture and the fastest kept (a per-shape plan
 * cache), with the bias (and GELU, backend.h's GPU_LT_GELU) added in the
 * GEMM's epilogue. The two libraries have the same calls in the same order
 * and differ in names, enumeration values and the layout of the heuristic's
 * result, so one implementation (blaslt.c) runs both from a table
 * (struct lt_lib) that each binding fills: blaslt_cuda.c, blaslt_hip.c. */
#ifndef RVD_GPU_BLASLT_H
#define RVD_GPU_BLASLT_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

struct gpu_lt;

/* the calls, in the order a GEMM needs them; the symbol of each is the
 * binding's (lt_lib.sym) */
enum lt_fn {
    LT_CREATE,
    LT_PREF_CREATE,
    LT_DESC_CREATE,
    LT_DESC_SET,
    LT_LAYOUT_CREATE,
    LT_PREF_SET,
    LT_HEURISTIC,
    LT_MATMUL,
    LT_LAYOUT_DESTROY,
    LT_DESC_DESTROY,
    LT_PREF_DESTROY, /* optional: called unless lt_lib.keep_handles */
    LT_DESTROY,      /* optional, as LT_PREF_DESTROY */
    LT_NFN
};

/* the symbols: both libraries name the calls alike after their prefix
 * ("cublasLt", "hipblasLt") */
#define LT_SYMS(p)                                                                                 \
    {                                                                                              \
        [LT_CREATE] = p "Create", [LT_PREF_CREATE] = p "MatmulPreferenceCreate",                   \
        [LT_DESC_CREATE] = p "MatmulDescCreate", [LT_DESC_SET] = p "MatmulDescSetAttribute",       \
        [LT_LAYOUT_CREATE] = p "MatrixLayoutCreate",                                               \
        [LT_PREF_SET] = p "MatmulPreferenceSetAttribute",                                          \
        [LT_HEURISTIC] = p "MatmulAlgoGetHeuristic", [LT_MATMUL] = p "Matmul",                     \
        [LT_LAYOUT_DESTROY] = p "MatrixLayoutDestroy", [LT_DESC_DESTROY] = p "MatmulDescDestroy",  \
        [LT_PREF_DESTROY] = p "MatmulPreferenceDestroy", [LT_DESTROY] = p "Destroy"                \
    }

/* the calls as blaslt.c makes them: the libraries' handles as void * (both
 * are pointers to opaque structures), their enumerations as int (4 bytes in
 * both ABIs) */
typedef int (*lt_create_fn)(void **o); /* the handle, the preference */
typedef int (*lt_desc_create_fn)(void **d, int compute, int scale);
typedef int (*lt_set_fn)(void *o, int attr, const void *buf, size_t n);
typedef int (*lt_layout_create_fn)(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld);
typedef int (*lt_heuristic_fn)(void *h, void *d, void *a, void *b, void *c, void *dd, void *p,
                               int want, void *res, int *got);
typedef int (*lt_matmul_fn)(void *h, void *d, const void *alpha, const void *A, void *la,
                            const void *B, void *lb, const void *beta, const void *C, void *lc,
                            void *D, void *ld, const void *algo, void *ws, size_t wsn,
                            void *stream);
typedef int (*lt_destroy_fn)(void *o);

/* the binding's prototype fn (from its *_api.h, held against the vendor's
 * header) has the shape of the call T that blaslt.c makes: gcc's
 * -Wcast-function-type, an error under -Werror, rejects another number of
 * arguments or an integer where a pointer (or a wider integer) is; never
 * evaluated, so nothing is linked */
#define LT_SHAPE(T, fn) _Static_assert(sizeof((T)&fn) != 0, #fn)

/* one library: symbols, the enumeration values its header gives, and where
 * the heuristic result's fields are (offsetof in the binding) */
struct lt_lib {
    const char *name; /* "cuBLASLt", in reasons */
    const char *sym[LT_NFN];
    int keep_handles; /* the handle and the preference live until the process exits */
    int attr_transa, attr_transb, attr_epi, attr_bias_ptr, attr_bias_type;
    int op_n, op_t, compute_32f;
    int t_f32, t_f16, t_bf16;
    uint32_t epi_default, epi_bias, epi_gelu_bias;
    int pref_ws;
    int pref_align; /* the first of MIN_ALIGNMENT_{A,B,C,D}_BYTES, -1: the library has none */
    size_t heur_size, heur_algo, heur_ws, heur_state, algo_size;
};

/* dlopen the first of names that loads and bind L's symbols, create the
 * handle and the preference; NULL with the reason in *err (malloc'd), lib
 * gets the path loaded ("" on failure) */
struct gpu_lt *gpu_lt_load(const struct lt_lib *L, const char *const *names, size_t nnames,
                           char *lib, size_t lib_len, char **err);

/* backend.h's blas_lt; tune = 0 while the stream is being captured (no
 * allocation, no timing: the heuristic's first choice, timed on a later call).
 * A GPU_LT_NO_ALGO answer says why in b->blas_lt_note. */
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

/* the plans and the cache, and the handle and preference where the library
 * has the destroy calls (not the workspace or the events: the backend keeps
 * those until its process exits) */
void gpu_lt_close(struct gpu_lt *lt);

#endif
