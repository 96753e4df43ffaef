/* suggest.h - "did you mean": the one edit distance every typo hint uses
 * (fact names in checks files, commands, options, check ids, presets), so
 * that each hint is judged by the same rule: the closest candidate wins,
 * and only when at most a third of the typed word differs (a typo fix,
 * not a guess). Letters compare without case, so `PI0` finds `pi0`. */
#ifndef RVD_SUGGEST_H
#define RVD_SUGGEST_H

#include <stddef.h>

/* Levenshtein distance, letters folded to lower case; words longer than
 * 100 bytes (no name is) count as 100 apart */
size_t edit_distance(const char *a, const char *b);

struct suggest {
    const char *typed;
    size_t best; /* the distance to beat: the limit, then the best seen */
    char *buf;   /* the best candidate so far, "" while none */
    size_t n;
};

/* start looking for the name closest to typed; buf (n bytes) keeps it */
void suggest_init(struct suggest *s, const char *typed, char *buf, size_t n);
void suggest_consider(struct suggest *s, const char *cand);
/* the closest candidate within the limit, or NULL */
const char *suggest_best(const struct suggest *s);

#endif
