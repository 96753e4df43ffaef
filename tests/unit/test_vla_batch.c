/* test_vla_batch.c - the reference pass over a batch and at image sizes off
 * the patch grid, on the CPU backend (fp32, deterministic):
 * - a batch of B = 3 (odd) gives, for each observation b, the actions of a
 *   batch-1 pass on that observation's inputs, and observation 0 of a batch
 *   is the batch-1 pass of the same seed bit for bit;
 * - a batch-1 pass through vla_model_init_batch is vla_model_init's;
 * - an image side that is no multiple of the patch (256 and 320 px with a
 *   14-px patch) runs with floor(S/p)^2 tokens per camera, the remainder
 *   pixels dropped (changing them changes nothing, changing a used pixel
 *   does); with a merge of 2 the grid is floored to an even count;
 * - the position table interpolated to a grid that is not the trained one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vla/model.h"
#include "test.h"

/* pi0's 14-px patch on a small model; the expert shares the decoder shape */
#define TOWER(w)                                                                                   \
    "  width: " w "\n  layers: 2\n  heads: 3\n  kv_heads: 1\n  head_dim: 16\n  mlp: 40\n"          \
    "  mlp_act: geglu\n"
#define ACTION                                                                                     \
    "action:\n  chunk: 5\n  dim: 3\n  steps: 2\n  text_tokens: 3\n  mean: 0\n  std: 1\n"           \
    "  low: -10\n  high: 10\n"
static const char p14_yaml[] =
    "name: p14\ndescription: a 14-px patch\n"
    "vision:\n  image: 56\n  patch: 14\n  width: 24\n  depth: 1\n  heads: 2\n  mlp: 32\n"
    "  mlp_act: gelu_tanh\n  merge: 1\n  cameras: 2\n"
    "backbone:\n" TOWER("24") "  vocab: 53\n  rope_theta: 10000\n"
                              "expert:\n" TOWER("18") ACTION;
/* a merge of 2 and a sparse MoE expert with a shared expert */
static const char p14moe_yaml[] =
    "name: p14moe\ndescription: a 14-px patch, 2 x 2 merge, MoE expert\n"
    "vision:\n  image: 56\n  patch: 14\n  width: 16\n  depth: 1\n  heads: 2\n  mlp: 24\n"
    "  mlp_act: swiglu\n  merge: 2\n  cameras: 1\n"
    "backbone:\n" TOWER(
        "24") "  vocab: 53\n  rope_theta: 10000\n"
              "expert:\n  width: 20\n  layers: 2\n  heads: 3\n  kv_heads: 1\n  head_dim: 16\n"
              "  mlp_act: swiglu\n  moe:\n    experts: 5\n    top_k: 2\n    expert_mlp: 12\n"
              "    shared_mlp: 8\n    router: softmax\n" ACTION;

static int load(struct vla_preset *p, struct vla_weights *w, const char *name, const char *yaml)
{
    if (vla_preset_load_string(p, name, yaml, strlen(yaml)))
        return -1;
    if (vla_weights_layout(w, p, 1))
        return -1;
    vla_weights_synthetic(w, p, 7);
    return 0;
}

/* actions of one pass of `batch` observations (seed, seed+1, ...); in may
 * be given (then used as is) */
static int pass(const struct vla_preset *p, const struct vla_weights *w, int image, int batch,
                uint64_t seed, const struct vla_inputs *given, float *act, int *tokens)
{
    struct vla_model m;
    if (vla_model_init_batch(&m, p, w, &vla_ops_cpu, image, batch, 0))
        return -1;
    if (tokens)
        *tokens = m.Tv;
    struct vla_inputs in;
    if (!given)
        vla_inputs_synthetic_batch(&in, p, image, batch, seed);
    struct vla_stats st = {0};
    int rc = vla_forward(&m, given ? given : &in, act, NULL, &st);
    rc = rc || st.first_bad >= 0;
    vla_stats_release(&st);
    if (!given)
        vla_inputs_release(&in);
    vla_model_release(&m);
    return rc;
}

static double max_rel(const float *a, const float *b, size_t n)
{
    double err = 0, mx = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        err = d > err || isnan(d) ? d : err;
        mx = fabs(b[i]) > mx ? fabs(b[i]) : mx;
    }
    return mx > 0 ? err / mx : err;
}

static void batch_case(const char *name, const char *yaml, int image)
{
    struct vla_preset p;
    struct vla_weights w;
    CHECK(load(&p, &w, name, yaml) == 0);
    size_t na = (size_t)p.chunk * p.action_dim;
    float *b3 = calloc(3 * na, sizeof(float)), *one = calloc(na, sizeof(float));
    CHECK(pass(&p, &w, image, 3, 40, NULL, b3, NULL) == 0);
    for (int b = 0; b < 3; b++) {
        CHECK(pass(&p, &w, image, 1, 40 + (uint64_t)b, NULL, one, NULL) == 0);
        double e = max_rel(b3 + b * na, one, na);
        if (e > 1e-6)
            fprintf(stderr, "%s at %d px: batch observation %d differs by %.3g\n", name, image, b,
                    e);
        CHECK(e <= 1e-6);
        if (b == 0) /* the batch-1 pass of the same seed, bit for bit */
            CHECK(memcmp(b3, one, na * sizeof(float)) == 0);
    }
    /* the observations differ (else the check above proves nothing) */
    CHECK(max_rel(b3 + na, b3, na) > 1e-3);
    CHECK(max_rel(b3 + 2 * na, b3 + na, na) > 1e-3);

    /* vla_model_init is the batch-1 init */
    struct vla_model m;
    CHECK(vla_model_init(&m, &p, &w, &vla_ops_cpu, image) == 0);
    struct vla_inputs in;
    vla_inputs_synthetic(&in, &p, image, 40);
    CHECK(in.batch == 1 && m.B == 1);
    CHECK(vla_forward(&m, &in, one, NULL, NULL) == 0);
    CHECK(memcmp(b3, one, na * sizeof(float)) == 0);
    vla_model_release(&m);
    /* inputs of another batch are refused, not read past */
    CHECK(vla_model_init_batch(&m, &p, &w, &vla_ops_cpu, image, 3, 0) == 0);
    CHECK(vla_forward(&m, &in, b3, NULL, NULL) == -1);
    vla_model_release(&m);
    CHECK(vla_model_init_batch(&m, &p, &w, &vla_ops_cpu, image, 0, 0) == -1);
    vla_inputs_release(&in);
    free(b3), free(one);
    vla_weights_release(&w);
    vla_preset_release(&p);
}

/* sizes off the patch grid: tokens, and the dropped pixels are unread */
static void image_case(const char *name, const char *yaml, int image, int want_grid)
{
    struct vla_preset p;
    struct vla_weights w;
    CHECK(load(&p, &w, name, yaml) == 0);
    CHECK(vla_grid(&p, image) == want_grid);
    int tok_cam = want_grid / p.vision.merge * (want_grid / p.vision.merge);
    CHECK(vla_image_tokens(&p, image) == tok_cam);
    CHECK(vla_prefix_len(&p, image) == p.vision.cameras * tok_cam + p.text_tokens);
    size_t na = (size_t)p.chunk * p.action_dim;
    float *a = calloc(na, sizeof(float)), *b = calloc(na, sizeof(float));
    int tv = 0;
    CHECK(pass(&p, &w, image, 1, 3, NULL, a, &tv) == 0);
    CHECK(tv == p.vision.cameras * want_grid * want_grid);
    struct vla_inputs in;
    vla_inputs_synthetic(&in, &p, image, 3);
    int used = want_grid * p.vision.patch, S = image;
    CHECK(used < S); /* the case must drop pixels */
    /* every pixel past the grid (right columns, bottom rows) of every
     * camera and channel: the pass must not read them */
    for (int c = 0; c < p.vision.cameras * 3; c++)
        for (int y = 0; y < S; y++)
            for (int x = 0; x < S; x++)
                if (x >= used || y >= used)
                    in.images[((size_t)c * S + y) * S + x] = 1e30f;
    CHECK(pass(&p, &w, image, 1, 0, &in, b, NULL) == 0);
    CHECK(memcmp(a, b, na * sizeof(float)) == 0);
    in.images[(size_t)(used - 1) * S + used - 1] += 1.0f; /* the last pixel used */
    CHECK(pass(&p, &w, image, 1, 0, &in, b, NULL) == 0);
    CHECK(memcmp(a, b, na * sizeof(float)) != 0);
    vla_inputs_release(&in);
    free(a), free(b);
    vla_weights_release(&w);
    vla_preset_release(&p);
}

/* the trained 4 x 4 table to grids that are not the trained one: a constant
 * table stays constant (the weights sum to 1), a ramp stays monotone and
 * inside its range, the outer half-pixels of an upsampled grid clamp */
static void pos_interp_case(int g1)
{
    const int g0 = 4, D = 2;
    float tab[4 * 4 * 2], *out = calloc((size_t)g1 * g1 * D, sizeof(float));
    for (int y = 0; y < g0; y++)
        for (int x = 0; x < g0; x++) {
            tab[(y * g0 + x) * D] = 0.25f;        /* constant */
            tab[(y * g0 + x) * D + 1] = (float)x; /* ramp along x */
        }
    vla_ops_cpu.pos_interp(NULL, tab, g0, out, g1, D);
    int ok_const = 1, ok_ramp = 1;
    for (int y = 0; y < g1; y++)
        for (int x = 0; x < g1; x++) {
            const float *o = out + ((size_t)y * g1 + x) * D;
            ok_const &= fabsf(o[0] - 0.25f) < 1e-6f;
            ok_ramp &= o[1] >= 0 && o[1] <= g0 - 1;
            if (x)
                ok_ramp &= o[1] >= o[-D + 1];
        }
    CHECK(ok_const);
    CHECK(ok_ramp);
    if (g1 > g0) { /* upsampled, the outer half-pixels clamp to the table's edges */
        CHECK(out[1] == 0.0f);
        CHECK(out[((size_t)g1 - 1) * D + 1] == g0 - 1);
    } else { /* downsampled: strictly inside */
        CHECK(out[1] > 0.0f && out[((size_t)g1 - 1) * D + 1] < g0 - 1);
    }
    free(out);
}

int main(void)
{
    /* 56 px = 4 x 14: on the grid */
    batch_case("p14", p14_yaml, 56);
    batch_case("p14moe", p14moe_yaml, 56);
    /* a batch at an image size off the grid */
    batch_case("p14", p14_yaml, 70 + 5);
    /* 256 = 18 x 14 + 4, 320 = 22 x 14 + 12 */
    image_case("p14", p14_yaml, 256, 18);
    image_case("p14", p14_yaml, 320, 22);
    /* merge 2: 240 px = 17 x 14 + 2 -> 16 patches (one more patch dropped) */
    image_case("p14moe", p14moe_yaml, 240, 16);
    image_case("p14moe", p14moe_yaml, 256, 18);
    pos_interp_case(18);
    pos_interp_case(22);
    pos_interp_case(3);
    return test_report();
}
