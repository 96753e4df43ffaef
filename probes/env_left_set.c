/* env_left_set.c - variables a user sets to debug or to pick a GPU and then
 * forgets: each one either hides GPUs from the runtime or makes every launch
 * or copy synchronous. Names and meanings from ROCm's environment variable
 * reference (https://rocm.docs.amd.com/en/docs-7.1.1/reference/env-variables.html:
 * GPU isolation and HIP debugging tables) and PyTorch's CUDA/HIP semantics
 * notes (PYTORCH_NO_CUDA_MEMORY_CACHING). */
#include "env_left_set.h"

#include "probe.h"

#include <stdio.h>
#include <string.h>

/* the GPU selection variables: each keeps only the devices it lists */
static const char *const env_visibility_vars[] = {
    "ROCR_VISIBLE_DEVICES", /* the ROCm runtime: agents, before HIP numbers them */
    "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", /* HIP reads it as HIP_VISIBLE_DEVICES */
    "GPU_DEVICE_ORDINAL",                          /* HIP and OpenCL */
};

/* a debugging variable, the value that does nothing ("0", or NULL: any
 * value counts) and why it matters */
static const struct {
    const char *name, *off, *why;
} env_debug_vars[] = {
    {"AMD_SERIALIZE_KERNEL", "0", "waits for the GPU before and/or after every kernel launch"},
    {"AMD_SERIALIZE_COPY", "0", "waits for the GPU before and/or after every copy"},
    {"HIP_LAUNCH_BLOCKING", "0", "makes every kernel launch synchronous"},
    {"AMD_LOG_LEVEL", "0", "logs HIP calls to stderr, slowing every call"},
    {"PYTORCH_NO_CUDA_MEMORY_CACHING", "0",
     "turns off PyTorch's caching allocator: every tensor is a hipMalloc and hipFree"},
    {"PYTORCH_NO_HIP_MEMORY_CACHING", "0",
     "turns off PyTorch's caching allocator: every tensor is a hipMalloc and hipFree"},
};

const char *env_left_set_why(const char *name, const char *value)
{
    for (size_t i = 0; i < ARRAY_SIZE(env_debug_vars); i++) {
        if (strcmp(env_debug_vars[i].name, name) != 0)
            continue;
        if (!value || (env_debug_vars[i].off && strcmp(value, env_debug_vars[i].off) == 0))
            return NULL;
        return env_debug_vars[i].why;
    }
    return NULL;
}

/* a list whose first entry is negative ("-1", the conventional "no GPU")
 * selects nothing: the runtimes keep the devices listed before the first
 * entry that is not a device */
static int env_visibility_selects_none(const char *value)
{
    while (*value == ' ')
        value++;
    return *value == '-';
}

/* entries of a comma-separated device list ("0,2" is 2; "" is 0) */
static int64_t env_visibility_entries(const char *value)
{
    int64_t n = 0;
    for (const char *p = value; *p; p++)
        if (*p != ',' && *p != ' ' && (p == value || p[-1] == ',' || p[-1] == ' '))
            n++;
    return n;
}

void env_left_set_facts(struct factset *fs)
{
    const struct fact *rec = fact_get(fs, "env.recorded");
    static const char *const names[] = {"env.gpu_visibility", "env.gpu_visibility_none",
                                        "env.gpu_visibility_entries", "env.debug_left"};
    if (!rec || rec->type != FACT_BOOL) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_unknown(fs, names[i], ROOTFS_SNAPSHOT_DIR "/environ",
                             "the environment was not recorded");
        return;
    }
    struct strlist vis = STRLIST_INIT, dbg = STRLIST_INIT;
    int none = 0;
    int64_t entries = -1; /* the fewest entries of any variable set: the most it can leave */
    for (size_t i = 0; i < ARRAY_SIZE(env_visibility_vars); i++) {
        const char *v = probe_getenv(env_visibility_vars[i]);
        if (!v)
            continue;
        strlist_add_owned(&vis, xasprintf("%s=%s", env_visibility_vars[i], v));
        none |= env_visibility_selects_none(v);
        int64_t n = env_visibility_entries(v);
        if (entries < 0 || n < entries)
            entries = n;
    }
    for (size_t i = 0; i < ARRAY_SIZE(env_debug_vars); i++) {
        const char *v = probe_getenv(env_debug_vars[i].name);
        const char *why = env_left_set_why(env_debug_vars[i].name, v);
        if (why)
            strlist_add_owned(&dbg, xasprintf("%s=%s (%s)", env_debug_vars[i].name, v, why));
    }
    fact_set_list(fs, names[0], &vis, "environment");
    fact_set_bool(fs, names[1], none, "environment");
    if (entries >= 0)
        fact_set_int(fs, names[2], entries, "environment");
    else
        fact_set_unknown(fs, names[2], "environment", "no GPU selection variable is set");
    fact_set_list(fs, names[3], &dbg, "environment");
    strlist_release(&vis);
    strlist_release(&dbg);
}
