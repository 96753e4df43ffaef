/* tui_layout.c - the dashboard's layout arithmetic (see tui_layout.h). No I/O,
 * no ncurses: tests call it with any size. */
#include "tui_layout.h"

#include <string.h>

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

/* check lines the checklist box wants before GPUs may take full panels:
 * a few, and every check that did not pass (they are listed first) */
static int checks_want(int nchecks, int nbad)
{
    int lines = nchecks < TUI_CHECKS_MIN ? (nchecks > 0 ? nchecks : 1) : TUI_CHECKS_MIN;
    if (nbad > lines)
        lines = nbad;
    return lines + 2;
}

static int full_columns(int cols, int ngpu)
{
    return clampi(cols / TUI_GPU_MIN_W, 1, ngpu > 0 ? ngpu : 1);
}

/* ncol rects per row, row-major, the widths spread so the row fills cols */
static void place_grid(struct tui_layout *l, int top, int h, int ncol, int nshow)
{
    for (int i = 0; i < nshow; i++) {
        int c = i % ncol, r = i / ncol;
        int base = l->cols / ncol, extra = l->cols % ncol;
        l->gpu[i].y = top + r * h;
        l->gpu[i].x = c * base + (c < extra ? c : extra);
        l->gpu[i].w = base + (c < extra ? 1 : 0);
        l->gpu[i].h = h;
    }
    l->ngpu_shown = nshow;
}

void tui_layout_compute(int rows, int cols, int ngpu, int nchecks, int nbad, int workload,
                        struct tui_layout *out)
{
    memset(out, 0, sizeof(*out));
    rows = clampi(rows, 0, 100000);
    cols = clampi(cols, 0, 100000);
    ngpu = clampi(ngpu, 0, TUI_MAX_GPUS);
    nchecks = clampi(nchecks, 0, 100000);
    nbad = clampi(nbad, 0, nchecks);
    out->rows = rows;
    out->cols = cols;
    out->ngpu = ngpu;
    out->workload_asked = workload != 0;
    out->gpu_mode = TUI_GPU_LINE;
    if (rows == 0 || cols == 0)
        return;

    out->header = (struct tui_rect){0, 0, 1, cols};
    int top = 1, bottom = rows;
    if (rows >= 2) {
        out->status = (struct tui_rect){rows - 1, 0, 1, cols};
        bottom = rows - 1;
    }
    int avail = bottom - top; /* >= 0 */

    /* GPUs come first (telemetry is why the dashboard is open), but leave
     * the checklist a few lines (and the workload its line) unless there is
     * no room at all */
    int wl_line = workload ? 1 : 0;
    int space = avail - checks_want(nchecks, nbad) - wl_line;
    if (space < 1)
        space = avail < 1 ? avail : 1;
    /* full GPU panels only when the workload box fits under them too */
    int full_space = avail - checks_want(nchecks, nbad) - (workload ? TUI_WL_FULL_H : 0);

    int used;
    if (ngpu == 0) {
        used = space < 1 ? space : 1; /* "no AMD GPU" line */
    } else {
        int ncol = full_columns(cols, ngpu);
        int full_h = ceil_div(ngpu, ncol) * TUI_GPU_FULL_H;
        if (cols >= TUI_GPU_MIN_W && full_h <= full_space) {
            out->gpu_mode = TUI_GPU_FULL;
            place_grid(out, top, TUI_GPU_FULL_H, ncol, ngpu);
            used = full_h;
        } else {
            int lcol = clampi(cols / TUI_LINE_MIN_W, 1, ngpu);
            int lrows = ceil_div(ngpu, lcol);
            if (lrows > space)
                lrows = space;
            int nshow = lrows * lcol < ngpu ? lrows * lcol : ngpu;
            place_grid(out, top, 1, lcol, nshow);
            used = lrows;
            /* the selected GPU's plots, when they leave the workload box
             * and the checklist their room */
            if (nshow == ngpu && cols >= TUI_GPU_MIN_W &&
                avail - used - TUI_GPU_FULL_H >=
                    checks_want(nchecks, nbad) + (workload ? TUI_WL_FULL_H : 0)) {
                out->detail = (struct tui_rect){top + used, 0, TUI_GPU_FULL_H, cols};
                used += TUI_GPU_FULL_H;
            }
        }
    }
    out->gpu_area = (struct tui_rect){top, 0, used, cols};

    int ctop = top + used;
    if (workload) {
        int rest = bottom - ctop;
        int h = rest >= TUI_WL_FULL_H + checks_want(nchecks, nbad) && cols >= 4 ? TUI_WL_FULL_H
                : rest >= 1                                                     ? 1
                                                                                : 0;
        out->workload = (struct tui_rect){ctop, 0, h, h ? cols : 0};
        out->workload_full = h == TUI_WL_FULL_H;
        ctop += h;
    }
    out->checks = (struct tui_rect){ctop, 0, bottom - ctop, cols};
    out->checks_border = out->checks.h >= 3 && cols >= 4;
    out->checks_visible = out->checks_border ? out->checks.h - 2 : out->checks.h;

    /* the narrowest box that holds plots sets every plot's width */
    int inner = 0;
    if (out->gpu_mode == TUI_GPU_FULL && out->ngpu_shown > 0)
        for (int i = 0; i < out->ngpu_shown; i++)
            inner = inner == 0 || out->gpu[i].w - 4 < inner ? out->gpu[i].w - 4 : inner;
    if (out->detail.h > 0)
        inner = out->detail.w - 4;
    if (out->workload_full && (inner == 0 || out->workload.w - 4 < inner))
        inner = out->workload.w - 4;
    out->plot_cols = inner - TUI_PLOT_EXTRA > 0 ? inner - TUI_PLOT_EXTRA : 0;
}

int tui_layout_rows_needed(int cols, int ngpu, int nchecks, int workload)
{
    ngpu = clampi(ngpu, 0, TUI_MAX_GPUS);
    nchecks = clampi(nchecks, 0, 100000);
    int gpu_rows;
    if (ngpu == 0)
        gpu_rows = 1;
    else if (cols >= TUI_GPU_MIN_W)
        gpu_rows = ceil_div(ngpu, full_columns(cols, ngpu)) * TUI_GPU_FULL_H;
    else
        gpu_rows = ngpu;
    return 1 + gpu_rows + (workload ? TUI_WL_FULL_H : 0) + (nchecks > 0 ? nchecks : 1) + 2 + 1;
}
