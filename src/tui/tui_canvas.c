/* tui_canvas.c - the cell grid shared by the ncurses view and --once. */
#include "tui_canvas.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

void tui_canvas_init(struct tui_canvas *cv, int rows, int cols)
{
    cv->rows = rows > 0 ? rows : 0;
    cv->cols = cols > 0 ? cols : 0;
    cv->utf8 = 0; /* ASCII unless the caller says the terminal is UTF-8 */
    size_t n = (size_t)cv->rows * (size_t)cv->cols;
    cv->cell = xcalloc(n ? n : 1, sizeof(*cv->cell));
    for (size_t i = 0; i < n; i++)
        cv->cell[i].u[0] = ' ';
}

void tui_canvas_release(struct tui_canvas *cv)
{
    free(cv->cell);
    cv->cell = NULL;
    cv->rows = cv->cols = 0;
}

int tui_canvas_put(struct tui_canvas *cv, int y, int x, int maxw, enum tui_attr a, const char *text)
{
    if (y < 0 || y >= cv->rows || x < 0 || maxw <= 0)
        return 0;
    if (maxw > cv->cols - x)
        maxw = cv->cols - x;
    int w = 0;
    /* every string drawn comes through here: sysfs and snapshot text is
     * sanitised (controls, C1, bidi, invalid bytes become visible escapes) */
    char *safe = str_sanitize(text, 0);
    const char *s = safe;
    while (*s && w < maxw) {
        int unsafe;
        unsigned cp;
        size_t n = str_safe_next(s, &unsafe, &cp);
        struct tui_cell *c = &cv->cell[(size_t)y * (size_t)cv->cols + (size_t)(x + w)];
        if (unsafe || n > 4) { /* not after str_sanitize; kept as a guard */
            c->u[0] = '?';
            c->u[1] = '\0';
        } else {
            memcpy(c->u, s, n);
            c->u[n] = '\0';
        }
        c->attr = (unsigned char)a;
        s += n;
        w++;
    }
    free(safe);
    return w;
}

int tui_canvas_printf(struct tui_canvas *cv, int y, int x, int maxw, enum tui_attr a,
                      const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    int w = tui_canvas_put(cv, y, x, maxw, a, sb.buf ? sb.buf : "");
    strbuf_release(&sb);
    return w;
}

void tui_canvas_box(struct tui_canvas *cv, const struct tui_rect *r, const char *title,
                    enum tui_attr title_attr)
{
    if (r->h < 2 || r->w < 2)
        return;
    int bot = r->y + r->h - 1, right = r->x + r->w - 1;
    const char *hz = cv->utf8 ? "\u2500" : "-", *vt = cv->utf8 ? "\u2502" : "|";
    for (int x = r->x + 1; x < right; x++) {
        tui_canvas_put(cv, r->y, x, 1, TA_DIM, hz);
        tui_canvas_put(cv, bot, x, 1, TA_DIM, hz);
    }
    for (int y = r->y + 1; y < bot; y++) {
        tui_canvas_put(cv, y, r->x, 1, TA_DIM, vt);
        tui_canvas_put(cv, y, right, 1, TA_DIM, vt);
    }
    tui_canvas_put(cv, r->y, r->x, 1, TA_DIM, cv->utf8 ? "\u250c" : "+");
    tui_canvas_put(cv, r->y, right, 1, TA_DIM, cv->utf8 ? "\u2510" : "+");
    tui_canvas_put(cv, bot, r->x, 1, TA_DIM, cv->utf8 ? "\u2514" : "+");
    tui_canvas_put(cv, bot, right, 1, TA_DIM, cv->utf8 ? "\u2518" : "+");
    if (title && r->w >= 6) {
        int w = tui_canvas_put(cv, r->y, r->x + 2, 1, TA_DIM, " ");
        w += tui_canvas_put(cv, r->y, r->x + 3, r->w - 6, title_attr, title);
        tui_canvas_put(cv, r->y, r->x + 2 + w, 1, TA_DIM, " ");
    }
}

/* the rows, trailing spaces dropped, each but the last ended by eol (the
 * last too with eol_last) */
static void canvas_rows(const struct tui_canvas *cv, const char *eol, int eol_last,
                        struct strbuf *sb)
{
    for (int y = 0; y < cv->rows; y++) {
        const struct tui_cell *row = &cv->cell[(size_t)y * (size_t)cv->cols];
        int end = cv->cols;
        while (end > 0 && strcmp(row[end - 1].u, " ") == 0)
            end--;
        for (int x = 0; x < end; x++)
            strbuf_adds(sb, row[x].u);
        if (eol_last || y + 1 < cv->rows)
            strbuf_adds(sb, eol);
    }
}

void tui_canvas_print(const struct tui_canvas *cv, FILE *out)
{
    struct strbuf sb = STRBUF_INIT;
    canvas_rows(cv, "\n", 1, &sb);
    if (sb.buf)
        fputs(sb.buf, out);
    strbuf_release(&sb);
}

void tui_canvas_text(const struct tui_canvas *cv, struct strbuf *sb)
{
    canvas_rows(cv, "\r\n", 0, sb);
}

int tui_canvas_same(const struct tui_canvas *a, const struct tui_canvas *b)
{
    if (a->rows != b->rows || a->cols != b->cols || !a->cell || !b->cell)
        return 0;
    size_t n = (size_t)a->rows * (size_t)a->cols;
    return memcmp(a->cell, b->cell, n * sizeof(*a->cell)) == 0;
}
