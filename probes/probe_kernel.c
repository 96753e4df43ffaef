/* probe_kernel.c - kernel command line, CONFIG_HSA_AMD_SVM and CONFIG_DRM_AMDGPU, and the amdgpu
 * module parameters in force that differ from the driver's defaults. */
#include "probe.h"
#include "../src/core/strset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int probe_kernel_run(struct probe_ctx *ctx);

/* ---- kernel config: CONFIG_HSA_AMD_SVM, CONFIG_DRM_AMDGPU
 * ------------------------------------------------ */

/* gunzip a whole buffer (the /proc/config.gz bytes read through rootfs) */
static int gunzip(const char *in, size_t in_len, struct strbuf *out)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) /* 16: expect a gzip header */
        return -ENOMEM;
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)in_len;
    char chunk[16384];
    int zrc;
    do {
        zs.next_out = (Bytef *)chunk;
        zs.avail_out = sizeof(chunk);
        zrc = inflate(&zs, Z_NO_FLUSH);
        if (zrc != Z_OK && zrc != Z_STREAM_END)
            break;
        strbuf_add(out, chunk, sizeof(chunk) - zs.avail_out);
        if (out->len > ROOTFS_MAX_FILE) {
            zrc = Z_MEM_ERROR;
            break;
        }
    } while (zrc != Z_STREAM_END && (zs.avail_in > 0 || zs.avail_out == 0));
    inflateEnd(&zs);
    if (zrc != Z_STREAM_END)
        return -EILSEQ;
    strbuf_add(out, "", 0); /* NUL-terminate even when empty */
    return 0;
}

/* "y", "m" or "n" from a kernel config text */
static const char *config_value(const char *cfg, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *l = cfg; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, opt, n) == 0 && l[n] == '=') {
            if (l[n + 1] == 'y')
                return "y";
            if (l[n + 1] == 'm')
                return "m";
            return "n";
        }
    }
    return "n"; /* "# CONFIG_X is not set" or no line at all */
}

/* the config options read from the running kernel's config */
static const struct {
    const char *fact, *option;
} config_facts[] = {
    {"kernel.svm_config", "CONFIG_HSA_AMD_SVM"},
    {"kernel.drm_amdgpu_config", "CONFIG_DRM_AMDGPU"},
};

static void set_config_facts(struct factset *fs, const char *cfg, const char *src)
{
    for (size_t i = 0; i < ARRAY_SIZE(config_facts); i++)
        fact_set_str(fs, config_facts[i].fact, config_value(cfg, config_facts[i].option), src);
}

static void kernel_config(struct factset *fs)
{
    const struct fact *rel = fact_get(fs, "kernel.release");
    char *boot = NULL, *text = NULL;
    size_t len;
    int rc_boot = -ENOENT, rc_gz;
    if (rel && rel->type == FACT_STR) {
        boot = xasprintf("/boot/config-%s", rel->s);
        rc_boot = rootfs_read_str(boot, &text);
        if (rc_boot == 0) {
            set_config_facts(fs, text, boot);
            free(text);
            free(boot);
            return;
        }
    }
    rc_gz = rootfs_read("/proc/config.gz", &text, &len);
    if (rc_gz == 0) {
        struct strbuf sb = STRBUF_INIT;
        rc_gz = gunzip(text, len, &sb);
        free(text);
        if (rc_gz == 0)
            set_config_facts(fs, sb.buf, "/proc/config.gz");
        strbuf_release(&sb);
        if (rc_gz == 0) {
            free(boot);
            return;
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(config_facts); i++)
        fact_set_unknown(fs, config_facts[i].fact, "/boot/config-<release>, /proc/config.gz",
                         "no readable kernel config (%s: %s; /proc/config.gz: %s)",
                         boot ? boot : "/boot/config-?", strerror(-rc_boot), strerror(-rc_gz));
    free(boot);
}

/* ---- amdgpu parameters --------------------------------------------------- */

/* Defaults from the kernel's amdgpu_drv.c (module_param variables and their
 * MODULE_PARM_DESC). A few changed over time: `legacy` lists values that were
 * the default in older drivers, accepted unless the driver code base is known
 * to be at least `strict_since` (major*1000+minor; DKMS versions name their
 * code base, e.g. 6.8.5). Parameters not listed here are never reported. */
static const struct param_default {
    const char *name, *def, *legacy;
    int strict_since;
} param_defaults[] = {
    {"vm_update_mode", "-1", NULL, 0},
    {"vm_fragment_size", "-1", NULL, 0},
    {"vm_size", "-1", NULL, 0},
    {"vm_block_size", "-1", NULL, 0},
    {"vm_fault_stop", "0", NULL, 0},
    {"noretry", "-1", "0", 6000},              /* -1 (auto) since 5.x; 0 in older kernels */
    {"mcbp", "-1", "0", 6006},                 /* -1 (auto) since about 6.5; 0 before */
    {"sched_policy", "0", NULL, 0},            /* KFD_SCHED_POLICY_HWS */
    {"hws_max_conc_proc", "-1", "8", 1000000}, /* 8 in older drivers */
    {"cwsr_enable", "1", NULL, 0},
    {"gpu_recovery", "-1", NULL, 0},
    {"runpm", "-1", NULL, 0},
    {"aspm", "-1", NULL, 0},
    {"dpm", "-1", NULL, 0},
    {"audio", "-1", NULL, 0},
    {"msi", "-1", NULL, 0},
    {"gttsize", "-1", NULL, 0},
    {"moverate", "-1", NULL, 0},
    {"vramlimit", "-1", "0", 1000000}, /* UINT_MAX (an int param: -1) now; 0 before */
    {"vis_vramlimit", "0", NULL, 0},
    {"exp_hw_support", "0", NULL, 0},
    {"dc", "-1", NULL, 0},
    {"sched_jobs", "32", NULL, 0},
    {"sched_hw_submission", "2", NULL, 0},
    {"pcie_gen_cap", "0", NULL, 0},
    {"pcie_lane_cap", "0", NULL, 0},
    {"ras_enable", "-1", NULL, 0},
    {"reset_method", "-1", NULL, 0},
    {"compute_multipipe", "-1", NULL, 0},
    {"lbpw", "-1", NULL, 0},
};

/* code base of the loaded driver: the DKMS version, else the kernel's */
static int driver_code_version(const struct factset *fs)
{
    const struct fact *dk = fact_get(fs, "driver.dkms");
    const struct fact *dv = fact_get(fs, "driver.version");
    unsigned maj, min;
    if (dk && dk->type == FACT_BOOL && dk->b) {
        if (dv && dv->type == FACT_STR && sscanf(dv->s, "%u.%u", &maj, &min) == 2)
            return (int)(maj * 1000 + min);
        return -1;
    }
    const struct fact *kv = fact_get(fs, "kernel.version_code");
    return kv && kv->type == FACT_INT ? (int)kv->i : -1;
}

static int is_default(const struct param_default *p, const char *v, int code)
{
    if (strcmp(v, p->def) == 0)
        return 1;
    if (!p->legacy || (code >= 0 && code >= p->strict_since))
        return 0;
    return strcmp(v, p->legacy) == 0;
}

static void amdgpu_params(struct factset *fs)
{
    const char *dir = "/sys/module/amdgpu/parameters";
    const struct fact *mp = fact_get(fs, "driver.module_present");
    if (!mp || mp->type != FACT_BOOL || !mp->b) {
        fact_set_unknown(fs, "kernel.amdgpu_params_nondefault", dir, "amdgpu not loaded");
        return;
    }
    struct strlist names = STRLIST_INIT, out = STRLIST_INIT;
    int rc = rootfs_list(dir, &names);
    if (rc) {
        fact_set_errno(fs, "kernel.amdgpu_params_nondefault", dir, rc);
        return;
    }
    int code = driver_code_version(fs);
    struct strset have = STRSET_INIT; /* the directory may list any number */
    strset_add_list(&have, &names);
    for (size_t i = 0; i < ARRAY_SIZE(param_defaults); i++) {
        const struct param_default *p = &param_defaults[i];
        if (!strset_get(&have, p->name, NULL))
            continue;
        char *v;
        if (rootfs_readf_str(&v, "%s/%s", dir, p->name))
            continue; /* write-only or unreadable: nothing to compare */
        if (!is_default(p, v, code))
            strlist_add_owned(&out, xasprintf("%s=%s", p->name, v));
        free(v);
    }
    strlist_sort(&out);
    fact_set_list(fs, "kernel.amdgpu_params_nondefault", &out, dir);
    strset_release(&have);
    strlist_release(&names);
    strlist_release(&out);
}

int probe_kernel_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    char *s;
    int rc = rootfs_read_str("/proc/cmdline", &s);
    if (rc == 0) {
        fact_set_str(fs, "kernel.cmdline", s, "/proc/cmdline");
        free(s);
    } else {
        fact_set_errno(fs, "kernel.cmdline", "/proc/cmdline", rc);
    }
    kernel_config(fs);
    amdgpu_params(fs);
    return 0;
}
