/* probe_gpu_drm.c - per-GPU facts from the amdgpu DRM sysfs files in the PCI
 * device directory (the same directory as /sys/class/drm/cardN/device):
 * DRM nodes, VRAM and BAR size, performance level, load, thermal sensors,
 * power and the VBIOS version (RAS: probe_gpu_ras.c). Formats: the kernel's
 * amdgpu_pm.c / amdgpu_ras.c; rocm_smi_lib reads the same files. */
#include "gpu_pci.h"
#include "kfd_sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- DRM nodes ----------------------------------------------------------- */

static void drm_node_facts(struct factset *fs, int gpu, const char *bdf, const char *kfd_props,
                           int kfd_node)
{
    char fn[FACT_NAME_MAX], dir[96], src[96];
    struct strlist ents = STRLIST_INIT;
    snprintf(dir, sizeof(dir), GP_PCI_DEVICES "/%s/drm", bdf);
    int rc = rootfs_list(dir, &ents);
    const char *card = NULL;
    int render = -1;
    for (size_t i = 0; rc == 0 && i < ents.n; i++) {
        unsigned n;
        char tail;
        if (!card && sscanf(ents.v[i], "card%u%c", &n, &tail) == 1)
            card = ents.v[i];
        if (render < 0 && sscanf(ents.v[i], "renderD%u%c", &n, &tail) == 1)
            render = (int)n;
    }
    if (card)
        fact_set_str(fs, fact_gpu_name(fn, gpu, "drm_card"), card, dir);
    else if (rc)
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "drm_card"), dir, rc);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "drm_card"), dir, "no card* entry in %s", dir);

    uint64_t minor;
    snprintf(src, sizeof(src), GP_KFD_NODES "/%d/properties", kfd_node);
    if (kfd_props && gp_kv_get(kfd_props, "drm_render_minor", &minor) == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "render_minor"), (int64_t)minor, src);
    else if (render >= 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "render_minor"), render, dir);
    else if (rc)
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "render_minor"), dir, rc);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "render_minor"), dir,
                         "no drm_render_minor in KFD and no renderD* entry");
    strlist_release(&ents);
}

/* ---- memory ----------------------------------------------------------- */

/* sum of the node's VRAM banks (heap_type public / private framebuffer) */
static int kfd_vram_sum(int node, uint64_t *sum)
{
    char dir[96];
    struct strlist banks = STRLIST_INIT;
    snprintf(dir, sizeof(dir), GP_KFD_NODES "/%d/mem_banks", node);
    int rc = rootfs_list(dir, &banks);
    if (rc)
        return rc;
    int found = 0;
    *sum = 0;
    for (size_t i = 0; i < banks.n; i++) {
        char *props;
        uint64_t heap, size;
        if (rootfs_readf_str(&props, "%s/%s/properties", dir, banks.v[i]))
            continue;
        if (gp_kv_get(props, "heap_type", &heap) == 0 &&
            (heap == HSA_MEM_HEAP_TYPE_FB_PUBLIC || heap == HSA_MEM_HEAP_TYPE_FB_PRIVATE) &&
            gp_kv_get(props, "size_in_bytes", &size) == 0) {
            *sum += size;
            found = 1;
        }
        free(props);
    }
    strlist_release(&banks);
    return found ? 0 : -ENOENT;
}

static void memory_facts(struct factset *fs, int gpu, const char *bdf, int kfd_node)
{
    char fn[FACT_NAME_MAX], src[128], bsrc[96];
    uint64_t total, vis, banks = 0;
    int brc = kfd_node >= 0 ? kfd_vram_sum(kfd_node, &banks) : -ENOENT;
    snprintf(bsrc, sizeof(bsrc), GP_KFD_NODES "/%d/mem_banks", kfd_node);
    if (brc == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "vram_kfd_bytes"), (int64_t)banks, bsrc);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "vram_kfd_bytes"), bsrc, brc);

    /* mem_info_vram_total is what amdgpu manages; the KFD banks agree on a
     * healthy system and local_mem_size alone can read 0 (real gfx1100) */
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/mem_info_vram_total", bdf);
    int rc = rootfs_readf_u64(&total, "%s", src);
    if (rc == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "vram_bytes"), (int64_t)total, src);
    else if (brc == 0 && banks > 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "vram_bytes"), (int64_t)banks, bsrc);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "vram_bytes"), src, rc);

    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/mem_info_vis_vram_total", bdf);
    if ((rc = rootfs_readf_u64(&vis, "%s", src)) == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "vis_vram_bytes"), (int64_t)vis, src);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "vis_vram_bytes"), src, rc);
}

/* ---- thermal and power (hwmon) ------------------------------------------ */

/* amdgpu's hwmon sensors: edge (temp1), junction/hotspot (temp2) and memory
 * (temp3), each with its own limit. The limit is temp*_crit (the driver's
 * critical temperature for that sensor) or, without it, temp*_emergency.
 * Each sensor is judged against its own limit in checks.yaml (gpu.thermal);
 * a sensor that cannot be read is unknown, never 0. */
enum { T_EDGE, T_JUNCTION, T_MEM, T_N };
static const char *const t_label[T_N] = {"edge", "junction", "mem"};
static const char *const t_fact[T_N] = {"temp_edge_c", "temp_junction_c", "temp_mem_c"};
static const char *const t_limit_fact[T_N] = {"temp_edge_limit_c", "temp_junction_limit_c",
                                              "temp_mem_limit_c"};

struct temps {
    int have[T_N], have_limit[T_N];
    double c[T_N], limit[T_N];
    char src[T_N][256], limit_src[T_N][256];
};

static void hwmon_temps(const char *hw, struct temps *t)
{
    struct strlist ents = STRLIST_INIT;
    if (rootfs_list(hw, &ents))
        return;
    for (size_t i = 0; i < ents.n; i++) {
        unsigned idx;
        char rest[16];
        if (sscanf(ents.v[i], "temp%u_%15s", &idx, rest) != 2 || strcmp(rest, "input") != 0)
            continue;
        char *label = NULL;
        int slot = -1;
        if (rootfs_readf_str(&label, "%s/temp%u_label", hw, idx) == 0) {
            for (int s = 0; s < T_N; s++)
                if (strcmp(label, t_label[s]) == 0)
                    slot = s;
            free(label);
        } else if (idx >= 1 && idx <= T_N) {
            slot = (int)idx - 1; /* amdgpu's fixed order when unlabelled */
        }
        int64_t milli, lim;
        if (slot < 0 || t->have[slot] || rootfs_readf_i64(&milli, "%s/temp%u_input", hw, idx))
            continue;
        t->have[slot] = 1;
        t->c[slot] = (double)milli / 1000.0;
        snprintf(t->src[slot], sizeof(t->src[slot]), "%s/temp%u_input", hw, idx);
        static const char *const limit_files[] = {"crit", "emergency"};
        for (size_t f = 0; f < ARRAY_SIZE(limit_files) && !t->have_limit[slot]; f++) {
            if (rootfs_readf_i64(&lim, "%s/temp%u_%s", hw, idx, limit_files[f]) == 0 && lim > 0) {
                t->have_limit[slot] = 1;
                t->limit[slot] = (double)lim / 1000.0;
                snprintf(t->limit_src[slot], sizeof(t->limit_src[slot]), "%s/temp%u_%s", hw, idx,
                         limit_files[f]);
            }
        }
    }
    strlist_release(&ents);
}

static void hwmon_facts(struct factset *fs, int gpu, const char *bdf)
{
    char fn[FACT_NAME_MAX], dir[96], hw[160];
    struct strlist ents = STRLIST_INIT;
    struct temps t;
    memset(&t, 0, sizeof(t));
    snprintf(dir, sizeof(dir), GP_PCI_DEVICES "/%s/hwmon", bdf);
    int rc = rootfs_list(dir, &ents);

    int power_rc = rc ? rc : -ENOENT;
    double watts = 0;
    char psrc[192];
    snprintf(psrc, sizeof(psrc), "%s", dir);
    for (size_t i = 0; rc == 0 && i < ents.n; i++) {
        snprintf(hw, sizeof(hw), "%s/%s", dir, ents.v[i]);
        hwmon_temps(hw, &t);
        int64_t uw;
        if (power_rc == 0)
            continue;
        const char *const pf[] = {"power1_average", "power1_input"};
        for (size_t p = 0; p < ARRAY_SIZE(pf) && power_rc; p++) {
            snprintf(psrc, sizeof(psrc), "%s/%s", hw, pf[p]);
            if ((power_rc = rootfs_readf_i64(&uw, "%s", psrc)) == 0)
                watts = (double)uw / 1e6;
        }
    }
    if (power_rc == 0)
        fact_set_float(fs, fact_gpu_name(fn, gpu, "power_w"), watts, psrc);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "power_w"), rc ? dir : psrc, power_rc);

    /* every sensor read, with its limit, for summaries: "junction 61 °C
     * (limit 110 °C)" */
    struct strlist sensors = STRLIST_INIT;
    for (int s = 0; s < T_N; s++) {
        if (t.have[s]) {
            fact_set_float(fs, fact_gpu_name(fn, gpu, t_fact[s]), t.c[s], t.src[s]);
            if (t.have_limit[s])
                strlist_add_owned(&sensors, xasprintf("%s %.0f °C (limit %.0f °C)", t_label[s],
                                                      t.c[s], t.limit[s]));
            else
                strlist_add_owned(&sensors, xasprintf("%s %.0f °C", t_label[s], t.c[s]));
        } else if (rc) {
            fact_set_errno(fs, fact_gpu_name(fn, gpu, t_fact[s]), dir, rc);
        } else {
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, t_fact[s]), dir,
                             "no readable '%s' temperature sensor", t_label[s]);
        }
        if (t.have_limit[s])
            fact_set_float(fs, fact_gpu_name(fn, gpu, t_limit_fact[s]), t.limit[s], t.limit_src[s]);
        else
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, t_limit_fact[s]), dir,
                             t.have[s] ? "no temp*_crit or temp*_emergency for the '%s' sensor"
                                       : "no readable '%s' temperature sensor",
                             t_label[s]);
    }
    fact_set_list(fs, fact_gpu_name(fn, gpu, "temp_sensors"), &sensors, dir);
    strlist_release(&sensors);
    strlist_release(&ents);
}

/* The board's power limits (amdgpu_pm.c, hwmon power1_cap*, microwatts):
 * the cap in force, the board's default and the most the board allows. A
 * cap below the default lowers sustained clocks; amdgpu exposes no cap on
 * APUs, and none of these is ever taken as 0. */
static void power_cap_facts(struct factset *fs, int gpu, const char *bdf)
{
    static const char *const file[] = {"power1_cap", "power1_cap_default", "power1_cap_max"};
    static const char *const fact[] = {"power_cap_w", "power_cap_default_w", "power_cap_max_w"};
    char fn[FACT_NAME_MAX], dir[96], src[192];
    struct strlist ents = STRLIST_INIT;
    snprintf(dir, sizeof(dir), GP_PCI_DEVICES "/%s/hwmon", bdf);
    int rc = rootfs_list(dir, &ents);
    /* the hwmon directory that has a cap (amdgpu registers one) */
    const char *hw = NULL;
    for (size_t i = 0; rc == 0 && !hw && i < ents.n; i++)
        if (rootfs_readf_i64(&(int64_t){0}, "%s/%s/power1_cap", dir, ents.v[i]) == 0)
            hw = ents.v[i];
    for (size_t f = 0; f < ARRAY_SIZE(file); f++) {
        int64_t uw;
        int frc = rc ? rc : -ENOENT;
        if (hw) {
            snprintf(src, sizeof(src), "%s/%s/%s", dir, hw, file[f]);
            frc = rootfs_readf_i64(&uw, "%s", src);
        } else {
            snprintf(src, sizeof(src), "%s/*/%s", dir, file[f]);
        }
        if (frc == 0 && uw > 0)
            fact_set_float(fs, fact_gpu_name(fn, gpu, fact[f]), (double)uw / 1e6, src);
        else if (frc == 0)
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, fact[f]), src, "%s reads %lld", file[f],
                             (long long)uw);
        else
            fact_set_errno(fs, fact_gpu_name(fn, gpu, fact[f]), src, frc);
    }
    strlist_release(&ents);
}

int gp_power_profile_parse(const char *text, char *name, size_t n)
{
    /* every generation marks the active profile with '*' before the colon:
     * "  1 3D_FULL_SCREEN *:" (Polaris), " 0 BOOTUP_DEFAULT*:" (Vega, Navi) */
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *star = memchr(line, '*', len), *colon = memchr(line, ':', len);
        if (star && colon && star < colon) {
            /* "  1 3D_FULL_SCREEN": the index, then the name */
            const char *p = line;
            while (p < star && *p == ' ')
                p++;
            while (p < star && *p >= '0' && *p <= '9')
                p++;
            while (p < star && *p == ' ')
                p++;
            const char *e = star;
            while (e > p && e[-1] == ' ')
                e--;
            if (e == p || (size_t)(e - p) >= n)
                return -EINVAL;
            snprintf(name, n, "%.*s", (int)(e - p), p);
            return 0;
        }
        line = eol ? eol + 1 : NULL;
    }
    return -ENOENT;
}

static void power_profile_fact(struct factset *fs, int gpu, const char *bdf)
{
    char fn[FACT_NAME_MAX], src[128], name[64], *text;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/pp_power_profile_mode", bdf);
    int rc = rootfs_read_str(src, &text);
    if (rc) {
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "power_profile"), src, rc);
        return;
    }
    if (gp_power_profile_parse(text, name, sizeof(name)) == 0)
        fact_set_str(fs, fact_gpu_name(fn, gpu, "power_profile"), name, src);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "power_profile"), src,
                         "no profile is marked active ('*')");
    free(text);
}

/* ---- simple files ------------------------------------------------------ */

static void text_fact(struct factset *fs, int gpu, const char *bdf, const char *file,
                      const char *fact)
{
    char fn[FACT_NAME_MAX], src[128], *s;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/%s", bdf, file);
    int rc = rootfs_read_str(src, &s);
    if (rc == 0) {
        fact_set_str(fs, fact_gpu_name(fn, gpu, fact), s, src);
        free(s);
    } else {
        fact_set_errno(fs, fact_gpu_name(fn, gpu, fact), src, rc);
    }
}

void gp_drm_facts(struct factset *fs, int gpu, const char *bdf, int kfd_node, const char *kfd_props)
{
    char fn[FACT_NAME_MAX], src[128];
    drm_node_facts(fs, gpu, bdf, kfd_props, kfd_node);
    memory_facts(fs, gpu, bdf, kfd_node);
    text_fact(fs, gpu, bdf, "power_dpm_force_performance_level", "perf_level");
    text_fact(fs, gpu, bdf, "vbios_version", "vbios");
    /* the board's serial from its FRU EEPROM (amdgpu_fru_eeprom.c,
     * attribute serial_number; Instinct boards and some others): fleet
     * flags two reports of one GPU (issue 34) */
    text_fact(fs, gpu, bdf, "serial_number", "serial");
    gp_fw_facts(fs, gpu, bdf);

    int64_t busy;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/gpu_busy_percent", bdf);
    int rc = rootfs_readf_i64(&busy, "%s", src);
    if (rc == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "busy_percent"), busy, src);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "busy_percent"), src, rc);

    hwmon_facts(fs, gpu, bdf);
    power_cap_facts(fs, gpu, bdf);
    power_profile_fact(fs, gpu, bdf);
    gp_ras_facts(fs, gpu, bdf);
    gp_partition_facts(fs, gpu, bdf);
}
