/* rootfs.c - the one root-prefixed reader (see rootfs.h). */
#include "rootfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    char *root;               /* "" for live, else absolute dir without trailing slash */
    char *stage;              /* recording target, or NULL */
    struct strlist err_paths; /* replayed read errors: "errno path" */
    int rec_errno;            /* the first write error while recording, or 0 */
    char *rec_err_path;       /* ... and the staging path it hit */
} R = {NULL, NULL, STRLIST_INIT, 0, NULL};

static int mkdirs(const char *dir);
static void record_error(const char *path, int err);
static void dircache_clear(void);

/* a staging write failed (disk full, file-size limit): remember the first,
 * so that collect fails instead of packing a truncated file */
static void record_failed(const char *dst, int err)
{
    if (R.rec_errno)
        return;
    R.rec_errno = err ? err : EIO;
    R.rec_err_path = xstrdup(dst);
}

int rootfs_init(const char *root)
{
    rootfs_release();
    if (!root || !*root || strcmp(root, "/") == 0) {
        R.root = xstrdup("");
        return 0;
    }
    char *abs = realpath(root, NULL);
    if (!abs)
        return -errno;
    struct stat st;
    if (stat(abs, &st) < 0 || !S_ISDIR(st.st_mode)) {
        free(abs);
        return -ENOTDIR;
    }
    R.root = strcmp(abs, "/") == 0 ? xstrdup("") : abs;
    if (R.root != abs)
        free(abs);
    /* read errors recorded by collect (EACCES on a config space, say) */
    char *errs = NULL;
    if (rootfs_read_str(ROOTFS_SNAPSHOT_DIR "/read-errors", &errs) == 0) {
        struct strlist lines = STRLIST_INIT;
        strlist_split(&lines, errs, "\n");
        free(errs);
        /* only well-formed lines are replayed; any other is said, never
         * turned into some errno by a lenient conversion */
        for (size_t i = 0; i < lines.n; i++) {
            int e;
            if (rootfs_parse_read_error(lines.v[i], &e, NULL) == 0)
                strlist_add(&R.err_paths, lines.v[i]);
            else
                warning("sysroot: " ROOTFS_SNAPSHOT_DIR "/read-errors: line '%.80s' is not "
                        "'ERRNO /path' with ERRNO in 1..%d; ignored",
                        lines.v[i], ROOTFS_MAX_ERRNO);
        }
        strlist_release(&lines);
    }
    return 0;
}

void rootfs_release(void)
{
    free(R.root);
    R.root = NULL;
    strlist_release(&R.err_paths);
    dircache_clear();
}

int rootfs_is_live(void)
{
    return !R.root || !*R.root;
}

const char *rootfs_root(void)
{
    return R.root ? R.root : "";
}

int rootfs_record_start(const char *stage_dir)
{
    free(R.stage);
    free(R.rec_err_path);
    R.rec_err_path = NULL;
    R.rec_errno = 0;
    R.stage = xstrdup(stage_dir);
    return mkdirs(stage_dir);
}

int rootfs_record_stop(void)
{
    int rc = 0;
    if (R.rec_errno)
        rc = error("collect: cannot write '%s': %s", R.rec_err_path, strerror(R.rec_errno));
    free(R.stage);
    R.stage = NULL;
    free(R.rec_err_path);
    R.rec_err_path = NULL;
    R.rec_errno = 0;
    return rc ? -EIO : 0;
}

/* mkdirs for the staging tree, a failure remembered */
static void stage_mkdirs(const char *dst)
{
    int e = mkdirs(dst);
    if (e)
        record_failed(dst, -e);
}

/* ---- path resolution inside the root ---------------------------------- */

static void push_components(struct strlist *pending, const char *path)
{
    /* pending is a stack: last element is processed first, so push in reverse */
    struct strlist parts = STRLIST_INIT;
    strlist_split(&parts, path, "/");
    for (size_t i = parts.n; i-- > 0;)
        strlist_add(pending, parts.v[i]);
    strlist_release(&parts);
}

static void record_link(const char *rel, const char *target)
{
    if (!R.stage)
        return;
    char *dst = xasprintf("%s%s", R.stage, rel);
    char *slash = strrchr(dst, '/');
    *slash = '\0';
    stage_mkdirs(dst);
    *slash = '/';
    if (symlink(target, dst) < 0 && errno != EEXIST)
        record_failed(dst, errno);
    free(dst);
}

/* Resolve `path` (absolute, root-relative) following symlinks inside the
 * root; `..` never climbs above the root. If follow_last is 0 the final
 * component is not followed. */
static int resolve(const char *path, int follow_last, char **out)
{
    struct strlist pending = STRLIST_INIT;
    struct strbuf cur = STRBUF_INIT;
    int links = 0, rc = 0;

    if (!path || path[0] != '/')
        return -EINVAL;
    push_components(&pending, path);
    while (pending.n) {
        char *comp = pending.v[--pending.n];
        if (strcmp(comp, ".") == 0) {
            free(comp);
            continue;
        }
        if (strcmp(comp, "..") == 0) {
            char *slash = cur.len ? strrchr(cur.buf, '/') : NULL;
            if (slash) {
                cur.len = (size_t)(slash - cur.buf);
                cur.buf[cur.len] = '\0';
            }
            free(comp);
            continue;
        }
        size_t before = cur.len;
        strbuf_addc(&cur, '/');
        strbuf_adds(&cur, comp);
        free(comp);
        if (!follow_last && pending.n == 0)
            break;
        char *host = xasprintf("%s%s", R.root, cur.buf);
        struct stat st;
        if (lstat(host, &st) < 0) {
            /* a missing component: the path does not exist; let the caller's
             * open() report it. Keep the rest as is. */
            free(host);
            while (pending.n) {
                char *c = pending.v[--pending.n];
                strbuf_addc(&cur, '/');
                strbuf_adds(&cur, c);
                free(c);
            }
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(host, target, sizeof(target) - 1);
            free(host);
            if (n < 0) {
                rc = -errno;
                break;
            }
            target[n] = '\0';
            if (++links > 40) {
                rc = -ELOOP;
                break;
            }
            record_link(cur.buf, target);
            cur.len = before;
            if (cur.buf)
                cur.buf[cur.len] = '\0';
            if (target[0] == '/')
                strbuf_release(&cur); /* absolute: restart at the root */
            push_components(&pending, target);
            continue;
        }
        free(host);
    }
    strlist_release(&pending);
    if (rc) {
        strbuf_release(&cur);
        return rc;
    }
    *out = cur.len ? strbuf_detach(&cur) : (strbuf_release(&cur), xstrdup("/"));
    return 0;
}

int rootfs_realpath(const char *path, char **out)
{
    return resolve(path, 1, out);
}

int rootfs_host_path(const char *path, char **out)
{
    char *rel;
    int rc = resolve(path, 1, &rel);
    if (rc)
        return rc;
    *out = xasprintf("%s%s", R.root, strcmp(rel, "/") == 0 && *R.root ? "" : rel);
    free(rel);
    return 0;
}

/* ---- recording -------------------------------------------------------- */

static int mkdirs(const char *dir)
{
    char *p = xstrdup(dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            int e = errno;
            free(p);
            return -e;
        }
        *s = '/';
    }
    int rc = (mkdir(p, 0755) < 0 && errno != EEXIST) ? -errno : 0;
    free(p);
    return rc;
}

static void record_file(const char *rel, const char *buf, size_t len)
{
    if (!R.stage)
        return;
    char *dst = xasprintf("%s%s", R.stage, rel);
    char *slash = strrchr(dst, '/');
    *slash = '\0';
    stage_mkdirs(dst);
    *slash = '/';
    FILE *f = fopen(dst, "wb");
    if (!f) {
        record_failed(dst, errno);
    } else {
        errno = 0;
        int bad = (len && fwrite(buf, 1, len, f) != len) || fflush(f) != 0;
        int e = errno;
        if (fclose(f) != 0 && !bad)
            bad = 1, e = errno;
        if (bad)
            record_failed(dst, e);
    }
    free(dst);
}

static void record_error(const char *path, int err)
{
    if (!R.stage || err == ENOENT)
        return;
    char *line = xasprintf("%d %s\n", err, path);
    char *dst = xasprintf("%s" ROOTFS_SNAPSHOT_DIR "/read-errors", R.stage);
    char *slash = strrchr(dst, '/');
    *slash = '\0';
    stage_mkdirs(dst);
    *slash = '/';
    FILE *f = fopen(dst, "a");
    if (!f) {
        record_failed(dst, errno);
    } else {
        errno = 0;
        int bad = fputs(line, f) < 0 || fflush(f) != 0;
        int e = errno;
        if (fclose(f) != 0 && !bad)
            bad = 1, e = errno;
        if (bad)
            record_failed(dst, e);
    }
    free(dst);
    free(line);
}

int rootfs_parse_read_error(const char *line, int *err, const char **path)
{
    int v = 0;
    const char *p = line;
    /* decimal digits only: no sign, no leading zero, no spaces, no hex */
    if (*p < '1' || *p > '9')
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > ROOTFS_MAX_ERRNO)
            return -EINVAL;
    }
    if (*p != ' ' || p[1] != '/')
        return -EINVAL;
    *err = v;
    if (path)
        *path = p + 1;
    return 0;
}

static int replayed_error(const char *path)
{
    for (size_t i = 0; i < R.err_paths.n; i++) {
        int e;
        const char *p;
        if (rootfs_parse_read_error(R.err_paths.v[i], &e, &p) == 0 && strcmp(p, path) == 0)
            return -e;
    }
    return 0;
}

/* ---- resolved directories ---------------------------------------------- */

/* A telemetry reader (the dashboard every 100 ms, monitor, soak) reads the
 * same few files of the same directories again and again, and resolving
 * /sys/bus/pci/devices/X/file component by component (an lstat each, a
 * readlink per symlink: a dozen system calls) costs more than the read. So
 * the parent directory's resolution is kept for DIRCACHE_TTL_S, and the
 * last component is opened with O_NOFOLLOW: a symlink there fails with
 * ELOOP and takes the full walk. Off while recording (collect must see
 * every link it follows); emptied when the root changes. */
#define DIRCACHE_N 64
#define DIRCACHE_TTL_S 1.0
static struct {
    char *dir, *rel;
    double at;
} dircache[DIRCACHE_N];
static int dircache_next;

static void dircache_clear(void)
{
    for (int i = 0; i < DIRCACHE_N; i++) {
        free(dircache[i].dir);
        free(dircache[i].rel);
        dircache[i].dir = dircache[i].rel = NULL;
    }
    dircache_next = 0;
}

/* path's resolution from its parent's cached one; 0, or -1 to take the
 * full walk */
static int dircache_rel(const char *path, char **out)
{
    const char *slash = strrchr(path, '/');
    if (R.stage || !slash || slash == path || path[0] != '/')
        return -1;
    const char *base = slash + 1;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return -1;
    size_t dlen = (size_t)(slash - path);
    double now = util_mono_s();
    int hit = -1;
    for (int i = 0; i < DIRCACHE_N && hit < 0; i++)
        if (dircache[i].dir && strlen(dircache[i].dir) == dlen &&
            memcmp(dircache[i].dir, path, dlen) == 0 && now - dircache[i].at < DIRCACHE_TTL_S)
            hit = i;
    if (hit < 0) {
        char *dir = xstrndup(path, dlen), *rel;
        if (resolve(dir, 1, &rel)) {
            free(dir);
            return -1;
        }
        hit = dircache_next;
        dircache_next = (dircache_next + 1) % DIRCACHE_N;
        free(dircache[hit].dir);
        free(dircache[hit].rel);
        dircache[hit].dir = dir;
        dircache[hit].rel = rel;
        dircache[hit].at = now;
    }
    const char *r = dircache[hit].rel;
    *out = xasprintf("%s/%s", strcmp(r, "/") == 0 ? "" : r, base);
    return 0;
}

void rootfs_record_text(const char *path, const char *text, size_t len)
{
    char *rel;
    if (!R.stage || resolve(path, 1, &rel))
        return;
    record_file(rel, text, len);
    free(rel);
}

/* ---- reading ---------------------------------------------------------- */

int rootfs_read(const char *path, char **bufp, size_t *lenp)
{
    char *rel;
    int rc = replayed_error(path);
    if (rc)
        return rc;
    int cached = dircache_rel(path, &rel) == 0;
    if (!cached && (rc = resolve(path, 1, &rel)))
        return rc;
    char *host = xasprintf("%s%s", R.root, rel);
    int fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (cached ? O_NOFOLLOW : 0));
    free(host);
    if (fd < 0 && cached && errno == ELOOP) {
        /* the last component is a symlink: follow it inside the root */
        free(rel);
        if ((rc = resolve(path, 1, &rel)))
            return rc;
        host = xasprintf("%s%s", R.root, rel);
        fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        free(host);
    }
    if (fd < 0) {
        rc = -errno;
        record_error(path, errno);
        free(rel);
        return rc;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* never read device nodes or FIFOs: they can block or have effects */
        close(fd);
        free(rel);
        return S_ISDIR(st.st_mode) ? -EISDIR : -EPERM;
    }
    struct strbuf sb = STRBUF_INIT;
    char chunk[8192];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (n == 0)
            break;
        if (sb.len + (size_t)n > ROOTFS_MAX_FILE) {
            rc = -EFBIG;
            break;
        }
        strbuf_add(&sb, chunk, (size_t)n);
    }
    close(fd);
    if (rc) {
        record_error(path, -rc);
        strbuf_release(&sb);
        free(rel);
        return rc;
    }
    if (!sb.buf)
        strbuf_add(&sb, "", 0);
    record_file(rel, sb.buf, sb.len);
    free(rel);
    if (lenp)
        *lenp = sb.len;
    *bufp = strbuf_detach(&sb);
    return 0;
}

int rootfs_read_str(const char *path, char **out)
{
    char *buf;
    size_t len;
    int rc = rootfs_read(path, &buf, &len);
    if (rc)
        return rc;
    /* NUL padding at the end (captures of sysfs pad files to 4 KiB) is
     * dropped; a NUL before the end of the text means binary content */
    while (len && buf[len - 1] == '\0')
        len--;
    if (memchr(buf, '\0', len)) {
        free(buf);
        return -EILSEQ;
    }
    buf[len] = '\0';
    char *t = str_trim(buf);
    memmove(buf, t, strlen(t) + 1);
    *out = buf;
    return 0;
}

static int rootfs_vreadf_str(char **out, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static int rootfs_vreadf_str(char **out, const char *fmt, va_list ap)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_vaddf(&sb, fmt, ap);
    int rc = rootfs_read_str(sb.buf, out);
    strbuf_release(&sb);
    return rc;
}

int rootfs_readf_str(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rootfs_vreadf_str(out, fmt, ap);
    va_end(ap);
    return rc;
}

int rootfs_readf_u64(uint64_t *out, const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int rc = rootfs_vreadf_str(&s, fmt, ap);
    va_end(ap);
    if (rc)
        return rc;
    rc = str_parse_u64(s, out);
    free(s);
    return rc;
}

int rootfs_readf_i64(int64_t *out, const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int rc = rootfs_vreadf_str(&s, fmt, ap);
    va_end(ap);
    if (rc)
        return rc;
    rc = str_parse_i64(s, out);
    free(s);
    return rc;
}

int rootfs_stat(const char *path, struct stat *st)
{
    char *rel;
    int rc = resolve(path, 1, &rel);
    if (rc)
        return rc;
    char *host = xasprintf("%s%s", R.root, rel);
    rc = stat(host, st) < 0 ? -errno : 0;
    free(host);
    if (rc == 0 && R.stage && S_ISDIR(st->st_mode)) {
        char *dst = xasprintf("%s%s", R.stage, rel);
        stage_mkdirs(dst);
        free(dst);
    } else if (rc == 0 && R.stage && !S_ISDIR(st->st_mode)) {
        /* existence is a fact (a device node, /.dockerenv): record a
         * placeholder so that a replay sees the path */
        char *dst = xasprintf("%s%s", R.stage, rel);
        struct stat tmp;
        if (stat(dst, &tmp) < 0)
            record_file(rel, "", 0);
        free(dst);
    }
    free(rel);
    return rc;
}

int rootfs_exists(const char *path)
{
    struct stat st;
    return rootfs_stat(path, &st) == 0;
}

int rootfs_list(const char *dir, struct strlist *names)
{
    char *rel;
    int rc = resolve(dir, 1, &rel);
    if (rc)
        return rc;
    char *host = xasprintf("%s%s", R.root, rel);
    DIR *d = opendir(host);
    if (!d) {
        rc = -errno;
        free(host);
        free(rel);
        return rc;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        strlist_add(names, de->d_name);
        if (R.stage) {
            char *src = xasprintf("%s/%s", host, de->d_name);
            char *drel = xasprintf("%s/%s", strcmp(rel, "/") ? rel : "", de->d_name);
            struct stat st;
            if (lstat(src, &st) == 0) {
                if (S_ISLNK(st.st_mode)) {
                    char target[PATH_MAX];
                    ssize_t n = readlink(src, target, sizeof(target) - 1);
                    if (n >= 0) {
                        target[n] = '\0';
                        record_link(drel, target);
                    }
                } else if (S_ISDIR(st.st_mode)) {
                    char *dst = xasprintf("%s%s", R.stage, drel);
                    stage_mkdirs(dst);
                    free(dst);
                } else {
                    /* listed but maybe never read: keep the name; a later
                     * read overwrites it with the content */
                    char *dst = xasprintf("%s%s", R.stage, drel);
                    struct stat tmp;
                    if (stat(dst, &tmp) < 0)
                        record_file(drel, "", 0);
                    free(dst);
                }
            }
            free(src);
            free(drel);
        }
    }
    closedir(d);
    free(host);
    free(rel);
    strlist_sort(names);
    return 0;
}

int rootfs_query(const char *name, rootfs_producer live, char **out)
{
    char *path = xasprintf(ROOTFS_SNAPSHOT_DIR "/%s", name);
    int rc;
    if (!rootfs_is_live()) {
        char *buf;
        size_t len;
        rc = rootfs_read(path, &buf, &len);
        free(path);
        if (rc == 0)
            *out = buf;
        return rc;
    }
    struct strbuf sb = STRBUF_INIT;
    rc = live(&sb);
    if (rc == 0) {
        if (!sb.buf)
            strbuf_add(&sb, "", 0);
        record_file(path, sb.buf, sb.len);
        *out = strbuf_detach(&sb);
    } else {
        record_error(path, -rc); /* replay the refusal, e.g. EPERM on dmesg */
        strbuf_release(&sb);
    }
    free(path);
    return rc;
}
