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
    free(id);
    char *like = os_release_value(text, "ID_LIKE");
    struct strlist l = STRLIST_INIT;
    if (like)
        strlist_split(&l, like, " \t");
    if (l.n)
        fact_set_list(fs, "host.os_id_like", &l, osr);
    else
        fact_set_unknown(fs, "host.os_id_like", osr,
                         "no ID_LIKE (the distribution names no parent)");
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
    }
    return 0;
}
