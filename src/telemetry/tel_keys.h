/* tel_keys.h - the one table of telemetry values: each row is
 * X(enum, name, unit, meaning). The enum (telemetry.h), the JSON and CSV
 * names (tel_key_name), `__monitor-keys` and, through it, the four lists
 * of reports/monitor-schema.json (tools/gen_monitor_schema.py, `make regen`)
 * come from it, so a column is added in one place. */
#ifndef RVD_TEL_KEYS_H
#define RVD_TEL_KEYS_H

/* clang-format off */
#define TEL_KEYS(X) \
    X(TEL_SCLK_MHZ, "sclk_mhz", "MHz", "the shader (graphics) clock now") \
    X(TEL_SCLK_MIN_MHZ, "sclk_min_mhz", "MHz", "the lowest shader clock level the driver allows") \
    X(TEL_SCLK_MAX_MHZ, "sclk_max_mhz", "MHz", "the highest shader clock level the driver allows") \
    X(TEL_MCLK_MHZ, "mclk_mhz", "MHz", "the memory clock now") \
    X(TEL_MCLK_MIN_MHZ, "mclk_min_mhz", "MHz", "the lowest memory clock level") \
    X(TEL_MCLK_MAX_MHZ, "mclk_max_mhz", "MHz", "the highest memory clock level") \
    X(TEL_POWER_W, "power_w", "W", "board power now (average or instantaneous, as the source reports)") \
    X(TEL_POWER_CAP_W, "power_cap_w", "W", "the power limit in force") \
    X(TEL_ENERGY_J, "energy_j", "J", "energy since the first sample") \
    X(TEL_TEMP_EDGE_C, "temp_edge_c", "degC", "the edge temperature") \
    X(TEL_TEMP_EDGE_LIMIT_C, "temp_edge_limit_c", "degC", "the edge temperature limit") \
    X(TEL_TEMP_JUNCTION_C, "temp_junction_c", "degC", "the hotspot (junction) temperature") \
    X(TEL_TEMP_JUNCTION_LIMIT_C, "temp_junction_limit_c", "degC", "the junction temperature limit") \
    X(TEL_TEMP_MEM_C, "temp_mem_c", "degC", "the memory temperature") \
    X(TEL_TEMP_MEM_LIMIT_C, "temp_mem_limit_c", "degC", "the memory temperature limit") \
    X(TEL_FAN_RPM, "fan_rpm", "RPM", "fan speed") \
    X(TEL_FAN_PCT, "fan_pct", "%", "fan duty as a share of its maximum") \
    X(TEL_BUSY_PCT, "busy_pct", "%", "the GPU engine busy share") \
    X(TEL_MEM_BUSY_PCT, "mem_busy_pct", "%", "the memory controller busy share") \
    X(TEL_VRAM_USED_B, "vram_used_bytes", "bytes", "VRAM in use") \
    X(TEL_VRAM_TOTAL_B, "vram_total_bytes", "bytes", "VRAM size") \
    X(TEL_GTT_USED_B, "gtt_used_bytes", "bytes", "GTT (system memory the GPU maps) in use") \
    X(TEL_GTT_TOTAL_B, "gtt_total_bytes", "bytes", "GTT size") \
    X(TEL_PCIE_GTS, "pcie_gts", "GT/s", "the GPU function's own link speed now") \
    X(TEL_PCIE_WIDTH, "pcie_width", "lanes", "the GPU function's own link width now") \
    X(TEL_PCIE_MAX_GTS, "pcie_max_gts", "GT/s", "the GPU function's top link speed") \
    X(TEL_PCIE_MAX_WIDTH, "pcie_max_width", "lanes", "the GPU function's top link width") \
    X(TEL_PCIE_REPLAYS, "pcie_replays", "count", "PCIe replays counted by the driver") \
    /* the path up to the root port (src/core/pci_path.h): the GPU function's \
     * own link reads x16 even behind an x8 or Gen3 hop. width: the hop with \
     * the largest width shortfall; gts: the hop furthest below its top speed \
     * (both among the hops that carry a link's judged end, the slot's \
     * included). limited: 1 when that width is below the GPU's max width or \
     * that speed below the GPU's current speed (not its max: idle links train \
     * down and the GPU's own link shows it), else 0. */ \
    X(TEL_PCIE_PATH_WIDTH, "pcie_path_width", "lanes", "current width of the hop on the PCIe path to the root port with the largest width shortfall (the slot's link included); the GPU function's own pcie_width reads x16 behind an x8 hop") \
    X(TEL_PCIE_PATH_GTS, "pcie_path_gts", "GT/s", "current speed (GT/s) of the hop on the path furthest below its top speed") \
    X(TEL_PCIE_PATH_LIMITED, "pcie_path_limited", "0/1", "1 when pcie_path_width is below the GPU's pcie_max_width or pcie_path_gts below the GPU's current pcie_gts; null when either side is unknown") \
    /* the slot's link (pci_path_slot: the on-card switch's upstream port of \
     * a Navi card, else the GPU), as pcie.link_stable reads it: the soak \
     * compares it window by window (a retrain or a lost lane) */ \
    X(TEL_LINK_SLOT_GTS, "link_slot_gts", "GT/s", "the slot's link speed (GT/s): the on-card switch's upstream port of a Navi card, else the GPU (as pcie.link_stable reads it); the soak compares it sample by sample") \
    X(TEL_LINK_SLOT_WIDTH, "link_slot_width", "lanes", "the slot's link width (lanes), read as link_slot_gts") \
    /* gpu_metrics counters (gpu_metrics.h), accumulated since the driver \
     * loaded: consumers judge their growth between samples, never the value. \
     * v1_6+ throttler residency, read against the accumulation counter */ \
    X(TEL_THR_ACC, "thr_acc_counter", "count", "gpu_metrics v1_6+ accumulation_counter: the residency counters below are read against its growth over the same interval") \
    X(TEL_THR_PROCHOT, "thr_prochot_acc", "count", "gpu_metrics prochot residency (v1_6+ prochot_residency_acc, v3_0 throttle_residency_prochot), accumulated since the driver loaded") \
    X(TEL_THR_PPT, "thr_ppt_acc", "count", "gpu_metrics v1_6+ ppt_residency_acc (power limit)") \
    X(TEL_THR_SOCKET_THM, "thr_socket_thm_acc", "count", "gpu_metrics v1_6+ socket_thm_residency_acc") \
    X(TEL_THR_VR_THM, "thr_vr_thm_acc", "count", "gpu_metrics v1_6+ vr_thm_residency_acc") \
    X(TEL_THR_HBM_THM, "thr_hbm_thm_acc", "count", "gpu_metrics v1_6+ hbm_thm_residency_acc") \
    /* v3_0 (APU) throttle_residency_*: no accumulation counter */ \
    X(TEL_THR_SPL, "thr_spl_acc", "count", "gpu_metrics v3_0 throttle_residency_spl") \
    X(TEL_THR_FPPT, "thr_fppt_acc", "count", "gpu_metrics v3_0 throttle_residency_fppt") \
    X(TEL_THR_SPPT, "thr_sppt_acc", "count", "gpu_metrics v3_0 throttle_residency_sppt") \
    X(TEL_THR_THM_CORE, "thr_thm_core_acc", "count", "gpu_metrics v3_0 throttle_residency_thm_core") \
    X(TEL_THR_THM_GFX, "thr_thm_gfx_acc", "count", "gpu_metrics v3_0 throttle_residency_thm_gfx") \
    X(TEL_THR_THM_SOC, "thr_thm_soc_acc", "count", "gpu_metrics v3_0 throttle_residency_thm_soc") \
    /* v1_4+ PCIe link health counters */ \
    X(TEL_PCIE_L0_RECOV, "pcie_l0_to_recov_acc", "count", "gpu_metrics v1_4+ pcie_l0_to_recov_count_acc: link recoveries since the driver loaded") \
    X(TEL_PCIE_REPLAY_ACC, "pcie_replay_acc", "count", "gpu_metrics v1_4+ pcie_replay_count_acc") \
    X(TEL_PCIE_REPLAY_ROVER, "pcie_replay_rover_acc", "count", "gpu_metrics v1_4+ pcie_replay_rover_count_acc") \
    X(TEL_PCIE_NAK_SENT, "pcie_nak_sent_acc", "count", "gpu_metrics v1_5+ pcie_nak_sent_count_acc") \
    X(TEL_PCIE_NAK_RCVD, "pcie_nak_rcvd_acc", "count", "gpu_metrics v1_5+ pcie_nak_rcvd_count_acc") \
    X(TEL_PCIE_OTHER_RECOV, "pcie_other_end_recov_acc", "count", "gpu_metrics v1_6+ pcie_lc_perf_other_end_recovery: recoveries the link partner started") \
    /* the hottest HBM stack (v1_1..v1_3 temperature_hbm[]) and the slowest \
     * XCD's current gfxclk (v1_4+ current_gfxclk[]) */ \
    X(TEL_TEMP_HBM_MAX_C, "temp_hbm_max_c", "degC", "the hottest HBM stack (gpu_metrics v1_1..v1_3 temperature_hbm[])") \
    X(TEL_XCD_SCLK_MIN_MHZ, "xcd_sclk_min_mhz", "MHz", "the slowest XCD's current gfxclk (gpu_metrics v1_4+ current_gfxclk[])")
/* clang-format on */

#endif
