/* test_tel_nvml.c - the sampler's NVIDIA process list (tel_nvml.c) with the
 * fake libnvidia-ml (tests/fake/fake_nvml.c, next to this binary) on a tiny
 * sysroot that holds /proc/PID/comm: processes present (compute, graphics,
 * both; VRAM NVML cannot tell stays unknown; SM utilization from
 * nvmlDeviceGetProcessUtilization, unknown without a sample), absent (no
 * process: an empty list, "no process found"), and a failing call (the list
 * is unknown with the call named, never an empty list or 0), through
 * tel_sample, tel_sample_procs (the dashboard) and the monitor writers. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/rootfs.h"
#include "../../src/core/util.h"
#include "../../src/telemetry/tel_write.h"
#include "../../src/telemetry/telemetry.h"
#include "sysroot_tree.h"
#include "test.h"

static const struct tel_proc *find(const struct tel_sample *s, int pid)
{
    for (size_t i = 0; i < s->nproc; i++)
        if (s->procs[i].pid == pid)
            return &s->procs[i];
    return NULL;
}

/* one sample with processes; *desc gets GPU 0's description */
static void sample(struct tel_sample *s, struct strbuf *desc, int dashboard)
{
    struct tel *t = tel_open(NULL, 1, 1);
    CHECK(strstr(tel_nvml_status(t), "loaded") != NULL);
    if (dashboard)
        CHECK(tel_sample_procs(t, s) == 0);
    else
        tel_sample(t, s);
    tel_close(t);
    strbuf_release(desc);
    tel_proc_describe(s, 0, desc);
}

/* the monitor's JSON and CSV line of s */
static char *written(const struct tel_sample *s, int csv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (csv)
        tel_write_csv(f, s, 0);
    else
        tel_write_json(f, s, 0);
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    (void)argc;
    char *self = xstrdup(argv[0]);
    char lib[512];
    snprintf(lib, sizeof(lib), "%s/fake/libnvidia-ml.so.1", dirname(self));
    free(self);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "%s is missing: make builds it (FAKE_LIBS)\n", lib);
        CHECK(0);
        return test_report();
    }
    tree_fresh("nvml");
    put("/proc/4242/comm", "python3\n");
    put("/proc/4343/comm", "Xorg\n");
    put("/proc/4444/comm", "blender\n");
    CHECK(rootfs_init(root) == 0);
    setenv("ROCM_VLA_DOCTOR_NVML_LIB", lib, 1);
    setenv("ROCM_VLA_DOCTOR_RSMI_LIB", "/nonexistent/librocm_smi64.so", 1);
    unsetenv("FAKE_NVML_FAIL_PROCS");
    struct tel_sample s;
    struct strbuf d = STRBUF_INIT;

    /* present: a compute process with 2 GiB and 87 % SM, a graphics one
     * whose VRAM NVML cannot tell, one in both lists */
    setenv("FAKE_NVML_COMPUTE", "4242:2147483648,4444:1048576", 1);
    setenv("FAKE_NVML_GRAPHICS", "4343:-,4444:3145728", 1);
    setenv("FAKE_NVML_UTIL", "4242:87", 1);
    for (int dash = 0; dash < 2; dash++) {
        sample(&s, &d, dash);
        CHECK(s.ngpu == 1 && s.nproc == 3);
        CHECK_STR(s.gpus[0].pci, "nvml:0");
        CHECK(s.gpus[0].procs_why[0] == '\0');
        const struct tel_proc *p = find(&s, 4242);
        CHECK(p && !strcmp(p->comm, "python3") && p->gpu == 0);
        CHECK(p && p->vram_bytes == 2147483648LL && p->busy_pct == 87);
        CHECK(p && !strcmp(p->src, "NVML compute"));
        p = find(&s, 4343);
        CHECK(p && !strcmp(p->comm, "Xorg") && p->vram_bytes == -1 && p->busy_pct < 0);
        CHECK(p && !strcmp(p->src, "NVML graphics"));
        p = find(&s, 4444);
        CHECK(p && p->vram_bytes == 3145728 && !strcmp(p->src, "NVML compute+graphics"));
        CHECK(d.buf && strstr(d.buf, "used by python3 (pid 4242, 2.0 GiB VRAM, 87% busy, NVML "
                                     "compute)"));
        if (!dash) {
            char *j = written(&s, 0), *c = written(&s, 1);
            CHECK(strstr(j, "\"pid\":4242,\"comm\":\"python3\",\"gpu\":0,\"vram_bytes\":"
                            "2147483648,\"busy_pct\":87,\"src\":\"NVML compute\""));
            CHECK(strstr(j, "\"pid\":4343,\"comm\":\"Xorg\",\"gpu\":0,\"vram_bytes\":null"));
            CHECK(!strstr(j, "procs_why"));
            CHECK(strstr(c, "python3(4242):2147483648") && strstr(c, "Xorg(4343)"));
            free(j);
            free(c);
        }
        tel_sample_release(&s);
    }

    /* absent: nothing runs: an empty list, said as such */
    setenv("FAKE_NVML_COMPUTE", "", 1);
    setenv("FAKE_NVML_GRAPHICS", "", 1);
    unsetenv("FAKE_NVML_UTIL");
    sample(&s, &d, 0);
    CHECK(s.nproc == 0 && s.gpus[0].procs_why[0] == '\0');
    CHECK(d.buf && !strcmp(d.buf, "no process found that has it open"));
    tel_sample_release(&s);

    /* a failing call: the list is unknown with the call and NVML's reason,
     * not "no process"; the monitor says so (procs_why; CSV "?") */
    setenv("FAKE_NVML_COMPUTE", "4242:1", 1);
    setenv("FAKE_NVML_FAIL_PROCS", "1", 1);
    for (int dash = 0; dash < 2; dash++) {
        sample(&s, &d, dash);
        CHECK(s.nproc == 0);
        CHECK(strstr(s.gpus[0].procs_why,
                     "nvmlDeviceGetComputeRunningProcesses_v3: Unknown Error") != NULL);
        CHECK(d.buf && strstr(d.buf, "users: ? (nvmlDeviceGetComputeRunningProcesses_v3"));
        CHECK(d.buf && !strstr(d.buf, "no process found"));
        if (!dash) {
            char *j = written(&s, 0), *c = written(&s, 1);
            CHECK(strstr(j, "\"procs_why\":\"nvmlDeviceGetComputeRunningProcesses_v3: Unknown "
                            "Error\""));
            CHECK(strstr(c, ",?,") != NULL);
            free(j);
            free(c);
        }
        tel_sample_release(&s);
    }
    unsetenv("FAKE_NVML_FAIL_PROCS");
    strbuf_release(&d);
    tree_remove();
    return test_report();
}
