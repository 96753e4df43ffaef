/* test_offload_bundle.c - the offload-bundle scanner, the ELF reader and the
 * gpu.target_binaries probe on synthetic bundles and ELF files (plain,
 * zlib/zstd-compressed, corrupt in every field that holds an offset or a
 * count), and on Debian's real librocsparse when it is installed. */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../probes/probe.h"
#include "../../src/binscan/elf_reader.h"
#include "../../src/binscan/offload_bundle.h"
#include "test.h"

int probe_target_binaries_run(struct probe_ctx *ctx);

static void w64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void w32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void w16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

/* a plain bundle with entries `ids` (NULL-terminated), each 64 bytes of
 * code; returns its size */
static size_t make_bundle(unsigned char *buf, const char *const *ids)
{
    size_t n = 0, hdr = 24 + 8;
    while (ids[n])
        hdr += 24 + strlen(ids[n]), n++;
    memcpy(buf, "__CLANG_OFFLOAD_BUNDLE__", 24);
    w64(buf + 24, n);
    size_t pos = 32, data = (hdr + 7) & ~(size_t)7;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(ids[i]);
        uint64_t size = str_starts(ids[i], "host-") ? 0 : 64;
        w64(buf + pos, data);
        w64(buf + pos + 8, size);
        w64(buf + pos + 16, len);
        memcpy(buf + pos + 24, ids[i], len);
        pos += 24 + len;
        memset(buf + data, 0xab, size);
        data += size;
    }
    return data;
}

static const char *const ids_a[] = {"host-x86_64-unknown-linux-gnu",
                                    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
                                    "hipv4-amdgcn-amd-amdhsa--gfx1030", NULL};
static const char *const ids_b[] = {"hip-amdgcn-amd-amdhsa-gfx906", NULL};

static int has(const struct strlist *l, const char *s)
{
    return strlist_has(l, s);
}

static void test_ids(void)
{
    char *t;
    CHECK_STR(t = offload_target_from_id(ids_a[1], strlen(ids_a[1])), "gfx90a:xnack-");
    free(t);
    CHECK_STR(t = offload_target_from_id(ids_b[0], strlen(ids_b[0])), "gfx906");
    free(t);
    CHECK(offload_target_from_id(ids_a[0], strlen(ids_a[0])) == NULL);
    const char *spirv = "hip-spirv64-amd-amdhsa--amdgcnspirv";
    CHECK_STR(t = offload_target_from_id(spirv, strlen(spirv)), "amdgcnspirv");
    free(t);
    const char *isa = "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-";
    CHECK_STR(t = offload_target_from_id(isa, strlen(isa)), "gfx942:sramecc+:xnack-");
    free(t);
    /* the id length counts, not a NUL */
    CHECK_STR(t = offload_target_from_id("hipv4-amdgcn-amd-amdhsa--gfx1100XYZ", 32), "gfx1100");
    free(t);

    CHECK(offload_target_matches("gfx90a:xnack-", "gfx90a:sramecc+:xnack-"));
    CHECK(!offload_target_matches("gfx90a:xnack+", "gfx90a:sramecc+:xnack-"));
    CHECK(offload_target_matches("gfx90a", "gfx90a:sramecc+:xnack+"));
    CHECK(offload_target_matches("gfx90a:xnack+", "gfx90a")); /* device features unknown */
    CHECK(!offload_target_matches("gfx90a:sramecc-", "amdgcn-amd-amdhsa--gfx90a:sramecc+"));
    CHECK(!offload_target_matches("gfx1030", "gfx1100"));
    CHECK(!offload_target_matches("gfx90a", "gfx90"));
    CHECK(offload_target_matches("gfx11-generic", "gfx1101"));
    CHECK(!offload_target_matches("gfx11-generic", "gfx1201"));
    CHECK(offload_target_matches("gfx9-4-generic:xnack-", "gfx942:sramecc+:xnack-"));
    CHECK(offload_target_matches("amdgcnspirv", "gfx1100"));

    struct strlist l = STRLIST_INIT;
    offload_tensile_targets("TensileLibrary_lazy_gfx90a.dat", &l);
    offload_tensile_targets("Kernels.so-000-gfx1030-xnack+.hsaco", &l);
    offload_tensile_targets("TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_gfx942.co", &l);
    offload_tensile_targets("TensileLibrary_gfx90a.co", &l); /* no duplicate */
    offload_tensile_targets("notgfx1100_x", &l);             /* inside a word */
    offload_tensile_targets("gfx9_fallback.dat", &l);        /* too short */
    CHECK(l.n == 3);
    CHECK(has(&l, "gfx90a") && has(&l, "gfx1030") && has(&l, "gfx942"));
    strlist_release(&l);
}

static void test_plain(void)
{
    unsigned char *buf = xcalloc(1, 16384);
    size_t a = make_bundle(buf, ids_a);
    size_t b = make_bundle(buf + 4096, ids_b); /* aligned like hipcc's sections */
    struct offload_scan s = {0};
    char *err = NULL;
    CHECK(offload_scan_buffer(buf, 4096 + b, "t", &s, &err) == 0);
    CHECK(s.bundles == 2 && s.compressed == 0 && s.unknown == 0);
    CHECK(s.targets.n == 3 && has(&s.targets, "gfx90a:xnack-") && has(&s.targets, "gfx1030") &&
          has(&s.targets, "gfx906"));
    offload_scan_release(&s);

    /* junk between bundles: found by searching */
    memset(buf + a, 0x5a, 100);
    CHECK(offload_scan_buffer(buf, 4096 + b, "t", &s, &err) == 0 && s.bundles == 2);
    offload_scan_release(&s);

    /* an entry whose data lies beyond the section */
    CHECK(offload_scan_buffer(buf, a - 1, "lib.so", &s, &err) == -EINVAL);
    CHECK(err && strstr(err, "lib.so") && strstr(err, "beyond the section"));
    free(err);
    offload_scan_release(&s);

    /* offset + size overflowing 64 bits */
    unsigned char *c = xcalloc(1, 4096);
    size_t cn = make_bundle(c, ids_b);
    w64(c + 32, UINT64_MAX - 8);
    CHECK(offload_scan_buffer(c, cn, "t", &s, &err) == -EINVAL && err);
    free(err);
    offload_scan_release(&s);

    /* a huge entry count */
    cn = make_bundle(c, ids_b);
    w64(c + 24, UINT64_MAX / 2);
    CHECK(offload_scan_buffer(c, cn, "t", &s, &err) == -EINVAL);
    CHECK(err && strstr(err, "entries"));
    free(err);
    offload_scan_release(&s);

    /* an id length beyond the section */
    cn = make_bundle(c, ids_b);
    w64(c + 48, 1u << 20);
    CHECK(offload_scan_buffer(c, cn, "t", &s, &err) == -EINVAL && err && strstr(err, "id length"));
    free(err);
    offload_scan_release(&s);

    /* a header cut short */
    CHECK(offload_scan_buffer(c, 28, "t", &s, &err) == -EINVAL && err);
    free(err);
    offload_scan_release(&s);
    CHECK(offload_scan_buffer(c, 40, "t", &s, &err) == -EINVAL && err);
    free(err);
    offload_scan_release(&s);

    /* nothing but zeros: no bundle, no error */
    memset(c, 0, 4096);
    CHECK(offload_scan_buffer(c, 4096, "t", &s, &err) == 0 && s.bundles == 0);
    offload_scan_release(&s);
    free(c);
    free(buf);
}

/* a compressed bundle of `inner` (method 0 zlib, 1 zstd via `zc`) */
typedef size_t (*zstd_compress_fn)(void *, size_t, const void *, size_t, int);
static size_t make_ccob(unsigned char *out, int version, int method, const unsigned char *inner,
                        size_t n, zstd_compress_fn zc)
{
    size_t hdr = version == 1 ? 20 : version == 2 ? 24 : 32;
    size_t clen = 65536;
    if (method == 0) {
        uLongf zl = (uLongf)clen;
        compress2(out + hdr, &zl, inner, (uLong)n, 6);
        clen = zl;
    } else if (method == 1) {
        clen = zc(out + hdr, clen, inner, n, 3);
    } else {
        memset(out + hdr, 0x11, 64);
        clen = 64;
    }
    memcpy(out, "CCOB", 4);
    w16(out + 4, (uint16_t)version);
    w16(out + 6, (uint16_t)method);
    if (version == 1) {
        w32(out + 8, (uint32_t)n);
    } else if (version == 2) {
        w32(out + 8, (uint32_t)(hdr + clen));
        w32(out + 12, (uint32_t)n);
    } else {
        w64(out + 8, hdr + clen);
        w64(out + 16, n);
    }
    w64(out + hdr - 8, 0x1234); /* the hash is not checked */
    return hdr + clen;
}

static void test_compressed(void)
{
    unsigned char *inner = xcalloc(1, 4096), *buf = xcalloc(1, 1 << 17);
    size_t in = make_bundle(inner, ids_a);
    struct offload_scan s = {0};
    char *err = NULL;

    for (int v = 1; v <= 3; v++) {
        memset(buf, 0, 1 << 17);
        size_t n = make_ccob(buf, v, 0, inner, in, NULL);
        /* a plain bundle after it, 4096-aligned */
        size_t next = (n + 4095) & ~(size_t)4095;
        size_t b = make_bundle(buf + next, ids_b);
        CHECK(offload_scan_buffer(buf, next + b, "t", &s, &err) == 0);
        CHECK(s.bundles == 2 && s.compressed == 1 && s.unknown == 0);
        CHECK(s.targets.n == 3 && has(&s.targets, "gfx90a:xnack-") && has(&s.targets, "gfx906"));
        offload_scan_release(&s);
    }

    /* zstd, when libzstd is here to compress with */
    void *z = dlopen("libzstd.so.1", RTLD_NOW);
    zstd_compress_fn zc = NULL;
    if (z)
        *(void **)&zc = dlsym(z, "ZSTD_compress");
    if (zc) {
        size_t n = make_ccob(buf, 2, 1, inner, in, zc);
        CHECK(offload_scan_buffer(buf, n, "t", &s, &err) == 0);
        CHECK(s.compressed == 1 && s.unknown == 0 && has(&s.targets, "gfx1030"));
        offload_scan_release(&s);
    } else {
        fprintf(stderr, "note: libzstd.so.1 not found, zstd bundle test not run\n");
    }

    /* an unknown method: reported, not read */
    size_t n = make_ccob(buf, 2, 5, inner, in, NULL);
    CHECK(offload_scan_buffer(buf, n, "t", &s, &err) == 0);
    CHECK(s.compressed == 1 && s.unknown == 1 && s.targets.n == 0 && s.unknown_why &&
          strstr(s.unknown_why, "targets unknown"));
    offload_scan_release(&s);

    /* a corrupt zlib payload: targets unknown, no crash */
    n = make_ccob(buf, 2, 0, inner, in, NULL);
    memset(buf + 24, 0xff, 16);
    CHECK(offload_scan_buffer(buf, n, "t", &s, &err) == 0);
    CHECK(s.unknown == 1 && s.unknown_why && strstr(s.unknown_why, "zlib"));
    offload_scan_release(&s);

    /* a total size beyond the section is corrupt */
    n = make_ccob(buf, 3, 0, inner, in, NULL);
    CHECK(offload_scan_buffer(buf, n - 1, "lib.so", &s, &err) == -EINVAL && err &&
          strstr(err, "lib.so"));
    free(err);
    offload_scan_release(&s);

    /* a compressed bundle whose inner header lies about its entries */
    w64(inner + 32 + 24 + 29, 1u << 30); /* entry 1's offset (after the host id) */
    n = make_ccob(buf, 2, 0, inner, in, NULL);
    CHECK(offload_scan_buffer(buf, n, "t", &s, &err) == -EINVAL && err);
    free(err);
    offload_scan_release(&s);
    free(inner);
    free(buf);
}

/* ---- ELF files ------------------------------------------------------------ */

struct elf_img {
    unsigned char *b;
    size_t n;
    size_t shoff, fatbin_shdr;
};

/* sections: null, .hip_fatbin, .hipFatBinSegment, .shstrtab */
static void make_elf(struct elf_img *e, const unsigned char *fat, size_t fatn, int with_fatbin)
{
    static const char strtab[] = "\0.hip_fatbin\0.hipFatBinSegment\0.shstrtab\0.text";
    size_t strn = sizeof(strtab);
    size_t fat_off = 4096, seg_off = fat_off + fatn, str_off = seg_off + 24;
    size_t shoff = (str_off + strn + 7) & ~(size_t)7;
    e->n = shoff + 4 * 64;
    e->b = xcalloc(1, e->n);
    e->shoff = shoff;
    unsigned char *h = e->b;
    memcpy(h, "\177ELF", 4);
    h[4] = 2;
    h[5] = 1;
    h[6] = 1;
    w16(h + 16, 3);  /* ET_DYN */
    w16(h + 18, 62); /* x86-64 */
    w64(h + 40, shoff);
    w16(h + 52, 64);
    w16(h + 58, 64);
    w16(h + 60, 4);
    w16(h + 62, 3);
    memcpy(e->b + fat_off, fat, fatn);
    memcpy(e->b + str_off, strtab, strn);
    unsigned char *s = e->b + shoff;
    /* 1: .hip_fatbin (name 1) or .text (name 41) */
    w32(s + 64, with_fatbin ? 1 : 41);
    w32(s + 64 + 4, 1);
    w64(s + 64 + 24, fat_off);
    w64(s + 64 + 32, fatn);
    e->fatbin_shdr = shoff + 64;
    /* 2: .hipFatBinSegment (name 13) */
    w32(s + 128, 13);
    w32(s + 128 + 4, 1);
    w64(s + 128 + 24, seg_off);
    w64(s + 128 + 32, 24);
    /* 3: .shstrtab (name 31) */
    w32(s + 192, 31);
    w32(s + 192 + 4, 3);
    w64(s + 192 + 24, str_off);
    w64(s + 192 + 32, strn);
}

static int write_file(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(b, 1, n, f);
    fclose(f);
    return w == n ? 0 : -1;
}

static int scan_path(const char *path, struct offload_scan *s, char **err)
{
    memset(s, 0, sizeof(*s));
    return offload_scan_file(path, s, err);
}

static void test_elf(const char *dir)
{
    unsigned char fat[8192] = {0};
    size_t a = make_bundle(fat, ids_a);
    (void)a;
    size_t b = make_bundle(fat + 4096, ids_b);
    struct elf_img e;
    make_elf(&e, fat, 4096 + b, 1);
    char *path = xasprintf("%s/lib.so", dir);
    struct offload_scan s;
    char *err = NULL;

    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == 0 && !err);
    CHECK(s.has_fatbin && s.has_wrapper && s.bundles == 2 && s.targets.n == 3);
    offload_scan_release(&s);

    /* truncated: inside the header, and before the section headers */
    CHECK(write_file(path, e.b, 40) == 0);
    CHECK(scan_path(path, &s, &err) < 0 && err && strstr(err, path) && strstr(err, "truncated"));
    free(err);
    offload_scan_release(&s);
    CHECK(write_file(path, e.b, e.shoff + 100) == 0);
    CHECK(scan_path(path, &s, &err) < 0 && err && strstr(err, path) && strstr(err, "beyond"));
    free(err);
    offload_scan_release(&s);
    /* truncated inside .hip_fatbin: the section header now points past EOF */
    unsigned char *cut = xmalloc(e.n);
    memcpy(cut, e.b, e.n);
    w64(cut + 40, 64); /* move the section table to the front, then cut */
    memcpy(cut + 64, e.b + e.shoff, 4 * 64);
    CHECK(write_file(path, cut, 4096 + 100) == 0);
    CHECK(scan_path(path, &s, &err) < 0 && err && strstr(err, path));
    free(err);
    offload_scan_release(&s);
    free(cut);

    /* a section offset beyond EOF */
    unsigned char keep[8];
    memcpy(keep, e.b + e.fatbin_shdr + 24, 8);
    w64(e.b + e.fatbin_shdr + 24, (uint64_t)1 << 40);
    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == -EINVAL && err && strstr(err, path) &&
          strstr(err, ".hip_fatbin") && strstr(err, "beyond the end"));
    free(err);
    offload_scan_release(&s);
    memcpy(e.b + e.fatbin_shdr + 24, keep, 8);

    /* a section size overflowing offset + size */
    memcpy(keep, e.b + e.fatbin_shdr + 32, 8);
    w64(e.b + e.fatbin_shdr + 32, UINT64_MAX);
    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == -EINVAL && err && strstr(err, ".hip_fatbin"));
    free(err);
    offload_scan_release(&s);
    memcpy(e.b + e.fatbin_shdr + 32, keep, 8);

    /* a huge section count, and a section name table index out of range */
    w16(e.b + 60, 0xfff0);
    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == -EINVAL && err && strstr(err, path));
    free(err);
    offload_scan_release(&s);
    w16(e.b + 60, 4);
    w16(e.b + 62, 9);
    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == -EINVAL && err && strstr(err, "name table"));
    free(err);
    offload_scan_release(&s);
    w16(e.b + 62, 3);

    /* a bundle entry beyond .hip_fatbin, inside a well-formed ELF */
    w64(e.b + 4096 + 32 + 24 + 29 + 8, 1u << 20); /* entry 1's size */
    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == -EINVAL && err && strstr(err, path) &&
          strstr(err, "gfx90a"));
    free(err);
    offload_scan_release(&s);

    /* not ELF, ELF32, no .hip_fatbin */
    unsigned char text[80];
    memset(text, ' ', sizeof(text));
    memcpy(text, "#!/bin/sh\n", 10);
    CHECK(write_file(path, text, sizeof(text)) == 0);
    CHECK(scan_path(path, &s, &err) == -EINVAL && err && strstr(err, "not an ELF"));
    free(err);
    offload_scan_release(&s);
    e.b[4] = 1;
    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == -EINVAL && err && strstr(err, "ELF64"));
    free(err);
    offload_scan_release(&s);
    free(e.b);
    make_elf(&e, fat, 4096 + b, 0);
    CHECK(write_file(path, e.b, e.n) == 0);
    CHECK(scan_path(path, &s, &err) == 0 && !s.has_fatbin && s.has_wrapper && s.bundles == 0);
    offload_scan_release(&s);
    CHECK(scan_path("/nonexistent/lib.so", &s, &err) == -ENOENT && err);
    free(err);
    offload_scan_release(&s);
    free(e.b);
    free(path);
}

/* ---- the probe, over a sysroot tree ----------------------------------- */

static int mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    int rc = mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1;
    free(p);
    return rc;
}

static int list_find(const struct fact *f, const char *needle)
{
    if (!f || f->type != FACT_LIST)
        return 0;
    for (size_t i = 0; i < f->list.n; i++)
        if (strstr(f->list.v[i], needle))
            return 1;
    return 0;
}

static void test_probe(const char *dir)
{
    char *root = xasprintf("%s/root", dir);
    char *d = xasprintf("%s/usr/lib/x86_64-linux-gnu", root);
    char *t = xasprintf("%s/opt/rocm/lib/rocblas/library", root);
    CHECK(mkdir_p(d) == 0 && mkdir_p(t) == 0);
    unsigned char fat[4096] = {0};
    size_t a = make_bundle(fat, ids_a);
    struct elf_img e;
    make_elf(&e, fat, a, 1);
    char *p = xasprintf("%s/librocblas.so.0.1", d);
    CHECK(write_file(p, e.b, e.n) == 0);
    free(p);
    p = xasprintf("%s/librocblas.so.0", d);
    CHECK(symlink("librocblas.so.0.1", p) == 0 || errno == EEXIST); /* one library, two names */
    free(p);
    p = xasprintf("%s/librocsparse.so.0", d); /* corrupt */
    CHECK(write_file(p, e.b, e.shoff + 10) == 0);
    free(p);
    p = xasprintf("%s/libunrelated.so.1", d); /* not a math library: not scanned */
    CHECK(write_file(p, e.b, 10) == 0);
    free(p);
    static const char *const tensile[] = {"TensileLibrary_lazy_gfx90a.dat",
                                          "Kernels.so-000-gfx1030.hsaco", "TensileManifest.txt"};
    for (size_t i = 0; i < ARRAY_SIZE(tensile); i++) {
        p = xasprintf("%s/%s", t, tensile[i]);
        CHECK(write_file(p, (const unsigned char *)"x", 1) == 0);
        free(p);
    }

    CHECK(rootfs_init(root) == 0);
    struct factset fs = FACTSET_INIT;
    fact_set_int(&fs, "gpu.count", 6, "test");
    fact_set_str(&fs, "gpu.0.isa", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "test");
    fact_set_str(&fs, "gpu.0.gfx", "gfx90a", "test");
    fact_set_str(&fs, "gpu.1.gfx", "gfx1100", "test");
    fact_set_str(&fs, "gpu.2.isa", "gfx90a:xnack+", "test");
    /* the runtime's ISA name adds the features when it names the same processor;
     * runtime devices are paired by PCI address (runtime.dev.<i>.gpu), never by
     * position: runtime device 4 is gpu.1, runtime device 0 is gpu.4 */
    fact_set_int(&fs, "runtime.device_count", 6, "test");
    fact_set_str(&fs, "gpu.4.gfx", "gfx90a", "test");
    fact_set_int(&fs, "runtime.dev.0.gpu", 4, "test");
    fact_set_str(&fs, "runtime.dev.0.arch", "gfx90a:sramecc+:xnack+", "test");
    fact_set_int(&fs, "runtime.dev.4.gpu", 1, "test");
    fact_set_str(&fs, "runtime.dev.4.arch", "gfx90a:sramecc-:xnack-", "test"); /* not gpu.4 */
    fact_set_str(&fs, "gpu.5.gfx", "gfx1030", "test");
    fact_set_int(&fs, "runtime.dev.5.gpu", 5, "test");
    fact_set_str(&fs, "runtime.dev.5.arch", "gfx90a:sramecc+:xnack+", "test"); /* another GPU */
    struct probe_opts opts = {0};
    struct probe_ctx ctx = {&fs, LEVEL_STANDARD, &opts, 0};
    CHECK(probe_target_binaries_run(&ctx) == 0);

    const struct fact *f = fact_get(&fs, "binaries.scanned");
    CHECK(f && f->type == FACT_INT && f->i == 3); /* 2 libraries + 1 Tensile directory */
    f = fact_get(&fs, "binaries.with_code");
    CHECK(f && f->type == FACT_INT && f->i == 2);
    f = fact_get(&fs, "binaries.libraries");
    CHECK(list_find(f, "/usr/lib/x86_64-linux-gnu/librocblas.so.0.1: gfx1030 gfx90a:xnack-"));
    CHECK(list_find(f, "/opt/rocm/lib/rocblas/library (Tensile): gfx1030 gfx90a"));
    f = fact_get(&fs, "binaries.errors");
    CHECK(f && f->type == FACT_LIST && f->list.n == 1);
    CHECK(list_find(f, "/usr/lib/x86_64-linux-gnu/librocsparse.so.0: "));
    CHECK(!list_find(f, root)); /* messages name the file inside the root */

    f = fact_get(&fs, "gpu.0.binaries.missing");
    CHECK(f && f->type == FACT_LIST && f->list.n == 0);
    f = fact_get(&fs, "gpu.0.binaries.target");
    CHECK(f && f->type == FACT_STR && strcmp(f->s, "gfx90a:sramecc+:xnack-") == 0);
    f = fact_get(&fs, "gpu.1.binaries.missing");
    CHECK(f && f->type == FACT_LIST && f->list.n == 2);
    CHECK(list_find(f, "librocblas.so.0.1") && list_find(f, "(Tensile)"));
    f = fact_get(&fs, "gpu.2.binaries.missing"); /* only xnack- code; Tensile has gfx90a */
    CHECK(f && f->type == FACT_LIST && f->list.n == 1 && list_find(f, "librocblas.so.0.1"));
    f = fact_get(&fs, "gpu.3.binaries.missing"); /* no target known: unknown, not empty */
    CHECK(f && f->type == FACT_UNKNOWN);
    f = fact_get(&fs, "gpu.4.binaries.target");
    CHECK(f && f->type == FACT_STR && strcmp(f->s, "gfx90a:sramecc+:xnack+") == 0);
    f = fact_get(&fs, "gpu.4.binaries.missing"); /* xnack+ device, xnack- code only */
    CHECK(f && f->type == FACT_LIST && f->list.n == 1 && list_find(f, "librocblas.so.0.1"));
    f = fact_get(&fs, "gpu.5.binaries.target");
    CHECK(f && f->type == FACT_STR && strcmp(f->s, "gfx1030") == 0);
    f = fact_get(&fs, "gpu.5.binaries.missing");
    CHECK(f && f->type == FACT_LIST && f->list.n == 0);
    f = fact_get(&fs, "gpu.0.binaries.scanned");
    CHECK(f && f->type == FACT_INT && f->i == 3);
    factset_release(&fs);

    /* a ROCm wheel: torch/lib's own library (same targets). When PyTorch
     * loads its wheel's ROCm (rocm.torch_lib_set wheel:), only torch/lib is
     * judged for gfx1100; with the system's, the system libraries count too */
    char *tl = xasprintf("%s/venv/torch/lib", root);
    CHECK(mkdir_p(tl) == 0);
    p = xasprintf("%s/libtorch_hip.so", tl);
    CHECK(write_file(p, e.b, e.n) == 0);
    free(p);
    for (int wheel = 0; wheel < 2; wheel++) {
        CHECK(rootfs_init(root) == 0);
        fact_set_int(&fs, "gpu.count", 1, "test");
        fact_set_str(&fs, "gpu.0.gfx", "gfx1100", "test");
        fact_set_str(&fs, "python.torch_dir", "/venv/torch", "test");
        fact_set_str(&fs, "rocm.torch_lib_set",
                     wheel ? "wheel:/venv/torch/lib" : "system:/opt/rocm/lib", "test");
        CHECK(probe_target_binaries_run(&ctx) == 0);
        f = fact_get(&fs, "gpu.0.binaries.missing");
        CHECK(f && f->type == FACT_LIST && f->list.n == (wheel ? 1u : 3u));
        CHECK(list_find(f, "/venv/torch/lib/libtorch_hip.so"));
        CHECK(wheel == !list_find(f, "librocblas.so.0.1"));
        f = fact_get(&fs, "binaries.scope");
        CHECK(f && f->type == FACT_STR && (wheel == !!strstr(f->s, "torch/lib only")));
        factset_release(&fs);
        rootfs_release();
    }
    free(tl);
    rootfs_release();
    rootfs_init(NULL);
    free(e.b);
    free(d);
    free(t);
    free(root);
}

/* Debian bookworm's librocsparse0 (ROCm 5.3): gfx803 ... gfx1030, no gfx1100 */
static void test_real_rocsparse(void)
{
    const char *lib = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0";
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "note: %s not installed; tests/binscan.sh installs it\n", lib);
        return;
    }
    struct offload_scan s = {0};
    char *err = NULL;
    CHECK(offload_scan_file(lib, &s, &err) == 0 && !err);
    static const char *const want[] = {"gfx1030",       "gfx803",        "gfx900:xnack-",
                                       "gfx906:xnack-", "gfx908:xnack-", "gfx90a:xnack+",
                                       "gfx90a:xnack-"};
    CHECK(s.targets.n == ARRAY_SIZE(want));
    for (size_t i = 0; i < ARRAY_SIZE(want) && i < s.targets.n; i++)
        CHECK_STR(s.targets.v[i], want[i]);
    int any1100 = 0;
    for (size_t i = 0; i < s.targets.n; i++)
        any1100 |= offload_target_matches(s.targets.v[i], "gfx1100");
    CHECK(!any1100);
    CHECK(s.bundles > 100 && s.has_wrapper);
    free(err);
    offload_scan_release(&s);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int main(void)
{
    char tmpl[] = "/tmp/rvd-offload-XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    test_ids();
    test_plain();
    test_compressed();
    if (dir) {
        test_elf(dir);
        test_probe(dir);
        if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
            fprintf(stderr, "note: could not remove %s\n", dir);
    }
    test_real_rocsparse();
    return test_report();
}
