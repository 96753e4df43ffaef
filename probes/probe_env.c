/* probe_env.c - the environment variables that matter for ROCm and PyTorch.
 *
 * Only whitelisted names are ever read or recorded, so a snapshot made by
 * collect never carries tokens or passwords. The "environ" query holds
 * NAME=value lines. */
#include "env_left_set.h"
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_env_run(struct probe_ctx *ctx);

/* exact names; entries ending in '_' are prefixes */
static const char *const env_whitelist[] = {
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "HSA_",
    "AMD_",
    "HIP_",
    "ROCM_PATH",
    "ROCM_HOME",
    "PYTORCH_",
    "MIOPEN_",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "PATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYTHONPATH",
    "TORCH_",
    "NCCL_",
    "RCCL_",
    "VK_ICD_FILENAMES",
    "VK_DRIVER_FILES",
    "DISPLAY",
    /* the user sudo was run by: user.groups judges that person's groups */
    "SUDO_USER",
    "WAYLAND_DISPLAY",
};

static int env_allowed(const char *name, size_t n)
{
    for (size_t i = 0; i < ARRAY_SIZE(env_whitelist); i++) {
        const char *w = env_whitelist[i];
        size_t wl = strlen(w);
        if (w[wl - 1] == '_' ? (n >= wl && strncmp(name, w, wl) == 0)
                             : (n == wl && strncmp(name, w, wl) == 0))
            return 1;
    }
    return 0;
}

extern char **environ;

static int environ_live(struct strbuf *out)
{
    struct strlist lines = STRLIST_INIT;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strchr(*e, '\n') || !env_allowed(*e, (size_t)(eq - *e)))
            continue;
        strlist_add(&lines, *e);
    }
    strlist_sort(&lines);
    for (size_t i = 0; i < lines.n; i++)
        strbuf_addf(out, "%s\n", lines.v[i]);
    strlist_release(&lines);
    return 0;
}

static struct strlist env_lines = STRLIST_INIT;

const char *probe_getenv(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < env_lines.n; i++)
        if (strncmp(env_lines.v[i], name, n) == 0 && env_lines.v[i][n] == '=')
            return env_lines.v[i] + n + 1;
    return NULL;
}

int probe_env_run(struct probe_ctx *ctx)
{
    char *text;
    strlist_release(&env_lines);
    int rc = rootfs_query("environ", environ_live, &text);
    if (rc) {
        fact_set_errno(ctx->facts, "env.recorded", ROOTFS_SNAPSHOT_DIR "/environ", rc);
        env_left_set_facts(ctx->facts);
        return 0;
    }
    strlist_split(&env_lines, text, "\n");
    free(text);
    fact_set_bool(ctx->facts, "env.recorded", 1, "environment");
    /* every whitelisted variable that is set becomes a fact env.var.<NAME> */
    for (size_t i = 0; i < env_lines.n; i++) {
        char *eq = strchr(env_lines.v[i], '=');
        if (!eq)
            continue;
        char name[FACT_NAME_MAX];
        snprintf(name, sizeof(name), "env.var.%.*s", (int)(eq - env_lines.v[i]), env_lines.v[i]);
        fact_set_str(ctx->facts, name, eq + 1, "environment");
    }
    env_left_set_facts(ctx->facts);
    return 0;
}
