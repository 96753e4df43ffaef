/* probe_groupdb.h - the group and user databases (/etc/group, /etc/passwd)
 * read through rootfs, so that a fixture or snapshot resolves the same names.
 * Shared by probe_kfd (owners of the device nodes) and probe_user (the
 * process's groups and the database's view of the user). */
#ifndef RVD_PROBE_GROUPDB_H
#define RVD_PROBE_GROUPDB_H

#include "../src/core/strset.h"
#include "../src/core/util.h"

struct groupdb {
    struct strlist group;  /* /etc/group lines */
    struct strlist passwd; /* /etc/passwd lines */
    int group_rc;          /* 0 or -errno reading /etc/group */
    int passwd_rc;         /* 0 or -errno reading /etc/passwd */
    /* gid (decimal) -> its first line in group: a name per gid without a
     * search of the file, which a user in many groups of a large database
     * made quadratic (issue 18); the keys live in gid_keys */
    struct strset by_gid;
    struct strlist gid_keys;
};

void groupdb_load(struct groupdb *db);
void groupdb_release(struct groupdb *db);
/* the group's name, or "gid N" when the database has no entry; caller frees */
char *groupdb_group_name(const struct groupdb *db, unsigned long gid);
/* the user's primary gid from /etc/passwd; 0 or -ENOENT */
int groupdb_user_gid(const struct groupdb *db, const char *user, unsigned long *gid);
/* names of the groups whose member list holds `user` (appended, no duplicates) */
void groupdb_member_groups(const struct groupdb *db, const char *user, struct strlist *out);

#endif
