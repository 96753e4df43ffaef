/* diff.c - load two JSON reports and compare them (see diff.h for what
 * counts as a regression). The renderers and the command line are in
 * diff_out.c. Reports are read by src/reportdoc/doc_read.c, which rejects
 * anything that is not a well-formed rocm-vla-doctor/1 report with a message
 * naming the file, so nothing is ever half-compared. */
#include "diff.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/actions_digest.h"
#include "../core/util.h"

/* ---- tolerances ----------------------------------------------------------- */

int diff_tol_add(struct diff_opts *o, const char *arg)
{
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return error("--tolerance wants NAME=PERCENT (e.g. gpu.0.sync.launch_us.p99=25), not '%s'",
                     arg);
    double pct;
    char *val = xstrdup(eq + 1);
    size_t vl = strlen(val);
    if (vl > 1 && val[vl - 1] == '%')
        val[vl - 1] = 0;
    if (strcmp(val, "off") == 0) {
        pct = -1;
    } else if (str_parse_double(val, &pct) || !isfinite(pct) || pct < 0) {
        free(val);
        return error("--tolerance %s: the percentage must be a number >= 0 or 'off'", arg);
    }
    free(val);
    o->tol = xrealloc(o->tol, (o->ntol + 1) * sizeof(*o->tol));
    o->tol[o->ntol].pattern = xstrndup(arg, (size_t)(eq - arg));
    o->tol[o->ntol].pct = pct;
    o->ntol++;
    return 0;
}

static double tol_for_default(const struct diff_opts *o, const char *name, double pct)
{
    for (size_t i = 0; o && i < o->ntol; i++)
        if (fnmatch(o->tol[i].pattern, name, 0) == 0)
            pct = o->tol[i].pct;
    return pct;
}

double diff_tol_for(const struct diff_opts *o, const char *name)
{
    return tol_for_default(o, name, DIFF_DEFAULT_TOL_PCT);
}

void diff_opts_release(struct diff_opts *o)
{
    for (size_t i = 0; i < o->ntol; i++)
        free(o->tol[i].pattern);
    free(o->tol);
    o->tol = NULL;
    o->ntol = 0;
}

/* ---- fact classification -------------------------------------------------- */

/* unit of one dotted component: the text after its last '_' ("launch_us" ->
 * "us"), or the whole component for the bare rate words */
static int component_direction(const char *c, size_t n)
{
    static const char *const lower[] = {"us", "ns", "ms", "s"};
    static const char *const higher[] = {"gbs", "gbps", "tflops", "gflops", "hz"};
    const char *us = NULL;
    for (size_t i = 0; i < n; i++)
        if (c[i] == '_')
            us = c + i;
    if (!us) {
        if ((n == 6 && memcmp(c, "tflops", 6) == 0) || (n == 6 && memcmp(c, "gflops", 6) == 0))
            return 1;
        return 0;
    }
    const char *u = us + 1;
    size_t un = (size_t)(c + n - u);
    for (size_t i = 0; i < ARRAY_SIZE(lower); i++)
        if (un == strlen(lower[i]) && memcmp(u, lower[i], un) == 0)
            return -1;
    for (size_t i = 0; i < ARRAY_SIZE(higher); i++)
        if (un == strlen(higher[i]) && memcmp(u, higher[i], un) == 0)
            return 1;
    return 0;
}

int diff_fact_direction(const char *name)
{
    if (str_starts(name, "probe.") || str_starts(name, "env."))
        return 0;
    /* derived peaks (gpu.<i>.peak.*, runtime.dev.<i>.peak.*, a probe's
     * *_peak copy) are expectations computed from the device's units and
     * clocks, not measurements: another GPU has other peaks, which is a
     * change of the stack, never a regression of its own */
    /* the error against the fp32 reference: lower is better */
    if (str_starts(name, "vla.numerics.max_error"))
        return -1;
    if (strstr(name, ".peak.") ||
        (strlen(name) > 5 && strcmp(name + strlen(name) - 5, "_peak") == 0))
        return 0;
    /* the last component with a unit decides: sync.launch_us.p99 -> launch_us */
    int dir = 0;
    const char *c = name;
    while (*c) {
        const char *dot = strchr(c, '.');
        size_t n = dot ? (size_t)(dot - c) : strlen(c);
        int d = component_direction(c, n);
        if (d)
            dir = d;
        c += n;
        if (*c == '.')
            c++;
    }
    return dir;
}

int diff_fact_is_telemetry(const char *name)
{
    /* readings that move from one run to the next on an unchanged machine */
    static const char *const suffixes[] = {
        "_c", "_w", ".busy_percent", ".wall_s", "kernel.dmesg.lines", "kernel.dmesg.line_count"};
    for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
        if (str_ends(name, suffixes[i]))
            return 1;
    return 0;
}

/* ---- comparison ------------------------------------------------------------ */

static int json_equal(const struct json *a, const struct json *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case JSON_NULL:
        return 1;
    case JSON_BOOL:
        return a->b == b->b;
    case JSON_NUM:
        return a->num == b->num;
    case JSON_STR:
        return strcmp(a->str, b->str) == 0;
    case JSON_ARR:
    case JSON_OBJ:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++) {
            if (a->type == JSON_OBJ && strcmp(a->keys[i], b->keys[i]) != 0)
                return 0;
            if (!json_equal(a->items[i], b->items[i]))
                return 0;
        }
        return 1;
    }
    return 0;
}

static struct diff_item *add(struct diff_result *r, enum diff_class cls, enum diff_subject subj,
                             enum diff_what what, const char *name, const struct json *old,
                             const struct json *cur)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 32;
        r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
    }
    struct diff_item *it = &r->v[r->n++];
    memset(it, 0, sizeof(*it));
    it->cls = cls;
    it->subj = subj;
    it->what = what;
    it->name = name;
    it->old = old;
    it->cur = cur;
    r->count[cls]++;
    return it;
}

/* skip -1, pass 0, warn 1, fail/error/timeout 2 */
static int rank(const char *st)
{
    if (strcmp(st, "skip") == 0)
        return -1;
    if (strcmp(st, "pass") == 0)
        return 0;
    if (strcmp(st, "warn") == 0)
        return 1;
    return 2;
}

const struct json *diff_find_check(const struct diff_doc *d, const char *id)
{
    size_t i;
    return strset_get(&d->check_ids, id, &i) ? d->checks->items[i] : NULL;
}

static void compare_checks(const struct diff_doc *a, const struct diff_doc *b,
                           const struct diff_opts *o, struct diff_result *r)
{
    enum diff_class lost = o->allow_skip ? DIFF_CHANGE : DIFF_REGRESSION;
    for (size_t i = 0; i < a->checks->n; i++) {
        const struct json *ca = a->checks->items[i];
        const char *id = json_get(ca, "id")->str;
        const struct json *cb = diff_find_check(b, id);
        int ra = rank(diff_check_status(ca));
        if (!cb) {
            add(r, ra == 0 || ra == 1 ? lost : DIFF_CHANGE, DIFF_CHECK, DW_REMOVED, id, ca, NULL);
            continue;
        }
        if (strcmp(diff_check_status(ca), diff_check_status(cb)) == 0)
            continue;
        int rb = rank(diff_check_status(cb));
        enum diff_class cls = DIFF_CHANGE;
        if (ra < 0)
            cls = rb == 2 ? DIFF_REGRESSION : DIFF_CHANGE; /* skip -> newly failing */
        else if (rb < 0)
            cls = ra <= 1 ? lost : DIFF_CHANGE; /* a guard that no longer runs */
        else if (rb > ra)
            cls = DIFF_REGRESSION;
        else if (rb < ra)
            cls = DIFF_IMPROVEMENT;
        add(r, cls, DIFF_CHECK, DW_STATUS, id, ca, cb);
    }
    for (size_t i = 0; i < b->checks->n; i++) {
        const struct json *cb = b->checks->items[i];
        const char *id = json_get(cb, "id")->str;
        if (diff_find_check(a, id))
            continue;
        add(r, rank(diff_check_status(cb)) == 2 ? DIFF_REGRESSION : DIFF_CHANGE, DIFF_CHECK,
            DW_ADDED, id, NULL, cb);
    }
}

/* the numerics gate: two digests of a fixed-seed pass's actions, a (parsed
 * from va) and vb, known and different */
static void compare_digest(const char *name, const struct json *va, const struct json *vb,
                           const struct actions_digest *a, int known_a, const struct diff_opts *o,
                           struct diff_result *r)
{
    struct actions_digest b;
    struct diff_item *it = add(r, DIFF_CHANGE, DIFF_FACT, DW_NUMERICS, name, va, vb);
    it->at = -1;
    it->tol_pct = tol_for_default(o, name, DIFF_NUMERICS_TOL_PCT);
    if (!known_a || vb->type != JSON_STR || actions_digest_parse(vb->str, &b)) {
        it->why = "not a v1 actions digest";
        return;
    }
    double rel;
    if (actions_digest_compare(a, &b, &it->moved, &rel, &it->at, &it->why)) {
        it->at = -1;
        return;
    }
    it->change_pct = rel * 100;
    if (it->tol_pct >= 0 && it->change_pct > it->tol_pct) {
        it->cls = DIFF_REGRESSION;
        r->count[DIFF_CHANGE]--;
        r->count[DIFF_REGRESSION]++;
    }
}

static void compare_fact(const char *name, const struct json *va, const struct json *vb,
                         const struct diff_opts *o, struct diff_result *r)
{
    enum diff_class lost = o->allow_skip ? DIFF_CHANGE : DIFF_REGRESSION;
    int dir = diff_fact_direction(name);
    /* a gated fact: a performance figure, or a digest the gate can read */
    int digest = str_ends(name, ".actions_digest");
    struct actions_digest a;
    int perf_a = digest ? va && va->type == JSON_STR && actions_digest_parse(va->str, &a) == 0
                        : dir && va && va->type == JSON_NUM;
    if (!vb) {
        add(r, perf_a ? lost : DIFF_CHANGE, DIFF_FACT, DW_REMOVED, name, va, NULL);
        return;
    }
    if (!va) {
        add(r, DIFF_CHANGE, DIFF_FACT, DW_ADDED, name, NULL, vb);
        return;
    }
    if (json_equal(va, vb))
        return;
    if (vb->type == JSON_NULL) {
        add(r, perf_a ? lost : DIFF_CHANGE, DIFF_FACT, DW_UNKNOWN, name, va, vb);
        return;
    }
    if (va->type == JSON_NULL) {
        add(r, DIFF_CHANGE, DIFF_FACT, DW_KNOWN, name, va, vb);
        return;
    }
    if (digest) {
        compare_digest(name, va, vb, &a, perf_a, o, r);
        return;
    }
    if (!perf_a || vb->type != JSON_NUM) {
        add(r, DIFF_CHANGE, DIFF_FACT, DW_VALUE, name, va, vb);
        return;
    }
    double pct = va->num != 0 ? (vb->num - va->num) / fabs(va->num) * 100.0
                              : copysign(INFINITY, vb->num - va->num);
    double tol = diff_tol_for(o, name);
    double worse = dir < 0 ? pct : -pct; /* > 0: moved the bad way */
    enum diff_class cls = DIFF_CHANGE;
    if (tol >= 0 && worse > tol)
        cls = DIFF_REGRESSION;
    else if (tol >= 0 && -worse > tol)
        cls = DIFF_IMPROVEMENT;
    struct diff_item *it = add(r, cls, DIFF_FACT, DW_PERF, name, va, vb);
    it->change_pct = pct;
    it->tol_pct = tol;
    it->direction = dir;
}

/* a fact's name for matching across the two reports: a per-GPU fact gpu.<j>.x
 * of a GPU that both reports have is keyed by its PCI address (gpu.<j>.pci
 * from sysfs, else gpu.<j>.runtime_pci: a runtime device with no sysfs GPU),
 * since <j> can differ between the runs (a GPU added or removed, visibility
 * variables); a GPU only one report has, and anything else, by its name */
struct fkey {
    char *key;
    const char *name;
    const struct json *v;
};

/* the PCI address of gpu.<j> of name, or NULL; *rest = the ".x" after <j> */
static const char *gpu_pci(const struct json *facts, const char *name, const char **rest)
{
    const char *p = name + 4;
    if (!str_starts(name, "gpu.") || *p < '0' || *p > '9')
        return NULL;
    char *end;
    long j = strtol(p, &end, 10);
    if (*end != '.')
        return NULL;
    char n[64];
    snprintf(n, sizeof(n), "gpu.%ld.pci", j);
    const struct json *pci = json_get(facts, n);
    if (!pci || pci->type != JSON_STR || !pci->str[0]) {
        snprintf(n, sizeof(n), "gpu.%ld.runtime_pci", j);
        pci = json_get(facts, n);
    }
    *rest = end;
    return pci && pci->type == JSON_STR && pci->str[0] ? pci->str : NULL;
}

static void pci_set(const struct json *facts, struct strset *out)
{
    for (size_t i = 0; i < facts->n; i++) {
        const char *rest, *pci = gpu_pci(facts, facts->keys[i], &rest);
        if (pci)
            strset_add(out, pci, i);
    }
}

static char *match_key(const struct json *facts, const struct strset *other, const char *name)
{
    const char *rest, *pci = gpu_pci(facts, name, &rest);
    if (!pci || !strset_get(other, pci, NULL))
        return xstrdup(name);
    return xasprintf("gpu@%s%s", pci, rest);
}

static int cmp_fkey(const void *x, const void *y)
{
    return strcmp(((const struct fkey *)x)->key, ((const struct fkey *)y)->key);
}

static struct fkey *keyed(const struct json *obj, const struct json *other_facts)
{
    struct strset other = STRSET_INIT; /* borrows other_facts' strings */
    pci_set(other_facts, &other);
    struct fkey *v = xcalloc(obj->n ? obj->n : 1, sizeof(*v));
    for (size_t i = 0; i < obj->n; i++)
        v[i] = (struct fkey){match_key(obj, &other, obj->keys[i]), obj->keys[i], obj->items[i]};
    strset_release(&other);
    qsort(v, obj->n, sizeof(*v), cmp_fkey);
    return v;
}

static void free_keyed(struct fkey *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].key);
    free(v);
}

/* reported under the current report's name (the baseline's when it is gone) */
static void compare_facts(const struct diff_doc *a, const struct diff_doc *b,
                          const struct diff_opts *o, struct diff_result *r)
{
    const struct json *fa = a->facts, *fb = b->facts;
    struct fkey *ka = keyed(fa, fb), *kb = keyed(fb, fa);
    size_t i = 0, j = 0;
    while (i < fa->n || j < fb->n) {
        int c = i >= fa->n ? 1 : j >= fb->n ? -1 : strcmp(ka[i].key, kb[j].key);
        if (c < 0) {
            compare_fact(ka[i].name, ka[i].v, NULL, o, r);
            i++;
        } else if (c > 0) {
            compare_fact(kb[j].name, NULL, kb[j].v, o, r);
            j++;
        } else {
            compare_fact(kb[j].name, ka[i].v, kb[j].v, o, r);
            i++, j++;
        }
    }
    free_keyed(ka, fa->n);
    free_keyed(kb, fb->n);
}

int diff_compare(const struct diff_doc *base, const struct diff_doc *cur, const struct diff_opts *o,
                 struct diff_result *r)
{
    static const struct diff_opts none = {NULL, 0, 0};
    memset(r, 0, sizeof(*r));
    if (!o)
        o = &none;
    compare_checks(base, cur, o, r);
    compare_facts(base, cur, o, r);
    return r->count[DIFF_REGRESSION] ? 1 : 0;
}

void diff_result_release(struct diff_result *r)
{
    free(r->v);
    memset(r, 0, sizeof(*r));
}

const char *diff_what_name(enum diff_what w)
{
    switch (w) {
    case DW_STATUS:
        return "status";
    case DW_ADDED:
        return "added";
    case DW_REMOVED:
        return "removed";
    case DW_VALUE:
        return "value";
    case DW_PERF:
        return "performance";
    case DW_UNKNOWN:
        return "unknown";
    case DW_KNOWN:
        return "known";
    case DW_NUMERICS:
        return "numerics";
    }
    return "?";
}
