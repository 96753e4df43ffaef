/* probe_gpu_runtime.c - which GPU runtimes load, their versions and devices
 * (probe "gpu_runtime"), and whether every built-in kernel compiles for the
 * device's target (probe "kernels"). Both run in an isolated child.
 *
 * gpu_runtime facts: runtime.{hip,cuda}.{loaded,error,lib,version,init_error,
 * rtc}, runtime.lib_set ("wheel:DIR" when the HIP backend loaded PyTorch's
 * torch/lib copy, else "system:LIB"), runtime.backend, runtime.device_count,
 * runtime.kfd_present,
 * runtime.dev.<i>.{name,arch,target,pci,vram_bytes,cu_count,managed,
 * concurrent_managed,pageable_access,clock_khz,mem_clock_khz,mem_bus_width}, runtime.hip.blaslt;
 * the pairing with probe_gpu's sysfs GPUs by PCI address (never by position: visibility variables
 * renumber runtime devices, an integrated GPU may come first): runtime.dev.<i>.gpu (the <j> of
 * gpu.<j> at that address), runtime.dev.<i>. pci_vendor (the sysfs vendor at that address),
 * runtime.unpaired (runtime devices with no sysfs GPU), runtime.not_visible (sysfs GPUs the runtime
 * does not list); and the cross-check of each paired device against its KFD
 * topology facts: runtime.kfd_compared, runtime.kfd_mismatch.
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
#include "../src/gpu/pci_addr.h"
#include "probe.h"

/* which ROCm the HIP backend loaded: PyTorch's wheel (torch/lib, chosen by
 * the parent from rocm.torch_lib_set) or the system's */
static void lib_set(struct factset *fs, const struct gpu_backend *hip)
{
    const char *dir = gpu_backend_hip_dir();
    if (!hip) {
        fact_set_unknown(fs, "runtime.lib_set", "dlopen", "no HIP runtime loads");
        return;
    }
    size_t n = dir ? strlen(dir) : 0;
    char *v = dir && strncmp(hip->lib, dir, n) == 0 && hip->lib[n] == '/'
                  ? xasprintf("wheel:%s", dir)
                  : xasprintf("system:%s", hip->lib);
    fact_set_str(fs, "runtime.lib_set", v, hip->lib);
    free(v);
}

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
    if (b->extra_lib[0]) {
        snprintf(n, sizeof(n), "runtime.%s.blaslt", key);
        fact_set_str(fs, n, b->extra_lib, "dlopen");
    }
}

/* the gpu.<j> of probe_gpu (AMD GPUs in sysfs) at PCI address pci: j, or -1
 * with *why; an exact address wins over a partition's (pci_addr.h) */
static int sysfs_gpu_at(const struct factset *fs, const char *pci, char *why, size_t why_len)
{
    struct pci_addr rt, os;
    if (pci_addr_parse(pci, &rt)) {
        snprintf(why, why_len, "the runtime gives no PCI address for this device");
        return -1;
    }
    const struct fact *cnt = fact_get(fs, "gpu.count");
    if (!cnt || cnt->type != FACT_INT) {
        snprintf(why, why_len, "the AMD GPUs in sysfs are not known (no gpu.count)");
        return -1;
    }
    int best = -1;
    enum pci_match best_m = PCI_MATCH_NONE;
    for (int j = 0; j < (int)cnt->i; j++) {
        char n[FACT_NAME_MAX];
        const struct fact *f = fact_get(fs, fact_gpu_name(n, j, "pci"));
        if (!f || f->type != FACT_STR || pci_addr_parse(f->s, &os))
            continue;
        enum pci_match m = pci_addr_match(&rt, &os);
        if (m > best_m)
            best = j, best_m = m;
    }
    if (best < 0)
        snprintf(why, why_len, "no AMD GPU at PCI %s in sysfs (%lld AMD GPU(s) there)", pci,
                 (long long)cnt->i);
    return best;
}

/* runtime device i at p->pci: its gpu.<j> and the sysfs vendor at that address;
 * returns j or -1 (then an entry in *unpaired) */
static int pair_device(struct factset *fs, const struct gpu_backend *b, int i,
                       const struct gpu_props *p, struct strlist *unpaired)
{
    char n[FACT_NAME_MAX], why[200];
    int j = sysfs_gpu_at(fs, p->pci, why, sizeof(why));
    snprintf(n, sizeof(n), "runtime.dev.%d.gpu", i);
    if (j >= 0)
        fact_set_int(fs, n, j, "PCI address");
    else
        fact_set_unknown(fs, n, "PCI address", "%s", why);
    uint64_t vendor = 0;
    int vrc = p->pci[0] ? rootfs_readf_u64(&vendor, "/sys/bus/pci/devices/%s/vendor", p->pci) : -1;
    snprintf(n, sizeof(n), "runtime.dev.%d.pci_vendor", i);
    if (vrc == 0) {
        char v[8];
        snprintf(v, sizeof(v), "0x%04x", (unsigned)vendor & 0xffff);
        fact_set_str(fs, n, v, "/sys/bus/pci/devices");
    } else {
        fact_set_unknown(fs, n, "/sys/bus/pci/devices", "%s",
                         p->pci[0] ? "no such PCI device in sysfs" : "no PCI address");
    }
    /* an AMD runtime device must be one of probe_gpu's; a CUDA one must at least be
     * a PCI device the OS has (its GPUs are not gpu.<j>: those are AMD's) */
    /* the CPU backend's test devices pair like HIP's (backend.h) */
    int is_hip = strcmp(b->name, "cuda") != 0;
    if (is_hip ? j < 0 : vrc != 0)
        strlist_add_owned(unpaired,
                          xasprintf("%s device %d (%s) at %s: %s",
                                    is_hip ? (strcmp(b->name, "cpu") ? "HIP" : "CPU test") : "CUDA",
                                    i, p->name, p->pci[0] ? p->pci : "(no PCI address)",
                                    is_hip ? why : "no such PCI device in sysfs"));
    return is_hip ? j : -1;
}

/* sysfs GPUs (gpu.<j>) that no runtime device paired with */
static void not_visible(struct factset *fs, const unsigned char *paired, int ngpu,
                        struct strlist *out)
{
    static const char *const vars[] = {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
                                       "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"};
    struct strbuf set = STRBUF_INIT;
    for (size_t k = 0; k < ARRAY_SIZE(vars); k++) {
        const char *v = getenv(vars[k]);
        if (v)
            strbuf_addf(&set, "%s%s=%s", set.len ? ", " : "", vars[k], v);
    }
    for (int j = 0; j < ngpu; j++) {
        if (paired[j])
            continue;
        char n[FACT_NAME_MAX];
        const struct fact *pci = fact_get(fs, fact_gpu_name(n, j, "pci"));
        const struct fact *gfx = fact_get(fs, fact_gpu_name(n, j, "gfx"));
        strlist_add_owned(out, xasprintf("gpu.%d (%s, %s): not a HIP device (%s)", j,
                                         pci && pci->type == FACT_STR ? pci->s : "?",
                                         gfx && gfx->type == FACT_STR ? gfx->s : "gfx unknown",
                                         set.len ? set.buf
                                                 : "no visibility variable set: the runtime "
                                                   "does not support or cannot open it"));
    }
    strbuf_release(&set);
}

/* HIP's view of a device against probe_gpu's KFD facts gpu.<i>.* of the GPU at
 * the same PCI address */
static void cross_check(struct factset *fs, int i, const struct gpu_props *p,
                        struct strlist *mismatch, int *compared)
{
    char n[FACT_NAME_MAX];
    const struct fact *gfx = fact_get(fs, fact_gpu_name(n, i, "gfx"));
    if (gfx && gfx->type == FACT_STR) {
        (*compared)++;
        if (strcmp(gfx->s, p->target) != 0) {
            char hip[300];
            snprintf(hip, sizeof(hip), "%s", p->target);
            if (!p->target[0])
                snprintf(hip, sizeof(hip), "no ISA name (%s)", p->arch_why);
            strlist_add_owned(mismatch, xasprintf("GPU %d at %s: KFD says %s, HIP says %s", i,
                                                  p->pci, gfx->s, hip));
        }
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
    char tpci[GPU_CPU_MAX_DEVICES][32], bad[160];
    int test_devices = gpu_cpu_test_devices(tpci, GPU_CPU_MAX_DEVICES, bad, sizeof(bad));
    /* a fixture or snapshot: no runtime is loaded (unless the CPU backend's
     * test devices stand in for the fixture's GPUs: backend.h) */
    if (!rootfs_is_live() && test_devices <= 0)
        return 0;
    fact_set_bool(fs, "runtime.kfd_present", rootfs_exists("/dev/kfd"), "/dev/kfd");
    isolate_flush(fs);
    /* loading HIP may crash in a broken install: the facts above survive */
    struct gpu_backend *hip = gpu_backend_open(GPU_BACKEND_HIP, &why_hip);
    one_runtime(fs, "hip", hip, why_hip);
    lib_set(fs, hip);
    isolate_flush(fs);
    struct gpu_backend *cuda = gpu_backend_open(GPU_BACKEND_CUDA, &why_cuda);
    one_runtime(fs, "cuda", cuda, why_cuda);
    isolate_flush(fs);

    int nh = 0, nc = 0;
    if (hip)
        hip->device_count(hip, &nh);
    if (cuda)
        cuda->device_count(cuda, &nc);
    struct gpu_backend *cpu = test_devices > 0 ? gpu_backend_cpu_open() : NULL;
    struct gpu_backend *b = cpu ? cpu : nh > 0 ? hip : nc > 0 ? cuda : hip ? hip : cuda;
    int n = cpu ? test_devices : nh > 0 ? nh : nc;
    fact_set_str(fs, "runtime.backend", b ? b->name : "none", b ? b->lib : "dlopen");
    fact_set_int(fs, "runtime.device_count", n, b ? b->lib : "dlopen");
    if (b) {
        char v[32];
        version_text(b, v, sizeof(v));
        fact_set_str(fs, "runtime.version", v, b->lib);
    }
    struct strlist mismatch = STRLIST_INIT, names = STRLIST_INIT, unpaired = STRLIST_INIT;
    struct strlist hidden = STRLIST_INIT;
    int compared = 0;
    const struct fact *cnt = fact_get(fs, "gpu.count");
    int ngpu = cnt && cnt->type == FACT_INT && cnt->i > 0 && cnt->i < 4096 ? (int)cnt->i : 0;
    unsigned char *paired = xcalloc((size_t)ngpu + 1, 1);
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
        if (p.arch[0]) {
            DEV_STR("arch", p.arch);
            DEV_STR("target", p.target);
        } else {
            snprintf(nm, sizeof(nm), "runtime.dev.%d.arch", i);
            fact_set_unknown(fs, nm, b->lib, "%s", p.arch_why);
            snprintf(nm, sizeof(nm), "runtime.dev.%d.target", i);
            fact_set_unknown(fs, nm, b->lib, "%s", p.arch_why);
        }
        DEV_STR("pci", p.pci);
        DEV_INT("vram_bytes", (int64_t)p.total_mem);
        DEV_INT("cu_count", p.cu_count);
        DEV_INT("managed", p.managed);
        DEV_INT("concurrent_managed", p.concurrent_managed);
        DEV_INT("pageable_access", p.pageable_access);
        /* the inputs of the derived peaks (probe_peaks.c): unknown, never 0 */
        static const char *const clk[] = {"clock_khz", "mem_clock_khz", "mem_bus_width"};
        const int clv[] = {p.clock_khz, p.mem_clock_khz, p.mem_bus_width};
        for (size_t k = 0; k < ARRAY_SIZE(clk); k++) {
            snprintf(nm, sizeof(nm), "runtime.dev.%d.%s", i, clk[k]);
            if (clv[k] > 0)
                fact_set_int(fs, nm, clv[k], b->lib);
            else
                fact_set_unknown(fs, nm, b->lib, "the %s runtime does not report it", b->name);
        }
        strlist_add_owned(&names, xasprintf("%s (%s)", p.name, p.arch[0] ? p.arch : "ISA unknown"));
        int j = pair_device(fs, b, i, &p, &unpaired);
        if (j >= 0) {
            paired[j] = 1;
            cross_check(fs, j, &p, &mismatch, &compared);
        }
    }
    /* only HIP lists AMD GPUs: under CUDA every gpu.<j> is naturally absent */
    if (b && strcmp(b->name, "cuda") != 0 && n > 0)
        not_visible(fs, paired, ngpu, &hidden);
    free(paired);
    fact_set_list(fs, "runtime.unpaired", &unpaired, "PCI address");
    fact_set_list(fs, "runtime.not_visible", &hidden, "PCI address");
    strlist_release(&unpaired);
    strlist_release(&hidden);
    fact_set_list(fs, "runtime.devices", &names, b ? b->lib : "dlopen");
    fact_set_bool(fs, "runtime.kfd_compared", compared > 0, "gpu.<i>.* facts");
    fact_set_list(fs, "runtime.kfd_mismatch", &mismatch, "gpu.<i>.* facts");
    strlist_release(&mismatch);
    strlist_release(&names);
    free(why_hip);
    free(why_cuda);
    gpu_backend_close(hip);
    gpu_backend_close(cuda);
    gpu_backend_close(cpu);
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
            gpu_backend_close(b);
            strlist_release(&targets);
            return 0;
        }
        /* gpu_probe_begin refused a device whose target it cannot tell */
        strlist_add(&targets, gpu_probe_target(&p));
        fact_set_str(fs, "kernels.device_pci", p.pci, b->lib);
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
    gpu_backend_close(b);
    return 0;
}
