/* probe_table.c - the static table of probes; its order is the run order.
 * Later probes may read facts of earlier ones (pcie reads gpu.* for the
 * PCI addresses), never the other way round. */
#include "probe.h"

#include <stdio.h>
#include <string.h>

#include "../src/gpu/isolate.h"

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
int probe_gpu_runtime_run(struct probe_ctx *ctx);
int probe_kernels_run(struct probe_ctx *ctx);
int probe_sync_run(struct probe_ctx *ctx);
int probe_bandwidth_run(struct probe_ctx *ctx);
int probe_hmm_run(struct probe_ctx *ctx);
int probe_mem_release_run(struct probe_ctx *ctx);
int probe_target_binaries_run(struct probe_ctx *ctx);
int probe_vulkan_run(struct probe_ctx *ctx);
int probe_fp_run(struct probe_ctx *ctx);
int probe_fp_sampling_run(struct probe_ctx *ctx);
int probe_gemm_peak_run(struct probe_ctx *ctx);
int probe_vla_run(struct probe_ctx *ctx);

const struct probe probe_table[] = {
    {"host", LEVEL_QUICK, 0, probe_host_run, "host name, OS release and kernel release"},
    {"env", LEVEL_QUICK, 0, probe_env_run, "GPU-related environment variables (whitelisted)"},
    {"driver", LEVEL_QUICK, 0, probe_driver_run, "amdgpu module state and version"},
    {"kernel_log", LEVEL_QUICK, 0, probe_kernel_log_run,
     "known signatures in the kernel log (atomics, page faults and their process, KFD rejects, "
     "module keys, firmware, GPU resets, ring timeouts, MES/KIQ, BAR) with counts and last time"},
    {"kfd", LEVEL_QUICK, 0, probe_kfd_run, "/dev/kfd and render nodes: presence, owner, open test"},
    {"user", LEVEL_QUICK, 0, probe_user_run, "the process's groups and the group database"},
    {"container", LEVEL_QUICK, 0, probe_container_run, "container and WSL detection"},
    {"gpu", LEVEL_QUICK, 0, probe_gpu_run,
     "AMD GPUs from PCI, KFD topology and DRM sysfs (gfx, VRAM, BAR, clocks, thermal, RAS, "
     "firmware versions)"},
    {"pcie", LEVEL_QUICK, 0, probe_pcie_run,
     "PCIe path from each GPU to the root port: link per hop, AtomicOp bits (config space), AER "
     "counters, replays, ASPM states"},
    {"iommu", LEVEL_QUICK, 0, probe_iommu_run, "IOMMU presence and the GPU's domain type"},
    {"kernel", LEVEL_QUICK, 0, probe_kernel_run,
     "kernel command line, amdgpu parameters in force, CONFIG_HSA_AMD_SVM and CONFIG_DRM_AMDGPU"},
    /* after host, driver, kernel_log, gpu and kernel: reads their facts */
    {"driver_cause", LEVEL_QUICK, 0, probe_driver_cause_run,
     "why amdgpu would not load or bind: command line, modprobe.d, DKMS, module tree, Secure Boot, "
     "firmware"},
    /* after kernel: reads kernel.cmdline */
    {"tuning", LEVEL_QUICK, 0, probe_tuning_run,
     "host settings: NUMA balancing, memlock limit, pci=realloc, transparent hugepages, CPU "
     "frequency governor"},
    {"rocm", LEVEL_QUICK, 0, probe_rocm_run,
     "ROCm installs under /opt/rocm* and distribution packages"},
    {"python", LEVEL_QUICK, 0, probe_python_run,
     "the Python environment: torch build and wheel tags, venv/conda, nvidia-* packages, "
     "requirements file"},
    /* GPU probes (needs_gpu = 1): each in its own child with a watchdog */
    {"gpu_runtime", LEVEL_STANDARD, 1, probe_gpu_runtime_run,
     "GPU runtimes (HIP, CUDA): load, version, devices; HIP's view against KFD"},
    {"kernels", LEVEL_STANDARD, 1, probe_kernels_run,
     "run-time compilation of the built-in kernels for the device's target (cached)"},
    {"sync", LEVEL_STANDARD, 1, probe_sync_run,
     "launch overhead, stream/device synchronise latency, event resolution, null-stream order"},
    {"bandwidth", LEVEL_STANDARD, 1, probe_bandwidth_run,
     "host<->device copy bandwidth (pinned, pageable) vs the PCIe link; device triad"},
    {"hmm", LEVEL_STANDARD, 1, probe_hmm_run,
     "managed memory: attributes, migration measured, prefetch honoured"},
    {"mem_release", LEVEL_STANDARD, 1, probe_mem_release_run,
     "VRAM used returns to its baseline after allocate/free cycles"},
    /* after gpu, python and the GPU runtime probe: reads gpu.<i>.isa/gfx, python.torch_dir */
    {"target_binaries", LEVEL_STANDARD, 0, probe_target_binaries_run,
     "gfx targets in the PyTorch and ROCm math libraries (.hip_fatbin bundles, Tensile files)"},
    {"vulkan", LEVEL_STANDARD, 1, probe_vulkan_run,
     "Vulkan loader, headless instance and physical devices (RADV/AMDVLK for the GPU)"},
    {"fp", LEVEL_STANDARD, 1, probe_fp_run,
     "fp16/bf16 GEMM vs fp64, large-logit attention, overflow, denormals, NaN, RNE, determinism"},
    {"fp_sampling", LEVEL_STANDARD, 1, probe_fp_sampling_run,
     "inverse-CDF sampling on the device at batch 1/8/64, chi-square against the probabilities"},
    {"gemm_peak", LEVEL_STANDARD, 1, probe_gemm_peak_run,
     "fp16/bf16/fp32 GEMM TFLOP/s through the BLAS used, with a spot check against fp64"},
    {"vla", LEVEL_FULL, 1, probe_vla_run,
     "the reference VLA pass (pi0 bf16 on a GPU, tiny on the CPU): latency, memory, numerics"},
};

const size_t probe_count = ARRAY_SIZE(probe_table);

static const struct checkset *budget_checks;

void probes_set_checks(const struct checkset *cs)
{
    budget_checks = cs;
}

/* a GPU probe's budget: the largest `timeout:` of the checks that name it
 * with `probe:` (checks.yaml), else the default */
static double probe_budget_s(const char *probe)
{
    double b = 0;
    for (size_t i = 0; budget_checks && i < budget_checks->n; i++) {
        const struct check *c = &budget_checks->v[i];
        if (c->probe && strcmp(c->probe, probe) == 0 && c->timeout_s > b)
            b = c->timeout_s;
    }
    return b > 0 ? b : ISOLATE_DEFAULT_BUDGET_S;
}

void probes_run_all(struct probe_ctx *ctx)
{
    for (size_t i = 0; i < probe_count; i++) {
        const struct probe *p = &probe_table[i];
        if (p->level > ctx->level)
            continue;
        /* quick probes are cheap and feed many checks; the slower ones run
         * only for the checks --only selected */
        if (p->level > LEVEL_QUICK && ctx->opts && ctx->opts->only_probes &&
            !strlist_has(ctx->opts->only_probes, p->name))
            continue;
        if (p->needs_gpu) {
            /* never in this process: a GPU runtime stays out of the parent */
            isolate_run(p, ctx, probe_budget_s(p->name));
            continue;
        }
        char name[FACT_NAME_MAX];
        int rc = p->run(ctx);
        snprintf(name, sizeof(name), "probe.%s.status", p->name);
        fact_set_str(ctx->facts, name, rc < 0 ? "error" : "ok", "probe table");
        if (rc < 0) {
            snprintf(name, sizeof(name), "probe.%s.message", p->name);
            fact_set_str(ctx->facts, name, strerror(-rc), "probe table");
        }
    }
}

const char *probe_gpu_pci(const struct factset *fs, int gpu, char buf[FACT_NAME_MAX])
{
    const struct fact *f = fact_get(fs, fact_gpu_name(buf, gpu, "pci"));
    return f && f->type == FACT_STR ? f->s : NULL;
}
