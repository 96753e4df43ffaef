/* probe_rocm.c - ROCm user-space installs, the DKMS driver's distance from
 * them, and LD_LIBRARY_PATH entries that point at other GPU stacks.
 *
 * Installs: every /opt/rocm and /opt/rocm-* directory with .info/version
 * (deduplicated by real path: /opt/rocm is usually a link to one of them),
 * the ROCm Core SDK's /opt/rocm/core-X.Y, and the distribution's HIP
 * runtime package (Debian 12 ships ROCm 5.2 as libamdhip64-5) from
 * /var/lib/dpkg/status. The active install is the one /opt/rocm (or the
 * Core SDK's /opt/rocm/core) resolves to, else the only one. */
#include "probe.h"
#include "../src/core/strset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int probe_rocm_run(struct probe_ctx *ctx);

struct install {
    char *dir;     /* "/opt/rocm-6.2.0", or NULL for distribution packages */
    char *raw;     /* version as the source writes it: "6.2.0-66", "5.2.3-8" */
    char *version; /* upstream M.m.p: "6.2.0" */
};

/* "1:5.2.3-8" -> "5.2.3"; "6.2.0-66" -> "6.2.0" */
static char *upstream_version(const char *raw)
{
    const char *colon = strchr(raw, ':');
    const char *v = colon ? colon + 1 : raw;
    return xstrndup(v, strcspn(v, "-~+ \t"));
}

static void add_install(struct install **v, size_t *n, const char *dir, const char *raw)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[*n].dir = dir ? xstrdup(dir) : NULL;
    (*v)[*n].raw = xstrdup(raw);
    (*v)[*n].version = upstream_version(raw);
    (*n)++;
}

/* one install directory: deduplicated by its real path */
static void opt_install_at(struct install **v, size_t *n, const char *path, struct strlist *seen,
                           struct strset *seen_set)
{
    char *real = NULL, *ver = NULL;
    if (rootfs_realpath(path, &real) == 0 && !strset_get(seen_set, real, NULL) &&
        rootfs_readf_str(&ver, "%s/.info/version", real) == 0 && *ver) {
        strlist_add_unique(seen, seen_set, real);
        add_install(v, n, real, ver);
    }
    free(ver);
    free(real);
}

/* The classic layout: /opt/rocm-X.Y.Z with /opt/rocm a link to one. The
 * ROCm Core SDK (TheRock, from 7.14): /opt/rocm/core-X.Y with the link
 * /opt/rocm/core to one, and /opt/rocm a plain directory of compatibility
 * links (ROCm docs, "Transition guide from legacy ROCm release stream";
 * TheRock build_tools/packaging/linux: install prefix /opt/rocm/core-7.15,
 * .info/version under it as in its own rocm_detector.py). */
static void opt_installs(struct install **v, size_t *n)
{
    struct strlist names = STRLIST_INIT, seen = STRLIST_INIT, core = STRLIST_INIT;
    struct strset seen_set = STRSET_INIT; /* /opt/rocm-*: as many as the listing */
    if (rootfs_list("/opt", &names))
        return;
    for (size_t i = 0; i < names.n; i++) {
        if (strcmp(names.v[i], "rocm") != 0 && !str_starts(names.v[i], "rocm-"))
            continue;
        /* the Core SDK's /opt/rocm holds links into core-X.Y: not an install */
        if (!strcmp(names.v[i], "rocm") && rootfs_exists("/opt/rocm/core"))
            continue;
        char *path = xasprintf("/opt/%s", names.v[i]);
        opt_install_at(v, n, path, &seen, &seen_set);
        free(path);
    }
    if (rootfs_list("/opt/rocm", &core) == 0)
        for (size_t i = 0; i < core.n; i++) {
            if (strcmp(core.v[i], "core") != 0 && !str_starts(core.v[i], "core-"))
                continue;
            char *path = xasprintf("/opt/rocm/%s", core.v[i]);
            opt_install_at(v, n, path, &seen, &seen_set);
            free(path);
        }
    strlist_release(&names);
    strlist_release(&core);
    strlist_release(&seen);
    strset_release(&seen_set);
}

/* GPU firmware packages: Debian's non-free firmware-amd-graphics, the
 * linux-firmware of Ubuntu (and of Debian since trixie), and AMD's own
 * amdgpu-dkms-firmware shipped with amdgpu-dkms */
static int firmware_package(const char *pkg)
{
    return strcmp(pkg, "firmware-amd-graphics") == 0 || strcmp(pkg, "linux-firmware") == 0 ||
           strcmp(pkg, "amdgpu-dkms-firmware") == 0;
}

/* from a dpkg status file: the installed version of libamdhip64-<N>, if
 * any, and the GPU firmware packages ("name version"); -errno when the
 * file cannot be read */
static int dpkg_installs(struct install **v, size_t *n, struct strlist *firmware)
{
    char *status;
    int rc = rootfs_read_str("/var/lib/dpkg/status", &status);
    if (rc)
        return rc;
    /* paragraphs separated by blank lines; fields "Name: value" */
    char *save = NULL;
    for (char *para = strtok_r(status, "\n", &save); para;) {
        char pkg[128] = "", ver[128] = "";
        int installed = 0;
        /* walk lines until a blank line ends the paragraph */
        char *line = para;
        for (;;) {
            if (str_starts(line, "Package: "))
                snprintf(pkg, sizeof(pkg), "%s", line + 9);
            else if (str_starts(line, "Version: "))
                snprintf(ver, sizeof(ver), "%s", line + 9);
            else if (str_starts(line, "Status: "))
                installed = str_ends(line, " installed");
            char *next = strtok_r(NULL, "\n", &save);
            if (!next) {
                para = NULL;
                break;
            }
            /* strtok_r skips empty lines: detect them from the gap */
            if (next > line + strlen(line) + 1) {
                para = next;
                break;
            }
            line = next;
        }
        if (installed && *ver && str_starts(pkg, "libamdhip64-") && pkg[12] >= '0' &&
            pkg[12] <= '9')
            add_install(v, n, NULL, ver);
        if (installed && *ver && firmware_package(pkg))
            strlist_add_owned(firmware, xasprintf("%s %s", pkg, ver));
    }
    free(status);
    return 0;
}

/* ---- amdgpu-dkms version -> ROCm release ------------------------------- */

/* The DKMS module version (/sys/module/amdgpu/version, also the package
 * version's prefix) names the driver code base; each ROCm release ships one.
 * From the amdgpu-dkms packages of repo.radeon.com (e.g. 1:6.8.5.60200 is
 * ROCm 6.2.0's) and amd-smi output. 6.16 serves two releases: patch level
 * 6.16.6 came with amdgpu 30.20 (ROCm 7.1), 6.16.13 with 30.30 (ROCm 7.2). */
static const struct {
    unsigned maj, min, min_patch;
    const char *rocm;
} dkms_rocm[] = {
    {5, 13, 0, "5.1"}, {5, 18, 0, "5.4"}, {6, 2, 0, "5.7"},   {6, 3, 0, "6.0"},
    {6, 7, 0, "6.1"},  {6, 8, 0, "6.2"},  {6, 10, 0, "6.3"},  {6, 12, 0, "6.4"},
    {6, 14, 0, "7.0"}, {6, 16, 0, "7.1"}, {6, 16, 13, "7.2"},
};

/* The support data's releases, oldest first: the production stream (each
 * has a gfx_supported row in checks.yaml and a place in its
 * rocm_release_order, tests/gfx_support.sh), counted between two releases
 * by the driver gap. 6.5-6.6 and 7.3-7.8 never shipped; 7.14.0 (2026-07)
 * was the first production release built by TheRock (the ROCm Core SDK),
 * after the technology previews 7.9-7.13; the Core SDK then jumped to 10.0
 * (2026-08-26) and 10.1 (2026-10-05). Adding a release: docs/ARCHITECTURE.md,
 * "Where each kind of change goes". */
static const char *const rocm_series[] = {
    "5.0", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6",  "5.7",  "6.0",  "6.1",
    "6.2", "6.3", "6.4", "7.0", "7.1", "7.2", "7.14", "10.0", "10.1",
};

/* TheRock's technology previews (ROCm/TheRock tags therock-7.9.0 to
 * therock-7.13; the ROCm 7.14 blog: "the preview release train spanning
 * versions 7.9 through 7.13 is complete"): no support list of their own
 * in the data, so they are named, never judged by a production row */
static const char *const rocm_preview_series[] = {"7.9", "7.10", "7.11", "7.12", "7.13"};

/* the month the support data was last held against its sources */
#define ROCM_SUPPORT_AS_OF "2026-12"

static int series_index(const char *s)
{
    for (size_t i = 0; i < ARRAY_SIZE(rocm_series); i++)
        if (strcmp(rocm_series[i], s) == 0)
            return (int)i;
    return -1;
}

static int series_cmp(unsigned maj, unsigned min, const char *s)
{
    unsigned a = 0, b = 0;
    if (sscanf(s, "%u.%u", &a, &b) != 2)
        return 0;
    return maj != a ? (maj < a ? -1 : 1) : min != b ? (min < b ? -1 : 1) : 0;
}

enum support_kind { SUPPORT_ROW, SUPPORT_OLDER, SUPPORT_NEWER, SUPPORT_PREVIEW, SUPPORT_BAD };

/* The support data's release for a ROCm series: the series itself when
 * the release table has it, else the newest known release below it (a
 * series that never shipped, 7.5, is most like the release before it).
 * A series newer than the newest release is not judged by the nearest
 * older row (its list may have grown or shrunk): SUPPORT_NEWER; a preview
 * SUPPORT_PREVIEW; older than the table SUPPORT_OLDER. */
static enum support_kind support_series(const char *s, const char **row)
{
    unsigned maj, min;
    *row = NULL;
    if (sscanf(s, "%u.%u", &maj, &min) != 2)
        return SUPPORT_BAD;
    for (size_t i = 0; i < ARRAY_SIZE(rocm_preview_series); i++)
        if (strcmp(rocm_preview_series[i], s) == 0)
            return SUPPORT_PREVIEW;
    if (series_cmp(maj, min, rocm_series[ARRAY_SIZE(rocm_series) - 1]) > 0)
        return SUPPORT_NEWER;
    for (size_t i = 0; i < ARRAY_SIZE(rocm_series); i++)
        if (series_cmp(maj, min, rocm_series[i]) >= 0)
            *row = rocm_series[i];
    return *row ? SUPPORT_ROW : SUPPORT_OLDER;
}

static const char *dkms_to_rocm(const char *driver_version)
{
    unsigned maj, min, patch = 0;
    if (sscanf(driver_version, "%u.%u.%u", &maj, &min, &patch) < 2)
        return NULL;
    const char *best = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(dkms_rocm); i++)
        if (dkms_rocm[i].maj == maj && dkms_rocm[i].min == min && patch >= dkms_rocm[i].min_patch)
            best = dkms_rocm[i].rocm;
    return best;
}

static void series_gap(struct factset *fs)
{
    const char *name = "driver.rocm_series_gap", *src = "/sys/module/amdgpu/version";
    const struct fact *dk = fact_get(fs, "driver.dkms");
    const struct fact *dv = fact_get(fs, "driver.version");
    const struct fact *rs = fact_get(fs, "rocm.series");
    if (!dk || dk->type != FACT_BOOL || !dk->b) {
        fact_set_unknown(fs, name, src, "not the amdgpu-dkms driver");
        return;
    }
    if (!dv || dv->type != FACT_STR) {
        fact_set_unknown(fs, name, src, "driver version unknown");
        return;
    }
    if (!rs || rs->type != FACT_STR) {
        fact_set_unknown(fs, name, src, "no ROCm version");
        return;
    }
    const char *drv = dkms_to_rocm(dv->s);
    int a = drv ? series_index(drv) : -1, b = series_index(rs->s);
    if (a < 0) {
        fact_set_unknown(fs, name, src, "amdgpu-dkms %s is not in the release table", dv->s);
        return;
    }
    if (b < 0) {
        fact_set_unknown(fs, name, src, "ROCm %s is not in the release table", rs->s);
        return;
    }
    fact_set_int(fs, name, a > b ? a - b : b - a, src);
}

/* ---- LD_LIBRARY_PATH ------------------------------------------------------ */

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

static void ld_library_path(struct factset *fs, const char *active)
{
    const char *src = "environment";
    const char *ld = probe_getenv("LD_LIBRARY_PATH");
    struct strlist parts = STRLIST_INIT, cuda = STRLIST_INIT, other = STRLIST_INIT;
    if (ld)
        fact_set_str(fs, "env.ld_library_path", ld, src);
    else
        fact_set_unknown(fs, "env.ld_library_path", src, "not set");
    strlist_split(&parts, ld ? ld : "", ":");
    int undecided = 0;
    for (size_t i = 0; i < parts.n; i++) {
        const char *e = parts.v[i];
        if (contains_ci(e, "cuda") || contains_ci(e, "nvidia"))
            strlist_add(&cuda, e);
        if (!str_starts(e, "/opt/rocm-"))
            continue;
        char *ver = xstrndup(e + 10, strcspn(e + 10, "/"));
        if (!active)
            undecided = 1;
        else if (strcmp(ver, active) != 0)
            strlist_add(&other, e);
        free(ver);
    }
    fact_set_list(fs, "env.ld_cuda_entries", &cuda, src);
    if (undecided)
        fact_set_unknown(fs, "env.ld_rocm_other", src, "no active ROCm version to compare with");
    else
        fact_set_list(fs, "env.ld_rocm_other", &other, src);
    strlist_release(&parts);
    strlist_release(&cuda);
    strlist_release(&other);
}

int probe_rocm_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct install *inst = NULL;
    size_t n = 0;
    const char *src = "/opt/rocm*/.info/version, /var/lib/dpkg/status";
    opt_installs(&inst, &n);
    struct strlist fw = STRLIST_INIT;
    int drc = dpkg_installs(&inst, &n, &fw);
    /* the package manager's word on the GPU firmware; rpm's database is
     * not plain text and is not read */
    if (drc)
        fact_set_unknown(fs, "driver.firmware_package", "/var/lib/dpkg/status",
                         "no readable dpkg status (%s); rpm databases are not read",
                         strerror(-drc));
    else
        fact_set_list(fs, "driver.firmware_package", &fw, "/var/lib/dpkg/status");
    strlist_release(&fw);

    struct strlist lines = STRLIST_INIT;
    for (size_t i = 0; i < n; i++)
        strlist_add_owned(
            &lines, xasprintf("%s %s", inst[i].dir ? inst[i].dir : "debian-packages", inst[i].raw));
    fact_set_list(fs, "rocm.installs", &lines, src);
    fact_set_int(fs, "rocm.install_count", (int64_t)n, src);
    strlist_release(&lines);

    /* the active install: what /opt/rocm resolves to, else (the Core SDK,
     * whose /opt/rocm is a directory) what /opt/rocm/core resolves to */
    const struct install *act = NULL;
    static const char *const links[] = {"/opt/rocm", "/opt/rocm/core"};
    for (size_t l = 0; l < ARRAY_SIZE(links) && !act; l++) {
        char *real = NULL;
        if (rootfs_exists(links[l]) && rootfs_realpath(links[l], &real) == 0)
            for (size_t i = 0; i < n; i++)
                if (inst[i].dir && strcmp(inst[i].dir, real) == 0)
                    act = &inst[i];
        free(real);
    }
    if (!act && n == 1)
        act = &inst[0];

    static const char *const names[] = {"rocm.version", "rocm.series", "rocm.major", "rocm.source",
                                        "rocm.support_series"};
    unsigned maj, min;
    if (!act || sscanf(act->version, "%u.%u", &maj, &min) != 2) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
            if (!n)
                fact_set_unknown(fs, names[i], src, "no ROCm install found");
            else if (!act)
                fact_set_unknown(fs, names[i], src,
                                 "%zu installs and /opt/rocm points at none of them", n);
            else
                fact_set_unknown(fs, names[i], src, "version '%s' is not M.m", act->raw);
        }
    } else {
        const char *asrc = act->dir ? "/opt/rocm/.info/version" : "/var/lib/dpkg/status";
        char series[32];
        snprintf(series, sizeof(series), "%u.%u", maj, min);
        fact_set_str(fs, "rocm.version", act->version, asrc);
        fact_set_str(fs, "rocm.series", series, asrc);
        fact_set_int(fs, "rocm.major", maj, asrc);
        fact_set_str(fs, "rocm.source", act->dir ? act->dir : "debian packages", asrc);
        const char *sup;
        enum support_kind k = support_series(series, &sup);
        fact_set_str(fs, "rocm.stream", k == SUPPORT_PREVIEW ? "preview" : "production", asrc);
        fact_set_bool(fs, "rocm.newer_than_data", k == SUPPORT_NEWER, asrc);
        if (k == SUPPORT_ROW)
            fact_set_str(fs, "rocm.support_series", sup, asrc);
        else if (k == SUPPORT_NEWER)
            fact_set_unknown(fs, "rocm.support_series", asrc,
                             "ROCm %s is newer than the support data (as of %s, newest ROCm %s)",
                             series, ROCM_SUPPORT_AS_OF, rocm_series[ARRAY_SIZE(rocm_series) - 1]);
        else if (k == SUPPORT_PREVIEW)
            fact_set_unknown(fs, "rocm.support_series", asrc,
                             "ROCm %s is a technology preview (7.9-7.13), which the support data "
                             "has no gfx list for",
                             series);
        else
            fact_set_unknown(fs, "rocm.support_series", asrc,
                             "ROCm %s is older than the support data (from %s)", series,
                             rocm_series[0]);
    }
    if (!act || sscanf(act->version, "%u.%u", &maj, &min) != 2) {
        fact_set_unknown(fs, "rocm.stream", src, "no ROCm version");
        fact_set_unknown(fs, "rocm.newer_than_data", src, "no ROCm version");
    }
    /* what every report prints: how old the release table is */
    char *asof = xasprintf("as of %s (newest ROCm %s)", ROCM_SUPPORT_AS_OF,
                           rocm_series[ARRAY_SIZE(rocm_series) - 1]);
    fact_set_str(fs, "rocm.support_data", asof, "probes/probe_rocm.c");
    free(asof);
    series_gap(fs);
    ld_library_path(fs, act ? act->version : NULL);
    for (size_t i = 0; i < n; i++) {
        free(inst[i].dir);
        free(inst[i].raw);
        free(inst[i].version);
    }
    free(inst);
    return 0;
}
