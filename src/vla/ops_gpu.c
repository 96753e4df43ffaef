/* ops_gpu.c - the VLA ops over a GPU backend (ops_gpu.h).
 *
 * Activations live in device memory as fp32. GEMMs go through the backend's
 * BLAS (cuBLAS strided-batched GemmEx; HIP has no rocBLAS binding yet, so
 * there the project's own tiled kernel in kernels/vla_ops.hip runs). With
 * --dtype bf16/fp16 the GEMM inputs are 16-bit (weights converted once on
 * the device, activations per GEMM) with fp32 accumulation and fp32 output;
 * norms, softmax, RoPE, the time grid and x_t stay fp32. Attention is
 * BLAS-based: S = Q K^T (batched over heads, K shared inside a GQA group),
 * a row softmax in fp32, O = P V; but 16-bit vision attention on CUDA
 * sm_80+, which is one fused kernel (flash16). Everything is issued on one stream, so
 * the whole pass can be captured as one graph; the host only touches the
 * inputs and the actions (through pinned staging when captured). */
#include "ops_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gpu/backend.h"
#include "../gpu/kcache.h"
#include "../core/util.h"
#include "attn_ptrs.h"
#include "rng.h"
#include "spans.h"

/* clang-format off: one kernel a line (the formatter reflows this list
 * differently on every pass) */
#define KFNS(X)                                                                                    \
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
    X(vla_flash_attn_w_h)
/* clang-format on */
#define KENUM(n) K_##n,
enum { KFNS(KENUM) K_COUNT };
#define KNAME(n) #n,
static const char *const knames[] = {KFNS(KNAME)};

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
 * memory overlapping its fp32 source, at every stage boundary (g_sync) and
 * when the dtype changes: a hit is always the current value. */
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
 * step's first GEMM reads (act_operand looks here after the shadows). `valid` holds
 * the element ranges written in both forms; wrote() cuts every other write
 * out of them (every device write in this file calls it), so rows found
 * valid hold the current values. */
struct alloc_rec {
    float *p;
    size_t n;
    uint16_t *m16; /* the mirror, NULL until a producer first writes one here */
    struct vla_spans valid;
};

static struct {
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
    struct shadow sh[SH_N];
    struct alloc_rec *allocs; /* g_alloc's allocations, for their mirrors */
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
    long long sh_hits, cvt_launches;
    /* --profile: an event after every launch of one eager pass */
    int prof_on, prof_n, prof_created;
    gpu_event prof_ev[PROF_MAX];
    const char *prof_what[PROF_MAX];
    unsigned char prof_stage[PROF_MAX]; /* 0 vision, 1 prefix, 2 the steps and after */
    int prof_syncs;
    size_t cur, peak, free0;
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
    int nst_whole;            /* G.st[0 .. nst_whole) belong to it, the rest to sg[] */
    gpu_graph sg[MAX_EVENTS]; /* the same pass split at the stage boundaries */
    int nsg;
} G;

/* the soak's GEMM load buffers (vla_gpu_load_gemm) */
static struct {
    void *A, *B;
    float *C;
    int n;
} L;

static void fail(const char *what)
{
    if (G.err)
        return;
    G.err = 1;
    snprintf(G.errmsg, sizeof(G.errmsg), "%s: %s", what, G.b ? G.b->err : "no backend");
}

const char *vla_gpu_error(void)
{
    return G.err ? G.errmsg : "";
}

/* ---- memory ----------------------------------------------------------- */

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (G.b->malloc(G.b, &p, bytes ? bytes : 16)) {
        fail("device allocation");
        return NULL;
    }
    G.cur += bytes;
    G.peak = G.cur > G.peak ? G.cur : G.peak;
    return p;
}

static float *g_alloc(size_t n)
{
    float *p = dev_alloc(n * sizeof(float));
    if (p && G.b->memset(G.b, p, 0, n * sizeof(float)))
        fail("memset");
    if (!p)
        return p;
    if (G.nallocs == G.capallocs) {
        G.capallocs = G.capallocs ? 2 * G.capallocs : 64;
        G.allocs = xrealloc(G.allocs, (size_t)G.capallocs * sizeof(*G.allocs));
    }
    G.allocs[G.nallocs++] = (struct alloc_rec){.p = p, .n = n};
    return p;
}

static void shadows_clear(void)
{
    memset(G.sh, 0, sizeof(G.sh));
}

/* every mirror's rows invalid (the dtype or the fusion switch changed) */
static void mirrors_clear(void)
{
    for (int i = 0; i < G.nallocs; i++)
        vla_spans_clear(&G.allocs[i].valid);
}

/* the allocation holding [p, p + bytes), or NULL */
static struct alloc_rec *alloc_of(const void *p, size_t bytes)
{
    const char *a = p;
    for (int i = 0; i < G.nallocs; i++) {
        const char *s0 = (const char *)G.allocs[i].p;
        if (a >= s0 && a + bytes <= s0 + G.allocs[i].n * sizeof(float))
            return &G.allocs[i];
    }
    return NULL;
}

/* [p, p + n floats) of a mirrored allocation is current in its mirror:
 * the 16-bit address of p, else NULL */
static const uint16_t *mirror_of(const float *p, size_t n)
{
    if (G.dt == GPU_F32 || G.no_shadow)
        return NULL;
    struct alloc_rec *r = alloc_of(p, n * sizeof(float));
    if (!r || !r->m16)
        return NULL;
    size_t lo = (size_t)(p - r->p);
    return vla_spans_cover(&r->valid, lo, lo + n) ? r->m16 + lo : NULL;
}

/* the allocation whose mirror a producer writing [p, p + n floats) in 16
 * bits fills too (the mirror made on first use, outside a capture), or NULL
 * (fp32, the unfused path, not an allocation of g_alloc) */
static struct alloc_rec *mirror_target(const float *p, size_t n)
{
    if (G.dt == GPU_F32 || G.no_shadow)
        return NULL;
    struct alloc_rec *r = alloc_of(p, n * sizeof(float));
    if (r && !r->m16 && !G.capturing) {
        r->m16 = dev_alloc(r->n * 2);
        vla_spans_clear(&r->valid);
    }
    return r && r->m16 ? r : NULL;
}

/* [p, p + bytes) was written: shadows of overlapping sources are stale, and
 * so are the overlapped rows of mirrors */
static void wrote(const void *p, size_t bytes)
{
    const char *a = p, *e = a + bytes;
    for (int i = 0; i < SH_N; i++) {
        const char *s0 = (const char *)G.sh[i].src, *s1 = s0 + G.sh[i].n * sizeof(float);
        if (G.sh[i].src && a < s1 && s0 < e)
            G.sh[i].src = NULL;
    }
    for (int i = 0; i < G.nallocs; i++) {
        struct alloc_rec *r = &G.allocs[i];
        const char *s0 = (const char *)r->p, *s1 = s0 + r->n * sizeof(float);
        if (!r->valid.n || e <= s0 || s1 <= a)
            continue;
        size_t lo = a > s0 ? (size_t)(a - s0) / sizeof(float) : 0;
        size_t hi = e < s1 ? (size_t)(e - s0 + sizeof(float) - 1) / sizeof(float) : r->n;
        vla_spans_cut(&r->valid, lo, hi);
    }
}

static void g_release(float *p)
{
    shadows_clear();
    if (!p)
        return;
    for (int i = 0; i < G.nallocs; i++)
        if (G.allocs[i].p == p) {
            if (G.allocs[i].m16) {
                G.b->free(G.b, G.allocs[i].m16);
                G.cur -= G.allocs[i].n * 2;
            }
            vla_spans_free(&G.allocs[i].valid);
            G.allocs[i] = G.allocs[--G.nallocs];
            break;
        }
    G.b->free(G.b, p);
}

/* scratch of at least `bytes`; grows only outside a capture (the eager
 * cold pass runs every shape first) */
static void *scratch(struct scratch *s, size_t bytes)
{
    if (bytes <= s->cap)
        return s->p;
    if (G.capturing) {
        snprintf(G.errmsg, sizeof(G.errmsg), "scratch buffer grew during graph capture");
        G.err = 1;
        return s->p;
    }
    G.b->stream_sync(G.b, G.s);
    if (s->p) {
        G.b->free(G.b, s->p);
        G.cur -= s->cap;
    }
    s->cap = bytes + bytes / 4;
    s->p = dev_alloc(s->cap);
    return s->p;
}

static void *stage(size_t bytes)
{
    size_t at = (G.pool_used + 63) & ~(size_t)63;
    if (at + bytes > G.pool_len || G.nst == MAX_STAGED) {
        snprintf(G.errmsg, sizeof(G.errmsg), "graph staging pool exhausted");
        G.err = 1;
        return NULL;
    }
    G.pool_used = at + bytes;
    return G.pool + at;
}

static void h2d(void *dev, const void *host, size_t bytes)
{
    wrote(dev, bytes);
    if (G.capturing) {
        void *pin = stage(bytes);
        if (!pin)
            return;
        memcpy(pin, host, bytes);
        G.st[G.nst++] = (struct staged){host, NULL, pin, bytes};
        host = pin;
    }
    if (G.b->memcpy_async(G.b, dev, host, bytes, GPU_H2D, G.s))
        fail("upload");
}

static void d2h(void *host, const void *dev, size_t bytes)
{
    void *dst = host;
    if (G.capturing) {
        dst = stage(bytes);
        if (!dst)
            return;
        G.st[G.nst++] = (struct staged){NULL, host, dst, bytes};
    }
    if (G.b->memcpy_async(G.b, dst, dev, bytes, GPU_D2H, G.s))
        fail("download");
}

static void g_upload(float *dst, const float *host, size_t n)
{
    h2d(dst, host, n * sizeof(float));
}

static void g_download(float *host, const float *src, size_t n)
{
    d2h(host, src, n * sizeof(float));
}

static void g_sync(void)
{
    shadows_clear();
    G.prof_syncs += G.prof_on; /* vla_forward syncs after vision and after the prefix */
    if (G.capturing == 2) {    /* split capture: a stage boundary ends one graph */
        gpu_graph g = NULL;
        if (G.b->graph_end(G.b, G.s, &g) || G.nsg == MAX_EVENTS) {
            fail("graph of a stage");
            return;
        }
        G.sg[G.nsg++] = g;
        if (G.b->graph_begin(G.b, G.s))
            fail("graph begin");
        return;
    }
    if (G.capturing)
        return;
    if (G.b->stream_sync(G.b, G.s))
        fail("stream synchronize");
}

static void g_copy(float *dst, const float *src, size_t n)
{
    wrote(dst, n * sizeof(float));
    if (G.b->memcpy_async(G.b, dst, src, n * sizeof(float), GPU_D2D, G.s))
        fail("device copy");
}

/* ---- launching ---------------------------------------------------------- */

static unsigned grid_for(uint64_t work)
{
    uint64_t g = (work + BLOCK - 1) / BLOCK;
    g = g < 1 ? 1 : g;
    return (unsigned)(g > (uint64_t)G.gridmax ? (uint64_t)G.gridmax : g);
}

/* the time since the previous mark is `what`'s (stream order) */
static void prof_mark(const char *what)
{
    if (!G.prof_on || G.capturing || G.prof_n >= PROF_MAX)
        return;
    if (G.prof_n == G.prof_created) {
        if (G.b->event_create(G.b, &G.prof_ev[G.prof_n])) {
            G.prof_on = 0;
            return;
        }
        G.prof_created++;
    }
    G.b->event_record(G.b, G.prof_ev[G.prof_n], G.s);
    G.prof_stage[G.prof_n] = (unsigned char)(G.prof_syncs < 2 ? G.prof_syncs : 2);
    G.prof_what[G.prof_n++] = what;
}

static void launch(int k, unsigned grid, void **args)
{
    if (G.err)
        return;
    if (G.b->launch(G.b, G.f[k], grid, BLOCK, 0, G.s, args))
        fail(knames[k]);
    prof_mark(knames[k]);
}

/* launch() with its own block size and dynamic shared memory (a kernel
 * whose work split needs them) */
static void launch_b(int k, unsigned grid, unsigned block, unsigned smem, void **args)
{
    if (G.err)
        return;
    if (G.b->launch(G.b, G.f[k], grid, block, smem, G.s, args))
        fail(knames[k]);
    prof_mark(knames[k]);
}

#define LAUNCH(k, grid, ...)                                                                       \
    do {                                                                                           \
        void *args_[] = {__VA_ARGS__};                                                             \
        launch(k, grid, args_);                                                                    \
    } while (0)

/* 16-bit copy of a rows x cols fp32 matrix (ld ldx) into dst (ld ldy) */
static void cvt16(const float *x, long ldx, void *dst, long ldy, int rows, int cols)
{
    int bf = G.dt == GPU_BF16;
    G.cvt_launches++;
    LAUNCH(K_vla_cvt16, grid_for((uint64_t)rows * cols), &x, &ldx, &dst, &ldy, &rows, &cols, &bf);
}

static int in_arena(const float *w)
{
    return G.arena && w >= G.arena && w < G.arena + G.arena_n;
}

/* batch 1 through cuBLASLt (tuned per shape, bias and GELU in the
 * epilogue), output of type ct; 0 when it ran, 1 when the caller runs its
 * own path (no Lt, switched off, or no algorithm for this shape, types or
 * epilogue) */
static int lt_ex(enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m, int n, int k,
                 float alpha, const void *A, long lda, const void *B, long ldb, float beta, void *C,
                 long ldc, const float *bias, enum gpu_lt_epi epi)
{
    if (!G.b->blas_lt || G.no_lt || G.err)
        return 1;
    int e = G.b->blas_lt(G.b, t, ct, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, bias,
                         GPU_F32, epi, G.s);
    if (e == GPU_LT_NO_ALGO && bias && ct != GPU_F32 && G.arena16 && G.arena16_dt == ct &&
        in_arena(bias)) /* the bias in the output's type (the arena's 16-bit copy) */
        e = G.b->blas_lt(G.b, t, ct, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                         G.arena16 + (bias - G.arena), ct, epi, G.s);
    if (e == GPU_LT_NO_ALGO) {
        G.lt_fallbacks++;
        return 1;
    }
    if (e)
        fail("GEMM (cuBLASLt)");
    prof_mark(epi == GPU_LT_GELU ? "GEMM + bias + GELU (cuBLASLt)"
              : m <= 64          ? "GEMM, M <= 64 (cuBLASLt)"
                                 : "GEMM, M > 64 (cuBLASLt)");
    return 0;
}

static int gemm_lt(enum gpu_dtype t, int ta, int tb, int m, int n, int k, float alpha,
                   const void *A, long lda, const void *B, long ldb, float beta, float *C, long ldc,
                   const float *bias)
{
    return lt_ex(t, GPU_F32, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, bias,
                 GPU_LT_PLAIN);
}

/* C_i = alpha op(A_i) op(B_i) + beta C_i (row-major), C of type ct (fp32, or
 * t through the BLAS only: the own kernel writes fp32); inputs of type t */
static void gemm_ct(enum gpu_dtype t, enum gpu_dtype ct, int ta, int tb, int m, int n, int k,
                    float alpha, const void *A, long lda, long long sA, const void *B, long ldb,
                    long long sB, float beta, void *C, long ldc, long long sC, int batch)
{
    if (G.err || m <= 0 || n <= 0 || batch <= 0)
        return;
    if (ct != GPU_F32 && !G.b->blas_gemm_ex) {
        fail("a 16-bit GEMM output without a BLAS");
        return;
    }
    if (batch == 1 &&
        !lt_ex(t, ct, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL, GPU_LT_PLAIN))
        return;
    if (G.b->blas_gemm_ex) {
        if (G.b->blas_gemm_ex(G.b, t, ct, ta, tb, m, n, k, alpha, A, lda, sA, B, ldb, sB, beta, C,
                              ldc, sC, batch, G.s))
            fail("GEMM");
        prof_mark(batch > 1 ? "GEMM, batched (BLAS)"
                  : m <= 64 ? "GEMM, M <= 64 (BLAS)"
                            : "GEMM, M > 64 (BLAS)");
        return;
    }
    unsigned grid = (unsigned)(((n + 15) / 16) * ((m + 15) / 16) * batch);
    int bf = t == GPU_BF16;
    LAUNCH(t == GPU_F32 ? K_vla_gemm_f32 : K_vla_gemm_w16, grid, &ta, &tb, &m, &n, &k, &alpha, &A,
           &lda, &sA, &B, &ldb, &sB, &beta, &C, &ldc, &sC, &bf);
}

/* gemm_ct with an fp32 C */
static void gemm(enum gpu_dtype t, int ta, int tb, int m, int n, int k, float alpha, const void *A,
                 long lda, long long sA, const void *B, long ldb, long long sB, float beta,
                 float *C, long ldc, long long sC, int batch)
{
    gemm_ct(t, GPU_F32, ta, tb, m, n, k, alpha, A, lda, sA, B, ldb, sB, beta, C, ldc, sC, batch);
}

/* the operand for a weight: fp32 itself, or its 16-bit copy */
static const void *weight_operand(const float *w, enum gpu_dtype *t)
{
    if (G.dt != GPU_F32 && G.arena16 && in_arena(w)) {
        *t = G.dt;
        return G.arena16 + (w - G.arena);
    }
    *t = GPU_F32;
    return w;
}

/* a weight [N, K] as a GEMM operand: weight_operand, and in 16-bit mode a
 * matrix outside the arena (the kernel tests' operands) converted into
 * scratch, so that the tests run the 16-bit path a pass runs */
static const void *weight_operand16(const float *w, int N, int K, enum gpu_dtype *t)
{
    const void *B = weight_operand(w, t);
    if (*t != GPU_F32 || G.dt == GPU_F32)
        return B;
    void *w16 = scratch(&G.w16, (size_t)N * K * 2);
    cvt16(w, K, w16, K, N, K);
    *t = G.dt;
    return w16;
}

/* the current 16-bit copy of x [n floats] a producer wrote, or NULL */
static const void *shadow_of(const float *x, size_t n)
{
    for (int i = 0; i < SH_N; i++)
        if (G.sh[i].src == x && G.sh[i].n == n) {
            G.sh_hits++;
            return G.sh[i].p16;
        }
    return NULL;
}

/* an activation as a GEMM operand of type t (converted into sc when 16-bit) */
static const void *act_operand(const float *x, int rows, int cols, enum gpu_dtype t,
                               struct scratch *sc)
{
    if (t == GPU_F32)
        return x;
    const void *s16 = shadow_of(x, (size_t)rows * cols);
    if (!s16 && (s16 = mirror_of(x, (size_t)rows * cols)))
        G.mirror_hits++;
    if (s16)
        return s16;
    void *d = scratch(sc, (size_t)rows * cols * 2);
    cvt16(x, cols, d, cols, rows, cols);
    return d;
}

/* the 16-bit copy a producer of kind k writes beside y [n floats], or NULL
 * (fp32, or the unfused path); the slot is filled by shadow_set after the
 * launch */
static void *shadow_target(int k, size_t n)
{
    if (G.dt == GPU_F32 || G.no_shadow)
        return NULL;
    return scratch(&G.sh_buf[k], n * 2);
}

static void shadow_set(int k, const float *y, size_t n, void *p16)
{
    if (p16 && !G.err)
        G.sh[k] = (struct shadow){y, n, p16};
}

/* ---- the ops ------------------------------------------------------------ */

static void g_matmul(const float *x, const float *w, const float *bias, float *y, int M, int N,
                     int K, int accumulate)
{
    enum gpu_dtype t;
    const void *B = weight_operand16(w, N, K, &t);
    const void *A = act_operand(x, M, K, t, &G.a16);
    wrote(y, (size_t)M * N * sizeof(float));
    float beta = accumulate ? 1.0f : 0.0f;
    if (bias && !G.err && M > 0 && N > 0 &&
        !gemm_lt(t, 0, 1, M, N, K, 1.0f, A, K, B, K, beta, y, N, bias))
        return;
    gemm(t, 0, 1, M, N, K, 1.0f, A, K, 0, B, K, 0, beta, y, N, 0, 1);
    if (bias)
        LAUNCH(K_vla_bias, grid_for((uint64_t)M * N), &y, &bias, &M, &N);
}

static void g_layernorm(const float *x, const float *w, const float *b, float *y, int T, int D,
                        float eps)
{
    size_t n = (size_t)T * D;
    wrote(y, n * sizeof(float));
    void *y16 = shadow_target(SH_NORM, n);
    int bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_layernorm, (unsigned)(T < G.gridmax ? T : G.gridmax), &x, &w, &b, &y, &T, &D, &eps,
           &y16, &bf);
    shadow_set(SH_NORM, y, n, y16);
}

static void g_rmsnorm(const float *x, const float *w, float *y, int T, int D, float eps)
{
    size_t n = (size_t)T * D;
    wrote(y, n * sizeof(float));
    void *y16 = shadow_target(SH_NORM, n);
    int bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_rmsnorm, (unsigned)(T < G.gridmax ? T : G.gridmax), &x, &w, &y, &T, &D, &eps, &y16,
           &bf);
    shadow_set(SH_NORM, y, n, y16);
}

static void act(float *x, size_t n, int which)
{
    uint64_t nn = n;
    wrote(x, n * sizeof(float));
    void *y16 = shadow_target(SH_ACT, n);
    int bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_act, grid_for(nn), &x, &nn, &which, &y16, &bf);
    shadow_set(SH_ACT, x, n, y16);
}

static void g_gelu_tanh(float *x, size_t n)
{
    act(x, n, 0);
}

static void g_silu(float *x, size_t n)
{
    act(x, n, 1);
}

static void g_glu(const float *gate, const float *up, float *out, int T, int F, int ld,
                  enum vla_act a)
{
    int silu = a == VLA_ACT_SWIGLU, bf = G.dt == GPU_BF16;
    size_t n = (size_t)T * F;
    wrote(out, n * sizeof(float));
    void *y16 = shadow_target(SH_GLU, n);
    LAUNCH(K_vla_glu, grid_for((uint64_t)T * F), &gate, &up, &out, &T, &F, &ld, &silu, &y16, &bf);
    shadow_set(SH_GLU, out, n, y16);
}

static void g_rope(float *x, int T, int heads, int hd, int stride, int pos0, double theta)
{
    wrote(x, (size_t)T * stride * sizeof(float));
    LAUNCH(K_vla_rope, grid_for((uint64_t)T * (hd / 2)), &x, &T, &heads, &hd, &stride, &pos0,
           &theta);
}

/* rows of n scores: the smallest group of threads per row (32 .. BLOCK)
 * that leaves each thread at most 8 of a row and still gives a quarter of
 * the grid cap in blocks; BLOCK / group rows a block */
static void softmax(float *S, int rows, int n, float scale, void *P16, int bf)
{
    int gs = 32;
    while (gs < BLOCK && (gs * 8 < n || (rows + BLOCK / gs - 1) / (BLOCK / gs) < G.gridmax / 4))
        gs *= 2; /* also wider while there are too few blocks to fill the device */
    int per = BLOCK / gs, blocks = (rows + per - 1) / per;
    LAUNCH(K_vla_softmax, (unsigned)(blocks < G.gridmax ? blocks : G.gridmax), &S, &rows, &n,
           &scale, &P16, &bf, &gs);
}

/* BLAS-based attention: S_h = Q_h K_g^T, P = softmax(S * scale) in fp32,
 * O_h = P_h V_g; head h reads kv head g = h / (H / KV). out [Tq, H*hd] of
 * type ct: fp32, or (16-bit mode, with a BLAS) the 16-bit operand of the
 * output projection, written by the P V GEMM itself */
static void attend(const float *q, int qs, const float *k, const float *v, int ks, void *out,
                   enum gpu_dtype ct, int Tq, int Tk, int H, int KV, int hd, float scale)
{
    int G_ = H / KV;
    enum gpu_dtype t = G.dt;
    const void *Q = q, *K = k, *V = v;
    long ldq = qs, ldk = ks, ldv = ks;
    size_t kspan = (size_t)(Tk - 1) * ks + (size_t)KV * hd; /* floats of k's (v's) rows */
    const void *sq = NULL, *sk = NULL, *sv = NULL;
    if (t != GPU_F32 && !G.no_shadow && qs == H * hd) {
        /* q's 16-bit copy from qkv_rope, K and V from the KV cache's mirror */
        sq = shadow_of(q, (size_t)Tq * qs);
        sk = mirror_of(k, kspan);
        sv = mirror_of(v, kspan);
    }
    if (sq && sk && sv) {
        G.mirror_hits++;
        Q = sq, K = sk, V = sv;
    } else if (t != GPU_F32) {
        void *q16 = scratch(&G.q16, (size_t)Tq * H * hd * 2);
        void *k16 = scratch(&G.k16, (size_t)Tk * KV * hd * 2);
        void *v16 = scratch(&G.v16, (size_t)Tk * KV * hd * 2);
        long lq = qs, lk = ks;
        int qc = H * hd, kc = KV * hd, bf = t == GPU_BF16;
        if (G.no_shadow) {
            cvt16(q, qs, q16, (long)H * hd, Tq, H * hd);
            cvt16(k, ks, k16, (long)KV * hd, Tk, KV * hd);
            cvt16(v, ks, v16, (long)KV * hd, Tk, KV * hd);
        } else { /* one launch for the three */
            uint64_t n = (uint64_t)Tq * qc + 2 * (uint64_t)Tk * kc;
            LAUNCH(K_vla_cvt16x3, grid_for(n), &q, &lq, &q16, &Tq, &qc, &k, &lk, &k16, &Tk, &kc, &v,
                   &lk, &v16, &Tk, &kc, &bf);
        }
        Q = q16, K = k16, V = v16;
        ldq = (long)H * hd, ldk = ldv = (long)KV * hd;
    }
    size_t es = t == GPU_F32 ? 4 : 2, eo = ct == GPU_F32 ? 4 : 2;
    long long sS = (long long)Tq * Tk;
    wrote(out, (size_t)Tq * H * hd * eo);
    float *S = scratch(&G.S, (size_t)H * sS * sizeof(float));
    int bf = t == GPU_BF16;
    if (KV == 1 && H > 1 && ldq == (long)H * hd) {
        /* one KV head (multi-query: pi0's and lingbot's decoders): a row's
         * H query heads are H rows of hd, so S' = Q' K^T and O' = P' V are
         * single GEMMs over Tq * H rows (S' in (query, head) row order; O'
         * [Tq * H, hd] is out [Tq, H * hd]) where the per-head form was H
         * batched GEMMs of Tq rows: M = 400 instead of 8 x 50 for a step's
         * expert attending to the prefix, through cuBLASLt's tuned path */
        int M = Tq * H;
        void *P1 = t == GPU_F32 ? NULL : scratch(&G.P16, (size_t)M * Tk * 2);
        gemm(t, 0, 1, M, Tk, hd, 1.0f, Q, hd, 0, K, ldk, 0, 0.0f, S, Tk, 0, 1);
        softmax(S, M, Tk, scale, P1, bf);
        gemm_ct(t, ct, 0, 0, M, hd, Tk, 1.0f, t == GPU_F32 ? (const void *)S : P1, Tk, 0, V, ldv, 0,
                0.0f, out, hd, 0, 1);
        return;
    }
    if (G_ == 1) {
        gemm(t, 0, 1, Tq, Tk, hd, 1.0f, Q, ldq, hd, K, ldk, hd, 0.0f, S, Tk, sS, H);
    } else {
        for (int g = 0; g < KV; g++)
            gemm(t, 0, 1, Tq, Tk, hd, 1.0f, (const char *)Q + (size_t)g * G_ * hd * es, ldq, hd,
                 (const char *)K + (size_t)g * hd * es, ldk, 0, 0.0f, S + (size_t)g * G_ * sS, Tk,
                 sS, G_);
    }
    int rows = H * Tq;
    void *P16 = t == GPU_F32 ? NULL : scratch(&G.P16, (size_t)H * sS * 2);
    softmax(S, rows, Tk, scale, P16, bf);
    const void *P = t == GPU_F32 ? (const void *)S : P16;
    long ldo = (long)H * hd;
    if (G_ == 1) {
        gemm_ct(t, ct, 0, 0, Tq, hd, Tk, 1.0f, P, Tk, sS, V, ldv, hd, 0.0f, out, ldo, hd, H);
    } else {
        for (int g = 0; g < KV; g++)
            gemm_ct(t, ct, 0, 0, Tq, hd, Tk, 1.0f, (const char *)P + (size_t)g * G_ * sS * es, Tk,
                    sS, (const char *)V + (size_t)g * hd * es, ldv, 0, 0.0f,
                    (char *)out + (size_t)g * G_ * hd * eo, ldo, hd, G_);
    }
}

static void g_attention(const float *q, int qs, const float *k, const float *v, int ks, float *out,
                        int Tq, int Tk, int H, int KV, int hd, float scale)
{
    attend(q, qs, k, v, ks, out, GPU_F32, Tq, Tk, H, KV, hd, scale);
}

/* x += attention(...) o_w^T: in 16-bit mode with a BLAS the P V GEMM writes
 * the output projection's 16-bit operand (no conversion kernel between the
 * two GEMMs) and att is not written; else the composition */
static void g_attention_o(const float *q, int qs, const float *k, const float *v, int ks,
                          const float *o_w, float *att, float *x, int Tq, int Tk, int H, int KV,
                          int hd, int D, float scale)
{
    int qd = H * hd;
    if (G.dt == GPU_F32 || G.no_shadow || !G.b->blas_gemm_ex) {
        g_attention(q, qs, k, v, ks, att, Tq, Tk, H, KV, hd, scale);
        g_matmul(att, o_w, NULL, x, Tq, D, qd, 1);
        return;
    }
    enum gpu_dtype t;
    const void *W = weight_operand16(o_w, D, qd, &t);
    void *a16 = scratch(&G.o16, (size_t)Tq * qd * 2);
    attend(q, qs, k, v, ks, a16, t, Tq, Tk, H, KV, hd, scale);
    wrote(att, (size_t)Tq * qd * sizeof(float)); /* its old contents are not its value now */
    wrote(x, (size_t)Tq * D * sizeof(float));
    gemm(t, 0, 1, Tq, D, qd, 1.0f, a16, qd, 0, W, qd, 0, 1.0f, x, D, 0, 1);
}

/* ---- fused operations (ops.h) ------------------------------------------ */

static void g_bias_act(float *y, const float *bias, int T, int N, enum vla_bias_act a)
{
    size_t n = (size_t)T * N;
    wrote(y, n * sizeof(float));
    /* only an activation's output feeds a GEMM; a plain bias add (the
     * residual before the statistics) has no 16-bit reader */
    void *y16 = a == VLA_BIAS_ONLY ? NULL : shadow_target(SH_ACT, n);
    int act = a == VLA_BIAS_GELU_TANH ? 1 : a == VLA_BIAS_SILU ? 2 : 0, bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_bias_act, grid_for(n), &y, &bias, &T, &N, &act, &y16, &bf);
    shadow_set(SH_ACT, y, n, y16);
}

static void g_bias_layernorm(float *x, const float *bias, const float *w, const float *b, float *y,
                             int T, int D, float eps)
{
    size_t n = (size_t)T * D;
    wrote(x, n * sizeof(float));
    wrote(y, n * sizeof(float));
    void *y16 = shadow_target(SH_NORM, n);
    int bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_bias_layernorm, (unsigned)(T < G.gridmax ? T : G.gridmax), &x, &bias, &w, &b, &y,
           &T, &D, &eps, &y16, &bf);
    shadow_set(SH_NORM, y, n, y16);
}

static void g_qkv_rope(const float *h, const float *q_w, const float *kv_w, float *q, float *kv,
                       int nseq, size_t kvs, int T, int D, int H, int KV, int hd, int pos0,
                       double theta)
{
    int qd = H * hd, kvd = 2 * KV * hd, NT = nseq * T;
    if (G.no_shadow || kv_w != q_w + (size_t)qd * D) {
        /* the weights are not one [q; kv] matrix: the composition */
        g_matmul(h, q_w, NULL, q, NT, qd, D, 0);
        for (int s = 0; s < nseq; s++) {
            g_matmul(h + (size_t)s * T * D, kv_w, NULL, kv + s * kvs, T, kvd, D, 0);
            g_rope(q + (size_t)s * T * qd, T, H, hd, qd, pos0, theta);
            g_rope(kv + s * kvs, T, KV, hd, kvd, pos0, theta);
        }
        return;
    }
    /* q_w and kv_w are adjacent rows of one [q; kv] matrix (weights.c lays
     * them out so): one GEMM over every sequence's rows, then one kernel per
     * sequence for RoPE and the split (each sequence's K/V go to its own
     * cache, positions restart per sequence) */
    float *buf = scratch(&G.qkvbuf, (size_t)NT * (qd + kvd) * sizeof(float));
    g_matmul(h, q_w, NULL, buf, NT, qd + kvd, D, 0);
    wrote(q, (size_t)NT * qd * sizeof(float));
    /* 16-bit: q's copy as a shadow (every sequence's rows), each sequence's
     * K/V rows into the mirror of kv's allocation (made on first use,
     * outside a capture) */
    uint16_t *q16 = shadow_target(SH_ROPE_Q, (size_t)NT * qd);
    int bf = G.dt == GPU_BF16;
    for (int s = 0; s < nseq; s++) {
        float *bs = buf + (size_t)s * T * (qd + kvd), *qs = q + (size_t)s * T * qd,
              *ks = kv + s * kvs;
        wrote(ks, (size_t)T * kvd * sizeof(float));
        void *q16s = q16 ? q16 + (size_t)s * T * qd : NULL, *kv16 = NULL;
        struct alloc_rec *r = mirror_target(ks, (size_t)T * kvd);
        if (r)
            kv16 = r->m16 + (ks - r->p);
        LAUNCH(K_vla_rope_split, grid_for((uint64_t)T * (hd / 2)), &bs, &T, &H, &KV, &hd, &pos0,
               &theta, &qs, &ks, &q16s, &kv16, &bf);
        if (kv16 && !G.err)
            vla_spans_add(&r->valid, (size_t)(ks - r->p), (size_t)(ks - r->p) + (size_t)T * kvd);
    }
    shadow_set(SH_ROPE_Q, q, (size_t)NT * qd, q16);
}

/* the 16-bit copy of a weight [n, k]: the arena's, or (a weight outside
 * the arena: the kernel tests' own) converted into sc */
static const void *weight16(const float *w, int n, int k, struct scratch *sc)
{
    if (G.arena16 && G.arena16_dt == G.dt && in_arena(w))
        return G.arena16 + (w - G.arena);
    void *d = scratch(sc, (size_t)n * k * 2);
    cvt16(w, k, d, k, n, k);
    return d;
}

/* as gemm(), alpha 1 and beta 0, C of the inputs' 16-bit type t: the next
 * GEMM's operand written by this one (the callers check that there is a
 * BLAS: the project's kernel writes fp32) */
static void gemm16(enum gpu_dtype t, int ta, int tb, int m, int n, int k, const void *A, long lda,
                   long long sA, const void *B, long ldb, long long sB, void *C, long ldc,
                   long long sC, int batch)
{
    gemm_ct(t, t, ta, tb, m, n, k, 1.0f, A, lda, sA, B, ldb, sB, 0.0f, C, ldc, sC, batch);
}

/* the 16-bit blocks (attention_block, mlp_block) keep their intermediates
 * 16-bit: a BLAS writes 16-bit outputs (the project's kernel writes fp32) */
static int blocks16(void)
{
    return G.dt != GPU_F32 && !G.no_shadow && G.b->blas_gemm_ex;
}

/* vision attention on the QKV projection's 16-bit rows qkv16 [C*T, 3W]
 * ([tokens, 3, heads, hd]) read in place by leading dimension 3W and head
 * stride hd: the fused kernel where flash16 takes it, else S = Q K^T (fp32), one softmax over every
 * sequence and head writing 16-bit P, O = P V written straight into out [C*T, W] (type ot: fp32, or
 * the 16-bit operand of the o-projection). A sequence's rows are T * 3W apart and its heads hd
 * apart: no single stride spans both, so with C > 1 each GEMM is one pointer-array call over every
 * sequence x head (attn_ptrs.h), else (no such call, ROCM_VLA_DOCTOR_NO_PTR_BATCH=1, arrays not
 * built before a capture, the call failing) per sequence one strided batch over the heads. */
static int attend_ptrs(enum vla_attn_phase ph, const struct vla_attn_geom *g)
{
    if (G.err || G.no_ptr_batch || g->C < 2)
        return -1;
    if (vla_attn_ptr_gemm(&G.ap, G.b, G.capturing, ph, g, G.s))
        return -1;
    prof_mark("GEMM, batched over cameras x heads (BLAS)");
    return 0;
}

/* the fused kernel's limits (kernels/vla_ops.hip "fused attention"): 16-bit
 * operands, an even head size of at most 128 (32-bit fragment loads, the
 * register tile), word-aligned rows. Its four kernels: the narrow pair (hd
 * <= 80: two key groups of four warps, 5 column steps of 16) and the wide
 * pair (hd <= 128: one group, 8 steps), each in bf16 and fp16; the dynamic
 * shared memory is the groups' K and transposed V tiles (64 keys; rows
 * padded by 4 words) */
#define FA_HDMAX 128
#define FA_BQ 64
#define FA_VW (64 / 2 + 4)

static int flash16(const void *qkv16, void *out, enum gpu_dtype ot, int C, int T, int H, int hd,
                   float scale)
{
    if (G.err || !G.flash_hw || G.flash_off || hd % 2 || hd > FA_HDMAX || (uintptr_t)qkv16 % 4 ||
        (uintptr_t)out % 4)
        return -1;
    int wide = hd > 80, nkc = wide ? 8 : 5, groups = wide ? 1 : 2, bf = G.dt == GPU_BF16;
    int k = wide ? (bf ? K_vla_flash_attn_w_bf : K_vla_flash_attn_w_h)
                 : (bf ? K_vla_flash_attn_bf : K_vla_flash_attn_h);
    unsigned smem = (unsigned)(groups * (64 * (8 * nkc + 4) + 16 * nkc * FA_VW) * 4);
    int W = H * hd, KV = H, nt = (T + FA_BQ - 1) / FA_BQ, o16 = ot != GPU_F32;
    long ld = 3L * W, seq = (long)T * ld, so = (long)T * W, ldo = W;
    const uint16_t *q = qkv16, *kp = q + W, *v = q + 2 * W;
    float s2 = (float)(scale * 1.4426950408889634); /* exp(x) = exp2(x log2 e) */
    void *args[] = {&q,  &ld, &kp, &v,  &ld, &seq, &seq, &so, &H,
                    &KV, &T,  &T,  &hd, &s2, &out, &ldo, &o16};
    launch_b(k, (unsigned)(C * H * nt), (unsigned)(128 * groups), smem, args);
    G.flash_calls++;
    return 0;
}

static void attend16(const void *qkv16, void *out, enum gpu_dtype ot, int C, int T, int H, int hd,
                     float scale)
{
    if (!flash16(qkv16, out, ot, C, T, H, hd, scale))
        return;
    enum gpu_dtype t = G.dt;
    int W = H * hd, CH = C * H, bf = t == GPU_BF16;
    long ld = 3L * W;
    long long sS = (long long)T * T;
    float *S = scratch(&G.S, (size_t)CH * sS * sizeof(float));
    void *P16 = scratch(&G.P16, (size_t)CH * sS * 2);
    const uint16_t *base = qkv16;
    struct vla_attn_geom g = {qkv16, S, P16, out, t, ot, C, T, H, hd};
    int strided = attend_ptrs(VLA_AP_SCORES, &g);
    for (int c = 0; strided && c < C; c++) {
        const uint16_t *q = base + (size_t)c * T * ld;
        gemm(t, 0, 1, T, T, hd, 1.0f, q, ld, hd, q + W, ld, hd, 0.0f, S + (size_t)c * H * sS, T, sS,
             H);
    }
    softmax(S, CH * T, T, scale, P16, bf);
    strided = attend_ptrs(VLA_AP_PV, &g);
    for (int c = 0; strided && c < C; c++) {
        const uint16_t *P = (const uint16_t *)P16 + (size_t)c * H * sS;
        const uint16_t *V = base + (size_t)c * T * ld + 2 * (size_t)W;
        if (ot == GPU_F32)
            gemm(t, 0, 0, T, hd, T, 1.0f, P, T, sS, V, ld, hd, 0.0f,
                 (float *)out + (size_t)c * T * W, W, hd, H);
        else
            gemm16(t, 0, 0, T, hd, T, P, T, sS, V, ld, hd, (uint16_t *)out + (size_t)c * T * W, W,
                   hd, H);
    }
}

/* qkv [M, N] fp32 + bias (NULL: none) as 16-bit into the qkv16 scratch */
static void *qkv_to16(const float *qkv, const float *bias, int M, int N)
{
    void *q16 = scratch(&G.qkv16, (size_t)M * N * 2);
    int bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_bias_cvt16, grid_for((uint64_t)M * N), &qkv, &bias, &M, &N, &q16, &bf);
    return q16;
}

static void g_attention_packed(const float *qkv, const float *bias, float *out, int C, int T, int H,
                               int hd, float scale)
{
    int W = H * hd;
    if (G.dt == GPU_F32 || G.no_shadow) {
        /* the composition: the bias into the operands, one call per sequence */
        float *q = (float *)qkv; /* the model's own buffer; nothing else reads it */
        if (bias) {
            int M = C * T, N = 3 * W;
            wrote(q, (size_t)M * N * sizeof(float));
            LAUNCH(K_vla_bias, grid_for((uint64_t)M * N), &q, &bias, &M, &N);
        }
        for (int c = 0; c < C; c++) {
            const float *qc = q + (size_t)c * T * 3 * W;
            g_attention(qc, 3 * W, qc + W, qc + 2 * W, 3 * W, out + (size_t)c * T * W, T, T, H, H,
                        hd, scale);
        }
        return;
    }
    /* 16-bit: the operands rounded once (with the bias) in their own
     * [tokens, 3, heads, hd] layout, read in place by the GEMMs */
    wrote(out, (size_t)C * T * W * sizeof(float));
    attend16(qkv_to16(qkv, bias, C * T, 3 * W), out, GPU_F32, C, T, H, hd, scale);
}

static void g_attention_block(const float *h, const float *qkv_w, const float *qkv_b,
                              const float *o_w, float *qkv, float *att, float *x, int C, int T,
                              int H, int hd, float scale)
{
    int W = H * hd, M = C * T;
    if (!blocks16()) { /* the composition */
        g_matmul(h, qkv_w, NULL, qkv, M, 3 * W, W, 0);
        g_attention_packed(qkv, qkv_b, att, C, T, H, hd, scale);
        g_matmul(att, o_w, NULL, x, M, W, W, 1);
        return;
    }
    /* 16-bit: the QKV GEMM adds its bias and writes the attention GEMMs'
     * operand; O is written 16-bit for the o-projection: no layout or
     * conversion kernel between the GEMMs */
    enum gpu_dtype t = G.dt;
    wrote(qkv, (size_t)M * 3 * W * sizeof(float));
    wrote(att, (size_t)M * W * sizeof(float));
    const void *A = act_operand(h, M, W, t, &G.a16);
    const void *Bq = weight16(qkv_w, 3 * W, W, &G.wa16);
    void *q16 = scratch(&G.qkv16, (size_t)M * 3 * W * 2);
    if (lt_ex(t, t, 0, 1, M, 3 * W, W, 1.0f, A, W, Bq, W, 0.0f, q16, 3 * W, qkv_b, GPU_LT_PLAIN)) {
        /* no cuBLASLt (or it refused): fp32 GEMM, then bias and rounding */
        gemm(t, 0, 1, M, 3 * W, W, 1.0f, A, W, 0, Bq, W, 0, 0.0f, qkv, 3 * W, 0, 1);
        q16 = qkv_to16(qkv, qkv_b, M, 3 * W);
    }
    void *o16 = scratch(&G.att16, (size_t)M * W * 2);
    attend16(q16, o16, t, C, T, H, hd, scale);
    const void *Bo = weight16(o_w, W, W, &G.wb16);
    wrote(x, (size_t)M * W * sizeof(float));
    gemm(t, 0, 1, M, W, W, 1.0f, o16, W, 0, Bo, W, 0, 1.0f, x, W, 0, 1);
}

static void g_mlp_block(const float *h, const float *w1, const float *b1, const float *w2,
                        float *hid, float *x, int T, int D, int F, enum vla_bias_act a)
{
    /* 16-bit: fc1's bias and GELU in its cuBLASLt epilogue, writing fc2's
     * 16-bit operand. Not in fp32, the GPU's reference precision: the
     * library's GELU is its own tanh, held only to the 16-bit bounds */
    if (a == VLA_BIAS_GELU_TANH && b1 && blocks16()) {
        enum gpu_dtype t = G.dt;
        const void *A = act_operand(h, T, D, t, &G.a16);
        const void *B1 = weight16(w1, F, D, &G.wa16);
        void *y = scratch(&G.hid16, (size_t)T * F * 2);
        wrote(hid, (size_t)T * F * sizeof(float));
        if (!lt_ex(t, t, 0, 1, T, F, D, 1.0f, A, D, B1, D, 0.0f, y, F, b1, GPU_LT_GELU)) {
            const void *B2 = weight16(w2, D, F, &G.wb16);
            wrote(x, (size_t)T * D * sizeof(float));
            gemm(t, 0, 1, T, D, F, 1.0f, y, F, 0, B2, F, 0, 1.0f, x, D, 0, 1);
            return;
        }
    }
    /* the composition (and the fallback where there is no epilogue) */
    g_matmul(h, w1, NULL, hid, T, F, D, 0);
    g_bias_act(hid, b1, T, F, a);
    g_matmul(hid, w2, NULL, x, T, D, F, 1);
}

static void g_add(float *y, const float *x, size_t n)
{
    wrote(y, n * sizeof(float));
    float a = 1.0f;
    uint64_t nn = n;
    void *y16 = NULL;
    int bf = 0;
    LAUNCH(K_vla_axpy, grid_for(nn), &y, &x, &a, &nn, &y16, &bf);
}

static void g_scale(float *x, size_t n, float s)
{
    wrote(x, n * sizeof(float));
    uint64_t nn = n;
    LAUNCH(K_vla_scale, grid_for(nn), &x, &s, &nn);
}

/* y += a x; in 16-bit mode y's 16 bits go into the mirror of y's
 * allocation as well: the integrator state, which the next denoising step's
 * first GEMM reads across the stage boundary (no conversion kernel there) */
static void g_axpy(float *y, const float *x, float a, size_t n)
{
    wrote(y, n * sizeof(float));
    uint64_t nn = n;
    struct alloc_rec *r = mirror_target(y, n);
    void *y16 = r ? r->m16 + (y - r->p) : NULL;
    int bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_axpy, grid_for(nn), &y, &x, &a, &nn, &y16, &bf);
    if (r && !G.err)
        vla_spans_add(&r->valid, (size_t)(y - r->p), (size_t)(y - r->p) + n);
}

static void g_patchify(const float *img, float *out, int nimg, int S, int p, int g)
{
    uint64_t n = (uint64_t)nimg * g * g * 3 * p * p;
    wrote(out, n * sizeof(float));
    LAUNCH(K_vla_patchify, grid_for(n), &img, &out, &nimg, &S, &p, &g);
}

static void g_pos_interp(const float *tab, int g0, float *out, int g1, int D)
{
    wrote(out, (size_t)g1 * g1 * D * sizeof(float));
    LAUNCH(K_vla_pos_interp, grid_for((uint64_t)g1 * g1 * D), &tab, &g0, &out, &g1, &D);
}

static void g_merge(const float *x, float *out, int g, int m, int D)
{
    wrote(out, (size_t)g * g * D * sizeof(float));
    LAUNCH(K_vla_merge, grid_for((uint64_t)g * g * D), &x, &out, &g, &m, &D);
}

static void g_embed(const float *table, const int32_t *tokens, float *out, int T, int D, float mul)
{
    wrote(out, (size_t)T * D * sizeof(float));
    int *dt = scratch(&G.tok, (size_t)T * sizeof(int32_t));
    h2d(dt, tokens, (size_t)T * sizeof(int32_t));
    LAUNCH(K_vla_embed, grid_for((uint64_t)T * D), &table, &dt, &out, &T, &D, &mul);
}

static void g_concat_bcast(const float *a, int Da, const float *b, int Db, float *out, int T)
{
    wrote(out, (size_t)T * (Da + Db) * sizeof(float));
    LAUNCH(K_vla_concat_bcast, grid_for((uint64_t)T * (Da + Db)), &a, &Da, &b, &Db, &out, &T);
}

static void g_time_concat(const float *a, int Da, float *out, int T, int D, float t, double min_p,
                          double max_p)
{
    size_t n = (size_t)T * (Da + D);
    wrote(out, n * sizeof(float));
    void *y16 = shadow_target(SH_CAT, n);
    int bf = G.dt == GPU_BF16;
    LAUNCH(K_vla_time_concat, grid_for(n), &a, &Da, &out, &T, &D, &t, &min_p, &max_p, &y16, &bf);
    shadow_set(SH_CAT, out, n, y16);
}

static void g_time_embed(float *out, int D, float t, double min_p, double max_p)
{
    wrote(out, (size_t)D * sizeof(float));
    LAUNCH(K_vla_time_embed, grid_for((uint64_t)D / 2), &out, &D, &t, &min_p, &max_p);
}

static void g_moe_route(const float *logits, int T, int X, int k, enum vla_router r, int *idx,
                        float *wts)
{
    /* not used: moe_dense routes on the device */
    (void)logits, (void)T, (void)X, (void)k, (void)r, (void)idx, (void)wts;
    snprintf(G.errmsg, sizeof(G.errmsg), "moe_route called on the GPU backend");
    G.err = 1;
}

static void g_gather_rows(const float *x, const int *rows, int n, int D, float *out)
{
    (void)x, (void)rows, (void)n, (void)D, (void)out;
    snprintf(G.errmsg, sizeof(G.errmsg), "gather_rows called on the GPU backend");
    G.err = 1;
}

static void g_scatter_add_rows(const float *x, const int *rows, const float *w, int n, int D,
                               float *y)
{
    (void)x, (void)rows, (void)w, (void)n, (void)D, (void)y;
    snprintf(G.errmsg, sizeof(G.errmsg), "scatter_add_rows called on the GPU backend");
    G.err = 1;
}

/* every expert on every token (the weights are read once either way: with
 * 50 tokens x top-4 nearly all 32 experts are hit), combined with dense
 * routing weights that are zero for experts not chosen */
static void g_moe_dense(const float *h, float *x, const float *router_w, const float *gate_up_w,
                        const float *down_w, int T, int D, int X, int k, int M, enum vla_router r,
                        enum vla_act a, float *logits)
{
    g_matmul(h, router_w, NULL, logits, T, X, D, 0);
    wrote(x, (size_t)T * D * sizeof(float));
    float *wd = scratch(&G.moe_w, (size_t)T * X * sizeof(float));
    int sm = r == VLA_ROUTER_SOFTMAX;
    LAUNCH(K_vla_moe_route, grid_for((uint64_t)T), &logits, &T, &X, &k, &sm, &wd);
    float *gu = scratch(&G.moe_gu, (size_t)X * T * 2 * M * sizeof(float));
    float *ac = scratch(&G.moe_act, (size_t)X * T * M * sizeof(float));
    float *eo = scratch(&G.moe_eo, (size_t)X * T * D * sizeof(float));
    enum gpu_dtype t;
    const void *Wg = weight_operand(gate_up_w, &t);
    const void *Wd = weight_operand(down_w, &t);
    const void *Ah = act_operand(h, T, D, t, &G.a16);
    gemm(t, 0, 1, T, 2 * M, D, 1.0f, Ah, D, 0, Wg, D, (long long)2 * M * D, 0.0f, gu, 2 * M,
         (long long)T * 2 * M, X);
    g_glu(gu, gu + M, ac, X * T, M, 2 * M, a);
    const void *Aa = act_operand(ac, X * T, M, t, &G.a16);
    gemm(t, 0, 1, T, D, M, 1.0f, Aa, M, (long long)T * M, Wd, M, (long long)D * M, 0.0f, eo, D,
         (long long)T * D, X);
    LAUNCH(K_vla_moe_combine, grid_for((uint64_t)T * D), &eo, &wd, &T, &X, &D, &x);
}

static void g_denorm_clamp(const float *x, float *y, int T, int A, const float *mean,
                           const float *sd, const float *lo, const float *hi)
{
    wrote(y, (size_t)T * A * sizeof(float));
    LAUNCH(K_vla_denorm_clamp, grid_for((uint64_t)T * A), &x, &y, &T, &A, &mean, &sd, &lo, &hi);
}

static float g_max_abs(const float *x, size_t n, int *nonfinite)
{
    unsigned res[2] = {0, 0};
    unsigned *d = scratch(&G.red, sizeof(res));
    uint64_t nn = n;
    h2d(d, res, sizeof(res));
    LAUNCH(K_vla_max_abs, grid_for(nn), &x, &nn, &d);
    d2h(res, d, sizeof(res));
    g_sync();
    float m;
    memcpy(&m, &res[0], sizeof(m));
    if (nonfinite)
        *nonfinite = res[1] != 0 || G.err;
    return m;
}

const struct vla_ops vla_ops_gpu = {
    .name = "gpu",
    .host_memory = 0,
    .alloc = g_alloc,
    .release = g_release,
    .upload = g_upload,
    .download = g_download,
    .sync = g_sync,
    .matmul = g_matmul,
    .layernorm = g_layernorm,
    .rmsnorm = g_rmsnorm,
    .gelu_tanh = g_gelu_tanh,
    .silu = g_silu,
    .glu = g_glu,
    .rope = g_rope,
    .attention = g_attention,
    .add = g_add,
    .scale = g_scale,
    .axpy = g_axpy,
    .copy = g_copy,
    .patchify = g_patchify,
    .pos_interp = g_pos_interp,
    .merge = g_merge,
    .embed = g_embed,
    .concat_bcast = g_concat_bcast,
    .time_embed = g_time_embed,
    .moe_route = g_moe_route,
    .gather_rows = g_gather_rows,
    .scatter_add_rows = g_scatter_add_rows,
    .moe_dense = g_moe_dense,
    .bias_act = g_bias_act,
    .bias_layernorm = g_bias_layernorm,
    .qkv_rope = g_qkv_rope,
    .attention_packed = g_attention_packed,
    .attention_block = g_attention_block,
    .mlp_block = g_mlp_block,
    .attention_o = g_attention_o,
    .time_concat = g_time_concat,
    .denorm_clamp = g_denorm_clamp,
    .max_abs = g_max_abs,
};

/* ---- lifecycle ------------------------------------------------------------ */

int vla_gpu_open(const char *kind, char **why)
{
    *why = NULL;
    if (G.b)
        return 0;
    double t0 = util_mono_s();
    enum gpu_backend_kind k = GPU_BACKEND_AUTO;
    if (kind && strcmp(kind, "cuda") == 0)
        k = GPU_BACKEND_CUDA;
    else if (kind && strcmp(kind, "hip") == 0)
        k = GPU_BACKEND_HIP;
    char *w = NULL;
    struct gpu_backend *b = gpu_backend_open(k, &w);
    if (!b) {
        *why = xasprintf("no GPU runtime loads (%s)", w ? w : "?");
        free(w);
        return -1;
    }
    int n = 0;
    b->device_count(b, &n);
    struct gpu_props p;
    if (n <= 0) {
        *why = xasprintf("the %s runtime (%s) sees no GPU%s%s", b->name, b->lib,
                         b->init_err[0] ? ": " : "", b->init_err);
        gpu_backend_close(b);
        return -1;
    }
    if (b->set_device(b, 0) || b->props(b, 0, &p)) {
        *why = xasprintf("device 0 cannot be used: %s", b->err);
        gpu_backend_close(b);
        return -1;
    }
    memset(&G, 0, sizeof(G));
    G.b = b;
    G.dt = GPU_F32;
    const char *nf = getenv("ROCM_VLA_DOCTOR_VLA_NO_FUSE");
    G.no_shadow = nf && strcmp(nf, "1") == 0;
    const char *np = getenv("ROCM_VLA_DOCTOR_NO_PTR_BATCH");
    G.no_ptr_batch = np && strcmp(np, "1") == 0;
    const char *nfl = getenv("ROCM_VLA_DOCTOR_NO_FLASH");
    G.flash_off = nfl && strcmp(nfl, "1") == 0;
    G.gridmax = (p.cu_count > 0 ? p.cu_count : 64) * 16;
    const char *target = getenv("ROCM_VLA_DOCTOR_TARGET");
    target = target && *target ? target : p.target;
    if (!*target) {
        *why = xasprintf("the target of device 0 at %s is not known: %s",
                         p.pci[0] ? p.pci : "(no PCI address)", p.arch_why);
        gpu_backend_close(b);
        return -1;
    }
    snprintf(G.info.backend, sizeof(G.info.backend), "%s", b->name);
    snprintf(G.info.device, sizeof(G.info.device), "%s", p.name);
    snprintf(G.info.pci, sizeof(G.info.pci), "%s", p.pci);
    snprintf(G.info.target, sizeof(G.info.target), "%s", target);
    if (b->blas_gemm_ex && b->blas_lt)
        snprintf(G.info.blas, sizeof(G.info.blas), "%.200s + %.200s (tuned per shape)", b->blas_lib,
                 b->blas_lt_lib);
    else
        snprintf(G.info.blas, sizeof(G.info.blas), "%s", b->blas_gemm_ex ? b->blas_lib : "");
    snprintf(G.info.lt_why, sizeof(G.info.lt_why), "%s",
             b->blas_lt          ? ""
             : b->blas_lt_err[0] ? b->blas_lt_err
                                 : "this backend has no cuBLASLt binding (HIP: rocBLAS only)");
    G.info.total_mem = p.total_mem;
    /* the fused attention kernel has a body only where the module's target
     * has mma.sync (CUDA sm_80 and newer) */
    G.flash_hw =
        strcmp(b->name, "cuda") == 0 && strncmp(target, "sm_", 3) == 0 && atoi(target + 3) >= 80;
    size_t fr = 0, tot = 0;
    if (!b->mem_info(b, &fr, &tot))
        G.free0 = fr;
    if (b->stream_create(b, &G.s, 0)) {
        *why = xasprintf("cannot create a stream: %s", b->err);
        goto fail;
    }
    int hits0 = kcache_stats.hits, comp0 = kcache_stats.compiles;
    char *kw = NULL;
    if (gpu_kernel_load(b, "vla_ops", target, &G.mod, &kw)) {
        *why = xasprintf("the VLA kernels do not build for %s: %s", target, kw ? kw : "?");
        free(kw);
        goto fail;
    }
    for (int i = 0; i < K_COUNT; i++)
        if (b->function(b, G.mod, knames[i], &G.f[i])) {
            *why = xasprintf("kernel %s: %s", knames[i], b->err);
            goto fail;
        }
    G.info.cache_hits = kcache_stats.hits - hits0;
    G.info.compiles = kcache_stats.compiles - comp0;
    G.info.open_s = util_mono_s() - t0;
    return 0;
fail:
    gpu_backend_close(b);
    memset(&G, 0, sizeof(G));
    return -1;
}

int vla_gpu_set_blaslt(int on)
{
    G.no_lt = !on;
    return G.b && G.b->blas_lt ? 0 : -1;
}

void vla_gpu_set_fuse(int on)
{
    G.no_shadow = !on;
    shadows_clear();
    mirrors_clear();
}

void vla_gpu_fuse_counts(long long *shadow_hits, long long *mirror_hits, long long *conversions)
{
    *shadow_hits = G.sh_hits;
    *mirror_hits = G.mirror_hits;
    *conversions = G.cvt_launches;
}

const char *vla_gpu_ptr_batch(long long *calls, long long *fallbacks)
{
    *calls = G.ap.calls;
    *fallbacks = G.ap.fallbacks;
    if (G.no_ptr_batch)
        return "disabled by ROCM_VLA_DOCTOR_NO_PTR_BATCH=1";
    if (!G.b->blas_gemm_ptrs)
        return G.b->blas_gemm_ex ? "the BLAS has no pointer-array batched GEMM" : "no BLAS";
    return G.ap.fallbacks ? G.ap.why : NULL;
}

int vla_gpu_set_flash(int on)
{
    G.flash_off = !on;
    return G.flash_hw ? 0 : -1;
}

const char *vla_gpu_flash(long long *calls)
{
    *calls = G.flash_calls;
    if (!G.flash_hw)
        return "the fused attention kernel needs mma.sync (CUDA sm_80 or newer); this target runs "
               "the BLAS path (GEMMs around a softmax kernel)";
    if (G.flash_off)
        return "disabled (ROCM_VLA_DOCTOR_NO_FLASH=1 or the kernel tests' A/B)";
    if (G.no_shadow)
        return "the unfused path (ROCM_VLA_DOCTOR_VLA_NO_FUSE=1) has no fused attention";
    return NULL;
}

const struct vla_gpu_info *vla_gpu_info(void)
{
    return &G.info;
}

static int make16(void)
{
    if (G.dt == GPU_F32 || !G.arena || (G.arena16 && G.arena16_dt == G.dt))
        return 0;
    if (!G.arena16)
        G.arena16 = dev_alloc(G.arena_n * 2);
    if (!G.arena16)
        return -1;
    G.arena16_dt = G.dt;
    /* in slices: the row count of one launch stays an int */
    const size_t slice = (size_t)1 << 28;
    for (size_t at = 0; at < G.arena_n; at += slice) {
        size_t n = G.arena_n - at < slice ? G.arena_n - at : slice;
        cvt16(G.arena + at, (long)n, G.arena16 + at, (long)n, 1, (int)n);
    }
    g_sync();
    return G.err ? -1 : 0;
}

int vla_gpu_set_dtype(const char *dtype)
{
    shadows_clear();
    mirrors_clear();
    if (strcmp(dtype, "fp32") == 0)
        G.dt = GPU_F32;
    else if (strcmp(dtype, "bf16") == 0)
        G.dt = GPU_BF16;
    else if (strcmp(dtype, "fp16") == 0)
        G.dt = GPU_F16;
    else
        return -1;
    return make16();
}

int vla_gpu_weights(struct vla_weights *w, const struct vla_preset *p, uint64_t seed, int from_host)
{
    G.arena_n = w->arena_len;
    G.arena = dev_alloc(w->arena_len * sizeof(float));
    if (!G.arena)
        return -1;
    if (from_host && G.b->memcpy(G.b, G.arena, w->arena, w->arena_len * sizeof(float), GPU_H2D))
        return fail("weights upload"), -1;
    size_t off = 0;
    for (size_t i = 0; i < w->n; i++) {
        struct vla_tensor *t = &w->t[i];
        float *d = G.arena + off;
        off += (t->nelem + 15) & ~(uint64_t)15;
        *t->dst = d; /* t->data stays the host copy (NULL without one): --save-weights */
        if (from_host)
            continue;
        double fan_in = (double)t->shape[t->ndim - 1], mean = 0, sc = 0.02;
        const float *stats = NULL;
        switch (t->init) {
        case VLA_INIT_LINEAR:
        case VLA_INIT_EMBED:
            sc = 1.0 / sqrt(fan_in);
            break;
        case VLA_INIT_BIAS:
        case VLA_INIT_ZERO_ISH:
            break;
        case VLA_INIT_NORM:
            mean = 1.0;
            break;
        case VLA_INIT_POS:
            sc = 0.2;
            break;
        case VLA_INIT_STATS:
            stats = d == w->mean ? p->mean : d == w->std ? p->std : d == w->low ? p->low : p->high;
            break;
        }
        if (stats) {
            h2d(d, stats, (size_t)p->action_dim * sizeof(float));
            continue;
        }
        uint64_t key = vla_rng_key(seed, t->name), n = t->nelem;
        int normal = 1;
        LAUNCH(K_vla_rng_fill, grid_for(n), &d, &n, &key, &mean, &sc, &normal);
    }
    g_sync();
    if (G.err)
        return -1;
    return make16();
}

int vla_gpu_weights_download(float *host, size_t n)
{
    if (G.b->memcpy(G.b, host, G.arena, n * sizeof(float), GPU_D2H))
        return fail("weights download"), -1;
    return 0;
}

/* ---- graph ------------------------------------------------------------------ */

void vla_gpu_profile_begin(void)
{
    G.b->stream_sync(G.b, G.s);
    G.prof_on = 1;
    G.prof_n = 0;
    G.prof_syncs = 0;
    prof_mark("start");
}

int vla_gpu_profile_end(struct vla_gpu_prof *out, int max)
{
    G.b->stream_sync(G.b, G.s);
    G.prof_on = 0;
    int n = 0;
    for (int i = 1; i < G.prof_n; i++) {
        float ms = 0;
        if (G.b->event_elapsed_ms(G.b, &ms, G.prof_ev[i - 1], G.prof_ev[i]))
            return -1;
        static const char *const stage[] = {"vision", "prefix", "steps"};
        const char *st = stage[G.prof_stage[i]];
        int j = 0;
        while (j < n && (strcmp(out[j].what, G.prof_what[i]) != 0 || out[j].stage != st))
            j++;
        if (j == n) {
            if (n == max)
                continue;
            out[n++] = (struct vla_gpu_prof){G.prof_what[i], st, 0, 0};
        }
        out[j].calls++;
        out[j].ms += ms;
    }
    return n;
}

int vla_gpu_have_graph(void)
{
    return G.graph != NULL;
}

static void run_staged(int from, int to, int up)
{
    for (int i = from; i < to; i++) {
        if (up && G.st[i].host_src)
            memcpy(G.st[i].pin, G.st[i].host_src, G.st[i].bytes);
        if (!up && G.st[i].host_dst)
            memcpy(G.st[i].host_dst, G.st[i].pin, G.st[i].bytes);
    }
}

/* capture the pass: mode 1 whole, mode 2 split at every stage boundary */
static int capture(struct vla_model *m, const struct vla_inputs *in, float *actions, int mode,
                   char **why)
{
    struct gpu_backend *b = G.b;
    b->stream_sync(b, G.s);
    if (b->graph_begin(b, G.s)) {
        *why = xasprintf("begin capture: %s", b->err);
        return -1;
    }
    G.capturing = mode;
    int rc = vla_forward(m, in, actions, NULL, NULL);
    G.capturing = 0;
    gpu_graph g = NULL;
    int e = b->graph_end(b, G.s, &g);
    if (mode == 2 && g) /* the empty tail after the last boundary */
        b->graph_destroy(b, g), g = NULL;
    if (rc || e || G.err) {
        *why = xasprintf("capture failed: %s", G.err ? G.errmsg : e ? b->err : "the pass failed");
        if (g)
            b->graph_destroy(b, g);
        G.err = 0;
        return -1;
    }
    if (mode == 1)
        G.graph = g;
    return 0;
}

int vla_gpu_graph_capture(struct vla_model *m, const struct vla_inputs *in, float *actions,
                          char **why)
{
    *why = NULL;
    struct gpu_backend *b = G.b;
    if (!b->graph_begin || !b->graph_end) {
        *why = xasprintf("the %s backend has no graph API", b->name);
        return -1;
    }
    if (G.err) {
        *why = xasprintf("an earlier error: %s", G.errmsg);
        return -1;
    }
    size_t need = (size_t)m->B *
                      ((size_t)in->cameras * 3 * in->image * in->image + (size_t)in->ntok +
                       2 * (size_t)m->C * m->A) *
                      4 +
                  MAX_STAGED * 64;
    if (!G.pool) {
        if (b->malloc_host(b, (void **)&G.pool, 2 * need)) {
            *why = xasprintf("pinned staging: %s", b->err);
            G.pool = NULL;
            return -1;
        }
        G.pool_len = 2 * need;
    }
    int want = VLA_STAGES(m->p) + 1;
    if (want > MAX_EVENTS) {
        *why = xasprintf("too many stages (%d) for the event table", want);
        return -1;
    }
    while (G.nev_created < want && b->event_create(b, &G.ev[G.nev_created]) == 0)
        G.nev_created++;
    G.pool_used = 0;
    G.nst = 0;
    if (capture(m, in, actions, 1, why))
        return -1;
    G.nst_whole = G.nst;
    char *w2 = NULL;
    if (capture(m, in, actions, 2, &w2) || G.nsg != VLA_STAGES(m->p)) {
        /* the whole graph stands; stage times are then unknown */
        for (int i = 0; i < G.nsg; i++)
            b->graph_destroy(b, G.sg[i]);
        G.nsg = 0;
        G.nst = G.nst_whole;
    }
    free(w2);
    return 0;
}

int vla_gpu_graph_run(double *stage_s, int nstages)
{
    struct gpu_backend *b = G.b;
    if (!stage_s) {
        run_staged(0, G.nst_whole, 1);
        if (b->graph_launch(b, G.graph, G.s) || b->stream_sync(b, G.s))
            return fail("graph replay"), -1;
        run_staged(0, G.nst_whole, 0);
        return 0;
    }
    /* the split graphs back to back, events between them (outside any graph) */
    for (int i = 0; i < nstages; i++)
        stage_s[i] = NAN;
    if (G.nsg != nstages || G.nev_created < nstages + 1)
        return 0;
    run_staged(G.nst_whole, G.nst, 1);
    int e = b->event_record(b, G.ev[0], G.s);
    for (int i = 0; i < G.nsg && !e; i++)
        e = b->graph_launch(b, G.sg[i], G.s) || b->event_record(b, G.ev[i + 1], G.s);
    if (e || b->stream_sync(b, G.s))
        return fail("stage graph replay"), -1;
    run_staged(G.nst_whole, G.nst, 0);
    for (int i = 0; i < nstages; i++) {
        float ms = -1;
        if (!b->event_elapsed_ms(b, &ms, G.ev[i], G.ev[i + 1]))
            stage_s[i] = ms * 1e-3;
    }
    return 0;
}

size_t vla_gpu_used_bytes(void)
{
    size_t fr = 0, tot = 0;
    if (!G.b || G.b->mem_info(G.b, &fr, &tot) || fr > G.free0)
        return 0;
    return G.free0 - fr;
}

size_t vla_gpu_alloc_peak(void)
{
    return G.peak;
}

void vla_gpu_close(void)
{
    if (!G.b)
        return;
    struct gpu_backend *b = G.b;
    b->stream_sync(b, G.s);
    if (L.A) {
        b->free(b, L.A);
        b->free(b, L.B);
        b->free(b, L.C);
        memset(&L, 0, sizeof(L));
    }
    if (G.graph)
        b->graph_destroy(b, G.graph);
    for (int i = 0; i < G.nsg; i++)
        b->graph_destroy(b, G.sg[i]);
    for (int i = 0; i < G.nev_created; i++)
        b->event_destroy(b, G.ev[i]);
    for (int i = 0; i < G.prof_created; i++)
        b->event_destroy(b, G.prof_ev[i]);
    if (G.pool)
        b->free_host(b, G.pool);
    vla_attn_cache_free(&G.ap, b);
    struct scratch *sc[] = {&G.a16, &G.q16,   &G.k16,    &G.v16,     &G.S,      &G.P16,    &G.tok,
                            &G.red, &G.moe_w, &G.moe_gu, &G.moe_act, &G.moe_eo, &G.qkvbuf, &G.o16,
                            &G.w16, &G.qkv16, &G.att16,  &G.hid16,   &G.wa16,   &G.wb16};
    for (size_t i = 0; i < ARRAY_SIZE(sc); i++)
        if (sc[i]->p)
            b->free(b, sc[i]->p);
    for (int i = 0; i < SH_N; i++)
        if (G.sh_buf[i].p)
            b->free(b, G.sh_buf[i].p);
    for (int i = 0; i < G.nallocs; i++) { /* the caller's buffers stay its own */
        if (G.allocs[i].m16)
            b->free(b, G.allocs[i].m16);
        vla_spans_free(&G.allocs[i].valid);
    }
    free(G.allocs);
    if (G.arena16)
        b->free(b, G.arena16);
    if (G.arena)
        b->free(b, G.arena);
    if (G.mod)
        b->module_unload(b, G.mod);
    if (G.s)
        b->stream_destroy(b, G.s);
    gpu_backend_close(b);
    memset(&G, 0, sizeof(G));
}

/* ceilings measured in the same run, for the roofline fractions: a large
 * GEMM of the current dtype through the same path as the pass, and a
 * device-to-device copy (read + write bytes) */
int vla_gpu_ceilings(double *gemm_flops, double *copy_bytes_s)
{
    struct gpu_backend *b = G.b;
    int err0 = G.err;
    *gemm_flops = *copy_bytes_s = 0;
    gpu_event e0, e1;
    if (b->event_create(b, &e0))
        return -1;
    if (b->event_create(b, &e1)) {
        b->event_destroy(b, e0);
        return -1;
    }
    const int n = 8192;
    size_t es = G.dt == GPU_F32 ? 4 : 2;
    void *A = dev_alloc((size_t)n * n * es), *B = dev_alloc((size_t)n * n * es);
    float *C = dev_alloc((size_t)n * n * 4);
    if (A && B && C && b->blas_gemm_ex) {
        b->memset(b, A, 0, (size_t)n * n * es);
        b->memset(b, B, 0, (size_t)n * n * es);
        gemm(G.dt, 0, 1, n, n, n, 1.0f, A, n, 0, B, n, 0, 0.0f, C, n, 0, 1);
        b->event_record(b, e0, G.s);
        for (int i = 0; i < 5; i++)
            gemm(G.dt, 0, 1, n, n, n, 1.0f, A, n, 0, B, n, 0, 0.0f, C, n, 0, 1);
        b->event_record(b, e1, G.s);
        float ms = 0;
        if (!b->event_sync(b, e1) && !b->event_elapsed_ms(b, &ms, e0, e1) && ms > 0)
            *gemm_flops = 5 * 2.0 * n * n * (double)n / (ms * 1e-3);
    }
    if (A && B) { /* copy A -> B: n*n*es bytes read and written */
        size_t bytes = (size_t)n * n * es;
        b->memcpy_async(b, B, A, bytes, GPU_D2D, G.s);
        b->event_record(b, e0, G.s);
        for (int i = 0; i < 5; i++)
            b->memcpy_async(b, B, A, bytes, GPU_D2D, G.s);
        b->event_record(b, e1, G.s);
        float ms = 0;
        if (!b->event_sync(b, e1) && !b->event_elapsed_ms(b, &ms, e0, e1) && ms > 0)
            *copy_bytes_s = 5 * 2.0 * (double)bytes / (ms * 1e-3);
    }
    b->stream_sync(b, G.s);
    void *bufs[] = {A, B, C};
    for (int i = 0; i < 3; i++)
        if (bufs[i])
            b->free(b, bufs[i]);
    b->event_destroy(b, e0);
    b->event_destroy(b, e1);
    G.err = err0; /* a failed ceiling is no failure of the pass */
    return 0;
}

/* the soak's load: reps GEMMs of n x n x n in the current dtype, through
 * the same GEMM path as the pass (the backend's BLAS, else the project's
 * kernel), on buffers kept until vla_gpu_close; 0 or -1 */
int vla_gpu_load_gemm(int n, int reps)
{
    struct gpu_backend *b = G.b;
    size_t es = G.dt == GPU_F32 ? 4 : 2;
    if (L.n != n) {
        if (L.A)
            b->free(b, L.A), b->free(b, L.B), b->free(b, L.C);
        L.A = dev_alloc((size_t)n * n * es);
        L.B = dev_alloc((size_t)n * n * es);
        L.C = dev_alloc((size_t)n * n * 4);
        if (!L.A || !L.B || !L.C)
            return -1;
        b->memset(b, L.A, 0, (size_t)n * n * es);
        b->memset(b, L.B, 0, (size_t)n * n * es);
        L.n = n;
    }
    for (int i = 0; i < reps; i++)
        gemm(G.dt, 0, 1, n, n, n, 1.0f, L.A, n, 0, L.B, n, 0, 0.0f, L.C, n, 0, 1);
    b->stream_sync(b, G.s);
    return G.err ? -1 : 0;
}

/* the normalised actions (x after the last step) of the last pass */
int vla_gpu_download_state(const struct vla_model *m, float *host)
{
    d2h(host, m->xt, (size_t)m->B * m->C * m->A * sizeof(float));
    g_sync();
    return G.err ? -1 : 0;
}
