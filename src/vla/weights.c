/* weights.c - the tensor layout of a preset (the naming scheme of
 * docs/VLA.md), synthetic initialisation from the counter RNG, loading from
 * and saving to safetensors. */
#include "weights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/version.h"
#include "../core/util.h"
#include "rng.h"
#include "safetensors.h"

static void reg(struct vla_weights *w, float **dst, enum vla_init init, int ndim, uint64_t d0,
                uint64_t d1, uint64_t d2, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void reg(struct vla_weights *w, float **dst, enum vla_init init, int ndim, uint64_t d0,
                uint64_t d1, uint64_t d2, const char *fmt, ...)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->t = xrealloc(w->t, w->cap * sizeof(*w->t));
    }
    struct vla_tensor *t = &w->t[w->n];
    memset(t, 0, sizeof(*t));
    va_list ap;
    va_start(ap, fmt);
    struct strbuf sb = STRBUF_INIT;
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    t->name = strbuf_detach(&sb);
    t->ndim = ndim;
    t->shape[0] = d0, t->shape[1] = d1, t->shape[2] = d2;
    t->nelem = 1;
    for (int i = 0; i < ndim; i++)
        t->nelem *= t->shape[i];
    t->init = init;
    t->dst = dst;
    w->n++;
}

#define LIN(dst, out, in, ...) reg(w, dst, VLA_INIT_LINEAR, 2, out, in, 0, __VA_ARGS__)
#define VEC(dst, init, n, ...) reg(w, dst, init, 1, n, 0, 0, __VA_ARGS__)

static void reg_layer(struct vla_weights *w, const struct vla_preset *p, const char *tower, int l,
                      const struct vla_tower *t, struct vla_layer *L)
{
    uint64_t D = (uint64_t)t->width, hd = (uint64_t)t->head_dim;
    uint64_t qd = (uint64_t)t->heads * hd, kvd = 2 * (uint64_t)t->kv_heads * hd;
    (void)p;
    VEC(&L->attn_norm, VLA_INIT_NORM, D, "%s.layers.%d.attn_norm.weight", tower, l);
    LIN(&L->q_w, qd, D, "%s.layers.%d.attn.q.weight", tower, l);
    LIN(&L->kv_w, kvd, D, "%s.layers.%d.attn.kv.weight", tower, l);
    LIN(&L->o_w, D, qd, "%s.layers.%d.attn.o.weight", tower, l);
    VEC(&L->mlp_norm, VLA_INIT_NORM, D, "%s.layers.%d.mlp_norm.weight", tower, l);
    if (t->moe.experts) {
        uint64_t X = (uint64_t)t->moe.experts, M = (uint64_t)t->moe.expert_mlp;
        LIN(&L->router_w, X, D, "%s.layers.%d.moe.router.weight", tower, l);
        reg(w, &L->exp_gate_up_w, VLA_INIT_LINEAR, 3, X, 2 * M, D,
            "%s.layers.%d.moe.experts.gate_up.weight", tower, l);
        reg(w, &L->exp_down_w, VLA_INIT_LINEAR, 3, X, D, M, "%s.layers.%d.moe.experts.down.weight",
            tower, l);
        if (t->moe.shared_mlp) {
            uint64_t S = (uint64_t)t->moe.shared_mlp;
            LIN(&L->sh_gate_up_w, 2 * S, D, "%s.layers.%d.moe.shared.gate_up.weight", tower, l);
            LIN(&L->sh_down_w, D, S, "%s.layers.%d.moe.shared.down.weight", tower, l);
        }
    } else {
        uint64_t F = (uint64_t)t->mlp;
        LIN(&L->gate_up_w, 2 * F, D, "%s.layers.%d.mlp.gate_up.weight", tower, l);
        LIN(&L->down_w, D, F, "%s.layers.%d.mlp.down.weight", tower, l);
    }
}

int vla_weights_layout(struct vla_weights *w, const struct vla_preset *p, int allocate)
{
    memset(w, 0, sizeof(*w));
    const struct vla_vision *v = &p->vision;
    uint64_t W = (uint64_t)v->width, M = (uint64_t)v->mlp, pp = 3 * (uint64_t)v->patch * v->patch;
    uint64_t g0 = (uint64_t)(v->image / v->patch), D = (uint64_t)p->backbone.width;
    uint64_t E = (uint64_t)p->expert.width, A = (uint64_t)p->action_dim;

    LIN(&w->patch_w, W, pp, "vision.patch_embed.weight");
    VEC(&w->patch_b, VLA_INIT_BIAS, W, "vision.patch_embed.bias");
    reg(w, &w->pos, VLA_INIT_POS, 2, g0 * g0, W, 0, "vision.pos_embed");
    w->vb = xcalloc((size_t)v->depth, sizeof(*w->vb));
    for (int i = 0; i < v->depth; i++) {
        struct vla_vblock *b = &w->vb[i];
        VEC(&b->norm1_w, VLA_INIT_NORM, W, "vision.blocks.%d.norm1.weight", i);
        VEC(&b->norm1_b, VLA_INIT_ZERO_ISH, W, "vision.blocks.%d.norm1.bias", i);
        LIN(&b->qkv_w, 3 * W, W, "vision.blocks.%d.attn.qkv.weight", i);
        VEC(&b->qkv_b, VLA_INIT_BIAS, 3 * W, "vision.blocks.%d.attn.qkv.bias", i);
        LIN(&b->o_w, W, W, "vision.blocks.%d.attn.o.weight", i);
        VEC(&b->o_b, VLA_INIT_BIAS, W, "vision.blocks.%d.attn.o.bias", i);
        VEC(&b->norm2_w, VLA_INIT_NORM, W, "vision.blocks.%d.norm2.weight", i);
        VEC(&b->norm2_b, VLA_INIT_ZERO_ISH, W, "vision.blocks.%d.norm2.bias", i);
        if (v->mlp_act == VLA_ACT_SWIGLU) {
            LIN(&b->fc1_w, 2 * M, W, "vision.blocks.%d.mlp.gate_up.weight", i);
            VEC(&b->fc1_b, VLA_INIT_BIAS, 2 * M, "vision.blocks.%d.mlp.gate_up.bias", i);
            LIN(&b->fc2_w, W, M, "vision.blocks.%d.mlp.down.weight", i);
            VEC(&b->fc2_b, VLA_INIT_BIAS, W, "vision.blocks.%d.mlp.down.bias", i);
        } else {
            LIN(&b->fc1_w, M, W, "vision.blocks.%d.mlp.fc1.weight", i);
            VEC(&b->fc1_b, VLA_INIT_BIAS, M, "vision.blocks.%d.mlp.fc1.bias", i);
            LIN(&b->fc2_w, W, M, "vision.blocks.%d.mlp.fc2.weight", i);
            VEC(&b->fc2_b, VLA_INIT_BIAS, W, "vision.blocks.%d.mlp.fc2.bias", i);
        }
    }
    VEC(&w->vnorm_w, VLA_INIT_NORM, W, "vision.norm.weight");
    VEC(&w->vnorm_b, VLA_INIT_ZERO_ISH, W, "vision.norm.bias");
    uint64_t mm = (uint64_t)v->merge * v->merge;
    LIN(&w->proj_w, D, mm * W, "vision.proj.weight");
    VEC(&w->proj_b, VLA_INIT_BIAS, D, "vision.proj.bias");

    reg(w, &w->embed, VLA_INIT_EMBED, 2, (uint64_t)p->vocab, D, 0, "backbone.embed.weight");
    w->bl = xcalloc((size_t)p->backbone.layers, sizeof(*w->bl));
    for (int l = 0; l < p->backbone.layers; l++)
        reg_layer(w, p, "backbone", l, &p->backbone, &w->bl[l]);

    LIN(&w->ain_w, E, A, "expert.action_in.weight");
    VEC(&w->ain_b, VLA_INIT_BIAS, E, "expert.action_in.bias");
    LIN(&w->tin_w, E, 2 * E, "expert.time_in.weight");
    VEC(&w->tin_b, VLA_INIT_BIAS, E, "expert.time_in.bias");
    LIN(&w->tout_w, E, E, "expert.time_out.weight");
    VEC(&w->tout_b, VLA_INIT_BIAS, E, "expert.time_out.bias");
    w->el = xcalloc((size_t)p->expert.layers, sizeof(*w->el));
    for (int l = 0; l < p->expert.layers; l++)
        reg_layer(w, p, "expert", l, &p->expert, &w->el[l]);
    VEC(&w->efinal, VLA_INIT_NORM, E, "expert.final_norm.weight");
    LIN(&w->aout_w, A, E, "expert.action_out.weight");
    VEC(&w->aout_b, VLA_INIT_BIAS, A, "expert.action_out.bias");

    VEC(&w->mean, VLA_INIT_STATS, A, "action.mean");
    VEC(&w->std, VLA_INIT_STATS, A, "action.std");
    VEC(&w->low, VLA_INIT_STATS, A, "action.low");
    VEC(&w->high, VLA_INIT_STATS, A, "action.high");

    /* every tensor starts on a 64-byte boundary */
    size_t off = 0;
    for (size_t i = 0; i < w->n; i++)
        off += (w->t[i].nelem + 15) & ~(uint64_t)15;
    w->arena_len = off;
    if (!allocate)
        return 0;
    w->arena = aligned_alloc(64, (off ? off : 16) * sizeof(float));
    if (!w->arena)
        return error("cannot allocate %.1f GiB for the weights of preset '%s'",
                     (double)off * 4 / (1 << 30), p->name);
    memset(w->arena, 0, off * sizeof(float));
    off = 0;
    for (size_t i = 0; i < w->n; i++) {
        w->t[i].data = w->arena + off;
        *w->t[i].dst = w->t[i].data;
        off += (w->t[i].nelem + 15) & ~(uint64_t)15;
    }
    return 0;
}

static void set_stats(struct vla_weights *w, const struct vla_preset *p)
{
    size_t n = (size_t)p->action_dim * sizeof(float);
    memcpy(w->mean, p->mean, n);
    memcpy(w->std, p->std, n);
    memcpy(w->low, p->low, n);
    memcpy(w->high, p->high, n);
}

void vla_weights_synthetic(struct vla_weights *w, const struct vla_preset *p, uint64_t seed)
{
    for (size_t i = 0; i < w->n; i++) {
        struct vla_tensor *t = &w->t[i];
        double fan_in = (double)t->shape[t->ndim - 1];
        switch (t->init) {
        case VLA_INIT_LINEAR:
            vla_rng_fill_normal(t->data, t->nelem, seed, t->name, 0.0, 1.0 / sqrt(fan_in));
            break;
        case VLA_INIT_BIAS:
        case VLA_INIT_ZERO_ISH:
            vla_rng_fill_normal(t->data, t->nelem, seed, t->name, 0.0, 0.02);
            break;
        case VLA_INIT_NORM:
            vla_rng_fill_normal(t->data, t->nelem, seed, t->name, 1.0, 0.02);
            break;
        case VLA_INIT_POS:
            vla_rng_fill_normal(t->data, t->nelem, seed, t->name, 0.0, 0.2);
            break;
        case VLA_INIT_EMBED:
            vla_rng_fill_normal(t->data, t->nelem, seed, t->name, 0.0, 1.0 / sqrt(fan_in));
            break;
        case VLA_INIT_STATS:
            break;
        }
    }
    set_stats(w, p);
    free(w->origin);
    w->origin = xasprintf("synthetic (seed %llu)", (unsigned long long)seed);
}

static void shape_str(char *buf, size_t n, int ndim, const uint64_t *shape)
{
    size_t at = 0;
    at += (size_t)snprintf(buf + at, n - at, "[");
    for (int i = 0; i < ndim && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%llu", i ? ", " : "",
                               (unsigned long long)shape[i]);
    if (at < n)
        snprintf(buf + at, n - at, "]");
}

int vla_weights_load(struct vla_weights *w, const struct vla_preset *p, const char *path)
{
    struct st_file f;
    if (st_open(&f, path)) {
        st_close(&f);
        return -1;
    }
    int rc = 0, have_stats = 0;
    for (size_t i = 0; i < w->n && !rc; i++) {
        struct vla_tensor *t = &w->t[i];
        const struct st_tensor *s = st_find(&f, t->name);
        if (!s) {
            if (t->init == VLA_INIT_STATS)
                continue;
            rc = error("%s: tensor '%s' is missing (preset '%s' needs it)", path, t->name, p->name);
            break;
        }
        int same = s->ndim == t->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = s->shape[d] == t->shape[d];
        if (!same) {
            char got[96], want[96];
            shape_str(got, sizeof(got), s->ndim, s->shape);
            shape_str(want, sizeof(want), t->ndim, t->shape);
            rc = error("%s: tensor '%s' has shape %s, preset '%s' needs %s", path, t->name, got,
                       p->name, want);
            break;
        }
        st_to_f32(&f, s, t->data);
        if (t->init == VLA_INIT_STATS)
            have_stats++;
    }
    if (!rc && have_stats && have_stats != 4)
        rc = error("%s: action.mean/std/low/high must be given together", path);
    if (!rc && !have_stats)
        set_stats(w, p);
    for (int a = 0; !rc && a < p->action_dim; a++) {
        if (!(w->std[a] > 0) || !(w->low[a] < w->high[a]) || !isfinite(w->mean[a]))
            rc = error("%s: tensor 'action.%s' is not usable at dimension %d", path,
                       !(w->std[a] > 0)        ? "std"
                       : !isfinite(w->mean[a]) ? "mean"
                                               : "low",
                       a);
    }
    if (!rc) {
        free(w->origin);
        w->origin = xstrdup(path);
    }
    st_close(&f);
    return rc;
}

int vla_weights_save(const struct vla_weights *w, const struct vla_preset *p, const char *path)
{
    struct st_wtensor *wt = xcalloc(w->n, sizeof(*wt));
    for (size_t i = 0; i < w->n; i++) {
        wt[i].name = w->t[i].name;
        wt[i].ndim = w->t[i].ndim;
        memcpy(wt[i].shape, w->t[i].shape, sizeof(w->t[i].shape));
        wt[i].data = w->t[i].data;
    }
    char *writer = xasprintf("rocm-vla-doctor %s", RVD_VERSION);
    const char *meta[] = {"format", "pt",  "preset", p->name, "origin", w->origin ? w->origin : "",
                          "writer", writer};
    int rc = st_write(path, wt, w->n, meta, 4);
    free(writer);
    free(wt);
    return rc;
}

void vla_weights_release(struct vla_weights *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->t[i].name);
    free(w->t);
    free(w->arena);
    free(w->vb);
    free(w->bl);
    free(w->el);
    free(w->origin);
    memset(w, 0, sizeof(*w));
}

uint64_t vla_weights_params(const struct vla_weights *w)
{
    uint64_t n = 0;
    for (size_t i = 0; i < w->n; i++)
        if (w->t[i].init != VLA_INIT_STATS)
            n += w->t[i].nelem;
    return n;
}
