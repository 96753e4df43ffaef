/* tui_draw.h - one dashboard frame drawn into a canvas from the model's
 * facts, at the places tui_layout_compute chose. Used by the ncurses loop and
 * by --once alike. */
#ifndef RVD_TUI_DRAW_H
#define RVD_TUI_DRAW_H

#include "tui_canvas.h"
#include "tui_layout.h"
#include "tui_model.h"
#include "tui_workload.h"

struct tui_view {
    int scroll;                    /* first check line shown; clamped by tui_draw_frame */
    int interval_ms;               /* telemetry period, for the status line */
    const char *note;              /* shown in the status line when set ("running checks ...") */
    const struct tui_workload *wl; /* --workload, or NULL */
    int help;                      /* the help screen instead of the panels */
    int at_end;                    /* End was pressed: keep the end shown after a resize */
    int plot_cols;                 /* columns of every history plot in the frame */
    int per_col;                   /* samples per plot column */
    int sel;                       /* the GPU whose panel shows under the GPU lines
                                    * (Left/Right, Tab, digits); clamped when drawn */
    int csel;       /* the selected check: its place in tui_model_check_order, clamped;
                     * -1 none (--once) */
    int csel_moved; /* 1: csel moved last (the checklist scrolls to it); 0: the
                     * checklist scrolled last (csel moves into view) */
    int procs;      /* the process table instead of the panels ('p') */
    int fix;        /* the selected check's summary and fix (Enter; Esc back) */
};

void tui_draw_frame(struct tui_canvas *cv, const struct tui_layout *l, const struct tui_model *m,
                    struct tui_view *v);
/* the help screen over the whole canvas, with why each unknown value of
 * the panels is unknown */
void tui_draw_help(struct tui_canvas *cv, const struct tui_model *m);
/* the colour of a status (the checklist's marks) */
enum tui_attr tui_draw_status_attr(enum status st);
/* the largest useful scroll offset for the checklist */
int tui_draw_max_scroll(const struct tui_layout *l, const struct tui_model *m);

#endif
