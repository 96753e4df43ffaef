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

int main(void)
{
    int t, ks, s;
    /* pi0's expert on 132 SMs, 2 blocks each: gate/up, down, [q; kv], o */
    s = plan(132, 2, 8192, 1024, &t, &ks);
    CHECK(t == 128 && s == 2 && ks == 512);
    s = plan(132, 2, 1024, 4096, &t, &ks);
    CHECK(t == 16 && s == 16 && ks == 256);
    s = plan(132, 2, 2560, 1024, &t, &ks);
    CHECK(t == 40 && s == 6 && ks == 192);
    s = plan(132, 2, 1024, 2048, &t, &ks);
    CHECK(t == 16 && s == 16 && ks == 128);
    /* at 4 blocks an SM the gate/up GEMM splits in 4 */
    s = plan(132, 4, 8192, 1024, &t, &ks);
    CHECK(t == 128 && s == 4 && ks == 256);
    /* each side of the two-stage floor: K of one stage cannot split, of
     * four splits at most in two */
    s = plan(132, 2, 64, 64, &t, &ks);
    CHECK(t == 1 && s == 1 && ks == 64);
    s = plan(132, 2, 64, 128, &t, &ks);
    CHECK(s == 1 && ks == 128);
    s = plan(132, 2, 64, 256, &t, &ks);
    CHECK(s == 2 && ks == 128);
    /* tiles past the target: no split; a partial tile counts */
    s = plan(132, 2, 65 * 264, 4096, &t, &ks);
    CHECK(t == 65 * 264 / 64 + 1 && s == 1 && ks == 4096);
    s = plan(132, 2, 200, 136, &t, &ks);
    CHECK(t == 4 && s == 1 && ks == 192);
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
