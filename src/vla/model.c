/* model.c - the VLA pass over an ops table (see model.h, docs/VLA.md).
 * This file only sequences operations: all arithmetic on activations is in
 * the backend (ops_cpu.c), which is what lets a GPU backend run the same
 * pass. The integrator state (time grid, dt, x_t) is fp32 by construction. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/util.h"
#include "rng.h"

/* openpi's sinusoidal time embedding periods */
#define TIME_MIN_PERIOD 4e-3
#define TIME_MAX_PERIOD 4.0
#define VISION_LN_EPS 1e-6f

void vla_inputs_synthetic(struct vla_inputs *in, const struct vla_preset *p, int image,
                          uint64_t seed)
{
    memset(in, 0, sizeof(*in));
    in->batch = 1;
    in->image = image;
    in->cameras = p->vision.cameras;
    size_t ni = (size_t)in->cameras * 3 * image * image;
    in->images = xmalloc(ni * sizeof(float));
    vla_rng_fill_uniform(in->images, ni, seed, "input.images", -1.0, 1.0);
    in->ntok = p->text_tokens;
    in->tokens = xmalloc((size_t)in->ntok * sizeof(int32_t));
    uint64_t key = vla_rng_key(seed, "input.tokens");
    for (int i = 0; i < in->ntok; i++)
        in->tokens[i] = (int32_t)(vla_rng_bits(key, (uint64_t)i) % (uint64_t)p->vocab);
    size_t nn = (size_t)p->chunk * p->action_dim;
    in->noise = xmalloc(nn * sizeof(float));
    vla_rng_fill_normal(in->noise, nn, seed, "input.noise", 0.0, 1.0);
}

void vla_inputs_synthetic_batch(struct vla_inputs *in, const struct vla_preset *p, int image,
                                int batch, uint64_t seed)
{
    vla_inputs_synthetic(in, p, image, seed);
    if (batch <= 1)
        return;
    size_t ni = (size_t)in->cameras * 3 * image * image, nn = (size_t)p->chunk * p->action_dim;
    in->batch = batch;
    in->images = xrealloc(in->images, (size_t)batch * ni * sizeof(float));
    in->tokens = xrealloc(in->tokens, (size_t)batch * in->ntok * sizeof(int32_t));
    in->noise = xrealloc(in->noise, (size_t)batch * nn * sizeof(float));
    for (int b = 1; b < batch; b++) {
        struct vla_inputs one;
        vla_inputs_synthetic(&one, p, image, seed + (uint64_t)b);
        memcpy(in->images + b * ni, one.images, ni * sizeof(float));
        memcpy(in->tokens + (size_t)b * in->ntok, one.tokens, (size_t)in->ntok * sizeof(int32_t));
        memcpy(in->noise + b * nn, one.noise, nn * sizeof(float));
        vla_inputs_release(&one);
    }
}

void vla_inputs_release(struct vla_inputs *in)
{
    free(in->images);
    free(in->tokens);
    free(in->noise);
    memset(in, 0, sizeof(*in));
}

void vla_stats_release(struct vla_stats *st)
{
    for (size_t i = 0; i < st->n; i++)
        free(st->v[i].name);
    free(st->v);
    memset(st, 0, sizeof(*st));
}

/* ---- setup ------------------------------------------------------------ */

static float *rebase(float *ptr, const float *host_arena, float *dev_arena)
{
    return ptr ? dev_arena + (ptr - host_arena) : NULL;
}

/* the weights' pointers moved into a device arena (a GPU backend) */
static void weights_to_device(struct vla_model *m, const struct vla_weights *hw)
{
    const struct vla_ops *o = m->ops;
    const struct vla_preset *p = m->p;
    m->w = *hw;
    if (o->host_memory)
        return;
    m->dev_arena = o->alloc(o->ctx, hw->arena_len);
    o->upload(o->ctx, m->dev_arena, hw->arena, hw->arena_len);
    float *H = hw->arena, *D = m->dev_arena;
#define RB(f) m->w.f = rebase(hw->f, H, D)
    RB(patch_w), RB(patch_b), RB(pos), RB(vnorm_w), RB(vnorm_b), RB(proj_w), RB(proj_b);
    RB(embed), RB(ain_w), RB(ain_b), RB(tin_w), RB(tin_b), RB(tout_w), RB(tout_b);
    RB(efinal), RB(aout_w), RB(aout_b), RB(mean), RB(std), RB(low), RB(high);
#undef RB
    m->w.vb = xcalloc((size_t)p->vision.depth, sizeof(*m->w.vb));
    for (int i = 0; i < p->vision.depth; i++) {
        const struct vla_vblock *a = &hw->vb[i];
        struct vla_vblock *b = &m->w.vb[i];
#define RB(f) b->f = rebase(a->f, H, D)
        RB(norm1_w), RB(norm1_b), RB(qkv_w), RB(qkv_b), RB(o_w), RB(o_b), RB(norm2_w);
        RB(norm2_b), RB(fc1_w), RB(fc1_b), RB(fc2_w), RB(fc2_b);
#undef RB
    }
    struct vla_layer *dst[2];
    const struct vla_layer *src[2] = {hw->bl, hw->el};
    int nl[2] = {p->backbone.layers, p->expert.layers};
    for (int k = 0; k < 2; k++) {
        dst[k] = xcalloc((size_t)nl[k], sizeof(struct vla_layer));
        for (int l = 0; l < nl[k]; l++) {
            const struct vla_layer *a = &src[k][l];
            struct vla_layer *b = &dst[k][l];
#define RB(f) b->f = rebase(a->f, H, D)
            RB(attn_norm), RB(q_w), RB(kv_w), RB(o_w), RB(mlp_norm), RB(gate_up_w), RB(down_w);
            RB(router_w), RB(exp_gate_up_w), RB(exp_down_w), RB(sh_gate_up_w), RB(sh_down_w);
#undef RB
        }
    }
    m->w.bl = dst[0];
    m->w.el = dst[1];
}

static size_t maxz(size_t a, size_t b)
{
    return a > b ? a : b;
}

int vla_model_init(struct vla_model *m, const struct vla_preset *p, const struct vla_weights *w,
                   const struct vla_ops *ops, int image)
{
    return vla_model_init_batch(m, p, w, ops, image, 1, 0);
}

int vla_model_init_batch(struct vla_model *m, const struct vla_preset *p,
                         const struct vla_weights *w, const struct vla_ops *ops, int image,
                         int batch, int resident)
{
    memset(m, 0, sizeof(*m));
    /* a side that is no multiple of the patch drops its remainder pixels
     * (vla_grid), as the model's own stride-p convolution does */
    if (vla_grid(p, image) < 1)
        return error("image size %d is smaller than patch x merge (%d) of preset '%s'", image,
                     p->vision.patch * p->vision.merge, p->name);
    if (batch < 1)
        return error("batch %d: a pass takes at least one observation", batch);
    m->B = batch;
    m->p = p;
    m->ops = ops;
    if (resident)
        m->w = *w; /* already in the backend's memory, owned by the caller */
    else
        weights_to_device(m, w);
    const struct vla_vision *v = &p->vision;
    const struct vla_tower *b = &p->backbone, *e = &p->expert;
    m->image = image;
    m->grid = vla_grid(p, image);
    m->tok_cam = vla_image_tokens(p, image);
    m->Tv = v->cameras * m->grid * m->grid;
    m->P = vla_prefix_len(p, image);
    m->C = p->chunk;
    m->A = p->action_dim;
    /* every activation buffer holds B observations; posi and temb are shared */
    size_t Bz = (size_t)batch, Tv = Bz * m->Tv, W = (size_t)v->width, P = Bz * m->P, C = Bz * m->C;
    size_t E = (size_t)e->width, Dm = (size_t)b->width, A = (size_t)m->A;
    size_t qd = (size_t)b->heads * b->head_dim, kvd = 2 * (size_t)b->kv_heads * b->head_dim;
    size_t pp = 3 * (size_t)v->patch * v->patch;
    size_t k = e->moe.experts ? (size_t)e->moe.top_k : 0;
    m->img = ops->alloc(ops->ctx, Bz * v->cameras * 3 * image * image);
    m->patches = ops->alloc(ops->ctx, Tv * pp);
    m->vx = ops->alloc(ops->ctx, Tv * W);
    m->vh = ops->alloc(ops->ctx, Tv * W);
    m->qkv = ops->alloc(ops->ctx, Tv * 3 * W);
    m->vatt = ops->alloc(ops->ctx, Tv * W);
    m->vmlp = ops->alloc(ops->ctx, Tv * 2 * (size_t)v->mlp);
    m->vmlp2 = ops->alloc(ops->ctx, Tv * (size_t)v->mlp);
    m->merged = ops->alloc(ops->ctx, Tv * W);
    m->posi = ops->alloc(ops->ctx, (size_t)m->grid * m->grid * W);
    m->px = ops->alloc(ops->ctx, P * Dm);
    m->h = ops->alloc(ops->ctx, maxz(P * Dm, C * E));
    m->q = ops->alloc(ops->ctx, maxz(P, C) * qd);
    m->att = ops->alloc(ops->ctx, maxz(P, C) * qd);
    size_t gu = maxz(P * 2 * (size_t)b->mlp, C * 2 * (size_t)e->mlp);
    gu = maxz(gu, C * 2 * (size_t)e->moe.expert_mlp);
    gu = maxz(gu, C * 2 * (size_t)e->moe.shared_mlp);
    m->gu = ops->alloc(ops->ctx, gu);
    m->act = ops->alloc(ops->ctx, gu / 2);
    m->kv = ops->alloc(ops->ctx, (size_t)b->layers * (P + C) * kvd);
    m->xt = ops->alloc(ops->ctx, C * A);
    m->vel = ops->alloc(ops->ctx, C * A);
    m->out = ops->alloc(ops->ctx, C * A);
    m->ae = ops->alloc(ops->ctx, C * E);
    m->cat = ops->alloc(ops->ctx, C * 2 * E);
    m->tmp = ops->alloc(ops->ctx, C * E);
    m->ex = ops->alloc(ops->ctx, C * E);
    if (k) {
        m->logits = ops->alloc(ops->ctx, C * (size_t)e->moe.experts);
        m->gbuf = ops->alloc(ops->ctx, C * E);
        m->eo = ops->alloc(ops->ctx, C * E);
        m->moe_idx = xcalloc(C * k, sizeof(int));
        m->moe_w = xcalloc(C * k, sizeof(float));
        m->moe_rows = xcalloc(C, sizeof(int));
        m->moe_rw = xcalloc(C, sizeof(float));
    }
    return 0;
}

void vla_model_release(struct vla_model *m)
{
    const struct vla_ops *o = m->ops;
    if (!o)
        return;
    float *bufs[] = {m->img,   m->patches, m->vx,   m->vh,     m->qkv,  m->vatt, m->vmlp,
                     m->vmlp2, m->merged,  m->posi, m->px,     m->h,    m->q,    m->att,
                     m->gu,    m->act,     m->kv,   m->xt,     m->vel,  m->out,  m->ae,
                     m->cat,   m->tmp,     m->ex,   m->logits, m->gbuf, m->eo};
    for (size_t i = 0; i < ARRAY_SIZE(bufs); i++)
        if (bufs[i])
            o->release(o->ctx, bufs[i]);
    if (m->dev_arena) {
        o->release(o->ctx, m->dev_arena);
        free(m->w.vb);
        free(m->w.bl);
        free(m->w.el);
    }
    free(m->moe_idx);
    free(m->moe_w);
    free(m->moe_rows);
    free(m->moe_rw);
    memset(m, 0, sizeof(*m));
}

/* ---- statistics ------------------------------------------------------- */

static void stat(struct vla_model *m, struct vla_stats *st, const char *name, const float *x,
                 size_t n, int step)
{
    if (!st)
        return;
    int bad = 0;
    float mx = m->ops->max_abs(m->ops->ctx, x, n, &bad);
    struct vla_layer_stat *s = NULL;
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->v[i].name, name) == 0)
            s = &st->v[i];
    if (!s) {
        if (st->n == st->cap) {
            st->cap = st->cap ? 2 * st->cap : 64;
            st->v = xrealloc(st->v, st->cap * sizeof(*st->v));
        }
        s = &st->v[st->n++];
        memset(s, 0, sizeof(*s));
        s->name = xstrdup(name);
        s->first_step = -1;
    }
    s->max_abs = mx > s->max_abs ? mx : s->max_abs;
    if (bad && !s->nonfinite) {
        s->nonfinite = 1;
        s->first_step = step;
        if (st->first_bad < 0) {
            st->first_bad = (int)(s - st->v);
            st->first_bad_step = step;
        }
    }
}

/* ---- the pass --------------------------------------------------------- */

/* x += down(act(gate) * up) for T rows of width D; gate_up [2F, D] */
static void gated_mlp(struct vla_model *m, const float *h, float *x, const float *gate_up,
                      const float *down, int T, int D, int F, enum vla_act act)
{
    const struct vla_ops *o = m->ops;
    o->gated_mlp(o->ctx, h, gate_up, down, m->gu, m->act, x, T, D, F, act);
}

/* sparse MoE with optional shared expert: x += sum_k w_k E_k(h) + S(h) */
static void moe(struct vla_model *m, const struct vla_layer *L, const float *h, float *x, int T)
{
    const struct vla_ops *o = m->ops;
    const struct vla_tower *e = &m->p->expert;
    int X = e->moe.experts, k = e->moe.top_k, M = e->moe.expert_mlp, D = e->width;
    if (o->moe_dense) {
        o->moe_dense(o->ctx, h, x, L->router_w, L->exp_gate_up_w, L->exp_down_w, T, D, X, k, M,
                     e->moe.router, e->mlp_act, m->logits);
        goto shared;
    }
    o->matmul(o->ctx, h, L->router_w, NULL, m->logits, T, X, D, 0);
    o->moe_route(o->ctx, m->logits, T, X, k, e->moe.router, m->moe_idx, m->moe_w);
    for (int ei = 0; ei < X; ei++) {
        int n = 0;
        for (int t = 0; t < T; t++)
            for (int j = 0; j < k; j++)
                if (m->moe_idx[t * k + j] == ei) {
                    m->moe_rows[n] = t;
                    m->moe_rw[n++] = m->moe_w[t * k + j];
                }
        if (!n)
            continue;
        o->gather_rows(o->ctx, h, m->moe_rows, n, D, m->gbuf);
        o->matmul(o->ctx, m->gbuf, L->exp_gate_up_w + (size_t)ei * 2 * M * D, NULL, m->gu, n, 2 * M,
                  D, 0);
        o->glu(o->ctx, m->gu, m->gu + M, m->act, n, M, 2 * M, e->mlp_act);
        o->matmul(o->ctx, m->act, L->exp_down_w + (size_t)ei * D * M, NULL, m->eo, n, D, M, 0);
        o->scatter_add_rows(o->ctx, m->eo, m->moe_rows, m->moe_rw, n, D, x);
    }
shared:
    if (e->moe.shared_mlp)
        gated_mlp(m, h, x, L->sh_gate_up_w, L->sh_down_w, T, D, e->moe.shared_mlp, e->mlp_act);
}

/* one decoder layer (pre-norm, GQA + RoPE, gated MLP or MoE) over T tokens
 * of each of the B observations at positions pos0..; its K/V go to cache
 * rows pos0.. of the observation's cache (kvl + b * kvs) and the queries
 * attend to that cache's rows 0 .. pos0+T-1. Norms, projections and the
 * MLP run over all B*T rows at once (the weights are read once); attention
 * is one call per observation: each reads only its own cache */
static void decoder_layer(struct vla_model *m, const struct vla_tower *t, const struct vla_layer *L,
                          float *x, int T, int pos0, float *kvl)
{
    const struct vla_ops *o = m->ops;
    int D = t->width, H = t->heads, KV = t->kv_heads, hd = t->head_dim;
    int qd = H * hd, kvd = 2 * KV * hd, B = m->B, BT = B * T;
    size_t kvs = (size_t)(m->P + m->C) * kvd;
    float eps = (float)m->p->norm_eps;
    float *kvrows = kvl + (size_t)pos0 * kvd;
    o->rmsnorm(o->ctx, x, L->attn_norm, m->h, BT, D, eps);
    o->qkv_rope(o->ctx, m->h, L->q_w, L->kv_w, m->q, kvrows, B, kvs, T, D, H, KV, hd, pos0,
                m->p->rope_theta);
    float scale = 1.0f / sqrtf((float)hd);
    if (B == 1) { /* attention and the output projection in one op (16-bit O on a GPU) */
        o->attention_o(o->ctx, m->q, qd, kvl, kvl + (size_t)KV * hd, kvd, L->o_w, m->att, x, T,
                       pos0 + T, H, KV, hd, D, scale);
    } else { /* attention per observation, then one projection over every row */
        for (int b = 0; b < B; b++) {
            const float *kb = kvl + b * kvs;
            o->attention(o->ctx, m->q + (size_t)b * T * qd, qd, kb, kb + (size_t)KV * hd, kvd,
                         m->att + (size_t)b * T * qd, T, pos0 + T, H, KV, hd, scale);
        }
        o->matmul(o->ctx, m->att, L->o_w, NULL, x, BT, D, qd, 1);
    }
    o->rmsnorm(o->ctx, x, L->mlp_norm, m->h, BT, D, eps);
    if (t->moe.experts)
        moe(m, L, m->h, x, BT);
    else
        gated_mlp(m, m->h, x, L->gate_up_w, L->down_w, BT, D, t->mlp, t->mlp_act);
}

static void vision(struct vla_model *m, const struct vla_inputs *in, struct vla_stats *st)
{
    const struct vla_ops *o = m->ops;
    const struct vla_vision *v = &m->p->vision;
    const struct vla_weights *w = &m->w;
    /* the B observations' cameras are B*cameras independent sequences;
     * Tv counts the tokens of all of them */
    int S = m->image, g = m->grid, gg = g * g, W = v->width, M = v->mlp, Tv = m->B * m->Tv;
    int pp = 3 * v->patch * v->patch, hd = W / v->heads, mm = v->merge * v->merge;
    int cams = m->B * v->cameras;
    o->upload(o->ctx, m->img, in->images, (size_t)cams * 3 * S * S);
    o->patchify(o->ctx, m->img, m->patches, cams, S, v->patch, g);
    o->matmul(o->ctx, m->patches, w->patch_w, w->patch_b, m->vx, Tv, W, pp, 0);
    o->pos_interp(o->ctx, w->pos, v->image / v->patch, m->posi, g, W);
    /* the position table added to every camera's tokens: one broadcast
     * (a camera's gg x W block as one row of bias_act's) */
    o->bias_act(o->ctx, m->vx, m->posi, cams, gg * W, VLA_BIAS_ONLY);
    stat(m, st, "vision.patch_embed", m->vx, (size_t)Tv * W, -1);
    char name[64];
    /* a residual bias not yet added (the fc2 bias of the block before): the
     * next layernorm adds it in the same pass over x (bias_layernorm) */
    const float *pending = NULL;
    for (int i = 0; i < v->depth; i++) {
        const struct vla_vblock *b = &w->vb[i];
        o->bias_layernorm(o->ctx, m->vx, pending, b->norm1_w, b->norm1_b, m->vh, Tv, W,
                          VISION_LN_EPS);
        o->attention_block(o->ctx, m->vh, b->qkv_w, b->qkv_b, b->o_w, m->qkv, m->vatt, m->vx, cams,
                           gg, v->heads, hd, 1.0f / sqrtf((float)hd));
        o->bias_layernorm(o->ctx, m->vx, b->o_b, b->norm2_w, b->norm2_b, m->vh, Tv, W,
                          VISION_LN_EPS);
        if (v->mlp_act == VLA_ACT_SWIGLU) {
            o->matmul(o->ctx, m->vh, b->fc1_w, b->fc1_b, m->vmlp, Tv, 2 * M, W, 0);
            o->glu(o->ctx, m->vmlp, m->vmlp + M, m->vmlp2, Tv, M, 2 * M, VLA_ACT_SWIGLU);
            o->matmul(o->ctx, m->vmlp2, b->fc2_w, NULL, m->vx, Tv, W, M, 1);
        } else {
            o->mlp_block(o->ctx, m->vh, b->fc1_w, b->fc1_b, b->fc2_w, m->vmlp, m->vx, Tv, W, M,
                         VLA_BIAS_GELU_TANH);
        }
        pending = b->fc2_b;
        if (st) { /* the statistics read x with its bias */
            o->bias_act(o->ctx, m->vx, pending, Tv, W, VLA_BIAS_ONLY);
            pending = NULL;
        }
        snprintf(name, sizeof(name), "vision.blocks.%d", i);
        stat(m, st, name, m->vx, (size_t)Tv * W, -1);
    }
    o->bias_layernorm(o->ctx, m->vx, pending, w->vnorm_w, w->vnorm_b, m->vh, Tv, W, VISION_LN_EPS);
    const float *src = m->vh;
    if (v->merge > 1) {
        for (int c = 0; c < cams; c++)
            o->merge(o->ctx, m->vh + (size_t)c * gg * W, m->merged + (size_t)c * gg * W, g,
                     v->merge, W);
        src = m->merged;
    }
    /* into each observation's prefix rows (its text rows follow them): one
     * projection per observation */
    int Ti = v->cameras * m->tok_cam, Dm = m->p->backbone.width;
    for (int b = 0; b < m->B; b++) {
        float *px = m->px + (size_t)b * m->P * Dm;
        o->matmul(o->ctx, src + (size_t)b * m->Tv * W, w->proj_w, w->proj_b, px, Ti, Dm, mm * W, 0);
        stat(m, st, "vision.proj", px, (size_t)Ti * Dm, -1);
    }
}

static void prefix(struct vla_model *m, const struct vla_inputs *in, struct vla_stats *st)
{
    const struct vla_ops *o = m->ops;
    const struct vla_preset *p = m->p;
    int D = p->backbone.width, Ti = p->vision.cameras * m->tok_cam;
    size_t kvd = 2 * (size_t)p->backbone.kv_heads * p->backbone.head_dim;
    /* Gemma scales token embeddings by sqrt(width) */
    for (int b = 0; b < m->B; b++) {
        float *tx = m->px + ((size_t)b * m->P + Ti) * D;
        o->embed(o->ctx, m->w.embed, in->tokens + (size_t)b * in->ntok, tx, in->ntok, D,
                 sqrtf((float)D));
        stat(m, st, "backbone.embed", tx, (size_t)in->ntok * D, -1);
    }
    char name[64];
    for (int l = 0; l < p->backbone.layers; l++) {
        decoder_layer(m, &p->backbone, &m->w.bl[l], m->px, m->P, 0,
                      m->kv + (size_t)l * m->B * (m->P + m->C) * kvd);
        snprintf(name, sizeof(name), "backbone.layers.%d", l);
        stat(m, st, name, m->px, (size_t)m->B * m->P * D, -1);
    }
}

static void denoise_step(struct vla_model *m, int step, float t, float dt, struct vla_stats *st)
{
    const struct vla_ops *o = m->ops;
    const struct vla_preset *p = m->p;
    const struct vla_weights *w = &m->w;
    int E = p->expert.width, C = m->B * m->C, A = m->A; /* C: rows of all B observations */
    size_t kvd = 2 * (size_t)p->backbone.kv_heads * p->backbone.head_dim;
    o->matmul(o->ctx, m->xt, w->ain_w, w->ain_b, m->ae, C, E, A, 0);
    o->time_concat(o->ctx, m->ae, E, m->cat, C, E, t, TIME_MIN_PERIOD, TIME_MAX_PERIOD);
    o->matmul(o->ctx, m->cat, w->tin_w, NULL, m->tmp, C, E, 2 * E, 0);
    o->bias_act(o->ctx, m->tmp, w->tin_b, C, E, VLA_BIAS_SILU);
    o->matmul(o->ctx, m->tmp, w->tout_w, w->tout_b, m->ex, C, E, E, 0);
    stat(m, st, "expert.input", m->ex, (size_t)C * E, step);
    char name[64];
    for (int l = 0; l < p->expert.layers; l++) {
        decoder_layer(m, &p->expert, &w->el[l], m->ex, m->C, m->P,
                      m->kv + (size_t)l * m->B * (m->P + m->C) * kvd);
        snprintf(name, sizeof(name), "expert.layers.%d", l);
        stat(m, st, name, m->ex, (size_t)C * E, step);
    }
    o->rmsnorm(o->ctx, m->ex, w->efinal, m->h, C, E, (float)p->norm_eps);
    o->matmul(o->ctx, m->h, w->aout_w, w->aout_b, m->vel, C, A, E, 0);
    stat(m, st, "expert.velocity", m->vel, (size_t)C * A, step);
    /* Euler: x_{t+dt} = x_t + dt v, dt = -1/steps, all fp32 */
    o->axpy(o->ctx, m->xt, m->vel, dt, (size_t)C * A);
}

int vla_forward(struct vla_model *m, const struct vla_inputs *in, float *actions, double *stage_s,
                struct vla_stats *st)
{
    const struct vla_ops *o = m->ops;
    const struct vla_preset *p = m->p;
    if (in->image != m->image || in->cameras != p->vision.cameras || in->ntok != p->text_tokens ||
        in->batch != m->B)
        return error("inputs do not match the model (batch %d, image %d, %d cameras, %d tokens)",
                     in->batch, in->image, in->cameras, in->ntok);
    size_t na = (size_t)m->B * m->C * m->A;
    for (int i = 0; i < m->B * in->ntok; i++)
        if (in->tokens[i] < 0 || in->tokens[i] >= p->vocab)
            return error("text token %d (%d) is outside the vocabulary (%d)", i, in->tokens[i],
                         p->vocab);
    if (st) {
        vla_stats_release(st);
        st->first_bad = -1;
        st->first_bad_step = -1;
    }
    double t0 = util_mono_s(), t1;
    vision(m, in, st);
    o->sync(o->ctx);
    t1 = util_mono_s();
    if (stage_s)
        stage_s[0] = t1 - t0;
    t0 = t1;
    prefix(m, in, st);
    o->sync(o->ctx);
    t1 = util_mono_s();
    if (stage_s)
        stage_s[1] = t1 - t0;
    t0 = t1;
    o->upload(o->ctx, m->xt, in->noise, na);
    /* openpi's integrator: time starts at 1 and accumulates dt in fp32 */
    const float dt = -1.0f / (float)p->steps;
    float t = 1.0f;
    for (int s = 0; s < p->steps; s++) {
        denoise_step(m, s, t, dt, st);
        t += dt;
        o->sync(o->ctx);
        t1 = util_mono_s();
        if (stage_s)
            stage_s[2 + s] = t1 - t0;
        t0 = t1;
    }
    o->denorm_clamp(o->ctx, m->xt, m->out, m->B * m->C, m->A, m->w.mean, m->w.std, m->w.low,
                    m->w.high);
    stat(m, st, "actions", m->out, na, -1);
    o->download(o->ctx, actions, m->out, na);
    o->sync(o->ctx);
    t1 = util_mono_s();
    if (stage_s)
        stage_s[2 + p->steps] = t1 - t0;
    return 0;
}

static double tower_flops(const struct vla_tower *t, double T, double Tk)
{
    double D = t->width, qd = (double)t->heads * t->head_dim, kvd = 2.0 * t->kv_heads * t->head_dim;
    double f = 2 * T * D * (qd + kvd) + 2 * T * qd * D; /* projections */
    f += 4 * T * Tk * qd;                               /* scores + weighted sum */
    if (t->moe.experts) {
        f += 2 * T * D * t->moe.experts;
        f += 6 * T * D * (double)t->moe.expert_mlp * t->moe.top_k;
        f += 6 * T * D * (double)t->moe.shared_mlp;
    } else {
        f += 6 * T * D * t->mlp;
    }
    return f * t->layers;
}

double vla_flops(const struct vla_preset *p, int image)
{
    const struct vla_vision *v = &p->vision;
    double g = vla_grid(p, image), T = g * g, W = v->width;
    double mlp = v->mlp_act == VLA_ACT_SWIGLU ? 6 * T * W * v->mlp : 4 * T * W * v->mlp;
    double vis = 2 * T * 3.0 * v->patch * v->patch * W +
                 v->depth * (2 * T * W * 4 * W + 4 * T * T * W + mlp);
    vis += 2 * (double)vla_image_tokens(p, image) * v->merge * v->merge * W * p->backbone.width;
    vis *= v->cameras;
    double P = vla_prefix_len(p, image), C = p->chunk, E = p->expert.width;
    double pre = tower_flops(&p->backbone, P, P);
    double step =
        tower_flops(&p->expert, C, P + C) + 2 * C * p->action_dim * E * 2 + 2 * C * 3 * E * E;
    return vis + pre + p->steps * step;
}
