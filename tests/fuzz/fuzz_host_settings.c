/* fuzz_host_settings.c - the readers of the host section of issue 10
 * through the probes that use them: AER files on the GPU and its root port,
 * pcie_replay_count, the ASPM link files and policy (probe_pcie_health.c),
 * fw_version files (probe_gpu_fw.c), the firmware package in dpkg's status
 * (probe_rocm.c), NUMA balancing, transparent hugepages, the governor and
 * the memlock query (probe_tuning.c), the torch wheel's WHEEL file
 * (probe_python_env.c) and the kernel log's event catalogue, on a copy of
 * the rx6900xt-degraded fixture (the first byte picks the file, see
 * sysroot_fuzz.h); the pure parsers also on the raw input. */
#include "../../probes/gpu_pci.h"
#include "../../probes/kernel_log.h"
#include "../../probes/probe_python.h"
#include "../../probes/tuning.h"
#include "sysroot_fuzz.h"

#define GPU "/sys/devices/pci0000:00/0000:00:01.1/0000:0a:00.0/0000:0b:00.0/0000:0c:00.0"

static const char *const targets[] = {
    GPU "/aer_dev_correctable",
    GPU "/aer_dev_nonfatal",
    GPU "/aer_dev_fatal",
    "/sys/devices/pci0000:00/0000:00:01.1/aer_dev_fatal",
    GPU "/pcie_replay_count",
    GPU "/link/l1_aspm",
    "/sys/module/pcie_aspm/parameters/policy",
    GPU "/fw_version/mec_fw_version",
    GPU "/fw_version/rlc_fw_version",
    "/var/lib/dpkg/status",
    "/proc/sys/kernel/numa_balancing",
    "/sys/kernel/mm/transparent_hugepage/enabled",
    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver",
    "/.snapshot/limits",
    "/home/grace/.local/lib/python3.12/site-packages/torch-2.5.1+rocm6.2.dist-info/WHEEL",
    "/.snapshot/python",
    "/.snapshot/dmesg",
    "/proc/cmdline",
    NULL};

static const char *const probes[] = {"env",    "kernel_log", "gpu",    "pcie", "kernel",
                                     "tuning", "rocm",       "python", NULL};

static const struct sysroot_fuzz sf = {"rx6900xt-degraded", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    int64_t v;
    char buf[32];
    struct strlist l = STRLIST_INIT;
    gp_aer_parse(text, "TOTAL_ERR_COR", &v, &l);
    strlist_release(&l);
    tn_memlock_parse(text, &v);
    tn_bracketed(text, buf, sizeof(buf));
    tn_cmdline_pci_realloc(text);
    if (python_wheel_tags(text, &l) == 0)
        for (size_t i = 0; i < l.n; i++)
            python_tag_matches(l.v[i], "3.12.3");
    strlist_release(&l);
    python_tag_matches(text, "3.11.4");
    double ts;
    char *p = NULL;
    kl_timestamp(text, &ts);
    if (kl_fault_process(text, &p) == 0)
        free(p);
    free(text);
    return sysroot_fuzz_one(&sf, data, size);
}
