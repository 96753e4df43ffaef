/* diff.h - the `diff` command: compare two JSON reports (schema
 * rocm-vla-doctor/1) by stable check id and by fact name, as a CI gate
 * across driver and ROCm updates.
 *
 * A regression is what makes the gate fail (exit 1):
 *   - a check that got worse: pass -> warn/fail/error/timeout,
 *     warn -> fail/error/timeout;
 *   - a check that newly fails: skip -> fail/error/timeout, or a check absent
 *     from the baseline that is fail/error/timeout now;
 *   - lost coverage, unless allow_skip: pass/warn -> skip, a pass/warn check
 *     missing from the current report, a performance fact that became
 *     unknown (null) or absent;
 *   - a performance fact (direction from its name, see diff_fact_direction)
 *     that moved the bad way by more than its tolerance;
 *   - the numerics gate: an actions digest (vla.numerics.actions_digest) of
 *     the same preset and dtype whose sampled actions moved by more than
 *     the tolerance (DIFF_NUMERICS_TOL_PCT of the largest |action|, or
 *     --tolerance), or that is gone (lost coverage).
 * Improvements are the same moves the good way. Everything else that differs
 * (a changed driver.version, a check that went skip -> pass, a fact that
 * appeared) is a change: context, never a reason to fail. */
#ifndef RVD_DIFF_H
#define RVD_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "../core/json.h"
#include "../reportdoc/doc.h"

#define DIFF_SCHEMA_OUT "rocm-vla-doctor-diff/1"
#define DIFF_DEFAULT_TOL_PCT 10.0
/* the numerics gate (*.actions_digest facts): how far a fixed-seed pass's
 * sampled actions may move, in percent of the baseline's largest |action| */
#define DIFF_NUMERICS_TOL_PCT 1.0

/* the check of that id, or NULL; a hash lookup, not a walk of the array */
const struct json *diff_find_check(const struct diff_doc *d, const char *id);

/* tolerances: "--tolerance PATTERN=PCT"; PATTERN is an fnmatch(3) glob on
 * fact names, PCT a non-negative percentage or "off" (report, never gate).
 * The last matching option wins. */
struct diff_tol {
    char *pattern;
    double pct; /* < 0: off */
};

struct diff_opts {
    struct diff_tol *tol;
    size_t ntol;
    int allow_skip;
};

int diff_tol_add(struct diff_opts *o, const char *arg); /* 0, or -1 with a message */
/* the tolerance for a fact in percent; < 0 when it is off */
double diff_tol_for(const struct diff_opts *o, const char *name);
void diff_opts_release(struct diff_opts *o);

/* -1: lower is better (a time: a name component ending in _us, _ns, _ms or
 * _s, e.g. sync.launch_us.p99, vla.latency.total_ms, vla.cold_s);
 * +1: higher is better (a rate: _gbs, _gbps, _tflops, _gflops, _hz, or a
 * component that is exactly tflops/gflops); 0: not a performance fact.
 * probe.* (the tool's own timings) is never a performance fact; the
 * errors against the fp32 reference (vla.numerics.max_error*) are -1. */
int diff_fact_direction(const char *name);

enum diff_class { DIFF_REGRESSION, DIFF_IMPROVEMENT, DIFF_CHANGE };
enum diff_subject { DIFF_CHECK, DIFF_FACT };

/* what happened, as written in the JSON "change" member */
enum diff_what {
    DW_STATUS,   /* check status changed */
    DW_ADDED,    /* only in the current report */
    DW_REMOVED,  /* only in the baseline */
    DW_VALUE,    /* fact value changed (non-performance) */
    DW_PERF,     /* performance fact beyond (or within, for changes) tolerance */
    DW_UNKNOWN,  /* fact became null */
    DW_KNOWN,    /* fact was null and is known now */
    DW_NUMERICS, /* an actions digest moved (src/core/actions_digest.h) */
};

struct diff_item {
    enum diff_class cls;
    enum diff_subject subj;
    enum diff_what what;
    const char *name;             /* check id or fact name (owned by a doc) */
    const struct json *old, *cur; /* check: the check objects; fact: values; NULL if absent */
    double change_pct;            /* DW_PERF: signed relative change */
    double tol_pct;               /* DW_PERF: the tolerance applied (< 0 off) */
    int direction;                /* DW_PERF: -1 or +1 */
    double moved;                 /* DW_NUMERICS: the largest |change| of a sampled action */
    int at;                       /* DW_NUMERICS: its sample index (-1: not comparable) */
    const char *why;              /* DW_NUMERICS, not comparable: why (static text) */
};

struct diff_result {
    struct diff_item *v;
    size_t n, cap;
    size_t count[3]; /* by class */
};

int diff_compare(const struct diff_doc *base, const struct diff_doc *cur, const struct diff_opts *o,
                 struct diff_result *r);
void diff_result_release(struct diff_result *r);

/* helpers for the renderers */
const char *diff_what_name(enum diff_what w);
/* is the fact a volatile reading (temperature, power, busy %) that the text
 * report folds into one count */
int diff_fact_is_telemetry(const char *name);

struct diff_text_opts {
    int color, unicode, verbose;
};
void diff_write_text(FILE *out, const struct diff_doc *base, const struct diff_doc *cur,
                     const struct diff_result *r, const struct diff_text_opts *o);
int diff_write_json(FILE *out, const struct diff_doc *base, const struct diff_doc *cur,
                    const struct diff_result *r);
/* one self-contained HTML page (diff_html.c): both runs, regressions,
 * improvements, check and stack changes, and a before/after bar plot per
 * performance fact that moved; 0, or -1 on a write error */
int diff_write_html(FILE *out, const struct diff_doc *base, const struct diff_doc *cur,
                    const struct diff_result *r);
/* the facts a person asks about first after an update (driver, ROCm,
 * kernel, torch, the GPUs' gfx and VBIOS) */
int diff_headline_fact(const char *name);
/* what a changed fact is, for the sections of the text and JSON (issue 34:
 * an update's stack apart from the readings that move on every run):
 * the software and firmware the machine runs (kernel, driver, firmware,
 * VBIOS, ROCm, the runtime, torch, Python: the headline facts and a few
 * more), telemetry (temperatures, power, busy, clocks: diff_fact_is_telemetry),
 * a performance figure within its tolerance, or any other fact */
enum diff_fact_group { DIFF_GROUP_STACK, DIFF_GROUP_TELEMETRY, DIFF_GROUP_PERF, DIFF_GROUP_OTHER };

/* the command; argv[0] is "diff". Returns 0 no regression, 1 regressions,
 * 2 usage error or an unreadable/invalid report. */
int diff_cmd(int argc, char **argv);
struct cmd_spec;
struct optspec;
/* --tolerance NAME=PCT|off into the struct diff_opts at spec->off (diff, fleet) */
int diff_opt_tolerance(void *base, const struct optspec *spec, const char *v);
#define OPT_TOLERANCE(T, f, h)                                                                     \
    {                                                                                              \
        .name = "tolerance", .kind = OPTK_CALLBACK, .arg = OPTA_REQUIRED, OPT_FIELD(T, f),         \
        .cb = diff_opt_tolerance, .argname = "NAME=PCT|off", .help = h                             \
    }
extern const struct cmd_spec diff_spec; /* its option table */

#endif
