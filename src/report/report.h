/* report.h - renderers. Reports render results; they never compute. */
#ifndef RVD_REPORT_H
#define RVD_REPORT_H

#include <stdio.h>

#include "../core/checks.h"
#include "../core/fact.h"
#include "../core/json_out.h"
#include "../core/version.h"

struct report_meta {
    const char *version;
    const char *level;
    const char *sysroot;  /* NULL for the live host */
    const char *checks;   /* path or "(built in)" */
    const char *hostname; /* NULL when unknown */
    const char *kernel;
    const char *os;
    const char *started; /* ISO 8601 UTC */
    double duration_s;
    int strict; /* --strict: the summary's exit_code counts warnings */
    /* how old the ROCm release table is ("as of 2026-12 (newest ROCm
     * 10.1)", fact rocm.support_data); NULL: not printed */
    const char *support_data;
};

struct text_opts {
    int color;   /* ANSI colours */
    int unicode; /* ✓ ! ✗ instead of ASCII marks */
    int verbose; /* evidence under each check */
    int width;   /* columns to wrap at; 0: $COLUMNS, else the terminal's, else 80 */
    /* the run's facts: with verbose, probe.<name>.wall_s list the slowest
     * probes; gpu.measured against runtime.device_count says when the GPU
     * probes measured fewer devices than there are; NULL: neither */
    const struct factset *timing;
};

/* the width report_text_write wraps at: requested (> 0), else $COLUMNS, else
 * the terminal's (TIOCGWINSZ) when out is one, else 80; never below 40 */
int report_text_width(FILE *out, int requested);
void report_text_write(FILE *out, const struct report_meta *m, const struct results *r,
                       const struct text_opts *o);
int report_json_write(FILE *out, const struct report_meta *m, const struct factset *fs,
                      const struct results *r);
int report_junit_write(FILE *out, const struct report_meta *m, const struct results *r);

/* fact value as JSON (null when unknown) */
void json_write_fact_value(FILE *out, const struct fact *f);
/* XML 1.0 text (attr = 0) or attribute value (attr = 1), escaped; characters
 * XML 1.0 forbids and invalid UTF-8 become U+FFFD */
void xml_write_escaped(FILE *out, const char *s, int attr);

#endif
