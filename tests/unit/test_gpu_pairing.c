/* test_gpu_pairing.c - runtime devices are paired with the sysfs GPUs (gpu.<j>,
 * in PCI address order) and with HSA agents by PCI address, never by list
 * position. A fixture sysroot gives probe_gpu an integrated gfx1036 at
 * 0000:0e:00.0 and a discrete gfx1100 at 0000:03:00.0; the fake libamdhip64
 * and libhsa-runtime64 (tests/fake/, built by the Makefile next to this
 * binary) enumerate the iGPU first, as KFD and ROCr do. Cases: both visible;
 * HIP_VISIBLE_DEVICES=1 hiding the iGPU from HIP but not from HSA; a HIP
 * device without an HSA agent; one that is not in sysfs; an MI300-style
 * partition whose function bits hold the partition id. Plus the address
 * helpers, and vram_tel.c's choice among a fake rocm-smi's devices (BDFIDs
 * with partition bits in [31:28] or in the function, reserved bits set). */
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/gpu/backend.h"
#include "../../src/gpu/pci_addr.h"
#include "../../src/gpu/vram_tel.h"
#include "sysroot_tree.h"
#include "test.h"

#include "../../probes/probe.h"

int probe_gpu_run(struct probe_ctx *ctx);
int probe_gpu_runtime_run(struct probe_ctx *ctx);
int probe_kernels_run(struct probe_ctx *ctx);

static char hiplog[300];

static void amd_pci(const char *bdf, const char *device)
{
    char p[128];
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/class", bdf);
    put(p, "0x030000\n");
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", bdf);
    put(p, "0x1002\n");
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", bdf);
    put(p, device);
}

/* gpu.0 = the dGPU at 03:00.0, gpu.1 = the iGPU at 0e:00.0 (PCI order); KFD
 * lists the iGPU first (node 1), as on a Ryzen 7000 desktop */
static void machine(struct factset *fs)
{
    tree_fresh("pairing");
    amd_pci("0000:03:00.0", "0x744c\n");
    amd_pci("0000:0e:00.0", "0x164e\n");
    const char *k = "/sys/class/kfd/kfd/topology/nodes";
    char p[128];
    snprintf(p, sizeof(p), "%s/0/properties", k);
    put(p, "cpu_cores_count 16\nsimd_count 0\nlocation_id 0\ndomain 0\n");
    snprintf(p, sizeof(p), "%s/1/properties", k);
    put(p, "cpu_cores_count 0\nsimd_count 8\nsimd_per_cu 4\ngfx_target_version 100306\n"
           "location_id 3584\ndomain 0\n");
    snprintf(p, sizeof(p), "%s/2/properties", k);
    put(p, "cpu_cores_count 0\nsimd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\n"
           "location_id 768\ndomain 0\n");
    struct probe_opts po = {0};
    struct probe_ctx ctx = {fs, LEVEL_STANDARD, &po, 0};
    CHECK(rootfs_init(root) == 0);
    CHECK(probe_gpu_run(&ctx) == 0);
    rootfs_release();
    CHECK(rootfs_init(NULL) == 0); /* the runtime probes measure the live machine */
}

static const struct fact *F(const struct factset *fs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const struct fact *F(const struct factset *fs, const char *fmt, ...)
{
    char n[FACT_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n, sizeof(n), fmt, ap);
    va_end(ap);
    return fact_get(fs, n);
}
#define S(fs, ...)                                                                                 \
    (F(fs, __VA_ARGS__) && F(fs, __VA_ARGS__)->type == FACT_STR ? F(fs, __VA_ARGS__)->s : NULL)
#define I(fs, ...)                                                                                 \
    (F(fs, __VA_ARGS__) && F(fs, __VA_ARGS__)->type == FACT_INT ? (long long)F(fs, __VA_ARGS__)->i \
                                                                : -99LL)
#define UNKNOWN_SAYS(fs, needle, ...)                                                              \
    (F(fs, __VA_ARGS__) && F(fs, __VA_ARGS__)->type == FACT_UNKNOWN &&                             \
     F(fs, __VA_ARGS__)->reason && strstr(F(fs, __VA_ARGS__)->reason, needle))
static size_t list_n(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    return f && f->type == FACT_LIST ? f->list.n : (size_t)-1;
}
static int list_has(const struct factset *fs, const char *name, const char *needle)
{
    const struct fact *f = fact_get(fs, name);
    for (size_t i = 0; f && f->type == FACT_LIST && i < f->list.n; i++)
        if (strstr(f->list.v[i], needle))
            return 1;
    return 0;
}
/* run gpu_runtime (and kernels) on the fixture with the fake runtime */
static void run(struct factset *fs, const char *hip_devs, const char *hsa_agents,
                const char *visible, int kernels)
{
    machine(fs);
    setenv("FAKE_HIP_DEVICES", hip_devs, 1);
    setenv("FAKE_HSA_AGENTS", hsa_agents, 1);
    if (visible)
        setenv("HIP_VISIBLE_DEVICES", visible, 1);
    else
        unsetenv("HIP_VISIBLE_DEVICES");
    struct probe_opts po = {0};
    struct probe_ctx ctx = {fs, LEVEL_STANDARD, &po, 0};
    CHECK(probe_gpu_runtime_run(&ctx) == 0);
    remove(hiplog);
    if (kernels)
        CHECK(probe_kernels_run(&ctx) == 0);
}

/* every line of the fake hiprtc's log names target t (and there is one) */
static int compiled_only_for(const char *t)
{
    FILE *f = fopen(hiplog, "r");
    char line[128];
    int n = 0, other = 0;
    while (f && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        n++;
        other += strcmp(line, t) != 0;
    }
    if (f)
        fclose(f);
    return n > 0 && other == 0;
}

static void addresses(void)
{
    struct pci_addr a, b;
    char buf[PCI_ADDR_STR];
    CHECK(pci_addr_parse("0000:03:00.0", &a) == 0 && a.bus == 3 && a.dev == 0 && a.fn == 0);
    CHECK(pci_addr_parse("00000000:C3:1F.7", &a) == 0 && a.domain == 0 && a.bus == 0xc3 &&
          a.dev == 0x1f && a.fn == 7); /* CUDA's spelling */
    pci_addr_format(&a, buf);
    CHECK_STR(buf, "0000:c3:1f.7");
    CHECK(pci_addr_parse("0000:03:00", &a) < 0);
    CHECK(pci_addr_parse("0000:03:20.0", &a) < 0); /* device is 5 bits */
    CHECK(pci_addr_parse("0000:03:00.8", &a) < 0);
    CHECK(pci_addr_parse("", &a) < 0 && pci_addr_parse(NULL, &a) < 0);
    pci_addr_from_hsa(0x0c31, 1, &a); /* bus 0x0c, device 6, function 1 */
    CHECK(a.domain == 1 && a.bus == 0x0c && a.dev == 6 && a.fn == 1);

    /* rocm-smi (rocm_smi.h of ROCm 6.2+): partition id in [31:28] */
    unsigned part = 99;
    pci_addr_from_rsmi(0x0000000230000c00ull, &a, &part);
    CHECK(a.domain == 2 && a.bus == 0x0c && a.dev == 0 && a.fn == 0 && part == 3);
    CHECK(pci_addr_parse("0002:0c:00.0", &b) == 0 && pci_addr_match(&a, &b) == PCI_MATCH_EXACT);
    /* ... or in the function bits, where the OS has function 0 */
    pci_addr_from_rsmi(0x0000000000000c02ull, &a, &part);
    CHECK(part == 0 && a.fn == 2);
    CHECK(pci_addr_parse("0000:0c:00.0", &b) == 0 && pci_addr_match(&a, &b) == PCI_MATCH_PARTITION);
    /* a real second function is another device, not a partition */
    CHECK(pci_addr_parse("0000:0c:00.1", &b) == 0 && pci_addr_match(&a, &b) == PCI_MATCH_NONE);
    CHECK(pci_addr_parse("0000:0d:00.0", &b) == 0 && pci_addr_match(&a, &b) == PCI_MATCH_NONE);
}

/* vram_tel.c picks the rocm-smi device at the HIP device's PCI address; device i
 * of the fake reports (i + 1) MiB used. -1 when none was picked. */
static int rsmi_pick(const char *ids, const char *pci)
{
    setenv("FAKE_RSMI_BDFIDS", ids, 1);
    struct gpu_backend b = {.name = "hip"};
    struct gpu_props p;
    memset(&p, 0, sizeof(p));
    snprintf(p.pci, sizeof(p.pci), "%s", pci);
    struct vram_tel t;
    vram_tel_open(&t, &b, &p);
    uint64_t used = 0;
    int picked =
        t.src == VRAM_SRC_RSMI && vram_tel_used(&t, &used) == 0 ? (int)(used >> 20) - 1 : -1;
    vram_tel_close(&t);
    return picked;
}

static void rsmi_partitions(const char *dir)
{
    char lib[512];
    snprintf(lib, sizeof(lib), "%s/fake/librocm_smi64.so", dir);
    setenv("ROCM_VLA_DOCTOR_RSMI_LIB", lib, 1);
    /* plain BDFIDs, another order than HIP's */
    CHECK(rsmi_pick("0x0e00,0x0300", "0000:03:00.0") == 1);
    CHECK(rsmi_pick("0x0e00,0x0300", "0000:0e:00.0") == 0);
    /* domain in [63:32] */
    CHECK(rsmi_pick("0x0300,0x100000300", "0001:03:00.0") == 1);
    /* MI300 CPX: 4 partitions of 0000:c1:00.0 with the id in [31:28] (rocm_smi.h
     * of ROCm 6.2+); HIP names partition k as function k, sysfs as function 0 */
    const char *cpx = "0xc100,0x1000c100,0x2000c100,0x3000c100";
    CHECK(rsmi_pick(cpx, "0000:c1:00.0") == 0);
    CHECK(rsmi_pick(cpx, "0000:c1:00.2") == 2);
    CHECK(rsmi_pick(cpx, "0000:c1:00.3") == 3);
    /* ... or in the function bits */
    CHECK(rsmi_pick("0xc100,0xc101,0xc102", "0000:c1:00.1") == 1);
    /* reserved bits [27:16] set: still the same device */
    CHECK(rsmi_pick("0x0e00,0x0ab0300", "0000:03:00.0") == 1);
    /* nothing at that address: not the only device by default */
    CHECK(rsmi_pick("0x0e00,0x0300", "0000:44:00.0") == -1);
    unsetenv("ROCM_VLA_DOCTOR_RSMI_LIB");
}

int main(int argc, char **argv)
{
    (void)argc;
    addresses();

    /* the fake libraries sit next to this binary: <build>/tests/fake/ */
    char *self = xstrdup(argv[0]);
    char *dir = dirname(self);
    char lib[512], cache[] = "/tmp/rvd-pairing-cache-XXXXXX";
    snprintf(lib, sizeof(lib), "%s/fake/libamdhip64.so", dir);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "%s is missing: make builds it (FAKE_LIBS)\n", lib);
        CHECK(0);
        return test_report();
    }
    setenv("ROCM_VLA_DOCTOR_HIP_LIB", lib, 1);
    snprintf(lib, sizeof(lib), "%s/fake/libhsa-runtime64.so", dir);
    setenv("ROCM_VLA_DOCTOR_HSA_LIB", lib, 1);
    setenv("ROCM_VLA_DOCTOR_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    CHECK(mkdtemp(cache) != NULL);
    setenv("ROCM_VLA_DOCTOR_CACHE", cache, 1);
    snprintf(hiplog, sizeof(hiplog), "%s/hiprtc.log", cache);
    setenv("FAKE_HIPRTC_LOG", hiplog, 1);
    unsetenv("ROCM_VLA_DOCTOR_TARGETS");
    unsetenv("ROCM_VLA_DOCTOR_TARGET");
    const char *agents = "cpu,0000:0e:00.0=gfx1036,0000:03:00.0=gfx1100";
    rsmi_partitions(dir);

    /* the fixture itself: gpu.<j> in PCI order */
    struct factset fs = FACTSET_INIT;
    machine(&fs);
    CHECK_STR(S(&fs, "gpu.%d.pci", 0), "0000:03:00.0");
    CHECK_STR(S(&fs, "gpu.%d.gfx", 0), "gfx1100");
    CHECK_STR(S(&fs, "gpu.%d.gfx", 1), "gfx1036");
    factset_release(&fs);

    /* iGPU + dGPU, both visible: HIP and HSA list the iGPU first, sysfs the dGPU */
    run(&fs, "0000:0e:00.0,0000:03:00.0", agents, NULL, 1);
    CHECK(I(&fs, "runtime.device_count") == 2);
    CHECK_STR(S(&fs, "runtime.dev.%d.pci", 0), "0000:0e:00.0");
    CHECK_STR(S(&fs, "runtime.dev.%d.target", 0), "gfx1036");
    CHECK(I(&fs, "runtime.dev.%d.gpu", 0) == 1);
    CHECK_STR(S(&fs, "runtime.dev.%d.pci", 1), "0000:03:00.0");
    CHECK_STR(S(&fs, "runtime.dev.%d.target", 1), "gfx1100");
    CHECK(I(&fs, "runtime.dev.%d.gpu", 1) == 0);
    CHECK(list_n(&fs, "runtime.kfd_mismatch") == 0);
    CHECK(fact_get(&fs, "runtime.kfd_compared") && fact_get(&fs, "runtime.kfd_compared")->b);
    CHECK(list_n(&fs, "runtime.unpaired") == 0 && list_n(&fs, "runtime.not_visible") == 0);
    /* the kernels probe compiles for HIP device 0, the iGPU here, and says which */
    CHECK(list_has(&fs, "kernels.targets", "gfx1036") && list_n(&fs, "kernels.targets") == 1);
    CHECK_STR(S(&fs, "kernels.device_pci"), "0000:0e:00.0");
    CHECK(fact_get(&fs, "kernels.ok") && fact_get(&fs, "kernels.ok")->b);
    CHECK(compiled_only_for("gfx1036"));
    factset_release(&fs);

    /* HIP_VISIBLE_DEVICES=1: HIP device 0 is the dGPU, HSA still lists the iGPU first */
    run(&fs, "0000:0e:00.0,0000:03:00.0", agents, "1", 1);
    CHECK(I(&fs, "runtime.device_count") == 1);
    CHECK_STR(S(&fs, "runtime.dev.%d.pci", 0), "0000:03:00.0");
    CHECK_STR(S(&fs, "runtime.dev.%d.arch", 0), "gfx1100");
    CHECK_STR(S(&fs, "runtime.dev.%d.target", 0), "gfx1100");
    CHECK(I(&fs, "runtime.dev.%d.gpu", 0) == 0);
    CHECK(list_n(&fs, "runtime.kfd_mismatch") == 0);
    CHECK(list_n(&fs, "runtime.unpaired") == 0);
    CHECK(list_n(&fs, "runtime.not_visible") == 1 &&
          list_has(&fs, "runtime.not_visible", "gpu.1 (0000:0e:00.0, gfx1036)") &&
          list_has(&fs, "runtime.not_visible", "HIP_VISIBLE_DEVICES=1"));
    CHECK(list_has(&fs, "kernels.targets", "gfx1100") && list_n(&fs, "kernels.targets") == 1);
    CHECK_STR(S(&fs, "kernels.device_pci"), "0000:03:00.0");
    CHECK(compiled_only_for("gfx1100"));
    factset_release(&fs);

    /* a HIP device with no HSA agent at its address: no ISA, never the neighbour's */
    run(&fs, "0000:0e:00.0,0000:03:00.0", "cpu,0000:0e:00.0=gfx1036", "1", 1);
    CHECK(UNKNOWN_SAYS(&fs, "no HSA GPU agent at PCI 0000:03:00.0", "runtime.dev.%d.target", 0));
    CHECK(UNKNOWN_SAYS(&fs, "agents at: 0000:0e:00.0", "runtime.dev.%d.target", 0));
    CHECK(I(&fs, "runtime.dev.%d.gpu", 0) == 0);
    CHECK(list_has(&fs, "runtime.kfd_mismatch", "KFD says gfx1100, HIP says no ISA name"));
    CHECK(fact_get(&fs, "kernels.available") && !fact_get(&fs, "kernels.available")->b);
    const char *why = S(&fs, "kernels.why");
    CHECK(why && strstr(why, "0000:03:00.0") && strstr(why, "not known"));
    CHECK(fact_get(&fs, "kernels.targets") == NULL);
    factset_release(&fs);

    /* PyTorch's wheel: rocm.torch_lib_set names torch/lib, whose copy of the
     * (fake) libamdhip64 the GPU child must load instead of the system's */
    {
        char wheel[600], copy[700], cmd[1600];
        snprintf(wheel, sizeof(wheel), "%s/torch/lib", cache);
        snprintf(copy, sizeof(copy), "%s/libamdhip64.so", wheel);
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s/fake/libamdhip64.so' '%s'", wheel, dir,
                 copy);
        CHECK(system(cmd) == 0);
        char *sys_hip = xstrdup(getenv("ROCM_VLA_DOCTOR_HIP_LIB"));
        unsetenv("ROCM_VLA_DOCTOR_HIP_LIB");
        struct factset pick = FACTSET_INIT;
        char set[700];
        snprintf(set, sizeof(set), "wheel:%s", wheel);
        fact_set_str(&pick, "rocm.torch_lib_set", set, "test");
        probes_pick_hip_dir(&pick);
        factset_release(&pick);
        run(&fs, "0000:03:00.0", agents, NULL, 0);
        CHECK_STR(S(&fs, "runtime.hip.lib"), copy);
        CHECK_STR(S(&fs, "runtime.lib_set"), set);
        CHECK(I(&fs, "runtime.device_count") == 1);
        factset_release(&fs);
        /* torch/lib without libamdhip64: the loader's search, said as system */
        remove(copy);
        setenv("ROCM_VLA_DOCTOR_HIP_LIB", sys_hip, 1);
        run(&fs, "0000:03:00.0", agents, NULL, 0);
        snprintf(set, sizeof(set), "system:%s", sys_hip);
        CHECK_STR(S(&fs, "runtime.lib_set"), set);
        factset_release(&fs);
        /* rocm.torch_lib_set says system: no directory is used */
        fact_set_str(&pick, "rocm.torch_lib_set", "system:/opt/rocm-6.2.0/lib", "test");
        probes_pick_hip_dir(&pick);
        factset_release(&pick);
        CHECK(gpu_backend_hip_dir() == NULL);
        run(&fs, "0000:03:00.0", agents, NULL, 0);
        CHECK_STR(S(&fs, "runtime.lib_set"), set);
        factset_release(&fs);
        free(sys_hip);
        rmdir(wheel);
    }

    /* a HIP device that sysfs does not have: reported, not paired */
    run(&fs, "0000:0e:00.0,0000:03:00.0,0000:44:00.0",
        "cpu,0000:0e:00.0=gfx1036,0000:03:00.0=gfx1100,0000:44:00.0=gfx90a", NULL, 0);
    CHECK(I(&fs, "runtime.device_count") == 3);
    CHECK_STR(S(&fs, "runtime.dev.%d.target", 2), "gfx90a");
    CHECK(UNKNOWN_SAYS(&fs, "no AMD GPU at PCI 0000:44:00.0", "runtime.dev.%d.gpu", 2));
    CHECK(list_n(&fs, "runtime.unpaired") == 1 &&
          list_has(&fs, "runtime.unpaired", "HIP device 2 (Fake AMD GPU at 0000:44:00.0)"));
    CHECK(list_n(&fs, "runtime.kfd_mismatch") == 0);
    factset_release(&fs);

    /* partitions: HIP prints the partition id as the function (from HSA's BDFID) */
    run(&fs, "0000:03:00.0,0000:03:00.1",
        "cpu,0000:0e:00.0=gfx1036,0000:03:00.0=gfx1100,0000:03:00.1=gfx1100", NULL, 0);
    CHECK(I(&fs, "runtime.dev.%d.gpu", 0) == 0 && I(&fs, "runtime.dev.%d.gpu", 1) == 0);
    CHECK_STR(S(&fs, "runtime.dev.%d.target", 1), "gfx1100");
    CHECK(list_n(&fs, "runtime.unpaired") == 0 && list_n(&fs, "runtime.kfd_mismatch") == 0);
    CHECK(list_has(&fs, "runtime.not_visible", "gpu.1 (0000:0e:00.0, gfx1036)"));
    factset_release(&fs);

    tree_remove();
    char *cmd = xasprintf("rm -rf '%s'", cache);
    CHECK(system(cmd) == 0);
    free(cmd);
    free(self);
    return test_report();
}
