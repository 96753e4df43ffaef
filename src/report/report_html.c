/* report_html.c - one report as a self-contained HTML page: the header
 * (host, GPUs, stack, level, the verdict and what its exit code means),
 * the verdicts table, every finding with its fix and evidence, the plots
 * (VLA stage latencies against their budgets, PCIe copies against the
 * link, GEMM rates against the device's peak) and every fact, folded.
 * It draws a parsed JSON report (report_doc.h), so `check --html` and
 * `report --html` give the same page. */
#include "report_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "html.h"

static void row_fact(FILE *f, const struct diff_doc *d, const char *label, const char *name)
{
    struct strbuf sb = STRBUF_INIT;
    doc_fact_text(&sb, d, name);
    const struct json *v = doc_fact(d, name);
    fputs("<tr><th>", f);
    html_put(f, label);
    fputs(v && v->type != JSON_NULL ? "</th><td>" : "</th><td class=\"unknown\">", f);
    html_put(f, sb.buf ? sb.buf : "");
    fputs("</td></tr>\n", f);
    strbuf_release(&sb);
}

static void write_header(FILE *f, const struct diff_doc *d)
{
    fputs("<table class=\"host\">\n<tr><th>Host</th><td>", f);
    const char *host = doc_host(d, "hostname");
    html_put(f, host ? host : "unknown");
    fputs("</td></tr>\n", f);
    row_fact(f, d, "GPU(s)", "gpu.names");
    double ngpu = doc_num(d, "gpu.count");
    for (int i = 0; isfinite(ngpu) && i < ngpu && i < 64; i++) {
        char name[FACT_NAME_MAX], label[32];
        snprintf(label, sizeof(label), "GPU %d gfx target", i);
        row_fact(f, d, label, fact_gpu_name(name, i, "gfx"));
    }
    row_fact(f, d, "ROCm", "rocm.version");
    row_fact(f, d, "amdgpu driver", "driver.version");
    row_fact(f, d, "Kernel", "kernel.release");
    row_fact(f, d, "OS", "host.os");
    row_fact(f, d, "PyTorch", "python.torch_version");
    const char *keys[][2] = {{"Level", "level"}, {"Started", "started"}, {"Sysroot", "sysroot"}};
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
        const char *v = doc_host(d, keys[i][1]);
        if (!v)
            continue;
        fputs("<tr><th>", f);
        html_put(f, keys[i][0]);
        fputs("</th><td>", f);
        html_put(f, v);
        fputs("</td></tr>\n", f);
    }
    const struct json *tool = json_get(d->root, "tool");
    const char *ver = doc_member(tool, "version"), *checks = doc_member(tool, "checks");
    html_el(f, "<tr><th>Tool</th><td>rocm-vla-doctor ", ver ? ver : "unknown", "");
    html_el(f, ", checks ", checks ? checks : "unknown", "</td></tr>\n");
    fputs("</table>\n", f);
}

/* diff's reader checked that every check has a string status */
static const char *cst(const struct json *c)
{
    const char *st = diff_check_status(c);
    return st ? st : "unknown";
}

static size_t count_status(const struct diff_doc *d, const char *st)
{
    size_t n = 0;
    for (size_t i = 0; i < d->checks->n; i++)
        n += strcmp(cst(d->checks->items[i]), st) == 0;
    return n;
}

static void write_verdict(FILE *f, const struct diff_doc *d)
{
    static const char *const order[] = {"fail", "error", "timeout", "warn", "pass", "skip"};
    const char *worst = "pass";
    for (size_t i = 0; i < ARRAY_SIZE(order); i++)
        if (count_status(d, order[i])) {
            worst = order[i];
            break;
        }
    int code = doc_exit_code(d);
    fputs("<p class=\"verdict\">Overall: ", f);
    html_status(f, worst);
    fprintf(f, " &mdash; exit code %d: ", code);
    html_put(f, doc_exit_meaning(code));
    fputs("<br>", f);
    for (size_t i = 0; i < ARRAY_SIZE(order); i++)
        fprintf(f, "%s%zu %s", i ? ", " : "", count_status(d, order[i]), order[i]);
    fprintf(f, " of %zu checks</p>\n", d->checks->n);
}

static void write_table(FILE *f, const struct diff_doc *d)
{
    fputs("<h2>Verdicts</h2>\n<table class=\"verdicts\">\n<thead><tr><th>Check</th><th>Title</th>"
          "<th>Status</th><th>Summary</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < d->checks->n; i++) {
        const struct json *c = d->checks->items[i];
        const char *st = cst(c);
        html_el(f, "<tr class=\"row-", st, "\">");
        html_el(f, "<td><code>", doc_member(c, "id"), "</code></td>");
        html_el(f, "<td>", doc_member(c, "title"), "</td><td>");
        html_status(f, st);
        html_el(f, "</td><td>", doc_member(c, "summary"), "</td></tr>\n");
    }
    fputs("</tbody>\n</table>\n", f);
}

static void write_evidence(FILE *f, const struct json *ev)
{
    if (!ev || ev->type != JSON_OBJ || !ev->n)
        return;
    fputs("<table class=\"evidence\">\n", f);
    for (size_t i = 0; i < ev->n; i++) {
        struct strbuf sb = STRBUF_INIT;
        doc_value_text(&sb, ev->items[i]);
        fputs("<tr><td><code>", f);
        html_put(f, ev->keys[i]);
        fputs(ev->items[i]->type == JSON_NULL ? "</code></td><td class=\"unknown\">"
                                              : "</code></td><td>",
              f);
        html_put(f, sb.buf ? sb.buf : "");
        fputs("</td></tr>\n", f);
        strbuf_release(&sb);
    }
    fputs("</table>\n", f);
}

static void write_findings(FILE *f, const struct diff_doc *d)
{
    fputs("<h2>Findings</h2>\n", f);
    size_t n = 0;
    for (size_t i = 0; i < d->checks->n; i++) {
        const struct json *c = d->checks->items[i];
        const char *st = cst(c);
        if (!strcmp(st, "pass") || !strcmp(st, "skip"))
            continue;
        n++;
        html_el(f, "<div class=\"finding ", st, "\"><h3>");
        html_status(f, st);
        html_el(f, " <code>", doc_member(c, "id"), "</code> ");
        html_el(f, "", doc_member(c, "title"), "</h3>\n");
        html_el(f, "<p>", doc_member(c, "summary"), "</p>\n");
        const char *fix = doc_member(c, "fix");
        if (fix && *fix)
            html_el(f, "<p><b>Fix:</b></p><div class=\"fix\">", fix, "</div>\n");
        write_evidence(f, json_get(c, "evidence"));
        fputs("</div>\n", f);
    }
    if (!n)
        fputs("<p>No check warned, failed or stopped with an error.</p>\n", f);
}

/* ---- plots ------------------------------------------------------------- */

/* the facts named prefix*suffix in the report, in the report's order */
static size_t facts_like(const struct diff_doc *d, const char *prefix, const char *suffix,
                         const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; d->facts && i < d->facts->n && n < max; i++) {
        const char *k = d->facts->keys[i];
        if (str_starts(k, prefix) && str_ends(k, suffix) && strlen(k) > strlen(prefix))
            out[n++] = k;
    }
    return n;
}

static void plot_vla(FILE *f, const struct diff_doc *d, const struct vla_budget *b, size_t nb)
{
    fputs("<h2>VLA stage latencies</h2>\n", f);
    const char *names[24];
    size_t n = facts_like(d, "vla.latency.", "_ms", names, ARRAY_SIZE(names));
    if (!n) {
        fputs("<p class=\"unknown\">The reference VLA workload did not run in this report (it "
              "runs at --level full).</p>\n",
              f);
        return;
    }
    struct svg_bar bars[24];
    size_t nbud = 0;
    for (size_t i = 0; i < n; i++) {
        double v = doc_num(d, names[i]), m = vla_budget_for(b, nb, names[i]);
        bars[i] = (struct svg_bar){names[i] + strlen("vla.latency."), v, m, "budget",
                                   isfinite(m) && isfinite(v) && v > m};
        nbud += isfinite(m);
    }
    const char *preset = doc_str(d, "vla.preset"), *backend = doc_str(d, "vla.backend");
    struct strbuf title = STRBUF_INIT;
    strbuf_addf(&title, "VLA pass, p50 per stage (%s on %s)", preset ? preset : "unknown preset",
                backend ? backend : "unknown backend");
    svg_bar_chart(f, title.buf, "ms", bars, n, NAN, NULL);
    strbuf_release(&title);
    fputs(nbud ? "<p>Black ticks: the budgets of the loaded vla.* rules for this run.</p>\n"
               : "<p class=\"unknown\">No budget: the loaded vla.* rules bound none of these "
                 "figures for this run (a CPU self-test is never judged against a budget).</p>\n",
          f);
}

/* the first known gpu.0.peak.* fact whose name ends in suffix and holds
 * one of the words in any (NULL: every name); NaN when none. The derived
 * peaks are another probe's facts: matched by their names' shape, so a
 * report without them says "not derived" */
static double peak_fact(const struct diff_doc *d, const char *suffix, const char *const *any,
                        const char **name)
{
    const char *names[64];
    size_t n = facts_like(d, "gpu.0.peak.", suffix, names, ARRAY_SIZE(names));
    for (size_t i = 0; i < n; i++) {
        double v = doc_num(d, names[i]);
        int hit = !any;
        for (size_t k = 0; any && any[k]; k++)
            hit |= strstr(names[i] + strlen("gpu.0.peak."), any[k]) != NULL;
        if (hit && isfinite(v)) {
            *name = names[i];
            return v;
        }
    }
    return NAN;
}

static void plot_copies(FILE *f, const struct diff_doc *d)
{
    static const char *const copy[] = {"bw.h2d_pinned_gbs", "bw.d2h_pinned_gbs",
                                       "bw.h2d_pageable_gbs", "bw.d2h_pageable_gbs"};
    fputs("<h2>Host&ndash;device copies</h2>\n", f);
    struct svg_bar bars[ARRAY_SIZE(copy)];
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(copy); i++)
        if (doc_fact(d, copy[i]))
            bars[n++] = (struct svg_bar){copy[i] + 3, doc_num(d, copy[i]), NAN, NULL, 0};
    if (!n) {
        fputs("<p class=\"unknown\">No copy bandwidth was measured in this report (the bw probe "
              "runs at --level standard on a GPU).</p>\n",
              f);
        return;
    }
    static const char *const link_words[] = {"pcie", "link", NULL};
    static const char *const mem_words[] = {"mem", "hbm", "vram", "dram", NULL};
    const char *pname = NULL;
    double link = doc_num(d, "bw.link_gbs");
    if (!isfinite(link))
        link = peak_fact(d, "_gbs", link_words, &pname);
    svg_bar_chart(f, "PCIe copies (GB/s)", "GB/s", bars, n, link,
                  pname ? pname : "link payload rate");
    if (!isfinite(link))
        fputs("<p class=\"unknown\">The link's payload rate is unknown.</p>\n", f);
    pname = NULL;
    double triad = doc_num(d, "bw.triad_gbs"), peak = peak_fact(d, "_gbs", mem_words, &pname);
    if (doc_fact(d, "bw.triad_gbs")) {
        struct svg_bar t = {"device memory (triad)", triad, NAN, NULL, 0};
        svg_bar_chart(f, "Device memory bandwidth (GB/s)", "GB/s", &t, 1, peak,
                      pname ? pname : "peak");
        if (!pname)
            fputs("<p class=\"unknown\">Memory peak not derived.</p>\n", f);
    }
}

static void plot_gemm(FILE *f, const struct diff_doc *d)
{
    static const char *const dt[] = {"fp16", "bf16", "fp32"};
    fputs("<h2>GEMM rate</h2>\n", f);
    struct svg_bar bars[ARRAY_SIZE(dt)];
    char labels[ARRAY_SIZE(dt)][16];
    size_t n = 0, npeak = 0;
    for (size_t i = 0; i < ARRAY_SIZE(dt); i++) {
        char name[64], suffix[32];
        snprintf(name, sizeof(name), "gpu.gemm_peak.%s_tflops", dt[i]);
        if (!doc_fact(d, name))
            continue;
        snprintf(suffix, sizeof(suffix), "%s_tflops", dt[i]);
        const char *pname = NULL;
        double peak = peak_fact(d, suffix, NULL, &pname);
        npeak += isfinite(peak);
        snprintf(labels[n], sizeof(labels[n]), "%s", dt[i]);
        bars[n] = (struct svg_bar){labels[n], doc_num(d, name), peak, "peak", 0};
        n++;
    }
    if (!n) {
        fputs("<p class=\"unknown\">No GEMM rate was measured in this report (gpu.gemm_peak runs "
              "at --level standard on a GPU).</p>\n",
              f);
        return;
    }
    svg_bar_chart(f, "GEMM (TFLOP/s)", "TFLOP/s", bars, n, NAN, NULL);
    fputs(npeak ? "<p>Black ticks: the device's peak (gpu.0.peak.*).</p>\n"
                : "<p class=\"unknown\">peak not derived</p>\n",
          f);
}

static void write_facts(FILE *f, const struct diff_doc *d)
{
    if (!d->facts || d->facts->type != JSON_OBJ)
        return;
    fprintf(f,
            "<h2>Facts</h2>\n<details><summary>All %zu facts</summary>\n<table class=\"facts\">\n",
            d->facts->n);
    for (size_t i = 0; i < d->facts->n; i++)
        row_fact(f, d, d->facts->keys[i], d->facts->keys[i]);
    fputs("</table>\n</details>\n", f);
}

int report_html_write(FILE *f, const struct diff_doc *d, const struct vla_budget *b, size_t nb)
{
    const char *host = doc_host(d, "hostname");
    struct strbuf title = STRBUF_INIT;
    strbuf_addf(&title, "rocm-vla-doctor report: %s", host ? host : "unknown host");
    html_page_begin(f, title.buf);
    strbuf_release(&title);
    write_header(f, d);
    write_verdict(f, d);
    write_table(f, d);
    write_findings(f, d);
    plot_vla(f, d, b, nb);
    plot_copies(f, d);
    plot_gemm(f, d);
    write_facts(f, d);
    html_page_end(f);
    if (fflush(f) || ferror(f))
        return error("cannot write the HTML report");
    return 0;
}
