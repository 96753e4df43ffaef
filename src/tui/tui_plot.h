/* tui_plot.h - the dashboard's history plots: a ring buffer per series (one
 * value per telemetry sample, NaN where the value was unknown) and a
 * one-row renderer that turns the newest samples into bar characters.
 *
 * Every series of one screen is pushed on the same tick (each telemetry
 * sample), and every plot of a frame is drawn with the same width and the
 * same samples per column, so column c of a GPU's clock plot and column c of
 * the workload's p99 plot cover the same seconds: a clock drop and a latency
 * rise line up. Unknown values are gaps (blank columns), never drawn as 0.
 * Levels are UTF-8 block elements (U+2581..U+2588) when the terminal's
 * locale is UTF-8, else the ASCII ramp "_.,-=+*#". */
#ifndef RVD_TUI_PLOT_H
#define RVD_TUI_PLOT_H

#include <stddef.h>

struct tui_ring {
    double *v;        /* cap values; NaN = unknown */
    int cap, n, head; /* head: where the next value goes */
};

void tui_ring_init(struct tui_ring *r, int cap);
void tui_ring_release(struct tui_ring *r);
void tui_ring_push(struct tui_ring *r, double v);
/* the i-th newest value (0 = the last pushed); NaN when i >= n */
double tui_ring_back(const struct tui_ring *r, int i);

/* agg: how a column sums up its samples: the largest (busy, power,
 * temperature, latency: a spike stays visible) or the smallest (clocks: a
 * drop stays visible) */
enum tui_agg { TUI_AGG_MAX, TUI_AGG_MIN };

struct tui_plot {
    int cols;      /* columns drawn */
    double lo, hi; /* the scale: min and max of the known columns */
    int known;     /* columns with a value; 0: lo/hi meaningless */
};

/* the newest cols*per_col samples of r as cols characters (oldest left,
 * newest right; columns before the first sample and columns of unknown
 * samples are ' '), NUL-terminated, into buf (size >= cols * 3 + 1 with
 * utf8). A flat series draws the middle level. Returns the bytes written. */
size_t tui_plot_render(const struct tui_ring *r, int cols, int per_col, enum tui_agg agg, int utf8,
                       char *buf, size_t size, struct tui_plot *out);

#endif
