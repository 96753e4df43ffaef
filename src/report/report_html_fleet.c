/* report_html_fleet.c - the fleet page (report_html_fleet.h): nodes, and a
 * dot plot with the median for each figure that matters across nodes. */
#include "report_html_fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "html.h"
#include "report_doc.h"

/* the figures drawn, in page order: a per-GPU figure (per_gpu) is read as
 * gpu.<j>.<fact> for each slot j of the node's gpu.measured
 * (probes/probe_each_gpu.c), one dot per measured GPU */
static const struct {
    const char *fact, *unit;
    int per_gpu;
} figures[] = {
    {"bw.h2d_pinned_gbs", "GB/s", 1},        {"bw.d2h_pinned_gbs", "GB/s", 1},
    {"membw.best_gbs", "GB/s", 1},           {"gemm_peak.fp16_tflops", "TFLOP/s", 1},
    {"gemm_peak.bf16_tflops", "TFLOP/s", 1}, {"gemm_peak.fp32_tflops", "TFLOP/s", 1},
    {"vla.latency.total_ms", "ms", 0},
};

/* the name `fleet` gives a node: the host.hostname fact, else the report's
 * host section, else the file's name */
static const char *node_name(const struct diff_doc *d)
{
    const char *h = doc_str(d, "host.hostname");
    if (!h || !*h)
        h = doc_host(d, "hostname");
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

/* the slots of a node's gpu.measured; returns how many (at most max) */
static size_t measured(const struct diff_doc *d, int *slots, size_t max)
{
    const struct json *m = doc_fact(d, "gpu.measured");
    size_t n = 0;
    for (size_t i = 0; m && m->type == JSON_ARR && i < m->n && n < max; i++) {
        const struct json *s = m->items[i];
        char *end;
        long v = s->type == JSON_STR ? strtol(s->str, &end, 10) : -1;
        if (s->type == JSON_STR && !*end && v >= 0 && v < 4096)
            slots[n++] = (int)v;
    }
    return n;
}

#define FLEET_GPUS_MAX 64

/* one figure's dot plot: a row per node, or per node and measured GPU */
static void figure_plot(FILE *f, const struct diff_doc *docs, size_t n, size_t k)
{
    struct strlist labels = STRLIST_INIT;
    double *v = NULL;
    size_t rows = 0, known = 0;
    for (size_t i = 0; i < n; i++) {
        int slots[FLEET_GPUS_MAX];
        size_t ns = figures[k].per_gpu ? measured(&docs[i], slots, FLEET_GPUS_MAX) : 0;
        /* a node that measured no GPU still gets its row: "unknown" */
        for (size_t s = 0; s < (ns ? ns : 1); s++) {
            char name[FACT_NAME_MAX];
            const char *fact = figures[k].fact;
            if (ns)
                fact = fact_gpu_name(name, slots[s], figures[k].fact);
            v = xrealloc(v, (rows + 1) * sizeof(*v));
            v[rows] = figures[k].per_gpu && !ns ? NAN : doc_num(&docs[i], fact);
            known += isfinite(v[rows]);
            strlist_add_owned(&labels, ns ? xasprintf("%s GPU %d", node_name(&docs[i]), slots[s])
                                          : xstrdup(node_name(&docs[i])));
            rows++;
        }
    }
    char title[FACT_NAME_MAX];
    snprintf(title, sizeof(title), "%s%s", figures[k].per_gpu ? "gpu.<j>." : "", figures[k].fact);
    if (!known) {
        fputs("<p class=\"unknown\"><code>", f);
        html_put(f, title);
        fputs("</code>: unknown on every node.</p>\n", f);
    } else {
        svg_strip_plot(f, title, figures[k].unit, (const char *const *)labels.v, v, rows);
    }
    free(v);
    strlist_release(&labels);
}

/* what to drain, node and GPU with the check that failed (issue 34), and
 * reports that claim the same host */
static void drain_table(FILE *f, const struct diff_doc *docs, size_t n)
{
    const struct diff_doc **d = xcalloc(n ? n : 1, sizeof(*d));
    for (size_t i = 0; i < n; i++)
        d[i] = &docs[i];
    struct doc_drain *dr;
    size_t nd = doc_drain_list(d, n, &dr);
    if (nd)
        fputs("<h2>Drain</h2>\n<table class=\"drain\">\n<thead><tr><th>Node</th><th>GPU</th>"
              "<th>PCI</th><th>Check</th><th>Status</th><th>Summary</th></tr></thead>\n<tbody>\n",
              f);
    for (size_t i = 0; i < nd; i++) {
        html_el(f, "<tr><td>", doc_node_name(d[dr[i].node]), "</td>");
        if (dr[i].gpu < 0) {
            fputs("<td>the node</td><td></td>", f);
        } else {
            fprintf(f, "<td>%d</td>", dr[i].gpu);
            html_el(f, "<td><code>", dr[i].pci ? dr[i].pci : "unknown", "</code></td>");
        }
        html_el(f, "<td><code>", dr[i].check, "</code></td><td>");
        html_status(f, dr[i].status);
        html_el(f, "</td><td>", dr[i].summary ? dr[i].summary : "", "</td></tr>\n");
    }
    if (nd)
        fputs("</tbody>\n</table>\n", f);
    free(dr);
    for (int kind = 0; kind < 2; kind++) {
        struct doc_dup *du;
        size_t ndup = kind ? doc_same_gpus(d, n, &du) : doc_same_hosts(d, n, &du);
        for (size_t i = 0; i < ndup; i++) {
            html_el(f, "<p class=\"duplicate\">Duplicate: <code>", d[du[i].first]->name,
                    "</code> and <code>");
            html_el(f, "", d[du[i].later]->name,
                    kind ? "</code> both report the GPU of serial " : "</code> both report host ");
            html_el(f, "<code>", du[i].serial,
                    kind ? "</code>: one report twice, or a GPU moved between nodes.</p>\n"
                         : "</code>: one node twice, or two nodes with one name.</p>\n");
        }
        free(du);
    }
    free(d);
}

int html_write_fleet(FILE *f, const struct diff_doc *docs, size_t n, const char *title)
{
    return html_write_fleet_why(f, docs, n, title, NULL);
}

int html_write_fleet_why(FILE *f, const struct diff_doc *docs, size_t n, const char *title,
                         const struct strlist *why)
{
    html_page_begin(f, title ? title : "rocm-vla-doctor fleet");
    fprintf(f, "<p>%zu node%s.</p>\n", n, n == 1 ? "" : "s");
    /* the answer before the detail: what failed the fleet */
    if (why && why->n) {
        fputs("<h2>Why the fleet does not pass</h2>\n<ul class=\"why\">\n", f);
        for (size_t i = 0; i < why->n; i++) {
            fputs("<li>", f);
            html_put(f, why->v[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    } else if (why) {
        fputs("<p>Every node passes, no figure is an outlier, every version agrees.</p>\n", f);
    }
    drain_table(f, docs, n);
    nodes_table(f, docs, n);
    fputs("<h2>Spread across nodes</h2>\n", f);
    for (size_t k = 0; k < ARRAY_SIZE(figures); k++)
        figure_plot(f, docs, n, k);
    html_page_end(f);
    if (fflush(f) || ferror(f))
        return error("cannot write the fleet page");
    return 0;
}
