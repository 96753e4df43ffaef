/* report_doc.h - the renderers that draw from a parsed JSON report (the
 * model: src/reportdoc/doc.h): the HTML page, the markdown summary and the
 * `report` command. `check --html` renders the JSON it just wrote, `report
 * --html` a file, so the two are one renderer and show the same thing. */
#ifndef RVD_REPORT_DOC_H
#define RVD_REPORT_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "../core/checks.h"
#include "../reportdoc/doc.h"

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
