/* suggest.c - see suggest.h */
#include "suggest.h"

#include <stdio.h>
#include <string.h>

static char fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 100 || lb > 100)
        return 100;
    size_t row[101];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (fold(a[i - 1]) != fold(b[j - 1]));
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void suggest_init(struct suggest *s, const char *typed, char *buf, size_t n)
{
    s->typed = typed;
    /* at most a third of the word may differ, so that the hint is a typo fix */
    s->best = strlen(typed) / 3 + 1;
    s->buf = buf;
    s->n = n;
    if (n)
        buf[0] = '\0';
}

void suggest_consider(struct suggest *s, const char *cand)
{
    size_t d = edit_distance(cand, s->typed);
    if (d < s->best && s->n) {
        s->best = d;
        snprintf(s->buf, s->n, "%s", cand);
    }
}

const char *suggest_best(const struct suggest *s)
{
    return s->n && s->buf[0] ? s->buf : NULL;
}
