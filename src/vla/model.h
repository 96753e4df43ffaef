/* model.h - the VLA forward pass of a preset (pi0 family, docs/VLA.md):
 * vision tower -> projection -> backbone over image + text tokens building
 * the KV cache of every layer -> N Euler flow-matching steps of the action
 * expert -> de-normalisation and clamp. Runs on any backend's ops table. */
#ifndef RVD_VLA_MODEL_H
#define RVD_VLA_MODEL_H

#include <stdint.h>

#include "ops.h"
#include "preset.h"
#include "weights.h"

struct vla_inputs {
    int batch;          /* B independent observations, one after the other below */
    int image, cameras; /* image side in px */
    float *images;      /* [B, cameras, 3, image, image] in [-1, 1] */
    int32_t *tokens;    /* [B, text_tokens] */
    int ntok;
    float *noise; /* [B, chunk, action_dim] ~ N(0, 1): x at t = 1 */
};

/* inputs from the counter RNG (tensor names input.images, input.tokens,
 * input.noise; tokens are bits(i) mod vocab); batch 1 */
void vla_inputs_synthetic(struct vla_inputs *in, const struct vla_preset *p, int image,
                          uint64_t seed);
/* B observations: observation b is vla_inputs_synthetic's with seed + b,
 * so observation 0 is the batch-1 input of the same seed */
void vla_inputs_synthetic_batch(struct vla_inputs *in, const struct vla_preset *p, int image,
                                int batch, uint64_t seed);
void vla_inputs_release(struct vla_inputs *in);

struct vla_layer_stat {
    char *name;
    float max_abs; /* over finite values, max over denoising steps */
    int nonfinite;
    int first_step; /* expert layers: step of the first NaN/Inf, else -1 */
};

struct vla_stats {
    struct vla_layer_stat *v;
    size_t n, cap;
    int first_bad; /* index into v of the first layer with a NaN/Inf, or -1 */
    int first_bad_step;
};

void vla_stats_release(struct vla_stats *st);

struct vla_model {
    const struct vla_preset *p;
    const struct vla_ops *ops;
    struct vla_weights w; /* pointers in backend memory */
    float *dev_arena;     /* NULL on host-memory backends */
    int B;                /* observations per pass: weight GEMMs run over B x tokens rows */
    /* per observation: grid = patches per side (floor(image / patch), floored
     * to a multiple of merge), Tv = cameras x grid^2, P prefix, C chunk */
    int image, grid, tok_cam, Tv, P, C, A;
    float *img, *patches, *vx, *vh, *qkv, *vatt, *vmlp, *vmlp2, *merged, *posi;
    float *px, *h, *q, *att, *gu, *act, *kv;
    float *xt, *vel, *out, *ae, *cat, *tmp, *ex;
    float *logits, *gbuf, *eo;
    int *moe_idx, *moe_rows;
    float *moe_w, *moe_rw;
};

/* stage timing: [0] vision, [1] prefix, [2 .. 2+steps-1] denoising steps,
 * [2+steps] post-processing */
#define VLA_STAGES(p) ((p)->steps + 3)
/* the largest batch bench and its sweep take (observations per call) */
#define VLA_MAX_BATCH 64

int vla_model_init(struct vla_model *m, const struct vla_preset *p, const struct vla_weights *w,
                   const struct vla_ops *ops, int image);
/* the same for B observations per pass (batch >= 1; resident as above) */
int vla_model_init_batch(struct vla_model *m, const struct vla_preset *p,
                         const struct vla_weights *w, const struct vla_ops *ops, int image,
                         int batch, int resident);
void vla_model_release(struct vla_model *m);
/* one pass; actions [B, chunk, action_dim] in physical units (host memory).
 * stage_s may be NULL; st (may be NULL) collects per-layer statistics. */
int vla_forward(struct vla_model *m, const struct vla_inputs *in, float *actions, double *stage_s,
                struct vla_stats *st);

/* FLOPs of one pass (multiply-add = 2), for reporting */
double vla_flops(const struct vla_preset *p, int image);

#endif
