/* report_json.c - the JSON report, schema "rocm-vla-doctor/1" (the shape is a
 * public contract, see reports/schema.json and docs/ARCHITECTURE.md).
 *
 * Facts are written sorted by name with typed values; unknown is null, never
 * 0. Every string and number goes through the core JSON writer
 * (src/core/json_out.h), which emits valid UTF-8 whatever bytes a probe
 * read from a file. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JSON_SCHEMA_ID "rocm-vla-doctor/1"

void json_write_fact_value(FILE *out, const struct fact *f)
{
    if (!f) {
        fputs("null", out);
        return;
    }
    switch (f->type) {
    case FACT_UNKNOWN:
        fputs("null", out);
        break;
    case FACT_BOOL:
        fputs(f->b ? "true" : "false", out);
        break;
    case FACT_INT:
        fprintf(out, "%" PRId64, f->i);
        break;
    case FACT_FLOAT:
        json_write_number(out, f->f, 17);
        break;
    case FACT_STR:
        json_write_string(out, f->s ? f->s : "");
        break;
    case FACT_LIST:
        fputc('[', out);
        for (size_t i = 0; i < f->list.n; i++) {
            if (i)
                fputs(", ", out);
            json_write_string(out, f->list.v[i]);
        }
        fputc(']', out);
        break;
    }
}

/* ---- the report ------------------------------------------------------- */

static int cmp_fact_ptr(const void *a, const void *b)
{
    const struct fact *x = *(const struct fact *const *)a, *y = *(const struct fact *const *)b;
    return strcmp(x->name, y->name);
}

/* the factset is const and other readers keep its order: sort pointers */
static const struct fact **sorted_facts(const struct factset *fs)
{
    const struct fact **v = xcalloc(fs->n ? fs->n : 1, sizeof(*v));
    for (size_t i = 0; i < fs->n; i++)
        v[i] = fs->v[i];
    if (fs->n > 1)
        qsort(v, fs->n, sizeof(*v), cmp_fact_ptr);
    return v;
}

/* `"key": ` with the separator that precedes every member but the first */
static void json_key(FILE *out, int *first, const char *indent, const char *key)
{
    fprintf(out, "%s\n%s", *first ? "" : ",", indent);
    *first = 0;
    json_write_key(out, key);
}

static void json_close(FILE *out, int empty, const char *indent, char bracket)
{
    if (empty)
        fputc(bracket, out);
    else
        fprintf(out, "\n%s%c", indent, bracket);
}

static void write_tool_host(FILE *out, const struct report_meta *m)
{
    fputs("  \"tool\": {\"name\": \"rocm-vla-doctor\", \"version\": ", out);
    json_write_string(out, m->version);
    fputs(", \"checks\": ", out);
    json_write_string(out, m->checks);
    fputs("},\n  \"host\": {\n    \"hostname\": ", out);
    json_write_string(out, m->hostname);
    fputs(",\n    \"os\": ", out);
    json_write_string(out, m->os);
    fputs(",\n    \"kernel\": ", out);
    json_write_string(out, m->kernel);
    fputs(",\n    \"sysroot\": ", out);
    json_write_string(out, m->sysroot);
    fputs(",\n    \"started\": ", out);
    json_write_string(out, m->started);
    fputs(",\n    \"duration_s\": ", out);
    json_write_number(out, m->duration_s < 0 ? 0 : m->duration_s, 17);
    fputs(",\n    \"level\": ", out);
    json_write_string(out, m->level);
    fputs("\n  },\n", out);
}

static void write_facts(FILE *out, const struct factset *fs)
{
    const struct fact **v = sorted_facts(fs);
    int first = 1;
    fputs("  \"facts\": {", out);
    for (size_t i = 0; i < fs->n; i++) {
        json_key(out, &first, "    ", v[i]->name);
        json_write_fact_value(out, v[i]);
    }
    json_close(out, first, "  ", '}');
    fputs(",\n  \"facts_meta\": {", out);
    first = 1;
    for (size_t i = 0; i < fs->n; i++) {
        json_key(out, &first, "    ", v[i]->name);
        fputs("{\"source\": ", out);
        json_write_string(out, v[i]->source);
        fputs(", \"reason\": ", out);
        json_write_string(out, v[i]->reason);
        fputc('}', out);
    }
    json_close(out, first, "  ", '}');
    fputs(",\n", out);
    free(v);
}

/* a per-GPU check's verdict on each GPU it judged (issue 34: which GPUs to
 * drain); absent for a check judged once */
static void write_check_gpus(FILE *out, const struct result *res)
{
    if (!res->ngpus)
        return;
    fputs(",\n      \"gpus\": [", out);
    for (size_t j = 0; j < res->ngpus; j++) {
        const struct gpu_verdict *g = &res->gpus[j];
        fprintf(out, "%s\n        {\"gpu\": %d, \"pci\": ", j ? "," : "", g->gpu);
        json_write_string(out, g->pci);
        fputs(", \"status\": ", out);
        json_write_string(out, status_name(g->st));
        fputs(", \"rule\": ", out);
        json_write_string(out, g->rule);
        fputs(", \"summary\": ", out);
        json_write_string(out, g->summary);
        fputs(", \"fix\": ", out);
        json_write_string(out, g->fix);
        fputc('}', out);
    }
    fputs("\n      ]", out);
}

/* rank: the result's place in results_fix_order() from 1, 0 for none */
static void write_check(FILE *out, const struct result *res, size_t rank)
{
    const struct check *c = res->check;
    fputs("    {\n      \"id\": ", out);
    json_write_string(out, c->id);
    fputs(",\n      \"title\": ", out);
    json_write_string(out, c->title);
    fputs(",\n      \"status\": ", out);
    json_write_string(out, status_name(res->st));
    fputs(",\n      \"level\": ", out);
    json_write_string(out, level_name(c->level));
    fputs(",\n      \"impact\": ", out);
    enum impact im = status_not_passing(res->st) ? result_impact(res) : c->impact;
    json_write_string(out, impact_name(im));
    if (rank)
        fprintf(out, ",\n      \"fix_rank\": %zu", rank);
    else
        fputs(",\n      \"fix_rank\": null", out);
    fputs(",\n      \"summary\": ", out);
    json_write_string(out, res->summary ? res->summary : "");
    fputs(",\n      \"fix\": ", out);
    json_write_string(out, res->fix);
    /* the same fix in parts: prose, whole command lines, prose */
    const struct fix fx = result_fix(res);
    fputs(",\n      \"fix_say\": ", out);
    json_write_string(out, fx.say);
    fputs(",\n      \"fix_commands\": [", out);
    for (size_t j = 0; j < fx.run.n; j++) {
        fputs(j ? ", " : "", out);
        json_write_string(out, fx.run.v[j]);
    }
    fputs("],\n      \"fix_then\": ", out);
    json_write_string(out, fx.then);
    fputs(",\n      \"rule\": ", out);
    json_write_string(out, res->rule);
    fputs(",\n      \"caused_by\": ", out);
    json_write_string(out, res->cause ? res->cause->check->id : NULL);
    fputs(",\n      \"evidence\": {", out);
    int first = 1;
    for (size_t j = 0; j < res->nev; j++) {
        json_key(out, &first, "        ", res->ev[j].name);
        json_write_fact_value(out, res->ev[j].fact);
    }
    json_close(out, first, "      ", '}');
    write_check_gpus(out, res);
    fputs("\n    }", out);
}

int report_json_write(FILE *out, const struct report_meta *m, const struct factset *fs,
                      const struct results *r)
{
    fputs("{\n  \"schema\": \"" JSON_SCHEMA_ID "\",\n", out);
    write_tool_host(out, m);
    write_facts(out, fs);
    /* each finding's place in the order to fix them (checks_rank.c) */
    size_t *order = xcalloc(r->n + 1, sizeof(*order)), *rank = xcalloc(r->n + 1, sizeof(*rank));
    size_t nfind = results_fix_order(r, order);
    for (size_t k = 0; k < nfind; k++)
        rank[order[k]] = k + 1;
    fputs("  \"checks\": [", out);
    for (size_t i = 0; i < r->n; i++) {
        fputs(i ? ",\n" : "\n", out);
        write_check(out, &r->v[i], rank[i]);
    }
    free(order);
    free(rank);
    fputs(r->n ? "\n  ],\n" : "],\n", out);
    const struct result *start = results_start_with(r);
    fputs("  \"start_with\": ", out);
    json_write_string(out, start ? start->check->id : NULL);
    fputs(",\n", out);
    const size_t *c = r->counts;
    fprintf(out,
            "  \"summary\": {\"pass\": %zu, \"warn\": %zu, \"fail\": %zu, \"skip\": %zu, "
            "\"error\": %zu, \"timeout\": %zu, \"total\": %zu, \"exit_code\": %d}\n}\n",
            c[ST_PASS], c[ST_WARN], c[ST_FAIL], c[ST_SKIP], c[ST_ERROR], c[ST_TIMEOUT], r->n,
            results_exit_code(r, m->strict));
    if (fflush(out) || ferror(out))
        return error("cannot write the JSON report");
    return 0;
}
