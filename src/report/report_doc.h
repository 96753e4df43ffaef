/* report_doc.h - reading a JSON report (schema rocm-vla-doctor/1, parsed by
 * diff's reader, src/diff/diff.h) for the renderers that draw from a report:
 * the HTML page, the markdown summary and the fleet page. `check --html`
 * renders the JSON it just wrote, `report --html` a file, so the two are
 * one renderer and show the same thing. */
#ifndef RVD_REPORT_DOC_H
#define RVD_REPORT_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "../core/checks.h"
#include "../core/fact.h"
#include "../diff/diff.h"

/* the fact's JSON value (null when unknown), or NULL when absent */
const struct json *doc_fact(const struct diff_doc *d, const char *name);
/* a number fact; NaN when absent, unknown or not a number */
double doc_num(const struct diff_doc *d, const char *name);
/* a string fact; NULL when absent, unknown or not a string */
const char *doc_str(const struct diff_doc *d, const char *name);
/* a string member of the report's "host" object; NULL when absent */
const char *doc_host(const struct diff_doc *d, const char *key);
/* a string member of a JSON object (a check); NULL when absent or not a
 * string */
const char *doc_member(const struct json *obj, const char *key);
/* the summary's exit_code; -1 when absent */
int doc_exit_code(const struct diff_doc *d);
/* the fact as one line: its value (strings bare), or "unknown (reason)",
 * or "absent" */
void doc_fact_text(struct strbuf *sb, const struct diff_doc *d, const char *name);
/* a JSON value as one line (strings bare, lists joined with ", ") */
void doc_value_text(struct strbuf *sb, const struct json *v);
/* what an exit code of the check command means, in a few words */
const char *doc_exit_meaning(int code);

/* the report's facts back into a factset, typed as the fact catalogue
 * declares them (a number is an int or a float by its declaration), null
 * as unknown with the recorded reason: what a checks file needs to be
 * evaluated again (the budgets) */
void doc_factset(const struct diff_doc *d, struct factset *fs);

/* the budget of a VLA latency fact: where the loaded vla.* rules start to
 * fail for the other facts of the run (found by tui_workload_budget, the
 * dashboard's search). NaN when no rule bounds it here. */
struct vla_budget {
    char fact[FACT_NAME_MAX];
    double ms;
};
#define VLA_BUDGETS_MAX 16
/* for every vla.latency.*_ms fact that a vla.* check reads; returns how
 * many were written to out */
size_t vla_budgets(const struct checkset *cs, const struct factset *fs, struct vla_budget *out,
                   size_t max);
/* the budget for fact in b[0..n), NaN when none */
double vla_budget_for(const struct vla_budget *b, size_t n, const char *fact);

/* ---- renderers of a report (each 0, or -1 on a write error) ------------ */

/* one self-contained HTML page (report_html.c): header, verdicts, findings
 * with fix and evidence, the plots; b: the VLA budgets (may be empty) */
int report_html_write(FILE *f, const struct diff_doc *d, const struct vla_budget *b, size_t nb);
/* a short markdown summary for a GitHub issue (report_markdown.c); with
 * redact, the host's name, user names and home directories are replaced */
int report_markdown_write(FILE *f, const struct diff_doc *d, int redact);
/* s as markdown text on one line, nothing redacted: controls visible, every
 * character markdown or GitHub would act on escaped (a table's '|' too) */
void markdown_text(FILE *f, const char *s);

/* check --html/--markdown: the JSON report text just rendered in memory,
 * parsed again and drawn, with the budgets of the loaded checks; 0, or -1
 * after printing why */
int report_render_json(FILE *html, FILE *md, const char *json, size_t len,
                       const struct checkset *cs, int redact);

/* the `report` command; argv[0] is "report". 0 written, 2 usage error,
 * unreadable or invalid report, unwritable output */
int report_cmd(int argc, char **argv);
struct cmd_spec;
extern const struct cmd_spec report_spec; /* its option table */

#endif
