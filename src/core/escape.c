/* escape.c - the terminal and CSV escapers and the UTF-8 decoder every
 * escaper shares; see escape.h. */
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

size_t utf8_next(const char *s, unsigned *cp, int *bad)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0], lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    size_t need;

    *bad = 0;
    *cp = c;
    if (c < 0x80)
        return c ? 1 : 0;
    if (c >= 0xc2 && c <= 0xdf)
        need = 1, c &= 0x1f;
    else if (c >= 0xe0 && c <= 0xef) /* E0: no overlong forms; ED: no surrogates */
        need = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf, c &= 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) /* F0: no overlong forms; F4: nothing above U+10FFFF */
        need = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf, c &= 0x07;
    else { /* a stray continuation byte, C0, C1, F5..FF */
        *bad = 1;
        return 1;
    }
    /* a truncated sequence is one unit; the NUL never passes the range test */
    for (size_t i = 1; i <= need; i++) {
        unsigned b = p[i];
        if (b < lo || b > hi) {
            *bad = 1;
            return i;
        }
        lo = 0x80;
        hi = 0xbf;
        c = (c << 6) | (b & 0x3f);
    }
    *cp = c;
    return need + 1;
}

int char_unsafe(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

size_t str_safe_next(const char *s, int *unsafe, unsigned *cp)
{
    int bad;
    size_t n = utf8_next(s, cp, &bad);
    if (bad) {
        *unsafe = 2; /* one byte that is not UTF-8 */
        *cp = (unsigned char)s[0];
        return 1;
    }
    *unsafe = n && char_unsafe(*cp);
    return n;
}

void str_sanitize_sb(struct strbuf *sb, const char *s, int keep_newlines)
{
    strbuf_add(sb, "", 0);
    while (s && *s) {
        int unsafe;
        unsigned cp;
        size_t n = str_safe_next(s, &unsafe, &cp);
        if (!unsafe || (keep_newlines && (cp == '\n' || cp == '\t') && unsafe == 1))
            strbuf_add(sb, s, n);
        else if (unsafe == 2 || cp < 0x80)
            strbuf_addf(sb, "\\x%02x", cp);
        else
            strbuf_addf(sb, "\\u%04x", cp);
        s += n;
    }
}

char *str_sanitize(const char *s, int keep_newlines)
{
    struct strbuf sb = STRBUF_INIT;
    str_sanitize_sb(&sb, s, keep_newlines);
    return strbuf_detach(&sb);
}

FILE *text_safe_begin(struct text_safe *t, FILE *dest)
{
    t->dest = dest;
    t->buf = NULL;
    t->len = 0;
    t->mem = open_memstream(&t->buf, &t->len);
    if (!t->mem) {
        fputs("rocm-vla-doctor: out of memory\n", stderr);
        abort();
    }
    return t->mem;
}

int text_safe_end(struct text_safe *t)
{
    if (fclose(t->mem)) {
        fputs("rocm-vla-doctor: out of memory\n", stderr);
        abort();
    }
    char *safe = str_sanitize(t->buf ? t->buf : "", 1);
    int rc = fputs(safe, t->dest) < 0 || fflush(t->dest) ? -1 : 0;
    free(safe);
    free(t->buf);
    t->buf = NULL;
    return rc;
}

void csv_cell(struct strbuf *sb, const char *s)
{
    struct strbuf t = STRBUF_INIT;
    if (s && s[0] && strchr("=+-@", s[0]))
        strbuf_addc(&t, '\''); /* text, never a formula */
    str_sanitize_sb(&t, s, 0); /* tab and CR become \x09 \x0d: no cell starts with them */
    if (!strpbrk(t.buf, ",\"")) {
        strbuf_adds(sb, t.buf);
    } else {
        strbuf_addc(sb, '"');
        for (const char *p = t.buf; *p; p++) {
            if (*p == '"')
                strbuf_addc(sb, '"');
            strbuf_addc(sb, *p);
        }
        strbuf_addc(sb, '"');
    }
    strbuf_release(&t);
}

void csv_write_cell(FILE *out, const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    csv_cell(&sb, s);
    fputs(sb.buf, out);
    strbuf_release(&sb);
}

/* POSIX's portable filename characters plus the few that no shell treats
 * specially in a word (@ % + = : ,) */
static int shell_plain(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           strchr("_@%+=:,./-", c) != NULL;
}

void shell_word(struct strbuf *sb, const char *s)
{
    int plain = *s != '\0', ctl = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        plain &= shell_plain(*p);
        ctl |= *p < 0x20 || *p == 0x7f;
    }
    if (plain) {
        strbuf_adds(sb, s);
        return;
    }
    if (!ctl) { /* '...' keeps every byte but the quote itself */
        strbuf_addc(sb, '\'');
        for (const char *p = s; *p; p++)
            strbuf_adds(sb, *p == '\'' ? "'\\''" : (char[]){*p, '\0'});
        strbuf_addc(sb, '\'');
        return;
    }
    /* a control character (a newline would end the command line): bash's
     * $'...' names it as \xHH, so the word stays one line and exact */
    strbuf_adds(sb, "$'");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            strbuf_addf(sb, "\\x%02x", *p);
        else if (*p == '\'' || *p == '\\')
            strbuf_addf(sb, "\\%c", *p);
        else
            strbuf_addc(sb, (char)*p);
    }
    strbuf_addc(sb, '\'');
}
