/* html.h - the pieces every HTML page of the tool shares (the report, the
 * diff, the fleet): escaping, the page's head with its inline style sheet,
 * and the inline SVG plots (svg.c).
 *
 * A page is one self-contained file: inline CSS and inline SVG only, no
 * script, no stylesheet or image link, no URL at all, so it opens offline
 * and leaks nothing when mailed around. Every string that came from a
 * machine or a file passes html_put(): terminal controls, bidi overrides
 * and invalid UTF-8 become visible escapes (str_sanitize), then & < > " '
 * become entities, so a check title holding "<script>" is text. */
#ifndef RVD_REPORT_HTML_H
#define RVD_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

/* s (NULL: nothing) as HTML text or attribute value */
void html_put(FILE *f, const char *s);
/* open, then text escaped, then close (open and close are markup) */
void html_el(FILE *f, const char *open, const char *text, const char *close);
/* printf, then html_put of the result */
void html_putf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a number as %.4g, '.' as the decimal point whatever the locale; "unknown"
 * for NaN and infinities */
void html_num(FILE *f, double v);
/* <!DOCTYPE html> ... <body><h1>title</h1> and the closing tags */
void html_page_begin(FILE *f, const char *title);
void html_page_end(FILE *f);
/* a status word in its colour: <span class="st st-fail">fail</span> */
void html_status(FILE *f, const char *status);

/* ---- plots (svg.c): inline <svg> elements ------------------------------- */

struct svg_bar {
    const char *label;
    double value;           /* NaN: unknown, written as the word "unknown", never a bar */
    double mark;            /* this bar's own reference (a stage's budget); NaN: none */
    const char *mark_label; /* what the mark is: "budget", "peak" (NULL: "budget") */
    int over;               /* drawn in the alarm colour (over its budget) */
};

/* a horizontal bar chart, one row per bar, with each bar's mark as a tick
 * and one reference line across all rows at ref (NaN: none) named
 * ref_label. The scale spans 0, every known value, mark and ref, so zero
 * and negative values are drawn from the zero line; with nothing known the
 * rows only say "unknown". Bars are <rect class="bar">. */
void svg_bar_chart(FILE *f, const char *title, const char *unit, const struct svg_bar *bars,
                   size_t n, double ref, const char *ref_label);
/* a dot plot across items (nodes): one row per item, its value a
 * <circle class="dot">, and a line at the median of the known values
 * (class "median"); unknown items say "unknown" in their row */
void svg_strip_plot(FILE *f, const char *title, const char *unit, const char *const *labels,
                    const double *values, size_t n);
/* the median of the finite values of v; NaN when there is none */
double svg_median(const double *v, size_t n);

#endif
