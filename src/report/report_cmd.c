/* report_cmd.c - the `report` command (an existing JSON report as an HTML
 * page or a markdown summary) and the same rendering for `check --html`
 * and `check --markdown`, which parse the JSON report they just made: one
 * path from facts to page, so a page made later from the file is the page
 * the run would have made. */
#include "report_doc.h"
#include "report_sweep.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../core/opts.h"
#include "../core/version.h"
#include "../core/outfile.h"
#include "../core/util.h"

enum { REPORT_EXIT_OK = 0, REPORT_EXIT_USAGE = 2 };

static int render(FILE *html, FILE *md, const struct diff_doc *d, const struct checkset *cs,
                  int redact)
{
    int rc = 0;
    if (html) {
        struct factset fs = FACTSET_INIT;
        struct vla_budget b[VLA_BUDGETS_MAX];
        doc_factset(d, &fs);
        size_t nb = vla_budgets(cs, &fs, b, VLA_BUDGETS_MAX);
        factset_release(&fs);
        rc |= report_html_write(html, d, b, nb);
    }
    if (md)
        rc |= report_markdown_write(md, d, redact);
    return rc ? -1 : 0;
}

int report_render_json(FILE *html, FILE *md, const char *json, size_t len,
                       const struct checkset *cs, int redact)
{
    struct diff_doc d;
    if (diff_doc_parse(&d, "the JSON report of this run", json, len))
        return -1;
    int rc = render(html, md, &d, cs, redact);
    diff_doc_release(&d);
    return rc;
}

/* a check report (rocm-vla-doctor/1) or a sweep report
 * (rocm-vla-doctor-sweep/1, src/report/report_sweep.h), told apart by the
 * document's "schema" */
static int render_file(FILE *html, FILE *md, const char *path, const char *checks, int redact)
{
    char *text, err[160];
    size_t len;
    if (diff_doc_read(path, &text, &len))
        return -1;
    int rc;
    struct json *root = json_parse(text, len, err, sizeof(err));
    if (root && report_sweep_is(root)) {
        rc = report_sweep_validate(root, path);
        if (!rc && html)
            rc = report_sweep_html(html, root);
        if (!rc && md)
            rc = report_sweep_markdown(md, root);
    } else { /* a check report, or diff's reader says why it is none */
        struct checkset cs;
        struct diff_doc d;
        rc = -1;
        if (checks_load_default(&cs, checks) == 0) {
            if (diff_doc_parse(&d, path, text, len) == 0) {
                rc = render(html, md, &d, &cs, redact);
                diff_doc_release(&d);
            }
            checks_release(&cs);
        }
    }
    json_free(root);
    free(text);
    return rc;
}

static void report_usage(FILE *out)
{
    fputs("usage: rocm-vla-doctor report [--html FILE|-] [--markdown FILE|-] [--no-redact]\n"
          "                              [--checks FILE] REPORT.json\n"
          "Renders a JSON report (check --json, or bench --sweep --json) as one\n"
          "self-contained HTML page and/or a markdown summary for an issue tracker\n"
          "(host name, user name and home directories redacted unless --no-redact).\n"
          "Exit 0 when written, 2 on a usage error, an unreadable or invalid report or\n"
          "an unwritable output.\n",
          out);
}

int report_cmd(int argc, char **argv)
{
    enum { O_HTML = 256, O_MD, O_NOREDACT, O_CHECKS, O_HELP, O_VERSION };
    static const struct option lo[] = {
        {"html", required_argument, NULL, O_HTML},
        {"markdown", required_argument, NULL, O_MD},
        {"no-redact", no_argument, NULL, O_NOREDACT},
        {"checks", required_argument, NULL, O_CHECKS},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    const char *html = NULL, *md = NULL, *checks = NULL;
    int redact = 1, c;
    optind = 1;
    while ((c = opt_next(argc, argv, "h", lo, "report")) != -1) {
        switch (c) {
        case O_HTML:
            html = optarg;
            break;
        case O_MD:
            md = optarg;
            break;
        case O_NOREDACT:
            redact = 0;
            break;
        case O_CHECKS:
            checks = optarg;
            break;
        case 'h':
        case O_HELP:
            report_usage(stdout);
            return REPORT_EXIT_OK;
        case O_VERSION:
            version_print(stdout);
            return REPORT_EXIT_OK;
        default: /* OPT_ERROR: opt_next said why */
            report_usage(stderr);
            return REPORT_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        error("report takes one JSON report (got %d)", argc - optind);
        report_usage(stderr);
        return REPORT_EXIT_USAGE;
    }
    if (!html && !md) {
        error("report needs --html FILE or --markdown FILE");
        report_usage(stderr);
        return REPORT_EXIT_USAGE;
    }
    if (html && md && strcmp(html, md) == 0)
        return error("--html and --markdown name the same file '%s'", html), REPORT_EXIT_USAGE;
    /* the outputs first: a bad path fails before the report is read */
    struct outfile hf = {0}, mf = {0};
    if (html && outfile_open(&hf, html, 1))
        return REPORT_EXIT_USAGE;
    if (md && outfile_open(&mf, md, 1)) {
        if (hf.f)
            outfile_close(&hf, 1);
        return REPORT_EXIT_USAGE;
    }
    int failed = render_file(hf.f, mf.f, argv[optind], checks, redact) != 0;
    int rc = failed ? REPORT_EXIT_USAGE : REPORT_EXIT_OK;
    if (hf.f && outfile_close(&hf, failed))
        rc = REPORT_EXIT_USAGE;
    if (mf.f && outfile_close(&mf, failed))
        rc = REPORT_EXIT_USAGE;
    return rc;
}
