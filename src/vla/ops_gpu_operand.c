/* ops_gpu_operand.c - where a GEMM's operand comes from: fp32 itself, or in
 * 16-bit mode the weight arena's 16-bit copy, a producer's shadow, an
 * allocation's mirror, else a conversion kernel into scratch. Every device
 * write goes through vgpu_wrote(), so a shadow or mirror found is current. */
#include <string.h>

#include "ops_gpu_ctx.h"

void vgpu_shadows_clear(struct vla_gpu *gp)
{
    memset(gp->sh, 0, sizeof(gp->sh));
}

/* every mirror's rows invalid (the dtype or the fusion switch changed) */
void vgpu_mirrors_clear(struct vla_gpu *gp)
{
    for (int i = 0; i < gp->nallocs; i++)
        vla_spans_clear(&gp->allocs[i].valid);
}

/* [p, p + n floats) of a mirrored allocation is current in its mirror:
 * the 16-bit address of p, else NULL */
const uint16_t *vgpu_mirror_of(struct vla_gpu *gp, const float *p, size_t n)
{
    if (gp->dt == GPU_F32 || gp->no_shadow)
        return NULL;
    struct alloc_rec *r = vgpu_alloc_of(gp, p, n * sizeof(float));
    if (!r || !r->m16)
        return NULL;
    size_t lo = (size_t)(p - r->p);
    return vla_spans_cover(&r->valid, lo, lo + n) ? r->m16 + lo : NULL;
}

/* the allocation whose mirror a producer writing [p, p + n floats) in 16
 * bits fills too (the mirror made on first use, outside a capture), or NULL
 * (fp32, the unfused path, not an allocation of g_alloc) */
struct alloc_rec *vgpu_mirror_target(struct vla_gpu *gp, const float *p, size_t n)
{
    if (gp->dt == GPU_F32 || gp->no_shadow)
        return NULL;
    struct alloc_rec *r = vgpu_alloc_of(gp, p, n * sizeof(float));
    if (r && !r->m16 && !gp->capturing) {
        r->m16 = vgpu_dev_alloc(gp, r->n * 2);
        vla_spans_clear(&r->valid);
    }
    return r && r->m16 ? r : NULL;
}

/* [p, p + bytes) was written: shadows of overlapping sources are stale, and
 * so are the overlapped rows of mirrors */
void vgpu_wrote(struct vla_gpu *gp, const void *p, size_t bytes)
{
    const char *a = p, *e = a + bytes;
    for (int i = 0; i < SH_N; i++) {
        const char *s0 = (const char *)gp->sh[i].src, *s1 = s0 + gp->sh[i].n * sizeof(float);
        if (gp->sh[i].src && a < s1 && s0 < e)
            gp->sh[i].src = NULL;
    }
    for (int i = 0; i < gp->nallocs; i++) {
        struct alloc_rec *r = &gp->allocs[i];
        const char *s0 = (const char *)r->p, *s1 = s0 + r->n * sizeof(float);
        if (!r->valid.n || e <= s0 || s1 <= a)
            continue;
        size_t lo = a > s0 ? (size_t)(a - s0) / sizeof(float) : 0;
        size_t hi = e < s1 ? (size_t)(e - s0 + sizeof(float) - 1) / sizeof(float) : r->n;
        vla_spans_cut(&r->valid, lo, hi);
    }
}

/* 16-bit copy of a rows x cols fp32 matrix (ld ldx) into dst (ld ldy) */
void vgpu_cvt16(struct vla_gpu *gp, const float *x, long ldx, void *dst, long ldy, int rows,
                int cols)
{
    int bf = gp->dt == GPU_BF16;
    gp->cvt_launches++;
    LAUNCH(gp, K_vla_cvt16, vgpu_grid_for(gp, (uint64_t)rows * cols), &x, &ldx, &dst, &ldy, &rows,
           &cols, &bf);
}

int vgpu_in_arena(struct vla_gpu *gp, const float *w)
{
    return gp->arena && w >= gp->arena && w < gp->arena + gp->arena_n;
}

/* the operand for a weight: fp32 itself, or its 16-bit copy */
const void *vgpu_weight_operand(struct vla_gpu *gp, const float *w, enum gpu_dtype *t)
{
    if (gp->dt != GPU_F32 && gp->arena16 && vgpu_in_arena(gp, w)) {
        *t = gp->dt;
        return gp->arena16 + (w - gp->arena);
    }
    *t = GPU_F32;
    return w;
}

/* a weight [N, K] as a GEMM operand: weight_operand, and in 16-bit mode a
 * matrix outside the arena (the kernel tests' operands) converted into
 * scratch, so that the tests run the 16-bit path a pass runs */
const void *vgpu_weight_operand16(struct vla_gpu *gp, const float *w, int N, int K,
                                  enum gpu_dtype *t)
{
    const void *B = vgpu_weight_operand(gp, w, t);
    if (*t != GPU_F32 || gp->dt == GPU_F32)
        return B;
    void *w16 = vgpu_scratch(gp, &gp->w16, (size_t)N * K * 2);
    vgpu_cvt16(gp, w, K, w16, K, N, K);
    *t = gp->dt;
    return w16;
}

/* the current 16-bit copy of x [n floats] a producer wrote, or NULL */
const void *vgpu_shadow_of(struct vla_gpu *gp, const float *x, size_t n)
{
    for (int i = 0; i < SH_N; i++)
        if (gp->sh[i].src == x && gp->sh[i].n == n) {
            gp->sh_hits++;
            return gp->sh[i].p16;
        }
    return NULL;
}

/* an activation as a GEMM operand of type t (converted into sc when 16-bit) */
const void *vgpu_act_operand(struct vla_gpu *gp, const float *x, int rows, int cols,
                             enum gpu_dtype t, struct scratch *sc)
{
    if (t == GPU_F32)
        return x;
    const void *s16 = vgpu_shadow_of(gp, x, (size_t)rows * cols);
    if (!s16 && (s16 = vgpu_mirror_of(gp, x, (size_t)rows * cols)))
        gp->mirror_hits++;
    if (s16)
        return s16;
    void *d = vgpu_scratch(gp, sc, (size_t)rows * cols * 2);
    vgpu_cvt16(gp, x, cols, d, cols, rows, cols);
    return d;
}

/* the 16-bit copy a producer of kind k writes beside y [n floats], or NULL
 * (fp32, or the unfused path); the slot is filled by shadow_set after the
 * launch */
void *vgpu_shadow_target(struct vla_gpu *gp, int k, size_t n)
{
    if (gp->dt == GPU_F32 || gp->no_shadow)
        return NULL;
    return vgpu_scratch(gp, &gp->sh_buf[k], n * 2);
}

void vgpu_shadow_set(struct vla_gpu *gp, int k, const float *y, size_t n, void *p16)
{
    if (p16 && !gp->err)
        gp->sh[k] = (struct shadow){y, n, p16};
}

/* the 16-bit copy of a weight [n, k]: the arena's, or (a weight outside
 * the arena: the kernel tests' own) converted into sc */
const void *vgpu_weight16(struct vla_gpu *gp, const float *w, int n, int k, struct scratch *sc)
{
    if (gp->arena16 && gp->arena16_dt == gp->dt && vgpu_in_arena(gp, w))
        return gp->arena16 + (w - gp->arena);
    void *d = vgpu_scratch(gp, sc, (size_t)n * k * 2);
    vgpu_cvt16(gp, w, k, d, k, n, k);
    return d;
}
