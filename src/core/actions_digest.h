/* actions_digest.h - the numerics gate's digest of a fixed-seed pass's
 * actions (issue 36): written by the vla probe into the JSON report
 * (vla.numerics.actions_digest), compared by `diff` across a driver or
 * ROCm update. One line of text:
 *
 *   v1 preset=NAME dtype=DTYPE n=N fnv64=HEX top=MAXABS sample=x0,x1,...
 *
 * fnv64 is FNV-1a over the N actions' bytes (any bit that moves changes
 * it); top is the largest |action|; sample holds up to 32 actions at evenly
 * spaced indices (i = k * N / 32), printed with %.9g so a float survives
 * the round trip. A hash says that the actions moved; the sample says by
 * how much, relative to top, which is what diff gates on. */
#ifndef RVD_ACTIONS_DIGEST_H
#define RVD_ACTIONS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define ACTIONS_DIGEST_SAMPLES 32

struct actions_digest {
    char preset[64], dtype[16];
    size_t n;
    uint64_t fnv;
    double top;
    int nsample;
    double sample[ACTIONS_DIGEST_SAMPLES];
};

/* the text of a's digest (malloc'd); spaces in the preset's name become '_' */
char *actions_digest_text(const float *a, size_t n, const char *preset, const char *dtype);
/* 0, or -1 when s is not a v1 digest (no message: the caller names the fact) */
int actions_digest_parse(const char *s, struct actions_digest *d);

/* how b moved from a: 0 compared (*max_diff over the samples, *rel = that
 * over a's top, *at the sample index), 1 not comparable (another preset,
 * dtype or count: *why says which) */
int actions_digest_compare(const struct actions_digest *a, const struct actions_digest *b,
                           double *max_diff, double *rel, int *at, const char **why);

#endif
