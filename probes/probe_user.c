/* probe_user.c - the process's identity and groups against the group database.
 *
 * The "identity" query holds what only the running process knows:
 *   user <name>\nuid N\ngid N\ngroups g1 g2 ...\n   (numeric gids)
 * Names are resolved through /etc/group read with rootfs. Comparing the
 * process's groups with the database tells "never added to render" from
 * "added, but this login session predates it". */
#include "probe.h"
#include "probe_groupdb.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int probe_user_run(struct probe_ctx *ctx);

static int identity_live(struct strbuf *out)
{
    uid_t uid = getuid();
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res)
        strbuf_addf(out, "user %s\n", res->pw_name);
    else
        strbuf_addf(out, "user uid%lu\n", (unsigned long)uid);
    strbuf_addf(out, "uid %lu\ngid %lu\ngroups", (unsigned long)uid, (unsigned long)getgid());
    int n = getgroups(0, NULL);
    if (n < 0)
        return -errno;
    gid_t *g = xcalloc((size_t)n + 1, sizeof(*g));
    n = getgroups(n, g);
    if (n < 0) {
        int e = errno;
        free(g);
        return -e;
    }
    for (int i = 0; i < n; i++)
        strbuf_addf(out, " %lu", (unsigned long)g[i]);
    strbuf_addc(out, '\n');
    free(g);
    return 0;
}

struct identity {
    char *name;
    uint64_t uid, gid;
    int have_uid, have_gid;
    struct strlist gids;
};

static void identity_parse(const char *text, struct identity *id)
{
    struct strlist lines = STRLIST_INIT;
    memset(id, 0, sizeof(*id));
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        char *l = lines.v[i];
        if (str_starts(l, "user "))
            id->name = xstrdup(str_trim(l + 5));
        else if (str_starts(l, "uid "))
            id->have_uid = str_parse_u64(str_trim(l + 4), &id->uid) == 0;
        else if (str_starts(l, "gid "))
            id->have_gid = str_parse_u64(str_trim(l + 4), &id->gid) == 0;
        else if (str_starts(l, "groups"))
            strlist_split(&id->gids, l + 6, " \t");
    }
    strlist_release(&lines);
}

/* every device group that exists must be held; unknown (-1) when a device
 * node exists but its group could not be read */
static int in_device_groups(const struct factset *fs, const struct strset *have)
{
    const struct fact *kp = fact_get(fs, "kfd.present");
    const struct fact *kg = fact_get(fs, "kfd.group");
    const struct fact *rp = fact_get(fs, "dri.render_present");
    const struct fact *rg = fact_get(fs, "dri.render_groups");
    if (kp && kp->type == FACT_BOOL && kp->b) {
        if (!kg || kg->type != FACT_STR)
            return -1;
        if (!strset_get(have, kg->s, NULL))
            return 0;
    }
    if (rp && rp->type == FACT_BOOL && rp->b) {
        if (!rg || rg->type != FACT_LIST || !rg->list.n)
            return -1;
        for (size_t i = 0; i < rg->list.n; i++)
            if (!strset_get(have, rg->list.v[i], NULL))
                return 0;
    }
    return 1;
}

static void set_membership(struct factset *fs, const char *name, const struct strlist *have,
                           const char *src)
{
    struct strset set = STRSET_INIT; /* the process may hold NGROUPS_MAX (65536) groups */
    strset_add_list(&set, have);
    int r = in_device_groups(fs, &set);
    strset_release(&set);
    if (r < 0)
        fact_set_unknown(fs, name, src, "the group owning a device node is unknown");
    else
        fact_set_bool(fs, name, r, src);
}

/* host.sudo_present: fix texts prefix commands with sudo only where it
 * exists ({sudo} in checks.yaml). A partial tree (a fixture without /usr/bin)
 * cannot tell; that is unknown, never "absent". */
static void sudo_fact(struct factset *fs)
{
    static const char *const paths[] = {"/usr/bin/sudo", "/bin/sudo", "/usr/sbin/sudo",
                                        "/usr/local/bin/sudo"};
    for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
        if (rootfs_exists(paths[i])) {
            fact_set_bool(fs, "host.sudo_present", 1, paths[i]);
            return;
        }
    }
    struct stat st;
    if (rootfs_stat("/usr/bin", &st) == 0 && S_ISDIR(st.st_mode))
        fact_set_bool(fs, "host.sudo_present", 0, "/usr/bin/sudo, /bin/sudo, /usr/sbin/sudo");
    else
        fact_set_unknown(fs, "host.sudo_present", "/usr/bin",
                         "no /usr/bin in this root to look for sudo");
}

/* the database's groups of `user`: its primary group in /etc/passwd plus
 * the member lists of /etc/group */
static void db_groups_of(const struct groupdb *db, const char *user, struct strlist *out)
{
    unsigned long pgid;
    if (groupdb_user_gid(db, user, &pgid) == 0)
        strlist_add_owned(out, groupdb_group_name(db, pgid));
    groupdb_member_groups(db, user, out);
}

/* user.sudo_user: under sudo the process is root, but the person who will
 * run the model without sudo is SUDO_USER, so user.groups judges that
 * person's groups in the database (a new login gets exactly those). Not
 * under sudo it is "" and the membership is unknown, never false. */
static void sudo_user_facts(struct factset *fs, const struct identity *id, const struct groupdb *db)
{
    const struct fact *rec = fact_get(fs, "env.recorded");
    const char *src = "SUDO_USER, /etc/group, /etc/passwd";
    if (!rec || rec->type != FACT_BOOL || !id->have_uid) {
        fact_set_unknown(fs, "user.sudo_user", "SUDO_USER", "environment or uid not recorded");
        fact_set_unknown(fs, "user.sudo_db_in_device_groups", src,
                         "environment or uid not recorded");
        return;
    }
    const char *su = probe_getenv("SUDO_USER");
    if (id->uid != 0 || !su || !*su || strcmp(su, "root") == 0) {
        fact_set_str(fs, "user.sudo_user", "", "SUDO_USER");
        fact_set_unknown(fs, "user.sudo_db_in_device_groups", src, "not run under sudo");
        return;
    }
    fact_set_str(fs, "user.sudo_user", su, "SUDO_USER");
    if (db->group_rc) {
        fact_set_errno(fs, "user.sudo_db_in_device_groups", "/etc/group", db->group_rc);
        return;
    }
    struct strlist g = STRLIST_INIT;
    db_groups_of(db, su, &g);
    set_membership(fs, "user.sudo_db_in_device_groups", &g, src);
    strlist_release(&g);
}

int probe_user_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const char *qsrc = ROOTFS_SNAPSHOT_DIR "/identity";
    static const char *const names[] = {"user.name",
                                        "user.uid",
                                        "user.is_root",
                                        "user.groups",
                                        "user.db_groups",
                                        "user.in_device_groups",
                                        "user.db_in_device_groups",
                                        "user.sudo_user",
                                        "user.sudo_db_in_device_groups"};
    sudo_fact(fs);
    char *text;
    int rc = rootfs_query("identity", identity_live, &text);
    if (rc) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_errno(fs, names[i], qsrc, rc);
        return 0;
    }
    struct identity id;
    identity_parse(text, &id);
    free(text);

    struct groupdb db;
    groupdb_load(&db);
    const char *src = "getuid(), getgroups()";

    if (id.name)
        fact_set_str(fs, "user.name", id.name, src);
    else
        fact_set_unknown(fs, "user.name", qsrc, "no user line");
    if (id.have_uid) {
        fact_set_int(fs, "user.uid", (int64_t)id.uid, src);
        fact_set_bool(fs, "user.is_root", id.uid == 0, src);
    } else {
        fact_set_unknown(fs, "user.uid", qsrc, "no uid line");
        fact_set_unknown(fs, "user.is_root", qsrc, "no uid line");
    }

    /* the process's groups: supplementary ones plus the primary gid */
    struct strlist groups = STRLIST_INIT;
    struct strset seen = STRSET_INIT;
    if (id.have_gid)
        strlist_add_unique_owned(&groups, &seen, groupdb_group_name(&db, (unsigned long)id.gid));
    for (size_t i = 0; i < id.gids.n; i++) {
        uint64_t g;
        if (str_parse_u64(id.gids.v[i], &g))
            continue;
        strlist_add_unique_owned(&groups, &seen, groupdb_group_name(&db, (unsigned long)g));
    }
    strset_release(&seen);
    fact_set_list(fs, "user.groups", &groups, "getgroups(), /etc/group");
    set_membership(fs, "user.in_device_groups", &groups,
                   "getgroups(), kfd.group, dri.render_group");

    /* the database's view: member lists plus the primary group in /etc/passwd */
    if (db.group_rc || !id.name) {
        int e = db.group_rc ? db.group_rc : -ENOENT;
        fact_set_errno(fs, "user.db_groups", "/etc/group", e);
        fact_set_errno(fs, "user.db_in_device_groups", "/etc/group", e);
    } else {
        struct strlist dbg = STRLIST_INIT;
        db_groups_of(&db, id.name, &dbg);
        fact_set_list(fs, "user.db_groups", &dbg, "/etc/group, /etc/passwd");
        set_membership(fs, "user.db_in_device_groups", &dbg, "/etc/group, /etc/passwd");
        strlist_release(&dbg);
    }
    sudo_user_facts(fs, &id, &db);
    strlist_release(&groups);
    strlist_release(&id.gids);
    free(id.name);
    groupdb_release(&db);
    return 0;
}
