/* nvml_bind.c - see nvml_bind.h. */
#include "nvml_bind.h"

#include <dlfcn.h>
#include <string.h>

#include "backend.h"

int nvml_bind_load(struct nvml_bind *b, char *why, size_t why_n)
{
    static const char *const names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
    memset(b, 0, sizeof(*b));
    b->h = gpu_dlopen_env("ROCM_VLA_DOCTOR_NVML_LIB", names, ARRAY_SIZE(names), b->lib,
                          sizeof(b->lib), why, why_n);
    if (!b->h)
        return -1;
#define NVML_BIND_LOAD(fn) b->fn = (__typeof__(&fn))dlsym(b->h, #fn);
    NVML_BIND_FNS(NVML_BIND_LOAD)
    return 0;
}

const char *nvml_bind_error(const struct nvml_bind *b, int e)
{
    if (e == -1)
        return "not in this driver";
    const char *s = b->nvmlErrorString ? b->nvmlErrorString(e) : NULL;
    return s ? s : "?";
}

void nvml_bind_close(struct nvml_bind *b, int initialised, int unload)
{
    if (!b->h)
        return;
    if (initialised && b->nvmlShutdown)
        b->nvmlShutdown();
    if (unload)
        dlclose(b->h);
    b->h = NULL;
}
