/* checks_yaml.c - load checks.yaml with libyaml's document API.
 *
 * Every error names file:line:col (1-based) of the offending node; unknown
 * keys are errors, so a typo in a threshold never silently disables a rule.
 *
 * A checks file may come from anyone (--checks), so before the document is
 * built a pass over libyaml's events refuses what the format never needs
 * and what makes a small file expensive: anchors and aliases (a 22 KB
 * "billion laughs" file expands to gigabytes), nesting deeper than
 * CHECKS_MAX_DEPTH (libyaml's scanner is quadratic in flow depth, and that
 * pass stops at the first level too many) and more than one document. Then
 * a duplicate key in any mapping is an error, rule templates are expanded
 * (checks_templates.c, bounded), and every scan over checks
 * and tables is hashed or sorted, so loading is linear in the file. */
#include "checks.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "checks_templates.h"
#include "datadir.h"

/* the built-in file is about 100 KB; these leave room for big custom ones */
#define CHECKS_MAX_FILE (4u << 20)
#define CHECKS_MAX_DEPTH 32
#define CHECKS_MAX_TIMEOUT_S 600.0

/* ---- a set of strings (open addressing), for duplicate keys and ids ---- */

struct strset {
    const char **key;
    unsigned long *line; /* where each key was first seen */
    size_t cap;
};

static void strset_init(struct strset *s, size_t n)
{
    s->cap = 16;
    while (s->cap < 2 * n)
        s->cap *= 2;
    s->key = xcalloc(s->cap, sizeof(*s->key));
    s->line = xcalloc(s->cap, sizeof(*s->line));
}

static void strset_release(struct strset *s)
{
    free(s->key);
    free(s->line);
    memset(s, 0, sizeof(*s));
}

/* 0 after adding k (borrowed), or 1 with *first when it was there already;
 * at most n keys for the n of strset_init() */
static int strset_add(struct strset *s, const char *k, unsigned long line, unsigned long *first)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)k; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    for (size_t i = (size_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->key[i]) {
            s->key[i] = k;
            s->line[i] = line;
            return 0;
        }
        if (strcmp(s->key[i], k) == 0) {
            *first = s->line[i];
            return 1;
        }
    }
}

struct loader {
    const char *file;
    yaml_document_t doc;
    struct checkset *cs;
};

/* "file:line:col: message" on stderr; the message quotes the file's own text
 * (rules, keys), so it goes through the terminal sanitiser like every other
 * string that did not come from the program */
static int yerr_emit(const char *file, unsigned long line, unsigned long col, const char *fmt,
                     va_list ap) __attribute__((format(printf, 4, 0)));

static int yerr_emit(const char *file, unsigned long line, unsigned long col, const char *fmt,
                     va_list ap)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s:%lu:%lu: ", file, line, col);
    strbuf_vaddf(&sb, fmt, ap);
    char *safe = str_sanitize(sb.buf ? sb.buf : "", 0);
    fprintf(stderr, "%s\n", safe);
    free(safe);
    strbuf_release(&sb);
    return -1;
}

static int yerr(struct loader *L, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int yerr_at(struct loader *L, unsigned long line, unsigned long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int yerr(struct loader *L, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    yerr_emit(L->file, n ? (unsigned long)n->start_mark.line + 1 : 0,
              n ? (unsigned long)n->start_mark.column + 1 : 0, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *node_at(struct loader *L, int idx)
{
    return yaml_document_get_node(&L->doc, idx);
}

static int want_scalar(struct loader *L, yaml_node_t *n, const char *what, char **out)
{
    const char *s = scalar(n);
    if (!s)
        return yerr(L, n, "%s must be a string", what);
    free(*out);
    *out = xstrdup(s);
    return 0;
}

static int want_strlist(struct loader *L, yaml_node_t *n, const char *what, struct strlist *out)
{
    if (n->type == YAML_SCALAR_NODE) {
        strlist_add(out, scalar(n));
        return 0;
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return yerr(L, n, "%s must be a list of strings", what);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        yaml_node_t *v = node_at(L, *it);
        if (!scalar(v))
            return yerr(L, v, "%s must be a list of strings", what);
        strlist_add(out, scalar(v));
    }
    return 0;
}

/* a run item that differs by distribution: a mapping of family names
 * (family_names) to commands, at least one; into cmds, one entry a family */
static int want_family_run(struct loader *L, yaml_node_t *n, struct strlist *cmds)
{
    char *by[FAMILY_N] = {NULL};
    int rc = 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top && !rc;
         p++) {
        yaml_node_t *k = node_at(L, p->key), *v = node_at(L, p->value);
        int fam = family_index(scalar(k));
        if (fam < 0)
            rc = yerr(L, k, "unknown distribution '%s' in fix 'run' (debian, fedora, suse, arch)",
                      scalar(k) ? scalar(k) : "?");
        else if (!scalar(v) || !scalar(v)[0])
            rc = yerr(L, v, "fix 'run' for %s must be a command", family_names[fam]);
        else
            rc = want_scalar(L, v, "fix 'run'", &by[fam]);
    }
    if (!rc && n->data.mapping.pairs.start == n->data.mapping.pairs.top)
        rc = yerr(L, n, "fix 'run' names no distribution");
    for (int i = 0; i < FAMILY_N; i++) {
        strlist_add(cmds, by[i] ? by[i] : "");
        free(by[i]);
    }
    return rc;
}

/* fix 'run': a command, or a list of commands each a string or a mapping
 * by distribution (want_family_run) */
static int want_run(struct loader *L, yaml_node_t *n, struct fix *f)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return want_strlist(L, n, "fix 'run'", &f->run);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        yaml_node_t *v = node_at(L, *it);
        struct strlist cmds = STRLIST_INIT;
        if (v->type == YAML_MAPPING_NODE) {
            if (want_family_run(L, v, &cmds)) {
                strlist_release(&cmds);
                return -1;
            }
        } else if (!scalar(v)) {
            return yerr(L, v, "fix 'run' must be a list of strings");
        }
        /* the lists stay parallel to run: one for every command */
        f->by_family = xrealloc(f->by_family, (f->run.n + 1) * sizeof(*f->by_family));
        f->by_family[f->run.n] = cmds;
        if (cmds.n)
            strlist_add_owned(&f->run, family_prose(&cmds));
        else
            strlist_add(&f->run, scalar(v));
    }
    return 0;
}

/* a fix: a string (prose alone, the old form, so users' own files still
 * load) or a mapping of say (prose), run (a command or a list of commands)
 * and then (prose); whether a command hides in prose is the built-in
 * file's lint (tests/fix_commands.sh), not the loader's business */
static int parse_fix(struct loader *L, yaml_node_t *n, struct fix *f)
{
    fix_release(f);
    if (n->type == YAML_SCALAR_NODE)
        return want_scalar(L, n, "fix", &f->say);
    if (n->type != YAML_MAPPING_NODE)
        return yerr(L, n, "fix must be a string or a mapping with say/run/then");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(L, p->key), *v = node_at(L, p->value);
        const char *key = scalar(k);
        int rc;
        if (key && strcmp(key, "say") == 0)
            rc = want_scalar(L, v, "fix 'say'", &f->say);
        else if (key && strcmp(key, "then") == 0)
            rc = want_scalar(L, v, "fix 'then'", &f->then);
        else if (key && strcmp(key, "run") == 0)
            rc = want_run(L, v, f);
        else
            rc = yerr(L, k, "unknown key '%s' in fix (say, run, then)", key ? key : "?");
        if (rc)
            return -1;
    }
    if (!fix_present(f))
        return yerr(L, n, "fix has none of say, run, then");
    return 0;
}

static int parse_when(struct loader *L, yaml_node_t *n, struct rule *r)
{
    if (want_scalar(L, n, "when", &r->when_src))
        return -1;
    expr_free(r->when); /* duplicate keys are refused before; never leak */
    r->when = NULL;
    size_t col;
    char *msg;
    r->when = expr_parse(r->when_src, &col, &msg);
    if (!r->when) {
        /* plain and quoted scalars on one line: the column is exact */
        int quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                     n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        yerr_at(L, (unsigned long)n->start_mark.line + 1,
                (unsigned long)(n->start_mark.column + 1 + col + (quoted ? 1 : 0)),
                "%s in rule \"%s\"", msg, r->when_src);
        free(msg);
        return -1;
    }
    return 0;
}

/* `impact:` of a check or rule: one of impact_name()'s words */
static int want_impact(struct loader *L, yaml_node_t *v, enum impact *out)
{
    char *word = NULL;
    if (want_scalar(L, v, "impact", &word))
        return -1;
    int rc = impact_parse(word, out);
    free(word);
    if (rc)
        return yerr(L, v, "impact must be blocks, wrong, slow or advice");
    return 0;
}

static int parse_rule(struct loader *L, yaml_node_t *n, struct rule *r, int need_when)
{
    if (n->type != YAML_MAPPING_NODE)
        return yerr(L, n, "a rule must be a mapping with when/summary/fix");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(L, p->key), *v = node_at(L, p->value);
        const char *key = scalar(k);
        if (!key)
            return yerr(L, k, "rule keys must be strings");
        if (strcmp(key, "when") == 0 && need_when) {
            if (parse_when(L, v, r))
                return -1;
        } else if (strcmp(key, "summary") == 0) {
            if (want_scalar(L, v, "summary", &r->summary))
                return -1;
        } else if (strcmp(key, "fix") == 0 && need_when) {
            if (parse_fix(L, v, &r->fix))
                return -1;
        } else if (strcmp(key, "caused_by") == 0 && need_when) {
            r->has_causes = 1;
            if (want_strlist(L, v, "caused_by", &r->caused_by))
                return -1;
        } else if (strcmp(key, "impact") == 0 && need_when) {
            if (want_impact(L, v, &r->impact))
                return -1;
        } else {
            return yerr(L, k, "unknown key '%s' in rule", key);
        }
    }
    if (need_when && !r->when)
        return yerr(L, n, "rule has no 'when'");
    if (!r->summary)
        return yerr(L, n, "rule has no 'summary'");
    return 0;
}

static int parse_rules(struct loader *L, yaml_node_t *n, struct rule **out, size_t *nout)
{
    if (n->type == YAML_MAPPING_NODE) {
        *out = xrealloc(*out, (*nout + 1) * sizeof(**out));
        memset(&(*out)[*nout], 0, sizeof(**out));
        return parse_rule(L, n, &(*out)[(*nout)++], 1);
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return yerr(L, n, "rules must be a list of mappings");
    size_t add = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    *out = xrealloc(*out, (*nout + add + 1) * sizeof(**out));
    memset(&(*out)[*nout], 0, (add + 1) * sizeof(**out));
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
        if (parse_rule(L, node_at(L, *it), &(*out)[(*nout)++], 1))
            return -1;
    return 0;
}

static int valid_id(const char *s)
{
    if (!islower((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '.' && *s != '_')
            return 0;
    return s[-1] != '.';
}

static int parse_check(struct loader *L, yaml_node_t *n, struct check *c)
{
    char *level = NULL, *per = NULL, *timeout = NULL;
    yaml_node_t *timeout_node = NULL;
    int rc = 0;
    c->line = (int)n->start_mark.line + 1;
    if (n->type != YAML_MAPPING_NODE)
        return yerr(L, n, "a check must be a mapping");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top && !rc;
         p++) {
        yaml_node_t *k = node_at(L, p->key), *v = node_at(L, p->value);
        const char *key = scalar(k);
        if (!key)
            rc = yerr(L, k, "check keys must be strings");
        else if (strcmp(key, "id") == 0)
            rc = want_scalar(L, v, "id", &c->id);
        else if (strcmp(key, "title") == 0)
            rc = want_scalar(L, v, "title", &c->title);
        else if (strcmp(key, "level") == 0)
            rc = want_scalar(L, v, "level", &level);
        else if (strcmp(key, "per") == 0)
            rc = want_scalar(L, v, "per", &per);
        else if (strcmp(key, "probe") == 0)
            rc = want_scalar(L, v, "probe", &c->probe);
        else if (strcmp(key, "timeout") == 0)
            rc = want_scalar(L, (timeout_node = v), "timeout", &timeout);
        else if (strcmp(key, "reads") == 0)
            rc = want_strlist(L, v, "reads", &c->reads);
        else if (strcmp(key, "caused_by") == 0)
            rc = want_strlist(L, v, "caused_by", &c->caused_by);
        else if (strcmp(key, "impact") == 0)
            rc = want_impact(L, v, &c->impact);
        else if (strcmp(key, "skip") == 0)
            rc = parse_rules(L, v, &c->skip, &c->nskip);
        else if (strcmp(key, "fail") == 0)
            rc = parse_rules(L, v, &c->fail, &c->nfail);
        else if (strcmp(key, "warn") == 0)
            rc = parse_rules(L, v, &c->warn, &c->nwarn);
        else if (strcmp(key, "pass") == 0)
            rc = parse_rule(L, v, &c->pass, 0);
        else if (strcmp(key, "fix") == 0)
            rc = parse_fix(L, v, &c->fix);
        else if (strcmp(key, "why") == 0)
            rc = want_scalar(L, v, "why", &c->why);
        else if (strcmp(key, "how") == 0)
            rc = want_scalar(L, v, "how", &c->how);
        else
            rc = yerr(L, k, "unknown key '%s' in check%s%s", key, c->id ? " " : "",
                      c->id ? c->id : "");
    }
    if (!rc && !c->id)
        rc = yerr(L, n, "check has no 'id'");
    if (!rc && !valid_id(c->id))
        rc = yerr(L, n, "check id '%s' must be dotted lowercase ([a-z0-9_.])", c->id);
    if (!rc && !c->title)
        rc = yerr(L, n, "check %s has no 'title'", c->id);
    if (!rc && !c->why)
        rc = yerr(L, n, "check %s has no 'why'", c->id);
    if (!rc && !c->pass.summary)
        rc = yerr(L, n, "check %s has no 'pass' summary", c->id);
    if (!rc && (c->nfail || c->nwarn) && !fix_present(&c->fix)) {
        for (size_t i = 0; i < c->nfail && !rc; i++)
            if (!fix_present(&c->fail[i].fix))
                rc = yerr(L, n, "check %s has a fail rule without a fix", c->id);
        for (size_t i = 0; i < c->nwarn && !rc; i++)
            if (!fix_present(&c->warn[i].fix))
                rc = yerr(L, n, "check %s has a warn rule without a fix", c->id);
    }
    if (!rc && !level)
        rc = yerr(L, n, "check %s has no 'level'", c->id);
    if (!rc && level_parse(level, &c->level))
        rc = yerr(L, n, "check %s: level must be quick, standard or full", c->id);
    if (!rc && per) {
        if (strcmp(per, "gpu") == 0)
            c->per_gpu = 1;
        else
            rc = yerr(L, n, "check %s: 'per' must be 'gpu'", c->id);
    }
    /* nan fails every comparison and inf never expires: the watchdog
     * needs a finite budget */
    if (!rc && timeout &&
        (str_parse_double(timeout, &c->timeout_s) || !isfinite(c->timeout_s) || c->timeout_s <= 0 ||
         c->timeout_s > CHECKS_MAX_TIMEOUT_S))
        rc = yerr(L, timeout_node,
                  "check %s: timeout must be a number of seconds above 0 and at most %.0f", c->id,
                  CHECKS_MAX_TIMEOUT_S);
    free(level);
    free(per);
    free(timeout);
    return rc;
}

static int parse_data(struct loader *L, yaml_node_t *n)
{
    struct checkset *cs = L->cs;
    if (n->type != YAML_MAPPING_NODE)
        return yerr(L, n, "'data' must be a mapping of tables");
    /* room for every entry at once: growing by one is quadratic */
    size_t room = cs->ndata;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *v = node_at(L, p->value);
        room += v->type == YAML_MAPPING_NODE
                    ? (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start)
                    : 1;
    }
    cs->data = xrealloc(cs->data, (room + 1) * sizeof(*cs->data));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(L, p->key), *v = node_at(L, p->value);
        if (!scalar(k))
            return yerr(L, k, "table names must be strings");
        if (v->type == YAML_MAPPING_NODE) {
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++) {
                yaml_node_t *kk = node_at(L, q->key);
                if (!scalar(kk))
                    return yerr(L, kk, "table keys must be strings");
                struct data_table *t = &cs->data[cs->ndata++];
                memset(t, 0, sizeof(*t));
                t->name = xstrdup(scalar(k));
                t->key = xstrdup(scalar(kk));
                if (want_strlist(L, node_at(L, q->value), scalar(k), &t->values))
                    return -1;
            }
        } else {
            struct data_table *t = &cs->data[cs->ndata++];
            memset(t, 0, sizeof(*t));
            t->name = xstrdup(scalar(k));
            if (want_strlist(L, v, scalar(k), &t->values))
                return -1;
        }
    }
    return 0;
}

/* ---- validation against the fact catalogue ------------------------------
 *
 * After the whole file is read (data tables may follow the checks), every
 * fact a check names - in a rule, in `reads:`, in a {placeholder} of a
 * summary or fix - must be one the schema declares (the fact catalogue,
 * probes/fact_catalog.c, passed in by checks_set_schema()),
 * every `lookup()` table must exist, every `probe:` must name a probe, and
 * every rule must type-check against the declared fact types. */

static int yerr_at(struct loader *L, unsigned long line, unsigned long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int yerr_at(struct loader *L, unsigned long line, unsigned long col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    yerr_emit(L->file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

/* 1-based line:col of byte `off` of a scalar's text: exact for scalars on
 * one line (plain or quoted), else the scalar's start */
static void scalar_pos(const yaml_node_t *n, size_t off, unsigned long *line, unsigned long *col)
{
    *line = (unsigned long)n->start_mark.line + 1;
    *col = (unsigned long)n->start_mark.column + 1;
    yaml_scalar_style_t st = n->data.scalar.style;
    int quoted = st == YAML_SINGLE_QUOTED_SCALAR_STYLE || st == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    if (n->start_mark.line == n->end_mark.line && (quoted || st == YAML_PLAIN_SCALAR_STYLE))
        *col += (unsigned long)off + (quoted ? 1 : 0);
}

static enum val_type val_type_of(enum fact_type t)
{
    switch (t) {
    case FACT_BOOL:
        return VAL_BOOL;
    case FACT_INT:
    case FACT_FLOAT:
        return VAL_NUM;
    case FACT_STR:
        return VAL_STR;
    case FACT_LIST:
        return VAL_LIST;
    case FACT_UNKNOWN:
        break;
    }
    return VAL_UNKNOWN;
}

static const struct checks_schema *the_schema;

void checks_set_schema(const struct checks_schema *schema)
{
    the_schema = schema;
}

const struct checks_schema *checks_schema(void)
{
    return the_schema;
}

/* the declaration a check's fact name means: in a `per: gpu` check
 * "gpu.x" is "gpu.<i>.x" when a probe declares that, else the name as
 * written (as resolve_fact() in checks_run.c does):
 * 1 and *t, or 0 when the schema declares neither */
static int declared(const char *name, int per_gpu, enum fact_type *t)
{
    if (per_gpu && str_starts(name, "gpu.")) {
        char buf[FACT_NAME_MAX];
        if (the_schema->fact_type(fact_gpu_name(buf, 0, name + 4), t) == 0)
            return 1;
    }
    return the_schema->fact_type(name, t) == 0;
}

static char *unknown_fact_msg(const char *name, int per_gpu)
{
    char buf[FACT_NAME_MAX];
    const char *hint =
        the_schema->suggest ? the_schema->suggest(name, per_gpu, buf, sizeof(buf)) : NULL;
    if (hint)
        return xasprintf("unknown fact '%s' (did you mean '%s'?)", name, hint);
    return xasprintf("unknown fact '%s' (no probe declares it; see 'rocm-vla-doctor list --facts')",
                     name);
}

struct vctx {
    const struct checkset *cs;
    int per_gpu;
};

static int typer_fact(void *ctx, const char *name, enum val_type *type, char **err)
{
    const struct vctx *v = ctx;
    enum fact_type t;
    if (!declared(name, v->per_gpu, &t)) {
        *err = unknown_fact_msg(name, v->per_gpu);
        return -1;
    }
    *type = val_type_of(t);
    return 0;
}

static int typer_table(void *ctx, const char *table)
{
    const struct vctx *v = ctx;
    return checks_data_find(v->cs, table, NULL) ? 0 : -1;
}

static int check_when(struct loader *L, yaml_node_t *n, const struct rule *r, struct vctx *v)
{
    struct expr_typer t = {typer_fact, typer_table, v};
    size_t off;
    char *msg;
    if (!r->when || expr_check(r->when, &t, &off, &msg) == 0)
        return 0;
    unsigned long line, col;
    scalar_pos(n, off, &line, &col);
    yerr_at(L, line, col, "%s in rule \"%s\"", msg, r->when_src);
    free(msg);
    return -1;
}

/* {fact}, {fact:gib}, {fact:mib}, {fact:one/many}, {gpu} and {sudo} in a
 * summary or fix */
static int check_template(struct loader *L, yaml_node_t *n, const struct vctx *v)
{
    const char *s = scalar(n);
    for (const char *p = s ? strchr(s, '{') : NULL; p; p = strchr(p + 1, '{')) {
        const char *close = strchr(p, '}');
        unsigned long line, col;
        scalar_pos(n, (size_t)(p + 1 - s), &line, &col);
        if (!close)
            return yerr_at(L, line, col, "'{' without '}' in \"%s\"", s);
        char *name = xstrndup(p + 1, (size_t)(close - p - 1));
        char *unit = strchr(name, ':');
        if (unit)
            *unit++ = '\0';
        int rc = 0;
        enum fact_type t = FACT_UNKNOWN;
        if (strcmp(name, "gpu") == 0 && !unit) {
            if (!v->per_gpu)
                rc = yerr_at(L, line, col, "{gpu} is the GPU's index: only in a 'per: gpu' check");
        } else if (strcmp(name, "sudo") == 0 && !unit) {
            /* the privilege prefix, rendered from user.is_root/host.sudo_present */
        } else if (!declared(name, v->per_gpu, &t)) {
            char *msg = unknown_fact_msg(name, v->per_gpu);
            rc = yerr_at(L, line, col, "%s in placeholder {%s%s%s}", msg, name, unit ? ":" : "",
                         unit ? unit : "");
            free(msg);
        } else if (unit && strchr(unit, '/')) {
            /* {count:noun/nouns}: a count with its noun, both words non-empty */
            const char *slash = strchr(unit, '/');
            if (slash == unit || !slash[1] || strchr(slash + 1, '/'))
                rc = yerr_at(L, line, col, "{%s:%s}: the plural form is {%s:one/many}", name, unit,
                             name);
            else if (t != FACT_INT && t != FACT_FLOAT)
                rc = yerr_at(L, line, col, "{%s:%s} counts a number, but %s is a %s", name, unit,
                             name, fact_type_name(t));
        } else if (unit && strcmp(unit, "gib") && strcmp(unit, "mib")) {
            rc = yerr_at(L, line, col, "unknown unit '%s' in {%s:%s} (gib, mib or one/many)", unit,
                         name, unit);
        } else if (unit && t != FACT_INT && t != FACT_FLOAT) {
            rc = yerr_at(L, line, col, "{%s:%s} converts a number, but %s is a %s", name, unit,
                         name, fact_type_name(t));
        }
        free(name);
        if (rc)
            return rc;
        p = close;
    }
    return 0;
}

static yaml_node_t *map_get(struct loader *L, yaml_node_t *n, const char *key);

/* the placeholders of a fix: its string, or each of say, run's items, then */
static int check_fix_templates(struct loader *L, yaml_node_t *n, const struct vctx *v)
{
    if (n->type != YAML_MAPPING_NODE)
        return check_template(L, n, v);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *val = node_at(L, p->value);
        if (val->type == YAML_SCALAR_NODE) {
            if (check_template(L, val, v))
                return -1;
            continue;
        }
        for (yaml_node_item_t *it = val->data.sequence.items.start;
             it < val->data.sequence.items.top; it++) {
            yaml_node_t *item = node_at(L, *it);
            if (item->type != YAML_MAPPING_NODE) {
                if (check_template(L, item, v))
                    return -1;
                continue;
            }
            /* a command by distribution: each family's command */
            for (yaml_node_pair_t *q = item->data.mapping.pairs.start;
                 q < item->data.mapping.pairs.top; q++)
                if (check_template(L, node_at(L, q->value), v))
                    return -1;
        }
    }
    return 0;
}

static yaml_node_t *map_get(struct loader *L, yaml_node_t *n, const char *key)
{
    if (n->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = scalar(node_at(L, p->key));
        if (k && strcmp(k, key) == 0)
            return node_at(L, p->value);
    }
    return NULL;
}

static int check_rule(struct loader *L, yaml_node_t *n, const struct rule *r, struct vctx *v)
{
    yaml_node_t *w = map_get(L, n, "when"), *sum = map_get(L, n, "summary"),
                *fix = map_get(L, n, "fix");
    if (w && check_when(L, w, r, v))
        return -1;
    if (sum && check_template(L, sum, v))
        return -1;
    return fix ? check_fix_templates(L, fix, v) : 0;
}

static int check_rules(struct loader *L, yaml_node_t *n, const struct rule *rules, size_t nrules,
                       struct vctx *v)
{
    if (n->type == YAML_MAPPING_NODE)
        return nrules ? check_rule(L, n, &rules[0], v) : 0;
    size_t i = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start;
         it < n->data.sequence.items.top && i < nrules; it++, i++)
        if (check_rule(L, node_at(L, *it), &rules[i], v))
            return -1;
    return 0;
}

static int check_reads(struct loader *L, yaml_node_t *n, struct vctx *v)
{
    yaml_node_item_t one = 0;
    yaml_node_item_t *it = n->data.sequence.items.start, *top = n->data.sequence.items.top;
    if (n->type == YAML_SCALAR_NODE) {
        it = &one;
        top = &one + 1;
    }
    for (; it < top; it++) {
        yaml_node_t *item = n->type == YAML_SCALAR_NODE ? n : node_at(L, *it);
        const char *name = scalar(item);
        enum fact_type t;
        if (name && !declared(name, v->per_gpu, &t)) {
            char *msg = unknown_fact_msg(name, v->per_gpu);
            yerr(L, item, "%s in 'reads'", msg);
            free(msg);
            return -1;
        }
    }
    return 0;
}

static int check_probe(struct loader *L, yaml_node_t *n, const char *probe)
{
    const char *name;
    for (size_t i = 0; (name = the_schema->probe_name(i)); i++)
        if (strcmp(name, probe) == 0)
            return 0;
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; (name = the_schema->probe_name(i)); i++)
        strbuf_addf(&sb, "%s%s", i ? ", " : "", name);
    yerr(L, n, "unknown probe '%s' (probes: %s)", probe, sb.buf);
    strbuf_release(&sb);
    return -1;
}

static int validate_check(struct loader *L, yaml_node_t *n, const struct check *c)
{
    struct vctx v = {L->cs, c->per_gpu};
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *key = scalar(node_at(L, p->key));
        yaml_node_t *val = node_at(L, p->value);
        int rc = 0;
        if (strcmp(key, "reads") == 0)
            rc = check_reads(L, val, &v);
        else if (strcmp(key, "skip") == 0)
            rc = check_rules(L, val, c->skip, c->nskip, &v);
        else if (strcmp(key, "fail") == 0)
            rc = check_rules(L, val, c->fail, c->nfail, &v);
        else if (strcmp(key, "warn") == 0)
            rc = check_rules(L, val, c->warn, c->nwarn, &v);
        else if (strcmp(key, "pass") == 0)
            rc = check_rule(L, val, &c->pass, &v);
        else if (strcmp(key, "fix") == 0)
            rc = check_fix_templates(L, val, &v);
        else if (strcmp(key, "probe") == 0)
            rc = check_probe(L, val, c->probe);
        if (rc)
            return -1;
    }
    return 0;
}

/* caused_by: every id a check, none the check itself, no cycle
 * (checks_cause.c); the error points at the id at fault */
static int validate_causes(struct loader *L, yaml_node_t *checks)
{
    size_t bad = 0, item = 0;
    char *msg = checks_resolve_causes(L->cs, &bad, &item);
    yaml_node_t *at = NULL;
    if (msg)
        at = map_get(L, node_at(L, checks->data.sequence.items.start[bad]), "caused_by");
    /* then each fail and warn rule's own caused_by, within the check's */
    for (size_t i = 0; i < L->cs->n && !msg; i++) {
        struct check *c = &L->cs->v[i];
        yaml_node_t *cn = node_at(L, checks->data.sequence.items.start[i]);
        const char *kinds[2] = {"fail", "warn"};
        struct rule *rules[2] = {c->fail, c->warn};
        size_t nr[2] = {c->nfail, c->nwarn};
        for (int g = 0; g < 2 && !msg; g++) {
            yaml_node_t *list = map_get(L, cn, kinds[g]);
            for (size_t j = 0; j < nr[g] && !msg; j++) {
                if (!rules[g][j].has_causes)
                    continue;
                msg = checks_resolve_rule_causes(c, &rules[g][j], &item);
                /* a single rule may be written as a mapping, not a list */
                yaml_node_t *rn = list && list->type == YAML_SEQUENCE_NODE
                                      ? node_at(L, list->data.sequence.items.start[j])
                                      : list;
                at = msg && rn ? map_get(L, rn, "caused_by") : NULL;
                bad = i;
            }
        }
    }
    if (!msg)
        return 0;
    if (at && at->type == YAML_SEQUENCE_NODE)
        at = node_at(L, at->data.sequence.items.start[item]);
    yerr(L, at ? at : node_at(L, checks->data.sequence.items.start[bad]), "%s", msg);
    free(msg);
    return -1;
}

static int validate(struct loader *L, yaml_node_t *root)
{
    yaml_node_t *checks = map_get(L, root, "checks");
    size_t i = 0;
    for (yaml_node_item_t *it = checks->data.sequence.items.start;
         it < checks->data.sequence.items.top && i < L->cs->n; it++, i++)
        if (validate_check(L, node_at(L, *it), &L->cs->v[i]))
            return -1;
    return validate_causes(L, checks);
}

/* ---- the data tables, sorted by (name, key) ------------------------------ */

static const struct checkset *sort_cs; /* qsort has no context argument */

static int data_cmp(const char *na, const char *ka, const char *nb, const char *kb)
{
    int c = strcmp(na, nb);
    if (c || ka == kb)
        return c;
    if (!ka || !kb) /* a plain list (no key) sorts first */
        return ka ? 1 : -1;
    return strcmp(ka, kb);
}

static int index_cmp(const void *a, const void *b)
{
    const struct data_table *x = &sort_cs->data[*(const size_t *)a],
                            *y = &sort_cs->data[*(const size_t *)b];
    return data_cmp(x->name, x->key, y->name, y->key);
}

static void index_data(struct checkset *cs)
{
    cs->data_index = xcalloc(cs->ndata + 1, sizeof(*cs->data_index));
    for (size_t i = 0; i < cs->ndata; i++)
        cs->data_index[i] = i;
    sort_cs = cs;
    qsort(cs->data_index, cs->ndata, sizeof(*cs->data_index), index_cmp);
    sort_cs = NULL;
}

/* the first entry at or after (table, key) in the sorted index */
static size_t data_lower(const struct checkset *cs, const char *table, const char *key)
{
    size_t lo = 0, hi = cs->ndata;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct data_table *t = &cs->data[cs->data_index[mid]];
        if (data_cmp(t->name, t->key, table, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct data_table *checks_data_find(const struct checkset *cs, const char *table,
                                          const char *key)
{
    if (!cs->data_index)
        return NULL;
    /* the table's first entry: a plain list (no key) matches every key */
    size_t i = data_lower(cs, table, NULL);
    if (i == cs->ndata || strcmp(cs->data[cs->data_index[i]].name, table) != 0)
        return NULL;
    const struct data_table *t = &cs->data[cs->data_index[i]];
    if (!t->key || !key)
        return t;
    i = data_lower(cs, table, key);
    if (i == cs->ndata)
        return NULL;
    t = &cs->data[cs->data_index[i]];
    return strcmp(t->name, table) == 0 && t->key && strcmp(t->key, key) == 0 ? t : NULL;
}

/* ---- before and after the document is built ----------------------------- */

static int yaml_problem(const char *name, const yaml_parser_t *parser)
{
    fprintf(stderr, "%s:%lu:%lu: %s%s%s\n", name, (unsigned long)parser->problem_mark.line + 1,
            (unsigned long)parser->problem_mark.column + 1,
            parser->problem ? parser->problem : "malformed YAML", parser->context ? " " : "",
            parser->context ? parser->context : "");
    return -1;
}

static int event_err(const char *name, const yaml_event_t *ev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int event_err(const char *name, const yaml_event_t *ev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    yerr_emit(name, (unsigned long)ev->start_mark.line + 1,
              (unsigned long)ev->start_mark.column + 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* the event pass: one document, no anchors or aliases, bounded nesting.
 * It stops at the first offence, so libyaml never scans deeper than
 * CHECKS_MAX_DEPTH + 1 levels of a hostile file. */
static int prescan(const char *name, const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    if (!yaml_parser_initialize(&parser))
        return error("libyaml: cannot initialise parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = 0, done = 0, depth = 0, docs = 0;
    while (!rc && !done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = yaml_problem(name, &parser);
            break;
        }
        const yaml_char_t *anchor = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = event_err(name, &ev, "a checks file holds one YAML document");
            break;
        case YAML_ALIAS_EVENT:
            rc = event_err(name, &ev,
                           "YAML alias '*%s': aliases and anchors are not allowed in a checks file",
                           (const char *)ev.data.alias.anchor);
            break;
        case YAML_SCALAR_EVENT:
            anchor = ev.data.scalar.anchor;
            break;
        case YAML_SEQUENCE_START_EVENT:
            anchor = ev.data.sequence_start.anchor;
            depth++;
            break;
        case YAML_MAPPING_START_EVENT:
            anchor = ev.data.mapping_start.anchor;
            depth++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        if (!rc && anchor)
            rc =
                event_err(name, &ev,
                          "YAML anchor '&%s': aliases and anchors are not allowed in a checks file",
                          (const char *)anchor);
        if (!rc && depth > CHECKS_MAX_DEPTH)
            rc = event_err(name, &ev, "nested deeper than %d levels", CHECKS_MAX_DEPTH);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* no mapping anywhere in the file may repeat a key: a second `checks:`
 * or `when:` would silently replace (or, before, overrun) the first */
static int no_duplicate_keys(struct loader *L)
{
    for (yaml_node_t *n = L->doc.nodes.start; n < L->doc.nodes.top; n++) {
        if (n->type != YAML_MAPPING_NODE)
            continue;
        struct strset seen;
        strset_init(&seen, (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start));
        int rc = 0;
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             p < n->data.mapping.pairs.top && !rc; p++) {
            yaml_node_t *k = node_at(L, p->key);
            unsigned long first;
            if (scalar(k) && strset_add(&seen, scalar(k), k->start_mark.line + 1, &first))
                rc = yerr(L, k, "duplicate key '%s' (first at line %lu)", scalar(k), first);
        }
        strset_release(&seen);
        if (rc)
            return rc;
    }
    return 0;
}

int checks_load_string(struct checkset *cs, const char *name, const char *text, size_t len)
{
    struct loader L;
    memset(&L, 0, sizeof(L));
    L.file = name;
    L.cs = cs;
    yaml_parser_t parser;
    int rc = 0;

    memset(cs, 0, sizeof(*cs));
    if (!the_schema)
        return error("internal error: %s: the checks loader was given no fact schema", name);
    if (len > CHECKS_MAX_FILE) {
        fprintf(stderr, "%s: larger than %u MiB\n", name, CHECKS_MAX_FILE >> 20);
        return -1;
    }
    if (prescan(name, text, len))
        return -1;
    cs->path = xstrdup(name);
    if (!yaml_parser_initialize(&parser)) {
        checks_release(cs);
        return error("libyaml: cannot initialise parser");
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &L.doc)) {
        yaml_problem(name, &parser);
        yaml_parser_delete(&parser);
        checks_release(cs);
        return -1;
    }
    yaml_parser_delete(&parser);
    if (no_duplicate_keys(&L) || templates_expand(&L.doc, name)) {
        rc = -1;
        goto out;
    }

    yaml_node_t *root = yaml_document_get_root_node(&L.doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        rc = yerr(&L, root,
                  "top level must be a mapping with 'schema', 'data', 'peaks' and 'checks'");
        goto out;
    }
    int have_checks = 0, have_schema = 0;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top && !rc; p++) {
        yaml_node_t *k = node_at(&L, p->key), *v = node_at(&L, p->value);
        const char *key = scalar(k);
        if (key && strcmp(key, "schema") == 0) {
            have_schema = 1;
            if (!scalar(v) || strcmp(scalar(v), "rocm-vla-doctor-checks/1") != 0)
                rc = yerr(&L, v, "unsupported schema (want rocm-vla-doctor-checks/1)");
        } else if (key && strcmp(key, "data") == 0) {
            rc = parse_data(&L, v);
        } else if (key && strcmp(key, "peaks") == 0) {
            rc = peaks_parse(&L.doc, v, L.file, &cs->peaks);
        } else if (key && strcmp(key, "templates") == 0) {
            /* expanded into the checks' rule lists above */
        } else if (key && strcmp(key, "checks") == 0) {
            have_checks = 1;
            if (v->type != YAML_SEQUENCE_NODE) {
                rc = yerr(&L, v, "'checks' must be a list");
                break;
            }
            size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
            struct strset ids;
            strset_init(&ids, n);
            cs->v = xcalloc(n + 1, sizeof(*cs->v));
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top && !rc; it++) {
                yaml_node_t *cn = node_at(&L, *it);
                struct check *c = &cs->v[cs->n++];
                unsigned long first;
                rc = parse_check(&L, cn, c);
                if (!rc && strset_add(&ids, c->id, (unsigned long)c->line, &first))
                    rc = yerr(&L, cn, "duplicate check id '%s' (first at line %lu)", c->id, first);
            }
            strset_release(&ids);
        } else {
            rc = yerr(&L, k, "unknown top-level key '%s'", key ? key : "?");
        }
    }
    if (!rc && !have_schema)
        rc = yerr(&L, root, "missing 'schema: rocm-vla-doctor-checks/1'");
    if (!rc && !have_checks)
        rc = yerr(&L, root, "missing 'checks'");
    if (!rc) {
        index_data(cs);
        rc = validate(&L, root);
    }
out:
    yaml_document_delete(&L.doc);
    if (rc)
        checks_release(cs); /* the caller owns nothing after a failure */
    return rc;
}

int checks_load(struct checkset *cs, const char *path)
{
    char *text;
    size_t len;
    int rc = read_user_file(path, CHECKS_MAX_FILE, &text, &len);
    if (rc == -EFBIG)
        return error("checks file '%s' is larger than %u MiB", path, CHECKS_MAX_FILE >> 20);
    if (rc)
        return error("cannot read checks file '%s': %s", path, user_file_strerror(rc));
    rc = checks_load_string(cs, path, text, len);
    free(text);
    return rc;
}

/* checks.yaml as built into the binary (src/embed.S) */
extern const char rvd_checks_yaml[];
extern const char rvd_checks_yaml_end[];

int checks_load_default(struct checkset *cs, const char *path)
{
    if (path)
        return checks_load(cs, path);
    /* an installed copy reads the checks.yaml installed beside it, the one
     * its users can read (and its report names); a build tree, or a binary
     * copied alone, the one built in */
    char *installed = datadir_file("checks.yaml");
    if (installed) {
        int rc = checks_load(cs, installed);
        free(installed);
        return rc;
    }
    return checks_load_string(cs, CHECKS_BUILTIN, rvd_checks_yaml,
                              (size_t)(rvd_checks_yaml_end - rvd_checks_yaml));
}

const char *checks_origin(const struct checkset *cs)
{
    return cs->path && strcmp(cs->path, CHECKS_BUILTIN) ? cs->path : "(built in)";
}

static void rule_release(struct rule *r)
{
    free(r->when_src);
    expr_free(r->when);
    free(r->summary);
    fix_release(&r->fix);
    strlist_release(&r->caused_by);
    free(r->causes);
}

void checks_release(struct checkset *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        struct check *c = &cs->v[i];
        free(c->id);
        free(c->title);
        fix_release(&c->fix);
        free(c->why);
        free(c->how);
        free(c->probe);
        strlist_release(&c->reads);
        strlist_release(&c->caused_by);
        free(c->causes);
        for (size_t j = 0; j < c->nskip; j++)
            rule_release(&c->skip[j]);
        for (size_t j = 0; j < c->nfail; j++)
            rule_release(&c->fail[j]);
        for (size_t j = 0; j < c->nwarn; j++)
            rule_release(&c->warn[j]);
        free(c->skip);
        free(c->fail);
        free(c->warn);
        rule_release(&c->pass);
    }
    free(cs->v);
    for (size_t i = 0; i < cs->ndata; i++) {
        free(cs->data[i].name);
        free(cs->data[i].key);
        strlist_release(&cs->data[i].values);
    }
    free(cs->data);
    free(cs->data_index);
    peaks_release(&cs->peaks);
    free(cs->path);
    memset(cs, 0, sizeof(*cs));
}
