/* snapshot_linkplan.c - the target collect archives for each symlink.
 *
 * A live host has absolute links (/opt/rocm -> /etc/alternatives/rocm) and
 * relative ones with more `..` than levels (harmless at /, where `..` stays
 * put); the reader refuses both, so each is first written as what rootfs.c's
 * in-root resolution makes of it lexically: `..` up to the snapshot root,
 * then the rest. Other targets are kept verbatim. The reader then resolves
 * every link physically, through the others (snapshot_links.c), and refuses
 * one that climbs out on the way; a live host can have such a link (a
 * target through a link to a shallower directory, then `..` past /, which
 * the host clamps at /). Those links, found with the same check over the
 * planned texts, are written as the direct path to where rootfs.c resolves
 * them inside the root, until no link climbs out, so that every snapshot
 * collect writes is one the reader accepts. */
#include "snapshot_linkplan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/rootfs.h"
#include "snapshot_tar.h"
#include "../core/util.h"

#define ROUNDS_MAX 8

/* `..` past the root clamped, lexically from the link's directory */
static char *portable_target(const char *rel, const char *target)
{
    long depth = 0;
    for (const char *s = rel; *s; s++)
        depth += *s == '/';
    struct strlist t = STRLIST_INIT;
    strlist_split(&t, target, "/");
    long cur = target[0] == '/' ? 0 : depth;
    int escapes = target[0] == '/';
    for (size_t i = 0; i < t.n; i++) {
        if (strcmp(t.v[i], "..") == 0 && cur-- == 0)
            escapes = 1, cur = 0;
        else if (strcmp(t.v[i], ".") != 0 && strcmp(t.v[i], "..") != 0)
            cur++;
    }
    if (!escapes) {
        strlist_release(&t);
        return xstrdup(target);
    }
    struct strbuf sb = STRBUF_INIT;
    cur = depth;
    if (target[0] == '/') {
        for (long i = 0; i < depth; i++)
            strbuf_adds(&sb, sb.len ? "/.." : "..");
        cur = 0;
    }
    for (size_t i = 0; i < t.n; i++) {
        if (strcmp(t.v[i], ".") == 0)
            continue;
        if (strcmp(t.v[i], "..") == 0) {
            if (cur == 0)
                continue; /* at the root, `..` stays there */
            cur--;
        } else {
            cur++;
        }
        if (sb.len)
            strbuf_addc(&sb, '/');
        strbuf_adds(&sb, t.v[i]);
    }
    strlist_release(&t);
    if (!sb.len)
        strbuf_adds(&sb, ".");
    return strbuf_detach(&sb);
}

static void add(struct linkplan *lp, char *rel, char *text)
{
    if (lp->n == lp->cap) {
        lp->cap = lp->cap ? 2 * lp->cap : 64;
        lp->v = xrealloc(lp->v, lp->cap * sizeof(*lp->v));
    }
    lp->v[lp->n].rel = rel;
    lp->v[lp->n].text = text;
    lp->n++;
}

static int walk(const char *root, const char *rel, int depth, struct linkplan *lp)
{
    char *host = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
    struct strlist names = STRLIST_INIT;
    if (snapshot_list_dir(host, &names)) {
        free(host);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < names.n && !rc; i++) {
        char *crel = *rel ? xasprintf("%s/%s", rel, names.v[i]) : xstrdup(names.v[i]);
        char *chost = xasprintf("%s/%s", host, names.v[i]);
        struct stat st;
        char target[PATH_MAX];
        if (lstat(chost, &st) < 0) {
            rc = error("cannot stat '%s': %s", chost, strerror(errno));
        } else if (S_ISDIR(st.st_mode) && depth + 1 <= DEPTH_MAX) {
            rc = walk(root, crel, depth + 1, lp); /* deeper: the writer says why */
        } else if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(chost, target, sizeof(target) - 1);
            if (n < 0) {
                rc = error("cannot read link '%s': %s", chost, strerror(errno));
            } else {
                target[n] = '\0';
                add(lp, crel, portable_target(crel, target));
                crel = NULL;
            }
        }
        free(crel);
        free(chost);
    }
    strlist_release(&names);
    free(host);
    return rc;
}

static int cmp_rel(const void *a, const void *b)
{
    return strcmp(((const struct linkplan_entry *)a)->rel, ((const struct linkplan_entry *)b)->rel);
}

const char *linkplan_text(const struct linkplan *lp, const char *rel)
{
    struct linkplan_entry key = {(char *)rel, NULL};
    const struct linkplan_entry *e =
        lp->n ? bsearch(&key, lp->v, lp->n, sizeof(*lp->v), cmp_rel) : NULL;
    return e ? e->text : NULL;
}

static int planned(void *ctx, const char *rel, char **out)
{
    const char *t = linkplan_text(ctx, rel);
    if (!t)
        return -ENOENT;
    *out = xstrdup(t);
    return 0;
}

/* the path from the directory of the link at rel to the root path to,
 * through their common directories ("/sys/class/drm/card0" to
 * "/sys/devices/x/card0" is "../../devices/x/card0") */
static char *relative(const char *rel, const char *to)
{
    struct strlist from = STRLIST_INIT, dst = STRLIST_INIT;
    strlist_split(&from, rel, "/");
    strlist_split(&dst, to, "/");
    size_t dir = from.n ? from.n - 1 : 0, common = 0;
    while (common < dir && common < dst.n && strcmp(from.v[common], dst.v[common]) == 0)
        common++;
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = common; i < dir; i++)
        strbuf_adds(&sb, sb.len ? "/.." : "..");
    for (size_t i = common; i < dst.n; i++) {
        if (sb.len)
            strbuf_addc(&sb, '/');
        strbuf_adds(&sb, dst.v[i]);
    }
    if (!sb.len)
        strbuf_adds(&sb, ".");
    strlist_release(&from);
    strlist_release(&dst);
    char *out = portable_target(rel, sb.buf); /* a raw rest after a missing part */
    strbuf_release(&sb);
    return out;
}

/* rewrite the links whose planned text climbs out; 1 when one changed, 0
 * when none climbs out, -1 after printing why */
static int round_once(int rootfd, struct linkplan *lp)
{
    size_t budget = SNAPSHOT_LINK_STEPS;
    const struct snapshot_link_texts tx = {planned, lp};
    int changed = 0;
    for (size_t i = 0; i < lp->n; i++) {
        char *via = NULL;
        int rc = snapshot_link_check(rootfd, lp->v[i].rel, &budget, &via, &tx);
        free(via);
        if (rc == SNAPSHOT_LINK_BUDGET)
            return error("cannot archive the links: more than %u steps to resolve them",
                         SNAPSHOT_LINK_STEPS);
        if (rc != SNAPSHOT_LINK_ESCAPES)
            continue;
        char *path = xasprintf("/%s", lp->v[i].rel), *real = NULL;
        if (rootfs_realpath(path, &real) == 0) {
            char *text = relative(lp->v[i].rel, real);
            if (strcmp(text, lp->v[i].text) != 0) {
                free(lp->v[i].text);
                lp->v[i].text = text;
                text = NULL;
                changed = 1;
            }
            free(text);
        }
        free(real);
        free(path);
    }
    return changed;
}

int linkplan_build(const char *dir, struct linkplan *lp)
{
    memset(lp, 0, sizeof(*lp));
    int rc = walk(dir, "", 0, lp);
    if (rc || !lp->n)
        return rc ? -1 : 0;
    qsort(lp->v, lp->n, sizeof(*lp->v), cmp_rel);
    int rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return error("cannot open '%s': %s", dir, strerror(errno));
    if (rootfs_init(dir) != 0) {
        close(rootfd);
        return error("cannot read '%s'", dir);
    }
    int changed = 1;
    for (int r = 0; r < ROUNDS_MAX && changed > 0; r++)
        changed = round_once(rootfd, lp);
    rootfs_release();
    close(rootfd);
    return changed < 0 ? -1 : 0;
}

void linkplan_release(struct linkplan *lp)
{
    for (size_t i = 0; i < lp->n; i++) {
        free(lp->v[i].rel);
        free(lp->v[i].text);
    }
    free(lp->v);
    memset(lp, 0, sizeof(*lp));
}
