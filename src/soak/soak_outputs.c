/* soak_outputs.c - each soak call's actions against the first call's, and
 * the run's verdict facts (see soak_outputs.h). */
#include "soak_outputs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

#define SRC "soak"

void soak_outputs_compare(const float *ref, const float *cur, size_t n, struct soak_out_cmp *o)
{
    memset(o, 0, sizeof(*o));
    /* bitwise first: a NaN that stays a NaN is no drift, it is counted */
    o->differ = memcmp(ref, cur, n * sizeof(float)) != 0;
    double top = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(cur[i])) {
            o->nonfinite++;
            continue;
        }
        if (isfinite(ref[i])) {
            double d = fabs((double)cur[i] - ref[i]);
            o->max_diff = d > o->max_diff ? d : o->max_diff;
            top = fabs(ref[i]) > top ? fabs(ref[i]) : top;
        }
    }
    o->rel_diff = top > 0 ? o->max_diff / top : o->max_diff;
}

void soak_outputs_facts(const struct soak_out_cmp *cmp, size_t ncalls, struct factset *fs)
{
    static const char *const names[] = {
        "soak.outputs_compared",          "soak.outputs_differ_calls",
        "soak.outputs_first_differ_call", "soak.outputs_max_diff",
        "soak.outputs_max_rel_diff",      "soak.outputs_nonfinite",
        "soak.outputs_nonfinite_calls"};
    if (!cmp || ncalls == 0) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_unknown(fs, names[i], SRC, "no call ran");
        return;
    }
    long differ = 0, first = 0, nonfinite = 0, nfcalls = 0;
    double mx = 0, rel = 0;
    for (size_t i = 0; i < ncalls; i++) {
        const struct soak_out_cmp *c = &cmp[i];
        nonfinite += c->nonfinite;
        nfcalls += c->nonfinite > 0;
        if (i == 0)
            continue; /* the first call is the reference itself */
        if (c->differ && !first)
            first = (long)i + 1;
        differ += c->differ;
        mx = c->max_diff > mx ? c->max_diff : mx;
        rel = c->rel_diff > rel ? c->rel_diff : rel;
    }
    fact_set_int(fs, names[0], (int64_t)(ncalls - 1), SRC);
    fact_set_int(fs, names[1], differ, SRC);
    if (first)
        fact_set_int(fs, names[2], first, SRC);
    else
        fact_set_unknown(fs, names[2], SRC, "every call gave the first call's actions bit for bit");
    if (ncalls > 1) {
        fact_set_float(fs, names[3], mx, SRC);
        fact_set_float(fs, names[4], rel, SRC);
    } else {
        fact_set_unknown(fs, names[3], SRC, "one call only: nothing to compare it with");
        fact_set_unknown(fs, names[4], SRC, "one call only: nothing to compare it with");
    }
    fact_set_int(fs, names[5], nonfinite, SRC);
    fact_set_int(fs, names[6], nfcalls, SRC);
}

int soak_outputs_plants(const char *spec, struct soak_out_plant *v, size_t max, size_t *n)
{
    *n = 0;
    if (!spec || !*spec)
        return 0;
    char *copy = xstrdup(spec), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long call;
        char kind[8] = "";
        double val = 0;
        int got = sscanf(tok, "%ld %7s %lf", &call, kind, &val);
        struct soak_out_plant p = {call, 0, 0};
        if (got >= 2 && call >= 1 && !strcmp(kind, "nan") && got == 2) {
            p.nan = 1;
        } else if (got == 3 && call >= 1 && !strcmp(kind, "add") && isfinite(val)) {
            p.add = val;
        } else {
            rc = error("ROCM_VLA_DOCTOR_SOAK_OUTPUTS: '%s' is not 'CALL add VALUE' or 'CALL nan'",
                       tok);
            break;
        }
        if (*n == max) {
            rc = error("ROCM_VLA_DOCTOR_SOAK_OUTPUTS: more than %zu changes", max);
            break;
        }
        v[(*n)++] = p;
    }
    free(copy);
    return rc;
}

void soak_outputs_apply(const struct soak_out_plant *v, size_t n, long call, float *act)
{
    for (size_t i = 0; i < n; i++)
        if (call >= v[i].from_call)
            act[0] = v[i].nan ? NAN : (float)(act[0] + v[i].add);
}
