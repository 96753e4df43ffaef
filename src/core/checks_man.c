/* checks_man.c - the CHECKS list of rocm-vla-doctor(1) from checks.yaml
 * (see checks_man.h). Every entry says what the check's rules say, in their
 * order, with the conditions as written: the thresholds in the manual are
 * the ones the binary applies. `make man` writes it into the page and
 * tests/docs.sh fails when the committed block differs. */
#include "checks_man.h"

#include <stdlib.h>
#include <string.h>

/* a UTF-8 character as \[uXXXX]: the page stays ASCII, and its line
 * lengths are the bytes mandoc counts; returns its last byte */
static const char *utf8(struct strbuf *sb, const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    int n = u[0] >= 0xf0 ? 3 : u[0] >= 0xe0 ? 2 : 1;
    unsigned cp = u[0] & (0x3fu >> n);
    for (int i = 1; i <= n; i++) {
        if ((u[i] & 0xc0) != 0x80) { /* not UTF-8 (libyaml refuses it): as it is */
            strbuf_addc(sb, *p);
            return p;
        }
        cp = cp << 6 | (u[i] & 0x3fu);
    }
    strbuf_addf(sb, "\\[u%04X]", cp);
    return p + n;
}

/* s as mdoc text lines: a backslash escaped, '-' as \- (options and
 * commands copy as written), one sentence per line (mandoc's style), no
 * line starting with a control character; {fact} placeholders as the
 * fact's name in italics and {sudo} as "sudo " */
static void escape(struct strbuf *sb, const char *s)
{
    int bol = 1;
    for (const char *p = s; *p; p++) {
        if (bol && (*p == ' ' || *p == '\n'))
            continue;
        bol = 0;
        if (*p == '{' && strchr(p, '}')) {
            const char *close = strchr(p, '}'), *colon = memchr(p, ':', (size_t)(close - p));
            const char *end = colon ? colon : close;
            if (end - p == 5 && strncmp(p + 1, "sudo", 4) == 0) {
                strbuf_adds(sb, "sudo ");
            } else {
                strbuf_adds(sb, "\\fI");
                strbuf_add(sb, p + 1, (size_t)(end - p - 1));
                strbuf_adds(sb, "\\fP");
                const char *slash = colon ? memchr(colon, '/', (size_t)(close - colon)) : NULL;
                if (slash) { /* {n:noun/nouns}: the count and the plural */
                    strbuf_addc(sb, ' ');
                    strbuf_add(sb, slash + 1, (size_t)(close - slash - 1));
                }
            }
            p = close;
        } else if (*p == '\\') {
            strbuf_adds(sb, "\\e");
        } else if (*p == '-') {
            strbuf_adds(sb, "\\-");
        } else if (*p == '(' && p[1] == ')') {
            strbuf_adds(sb, "\\&("); /* "stat()" is prose here, not markup */
        } else if ((unsigned char)*p >= 0xc0) {
            p = utf8(sb, p);
        } else if (*p == '\n' || *p == '\t') {
            strbuf_addc(sb, ' ');
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            strbuf_adds(sb, "\\[uFFFD]"); /* a control character is no roff */
        } else if ((*p == '.' || *p == '?' || *p == '!') && p[1] == ' ') {
            strbuf_addc(sb, *p);
            strbuf_addc(sb, '\n');
            bol = 1;
        } else {
            strbuf_addc(sb, *p);
        }
    }
}

#define MAN_WIDTH 80 /* mandoc's style limit for an input line */

/* prefix and s as text lines of at most MAN_WIDTH bytes where a space
 * allows (a line break is a space in roff) */
static void text(struct strbuf *sb, const char *prefix, const char *s)
{
    struct strbuf e = STRBUF_INIT;
    strbuf_adds(&e, prefix);
    escape(&e, s);
    for (char *line = e.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        size_t cut = len;
        if (len > MAN_WIDTH)
            for (cut = MAN_WIDTH; cut > 0 && line[cut] != ' '; cut--)
                ;
        if (cut == 0) /* one long word: as it is */
            for (cut = MAN_WIDTH; cut < len && line[cut] != ' '; cut++)
                ;
        if (*line == '.' || *line == '\'')
            strbuf_adds(sb, "\\&");
        strbuf_add(sb, line, cut);
        strbuf_addc(sb, '\n');
        line += cut;
        while (*line == ' ' || *line == '\n')
            line++;
    }
    strbuf_release(&e);
}

/* a condition as one quoted macro argument, shown as written */
static void quoted(struct strbuf *sb, const char *s)
{
    strbuf_addc(sb, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            strbuf_adds(sb, "\\(dq");
        else if (*p == '\\')
            strbuf_adds(sb, "\\e");
        else if (*p == '\n' || *p == '\t')
            strbuf_addc(sb, ' ');
        else if ((unsigned char)*p < 0x20 || *p == 0x7f)
            strbuf_adds(sb, "\\[uFFFD]");
        else if ((unsigned char)*p >= 0xc0)
            p = utf8(sb, p);
        else if (*p == '|' || *p == ',')
            /* a long regex of alternatives has no space: allow a line
             * break after each (\: prints nothing), or groff cannot fill
             * the line and lintian warns */
            strbuf_addf(sb, "%c\\:", *p);
        else
            strbuf_addc(sb, *p);
    }
    strbuf_addc(sb, '"');
}

/* a fix as the report's one-string form: its templates as written */
static void fix_text(struct strbuf *sb, const struct fix *f)
{
    char *s = fix_joined(f);
    if (s)
        text(sb, "Fix: ", s);
    free(s);
}

static void rules(struct strbuf *sb, const char *what, const struct rule *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        strbuf_addf(sb, ".It %s\n.Ql ", what);
        quoted(sb, r[i].when_src);
        strbuf_adds(sb, " :\n");
        char *sum = r[i].impact
                        ? xasprintf("%s (impact: %s).", r[i].summary, impact_name(r[i].impact))
                        : xasprintf("%s.", r[i].summary);
        text(sb, "", sum);
        free(sum);
        fix_text(sb, &r[i].fix);
    }
}

void checks_man_print(const struct checkset *cs, FILE *out)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s\n.Bl -tag -width Ds\n", CHECKS_MAN_BEGIN);
    for (size_t i = 0; i < cs->n; i++) {
        const struct check *c = &cs->v[i];
        strbuf_addf(&sb, ".It Cm %s Pq %s%s%s%s\n", c->id, level_name(c->level),
                    c->per_gpu ? ", per GPU" : "", c->impact ? ", impact: " : "",
                    c->impact ? impact_name(c->impact) : "");
        char *title = xasprintf("%s.", c->title);
        text(&sb, "", title);
        free(title);
        text(&sb, "", c->why);
        if (c->how)
            text(&sb, "Measured: ", c->how);
        /* the order they are tried in: the first that holds decides */
        strbuf_adds(&sb, ".Bl -tag -width Fl -compact\n");
        rules(&sb, "skip", c->skip, c->nskip);
        rules(&sb, "fail", c->fail, c->nfail);
        rules(&sb, "warn", c->warn, c->nwarn);
        strbuf_adds(&sb, ".It pass\n");
        text(&sb, "", c->pass.summary);
        strbuf_adds(&sb, ".El\n");
        fix_text(&sb, &c->fix);
    }
    strbuf_addf(&sb, ".El\n%s\n", CHECKS_MAN_END);
    fputs(sb.buf, out);
    strbuf_release(&sb);
}
