/* report_sweep.c - the sweep table as HTML and markdown (report_sweep.h). */
#include "report_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "html.h"
#include "report_doc.h"

enum kind { K_STR, K_INT, K_NUM, K_BOOL, K_OBJ, K_ARR };
#define NULLABLE 0x100

static const char *const kind_name[] = {"a string",      "an integer", "a number",
                                        "true or false", "an object",  "an array"};

static int kind_ok(const struct json *v, int want)
{
    if (v->type == JSON_NULL)
        return (want & NULLABLE) != 0;
    switch (want & 0xff) {
    case K_STR:
        return v->type == JSON_STR;
    case K_INT:
        return v->type == JSON_NUM && v->num == floor(v->num) && fabs(v->num) < 9.007e15;
    case K_NUM:
        return v->type == JSON_NUM;
    case K_BOOL:
        return v->type == JSON_BOOL;
    case K_OBJ:
        return v->type == JSON_OBJ;
    default:
        return v->type == JSON_ARR;
    }
}

/* member key of obj with the wanted kind; prints "name: where.key is not
 * <kind>" (or "is missing") and returns NULL otherwise. A nullable member
 * that is null is returned as is. */
static const struct json *need(const struct json *obj, const char *key, int want, const char *name,
                               const char *where)
{
    const struct json *v = json_get(obj, key);
    if (!v) {
        error("%s: not a sweep report: %s%s%s is missing", name, where, *where ? "." : "", key);
        return NULL;
    }
    if (!kind_ok(v, want)) {
        error("%s: not a sweep report: %s%s%s is not %s%s", name, where, *where ? "." : "", key,
              kind_name[want & 0xff], want & NULLABLE ? " or null" : "");
        return NULL;
    }
    return v;
}

int report_sweep_is(const struct json *root)
{
    const struct json *s = root && root->type == JSON_OBJ ? json_get(root, "schema") : NULL;
    return s && s->type == JSON_STR && strcmp(s->str, SWEEP_SCHEMA) == 0;
}

static int validate_pct(const struct json *st, const char *stage, const char *name,
                        const char *where)
{
    char w[96];
    snprintf(w, sizeof(w), "%s.stages", where);
    const struct json *p = need(st, stage, K_OBJ, name, w);
    if (!p)
        return -1;
    snprintf(w, sizeof(w), "%s.stages.%s", where, stage);
    return need(p, "p50_ms", K_NUM | NULLABLE, name, w) &&
                   need(p, "p99_ms", K_NUM | NULLABLE, name, w)
               ? 0
               : -1;
}

static int validate_cfg(const struct json *c, const char *name, const char *where)
{
    static const struct {
        const char *key;
        int kind;
    } fields[] = {
        {"steps", K_INT},
        {"chunk", K_INT},
        {"image", K_INT},
        {"dtype", K_STR},
        {"batch", K_INT},
        {"ran", K_BOOL},
        {"note", K_STR},
        {"stages", K_OBJ | NULLABLE},
        {"control_rate_hz", K_NUM | NULLABLE},
        {"memory_used_bytes", K_INT | NULLABLE},
        {"energy_j", K_NUM | NULLABLE},
        {"energy_note", K_STR},
        {"drift", K_OBJ | NULLABLE},
        {"nonfinite", K_BOOL},
        {"budget", K_OBJ | NULLABLE},
    };
    if (c->type != JSON_OBJ)
        return error("%s: not a sweep report: %s is not an object", name, where);
    for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
        if (!need(c, fields[i].key, fields[i].kind, name, where))
            return -1;
    const struct json *st = json_get(c, "stages");
    if (st->type == JSON_OBJ) {
        static const char *const stages[] = {"vision", "prefix", "step", "total"};
        for (size_t i = 0; i < ARRAY_SIZE(stages); i++)
            if (validate_pct(st, stages[i], name, where))
                return -1;
    }
    char w[96];
    const struct json *d = json_get(c, "drift");
    snprintf(w, sizeof(w), "%s.drift", where);
    if (d->type == JSON_OBJ && !(need(d, "cosine", K_NUM | NULLABLE, name, w) &&
                                 need(d, "max_error", K_NUM | NULLABLE, name, w)))
        return -1;
    const struct json *b = json_get(c, "budget");
    snprintf(w, sizeof(w), "%s.budget", where);
    if (b->type == JSON_OBJ) {
        const struct json *ch;
        if (!need(b, "mark", K_STR, name, w) || !(ch = need(b, "checks", K_ARR, name, w)))
            return -1;
        for (size_t i = 0; i < ch->n; i++) {
            char wi[128];
            snprintf(wi, sizeof(wi), "%s.checks[%zu]", w, i);
            if (ch->items[i]->type != JSON_OBJ)
                return error("%s: not a sweep report: %s is not an object", name, wi);
            if (!need(ch->items[i], "id", K_STR, name, wi) ||
                !need(ch->items[i], "status", K_STR, name, wi) ||
                !need(ch->items[i], "summary", K_STR, name, wi))
                return -1;
        }
    }
    return 0;
}

int report_sweep_validate(const struct json *root, const char *name)
{
    if (!report_sweep_is(root))
        return error("%s: not a sweep report (schema is not %s)", name, SWEEP_SCHEMA);
    static const char *const strs[] = {"version", "preset", "mode",  "backend",
                                       "device",  "grid",   "checks"};
    for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
        if (!need(root, strs[i], K_STR, name, ""))
            return -1;
    if (!need(root, "runs", K_INT, name, "") || !need(root, "reference", K_OBJ, name, ""))
        return -1;
    const struct json *cf = need(root, "configs", K_ARR, name, "");
    if (!cf)
        return -1;
    for (size_t i = 0; i < cf->n; i++) {
        char w[48];
        snprintf(w, sizeof(w), "configs[%zu]", i);
        if (validate_cfg(cf->items[i], name, w))
            return -1;
    }
    return 0;
}

/* ---- reading a validated document ------------------------------------- */

static const char *str(const struct json *o, const char *key)
{
    const struct json *v = json_get(o, key);
    return v && v->type == JSON_STR ? v->str : "";
}

/* NaN for null: unknown is never drawn as 0 */
static double num(const struct json *o, const char *key)
{
    const struct json *v = o ? json_get(o, key) : NULL;
    return v && v->type == JSON_NUM ? v->num : NAN;
}

static double stage(const struct json *c, const char *st, const char *pct)
{
    const struct json *s = json_get(c, "stages");
    return s && s->type == JSON_OBJ ? num(json_get(s, st), pct) : NAN;
}

static const struct json *obj_or_null(const struct json *c, const char *key)
{
    const struct json *v = json_get(c, key);
    return v && v->type == JSON_OBJ ? v : NULL;
}

static int ran(const struct json *c)
{
    const struct json *v = json_get(c, "ran");
    return v && v->type == JSON_BOOL && v->b;
}

/* "meets", "over budget", "not judged", "error", or why it did not run */
static const char *mark(const struct json *c)
{
    const struct json *b = obj_or_null(c, "budget");
    if (!ran(c))
        return "not run";
    return b ? str(b, "mark") : "not judged";
}

static void cfg_label(char *buf, size_t n, const struct json *c)
{
    snprintf(buf, n, "steps %.0f, chunk %.0f, image %.0f, %s, batch %.0f", num(c, "steps"),
             num(c, "chunk"), num(c, "image"), str(c, "dtype"), num(c, "batch"));
}

/* a number cell: the value with prec decimals (prec < 0: -prec significant
 * digits; SIG4: 4 significant digits but whole above 1000, never an
 * exponent: "0.1234", "12.35", "1235"), or "unknown", or "-" when the
 * configuration did not run */
#define SIG4 100
static void cell(FILE *f, int html, int prec, double v, int has_run)
{
    char buf[48];
    if (!has_run)
        snprintf(buf, sizeof(buf), "-");
    else if (!isfinite(v))
        snprintf(buf, sizeof(buf), "unknown");
    else if (prec == SIG4)
        snprintf(buf, sizeof(buf), fabs(v) >= 1000 ? "%.0f" : "%.4g", v);
    else
        snprintf(buf, sizeof(buf), prec < 0 ? "%.*g" : "%.*f", prec < 0 ? -prec : prec, v);
    if (html)
        fprintf(f, "<td class=\"num\">%s</td>", buf);
    else
        fprintf(f, " %s |", buf);
}

static const char *const stage_names[] = {"vision", "prefix", "step", "total"};

static void row_cells(FILE *f, int html, const struct json *c)
{
    int r = ran(c);
    for (int k = 0; k < 4; k++)
        for (int q = 0; q < 2; q++)
            cell(f, html, SIG4, stage(c, stage_names[k], q ? "p99_ms" : "p50_ms"), r);
    cell(f, html, SIG4, num(c, "control_rate_hz"), r);
    cell(f, html, 2, num(c, "memory_used_bytes") / 1073741824.0, r);
    cell(f, html, 3, num(c, "energy_j"), r);
    const struct json *d = obj_or_null(c, "drift");
    cell(f, html, 6, d ? num(d, "cosine") : NAN, r && d);
    cell(f, html, -3, d ? num(d, "max_error") : NAN, r && d);
}

static const char *const header[] = {"steps",         "chunk",
                                     "image",         "dtype",
                                     "batch",         "vision p50 ms",
                                     "vision p99 ms", "prefix p50 ms",
                                     "prefix p99 ms", "step p50 ms",
                                     "step p99 ms",   "total p50 ms",
                                     "total p99 ms",  "Hz",
                                     "memory GiB",    "energy J/call",
                                     "drift cosine",  "drift max error",
                                     "budget"};

/* ---- HTML --------------------------------------------------------------- */

static void html_head(FILE *f, const struct json *root)
{
    const struct json *ref = json_get(root, "reference");
    char buf[160];
    fputs("<table class=\"meta\">\n", f);
    static const char *const keys[] = {"preset", "mode",   "backend", "device",
                                       "grid",   "checks", "version"};
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
        fputs("<tr><th>", f);
        html_put(f, keys[i]);
        fputs("</th><td>", f);
        html_put(f, str(root, keys[i]));
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "<tr><th>runs</th><td>%.0f per configuration</td></tr>\n", num(root, "runs"));
    cfg_label(buf, sizeof(buf), ref);
    fputs("<tr><th>drift reference</th><td>", f);
    html_put(f, buf);
    fputs("</td></tr>\n</table>\n", f);
}

/* the header in two rows: a stage's p50 and p99 under its name, so no
 * header cell is wider than its numbers */
static void html_table_head(FILE *f)
{
    static const char *const single[] = {"steps", "chunk", "image", "dtype", "batch"};
    fputs("<thead><tr>", f);
    for (size_t i = 0; i < ARRAY_SIZE(single); i++)
        fprintf(f, "<th rowspan=\"2\">%s</th>", single[i]);
    for (int k = 0; k < 4; k++)
        fprintf(f, "<th colspan=\"2\">%s ms</th>", stage_names[k]);
    fputs("<th rowspan=\"2\">Hz</th><th rowspan=\"2\">memory GiB</th>"
          "<th rowspan=\"2\">energy J/call</th><th colspan=\"2\">drift</th>"
          "<th rowspan=\"2\">budget</th></tr>\n<tr>",
          f);
    for (int k = 0; k < 4; k++)
        fputs("<th>p50</th><th>p99</th>", f);
    fputs("<th>cosine</th><th>max error</th></tr></thead>\n", f);
}

/* what a row's budget cell cannot hold on one line: its note and, unless it
 * meets its budgets, its budget checks; 0 when there is nothing */
static int has_notes(const struct json *c)
{
    return *str(c, "note") || (obj_or_null(c, "budget") && strcmp(mark(c), "meets") != 0);
}

static void html_table(FILE *f, const struct json *cf)
{
    fputs("<h2>Configurations</h2>\n<table class=\"sweep\">\n", f);
    html_table_head(f);
    fputs("<tbody>\n", f);
    for (size_t i = 0; i < cf->n; i++) {
        const struct json *c = cf->items[i];
        const char *m = mark(c);
        const char *cls = !strcmp(m, "meets")         ? ""
                          : !strcmp(m, "over budget") ? " class=\"row-fail\""
                                                      : " class=\"row-warn\"";
        fprintf(f,
                "<tr%s><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td>"
                "<td class=\"num\">%.0f</td><td>",
                cls, num(c, "steps"), num(c, "chunk"), num(c, "image"));
        html_put(f, str(c, "dtype"));
        fprintf(f, "</td><td class=\"num\">%.0f</td>", num(c, "batch"));
        row_cells(f, 1, c);
        /* the mark alone keeps the row one line high; the note and the
         * budget checks are listed under the table, linked from it */
        fputs("<td class=\"mark\">", f);
        if (has_notes(c))
            fprintf(f, "<a href=\"#cfg-%zu\">", i + 1);
        html_put(f, m);
        fputs(has_notes(c) ? "</a>" : "", f);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    int any = 0;
    for (size_t i = 0; i < cf->n; i++) {
        const struct json *c = cf->items[i];
        if (!has_notes(c))
            continue;
        if (!any++)
            fputs("<ul class=\"notes\">\n", f);
        char label[160];
        cfg_label(label, sizeof(label), c);
        fprintf(f, "<li id=\"cfg-%zu\">", i + 1);
        html_put(f, label);
        fputs(": ", f);
        html_put(f, mark(c));
        const char *note = str(c, "note");
        if (*note) {
            fputs(": ", f);
            html_put(f, note);
        }
        const struct json *b = obj_or_null(c, "budget");
        const struct json *ch = b && strcmp(mark(c), "meets") ? json_get(b, "checks") : NULL;
        for (size_t j = 0; ch && j < ch->n; j++) {
            fputs("<br><code>", f);
            html_put(f, str(ch->items[j], "id"));
            fputs("</code> ", f);
            html_status(f, str(ch->items[j], "status"));
            fputc(' ', f);
            html_put(f, str(ch->items[j], "summary"));
        }
        fputs("</li>\n", f);
    }
    if (any)
        fputs("</ul>\n", f);
}

/* one bar per configuration that ran; over = its budget mark says over */
static void html_chart(FILE *f, const struct json *cf, const char *title, const char *st,
                       const char *key, const char *unit)
{
    struct svg_bar *bars = xcalloc(cf->n ? cf->n : 1, sizeof(*bars));
    char(*labels)[96] = xcalloc(cf->n ? cf->n : 1, sizeof(*labels));
    size_t n = 0, known = 0;
    for (size_t i = 0; i < cf->n; i++) {
        const struct json *c = cf->items[i];
        if (!ran(c))
            continue;
        cfg_label(labels[n], sizeof(labels[n]), c);
        bars[n].label = labels[n];
        bars[n].value = st ? stage(c, st, "p50_ms") : num(c, key);
        bars[n].mark = NAN;
        bars[n].over = !strcmp(mark(c), "over budget");
        known += isfinite(bars[n].value) != 0;
        n++;
    }
    if (known)
        svg_bar_chart(f, title, unit, bars, n, NAN, NULL);
    else {
        fputs("<p class=\"unknown\">", f);
        html_putf(f, "%s: no configuration has this figure", title);
        fputs("</p>\n", f);
    }
    free(labels);
    free(bars);
}

int report_sweep_html(FILE *f, const struct json *root)
{
    char title[160];
    snprintf(title, sizeof(title), "rocm-vla-doctor bench --sweep: %s on %s", str(root, "preset"),
             str(root, "device"));
    html_page_begin(f, title);
    html_head(f, root);
    const struct json *cf = json_get(root, "configs");
    html_table(f, cf);
    fputs("<h2>Plots</h2>\n<p>Bars in the alarm colour are over a checks.yaml budget "
          "(vla.latency.vision or vla.latency.total).</p>\n",
          f);
    html_chart(f, cf, "total p50 per call", "total", NULL, "ms");
    html_chart(f, cf, "vision p50", "vision", NULL, "ms");
    html_chart(f, cf, "energy per call", NULL, "energy_j", "J");
    html_page_end(f);
    return ferror(f) ? error("cannot write the sweep page") : 0;
}

/* ---- markdown ------------------------------------------------------------ */

int report_sweep_markdown(FILE *f, const struct json *root)
{
    fputs("### rocm-vla-doctor bench --sweep: ", f);
    markdown_text(f, str(root, "preset"));
    fputs(" on ", f);
    markdown_text(f, str(root, "device"));
    fputs(" (", f);
    markdown_text(f, str(root, "mode"));
    fprintf(f, ", %.0f runs each)\n\n|", num(root, "runs"));
    for (size_t i = 0; i < ARRAY_SIZE(header); i++)
        fprintf(f, " %s |", header[i]);
    fputs("\n|", f);
    for (size_t i = 0; i < ARRAY_SIZE(header); i++)
        fputs("---|", f);
    fputc('\n', f);
    const struct json *cf = json_get(root, "configs");
    for (size_t i = 0; i < cf->n; i++) {
        const struct json *c = cf->items[i];
        fprintf(f, "| %.0f | %.0f | %.0f | ", num(c, "steps"), num(c, "chunk"), num(c, "image"));
        markdown_text(f, str(c, "dtype"));
        fprintf(f, " | %.0f |", num(c, "batch"));
        row_cells(f, 0, c);
        fputc(' ', f);
        markdown_text(f, mark(c));
        const char *note = str(c, "note");
        if (*note) {
            fputs(": ", f);
            markdown_text(f, note);
        }
        fputs(" |\n", f);
    }
    return ferror(f) ? error("cannot write the sweep summary") : 0;
}
