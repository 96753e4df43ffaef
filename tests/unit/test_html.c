/* test_html.c - the HTML and markdown renderers' pure parts: escaping
 * (html_put), the SVG plots' bars, dots, marks, medians and scales for 0,
 * negative, huge and unknown values (src/report/svg.c), the fleet page
 * (html_write_fleet), the free-text redaction (redact_text), the markdown
 * summary's escaping and redaction, and the report's facts typed back into a
 * factset. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/fact_catalog.h"
#include "src/core/util.h"
#include "src/diff/diff.h"
#include "src/report/html.h"
#include "src/report/report_doc.h"
#include "src/report/report_html_fleet.h"
#include "src/snapshot/snapshot_redact.h"
#include "test.h"

/* what a renderer wrote, as a string (caller frees) */
#define CAPTURE(buf, stmt)                                                                         \
    do {                                                                                           \
        size_t len_;                                                                               \
        FILE *f = open_memstream(&(buf), &len_);                                                   \
        stmt;                                                                                      \
        fclose(f);                                                                                 \
    } while (0)

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* no NaN or infinity reached a coordinate */
static int finite_svg(const char *s)
{
    return !strstr(s, "nan") && !strstr(s, "inf") && !strstr(s, "NaN");
}

static void test_escape(void)
{
    char *out;
    CAPTURE(out, html_put(f, "<script>alert('x')</script> & \"q\" \x1b[31mred"));
    CHECK_STR(out, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot; "
                   "\\x1b[31mred");
    free(out);
    CAPTURE(out, html_put(f, "bad \xff byte \xe2\x80\xae bidi"));
    CHECK(strstr(out, "\\xff") && strstr(out, "\\u202e") && !strchr(out, '\xff'));
    free(out);
    CAPTURE(out, (html_num(f, NAN), fputc(' ', f), html_num(f, 2.5), fputc(' ', f),
                  html_num(f, INFINITY)));
    CHECK_STR(out, "unknown 2.5 unknown");
    free(out);
}

static void test_bars(void)
{
    struct svg_bar b[] = {
        {"<b>one</b>", 10, 15, "budget", 0}, {"zero", 0, NAN, NULL, 0},
        {"negative", -5, NAN, NULL, 0},      {"unknown one", NAN, 4, NULL, 0},
        {"over", 20, 12, NULL, 1},
    };
    char *out;
    CAPTURE(out, svg_bar_chart(f, "t & <t>", "ms", b, 5, 18, "link"));
    CHECK(count(out, "<rect class=\"bar") == 4);
    CHECK(count(out, "<rect class=\"bar over\"") == 1);
    CHECK(count(out, ">unknown</text>") == 1);
    CHECK(count(out, "class=\"mark\"") == 3); /* the unknown bar keeps its budget mark */
    CHECK(count(out, "class=\"ref\"") == 1);
    CHECK(strstr(out, "&lt;b&gt;one&lt;/b&gt;") && !strstr(out, "<b>"));
    CHECK(strstr(out, "t &amp; &lt;t&gt;") != NULL);
    CHECK(finite_svg(out));
    /* the negative bar starts left of the zero line: x of zero > x of -5 */
    CHECK(strstr(out, "-5 ms") != NULL);
    free(out);

    /* nothing known: rows say unknown, no bar, no reference line */
    struct svg_bar u[] = {{"a", NAN, NAN, NULL, 0}, {"b", NAN, NAN, NULL, 0}};
    CAPTURE(out, svg_bar_chart(f, "none", "GB/s", u, 2, NAN, NULL));
    CHECK(count(out, "<rect") == 0 && count(out, ">unknown</text>") == 2);
    CHECK(!strstr(out, "class=\"ref\"") && finite_svg(out));
    free(out);

    /* all zero, and values at the ends of double's range: finite coordinates */
    struct svg_bar z[] = {{"a", 0, NAN, NULL, 0}, {"b", 0, NAN, NULL, 0}};
    CAPTURE(out, svg_bar_chart(f, "zeros", "", z, 2, NAN, NULL));
    CHECK(count(out, "<rect class=\"bar") == 2 && finite_svg(out));
    free(out);
    struct svg_bar h[] = {{"a", 1e308, NAN, NULL, 0}, {"b", -1e308, NAN, NULL, 0}};
    CAPTURE(out, svg_bar_chart(f, "huge", "", h, 2, 1.7e308, "r"));
    CHECK(count(out, "<rect class=\"bar") == 2 && finite_svg(out));
    free(out);
    CAPTURE(out, svg_bar_chart(f, "empty", "", NULL, 0, NAN, NULL));
    CHECK(strstr(out, "<svg") && strstr(out, "</svg>") && !strstr(out, "<rect"));
    free(out);
}

static void test_strip(void)
{
    const char *labels[] = {"n1", "n2", "<n3>", "n4"};
    double v[] = {3, NAN, 1, 2};
    char *out;
    CAPTURE(out, svg_strip_plot(f, "gemm", "TFLOP/s", labels, v, 4));
    CHECK(count(out, "<circle class=\"dot\"") == 3);
    CHECK(count(out, ">unknown</text>") == 1);
    CHECK(count(out, "class=\"median\"") == 1 && strstr(out, "median 2 TFLOP/s"));
    CHECK(strstr(out, "&lt;n3&gt;") && !strstr(out, "<n3>") && finite_svg(out));
    free(out);
    double u[] = {NAN, NAN};
    CAPTURE(out, svg_strip_plot(f, "none", "ms", labels, u, 2));
    CHECK(count(out, "<circle") == 0 && !strstr(out, "median") && finite_svg(out));
    free(out);

    CHECK(svg_median(v, 4) == 2);
    double even[] = {4, 1, 2, 3};
    CHECK(svg_median(even, 4) == 2.5);
    CHECK(isnan(svg_median(u, 2)) && isnan(svg_median(NULL, 0)));
    double neg[] = {-1, -3};
    CHECK(svg_median(neg, 2) == -2);
}

static void test_redact(void)
{
    struct redact_word w[] = {{"node07", "<host>", 0}, {"alice", "<user>", 0}, {"x", "<no>", 0}};
    char *r = redact_text("alice@node07: /home/alice/venv/bin/python, /root/.cache, "
                          "/var/home/bob/x, node070 malice /srv/root/a x",
                          w, 3);
    CHECK_STR(r, "<user>@<host>: ~/venv/bin/python, ~/.cache, ~/x, node070 malice /srv/root/a x");
    free(r);
    r = redact_text("", w, 3);
    CHECK_STR(r, "");
    free(r);
    /* every form of a name (issue 30): any case, next to - _ . /, and a
     * host's full name with its domain; never inside a longer run */
    struct redact_word g[] = {{"grace", "<user>", 0}, {"lab-pc10", "<host>", 1}};
    r = redact_text("grace GRACE /data/grace-scratch lab-pc10_tools LAB-PC10.corp.example.org: "
                    "graceful lab-pc100 x_grace_y",
                    g, 2);
    CHECK_STR(r, "<user> <user> /data/<user>-scratch <host>_tools <host>: graceful lab-pc100 "
                 "x_<user>_y");
    free(r);
    r = redact_text("/home/ and /home and /rootfs", NULL, 0);
    CHECK_STR(r, "/home/ and /home and /rootfs");
    free(r);
}

static int doc(struct diff_doc *d, const char *name, const char *host, const char *facts,
               const char *checks)
{
    char *text = xasprintf("{\"schema\": \"rocm-vla-doctor/1\", \"tool\": {\"version\": \"t\"}, "
                           "\"host\": {\"hostname\": \"%s\", \"level\": \"full\"}, "
                           "\"facts\": {%s}, \"facts_meta\": {\"vla.latency.total_ms\": "
                           "{\"source\": \"s\", \"reason\": \"pass crashed\"}}, \"checks\": [%s], "
                           "\"summary\": {\"exit_code\": 1}}",
                           host, facts, checks);
    int rc = diff_doc_parse(d, name, text, strlen(text));
    free(text);
    return rc;
}

static void test_fleet(void)
{
    struct diff_doc d[3];
    const char *fail = "{\"id\": \"kfd.access\", \"status\": \"fail\", \"summary\": \"s\", "
                       "\"evidence\": {}}";
    /* node-a measured two GPUs, node b one, c none (a quick run) */
    CHECK(doc(&d[0], "a.json", "node-a",
              "\"gpu.measured\": [\"0\", \"3\"], \"gpu.0.bw.h2d_pinned_gbs\": 25, "
              "\"gpu.3.bw.h2d_pinned_gbs\": 23, \"vla.latency.total_ms\": 30",
              "") == 0);
    CHECK(doc(&d[1], "b.json", "<img>",
              "\"gpu.measured\": [\"0\"], \"gpu.0.bw.h2d_pinned_gbs\": 12, "
              "\"vla.latency.total_ms\": null",
              fail) == 0);
    CHECK(doc(&d[2], "c.json", "", "\"gpu.bw.available\": false", "") == 0);
    char *out;
    int rc;
    CAPTURE(out, rc = html_write_fleet(f, d, 3, NULL));
    CHECK(rc == 0);
    /* h2d: a dot per measured GPU (3), c's row unknown; vla: one dot and
     * two unknown rows; the others: a line */
    CHECK(count(out, "<circle class=\"dot\"") == 4);
    CHECK(count(out, "class=\"median\"") == 2 && strstr(out, "median 23 GB/s"));
    CHECK(strstr(out, "node-a GPU 3") && strstr(out, "node-a GPU 0") &&
          strstr(out, "&lt;img&gt; GPU 0"));
    CHECK(strstr(out, "<code>gpu.&lt;j&gt;.gemm_peak.fp16_tflops</code>: unknown on every node"));
    CHECK(strstr(out, "&lt;img&gt;") && !strstr(out, "<img>"));
    CHECK(strstr(out, "c.json") != NULL); /* no host name: the file's */
    CHECK(strstr(out, "<code>kfd.access</code>") != NULL);
    CHECK(!strstr(out, "http") && !strstr(out, "<script"));
    free(out);
    CAPTURE(out, rc = html_write_fleet(f, d, 0, "empty <fleet>"));
    CHECK(rc == 0 && strstr(out, "0 nodes") && strstr(out, "empty &lt;fleet&gt;"));
    free(out);
    for (int i = 0; i < 3; i++)
        diff_doc_release(&d[i]);
}

static void test_markdown(void)
{
    struct diff_doc d;
    const char *checks =
        "{\"id\": \"kfd.access\", \"title\": \"t\", \"status\": \"fail\", \"summary\": "
        "\"alice on node07 cannot open /dev/kfd *now* | <b>\", \"fix\": \"sudo usermod -aG "
        "render alice\\nthen log in\", \"evidence\": {\"python.prefix\": \"/home/alice/venv\", "
        "\"k\": \"~~~~ fence\"}}";
    CHECK(doc(&d, "m.json", "node07",
              "\"user.name\": \"alice\", \"gpu.count\": 1, \"gpu.0.gfx\": \"gfx1100\", "
              "\"python.present\": false, \"python.error\": \"python3 crashed: SIGSEGV\", "
              "\"python.torch_version\": null, \"probe.hip.status\": \"error\", "
              "\"probe.hip.message\": \"SIGSEGV in hipInit\"",
              checks) == 0);
    char *out;
    int rc;
    CAPTURE(out, rc = report_markdown_write(f, &d, 1));
    CHECK(rc == 0);
    CHECK(!strstr(out, "alice") && !strstr(out, "node07"));
    CHECK(strstr(out, "&lt;user&gt; on &lt;host&gt; cannot open /dev/kfd \\*now\\* \\| &lt;b&gt;"));
    CHECK(strstr(out, "Fix: sudo usermod -aG render &lt;user&gt; then log in"));
    CHECK(strstr(out, "| Python | error: python3 crashed: SIGSEGV |"));
    CHECK(strstr(out, "| probe hip | error: SIGSEGV in hipInit |"));
    CHECK(strstr(out, "python.prefix = ~/venv") && strstr(out, "\n~~~~~\n"));
    CHECK(strstr(out, "<details>") && strstr(out, "</details>"));
    free(out);
    CAPTURE(out, rc = report_markdown_write(f, &d, 0));
    CHECK(rc == 0 && strstr(out, "alice") && strstr(out, "/home/alice/venv"));
    free(out);
    diff_doc_release(&d);
}

static void test_factset(void)
{
    struct diff_doc d;
    CHECK(doc(&d, "f.json", "h",
              "\"gpu.count\": 2, \"vla.latency.total_ms\": null, \"gpu.1.bw.link_gbs\": 32, "
              "\"user.groups\": [\"a\", \"b\"], \"driver.loaded\": true",
              "") == 0);
    struct factset fs = FACTSET_INIT;
    doc_factset(&d, &fs);
    const struct fact *c = fact_get(&fs, "gpu.count"), *l = fact_get(&fs, "gpu.1.bw.link_gbs");
    const struct fact *u = fact_get(&fs, "vla.latency.total_ms");
    CHECK(c && c->type == FACT_INT && c->i == 2);
    CHECK(l && l->type == FACT_FLOAT && l->f == 32); /* declared float, written as 32 */
    CHECK(u && u->type == FACT_UNKNOWN && strstr(u->reason, "pass crashed"));
    CHECK(fact_get(&fs, "user.groups")->list.n == 2);
    CHECK(fact_get(&fs, "driver.loaded")->b == 1);
    factset_release(&fs);
    CHECK(doc_exit_code(&d) == 1 && isnan(doc_num(&d, "absent.fact")));
    diff_doc_release(&d);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    test_escape();
    test_bars();
    test_strip();
    test_redact();
    test_fleet();
    test_markdown();
    test_factset();
    return test_report();
}
