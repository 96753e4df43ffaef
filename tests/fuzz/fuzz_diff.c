/* fuzz_diff.c - diff's report reader (src/diff/diff.c): a JSON report validated
 * as a rocm-vla-doctor report; two valid reports are compared and the
 * result rendered as text, JSON and HTML (to /dev/null), and each report as
 * the HTML page, the markdown summary (redacted) and, both together, the
 * fleet page (src/report/).
 * Input: two reports separated by a NUL byte (baseline, current), or one
 * report compared with itself. */
#include <stdio.h>

#include "../../src/diff/diff.h"
#include "../../src/report/report_doc.h"
#include "../../src/report/report_html_fleet.h"
#include "fuzz.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    const uint8_t *nul = memchr(data, 0, size);
    size_t n1 = nul ? (size_t)(nul - data) : size;
    const char *t2 = nul ? (const char *)nul + 1 : (const char *)data;
    size_t n2 = nul ? size - n1 - 1 : size;
    struct diff_doc a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    int ra = diff_doc_parse(&a, "base.json", (const char *)data, n1);
    int rb = diff_doc_parse(&b, "cur.json", t2, n2);
    if (ra == 0 && rb == 0) {
        struct diff_opts o;
        memset(&o, 0, sizeof(o));
        diff_tol_add(&o, "perf.gemm=5");
        struct diff_result r;
        memset(&r, 0, sizeof(r));
        diff_compare(&a, &b, &o, &r);
        struct diff_text_opts to = {1, 1, 1};
        diff_write_text(devnull, &a, &b, &r, &to);
        diff_write_json(devnull, &a, &b, &r);
        diff_write_html(devnull, &a, &b, &r);
        diff_result_release(&r);
        diff_opts_release(&o);
        struct diff_doc both[2] = {a, b};
        html_write_fleet(devnull, both, 2, NULL);
    }
    /* the renderers of one report (no checks file: no budgets) */
    if (ra == 0) {
        report_html_write(devnull, &a, NULL, 0, 0);
        report_markdown_write(devnull, &a, 1);
    }
    if (ra == 0)
        diff_doc_release(&a);
    if (rb == 0)
        diff_doc_release(&b);
    return 0;
}
