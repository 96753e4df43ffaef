/* test_vla_ops.c - the counter RNG's pinned values (a GPU or Python
 * implementation must reproduce them) and the CPU ops against naive forms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vla/ops.h"
#include "../../src/vla/rng.h"
#include "test.h"

static int close_to(float a, float b, float tol)
{
    return fabsf(a - b) <= tol * (1.0f + fabsf(b));
}

int main(void)
{
    const struct vla_ops *o = &vla_ops_cpu;

    /* RNG: pinned values (splitmix64 of the docs/VLA.md definition) */
    CHECK(vla_rng_mix(0) == 0);
    CHECK(vla_rng_mix(0x9E3779B97F4A7C15ULL) == 0xE220A8397B1DCDAFULL); /* splitmix64(0) 1st */
    uint64_t key = vla_rng_key(0, "input.noise");
    CHECK(vla_rng_bits(key, 0) == vla_rng_mix(key + 0x9E3779B97F4A7C15ULL));
    CHECK(vla_rng_key(0, "a") != vla_rng_key(1, "a") && vla_rng_key(0, "a") != vla_rng_key(0, "b"));
    double sum = 0, sq = 0;
    for (int i = 0; i < 20000; i++) {
        double z = vla_rng_normal(key, (uint64_t)i);
        sum += z, sq += z * z;
    }
    CHECK(fabs(sum / 20000) < 0.03 && fabs(sq / 20000 - 1) < 0.05);
    float piece[4], whole[8];
    vla_rng_fill_normal(whole, 8, 9, "t", 0, 1);
    for (int i = 0; i < 4; i++)
        piece[i] = (float)vla_rng_normal(vla_rng_key(9, "t"), (uint64_t)(4 + i));
    CHECK(memcmp(piece, whole + 4, sizeof(piece)) == 0); /* any slice independently */

    /* matmul against the naive triple loop, odd sizes, bias, accumulate */
    int M = 5, N = 67, K = 37;
    float *x = malloc(sizeof(float) * M * K), *w = malloc(sizeof(float) * N * K);
    float *bias = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * M * N);
    vla_rng_fill_normal(x, (size_t)M * K, 1, "x", 0, 1);
    vla_rng_fill_normal(w, (size_t)N * K, 1, "w", 0, 1);
    vla_rng_fill_normal(bias, (size_t)N, 1, "b", 0, 1);
    for (int i = 0; i < M * N; i++)
        y[i] = 1.0f;
    o->matmul(o->ctx, x, w, bias, y, M, N, K, 1);
    int okm = 1;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 1.0 + bias[j];
            for (int k = 0; k < K; k++)
                s += (double)x[i * K + k] * w[j * K + k];
            okm &= close_to(y[i * N + j], (float)s, 1e-5f);
        }
    CHECK(okm);

    /* rmsnorm: unit rms with unit weights */
    float r[8] = {1, 2, 3, 4, 5, 6, 7, 8}, ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, rn[8];
    o->rmsnorm(o->ctx, r, ones, rn, 1, 8, 0);
    double ms = 0;
    for (int i = 0; i < 8; i++)
        ms += rn[i] * rn[i];
    CHECK(fabs(ms / 8 - 1) < 1e-6);

    /* rope preserves each pair's norm and is the identity at position 0 */
    float q[16], q0[16];
    vla_rng_fill_normal(q, 16, 2, "q", 0, 1);
    memcpy(q0, q, sizeof(q));
    o->rope(o->ctx, q, 1, 2, 8, 16, 0, 10000.0);
    CHECK(memcmp(q, q0, sizeof(q)) == 0);
    o->rope(o->ctx, q, 1, 2, 8, 16, 7, 10000.0);
    CHECK(close_to(q[0] * q[0] + q[4] * q[4], q0[0] * q0[0] + q0[4] * q0[4], 1e-5f));

    /* attention over one key returns its value; GQA maps 4 heads to 2 kv heads */
    float qq[4 * 2], kk[2 * 2], vv[2 * 2] = {3, -1, 5, 2}, att[8];
    vla_rng_fill_normal(qq, 8, 3, "qq", 0, 1);
    vla_rng_fill_normal(kk, 4, 3, "kk", 0, 1);
    /* k and v rows share a stride of 2 kv heads x hd 1 */
    o->attention(o->ctx, qq, 4, kk, vv, 2, att, 2, 2, 4, 2, 1, 1.0f);
    CHECK(att[0] >= fminf(3, 5) - 1e-6f && att[0] <= 5 + 1e-6f); /* head 0 -> kv 0: v in {3, 5} */
    CHECK(att[3] >= -1 - 1e-6f && att[3] <= 2 + 1e-6f);          /* head 3 -> kv 1: v in {-1, 2} */

    /* position interpolation: same size copies, 2 -> 4 keeps corners' means */
    float tab[4] = {0, 1, 2, 3}, up[16];
    o->pos_interp(o->ctx, tab, 2, up, 4, 1);
    CHECK(up[0] == 0 && up[15] == 3 && close_to(up[5], 0.75f, 1e-6f));

    /* MoE routing: top-2 of 4 with sigmoid, weights renormalised */
    float logits[4] = {0.1f, 2.0f, -1.0f, 1.0f}, wts[2];
    int idx[2];
    o->moe_route(o->ctx, logits, 1, 4, 2, VLA_ROUTER_SIGMOID, idx, wts);
    CHECK(idx[0] == 1 && idx[1] == 3 && close_to(wts[0] + wts[1], 1.0f, 1e-6f));

    /* de-normalise and clamp */
    float act[2] = {1.0f, -10.0f}, mean[2] = {0.5f, 0}, sd[2] = {2, 1}, lo[2] = {-1, -1},
          hi[2] = {2, 1};
    o->denorm_clamp(o->ctx, act, act, 1, 2, mean, sd, lo, hi);
    CHECK(act[0] == 2.0f && act[1] == -1.0f);
    /* out of place: the source stays as it was */
    float src[2] = {0.25f, 0.5f}, dst[2] = {9, 9};
    o->denorm_clamp(o->ctx, src, dst, 1, 2, mean, sd, lo, hi);
    CHECK(dst[0] == 1.0f && dst[1] == 0.5f && src[0] == 0.25f && src[1] == 0.5f);

    /* the layer statistic sees NaN/Inf */
    float bad[3] = {1, NAN, -4};
    int nf = 0;
    CHECK(o->max_abs(o->ctx, bad, 3, &nf) == 4.0f && nf == 1);
    free(x);
    free(w);
    free(bias);
    free(y);
    return test_report();
}
