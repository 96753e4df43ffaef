/* weights.h - the tensors of a preset: names and shapes (docs/VLA.md lists
 * the scheme), synthetic values from a seed, or values read from a
 * safetensors file, and saving them as safetensors. All values are held in
 * fp32 in one host arena. */
#ifndef RVD_VLA_WEIGHTS_H
#define RVD_VLA_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "preset.h"

enum vla_init {
    VLA_INIT_LINEAR,   /* normal(0, 1/sqrt(fan_in)), fan_in = last dimension */
    VLA_INIT_BIAS,     /* normal(0, 0.02) */
    VLA_INIT_NORM,     /* 1 + normal(0, 0.02) */
    VLA_INIT_ZERO_ISH, /* normal(0, 0.02): layernorm bias */
    VLA_INIT_POS,      /* normal(0, 0.2): learned position table */
    VLA_INIT_EMBED,    /* normal(0, 1/sqrt(width)); the backbone scales by sqrt(width) */
    VLA_INIT_STATS,    /* action stats: taken from the preset */
};

struct vla_tensor {
    char *name;
    int ndim;
    uint64_t shape[4];
    uint64_t nelem;
    enum vla_init init;
    float *data; /* into the arena */
    float **dst; /* the named pointer (struct vla_weights) set to data */
};

struct vla_vblock {
    float *norm1_w, *norm1_b, *qkv_w, *qkv_b, *o_w, *o_b, *norm2_w, *norm2_b;
    float *fc1_w, *fc1_b, *fc2_w, *fc2_b; /* fc1 is gate_up [2M, W] for swiglu */
};

struct vla_layer {
    float *attn_norm, *q_w, *kv_w, *o_w, *mlp_norm;
    float *gate_up_w, *down_w;                    /* dense MLP */
    float *router_w, *exp_gate_up_w, *exp_down_w; /* MoE: [X, E], [X, 2M, E], [X, E, M] */
    float *sh_gate_up_w, *sh_down_w;              /* shared expert */
};

struct vla_weights {
    struct vla_tensor *t;
    size_t n, cap;
    float *arena;
    size_t arena_len; /* floats */
    char *origin;     /* "synthetic seed S" or the file name */
    /* vision */
    float *patch_w, *patch_b, *pos;
    struct vla_vblock *vb;
    float *vnorm_w, *vnorm_b, *proj_w, *proj_b;
    /* backbone */
    float *embed;
    struct vla_layer *bl;
    /* expert */
    float *ain_w, *ain_b, *tin_w, *tin_b, *tout_w, *tout_b;
    struct vla_layer *el;
    float *efinal, *aout_w, *aout_b;
    /* action stats [A] */
    float *mean, *std, *low, *high;
};

/* the layout: names and shapes; with allocate, the arena too (zeroed).
 * 0 or -1 when the arena cannot be allocated. */
int vla_weights_layout(struct vla_weights *w, const struct vla_preset *p, int allocate);
void vla_weights_synthetic(struct vla_weights *w, const struct vla_preset *p, uint64_t seed);
/* 0 or -1; an error names the tensor. Action stats in the file override the
 * preset's; a file without them keeps the preset's. */
int vla_weights_load(struct vla_weights *w, const struct vla_preset *p, const char *path);
int vla_weights_save(const struct vla_weights *w, const struct vla_preset *p, const char *path);
void vla_weights_release(struct vla_weights *w);
uint64_t vla_weights_params(const struct vla_weights *w); /* excluding the action stats */

#endif
