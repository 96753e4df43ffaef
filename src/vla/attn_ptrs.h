/* attn_ptrs.h - the vision attention's two GEMMs (S = Q K^T, O = P V) for
 * every camera x head in one BLAS call each, through pointer arrays
 * (backend.h blas_gemm_ptrs), for ops_gpu.c's attend16.
 *
 * Q/K/V are read in place from the 16-bit QKV rows [C*T, 3, H, hd]: a
 * camera's rows are T * 3W elements apart, its heads hd apart, so no single
 * stride spans both and the strided-batched call needs one launch per
 * camera. A pointer array names every (camera, head) operand instead. The
 * arrays live in device memory; they are built on the host and uploaded
 * only outside a graph capture (a capture records the GEMM reading them, so
 * they must stay put while the graph lives), cached by every address and
 * size they are computed from: a scratch buffer that moved is a new key. */
#ifndef RVD_VLA_ATTN_PTRS_H
#define RVD_VLA_ATTN_PTRS_H

#include "../gpu/backend.h"

struct vla_attn_geom {
    const void *qkv16; /* [C*T, 3W] of type t (16-bit), W = H * hd */
    float *S;          /* [C*H, T, T] fp32 scores */
    void *P16;         /* [C*H, T, T] 16-bit probabilities */
    void *out;         /* [C*T, W] of type ot */
    enum gpu_dtype t, ot;
    int C, T, H, hd;
};

/* the arrays, each C*H pointers, entry c*H + h, array a at a*C*H */
enum { VLA_AP_Q, VLA_AP_K, VLA_AP_S, VLA_AP_P, VLA_AP_V, VLA_AP_O, VLA_AP_N };

#define VLA_AP_CACHE 32
struct vla_attn_cache {
    struct vla_ap_entry {
        struct vla_attn_geom g;
        void **dev; /* VLA_AP_N * C * H device pointers */
        int pinned; /* read by a capture: a graph may replay it, never reused */
    } e[VLA_AP_CACHE];
    int n, next; /* entries, the next to reuse when full */
    long long uploads, calls, fallbacks;
    char why[256]; /* the last fallback's reason */
};

enum vla_attn_phase { VLA_AP_SCORES, VLA_AP_PV };

/* One phase through b->blas_gemm_ptrs on stream s: scores S_i = Q_i K_i^T
 * (fp32), or O_i = P_i V_i (type ot), i over C*H. 0: it ran. Nonzero:
 * nothing usable ran and the caller runs its strided path; c->why says
 * why: no blas_gemm_ptrs, a cache miss while capturing, every entry pinned,
 * the allocation or upload failing, or the call failing. */
int vla_attn_ptr_gemm(struct vla_attn_cache *c, struct gpu_backend *b, int capturing,
                      enum vla_attn_phase ph, const struct vla_attn_geom *g, gpu_stream s);
void vla_attn_cache_free(struct vla_attn_cache *c, struct gpu_backend *b);

#endif
