/* probe_host.c - host identity: name, OS release, kernel release. */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_host_run(struct probe_ctx *ctx);

/* /etc/os-release: PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" */
static char *os_release_pretty(const char *text)
{
    const char *p = strstr(text, "PRETTY_NAME=");
    if (!p || (p != text && p[-1] != '\n'))
        return NULL;
    p += strlen("PRETTY_NAME=");
    size_t n = strcspn(p, "\n");
    char *v = xstrndup(p, n);
    size_t len = strlen(v);
    if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
        memmove(v, v + 1, len - 2);
        v[len - 2] = '\0';
    }
    return v;
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
        char *pretty = os_release_pretty(s);
        if (pretty)
            fact_set_str(fs, "host.os", pretty, osr);
        else
            fact_set_unknown(fs, "host.os", osr, "no PRETTY_NAME");
        free(pretty);
        free(s);
    } else {
        fact_set_errno(fs, "host.os", osr, rc);
    }
    return 0;
}
