/* test_expr.c - the rule language: parsing, three-valued logic, units, and
 * type errors (at evaluation and at load time through expr_check()). */
#include "../../src/expr.h"
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
    } decl[] = {{"vram", VAL_NUM}, {"gfx", VAL_STR},  {"groups", VAL_LIST},     {"unk", VAL_NUM},
                {"ver", VAL_STR},  {"yes", VAL_BOOL}, {"anything", VAL_UNKNOWN}};
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

int main(void)
{
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
    CHECK(ev("ver > \"6.2\"") == 1); /* version order, not text order */
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
    CHECK(ev("count(groups, 3) > 0") == -3);
    CHECK(ev("count(groups, \"(\") > 0") == -3);
    CHECK(ev("gfx in lookup(tab, yes)") == -3);
    CHECK(ev("gfx in lookup(\"tab\", \"6.2\")") == -3); /* a table name, not a string */
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
    CHECK(chk("count(groups, 1) > 1", "count() needs a regular expression string second") == 14);
    CHECK(chk("count(groups, \"[\") > 1", "invalid regular expression") == 14);
    CHECK(chk("gfx in lookup(tab, yes)", "lookup() needs a key") == 19);
    CHECK(chk("gfx in lookup(nosuch, ver)", "unknown data table 'nosuch'") == 14);
    CHECK(chk("gfx in lookup(\"tab\", ver)", "lookup() needs a data table name first") == 14);
    CHECK(chk("gfx in [groups]", "a list cannot hold a list") == 8);
    CHECK(chk("vram + 1", "the rule is not a yes/no question (it gives a number)") == 0);
    CHECK(chk("gfx", "the rule is not a yes/no question (it gives a string)") == 0);
    CHECK(chk("vram > 1 && gpu.cuont == 0", "no such fact gpu.cuont") == 12);
    CHECK(chk("known(gpu.cuont)", "no such fact gpu.cuont") == 6);
    /* an error on the side a short circuit skips is still an error */
    CHECK(chk("false && !vram", "'!' needs a yes/no value") == 9);
    return test_report();
}
