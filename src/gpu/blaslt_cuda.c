/* blaslt_cuda.c - see blaslt_cuda.h. cublasGemmEx picks one kernel per shape
 * from its own heuristic; for the expert's GEMMs (M = 50 rows against 8 MB of
 * weights) that kernel reads the weights far below the copy rate, so here the
 * heuristic's first LT_CAND candidates are timed on the real operands and the
 * fastest is kept per shape, operand alignment and epilogue. Each timed run
 * starts with the L2 cache flushed: in the pass a layer's weights come from
 * device memory (a step reads 600 MB, the L2 holds 50), so a candidate timed
 * on weights left in the L2 by the run before it is timed on a case the pass
 * never has. */
#include "blaslt_cuda.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublaslt_api.h"

#define LT_FNS(X)                                                                                  \
    X(cublasLtCreate)                                                                              \
    X(cublasLtMatmulDescCreate)                                                                    \
    X(cublasLtMatmulDescDestroy)                                                                   \
    X(cublasLtMatmulDescSetAttribute)                                                              \
    X(cublasLtMatrixLayoutCreate)                                                                  \
    X(cublasLtMatrixLayoutDestroy) X(cublasLtMatmulPreferenceCreate)                               \
        X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulAlgoGetHeuristic)                  \
            X(cublasLtMatmul)

#define LT_CAND 32            /* heuristic candidates timed per shape */
#define LT_REPS 5             /* timed runs per candidate */
#define LT_PLANS 256          /* shapes cached; beyond that the caller's cuBLAS path runs */
#define LT_WS (32u << 20)     /* workspace offered to the algorithms */
#define LT_FLUSH (128u << 20) /* written before each timed run: several times any L2 */

struct lt_plan {
    long long key[16];
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    size_t ws;
    int timed;   /* the candidates were looked at outside capture */
    int refused; /* the heuristic had no algorithm (types, epilogue): asked once */
    int by_time; /* and timing chose among two or more */
};

#define DECL(fn) __typeof__(&fn) fn;
struct gpu_lt {
    LT_FNS(DECL)
    cublasLtHandle_t handle;
    cublasLtMatmulPreference_t pref;
    void *ws;
    size_t ws_len;
    int ws_tried;
    gpu_event ev[2];
    struct lt_plan plan[LT_PLANS];
    int n;
};

struct gpu_lt *gpu_lt_open(char *lib, size_t lib_len, char **err)
{
    *err = NULL;
    /* ROCM_VLA_DOCTOR_CUBLASLT_LIB: only that file (tests: an absent library) */
    const char *forced = getenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB");
    const char *const names[] = {forced ? forced : "libcublasLt.so",
                                 forced ? NULL : "libcublasLt.so.13",
                                 forced ? NULL : "libcublasLt.so.12",
                                 forced ? NULL : "/usr/local/cuda/lib64/libcublasLt.so"};
    struct strbuf why = STRBUF_INIT;
    void *h = gpu_dlopen_first(names, ARRAY_SIZE(names), lib, lib_len, &why);
    if (!h) {
        lib[0] = '\0';
        *err = xstrdup(why.buf ? why.buf : "not found");
        strbuf_release(&why);
        return NULL;
    }
    strbuf_release(&why);
    struct gpu_lt *lt = xcalloc(1, sizeof(*lt));
#define LOADLT(fn) lt->fn = (__typeof__(&fn))dlsym(h, #fn);
    LT_FNS(LOADLT)
#define NEEDLT(fn)                                                                                 \
    if (!lt->fn) {                                                                                 \
        *err = xasprintf("%.400s lacks %s", lib, #fn);                                             \
        goto fail;                                                                                 \
    }
    LT_FNS(NEEDLT)
    int e = lt->cublasLtCreate(&lt->handle);
    if (!e)
        e = lt->cublasLtMatmulPreferenceCreate(&lt->pref);
    if (e) {
        *err = xasprintf("cublasLtCreate: status %d", e);
        goto fail;
    }
    return lt;
fail:
    lib[0] = '\0';
    free(lt);
    return NULL;
}

static int lt_type(enum gpu_dtype t)
{
    return t == GPU_F16 ? CUDA_R_16F : t == GPU_BF16 ? CUDA_R_16BF : CUDA_R_32F;
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
        lt->cublasLtMatmulDescDestroy(p->desc);
    if (p->la)
        lt->cublasLtMatrixLayoutDestroy(p->la);
    if (p->lb)
        lt->cublasLtMatrixLayoutDestroy(p->lb);
    if (p->lc)
        lt->cublasLtMatrixLayoutDestroy(p->lc);
    memset(p, 0, sizeof(*p));
}

/* row-major C[m x n] = op(A) op(B) is column-major C^T = op(B)^T op(A)^T:
 * the library's A is our B and its B our A */
static int plan_build(struct gpu_lt *lt, struct lt_plan *p, enum gpu_dtype t, enum gpu_dtype ct,
                      int ta, int tb, int m, int n, int k, long lda, long ldb, long ldc, int bias,
                      enum gpu_dtype bias_t, int gelu)
{
    int32_t opa = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    uint32_t epi = gelu   ? CUBLASLT_EPILOGUE_GELU_BIAS
                   : bias ? CUBLASLT_EPILOGUE_BIAS
                          : CUBLASLT_EPILOGUE_DEFAULT;
    /* named always: the library's default is the output's type, and an fp32
     * bias under a 16-bit output is what the caller tries first */
    int32_t bias_type = lt_type(bias_t);
    int e = lt->cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    e = e ? e
          : lt->cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa,
                                               sizeof(opa));
    e = e ? e
          : lt->cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb,
                                               sizeof(opb));
    e = e ? e
          : lt->cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
                                               sizeof(epi));
    if (bias)
        e = e ? e
              : lt->cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                                   &bias_type, sizeof(bias_type));
    e = e ? e
          : lt->cublasLtMatrixLayoutCreate(&p->la, lt_type(t), (uint64_t)(tb ? k : n),
                                           (uint64_t)(tb ? n : k), ldb);
    e = e ? e
          : lt->cublasLtMatrixLayoutCreate(&p->lb, lt_type(t), (uint64_t)(ta ? m : k),
                                           (uint64_t)(ta ? k : m), lda);
    e = e ? e : lt->cublasLtMatrixLayoutCreate(&p->lc, lt_type(ct), (uint64_t)n, (uint64_t)m, ldc);
    return e;
}

static int run(struct gpu_lt *lt, struct lt_plan *p, const cublasLtMatmulAlgo_t *algo, float alpha,
               const void *A, const void *B, float beta, void *C, gpu_stream s)
{
    return lt->cublasLtMatmul(lt->handle, p->desc, &alpha, B, p->la, A, p->lb, &beta, C, p->lc, C,
                              p->lc, algo, lt->ws, lt->ws_len, (CUstream)s);
}

/* one timed run of a candidate from a cold L2: the flush buffer written
 * (and finished) first, outside the events; -1 if a call failed */
static int timed_cold(struct gpu_lt *lt, struct gpu_backend *b, struct lt_plan *p,
                      const cublasLtMatmulAlgo_t *algo, const void *A, const void *B, void *tmp,
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
                 const cublasLtMatmulHeuristicResult_t *cand, int nc, const void *A, const void *B,
                 size_t out_bytes, gpu_stream s)
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
            p->ws = cand[i].workspaceSize;
            p->by_time = 1;
        }
    }
    b->stream_sync(b, s);
    b->free(b, tmp);
    if (flush)
        b->free(b, flush);
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
            return GPU_LT_NO_ALGO;
        p = &lt->plan[lt->n];
        memcpy(p->key, key, sizeof(key));
        if (plan_build(lt, p, t, ct, ta, tb, m, n, k, lda, ldb, ldc, !!bias, bias_t, gelu)) {
            plan_release(lt, p);
            return GPU_LT_NO_ALGO;
        }
        lt->n++;
        p->ws = (size_t)-1; /* no algorithm chosen yet */
    }
    if (p->refused)
        return GPU_LT_NO_ALGO;
    if (bias && lt->cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                   &bias, sizeof(bias)))
        return GPU_LT_NO_ALGO;
    if (p->ws == (size_t)-1 || (tune_ok && !p->timed)) {
        uint64_t wsmax = lt->ws_len;
        uint32_t al[4] = {(uint32_t)key[12], (uint32_t)key[11], (uint32_t)key[13],
                          (uint32_t)key[13]};
        int e = lt->cublasLtMatmulPreferenceSetAttribute(
            lt->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsmax, sizeof(wsmax));
        for (int i = 0; i < 4 && !e; i++)
            e = lt->cublasLtMatmulPreferenceSetAttribute(
                lt->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i, &al[i], sizeof(al[i]));
        cublasLtMatmulHeuristicResult_t cand[LT_CAND];
        int nc = 0;
        if (!e)
            e = lt->cublasLtMatmulAlgoGetHeuristic(lt->handle, p->desc, p->la, p->lb, p->lc, p->lc,
                                                   lt->pref, LT_CAND, cand, &nc);
        int ok = 0;
        for (int i = 0; i < nc; i++) /* keep the ones that ran the check */
            if (cand[i].state == 0 && cand[i].workspaceSize <= lt->ws_len)
                cand[ok++] = cand[i];
        if ((e || ok == 0) && p->ws == (size_t)-1) {
            p->refused = 1;
            return GPU_LT_NO_ALGO;
        }
        if (e || ok == 0)
            return run(lt, p, &p->algo, alpha, A, B, beta, C, s);
        if (p->ws == (size_t)-1) {
            p->algo = cand[0].algo;
            p->ws = cand[0].workspaceSize;
        }
        if (tune_ok) {
            size_t out = ((size_t)ldc * (size_t)(m - 1) + (size_t)n) * esize(ct);
            tune(lt, b, p, cand, ok, A, B, out, s);
            p->timed = 1; /* one candidate, or none ran: the heuristic's stays */
        }
    }
    int e = run(lt, p, &p->algo, alpha, A, B, beta, C, s);
    if (e)
        gpu_set_err(b, "cublasLtMatmul: status %d", e);
    return e;
}

void gpu_lt_close(struct gpu_lt *lt)
{
    if (!lt)
        return;
    for (int i = 0; i < lt->n; i++)
        plan_release(lt, &lt->plan[i]);
    free(lt);
}
