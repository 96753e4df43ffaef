/* test_kernel_log.c - the kernel-log catalogue (kernel_log_sigs.c): every
 * row matches its own test line and no row of another id does, the
 * timestamp and faulting-process parsers, and the probe's counts, last
 * occurrence and fault processes on small logs. */
#include "../../probes/kernel_log.h"
#include "../../probes/probe.h"
#include "sysroot_tree.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int probe_kernel_log_run(struct probe_ctx *ctx);

static struct factset fs = FACTSET_INIT;
static struct probe_opts opts = {0};
static struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};

static void run_log(const char *log)
{
    tree_fresh("klog");
    factset_release(&fs);
    put("/.snapshot/dmesg", log);
    if (rootfs_init(root))
        exit(2);
    probe_kernel_log_run(&ctx);
}

static int64_t fint(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_INT ? f->i : -999;
}

static double ffloat(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_FLOAT ? f->f : NAN;
}

static int is_unknown(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_UNKNOWN;
}

static int list_has(const char *name, const char *v)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_LIST && strlist_has(&f->list, v);
}

static void test_catalogue(void)
{
    size_t n;
    const struct kl_signature *s = kl_signatures(&n);
    CHECK(n >= 20);
    for (size_t i = 0; i < n; i++) {
        CHECK(s[i].id && s[i].needle && *s[i].needle);
        CHECK(s[i].source && strlen(s[i].source) > 10);
        CHECK(s[i].test != NULL);
        if (!kl_match(&s[i], s[i].test))
            fprintf(stderr, "row %zu (%s) does not match its test line\n", i, s[i].id);
        CHECK(kl_match(&s[i], s[i].test));
        /* a test line belongs to one id: no row of another id matches it */
        for (size_t j = 0; j < n; j++) {
            if (strcmp(s[i].id, s[j].id) == 0 || !kl_match(&s[j], s[i].test))
                continue;
            fprintf(stderr, "row %zu (%s) matches the test line of %s\n", j, s[j].id, s[i].id);
            CHECK(0);
        }
    }
    /* the ids the checks name are in the table, with the severity they judge */
    static const struct {
        const char *id;
        enum kl_severity sev;
    } want[] = {{"ring_timeout", KL_WARN},
                {"gpu_reset_begin", KL_WARN},
                {"gpu_reset_succeeded", KL_WARN},
                {"gpu_reset_failed", KL_FAIL},
                {"vram_lost", KL_FAIL},
                {"gpu_page_fault", KL_FAIL},
                {"mes_failure", KL_WARN},
                {"kiq_failure", KL_WARN},
                {"firmware_failed", KL_FAIL},
                {"probe_failed", KL_FAIL},
                {"atomics_unsupported", KL_WARN},
                {"bar_no_space", KL_WARN},
                {"bar_resize_failed", KL_WARN},
                {"ring_reset", KL_WARN},
                {"ring_reset_succeeded", KL_WARN},
                {"ring_reset_failed", KL_FAIL},
                {"device_wedged", KL_FAIL},
                {"device_wedged_recovered", KL_WARN},
                {"compute_hang", KL_FAIL},
                {"gpu_recovery_disabled", KL_WARN},
                {"kfd_unsupported", KL_FAIL},
                {"firmware_optional", KL_INFO},
                {"pci_bar_no_space", KL_WARN},
                {"pci_bar_unassigned", KL_FAIL},
                {"ip_init_failed", KL_FAIL},
                {"psp_failed", KL_FAIL},
                {"ring_test_failed", KL_FAIL},
                {"hmm_registered", KL_INFO}};
    for (size_t w = 0; w < ARRAY_SIZE(want); w++) {
        int found = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(s[i].id, want[w].id) == 0) {
                found = 1;
                CHECK(s[i].severity == want[w].sev);
            }
        CHECK(found);
    }
}

static void test_parsers(void)
{
    double t = -1;
    CHECK(kl_timestamp("[ 8812.113201] amdgpu: x", &t) == 0 && fabs(t - 8812.113201) < 1e-9);
    CHECK(kl_timestamp("[    0.000000] Linux", &t) == 0 && t == 0);
    CHECK(kl_timestamp("amdgpu: no stamp", &t) == -1);
    CHECK(kl_timestamp("[abc] x", &t) == -1);
    CHECK(kl_timestamp("[ -1.0] x", &t) == -1);
    CHECK(kl_timestamp("[ inf] x", &t) == -1);
    CHECK(kl_timestamp("[ 12.5 x", &t) == -1);
    CHECK(kl_timestamp("", &t) == -1);

    char *p = NULL;
    CHECK(kl_fault_process("[ 1.0] amdgpu 0000:c1:00.0: amdgpu:  in process python3 pid 41211 "
                           "thread python3 pid 41211",
                           &p) == 0);
    CHECK_STR(p, "python3 pid 41211");
    free(p);
    p = NULL;
    CHECK(kl_fault_process("[ 1.0] amdgpu 0000:03:00.0: amdgpu:  Process pt_main_thread pid 900 "
                           "thread pt_main_thread pid 912",
                           &p) == 0);
    CHECK_STR(p, "pt_main_thread pid 900");
    free(p);
    CHECK(kl_fault_process("[ 1.0] amdgpu: in process  pid x", &p) == -1);
    CHECK(kl_fault_process("[ 1.0] amdgpu: Process python3 pid", &p) == -1);
    CHECK(kl_fault_process("unrelated", &p) == -1);

    /* BAR lines of both wordings; VF BARs and bridge windows are not the
     * device's own */
    char *key = NULL, *dev = NULL;
    CHECK(kl_bar_event("[ 0.5] pci 0000:03:00.0: BAR 0 [mem size 0x400000000 64bit pref]: "
                       "failed to assign",
                       &key, &dev) == 1);
    CHECK_STR(key, "0000:03:00.0 BAR 0");
    CHECK_STR(dev, "0000:03:00.0");
    free(key);
    free(dev);
    CHECK(kl_bar_event("pci 0000:03:00.0: BAR 2: assigned [mem 0xf0000000-0xf01fffff 64bit pref]",
                       &key, &dev) == 2);
    CHECK_STR(key, "0000:03:00.0 BAR 2");
    free(key);
    free(dev);
    CHECK(kl_bar_event("pci 0006:03:00.0: VF BAR 0 [mem size 0x02000000 64bit pref]: failed to "
                       "assign",
                       &key, &dev) == 0);
    CHECK(kl_bar_event("pci 0000:00:01.0: bridge window [mem size 0x00200000]: failed to assign",
                       &key, &dev) == 0);
    CHECK(kl_bar_event("pci 0000:03:00.0: BAR 0 [mem 0x00000000-0x0fffffff 64bit pref]", &key,
                       &dev) == 0);

    /* the ASIC KFD refused, in both of today's wordings */
    CHECK(kl_kfd_asic("[ 13.9] kfd kfd: amdgpu: TAHITI  not supported in kfd", &p) == 0);
    CHECK_STR(p, "TAHITI");
    free(p);
    CHECK(kl_kfd_asic("kfd kfd: amdgpu: GC IP 0b0004  not supported in kfd", &p) == 0);
    CHECK_STR(p, "GC IP 0b0004");
    free(p);
    CHECK(kl_kfd_asic("amdgpu 0000:06:00.0: kfd not supported on this ASIC", &p) == -1);
    CHECK(kl_kfd_asic("kfd kfd: amdgpu:  not supported in kfd", &p) == -1);
}

static void test_probe_counts(void)
{
    /* a reset that recovered after two ring timeouts, then a fault */
    run_log("[    0.000000] Linux version 6.8.0\n"
            "[ 1204.551920] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, "
            "signaled seq=45012, emitted seq=45014\n"
            "[ 1204.552001] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
            "[ 1205.990100] amdgpu 0000:03:00.0: amdgpu: VRAM is lost due to GPU reset!\n"
            "[ 1206.100412] amdgpu 0000:03:00.0: amdgpu: GPU reset(2) succeeded!\n"
            "[ 2000.000001] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, "
            "signaled seq=10, emitted seq=11\n"
            "[ 3000.5] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 "
            "pasid:32770)\n"
            "[ 3000.6] amdgpu 0000:03:00.0: amdgpu:  in process python3 pid 41211 thread python3 "
            "pid 41213\n");
    CHECK(fint("kernel.events.ring_timeout.count") == 2);
    CHECK(fabs(ffloat("kernel.events.ring_timeout.last") - 2000.000001) < 1e-6);
    CHECK(fint("kernel.events.gpu_reset_begin.count") == 1);
    CHECK(fint("kernel.events.gpu_reset_succeeded.count") == 1);
    CHECK(fint("kernel.events.gpu_reset_failed.count") == 0);
    CHECK(is_unknown("kernel.events.gpu_reset_failed.last"));
    CHECK(fint("kernel.events.vram_lost.count") == 1);
    CHECK(fint("kernel.events.gpu_page_fault.count") == 1);
    CHECK(list_has("kernel.events.fault_processes", "python3 pid 41211"));
    CHECK(list_has("kernel.events", "ring_timeout: 2 times, last at 2000.0 s after boot"));
    CHECK(list_has("kernel.events", "vram_lost: 1 time, last at 1206.0 s after boot"));
    CHECK(list_has("kernel.dmesg.signatures", "gpu_reset_begin"));

    /* without timestamps: counted, the last time unknown with the reason */
    run_log("amdgpu 0000:03:00.0: amdgpu: GPU reset(3) failed\n"
            "amdgpu 0000:03:00.0: amdgpu: GPU reset(3) failed\n");
    CHECK(fint("kernel.events.gpu_reset_failed.count") == 2);
    CHECK(is_unknown("kernel.events.gpu_reset_failed.last"));
    CHECK(list_has("kernel.events", "gpu_reset_failed: 2 times"));
    const struct fact *f = fact_get(&fs, "kernel.events.fault_processes");
    CHECK(f && f->type == FACT_LIST && f->list.n == 0);

    /* a line that two rows of one id match counts once */
    run_log("[ 301.0] amdgpu 0000:03:00.0: amdgpu: [mmhub] no-retry page fault (src_id:0 ring:0 "
            "vmid:3 pasid:32769)\n"
            "[ 301.1] amdgpu 0000:03:00.0: amdgpu:  Process ros2 pid 77 thread ros2 pid 78\n");
    CHECK(fint("kernel.events.gpu_page_fault.count") == 1);
    CHECK(list_has("kernel.events.fault_processes", "ros2 pid 77"));

    /* a compute hang that never reached a reset (ROCm/ROCm#3207, 6.10,
     * amdgpu.gpu_recovery=0), with KFD refusing a second GPU and a benign
     * line: the benign and the optional firmware are signatures, never
     * problems */
    run_log("[    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin "
            "failed with error -2\n"
            "[    4.912345] amdgpu 0000:05:00.0: amdgpu: HMM registered 196608MB device memory\n"
            "[   13.966785] kfd kfd: amdgpu: TAHITI  not supported in kfd\n"
            "[40869.919380] amdgpu 0000:c3:00.0: amdgpu: failed to remove hardware queue from MES, "
            "doorbell=0x1002\n"
            "[40869.919386] amdgpu 0000:c3:00.0: amdgpu: Failed to evict queue 1\n"
            "[40869.919389] amdgpu: Failed to evict process queues\n"
            "[40869.919406] amdgpu 0000:c3:00.0: amdgpu: GPU recovery disabled.\n");
    CHECK(fint("kernel.events.compute_hang.count") == 3);
    CHECK(fint("kernel.events.gpu_recovery_disabled.count") == 1);
    CHECK(fint("kernel.events.gpu_reset_begin.count") == 0);
    CHECK(fint("kernel.events.firmware_failed.count") == 0);
    CHECK(fint("kernel.events.firmware_optional.count") == 1);
    CHECK(list_has("kernel.dmesg.kfd_unsupported_asics", "TAHITI"));
    CHECK(list_has("kernel.dmesg.signatures", "hmm_registered"));
    CHECK(list_has("kernel.dmesg.signatures", "firmware_optional"));
    CHECK(!list_has("kernel.dmesg.problems", "hmm_registered"));
    CHECK(!list_has("kernel.dmesg.problems", "firmware_optional"));
    CHECK(list_has("kernel.dmesg.problems", "compute_hang"));
    CHECK(list_has("kernel.dmesg.problems", "kfd_unsupported"));

    /* a ring reset that failed then one that succeeded: counted apart */
    run_log("[  950.818200] amdgpu 0000:c5:00.0: Starting gfx_0.0.0 ring reset\n"
            "[  950.818900] amdgpu 0000:c5:00.0: amdgpu: Ring gfx_0.0.0 reset failed\n"
            "[  990.818200] amdgpu 0000:c5:00.0: Starting comp_1.0.0 ring reset\n"
            "[  990.818900] amdgpu 0000:c5:00.0: amdgpu: Ring comp_1.0.0 reset succeeded\n"
            "[  990.819000] amdgpu 0000:c5:00.0: [drm] device wedged, but recovered through "
            "reset\n");
    CHECK(fint("kernel.events.ring_reset.count") == 2);
    CHECK(fint("kernel.events.ring_reset_failed.count") == 1);
    CHECK(fint("kernel.events.ring_reset_succeeded.count") == 1);
    CHECK(fint("kernel.events.device_wedged_recovered.count") == 1);
    CHECK(fint("kernel.events.device_wedged.count") == 0);

    /* BARs: the GPU's BAR 0 stays unassigned; another device's BAR failed
     * on the first pass and was assigned on the second (pci=realloc) */
    run_log("[    0.500000] pci 0000:04:00.0: BAR 0 [mem size 0x00200000]: can't assign; no "
            "space\n"
            "[    0.500100] pci 0000:04:00.0: BAR 0 [mem size 0x00200000]: failed to assign\n"
            "[    0.512000] pci 0000:03:00.0: BAR 0: no space for [mem size 0x400000000 64bit "
            "pref]\n"
            "[    0.512100] pci 0000:03:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit "
            "pref]\n"
            "[    0.600000] pci 0000:04:00.0: BAR 0 [mem 0xfc000000-0xfc1fffff]: assigned\n");
    CHECK(fint("kernel.events.pci_bar_unassigned.count") == 2);
    CHECK(fint("kernel.events.pci_bar_no_space.count") == 2);
    CHECK(list_has("kernel.dmesg.bar_unassigned_devices", "0000:03:00.0"));
    CHECK(!list_has("kernel.dmesg.bar_unassigned_devices", "0000:04:00.0"));

    /* refused: every count unknown, never 0 */
    tree_fresh("klog");
    factset_release(&fs);
    put("/.snapshot/read-errors", "1 /.snapshot/dmesg\n");
    if (rootfs_init(root))
        exit(2);
    probe_kernel_log_run(&ctx);
    CHECK(is_unknown("kernel.events.ring_timeout.count"));
    CHECK(is_unknown("kernel.events"));
    CHECK(is_unknown("kernel.events.fault_processes"));
    CHECK(is_unknown("kernel.dmesg.problems"));
    CHECK(is_unknown("kernel.dmesg.bar_unassigned_devices"));
}

int main(void)
{
    test_catalogue();
    test_parsers();
    test_probe_counts();
    factset_release(&fs);
    tree_remove();
    return test_report();
}
