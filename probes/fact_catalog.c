/* fact_catalog.c - the facts each probe declares it can produce (see
 * fact_catalog.h). A probe that sets a fact not listed here, or of another
 * type, is caught by tests/catalog.sh: it checks every fact of the fixture
 * machines, the CPU runs and the GPU layer's reports against these lists,
 * and every fact_set_<type>() call with a literal name in the sources. */
#include "fact_catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/suggest.h"
#include "probe.h"

/* clang-format off */
#define B FACT_BOOL
#define I FACT_INT
#define F FACT_FLOAT
#define S FACT_STR
#define L FACT_LIST
#define END {NULL, FACT_UNKNOWN}
/* what gpu_probe_begin()/gpu_probe_unavailable() set under a GPU probe's prefix */
#define GPU_PROBE_START(p) {p ".available", B}, {p ".why", S}, {p ".backend", S}, {p ".device", S}

static const struct fact_decl facts_host[] = {
    {"host.hostname", S}, {"host.os", S}, {"host.os_id", S}, {"host.os_id_like", L}, {"host.os_family", S}, {"kernel.release", S}, {"kernel.version_code", I},
    END};

/* probe_virt.c */
static const struct fact_decl facts_virt[] = {
    {"host.vm", B}, {"host.hypervisor", S}, {"gpu.<i>.sriov_vf", B}, {"gpu.<i>.vf_name", S}, {"gpu.<i>.virt_function", S},
    {"gpu.<i>.sriov_totalvfs", I}, {"gpu.<i>.sriov_numvfs", I},
    {"gpu.<i>.virtual_root_port", B},
    END};

/* probe_link_watch.c */
static const struct fact_decl facts_link_start[] = {
    {"gpu.<i>.link.watch_start_width", I}, {"gpu.<i>.link.watch_start_speed_gts", F},
    END};
static const struct fact_decl facts_link_end[] = {
    {"gpu.<i>.link.watch_end_width", I}, {"gpu.<i>.link.watch_end_speed_gts", F},
    END};

static const struct fact_decl facts_env[] = {
    {"env.recorded", B}, {"env.var.<VAR>", S},
    {"env.gpu_visibility", L}, {"env.gpu_visibility_none", B},
    {"env.gpu_visibility_entries", I}, {"env.debug_left", L},
    END};

static const struct fact_decl facts_driver[] = {
    {"driver.module_present", B}, {"driver.dkms", B}, {"driver.initstate", S},
    {"driver.loaded", B}, {"driver.version", S},
    END};

static const struct fact_decl facts_kernel_log[] = {
    {"kernel.dmesg.atomics_unsupported", B}, {"kernel.dmesg.pci_rejects_atomics", B},
    {"kernel.dmesg.gpu_page_fault", B}, {"kernel.dmesg.memory_access_fault", B},
    {"kernel.dmesg.kfd_unsupported", B}, {"kernel.dmesg.key_rejected", B},
    {"kernel.dmesg.hmm_registered", B}, {"kernel.dmesg.module_rejected", B},
    {"kernel.dmesg.firmware_failed", B}, {"kernel.dmesg.probe_failed", B},
    {"kernel.dmesg.ring_timeout", B}, {"kernel.dmesg.gpu_reset_begin", B},
    {"kernel.dmesg.gpu_reset_succeeded", B}, {"kernel.dmesg.gpu_reset_failed", B},
    {"kernel.dmesg.vram_lost", B}, {"kernel.dmesg.mes_failure", B},
    {"kernel.dmesg.kiq_failure", B}, {"kernel.dmesg.bar_no_space", B},
    {"kernel.dmesg.bar_resize_failed", B}, {"kernel.dmesg.ring_reset", B},
    {"kernel.dmesg.ring_reset_succeeded", B}, {"kernel.dmesg.ring_reset_failed", B},
    {"kernel.dmesg.device_wedged", B}, {"kernel.dmesg.device_wedged_recovered", B},
    {"kernel.dmesg.gpu_recovery_disabled", B}, {"kernel.dmesg.compute_hang", B},
    {"kernel.dmesg.firmware_optional", B}, {"kernel.dmesg.pci_bar_no_space", B},
    {"kernel.dmesg.pci_bar_unassigned", B}, {"kernel.dmesg.ip_init_failed", B},
    {"kernel.dmesg.psp_failed", B}, {"kernel.dmesg.ring_test_failed", B},
    /* the problem ids (kernel.dmesg.signatures less the informational ones),
     * the devices whose own BAR stayed unassigned, the ASICs KFD refused */
    {"kernel.dmesg.problems", L}, {"kernel.dmesg.bar_unassigned_devices", L},
    {"kernel.dmesg.kfd_unsupported_asics", L},
    /* per signature id of kernel_log_sigs.c: lines since boot, the last one's time */
    {"kernel.events.<id>.count", I}, {"kernel.events.<id>.last", F},
    {"kernel.events", L}, {"kernel.events.fault_processes", L},
    {"kernel.dmesg.firmware_files", L},
    {"kernel.dmesg.line_count", I}, {"kernel.dmesg.signatures", L}, {"kernel.dmesg.lines", L},
    {"kernel.dmesg_readable", B}, {"kernel.dmesg_error", S},
    END};

static const struct fact_decl facts_kfd[] = {
    {"kfd.present", B}, {"kfd.open_result", S}, {"kfd.group", S}, {"kfd.mode", S},
    {"dri.render_present", B}, {"dri.render_nodes", L}, {"dri.render_group", S},
    {"dri.render_groups", L}, {"container.group_ids", L}, {"container.docker_run", S},
    END};

static const struct fact_decl facts_user[] = {
    {"user.name", S}, {"user.uid", I}, {"user.is_root", B}, {"host.sudo_present", B}, {"user.groups", L},
    {"user.db_groups", L}, {"user.in_device_groups", B}, {"user.db_in_device_groups", B},
    {"user.sudo_user", S}, {"user.sudo_db_in_device_groups", B},
    END};

static const struct fact_decl facts_container[] = {
    {"env.wsl", B}, {"env.container", S}, {"env.seccomp_filter", B}, {"env.cap_sys_nice", B},
    END};

static const struct fact_decl facts_gpu[] = {
    {"gpu.count", I}, {"gpu.names", S}, {"gpu.other", L},
    /* PCI and KFD topology */
    {"gpu.<i>.pci", S}, {"gpu.<i>.device_id", S}, {"gpu.<i>.pci_name", S}, {"gpu.<i>.board_name", S}, {"gpu.<i>.kfd_node", I},
    {"gpu.<i>.gfx_target_version", I}, {"gpu.<i>.gfx", S}, {"gpu.<i>.family", S},
    {"gpu.<i>.is_apu", B}, {"gpu.<i>.needs_atomics", B}, {"gpu.<i>.cu_count", I},
    {"gpu.<i>.svm_capable", B}, {"gpu.<i>.gfx_override", S}, {"gpu.<i>.gfx_override_set", B},
    {"gpu.<i>.gfx_override_valid", B}, {"gpu.<i>.gfx_override_major_differs", B},
    {"gpu.<i>.gfx_claimed", S}, {"gpu.<i>.kfd_partitions", I},
    {"gpu.<i>.mec_fw", I}, {"gpu.<i>.kfd_refuses_without_atomics", B},
    /* DRM sysfs (probe_gpu_drm.c) */
    {"gpu.<i>.drm_card", S}, {"gpu.<i>.render_minor", I}, {"gpu.<i>.vram_kfd_bytes", I},
    {"gpu.<i>.vram_bytes", I}, {"gpu.<i>.vis_vram_bytes", I}, {"gpu.<i>.power_w", F},
    {"gpu.<i>.temp_edge_c", F}, {"gpu.<i>.temp_junction_c", F}, {"gpu.<i>.temp_mem_c", F},
    {"gpu.<i>.temp_edge_limit_c", F}, {"gpu.<i>.temp_junction_limit_c", F},
    {"gpu.<i>.temp_mem_limit_c", F}, {"gpu.<i>.temp_sensors", L}, {"gpu.<i>.ras_present", B},
    {"gpu.<i>.ras_ue", I}, {"gpu.<i>.ras_ce", I}, {"gpu.<i>.perf_level", S},
    /* probe_gpu_ras.c: per family, the blocks with errors, bad pages */
    {"gpu.<i>.ras_de", I}, {"gpu.<i>.ras_umc_ue", I}, {"gpu.<i>.ras_umc_ce", I},
    {"gpu.<i>.ras_engine_ue", I}, {"gpu.<i>.ras_link_ue", I}, {"gpu.<i>.ras_ue_blocks", L},
    {"gpu.<i>.ras_ce_blocks", L}, {"gpu.<i>.ras_unreadable", L}, {"gpu.<i>.ras_pages_retired", I},
    {"gpu.<i>.ras_pages_pending", I}, {"gpu.<i>.ras_pages_failed", I},
    {"gpu.<i>.ras_page_threshold", I}, {"gpu.<i>.ras_page_threshold_param", I},
    /* probe_gpu_partition.c: MI300-class compute and memory partitions */
    {"gpu.<i>.compute_partition", S}, {"gpu.<i>.compute_partitions_available", L},
    {"gpu.<i>.memory_partition", S}, {"gpu.<i>.memory_partitions_available", L},
    /* probe_gpu_xgmi.c: XGMI hive and the KFD io_links to the other GPUs */
    {"gpu.<i>.xgmi_hive_id", S}, {"gpu.<i>.xgmi_physical_id", I}, {"gpu.<i>.xgmi_hive_gpus", I},
    {"gpu.<i>.xgmi_links", I}, {"gpu.<i>.xgmi_links_down", L}, {"gpu.<i>.xgmi_links_slow", L},
    {"gpu.<i>.xgmi_bw_min_mbs", I}, {"gpu.<i>.xgmi_links_expected", I},
    {"gpu.<i>.vbios", S}, {"gpu.<i>.serial", S}, {"gpu.<i>.busy_percent", I},
    {"gpu.<i>.power_cap_w", F}, {"gpu.<i>.power_cap_default_w", F}, {"gpu.<i>.power_cap_max_w", F},
    {"gpu.<i>.power_profile", S},
    {"host.numa_nodes", I}, {"host.cpus_allowed", S}, {"host.cpus_allowed_count", I},
    {"gpu.<i>.numa_node", I}, {"gpu.<i>.numa_node_cpus", S}, {"gpu.<i>.numa_allowed_cpus", I},
    /* probe_gpu_fw.c: one per <device>/fw_version/<name>_fw_version */
    {"gpu.<i>.fw.<name>", S}, {"gpu.<i>.fw_count", I}, {"gpu.<i>.fw_not_loaded", L},
    {"gpu.<i>.users", S}, {"gpu.<i>.user_count", I},
    END};

static const struct fact_decl facts_pcie[] = {
    {"gpu.<i>.link.hops", L}, {"gpu.<i>.link.hop_count", I}, {"gpu.<i>.link.width", I},
    {"gpu.<i>.link.max_width", I}, {"gpu.<i>.link.narrowest_hop", S},
    {"gpu.<i>.link.speed_gts", F}, {"gpu.<i>.link.max_speed_gts", F},
    {"gpu.<i>.link.reachable_speed_gts", F}, {"gpu.<i>.link.slowest_hop", S},
    {"gpu.<i>.link.slot", S},
    /* probe_pcie_atomics.c */
    {"gpu.<i>.atomics.requester_enabled", B}, {"gpu.<i>.atomics.path_ok", B},
    {"gpu.<i>.atomics.missing_at", S},
    {"gpu.other_links", L},
    /* probe_pcie_health.c */
    {"gpu.<i>.aer.correctable", I}, {"gpu.<i>.aer.nonfatal", I}, {"gpu.<i>.aer.fatal", I},
    {"gpu.<i>.aer.errors", L}, {"gpu.<i>.aer.hops", L}, {"gpu.<i>.aer.hops_read", I}, {"gpu.<i>.pcie_replay_count", I},
    {"gpu.<i>.aspm.links", L}, {"gpu.<i>.aspm.gpu_link_states", L},
    {"gpu.<i>.aspm.gpu_link_on", B}, {"pcie.aspm_policy", S},
    END};

static const struct fact_decl facts_iommu[] = {
    {"iommu.enabled", B}, {"iommu.kind", S}, {"iommu.pt_cmdline", B},
    {"iommu.gpu_domains", L}, {"iommu.translated_gpus", I},
    END};

static const struct fact_decl facts_kernel[] = {
    {"kernel.svm_config", S}, {"kernel.amdgpu_params_nondefault", L}, {"kernel.cmdline", S},
    {"kernel.drm_amdgpu_config", S},
    END};

/* why amdgpu is missing or left a GPU unbound (probe_driver_cause.c) */
static const struct fact_decl facts_driver_cause[] = {
    {"driver.cmdline_blocks", L}, {"driver.modprobe_blocks", L}, {"driver.dkms_versions", L},
    {"driver.dkms_kernels", L}, {"driver.dkms_built_running", B}, {"driver.dkms_make_log", S},
    {"driver.firmware_missing", L}, {"driver.unbound_gpus", L}, {"kernel.amdgpu_module", S},
    {"kernel.secure_boot", B}, {"gpu.<i>.driver", S}, {"gpu.<i>.driver_bound", B},
    END};

#define PEAKS(p) {p ".peak.fp16_tflops", F}, {p ".peak.bf16_tflops", F}, \
    {p ".peak.fp32_tflops", F}, {p ".peak.mem_gbs", F}, {p ".peak.basis", S}, \
    {p ".peak.mem_basis", S}, {p ".peak.why", S}
static const struct fact_decl facts_peaks[] = {
    {"gpu.<i>.sclk_max_mhz", F}, {"gpu.<i>.mclk_max_mhz", F}, {"gpu.<i>.vram_width_bits", I},
    {"gpu.<i>.peak.link_gbs", F}, {"gpu.<i>.peak.link_basis", S},
    PEAKS("gpu.<i>"), PEAKS("runtime.dev.<i>"),
    END};

static const struct fact_decl facts_mem_bandwidth[] = {
    GPU_PROBE_START("membw"), {"membw.copy_gbs", F}, {"membw.mul_gbs", F},
    {"membw.add_gbs", F}, {"membw.triad_gbs", F}, {"membw.dot_gbs", F},
    {"membw.best_gbs", F}, {"membw.best_kernel", S}, {"membw.array_bytes", I},
    {"membw.rounds", I}, {"membw.checked", I}, {"membw.max_rel_err", F}, {"membw.error", S},
    {"membw.best_peak", F}, {"membw.best_fraction", F}, {"membw.best_vs_peak", S},
    END};

static const struct fact_decl facts_rocm_libs[] = {
    {"rocm.lib_deps.roots", L}, {"rocm.lib_deps.checked", I}, {"rocm.lib_deps.missing", L},
    {"rocm.lib_deps.mixed", L}, {"rocm.lib_deps.errors", L}, {"rocm.torch_hip_lib", S},
    {"rocm.torch_lib_set", S}, {"rocm.user_space", S},
    END};

static const struct fact_decl facts_tuning[] = {
    {"kernel.numa_balancing", I}, {"host.memlock_unlimited", B}, {"host.memlock_bytes", I},
    {"host.memlock_limit", S},
    {"kernel.thp_enabled", S}, {"cpu.governors", L}, {"cpu.governor_pins_min", B},
    {"kernel.pci_realloc", B},
    {"host.isolated_cpus", S}, {"host.nohz_full_cpus", S}, {"host.smt_active", B},
    END};

static const struct fact_decl facts_rocm[] = {
    {"rocm.installs", L}, {"rocm.install_count", I}, {"rocm.version", S}, {"rocm.series", S}, {"rocm.support_series", S},
    {"rocm.stream", S}, {"rocm.newer_than_data", B}, {"rocm.support_data", S},
    {"rocm.major", I}, {"rocm.source", S}, {"driver.rocm_series_gap", I},
    {"driver.firmware_package", L},
    {"env.ld_library_path", S}, {"env.ld_cuda_entries", L}, {"env.ld_rocm_other", L},
    END};

static const struct fact_decl facts_python[] = {
    {"python.present", B}, {"python.error", S}, {"python.interpreter", S},
    {"python.interpreter_shim", S}, {"python.interpreter_choice", S},
    {"python.executable", S}, {"python.version", S}, {"python.prefix", S},
    {"python.nvidia_packages", L}, {"python.dist_count", I},
    {"python.torch_present", B}, {"python.torch_dir", S}, {"python.torch_version", S},
    {"python.torch_build", S}, {"python.torch_hip", S}, {"python.torch_hip_series", S},
    {"python.torch_hip_suffix", S}, {"python.torch_cuda", S}, {"python.torch_wheel_index", S},
    {"python.requirements_given", B}, {"python.requirements_file", S},
    {"python.requirements_count", I}, {"python.requirements_cuda", L},
    {"python.requirements_unfollowed", L},
    {"python.requirements_torch_pin", S},
    /* probe_python_env.c */
    {"python.base_prefix", S}, {"python.env_kind", S}, {"python.env_name", S},
    {"python.torch_wheel_tags", L}, {"python.abi_tag", S}, {"python.wheel_tags_match", B},
    {"python.in_venv", B}, {"python.externally_managed", B},
    {"python.ensurepip_present", B}, {"python.venv_package", S},
    {"python.pip_present", B},
    /* probe_python_wheel.c */
    {"python.torch_wheel_index_why", S},
    END};

#define RUNTIME(k)                                                                                 \
    {"runtime." k ".loaded", B}, {"runtime." k ".error", S}, {"runtime." k ".lib", S},            \
    {"runtime." k ".version", S}, {"runtime." k ".init_error", S}, {"runtime." k ".rtc", S},      \
    {"runtime." k ".blas", S}, {"runtime." k ".blaslt", S}
static const struct fact_decl facts_gpu_runtime[] = {
    {"runtime.live", B}, {"runtime.kfd_present", B}, RUNTIME("hip"), RUNTIME("cuda"),
    {"runtime.backend", S}, {"runtime.device_count", I}, {"runtime.version", S},
    {"runtime.lib_set", S},
    {"runtime.dev.<i>.name", S}, {"runtime.dev.<i>.arch", S}, {"runtime.dev.<i>.target", S},
    {"runtime.dev.<i>.pci", S}, {"runtime.dev.<i>.vram_bytes", I},
    {"runtime.dev.<i>.cu_count", I}, {"runtime.dev.<i>.managed", I},
    {"runtime.dev.<i>.concurrent_managed", I}, {"runtime.dev.<i>.pageable_access", I},
    {"runtime.dev.<i>.gpu", I}, {"runtime.dev.<i>.pci_vendor", S},
    {"runtime.dev.<i>.clock_khz", I}, {"runtime.dev.<i>.mem_clock_khz", I},
    {"runtime.dev.<i>.mem_bus_width", I},
    {"runtime.devices", L}, {"runtime.kfd_compared", B}, {"runtime.kfd_mismatch", L},
    {"runtime.unpaired", L}, {"runtime.not_visible", L},
    END};

static const struct fact_decl facts_kernels[] = {
    GPU_PROBE_START("kernels"), {"kernels.compiler", S}, {"kernels.targets", L},
    {"kernels.ok", B}, {"kernels.failed", L}, {"kernels.compiled", I}, {"kernels.cached", I},
    {"kernels.compile_s", F}, {"kernels.device_pci", S},
    END};

#define QUANTILES(k) {"sync." k ".p50", F}, {"sync." k ".p99", F}, {"sync." k ".max", F}
static const struct fact_decl facts_sync[] = {
    GPU_PROBE_START("sync"), QUANTILES("launch_us"), QUANTILES("stream_sync_us"),
    QUANTILES("device_sync_us"), {"sync.samples", I}, {"sync.event_resolution_us", F},
    {"sync.graph10_us.p50", F}, {"sync.null_stream_stale", I}, {"sync.nonblocking_stale", I},
    END};

static const struct fact_decl facts_bandwidth[] = {
    GPU_PROBE_START("bw"), {"bw.link_speed_gts", F}, {"bw.link_width", I}, {"bw.link_gbs", F},
    {"bw.link_payload_gbs", F}, {"bw.h2d_payload_fraction", F},
    {"bw.bytes", I}, {"bw.h2d_pinned_gbs", F}, {"bw.d2h_pinned_gbs", F},
    {"bw.h2d_pageable_gbs", F}, {"bw.d2h_pageable_gbs", F}, {"bw.h2d_link_fraction", F},
    {"bw.triad_gbs", F},
    END};

static const struct fact_decl facts_hmm[] = {
    GPU_PROBE_START("hmm"), {"hmm.managed", I}, {"hmm.concurrent_managed", I},
    {"hmm.pageable_access", I}, {"hmm.device_gbs", F}, {"hmm.pinned_host_gbs", F},
    {"hmm.verdict", S}, {"hmm.pass_gbs", L}, {"hmm.first_pass_gbs", F},
    {"hmm.last_pass_gbs", F}, {"hmm.prefetch_location", I}, {"hmm.after_prefetch_gbs", F},
    {"hmm.prefetch_honoured", B}, {"hmm.pageable_gbs", F},
    END};

static const struct fact_decl facts_mem_release[] = {
    GPU_PROBE_START("memrel"), {"memrel.vendor_lib", S}, {"memrel.vendor_init", S},
    {"memrel.source", S}, {"memrel.source_lib", S}, {"memrel.source_tried", S},
    {"memrel.cycles", I}, {"memrel.chunk_mb", F}, {"memrel.baseline_mb", F},
    {"memrel.peak_mb", F}, {"memrel.after_mb", F}, {"memrel.delta_mb", F},
    {"memrel.runtime_delta_mb", F},
    END};

static const struct fact_decl facts_target_binaries[] = {
    {"binaries.scanned", I}, {"binaries.with_code", I}, {"binaries.libraries", L},
    {"binaries.errors", L}, {"binaries.unknown", L}, {"binaries.torch_dir", S},
    {"binaries.scope", S},
    {"gpu.<i>.binaries.scanned", I}, {"gpu.<i>.binaries.libraries", L},
    {"gpu.<i>.binaries.target", S}, {"gpu.<i>.binaries.missing", L},
    {"gpu.<i>.binaries.unknown", L},
    END};

static const struct fact_decl facts_vulkan[] = {
    {"render.vulkan_loader", B}, {"render.vulkan_error", S}, {"render.vulkan_api_version", S},
    {"render.vulkan_devices", L}, {"render.vulkan_device_count", I},
    {"render.vulkan_amd_device", B}, {"render.vulkan_software_only", B},
    {"render.vulkan_hardware_device", B},
    END};

static const struct fact_decl facts_fp[] = {
    GPU_PROBE_START("fp"),
    {"fp.gemm.blas", S}, {"fp.gemm.blas_lib", S}, {"fp.gemm.cases", L}, {"fp.gemm.failures", I},
    {"fp.gemm.nonfinite", I}, {"fp.gemm.f16.max_bound_ratio", F},
    {"fp.gemm.bf16.max_bound_ratio", F},
    {"fp.overflow.ok", B}, {"fp.overflow.f16_mul_inf", B}, {"fp.overflow.f16_convert_inf", B},
    {"fp.overflow.f32_inf", B}, {"fp.overflow.bf16_65504x2", F},
    {"fp.denormal.f32_kept", B}, {"fp.denormal.f16_kept", B},
    {"fp.nan.fminf", S}, {"fp.nan.fmaxf", S}, {"fp.nan.clamp_fminmax", S},
    {"fp.nan.clamp_fminmax_hides_nan", B}, {"fp.nan.clamp_compare", S},
    {"fp.nan.clamp_compare_hides_nan", B},
    {"fp.conv.values", I}, {"fp.conv.f16_mismatches", I}, {"fp.conv.bf16_mismatches", I},
    {"fp.conv.first_mismatch", S}, {"fp.conv.f16_method", S}, {"fp.conv.bf16_method", S},
    {"fp.attn.shape", S}, {"fp.attn.max_logit", F}, {"fp.attn.finite", B},
    {"fp.attn.max_bound_ratio", F}, {"fp.attn.naive_f16_nonfinite", I}, {"fp.attn.outputs", I},
    {"fp.determinism.gemm_identical", B}, {"fp.determinism.reduce_identical", B},
    {"fp.determinism.atomic_distinct", I}, {"fp.determinism.runs", I},
    END};

#define BATCH(n) {"fp.sampling.b" n ".p_value", F}, {"fp.sampling.b" n ".chi2", F},             \
    {"fp.sampling.b" n ".dof", I}
static const struct fact_decl facts_fp_sampling[] = {
    GPU_PROBE_START("fp.sampling"), BATCH("1"), BATCH("8"), BATCH("64"),
    {"fp.sampling.min_p_value", F}, {"fp.sampling.zero_prob_hits", I},
    {"fp.sampling.out_of_range", I}, {"fp.sampling.samples_per_row", I},
    {"fp.sampling.categories", I},
    END};

#define DTYPE(t) {"gpu.gemm_peak." t "_tflops", F}, {"gpu.gemm_peak." t "_n", I}
static const struct fact_decl facts_gemm_peak[] = {
    GPU_PROBE_START("gpu.gemm_peak"), {"gpu.gemm_peak.blas", S}, {"gpu.gemm_peak.blas_lib", S},
    DTYPE("fp16"), DTYPE("bf16"), DTYPE("fp32"), {"gpu.gemm_peak.error", S},
    {"gpu.gemm_peak.spot_checked", I}, {"gpu.gemm_peak.spot_ratio", F},
    {"gpu.gemm_peak.fp16_peak", F}, {"gpu.gemm_peak.fp16_fraction", F},
    {"gpu.gemm_peak.bf16_peak", F}, {"gpu.gemm_peak.bf16_fraction", F},
    {"gpu.gemm_peak.fp16_vs_peak", S}, {"gpu.gemm_peak.bf16_vs_peak", S},
    END};

static const struct fact_decl facts_memtest[] = {
    GPU_PROBE_START("memtest"), {"memtest.fraction", F}, {"memtest.time_bound_s", F},
    {"memtest.free_bytes", I}, {"memtest.bytes", I}, {"memtest.base", S}, {"memtest.engine", S},
    {"memtest.injected", S}, {"memtest.patterns", L}, {"memtest.complete", B},
    {"memtest.errors", I}, {"memtest.failed_patterns", L}, {"memtest.first_errors", L},
    {"memtest.first_error", S},
    {"memtest.seconds", F}, {"memtest.gbs", F},
    END};

static const struct fact_decl facts_p2p[] = {
    GPU_PROBE_START("gpu.p2p"), {"gpu.p2p.gpus", I}, {"gpu.p2p.pairs", L},
    {"gpu.p2p.<pair>.access", B}, {"gpu.p2p.<pair>.access_ab", B},
    {"gpu.p2p.<pair>.access_ba", B}, {"gpu.p2p.<pair>.link", S}, {"gpu.p2p.<pair>.ab_gbs", F},
    {"gpu.p2p.<pair>.ba_gbs", F}, {"gpu.p2p.<pair>.error", S},
    {"gpu.p2p.no_access", L}, {"gpu.p2p.no_access_xgmi", L}, {"gpu.p2p.summary", L},
    {"gpu.p2p.xgmi_min_gbs", F}, {"gpu.p2p.pcie_min_gbs", F}, {"gpu.p2p.unknown_min_gbs", F},
    END};

static const struct fact_decl facts_torch[] = {
    {"torch.available", B}, {"torch.why", S}, {"torch.measured_on", S}, {"torch.error", S}, {"torch.wall_s", F},
    {"torch.timed_out", B}, {"torch.version", S}, {"torch.hip", S}, {"torch.cuda", S},
    {"torch.driver", S}, {"torch.tunableop", B}, {"torch.gpu_count", I},
    {"torch.device.name", S}, {"torch.device.arch", S}, {"torch.device.pci", S},
    {"torch.device.gpu", S}, {"torch.preset", S}, {"torch.weights_dtype", S},
    {"torch.blas_preferred", S}, {"torch.sdpa_backend", S}, {"torch.blas", S},
    {"torch.cpu_copies", B}, {"torch.compile.ok", B}, {"torch.compile.error", S},
    {"torch.compile.triton", S}, {"torch.graph_error", S},
    {"torch.latency.eager.vision_ms", F}, {"torch.latency.eager.prefix_ms", F},
    {"torch.latency.eager.step_ms", F}, {"torch.latency.eager.post_ms", F},
    {"torch.latency.eager.total_ms", F},
    {"torch.latency.graph.vision_ms", F}, {"torch.latency.graph.prefix_ms", F},
    {"torch.latency.graph.step_ms", F}, {"torch.latency.graph.post_ms", F},
    {"torch.latency.graph.total_ms", F},
    {"torch.latency.compiled.vision_ms", F}, {"torch.latency.compiled.prefix_ms", F},
    {"torch.latency.compiled.step_ms", F}, {"torch.latency.compiled.post_ms", F},
    {"torch.latency.compiled.total_ms", F},
    {"torch.peak_memory_bytes", I}, {"torch.numerics.cosine", F}, {"torch.numerics.finite", B},
    {"torch.numerics.max_error_rel", F}, {"torch.shared.cosine", F},
    {"torch.shared.max_error", F}, {"torch.latency.best_ms", F}, {"torch.latency.best_mode", S},
    END};

static const struct fact_decl facts_vla[] = {
    {"vla.available", B}, {"vla.why", S}, {"vla.backend", S}, {"vla.device", S},
    {"vla.preset", S}, {"vla.requested_preset", S}, {"vla.dtype", S}, {"vla.graph", B}, {"vla.runs", I}, {"vla.cold_s", F},
    {"vla.tflops", F}, {"vla.error", S},
    {"vla.energy_per_call_j", F}, {"vla.avg_power_w", F}, {"vla.energy_source", S},
    {"vla.latency.vision_ms", F}, {"vla.latency.prefix_ms", F}, {"vla.latency.step_ms", F},
    {"vla.latency.post_ms", F}, {"vla.latency.total_ms", F}, {"vla.latency.total_p99_ms", F},
    {"vla.control_rate_hz", F},
    {"vla.memory.used_bytes", I}, {"vla.memory.total_bytes", I}, {"vla.memory.deploy_bytes", I},
    {"vla.numerics.cosine", F}, {"vla.numerics.max_error", F}, {"vla.numerics.max_error_rel", F},
    {"vla.numerics.cosine_normalised", F}, {"vla.numerics.max_error_normalised", F},
    {"vla.numerics.actions_digest", S}, {"vla.numerics.planted", S},
    {"vla.max_activation", F}, {"vla.max_activation_layer", S}, {"vla.nonfinite", B},
    {"vla.nonfinite_layer", S},
    {"vla.backend_gaps", S}, {"vla.backend_gaps_n", I}, {"vla.backend_gaps.flash_attention", S},
    {"vla.backend_gaps.lt_epilogues", S}, {"vla.backend_gaps.ptr_batch", S},
    {"vla.backend_gaps.graph", S},
    END};

/* the soak command's facts (src/soak: the child's and the analysis'); not a
 * probe of the table, judged by the level "soak" checks */
static const struct fact_decl facts_soak[] = {
    {"soak.error", S}, {"soak.preset", S}, {"soak.backend", S}, {"soak.device", S}, {"soak.pci", S}, {"soak.telemetry_gpu", S},
    {"soak.fallback", S},
    {"soak.dtype", S}, {"soak.load_path", S}, {"soak.interrupted", B}, {"soak.samples", I},
    {"soak.calls", I}, {"soak.duration_s", F}, {"soak.window_s", F},
    {"soak.window_calls", I}, {"soak.window_samples", I},
    {"soak.p50_ms", F}, {"soak.p99_ms", F}, {"soak.p99_first_ms", F}, {"soak.p99_last_ms", F},
    {"soak.p99_growth_pct", F},
    {"soak.sclk_first_mhz", F}, {"soak.sclk_last_mhz", F}, {"soak.sclk_drop_pct", F},
    {"soak.temp_margin_c", F}, {"soak.temp_at_limit", B}, {"soak.temp_hottest", S},
    {"soak.throttle_events", I}, {"soak.throttle_reasons", S}, {"soak.throttle_since_start", S},
    {"soak.vram_growth_bytes", I},
    {"soak.outliers", I}, {"soak.outliers_unexplained", I}, {"soak.outlier_causes", L},
    {"soak.rate_hz", I}, {"soak.period_ms", F}, {"soak.deadline_misses", I},
    {"soak.outputs_compared", I}, {"soak.outputs_differ_calls", I},
    {"soak.outputs_first_differ_call", I}, {"soak.outputs_max_diff", F},
    {"soak.outputs_max_rel_diff", F}, {"soak.outputs_nonfinite", I},
    {"soak.outputs_nonfinite_calls", I},
    {"soak.energy_per_call_j", F}, {"soak.avg_power_w", F}, {"soak.energy_source", S},
    /* src/soak/soak_counters.c: residency, PCIe counters, the slot's link */
    {"soak.residency_thermal_grew", I}, {"soak.residency_power_grew", I},
    {"soak.residency_thermal_pct", F}, {"soak.residency_power_pct", F}, {"soak.residency_detail", S},
    {"soak.pcie_replays_grew", I}, {"soak.pcie_recoveries_grew", I}, {"soak.pcie_naks_grew", I},
    {"soak.pcie_counter_detail", S},
    {"soak.link_start_width", I}, {"soak.link_start_speed_gts", F}, {"soak.link_min_width", I},
    {"soak.link_min_speed_gts", F}, {"soak.link_changes", I}, {"soak.link_change_list", L},
    END};

/* the runner's own facts; a per-GPU probe's outcome also per slot (probe_each_gpu.c) */
static const struct fact_decl facts_probe_runner[] = {
    {"probe.<probe>.status", S}, {"probe.<probe>.message", S}, {"probe.<probe>.wall_s", F},
    {"probe.<probe>.per_gpu", B}, {"gpu.<i>.probe.<probe>.status", S}, {"gpu.<i>.probe.<probe>.message", S},
    {"gpu.<i>.probe.<probe>.wall_s", F},
    {"gpu.measured", L}, {"gpu.<i>.runtime_device", I}, {"gpu.<i>.runtime_pci", S},
    {"gpu.<i>.runtime_name", S},
    END};

/* the probe table's probes (probe_table.c), each with its list; a probe
 * without one is reported by fact_catalog_missing() (tests/unit) */
static const struct {
    const char *probe;
    const struct fact_decl *facts;
} by_probe[] = {
    {"host", facts_host},
    {"virt", facts_virt},
    {"link_start", facts_link_start},
    {"link_end", facts_link_end},
    {"env", facts_env},
    {"driver", facts_driver},
    {"driver_cause", facts_driver_cause},
    {"kernel_log", facts_kernel_log},
    {"kfd", facts_kfd},
    {"user", facts_user},
    {"container", facts_container},
    {"gpu", facts_gpu},
    {"pcie", facts_pcie},
    {"iommu", facts_iommu},
    {"kernel", facts_kernel},
    {"tuning", facts_tuning},
    {"rocm", facts_rocm},
    {"rocm_libs", facts_rocm_libs},
    {"peaks", facts_peaks},
    {"mem_bandwidth", facts_mem_bandwidth},
    {"python", facts_python},
    {"gpu_runtime", facts_gpu_runtime},
    {"kernels", facts_kernels},
    {"sync", facts_sync},
    {"bandwidth", facts_bandwidth},
    {"hmm", facts_hmm},
    {"mem_release", facts_mem_release},
    {"target_binaries", facts_target_binaries},
    {"vulkan", facts_vulkan},
    {"fp", facts_fp},
    {"fp_sampling", facts_fp_sampling},
    {"gemm_peak", facts_gemm_peak},
    {"memtest", facts_memtest},
    {"p2p", facts_p2p},
    {"vla", facts_vla},
    {"torch", facts_torch},
};
/* clang-format on */

static const struct fact_decl *fact_catalog_of(const char *probe)
{
    for (size_t i = 0; i < ARRAY_SIZE(by_probe); i++)
        if (strcmp(by_probe[i].probe, probe) == 0)
            return by_probe[i].facts;
    return NULL;
}

const char *fact_catalog_missing(void)
{
    for (size_t i = 0; i < probe_count; i++)
        if (!fact_catalog_of(probe_table[i].name))
            return probe_table[i].name;
    return NULL;
}

static int is_probe_name(const char *s, size_t n)
{
    for (size_t i = 0; i < probe_count; i++)
        if (strlen(probe_table[i].name) == n && strncmp(probe_table[i].name, s, n) == 0)
            return 1;
    return 0;
}

static int word_char(char c, int digits_only)
{
    if (c >= '0' && c <= '9')
        return 1;
    return !digits_only && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_');
}

int fact_pattern_match(const char *pat, const char *name)
{
    while (*pat) {
        if (*pat != '<') {
            if (*pat++ != *name++)
                return 0;
            continue;
        }
        const char *close = strchr(pat, '>');
        if (!close)
            return 0;
        size_t plen = (size_t)(close - pat - 1);
        int digits = plen == 1 && pat[1] == 'i';
        int probe = plen == 5 && strncmp(pat + 1, "probe", 5) == 0;
        size_t n = 0;
        while (word_char(name[n], digits))
            n++;
        if (n == 0 || (probe && !is_probe_name(name, n)))
            return 0;
        pat = close + 1;
        name += n;
    }
    return *name == '\0';
}

/* the names a declaration stands for in a report: itself, or for a per-GPU
 * probe (PROBE_GPU_EACH) the runner's renames gpu.<i>.R and gpu.R, R being
 * the name without a leading "gpu." (probe_each_gpu.c); returns how many */
static int decl_forms(int each_gpu, const char *decl, char out[2][FACT_NAME_MAX])
{
    if (!each_gpu) {
        snprintf(out[0], FACT_NAME_MAX, "%s", decl);
        return 1;
    }
    const char *r = strncmp(decl, "gpu.", 4) == 0 ? decl + 4 : decl;
    snprintf(out[0], FACT_NAME_MAX, "gpu.<i>.%s", r);
    snprintf(out[1], FACT_NAME_MAX, "gpu.%s", r);
    return 2;
}

static int probe_is_each_gpu(size_t i)
{
    return i < probe_count && probe_table[i].needs_gpu == PROBE_GPU_EACH;
}

/* whether name is one of decl_forms(each_gpu, decl), matched in place: the
 * quick level looks up every fact each check names, and formatting each
 * declaration's forms for each lookup was most of its start-up (issue 25) */
static int decl_matches(int each_gpu, const char *decl, const char *name)
{
    if (!each_gpu)
        return fact_pattern_match(decl, name);
    if (strncmp(name, "gpu.", 4) != 0)
        return 0;
    const char *r = strncmp(decl, "gpu.", 4) == 0 ? decl + 4 : decl;
    const char *rest = name + 4;
    if (fact_pattern_match(r, rest)) /* gpu.R */
        return 1;
    size_t n = 0; /* gpu.<i>.R, <i> matched as fact_pattern_match does */
    while (word_char(rest[n], 1))
        n++;
    return n > 0 && rest[n] == '.' && fact_pattern_match(r, rest + n + 1);
}

static const struct fact_decl *find_in(const struct fact_decl *d, int each_gpu, const char *name)
{
    for (; d && d->name; d++)
        if (decl_matches(each_gpu, d->name, name))
            return d;
    return NULL;
}

int fact_catalog_find(const char *name, const struct fact_decl **out, const char **probe)
{
    for (size_t i = 0; i < probe_count; i++) {
        const struct fact_decl *d =
            find_in(fact_catalog_of(probe_table[i].name), probe_is_each_gpu(i), name);
        if (d) {
            *out = d;
            if (probe)
                *probe = probe_table[i].name;
            return 0;
        }
    }
    const struct fact_decl *d = find_in(facts_probe_runner, 0, name);
    const char *who = "(probe runner)";
    if (!d) {
        d = find_in(facts_soak, 0, name);
        who = "soak";
    }
    if (!d)
        return -1;
    *out = d;
    if (probe)
        *probe = who;
    return 0;
}

const char *fact_catalog_suggest(const char *name, int per_gpu, char *buf, size_t n)
{
    struct suggest sg;
    suggest_init(&sg, name, buf, n);
    for (size_t i = 0; i <= probe_count; i++) {
        const struct fact_decl *d =
            i < probe_count ? fact_catalog_of(probe_table[i].name) : facts_probe_runner;
        for (; d && d->name; d++) {
            if (i == probe_count && strncmp(d->name, "probe.<probe>.", 14) == 0) {
                /* probe.<probe>.x: offer each probe's own name */
                for (size_t j = 0; j < probe_count; j++) {
                    char full[FACT_NAME_MAX];
                    snprintf(full, sizeof(full), "probe.%s.%s", probe_table[j].name,
                             d->name + strlen("probe.<probe>."));
                    suggest_consider(&sg, full);
                }
                continue;
            }
            char forms[2][FACT_NAME_MAX];
            for (int k = decl_forms(probe_is_each_gpu(i), d->name, forms) - 1; k >= 0; k--) {
                suggest_consider(&sg, forms[k]);
                if (per_gpu && strncmp(forms[k], "gpu.<i>.", 8) == 0) {
                    char short_name[FACT_NAME_MAX];
                    snprintf(short_name, sizeof(short_name), "gpu.%s", forms[k] + 8);
                    suggest_consider(&sg, short_name);
                }
            }
        }
    }
    return suggest_best(&sg);
}

void fact_catalog_print(FILE *out)
{
    size_t w = 0;
    char forms[2][FACT_NAME_MAX];
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i <= probe_count; i++)
            for (const struct fact_decl *d = i < probe_count ? fact_catalog_of(probe_table[i].name)
                                                             : facts_probe_runner;
                 d && d->name; d++) {
                int nf = decl_forms(probe_is_each_gpu(i), d->name, forms);
                for (int k = 0; k < nf; k++) {
                    if (pass == 0)
                        w = strlen(forms[k]) > w ? strlen(forms[k]) : w;
                    else
                        fprintf(out, "%-*s  %-6s  %s\n", (int)w, forms[k], fact_type_name(d->type),
                                i < probe_count ? probe_table[i].name : "(every probe)");
                }
            }
    for (const struct fact_decl *d = facts_soak; d->name; d++)
        fprintf(out, "%-*s  %-6s  %s\n", (int)w, d->name, fact_type_name(d->type), "soak");
}

/* ---- the checks loader's schema ------------------------------------------ */

static int schema_fact_type(const char *name, enum fact_type *type)
{
    const struct fact_decl *d;
    if (fact_catalog_find(name, &d, NULL))
        return -1;
    *type = d->type;
    return 0;
}

static const char *schema_probe_name(size_t i)
{
    return i < probe_count ? probe_table[i].name : NULL;
}

const struct checks_schema fact_catalog_schema = {schema_fact_type, fact_catalog_suggest,
                                                  schema_probe_name};
