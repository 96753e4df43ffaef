/* outfile.c - write through a temporary file and rename (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmpdirs.h"
#include "util.h"

int outfile_open(struct outfile *o, const char *path, int allow_stdout)
{
    memset(o, 0, sizeof(*o));
    if (allow_stdout && strcmp(path, "-") == 0) {
        o->is_stdout = 1;
        o->f = stdout;
        o->path = xstrdup(path);
        return 0;
    }
    if (!*path)
        return error("cannot write to an empty file name");
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return error("cannot write '%s': it is a directory", path);
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or a pipe: in place */
        o->f = fopen(path, "w");
        if (!o->f)
            return error("cannot write '%s': %s", path, strerror(errno));
        o->path = xstrdup(path);
        return 0;
    }
    /* through a symlink, the file it names is replaced, as fopen would write it */
    char *final = exists ? realpath(path, NULL) : NULL;
    const char *target = final ? final : path;
    char *tmp = xasprintf("%s.tmp.XXXXXX", target);
    int fd = tmpdirs_mkstemp(tmp); /* removed also when the run is killed */
    if (fd < 0) {
        int e = errno;
        free(tmp);
        free(final);
        return error("cannot write '%s': %s", path, strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        tmpdirs_forget_file(tmp);
        free(tmp);
        free(final);
        return error("cannot write '%s': %s", path, strerror(e));
    }
    o->path = xstrdup(path);
    o->final = final ? final : xstrdup(path);
    o->tmp = tmp;
    return 0;
}

int outfile_open_stream(struct outfile *o, const char *path, int allow_stdout)
{
    memset(o, 0, sizeof(*o));
    if (allow_stdout && strcmp(path, "-") == 0)
        return outfile_open(o, path, allow_stdout);
    if (!*path)
        return error("cannot write to an empty file name");
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return error("cannot write '%s': it is a directory", path);
    o->f = fopen(path, "w");
    if (!o->f)
        return error("cannot write '%s': %s", path, strerror(errno));
    o->path = xstrdup(path);
    return 0;
}

int outfile_close(struct outfile *o, int failed)
{
    int caller_errno = errno; /* the reason, when the caller's own flush failed */
    int rc = 0;
    if (!o->f)
        return -1;
    /* a write that failed earlier (the report writer flushes itself) left
     * the error flag; flush again after clearing it to learn errno, but the
     * file stays failed whatever the retry does */
    int bad = ferror(o->f) != 0;
    clearerr(o->f);
    errno = 0;
    bad |= fflush(o->f) != 0 || ferror(o->f);
    int e = errno ? errno : caller_errno;
    if (o->is_stdout) {
        if (bad)
            rc = error("cannot write to stdout: %s", strerror(e ? e : EIO));
    } else {
        if (fclose(o->f) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        if (bad)
            rc = error("cannot write '%s': %s", o->path, strerror(e ? e : EIO));
        if (o->tmp) {
            if (bad || failed) {
                unlink(o->tmp);
            } else if (rename(o->tmp, o->final) < 0) {
                rc = error("cannot write '%s': %s", o->path, strerror(errno));
                unlink(o->tmp);
            }
            tmpdirs_forget_file(o->tmp); /* after the rename: see tmpdirs.h */
        }
    }
    if (failed)
        rc = -1;
    free(o->path);
    free(o->final);
    free(o->tmp);
    memset(o, 0, sizeof(*o));
    return rc;
}

/* where a path would be written: the file's identity, or its directory's
 * and its last component (a file not made yet) */
struct out_id {
    dev_t dev;
    ino_t ino;
    int chr;    /* a character device */
    char *name; /* NULL, or the last component of a file that does not exist */
};

static int out_id_get(const char *path, struct out_id *id)
{
    struct stat st;
    memset(id, 0, sizeof(*id));
    int rc = strcmp(path, "-") == 0 ? fstat(STDOUT_FILENO, &st) : stat(path, &st);
    if (rc == 0) {
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        id->chr = S_ISCHR(st.st_mode);
        return 0;
    }
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, (size_t)(slash - path + (slash == path))) : xstrdup(".");
    rc = stat(dir, &st);
    free(dir);
    if (rc)
        return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->name = xstrdup(slash ? slash + 1 : path);
    return 0;
}

int outfile_same(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    struct out_id x = {0}, y = {0}, out = {0};
    int same = 0;
    if (out_id_get(a, &x) == 0 && out_id_get(b, &y) == 0) {
        same = x.dev == y.dev && x.ino == y.ino && !x.name == !y.name &&
               (!x.name || strcmp(x.name, y.name) == 0);
        /* /dev/null twice is harmless; stdout twice is not */
        if (same && x.chr && !(out_id_get("-", &out) == 0 && out.dev == x.dev && out.ino == x.ino))
            same = 0;
        free(out.name);
    }
    free(x.name);
    free(y.name);
    return same;
}
