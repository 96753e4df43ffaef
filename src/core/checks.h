/* checks.h - the checklist loaded from checks.yaml (libyaml), and results.
 *
 * A check reads facts and turns them into one of six statuses through rules
 * that are data: skip rules, then fail rules, then warn rules, else pass.
 * See man/checks.yaml.5 for the file format. */
#ifndef RVD_CHECKS_H
#define RVD_CHECKS_H

#include "expr.h"
#include "fact.h"
#include "peaks.h"
#include "util.h"

enum status { ST_PASS, ST_WARN, ST_FAIL, ST_SKIP, ST_ERROR, ST_TIMEOUT, ST__COUNT };
const char *status_name(enum status st);

/* LEVEL_SOAK: checks on a sustained run's facts, run by `soak` only */
enum level { LEVEL_QUICK, LEVEL_STANDARD, LEVEL_FULL, LEVEL_SOAK };
const char *level_name(enum level l);
int level_parse(const char *s, enum level *out);

/* what a check's failure costs (checks.yaml `impact:`, checks_rank.c),
 * least first: the report starts with the root cause of the greatest.
 * IMPACT_NONE: not declared (a rule without one takes its check's; a check
 * without one ranks below advice, and tests hold the shipped file to
 * declare every one) */
enum impact { IMPACT_NONE, IMPACT_ADVICE, IMPACT_SLOW, IMPACT_WRONG, IMPACT_BLOCKS };
/* "advice", "slow", "wrong", "blocks"; NULL for IMPACT_NONE */
const char *impact_name(enum impact im);
/* 0, or -1 for a word that is no impact (IMPACT_NONE is never parsed) */
int impact_parse(const char *s, enum impact *out);

/* what to do about a warning or failure (man 5 checks.yaml, Fixes): prose
 * before, zero or more shell commands each one complete line, prose after.
 * A plain-string fix in the file is `say` alone. In a check or rule the
 * strings are templates; in a result they are rendered, the commands with
 * every {fact} shell-quoted so that a fact's value is never a command */
struct fix {
    char *say;          /* NULL when absent */
    struct strlist run; /* the commands, in order */
    char *then;         /* NULL when absent */
    /* a template's commands that differ by distribution (checks_family.c):
     * NULL, or one list per command, empty where run.v[i] is the command
     * itself, else the command of each family that has one (FAMILY_N
     * entries, "" where a family has none) and run.v[i] the prose that
     * names them all, for a host of another family */
    struct strlist *by_family;
};
#define FIX_INIT                                                                                   \
    {                                                                                              \
        NULL, STRLIST_INIT, NULL, NULL                                                             \
    }

/* the distribution families whose commands a fix names, from os-release ID
 * and ID_LIKE (fact host.os_family): "debian" (Debian, Ubuntu), "fedora"
 * (Fedora, RHEL, Rocky, Alma: dnf, grubby, dracut), "suse" (openSUSE,
 * SLES: zypper), "arch" (Arch: pacman, mkinitcpio); any other host gets
 * the prose */
#define FAMILY_N 4
extern const char *const family_names[FAMILY_N];
/* the family's index, or -1 */
int family_index(const char *name);
/* the prose for a host of no known family: "Debian/Ubuntu: `cmd`; ..." of
 * the families that have a command (allocated) */
char *family_prose(const struct strlist *cmds);
/* does the fix say or run anything? */
int fix_present(const struct fix *f);
void fix_release(struct fix *f);
/* say, the commands in backticks, then: one line of text for the writers
 * and readers that know a fix as one string. Allocated; NULL when absent */
char *fix_joined(const struct fix *f);
/* the same as lines: say, each command on its own line after indent, then
 * (each line ending in '\n'), for a reader who copies a command whole.
 * Allocated; NULL when absent */
char *fix_lines(const struct fix *f, const char *indent);

struct rule {
    char *when_src;
    struct expr *when; /* NULL for the pass rule */
    char *summary;     /* template: {fact.name}, {fact.name:gib|mib} and {gpu} */
    struct fix fix;    /* overrides the check's fix when present */
    /* a rule's own `caused_by:` narrows the check's for this rule (a
     * subset of it, [] for a reason no other check explains, such as KFD
     * refusing the ASIC); has_causes says it was given */
    struct strlist caused_by;
    int has_causes;
    const struct check **causes;
    size_t ncauses;
    /* a rule's own `impact:` where it costs other than its check's (a
     * warning of a check whose failures block), IMPACT_NONE to inherit */
    enum impact impact;
};

struct check {
    char *id, *title, *why, *how;
    struct fix fix;
    enum level level;
    int per_gpu;          /* `per: gpu` - evaluated once per GPU, worst wins */
    char *probe;          /* probe whose error/timeout this check inherits */
    double timeout_s;     /* per-probe budget for GPU probes (0 = default) */
    struct strlist reads; /* facts shown as evidence */
    struct rule *skip, *fail, *warn;
    size_t nskip, nfail, nwarn;
    struct rule pass;
    int line;
    /* `caused_by:` ids, and the checks they name once the loader resolved
     * them (checks_cause.c): a result that did not pass while one of these
     * did not pass either is that cause's consequence, not a finding of its
     * own; the relation is acyclic (checked at load) */
    struct strlist caused_by;
    const struct check **causes;
    size_t ncauses;
    enum impact impact; /* `impact:`, IMPACT_NONE when the file gives none */
};

struct data_table {
    char *name;
    char *key; /* NULL for a plain list */
    struct strlist values;
};

struct checkset {
    char *path;
    struct check *v;
    size_t n;
    struct data_table *data;
    size_t ndata;
    size_t *data_index;      /* data sorted by (name, key): lookups are O(log n) */
    struct peak_table peaks; /* top-level `peaks:` (peaks.h) */
};

/* What the loader validates a checks file against: the facts a check may
 * name, with their types, and the probes a `probe:` may name. The fact
 * catalogue (probes/fact_catalog.c) provides it and main() passes it in, so
 * core knows nothing of the probes above it; a unit test may pass its own. */
struct checks_schema {
    /* the declared type of a concrete fact name: 0 and *type, or -1 when no
     * probe declares it */
    int (*fact_type)(const char *name, enum fact_type *type);
    /* the declared name closest to a misspelt one, or NULL (may be NULL);
     * per_gpu also offers "gpu.<name>" for each "gpu.<i>.<name>" */
    const char *(*suggest)(const char *name, int per_gpu, char *buf, size_t n);
    /* the i-th probe's name, NULL past the last */
    const char *(*probe_name)(size_t i);
};
/* the schema every later load validates against (the process has one) */
void checks_set_schema(const struct checks_schema *schema);
/* the schema set, or NULL before checks_set_schema() */
const struct checks_schema *checks_schema(void);

/* 0, or -1 after printing "file:line:col: message"; -1 also when no schema
 * was set (an internal error: nothing would be validated) */
int checks_load(struct checkset *cs, const char *path);
int checks_load_string(struct checkset *cs, const char *name, const char *text, size_t len);
/* path; when NULL an installed copy's <prefix>/share/rocm-vla-doctor/
 * checks.yaml (src/core/datadir.c), else the checks.yaml built into the
 * binary (src/embed.S) */
int checks_load_default(struct checkset *cs, const char *path);
/* the name the built-in checks.yaml loads under (its messages' prefix) */
#define CHECKS_BUILTIN "checks.yaml (built in)"
/* the file a loaded set came from, or "(built in)": what reports name */
const char *checks_origin(const struct checkset *cs);
void checks_release(struct checkset *cs);
const struct check *checks_find(const struct checkset *cs, const char *id);
/* -1 after "no check named 'ID'" with a hint: the ids starting with ID,
 * else the closest id (src/core/checks_unknown.c) */
int checks_say_unknown(const struct checkset *cs, const char *id);
/* the entry of a data table for key (a plain list answers every key; NULL
 * key: any entry of the table), or NULL */
const struct data_table *checks_data_find(const struct checkset *cs, const char *table,
                                          const char *key);
/* lookup a data table entry; -1 when missing */
int checks_table(const struct checkset *cs, const char *table, const char *key, struct val *out);

#define RULE_ID_MAX 32

struct evidence {
    char *name;              /* resolved fact name, e.g. gpu.0.vram_bytes */
    const struct fact *fact; /* NULL when no probe produced it */
};

/* one GPU's verdict of a per-GPU check (struct result's gpus) */
struct gpu_verdict {
    int gpu;
    enum status st;
    char rule[RULE_ID_MAX];
    char *summary;   /* that GPU's own summary */
    char *fix;       /* its fix joined, NULL on pass/skip */
    const char *pci; /* borrowed: the fact gpu.<gpu>.pci, or NULL when unknown */
};

/* "4-7", "1, 4, 6", "0-2, 5": the GPU indexes of v (sorted ascending) as
 * ranges, written into buf (cut at size, checks_gpus.c) */
void gpu_list_compact(const int *v, size_t n, char *buf, size_t size);
/* the check summary of a per-GPU result over its gpus (checks_gpus.c):
 * "all 8 GPUs: S", "not judged on 8 GPUs: S", or every not-passing GPU
 * named by status ("GPUs 4, 6 fail, GPU 1 warns; GPU 4: S (5 of 8 GPUs
 * pass)"), with S the summary of `worst`; malloc'd */
char *gpu_results_summary(const struct gpu_verdict *v, size_t n, const struct gpu_verdict *worst);

struct result {
    const struct check *check;
    enum status st;
    char *summary;
    char *fix; /* fix_joined(&fix_parts); NULL on pass/skip */
    struct evidence *ev;
    size_t nev;
    /* the rule that decided, so tests can pin it: "skip[i]", "fail[i]",
     * "warn[i]" (0-based in that list; a trailing '?' when the rule could not
     * be decided and the check skips for an unknown fact), "pass" when no
     * rule fired, "probe" when the probe's error or timeout decided; for a
     * per-GPU check the rule of the worst GPU */
    char rule[RULE_ID_MAX];
    const struct rule *by; /* the fail or warn rule that decided, or NULL */
    /* per GPU: the GPU the result speaks of (the worst), -1 otherwise; and
     * each judged GPU's status (gst[g], ST__COUNT where GPU g was not
     * judged), so that a cause is judged on the same GPU */
    int gpu;
    enum status *gst;
    size_t ngst;
    /* per GPU, in the order judged: every judged GPU's own verdict (issue
     * 34: which GPUs to drain); ngpus is 0 for a check judged once */
    struct gpu_verdict *gpus;
    size_t ngpus;
    /* the not-passing result of a caused_by check that explains this one
     * (its summary then says "caused by ID" and its fix is "see ID"), or
     * NULL: a root cause, or a pass/skip */
    const struct result *cause;
    /* rendered from the rule's or the check's fix; empty on pass/skip
     * (last: results built by hand set the fields above) */
    struct fix fix_parts;
};
/* the result's fix in parts, borrowed: fix_parts, or for a result that has
 * only the string fix (built by hand) that string as prose */
struct fix result_fix(const struct result *r);

struct results {
    struct result *v;
    size_t n;
    size_t counts[ST__COUNT];
};

struct run_filter {
    enum level level;
    const struct strlist *only; /* ids or "prefix." entries; NULL = all */
};

/* does an --only list (ids, or "prefix." entries) select this check? */
int check_selected(const struct check *ck, const struct strlist *only);
/* add to out every fact name the check may read when judged (checks_facts.c):
 * reads:, rules, summary and fix placeholders, gpu.count when per GPU,
 * probe.<probe>.status; names as written (gpu.x in a per-GPU check) */
void check_facts(const struct check *ck, struct strlist *out);
/* render a check's or rule's fix template for these facts (gpu: the GPU
 * of a per-GPU check, else -1) as a result's fix is: placeholders filled,
 * the host's distribution's commands (checks_family.c). out starts empty */
void checks_fix_render(const struct checkset *cs, const struct factset *fs, int gpu,
                       const struct fix *tmpl, struct fix *out);
/* -1 (after an error message) when --only names an unknown id */
int checks_run(const struct checkset *cs, const struct factset *fs, const struct run_filter *flt,
               struct results *out);
void results_release(struct results *r);

/* ---- caused_by (checks_cause.c) ---- */
/* resolve every check's caused_by ids into causes: NULL, or a message
 * (malloc'd) with *bad the check and *item the index in its caused_by of
 * the id at fault: one that names no check, the check itself, or the one
 * that closes a cycle (the message names the cycle) */
char *checks_resolve_causes(struct checkset *cs, size_t *bad, size_t *item);
/* after that, a rule's caused_by: NULL, or a message with *item the id
 * that is not among its check's caused_by */
char *checks_resolve_rule_causes(const struct check *c, struct rule *r, size_t *item);
/* after a run: set each not-passing result's cause and rewrite its summary
 * and fix to point there (checks_run() calls it) */
void results_link_causes(struct results *r);

/* ---- the order of the findings (checks_rank.c) ---- */
/* what the result's failure costs: its deciding rule's impact, else its
 * check's (IMPACT_NONE for a pass or skip) */
enum impact result_impact(const struct result *res);
/* the not-passing results, most important first, into order[] (room for
 * r->n): root causes ranked by the greatest impact among them and their
 * consequences, then the gravest status (fail, error and timeout before
 * warn), then the deepest cause (the longest chain of consequences below
 * it, then the most), then file order; each root followed by its
 * consequences in file order. Returns how many */
size_t results_fix_order(const struct results *r, size_t *order);
/* where to start: the first root of results_fix_order(), NULL when all
 * passed */
const struct result *results_start_with(const struct results *r);
/* 1 for warn, fail, error and timeout */
int status_not_passing(enum status st);
/* exit code contract: 0 ok, 1 a fail (or a warning with strict) */
int results_exit_code(const struct results *r, int strict);

/* the value of `fact` at which check `id`'s fail rules start to fail for the
 * other facts in fs: "fails below" (rate) when below is 1, "fails above"
 * (latency) otherwise (checks_budget.c). Found by evaluating the loaded
 * rules, so a --checks file with other budgets is followed. 0, or -ENOENT
 * when no fail rule bounds it (the check skips here, or there is no such
 * check). The dashboard's workload panel and the report's VLA budgets ask. */
int checks_budget(const struct checkset *cs, const struct factset *fs, const char *id,
                  const char *fact, int below, double *out);

#endif
