/* safetensors.c - see safetensors.h. A corrupt file is an error naming the
 * offending tensor or field, never a crash: the header length is checked
 * against the file before anything is read, the JSON parser is strict and
 * bounded, and every tensor's bytes are checked to lie inside the buffer. */
#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/tmpdirs.h"
#include "../core/util.h"
#include "../core/json_out.h"

/* a header larger than this is not a header (the reference caps it at 100 MB) */
#define ST_MAX_HEADER (100u << 20)

static const struct {
    const char *name;
    unsigned size;
} dtypes[] = {{"F32", 4}, {"F16", 2}, {"BF16", 2}};

static int cmp_begin(const void *a, const void *b)
{
    const struct st_tensor *x = *(const struct st_tensor *const *)a;
    const struct st_tensor *y = *(const struct st_tensor *const *)b;
    return x->begin < y->begin   ? -1
           : x->begin > y->begin ? 1
                                 : (x->end > y->end) - (x->end < y->end);
}

static int parse_tensor(struct st_file *f, const char *what, const char *name, const struct json *v,
                        struct st_tensor *t)
{
    if (v->type != JSON_OBJ)
        return error("%s: tensor '%s': entry is not an object", what, name);
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], "dtype") && strcmp(v->keys[i], "shape") &&
            strcmp(v->keys[i], "data_offsets"))
            return error("%s: tensor '%s': unknown field '%s'", what, name, v->keys[i]);
    const struct json *dt = json_get(v, "dtype");
    if (!dt || dt->type != JSON_STR)
        return error("%s: tensor '%s': missing or non-string 'dtype'", what, name);
    size_t k;
    for (k = 0; k < ARRAY_SIZE(dtypes); k++)
        if (strcmp(dt->str, dtypes[k].name) == 0)
            break;
    if (k == ARRAY_SIZE(dtypes))
        return error("%s: tensor '%s': dtype '%.40s' is not supported (F32, F16 or BF16)", what,
                     name, dt->str);
    t->dtype = (enum st_dtype)k;
    const struct json *sh = json_get(v, "shape");
    if (!sh || sh->type != JSON_ARR)
        return error("%s: tensor '%s': missing or non-list 'shape'", what, name);
    if (sh->n > ST_MAX_DIMS)
        return error("%s: tensor '%s': shape has %zu dimensions (at most %d)", what, name, sh->n,
                     ST_MAX_DIMS);
    t->ndim = (int)sh->n;
    t->nelem = 1;
    for (size_t i = 0; i < sh->n; i++) {
        unsigned long long d;
        if (json_u64(sh->items[i], &d))
            return error("%s: tensor '%s': shape[%zu] is not a non-negative integer", what, name,
                         i);
        t->shape[i] = d;
        if (d && t->nelem > (1ULL << 53) / d)
            return error("%s: tensor '%s': shape is too large", what, name);
        t->nelem *= d;
    }
    const struct json *off = json_get(v, "data_offsets");
    unsigned long long b, e;
    if (!off || off->type != JSON_ARR || off->n != 2 || json_u64(off->items[0], &b) ||
        json_u64(off->items[1], &e))
        return error("%s: tensor '%s': 'data_offsets' must be [begin, end] integers", what, name);
    if (b > e)
        return error("%s: tensor '%s': data_offsets [%llu, %llu] end before they begin", what, name,
                     b, e);
    if (e > f->data_len)
        return error("%s: tensor '%s': data_offsets [%llu, %llu] lie beyond the data buffer "
                     "(%llu bytes)",
                     what, name, b, e, (unsigned long long)f->data_len);
    if (e - b != t->nelem * dtypes[k].size)
        return error("%s: tensor '%s': %llu bytes for %llu elements of %s", what, name, e - b,
                     (unsigned long long)t->nelem, dtypes[k].name);
    t->begin = b;
    t->end = e;
    return 0;
}

static int parse_meta(struct st_file *f, const char *what, const struct json *v)
{
    if (v->type != JSON_OBJ)
        return error("%s: '__metadata__' is not an object", what);
    f->meta_keys = xcalloc(v->n ? v->n : 1, sizeof(char *));
    f->meta_vals = xcalloc(v->n ? v->n : 1, sizeof(char *));
    for (size_t i = 0; i < v->n; i++) {
        if (v->items[i]->type != JSON_STR)
            return error("%s: __metadata__ '%s' is not a string", what, v->keys[i]);
        f->meta_keys[i] = xstrdup(v->keys[i]);
        f->meta_vals[i] = xstrdup(v->items[i]->str);
        f->nmeta++;
    }
    return 0;
}

int st_parse(struct st_file *f, const char *what, const unsigned char *buf, size_t len)
{
    if (len < 8)
        return error("%s: %zu bytes: too short for a safetensors header length", what, len);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | buf[i];
    if (hlen < 2)
        return error("%s: header length %llu is too small", what, (unsigned long long)hlen);
    if (hlen > ST_MAX_HEADER)
        return error("%s: header length %llu exceeds %u bytes", what, (unsigned long long)hlen,
                     ST_MAX_HEADER);
    if (hlen > len - 8)
        return error("%s: header length %llu runs beyond the end of the file (%zu bytes)", what,
                     (unsigned long long)hlen, len);
    f->data = buf + 8 + hlen;
    f->data_len = len - 8 - hlen;
    /* the writer pads the header with trailing spaces, which JSON allows */
    char err[200];
    struct json *root = json_parse((const char *)buf + 8, (size_t)hlen, err, sizeof(err));
    if (!root)
        return error("%s: header is not valid JSON: %s", what, err);
    int rc = 0;
    if (root->type != JSON_OBJ) {
        rc = error("%s: header is not a JSON object", what);
        goto out;
    }
    f->t = xcalloc(root->n ? root->n : 1, sizeof(*f->t));
    for (size_t i = 0; i < root->n && !rc; i++) {
        if (strcmp(root->keys[i], "__metadata__") == 0) {
            rc = parse_meta(f, what, root->items[i]);
            continue;
        }
        if (!root->keys[i][0]) {
            rc = error("%s: a tensor has an empty name", what);
            break;
        }
        struct st_tensor *t = &f->t[f->n];
        rc = parse_tensor(f, what, root->keys[i], root->items[i], t);
        if (!rc) {
            t->name = xstrdup(root->keys[i]);
            f->n++;
        }
    }
    if (rc)
        goto out;
    /* no overlaps and no holes: sorted by offset, each tensor starts where
     * the previous one ended and the last ends at the end of the buffer */
    struct st_tensor **order = xcalloc(f->n ? f->n : 1, sizeof(*order));
    for (size_t i = 0; i < f->n; i++)
        order[i] = &f->t[i];
    qsort(order, f->n, sizeof(*order), cmp_begin);
    uint64_t at = 0;
    for (size_t i = 0; i < f->n && !rc; i++) {
        if (order[i]->begin < at)
            rc = error("%s: tensor '%s' (bytes %llu..%llu) overlaps tensor '%s'", what,
                       order[i]->name, (unsigned long long)order[i]->begin,
                       (unsigned long long)order[i]->end, order[i - 1]->name);
        else if (order[i]->begin > at)
            rc = error("%s: %llu unused bytes before tensor '%s'", what,
                       (unsigned long long)(order[i]->begin - at), order[i]->name);
        at = order[i]->end;
    }
    if (!rc && at != f->data_len)
        rc = error("%s: the tensors cover %llu of the %llu data bytes", what,
                   (unsigned long long)at, (unsigned long long)f->data_len);
    free(order);
out:
    json_free(root);
    return rc;
}

int st_open(struct st_file *f, const char *path)
{
    memset(f, 0, sizeof(*f));
    f->path = xstrdup(path);
    /* O_NONBLOCK: a FIFO without a writer would block the open itself */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return error("cannot open weights '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return error("weights '%s': %s", path, user_file_strerror(-USER_FILE_NOT_REGULAR));
    }
    f->map_len = (size_t)st.st_size;
    if (f->map_len) {
        f->map = mmap(NULL, f->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (f->map == MAP_FAILED) {
            f->map = NULL;
            close(fd);
            return error("cannot map weights '%s': %s", path, strerror(errno));
        }
    }
    close(fd);
    return st_parse(f, path, f->map ? f->map : (const unsigned char *)"", f->map_len);
}

void st_close(struct st_file *f)
{
    if (f->map)
        munmap(f->map, f->map_len);
    for (size_t i = 0; i < f->n; i++)
        free(f->t[i].name);
    free(f->t);
    for (size_t i = 0; i < f->nmeta; i++) {
        free(f->meta_keys[i]);
        free(f->meta_vals[i]);
    }
    free(f->meta_keys);
    free(f->meta_vals);
    free(f->path);
    memset(f, 0, sizeof(*f));
}

const struct st_tensor *st_find(const struct st_file *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->t[i].name, name) == 0)
            return &f->t[i];
    return NULL;
}

const char *st_meta(const struct st_file *f, const char *key)
{
    for (size_t i = 0; i < f->nmeta; i++)
        if (strcmp(f->meta_keys[i], key) == 0)
            return f->meta_vals[i];
    return NULL;
}

float st_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
}

float st_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, u;
    if (exp == 0) {
        if (!man) {
            u = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) {
                man <<= 1;
                exp--;
            }
            u = sign | (exp << 23) | ((man & 0x3FF) << 13);
        }
    } else if (exp == 31) {
        u = sign | 0x7F800000u | (man << 13);
    } else {
        u = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float x;
    memcpy(&x, &u, 4);
    return x;
}

void st_to_f32(const struct st_file *f, const struct st_tensor *t, float *out)
{
    const unsigned char *p = f->data + t->begin;
    for (uint64_t i = 0; i < t->nelem; i++) {
        if (t->dtype == ST_F32) {
            uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                         (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
            memcpy(&out[i], &u, 4);
        } else {
            uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
            out[i] = t->dtype == ST_BF16 ? st_bf16_to_f32(h) : st_f16_to_f32(h);
        }
    }
}

int st_write(const char *path, const struct st_wtensor *t, size_t n, const char *const *meta_kv,
             size_t nmeta)
{
    struct strbuf h = STRBUF_INIT;
    strbuf_addc(&h, '{');
    if (nmeta) {
        strbuf_adds(&h, "\"__metadata__\":{");
        for (size_t i = 0; i < nmeta; i++) {
            if (i)
                strbuf_addc(&h, ',');
            json_str(&h, meta_kv[2 * i]);
            strbuf_addc(&h, ':');
            json_str(&h, meta_kv[2 * i + 1]);
        }
        strbuf_addc(&h, '}');
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t ne = 1;
        if (nmeta || i)
            strbuf_addc(&h, ',');
        json_str(&h, t[i].name);
        strbuf_adds(&h, ":{\"dtype\":\"F32\",\"shape\":[");
        for (int d = 0; d < t[i].ndim; d++) {
            strbuf_addf(&h, "%s%llu", d ? "," : "", (unsigned long long)t[i].shape[d]);
            ne *= t[i].shape[d];
        }
        strbuf_addf(&h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)at,
                    (unsigned long long)(at + 4 * ne));
        at += 4 * ne;
    }
    strbuf_addc(&h, '}');
    while (h.len % 8) /* keep the data buffer 8-byte aligned */
        strbuf_addc(&h, ' ');
    char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
    /* removed also when the run is killed (tmpdirs.h) */
    int fd = tmpdirs_open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!fp) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
            tmpdirs_forget_file(tmp);
        }
        free(tmp);
        strbuf_release(&h);
        return error("cannot write '%s': %s", path, strerror(e));
    }
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)((uint64_t)h.len >> (8 * i));
    fwrite(len8, 1, 8, fp);
    fwrite(h.buf, 1, h.len, fp);
    for (size_t i = 0; i < n; i++) {
        uint64_t ne = 1;
        for (int d = 0; d < t[i].ndim; d++)
            ne *= t[i].shape[d];
        /* little-endian hosts only write the floats as they are in memory */
        fwrite(t[i].data, 4, (size_t)ne, fp);
    }
    int bad = ferror(fp);
    bad |= fclose(fp) != 0;
    strbuf_release(&h);
    if (bad || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        tmpdirs_forget_file(tmp);
        free(tmp);
        return error("cannot write '%s': %s", path, strerror(e));
    }
    tmpdirs_forget_file(tmp);
    free(tmp);
    return 0;
}
