/* probe_driver_cause.c - what the machine shows about why amdgpu would not
 * load or not take a GPU. Facts only; driver.loaded's rules in checks.yaml
 * pick the cause and its fix. Runs after host, driver, kernel_log, gpu and
 * kernel (it reads kernel.release, kernel.cmdline, the kernel log's firmware
 * lines and the GPUs' PCI addresses).
 *
 * - the kernel command line: nomodeset, blacklists, amdgpu.modeset=0
 * - modprobe.d: blacklist / install / options lines for amdgpu, in the
 *   directories and with the masking modprobe.d(5) describes
 * - DKMS: which kernels /var/lib/dkms/amdgpu/<ver>/ was built for
 * - the running kernel's module tree: is there an amdgpu.ko at all
 * - Secure Boot: the EFI SecureBoot variable
 * - firmware the kernel log says failed to load, and whether it exists
 * - per GPU: which driver the PCI function is bound to */
#include "driver_block.h"
#include "gpu_pci.h"
#include "probe.h"
#include "../src/core/strset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_driver_cause_run(struct probe_ctx *ctx);

static const char *fstr(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

/* ---- kernel command line ------------------------------------------------ */

static void cmdline_facts(struct factset *fs)
{
    const char *cl = fstr(fs, "kernel.cmdline");
    if (!cl) {
        fact_set_unknown(fs, "driver.cmdline_blocks", "/proc/cmdline",
                         "the kernel command line is unknown");
        return;
    }
    struct strlist out = STRLIST_INIT;
    db_cmdline_blocks(cl, &out);
    fact_set_list(fs, "driver.cmdline_blocks", &out, "/proc/cmdline");
    strlist_release(&out);
}

/* ---- modprobe.d ------------------------------------------------------------ */

/* modprobe.d(5): a file in an earlier directory masks one of the same name in
 * a later one; /lib is often a link to /usr/lib, which the masking absorbs */
static const char *const modprobe_dirs[] = {"/etc/modprobe.d", "/run/modprobe.d",
                                            "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d",
                                            "/lib/modprobe.d"};

static void modprobe_facts(struct factset *fs)
{
    struct strlist seen = STRLIST_INIT, out = STRLIST_INIT;
    struct strset seen_set = STRSET_INIT; /* directory listings: any length */
    int err = 0;
    const char *err_path = NULL;
    char *err_buf = NULL;
    for (size_t d = 0; d < ARRAY_SIZE(modprobe_dirs) && !err; d++) {
        struct strlist names = STRLIST_INIT;
        int rc = rootfs_list(modprobe_dirs[d], &names);
        if (rc == -ENOENT || rc == -ENOTDIR)
            continue;
        if (rc) {
            err = rc;
            err_path = modprobe_dirs[d];
            continue;
        }
        for (size_t i = 0; i < names.n && !err; i++) {
            if (!str_ends(names.v[i], ".conf") || !strlist_add_unique(&seen, &seen_set, names.v[i]))
                continue;
            char *path = xasprintf("%s/%s", modprobe_dirs[d], names.v[i]);
            char *real = NULL, *text = NULL;
            /* a link to /dev/null masks the file: nothing to read */
            if (rootfs_realpath(path, &real) == 0 && strcmp(real, "/dev/null") == 0) {
                free(real);
                free(path);
                continue;
            }
            free(real);
            rc = rootfs_read_str(path, &text);
            if (rc == 0) {
                struct strlist lines = STRLIST_INIT;
                db_modprobe_blocks(text, &lines);
                for (size_t l = 0; l < lines.n; l++)
                    strlist_add_owned(&out, xasprintf("%s:%s", path, lines.v[l]));
                strlist_release(&lines);
                free(text);
            } else if (rc != -ENOENT) {
                err = rc;
                err_path = err_buf = xstrdup(path);
            }
            free(path);
        }
        strlist_release(&names);
    }
    if (err)
        fact_set_errno(fs, "driver.modprobe_blocks", err_path, err);
    else
        fact_set_list(fs, "driver.modprobe_blocks", &out, "/etc/modprobe.d, /usr/lib/modprobe.d");
    free(err_buf);
    strlist_release(&seen);
    strset_release(&seen_set);
    strlist_release(&out);
}

/* ---- DKMS ------------------------------------------------------------------ */

#define DKMS_DIR "/var/lib/dkms/amdgpu"

/* is there an amdgpu.ko, amdgpu.ko.zst, .xz or .gz in dir */
static int has_module_file(const char *dir, char **found)
{
    struct strlist names = STRLIST_INIT;
    int rc = rootfs_list(dir, &names);
    int hit = 0;
    for (size_t i = 0; rc == 0 && i < names.n && !hit; i++) {
        if (strcmp(names.v[i], "amdgpu.ko") == 0 || str_starts(names.v[i], "amdgpu.ko.")) {
            hit = 1;
            if (found)
                *found = xasprintf("%s/%s", dir, names.v[i]);
        }
    }
    strlist_release(&names);
    return rc ? rc : hit;
}

static void dkms_facts(struct factset *fs)
{
    const char *rel = fstr(fs, "kernel.release");
    struct strlist vers = STRLIST_INIT, built = STRLIST_INIT;
    struct strset built_set = STRSET_INIT; /* kernels of every version: any number */
    int rc = rootfs_list(DKMS_DIR, &vers);
    if (rc && rc != -ENOENT) {
        fact_set_errno(fs, "driver.dkms_versions", DKMS_DIR, rc);
        fact_set_errno(fs, "driver.dkms_kernels", DKMS_DIR, rc);
        fact_set_errno(fs, "driver.dkms_built_running", DKMS_DIR, rc);
        fact_set_errno(fs, "driver.dkms_make_log", DKMS_DIR, rc);
        return;
    }
    struct strlist versions = STRLIST_INIT;
    char *make_log = NULL;
    int running = 0;
    for (size_t v = 0; v < vers.n; v++) {
        /* "kernel-<release>-<arch>" entries are DKMS's links, not versions */
        if (str_starts(vers.v[v], "kernel-"))
            continue;
        strlist_add(&versions, vers.v[v]);
        char *vdir = xasprintf(DKMS_DIR "/%s", vers.v[v]);
        struct strlist kernels = STRLIST_INIT;
        rootfs_list(vdir, &kernels);
        for (size_t k = 0; k < kernels.n; k++) {
            if (strcmp(kernels.v[k], "source") == 0 || strcmp(kernels.v[k], "build") == 0)
                continue;
            /* <ver>/<kernel>/<arch>/module/amdgpu.ko*: built for that kernel */
            char *kdir = xasprintf("%s/%s", vdir, kernels.v[k]);
            struct strlist arches = STRLIST_INIT;
            int any = 0;
            rootfs_list(kdir, &arches);
            for (size_t a = 0; a < arches.n && !any; a++) {
                char *mdir = xasprintf("%s/%s/module", kdir, arches.v[a]);
                any = has_module_file(mdir, NULL) == 1;
                free(mdir);
            }
            if (any) {
                strlist_add_unique(&built, &built_set, kernels.v[k]);
                if (rel && strcmp(kernels.v[k], rel) == 0)
                    running = 1;
            }
            strlist_release(&arches);
            free(kdir);
        }
        char *log = xasprintf("%s/build/make.log", vdir);
        if (!make_log && rootfs_exists(log))
            make_log = log;
        else
            free(log);
        strlist_release(&kernels);
        free(vdir);
    }
    if (rel && !running) {
        /* installed by `dkms install` into the running kernel's tree */
        char *d = xasprintf("/lib/modules/%s/updates/dkms", rel);
        running = has_module_file(d, NULL) == 1;
        free(d);
    }
    fact_set_list(fs, "driver.dkms_versions", &versions, DKMS_DIR);
    fact_set_list(fs, "driver.dkms_kernels", &built, DKMS_DIR "/<version>/<kernel>");
    if (rel)
        fact_set_bool(fs, "driver.dkms_built_running", running, DKMS_DIR "/<version>/<kernel>");
    else
        fact_set_unknown(fs, "driver.dkms_built_running", DKMS_DIR,
                         "the running kernel's release is unknown");
    fact_set_str(fs, "driver.dkms_make_log", make_log ? make_log : "", DKMS_DIR);
    free(make_log);
    strlist_release(&versions);
    strlist_release(&built);
    strset_release(&built_set);
    strlist_release(&vers);
}

/* ---- the running kernel's module tree ---------------------------------------- */

static void module_tree_facts(struct factset *fs)
{
    const char *rel = fstr(fs, "kernel.release");
    if (!rel) {
        fact_set_unknown(fs, "kernel.amdgpu_module", "/lib/modules",
                         "the running kernel's release is unknown");
        return;
    }
    char *top = xasprintf("/lib/modules/%s", rel);
    struct strlist names = STRLIST_INIT;
    int rc = rootfs_list(top, &names);
    strlist_release(&names);
    if (rc) {
        fact_set_errno(fs, "kernel.amdgpu_module", top, rc);
        free(top);
        return;
    }
    /* where distributions and DKMS put it; a full walk of the tree would
     * record thousands of files in a snapshot */
    static const char *const sub[] = {"kernel/drivers/gpu/drm/amd/amdgpu", "updates/dkms",
                                      "updates", "extra", "extra/amdgpu"};
    char *found = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(sub) && !found; i++) {
        char *d = xasprintf("%s/%s", top, sub[i]);
        has_module_file(d, &found);
        free(d);
    }
    if (!found) {
        char *builtin = NULL, *path = xasprintf("%s/modules.builtin", top);
        if (rootfs_read_str(path, &builtin) == 0 &&
            strstr(builtin, "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko"))
            found = xstrdup("builtin");
        free(builtin);
        free(path);
    }
    fact_set_str(fs, "kernel.amdgpu_module", found ? found : "", top);
    free(found);
    free(top);
}

/* ---- Secure Boot ------------------------------------------------------------- */

#define SECUREBOOT_VAR "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

static void secure_boot_facts(struct factset *fs)
{
    char *buf = NULL;
    size_t len = 0;
    if (!rootfs_exists("/sys/firmware/efi")) {
        fact_set_unknown(fs, "kernel.secure_boot", "/sys/firmware/efi",
                         "no /sys/firmware/efi (legacy BIOS boot, or not recorded)");
        return;
    }
    int rc = rootfs_read(SECUREBOOT_VAR, &buf, &len);
    if (rc == 0 && len >= 5) /* 4 bytes of attributes, then the value */
        fact_set_bool(fs, "kernel.secure_boot", buf[4] == 1, SECUREBOOT_VAR);
    else if (rc == 0)
        fact_set_unknown(fs, "kernel.secure_boot", SECUREBOOT_VAR, "%zu bytes, want 5", len);
    else
        fact_set_errno(fs, "kernel.secure_boot", SECUREBOOT_VAR, rc);
    free(buf);
}

/* ---- firmware --------------------------------------------------------------- */

static void firmware_facts(struct factset *fs)
{
    const struct fact *ff = fact_get(fs, "kernel.dmesg.firmware_files");
    if (!ff || ff->type != FACT_LIST) {
        fact_set_unknown(fs, "driver.firmware_missing", "kernel log", "the kernel log is unknown");
        return;
    }
    struct strlist missing = STRLIST_INIT;
    static const char *const ext[] = {"", ".zst", ".xz"}; /* compressed firmware, 5.19+ */
    for (size_t i = 0; i < fact_list_kept(ff); i++) {
        int have = 0;
        for (size_t e = 0; e < ARRAY_SIZE(ext) && !have; e++) {
            char *p = xasprintf("/lib/firmware/%s%s", ff->list.v[i], ext[e]);
            have = rootfs_exists(p);
            free(p);
        }
        if (!have)
            strlist_add(&missing, ff->list.v[i]);
    }
    /* the files beyond the kernel log fact's cap were not looked for: the
     * marker keeps them counted, and `in` unknown rather than absent */
    if (fact_list_count(ff) > fact_list_kept(ff))
        strlist_add_owned(&missing,
                          xasprintf(FACT_LIST_MORE_FMT, fact_list_count(ff) - fact_list_kept(ff)));
    fact_set_list(fs, "driver.firmware_missing", &missing, "/lib/firmware");
    strlist_release(&missing);
}

/* ---- which driver each GPU is bound to ------------------------------------- */

static void binding_facts(struct factset *fs)
{
    const struct fact *n = fact_get(fs, "gpu.count");
    struct strlist unbound = STRLIST_INIT;
    if (!n || n->type != FACT_INT) {
        fact_set_unknown(fs, "driver.unbound_gpus", GP_PCI_DEVICES, "the GPU count is unknown");
        return;
    }
    for (int g = 0; g < (int)n->i; g++) {
        char fn[FACT_NAME_MAX], pb[FACT_NAME_MAX];
        const char *bdf = probe_gpu_pci(fs, g, pb);
        if (!bdf)
            continue;
        char *link = xasprintf(GP_PCI_DEVICES "/%s/driver", bdf);
        char *real = NULL;
        const char *drv = "";
        if (rootfs_realpath(link, &real) == 0 && str_starts(real, "/sys/bus/pci/drivers/"))
            drv = real + strlen("/sys/bus/pci/drivers/");
        /* Without the link (snapshots recorded before it was read, trees
         * built by hand), amdgpu's own files or a KFD node joined to the GPU
         * show that the driver took it. */
        int bound = strcmp(drv, "amdgpu") == 0;
        if (!drv[0]) {
            const struct fact *k = fact_get(fs, fact_gpu_name(fn, g, "kfd_node"));
            bound = k && k->type == FACT_INT;
            static const char *const own[] = {"mem_info_vram_total", "hwmon", "drm",
                                              "gpu_busy_percent"};
            for (size_t i = 0; i < ARRAY_SIZE(own) && !bound; i++) {
                char *p = xasprintf(GP_PCI_DEVICES "/%s/%s", bdf, own[i]);
                bound = rootfs_exists(p);
                free(p);
            }
        }
        fact_set_str(fs, fact_gpu_name(fn, g, "driver"), bound && !drv[0] ? "amdgpu" : drv, link);
        fact_set_bool(fs, fact_gpu_name(fn, g, "driver_bound"), bound, link);
        if (!bound)
            strlist_add_owned(&unbound,
                              drv[0] ? xasprintf("%s (bound to %s)", bdf, drv) : xstrdup(bdf));
        free(real);
        free(link);
    }
    fact_set_list(fs, "driver.unbound_gpus", &unbound, GP_PCI_DEVICES "/*/driver");
    strlist_release(&unbound);
}

int probe_driver_cause_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    cmdline_facts(fs);
    modprobe_facts(fs);
    dkms_facts(fs);
    module_tree_facts(fs);
    secure_boot_facts(fs);
    firmware_facts(fs);
    binding_facts(fs);
    return 0;
}
