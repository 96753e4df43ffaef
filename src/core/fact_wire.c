/* fact_wire.c - line-based fact serialisation for the isolation pipe; see
 * fact_wire.h. Parsing is strict: a record with a bad type, a wrong field
 * count or a broken escape is dropped rather than guessed. */
#include "fact_wire.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_escaped(struct strbuf *sb, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '\\':
            strbuf_adds(sb, "\\\\");
            break;
        case '\t':
            strbuf_adds(sb, "\\t");
            break;
        case '\n':
            strbuf_adds(sb, "\\n");
            break;
        case '\x1f':
            strbuf_adds(sb, "\\x");
            break;
        default:
            strbuf_addc(sb, *s);
        }
    }
}

void fact_wire_encode(struct strbuf *sb, const struct fact *f)
{
    static const char types[] = {[FACT_UNKNOWN] = 'u', [FACT_BOOL] = 'b', [FACT_INT] = 'i',
                                 [FACT_FLOAT] = 'f',   [FACT_STR] = 's',  [FACT_LIST] = 'l'};
    strbuf_addc(sb, types[f->type]);
    strbuf_addc(sb, '\t');
    put_escaped(sb, f->name);
    strbuf_addc(sb, '\t');
    switch (f->type) {
    case FACT_BOOL:
        strbuf_addc(sb, f->b ? '1' : '0');
        break;
    case FACT_INT:
        strbuf_addf(sb, "%" PRId64, f->i);
        break;
    case FACT_FLOAT:
        strbuf_addf(sb, "%.17g", f->f);
        break;
    case FACT_STR:
        put_escaped(sb, f->s);
        break;
    case FACT_LIST:
        for (size_t i = 0; i < f->list.n; i++) {
            if (i)
                strbuf_addc(sb, '\x1f');
            put_escaped(sb, f->list.v[i]);
        }
        break;
    case FACT_UNKNOWN:
        break;
    }
    strbuf_addc(sb, '\t');
    put_escaped(sb, f->source);
    strbuf_addc(sb, '\t');
    put_escaped(sb, f->reason);
    strbuf_addc(sb, '\n');
}

int fact_wire_write(int fd, const struct factset *fs, size_t from)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = from; i < fs->n; i++)
        fact_wire_encode(&sb, fs->v[i]);
    size_t off = 0;
    int rc = 0;
    while (off < sb.len) {
        ssize_t w = write(fd, sb.buf + off, sb.len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        off += (size_t)w;
    }
    strbuf_release(&sb);
    return rc;
}

/* unescape one field [s, e) in place into out; -1 on a broken escape */
static int unescape(const char *s, const char *e, struct strbuf *out)
{
    for (; s < e; s++) {
        if (*s != '\\') {
            strbuf_addc(out, *s);
            continue;
        }
        if (++s >= e)
            return -1;
        switch (*s) {
        case '\\':
            strbuf_addc(out, '\\');
            break;
        case 't':
            strbuf_addc(out, '\t');
            break;
        case 'n':
            strbuf_addc(out, '\n');
            break;
        case 'x':
            strbuf_addc(out, '\x1f');
            break;
        default:
            return -1;
        }
    }
    if (!out->buf)
        strbuf_adds(out, "");
    return 0;
}

static int parse_line(struct factset *fs, const char *s, const char *e)
{
    const char *field[5];
    const char *fend[5];
    int n = 0;
    field[0] = s;
    for (const char *p = s; p <= e; p++) {
        if (p == e || *p == '\t') {
            if (n >= 5)
                return -1;
            fend[n++] = p;
            if (p < e && n < 5)
                field[n] = p + 1;
        }
    }
    if (n != 5 || fend[0] - field[0] != 1)
        return -1;
    struct strbuf v[4] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
    int rc = 0;
    for (int i = 0; i < 4 && !rc; i++)
        rc = unescape(field[i + 1], fend[i + 1], &v[i]);
    const char *name = v[0].buf, *val = v[1].buf;
    const char *src = v[2].len ? v[2].buf : NULL;
    if (!rc && !*name)
        rc = -1;
    if (!rc) {
        char t = *field[0];
        char *end = NULL;
        if (t == 'b' && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
            fact_set_bool(fs, name, *val == '1', src);
        } else if (t == 'i') {
            errno = 0;
            long long x = strtoll(val, &end, 10);
            if (errno || !*val || *end)
                rc = -1;
            else
                fact_set_int(fs, name, x, src);
        } else if (t == 'f') {
            double x = strtod(val, &end);
            if (!*val || *end)
                rc = -1;
            else
                fact_set_float(fs, name, x, src);
        } else if (t == 's') {
            fact_set_str(fs, name, val, src);
        } else if (t == 'l') {
            struct strlist l = STRLIST_INIT;
            const char *p = val;
            if (*p) {
                for (;;) {
                    const char *q = strchr(p, '\x1f');
                    if (!q) {
                        strlist_add(&l, p);
                        break;
                    }
                    strlist_add_owned(&l, xstrndup(p, (size_t)(q - p)));
                    p = q + 1;
                }
            }
            fact_set_list(fs, name, &l, src);
            strlist_release(&l);
        } else if (t == 'u') {
            fact_set_unknown(fs, name, src, "%s", v[3].buf);
        } else {
            rc = -1;
        }
    }
    for (int i = 0; i < 4; i++)
        strbuf_release(&v[i]);
    return rc;
}

int fact_wire_parse(struct factset *fs, const char *buf, size_t len)
{
    int accepted = 0;
    const char *s = buf, *end = buf + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl)
            break; /* a truncated last record */
        if (parse_line(fs, s, nl) == 0)
            accepted++;
        s = nl + 1;
    }
    return accepted;
}
