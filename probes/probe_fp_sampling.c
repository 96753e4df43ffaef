/* probe_fp_sampling.c - inverse-CDF sampling on the device (probe
 * "fp_sampling", check fp.sampling): per-row probabilities over 32
 * categories (one of them 0) and uniforms from the counter-based RNG go to a
 * kernel (kernels/fp_numerics.hip rvd_fp_sample) that returns indices; the
 * counts are tested against the probabilities with Pearson's chi-square
 * (src/gpu/fp_ref.c: statistic and survival function), per batch size 1, 8, 64
 * with 200000 samples per row (the rows' statistics and degrees of freedom
 * add up: one p-value per batch size).
 * Facts: fp.sampling.b{1,8,64}.p_value, .chi2, .dof; fp.sampling.min_p_value,
 * fp.sampling.zero_prob_hits (samples in a probability-0 category),
 * fp.sampling.out_of_range, fp.sampling.samples_per_row, .categories. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/fp_ref.h"
#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "probe.h"

#define SAMP_K 32
#define SAMP_PER_ROW 200000
#define SAMP_ZERO 5 /* the category with probability 0 */

int probe_fp_sampling_run(struct probe_ctx *ctx);

/* row r: weights 1 / (1 + (7j + 3r) mod 32), a permuted harmonic law (the
 * smallest probability is ~1/130: >= 1500 expected counts per cell) */
static float weight(int r, int j)
{
    return j == SAMP_ZERO ? 0.0f : 1.0f / (float)(1 + (7 * j + 3 * r) % SAMP_K);
}

int probe_fp_sampling_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    if (gpu_probe_begin(ctx, "fp.sampling", &b, &p))
        return 0;
    gpu_module mod;
    gpu_function f;
    char *why = NULL;
    if (gpu_kernel_load(b, "fp_numerics", gpu_probe_target(&p), &mod, &why) ||
        b->function(b, mod, "rvd_fp_sample", &f)) {
        gpu_probe_unavailable(ctx, "fp.sampling", "%s", why ? why : b->err);
        free(why);
        return 0;
    }
    const char *src = b->lib;
    static const int batches[] = {1, 8, 64};
    int maxb = 64, k = SAMP_K, per_row = SAMP_PER_ROW;
    float *w = xcalloc((size_t)maxb * k, 4);
    int *idx = xcalloc((size_t)maxb * per_row, 4);
    void *dw = NULL, *didx = NULL;
    if (b->malloc(b, &dw, (size_t)maxb * k * 4) ||
        b->malloc(b, &didx, (size_t)maxb * per_row * 4)) {
        gpu_probe_unavailable(ctx, "fp.sampling", "%s", b->err);
        goto out;
    }
    double minp = 1;
    uint64_t zero_hits = 0, out_of_range = 0;
    for (size_t bi = 0; bi < ARRAY_SIZE(batches); bi++) {
        int rows = batches[bi];
        for (int r = 0; r < rows; r++)
            for (int j = 0; j < k; j++)
                w[r * k + j] = weight(r, j);
        uint64_t seed = 0x5eed0000u + (uint64_t)rows;
        void *args[] = {&dw, &k, &rows, &per_row, &seed, &didx};
        char name[FACT_NAME_MAX];
        if (b->memcpy(b, dw, w, (size_t)rows * k * 4, GPU_H2D) ||
            b->launch(b, f, 2048, 256, 0, NULL, args) || b->device_sync(b) ||
            b->memcpy(b, idx, didx, (size_t)rows * per_row * 4, GPU_D2H)) {
            snprintf(name, sizeof(name), "fp.sampling.b%d.p_value", rows);
            fact_set_unknown(fs, name, src, "%s", b->err);
            fact_set_unknown(fs, "fp.sampling.min_p_value", src, "%s", b->err);
            goto out;
        }
        double chi = 0;
        int dof = 0;
        for (int r = 0; r < rows; r++) {
            uint64_t cnt[SAMP_K] = {0}, zh = 0;
            double pr[SAMP_K], tot = 0;
            for (int j = 0; j < k; j++)
                tot += w[r * k + j];
            for (int j = 0; j < k; j++)
                pr[j] = w[r * k + j] / tot;
            for (int s = 0; s < per_row; s++) {
                int x = idx[(size_t)r * per_row + s];
                if (x < 0 || x >= k)
                    out_of_range++;
                else
                    cnt[x]++;
            }
            int d;
            chi += fp_chi2_stat(cnt, pr, k, (uint64_t)per_row, &d, &zh);
            dof += d;
            zero_hits += zh;
        }
        double pv = fp_chi2_sf(chi, dof);
        if (pv < minp)
            minp = pv;
        snprintf(name, sizeof(name), "fp.sampling.b%d.p_value", rows);
        fact_set_float(fs, name, pv, "chi-square survival function (fp_ref.c)");
        snprintf(name, sizeof(name), "fp.sampling.b%d.chi2", rows);
        fact_set_float(fs, name, chi, src);
        snprintf(name, sizeof(name), "fp.sampling.b%d.dof", rows);
        fact_set_int(fs, name, dof, src);
    }
    fact_set_float(fs, "fp.sampling.min_p_value", minp, "min over batch sizes 1, 8, 64");
    fact_set_int(fs, "fp.sampling.zero_prob_hits", (int64_t)zero_hits, src);
    fact_set_int(fs, "fp.sampling.out_of_range", (int64_t)out_of_range, src);
    fact_set_int(fs, "fp.sampling.samples_per_row", per_row, "probe");
    fact_set_int(fs, "fp.sampling.categories", k, "probe");
out:
    b->free(b, dw);
    b->free(b, didx);
    free(w);
    free(idx);
    return 0;
}
