/* blaslt.c - see blaslt.h. A BLAS's own GEMM (cublasGemmEx, rocblas_gemm_ex)
 * picks one kernel per shape from its own heuristic; for the expert's GEMMs
 * (M = 50 rows against 8 MB of weights) that kernel reads the weights far
 * below the copy rate, so here the heuristic's first LT_CAND candidates are
 * timed on the real operands and the fastest is kept per shape, operand
 * alignment and epilogue. Each timed run starts with the L2 cache flushed: in
 * the pass a layer's weights come from device memory (a step reads 600 MB,
 * the L2 holds 50), so a candidate timed on weights left in the L2 by the run
 * before it is timed on a case the pass never has. */
#include "blaslt.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GT_EXTRA_TYPES /* the handles are void * here */
#include "trace_gen.h"

#define LT_CAND 32            /* heuristic candidates timed per shape */
#define LT_REPS 5             /* timed runs per candidate */
#define LT_PLANS 256          /* shapes cached; beyond that the caller's BLAS path runs */
#define LT_WS (32u << 20)     /* workspace offered to the algorithms */
#define LT_FLUSH (128u << 20) /* written before each timed run: several times any L2 */
#define LT_HEUR_MAX 128       /* bytes of one heuristic result, at most (cuBLASLt: 96) */

/* a library's algorithm, opaque: copied out of its heuristic result and
 * handed back to its matmul (cuBLASLt's is 64 bytes, hipBLASLt's 24) */
struct lt_algo {
    uint64_t w[8];
};
struct lt_cand {
    struct lt_algo algo;
    size_t ws;
};

struct lt_plan {
    long long key[16];
    void *desc, *la, *lb, *lc;
    struct lt_algo algo;
    size_t ws;
    int timed;   /* the candidates were looked at outside capture */
    int refused; /* the heuristic had no algorithm (types, epilogue), or its first run failed */
    int by_time; /* and timing chose among two or more */
    int ran;     /* a run of the plan succeeded */
};

struct gpu_lt {
    const struct lt_lib *L;
    lt_create_fn create, pref_create;
    lt_desc_create_fn desc_create;
    lt_set_fn desc_set, pref_set;
    lt_layout_create_fn layout_create;
    lt_heuristic_fn heuristic;
    lt_matmul_fn matmul;
    lt_destroy_fn layout_destroy, desc_destroy, pref_destroy, destroy;
    void *handle, *pref;
    void *ws;
    size_t ws_len;
    int ws_tried;
    gpu_event ev[2];
    struct lt_plan plan[LT_PLANS];
    int n;
};

/* ---- --trace-gpu (gpu_trace.h): every call below, through trace_gen.h ----
 * X(result, field of struct gpu_lt, its lt_fn, the parameter types): the
 * wrappers are assigned over the bound pointers, so a list that does not
 * match the lt_*_fn shapes fails the build */
#define LT_CALLS(X)                                                                                \
    X(int, create, LT_CREATE, void **)                                                             \
    X(int, pref_create, LT_PREF_CREATE, void **)                                                   \
    X(int, desc_create, LT_DESC_CREATE, void **, int, int)                                         \
    X(int, desc_set, LT_DESC_SET, void *, int, const void *, size_t)                               \
    X(int, pref_set, LT_PREF_SET, void *, int, const void *, size_t)                               \
    X(int, layout_create, LT_LAYOUT_CREATE, void **, int, uint64_t, uint64_t, int64_t)             \
    X(int, heuristic, LT_HEURISTIC, void *, void *, void *, void *, void *, void *, void *, int,   \
      void *, int *)                                                                               \
    X(int, matmul, LT_MATMUL, void *, void *, const void *, const void *, void *, const void *,    \
      void *, const void *, const void *, void *, void *, void *, const void *, void *, size_t,    \
      void *)                                                                                      \
    X(int, layout_destroy, LT_LAYOUT_DESTROY, void *)                                              \
    X(int, desc_destroy, LT_DESC_DESTROY, void *)                                                  \
    X(int, pref_destroy, LT_PREF_DESTROY, void *)                                                  \
    X(int, destroy, LT_DESTROY, void *)

/* one process binds one Lt library: the real pointers, and that library for
 * the trace's names (a second, other library is not traced) */
static const struct lt_lib *tr_L;
static struct {
#define LT_REAL(r, fn, f, ...) r (*fn)(__VA_ARGS__);
    LT_CALLS(LT_REAL)
} tr_real;
#define LT_TW(r, fn, f, ...)                                                                       \
    GT_WRAPPER_AS(tr_real, tr_L->name, tr_L->sym[f], NULL, r, fn, __VA_ARGS__)
LT_CALLS(LT_TW)

/* with a trace open, lt's bound pointers become the wrappers */
static void lt_trace(struct gpu_lt *lt)
{
    if (!gpu_trace_on() || (tr_L && tr_L != lt->L))
        return;
    tr_L = lt->L;
#define LT_WRAP(r, fn, f, ...)                                                                     \
    if (lt->fn) {                                                                                  \
        tr_real.fn = lt->fn;                                                                       \
        lt->fn = tw_##fn;                                                                          \
    }
    LT_CALLS(LT_WRAP)
}

/* the symbol of call f, NULL where the binding names none or it is absent */
static void *sym(void *dl, const struct lt_lib *L, enum lt_fn f)
{
    return L->sym[f] ? dlsym(dl, L->sym[f]) : NULL;
}

static void lt_free(struct gpu_lt *lt)
{
    if (lt->pref && lt->pref_destroy)
        lt->pref_destroy(lt->pref);
    if (lt->handle && lt->destroy)
        lt->destroy(lt->handle);
    free(lt);
}

struct gpu_lt *gpu_lt_load(const struct lt_lib *L, const char *const *names, size_t nnames,
                           char *lib, size_t lib_len, char **err)
{
    *err = NULL;
    struct strbuf why = STRBUF_INIT;
    void *dl = gpu_dlopen_first(names, nnames, lib, lib_len, &why);
    if (!dl) {
        lib[0] = '\0';
        *err = xstrdup(why.buf ? why.buf : "not found");
        strbuf_release(&why);
        return NULL;
    }
    strbuf_release(&why);
    struct gpu_lt *lt = xcalloc(1, sizeof(*lt));
    lt->L = L;
    lt->create = (__typeof__(lt->create))sym(dl, L, LT_CREATE);
    lt->pref_create = (__typeof__(lt->pref_create))sym(dl, L, LT_PREF_CREATE);
    lt->desc_create = (__typeof__(lt->desc_create))sym(dl, L, LT_DESC_CREATE);
    lt->desc_set = (__typeof__(lt->desc_set))sym(dl, L, LT_DESC_SET);
    lt->layout_create = (__typeof__(lt->layout_create))sym(dl, L, LT_LAYOUT_CREATE);
    lt->pref_set = (__typeof__(lt->pref_set))sym(dl, L, LT_PREF_SET);
    lt->heuristic = (__typeof__(lt->heuristic))sym(dl, L, LT_HEURISTIC);
    lt->matmul = (__typeof__(lt->matmul))sym(dl, L, LT_MATMUL);
    lt->layout_destroy = (__typeof__(lt->layout_destroy))sym(dl, L, LT_LAYOUT_DESTROY);
    lt->desc_destroy = (__typeof__(lt->desc_destroy))sym(dl, L, LT_DESC_DESTROY);
    if (!L->keep_handles) {
        lt->pref_destroy = (__typeof__(lt->pref_destroy))sym(dl, L, LT_PREF_DESTROY);
        lt->destroy = (__typeof__(lt->destroy))sym(dl, L, LT_DESTROY);
    }
    for (int f = 0; f < LT_NFN; f++)
        if (L->sym[f] && !dlsym(dl, L->sym[f]) && f != LT_PREF_DESTROY && f != LT_DESTROY) {
            *err = xasprintf("%.400s lacks %s", lib, L->sym[f]);
            goto fail;
        }
    lt_trace(lt);
    if (L->heur_size > LT_HEUR_MAX || L->algo_size > sizeof(struct lt_algo)) {
        *err = xasprintf("%s: a heuristic result of %zu bytes is more than this build holds",
                         L->name, L->heur_size);
        goto fail;
    }
    int e = lt->create(&lt->handle);
    if (e) {
        *err = xasprintf("%s: status %d", L->sym[LT_CREATE], e);
        lt->handle = NULL;
        goto fail;
    }
    e = lt->pref_create(&lt->pref);
    if (e) {
        *err = xasprintf("%s: status %d", L->sym[LT_PREF_CREATE], e);
        lt->pref = NULL;
        goto fail;
    }
    return lt;
fail:
    lib[0] = '\0';
    lt_free(lt);
    return NULL;
}

static int lt_type(const struct lt_lib *L, enum gpu_dtype t)
{
    return t == GPU_F16 ? L->t_f16 : t == GPU_BF16 ? L->t_bf16 : L->t_f32;
}

static size_t esize(enum gpu_dtype t)
{
    return t == GPU_F32 ? 4 : 2;
}

uint32_t gpu_lt_align(const void *p, long ld, size_t es)
{
    uintptr_t a = (uintptr_t)p | (uintptr_t)(ld * (long)es) | 256u;
    return (uint32_t)(a & (~a + 1));
}

static void plan_release(struct gpu_lt *lt, struct lt_plan *p)
{
    if (p->desc)
        lt->desc_destroy(p->desc);
    if (p->la)
        lt->layout_destroy(p->la);
    if (p->lb)
        lt->layout_destroy(p->lb);
    if (p->lc)
        lt->layout_destroy(p->lc);
    memset(p, 0, sizeof(*p));
}

/* why a call answers GPU_LT_NO_ALGO, for bench and the report (the caller's
 * fallback runs: it must never look like the library's path) */
static int no_algo(struct gpu_lt *lt, struct gpu_backend *b, const char *what, int status)
{
    char st[32] = "";
    if (status)
        snprintf(st, sizeof(st), " (status %d)", status);
    snprintf(b->blas_lt_note, sizeof(b->blas_lt_note), "%s: %s%s; GEMM by %.200s", lt->L->name,
             what, st, b->blas_lib[0] ? b->blas_lib : "the backend's BLAS");
    return GPU_LT_NO_ALGO;
}

/* row-major C[m x n] = op(A) op(B) is column-major C^T = op(B)^T op(A)^T:
 * the library's A is our B and its B our A */
static int plan_build(struct gpu_lt *lt, struct lt_plan *p, enum gpu_dtype t, enum gpu_dtype ct,
                      int ta, int tb, int m, int n, int k, long lda, long ldb, long ldc, int bias,
                      enum gpu_dtype bias_t, int gelu)
{
    const struct lt_lib *L = lt->L;
    int32_t opa = tb ? L->op_t : L->op_n, opb = ta ? L->op_t : L->op_n;
    uint32_t epi = gelu ? L->epi_gelu_bias : bias ? L->epi_bias : L->epi_default;
    /* named always: the library's default is the output's type, and an fp32
     * bias under a 16-bit output is what the caller tries first */
    int32_t bias_type = lt_type(L, bias_t);
    int e = lt->desc_create(&p->desc, L->compute_32f, L->t_f32);
    if (e)
        p->desc = NULL;
    e = e ? e : lt->desc_set(p->desc, L->attr_transa, &opa, sizeof(opa));
    e = e ? e : lt->desc_set(p->desc, L->attr_transb, &opb, sizeof(opb));
    e = e ? e : lt->desc_set(p->desc, L->attr_epi, &epi, sizeof(epi));
    if (bias)
        e = e ? e : lt->desc_set(p->desc, L->attr_bias_type, &bias_type, sizeof(bias_type));
    e = e ? e
          : lt->layout_create(&p->la, lt_type(L, t), (uint64_t)(tb ? k : n), (uint64_t)(tb ? n : k),
                              ldb);
    e = e ? e
          : lt->layout_create(&p->lb, lt_type(L, t), (uint64_t)(ta ? m : k), (uint64_t)(ta ? k : m),
                              lda);
    e = e ? e : lt->layout_create(&p->lc, lt_type(L, ct), (uint64_t)n, (uint64_t)m, ldc);
    return e;
}

static int run(struct gpu_lt *lt, struct lt_plan *p, const struct lt_algo *algo, float alpha,
               const void *A, const void *B, float beta, void *C, gpu_stream s)
{
    return lt->matmul(lt->handle, p->desc, &alpha, B, p->la, A, p->lb, &beta, C, p->lc, C, p->lc,
                      algo, lt->ws, lt->ws_len, s);
}

/* one timed run of a candidate from a cold L2: the flush buffer written
 * (and finished) first, outside the events; -1 if a call failed */
static int timed_cold(struct gpu_lt *lt, struct gpu_backend *b, struct lt_plan *p,
                      const struct lt_algo *algo, const void *A, const void *B, void *tmp,
                      void *flush, gpu_stream s, float *ms)
{
    if (b->stream_sync(b, s) || b->memset(b, flush, 0x5a, LT_FLUSH) || b->device_sync(b))
        return -1;
    if (b->event_record(b, lt->ev[0], s) || run(lt, p, algo, 1.0f, A, B, 0.0f, tmp, s) ||
        b->event_record(b, lt->ev[1], s) || b->event_sync(b, lt->ev[1]))
        return -1;
    return b->event_elapsed_ms(b, ms, lt->ev[0], lt->ev[1]) ? -1 : 0;
}

/* time each candidate on the real operands into a scratch output (beta 0,
 * so the caller's C is untouched), each run from a cold L2 (no flush
 * buffer: back to back, as before); keep the fastest that ran */
static void tune(struct gpu_lt *lt, struct gpu_backend *b, struct lt_plan *p,
                 const struct lt_cand *cand, int nc, const void *A, const void *B, size_t out_bytes,
                 gpu_stream s)
{
    void *tmp = NULL, *flush = NULL;
    if (nc < 2 ||
        (!lt->ev[0] && (b->event_create(b, &lt->ev[0]) || b->event_create(b, &lt->ev[1]))))
        return;
    if (b->malloc(b, &tmp, out_bytes))
        return;
    if (b->malloc(b, &flush, LT_FLUSH))
        flush = NULL;
    float best = 0;
    for (int i = 0; i < nc; i++) {
        if (run(lt, p, &cand[i].algo, 1.0f, A, B, 0.0f, tmp, s))
            continue;
        int bad = 0;
        float ms = 0;
        if (flush) {
            for (int r = 0; r < LT_REPS && !bad; r++) {
                float one = 0;
                bad = timed_cold(lt, b, p, &cand[i].algo, A, B, tmp, flush, s, &one);
                ms += one;
            }
        } else {
            b->event_record(b, lt->ev[0], s);
            for (int r = 0; r < LT_REPS && !bad; r++)
                bad = run(lt, p, &cand[i].algo, 1.0f, A, B, 0.0f, tmp, s);
            b->event_record(b, lt->ev[1], s);
            bad = bad || b->event_sync(b, lt->ev[1]) ||
                  b->event_elapsed_ms(b, &ms, lt->ev[0], lt->ev[1]);
        }
        if (bad)
            continue;
        if (!p->by_time || ms < best) {
            best = ms;
            p->algo = cand[i].algo;
            p->ws = cand[i].ws;
            p->by_time = 1;
        }
    }
    b->stream_sync(b, s);
    b->free(b, tmp);
    if (flush)
        b->free(b, flush);
}

/* the preference for a plan (workspace, and the operands' alignment where
 * the library takes it), then the heuristic's candidates that passed its
 * check and fit the workspace, in its order; the status of a failed call */
static int candidates(struct gpu_lt *lt, struct lt_plan *p, const long long *key,
                      struct lt_cand *cand, int *ok)
{
    const struct lt_lib *L = lt->L;
    uint64_t wsmax = lt->ws_len;
    uint32_t al[4] = {(uint32_t)key[12], (uint32_t)key[11], (uint32_t)key[13], (uint32_t)key[13]};
    int e = lt->pref_set(lt->pref, L->pref_ws, &wsmax, sizeof(wsmax));
    for (int i = 0; i < 4 && !e && L->pref_align >= 0; i++)
        e = lt->pref_set(lt->pref, L->pref_align + i, &al[i], sizeof(al[i]));
    unsigned char res[LT_CAND * LT_HEUR_MAX];
    int nc = 0;
    *ok = 0;
    if (e)
        return e;
    e = lt->heuristic(lt->handle, p->desc, p->la, p->lb, p->lc, p->lc, lt->pref, LT_CAND, res, &nc);
    for (int i = 0; i < nc && i < LT_CAND && !e; i++) {
        const unsigned char *r = res + (size_t)i * L->heur_size;
        int32_t state;
        memcpy(&state, r + L->heur_state, sizeof(state));
        memset(&cand[*ok], 0, sizeof(cand[*ok]));
        memcpy(&cand[*ok].algo, r + L->heur_algo, L->algo_size);
        memcpy(&cand[*ok].ws, r + L->heur_ws, sizeof(size_t));
        if (state == 0 && cand[*ok].ws <= lt->ws_len) /* keep the ones that ran the check */
            ++*ok;
    }
    return e;
}

int gpu_lt_gemm(struct gpu_lt *lt, struct gpu_backend *b, int tune_ok, enum gpu_dtype t,
                enum gpu_dtype ct, int ta, int tb, int m, int n, int k, float alpha, const void *A,
                long lda, const void *B, long ldb, float beta, void *C, long ldc, const void *bias,
                enum gpu_dtype bias_t, int epi, gpu_stream s)
{
    int gelu = epi == GPU_LT_GELU;
    if (gelu && !bias)
        return GPU_LT_NO_ALGO; /* only GELU after a bias is planned */
    if (tune_ok && !lt->ws_tried) {
        lt->ws_tried = 1;
        if (b->malloc(b, &lt->ws, LT_WS) == 0)
            lt->ws_len = LT_WS;
        else
            lt->ws = NULL;
    }
    long long key[16] = {t,
                         ct,
                         ta,
                         tb,
                         m,
                         n,
                         k,
                         lda,
                         ldb,
                         ldc,
                         !!bias + 2 * gelu + 4 * (bias ? (int)bias_t : 0),
                         gpu_lt_align(A, lda, esize(t)),
                         gpu_lt_align(B, ldb, esize(t)),
                         gpu_lt_align(C, ldc, esize(ct)),
                         bias ? gpu_lt_align(bias, 0, esize(bias_t)) : 0,
                         (long long)lt->ws_len};
    struct lt_plan *p = NULL;
    for (int i = 0; i < lt->n && !p; i++)
        if (memcmp(lt->plan[i].key, key, sizeof(key)) == 0)
            p = &lt->plan[i];
    if (!p) {
        if (lt->n == LT_PLANS)
            return no_algo(lt, b, "the plan cache is full", 0);
        p = &lt->plan[lt->n];
        memcpy(p->key, key, sizeof(key));
        int e = plan_build(lt, p, t, ct, ta, tb, m, n, k, lda, ldb, ldc, !!bias, bias_t, gelu);
        if (e) {
            plan_release(lt, p);
            return no_algo(lt, b, "refused the matmul descriptor or a layout", e);
        }
        lt->n++;
        p->ws = (size_t)-1; /* no algorithm chosen yet */
    }
    if (p->refused)
        return GPU_LT_NO_ALGO;
    if (bias) {
        int e = lt->desc_set(p->desc, lt->L->attr_bias_ptr, &bias, sizeof(bias));
        if (e)
            return no_algo(lt, b, "refused the bias pointer", e);
    }
    if (p->ws == (size_t)-1 || (tune_ok && !p->timed)) {
        struct lt_cand cand[LT_CAND];
        int ok = 0, e = candidates(lt, p, key, cand, &ok);
        if ((e || ok == 0) && p->ws == (size_t)-1) {
            p->refused = 1;
            return no_algo(lt, b, e ? "heuristic failed" : "heuristic: no algorithm", e);
        }
        if (e || ok == 0)
            return run(lt, p, &p->algo, alpha, A, B, beta, C, s);
        if (p->ws == (size_t)-1) {
            p->algo = cand[0].algo;
            p->ws = cand[0].ws;
        }
        if (tune_ok) {
            size_t out = ((size_t)ldc * (size_t)(m - 1) + (size_t)n) * esize(ct);
            tune(lt, b, p, cand, ok, A, B, out, s);
            p->timed = 1; /* one candidate, or none ran: the heuristic's stays */
        }
    }
    int e = run(lt, p, &p->algo, alpha, A, B, beta, C, s);
    if (e && !p->ran) { /* never ran: the library refuses it, not a device fault */
        p->refused = 1;
        return no_algo(lt, b, "matmul refused the plan's first run", e);
    }
    if (e)
        gpu_set_err(b, "%s: status %d", lt->L->sym[LT_MATMUL], e);
    p->ran |= !e;
    return e;
}

void gpu_lt_close(struct gpu_lt *lt)
{
    if (!lt)
        return;
    for (int i = 0; i < lt->n; i++)
        plan_release(lt, &lt->plan[i]);
    lt_free(lt);
}
