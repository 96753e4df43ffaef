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
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../probes/probe.h"
#include "../../probes/probe_python.h"
#include "../core/opts.h"
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

struct tui_opts {
    int interval_ms;
    const char *sysroot, *checks;
    struct probe_opts probe; /* --requirements, --python, as for check */
    int once;
    int rows, cols;               /* --size for --once; 0 = automatic */
    const char *workload, *dtype; /* --workload PRESET, --dtype */
    int workload_s;               /* --workload-interval */
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

static void usage(FILE *out)
{
    fputs("usage: rocm-vla-doctor dashboard [--interval MS] [--sysroot DIR|TARBALL] "
          "[--checks FILE]\n"
          "                                 [--requirements FILE] [--python PATH]\n"
          "                                 [--workload PRESET [--dtype bf16|fp16|fp32]\n"
          "                                  [--workload-interval S]]\n"
          "                                 [--once [--size ROWSxCOLS]]\n"
          "keys: q quit, r re-run the checks, arrows/PgUp/PgDn/Home/End scroll the checklist\n",
          out);
}

static int parse_size(const char *s, int *rows, int *cols)
{
    char tail;
    if (sscanf(s, "%dx%d%c", rows, cols, &tail) != 2 || *rows < 1 || *cols < 1 || *rows > 10000 ||
        *cols > 10000)
        return -1;
    return 0;
}

/* 0 to go on, 1 after --help or --version, -1 after a usage error */
static int parse_opts(int argc, char **argv, struct tui_opts *o)
{
    enum {
        O_INTERVAL = 256,
        O_SYSROOT,
        O_CHECKS,
        O_REQ,
        O_PYTHON,
        O_ONCE,
        O_SIZE,
        O_WORKLOAD,
        O_DTYPE,
        O_WL_INTERVAL,
        O_HELP,
        O_VERSION
    };
    static const struct option longopts[] = {
        {"interval", required_argument, NULL, O_INTERVAL},
        {"sysroot", required_argument, NULL, O_SYSROOT},
        {"checks", required_argument, NULL, O_CHECKS},
        {"requirements", required_argument, NULL, O_REQ},
        {"python", required_argument, NULL, O_PYTHON},
        {"once", no_argument, NULL, O_ONCE},
        {"size", required_argument, NULL, O_SIZE},
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"dtype", required_argument, NULL, O_DTYPE},
        {"workload-interval", required_argument, NULL, O_WL_INTERVAL},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = opt_next(argc, argv, "h", longopts, "dashboard")) != -1) {
        switch (c) {
        case OPT_ERROR:
            return -1;
        case O_INTERVAL: {
            int64_t v;
            if (str_parse_i64(optarg, &v) || v < TUI_INTERVAL_MIN || v > TUI_INTERVAL_MAX)
                return error("--interval must be %d to %d milliseconds, not '%s'", TUI_INTERVAL_MIN,
                             TUI_INTERVAL_MAX, optarg);
            o->interval_ms = (int)v;
            break;
        }
        case O_SYSROOT:
            o->sysroot = optarg;
            break;
        case O_CHECKS:
            o->checks = optarg;
            break;
        case O_REQ:
            o->probe.requirements = optarg;
            break;
        case O_PYTHON:
            o->probe.python = optarg;
            break;
        case O_ONCE:
            o->once = 1;
            break;
        case O_SIZE:
            if (parse_size(optarg, &o->rows, &o->cols))
                return error("--size must be ROWSxCOLS (e.g. 40x120), not '%s'", optarg);
            break;
        case O_WORKLOAD:
            if (!*optarg)
                return error("--workload needs a preset name or a .yaml file");
            o->workload = optarg;
            break;
        case O_DTYPE:
            if (strcmp(optarg, "bf16") && strcmp(optarg, "fp16") && strcmp(optarg, "fp32"))
                return error("--dtype must be bf16, fp16 or fp32, not '%s'", optarg);
            o->dtype = optarg;
            break;
        case O_WL_INTERVAL: {
            int64_t v;
            if (str_parse_i64(optarg, &v) || v < TUI_WL_INTERVAL_MIN || v > TUI_WL_INTERVAL_MAX)
                return error("--workload-interval must be %d to %d seconds, not '%s'",
                             TUI_WL_INTERVAL_MIN, TUI_WL_INTERVAL_MAX, optarg);
            o->workload_s = (int)v;
            break;
        }
        case 'h':
        case O_HELP:
            usage(stdout);
            return 1;
        case O_VERSION:
            version_print(stdout);
            return 1;
        default:
            return error("unhandled option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return error("dashboard takes no arguments, not '%s'", argv[optind]);
    if (o->rows && !o->once)
        return error("--size applies to --once only");
    if ((o->dtype || o->workload_s) && !o->workload)
        return error("--dtype and --workload-interval apply to --workload only");
    /* the pass runs on this host: next to another machine's replayed files
     * its latency would be a lie */
    if (o->workload && o->sysroot)
        return error("--workload runs the pass on this host; --sysroot does not apply");
    return 0;
}

/* ---- --once ----------------------------------------------------------- */

static int run_once(const struct tui_opts *o, struct tui_model *m, struct tui_workload *wl)
{
    tui_model_run_checks(m);
    tui_model_refresh_telemetry(m);
    if (wl)
        tui_workload_run_blocking(wl);
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
    struct tui_view v = {0, o->interval_ms, NULL, wl};
    tui_layout_compute(rows, cols, ngpu, nchecks, wl != NULL, &l);
    tui_canvas_init(&cv, rows, cols);
    tui_draw_frame(&cv, &l, m, &v);
    tui_canvas_print(&cv, stdout);
    tui_canvas_release(&cv);
    return 0;
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
    tui_layout_compute(LINES, COLS, tui_model_gpu_count(m), nchecks, s->workload, &s->l);
    s->nchecks = nchecks;
    screen_add(s, &s->l.header);
    screen_add(s, &s->l.gpu_area);
    screen_add(s, &s->l.workload);
    screen_add(s, &s->l.checks);
    screen_add(s, &s->l.status);
    clearok(curscr, TRUE);
}

static void screen_draw(struct screen *s, const struct tui_model *m, struct tui_view *v)
{
    /* the layout depends on the GPU and check counts, which a refresh can
     * change (a GPU falling off the bus) */
    int nchecks = m->have_res ? (int)m->res.n : 0;
    if (s->l.ngpu != tui_model_gpu_count(m) || s->l.rows != LINES || s->l.cols != COLS ||
        s->nchecks != nchecks)
        screen_rebuild(s, m);
    struct tui_canvas cv;
    tui_canvas_init(&cv, LINES, COLS);
    tui_draw_frame(&cv, &s->l, m, v);
    for (int i = 0; i < s->nwin; i++) {
        const struct tui_rect *r = &s->rect[i];
        werase(s->win[i]);
        for (int y = 0; y < r->h; y++) {
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
        wnoutrefresh(s->win[i]);
    }
    doupdate();
    tui_canvas_release(&cv);
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

static int run_live(const struct tui_opts *o, struct tui_model *m, struct tui_workload *wl)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return error("dashboard needs a terminal; use --once for a text frame"), 2;
    install_handlers();
    if (!initscr())
        return error("cannot initialise the terminal (TERM=%s)", getenv("TERM")), 3;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    struct screen s;
    memset(&s, 0, sizeof(s));
    s.workload = wl != NULL;
    screen_colors(&s);
    refresh();

    /* the first workload run goes while the checks run */
    if (wl)
        tui_workload_tick(wl, util_mono_s());
    struct tui_view v = {0, o->interval_ms, "running checks ...", wl};
    tui_model_refresh_telemetry(m);
    screen_draw(&s, m, &v);
    tui_model_run_checks(m);
    v.note = NULL;
    screen_rebuild(&s, m);
    double next = (util_mono_s() * 1e3) + o->interval_ms;
    int dirty = 1;
    while (!quit_flag) {
        if (resize_flag) {
            resize_flag = 0;
            follow_resize();
            screen_rebuild(&s, m);
            dirty = 1;
        }
        double now = (util_mono_s() * 1e3);
        if (now >= next) {
            tui_model_refresh_telemetry(m);
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
            screen_draw(&s, m, &v);
            dirty = 0;
        }
        double wait = next - (util_mono_s() * 1e3);
        if (wl) {
            double wl_wait =
                tui_workload_running(wl) ? TUI_WL_POLL_MS : wl->next_at * 1e3 - util_mono_s() * 1e3;
            wait = wl_wait < wait ? wl_wait : wait;
        }
        timeout(wait < 0 ? 0 : (int)wait + 1);
        int ch = getch();
        int page = s.l.checks_visible > 1 ? s.l.checks_visible - 1 : 1;
        switch (ch) {
        case ERR:
            break; /* the interval passed, or a signal */
        case 'q':
        case 'Q':
            quit_flag = 1;
            break;
        case 'r':
        case 'R':
            v.note = "running checks ...";
            screen_draw(&s, m, &v);
            tui_model_run_checks(m);
            v.note = NULL;
            screen_rebuild(&s, m);
            dirty = 1;
            break;
        case KEY_UP:
            v.scroll--;
            dirty = 1;
            break;
        case KEY_DOWN:
            v.scroll++;
            dirty = 1;
            break;
        case KEY_PPAGE:
            v.scroll -= page;
            dirty = 1;
            break;
        case KEY_NPAGE:
            v.scroll += page;
            dirty = 1;
            break;
        case KEY_HOME:
            v.scroll = 0;
            dirty = 1;
            break;
        case KEY_END:
            v.scroll = tui_draw_max_scroll(&s.l, m);
            dirty = 1;
            break;
        case KEY_RESIZE:
            screen_rebuild(&s, m);
            dirty = 1;
            break;
        default:
            break;
        }
        /* clamp here too: the draw clamps only what it shows */
        if (v.scroll < 0)
            v.scroll = 0;
        if (v.scroll > tui_draw_max_scroll(&s.l, m))
            v.scroll = tui_draw_max_scroll(&s.l, m);
    }
    screen_free_windows(&s);
    endwin();
    return 0;
}

int tui_cmd_dashboard(int argc, char **argv)
{
    struct tui_opts o = {1000, NULL, NULL, {0}, 0, 0, 0, NULL, NULL, 0};
    int rc = parse_opts(argc, argv, &o);
    if (rc > 0)
        return 0;
    if (rc < 0) {
        usage(stderr);
        return 2;
    }
    /* LC_CTYPE only: ncursesw needs it for UTF-8; LC_NUMERIC must stay "C"
     * for the sysfs parsers ("16.0 GT/s") */
    setlocale(LC_CTYPE, "");
    if (o.probe.requirements && requirements_check_file(o.probe.requirements))
        return 2;
    struct tui_model m;
    if (tui_model_open(&m, o.sysroot, o.checks, &o.probe))
        return 2;
    struct tui_workload wl;
    if (o.workload)
        tui_workload_init(&wl, o.workload, o.dtype, o.workload_s ? o.workload_s : 5, &m.cs);
    rc = o.once ? run_once(&o, &m, o.workload ? &wl : NULL)
                : run_live(&o, &m, o.workload ? &wl : NULL);
    if (o.workload)
        tui_workload_release(&wl);
    tui_model_close(&m);
    fflush(stdout);
    return ferror(stdout) ? 3 : rc;
}
