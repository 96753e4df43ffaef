/* test_expr.c - the rule language: parsing, three-valued logic, units. */
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

/* 1 true, 0 false, -1 unknown, -2 parse error */
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
    int r = v.t == VAL_BOOL ? v.b : -1;
    val_release(&v);
    expr_free(e);
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

    size_t col;
    char *msg;
    CHECK(expr_parse("a && && b", &col, &msg) == NULL);
    CHECK(col == 5);
    free(msg);
    return test_report();
}
