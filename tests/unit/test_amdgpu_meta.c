/* test_amdgpu_meta.c - the msgpack reader, the NT_AMDGPU_METADATA note of a
 * synthetic AMDGPU code object (and every truncation of it), and the check
 * against each target's limits: a kernel over one limit is named with it,
 * unknown fields are violations, never 0. */
/* layers: core binscan */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/binscan/amdgpu_limits.h"
#include "../../src/binscan/amdgpu_meta.h"
#include "../../src/binscan/msgpack.h"
#include "test.h"

/* a tiny msgpack writer for the fixtures */
struct w {
    unsigned char b[4096];
    size_t n;
};
static void put(struct w *w, unsigned c)
{
    w->b[w->n++] = (unsigned char)c;
}
static void str(struct w *w, const char *s)
{
    size_t n = strlen(s);
    put(w, n < 32 ? 0xa0 | (unsigned)n : 0xd9);
    if (n >= 32)
        put(w, (unsigned)n);
    memcpy(w->b + w->n, s, n);
    w->n += n;
}
static void put_uint(struct w *w, uint64_t v)
{
    if (v < 128) {
        put(w, (unsigned)v);
        return;
    }
    put(w, 0xcd); /* uint16 */
    put(w, (unsigned)(v >> 8) & 0xff);
    put(w, (unsigned)v & 0xff);
}
static void kv(struct w *w, const char *k, uint64_t v)
{
    str(w, k);
    put_uint(w, v);
}

/* one kernel's map: vgprs, lds, wave, max_wg as given */
static void kernel(struct w *w, const char *name, uint64_t vgprs, uint64_t lds, uint64_t wave,
                   uint64_t max_wg)
{
    put(w, 0x80 | 10);
    str(w, ".name");
    str(w, name);
    kv(w, ".sgpr_count", 40);
    kv(w, ".vgpr_count", vgprs);
    kv(w, ".agpr_count", 0);
    kv(w, ".group_segment_fixed_size", lds);
    kv(w, ".private_segment_fixed_size", 0);
    kv(w, ".wavefront_size", wave);
    kv(w, ".max_flat_workgroup_size", max_wg);
    str(w, ".args"); /* an array the reader skips */
    put(w, 0x91);
    put(w, 0x81);
    kv(w, ".size", 8);
    kv(w, ".kernarg_segment_size", 8);
}

static void note(struct w *w)
{
    put(w, 0x83);
    str(w, "amdhsa.version");
    put(w, 0x92);
    put(w, 1);
    put(w, 1);
    str(w, "amdhsa.kernels");
    put(w, 0x92);
    kernel(w, "k_ok", 36, 2048, 64, 1024);
    kernel(w, "k_big", 300, 40000, 64, 256);
    str(w, "amdhsa.target");
    str(w, "amdgcn-amd-amdhsa--gfx90a");
}

static void le(unsigned char *p, uint64_t v, int k)
{
    for (int i = 0; i < k; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* an ELF64 of EM_AMDGPU: header, the note at 64, two section headers */
static size_t elf(unsigned char *out, const struct w *md)
{
    memset(out, 0, 8192);
    memcpy(out, "\177ELF\2\1\1", 7);
    le(out + 18, 224, 2);
    size_t noff = 64, nlen = 12 + 8 + ((md->n + 3) & ~(size_t)3);
    le(out + noff, 7, 4);
    le(out + noff + 4, md->n, 4);
    le(out + noff + 8, 32, 4);
    memcpy(out + noff + 12, "AMDGPU", 7);
    memcpy(out + noff + 20, md->b, md->n);
    size_t sh = (noff + nlen + 7) & ~(size_t)7;
    le(out + 0x28, sh, 8);
    le(out + 0x3a, 64, 2);
    le(out + 0x3c, 2, 2);
    le(out + sh + 64 + 4, 7, 4); /* SHT_NOTE */
    le(out + sh + 64 + 0x18, noff, 8);
    le(out + sh + 64 + 0x20, nlen, 8);
    return sh + 128;
}

static void test_msgpack(void)
{
    static const unsigned char ints[] = {0xd0, 0xff, 0xd1, 0x80, 0x00, 0xcf, 0,    0,
                                         0,    1,    0,    0,    0,    0,    0xe0, 0xc1};
    struct mp_reader r = {ints, sizeof(ints), 0};
    struct mp_value v;
    CHECK(mp_next(&r, &v) == 0 && v.type == MP_INT && v.i == -1);
    CHECK(mp_next(&r, &v) == 0 && v.type == MP_INT && v.i == -32768);
    uint64_t u = 0;
    CHECK(mp_next(&r, &v) == 0 && mp_as_u64(&v, &u) == 0 && u == (1ull << 32));
    CHECK(mp_next(&r, &v) == 0 && v.type == MP_INT && v.i == -32 && mp_as_u64(&v, &u) == -1);
    CHECK(mp_next(&r, &v) == -1); /* 0xc1 is never used */
    /* a map of 2^32-1 pairs in 5 bytes: refused at once, not looped */
    static const unsigned char huge[] = {0xdf, 0xff, 0xff, 0xff, 0xff};
    struct mp_reader h = {huge, sizeof(huge), 0};
    CHECK(mp_skip(&h) == -1);
    /* 100 nested arrays: past the depth cap */
    unsigned char deep[100];
    memset(deep, 0x91, sizeof(deep));
    struct mp_reader d = {deep, sizeof(deep), 0};
    CHECK(mp_skip(&d) == -1);
    /* a string longer than the buffer */
    static const unsigned char trunc[] = {0xd9, 10, 'a'};
    struct mp_reader t = {trunc, sizeof(trunc), 0};
    CHECK(mp_next(&t, &v) == -1);
}

static void test_note_and_limits(void)
{
    struct w md = {.n = 0};
    note(&md);
    static unsigned char obj[8192];
    size_t n = elf(obj, &md);
    struct amdgpu_meta m = {0};
    char *err = NULL;
    CHECK(amdgpu_meta_read(obj, n, &m, &err) == 0 && !err);
    CHECK_STR(m.target, "amdgcn-amd-amdhsa--gfx90a");
    CHECK(m.n == 2);
    if (m.n == 2) {
        CHECK_STR(m.k[0].name, "k_ok");
        CHECK(m.k[0].vgprs == 36 && m.k[0].lds == 2048 && m.k[0].wave == 64 &&
              m.k[0].max_wg == 1024 && m.k[0].kernarg == 8 && m.k[0].sgprs == 40);
        CHECK(m.k[0].vgpr_spill == AMDGPU_UNKNOWN); /* not stated: unknown, not 0 */
        const struct amdgpu_limits *lim = amdgpu_limits_for(m.target);
        CHECK(lim && strcmp(lim->proc, "gfx90a") == 0);
        struct strlist p = STRLIST_INIT;
        CHECK(lim && amdgpu_check_kernel(&m.k[0], lim, 256, 0, &p) == 0 && p.n == 0);
        /* 300 VGPRs, 40000 + 30000 B of LDS, a block of 512 over its 256 */
        CHECK(lim && amdgpu_check_kernel(&m.k[1], lim, 512, 30000, &p) == 3);
        CHECK(p.n == 3 && strstr(p.v[0], "VGPRs 300 over the limit 256") &&
              strstr(p.v[1], "static + dynamic LDS bytes 70000") &&
              strstr(p.v[2], "launch block size (work-items) 512 over the limit 256"));
        strlist_release(&p);
        /* the same kernel on gfx1030: wave64 is allowed there (wavefrontsize64) */
        const struct amdgpu_limits *rd = amdgpu_limits_for("gfx1030");
        CHECK(rd && amdgpu_check_kernel(&m.k[0], rd, 256, 0, &p) == 0);
        struct amdgpu_kernel w16 = m.k[0];
        w16.wave = 16;
        CHECK(rd && amdgpu_check_kernel(&w16, rd, 256, 0, &p) == 1 && p.n == 1 &&
              strstr(p.v[0], "wavefront size 16 not supported on gfx1030"));
        strlist_release(&p);
        /* gfx90a allows wave64 only */
        struct amdgpu_kernel w32 = m.k[0];
        w32.wave = 32;
        CHECK(lim && amdgpu_check_kernel(&w32, lim, 64, 0, &p) == 1);
        strlist_release(&p);
        /* unknown counts are violations */
        struct amdgpu_kernel unk = m.k[0];
        unk.vgprs = AMDGPU_UNKNOWN;
        CHECK(lim && amdgpu_check_kernel(&unk, lim, 64, 0, &p) == 1 && p.n == 1 &&
              strstr(p.v[0], "VGPRs unknown"));
        strlist_release(&p);
        /* unified file: 256 VGPRs + 257 AGPRs > 512 (and AGPRs over 256) */
        struct amdgpu_kernel uni = m.k[0];
        uni.vgprs = 256;
        uni.agprs = 257;
        CHECK(lim && amdgpu_check_kernel(&uni, lim, 64, 0, &p) == 2);
        strlist_release(&p);
    }
    CHECK(amdgpu_limits_for("gfx1100") == NULL && amdgpu_limits_for(NULL) == NULL);
    CHECK(amdgpu_limits_for("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") != NULL);
    amdgpu_meta_release(&m);

    /* every truncation of the note, and every prefix of the file: an error
     * or a partial result, never a crash (ASan build) */
    for (size_t k = 0; k < md.n; k++) {
        struct amdgpu_meta t = {0};
        char *e = NULL;
        CHECK(amdgpu_meta_parse_note(md.b, k, &t, &e) == -1 && e);
        free(e);
        amdgpu_meta_release(&t);
    }
    for (size_t k = 0; k < n; k += 7) {
        struct amdgpu_meta t = {0};
        char *e = NULL;
        CHECK(amdgpu_meta_read(obj, k, &t, &e) == -1 && e);
        free(e);
        amdgpu_meta_release(&t);
    }
    /* not AMDGPU: an x86-64 ELF */
    obj[18] = 62;
    struct amdgpu_meta x = {0};
    CHECK(amdgpu_meta_read(obj, n, &x, &err) == -1 && err && strstr(err, "EM_AMDGPU"));
    free(err);
    amdgpu_meta_release(&x);
}

int main(void)
{
    test_msgpack();
    test_note_and_limits();
    return test_report();
}
