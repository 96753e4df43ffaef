/* test_expr.c - the rule language: parsing, three-valued logic, units, and
 * type errors (at evaluation and at load time through expr_check()). */
/* layers: core */
#include "../../src/core/expr.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static int fact_cb(void *ctx, const char *name, struct val *out)
{
    (void)ctx;
    memset(out, 0, sizeof(*out));
    if (strcmp(name, "vram") == 0) {
        out->t = VAL_NUM;
        out->n = 8.0 * 1073741824.0;
    } else if (strcmp(name, "gfx") == 0) {
        out->t = VAL_STR;
        out->s = strdup("gfx1100");
    } else if (strcmp(name, "groups") == 0) {
        out->t = VAL_LIST;
        strlist_add(&out->l, "video");
        strlist_add(&out->l, "render");
    } else if (strcmp(name, "unk") == 0) {
        out->t = VAL_UNKNOWN;
        out->s = strdup("unk");
    } else if (strcmp(name, "yes") == 0) {
        out->t = VAL_BOOL;
        out->b = 1;
    } else if (strcmp(name, "ver") == 0) {
        out->t = VAL_STR;
        out->s = strdup("6.10");
    } else if (strcmp(name, "seven") == 0) { /* boundaries below */
        out->t = VAL_NUM;
        out->n = 7;
    } else if (strcmp(name, "half") == 0) {
        out->t = VAL_NUM;
        out->n = 0.5;
    } else if (strcmp(name, "word") == 0) {
        out->t = VAL_STR;
        out->s = strdup("abc");
    } else if (strcmp(name, "none") == 0) {
        out->t = VAL_LIST;
    } else if (strcmp(name, "capped") == 0) { /* a list fact past FACT_LIST_MAX */
        out->t = VAL_LIST;
        strlist_add(&out->l, "video");
        out->more = 300;                   /* items the fact layer did not keep */
    } else if (strcmp(name, "pat") == 0) { /* a hostile pattern from the machine */
        out->t = VAL_STR;
        out->s = strdup("(x{200}){200}");
    } else if (strcmp(name, "pats") == 0) {
        out->t = VAL_LIST;
        strlist_add(&out->l, "(x{200}){200}");
    } else {
        return -1;
    }
    return 0;
}

static int table_cb(void *ctx, const char *t, const char *k, struct val *out)
{
    (void)ctx;
    if (strcmp(t, "tab") || strcmp(k, "6.2"))
        return -1;
    memset(out, 0, sizeof(*out));
    out->t = VAL_LIST;
    strlist_add(&out->l, "gfx1100");
    return 0;
}

/* 1 true, 0 false, -1 unknown, -2 parse error, -3 type error, -4 not a
 * yes/no value */
static int ev(const char *src)
{
    size_t col;
    char *msg;
    struct expr *e = expr_parse(src, &col, &msg);
    if (!e) {
        free(msg);
        return -2;
    }
    struct expr_env env = {fact_cb, table_cb, NULL};
    struct val v = expr_eval(e, &env);
    int r = v.t == VAL_BOOL ? v.b : v.t == VAL_UNKNOWN ? -1 : v.t == VAL_ERROR ? -3 : -4;
    val_release(&v);
    expr_free(e);
    return r;
}

/* declared types for expr_check(): "anything" is declared without a type */
static int type_cb(void *ctx, const char *name, enum val_type *type, char **err)
{
    (void)ctx;
    static const struct {
        const char *name;
        enum val_type t;
    } decl[] = {{"vram", VAL_NUM}, {"gfx", VAL_STR},  {"groups", VAL_LIST},      {"unk", VAL_NUM},
                {"ver", VAL_STR},  {"yes", VAL_BOOL}, {"anything", VAL_UNKNOWN}, {"pat", VAL_STR}};
    for (size_t i = 0; i < sizeof(decl) / sizeof(decl[0]); i++)
        if (strcmp(name, decl[i].name) == 0) {
            *type = decl[i].t;
            return 0;
        }
    size_t n = strlen(name) + 32;
    *err = malloc(n);
    snprintf(*err, n, "no such fact %s", name);
    return -1;
}

static int tab_cb(void *ctx, const char *t)
{
    (void)ctx;
    return strcmp(t, "tab") == 0 ? 0 : -1;
}

/* expr_check(): the error column, 0 with want == NULL when it passes, -1 on
 * a mismatch (reported) */
static long chk(const char *src, const char *want)
{
    size_t col = 0;
    char *msg = NULL;
    struct expr *e = expr_parse(src, &col, &msg);
    if (!e) {
        fprintf(stderr, "parse error in %s: %s\n", src, msg);
        free(msg);
        return -1;
    }
    struct expr_typer t = {type_cb, tab_cb, NULL};
    int rc = expr_check(e, &t, &col, &msg);
    expr_free(e);
    if (rc == 0)
        return want ? (fprintf(stderr, "%s: no error, want '%s'\n", src, want), -1) : 0;
    long r = want && strstr(msg, want) ? (long)col : -1;
    if (r < 0)
        fprintf(stderr, "%s: error '%s' at %zu, want '%s'\n", src, msg, col, want ? want : "none");
    free(msg);
    return r;
}

/* expr_parse(): the error column when it fails with a message containing
 * want, -1 otherwise (reported) */
static long perr(const char *src, const char *want)
{
    size_t col = 0;
    char *msg = NULL;
    struct expr *e = expr_parse(src, &col, &msg);
    if (e) {
        fprintf(stderr, "%.60s: parsed, want '%s'\n", src, want);
        expr_free(e);
        return -1;
    }
    long r = strstr(msg, want) ? (long)col : -1;
    if (r < 0)
        fprintf(stderr, "%.60s: error '%s', want '%s'\n", src, msg, want);
    free(msg);
    return r;
}

/* pre, then mid n times, then post (owned) */
static char *rep3(const char *pre, const char *mid, size_t n, const char *post)
{
    size_t lp = strlen(pre), lm = strlen(mid), lq = strlen(post);
    char *s = malloc(lp + lm * n + lq + 1), *p = s;
    memcpy(p, pre, lp);
    p += lp;
    for (size_t i = 0; i < n; i++, p += lm)
        memcpy(p, mid, lm);
    memcpy(p, post, lq + 1);
    return s;
}

/* nesting n deep of open ... x ... close parses (1) or fails as too deep (0) */
static int nests(const char *open, const char *x, const char *close, size_t n)
{
    char *a = rep3("", open, n, x), *src = rep3(a, close, n, "");
    size_t col;
    char *msg = NULL;
    struct expr *e = expr_parse(src, &col, &msg);
    int r = e                                                         ? 1
            : msg && strstr(msg, "rule nested deeper than 64 levels") ? 0
            : msg && strstr(msg, "rule longer than 4096 characters")  ? 2
                                                                      : -1;
    if (r < 0)
        fprintf(stderr, "%.40s x%zu: %s\n", open, n, msg);
    expr_free(e);
    free(msg);
    free(a);
    free(src);
    return r;
}

/* a flat chain x op x op ... x of n operands */
static int chain(const char *x, const char *op, size_t n)
{
    char *mid = rep3(op, x, 1, ""), *src = rep3(x, mid, n - 1, "");
    size_t col;
    char *msg = NULL;
    struct expr *e = expr_parse(src, &col, &msg);
    int r = e                                               ? 1
            : msg && strstr(msg, "rule nested deeper than") ? 0
            : msg && strstr(msg, "rule longer than")        ? 2
                                                            : -1;
    expr_free(e);
    free(msg);
    free(mid);
    free(src);
    return r;
}

static void test_hostile(void)
{
    /* every function's arity at parse time, no arguments included (these
     * crashed at evaluation or at load time) */
    CHECK(perr("len() > 0", "len() takes 1 argument, not 0") == 0);
    CHECK(perr("lower() == \"a\"", "lower() takes 1 argument, not 0") == 0);
    CHECK(perr("count() > 0", "count() takes 2 arguments, not 0") == 0);
    CHECK(perr("true && known()", "known() takes 1 argument, not 0") == 8);
    CHECK(perr("gfx in lookup()", "lookup() takes 2 arguments, not 0") == 7);
    CHECK(perr("len(gfx, gfx) > 0", "len() takes 1 argument, not 2") == 0);
    CHECK(perr("count(groups) > 0", "count() takes 2 arguments, not 1") == 0);
    CHECK(perr("gfx in lookup(tab)", "lookup() takes 2 arguments, not 1") == 7);
    CHECK(perr("known(a, b, c)", "known() takes 1 argument, not 3") == 0);
    /* argument kinds the text shows */
    CHECK(perr("len(3) > 0", "len() needs a list or a string, not a number") == 4);
    CHECK(perr("count([\"a\"], [\"b\"]) > 0", "count() needs a regular expression") == 13);
    CHECK(perr("lower(true) == \"a\"", "lower() needs a string, not a yes/no value") == 6);

    /* depth: every way of nesting, far past the bound, fails cleanly (the
     * parser, the checker, the evaluator and the free are recursive) */
    CHECK(nests("(", "true", ")", 60) == 1);
    CHECK(nests("(", "true", ")", 2000) == 0);
    CHECK(nests("!", "true", "", 4000) == 0);
    CHECK(nests("not ", "true", "", 1000) == 0);
    CHECK(nests("-", "1 > 0", "", 4000) == 0);
    CHECK(nests("[", "1", "]", 2000) == 0);
    CHECK(nests("len(", "gfx", ")", 800) == 0);
    CHECK(nests("lookup(tab, ", "gfx", ")", 300) == 0);
    /* and far past the length bound, which is checked first */
    CHECK(nests("(", "true", ")", 100000) == 2);
    CHECK(nests("!", "true", "", 100000) == 2);
    CHECK(nests("(", "true", ")", 65) == 0);
    CHECK(nests("!", "true", "", 63) == 1);
    /* flat chains are left-deep trees: bounded too, whatever the operator */
    CHECK(chain("vram", " + ", 60) == 1);
    CHECK(chain("a", "+", 2000) == 0);
    CHECK(chain("a", " && ", 800) == 0);
    CHECK(chain("a", "||", 1000) == 0);
    CHECK(chain("1", "*", 2000) == 0);
    CHECK(chain("1", "-", 2000) == 0);
    CHECK(chain("a", "+", 100000) == 2);
    {
        /* a deep tree within the bound evaluates and type-checks */
        char *src = rep3("vram", " + 1", 60, " > 0");
        CHECK(ev(src) == 1);
        CHECK(chk(src, NULL) == 0);
        free(src);
        char *a = rep3("", "!(", 30, "yes"), *b = rep3(a, ")", 30, "");
        CHECK(ev(b) == 1);
        CHECK(chk(b, NULL) == 0);
        free(a);
        free(b);
    }
    /* length */
    {
        char *src = rep3("gfx == \"", "x", 5000, "\"");
        CHECK(perr(src, "rule longer than 4096 characters") == 4096);
        free(src);
    }
    /* numbers: no infinity */
    CHECK(perr("vram < 1e999", "number out of range") == 7);
    CHECK(perr("vram < 1e300 TiB", "number out of range") == 7);
    CHECK(ev("vram < 1e300") == 1);
    /* unary minus negates: -2 is below 0, and 3 - -2 is 5 */
    CHECK(ev("-2 < 0") == 1);
    CHECK(ev("3 - -2 == 5") == 1);

    /* regular expressions: measured before regcomp, at load time with the
     * rule's column and at evaluation for patterns that come from facts */
    CHECK(chk("gfx matches \"^gfx[0-9]{3,4}$\"", NULL) == 0);
    CHECK(chk("gfx matches \"([ab]{0,63}){8}c\"", NULL) == 0);         /* 505 atoms */
    CHECK(chk("gfx matches \"([ab]{0,64}){8}c\"", "too large") == 12); /* 513 */
    CHECK(chk("gfx matches \"(a{255}){255}\"", "too large with its repetitions expanded") == 12);
    CHECK(chk("gfx matches \"((((a{16}){16}){16}){16})\"", "too large") == 12);
    CHECK(chk("gfx matches \"a{1000}\"", "repetition count above 255") == 12);
    CHECK(chk("gfx matches \"a{1,99999999999999999999}\"", "repetition count above 255") == 12);
    CHECK(chk("gfx matches \"(a*)*\\\\1\"", "back-reference") == 12);
    CHECK(chk("count(groups, \"(x{100}){100}\") > 0", "too large") == 14);
    CHECK(chk("gfx matches \"[{]{99}(a|b){50}\"", NULL) == 0); /* '{' in brackets is literal */
    CHECK(chk("gfx matches \"^a{,5}$\"", NULL) == 0);
    CHECK(chk("gfx matches \"(a{,200}){,200}\"", "too large") == 12); /* {,m} is {0,m} */
    {
        char *src = rep3("gfx matches \"", "a", 300, "\"");
        CHECK(chk(src, "longer than 256 characters") == 12);
        free(src);
        src = rep3("gfx matches \"", "(", 40, "a");
        char *full = rep3(src, ")", 40, "\"");
        CHECK(chk(full, "nested deeper than 32 groups") == 12);
        free(src);
        free(full);
        src = rep3("gfx matches \"", "a+", 120, "\"");
        CHECK(chk(src, NULL) == 0);
        free(src);
        /* stacked '+': glibc duplicates the quantified tree each time (a++++
         * doubles), found by fuzz_expr as 4 GB in regcomp */
        src = rep3("gfx matches \"x", "+", 40, "\"");
        CHECK(chk(src, "too large") == 12);
        free(src);
        CHECK(chk("gfx matches \"a++\"", NULL) == 0);
    }
    CHECK(ev("gfx matches pat") == -3); /* the pattern came from a fact */
    CHECK(ev("count(groups, pat) > 0") == -3);
    CHECK(ev("\"aaa\" matches \"^a{3}$\"") == 1);
    CHECK(chk("gfx matches pat", NULL) == 0); /* only evaluation sees the fact */
}

/* every operator at its boundary: the value at it, just below and just
 * above, on integers, floats and strings (1 true, 0 false, -1 unknown), so
 * that a '<' that became '<=' or a boundary moved by one is seen */
static void test_boundaries(void)
{
    static const struct {
        const char *src;
        int want;
    } cases[] = {
        /* integers: seven is 7 */
        {"seven < 7", 0},
        {"seven < 8", 1},
        {"seven < 6", 0},
        {"seven <= 7", 1},
        {"seven <= 8", 1},
        {"seven <= 6", 0},
        {"seven > 7", 0},
        {"seven > 6", 1},
        {"seven > 8", 0},
        {"seven >= 7", 1},
        {"seven >= 6", 1},
        {"seven >= 8", 0},
        {"seven == 7", 1},
        {"seven == 6", 0},
        {"seven == 8", 0},
        {"seven != 7", 0},
        {"seven != 6", 1},
        {"seven != 8", 1},
        /* floats: half is 0.5; one part in 10^7 either side */
        {"half < 0.5", 0},
        {"half < 0.5000001", 1},
        {"half < 0.4999999", 0},
        {"half <= 0.5", 1},
        {"half <= 0.5000001", 1},
        {"half <= 0.4999999", 0},
        {"half > 0.5", 0},
        {"half > 0.4999999", 1},
        {"half > 0.5000001", 0},
        {"half >= 0.5", 1},
        {"half >= 0.4999999", 1},
        {"half >= 0.5000001", 0},
        {"half == 0.5", 1},
        {"half == 0.4999999", 0},
        {"half == 0.5000001", 0},
        {"half != 0.5", 0},
        {"half != 0.4999999", 1},
        {"half != 0.5000001", 1},
        /* strings in version order: ver is "6.10", between "6.9" and "6.11" */
        {"ver < \"6.10\"", 0},
        {"ver < \"6.11\"", 1},
        {"ver < \"6.9\"", 0},
        {"ver <= \"6.10\"", 1},
        {"ver <= \"6.11\"", 1},
        {"ver <= \"6.9\"", 0},
        {"ver > \"6.10\"", 0},
        {"ver > \"6.9\"", 1},
        {"ver > \"6.11\"", 0},
        {"ver >= \"6.10\"", 1},
        {"ver >= \"6.9\"", 1},
        {"ver >= \"6.11\"", 0},
        {"ver == \"6.10\"", 1},
        {"ver == \"6.9\"", 0},
        {"ver == \"6.11\"", 0},
        {"ver != \"6.10\"", 0},
        {"ver != \"6.9\"", 1},
        {"ver != \"6.11\"", 1},
        /* and letters: word is "abc", between "abb" and "abd" */
        {"word < \"abc\"", 0},
        {"word < \"abd\"", 1},
        {"word < \"abb\"", 0},
        {"word <= \"abc\"", 1},
        {"word <= \"abb\"", 0},
        {"word > \"abc\"", 0},
        {"word > \"abb\"", 1},
        {"word > \"abd\"", 0},
        {"word >= \"abc\"", 1},
        {"word >= \"abd\"", 0},
        {"word == \"abc\"", 1},
        {"word == \"ab\"", 0},
        {"word == \"abcd\"", 0},
        {"word != \"abc\"", 0},
        {"word != \"abcd\"", 1},
        /* && || ! over true, false and unknown: the three-valued tables */
        {"true && true", 1},
        {"true && false", 0},
        {"false && true", 0},
        {"false && false", 0},
        {"true && unk > 0", -1},
        {"unk > 0 && true", -1},
        {"false && unk > 0", 0},
        {"unk > 0 && false", 0},
        {"unk > 0 && unk > 0", -1},
        {"true || true", 1},
        {"true || false", 1},
        {"false || true", 1},
        {"false || false", 0},
        {"false || unk > 0", -1},
        {"unk > 0 || false", -1},
        {"true || unk > 0", 1},
        {"unk > 0 || true", 1},
        {"unk > 0 || unk > 0", -1},
        {"!true", 0},
        {"!false", 1},
        {"!(unk > 0)", -1},
        {"!!true", 1},
        /* in / contains: an element is all of it, a string a substring */
        {"\"render\" in groups", 1},
        {"\"rende\" in groups", 0},
        {"\"renders\" in groups", 0},
        {"\"gfx1100\" in gfx", 1},
        {"\"fx110\" in gfx", 1},
        {"\"gfx11000\" in gfx", 0},
        {"groups contains \"video\"", 1},
        {"groups contains \"vide\"", 0},
        {"groups contains \"videos\"", 0},
        {"gfx contains \"gfx1100\"", 1},
        {"gfx contains \"1100\"", 1},
        {"gfx contains \"gfx11000\"", 0},
        {"\"x\" in none", 0},
        {"none contains \"x\"", 0},
        {"unk in groups", -1},
        {"groups contains unk", -1},
        {"\"x\" in unk", -1},
        /* a capped list: an item not kept may be the one asked for */
        {"\"video\" in capped", 1},
        {"\"wheel\" in capped", -1},
        {"capped contains \"video\"", 1},
        {"capped contains \"wheel\"", -1},
        {"len(capped) == 301", 1},
        {"count(capped, \"^v\") > 0", -1},
        /* len: lists and strings, at, below and above their length */
        {"len(groups) == 2", 1},
        {"len(groups) < 2", 0},
        {"len(groups) <= 2", 1},
        {"len(groups) > 1", 1},
        {"len(groups) > 2", 0},
        {"len(groups) >= 3", 0},
        {"len(none) == 0", 1},
        {"len(none) > 0", 0},
        {"len(gfx) == 7", 1},
        {"len(gfx) < 7", 0},
        {"len(gfx) > 6", 1},
        {"len(unk) > 0", -1},
        /* known: never unknown itself, and the guard that decides with unknown */
        {"known(unk)", 0},
        {"known(seven)", 1},
        {"known(missing)", 0},
        {"!known(unk)", 1},
        {"known(unk) && unk > 0", 0},
        {"!known(unk) || unk > 0", 1},
        /* unknown propagates through every comparison and arithmetic */
        {"unk < 7", -1},
        {"unk <= 7", -1},
        {"unk > 7", -1},
        {"unk >= 7", -1},
        {"unk == 7", -1},
        {"unk != 7", -1},
        {"unk + 1 > 0", -1},
        {"seven - unk < 0", -1},
        {"missing < 7", -1},
        {"unk == \"abc\"", -1},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        int got = ev(cases[i].src);
        CHECK(got == cases[i].want);
        if (got != cases[i].want)
            fprintf(stderr, "  %s: got %d, want %d\n", cases[i].src, got, cases[i].want);
    }
}

int main(void)
{
    test_boundaries();
    test_hostile();
    CHECK(ev("vram < 12 GiB") == 1);
    CHECK(ev("vram >= 8 GiB") == 1);
    CHECK(ev("vram < 8 GiB") == 0);
    CHECK(ev("gfx == \"gfx1100\"") == 1);
    CHECK(ev("gfx in [gfx1100, \"gfx942\"]") == -1); /* bare words are facts: unknown */
    CHECK(ev("gfx in [\"gfx1100\", \"gfx942\"]") == 1);
    CHECK(ev("\"render\" in groups") == 1);
    CHECK(ev("groups contains \"wheel\"") == 0);
    CHECK(ev("len(groups) == 2") == 1);
    CHECK(ev("unk > 3") == -1);
    CHECK(ev("false && unk > 3") == 0);
    CHECK(ev("true || unk > 3") == 1);
    CHECK(ev("!(unk > 3)") == -1);
    CHECK(ev("known(unk)") == 0);
    CHECK(ev("known(vram)") == 1);
    CHECK(ev("missing == 1") == -1);
    CHECK(ev("gfx in lookup(tab, \"6.2\")") == 1);
    CHECK(ev("gfx in lookup(tab, \"9.9\")") == -1);
    CHECK(ev("gfx in lookup(tab, [\"6.2.1\", \"6.2\"])") == 1); /* first key the table has */
    CHECK(ev("gfx in lookup(tab, [\"9.9.9\", \"9.9\"])") == -1);
    CHECK(ev("gfx in lookup(tab, [\"6.2\", \"9.9\"])") == 1); /* not only the last key */
    CHECK(ev("ver > \"6.2\"") == 1);                          /* version order, not text order */
    CHECK(ev("gfx matches \"^gfx11\"") == 1);
    CHECK(ev("count(groups, \"^re\") == 1") == 1);
    CHECK(ev("2 * 3 + 1 == 7") == 1);
    CHECK(ev("vram < ") == -2);
    CHECK(ev("vram <<< 3") == -2);
    CHECK(ev("nosuchfn(vram)") == -2);
    CHECK(ev("(vram > 1") == -2);
    CHECK(ev("\"unterminated") == -2);
    CHECK(ev("vram / 0 > 1") == -1);

    /* type errors: every operator and function on the wrong type is an
     * error, never false (which would let a fail rule pass) */
    CHECK(ev("!vram") == -3);
    CHECK(ev("!gfx") == -3);
    CHECK(ev("!groups") == -3);
    CHECK(ev("not vram") == -3);
    CHECK(ev("!yes") == 0);
    CHECK(ev("-gfx < 0") == -3);
    CHECK(ev("vram && true") == -3);
    CHECK(ev("true && gfx") == -3);
    CHECK(ev("groups || false") == -3);
    CHECK(ev("false || vram") == -3);
    CHECK(ev("yes and true") == 1);
    CHECK(ev("vram contains 1") == -3);
    CHECK(ev("1 in vram") == -3);
    CHECK(ev("yes contains \"t\"") == -3);
    CHECK(ev("groups in groups") == -3); /* a list is not one value */
    CHECK(ev("gfx contains \"1100\"") == 1);
    CHECK(ev("groups == \"video\"") == -3);
    CHECK(ev("groups != groups") == -3);
    CHECK(ev("yes == \"true\"") == -3);
    CHECK(ev("yes == 1") == -3);
    CHECK(ev("yes == true") == 1);
    CHECK(ev("vram == \"8589934592\"") == 1); /* a number and a numeric string */
    /* spelt otherwise than the number prints: still compared as numbers */
    CHECK(ev("seven == \"7.0\"") == 1);
    CHECK(ev("half != \"0.50\"") == 0);
    CHECK(ev("seven == \"7.5\"") == 0);
    CHECK(ev("gfx < 3") == -3);
    CHECK(ev("yes <= true") == -3);
    CHECK(ev("groups > 1") == -3);
    CHECK(ev("vram >= gfx") == -3);
    CHECK(ev("groups matches \"video\"") == -3);
    CHECK(ev("yes matches \"t\"") == -3);
    CHECK(ev("gfx matches 3") == -3);
    CHECK(ev("gfx matches \"[\"") == -3); /* an invalid regular expression */
    CHECK(ev("gfx + 1 > 0") == -3);
    CHECK(ev("vram - yes > 0") == -3);
    CHECK(ev("groups * 2 > 0") == -3);
    CHECK(ev("vram / gfx > 0") == -3);
    CHECK(ev("len(vram) > 0") == -3);
    CHECK(ev("len(yes) > 0") == -3);
    CHECK(ev("len(gfx) == 7") == 1);
    CHECK(ev("lower(groups) == \"x\"") == -3);
    CHECK(ev("lower(yes) == \"true\"") == -3);
    CHECK(ev("count(gfx, \"x\") > 0") == -3);
    CHECK(ev("count(groups, 3) > 0") == -2); /* literal arguments: a parse error */
    CHECK(ev("count(groups, \"(\") > 0") == -3);
    CHECK(ev("gfx in lookup(tab, yes)") == -3);
    CHECK(ev("gfx in lookup(\"tab\", \"6.2\")") == -2); /* a table name, not a string */
    CHECK(ev("gfx in [groups]") == -3);
    CHECK(ev("vram") == -4); /* not a yes/no question: the engine's error */
    /* an error beats unknown and both short circuits */
    CHECK(ev("false && !vram") == -3);
    CHECK(ev("true || !vram") == -3);
    CHECK(ev("!vram && false") == -3);
    CHECK(ev("unk > 3 && !vram") == -3);
    CHECK(ev("!vram || unk > 3") == -3);
    CHECK(ev("known(!vram)") == -3);
    CHECK(ev("!vram == true") == -3);
    /* type errors involving an unknown value: the known side decides */
    CHECK(ev("unk in 3") == -3);
    CHECK(ev("!unk") == -1);
    CHECK(ev("unk contains \"x\"") == -1);
    CHECK(ev("[unk, \"a\"] contains \"a\"") == -1);

    size_t col;
    char *msg;
    CHECK(expr_parse("a && && b", &col, &msg) == NULL);
    CHECK(col == 5);
    free(msg);

    /* load time: declared types, unknown names and tables, with columns */
    CHECK(chk("vram < 12 GiB && gfx in lookup(tab, ver)", NULL) == 0);
    CHECK(chk("!vram", "'!' needs a yes/no value, not a number") == 0);
    CHECK(chk("!anything", NULL) == 0); /* undeclared type: checked at evaluation */
    CHECK(chk("gfx  && true", "'&&' needs yes/no values on both sides, not a string") == 5);
    CHECK(chk("true || groups", "'||' needs yes/no values on both sides, not a list") == 5);
    CHECK(chk("vram contains 1", "'contains' searches a list or a string, not a number") == 5);
    CHECK(chk("1 in vram", "'in' searches a list or a string, not a number") == 2);
    CHECK(chk("groups == \"a\"", "'==' cannot compare a list") == 7);
    CHECK(chk("yes != \"a\"", "'!=' compares a yes/no value with a string") == 4);
    CHECK(chk("gfx >= 1", "'>=' needs two numbers or two strings, not a string and a number") == 4);
    CHECK(chk("gfx matches 1", "'matches' needs a regular expression string, not a number") == 4);
    CHECK(chk("gfx matches \"(\"", "invalid regular expression \"(\"") == 12);
    CHECK(chk("groups matches \"a\"", "'matches' tests a string or a number, not a list") == 7);
    CHECK(chk("gfx * 2 > 1", "'*' needs numbers, not a string") == 4);
    CHECK(chk("-gfx > 1", "'-' needs a number, not a string") == 0);
    CHECK(chk("len(vram) > 1", "len() needs a list or a string, not a number") == 4);
    CHECK(chk("lower(groups) == \"a\"", "lower() needs a string, not a list") == 6);
    CHECK(chk("count(gfx, \"a\") > 1", "count() needs a list first, not a string") == 6);
    CHECK(perr("count(groups, 1) > 1", "count() needs a regular expression string second") == 14);
    CHECK(chk("count(groups, \"[\") > 1", "invalid regular expression") == 14);
    CHECK(chk("gfx in lookup(tab, yes)", "lookup() needs a key") == 19);
    CHECK(chk("gfx in lookup(nosuch, ver)", "unknown data table 'nosuch'") == 14);
    CHECK(perr("gfx in lookup(\"tab\", ver)", "lookup() needs a data table name first") == 14);
    CHECK(chk("gfx in [groups]", "a list cannot hold a list") == 8);
    CHECK(chk("vram + 1", "the rule is not a yes/no question (it gives a number)") == 0);
    CHECK(chk("gfx", "the rule is not a yes/no question (it gives a string)") == 0);
    CHECK(chk("vram > 1 && gpu.cuont == 0", "no such fact gpu.cuont") == 12);
    CHECK(chk("known(gpu.cuont)", "no such fact gpu.cuont") == 6);
    /* an error on the side a short circuit skips is still an error */
    CHECK(chk("false && !vram", "'!' needs a yes/no value") == 9);
    return test_report();
}
