/* expr.h - the small rule language of checks.yaml.
 *
 *   gpu.vram_bytes < 12 GiB && !(gpu.gfx in lookup(gfx_supported, rocm.series))
 *
 * Literals: numbers (with optional KiB MiB GiB TiB suffix), "strings",
 * [lists], true, false. Operators: || && ! == != < <= > >= in contains
 * matches (POSIX extended regex) + - * /. Functions: known(x), len(x),
 * lookup(table, key), lower(x), count(list, "regex").
 *
 * Three-valued logic: a fact that is unknown makes a comparison unknown;
 * `false && unknown` is false and `true || unknown` is true, anything else
 * involving unknown stays unknown, and the engine turns an unknown verdict
 * into `skip` with the name of the unknown fact. Unknown is never 0. */
#ifndef RVD_EXPR_H
#define RVD_EXPR_H

#include "util.h"

enum val_type { VAL_UNKNOWN, VAL_BOOL, VAL_NUM, VAL_STR, VAL_LIST };

struct val {
    enum val_type t;
    int b;
    double n;
    char *s;          /* VAL_STR; for VAL_UNKNOWN the fact that was unknown */
    struct strlist l; /* VAL_LIST */
};

void val_release(struct val *v);

struct expr; /* opaque AST */

/* NULL on error with *err_col (0-based column in src) and *err_msg (owned) */
struct expr *expr_parse(const char *src, size_t *err_col, char **err_msg);
void expr_free(struct expr *e);

/* name resolution: fill *out and return 0, or return -1 when no such fact */
struct expr_env {
    int (*fact)(void *ctx, const char *name, struct val *out);
    int (*table)(void *ctx, const char *table, const char *key, struct val *out);
    void *ctx;
};

struct val expr_eval(const struct expr *e, const struct expr_env *env);
/* names of facts an expression reads (for evidence) */
void expr_idents(const struct expr *e, struct strlist *out);

#endif
