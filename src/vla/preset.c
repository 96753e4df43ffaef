/* preset.c - load and validate a VLA preset (models/NAME.yaml) with
 * libyaml's document API. Unknown keys, missing dimensions and absurd values
 * are errors that name file:line:col, so a typo never silently shrinks the
 * workload. */
#include "preset.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "../core/datadir.h"
#include "../core/suggest.h"
#include "../core/util.h"

/* built-in presets (embed_models.S) */
extern const char rvd_model_tiny[], rvd_model_tiny_end[];
extern const char rvd_model_pi0[], rvd_model_pi0_end[];
extern const char rvd_model_lingbot_v1[], rvd_model_lingbot_v1_end[];
extern const char rvd_model_lingbot_v2[], rvd_model_lingbot_v2_end[];

static const struct builtin {
    const char *name;
    const char *start, *end;
} builtins[] = {
    {"tiny", rvd_model_tiny, rvd_model_tiny_end},
    {"pi0", rvd_model_pi0, rvd_model_pi0_end},
    {"lingbot-v1", rvd_model_lingbot_v1, rvd_model_lingbot_v1_end},
    {"lingbot-v2", rvd_model_lingbot_v2, rvd_model_lingbot_v2_end},
};

const char *const *vla_preset_builtin_names(void)
{
    static const char *names[ARRAY_SIZE(builtins) + 1];
    for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
        names[i] = builtins[i].name;
    return names;
}

const char *vla_preset_builtin_text(const char *name, size_t *len)
{
    for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
        if (strcmp(builtins[i].name, name) == 0) {
            *len = (size_t)(builtins[i].end - builtins[i].start);
            return builtins[i].start;
        }
    return NULL;
}

struct ploader {
    const char *file;
    yaml_document_t doc;
};

static int perr(struct ploader *L, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(struct ploader *L, const yaml_node_t *n, const char *fmt, ...)
{
    /* the message quotes the file's text: sanitised (eprint_safe) */
    va_list ap;
    struct strbuf sb = STRBUF_INIT;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    eprint_safe("%s:%lu:%lu: %s\n", L->file, n ? (unsigned long)n->start_mark.line + 1 : 1UL,
                n ? (unsigned long)n->start_mark.column + 1 : 1UL, sb.buf ? sb.buf : "");
    strbuf_release(&sb);
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* ---- a tiny schema: key -> typed field ------------------------------- */

enum ftype { F_INT, F_DOUBLE, F_STR, F_ACT, F_ROUTER, F_VEC, F_MAP };

struct field {
    const char *key;
    enum ftype type;
    size_t off; /* offset into the target struct */
    int required;
    long min, max;           /* F_INT / F_DOUBLE bounds (F_DOUBLE: min/max as given) */
    const struct field *sub; /* F_MAP */
    size_t sub_off;          /* F_MAP: offset of the sub-struct */
};

struct pstate {
    struct ploader *L;
    struct vla_preset *p;
    yaml_node_t *vec_nodes[4]; /* mean, std, low, high */
};

static int get_int(struct ploader *L, yaml_node_t *n, const struct field *f, int *out)
{
    const char *s = scalar(n);
    int64_t v;
    if (!s || str_parse_i64(s, &v))
        return perr(L, n, "%s must be an integer", f->key);
    if (v < f->min || v > f->max)
        return perr(L, n, "%s = %lld is out of range [%ld, %ld]", f->key, (long long)v, f->min,
                    f->max);
    *out = (int)v;
    return 0;
}

static int get_double(struct ploader *L, yaml_node_t *n, const char *key, double lo, double hi,
                      double *out)
{
    const char *s = scalar(n);
    double v;
    if (!s || str_parse_double(s, &v) || !isfinite(v))
        return perr(L, n, "%s must be a number", key);
    if (v < lo || v > hi)
        return perr(L, n, "%s = %g is out of range [%g, %g]", key, v, lo, hi);
    *out = v;
    return 0;
}

static int load_map(struct pstate *S, yaml_node_t *map, const struct field *fields, char *base,
                    const char *where);

static int load_field(struct pstate *S, yaml_node_t *v, const struct field *f, char *base)
{
    struct ploader *L = S->L;
    const char *s = scalar(v);
    switch (f->type) {
    case F_INT:
        return get_int(L, v, f, (int *)(base + f->off));
    case F_DOUBLE: {
        double lo = (double)f->min, hi = (double)f->max;
        if (strcmp(f->key, "norm_eps") == 0)
            lo = 1e-12, hi = 1e-2;
        return get_double(L, v, f->key, lo, hi, (double *)(base + f->off));
    }
    case F_STR:
        if (!s)
            return perr(L, v, "%s must be a string", f->key);
        free(*(char **)(base + f->off));
        *(char **)(base + f->off) = xstrdup(s);
        return 0;
    case F_ACT: {
        enum vla_act *a = (enum vla_act *)(base + f->off);
        if (s && strcmp(s, "gelu_tanh") == 0)
            *a = VLA_ACT_GELU_TANH;
        else if (s && strcmp(s, "geglu") == 0)
            *a = VLA_ACT_GEGLU;
        else if (s && strcmp(s, "swiglu") == 0)
            *a = VLA_ACT_SWIGLU;
        else
            return perr(L, v, "%s must be gelu_tanh, geglu or swiglu", f->key);
        return 0;
    }
    case F_ROUTER: {
        enum vla_router *r = (enum vla_router *)(base + f->off);
        if (s && strcmp(s, "sigmoid") == 0)
            *r = VLA_ROUTER_SIGMOID;
        else if (s && strcmp(s, "softmax") == 0)
            *r = VLA_ROUTER_SOFTMAX;
        else
            return perr(L, v, "%s must be sigmoid or softmax", f->key);
        return 0;
    }
    case F_VEC:
        if (v->type != YAML_SEQUENCE_NODE && v->type != YAML_SCALAR_NODE)
            return perr(L, v, "%s must be a number or a list of numbers", f->key);
        S->vec_nodes[f->off] = v;
        return 0;
    case F_MAP:
        if (v->type != YAML_MAPPING_NODE)
            return perr(L, v, "%s must be a mapping", f->key);
        return load_map(S, v, f->sub, base + f->sub_off, f->key);
    }
    return -1;
}

static int load_map(struct pstate *S, yaml_node_t *map, const struct field *fields, char *base,
                    const char *where)
{
    struct ploader *L = S->L;
    unsigned seen = 0;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *k = yaml_document_get_node(&L->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(&L->doc, pr->value);
        const char *ks = scalar(k);
        if (!ks)
            return perr(L, k, "keys in %s must be strings", where);
        size_t i;
        for (i = 0; fields[i].key; i++)
            if (strcmp(fields[i].key, ks) == 0)
                break;
        if (!fields[i].key)
            return perr(L, k, "unknown key '%s' in %s", ks, where);
        if (seen & (1u << i))
            return perr(L, k, "duplicate key '%s' in %s", ks, where);
        seen |= 1u << i;
        if (load_field(S, v, &fields[i], base))
            return -1;
    }
    for (size_t i = 0; fields[i].key; i++)
        if (fields[i].required && !(seen & (1u << i)))
            return perr(L, map, "%s: missing required key '%s'", where, fields[i].key);
    return 0;
}

#define DIM(k, T, m, lo, hi)                                                                       \
    {                                                                                              \
        k, F_INT, offsetof(T, m), 1, lo, hi, NULL, 0                                               \
    }
#define OPT_DIM(k, T, m, lo, hi)                                                                   \
    {                                                                                              \
        k, F_INT, offsetof(T, m), 0, lo, hi, NULL, 0                                               \
    }

static const struct field vision_fields[] = {
    DIM("image", struct vla_vision, image, 8, 4096),
    DIM("patch", struct vla_vision, patch, 1, 64),
    DIM("width", struct vla_vision, width, 8, 16384),
    DIM("depth", struct vla_vision, depth, 1, 256),
    DIM("heads", struct vla_vision, heads, 1, 256),
    DIM("mlp", struct vla_vision, mlp, 8, 65536),
    {"mlp_act", F_ACT, offsetof(struct vla_vision, mlp_act), 1, 0, 0, NULL, 0},
    OPT_DIM("merge", struct vla_vision, merge, 1, 4),
    DIM("cameras", struct vla_vision, cameras, 1, 16),
    {NULL, 0, 0, 0, 0, 0, NULL, 0},
};

static const struct field moe_fields[] = {
    DIM("experts", struct vla_moe, experts, 2, 1024),
    DIM("top_k", struct vla_moe, top_k, 1, 64),
    DIM("expert_mlp", struct vla_moe, expert_mlp, 8, 65536),
    OPT_DIM("shared_mlp", struct vla_moe, shared_mlp, 0, 65536),
    {"router", F_ROUTER, offsetof(struct vla_moe, router), 1, 0, 0, NULL, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0},
};

/* backbone: the tower fields + vocab/rope_theta/norm_eps (stored in the preset) */
static const struct field backbone_fields[] = {
    DIM("width", struct vla_preset, backbone.width, 8, 65536),
    DIM("layers", struct vla_preset, backbone.layers, 1, 512),
    DIM("heads", struct vla_preset, backbone.heads, 1, 512),
    DIM("kv_heads", struct vla_preset, backbone.kv_heads, 1, 512),
    DIM("head_dim", struct vla_preset, backbone.head_dim, 2, 1024),
    DIM("mlp", struct vla_preset, backbone.mlp, 8, 262144),
    {"mlp_act", F_ACT, offsetof(struct vla_preset, backbone.mlp_act), 1, 0, 0, NULL, 0},
    DIM("vocab", struct vla_preset, vocab, 2, 1 << 22),
    {"rope_theta", F_DOUBLE, offsetof(struct vla_preset, rope_theta), 1, 1, 1000000000L, NULL, 0},
    {"norm_eps", F_DOUBLE, offsetof(struct vla_preset, norm_eps), 0, 0, 0, NULL, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0},
};

static const struct field expert_fields[] = {
    DIM("width", struct vla_tower, width, 8, 65536),
    DIM("layers", struct vla_tower, layers, 1, 512),
    DIM("heads", struct vla_tower, heads, 1, 512),
    DIM("kv_heads", struct vla_tower, kv_heads, 1, 512),
    DIM("head_dim", struct vla_tower, head_dim, 2, 1024),
    OPT_DIM("mlp", struct vla_tower, mlp, 8, 262144),
    {"mlp_act", F_ACT, offsetof(struct vla_tower, mlp_act), 1, 0, 0, NULL, 0},
    {"moe", F_MAP, 0, 0, 0, 0, moe_fields, offsetof(struct vla_tower, moe)},
    {NULL, 0, 0, 0, 0, 0, NULL, 0},
};

static const struct field action_fields[] = {
    DIM("chunk", struct vla_preset, chunk, 1, 1024),
    DIM("dim", struct vla_preset, action_dim, 1, 1024),
    DIM("steps", struct vla_preset, steps, 1, 1000),
    DIM("text_tokens", struct vla_preset, text_tokens, 1, 8192),
    {"mean", F_VEC, 0, 1, 0, 0, NULL, 0},
    {"std", F_VEC, 1, 1, 0, 0, NULL, 0},
    {"low", F_VEC, 2, 1, 0, 0, NULL, 0},
    {"high", F_VEC, 3, 1, 0, 0, NULL, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0},
};

static const struct field top_fields[] = {
    {"name", F_STR, offsetof(struct vla_preset, name), 1, 0, 0, NULL, 0},
    {"description", F_STR, offsetof(struct vla_preset, description), 0, 0, 0, NULL, 0},
    {"vision", F_MAP, 0, 1, 0, 0, vision_fields, offsetof(struct vla_preset, vision)},
    {"backbone", F_MAP, 0, 1, 0, 0, backbone_fields, 0},
    {"expert", F_MAP, 0, 1, 0, 0, expert_fields, offsetof(struct vla_preset, expert)},
    {"action", F_MAP, 0, 1, 0, 0, action_fields, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0},
};

/* a scalar broadcasts to every action dimension; a list must have one
 * finite number per dimension */
static int load_vec(struct pstate *S, yaml_node_t *n, const char *key, float **out)
{
    struct ploader *L = S->L;
    int d = S->p->action_dim;
    float *v = xcalloc((size_t)d, sizeof(float));
    *out = v;
    double x = 0; /* set by get_double before any use; gcc -O3 cannot see it */
    if (n->type == YAML_SCALAR_NODE) {
        if (get_double(L, n, key, -1e6, 1e6, &x))
            return -1;
        for (int i = 0; i < d; i++)
            v[i] = (float)x;
        return 0;
    }
    long cnt = n->data.sequence.items.top - n->data.sequence.items.start;
    if (cnt != d)
        return perr(L, n, "action.%s has %ld values, action.dim is %d", key, cnt, d);
    for (int i = 0; i < d; i++) {
        yaml_node_t *e = yaml_document_get_node(&L->doc, n->data.sequence.items.start[i]);
        if (get_double(L, e, key, -1e6, 1e6, &x))
            return -1;
        v[i] = (float)x;
    }
    return 0;
}

static int check_tower(struct ploader *L, yaml_node_t *at, const char *what,
                       const struct vla_tower *t)
{
    if (t->heads % t->kv_heads)
        return perr(L, at, "%s.heads (%d) must be a multiple of %s.kv_heads (%d)", what, t->heads,
                    what, t->kv_heads);
    if (t->head_dim % 2)
        return perr(L, at, "%s.head_dim (%d) must be even (RoPE rotates pairs)", what, t->head_dim);
    if (t->mlp_act == VLA_ACT_GELU_TANH)
        return perr(L, at, "%s.mlp_act must be geglu or swiglu", what);
    return 0;
}

static yaml_node_t *child(struct ploader *L, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return map;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        const char *ks = scalar(yaml_document_get_node(&L->doc, pr->key));
        if (ks && strcmp(ks, key) == 0)
            return yaml_document_get_node(&L->doc, pr->value);
    }
    return map;
}

/* cross-field rules: shapes that must agree for the pass to exist */
static int validate(struct pstate *S, yaml_node_t *root)
{
    struct ploader *L = S->L;
    struct vla_preset *p = S->p;
    struct vla_vision *v = &p->vision;
    yaml_node_t *vn = child(L, root, "vision"), *bn = child(L, root, "backbone"),
                *en = child(L, root, "expert"), *an = child(L, root, "action");
    if (!v->merge)
        v->merge = 1;
    if (v->image % (v->patch * v->merge))
        return perr(L, child(L, vn, "image"),
                    "vision.image (%d) must be a multiple of patch x merge (%d)", v->image,
                    v->patch * v->merge);
    if (v->width % v->heads)
        return perr(L, child(L, vn, "heads"), "vision.width (%d) must be a multiple of heads (%d)",
                    v->width, v->heads);
    if ((v->width / v->heads) % 2)
        return perr(L, child(L, vn, "heads"), "vision head size must be even");
    if (v->mlp_act == VLA_ACT_GEGLU)
        return perr(L, child(L, vn, "mlp_act"), "vision.mlp_act must be gelu_tanh or swiglu");
    if (check_tower(L, bn, "backbone", &p->backbone) || check_tower(L, en, "expert", &p->expert))
        return -1;
    if (!p->norm_eps)
        p->norm_eps = 1e-6;
    /* mixture of transformers: the expert reads the backbone's KV cache of the
     * same layer, so the attention geometry must match layer for layer */
    const struct vla_tower *b = &p->backbone, *e = &p->expert;
    if (e->layers != b->layers)
        return perr(L, child(L, en, "layers"),
                    "expert.layers (%d) must equal backbone.layers (%d): each expert layer "
                    "attends to the KV cache of the same backbone layer",
                    e->layers, b->layers);
    if (e->kv_heads != b->kv_heads || e->head_dim != b->head_dim)
        return perr(L, en,
                    "expert kv_heads/head_dim (%d/%d) must equal the backbone's (%d/%d) to "
                    "share its KV cache",
                    e->kv_heads, e->head_dim, b->kv_heads, b->head_dim);
    if (e->width % 2)
        return perr(L, child(L, en, "width"), "expert.width must be even (sinusoidal time)");
    if (e->moe.experts) {
        if (e->moe.top_k > e->moe.experts)
            return perr(L, child(L, en, "moe"), "expert.moe.top_k (%d) exceeds experts (%d)",
                        e->moe.top_k, e->moe.experts);
        if (e->moe.shared_mlp && e->moe.shared_mlp < 8)
            return perr(L, child(L, en, "moe"), "expert.moe.shared_mlp must be 0 or >= 8");
    } else if (!e->mlp) {
        return perr(L, en, "expert: missing required key 'mlp' (or a moe section)");
    }
    static const char *const vnames[4] = {"mean", "std", "low", "high"};
    float **dst[4] = {&p->mean, &p->std, &p->low, &p->high};
    for (int i = 0; i < 4; i++)
        if (load_vec(S, S->vec_nodes[i], vnames[i], dst[i]))
            return -1;
    for (int i = 0; i < p->action_dim; i++) {
        if (!(p->std[i] > 0))
            return perr(L, child(L, an, "std"), "action.std[%d] = %g must be > 0", i,
                        (double)p->std[i]);
        if (!(p->low[i] < p->high[i]))
            return perr(L, child(L, an, "low"), "action.low[%d] = %g must be below high = %g", i,
                        (double)p->low[i], (double)p->high[i]);
    }
    return 0;
}

int vla_preset_load_string(struct vla_preset *p, const char *source, const char *text, size_t len)
{
    memset(p, 0, sizeof(*p));
    p->source = xstrdup(source);
    struct ploader L;
    memset(&L, 0, sizeof(L));
    L.file = p->source;
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &L.doc)) {
        eprint_safe("%s:%lu:%lu: YAML syntax error: %s\n", L.file,
                    (unsigned long)parser.problem_mark.line + 1,
                    (unsigned long)parser.problem_mark.column + 1,
                    parser.problem ? parser.problem : "unknown");
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_parser_delete(&parser);
    int rc = -1;
    yaml_node_t *root = yaml_document_get_root_node(&L.doc);
    struct pstate S = {&L, p, {NULL, NULL, NULL, NULL}};
    if (!root || root->type != YAML_MAPPING_NODE)
        perr(&L, root, "a preset must be a mapping (name, vision, backbone, expert, action)");
    else if (!load_map(&S, root, top_fields, (char *)p, "the preset") && !validate(&S, root))
        rc = 0;
    yaml_document_delete(&L.doc);
    return rc;
}

static int vla_preset_load_file(struct vla_preset *p, const char *path)
{
    memset(p, 0, sizeof(*p));
    char *text;
    size_t len;
    int rc = read_user_file(path, 16u << 20, &text, &len);
    if (rc)
        return error("cannot read preset '%s': %s", path, user_file_strerror(rc));
    rc = vla_preset_load_string(p, path, text, len);
    free(text);
    return rc;
}

static int is_file(const char *path)
{
    return access(path, R_OK) == 0;
}

int vla_preset_find(struct vla_preset *p, const char *name, const char *models_dir)
{
    memset(p, 0, sizeof(*p));
    if (strchr(name, '/') || str_ends(name, ".yaml"))
        return vla_preset_load_file(p, name);
    for (const char *c = name; *c; c++)
        if (!(('a' <= *c && *c <= 'z') || ('A' <= *c && *c <= 'Z') || ('0' <= *c && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return error("invalid preset name '%s'", name);
    if (models_dir) {
        char *path = xasprintf("%s/%s.yaml", models_dir, name);
        int rc = is_file(path) ? vla_preset_load_file(p, path)
                               : error("no preset '%s' in '%s'", name, models_dir);
        free(path);
        return rc;
    }
    /* models/ next to the binary (a source tree), then an installed copy's
     * share/rocm-vla-doctor/models/, then the built-in copy */
    char *dir = datadir_exe_dir();
    char *path = dir ? xasprintf("%s/models/%s.yaml", dir, name) : NULL;
    free(dir);
    if (path && !is_file(path)) {
        free(path);
        path = NULL;
    }
    if (!path) {
        char *rel = xasprintf("models/%s.yaml", name);
        path = datadir_file(rel);
        free(rel);
    }
    if (path) {
        int rc = vla_preset_load_file(p, path);
        free(path);
        return rc;
    }
    for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
        if (strcmp(builtins[i].name, name) == 0) {
            char *src = xasprintf("models/%s.yaml (built in)", name);
            int rc = vla_preset_load_string(p, src, builtins[i].start,
                                            (size_t)(builtins[i].end - builtins[i].start));
            free(src);
            return rc;
        }
    }
    struct strbuf sb = STRBUF_INIT;
    char hint[64];
    struct suggest sg;
    suggest_init(&sg, name, hint, sizeof(hint));
    for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
        strbuf_addf(&sb, "%s%s", i ? ", " : "", builtins[i].name);
        suggest_consider(&sg, builtins[i].name);
    }
    if (suggest_best(&sg))
        error("no preset named '%s' (did you mean '%s'? built in: %s)", name, hint, sb.buf);
    else
        error("no preset named '%s' (built in: %s; or give --models DIR or a .yaml path)", name,
              sb.buf);
    strbuf_release(&sb);
    return -1;
}

void vla_preset_release(struct vla_preset *p)
{
    free(p->name);
    free(p->source);
    free(p->description);
    free(p->mean);
    free(p->std);
    free(p->low);
    free(p->high);
    memset(p, 0, sizeof(*p));
}

/* what the model's stride-p, kernel-p patch convolution (no padding) gives:
 * floor(image / patch) per side, the remainder pixels dropped; with a merge
 * m > 1, floored again to a multiple of m (the merge takes whole m x m
 * blocks), dropping those patches' pixels too */
int vla_grid(const struct vla_preset *p, int image)
{
    int g = image / p->vision.patch;
    return g - g % p->vision.merge;
}

int vla_image_tokens(const struct vla_preset *p, int image)
{
    int g = vla_grid(p, image) / p->vision.merge;
    return g * g;
}

int vla_prefix_len(const struct vla_preset *p, int image)
{
    return p->vision.cameras * vla_image_tokens(p, image) + p->text_tokens;
}
