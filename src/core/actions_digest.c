/* actions_digest.c - the numerics gate's digest (see actions_digest.h). */
#include "actions_digest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint64_t fnv1a(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static void put_word(struct strbuf *sb, const char *key, const char *v)
{
    strbuf_addf(sb, " %s=", key);
    for (const char *c = v && *v ? v : "?"; *c; c++)
        strbuf_addf(sb, "%c", *c == ' ' || *c == '\t' || *c == '\n' ? '_' : *c);
}

char *actions_digest_text(const float *a, size_t n, const char *preset, const char *dtype)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "v1");
    put_word(&sb, "preset", preset);
    put_word(&sb, "dtype", dtype);
    double top = 0;
    for (size_t i = 0; i < n; i++)
        top = fabs(a[i]) > top ? fabs(a[i]) : top;
    strbuf_addf(&sb, " n=%zu fnv64=%016llx top=%.9g sample=", n,
                (unsigned long long)fnv1a(a, n * sizeof(float)), top);
    size_t k = n < ACTIONS_DIGEST_SAMPLES ? n : ACTIONS_DIGEST_SAMPLES;
    for (size_t j = 0; j < k; j++)
        strbuf_addf(&sb, "%s%.9g", j ? "," : "", a[j * n / k]);
    return strbuf_detach(&sb);
}

/* the value of " key=" in s, copied into out (at most cap - 1 bytes) */
static int word(const char *s, const char *key, char *out, size_t cap)
{
    char pat[24];
    snprintf(pat, sizeof(pat), " %s=", key);
    const char *p = strstr(s, pat);
    if (!p)
        return -1;
    p += strlen(pat);
    size_t len = strcspn(p, " ");
    if (len == 0 || len >= cap)
        return -1;
    memcpy(out, p, len);
    out[len] = '\0';
    return 0;
}

int actions_digest_parse(const char *s, struct actions_digest *d)
{
    memset(d, 0, sizeof(*d));
    char num[64], samp[ACTIONS_DIGEST_SAMPLES * 24], *end;
    if (!s || strncmp(s, "v1 ", 3) != 0 || word(s, "preset", d->preset, sizeof(d->preset)) ||
        word(s, "dtype", d->dtype, sizeof(d->dtype)))
        return -1;
    if (word(s, "n", num, sizeof(num)))
        return -1;
    d->n = (size_t)strtoull(num, &end, 10);
    if (*end || num[0] == '-')
        return -1;
    if (word(s, "fnv64", num, sizeof(num)))
        return -1;
    d->fnv = strtoull(num, &end, 16);
    if (*end || strlen(num) != 16)
        return -1;
    if (word(s, "top", num, sizeof(num)))
        return -1;
    d->top = strtod(num, &end);
    if (*end || !isfinite(d->top) || d->top < 0)
        return -1;
    if (word(s, "sample", samp, sizeof(samp)))
        return d->n == 0 ? 0 : -1;
    for (char *p = samp; *p;) {
        if (d->nsample == ACTIONS_DIGEST_SAMPLES)
            return -1;
        /* "nan" and "inf" parse too: a non-finite action is a digest's fact */
        d->sample[d->nsample++] = strtod(p, &end);
        if (end == p || (*end && *end != ','))
            return -1;
        p = *end ? end + 1 : end;
    }
    size_t want = d->n < ACTIONS_DIGEST_SAMPLES ? d->n : ACTIONS_DIGEST_SAMPLES;
    return (size_t)d->nsample == want ? 0 : -1;
}

int actions_digest_compare(const struct actions_digest *a, const struct actions_digest *b,
                           double *max_diff, double *rel, int *at, const char **why)
{
    *max_diff = 0, *rel = 0, *at = -1, *why = NULL;
    if (strcmp(a->preset, b->preset))
        return *why = "another preset", 1;
    if (strcmp(a->dtype, b->dtype))
        return *why = "another dtype", 1;
    if (a->n != b->n || a->nsample != b->nsample)
        return *why = "another number of actions", 1;
    for (int i = 0; i < a->nsample; i++) {
        double x = a->sample[i], y = b->sample[i];
        /* a value that turned non-finite moved by infinitely much */
        double d = isfinite(x) && isfinite(y)         ? fabs(y - x)
                   : (isnan(x) && isnan(y)) || x == y ? 0
                                                      : INFINITY;
        if (d > *max_diff || *at < 0) {
            *max_diff = d > *max_diff ? d : *max_diff;
            *at = i;
        }
    }
    *rel = a->top > 0 ? *max_diff / a->top : *max_diff > 0 ? INFINITY : 0;
    return 0;
}
