/* tui_canvas.h - a grid of cells (one UTF-8 character and one attribute
 * each) that the dashboard draws into. The ncurses path copies it to the
 * panel windows; --once prints it as plain text. One drawing code for both
 * is what makes the --once frame a faithful test of the live view. Text from
 * sysfs or a snapshot is never trusted: control, C1 and bidi characters and
 * invalid UTF-8 become visible escapes (str_sanitize), and nothing is
 * written outside the grid. */
#ifndef RVD_TUI_CANVAS_H
#define RVD_TUI_CANVAS_H

#include <stdio.h>

#include "../core/util.h"
#include "tui_layout.h"

enum tui_attr {
    TA_NORMAL,
    TA_PASS,
    TA_WARN,
    TA_FAIL,
    TA_SKIP,
    TA_ERROR,
    TA_TITLE,
    TA_DIM,
    TA_SELECT, /* the selected check (reverse video) */
    TA__COUNT
};

struct tui_cell {
    char u[5]; /* one UTF-8 character, NUL-terminated */
    unsigned char attr;
};

struct tui_canvas {
    int rows, cols;
    struct tui_cell *cell;
    int utf8; /* box drawing and plot blocks as UTF-8; else ASCII */
};

void tui_canvas_init(struct tui_canvas *cv, int rows, int cols);
void tui_canvas_release(struct tui_canvas *cv);
/* s at (y, x) in at most maxw columns (clipped to the grid); returns the
 * columns written */
int tui_canvas_put(struct tui_canvas *cv, int y, int x, int maxw, enum tui_attr a, const char *s);
int tui_canvas_printf(struct tui_canvas *cv, int y, int x, int maxw, enum tui_attr a,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* a frame around r (UTF-8 box drawing with utf8, else ASCII +-|), with title (may be NULL) on its
 * top edge */
void tui_canvas_box(struct tui_canvas *cv, const struct tui_rect *r, const char *title,
                    enum tui_attr title_attr);
/* the grid as text, trailing spaces of each row dropped */
void tui_canvas_print(const struct tui_canvas *cv, FILE *out);
/* the same text, rows ended by "\r\n" (a terminal's line ends), into sb */
void tui_canvas_text(const struct tui_canvas *cv, struct strbuf *sb);
/* 1 when both grids hold the same characters and attributes */
int tui_canvas_same(const struct tui_canvas *a, const struct tui_canvas *b);

#endif
