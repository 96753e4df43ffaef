/* expr.c - parser (recursive descent) and evaluator of the rule language. */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"

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
    char *str;  /* N_STR value, N_IDENT name, N_CALL function name */
    size_t col; /* where it starts in the rule (an operator: where it stands) */
    struct expr **kids;
    size_t nkids;
    unsigned depth; /* 1 for a leaf; never above EXPR_MAX_DEPTH once parsed */
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
    unsigned nest; /* open ( [ calls and unary operators, bounded by EXPR_MAX_DEPTH */
};

static struct expr *node(enum node_kind k)
{
    struct expr *e = xcalloc(1, sizeof(*e));
    e->k = k;
    e->depth = 1;
    return e;
}

static void add_kid(struct expr *e, struct expr *kid)
{
    e->kids = xrealloc(e->kids, (e->nkids + 1) * sizeof(*e->kids));
    e->kids[e->nkids++] = kid;
    if (kid->depth + 1 > e->depth)
        e->depth = kid->depth + 1;
}

/* takes ownership of msg */
static struct expr *fail_owned(struct parser *ps, char *msg)
{
    if (!ps->err) {
        ps->err = msg;
        ps->err_col = (size_t)(ps->p - ps->src);
    } else {
        free(msg);
    }
    return NULL;
}

static struct expr *fail(struct parser *ps, const char *msg)
{
    return fail_owned(ps, xstrdup(msg));
}

static struct expr *fail_deep(struct parser *ps)
{
    return fail_owned(ps, xasprintf("rule nested deeper than %d levels", EXPR_MAX_DEPTH));
}

/* a finished compound node, or NULL (freed) when the tree got too deep:
 * this bound is what every recursive walk of the tree relies on */
static struct expr *bounded(struct parser *ps, struct expr *e)
{
    if (e->depth <= EXPR_MAX_DEPTH)
        return e;
    expr_free(e);
    return fail_deep(ps);
}

/* one more level of parser recursion; 0, or -1 after the error */
static int enter(struct parser *ps)
{
    if (ps->nest >= EXPR_MAX_DEPTH) {
        fail_deep(ps);
        return -1;
    }
    ps->nest++;
    return 0;
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
static struct expr *parse_primary_at(struct parser *ps);
static char *call_type_error(const char *fn, size_t arg, enum val_type t);

/* the functions and their number of arguments, checked at parse time so
 * that no walk of the tree ever meets a call with missing arguments */
static const struct fn_decl {
    const char *name;
    size_t nargs;
} fns[] = {{"known", 1}, {"len", 1}, {"lookup", 2}, {"lower", 1}, {"count", 2}};

static const struct fn_decl *find_fn(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(fns); i++)
        if (strcmp(name, fns[i].name) == 0)
            return &fns[i];
    return NULL;
}

/* the type of a literal argument, VAL_UNKNOWN when only evaluation knows */
static enum val_type literal_type(const struct expr *e)
{
    switch (e->k) {
    case N_NUM:
        return VAL_NUM;
    case N_STR:
        return VAL_STR;
    case N_BOOL:
        return VAL_BOOL;
    case N_LIST:
        return VAL_LIST;
    default:
        return VAL_UNKNOWN;
    }
}

/* arity and the argument kinds the text alone shows; the call e, or NULL
 * (freed) with the error at the function's name s */
static struct expr *check_call(struct parser *ps, struct expr *e, const struct fn_decl *fn,
                               const char *s)
{
    char *msg = NULL;
    const char *at = s;
    if (e->nkids != fn->nargs) {
        msg = xasprintf("%s() takes %zu argument%s, not %zu", fn->name, fn->nargs,
                        fn->nargs == 1 ? "" : "s", e->nkids);
    } else if (strcmp(fn->name, "lookup") == 0 && e->kids[0]->k != N_IDENT) {
        msg = xstrdup("lookup() needs a data table name first");
        at = ps->src + e->kids[0]->col;
    } else {
        for (size_t i = 0; i < e->nkids && !msg; i++) {
            if (strcmp(fn->name, "lookup") == 0 && i == 0)
                continue;
            msg = call_type_error(fn->name, i, literal_type(e->kids[i]));
            at = ps->src + e->kids[i]->col;
        }
    }
    if (!msg)
        return bounded(ps, e);
    expr_free(e);
    ps->p = at;
    return fail_owned(ps, msg);
}

static struct expr *parse_primary(struct parser *ps)
{
    skip_ws(ps);
    const char *p = ps->p;
    struct expr *e = parse_primary_at(ps);
    if (e && e->k != N_BIN && e->k != N_NOT && e->k != N_NEG)
        e->col = (size_t)(p - ps->src);
    return e;
}

static struct expr *parse_primary_at(struct parser *ps)
{
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
                return bounded(ps, e);
            expr_free(e);
            return fail(ps, "expected ',' or ']' in list");
        }
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        char *end;
        double v = strtod(p, &end);
        static const struct {
            const char *u;
            double m;
        } units[] = {
            {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
        ps->p = end;
        skip_ws(ps);
        for (size_t i = 0; i < ARRAY_SIZE(units); i++)
            if (accept(ps, units[i].u)) {
                v *= units[i].m;
                break;
            }
        if (!isfinite(v)) { /* 1e999, 1e300 TiB: no rule needs infinity */
            ps->p = p;
            return fail(ps, "number out of range");
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
            const struct fn_decl *fn = find_fn(name);
            if (!fn) {
                free(name);
                ps->p = s;
                return fail(ps, "unknown function");
            }
            ps->p++;
            struct expr *e = node(N_CALL);
            e->str = name;
            if (accept(ps, ")"))
                return check_call(ps, e, fn, s);
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
            return check_call(ps, e, fn, s);
        }
        struct expr *e = node(N_IDENT);
        e->str = name;
        return e;
    }
    return fail(ps, *p ? "unexpected character" : "unexpected end of expression");
}

static struct expr *parse_unary(struct parser *ps)
{
    skip_ws(ps);
    size_t col = (size_t)(ps->p - ps->src);
    enum node_kind k = N_NOT;
    if (accept(ps, "!") || accept(ps, "not") || (k = N_NEG, accept(ps, "-"))) {
        if (enter(ps))
            return NULL;
        struct expr *kid = parse_unary(ps);
        ps->nest--;
        if (!kid)
            return NULL;
        struct expr *e = node(k);
        e->col = col;
        add_kid(e, kid);
        return bounded(ps, e);
    }
    return parse_primary(ps);
}

static struct expr *bin(enum bin_op op, struct expr *a, struct expr *b, size_t col)
{
    struct expr *e = node(N_BIN);
    e->op = op;
    e->col = col;
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
        skip_ws(ps);
        size_t col = (size_t)(ps->p - ps->src);
        while (i < nops && !accept(ps, ops[i].tok))
            i++;
        if (i == nops)
            break;
        struct expr *b = next(ps);
        if (!b) {
            expr_free(a);
            return NULL;
        }
        a = bounded(ps, bin(ops[i].op, a, b, col));
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
    skip_ws(ps);
    size_t col = (size_t)(ps->p - ps->src);
    for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
        if (accept(ps, ops[i].tok)) {
            struct expr *b = parse_add(ps);
            if (!b) {
                expr_free(a);
                return NULL;
            }
            return bounded(ps, bin(ops[i].op, a, b, col));
        }
    }
    return a;
}

static struct expr *parse_and(struct parser *ps)
{
    static const struct op_tok ops[] = {{"&&", OP_AND}, {"and", OP_AND}};
    return parse_left(ps, ops, ARRAY_SIZE(ops), parse_cmp);
}

/* every nested sub-expression - ( ), [ ], a call's arguments - enters
 * here, so the descent is bounded like the tree it builds */
static struct expr *parse_or(struct parser *ps)
{
    static const struct op_tok ops[] = {{"||", OP_OR}, {"or", OP_OR}};
    if (enter(ps))
        return NULL;
    struct expr *e = parse_left(ps, ops, ARRAY_SIZE(ops), parse_and);
    ps->nest--;
    return e;
}

struct expr *expr_parse(const char *src, size_t *err_col, char **err_msg)
{
    struct parser ps = {src, src, NULL, 0, 0};
    size_t len = strnlen(src, EXPR_MAX_LEN + 1);
    if (len > EXPR_MAX_LEN) {
        *err_col = EXPR_MAX_LEN;
        *err_msg = xasprintf("rule longer than %d characters", EXPR_MAX_LEN);
        return NULL;
    }
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

/* ---- types ------------------------------------------------------------ */

const char *val_type_name(enum val_type t)
{
    switch (t) {
    case VAL_BOOL:
        return "a yes/no value";
    case VAL_NUM:
        return "a number";
    case VAL_STR:
        return "a string";
    case VAL_LIST:
        return "a list";
    case VAL_ERROR:
        return "an error";
    case VAL_UNKNOWN:
        break;
    }
    return "an unknown value";
}

static const char *const op_names[] = {[OP_OR] = "||",
                                       [OP_AND] = "&&",
                                       [OP_EQ] = "==",
                                       [OP_NE] = "!=",
                                       [OP_LT] = "<",
                                       [OP_LE] = "<=",
                                       [OP_GT] = ">",
                                       [OP_GE] = ">=",
                                       [OP_IN] = "in",
                                       [OP_CONTAINS] = "contains",
                                       [OP_MATCHES] = "matches",
                                       [OP_ADD] = "+",
                                       [OP_SUB] = "-",
                                       [OP_MUL] = "*",
                                       [OP_DIV] = "/"};

/* VAL_UNKNOWN (not known yet, or any type at load time) fits everything */
static int fits(enum val_type t, enum val_type want)
{
    return t == VAL_UNKNOWN || t == want;
}

static int scalar(enum val_type t)
{
    return t != VAL_LIST && t != VAL_ERROR;
}

/* NULL when the operand types fit the operator, else the message (owned).
 * The same rules serve expr_check() (declared types) and expr_eval()
 * (the values' types), so load time and run time never disagree. */
static char *bin_type_error(enum bin_op op, enum val_type a, enum val_type b)
{
    const char *o = op_names[op];
    switch (op) {
    case OP_OR:
    case OP_AND:
        if (!fits(a, VAL_BOOL) || !fits(b, VAL_BOOL))
            return xasprintf("'%s' needs yes/no values on both sides, not %s", o,
                             val_type_name(fits(a, VAL_BOOL) ? b : a));
        return NULL;
    case OP_EQ:
    case OP_NE:
        if (a == VAL_LIST || b == VAL_LIST)
            return xasprintf("'%s' cannot compare a list (use 'in', 'contains' or len())", o);
        if (a != VAL_UNKNOWN && b != VAL_UNKNOWN && (a == VAL_BOOL) != (b == VAL_BOOL))
            return xasprintf("'%s' compares %s with %s", o, val_type_name(a), val_type_name(b));
        return NULL;
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
        if (a == VAL_BOOL || a == VAL_LIST || b == VAL_BOOL || b == VAL_LIST ||
            (a != VAL_UNKNOWN && b != VAL_UNKNOWN && a != b))
            return xasprintf("'%s' needs two numbers or two strings, not %s and %s", o,
                             val_type_name(a), val_type_name(b));
        return NULL;
    case OP_IN:
    case OP_CONTAINS: {
        enum val_type hay = op == OP_IN ? b : a, needle = op == OP_IN ? a : b;
        if (hay != VAL_UNKNOWN && hay != VAL_LIST && hay != VAL_STR)
            return xasprintf("'%s' searches a list or a string, not %s", o, val_type_name(hay));
        if (!scalar(needle))
            return xasprintf("'%s' looks for one value, not %s", o, val_type_name(needle));
        return NULL;
    }
    case OP_MATCHES:
        if (!fits(b, VAL_STR))
            return xasprintf("'matches' needs a regular expression string, not %s",
                             val_type_name(b));
        if (a == VAL_LIST || a == VAL_BOOL)
            return xasprintf("'matches' tests a string or a number, not %s", val_type_name(a));
        return NULL;
    default:
        if (!fits(a, VAL_NUM) || !fits(b, VAL_NUM))
            return xasprintf("'%s' needs numbers, not %s", o,
                             val_type_name(fits(a, VAL_NUM) ? b : a));
        return NULL;
    }
}

static char *unary_type_error(enum node_kind k, enum val_type a)
{
    if (k == N_NOT && !fits(a, VAL_BOOL))
        return xasprintf("'!' needs a yes/no value, not %s", val_type_name(a));
    if (k == N_NEG && !fits(a, VAL_NUM))
        return xasprintf("'-' needs a number, not %s", val_type_name(a));
    return NULL;
}

/* argument types of the functions (lookup's table is checked by name) */
static char *call_type_error(const char *fn, size_t arg, enum val_type t)
{
    if (strcmp(fn, "len") == 0 && t != VAL_UNKNOWN && t != VAL_LIST && t != VAL_STR)
        return xasprintf("len() needs a list or a string, not %s", val_type_name(t));
    if (strcmp(fn, "lower") == 0 && (t == VAL_LIST || t == VAL_BOOL))
        return xasprintf("lower() needs a string, not %s", val_type_name(t));
    if (strcmp(fn, "count") == 0 && arg == 0 && !fits(t, VAL_LIST))
        return xasprintf("count() needs a list first, not %s", val_type_name(t));
    if (strcmp(fn, "count") == 0 && arg == 1 && !fits(t, VAL_STR))
        return xasprintf("count() needs a regular expression string second, not %s",
                         val_type_name(t));
    if (strcmp(fn, "lookup") == 0 && arg == 1 && t == VAL_BOOL)
        return xasprintf("lookup() needs a key (a string, a number or a list), not %s",
                         val_type_name(t));
    return NULL;
}

static enum val_type call_result(const char *fn)
{
    if (strcmp(fn, "known") == 0)
        return VAL_BOOL;
    if (strcmp(fn, "lookup") == 0)
        return VAL_LIST;
    if (strcmp(fn, "lower") == 0)
        return VAL_STR;
    return VAL_NUM; /* len, count */
}

/* ---- regular expressions ------------------------------------------------
 *
 * glibc's regcomp() expands a{n,m} into n..m copies of a, so nested counts
 * multiply ((a{255}){255} is 65025 copies) and a short pattern can take
 * gigabytes and seconds; back-references make regexec() exponential. A
 * pattern from a rule, or from a fact a rule compares with, is therefore
 * measured before it is compiled: its length, every count, and its size
 * with the counts expanded (an over-estimate: `+` counts double). */

#define RE_MAX_NEST 32

/* the count of a {n}, {n,} or {n,m} at p (just after '{'): 1 and *end set
 * past the '}', 0 when p is not a count (a literal brace), -1 (*over set)
 * when a number is above EXPR_MAX_REPEAT */
static int re_count(const char *p, const char **end, unsigned long *times)
{
    unsigned long n[2] = {0, 0};
    int have[2] = {0, 0}, i = 0;
    for (;; p++) {
        if (isdigit((unsigned char)*p)) {
            if (n[i] <= EXPR_MAX_REPEAT)
                n[i] = n[i] * 10 + (unsigned long)(*p - '0');
            have[i] = 1;
        } else if (*p == ',' && i == 0) { /* glibc reads {,m} as {0,m} */
            i = 1;
        } else if (*p == '}' && (have[0] || i == 1)) {
            break;
        } else {
            return 0;
        }
    }
    *end = p + 1;
    if (n[0] > EXPR_MAX_REPEAT || n[1] > EXPR_MAX_REPEAT)
        return -1;
    /* {n,} is n copies and a star; {n,m} m copies */
    *times = i == 0 ? n[0] : have[1] ? (n[1] > n[0] ? n[1] : n[0]) : n[0] + 1;
    if (*times == 0)
        *times = 1;
    return 1;
}

/* past a bracket expression starting at p ('['), or NULL when unclosed */
static const char *re_bracket(const char *p)
{
    p++;
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    for (; *p && *p != ']'; p++)
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            const char *close = strchr(p + 2, p[1]);
            while (close && close[1] != ']')
                close = strchr(close + 1, p[1]);
            if (!close)
                return NULL;
            p = close + 1;
        }
    return *p ? p + 1 : NULL;
}

/* NULL when the pattern is within the limits, else why not (owned) */
static char *regex_bound_error(const char *re)
{
    if (strlen(re) > EXPR_MAX_REGEX)
        return xasprintf("regular expression longer than %d characters", EXPR_MAX_REGEX);
    /* per open group: the size so far and the size of its last atom */
    unsigned long sum[RE_MAX_NEST + 1] = {0}, last[RE_MAX_NEST + 1] = {0};
    int lvl = 0;
    for (const char *p = re; *p;) {
        unsigned long atom = 1;
        const char *next = p + 1;
        switch (*p) {
        case '\\':
            if (p[1] >= '1' && p[1] <= '9')
                return xasprintf("back-reference '\\%c' in a regular expression (not supported)",
                                 p[1]);
            next = p[1] ? p + 2 : p + 1;
            break;
        case '[':
            if (!(next = re_bracket(p)))
                return NULL; /* unbalanced: regcomp() says so */
            break;
        case '(':
            if (lvl == RE_MAX_NEST)
                return xasprintf("regular expression nested deeper than %d groups", RE_MAX_NEST);
            lvl++;
            sum[lvl] = last[lvl] = 0;
            p = next;
            continue;
        case ')':
            if (lvl == 0)
                break; /* a literal ')' in an ERE */
            atom = sum[lvl] ? sum[lvl] : 1;
            lvl--;
            break;
        case '|':
            last[lvl] = 0;
            p = next;
            continue;
        case '*':
        case '?':
            p = next;
            continue;
        case '+':
            /* glibc compiles a+ as a a*, duplicating the tree of the atom:
             * the quantified unit is now twice its size, so a stacked
             * a++++... doubles each time (found by fuzz_expr: 100 '+'
             * took 4 GB and 17 s in regcomp's duplicate_tree) */
            sum[lvl] += last[lvl];
            last[lvl] *= 2;
            if (sum[lvl] > EXPR_MAX_REGEX_COST)
                return xasprintf("regular expression too large with its repetitions expanded "
                                 "(over %d)",
                                 EXPR_MAX_REGEX_COST);
            p = next;
            continue;
        case '{': {
            unsigned long times = 1;
            int rc = re_count(p + 1, &next, &times);
            if (rc < 0)
                return xasprintf("repetition count above %d in a regular expression",
                                 EXPR_MAX_REPEAT);
            if (rc == 0)
                break; /* a literal '{' */
            sum[lvl] += last[lvl] * (times - 1);
            last[lvl] *= times;
            if (sum[lvl] > EXPR_MAX_REGEX_COST)
                return xasprintf("regular expression too large with its repetitions expanded "
                                 "(over %d)",
                                 EXPR_MAX_REGEX_COST);
            p = next;
            continue;
        }
        default:
            break;
        }
        sum[lvl] += atom;
        last[lvl] = atom;
        if (sum[lvl] > EXPR_MAX_REGEX_COST)
            return xasprintf("regular expression too large with its repetitions expanded (over %d)",
                             EXPR_MAX_REGEX_COST);
        p = next;
    }
    return NULL;
}

/* the one place a rule's regular expression is compiled: 0, or -1 with
 * the message (owned) in *err */
static int rule_regcomp(regex_t *re, const char *src, char **err)
{
    if ((*err = regex_bound_error(src)) != NULL) {
        char *why = *err;
        *err = xasprintf("regular expression \"%.64s%s\" refused: %s", src,
                         strlen(src) > 64 ? "..." : "", why);
        free(why);
        return -1;
    }
    int rc = regcomp(re, src, REG_EXTENDED | REG_NOSUB);
    if (rc == 0)
        return 0;
    char buf[128];
    regerror(rc, re, buf, sizeof(buf));
    *err = xasprintf("invalid regular expression \"%s\": %s", src, buf);
    return -1;
}

static char *regex_error(const char *re_src)
{
    regex_t re;
    char *err;
    if (rule_regcomp(&re, re_src, &err))
        return err;
    regfree(&re);
    return NULL;
}

/* ---- load-time checking ----------------------------------------------- */

struct checker {
    const struct expr_typer *t;
    size_t col;
    char *msg;
};

static enum val_type check_fail(struct checker *c, size_t col, char *msg)
{
    if (!c->msg) {
        c->msg = msg;
        c->col = col;
    } else {
        free(msg);
    }
    return VAL_ERROR;
}

static enum val_type check_node(const struct expr *e, struct checker *c)
{
    switch (e->k) {
    case N_NUM:
        return VAL_NUM;
    case N_BOOL:
        return VAL_BOOL;
    case N_STR:
        return VAL_STR;
    case N_LIST:
        for (size_t i = 0; i < e->nkids; i++) {
            enum val_type k = check_node(e->kids[i], c);
            if (k == VAL_ERROR)
                return k;
            if (!scalar(k))
                return check_fail(c, e->kids[i]->col, xstrdup("a list cannot hold a list"));
        }
        return VAL_LIST;
    case N_IDENT: {
        enum val_type t = VAL_UNKNOWN;
        char *err = NULL;
        if (c->t->fact && c->t->fact(c->t->ctx, e->str, &t, &err))
            return check_fail(c, e->col, err ? err : xasprintf("unknown fact '%s'", e->str));
        return t;
    }
    case N_CALL: {
        size_t first = 0;
        if (strcmp(e->str, "lookup") == 0) {
            const struct expr *tab = e->kids[0];
            if (tab->k != N_IDENT)
                return check_fail(c, tab->col, xstrdup("lookup() needs a data table name first"));
            if (c->t->table && c->t->table(c->t->ctx, tab->str))
                return check_fail(c, tab->col,
                                  xasprintf("unknown data table '%s' (see 'data:')", tab->str));
            first = 1;
        }
        for (size_t i = first; i < e->nkids; i++) {
            enum val_type k = check_node(e->kids[i], c);
            if (k == VAL_ERROR)
                return k;
            char *msg = call_type_error(e->str, i, k);
            if (msg)
                return check_fail(c, e->kids[i]->col, msg);
            if (strcmp(e->str, "count") == 0 && i == 1 && e->kids[1]->k == N_STR &&
                (msg = regex_error(e->kids[1]->str)) != NULL)
                return check_fail(c, e->kids[1]->col, msg);
        }
        return call_result(e->str);
    }
    case N_NOT:
    case N_NEG: {
        enum val_type a = check_node(e->kids[0], c);
        if (a == VAL_ERROR)
            return a;
        char *msg = unary_type_error(e->k, a);
        if (msg)
            return check_fail(c, e->col, msg);
        return e->k == N_NOT ? VAL_BOOL : VAL_NUM;
    }
    case N_BIN:
        break;
    }
    enum val_type a = check_node(e->kids[0], c);
    if (a == VAL_ERROR)
        return a;
    enum val_type b = check_node(e->kids[1], c);
    if (b == VAL_ERROR)
        return b;
    char *msg = bin_type_error(e->op, a, b);
    if (msg)
        return check_fail(c, e->col, msg);
    if (e->op == OP_MATCHES && e->kids[1]->k == N_STR &&
        (msg = regex_error(e->kids[1]->str)) != NULL)
        return check_fail(c, e->kids[1]->col, msg);
    return e->op >= OP_ADD ? VAL_NUM : VAL_BOOL;
}

int expr_check(const struct expr *e, const struct expr_typer *t, size_t *err_col, char **err_msg)
{
    struct checker c = {t, 0, NULL};
    enum val_type r = check_node(e, &c);
    if (r != VAL_ERROR && r != VAL_BOOL && r != VAL_UNKNOWN)
        check_fail(&c, 0,
                   xasprintf("the rule is not a yes/no question (it gives %s)", val_type_name(r)));
    if (!c.msg)
        return 0;
    *err_col = c.col;
    *err_msg = c.msg;
    return -1;
}

/* ---- evaluation ------------------------------------------------------- */

static struct val v_bool(int b)
{
    struct val v = {VAL_BOOL, !!b, 0, NULL, STRLIST_INIT, 0};
    return v;
}

static struct val v_num(double n)
{
    struct val v = {VAL_NUM, 0, n, NULL, STRLIST_INIT, 0};
    return v;
}

static struct val v_unknown(const char *why)
{
    struct val v = {VAL_UNKNOWN, 0, 0, xstrdup(why ? why : "?"), STRLIST_INIT, 0};
    return v;
}

/* takes ownership of msg */
static struct val v_error(char *msg)
{
    struct val v = {VAL_ERROR, 0, 0, msg, STRLIST_INIT, 0};
    return v;
}

static struct val v_str(const char *s)
{
    struct val v = {VAL_STR, 0, 0, xstrdup(s), STRLIST_INIT, 0};
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

/* the first of two results that decides: an error beats everything, then
 * unknown; releases the other one */
static struct val pick_error_or_unknown(struct val *a, struct val *b, enum val_type t)
{
    struct val *keep = a->t == t ? a : b, *drop = keep == a ? b : a;
    val_release(drop);
    return *keep;
}

static struct val eval_call(const struct expr *e, const struct expr_env *env);

static struct val eval_bin(const struct expr *e, const struct expr_env *env);

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
        struct val v = {VAL_LIST, 0, 0, NULL, STRLIST_INIT, 0},
                   unknown = {VAL_LIST, 0, 0, NULL, STRLIST_INIT, 0};
        for (size_t i = 0; i < e->nkids; i++) {
            struct val k = expr_eval(e->kids[i], env);
            if (k.t == VAL_LIST) {
                val_release(&k);
                k = v_error(xstrdup("a list cannot hold a list"));
            }
            if (k.t == VAL_ERROR) {
                val_release(&v);
                val_release(&unknown);
                return k;
            }
            if (k.t == VAL_UNKNOWN) {
                if (unknown.t != VAL_UNKNOWN)
                    unknown = k;
                else
                    val_release(&k);
                continue;
            }
            strlist_add_owned(&v.l, val_as_text(&k));
            val_release(&k);
        }
        if (unknown.t == VAL_UNKNOWN) {
            val_release(&v);
            return unknown;
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
    case N_NOT:
    case N_NEG: {
        struct val a = expr_eval(e->kids[0], env);
        if (a.t == VAL_ERROR)
            return a;
        char *msg = unary_type_error(e->k, a.t);
        if (msg) {
            val_release(&a);
            return v_error(msg);
        }
        if (a.t == VAL_UNKNOWN)
            return a;
        if (e->k == N_NOT)
            return v_bool(!a.b);
        a.n = -a.n;
        return a;
    }
    case N_BIN:
        break;
    }
    return eval_bin(e, env);
}

static struct val eval_bin(const struct expr *e, const struct expr_env *env)
{
    /* both sides always: a type error on the side a short circuit would
     * skip is still a broken rule, whatever the machine's facts */
    struct val a = expr_eval(e->kids[0], env);
    struct val b = expr_eval(e->kids[1], env);
    if (a.t == VAL_ERROR || b.t == VAL_ERROR)
        return pick_error_or_unknown(&a, &b, VAL_ERROR);
    char *msg = bin_type_error(e->op, a.t, b.t);
    if (msg) {
        val_release(&a);
        val_release(&b);
        return v_error(msg);
    }
    if (e->op == OP_AND || e->op == OP_OR) {
        int short_val = e->op == OP_OR; /* true for ||, false for && */
        if ((a.t == VAL_BOOL && a.b == short_val) || (b.t == VAL_BOOL && b.b == short_val)) {
            val_release(&a);
            val_release(&b);
            return v_bool(short_val);
        }
        if (a.t == VAL_UNKNOWN || b.t == VAL_UNKNOWN)
            return pick_error_or_unknown(&a, &b, VAL_UNKNOWN);
        return v_bool(!short_val);
    }
    if (a.t == VAL_UNKNOWN || b.t == VAL_UNKNOWN)
        return pick_error_or_unknown(&a, &b, VAL_UNKNOWN);
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
        double x = a.n, y = b.n;
        if (a.t == VAL_STR) {
            /* version-aware text order: "6.10" > "6.2" */
            x = strverscmp(a.s, b.s);
            y = 0;
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
                struct val item = {VAL_STR, 0, 0, hay->l.v[i], STRLIST_INIT, 0};
                found = val_equal(&item, needle);
            }
            if (!found && hay->more) { /* it may be among the items not kept */
                r = v_unknown(e->kids[e->op == OP_IN ? 1 : 0]->str);
                break;
            }
        } else {
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
        char *err;
        if (rule_regcomp(&re, b.s, &err)) {
            r = v_error(err);
        } else {
            r = v_bool(regexec(&re, text, 0, NULL, 0) == 0);
            regfree(&re);
        }
        free(text);
        break;
    }
    default: {
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

static struct val eval_lookup(const struct expr *e, const struct expr_env *env)
{
    /* first argument names a table in checks.yaml's data section */
    if (e->kids[0]->k != N_IDENT)
        return v_error(xstrdup("lookup() needs a data table name first"));
    struct val key = expr_eval(e->kids[1], env);
    char *msg = key.t == VAL_ERROR ? NULL : call_type_error("lookup", 1, key.t);
    if (msg) {
        val_release(&key);
        return v_error(msg);
    }
    if (key.t == VAL_UNKNOWN || key.t == VAL_ERROR)
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

static struct val eval_call(const struct expr *e, const struct expr_env *env)
{
    if (strcmp(e->str, "lookup") == 0)
        return eval_lookup(e, env);
    struct val args[2];
    size_t n = e->nkids;
    for (size_t i = 0; i < n; i++)
        args[i] = expr_eval(e->kids[i], env);
    struct val r = {VAL_UNKNOWN, 0, 0, NULL, STRLIST_INIT, 0};
    int decided = 0;
    /* errors first, then type errors of the known arguments, then unknown */
    for (size_t i = 0; i < n && !decided; i++)
        if (args[i].t == VAL_ERROR) {
            r = args[i];
            args[i].s = NULL;
            decided = 1;
        }
    for (size_t i = 0; i < n && !decided; i++) {
        char *msg = call_type_error(e->str, i, args[i].t);
        if (msg) {
            r = v_error(msg);
            decided = 1;
        }
    }
    if (!decided && strcmp(e->str, "known") == 0) {
        r = v_bool(args[0].t != VAL_UNKNOWN);
        decided = 1;
    }
    for (size_t i = 0; i < n && !decided; i++)
        if (args[i].t == VAL_UNKNOWN) {
            r = args[i];
            args[i].s = NULL;
            decided = 1;
        }
    if (!decided) {
        struct val *a = &args[0];
        if (strcmp(e->str, "len") == 0) {
            r = v_num(a->t == VAL_LIST ? (double)(a->l.n + a->more) : (double)strlen(a->s));
        } else if (strcmp(e->str, "lower") == 0) {
            char *t = val_as_text(a);
            for (char *p = t; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            r = v_str(t);
            free(t);
        } else { /* count(list, regex) */
            regex_t re;
            char *err;
            if (a->more) { /* the items not kept may match */
                r = v_unknown(e->kids[0]->str);
            } else if (rule_regcomp(&re, args[1].s, &err)) {
                r = v_error(err);
            } else {
                size_t c = 0;
                for (size_t i = 0; i < a->l.n; i++)
                    c += regexec(&re, a->l.v[i], 0, NULL, 0) == 0;
                regfree(&re);
                r = v_num((double)c);
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        val_release(&args[i]);
    return r;
}

static void idents(const struct expr *e, struct strlist *out, struct strset *seen)
{
    if (!e)
        return;
    if (e->k == N_IDENT)
        strlist_add_unique(out, seen, e->str);
    for (size_t i = 0; i < e->nkids; i++) {
        /* lookup()'s first argument is a table, not a fact */
        if (e->k == N_CALL && strcmp(e->str, "lookup") == 0 && i == 0)
            continue;
        idents(e->kids[i], out, seen);
    }
}

void expr_idents(const struct expr *e, struct strlist *out)
{
    /* a rule of EXPR_MAX_LEN bytes names a thousand facts: a set, not a
     * search of out per name */
    struct strset seen = STRSET_INIT;
    strset_add_list(&seen, out);
    idents(e, out, &seen);
    strset_release(&seen);
}
