/* svg.c - the two plots the HTML pages draw, as inline SVG (html.h): a
 * horizontal bar chart with per-bar marks and a reference line, and a dot
 * plot across items with the median. The pictures render what they are
 * given: unknown stays the word "unknown", never a bar of length 0. */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

#define SVG_W 760
#define SVG_LABEL_END 244 /* right edge of the row labels */
#define SVG_PLOT_X 252
#define SVG_PLOT_W 380
#define SVG_ROW 22
#define SVG_TOP 38
#define SVG_BOTTOM 24

/* the value range drawn: 0 and every finite value in v (and w) */
struct scale {
    double lo, hi;
};

static void scale_add(struct scale *s, double v)
{
    if (!isfinite(v))
        return;
    s->lo = v < s->lo ? v : s->lo;
    s->hi = v > s->hi ? v : s->hi;
}

static void scale_done(struct scale *s)
{
    /* halves: hi - lo of two huge finite values would overflow */
    if (!(s->hi / 2 - s->lo / 2 > 0))
        s->hi = s->lo + 1;
}

/* pixel x of v (finite), clamped to the plot */
static double scale_x(const struct scale *s, double v)
{
    double frac = (v / 2 - s->lo / 2) / (s->hi / 2 - s->lo / 2);
    if (!(frac >= 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    return SVG_PLOT_X + frac * SVG_PLOT_W;
}

static void open_svg(FILE *f, const char *title, size_t rows, const char *cls)
{
    int h = SVG_TOP + (int)(rows ? rows : 1) * SVG_ROW + SVG_BOTTOM;
    fprintf(f,
            "<svg class=\"%s\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
            cls, SVG_W, h, SVG_W, h);
    html_put(f, title);
    fputs("\">\n<text class=\"title\" x=\"4\" y=\"16\">", f);
    html_put(f, title);
    fputs("</text>\n", f);
}

static void value_unit(FILE *f, double v, const char *unit)
{
    html_num(f, v);
    if (unit && *unit && isfinite(v)) {
        fputc(' ', f);
        html_put(f, unit);
    }
}

static void row_label(FILE *f, double y, const char *label)
{
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", SVG_LABEL_END, y + 15);
    html_put(f, label ? label : "");
    fputs("</text>\n", f);
}

/* the range under the plot: its two ends and, when negative values are
 * drawn, the zero line */
static void axis(FILE *f, const struct scale *s, size_t rows, const char *unit)
{
    double y0 = SVG_TOP - 4, y1 = SVG_TOP + (double)rows * SVG_ROW;
    double z = scale_x(s, 0);
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", z, y0, z,
            y1);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"unk\">", SVG_PLOT_X, y1 + 16);
    value_unit(f, s->lo, unit);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"unk\">",
            SVG_PLOT_X + SVG_PLOT_W, y1 + 16);
    value_unit(f, s->hi, unit);
    fputs("</text>\n", f);
}

/* a vertical line across every row, named above the plot */
static void vline(FILE *f, const struct scale *s, double v, size_t rows, const char *cls,
                  const char *label, const char *unit)
{
    double x = scale_x(s, v), y1 = SVG_TOP + (double)rows * SVG_ROW;
    fprintf(f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"><title>", cls, x,
            SVG_TOP - 12, x, y1);
    html_put(f, label);
    fputc(' ', f);
    value_unit(f, v, unit);
    fprintf(f, "</title></line>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">", x, SVG_TOP - 14,
            x > SVG_PLOT_X + SVG_PLOT_W / 2 ? "end" : "start");
    html_put(f, label);
    fputc(' ', f);
    value_unit(f, v, unit);
    fputs("</text>\n", f);
}

void svg_bar_chart(FILE *f, const char *title, const char *unit, const struct svg_bar *bars,
                   size_t n, double ref, const char *ref_label)
{
    struct scale s = {0, 0};
    for (size_t i = 0; i < n; i++) {
        scale_add(&s, bars[i].value);
        scale_add(&s, bars[i].mark);
    }
    scale_add(&s, ref);
    scale_done(&s);
    open_svg(f, title, n, "chart bars");
    double z = scale_x(&s, 0);
    for (size_t i = 0; i < n; i++) {
        const struct svg_bar *b = &bars[i];
        double y = SVG_TOP + (double)i * SVG_ROW;
        row_label(f, y, b->label);
        if (!isfinite(b->value)) {
            fprintf(f, "<text class=\"unk\" x=\"%.1f\" y=\"%.1f\">unknown</text>\n", z + 4, y + 15);
        } else {
            double x = scale_x(&s, b->value);
            fprintf(f,
                    "<rect class=\"bar%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
                    "<title>",
                    b->over ? " over" : "", x < z ? x : z, y + 3, fabs(x - z), SVG_ROW - 6);
            html_put(f, b->label);
            fputs(": ", f);
            value_unit(f, b->value, unit);
            fprintf(f, "</title></rect>\n<text x=\"%d\" y=\"%.1f\">", SVG_PLOT_X + SVG_PLOT_W + 6,
                    y + 15);
            value_unit(f, b->value, unit);
            fputs("</text>\n", f);
        }
        if (isfinite(b->mark)) {
            double x = scale_x(&s, b->mark);
            fprintf(f,
                    "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>",
                    x, y + 1, x, y + SVG_ROW - 1);
            html_put(f, b->mark_label ? b->mark_label : "budget");
            fputc(' ', f);
            value_unit(f, b->mark, unit);
            fputs("</title></line>\n", f);
        }
    }
    axis(f, &s, n, unit);
    if (isfinite(ref))
        vline(f, &s, ref, n, "ref", ref_label ? ref_label : "reference", unit);
    fputs("</svg>\n", f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double svg_median(const double *v, size_t n)
{
    double *k = xcalloc(n ? n : 1, sizeof(*k));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            k[m++] = v[i];
    double med = NAN;
    if (m) {
        qsort(k, m, sizeof(*k), cmp_double);
        med = m % 2 ? k[m / 2] : k[m / 2 - 1] / 2 + k[m / 2] / 2;
    }
    free(k);
    return med;
}

void svg_strip_plot(FILE *f, const char *title, const char *unit, const char *const *labels,
                    const double *values, size_t n)
{
    struct scale s = {0, 0};
    for (size_t i = 0; i < n; i++)
        scale_add(&s, values[i]);
    scale_done(&s);
    open_svg(f, title, n, "chart strip");
    for (size_t i = 0; i < n; i++) {
        double y = SVG_TOP + (double)i * SVG_ROW;
        row_label(f, y, labels[i]);
        if (!isfinite(values[i])) {
            fprintf(f, "<text class=\"unk\" x=\"%d\" y=\"%.1f\">unknown</text>\n", SVG_PLOT_X + 4,
                    y + 15);
            continue;
        }
        fprintf(f, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"><title>",
                scale_x(&s, values[i]), y + SVG_ROW / 2.0);
        html_put(f, labels[i]);
        fputs(": ", f);
        value_unit(f, values[i], unit);
        fprintf(f, "</title></circle>\n<text x=\"%d\" y=\"%.1f\">", SVG_PLOT_X + SVG_PLOT_W + 6,
                y + 15);
        value_unit(f, values[i], unit);
        fputs("</text>\n", f);
    }
    axis(f, &s, n, unit);
    double med = svg_median(values, n);
    if (isfinite(med))
        vline(f, &s, med, n, "median", "median", unit);
    fputs("</svg>\n", f);
}
