/* kernel_log_sigs.c - the kernel-log signatures the doctor knows, one row
 * per way a message is printed, each with the kernel source that prints it
 * and a line it must match (tests/unit/test_kernel_log.c feeds every row its
 * own line). Sources name files of the Linux tree (drivers/gpu/drm/amd/amdgpu
 * unless a path says otherwise); several rows may share an id. */
#include "kernel_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AMD "amdgpu/"
/* firmware a maintainer calls optional: its load failures are not a problem */
#define OPTIONAL_FW "vega20_ta.bin"

static const struct kl_signature signatures[] = {
    {"atomics_unsupported", "PCIE atomic ops is not supported", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_init: \"PCIE atomic ops is not supported\"",
     "[    3.211000] amdgpu 0000:03:00.0: amdgpu: PCIE atomic ops is not supported", 0, NULL},
    {"pci_rejects_atomics", "skipped device", "PCI rejects atomics", KL_FAIL,
     "amdkfd/kfd_device.c kgd2kfd_device_init: \"skipped device %x:%x, PCI rejects atomics %d<%d\"",
     "[    4.100000] kfd kfd: amdgpu: skipped device 1002:73bf, PCI rejects atomics 730<92", 0,
     NULL},
    /* page faults: the first row is the generic one of older kernels; the
     * others the gmc_v9_0.c/gmc_v10_0.c/gmc_v11_0.c format with its hub */
    {"gpu_page_fault", "amdgpu", "page fault", KL_FAIL,
     AMD "gmc_v9_0.c gmc_v9_0_process_interrupt: \"[%s] %s page fault (src_id:%u ring:%u "
         "vmid:%u pasid:%u)\"",
     "[ 8812.113201] amdgpu 0000:c1:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 "
     "pasid:32770)",
     0, NULL},
    {"gpu_page_fault", "] no-retry page fault (src_id:", NULL, KL_FAIL,
     AMD "gmc_v9_0.c gmc_v9_0_process_interrupt (6.x: \"no-retry\"/\"retry\" named)",
     "[  301.000001] amdgpu 0000:03:00.0: [mmhub] no-retry page fault (src_id:0 ring:0 vmid:3 "
     "pasid:32769)",
     0, NULL},
    {"memory_access_fault", "Memory access fault by GPU", NULL, KL_FAIL,
     "ROCr (rocr-runtime core/runtime/runtime.cpp VMFaultHandler), when its stderr reaches the log",
     "Memory access fault by GPU node-1 (Agent handle: 0x55d1c0a3e270) on address 0x7f2a1c000000. "
     "Reason: Page not present or supervisor privilege.",
     0, NULL},
    /* KFD refusing a GPU. In 4.x/5.x amdgpu said so itself before calling
     * KFD (real line: ROCm/ROCm#522, MI25 on 4.15 without the ROCm DKMS);
     * kgd2kfd_probe names the ASIC ("%s %s not supported in kfd") and, with
     * IP discovery (5.16+), its GC IP version. Real lines: "TAHITI  not
     * supported in kfd" in an Ubuntu 24.04 (6.8) dmesg on the Ubuntu
     * Forums, May 2024; "GC IP 0b0004  not supported in kfd" on 6.1.20 in
     * the stable list request for the GC 11.0.4 backport. The double space
     * is the empty "VF" argument. */
    {"kfd_unsupported", "kfd not supported on this ASIC", NULL, KL_FAIL,
     AMD "amdgpu_amdkfd.c amdgpu_amdkfd_device_probe (4.x, 5.x): \"kfd not supported on this "
         "ASIC\"",
     "[    3.212256] amdgpu 0000:06:00.0: kfd not supported on this ASIC", 0, NULL},
    {"kfd_unsupported", "not supported in kfd", NULL, KL_FAIL,
     "amdkfd/kfd_device.c kgd2kfd_probe: \"%s %s not supported in kfd\" and (5.16+) \"GC IP "
     "%06x %s not supported in kfd\"",
     "[   13.966785] kfd kfd: amdgpu: TAHITI  not supported in kfd", 0, NULL},
    {"key_rejected", "Key was rejected by service", NULL, KL_FAIL,
     "user space: kmod's modprobe prints strerror(EKEYREJECTED) when kernel/module/signing.c "
     "refuses the module's key",
     "[    3.101400] modprobe: Key was rejected by service", 0, NULL},
    /* Secure Boot / lockdown refusing an unsigned module (kernel/module/signing.c) */
    {"module_rejected", "Loading of unsigned module is rejected", NULL, KL_FAIL,
     "kernel/module/signing.c module_sig_check: \"Loading of unsigned module is rejected\"",
     "[    3.101200] Loading of unsigned module is rejected", 0, NULL},
    {"module_rejected", "Lockdown:", "unsigned module loading is restricted", KL_FAIL,
     "security/lockdown/lockdown.c lockdown_is_locked_down: \"Lockdown: %s: %s is restricted; see "
     "man kernel_lockdown.7\"",
     "[    3.101200] Lockdown: modprobe: unsigned module loading is restricted; see man "
     "kernel_lockdown.7",
     0, NULL},
    /* request_firmware() and amdgpu's own messages when a file is missing */
    {"firmware_failed", "Direct firmware load for amdgpu/", "failed", KL_FAIL,
     "drivers/base/firmware_loader/main.c _request_firmware: \"Direct firmware load for %s failed "
     "with error %d\"",
     "[    2.902200] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/psp_13_0_0_sos.bin "
     "failed with error -2",
     1, OPTIONAL_FW},
    {"firmware_failed", "amdgpu", "Failed to load gpu_info firmware", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_parse_gpu_info_fw: \"Failed to load gpu_info firmware "
         "\\\"%s\\\"\"",
     "[    2.902100] amdgpu 0000:03:00.0: amdgpu: Failed to load gpu_info firmware "
     "\"amdgpu/navi10_gpu_info.bin\"",
     1, OPTIONAL_FW},
    /* 6.x names the file it asked for ("%s_gpu_info.bin") and says "get" */
    {"firmware_failed", "amdgpu", "Failed to get gpu_info firmware", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_parse_gpu_info_fw (6.x): \"Failed to get gpu_info "
         "firmware \\\"%s_gpu_info.bin\\\"\"",
     "[    2.902100] amdgpu 0000:03:00.0: amdgpu: Failed to get gpu_info firmware "
     "\"navi10_gpu_info.bin\"",
     1, OPTIONAL_FW},
    /* "Failed" in the gmc/psp/sdma files that tests/data/kernel/log_sigs.txt
     * copies, "failed" in some newer ones: matched without case (real line:
     * geerlingguy/raspberry-pi-pcie-devices#331, a WX 2100 on 5.x) */
    {"firmware_failed", "amdgpu", "failed to load firmware", KL_FAIL,
     AMD "gmc_v8_0.c gmc_v8_0_init_microcode, psp_v11_0.c psp_v11_0_init_microcode, sdma_v4_0.c "
         "and the gfx_v*_0.c init_microcode: \"%s: Failed to load firmware \\\"%s\\\"\" (the "
         "prefix names the block; some newer files spell it \"failed\")",
     "[    4.825152] amdgpu: mc: Failed to load firmware \"amdgpu/polaris12_mc.bin\"", 1,
     OPTIONAL_FW},
    /* Vega 20's TA (trusted application) firmware was never in
     * linux-firmware; AMD's Kent Russell: "not a requirement for basic ROCm
     * functionality, so you don't need to worry" (real lines:
     * ROCm/legacy-rocm-build#912, 2x Radeon VII on 5.4). Counted, never a
     * problem. */
    {"firmware_optional", "amdgpu/" OPTIONAL_FW, "failed", KL_INFO,
     "drivers/base/firmware_loader/main.c _request_firmware and " AMD "psp_v11_0.c "
     "psp_v11_0_init_microcode, for the optional TA file",
     "[    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin failed "
     "with error -2",
     1, NULL},
    /* the driver core when amdgpu's probe of a device fails */
    {"probe_failed", "amdgpu", "probe with driver amdgpu failed", KL_FAIL,
     "drivers/base/dd.c call_driver_probe: \"probe with driver %s failed with error %d\"",
     "[    2.902500] amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -22", 0, NULL},
    {"probe_failed", "amdgpu: probe of", "failed with error", KL_FAIL,
     "drivers/base/dd.c really_probe (older kernels): \"%s: probe of %s failed with error "
     "%d\"",
     "[    2.902500] amdgpu: probe of 0000:03:00.0 failed with error -19", 0, NULL},
    /* amdgpu's own words when its init of the device gives up */
    {"probe_failed", "amdgpu", "Fatal error during GPU init", KL_FAIL,
     AMD "amdgpu_kms.c amdgpu_driver_load_kms: \"Fatal error during GPU init\"",
     "[    2.902400] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init", 0, NULL},
    {"probe_failed", "amdgpu", "amdgpu_device_ip_init failed", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_init: \"amdgpu_device_ip_init failed\"",
     "[    2.902300] amdgpu 0000:03:00.0: amdgpu: amdgpu_device_ip_init failed", 0, NULL},
    {"hmm_registered", "HMM registered", NULL, KL_INFO,
     "amdkfd/kfd_migrate.c kgd2kfd_init_zone_device: \"HMM registered %ldMB device memory\"",
     "[    4.912345] amdgpu 0000:05:00.0: amdgpu: HMM registered 196608MB device memory", 0, NULL},
    /* a job that did not finish in time: the scheduler's timeout handler */
    {"ring_timeout", "ring ", " timeout, signaled seq=", KL_WARN,
     AMD "amdgpu_job.c amdgpu_job_timedout: \"ring %s timeout, signaled seq=%u, emitted seq=%u\"",
     "[ 1204.551920] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled "
     "seq=45012, emitted seq=45014",
     0, NULL},
    {"gpu_reset_begin", "GPU reset begin!", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_gpu_recover: \"GPU reset begin!\"",
     "[ 1204.552001] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", 0, NULL},
    {"gpu_reset_succeeded", "GPU reset(", ") succeeded!", KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_gpu_recover: \"GPU reset(%d) succeeded!\"",
     "[ 1206.100412] amdgpu 0000:03:00.0: amdgpu: GPU reset(2) succeeded!", 0, NULL},
    {"gpu_reset_succeeded", "GPU reset succeeded, trying to resume", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_do_asic_reset: \"GPU reset succeeded, trying to resume\"",
     "[73848.629000] amdgpu 0000:c1:00.0: amdgpu: GPU reset succeeded, trying to resume", 0, NULL},
    /* 6.12+: a hung ring is reset alone before the whole GPU is */
    {"ring_reset", "Starting ", " ring reset", KL_WARN,
     AMD "amdgpu_job.c amdgpu_job_timedout: \"Starting %s ring reset\"",
     "[  950.818200] amdgpu 0000:c5:00.0: Starting gfx_0.0.0 ring reset", 0, NULL},
    /* the outcome of a per-ring reset (amdgpu_job.c amdgpu_job_timedout):
     * "succeeded" and "failure" since per-ring resets came (6.12), "failed"
     * after the 2025 rework of ring resets */
    {"ring_reset_succeeded", "Ring ", " reset succeeded", KL_WARN,
     AMD "amdgpu_job.c amdgpu_job_timedout (6.12+): \"Ring %s reset succeeded\"",
     "[  950.818900] amdgpu 0000:c5:00.0: amdgpu: Ring gfx_0.0.0 reset succeeded", 0, NULL},
    {"ring_reset_failed", "Ring ", " reset failure", KL_FAIL,
     AMD "amdgpu_job.c amdgpu_job_timedout (6.12 on): \"Ring %s reset failure\"",
     "[  950.818900] amdgpu 0000:c5:00.0: amdgpu: Ring gfx_0.0.0 reset failure", 0, NULL},
    {"ring_reset_failed", "Ring ", " reset failed", KL_FAIL,
     AMD "amdgpu_job.c amdgpu_job_timedout (2025 rework): \"Ring %s reset failed\"",
     "[  950.818900] amdgpu 0000:c5:00.0: amdgpu: Ring gfx_0.0.0 reset failed", 0, NULL},
    /* the DRM core's wedged event (6.14+); amdgpu sends it after a ring or GPU
     * reset that recovered (a public multi-GPU hang report of 2025 has
     * "[drm] device wedged, but recovered through reset" after "GPU
     * reset(1) succeeded") and without recovery when it stays unusable */
    {"device_wedged_recovered", "device wedged, but recovered through reset", NULL, KL_WARN,
     "drivers/gpu/drm/drm_drv.c drm_dev_wedged_event: \"device wedged, %s\" (\"but recovered "
     "through reset\")",
     "[ 1206.100500] amdgpu 0000:03:00.0: [drm] device wedged, but recovered through reset", 0,
     NULL},
    {"device_wedged", "device wedged, needs recovery", NULL, KL_FAIL,
     "drivers/gpu/drm/drm_drv.c drm_dev_wedged_event: \"device wedged, %s\" (\"needs "
     "recovery\")",
     "[ 1206.100500] amdgpu 0000:03:00.0: [drm] device wedged, needs recovery", 0, NULL},
    /* amdgpu.gpu_recovery=0 (or a VF without recovery): the hang stays */
    {"gpu_recovery_disabled", "amdgpu", "GPU recovery disabled.", KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_should_recover_gpu: \"GPU recovery disabled.\"",
     "[40869.919406] amdgpu 0000:c3:00.0: amdgpu: GPU recovery disabled.", 0, NULL},
    {"gpu_reset_failed", "GPU reset(", ") failed", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_gpu_recover: \"GPU reset(%d) failed\"",
     "[ 1206.100412] amdgpu 0000:03:00.0: amdgpu: GPU reset(3) failed", 0, NULL},
    {"gpu_reset_failed", "ASIC reset failed with error", NULL, KL_FAIL,
     AMD "amdgpu_device.c amdgpu_do_asic_reset: \"ASIC reset failed with error, %d for drm dev, "
         "%s\"",
     "[ 1206.000100] [drm:amdgpu_device_gpu_recover [amdgpu]] *ERROR* ASIC reset failed with "
     "error, -110 for drm dev, 0000:03:00.0",
     0, NULL},
    {"vram_lost", "VRAM is lost due to GPU reset!", NULL, KL_FAIL,
     AMD "amdgpu_device.c amdgpu_do_asic_reset (amdgpu_device_reinit_after_reset in newer "
         "kernels): \"VRAM is lost due to GPU reset!\"",
     "[ 1205.990100] amdgpu 0000:03:00.0: amdgpu: VRAM is lost due to GPU reset!", 0, NULL},
    /* the micro engine scheduler (gfx11+) and the kernel interface queue */
    {"mes_failure", "MES failed to respon", NULL, KL_WARN,
     AMD "mes_v11_0.c mes_v11_0_submit_pkt_and_poll_completion: \"MES failed to response "
         "msg=%d\" (6.10+: \"MES failed to respond to msg=%s (%s)\")",
     "[  512.300200] amdgpu 0000:03:00.0: amdgpu: MES failed to response msg=3", 0, NULL},
    {"mes_failure", "MES might be in unrecoverable state", NULL, KL_WARN,
     "amdkfd/kfd_device_queue_manager.c add_queue_mes/remove_queue_mes (and the suspend/resume "
     "of all queues): \"MES might be in unrecoverable state, issue a GPU reset\"",
     "[73845.072581] amdgpu 0000:c1:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU "
     "reset",
     0, NULL},
    /* newer kernels number the MES pipe (real line: an amd-gfx list patch
     * quoting "amdgpu 0000:0a:00.0: MES(1) failed to respond to
     * msg=REMOVE_QUEUE") */
    {"mes_failure", "MES(", ") failed to respond to msg=", KL_WARN,
     AMD "mes_v12_0.c mes_v12_0_submit_pkt_and_poll_completion (and mes_v11_0.c in newer "
         "kernels): \"MES(%d) failed to respond to msg=%s (%s)\"",
     "[  130.963939] amdgpu 0000:0a:00.0: amdgpu: MES(1) failed to respond to msg=REMOVE_QUEUE", 0,
     NULL},
    /* compute queues that could not be preempted or evicted: the hardware
     * scheduler (HWS) or MES hung. With amdgpu.gpu_recovery=0 no reset
     * follows and the queues stay hung. Real lines: ROCm/ROCm#2533 (RX 7900
     * XT on 6.2) and ROCm/ROCm#3207 (7840U on 6.10, "GPU recovery
     * disabled."); the 4.x wording had a "kfd: " prefix and a lower-case
     * "the cp" (ROCm/ROCm#407). */
    {"compute_hang", "qcm fence wait loop timeout expired", NULL, KL_FAIL,
     "amdkfd/kfd_device_queue_manager.c amdkfd_fence_wait_timeout: \"qcm fence wait loop "
     "timeout expired\"",
     "[  437.531392] amdgpu: qcm fence wait loop timeout expired", 0, NULL},
    {"compute_hang", "cp might be in an unrecoverable state", NULL, KL_FAIL,
     "amdkfd/kfd_device_queue_manager.c unmap_queues_cpsch/execute_queues_cpsch: \"The cp might "
     "be in an unrecoverable state due to an unsuccessful queues preemption\"",
     "[  437.535738] amdgpu: The cp might be in an unrecoverable state due to an unsuccessful "
     "queues preemption",
     0, NULL},
    {"compute_hang", "Failed to evict process queues", NULL, KL_FAIL,
     "amdkfd/kfd_process.c kfd_process_evict_queues: \"Failed to evict process queues\"",
     "[ 2238.057616] amdgpu: Failed to evict process queues", 0, NULL},
    {"compute_hang", "Failed to evict queue", NULL, KL_FAIL,
     "amdkfd/kfd_device_queue_manager.c evict_process_queues_cpsch: \"Failed to evict queue "
     "%d\"",
     "[ 2238.057615] amdgpu: Failed to evict queue 1", 0, NULL},
    {"compute_hang", "Failed to quiesce KFD", NULL, KL_FAIL,
     AMD "amdgpu_amdkfd_gpuvm.c amdgpu_amdkfd_evict_userptr: \"Failed to quiesce KFD\"",
     "[56076.626727] amdgpu: Failed to quiesce KFD", 0, NULL},
    {"compute_hang", "failed to remove hardware queue from MES", NULL, KL_FAIL,
     "amdkfd/kfd_device_queue_manager.c remove_queue_mes: \"failed to remove hardware queue "
     "from MES, doorbell=0x%x\"",
     "[ 2238.057611] amdgpu: failed to remove hardware queue from MES, doorbell=0x1002", 0, NULL},
    {"compute_hang", "failed to unmap legacy queue", NULL, KL_FAIL,
     AMD "amdgpu_mes.c amdgpu_mes_unmap_legacy_queue: \"failed to unmap legacy queue\"",
     "[40890.791496] [drm:amdgpu_mes_unmap_legacy_queue [amdgpu]] *ERROR* failed to unmap legacy "
     "queue",
     0, NULL},
    {"kiq_failure", "KCQ enable failed", NULL, KL_WARN,
     AMD "amdgpu_gfx.c amdgpu_gfx_enable_kcq: \"KCQ enable failed\"",
     "[    5.100000] [drm:amdgpu_gfx_enable_kcq [amdgpu]] *ERROR* KCQ enable failed", 0, NULL},
    {"kiq_failure", "KCQ disable failed", NULL, KL_WARN,
     AMD "gfx_v10_0.c gfx_v10_0_hw_fini, gfx_v11_0.c gfx_v11_0_hw_fini (amdgpu_gfx.c "
         "amdgpu_gfx_disable_kcq in newer kernels): \"KCQ disable failed\"",
     "[ 1204.600000] [drm:amdgpu_gfx_disable_kcq [amdgpu]] *ERROR* KCQ disable failed", 0, NULL},
    /* the gfx queues of gfx10+ (real line: a Navi journal quoted on the
     * amd-gfx list, "KGQ disable failed" after "ring kiq_2.1.0 test failed
     * (-110)") */
    {"kiq_failure", "KGQ disable failed", NULL, KL_WARN,
     AMD "gfx_v10_0.c gfx_v10_0_hw_fini, gfx_v11_0.c gfx_v11_0_hw_fini: \"KGQ disable failed\"",
     "Nov 08 02:01:34 workstation kernel: [drm:gfx_v10_0_hw_fini [amdgpu]] *ERROR* KGQ disable "
     "failed",
     0, NULL},
    {"kiq_failure", "amdgpu", "failed to write reg:", KL_WARN,
     AMD "amdgpu_gfx.c amdgpu_kiq_wreg: \"failed to write reg:%x\"",
     "[ 1204.600100] amdgpu 0000:03:00.0: amdgpu: failed to write reg:1a6f4", 0, NULL},
    /* large BAR (amdgpu_device_resize_fb_bar) */
    {"bar_no_space", "Not enough PCI address space for a large BAR", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_resize_fb_bar: \"Not enough PCI address space for a large "
         "BAR.\"",
     "[    2.800000] [drm] Not enough PCI address space for a large BAR.", 0, NULL},
    {"bar_resize_failed", "Problem resizing BAR0", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_resize_fb_bar: \"Problem resizing BAR0 (%d).\"",
     "[    2.800100] [drm:amdgpu_device_resize_fb_bar [amdgpu]] *ERROR* Problem resizing BAR0 "
     "(-28).",
     0, NULL},
    /* the PCI core assigning a device's BARs (drivers/pci/setup-res.c
     * pci_assign_resource): up to 6.7 "BAR %d: no space for %pR" and "BAR %d:
     * failed to assign %pR"; 6.8 moved the resource first ("%s %pR: can't
     * assign; no space", "%s %pR: failed to assign"). "no space" may still
     * end in an assignment at the firmware's address; "failed to assign" is
     * final. Real lines: a 6.8+ dmesg with "BAR 1 [mem size 0x400000000 64bit
     * pref]: can't assign; no space" (a Tesla M40 without Above 4G decoding). */
    {"pci_bar_no_space", "BAR ", ": no space for ", KL_WARN,
     "drivers/pci/setup-res.c pci_assign_resource (up to 6.7): \"BAR %d: no space for %pR\"",
     "[    0.512000] pci 0000:03:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]", 0,
     NULL},
    {"pci_bar_no_space", "BAR ", "]: can't assign; no space", KL_WARN,
     "drivers/pci/setup-res.c pci_assign_resource (6.8+): \"%s %pR: can't assign; no space\"",
     "[    0.512000] pci 0000:01:00.0: BAR 1 [mem size 0x400000000 64bit pref]: can't assign; "
     "no space",
     0, NULL},
    {"pci_bar_unassigned", "BAR ", "failed to assign", KL_FAIL,
     "drivers/pci/setup-res.c pci_assign_resource: \"BAR %d: failed to assign %pR\" (up to "
     "6.7), \"%s %pR: failed to assign\" (6.8+)",
     "[    0.512100] pci 0000:03:00.0: BAR 0 [mem size 0x400000000 64bit pref]: failed to "
     "assign",
     0, NULL},
    /* amdgpu's init of an IP block, the PSP (its secure processor) and the
     * rings' self-tests (real lines: geerlingguy/raspberry-pi-pcie-devices
     * #331 "sw_init of IP block <gmc_v8_0> failed -2"; a Vega passed back
     * from vfio-pci, "PSP create ring failed!" then "hw_init of IP block
     * <psp> failed -22"; ROCm/ROCm#2533 "ring gfx_32782.1.1 test failed
     * (-110)") */
    {"ip_init_failed", " of IP block <", "> failed", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_ip_init, amdgpu_device_ip_hw_init_phase1 (and "
         "_early_init, _hw_init_phase2, _fw_loading, "
         "_ip_resume: \"sw_init of IP block <%s> failed %d\" (and early_init, hw_init, "
         "resume)",
     "[    4.825981] [drm:amdgpu_device_init [amdgpu]] *ERROR* sw_init of IP block <gmc_v8_0> "
     "failed -2",
     0, NULL},
    {"psp_failed", "PSP create ring failed", NULL, KL_FAIL,
     AMD "amdgpu_psp.c psp_hw_start: \"PSP create ring failed!\"",
     "[  548.007102] [drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring failed!", 0, NULL},
    {"psp_failed", "PSP load ", " failed!", KL_FAIL,
     AMD "amdgpu_psp.c psp_hw_start: \"PSP load kdb failed!\" (and sys drv, sos, spl, ...)",
     "[    5.100200] amdgpu 0000:07:00.0: amdgpu: PSP load kdb failed!", 0, NULL},
    {"psp_failed", "PSP firmware loading failed", NULL, KL_FAIL,
     AMD "amdgpu_psp.c psp_hw_init: \"PSP firmware loading failed\"",
     "[  548.027174] [drm:psp_hw_init [amdgpu]] *ERROR* PSP firmware loading failed", 0, NULL},
    {"psp_failed", "PSP resume failed", NULL, KL_FAIL,
     AMD "amdgpu_psp.c psp_resume: \"PSP resume failed\"",
     "[  650.160459] [drm:psp_resume [amdgpu]] *ERROR* PSP resume failed", 0, NULL},
    {"ring_test_failed", "ring ", " test failed", KL_FAIL,
     AMD "amdgpu_ring.c amdgpu_ring_test_helper: \"ring %s test failed (%d)\"",
     "[ 2239.204243] amdgpu 0000:0a:00.0: [drm:amdgpu_mes_self_test [amdgpu]] *ERROR* ring "
     "gfx_32782.1.1 test failed (-110)",
     0, NULL},
    {"ring_test_failed", "IB test failed on ", NULL, KL_FAIL,
     AMD "amdgpu_ib.c amdgpu_ib_ring_tests: \"IB test failed on %s (%d).\"",
     "[    5.300000] [drm:amdgpu_ib_ring_tests [amdgpu]] *ERROR* IB test failed on gfx_0.0.0 "
     "(-110).",
     0, NULL},
};

const struct kl_signature *kl_signatures(size_t *n)
{
    *n = ARRAY_SIZE(signatures);
    return signatures;
}

int kl_match(const struct kl_signature *sig, const char *line)
{
    char *(*find)(const char *, const char *) = sig->icase ? strcasestr : strstr;
    if (!find(line, sig->needle) || (sig->needle2 && !find(line, sig->needle2)))
        return 0;
    return !sig->unless || !strcasestr(line, sig->unless);
}

int kl_bar_event(const char *line, char **key, char **dev)
{
    const char *m = strstr(line, ": BAR ");
    if (!m)
        return 0;
    const char *num = m + 6;
    size_t nd = strspn(num, "0123456789");
    if (nd == 0 || nd > 2)
        return 0;
    const char *rest = num + nd;
    int state;
    if (strstr(rest, "failed to assign"))
        state = 1;
    else if (strstr(rest, ": assigned"))
        state = 2;
    else
        return 0;
    const char *d = m;
    while (d > line && d[-1] != ' ')
        d--;
    if (d == m)
        return 0;
    *dev = xasprintf("%.*s", (int)(m - d), d);
    *key = xasprintf("%s BAR %.*s", *dev, (int)nd, num);
    return state;
}

int kl_kfd_asic(const char *line, char **out)
{
    const char *end = strstr(line, " not supported in kfd");
    if (!end)
        return -1;
    const char *gc = strstr(line, "GC IP ");
    const char *b;
    if (gc && gc < end) {
        b = gc;
    } else {
        const char *m = strstr(line, "amdgpu: ");
        if (!m || m > end)
            return -1;
        b = m + 8;
    }
    while (end > b && end[-1] == ' ')
        end--;
    if (end == b)
        return -1;
    *out = xasprintf("%.*s", (int)(end - b), b);
    return 0;
}

int kl_timestamp(const char *line, double *seconds)
{
    const char *p = line;
    if (*p++ != '[')
        return -1;
    while (*p == ' ')
        p++;
    char *end;
    double v = strtod(p, &end);
    if (end == p || *end != ']' || !(v >= 0) || p[0] < '0' || p[0] > '9')
        return -1;
    *seconds = v;
    return 0;
}

int kl_fault_process(const char *line, char **out)
{
    static const char *const marks[] = {" in process ", " Process "};
    for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
        const char *m = strstr(line, marks[i]);
        if (!m)
            continue;
        const char *name = m + strlen(marks[i]);
        const char *pid = strstr(name, " pid ");
        if (!pid || pid == name)
            continue;
        const char *num = pid + 5;
        size_t nd = strspn(num, "0123456789");
        if (nd == 0 || nd > 10)
            continue;
        *out = xasprintf("%.*s pid %.*s", (int)(pid - name), name, (int)nd, num);
        return 0;
    }
    return -1;
}
