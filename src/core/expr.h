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
 * into `skip` with the name of the unknown fact. Unknown is never 0.
 *
 * Types are strict: `!`, `&&`, `||` take yes/no values, `< <= > >=` two
 * numbers or two strings, arithmetic numbers, `in`/`contains` a list or a
 * string to search, `==` no lists. A type error is a configuration error:
 * expr_check() finds it at load time from the facts' declared types, and at
 * evaluation it is VAL_ERROR, which beats unknown and every short circuit,
 * so a rule with a type error can never let a check pass. */
#ifndef RVD_EXPR_H
#define RVD_EXPR_H

#include "util.h"

/* VAL_ERROR: a type error (s holds the message); in expr_check() VAL_UNKNOWN
 * stands for "any type" */
enum val_type { VAL_UNKNOWN, VAL_BOOL, VAL_NUM, VAL_STR, VAL_LIST, VAL_ERROR };

struct val {
    enum val_type t;
    int b;
    double n;
    char *s;          /* VAL_STR; VAL_UNKNOWN: the fact that was unknown; VAL_ERROR: why */
    struct strlist l; /* VAL_LIST */
    size_t more;      /* VAL_LIST: items of a capped list fact not in l (fact.h) */
};

void val_release(struct val *v);

struct expr; /* opaque AST */

/* Limits on hostile rules, enforced by expr_parse() (and, for regular
 * expressions, wherever one is compiled). The depth bound is what keeps
 * the parser, the type checker, the evaluator and expr_free() - all
 * recursive - within a fixed stack: every tree expr_parse() returns is at
 * most EXPR_MAX_DEPTH nodes deep, and a chain of binary operators
 * (a + a + ... + a) is left-deep, so it counts one level per operator. */
#define EXPR_MAX_LEN 4096   /* bytes of rule text */
#define EXPR_MAX_DEPTH 64   /* nesting of ( [ ! - calls, and operator chains */
#define EXPR_MAX_REGEX 256  /* bytes of a regular expression */
#define EXPR_MAX_REPEAT 255 /* n and m of a {n,m} repetition */
/* atoms after expanding {n,m}, nested: glibc builds its automaton from
 * them, and regcomp() and regexec() time grow with it (2048 atoms took
 * seconds to match 1 KB) */
#define EXPR_MAX_REGEX_COST 512

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
/* static checking at load time: every name must be a declared fact and
 * every table a data table; types follow the declarations */
struct expr_typer {
    /* 0 with *type (VAL_UNKNOWN: any), or -1 with *err (owned) */
    int (*fact)(void *ctx, const char *name, enum val_type *type, char **err);
    /* 0 when the data table exists */
    int (*table)(void *ctx, const char *table);
    void *ctx;
};
/* 0, or -1 with *err_col (0-based column) and *err_msg (owned) for the first
 * unknown name or type error; the rule as a whole must be yes/no */
int expr_check(const struct expr *e, const struct expr_typer *t, size_t *err_col, char **err_msg);
const char *val_type_name(enum val_type t);

/* names of facts an expression reads (for evidence) */
void expr_idents(const struct expr *e, struct strlist *out);

#endif
