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
    } want[] = {{"ring_timeout", KL_WARN},        {"gpu_reset_begin", KL_WARN},
                {"gpu_reset_succeeded", KL_WARN}, {"gpu_reset_failed", KL_FAIL},
                {"vram_lost", KL_FAIL},           {"gpu_page_fault", KL_FAIL},
                {"mes_failure", KL_WARN},         {"kiq_failure", KL_WARN},
                {"firmware_failed", KL_FAIL},     {"probe_failed", KL_FAIL},
                {"atomics_unsupported", KL_WARN}, {"bar_no_space", KL_WARN},
                {"bar_resize_failed", KL_WARN},   {"ring_reset", KL_WARN}};
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
