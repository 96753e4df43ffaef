/* expr.c - parser (recursive descent) and evaluator of the rule language. */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

enum node_kind { N_NUM, N_STR, N_BOOL, N_LIST, N_IDENT, N_CALL, N_NOT, N_NEG, N_BIN };

enum bin_op {
    OP_OR,
    OP_AND,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_IN,
    OP_CONTAINS,
    OP_MATCHES,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV
};

struct expr {
    enum node_kind k;
    enum bin_op op;
    double num;
    char *str; /* N_STR value, N_IDENT name, N_CALL function name */
    struct expr **kids;
    size_t nkids;
};

void val_release(struct val *v)
{
    free(v->s);
    v->s = NULL;
    strlist_release(&v->l);
}

void expr_free(struct expr *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->nkids; i++)
        expr_free(e->kids[i]);
    free(e->kids);
    free(e->str);
    free(e);
}

/* ---- lexer/parser ----------------------------------------------------- */

struct parser {
    const char *src, *p;
    char *err;
    size_t err_col;
};

static struct expr *node(enum node_kind k)
{
    struct expr *e = xcalloc(1, sizeof(*e));
    e->k = k;
    return e;
}

static void add_kid(struct expr *e, struct expr *kid)
{
    e->kids = xrealloc(e->kids, (e->nkids + 1) * sizeof(*e->kids));
    e->kids[e->nkids++] = kid;
}

static struct expr *fail(struct parser *ps, const char *msg)
{
    if (!ps->err) {
        ps->err = xstrdup(msg);
        ps->err_col = (size_t)(ps->p - ps->src);
    }
    return NULL;
}

static void skip_ws(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int accept(struct parser *ps, const char *tok)
{
    skip_ws(ps);
    size_t n = strlen(tok);
    if (strncmp(ps->p, tok, n) != 0)
        return 0;
    /* word operators must not run into an identifier */
    if (isalpha((unsigned char)tok[0]) &&
        (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_' || ps->p[n] == '.'))
        return 0;
    ps->p += n;
    return 1;
}

static struct expr *parse_or(struct parser *ps);

static struct expr *parse_primary(struct parser *ps)
{
    skip_ws(ps);
    const char *p = ps->p;
    if (*p == '(') {
        ps->p++;
        struct expr *e = parse_or(ps);
        if (!e)
            return NULL;
        if (!accept(ps, ")")) {
            expr_free(e);
            return fail(ps, "expected ')'");
        }
        return e;
    }
    if (*p == '"' || *p == '\'') {
        char q = *p++;
        struct strbuf sb = STRBUF_INIT;
        while (*p && *p != q) {
            if (*p == '\\' && p[1])
                p++;
            strbuf_addc(&sb, *p++);
        }
        if (*p != q) {
            strbuf_release(&sb);
            return fail(ps, "unterminated string");
        }
        ps->p = p + 1;
        struct expr *e = node(N_STR);
        e->str = sb.buf ? strbuf_detach(&sb) : xstrdup("");
        return e;
    }
    if (*p == '[') {
        ps->p++;
        struct expr *e = node(N_LIST);
        if (accept(ps, "]"))
            return e;
        for (;;) {
            struct expr *k = parse_or(ps);
            if (!k) {
                expr_free(e);
                return NULL;
            }
            add_kid(e, k);
            if (accept(ps, ","))
                continue;
            if (accept(ps, "]"))
                return e;
            expr_free(e);
            return fail(ps, "expected ',' or ']' in list");
        }
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        char *end;
        double v = strtod(p, &end);
        ps->p = end;
        static const struct {
            const char *u;
            double m;
        } units[] = {
            {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
        skip_ws(ps);
        for (size_t i = 0; i < ARRAY_SIZE(units); i++)
            if (accept(ps, units[i].u)) {
                v *= units[i].m;
                break;
            }
        struct expr *e = node(N_NUM);
        e->num = v;
        return e;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
        const char *s = p;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
            p++;
        if (p[-1] == '.') {
            ps->p = p - 1;
            return fail(ps, "identifier ends with '.'");
        }
        char *name = xstrndup(s, (size_t)(p - s));
        ps->p = p;
        if (strcmp(name, "true") == 0 || strcmp(name, "false") == 0) {
            struct expr *e = node(N_BOOL);
            e->num = name[0] == 't';
            free(name);
            return e;
        }
        skip_ws(ps);
        if (*ps->p == '(') {
            static const char *const fns[] = {"known", "len", "lookup", "lower", "count"};
            int ok = 0;
            for (size_t i = 0; i < ARRAY_SIZE(fns); i++)
                ok |= strcmp(name, fns[i]) == 0;
            if (!ok) {
                free(name);
                ps->p = s;
                return fail(ps, "unknown function");
            }
            ps->p++;
            struct expr *e = node(N_CALL);
            e->str = name;
            if (accept(ps, ")"))
                return e;
            for (;;) {
                struct expr *k = parse_or(ps);
                if (!k) {
                    expr_free(e);
                    return NULL;
                }
                add_kid(e, k);
                if (accept(ps, ","))
                    continue;
                if (accept(ps, ")"))
                    break;
                expr_free(e);
                return fail(ps, "expected ',' or ')' in call");
            }
            size_t want = strcmp(e->str, "lookup") == 0 || strcmp(e->str, "count") == 0 ? 2 : 1;
            if (e->nkids != want) {
                expr_free(e);
                ps->p = s;
                return fail(ps, "wrong number of arguments");
            }
            return e;
        }
        struct expr *e = node(N_IDENT);
        e->str = name;
        return e;
    }
    return fail(ps, *p ? "unexpected character" : "unexpected end of expression");
}

static struct expr *parse_unary(struct parser *ps)
{
    if (accept(ps, "!") || accept(ps, "not")) {
        struct expr *k = parse_unary(ps);
        if (!k)
            return NULL;
        struct expr *e = node(N_NOT);
        add_kid(e, k);
        return e;
    }
    if (accept(ps, "-")) {
        struct expr *k = parse_unary(ps);
        if (!k)
            return NULL;
        struct expr *e = node(N_NEG);
        add_kid(e, k);
        return e;
    }
    return parse_primary(ps);
}

static struct expr *bin(enum bin_op op, struct expr *a, struct expr *b)
{
    struct expr *e = node(N_BIN);
    e->op = op;
    add_kid(e, a);
    add_kid(e, b);
    return e;
}

struct op_tok {
    const char *tok;
    enum bin_op op;
};

/* one left-associative level: next (op next)* with the operators in ops */
static struct expr *parse_left(struct parser *ps, const struct op_tok *ops, size_t nops,
                               struct expr *(*next)(struct parser *))
{
    struct expr *a = next(ps);
    while (a) {
        size_t i = 0;
        while (i < nops && !accept(ps, ops[i].tok))
            i++;
        if (i == nops)
            break;
        struct expr *b = next(ps);
        if (!b) {
            expr_free(a);
            return NULL;
        }
        a = bin(ops[i].op, a, b);
    }
    return a;
}

static struct expr *parse_mul(struct parser *ps)
{
    static const struct op_tok ops[] = {{"*", OP_MUL}, {"/", OP_DIV}};
    return parse_left(ps, ops, ARRAY_SIZE(ops), parse_unary);
}

static struct expr *parse_add(struct parser *ps)
{
    static const struct op_tok ops[] = {{"+", OP_ADD}, {"-", OP_SUB}};
    return parse_left(ps, ops, ARRAY_SIZE(ops), parse_mul);
}

static struct expr *parse_cmp(struct parser *ps)
{
    struct expr *a = parse_add(ps);
    if (!a)
        return NULL;
    static const struct op_tok ops[] = {
        {"==", OP_EQ},          {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE},
        {"<", OP_LT},           {">", OP_GT},  {"in", OP_IN}, {"contains", OP_CONTAINS},
        {"matches", OP_MATCHES}};
    for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
        if (accept(ps, ops[i].tok)) {
            struct expr *b = parse_add(ps);
            if (!b) {
                expr_free(a);
                return NULL;
            }
            return bin(ops[i].op, a, b);
        }
    }
    return a;
}

static struct expr *parse_and(struct parser *ps)
{
    static const struct op_tok ops[] = {{"&&", OP_AND}, {"and", OP_AND}};
    return parse_left(ps, ops, ARRAY_SIZE(ops), parse_cmp);
}

static struct expr *parse_or(struct parser *ps)
{
    static const struct op_tok ops[] = {{"||", OP_OR}, {"or", OP_OR}};
    return parse_left(ps, ops, ARRAY_SIZE(ops), parse_and);
}

struct expr *expr_parse(const char *src, size_t *err_col, char **err_msg)
{
    struct parser ps = {src, src, NULL, 0};
    struct expr *e = parse_or(&ps);
    if (e) {
        skip_ws(&ps);
        if (*ps.p) {
            expr_free(e);
            e = NULL;
            fail(&ps, "unexpected text after expression");
        }
    }
    if (!e) {
        *err_col = ps.err_col;
        *err_msg = ps.err ? ps.err : xstrdup("syntax error");
    }
    return e;
}

/* ---- evaluation ------------------------------------------------------- */

static struct val v_bool(int b)
{
    struct val v = {VAL_BOOL, !!b, 0, NULL, STRLIST_INIT};
    return v;
}

static struct val v_num(double n)
{
    struct val v = {VAL_NUM, 0, n, NULL, STRLIST_INIT};
    return v;
}

static struct val v_unknown(const char *why)
{
    struct val v = {VAL_UNKNOWN, 0, 0, xstrdup(why ? why : "?"), STRLIST_INIT};
    return v;
}

static struct val v_str(const char *s)
{
    struct val v = {VAL_STR, 0, 0, xstrdup(s), STRLIST_INIT};
    return v;
}

static char *val_as_text(const struct val *v)
{
    if (v->t == VAL_STR)
        return xstrdup(v->s);
    if (v->t == VAL_NUM)
        return v->n == floor(v->n) && fabs(v->n) < 1e15 ? xasprintf("%.0f", v->n)
                                                        : xasprintf("%g", v->n);
    if (v->t == VAL_BOOL)
        return xstrdup(v->b ? "true" : "false");
    return xstrdup("");
}

/* equality across types: numbers compare numerically, a number and a
 * numeric string compare as numbers, everything else as text */
static int val_equal(const struct val *a, const struct val *b)
{
    if (a->t == VAL_NUM && b->t == VAL_NUM)
        return a->n == b->n;
    if (a->t == VAL_BOOL && b->t == VAL_BOOL)
        return a->b == b->b;
    char *x = val_as_text(a), *y = val_as_text(b);
    int eq = strcmp(x, y) == 0;
    if (!eq && (a->t == VAL_NUM || b->t == VAL_NUM)) {
        double dx, dy;
        if (str_parse_double(x, &dx) == 0 && str_parse_double(y, &dy) == 0)
            eq = dx == dy;
    }
    free(x);
    free(y);
    return eq;
}

static struct val eval_call(const struct expr *e, const struct expr_env *env);

struct val expr_eval(const struct expr *e, const struct expr_env *env)
{
    switch (e->k) {
    case N_NUM:
        return v_num(e->num);
    case N_BOOL:
        return v_bool(e->num != 0);
    case N_STR:
        return v_str(e->str);
    case N_LIST: {
        struct val v = {VAL_LIST, 0, 0, NULL, STRLIST_INIT};
        for (size_t i = 0; i < e->nkids; i++) {
            struct val k = expr_eval(e->kids[i], env);
            if (k.t == VAL_UNKNOWN) {
                val_release(&v);
                return k;
            }
            strlist_add_owned(&v.l, val_as_text(&k));
            val_release(&k);
        }
        return v;
    }
    case N_IDENT: {
        struct val v;
        if (env->fact(env->ctx, e->str, &v) == 0)
            return v;
        return v_unknown(e->str);
    }
    case N_CALL:
        return eval_call(e, env);
    case N_NOT: {
        struct val a = expr_eval(e->kids[0], env);
        if (a.t == VAL_UNKNOWN)
            return a;
        int b = a.t == VAL_BOOL ? !a.b : 0;
        val_release(&a);
        return v_bool(b);
    }
    case N_NEG: {
        struct val a = expr_eval(e->kids[0], env);
        if (a.t != VAL_NUM) {
            if (a.t == VAL_UNKNOWN)
                return a;
            val_release(&a);
            return v_unknown("non-numeric operand of '-'");
        }
        a.n = -a.n;
        return a;
    }
    case N_BIN:
        break;
    }

    struct val a = expr_eval(e->kids[0], env);
    if (e->op == OP_AND || e->op == OP_OR) {
        int short_val = e->op == OP_OR; /* true for ||, false for && */
        if (a.t == VAL_BOOL && a.b == short_val)
            return a;
        struct val b = expr_eval(e->kids[1], env);
        if (b.t == VAL_BOOL && b.b == short_val) {
            val_release(&a);
            return b;
        }
        if (a.t == VAL_UNKNOWN) {
            val_release(&b);
            return a;
        }
        if (b.t == VAL_UNKNOWN) {
            val_release(&a);
            return b;
        }
        int r = a.t == VAL_BOOL && b.t == VAL_BOOL ? (e->op == OP_OR ? a.b || b.b : a.b && b.b) : 0;
        val_release(&a);
        val_release(&b);
        return v_bool(r);
    }
    struct val b = expr_eval(e->kids[1], env);
    if (a.t == VAL_UNKNOWN || b.t == VAL_UNKNOWN) {
        struct val u = a.t == VAL_UNKNOWN ? a : b;
        val_release(a.t == VAL_UNKNOWN ? &b : &a);
        return u;
    }
    struct val r;
    switch (e->op) {
    case OP_EQ:
    case OP_NE: {
        int eq = val_equal(&a, &b);
        r = v_bool(e->op == OP_EQ ? eq : !eq);
        break;
    }
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE: {
        double x, y;
        int ok = 1;
        if (a.t == VAL_NUM && b.t == VAL_NUM) {
            x = a.n;
            y = b.n;
        } else if (a.t == VAL_STR && b.t == VAL_STR) {
            /* version-aware text order: "6.10" > "6.2" */
            x = strverscmp(a.s, b.s);
            y = 0;
        } else {
            ok = 0;
            x = y = 0;
        }
        if (!ok) {
            r = v_unknown("comparison of mismatched types");
            break;
        }
        int res = e->op == OP_LT   ? x < y
                  : e->op == OP_LE ? x <= y
                  : e->op == OP_GT ? x > y
                                   : x >= y;
        r = v_bool(res);
        break;
    }
    case OP_IN:
    case OP_CONTAINS: {
        struct val *hay = e->op == OP_IN ? &b : &a, *needle = e->op == OP_IN ? &a : &b;
        int found = 0;
        if (hay->t == VAL_LIST) {
            for (size_t i = 0; i < hay->l.n && !found; i++) {
                struct val item = {VAL_STR, 0, 0, hay->l.v[i], STRLIST_INIT};
                found = val_equal(&item, needle);
            }
        } else if (hay->t == VAL_STR) {
            char *t = val_as_text(needle);
            found = strstr(hay->s, t) != NULL;
            free(t);
        }
        r = v_bool(found);
        break;
    }
    case OP_MATCHES: {
        regex_t re;
        char *text = val_as_text(&a);
        if (b.t != VAL_STR || regcomp(&re, b.s, REG_EXTENDED | REG_NOSUB) != 0) {
            r = v_unknown("invalid regular expression");
        } else {
            r = v_bool(regexec(&re, text, 0, NULL, 0) == 0);
            regfree(&re);
        }
        free(text);
        break;
    }
    default: {
        if (a.t != VAL_NUM || b.t != VAL_NUM) {
            r = v_unknown("arithmetic on non-numbers");
            break;
        }
        double x = a.n, y = b.n;
        if (e->op == OP_DIV && y == 0) {
            r = v_unknown("division by zero");
            break;
        }
        r = v_num(e->op == OP_ADD   ? x + y
                  : e->op == OP_SUB ? x - y
                  : e->op == OP_MUL ? x * y
                                    : x / y);
        break;
    }
    }
    val_release(&a);
    val_release(&b);
    return r;
}

static struct val eval_call(const struct expr *e, const struct expr_env *env)
{
    if (strcmp(e->str, "known") == 0) {
        struct val a = expr_eval(e->kids[0], env);
        int k = a.t != VAL_UNKNOWN;
        val_release(&a);
        return v_bool(k);
    }
    if (strcmp(e->str, "lookup") == 0) {
        /* first argument names a table in checks.yaml's data section */
        if (e->kids[0]->k != N_IDENT)
            return v_unknown("lookup() needs a table name");
        struct val key = expr_eval(e->kids[1], env);
        if (key.t == VAL_UNKNOWN)
            return key;
        /* a list of keys: the first that the table has (most specific first,
         * e.g. [rocm.version, rocm.series]) */
        struct strlist keys = STRLIST_INIT;
        if (key.t == VAL_LIST)
            for (size_t i = 0; i < key.l.n; i++)
                strlist_add(&keys, key.l.v[i]);
        else
            strlist_add_owned(&keys, val_as_text(&key));
        val_release(&key);
        struct val out;
        int rc = -1;
        for (size_t i = 0; rc && i < keys.n; i++)
            rc = env->table ? env->table(env->ctx, e->kids[0]->str, keys.v[i], &out) : -1;
        if (rc) {
            struct strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < keys.n; i++)
                strbuf_addf(&sb, "%s%s", i ? "|" : "", keys.v[i]);
            out = v_unknown(e->kids[0]->str);
            free(out.s);
            out.s = xasprintf("%s[%s]", e->kids[0]->str, sb.buf ? sb.buf : "");
            strbuf_release(&sb);
        }
        strlist_release(&keys);
        return out;
    }
    struct val a = expr_eval(e->kids[0], env);
    if (a.t == VAL_UNKNOWN)
        return a;
    struct val r;
    if (strcmp(e->str, "len") == 0) {
        r = a.t == VAL_LIST  ? v_num((double)a.l.n)
            : a.t == VAL_STR ? v_num((double)strlen(a.s))
                             : v_unknown("len() of a non-list");
    } else if (strcmp(e->str, "lower") == 0) {
        char *t = val_as_text(&a);
        for (char *p = t; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        r = v_str(t);
        free(t);
    } else { /* count(list, regex) */
        struct val re_v = expr_eval(e->kids[1], env);
        regex_t re;
        if (a.t != VAL_LIST || re_v.t != VAL_STR ||
            regcomp(&re, re_v.s, REG_EXTENDED | REG_NOSUB) != 0) {
            r = v_unknown("count() needs a list and a regular expression");
        } else {
            size_t n = 0;
            for (size_t i = 0; i < a.l.n; i++)
                n += regexec(&re, a.l.v[i], 0, NULL, 0) == 0;
            regfree(&re);
            r = v_num((double)n);
        }
        val_release(&re_v);
    }
    val_release(&a);
    return r;
}

void expr_idents(const struct expr *e, struct strlist *out)
{
    if (!e)
        return;
    if (e->k == N_IDENT && !strlist_has(out, e->str))
        strlist_add(out, e->str);
    for (size_t i = 0; i < e->nkids; i++) {
        /* lookup()'s first argument is a table, not a fact */
        if (e->k == N_CALL && strcmp(e->str, "lookup") == 0 && i == 0)
            continue;
        expr_idents(e->kids[i], out);
    }
}
