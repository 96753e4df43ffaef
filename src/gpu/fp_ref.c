/* fp_ref.c - CPU reference helpers of the numerics probes (see fp_ref.h).
 *
 * GEMM error bound, derived (Higham, Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., sections 3.1 and 3.5):
 *   - the inputs are fp16/bf16 values already (the probe rounds its random
 *     data once on the CPU and gives the same values to the GPU and to the
 *     fp64 reference), so input rounding is not part of the error;
 *   - a product of two fp16 values has 11 + 11 = 22 significant bits, of two
 *     bf16 values 8 + 8 = 16: both exact in fp32 (24 bits), so the products
 *     are exact whatever the hardware does with them before accumulating;
 *   - summing k exact terms in fp32 in ANY order (sequential, blocked,
 *     split-K, tensor-core tree) gives |fl(s) - s| <= gamma_{k-1} sum|x_i|
 *     with gamma_n = n u / (1 - n u), u = 2^-24 (Higham eq. 4.4 and the
 *     remark after it: the bound holds for every ordering);
 *   - storing the fp32 result adds nothing (the accumulator is fp32); the
 *     (k + 1) u used here covers gamma_{k-1} for k u < 0.01 (k <= 160000).
 * So |C - C_ref| <= (k + 1) u sum_l |a_il||b_lj| for a correctly rounding
 * fp32 accumulator. Matrix units that align products by truncation instead
 * of rounding (measured on NVIDIA tensor cores: Fasi, Higham, Mikaitis,
 * Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021) lose
 * up to one more bit per addition: a factor 2. checks.yaml holds that factor
 * (fp.correctness fails when the measured ratio exceeds it). For fp32 inputs
 * the products are not exact (48 bits -> 24): one more u per term, covered
 * by the same (k + 1) u term with factor 2. */
#include "fp_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static uint32_t f32_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
}

static float bits_f32(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* round |f| (finite, nonzero) to a binary format with p significant bits and
 * minimum normal exponent emin, ties to even. The result's bit pattern
 * without sign is ((E - emin + 1) << (p - 1)) + R for a normal result and R
 * for a subnormal one, where R is the rounded significand in quanta: one
 * formula covers the carry into the next binade and into the first normal. */
static uint32_t round_bits(uint32_t ax, int p, int emin)
{
    uint32_t M;
    int e; /* |f| = M * 2^e */
    if (ax >= 0x00800000) {
        M = (ax & 0x7fffff) | 0x800000;
        e = (int)(ax >> 23) - 127 - 23;
    } else {
        M = ax;
        e = -149;
    }
    int E = 31 - __builtin_clz(M) + e; /* floor(log2 |f|) */
    int normal = E >= emin;
    int qe = normal ? E - (p - 1) : emin - (p - 1); /* exponent of one quantum */
    int s = qe - e;                                 /* bits to drop */
    uint32_t R;
    if (s <= 0) {
        R = M << -s; /* cannot happen for narrower formats; kept for safety */
    } else if (s > 31) {
        R = 0;
    } else {
        R = M >> s;
        uint32_t rem = M & ((1u << s) - 1), half = 1u << (s - 1);
        if (rem > half || (rem == half && (R & 1)))
            R++;
    }
    return normal ? ((uint32_t)(E - emin) << (p - 1)) + R : R;
}

static uint16_t to_narrow(float f, int p, int emin, uint16_t inf, uint16_t qnan)
{
    uint32_t x = f32_bits(f), ax = x & 0x7fffffff;
    uint16_t sign = (uint16_t)((x >> 31) << 15);
    if (ax > 0x7f800000)
        return sign | qnan;
    if (ax == 0x7f800000)
        return sign | inf;
    if (ax == 0)
        return sign;
    uint32_t r = round_bits(ax, p, emin);
    return sign | (uint16_t)(r >= inf ? inf : r);
}

uint16_t fp_f32_to_f16(float f)
{
    return to_narrow(f, 11, -14, 0x7c00, 0x7e00);
}

uint16_t fp_f32_to_bf16(float f)
{
    return to_narrow(f, 8, -126, 0x7f80, 0x7fc0);
}

float fp_f16_to_f32(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexpf((float)m, -24);
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

float fp_bf16_to_f32(uint16_t h)
{
    return bits_f32((uint32_t)h << 16);
}

int fp_f16_isnan(uint16_t h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

int fp_bf16_isnan(uint16_t h)
{
    return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}

static void push(float **v, size_t *n, size_t *cap, float f)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1 << 16;
        *v = xrealloc(*v, *cap * sizeof(float));
    }
    (*v)[(*n)++] = f;
}

float *fp_tricky_floats(size_t *n)
{
    float *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        /* fp16: the value, the midpoint to the next larger magnitude (exact
         * in fp32: 12 significant bits) and one float ulp either side */
        if ((h & 0x7c00) != 0x7c00) {
            float a = fp_f16_to_f32((uint16_t)h);
            float b =
                (h & 0x7fff) == 0x7bff ? copysignf(65536.0f, a) : fp_f16_to_f32((uint16_t)(h + 1));
            float mid = (float)(((double)a + (double)b) / 2);
            push(&v, n, &cap, a);
            push(&v, n, &cap, mid);
            push(&v, n, &cap, nextafterf(mid, 0.0f));
            push(&v, n, &cap, nextafterf(mid, copysignf(INFINITY, mid)));
        }
        /* bf16: the midpoint is the pattern with the dropped half set */
        if ((h & 0x7f80) != 0x7f80) {
            uint32_t x = h << 16;
            push(&v, n, &cap, bits_f32(x));
            push(&v, n, &cap, bits_f32(x | 0x8000));
            push(&v, n, &cap, bits_f32(x | 0x7fff));
            push(&v, n, &cap, bits_f32(x | 0x8001));
        }
    }
    static const float specials[] = {
        65504.0f,       65519.99f, 65520.0f, 65536.0f,       1e30f,
        3.4028235e38f,  1e-45f,    1e-40f,   5.9604645e-08f, 2.9802322e-08f,
        2.9802326e-08f, INFINITY,  NAN};
    for (size_t i = 0; i < ARRAY_SIZE(specials); i++) {
        push(&v, n, &cap, specials[i]);
        push(&v, n, &cap, -specials[i]);
    }
    return v;
}

double fp_dot_ref(const float *a, const float *b, int k, double *absdot)
{
    double s = 0, sa = 0;
    for (int l = 0; l < k; l++) {
        double p = (double)a[l] * (double)b[l];
        s += p;
        sa += fabs(p);
    }
    *absdot = sa;
    return s;
}

double fp_gemm_bound_ratio(double err, int k, double absdot)
{
    double bound = (double)(k + 1) * FP_U32 * absdot;
    err = fabs(err);
    if (err == 0)
        return 0;
    if (bound == 0 || isnan(err))
        return INFINITY;
    return err / bound;
}

uint64_t fp_rng_u64(uint64_t seed, uint64_t counter)
{
    uint64_t z = seed + (counter + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float fp_rng_uniform(uint64_t seed, uint64_t counter)
{
    return (float)(fp_rng_u64(seed, counter) >> 40) * 5.9604644775390625e-08f;
}

float fp_rng_fill(uint64_t seed, uint64_t counter)
{
    return (float)((int)(fp_rng_u64(seed, counter) >> 56) - 128) / 128.0f;
}

/* regularised upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a).
 * Q(a, x): the series for P when x < a + 1, else Lentz's continued fraction
 * for Q (Numerical Recipes 6.2; both converge fast in their region) */
static double fp_gamma_q(double a, double x)
{
    if (x <= 0)
        return 1;
    if (a <= 0)
        return 0;
    double lg = lgamma(a), pre = exp(-x + a * log(x) - lg);
    if (x < a + 1) {
        double ap = a, sum = 1 / a, del = sum;
        for (int n = 0; n < 100000; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-16)
                break;
        }
        double q = 1 - sum * pre;
        return q < 0 ? 0 : q;
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return pre * h;
}

double fp_chi2_sf(double x, double dof)
{
    return fp_gamma_q(dof / 2, x / 2);
}

double fp_chi2_stat(const uint64_t *counts, const double *p, int k, uint64_t n, int *dof,
                    uint64_t *zero_hits)
{
    double chi = 0;
    int used = 0;
    *zero_hits = 0;
    for (int i = 0; i < k; i++) {
        if (p[i] <= 0) {
            *zero_hits += counts[i];
            continue;
        }
        double e = (double)n * p[i], d = (double)counts[i] - e;
        chi += d * d / e;
        used++;
    }
    *dof = used - 1;
    return chi;
}
