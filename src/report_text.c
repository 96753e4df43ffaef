/* report_text.c - doctor-style terminal output: one line per check, the fix
 * under each warning or failure, evidence with -v, a summary line. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

struct mark {
    const char *uni, *ascii, *color;
};

static const struct mark marks[ST__COUNT] = {
    [ST_PASS] = {"✓", "[ok]", "\033[32m"},    [ST_WARN] = {"!", "[!!]", "\033[33m"},
    [ST_FAIL] = {"✗", "[XX]", "\033[31m"},    [ST_SKIP] = {"-", "[--]", "\033[2m"},
    [ST_ERROR] = {"E", "[ER]", "\033[35m"},   [ST_TIMEOUT] = {"T", "[TO]", "\033[35m"},
};

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
    fprintf(out, "rocm-vla-doctor %s: %s, level %s%s%s\n\n", m->version,
            m->hostname ? m->hostname : "unknown host", m->level,
            m->sysroot ? ", sysroot " : "", m->sysroot ? m->sysroot : "");
    for (size_t i = 0; i < r->n; i++) {
        const struct result *res = &r->v[i];
        put_mark(out, res->st, o);
        fprintf(out, " %-*s  %s\n", (int)idw, res->check->id, res->summary);
        if (res->fix)
            fprintf(out, "      %*s  fix: %s\n", (int)idw, "", res->fix);
        if (o->verbose) {
            fprintf(out, "      %*s  check: %s\n", (int)idw, "", res->check->title);
            for (size_t j = 0; j < res->nev; j++) {
                const struct evidence *ev = &res->ev[j];
                char *v = ev->fact ? fact_to_text(ev->fact) : xstrdup("not probed");
                fprintf(out, "      %*s  %s = %s", (int)idw, "", ev->name, v);
                if (ev->fact && ev->fact->type == FACT_UNKNOWN && ev->fact->reason)
                    fprintf(out, " (%s)", ev->fact->reason);
                else if (ev->fact && ev->fact->source)
                    fprintf(out, "  [%s]", ev->fact->source);
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
