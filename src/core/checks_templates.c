/* checks_templates.c - rule templates of checks.yaml (see
 * checks_templates.h). The same rule written in many checks (no GPU, the
 * driver not bound) or once per sensor and margin is written once with
 * ${param} holes and used by name. Expansion is plain text substitution
 * in one pass (a value is never scanned for ${...} again), a template
 * cannot use another, and the whole expansion is bounded, so unlike YAML
 * aliases (refused by the loader) a small file stays small. The expanded
 * rules are new nodes of the document at the use item's position: the
 * loader's own parse and fact/type validation then treat them as if they
 * had been written there, per check (a per-GPU check resolves gpu.x). */
#include "checks_templates.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "util.h"

#define TEMPLATES_MAX_PARAMS 16

struct tmpl {
    const char *name;     /* borrowed: scalar values outlive node moves */
    int name_node, rules; /* node indexes: the name, its rule list or rule */
    const char *param[TEMPLATES_MAX_PARAMS];
    size_t nparam;
    int used;
};

struct tctx {
    yaml_document_t *doc;
    const char *file;
    struct tmpl *v;
    size_t n;
    size_t bytes, rules; /* expanded so far */
};

static int terr(const struct tctx *T, int node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "file:line:col: message", sanitised: it quotes the file's own text */
static int terr(const struct tctx *T, int node, const char *fmt, ...)
{
    const yaml_node_t *n = yaml_document_get_node(T->doc, node);
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    strbuf_addf(&sb, "%s:%lu:%lu: ", T->file, n ? (unsigned long)n->start_mark.line + 1 : 0,
                n ? (unsigned long)n->start_mark.column + 1 : 0);
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    char *safe = str_sanitize(sb.buf, 0);
    fprintf(stderr, "%s\n", safe);
    free(safe);
    strbuf_release(&sb);
    return -1;
}

static yaml_node_t *node(const struct tctx *T, int idx)
{
    return yaml_document_get_node(T->doc, idx);
}

static const char *scalar_at(const struct tctx *T, int idx)
{
    const yaml_node_t *n = node(T, idx);
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* the value node of key in mapping idx, or 0 */
static int get(const struct tctx *T, int idx, const char *key)
{
    const yaml_node_t *n = node(T, idx);
    if (!n || n->type != YAML_MAPPING_NODE)
        return 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = scalar_at(T, p->key);
        if (k && strcmp(k, key) == 0)
            return p->value;
    }
    return 0;
}

/* template and parameter names: [a-z][a-z0-9_]* */
static int valid_name(const char *s)
{
    if (!s || *s < 'a' || *s > 'z')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static int param_index(const struct tmpl *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->nparam; i++)
        if (strlen(t->param[i]) == len && strncmp(t->param[i], name, len) == 0)
            return (int)i;
    return -1;
}

/* a rule list node's items: a sequence's, or a single mapping as one */
static size_t items_of(const struct tctx *T, int idx, const yaml_node_item_t **it,
                       yaml_node_item_t *one)
{
    const yaml_node_t *n = node(T, idx);
    if (n->type == YAML_SEQUENCE_NODE) {
        *it = n->data.sequence.items.start;
        return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    }
    *one = idx;
    *it = one;
    return 1;
}

/* every ${name} in the scalar at idx names a parameter; mark those used */
static int check_holes(const struct tctx *T, const struct tmpl *t, int idx, int *used)
{
    const char *s = scalar_at(T, idx);
    for (const char *p = strstr(s, "${"); p; p = strstr(p, "${")) {
        const char *close = strchr(p, '}');
        if (!close)
            return terr(T, idx, "'${' without '}' in template '%s'", t->name);
        int i = param_index(t, p + 2, (size_t)(close - p - 2));
        if (i < 0)
            return terr(T, idx, "template '%s' has no parameter '%.*s'", t->name,
                        (int)(close - p - 2), p + 2);
        used[i] = 1;
        p = close + 1;
    }
    return 0;
}

static int parse_params(struct tctx *T, struct tmpl *t, int idx)
{
    const yaml_node_t *n = node(T, idx);
    if (n->type != YAML_SEQUENCE_NODE)
        return terr(T, idx, "'params' of template '%s' must be a list of names", t->name);
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        const char *p = scalar_at(T, *it);
        if (!valid_name(p))
            return terr(T, *it, "a parameter of template '%s' must be a name ([a-z][a-z0-9_]*)",
                        t->name);
        if (param_index(t, p, strlen(p)) >= 0)
            return terr(T, *it, "parameter '%s' of template '%s' is listed twice", p, t->name);
        if (t->nparam == TEMPLATES_MAX_PARAMS)
            return terr(T, *it, "template '%s' has more than %d parameters", t->name,
                        TEMPLATES_MAX_PARAMS);
        t->param[t->nparam++] = p;
    }
    return 0;
}

/* a template's rules: mappings of when/summary/fix strings, no use */
static int check_rules(struct tctx *T, const struct tmpl *t)
{
    const yaml_node_item_t *it;
    yaml_node_item_t one;
    int used[TEMPLATES_MAX_PARAMS] = {0};
    size_t n = items_of(T, t->rules, &it, &one);
    if (n == 0)
        return terr(T, t->rules, "template '%s' has no rules", t->name);
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *r = node(T, it[i]);
        if (r->type != YAML_MAPPING_NODE)
            return terr(T, it[i], "a rule of template '%s' must be a mapping with when/summary/fix",
                        t->name);
        for (yaml_node_pair_t *p = r->data.mapping.pairs.start; p < r->data.mapping.pairs.top;
             p++) {
            const char *k = scalar_at(T, p->key);
            if (k && strcmp(k, "use") == 0)
                return terr(T, p->key, "template '%s': a template cannot use another", t->name);
            if (!k || (strcmp(k, "when") && strcmp(k, "summary") && strcmp(k, "fix")))
                return terr(T, p->key, "unknown key '%s' in a rule of template '%s'", k ? k : "?",
                            t->name);
            if (!scalar_at(T, p->value))
                return terr(T, p->value, "%s in template '%s' must be a string", k, t->name);
            if (check_holes(T, t, p->value, used))
                return -1;
        }
    }
    for (size_t i = 0; i < t->nparam; i++)
        if (!used[i])
            return terr(T, t->name_node, "parameter '%s' of template '%s' is never used",
                        t->param[i], t->name);
    return 0;
}

static int parse_template(struct tctx *T, struct tmpl *t, int key, int value)
{
    t->name = scalar_at(T, key);
    t->name_node = key;
    if (!valid_name(t->name))
        return terr(T, key, "a template name must be a name ([a-z][a-z0-9_]*)");
    const yaml_node_t *v = node(T, value);
    if (v->type != YAML_MAPPING_NODE)
        return terr(T, value, "template '%s' must be a mapping with 'rules' (and 'params')",
                    t->name);
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        const char *k = scalar_at(T, p->key);
        if (k && strcmp(k, "params") == 0) {
            if (parse_params(T, t, p->value))
                return -1;
        } else if (k && strcmp(k, "rules") == 0) {
            int type = node(T, p->value)->type;
            if (type != YAML_SEQUENCE_NODE && type != YAML_MAPPING_NODE)
                return terr(T, p->value, "'rules' of template '%s' must be a list of rules",
                            t->name);
            t->rules = p->value;
        } else {
            return terr(T, p->key, "unknown key '%s' in template '%s' (params, rules)", k ? k : "?",
                        t->name);
        }
    }
    if (!t->rules)
        return terr(T, value, "template '%s' has no 'rules'", t->name);
    return check_rules(T, t);
}

static int tmpl_cmp(const void *a, const void *b)
{
    return strcmp(((const struct tmpl *)a)->name, ((const struct tmpl *)b)->name);
}

static int parse_templates(struct tctx *T, int idx)
{
    const yaml_node_t *n = node(T, idx);
    if (n->type != YAML_MAPPING_NODE)
        return terr(T, idx, "'templates' must be a mapping of names to templates");
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    T->v = xcalloc(count + 1, sizeof(*T->v));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
        if (parse_template(T, &T->v[T->n++], p->key, p->value))
            return -1;
    /* names are unique (no mapping repeats a key): sorted for bsearch */
    qsort(T->v, T->n, sizeof(*T->v), tmpl_cmp);
    return 0;
}

static struct tmpl *find(struct tctx *T, const char *name)
{
    struct tmpl key = {.name = name};
    return T->n ? bsearch(&key, T->v, T->n, sizeof(*T->v), tmpl_cmp) : NULL;
}

/* text with every ${param} replaced by its value; holes were checked */
static char *subst(const struct tmpl *t, const char *const *val, const char *text)
{
    struct strbuf sb = STRBUF_INIT;
    const char *p = text, *hole;
    while ((hole = strstr(p, "${"))) {
        const char *close = strchr(hole, '}');
        strbuf_add(&sb, p, (size_t)(hole - p));
        strbuf_adds(&sb, val[param_index(t, hole + 2, (size_t)(close - hole - 2))]);
        p = close + 1;
    }
    strbuf_adds(&sb, p);
    return strbuf_detach(&sb);
}

/* a new scalar node at mark; 0 when libyaml is out of memory */
static int add_scalar(struct tctx *T, const char *s, yaml_scalar_style_t style, yaml_mark_t mark)
{
    int i = yaml_document_add_scalar(T->doc, NULL, (const yaml_char_t *)s, -1, style);
    if (i) {
        node(T, i)->start_mark = mark;
        node(T, i)->end_mark = mark;
    }
    return i;
}

/* the use's parameter values in the template's order, or -1 */
static int use_values(struct tctx *T, const struct tmpl *t, int use, int with, const char **val)
{
    const yaml_node_t *w = with ? node(T, with) : NULL;
    if (w && w->type != YAML_MAPPING_NODE)
        return terr(T, with, "'with' must map template '%s''s parameters to values", t->name);
    for (yaml_node_pair_t *p = w ? w->data.mapping.pairs.start : NULL;
         w && p < w->data.mapping.pairs.top; p++) {
        const char *k = scalar_at(T, p->key);
        int i = k ? param_index(t, k, strlen(k)) : -1;
        if (i < 0)
            return terr(T, p->key, "template '%s' has no parameter '%s'", t->name, k ? k : "?");
        if (!(val[i] = scalar_at(T, p->value)))
            return terr(T, p->value, "the value of '%s' must be a string", k);
    }
    for (size_t i = 0; i < t->nparam; i++)
        if (!val[i])
            return terr(T, use, "this use of template '%s' gives no value for '%s'", t->name,
                        t->param[i]);
    return 0;
}

/* one rule of template t, filled in, appended to sequence seq */
static int add_rule(struct tctx *T, const struct tmpl *t, const char *const *val, int rule, int seq,
                    int use)
{
    yaml_mark_t mark = node(T, use)->start_mark;
    if (++T->rules > TEMPLATES_MAX_RULES)
        return terr(T, use, "templates expand to more than %d rules", TEMPLATES_MAX_RULES);
    int m = yaml_document_add_mapping(T->doc, NULL, YAML_BLOCK_MAPPING_STYLE);
    if (!m)
        return terr(T, use, "out of memory expanding template '%s'", t->name);
    node(T, m)->start_mark = mark;
    node(T, m)->end_mark = mark;
    /* the template's pairs array is its own allocation: stable while nodes
     * are added (only the document's node array moves) */
    yaml_node_pair_t *p = node(T, rule)->data.mapping.pairs.start,
                     *top = node(T, rule)->data.mapping.pairs.top;
    for (; p < top; p++) {
        const char *k = scalar_at(T, p->key);
        char *text = subst(t, val, scalar_at(T, p->value));
        T->bytes += strlen(text);
        int rc = 0;
        if (T->bytes > TEMPLATES_MAX_BYTES)
            rc = terr(T, use, "templates expand to more than %u MiB", TEMPLATES_MAX_BYTES >> 20);
        size_t col;
        char *msg;
        struct expr *e = !rc && strcmp(k, "when") == 0 ? expr_parse(text, &col, &msg) : NULL;
        if (!rc && strcmp(k, "when") == 0 && !e) {
            /* the loader's column would point into the use: name the text */
            rc = terr(T, use, "%s at column %zu of rule \"%s\" (template '%s')", msg, col + 1, text,
                      t->name);
            free(msg);
        }
        expr_free(e);
        /* literal style: the loader then points at the use, not into it */
        int kn = rc ? 0 : add_scalar(T, k, YAML_PLAIN_SCALAR_STYLE, mark);
        int vn = kn ? add_scalar(T, text, YAML_LITERAL_SCALAR_STYLE, mark) : 0;
        free(text);
        if (rc)
            return -1;
        if (!vn || !yaml_document_append_mapping_pair(T->doc, m, kn, vn))
            return terr(T, use, "out of memory expanding template '%s'", t->name);
    }
    if (!yaml_document_append_sequence_item(T->doc, seq, m))
        return terr(T, use, "out of memory expanding template '%s'", t->name);
    return 0;
}

/* the use item at idx ({use: NAME, with: {...}}), its rules appended to seq */
static int expand_use(struct tctx *T, int use, int seq)
{
    int name = get(T, use, "use"), with = get(T, use, "with");
    const yaml_node_t *u = node(T, use);
    for (yaml_node_pair_t *p = u->data.mapping.pairs.start; p < u->data.mapping.pairs.top; p++) {
        const char *k = scalar_at(T, p->key);
        if (!k || (strcmp(k, "use") && strcmp(k, "with")))
            return terr(T, p->key, "unknown key '%s' in a use of a template (use, with)",
                        k ? k : "?");
    }
    const char *tname = scalar_at(T, name);
    struct tmpl *t = tname ? find(T, tname) : NULL;
    if (!tname)
        return terr(T, name, "'use' names a template: it must be a string");
    if (!t)
        return terr(T, name, "unknown template '%s'%s", tname,
                    T->n ? "" : " (the file has no 'templates')");
    t->used = 1;
    const char *val[TEMPLATES_MAX_PARAMS] = {0};
    if (use_values(T, t, use, with, val))
        return -1;
    const yaml_node_item_t *it;
    yaml_node_item_t one;
    size_t n = items_of(T, t->rules, &it, &one);
    for (size_t i = 0; i < n; i++)
        if (add_rule(T, t, val, it[i], seq, use))
            return -1;
    return 0;
}

static int is_use(const struct tctx *T, int idx)
{
    return node(T, idx)->type == YAML_MAPPING_NODE && get(T, idx, "use");
}

/* a check's skip/fail/warn value: when it holds a use, *out is a new list
 * with the uses expanded in place; else *out is list itself */
static int expand_list(struct tctx *T, int list, int *out)
{
    *out = list;
    const yaml_node_t *l = node(T, list);
    if (l->type != YAML_SEQUENCE_NODE && l->type != YAML_MAPPING_NODE)
        return 0; /* the loader says what a rule list must be */
    const yaml_node_item_t *it;
    yaml_node_item_t one;
    size_t n = items_of(T, list, &it, &one), uses = 0;
    for (size_t i = 0; i < n; i++)
        uses += (size_t)is_use(T, it[i]);
    if (!uses)
        return 0;
    int seq = yaml_document_add_sequence(T->doc, NULL, YAML_BLOCK_SEQUENCE_STYLE);
    if (!seq)
        return terr(T, list, "out of memory expanding templates");
    node(T, seq)->start_mark = node(T, list)->start_mark;
    node(T, seq)->end_mark = node(T, list)->end_mark;
    /* the list's items array is its own allocation: stable while adding */
    for (size_t i = 0; i < n; i++) {
        if (is_use(T, it[i])) {
            if (expand_use(T, it[i], seq))
                return -1;
        } else if (!yaml_document_append_sequence_item(T->doc, seq, it[i])) {
            return terr(T, list, "out of memory expanding templates");
        }
    }
    *out = seq;
    return 0;
}

static int expand_checks(struct tctx *T, int checks)
{
    /* node pointers move as nodes are added, the arrays they point to do
     * not (nothing is added to the checks list or to a check): keep those */
    yaml_node_item_t *c = node(T, checks)->data.sequence.items.start,
                     *ctop = node(T, checks)->data.sequence.items.top;
    for (; c < ctop; c++) {
        if (node(T, *c)->type != YAML_MAPPING_NODE)
            continue; /* the loader reports it */
        yaml_node_pair_t *p = node(T, *c)->data.mapping.pairs.start,
                         *top = node(T, *c)->data.mapping.pairs.top;
        for (; p < top; p++) {
            const char *k = scalar_at(T, p->key);
            if (k && (!strcmp(k, "skip") || !strcmp(k, "fail") || !strcmp(k, "warn")) &&
                expand_list(T, p->value, &p->value))
                return -1;
        }
    }
    return 0;
}

int templates_expand(yaml_document_t *doc, const char *file)
{
    struct tctx T = {doc, file, NULL, 0, 0, 0};
    yaml_node_t *root = yaml_document_get_root_node(doc);
    if (!root || root->type != YAML_MAPPING_NODE)
        return 0; /* the loader reports it */
    int root_idx = (int)(root - doc->nodes.start) + 1;
    int templates = get(&T, root_idx, "templates"), checks = get(&T, root_idx, "checks");
    int rc = templates ? parse_templates(&T, templates) : 0;
    if (!rc && checks && node(&T, checks)->type == YAML_SEQUENCE_NODE)
        rc = expand_checks(&T, checks);
    for (size_t i = 0; i < T.n && !rc; i++)
        if (!T.v[i].used)
            rc = terr(&T, T.v[i].name_node, "template '%s' is never used", T.v[i].name);
    free(T.v);
    return rc;
}
