/* svg.c - the two plots the HTML pages draw, as inline SVG (html.h): a
 * horizontal bar chart with per-bar marks and a reference line, and a dot
 * plot across items with the median. The pictures render what they are
 * given: unknown stays the word "unknown", never a bar of length 0. */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

/* The geometry follows the text drawn: the label column is as wide as
 * the longest row label (up to SVG_LABEL_MAX; a longer one is cut with
 * "..." and given whole in a tooltip), the plot SVG_PLOT_W wide after it,
 * then room for the widest value, and the whole at least as wide as the
 * title. Text widths are estimated at SVG_CHAR_EM of the font size per
 * character, at least what a sans-serif font draws for digits and lower
 * case (Helvetica's digits are 0.556 em), so nothing is clipped by the
 * viewBox. tests/sweep_report.sh checks every <text> against it. */
#define SVG_CHAR_EM 0.6
#define SVG_FONT 12.0  /* px, the page's css for svg */
#define SVG_TITLE 13.0 /* px, svg .title */
#define SVG_PAD 4
#define SVG_LABEL_MAX 44 /* characters */
#define SVG_PLOT_W 380
#define SVG_ROW 22
#define SVG_TOP 38
#define SVG_BOTTOM 24

/* the value range drawn: 0 and every finite value in v (and w), and
 * where on the page it is */
struct scale {
    double lo, hi;
    double label_end, plot_x, w; /* the labels' right edge, the plot's left, the width */
};

static double text_w(size_t chars, double font)
{
    return (double)chars * font * SVG_CHAR_EM;
}

/* characters, not bytes, of a label (UTF-8) */
static size_t chars_of(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* the text value_unit writes, for its width */
static size_t value_chars(double v, const char *unit)
{
    char buf[64];
    if (!isfinite(v))
        return strlen("unknown");
    snprintf(buf, sizeof(buf), "%.4g%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
    return strlen(buf);
}

/* lay the chart out for its labels, values (both n) and title */
static void scale_layout(struct scale *s, const char *title, const char *const *labels,
                         const double *values, size_t n, const char *unit)
{
    size_t lab = 0, val = value_chars(s->lo, unit);
    if (value_chars(s->hi, unit) > val)
        val = value_chars(s->hi, unit);
    for (size_t i = 0; i < n; i++) {
        size_t c = chars_of(labels[i]);
        lab = c > lab ? c : lab;
        val = value_chars(values[i], unit) > val ? value_chars(values[i], unit) : val;
    }
    lab = lab < SVG_LABEL_MAX ? lab : SVG_LABEL_MAX;
    s->label_end = SVG_PAD + text_w(lab, SVG_FONT);
    s->plot_x = s->label_end + 8;
    s->w = s->plot_x + SVG_PLOT_W + 6 + text_w(val, SVG_FONT) + SVG_PAD;
    double tw = SVG_PAD + text_w(chars_of(title), SVG_TITLE) + SVG_PAD;
    s->w = s->w < tw ? tw : s->w;
    s->w = ceil(s->w);
}

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
    return s->plot_x + frac * SVG_PLOT_W;
}

static void open_svg(FILE *f, const struct scale *s, const char *title, size_t rows,
                     const char *cls)
{
    int h = SVG_TOP + (int)(rows ? rows : 1) * SVG_ROW + SVG_BOTTOM;
    fprintf(f,
            "<svg class=\"%s\" width=\"%.0f\" height=\"%d\" "
            "viewBox=\"0 0 %.0f %d\" role=\"img\" aria-label=\"",
            cls, s->w, h, s->w, h);
    html_put(f, title);
    fprintf(f, "\">\n<text class=\"title\" x=\"%d\" y=\"16\">", SVG_PAD);
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

/* the label right-aligned before the plot; cut to SVG_LABEL_MAX
 * characters with "...", the whole in its tooltip */
static void row_label(FILE *f, const struct scale *s, double y, const char *label)
{
    label = label ? label : "";
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", s->label_end, y + 15);
    if (chars_of(label) <= SVG_LABEL_MAX) {
        html_put(f, label);
    } else {
        size_t i = 0, c = 0;
        for (; label[i]; i++)
            if (((unsigned char)label[i] & 0xC0) != 0x80 && c++ == SVG_LABEL_MAX - 3)
                break;
        char *cut = xasprintf("%.*s...", (int)i, label);
        fputs("<title>", f);
        html_put(f, label);
        fputs("</title>", f);
        html_put(f, cut);
        free(cut);
    }
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
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"unk\">", s->plot_x, y1 + 16);
    value_unit(f, s->lo, unit);
    fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"unk\">",
            s->plot_x + SVG_PLOT_W, y1 + 16);
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
    /* the name on the side of the line with room for it */
    double tw = text_w(chars_of(label) + 1 + value_chars(v, unit), SVG_FONT);
    int end = x > s->plot_x + SVG_PLOT_W / 2 ? x - tw >= 0 : x + tw > s->w - SVG_PAD;
    fprintf(f, "</title></line>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">", x, SVG_TOP - 14,
            end ? "end" : "start");
    html_put(f, label);
    fputc(' ', f);
    value_unit(f, v, unit);
    fputs("</text>\n", f);
}

void svg_bar_chart(FILE *f, const char *title, const char *unit, const struct svg_bar *bars,
                   size_t n, double ref, const char *ref_label)
{
    struct scale s = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        scale_add(&s, bars[i].value);
        scale_add(&s, bars[i].mark);
    }
    scale_add(&s, ref);
    scale_done(&s);
    const char **labels = xcalloc(n ? n : 1, sizeof(*labels));
    double *values = xcalloc(n ? n : 1, sizeof(*values));
    for (size_t i = 0; i < n; i++)
        labels[i] = bars[i].label, values[i] = bars[i].value;
    scale_layout(&s, title, labels, values, n, unit);
    free(labels);
    free(values);
    open_svg(f, &s, title, n, "chart bars");
    double z = scale_x(&s, 0);
    for (size_t i = 0; i < n; i++) {
        const struct svg_bar *b = &bars[i];
        double y = SVG_TOP + (double)i * SVG_ROW;
        row_label(f, &s, y, b->label);
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
            fprintf(f, "</title></rect>\n<text x=\"%.1f\" y=\"%.1f\">", s.plot_x + SVG_PLOT_W + 6,
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
    struct scale s = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        scale_add(&s, values[i]);
    scale_done(&s);
    scale_layout(&s, title, (const char *const *)labels, values, n, unit);
    open_svg(f, &s, title, n, "chart strip");
    for (size_t i = 0; i < n; i++) {
        double y = SVG_TOP + (double)i * SVG_ROW;
        row_label(f, &s, y, labels[i]);
        if (!isfinite(values[i])) {
            fprintf(f, "<text class=\"unk\" x=\"%.1f\" y=\"%.1f\">unknown</text>\n", s.plot_x + 4,
                    y + 15);
            continue;
        }
        fprintf(f, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"><title>",
                scale_x(&s, values[i]), y + SVG_ROW / 2.0);
        html_put(f, labels[i]);
        fputs(": ", f);
        value_unit(f, values[i], unit);
        fprintf(f, "</title></circle>\n<text x=\"%.1f\" y=\"%.1f\">", s.plot_x + SVG_PLOT_W + 6,
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
