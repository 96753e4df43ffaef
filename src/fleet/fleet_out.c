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

/* code points, not bytes, in s's first len bytes */
static size_t text_width_n(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

static size_t text_width(const char *s)
{
    return text_width_n(s, strlen(s));
}

/* a cell cut to at most w code points: "..." where text was cut, the " !"
 * mark kept; the caller frees */
static char *cell_fit(const char *s, size_t w)
{
    size_t len = text_width(s);
    if (len <= w)
        return xstrdup(s);
    int bang = str_ends(s, " !");
    size_t keep = w > (bang ? 5u : 3u) ? w - (bang ? 5 : 3) : 0, i = 0, cp = 0;
    for (; s[i] && cp < keep + 1; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && ++cp > keep)
            break;
    return xasprintf("%.*s...%s", (int)i, s, bang ? " !" : "");
}

/* the bytes of s's first n code points */
static size_t cp_bytes(const char *s, size_t len, size_t n)
{
    size_t i = 0;
    for (size_t cp = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && cp++ == n)
            break;
    return i;
}

/* s at most width columns a line, broken at spaces (a word longer than a
 * line is broken inside), the first line indented by lead, the others by
 * indent */
static void put_wrapped(FILE *out, const char *s, size_t lead, size_t indent, size_t width)
{
    size_t col = lead, start = lead;
    fprintf(out, "%*s", (int)lead, "");
    for (;;) {
        s += strspn(s, " ");
        size_t word = strcspn(s, " ");
        if (!word)
            break;
        size_t ww = text_width_n(s, word);
        if (col > start && col + 1 + ww > width) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = start = indent;
        } else if (col > start) {
            fputc(' ', out);
            col++;
        }
        while (col + ww > width) { /* only a word longer than a whole line */
            size_t b = cp_bytes(s, word, width - col);
            fwrite(s, 1, b, out);
            fprintf(out, "\n%*s", (int)indent, "");
            col = start = indent;
            s += b, word -= b, ww = text_width_n(s, word);
        }
        fwrite(s, 1, word, out);
        col += ww;
        s += word;
    }
    fputc('\n', out);
}

static void put_cell(FILE *out, const struct table *t, size_t r, size_t c, size_t w, int pad,
                     int color)
{
    char *s = cell_fit(t->cell[r * t->cols + c], w);
    int m = color && t->mark[r * t->cols + c];
    fprintf(out, "%s%s%s", m ? RED : "", s, m ? OFF : "");
    if (pad)
        fprintf(out, "%*s", (int)(w - text_width(s) + 2), "");
    free(s);
}

/* the node's column, then the columns first..last-1, widths w */
static void put_block(FILE *out, const struct table *t, const size_t *w, size_t first, size_t last,
                      int color)
{
    for (size_t r = 0; r < t->rows; r++) {
        put_cell(out, t, r, 0, w[0], first < last, color);
        for (size_t c = first; c < last; c++)
            put_cell(out, t, r, c, w[c], c + 1 < last, color);
        fputc('\n', out);
    }
}

/* the reasons the fleet does not pass, one sanitised line each (no
 * indentation, no newline), in node order: the text's list and the page's */
static void fleet_reasons(const struct fleet *f, struct strlist *out)
{
    for (size_t i = 0; i < f->n; i++) {
        const struct fleet_node *n = &f->nodes[i];
        char *name = str_sanitize(n->name, 0);
        if (n->failed)
            strlist_add_owned(out, xasprintf("%s: %zu check%s failed (fail, error or timeout)",
                                             name, n->nfailed, n->nfailed == 1 ? "" : "s"));
        for (size_t k = 0; k < fleet_nfigures; k++)
            if (n->outlier[k])
                strlist_add_owned(
                    out, xasprintf("%s: %s %.4g %s is %.0f%% %s the fleet median %.4g "
                                   "(threshold %g%%)",
                                   name, fleet_figures[k].fact, n->fig[k], fleet_figures[k].unit,
                                   n->dev_pct[k] < 0 ? -n->dev_pct[k] : n->dev_pct[k],
                                   n->dev_pct[k] < 0 ? "below" : "above", f->median[k],
                                   f->threshold[k]));
        for (size_t k = 0; k < fleet_nversions; k++) {
            if (!n->mismatch[k])
                continue;
            /* a version compared per model with several models: a line
             * per model that differs, naming it */
            int per_model = f->nvgroup[k] > 1;
            for (size_t g = 0; g < (per_model ? f->nvgroup[k] : 1); g++) {
                const struct fleet_vgroup *vg = per_model ? &f->vgroup[k][g] : NULL;
                if (vg && !vg->mismatch[i])
                    continue;
                char *v = str_sanitize(vg ? vg->val[i] : n->ver[k], 0);
                const char *m = vg ? vg->majority : f->majority[k];
                char *maj = m ? str_sanitize(m, 0) : NULL;
                char *model = vg ? str_sanitize(vg->model, 0) : NULL;
                char *on = vg ? xasprintf(" on its %s GPUs", model) : xstrdup("");
                if (maj)
                    strlist_add_owned(out, xasprintf("%s: %s '%s'%s, most nodes%s have '%s'", name,
                                                     fleet_versions[k].key, v, on,
                                                     vg ? " with that model" : "", maj));
                else
                    strlist_add_owned(out,
                                      xasprintf("%s: %s '%s'%s, and no version is held by most "
                                                "nodes%s",
                                                name, fleet_versions[k].key, v, on,
                                                vg ? " with that model" : ""));
                free(on);
                free(model);
                free(v);
                free(maj);
            }
        }
        free(name);
    }
}

/* the nodes' reports as doc_drain_list() takes them */
static const struct diff_doc **fleet_docs(const struct fleet *f)
{
    const struct diff_doc **d = xcalloc(f->n ? f->n : 1, sizeof(*d));
    for (size_t i = 0; i < f->n; i++)
        d[i] = &f->nodes[i].doc;
    return d;
}

/* what to drain, node and GPU with the check that failed (issue 34), and
 * reports that claim the same host */
static void put_drain(FILE *out, const struct fleet *f, size_t W)
{
    const struct diff_doc **docs = fleet_docs(f);
    struct doc_drain *dr;
    size_t n = doc_drain_list(docs, f->n, &dr);
    if (n)
        fputs("\nDrain (node, GPU, the check that failed):\n", out);
    for (size_t i = 0; i < n; i++) {
        char gpu[96];
        if (dr[i].gpu < 0)
            snprintf(gpu, sizeof(gpu), "the node");
        else
            snprintf(gpu, sizeof(gpu), "GPU %d (%s)", dr[i].gpu, dr[i].pci ? dr[i].pci : "?");
        char *line = xasprintf("%s %s: %s %s: %s", doc_node_name(docs[dr[i].node]), gpu,
                               dr[i].check, dr[i].status, dr[i].summary ? dr[i].summary : "");
        char *safe = str_sanitize(line, 0);
        put_wrapped(out, safe, 2, 4, W);
        free(safe);
        free(line);
    }
    free(dr);
    for (int kind = 0; kind < 2; kind++) {
        struct doc_dup *du;
        size_t nd = kind ? doc_same_gpus(docs, f->n, &du) : doc_same_hosts(docs, f->n, &du);
        for (size_t i = 0; i < nd; i++) {
            char *line =
                kind ? xasprintf("duplicate: %s and %s both report the GPU of serial '%s': one "
                                 "report twice, or a GPU moved between nodes",
                                 docs[du[i].first]->name, docs[du[i].later]->name, du[i].serial)
                     : xasprintf("duplicate: %s and %s both report host '%s': one node twice, or "
                                 "two nodes with one name (its row and figures count twice)",
                                 docs[du[i].first]->name, docs[du[i].later]->name, du[i].serial);
            char *safe = str_sanitize(line, 0);
            fputc('\n', out);
            put_wrapped(out, safe, 0, 4, W);
            free(safe);
            free(line);
        }
        free(du);
    }
    free(docs);
}

/* width: the columns to fit (report_text_width); the table splits into
 * blocks of columns that fit, each led by the node's name, a cell too wide
 * for any block is cut with "..." and the reasons are wrapped. The JSON
 * keeps every value whole. */
static void fleet_write_text(FILE *out, const struct fleet *f, int color, int width)
{
    char *head =
        xasprintf("rocm-vla-doctor fleet: %zu node%s, %zu failing, %zu figure outlier%s, "
                  "%zu version mismatch%s",
                  f->n, f->n == 1 ? "" : "s", f->nfailing, f->noutliers,
                  f->noutliers == 1 ? "" : "s", f->nmismatches, f->nmismatches == 1 ? "" : "es");
    put_wrapped(out, head, 0, 2, (size_t)width);
    free(head);
    fputc('\n', out);
    struct table t;
    build_table(f, &t);
    size_t *w = xcalloc(t.cols, sizeof(size_t));
    for (size_t r = 0; r < t.rows; r++)
        for (size_t c = 0; c < t.cols; c++)
            if (text_width(t.cell[r * t.cols + c]) > w[c])
                w[c] = text_width(t.cell[r * t.cols + c]);
    /* every block repeats the node's name: it takes at most a third of the
     * width, and no other cell is wider than what is left beside it */
    size_t W = (size_t)width, name_max = W / 3 > 12 ? W / 3 : 12;
    if (w[0] > name_max)
        w[0] = name_max;
    for (size_t c = 1; c < t.cols; c++)
        if (w[c] + w[0] + 2 > W)
            w[c] = W - w[0] - 2;
    for (size_t first = 1, last; first < t.cols; first = last) {
        size_t used = w[0];
        for (last = first; last < t.cols && (last == first || used + 2 + w[last] <= W); last++)
            used += 2 + w[last];
        if (first > 1)
            fputc('\n', out); /* a blank line between blocks */
        put_block(out, &t, w, first, last, color);
    }
    free(w);
    table_release(&t);

    if (!f->nfailing && !f->noutliers && !f->nmismatches) {
        fputs("\nEvery node passes, no figure is an outlier, every version agrees.\n", out);
        put_drain(out, f, W);
        return;
    }
    fputs("\nWhy the fleet does not pass ('!' in the table):\n", out);
    struct strlist why = STRLIST_INIT;
    fleet_reasons(f, &why);
    for (size_t i = 0; i < why.n; i++)
        put_wrapped(out, why.v[i], 2, 4, W);
    strlist_release(&why);
    put_drain(out, f, W);
}

static void json_drain(FILE *out, const struct fleet *f)
{
    const struct diff_doc **docs = fleet_docs(f);
    struct doc_drain *dr;
    size_t n = doc_drain_list(docs, f->n, &dr);
    fputs("  \"drain\": [", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s\n    {\"node\": ", i ? "," : "");
        json_write_string(out, doc_node_name(docs[dr[i].node]));
        fputs(", \"file\": ", out);
        json_write_string(out, docs[dr[i].node]->name);
        fputs(", \"gpu\": ", out);
        if (dr[i].gpu < 0)
            fputs("null", out);
        else
            fprintf(out, "%d", dr[i].gpu);
        fputs(", \"pci\": ", out);
        json_write_string(out, dr[i].pci);
        fputs(", \"check\": ", out);
        json_write_string(out, dr[i].check);
        fputs(", \"status\": ", out);
        json_write_string(out, dr[i].status);
        fputs(", \"summary\": ", out);
        json_write_string(out, dr[i].summary);
        fputc('}', out);
    }
    fputs(n ? "\n  ],\n  \"duplicate_hosts\": [" : "],\n  \"duplicate_hosts\": [", out);
    free(dr);
    for (int kind = 0; kind < 2; kind++) {
        struct doc_dup *du;
        size_t nd = kind ? doc_same_gpus(docs, f->n, &du) : doc_same_hosts(docs, f->n, &du);
        if (kind)
            fputs("  \"duplicate_gpus\": [", out);
        for (size_t i = 0; i < nd; i++) {
            fprintf(out, "%s\n    {\"%s\": ", i ? "," : "", kind ? "serial" : "hostname");
            json_write_string(out, du[i].serial);
            fputs(", \"files\": [", out);
            json_write_string(out, docs[du[i].first]->name);
            fputs(", ", out);
            json_write_string(out, docs[du[i].later]->name);
            fputs("]}", out);
        }
        fputs(nd ? "\n  ],\n" : "],\n", out);
        free(du);
    }
    free(docs);
}

/* ---- JSON ------------------------------------------------------------- */

static int fleet_write_json(FILE *out, const struct fleet *f)
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
        if (fleet_versions[k].group) {
            fputs(", \"by_model\": {", out);
            for (size_t g = 0; g < f->nvgroup[k]; g++) {
                fputs(g ? ", " : "", out);
                json_write_string(out, f->vgroup[k][g].model);
                fputs(": ", out);
                json_write_string(out, f->vgroup[k][g].majority);
            }
            fputc('}', out);
        }
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
    fputs("\n  ],\n", out);
    json_drain(out, f);
    size_t gate = f->nfailing + f->noutliers + f->nmismatches;
    fprintf(out,
            "  \"summary\": {\"nodes\": %zu, \"failing\": %zu, \"outliers\": %zu, "
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
        if (docs) {
            struct strlist why = STRLIST_INIT;
            fleet_reasons(&f, &why);
            failed = html_write_fleet_why(hf.f, docs, f.n, NULL, &why) != 0;
            strlist_release(&why);
        }
        free(docs);
        if (outfile_close(&hf, failed))
            rc = FLEET_EXIT_USAGE;
    }
    fleet_write_text(tout, &f, isatty(fileno(tout)) && !getenv("NO_COLOR") && !no_color,
                     report_text_width(tout, 0));
    fleet_release(&f);
out:
    diff_opts_release(&o.tol);
    return rc;
}
