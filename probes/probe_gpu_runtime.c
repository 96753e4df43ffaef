/* probe_gpu_runtime.c - which GPU runtimes load, their versions and devices
 * (probe "gpu_runtime"), and whether every built-in kernel compiles for the
 * device's target (probe "kernels"). Both run in an isolated child.
 *
 * gpu_runtime facts: runtime.{hip,cuda}.{loaded,error,lib,version,init_error,
 * rtc}, runtime.backend, runtime.device_count, runtime.kfd_present,
 * runtime.dev.<i>.{name,arch,target,pci,vram_bytes,cu_count,managed,
 * concurrent_managed,pageable_access}, and the cross-check against the KFD
 * topology facts of probe_gpu: runtime.kfd_compared, runtime.kfd_mismatch.
 *
 * kernels facts: kernels.targets (list), kernels.ok (bool), kernels.failed
 * (list "<kernel>@<target>: <why>"), kernels.compiled / kernels.cached (int),
 * kernels.compile_s, kernels.compiler ("hiprtc of ROCm 5.2.21153"). Targets
 * come from ROCM_VLA_DOCTOR_TARGETS (comma-separated; CI compiles for GPUs it
 * does not have) or the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "probe.h"

int probe_gpu_runtime_run(struct probe_ctx *ctx);
int probe_kernels_run(struct probe_ctx *ctx);

static void version_text(const struct gpu_backend *b, char *buf, size_t n)
{
    int v = b->runtime_version;
    if (strcmp(b->name, "hip") == 0) /* HIP_VERSION: major*10^7 + minor*10^5 + patch */
        snprintf(buf, n, "%d.%d.%d", v / 10000000, v / 100000 % 100, v % 100000);
    else /* CUDA: major*1000 + minor*10 */
        snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10);
}

static void one_runtime(struct factset *fs, const char *key, struct gpu_backend *b, const char *why)
{
    char n[FACT_NAME_MAX];
    snprintf(n, sizeof(n), "runtime.%s.loaded", key);
    fact_set_bool(fs, n, b != NULL, "dlopen");
    snprintf(n, sizeof(n), "runtime.%s.error", key);
    fact_set_str(fs, n, b ? "" : why ? why : "not loaded", "dlopen");
    if (!b)
        return;
    char v[32];
    version_text(b, v, sizeof(v));
    snprintf(n, sizeof(n), "runtime.%s.lib", key);
    fact_set_str(fs, n, b->lib, "dlopen");
    snprintf(n, sizeof(n), "runtime.%s.version", key);
    fact_set_str(fs, n, v, b->lib);
    snprintf(n, sizeof(n), "runtime.%s.init_error", key);
    fact_set_str(fs, n, b->init_err, b->lib);
    snprintf(n, sizeof(n), "runtime.%s.rtc", key);
    fact_set_str(fs, n, b->rtc_lib[0] ? b->rtc_lib : b->rtc_err, "dlopen");
    snprintf(n, sizeof(n), "runtime.%s.blas", key);
    fact_set_str(fs, n, b->blas_lib[0] ? b->blas_lib : "none (the project's own GEMM kernel)",
                 "dlopen");
}

/* HIP's view of device i against probe_gpu's KFD facts gpu.<i>.* */
static void cross_check(struct factset *fs, int i, const struct gpu_props *p,
                        struct strlist *mismatch, int *compared)
{
    char n[FACT_NAME_MAX];
    const struct fact *gfx = fact_get(fs, fact_gpu_name(n, i, "gfx"));
    if (gfx && gfx->type == FACT_STR) {
        (*compared)++;
        if (strcmp(gfx->s, p->target) != 0)
            strlist_add_owned(mismatch, xasprintf("GPU %d: KFD says %s, HIP says %s", i, gfx->s,
                                                  p->target[0] ? p->target : "(no ISA name)"));
    }
    const struct fact *vram = fact_get(fs, fact_gpu_name(n, i, "vram_bytes"));
    if (vram && vram->type == FACT_INT && vram->i > 0 && p->total_mem) {
        double r = (double)p->total_mem / (double)vram->i;
        /* HIP reports the usable size; a few percent below KFD is normal */
        if (r < 0.85 || r > 1.01)
            strlist_add_owned(mismatch, xasprintf("GPU %d: KFD VRAM %lld MiB, HIP %llu MiB", i,
                                                  (long long)(vram->i >> 20),
                                                  (unsigned long long)(p->total_mem >> 20)));
    }
    const struct fact *cu = fact_get(fs, fact_gpu_name(n, i, "cu_count"));
    if (cu && cu->type == FACT_INT && p->cu_count > 0 && cu->i != p->cu_count)
        strlist_add_owned(
            mismatch, xasprintf("GPU %d: KFD %lld CUs, HIP %d", i, (long long)cu->i, p->cu_count));
    const struct fact *isa = fact_get(fs, fact_gpu_name(n, i, "isa"));
    if (isa && isa->type == FACT_STR && p->arch[0] && strcmp(isa->s, p->arch) != 0)
        strlist_add_owned(mismatch,
                          xasprintf("GPU %d: KFD features %s, HSA ISA %s", i, isa->s, p->arch));
}

int probe_gpu_runtime_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    char *why_hip = NULL, *why_cuda = NULL;
    fact_set_bool(fs, "runtime.live", rootfs_is_live(), "rootfs");
    if (!rootfs_is_live()) /* a fixture or snapshot: no runtime is loaded */
        return 0;
    fact_set_bool(fs, "runtime.kfd_present", rootfs_exists("/dev/kfd"), "/dev/kfd");
    isolate_flush(fs);
    /* loading HIP may crash in a broken install: the facts above survive */
    struct gpu_backend *hip = gpu_backend_open(GPU_BACKEND_HIP, &why_hip);
    one_runtime(fs, "hip", hip, why_hip);
    isolate_flush(fs);
    struct gpu_backend *cuda = gpu_backend_open(GPU_BACKEND_CUDA, &why_cuda);
    one_runtime(fs, "cuda", cuda, why_cuda);
    isolate_flush(fs);

    int nh = 0, nc = 0;
    if (hip)
        hip->device_count(hip, &nh);
    if (cuda)
        cuda->device_count(cuda, &nc);
    struct gpu_backend *b = nh > 0 ? hip : nc > 0 ? cuda : hip ? hip : cuda;
    int n = nh > 0 ? nh : nc;
    fact_set_str(fs, "runtime.backend", b ? b->name : "none", b ? b->lib : "dlopen");
    fact_set_int(fs, "runtime.device_count", n, b ? b->lib : "dlopen");
    if (b) {
        char v[32];
        version_text(b, v, sizeof(v));
        fact_set_str(fs, "runtime.version", v, b->lib);
    }
    struct strlist mismatch = STRLIST_INIT, names = STRLIST_INIT;
    int compared = 0;
    for (int i = 0; b && i < n; i++) {
        struct gpu_props p;
        char nm[FACT_NAME_MAX];
        if (b->props(b, i, &p)) {
            snprintf(nm, sizeof(nm), "runtime.dev.%d.name", i);
            fact_set_unknown(fs, nm, b->lib, "%s", b->err);
            continue;
        }
#define DEV_STR(k, v)                                                                              \
    (snprintf(nm, sizeof(nm), "runtime.dev.%d." k, i), fact_set_str(fs, nm, v, b->lib))
#define DEV_INT(k, v)                                                                              \
    (snprintf(nm, sizeof(nm), "runtime.dev.%d." k, i), fact_set_int(fs, nm, v, b->lib))
        DEV_STR("name", p.name);
        DEV_STR("arch", p.arch);
        DEV_STR("target", p.target);
        DEV_STR("pci", p.pci);
        DEV_INT("vram_bytes", (int64_t)p.total_mem);
        DEV_INT("cu_count", p.cu_count);
        DEV_INT("managed", p.managed);
        DEV_INT("concurrent_managed", p.concurrent_managed);
        DEV_INT("pageable_access", p.pageable_access);
        strlist_add_owned(&names, xasprintf("%s (%s)", p.name, p.arch));
        if (strcmp(b->name, "hip") == 0)
            cross_check(fs, i, &p, &mismatch, &compared);
    }
    fact_set_list(fs, "runtime.devices", &names, b ? b->lib : "dlopen");
    fact_set_bool(fs, "runtime.kfd_compared", compared > 0, "gpu.<i>.* facts");
    fact_set_list(fs, "runtime.kfd_mismatch", &mismatch, "gpu.<i>.* facts");
    strlist_release(&mismatch);
    strlist_release(&names);
    free(why_hip);
    free(why_cuda);
    return 0;
}

int probe_kernels_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct strlist targets = STRLIST_INIT, failed = STRLIST_INIT;
    const char *env = getenv("ROCM_VLA_DOCTOR_TARGETS");
    struct gpu_backend *b = NULL;
    char *why = NULL;
    if (!rootfs_is_live()) {
        gpu_probe_unavailable(ctx, "kernels",
                              "reading a sysroot or snapshot: GPU probes "
                              "measure the live machine only");
        return 0;
    }
    if (env && *env) {
        /* compile-only (CI): the device is not needed, HIP unless the targets are sm_XX */
        strlist_split(&targets, env, ",");
        b = gpu_backend_open(str_starts(targets.v[0], "sm_") ? GPU_BACKEND_CUDA : GPU_BACKEND_HIP,
                             &why);
        if (!b) {
            gpu_probe_unavailable(ctx, "kernels", "no runtime compiler loads (%s)", why);
            free(why);
            strlist_release(&targets);
            return 0;
        }
        fact_set_bool(fs, "kernels.available", 1, b->lib);
    } else {
        struct gpu_props p;
        if (gpu_probe_begin(ctx, "kernels", &b, &p)) {
            strlist_release(&targets);
            return 0;
        }
        strlist_add(&targets, gpu_probe_target(&p));
    }
    char v[32];
    version_text(b, v, sizeof(v));
    char *compiler = xasprintf("%s of %s %s (%s)", strcmp(b->name, "hip") == 0 ? "hiprtc" : "NVRTC",
                               strcmp(b->name, "hip") == 0 ? "ROCm" : "CUDA", v,
                               b->rtc_lib[0] ? b->rtc_lib : b->rtc_err);
    fact_set_str(fs, "kernels.compiler", compiler, b->lib);
    fact_set_list(fs, "kernels.targets", &targets,
                  env && *env ? "ROCM_VLA_DOCTOR_TARGETS" : b->lib);
    isolate_flush(fs);
    for (size_t t = 0; t < targets.n; t++) {
        for (const struct gpu_kernel_src *k = rvd_kernels; k->name; k++) {
            if (strcmp(k->name, "prelude") == 0)
                continue;
            /* on stderr: if the compiler crashes, the isolation runner's message
             * ends with this line, naming the compiler and the target */
            fprintf(stderr, "compiling kernels/%s.hip for %s with %s\n", k->name, targets.v[t],
                    compiler);
            fflush(stderr);
            void *bin = NULL;
            size_t len = 0;
            if (gpu_kernel_binary(b, k->name, targets.v[t], &bin, &len, &why)) {
                strlist_add_owned(&failed, xasprintf("%s@%s: %s", k->name, targets.v[t], why));
                free(why);
            }
            free(bin);
        }
    }
    fact_set_bool(fs, "kernels.ok", failed.n == 0, compiler);
    fact_set_list(fs, "kernels.failed", &failed, compiler);
    fact_set_int(fs, "kernels.compiled", kcache_stats.compiles, "kernel cache");
    fact_set_int(fs, "kernels.cached", kcache_stats.hits, "kernel cache");
    fact_set_float(fs, "kernels.compile_s", kcache_stats.compile_s, "kernel cache");
    free(compiler);
    strlist_release(&targets);
    strlist_release(&failed);
    return 0;
}
