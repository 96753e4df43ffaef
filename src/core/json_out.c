/* json_out.c - see json_out.h. */
#include "json_out.h"

#include <math.h>

#include "escape.h"
#include "util.h"

void json_str(struct strbuf *sb, const char *s)
{
    if (!s) {
        strbuf_adds(sb, "null");
        return;
    }
    strbuf_addc(sb, '"');
    while (*s) {
        unsigned cp;
        int bad;
        size_t n = utf8_next(s, &cp, &bad);
        if (bad)
            strbuf_adds(sb, "\xef\xbf\xbd"); /* U+FFFD */
        else if (cp == '"' || cp == '\\')
            strbuf_addf(sb, "\\%c", (char)cp);
        else if (char_unsafe(cp))
            strbuf_addf(sb, "\\u%04x", cp);
        else
            strbuf_add(sb, s, n);
        s += n;
    }
    strbuf_addc(sb, '"');
}

void json_write_string(FILE *out, const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    json_str(&sb, s);
    fwrite(sb.buf, 1, sb.len, out);
    strbuf_release(&sb);
}

void json_write_key(FILE *out, const char *key)
{
    json_write_string(out, key);
    fputs(": ", out);
}

void json_write_number(FILE *out, double v, int digits)
{
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof(buf), "%.*g", digits, v);
    /* a locale with a decimal comma must not leak into the file */
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    fputs(buf, out);
}

void json_write_value(FILE *out, const struct json *v)
{
    if (!v) {
        fputs("null", out);
        return;
    }
    switch (v->type) {
    case JSON_NULL:
        fputs("null", out);
        break;
    case JSON_BOOL:
        fputs(v->b ? "true" : "false", out);
        break;
    case JSON_NUM:
        fwrite(v->num_text, 1, v->num_len, out); /* the literal as parsed: valid JSON */
        break;
    case JSON_STR:
        json_write_string(out, v->str);
        break;
    case JSON_ARR:
    case JSON_OBJ:
        fputc(v->type == JSON_ARR ? '[' : '{', out);
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                fputs(", ", out);
            if (v->type == JSON_OBJ)
                json_write_key(out, v->keys[i]);
            json_write_value(out, v->items[i]);
        }
        fputc(v->type == JSON_ARR ? ']' : '}', out);
        break;
    }
}
