/* ops_gpu_weights.c - the weight arena on the device: synthetic from the
 * counter RNG on the device, or uploaded from the host arena; the 16-bit
 * copy for reduced precision, made once per dtype; the download for
 * --save-weights. */
#include <math.h>

#include "ops_gpu_ctx.h"
#include "rng.h"

int vla_gpu_weights(struct vla_gpu *gp, struct vla_weights *w, const struct vla_preset *p,
                    uint64_t seed, int from_host)
{
    gp->arena_n = w->arena_len;
    gp->arena = vgpu_dev_alloc(gp, w->arena_len * sizeof(float));
    if (!gp->arena)
        return -1;
    if (from_host &&
        gp->b->memcpy(gp->b, gp->arena, w->arena, w->arena_len * sizeof(float), GPU_H2D))
        return vgpu_fail(gp, "weights upload"), -1;
    size_t off = 0;
    for (size_t i = 0; i < w->n; i++) {
        struct vla_tensor *t = &w->t[i];
        float *d = gp->arena + off;
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
            vgpu_h2d(gp, d, stats, (size_t)p->action_dim * sizeof(float));
            continue;
        }
        uint64_t key = vla_rng_key(seed, t->name), n = t->nelem;
        int normal = 1;
        LAUNCH(gp, K_vla_rng_fill, vgpu_grid_for(gp, n), &d, &n, &key, &mean, &sc, &normal);
    }
    vgpu_sync(gp);
    if (gp->err)
        return -1;
    return vgpu_make16(gp);
}

int vla_gpu_weights_download(struct vla_gpu *gp, float *host, size_t n)
{
    if (gp->b->memcpy(gp->b, host, gp->arena, n * sizeof(float), GPU_D2H))
        return vgpu_fail(gp, "weights download"), -1;
    return 0;
}

int vgpu_make16(struct vla_gpu *gp)
{
    if (gp->dt == GPU_F32 || !gp->arena || (gp->arena16 && gp->arena16_dt == gp->dt))
        return 0;
    if (!gp->arena16)
        gp->arena16 = vgpu_dev_alloc(gp, gp->arena_n * 2);
    if (!gp->arena16)
        return -1;
    gp->arena16_dt = gp->dt;
    /* in slices: the row count of one launch stays an int */
    const size_t slice = (size_t)1 << 28;
    for (size_t at = 0; at < gp->arena_n; at += slice) {
        size_t n = gp->arena_n - at < slice ? gp->arena_n - at : slice;
        vgpu_cvt16(gp, gp->arena + at, (long)n, gp->arena16 + at, (long)n, 1, (int)n);
    }
    vgpu_sync(gp);
    return gp->err ? -1 : 0;
}
