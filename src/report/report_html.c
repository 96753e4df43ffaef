/* report_html.c - one report as a self-contained HTML page, the answer
 * first: the verdict and what its exit code means, the check to start with,
 * every failing and warning finding with its fix and evidence; then the
 * machine (host, GPUs, stack, level), the verdicts table, the plots
 * (VLA stage latencies against their budgets; per measured GPU, PCIe copies
 * against its link, memory bandwidth and GEMM rates against its derived
 * peaks) and every fact, folded.
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
    /* the root cause, the one finding to act on first (checks_cause.c);
     * no link: the page holds no URL at all (tests/html_check.py) */
    const struct json *start = doc_start_with(d);
    if (start) {
        html_el(f, "<p class=\"start\">Start with <code>", doc_member(start, "id"), "</code>: ");
        html_el(f, "", doc_member(start, "summary"), "</p>\n");
    }
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

/* prose as the browser shows it: the evidence sits under the fix, so the
 * terminal's "with -v" becomes "in the evidence below" */
static void write_prose(FILE *f, const char *text)
{
    static const char *const terminal[][2] = {{" with -v", " in the evidence below"},
                                              {"see -v", "see the evidence below"}};
    struct strbuf sb = STRBUF_INIT;
    for (const char *p = text; *p;) {
        size_t k = 0;
        while (k < ARRAY_SIZE(terminal) && !str_starts(p, terminal[k][0]))
            k++;
        if (k < ARRAY_SIZE(terminal)) {
            strbuf_adds(&sb, terminal[k][1]);
            p += strlen(terminal[k][0]);
        } else {
            strbuf_addc(&sb, *p++);
        }
    }
    html_el(f, "<p>", sb.buf, "</p>");
    strbuf_release(&sb);
}

/* the fix, the one place one is drawn: its prose, and its commands in one
 * <pre> (a line each, never wrapped, copied as printed) */
static void write_fix(FILE *f, const struct json *c)
{
    struct fix fx;
    if (!doc_fix(c, &fx))
        return;
    fputs("<p><b>Fix:</b></p><div class=\"fix\">", f);
    if (fx.say)
        write_prose(f, fx.say);
    if (fx.run.n) {
        fputs("<pre class=\"cmd\">", f);
        for (size_t i = 0; i < fx.run.n; i++)
            html_el(f, i ? "\n" : "", fx.run.v[i], "");
        fputs("</pre>", f);
    }
    if (fx.then)
        write_prose(f, fx.then);
    fputs("</div>\n", f);
    fix_release(&fx);
}

/* a per-GPU check's verdict on each GPU (issue 34): which GPUs to drain */
static void write_gpu_table(FILE *f, const struct json *c)
{
    struct doc_gpu *g = xcalloc(DOC_GPUS_MAX, sizeof(*g));
    size_t n = doc_check_gpus(c, g, DOC_GPUS_MAX);
    if (n < 2) { /* one GPU: the check's summary is its own */
        free(g);
        return;
    }
    fputs("<table class=\"gpus\">\n<thead><tr><th>GPU</th><th>PCI</th><th>Status</th>"
          "<th>Summary</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        html_el(f, "<tr class=\"row-", g[i].status, "\">");
        fprintf(f, "<td>%d</td>", g[i].gpu);
        html_el(f, "<td><code>", g[i].pci ? g[i].pci : "unknown", "</code></td><td>");
        html_status(f, g[i].status);
        html_el(f, "</td><td>", g[i].summary, "</td></tr>\n");
    }
    fputs("</tbody>\n</table>\n", f);
    free(g);
}

static void write_findings(FILE *f, const struct diff_doc *d)
{
    fputs("<h2>Findings</h2>\n", f);
    /* in the order to fix them, the check to start with first */
    size_t n = 0, *idx = doc_findings(d, &n);
    for (size_t k = 0; k < n; k++) {
        const struct json *c = d->checks->items[idx[k]];
        const char *st = cst(c);
        html_el(f, "<div class=\"finding ", st, "\" id=\"");
        html_el(f, "", doc_member(c, "id"), "\"><h3>");
        html_status(f, st);
        html_el(f, " <code>", doc_member(c, "id"), "</code> ");
        html_el(f, "", doc_member(c, "title"), "</h3>\n");
        html_el(f, "<p>", doc_member(c, "summary"), "</p>\n");
        write_gpu_table(f, c);
        write_fix(f, c);
        write_evidence(f, json_get(c, "evidence"));
        fputs("</div>\n", f);
    }
    free(idx);
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

/* ---- per-GPU figures ------------------------------------------------------
 * The per-GPU probes report the measured devices' figures under their slot
 * (gpu.<j>.bw.*, gpu.<j>.membw.*, gpu.<j>.gemm_peak.*; the slots in
 * gpu.measured, probes/probe_each_gpu.c); each GPU's charts carry its own
 * derived peaks (probes/probe_peaks.c) as reference lines, read by their
 * exact names. */

/* the number fact gpu.<slot>.<rest>; name receives its name */
static double slot_num(const struct diff_doc *d, int slot, const char *rest,
                       char name[FACT_NAME_MAX])
{
    return doc_num(d, fact_gpu_name(name, slot, rest));
}

/* the derived peak `what` (fp16_tflops, mem_gbs, link_gbs) of a slot: the
 * sysfs GPU's gpu.<slot>.peak.<what>, else (a device with no sysfs GPU)
 * its runtime device's runtime.dev.<i>.peak.<what>. name receives the fact
 * read, "" when the report has neither; NaN when unknown or absent. */
static double slot_peak(const struct diff_doc *d, int slot, const char *what,
                        char name[FACT_NAME_MAX])
{
    char rest[FACT_NAME_MAX], dev[FACT_NAME_MAX];
    snprintf(rest, sizeof(rest), "peak.%s", what);
    double v = slot_num(d, slot, rest, name);
    if (doc_fact(d, name))
        return v;
    double i = slot_num(d, slot, "runtime_device", dev);
    if (isfinite(i) && i >= 0) {
        snprintf(name, FACT_NAME_MAX, "runtime.dev.%d.peak.%s", (int)i, what);
        if (doc_fact(d, name))
            return doc_num(d, name);
    }
    name[0] = '\0';
    return NAN;
}

/* "<what> peak not derived: <why>", the why from the peak fact's reason */
static void peak_unknown(FILE *f, const struct diff_doc *d, const char *what, const char *name)
{
    const char *why = *name ? diff_fact_reason(d, name) : NULL;
    if (!*name)
        why = "no derived peak for this device in the report";
    else if (!why || !*why)
        why = "no reason recorded";
    if (str_starts(why, "not derived"))
        why += strlen("not derived");
    why += strspn(why, ": ");
    fputs("<p class=\"unknown\">", f);
    html_put(f, what);
    fputs(" peak not derived: ", f);
    html_put(f, *why ? why : "no reason recorded");
    fputs("</p>\n", f);
}

/* why a probe measured nothing on a slot (slot < 0: on no GPU): its
 * <probe>.why, else its error, else hint */
static void not_measured(FILE *f, const struct diff_doc *d, int slot, const char *probe,
                         const char *what, const char *hint)
{
    char name[FACT_NAME_MAX], rest[64];
    const char *why = NULL;
    static const char *const keys[] = {"why", "error"};
    for (size_t k = 0; k < ARRAY_SIZE(keys) && !(why && *why); k++) {
        snprintf(rest, sizeof(rest), "%s.%s", probe, keys[k]);
        if (slot >= 0)
            fact_gpu_name(name, slot, rest);
        else
            snprintf(name, sizeof(name), "gpu.%s", rest);
        why = doc_str(d, name);
    }
    fputs("<p class=\"unknown\">", f);
    html_put(f, what);
    fputs(" (", f);
    html_put(f, why && *why ? why : hint);
    fputs(").</p>\n", f);
}

/* the figures named gpu.<slot>.<facts[i][0]> that the report holds, as
 * bars labelled facts[i][1]; returns how many */
static size_t slot_bars(const struct diff_doc *d, int slot, const char *const (*facts)[2],
                        size_t nf, struct svg_bar *bars)
{
    size_t n = 0;
    for (size_t i = 0; i < nf; i++) {
        char name[FACT_NAME_MAX];
        double v = slot_num(d, slot, facts[i][0], name);
        if (doc_fact(d, name))
            bars[n++] = (struct svg_bar){facts[i][1], v, NAN, NULL, 0};
    }
    return n;
}

static void chart_title(struct strbuf *sb, int slot, const char *what)
{
    strbuf_release(sb);
    strbuf_addf(sb, "GPU %d: %s", slot, what);
}

static void plot_copies(FILE *f, const struct diff_doc *d, int slot, struct strbuf *title)
{
    static const char *const copy[][2] = {{"bw.h2d_pinned_gbs", "h2d_pinned_gbs"},
                                          {"bw.d2h_pinned_gbs", "d2h_pinned_gbs"},
                                          {"bw.h2d_pageable_gbs", "h2d_pageable_gbs"},
                                          {"bw.d2h_pageable_gbs", "d2h_pageable_gbs"}};
    struct svg_bar bars[ARRAY_SIZE(copy)];
    size_t n = slot_bars(d, slot, copy, ARRAY_SIZE(copy), bars);
    if (!n) {
        not_measured(f, d, slot, "bw", "No copy bandwidth was measured on this GPU",
                     "the bw probe runs at --level standard on a GPU");
        return;
    }
    /* the derived PCIe payload rate; for a device with no sysfs GPU, the
     * payload rate the bandwidth probe computed from the runtime's link */
    char pname[FACT_NAME_MAX], lname[FACT_NAME_MAX];
    double link = slot_peak(d, slot, "link_gbs", pname);
    double ref = isfinite(link) ? link : slot_num(d, slot, "bw.link_payload_gbs", lname);
    chart_title(title, slot, "PCIe copies (GB/s)");
    svg_bar_chart(f, title->buf, "GB/s", bars, n, ref, isfinite(link) ? pname : lname);
    if (!isfinite(link))
        peak_unknown(f, d, "PCIe link", pname);
    char fname[FACT_NAME_MAX];
    double frac = slot_num(d, slot, "bw.h2d_payload_fraction", fname);
    if (isfinite(frac))
        fprintf(f, "<p>Pinned host-to-device copies reach %.2f of the link's payload rate.</p>\n",
                frac);
}

static void plot_membw(FILE *f, const struct diff_doc *d, int slot, struct strbuf *title)
{
    static const char *const mem[][2] = {
        {"membw.copy_gbs", "copy"},   {"membw.mul_gbs", "mul"}, {"membw.add_gbs", "add"},
        {"membw.triad_gbs", "triad"}, {"membw.dot_gbs", "dot"}, {"bw.triad_gbs", "triad (bw)"}};
    struct svg_bar bars[ARRAY_SIZE(mem)];
    size_t n = slot_bars(d, slot, mem, ARRAY_SIZE(mem), bars);
    if (!n) {
        not_measured(f, d, slot, "membw", "No device memory bandwidth was measured on this GPU",
                     "the mem.bandwidth probe runs at --level standard on a GPU");
        return;
    }
    char pname[FACT_NAME_MAX];
    double peak = slot_peak(d, slot, "mem_gbs", pname);
    chart_title(title, slot, "device memory bandwidth (GB/s)");
    svg_bar_chart(f, title->buf, "GB/s", bars, n, peak, pname);
    if (!isfinite(peak))
        peak_unknown(f, d, "Memory", pname);
}

static void plot_gemm(FILE *f, const struct diff_doc *d, int slot, struct strbuf *title)
{
    static const char *const dt[] = {"fp16", "bf16", "fp32"};
    struct svg_bar bars[ARRAY_SIZE(dt)];
    char pnames[ARRAY_SIZE(dt)][FACT_NAME_MAX];
    size_t n = 0, nmiss = 0;
    for (size_t i = 0; i < ARRAY_SIZE(dt); i++) {
        char name[FACT_NAME_MAX], rest[64];
        snprintf(rest, sizeof(rest), "gemm_peak.%s_tflops", dt[i]);
        double v = slot_num(d, slot, rest, name);
        if (!doc_fact(d, name))
            continue;
        snprintf(rest, sizeof(rest), "%s_tflops", dt[i]);
        double peak = slot_peak(d, slot, rest, pnames[n]);
        nmiss += !isfinite(peak);
        bars[n++] = (struct svg_bar){dt[i], v, peak, "peak", 0};
    }
    if (!n) {
        not_measured(f, d, slot, "gemm_peak", "No GEMM rate was measured on this GPU",
                     "gpu.gemm_peak runs at --level standard on a GPU");
        return;
    }
    chart_title(title, slot, "GEMM (TFLOP/s)");
    svg_bar_chart(f, title->buf, "TFLOP/s", bars, n, NAN, NULL);
    if (nmiss < n)
        fputs("<p>Black ticks: this GPU's derived peaks.</p>\n", f);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(bars[i].mark))
            peak_unknown(f, d, bars[i].label, pnames[i]);
}

/* "GPU 2: AMD Instinct MI300X, 0000:05:00.0" */
static void gpu_heading(FILE *f, const struct diff_doc *d, int slot)
{
    char name[FACT_NAME_MAX], pci[FACT_NAME_MAX];
    const char *label = doc_str(d, fact_gpu_name(name, slot, "runtime_name"));
    const char *addr = doc_str(d, fact_gpu_name(pci, slot, "pci"));
    if (!addr)
        addr = doc_str(d, fact_gpu_name(pci, slot, "runtime_pci"));
    fprintf(f, "<h3>GPU %d: ", slot);
    html_put(f, label ? label : "unknown name");
    fputs(", ", f);
    html_put(f, addr ? addr : "unknown PCI address");
    fputs("</h3>\n", f);
}

static void plot_gpus(FILE *f, const struct diff_doc *d)
{
    fputs("<h2>GPU figures</h2>\n", f);
    const struct json *m = doc_fact(d, "gpu.measured");
    size_t n = 0;
    struct strbuf title = STRBUF_INIT;
    for (size_t i = 0; m && m->type == JSON_ARR && i < m->n; i++) {
        const struct json *s = m->items[i];
        char *end;
        long slot = s->type == JSON_STR ? strtol(s->str, &end, 10) : -1;
        if (s->type != JSON_STR || *end || slot < 0 || slot > 4095)
            continue;
        n++;
        gpu_heading(f, d, (int)slot);
        plot_copies(f, d, (int)slot, &title);
        plot_membw(f, d, (int)slot, &title);
        plot_gemm(f, d, (int)slot, &title);
    }
    strbuf_release(&title);
    if (n)
        return;
    not_measured(f, d, -1, "bw", "No copy bandwidth was measured in this report",
                 "the bw probe runs at --level standard on a GPU");
    not_measured(f, d, -1, "membw", "No device memory bandwidth was measured in this report",
                 "the mem.bandwidth probe runs at --level standard on a GPU");
    not_measured(f, d, -1, "gemm_peak", "No GEMM rate was measured in this report",
                 "gpu.gemm_peak runs at --level standard on a GPU");
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

int report_html_write(FILE *f, const struct diff_doc *d, const struct vla_budget *b, size_t nb,
                      int redacted)
{
    const char *host = doc_host(d, "hostname");
    struct strbuf title = STRBUF_INIT;
    strbuf_addf(&title, "rocm-vla-doctor report: %s", host ? host : "unknown host");
    html_page_begin(f, title.buf);
    strbuf_release(&title);
    fputs("<section class=\"answer\">\n", f);
    write_verdict(f, d);
    write_findings(f, d);
    fputs("</section>\n<h2>Machine</h2>\n", f);
    write_header(f, d);
    write_table(f, d);
    plot_vla(f, d, b, nb);
    plot_gpus(f, d);
    write_facts(f, d);
    fputs(redacted ? "<p class=\"redacted\">Host name, user name and home directories "
                     "redacted (--redact).</p>\n"
                   : "<p class=\"redacted\">Not redacted: the host name, user name and home "
                     "directories are shown; --redact hides them for sharing.</p>\n",
          f);
    html_page_end(f);
    if (fflush(f) || ferror(f))
        return error("cannot write the HTML report");
    return 0;
}
