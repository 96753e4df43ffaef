/* tel_src_sysfs.c - the telemetry source of AMD GPUs through amdgpu's sysfs
 * (read through rootfs.h, so --sysroot fixtures and snapshots replay):
 * pp_dpm_* clocks, hwmon power, energy, temperatures and fan, busy and
 * memory files, the GPU's own PCIe link, gpu_metrics' throttle bits; the
 * processes from DRM fdinfo and KFD (tel_procs.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rootfs.h"
#include "gpu_metrics.h"
#include "tel_source.h"

#define PCI_DEVICES "/sys/bus/pci/devices"

struct sysfs {
    struct strlist bdfs;
    char **hwmon; /* per GPU: "hwmonN" once found */
    /* per GPU: the hwmon temp<n> of edge, junction, mem (0: none), from
     * the temp*_label files read once (labels do not change while the
     * driver is loaded; the dashboard samples every 100 ms) */
    int (*temp_n)[3];
    int *temp_n_known;
    /* per GPU: the optional files (enum opt_file) that were absent at the
     * last look, and when the set was last cleared. An absent file is not
     * opened again until the next recheck (struct tel_src_ctx.recheck_s): a
     * card without a fan or GTT file would otherwise cost two failed
     * syscalls per file every 100 ms frame (the dashboard's budget is 2 % of
     * a core for 8 GPUs) */
    unsigned *absent;
    double *absent_t;
};

static void *open_sysfs(const struct strlist *amd_bdfs, char *status, size_t status_n)
{
    struct sysfs *t = xcalloc(1, sizeof(*t));
    for (size_t i = 0; amd_bdfs && i < amd_bdfs->n; i++)
        strlist_add(&t->bdfs, amd_bdfs->v[i]);
    t->hwmon = xcalloc(t->bdfs.n + 1, sizeof(char *));
    t->temp_n = xcalloc(t->bdfs.n + 1, sizeof(*t->temp_n));
    t->temp_n_known = xcalloc(t->bdfs.n + 1, sizeof(int));
    t->absent = xcalloc(t->bdfs.n + 1, sizeof(unsigned));
    t->absent_t = xcalloc(t->bdfs.n + 1, sizeof(double));
    snprintf(status, status_n, "%zu AMD GPU(s) through " PCI_DEVICES, t->bdfs.n);
    return t;
}

static size_t count(void *st)
{
    return ((struct sysfs *)st)->bdfs.n;
}

static const char *pci(void *st, size_t i)
{
    return ((struct sysfs *)st)->bdfs.v[i];
}

static int processes(void *st, struct tel_sample *s, size_t *cap, const int *gpu)
{
    (void)st;
    (void)gpu; /* fdinfo and KFD name the PCI address: matched to any GPU of s */
    return tel_procs_drm_kfd(s, cap);
}

static void close_sysfs(void *st)
{
    struct sysfs *t = st;
    for (size_t i = 0; i < t->bdfs.n; i++)
        free(t->hwmon[i]);
    free(t->hwmon);
    free(t->temp_n);
    free(t->temp_n_known);
    free(t->absent);
    free(t->absent_t);
    strlist_release(&t->bdfs);
    free(t);
}

/* a decimal sysfs file of the GPU scaled by mul, or unknown naming why */
static int read_num(struct tel_gpu *g, enum tel_key k, const char *dir, const char *file,
                    double mul, const char *src)
{
    uint64_t v;
    int rc = rootfs_readf_u64(&v, "%s/%s", dir, file);
    if (rc) {
        tel_gpu_unknown(g, k, "%s: %s", file, strerror(-rc));
        return rc;
    }
    tel_gpu_set(g, k, (double)v * mul, src);
    return 0;
}

/* the optional files remembered as absent between rechecks */
enum opt_file {
    OPT_MEM_BUSY,
    OPT_GTT_USED,
    OPT_GTT_TOTAL,
    OPT_POWER_CAP,
    OPT_ENERGY,
    OPT_FAN,
    OPT_PWM,
    OPT_METRICS
};

/* read_num of an optional file of AMD GPU i: while it is remembered absent,
 * unknown with the same reason as a failed open, without opening it */
static int read_opt(struct sysfs *t, size_t i, enum opt_file f, struct tel_gpu *g, enum tel_key k,
                    const char *dir, const char *file, double mul, const char *src)
{
    if (t->absent[i] & (1u << f)) {
        tel_gpu_unknown(g, k, "%s: %s", file, strerror(ENOENT));
        return -ENOENT;
    }
    int rc = read_num(g, k, dir, file, mul, src);
    if (rc == -ENOENT)
        t->absent[i] |= 1u << f;
    return rc;
}

static void dpm(struct tel_gpu *g, const char *dir, const char *file, enum tel_key cur,
                enum tel_key lo, enum tel_key hi)
{
    char *text;
    struct tel_dpm d;
    int rc = rootfs_readf_str(&text, "%s/%s", dir, file);
    if (rc) {
        tel_gpu_unknown(g, cur, "%s: %s", file, strerror(-rc));
        tel_gpu_unknown(g, lo, "%s: %s", file, strerror(-rc));
        tel_gpu_unknown(g, hi, "%s: %s", file, strerror(-rc));
        return;
    }
    if (tel_dpm_parse(text, &d)) {
        tel_gpu_unknown(g, cur, "%s: no 'N: <n>Mhz' level", file);
        tel_gpu_unknown(g, lo, "%s: no 'N: <n>Mhz' level", file);
        tel_gpu_unknown(g, hi, "%s: no 'N: <n>Mhz' level", file);
    } else {
        const char *src = file; /* "pp_dpm_sclk" is a static string's tail */
        if (d.cur >= 0)
            tel_gpu_set(g, cur, d.cur, src);
        else
            tel_gpu_unknown(g, cur, "%s: no level marked '*'", file);
        tel_gpu_set(g, lo, d.min, src);
        tel_gpu_set(g, hi, d.max, src);
    }
    free(text);
}

/* "16.0 GT/s PCIe" */
static int link_speed(const char *dir, const char *file, double *gts)
{
    char *s;
    if (rootfs_readf_str(&s, "%s/%s", dir, file))
        return -1;
    int ok = sscanf(s, "%lf GT/s", gts) == 1 && *gts > 0;
    free(s);
    return ok ? 0 : -1;
}

static void pcie(struct tel_gpu *g, const char *dir)
{
    char *text;
    struct tel_dpm_pcie p = {0};
    int have = rootfs_readf_str(&text, "%s/pp_dpm_pcie", dir) == 0;
    if (have) {
        have = tel_dpm_pcie_parse(text, &p) == 0;
        free(text);
    }
    uint64_t w;
    double gts;
    /* the marked DPM level is the link the SMU runs; on Navi the function's
     * own link registers show the on-card switch's internal link instead.
     * Several marks that name one link still tell it */
    if (have && p.nstar >= 1 && !p.star_conflict) {
        tel_gpu_set(g, TEL_PCIE_GTS, p.cur_gts, "pp_dpm_pcie");
        tel_gpu_set(g, TEL_PCIE_WIDTH, p.cur_width, "pp_dpm_pcie");
    } else {
        if (link_speed(dir, "current_link_speed", &gts) == 0)
            tel_gpu_set(g, TEL_PCIE_GTS, gts, "current_link_speed");
        else
            tel_gpu_unknown(g, TEL_PCIE_GTS, "no current_link_speed, pp_dpm_pcie marks %d levels",
                            p.nstar);
        read_num(g, TEL_PCIE_WIDTH, dir, "current_link_width", 1, "current_link_width");
    }
    if (have && p.max_gts > 0) {
        tel_gpu_set(g, TEL_PCIE_MAX_GTS, p.max_gts, "pp_dpm_pcie");
        tel_gpu_set(g, TEL_PCIE_MAX_WIDTH, p.max_width, "pp_dpm_pcie");
    } else {
        if (link_speed(dir, "max_link_speed", &gts) == 0)
            tel_gpu_set(g, TEL_PCIE_MAX_GTS, gts, "max_link_speed");
        else
            tel_gpu_unknown(g, TEL_PCIE_MAX_GTS, "no max_link_speed or pp_dpm_pcie");
        if (rootfs_readf_u64(&w, "%s/max_link_width", dir) == 0)
            tel_gpu_set(g, TEL_PCIE_MAX_WIDTH, (double)w, "max_link_width");
        else
            tel_gpu_unknown(g, TEL_PCIE_MAX_WIDTH, "no max_link_width or pp_dpm_pcie");
    }
    read_num(g, TEL_PCIE_REPLAYS, dir, "pcie_replay_count", 1, "pcie_replay_count");
}

static const char *find_hwmon(struct sysfs *t, size_t i, const char *dir)
{
    if (t->hwmon[i])
        return t->hwmon[i];
    struct strlist names = STRLIST_INIT;
    char *h = xasprintf("%s/hwmon", dir);
    if (rootfs_list(h, &names) == 0)
        for (size_t k = 0; k < names.n && !t->hwmon[i]; k++)
            if (str_starts(names.v[k], "hwmon"))
                t->hwmon[i] = xasprintf("%s/%s", h, names.v[k]);
    strlist_release(&names);
    free(h);
    return t->hwmon[i];
}

static void hwmon(struct sysfs *t, size_t i, struct tel_gpu *g, const char *dir)
{
    const char *h = find_hwmon(t, i, dir);
    static const enum tel_key keys[] = {TEL_POWER_W,
                                        TEL_POWER_CAP_W,
                                        TEL_ENERGY_J,
                                        TEL_TEMP_EDGE_C,
                                        TEL_TEMP_EDGE_LIMIT_C,
                                        TEL_TEMP_JUNCTION_C,
                                        TEL_TEMP_JUNCTION_LIMIT_C,
                                        TEL_TEMP_MEM_C,
                                        TEL_TEMP_MEM_LIMIT_C,
                                        TEL_FAN_RPM,
                                        TEL_FAN_PCT};
    if (!h) {
        for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
            tel_gpu_unknown(g, keys[k], "no hwmon directory under %s", dir);
        return;
    }
    /* power1_average on most cards, power1_input on RDNA3 and newer */
    if (read_num(g, TEL_POWER_W, h, "power1_average", 1e-6, "hwmon"))
        read_num(g, TEL_POWER_W, h, "power1_input", 1e-6, "hwmon");
    read_opt(t, i, OPT_POWER_CAP, g, TEL_POWER_CAP_W, h, "power1_cap", 1e-6, "hwmon");
    read_opt(t, i, OPT_ENERGY, g, TEL_ENERGY_J, h, "energy1_input", 1e-6, "hwmon energy1_input");
    for (enum tel_key k = TEL_TEMP_EDGE_C; k <= TEL_TEMP_MEM_LIMIT_C; k++)
        tel_gpu_unknown(g, k, "no hwmon temp*_label names it");
    if (!t->temp_n_known[i]) {
        for (int n = 1; n <= 8; n++) {
            char *label;
            if (rootfs_readf_str(&label, "%s/temp%d_label", h, n))
                continue;
            int which = !strcmp(label, "edge")       ? 0
                        : !strcmp(label, "junction") ? 1
                        : !strcmp(label, "mem")      ? 2
                                                     : -1;
            free(label);
            if (which >= 0) /* the last of a label, as before */
                t->temp_n[i][which] = n;
        }
        t->temp_n_known[i] = 1;
    }
    static const enum tel_key temp_keys[3] = {TEL_TEMP_EDGE_C, TEL_TEMP_JUNCTION_C, TEL_TEMP_MEM_C};
    for (int w = 0; w < 3; w++) {
        int n = t->temp_n[i][w];
        enum tel_key k = temp_keys[w];
        if (!n)
            continue;
        char f[32];
        snprintf(f, sizeof(f), "temp%d_input", n);
        read_num(g, k, h, f, 1e-3, "hwmon");
        /* the sensor's own limit: crit (the driver throttles there), else
         * emergency */
        snprintf(f, sizeof(f), "temp%d_crit", n);
        if (read_num(g, k + 1, h, f, 1e-3, "hwmon")) {
            snprintf(f, sizeof(f), "temp%d_emergency", n);
            read_num(g, k + 1, h, f, 1e-3, "hwmon");
        }
    }
    read_opt(t, i, OPT_FAN, g, TEL_FAN_RPM, h, "fan1_input", 1, "hwmon");
    read_opt(t, i, OPT_PWM, g, TEL_FAN_PCT, h, "pwm1", 100.0 / 255.0, "hwmon");
}

/* the gpu_metrics counters and arrays (gpu_metrics.h) a sample carries,
 * with the kernel's field name for the reason a revision lacks one */
static const struct {
    enum gm_field f;
    enum tel_key k;
    const char *name;
} gm_keys[] = {
    {GM_ACC_COUNTER, TEL_THR_ACC, "accumulation_counter"},
    {GM_RES_PROCHOT, TEL_THR_PROCHOT, "prochot_residency_acc"},
    {GM_RES_PPT, TEL_THR_PPT, "ppt_residency_acc"},
    {GM_RES_SOCKET_THM, TEL_THR_SOCKET_THM, "socket_thm_residency_acc"},
    {GM_RES_VR_THM, TEL_THR_VR_THM, "vr_thm_residency_acc"},
    {GM_RES_HBM_THM, TEL_THR_HBM_THM, "hbm_thm_residency_acc"},
    {GM_THR_SPL, TEL_THR_SPL, "throttle_residency_spl"},
    {GM_THR_FPPT, TEL_THR_FPPT, "throttle_residency_fppt"},
    {GM_THR_SPPT, TEL_THR_SPPT, "throttle_residency_sppt"},
    {GM_THR_THM_CORE, TEL_THR_THM_CORE, "throttle_residency_thm_core"},
    {GM_THR_THM_GFX, TEL_THR_THM_GFX, "throttle_residency_thm_gfx"},
    {GM_THR_THM_SOC, TEL_THR_THM_SOC, "throttle_residency_thm_soc"},
    {GM_PCIE_L0_TO_RECOV, TEL_PCIE_L0_RECOV, "pcie_l0_to_recov_count_acc"},
    {GM_PCIE_REPLAY, TEL_PCIE_REPLAY_ACC, "pcie_replay_count_acc"},
    {GM_PCIE_REPLAY_ROVER, TEL_PCIE_REPLAY_ROVER, "pcie_replay_rover_count_acc"},
    {GM_PCIE_NAK_SENT, TEL_PCIE_NAK_SENT, "pcie_nak_sent_count_acc"},
    {GM_PCIE_NAK_RCVD, TEL_PCIE_NAK_RCVD, "pcie_nak_rcvd_count_acc"},
    {GM_PCIE_OTHER_END_RECOV, TEL_PCIE_OTHER_RECOV, "pcie_lc_perf_other_end_recovery"},
};

/* every gpu_metrics key unknown for one reason (the file or its parse) */
static void metrics_unknown(struct tel_gpu *g, const char *why)
{
    for (size_t i = 0; i < ARRAY_SIZE(gm_keys); i++)
        tel_gpu_unknown(g, gm_keys[i].k, "%s", why);
    tel_gpu_unknown(g, TEL_TEMP_HBM_MAX_C, "%s", why);
    tel_gpu_unknown(g, TEL_XCD_SCLK_MIN_MHZ, "%s", why);
}

/* the counters, the hottest HBM stack and the slowest XCD of a parsed
 * blob; a field the revision lacks (or reports as all-ones, "not
 * provided") is unknown naming the field, never 0. v3_0's prochot counter
 * is the same limiter as v1_6's and shares its key. */
static void metrics_counters(struct tel_gpu *g, const struct gpu_metrics *m)
{
    for (size_t i = 0; i < ARRAY_SIZE(gm_keys); i++) {
        enum gm_field f = gm_keys[i].f;
        if (gm_keys[i].k == TEL_THR_PROCHOT && !m->known[f] && m->known[GM_THR_PROCHOT])
            f = GM_THR_PROCHOT;
        if (m->known[f])
            tel_gpu_set(g, gm_keys[i].k, m->v[f], "gpu_metrics");
        else
            tel_gpu_unknown(g, gm_keys[i].k,
                            "gpu_metrics %u.%u: no %s (not in this revision, or all-ones)",
                            m->format, m->content, gm_keys[i].name);
    }
    double hbm = NAN, xcd = NAN;
    for (int i = 0; i < GM_NHBM; i++)
        if (m->hbm_known[i] && !(hbm >= m->hbm_temp_c[i]))
            hbm = m->hbm_temp_c[i];
    for (int i = 0; i < GM_NXCD; i++)
        if (m->xcd_known[i] && !(xcd <= m->xcd_gfxclk_mhz[i]))
            xcd = m->xcd_gfxclk_mhz[i];
    if (isnan(hbm))
        tel_gpu_unknown(g, TEL_TEMP_HBM_MAX_C,
                        "gpu_metrics %u.%u: no temperature_hbm (not in this revision, or all-ones)",
                        m->format, m->content);
    else
        tel_gpu_set(g, TEL_TEMP_HBM_MAX_C, hbm, "gpu_metrics");
    if (isnan(xcd))
        tel_gpu_unknown(
            g, TEL_XCD_SCLK_MIN_MHZ,
            "gpu_metrics %u.%u: no current_gfxclk[] (not in this revision, or all-ones)", m->format,
            m->content);
    else
        tel_gpu_set(g, TEL_XCD_SCLK_MIN_MHZ, xcd, "gpu_metrics");
}

/* 0, or the failed read's -errno */
static int metrics(struct tel_gpu *g, const char *dir)
{
    char *buf;
    size_t len;
    char path[128];
    snprintf(path, sizeof(path), "%s/gpu_metrics", dir);
    int rc = rootfs_read(path, &buf, &len);
    if (rc) {
        snprintf(g->throttle_why, sizeof(g->throttle_why), "gpu_metrics: %s", strerror(-rc));
        metrics_unknown(g, g->throttle_why);
        return rc;
    }
    struct gpu_metrics m;
    char why[128];
    if (gpu_metrics_parse(buf, len, &m, why, sizeof(why))) {
        snprintf(g->throttle_why, sizeof(g->throttle_why), "%s", why);
        metrics_unknown(g, why);
        free(buf);
        return 0;
    }
    free(buf);
    metrics_counters(g, &m);
    snprintf(g->throttle_src, sizeof(g->throttle_src), "gpu_metrics %u.%u", m.format, m.content);
    if (m.has_indep) {
        g->throttle_known = 1;
        g->throttle_bits = m.indep_throttle;
        gpu_metrics_throttle_names(m.indep_throttle, g->throttle, sizeof(g->throttle));
    } else if (m.has_throttle) {
        /* ASIC-dependent bits only: shown as a number, never named */
        g->throttle_known = 1;
        g->throttle_bits = m.throttle;
        if (m.throttle)
            snprintf(g->throttle, sizeof(g->throttle), "asic:0x%08x", m.throttle);
    } else {
        snprintf(g->throttle_why, sizeof(g->throttle_why),
                 "gpu_metrics %u.%u has no throttle status", m.format, m.content);
    }
    /* fill what sysfs did not give */
    if (!g->src[TEL_ENERGY_J] && m.known[GM_ENERGY_J])
        tel_gpu_set(g, TEL_ENERGY_J, m.v[GM_ENERGY_J], "gpu_metrics energy_accumulator");
    if (!g->src[TEL_POWER_W] && m.known[GM_POWER_W])
        tel_gpu_set(g, TEL_POWER_W, m.v[GM_POWER_W], "gpu_metrics");
    if (!g->src[TEL_SCLK_MHZ] && m.known[GM_GFXCLK_MHZ])
        tel_gpu_set(g, TEL_SCLK_MHZ, m.v[GM_GFXCLK_MHZ], "gpu_metrics");
    if (!g->src[TEL_TEMP_JUNCTION_C] && m.known[GM_TEMP_HOTSPOT_C])
        tel_gpu_set(g, TEL_TEMP_JUNCTION_C, m.v[GM_TEMP_HOTSPOT_C], "gpu_metrics");
    return 0;
}

static void sample(void *st, size_t i, struct tel_gpu *g, const struct tel_src_ctx *c)
{
    struct sysfs *t = st;
    if (c->now - t->absent_t[i] >= c->recheck_s) { /* look at the absent files again */
        t->absent[i] = 0;
        t->absent_t[i] = c->now;
    }
    const char *bdf = t->bdfs.v[i];
    char dir[96];
    snprintf(dir, sizeof(dir), PCI_DEVICES "/%s", bdf);
    dpm(g, dir, "pp_dpm_sclk", TEL_SCLK_MHZ, TEL_SCLK_MIN_MHZ, TEL_SCLK_MAX_MHZ);
    dpm(g, dir, "pp_dpm_mclk", TEL_MCLK_MHZ, TEL_MCLK_MIN_MHZ, TEL_MCLK_MAX_MHZ);
    hwmon(t, i, g, dir);
    read_num(g, TEL_BUSY_PCT, dir, "gpu_busy_percent", 1, "gpu_busy_percent");
    read_opt(t, i, OPT_MEM_BUSY, g, TEL_MEM_BUSY_PCT, dir, "mem_busy_percent", 1,
             "mem_busy_percent");
    read_num(g, TEL_VRAM_USED_B, dir, "mem_info_vram_used", 1, "mem_info_vram_used");
    read_num(g, TEL_VRAM_TOTAL_B, dir, "mem_info_vram_total", 1, "mem_info_vram_total");
    read_opt(t, i, OPT_GTT_USED, g, TEL_GTT_USED_B, dir, "mem_info_gtt_used", 1,
             "mem_info_gtt_used");
    read_opt(t, i, OPT_GTT_TOTAL, g, TEL_GTT_TOTAL_B, dir, "mem_info_gtt_total", 1,
             "mem_info_gtt_total");
    pcie(g, dir);
    if (t->absent[i] & (1u << OPT_METRICS)) {
        snprintf(g->throttle_why, sizeof(g->throttle_why), "gpu_metrics: %s", strerror(ENOENT));
        metrics_unknown(g, g->throttle_why);
    } else if (metrics(g, dir) == -ENOENT)
        t->absent[i] |= 1u << OPT_METRICS;
}

const struct tel_source_ops tel_src_sysfs = {
    .name = "sysfs",
    .vendor = "amd",
    .open = open_sysfs,
    .count = count,
    .pci = pci,
    .sample = sample,
    .processes = processes,
    .close = close_sysfs,
};
