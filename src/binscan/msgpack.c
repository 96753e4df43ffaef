/* msgpack.c - see msgpack.h */
#include "msgpack.h"

#include <string.h>

#define MP_DEPTH_MAX 64

static int take(struct mp_reader *r, size_t k, const unsigned char **out)
{
    if (r->pos > r->n || r->n - r->pos < k)
        return -1;
    *out = r->p + r->pos;
    r->pos += k;
    return 0;
}

/* a big-endian unsigned integer of k bytes (1, 2, 4, 8) */
static int be(struct mp_reader *r, size_t k, uint64_t *out)
{
    const unsigned char *q;
    if (take(r, k, &q))
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < k; i++)
        x = x << 8 | q[i];
    *out = x;
    return 0;
}

/* a payload of len bytes (str, bin, ext) */
static int payload(struct mp_reader *r, struct mp_value *v, enum mp_type t, uint64_t len)
{
    v->type = t;
    v->len = len;
    return take(r, (size_t)len, &v->data) || len > SIZE_MAX ? -1 : 0;
}

static int sized(struct mp_reader *r, struct mp_value *v, enum mp_type t, size_t k)
{
    uint64_t len;
    if (be(r, k, &len))
        return -1;
    if (t == MP_ARRAY || t == MP_MAP) {
        v->type = t;
        v->len = len;
        return 0;
    }
    return payload(r, v, t, len);
}

static int sint(struct mp_reader *r, struct mp_value *v, size_t k)
{
    uint64_t x;
    if (be(r, k, &x))
        return -1;
    unsigned bits = (unsigned)k * 8;
    /* sign-extend without shifting into the sign bit */
    if (bits < 64 && (x >> (bits - 1)) & 1)
        x |= ~(uint64_t)0 << bits;
    v->type = MP_INT;
    memcpy(&v->i, &x, sizeof(x));
    return 0;
}

static int ext(struct mp_reader *r, struct mp_value *v, uint64_t len)
{
    const unsigned char *t;
    return take(r, 1, &t) ? -1 : payload(r, v, MP_EXT, len); /* type byte, then data */
}

int mp_next(struct mp_reader *r, struct mp_value *v)
{
    memset(v, 0, sizeof(*v));
    const unsigned char *q;
    if (take(r, 1, &q))
        return -1;
    unsigned c = *q;
    uint64_t x;
    if (c <= 0x7f || c >= 0xe0) {
        v->type = c <= 0x7f ? MP_UINT : MP_INT;
        v->u = c;
        v->i = c <= 0x7f ? (int64_t)c : (int64_t)c - 256;
        return 0;
    }
    if (c >= 0x80 && c <= 0x8f) {
        v->type = MP_MAP;
        v->len = c & 0x0f;
        return 0;
    }
    if (c >= 0x90 && c <= 0x9f) {
        v->type = MP_ARRAY;
        v->len = c & 0x0f;
        return 0;
    }
    if (c >= 0xa0 && c <= 0xbf)
        return payload(r, v, MP_STR, c & 0x1f);
    /* the sized forms: a big-endian length of k bytes, then the payload
     * (bin, str) or the elements (array, map) */
    static const struct {
        unsigned char first, last, type, k0;
    } forms[] = {{0xc4, 0xc6, MP_BIN, 1},
                 {0xd9, 0xdb, MP_STR, 1},
                 {0xdc, 0xdd, MP_ARRAY, 2},
                 {0xde, 0xdf, MP_MAP, 2}};
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
        if (c >= forms[f].first && c <= forms[f].last)
            return sized(r, v, (enum mp_type)forms[f].type,
                         (size_t)forms[f].k0 << (c - forms[f].first));
    switch (c) {
    case 0xc0:
        v->type = MP_NIL;
        return 0;
    case 0xc2:
    case 0xc3:
        v->type = MP_BOOL;
        v->u = c == 0xc3;
        return 0;
    case 0xc7:
        return be(r, 1, &x) ? -1 : ext(r, v, x);
    case 0xc8:
        return be(r, 2, &x) ? -1 : ext(r, v, x);
    case 0xc9:
        return be(r, 4, &x) ? -1 : ext(r, v, x);
    case 0xca: {
        uint32_t w;
        float f;
        if (be(r, 4, &x))
            return -1;
        w = (uint32_t)x;
        memcpy(&f, &w, sizeof(f));
        v->type = MP_FLOAT;
        v->f = f;
        return 0;
    }
    case 0xcb:
        if (be(r, 8, &x))
            return -1;
        v->type = MP_FLOAT;
        memcpy(&v->f, &x, sizeof(x));
        return 0;
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
        v->type = MP_UINT;
        return be(r, (size_t)1 << (c - 0xcc), &v->u);
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3:
        return sint(r, v, (size_t)1 << (c - 0xd0));
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
        return ext(r, v, (uint64_t)1 << (c - 0xd4));
    default:
        return -1; /* 0xc1: never used */
    }
}

static int skip_depth(struct mp_reader *r, int depth)
{
    struct mp_value v;
    if (depth > MP_DEPTH_MAX || mp_next(r, &v))
        return -1;
    if (v.type != MP_ARRAY && v.type != MP_MAP)
        return 0;
    /* each element is at least one byte: a count beyond the bytes left is
     * corrupt (and would otherwise loop for 2^32 elements) */
    uint64_t k = v.type == MP_MAP ? v.len * 2 : v.len;
    if (v.len > r->n - r->pos || k > r->n - r->pos)
        return -1;
    for (uint64_t i = 0; i < k; i++)
        if (skip_depth(r, depth + 1))
            return -1;
    return 0;
}

int mp_skip(struct mp_reader *r)
{
    return skip_depth(r, 0);
}

int mp_str_is(const struct mp_value *v, const char *s)
{
    size_t n = strlen(s);
    return v->type == MP_STR && v->len == n && memcmp(v->data, s, n) == 0;
}

int mp_as_u64(const struct mp_value *v, uint64_t *out)
{
    if (v->type == MP_UINT) {
        *out = v->u;
        return 0;
    }
    if (v->type == MP_INT && v->i >= 0) {
        *out = (uint64_t)v->i;
        return 0;
    }
    return -1;
}
