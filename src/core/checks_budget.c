/* checks_budget.c - where a check's fail rules start to fail (see
 * checks_budget() in checks.h): the dashboard's workload panel and the
 * report's VLA budgets both ask, so it lives with the engine it runs. */
#include "checks.h"

#include <errno.h>
#include <math.h>

#include "fact_wire.h"

/* through the wire format: one encoder of a fact, so a copy cannot miss a field */
static void factset_copy(struct factset *dst, const struct factset *src)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < src->n; i++)
        fact_wire_encode(&sb, src->v[i]);
    fact_wire_parse(dst, sb.buf ? sb.buf : "", sb.len);
    strbuf_release(&sb);
}

/* does check `only` fail with `fact` set to v? */
static int fails_at(const struct checkset *cs, struct factset *fs, const struct strlist *only,
                    const char *fact, double v)
{
    struct results r;
    fact_set_float(fs, fact, v, "budget search");
    struct run_filter flt = {LEVEL_FULL, only};
    if (checks_run(cs, fs, &flt, &r))
        return 0;
    int f = r.n == 1 && r.v[0].st == ST_FAIL;
    results_release(&r);
    return f;
}

int checks_budget(const struct checkset *cs, const struct factset *fs, const char *id,
                  const char *fact, int below, double *out)
{
    if (!cs || !checks_find(cs, id))
        return -ENOENT;
    struct factset scratch = FACTSET_INIT;
    factset_copy(&scratch, fs);
    struct strlist only = {0};
    strlist_add(&only, id);
    /* the rules are data: find where the verdict flips by evaluating them,
     * on a log scale between a value no budget allows and one every budget
     * allows (for the other facts of this run: preset, backend, error) */
    double lo = 1e-6, hi = 1e9;
    int rc = -ENOENT;
    int f_lo = fails_at(cs, &scratch, &only, fact, lo),
        f_hi = fails_at(cs, &scratch, &only, fact, hi);
    if (below ? (f_lo && !f_hi) : (!f_lo && f_hi)) {
        for (int i = 0; i < 80; i++) {
            double mid = sqrt(lo * hi);
            if (fails_at(cs, &scratch, &only, fact, mid) == below)
                lo = mid;
            else
                hi = mid;
        }
        /* below: the smallest value that passes; above: the largest */
        *out = below ? hi : lo;
        rc = 0;
    }
    strlist_release(&only);
    factset_release(&scratch);
    return rc;
}
