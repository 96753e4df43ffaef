/* tui_draw.c - the dashboard's panels: a header, one panel (or one line) per
 * GPU, the checklist, a status line. Every value comes from a fact; a fact
 * that is unknown or absent is drawn as "?", never as 0. */
#include "tui_draw.h"

#include "tui_status.h"
#include "tui_views.h"

#include "../telemetry/gpu_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mark {
    const char *text;
    enum tui_attr attr;
};

/* the key hints of the status line (what tests and the man page name) */
static const char tui_draw_hints[] = "q quit ? help p procs Enter fix";

static const struct mark marks[ST__COUNT] = {
    [ST_PASS] = {"[ok]", TA_PASS},   [ST_WARN] = {"[!!]", TA_WARN},
    [ST_FAIL] = {"[XX]", TA_FAIL},   [ST_SKIP] = {"[--]", TA_SKIP},
    [ST_ERROR] = {"[ER]", TA_ERROR}, [ST_TIMEOUT] = {"[TO]", TA_ERROR},
};

enum tui_attr tui_draw_status_attr(enum status st)
{
    return st < ST__COUNT ? marks[st].attr : TA_NORMAL;
}

/* ---- telemetry values as text ------------------------------------------ */

#define GIB (1024.0 * 1024.0 * 1024.0)

/* the value divided by scale with `decimals` digits, or "?" when the
 * sampler could not read it */
static const char *tv(char *buf, size_t n, const struct tel_gpu *g, enum tel_key k, int decimals,
                      double scale)
{
    if (!g || !g->src[k])
        return "?";
    snprintf(buf, n, "%.*f", decimals, g->v[k] / scale);
    return buf;
}

static const struct tel_gpu *tgpu(const struct tui_model *m, int g)
{
    return m->have_sample && (size_t)g < m->cur.ngpu ? &m->cur.gpus[g] : NULL;
}

/* a hop on the PCIe path runs below what the GPU's own link can do */
static int path_limited(const struct tel_gpu *t)
{
    return t && t->src[TEL_PCIE_PATH_LIMITED] && t->v[TEL_PCIE_PATH_LIMITED] > 0;
}

static const char *cstr(const struct tui_model *m, int g, const char *rest)
{
    char fn[FACT_NAME_MAX];
    const struct fact *f = fact_get(&m->check_facts, fact_gpu_name(fn, g, rest));
    return f && f->type == FACT_STR && f->s[0] ? f->s : "?";
}

/* throttle reasons: those that turned on since the first sample apart from
 * those set from the start (RDNA firmware reports some bits permanently, so
 * only a change is news) */
static void throttle_text(const struct tui_model *m, int g, const struct tel_gpu *tg, char *out,
                          size_t n)
{
    if (!tg || !tg->throttle_known) {
        snprintf(out, n, "throttle ?"); /* why: in the help screen */
        return;
    }
    uint64_t first = g < m->nhist && m->first_throttle_known[g] ? m->first_throttle[g] : 0;
    uint64_t fresh = tg->throttle_bits & ~first, old = tg->throttle_bits & first;
    if (!tg->throttle_bits) {
        snprintf(out, n, "throttle none (%s)", tg->throttle_src);
        return;
    }
    if (strncmp(tg->throttle, "asic:", 5) == 0) {
        snprintf(out, n, "throttle %s (%s)", tg->throttle, tg->throttle_src);
        return;
    }
    char a[128] = "", b[128] = "";
    gpu_metrics_throttle_names(fresh, a, sizeof(a));
    gpu_metrics_throttle_names(old, b, sizeof(b));
    if (fresh && old)
        snprintf(out, n, "throttle NEW %s; set from start %s (RDNA: permanent bits)", a, b);
    else if (fresh)
        snprintf(out, n, "throttle NEW %s", a);
    else
        snprintf(out, n, "throttle %s set from start (RDNA reports some bits permanently)", b);
}

static void users_text(const struct tui_model *m, int g, struct strbuf *sb)
{
    /* NVML can leave one GPU's list unknown (procs_why) */
    int mine = 0, why = m->have_procs && (size_t)g < m->procs.ngpu && m->procs.gpus[g].procs_why[0];
    for (size_t i = 0; m->have_procs && i < m->procs.nproc; i++)
        mine += m->procs.procs[i].gpu == g;
    if (!m->have_procs || (!mine && why))
        strbuf_adds(sb, "users: ?"); /* why: in the help screen */
    else
        tel_proc_describe(&m->procs, g, sb);
}

/* the seven value lines inside GPU g's panel */
#define GPU_VALUE_LINES 7
_Static_assert(GPU_VALUE_LINES == TP__COUNT, "one tui_part per value line");
static void gpu_lines(const struct tui_model *m, int g, char out[GPU_VALUE_LINES][512])
{
    const struct tel_gpu *t = tgpu(m, g);
    char a[32], b[32], c[32], d[32], e[32], f[32], h[32];
    snprintf(out[0], 512, "sclk %s MHz [%s-%s]  mclk %s [%s-%s]",
             tv(a, sizeof(a), t, TEL_SCLK_MHZ, 0, 1), tv(b, sizeof(b), t, TEL_SCLK_MIN_MHZ, 0, 1),
             tv(c, sizeof(c), t, TEL_SCLK_MAX_MHZ, 0, 1), tv(d, sizeof(d), t, TEL_MCLK_MHZ, 0, 1),
             tv(e, sizeof(e), t, TEL_MCLK_MIN_MHZ, 0, 1),
             tv(f, sizeof(f), t, TEL_MCLK_MAX_MHZ, 0, 1));
    snprintf(out[1], 512, "power %s/%s W  busy %s %%  fan %s rpm",
             tv(a, sizeof(a), t, TEL_POWER_W, 0, 1), tv(b, sizeof(b), t, TEL_POWER_CAP_W, 0, 1),
             tv(c, sizeof(c), t, TEL_BUSY_PCT, 0, 1), tv(d, sizeof(d), t, TEL_FAN_RPM, 0, 1));
    /* every sensor with its own limit: gpu.thermal judges each, and the
     * one that decides may be mem */
    snprintf(out[2], 512, "edge %s/%s  jct %s/%s  mem %s/%s C",
             tv(a, sizeof(a), t, TEL_TEMP_EDGE_C, 0, 1),
             tv(b, sizeof(b), t, TEL_TEMP_EDGE_LIMIT_C, 0, 1),
             tv(c, sizeof(c), t, TEL_TEMP_JUNCTION_C, 0, 1),
             tv(d, sizeof(d), t, TEL_TEMP_JUNCTION_LIMIT_C, 0, 1),
             tv(e, sizeof(e), t, TEL_TEMP_MEM_C, 0, 1),
             tv(f, sizeof(f), t, TEL_TEMP_MEM_LIMIT_C, 0, 1));
    snprintf(
        out[3], 512, "VRAM %s/%s GiB  GTT %s/%s GiB", tv(a, sizeof(a), t, TEL_VRAM_USED_B, 1, GIB),
        tv(b, sizeof(b), t, TEL_VRAM_TOTAL_B, 1, GIB), tv(c, sizeof(c), t, TEL_GTT_USED_B, 1, GIB),
        tv(d, sizeof(d), t, TEL_GTT_TOTAL_B, 1, GIB));
    /* the GPU function's own link, then the narrowest/slowest hop up to the
     * root port: the own link reads x16 behind an x8 slot */
    /* GT/s left out: the line must fit a 50-column panel with the mark */
    snprintf(
        out[4], 512, "PCIe %s/%s x%s/x%s path x%s%s %s replays %s%s%s",
        tv(a, sizeof(a), t, TEL_PCIE_GTS, 1, 1), tv(b, sizeof(b), t, TEL_PCIE_MAX_GTS, 1, 1),
        tv(c, sizeof(c), t, TEL_PCIE_WIDTH, 0, 1), tv(d, sizeof(d), t, TEL_PCIE_MAX_WIDTH, 0, 1),
        tv(e, sizeof(e), t, TEL_PCIE_PATH_WIDTH, 0, 1), path_limited(t) ? "!" : "",
        tv(f, sizeof(f), t, TEL_PCIE_PATH_GTS, 1, 1), tv(h, sizeof(h), t, TEL_PCIE_REPLAYS, 0, 1),
        path_limited(t) ? " LIMITED at " : "", path_limited(t) ? t->path_hop : "");
    throttle_text(m, g, t, out[5], 512);
    struct strbuf sb = STRBUF_INIT;
    users_text(m, g, &sb);
    snprintf(out[6], 512, "%s", sb.buf ? sb.buf : "");
    strbuf_release(&sb);
}

static void gpu_title(const struct tui_model *m, int g, char *buf, size_t n)
{
    const struct tel_gpu *t = tgpu(m, g);
    if (t && strcmp(t->vendor, "nvidia") == 0)
        snprintf(buf, n, "GPU %d  NVIDIA  %s", g, t->pci);
    else {
        /* the pci.ids name last: a narrow panel cuts it, never the address */
        const char *name = cstr(m, g, "pci_name");
        int named = strcmp(name, "?") != 0;
        snprintf(buf, n, "GPU %d  %s  %s%s%s", g, cstr(m, g, "gfx"), t ? t->pci : "?",
                 named ? "  " : "", named ? name : "");
    }
}

/* a figure with as many decimals as make sense for its size */
static const char *fig(char *buf, size_t n, double v)
{
    double a = fabs(v);
    snprintf(buf, n, "%.*f", a < 10 ? 2 : a < 100 ? 1 : 0, v);
    return buf;
}

/* a rendered plot (tui_plot_render's cols characters) at y, x; returns cols */
static int put_plot(struct tui_canvas *cv, int y, int x, const char *buf, int cols)
{
    /* put() stops at the width, blanks included: a plot of gaps still
     * takes its columns */
    for (int c = 0, off = 0; c < cols; c++) {
        int n = (unsigned char)buf[off] >= 0x80 ? 3 : 1;
        char one[4] = {0};
        memcpy(one, buf + off, (size_t)n);
        tui_canvas_put(cv, y, x + c, 1, TA_NORMAL, one);
        off += n;
    }
    return cols;
}

/* "label [plot] lo..hi unit" in w columns; the plot is v->plot_cols wide
 * (the same in every panel of the frame: one time axis) */
static void plot_line(struct tui_canvas *cv, int y, int x, int w, const struct tui_view *v,
                      const char *label, const struct tui_ring *r, enum tui_agg agg,
                      const char *unit)
{
    char buf[512 * 3 + 1], a[32], b[32];
    int k = tui_canvas_printf(cv, y, x, w, TA_DIM, "%-5s", label);
    if (!r) {
        tui_canvas_put(cv, y, x + k, w - k, TA_DIM, " no history");
        return;
    }
    struct tui_plot p;
    int cols = v->plot_cols < w - k - 2 ? v->plot_cols : w - k - 2;
    tui_plot_render(r, cols, v->per_col, agg, cv->utf8, buf, sizeof(buf), &p);
    k += tui_canvas_put(cv, y, x + k, 1, TA_DIM, cv->utf8 ? "\u2502" : "|");
    k += put_plot(cv, y, x + k, buf, cols);
    k += tui_canvas_put(cv, y, x + k, 1, TA_DIM, cv->utf8 ? "\u2502" : "|");
    if (p.known)
        tui_canvas_printf(cv, y, x + k, w - k, TA_DIM, " %s..%s %s", fig(a, sizeof(a), p.lo),
                          fig(b, sizeof(b), p.hi), unit);
    else
        tui_canvas_put(cv, y, x + k, w - k, TA_DIM, " ? (unknown)");
}

static void draw_gpu_panel(struct tui_canvas *cv, const struct tui_rect *r,
                           const struct tui_model *m, const struct tui_view *v, int g)
{
    char title[128], lines[GPU_VALUE_LINES][512];
    gpu_title(m, g, title, sizeof(title));
    if (r->w >= 120 && m->have_sample && m->cur.ngpu > 1 && r->x == 0 && r->w == cv->cols)
        snprintf(title + strlen(title), sizeof(title) - strlen(title),
                 "  (Left/Right select a GPU)");
    gpu_lines(m, g, lines);
    tui_canvas_box(cv, r, title, TA_TITLE);
    int x = r->x + 2, w = r->w - 4, y = r->y + 1;
    /* value line i shows part i's facts (the order of gpu_lines) */
    enum status st[TP__COUNT];
    tui_status_parts(m, g, st);
    for (int i = 0; i < GPU_VALUE_LINES && i < r->h - 2; i++) {
        enum status s = st[i];
        if (s == ST_PASS && ((i == TP_THROTTLE && strstr(lines[i], "NEW")) ||
                             (i == TP_PCIE && path_limited(tgpu(m, g)))))
            s = ST_WARN;
        tui_canvas_put(cv, y + i, x, w, s == ST_PASS ? TA_NORMAL : marks[s].attr, lines[i]);
    }
    static const struct {
        const char *label, *unit;
        enum tui_series s;
        enum tui_agg agg;
    } plots[] = {{"busy", "%", TS_BUSY, TUI_AGG_MAX},
                 {"power", "W", TS_POWER, TUI_AGG_MAX},
                 {"jct", "C", TS_JUNCTION, TUI_AGG_MAX},
                 {"sclk", "MHz", TS_SCLK, TUI_AGG_MIN}};
    for (int i = 0; i < (int)ARRAY_SIZE(plots) && GPU_VALUE_LINES + i < r->h - 2; i++)
        plot_line(cv, y + GPU_VALUE_LINES + i, x, w, v, plots[i].label,
                  tui_model_hist(m, g, plots[i].s), plots[i].agg, plots[i].unit);
}

/* the panel's values on one line, for many GPUs or small terminals: the
 * PCI address first (it names the GPU in every check), then busy, power,
 * junction and shader clock each with a sparkline when the width allows
 * (the newest samples at the plots' columns' scale), VRAM, the PCIe link
 * and its path ("path x8!" when a hop holds the GPU back), throttling */
#define SPARK_MAX 16
static void draw_gpu_line(struct tui_canvas *cv, const struct tui_rect *r,
                          const struct tui_model *m, const struct tui_view *v, int g, int mark)
{
    const struct tel_gpu *t = tgpu(m, g);
    char vals[4][40], a[32], b[32], c[32], d[32], e[32], head[64], tail[256];
    static const struct {
        const char *label, *unit;
        enum tel_key k;
        enum tui_series s;
        enum tui_agg agg;
        enum tui_part part;
    } sp[4] = {{"busy", "%", TEL_BUSY_PCT, TS_BUSY, TUI_AGG_MAX, TP_POWER},
               {"pwr", "W", TEL_POWER_W, TS_POWER, TUI_AGG_MAX, TP_POWER},
               {"jct", "C", TEL_TEMP_JUNCTION_C, TS_JUNCTION, TUI_AGG_MAX, TP_TEMP},
               {"sclk", "MHz", TEL_SCLK_MHZ, TS_SCLK, TUI_AGG_MIN, TP_CLOCKS}};
    enum status st[TP__COUNT];
    tui_status_parts(m, g, st);
    /* mark: -1 no panel under the lines, 0 not selected, 1 selected */
    snprintf(head, sizeof(head), "%sGPU%d %s ",
             mark < 0 ? ""
             : mark   ? ">"
                      : " ",
             g, t ? t->pci : "?");
    int fixed = (int)strlen(head), labels = 0;
    for (int i = 0; i < 4; i++) {
        snprintf(vals[i], sizeof(vals[i]), "%s%s", tv(a, sizeof(a), t, sp[i].k, 0, 1), sp[i].unit);
        fixed += (int)strlen(vals[i]) + 1;
        labels += (int)strlen(sp[i].label) + 1;
    }
    snprintf(tail, sizeof(tail), "VRAM %s/%sG PCIe %sx%s path x%s%s%s",
             tv(a, sizeof(a), t, TEL_VRAM_USED_B, 1, GIB),
             tv(b, sizeof(b), t, TEL_VRAM_TOTAL_B, 0, GIB), tv(c, sizeof(c), t, TEL_PCIE_GTS, 1, 1),
             tv(d, sizeof(d), t, TEL_PCIE_WIDTH, 0, 1),
             tv(e, sizeof(e), t, TEL_PCIE_PATH_WIDTH, 0, 1), path_limited(t) ? "!" : "",
             t && t->throttle_known && t->throttle_bits ? " thr" : "");
    fixed += (int)strlen(tail);
    /* labels and sparklines only where they fit: the values (their units
     * say what they are) and the PCI address come first at 80 columns */
    int room = r->w - 1 - fixed, spark = 0;
    if (room >= labels + 4 * 3) {
        spark = (room - labels) / 4;
        spark = spark > SPARK_MAX ? SPARK_MAX : spark;
    }
    int x = r->x, end = r->x + r->w - 1;
    x += tui_canvas_put(cv, r->y, x, end - x, TA_TITLE, head);
    for (int i = 0; i < 4 && x < end; i++) {
        const struct tui_ring *ring = tui_model_hist(m, g, sp[i].s);
        if (spark) {
            x += tui_canvas_printf(cv, r->y, x, end - x, TA_DIM, "%s ", sp[i].label);
            char buf[SPARK_MAX * 3 + 1];
            struct tui_plot p;
            if (ring)
                tui_plot_render(ring, spark, v->per_col, sp[i].agg, cv->utf8, buf, sizeof(buf), &p);
            else
                snprintf(buf, sizeof(buf), "%*s", spark, "");
            x += put_plot(cv, r->y, x, buf, spark);
        }
        enum status s = st[sp[i].part];
        x +=
            tui_canvas_put(cv, r->y, x, end - x, s == ST_PASS ? TA_NORMAL : marks[s].attr, vals[i]);
        x += tui_canvas_put(cv, r->y, x, end - x, TA_NORMAL, " ");
    }
    /* the tail shows VRAM, the PCIe link and throttling: the worst of them */
    enum status ts = ST_PASS;
    for (int p = TP_VRAM; p <= TP_THROTTLE; p++)
        ts = tui_status_severity(st[p]) > tui_status_severity(ts) ? st[p] : ts;
    if (ts == ST_PASS && path_limited(t))
        ts = ST_WARN;
    if (x < end)
        tui_canvas_put(cv, r->y, x, end - x, ts == ST_PASS ? TA_NORMAL : marks[ts].attr, tail);
}

/* ---- the workload panel -------------------------------------------------- */

static int wnum(const struct factset *fs, const char *name, double *v)
{
    const struct fact *f = fact_get(fs, name);
    if (f && f->type == FACT_INT)
        *v = (double)f->i;
    else if (f && f->type == FACT_FLOAT && isfinite(f->f))
        *v = f->f;
    else
        return 0;
    return 1;
}

static const char *wfig(char *buf, size_t n, const struct factset *fs, const char *name)
{
    double v;
    return wnum(fs, name, &v) ? fig(buf, n, v) : "?";
}

static const char *wstr(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    return f && f->type == FACT_STR && f->s[0] ? f->s : "?";
}

static const struct result *wl_result(const struct tui_workload *w, const char *id)
{
    for (size_t i = 0; w->have_res && i < w->res.n; i++)
        if (strcmp(w->res.v[i].check->id, id) == 0)
            return &w->res.v[i];
    return NULL;
}

/* "[ok] vla.control_rate" or "" when that check did not run */
static int wl_mark(struct tui_canvas *cv, int y, int x, int w, const struct tui_workload *wl,
                   const char *id)
{
    const struct result *r = wl_result(wl, id);
    if (!r || w <= 0)
        return 0;
    int c = tui_canvas_put(cv, y, x, w, marks[r->st].attr, marks[r->st].text);
    return c + tui_canvas_printf(cv, y, x + c, w - c, TA_DIM, " %s", id);
}

/* the check's mark, and when no budget bounds the figure, why: the
 * check's skip summary */
static void wl_verdict(struct tui_canvas *cv, int y, int x, int w, const struct tui_workload *wl,
                       const char *id, int have_budget)
{
    int k = wl_mark(cv, y, x, w, wl, id);
    const struct result *r = wl_result(wl, id);
    if (!have_budget && !k)
        tui_canvas_put(cv, y, x, w, TA_DIM, "(no such check)");
    else if (!have_budget && r->st == ST_SKIP && r->summary)
        tui_canvas_printf(cv, y, x + k, w - k, TA_DIM, ": %s", r->summary);
}

static void wl_title(const struct tui_workload *wl, char *buf, size_t n)
{
    const struct factset *fs = &wl->facts;
    const struct fact *p = fact_get(fs, "vla.preset");
    if (!wl->have || !p || p->type != FACT_STR)
        snprintf(buf, n, "workload %s", wl->popts.vla_preset); /* no run, or it did not run */
    else
        snprintf(buf, n, "workload %s  %s: %s  %s", wstr(fs, "vla.preset"), wstr(fs, "vla.backend"),
                 wstr(fs, "vla.device"), wstr(fs, "vla.dtype"));
}

/* the last line: when, how long, what is going on now */
static void wl_when(const struct tui_workload *wl, struct strbuf *sb)
{
    if (wl->runs)
        strbuf_addf(sb, "last run %s (%.1f s)", wl->last_time, wl->last_s);
    else
        strbuf_adds(sb, "no run finished yet");
    strbuf_addf(sb, ", every %g s", wl->interval_s);
    if (tui_workload_running(wl))
        strbuf_adds(sb, "  running ...");
    if (wl->skipped)
        strbuf_addf(sb, "  (%d rounds skipped: a run was still going)", wl->skipped);
    if (wl->error[0])
        strbuf_addf(sb, "  %s", wl->error);
}

/* why there are no figures, or "" */
static const char *wl_why(const struct tui_workload *wl)
{
    const struct factset *fs = &wl->facts;
    const struct fact *av = fact_get(fs, "vla.available");
    const struct fact *err = fact_get(fs, "vla.error");
    const struct fact *st = fact_get(fs, "probe.vla.status");
    if (st && st->type == FACT_STR && strcmp(st->s, "ok") != 0) {
        const struct fact *msg = fact_get(fs, "probe.vla.message");
        return msg && msg->type == FACT_STR ? msg->s : st->s;
    }
    if (av && av->type == FACT_BOOL && !av->b)
        return wstr(fs, "vla.why");
    if (err && err->type == FACT_STR && err->s[0])
        return err->s;
    return "";
}

static void draw_workload_box(struct tui_canvas *cv, const struct tui_rect *r,
                              const struct tui_workload *wl, const struct tui_view *v)
{
    const struct factset *fs = &wl->facts;
    char title[256], a[32], b[32], c[32];
    wl_title(wl, title, sizeof(title));
    tui_canvas_box(cv, r, title, TA_TITLE);
    int x = r->x + 2, w = r->w - 4, y = r->y + 1;
    if (!wl->have) {
        tui_canvas_put(cv, y, x, w, TA_DIM,
                       tui_workload_running(wl) ? "first run of the reference pass ..."
                                                : "no figures yet");
    } else {
        const char *why = wl_why(wl);
        int k = tui_canvas_printf(cv, y, x, w, TA_NORMAL, "total p50 %s ms  p99 %s ms  budget ",
                                  wfig(a, sizeof(a), fs, "vla.latency.total_ms"),
                                  wfig(b, sizeof(b), fs, "vla.latency.total_p99_ms"));
        if (isfinite(wl->budget_total_ms))
            k +=
                tui_canvas_printf(cv, y, x + k, w - k, TA_NORMAL, "%.5g ms  ", wl->budget_total_ms);
        else
            k += tui_canvas_put(cv, y, x + k, w - k, TA_DIM, "?  ");
        wl_verdict(cv, y, x + k, w - k, wl, "vla.latency.total", isfinite(wl->budget_total_ms));
        /* a run without figures says why where the stages would be */
        if (*why)
            tui_canvas_printf(cv, y + 1, x, w, TA_WARN, "%s", why);
        else
            tui_canvas_printf(cv, y + 1, x, w, TA_NORMAL,
                              "vision %s ms  prefix %s ms  denoising step %s ms",
                              wfig(a, sizeof(a), fs, "vla.latency.vision_ms"),
                              wfig(b, sizeof(b), fs, "vla.latency.prefix_ms"),
                              wfig(c, sizeof(c), fs, "vla.latency.step_ms"));
        k = tui_canvas_printf(cv, y + 2, x, w, TA_NORMAL, "control rate %s Hz  needs ",
                              wfig(a, sizeof(a), fs, "vla.control_rate_hz"));
        if (isfinite(wl->budget_rate_hz))
            k += tui_canvas_printf(cv, y + 2, x + k, w - k, TA_NORMAL, ">= %.5g Hz  ",
                                   wl->budget_rate_hz);
        else
            k += tui_canvas_put(cv, y + 2, x + k, w - k, TA_DIM, "?  ");
        wl_verdict(cv, y + 2, x + k, w - k, wl, "vla.control_rate", isfinite(wl->budget_rate_hz));
    }
    plot_line(cv, y + 3, x, w, v, "p50", &wl->p50, TUI_AGG_MAX, "ms");
    plot_line(cv, y + 4, x, w, v, "p99", &wl->p99, TUI_AGG_MAX, "ms");
    struct strbuf sb = STRBUF_INIT;
    wl_when(wl, &sb);
    tui_canvas_put(cv, y + 5, x, w, TA_DIM, sb.buf);
    strbuf_release(&sb);
}

/* the panel on one line, for small terminals */
static void draw_workload_line(struct tui_canvas *cv, const struct tui_rect *r,
                               const struct tui_workload *wl)
{
    const struct factset *fs = &wl->facts;
    char a[32], b[32], c[32];
    int k = tui_canvas_printf(cv, r->y, r->x, r->w - 1, TA_TITLE, "VLA %s ",
                              wl->have ? wstr(fs, "vla.preset") : wl->popts.vla_preset);
    if (!wl->have) {
        tui_canvas_put(cv, r->y, r->x + k, r->w - 1 - k, TA_DIM,
                       tui_workload_running(wl) ? "running ..." : "no figures yet");
        return;
    }
    tui_canvas_printf(cv, r->y, r->x + k, r->w - 1 - k, TA_NORMAL,
                      "%s p50 %s p99 %s ms %s Hz  last %s%s", wstr(fs, "vla.backend"),
                      wfig(a, sizeof(a), fs, "vla.latency.total_ms"),
                      wfig(b, sizeof(b), fs, "vla.latency.total_p99_ms"),
                      wfig(c, sizeof(c), fs, "vla.control_rate_hz"), wl->runs ? wl->last_time : "-",
                      tui_workload_running(wl) ? " running" : "");
}

/* ---- header, checklist, status ----------------------------------------- */

static void draw_header(struct tui_canvas *cv, const struct tui_layout *l,
                        const struct tui_model *m)
{
    const struct fact *host = fact_get(&m->check_facts, "host.hostname");
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "rocm-vla-doctor dashboard  %s",
                host && host->type == FACT_STR ? host->s : "?");
    if (m->sysroot)
        strbuf_addf(&sb, "  sysroot %s", m->sysroot);
    if (l->ngpu_shown < l->ngpu)
        strbuf_addf(&sb, "  (%d of %d GPUs shown)", l->ngpu_shown, l->ngpu);
    /* the keys are on the status line: the last row survives any size */
    tui_canvas_put(cv, l->header.y, 0, l->header.w, TA_TITLE, sb.buf);
    strbuf_release(&sb);
}

static void draw_no_gpu(struct tui_canvas *cv, const struct tui_layout *l,
                        const struct tui_model *m)
{
    const struct fact *f = fact_get(&m->check_facts, "gpu.count");
    if (f && f->type == FACT_INT)
        tui_canvas_printf(cv, l->gpu_area.y, 0, l->gpu_area.w, TA_DIM,
                          "no GPU (gpu.count = %lld; NVML %s)", (long long)f->i,
                          m->tel ? tel_nvml_status(m->tel) : "?");
    else
        tui_canvas_printf(cv, l->gpu_area.y, 0, l->gpu_area.w, TA_DIM, "GPUs unknown: %s",
                          f && f->reason ? f->reason : "checks not run yet");
}

int tui_draw_max_scroll(const struct tui_layout *l, const struct tui_model *m)
{
    int n = m->have_res ? (int)m->res.n : 0;
    int s = n - l->checks_visible;
    return s > 0 ? s : 0;
}

static void draw_checks(struct tui_canvas *cv, const struct tui_layout *l,
                        const struct tui_model *m, struct tui_view *v)
{
    const struct tui_rect *r = &l->checks;
    if (r->h <= 0)
        return;
    char title[160];
    if (m->have_res) {
        const size_t *c = m->res.counts;
        snprintf(title, sizeof(title), "checks (quick): %zu pass, %zu warn, %zu fail, %zu skip%s",
                 c[ST_PASS], c[ST_WARN], c[ST_FAIL], c[ST_SKIP],
                 c[ST_ERROR] + c[ST_TIMEOUT] ? ", errors" : "");
    } else {
        snprintf(title, sizeof(title), "checks (quick): not run");
    }
    int x = r->x, y = r->y, w = r->w;
    if (l->checks_border) {
        tui_canvas_box(cv, r, title, TA_TITLE);
        x += 1;
        y += 1;
        w -= 2;
    }
    int n = (int)m->res.n, vis = l->checks_visible;
    /* the selection and the window follow each other: Up/Down move the
     * selection and scroll to it; paging and the wheel scroll and take the
     * selection along */
    int selecting = v->csel >= 0; /* --once has no selection: csel -1 */
    if (selecting && v->csel >= n)
        v->csel = n > 0 ? n - 1 : 0;
    if (selecting && v->csel_moved && vis > 0) {
        if (v->csel < v->scroll)
            v->scroll = v->csel;
        if (v->csel >= v->scroll + vis)
            v->scroll = v->csel - vis + 1;
    }
    int max = tui_draw_max_scroll(l, m);
    if (v->scroll > max)
        v->scroll = max;
    if (v->scroll < 0)
        v->scroll = 0;
    if (selecting && !v->csel_moved && vis > 0) {
        if (v->csel < v->scroll)
            v->csel = v->scroll;
        if (v->csel >= v->scroll + vis)
            v->csel = v->scroll + vis - 1;
    }
    if (!m->have_res || m->res.n == 0) {
        tui_canvas_put(cv, y, x + 1, w - 1, TA_DIM,
                       m->have_res ? "no checks at this level" : "checks not run");
        return;
    }
    size_t idw = 0;
    for (size_t i = 0; i < m->res.n; i++) {
        size_t len = strlen(m->res.v[i].check->id);
        idw = len > idw ? len : idw;
    }
    size_t *order = xcalloc(m->res.n, sizeof(size_t));
    size_t no = tui_model_check_order(m, order);
    for (int k = 0; k < vis; k++) {
        size_t i = (size_t)(v->scroll + k);
        if (i >= no)
            break;
        const struct result *res = &m->res.v[order[i]];
        const struct mark *mk = &marks[res->st];
        int here = (int)i == v->csel;
        /* the selection: its id in reverse video */
        int c = tui_canvas_put(cv, y + k, x + 1, w - 1, mk->attr, mk->text);
        c += tui_canvas_put(cv, y + k, x + 1 + c, w - 1 - c, TA_NORMAL, " ");
        c += tui_canvas_printf(cv, y + k, x + 1 + c, w - 1 - c, here ? TA_SELECT : TA_NORMAL,
                               "%-*s", (int)idw, res->check->id);
        c += tui_canvas_put(cv, y + k, x + 1 + c, w - 1 - c, TA_NORMAL, "  ");
        tui_canvas_put(cv, y + k, x + 1 + c, w - 1 - c,
                       res->st == ST_PASS || res->st == ST_SKIP ? TA_NORMAL : mk->attr,
                       res->summary ? res->summary : "");
    }
    free(order);
}

static void draw_status(struct tui_canvas *cv, const struct tui_layout *l,
                        const struct tui_model *m, const struct tui_view *v)
{
    if (l->status.h <= 0)
        return;
    /* the keys first, then what scrolls and what is going on: on a narrow
     * terminal the refresh times are what gets cut, never the keys */
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s  ", tui_draw_hints);
    int n = m->have_res ? (int)m->res.n : 0;
    if (n > l->checks_visible && l->checks_visible > 0)
        strbuf_addf(&sb, "[%d-%d of %d checks]  ", v->scroll + 1,
                    v->scroll + l->checks_visible < n ? v->scroll + l->checks_visible : n, n);
    if (v->note)
        strbuf_addf(&sb, "%s  ", v->note);
    strbuf_addf(&sb, "checks %s (%.2f s)  telemetry %s every %d ms",
                m->checks_time[0] ? m->checks_time : "-", m->checks_s,
                m->tele_time[0] ? m->tele_time : "-", v->interval_ms);
    if (v->plot_cols > 0)
        strbuf_addf(&sb, "  plots span %.0f s",
                    (double)v->plot_cols * v->per_col * v->interval_ms / 1000.0);
    int k = tui_canvas_put(cv, l->status.y, 0, l->status.w, TA_TITLE, tui_draw_hints);
    tui_canvas_put(cv, l->status.y, k, l->status.w - k, TA_DIM, sb.buf + strlen(tui_draw_hints));
    strbuf_release(&sb);
}

void tui_draw_frame(struct tui_canvas *cv, const struct tui_layout *l, const struct tui_model *m,
                    struct tui_view *v)
{
    if (v->help) {
        tui_draw_help(cv, m);
        return;
    }
    if (l->header.h > 0)
        draw_header(cv, l, m);
    if (v->procs || v->fix) {
        /* everything between the header and the status line */
        int top = l->header.h, bot = l->status.h > 0 ? l->status.y : l->rows;
        struct tui_rect r = {top, 0, bot - top, l->cols};
        if (v->procs)
            tui_views_procs(cv, &r, m);
        else
            tui_views_fix(cv, &r, m, v);
        draw_status(cv, l, m, v);
        return;
    }
    if (l->ngpu == 0 && l->gpu_area.h > 0)
        draw_no_gpu(cv, l, m);
    if (v->sel >= l->ngpu)
        v->sel = l->ngpu > 0 ? l->ngpu - 1 : 0;
    if (v->sel < 0)
        v->sel = 0;
    for (int g = 0; g < l->ngpu_shown; g++) {
        if (l->gpu_mode == TUI_GPU_FULL)
            draw_gpu_panel(cv, &l->gpu[g], m, v, g);
        else
            draw_gpu_line(cv, &l->gpu[g], m, v, g, l->detail.h > 0 ? g == v->sel : -1);
    }
    if (l->detail.h > 0 && l->ngpu > 0)
        draw_gpu_panel(cv, &l->detail, m, v, v->sel);
    if (v->wl && l->workload.h > 0) {
        if (l->workload_full)
            draw_workload_box(cv, &l->workload, v->wl, v);
        else
            draw_workload_line(cv, &l->workload, v->wl);
    }
    draw_checks(cv, l, m, v);
    draw_status(cv, l, m, v);
}
