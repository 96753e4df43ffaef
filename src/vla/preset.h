/* preset.h - a VLA reference-workload preset: the shapes of one model
 * family (vision tower, language backbone, action expert, action head)
 * loaded from models/NAME.yaml or from the copy built into the binary.
 * Every dimension is validated at load time; an error names file:line:col. */
#ifndef RVD_VLA_PRESET_H
#define RVD_VLA_PRESET_H

#include <stddef.h>

enum vla_act {
    VLA_ACT_GELU_TANH, /* fc1 -> gelu_tanh -> fc2 (vision MLP) */
    VLA_ACT_GEGLU,     /* gelu_tanh(gate) * up -> down */
    VLA_ACT_SWIGLU,    /* silu(gate) * up -> down */
};

enum vla_router { VLA_ROUTER_SOFTMAX, VLA_ROUTER_SIGMOID };

struct vla_vision {
    int image; /* trained image side in pixels (square) */
    int patch; /* patch side in pixels */
    int width, depth, heads, mlp;
    enum vla_act mlp_act; /* gelu_tanh or swiglu */
    int merge;            /* side of the token merge before the projection (1 = none) */
    int cameras;
};

struct vla_moe {
    int experts; /* 0: dense MLP */
    int top_k;
    int expert_mlp, shared_mlp; /* shared_mlp 0: no shared expert */
    enum vla_router router;
};

struct vla_tower {
    int width, layers, heads, kv_heads, head_dim, mlp;
    enum vla_act mlp_act; /* geglu or swiglu */
    struct vla_moe moe;   /* expert only */
};

struct vla_preset {
    char *name;
    char *source; /* file name (or "NAME (built in)") for messages */
    char *description;
    struct vla_vision vision;
    struct vla_tower backbone; /* + vocab */
    int vocab;
    double rope_theta, norm_eps;
    struct vla_tower expert;
    int chunk, action_dim, steps, text_tokens;
    /* per action dimension: normalisation stats and joint limits */
    float *mean, *std, *low, *high;
};

/* Load preset NAME: NAME may be a path to a .yaml file; otherwise
 * DIR/NAME.yaml for models_dir, then models/NAME.yaml next to the binary,
 * then the built-in copy. Returns 0 or -1 (message printed). */
int vla_preset_find(struct vla_preset *p, const char *name, const char *models_dir);
int vla_preset_load_string(struct vla_preset *p, const char *source, const char *text, size_t len);
void vla_preset_release(struct vla_preset *p);
/* names of the built-in presets, NULL-terminated */
const char *const *vla_preset_builtin_names(void);
/* the YAML text of built-in preset NAME (the torch probe hands it to
 * Python), or NULL */
const char *vla_preset_builtin_text(const char *name, size_t *len);

/* derived shapes */
/* patches per side at image px: floor(image / patch) floored to a multiple
 * of merge; the pixels past grid x patch are dropped */
int vla_grid(const struct vla_preset *p, int image);
int vla_image_tokens(const struct vla_preset *p, int image); /* per camera, after merge */
int vla_prefix_len(const struct vla_preset *p, int image);

#endif
