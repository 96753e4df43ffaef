/* probe_host.c - host identity: name, OS release, kernel release. */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_host_run(struct probe_ctx *ctx);

/* the value of KEY= in os-release text (a line of its own, quotes
 * removed): PRETTY_NAME="Debian GNU/Linux 12 (bookworm)", ID=debian,
 * ID_LIKE="rhel fedora"; NULL when no line sets it */
static char *os_release_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
        if (strncmp(p, key, klen) != 0 || p[klen] != '=')
            continue;
        p += klen + 1;
        char *v = xstrndup(p, strcspn(p, "\n"));
        size_t len = strlen(v);
        if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
            memmove(v, v + 1, len - 2);
            v[len - 2] = '\0';
        }
        return v;
    }
    return NULL;
}

/* the os-release IDs of each distribution family whose commands the fixes
 * name (family_names in src/core/checks.h); ID_LIKE of each, os-release(5):
 * Ubuntu "debian", Rocky and Alma "rhel centos fedora", RHEL "fedora",
 * openSUSE Leap "suse opensuse", SLES none (ID sles), Manjaro "arch" */
static const struct {
    const char *id, *family;
} os_families[] = {
    {"debian", "debian"},
    {"ubuntu", "debian"},
    {"fedora", "fedora"},
    {"rhel", "fedora"},
    {"centos", "fedora"},
    {"rocky", "fedora"},
    {"almalinux", "fedora"},
    {"suse", "suse"},
    {"opensuse", "suse"},
    {"opensuse-leap", "suse"},
    {"opensuse-tumbleweed", "suse"},
    {"sles", "suse"},
    {"arch", "arch"},
};

static const char *os_family_of(const char *id)
{
    for (size_t i = 0; id && i < ARRAY_SIZE(os_families); i++)
        if (strcmp(id, os_families[i].id) == 0)
            return os_families[i].family;
    return NULL;
}

/* host.os_family: ID's family, else the first ID_LIKE entry's (most
 * similar first), else "unknown" (the fixes give prose) */
static void os_family_fact(struct factset *fs, const char *id, const struct strlist *like,
                           const char *osr)
{
    const char *fam = os_family_of(id);
    for (size_t i = 0; !fam && i < like->n; i++)
        fam = os_family_of(like->v[i]);
    fact_set_str(fs, "host.os_family", fam ? fam : "unknown", osr);
}

/* host.os, host.os_id and host.os_id_like (a list: ID_LIKE names several,
 * most similar first) from the os-release text read from osr */
static void os_release_facts(struct factset *fs, const char *text, const char *osr)
{
    char *pretty = os_release_value(text, "PRETTY_NAME");
    if (pretty)
        fact_set_str(fs, "host.os", pretty, osr);
    else
        fact_set_unknown(fs, "host.os", osr, "no PRETTY_NAME");
    free(pretty);
    char *id = os_release_value(text, "ID");
    if (id && *id)
        fact_set_str(fs, "host.os_id", id, osr);
    else
        fact_set_unknown(fs, "host.os_id", osr, "no ID");
    char *like = os_release_value(text, "ID_LIKE");
    struct strlist l = STRLIST_INIT;
    if (like)
        strlist_split(&l, like, " \t");
    if (l.n)
        fact_set_list(fs, "host.os_id_like", &l, osr);
    else
        fact_set_unknown(fs, "host.os_id_like", osr,
                         "no ID_LIKE (the distribution names no parent)");
    os_family_fact(fs, id, &l, osr);
    free(id);
    strlist_release(&l);
    free(like);
}

int probe_host_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    char *s;
    int rc;

    if ((rc = rootfs_read_str("/proc/sys/kernel/hostname", &s)) == 0) {
        fact_set_str(fs, "host.hostname", s, "/proc/sys/kernel/hostname");
        free(s);
    } else {
        fact_set_errno(fs, "host.hostname", "/proc/sys/kernel/hostname", rc);
    }

    if ((rc = rootfs_read_str("/proc/sys/kernel/osrelease", &s)) == 0) {
        fact_set_str(fs, "kernel.release", s, "/proc/sys/kernel/osrelease");
        unsigned maj = 0, min = 0;
        if (sscanf(s, "%u.%u", &maj, &min) == 2)
            fact_set_int(fs, "kernel.version_code", (int64_t)maj * 1000 + min,
                         "/proc/sys/kernel/osrelease");
        else
            fact_set_unknown(fs, "kernel.version_code", "/proc/sys/kernel/osrelease",
                             "release '%s' is not major.minor", s);
        free(s);
    } else {
        fact_set_errno(fs, "kernel.release", "/proc/sys/kernel/osrelease", rc);
        fact_set_errno(fs, "kernel.version_code", "/proc/sys/kernel/osrelease", rc);
    }

    const char *osr = "/etc/os-release";
    if ((rc = rootfs_read_str(osr, &s)) != 0) {
        osr = "/usr/lib/os-release";
        rc = rootfs_read_str(osr, &s);
    }
    if (rc == 0) {
        os_release_facts(fs, s, osr);
        free(s);
    } else {
        fact_set_errno(fs, "host.os", osr, rc);
        fact_set_errno(fs, "host.os_id", osr, rc);
        fact_set_errno(fs, "host.os_id_like", osr, rc);
        fact_set_errno(fs, "host.os_family", osr, rc);
    }
    return 0;
}
