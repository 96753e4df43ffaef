/* probe_driver.c - is the amdgpu kernel driver loaded, and which one.
 *
 * /sys/module/amdgpu exists while the module is loaded (or built in);
 * initstate is "live" once its init finished (rocminfo checks the same).
 * A built-in driver has no initstate file: it is reported as "builtin".
 * /sys/module/amdgpu/version exists only for the out-of-tree DKMS driver
 * (MODULE_VERSION); the in-kernel driver is identified by the kernel release. */
#include "probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int probe_driver_run(struct probe_ctx *ctx);

#define MOD_DIR "/sys/module/amdgpu"

int probe_driver_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    int present = rootfs_exists(MOD_DIR);
    char *s = NULL;
    int rc;

    fact_set_bool(fs, "driver.module_present", present, MOD_DIR);
    fact_set_bool(fs, "driver.dkms", present && rootfs_exists(MOD_DIR "/version"),
                  MOD_DIR "/version");

    if (!present) {
        fact_set_unknown(fs, "driver.initstate", MOD_DIR, "amdgpu module not loaded");
        fact_set_bool(fs, "driver.loaded", 0, MOD_DIR);
        fact_set_unknown(fs, "driver.version", MOD_DIR, "amdgpu module not loaded");
        return 0;
    }

    if ((rc = rootfs_read_str(MOD_DIR "/initstate", &s)) == 0) {
        fact_set_str(fs, "driver.initstate", s, MOD_DIR "/initstate");
        fact_set_bool(fs, "driver.loaded", strcmp(s, "live") == 0, MOD_DIR "/initstate");
        free(s);
    } else if (rc == -ENOENT) {
        /* built into the kernel: no module state, always initialised */
        fact_set_str(fs, "driver.initstate", "builtin", MOD_DIR);
        fact_set_bool(fs, "driver.loaded", 1, MOD_DIR);
    } else {
        fact_set_errno(fs, "driver.initstate", MOD_DIR "/initstate", rc);
        fact_set_errno(fs, "driver.loaded", MOD_DIR "/initstate", rc);
    }

    if ((rc = rootfs_read_str(MOD_DIR "/version", &s)) == 0) {
        char *v = xasprintf("%s (amdgpu-dkms)", s);
        fact_set_str(fs, "driver.version", v, MOD_DIR "/version");
        free(v);
        free(s);
    } else if (rc != -ENOENT) {
        fact_set_errno(fs, "driver.version", MOD_DIR "/version", rc);
    } else {
        const struct fact *rel = fact_get(fs, "kernel.release");
        if (rel && rel->type == FACT_STR) {
            char *v = xasprintf("in-kernel amdgpu of %s", rel->s);
            fact_set_str(fs, "driver.version", v, "/proc/sys/kernel/osrelease");
            free(v);
        } else {
            fact_set_unknown(fs, "driver.version", "/proc/sys/kernel/osrelease",
                             "in-kernel amdgpu, kernel release unknown");
        }
    }
    return 0;
}
