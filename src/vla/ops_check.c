/* ops_check.c - fused ops against their compositions (ops_check.h). */
#include "ops_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "rng.h"

/* the two decoders share one shape (the expert attends to the backbone's KV) */
#define ODD_TOWER                                                                                  \
    "  width: 72\n  layers: 2\n  heads: 3\n  kv_heads: 1\n  head_dim: 72\n  mlp: 100\n"            \
    "  mlp_act: geglu\n"

const char vla_odd_preset_yaml[] =
    "name: odd\ndescription: odd shapes for the kernel tests\n"
    "vision:\n  image: 112\n  patch: 16\n  width: 216\n  depth: 2\n  heads: 3\n  mlp: 100\n"
    "  mlp_act: gelu_tanh\n  merge: 1\n  cameras: 2\n"
    "backbone:\n" ODD_TOWER "  vocab: 97\n  rope_theta: 10000\n"
    "expert:\n" ODD_TOWER "action:\n  chunk: 7\n  dim: 5\n  steps: 3\n  text_tokens: 5\n"
    "  mean: 0\n  std: 1\n  low: -10\n  high: 10\n";

struct ctx {
    const struct vla_ops *ref, *test;
    double tol;
    FILE *log;
    int fails;
    uint64_t seed;
};

static float *host_rand(struct ctx *c, size_t n)
{
    float *h = xmalloc(n * sizeof(float));
    vla_rng_fill_normal(h, n, c->seed++, "ops_check", 0.0, 1.0);
    return h;
}

/* a device copy on the test backend */
static float *dev(const struct vla_ops *o, const float *h, size_t n)
{
    float *d = o->alloc(o->ctx, n);
    o->upload(o->ctx, d, h, n);
    return d;
}

static float *fetch(const struct vla_ops *o, const float *d, size_t n)
{
    float *h = xmalloc(n * sizeof(float));
    o->download(o->ctx, h, d, n);
    o->sync(o->ctx);
    return h;
}

/* max |got - want| over max |want|, reported and judged */
static void judge(struct ctx *c, const char *what, const float *got, const float *want, size_t n)
{
    double mx = 0, err = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        err = d > err || isnan(d) ? d : err;
        mx = fabs(want[i]) > mx ? fabs(want[i]) : mx;
    }
    double rel = mx > 0 ? err / mx : err;
    int ok = rel <= c->tol; /* NaN fails */
    c->fails += !ok;
    if (c->log)
        fprintf(c->log, "%s %-44s max error %.3g of max |ref| %.3g (%.3g, bound %.3g)\n",
                ok ? "ok  " : "FAIL", what, err, mx, rel, c->tol);
}

static void row_bias(const struct vla_ops *r, float *y, const float *bias, int T, int N)
{
    for (int t = 0; t < T; t++)
        r->add(r->ctx, y + (size_t)t * N, bias, (size_t)N);
}

static void check_bias_act(struct ctx *c, int T, int N, enum vla_bias_act a)
{
    size_t n = (size_t)T * N;
    float *y = host_rand(c, n), *b = host_rand(c, (size_t)N);
    float *want = xmalloc(n * sizeof(float));
    memcpy(want, y, n * sizeof(float));
    row_bias(c->ref, want, b, T, N);
    if (a == VLA_BIAS_GELU_TANH)
        c->ref->gelu_tanh(c->ref->ctx, want, n);
    else if (a == VLA_BIAS_SILU)
        c->ref->silu(c->ref->ctx, want, n);
    float *dy = dev(c->test, y, n), *db = dev(c->test, b, (size_t)N);
    c->test->bias_act(c->test->ctx, dy, db, T, N, a);
    float *got = fetch(c->test, dy, n);
    char what[64];
    static const char *const an[] = {"none", "gelu_tanh", "silu"};
    snprintf(what, sizeof(what), "bias_act %s %d x %d", an[a], T, N);
    judge(c, what, got, want, n);
    c->test->release(c->test->ctx, dy), c->test->release(c->test->ctx, db);
    free(y), free(b), free(want), free(got);
}

static void check_bias_layernorm(struct ctx *c, int T, int D, int with_bias)
{
    size_t n = (size_t)T * D;
    float *x = host_rand(c, n), *b = host_rand(c, (size_t)D);
    float *lw = host_rand(c, (size_t)D), *lb = host_rand(c, (size_t)D);
    float *wx = xmalloc(n * sizeof(float)), *wy = xmalloc(n * sizeof(float));
    memcpy(wx, x, n * sizeof(float));
    if (with_bias)
        row_bias(c->ref, wx, b, T, D);
    c->ref->layernorm(c->ref->ctx, wx, lw, lb, wy, T, D, 1e-6f);
    float *dx = dev(c->test, x, n), *dbias = dev(c->test, b, (size_t)D);
    float *dw = dev(c->test, lw, (size_t)D), *dlb = dev(c->test, lb, (size_t)D);
    float *dy = c->test->alloc(c->test->ctx, n);
    c->test->bias_layernorm(c->test->ctx, dx, with_bias ? dbias : NULL, dw, dlb, dy, T, D, 1e-6f);
    float *gx = fetch(c->test, dx, n), *gy = fetch(c->test, dy, n);
    char what[64];
    snprintf(what, sizeof(what), "bias_layernorm %d x %d%s: x", T, D,
             with_bias ? "" : " (no bias)");
    judge(c, what, gx, wx, n);
    snprintf(what, sizeof(what), "bias_layernorm %d x %d%s: y", T, D,
             with_bias ? "" : " (no bias)");
    judge(c, what, gy, wy, n);
    float *ds[] = {dx, dbias, dw, dlb, dy};
    for (int i = 0; i < 5; i++)
        c->test->release(c->test->ctx, ds[i]);
    free(x), free(b), free(lw), free(lb), free(wx), free(wy), free(gx), free(gy);
}

/* y = rmsnorm(x) and then y W^T: the norm's 16-bit copy is what the GEMM
 * reads in 16-bit mode (ops_gpu_elem.c); off 1: x one float past an
 * alignment of 16 bytes (vla_rmsnorm's scalar walk) */
static void check_rmsnorm(struct ctx *c, int T, int D, int off)
{
    size_t n = (size_t)T * D, nw = (size_t)37 * D;
    float *x = host_rand(c, n + 1), *g = host_rand(c, (size_t)D), *w = host_rand(c, nw);
    float *wy = xmalloc(n * sizeof(float)), *wz = xmalloc((size_t)T * 37 * sizeof(float));
    c->ref->rmsnorm(c->ref->ctx, x + off, g, wy, T, D, 1e-6f);
    c->ref->matmul(c->ref->ctx, wy, w, NULL, wz, T, 37, D, 0);
    float *dx = dev(c->test, x, n + 1), *dg = dev(c->test, g, (size_t)D), *dw = dev(c->test, w, nw);
    float *dy = c->test->alloc(c->test->ctx, n), *dz = c->test->alloc(c->test->ctx, (size_t)T * 37);
    c->test->rmsnorm(c->test->ctx, dx + off, dg, dy, T, D, 1e-6f);
    c->test->matmul(c->test->ctx, dy, dw, NULL, dz, T, 37, D, 0);
    float *gy = fetch(c->test, dy, n), *gz = fetch(c->test, dz, (size_t)T * 37);
    char what[64];
    snprintf(what, sizeof(what), "rmsnorm %d x %d%s: y", T, D, off ? " (4-byte aligned)" : "");
    judge(c, what, gy, wy, n);
    snprintf(what, sizeof(what), "rmsnorm %d x %d%s, then a GEMM", T, D,
             off ? " (4-byte aligned)" : "");
    judge(c, what, gz, wz, (size_t)T * 37);
    float *ds[] = {dx, dg, dw, dy, dz};
    for (int i = 0; i < 5; i++)
        c->test->release(c->test->ctx, ds[i]);
    free(x), free(g), free(w), free(wy), free(wz), free(gy), free(gz);
}

/* adjacent: q_w and kv_w one [q; kv] allocation (the GPU's one-GEMM path);
 * nseq sequences of T rows, each sequence's K/V rows gap rows apart in the
 * cache (which must keep its other rows: they start as noise) */
static void check_qkv_rope(struct ctx *c, int nseq, int gap, int T, int D, int H, int KV, int hd,
                           int pos0, int adjacent)
{
    int qd = H * hd, kvd = 2 * KV * hd, NT = nseq * T;
    size_t nw = (size_t)(qd + kvd) * D, kvs = (size_t)(T + gap) * kvd, nkv = nseq * kvs;
    float *h = host_rand(c, (size_t)NT * D), *w = host_rand(c, nw), *kv0 = host_rand(c, nkv);
    float *wq = xmalloc((size_t)NT * qd * sizeof(float)), *wkv = xmalloc(nkv * sizeof(float));
    memcpy(wkv, kv0, nkv * sizeof(float));
    for (int s = 0; s < nseq; s++) { /* the composition, one sequence at a time */
        float *q = wq + (size_t)s * T * qd, *kv = wkv + s * kvs;
        c->ref->matmul(c->ref->ctx, h + (size_t)s * T * D, w, NULL, q, T, qd, D, 0);
        c->ref->matmul(c->ref->ctx, h + (size_t)s * T * D, w + (size_t)qd * D, NULL, kv, T, kvd, D,
                       0);
        c->ref->rope(c->ref->ctx, q, T, H, hd, qd, pos0, 10000.0);
        c->ref->rope(c->ref->ctx, kv, T, KV, hd, kvd, pos0, 10000.0);
    }
    float *dh = dev(c->test, h, (size_t)NT * D), *dw = dev(c->test, w, nw), *dkv_w = NULL;
    const float *kvw = dw + (size_t)qd * D;
    if (!adjacent)
        kvw = dkv_w = dev(c->test, w + (size_t)qd * D, (size_t)kvd * D);
    float *dq = c->test->alloc(c->test->ctx, (size_t)NT * qd), *dkv = dev(c->test, kv0, nkv);
    c->test->qkv_rope(c->test->ctx, dh, dw, kvw, dq, dkv, nseq, kvs, T, D, H, KV, hd, pos0,
                      10000.0);
    float *gq = fetch(c->test, dq, (size_t)NT * qd), *gkv = fetch(c->test, dkv, nkv);
    char what[96];
    snprintf(what, sizeof(what), "qkv_rope %dx%d+%d D %d %dx%d/%d pos %d%s: q", nseq, T, gap, D, H,
             hd, KV, pos0, adjacent ? "" : " (2 GEMMs)");
    judge(c, what, gq, wq, (size_t)NT * qd);
    snprintf(what, sizeof(what), "qkv_rope %dx%d+%d D %d %dx%d/%d pos %d%s: kv", nseq, T, gap, D, H,
             hd, KV, pos0, adjacent ? "" : " (2 GEMMs)");
    judge(c, what, gkv, wkv, nkv);
    c->test->release(c->test->ctx, dh), c->test->release(c->test->ctx, dw),
        c->test->release(c->test->ctx, dq), c->test->release(c->test->ctx, dkv);
    if (dkv_w)
        c->test->release(c->test->ctx, dkv_w);
    free(h), free(w), free(kv0), free(wq), free(wkv), free(gq), free(gkv);
}

/* g x g patches of p px from each of n S px images, g <= S/p (the
 * remainder pixels dropped), against the element-by-element definition */
static void check_patchify(struct ctx *c, int n, int S, int p, int g)
{
    size_t is = 3 * (size_t)S * S, os = (size_t)g * g * 3 * p * p, ni = n * is, no = n * os;
    float *img = host_rand(c, ni), *want = xmalloc(no * sizeof(float));
    for (int im = 0; im < n; im++)
        for (int gy = 0; gy < g; gy++)
            for (int gx = 0; gx < g; gx++)
                for (int ch = 0; ch < 3; ch++)
                    for (int y = 0; y < p; y++)
                        for (int x = 0; x < p; x++)
                            want[im * os + (((size_t)gy * g + gx) * 3 + ch) * p * p +
                                 (size_t)y * p + x] =
                                img[im * is + ((size_t)ch * S + gy * p + y) * S + gx * p + x];
    float *di = dev(c->test, img, ni), *dout = c->test->alloc(c->test->ctx, no);
    c->test->patchify(c->test->ctx, di, dout, n, S, p, g);
    float *got = fetch(c->test, dout, no);
    char what[80];
    snprintf(what, sizeof(what), "patchify %d x %d px, patch %d, %d x %d", n, S, p, g, g);
    judge(c, what, got, want, no);
    c->test->release(c->test->ctx, di), c->test->release(c->test->ctx, dout);
    free(img), free(want), free(got);
}

/* the position table from the trained g0 x g0 grid to another g1 x g1 one
 * (an image size off the trained one): the test backend against the
 * reference's pos_interp */
static void check_pos_interp(struct ctx *c, int g0, int g1, int D)
{
    size_t n0 = (size_t)g0 * g0 * D, n1 = (size_t)g1 * g1 * D;
    float *tab = host_rand(c, n0), *want = xmalloc(n1 * sizeof(float));
    c->ref->pos_interp(c->ref->ctx, tab, g0, want, g1, D);
    float *dt = dev(c->test, tab, n0), *dout = c->test->alloc(c->test->ctx, n1);
    c->test->pos_interp(c->test->ctx, dt, g0, dout, g1, D);
    float *got = fetch(c->test, dout, n1);
    char what[80];
    snprintf(what, sizeof(what), "pos_interp %d x %d -> %d x %d, D %d", g0, g0, g1, g1, D);
    judge(c, what, got, want, n1);
    c->test->release(c->test->ctx, dt), c->test->release(c->test->ctx, dout);
    free(tab), free(want), free(got);
}

/* a decoder's attention as model.c runs it: qkv_rope writes P prefix rows
 * of a KV cache (pos 0), then T rows after them (pos P), and the T queries
 * attend to all P + T rows (a GPU in 16 bits reads them from the cache's
 * 16-bit mirror); overwrite: before attending, one prefix row of the cache
 * gets new values through upload, which the result must see (a stale mirror
 * would not) */
static void check_decoder_attention(struct ctx *c, int P, int T, int D, int H, int KV, int hd,
                                    int overwrite)
{
    int qd = H * hd, kvd = 2 * KV * hd, Tk = P + T;
    size_t nw = (size_t)(qd + kvd) * D, nc = (size_t)Tk * kvd, no = (size_t)T * qd;
    float *hp = host_rand(c, (size_t)P * D), *h = host_rand(c, (size_t)T * D);
    float *w = host_rand(c, nw), *row = host_rand(c, (size_t)kvd);
    float *q = xmalloc((size_t)Tk * qd * sizeof(float)), *cache = xmalloc(nc * sizeof(float));
    float *want = xmalloc(no * sizeof(float)), scale = 1.0f / sqrtf((float)hd);
    const struct vla_ops *r = c->ref, *o = c->test;
    r->scale(r->ctx, w, nw, 1.0f / sqrtf((float)D)); /* q, k, v ~ N(0, 1), as the other cases' */
    r->qkv_rope(r->ctx, hp, w, w + (size_t)qd * D, q, cache, 1, 0, P, D, H, KV, hd, 0, 10000.0);
    r->qkv_rope(r->ctx, h, w, w + (size_t)qd * D, q, cache + (size_t)P * kvd, 1, 0, T, D, H, KV, hd,
                P, 10000.0);
    if (overwrite)
        memcpy(cache + (size_t)(P / 2) * kvd, row, (size_t)kvd * sizeof(float));
    r->attention(r->ctx, q, qd, cache, cache + (size_t)KV * hd, kvd, want, T, Tk, H, KV, hd, scale);
    float *dhp = dev(o, hp, (size_t)P * D), *dh = dev(o, h, (size_t)T * D), *dw = dev(o, w, nw);
    float *dq = o->alloc(o->ctx, (size_t)Tk * qd), *dc = o->alloc(o->ctx, nc),
          *dout = o->alloc(o->ctx, no);
    const float *kvw = dw + (size_t)qd * D;
    o->qkv_rope(o->ctx, dhp, dw, kvw, dq, dc, 1, 0, P, D, H, KV, hd, 0, 10000.0);
    o->sync(o->ctx); /* a stage boundary between the prefix and the step, as in a pass */
    o->qkv_rope(o->ctx, dh, dw, kvw, dq, dc + (size_t)P * kvd, 1, 0, T, D, H, KV, hd, P, 10000.0);
    if (overwrite)
        o->upload(o->ctx, dc + (size_t)(P / 2) * kvd, row, (size_t)kvd);
    o->attention(o->ctx, dq, qd, dc, dc + (size_t)KV * hd, kvd, dout, T, Tk, H, KV, hd, scale);
    float *got = fetch(o, dout, no);
    char what[96];
    snprintf(what, sizeof(what), "decoder attention %d + %d keys, %d queries, %dx%d/%d%s", P, T, T,
             H, hd, KV, overwrite ? " (row rewritten)" : "");
    judge(c, what, got, want, no);
    /* attention_o on the same operands: x += attention o_w^T */
    size_t nx = (size_t)T * D, nwo = (size_t)D * qd;
    float *x = host_rand(c, nx), *wo = host_rand(c, nwo), *wx = xmalloc(nx * sizeof(float));
    r->scale(r->ctx, wo, nwo, 1.0f / sqrtf((float)qd));
    memcpy(wx, x, nx * sizeof(float));
    r->matmul(r->ctx, want, wo, NULL, wx, T, D, qd, 1);
    float *dx = dev(o, x, nx), *dwo = dev(o, wo, nwo);
    o->attention_o(o->ctx, dq, qd, dc, dc + (size_t)KV * hd, kvd, dwo, dout, dx, T, Tk, H, KV, hd,
                   D, scale);
    float *gx = fetch(o, dx, nx);
    snprintf(what, sizeof(what), "attention_o %d keys, %d queries, %dx%d/%d -> %d%s", Tk, T, H, hd,
             KV, D, overwrite ? " (row rewritten)" : "");
    judge(c, what, gx, wx, nx);
    float *ds[] = {dhp, dh, dw, dq, dc, dout, dx, dwo};
    for (int i = 0; i < 8; i++)
        o->release(o->ctx, ds[i]);
    free(hp), free(h), free(w), free(row), free(q), free(cache), free(want), free(got);
    free(x), free(wo), free(wx), free(gx);
}

static void check_time_concat(struct ctx *c, int T, int Da, int D, float t)
{
    size_t n = (size_t)T * (Da + D);
    float *a = host_rand(c, (size_t)T * Da), *e = xcalloc((size_t)D, sizeof(float));
    float *want = xmalloc(n * sizeof(float));
    c->ref->time_embed(c->ref->ctx, e, D, t, 4e-3, 4.0);
    c->ref->concat_bcast(c->ref->ctx, a, Da, e, D, want, T);
    float *da = dev(c->test, a, (size_t)T * Da), *dout = c->test->alloc(c->test->ctx, n);
    c->test->time_concat(c->test->ctx, da, Da, dout, T, D, t, 4e-3, 4.0);
    float *got = fetch(c->test, dout, n);
    char what[64];
    snprintf(what, sizeof(what), "time_concat %d x (%d + %d) t %g", T, Da, D, t);
    judge(c, what, got, want, n);
    c->test->release(c->test->ctx, da), c->test->release(c->test->ctx, dout);
    free(a), free(e), free(want), free(got);
}

/* the integrator's update and the next step's first GEMM, a stage boundary
 * between them (a GPU in 16 bits reads y's mirror that axpy wrote); with
 * rewrite, one row of y gets new values through upload before the GEMM */
static void check_axpy_matmul(struct ctx *c, int T, int A, int N, int rewrite)
{
    size_t n = (size_t)T * A;
    float *y = host_rand(c, n), *x = host_rand(c, n), *w = host_rand(c, (size_t)N * A);
    float *row = host_rand(c, (size_t)A), *want = xmalloc((size_t)T * N * sizeof(float));
    float *wy = xmalloc(n * sizeof(float));
    memcpy(wy, y, n * sizeof(float));
    c->ref->axpy(c->ref->ctx, wy, x, -0.1f, n);
    if (rewrite)
        memcpy(wy + (size_t)(T / 2) * A, row, (size_t)A * sizeof(float));
    c->ref->matmul(c->ref->ctx, wy, w, NULL, want, T, N, A, 0);
    float *dy = dev(c->test, y, n), *dx = dev(c->test, x, n), *dw = dev(c->test, w, (size_t)N * A);
    float *dout = c->test->alloc(c->test->ctx, (size_t)T * N);
    c->test->axpy(c->test->ctx, dy, dx, -0.1f, n);
    c->test->sync(c->test->ctx);
    if (rewrite)
        c->test->upload(c->test->ctx, dy + (size_t)(T / 2) * A, row, (size_t)A);
    c->test->matmul(c->test->ctx, dy, dw, NULL, dout, T, N, A, 0);
    float *got = fetch(c->test, dout, (size_t)T * N);
    char what[64];
    snprintf(what, sizeof(what), "axpy, then matmul %d x %d x %d%s", T, N, A,
             rewrite ? " (row rewritten)" : "");
    judge(c, what, got, want, (size_t)T * N);
    c->test->release(c->test->ctx, dy), c->test->release(c->test->ctx, dx),
        c->test->release(c->test->ctx, dw), c->test->release(c->test->ctx, dout);
    free(y), free(x), free(w), free(row), free(want), free(wy), free(got);
}

static void check_attention_packed(struct ctx *c, int C, int T, int H, int hd, int with_bias)
{
    int W = H * hd;
    size_t n = (size_t)C * T * 3 * W, no = (size_t)C * T * W;
    float *qkv = host_rand(c, n), *b = host_rand(c, (size_t)3 * W);
    float *tmp = xmalloc(n * sizeof(float)), *want = xmalloc(no * sizeof(float));
    float scale = 1.0f / sqrtf((float)hd);
    memcpy(tmp, qkv, n * sizeof(float));
    if (with_bias)
        row_bias(c->ref, tmp, b, C * T, 3 * W);
    for (int s = 0; s < C; s++) {
        const float *q = tmp + (size_t)s * T * 3 * W;
        c->ref->attention(c->ref->ctx, q, 3 * W, q + W, q + 2 * W, 3 * W, want + (size_t)s * T * W,
                          T, T, H, H, hd, scale);
    }
    float *dq = dev(c->test, qkv, n), *db = dev(c->test, b, (size_t)3 * W);
    float *dout = c->test->alloc(c->test->ctx, no);
    c->test->attention_packed(c->test->ctx, dq, with_bias ? db : NULL, dout, C, T, H, hd, scale);
    float *got = fetch(c->test, dout, no);
    char what[80];
    snprintf(what, sizeof(what), "attention_packed %d seq x %d, %d heads x %d%s", C, T, H, hd,
             with_bias ? "" : " (no bias)");
    judge(c, what, got, want, no);
    c->test->release(c->test->ctx, dq), c->test->release(c->test->ctx, db),
        c->test->release(c->test->ctx, dout);
    free(qkv), free(b), free(tmp), free(want), free(got);
}

/* normal(0, s) values: weights at 1/sqrt(fan in), as the model's, keep
 * the attention scores of order one (a near one-hot softmax would turn a
 * 16-bit rounding into a different key) */
static float *host_rand_scaled(struct ctx *c, size_t n, double s)
{
    float *h = host_rand(c, n);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)(h[i] * s);
    return h;
}

/* x += attention_packed(h qkv_w^T, qkv_b) o_w^T */
static void check_attention_block(struct ctx *c, int C, int T, int H, int hd, int with_bias)
{
    int W = H * hd, M = C * T;
    size_t nx = (size_t)M * W, nq = (size_t)M * 3 * W;
    double s = 1.0 / sqrt((double)W);
    float *h = host_rand(c, nx), *x = host_rand(c, nx), *b = host_rand(c, (size_t)3 * W);
    float *wq = host_rand_scaled(c, (size_t)3 * W * W, s),
          *wo = host_rand_scaled(c, (size_t)W * W, s);
    float *want = xmalloc(nx * sizeof(float)), *qkv = xmalloc(nq * sizeof(float));
    float *att = xmalloc(nx * sizeof(float)), scale = 1.0f / sqrtf((float)hd);
    memcpy(want, x, nx * sizeof(float));
    c->ref->matmul(c->ref->ctx, h, wq, NULL, qkv, M, 3 * W, W, 0);
    c->ref->attention_packed(c->ref->ctx, qkv, with_bias ? b : NULL, att, C, T, H, hd, scale);
    c->ref->matmul(c->ref->ctx, att, wo, NULL, want, M, W, W, 1);
    const struct vla_ops *o = c->test;
    float *dh = dev(o, h, nx), *dx = dev(o, x, nx), *db = dev(o, b, (size_t)3 * W);
    float *dwq = dev(o, wq, (size_t)3 * W * W), *dwo = dev(o, wo, (size_t)W * W);
    float *dqkv = o->alloc(o->ctx, nq), *datt = o->alloc(o->ctx, nx);
    o->attention_block(o->ctx, dh, dwq, with_bias ? db : NULL, dwo, dqkv, datt, dx, C, T, H, hd,
                       scale);
    float *got = fetch(o, dx, nx);
    char what[80];
    snprintf(what, sizeof(what), "attention_block %d seq x %d, %d heads x %d%s", C, T, H, hd,
             with_bias ? "" : " (no bias)");
    judge(c, what, got, want, nx);
    float *ds[] = {dh, dx, db, dwq, dwo, dqkv, datt};
    for (size_t i = 0; i < ARRAY_SIZE(ds); i++)
        o->release(o->ctx, ds[i]);
    free(h), free(x), free(b), free(wq), free(wo), free(want), free(qkv), free(att), free(got);
}

/* x += act(h w1^T + b1) w2^T */
static void check_mlp_block(struct ctx *c, int T, int D, int F, enum vla_bias_act a)
{
    size_t nx = (size_t)T * D, nh = (size_t)T * F;
    float *h = host_rand(c, nx), *x = host_rand(c, nx), *b = host_rand(c, (size_t)F);
    float *w1 = host_rand_scaled(c, (size_t)F * D, 1.0 / sqrt((double)D));
    float *w2 = host_rand_scaled(c, (size_t)D * F, 1.0 / sqrt((double)F));
    float *want = xmalloc(nx * sizeof(float)), *hid = xmalloc(nh * sizeof(float));
    memcpy(want, x, nx * sizeof(float));
    c->ref->matmul(c->ref->ctx, h, w1, NULL, hid, T, F, D, 0);
    c->ref->bias_act(c->ref->ctx, hid, b, T, F, a);
    c->ref->matmul(c->ref->ctx, hid, w2, NULL, want, T, D, F, 1);
    const struct vla_ops *o = c->test;
    float *dh = dev(o, h, nx), *dx = dev(o, x, nx), *db = dev(o, b, (size_t)F);
    float *dw1 = dev(o, w1, (size_t)F * D), *dw2 = dev(o, w2, (size_t)D * F),
          *dhid = o->alloc(o->ctx, nh);
    o->mlp_block(o->ctx, dh, dw1, db, dw2, dhid, dx, T, D, F, a);
    float *got = fetch(o, dx, nx);
    char what[80];
    static const char *const an[] = {"none", "gelu_tanh", "silu"};
    snprintf(what, sizeof(what), "mlp_block %s %d x %d x %d", an[a], T, D, F);
    judge(c, what, got, want, nx);
    float *ds[] = {dh, dx, db, dw1, dw2, dhid};
    for (size_t i = 0; i < ARRAY_SIZE(ds); i++)
        o->release(o->ctx, ds[i]);
    free(h), free(x), free(b), free(w1), free(w2), free(want), free(hid), free(got);
}

/* x += (act(h gate^T) * (h up^T)) down^T (the decoder's MLP) */
static void check_gated_mlp(struct ctx *c, int T, int D, int F, enum vla_act a)
{
    size_t nx = (size_t)T * D, ng = (size_t)T * 2 * F;
    float *h = host_rand(c, nx), *x = host_rand(c, nx);
    float *w1 = host_rand_scaled(c, (size_t)2 * F * D, 1.0 / sqrt((double)D));
    float *w2 = host_rand_scaled(c, (size_t)D * F, 1.0 / sqrt((double)F));
    float *want = xmalloc(nx * sizeof(float)), *gu = xmalloc(ng * sizeof(float));
    float *hid = xmalloc(ng / 2 * sizeof(float));
    memcpy(want, x, nx * sizeof(float));
    c->ref->matmul(c->ref->ctx, h, w1, NULL, gu, T, 2 * F, D, 0);
    c->ref->glu(c->ref->ctx, gu, gu + F, hid, T, F, 2 * F, a);
    c->ref->matmul(c->ref->ctx, hid, w2, NULL, want, T, D, F, 1);
    const struct vla_ops *o = c->test;
    float *dh = dev(o, h, nx), *dx = dev(o, x, nx), *dw1 = dev(o, w1, (size_t)2 * F * D);
    float *dw2 = dev(o, w2, (size_t)D * F), *dgu = o->alloc(o->ctx, ng);
    float *dhid = o->alloc(o->ctx, ng / 2);
    o->gated_mlp(o->ctx, dh, dw1, dw2, dgu, dhid, dx, T, D, F, a);
    float *got = fetch(o, dx, nx);
    char what[80];
    snprintf(what, sizeof(what), "gated_mlp %s %d x %d x %d", a == VLA_ACT_SWIGLU ? "silu" : "gelu",
             T, D, F);
    judge(c, what, got, want, nx);
    float *ds[] = {dh, dx, dw1, dw2, dgu, dhid};
    for (size_t i = 0; i < ARRAY_SIZE(ds); i++)
        o->release(o->ctx, ds[i]);
    free(h), free(x), free(w1), free(w2), free(want), free(gu), free(hid), free(got);
}

/* y = x w^T (+ bias) (+ y when accumulating); off: operands one float past
 * an allocation's start (4-byte alignment, which a GEMM library must not
 * assume away) */
static void check_matmul(struct ctx *c, int M, int N, int K, int with_bias, int accumulate, int off)
{
    size_t nx = (size_t)M * K + 1, nw = (size_t)N * K + 1, ny = (size_t)M * N + 1;
    float *x = host_rand(c, nx), *w = host_rand(c, nw), *b = host_rand(c, (size_t)N + 1);
    float *y0 = host_rand(c, ny), *want = xmalloc(ny * sizeof(float));
    memcpy(want, y0, ny * sizeof(float));
    c->ref->matmul(c->ref->ctx, x + off, w + off, with_bias ? b + off : NULL, want + off, M, N, K,
                   accumulate);
    float *dx = dev(c->test, x, nx), *dw = dev(c->test, w, nw),
          *db = dev(c->test, b, (size_t)N + 1);
    float *dy = dev(c->test, y0, ny);
    c->test->matmul(c->test->ctx, dx + off, dw + off, with_bias ? db + off : NULL, dy + off, M, N,
                    K, accumulate);
    float *got = fetch(c->test, dy, ny);
    char what[80];
    snprintf(what, sizeof(what), "matmul %d x %d x %d%s%s%s", M, N, K, with_bias ? " +bias" : "",
             accumulate ? " +=" : "", off ? " (4-byte aligned)" : "");
    judge(c, what, got + off, want + off, (size_t)M * N);
    c->test->release(c->test->ctx, dx), c->test->release(c->test->ctx, dw),
        c->test->release(c->test->ctx, db), c->test->release(c->test->ctx, dy);
    free(x), free(w), free(b), free(y0), free(want), free(got);
}

int vla_ops_check(const struct vla_ops *ref, const struct vla_ops *test, double tol, FILE *log)
{
    struct ctx c = {ref, test, tol, log, 0, 11};
    static const int rows[] = {1, 7, 50};
    for (int i = 0; i < 3; i++) {
        check_bias_act(&c, rows[i], 37, VLA_BIAS_GELU_TANH);
        check_bias_act(&c, rows[i], 216, VLA_BIAS_SILU);
    }
    check_bias_act(&c, 37, 72, VLA_BIAS_ONLY);
    check_matmul(&c, 50, 217, 72, 1, 0, 0);
    check_matmul(&c, 7, 100, 1153, 1, 1, 1);
    check_matmul(&c, 1, 72, 216, 0, 1, 0);
    check_matmul(&c, 37, 216, 100, 0, 0, 1);
    /* the split-K small-M GEMM (ops_gpu_skinny.c) at a step's shapes: a
     * down projection (16 tiles x 16 K slices, accumulating), 51 rows of a
     * [q; kv]-like projection (10 tiles x 6 slices), 64 rows with a partial
     * last tile and a K past the last 64-k stage (one slice) */
    check_matmul(&c, 50, 1024, 4096, 0, 1, 0);
    check_matmul(&c, 51, 640, 1024, 0, 0, 0);
    check_matmul(&c, 64, 200, 136, 0, 1, 0);
    check_bias_layernorm(&c, 37, 216, 1);
    check_bias_layernorm(&c, 7, 1153, 1); /* wider than a block of threads */
    check_bias_layernorm(&c, 1, 72, 0);
    check_bias_layernorm(&c, 3, 2100, 1); /* eight and a bit strides of a block */
    check_decoder_attention(&c, 37, 7, 72, 3, 1, 72, 0);
    check_decoder_attention(&c, 49, 50, 72, 4, 1, 36, 1);
    check_decoder_attention(&c, 7, 1, 50, 4, 2, 16, 0);
    /* vla_softmax_warp (2048 rows or more: ops_gpu_attn.c): rows of 816
     * keys in 16-byte words (pi0's prefix), of an odd length, past the
     * registers' 32 x 32 (its one-pass running max and sum); vla_softmax's
     * per-row groups: a step's 400 rows of 867 keys (on 50 CUs or more) */
    check_decoder_attention(&c, 304, 512, 72, 4, 1, 36, 0);
    check_decoder_attention(&c, 301, 512, 50, 4, 1, 16, 0);
    check_decoder_attention(&c, 101, 1024, 50, 2, 1, 16, 0);
    check_decoder_attention(&c, 817, 50, 72, 8, 1, 16, 0);
    /* vla_rmsnorm: rows in registers (pi0's widths), the scalar walk (an odd
     * width, a misaligned x, a row past the registers' 4 x 4 x 256) */
    check_rmsnorm(&c, 37, 2048, 0);
    check_rmsnorm(&c, 50, 1024, 0);
    check_rmsnorm(&c, 7, 1153, 0);
    check_rmsnorm(&c, 5, 216, 1);
    check_rmsnorm(&c, 3, 4100, 0);
    check_time_concat(&c, 50, 72, 72, 0.7f);
    check_time_concat(&c, 7, 37, 101, 1.0f); /* odd D: its last column 0 */
    check_time_concat(&c, 1, 216, 50, 0.1f);
    check_axpy_matmul(&c, 50, 7, 72, 0);
    check_axpy_matmul(&c, 37, 32, 101, 1);
    check_axpy_matmul(&c, 1, 5, 72, 0);
    check_qkv_rope(&c, 1, 0, 37, 72, 3, 1, 72, 0, 1);
    check_qkv_rope(&c, 1, 0, 7, 72, 3, 1, 72, 37, 1);
    check_qkv_rope(&c, 1, 0, 1, 50, 4, 2, 16, 5, 1);
    check_qkv_rope(&c, 1, 0, 7, 72, 3, 1, 72, 37, 0);
    /* a batch: 3 sequences, their K/V rows apart in the cache (the prefix's
     * rows before the expert's, the expert's chunk after) */
    check_qkv_rope(&c, 3, 5, 7, 72, 3, 1, 72, 0, 1);
    check_qkv_rope(&c, 3, 37, 7, 72, 3, 1, 72, 37, 1);
    check_qkv_rope(&c, 3, 2, 1, 50, 4, 2, 16, 5, 0);
    check_patchify(&c, 1, 70, 16, 4);   /* 70 = 4 x 16 + 6 dropped */
    check_patchify(&c, 3, 256, 14, 18); /* pi0's 3 cameras at 256 px: 4 px dropped */
    check_patchify(&c, 5, 53, 7, 6);    /* floored below S/p (a merge of 2 on 7 patches) */
    check_pos_interp(&c, 16, 18, 37);   /* pi0's table to 256 px */
    check_pos_interp(&c, 16, 22, 37);   /* to 320 px */
    check_pos_interp(&c, 7, 5, 3);      /* down */
    check_attention_packed(&c, 2, 37, 3, 72, 1);
    check_attention_packed(&c, 1, 49, 3, 72, 0);
    check_attention_packed(&c, 3, 7, 2, 36, 1);
    check_attention_block(&c, 2, 37, 3, 72, 1);
    check_attention_block(&c, 3, 7, 2, 36, 1);
    check_attention_block(&c, 1, 49, 3, 72, 0);
    /* the fused kernel's edges (vla_flash_attn: 64-key tiles, 64-query
     * blocks, head sizes padded to 16): three key tiles with a last of 2 at
     * its largest head size; a last tile of one key at its smallest; a head
     * size past its limit (the BLAS path); fp32 output (attention_packed) */
    check_attention_block(&c, 2, 130, 2, 128, 1);
    check_attention_block(&c, 3, 65, 1, 16, 1);
    check_attention_block(&c, 1, 9, 1, 130, 1);
    check_attention_packed(&c, 2, 130, 2, 64, 1);
    check_mlp_block(&c, 37, 216, 100, VLA_BIAS_GELU_TANH);
    check_mlp_block(&c, 7, 72, 1153, VLA_BIAS_GELU_TANH);
    check_mlp_block(&c, 1, 216, 37, VLA_BIAS_GELU_TANH);
    check_mlp_block(&c, 37, 72, 100, VLA_BIAS_SILU); /* no epilogue for SiLU: the composition */
    /* vla_glu16's eight-wide path (F % 8 == 0, pi0's shapes scaled down) and
     * its one-wide path (an odd F) */
    check_gated_mlp(&c, 50, 72, 128, VLA_ACT_GEGLU);
    check_gated_mlp(&c, 37, 216, 1024, VLA_ACT_GEGLU);
    check_gated_mlp(&c, 7, 72, 101, VLA_ACT_SWIGLU);
    check_gated_mlp(&c, 1, 50, 8, VLA_ACT_SWIGLU);
    /* 16-bit GEMM output through the split-K kernel (gate/up N 4096) */
    check_gated_mlp(&c, 50, 256, 2048, VLA_ACT_GEGLU);
    return c.fails;
}
