/* doc.h - the parsed JSON report (schema rocm-vla-doctor/1) that the
 * commands reading a report share: `report` (src/report/), `diff` and
 * `fleet`. It holds the reader (doc_read.c: parse, validate, load) and the
 * accessors and the VLA budgets of a report (doc.c); it depends on core
 * (and the JSON parser) only, so every one of those commands sits above it.
 * The names keep their diff_ prefix: `diff` was its first reader. */
#ifndef RVD_REPORTDOC_DOC_H
#define RVD_REPORTDOC_DOC_H

#include <stddef.h>

#include "../core/checks.h"
#include "../core/fact.h"
#include "../core/json.h"
#include "../core/strset.h"

#define DIFF_SCHEMA_IN "rocm-vla-doctor/1"

/* one parsed report */
struct diff_doc {
    char *name; /* the file name, for messages */
    char *text; /* the bytes parsed: JSON numbers point into them */
    struct json *root;
    const struct json *facts;  /* object */
    const struct json *meta;   /* facts_meta object, or NULL */
    const struct json *checks; /* array of objects with string id and status */
    struct strset check_ids;   /* id -> index in checks (keys borrowed from root) */
};

/* Parse and validate a report held in memory. On error prints one message
 * naming the file (and the JSON error position as line, column and byte) and
 * returns -1; d is then empty. */
int diff_doc_parse(struct diff_doc *d, const char *name, const char *text, size_t len);
/* a report larger than this is refused (not a report; also the limit of
 * `report`'s reader) */
#define DIFF_MAX_REPORT (64u << 20)
int diff_doc_load(struct diff_doc *d, const char *path);
/* the file's bytes (at most DIFF_MAX_REPORT, the caller frees *text); 0, or
 * -1 after saying why */
int diff_doc_read(const char *path, char **text, size_t *len);
void diff_doc_release(struct diff_doc *d);

const char *diff_check_status(const struct json *check); /* NULL when absent */
/* the recorded reason of an unknown fact, or NULL */
const char *diff_fact_reason(const struct diff_doc *d, const char *name);
/* a report value as the text output shows it: unknown, true, 12.5, 'text',
 * [a, b] (lists cut near DIFF_VALUE_MAX bytes) */
#define DIFF_VALUE_MAX 72
void diff_value_text(struct strbuf *sb, const struct json *v);

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
/* the check to start with: the report's start_with (the root cause the
 * run chose, checks_cause.c) when it names a check that did not pass;
 * else (an older report, or one edited by hand) the first fail, error or
 * timeout, else the first warning. NULL when none. */
const struct json *doc_start_with(const struct diff_doc *d);
/* the findings (checks neither passed nor skipped) in the order to fix
 * them: by their "fix_rank" (checks_rank.c chose it), those without one
 * (an older report) after, in report order. Indices into d->checks,
 * allocated (free()); *n their count */
size_t *doc_findings(const struct diff_doc *d, size_t *n);
/* a check's fix in parts (struct fix, owned by out): fix_say,
 * fix_commands and fix_then, or for a report older than them its "fix"
 * string as prose (a command inside it cannot be told apart). 1 when the
 * check has a fix, else 0 with out empty */
int doc_fix(const struct json *check, struct fix *out);
/* one GPU's verdict of a per-GPU check, borrowed from the document */
struct doc_gpu {
    int gpu;
    const char *pci; /* NULL when unknown */
    const char *status, *rule, *summary;
};
/* a check's "gpus" (issue 34): the well-formed items (an index, a status
 * name, a summary) in order, at most max; how many. 0 for a check judged
 * once, or a report older than the array */
size_t doc_check_gpus(const struct json *check, struct doc_gpu *out, size_t max);
/* the most GPUs of one check the renderers draw */
#define DOC_GPUS_MAX 256

/* one thing to take out of service (doc_drain.c): node is the index of its
 * report, gpu -1 for the node as a whole (a failing check not judged per
 * GPU); strings borrowed from the documents */
struct doc_drain {
    size_t node;
    int gpu;
    const char *pci, *check, *status, *summary;
};
/* every check that failed (fail, error or timeout) on docs[0..n), per GPU
 * that failed it where the check has per-GPU verdicts, else the node; in
 * node then check order. *out malloc'd (NULL when none); how many */
size_t doc_drain_list(const struct diff_doc *const *docs, size_t n, struct doc_drain **out);
/* the node's name: host.hostname, else the report's file name */
const char *doc_node_name(const struct diff_doc *d);
/* one GPU in two reports: a GPU serial (gpu.<k>.serial) of report later
 * that report first (the first with it) has too */
struct doc_dup {
    size_t first, later;
    const char *serial; /* borrowed */
};
/* every such pair of docs[0..n) once (with the first serial they share),
 * in the order found; *out malloc'd (NULL when none); how many */
size_t doc_same_gpus(const struct diff_doc *const *docs, size_t n, struct doc_dup **out);
/* the same for host names (host.hostname, serial then the name): two
 * reports that claim one node */
size_t doc_same_hosts(const struct diff_doc *const *docs, size_t n, struct doc_dup **out);
/* the summary's exit_code; -1 when absent */
int doc_exit_code(const struct diff_doc *d);
/* the fact as one line: its value (strings bare), or "unknown (reason)",
 * or "absent" */
void doc_fact_text(struct strbuf *sb, const struct diff_doc *d, const char *name);
/* a JSON value as one line (strings bare, lists joined with ", ") */
void doc_value_text(struct strbuf *sb, const struct json *v);
/* what an exit code of the check command means, in a few words */
const char *doc_exit_meaning(int code);

/* the report's facts back into a factset, typed as the loaded schema
 * (checks_schema(): the fact catalogue) declares them (a number is an int
 * or a float by its declaration; a float without a schema), null
 * as unknown with the recorded reason: what a checks file needs to be
 * evaluated again (the budgets) */
void doc_factset(const struct diff_doc *d, struct factset *fs);

/* the budget of a VLA latency fact: where the loaded vla.* rules start to
 * fail for the other facts of the run (found by checks_budget(), the
 * search the dashboard uses too). NaN when no rule bounds it here. */
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

#endif
