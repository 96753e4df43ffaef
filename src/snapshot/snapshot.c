/* snapshot.c - collect's tarballs (see snapshot.h): the caps, the helpers
 * the writer (snapshot_pack.c) and the reader (snapshot_unpack.c) share, a
 * removal that never follows a symlink, and tarball detection. */
#include "snapshot.h"
#include "../core/tmpdirs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../core/rootfs.h"
#include "snapshot_tar.h"
#include "../core/util.h"

struct snapshot_limits snapshot_limits = {SNAPSHOT_MAX_FILE, SNAPSHOT_MAX_TOTAL,
                                          SNAPSHOT_MAX_ENTRIES};

void snapshot_set_limits(size_t max_file, size_t max_total, size_t max_entries)
{
    snapshot_limits.max_file = max_file ? max_file : SNAPSHOT_MAX_FILE;
    snapshot_limits.max_total = max_total ? max_total : SNAPSHOT_MAX_TOTAL;
    snapshot_limits.max_entries = max_entries ? max_entries : SNAPSHOT_MAX_ENTRIES;
}

/* a name as it may be shown on one line: control bytes become '?' */
char *snapshot_printable(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    size_t n = 0;
    for (; *s && n < 200; s++, n++)
        strbuf_addc(&sb, ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s);
    if (*s)
        strbuf_adds(&sb, "...");
    if (!sb.buf)
        strbuf_adds(&sb, "");
    return strbuf_detach(&sb);
}

unsigned snapshot_header_sum(const struct ustar *h, int is_signed)
{
    const unsigned char *p = (const unsigned char *)h;
    unsigned sum = 0;
    for (size_t i = 0; i < BLOCK; i++) {
        int in_chksum = i >= offsetof(struct ustar, chksum) &&
                        i < offsetof(struct ustar, chksum) + sizeof(h->chksum);
        int c = in_chksum ? ' ' : (is_signed ? (signed char)p[i] : p[i]);
        sum += (unsigned)c;
    }
    return sum;
}

/* ===== removal ========================================================== */

/* empty the directory open at dfd (consumed); never follows a symlink: each
 * subdirectory is opened with O_NOFOLLOW relative to its parent */
static void remove_contents(int dfd, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    /* entries removed while reading may shift the stream: repeat until a pass
     * removes nothing */
    for (int removed = 1, pass = 0; removed && pass < 8; pass++) {
        removed = 0;
        rewinddir(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            struct stat st;
            if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                continue;
            if (S_ISDIR(st.st_mode)) {
                if (depth >= 4 * DEPTH_MAX)
                    continue; /* not ours: we never nest that deep */
                int cfd =
                    openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (cfd >= 0)
                    remove_contents(cfd, depth + 1);
                if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) == 0)
                    removed = 1;
            } else if (unlinkat(dirfd(d), de->d_name, 0) == 0) {
                removed = 1;
            }
        }
    }
    closedir(d);
}

void snapshot_remove_tree(const char *dir)
{
    if (!dir || !*dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    remove_contents(fd, 0);
    if (rmdir(dir) < 0)
        warning("cannot remove '%s': %s", dir, strerror(errno));
    tmpdirs_forget(dir);
}

/* ===== detection ======================================================== */

int snapshot_is_tarball(const char *path)
{
    if (str_ends(path, ".tar") || str_ends(path, ".tar.gz") || str_ends(path, ".tgz"))
        return 1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    struct stat st;
    unsigned char buf[BLOCK];
    ssize_t n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b)
        return 1;
    return n >= 262 && memcmp(buf + 257, "ustar", 5) == 0;
}

int sysroot_open(const char *arg, char **unpacked)
{
    *unpacked = NULL;
    if (arg) {
        struct stat st;
        if (stat(arg, &st) < 0)
            return error("cannot use sysroot '%s': %s", arg, strerror(errno));
        if (S_ISDIR(st.st_mode) && snapshot_check_dir_root(arg))
            return -1;
        if (!S_ISDIR(st.st_mode)) {
            if (snapshot_unpack(arg, unpacked))
                return -1;
            if (snapshot_check_tarball_root(arg, *unpacked)) {
                snapshot_remove_tree(*unpacked);
                free(*unpacked);
                *unpacked = NULL;
                return -1;
            }
        }
    }
    int e = rootfs_init(*unpacked ? *unpacked : arg);
    if (e) {
        sysroot_close(*unpacked);
        *unpacked = NULL;
        return error("cannot use sysroot '%s': %s", arg, strerror(-e));
    }
    return 0;
}

void sysroot_close(char *unpacked)
{
    rootfs_release();
    if (unpacked) {
        snapshot_remove_tree(unpacked);
        free(unpacked);
    }
}
