/* rng.h - a counter-based RNG for synthetic weights and inputs: element i of
 * the tensor NAME under seed S is a pure function of (S, NAME, i), so any
 * tensor (or any slice of one) is generated independently and identically on
 * the CPU, on a GPU, and in tools/vla_numpy.py. Definition (docs/VLA.md):
 *   key    = mix(S ^ fnv1a64(NAME))
 *   bits(j)= mix(key + (j + 1) * 0x9E3779B97F4A7C15)      (mod 2^64)
 *   mix    = the splitmix64 finaliser
 *   uniform(i) = (bits(i) >> 11) * 2^-53                   in [0, 1)
 *   normal(i)  = sqrt(-2 ln u1) * cos(2 pi u2), u1 = ((bits(2i) >> 11) + 0.5) * 2^-53,
 *                u2 = (bits(2i+1) >> 11) * 2^-53           (computed in double) */
#ifndef RVD_VLA_RNG_H
#define RVD_VLA_RNG_H

#include <stddef.h>
#include <stdint.h>

uint64_t vla_rng_mix(uint64_t z);
uint64_t vla_rng_key(uint64_t seed, const char *name);
uint64_t vla_rng_bits(uint64_t key, uint64_t j);
double vla_rng_normal(uint64_t key, uint64_t i);
/* out[i] = mean + scale * normal(i) for i in [0, n) */
void vla_rng_fill_normal(float *out, size_t n, uint64_t seed, const char *name, double mean,
                         double scale);
/* out[i] = lo + (hi - lo) * uniform(i) */
void vla_rng_fill_uniform(float *out, size_t n, uint64_t seed, const char *name, double lo,
                          double hi);

#endif
