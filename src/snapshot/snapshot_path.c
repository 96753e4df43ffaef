/* snapshot_path.c - lexical checks of member names and link targets (see
 * snapshot_path.h). Both walk the string component by component without
 * changing it; the splitter collects into a list of its own and hands it
 * over only whole, so a refusal frees nothing the caller holds. */
#include "snapshot_path.h"

#include <string.h>

#include "snapshot_tar.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* the checks names and targets share, before any component is looked at */
static enum snapshot_path_verdict common_checks(const char *s)
{
    if (!*s)
        return SNAPSHOT_PATH_EMPTY;
    if (strpbrk(s, "\n\r"))
        return SNAPSHOT_PATH_NEWLINE;
    if (s[0] == '/')
        return SNAPSHOT_PATH_ABSOLUTE;
    if (strlen(s) > NAME_MAX_LEN)
        return SNAPSHOT_PATH_TOO_LONG;
    return SNAPSHOT_PATH_OK;
}

/* the next component of *s (skipping separators): its start, *len its
 * length; NULL at the end */
static const char *next_comp(const char **s, size_t *len)
{
    const char *p = *s + strspn(*s, "/");
    if (!*p)
        return NULL;
    *len = strcspn(p, "/");
    *s = p + *len;
    return p;
}

static int is_dot(const char *c, size_t len)
{
    return len == 1 && c[0] == '.';
}

static int is_dotdot(const char *c, size_t len)
{
    return len == 2 && c[0] == '.' && c[1] == '.';
}

enum snapshot_path_verdict snapshot_path_split(const char *name, struct strlist *comps)
{
    enum snapshot_path_verdict v = common_checks(name);
    if (v)
        return v;
    struct strlist mine = STRLIST_INIT;
    const char *s = name, *c;
    size_t len;
    while ((c = next_comp(&s, &len)) != NULL) {
        if (is_dotdot(c, len)) {
            v = SNAPSHOT_PATH_DOTDOT;
            break;
        }
        if (is_dot(c, len))
            continue;
        if (mine.n == DEPTH_MAX) {
            v = SNAPSHOT_PATH_TOO_DEEP;
            break;
        }
        strlist_add_owned(&mine, xstrndup(c, len));
    }
    if (!v)
        for (size_t i = 0; i < mine.n; i++) {
            strlist_add_owned(comps, mine.v[i]);
            mine.v[i] = NULL;
        }
    strlist_release(&mine); /* all of it on a refusal, the moved-out slots else */
    return v;
}

enum snapshot_path_verdict snapshot_path_link_ok(size_t dir_depth, const char *target)
{
    enum snapshot_path_verdict v = common_checks(target);
    if (v)
        return v;
    size_t depth = dir_depth, len;
    const char *s = target, *c;
    while ((c = next_comp(&s, &len)) != NULL) {
        if (is_dotdot(c, len)) {
            if (depth == 0)
                return SNAPSHOT_PATH_LEAVES;
            depth--;
        } else if (!is_dot(c, len)) {
            depth++;
        }
    }
    return SNAPSHOT_PATH_OK;
}

const char *snapshot_path_why(enum snapshot_path_verdict v, int is_link)
{
    switch (v) {
    case SNAPSHOT_PATH_OK:
        return "accepted";
    case SNAPSHOT_PATH_EMPTY:
        return is_link ? "symlink with an empty target" : "empty name";
    case SNAPSHOT_PATH_NEWLINE:
        return is_link ? "symlink target contains a newline" : "name contains a newline";
    case SNAPSHOT_PATH_ABSOLUTE:
        return is_link ? "symlink to an absolute path" : "absolute name";
    case SNAPSHOT_PATH_TOO_LONG:
        return is_link ? "symlink target too long" : "name too long";
    case SNAPSHOT_PATH_DOTDOT:
        return "name has a '..' component";
    case SNAPSHOT_PATH_TOO_DEEP:
        return "nested more than " STR(DEPTH_MAX) " levels deep";
    case SNAPSHOT_PATH_LEAVES:
        return "symlink target leaves the snapshot";
    }
    return "refused";
}
