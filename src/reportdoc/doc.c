/* doc.c - reading a parsed JSON report for the HTML, markdown and
 * fleet renderers (doc.h). */
#include "doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

const struct json *doc_fact(const struct diff_doc *d, const char *name)
{
    return d && d->facts ? json_get(d->facts, name) : NULL;
}

double doc_num(const struct diff_doc *d, const char *name)
{
    const struct json *v = doc_fact(d, name);
    return v && v->type == JSON_NUM ? v->num : NAN;
}

const char *doc_str(const struct diff_doc *d, const char *name)
{
    const struct json *v = doc_fact(d, name);
    return v && v->type == JSON_STR ? v->str : NULL;
}

const char *doc_member(const struct json *obj, const char *key)
{
    const struct json *v = obj && obj->type == JSON_OBJ ? json_get(obj, key) : NULL;
    return v && v->type == JSON_STR ? v->str : NULL;
}

int doc_fix(const struct json *check, struct fix *out)
{
    *out = (struct fix)FIX_INIT;
    const struct json *cmds =
        check && check->type == JSON_OBJ ? json_get(check, "fix_commands") : NULL;
    const char *say = doc_member(check, "fix_say"), *then = doc_member(check, "fix_then");
    if (!cmds || cmds->type != JSON_ARR) { /* a report written before the parts */
        say = doc_member(check, "fix");
        then = NULL;
        cmds = NULL;
    }
    out->say = say && *say ? xstrdup(say) : NULL;
    out->then = then && *then ? xstrdup(then) : NULL;
    for (size_t i = 0; cmds && i < cmds->n; i++)
        if (cmds->items[i]->type == JSON_STR && cmds->items[i]->str[0])
            strlist_add(&out->run, cmds->items[i]->str);
    return fix_present(out);
}

size_t doc_check_gpus(const struct json *check, struct doc_gpu *out, size_t max)
{
    const struct json *a = check && check->type == JSON_OBJ ? json_get(check, "gpus") : NULL;
    size_t n = 0;
    for (size_t i = 0; a && a->type == JSON_ARR && i < a->n && n < max; i++) {
        const struct json *g = a->items[i], *idx = g->type == JSON_OBJ ? json_get(g, "gpu") : NULL;
        unsigned long long k;
        const char *st = doc_member(g, "status"), *sum = doc_member(g, "summary");
        int known = 0;
        for (int j = 0; st && j < ST__COUNT; j++)
            known |= strcmp(st, status_name((enum status)j)) == 0;
        if (!idx || json_u64(idx, &k) || k > 100000 || !known || !sum)
            continue;
        out[n++] = (struct doc_gpu){(int)k, doc_member(g, "pci"), st, doc_member(g, "rule"), sum};
    }
    return n;
}

const char *doc_host(const struct diff_doc *d, const char *key)
{
    return doc_member(d && d->root ? json_get(d->root, "host") : NULL, key);
}

const struct json *doc_start_with(const struct diff_doc *d)
{
    const struct json *sw = d && d->root ? json_get(d->root, "start_with") : NULL;
    size_t at;
    if (sw && sw->type == JSON_STR && strset_get(&d->check_ids, sw->str, &at)) {
        const char *st = diff_check_status(d->checks->items[at]);
        if (st && strcmp(st, "pass") && strcmp(st, "skip"))
            return d->checks->items[at];
    }
    if (!d || !d->checks)
        return NULL;
    /* no start_with, null, or one that names a passing check (a report
     * edited or merged by hand): the first finding, so that a failing
     * report never lacks one */
    /* fail, error and timeout rank alike; a warning comes after them */
    for (int warn = 0; warn < 2; warn++)
        for (size_t i = 0; i < d->checks->n; i++) {
            const char *st = diff_check_status(d->checks->items[i]);
            int grave =
                st && (!strcmp(st, "fail") || !strcmp(st, "error") || !strcmp(st, "timeout"));
            if (warn ? st && !strcmp(st, "warn") : grave)
                return d->checks->items[i];
        }
    return NULL;
}

struct ranked {
    double rank; /* fix_rank, or past every rank when absent */
    size_t at;
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

size_t *doc_findings(const struct diff_doc *d, size_t *n)
{
    size_t nc = d && d->checks ? d->checks->n : 0, k = 0;
    struct ranked *v = xcalloc(nc + 1, sizeof(*v));
    for (size_t i = 0; i < nc; i++) {
        const struct json *c = d->checks->items[i];
        const char *st = diff_check_status(c);
        if (!st || !strcmp(st, "pass") || !strcmp(st, "skip"))
            continue;
        const struct json *r = json_get(c, "fix_rank");
        v[k].rank = r && r->type == JSON_NUM && r->num >= 1 ? r->num : 1e300;
        v[k++].at = i;
    }
    qsort(v, k, sizeof(*v), cmp_ranked);
    size_t *idx = xcalloc(k + 1, sizeof(*idx));
    for (size_t i = 0; i < k; i++)
        idx[i] = v[i].at;
    free(v);
    *n = k;
    return idx;
}

int doc_exit_code(const struct diff_doc *d)
{
    const struct json *s = d && d->root ? json_get(d->root, "summary") : NULL;
    const struct json *e = s && s->type == JSON_OBJ ? json_get(s, "exit_code") : NULL;
    unsigned long long v;
    return e && json_u64(e, &v) == 0 && v < 256 ? (int)v : -1;
}

void doc_value_text(struct strbuf *sb, const struct json *v)
{
    if (v->type == JSON_STR) {
        strbuf_adds(sb, v->str);
    } else if (v->type == JSON_ARR) {
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                strbuf_adds(sb, ", ");
            doc_value_text(sb, v->items[i]);
        }
    } else {
        diff_value_text(sb, v);
    }
}

void doc_fact_text(struct strbuf *sb, const struct diff_doc *d, const char *name)
{
    const struct json *v = doc_fact(d, name);
    if (!v) {
        strbuf_adds(sb, "absent");
        return;
    }
    if (v->type != JSON_NULL) {
        doc_value_text(sb, v);
        return;
    }
    const char *why = diff_fact_reason(d, name);
    strbuf_adds(sb, "unknown");
    if (why && *why)
        strbuf_addf(sb, " (%s)", why);
}

const char *doc_exit_meaning(int code)
{
    switch (code) {
    case 0:
        return "no check failed";
    case 1:
        return "a check failed (or warned, with --strict)";
    case 2:
        return "usage, configuration or bad input";
    case 3:
        return "internal error";
    default:
        return "not recorded";
    }
}

void doc_factset(const struct diff_doc *d, struct factset *fs)
{
    if (!d || !d->facts || d->facts->type != JSON_OBJ)
        return;
    for (size_t i = 0; i < d->facts->n; i++) {
        const char *name = d->facts->keys[i];
        const struct json *v = d->facts->items[i];
        /* the loader's schema (the fact catalogue main() passed in) */
        const struct checks_schema *schema = checks_schema();
        enum fact_type t = FACT_UNKNOWN;
        if (schema && schema->fact_type(name, &t))
            t = FACT_UNKNOWN;
        const char *src = "report file";
        if (v->type == JSON_BOOL) {
            fact_set_bool(fs, name, v->b, src);
        } else if (v->type == JSON_NUM) {
            if (t == FACT_INT && v->num == floor(v->num) && fabs(v->num) < 9e18)
                fact_set_int(fs, name, (int64_t)v->num, src);
            else
                fact_set_float(fs, name, v->num, src);
        } else if (v->type == JSON_STR) {
            fact_set_str(fs, name, v->str, src);
        } else if (v->type == JSON_ARR) {
            struct strlist l = STRLIST_INIT;
            for (size_t j = 0; j < v->n; j++)
                if (v->items[j]->type == JSON_STR)
                    strlist_add(&l, v->items[j]->str);
            fact_set_list(fs, name, &l, src);
            strlist_release(&l);
        } else {
            const char *why = diff_fact_reason(d, name);
            fact_set_unknown(fs, name, src, "%s", why && *why ? why : "unknown in the report");
        }
    }
}

size_t vla_budgets(const struct checkset *cs, const struct factset *fs, struct vla_budget *out,
                   size_t max)
{
    size_t n = 0;
    for (size_t i = 0; cs && i < cs->n && n < max; i++) {
        const struct check *c = &cs->v[i];
        if (!str_starts(c->id, "vla."))
            continue;
        for (size_t j = 0; j < c->reads.n && n < max; j++) {
            const char *f = c->reads.v[j];
            if (!str_starts(f, "vla.latency.") || !str_ends(f, "_ms") ||
                strlen(f) >= sizeof(out->fact) || !isnan(vla_budget_for(out, n, f)))
                continue;
            double b;
            if (checks_budget(cs, fs, c->id, f, 0, &b))
                continue;
            snprintf(out[n].fact, sizeof(out[n].fact), "%s", f);
            out[n++].ms = b;
        }
    }
    return n;
}

double vla_budget_for(const struct vla_budget *b, size_t n, const char *fact)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].fact, fact) == 0)
            return b[i].ms;
    return NAN;
}
