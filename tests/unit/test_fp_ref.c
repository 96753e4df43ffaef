/* test_fp_ref.c - the CPU reference of the numerics probes: RNE conversions
 * (known values, ties, subnormals, overflow; against the backend's own
 * independent implementation over the tricky set and a strided sweep of
 * all floats), the GEMM bound on the CPU backend's GEMM, the counter RNG
 * (pinned values), the chi-square survival function against textbook
 * quantiles, and Pearson's statistic on a fair and a biased sampler. */
/* layers: core gpu */
#include <math.h>
#include <stdlib.h>

#include "../../src/gpu/fp_ref.h"
#include "../../src/gpu/backend.h"
#include "test.h"

static void test_f16(void)
{
    CHECK(fp_f32_to_f16(1.0f) == 0x3c00);
    CHECK(fp_f32_to_f16(-2.0f) == 0xc000);
    CHECK(fp_f32_to_f16(65504.0f) == 0x7bff);
    /* 65520 is the midpoint between 65504 (odd significand) and 2^16: even -> inf */
    CHECK(fp_f32_to_f16(65520.0f) == 0x7c00);
    CHECK(fp_f32_to_f16(nextafterf(65520.0f, 0)) == 0x7bff);
    CHECK(fp_f32_to_f16(65504.0f * 2) == 0x7c00);
    /* 1 + 2^-11 is the tie between 1 and 1 + 2^-10: to even (1) */
    CHECK(fp_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);
    CHECK(fp_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02); /* tie, odd below -> up */
    CHECK(fp_f32_to_f16(0x1p-24f) == 0x0001);            /* smallest subnormal */
    CHECK(fp_f32_to_f16(0x1p-25f) == 0x0000);            /* tie with 0: even */
    CHECK(fp_f32_to_f16(nextafterf(0x1p-25f, 1)) == 0x0001);
    CHECK(fp_f32_to_f16(3 * 0x1p-25f) == 0x0002);        /* tie 1 <-> 2 quanta: even */
    CHECK(fp_f32_to_f16(0x1p-14f) == 0x0400);            /* smallest normal */
    CHECK(fp_f32_to_f16(0x1p-14f - 0x1p-25f) == 0x0400); /* tie 0x3ff/0x400: even */
    CHECK(fp_f32_to_f16(-0.0f) == 0x8000);
    CHECK(fp_f32_to_f16(INFINITY) == 0x7c00);
    CHECK(fp_f16_isnan(fp_f32_to_f16(NAN)));
    CHECK(fp_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(fp_f16_to_f32(0x7bff) == 65504.0f);
    CHECK(isinf(fp_f16_to_f32(0xfc00)) && fp_f16_to_f32(0xfc00) < 0);
}

static void test_bf16(void)
{
    CHECK(fp_f32_to_bf16(1.0f) == 0x3f80);
    CHECK(fp_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);     /* tie to even */
    CHECK(fp_f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82); /* tie, odd below -> up */
    CHECK(fp_f32_to_bf16(65504.0f * 2) == 0x4800);       /* 2^17: bf16 keeps the range */
    CHECK(fp_f32_to_bf16(3.4028235e38f) == 0x7f80);      /* FLT_MAX rounds up to inf */
    CHECK(fp_f32_to_bf16(1e-40f) != 0);                  /* subnormals are kept */
    CHECK(fp_bf16_isnan(fp_f32_to_bf16(NAN)));
    CHECK(fp_bf16_to_f32(0x4300) == 128.0f);
}

/* two independent implementations (this one from the bit layout, the
 * backend's from exponent arithmetic) must agree everywhere */
static void test_against_backend(void)
{
    size_t n = 0;
    float *v = fp_tricky_floats(&n);
    CHECK(n > 400000);
    size_t bad16 = 0, badbf = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t a = fp_f32_to_f16(v[i]), b = gpu_float_to_half(v[i]);
        if (a != b && !(fp_f16_isnan(a) && fp_f16_isnan(b)))
            bad16++;
        a = fp_f32_to_bf16(v[i]);
        b = gpu_float_to_bf16(v[i]);
        if (a != b && !(fp_bf16_isnan(a) && fp_bf16_isnan(b)))
            badbf++;
        /* the round trip of a representable value is the identity */
    }
    CHECK(bad16 == 0);
    CHECK(badbf == 0);
    free(v);
    /* a sweep over all floats with a prime stride (2^32 / 65521 ~ 65k values) */
    size_t sweep_bad = 0;
    for (uint64_t x = 0; x < 0x100000000ull; x += 65521) {
        uint32_t u = (uint32_t)x;
        float f;
        memcpy(&f, &u, 4);
        uint16_t a = fp_f32_to_f16(f), b = gpu_float_to_half(f);
        if (a != b && !(fp_f16_isnan(a) && fp_f16_isnan(b)))
            sweep_bad++;
        a = fp_f32_to_bf16(f);
        b = gpu_float_to_bf16(f);
        if (a != b && !(fp_bf16_isnan(a) && fp_bf16_isnan(b)))
            sweep_bad++;
    }
    CHECK(sweep_bad == 0);
    /* every finite fp16 value survives the round trip */
    size_t rt_bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++)
        if ((h & 0x7c00) != 0x7c00 && fp_f32_to_f16(fp_f16_to_f32((uint16_t)h)) != h)
            rt_bad++;
    CHECK(rt_bad == 0);
}

/* the bound on a real fp32 GEMM: the CPU backend's (fp32 accumulation) */
static void test_gemm_bound(void)
{
    struct gpu_backend *b = gpu_backend_cpu_open();
    CHECK(b && b->blas_gemm);
    if (!b || !b->blas_gemm)
        return;
    int m = 17, n = 33, k = 4099;
    uint16_t *A = malloc(sizeof(uint16_t) * (size_t)m * k),
             *B = malloc(sizeof(uint16_t) * (size_t)k * n);
    float *Af = malloc(sizeof(float) * (size_t)m * k), *Bf = malloc(sizeof(float) * (size_t)k * n);
    float *C = malloc(sizeof(float) * (size_t)m * n);
    for (int i = 0; i < m * k; i++) {
        A[i] = fp_f32_to_f16(fp_rng_uniform(1, (uint64_t)i) * 2 - 1);
        Af[i] = fp_f16_to_f32(A[i]);
    }
    for (int i = 0; i < k * n; i++) {
        B[i] = fp_f32_to_f16(fp_rng_uniform(2, (uint64_t)i) * 2 - 1);
        Bf[i] = fp_f16_to_f32(B[i]);
    }
    CHECK(b->blas_gemm(b, GPU_F16, m, n, k, A, B, C, NULL) == 0);
    double worst = 0;
    float *col = malloc(sizeof(float) * (size_t)k);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            for (int l = 0; l < k; l++)
                col[l] = Bf[(size_t)l * n + j];
            double s, r = fp_dot_ref(Af + (size_t)i * k, col, k, &s);
            double q = fp_gemm_bound_ratio((double)C[(size_t)i * n + j] - r, k, s);
            if (q > worst)
                worst = q;
        }
    CHECK(worst <= 1.0);
    CHECK(worst > 0); /* fp32 accumulation over 4099 terms does round */
    CHECK(fp_gemm_bound_ratio(0, 10, 0) == 0);
    CHECK(isinf(fp_gemm_bound_ratio(1e-3, 10, 0)));
    CHECK(isinf(fp_gemm_bound_ratio(NAN, 10, 1)));
    free(A), free(B), free(Af), free(Bf), free(C), free(col);
    gpu_backend_close(b);
}

static void test_rng(void)
{
    /* pinned: kernels/fp_common.hip computes the same numbers */
    CHECK(fp_rng_u64(0, 0) == 0xE220A8397B1DCDAFull); /* splitmix64's first output from seed 0 */
    float u = fp_rng_uniform(7, 12345);
    CHECK(u >= 0 && u < 1);
    int lo = 0, hi = 0;
    for (int i = 0; i < 100000; i++) {
        float f = fp_rng_fill(3, (uint64_t)i);
        if (f == -1.0f)
            lo++;
        if (f == 127.0f / 128)
            hi++;
        if (f < -1 || f >= 1 || f * 128 != floorf(f * 128))
            hi = -1000000;
    }
    CHECK(lo > 0 && hi > 0);
}

static void test_chi2(void)
{
    /* df = 2: Q = exp(-x/2) exactly */
    CHECK(fabs(fp_chi2_sf(3.0, 2) - exp(-1.5)) < 1e-12);
    /* textbook 5% quantiles: chi2.ppf(0.95, df) */
    CHECK(fabs(fp_chi2_sf(3.841458820694124, 1) - 0.05) < 1e-9);
    CHECK(fabs(fp_chi2_sf(18.307038053275146, 10) - 0.05) < 1e-9);
    CHECK(fabs(fp_chi2_sf(124.34211340400407, 100) - 0.05) < 1e-9);
    CHECK(fabs(fp_chi2_sf(44.9853, 31) - 0.05) < 1e-5); /* table value, 6 digits */
    /* df 31 in closed form: Q(15.5, x) has no elementary form, but df 32
     * does: Q(16, x/2) = exp(-x/2) sum_{i<16} (x/2)^i / i! */
    double x = 60, t = 1, sum = 0;
    for (int i = 0; i < 16; i++) {
        sum += t;
        t *= x / 2 / (i + 1);
    }
    CHECK(fabs(fp_chi2_sf(x, 32) - exp(-x / 2) * sum) < 1e-14);
    CHECK(fp_chi2_sf(0, 5) == 1);
    CHECK(fp_chi2_sf(1e4, 31) < 1e-300 || fp_chi2_sf(1e4, 31) == 0);

    /* a fair inverse-CDF sampler passes, a biased one fails */
    enum { K = 32 };
    double p[K], tot = 0;
    for (int i = 0; i < K; i++)
        tot += p[i] = i == 5 ? 0 : 1.0 / (i + 1);
    for (int i = 0; i < K; i++)
        p[i] /= tot;
    uint64_t fair[K] = {0}, biased[K] = {0}, n = 200000, zh = 0;
    for (uint64_t s = 0; s < n; s++) {
        double u = fp_rng_uniform(11, s), c = 0;
        int j = 0;
        for (; j < K - 1; j++)
            if (u < (c += p[j]))
                break;
        fair[j]++;
        biased[j == 0 && s % 50 == 0 ? 1 : j]++; /* 2% of category 0 moved */
    }
    int dof;
    double chi = fp_chi2_stat(fair, p, K, n, &dof, &zh);
    CHECK(dof == K - 2);
    CHECK(zh == 0);
    CHECK(fp_chi2_sf(chi, dof) > 1e-4);
    chi = fp_chi2_stat(biased, p, K, n, &dof, &zh);
    CHECK(fp_chi2_sf(chi, dof) < 1e-4);
}

int main(void)
{
    test_f16();
    test_bf16();
    test_against_backend();
    test_gemm_bound();
    test_rng();
    test_chi2();
    return test_report();
}
