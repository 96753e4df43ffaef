/* snapshot_linkplan.h - the target collect archives for each symlink of its
 * staging tree (snapshot_linkplan.c). Private to src/snapshot*.c. */
#ifndef RVD_SNAPSHOT_LINKPLAN_H
#define RVD_SNAPSHOT_LINKPLAN_H

#include <stddef.h>

struct strlist;

struct linkplan {
    struct linkplan_entry {
        char *rel, *text; /* "a/b" (no leading slash), the target to archive */
    } * v;
    size_t n, cap;
};

/* walk the tree at dir (never through a link) and plan every link's target;
 * 0, or -1 after printing why. *lp is initialised either way. Uses, then
 * releases, the root-prefixed reader (rootfs.h). */
int linkplan_build(const char *dir, struct linkplan *lp);
/* the planned target of the link at rel, or NULL */
const char *linkplan_text(const struct linkplan *lp, const char *rel);
void linkplan_release(struct linkplan *lp);
/* the names in directory host (no . and ..), appended to names; 0, or -1
 * after an error message. Shared by the link planner and the packer. */
int snapshot_list_dir(const char *host, struct strlist *names);

#endif
