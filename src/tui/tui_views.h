/* tui_views.h - the dashboard's screens other than the panels: the help
 * (keys, and why each unknown value is unknown), the process table ('p')
 * and one check's summary and fix (Enter). Each fills the rectangle it is
 * given; tui_draw_frame picks which. */
#ifndef RVD_TUI_VIEWS_H
#define RVD_TUI_VIEWS_H

#include "tui_canvas.h"
#include "tui_model.h"

struct tui_view;

/* the processes of the last process scan: pid, name, GPU, VRAM, source */
void tui_views_procs(struct tui_canvas *cv, const struct tui_rect *r, const struct tui_model *m);
/* the result at v->csel in the checklist's order: status, summary, fix, why */
void tui_views_fix(struct tui_canvas *cv, const struct tui_rect *r, const struct tui_model *m,
                   const struct tui_view *v);

#endif
