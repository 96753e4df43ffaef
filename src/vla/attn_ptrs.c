/* attn_ptrs.c - vision attention GEMMs over cameras x heads by pointer
 * arrays (attn_ptrs.h). */
#include "attn_ptrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vla_attn_ptrs_fill(const struct vla_attn_geom *g, void **ptrs)
{
    size_t W = (size_t)g->H * g->hd, TT = (size_t)g->T * g->T, CH = (size_t)g->C * g->H;
    size_t ob = g->ot == GPU_F32 ? sizeof(float) : 2;
    for (int c = 0; c < g->C; c++)
        for (int h = 0; h < g->H; h++) {
            size_t i = (size_t)c * g->H + h;
            /* element offsets: the camera's first row, the head's columns */
            size_t qe = (size_t)c * g->T * 3 * W + (size_t)h * g->hd;
            size_t oe = (size_t)c * g->T * W + (size_t)h * g->hd;
            char *q = (char *)g->qkv16 + qe * 2;
            ptrs[VLA_AP_Q * CH + i] = q;
            ptrs[VLA_AP_K * CH + i] = q + W * 2;
            ptrs[VLA_AP_V * CH + i] = q + 2 * W * 2;
            ptrs[VLA_AP_S * CH + i] = (char *)g->S + i * TT * sizeof(float);
            ptrs[VLA_AP_P * CH + i] = (char *)g->P16 + i * TT * 2;
            ptrs[VLA_AP_O * CH + i] = (char *)g->out + oe * ob;
        }
}

static int same(const struct vla_attn_geom *a, const struct vla_attn_geom *b)
{
    return a->qkv16 == b->qkv16 && a->S == b->S && a->P16 == b->P16 && a->out == b->out &&
           a->t == b->t && a->ot == b->ot && a->C == b->C && a->T == b->T && a->H == b->H &&
           a->hd == b->hd;
}

/* the entry for g, built and uploaded on a miss outside a capture; NULL
 * with c->why set when there is none */
static struct vla_ap_entry *lookup(struct vla_attn_cache *c, struct gpu_backend *b, int capturing,
                                   const struct vla_attn_geom *g)
{
    for (int i = 0; i < c->n; i++)
        if (same(&c->e[i].g, g)) {
            c->e[i].pinned |= capturing != 0;
            return &c->e[i];
        }
    if (capturing) {
        snprintf(c->why, sizeof(c->why), "pointer arrays not built before the graph capture");
        return NULL;
    }
    struct vla_ap_entry *e = NULL;
    if (c->n < VLA_AP_CACHE) {
        e = &c->e[c->n++];
    } else {
        /* reuse an entry no graph reads, once the eager work reading it ended */
        for (int k = 0; k < VLA_AP_CACHE && !e; k++, c->next = (c->next + 1) % VLA_AP_CACHE)
            if (!c->e[c->next].pinned)
                e = &c->e[c->next];
        if (!e) {
            snprintf(c->why, sizeof(c->why), "all %d pointer-array entries held by graphs",
                     VLA_AP_CACHE);
            return NULL;
        }
        b->device_sync(b);
        b->free(b, e->dev);
        memset(e, 0, sizeof(*e));
    }
    size_t n = (size_t)VLA_AP_N * g->C * g->H;
    void **host = xcalloc(n, sizeof(void *));
    vla_attn_ptrs_fill(g, host);
    int rc = b->malloc(b, (void **)&e->dev, n * sizeof(void *));
    if (!rc) {
        rc = b->memcpy(b, e->dev, host, n * sizeof(void *), GPU_H2D);
        /* a pageable upload may still be in flight when memcpy returns */
        rc = rc ? rc : b->device_sync(b);
    }
    free(host);
    if (rc) {
        snprintf(c->why, sizeof(c->why), "pointer arrays not uploaded: %.200s", b->err);
        if (e->dev)
            b->free(b, e->dev);
        memset(e, 0, sizeof(*e)); /* an empty slot: dev NULL matches no key's use */
        e->g.C = -1;
        return NULL;
    }
    e->g = *g;
    c->uploads++;
    return e;
}

int vla_attn_ptr_gemm(struct vla_attn_cache *c, struct gpu_backend *b, int capturing,
                      enum vla_attn_phase ph, const struct vla_attn_geom *g, gpu_stream s)
{
    if (!b->blas_gemm_ptrs) {
        snprintf(c->why, sizeof(c->why), "the BLAS has no pointer-array batched GEMM");
        c->fallbacks++;
        return -1;
    }
    struct vla_ap_entry *e = lookup(c, b, capturing, g);
    if (!e) {
        c->fallbacks++;
        return -1;
    }
    int CH = g->C * g->H, T = g->T, hd = g->hd;
    long W = (long)g->H * hd;
    void **d = e->dev;
    const void *const *A =
        (const void *const *)(d + (ph == VLA_AP_SCORES ? VLA_AP_Q : VLA_AP_P) * CH);
    const void *const *B =
        (const void *const *)(d + (ph == VLA_AP_SCORES ? VLA_AP_K : VLA_AP_V) * CH);
    void *const *C = d + (ph == VLA_AP_SCORES ? VLA_AP_S : VLA_AP_O) * CH;
    int rc = ph == VLA_AP_SCORES ? b->blas_gemm_ptrs(b, g->t, GPU_F32, 0, 1, T, T, hd, 1.0f, A,
                                                     3 * W, B, 3 * W, 0.0f, C, T, CH, s)
                                 : b->blas_gemm_ptrs(b, g->t, g->ot, 0, 0, T, hd, T, 1.0f, A, T, B,
                                                     3 * W, 0.0f, C, W, CH, s);
    if (rc) {
        snprintf(c->why, sizeof(c->why), "%.240s", b->err);
        c->fallbacks++;
        return rc;
    }
    c->calls++;
    return 0;
}

void vla_attn_cache_free(struct vla_attn_cache *c, struct gpu_backend *b)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].dev)
            b->free(b, c->e[i].dev);
    memset(c, 0, sizeof(*c));
}
