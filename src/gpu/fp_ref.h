/* fp_ref.h - the CPU side of the numerics probes (fp.correctness,
 * fp.sampling, gpu.gemm_peak): float -> binary16/bfloat16 conversion with
 * round-to-nearest-even written from the bit layout (independent of the
 * backend's gpu_float_to_half, so the two can be checked against each
 * other), the set of tricky conversion inputs, an fp64 GEMM reference with
 * the running sum of |a||b| that the error bound needs, the counter-based
 * RNG shared with kernels/fp_*.hip, and the chi-square survival function. */
#ifndef RVD_FP_REF_H
#define RVD_FP_REF_H

#include <stddef.h>
#include <stdint.h>

/* unit roundoff of fp32 (round to nearest): 2^-24 */
#define FP_U32 5.9604644775390625e-08

/* IEEE 754 binary16 / bfloat16, round to nearest, ties to even; NaN stays
 * NaN (quiet), overflow goes to inf, subnormals are kept (no flush) */
uint16_t fp_f32_to_f16(float f);
uint16_t fp_f32_to_bf16(float f);
float fp_f16_to_f32(uint16_t h);
float fp_bf16_to_f32(uint16_t h);
int fp_f16_isnan(uint16_t h);
int fp_bf16_isnan(uint16_t h);

/* the float inputs that make a conversion show its rounding: every fp16 and
 * bf16 value, every exact midpoint between neighbours (ties), one float ulp
 * either side of each midpoint, the overflow thresholds, zeros, infinities,
 * NaN. Returns a malloc'd array and its length in *n. */
float *fp_tricky_floats(size_t *n);

/* one GEMM output element in fp64: sum_l a[l] b[l] over a row of A and a
 * column of B (copied contiguous), from fp32 copies of the (already
 * rounded) inputs; *absdot = sum_l |a[l]| |b[l]| */
double fp_dot_ref(const float *a, const float *b, int k, double *absdot);

/* The GEMM error bound (see fp_ref.c for the derivation): the error of one
 * output element computed with exact products and an fp32 accumulator over
 * k terms, in any summation order, is at most (k + 1) * u32 * sum|a||b|.
 * Returns |err| / that bound (0 when both are 0, inf when only err is). */
double fp_gemm_bound_ratio(double err, int k, double absdot);

/* counter-based RNG (kernels/fp_numerics.hip has the same): splitmix64 of
 * seed + counter * golden ratio. Same value on CPU and device for a counter. */
uint64_t fp_rng_u64(uint64_t seed, uint64_t counter);
/* uniform in [0, 1) with 24 random bits (exact in fp32) */
float fp_rng_uniform(uint64_t seed, uint64_t counter);
/* the GEMM fill value: a multiple of 1/128 in [-1, 1), exact in fp16, bf16
 * and fp32, so that a fill on the device needs no rounding at all */
float fp_rng_fill(uint64_t seed, uint64_t counter);

/* chi-square survival function P(X >= x) for dof degrees of freedom */
double fp_chi2_sf(double x, double dof);
/* Pearson's statistic of counts[0..k) against probabilities p (summing to
 * 1) over n samples; categories with p == 0 are left out (they must be
 * empty: *zero_hits counts samples that fell into them); *dof = used - 1 */
double fp_chi2_stat(const uint64_t *counts, const double *p, int k, uint64_t n, int *dof,
                    uint64_t *zero_hits);

#endif
