/* rng.c - splitmix64-based counter RNG (see rng.h for the definition). */
#include "rng.h"

#include <math.h>

uint64_t vla_rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t vla_rng_key(uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 0x100000001b3ULL;
    return vla_rng_mix(seed ^ h);
}

uint64_t vla_rng_bits(uint64_t key, uint64_t j)
{
    return vla_rng_mix(key + (j + 1) * 0x9E3779B97F4A7C15ULL);
}

static double vla_rng_uniform(uint64_t key, uint64_t i)
{
    return (double)(vla_rng_bits(key, i) >> 11) * 0x1p-53;
}

double vla_rng_normal(uint64_t key, uint64_t i)
{
    double u1 = ((double)(vla_rng_bits(key, 2 * i) >> 11) + 0.5) * 0x1p-53;
    double u2 = (double)(vla_rng_bits(key, 2 * i + 1) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void vla_rng_fill_normal(float *out, size_t n, uint64_t seed, const char *name, double mean,
                         double scale)
{
    uint64_t key = vla_rng_key(seed, name);
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(mean + scale * vla_rng_normal(key, i));
}

void vla_rng_fill_uniform(float *out, size_t n, uint64_t seed, const char *name, double lo,
                          double hi)
{
    uint64_t key = vla_rng_key(seed, name);
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(lo + (hi - lo) * vla_rng_uniform(key, i));
}
