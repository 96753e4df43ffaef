/* sysroot_tree.h - build small sysroot trees for probe tests: a private
 * temporary root, files, directories and symbolic links inside it. Included
 * by one test file each (static functions). */
#ifndef RVD_SYSROOT_TREE_H
#define RVD_SYSROOT_TREE_H

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/util.h"

static char root[64]; /* the current tree, "" before tree_fresh() */

static inline void mkparents(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    free(p);
}

static inline void put_bin(const char *rel, const void *buf, size_t len)
{
    char *path = xasprintf("%s%s", root, rel);
    mkparents(path);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
    fwrite(buf, 1, len, f);
    fclose(f);
    free(path);
}

static inline void put(const char *rel, const char *text)
{
    put_bin(rel, text, strlen(text));
}

static inline void putf(const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void putf(const char *rel, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    put(rel, sb.buf);
    strbuf_release(&sb);
}

static inline void put_dir(const char *rel)
{
    char *path = xasprintf("%s%s/x", root, rel);
    mkparents(path);
    free(path);
}

static inline void put_link(const char *rel, const char *target)
{
    char *path = xasprintf("%s%s", root, rel);
    mkparents(path);
    unlink(path);
    if (symlink(target, path) < 0)
        exit(2);
    free(path);
}

static inline int tree_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(p);
}

/* a PCI device at /sys/devices/<path> (its vendor and device files) and
 * the /sys/bus/pci/devices/<bdf> link to it, as the PCI core makes them */
static inline void put_pci_dev(const char *path, unsigned vendor, unsigned device)
{
    char p[256], lnk[96], tgt[256];
    snprintf(p, sizeof(p), "/sys/devices/%s/vendor", path);
    putf(p, "0x%04x\n", vendor);
    snprintf(p, sizeof(p), "/sys/devices/%s/device", path);
    putf(p, "0x%04x\n", device);
    snprintf(lnk, sizeof(lnk), "/sys/bus/pci/devices/%s", strrchr(path, '/') + 1);
    snprintf(tgt, sizeof(tgt), "../../../devices/%s", path);
    put_link(lnk, tgt);
}

/* remove the current tree (if any) and make a new empty one */
static inline void tree_fresh(const char *tag)
{
    if (root[0])
        nftw(root, tree_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(root, sizeof(root), "/tmp/rvd-%s-XXXXXX", tag);
    if (!mkdtemp(root))
        exit(2);
}

static inline void tree_remove(void)
{
    if (root[0])
        nftw(root, tree_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    root[0] = '\0';
}

#endif
