/* test_tel_nvml.c - the sampler's NVIDIA process list (tel_src_nvml.c) with the
 * fake libnvidia-ml (tests/fake/fake_nvml.c, next to this binary) on a tiny
 * sysroot that holds /proc/PID/comm: processes present (compute, graphics,
 * both; VRAM NVML cannot tell stays unknown; SM utilization from
 * nvmlDeviceGetProcessUtilization, unknown without a sample), absent (no
 * process: an empty list, "no process found"), and a failing call (the list
 * is unknown with the call named, never an empty list or 0), through
 * tel_sample, tel_sample_procs (the dashboard) and the monitor writers.
 * The device's name: its PCI address from NVML's bus id in sysfs' form,
 * "nvml:0" with the reason when the bus-id call fails; on the rx7900xtx
 * fixture (an x8 hop above the GPU at 86:00.0) the PCIe path is walked for
 * it as for an AMD GPU, and an address the AMD list holds is not listed
 * twice. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/rootfs.h"
#include "../../src/core/util.h"
#include "../../src/telemetry/tel_nvml.h"
#include "../../src/telemetry/tel_write.h"
#include "../../src/telemetry/telemetry.h"
#include "sysroot_tree.h"
#include "test.h"
#include "rx7900_path.h"

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

/* the bus id NVML gives, named as sysfs names it */
static void test_bus_id(void)
{
    char out[16];
    CHECK(tel_nvml_bus_id("00000000:3B:00.0", out, sizeof(out)) == 0);
    CHECK_STR(out, "0000:3b:00.0");
    CHECK(tel_nvml_bus_id("0000:00:06.0", out, sizeof(out)) == 0);
    CHECK_STR(out, "0000:00:06.0");
    CHECK(tel_nvml_bus_id("00010000:C1:1F.7", out, sizeof(out)) == 0);
    CHECK_STR(out, "10000:c1:1f.7");
    CHECK(tel_nvml_bus_id("", out, sizeof(out)) == -1);
    CHECK(tel_nvml_bus_id("00000000:06:00", out, sizeof(out)) == -1);
    CHECK(tel_nvml_bus_id("00000000:06:00.0x", out, sizeof(out)) == -1);
    CHECK(tel_nvml_bus_id("00000000:100:00.0", out, sizeof(out)) == -1);
}

/* the key, the failing bus-id call, the PCIe path and no GPU twice */
static void test_address(void)
{
    struct tel_sample s;
    char key[24];
    setenv("FAKE_NVML_COMPUTE", "4242:1", 1);
    setenv("FAKE_NVML_GRAPHICS", "", 1);

    /* NVML's upper-case, 8-digit-domain bus id, as sysfs writes it */
    setenv("FAKE_NVML_BUSID", "00000000:3B:00.0", 1);
    struct tel *t = tel_open(NULL, 1, 1);
    tel_sample(t, &s);
    CHECK(s.ngpu == 1);
    CHECK_STR(s.gpus[0].pci, "0000:3b:00.0");
    CHECK(s.nproc == 1 && s.procs[0].gpu == 0); /* processes follow the key */
    char *j = written(&s, 0);
    CHECK(strstr(j, "\"pci\":\"0000:3b:00.0\"") != NULL);
    free(j);
    tel_sample_release(&s);
    CHECK(tel_sample_procs(t, &s) == 0);
    CHECK(s.ngpu == 1 && s.nproc == 1);
    CHECK_STR(s.gpus[0].pci, "0000:3b:00.0");
    tel_sample_release(&s);
    /* soak's matching: any spelling of the address, none other */
    CHECK(tel_gpu_key(t, "0000:3b:00.0", key, sizeof(key)) && !strcmp(key, "0000:3b:00.0"));
    CHECK(tel_gpu_key(t, "00000000:3B:00.0", key, sizeof(key)) && !strcmp(key, "0000:3b:00.0"));
    CHECK(tel_gpu_key(t, "0000:3c:00.0", key, sizeof(key)) == NULL);
    tel_close(t);

    /* the bus-id call fails: "nvml:0", and the unknown path says why */
    setenv("FAKE_NVML_BUSID", "fail", 1);
    t = tel_open(NULL, 1, 1);
    tel_sample(t, &s);
    CHECK(s.ngpu == 1);
    CHECK_STR(s.gpus[0].pci, "nvml:0");
    CHECK(s.nproc == 1 && s.procs[0].gpu == 0);
    CHECK(!s.gpus[0].src[TEL_PCIE_PATH_WIDTH]);
    CHECK(strstr(s.gpus[0].why[TEL_PCIE_PATH_WIDTH],
                 "NVML cannot tell the PCI address: nvmlDeviceGetPciInfo_v3: Unknown Error"));
    j = written(&s, 0);
    CHECK(strstr(j, "\"pci\":\"nvml:0\"") && strstr(j, "nvmlDeviceGetPciInfo_v3"));
    free(j);
    tel_sample_release(&s);
    /* the address is not known: NVML's own lookup (absent in the fake: device 0) */
    CHECK(tel_gpu_key(t, "0000:86:00.0", key, sizeof(key)) && !strcmp(key, "nvml:0"));
    tel_close(t);

    /* a bus id that is not one: "nvml:0" with what NVML said */
    setenv("FAKE_NVML_BUSID", "garbage", 1);
    t = tel_open(NULL, 1, 0);
    tel_sample(t, &s);
    CHECK_STR(s.gpus[0].pci, "nvml:0");
    CHECK(strstr(s.gpus[0].why[TEL_PCIE_PATH_GTS], "NVML bus id \"garbage\" not understood"));
    tel_sample_release(&s);
    tel_close(t);

    /* the fixture's GPU at 86:00.0 sits below an x8 Gen4 hop (84:00.0):
     * NVML's Gen4 x16 GPU there gets the same path as an AMD GPU would */
    setenv("FAKE_NVML_BUSID", "00000000:86:00.0", 1);
    CHECK(rootfs_init(RX7900_ROOT) == 0);
    t = tel_open(NULL, 1, 0);
    tel_sample(t, &s);
    CHECK(s.ngpu == 1);
    const struct tel_gpu *g = &s.gpus[0];
    CHECK_STR(g->pci, RX7900_GPU);
    CHECK_STR(g->vendor, "nvidia");
    check_rx7900_path(g);
    tel_sample_release(&s);
    tel_close(t);

    /* the same address in the AMD list: one GPU, not two */
    struct strlist bdfs = STRLIST_INIT;
    strlist_add(&bdfs, RX7900_GPU);
    t = tel_open(&bdfs, 1, 0);
    tel_sample(t, &s);
    CHECK(s.ngpu == 1);
    CHECK_STR(s.gpus[0].pci, RX7900_GPU);
    CHECK_STR(s.gpus[0].vendor, "amd");
    tel_sample_release(&s);
    tel_close(t);
    strlist_release(&bdfs);
    unsetenv("FAKE_NVML_BUSID");
    CHECK(rootfs_init(root) == 0);
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
        CHECK_STR(s.gpus[0].pci, "0000:86:00.0");
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
    test_bus_id();
    test_address();
    tree_remove();
    return test_report();
}
