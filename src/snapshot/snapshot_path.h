/* snapshot_path.h - the lexical checks of a tar member's name and of a
 * symlink's target, as pure functions: no file system, no messages, no
 * state, so that a unit test can run them on every shape of name.
 *
 * Ownership: snapshot_path_split() adds to comps only on success. When it
 * refuses a name, comps is exactly as the caller passed it (it builds the
 * components in a list of its own and frees that list itself), so the
 * caller releases comps once on every path and never twice. Private to
 * src/snapshot*.c and the tests. */
#ifndef RVD_SNAPSHOT_PATH_H
#define RVD_SNAPSHOT_PATH_H

#include <stddef.h>

#include "../core/util.h"

enum snapshot_path_verdict {
    SNAPSHOT_PATH_OK = 0,
    SNAPSHOT_PATH_EMPTY,    /* "" */
    SNAPSHOT_PATH_NEWLINE,  /* a '\n' or '\r' anywhere */
    SNAPSHOT_PATH_ABSOLUTE, /* begins with '/' */
    SNAPSHOT_PATH_TOO_LONG, /* over NAME_MAX_LEN bytes */
    SNAPSHOT_PATH_DOTDOT,   /* a ".." component (names only) */
    SNAPSHOT_PATH_TOO_DEEP, /* more than DEPTH_MAX components kept */
    SNAPSHOT_PATH_LEAVES,   /* a link target that climbs above the root */
};

/* "./a//b/" -> a, b appended to comps (empty and "." components dropped:
 * "./" and "." give no component at all, the root itself). Refuses, in
 * this order, what could name a place outside the root or that no file can
 * have: empty, newline, absolute, too long, a ".." component, too deep. */
enum snapshot_path_verdict snapshot_path_split(const char *name, struct strlist *comps);

/* the target of a symlink whose own directory is dir_depth components
 * below the root, read lexically ("." and empty components stay, ".."
 * climbs one): refuses an empty, newline or absolute target, one over
 * NAME_MAX_LEN, and one that climbs above the root at any point. */
enum snapshot_path_verdict snapshot_path_link_ok(size_t dir_depth, const char *target);

/* the reason, for a message: "absolute name", "name has a '..' component" */
const char *snapshot_path_why(enum snapshot_path_verdict v, int is_link);

#endif
