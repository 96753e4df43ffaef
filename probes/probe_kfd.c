/* probe_kfd.c - /dev/kfd and the DRM render nodes: presence, owner, open test.
 *
 * Two queries carry what no file holds: "kfd-open" (the errno name of
 * open("/dev/kfd", O_RDWR), or "ok") and "devnodes" (one line per node:
 * "<path> <octal mode> <uid> <gid>"). Group names come from /etc/group
 * through rootfs, so a snapshot names the same groups as the live run. */
#include "probe.h"
#include "probe_groupdb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int probe_kfd_run(struct probe_ctx *ctx);

static int kfd_open_live(struct strbuf *out)
{
    /* O_RDWR is what the ROCm runtime asks for; nothing is sent to the device */
    int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        strbuf_adds(out, "ok\n");
        return 0;
    }
    const char *name = strerrorname_np(errno);
    if (name)
        strbuf_addf(out, "%s\n", name);
    else
        strbuf_addf(out, "errno %d\n", errno);
    return 0;
}

static void devnode_line(struct strbuf *out, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        strbuf_addf(out, "%s %04o %lu %lu\n", path, (unsigned)(st.st_mode & 07777),
                    (unsigned long)st.st_uid, (unsigned long)st.st_gid);
}

static int devnodes_live(struct strbuf *out)
{
    devnode_line(out, "/dev/kfd");
    DIR *d = opendir("/dev/dri");
    if (!d)
        return 0;
    struct strlist names = STRLIST_INIT;
    struct dirent *de;
    while ((de = readdir(d)))
        if (str_starts(de->d_name, "renderD"))
            strlist_add(&names, de->d_name);
    closedir(d);
    strlist_sort(&names);
    for (size_t i = 0; i < names.n; i++) {
        char *p = xasprintf("/dev/dri/%s", names.v[i]);
        devnode_line(out, p);
        free(p);
    }
    strlist_release(&names);
    return 0;
}

struct devnode {
    char path[256];
    unsigned mode;
    unsigned long uid, gid;
};

/* the devnodes lines, parsed, and by path: a snapshot may list any number
 * of render nodes, and a search of the lines per node was quadratic */
struct devnodes {
    struct devnode *v;
    size_t n;
    struct strset by_path; /* keys: v[i].path; the first line of a path wins */
};

static void devnodes_parse(const struct strlist *lines, struct devnodes *d)
{
    memset(d, 0, sizeof(*d));
    d->v = xcalloc(lines->n ? lines->n : 1, sizeof(*d->v));
    for (size_t i = 0; i < lines->n; i++) {
        struct devnode *dn = &d->v[d->n];
        if (sscanf(lines->v[i], "%255s %o %lu %lu", dn->path, &dn->mode, &dn->uid, &dn->gid) != 4)
            continue;
        strset_add(&d->by_path, dn->path, d->n);
        d->n++;
    }
}

static void devnodes_release(struct devnodes *d)
{
    strset_release(&d->by_path);
    free(d->v);
}

/* the devnodes line for `path`; 0 or -ENOENT */
static int devnode_find(const struct devnodes *d, const char *path, struct devnode *dn)
{
    size_t i;
    if (!strset_get(&d->by_path, path, &i))
        return -ENOENT;
    *dn = d->v[i];
    return 0;
}

static void kfd_facts(struct factset *fs, const struct devnodes *nodes, int nodes_rc,
                      const struct groupdb *db)
{
    const char *src = ROOTFS_SNAPSHOT_DIR "/devnodes";
    int present = rootfs_exists("/dev/kfd");
    fact_set_bool(fs, "kfd.present", present, "/dev/kfd");

    char *text;
    int rc = rootfs_query("kfd-open", kfd_open_live, &text);
    if (rc == 0) {
        fact_set_str(fs, "kfd.open_result", str_trim(text), "open(\"/dev/kfd\", O_RDWR)");
        free(text);
    } else {
        fact_set_errno(fs, "kfd.open_result", ROOTFS_SNAPSHOT_DIR "/kfd-open", rc);
    }

    struct devnode dn;
    if (!present) {
        fact_set_unknown(fs, "kfd.group", "/dev/kfd", "/dev/kfd does not exist");
        fact_set_unknown(fs, "kfd.mode", "/dev/kfd", "/dev/kfd does not exist");
    } else if (nodes_rc) {
        fact_set_errno(fs, "kfd.group", src, nodes_rc);
        fact_set_errno(fs, "kfd.mode", src, nodes_rc);
    } else if (devnode_find(nodes, "/dev/kfd", &dn)) {
        fact_set_unknown(fs, "kfd.group", src, "stat(/dev/kfd) failed");
        fact_set_unknown(fs, "kfd.mode", src, "stat(/dev/kfd) failed");
    } else {
        char *g = groupdb_group_name(db, dn.gid);
        char mode[16];
        snprintf(mode, sizeof(mode), "%04o", dn.mode);
        fact_set_str(fs, "kfd.group", g, "stat(/dev/kfd), /etc/group");
        fact_set_str(fs, "kfd.mode", mode, "stat(/dev/kfd)");
        free(g);
    }
}

static void render_facts(struct factset *fs, const struct devnodes *nodes, int nodes_rc,
                         const struct groupdb *db)
{
    const char *src = ROOTFS_SNAPSHOT_DIR "/devnodes";
    struct strlist names = STRLIST_INIT, paths = STRLIST_INIT, groups = STRLIST_INIT;
    struct strset groups_set = STRSET_INIT;
    int rc = rootfs_list("/dev/dri", &names);
    if (rc && rc != -ENOENT) {
        fact_set_errno(fs, "dri.render_present", "/dev/dri", rc);
        fact_set_errno(fs, "dri.render_nodes", "/dev/dri", rc);
        fact_set_errno(fs, "dri.render_group", "/dev/dri", rc);
        fact_set_errno(fs, "dri.render_groups", "/dev/dri", rc);
        return;
    }
    for (size_t i = 0; i < names.n; i++)
        if (str_starts(names.v[i], "renderD"))
            strlist_add_owned(&paths, xasprintf("/dev/dri/%s", names.v[i]));
    strlist_release(&names);
    fact_set_bool(fs, "dri.render_present", paths.n > 0, "/dev/dri");
    fact_set_list(fs, "dri.render_nodes", &paths, "/dev/dri");

    int missing = 0;
    for (size_t i = 0; i < paths.n && !nodes_rc; i++) {
        struct devnode dn;
        if (devnode_find(nodes, paths.v[i], &dn)) {
            missing = 1;
            continue;
        }
        strlist_add_unique_owned(&groups, &groups_set, groupdb_group_name(db, dn.gid));
    }
    if (!paths.n) {
        fact_set_unknown(fs, "dri.render_group", "/dev/dri", "no render node");
        fact_set_list(fs, "dri.render_groups", &groups, "/dev/dri");
    } else if (nodes_rc) {
        fact_set_errno(fs, "dri.render_group", src, nodes_rc);
        fact_set_errno(fs, "dri.render_groups", src, nodes_rc);
    } else if (!groups.n) {
        fact_set_unknown(fs, "dri.render_group", src, "stat() of the render nodes failed");
        fact_set_unknown(fs, "dri.render_groups", src, "stat() of the render nodes failed");
    } else {
        /* the first node's group; all distinct groups when they differ */
        fact_set_str(fs, "dri.render_group", groups.v[0], "stat(/dev/dri/renderD*), /etc/group");
        if (missing)
            fact_set_unknown(fs, "dri.render_groups", src, "stat() of some render nodes failed");
        else
            fact_set_list(fs, "dri.render_groups", &groups, "stat(/dev/dri/renderD*), /etc/group");
    }
    strlist_release(&paths);
    strlist_release(&groups);
    strset_release(&groups_set);
}

/* container.group_ids and container.docker_run: the numeric groups that
 * own /dev/kfd and the render nodes (st_gid: a group's name inside the
 * image may differ from the host's, or be missing, so --group-add takes
 * numbers) and the docker run options that pass the GPU in. seccomp is
 * unconfined because Docker's default profile refuses mbind,
 * get_mempolicy and set_mempolicy without CAP_SYS_NICE (moby
 * profiles/seccomp/default.json), the NUMA memory-policy calls that
 * NUMA-aware allocators make; AMD's container guide passes the same. */
static void docker_run_facts(struct factset *fs, const struct devnodes *nodes, int nodes_rc)
{
    const char *src = ROOTFS_SNAPSHOT_DIR "/devnodes";
    static const char *const names[] = {"container.group_ids", "container.docker_run"};
    if (nodes_rc || !rootfs_exists("/dev/kfd")) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
            if (nodes_rc)
                fact_set_errno(fs, names[i], src, nodes_rc);
            else
                fact_set_unknown(fs, names[i], "/dev/kfd", "/dev/kfd does not exist");
        }
        return;
    }
    struct strlist gids = STRLIST_INIT;
    struct strset seen = STRSET_INIT;
    for (size_t i = 0; i < nodes->n; i++) {
        const struct devnode *dn = &nodes->v[i];
        if (strcmp(dn->path, "/dev/kfd") == 0 || str_starts(dn->path, "/dev/dri/renderD"))
            strlist_add_unique_owned(&gids, &seen, xasprintf("%lu", dn->gid));
    }
    struct strbuf line = STRBUF_INIT;
    strbuf_adds(&line, "docker run --device=/dev/kfd --device=/dev/dri");
    for (size_t i = 0; i < gids.n; i++)
        strbuf_addf(&line, " --group-add %s", gids.v[i]);
    strbuf_adds(&line, " --security-opt seccomp=unconfined");
    fact_set_list(fs, names[0], &gids, "stat(/dev/kfd, /dev/dri/renderD*)");
    fact_set_str(fs, names[1], line.buf, "stat(/dev/kfd, /dev/dri/renderD*)");
    strbuf_release(&line);
    strlist_release(&gids);
    strset_release(&seen);
}

int probe_kfd_run(struct probe_ctx *ctx)
{
    struct groupdb db;
    struct strlist nodes = STRLIST_INIT;
    char *text;
    groupdb_load(&db);
    int nodes_rc = rootfs_query("devnodes", devnodes_live, &text);
    if (nodes_rc == 0) {
        strlist_split(&nodes, text, "\n");
        free(text);
    }
    struct devnodes dns;
    devnodes_parse(&nodes, &dns);
    kfd_facts(ctx->facts, &dns, nodes_rc, &db);
    render_facts(ctx->facts, &dns, nodes_rc, &db);
    docker_run_facts(ctx->facts, &dns, nodes_rc);
    devnodes_release(&dns);
    strlist_release(&nodes);
    groupdb_release(&db);
    return 0;
}
