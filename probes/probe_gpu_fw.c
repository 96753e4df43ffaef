/* probe_gpu_fw.c - the firmware versions amdgpu reports for each GPU.
 *
 * amdgpu's <device>/fw_version/ directory (amdgpu_ucode.c, FW_VERSION_ATTR)
 * has one <ip>_fw_version file per firmware it knows for the ASIC family,
 * each "0x%08x". An IP block the chip does not have reads 0x00000000 too
 * (a Navi 21 has no UVD, VCE or DMCU), so a zero alone says nothing; but
 * every GPU amdgpu drives for compute has a MEC (the compute micro engine
 * that runs the queues KFD hands out) and an RLC, and their firmware is
 * loaded before the device comes up. A zero there is a GPU running without
 * the firmware its compute queues need. */
#include "gpu_pci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* firmware every compute-capable amdgpu GPU loads (see the top) */
static const char *const required[] = {"mec", "rlc"};

int gp_fw_name(const char *file, char *name, size_t n)
{
    static const char suffix[] = "_fw_version";
    size_t len = strlen(file), sl = sizeof(suffix) - 1;
    if (len <= sl || strcmp(file + len - sl, suffix) != 0 || len - sl >= n)
        return -EINVAL;
    for (size_t i = 0; i < len - sl; i++) {
        char c = file[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return -EINVAL;
    }
    snprintf(name, n, "%.*s", (int)(len - sl), file);
    return 0;
}

void gp_fw_facts(struct factset *fs, int gpu, const char *bdf)
{
    char fn[FACT_NAME_MAX], dir[96];
    snprintf(dir, sizeof(dir), GP_PCI_DEVICES "/%s/fw_version", bdf);
    struct strlist files = STRLIST_INIT, zero = STRLIST_INIT;
    int rc = rootfs_list(dir, &files);
    if (rc) {
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "fw_count"), dir, rc);
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "fw_not_loaded"), dir, rc);
        strlist_release(&files);
        return;
    }
    int count = 0, have_required = 0;
    for (size_t i = 0; i < files.n; i++) {
        char name[48], *text, fact[FACT_NAME_MAX];
        if (gp_fw_name(files.v[i], name, sizeof(name)))
            continue;
        if (rootfs_readf_str(&text, "%s/%s", dir, files.v[i]))
            continue;
        char *v = str_trim(text);
        char *end;
        errno = 0;
        unsigned long long num = strtoull(v, &end, 16);
        snprintf(fact, sizeof(fact), "fw.%s", name);
        if (str_starts(v, "0x") && end != v + 2 && *end == '\0' && errno == 0) {
            fact_set_str(fs, fact_gpu_name(fn, gpu, fact), v, dir);
            count++;
            for (size_t r = 0; r < ARRAY_SIZE(required); r++) {
                if (strcmp(name, required[r]) != 0)
                    continue;
                have_required++;
                if (num == 0)
                    strlist_add(&zero, name);
            }
        } else {
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, fact), dir, "not a 0x version: '%s'", v);
        }
        free(text);
    }
    fact_set_int(fs, fact_gpu_name(fn, gpu, "fw_count"), count, dir);
    if (have_required)
        fact_set_list(fs, fact_gpu_name(fn, gpu, "fw_not_loaded"), &zero, dir);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "fw_not_loaded"), dir,
                         "no mec_fw_version or rlc_fw_version in %s", dir);
    strlist_release(&files);
    strlist_release(&zero);
}
