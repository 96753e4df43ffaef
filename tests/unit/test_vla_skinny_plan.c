/* test_vla_skinny_plan.c - the split-K small-M GEMM's grid
 * (vgpu_skinny_plan, src/vla/ops_gpu_skinny.c): pi0's step GEMMs on an
 * H100/H200's 132 SMs get the splits docs/PERFORMANCE-HISTORY.md names, and
 * on every shape of a grid the slices cover K exactly once (no empty split,
 * none past K), are whole 64-k stages, keep two stages each where K has
 * them, and the blocks stay near the target. The kernel itself needs a GPU
 * (bench --kernel-test). */
#include "../../src/vla/ops_gpu_ctx.h"
#include "test.h"

static int plan(int sms, int ctas, int n, int k, int *tiles, int *kslice)
{
    return vgpu_skinny_plan(sms, ctas, n, k, tiles, kslice);
}

/* sms, ctas, n, k -> tiles, splits, kslice */
static const int want[][7] = {
    /* pi0's expert on 132 SMs, 2 blocks each: gate/up, down, [q; kv], o */
    {132, 2, 8192, 1024, 128, 2, 512},
    {132, 2, 1024, 4096, 16, 16, 256},
    {132, 2, 2560, 1024, 40, 6, 192},
    {132, 2, 1024, 2048, 16, 16, 128},
    {132, 4, 8192, 1024, 128, 4, 256}, /* 4 blocks an SM: gate/up in 4 */
    /* each side of the two-stage floor: one stage cannot split, two stay
     * one split, four split in two */
    {132, 2, 64, 64, 1, 1, 64},
    {132, 2, 64, 128, 1, 1, 128},
    {132, 2, 64, 256, 1, 2, 128},
    /* tiles past the target: no split; a partial tile counts */
    {132, 2, 65 * 264, 4096, 65 * 264 / 64 + 1, 1, 4096},
    {132, 2, 200, 136, 4, 1, 192},
};

int main(void)
{
    int t, ks, s;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const int *w = want[i];
        s = plan(w[0], w[1], w[2], w[3], &t, &ks);
        if (t != w[4] || s != w[5] || ks != w[6])
            fprintf(stderr, "plan(%d, %d, %d, %d): tiles %d, splits %d, kslice %d\n", w[0], w[1],
                    w[2], w[3], t, s, ks);
        CHECK(t == w[4] && s == w[5] && ks == w[6]);
    }
    /* the invariants over a grid of shapes and device sizes */
    static const int sms[] = {1, 28, 108, 132, 304};
    int bad = 0, cases = 0;
    for (size_t i = 0; i < sizeof(sms) / sizeof(sms[0]); i++)
        for (int ctas = 1; ctas <= 4; ctas++)
            for (int n = 1; n <= 20000; n = n * 3 + 7)
                for (int k = 8; k <= 16384; k = k * 2 + 8) {
                    s = plan(sms[i], ctas, n, k, &t, &ks);
                    int kb = (k + 63) / 64;
                    cases++;
                    bad += s < 1 || ks % 64 != 0 || ks <= 0;
                    bad += (long)s * ks < k || (long)(s - 1) * ks >= k; /* K once, none empty */
                    bad += t != (n + 63) / 64;
                    bad += kb >= 2 && ks < 128;                /* two stages a split */
                    bad += s > 1 && t * s > 3 * sms[i] * ctas; /* near the target */
                }
    CHECK(cases > 1000);
    CHECK(bad == 0);
    return test_report();
}
