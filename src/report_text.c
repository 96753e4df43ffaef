/* report_text.c - doctor-style terminal output: one line per check, the fix
 * under each warning or failure, evidence with -v, a summary line. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

struct mark {
    const char *uni, *ascii, *color;
};

static const struct mark marks[ST__COUNT] = {
    [ST_PASS] = {"✓", "[ok]", "\033[32m"},  [ST_WARN] = {"!", "[!!]", "\033[33m"},
    [ST_FAIL] = {"✗", "[XX]", "\033[31m"},  [ST_SKIP] = {"-", "[--]", "\033[2m"},
    [ST_ERROR] = {"E", "[ER]", "\033[35m"}, [ST_TIMEOUT] = {"T", "[TO]", "\033[35m"},
};

/* Text from a snapshot or a hostile file must not drive the terminal:
 * control characters (ESC above all) are shown as '?'. */
static void put_safe(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

static void put_mark(FILE *out, enum status st, const struct text_opts *o)
{
    const struct mark *mk = &marks[st];
    if (o->color)
        fputs(mk->color, out);
    if (o->unicode)
        fprintf(out, "[%s]", mk->uni);
    else
        fputs(mk->ascii, out);
    if (o->color)
        fputs("\033[0m", out);
}

void report_text_write(FILE *out, const struct report_meta *m, const struct results *r,
                       const struct text_opts *o)
{
    size_t idw = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t n = strlen(r->v[i].check->id);
        idw = n > idw ? n : idw;
    }
    fprintf(out, "rocm-vla-doctor %s: ", m->version);
    put_safe(out, m->hostname ? m->hostname : "unknown host");
    fprintf(out, ", level %s%s", m->level, m->sysroot ? ", sysroot " : "");
    put_safe(out, m->sysroot ? m->sysroot : "");
    fputs("\n\n", out);
    for (size_t i = 0; i < r->n; i++) {
        const struct result *res = &r->v[i];
        put_mark(out, res->st, o);
        fprintf(out, " %-*s  ", (int)idw, res->check->id);
        put_safe(out, res->summary);
        fputc('\n', out);
        if (res->fix) {
            fprintf(out, "      %*s  fix: ", (int)idw, "");
            put_safe(out, res->fix);
            fputc('\n', out);
        }
        if (o->verbose) {
            fprintf(out, "      %*s  check: %s\n", (int)idw, "", res->check->title);
            for (size_t j = 0; j < res->nev; j++) {
                const struct evidence *ev = &res->ev[j];
                char *v = ev->fact ? fact_to_text(ev->fact) : xstrdup("not probed");
                fprintf(out, "      %*s  %s = ", (int)idw, "", ev->name);
                put_safe(out, v);
                if (ev->fact && ev->fact->type == FACT_UNKNOWN && ev->fact->reason) {
                    fputs(" (", out);
                    put_safe(out, ev->fact->reason);
                    fputc(')', out);
                } else if (ev->fact && ev->fact->source) {
                    fputs("  [", out);
                    put_safe(out, ev->fact->source);
                    fputc(']', out);
                }
                fputc('\n', out);
                free(v);
            }
        }
    }
    const size_t *c = r->counts;
    fprintf(out, "\n%zu passed, %zu warnings, %zu failed, %zu skipped", c[ST_PASS], c[ST_WARN],
            c[ST_FAIL], c[ST_SKIP]);
    if (c[ST_ERROR] || c[ST_TIMEOUT])
        fprintf(out, ", %zu errors, %zu timed out", c[ST_ERROR], c[ST_TIMEOUT]);
    fprintf(out, " (%zu checks in %.2f s)\n", r->n, m->duration_s);
    if (c[ST_FAIL] || c[ST_WARN])
        fputs("Run 'rocm-vla-doctor explain ID' for why a check matters and how it is measured.\n",
              out);
}
