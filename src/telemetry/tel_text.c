/* tel_text.c - the telemetry's text parsers (telemetry.h): DPM tables and
 * DRM fdinfo. Pure functions over strings, so the unit tests and the fuzz
 * harness feed them the real captures directly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "telemetry.h"

/* the next line of *p (without '\n') into line; 0 at the end */
static int next_line(const char **p, char *line, size_t n)
{
    if (!*p || !**p)
        return 0;
    const char *nl = strchr(*p, '\n');
    size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
    snprintf(line, n, "%.*s", (int)(len < n ? len : n - 1), *p);
    *p = nl ? nl + 1 : *p + len;
    return 1;
}

/* a trailing '*' (after spaces) marks the current level; strip it */
static int strip_star(char *line)
{
    size_t len = strlen(line);
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
        line[--len] = '\0';
    if (len && line[len - 1] == '*') {
        line[--len] = '\0';
        return 1;
    }
    return 0;
}

int tel_dpm_parse(const char *text, struct tel_dpm *out)
{
    memset(out, 0, sizeof(*out));
    out->cur = -1;
    out->min = -1;
    out->max = -1;
    unsigned first = 0, last = 0;
    char line[128];
    for (const char *p = text; next_line(&p, line, sizeof(line));) {
        int star = strip_star(line);
        unsigned lvl, mhz;
        char unit[4];
        /* deep sleep: SMU 13.0.6 (MI300) and the APUs print the current
         * clock as "S: %uMhz *" above the levels when it is below the
         * lowest one. It is the clock now, not a level: no part of the
         * range or of nstar (the marked levels) */
        if (sscanf(line, "S: %u%3[MmHhZz]", &mhz, unit) == 2 && !strcasecmp(unit, "mhz")) {
            if (star && out->cur < 0)
                out->cur = mhz;
            continue;
        }
        /* amdgpu_pm.c prints "%d: %uMhz" (older kernels "%uMHz") */
        if (sscanf(line, "%u: %u%3[MmHhZz]", &lvl, &mhz, unit) != 3 || strcasecmp(unit, "mhz"))
            continue;
        if (out->n++ == 0)
            first = mhz;
        last = mhz;
        if (star && out->nstar++ == 0 && out->cur < 0)
            out->cur = mhz;
    }
    if (!out->n)
        return -EINVAL;
    out->min = first < last ? first : last;
    out->max = first < last ? last : first;
    return 0;
}

int tel_dpm_pcie_parse(const char *text, struct tel_dpm_pcie *out)
{
    memset(out, 0, sizeof(*out));
    out->cur_gts = out->max_gts = -1;
    out->cur_width = out->max_width = -1;
    char line[128];
    for (const char *p = text; next_line(&p, line, sizeof(line));) {
        int star = strip_star(line);
        unsigned lvl, width;
        double gts;
        if (sscanf(line, "%u: %lfGT/s, x%u", &lvl, &gts, &width) != 3)
            continue;
        out->n++;
        if (star && out->nstar++ == 0) {
            out->cur_gts = gts;
            out->cur_width = (int)width;
        } else if (star && (gts != out->cur_gts || (int)width != out->cur_width)) {
            out->star_conflict = 1;
        }
        if (gts > out->max_gts || (gts == out->max_gts && (int)width > out->max_width)) {
            out->max_gts = gts;
            out->max_width = (int)width;
        }
    }
    return out->n ? 0 : -EINVAL;
}

/* "123 KiB" / "4 MiB" / "77" (bytes); "123 kB" is the 5.14-5.18 amdgpu
 * spelling of KiB (it printed bytes / 1024 with "kB") */
static int64_t size_value(const char *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || errno)
        return -1;
    while (*end == ' ' || *end == '\t')
        end++;
    uint64_t mul = 1;
    if (!strncmp(end, "KiB", 3) || !strcmp(end, "kB"))
        mul = 1024;
    else if (!strncmp(end, "MiB", 3))
        mul = 1024 * 1024;
    else if (!strncmp(end, "GiB", 3))
        mul = 1024ull * 1024 * 1024;
    else if (*end)
        return -1;
    if (n > (uint64_t)INT64_MAX / mul)
        return -1;
    return (int64_t)(n * mul);
}

/* Which key gives a client's VRAM, best first (amdgpu_fdinfo.c):
 * - drm-resident-vram (drm_print_memory_stats, 6.11+): what is in VRAM now;
 *   drm-total-vram counts buffers the client shares and ones evicted to
 *   system memory as well, so it over-counts;
 * - drm-memory-vram (5.19+): the legacy key, an alias of resident on
 *   current kernels (of total on the first drm_print_memory_stats ones);
 * - drm-total-vram: only if nothing better is there;
 * - "vram mem" (5.14-5.18, before the drm-usage-stats keys: "pdev:",
 *   "vram mem:\t%llu kB", and per-ring "gfx0:\t12.34%" percentages, no
 *   drm-driver line; only amdgpu printed it). */
enum { VRAM_RESIDENT, VRAM_LEGACY, VRAM_TOTAL, VRAM_OLD, VRAM_NKEYS };

int tel_fdinfo_parse(const char *text, struct tel_fdinfo *out)
{
    memset(out, 0, sizeof(*out));
    out->vram_bytes = -1;
    out->engine_ns = -1;
    int64_t vram[VRAM_NKEYS] = {-1, -1, -1, -1};
    char old_pdev[sizeof(out->pdev)] = "";
    char line[256];
    for (const char *p = text; next_line(&p, line, sizeof(line));) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (!strcmp(line, "drm-driver")) {
            snprintf(out->driver, sizeof(out->driver), "%s", v);
        } else if (!strcmp(line, "drm-pdev")) {
            snprintf(out->pdev, sizeof(out->pdev), "%s", v);
        } else if (!strcmp(line, "pdev")) {
            snprintf(old_pdev, sizeof(old_pdev), "%s", v);
        } else if (!strcmp(line, "drm-client-id")) {
            char *end;
            errno = 0;
            unsigned long long id = strtoull(v, &end, 10);
            if (end != v && !*end && !errno) {
                out->client_id = id;
                out->has_client_id = 1;
            }
        } else if (!strncmp(line, "drm-engine-", 11) && strncmp(line, "drm-engine-capacity-", 20)) {
            /* "drm-engine-gfx:\t123 ns" */
            char *end;
            errno = 0;
            unsigned long long ns = strtoull(v, &end, 10);
            if (end != v && (!errno || errno == ERANGE) && !strcmp(end, " ns"))
                out->engine_ns = i64_add_sat(out->engine_ns, i64_from_u64_sat(ns, &out->saturated),
                                             &out->saturated);
        } else if (!strcmp(line, "drm-resident-vram")) {
            vram[VRAM_RESIDENT] = size_value(v);
        } else if (!strcmp(line, "drm-memory-vram")) {
            vram[VRAM_LEGACY] = size_value(v);
        } else if (!strcmp(line, "drm-total-vram")) {
            vram[VRAM_TOTAL] = size_value(v);
        } else if (!strcmp(line, "vram mem")) {
            vram[VRAM_OLD] = size_value(v);
        }
    }
    /* the 5.14-5.18 format: amdgpu's "pdev" and "vram mem" lines */
    if (!out->driver[0] && old_pdev[0] && vram[VRAM_OLD] >= 0) {
        snprintf(out->driver, sizeof(out->driver), "amdgpu");
        snprintf(out->pdev, sizeof(out->pdev), "%s", old_pdev);
    }
    if (!out->driver[0])
        return -ENOENT;
    for (int i = 0; i < VRAM_NKEYS && out->vram_bytes < 0; i++)
        out->vram_bytes = vram[i];
    return 0;
}
