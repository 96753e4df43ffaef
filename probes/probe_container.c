/* probe_container.c - WSL2 and container detection.
 *
 * WSL2 kernels carry "microsoft" (and "WSL2") in their release; Docker
 * creates /.dockerenv, Podman /run/.containerenv, Apptainer images hold
 * /.singularity.d; otherwise the cgroup paths
 * of PID 1 name the runtime (cgroup v1, and v2 on some setups). */
#include "probe.h"

#include <strings.h>
#include <stdlib.h>
#include <string.h>

int probe_container_run(struct probe_ctx *ctx);

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

/* first match wins: kubernetes pods also show "docker"/"containerd" paths */
static const struct {
    const char *needle, *kind;
} cgroup_hints[] = {
    {"kubepods", "kubernetes"},   {"docker", "docker"}, {"libpod", "podman"}, {"lxc", "lxc"},
    {"containerd", "containerd"},
};

/* the process's seccomp mode and whether it holds CAP_SYS_NICE, from
 * /proc/self/status (proc(5): "Seccomp: 2" is a filter; CapEff is hex, bit
 * 23 CAP_SYS_NICE): Docker's default filter refuses the NUMA
 * memory-policy calls without that capability */
#define CAP_SYS_NICE_BIT 23
static void seccomp_facts(struct factset *fs)
{
    const char *src = "/proc/self/status";
    char *text;
    int rc = rootfs_read_str(src, &text);
    if (rc) {
        fact_set_errno(fs, "env.seccomp_filter", src, rc);
        fact_set_errno(fs, "env.cap_sys_nice", src, rc);
        return;
    }
    const char *sc = strstr(text, "\nSeccomp:"), *ce = strstr(text, "\nCapEff:");
    unsigned mode;
    unsigned long long caps;
    if (sc && sscanf(sc + 9, " %u", &mode) == 1)
        fact_set_bool(fs, "env.seccomp_filter", mode == 2, src);
    else
        fact_set_unknown(fs, "env.seccomp_filter", src, "no Seccomp line");
    if (ce && sscanf(ce + 8, " %llx", &caps) == 1)
        fact_set_bool(fs, "env.cap_sys_nice", (caps >> CAP_SYS_NICE_BIT) & 1, src);
    else
        fact_set_unknown(fs, "env.cap_sys_nice", src, "no CapEff line");
    free(text);
}

int probe_container_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    seccomp_facts(fs);
    const struct fact *rel = fact_get(fs, "kernel.release");
    int wsl = -1;
    if (rel && rel->type == FACT_STR) {
        wsl = contains_ci(rel->s, "microsoft") || contains_ci(rel->s, "WSL");
        fact_set_bool(fs, "env.wsl", wsl, "/proc/sys/kernel/osrelease");
    } else {
        fact_set_unknown(fs, "env.wsl", "/proc/sys/kernel/osrelease", "kernel release unknown");
    }

    if (wsl == 1) {
        fact_set_str(fs, "env.container", "wsl2", "/proc/sys/kernel/osrelease");
        return 0;
    }
    if (rootfs_exists("/.dockerenv")) {
        fact_set_str(fs, "env.container", "docker", "/.dockerenv");
        return 0;
    }
    /* Apptainer/Singularity images carry their runtime's metadata directory */
    if (rootfs_exists("/.singularity.d")) {
        fact_set_str(fs, "env.container", "apptainer", "/.singularity.d");
        return 0;
    }
    if (rootfs_exists("/run/.containerenv")) {
        fact_set_str(fs, "env.container", "podman", "/run/.containerenv");
        return 0;
    }
    char *cg;
    if (rootfs_read_str("/proc/1/cgroup", &cg) == 0) {
        for (size_t i = 0; i < ARRAY_SIZE(cgroup_hints); i++) {
            if (strstr(cg, cgroup_hints[i].needle)) {
                fact_set_str(fs, "env.container", cgroup_hints[i].kind, "/proc/1/cgroup");
                free(cg);
                return 0;
            }
        }
        free(cg);
    }
    /* an unreadable /proc/1/cgroup only loses a hint: the marker files decide */
    fact_set_str(fs, "env.container", "none", "/.dockerenv, /run/.containerenv, /proc/1/cgroup");
    return 0;
}
