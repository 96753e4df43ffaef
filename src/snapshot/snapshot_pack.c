/* snapshot_pack.c - collect's tarball writer: the staging tree as POSIX
 * ustar through gzwrite, in sorted order with mtime/uid/gid 0 and modes
 * 0644/0755 so that two packs of a tree are byte-identical. A pax header
 * ('x') precedes a member only when its path or link target does not fit the
 * ustar fields. The archive is written to a temporary file next to the
 * output and renamed into place (src/core/outfile.c), so a failed collect leaves
 * no half file; an existing device or pipe is written in place. */
#include "snapshot.h"

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

#include "../core/outfile.h"
#include "snapshot_linkplan.h"
#include "snapshot_tar.h"
#include "../core/util.h"

struct packer {
    gzFile gz;
    const char *root;
    size_t entries;
    uint64_t total;
    struct linkplan *links; /* the target each link is archived with */
};

static void put_octal(char *field, size_t width, uint64_t v)
{
    /* width-1 zero-padded digits and a NUL, the form every tar reads */
    snprintf(field, width, "%0*llo", (int)(width - 1), (unsigned long long)v);
}

static int gz_put(struct packer *p, const void *buf, size_t n)
{
    if (n && gzwrite(p->gz, buf, (unsigned)n) != (int)n) {
        int zerr;
        const char *msg = gzerror(p->gz, &zerr);
        return error("cannot write the snapshot: %s", zerr == Z_ERRNO ? strerror(errno) : msg);
    }
    return 0;
}

static int put_padding(struct packer *p, uint64_t size)
{
    static const char zeros[BLOCK];
    size_t pad = (size_t)((BLOCK - size % BLOCK) % BLOCK);
    return gz_put(p, zeros, pad);
}

/* split name into ustar's prefix (<= 155) and name (<= 100) at a '/' */
static int ustar_split(const char *name, struct ustar *h)
{
    size_t len = strlen(name);
    if (len <= sizeof(h->name)) {
        memcpy(h->name, name, len);
        return 0;
    }
    for (size_t i = 0; i < len && i <= sizeof(h->prefix); i++) {
        if (name[i] == '/' && len - i - 1 <= sizeof(h->name) && len - i - 1 > 0) {
            memcpy(h->prefix, name, i);
            memcpy(h->name, name + i + 1, len - i - 1);
            return 0;
        }
    }
    return -1;
}

static void pax_record(struct strbuf *sb, const char *key, const char *value)
{
    /* "<len> key=value\n" where len counts its own digits */
    size_t body = strlen(key) + strlen(value) + 3; /* ' ' '=' '\n' */
    size_t len = body + 1;
    for (;;) {
        int digits = snprintf(NULL, 0, "%zu", len);
        if (body + (size_t)digits == len)
            break;
        len = body + (size_t)digits;
    }
    strbuf_addf(sb, "%zu %s=%s\n", len, key, value);
}

static void header_finish(struct ustar *h)
{
    memcpy(h->magic, "ustar", 6);
    memcpy(h->version, "00", 2);
    put_octal(h->uid, sizeof(h->uid), 0);
    put_octal(h->gid, sizeof(h->gid), 0);
    put_octal(h->mtime, sizeof(h->mtime), 0);
    memcpy(h->uname, "root", 4);
    memcpy(h->gname, "root", 4);
    put_octal(h->devmajor, sizeof(h->devmajor), 0);
    put_octal(h->devminor, sizeof(h->devminor), 0);
    snprintf(h->chksum, sizeof(h->chksum), "%06o", snapshot_header_sum(h, 0));
    h->chksum[7] = ' ';
}

/* one member's header, preceded by a pax header when a name does not fit */
static int put_header(struct packer *p, const char *name, char type, unsigned mode, uint64_t size,
                      const char *link)
{
    struct ustar h;
    memset(&h, 0, sizeof(h));
    struct strbuf pax = STRBUF_INIT;

    if (strlen(name) > NAME_MAX_LEN || (link && strlen(link) > NAME_MAX_LEN))
        return error("cannot archive '%s': name or link target too long", name);
    if (ustar_split(name, &h)) {
        pax_record(&pax, "path", name);
        memset(h.prefix, 0, sizeof(h.prefix));
        /* readers without pax support see a truncated name */
        memcpy(h.name, name, sizeof(h.name));
    }
    if (link) {
        size_t n = strlen(link);
        if (n > sizeof(h.linkname)) {
            pax_record(&pax, "linkpath", link);
            n = sizeof(h.linkname);
        }
        memcpy(h.linkname, link, n);
    }
    if (++p->entries + (pax.len ? 1 : 0) > snapshot_limits.max_entries) {
        strbuf_release(&pax);
        return error("cannot archive '%s': more than %zu members", name,
                     snapshot_limits.max_entries);
    }
    if (pax.len) {
        struct ustar x;
        memset(&x, 0, sizeof(x));
        memcpy(x.name, PAX_HEADER_NAME, sizeof(PAX_HEADER_NAME) - 1);
        put_octal(x.mode, sizeof(x.mode), 0644);
        put_octal(x.size, sizeof(x.size), pax.len);
        x.typeflag = 'x';
        header_finish(&x);
        p->entries++;
        int rc = gz_put(p, &x, sizeof(x));
        if (!rc)
            rc = gz_put(p, pax.buf, pax.len);
        if (!rc)
            rc = put_padding(p, pax.len);
        strbuf_release(&pax);
        if (rc)
            return rc;
    }
    put_octal(h.mode, sizeof(h.mode), mode);
    put_octal(h.size, sizeof(h.size), size);
    h.typeflag = type;
    header_finish(&h);
    return gz_put(p, &h, sizeof(h));
}

static int put_file(struct packer *p, const char *host, const char *name, const struct stat *st)
{
    if ((uint64_t)st->st_size > snapshot_limits.max_file)
        return error("cannot archive '%s': larger than %zu bytes", name, snapshot_limits.max_file);
    p->total += (uint64_t)st->st_size;
    if (p->total > snapshot_limits.max_total)
        return error("cannot archive '%s': the snapshot would exceed %zu bytes", name,
                     snapshot_limits.max_total);
    int fd = open(host, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return error("cannot read '%s': %s", host, strerror(errno));
    unsigned mode = (st->st_mode & 0111) ? 0755 : 0644;
    int rc = put_header(p, name, '0', mode, (uint64_t)st->st_size, NULL);
    uint64_t left = (uint64_t)st->st_size;
    char buf[65536];
    while (!rc && left) {
        ssize_t n = read(fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* the header already promised st_size bytes */
            rc = error("cannot read '%s': %s", host, n < 0 ? strerror(errno) : "file shrank");
            break;
        }
        rc = gz_put(p, buf, (size_t)n);
        left -= (uint64_t)n;
    }
    close(fd);
    if (!rc)
        rc = put_padding(p, (uint64_t)st->st_size);
    return rc;
}

int snapshot_list_dir(const char *host, struct strlist *names)
{
    DIR *d = opendir(host);
    if (!d)
        return error("cannot read directory '%s': %s", host, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            strlist_add(names, de->d_name);
    closedir(d);
    return 0;
}

/* rel is "" for the root, else "a/b" */
static int put_tree(struct packer *p, const char *rel, int depth)
{
    char *host = *rel ? xasprintf("%s/%s", p->root, rel) : xstrdup(p->root);
    struct strlist names = STRLIST_INIT;
    if (snapshot_list_dir(host, &names)) {
        free(host);
        return -1;
    }
    strlist_sort(&names); /* deterministic order, whatever the filesystem */

    int rc = 0;
    for (size_t i = 0; i < names.n && !rc; i++) {
        char *crel = *rel ? xasprintf("%s/%s", rel, names.v[i]) : xstrdup(names.v[i]);
        char *chost = xasprintf("%s/%s", host, names.v[i]);
        struct stat st;
        if (lstat(chost, &st) < 0) {
            rc = error("cannot stat '%s': %s", chost, strerror(errno));
        } else if (S_ISREG(st.st_mode)) {
            rc = put_file(p, chost, crel, &st);
        } else if (S_ISDIR(st.st_mode)) {
            if (depth + 1 > DEPTH_MAX) {
                rc = error("cannot archive '%s': nested too deep", crel);
            } else {
                char *dname = xasprintf("%s/", crel);
                rc = put_header(p, dname, '5', 0755, 0, NULL);
                free(dname);
                if (!rc)
                    rc = put_tree(p, crel, depth + 1);
            }
        } else if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(chost, target, sizeof(target) - 1);
            if (n < 0) {
                rc = error("cannot read link '%s': %s", chost, strerror(errno));
            } else {
                target[n] = '\0';
                const char *text = linkplan_text(p->links, crel);
                rc = text ? put_header(p, crel, '2', 0777, 0, text)
                          : error("cannot archive '%s': the link appeared while packing", crel);
            }
        } else {
            rc = error("cannot archive '%s': not a file, directory or symlink", crel);
        }
        free(crel);
        free(chost);
    }
    strlist_release(&names);
    free(host);
    return rc;
}

int snapshot_pack(const char *dir, const char *out_path)
{
    /* through a temporary file next to the output, renamed into place at
     * the end (src/core/outfile.c), so that a failed collect never leaves half a
     * tarball; every gzwrite and the final gzclose (the last deflate block
     * and its flush) are checked */
    struct outfile of;
    if (outfile_open(&of, out_path, 0))
        return -1;
    int fd = dup(fileno(of.f));
    struct linkplan lp;
    struct packer p = {fd >= 0 ? gzdopen(fd, "wb9") : NULL, dir, 0, 0, &lp};
    int rc = linkplan_build(dir, &lp);
    if (rc) {
        if (p.gz)
            gzclose(p.gz);
        else if (fd >= 0)
            close(fd);
    } else if (!p.gz) {
        rc = error("cannot write '%s': %s", out_path, strerror(errno));
        if (fd >= 0)
            close(fd);
    } else {
        rc = put_tree(&p, "", 0);
        if (!rc) {
            /* end of archive: two zero blocks */
            static const char zeros[2 * BLOCK];
            rc = gz_put(&p, zeros, sizeof(zeros));
        }
        int zrc = gzclose(p.gz);
        if (!rc && zrc != Z_OK)
            rc = error("cannot write '%s': %s", out_path,
                       zrc == Z_ERRNO ? strerror(errno) : "compression failed");
    }
    linkplan_release(&lp);
    if (outfile_close(&of, rc != 0))
        rc = -1;
    return rc;
}
