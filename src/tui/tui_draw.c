/* tui_draw.c - the dashboard's panels: a header, one panel (or one line) per
 * GPU, the checklist, a status line. Every value comes from a fact; a fact
 * that is unknown or absent is drawn as "?", never as 0. */
#include "tui_draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct mark {
    const char *text;
    enum tui_attr attr;
};

static const struct mark marks[ST__COUNT] = {
    [ST_PASS] = {"[ok]", TA_PASS},   [ST_WARN] = {"[!!]", TA_WARN},
    [ST_FAIL] = {"[XX]", TA_FAIL},   [ST_SKIP] = {"[--]", TA_SKIP},
    [ST_ERROR] = {"[ER]", TA_ERROR}, [ST_TIMEOUT] = {"[TO]", TA_ERROR},
};

/* ---- fact values as text ---------------------------------------------- */

static const struct fact *gfact(const struct factset *fs, int gpu, const char *rest)
{
    char fn[FACT_NAME_MAX];
    return fact_get(fs, fact_gpu_name(fn, gpu, rest));
}

static int gnum(const struct factset *fs, int gpu, const char *rest, double *v)
{
    const struct fact *f = gfact(fs, gpu, rest);
    if (f && f->type == FACT_INT)
        *v = (double)f->i;
    else if (f && f->type == FACT_FLOAT)
        *v = f->f;
    else
        return 0;
    return 1;
}

/* the number divided by scale with `decimals` digits, or "?" */
static const char *num(char *buf, size_t n, const struct factset *fs, int gpu, const char *rest,
                       int decimals, double scale)
{
    double v;
    if (!gnum(fs, gpu, rest, &v))
        return "?";
    snprintf(buf, n, "%.*f", decimals, v / scale);
    return buf;
}

static const char *str(const struct factset *fs, int gpu, const char *rest)
{
    const struct fact *f = gfact(fs, gpu, rest);
    return f && f->type == FACT_STR && f->s[0] ? f->s : "?";
}

#define GIB (1024.0 * 1024.0 * 1024.0)

/* the five lines inside GPU g's panel */
static void gpu_lines(const struct factset *fs, int g, char out[5][160])
{
    char a[32], b[32], c[32], d[32];
    snprintf(out[0], 160, "busy %4s %%   VRAM %s / %s GiB",
             num(a, sizeof(a), fs, g, "busy_percent", 0, 1),
             num(b, sizeof(b), fs, g, "vram_used_bytes", 1, GIB),
             num(c, sizeof(c), fs, g, "vram_bytes", 1, GIB));
    /* all three sensors: gpu.thermal judges each against its own limit and
     * names the one that decided, which may be mem */
    snprintf(out[1], 160, "edge %s jct %s mem %s C  power %s W",
             num(a, sizeof(a), fs, g, "temp_edge_c", 0, 1),
             num(b, sizeof(b), fs, g, "temp_junction_c", 0, 1),
             num(d, sizeof(d), fs, g, "temp_mem_c", 0, 1),
             num(c, sizeof(c), fs, g, "power_w", 0, 1));
    snprintf(out[2], 160, "sclk %s MHz  mclk %s MHz  perf %s",
             num(a, sizeof(a), fs, g, "sclk_mhz", 0, 1), num(b, sizeof(b), fs, g, "mclk_mhz", 0, 1),
             str(fs, g, "perf_level"));
    snprintf(out[3], 160, "PCIe %s/%s GT/s  x%s/x%s  (now/max)",
             num(a, sizeof(a), fs, g, "link.speed_gts", 1, 1),
             num(b, sizeof(b), fs, g, "link.max_speed_gts", 1, 1),
             num(c, sizeof(c), fs, g, "link.width", 0, 1),
             num(d, sizeof(d), fs, g, "link.max_width", 0, 1));
    snprintf(out[4], 160, "pp_dpm_pcie %s", str(fs, g, "pcie_dpm"));
}

static void gpu_title(const struct factset *fs, int g, char *buf, size_t n)
{
    snprintf(buf, n, "GPU %d  %s  %s", g, str(fs, g, "gfx"), str(fs, g, "pci"));
}

static void draw_gpu_panel(struct tui_canvas *cv, const struct tui_rect *r,
                           const struct factset *fs, int g)
{
    char title[96], lines[5][160];
    gpu_title(fs, g, title, sizeof(title));
    gpu_lines(fs, g, lines);
    tui_canvas_box(cv, r, title, TA_TITLE);
    for (int i = 0; i < 5 && i < r->h - 2; i++)
        tui_canvas_put(cv, r->y + 1 + i, r->x + 2, r->w - 4, TA_NORMAL, lines[i]);
}

/* the panel's facts on one line, for terminals too small for panels */
static void draw_gpu_line(struct tui_canvas *cv, const struct tui_rect *r, const struct factset *fs,
                          int g)
{
    char a[32], b[32], c[32], d[32], e[32], m[32], f[32], h[32], i[32], j[32], k[32], l[32];
    int w =
        tui_canvas_printf(cv, r->y, r->x, r->w - 1, TA_TITLE, "GPU%d %s ", g, str(fs, g, "gfx"));
    tui_canvas_printf(cv, r->y, r->x + w, r->w - 1 - w, TA_NORMAL,
                      "busy %s%% VRAM %s/%sG %s/%s/%sC %sW PCIe %sGT/s x%s/x%s sclk %s mclk %s %s",
                      num(a, sizeof(a), fs, g, "busy_percent", 0, 1),
                      num(b, sizeof(b), fs, g, "vram_used_bytes", 1, GIB),
                      num(c, sizeof(c), fs, g, "vram_bytes", 0, GIB),
                      num(d, sizeof(d), fs, g, "temp_edge_c", 0, 1),
                      num(e, sizeof(e), fs, g, "temp_junction_c", 0, 1),
                      num(m, sizeof(m), fs, g, "temp_mem_c", 0, 1),
                      num(f, sizeof(f), fs, g, "power_w", 0, 1),
                      num(h, sizeof(h), fs, g, "link.speed_gts", 1, 1),
                      num(i, sizeof(i), fs, g, "link.width", 0, 1),
                      num(j, sizeof(j), fs, g, "link.max_width", 0, 1),
                      num(k, sizeof(k), fs, g, "sclk_mhz", 0, 1),
                      num(l, sizeof(l), fs, g, "mclk_mhz", 0, 1), str(fs, g, "perf_level"));
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

/* a figure with as many decimals as make sense for its size */
static const char *fig(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%.*f", v < 10 ? 2 : v < 100 ? 1 : 0, v);
    return buf;
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
                              const struct tui_workload *wl)
{
    const struct factset *fs = &wl->facts;
    char title[256], a[32], b[32], c[32], spark[TUI_WL_HISTORY + 1];
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
    if (wl->nhist) {
        double mn = wl->hist[0], mx = wl->hist[0];
        for (int i = 1; i < wl->nhist; i++) {
            mn = wl->hist[i] < mn ? wl->hist[i] : mn;
            mx = wl->hist[i] > mx ? wl->hist[i] : mx;
        }
        tui_sparkline(wl->hist, wl->nhist, spark, sizeof(spark));
        tui_canvas_printf(cv, y + 3, x, w, TA_NORMAL,
                          "p50 history [%-*s] %s .. %s ms, last %d runs", TUI_WL_HISTORY, spark,
                          fig(a, sizeof(a), mn), fig(b, sizeof(b), mx), wl->nhist);
    } else {
        tui_canvas_put(cv, y + 3, x, w, TA_DIM, "p50 history: no total latency yet");
    }
    struct strbuf sb = STRBUF_INIT;
    wl_when(wl, &sb);
    tui_canvas_put(cv, y + 4, x, w, TA_DIM, sb.buf);
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
    int w = tui_canvas_put(cv, l->header.y, 0, l->header.w, TA_TITLE, sb.buf);
    strbuf_release(&sb);
    const char *keys = "  q quit  r re-run checks  arrows/PgUp/PgDn scroll";
    tui_canvas_put(cv, l->header.y, w, l->header.w - w, TA_DIM, keys);
}

static void draw_no_gpu(struct tui_canvas *cv, const struct tui_layout *l,
                        const struct tui_model *m)
{
    const struct fact *f = fact_get(&m->tele, "gpu.count");
    if (f && f->type == FACT_INT)
        tui_canvas_printf(cv, l->gpu_area.y, 0, l->gpu_area.w, TA_DIM,
                          "no AMD GPU (gpu.count = %lld)", (long long)f->i);
    else
        tui_canvas_printf(cv, l->gpu_area.y, 0, l->gpu_area.w, TA_DIM, "AMD GPUs unknown: %s",
                          f && f->reason ? f->reason : "not probed");
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
    int max = tui_draw_max_scroll(l, m);
    if (v->scroll > max)
        v->scroll = max;
    if (v->scroll < 0)
        v->scroll = 0;
    if (!m->have_res || m->res.n == 0) {
        tui_canvas_put(cv, y, x + 1, w - 1, TA_DIM,
                       m->have_res ? "no checks at this level" : "checks not run");
        return;
    }
    size_t idw = 0;
    for (size_t i = 0; i < m->res.n; i++) {
        size_t n = strlen(m->res.v[i].check->id);
        idw = n > idw ? n : idw;
    }
    for (int k = 0; k < l->checks_visible; k++) {
        size_t i = (size_t)(v->scroll + k);
        if (i >= m->res.n)
            break;
        const struct result *res = &m->res.v[i];
        const struct mark *mk = &marks[res->st];
        int c = tui_canvas_put(cv, y + k, x + 1, w - 1, mk->attr, mk->text);
        c += tui_canvas_printf(cv, y + k, x + 1 + c, w - 1 - c, TA_NORMAL, " %-*s  ", (int)idw,
                               res->check->id);
        tui_canvas_put(cv, y + k, x + 1 + c, w - 1 - c,
                       res->st == ST_PASS || res->st == ST_SKIP ? TA_NORMAL : mk->attr,
                       res->summary ? res->summary : "");
    }
}

static void draw_status(struct tui_canvas *cv, const struct tui_layout *l,
                        const struct tui_model *m, const struct tui_view *v)
{
    if (l->status.h <= 0)
        return;
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "checks %s (%.2f s)  telemetry %s every %d ms",
                m->checks_time[0] ? m->checks_time : "-", m->checks_s,
                m->tele_time[0] ? m->tele_time : "-", v->interval_ms);
    int n = m->have_res ? (int)m->res.n : 0;
    if (n > l->checks_visible && l->checks_visible > 0)
        strbuf_addf(&sb, "  checks %d-%d of %d", v->scroll + 1,
                    v->scroll + l->checks_visible < n ? v->scroll + l->checks_visible : n, n);
    if (v->note)
        strbuf_addf(&sb, "  %s", v->note);
    tui_canvas_put(cv, l->status.y, 0, l->status.w, TA_DIM, sb.buf);
    strbuf_release(&sb);
}

void tui_draw_frame(struct tui_canvas *cv, const struct tui_layout *l, const struct tui_model *m,
                    struct tui_view *v)
{
    if (l->header.h > 0)
        draw_header(cv, l, m);
    if (l->ngpu == 0 && l->gpu_area.h > 0)
        draw_no_gpu(cv, l, m);
    for (int g = 0; g < l->ngpu_shown; g++) {
        if (l->gpu_mode == TUI_GPU_FULL)
            draw_gpu_panel(cv, &l->gpu[g], &m->tele, g);
        else
            draw_gpu_line(cv, &l->gpu[g], &m->tele, g);
    }
    if (v->wl && l->workload.h > 0) {
        if (l->workload_full)
            draw_workload_box(cv, &l->workload, v->wl);
        else
            draw_workload_line(cv, &l->workload, v->wl);
    }
    draw_checks(cv, l, m, v);
    draw_status(cv, l, m, v);
}
