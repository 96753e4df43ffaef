/* snapshot_unpack.c - the reader for `check --sysroot FILE.tar.gz`. The
 * archive is hostile until proven otherwise: every path is created below one
 * directory fd with openat/mkdirat/symlinkat, each parent opened with
 * O_NOFOLLOW|O_DIRECTORY so that no member is written through a symlink;
 * every size is checked against the caps before a byte of its data is read,
 * so a gzip bomb stops at the cap; and any failure removes the partial
 * directory. snapshot.h lists what is refused. */
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

#include "snapshot_path.h"
#include "snapshot_tar.h"
#include "../core/util.h"

/* the set of member names seen so far, to refuse duplicates */
struct nameset {
    char **slot;
    size_t cap, n;
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* 1 if name was already there, else adds it and returns 0 */
static int nameset_add(struct nameset *ns, const char *name)
{
    if (2 * (ns->n + 1) > ns->cap) {
        struct nameset big = {xcalloc(ns->cap ? 2 * ns->cap : 256, sizeof(char *)),
                              ns->cap ? 2 * ns->cap : 256, 0};
        for (size_t i = 0; i < ns->cap; i++)
            if (ns->slot[i]) {
                size_t j = name_hash(ns->slot[i]) & (big.cap - 1);
                while (big.slot[j])
                    j = (j + 1) & (big.cap - 1);
                big.slot[j] = ns->slot[i];
                big.n++;
            }
        free(ns->slot);
        *ns = big;
    }
    size_t j = name_hash(name) & (ns->cap - 1);
    for (; ns->slot[j]; j = (j + 1) & (ns->cap - 1))
        if (strcmp(ns->slot[j], name) == 0)
            return 1;
    ns->slot[j] = xstrdup(name);
    ns->n++;
    return 0;
}

static void nameset_release(struct nameset *ns)
{
    for (size_t i = 0; i < ns->cap; i++)
        free(ns->slot[i]);
    free(ns->slot);
}

struct unpacker {
    const char *tarball;
    gzFile gz;
    int rootfd;
    size_t entries; /* headers read, pax headers included */
    uint64_t total; /* bytes of file data */
    char *last;     /* the last member extracted, for messages */
    char *pax_path, *pax_link;
    int have_pax;
    struct nameset seen;
    struct strlist links; /* every symlink member, checked at the end */
};

static int fail(struct unpacker *u, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* one line: "snapshot 'X': member 'Y': why" */
static int fail(struct unpacker *u, const char *member, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    char *t = snapshot_printable(u->tarball), *why = snapshot_printable(sb.buf);
    if (member) {
        char *m = snapshot_printable(member);
        error("snapshot '%s': member '%s': %s", t, m, why);
        free(m);
    } else {
        error("snapshot '%s': %s", t, why);
    }
    free(t);
    free(why);
    strbuf_release(&sb);
    return -1;
}

/* where we are, for messages about the stream itself: the last member
 * extracted, or none (fail() then names no member) */
static const char *position(const struct unpacker *u)
{
    return u->last;
}

static const char *last_name(const struct unpacker *u)
{
    return u->last ? u->last : "(none)";
}

/* zlib's message without the "<fd:3>: " it prefixes for gzdopen streams */
static const char *gz_message(gzFile gz)
{
    int zerr;
    const char *msg = gzerror(gz, &zerr);
    if (zerr == Z_ERRNO)
        return strerror(errno);
    if (msg && msg[0] == '<') {
        const char *colon = strstr(msg, ": ");
        if (colon)
            msg = colon + 2;
    }
    return msg ? msg : "unknown zlib error";
}

/* read exactly n bytes unless the stream ends: the count read, or -1 after
 * a message when the compressed data is corrupt or truncated */
static long rd(struct unpacker *u, void *buf, size_t n, const char *member)
{
    size_t got = 0;
    while (got < n) {
        size_t want = n - got > (1u << 20) ? (1u << 20) : n - got;
        int r = gzread(u->gz, (char *)buf + got, (unsigned)want);
        if (r < 0)
            return fail(u, member ? member : position(u), "corrupt or truncated archive (%s)",
                        gz_message(u->gz));
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got < n) {
        /* zlib may only notice a truncated gzip stream at the end */
        int zerr;
        gzerror(u->gz, &zerr);
        if (zerr != Z_OK && zerr != Z_STREAM_END)
            return fail(u, member ? member : position(u), "corrupt or truncated archive (%s)",
                        gz_message(u->gz));
    }
    return (long)got;
}

static int is_zero(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* a NUL-terminated copy of a fixed-width field */
static char *field(const char *f, size_t width)
{
    return xstrndup(f, strnlen(f, width));
}

/* octal with optional leading spaces and NUL/space terminator */
static int parse_octal(const char *f, size_t width, uint64_t *out)
{
    if ((unsigned char)f[0] & 0x80)
        return -1; /* GNU base-256: only for sizes far above our caps */
    size_t i = 0;
    while (i < width && f[i] == ' ')
        i++;
    uint64_t v = 0;
    size_t digits = 0;
    for (; i < width && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (v >> 60)
            return -1;
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    for (; i < width; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return -1;
    if (!digits)
        return -1;
    *out = v;
    return 0;
}

static int skip_bytes(struct unpacker *u, uint64_t n, const char *member)
{
    char buf[BLOCK];
    while (n) {
        size_t want = n < sizeof(buf) ? (size_t)n : sizeof(buf);
        long got = rd(u, buf, want, member);
        if (got < 0)
            return -1;
        if ((size_t)got < want)
            return fail(u, member, "truncated archive (ends inside the member's data)");
        n -= want;
    }
    return 0;
}

static int pax_parse(struct unpacker *u, const char *hname, const char *buf, size_t n)
{
    size_t pos = 0;
    while (pos < n) {
        size_t len = 0, i = pos;
        while (i < n && buf[i] >= '0' && buf[i] <= '9' && len < n)
            len = len * 10 + (size_t)(buf[i++] - '0');
        if (i == pos || i >= n || buf[i] != ' ' || len < 5 || len > n - pos ||
            buf[pos + len - 1] != '\n')
            return fail(u, hname, "malformed pax extended header");
        const char *key = buf + i + 1, *end = buf + pos + len - 1;
        const char *eq = memchr(key, '=', (size_t)(end - key));
        if (!eq || eq == key)
            return fail(u, hname, "malformed pax extended header");
        size_t klen = (size_t)(eq - key), vlen = (size_t)(end - eq - 1);
        char **dst = NULL;
        if (klen == 4 && memcmp(key, "path", 4) == 0)
            dst = &u->pax_path;
        else if (klen == 8 && memcmp(key, "linkpath", 8) == 0)
            dst = &u->pax_link;
        else if (klen == 4 && memcmp(key, "size", 4) == 0)
            return fail(u, hname, "pax 'size' records are not supported");
        /* other keys (times, owners, charset) do not matter for a sysroot */
        if (dst) {
            if (memchr(eq + 1, '\0', vlen) || vlen > NAME_MAX_LEN)
                return fail(u, hname, "pax %.*s record with a NUL or too long", (int)klen, key);
            free(*dst);
            *dst = xstrndup(eq + 1, vlen);
        }
        pos += len;
    }
    return 0;
}

/* the member's components (snapshot_path.c), or -1 after a message; comps
 * is untouched on a refusal, so the caller releases it once either way */
static int split_name(struct unpacker *u, const char *name, struct strlist *comps)
{
    enum snapshot_path_verdict v = snapshot_path_split(name, comps);
    return v ? fail(u, name, "%s", snapshot_path_why(v, 0)) : 0;
}

/* does target, read from the directory of the link at comps, stay inside?
 * (lexically; check_links() follows the tree's links at the end) */
static int link_target_ok(struct unpacker *u, const char *name, const struct strlist *comps,
                          const char *target)
{
    enum snapshot_path_verdict v = snapshot_path_link_ok(comps->n - 1, target);
    if (v == SNAPSHOT_PATH_ABSOLUTE)
        return fail(u, name, "symlink to an absolute path ('%s')", target);
    if (v == SNAPSHOT_PATH_LEAVES)
        return fail(u, name, "symlink target '%s' leaves the snapshot", target);
    return v ? fail(u, name, "%s", snapshot_path_why(v, 1)) : 0;
}

/* open the directory holding the last component, creating missing parents;
 * never through a symlink. An fd to close, or -1 after a message. */
static int open_parent(struct unpacker *u, const char *name, const struct strlist *comps)
{
    int cur = dup(u->rootfd);
    if (cur < 0)
        return fail(u, name, "%s", strerror(errno));
    struct strbuf path = STRBUF_INIT;
    for (size_t i = 0; i + 1 < comps->n; i++) {
        const char *c = comps->v[i];
        if (path.len)
            strbuf_addc(&path, '/');
        strbuf_adds(&path, c);
        int fd = openat(cur, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
            if (mkdirat(cur, c, 0755) < 0 && errno != EEXIST) {
                int rc = fail(u, name, "cannot create '%s': %s", path.buf, strerror(errno));
                close(cur);
                strbuf_release(&path);
                return rc;
            }
            fd = openat(cur, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0) {
            int e = errno;
            struct stat st;
            int rc;
            if (fstatat(cur, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                rc = fail(u, name, "would be written through the symlink '%s'", path.buf);
            else if (e == ENOTDIR || e == ELOOP)
                rc = fail(u, name, "'%s' is not a directory", path.buf);
            else
                rc = fail(u, name, "cannot open '%s': %s", path.buf, strerror(e));
            close(cur);
            strbuf_release(&path);
            return rc;
        }
        close(cur);
        cur = fd;
    }
    strbuf_release(&path);
    return cur;
}

/* the path exists already: say why that is wrong */
static int exists_error(struct unpacker *u, const char *name, int pfd, const char *last)
{
    struct stat st;
    if (fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return fail(u, name, "would replace the symlink of the same name");
    if (fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
        return fail(u, name, "conflicts with a directory of the same name");
    return fail(u, name, "duplicate member");
}

static int extract_file(struct unpacker *u, const char *name, int pfd, const char *last,
                        unsigned mode, uint64_t size)
{
    int fd = openat(pfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    (mode & 0111) ? 0755 : 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            return exists_error(u, name, pfd, last);
        return fail(u, name, "cannot create: %s", strerror(errno));
    }
    char *buf = xmalloc(65536);
    uint64_t left = size;
    int rc = 0;
    while (left && !rc) {
        size_t want = left < 65536 ? (size_t)left : 65536;
        long got = rd(u, buf, want, name);
        if (got < 0) {
            rc = -1;
        } else if ((size_t)got < want) {
            rc = fail(u, name, "truncated archive (ends inside the member's data)");
        } else {
            for (size_t off = 0; off < want && !rc;) {
                ssize_t w = write(fd, buf + off, want - off);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0)
                    rc = fail(u, name, "cannot write: %s", w < 0 ? strerror(errno) : "short");
                else
                    off += (size_t)w;
            }
            left -= want;
        }
    }
    free(buf);
    if (close(fd) < 0 && !rc)
        rc = fail(u, name, "cannot write: %s", strerror(errno));
    if (!rc)
        rc = skip_bytes(u, (BLOCK - size % BLOCK) % BLOCK, name);
    return rc;
}

/* one member (not a pax header): validate the header, then create it */
static int extract_member(struct unpacker *u, const struct ustar *h, const char *name,
                          const char *link, uint64_t size)
{
    char type = h->typeflag;
    switch (type) {
    case '0':
    case '\0':
    case '5':
    case '2':
        break;
    case '1':
        return fail(u, name, "hard links are not allowed");
    case '3':
        return fail(u, name, "character device nodes are not allowed");
    case '4':
        return fail(u, name, "block device nodes are not allowed");
    case '6':
        return fail(u, name, "FIFOs are not allowed");
    case 'L':
    case 'K':
        return fail(u, name, "GNU long-name headers are not supported (use pax)");
    case 'g':
        return fail(u, name, "pax global headers are not supported");
    default:
        if ((unsigned char)type < 0x20 || (unsigned char)type >= 0x7f)
            type = '?';
        return fail(u, name, "member type '%c' is not allowed", type);
    }
    if (type != '0' && type != '\0' && size != 0)
        return fail(u, name, "%s with data", type == '5' ? "directory" : "symlink");
    if (size > snapshot_limits.max_file)
        return fail(u, name, "declared size %llu is over the %zu-byte limit",
                    (unsigned long long)size, snapshot_limits.max_file);
    /* checked before any data is read: a gzip bomb stops here */
    if (u->total + size > snapshot_limits.max_total)
        return fail(u, name, "the archive's data would exceed the %zu-byte limit",
                    snapshot_limits.max_total);
    u->total += size;

    struct strlist comps = STRLIST_INIT;
    int rc = split_name(u, name, &comps);
    if (!rc && comps.n == 0) {
        if (type == '5') { /* "./": the root itself */
            strlist_release(&comps);
            return 0;
        }
        rc = fail(u, name, "empty name");
    }
    if (!rc && type == '2')
        rc = link_target_ok(u, name, &comps, link);
    char *norm = NULL;
    if (!rc) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; i < comps.n; i++) {
            if (i)
                strbuf_addc(&sb, '/');
            strbuf_adds(&sb, comps.v[i]);
        }
        norm = strbuf_detach(&sb);
        if (nameset_add(&u->seen, norm))
            rc = fail(u, name, "duplicate member");
    }
    int pfd = -1;
    if (!rc) {
        pfd = open_parent(u, name, &comps);
        if (pfd < 0)
            rc = -1;
    }
    if (!rc) {
        const char *last = comps.v[comps.n - 1];
        uint64_t mode = 0644;
        parse_octal(h->mode, sizeof(h->mode), &mode);
        if (type == '5') {
            if (mkdirat(pfd, last, 0755) < 0) {
                struct stat st;
                /* made implicitly for an earlier member: fine */
                if (!(errno == EEXIST && fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                      S_ISDIR(st.st_mode)))
                    rc = errno == EEXIST ? exists_error(u, name, pfd, last)
                                         : fail(u, name, "cannot create: %s", strerror(errno));
            }
        } else if (type == '2') {
            if (symlinkat(link, pfd, last) < 0)
                rc = errno == EEXIST ? exists_error(u, name, pfd, last)
                                     : fail(u, name, "cannot create: %s", strerror(errno));
            else
                strlist_add(&u->links, norm);
        } else {
            rc = extract_file(u, name, pfd, last, (unsigned)mode, size);
        }
    }
    if (pfd >= 0)
        close(pfd);
    if (!rc) {
        free(u->last);
        u->last = norm;
        norm = NULL;
    }
    free(norm);
    strlist_release(&comps);
    return rc;
}

/* after the first zero block: a second one, or the end of the stream */
static int end_of_archive(struct unpacker *u)
{
    char blk[BLOCK];
    long got = rd(u, blk, BLOCK, NULL);
    if (got < 0)
        return -1;
    if (got > 0 && (got < BLOCK || !is_zero(blk, BLOCK)))
        return fail(u, NULL, "data after the end-of-archive block");
    if (u->have_pax)
        return fail(u, NULL, "pax extended header without a member after it");
    if (!u->seen.n)
        return fail(u, NULL, "archive has no members");
    return 0;
}

static int unpack_stream(struct unpacker *u)
{
    for (;;) {
        struct ustar h;
        long got = rd(u, &h, BLOCK, NULL);
        if (got < 0)
            return -1;
        if (got == 0) {
            if (!u->entries)
                return fail(u, NULL, "empty file, not a snapshot");
            return fail(u, NULL, "truncated archive (no end-of-archive block after member '%s')",
                        last_name(u));
        }
        if (got < BLOCK) {
            if (!u->entries)
                return fail(u, NULL, "not a tar archive (shorter than one header)");
            return fail(u, NULL, "truncated archive (ends inside the header after member '%s')",
                        last_name(u));
        }
        if (is_zero(&h, BLOCK)) {
            if (!u->entries)
                return fail(u, NULL, "archive has no members");
            return end_of_archive(u);
        }
        uint64_t sum;
        if (parse_octal(h.chksum, sizeof(h.chksum), &sum) ||
            (sum != snapshot_header_sum(&h, 0) && sum != snapshot_header_sum(&h, 1))) {
            if (!u->entries)
                return fail(u, NULL, "not a tar archive (bad header checksum in the first block)");
            return fail(u, NULL, "bad header checksum in the header after member '%s'",
                        last_name(u));
        }
        char *name = NULL;
        if (h.prefix[0] && !u->pax_path) {
            char *pre = field(h.prefix, sizeof(h.prefix)), *nm = field(h.name, sizeof(h.name));
            name = xasprintf("%s/%s", pre, nm);
            free(pre);
            free(nm);
        } else {
            name = u->pax_path ? xstrdup(u->pax_path) : field(h.name, sizeof(h.name));
        }
        char *link = u->pax_link ? xstrdup(u->pax_link) : field(h.linkname, sizeof(h.linkname));
        uint64_t size = 0;
        int rc = 0;
        if (memcmp(h.magic, "ustar", 5) != 0)
            rc = fail(u, name, "not a ustar header (old or foreign tar format)");
        else if (parse_octal(h.size, sizeof(h.size), &size))
            rc = fail(u, name, "size field is not a number below 2^64 (%.12s)", h.size);
        else if (++u->entries > snapshot_limits.max_entries)
            rc = fail(u, name, "more than %zu members", snapshot_limits.max_entries);
        if (!rc && h.typeflag == 'x') {
            if (u->have_pax)
                rc = fail(u, name, "two pax extended headers in a row");
            else if (size > PAX_MAX)
                rc = fail(u, name, "pax extended header of %llu bytes (limit %u)",
                          (unsigned long long)size, PAX_MAX);
            if (!rc) {
                size_t padded = (size_t)((size + BLOCK - 1) / BLOCK * BLOCK);
                char *buf = xmalloc(padded ? padded : 1);
                long n = rd(u, buf, padded, name);
                if (n < 0)
                    rc = -1;
                else if ((size_t)n < padded)
                    rc = fail(u, name, "truncated archive (ends inside a pax header)");
                else
                    rc = pax_parse(u, name, buf, (size_t)size);
                free(buf);
                u->have_pax = 1;
            }
        } else if (!rc) {
            rc = extract_member(u, &h, name, link, size);
            free(u->pax_path);
            free(u->pax_link);
            u->pax_path = u->pax_link = NULL;
            u->have_pax = 0;
        }
        free(name);
        free(link);
        if (rc)
            return rc;
    }
}

/* every link resolved physically in the finished tree (snapshot_links.c):
 * its text alone cannot show a target that passes through another link */
static int check_links(struct unpacker *u)
{
    size_t budget = SNAPSHOT_LINK_STEPS;
    for (size_t i = 0; i < u->links.n; i++) {
        const char *name = u->links.v[i];
        char *via = NULL;
        int rc = snapshot_link_check(u->rootfd, name, &budget, &via, NULL);
        if (rc == SNAPSHOT_LINK_ESCAPES) {
            char target[NAME_MAX_LEN + 1];
            ssize_t n = readlinkat(u->rootfd, name, target, NAME_MAX_LEN);
            target[n < 0 ? 0 : n] = '\0';
            if (via)
                rc = fail(u, name,
                          "symlink target '%s' leaves the snapshot through the symlink '%s'",
                          target, via);
            else
                rc = fail(u, name, "symlink target '%s' leaves the snapshot", target);
        } else if (rc == SNAPSHOT_LINK_BUDGET) {
            rc = fail(u, name, "symlinks need more than %u steps to resolve (chains too long)",
                      SNAPSHOT_LINK_STEPS);
        } else if (rc < 0) {
            rc = fail(u, name, "cannot check the symlink: %s", strerror(-rc));
        }
        free(via);
        if (rc)
            return -1;
    }
    return 0;
}

static char *make_private_dir(void)
{
    char *tmpl = tmpdirs_template("rocm-vla-doctor-snapshot.");
    if (!tmpdirs_make(tmpl)) { /* mode 0700; removed also when the run is killed */
        error("cannot create a private directory %s: %s", tmpl, strerror(errno));
        free(tmpl);
        return NULL;
    }
    return tmpl;
}

int snapshot_unpack(const char *tarball, char **dir_out)
{
    struct unpacker u;
    memset(&u, 0, sizeof(u));
    u.tarball = tarball;
    u.rootfd = -1;

    int fd = open(tarball, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return fail(&u, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(&u, NULL, "not a regular file");
    }
    char *dir = make_private_dir();
    if (!dir) {
        close(fd);
        return -1;
    }
    int rc = 0;
    u.rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (u.rootfd < 0) {
        rc = fail(&u, NULL, "cannot open '%s': %s", dir, strerror(errno));
        close(fd);
    } else {
        /* gzread reads an uncompressed tar transparently */
        u.gz = gzdopen(fd, "rb");
        if (!u.gz) {
            close(fd);
            rc = fail(&u, NULL, "cannot read: %s", strerror(errno));
        } else {
            gzbuffer(u.gz, 128u << 10);
            rc = unpack_stream(&u);
            gzclose_r(u.gz);
            if (!rc)
                rc = check_links(&u);
        }
        close(u.rootfd);
    }
    free(u.last);
    free(u.pax_path);
    free(u.pax_link);
    nameset_release(&u.seen);
    strlist_release(&u.links);
    if (rc) {
        snapshot_remove_tree(dir);
        free(dir);
        return -1;
    }
    *dir_out = dir;
    return 0;
}
