/* checks_cause.c - the "caused by" relation between checks (checks.yaml's
 * `caused_by:`): resolved and proved acyclic at load, applied after a run.
 *
 * A check that did not pass while one of its causes did not pass either is
 * a consequence: /dev/kfd refuses a user who has not logged in again since
 * joining `render`, and a second fix (`usermod`) would contradict the one
 * that works (log in again). Such a result points at its cause, and the
 * report starts with a root cause, never with a consequence. */
#include "checks.h"

#include <stdlib.h>
#include <string.h>

int status_not_passing(enum status st)
{
    return st == ST_WARN || st == ST_FAIL || st == ST_ERROR || st == ST_TIMEOUT;
}

/* ---- load time ---------------------------------------------------------- */

static int cmp_check_id(const void *a, const void *b)
{
    return strcmp((*(const struct check *const *)a)->id, (*(const struct check *const *)b)->id);
}

/* the check named id in the sorted index, or NULL: loading stays
 * O(n log n) for a large custom file */
static const struct check *by_id(const struct check **sorted, size_t n, const char *id)
{
    struct check key = {.id = (char *)id};
    const struct check *k = &key;
    const struct check **hit = bsearch(&k, sorted, n, sizeof(*sorted), cmp_check_id);
    return hit ? *hit : NULL;
}

/* depth-first search for a cycle, iterative so that a long chain in a
 * hostile file cannot exhaust the stack. colour: 0 unseen, 1 on the path,
 * 2 done. On a cycle: the message, with *bad and *item the edge that closes it. */
static char *find_cycle(const struct checkset *cs, size_t start, unsigned char *colour,
                        size_t *path, size_t *next, size_t *bad, size_t *item)
{
    size_t depth = 0;
    path[0] = start;
    next[0] = 0;
    colour[start] = 1;
    for (;;) {
        size_t cur = path[depth];
        const struct check *c = &cs->v[cur];
        if (next[depth] == c->ncauses) {
            colour[cur] = 2;
            if (depth-- == 0)
                return NULL;
            continue;
        }
        size_t k = next[depth]++;
        size_t to = (size_t)(c->causes[k] - cs->v);
        if (colour[to] == 2)
            continue;
        if (colour[to] == 1) {
            struct strbuf sb = STRBUF_INIT;
            size_t from = depth;
            while (path[from] != to)
                from--;
            strbuf_adds(&sb, "caused_by cycle: ");
            for (size_t i = from; i <= depth; i++)
                strbuf_addf(&sb, "%s -> ", cs->v[path[i]].id);
            strbuf_adds(&sb, cs->v[to].id);
            *bad = cur;
            *item = k;
            return strbuf_detach(&sb);
        }
        colour[to] = 1;
        depth++;
        path[depth] = to;
        next[depth] = 0;
    }
}

char *checks_resolve_causes(struct checkset *cs, size_t *bad, size_t *item)
{
    const struct check **sorted = xcalloc(cs->n + 1, sizeof(*sorted));
    for (size_t i = 0; i < cs->n; i++)
        sorted[i] = &cs->v[i];
    qsort(sorted, cs->n, sizeof(*sorted), cmp_check_id);
    char *msg = NULL;
    for (size_t i = 0; i < cs->n && !msg; i++) {
        struct check *c = &cs->v[i];
        c->causes = xcalloc(c->caused_by.n + 1, sizeof(*c->causes));
        for (size_t k = 0; k < c->caused_by.n && !msg; k++) {
            const char *id = c->caused_by.v[k];
            const struct check *to = by_id(sorted, cs->n, id);
            *bad = i;
            *item = k;
            if (!to)
                msg = xasprintf("check %s: caused_by names '%s', which is no check", c->id, id);
            else if (to == c)
                msg = xasprintf("check %s: caused_by names the check itself", c->id);
            else
                c->causes[c->ncauses++] = to;
        }
    }
    free(sorted);
    if (msg)
        return msg;
    unsigned char *colour = xcalloc(cs->n + 1, 1);
    size_t *path = xcalloc(cs->n + 1, sizeof(*path)), *next = xcalloc(cs->n + 1, sizeof(*next));
    for (size_t i = 0; i < cs->n && !msg; i++)
        if (!colour[i])
            msg = find_cycle(cs, i, colour, path, next, bad, item);
    free(colour);
    free(path);
    free(next);
    return msg;
}

char *checks_resolve_rule_causes(const struct check *c, struct rule *r, size_t *item)
{
    r->causes = xcalloc(r->caused_by.n + 1, sizeof(*r->causes));
    for (size_t k = 0; k < r->caused_by.n; k++) {
        size_t j = 0;
        while (j < c->ncauses && strcmp(c->causes[j]->id, r->caused_by.v[k]) != 0)
            j++;
        if (j == c->ncauses) {
            *item = k;
            return xasprintf("check %s: a rule's caused_by names '%s', which is not in the "
                             "check's caused_by",
                             c->id, r->caused_by.v[k]);
        }
        r->causes[r->ncauses++] = c->causes[j];
    }
    return NULL;
}

/* ---- after a run ---------------------------------------------------------- */

/* the cause's status where the dependent is judged: the same GPU when both
 * are per GPU and the cause judged that GPU, else its overall status */
static enum status status_for(const struct result *cause, const struct result *r)
{
    if (r->gpu >= 0 && cause->gst && (size_t)r->gpu < cause->ngst &&
        cause->gst[r->gpu] != ST__COUNT)
        return cause->gst[r->gpu];
    return cause->st;
}

void results_link_causes(struct results *r)
{
    /* a check's result by its position in the checks file: results keep
     * that order, and a check that did not run has none */
    for (size_t i = 0; i < r->n; i++) {
        struct result *res = &r->v[i];
        const struct check *ck = res->check;
        if (!status_not_passing(res->st))
            continue;
        /* the deciding rule may narrow the check's causes */
        const struct check *const *causes = ck->causes;
        size_t ncauses = ck->ncauses;
        if (res->by && res->by->has_causes) {
            causes = res->by->causes;
            ncauses = res->by->ncauses;
        }
        for (size_t k = 0; k < ncauses && !res->cause; k++)
            for (size_t j = 0; j < r->n; j++)
                if (r->v[j].check == causes[k]) {
                    if (status_not_passing(status_for(&r->v[j], res)))
                        res->cause = &r->v[j];
                    break;
                }
        if (!res->cause)
            continue;
        const char *id = res->cause->check->id;
        char *s = xasprintf("%s (caused by %s)", res->summary ? res->summary : "", id);
        free(res->summary);
        res->summary = s;
        /* the cause's fix is the one to run: no commands of our own */
        fix_release(&res->fix_parts);
        res->fix_parts.say = xasprintf("see %s", id);
        free(res->fix);
        res->fix = fix_joined(&res->fix_parts);
    }
}
