/* diff_html.c - `diff --html`: the comparison of two reports as one
 * self-contained HTML page (src/report/html.h): both runs, the stack that
 * changed, regressions, improvements, check and fact changes, and for every
 * performance fact that moved a before/after bar plot. It renders the
 * diff_result of diff.c; it decides nothing. */
#include "diff.h"

#include <math.h>
#include <string.h>

#include "../core/util.h"
#include "../report/html.h"
#include "../report/report_doc.h"

static void value_cell(FILE *f, const struct json *v, const char *absent)
{
    if (!v) {
        fputs("<td class=\"unknown\">", f);
        html_put(f, absent);
    } else if (v->type == JSON_OBJ) { /* a check: its status */
        fputs("<td>", f);
        html_status(f, diff_check_status(v));
    } else {
        struct strbuf sb = STRBUF_INIT;
        doc_value_text(&sb, v);
        fputs(v->type == JSON_NULL ? "<td class=\"unknown\">" : "<td>", f);
        html_put(f, sb.buf ? sb.buf : "");
        strbuf_release(&sb);
    }
    fputs("</td>", f);
}

static void runs(FILE *f, const struct diff_doc *base, const struct diff_doc *cur)
{
    static const char *const host[][2] = {
        {"Host", "hostname"}, {"Level", "level"}, {"Started", "started"}};
    static const char *const facts[][2] = {{"ROCm", "rocm.version"},
                                           {"amdgpu driver", "driver.version"},
                                           {"Kernel", "kernel.release"},
                                           {"PyTorch", "python.torch_version"},
                                           {"GPU(s)", "gpu.names"}};
    const struct diff_doc *d[2] = {base, cur};
    fputs("<table class=\"runs\">\n<tr><th></th><th>baseline</th><th>current</th></tr>\n"
          "<tr><th>Report</th>",
          f);
    for (int k = 0; k < 2; k++)
        html_el(f, "<td>", d[k]->name, "</td>");
    fputs("</tr>\n", f);
    for (size_t i = 0; i < ARRAY_SIZE(host); i++) {
        html_el(f, "<tr><th>", host[i][0], "</th>");
        for (int k = 0; k < 2; k++) {
            const char *v = doc_host(d[k], host[i][1]);
            html_el(f, v ? "<td>" : "<td class=\"unknown\">", v ? v : "unknown", "</td>");
        }
        fputs("</tr>\n", f);
    }
    for (size_t i = 0; i < ARRAY_SIZE(facts); i++) {
        html_el(f, "<tr><th>", facts[i][0], "</th>");
        for (int k = 0; k < 2; k++)
            value_cell(f, doc_fact(d[k], facts[i][1]), "absent");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void detail(FILE *f, const struct diff_doc *cur, const struct diff_item *it)
{
    fputs("<td>", f);
    if (it->what == DW_PERF) {
        html_putf(f, "%+.1f%%", it->change_pct);
        if (it->tol_pct >= 0)
            html_putf(f, " (tolerance %.4g%%)", it->tol_pct);
        else
            html_put(f, " (tolerance off)");
    } else if (it->what == DW_NUMERICS) {
        if (it->at < 0)
            html_putf(f, "not compared: %s", it->why ? it->why : "?");
        else
            html_putf(f, "actions moved by %.6g, %.4g%% of the largest (tolerance %.4g%%)",
                      it->moved, it->change_pct, it->tol_pct);
    } else if (it->what == DW_UNKNOWN) {
        const char *why = diff_fact_reason(cur, it->name);
        html_put(f, why && *why ? why : "became unknown");
    } else {
        html_put(f, diff_what_name(it->what));
    }
    fputs("</td>", f);
}

/* subj < 0: both subjects */
static void section(FILE *f, const struct diff_doc *cur, const struct diff_result *r,
                    enum diff_class cls, int subj, const char *title)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += r->v[i].cls == cls && (subj < 0 || (int)r->v[i].subj == subj);
    fputs("<h2>", f);
    html_put(f, title);
    fprintf(f, " (%zu)</h2>\n", n);
    if (!n)
        return;
    fprintf(f,
            "<table class=\"diff %s\">\n<thead><tr><th>Check or fact</th><th>Baseline</th>"
            "<th>Current</th><th>What</th></tr></thead>\n<tbody>\n",
            cls == DIFF_REGRESSION    ? "regressions"
            : cls == DIFF_IMPROVEMENT ? "improvements"
                                      : "changes");
    for (size_t i = 0; i < r->n; i++) {
        const struct diff_item *it = &r->v[i];
        if (it->cls != cls || (subj >= 0 && (int)it->subj != subj))
            continue;
        fprintf(f, "<tr class=\"%s\"><td><code>", it->subj == DIFF_CHECK ? "check" : "fact");
        html_put(f, it->name);
        fputs("</code></td>", f);
        value_cell(f, it->old, "(none)");
        value_cell(f, it->cur, "(none)");
        detail(f, cur, it);
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

/* the unit of a performance fact, from what follows the last '_' */
static const char *unit_of(const char *name)
{
    static const char *const units[][2] = {
        {"gbs", "GB/s"},       {"gbps", "Gbit/s"}, {"tflops", "TFLOP/s"},
        {"gflops", "GFLOP/s"}, {"hz", "Hz"},       {"ms", "ms"},
        {"us", "µs"},          {"ns", "ns"},       {"s", "s"}};
    const char *u = strrchr(name, '_');
    const char *dot = strrchr(name, '.');
    if (!u || (dot && u < dot))
        return "";
    for (size_t i = 0; i < ARRAY_SIZE(units); i++)
        if (strcmp(u + 1, units[i][0]) == 0)
            return units[i][1];
    return u + 1;
}

static double num(const struct json *v)
{
    return v && v->type == JSON_NUM ? v->num : NAN;
}

static void plots(FILE *f, const struct diff_result *r)
{
    fputs("<h2>Performance, before and after</h2>\n", f);
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct diff_item *it = &r->v[i];
        if (it->subj != DIFF_FACT || !diff_fact_direction(it->name))
            continue;
        n++;
        struct svg_bar b[2] = {
            {"baseline", num(it->old), NAN, NULL, 0},
            {"current", num(it->cur), NAN, NULL, it->cls == DIFF_REGRESSION},
        };
        svg_bar_chart(f, it->name, unit_of(it->name), b, 2, NAN, NULL);
    }
    if (!n)
        fputs("<p>No performance figure differs between the two reports.</p>\n", f);
}

int diff_write_html(FILE *out, const struct diff_doc *base, const struct diff_doc *cur,
                    const struct diff_result *r)
{
    html_page_begin(out, "rocm-vla-doctor diff");
    runs(out, base, cur);
    size_t nr = r->count[DIFF_REGRESSION];
    fputs("<p class=\"verdict\">", out);
    html_status(out, nr ? "fail" : "pass");
    fprintf(out, " %zu regressions, %zu improvements, %zu changes &mdash; exit code %d: %s</p>\n",
            nr, r->count[DIFF_IMPROVEMENT], r->count[DIFF_CHANGE], nr ? 1 : 0,
            nr ? "a regression" : "no regression");
    fputs("<h2>Stack</h2>\n<table class=\"stack\">\n", out);
    size_t ns = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct diff_item *it = &r->v[i];
        if (it->subj != DIFF_FACT || !diff_headline_fact(it->name))
            continue;
        ns++;
        fputs("<tr><td><code>", out);
        html_put(out, it->name);
        fputs("</code></td>", out);
        value_cell(out, it->old, "(none)");
        value_cell(out, it->cur, "(none)");
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
    if (!ns)
        fputs("<p>Driver, ROCm, kernel, PyTorch and the GPUs are the same.</p>\n", out);
    section(out, cur, r, DIFF_REGRESSION, -1, "Regressions");
    section(out, cur, r, DIFF_IMPROVEMENT, -1, "Improvements");
    section(out, cur, r, DIFF_CHANGE, DIFF_CHECK, "Check changes");
    section(out, cur, r, DIFF_CHANGE, DIFF_FACT, "Fact changes");
    plots(out, r);
    html_page_end(out);
    if (fflush(out) || ferror(out))
        return error("cannot write the HTML diff");
    return 0;
}
