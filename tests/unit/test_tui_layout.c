/* test_tui_layout.c - the dashboard's pure parts: the layout function over a
 * sweep of terminal sizes, GPU and check counts (inside the screen, never
 * negative, no overlap), the cases people hit (a 10x40 terminal, 8 GPUs on
 * 24x80, a wide terminal), the pp_dpm_* current-level parser and the canvas's
 * clipping and escaping. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/fact_catalog.h"
#include "../../src/tui/tui_canvas.h"
#include "../../src/tui/tui_layout.h"
#include "../../src/tui/tui_model.h"
#include "../../src/tui/tui_plot.h"
#include "../../src/tui/tui_workload.h"
#include "../../src/core/util.h"
#include "test.h"

static int inside(const struct tui_rect *r, int rows, int cols)
{
    if (r->h < 0 || r->w < 0 || r->y < 0 || r->x < 0)
        return 0;
    if (r->h == 0 || r->w == 0)
        return 1;
    return r->y + r->h <= rows && r->x + r->w <= cols;
}

static int overlap(const struct tui_rect *a, const struct tui_rect *b)
{
    if (a->h <= 0 || a->w <= 0 || b->h <= 0 || b->w <= 0)
        return 0;
    return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

/* every promise of tui_layout.h for one input; returns the number broken */
static int layout_ok(int rows, int cols, int ngpu, int nchecks, int wl)
{
    struct tui_layout l;
    tui_layout_compute(rows, cols, ngpu, nchecks, 0, wl, &l);
    int bad = 0;
    int R = rows > 0 ? rows : 0, C = cols > 0 ? cols : 0;
    const struct tui_rect *fixed[] = {&l.header, &l.gpu_area, &l.workload, &l.checks, &l.status};
    for (size_t i = 0; i < 5; i++) {
        bad += !inside(fixed[i], R, C);
        for (size_t j = i + 1; j < 5; j++)
            bad += overlap(fixed[i], fixed[j]);
    }
    /* the workload panel: only when asked, a box or one line, full width */
    bad += !wl && l.workload.h != 0;
    bad += l.workload.h != 0 && l.workload.h != 1 && l.workload.h != TUI_WL_FULL_H;
    bad += l.workload_full != (l.workload.h == TUI_WL_FULL_H);
    bad += l.workload.h > 0 && l.workload.w != C;
    /* a workload line whenever a line is free below the GPUs */
    bad += wl && R >= 2 && C > 0 && l.workload.h == 0 && l.checks.h > 0;
    bad += l.ngpu_shown < 0 || l.ngpu_shown > l.ngpu || l.checks_visible < 0;
    bad += l.checks_visible > (l.checks.h > 0 ? l.checks.h : 0);
    for (int g = 0; g < l.ngpu_shown; g++) {
        const struct tui_rect *r = &l.gpu[g];
        bad += r->h <= 0 || r->w <= 0 || !inside(r, R, C);
        /* inside the GPU area */
        bad += r->y < l.gpu_area.y || r->y + r->h > l.gpu_area.y + l.gpu_area.h;
        for (int h = g + 1; h < l.ngpu_shown; h++)
            bad += overlap(r, &l.gpu[h]);
        bad += l.detail.h > 0 && overlap(r, &l.detail);
    }
    /* the selected GPU's panel: only under GPU lines, full size, inside
     * the GPU area */
    if (l.detail.h > 0) {
        bad +=
            l.gpu_mode != TUI_GPU_LINE || l.detail.h != TUI_GPU_FULL_H || !inside(&l.detail, R, C);
        bad += l.detail.y < l.gpu_area.y || l.detail.y + l.detail.h > l.gpu_area.y + l.gpu_area.h;
    }
    /* rows are not wasted: header, GPUs, checks and status tile the screen */
    if (R >= 2 && C > 0)
        bad += l.header.h + l.gpu_area.h + l.workload.h + l.checks.h + l.status.h != R;
    if (bad)
        fprintf(stderr, "layout %dx%d gpus %d checks %d workload %d: %d broken promises\n", rows,
                cols, ngpu, nchecks, wl, bad);
    return bad;
}

static void test_sweep(void)
{
    int broken = 0, cases = 0;
    const int gpus[] = {0, 1, 2, 3, 4, 7, 8, 16, 64, 65, 1000};
    const int checks[] = {0, 1, 2, 3, 26, 200};
    for (int rows = -2; rows <= 70; rows++)
        for (int cols = -2; cols <= 260; cols += (cols < 90 ? 1 : 17))
            for (size_t g = 0; g < ARRAY_SIZE(gpus); g++)
                for (size_t c = 0; c < ARRAY_SIZE(checks); c++)
                    for (int wl = 0; wl <= 1; wl++) {
                        broken += layout_ok(rows, cols, gpus[g], checks[c], wl) != 0;
                        cases++;
                    }
    CHECK(cases > 200000);
    CHECK(broken == 0);
}

static void test_tiny(void)
{
    struct tui_layout l;
    /* 10x40 with one GPU: a GPU line, the checklist still has a box */
    tui_layout_compute(10, 40, 1, 26, 0, 0, &l);
    CHECK(l.header.h == 1 && l.status.y == 9);
    CHECK(l.gpu_mode == TUI_GPU_LINE);
    CHECK(l.ngpu_shown == 1 && l.gpu[0].h == 1 && l.gpu[0].w == 40);
    CHECK(l.checks_border && l.checks_visible == 5);
    /* 10x40 with 8 GPUs: as many lines as leave the checklist 3 lines */
    tui_layout_compute(10, 40, 8, 26, 0, 0, &l);
    CHECK(l.ngpu_shown == 3);
    CHECK(l.checks_visible == 3);
    /* 1 row: only the header; 0 columns: nothing at all */
    tui_layout_compute(1, 40, 2, 26, 0, 0, &l);
    CHECK(l.header.h == 1 && l.status.h == 0 && l.checks.h == 0 && l.ngpu_shown == 0);
    tui_layout_compute(24, 0, 2, 26, 0, 0, &l);
    CHECK(l.header.h == 0 && l.ngpu_shown == 0 && l.checks_visible == 0);
    /* 3 rows: header, one GPU line, status; the checklist gets nothing */
    tui_layout_compute(3, 80, 4, 26, 0, 0, &l);
    CHECK(l.ngpu_shown == 1 && l.checks.h == 0 && l.checks_visible == 0);
    /* 5 rows: a checklist too short for a frame is drawn without one */
    tui_layout_compute(5, 80, 1, 26, 0, 0, &l);
    CHECK(l.checks.h == 2 && !l.checks_border && l.checks_visible == 2);
    /* negative sizes are an empty screen, not negative rectangles */
    tui_layout_compute(-5, -7, -1, -3, 0, 0, &l);
    CHECK(l.rows == 0 && l.cols == 0 && l.ngpu == 0 && l.checks.h == 0);
}

static void test_many_gpus(void)
{
    struct tui_layout l;
    /* 8 GPUs on 24x80: full panels would need 28 rows; one line each */
    tui_layout_compute(24, 80, 8, 26, 0, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_LINE);
    CHECK(l.ngpu_shown == 8);
    CHECK(l.gpu[7].y == 8 && l.gpu[7].w == 80);
    CHECK(l.checks.y == 9 && l.checks_visible == 12);
    /* 8 GPUs on 60x100: two columns of four full panels */
    tui_layout_compute(60, 100, 8, 26, 0, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL);
    CHECK(l.ngpu_shown == 8);
    CHECK(l.gpu[1].x == 50 && l.gpu[1].y == 1 && l.gpu[1].w == 50 && l.gpu[1].h == TUI_GPU_FULL_H);
    CHECK(l.gpu[7].y == 1 + 3 * TUI_GPU_FULL_H);
    CHECK(l.checks.y == 1 + 4 * TUI_GPU_FULL_H);
    /* 8 GPUs on 120x40 with 2 failing checks: a line each, the selected
     * GPU's panel under them, and the checklist keeps its rows */
    tui_layout_compute(40, 120, 8, 38, 2, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_LINE && l.ngpu_shown == 8);
    CHECK(l.detail.y == 9 && l.detail.h == TUI_GPU_FULL_H && l.detail.w == 120);
    CHECK(l.checks.y == 9 + TUI_GPU_FULL_H && l.checks_visible >= 2);
    CHECK(l.plot_cols == 120 - 4 - TUI_PLOT_EXTRA);
    /* at 80x24 the panel does not fit above the checks: lines only */
    tui_layout_compute(24, 80, 8, 38, 2, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_LINE && l.ngpu_shown == 8 && l.detail.h == 0);
    /* more GPUs than the table holds: clamped, not overrun */
    tui_layout_compute(300, 400, TUI_MAX_GPUS + 10, 5, 0, 0, &l);
    CHECK(l.ngpu == TUI_MAX_GPUS && l.ngpu_shown == TUI_MAX_GPUS);
}

static void test_wide(void)
{
    struct tui_layout l;
    /* 8 GPUs on 40x252: five columns of 51 or 50, two rows of panels */
    tui_layout_compute(40, 252, 8, 26, 0, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL);
    CHECK(l.gpu[0].w == 51 && l.gpu[4].w == 50);
    CHECK(l.gpu[4].x + l.gpu[4].w == 252);
    CHECK(l.gpu[5].y == 1 + TUI_GPU_FULL_H && l.gpu[5].x == 0);
    CHECK(l.gpu_area.h == 2 * TUI_GPU_FULL_H);
    /* one GPU on a wide terminal spans it */
    tui_layout_compute(40, 250, 1, 26, 0, 0, &l);
    CHECK(l.gpu[0].w == 250 && l.gpu[0].x == 0);
    /* 8 GPUs in line mode on a wide short terminal: three columns */
    tui_layout_compute(12, 230, 8, 26, 0, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_LINE);
    CHECK(l.ngpu_shown == 8 && l.gpu_area.h == 3 && l.gpu[2].x > 0);
}

static void test_rows_needed(void)
{
    struct tui_layout l;
    int r = tui_layout_rows_needed(100, 8, 26, 0);
    CHECK(r == 1 + 4 * TUI_GPU_FULL_H + 26 + 2 + 1);
    tui_layout_compute(r, 100, 8, 26, 0, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL && l.ngpu_shown == 8 && l.checks_visible == 26);
    r = tui_layout_rows_needed(30, 3, 4, 0);
    tui_layout_compute(r, 30, 3, 4, 0, 0, &l);
    CHECK(l.ngpu_shown == 3 && l.checks_visible == 4);
    r = tui_layout_rows_needed(100, 0, 0, 0);
    tui_layout_compute(r, 100, 0, 0, 0, 0, &l);
    CHECK(l.gpu_area.h == 1 && l.checks_visible == 1);
}

static void test_workload(void)
{
    struct tui_layout l;
    /* tiny terminals: 10x40 with one GPU: GPU line, workload box does not
     * fit above 3 check lines, so one workload line */
    tui_layout_compute(10, 40, 1, 26, 0, 1, &l);
    CHECK(l.workload.h == 1 && !l.workload_full && l.workload.y == 2);
    CHECK(l.checks.y == 3 && l.checks_visible == 4);
    /* 3 rows: header, GPU line, status: no room for the workload */
    tui_layout_compute(3, 80, 1, 26, 0, 1, &l);
    CHECK(l.ngpu_shown == 1 && l.workload.h == 0);
    /* 4 rows: header, GPU line, workload line, status */
    tui_layout_compute(4, 80, 1, 26, 0, 1, &l);
    CHECK(l.workload.h == 1 && l.workload.y == 2 && l.checks.h == 0);
    /* no GPU at all: the message line, then the workload box */
    tui_layout_compute(20, 80, 0, 5, 0, 1, &l);
    CHECK(l.gpu_area.h == 1 && l.workload_full && l.workload.y == 2);
    CHECK(l.checks.y == 2 + TUI_WL_FULL_H && l.checks_visible == 20 - 1 - 1 - 1 - 8 - 2);
    /* 8 GPUs + workload on 40x100: full panels would leave no room for the
     * workload box and 3 checks (1 + 52 + 8 + 5 > 39): GPU lines, the
     * selected GPU's panel (1 + 8 + 13 + 8 + 5 <= 39), workload box */
    tui_layout_compute(40, 100, 8, 26, 0, 1, &l);
    CHECK(l.gpu_mode == TUI_GPU_LINE && l.ngpu_shown == 8);
    CHECK(l.detail.y == 1 + 8 && l.detail.h == TUI_GPU_FULL_H && l.detail.w == 100);
    CHECK(l.workload_full && l.workload.y == 1 + 8 + TUI_GPU_FULL_H && l.workload.w == 100);
    CHECK(l.checks.y == 1 + 8 + TUI_GPU_FULL_H + TUI_WL_FULL_H);
    /* 8 GPUs + workload on 68x100: both full (1 + 52 + 8 + 5 + 1 = 67) */
    tui_layout_compute(68, 100, 8, 26, 0, 1, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL && l.ngpu_shown == 8);
    CHECK(l.workload_full && l.workload.y == 1 + 4 * TUI_GPU_FULL_H);
    CHECK(l.checks.y == 1 + 4 * TUI_GPU_FULL_H + TUI_WL_FULL_H && l.checks_visible == 4);
    /* 8 GPUs + workload on 24x80: lines for the GPUs, the workload box */
    tui_layout_compute(24, 80, 8, 26, 0, 1, &l);
    CHECK(l.gpu_mode == TUI_GPU_LINE && l.ngpu_shown == 8);
    CHECK(l.workload_full && l.checks_visible == 24 - 1 - 8 - 8 - 2 - 1);
    /* wide: 8 GPUs in two rows of five columns, the workload spans the screen */
    tui_layout_compute(41, 250, 8, 26, 0, 1, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL && l.gpu_area.h == 2 * TUI_GPU_FULL_H);
    CHECK(l.workload_full && l.workload.x == 0 && l.workload.w == 250);
    CHECK(l.workload.y == 1 + 2 * TUI_GPU_FULL_H);
    /* rows_needed counts the box: everything full and every check shown */
    int r = tui_layout_rows_needed(100, 8, 26, 1);
    CHECK(r == 1 + 4 * TUI_GPU_FULL_H + TUI_WL_FULL_H + 26 + 2 + 1);
    tui_layout_compute(r, 100, 8, 26, 0, 1, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL && l.workload_full && l.checks_visible == 26);
    r = tui_layout_rows_needed(100, 0, 0, 1);
    tui_layout_compute(r, 100, 0, 0, 0, 1, &l);
    CHECK(l.workload_full && l.checks_visible == 1);
}

/* budgets read from the built-in checks.yaml's vla.* rules */
static void test_workload_budget(void)
{
    struct checkset cs;
    CHECK(checks_load_default(&cs, NULL) == 0);
    struct factset fs = FACTSET_INIT;
    fact_set_bool(&fs, "vla.available", 1, NULL);
    fact_set_str(&fs, "vla.error", "", NULL);
    fact_set_str(&fs, "vla.backend", "hip", NULL);
    fact_set_str(&fs, "vla.preset", "pi0", NULL);
    fact_set_float(&fs, "vla.latency.total_ms", 50, NULL);
    fact_set_float(&fs, "vla.control_rate_hz", 20, NULL);
    double b = 0;
    CHECK(checks_budget(&cs, &fs, "vla.latency.total", "vla.latency.total_ms", 0, &b) == 0);
    CHECK(b > 79.999 && b < 80.001);
    CHECK(checks_budget(&cs, &fs, "vla.control_rate", "vla.control_rate_hz", 1, &b) == 0);
    CHECK(b > 12.499 && b < 12.501);
    /* lingbot-v2 has its own budget */
    fact_set_str(&fs, "vla.preset", "lingbot-v2", NULL);
    CHECK(checks_budget(&cs, &fs, "vla.control_rate", "vla.control_rate_hz", 1, &b) == 0);
    CHECK(b > 6.669 && b < 6.671);
    /* the CPU backend: a self-test, judged by vla.selftest (2 s), never
     * against the competition budget: no budget for the total or the rate */
    fact_set_str(&fs, "vla.backend", "cpu", NULL);
    CHECK(checks_budget(&cs, &fs, "vla.latency.total", "vla.latency.total_ms", 0, &b) == -ENOENT);
    CHECK(checks_budget(&cs, &fs, "vla.selftest", "vla.latency.total_ms", 0, &b) == 0);
    CHECK(b > 1999.99 && b < 2000.01);
    CHECK(checks_budget(&cs, &fs, "vla.control_rate", "vla.control_rate_hz", 1, &b) == -ENOENT);
    /* a failed pass fails at any latency: no budget to show */
    fact_set_str(&fs, "vla.error", "hipErrorOutOfMemory", NULL);
    CHECK(checks_budget(&cs, &fs, "vla.latency.total", "vla.latency.total_ms", 0, &b) == -ENOENT);
    CHECK(checks_budget(&cs, &fs, "no.such.check", "vla.latency.total_ms", 0, &b) == -ENOENT);
    CHECK(checks_budget(NULL, &fs, "vla.latency.total", "vla.latency.total_ms", 0, &b) == -ENOENT);
    /* the caller's facts are left as they were */
    const struct fact *f = fact_get(&fs, "vla.latency.total_ms");
    CHECK(f && f->type == FACT_FLOAT && f->f == 50);
    factset_release(&fs);
    checks_release(&cs);
}

/* the plot renderer: scale labels are the min and max of the columns,
 * unknown samples are gaps (never a bar at 0), the newest sample is the
 * rightmost column, columns aggregate per_col samples */
static void test_plot(void)
{
    struct tui_ring r;
    struct tui_plot p;
    char buf[256];
    tui_ring_init(&r, 8);
    /* empty: all gaps, no scale */
    CHECK(tui_plot_render(&r, 4, 1, TUI_AGG_MAX, 0, buf, sizeof(buf), &p) == 4);
    CHECK_STR(buf, "    ");
    CHECK(p.known == 0);
    /* the real MI300X idle power (147 W) then a load step (the H200's
     * 700 W cap as the top): low bar, gap for an unknown, high bar */
    tui_ring_push(&r, 147);
    tui_ring_push(&r, NAN);
    tui_ring_push(&r, 700);
    tui_plot_render(&r, 5, 1, TUI_AGG_MAX, 0, buf, sizeof(buf), &p);
    CHECK_STR(buf, "  _ #");
    CHECK(p.known == 2 && p.lo == 147 && p.hi == 700);
    tui_plot_render(&r, 3, 1, TUI_AGG_MAX, 1, buf, sizeof(buf), &p);
    CHECK_STR(buf, "\u2581 \u2588");
    /* a value of 0 is a value (the lowest bar), unlike unknown */
    tui_ring_push(&r, 0);
    tui_plot_render(&r, 2, 1, TUI_AGG_MAX, 0, buf, sizeof(buf), &p);
    CHECK_STR(buf, "#_");
    CHECK(p.lo == 0 && p.hi == 700);
    /* per_col 2: columns (147,NaN) and (700,0): max 147 | 700, min for clocks */
    tui_plot_render(&r, 2, 2, TUI_AGG_MAX, 0, buf, sizeof(buf), &p);
    CHECK_STR(buf, "_#");
    tui_plot_render(&r, 2, 2, TUI_AGG_MIN, 0, buf, sizeof(buf), &p);
    CHECK_STR(buf, "#_");
    CHECK(p.lo == 0 && p.hi == 147);
    /* a flat series (the rx7900xtx fixture's 68 W) draws the middle level */
    struct tui_ring f;
    tui_ring_init(&f, 3);
    for (int i = 0; i < 5; i++) /* wraps: the ring keeps the last 3 */
        tui_ring_push(&f, 68);
    CHECK(f.n == 3 && tui_ring_back(&f, 0) == 68 && isnan(tui_ring_back(&f, 3)));
    tui_plot_render(&f, 4, 1, TUI_AGG_MAX, 0, buf, sizeof(buf), &p);
    CHECK_STR(buf, " ---");
    CHECK(p.lo == 68 && p.hi == 68 && p.known == 3);
    /* a short buffer truncates, never overruns */
    char small[3];
    tui_plot_render(&f, 4, 1, TUI_AGG_MAX, 1, small, sizeof(small), &p);
    CHECK_STR(small, " "); /* the gap fits, the 3-byte block does not */
    tui_ring_release(&f);
    tui_ring_release(&r);
}

/* the failing checks keep their lines at the sizes people use: the
 * rx7900xtx desktop fixture has 8 checks that fail or warn of 26 */
static void test_bad_checks(void)
{
    struct tui_layout l;
    tui_layout_compute(24, 80, 1, 26, 8, 0, &l);
    CHECK(l.checks_visible >= 8);
    CHECK(l.gpu_mode == TUI_GPU_LINE); /* the panel gave way to them */
    tui_layout_compute(24, 80, 1, 26, 0, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL); /* with nothing failing, telemetry first */
    tui_layout_compute(10, 40, 8, 26, 3, 0, &l);
    CHECK(l.checks_visible >= 3 && l.ngpu_shown >= 1);
    tui_layout_compute(10, 40, 8, 26, 8, 0, &l);
    CHECK(l.checks_visible == 5 && l.ngpu_shown == 1); /* as many as fit */
    tui_layout_compute(40, 120, 1, 26, 8, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL && l.checks_visible >= 8);
    CHECK(l.plot_cols == 120 - 4 - TUI_PLOT_EXTRA);
    /* 8 panels of mi300x at 64x100: two columns, one plot width for all */
    tui_layout_compute(64, 100, 8, 26, 0, 0, &l);
    CHECK(l.gpu_mode == TUI_GPU_FULL && l.plot_cols == 50 - 4 - TUI_PLOT_EXTRA);
    tui_layout_compute(68, 100, 8, 26, 0, 1, &l);
    CHECK(l.plot_cols == 50 - 4 - TUI_PLOT_EXTRA); /* the workload box follows the panels */
    tui_layout_compute(24, 80, 8, 26, 0, 0, &l);
    CHECK(l.plot_cols == 0); /* one line per GPU: no plots */
    /* nbad beyond nchecks is clamped */
    tui_layout_compute(24, 80, 0, 2, 50, 0, &l);
    CHECK(l.checks_visible >= 2);
}

static void test_canvas(void)
{
    struct tui_canvas cv;
    tui_canvas_init(&cv, 3, 10);
    /* clipped to maxw and to the grid; outside rows write nothing */
    CHECK(tui_canvas_put(&cv, 0, 0, 4, TA_NORMAL, "abcdefgh") == 4);
    CHECK(tui_canvas_put(&cv, 1, 7, 100, TA_NORMAL, "xyzw") == 3);
    CHECK(tui_canvas_put(&cv, 3, 0, 10, TA_NORMAL, "no") == 0);
    CHECK(tui_canvas_put(&cv, -1, 0, 10, TA_NORMAL, "no") == 0);
    CHECK(tui_canvas_put(&cv, 0, 11, 10, TA_NORMAL, "no") == 0);
    /* an escape sequence from a hostile file is shown escaped, not obeyed
     * (str_sanitize: ESC is the four cells \x1b); a degree sign is one
     * column */
    CHECK(tui_canvas_put(&cv, 2, 0, 10, TA_FAIL,
                         "\033[2J9\xc2\xb0"
                         "C") == 10);
    CHECK_STR(cv.cell[20].u, "\\");
    CHECK_STR(cv.cell[21].u, "x");
    CHECK(cv.cell[20].attr == TA_FAIL);
    CHECK_STR(cv.cell[28].u, "\xc2\xb0");
    /* invalid UTF-8 is an escape per byte, clipped like any text */
    CHECK(tui_canvas_put(&cv, 0, 5, 5, TA_NORMAL, "\xff\xfe") == 5);
    CHECK_STR(cv.cell[5].u, "\\");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tui_canvas_print(&cv, f);
    fclose(f);
    CHECK_STR(text, "abcd \\xff\\\n       xyz\n\\x1b[2J9\xc2\xb0"
                    "C\n");
    /* C1 CSI and a bidi override never reach a cell raw */
    CHECK(tui_canvas_put(&cv, 1, 0, 10, TA_NORMAL, "\xc2\x9b\xe2\x80\xae") == 10);
    CHECK_STR(cv.cell[10].u, "\\");
    CHECK_STR(cv.cell[11].u, "u");
    free(text);
    /* a box smaller than 2x2 draws nothing; a title never leaves the box */
    struct tui_rect r = {0, 0, 3, 8};
    tui_canvas_release(&cv);
    tui_canvas_init(&cv, 3, 10);
    tui_canvas_box(&cv, &r, "a very long title", TA_TITLE);
    CHECK_STR(cv.cell[7].u, "+");
    CHECK_STR(cv.cell[8].u, " ");
    tui_canvas_release(&cv);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    test_sweep();
    test_tiny();
    test_many_gpus();
    test_wide();
    test_rows_needed();
    test_workload();
    test_workload_budget();
    test_plot();
    test_bad_checks();
    test_canvas();
    return test_report();
}
