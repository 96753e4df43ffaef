/* tui_draw.c - the dashboard's panels: a header, one panel (or one line) per
 * GPU, the checklist, a status line. Every value comes from a fact; a fact
 * that is unknown or absent is drawn as "?", never as 0. */
#include "tui_draw.h"

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
    snprintf(out[1], 160, "edge %s C  junction %s C  power %s W",
             num(a, sizeof(a), fs, g, "temp_edge_c", 0, 1),
             num(b, sizeof(b), fs, g, "temp_junction_c", 0, 1),
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
    char a[32], b[32], c[32], d[32], e[32], f[32], h[32], i[32], j[32], k[32], l[32];
    int w =
        tui_canvas_printf(cv, r->y, r->x, r->w - 1, TA_TITLE, "GPU%d %s ", g, str(fs, g, "gfx"));
    tui_canvas_printf(cv, r->y, r->x + w, r->w - 1 - w, TA_NORMAL,
                      "busy %s%% VRAM %s/%sG %s/%sC %sW PCIe %sGT/s x%s/x%s sclk %s mclk %s %s",
                      num(a, sizeof(a), fs, g, "busy_percent", 0, 1),
                      num(b, sizeof(b), fs, g, "vram_used_bytes", 1, GIB),
                      num(c, sizeof(c), fs, g, "vram_bytes", 0, GIB),
                      num(d, sizeof(d), fs, g, "temp_edge_c", 0, 1),
                      num(e, sizeof(e), fs, g, "temp_junction_c", 0, 1),
                      num(f, sizeof(f), fs, g, "power_w", 0, 1),
                      num(h, sizeof(h), fs, g, "link.speed_gts", 1, 1),
                      num(i, sizeof(i), fs, g, "link.width", 0, 1),
                      num(j, sizeof(j), fs, g, "link.max_width", 0, 1),
                      num(k, sizeof(k), fs, g, "sclk_mhz", 0, 1),
                      num(l, sizeof(l), fs, g, "mclk_mhz", 0, 1), str(fs, g, "perf_level"));
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
    draw_checks(cv, l, m, v);
    draw_status(cv, l, m, v);
}
