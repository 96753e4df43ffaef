/* mutation_eval.c - re-judge recorded facts with another checks file, fast.
 *
 *   mutation_eval CHECKS.yaml REPORT.json EXPECTED [REPORT.json EXPECTED]...
 *
 * Each REPORT.json is a fixture machine's JSON report (its facts, with the
 * reasons of the unknown ones, are what the probes found there; they do not
 * depend on checks.yaml). The facts are loaded back into a factset, every
 * check of CHECKS.yaml is run on them, and each "<id> <status>" line of
 * EXPECTED (tests/fixtures/<machine>/expected) is compared with the status
 * it gets now, and where the line names the deciding rule as a third field
 * ("<id> <status> <rule>", tests/fixtures.sh) the rule too, so that a rule
 * removed or a threshold moved to another rule is seen even where the
 * status stays. One line per difference, "<machine> <id> <got> <want>" on
 * stdout; exit 0 when none differ, 1 when some do, 2 on bad input.
 *
 * tools/mutation.py uses it to run hundreds of checks.yaml mutants against
 * every fixture machine in milliseconds each, instead of re-probing every
 * fixture for every mutant (seconds). The baseline (the committed
 * checks.yaml) must give no difference: that proves the replay of facts
 * is faithful before any mutant is judged by it. Not part of the product. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/checks.h"
#include "src/core/fact.h"
#include "src/core/util.h"
#include "src/core/json.h"
#include "probes/fact_catalog.h"

/* a JSON number literal without '.', 'e' or 'E' is an integer fact */
static int is_int_literal(const struct json *v)
{
    for (size_t i = 0; i < v->num_len; i++)
        if (strchr(".eE", v->num_text[i]))
            return 0;
    return 1;
}

static int load_facts(const char *path, struct factset *fs)
{
    char *text = NULL;
    size_t len = 0;
    if (read_user_file(path, 256u << 20, &text, &len))
        return error("cannot read '%s'", path);
    char err[256];
    /* num_text points into text: it lives as long as doc */
    struct json *doc = json_parse(text, len, err, sizeof(err));
    if (!doc) {
        free(text);
        return error("%s: %s", path, err);
    }
    const struct json *facts = json_get(doc, "facts");
    const struct json *meta = json_get(doc, "facts_meta");
    if (!facts || facts->type != JSON_OBJ) {
        json_free(doc);
        free(text);
        return error("%s: no \"facts\" object", path);
    }
    for (size_t i = 0; i < facts->n; i++) {
        const char *name = facts->keys[i];
        const struct json *v = facts->items[i];
        const struct json *m = meta ? json_get(meta, name) : NULL;
        const struct json *src = m ? json_get(m, "source") : NULL;
        const struct json *why = m ? json_get(m, "reason") : NULL;
        const char *source = src && src->type == JSON_STR ? src->str : NULL;
        switch (v->type) {
        case JSON_NULL:
            fact_set_unknown(fs, name, source, "%s",
                             why && why->type == JSON_STR ? why->str : "unknown");
            break;
        case JSON_BOOL:
            fact_set_bool(fs, name, v->b, source);
            break;
        case JSON_NUM:
            if (is_int_literal(v))
                fact_set_int(fs, name, (int64_t)v->num, source);
            else
                fact_set_float(fs, name, v->num, source);
            break;
        case JSON_STR:
            fact_set_str(fs, name, v->str, source);
            break;
        case JSON_ARR: {
            struct strlist l = STRLIST_INIT;
            for (size_t k = 0; k < v->n; k++)
                if (v->items[k]->type == JSON_STR)
                    strlist_add(&l, v->items[k]->str);
            fact_set_list(fs, name, &l, source);
            strlist_release(&l);
            break;
        }
        case JSON_OBJ:
            break; /* no fact is an object */
        }
    }
    json_free(doc);
    free(text);
    return 0;
}

/* the machine's name: the fixture directory holding EXPECTED */
static char *machine_of(const char *expected)
{
    const char *end = strrchr(expected, '/');
    if (!end)
        return xstrdup(expected);
    const char *start = end;
    while (start > expected && start[-1] != '/')
        start--;
    return xstrndup(start, (size_t)(end - start));
}

static int compare(const struct results *r, const char *expected, int *diffs)
{
    FILE *f = fopen(expected, "r");
    if (!f)
        return error("cannot read '%s'", expected);
    char *machine = machine_of(expected);
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        char id[256], want[64], want_rule[RULE_ID_MAX] = "";
        int nf = line[0] == '#' ? 0 : sscanf(line, "%255s %31s %31s", id, want, want_rule);
        if (nf < 2 || !strcmp(id, "exit"))
            continue;
        if (!strcmp(id, "start_with")) {
            /* the root cause the report names first: a mutant that moves it
             * (a caused_by chain cut by a rule gone) is a behaviour change */
            const struct result *s = results_start_with(r);
            const char *got_start = s ? s->check->id : "none";
            if (strcmp(got_start, want) != 0) {
                printf("%s start_with %s %s\n", machine, got_start, want);
                (*diffs)++;
            }
            continue;
        }
        const char *got = "missing", *got_rule = "";
        for (size_t i = 0; i < r->n; i++)
            if (strcmp(r->v[i].check->id, id) == 0) {
                got = status_name(r->v[i].st);
                got_rule = r->v[i].rule;
            }
        if (strcmp(got, want) != 0 || (nf == 3 && strcmp(got_rule, want_rule) != 0)) {
            if (nf == 3) {
                got = xasprintf("%s:%s", got, got_rule);
                snprintf(want + strlen(want), sizeof(want) - strlen(want), ":%s", want_rule);
            }
            printf("%s %s %s %s\n", machine, id, got, want);
            for (size_t i = 0; i < r->n; i++)
                if (getenv("MUTATION_EVAL_DEBUG") && strcmp(r->v[i].check->id, id) == 0)
                    printf("    %s\n", r->v[i].summary ? r->v[i].summary : "");
            (*diffs)++;
            if (nf == 3)
                free((char *)got);
        }
    }
    fclose(f);
    free(machine);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (argc - 2) % 2) {
        fprintf(stderr, "usage: mutation_eval CHECKS.yaml REPORT.json EXPECTED...\n");
        return 2;
    }
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    struct checkset cs = {0};
    if (checks_load(&cs, argv[1]))
        return 2;
    int diffs = 0, rc = 0;
    for (int i = 2; i + 1 < argc && !rc; i += 2) {
        struct factset fs = FACTSET_INIT;
        struct results r;
        /* every level: EXPECTED lists only the checks its run selected */
        struct run_filter flt = {LEVEL_SOAK, NULL};
        if (load_facts(argv[i], &fs) || checks_run(&cs, &fs, &flt, &r)) {
            rc = 2;
        } else {
            if (compare(&r, argv[i + 1], &diffs))
                rc = 2;
            results_release(&r);
        }
        factset_release(&fs);
    }
    checks_release(&cs);
    return rc ? rc : diffs ? 1 : 0;
}
