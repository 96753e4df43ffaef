/* ops_gpu_ctx.h - private to the ops_gpu*.c files: struct vla_gpu, the
 * context every GPU op and every vla_gpu_* call works on (one device, its
 * stream, the kernels, the weight arena, the buffers, the 16-bit copies, the
 * profile and the graphs), and the helpers the files share. A caller sees
 * only the opaque struct of ops_gpu.h. Which file does what:
 *   ops_gpu.c          open/close, the switches and counters, the op table
 *   ops_gpu_launch.c   the kernel table, launches, the --profile marks
 *   ops_gpu_mem.c      device allocations, scratch, transfers (staged in a capture)
 *   ops_gpu_operand.c  GEMM operands: shadows, mirrors, the 16-bit weights
 *   ops_gpu_gemm.c     GEMM dispatch (cuBLASLt, BLAS, own kernel), ceilings, soak load
 *   ops_gpu_skinny.c   the step's small-M GEMMs through the split-K streaming kernel
 *   ops_gpu_attn.c     attention: BLAS paths, the fused kernel, the vision blocks
 *   ops_gpu_elem.c     norms, activations, layout kernels, MoE, statistics
 *   ops_gpu_weights.c  the weight arena (synthetic or uploaded) and its 16-bit copy
 *   ops_gpu_graph.c    stage boundaries, graph capture and replay */
#ifndef RVD_VLA_OPS_GPU_CTX_H
#define RVD_VLA_OPS_GPU_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "../gpu/backend.h"
#include "attn_ptrs.h"
#include "ops_gpu.h"
#include "spans.h"

/* clang-format off: one kernel a line (the formatter reflows this list
 * differently on every pass) */
#define VGPU_KERNELS(X)                                                                            \
    X(vla_cvt16)                                                                                   \
    X(vla_rng_fill)                                                                                \
    X(vla_bias)                                                                                    \
    X(vla_axpy)                                                                                    \
    X(vla_scale)                                                                                   \
    X(vla_act)                                                                                     \
    X(vla_glu)                                                                                     \
    X(vla_layernorm)                                                                               \
    X(vla_rmsnorm)                                                                                 \
    X(vla_rope)                                                                                    \
    X(vla_softmax)                                                                                 \
    X(vla_softmax_warp)                                                                            \
    X(vla_patchify)                                                                                \
    X(vla_pos_interp)                                                                              \
    X(vla_merge)                                                                                   \
    X(vla_embed)                                                                                   \
    X(vla_concat_bcast)                                                                            \
    X(vla_time_embed)                                                                              \
    X(vla_denorm_clamp)                                                                            \
    X(vla_max_abs)                                                                                 \
    X(vla_moe_route)                                                                               \
    X(vla_moe_combine)                                                                             \
    X(vla_gemm_f32)                                                                                \
    X(vla_gemm_w16)                                                                                \
    X(vla_cvt16x3)                                                                                 \
    X(vla_bias_act)                                                                                \
    X(vla_bias_layernorm)                                                                          \
    X(vla_rope_split)                                                                              \
    X(vla_bias_cvt16)                                                                              \
    X(vla_time_concat)                                                                             \
    X(vla_flash_attn_bf)                                                                           \
    X(vla_flash_attn_h)                                                                            \
    X(vla_flash_attn_w_bf)                                                                         \
    X(vla_flash_attn_w_h)                                                                          \
    X(vla_glu16)                                                                                   \
    X(vla_gemm_skinny_bf)                                                                          \
    X(vla_gemm_skinny_h)
/* clang-format on */
#define VGPU_KENUM(n) K_##n,
enum { VGPU_KERNELS(VGPU_KENUM) K_COUNT };

#define BLOCK 256
#define PROF_MAX 16384
/* host copies a captured pass stages, both captures together: the images,
 * the noise, the actions and one token upload per observation (model.c
 * embeds each observation's tokens into its own prefix rows) */
#define MAX_STAGED (2 * (3 + VLA_MAX_BATCH) + 4)
#define MAX_EVENTS 128

struct staged {
    const void *host_src; /* upload: re-read before every replay */
    void *host_dst;       /* download: written after every replay */
    void *pin;
    size_t bytes;
};

struct scratch {
    void *p;
    size_t cap;
};

/* A "shadow": the 16-bit copy of an fp32 activation that its producer (a
 * norm, an activation, a GLU) wrote in the same kernel, so the GEMM that
 * reads it next skips its own conversion (one kernel less per GEMM input;
 * two GEMMs reading one norm's output share it). One slot per producer
 * kind, each with its own buffer. A slot is dropped when anything writes
 * memory overlapping its fp32 source, at every stage boundary (vgpu_sync)
 * and when the dtype changes: a hit is always the current value. */
enum { SH_NORM, SH_ACT, SH_GLU, SH_ROPE_Q, SH_CAT, SH_N };
struct shadow {
    const float *src;
    size_t n; /* fp32 elements, contiguous */
    void *p16;
};

/* A "mirror": the 16-bit copy of an fp32 allocation that, unlike a shadow,
 * outlives stage boundaries. It serves the KV cache: qkv_rope writes a
 * layer's K/V rows in fp32 and 16 bits in one kernel (the prefix's rows
 * once a pass, a step's rows every step) and attention reads the 16-bit rows
 * where it used to convert the layer's whole cache every step; and the
 * integrator state x_t, which axpy writes at the end of a step and the next
 * step's first GEMM reads (act_operand looks here after the shadows).
 * `valid` holds the element ranges written in both forms; vgpu_wrote()
 * cuts every other write out of them (every device write of the ops calls
 * it), so rows found valid hold the current values. */
struct alloc_rec {
    float *p;
    size_t n;
    uint16_t *m16; /* the mirror, NULL until a producer first writes one here */
    struct vla_spans valid;
};

struct vla_gpu {
    struct vla_ops ops; /* the op table (ops_gpu.c) with .ctx = this context */
    struct gpu_backend *b;
    gpu_stream s;
    gpu_module mod;
    gpu_function f[K_COUNT];
    struct vla_gpu_info info;
    enum gpu_dtype dt;
    int gridmax;
    float *arena;
    size_t arena_n;
    uint16_t *arena16;
    enum gpu_dtype arena16_dt;
    struct scratch a16, q16, k16, v16, S, P16, tok, red, moe_w, moe_gu, moe_act, moe_eo;
    struct scratch sh_buf[SH_N], qkvbuf, o16, w16;
    struct scratch qkv16, att16, hid16, wa16, wb16; /* the vision blocks' 16-bit intermediates */
    struct scratch gu16, glu16;                     /* gated_mlp's 16-bit intermediates */
    struct scratch sk_ws, sk_cnt; /* the split-K GEMM's partials and per-tile counters */
    struct shadow sh[SH_N];
    struct alloc_rec *allocs; /* vgpu_alloc's allocations, for their mirrors */
    int nallocs, capallocs;
    long long mirror_hits;
    int no_shadow; /* ROCM_VLA_DOCTOR_VLA_NO_FUSE=1: the unfused path (kernel tests, A/B) */
    int no_lt;     /* vla_gpu_set_blaslt(0): batch-1 GEMMs through blas_gemm_ex (kernel tests) */
    /* ROCM_VLA_DOCTOR_NO_PTR_BATCH=1: attend16 per camera (kernel tests) */
    int no_ptr_batch;
    /* attend16's pointer arrays */
    struct vla_attn_cache ap;
    /* the fused attention kernel (vla_flash_attn): flash_hw when the module
     * was built for a target with mma.sync (CUDA sm_80+), flash_off when
     * ROCM_VLA_DOCTOR_NO_FLASH=1 or vla_gpu_set_flash(0) */
    int flash_hw, flash_off;
    long long flash_calls;
    long long lt_fallbacks; /* Lt calls that found no algorithm and ran blas_gemm_ex */
    /* the split-K small-M GEMM (ops_gpu_skinny.c): on/off, the blocks per SM
     * its splits aim at, its launches */
    int skinny_on, skinny_ctas;
    long long skinny_calls;
    long long sh_hits, cvt_launches;
    /* --profile: an event after every launch of one eager pass */
    int prof_on, prof_n, prof_created;
    gpu_event prof_ev[PROF_MAX];
    const char *prof_what[PROF_MAX];
    unsigned char prof_stage[PROF_MAX]; /* 0 vision, 1 prefix, 2 the steps and after */
    int prof_syncs;
    size_t cur, peak, free0;
    /* the first failure: the ops return nothing, so it sticks here until
     * the caller asks (vla_gpu_failed) */
    int err;
    char errmsg[600];
    /* capture */
    int capturing;
    char *pool;
    size_t pool_len, pool_used;
    struct staged st[MAX_STAGED];
    int nst;
    gpu_event ev[MAX_EVENTS];
    int nev_created;
    gpu_graph graph;          /* the whole pass */
    int nst_whole;            /* st[0 .. nst_whole) belong to it, the rest to sg[] */
    gpu_graph sg[MAX_EVENTS]; /* the same pass split at the stage boundaries */
    int nsg;
    /* the soak's GEMM load buffers (vla_gpu_load_gemm) */
    struct {
        void *A, *B;
        float *C;
        int n;
    } load;
};

/* ops_gpu.c: the first failure, "what: the backend's error" */
void vgpu_fail(struct vla_gpu *gp, const char *what);
/* ... or a reason of its own */
void vgpu_fail_msg(struct vla_gpu *gp, const char *msg);

/* ops_gpu_launch.c */
int vgpu_kernels_load(struct vla_gpu *gp, const char *target, char **why);
unsigned vgpu_grid_for(struct vla_gpu *gp, uint64_t work);
void vgpu_prof_mark(struct vla_gpu *gp, const char *what);
void vgpu_launch(struct vla_gpu *gp, int k, unsigned grid, void **args);
void vgpu_launch_b(struct vla_gpu *gp, int k, unsigned grid, unsigned block, unsigned smem,
                   void **args);
#define LAUNCH(gp, k, grid, ...)                                                                   \
    do {                                                                                           \
        void *args_[] = {__VA_ARGS__};                                                             \
        vgpu_launch(gp, k, grid, args_);                                                           \
    } while (0)

/* ops_gpu_mem.c */
void *vgpu_dev_alloc(struct vla_gpu *gp, size_t bytes);
struct alloc_rec *vgpu_alloc_of(struct vla_gpu *gp, const void *p, size_t bytes);
void *vgpu_scratch(struct vla_gpu *gp, struct scratch *s, size_t bytes);
void vgpu_h2d(struct vla_gpu *gp, void *dev, const void *host, size_t bytes);
void vgpu_d2h(struct vla_gpu *gp, void *host, const void *dev, size_t bytes);
float *vgpu_alloc(void *ctx, size_t n);
void vgpu_release(void *ctx, float *p);
void vgpu_upload(void *ctx, float *dst, const float *host, size_t n);
void vgpu_download(void *ctx, float *host, const float *src, size_t n);
void vgpu_copy(void *ctx, float *dst, const float *src, size_t n);

/* ops_gpu_operand.c */
void vgpu_shadows_clear(struct vla_gpu *gp);
void vgpu_mirrors_clear(struct vla_gpu *gp);
const uint16_t *vgpu_mirror_of(struct vla_gpu *gp, const float *p, size_t n);
struct alloc_rec *vgpu_mirror_target(struct vla_gpu *gp, const float *p, size_t n);
void vgpu_wrote(struct vla_gpu *gp, const void *p, size_t bytes);
void vgpu_cvt16(struct vla_gpu *gp, const float *x, long ldx, void *dst, long ldy, int rows,
                int cols);
int vgpu_in_arena(struct vla_gpu *gp, const float *w);
const void *vgpu_weight_operand(struct vla_gpu *gp, const float *w, enum gpu_dtype *t);
const void *vgpu_weight_operand16(struct vla_gpu *gp, const float *w, int N, int K,
                                  enum gpu_dtype *t);
const void *vgpu_weight16(struct vla_gpu *gp, const float *w, int n, int k, struct scratch *sc);
const void *vgpu_shadow_of(struct vla_gpu *gp, const float *x, size_t n);
const void *vgpu_act_operand(struct vla_gpu *gp, const float *x, int rows, int cols,
                             enum gpu_dtype t, struct scratch *sc);
void *vgpu_shadow_target(struct vla_gpu *gp, int k, size_t n);
void vgpu_shadow_set(struct vla_gpu *gp, int k, const float *y, size_t n, void *p16);

/* ops_gpu_gemm.c */
/* ops_gpu_skinny.c: the switch's default until an A/B keeps it on */
#define VGPU_SKINNY_DEFAULT 0
void vgpu_skinny_init(struct vla_gpu *gp);
/* the kernel's grid for an [M, k] x [n, k]^T GEMM on sms multiprocessors at
 * ctas blocks each: the splits of K (returned), the 64-column tiles and the
 * K slice a split (a multiple of 64) */
int vgpu_skinny_plan(int sms, int ctas, int n, int k, int *tiles, int *kslice);
/* 0 when the split-K kernel ran C = A B^T (+ beta C), 1 when the call does
 * not fit it (or it is off) and the caller runs its own path */
int vgpu_skinny(struct vla_gpu *gp, enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m,
                int n, int k, float alpha, const void *A, long lda, const void *B, long ldb,
                float beta, void *C, long ldc);
int vgpu_lt_ex(struct vla_gpu *gp, enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m,
               int n, int k, float alpha, const void *A, long lda, const void *B, long ldb,
               float beta, void *C, long ldc, const float *bias, enum gpu_lt_epi epi);
void vgpu_gemm_ct(struct vla_gpu *gp, enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m,
                  int n, int k, float alpha, const void *A, long lda, long long sA, const void *B,
                  long ldb, long long sB, float beta, void *C, long ldc, long long sC, int batch);
void vgpu_gemm(struct vla_gpu *gp, enum gpu_dtype t, int ta, int tb, int m, int n, int k,
               float alpha, const void *A, long lda, long long sA, const void *B, long ldb,
               long long sB, float beta, float *C, long ldc, long long sC, int batch);
void vgpu_gemm16(struct vla_gpu *gp, enum gpu_dtype t, int ta, int tb, int m, int n, int k,
                 const void *A, long lda, long long sA, const void *B, long ldb, long long sB,
                 void *C, long ldc, long long sC, int batch);
int vgpu_blocks16(struct vla_gpu *gp);
void vgpu_matmul(void *ctx, const float *x, const float *w, const float *bias, float *y, int M,
                 int N, int K, int accumulate);

/* ops_gpu_attn.c */
void vgpu_attention(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                    float *out, int Tq, int Tk, int H, int KV, int hd, float scale);
void vgpu_attention_o(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                      const float *o_w, float *att, float *x, int Tq, int Tk, int H, int KV, int hd,
                      int D, float scale);
void vgpu_qkv_rope(void *ctx, const float *h, const float *q_w, const float *kv_w, float *q,
                   float *kv, int nseq, size_t kvs, int T, int D, int H, int KV, int hd, int pos0,
                   double theta);
void vgpu_attention_packed(void *ctx, const float *qkv, const float *bias, float *out, int C, int T,
                           int H, int hd, float scale);
void vgpu_attention_block(void *ctx, const float *h, const float *qkv_w, const float *qkv_b,
                          const float *o_w, float *qkv, float *att, float *x, int C, int T, int H,
                          int hd, float scale);

/* ops_gpu_elem.c */
void vgpu_layernorm(void *ctx, const float *x, const float *w, const float *b, float *y, int T,
                    int D, float eps);
void vgpu_rmsnorm(void *ctx, const float *x, const float *w, float *y, int T, int D, float eps);
void vgpu_gelu_tanh(void *ctx, float *x, size_t n);
void vgpu_silu(void *ctx, float *x, size_t n);
void vgpu_glu(void *ctx, const float *gate, const float *up, float *out, int T, int F, int ld,
              enum vla_act a);
void vgpu_rope(void *ctx, float *x, int T, int heads, int hd, int stride, int pos0, double theta);
void vgpu_bias_act(void *ctx, float *y, const float *bias, int T, int N, enum vla_bias_act a);
void vgpu_bias_layernorm(void *ctx, float *x, const float *bias, const float *w, const float *b,
                         float *y, int T, int D, float eps);
void vgpu_mlp_block(void *ctx, const float *h, const float *w1, const float *b1, const float *w2,
                    float *hid, float *x, int T, int D, int F, enum vla_bias_act a);
void vgpu_gated_mlp(void *ctx, const float *h, const float *gate_up, const float *down, float *gu,
                    float *hid, float *x, int T, int D, int F, enum vla_act a);
void vgpu_add(void *ctx, float *y, const float *x, size_t n);
void vgpu_scale(void *ctx, float *x, size_t n, float s);
void vgpu_axpy(void *ctx, float *y, const float *x, float a, size_t n);
void vgpu_patchify(void *ctx, const float *img, float *out, int nimg, int S, int p, int g);
void vgpu_pos_interp(void *ctx, const float *tab, int g0, float *out, int g1, int D);
void vgpu_merge(void *ctx, const float *x, float *out, int g, int m, int D);
void vgpu_embed(void *ctx, const float *table, const int32_t *tokens, float *out, int T, int D,
                float mul);
void vgpu_concat_bcast(void *ctx, const float *a, int Da, const float *b, int Db, float *out,
                       int T);
void vgpu_time_concat(void *ctx, const float *a, int Da, float *out, int T, int D, float t,
                      double min_p, double max_p);
void vgpu_time_embed(void *ctx, float *out, int D, float t, double min_p, double max_p);
void vgpu_moe_route(void *ctx, const float *logits, int T, int X, int k, enum vla_router r,
                    int *idx, float *wts);
void vgpu_gather_rows(void *ctx, const float *x, const int *rows, int n, int D, float *out);
void vgpu_scatter_add_rows(void *ctx, const float *x, const int *rows, const float *w, int n, int D,
                           float *y);
void vgpu_moe_dense(void *ctx, const float *h, float *x, const float *router_w,
                    const float *gate_up_w, const float *down_w, int T, int D, int X, int k, int M,
                    enum vla_router r, enum vla_act a, float *logits);
void vgpu_denorm_clamp(void *ctx, const float *x, float *y, int T, int A, const float *mean,
                       const float *sd, const float *lo, const float *hi);
float vgpu_max_abs(void *ctx, const float *x, size_t n, int *nonfinite);

/* ops_gpu_weights.c: the arena's 16-bit copy in the current dtype; 0 or -1 */
int vgpu_make16(struct vla_gpu *gp);

/* ops_gpu_graph.c */
void vgpu_sync(void *ctx);

#endif
