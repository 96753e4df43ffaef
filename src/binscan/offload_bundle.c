/* offload_bundle.c - clang offload bundles in HIP libraries (see
 * offload_bundle.h for the formats). */
#include "offload_bundle.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "elf_reader.h"

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define BUNDLE_MAGIC_LEN 24
#define CCOB_MAGIC "CCOB"
#define CCOB_MAGIC_LEN 4
/* the entry ids sit at the start of a decompressed bundle; 1 MiB holds
 * thousands of them, so decompressing more is never needed */
#define CCOB_PREFIX_MAX (1u << 20)

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

void offload_scan_release(struct offload_scan *s)
{
    strlist_release(&s->targets);
    strset_release(&s->seen);
    free(s->unknown_why);
    memset(s, 0, sizeof(*s));
}

static void add_target(struct offload_scan *s, const char *id, size_t n)
{
    char *t = offload_target_from_id(id, n);
    if (t)
        strlist_add_unique_owned(&s->targets, &s->seen, t); /* sorted once, at the end */
}

static void note_unknown(struct offload_scan *s, char *why)
{
    s->unknown++;
    if (!s->unknown_why)
        s->unknown_why = why;
    else
        free(why);
}

/* ---- target ids -------------------------------------------------------- */

char *offload_target_from_id(const char *id, size_t n)
{
    char *s = xstrndup(id, n);
    char *r = NULL;
    char *t = strstr(s, "amdgcn-amd-amdhsa");
    if (strstr(s, "spirv64-amd-amdhsa")) {
        r = xstrdup("amdgcnspirv"); /* JIT-compiled for whatever GPU is present */
    } else if (t) {
        t += strlen("amdgcn-amd-amdhsa");
        while (*t == '-')
            t++;
        if (str_starts(t, "gfx"))
            r = xstrdup(t);
    } else if (str_starts(s, "gfx")) {
        r = xstrdup(s);
    }
    free(s);
    return r;
}

char *offload_target_processor(const char *target)
{
    return xstrndup(target, strcspn(target, ":"));
}

/* generic processors and the processors they run on. Source: LLVM
 * AMDGPUUsage "Generic processors" and ROCm clr's generic-target map. */
static const struct {
    const char *generic;
    const char *members[9];
} generics[] = {
    {"gfx9-generic", {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}},
    {"gfx9-4-generic", {"gfx940", "gfx941", "gfx942", "gfx950"}},
    {"gfx10-1-generic", {"gfx1010", "gfx1011", "gfx1012", "gfx1013"}},
    {"gfx10-3-generic",
     {"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"}},
    {"gfx11-generic",
     {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"}},
    {"gfx12-generic", {"gfx1200", "gfx1201"}},
};

static int processor_covers(const char *code, const char *dev)
{
    if (strcmp(code, dev) == 0)
        return 1;
    for (size_t i = 0; i < ARRAY_SIZE(generics); i++) {
        if (strcmp(code, generics[i].generic) != 0)
            continue;
        for (size_t j = 0; j < ARRAY_SIZE(generics[i].members) && generics[i].members[j]; j++)
            if (strcmp(generics[i].members[j], dev) == 0)
                return 1;
    }
    return 0;
}

/* the sign ('+' or '-') of `feature` in a target id, 0 when not stated */
static char feature_sign(const char *target, const char *feature)
{
    size_t fl = strlen(feature);
    for (const char *p = strchr(target, ':'); p; p = strchr(p + 1, ':')) {
        if (strncmp(p + 1, feature, fl) == 0 && (p[1 + fl] == '+' || p[1 + fl] == '-'))
            return p[1 + fl];
    }
    return 0;
}

int offload_target_matches(const char *code, const char *device)
{
    if (strcmp(code, "amdgcnspirv") == 0)
        return 1;
    char *c = offload_target_from_id(code, strlen(code));
    char *d = offload_target_from_id(device, strlen(device));
    int ok = 0;
    if (c && d) {
        char *cp = offload_target_processor(c), *dp = offload_target_processor(d);
        ok = processor_covers(cp, dp);
        static const char *const features[] = {"sramecc", "xnack"};
        for (size_t i = 0; ok && i < ARRAY_SIZE(features); i++) {
            char cs = feature_sign(c, features[i]), ds = feature_sign(d, features[i]);
            if (cs && ds && cs != ds)
                ok = 0;
        }
        free(cp);
        free(dp);
    }
    free(c);
    free(d);
    return ok;
}

void offload_tensile_targets(const char *name, struct strlist *out)
{
    /* out may hold targets of earlier names already */
    struct strset seen = STRSET_INIT;
    strset_add_list(&seen, out);
    for (const char *p = strstr(name, "gfx"); p; p = strstr(p + 1, "gfx")) {
        if (p != name && isalnum((unsigned char)p[-1]))
            continue;
        size_t n = 3;
        while (isxdigit((unsigned char)p[n]))
            n++;
        if (n < 6 || isalnum((unsigned char)p[n])) /* gfx + at least 3 digits */
            continue;
        char *t = xstrndup(p, n);
        for (char *q = t; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        strlist_add_unique_owned(out, &seen, t);
    }
    strset_release(&seen);
}

/* ---- plain bundles ----------------------------------------------------- */

/* Parse the header of a plain bundle at p (avail readable bytes; the bundle's
 * data may extend to `limit` bytes from p, which is >= avail for a
 * decompressed prefix). Adds target ids; *end = the end of the bundle's
 * data relative to p. */
static int parse_bundle(const unsigned char *p, size_t avail, uint64_t limit, const char *what,
                        struct offload_scan *s, uint64_t *end, char **err)
{
    if (avail < BUNDLE_MAGIC_LEN + 8) {
        *err = xasprintf("%s: offload bundle header truncated", what);
        return -EINVAL;
    }
    uint64_t count = rd64(p + BUNDLE_MAGIC_LEN);
    size_t pos = BUNDLE_MAGIC_LEN + 8;
    /* each entry needs at least 24 bytes of header: a huge count is corrupt */
    if (count > (avail - pos) / 24) {
        *err = xasprintf("%s: offload bundle claims %llu entries, more than its %zu bytes can hold",
                         what, (unsigned long long)count, avail);
        return -EINVAL;
    }
    uint64_t e = pos;
    for (uint64_t i = 0; i < count; i++) {
        if (avail - pos < 24) {
            *err = xasprintf("%s: offload bundle entry %llu header truncated", what,
                             (unsigned long long)i);
            return -EINVAL;
        }
        uint64_t off = rd64(p + pos), size = rd64(p + pos + 8), idlen = rd64(p + pos + 16);
        pos += 24;
        if (idlen > avail - pos) {
            *err = xasprintf("%s: offload bundle entry %llu id length %llu beyond the section",
                             what, (unsigned long long)i, (unsigned long long)idlen);
            return -EINVAL;
        }
        const char *id = (const char *)p + pos;
        pos += idlen;
        if (off > limit || size > limit - off) {
            *err = xasprintf("%s: offload bundle entry '%.*s' (offset %llu, size %llu) lies "
                             "beyond the section (%llu bytes left)",
                             what, (int)(idlen > 200 ? 200 : idlen), id, (unsigned long long)off,
                             (unsigned long long)size, (unsigned long long)limit);
            return -EINVAL;
        }
        if (off + size > e)
            e = off + size;
        add_target(s, id, (size_t)idlen);
    }
    if (pos > e)
        e = pos;
    *end = e;
    return 0;
}

/* ---- compressed bundles ------------------------------------------------ */

/* libzstd's streaming API, dlopen'ed: only what is used (zstd.h, v1.3+) */
typedef struct {
    const void *src;
    size_t size, pos;
} zstd_in;
typedef struct {
    void *dst;
    size_t size, pos;
} zstd_out;

static int zstd_prefix(const unsigned char *src, size_t n, unsigned char *dst, size_t cap,
                       size_t *got, char **why)
{
    static void *lib;
    static void *(*create)(void);
    static size_t (*freectx)(void *);
    static size_t (*stream)(void *, zstd_out *, zstd_in *);
    static unsigned (*iserr)(size_t);
    static const char *(*errname)(size_t);
    if (!lib) {
        lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            *why = xstrdup("zstd-compressed bundle, targets unknown: libzstd.so.1 not found");
            return -ENOENT;
        }
        *(void **)&create = dlsym(lib, "ZSTD_createDStream");
        *(void **)&freectx = dlsym(lib, "ZSTD_freeDStream");
        *(void **)&stream = dlsym(lib, "ZSTD_decompressStream");
        *(void **)&iserr = dlsym(lib, "ZSTD_isError");
        *(void **)&errname = dlsym(lib, "ZSTD_getErrorName");
    }
    if (!create || !freectx || !stream || !iserr || !errname) {
        *why =
            xstrdup("zstd-compressed bundle, targets unknown: libzstd.so.1 lacks the stream API");
        return -ENOSYS;
    }
    void *ctx = create();
    if (!ctx) {
        *why = xstrdup("zstd-compressed bundle, targets unknown: out of memory");
        return -ENOMEM;
    }
    zstd_in in = {src, n, 0};
    zstd_out out = {dst, cap, 0};
    int rc = 0;
    while (out.pos < out.size && in.pos < in.size) {
        size_t r = stream(ctx, &out, &in);
        if (iserr(r)) {
            *why = xasprintf("zstd-compressed bundle, targets unknown: %s", errname(r));
            rc = -EINVAL;
            break;
        }
        if (r == 0)
            break; /* frame complete */
    }
    freectx(ctx);
    *got = out.pos;
    return rc;
}

static int zlib_prefix(const unsigned char *src, size_t n, unsigned char *dst, size_t cap,
                       size_t *got, char **why)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit(&z) != Z_OK) {
        *why = xstrdup("zlib-compressed bundle, targets unknown: inflateInit failed");
        return -ENOMEM;
    }
    int rc = 0;
    size_t in_done = 0;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    while (z.avail_out > 0) {
        size_t chunk = n - in_done > (1u << 30) ? (1u << 30) : n - in_done;
        z.next_in = (Bytef *)(src + in_done);
        z.avail_in = (uInt)chunk;
        int r = inflate(&z, Z_NO_FLUSH);
        in_done += chunk - z.avail_in;
        if (r == Z_STREAM_END)
            break;
        if (r != Z_OK && r != Z_BUF_ERROR) {
            *why = xasprintf("zlib-compressed bundle, targets unknown: %s",
                             z.msg ? z.msg : "inflate failed");
            rc = -EINVAL;
            break;
        }
        if (r == Z_BUF_ERROR && (in_done >= n || z.avail_out == 0))
            break; /* input exhausted (truncated payload) or output full */
    }
    *got = cap - z.avail_out;
    inflateEnd(&z);
    return rc;
}

/* a compressed bundle at p (n bytes to the end of the section); *end = its
 * total size when the header states it, else 0 */
static int parse_ccob(const unsigned char *p, size_t n, const char *what, struct offload_scan *s,
                      uint64_t *end, char **err)
{
    *end = 0;
    if (n < 20) {
        *err = xasprintf("%s: compressed offload bundle header truncated", what);
        return -EINVAL;
    }
    uint16_t version = rd16(p + 4), method = rd16(p + 6);
    uint64_t total = 0, usize;
    size_t hdr;
    s->compressed++;
    switch (version) {
    case 1:
        usize = rd32(p + 8);
        hdr = 20;
        break;
    case 2:
        if (n < 24)
            goto truncated;
        total = rd32(p + 8);
        usize = rd32(p + 12);
        hdr = 24;
        break;
    case 3:
        if (n < 32)
            goto truncated;
        total = rd64(p + 8);
        usize = rd64(p + 16);
        hdr = 32;
        break;
    default:
        note_unknown(s, xasprintf("compressed bundle version %u, targets unknown", version));
        return 0;
    }
    if (total && (total < hdr || total > n)) {
        *err = xasprintf("%s: compressed offload bundle size %llu lies beyond the section "
                         "(%zu bytes left)",
                         what, (unsigned long long)total, n);
        return -EINVAL;
    }
    *end = total;
    size_t clen = (total ? total : n) - hdr;
    size_t cap = usize < CCOB_PREFIX_MAX ? (size_t)usize : CCOB_PREFIX_MAX;
    unsigned char *buf = xmalloc(cap ? cap : 1);
    size_t got = 0;
    char *why = NULL;
    int rc;
    if (method == 0)
        rc = zlib_prefix(p + hdr, clen, buf, cap, &got, &why);
    else if (method == 1)
        rc = zstd_prefix(p + hdr, clen, buf, cap, &got, &why);
    else {
        why = xasprintf("compressed bundle (method %u), targets unknown", method);
        rc = -ENOTSUP;
    }
    if (rc == 0) {
        if (got >= BUNDLE_MAGIC_LEN && memcmp(buf, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN) == 0) {
            uint64_t inner_end;
            char *what2 = xasprintf("%s (compressed bundle)", what);
            rc = parse_bundle(buf, got, usize, what2, s, &inner_end, err);
            free(what2);
            if (rc) {
                free(buf);
                return rc;
            }
        } else {
            why = xstrdup("compressed bundle, targets unknown: payload is not an offload bundle");
            rc = -EINVAL;
        }
    }
    if (rc)
        note_unknown(s, why);
    free(buf);
    return 0;

truncated:
    *err = xasprintf("%s: compressed offload bundle header truncated", what);
    return -EINVAL;
}

/* ---- the section ------------------------------------------------------- */

static int is_ccob(const unsigned char *p, size_t n)
{
    /* a plausible header (small version and method numbers), so that "CCOB"
     * bytes inside other data do not count; versions and methods newer than
     * this reader are reported as unknown rather than ignored */
    return n >= 20 && memcmp(p, CCOB_MAGIC, CCOB_MAGIC_LEN) == 0 && rd16(p + 4) >= 1 &&
           rd16(p + 4) <= 15 && rd16(p + 6) <= 15;
}

static int is_bundle(const unsigned char *p, size_t n)
{
    return n >= BUNDLE_MAGIC_LEN && memcmp(p, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN) == 0;
}

/* the first copy of magic[0..m) in h[0..n), or NULL; memmem itself trips
 * gcc -O2 -fsanitize=address's -Wnonnull (a false "argument 1 is null") */
static const unsigned char *find_magic(const unsigned char *h, size_t n, const char *magic,
                                       size_t m)
{
    while (n >= m) {
        const unsigned char *c = memchr(h, (unsigned char)magic[0], n - m + 1);
        if (!c)
            return NULL;
        if (memcmp(c, magic, m) == 0)
            return c;
        n -= (size_t)(c - h) + 1;
        h = c + 1;
    }
    return NULL;
}

/* the next bundle at or after `from`: zero padding is skipped cheaply, other
 * bytes are searched; n when none */
static size_t next_bundle(const unsigned char *p, size_t n, size_t from)
{
    while (from < n && p[from] == 0)
        from++;
    while (from < n) {
        if (is_bundle(p + from, n - from) || is_ccob(p + from, n - from))
            return from;
        const unsigned char *a = find_magic(p + from, n - from, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN);
        const unsigned char *b = find_magic(p + from, n - from, CCOB_MAGIC, CCOB_MAGIC_LEN);
        const unsigned char *m = a && (!b || a < b) ? a : b;
        if (!m)
            return n;
        size_t at = (size_t)(m - p);
        if (is_bundle(p + at, n - at) || is_ccob(p + at, n - at))
            return at;
        from = at + 1;
    }
    return n;
}

int offload_scan_buffer(const unsigned char *p, size_t n, const char *what,
                        struct offload_scan *out, char **err)
{
    *err = NULL;
    int rc = 0;
    for (size_t pos = next_bundle(p, n, 0); pos < n; pos = next_bundle(p, n, pos)) {
        uint64_t end = 0;
        out->bundles++;
        if (is_bundle(p + pos, n - pos))
            rc = parse_bundle(p + pos, n - pos, n - pos, what, out, &end, err);
        else
            rc = parse_ccob(p + pos, n - pos, what, out, &end, err);
        if (rc)
            break;
        /* a v1 compressed bundle does not state its size: search onwards */
        pos += end ? (size_t)end : CCOB_MAGIC_LEN;
    }
    strlist_sort(&out->targets); /* also what was found before an error */
    return rc;
}

int offload_scan_file(const char *host_path, struct offload_scan *out, char **err)
{
    struct elf_file ef;
    struct elf_section sec;
    *err = NULL;
    int rc = elf_open(&ef, host_path, err);
    if (rc)
        return rc;
    rc = elf_find_section(&ef, ".hipFatBinSegment", &sec, err);
    if (rc == 0)
        out->has_wrapper = 1;
    else if (rc != -ENOENT)
        goto done;
    rc = elf_find_section(&ef, ".hip_fatbin", &sec, err);
    if (rc == -ENOENT) {
        rc = 0;
        goto done;
    }
    if (rc)
        goto done;
    out->has_fatbin = 1;
    rc = offload_scan_buffer(ef.map + sec.offset, (size_t)sec.size, host_path, out, err);
done:
    elf_close(&ef);
    return rc;
}
