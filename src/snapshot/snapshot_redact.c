/* snapshot_redact.c - collect keeps only what the probes read of the user
 * and package databases (see snapshot_redact.h). */
#include "snapshot_redact.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/rootfs.h"
#include "../core/util.h"

/* Package-name prefixes kept from dpkg's status file. probe_rocm reads
 * libamdhip64-<N>; the rest is the GPU stack a reader of the snapshot (or a
 * later probe) needs for context: the ROCm and HIP packages, the kernel
 * driver and its firmware, HSA, the code-object compiler, and the Mesa and
 * Vulkan drivers. A probe that reads another package adds it here. */
static const char *const dpkg_keep[] = {
    "libamdhip64",
    "rocm",
    "hip",
    "amdgpu",
    "rock-dkms",
    "hsa",
    "libhsa",
    "comgr",
    "libamd-comgr",
    "libdrm-amdgpu",
    "firmware-amd-graphics",
    "linux-firmware",
    "mesa-vulkan-drivers",
    "libvulkan",
    "vulkan",
};

int redact_dpkg_keep(const char *package)
{
    for (size_t i = 0; i < ARRAY_SIZE(dpkg_keep); i++)
        if (str_starts(package, dpkg_keep[i]))
            return 1;
    return 0;
}

char *redact_passwd(const char *text, const char *user)
{
    struct strbuf out = STRBUF_INIT;
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; user && i < lines.n; i++) {
        char *name = str_colon_field(lines.v[i], 0);
        if (name && strcmp(name, user) == 0)
            strbuf_addf(&out, "%s\n", lines.v[i]);
        free(name);
    }
    strlist_release(&lines);
    if (!out.buf)
        strbuf_adds(&out, "");
    return strbuf_detach(&out);
}

static int has_gid(const char *line, const unsigned long *gids, size_t n)
{
    char *g = str_colon_field(line, 2);
    uint64_t v;
    int hit = 0;
    if (g && *g && str_parse_u64(g, &v) == 0)
        for (size_t i = 0; i < n && !hit; i++)
            hit = gids[i] == v;
    free(g);
    return hit;
}

char *redact_group(const char *text, const char *user, const unsigned long *gids, size_t ngids)
{
    struct strbuf out = STRBUF_INIT;
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        const char *l = lines.v[i];
        char *name = str_colon_field(l, 0), *pw = str_colon_field(l, 1),
             *gid = str_colon_field(l, 2), *members = str_colon_field(l, 3);
        int member = 0;
        if (user && members) {
            struct strlist m = STRLIST_INIT;
            strlist_split(&m, members, ",");
            for (size_t j = 0; j < m.n && !member; j++)
                member = strcmp(str_trim(m.v[j]), user) == 0;
            strlist_release(&m);
        }
        if (name && gid &&
            (strcmp(name, "render") == 0 || strcmp(name, "video") == 0 || member ||
             has_gid(l, gids, ngids)))
            strbuf_addf(&out, "%s:%s:%s:%s\n", name, pw ? pw : "", gid, member ? user : "");
        free(name);
        free(pw);
        free(gid);
        free(members);
    }
    strlist_release(&lines);
    if (!out.buf)
        strbuf_adds(&out, "");
    return strbuf_detach(&out);
}

char *redact_dpkg_status(const char *text)
{
    /* paragraphs separated by blank lines; the first "Package:" names one */
    struct strbuf out = STRBUF_INIT;
    const char *p = text;
    while (*p) {
        while (*p == '\n')
            p++;
        if (!*p)
            break;
        const char *end = strstr(p, "\n\n");
        size_t len = end ? (size_t)(end - p) + 1 : strlen(p);
        char *para = xstrndup(p, len);
        const char *pkg = str_starts(para, "Package:") ? para : strstr(para, "\nPackage:");
        if (pkg) {
            pkg += *pkg == '\n' ? 9 : 8;
            while (*pkg == ' ' || *pkg == '\t')
                pkg++;
            char *name = xstrndup(pkg, strcspn(pkg, " \t\n"));
            if (redact_dpkg_keep(name)) {
                strbuf_add(&out, para, len);
                if (len && para[len - 1] != '\n')
                    strbuf_addc(&out, '\n');
                strbuf_addc(&out, '\n');
            }
            free(name);
        }
        free(para);
        p += len;
    }
    if (!out.buf)
        strbuf_adds(&out, "");
    return strbuf_detach(&out);
}

/* ---- the staging tree ---------------------------------------------------- */

/* the staged file for a root path (symlinks resolved inside the stage), or
 * NULL when collect did not record it */
static char *staged(const char *stage, const char *path)
{
    char *rel = NULL, *host = NULL;
    if (rootfs_init(stage) == 0 && rootfs_realpath(path, &rel) == 0) {
        host = xasprintf("%s%s", stage, rel);
        struct stat st;
        if (lstat(host, &st) < 0 || !S_ISREG(st.st_mode)) {
            free(host);
            host = NULL;
        }
    }
    free(rel);
    rootfs_release();
    return host;
}

static char *slurp(const char *host)
{
    char *buf = NULL;
    size_t len;
    if (!host || read_user_file(host, ROOTFS_MAX_FILE, &buf, &len))
        return NULL;
    return buf;
}

/* replace host's content; 0 or -1 after printing why */
static int rewrite(const char *host, const char *text)
{
    char *tmp = xasprintf("%s.redact.XXXXXX", host);
    int fd = mkstemp(tmp), rc = 0;
    if (fd < 0) {
        rc = error("collect: cannot write '%s': %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    fchmod(fd, 0644);
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = error("collect: cannot write '%s': %s", host, n < 0 ? strerror(errno) : "short");
            break;
        }
        off += (size_t)n;
    }
    if (close(fd) < 0 && !rc)
        rc = error("collect: cannot write '%s': %s", host, strerror(errno));
    if (!rc && rename(tmp, host) < 0)
        rc = error("collect: cannot write '%s': %s", host, strerror(errno));
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc ? -1 : 0;
}

/* the identity query: the user's name and gids */
static char *identity(const char *stage, struct strlist *gids)
{
    char *path = xasprintf("%s" ROOTFS_SNAPSHOT_DIR "/identity", stage);
    char *text = slurp(path), *user = NULL;
    free(path);
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text ? text : "", "\n");
    for (size_t i = 0; i < lines.n; i++) {
        char *l = lines.v[i];
        if (str_starts(l, "user ") && !user)
            user = xstrdup(str_trim(l + 5));
        else if (str_starts(l, "gid "))
            strlist_add(gids, str_trim(l + 4));
        else if (str_starts(l, "groups"))
            strlist_split(gids, l + 6, " \t");
    }
    strlist_release(&lines);
    free(text);
    return user;
}

/* the owners of the device nodes: "<path> <mode> <uid> <gid>" lines */
static void devnode_gids(const char *stage, struct strlist *gids)
{
    char *path = xasprintf("%s" ROOTFS_SNAPSHOT_DIR "/devnodes", stage);
    char *text = slurp(path);
    free(path);
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text ? text : "", "\n");
    for (size_t i = 0; i < lines.n; i++) {
        char p[256], gid[32];
        unsigned mode;
        unsigned long uid;
        if (sscanf(lines.v[i], "%255s %o %lu %31s", p, &mode, &uid, gid) == 4)
            strlist_add(gids, gid);
    }
    strlist_release(&lines);
    free(text);
}

/* the user's primary gid in the (unfiltered) staged passwd */
static void passwd_gid(const char *text, const char *user, struct strlist *gids)
{
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        char *name = str_colon_field(lines.v[i], 0);
        if (name && strcmp(name, user) == 0) {
            char *g = str_colon_field(lines.v[i], 3);
            if (g)
                strlist_add_owned(gids, g);
        }
        free(name);
    }
    strlist_release(&lines);
}

int snapshot_redact(const char *stage)
{
    struct strlist gid_words = STRLIST_INIT;
    char *user = identity(stage, &gid_words);
    devnode_gids(stage, &gid_words);
    int rc = 0;

    char *pw_host = staged(stage, "/etc/passwd");
    char *pw = slurp(pw_host);
    if (pw && user)
        passwd_gid(pw, user, &gid_words);
    if (pw) {
        char *r = redact_passwd(pw, user);
        rc |= rewrite(pw_host, r);
        free(r);
    }

    unsigned long *gids = xcalloc(gid_words.n + 1, sizeof(*gids));
    size_t ngids = 0;
    for (size_t i = 0; i < gid_words.n; i++) {
        uint64_t v;
        if (str_parse_u64(gid_words.v[i], &v) == 0)
            gids[ngids++] = (unsigned long)v;
    }
    char *gr_host = staged(stage, "/etc/group");
    char *gr = slurp(gr_host);
    if (gr) {
        char *r = redact_group(gr, user, gids, ngids);
        rc |= rewrite(gr_host, r);
        free(r);
    }

    char *st_host = staged(stage, "/var/lib/dpkg/status");
    char *st = slurp(st_host);
    if (st) {
        char *r = redact_dpkg_status(st);
        rc |= rewrite(st_host, r);
        free(r);
    }
    free(st);
    free(st_host);
    free(gr);
    free(gr_host);
    free(gids);
    free(pw);
    free(pw_host);
    free(user);
    strlist_release(&gid_words);
    return rc ? -1 : 0;
}

/* ---- free text (the markdown summary) ------------------------------------ */

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int alnum_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* where a path component ends */
static int path_end(char c)
{
    return !c || c == '/' || strchr(" \t\n'\"`:;,()[]{}<>|=", c);
}

/* the length of a home directory at s, or 0 */
static size_t home_at(const char *s, const char *start)
{
    static const char *const homes[] = {"/var/home/", "/home/"};
    for (size_t i = 0; i < ARRAY_SIZE(homes); i++) {
        size_t k = strlen(homes[i]);
        if (strncmp(s, homes[i], k) || path_end(s[k]))
            continue;
        while (!path_end(s[k]))
            k++;
        return k;
    }
    /* /root alone or as a path's start, not inside another path (/srv/root) */
    if (strncmp(s, "/root", 5) == 0 && path_end(s[5]) &&
        (s == start || (s[-1] != '/' && !word_char(s[-1]) && s[-1] != '.')))
        return 5;
    return 0;
}

char *redact_text(const char *s, const struct redact_word *w, size_t n)
{
    struct strbuf out = STRBUF_INIT;
    strbuf_adds(&out, "");
    for (const char *p = s; p && *p;) {
        size_t k = home_at(p, s);
        if (k) {
            strbuf_addc(&out, '~');
            p += k;
            continue;
        }
        /* a name wherever it stands outside a longer alphanumeric run
         * (/data/grace-scratch, lab-pc10_tools), in any case (GRACE), and a
         * host's name with the domain after it (issue 30) */
        int hit = 0;
        for (size_t i = 0; i < n && !hit && (p == s || !alnum_char(p[-1])); i++) {
            size_t len = w[i].word ? strlen(w[i].word) : 0;
            if (len < 2 || strncasecmp(p, w[i].word, len) || alnum_char(p[len]))
                continue;
            strbuf_adds(&out, w[i].as);
            p += len;
            while (w[i].domain && p[0] == '.' && alnum_char(p[1])) {
                p++;
                while (alnum_char(*p) || *p == '-')
                    p++;
            }
            hit = 1;
        }
        if (!hit)
            strbuf_addc(&out, *p++);
    }
    return strbuf_detach(&out);
}
