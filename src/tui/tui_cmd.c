/* tui_cmd.c - `rocm-vla-doctor dashboard`: options, the --once frame and the
 * ncurses loop.
 *
 * Signal handlers only set flags (SIGINT/SIGTERM: quit, SIGWINCH: resize);
 * the loop notices them when getch() returns, rebuilds the windows from a
 * fresh layout on a resize (or KEY_RESIZE), and always leaves through
 * endwin(). They are installed before initscr() so that ncurses keeps its
 * own handlers out of the way. */
#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <time.h>
#include <unistd.h>

#include "../../probes/probe.h"
#include "../../probes/probe_python.h"
#include "../core/parse_options.h"
#include "../core/outfile.h"
#include "../core/json_out.h"
#include "../core/util.h"
#include "../core/version.h"
#include "tui_canvas.h"
#include "tui_draw.h"
#include "tui_layout.h"
#include "tui_model.h"
#include "tui_workload.h"

#define TUI_INTERVAL_MIN 100
#define TUI_INTERVAL_MAX 60000
#define TUI_WL_INTERVAL_MIN 1
#define TUI_WL_INTERVAL_MAX 3600
/* while a workload run is in flight the loop wakes this often to read it */
#define TUI_WL_POLL_MS 200
#define TUI_HISTORY_DEFAULT_S 120
#define TUI_HISTORY_MAX_S 3600
#define TUI_FRAMES_MAX 100000
/* samples kept per series, whatever --history and --interval ask */
#define TUI_HIST_CAP_MAX 36000
/* a terminal emulator can blank its screen after the repaint that follows
 * a resize (tmux does when the size shrinks): the whole frame is drawn
 * again this long after, even when nothing in it changed */
#define TUI_REPAINT_MS 300
/* the mouse wheel scrolls this many check lines */
#define TUI_WHEEL_LINES 3

struct tui_opts {
    int interval_ms;
    const char *sysroot, *checks;
    struct probe_opts probe; /* --requirements, --python, as for check */
    int once;
    int rows, cols;               /* --size for --once; 0 = automatic */
    const char *workload, *dtype; /* --workload PRESET, --dtype */
    int workload_s;               /* --workload-interval */
    const char *record;           /* --record FILE */
    int frames;                   /* --frames N (headless), 0 = --once's one */
    int history_s;                /* --history S: seconds the plots span */
    int utf8;                     /* the locale's codeset is UTF-8 */
};

static volatile sig_atomic_t quit_flag, resize_flag;

static void on_quit(int sig)
{
    (void)sig;
    quit_flag = 1;
}

static void on_winch(int sig)
{
    (void)sig;
    resize_flag = 1;
}

static int parse_size(const char *s, int *rows, int *cols)
{
    char tail;
    if (sscanf(s, "%dx%d%c", rows, cols, &tail) != 2 || *rows < 1 || *cols < 1 || *rows > 10000 ||
        *cols > 10000)
        return -1;
    return 0;
}

static int opt_size(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    struct tui_opts *o = base;
    if (parse_size(v, &o->rows, &o->cols))
        return error("--size must be ROWSxCOLS (e.g. 40x120), not '%s'", v);
    return 0;
}

static const struct optspec dashboard_opts[] = {
    OPT_INT(struct tui_opts, interval_ms, "interval", TUI_INTERVAL_MIN, TUI_INTERVAL_MAX,
            "milliseconds", "MS", "the refresh interval (default 1000)"),
    OPT_SYSROOT(struct tui_opts, sysroot),
    OPT_CHECKS(struct tui_opts, checks),
    OPT_REQUIREMENTS(struct tui_opts, probe.requirements),
    OPT_PYTHON(struct tui_opts, probe.python),
    OPT_FLAG(struct tui_opts, once, "once", 0, "draw one frame to stdout and exit"),
    OPT_CALLBACK("size", 0, OPTA_REQUIRED, opt_size, OPTC_ANY, "ROWSxCOLS",
                 "the frame's size for --once and --frames"),
    OPT_STRING(struct tui_opts, workload, "workload", 0, OPTC_PRESET, "PRESET",
               "run the VLA pass every few seconds and plot its latency"),
    OPT_DTYPE(struct tui_opts, dtype),
    OPT_INT(struct tui_opts, workload_s, "workload-interval", TUI_WL_INTERVAL_MIN,
            TUI_WL_INTERVAL_MAX, "seconds", "S", "the time between workload passes"),
    OPT_OUT(struct tui_opts, record, "record", 0, "FILE", "record the telemetry as JSON lines"),
    OPT_INT(struct tui_opts, frames, "frames", 1, TUI_FRAMES_MAX, NULL, "N",
            "draw N frames headless, one per interval"),
    OPT_INT(struct tui_opts, history_s, "history", 1, TUI_HISTORY_MAX_S, "seconds", "S",
            "the seconds the plots span"),
    OPT_HELP_VERSION_END,
};

static void more_help(FILE *out)
{
    fputs("keys: ? h F1 help, q quit, r re-run the checks, p the process table,\n"
          "      Up/Down select a check, Enter its summary and fix (Esc back),\n"
          "      Left/Right/Tab/0-9 the GPU whose plots show under the GPU lines,\n"
          "      PgUp/PgDn/Home/End and the mouse wheel scroll the checklist\n",
          out);
}

const struct cmd_spec dashboard_spec = {
    "dashboard",    "dashboard", NULL, "GPU telemetry, plots and the checklist in the terminal.",
    dashboard_opts, more_help};

/* 0 to go on, 1 after --help or --version, -1 after a usage error */
static int parse_opts(int argc, char **argv, struct tui_opts *o)
{
    int first = parse_options(argc, argv, &dashboard_spec, o);
    if (first <= 0)
        return first == PARSE_DONE ? 1 : -1;
    if (first < argc)
        return error("dashboard takes no arguments, not '%s'", argv[first]);
    if (o->workload && !*o->workload)
        return error("--workload needs a preset name or a .yaml file");
    if (o->record && !*o->record)
        return error("--record needs a file name");
    if (o->frames && o->once)
        return error("--once is --frames 1; give one of them");
    /* one frame sleeps no interval and plots one sample */
    if (o->once && (o->interval_ms || o->history_s || o->workload_s))
        return error("%s: --once draws one frame; give --frames N (or the live dashboard)",
                     o->interval_ms ? "--interval"
                     : o->history_s ? "--history"
                                    : "--workload-interval");
    if (o->probe.python && o->sysroot)
        return error("--python runs an interpreter on this host; --sysroot reads the recorded "
                     "machine's answer");
    if (o->frames)
        o->once = 1; /* headless: frames without a terminal */
    if (!o->interval_ms)
        o->interval_ms = 1000; /* after the check above: 0 is "not given" */
    if (o->rows && !o->once)
        return error("--size applies to --once and --frames only");
    if ((o->dtype || o->workload_s) && !o->workload)
        return error("--dtype and --workload-interval apply to --workload only");
    /* the pass runs on this host: next to another machine's replayed files
     * its latency would be a lie */
    if (o->workload && o->sysroot)
        return error("--workload runs the pass on this host; --sysroot does not apply");
    return 0;
}

/* ---- --record: asciicast v2 -------------------------------------------- */

/* Each frame that differs from the last one becomes one event: the time
 * since the start and the whole screen as plain text after "clear screen,
 * cursor home", so `asciinema play FILE` shows it and `grep` finds values.
 * The file is a stream (outfile_open_stream), flushed per frame. */
struct recorder {
    struct outfile of;
    int open;
    double t0;
    struct tui_canvas last;
};

static int rec_open(struct recorder *r, const char *path, int rows, int cols)
{
    memset(r, 0, sizeof(*r));
    if (!path)
        return 0;
    if (outfile_open_stream(&r->of, path, 0))
        return -1;
    r->open = 1;
    r->t0 = util_mono_s();
    fprintf(r->of.f,
            "{\"version\": 2, \"width\": %d, \"height\": %d, \"timestamp\": %lld, "
            "\"title\": \"rocm-vla-doctor dashboard\"}\n",
            cols, rows, (long long)time(NULL));
    fflush(r->of.f);
    return 0;
}

static void rec_frame(struct recorder *r, const struct tui_canvas *cv)
{
    if (!r->open || tui_canvas_same(&r->last, cv))
        return;
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "\033[H\033[2J");
    tui_canvas_text(cv, &sb);
    fprintf(r->of.f, "[%.3f, \"o\", ", util_mono_s() - r->t0);
    json_write_string(r->of.f, sb.buf ? sb.buf : "");
    fputs("]\n", r->of.f);
    fflush(r->of.f);
    strbuf_release(&sb);
    tui_canvas_release(&r->last);
    tui_canvas_init(&r->last, cv->rows, cv->cols);
    memcpy(r->last.cell, cv->cell, (size_t)cv->rows * (size_t)cv->cols * sizeof(*cv->cell));
}

/* 0, or -1 when the file could not be written */
static int rec_close(struct recorder *r)
{
    tui_canvas_release(&r->last);
    if (!r->open)
        return 0;
    r->open = 0;
    return outfile_close(&r->of, 0);
}

/* samples per plot column: the --history window over the plot's width */
static int per_col(const struct tui_opts *o, int plot_cols)
{
    double samples = (double)o->history_s * 1000.0 / o->interval_ms;
    int k = plot_cols > 0 ? (int)ceil(samples / plot_cols) : 1;
    return k < 1 ? 1 : k;
}

static void sample_all(struct tui_model *m, struct tui_workload *wl)
{
    tui_model_refresh_telemetry(m);
    if (wl)
        tui_workload_sample(wl);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR && !quit_flag)
        ;
}

/* ---- --once / --frames: headless frames --------------------------------- */

static void install_handlers(void);

static int run_once(const struct tui_opts *o, struct tui_model *m, struct tui_workload *wl)
{
    tui_model_run_checks(m);
    if (wl)
        tui_workload_run_blocking(wl);
    sample_all(m, wl);
    int ngpu = tui_model_gpu_count(m);
    int nchecks = m->have_res ? (int)m->res.n : 0;
    int cols = o->cols, rows = o->rows;
    if (!cols) {
        const char *e = getenv("COLUMNS");
        int64_t v;
        cols = e && str_parse_i64(e, &v) == 0 && v > 0 && v < 10000 ? (int)v : 100;
    }
    if (!rows)
        rows = tui_layout_rows_needed(cols, ngpu, nchecks, wl != NULL);
    struct tui_layout l;
    struct tui_canvas cv;
    tui_layout_compute(rows, cols, ngpu, nchecks, tui_model_bad_checks(m), wl != NULL, &l);
    /* no selected check (csel -1): there are no keys to move it */
    struct tui_view v = {.interval_ms = o->interval_ms,
                         .wl = wl,
                         .plot_cols = l.plot_cols,
                         .per_col = per_col(o, l.plot_cols),
                         .csel = -1};
    struct recorder rec;
    if (rec_open(&rec, o->record, rows, cols))
        return 2;
    int frames = o->frames ? o->frames : 1;
    if (frames > 1)
        install_handlers(); /* Ctrl-C ends the run with the frames so far */
    tui_canvas_init(&cv, rows, cols);
    for (int f = 0; f < frames && !quit_flag; f++) {
        if (f) {
            sleep_ms(o->interval_ms);
            /* the workload keeps running between frames, as in the live
             * view, so its load and latency show in the plots */
            if (wl) {
                tui_workload_poll(wl, util_mono_s());
                tui_workload_tick(wl, util_mono_s());
            }
            sample_all(m, wl);
        }
        tui_canvas_release(&cv);
        tui_canvas_init(&cv, rows, cols);
        cv.utf8 = o->utf8;
        tui_draw_frame(&cv, &l, m, &v);
        rec_frame(&rec, &cv);
    }
    tui_canvas_print(&cv, stdout);
    tui_canvas_release(&cv);
    return rec_close(&rec) ? 2 : 0;
}

/* ---- ncurses ---------------------------------------------------------- */

struct screen {
    struct tui_layout l;
    WINDOW *win[TUI_MAX_GPUS + 5];
    struct tui_rect rect[TUI_MAX_GPUS + 5];
    int nwin;
    int nchecks;  /* the layout's */
    int workload; /* the panel is shown */
    attr_t attr[TA__COUNT];
    struct tui_canvas last; /* the frame on the terminal now */
    int utf8;
};

static void screen_free_windows(struct screen *s)
{
    for (int i = 0; i < s->nwin; i++)
        if (s->win[i])
            delwin(s->win[i]);
    s->nwin = 0;
}

static void screen_add(struct screen *s, const struct tui_rect *r)
{
    if (r->h <= 0 || r->w <= 0)
        return;
    WINDOW *w = newwin(r->h, r->w, r->y, r->x);
    if (!w)
        return;
    s->win[s->nwin] = w;
    s->rect[s->nwin++] = *r;
}

/* a new layout for the terminal's current size, and windows to match */
static void screen_rebuild(struct screen *s, const struct tui_model *m)
{
    screen_free_windows(s);
    int nchecks = m->have_res ? (int)m->res.n : 0;
    tui_layout_compute(LINES, COLS, tui_model_gpu_count(m), nchecks, tui_model_bad_checks(m),
                       s->workload, &s->l);
    s->nchecks = nchecks;
    screen_add(s, &s->l.header);
    screen_add(s, &s->l.gpu_area);
    screen_add(s, &s->l.workload);
    screen_add(s, &s->l.checks);
    screen_add(s, &s->l.status);
    tui_canvas_release(&s->last); /* the next frame is drawn in full */
    clearok(curscr, TRUE);
}

/* draws the frame when it differs from the one on the terminal (the cost
 * of a 100 ms refresh is mostly here otherwise); records it */
static void screen_draw(struct screen *s, const struct tui_model *m, struct tui_view *v,
                        struct recorder *rec)
{
    /* the layout depends on the GPU and check counts, which a refresh can
     * change (a GPU falling off the bus) */
    int nchecks = m->have_res ? (int)m->res.n : 0;
    if (s->l.ngpu != tui_model_gpu_count(m) || s->l.rows != LINES || s->l.cols != COLS ||
        s->nchecks != nchecks)
        screen_rebuild(s, m);
    struct tui_canvas cv;
    tui_canvas_init(&cv, LINES, COLS);
    cv.utf8 = s->utf8;
    v->plot_cols = s->l.plot_cols;
    tui_draw_frame(&cv, &s->l, m, v);
    rec_frame(rec, &cv);
    if (tui_canvas_same(&cv, &s->last)) {
        tui_canvas_release(&cv);
        return;
    }
    /* only the rows that changed since the frame on the terminal: a plot
     * that moves one column need not rewrite the checklist */
    int whole = s->last.rows != cv.rows || s->last.cols != cv.cols || !s->last.cell;
    for (int i = 0; i < s->nwin; i++) {
        const struct tui_rect *r = &s->rect[i];
        int changed = 0;
        for (int y = 0; y < r->h; y++) {
            size_t at = (size_t)(r->y + y) * (size_t)cv.cols + (size_t)r->x;
            if (!whole &&
                memcmp(&cv.cell[at], &s->last.cell[at], (size_t)r->w * sizeof(*cv.cell)) == 0)
                continue;
            changed = 1;
            wmove(s->win[i], y, 0);
            for (int x = 0; x < r->w; x++) {
                const struct tui_cell *c =
                    &cv.cell[(size_t)(r->y + y) * (size_t)cv.cols + (size_t)(r->x + x)];
                wattrset(s->win[i], s->attr[c->attr]);
                /* the last cell of a window returns ERR (no room to move the
                 * cursor on); the character is written all the same */
                waddstr(s->win[i], c->u);
            }
        }
        if (changed)
            wnoutrefresh(s->win[i]);
    }
    doupdate();
    tui_canvas_release(&s->last);
    s->last = cv;
}

static void screen_colors(struct screen *s)
{
    for (int i = 0; i < TA__COUNT; i++)
        s->attr[i] = A_NORMAL;
    s->attr[TA_TITLE] = A_BOLD;
    s->attr[TA_DIM] = A_DIM;
    s->attr[TA_SKIP] = A_DIM;
    s->attr[TA_FAIL] = A_BOLD;
    s->attr[TA_WARN] = A_BOLD;
    s->attr[TA_SELECT] = A_REVERSE;
    if (!has_colors() || getenv("NO_COLOR") || start_color() == ERR)
        return;
    use_default_colors();
    const short fg[TA__COUNT] = {[TA_PASS] = COLOR_GREEN,
                                 [TA_WARN] = COLOR_YELLOW,
                                 [TA_FAIL] = COLOR_RED,
                                 [TA_ERROR] = COLOR_MAGENTA,
                                 [TA_TITLE] = COLOR_CYAN};
    for (short i = 1; i < TA__COUNT; i++) {
        if (!fg[i] || init_pair(i, fg[i], -1) == ERR)
            continue;
        s->attr[i] |= COLOR_PAIR(i);
    }
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_quit; /* no SA_RESTART: getch() returns to the loop */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
}

/* the terminal's size after a SIGWINCH, told to ncurses */
static void follow_resize(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resize_term(ws.ws_row, ws.ws_col);
}

/* the terminal can draw a full screen: TERM names a terminfo entry with
 * cursor addressing. Checked before newterm(): initscr() exits the process
 * on an unknown TERM, and a "dumb" one would garble the screen. */
static int term_usable(void)
{
    const char *term = getenv("TERM");
    if (!term || !*term)
        return error("TERM is not set: the dashboard needs a terminal type; use --once (a text "
                     "frame) or monitor (telemetry lines)"),
               0;
    int err = 0;
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
        error("TERM=%s is %s: the dashboard cannot draw on it; use --once (a text frame) or "
              "monitor (telemetry lines)",
              term, err == 0 ? "not in the terminfo database" : "unusable (no terminfo database)");
        return 0;
    }
    char cup[] = "cup";
    const char *cap = tigetstr(cup);
    int ok = cap && cap != (char *)-1;
    del_curterm(cur_term);
    if (!ok)
        error("TERM=%s cannot move the cursor (a dumb terminal): the dashboard cannot draw on "
              "it; use --once (a text frame) or monitor (telemetry lines)",
              term);
    return ok;
}

/* scroll so End stays at the end after a resize, and always in range */
static void clamp_scroll(struct tui_view *v, const struct screen *s, const struct tui_model *m)
{
    int max = tui_draw_max_scroll(&s->l, m);
    if (v->at_end || v->scroll > max)
        v->scroll = max;
    if (v->scroll < 0)
        v->scroll = 0;
}

static int run_live(const struct tui_opts *o, struct tui_model *m, struct tui_workload *wl)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return error("dashboard needs a terminal; use --once for a text frame, or monitor for "
                     "telemetry lines"),
               2;
    if (!term_usable())
        return 2;
    struct recorder rec;
    if (rec_open(&rec, o->record, 0, 0))
        return 2;
    install_handlers();
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        rec_close(&rec);
        return error("cannot initialise the terminal (TERM=%s)", getenv("TERM")), 2;
    }
    set_term(scr);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25); /* Esc leaves the fix view at once, not after a second */
    mousemask(BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    struct screen s;
    memset(&s, 0, sizeof(s));
    s.workload = wl != NULL;
    s.utf8 = o->utf8;
    screen_colors(&s);
    refresh();

    /* the first workload run goes while the checks run */
    if (wl)
        tui_workload_tick(wl, util_mono_s());
    struct tui_view v = {
        .interval_ms = o->interval_ms, .note = "running checks ...", .wl = wl, .per_col = 1};
    sample_all(m, wl);
    screen_rebuild(&s, m);
    v.per_col = per_col(o, s.l.plot_cols);
    screen_draw(&s, m, &v, &rec);
    tui_model_run_checks(m);
    v.note = NULL;
    screen_rebuild(&s, m);
    double next = (util_mono_s() * 1e3) + o->interval_ms;
    int dirty = 1;
    double repaint_at = 0; /* a whole repaint due after a resize, or 0 */
    while (!quit_flag) {
        if (resize_flag) {
            resize_flag = 0;
            follow_resize();
            screen_rebuild(&s, m);
            dirty = 1;
            repaint_at = util_mono_s() * 1e3 + TUI_REPAINT_MS;
        }
        double now = (util_mono_s() * 1e3);
        if (repaint_at > 0 && now >= repaint_at) {
            screen_rebuild(&s, m);
            repaint_at = 0;
            dirty = 1;
        }
        if (now >= next) {
            sample_all(m, wl);
            next = now + o->interval_ms;
            dirty = 1;
        }
        if (wl) {
            /* never blocks: a run in flight is only read when it is done */
            int started = tui_workload_tick(wl, now / 1e3);
            if (tui_workload_poll(wl, util_mono_s()) || started)
                dirty = 1;
        }
        if (dirty) {
            clamp_scroll(&v, &s, m);
            v.per_col = per_col(o, s.l.plot_cols);
            screen_draw(&s, m, &v, &rec);
            dirty = 0;
        }
        double wait = next - (util_mono_s() * 1e3);
        if (wl) {
            double wl_wait =
                tui_workload_running(wl) ? TUI_WL_POLL_MS : wl->next_at * 1e3 - util_mono_s() * 1e3;
            wait = wl_wait < wait ? wl_wait : wait;
        }
        if (repaint_at > 0 && repaint_at - util_mono_s() * 1e3 < wait)
            wait = repaint_at - util_mono_s() * 1e3;
        timeout(wait < 0 ? 0 : (int)wait + 1);
        int ch = getch();
        if (ch == ERR)
            continue; /* the interval passed, or a signal */
        int page = s.l.checks_visible > 1 ? s.l.checks_visible - 1 : 1;
        dirty = 1;
        if (v.help && ch != KEY_RESIZE && ch != KEY_MOUSE) {
            v.help = 0; /* any key closes the help */
            continue;
        }
        switch (ch) {
        case 'q':
        case 'Q':
            quit_flag = 1;
            break;
        case '?':
        case 'h':
        case 'H':
        case KEY_F(1):
            v.help = 1;
            break;
        case 'r':
        case 'R':
            v.note = "running checks ...";
            screen_draw(&s, m, &v, &rec);
            tui_model_run_checks(m);
            v.note = NULL;
            screen_rebuild(&s, m);
            break;
        case 'p':
        case 'P':
            v.procs = !v.procs, v.fix = 0;
            break;
        case '\n':
        case '\r':
        case KEY_ENTER:
            v.fix = !v.fix, v.procs = 0;
            break;
        case 27: /* Esc */
        case KEY_BACKSPACE:
            v.fix = 0, v.procs = 0;
            break;
        /* kept in range here too: the fix view moves it without the
         * checklist drawn */
        case KEY_UP:
            v.csel = v.csel > 0 ? v.csel - 1 : 0, v.csel_moved = 1, v.at_end = 0;
            break;
        case KEY_DOWN:
            v.csel = v.csel + 1 < (int)(m->have_res ? m->res.n : 0) ? v.csel + 1 : v.csel;
            v.csel_moved = 1;
            break;
        case KEY_PPAGE:
            v.scroll -= page, v.csel_moved = 0, v.at_end = 0;
            break;
        case KEY_NPAGE:
            v.scroll += page, v.csel_moved = 0;
            break;
        case KEY_HOME:
            v.scroll = 0, v.csel = 0, v.csel_moved = 0, v.at_end = 0;
            break;
        case KEY_END:
            v.at_end = 1, v.csel_moved = 0;
            break;
        /* the GPU whose panel shows under the GPU lines (drawing clamps it) */
        case KEY_RIGHT:
        case '\t':
            v.sel = v.sel + 1 < tui_model_gpu_count(m) ? v.sel + 1 : 0;
            break;
        case KEY_LEFT:
        case KEY_BTAB:
            v.sel = v.sel > 0 ? v.sel - 1 : tui_model_gpu_count(m) - 1;
            break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
            v.sel = ch - '0' < tui_model_gpu_count(m) ? ch - '0' : v.sel;
            break;
        case KEY_MOUSE: {
            MEVENT ev;
            if (getmouse(&ev) != OK)
                break;
            if (ev.bstate & BUTTON4_PRESSED)
                v.scroll -= TUI_WHEEL_LINES, v.csel_moved = 0, v.at_end = 0;
            else if (ev.bstate & BUTTON5_PRESSED)
                v.scroll += TUI_WHEEL_LINES, v.csel_moved = 0;
            break;
        }
        case KEY_RESIZE:
            screen_rebuild(&s, m);
            repaint_at = util_mono_s() * 1e3 + TUI_REPAINT_MS;
            break;
        default:
            dirty = 0;
            break;
        }
        clamp_scroll(&v, &s, m);
    }
    screen_free_windows(&s);
    tui_canvas_release(&s.last);
    endwin();
    delscreen(scr);
    return rec_close(&rec) ? 2 : 0;
}

int tui_cmd_dashboard(int argc, char **argv)
{
    struct tui_opts o = {0, NULL, NULL, {0}, 0, 0, 0, NULL, NULL, 0, NULL, 0, 0, 0};
    int rc = parse_opts(argc, argv, &o);
    if (rc > 0)
        return 0;
    if (rc < 0)
        return 2;
    /* LC_CTYPE only: ncursesw needs it for UTF-8; LC_NUMERIC must stay "C"
     * for the sysfs parsers ("16.0 GT/s") */
    setlocale(LC_CTYPE, "");
    o.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    if (!o.history_s)
        o.history_s = TUI_HISTORY_DEFAULT_S;
    /* a sample per interval for the whole window, bounded */
    int64_t cap = (int64_t)o.history_s * 1000 / o.interval_ms + 1;
    int hist_cap = cap > TUI_HIST_CAP_MAX ? TUI_HIST_CAP_MAX : (int)cap;
    if (o.probe.requirements && requirements_check_file(o.probe.requirements))
        return 2;
    /* the live view quits on SIGINT/SIGTERM with the terminal restored and
     * exit 0: from here, not only once the screen is up, or a signal while
     * the sysroot opens takes the process-wide handler's exit 143 */
    if (!o.once)
        install_handlers();
    struct tui_model m;
    if (tui_model_open(&m, o.sysroot, o.checks, &o.probe, hist_cap))
        return 2;
    struct tui_workload wl;
    if (o.workload)
        tui_workload_init(&wl, o.workload, o.dtype, o.workload_s ? o.workload_s : 5, &m.cs,
                          hist_cap);
    rc = o.once ? run_once(&o, &m, o.workload ? &wl : NULL)
                : run_live(&o, &m, o.workload ? &wl : NULL);
    if (o.workload)
        tui_workload_release(&wl);
    tui_model_close(&m);
    fflush(stdout);
    return ferror(stdout) ? 3 : rc;
}
