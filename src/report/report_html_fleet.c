/* report_html_fleet.c - the fleet page (report_html_fleet.h): nodes, and a
 * dot plot with the median for each figure that matters across nodes. */
#include "report_html_fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "html.h"
#include "report_doc.h"

const char *const html_fleet_figures[][2] = {
    {"bw.h2d_pinned_gbs", "GB/s"},
    {"bw.d2h_pinned_gbs", "GB/s"},
    {"gpu.gemm_peak.fp16_tflops", "TFLOP/s"},
    {"gpu.gemm_peak.bf16_tflops", "TFLOP/s"},
    {"gpu.gemm_peak.fp32_tflops", "TFLOP/s"},
    {"vla.latency.total_ms", "ms"},
    {NULL, NULL},
};

static const char *node_name(const struct diff_doc *d)
{
    const char *h = doc_host(d, "hostname");
    return h && *h ? h : d->name ? d->name : "unknown";
}

static void nodes_table(FILE *f, const struct diff_doc *docs, size_t n)
{
    fputs("<h2>Nodes</h2>\n<table class=\"nodes\">\n<thead><tr><th>Node</th><th>Exit code</th>"
          "<th>Failed checks</th><th>ROCm</th><th>amdgpu driver</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const struct diff_doc *d = &docs[i];
        int code = doc_exit_code(d);
        fputs("<tr><td>", f);
        html_put(f, node_name(d));
        fprintf(f, "</td><td class=\"num\">%d</td><td>", code);
        int first = 1;
        for (size_t j = 0; d->checks && j < d->checks->n; j++) {
            const struct json *c = d->checks->items[j];
            const char *st = diff_check_status(c);
            const struct json *id = json_get(c, "id");
            if (!st || !strcmp(st, "pass") || !strcmp(st, "skip") || !strcmp(st, "warn") || !id ||
                id->type != JSON_STR)
                continue;
            fputs(first ? "" : ", ", f);
            first = 0;
            fputs("<code>", f);
            html_put(f, id->str);
            fputs("</code> ", f);
            html_status(f, st);
        }
        fputs("</td>", f);
        const char *stack[] = {"rocm.version", "driver.version"};
        for (size_t k = 0; k < ARRAY_SIZE(stack); k++) {
            struct strbuf sb = STRBUF_INIT;
            doc_fact_text(&sb, d, stack[k]);
            fputs("<td>", f);
            html_put(f, sb.buf);
            fputs("</td>", f);
            strbuf_release(&sb);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

int html_write_fleet(FILE *f, const struct diff_doc *docs, size_t n, const char *title)
{
    html_page_begin(f, title ? title : "rocm-vla-doctor fleet");
    fprintf(f, "<p>%zu node%s.</p>\n", n, n == 1 ? "" : "s");
    nodes_table(f, docs, n);
    fputs("<h2>Spread across nodes</h2>\n", f);
    const char **labels = xcalloc(n ? n : 1, sizeof(*labels));
    double *v = xcalloc(n ? n : 1, sizeof(*v));
    for (size_t k = 0; html_fleet_figures[k][0]; k++) {
        const char *fact = html_fleet_figures[k][0];
        size_t known = 0;
        for (size_t i = 0; i < n; i++) {
            labels[i] = node_name(&docs[i]);
            v[i] = doc_num(&docs[i], fact);
            known += isfinite(v[i]);
        }
        if (!known) {
            fputs("<p class=\"unknown\"><code>", f);
            html_put(f, fact);
            fputs("</code>: unknown on every node.</p>\n", f);
            continue;
        }
        svg_strip_plot(f, fact, html_fleet_figures[k][1], labels, v, n);
    }
    free(labels);
    free(v);
    html_page_end(f);
    if (fflush(f) || ferror(f))
        return error("cannot write the fleet page");
    return 0;
}
