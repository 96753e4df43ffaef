/* probe_groupdb.c - /etc/group and /etc/passwd through rootfs (see the header).
 * Only the files are read, not NSS: a snapshot must replay identically, and
 * ROCm's own docs manage device groups with usermod, i.e. in these files. */
#include "probe_groupdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rootfs.h"

/* the gid field of a line as the canonical decimal text ("007" is 7, as
 * str_parse_u64 reads it); 0, or -1 when the field is no number */
static int gid_key(const char *line, char buf[24])
{
    char *f = str_colon_field(line, 2);
    uint64_t v;
    int ok = f && *f && str_parse_u64(f, &v) == 0;
    free(f);
    if (ok)
        snprintf(buf, 24, "%llu", (unsigned long long)v);
    return ok ? 0 : -1;
}

static void index_gids(struct groupdb *db)
{
    char key[24];
    for (size_t i = 0; i < db->group.n; i++) {
        if (gid_key(db->group.v[i], key))
            continue;
        strlist_add(&db->gid_keys, key);
        /* the first line of a gid wins, as a search from the top finds */
        strset_add(&db->by_gid, db->gid_keys.v[db->gid_keys.n - 1], i);
    }
}

void groupdb_load(struct groupdb *db)
{
    char *text;
    memset(db, 0, sizeof(*db));
    if ((db->group_rc = rootfs_read_str("/etc/group", &text)) == 0) {
        strlist_split(&db->group, text, "\n");
        free(text);
        index_gids(db);
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
    strset_release(&db->by_gid);
    strlist_release(&db->gid_keys);
}

char *groupdb_group_name(const struct groupdb *db, unsigned long gid)
{
    char key[24];
    size_t i;
    snprintf(key, sizeof(key), "%lu", gid);
    if (strset_get(&db->by_gid, key, &i))
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
    struct strset seen = STRSET_INIT; /* out's names: a user may be in every group */
    strset_add_list(&seen, out);
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
            strlist_add_unique_owned(out, &seen, str_colon_field(db->group.v[i], 0));
            break;
        }
        strlist_release(&m);
    }
    strset_release(&seen);
}
