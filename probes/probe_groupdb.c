/* probe_groupdb.c - /etc/group and /etc/passwd through rootfs (see the header).
 * Only the files are read, not NSS: a snapshot must replay identically, and
 * ROCm's own docs manage device groups with usermod, i.e. in these files. */
#include "probe_groupdb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rootfs.h"

void groupdb_load(struct groupdb *db)
{
    char *text;
    memset(db, 0, sizeof(*db));
    if ((db->group_rc = rootfs_read_str("/etc/group", &text)) == 0) {
        strlist_split(&db->group, text, "\n");
        free(text);
    }
    if ((db->passwd_rc = rootfs_read_str("/etc/passwd", &text)) == 0) {
        strlist_split(&db->passwd, text, "\n");
        free(text);
    }
}

void groupdb_release(struct groupdb *db)
{
    strlist_release(&db->group);
    strlist_release(&db->passwd);
}

static int field_is_gid(const char *line, int idx, unsigned long gid)
{
    char *f = str_colon_field(line, idx);
    uint64_t v;
    int ok = f && *f && str_parse_u64(f, &v) == 0 && v == gid;
    free(f);
    return ok;
}

char *groupdb_group_name(const struct groupdb *db, unsigned long gid)
{
    for (size_t i = 0; i < db->group.n; i++)
        if (field_is_gid(db->group.v[i], 2, gid))
            return str_colon_field(db->group.v[i], 0);
    return xasprintf("gid %lu", gid);
}

int groupdb_user_gid(const struct groupdb *db, const char *user, unsigned long *gid)
{
    for (size_t i = 0; i < db->passwd.n; i++) {
        char *name = str_colon_field(db->passwd.v[i], 0);
        int match = name && strcmp(name, user) == 0;
        free(name);
        if (!match)
            continue;
        char *g = str_colon_field(db->passwd.v[i], 3);
        uint64_t v;
        int rc = g && str_parse_u64(g, &v) == 0 ? 0 : -EINVAL;
        free(g);
        if (rc == 0)
            *gid = (unsigned long)v;
        return rc;
    }
    return -ENOENT;
}

void groupdb_member_groups(const struct groupdb *db, const char *user, struct strlist *out)
{
    for (size_t i = 0; i < db->group.n; i++) {
        char *members = str_colon_field(db->group.v[i], 3);
        if (!members)
            continue;
        struct strlist m = STRLIST_INIT;
        strlist_split(&m, members, ",");
        free(members);
        for (size_t j = 0; j < m.n; j++) {
            if (strcmp(str_trim(m.v[j]), user) != 0)
                continue;
            char *name = str_colon_field(db->group.v[i], 0);
            if (!strlist_has(out, name))
                strlist_add(out, name);
            free(name);
            break;
        }
        strlist_release(&m);
    }
}
