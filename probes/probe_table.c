/* probe_table.c - the static table of probes; its order is the run order.
 * Later probes may read facts of earlier ones (pcie reads gpu.* for the
 * PCI addresses), never the other way round. */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../src/gpu/backend.h"
#include "../src/core/tmpdirs.h"
#include "../src/gpu/isolate.h"
#include "fact_catalog.h"
#include "probe_each_gpu.h"

int probe_host_run(struct probe_ctx *ctx);
int probe_env_run(struct probe_ctx *ctx);
int probe_driver_run(struct probe_ctx *ctx);
int probe_kernel_log_run(struct probe_ctx *ctx);
int probe_kfd_run(struct probe_ctx *ctx);
int probe_user_run(struct probe_ctx *ctx);
int probe_container_run(struct probe_ctx *ctx);
int probe_gpu_run(struct probe_ctx *ctx);
int probe_pcie_run(struct probe_ctx *ctx);
int probe_iommu_run(struct probe_ctx *ctx);
int probe_kernel_run(struct probe_ctx *ctx);
int probe_driver_cause_run(struct probe_ctx *ctx);
int probe_tuning_run(struct probe_ctx *ctx);
int probe_rocm_run(struct probe_ctx *ctx);
int probe_python_run(struct probe_ctx *ctx);
int probe_rocm_libs_run(struct probe_ctx *ctx);
int probe_gpu_runtime_run(struct probe_ctx *ctx);
int probe_peaks_run(struct probe_ctx *ctx);
int probe_kernels_run(struct probe_ctx *ctx);
int probe_sync_run(struct probe_ctx *ctx);
int probe_bandwidth_run(struct probe_ctx *ctx);
int probe_mem_bandwidth_run(struct probe_ctx *ctx);
int probe_hmm_run(struct probe_ctx *ctx);
int probe_mem_release_run(struct probe_ctx *ctx);
int probe_target_binaries_run(struct probe_ctx *ctx);
int probe_vulkan_run(struct probe_ctx *ctx);
int probe_fp_run(struct probe_ctx *ctx);
int probe_fp_sampling_run(struct probe_ctx *ctx);
int probe_gemm_peak_run(struct probe_ctx *ctx);
int probe_vla_run(struct probe_ctx *ctx);
int probe_torch_run(struct probe_ctx *ctx);
int probe_memtest_run(struct probe_ctx *ctx);
int probe_p2p_run(struct probe_ctx *ctx);
int probe_virt_run(struct probe_ctx *ctx);
int probe_link_start_run(struct probe_ctx *ctx);
int probe_link_end_run(struct probe_ctx *ctx);

const struct probe probe_table[] = {
    {"host", LEVEL_QUICK, PROBE_HOST, probe_host_run, "host name, OS release and kernel release"},
    {"env", LEVEL_QUICK, PROBE_HOST, probe_env_run,
     "GPU-related environment variables (whitelisted)"},
    {"driver", LEVEL_QUICK, PROBE_HOST, probe_driver_run, "amdgpu module state and version"},
    {"kernel_log", LEVEL_QUICK, PROBE_HOST, probe_kernel_log_run,
     "known signatures in the kernel log (atomics, page faults and their process, KFD rejects, "
     "module keys, firmware, GPU resets, ring timeouts, MES/KIQ, BAR) with counts and last time"},
    {"kfd", LEVEL_QUICK, PROBE_HOST, probe_kfd_run,
     "/dev/kfd and render nodes: presence, owner, open test"},
    {"user", LEVEL_QUICK, PROBE_HOST, probe_user_run,
     "the process's groups and the group database"},
    {"container", LEVEL_QUICK, PROBE_HOST, probe_container_run, "container and WSL detection"},
    {"gpu", LEVEL_QUICK, PROBE_HOST, probe_gpu_run,
     "AMD GPUs from PCI, KFD topology and DRM sysfs (gfx, VRAM, BAR, clocks, thermal, RAS, "
     "firmware versions)"},
    {"pcie", LEVEL_QUICK, PROBE_HOST, probe_pcie_run,
     "PCIe path from each GPU to the root port: link per hop, AtomicOp bits (config space), AER "
     "counters, replays, ASPM states"},
    {"iommu", LEVEL_QUICK, PROBE_HOST, probe_iommu_run, "IOMMU presence and the GPU's domain type"},
    {"virt", LEVEL_QUICK, PROBE_HOST, probe_virt_run,
     "VM guest (hypervisor flag, DMI), SR-IOV functions, the GPU's emulated root port"},
    {"kernel", LEVEL_QUICK, PROBE_HOST, probe_kernel_run,
     "kernel command line, amdgpu parameters in force, CONFIG_HSA_AMD_SVM and CONFIG_DRM_AMDGPU"},
    /* after host, driver, kernel_log, gpu and kernel: reads their facts */
    {"driver_cause", LEVEL_QUICK, PROBE_HOST, probe_driver_cause_run,
     "why amdgpu would not load or bind: command line, modprobe.d, DKMS, module tree, Secure Boot, "
     "firmware"},
    /* after kernel: reads kernel.cmdline */
    {"tuning", LEVEL_QUICK, PROBE_HOST, probe_tuning_run,
     "host settings: NUMA balancing, memlock limit, pci=realloc, transparent hugepages, CPU "
     "frequency governor"},
    {"rocm", LEVEL_QUICK, PROBE_HOST, probe_rocm_run,
     "ROCm installs under /opt/rocm* and distribution packages"},
    {"python", LEVEL_QUICK, PROBE_HOST, probe_python_run,
     "the Python environment: torch build and wheel tags, venv/conda, nvidia-* packages, "
     "requirements file"},
    /* after python: reads python.torch_dir */
    {"rocm_libs", LEVEL_QUICK, PROBE_HOST, probe_rocm_libs_run,
     "the ROCm libraries that will be loaded (system and PyTorch's torch/lib) and where their "
     "dependencies resolve (RUNPATH, LD_LIBRARY_PATH, ld.so.cache)"},
    /* the links before the GPU probes load them (probe_link_watch.c) */
    {"link_start", LEVEL_STANDARD, PROBE_HOST, probe_link_start_run,
     "each GPU's PCIe link speed and width before the GPU probes"},
    /* GPU probes (needs_gpu = 1): each in its own child with a watchdog */
    {"gpu_runtime", LEVEL_STANDARD, PROBE_GPU_ONCE, probe_gpu_runtime_run,
     "GPU runtimes (HIP, CUDA): load, version, devices; HIP's view against KFD"},
    /* after gpu, pcie and gpu_runtime (at the standard level): reads their
     * facts; before the measuring probes, whose children read the peaks */
    {"peaks", LEVEL_QUICK, PROBE_HOST, probe_peaks_run,
     "peak matrix/vector rates, memory and PCIe payload bandwidth derived from the device's units, "
     "clocks and bus (checks.yaml peaks table)"},
    {"kernels", LEVEL_STANDARD, PROBE_GPU_ONCE, probe_kernels_run,
     "run-time compilation of the built-in kernels for the device's target (cached)"},
    {"sync", LEVEL_STANDARD, PROBE_GPU_EACH, probe_sync_run,
     "launch overhead, stream/device synchronise latency, event resolution, null-stream order"},
    {"bandwidth", LEVEL_STANDARD, PROBE_GPU_EACH, probe_bandwidth_run,
     "host<->device copy bandwidth (pinned, pageable) vs the PCIe link; device triad"},
    {"mem_bandwidth", LEVEL_STANDARD, PROBE_GPU_EACH, probe_mem_bandwidth_run,
     "device memory bandwidth: BabelStream copy/mul/add/triad/dot over three 1 GiB arrays, "
     "verified, against the derived peak"},
    {"hmm", LEVEL_STANDARD, PROBE_GPU_EACH, probe_hmm_run,
     "managed memory: attributes, migration measured, prefetch honoured"},
    {"mem_release", LEVEL_STANDARD, PROBE_GPU_EACH, probe_mem_release_run,
     "VRAM used returns to its baseline after allocate/free cycles"},
    /* after gpu, python and the GPU runtime probe: reads gpu.<i>.isa/gfx, python.torch_dir */
    {"target_binaries", LEVEL_STANDARD, PROBE_HOST, probe_target_binaries_run,
     "gfx targets in the PyTorch and ROCm math libraries (.hip_fatbin bundles, Tensile files)"},
    {"vulkan", LEVEL_STANDARD, PROBE_GPU_ONCE, probe_vulkan_run,
     "Vulkan loader, headless instance and physical devices (RADV/AMDVLK for the GPU)"},
    {"fp", LEVEL_STANDARD, PROBE_GPU_EACH, probe_fp_run,
     "fp16/bf16 GEMM vs fp64, large-logit attention, overflow, denormals, NaN, RNE, determinism"},
    {"fp_sampling", LEVEL_STANDARD, PROBE_GPU_EACH, probe_fp_sampling_run,
     "inverse-CDF sampling on the device at batch 1/8/64, chi-square against the probabilities"},
    {"gemm_peak", LEVEL_STANDARD, PROBE_GPU_EACH, probe_gemm_peak_run,
     "fp16/bf16/fp32 GEMM TFLOP/s through the BLAS used, with a spot check against fp64"},
    {"memtest", LEVEL_STANDARD, PROBE_GPU_EACH, probe_memtest_run,
     "VRAM pattern test over a fraction of free VRAM (walking ones, address, random, moving "
     "inversions)"},
    /* after the per-GPU probes: reads gpu.measured */
    {"p2p", LEVEL_STANDARD, PROBE_GPU_PAIRS, probe_p2p_run,
     "peer-to-peer between the selected GPUs: access, copy bandwidth each way, xGMI/PCIe link"},
    {"link_end", LEVEL_STANDARD, PROBE_HOST, probe_link_end_run,
     "each GPU's PCIe link speed and width after the GPU probes (retrained or lost lanes?)"},
    {"vla", LEVEL_FULL, PROBE_GPU_ONCE, probe_vla_run,
     "the reference VLA pass (pi0 bf16 on a GPU, tiny on the CPU): latency, memory, numerics"},
    /* after python and gpu: reads python.executable/torch_present, gpu.<i> PCI addresses */
    {"torch", LEVEL_FULL, PROBE_HOST, probe_torch_run,
     "the user's PyTorch on the preset's shapes (isolated child, watchdog): versions, device, "
     "SDPA/BLAS kernels that ran, torch.compile, eager/graph/compiled latency, memory, numerics"},
};

const size_t probe_count = ARRAY_SIZE(probe_table);

/* the probes whose facts a probe reads (fact_get in its sources), each earlier
 * in the table: `check --only` runs them too (tests/probe_needs.py checks the
 * list against the sources). A needed probe above the run's level does not
 * run; one above quick that runs brings every quick probe (probes_select). */
static const struct {
    const char *probe, *needs; /* needs: comma-separated probe names */
} probe_needs[] = {
    {"driver", "host"},
    {"user", "kfd,env"}, /* SUDO_USER: whose groups to judge */
    {"container", "host"},
    {"gpu", "env"},
    {"pcie", "gpu"},
    {"iommu", "gpu"},
    {"virt", "gpu"},
    {"link_start", "gpu"},
    {"link_end", "gpu"},
    {"kernel", "host,driver"},
    {"driver_cause", "host,kernel_log,gpu,kernel"},
    {"tuning", "kernel"},
    {"rocm", "env,driver"},
    {"python", "env,rocm,gpu"},       /* the wheel choice reads the GPUs' gfx */
    {"rocm_libs", "env,rocm,python"}, /* rocm.user_space reads rocm.version */
    {"peaks", "gpu,pcie,gpu_runtime"},
    {"torch", "python,gpu"},
};

/* the probes a probe reads facts of, "a,b" (each earlier in the table), or NULL */
static const char *probe_needs_of(const char *probe)
{
    for (size_t i = 0; i < ARRAY_SIZE(probe_needs); i++)
        if (strcmp(probe_needs[i].probe, probe) == 0)
            return probe_needs[i].needs;
    return NULL;
}

const struct probe *probe_find(const char *name)
{
    for (size_t i = 0; i < probe_count; i++)
        if (strcmp(probe_table[i].name, name) == 0)
            return &probe_table[i];
    return NULL;
}

static void select_probe(struct strlist *out, const char *name)
{
    if (strlist_has(out, name) || !probe_find(name))
        return;
    strlist_add(out, name);
    struct strlist needs = STRLIST_INIT;
    const char *n = probe_needs_of(name);
    if (n)
        strlist_split(&needs, n, ",");
    for (size_t i = 0; i < needs.n; i++)
        select_probe(out, needs.v[i]);
    strlist_release(&needs);
}

/* the probe producing a fact named as a check writes it: a runner fact
 * probe.<p>.* / gpu.<i>.probe.<p>.* is p's; in a per-GPU check gpu.x may
 * stand for gpu.<i>.x (checks_run.c), so both are asked. NULL: none */
static const char *fact_producer(const char *fact, int per_gpu, char *buf)
{
    const struct fact_decl *d;
    const char *who = NULL, *rest = fact;
    char gname[FACT_NAME_MAX];
    if (str_starts(rest, "gpu.") && strstr(rest, ".probe."))
        rest = strstr(rest, ".probe.") + 1;
    if (str_starts(rest, "probe.")) {
        size_t n = strcspn(rest + 6, ".");
        snprintf(buf, FACT_NAME_MAX, "%.*s", (int)n, rest + 6);
        return probe_find(buf) ? buf : NULL;
    }
    if (per_gpu && str_starts(fact, "gpu.") &&
        fact_catalog_find(fact_gpu_name(gname, 0, fact + 4), &d, &who) == 0 && probe_find(who))
        return who;
    if (fact_catalog_find(fact, &d, &who) == 0 && probe_find(who))
        return who;
    return NULL;
}

void probes_select(const struct strlist *facts, int per_gpu, struct strlist *out)
{
    char buf[FACT_NAME_MAX];
    for (size_t i = 0; i < facts->n; i++) {
        const char *p = fact_producer(facts->v[i], per_gpu, buf);
        /* a runner fact of no single probe (gpu.measured): the GPU probes' */
        select_probe(out, p ? p : "gpu_runtime");
    }
}

void probes_select_finish(struct strlist *out, enum level level)
{
    /* every report names the host (report_meta) */
    select_probe(out, "host");
    /* the GPU children read host facts widely (peaks, PCI addresses, the
     * HIP library PyTorch loads) and measure for seconds: all quick ones */
    int gpu = 0;
    for (size_t i = 0; i < out->n; i++) {
        enum level l = probe_find(out->v[i])->level;
        gpu |= l > LEVEL_QUICK && l <= level;
    }
    for (size_t i = 0; gpu && i < probe_count; i++)
        if (probe_table[i].level == LEVEL_QUICK)
            select_probe(out, probe_table[i].name);
}

/* a GPU probe's budget: the largest `timeout:` of the checks that name it
 * with `probe:` (checks.yaml), else the default */
static double probe_budget_s(const struct checkset *cs, const char *probe)
{
    double b = 0;
    for (size_t i = 0; cs && i < cs->n; i++) {
        const struct check *c = &cs->v[i];
        if (c->probe && strcmp(c->probe, probe) == 0 && c->timeout_s > b)
            b = c->timeout_s;
    }
    return b > 0 ? b : ISOLATE_DEFAULT_BUDGET_S;
}

/* the GPU children load the ROCm that PyTorch loads: its wheel's torch/lib
 * when rocm.torch_lib_set (probe_rocm_libs.c, the loader's own search from
 * torch/lib) says so; only the directory is stored here, nothing is loaded
 * in the parent */
void probes_pick_hip_dir(const struct factset *fs)
{
    const struct fact *f = fact_get(fs, "rocm.torch_lib_set");
    if (rootfs_is_live() && f && f->type == FACT_STR && str_starts(f->s, "wheel:"))
        gpu_backend_hip_use_dir(f->s + strlen("wheel:"));
    else
        gpu_backend_hip_use_dir(NULL);
}

/* the gpu_runtime probe's devices, for the per-GPU probes: run it first if the
 * checks selected did not ask for it */
static int resolve_gpus(struct probe_ctx *ctx, struct gpu_select *sel)
{
    char why[300];
    if (sel->resolved)
        return 0;
    if (!fact_get(ctx->facts, "probe.gpu_runtime.status"))
        for (size_t i = 0; i < probe_count; i++)
            if (strcmp(probe_table[i].name, "gpu_runtime") == 0) {
                probes_pick_hip_dir(ctx->facts);
                isolate_run(&probe_table[i], ctx,
                            probe_budget_s(probe_ctx_checks(ctx), "gpu_runtime"));
            }
    if (gpu_select_resolve(ctx->facts, sel, why, sizeof(why)))
        return error("%s", why);
    return 0;
}

int probes_run_all(struct probe_ctx *ctx)
{
    struct gpu_select sel;
    char why[300];
    memset(&sel, 0, sizeof(sel));
    if (ctx->opts && ctx->opts->gpus && gpu_select_parse(ctx->opts->gpus, &sel, why, sizeof(why)))
        return error("%s", why);
    for (size_t i = 0; i < probe_count; i++) {
        const struct probe *p = &probe_table[i];
        if (p->level > ctx->level)
            continue;
        /* with --only: the probes the selected checks read (probes_select) */
        if (ctx->opts && ctx->opts->only_probes && !strlist_has(ctx->opts->only_probes, p->name))
            continue;
        tmpdirs_set_step(p->name);
        if (p->needs_gpu)
            probes_pick_hip_dir(ctx->facts);
        if (p->needs_gpu == PROBE_GPU_PAIRS && resolve_gpus(ctx, &sel))
            return -1;
        if (p->needs_gpu == PROBE_GPU_EACH) {
            if (resolve_gpus(ctx, &sel))
                return -1;
            probe_run_each_gpu(p, ctx, probe_budget_s(probe_ctx_checks(ctx), p->name), &sel);
            continue;
        }
        if (p->needs_gpu) {
            /* never in this process: a GPU runtime stays out of the parent */
            isolate_run(p, ctx, probe_budget_s(probe_ctx_checks(ctx), p->name));
            continue;
        }
        char name[FACT_NAME_MAX];
        double t0 = util_mono_s();
        int rc = p->run(ctx);
        /* its wall time, as the isolated ones record theirs: -v's slowest */
        snprintf(name, sizeof(name), "probe.%s.wall_s", p->name);
        fact_set_float(ctx->facts, name, util_mono_s() - t0, "probe table");
        snprintf(name, sizeof(name), "probe.%s.status", p->name);
        fact_set_str(ctx->facts, name, rc < 0 ? "error" : "ok", "probe table");
        if (rc < 0) {
            snprintf(name, sizeof(name), "probe.%s.message", p->name);
            fact_set_str(ctx->facts, name, strerror(-rc), "probe table");
        }
    }
    tmpdirs_set_step(NULL);
    return 0;
}

const char *probe_gpu_pci(const struct factset *fs, int gpu, char buf[FACT_NAME_MAX])
{
    const struct fact *f = fact_get(fs, fact_gpu_name(buf, gpu, "pci"));
    return f && f->type == FACT_STR ? f->s : NULL;
}

int probe_query_or_tree(const char *name, rootfs_producer producer, char **text, const char **src,
                        const char *tree_src)
{
    int rc = rootfs_query(name, producer, text);
    if (rc == -ENOENT && !rootfs_is_live()) {
        struct strbuf sb = STRBUF_INIT;
        producer(&sb);
        strbuf_add(&sb, "", 0);
        *text = strbuf_detach(&sb);
        *src = tree_src;
        rc = 0;
    }
    return rc;
}
