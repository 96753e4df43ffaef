/* sysroot_fuzz.h - fuzz the probes' text readers (sysfs, /proc, /etc, the
 * /.snapshot queries) the way they run: through rootfs on a machine tree.
 *
 * At the first input a fixture machine (tests/fixtures/<name>/root, found
 * from the current directory or $RVD_SRCDIR) is copied into a private
 * temporary directory. For each input the target file the previous input
 * replaced is put back as the fixture had it, the first byte of the input
 * picks one target and the rest of the input replaces that file; then the
 * harness's probes run in table order on a fresh fact set, as `--sysroot`
 * would run them. The copy is removed at exit. Used by one harness file each (static functions). */
#ifndef RVD_SYSROOT_FUZZ_H
#define RVD_SYSROOT_FUZZ_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../probes/probe.h"
#include "../../src/core/fact.h"
#include "../../src/core/rootfs.h"
#include "fuzz.h"

struct sysroot_fuzz {
    const char *fixture;        /* tests/fixtures/<fixture>/root */
    const char *const *targets; /* paths inside the root, NULL-terminated */
    const char *const *probes;  /* probe names, in table order, NULL-terminated */
};

static char sf_root[64];
static char **sf_orig; /* each target's fixture content, NULL when absent */
static size_t *sf_origlen;
static long sf_dirty = -1; /* the target the last input replaced */

static int sf_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(p);
}

static void sf_cleanup(void)
{
    if (sf_root[0])
        nftw(sf_root, sf_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    sf_root[0] = '\0';
}

static void sf_mkparents(const char *path)
{
    char *p = strdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    free(p);
}

/* write (or, with data NULL, remove) a file of the copy */
static void sf_put(const char *rel, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s%s", sf_root, rel);
    unlink(path);
    if (!data)
        return;
    FILE *f = fopen(path, "wb");
    if (!f) {
        sf_mkparents(path);
        f = fopen(path, "wb");
    }
    if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "sysroot_fuzz: cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
}

static void sf_setup(const struct sysroot_fuzz *sf)
{
    const char *src = getenv("RVD_SRCDIR");
    char cmd[512];
    snprintf(sf_root, sizeof(sf_root), "/tmp/rvd-fuzz-XXXXXX");
    if (!mkdtemp(sf_root))
        abort();
    atexit(sf_cleanup);
    snprintf(cmd, sizeof(cmd), "cp -a '%s/tests/fixtures/%s/root/.' '%s/'", src ? src : ".",
             sf->fixture, sf_root);
    if (system(cmd) != 0) {
        fprintf(stderr,
                "sysroot_fuzz: cannot copy fixture %s (run from the repository root "
                "or set RVD_SRCDIR)\n",
                sf->fixture);
        abort();
    }
    size_t n = 0;
    while (sf->targets[n])
        n++;
    sf_orig = calloc(n, sizeof(*sf_orig));
    sf_origlen = calloc(n, sizeof(*sf_origlen));
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s%s", sf_root, sf->targets[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        struct stat st;
        if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
            sf_orig[i] = malloc((size_t)st.st_size + 1);
            sf_origlen[i] = fread(sf_orig[i], 1, (size_t)st.st_size, f);
        }
        fclose(f);
    }
}

static int sysroot_fuzz_one(const struct sysroot_fuzz *sf, const uint8_t *data, size_t size)
{
    if (!sf_root[0])
        sf_setup(sf);
    size_t n = 0;
    while (sf->targets[n])
        n++;
    if (sf_dirty >= 0) /* the others are as the fixture has them */
        sf_put(sf->targets[sf_dirty], sf_orig[sf_dirty], sf_origlen[sf_dirty]);
    sf_dirty = -1;
    if (size == 0)
        return 0;
    sf_dirty = data[0] % n;
    sf_put(sf->targets[sf_dirty], data + 1, size - 1);

    if (rootfs_init(sf_root) != 0)
        return 0; /* a root the reader refuses is a finding of its own tests */
    struct factset fs = FACTSET_INIT;
    struct probe_opts opts;
    memset(&opts, 0, sizeof(opts));
    struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};
    for (size_t t = 0; t < probe_count; t++)
        for (const char *const *p = sf->probes; *p; p++)
            if (strcmp(probe_table[t].name, *p) == 0 && !probe_table[t].needs_gpu)
                probe_table[t].run(&ctx);
    factset_release(&fs);
    rootfs_release();
    return 0;
}

#endif
