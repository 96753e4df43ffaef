/* snapshot_links.c - the unpacker's last check on a snapshot's symlinks.
 *
 * Each link's target is checked lexically when its member is read, but a
 * target may pass through another link: with `a/b/up -> ../..`, the target
 * `a/b/up/../outside` reads as inside and resolves, on the host, one level
 * above the unpacked tree. rootfs.c's in-root reader clamps such a `..` at
 * the root, but the kernel does not, and nothing that is handed a host path
 * may ever leave the tree. So once every member is written, every link is
 * resolved here the way the kernel would: component by component from the
 * link's directory, each component looked up with fstatat(AT_SYMLINK_
 * NOFOLLOW) below the tree's fd (every directory on the way is one this
 * walk has seen not to be a link, so no lookup follows a link by itself),
 * each link met followed by its own text. A `..` above the root, or an
 * absolute target, refuses the archive. A missing component (or a file used
 * as a directory) ends the kernel's walk; the rest is then checked
 * lexically, as the member check does. More than 40 links in one walk is a
 * loop or a chain the kernel refuses with ELOOP as rootfs.c does, so it can
 * lead nowhere and is accepted. The walks share one step budget, so that a
 * hostile archive of long chains cannot keep the check busy for hours. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot_tar.h"
#include "../core/util.h"

#define HOPS_MAX 40 /* the kernel's MAXSYMLINKS, and rootfs.c's */

static void push_reversed(struct strlist *pending, const char *target)
{
    struct strlist parts = STRLIST_INIT;
    strlist_split(&parts, target, "/");
    for (size_t i = parts.n; i-- > 0;)
        strlist_add(pending, parts.v[i]);
    strlist_release(&parts);
}

static char *joined(const struct strlist *pos)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < pos->n; i++) {
        if (i)
            strbuf_addc(&sb, '/');
        strbuf_adds(&sb, pos->v[i]);
    }
    if (!sb.buf)
        strbuf_adds(&sb, "");
    return strbuf_detach(&sb);
}

static int read_target(const struct snapshot_link_texts *tx, int rootfd, const char *rel,
                       char **out)
{
    if (tx)
        return tx->text(tx->ctx, rel, out);
    char *buf = xmalloc(NAME_MAX_LEN + 1);
    ssize_t n = readlinkat(rootfd, rel, buf, NAME_MAX_LEN);
    if (n < 0) {
        int e = errno;
        free(buf);
        return -e;
    }
    buf[n] = '\0';
    *out = buf;
    return 0;
}

int snapshot_link_check(int rootfd, const char *name, size_t *budget, char **via,
                        const struct snapshot_link_texts *tx)
{
    struct strlist pos = STRLIST_INIT, pending = STRLIST_INIT;
    char *target = NULL;
    *via = NULL;
    int rc = read_target(tx, rootfd, name, &target);
    if (rc)
        return rc;
    strlist_split(&pos, name, "/");
    if (pos.n)
        free(pos.v[--pos.n]); /* the link itself: resolve from its directory */
    if (target[0] == '/')
        rc = SNAPSHOT_LINK_ESCAPES;
    push_reversed(&pending, target);
    free(target);
    int hops = 1, missing = 0;
    while (!rc && pending.n) {
        char *comp = pending.v[--pending.n];
        if (!*budget) {
            free(comp);
            rc = SNAPSHOT_LINK_BUDGET;
            break;
        }
        (*budget)--;
        if (strcmp(comp, ".") == 0) {
            free(comp);
            continue;
        }
        if (strcmp(comp, "..") == 0) {
            free(comp);
            if (!pos.n)
                rc = SNAPSHOT_LINK_ESCAPES;
            else
                free(pos.v[--pos.n]);
            continue;
        }
        strlist_add_owned(&pos, comp);
        if (missing)
            continue; /* lexically from here: the kernel stopped */
        char *rel = joined(&pos);
        struct stat st;
        if (fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            missing = 1;
        } else if (S_ISLNK(st.st_mode)) {
            if (++hops > HOPS_MAX) {
                free(rel);
                break; /* ELOOP for the kernel and for rootfs.c alike */
            }
            rc = read_target(tx, rootfd, rel, &target);
            if (!rc) {
                free(pos.v[--pos.n]);
                if (target[0] == '/')
                    rc = SNAPSHOT_LINK_ESCAPES;
                push_reversed(&pending, target);
                free(target);
                free(*via);
                *via = rel;
                rel = NULL;
            }
        } else if (!S_ISDIR(st.st_mode) && pending.n) {
            missing = 1; /* ENOTDIR for the kernel */
        }
        free(rel);
    }
    strlist_release(&pos);
    strlist_release(&pending);
    if (rc != SNAPSHOT_LINK_ESCAPES) {
        free(*via);
        *via = NULL;
    }
    return rc;
}
