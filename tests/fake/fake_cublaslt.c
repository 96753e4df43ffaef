/* fake_cublaslt.c - a fake libcublasLt for the plan building of
 * src/gpu/blaslt_cuda.c (tests/unit/test_blaslt.c): a descriptor keeps the
 * epilogue and the bias data type it was given (attribute numbers as
 * cublasLt.h: 7 epilogue, 26 bias data type, 8 bias pointer); the heuristic
 * offers one algorithm, none for the GELU epilogue (36) while
 * FAKE_LT_REFUSE_GELU=1 and none for an fp32 bias (type 0) while
 * FAKE_LT_REFUSE_F32_BIAS=1 (a library that refuses them), FAKE_LT_CANDIDATES=n
 * algorithms (up to 8, the first word of each its index) where set (the
 * tuner's timing); cublasLtMatmul runs nothing and records what the
 * descriptor asked, and the algorithm's index, in fake_lt_last, which the
 * test reads through dlsym. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fake_desc {
    int epi, bias_type;
    const void *bias;
};

/* what the last cublasLtMatmul was asked: epilogue, bias type (-1 = never
 * set), whether a bias pointer was set, the algorithm's index; calls counts
 * them, heuristics the heuristic's answers */
struct fake_lt_last {
    int epi, bias_type, has_bias, calls, heuristics, algo;
};
struct fake_lt_last fake_lt_last;

typedef struct {
    uint64_t data[8];
} algo_t;
typedef struct {
    algo_t algo;
    size_t workspaceSize;
    int state;
    float wavesCount;
    int reserved[4];
} heur_t;

/* the handle and the preference: never freed by the caller */
static char handle, pref;

int cublasLtCreate(void **h);
int cublasLtCreate(void **h)
{
    *h = &handle;
    return 0;
}

int cublasLtMatmulDescCreate(struct fake_desc **d, int compute, int scale);
int cublasLtMatmulDescCreate(struct fake_desc **d, int compute, int scale)
{
    (void)compute, (void)scale;
    *d = calloc(1, sizeof(**d));
    (*d)->epi = 1;
    (*d)->bias_type = -1;
    return 0;
}

int cublasLtMatmulDescDestroy(struct fake_desc *d);
int cublasLtMatmulDescDestroy(struct fake_desc *d)
{
    free(d);
    return 0;
}

int cublasLtMatmulDescSetAttribute(struct fake_desc *d, int attr, const void *buf, size_t n);
int cublasLtMatmulDescSetAttribute(struct fake_desc *d, int attr, const void *buf, size_t n)
{
    if (attr == 7 && n == 4)
        memcpy(&d->epi, buf, 4);
    else if (attr == 26 && n == 4)
        memcpy(&d->bias_type, buf, 4);
    else if (attr == 8 && n == sizeof(void *))
        memcpy(&d->bias, buf, n);
    return 0;
}

int cublasLtMatrixLayoutCreate(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld);
int cublasLtMatrixLayoutCreate(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld)
{
    (void)type, (void)rows, (void)cols, (void)ld;
    *l = malloc(1);
    return 0;
}

int cublasLtMatrixLayoutDestroy(void *l);
int cublasLtMatrixLayoutDestroy(void *l)
{
    free(l);
    return 0;
}

int cublasLtMatmulPreferenceCreate(void **p);
int cublasLtMatmulPreferenceCreate(void **p)
{
    *p = &pref;
    return 0;
}

int cublasLtMatmulPreferenceSetAttribute(void *p, int attr, const void *buf, size_t n);
int cublasLtMatmulPreferenceSetAttribute(void *p, int attr, const void *buf, size_t n)
{
    (void)p, (void)attr, (void)buf, (void)n;
    return 0;
}

int cublasLtMatmulAlgoGetHeuristic(void *h, struct fake_desc *d, void *a, void *b, void *c,
                                   void *dd, void *pref, int want, heur_t *out, int *got);
int cublasLtMatmulAlgoGetHeuristic(void *h, struct fake_desc *d, void *a, void *b, void *c,
                                   void *dd, void *pref, int want, heur_t *out, int *got)
{
    (void)h, (void)a, (void)b, (void)c, (void)dd, (void)pref;
    const char *gelu = getenv("FAKE_LT_REFUSE_GELU"), *f32 = getenv("FAKE_LT_REFUSE_F32_BIAS");
    *got = 0;
    fake_lt_last.heuristics++;
    if (want < 1 || (d->epi == 36 && gelu && strcmp(gelu, "1") == 0))
        return 0;
    if (d->bias_type == 0 && f32 && strcmp(f32, "1") == 0)
        return 0;
    const char *nc = getenv("FAKE_LT_CANDIDATES");
    int n = nc ? atoi(nc) : 1;
    n = n < 1 ? 1 : n > 8 ? 8 : n > want ? want : n;
    memset(out, 0, (size_t)n * sizeof(*out));
    for (int i = 0; i < n; i++)
        out[i].algo.data[0] = (uint64_t)i;
    *got = n;
    return 0;
}

int cublasLtMatmul(void *h, struct fake_desc *d, const void *alpha, const void *A, void *la,
                   const void *B, void *lb, const void *beta, const void *C, void *lc, void *D,
                   void *ld, const void *algo, void *ws, size_t wsn, void *stream);
int cublasLtMatmul(void *h, struct fake_desc *d, const void *alpha, const void *A, void *la,
                   const void *B, void *lb, const void *beta, const void *C, void *lc, void *D,
                   void *ld, const void *algo, void *ws, size_t wsn, void *stream)
{
    (void)h, (void)alpha, (void)A, (void)la, (void)B, (void)lb, (void)beta, (void)C, (void)lc;
    (void)D, (void)ld, (void)ws, (void)wsn, (void)stream;
    fake_lt_last.algo = (int)((const algo_t *)algo)->data[0];
    fake_lt_last.epi = d->epi;
    fake_lt_last.bias_type = d->bias_type;
    fake_lt_last.has_bias = d->bias != NULL;
    fake_lt_last.calls++;
    return 0;
}
