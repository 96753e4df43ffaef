/* json.c - strict recursive-descent JSON parser (see json.h). A header from
 * an untrusted file must never crash us: every read is bounds-checked, the
 * nesting depth is capped, and errors carry the byte offset. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/util.h"

struct jp {
    const unsigned char *s;
    size_t len, pos;
    char *err;
    size_t errlen;
    int failed;
};

static void jfail(struct jp *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void jfail(struct jp *P, const char *fmt, ...)
{
    if (P->failed)
        return;
    P->failed = 1;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(P->err, P->errlen, "%s at byte %zu", msg, P->pos);
}

static void skip_ws(struct jp *P)
{
    while (P->pos < P->len && (P->s[P->pos] == ' ' || P->s[P->pos] == '\t' ||
                               P->s[P->pos] == '\n' || P->s[P->pos] == '\r'))
        P->pos++;
}

static int peek(struct jp *P)
{
    return P->pos < P->len ? P->s[P->pos] : -1;
}

static void put_utf8(struct strbuf *sb, unsigned cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6)), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18)), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    strbuf_add(sb, b, n);
}

/* one well-formed UTF-8 sequence starting at P->pos (no overlongs, no
 * surrogates, <= U+10FFFF); returns its length or 0 */
static size_t utf8_seq(struct jp *P)
{
    const unsigned char *c = P->s + P->pos;
    size_t left = P->len - P->pos;
    if (c[0] < 0x80)
        return 1;
    size_t n;
    unsigned cp, min;
    if ((c[0] & 0xE0) == 0xC0)
        n = 2, cp = c[0] & 0x1F, min = 0x80;
    else if ((c[0] & 0xF0) == 0xE0)
        n = 3, cp = c[0] & 0x0F, min = 0x800;
    else if ((c[0] & 0xF8) == 0xF0)
        n = 4, cp = c[0] & 0x07, min = 0x10000;
    else
        return 0;
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((c[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (c[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static int hex4(struct jp *P, unsigned *out)
{
    if (P->len - P->pos < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int c = P->s[P->pos + (size_t)i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    P->pos += 4;
    *out = v;
    return 0;
}

static char *parse_string(struct jp *P)
{
    struct strbuf sb = STRBUF_INIT;
    P->pos++; /* opening quote */
    for (;;) {
        if (P->pos >= P->len) {
            jfail(P, "unterminated string");
            break;
        }
        unsigned char c = P->s[P->pos];
        if (c == '"') {
            P->pos++;
            if (!sb.buf)
                strbuf_adds(&sb, "");
            return strbuf_detach(&sb);
        }
        if (c < 0x20) {
            jfail(P, "control character in a string");
            break;
        }
        if (c == '\\') {
            P->pos++;
            int e = peek(P);
            P->pos++;
            unsigned cp;
            switch (e) {
            case '"':
                strbuf_addc(&sb, '"');
                continue;
            case '\\':
                strbuf_addc(&sb, '\\');
                continue;
            case '/':
                strbuf_addc(&sb, '/');
                continue;
            case 'b':
                strbuf_addc(&sb, '\b');
                continue;
            case 'f':
                strbuf_addc(&sb, '\f');
                continue;
            case 'n':
                strbuf_addc(&sb, '\n');
                continue;
            case 'r':
                strbuf_addc(&sb, '\r');
                continue;
            case 't':
                strbuf_addc(&sb, '\t');
                continue;
            case 'u':
                if (hex4(P, &cp)) {
                    jfail(P, "bad \\u escape");
                    break;
                }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;
                    if (P->len - P->pos < 2 || P->s[P->pos] != '\\' || P->s[P->pos + 1] != 'u') {
                        jfail(P, "unpaired surrogate in \\u escape");
                        break;
                    }
                    P->pos += 2;
                    if (hex4(P, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                        jfail(P, "unpaired surrogate in \\u escape");
                        break;
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    jfail(P, "unpaired surrogate in \\u escape");
                    break;
                }
                if (cp == 0) {
                    jfail(P, "NUL character in a string");
                    break;
                }
                put_utf8(&sb, cp);
                continue;
            default:
                P->pos--;
                jfail(P, "bad escape in a string");
                break;
            }
            break;
        }
        size_t n = utf8_seq(P);
        if (!n) {
            jfail(P, "invalid UTF-8 in a string");
            break;
        }
        strbuf_add(&sb, (const char *)P->s + P->pos, n);
        P->pos += n;
    }
    strbuf_release(&sb);
    return NULL;
}

static void parse_number(struct jp *P, struct json *j)
{
    size_t start = P->pos;
    if (peek(P) == '-')
        P->pos++;
    if (peek(P) == '0') {
        P->pos++;
    } else if (peek(P) >= '1' && peek(P) <= '9') {
        while (peek(P) >= '0' && peek(P) <= '9')
            P->pos++;
    } else {
        jfail(P, "bad number");
        return;
    }
    if (peek(P) == '.') {
        P->pos++;
        if (!(peek(P) >= '0' && peek(P) <= '9')) {
            jfail(P, "bad number");
            return;
        }
        while (peek(P) >= '0' && peek(P) <= '9')
            P->pos++;
    }
    if (peek(P) == 'e' || peek(P) == 'E') {
        P->pos++;
        if (peek(P) == '+' || peek(P) == '-')
            P->pos++;
        if (!(peek(P) >= '0' && peek(P) <= '9')) {
            jfail(P, "bad number");
            return;
        }
        while (peek(P) >= '0' && peek(P) <= '9')
            P->pos++;
    }
    j->type = JSON_NUM;
    j->num_text = (const char *)P->s + start;
    j->num_len = P->pos - start;
    if (j->num_len > JSON_MAX_NUMBER) {
        P->pos = start;
        jfail(P, "number longer than %d characters", JSON_MAX_NUMBER);
        return;
    }
    char buf[JSON_MAX_NUMBER + 1];
    memcpy(buf, j->num_text, j->num_len);
    buf[j->num_len] = 0;
    errno = 0;
    j->num = strtod(buf, NULL);
    /* underflow to 0 or a denormal is a value; overflow is not */
    if (!isfinite(j->num)) {
        P->pos = start;
        jfail(P, "number out of range");
    }
}

static int literal(struct jp *P, const char *word)
{
    size_t n = strlen(word);
    if (P->len - P->pos >= n && memcmp(P->s + P->pos, word, n) == 0) {
        P->pos += n;
        return 1;
    }
    return 0;
}

static struct json *parse_value(struct jp *P, int depth);

/* A keyed hash: the key is random per process, so a document cannot be
 * crafted to make every key collide (which would make parsing quadratic
 * again). 8 bytes at a time, multiply-xorshift, a final avalanche. */
static uint64_t hash_seed;

static uint64_t key_hash(const char *k)
{
    if (!hash_seed) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid() ^
                     (uint64_t)(uintptr_t)&ts;
        hash_seed = s | 1;
    }
    uint64_t h = hash_seed;
    size_t n = strlen(k);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, k + i, n - i < 8 ? n - i : 8);
        h ^= w;
        h *= 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    h ^= n;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* the slot of key in obj's index: the one holding it, or the empty one
 * where it would go */
static size_t *slot_of(const struct json *obj, const char *key)
{
    size_t mask = obj->nslots - 1;
    for (size_t i = (size_t)key_hash(key) & mask;; i = (i + 1) & mask) {
        size_t *s = &obj->slots[i];
        if (!*s || strcmp(obj->keys[*s - 1], key) == 0)
            return s;
    }
}

static void index_grow(struct json *j)
{
    size_t n = j->nslots ? j->nslots * 2 : 16;
    free(j->slots);
    j->slots = xcalloc(n, sizeof(*j->slots));
    j->nslots = n;
    for (size_t i = 0; i < j->n; i++)
        *slot_of(j, j->keys[i]) = i + 1;
}

/* 0, or -1 when obj already has key */
static int index_add(struct json *j, const char *key)
{
    if (2 * (j->n + 1) > j->nslots)
        index_grow(j);
    size_t *s = slot_of(j, key);
    if (*s)
        return -1;
    *s = j->n + 1; /* the item add_item is about to append */
    return 0;
}

static void add_item(struct json *j, struct json *v, char *key, size_t *cap)
{
    if (j->n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        j->items = xrealloc(j->items, *cap * sizeof(*j->items));
        if (j->type == JSON_OBJ)
            j->keys = xrealloc(j->keys, *cap * sizeof(*j->keys));
    }
    j->items[j->n] = v;
    if (j->type == JSON_OBJ)
        j->keys[j->n] = key;
    j->n++;
}

static void parse_container(struct jp *P, struct json *j, int depth)
{
    int obj = peek(P) == '{';
    char close = obj ? '}' : ']';
    j->type = obj ? JSON_OBJ : JSON_ARR;
    if (depth >= JSON_MAX_DEPTH) {
        jfail(P, "nesting deeper than %d levels", JSON_MAX_DEPTH);
        return;
    }
    P->pos++;
    size_t cap = 0;
    skip_ws(P);
    if (peek(P) == close) {
        P->pos++;
        return;
    }
    for (;;) {
        char *key = NULL;
        if (obj) {
            skip_ws(P);
            if (peek(P) != '"') {
                jfail(P, "expected a string key");
                return;
            }
            key = parse_string(P);
            if (!key)
                return;
            if (index_add(j, key)) {
                jfail(P, "duplicate key '%.60s'", key);
                free(key);
                return;
            }
            skip_ws(P);
            if (peek(P) != ':') {
                jfail(P, "expected ':'");
                free(key);
                return;
            }
            P->pos++;
        }
        struct json *v = parse_value(P, depth + 1);
        if (!v) {
            free(key);
            return;
        }
        add_item(j, v, key, &cap);
        skip_ws(P);
        int c = peek(P);
        if (c == ',') {
            P->pos++;
            continue;
        }
        if (c == close) {
            P->pos++;
            return;
        }
        jfail(P, "expected ',' or '%c'", close);
        return;
    }
}

static struct json *parse_value(struct jp *P, int depth)
{
    skip_ws(P);
    struct json *j = xcalloc(1, sizeof(*j));
    int c = peek(P);
    if (c == '{' || c == '[') {
        parse_container(P, j, depth);
    } else if (c == '"') {
        j->type = JSON_STR;
        j->str = parse_string(P);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        parse_number(P, j);
    } else if (literal(P, "true")) {
        j->type = JSON_BOOL, j->b = 1;
    } else if (literal(P, "false")) {
        j->type = JSON_BOOL;
    } else if (literal(P, "null")) {
        j->type = JSON_NULL;
    } else {
        jfail(P, c < 0 ? "unexpected end of input" : "unexpected character");
    }
    if (P->failed) {
        json_free(j);
        return NULL;
    }
    return j;
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    struct jp P = {(const unsigned char *)text, len, 0, err, errlen, 0};
    if (errlen)
        err[0] = 0;
    struct json *j = parse_value(&P, 0);
    if (!j)
        return NULL;
    skip_ws(&P);
    if (P.pos != P.len) {
        jfail(&P, "trailing data after the JSON value");
        json_free(j);
        return NULL;
    }
    return j;
}

void json_free(struct json *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++) {
        json_free(j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->slots);
    free(j->str);
    free(j);
}

const struct json *json_get(const struct json *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJ || !obj->nslots)
        return NULL;
    size_t s = *slot_of(obj, key);
    return s ? obj->items[s - 1] : NULL;
}

int json_u64(const struct json *j, unsigned long long *out)
{
    if (!j || j->type != JSON_NUM || j->num_len == 0 || j->num_len > 16)
        return -1;
    unsigned long long v = 0;
    for (size_t i = 0; i < j->num_len; i++) {
        char c = j->num_text[i];
        if (c < '0' || c > '9')
            return -1; /* negative, fraction or exponent */
        v = v * 10 + (unsigned long long)(c - '0');
    }
    if (v > (1ULL << 53))
        return -1;
    *out = v;
    return 0;
}
