/* tui_layout.h - where each panel of the dashboard goes: a pure function of
 * the terminal size, the number of GPUs and the number of checks. The same
 * function places the ncurses windows and the plain-text --once frame, and
 * tests/unit/test_tui_layout.c holds it to its promises: every rectangle lies
 * inside the screen, sizes are never negative, and nothing overlaps.
 *
 * Screen, top to bottom: a header row (title, host, keys), the GPU panels,
 * the workload panel (with --workload), the checklist box, a status row
 * (last refresh times). GPU panels are boxes
 * of TUI_GPU_FULL_H rows side by side when the terminal is wide; when they do
 * not fit next to a usable checklist, every GPU gets one line instead
 * (TUI_GPU_LINE: its PCI address, values and sparklines), and when even
 * those do not fit, the first GPUs are shown and ngpu_shown says how many.
 * Under the GPU lines, one full panel (TUI_GPU_FULL_H rows, `detail`) shows
 * the selected GPU's plots when it fits above the workload box and the
 * checklist's minimum: 8 GPUs at 120x40 are 8 lines and one panel. The workload panel is a box of
 * TUI_WL_FULL_H rows across the screen when it fits above a checklist of TUI_CHECKS_MIN lines, else
 * one line; GPU panels take full size only when they leave room for both. The checklist's minimum
 * grows with the checks that did not pass. */
#ifndef RVD_TUI_LAYOUT_H
#define RVD_TUI_LAYOUT_H

#define TUI_MAX_GPUS 64
#define TUI_GPU_FULL_H 13 /* border + 7 value lines + 4 plots */
#define TUI_GPU_MIN_W 50  /* narrowest full panel */
#define TUI_LINE_MIN_W 72 /* narrowest one-line GPU entry before a second column */
#define TUI_CHECKS_MIN 3  /* check lines kept visible before GPUs get full panels */
#define TUI_PLOT_EXTRA 23 /* a plot line's label, bars and scale around the plot */
#define TUI_WL_FULL_H 8   /* workload box: border + 6 lines (2 plots) */

struct tui_rect {
    int y, x, h, w;
};

enum tui_gpu_mode { TUI_GPU_FULL, TUI_GPU_LINE };

struct tui_layout {
    int rows, cols;
    struct tui_rect header;   /* row 0 */
    struct tui_rect gpu_area; /* holds every GPU rect; one message line without GPUs */
    enum tui_gpu_mode gpu_mode;
    int ngpu;       /* GPUs asked for (clamped to TUI_MAX_GPUS) */
    int ngpu_shown; /* gpu[0 .. ngpu_shown-1] are placed */
    struct tui_rect gpu[TUI_MAX_GPUS];
    struct tui_rect detail;   /* TUI_GPU_LINE: the selected GPU's full panel
                               * inside gpu_area under the lines; h 0 none */
    int workload_asked;       /* the panel was asked for */
    struct tui_rect workload; /* h 0 without --workload or without room */
    int workload_full;        /* 1: a box of TUI_WL_FULL_H rows; 0: one line */
    struct tui_rect checks;   /* the checklist box */
    int checks_border;        /* 1 when checks has a frame (h >= 3, w >= 4) */
    int checks_visible;       /* check lines that fit inside it */
    struct tui_rect status;   /* last row, when rows >= 2 */
    int plot_cols;            /* width of every history plot (GPU panels and the
                               * workload box share it: one time axis); 0 none */
};

/* nbad: checks that did not pass (fail, error, timeout, warn); the
 * checklist keeps room for all of them before GPUs take full panels or
 * more lines, so failing checks stay visible on small terminals (they are
 * drawn first). Negative or absurd inputs are clamped; never fails. */
void tui_layout_compute(int rows, int cols, int ngpu, int nchecks, int nbad, int workload,
                        struct tui_layout *out);
/* rows that show every GPU as a full panel (when cols allows), the workload
 * box (workload != 0) and every check */
int tui_layout_rows_needed(int cols, int ngpu, int nchecks, int workload);

#endif
