/* telemetry.c - the sampler (telemetry.h): AMD GPUs from sysfs, the
 * process list from DRM fdinfo and KFD; NVML in tel_nvml.c. */
#include "telemetry.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/pci_path.h"
#include "../core/rootfs.h"
#include "gpu_metrics.h"
#include "tel_nvml.h"
#include "tel_rsmi.h"

#define PCI_DEVICES "/sys/bus/pci/devices"
#define KFD_PROC "/sys/class/kfd/kfd/proc"
#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
/* bounds on the process scan: a host with more is shown in part */
#define MAX_PIDS 4096
#define MAX_FDS 512
/* the PCIe path's link files are re-read this often, not every frame: the
 * dashboard samples every 100 ms and a path is 2-6 hops of 4 link files
 * each, while an upstream link retrains rarely (a change shows within 1 s);
 * the path itself (a symlink resolution and the hops' ids) is read once */
#define PATH_EVERY_S 1.0

static const char *const key_names[TEL_NKEYS] = {
    "sclk_mhz",
    "sclk_min_mhz",
    "sclk_max_mhz",
    "mclk_mhz",
    "mclk_min_mhz",
    "mclk_max_mhz",
    "power_w",
    "power_cap_w",
    "energy_j",
    "temp_edge_c",
    "temp_edge_limit_c",
    "temp_junction_c",
    "temp_junction_limit_c",
    "temp_mem_c",
    "temp_mem_limit_c",
    "fan_rpm",
    "fan_pct",
    "busy_pct",
    "mem_busy_pct",
    "vram_used_bytes",
    "vram_total_bytes",
    "gtt_used_bytes",
    "gtt_total_bytes",
    "pcie_gts",
    "pcie_width",
    "pcie_max_gts",
    "pcie_max_width",
    "pcie_replays",
    "pcie_path_width",
    "pcie_path_gts",
    "pcie_path_limited",
};

const char *tel_key_name(enum tel_key k)
{
    return (unsigned)k < TEL_NKEYS ? key_names[k] : "?";
}

/* engine time of one (pid, GPU) at the last sample, for busy % */
struct prev_engine {
    int pid;
    char pdev[16];
    int64_t ns;
};

/* one GPU's PCIe path as last read (PATH_EVERY_S) */
struct tel_path {
    double at; /* t of the read; < 0 never read */
    struct pci_hop *hops;
    size_t n;
    int rc; /* pci_path_read / pci_path_pick: 0 or -errno */
    double gts;
    unsigned width;
    char hop[16];
};

struct tel {
    struct strlist bdfs;
    char **hwmon; /* per AMD GPU: "hwmonN" once found */
    /* per AMD GPU: the hwmon temp<n> of edge, junction, mem (0: none), from
     * the temp*_label files read once (labels do not change while the
     * driver is loaded; the dashboard samples every 100 ms) */
    int (*temp_n)[3];
    int *temp_n_known;
    /* per AMD GPU: the optional files (enum opt_file) that were absent at
     * the last look, and when the set was last cleared. An absent file is
     * not opened again until the next recheck: a card without a fan or GTT
     * file would otherwise cost two failed syscalls per file every 100 ms
     * frame (the dashboard's budget is 2 % of a core for 8 GPUs) */
    unsigned *absent;
    double *absent_t;
    double recheck_s;
    int procs;
    struct tel_nvml *nvml;
    const char *nvml_status;
    struct tel_rsmi *rsmi;
    const char *rsmi_status;
    int *rsmi_dev; /* per AMD GPU: its rocm-smi device, -1 none */
    /* the NVML devices sampled: every one but a device whose address the
     * AMD list already holds (never one GPU twice) */
    size_t *nv;
    size_t nn;
    /* per AMD GPU, then per NVML device in nv: the last read of its PCIe path */
    struct tel_path *path;
    double t0;
    double last_t;
    struct prev_engine *prev;
    size_t nprev;
};

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct tel *tel_open(const struct strlist *amd_bdfs, int vendor_libs, int procs)
{
    struct tel *t = xcalloc(1, sizeof(*t));
    for (size_t i = 0; amd_bdfs && i < amd_bdfs->n; i++)
        strlist_add(&t->bdfs, amd_bdfs->v[i]);
    t->hwmon = xcalloc(t->bdfs.n + 1, sizeof(char *));
    t->temp_n = xcalloc(t->bdfs.n + 1, sizeof(*t->temp_n));
    t->temp_n_known = xcalloc(t->bdfs.n + 1, sizeof(int));
    t->absent = xcalloc(t->bdfs.n + 1, sizeof(unsigned));
    t->absent_t = xcalloc(t->bdfs.n + 1, sizeof(double));
    t->recheck_s = TEL_RECHECK_S;
    t->procs = procs;
    t->nvml_status = "not asked";
    t->rsmi_status = "not asked";
    t->rsmi_dev = xcalloc(t->bdfs.n + 1, sizeof(int));
    for (size_t i = 0; i < t->bdfs.n; i++)
        t->rsmi_dev[i] = -1;
    if (vendor_libs) {
        t->nvml = tel_nvml_open(&t->nvml_status);
        if (t->bdfs.n)
            t->rsmi = tel_rsmi_open(&t->rsmi_status);
        for (size_t i = 0; t->rsmi && i < t->bdfs.n; i++)
            t->rsmi_dev[i] = tel_rsmi_find(t->rsmi, t->bdfs.v[i]);
    }
    t->nv = xcalloc(tel_nvml_count(t->nvml) + 1, sizeof(*t->nv));
    for (size_t j = 0; j < tel_nvml_count(t->nvml); j++) {
        const char *pci = tel_nvml_pci(t->nvml, j);
        size_t k = 0;
        while (*pci && k < t->bdfs.n && strcasecmp(t->bdfs.v[k], pci))
            k++;
        if (!*pci || k == t->bdfs.n)
            t->nv[t->nn++] = j;
    }
    t->path = xcalloc(t->bdfs.n + t->nn + 1, sizeof(*t->path));
    for (size_t i = 0; i < t->bdfs.n + t->nn; i++)
        t->path[i].at = -1;
    t->t0 = util_mono_s();
    t->last_t = -1;
    return t;
}

const char *tel_nvml_status(const struct tel *t)
{
    return t->nvml_status;
}

const char *tel_rsmi_status(const struct tel *t)
{
    return t->rsmi_status;
}

void tel_close(struct tel *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->bdfs.n; i++)
        free(t->hwmon[i]);
    for (size_t i = 0; i < t->bdfs.n + t->nn; i++)
        free(t->path[i].hops);
    free(t->hwmon);
    free(t->temp_n);
    free(t->temp_n_known);
    free(t->absent);
    free(t->absent_t);
    strlist_release(&t->bdfs);
    tel_nvml_close(t->nvml);
    tel_rsmi_close(t->rsmi);
    free(t->rsmi_dev);
    free(t->path);
    free(t->nv);
    free(t->prev);
    free(t);
}

void tel_gpu_set(struct tel_gpu *g, enum tel_key k, double v, const char *src)
{
    g->v[k] = v;
    g->src[k] = src;
    g->why[k][0] = '\0';
}

void tel_gpu_unknown(struct tel_gpu *g, enum tel_key k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g->src[k] = NULL;
    vsnprintf(g->why[k], sizeof(g->why[k]), fmt, ap);
    va_end(ap);
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
static int read_opt(struct tel *t, size_t i, enum opt_file f, struct tel_gpu *g, enum tel_key k,
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

void tel_set_recheck(struct tel *t, double seconds)
{
    t->recheck_s = seconds;
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
     * own link registers show the on-card switch's internal link instead */
    if (have && p.nstar == 1) {
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

/* the narrowest and the slowest hop up to the root port (pci_path.h picks
 * them as the pcie.link check does), and whether they hold the GPU back */
static void pcie_path(struct tel_path *p, const char *bdf, struct tel_gpu *g, double now)
{
    if (p->at < 0 || now - p->at >= PATH_EVERY_S) {
        long narrow, slow;
        int first = p->at < 0;
        p->at = now;
        if (first)
            p->rc = pci_path_read(bdf, &p->hops, &p->n);
        else if (p->hops)
            pci_path_relink(p->hops, p->n);
        if (p->hops) {
            const struct pci_hop *h = p->hops;
            p->rc = pci_path_pick(h, p->n, &narrow, &slow);
            if (p->rc == 0) {
                p->width = h[narrow].width;
                p->gts = h[slow].speed;
                snprintf(p->hop, sizeof(p->hop), "%s", h[narrow].bdf);
            }
        }
    }
    if (p->rc) {
        const char *why =
            p->rc == -ENOENT ? "no hop on the path has readable link files" : strerror(-p->rc);
        tel_gpu_unknown(g, TEL_PCIE_PATH_WIDTH, "PCIe path: %s", why);
        tel_gpu_unknown(g, TEL_PCIE_PATH_GTS, "PCIe path: %s", why);
        tel_gpu_unknown(g, TEL_PCIE_PATH_LIMITED, "PCIe path: %s", why);
        return;
    }
    snprintf(g->path_hop, sizeof(g->path_hop), "%s", p->hop);
    tel_gpu_set(g, TEL_PCIE_PATH_WIDTH, p->width, "PCIe path");
    tel_gpu_set(g, TEL_PCIE_PATH_GTS, p->gts, "PCIe path");
    if (!g->src[TEL_PCIE_MAX_WIDTH] || !g->src[TEL_PCIE_GTS]) {
        tel_gpu_unknown(g, TEL_PCIE_PATH_LIMITED, "the GPU's own link is unknown");
        return;
    }
    int limited = p->width < g->v[TEL_PCIE_MAX_WIDTH] || p->gts < g->v[TEL_PCIE_GTS] - 1e-9;
    tel_gpu_set(g, TEL_PCIE_PATH_LIMITED, limited, "PCIe path");
}

static const char *find_hwmon(struct tel *t, size_t i, const char *dir)
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

static void hwmon(struct tel *t, size_t i, struct tel_gpu *g, const char *dir)
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
        return rc;
    }
    struct gpu_metrics m;
    char why[128];
    if (gpu_metrics_parse(buf, len, &m, why, sizeof(why))) {
        snprintf(g->throttle_why, sizeof(g->throttle_why), "%s", why);
        free(buf);
        return 0;
    }
    free(buf);
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

static void sample_amd(struct tel *t, size_t i, struct tel_gpu *g, double now)
{
    if (now - t->absent_t[i] >= t->recheck_s) { /* look at the absent files again */
        t->absent[i] = 0;
        t->absent_t[i] = now;
    }
    const char *bdf = t->bdfs.v[i];
    char dir[96];
    snprintf(dir, sizeof(dir), PCI_DEVICES "/%s", bdf);
    snprintf(g->pci, sizeof(g->pci), "%s", bdf);
    snprintf(g->vendor, sizeof(g->vendor), "amd");
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
    if (t->absent[i] & (1u << OPT_METRICS))
        snprintf(g->throttle_why, sizeof(g->throttle_why), "gpu_metrics: %s", strerror(ENOENT));
    else if (metrics(g, dir) == -ENOENT)
        t->absent[i] |= 1u << OPT_METRICS;
    /* what rocm-smi gives wins, the rest stays sysfs' */
    tel_rsmi_sample(t->rsmi, t->rsmi_dev[i], g);
    /* after the GPU's own link, from whichever source */
    pcie_path(&t->path[i], t->bdfs.v[i], g, now);
}

/* ---- processes ------------------------------------------------------- */

static int gpu_index(const struct tel_sample *s, const char *pdev)
{
    for (size_t i = 0; i < s->ngpu; i++)
        if (!strcmp(s->gpus[i].pci, pdev))
            return (int)i;
    return -1;
}

static struct tel_proc *proc_for(struct tel_sample *s, size_t *cap, int pid, int gpu,
                                 const char *comm)
{
    for (size_t i = 0; i < s->nproc; i++)
        if (s->procs[i].pid == pid && s->procs[i].gpu == gpu)
            return &s->procs[i];
    if (s->nproc == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        s->procs = xrealloc(s->procs, *cap * sizeof(*s->procs));
    }
    struct tel_proc *p = &s->procs[s->nproc++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->gpu = gpu;
    p->vram_bytes = -1;
    p->engine_ns = -1;
    p->busy_pct = -1;
    snprintf(p->comm, sizeof(p->comm), "%s", comm);
    return p;
}

static int is_pid(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static void comm_of(int pid, char *buf, size_t n)
{
    char *c;
    if (rootfs_readf_str(&c, "/proc/%d/comm", pid) == 0) {
        snprintf(buf, n, "%s", c);
        free(c);
    } else {
        snprintf(buf, n, "?");
    }
}

struct seen_client {
    char pdev[16];
    uint64_t id;
};

static void scan_fdinfo(struct tel_sample *s, size_t *cap)
{
    struct strlist pids = STRLIST_INIT;
    if (rootfs_list("/proc", &pids))
        return;
    struct seen_client *seen = NULL;
    size_t nseen = 0, seen_cap = 0, npid = 0;
    for (size_t i = 0; i < pids.n && npid < MAX_PIDS; i++) {
        if (!is_pid(pids.v[i]))
            continue;
        npid++;
        int pid = atoi(pids.v[i]);
        char dir[64];
        snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
        struct strlist fds = STRLIST_INIT;
        int rc = rootfs_list(dir, &fds);
        if (rc) {
            if (rc == -EACCES || rc == -EPERM)
                s->procs_unreadable++;
            continue;
        }
        char comm[32] = "";
        for (size_t f = 0; f < fds.n && f < MAX_FDS; f++) {
            char *text;
            if (rootfs_readf_str(&text, "%s/%s", dir, fds.v[f]))
                continue;
            struct tel_fdinfo fi;
            int ok = tel_fdinfo_parse(text, &fi) == 0;
            free(text);
            if (!ok)
                continue;
            /* one DRM client can sit behind several fds (dup, fork): once */
            int dup = 0;
            for (size_t k = 0; fi.has_client_id && k < nseen && !dup; k++)
                dup = seen[k].id == fi.client_id && !strcmp(seen[k].pdev, fi.pdev);
            if (dup)
                continue;
            if (fi.has_client_id) {
                if (nseen == seen_cap) {
                    seen_cap = seen_cap ? seen_cap * 2 : 16;
                    seen = xrealloc(seen, seen_cap * sizeof(*seen));
                }
                snprintf(seen[nseen].pdev, sizeof(seen[nseen].pdev), "%s", fi.pdev);
                seen[nseen++].id = fi.client_id;
            }
            int gpu = gpu_index(s, fi.pdev);
            if (gpu < 0)
                continue;
            if (!comm[0])
                comm_of(pid, comm, sizeof(comm));
            struct tel_proc *p = proc_for(s, cap, pid, gpu, comm);
            p->src = "fdinfo";
            if (fi.vram_bytes >= 0)
                p->vram_bytes = (p->vram_bytes < 0 ? 0 : p->vram_bytes) + fi.vram_bytes;
            if (fi.engine_ns >= 0)
                p->engine_ns = (p->engine_ns < 0 ? 0 : p->engine_ns) + fi.engine_ns;
        }
        strlist_release(&fds);
    }
    free(seen);
    strlist_release(&pids);
}

/* KFD gpu_id -> PCI address, from the topology nodes */
static int kfd_gpu_pci(unsigned gpu_id, char *pci, size_t n)
{
    struct strlist nodes = STRLIST_INIT;
    int found = -1;
    if (rootfs_list(KFD_NODES, &nodes))
        return -1;
    for (size_t i = 0; i < nodes.n && found; i++) {
        uint64_t id, loc = 0, dom = 0;
        char *props;
        if (rootfs_readf_u64(&id, KFD_NODES "/%s/gpu_id", nodes.v[i]) || id != gpu_id)
            continue;
        if (rootfs_readf_str(&props, KFD_NODES "/%s/properties", nodes.v[i]))
            continue;
        const char *l = strstr(props, "location_id ");
        const char *d = strstr(props, "\ndomain ");
        if (l) {
            loc = strtoull(l + 12, NULL, 10);
            if (d)
                dom = strtoull(d + 8, NULL, 10);
            snprintf(pci, n, "%04x:%02x:%02x.%x", (unsigned)dom, (unsigned)(loc >> 8) & 0xff,
                     (unsigned)(loc >> 3) & 0x1f, (unsigned)loc & 7);
            found = 0;
        }
        free(props);
    }
    strlist_release(&nodes);
    return found;
}

static void scan_kfd(struct tel_sample *s, size_t *cap)
{
    struct strlist pids = STRLIST_INIT;
    if (rootfs_list(KFD_PROC, &pids))
        return;
    for (size_t i = 0; i < pids.n && i < MAX_PIDS; i++) {
        if (!is_pid(pids.v[i]))
            continue;
        int pid = atoi(pids.v[i]);
        struct strlist files = STRLIST_INIT;
        char dir[80];
        snprintf(dir, sizeof(dir), KFD_PROC "/%d", pid);
        if (rootfs_list(dir, &files))
            continue;
        char comm[32] = "";
        for (size_t f = 0; f < files.n; f++) {
            unsigned gpu_id;
            char tail;
            uint64_t bytes;
            char pci[16];
            if (sscanf(files.v[f], "vram_%u%c", &gpu_id, &tail) != 1)
                continue;
            if (rootfs_readf_u64(&bytes, "%s/%s", dir, files.v[f]))
                continue;
            if (kfd_gpu_pci(gpu_id, pci, sizeof(pci)))
                continue;
            int gpu = gpu_index(s, pci);
            if (gpu < 0)
                continue;
            if (!comm[0])
                comm_of(pid, comm, sizeof(comm));
            struct tel_proc *p = proc_for(s, cap, pid, gpu, comm);
            /* compute allocations (KFD) are not in fdinfo's drm-memory-vram */
            if (!p->src) {
                p->src = "kfd";
                p->vram_bytes = (int64_t)bytes;
            } else {
                p->src = "fdinfo+kfd";
                if ((int64_t)bytes > p->vram_bytes)
                    p->vram_bytes = (int64_t)bytes;
            }
        }
        strlist_release(&files);
    }
    strlist_release(&pids);
}

/* NVIDIA GPUs' processes through NVML; a failing call leaves the GPU's
 * list unknown (procs_why), not empty */
static void scan_nvml(struct tel *t, struct tel_sample *s, size_t *cap)
{
    for (size_t i = 0; i < t->nn; i++) {
        char key[24];
        tel_nvml_key(t->nvml, t->nv[i], key, sizeof(key));
        int gi = gpu_index(s, key);
        if (gi < 0)
            continue;
        struct tel_gpu *g = &s->gpus[gi];
        struct tel_nvml_proc *np;
        size_t n;
        if (tel_nvml_procs(t->nvml, t->nv[i], &np, &n, g->procs_why, sizeof(g->procs_why)))
            continue;
        for (size_t k = 0; k < n; k++) {
            char comm[32];
            comm_of((int)np[k].pid, comm, sizeof(comm));
            struct tel_proc *p = proc_for(s, cap, (int)np[k].pid, gi, comm);
            p->src = np[k].src;
            p->vram_bytes = np[k].vram_bytes;
            p->busy_pct = np[k].busy_pct;
        }
        free(np);
    }
}

static void busy_from_prev(struct tel *t, struct tel_sample *s)
{
    double dt = t->last_t >= 0 ? s->t_s - t->last_t : -1;
    for (size_t i = 0; i < s->nproc; i++) {
        struct tel_proc *p = &s->procs[i];
        if (p->engine_ns < 0 || dt <= 0)
            continue;
        for (size_t k = 0; k < t->nprev; k++)
            if (t->prev[k].pid == p->pid && !strcmp(t->prev[k].pdev, s->gpus[p->gpu].pci) &&
                p->engine_ns >= t->prev[k].ns) {
                double pct = (double)(p->engine_ns - t->prev[k].ns) / (dt * 1e9) * 100.0;
                p->busy_pct = pct > 100 ? 100 : pct;
            }
    }
    free(t->prev);
    t->prev = xcalloc(s->nproc + 1, sizeof(*t->prev));
    t->nprev = 0;
    for (size_t i = 0; i < s->nproc; i++)
        if (s->procs[i].engine_ns >= 0) {
            struct prev_engine *pe = &t->prev[t->nprev++];
            pe->pid = s->procs[i].pid;
            pe->ns = s->procs[i].engine_ns;
            snprintf(pe->pdev, sizeof(pe->pdev), "%s", s->gpus[s->procs[i].gpu].pci);
        }
    t->last_t = s->t_s;
}

void tel_sample(struct tel *t, struct tel_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->t_s = util_mono_s() - t->t0;
    s->wall_s = now_real();
    size_t nb = t->bdfs.n;
    s->ngpu = nb + t->nn;
    s->gpus = xcalloc(s->ngpu + 1, sizeof(*s->gpus));
    for (size_t i = 0; i < nb; i++)
        sample_amd(t, i, &s->gpus[i], s->t_s);
    for (size_t i = 0; i < t->nn; i++) {
        tel_nvml_sample(t->nvml, t->nv[i], &s->gpus[nb + i]);
        /* the same walk as an AMD GPU's, after NVML gave the GPU's own link */
        const char *pci = tel_nvml_pci(t->nvml, t->nv[i]);
        if (*pci)
            pcie_path(&t->path[nb + i], pci, &s->gpus[nb + i], s->t_s);
    }
    if (t->procs && s->ngpu) {
        size_t cap = 0;
        if (t->bdfs.n) {
            scan_fdinfo(s, &cap);
            scan_kfd(s, &cap);
        }
        scan_nvml(t, s, &cap);
        busy_from_prev(t, s);
    }
}

int tel_sample_procs(struct tel *t, struct tel_sample *s)
{
    memset(s, 0, sizeof(*s));
    size_t nn = t->nn;
    int rc = 0;
    if (t->bdfs.n) {
        struct strlist probe = STRLIST_INIT;
        rc = rootfs_list("/proc", &probe);
        strlist_release(&probe);
        if (rc && !nn)
            return rc;
    }
    s->ngpu = t->bdfs.n + nn;
    s->gpus = xcalloc(s->ngpu + 1, sizeof(*s->gpus));
    for (size_t i = 0; i < t->bdfs.n; i++)
        snprintf(s->gpus[i].pci, sizeof(s->gpus[i].pci), "%s", t->bdfs.v[i]);
    for (size_t i = 0; i < nn; i++) {
        tel_nvml_key(t->nvml, t->nv[i], s->gpus[t->bdfs.n + i].pci, sizeof(s->gpus[0].pci));
        snprintf(s->gpus[t->bdfs.n + i].vendor, sizeof(s->gpus[0].vendor), "nvidia");
    }
    size_t cap = 0;
    if (t->bdfs.n && !rc) {
        scan_fdinfo(s, &cap);
        scan_kfd(s, &cap);
    }
    scan_nvml(t, s, &cap);
    return 0;
}

int tel_list_procs(const struct strlist *bdfs, struct tel_sample *s)
{
    memset(s, 0, sizeof(*s));
    struct strlist probe = STRLIST_INIT;
    int rc = rootfs_list("/proc", &probe);
    strlist_release(&probe);
    if (rc)
        return rc;
    s->ngpu = bdfs->n;
    s->gpus = xcalloc(s->ngpu + 1, sizeof(*s->gpus));
    for (size_t i = 0; i < bdfs->n; i++)
        snprintf(s->gpus[i].pci, sizeof(s->gpus[i].pci), "%s", bdfs->v[i]);
    size_t cap = 0;
    scan_fdinfo(s, &cap);
    scan_kfd(s, &cap);
    return 0;
}

void tel_proc_describe(const struct tel_sample *s, int gpu, struct strbuf *out)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nproc; i++) {
        const struct tel_proc *p = &s->procs[i];
        if (p->gpu != gpu)
            continue;
        strbuf_adds(out, n++ ? ", " : "used by ");
        strbuf_addf(out, "%s (pid %d", p->comm, p->pid);
        if (p->vram_bytes >= 0)
            strbuf_addf(out, ", %.1f GiB VRAM", (double)p->vram_bytes / (1024.0 * 1024 * 1024));
        if (p->busy_pct >= 0)
            strbuf_addf(out, ", %.0f%% busy", p->busy_pct);
        strbuf_addf(out, ", %s)", p->src ? p->src : "?");
    }
    if (!n && gpu >= 0 && (size_t)gpu < s->ngpu && s->gpus[gpu].procs_why[0]) {
        strbuf_addf(out, "users: ? (%s)", s->gpus[gpu].procs_why);
    } else if (!n) {
        strbuf_adds(out, "no process found that has it open");
        if (s->procs_unreadable)
            strbuf_addf(out, " (%d processes not readable: other users' need root)",
                        s->procs_unreadable);
    }
}

void tel_sample_release(struct tel_sample *s)
{
    free(s->gpus);
    free(s->procs);
    memset(s, 0, sizeof(*s));
}

const char *tel_gpu_key(struct tel *t, const char *pci, char *buf, size_t n)
{
    if (!t || !pci || !*pci)
        return NULL;
    for (size_t i = 0; i < t->bdfs.n; i++)
        if (!strcasecmp(t->bdfs.v[i], pci)) {
            snprintf(buf, n, "%s", t->bdfs.v[i]);
            return buf;
        }
    int i = t->nvml ? tel_nvml_find(t->nvml, pci) : -1;
    if (i < 0)
        return NULL;
    tel_nvml_key(t->nvml, (size_t)i, buf, n);
    return buf;
}
