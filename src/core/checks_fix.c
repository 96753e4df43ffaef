/* checks_fix.c - the fix of a check or result (struct fix, checks.h): prose
 * and whole commands kept apart, so that a writer can print each command on
 * a line of its own and a reader of the old one-string form still gets one
 * string. */
#include "checks.h"

#include <stdlib.h>

int fix_present(const struct fix *f)
{
    return f->say || f->run.n || f->then;
}

void fix_release(struct fix *f)
{
    free(f->say);
    for (size_t i = 0; f->by_family && i < f->run.n; i++)
        strlist_release(&f->by_family[i]);
    free(f->by_family);
    f->by_family = NULL;
    strlist_release(&f->run);
    free(f->then);
    f->say = f->then = NULL;
    f->run = (struct strlist)STRLIST_INIT;
}

char *fix_joined(const struct fix *f)
{
    if (!fix_present(f))
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    if (f->say)
        strbuf_adds(&sb, f->say);
    for (size_t i = 0; i < f->run.n; i++)
        strbuf_addf(&sb, "%s`%s`",
                    i                           ? "; "
                    : !sb.len                   ? ""
                    : sb.buf[sb.len - 1] == ':' ? " "
                                                : ": ",
                    f->run.v[i]);
    if (f->then)
        strbuf_addf(&sb, "%s%s", sb.len ? "; " : "", f->then);
    return strbuf_detach(&sb);
}

char *fix_lines(const struct fix *f, const char *indent)
{
    if (!fix_present(f))
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    if (f->say)
        strbuf_addf(&sb, "%s\n", f->say);
    for (size_t i = 0; i < f->run.n; i++)
        strbuf_addf(&sb, "%s%s\n", indent, f->run.v[i]);
    if (f->then)
        strbuf_addf(&sb, "%s\n", f->then);
    return strbuf_detach(&sb);
}

struct fix result_fix(const struct result *r)
{
    if (fix_present(&r->fix_parts) || !r->fix)
        return r->fix_parts;
    return (struct fix){r->fix, STRLIST_INIT, NULL, NULL};
}
