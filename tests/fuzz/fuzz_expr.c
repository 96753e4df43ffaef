/* fuzz_expr.c - the rule language (src/core/expr.c): parse, type-check against
 * declared types, evaluate against a small fact set with a lookup table,
 * list the identifiers, free. */
#include <stdio.h>

#include "../../src/core/expr.h"
#include "fuzz.h"

static const struct {
    const char *name;
    enum val_type t;
} decl[] = {{"gpu.vram_bytes", VAL_NUM}, {"gpu.gfx", VAL_STR},        {"user.groups", VAL_LIST},
            {"rocm.series", VAL_STR},    {"driver.loaded", VAL_BOOL}, {"x.unknown", VAL_NUM},
            {"any", VAL_UNKNOWN}};

static int fact_cb(void *ctx, const char *name, struct val *out)
{
    (void)ctx;
    memset(out, 0, sizeof(*out));
    if (strcmp(name, "gpu.vram_bytes") == 0) {
        out->t = VAL_NUM;
        out->n = 24.0 * 1073741824.0;
    } else if (strcmp(name, "gpu.gfx") == 0) {
        out->t = VAL_STR;
        out->s = strdup("gfx1100");
    } else if (strcmp(name, "user.groups") == 0) {
        out->t = VAL_LIST;
        strlist_add(&out->l, "video");
        strlist_add(&out->l, "render");
    } else if (strcmp(name, "rocm.series") == 0) {
        out->t = VAL_STR;
        out->s = strdup("6.2");
    } else if (strcmp(name, "driver.loaded") == 0) {
        out->t = VAL_BOOL;
        out->b = 1;
    } else if (strcmp(name, "x.unknown") == 0 || strcmp(name, "any") == 0) {
        out->t = VAL_UNKNOWN;
        out->s = strdup(name);
    } else {
        return -1;
    }
    return 0;
}

static int table_cb(void *ctx, const char *t, const char *k, struct val *out)
{
    (void)ctx;
    if (strcmp(t, "gfx_supported") || strcmp(k, "6.2"))
        return -1;
    memset(out, 0, sizeof(*out));
    out->t = VAL_LIST;
    strlist_add(&out->l, "gfx1100");
    strlist_add(&out->l, "gfx90a");
    return 0;
}

static int type_cb(void *ctx, const char *name, enum val_type *type, char **err)
{
    (void)ctx;
    for (size_t i = 0; i < sizeof(decl) / sizeof(decl[0]); i++)
        if (strcmp(name, decl[i].name) == 0) {
            *type = decl[i].t;
            return 0;
        }
    *err = strdup("undeclared fact");
    return -1;
}

static int table_type_cb(void *ctx, const char *table)
{
    (void)ctx;
    return strcmp(table, "gfx_supported") == 0 ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = fuzz_cstr(data, size);
    size_t col;
    char *msg = NULL;
    struct expr *e = expr_parse(src, &col, &msg);
    if (!e) {
        free(msg);
        free(src);
        return 0;
    }
    struct expr_typer typer = {type_cb, table_type_cb, NULL};
    msg = NULL;
    if (expr_check(e, &typer, &col, &msg) != 0)
        free(msg);
    /* evaluated whatever the check said: at run time a rule on facts
     * without declared types reaches the evaluator unchecked */
    struct expr_env env = {fact_cb, table_cb, NULL};
    struct val v = expr_eval(e, &env);
    val_release(&v);
    struct strlist ids = STRLIST_INIT;
    expr_idents(e, &ids);
    strlist_release(&ids);
    expr_free(e);
    free(src);
    return 0;
}
