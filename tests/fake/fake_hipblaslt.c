/* fake_hipblaslt.c - a fake libhipblaslt for the HIP backend's binding
 * (src/gpu/blaslt_hip.c, tests/unit/test_blaslt_hip.c). Every call appends
 * its name without the "hipblasLt" prefix to fake_hipblaslt.log (a
 * descriptor attribute as "DescSet:<attr>=<value>", numbers as hipblaslt.h:
 * 0 TRANSA, 1 TRANSB, 2 EPILOGUE, 3 BIAS_POINTER, 4 BIAS_DATA_TYPE), which the
 * test reads through dlsym; fake_hipblaslt.live counts the objects created
 * and not destroyed (handle, preference, descriptors, layouts).
 * FAKE_HIPBLASLT_FAIL=<name>: while set, every call of that name (as logged,
 * e.g. "Create", "MatrixLayoutCreate", "DescSet:2", "Matmul") returns status 3
 * (HIPBLAS_STATUS_INVALID_VALUE) and creates nothing; FAKE_HIPBLASLT_ALGOS=n
 * the heuristic's answers (default 1; 0: none). Matmul runs nothing. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fake_hipblaslt {
    char log[4096];
    int live, matmuls;
};
struct fake_hipblaslt fake_hipblaslt;

typedef struct {
    uint8_t data[16];
    size_t max_workspace_bytes;
} algo_t;
typedef struct {
    algo_t algo;
    size_t workspaceSize;
    unsigned state;
    float wavesCount;
    int reserved[4];
} heur_t;

/* log the call; its status: 3 where it is the one to fail */
static int call(const char *name)
{
    size_t n = strlen(fake_hipblaslt.log);
    snprintf(fake_hipblaslt.log + n, sizeof(fake_hipblaslt.log) - n, "%s%s", n ? " " : "", name);
    const char *f = getenv("FAKE_HIPBLASLT_FAIL");
    size_t fl = f ? strlen(f) : 0;
    if (fl && strncmp(name, f, fl) == 0 && strchr(":=", name[fl])) /* ":=" holds '\0' too */
        return 3;
    return 0;
}

/* an object for *o unless the call fails */
static int create(const char *name, void **o)
{
    int e = call(name);
    if (e)
        return e;
    *o = malloc(1);
    fake_hipblaslt.live++;
    return 0;
}
static int destroy(const char *name, void *o)
{
    free(o);
    fake_hipblaslt.live--;
    return call(name);
}

int hipblasLtCreate(void **h);
int hipblasLtCreate(void **h)
{
    return create("Create", h);
}
int hipblasLtDestroy(void *h);
int hipblasLtDestroy(void *h)
{
    return destroy("Destroy", h);
}
int hipblasLtMatmulPreferenceCreate(void **p);
int hipblasLtMatmulPreferenceCreate(void **p)
{
    return create("MatmulPreferenceCreate", p);
}
int hipblasLtMatmulPreferenceDestroy(void *p);
int hipblasLtMatmulPreferenceDestroy(void *p)
{
    return destroy("MatmulPreferenceDestroy", p);
}
int hipblasLtMatmulPreferenceSetAttribute(void *p, unsigned attr, const void *buf, size_t n);
int hipblasLtMatmulPreferenceSetAttribute(void *p, unsigned attr, const void *buf, size_t n)
{
    (void)p, (void)buf, (void)n;
    char name[64];
    snprintf(name, sizeof(name), "MatmulPreferenceSetAttribute:%u", attr);
    return call(name);
}
int hipblasLtMatmulDescCreate(void **d, unsigned compute, unsigned scale);
int hipblasLtMatmulDescCreate(void **d, unsigned compute, unsigned scale)
{
    (void)compute, (void)scale;
    return create("MatmulDescCreate", d);
}
int hipblasLtMatmulDescDestroy(void *d);
int hipblasLtMatmulDescDestroy(void *d)
{
    return destroy("MatmulDescDestroy", d);
}
int hipblasLtMatmulDescSetAttribute(void *d, unsigned attr, const void *buf, size_t n);
int hipblasLtMatmulDescSetAttribute(void *d, unsigned attr, const void *buf, size_t n)
{
    (void)d;
    char name[64];
    unsigned v = 0;
    if (n == 4)
        memcpy(&v, buf, 4);
    if (attr == 3)
        snprintf(name, sizeof(name), "DescSet:%u", attr); /* a pointer: no value */
    else
        snprintf(name, sizeof(name), "DescSet:%u=%u", attr, v);
    return call(name);
}
int hipblasLtMatrixLayoutCreate(void **l, unsigned type, uint64_t rows, uint64_t cols, int64_t ld);
int hipblasLtMatrixLayoutCreate(void **l, unsigned type, uint64_t rows, uint64_t cols, int64_t ld)
{
    (void)type, (void)rows, (void)cols, (void)ld;
    return create("MatrixLayoutCreate", l);
}
int hipblasLtMatrixLayoutDestroy(void *l);
int hipblasLtMatrixLayoutDestroy(void *l)
{
    return destroy("MatrixLayoutDestroy", l);
}
int hipblasLtMatmulAlgoGetHeuristic(void *h, void *d, void *a, void *b, void *c, void *dd,
                                    void *pref, int want, heur_t *out, int *got);
int hipblasLtMatmulAlgoGetHeuristic(void *h, void *d, void *a, void *b, void *c, void *dd,
                                    void *pref, int want, heur_t *out, int *got)
{
    (void)h, (void)d, (void)a, (void)b, (void)c, (void)dd, (void)pref;
    *got = 0;
    int e = call("MatmulAlgoGetHeuristic");
    if (e)
        return e;
    const char *na = getenv("FAKE_HIPBLASLT_ALGOS");
    int n = na ? atoi(na) : 1;
    n = n < 0 ? 0 : n > want ? want : n;
    memset(out, 0, (size_t)n * sizeof(*out));
    for (int i = 0; i < n; i++)
        out[i].algo.data[0] = (uint8_t)i;
    *got = n;
    return 0;
}
int hipblasLtMatmul(void *h, void *d, const void *alpha, const void *A, void *la, const void *B,
                    void *lb, const void *beta, const void *C, void *lc, void *D, void *ldd,
                    const algo_t *algo, void *ws, size_t wsn, void *stream);
int hipblasLtMatmul(void *h, void *d, const void *alpha, const void *A, void *la, const void *B,
                    void *lb, const void *beta, const void *C, void *lc, void *D, void *ldd,
                    const algo_t *algo, void *ws, size_t wsn, void *stream)
{
    (void)h, (void)d, (void)alpha, (void)A, (void)la, (void)B, (void)lb, (void)beta, (void)C;
    (void)lc, (void)D, (void)ldd, (void)algo, (void)ws, (void)wsn, (void)stream;
    int e = call("Matmul");
    fake_hipblaslt.matmuls += !e;
    return e;
}
