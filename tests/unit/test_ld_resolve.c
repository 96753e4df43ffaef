/* test_ld_resolve.c - the loader's search without ldd (src/binscan/ld_resolve.h):
 * this machine's real /etc/ld.so.cache against `ldconfig -p`, malformed
 * caches, old+new combined layout, and the closure of Debian's real ROCm 5.2
 * libamdhip64.so.5 against ldd (the oracle, used only here). Parts whose
 * inputs this machine lacks print a SKIP line with the reason. */
/* layers: core binscan */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/binscan/ld_resolve.h"
#include "../../src/core/rootfs.h"
#include "test.h"

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* the new header at `base` of buf with one entry name -> path (strings after
 * the entry, offsets from the header) */
static size_t make_new(unsigned char *buf, size_t base, const char *name, const char *path,
                       uint32_t flags, uint32_t hwcap_lo)
{
    unsigned char *h = buf + base;
    memcpy(h, "glibc-ld.so.cache1.1", 20);
    put32(h + 20, 1);
    size_t so = 48 + 24;
    put32(h + 24, (uint32_t)(strlen(name) + strlen(path) + 2));
    put32(h + 48, flags);
    put32(h + 52, (uint32_t)so);
    put32(h + 56, (uint32_t)(so + strlen(name) + 1));
    put32(h + 64, hwcap_lo);
    memcpy(h + so, name, strlen(name) + 1);
    memcpy(h + so + strlen(name) + 1, path, strlen(path) + 1);
    return base + so + strlen(name) + strlen(path) + 2;
}

static void test_synthetic(void)
{
    unsigned char buf[512];
    struct ld_cache c;
    char *err = NULL;

    memset(buf, 0, sizeof(buf));
    size_t n = make_new(buf, 0, "libfoo.so.1", "/usr/lib/libfoo.so.1", 0x0303, 0);
    CHECK(ld_cache_parse(buf, n, &c, &err) == 0 && c.n == 1);
    CHECK_STR(ld_cache_lookup(&c, "libfoo.so.1"), "/usr/lib/libfoo.so.1");
    CHECK(ld_cache_lookup(&c, "libbar.so") == NULL);
    ld_cache_release(&c);

    /* a 32-bit (libc6, flags 0x0003) entry is not this machine's */
    memset(buf, 0, sizeof(buf));
    n = make_new(buf, 0, "libfoo.so.1", "/usr/lib32/libfoo.so.1", 0x0003, 0);
    CHECK(ld_cache_parse(buf, n, &c, &err) == 0 && c.n == 1);
    CHECK(ld_cache_lookup(&c, "libfoo.so.1") == NULL);
    ld_cache_release(&c);

    /* old table (2 entries: 16 + 24 bytes, new header at 40) then the new one */
    memset(buf, 0, sizeof(buf));
    memcpy(buf, "ld.so-1.7.0", 11);
    put32(buf + 12, 2);
    n = make_new(buf, 40, "libold.so.2", "/lib/libold.so.2", 0x0303, 0);
    CHECK(ld_cache_parse(buf, n, &c, &err) == 0 && c.n == 1);
    CHECK_STR(ld_cache_lookup(&c, "libold.so.2"), "/lib/libold.so.2");
    ld_cache_release(&c);

    /* errors: wrong magic, truncated table, string outside, old format only */
    memset(buf, 0, sizeof(buf));
    n = make_new(buf, 0, "libfoo.so.1", "/usr/lib/libfoo.so.1", 0x0303, 0);
    buf[0] = 'X';
    CHECK(ld_cache_parse(buf, n, &c, &err) == -EINVAL && err && strstr(err, "not a glibc"));
    free(err);
    buf[0] = 'g';
    put32(buf + 20, 1000);
    CHECK(ld_cache_parse(buf, n, &c, &err) == -EINVAL && err && strstr(err, "past the end"));
    free(err);
    put32(buf + 20, 1);
    put32(buf + 56, 100000);
    CHECK(ld_cache_parse(buf, n, &c, &err) == -EINVAL && err && strstr(err, "outside"));
    free(err);
    memset(buf, 0, sizeof(buf));
    memcpy(buf, "ld.so-1.7.0", 11);
    CHECK(ld_cache_parse(buf, 64, &c, &err) == -EINVAL && err && strstr(err, "old format only"));
    free(err);
    CHECK(ld_cache_parse(buf, 3, &c, &err) == -EINVAL);
    free(err);
}

/* every "(libc6,x86-64...) => path" line of `ldconfig -p` is an entry of our
 * parse, and the counts agree */
static void test_real_cache(void)
{
    FILE *p = popen("PATH=/sbin:/usr/sbin:$PATH ldconfig -p 2>/dev/null", "r");
    char *buf = NULL;
    size_t len = 0;
    if (!p || rootfs_read("/etc/ld.so.cache", &buf, &len)) {
        printf("SKIP real ld.so.cache: no /etc/ld.so.cache or ldconfig here\n");
        if (p)
            pclose(p);
        free(buf);
        return;
    }
    struct ld_cache c;
    char *err = NULL;
    CHECK(ld_cache_parse((unsigned char *)buf, len, &c, &err) == 0);
    if (err)
        fprintf(stderr, "%s\n", err);
    char line[4096];
    size_t lines = 0, matched = 0, x64 = 0, x64_ok = 0;
    while (fgets(line, sizeof(line), p)) {
        char *arrow = strstr(line, " => ");
        char *paren = strstr(line, " (");
        if (line[0] != '\t' || !arrow || !paren)
            continue;
        lines++;
        *paren = '\0';
        const char *name = line + 1, *path = arrow + 4;
        path = str_trim((char *)path);
        int is64 = strncmp(paren + 2, "libc6,x86-64", 12) == 0;
        x64 += is64;
        for (size_t i = 0; i < c.n; i++)
            if (strcmp(c.v[i].name, name) == 0 && strcmp(c.v[i].path, path) == 0) {
                matched++;
                x64_ok += is64 && c.v[i].flags == LD_CACHE_FLAGS_X8664;
                break;
            }
    }
    pclose(p);
    CHECK(lines > 0);
    CHECK(lines == c.n);
    CHECK(matched == lines);
    CHECK(x64 == x64_ok);
    printf("ld.so.cache: %zu entries, ldconfig -p %zu lines, %zu matched\n", c.n, lines, matched);
    ld_cache_release(&c);
    free(buf);
}

/* Debian's libamdhip64-5: every dependency resolves, to the files ldd names */
static void test_debian_hip(void)
{
    const char *lib = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5";
    if (!rootfs_exists(lib)) {
        printf("SKIP Debian libamdhip64.so.5: not installed (apt-get install libamdhip64-5)\n");
        return;
    }
    struct ld_env env;
    ld_env_init(&env, NULL);
    CHECK(env.have_cache);
    struct ld_closure c;
    ld_closure_build(&env, lib, &c);
    struct strlist ours = STRLIST_INIT;
    size_t missing = 0;
    for (size_t i = 0; i < c.n; i++) {
        CHECK(c.v[i].error == NULL);
        for (size_t k = 0; k < c.v[i].found.n; k++)
            missing += !*c.v[i].found.v[k];
        if (i) {
            char *r = realpath(c.v[i].path, NULL);
            if (r && !strlist_has(&ours, r))
                strlist_add(&ours, r);
            free(r);
        }
    }
    CHECK(missing == 0);
    CHECK(c.n > 5 && !c.truncated);
    /* the oracle: ldd (env -i: no LD_LIBRARY_PATH of the caller) */
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "env -i /usr/bin/ldd %s 2>/dev/null", lib);
    FILE *p = popen(cmd, "r");
    char line[1024];
    size_t ldd_n = 0, agree = 0;
    while (p && fgets(line, sizeof(line), p)) {
        /* "\tlibx.so => /path (0x..)", or "\t/lib64/ld-linux-x86-64.so.2 (0x..)" */
        char *arrow = strstr(line, " => "), *t = str_trim(line);
        if (strstr(line, "not found") || (!arrow && t[0] != '/'))
            continue;
        char *path = arrow ? arrow + 4 : t;
        path[strcspn(path, " (")] = '\0';
        char *r = realpath(path, NULL);
        if (!r)
            continue;
        ldd_n++;
        agree += strlist_has(&ours, r);
        free(r);
    }
    if (p)
        pclose(p);
    printf("libamdhip64.so.5: %zu objects, ldd %zu, %zu agree\n", ours.n, ldd_n, agree);
    CHECK(ldd_n > 0 && agree == ldd_n && ours.n == ldd_n);
    strlist_release(&ours);
    ld_closure_release(&c);
    ld_env_release(&env);
}

int main(void)
{
    rootfs_init("/");
    test_synthetic();
    test_real_cache();
    test_debian_hip();
    rootfs_release();
    return test_report();
}
