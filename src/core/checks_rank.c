/* checks_rank.c - which finding to fix first: each check's `impact:` (what
 * its failure costs), the caused-by relation (checks_cause.c) and the
 * status decide, never the order of checks.yaml.
 *
 * A root cause is ranked by the worst that it and its consequences cost:
 * a warning whose consequence blocks the GPU comes before a failure that
 * only slows it. Between roots of the same impact a failure comes before a
 * warning, then the deepest cause (the one whose chain of consequences is
 * longest, then the one that explains the most findings), then file order. */
#include "checks.h"

#include <stdlib.h>
#include <string.h>

static const char *const impact_names[] = {
    [IMPACT_ADVICE] = "advice",
    [IMPACT_SLOW] = "slow",
    [IMPACT_WRONG] = "wrong",
    [IMPACT_BLOCKS] = "blocks",
};

const char *impact_name(enum impact im)
{
    return (size_t)im < ARRAY_SIZE(impact_names) ? impact_names[im] : NULL;
}

int impact_parse(const char *s, enum impact *out)
{
    for (size_t i = IMPACT_ADVICE; s && i < ARRAY_SIZE(impact_names); i++)
        if (strcmp(s, impact_names[i]) == 0) {
            *out = (enum impact)i;
            return 0;
        }
    return -1;
}

enum impact result_impact(const struct result *res)
{
    if (!status_not_passing(res->st))
        return IMPACT_NONE;
    if (res->by && res->by->impact != IMPACT_NONE)
        return res->by->impact;
    return res->check->impact;
}

/* fail, error and timeout outrank warn */
static int grave(enum status st)
{
    return st == ST_FAIL || st == ST_ERROR || st == ST_TIMEOUT ? 2 : st == ST_WARN;
}

struct root_rank {
    int impact, grave;
    size_t depth, count; /* longest chain below the root; consequences */
    size_t at;           /* the root's index: file order breaks the last tie */
};

/* a result's root cause (the relation is acyclic, so the chain ends within
 * n steps) and the number of steps to it */
static size_t root_of(const struct results *r, size_t i, size_t *hops)
{
    const struct result *root = &r->v[i];
    size_t h = 0;
    for (; root->cause && h < r->n; h++)
        root = root->cause;
    *hops = h;
    return (size_t)(root - r->v);
}

static int cmp_rank(const void *a, const void *b)
{
    const struct root_rank *x = a, *y = b;
    if (x->impact != y->impact)
        return y->impact - x->impact;
    if (x->grave != y->grave)
        return y->grave - x->grave;
    if (x->depth != y->depth)
        return x->depth < y->depth ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* the ranked roots into ranks[] (room for r->n); how many */
static size_t rank_roots(const struct results *r, struct root_rank *ranks)
{
    struct root_rank *by_at = xcalloc(r->n + 1, sizeof(*by_at));
    for (size_t i = 0; i < r->n; i++) {
        const struct result *res = &r->v[i];
        if (!status_not_passing(res->st))
            continue;
        size_t hops, at = root_of(r, i, &hops);
        struct root_rank *k = &by_at[at];
        k->at = at;
        if ((int)result_impact(res) > k->impact)
            k->impact = (int)result_impact(res);
        if (grave(res->st) > k->grave)
            k->grave = grave(res->st);
        if (hops > k->depth)
            k->depth = hops;
        k->count += hops > 0;
    }
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (status_not_passing(r->v[i].st) && !r->v[i].cause)
            ranks[n++] = by_at[i];
    free(by_at);
    qsort(ranks, n, sizeof(*ranks), cmp_rank);
    return n;
}

size_t results_fix_order(const struct results *r, size_t *order)
{
    struct root_rank *ranks = xcalloc(r->n + 1, sizeof(*ranks));
    size_t nroots = rank_roots(r, ranks), n = 0;
    /* each root's group: a result's root found once, not per root */
    size_t *root = xcalloc(r->n + 1, sizeof(*root));
    for (size_t i = 0; i < r->n; i++) {
        size_t hops;
        root[i] = status_not_passing(r->v[i].st) ? root_of(r, i, &hops) : r->n;
    }
    size_t *first = xcalloc(r->n + 1, sizeof(*first)), *next = xcalloc(r->n + 1, sizeof(*next));
    for (size_t i = 0; i <= r->n; i++)
        first[i] = next[i] = r->n;
    /* consequences chained per root in file order (built backwards) */
    for (size_t i = r->n; i-- > 0;)
        if (root[i] < r->n && root[i] != i) {
            next[i] = first[root[i]];
            first[root[i]] = i;
        }
    for (size_t k = 0; k < nroots; k++) {
        order[n++] = ranks[k].at;
        for (size_t j = first[ranks[k].at]; j < r->n; j = next[j])
            order[n++] = j;
    }
    free(ranks);
    free(root);
    free(first);
    free(next);
    return n;
}

const struct result *results_start_with(const struct results *r)
{
    struct root_rank *ranks = xcalloc(r->n + 1, sizeof(*ranks));
    size_t n = rank_roots(r, ranks);
    const struct result *best = n ? &r->v[ranks[0].at] : NULL;
    free(ranks);
    return best;
}
