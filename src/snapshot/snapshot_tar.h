/* snapshot_tar.h - what the snapshot writer and reader share: the ustar
 * header layout, the caps in force, and two small helpers. Private to
 * src/snapshot*.c. */
#ifndef RVD_SNAPSHOT_TAR_H
#define RVD_SNAPSHOT_TAR_H

#include <stddef.h>

#define BLOCK 512
#define PAX_MAX (64u << 10) /* an extended header holds a path or two */
#define NAME_MAX_LEN 4096   /* a path or link target, pax included */
#define DEPTH_MAX 128       /* components; sysfs paths stay far below */
#define PAX_HEADER_NAME "././@PaxHeader"

struct ustar {
    char name[100];
    char mode[8];
    char uid[8];
    char gid[8];
    char size[12];
    char mtime[12];
    char chksum[8];
    char typeflag;
    char linkname[100];
    char magic[6];
    char version[2];
    char uname[32];
    char gname[32];
    char devmajor[8];
    char devminor[8];
    char prefix[155];
    char pad[12];
};
_Static_assert(sizeof(struct ustar) == BLOCK, "ustar header is one block");

/* the caps in force (snapshot.h's defaults, or a unit test's) */
struct snapshot_limits {
    size_t max_file, max_total, max_entries;
};
extern struct snapshot_limits snapshot_limits;

/* the header checksum, with the chksum field counted as spaces; old tars
 * summed signed bytes, so readers accept either */
unsigned snapshot_header_sum(const struct ustar *h, int is_signed);
/* a copy fit for a one-line message: control bytes become '?', long
 * names are cut */
char *snapshot_printable(const char *s);

/* the unpacker's physical check of one symlink (snapshot_links.c): the
 * link at name (root-relative, normalised) below rootfd, resolved as the
 * kernel would, component by component through the links of the tree. 0
 * when it stays inside (or leads nowhere: missing, a loop),
 * SNAPSHOT_LINK_ESCAPES with *via the last link it passed through (owned,
 * NULL when none), SNAPSHOT_LINK_BUDGET when *budget steps (shared by every
 * call, decremented) ran out, or -errno. */
#define SNAPSHOT_LINK_ESCAPES 1
#define SNAPSHOT_LINK_BUDGET 2
#define SNAPSHOT_LINK_STEPS (4u << 20)
/* where the link texts come from: the tree (tx NULL), or, for the writer,
 * the texts it is about to archive */
struct snapshot_link_texts {
    int (*text)(void *ctx, const char *rel, char **out); /* 0 or -errno */
    void *ctx;
};
int snapshot_link_check(int rootfd, const char *name, size_t *budget, char **via,
                        const struct snapshot_link_texts *tx);

#endif
