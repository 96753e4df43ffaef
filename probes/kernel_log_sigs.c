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

static const struct kl_signature signatures[] = {
    {"atomics_unsupported", "PCIE atomic ops is not supported", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_init: \"PCIE atomic ops is not supported\"",
     "[    3.211000] amdgpu 0000:03:00.0: amdgpu: PCIE atomic ops is not supported"},
    {"pci_rejects_atomics", "skipped device", "PCI rejects atomics", KL_FAIL,
     "amdkfd/kfd_device.c kgd2kfd_probe: \"skipped device %x:%x, PCI rejects atomics %d<%d\"",
     "[    4.100000] kfd kfd: amdgpu: skipped device 1002:73bf, PCI rejects atomics 730<92"},
    /* page faults: the first row is the generic one of older kernels; the
     * others the gmc_v9_0.c/gmc_v10_0.c/gmc_v11_0.c format with its hub */
    {"gpu_page_fault", "amdgpu", "page fault", KL_FAIL,
     AMD "gmc_v9_0.c gmc_v9_0_process_interrupt: \"[%s] %s page fault (src_id:%u ring:%u "
         "vmid:%u pasid:%u)\"",
     "[ 8812.113201] amdgpu 0000:c1:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 "
     "pasid:32770)"},
    {"gpu_page_fault", "] no-retry page fault (src_id:", NULL, KL_FAIL,
     AMD "gmc_v9_0.c gmc_v9_0_process_interrupt (6.x: \"no-retry\"/\"retry\" named)",
     "[  301.000001] amdgpu 0000:03:00.0: [mmhub] no-retry page fault (src_id:0 ring:0 vmid:3 "
     "pasid:32769)"},
    {"memory_access_fault", "Memory access fault by GPU", NULL, KL_FAIL,
     "ROCr (rocr-runtime core/runtime/runtime.cpp VMFaultHandler), when its stderr reaches the log",
     "Memory access fault by GPU node-1 (Agent handle: 0x55d1c0a3e270) on address 0x7f2a1c000000. "
     "Reason: Page not present or supervisor privilege."},
    {"kfd_unsupported", "kfd not supported on this ASIC", NULL, KL_FAIL,
     "amdkfd/kfd_device.c kgd2kfd_probe: \"kfd not supported on this ASIC\"",
     "[    4.000000] kfd kfd: amdgpu: kfd not supported on this ASIC"},
    {"key_rejected", "Key was rejected by service", NULL, KL_FAIL,
     "kernel/module/signing.c (EKEYREJECTED as strerror): \"Key was rejected by service\"",
     "[    3.101400] modprobe: Key was rejected by service"},
    /* Secure Boot / lockdown refusing an unsigned module (kernel/module/signing.c) */
    {"module_rejected", "Loading of unsigned module is rejected", NULL, KL_FAIL,
     "kernel/module/signing.c module_sig_check: \"Loading of unsigned module is rejected\"",
     "[    3.101200] Loading of unsigned module is rejected"},
    {"module_rejected", "Lockdown:", "unsigned module loading is restricted", KL_FAIL,
     "security/lockdown/lockdown.c: \"Lockdown: %s: %s is restricted; see man kernel_lockdown.7\"",
     "[    3.101200] Lockdown: modprobe: unsigned module loading is restricted; see man "
     "kernel_lockdown.7"},
    /* request_firmware() and amdgpu's own messages when a file is missing */
    {"firmware_failed", "Direct firmware load for amdgpu/", "failed", KL_FAIL,
     "drivers/base/firmware_loader/main.c _request_firmware: \"Direct firmware load for %s failed "
     "with error %d\"",
     "[    2.902200] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/psp_13_0_0_sos.bin "
     "failed with error -2"},
    {"firmware_failed", "amdgpu", "Failed to load gpu_info firmware", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_parse_gpu_info_fw: \"Failed to load gpu_info firmware "
         "\\\"%s\\\"\"",
     "[    2.902100] amdgpu 0000:03:00.0: amdgpu: Failed to load gpu_info firmware "
     "\"amdgpu/navi10_gpu_info.bin\""},
    {"firmware_failed", "amdgpu", "failed to load firmware", KL_FAIL,
     AMD "amdgpu_ucode.c amdgpu_ucode_request / gfx_v*_0.c init_microcode: \"failed to load "
         "firmware \\\"%s\\\"\"",
     "[    2.902100] amdgpu 0000:03:00.0: amdgpu: gfx11: failed to load firmware "
     "\"amdgpu/gc_11_0_0_pfp.bin\""},
    /* the driver core when amdgpu's probe of a device fails */
    {"probe_failed", "amdgpu", "probe with driver amdgpu failed", KL_FAIL,
     "drivers/base/dd.c call_driver_probe: \"probe with driver %s failed with error %d\"",
     "[    2.902500] amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -22"},
    {"probe_failed", "amdgpu: probe of", "failed with error", KL_FAIL,
     "drivers/base/dd.c call_driver_probe (older kernels): \"%s: probe of %s failed with error "
     "%d\"",
     "[    2.902500] amdgpu: probe of 0000:03:00.0 failed with error -19"},
    /* amdgpu's own words when its init of the device gives up */
    {"probe_failed", "amdgpu", "Fatal error during GPU init", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_init: \"Fatal error during GPU init\"",
     "[    2.902400] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init"},
    {"probe_failed", "amdgpu", "amdgpu_device_ip_init failed", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_init: \"amdgpu_device_ip_init failed\"",
     "[    2.902300] amdgpu 0000:03:00.0: amdgpu: amdgpu_device_ip_init failed"},
    {"hmm_registered", "HMM registered", NULL, KL_INFO,
     "amdkfd/kfd_migrate.c kgd2kfd_init_zone_device: \"HMM registered %ldMB device memory\"",
     "[    4.912345] amdgpu 0000:05:00.0: amdgpu: HMM registered 196608MB device memory"},
    /* a job that did not finish in time: the scheduler's timeout handler */
    {"ring_timeout", "ring ", " timeout, signaled seq=", KL_WARN,
     AMD "amdgpu_job.c amdgpu_job_timedout: \"ring %s timeout, signaled seq=%u, emitted seq=%u\"",
     "[ 1204.551920] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled "
     "seq=45012, emitted seq=45014"},
    {"gpu_reset_begin", "GPU reset begin!", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_gpu_recover: \"GPU reset begin!\"",
     "[ 1204.552001] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!"},
    {"gpu_reset_succeeded", "GPU reset(", ") succeeded!", KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_gpu_recover: \"GPU reset(%d) succeeded!\"",
     "[ 1206.100412] amdgpu 0000:03:00.0: amdgpu: GPU reset(2) succeeded!"},
    {"gpu_reset_succeeded", "GPU reset succeeded, trying to resume", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_do_asic_reset: \"GPU reset succeeded, trying to resume\"",
     "[73848.629000] amdgpu 0000:c1:00.0: amdgpu: GPU reset succeeded, trying to resume"},
    /* 6.12+: a hung ring is reset alone before the whole GPU is */
    {"ring_reset", "Starting ", " ring reset", KL_WARN,
     AMD "amdgpu_job.c amdgpu_job_timedout: \"Starting %s ring reset\"",
     "[  950.818200] amdgpu 0000:c5:00.0: Starting gfx_0.0.0 ring reset"},
    {"gpu_reset_failed", "GPU reset(", ") failed", KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_gpu_recover: \"GPU reset(%d) failed\"",
     "[ 1206.100412] amdgpu 0000:03:00.0: amdgpu: GPU reset(3) failed"},
    {"gpu_reset_failed", "ASIC reset failed with error", NULL, KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_gpu_recover: \"ASIC reset failed with error, %d for drm "
         "dev, %s\"",
     "[ 1206.000100] [drm:amdgpu_device_gpu_recover [amdgpu]] *ERROR* ASIC reset failed with "
     "error, -110 for drm dev, 0000:03:00.0"},
    {"vram_lost", "VRAM is lost due to GPU reset!", NULL, KL_FAIL,
     AMD "amdgpu_device.c amdgpu_device_reinit_after_reset: \"VRAM is lost due to GPU reset!\"",
     "[ 1205.990100] amdgpu 0000:03:00.0: amdgpu: VRAM is lost due to GPU reset!"},
    /* the micro engine scheduler (gfx11+) and the kernel interface queue */
    {"mes_failure", "MES failed to respon", NULL, KL_WARN,
     AMD "mes_v11_0.c mes_v11_0_submit_pkt_and_poll_completion: \"MES failed to response "
         "msg=%d\" (6.10+: \"MES failed to respond to msg=%s (%s)\")",
     "[  512.300200] amdgpu 0000:03:00.0: amdgpu: MES failed to response msg=3"},
    {"mes_failure", "MES might be in unrecoverable state", NULL, KL_WARN,
     AMD "mes_v11_0.c mes_v11_0_submit_pkt_and_poll_completion: \"MES might be in unrecoverable "
         "state, issue a GPU reset\"",
     "[73845.072581] amdgpu 0000:c1:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU "
     "reset"},
    {"kiq_failure", "KCQ enable failed", NULL, KL_WARN,
     AMD "amdgpu_gfx.c amdgpu_gfx_enable_kcq: \"KCQ enable failed\"",
     "[    5.100000] [drm:amdgpu_gfx_enable_kcq [amdgpu]] *ERROR* KCQ enable failed"},
    {"kiq_failure", "KCQ disable failed", NULL, KL_WARN,
     AMD "amdgpu_gfx.c amdgpu_gfx_disable_kcq: \"KCQ disable failed\"",
     "[ 1204.600000] [drm:amdgpu_gfx_disable_kcq [amdgpu]] *ERROR* KCQ disable failed"},
    {"kiq_failure", "amdgpu", "failed to write reg:", KL_WARN,
     AMD "amdgpu_gfx.c amdgpu_kiq_wreg: \"failed to write reg:%x\"",
     "[ 1204.600100] amdgpu 0000:03:00.0: amdgpu: failed to write reg:1a6f4"},
    /* large BAR (amdgpu_device_resize_fb_bar) */
    {"bar_no_space", "Not enough PCI address space for a large BAR", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_resize_fb_bar: \"Not enough PCI address space for a large "
         "BAR.\"",
     "[    2.800000] [drm] Not enough PCI address space for a large BAR."},
    {"bar_resize_failed", "Problem resizing BAR0", NULL, KL_WARN,
     AMD "amdgpu_device.c amdgpu_device_resize_fb_bar: \"Problem resizing BAR0 (%d).\"",
     "[    2.800100] [drm:amdgpu_device_resize_fb_bar [amdgpu]] *ERROR* Problem resizing BAR0 "
     "(-28)."},
};

const struct kl_signature *kl_signatures(size_t *n)
{
    *n = ARRAY_SIZE(signatures);
    return signatures;
}

int kl_match(const struct kl_signature *sig, const char *line)
{
    return strstr(line, sig->needle) && (!sig->needle2 || strstr(line, sig->needle2));
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
