/* tui_model.c - the dashboard's data: checks and telemetry as facts (see
 * tui_model.h). */
#include "tui_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "../../probes/gpu_pci.h"
#include "../../probes/probe.h"
#include "../core/rootfs.h"
#include "../snapshot/snapshot.h"
#include "tui_layout.h"

/* checks.yaml as built into the binary (embed.S) */

int tui_dpm_current(const char *text, char *buf, size_t n)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
            len--;
        if (len && p[len - 1] == '*') {
            len--;
            while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
                len--;
            while (len && (*p == ' ' || *p == '\t'))
                p++, len--;
            snprintf(buf, n, "%.*s", (int)len, p);
            return 0;
        }
        p = nl ? nl + 1 : NULL;
    }
    return -ENOENT;
}

int tui_dpm_mhz(const char *level, unsigned *mhz)
{
    unsigned lvl, v;
    char unit[4];
    /* amdgpu_pm.c prints "%d: %uMhz" (older: "%uMHz") */
    if (sscanf(level, "%u: %u%3[MmHhZz]", &lvl, &v, unit) != 3 || strcasecmp(unit, "mhz") != 0)
        return -EINVAL;
    *mhz = v;
    return 0;
}

static void local_time(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, n, "%H:%M:%S", &tm);
}

int tui_model_open(struct tui_model *m, const char *sysroot, const char *checks,
                   const struct probe_opts *popts)
{
    memset(m, 0, sizeof(*m));
    m->sysroot = sysroot;
    m->popts = popts;
    if (sysroot_open(sysroot, &m->unpacked))
        return -1;
    int rc = checks_load_default(&m->cs, checks);
    if (rc) {
        tui_model_close(m);
        return -1;
    }
    m->have_cs = 1;
    return 0;
}

void tui_model_close(struct tui_model *m)
{
    if (m->have_res)
        results_release(&m->res);
    factset_release(&m->check_facts);
    factset_release(&m->tele);
    if (m->have_cs)
        checks_release(&m->cs);
    sysroot_close(m->unpacked);
    memset(m, 0, sizeof(*m));
}

void tui_model_run_checks(struct tui_model *m)
{
    double t0 = util_mono_s();
    if (m->have_res)
        results_release(&m->res);
    m->have_res = 0;
    factset_release(&m->check_facts);
    static const struct probe_opts none = {0};
    struct probe_ctx pctx = {&m->check_facts, LEVEL_QUICK, m->popts ? m->popts : &none, 0};
    probes_set_checks(&m->cs);
    probes_run_all(&pctx);
    struct run_filter flt = {LEVEL_QUICK, NULL};
    if (checks_run(&m->cs, &m->check_facts, &flt, &m->res) == 0)
        m->have_res = 1;
    m->checks_s = util_mono_s() - t0;
    local_time(m->checks_time, sizeof(m->checks_time));
}

static const struct probe *probe_named(const char *name)
{
    for (size_t i = 0; i < probe_count; i++)
        if (strcmp(probe_table[i].name, name) == 0)
            return &probe_table[i];
    return NULL;
}

/* a pp_dpm_* file's current level as MHz (clk) or text (pcie) */
static void dpm_fact(struct factset *fs, int gpu, const char *bdf, const char *file,
                     const char *fact, int as_mhz)
{
    char fn[FACT_NAME_MAX], src[128], level[96], *text;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/%s", bdf, file);
    fact_gpu_name(fn, gpu, fact);
    int rc = rootfs_read_str(src, &text);
    if (rc) {
        fact_set_errno(fs, fn, src, rc);
        return;
    }
    unsigned mhz;
    if (tui_dpm_current(text, level, sizeof(level)))
        fact_set_unknown(fs, fn, src, "no level marked '*' (current) in %s", src);
    else if (!as_mhz)
        fact_set_str(fs, fn, level, src);
    else if (tui_dpm_mhz(level, &mhz) == 0)
        fact_set_int(fs, fn, mhz, src);
    else
        fact_set_unknown(fs, fn, src, "cannot parse '%s' in %s", level, src);
    free(text);
}

static void live_facts(struct factset *fs, int gpu, const char *bdf)
{
    char fn[FACT_NAME_MAX], src[128];
    uint64_t used;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/mem_info_vram_used", bdf);
    int rc = rootfs_readf_u64(&used, "%s", src);
    if (rc == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "vram_used_bytes"), (int64_t)used, src);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "vram_used_bytes"), src, rc);
    dpm_fact(fs, gpu, bdf, "pp_dpm_sclk", "sclk_mhz", 1);
    dpm_fact(fs, gpu, bdf, "pp_dpm_mclk", "mclk_mhz", 1);
    dpm_fact(fs, gpu, bdf, "pp_dpm_pcie", "pcie_dpm", 0);
}

void tui_model_refresh_telemetry(struct tui_model *m)
{
    struct factset fs = FACTSET_INIT;
    static const struct probe_opts none = {0};
    struct probe_ctx pctx = {&fs, LEVEL_QUICK, &none, 0};
    /* the same probes the checks read, so panel and verdict agree */
    const char *const names[] = {"gpu", "pcie"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        const struct probe *p = probe_named(names[i]);
        if (p && !p->needs_gpu)
            p->run(&pctx);
    }
    const struct fact *count = fact_get(&fs, "gpu.count");
    for (int g = 0; count && count->type == FACT_INT && g < (int)count->i; g++) {
        char buf[FACT_NAME_MAX];
        const char *bdf = probe_gpu_pci(&fs, g, buf);
        if (bdf)
            live_facts(&fs, g, bdf);
    }
    factset_release(&m->tele);
    m->tele = fs;
    local_time(m->tele_time, sizeof(m->tele_time));
}

int tui_model_gpu_count(const struct tui_model *m)
{
    const struct fact *f = fact_get(&m->tele, "gpu.count");
    if (!f || f->type != FACT_INT || f->i < 0)
        return 0;
    return f->i > TUI_MAX_GPUS ? TUI_MAX_GPUS : (int)f->i;
}
