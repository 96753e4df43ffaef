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
#include "../snapshot/snapshot_redact.h"

/* ---- renderers of a report (each 0, or -1 on a write error) ------------ */

/* one self-contained HTML page (report_html.c): header, verdicts, findings
 * with fix and evidence, the plots; b: the VLA budgets (may be empty) */
int report_html_write(FILE *f, const struct diff_doc *d, const struct vla_budget *b, size_t nb,
                      int redacted);
/* a short markdown summary for a GitHub issue (report_markdown.c); with
 * redact, the host's name, user names and home directories are replaced */
int report_markdown_write(FILE *f, const struct diff_doc *d, int redact);
/* what to redact (report_redact.c): the markdown by default, the HTML page
 * with --redact */
#define REPORT_REDACT_MD 1
#define REPORT_REDACT_HTML 2
#define REPORT_REDACT_WORDS (3 + DOC_GPUS_REDACTED)
/* the GPU serials (gpu.<i>.serial) hidden with them, of GPUs 0..this-1 */
#define DOC_GPUS_REDACTED 64
/* the words redact_text hides in this report (the host's and the user's
 * names), pointing into d; how many */
size_t report_redact_words(const struct diff_doc *d, struct redact_word w[REPORT_REDACT_WORDS]);
/* every text value of d through redact_text, in place (check ids and
 * statuses kept); kept owns the copies of the words */
void report_doc_redact(const struct diff_doc *d, struct strlist *kept);

/* s as markdown text on one line, nothing redacted: controls visible, every
 * character markdown or GitHub would act on escaped (a table's '|' too) */
void markdown_text(FILE *f, const char *s);

/* check --html/--markdown: the JSON report text just rendered in memory,
 * parsed again and drawn, with the budgets of the loaded checks; redact:
 * REPORT_REDACT_* bits; 0, or -1
 * after printing why */
int report_render_json(FILE *html, FILE *md, const char *json, size_t len,
                       const struct checkset *cs, int redact);

/* the `report` command; argv[0] is "report". 0 written, 2 usage error,
 * unreadable or invalid report, unwritable output */
int report_cmd(int argc, char **argv);
struct cmd_spec;
extern const struct cmd_spec report_spec; /* its option table */

#endif
