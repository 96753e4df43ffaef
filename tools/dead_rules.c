/* dead_rules.c - find the rules of checks.yaml that no input can make decide.
 *
 *   dead_rules [CHECKS.yaml] [--cap N] [--only ID] [--cases FILE]
 *
 * A rule that can never decide (a warn rule behind a fail rule that skips
 * first on the same unknown fact, a condition that contradicts an earlier
 * skip) is a verdict the check promises and never gives. For each check
 * this builds fact sets from the facts its rules read, each fact over the
 * values that matter for its declared type (probes/fact_catalog.c):
 * unknown; true/false; for numbers 0 and every constant of the check's
 * rules with its neighbours (c-1, c, c+1 for integers, c*(1-eps), c,
 * c*(1+eps) for floats); for strings the rules' string constants, the
 * entries of the data tables they look up, "" and one other; for lists
 * lengths 0, 1 and 2 of those strings. Every combination is judged by the
 * real engine (checks_run(), so skip/fail/warn order, unknown and known()
 * are the product's own) and the deciding rule recorded (result.rule).
 * A rule that decides for none is reported "dead". Bounded: above --cap
 * combinations (default 20000) a check is sampled, and the line says so.
 * A reported rule is dead within these values; a rule reached only through
 * other values (arithmetic on facts) would show here as dead, so read each.
 * Exit 0 when no rule is dead, 1 when some are, 2 on bad input.
 *
 * --cases FILE writes the boundary table that tests/unit/test_boundaries.c
 * replays (`make boundaries`): for every rule the first combination seen
 * where it decides (its witness; the pass verdict's too, when one was
 * seen), then that witness with each fact the rule reads moved to each
 * neighbour of each number in the rule's text (c-1, c, c+1; a list the
 * rule measures with len() or count(): lengths 0, 1 and 2; a fact it
 * tests with known(): unknown and known), each constant judged on its own;
 * for a comparison with another fact, `a OP k*b + c`, a at k*b + c and a
 * step either side, and likewise for a sum or difference of facts on a
 * side (`a + b >= c`, `(a + b) * 10 >= c * 8`, `a + 4 GiB > b`): the
 * others at their witness values, the solved one at the boundary and a
 * step either side; for `a == b` or `a != b` between string facts, a
 * equal to b and different; so a case just inside and one just outside every
 * threshold pin the verdict and the deciding rule. The sampling is seeded
 * per check and rule, so a check's cases change only with its own rules. The expected values are
 * what the engine gives now: a change of a threshold shows as a diff of this table for a reviewer.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/fact_catalog.h"
#include "src/core/checks.h"
#include "src/core/fact.h"
#include "src/core/fact_wire.h"
#include "src/core/util.h"

#define MAX_CANDS 48

struct cand {
    enum fact_type t; /* FACT_UNKNOWN: unknown */
    int b;
    int64_t i;
    double f;
    const char *s;
    struct strlist l;
};

/* slots past MAX_CANDS: the values of a fact-to-fact boundary case
 * (emit_relations), set on a copy, never explored */
#define REL_SLOTS 6

struct var {
    char *name; /* as set in the fact set (per-GPU: gpu.0.<name>) */
    struct cand c[MAX_CANDS + REL_SLOTS];
    size_t n;
};

struct consts {
    double num[64];
    size_t nnum;
    struct strlist str;
    int known; /* edges_of: the fact unknown and known (its first value) */
};

static void add_num(struct consts *k, double v)
{
    for (size_t i = 0; i < k->nnum; i++)
        if (k->num[i] == v)
            return;
    if (k->nnum < ARRAY_SIZE(k->num))
        k->num[k->nnum++] = v;
}

static void add_str(struct consts *k, const char *s)
{
    if (!strlist_has(&k->str, s) && k->str.n < 16)
        strlist_add(&k->str, s);
}

/* a string that a simple regular expression matches, so that `matches` and
 * count() can be true: the first alternative of each group, the first
 * character of each class, anchors and repetition left out */
static char *regex_example(const char *re)
{
    struct strbuf sb = STRBUF_INIT;
    int depth = 0, skipping = 0; /* skipping: past the first alternative */
    for (const char *p = re; *p; p++) {
        if (*p == '\\' && p[1]) {
            if (!skipping)
                strbuf_addc(&sb, *++p);
            else
                p++;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            if (skipping == depth)
                skipping = 0;
            depth--;
        } else if (*p == '|') {
            if (!skipping)
                skipping = depth ? depth : -1;
        } else if (*p == '[') {
            const char *q = p + 1 + (p[1] == '^');
            if (!skipping)
                strbuf_addc(&sb, p[1] == '^' ? '#' : *q);
            p = strchr(q + 1, ']') ? strchr(q + 1, ']') : q;
        } else if (*p == '{') {
            p = strchr(p, '}') ? strchr(p, '}') : p;
        } else if (!strchr("^$?*+", *p) && !skipping) {
            strbuf_addc(&sb, *p == '.' ? 'x' : *p);
        }
    }
    return strbuf_detach(&sb);
}

/* the numbers and strings of a rule's text, and the entries of the tables
 * it looks up: the boundaries a fact's value is compared with */
static void scan_consts(const struct checkset *cs, const char *src, struct consts *k)
{
    for (const char *p = src; *p;) {
        if (*p == '"') {
            struct strbuf sb = STRBUF_INIT;
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1])
                    p++;
                strbuf_addc(&sb, *p);
            }
            char *s = strbuf_detach(&sb);
            add_str(k, s);
            if (strpbrk(s, "^$()[]|*+?\\")) {
                char *ex = regex_example(s);
                add_str(k, ex);
                free(ex);
            }
            free(s);
            p += *p == '"';
        } else if (str_starts(p, "lookup(")) {
            p += 7;
            size_t n = strcspn(p, ", )");
            char *t = xstrndup(p, n);
            for (size_t j = 0; j < cs->ndata; j++)
                if (strcmp(cs->data[j].name, t) == 0) {
                    if (cs->data[j].key)
                        add_str(k, cs->data[j].key);
                    for (size_t v = 0; v < cs->data[j].values.n && v < 4; v++)
                        add_str(k, cs->data[j].values.v[v]);
                }
            free(t);
            p += n;
        } else if ((*p >= '0' && *p <= '9') && (p == src || !strchr("_.", p[-1])) &&
                   (p == src || !((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'))) {
            char *end;
            double v = strtod(p, &end);
            static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
            const char *q = end;
            while (*q == ' ')
                q++;
            for (size_t u = 0; u < ARRAY_SIZE(units); u++)
                if (str_starts(q, units[u])) {
                    v *= pow(1024.0, (double)(u + 1));
                    end = (char *)q + 3;
                }
            add_num(k, v);
            /* "95 - 15": the boundary is the folded constant */
            const char *o = end;
            while (*o == ' ')
                o++;
            if (*o && strchr("+-*/", *o)) {
                char *end2;
                double w = strtod(o + 1, &end2);
                if (end2 != o + 1)
                    add_num(k, *o == '+'   ? v + w
                               : *o == '-' ? v - w
                               : *o == '*' ? v * w
                               : w         ? v / w
                                           : v);
            }
            p = end;
        } else {
            p++;
        }
    }
}

static void cand_add(struct var *v, struct cand c)
{
    if (v->n < MAX_CANDS)
        v->c[v->n++] = c;
    else
        strlist_release(&c.l);
}

static void var_init(struct var *v, const char *name, enum fact_type t, const struct consts *k)
{
    v->name = xstrdup(name);
    v->n = 0;
    cand_add(v, (struct cand){.t = FACT_UNKNOWN});
    switch (t) {
    case FACT_BOOL:
        cand_add(v, (struct cand){.t = FACT_BOOL, .b = 0});
        cand_add(v, (struct cand){.t = FACT_BOOL, .b = 1});
        break;
    case FACT_INT:
        cand_add(v, (struct cand){.t = FACT_INT, .i = 0});
        for (size_t j = 0; j < k->nnum; j++) {
            int64_t c = (int64_t)floor(k->num[j]);
            for (int64_t d = -1; d <= 1; d++)
                if (c + d != 0)
                    cand_add(v, (struct cand){.t = FACT_INT, .i = c + d});
        }
        break;
    case FACT_FLOAT:
        cand_add(v, (struct cand){.t = FACT_FLOAT, .f = 0});
        for (size_t j = 0; j < k->nnum; j++) {
            double c = k->num[j], e = c ? fabs(c) * 1e-6 : 1e-6;
            cand_add(v, (struct cand){.t = FACT_FLOAT, .f = c - e});
            if (c)
                cand_add(v, (struct cand){.t = FACT_FLOAT, .f = c});
            cand_add(v, (struct cand){.t = FACT_FLOAT, .f = c + e});
        }
        break;
    case FACT_STR:
        cand_add(v, (struct cand){.t = FACT_STR, .s = ""});
        cand_add(v, (struct cand){.t = FACT_STR, .s = "other"});
        for (size_t j = 0; j < k->str.n; j++)
            cand_add(v, (struct cand){.t = FACT_STR, .s = k->str.v[j]});
        break;
    case FACT_LIST: {
        cand_add(v, (struct cand){.t = FACT_LIST, .l = STRLIST_INIT});
        struct cand one = {.t = FACT_LIST, .l = STRLIST_INIT};
        strlist_add(&one.l, "other");
        cand_add(v, one);
        struct cand pair = {.t = FACT_LIST, .l = STRLIST_INIT};
        strlist_add(&pair.l, "other");
        strlist_add(&pair.l, "other2");
        cand_add(v, pair);
        for (size_t j = 0; j < k->str.n; j++) {
            struct cand c = {.t = FACT_LIST, .l = STRLIST_INIT}, two = c;
            strlist_add(&c.l, k->str.v[j]);
            cand_add(v, c);
            strlist_add(&two.l, "other");
            strlist_add(&two.l, k->str.v[j]);
            cand_add(v, two);
        }
        break;
    }
    case FACT_UNKNOWN:
        break; /* not declared (a data entry): unknown only */
    }
}

static void var_release(struct var *v)
{
    for (size_t i = 0; i < v->n; i++)
        strlist_release(&v->c[i].l);
    free(v->name);
}

static void set_cand(struct factset *fs, const char *name, const struct cand *c)
{
    switch (c->t) {
    case FACT_UNKNOWN:
        fact_set_unknown(fs, name, "dead_rules", "explored");
        break;
    case FACT_BOOL:
        fact_set_bool(fs, name, c->b, "dead_rules");
        break;
    case FACT_INT:
        fact_set_int(fs, name, c->i, "dead_rules");
        break;
    case FACT_FLOAT:
        fact_set_float(fs, name, c->f, "dead_rules");
        break;
    case FACT_STR:
        fact_set_str(fs, name, c->s, "dead_rules");
        break;
    case FACT_LIST:
        fact_set_list(fs, name, &c->l, "dead_rules");
        break;
    }
}

/* the declared type; a per-GPU check's "gpu.<name>" is GPU 0's fact */
static enum fact_type declared(const struct check *ck, const char *name, char *set_as)
{
    enum fact_type t = FACT_UNKNOWN;
    const struct checks_schema *s = checks_schema();
    snprintf(set_as, FACT_NAME_MAX, "%s", name);
    if (ck->per_gpu && str_starts(name, "gpu.")) {
        char buf[FACT_NAME_MAX];
        fact_gpu_name(buf, 0, name + 4);
        if (s->fact_type(buf, &t) == 0) {
            snprintf(set_as, FACT_NAME_MAX, "%s", buf);
            return t;
        }
    }
    if (s->fact_type(name, &t))
        t = FACT_UNKNOWN;
    return t;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* the sampling is seeded per check and per phase (random sampling: rule
 * -1, the search for rule t: t), from the check's id: a check's cases then
 * depend only on its own rules and facts, so adding a check or a rule
 * elsewhere leaves every other check's table as it was (one sequence over
 * the whole file made a merge rewrite thousands of lines and drop
 * witnesses that killed mutants) */
static void seed_rand(const char *id, long rule)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    h ^= (uint64_t)(rule + 2) * 0x9e3779b97f4a7c15ull;
    rng = h ? h : 0x9e3779b97f4a7c15ull; /* xorshift never leaves 0 */
}

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* judges one combination and marks hit[] for the rule that decided; returns
 * how far down the rules the verdict came, for the search: 2*position of the
 * deciding rule (skip, then fail, then warn: the order of hit[]), one less
 * when that rule was unknown, 2*nr for pass, -1 for an error */
/* one combination's fact set, judged by the real engine: 0 and r filled,
 * or -1 */
static int run_one(const struct checkset *cs, const struct check *ck, const struct var *vars,
                   size_t nv, const size_t *pick, int set_count, struct factset *fs,
                   struct results *r)
{
    for (size_t j = 0; j < nv; j++)
        set_cand(fs, vars[j].name, &vars[j].c[pick[j]]);
    if (set_count)
        fact_set_int(fs, "gpu.count", 1, "dead_rules");
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, ck->id);
    struct run_filter flt = {LEVEL_SOAK, &only};
    int rc = checks_run(cs, fs, &flt, r);
    strlist_release(&only);
    return rc;
}

/* the first combination where rule i decides (i == the rule count: pass) */
static void witness(size_t **wit, size_t i, const size_t *pick, size_t nv)
{
    if (wit && !wit[i]) {
        wit[i] = xcalloc(nv + 1, sizeof(size_t));
        memcpy(wit[i], pick, nv * sizeof(size_t));
    }
}

static int judge(const struct checkset *cs, const struct check *ck, struct var *vars, size_t nv,
                 const size_t *pick, int set_count, char *hit, size_t **wit)
{
    struct factset fs = FACTSET_INIT;
    struct results r;
    int pos = -1;
    if (run_one(cs, ck, vars, nv, pick, set_count, &fs, &r) == 0) {
        const char *rule = r.n == 1 ? r.v[0].rule : "";
        size_t idx;
        char kind[8], tail = 0;
        int nf = sscanf(rule, "%7[a-z][%zu]%c", kind, &idx, &tail);
        if (r.n == 1 && r.v[0].st != ST_ERROR && nf >= 2) {
            size_t base = strcmp(kind, "skip") == 0   ? 0
                          : strcmp(kind, "fail") == 0 ? ck->nskip
                                                      : ck->nskip + ck->nfail;
            pos = 2 * (int)(base + idx) - (nf == 3);
            if (nf == 2) {
                hit[base + idx] = 1;
                witness(wit, base + idx, pick, nv);
            }
        } else if (r.n == 1 && strcmp(rule, "pass") == 0) {
            pos = 2 * (int)(ck->nskip + ck->nfail + ck->nwarn);
            hit[ck->nskip + ck->nfail + ck->nwarn] = 1;
            witness(wit, ck->nskip + ck->nfail + ck->nwarn, pick, nv);
        }
        results_release(&r);
    }
    factset_release(&fs);
    return pos;
}

/* closeness of a verdict at pos to rule t deciding: past t (t was false)
 * counts just short of it, so the search then looks for a value making it
 * true */
static int score(int pos, size_t t)
{
    int want = 2 * (int)t;
    return pos == want ? 1 << 20 : pos < want ? pos : want - 1;
}

/* coordinate search for a combination where rule t decides: from random
 * starts, each fact in turn takes the candidate that brings the verdict
 * furthest down the rules (ties taken at random, a walk on a plateau);
 * returns the judgements made */
static double search(const struct checkset *cs, const struct check *ck, struct var *vars, size_t nv,
                     size_t *pick, int set_count, char *hit, size_t **wit, size_t t)
{
    double made = 0;
    seed_rand(ck->id, (long)t);
    for (int start = 0; start < 8 && !hit[t]; start++) {
        for (size_t j = 0; j < nv; j++)
            pick[j] = vars[j].n < 2 ? 0 : 1 + (size_t)(next_rand() % (vars[j].n - 1));
        int cur = score(judge(cs, ck, vars, nv, pick, set_count, hit, wit), t), moved = 1;
        made++;
        for (int round = 0; round < 32 && moved && !hit[t]; round++) {
            moved = 0;
            for (size_t j = 0; j < nv && !hit[t]; j++) {
                size_t best = pick[j];
                for (size_t c = 0; c < vars[j].n && !hit[t]; c++) {
                    pick[j] = c;
                    int sc = score(judge(cs, ck, vars, nv, pick, set_count, hit, wit), t);
                    made++;
                    /* a tie moves too, now and then: a rule `a > 0 || b > 0`
                     * turns false only after both changed, one at a time */
                    if (sc > cur || (sc == cur && c != best && next_rand() % 3 == 0)) {
                        cur = sc;
                        best = c;
                        moved = 1;
                    }
                }
                pick[j] = hit[t] ? pick[j] : best;
            }
        }
    }
    return made;
}

static int all_hit(const char *hit, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!hit[i])
            return 0;
    return 1;
}

static const struct rule *rule_at(const struct check *ck, size_t i, const char **kind, size_t *idx)
{
    *kind = i < ck->nskip ? "skip" : i < ck->nskip + ck->nfail ? "fail" : "warn";
    *idx = i < ck->nskip               ? i
           : i < ck->nskip + ck->nfail ? i - ck->nskip
                                       : i - ck->nskip - ck->nfail;
    return i < ck->nskip               ? &ck->skip[*idx]
           : i < ck->nskip + ck->nfail ? &ck->fail[*idx]
                                       : &ck->warn[*idx];
}

/* one case of the boundary table: a header line "case <check> <rule under
 * test> <what> <status> <deciding rule>", the facts in the wire format
 * (src/core/fact_wire.h), a blank line */
static void emit_case(FILE *out, const struct checkset *cs, const struct check *ck,
                      const struct var *vars, size_t nv, const size_t *pick, int set_count,
                      const char *about, const char *what)
{
    struct factset fs = FACTSET_INIT;
    struct results r;
    if (run_one(cs, ck, vars, nv, pick, set_count, &fs, &r) == 0) {
        if (r.n == 1) {
            struct strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < fs.n; i++)
                fact_wire_encode(&sb, fs.v[i]);
            fprintf(out, "case\t%s\t%s\t%s\t%s\t%s\n%s\n", ck->id, about, what,
                    status_name(r.v[0].st), r.v[0].rule, sb.buf ? sb.buf : "");
            strbuf_release(&sb);
        }
        results_release(&r);
    }
    factset_release(&fs);
}

/* is a number candidate one of the neighbours var_init() made of a
 * constant of k? */
static int near_const(const struct cand *c, const struct consts *k)
{
    for (size_t j = 0; j < k->nnum; j++) {
        double v = k->num[j];
        if (c->t == FACT_INT && llabs(c->i - (int64_t)floor(v)) <= 1)
            return 1;
        if (c->t == FACT_FLOAT && fabs(c->f - v) <= 1.5e-6 * (v ? fabs(v) : 1))
            return 1;
    }
    return 0;
}

/* is candidate c of a fact a boundary of rule ru: a number next to one of
 * its constants, or a list of length 0, 1 or 2 (var_init's first three)
 * where the rule measures lists with len() or count()? */
static int edge_cand(const struct cand *cd, size_t c, const struct rule *ru, const struct consts *k)
{
    if (k->known)
        return c <= 1;
    if (cd->t == FACT_LIST)
        return c >= 1 && c <= 3 &&
               (strstr(ru->when_src, "len(") != NULL || strstr(ru->when_src, "count(") != NULL);
    return (cd->t == FACT_INT || cd->t == FACT_FLOAT) && near_const(cd, k);
}

/* the rule that decides a combination ("" when none) */
static void rule_of(const struct checkset *cs, const struct check *ck, const struct var *vars,
                    size_t nv, const size_t *pick, int set_count, char *out)
{
    struct factset fs = FACTSET_INIT;
    struct results r;
    out[0] = '\0';
    if (run_one(cs, ck, vars, nv, pick, set_count, &fs, &r) == 0) {
        if (r.n == 1)
            snprintf(out, RULE_ID_MAX, "%s", r.v[0].rule);
        results_release(&r);
    }
    factset_release(&fs);
}

/* the edge cases of fact j from base: returns whether they were decided by
 * more than one rule (the edge moves the verdict); emits them when `emit` */
static int edges_of(FILE *out, const struct checkset *cs, const struct check *ck,
                    const struct var *vars, size_t nv, const size_t *base, size_t j, int set_count,
                    const struct rule *ru, const struct consts *k, const char *about, int emit)
{
    size_t *p = xcalloc(nv + 1, sizeof(*p));
    char first[RULE_ID_MAX] = "", got[RULE_ID_MAX];
    int moved = 0, n = 0;
    for (size_t c = 0; c < vars[j].n; c++) {
        const struct cand *cd = &vars[j].c[c];
        if (!edge_cand(cd, c, ru, k))
            continue;
        memcpy(p, base, nv * sizeof(*p));
        p[j] = c;
        if (!emit) {
            rule_of(cs, ck, vars, nv, p, set_count, got);
            moved |= n++ && strcmp(got, first) != 0;
            if (n == 1)
                snprintf(first, sizeof(first), "%s", got);
            continue;
        }
        char what[FACT_NAME_MAX + 40];
        if (k->known)
            snprintf(what, sizeof(what), "%s %s", vars[j].name, c ? "known" : "unknown");
        else if (cd->t == FACT_INT)
            snprintf(what, sizeof(what), "%s=%" PRId64, vars[j].name, cd->i);
        else if (cd->t == FACT_FLOAT)
            snprintf(what, sizeof(what), "%s=%.9g", vars[j].name, cd->f);
        else
            snprintf(what, sizeof(what), "len(%s)=%zu", vars[j].name, cd->l.n);
        emit_case(out, cs, ck, vars, nv, p, set_count, about, what);
    }
    free(p);
    return moved;
}

static int is_number(const struct var *v)
{
    return v->n > 1 && (v->c[1].t == FACT_INT || v->c[1].t == FACT_FLOAT);
}

/* fact j's edges (the neighbours of k's constants) from the witness;
 * where they move no verdict (`a > 0 || b > 0` with both past), the edges
 * again from the witness with one other fact changed, the first such base
 * where they do, so each threshold of a disjunction is pinned */
static void edges_for(FILE *out, const struct checkset *cs, const struct check *ck,
                      const struct var *vars, size_t nv, const size_t *wit, size_t j, int set_count,
                      const struct rule *ru, const struct consts *k, const char *about,
                      size_t *base, const size_t *alt)
{
    edges_of(out, cs, ck, vars, nv, wit, j, set_count, ru, k, about, 1);
    if (edges_of(out, cs, ck, vars, nv, wit, j, set_count, ru, k, about, 0))
        return;
    if (alt && alt != wit && edges_of(out, cs, ck, vars, nv, alt, j, set_count, ru, k, about, 0)) {
        edges_of(out, cs, ck, vars, nv, alt, j, set_count, ru, k, about, 1);
        return;
    }
    int found = 0;
    for (size_t m = 0; m < nv && !found; m++)
        for (size_t c = 0; m != j && c < vars[m].n && !found; c++) {
            memcpy(base, wit, nv * sizeof(*base));
            base[m] = c;
            found = edges_of(out, cs, ck, vars, nv, base, j, set_count, ru, k, about, 0);
        }
    if (found)
        edges_of(out, cs, ck, vars, nv, base, j, set_count, ru, k, about, 1);
}

/* the witness of rule ru with each number fact it reads moved to each
 * neighbour of each constant of its text: inside and outside its bounds.
 * A number fact's edges are judged one constant at a time: in
 * `cos < 0.9995 || err > 0.05` a witness with cos past its bound moves no
 * verdict at err = 0.05, yet err near the fail rule's 0.9995 does, and
 * judged together that move hid the missing 0.05 edge (its x10 and /10
 * survived make mutation); a list's edges (lengths) judged once. A fact
 * the rule tests with known() has two more: unknown and known, so that
 * `!known(a) || !known(b)` is pinned with a alone unknown: where one
 * other fact changed is not enough (every other fact of the witness
 * unknown), from the pass verdict's witness (`pass`, NULL if none), where
 * the facts are known */
static void emit_edges(FILE *out, const struct checkset *cs, const struct check *ck,
                       const struct var *vars, const struct strlist *names, const size_t *wit,
                       int set_count, const struct rule *ru, const char *about, const size_t *pass)
{
    struct consts k = {.nnum = 0, .str = STRLIST_INIT}, one = {.nnum = 1, .str = STRLIST_INIT},
                  kn = {.nnum = 0, .str = STRLIST_INIT, .known = 1};
    scan_consts(cs, ru->when_src, &k);
    struct strlist ids = STRLIST_INIT;
    expr_idents(ru->when, &ids);
    size_t nv = names->n, *base = xcalloc(nv + 1, sizeof(*base));
    for (size_t j = 0; j < nv; j++) {
        if (!strlist_has(&ids, names->v[j]))
            continue;
        /* known(x) || known(y): each one alone, the other known too */
        char guard[FACT_NAME_MAX + 8];
        snprintf(guard, sizeof(guard), "known(%s)", names->v[j]);
        if (strstr(ru->when_src, guard))
            edges_for(out, cs, ck, vars, nv, wit, j, set_count, ru, &kn, about, base, pass);
        if (!is_number(&vars[j])) {
            edges_for(out, cs, ck, vars, nv, wit, j, set_count, ru, &k, about, base, NULL);
            continue;
        }
        for (size_t q = 0; q < k.nnum; q++) {
            one.num[0] = k.num[q];
            edges_for(out, cs, ck, vars, nv, wit, j, set_count, ru, &one, about, base, NULL);
        }
    }
    free(base);
    strlist_release(&ids);
    strlist_release(&k.str);
}

/* a comparison between facts whose boundary no constant of the text marks:
 * `a OP k*b + c` (`a > 2 * b`, `a < b * 0.98`, `a < b`, `b + 1 <= a`), and
 * one with a sum or difference of facts on a side (`a + b >= c`,
 * `(a + b) * 10 >= c * 8`, `a + 4 GiB > b`). Both are kept as a linear
 * form, sum of w[i]*f[i] + c OP 0 (left side minus right); f[0] is the
 * fact solved for, the others take their witness values */
#define LIN_FACTS 4

struct linear {
    char f[LIN_FACTS][FACT_NAME_MAX];
    double w[LIN_FACTS], c;
    size_t n;
};

struct relation {
    struct linear d;
    int sum;        /* 0: `a OP k*b + c` (f[0] = a, w[1] = -k); 1: the sum form */
    char text[200]; /* the sum form's comparison, for the case's description */
};

/* a side parsed as a linear form: numbers (with a KiB..TiB unit), fact
 * names, + - * / and parentheses, a product with at most one fact in it
 * and a quotient by a number; anything else (a function call, a string,
 * fact times fact) sets bad */
struct lparse {
    const char *s, *end;
    int bad;
};

static void lin_skip(struct lparse *p)
{
    while (p->s < p->end && *p->s == ' ')
        p->s++;
}

static void lin_scale(struct linear *x, double k)
{
    x->c *= k;
    for (size_t i = 0; i < x->n; i++)
        x->w[i] *= k;
}

/* x += k*y */
static void lin_add(struct linear *x, const struct linear *y, double k, struct lparse *p)
{
    x->c += k * y->c;
    for (size_t i = 0; i < y->n; i++) {
        size_t j = 0;
        while (j < x->n && strcmp(x->f[j], y->f[i]) != 0)
            j++;
        if (j == x->n) {
            if (x->n == LIN_FACTS) {
                p->bad = 1;
                return;
            }
            snprintf(x->f[x->n], FACT_NAME_MAX, "%s", y->f[i]);
            x->w[x->n++] = 0;
        }
        x->w[j] += k * y->w[i];
    }
}

static int name_char(char c)
{
    return ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static struct linear lin_sum(struct lparse *p);

static struct linear lin_primary(struct lparse *p)
{
    struct linear x = {.n = 0, .c = 0};
    lin_skip(p);
    if (p->s >= p->end) {
        p->bad = 1;
    } else if (*p->s == '(') {
        p->s++;
        x = lin_sum(p);
        lin_skip(p);
        if (p->s < p->end && *p->s == ')')
            p->s++;
        else
            p->bad = 1;
    } else if (*p->s == '-') {
        p->s++;
        x = lin_primary(p);
        lin_scale(&x, -1);
    } else if (*p->s >= '0' && *p->s <= '9') {
        char *end;
        x.c = strtod(p->s, &end);
        p->s = end;
        lin_skip(p);
        static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
        for (size_t u = 0; u < ARRAY_SIZE(units); u++)
            if (p->end - p->s >= 3 && strncmp(p->s, units[u], 3) == 0) {
                x.c *= pow(1024.0, (double)(u + 1));
                p->s += 3;
            }
        p->bad |= p->s > p->end;
    } else if ((*p->s | 32) >= 'a' && (*p->s | 32) <= 'z') {
        size_t len = 0;
        while (p->s + len < p->end && name_char(p->s[len]))
            len++;
        if (len >= FACT_NAME_MAX)
            p->bad = 1;
        else {
            snprintf(x.f[0], FACT_NAME_MAX, "%.*s", (int)len, p->s);
            x.w[0] = 1;
            x.n = 1;
        }
        p->s += len;
        lin_skip(p);
        p->bad |= p->s < p->end && *p->s == '('; /* len(...), count(...) */
    } else {
        p->bad = 1;
    }
    return x;
}

/* the next operator if it is one of ops (consumed), else 0 */
static char lin_op(struct lparse *p, char a, char b)
{
    lin_skip(p);
    if (p->bad || p->s >= p->end || (*p->s != a && *p->s != b))
        return 0;
    return *p->s++;
}

static struct linear lin_product(struct lparse *p)
{
    struct linear x = lin_primary(p);
    for (char op; (op = lin_op(p, '*', '/'));) {
        struct linear y = lin_primary(p);
        if (op == '*' && !x.n) { /* a number times a form */
            lin_scale(&y, x.c);
            x = y;
        } else if (!y.n && (op == '*' || y.c != 0)) {
            lin_scale(&x, op == '*' ? y.c : 1 / y.c);
        } else {
            p->bad = 1; /* fact times fact, a quotient by a fact or by 0 */
        }
    }
    return x;
}

static struct linear lin_sum(struct lparse *p)
{
    struct linear x = lin_product(p);
    for (char op; (op = lin_op(p, '+', '-'));) {
        struct linear y = lin_product(p);
        lin_add(&x, &y, op == '+' ? 1 : -1, p);
    }
    return x;
}

/* the n characters at s as a linear form: 0, or -1 (not one) */
static int linear_side(const char *s, size_t n, struct linear *x)
{
    struct lparse p = {s, s + n, 0};
    *x = lin_sum(&p);
    lin_skip(&p);
    return p.bad || p.s != p.end ? -1 : 0;
}

/* the extent of a comparison's operands around the operator at op (oplen
 * characters), parentheses matched: `(a + b) * 10 >= c * 8` is all of it */
static void operands(const char *src, const char *op, size_t oplen, const char **l, size_t *rn)
{
    int depth = 0;
    const char *s = op;
    for (; s > src; s--) {
        char c = s[-1];
        if (c == ')')
            depth++;
        else if (c == '(' && depth-- == 0)
            break;
        else if (!depth && strchr("&|!,[", c))
            break;
    }
    *l = s;
    depth = 0;
    const char *r = op + oplen, *e = r;
    for (; *e; e++) {
        if (*e == '(')
            depth++;
        else if (*e == ')' && depth-- == 0)
            break;
        else if (!depth && strchr("&|],", *e))
            break;
    }
    *rn = (size_t)(e - r);
}

/* the sum form of one comparison: two facts or more, solved for the first
 * fact of the side with fewer (the side without a constant on a tie, then
 * the left): `a + b >= c` for c; 0 and x filled, or -1 */
static int sum_relation(const char *src, const char *op, size_t oplen, struct relation *x)
{
    const char *l;
    size_t rn;
    operands(src, op, oplen, &l, &rn);
    struct linear L, R;
    if (linear_side(l, (size_t)(op - l), &L) || linear_side(op + oplen, rn, &R))
        return -1;
    struct lparse p = {NULL, NULL, 0};
    struct linear d = L;
    lin_add(&d, &R, -1, &p);
    size_t live = 0;
    for (size_t i = 0; i < d.n; i++)
        live += d.w[i] != 0;
    if (p.bad || live < 2)
        return -1;
    int right = R.n < L.n || (R.n == L.n && R.c == 0 && L.c != 0);
    const struct linear *side = right ? &R : &L;
    size_t s = d.n;
    for (size_t i = 0; i < side->n && s == d.n; i++)
        for (size_t j = 0; j < d.n; j++)
            if (strcmp(d.f[j], side->f[i]) == 0 && d.w[j] != 0) {
                s = j;
                break;
            }
    if (s == d.n)
        return -1;
    /* the solved fact first */
    char tf[FACT_NAME_MAX];
    double tw = d.w[s];
    memcpy(tf, d.f[s], sizeof(tf));
    memmove(d.f[s], d.f[0], sizeof(tf));
    d.w[s] = d.w[0];
    memcpy(d.f[0], tf, sizeof(tf));
    d.w[0] = tw;
    x->d = d;
    x->sum = 1;
    const char *e = op + oplen + rn;
    while (*l == ' ')
        l++;
    while (e > l && e[-1] == ' ')
        e--;
    snprintf(x->text, sizeof(x->text), "%.*s", (int)(e - l), l);
    return 0;
}

/* an operand, spaces trimmed: a fact name, or a fact times, plus or minus
 * a number (either order); 0 and id, k, c filled, or -1 (anything else) */
static int linear_operand(const char *s, size_t n, char *id, double *k, double *c)
{
    char tok[3][FACT_NAME_MAX];
    size_t nt = 0;
    for (size_t i = 0; i < n;) {
        size_t len = strcspn(s + i, " *+-");
        len = len > n - i ? n - i : len;
        if (s[i] == ' ') {
            i++;
            continue;
        }
        if (nt == 3)
            return -1;
        if (!len)
            len = 1; /* an operator */
        if (len >= FACT_NAME_MAX)
            return -1;
        memcpy(tok[nt], s + i, len);
        tok[nt++][len] = '\0';
        i += len;
    }
    *k = 1;
    *c = 0;
    int name0 = nt && ((tok[0][0] | 32) >= 'a' && (tok[0][0] | 32) <= 'z');
    if (nt == 1 && name0) {
        snprintf(id, FACT_NAME_MAX, "%s", tok[0]);
        return 0;
    }
    if (nt != 3 || !strchr("*+-", tok[1][0]) || tok[1][1])
        return -1;
    int num = name0 ? 2 : 0;
    char *end;
    double v = strtod(tok[num], &end);
    const char *name = tok[2 - num];
    if (*end || end == tok[num] || !((name[0] | 32) >= 'a' && (name[0] | 32) <= 'z'))
        return -1;
    if (tok[1][0] == '-' && !name0)
        return -1; /* k - b: b's sign flips, not a form read here */
    snprintf(id, FACT_NAME_MAX, "%s", name);
    if (tok[1][0] == '*')
        *k = v;
    else
        *c = tok[1][0] == '+' ? v : -v;
    return 0;
}

/* the relations of a rule's text: every comparison whose sides are a fact
 * and a linear form of another fact, or that has a sum of facts on a side;
 * returns how many (at most max) */
static size_t find_relations(const char *src, struct relation *rel, size_t max)
{
    size_t nrel = 0;
    for (const char *p = src; *p && nrel < max; p++) {
        if (*p == '"') { /* a string constant: no operator inside counts */
            for (p++; *p && *p != '"'; p++)
                p += *p == '\\' && p[1];
            if (!*p)
                break;
            continue;
        }
        size_t oplen = (*p == '<' || *p == '>')                    ? 1 + (p[1] == '=')
                       : ((*p == '=' || *p == '!') && p[1] == '=') ? 2
                                                                   : 0;
        if (!oplen)
            continue;
        const char *l = p;
        while (l > src && !strchr("&|(!,[", l[-1]))
            l--;
        const char *r = p + oplen;
        size_t rn = strcspn(r, "&|)],");
        char la[FACT_NAME_MAX], ra[FACT_NAME_MAX];
        double lk, lc, rk, rc;
        int found = 0;
        if (linear_operand(l, (size_t)(p - l), la, &lk, &lc) == 0 &&
            linear_operand(r, rn, ra, &rk, &rc) == 0 && strcmp(la, ra) != 0) {
            /* the plain side is a; the other, b (both plain: the left is a) */
            int left_plain = lk == 1 && lc == 0;
            if (left_plain || (rk == 1 && rc == 0)) {
                struct relation *x = &rel[nrel++];
                x->sum = 0;
                x->d.n = 2;
                snprintf(x->d.f[0], FACT_NAME_MAX, "%s", left_plain ? la : ra);
                snprintf(x->d.f[1], FACT_NAME_MAX, "%s", left_plain ? ra : la);
                x->d.w[0] = 1;
                x->d.w[1] = -(left_plain ? rk : lk);
                x->d.c = -(left_plain ? rc : lc);
                found = 1;
            }
        }
        if (!found && sum_relation(src, p, oplen, &rel[nrel]) == 0)
            nrel++;
        p += oplen - 1;
    }
    return nrel;
}

/* a number candidate of v's type */
static struct cand num_cand(const struct var *v, double x)
{
    if (v->c[1].t == FACT_INT)
        return (struct cand){.t = FACT_INT, .i = (int64_t)x};
    return (struct cand){.t = FACT_FLOAT, .f = x};
}

static double cand_num(const struct cand *c)
{
    return c->t == FACT_INT ? (double)c->i : c->t == FACT_FLOAT ? c->f : 0;
}

/* where f[0] of d is at its boundary, the others at val[] */
static double solve(const struct linear *d, const double *val)
{
    double s = d->c;
    for (size_t i = 1; i < d->n; i++)
        s += d->w[i] * val[i];
    return -s / d->w[0];
}

/* `a == b` (or !=) between string facts: b at its witness value ("other"
 * where that is unknown), a equal to it and a different one, so that the
 * comparison is pinned both ways and not only by the witness. v2 and p:
 * the shallow copy of the facts and the witness, changed here */
static void emit_string_relation(FILE *out, const struct checkset *cs, const struct check *ck,
                                 struct var *v2, size_t nv, size_t *p, const size_t *ix,
                                 int set_count, const char *about, const struct linear *d)
{
    const struct cand *wb = &v2[ix[1]].c[p[ix[1]]];
    const char *b = wb->t == FACT_STR ? wb->s : "other";
    v2[ix[1]].c[MAX_CANDS] = (struct cand){.t = FACT_STR, .s = b};
    p[ix[1]] = MAX_CANDS;
    const char *at[2] = {b, strcmp(b, "other") ? "other" : "other2"};
    for (size_t m = 0; m < 2; m++) {
        v2[ix[0]].c[MAX_CANDS + 1] = (struct cand){.t = FACT_STR, .s = at[m]};
        p[ix[0]] = MAX_CANDS + 1;
        char what[2 * FACT_NAME_MAX + 300];
        snprintf(what, sizeof(what), "%.159s=\"%.100s\" vs %.159s=\"%.100s\"", d->f[0], at[m],
                 d->f[1], b);
        emit_case(out, cs, ck, v2, nv, p, set_count, about, what);
    }
}

/* the witness of rule ru with, for each relation of its text, the other
 * facts at their witness values (10, 20, ... where that is unknown or 0,
 * so that a factor moved still moves the boundary and no two are equal)
 * and the solved fact at the boundary and a step either side (integers:
 * the integers around it; floats: a relative 1e-6). For the sum form, an
 * integer fact solved off an integer is moved there by raising the first
 * other integer fact (at most 16 steps), so that the case at equality
 * exists (`>=` against `>`) */
static void emit_relations(FILE *out, const struct checkset *cs, const struct check *ck,
                           const struct var *vars, const struct strlist *names, const size_t *wit,
                           int set_count, const struct rule *ru, const char *about)
{
    struct relation rel[8];
    size_t nrel = find_relations(ru->when_src, rel, ARRAY_SIZE(rel)), nv = names->n;
    struct var *v2 = xcalloc(nv + 1, sizeof(*v2));
    size_t *p = xcalloc(nv + 1, sizeof(*p));
    for (size_t r = 0; r < nrel; r++) {
        const struct linear *d = &rel[r].d;
        size_t ix[LIN_FACTS];
        int nums = 1, strs = !rel[r].sum;
        for (size_t i = 0; i < d->n; i++) {
            ix[i] = nv;
            for (size_t j = 0; j < nv; j++)
                ix[i] = strcmp(names->v[j], d->f[i]) == 0 ? j : ix[i];
            nums &= ix[i] < nv && is_number(&vars[ix[i] < nv ? ix[i] : 0]);
            strs &= ix[i] < nv && vars[ix[i] < nv ? ix[i] : 0].c[1].t == FACT_STR;
        }
        /* a shallow copy: the extra slots are set here, nothing released */
        memcpy(v2, vars, nv * sizeof(*v2));
        memcpy(p, wit, nv * sizeof(*p));
        if (strs) {
            emit_string_relation(out, cs, ck, v2, nv, p, ix, set_count, about, d);
            continue;
        }
        if (!nums)
            continue;
        double val[LIN_FACTS] = {0};
        for (size_t i = 1; i < d->n; i++) {
            double b = cand_num(&vars[ix[i]].c[wit[ix[i]]]);
            v2[ix[i]].c[MAX_CANDS] = num_cand(&vars[ix[i]], b ? b : 10 * (double)i);
            p[ix[i]] = MAX_CANDS;
            val[i] = cand_num(&v2[ix[i]].c[MAX_CANDS]);
        }
        int ia_int = vars[ix[0]].c[1].t == FACT_INT;
        double t = solve(d, val);
        for (size_t i = 1, step = 0; rel[r].sum && ia_int && i < d->n && floor(t) != t; i++)
            for (; vars[ix[i]].c[1].t == FACT_INT && step < 16 && floor(t) != t; step++) {
                v2[ix[i]].c[MAX_CANDS].i++;
                val[i]++;
                t = solve(d, val);
            }
        double e = t ? fabs(t) * 1e-6 : 1e-6;
        double at[4] = {t - e, t, t + e, t + e};
        size_t na = 3;
        if (ia_int) { /* the integers either side, and t if it is one */
            at[0] = floor(t) - (floor(t) == t);
            at[1] = floor(t);
            at[2] = ceil(t) + (ceil(t) == t);
            at[3] = ceil(t);
            na = floor(t) == t ? 3 : 4;
        }
        for (size_t m = 0; m < na; m++) {
            v2[ix[0]].c[MAX_CANDS + 1] = num_cand(&vars[ix[0]], at[m]);
            p[ix[0]] = MAX_CANDS + 1;
            char what[4 * FACT_NAME_MAX + 300];
            if (!rel[r].sum) {
                snprintf(what, sizeof(what), "%.159s=%.12g vs %g*%.159s%+g (%.159s=%.12g)", d->f[0],
                         at[m], -d->w[1], d->f[1], -d->c, d->f[1], val[1]);
            } else {
                int n = snprintf(what, sizeof(what), "%.159s=%.12g vs %s (", d->f[0], at[m],
                                 rel[r].text);
                for (size_t i = 1; i < d->n && n > 0 && (size_t)n < sizeof(what); i++)
                    n += snprintf(what + n, sizeof(what) - (size_t)n, "%s%.159s=%.12g",
                                  i > 1 ? ", " : "", d->f[i], val[i]);
                if (n > 0 && (size_t)n < sizeof(what))
                    snprintf(what + n, sizeof(what) - (size_t)n, ")");
            }
            emit_case(out, cs, ck, v2, nv, p, set_count, about, what);
        }
    }
    free(p);
    free(v2);
}

/* the number of dead rules of one check; with cases, its boundary table */
static int explore(const struct checkset *cs, const struct check *ck, double cap, FILE *cases)
{
    size_t nr = ck->nskip + ck->nfail + ck->nwarn;
    if (!nr)
        return 0;
    struct strlist names = STRLIST_INIT;
    struct consts k = {.nnum = 0, .str = STRLIST_INIT};
    const char *kind;
    size_t idx;
    for (size_t i = 0; i < nr; i++) {
        const struct rule *ru = rule_at(ck, i, &kind, &idx);
        expr_idents(ru->when, &names);
        scan_consts(cs, ru->when_src, &k);
    }
    struct var *vars = xcalloc(names.n + 1, sizeof(*vars));
    double total = 1;
    int set_count = ck->per_gpu;
    for (size_t j = 0; j < names.n; j++) {
        char set_as[FACT_NAME_MAX];
        enum fact_type t = declared(ck, names.v[j], set_as);
        var_init(&vars[j], set_as, t, &k);
        total *= (double)vars[j].n;
        set_count &= strcmp(names.v[j], "gpu.count") != 0;
    }
    char *hit = xcalloc(nr + 1, 1); /* [nr]: the pass verdict */
    size_t **wit = xcalloc(nr + 1, sizeof(*wit));
    size_t *pick = xcalloc(names.n + 1, sizeof(size_t));
    int sampled = total > cap;
    double tried = 0;
    if (!sampled) {
        /* every combination, in odometer order, until every rule has decided */
        for (;;) {
            judge(cs, ck, vars, names.n, pick, set_count, hit, wit);
            tried++;
            if (all_hit(hit, nr))
                break;
            size_t j = 0;
            while (j < names.n && ++pick[j] == vars[j].n)
                pick[j++] = 0;
            if (j == names.n)
                break;
        }
    } else {
        seed_rand(ck->id, -1);
        for (; tried < cap && !all_hit(hit, nr); tried++) {
            /* a later rule decides only when every earlier one is known
             * false: most samples leave few facts unknown (candidate 0) */
            unsigned unknown_pct = (unsigned)(next_rand() % 4) * 10;
            for (size_t j = 0; j < names.n; j++)
                pick[j] = vars[j].n < 2 || next_rand() % 100 < unknown_pct
                              ? 0
                              : 1 + (size_t)(next_rand() % (vars[j].n - 1));
            judge(cs, ck, vars, names.n, pick, set_count, hit, wit);
        }
        for (size_t t = 0; t < nr; t++)
            if (!hit[t])
                tried += search(cs, ck, vars, names.n, pick, set_count, hit, wit, t);
        printf("sampled: %s: %.0f combinations, %.0f judged (random, then a search for each "
               "rule not yet seen deciding)\n",
               ck->id, total, tried);
    }
    if (cases && !hit[nr])
        tried += search(cs, ck, vars, names.n, pick, set_count, hit, wit, nr);
    for (size_t i = 0; cases && i <= nr; i++) {
        if (!wit[i])
            continue;
        char about[16];
        const struct rule *ru = i < nr ? rule_at(ck, i, &kind, &idx) : NULL;
        snprintf(about, sizeof(about), ru ? "%s[%zu]" : "pass", kind, idx);
        emit_case(cases, cs, ck, vars, names.n, wit[i], set_count, about, "witness");
        if (ru) {
            emit_edges(cases, cs, ck, vars, &names, wit[i], set_count, ru, about, wit[nr]);
            emit_relations(cases, cs, ck, vars, &names, wit[i], set_count, ru, about);
        }
    }
    int dead = 0;
    for (size_t i = 0; i < nr; i++) {
        if (hit[i])
            continue;
        const struct rule *ru = rule_at(ck, i, &kind, &idx);
        printf("dead: %s %s[%zu] (checks.yaml:%d): %s   [%s %.0f of %.0f combinations]\n", ck->id,
               kind, idx, ck->line, ru->when_src, sampled ? "sampled" : "tried", tried, total);
        dead++;
    }
    for (size_t j = 0; j < names.n; j++)
        var_release(&vars[j]);
    free(vars);
    for (size_t i = 0; i <= nr; i++)
        free(wit[i]);
    free(wit);
    free(hit);
    free(pick);
    strlist_release(&names);
    strlist_release(&k.str);
    return dead;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *only = NULL, *cases_path = NULL;
    double cap = 20000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc)
            cap = atof(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
            cases_path = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr,
                    "usage: dead_rules [CHECKS.yaml] [--cap N] [--only ID] [--cases FILE]\n");
            return 2;
        }
    }
    if (cap < 1) {
        fprintf(stderr, "dead_rules: --cap must be at least 1\n");
        return 2;
    }
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    struct checkset cs;
    if (checks_load_default(&cs, path))
        return 2;
    FILE *cases = NULL;
    if (cases_path && !(cases = fopen(cases_path, "w"))) {
        fprintf(stderr, "dead_rules: cannot write '%s': %s\n", cases_path, strerror(errno));
        checks_release(&cs);
        return 2;
    }
    if (cases)
        fprintf(cases, "# boundary cases of checks.yaml, written by `make boundaries` "
                       "(tools/dead_rules.c --cases),\n# replayed by tests/unit/test_boundaries.c; "
                       "regenerate after changing a rule and review the diff\n\n");
    int dead = 0;
    size_t n = 0;
    for (size_t i = 0; i < cs.n; i++) {
        if (only && strcmp(only, cs.v[i].id) != 0)
            continue;
        dead += explore(&cs, &cs.v[i], cap, cases);
        n++;
    }
    int werr = cases && fclose(cases);
    if (werr)
        fprintf(stderr, "dead_rules: cannot write '%s': %s\n", cases_path, strerror(errno));
    printf("dead_rules: %zu checks, %d dead rules\n", n, dead);
    checks_release(&cs);
    return werr ? 2 : dead ? 1 : 0;
}
