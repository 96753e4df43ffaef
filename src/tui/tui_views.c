/* tui_views.c - the help screen, the process table and the fix view (see
 * tui_views.h). Machine text (process names, reasons, summaries) goes
 * through tui_canvas_put, which escapes it for the terminal. */
#include "tui_views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_draw.h"

static void blank(struct tui_canvas *cv, const struct tui_rect *r)
{
    for (int y = r->y; y < r->y + r->h; y++)
        for (int x = r->x; x < r->x + r->w; x++)
            tui_canvas_put(cv, y, x, 1, TA_NORMAL, " ");
}

/* text wrapped at spaces into w columns from row y, stopping before row
 * end; '\n' breaks a line. Returns the row after the last one written. */
static int wrap(struct tui_canvas *cv, int y, int x, int w, int end, enum tui_attr a,
                const char *text)
{
    const char *p = text ? text : "";
    while (*p && y < end && w > 0) {
        size_t nl = strcspn(p, "\n"), n = nl;
        if ((int)n > w) {
            n = (size_t)w;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = (size_t)w; /* one word wider than the line: cut it */
        }
        char *line = xstrndup(p, n);
        tui_canvas_put(cv, y++, x, w, a, line);
        free(line);
        p += n;
        while (*p == ' ')
            p++;
        if (*p == '\n')
            p++;
    }
    return y;
}

/* ---- help ----------------------------------------------------------------- */

static const char *const help_keys[] = {
    "  ?  h  F1            this help (any key closes it)",
    "  q  Q                quit (exit 0)",
    "  r  R                re-run the quick checks now",
    "  p  P                the processes using the GPUs (p again: back)",
    "  Up  Down            select a check (the checklist follows)",
    "  Enter               the selected check's summary and fix (Esc back)",
    "  PgUp PgDn Home End  scroll the checklist (End stays after a resize)",
    "  mouse wheel         scroll the checklist three lines",
    "  Left Right Tab 0-9  the GPU whose plots show under the GPU lines",
};

static const char *const help_panels[] = {
    "  a value coloured as a check: a check that reads it warns or fails",
    "  checks that fail, error or warn are listed first",
    "  plots: newest sample right; each column is the max (min for",
    "  sclk) of its samples; blank = unknown; every plot of the",
    "  screen shares one time axis (see the status line)",
};

/* GPU g's throttling and processes when unknown, then "GPU g key, key:
 * why" for each reason of its unknown values (keys with the same reason on
 * one line) */
static int unknown_lines(struct tui_canvas *cv, int y, int x, int w, int end,
                         const struct tui_model *m, int g)
{
    const struct tel_gpu *t = &m->cur.gpus[g];
    if (!t->throttle_known && y < end) {
        char buf[192];
        snprintf(buf, sizeof(buf), "  GPU %d throttle: %s", g,
                 t->throttle_why[0] ? t->throttle_why : "not reported");
        y = wrap(cv, y, x, w, end, TA_NORMAL, buf);
    }
    const char *pwhy = m->have_procs && (size_t)g < m->procs.ngpu ? m->procs.gpus[g].procs_why : "";
    if (pwhy[0] && y < end) {
        char buf[192];
        snprintf(buf, sizeof(buf), "  GPU %d users: %s", g, pwhy);
        y = wrap(cv, y, x, w, end, TA_NORMAL, buf);
    }
    int done[TEL_NKEYS] = {0};
    for (int k = 0; k < TEL_NKEYS && y < end; k++) {
        if (t->src[k] || done[k])
            continue;
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "  GPU %d %s", g, tel_key_name((enum tel_key)k));
        for (int j = k + 1; j < TEL_NKEYS; j++)
            if (!t->src[j] && !done[j] && strcmp(t->why[j], t->why[k]) == 0) {
                strbuf_addf(&sb, ", %s", tel_key_name((enum tel_key)j));
                done[j] = 1;
            }
        strbuf_addf(&sb, ": %s", t->why[k][0] ? t->why[k] : "not reported");
        y = wrap(cv, y, x, w, end, TA_NORMAL, sb.buf);
        strbuf_release(&sb);
    }
    return y;
}

void tui_draw_help(struct tui_canvas *cv, const struct tui_model *m)
{
    struct tui_rect r = {0, 0, cv->rows, cv->cols};
    blank(cv, &r);
    tui_canvas_box(cv, &r, "rocm-vla-doctor dashboard: help", TA_TITLE);
    int x = 2, w = cv->cols - 4, y = 1, end = cv->rows - 1;
    if (y < end)
        tui_canvas_put(cv, y++, x, w, TA_TITLE, "keys");
    for (size_t i = 0; i < ARRAY_SIZE(help_keys) && y < end; i++)
        tui_canvas_put(cv, y++, x, w, TA_NORMAL, help_keys[i]);
    /* the reasons last: on a small screen they are what is cut */
    if (y < end)
        tui_canvas_put(cv, y++, x, w, TA_TITLE, "panels");
    for (size_t i = 0; i < ARRAY_SIZE(help_panels) && y < end; i++)
        tui_canvas_put(cv, y++, x, w, TA_NORMAL, help_panels[i]);
    if (y < end)
        tui_canvas_put(cv, y++, x, w, TA_TITLE, "? = a value that could not be read (never 0):");
    int any = 0;
    for (int g = 0; m->have_sample && (size_t)g < m->cur.ngpu && y < end; g++) {
        int before = y;
        y = unknown_lines(cv, y, x, w, end, m, g);
        any |= y > before;
    }
    if (!m->have_procs && y < end)
        y = wrap(cv, y, x, w, end, TA_NORMAL, "  users: /proc could not be read"), any = 1;
    if (!any && y < end)
        tui_canvas_put(cv, y++, x, w, TA_DIM, "  none now");
}

/* ---- processes -------------------------------------------------------------- */

static const char *size_text(char *buf, size_t n, int64_t b)
{
    if (b < 0)
        return "?";
    double mib = (double)b / (1024.0 * 1024.0);
    if (mib >= 1024.0)
        snprintf(buf, n, "%.1f GiB", mib / 1024.0);
    else
        snprintf(buf, n, "%.1f MiB", mib);
    return buf;
}

void tui_views_procs(struct tui_canvas *cv, const struct tui_rect *r, const struct tui_model *m)
{
    blank(cv, r);
    tui_canvas_box(cv, r, "processes using the GPUs (p: back)", TA_TITLE);
    int x = r->x + 2, w = r->w - 4, y = r->y + 1, end = r->y + r->h - 1;
    if (y >= end)
        return;
    if (!m->have_procs) {
        tui_canvas_put(cv, y, x, w, TA_DIM, "the process list is unknown: /proc could not be read");
        return;
    }
    tui_canvas_printf(cv, y++, x, w, TA_TITLE, "%-8s %-16s %-4s %-13s %10s  %s", "PID", "NAME",
                      "GPU", "PCI", "VRAM", "SOURCE");
    const struct tel_sample *s = &m->procs;
    for (size_t i = 0; i < s->nproc && y < end; i++) {
        const struct tel_proc *p = &s->procs[i];
        char gpu[16] = "?", vram[32];
        const char *pci = "?";
        if (p->gpu >= 0) {
            snprintf(gpu, sizeof(gpu), "%d", p->gpu);
            if ((size_t)p->gpu < s->ngpu)
                pci = s->gpus[p->gpu].pci;
        }
        /* comm is the process's own choice of name: tui_canvas_put makes
         * its control and bidi characters visible escapes */
        tui_canvas_printf(cv, y++, x, w, TA_NORMAL, "%-8d %-16s %-4s %-13s %10s  %s", p->pid,
                          p->comm, gpu, pci, size_text(vram, sizeof(vram), p->vram_bytes),
                          p->src ? p->src : "?");
    }
    if (s->nproc == 0 && y < end)
        tui_canvas_put(cv, y++, x, w, TA_DIM, "no process has a GPU open");
    if (s->procs_unreadable && y < end)
        tui_canvas_printf(cv, y++, x, w, TA_DIM,
                          "%d processes not readable (other users': run as root to see them)",
                          s->procs_unreadable);
    for (size_t g = 0; g < s->ngpu && y < end; g++)
        if (s->gpus[g].procs_why[0])
            tui_canvas_printf(cv, y++, x, w, TA_DIM, "GPU %zu: processes unknown: %s", g,
                              s->gpus[g].procs_why);
}

/* ---- one check's fix -------------------------------------------------------- */

void tui_views_fix(struct tui_canvas *cv, const struct tui_rect *r, const struct tui_model *m,
                   const struct tui_view *v)
{
    blank(cv, r);
    size_t *order = m->have_res && m->res.n ? xcalloc(m->res.n, sizeof(size_t)) : NULL;
    size_t n = order ? tui_model_check_order(m, order) : 0;
    const struct result *res =
        v->csel >= 0 && (size_t)v->csel < n ? &m->res.v[order[v->csel]] : NULL;
    free(order);
    int x = r->x + 2, w = r->w - 4, y = r->y + 1, end = r->y + r->h - 1;
    if (!res) {
        tui_canvas_box(cv, r, "check (Esc: back)", TA_TITLE);
        if (y < end)
            tui_canvas_put(cv, y, x, w, TA_DIM, "no check selected (checks not run)");
        return;
    }
    char title[160];
    snprintf(title, sizeof(title), "%s: %s (Esc: back)", res->check->id, status_name(res->st));
    tui_canvas_box(cv, r, title, tui_draw_status_attr(res->st));
    if (res->check->title && y < end)
        y = wrap(cv, y, x, w, end, TA_TITLE, res->check->title);
    if (y < end)
        tui_canvas_put(cv, y++, x, w, TA_TITLE, "summary");
    y = wrap(cv, y, x + 2, w - 2, end, tui_draw_status_attr(res->st), res->summary);
    if (y < end)
        tui_canvas_put(cv, y++, x, w, TA_TITLE, "fix");
    struct fix fx = result_fix(res);
    if (fix_present(&fx)) {
        /* prose wrapped; each command on a line of its own and never
         * wrapped (a wrapped command is two commands when pasted): a
         * line too wide for the pane is cut, the report prints it whole */
        if (fx.say)
            y = wrap(cv, y, x + 2, w - 2, end, TA_NORMAL, fx.say);
        for (size_t i = 0; i < fx.run.n && y < end; i++)
            tui_canvas_put(cv, y++, x + 4, w - 4, TA_TITLE, fx.run.v[i]);
        if (fx.then)
            y = wrap(cv, y, x + 2, w - 2, end, TA_NORMAL, fx.then);
    } else if (y < end)
        tui_canvas_put(cv, y++, x + 2, w - 2, TA_DIM,
                       res->st == ST_PASS   ? "none: the check passed"
                       : res->st == ST_SKIP ? "none: the check skipped"
                                            : "none given");
    if (res->check->why && y < end) {
        tui_canvas_put(cv, y++, x, w, TA_TITLE, "why it matters");
        y = wrap(cv, y, x + 2, w - 2, end, TA_NORMAL, res->check->why);
    }
    (void)y;
}
