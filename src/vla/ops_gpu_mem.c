/* ops_gpu_mem.c - device memory of a context: the ops' fp32 buffers (each
 * recorded, for its 16-bit mirror), scratch buffers that only grow outside
 * a capture, and the transfers: on the stream, and while a graph is being
 * captured through pinned staging that every replay re-reads or writes. */
#include <string.h>

#include "../core/util.h"
#include "ops_gpu_ctx.h"

void *vgpu_dev_alloc(struct vla_gpu *gp, size_t bytes)
{
    void *p = NULL;
    if (gp->b->malloc(gp->b, &p, bytes ? bytes : 16)) {
        vgpu_fail(gp, "device allocation");
        return NULL;
    }
    gp->cur += bytes;
    gp->peak = gp->cur > gp->peak ? gp->cur : gp->peak;
    return p;
}

float *vgpu_alloc(void *ctx, size_t n)
{
    struct vla_gpu *gp = ctx;
    float *p = vgpu_dev_alloc(gp, n * sizeof(float));
    if (p && gp->b->memset(gp->b, p, 0, n * sizeof(float)))
        vgpu_fail(gp, "memset");
    if (!p)
        return p;
    if (gp->nallocs == gp->capallocs) {
        gp->capallocs = gp->capallocs ? 2 * gp->capallocs : 64;
        gp->allocs = xrealloc(gp->allocs, (size_t)gp->capallocs * sizeof(*gp->allocs));
    }
    gp->allocs[gp->nallocs++] = (struct alloc_rec){.p = p, .n = n};
    return p;
}

/* the allocation holding [p, p + bytes), or NULL */
struct alloc_rec *vgpu_alloc_of(struct vla_gpu *gp, const void *p, size_t bytes)
{
    const char *a = p;
    for (int i = 0; i < gp->nallocs; i++) {
        const char *s0 = (const char *)gp->allocs[i].p;
        if (a >= s0 && a + bytes <= s0 + gp->allocs[i].n * sizeof(float))
            return &gp->allocs[i];
    }
    return NULL;
}

void vgpu_release(void *ctx, float *p)
{
    struct vla_gpu *gp = ctx;
    vgpu_shadows_clear(gp);
    if (!p)
        return;
    for (int i = 0; i < gp->nallocs; i++)
        if (gp->allocs[i].p == p) {
            if (gp->allocs[i].m16) {
                gp->b->free(gp->b, gp->allocs[i].m16);
                gp->cur -= gp->allocs[i].n * 2;
            }
            vla_spans_free(&gp->allocs[i].valid);
            gp->allocs[i] = gp->allocs[--gp->nallocs];
            break;
        }
    gp->b->free(gp->b, p);
}

/* scratch of at least `bytes`; grows only outside a capture (the eager
 * cold pass runs every shape first) */
void *vgpu_scratch(struct vla_gpu *gp, struct scratch *s, size_t bytes)
{
    if (bytes <= s->cap)
        return s->p;
    if (gp->capturing) {
        vgpu_fail_msg(gp, "scratch buffer grew during graph capture");
        return s->p;
    }
    gp->b->stream_sync(gp->b, gp->s);
    if (s->p) {
        gp->b->free(gp->b, s->p);
        gp->cur -= s->cap;
    }
    s->cap = bytes + bytes / 4;
    s->p = vgpu_dev_alloc(gp, s->cap);
    return s->p;
}

static void *stage(struct vla_gpu *gp, size_t bytes)
{
    size_t at = (gp->pool_used + 63) & ~(size_t)63;
    if (at + bytes > gp->pool_len || gp->nst == MAX_STAGED) {
        vgpu_fail_msg(gp, "graph staging pool exhausted");
        return NULL;
    }
    gp->pool_used = at + bytes;
    return gp->pool + at;
}

void vgpu_h2d(struct vla_gpu *gp, void *dev, const void *host, size_t bytes)
{
    vgpu_wrote(gp, dev, bytes);
    if (gp->capturing) {
        void *pin = stage(gp, bytes);
        if (!pin)
            return;
        memcpy(pin, host, bytes);
        gp->st[gp->nst++] = (struct staged){host, NULL, pin, bytes};
        host = pin;
    }
    if (gp->b->memcpy_async(gp->b, dev, host, bytes, GPU_H2D, gp->s))
        vgpu_fail(gp, "upload");
}

void vgpu_d2h(struct vla_gpu *gp, void *host, const void *dev, size_t bytes)
{
    void *dst = host;
    if (gp->capturing) {
        dst = stage(gp, bytes);
        if (!dst)
            return;
        gp->st[gp->nst++] = (struct staged){NULL, host, dst, bytes};
    }
    if (gp->b->memcpy_async(gp->b, dst, dev, bytes, GPU_D2H, gp->s))
        vgpu_fail(gp, "download");
}

void vgpu_upload(void *ctx, float *dst, const float *host, size_t n)
{
    struct vla_gpu *gp = ctx;
    vgpu_h2d(gp, dst, host, n * sizeof(float));
}

void vgpu_download(void *ctx, float *host, const float *src, size_t n)
{
    struct vla_gpu *gp = ctx;
    vgpu_d2h(gp, host, src, n * sizeof(float));
}

void vgpu_copy(void *ctx, float *dst, const float *src, size_t n)
{
    struct vla_gpu *gp = ctx;
    vgpu_wrote(gp, dst, n * sizeof(float));
    if (gp->b->memcpy_async(gp->b, dst, src, n * sizeof(float), GPU_D2D, gp->s))
        vgpu_fail(gp, "device copy");
}

/* the normalised actions (x after the last step) of the last pass */
int vla_gpu_download_state(struct vla_gpu *gp, const struct vla_model *m, float *host)
{
    vgpu_d2h(gp, host, m->xt, (size_t)m->B * m->C * m->A * sizeof(float));
    vgpu_sync(gp);
    return gp->err ? -1 : 0;
}
