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

/* the same, appended to sb */
static void str_sanitize_sb(struct strbuf *sb, const char *s, int keep_newlines)
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

/* One CSV cell (RFC 4180) holding s (NULL: empty). The text is made safe
 * as for the terminal, line breaks and tabs included (a telemetry cell is
 * one line); a cell that a spreadsheet would take for a formula (starting
 * with = + - @) gets a leading ' (OWASP's CSV-injection advice, what
 * spreadsheet-safe exporters do); a cell holding a comma or a quote is
 * quoted, its quotes doubled. */
static void csv_cell(struct strbuf *sb, const char *s)
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
 * specially in a word (@ % + = : ,); a word that starts with = is quoted
 * all the same, for zsh reads =name as the path of the command name */
static int shell_plain(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           strchr("_@%+=:,./-", c) != NULL;
}

/* a character a terminal or an editor may drop, show as something else or
 * reorder when the line is copied: the dangerous set (char_unsafe) and the
 * invisible ones (zero-width, line and paragraph separators, word joiners,
 * the byte-order mark) */
static int shell_unpasteable(unsigned cp)
{
    return char_unsafe(cp) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff || cp == 0xa0 || cp == 0xad;
}

/* "-5", "3.25": a number, which a leading '-' does not make an option */
static int shell_number(const char *s)
{
    const char *p = s + (*s == '-');
    if (!*p)
        return 0;
    for (; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return 0;
    return 1;
}

const char *shell_word_refusal(const char *s)
{
    for (const char *p = s; *p;) {
        int bad;
        unsigned cp;
        size_t n = utf8_next(p, &cp, &bad);
        if (bad)
            return "bytes that are not UTF-8";
        if (cp == '\n' || cp == '\r')
            return "a line break";
        if (shell_unpasteable(cp))
            return "a control or invisible character";
        p += n;
    }
    if (*s == '-' && !shell_number(s))
        return "a leading '-' (read as an option)";
    return NULL;
}

int shell_word(struct strbuf *sb, const char *s)
{
    if (shell_word_refusal(s))
        return -1;
    int plain = *s != '\0' && *s != '=';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        plain &= shell_plain(*p);
    if (plain) {
        strbuf_adds(sb, s);
        return 0;
    }
    /* '...' keeps every byte but the quote itself, in every POSIX shell
     * (dash, bash, busybox sh, zsh, Python's shell=True) */
    strbuf_addc(sb, '\'');
    for (const char *p = s; *p; p++)
        strbuf_adds(sb, *p == '\'' ? "'\\''" : (char[]){*p, '\0'});
    strbuf_addc(sb, '\'');
    return 0;
}
