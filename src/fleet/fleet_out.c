/* fleet_out.c - the `fleet` command line and its renderers: one text table
 * (a row per node) with the reasons below it, and JSON (schema
 * rocm-vla-doctor-fleet/1, reports/fleet-schema.json). They render what
 * fleet_compare() found; they decide nothing. Every string from a report
 * reaches the terminal through str_sanitize(). */
#include "fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/parse_options.h"
#include "../core/version.h"
#include "../core/outfile.h"
#include "../core/util.h"
#include "../report/report.h"
#include "../report/report_html_fleet.h"

enum { FLEET_EXIT_OK = 0, FLEET_EXIT_GATE = 1, FLEET_EXIT_USAGE = 2 };

#define RED "\033[31m"
#define OFF "\033[0m"

/* ---- text ------------------------------------------------------------- */

struct table {
    char **cell; /* rows x cols, sanitised */
    int *mark;   /* the cell is a reason to gate */
    size_t rows, cols;
};

static void cell_set(struct table *t, size_t r, size_t c, char *owned, int mark)
{
    t->cell[r * t->cols + c] = str_sanitize(owned, 0);
    t->mark[r * t->cols + c] = mark;
    free(owned);
}

static int figure_shown(const struct fleet *f, size_t k)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->nodes[i].has[k])
            return 1;
    return 0;
}

static int version_shown(const struct fleet *f, size_t k)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->nodes[i].ver[k])
            return 1;
    return 0;
}

static void build_table(const struct fleet *f, struct table *t)
{
    size_t cols = 2 + f->differing.n;
    for (size_t k = 0; k < fleet_nfigures; k++)
        cols += figure_shown(f, k);
    for (size_t k = 0; k < fleet_nversions; k++)
        cols += version_shown(f, k);
    t->rows = f->n + 1;
    t->cols = cols;
    t->cell = xcalloc(t->rows * cols, sizeof(char *));
    t->mark = xcalloc(t->rows * cols, sizeof(int));
    for (size_t r = 0; r < t->rows; r++) {
        const struct fleet_node *n = r ? &f->nodes[r - 1] : NULL;
        size_t c = 0;
        cell_set(t, r, c++, xstrdup(n ? n->name : "NODE"), 0);
        cell_set(t, r, c++,
                 n ? (n->failed ? xasprintf("FAIL %zu", n->nfailed) : xstrdup("ok"))
                   : xstrdup("RESULT"),
                 n && n->failed);
        for (size_t k = 0; k < fleet_nfigures; k++) {
            if (!figure_shown(f, k))
                continue;
            char *v = !n          ? xstrdup(fleet_figures[k].label)
                      : n->has[k] ? xasprintf("%.4g%s", n->fig[k], n->outlier[k] ? " !" : "")
                                  : xstrdup("-");
            cell_set(t, r, c++, v, n && n->outlier[k]);
        }
        for (size_t k = 0; k < fleet_nversions; k++) {
            if (!version_shown(f, k))
                continue;
            char *v = !n          ? xstrdup(fleet_versions[k].key)
                      : n->ver[k] ? xasprintf("%s%s", n->ver[k], n->mismatch[k] ? " !" : "")
                                  : xstrdup("-");
            cell_set(t, r, c++, v, n && n->mismatch[k]);
        }
        for (size_t d = 0; d < f->differing.n; d++) {
            const char *st = n ? fleet_check_status(n, f->differing.v[d]) : f->differing.v[d];
            int bad = n && (!strcmp(st, "fail") || !strcmp(st, "error") || !strcmp(st, "timeout"));
            cell_set(t, r, c++, xstrdup(st), bad);
        }
    }
}

static void table_release(struct table *t)
{
    for (size_t i = 0; i < t->rows * t->cols; i++)
        free(t->cell[i]);
    free(t->cell);
    free(t->mark);
}

static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80; /* code points, not bytes */
    return w;
}

void fleet_write_text(FILE *out, const struct fleet *f, int color)
{
    fprintf(out,
            "rocm-vla-doctor fleet: %zu node%s, %zu failing, %zu figure outlier%s, %zu "
            "version mismatch%s\n\n",
            f->n, f->n == 1 ? "" : "s", f->nfailing, f->noutliers, f->noutliers == 1 ? "" : "s",
            f->nmismatches, f->nmismatches == 1 ? "" : "es");
    struct table t;
    build_table(f, &t);
    size_t *w = xcalloc(t.cols, sizeof(size_t));
    for (size_t r = 0; r < t.rows; r++)
        for (size_t c = 0; c < t.cols; c++)
            if (text_width(t.cell[r * t.cols + c]) > w[c])
                w[c] = text_width(t.cell[r * t.cols + c]);
    for (size_t r = 0; r < t.rows; r++) {
        for (size_t c = 0; c < t.cols; c++) {
            const char *s = t.cell[r * t.cols + c];
            int m = color && t.mark[r * t.cols + c];
            fprintf(out, "%s%s%s", m ? RED : "", s, m ? OFF : "");
            if (c + 1 < t.cols)
                fprintf(out, "%*s", (int)(w[c] - text_width(s) + 2), "");
        }
        fputc('\n', out);
    }
    free(w);
    table_release(&t);

    if (!f->nfailing && !f->noutliers && !f->nmismatches) {
        fputs("\nEvery node passes, no figure is an outlier, every version agrees.\n", out);
        return;
    }
    fputs("\nWhy the fleet does not pass ('!' in the table):\n", out);
    for (size_t i = 0; i < f->n; i++) {
        const struct fleet_node *n = &f->nodes[i];
        char *name = str_sanitize(n->name, 0);
        if (n->failed)
            fprintf(out, "  %s: %zu check%s failed (fail, error or timeout)\n", name, n->nfailed,
                    n->nfailed == 1 ? "" : "s");
        for (size_t k = 0; k < fleet_nfigures; k++)
            if (n->outlier[k])
                fprintf(out,
                        "  %s: %s %.4g %s is %.0f%% %s the fleet median %.4g (threshold %g%%)\n",
                        name, fleet_figures[k].fact, n->fig[k], fleet_figures[k].unit,
                        n->dev_pct[k] < 0 ? -n->dev_pct[k] : n->dev_pct[k],
                        n->dev_pct[k] < 0 ? "below" : "above", f->median[k], f->threshold[k]);
        for (size_t k = 0; k < fleet_nversions; k++)
            if (n->mismatch[k]) {
                char *v = str_sanitize(n->ver[k], 0);
                char *maj = f->majority[k] ? str_sanitize(f->majority[k], 0) : NULL;
                if (maj)
                    fprintf(out, "  %s: %s '%s', most nodes have '%s'\n", name,
                            fleet_versions[k].key, v, maj);
                else
                    fprintf(out, "  %s: %s '%s', and no version is held by most nodes\n", name,
                            fleet_versions[k].key, v);
                free(v);
                free(maj);
            }
        free(name);
    }
}

/* ---- JSON ------------------------------------------------------------- */

int fleet_write_json(FILE *out, const struct fleet *f)
{
    fprintf(out, "{\n  \"schema\": \"%s\",\n  \"figures\": [", FLEET_SCHEMA_OUT);
    for (size_t k = 0; k < fleet_nfigures; k++) {
        fprintf(out, "%s\n    {\"fact\": ", k ? "," : "");
        json_write_string(out, fleet_figures[k].fact);
        fprintf(out, ", \"direction\": \"%s\", \"threshold_pct\": ",
                fleet_figures[k].direction > 0 ? "higher_is_better" : "lower_is_better");
        json_write_number(out, f->threshold[k] >= 0 ? f->threshold[k] : NAN, 17);
        fputs(", \"median\": ", out);
        json_write_number(out, f->has_median[k] ? f->median[k] : NAN, 17);
        fputc('}', out);
    }
    fputs("\n  ],\n  \"versions\": {", out);
    for (size_t k = 0; k < fleet_nversions; k++) {
        fprintf(out, "%s\n    ", k ? "," : "");
        json_write_string(out, fleet_versions[k].key);
        fputs(": {\"fact\": ", out);
        json_write_string(out, fleet_versions[k].fact);
        fputs(", \"majority\": ", out);
        json_write_string(out, f->majority[k]);
        fputc('}', out);
    }
    fputs("\n  },\n  \"differing_checks\": [", out);
    for (size_t d = 0; d < f->differing.n; d++) {
        fputs(d ? ", " : "", out);
        json_write_string(out, f->differing.v[d]);
    }
    fputs("],\n  \"nodes\": [", out);
    for (size_t i = 0; i < f->n; i++) {
        const struct fleet_node *n = &f->nodes[i];
        fprintf(out, "%s\n    {\n      \"name\": ", i ? "," : "");
        json_write_string(out, n->name);
        fputs(",\n      \"file\": ", out);
        json_write_string(out, n->doc.name);
        fprintf(out, ",\n      \"failed\": %s,\n      \"failed_checks\": [",
                n->failed ? "true" : "false");
        int first = 1;
        for (size_t c = 0; c < n->doc.checks->n; c++) {
            const struct json *ck = n->doc.checks->items[c];
            const char *st = json_get(ck, "status")->str;
            if (strcmp(st, "fail") && strcmp(st, "error") && strcmp(st, "timeout"))
                continue;
            fputs(first ? "" : ", ", out);
            first = 0;
            json_write_string(out, json_get(ck, "id")->str);
        }
        fputs("],\n      \"checks\": {", out);
        for (size_t d = 0; d < f->differing.n; d++) {
            fputs(d ? ", " : "", out);
            json_write_string(out, f->differing.v[d]);
            fputs(": ", out);
            const char *st = fleet_check_status(n, f->differing.v[d]);
            json_write_string(out, strcmp(st, "-") ? st : NULL);
        }
        fputs("},\n      \"figures\": {", out);
        for (size_t k = 0; k < fleet_nfigures; k++) {
            fprintf(out, "%s\n        ", k ? "," : "");
            json_write_string(out, fleet_figures[k].fact);
            if (!n->has[k]) {
                fputs(": {\"value\": null, \"deviation_pct\": null, \"outlier\": false}", out);
                continue;
            }
            fputs(": {\"value\": ", out);
            json_write_number(out, n->fig[k], 17);
            fputs(", \"deviation_pct\": ", out);
            json_write_number(out, f->has_median[k] && f->median[k] != 0 ? n->dev_pct[k] : NAN, 6);
            fprintf(out, ", \"outlier\": %s}", n->outlier[k] ? "true" : "false");
        }
        fputs("\n      },\n      \"versions\": {", out);
        for (size_t k = 0; k < fleet_nversions; k++) {
            fprintf(out, "%s\n        ", k ? "," : "");
            json_write_string(out, fleet_versions[k].key);
            fputs(": {\"value\": ", out);
            json_write_string(out, n->ver[k]);
            fprintf(out, ", \"mismatch\": %s}", n->mismatch[k] ? "true" : "false");
        }
        fputs("\n      }\n    }", out);
    }
    size_t gate = f->nfailing + f->noutliers + f->nmismatches;
    fprintf(out,
            "\n  ],\n  \"summary\": {\"nodes\": %zu, \"failing\": %zu, \"outliers\": %zu, "
            "\"version_mismatches\": %zu, \"exit_code\": %d}\n}\n",
            f->n, f->nfailing, f->noutliers, f->nmismatches, gate ? 1 : 0);
    return ferror(out) ? -1 : 0;
}

/* ---- command ---------------------------------------------------------- */

struct fleet_cmd_opts {
    struct fleet_opts o;
    const char *json, *html;
    int no_color;
};

static const struct optspec fleet_opts_table[] = {
    OPT_OUT(struct fleet_cmd_opts, json, "json", 0, "FILE|-", "the fleet table as JSON"),
    OPT_OUT(struct fleet_cmd_opts, html, "html", 0, "FILE|-",
            "one self-contained page with the fleet's spread per figure"),
    OPT_TOLERANCE(struct fleet_cmd_opts, o.tol, "the outlier threshold of a figure (repeatable)"),
    OPT_NO_COLOR(struct fleet_cmd_opts, no_color),
    OPT_HELP_VERSION_END,
};

static void fleet_more_help(FILE *out)
{
    fputs("One table of many nodes' JSON reports (a directory: its *.json files).\n"
          "Exit 1 when a node fails a check, a figure is worse than the fleet median by\n"
          "more than its threshold, or a version differs from the majority; 2 on bad input.\n"
          "See rocm-vla-doctor(1), FLEET.\n",
          out);
}

const struct cmd_spec fleet_spec = {"fleet",
                                    "fleet",
                                    "REPORT.json...|DIR...",
                                    "Compares many nodes' JSON reports in one table.",
                                    fleet_opts_table,
                                    fleet_more_help};

int fleet_cmd(int argc, char **argv)
{
    struct fleet_cmd_opts fo = {0};
    struct fleet_opts o = {0};
    int rc = FLEET_EXIT_USAGE;
    int first = parse_options(argc, argv, &fleet_spec, &fo);
    o = fo.o;
    if (first <= 0) {
        rc = first == PARSE_DONE ? FLEET_EXIT_OK : FLEET_EXIT_USAGE;
        goto out;
    }
    const char *json_path = fo.json, *html_path = fo.html;
    int no_color = fo.no_color;
    if (argc - first < 1) {
        error("fleet takes one or more reports or directories of reports");
        parse_options_usage_short(stderr, &fleet_spec);
        goto out;
    }
    if (json_path && html_path && strcmp(json_path, html_path) == 0) {
        error(strcmp(json_path, "-") ? "--json and --html name the same file '%s'"
                                     : "--json and --html cannot both write to stdout",
              json_path);
        goto out;
    }
    /* the outputs first: a bad path fails before any report is read */
    struct outfile jf = {0}, hf = {0};
    if (json_path && outfile_open(&jf, json_path, 1))
        goto out;
    if (html_path && outfile_open(&hf, html_path, 1)) {
        if (jf.f)
            outfile_close(&jf, 1);
        goto out;
    }
    struct fleet f;
    if (fleet_load(&f, argv + first, argc - first)) {
        fleet_release(&f);
        if (jf.f)
            outfile_close(&jf, 1);
        if (hf.f)
            outfile_close(&hf, 1);
        goto out;
    }
    rc = fleet_compare(&f, &o) ? FLEET_EXIT_GATE : FLEET_EXIT_OK;
    FILE *tout = jf.is_stdout || hf.is_stdout ? stderr : stdout;
    if (jf.f) {
        int failed = fleet_write_json(jf.f, &f) != 0;
        if (outfile_close(&jf, failed))
            rc = FLEET_EXIT_USAGE;
    }
    if (hf.f) {
        /* the page draws the parsed reports (html_write_fleet takes them
         * as one array; the nodes own them) */
        struct diff_doc *docs = calloc(f.n ? f.n : 1, sizeof(*docs));
        int failed = !docs;
        for (size_t i = 0; docs && i < f.n; i++)
            docs[i] = f.nodes[i].doc;
        if (docs)
            failed = html_write_fleet(hf.f, docs, f.n, NULL) != 0;
        free(docs);
        if (outfile_close(&hf, failed))
            rc = FLEET_EXIT_USAGE;
    }
    fleet_write_text(tout, &f, isatty(fileno(tout)) && !getenv("NO_COLOR") && !no_color);
    fleet_release(&f);
out:
    diff_opts_release(&o.tol);
    return rc;
}
