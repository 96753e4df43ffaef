/* test_verdicts.c - no check may pass for the opposite of its title.
 *
 * For every check of the built-in checks.yaml this names at least one case
 * (a set of facts) where the title's claim is false, and asserts the status
 * it gets instead (fail, warn or skip - never pass). A check added without
 * such a case fails this test. Targeted cases follow the review's findings:
 * a CUDA torch on a machine without an AMD GPU, the CPU self-test of the VLA
 * workload against the competition budget, fix texts that must fit the
 * machine ({sudo}, the PyTorch wheel index, no "install ROCm" when HIP
 * loads) and counted nouns ("1 library"). */
#include "../../probes/fact_catalog.h"
#include "../../src/core/checks.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* "name=value; ..." with value: true/false, [a,b] (a list), ?reason
 * (unknown), an integer, a number with a '.', else a string */
static void facts_from(struct factset *fs, const char *spec)
{
    struct strlist items = STRLIST_INIT;
    strlist_split(&items, spec, ";");
    for (size_t i = 0; i < items.n; i++) {
        char *it = str_trim(items.v[i]);
        char *eq = strchr(it, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *name = str_trim(it);
        const char *v = eq + 1;
        char *end;
        long long n = strtoll(v, &end, 10);
        if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
            fact_set_bool(fs, name, v[0] == 't', "test");
        } else if (v[0] == '[') {
            struct strlist l = STRLIST_INIT;
            char *body = xstrndup(v + 1, strcspn(v + 1, "]"));
            strlist_split(&l, body, ",");
            fact_set_list(fs, name, &l, "test");
            strlist_release(&l);
            free(body);
        } else if (v[0] == '?') {
            fact_set_unknown(fs, name, "test", "%s", v + 1);
        } else if (v[0] == '\'') {
            /* 'TEXT: a string that would read as a number ("10.0") */
            fact_set_str(fs, name, v + 1, "test");
        } else if (*v && *end == '\0') {
            fact_set_int(fs, name, n, "test");
        } else if (*v && strtod(v, &end) != 0 && *end == '\0') {
            fact_set_float(fs, name, strtod(v, NULL), "test");
        } else {
            fact_set_str(fs, name, v, "test");
        }
    }
    strlist_release(&items);
}

struct vcase {
    const char *id;
    const char *facts;
    enum status want;
    const char *summary_has; /* NULL: not checked */
    const char *fix_has;
    const char *fix_lacks;
};

#define AMD "gpu.count=1; "
/* a GPU with RAS and no error in any family (gpu.ras), and 64 GiB of
 * VRAM with the default amdgpu.bad_page_threshold=-1: a threshold of
 * 64 GiB / 100 MiB = 655 pages, 80 % of it 524 (gpu.ras_pages) */
#define RAS_OK                                                                                     \
    "gpu.0.ras_present=true; gpu.0.ras_ue=0; gpu.0.ras_ce=0; gpu.0.ras_umc_ue=0; "                 \
    "gpu.0.ras_engine_ue=0; gpu.0.ras_link_ue=0; gpu.0.ras_ue_blocks=[]; gpu.0.ras_ce_blocks=[]; " \
    "gpu.0.ras_unreadable=[]; "
/* an MI300-class GPU in CPX/NPS1 seen as 8 KFD nodes (gpu.partition) */
/* one GPU of a healthy 8-GPU MI300X hive (gpu.xgmi) */
#define XGMI_OK                                                                                    \
    "gpu.0.xgmi_hive_id=77; gpu.0.xgmi_hive_gpus=8; gpu.0.xgmi_links=7; "                          \
    "gpu.0.xgmi_links_expected=7; gpu.0.xgmi_links_down=[]; gpu.0.xgmi_links_slow=[]; "            \
    "gpu.0.gfx=gfx942; gpu.0.xgmi_bw_min_mbs=50000; "
/* a KVM guest whose GPU hangs off QEMU's root port (pcie.atomics) */
#define GUEST "host.vm=true; host.hypervisor=KVM/QEMU; gpu.0.virtual_root_port=true; "
#define PART                                                                                       \
    "gpu.0.compute_partition=CPX; gpu.0.memory_partition=NPS1; gpu.0.kfd_partitions=8; "           \
    "gpu.0.compute_partitions_available=[SPX,DPX,QPX,CPX]; "
#define RAS_PAGES                                                                                  \
    "gpu.0.ras_present=true; gpu.0.ras_pages_failed=0; gpu.0.ras_page_threshold=655; "             \
    "gpu.0.ras_page_threshold_param=-1; "
#define VLA_GPU "vla.available=true; vla.error=; vla.backend=hip; vla.preset=pi0; "
/* every fast path taken (vla.backend_gaps): a case sets the ones it tests after */
#define VLA_GAPS_NONE                                                                              \
    "vla.backend_gaps=; vla.backend_gaps_n=0; vla.backend_gaps.flash_attention=; "                 \
    "vla.backend_gaps.lt_epilogues=; vla.backend_gaps.ptr_batch=; vla.backend_gaps.graph=; "
#define VLA_CPU                                                                                    \
    "vla.available=true; vla.error=; vla.backend=cpu; vla.preset=tiny; "                           \
    "vla.requested_preset=pi0; vla.latency.total_ms=58.5; vla.latency.vision_ms=0.6; "             \
    "vla.control_rate_hz=17.1; vla.runs=3; vla.nonfinite=false; vla.max_activation=7.5; "          \
    "vla.memory.deploy_bytes=?no GPU; vla.memory.total_bytes=?no GPU; vla.numerics.cosine=?no GPU"

/* the torch probe's answer of a ROCm stack within every bound; the doctor's
 * GPU pass took 20 ms */
#define TORCH_OK                                                                                   \
    "torch.available=true; torch.error=; torch.why=; torch.preset=pi0; torch.version=2.9.1; "      \
    "torch.device.name=MI300X; torch.device.arch=gfx942; torch.hip=6.4; "                          \
    "torch.latency.best_ms=22.0; "                                                                 \
    "torch.latency.best_mode=compiled; torch.latency.eager.total_ms=100.0; "                       \
    "vla.available=true; vla.backend=hip; vla.latency.total_ms=20.0; "                             \
    "torch.sdpa_backend=aotriton; "                                                                \
    "torch.blas=hipblaslt; torch.graph_error=; torch.cpu_copies=false; torch.compile.ok=true; "    \
    "torch.compile.error=; torch.tunableop=true; torch.numerics.cosine=0.99995; "                  \
    "torch.numerics.finite=true; "                                                                 \
    "torch.numerics.max_error_rel=0.02; torch.shared.cosine=1.0; "                                 \
    "torch.shared.max_error=0.000002; "

static const struct vcase cases[] = {
    /* ---- one case per check where its title is false ---- */
    /* a control loop whose CPU is shared with an SMT sibling */
    {"host.rt_ready", "host.isolated_cpus=2-3; host.nohz_full_cpus=2-3; host.smt_active=true",
     ST_WARN, "SMT is on", NULL, NULL},
    {"host.rt_ready", "host.isolated_cpus=; host.nohz_full_cpus=; host.smt_active=false", ST_WARN,
     "no CPU is kept free", NULL, NULL},
    /* paced calls that miss the period, and that nearly miss it */
    {"soak.paced",
     "soak.rate_hz=20; soak.period_ms=50.0; soak.p99_ms=51.0; soak.p50_ms=30.0; "
     "soak.deadline_misses=3; soak.calls=100",
     ST_FAIL, "exceeds the 50", NULL, NULL},
    {"soak.paced",
     "soak.rate_hz=20; soak.period_ms=50.0; soak.p99_ms=41.0; soak.p50_ms=30.0; "
     "soak.deadline_misses=0; soak.calls=100",
     ST_WARN, "more than 80%", NULL, NULL},
    /* wrong actions while latency looks fine */
    {"soak.outputs",
     "soak.outputs_compared=99; soak.outputs_differ_calls=0; soak.outputs_first_differ_call=0; "
     "soak.outputs_max_diff=0.0; soak.outputs_max_rel_diff=0.0; soak.outputs_nonfinite=4; "
     "soak.outputs_nonfinite_calls=1; soak.p99_ms=20.0",
     ST_FAIL, "non-finite", NULL, NULL},
    {"soak.outputs",
     "soak.outputs_compared=99; soak.outputs_differ_calls=5; soak.outputs_first_differ_call=40; "
     "soak.outputs_max_diff=0.3; soak.outputs_max_rel_diff=0.1; soak.outputs_nonfinite=0; "
     "soak.outputs_nonfinite_calls=0; soak.p99_ms=20.0",
     ST_FAIL, "other actions than the first", NULL, NULL},
    {"soak.outputs",
     "soak.outputs_compared=99; soak.outputs_differ_calls=5; soak.outputs_first_differ_call=40; "
     "soak.outputs_max_diff=0.00001; soak.outputs_max_rel_diff=0.000005; soak.outputs_nonfinite=0; "
     "soak.outputs_nonfinite_calls=0; soak.p99_ms=20.0",
     ST_WARN, "last bits", NULL, NULL},
    {"driver.loaded",
     AMD "driver.module_present=false; driver.loaded=false; kernel.dmesg.key_rejected=false",
     ST_FAIL, NULL, NULL, NULL},
    {"kfd.access",
     AMD "env.wsl=false; kfd.present=true; kernel.dmesg.kfd_unsupported=false; "
         "kfd.open_result=EACCES; kfd.group=render",
     ST_FAIL, "permission denied", NULL, NULL},
    {"user.groups",
     "kfd.present=true; dri.render_present=true; user.is_root=false; user.name=ana; "
     "user.in_device_groups=false; user.db_in_device_groups=false; host.sudo_present=true",
     ST_FAIL, NULL, "sudo usermod", NULL},
    {"env.container", AMD "env.wsl=false; env.container=docker; kfd.present=false", ST_FAIL, NULL,
     NULL, NULL},
    /* Apptainer under --containall (ROCm legacy-rocm-build issue 1798) */
    {"env.container", AMD "env.wsl=false; env.container=apptainer; kfd.present=false", ST_FAIL,
     "Apptainer", "--rocm", "docker run"},
    {"gpu.present", "gpu.count=0; gpu.other=[]", ST_FAIL, NULL, NULL, NULL},
    {"env.gpu_visibility",
     AMD "env.gpu_visibility=[CUDA_VISIBLE_DEVICES=-1]; env.gpu_visibility_none=true; "
         "env.gpu_visibility_entries=1",
     ST_FAIL, "selects no GPU", "unset ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES", NULL},
    {"env.debug_left", "env.debug_left=[AMD_SERIALIZE_KERNEL=3 (waits)]", ST_WARN,
     "AMD_SERIALIZE_KERNEL=3", NULL, NULL},
    /* Docker's default seccomp filter without CAP_SYS_NICE; unknown
     * seccomp inside a container cannot tell */
    {"env.container_run",
     AMD "kfd.present=true; env.container=docker; env.seccomp_filter=true; "
         "env.cap_sys_nice=false; container.docker_run=docker run --device=/dev/kfd "
         "--device=/dev/dri --group-add 109 --security-opt seccomp=unconfined",
     ST_WARN, "--group-add 109", "seccomp=unconfined", "sudo"},
    {"env.container_run",
     AMD "kfd.present=true; env.container=podman; env.seccomp_filter=?EACCES; "
         "env.cap_sys_nice=?EACCES; container.docker_run=docker run",
     ST_SKIP, NULL, NULL, NULL},
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx803; rocm.series=6.2; rocm.version=6.2.4; rocm.support_series=6.2", ST_FAIL,
     NULL, NULL, NULL},
    /* no system ROCm and torch loads no wheel's own: nothing to run on */
    {"rocm.install",
     AMD "rocm.installs=[]; rocm.install_count=0; rocm.version=?no ROCm install found; "
         "rocm.source=?no ROCm install found; rocm.torch_lib_set=?libamdhip64 not found; "
         "rocm.user_space=?no system ROCm and no PyTorch wheel's own",
     ST_FAIL, "no ROCm user space found", NULL, NULL},
    {"rocm.install",
     AMD "rocm.installs=[]; rocm.install_count=0; rocm.version=?no ROCm install found; "
         "rocm.source=?no ROCm install found; rocm.torch_lib_set=system:/usr/lib; "
         "rocm.user_space=?no system ROCm and no PyTorch wheel's own",
     ST_FAIL, "no ROCm user space found", NULL, NULL},
    /* a target the release leaves out: its family's override */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1031; rocm.series=5.4; rocm.version=5.4.3; rocm.support_series=5.4", ST_FAIL,
     "not on ROCm 5.4's Linux support list", "HSA_OVERRIDE_GFX_VERSION=10.3.0", NULL},
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1032; rocm.series=?no ROCm install found; "
         "rocm.version=?no ROCm install found; rocm.support_series=?no ROCm install found",
     ST_FAIL, "not on the newest ROCm's Linux support list", "HSA_OVERRIDE_GFX_VERSION=10.3.0",
     NULL},
    /* gfx1103 (Radeon 780M): left out up to 7.2, listed from 10.0 */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1103; rocm.series=7.2; rocm.version=7.2.4; rocm.support_series=7.2", ST_FAIL,
     "not on ROCm 7.2's Linux support list", "install ROCm 10.0 or newer", NULL},
    /* older than the data: its list is not known, so no verdict */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1032; rocm.series=4.5; rocm.version=4.5.2; "
         "rocm.support_series=?ROCm 4.5 is older than the support data (from 5.0)",
     ST_SKIP, "older than the support data", NULL, NULL},
    /* newer than the data, or a preview: named, never judged by an older row */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1151; rocm.series=10.2; rocm.version=10.2.0; rocm.newer_than_data=true; "
         "rocm.support_data=as of 2026-12 (newest ROCm 10.1); rocm.stream=production; "
         "rocm.support_series=?ROCm 10.2 is newer than the support data",
     ST_SKIP, "newer than the support data (as of 2026-12 (newest ROCm 10.1))", NULL, NULL},
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1151; rocm.series=7.11; rocm.version=7.11.0; rocm.newer_than_data=false; "
         "rocm.stream=preview; rocm.support_series=?ROCm 7.11 is a technology preview",
     ST_SKIP, "technology previews (7.9-7.13)", NULL, NULL},
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1012; rocm.series=6.2; rocm.version=6.2.4; rocm.support_series=6.2", ST_FAIL,
     "no HSA_OVERRIDE_GFX_VERSION is known to work", NULL, "HSA_OVERRIDE_GFX_VERSION="},
    /* a release newer than the data: its newest row below, named */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx906; rocm.series=7.3; rocm.version=7.3.0; rocm.support_series=7.2", ST_FAIL,
     "support list of ROCm 7.2, the newest release the support data has below ROCm 7.3", NULL,
     NULL},
    /* one of the 5.3-5.5 rows that were missing: gfx1101 (RX 7800 XT) on 5.5 */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1101; rocm.series=5.5; rocm.version=5.5.1; rocm.support_series=5.5", ST_FAIL,
     "not on ROCm 5.5's support list", NULL, NULL},
    {"gpu.gfx_override",
     AMD "gpu.0.gfx_override_valid=true; gpu.0.gfx_override_set=true; "
         "gpu.0.gfx_override_major_differs=true; gpu.0.gfx=gfx1030; gpu.0.gfx_override=11.0.0",
     ST_FAIL, NULL, NULL, NULL},
    {"gpu.vram", AMD "gpu.0.vram_bytes=8589934592", ST_FAIL, NULL, NULL, NULL},
    /* a partitioned MI300X: each device's own VRAM, not the board's */
    {"gpu.vram",
     AMD "gpu.0.vram_bytes=206158430208; gpu.0.kfd_partitions=8; gpu.0.vram_kfd_bytes=10737418240",
     ST_FAIL, "10.0 GiB of VRAM per partition", "fewer compute partitions", NULL},
    {"gpu.xgmi", AMD XGMI_OK "gpu.0.xgmi_links_down=[gpu.1]", ST_FAIL, "not enabled", "power-cycle",
     NULL},
    {"gpu.large_bar",
     AMD "gpu.0.is_apu=false; gpu.0.vis_vram_bytes=268435456; gpu.0.vram_bytes=17179869184",
     ST_WARN, NULL, NULL, NULL},
    {"gpu.perf_level", AMD "gpu.0.perf_level=low", ST_WARN, NULL, NULL, NULL},
    /* a cap below the default (the boundary: 2 % below), the power-saving
     * profile; a GPU without a cap (an APU) cannot tell */
    {"gpu.power_cap",
     AMD "gpu.0.power_cap_w=190.0; gpu.0.power_cap_default_w=212.0; gpu.0.power_cap_max_w=243.0; "
         "gpu.0.power_profile=BOOTUP_DEFAULT",
     ST_WARN, "power cap 190 W is below the board's default 212 W", NULL, "sudo"},
    {"gpu.power_cap",
     AMD "gpu.0.power_cap_w=207.7; gpu.0.power_cap_default_w=212.0; gpu.0.power_cap_max_w=243.0; "
         "gpu.0.power_profile=BOOTUP_DEFAULT",
     ST_WARN, NULL, NULL, NULL},
    {"gpu.power_cap",
     AMD "gpu.0.power_cap_w=212.0; gpu.0.power_cap_default_w=212.0; gpu.0.power_cap_max_w=243.0; "
         "gpu.0.power_profile=POWER_SAVING",
     ST_WARN, "power profile POWER_SAVING", NULL, NULL},
    {"gpu.power_cap",
     AMD "gpu.0.power_cap_w=?No such file or directory; gpu.0.power_cap_default_w=?absent; "
         "gpu.0.power_cap_max_w=?absent; gpu.0.power_profile=BOOTUP_DEFAULT",
     ST_SKIP, NULL, NULL, NULL},
    /* the process cannot run on the GPU's node of a two-node host; the
     * GPU's node unknown (-1) on such a host cannot tell */
    {"gpu.numa_affinity",
     AMD "host.numa_nodes=2; gpu.0.numa_node=1; gpu.0.numa_node_cpus=64-127; "
         "gpu.0.numa_allowed_cpus=0; host.cpus_allowed=0-63",
     ST_WARN, "none of them on NUMA node 1 of GPU 0", "node 1", NULL},
    {"gpu.numa_affinity",
     AMD "host.numa_nodes=2; gpu.0.numa_node=?numa_node is -1; gpu.0.numa_node_cpus=?-1; "
         "gpu.0.numa_allowed_cpus=?-1; host.cpus_allowed=0-63",
     ST_SKIP, NULL, NULL, NULL},
    {"gpu.idle", AMD "gpu.0.busy_percent=90; gpu.0.users=used by python3 (pid 7, fdinfo)", ST_WARN,
     "used by python3 (pid 7", NULL, NULL},
    {"gpu.thermal", AMD "gpu.0.temp_junction_c=108; gpu.0.temp_junction_limit_c=110", ST_FAIL, NULL,
     NULL, NULL},
    {"gpu.ras", AMD RAS_OK "gpu.0.ras_engine_ue=3; gpu.0.ras_ue_blocks=[gfx 3]", ST_FAIL,
     "engines (gfx 3)", "firmware", "replace"},
    /* a threshold the user set is enforced: the GPU is marked bad */
    {"gpu.ras_pages",
     AMD "gpu.0.ras_present=true; gpu.0.ras_pages_failed=0; gpu.0.ras_page_threshold=655; "
         "gpu.0.ras_page_threshold_param=655; gpu.0.ras_pages_retired=655; "
         "gpu.0.ras_pages_pending=0",
     ST_FAIL, "threshold of 655 (amdgpu.bad_page_threshold=655): the driver marks", "replace",
     NULL},
    /* the default -1: whether it is enforced depends on the kernel */
    {"gpu.ras_pages", AMD RAS_PAGES "gpu.0.ras_pages_retired=655; gpu.0.ras_pages_pending=0",
     ST_WARN, "depends on the kernel", "replace", "marks the GPU bad"},
    {"pcie.link_stable",
     AMD "gpu.0.is_apu=false; gpu.0.link.watch_start_width=16; gpu.0.link.watch_end_width=8; "
         "gpu.0.link.watch_start_speed_gts=16.0; gpu.0.link.watch_end_speed_gts=16.0",
     ST_WARN, "x16 before the GPU probes, x8 after", "reseat", NULL},
    {"gpu.virt",
     AMD "host.vm=true; host.hypervisor=KVM/QEMU; gpu.0.sriov_vf=false; "
         "gpu.0.virtual_root_port=true; gpu.0.atomics.path_ok=false; "
         "gpu.0.atomics.missing_at=0000:00:02.0",
     ST_WARN, "emulated PCIe root port", "q35", NULL},
    {"gpu.partition", AMD PART "gpu.0.vram_kfd_bytes=10737418240", ST_FAIL, "8 devices of 10.0 GiB",
     "SPX", NULL},
    {"pcie.link", AMD "gpu.0.is_apu=false; gpu.0.link.width=8; gpu.0.link.max_width=16", ST_FAIL,
     NULL, NULL, NULL},
    {"pcie.atomics",
     AMD "gpu.0.is_apu=false; kernel.dmesg.pci_rejects_atomics=false; gpu.0.needs_atomics=true; "
         "gpu.0.atomics.path_ok=false; gpu.0.atomics.missing_at=0000:00:01.1; "
         "gpu.0.kfd_refuses_without_atomics=true; gpu.0.mec_fw=80",
     ST_FAIL, NULL, NULL, NULL},
    {"iommu.mode", "gpu.count=2; iommu.translated_gpus=2", ST_WARN, NULL, NULL, NULL},
    {"kernel.svm", AMD "kernel.svm_config=n", ST_FAIL, NULL, NULL, NULL},
    {"kernel.params", "driver.module_present=true; kernel.amdgpu_params_nondefault=[noretry=0]",
     ST_WARN, NULL, NULL, NULL},
    {"kernel.dmesg",
     "kernel.dmesg_readable=true; kernel.dmesg.gpu_page_fault=true; "
     "kernel.dmesg.memory_access_fault=false; kernel.dmesg.signatures=[gpu_page_fault]",
     ST_FAIL, NULL, NULL, NULL},
    /* ---- the host section of issue 10 ---- */
    {"gpu.firmware",
     AMD "gpu.0.fw_count=22; gpu.0.fw_not_loaded=[mec]; gpu.0.fw.mec=0x00000000; "
         "gpu.0.fw.rlc=0x0000005f",
     ST_FAIL, "0x00000000 for the mec firmware", "firmware-amd-graphics", NULL},
    {"gpu.firmware", AMD "gpu.0.fw_count=?no fw_version directory", ST_SKIP, "no fw_version", NULL,
     NULL},
    {"pcie.aer",
     AMD "gpu.0.is_apu=false; gpu.0.aer.fatal=1; gpu.0.aer.nonfatal=0; gpu.0.aer.correctable=0; "
         "gpu.0.aer.errors=[0000:00:01.1 [1022:1483] fatal DLP 1]; gpu.0.pcie_replay_count=0",
     ST_FAIL, "1 fatal PCIe errors (AER)", NULL, NULL},
    {"pcie.aer",
     AMD "gpu.0.is_apu=false; gpu.0.aer.fatal=0; gpu.0.aer.nonfatal=0; gpu.0.aer.correctable=4; "
         "gpu.0.aer.errors=[0000:0c:00.0 [1002:73bf] correctable BadTLP 4]; "
         "gpu.0.pcie_replay_count=0",
     ST_WARN, "grows between runs", "reseat", NULL},
    /* only the replay count is readable (no AER on the path): judged on it */
    {"pcie.aer",
     AMD "gpu.0.is_apu=false; gpu.0.aer.fatal=?no AER; gpu.0.aer.nonfatal=?no AER; "
         "gpu.0.aer.correctable=?no AER; gpu.0.pcie_replay_count=3",
     ST_WARN, "resent 3 PCIe packets", NULL, NULL},
    {"pcie.aer", AMD "gpu.0.is_apu=false; gpu.0.aer.fatal=?no AER; gpu.0.pcie_replay_count=?absent",
     ST_SKIP, "no error counters readable", NULL, NULL},
    {"pcie.aspm",
     AMD "gpu.0.is_apu=false; gpu.0.aspm.gpu_link_on=true; gpu.0.aspm.gpu_link_states=[L0s,L1]; "
         "pcie.aspm_policy=default",
     ST_WARN, "adds microseconds", "compare sync.latency", "pcie_aspm=off"},
    {"pcie.aspm", AMD "gpu.0.is_apu=false; gpu.0.aspm.gpu_link_on=?kernel 5.4", ST_SKIP, NULL, NULL,
     NULL},
    {"kernel.numa_balancing", AMD "kernel.numa_balancing=1; gpu.0.gfx=gfx942", ST_WARN,
     "Instinct node (gfx942)", "numa_balancing", NULL},
    {"kernel.numa_balancing", AMD "kernel.numa_balancing=1; gpu.0.gfx=gfx90a", ST_WARN, NULL, NULL,
     NULL},
    {"kernel.numa_balancing", AMD "kernel.numa_balancing=?absent; gpu.0.gfx=gfx942", ST_SKIP, NULL,
     NULL, NULL},
    {"host.memlock",
     "gpu.count=2; gpu.0.gfx=gfx1100; host.memlock_unlimited=false; host.memlock_bytes=65536",
     ST_WARN, "lock only 0.1 MiB", "memlock unlimited", NULL},
    {"host.memlock",
     AMD "gpu.0.gfx=gfx942; host.memlock_unlimited=false; host.memlock_bytes=8388608", ST_WARN,
     "(gfx942)", NULL, NULL},
    {"host.memlock", AMD "host.memlock_unlimited=?no query; host.memlock_limit=?no query", ST_SKIP,
     "unknown", NULL, NULL},
    {"kernel.pci_realloc",
     AMD "gpu.0.is_apu=false; gpu.0.vis_vram_bytes=268435456; gpu.0.vram_bytes=17163091968; "
         "kernel.dmesg.bar_no_space=true; kernel.dmesg.bar_resize_failed=false; "
         "kernel.pci_realloc=false",
     ST_WARN, "pci=realloc is not on", "pci=realloc", NULL},
    {"kernel.pci_realloc",
     AMD "gpu.0.is_apu=false; gpu.0.vis_vram_bytes=268435456; gpu.0.vram_bytes=17163091968; "
         "kernel.dmesg.bar_no_space=true; kernel.dmesg.bar_resize_failed=false; "
         "kernel.pci_realloc=true",
     ST_WARN, "even with pci=realloc", "Above 4G", NULL},
    {"kernel.thp", "kernel.thp_enabled=never", ST_WARN, NULL, "madvise", NULL},
    {"cpu.governor", "cpu.governor_pins_min=true; cpu.governors=[powersave (acpi-cpufreq)]",
     ST_WARN, "lowest frequency", "performance", NULL},
    {"cpu.governor", "cpu.governor_pins_min=?no cpufreq", ST_SKIP, NULL, NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=1; "
         "kernel.events.gpu_reset_failed.last=3123.4; kernel.events.vram_lost.count=0; "
         "kernel.events.ring_timeout.count=2; kernel.events.gpu_reset_begin.count=1; "
         "kernel.events=[ring_timeout: 2 times]",
     ST_FAIL, "a GPU reset failed", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=1; kernel.events.vram_lost.last=1206.0; "
         "kernel.events.ring_timeout.count=1; kernel.events.gpu_reset_begin.count=1",
     ST_FAIL, "lost VRAM", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.ring_timeout.count=1; "
         "kernel.events.gpu_reset_begin.count=0; kernel.events.ring_reset.count=0; "
         "kernel.events=[ring_timeout: 1 time]",
     ST_WARN, "1 ring timeouts", "AMD_SERIALIZE_KERNEL", NULL},
    /* a ring reset alone (6.12+), no full GPU reset */
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.ring_timeout.count=0; "
         "kernel.events.gpu_reset_begin.count=0; kernel.events.ring_reset.count=1; "
         "kernel.events=[ring_reset: 1 time]",
     ST_WARN, "1 ring resets", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.ring_timeout.count=0; "
         "kernel.events.gpu_reset_begin.count=0; kernel.events.ring_reset.count=0; "
         "kernel.events.mes_failure.count=2; "
         "kernel.events.kiq_failure.count=0",
     ST_WARN, "2 MES", "MES firmware", NULL},
    {"kernel.gpu_resets", AMD "kernel.dmesg_readable=false; kernel.dmesg_error=EPERM", ST_SKIP,
     "not permitted", NULL, NULL},
    {"kernel.vm_faults",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_page_fault.count=2; "
         "kernel.events.fault_processes=[python3 pid 41211]",
     ST_FAIL, "by python3 pid 41211", NULL, NULL},
    {"kernel.vm_faults",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_page_fault.count=1; "
         "kernel.events.fault_processes=[]",
     ST_FAIL, "names no process", NULL, NULL},
    {"python.wheel_tags",
     "python.present=true; python.torch_present=true; python.wheel_tags_match=false; "
     "python.torch_wheel_tags=[cp311-cp311-linux_x86_64]; python.abi_tag=cp312; "
     "python.version=3.12.3; python.env_kind=conda; python.env_name=vla; "
     "python.executable=/opt/conda/envs/vla/bin/python; "
     "python.torch_wheel_index=https://download.pytorch.org/whl/rocm6.4",
     ST_FAIL, "(conda vla) cannot load", "/opt/conda/envs/vla/bin/python -m pip", NULL},
    {"python.wheel_tags",
     "python.present=true; python.torch_present=true; python.wheel_tags_match=?no dist-info",
     ST_SKIP, "no dist-info", NULL, NULL},
    {"rocm.install", AMD "rocm.installs=[]", ST_FAIL, NULL, NULL, NULL},
    {"rocm.kernel_userspace",
     "driver.module_present=true; rocm.installs=[/opt/rocm]; driver.dkms=true; "
     "driver.rocm_series_gap=3",
     ST_WARN, NULL, NULL, NULL},
    {"gpu.derived_peak",
     AMD "gpu.0.gfx=gfx803; gpu.0.peak.why=gfx803 is not in checks.yaml's peaks table; "
         "gpu.0.peak.fp16_tflops=?not derived; gpu.0.peak.mem_gbs=?not derived",
     ST_WARN, "not derived", NULL, NULL},
    {"rocm.lib_deps",
     "rocm.lib_deps.roots=[hip: /opt/rocm/lib/libamdhip64.so]; rocm.lib_deps.checked=3; "
     "rocm.lib_deps.missing=[]; rocm.lib_deps.errors=[]; rocm.torch_lib_set=?no torch; "
     "rocm.lib_deps.mixed=[/opt/rocm/lib/libamdhip64.so needs libhsa-runtime64.so.1 -> "
     "/opt/rocm-5.7.0/lib/libhsa-runtime64.so.1 (RUNPATH), outside /opt/rocm-6.2.0]",
     ST_FAIL, "two ROCm installs mixed", NULL, NULL},
    {"rocm.lib_deps",
     "rocm.lib_deps.roots=[hip: /opt/rocm/lib/libamdhip64.so]; rocm.lib_deps.checked=3; "
     "rocm.lib_deps.missing=[libamd_comgr.so.2 (needed by x)]; rocm.lib_deps.mixed=[]; "
     "rocm.lib_deps.errors=[]; rocm.torch_lib_set=?no torch",
     ST_FAIL, "cannot find", NULL, NULL},
    {"env.ld_library_path",
     AMD "env.ld_library_path=/usr/local/cuda/lib64; env.ld_cuda_entries=[/usr/local/cuda/lib64]; "
         "env.ld_rocm_other=[]",
     ST_WARN, NULL, NULL, NULL},
    {"python.torch_build",
     AMD "python.present=true; python.torch_present=true; python.torch_build=cuda; "
         "python.torch_version=2.9.0+cu128",
     ST_FAIL, "CUDA build", NULL, NULL},
    {"python.torch_rocm_match",
     "python.torch_present=true; python.torch_build=rocm; rocm.installs=[/opt/rocm]; "
     "python.torch_hip_series=6.0; rocm.series=6.2; python.executable=/usr/bin/python3; "
     "python.torch_wheel_index=https://download.pytorch.org/whl/rocm6.2",
     ST_WARN, NULL, "whl/rocm6.2", NULL},
    {"python.cuda_packages", AMD "python.present=true; python.nvidia_packages=[nvidia-cublas-cu12]",
     ST_WARN, NULL, NULL, NULL},
    {"python.requirements",
     AMD "python.requirements_given=true; python.requirements_cuda=[line 1: torch+cu121]", ST_FAIL,
     NULL, NULL, NULL},
    {"gpu.target_binaries",
     AMD "binaries.scanned=3; binaries.with_code=2; gpu.0.binaries.missing=[libtorch_hip.so]; "
         "gpu.0.binaries.target=gfx1100",
     ST_FAIL, NULL, NULL, NULL},
    {"render.vulkan", AMD "render.vulkan_software_only=false; render.vulkan_loader=false", ST_FAIL,
     NULL, NULL, NULL},
    {"gpu.runtime", AMD "runtime.live=true; runtime.hip.loaded=false; runtime.hip.error=dlopen",
     ST_FAIL, NULL, "hip-runtime-amd", NULL},
    {"gpu.kernels_compile", "kernels.available=true; kernels.ok=false", ST_FAIL, NULL, NULL, NULL},
    {"sync.latency", "gpu.sync.available=true; gpu.sync.null_stream_stale=5", ST_FAIL, NULL, NULL,
     NULL},
    {"pcie.bandwidth", "gpu.bw.available=true; gpu.bw.link_gbs=31.5; gpu.bw.h2d_pinned_gbs=3.5",
     ST_WARN, NULL, NULL, NULL},
    /* 20 GB/s on a Gen5 x16 link: 0.35 of its 57.6 GB/s payload */
    {"pcie.bandwidth",
     "gpu.bw.available=true; gpu.bw.link_gbs=63.0; gpu.bw.link_payload_gbs=57.6; "
     "gpu.bw.h2d_pinned_gbs=20; "
     "gpu.bw.h2d_payload_fraction=0.347",
     ST_WARN, "of the 57.6 GB/s payload", NULL, NULL},
    {"gpu.mem_bandwidth",
     "gpu.membw.available=true; gpu.membw.error=a[134217727] = 0.5, want 0.096", ST_FAIL,
     "went wrong", NULL, NULL},
    {"gpu.mem_bandwidth",
     "gpu.membw.available=true; gpu.membw.error=; gpu.membw.best_gbs=1200; "
     "gpu.membw.best_kernel=copy; "
     "gpu.membw.best_peak=4916; gpu.membw.best_fraction=0.244",
     ST_WARN, "derived from the device", NULL, NULL},
    {"hmm.managed", "gpu.hmm.available=true; gpu.hmm.verdict=host fallback", ST_WARN, NULL, NULL,
     NULL},
    {"mem.release", "gpu.memrel.available=true; gpu.memrel.delta_mb=500", ST_FAIL, NULL, NULL,
     NULL},
    {"fp.correctness", "gpu.fp.available=true; gpu.fp.gemm.failures=1", ST_FAIL, NULL, NULL, NULL},
    {"fp.sampling",
     "gpu.fp.sampling.available=true; gpu.fp.sampling.out_of_range=1; "
     "gpu.fp.sampling.zero_prob_hits=0",
     ST_FAIL, NULL, NULL, NULL},
    {"gpu.gemm_peak",
     "gpu.gemm_peak.available=true; gpu.gemm_peak.error=; gpu.gemm_peak.spot_ratio=5", ST_FAIL,
     NULL, NULL, NULL},
    /* the own kernel on an MI300X: 60 of 1307 derived TFLOP/s */
    {"gpu.gemm_peak",
     "gpu.gemm_peak.available=true; gpu.gemm_peak.error=; gpu.gemm_peak.spot_ratio=0.1; "
     "gpu.gemm_peak.fp16_tflops=60; gpu.gemm_peak.fp32_tflops=30; gpu.gemm_peak.fp16_peak=1307.4; "
     "gpu.gemm_peak.fp16_fraction=0.046",
     ST_WARN, "derived from the device", NULL, NULL},
    {"gpu.gemm_peak",
     "gpu.gemm_peak.available=true; gpu.gemm_peak.error=; gpu.gemm_peak.spot_ratio=0.1; "
     "gpu.gemm_peak.fp16_tflops=60; gpu.gemm_peak.fp32_tflops=30; gpu.gemm_peak.fp16_peak=?; "
     "gpu.gemm_peak.fp16_fraction=?; gpu.gemm_peak.bf16_tflops=60; gpu.gemm_peak.bf16_peak=1307.4; "
     "gpu.gemm_peak.bf16_fraction=0.046",
     ST_WARN, "bf16 GEMM reaches", NULL, NULL},
    /* per GPU (--gpu all): the worst measured GPU decides, named; a GPU whose probe
     * child hung is that GPU's timeout, the other's facts still judged */
    {"sync.latency",
     "probe.sync.per_gpu=true; gpu.measured=[0,1]; gpu.0.probe.sync.status=ok; "
     "gpu.1.probe.sync.status=ok; gpu.0.sync.available=true; gpu.0.sync.null_stream_stale=0; "
     "gpu.1.sync.available=true; gpu.1.sync.null_stream_stale=5",
     ST_FAIL, "GPU 1: the null stream did not wait", NULL, NULL},
    {"sync.latency",
     "probe.sync.per_gpu=true; probe.sync.status=timeout; gpu.measured=[0,1]; "
     "gpu.0.probe.sync.status=ok; gpu.1.probe.sync.status=timeout; "
     "gpu.1.probe.sync.message=no result within 20 s; gpu.0.sync.available=true; "
     "gpu.0.sync.null_stream_stale=3",
     ST_FAIL, "GPU 0: the null stream did not wait", NULL, NULL},
    {"sync.latency",
     "probe.sync.per_gpu=true; probe.sync.status=timeout; gpu.measured=[0,1]; "
     "gpu.0.probe.sync.status=ok; gpu.1.probe.sync.status=timeout; "
     "gpu.1.probe.sync.message=no result within 20 s; gpu.0.sync.available=false; "
     "gpu.0.sync.why=test",
     ST_TIMEOUT, "GPU 1: probe sync timed out: no result within 20 s (0 of 2", NULL, NULL},
    /* the VRAM pattern test: one GPU's wrong reads fail it, named with the address;
     * a test the time bound cut short is not a pass */
    {"gpu.memtest",
     "probe.memtest.per_gpu=true; gpu.measured=[0,1]; gpu.0.probe.memtest.status=ok; "
     "gpu.1.probe.memtest.status=ok; gpu.0.memtest.available=true; gpu.0.memtest.errors=0; "
     "gpu.0.memtest.complete=true; gpu.1.memtest.available=true; gpu.1.memtest.errors=3; "
     "gpu.1.memtest.complete=true; gpu.1.memtest.bytes=16777216; gpu.1.memtest.base=0x7f00 (test); "
     "gpu.1.memtest.failed_patterns=[random]; "
     "gpu.1.memtest.first_error=random: offset 0x1c (address 0x7f1c)",
     ST_FAIL,
     "GPU 1: 3 wrong reads in 16.0 MiB of VRAM at 0x7f00 (test) under random; first at "
     "random: offset 0x1c (address 0x7f1c) (1 of 2 GPUs pass)",
     "out of service", NULL},
    {"gpu.memtest",
     "gpu.memtest.available=true; gpu.memtest.errors=0; gpu.memtest.complete=false; "
     "gpu.memtest.patterns=[walking ones]; gpu.memtest.bytes=16777216; gpu.memtest.gbs=900.5",
     ST_WARN, "stopped the test after walking ones", NULL, NULL},
    {"gpu.memtest", "gpu.memtest.available=false; gpu.memtest.why=no GPU runtime loads", ST_SKIP,
     "no GPU runtime loads", NULL, NULL},
    /* peer-to-peer: an xGMI pair without access fails; PCIe without access and a slow
     * xGMI copy warn; one GPU is not a pass */
    {"gpu.p2p",
     "gpu.p2p.available=true; gpu.p2p.no_access_xgmi=[gpu.0-gpu.1]; "
     "gpu.p2p.no_access=[gpu.0-gpu.1 (xgmi)]",
     ST_FAIL, "GPUs linked by xGMI cannot access each other's memory: gpu.0-gpu.1", NULL, NULL},
    {"gpu.p2p",
     "gpu.p2p.available=true; gpu.p2p.no_access_xgmi=[]; gpu.p2p.no_access=[gpu.2-gpu.5 (pcie)]",
     ST_WARN, "no peer access between gpu.2-gpu.5 (pcie)", "iommu", NULL},
    {"gpu.p2p",
     "gpu.p2p.available=true; gpu.p2p.no_access_xgmi=[]; gpu.p2p.no_access=[]; "
     "gpu.p2p.xgmi_min_gbs=7.5; gpu.p2p.pcie_min_gbs=?none; gpu.p2p.summary=[x]",
     ST_WARN, "over xGMI reaches only 7.5 GB/s", NULL, NULL},
    {"gpu.p2p", "gpu.p2p.available=false; gpu.p2p.why=one GPU measured", ST_SKIP,
     "one GPU measured", NULL, NULL},
    /* only the measured GPUs are judged, not every sysfs GPU */
    {"sync.latency",
     "gpu.count=8; probe.sync.per_gpu=true; gpu.measured=[3]; gpu.3.probe.sync.status=ok; "
     "gpu.3.sync.available=true; gpu.3.sync.null_stream_stale=2",
     ST_FAIL, "the null stream did not wait for a blocking stream: 2 stale", NULL, NULL},
    {"vla.latency.vision", VLA_GPU "vla.latency.vision_ms=30.5", ST_FAIL, NULL, NULL, NULL},
    {"vla.latency.total", VLA_GPU "vla.latency.total_ms=120.5", ST_FAIL, NULL, NULL, NULL},
    {"vla.selftest",
     "vla.available=true; vla.backend=cpu; vla.nonfinite=true; vla.nonfinite_layer=vision.0",
     ST_FAIL, NULL, NULL, NULL},
    {"vla.control_rate", VLA_GPU "vla.control_rate_hz=5.5", ST_FAIL, NULL, NULL, NULL},
    {"vla.memory", VLA_GPU "vla.memory.deploy_bytes=100; vla.memory.total_bytes=50", ST_FAIL, NULL,
     NULL, NULL},
    {"vla.numerics", VLA_GPU "vla.numerics.cosine=0.5; vla.numerics.max_error_rel=0.1", ST_FAIL,
     NULL, NULL, NULL},
    {"vla.nonfinite", VLA_GPU "vla.nonfinite=true", ST_FAIL, NULL, NULL, NULL},
    /* the fast paths: hipBLASLt absent (installable), graph capture refused;
     * a fused kernel without a body on this target alone is the project's,
     * listed but passing */
    {"vla.backend_gaps",
     VLA_GPU VLA_GAPS_NONE "vla.backend_gaps_n=2; vla.backend_gaps.lt_epilogues=no hipBLASLt: "
                           "not found; vla.backend_gaps=flash_attention: needs mma.sync; "
                           "lt_epilogues: no hipBLASLt: not found",
     ST_WARN, "without hipBLASLt (no hipBLASLt: not found)", "apt install hipblaslt", NULL},
    {"vla.backend_gaps",
     "vla.available=true; vla.error=; vla.backend=cuda; vla.preset=pi0; " VLA_GAPS_NONE
     "vla.backend_gaps_n=1; vla.backend_gaps.lt_epilogues=no libcublasLt; "
     "vla.backend_gaps=lt_epilogues: no libcublasLt",
     ST_WARN, "without cuBLASLt", "libcublasLt", "hipblaslt"},
    {"vla.backend_gaps",
     VLA_GPU VLA_GAPS_NONE "vla.backend_gaps_n=1; vla.backend_gaps.graph=hipStreamBeginCapture: "
                           "hipErrorNotSupported; vla.backend_gaps=graph: hipStreamBeginCapture",
     ST_WARN, "no graph capture (hipStreamBeginCapture: hipErrorNotSupported)", NULL, NULL},
    {"vla.backend_gaps", VLA_CPU, ST_SKIP, "CPU reference backend", NULL, NULL},
    {"torch.latency", TORCH_OK "torch.latency.best_ms=95.0", ST_FAIL, "95", NULL, NULL},
    {"torch.latency", "torch.available=false; torch.error=exit status 1; torch.why=exit status 1",
     ST_FAIL, "no answer", "reinstall", NULL},
    {"torch.latency", "torch.available=false; torch.error=; torch.why=torch is not installed",
     ST_SKIP, "not installed", NULL, NULL},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0", ST_WARN, "none of the known", NULL, NULL},
    {"torch.numerics", TORCH_OK "torch.numerics.cosine=0.5", ST_FAIL, NULL, NULL, NULL},
    {"torch.matches_doctor", TORCH_OK "torch.shared.max_error=0.01", ST_FAIL, NULL, "TF32", NULL},

/* ---- issue 21: each failure kind its own cause and fix ---- */
#define KFD_OPEN                                                                                   \
    AMD "env.wsl=false; kfd.present=true; kernel.dmesg.kfd_unsupported=false; "                    \
        "kfd.group=render; host.sudo_present=true; kfd.open_result="
    {"kfd.access", KFD_OPEN "EACCES", ST_FAIL, "permission denied", "usermod -aG render,video",
     NULL},
    {"kfd.access", KFD_OPEN "EPERM", ST_FAIL, "device cgroup", "--device=/dev/kfd", "usermod"},
    {"kfd.access", KFD_OPEN "ENXIO", ST_FAIL, "no driver answers it", "grep -i kfd", "usermod"},
    {"kfd.access", KFD_OPEN "ENODEV", ST_FAIL, "ENODEV, the device node exists", "grep -i kfd",
     "usermod"},
    {"kfd.access", KFD_OPEN "EAGAIN", ST_FAIL, "GPU reset or a suspend", "kernel.gpu_resets",
     "usermod"},
    {"kfd.access", KFD_OPEN "ENOENT", ST_FAIL, "the node vanished", "run again", "usermod"},
    {"kfd.access", KFD_OPEN "EBUSY", ST_FAIL, "opening /dev/kfd failed: EBUSY", "kernel log",
     "usermod"},
    /* issue 32: inside a container the open result decides, not the uid,
     * and the fix is --group-add with numbers, never usermod in the image */
    {"kfd.access",
     KFD_OPEN "EACCES; env.container=docker; user.name=root; user.uid=0; "
              "container.group_ids=[65534]",
     ST_FAIL, "does not map", "stat -c '%g %n' /dev/kfd /dev/dri/renderD*", "--group-add 65534"},
    {"kfd.access",
     KFD_OPEN "EACCES; env.container=podman; user.name=ana; user.uid=1000; "
              "container.group_ids=[109]; container.docker_run=docker run --group-add 109",
     ST_FAIL, "group ids inside the container are 109", "docker run --group-add 109",
     "usermod -aG"},
    {"kfd.access", KFD_OPEN "EACCES; env.container=none", ST_FAIL, "owned by group 'render'",
     "usermod -aG render,video", NULL},
#define GROUPS_ROOT                                                                                \
    "kfd.present=true; dri.render_present=true; kfd.group=render; dri.render_group=render; "       \
    "user.is_root=true; user.name=root; user.in_device_groups=false; "                             \
    "user.db_in_device_groups=false; host.sudo_present=true; kfd.open_result=ok; "
    /* under sudo the person is SUDO_USER, judged in the group database */
    {"user.groups",
     GROUPS_ROOT "env.container=none; user.sudo_user=bob; user.sudo_db_in_device_groups=false",
     ST_FAIL, "run under sudo by bob", "`usermod -aG render,video bob`", "$LOGNAME"},
    {"user.groups",
     GROUPS_ROOT "env.container=none; user.sudo_user=bob; user.sudo_db_in_device_groups=true",
     ST_SKIP, "bob, who runs the model without sudo, is in the group", NULL, NULL},
    {"user.groups",
     GROUPS_ROOT "env.container=none; user.sudo_user=; user.sudo_db_in_device_groups=?no", ST_SKIP,
     "running as root, which opens", NULL, NULL},
    {"user.groups",
     GROUPS_ROOT "env.container=docker; kfd.open_result=EACCES; user.sudo_user=; "
                 "user.sudo_db_in_device_groups=?no",
     ST_SKIP, "the container's root is not the host's", NULL, NULL},
    {"user.groups",
     "kfd.present=true; dri.render_present=true; kfd.group=render; dri.render_group=render; "
     "user.is_root=false; user.name=ana; user.groups=[ana]; user.in_device_groups=false; "
     "user.db_in_device_groups=true; env.container=docker; user.sudo_user=; "
     "container.docker_run=docker run --group-add 109",
     ST_FAIL, "inside a docker container", "docker run --group-add 109", "usermod -aG"},
#undef GROUPS_ROOT
    /* issue 32: variables left set (ollama issue 15752: CUDA_VISIBLE_DEVICES=-1) */
    {"env.gpu_visibility",
     AMD "env.gpu_visibility=[HIP_VISIBLE_DEVICES=1]; env.gpu_visibility_none=false; "
         "env.gpu_visibility_entries=1; gpu.count=2",
     ST_WARN, "only the 1 GPU it lists", "unset ROCR_VISIBLE_DEVICES", NULL},
    {"env.debug_left",
     "env.debug_left=[HIP_LAUNCH_BLOCKING=1 (makes every kernel launch synchronous)]", ST_WARN,
     "HIP_LAUNCH_BLOCKING=1", "unset AMD_SERIALIZE_KERNEL", NULL},
#define INITSTATE AMD "driver.module_present=true; host.sudo_present=true; driver.initstate="
    {"driver.loaded", INITSTATE "coming", ST_FAIL, "still initialising", "stays 'coming'", NULL},
    {"driver.loaded", INITSTATE "going", ST_FAIL, "being unloaded", "modprobe amdgpu", NULL},
    {"driver.loaded", INITSTATE "unformed", ST_FAIL, "state is 'unformed', not 'live'", NULL, NULL},

    /* ---- targeted: the review's findings ---- */
    /* a CUDA wheel on a machine without an AMD GPU: "built for ROCm" is false */
    {"python.torch_build",
     "gpu.count=0; python.present=true; python.torch_present=true; python.torch_build=cuda; "
     "python.torch_version=2.11.0+cu130",
     ST_SKIP, "cuda build, not ROCm", NULL, NULL},
    {"python.torch_build",
     "gpu.count=0; python.present=true; python.torch_present=true; python.torch_build=cpu; "
     "python.torch_version=2.11.0+cpu",
     ST_SKIP, "cpu build, not ROCm", NULL, NULL},
    /* the wheel named in the fix is the installed ROCm's */
    {"python.torch_build",
     AMD "python.present=true; python.torch_present=false; python.executable=/usr/bin/python3; "
         "python.torch_wheel_index=https://download.pytorch.org/whl/rocm6.3",
     ST_FAIL, NULL, "--index-url https://download.pytorch.org/whl/rocm6.3", "rocm6.2"},
/* no ROCm wheel fits: every python fix says what to change, never
 * "--index-url none" (both sides: with an index, the index is named) */
#define NO_WHEEL                                                                                   \
    "python.torch_wheel_index=none; "                                                              \
    "python.torch_wheel_index_why=no ROCm wheel has cp314, use Python 3.12 (rocm6.4 has cp312)"
    {"python.torch_build",
     AMD "python.present=true; python.torch_present=true; python.torch_build=cuda; "
         "python.torch_version=2.11.0+cu128; python.executable=/usr/bin/python3; " NO_WHEEL,
     ST_FAIL, "no ROCm wheel fits", "use Python 3.12", "--index-url none"},
    {"python.torch_build",
     AMD "python.present=true; python.torch_present=true; python.torch_build=cuda; "
         "python.torch_version=2.11.0+cu128; python.executable=/usr/bin/python3; "
         "python.torch_wheel_index=https://download.pytorch.org/whl/rocm6.4",
     ST_FAIL, "CUDA build", "--index-url https://download.pytorch.org/whl/rocm6.4", NULL},
    {"python.torch_rocm_match",
     "python.torch_present=true; python.torch_build=rocm; python.torch_hip_series=6.2; "
     "rocm.series=6.4; rocm.installs=[/opt/rocm-6.4.0]; " NO_WHEEL,
     ST_WARN, "no ROCm wheel fits", "use Python 3.12", "--index-url none"},
    {"python.torch_rocm_match",
     "python.torch_present=true; python.torch_build=rocm; python.torch_hip_series=6.2; "
     "rocm.series=6.4; rocm.installs=[/opt/rocm-6.4.0]; python.executable=/usr/bin/python3; "
     "python.torch_wheel_index=https://download.pytorch.org/whl/rocm6.4",
     ST_WARN, "the system has ROCm 6.4", "--index-url https://download.pytorch.org/whl/rocm6.4",
     "use Python"},
    {"python.wheel_tags",
     "python.present=true; python.torch_present=true; python.wheel_tags_match=false; "
     "python.torch_wheel_tags=cp310-cp310; python.abi_tag=cp314; python.version=3.14.0; " NO_WHEEL,
     ST_FAIL, "no ROCm wheel fits", "use Python 3.12", "--index-url none"},
    {"python.requirements",
     AMD "python.requirements_given=true; python.requirements_cuda=[torch==2.5.1+cu121]; " NO_WHEEL,
     ST_FAIL, "no ROCm wheel fits", "use Python 3.12", "--index-url none"},
    {"python.requirements",
     AMD "python.requirements_given=true; python.requirements_cuda=[torch==2.5.1+cu121]; "
         "python.torch_wheel_index=https://download.pytorch.org/whl/rocm6.4",
     ST_FAIL, "CUDA-only requirements", "--index-url https://download.pytorch.org/whl/rocm6.4",
     "use Python"},
#undef NO_WHEEL
    /* root needs no groups: not a pass claiming membership */
    {"user.groups",
     "kfd.present=true; dri.render_present=true; user.is_root=true; user.name=root; "
     "user.in_device_groups=false; user.db_in_device_groups=false",
     ST_SKIP, "root", NULL, NULL},
    /* a pass would say "AtomicOp enabled on the GPU" */
    {"pcie.atomics",
     AMD "gpu.0.is_apu=false; kernel.dmesg.pci_rejects_atomics=false; gpu.0.needs_atomics=false; "
         "gpu.0.atomics.path_ok=true; gpu.0.atomics.requester_enabled=false; "
         "kernel.dmesg.atomics_unsupported=false; gpu.0.gfx=gfx90a",
     ST_WARN, "not enabled on the GPU", NULL, NULL},
    {"rocm.install", AMD "rocm.installs=[/opt/rocm]; rocm.version=?no version file", ST_WARN, NULL,
     NULL, NULL},
    /* no sudo prefix for root; "(as root)" where sudo is absent */
    {"render.vulkan",
     AMD "user.is_root=true; host.sudo_present=true; render.vulkan_software_only=false; "
         "render.vulkan_loader=false; host.os_id=debian",
     ST_FAIL, NULL, "`apt-get install -y libvulkan1", "sudo"},
    {"render.vulkan",
     AMD "user.is_root=false; host.sudo_present=false; render.vulkan_software_only=false; "
         "render.vulkan_loader=false; host.os_id=debian",
     ST_FAIL, NULL, "as root (sudo is not installed)", "sudo apt"},
    {"render.vulkan",
     AMD "user.is_root=false; host.sudo_present=true; render.vulkan_software_only=false; "
         "render.vulkan_loader=false; host.os_id=ubuntu; host.os_id_like=[debian]",
     ST_FAIL, NULL, "sudo apt-get install", NULL},
    /* no AMD GPU and Mesa's software device: nothing to install */
    {"render.vulkan",
     "gpu.count=0; render.vulkan_software_only=true; render.vulkan_loader=true; "
     "render.vulkan_error=; render.vulkan_devices=[llvmpipe]",
     ST_SKIP, "no AMD GPU", NULL, NULL},
    /* HIP loads, no device: name that, not "install ROCm" */
    {"gpu.runtime",
     "gpu.count=0; runtime.live=true; runtime.hip.loaded=true; runtime.device_count=0; "
     "runtime.kfd_mismatch=[]; runtime.hip.init_error=hipErrorNoDevice; runtime.hip.version=6.2",
     ST_WARN, "hipErrorNoDevice", "AMD GPU", "install ROCm"},
    /* HIP loads on an AMD host but only CUDA has devices: HIP sees none */
    {"gpu.runtime",
     AMD "runtime.live=true; runtime.hip.loaded=true; runtime.backend=cuda; "
         "runtime.device_count=1; runtime.kfd_mismatch=[]",
     ST_FAIL, "sees none", NULL, NULL},
    /* the CPU pass is a self-test, never [ok] against the budget */
    {"vla.latency.total", VLA_CPU, ST_SKIP, "self-test (tiny, 58.5 ms)", NULL, NULL},
    {"vla.latency.vision", VLA_CPU, ST_SKIP, "pi0 did not run", NULL, NULL},
    {"vla.control_rate", VLA_CPU, ST_SKIP, "pi0 did not run", NULL, NULL},
    {"vla.memory", VLA_CPU, ST_SKIP, "pi0 did not run", NULL, NULL},
    {"vla.selftest", VLA_GPU "vla.latency.total_ms=50", ST_SKIP, NULL, NULL, NULL},
    /* "no NaN/Inf in the VLA pass" is not said of a pi0 pass that did not run */
    {"vla.nonfinite", VLA_CPU, ST_SKIP, "pi0 did not run", NULL, NULL},
    /* ---- soak (level soak: the soak command's run) ---- */
    {"soak.run", "soak.error=hipErrorLaunchFailure; soak.calls=12; soak.duration_s=3.5", ST_FAIL,
     "the pass stopped after 12 calls: hipErrorLaunchFailure", NULL, NULL},
    {"soak.run", "soak.error=; soak.calls=5; soak.duration_s=600", ST_FAIL, "only 5 policy calls",
     NULL, NULL},
    {"soak.run", "soak.error=; soak.calls=900; soak.duration_s=30; soak.interrupted=true", ST_WARN,
     "stopped early", NULL, NULL},
    {"soak.latency_drift",
     "soak.error=; soak.p99_first_ms=31; soak.p99_last_ms=45; soak.p99_growth_pct=45.2; "
     "soak.window_s=60",
     ST_FAIL, "p99 grew 45.2% from 31 ms", NULL, NULL},
    {"soak.latency_drift",
     "soak.error=; soak.p99_first_ms=31; soak.p99_last_ms=35; soak.p99_growth_pct=12.9; "
     "soak.window_s=60",
     ST_WARN, "p99 grew 12.9%", NULL, NULL},
    {"soak.clock", "soak.sclk_first_mhz=1980; soak.sclk_last_mhz=1400; soak.sclk_drop_pct=29.3",
     ST_FAIL, "fell 29.3% from 1980 to 1400 MHz", NULL, NULL},
    {"soak.thermal",
     "soak.temp_at_limit=true; soak.temp_margin_c=0; soak.temp_hottest=GPU 0 junction 110 C of its "
     "110 C limit",
     ST_FAIL, "junction 110 C of its 110 C limit: at its limit", NULL, NULL},
    {"soak.thermal",
     "soak.temp_at_limit=false; soak.temp_margin_c=3; soak.temp_hottest=GPU 0 mem 92 C of its 95 C "
     "limit",
     ST_WARN, "3 C from its limit", NULL, NULL},
    {"soak.throttle",
     "soak.throttle_events=2; soak.throttle_reasons=SwPowerCap; soak.throttle_since_start=",
     ST_WARN, "2 throttle event(s): SwPowerCap", NULL, NULL},
    {"soak.vram", "soak.vram_growth_bytes=1073741824", ST_WARN, "grew by 1.0 GiB", NULL, NULL},
    {"soak.outliers",
     "soak.outliers=3; soak.outliers_unexplained=2; soak.outlier_causes=[t=1.0s 90 ms: "
     "unexplained]",
     ST_WARN, "2 of 3 outliers (above the p99 and 1.5x the median)", NULL, NULL},
    {"soak.throttle", "soak.throttle_events=?no throttle status readable", ST_SKIP, NULL, NULL,
     NULL},
    /* gpu_metrics residency (v1_6+: a share of accumulation_counter; v3_0:
     * growth only), PCIe counters and the slot link over the soak */
    {"soak.thermal_residency",
     "soak.residency_thermal_grew=250; soak.residency_thermal_pct=25; "
     "soak.residency_detail=GPU 0: socket thermal 25.0% of the run (accumulation_counter +1000)",
     ST_FAIL, "held the clocks back for 25% of the run: GPU 0: socket thermal 25.0%", NULL, NULL},
    {"soak.thermal_residency",
     "soak.residency_thermal_grew=24; soak.residency_thermal_pct=?gpu_metrics v3_0 has none; "
     "soak.residency_detail=GPU 0: gfx thermal +24",
     ST_WARN, "residency counter grew during the run: GPU 0: gfx thermal +24", NULL, NULL},
    {"soak.thermal_residency",
     "soak.residency_thermal_grew=?gpu_metrics 1.3: no prochot_residency_acc; "
     "soak.residency_thermal_pct=?no counter; soak.residency_detail=?no counter",
     ST_SKIP, NULL, NULL, NULL},
    {"soak.power_residency",
     "soak.residency_power_grew=500; soak.residency_power_pct=50; "
     "soak.residency_detail=GPU 0: PPT 50.0% of the run (accumulation_counter +1000)",
     ST_WARN, "power limiter's residency counter grew during the run: GPU 0: PPT 50.0%", NULL,
     NULL},
    {"soak.pcie_counters",
     "soak.pcie_replays_grew=16; soak.pcie_recoveries_grew=1; soak.pcie_naks_grew=0; "
     "soak.pcie_counter_detail=GPU 0 replays +16; GPU 0 recoveries +1",
     ST_WARN, "the link went into recovery during the run: GPU 0 replays +16", NULL, NULL},
    {"soak.pcie_counters",
     "soak.pcie_replays_grew=3; soak.pcie_recoveries_grew=?sysfs has none; "
     "soak.pcie_naks_grew=?sysfs has none; soak.pcie_counter_detail=GPU 0 replays +3",
     ST_WARN, "the link replayed packets during the run: GPU 0 replays +3", NULL, NULL},
    {"soak.link_stable",
     "soak.link_start_width=16; soak.link_min_width=8; soak.link_start_speed_gts=16; "
     "soak.link_min_speed_gts=16; soak.link_changes=2; "
     "soak.link_change_list=[t=3.0s GPU 0 x16 16 GT/s -> x8 16 GT/s, t=5.0s GPU 0 x8 16 GT/s -> "
     "x16 16 GT/s]",
     ST_WARN, "the link lost lanes during the run: x16 at the start, x8 at its lowest", NULL, NULL},
    {"soak.link_stable",
     "soak.link_start_width=16; soak.link_min_width=16; soak.link_start_speed_gts=32; "
     "soak.link_min_speed_gts=16; soak.link_changes=1; "
     "soak.link_change_list=[t=6.0s GPU 0 x16 32 GT/s -> x16 16 GT/s]",
     ST_WARN, "retrained slower during the run: 32 GT/s at the start, 16 GT/s at its lowest", NULL,
     NULL},
    /* ---- issue 22: kernel-log signatures as current kernels print them ---- */
    {"kfd.access",
     AMD "env.wsl=false; kfd.present=true; kernel.dmesg.kfd_unsupported=true; "
         "kernel.dmesg.kfd_unsupported_asics=[TAHITI]; kfd.open_result=ok; kfd.group=render",
     ST_FAIL, "the ASIC is not supported by KFD: the kernel log says KFD refused TAHITI", NULL,
     NULL},
    {"kfd.access",
     AMD "env.wsl=false; kfd.present=true; kernel.dmesg.kfd_unsupported=true; "
         "kernel.dmesg.kfd_unsupported_asics=[]; kfd.open_result=ok; kfd.group=render",
     ST_FAIL, "not supported by KFD: the kernel log says 'kfd not supported on this ASIC'", NULL,
     NULL},
    {"kernel.dmesg",
     "kernel.dmesg_readable=true; kernel.dmesg.gpu_page_fault=false; "
     "kernel.dmesg.memory_access_fault=false; kernel.dmesg.compute_hang=true; "
     "kernel.dmesg.signatures=[hmm_registered,compute_hang]; kernel.dmesg.problems=[compute_hang]",
     ST_FAIL, "a compute queue hung", NULL, NULL},
    {"kernel.dmesg",
     "kernel.dmesg_readable=true; kernel.dmesg.gpu_page_fault=false; "
     "kernel.dmesg.memory_access_fault=false; kernel.dmesg.compute_hang=false; "
     "kernel.dmesg.pci_rejects_atomics=false; kernel.dmesg.kfd_unsupported=false; "
     "kernel.dmesg.key_rejected=false; kernel.dmesg.module_rejected=false; "
     "kernel.dmesg.signatures=[hmm_registered,ring_timeout]; kernel.dmesg.problems=[ring_timeout]",
     ST_WARN, "the kernel log shows: ring_timeout", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.device_wedged.count=0; "
         "kernel.events.compute_hang.count=3; kernel.events.compute_hang.last=40869.9; "
         "kernel.events.gpu_reset_begin.count=0; kernel.dmesg.gpu_recovery_disabled=true",
     ST_FAIL, "no GPU reset followed (3 preemption or eviction failures", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.device_wedged.count=0; "
         "kernel.events.compute_hang.count=3; kernel.events.gpu_reset_begin.count=1; "
         "kernel.events.ring_reset_failed.count=0; kernel.events.ring_reset_succeeded.count=0; "
         "kernel.events.ring_reset.count=0; kernel.events.ring_timeout.count=0; "
         "kernel.events=[compute_hang: 3 times]",
     ST_WARN, "a compute queue hung and the GPU was reset", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.device_wedged.count=0; "
         "kernel.events.compute_hang.count=0; kernel.events.gpu_reset_begin.count=1; "
         "kernel.events.ring_reset_failed.count=1; kernel.events.ring_reset_succeeded.count=1; "
         "kernel.events.ring_reset.count=2; kernel.events.ring_timeout.count=2; "
         "kernel.events=[ring_reset: 2 times]",
     ST_WARN, "2 ring resets (1 succeeded, 1 failed)", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.device_wedged.count=0; "
         "kernel.events.compute_hang.count=0; kernel.events.gpu_reset_begin.count=0; "
         "kernel.events.ring_reset_failed.count=1; kernel.events.ring_reset_failed.last=950.8",
     ST_FAIL, "a ring reset failed (1x", NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.device_wedged.count=1; "
         "kernel.events.device_wedged.last=1206.1",
     ST_FAIL, "wedged and needs recovery", "reboot", NULL},
    {"kernel.pci_realloc",
     AMD "gpu.0.driver_bound=false; gpu.0.pci=0000:03:00.0; gpu.0.is_apu=?not bound; "
         "kernel.dmesg.bar_unassigned_devices=[0000:03:00.0]; kernel.pci_realloc=false",
     ST_FAIL, "could not assign a BAR of 0000:03:00.0", "pci=realloc", NULL},
    {"kernel.pci_realloc",
     AMD "gpu.0.driver_bound=false; gpu.0.pci=0000:03:00.0; gpu.0.is_apu=?not bound; "
         "kernel.dmesg.bar_unassigned_devices=[0000:03:00.0]; kernel.pci_realloc=true",
     ST_FAIL, "even with pci=realloc", "Above 4G", NULL},
    {"kernel.pci_realloc",
     AMD "gpu.0.driver_bound=false; gpu.0.pci=0000:03:00.0; gpu.0.is_apu=?not bound; "
         "kernel.dmesg.bar_unassigned_devices=[0000:04:00.0]; kernel.pci_realloc=false",
     ST_SKIP, "because driver.loaded failed", NULL, NULL},
    {"gpu.large_bar",
     AMD "gpu.0.driver_bound=false; gpu.0.pci=0000:03:00.0; gpu.0.is_apu=?not bound; "
         "kernel.dmesg.bar_unassigned_devices=[0000:03:00.0]",
     ST_FAIL, "could not assign a BAR of 0000:03:00.0", "Above 4G", NULL},
    {"gpu.large_bar",
     AMD "gpu.0.driver_bound=false; gpu.0.pci=0000:03:00.0; gpu.0.is_apu=?not bound; "
         "kernel.dmesg.bar_unassigned_devices=[]",
     ST_SKIP, "because driver.loaded failed", NULL, NULL},
};

/* the self-test passes where it ran (the one CPU status that is a pass) */
static const struct vcase passes[] = {
    /* ROCm from pip: PyTorch's wheel loads its own torch/lib, no system ROCm */
    {"rocm.install",
     AMD "rocm.installs=[]; rocm.install_count=0; rocm.version=?no ROCm install found; "
         "rocm.source=?no ROCm install found; "
         "rocm.torch_lib_set=wheel:/venv/lib/python3.12/site-packages/torch/lib; "
         "rocm.user_space=no system ROCm: PyTorch loads its wheel's own ROCm user space from "
         "/venv/lib/python3.12/site-packages/torch/lib (HIP 6.2.41133)",
     ST_PASS, "wheel's own ROCm user space", NULL, NULL},
    /* gfx1103 (Radeon 780M) is listed from 10.0; the newest list with no ROCm */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1103; rocm.series='10.0; rocm.version=10.0.0; rocm.support_series='10.0",
     ST_PASS, "gfx1103 is supported", NULL, NULL},
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1103; rocm.series=?no ROCm install found; "
         "rocm.version=?no ROCm install found; rocm.support_series=?no ROCm install found",
     ST_PASS, NULL, NULL, NULL},
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1151; rocm.series='10.1; rocm.version=10.1.0; rocm.newer_than_data=false; "
         "rocm.stream=production; rocm.support_series='10.1",
     ST_PASS, NULL, NULL, NULL},
    {"vla.backend_gaps",
     VLA_GPU VLA_GAPS_NONE "vla.device=MI210; vla.backend_gaps_n=1; "
                           "vla.backend_gaps.flash_attention=needs mma.sync; "
                           "vla.backend_gaps=flash_attention: needs mma.sync",
     ST_PASS,
     "hip on MI210: the Lt BLAS and graph capture ran; fast paths not taken: 1 "
     "[flash_attention: needs mma.sync]",
     NULL, NULL},
    {"vla.selftest", VLA_CPU, ST_PASS, "tiny ran on the CPU reference backend: 58.5 ms", NULL,
     NULL},
    /* the support data has every release: gfx1030 on 5.4, gfx1201 on a
     * release newer than the data (its newest row, 7.2) */
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1030; rocm.series=5.4; rocm.version=5.4.3; rocm.support_series=5.4", ST_PASS,
     NULL, NULL, NULL},
    {"gpu.gfx_supported",
     AMD "gpu.0.gfx=gfx1201; rocm.series=7.3; rocm.version=7.3.0; rocm.support_series=7.2", ST_PASS,
     NULL, NULL, NULL},
    /* a cap 2 % below the default is the board's own rounding; a raised
     * cap passes; one allowed CPU on the GPU's node is enough; a one-node
     * host passes whatever the GPU's numa_node says */
    {"gpu.power_cap",
     AMD "gpu.0.power_cap_w=207.8; gpu.0.power_cap_default_w=212.0; gpu.0.power_cap_max_w=243.0; "
         "gpu.0.power_profile=COMPUTE",
     ST_PASS, "power profile COMPUTE", NULL, NULL},
    {"gpu.power_cap",
     AMD "gpu.0.power_cap_w=222.0; gpu.0.power_cap_default_w=212.0; gpu.0.power_cap_max_w=243.0; "
         "gpu.0.power_profile=?no profile is marked active",
     ST_PASS, "power cap 222 W", NULL, NULL},
    {"gpu.numa_affinity",
     AMD "host.numa_nodes=2; gpu.0.numa_node=1; gpu.0.numa_node_cpus=64-127; "
         "gpu.0.numa_allowed_cpus=1; host.cpus_allowed=0-64",
     ST_PASS, "1 CPU of the GPU's NUMA node (2 nodes on this host)", NULL, NULL},
    {"gpu.numa_affinity",
     AMD "host.numa_nodes=1; gpu.0.numa_node=?numa_node is -1; gpu.0.numa_node_cpus=0-15; "
         "gpu.0.numa_allowed_cpus=16; host.cpus_allowed=0-15",
     ST_PASS, "(1 node on this host)", NULL, NULL},
    /* the host itself, and a container with CAP_SYS_NICE, pass with the line */
    {"env.container_run",
     AMD "kfd.present=true; env.container=none; env.seccomp_filter=false; "
         "env.cap_sys_nice=true; container.docker_run=docker run --device=/dev/kfd "
         "--device=/dev/dri --group-add 44 --group-add 109 --security-opt seccomp=unconfined",
     ST_PASS, "--group-add 44 --group-add 109", NULL, NULL},
    {"env.container_run",
     AMD "kfd.present=true; env.container=docker; env.seccomp_filter=true; "
         "env.cap_sys_nice=true; container.docker_run=docker run --device=/dev/kfd",
     ST_PASS, NULL, NULL, NULL},
    /* counted nouns: "1 AMD GPU", "1 library" */
    {"gpu.present", "gpu.count=1; gpu.names=[Radeon RX 7900 XTX]", ST_PASS, "1 AMD GPU: ", NULL,
     NULL},
    /* NUMA balancing on a Radeon is not judged; ASPM off passes; memlock unlimited */
    {"kernel.numa_balancing", AMD "kernel.numa_balancing=1; gpu.0.gfx=gfx1030", ST_PASS,
     "judged only there", NULL, NULL},
    {"kernel.numa_balancing", "gpu.count=0; kernel.numa_balancing=1", ST_PASS, NULL, NULL, NULL},
    {"pcie.aspm",
     AMD "gpu.0.is_apu=false; gpu.0.aspm.gpu_link_on=false; gpu.0.aspm.gpu_link_states=[]; "
         "pcie.aspm_policy=performance; gpu.0.aspm.links=[0000:05:00.0 [1002:74a1]: off]",
     ST_PASS, "ASPM is off", NULL, NULL},
    {"host.memlock",
     AMD "gpu.0.gfx=gfx942; host.memlock_unlimited=true; host.memlock_bytes=?unlimited; "
         "host.memlock_limit=unlimited",
     ST_PASS, "memlock is unlimited", NULL, NULL},
    /* one Radeon: an 8 MiB limit is not judged (hipHostMalloc does not count) */
    {"host.memlock",
     AMD "gpu.0.gfx=gfx1030; host.memlock_unlimited=false; host.memlock_bytes=8388608; "
         "host.memlock_limit=8.0 MiB",
     ST_PASS, "memlock is 8.0 MiB", NULL, NULL},
    {"cpu.governor", "cpu.governor_pins_min=false; cpu.governors=[powersave (intel_pstate)]",
     ST_PASS, "powersave (intel_pstate)", NULL, NULL},
    {"gpu.target_binaries", "gpu.count=0; binaries.scanned=1; binaries.with_code=1", ST_SKIP,
     "(1 library scanned", NULL, NULL},
    {"gpu.target_binaries", "gpu.count=0; binaries.scanned=2; binaries.with_code=1", ST_SKIP,
     "(2 libraries scanned", NULL, NULL},
    /* the soak checks of a steady run */
    {"soak.run",
     "soak.error=; soak.calls=19000; soak.duration_s=600; soak.interrupted=false; "
     "soak.preset=pi0; soak.device=H200",
     ST_PASS, "19000 calls of pi0 on H200", NULL, NULL},
    {"soak.latency_drift",
     "soak.error=; soak.p99_first_ms=31; soak.p99_last_ms=32; soak.p99_growth_pct=3.2; "
     "soak.window_s=60",
     ST_PASS, NULL, NULL, NULL},
    {"soak.clock", "soak.sclk_first_mhz=1980; soak.sclk_last_mhz=1960; soak.sclk_drop_pct=1",
     ST_PASS, NULL, NULL, NULL},
    {"soak.thermal",
     "soak.temp_at_limit=false; soak.temp_margin_c=20; soak.temp_hottest=GPU 0 junction 70 C of "
     "its 90 C limit",
     ST_PASS, NULL, NULL, NULL},
    {"soak.throttle",
     "soak.throttle_events=0; soak.throttle_reasons=; soak.throttle_since_start=PPT0", ST_PASS,
     "set from the start: 'PPT0'", NULL, NULL},
    {"soak.vram", "soak.vram_growth_bytes=1048576", ST_PASS, NULL, NULL, NULL},
    {"soak.outliers", "soak.outliers=2; soak.outliers_unexplained=0; soak.outlier_causes=[]",
     ST_PASS, NULL, NULL, NULL},
    /* issue 22: informational lines alone are no problem; a BAR failure of
     * another device does not judge this GPU */
    {"kernel.dmesg",
     "kernel.dmesg_readable=true; kernel.dmesg.gpu_page_fault=false; "
     "kernel.dmesg.memory_access_fault=false; kernel.dmesg.compute_hang=false; "
     "kernel.dmesg.pci_rejects_atomics=false; kernel.dmesg.kfd_unsupported=false; "
     "kernel.dmesg.key_rejected=false; kernel.dmesg.module_rejected=false; "
     "kernel.dmesg.signatures=[hmm_registered,firmware_optional]; kernel.dmesg.problems=[]; "
     "kernel.dmesg.line_count=900",
     ST_PASS, "in 900 lines", NULL, NULL},
    {"gpu.large_bar",
     AMD "gpu.0.driver_bound=true; gpu.0.pci=0000:03:00.0; gpu.0.is_apu=false; "
         "kernel.dmesg.bar_unassigned_devices=[0000:04:00.0]; gpu.0.vis_vram_bytes=17179869184; "
         "gpu.0.vram_bytes=17179869184",
     ST_PASS, NULL, NULL, NULL},
    {"kernel.gpu_resets",
     AMD "kernel.dmesg_readable=true; kernel.events.gpu_reset_failed.count=0; "
         "kernel.events.vram_lost.count=0; kernel.events.device_wedged.count=0; "
         "kernel.events.compute_hang.count=0; kernel.events.gpu_reset_begin.count=0; "
         "kernel.events.ring_reset_failed.count=0; kernel.events.ring_reset_succeeded.count=0; "
         "kernel.events.ring_reset.count=0; kernel.events.ring_timeout.count=0; "
         "kernel.events.mes_failure.count=0; kernel.events.kiq_failure.count=0; "
         "kernel.dmesg.line_count=900",
     ST_PASS, NULL, NULL, NULL},
};

/* the rule that decided (result.rule): a case on each side of a boundary,
 * so that a threshold moved or a rule removed shows even where another rule
 * gives the same status; and each rule that tools/dead_rules.c once found
 * dead, now reached */
struct rcase {
    const char *id;
    const char *facts;
    enum status want;
    const char *rule;
};

#define FP_OK                                                                                      \
    "gpu.fp.available=true; gpu.fp.gemm.failures=0; gpu.fp.gemm.nonfinite=0; "                     \
    "gpu.fp.gemm.f16.max_bound_ratio=0.5; gpu.fp.gemm.bf16.max_bound_ratio=0.5; "                  \
    "gpu.fp.attn.finite=true; gpu.fp.attn.max_bound_ratio=0.5; gpu.fp.overflow.ok=true; "          \
    "gpu.fp.conv.f16_mismatches=0; gpu.fp.conv.bf16_mismatches=0; "                                \
    "gpu.fp.determinism.gemm_identical=true; gpu.fp.determinism.reduce_identical=true; "

#define PCIE_ATOMICS "gpu.0.is_apu=false; kernel.dmesg.pci_rejects_atomics=false; "

/* kfd.access: the rule each open() result of /dev/kfd is decided by */
static const struct {
    const char *open_result, *rule;
} kfd_kinds[] = {{"EACCES", "fail[5]"}, {"EPERM", "fail[6]"},  {"ENXIO", "fail[7]"},
                 {"ENODEV", "fail[7]"}, {"EAGAIN", "fail[8]"}, {"ENOENT", "fail[9]"},
                 {"EBUSY", "fail[10]"}, {"ok", "pass"}};

static const struct rcase rules[] = {
    /* issue 21: failure kinds, each decided by its own rule */
    {"pcie.link",
     AMD "gpu.0.is_apu=false; gpu.0.link.width=16; gpu.0.link.max_width=16; "
         "gpu.0.link.reachable_speed_gts=8.0; gpu.0.link.max_speed_gts=16.0",
     ST_WARN, "warn[0]"},
    {"render.vulkan",
     AMD "render.vulkan_software_only=false; render.vulkan_loader=true; render.vulkan_error=; "
         "render.vulkan_amd_device=false; render.vulkan_devices=[llvmpipe]",
     ST_FAIL, "fail[6]"},
#define TORCH                                                                                      \
    AMD "python.present=true; python.torch_present=true; python.torch_version=2.11.0; "            \
        "python.torch_wheel_index=https://download.pytorch.org/whl/rocm6.4; "                      \
        "python.externally_managed=false; python.executable=/usr/bin/python3; python.torch_build="
    {"python.torch_build", TORCH "cuda", ST_FAIL, "fail[17]"},
    {"python.torch_build", TORCH "cpu", ST_FAIL, "fail[18]"},
    {"python.torch_build", TORCH "xpu", ST_FAIL, "fail[19]"},
/* no pip module: ensurepip first where pip may install, else a venv
 * (Debian's package first where ensurepip is stripped); pip present or
 * unknown keeps the `-m pip` fix */
#define NOPIP "; python.pip_present=false; python.ensurepip_present="
    {"python.torch_build", TORCH "cuda" NOPIP "true", ST_FAIL, "fail[13]"},
    {"python.torch_build", TORCH "cuda" NOPIP "false; host.os_id=debian", ST_FAIL, "fail[14]"},
    {"python.torch_build", TORCH "cuda" NOPIP "false; host.os_id=fedora", ST_FAIL, "fail[15]"},
    {"python.torch_build", TORCH "cuda" NOPIP "?no stdlib path", ST_FAIL, "fail[16]"},
    {"python.torch_build", TORCH "cuda; python.pip_present=true; python.ensurepip_present=true",
     ST_FAIL, "fail[17]"},
    {"python.torch_build", TORCH "cuda; python.pip_present=?no pip_dir", ST_FAIL, "fail[17]"},
    /* externally managed outside a venv: the PEP 668 venv, pip or not */
    {"python.torch_build",
     TORCH "cuda" NOPIP "true; python.externally_managed=true; python.in_venv=false", ST_FAIL,
     "fail[12]"},
    /* in a venv its base Python's marker does not bind pip: ensurepip */
    {"python.torch_build",
     TORCH "cuda" NOPIP "true; python.externally_managed=true; python.in_venv=true", ST_FAIL,
     "fail[13]"},
    /* the marker unknown outside a venv: never ensurepip, a venv */
    {"python.torch_build",
     TORCH "cuda" NOPIP "true; python.externally_managed=?no stdlib; python.in_venv=false", ST_FAIL,
     "fail[16]"},
#undef NOPIP
    /* gpu.ras: each family on its own decides its rule; nothing is "replace
     * the card" for a count alone */
    {"gpu.ras", AMD RAS_OK "gpu.0.ras_link_ue=1", ST_FAIL, "fail[1]"},
    {"gpu.ras", AMD RAS_OK "gpu.0.ras_umc_ue=2; gpu.0.ras_ue=2", ST_WARN, "warn[0]"},
    {"gpu.ras", AMD RAS_OK "gpu.0.ras_ce=17", ST_WARN, "warn[1]"},
    {"gpu.ras", AMD RAS_OK, ST_PASS, "pass"},
    /* a counter the driver could not answer is never 0 */
    {"gpu.ras",
     AMD RAS_OK "gpu.0.ras_engine_ue=?inaccessible; "
                "gpu.0.ras_unreadable=[gfx: Query currently inaccessible]",
     ST_WARN, "warn[2]"},
    {"gpu.ras", AMD "gpu.0.ras_present=false", ST_SKIP, "skip[2]"},
    /* gpu.partition: each side of the 11.5 and 15.5 GiB classes per device */
    {"gpu.partition", AMD PART "gpu.0.vram_kfd_bytes=12348030976", ST_WARN, "warn[0]"},
    {"gpu.partition", AMD PART "gpu.0.vram_kfd_bytes=16642998272", ST_PASS, "pass"},
    {"gpu.partition", AMD PART "gpu.0.vram_kfd_bytes=25769803776", ST_PASS, "pass"},
    {"gpu.partition", AMD PART "gpu.0.vram_kfd_bytes=12348030975", ST_FAIL, "fail[0]"},
    /* SPX: one device with all the VRAM is gpu.vram's to judge */
    {"gpu.partition",
     AMD "gpu.0.compute_partition=SPX; gpu.0.memory_partition=NPS1; gpu.0.kfd_partitions=1; "
         "gpu.0.vram_kfd_bytes=8589934592",
     ST_PASS, "pass"},
    /* partitioned but the VRAM per device unknown: never a pass */
    {"gpu.partition", AMD PART "gpu.0.vram_kfd_bytes=?no mem_banks", ST_SKIP, "fail[0]?"},
    {"gpu.partition", AMD "gpu.0.compute_partition=?not partitionable", ST_SKIP, "skip[2]"},
    /* gpu.virt: a guest whose atomics pass, bare metal, unknown */
    {"gpu.virt",
     AMD "host.vm=true; host.hypervisor=KVM/QEMU; gpu.0.virtual_root_port=true; "
         "gpu.0.atomics.path_ok=true; gpu.0.atomics.missing_at=",
     ST_PASS, "pass"},
    {"gpu.virt", AMD "host.vm=false; host.hypervisor=none (bare metal)", ST_SKIP, "skip[3]"},
    {"gpu.virt", AMD "host.vm=?no flags line", ST_SKIP, "skip[2]"},
    /* gpu.ras_pages: each side of the threshold (655) and of 80 % (524) */
    {"gpu.ras_pages", AMD RAS_PAGES "gpu.0.ras_pages_retired=654; gpu.0.ras_pages_pending=1",
     ST_WARN, "warn[0]"},
    {"gpu.ras_pages",
     AMD RAS_PAGES "gpu.0.ras_page_threshold_param=1; gpu.0.ras_pages_retired=654; "
                   "gpu.0.ras_pages_pending=1",
     ST_FAIL, "fail[1]"},
    {"gpu.ras_pages",
     AMD RAS_PAGES "gpu.0.ras_page_threshold_param=0; gpu.0.ras_pages_retired=654; "
                   "gpu.0.ras_pages_pending=1",
     ST_WARN, "warn[0]"},
    {"gpu.ras_pages", AMD RAS_PAGES "gpu.0.ras_pages_retired=654; gpu.0.ras_pages_pending=0",
     ST_WARN, "warn[1]"},
    {"gpu.ras_pages", AMD RAS_PAGES "gpu.0.ras_pages_retired=524; gpu.0.ras_pages_pending=0",
     ST_WARN, "warn[1]"},
    {"gpu.ras_pages", AMD RAS_PAGES "gpu.0.ras_pages_retired=523; gpu.0.ras_pages_pending=0",
     ST_PASS, "pass"},
    {"gpu.ras_pages", AMD RAS_PAGES "gpu.0.ras_pages_retired=2; gpu.0.ras_pages_pending=1", ST_WARN,
     "warn[2]"},
    {"gpu.ras_pages",
     AMD RAS_PAGES "gpu.0.ras_pages_retired=2; gpu.0.ras_pages_pending=0; gpu.0.ras_pages_failed=1",
     ST_FAIL, "fail[0]"},
    /* retirement off: no threshold, the pending pages still warn */
    {"gpu.ras_pages",
     AMD "gpu.0.ras_present=true; gpu.0.ras_pages_failed=0; gpu.0.ras_page_threshold=?off; "
         "gpu.0.ras_pages_retired=0; gpu.0.ras_pages_pending=1",
     ST_WARN, "warn[2]"},
    {"gpu.ras_pages", AMD "gpu.0.ras_present=true; gpu.0.ras_pages_retired=?no table", ST_SKIP,
     "skip[3]"},
    /* kernel.svm: the config decides; without it the kernel log does */
    {"kernel.svm", AMD "kernel.svm_config=n", ST_FAIL, "fail[0]"},
    {"kernel.svm", AMD "kernel.svm_config=y", ST_PASS, "pass"},
    {"kernel.svm", AMD "kernel.svm_config=?no config; kernel.dmesg.hmm_registered=false", ST_WARN,
     "warn[0]"},
    {"kernel.svm", AMD "kernel.svm_config=?no config; kernel.dmesg.hmm_registered=true", ST_PASS,
     "pass"},
    {"kernel.svm", "gpu.count=0", ST_SKIP, "skip[0]"},
    /* fp.correctness: a clamp that hides NaN warns once every fail rule is clear */
    {"fp.correctness", FP_OK "gpu.fp.nan.clamp_compare_hides_nan=true", ST_WARN, "warn[0]"},
    {"fp.correctness", FP_OK "gpu.fp.nan.clamp_compare_hides_nan=false", ST_PASS, "pass"},
    {"fp.correctness", FP_OK "gpu.fp.nan.clamp_compare_hides_nan=?not run", ST_SKIP, "warn[0]?"},
    {"fp.correctness", "gpu.fp.available=true; gpu.fp.gemm.failures=?not run", ST_SKIP, "fail[0]?"},
    {"fp.correctness", "gpu.fp.available=false", ST_SKIP, "skip[0]"},
    /* an APU has no PCIe link of its own: its skip rule decides, not an
     * unknown link fact further down */
    {"pcie.link", AMD "gpu.0.is_apu=true", ST_SKIP, "skip[2]"},
    {"pcie.aspm", AMD "gpu.0.is_apu=true", ST_SKIP, "skip[1]"},
    {"kernel.pci_realloc", AMD "gpu.0.is_apu=true", ST_SKIP, "skip[2]"},
    {"pcie.atomics", AMD "gpu.0.is_apu=true", ST_SKIP, "skip[2]"},
    /* pcie.atomics: each fail and warn rule on its own */
    {"pcie.atomics",
     AMD PCIE_ATOMICS "gpu.0.needs_atomics=true; gpu.0.atomics.path_ok=true; "
                      "gpu.0.atomics.requester_enabled=false; "
                      "gpu.0.kfd_refuses_without_atomics=true; gpu.0.mec_fw=80",
     ST_FAIL, "fail[3]"},
    /* KFD's verdict unknown (or KFD takes the GPU): a family that needs
     * atomics still fails, HIP's hostcall needs them (ROCm/ROCm#2429) */
    {"pcie.atomics",
     AMD PCIE_ATOMICS
     "gpu.0.needs_atomics=true; gpu.0.atomics.path_ok=true; "
     "gpu.0.atomics.requester_enabled=false; kernel.dmesg.atomics_unsupported=false",
     ST_FAIL, "fail[4]"},
    {"pcie.atomics",
     AMD PCIE_ATOMICS "gpu.0.needs_atomics=false; gpu.0.atomics.path_ok=true; "
                      "gpu.0.atomics.requester_enabled=true; kernel.dmesg.atomics_unsupported=true",
     ST_WARN, "warn[0]"},
    {"pcie.atomics",
     AMD PCIE_ATOMICS
     "gpu.0.needs_atomics=false; gpu.0.atomics.path_ok=false; "
     "gpu.0.atomics.requester_enabled=true; kernel.dmesg.atomics_unsupported=false",
     ST_WARN, "warn[2]"},
    {"pcie.atomics",
     AMD PCIE_ATOMICS
     "gpu.0.needs_atomics=false; gpu.0.atomics.path_ok=true; "
     "gpu.0.atomics.requester_enabled=false; kernel.dmesg.atomics_unsupported=false",
     ST_WARN, "warn[3]"},
    {"pcie.atomics",
     AMD PCIE_ATOMICS
     "gpu.0.needs_atomics=true; gpu.0.atomics.path_ok=true; "
     "gpu.0.atomics.requester_enabled=true; kernel.dmesg.atomics_unsupported=false",
     ST_PASS, "pass"},
    /* pcie.atomics in a guest: the VM's root port is named as the cause */
    {"pcie.atomics",
     AMD PCIE_ATOMICS GUEST "gpu.0.needs_atomics=true; gpu.0.atomics.path_ok=false; "
                            "gpu.0.atomics.requester_enabled=true; gpu.0.mec_fw=80; "
                            "kernel.dmesg.atomics_unsupported=false; "
                            "gpu.0.kfd_refuses_without_atomics=true",
     ST_FAIL, "fail[1]"},
    {"pcie.atomics",
     AMD PCIE_ATOMICS GUEST "gpu.0.needs_atomics=false; gpu.0.atomics.path_ok=false; "
                            "gpu.0.atomics.requester_enabled=true; "
                            "kernel.dmesg.atomics_unsupported=false",
     ST_WARN, "warn[1]"},
    /* gpu.xgmi: each skip, fail and the pass */
    {"gpu.xgmi", AMD "gpu.0.xgmi_hive_id=?no xgmi_hive_info", ST_SKIP, "skip[2]"},
    {"gpu.xgmi", AMD XGMI_OK "gpu.0.xgmi_hive_gpus=1", ST_SKIP, "skip[3]"},
    {"gpu.xgmi", AMD XGMI_OK "gpu.0.xgmi_links=6", ST_FAIL, "fail[1]"},
    {"gpu.xgmi", AMD XGMI_OK "gpu.0.xgmi_links_slow=[gpu.3]", ST_FAIL, "fail[2]"},
    {"gpu.xgmi", AMD XGMI_OK "gpu.0.xgmi_links_expected=?not fully connected", ST_PASS, "pass"},
    {"gpu.xgmi", AMD XGMI_OK, ST_PASS, "pass"},
    /* gpu.vram per partition: 12 GiB warns, 24 GiB passes on a 192 GiB board */
    {"gpu.vram",
     AMD "gpu.0.vram_bytes=206158430208; gpu.0.kfd_partitions=8; gpu.0.vram_kfd_bytes=12884901888",
     ST_WARN, "warn[0]"},
    {"gpu.vram",
     AMD "gpu.0.vram_bytes=206158430208; gpu.0.kfd_partitions=8; gpu.0.vram_kfd_bytes=25769803776",
     ST_PASS, "pass"},
    {"gpu.vram",
     AMD "gpu.0.vram_bytes=8589934592; gpu.0.kfd_partitions=1; gpu.0.vram_kfd_bytes=8589934592",
     ST_FAIL, "fail[1]"},
    /* torch.gap: each cause on its own, ROCm's (rocBLAS, TunableOp) included */
    {"torch.gap", TORCH_OK, ST_PASS, "pass"},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0; torch.sdpa_backend=math", ST_WARN,
     "warn[0]"},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0; torch.blas=rocblas", ST_WARN, "warn[1]"},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0; torch.hip=; torch.blas=rocblas", ST_WARN,
     "warn[6]"},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0; torch.graph_error=capture failed", ST_WARN,
     "warn[2]"},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0; torch.cpu_copies=true", ST_WARN, "warn[3]"},
    {"torch.gap",
     TORCH_OK "torch.latency.best_ms=90.0; torch.latency.best_mode=eager; torch.compile.ok=false",
     ST_WARN, "warn[4]"},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0; torch.tunableop=false", ST_WARN, "warn[5]"},
    {"torch.gap", TORCH_OK "torch.latency.best_ms=90.0; torch.hip=; torch.tunableop=false", ST_WARN,
     "warn[6]"},
    {"torch.gap", TORCH_OK "vla.backend=cpu", ST_SKIP, "skip[1]"},
    {"torch.gap", "torch.available=false; torch.why=no GPU", ST_SKIP, "skip[0]"},
    {"torch.latency", TORCH_OK, ST_PASS, "pass"},
    {"torch.latency", TORCH_OK "torch.preset=lingbot-v2; torch.latency.best_ms=120.0", ST_PASS,
     "pass"},
    {"torch.numerics", TORCH_OK "torch.numerics.max_error_rel=0.1", ST_WARN, "warn[0]"},
    {"torch.matches_doctor", TORCH_OK, ST_PASS, "pass"},
    {"torch.matches_doctor", TORCH_OK "torch.shared.cosine=?no shared", ST_SKIP, "fail[0]?"},
};

/* rule: the deciding rule wanted (result.rule), NULL: any */
static void run_case(const struct checkset *cs, const struct vcase *c, const char *rule)
{
    struct factset fs = FACTSET_INIT;
    facts_from(&fs, c->facts);
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, c->id);
    struct run_filter flt = {LEVEL_SOAK, &only}; /* every level */
    struct results r;
    CHECK(checks_run(cs, &fs, &flt, &r) == 0);
    const struct result *v = r.n == 1 ? &r.v[0] : NULL;
    int ok = v && v->st == c->want && (!c->summary_has || strstr(v->summary, c->summary_has)) &&
             (!c->fix_has || (v->fix && strstr(v->fix, c->fix_has))) &&
             (!c->fix_lacks || !v->fix || !strstr(v->fix, c->fix_lacks));
    ok = ok && (!rule || strcmp(v->rule, rule) == 0);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s: got %s (%s) \"%s\" fix \"%s\", want %s (%s)\n", c->id,
                v ? status_name(v->st) : "nothing", v ? v->rule : "", v ? v->summary : "",
                v && v->fix ? v->fix : "", status_name(c->want), rule ? rule : "any rule");
    results_release(&r);
    strlist_release(&only);
    factset_release(&fs);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    struct checkset cs;
    /* RVD_TEST_CHECKS: a mutant of checks.yaml (make mutation) */
    CHECK(checks_load_default(&cs, getenv("RVD_TEST_CHECKS")) == 0);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        CHECK(cases[i].want != ST_PASS);
        run_case(&cs, &cases[i], NULL);
    }
    for (size_t i = 0; i < ARRAY_SIZE(passes); i++)
        run_case(&cs, &passes[i], NULL);
    for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
        const struct vcase c = {rules[i].id, rules[i].facts, rules[i].want, NULL, NULL, NULL};
        run_case(&cs, &c, rules[i].rule);
    }
    for (size_t i = 0; i < ARRAY_SIZE(kfd_kinds); i++) {
        char facts[512];
        snprintf(facts, sizeof(facts), KFD_OPEN "%s", kfd_kinds[i].open_result);
        const struct vcase c = {
            "kfd.access", facts, i + 1 < ARRAY_SIZE(kfd_kinds) ? ST_FAIL : ST_PASS,
            NULL,         NULL,  NULL};
        run_case(&cs, &c, kfd_kinds[i].rule);
    }
    /* every check has a case where it does not pass */
    for (size_t i = 0; i < cs.n; i++) {
        int found = 0;
        for (size_t j = 0; j < ARRAY_SIZE(cases) && !found; j++)
            found = strcmp(cases[j].id, cs.v[i].id) == 0;
        CHECK(found);
        if (!found)
            fprintf(stderr, "  %s: no case where it does not pass\n", cs.v[i].id);
    }
    checks_release(&cs);
    return test_report();
}
