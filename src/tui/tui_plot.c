/* tui_plot.c - history rings and the one-row bar plot (see tui_plot.h). */
#include "tui_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

void tui_ring_init(struct tui_ring *r, int cap)
{
    r->cap = cap > 0 ? cap : 1;
    r->v = xcalloc((size_t)r->cap, sizeof(double));
    r->n = r->head = 0;
}

void tui_ring_release(struct tui_ring *r)
{
    free(r->v);
    memset(r, 0, sizeof(*r));
}

void tui_ring_push(struct tui_ring *r, double v)
{
    r->v[r->head] = v;
    r->head = (r->head + 1) % r->cap;
    if (r->n < r->cap)
        r->n++;
}

double tui_ring_back(const struct tui_ring *r, int i)
{
    if (i < 0 || i >= r->n)
        return NAN;
    return r->v[((r->head - 1 - i) % r->cap + r->cap) % r->cap];
}

static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                      "\u2585", "\u2586", "\u2587", "\u2588"};
static const char ascii_ramp[] = "_.,-=+*#";

size_t tui_plot_render(const struct tui_ring *r, int cols, int per_col, enum tui_agg agg, int utf8,
                       char *buf, size_t size, struct tui_plot *out)
{
    struct tui_plot p = {cols > 0 ? cols : 0, NAN, NAN, 0};
    if (per_col < 1)
        per_col = 1;
    double col[512];
    if (p.cols > (int)ARRAY_SIZE(col))
        p.cols = (int)ARRAY_SIZE(col);
    /* column c (0 = leftmost) aggregates samples that are
     * (p.cols-1-c)*per_col .. +per_col-1 back from the newest */
    for (int c = 0; c < p.cols; c++) {
        double a = NAN;
        for (int k = 0; k < per_col; k++) {
            double v = tui_ring_back(r, (p.cols - 1 - c) * per_col + k);
            if (isnan(v))
                continue;
            if (isnan(a) || (agg == TUI_AGG_MAX ? v > a : v < a))
                a = v;
        }
        col[c] = a;
        if (isnan(a))
            continue;
        if (!p.known || a < p.lo)
            p.lo = a;
        if (!p.known || a > p.hi)
            p.hi = a;
        p.known++;
    }
    size_t w = 0;
    for (int c = 0; c < p.cols; c++) {
        const char *ch = " ";
        char one[2] = {0, 0};
        if (!isnan(col[c])) {
            int lvl = 3; /* flat: the middle */
            if (p.hi > p.lo)
                lvl = (int)((col[c] - p.lo) / (p.hi - p.lo) * 7.0 + 0.5);
            lvl = lvl < 0 ? 0 : lvl > 7 ? 7 : lvl;
            if (utf8) {
                ch = blocks[lvl];
            } else {
                one[0] = ascii_ramp[lvl];
                ch = one;
            }
        }
        size_t n = strlen(ch);
        if (w + n + 1 > size)
            break;
        memcpy(buf + w, ch, n);
        w += n;
    }
    if (size)
        buf[w < size ? w : size - 1] = '\0';
    if (out)
        *out = p;
    return w;
}
