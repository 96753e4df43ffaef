/* report_cmd.c - the `report` command (an existing JSON report as an HTML
 * page or a markdown summary) and the same rendering for `check --html`
 * and `check --markdown`, which parse the JSON report they just made: one
 * path from facts to page, so a page made later from the file is the page
 * the run would have made. */
#include "../report/report_doc.h"
#include "../report/report_sweep.h"

#include <stdlib.h>
#include <string.h>

#include "../core/parse_options.h"
#include "../core/version.h"
#include "../core/outfile.h"
#include "../core/util.h"

enum { REPORT_EXIT_OK = 0, REPORT_EXIT_USAGE = 2 };

static int render(FILE *html, FILE *md, const struct diff_doc *d, const struct checkset *cs,
                  int redact)
{
    int rc = 0;
    struct strlist kept = STRLIST_INIT;
    if (html && (redact & REPORT_REDACT_HTML))
        report_doc_redact(d, &kept); /* the markdown below redacts alike */
    if (html) {
        struct factset fs = FACTSET_INIT;
        struct vla_budget b[VLA_BUDGETS_MAX];
        doc_factset(d, &fs);
        size_t nb = vla_budgets(cs, &fs, b, VLA_BUDGETS_MAX);
        factset_release(&fs);
        rc |= report_html_write(html, d, b, nb, redact & REPORT_REDACT_HTML);
    }
    if (md)
        rc |= report_markdown_write(md, d, redact & REPORT_REDACT_MD);
    strlist_release(&kept);
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
        /* a sweep report carries its budgets and names no host, user or home */
        if (checks || redact != REPORT_REDACT_MD)
            rc = error("%s: a sweep report is drawn as it is; %s does not apply", path,
                       checks ? "--checks" : "--redact or --no-redact");
        else
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

struct report_opts {
    const char *html, *md, *checks;
    int no_redact, redact;
};

static const struct optspec report_opts[] = {
    OPT_OUT(struct report_opts, html, "html", 0, "FILE|-", "one self-contained HTML page"),
    OPT_OUT(struct report_opts, md, "markdown", 0, "FILE|-",
            "a markdown summary for an issue tracker"),
    OPT_FLAG(struct report_opts, no_redact, "no-redact", 0,
             "keep host, user and home names in --markdown"),
    OPT_FLAG(struct report_opts, redact, "redact", 0,
             "hide host, user and home names in --html too, for sharing"),
    OPT_CHECKS(struct report_opts, checks),
    OPT_HELP_VERSION_END,
};

static void more_help(FILE *out)
{
    fputs("Renders a JSON report (check --json, or bench --sweep --json) as one\n"
          "self-contained HTML page and/or a markdown summary for an issue tracker\n"
          "(host name, user name and home directories redacted unless --no-redact;\n"
          "the HTML page with --redact).\n"
          "Exit 0 when written, 2 on a usage error, an unreadable or invalid report or\n"
          "an unwritable output.\n",
          out);
}

const struct cmd_spec report_spec = {"report",      "report",
                                     "REPORT.json", "Renders a JSON report as HTML or markdown.",
                                     report_opts,   more_help};

int report_cmd(int argc, char **argv)
{
    struct report_opts ro = {0};
    int first = parse_options(argc, argv, &report_spec, &ro);
    if (first <= 0)
        return first == PARSE_DONE ? REPORT_EXIT_OK : REPORT_EXIT_USAGE;
    const char *html = ro.html, *md = ro.md, *checks = ro.checks;
    int redact = (ro.no_redact ? 0 : REPORT_REDACT_MD) | (ro.redact ? REPORT_REDACT_HTML : 0);
    if (argc - first != 1) {
        error("report takes one JSON report (got %d)", argc - first);
        parse_options_usage_short(stderr, &report_spec);
        return REPORT_EXIT_USAGE;
    }
    if (ro.redact && ro.no_redact) {
        error("--redact and --no-redact contradict each other");
        return REPORT_EXIT_USAGE;
    }
    if (ro.redact && !html)
        return error("--redact hides names in the --html page; no --html FILE is written"),
               REPORT_EXIT_USAGE;
    if (ro.no_redact && !md)
        return error("--no-redact keeps names in the --markdown summary; no --markdown FILE is "
                     "written"),
               REPORT_EXIT_USAGE;
    if (checks && !html)
        return error("--checks gives the VLA budgets of the --html page; no --html FILE is "
                     "written"),
               REPORT_EXIT_USAGE;
    if (!html && !md) {
        error("report needs --html FILE or --markdown FILE");
        parse_options_usage_short(stderr, &report_spec);
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
    int failed = render_file(hf.f, mf.f, argv[first], checks, redact) != 0;
    int rc = failed ? REPORT_EXIT_USAGE : REPORT_EXIT_OK;
    if (hf.f && outfile_close(&hf, failed))
        rc = REPORT_EXIT_USAGE;
    if (mf.f && outfile_close(&mf, failed))
        rc = REPORT_EXIT_USAGE;
    return rc;
}
