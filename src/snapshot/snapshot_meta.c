/* snapshot_meta.c - what makes a tree or a tarball a machine for --sysroot.
 *
 * collect writes a manifest, /.snapshot/meta ("tool rocm-vla-doctor
 * VERSION" then "collected TIME"); a tarball without it is not a snapshot,
 * whatever else it holds. A directory is a machine's root when it has proc/
 * and sys/ (every Linux machine has both, and every probe starts there), or
 * when it is an unpacked snapshot. Anything else (an empty directory, a
 * random tarball) would be reported as a machine without a driver, without
 * /dev/kfd and without ROCm, a wrong verdict instead of a usage error. */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/rootfs.h"
#include "snapshot_tar.h"
#include "../core/util.h"

#define META_PATH ROOTFS_SNAPSHOT_DIR "/meta"
#define META_TOOL "tool rocm-vla-doctor "

int snapshot_write_meta(const char *stage, const char *version, const char *when)
{
    char *path = xasprintf("%s" META_PATH, stage);
    char *dir = xasprintf("%s" ROOTFS_SNAPSHOT_DIR, stage);
    int rc = 0;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        rc = error("collect: cannot create '%s': %s", dir, strerror(errno));
    FILE *f = rc ? NULL : fopen(path, "w");
    if (!rc && !f)
        rc = error("collect: cannot write '%s': %s", path, strerror(errno));
    if (f) {
        errno = 0;
        int bad = fprintf(f, META_TOOL "%s\ncollected %s\n", version, when) < 0 || fflush(f);
        int e = errno;
        if (fclose(f) && !bad)
            bad = 1, e = errno;
        if (bad)
            rc = error("collect: cannot write '%s': %s", path, strerror(e ? e : EIO));
    }
    free(dir);
    free(path);
    return rc;
}

/* 1 when the tree at root holds a manifest written by collect: a plain
 * file of a few lines, reached without following a symlink (O_NOFOLLOW on
 * each component below the root: a link could make the check read the
 * host) */
static int has_manifest(const char *root)
{
    int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dfd = rfd < 0 ? -1
                      : openat(rfd, &ROOTFS_SNAPSHOT_DIR[1],
                               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = dfd < 0 ? -1 : openat(dfd, "meta", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (rfd >= 0)
        close(rfd);
    if (dfd >= 0)
        close(dfd);
    if (fd < 0)
        return 0;
    char buf[256];
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf) - 1) : -1;
    close(fd);
    if (n < 0)
        return 0;
    buf[n] = '\0';
    return str_starts(buf, META_TOOL);
}

int snapshot_check_tarball_root(const char *tarball, const char *dir)
{
    if (has_manifest(dir))
        return 0;
    char *p = snapshot_printable(tarball);
    error("snapshot '%s': no manifest (" META_PATH " written by 'rocm-vla-doctor collect'): "
          "not a snapshot",
          p);
    free(p);
    return -1;
}

int snapshot_check_dir_root(const char *dir)
{
    int missing = 0;
    const char *need[] = {"proc", "sys"};
    /* as the reader sees them: a symlink is followed inside the root, never
     * to what its name means on the host (proc -> /proc is no proc/) */
    int init = rootfs_init(dir);
    for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
        char *path = xasprintf("/%s", need[i]);
        struct stat st;
        if (init || rootfs_stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
            missing |= 1 << i;
        free(path);
    }
    rootfs_release();
    if (!missing || has_manifest(dir))
        return 0;
    char *p = snapshot_printable(dir);
    error("sysroot '%s' is not a machine's root: no %s directory (a tree copied from a machine "
          "has proc/ and sys/)",
          p,
          missing == 3   ? "proc/ and no sys/"
          : missing == 1 ? "proc/"
                         : "sys/");
    free(p);
    return -1;
}
