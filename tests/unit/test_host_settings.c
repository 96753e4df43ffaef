/* test_host_settings.c - the parsers and probes of the host section of
 * issue 10: AER files, firmware file names, the host settings probe
 * (NUMA balancing, memlock, THP, governor, pci=realloc), the torch wheel's
 * tags and the Python environment, on small sysroot trees. */
#include "../../probes/gpu_pci.h"
#include "../../probes/probe_python.h"
#include "../../probes/tuning.h"
#include "sysroot_tree.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int probe_tuning_run(struct probe_ctx *ctx);

static struct factset fs = FACTSET_INIT;
static struct probe_opts opts = {0};
static struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};

static void use_root(void)
{
    if (rootfs_init(root))
        exit(2);
}

static const struct fact *get(const char *name)
{
    return fact_get(&fs, name);
}

static int fbool(const char *name)
{
    const struct fact *f = get(name);
    return !f ? -2 : f->type == FACT_UNKNOWN ? -1 : f->type == FACT_BOOL ? f->b : -2;
}

static int64_t fint(const char *name)
{
    const struct fact *f = get(name);
    return f && f->type == FACT_INT ? f->i : -999;
}

static const char *fstr(const char *name)
{
    const struct fact *f = get(name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

static int unknown(const char *name)
{
    const struct fact *f = get(name);
    return f && f->type == FACT_UNKNOWN;
}

static void test_aer_parse(void)
{
    const char *cor = "RxErr 0\nBadTLP 41\nBadDLLP 7\nRollover 0\nTimeout 0\nNonFatalErr 0\n"
                      "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 48\n";
    int64_t t = -1;
    struct strlist nz = STRLIST_INIT;
    CHECK(gp_aer_parse(cor, "TOTAL_ERR_COR", &t, &nz) == 0);
    CHECK(t == 48);
    CHECK(nz.n == 2 && strlist_has(&nz, "BadTLP 41") && strlist_has(&nz, "BadDLLP 7"));
    strlist_release(&nz);
    /* the wrong total name, garbage, a negative count, trailing words */
    CHECK(gp_aer_parse(cor, "TOTAL_ERR_FATAL", &t, NULL) == -EINVAL);
    CHECK(gp_aer_parse("", "TOTAL_ERR_COR", &t, NULL) == -EINVAL);
    CHECK(gp_aer_parse("TOTAL_ERR_COR -1\n", "TOTAL_ERR_COR", &t, NULL) == -EINVAL);
    CHECK(gp_aer_parse("TOTAL_ERR_COR 1 2\n", "TOTAL_ERR_COR", &t, NULL) == -EINVAL);
    CHECK(gp_aer_parse("TOTAL_ERR_COR 0", "TOTAL_ERR_COR", &t, NULL) == 0 && t == 0);
}

static void test_fw_name(void)
{
    char n[48];
    CHECK(gp_fw_name("mec_fw_version", n, sizeof(n)) == 0);
    CHECK_STR(n, "mec");
    CHECK(gp_fw_name("rlc_srlc_fw_version", n, sizeof(n)) == 0);
    CHECK_STR(n, "rlc_srlc");
    CHECK(gp_fw_name("_fw_version", n, sizeof(n)) == -EINVAL);
    CHECK(gp_fw_name("fw_version", n, sizeof(n)) == -EINVAL);
    CHECK(gp_fw_name("MEC_fw_version", n, sizeof(n)) == -EINVAL);
    CHECK(gp_fw_name("a.b_fw_version", n, sizeof(n)) == -EINVAL);
    CHECK(gp_fw_name("vbios_version", n, sizeof(n)) == -EINVAL);
}

static void test_tuning_parsers(void)
{
    char w[32];
    CHECK(tn_bracketed("always [madvise] never\n", w, sizeof(w)) == 0);
    CHECK_STR(w, "madvise");
    CHECK(tn_bracketed("[default] performance powersave powersupersave", w, sizeof(w)) == 0);
    CHECK_STR(w, "default");
    CHECK(tn_bracketed("always madvise never", w, sizeof(w)) == -EINVAL);
    CHECK(tn_bracketed("[] x", w, sizeof(w)) == -EINVAL);
    CHECK(tn_bracketed("[unterminated", w, sizeof(w)) == -EINVAL);

    int64_t b = 0;
    CHECK(tn_memlock_parse("memlock_soft unlimited\nmemlock_hard unlimited\n", &b) == 0 && b == -1);
    CHECK(tn_memlock_parse("memlock_soft 65536\nmemlock_hard 65536\n", &b) == 0 && b == 65536);
    CHECK(tn_memlock_parse("memlock_hard 1\nmemlock_soft 8388608\n", &b) == 0 && b == 8388608);
    CHECK(tn_memlock_parse("memlock_soft -5\n", &b) == -EINVAL);
    CHECK(tn_memlock_parse("memlock_soft 12abc\n", &b) == -EINVAL);
    CHECK(tn_memlock_parse("memlock_soft unlimitedX\n", &b) == -EINVAL);
    CHECK(tn_memlock_parse("xmemlock_soft 1\n", &b) == -EINVAL);
    CHECK(tn_memlock_parse("", &b) == -EINVAL);

    CHECK(tn_cmdline_pci_realloc("ro quiet pci=realloc") == 1);
    CHECK(tn_cmdline_pci_realloc("pci=noaer,realloc=on splash") == 1);
    CHECK(tn_cmdline_pci_realloc("pci=realloc pci=realloc=off") == 0);
    CHECK(tn_cmdline_pci_realloc("pci=nocrs ro") == 0);
    CHECK(tn_cmdline_pci_realloc("ro -- pci=realloc") == 0);
    CHECK(tn_cmdline_pci_realloc("xpci=realloc") == 0);
    CHECK(tn_cmdline_pci_realloc("") == 0);

    CHECK(tn_powersave_pins_min("acpi-cpufreq") == 1);
    CHECK(tn_powersave_pins_min("amd-pstate") == 1);
    CHECK(tn_powersave_pins_min("intel_pstate") == 0);
    CHECK(tn_powersave_pins_min("amd-pstate-epp") == 0);
}

static void gov(int cpu, const char *g, const char *d)
{
    char *p = xasprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
    putf(p, "%s\n", g);
    free(p);
    p = xasprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver", cpu);
    putf(p, "%s\n", d);
    free(p);
}

static void test_tuning_probe(void)
{
    /* everything present */
    tree_fresh("tuning");
    factset_release(&fs);
    put("/proc/sys/kernel/numa_balancing", "1\n");
    put("/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
    put("/.snapshot/limits", "memlock_soft 65536\nmemlock_hard 65536\n");
    gov(0, "powersave", "acpi-cpufreq");
    gov(1, "performance", "acpi-cpufreq");
    gov(2, "powersave", "acpi-cpufreq");
    put("/sys/devices/system/cpu/cpufreq/boost", "1\n"); /* not a cpuN directory */
    put("/sys/devices/system/cpu/cpu3/online", "1\n");   /* a CPU without cpufreq */
    use_root();
    fact_set_str(&fs, "kernel.cmdline", "ro pci=realloc", "test");
    probe_tuning_run(&ctx);
    CHECK(fint("kernel.numa_balancing") == 1);
    CHECK_STR(fstr("kernel.thp_enabled"), "never");
    CHECK(fbool("host.memlock_unlimited") == 0);
    CHECK(fint("host.memlock_bytes") == 65536);
    CHECK_STR(fstr("host.memlock_limit"), "0.1 MiB");
    CHECK(fbool("cpu.governor_pins_min") == 1);
    const struct fact *g = get("cpu.governors");
    CHECK(g && g->type == FACT_LIST && g->list.n == 2 &&
          strlist_has(&g->list, "powersave (acpi-cpufreq)") &&
          strlist_has(&g->list, "performance (acpi-cpufreq)"));
    CHECK(fbool("kernel.pci_realloc") == 1);

    /* intel_pstate's powersave is dynamic; unlimited memlock */
    tree_fresh("tuning");
    factset_release(&fs);
    gov(0, "powersave", "intel_pstate");
    put("/.snapshot/limits", "memlock_soft unlimited\nmemlock_hard unlimited\n");
    use_root();
    fact_set_str(&fs, "kernel.cmdline", "ro quiet", "test");
    probe_tuning_run(&ctx);
    CHECK(fbool("cpu.governor_pins_min") == 0);
    CHECK(fbool("host.memlock_unlimited") == 1);
    CHECK(unknown("host.memlock_bytes"));
    CHECK_STR(fstr("host.memlock_limit"), "unlimited");
    CHECK(fbool("kernel.pci_realloc") == 0);

    /* nothing present: every fact unknown, never 0 */
    tree_fresh("tuning");
    factset_release(&fs);
    put("/proc/version", "Linux\n");
    use_root();
    probe_tuning_run(&ctx);
    CHECK(unknown("kernel.numa_balancing"));
    CHECK(unknown("kernel.thp_enabled"));
    CHECK(unknown("host.memlock_unlimited"));
    CHECK(unknown("cpu.governors"));
    CHECK(unknown("cpu.governor_pins_min"));
    CHECK(unknown("kernel.pci_realloc"));

    /* a THP file without a choice, a broken limits answer */
    tree_fresh("tuning");
    factset_release(&fs);
    put("/sys/kernel/mm/transparent_hugepage/enabled", "always madvise never\n");
    put("/.snapshot/limits", "garbage\n");
    use_root();
    probe_tuning_run(&ctx);
    CHECK(unknown("kernel.thp_enabled"));
    CHECK(unknown("host.memlock_unlimited"));
}

static void test_wheel(void)
{
    struct strlist t = STRLIST_INIT;
    CHECK(python_wheel_tags("Wheel-Version: 1.0\nGenerator: bdist_wheel (0.43.0)\n"
                            "Root-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n\n",
                            &t) == 0);
    CHECK(t.n == 1 && strcmp(t.v[0], "cp311-cp311-linux_x86_64") == 0);
    strlist_release(&t);
    CHECK(python_wheel_tags("Tag: cp311-cp311-manylinux_2_28_x86_64\r\n"
                            "Tag: cp311-cp311-manylinux_2_28_x86_64\n",
                            &t) == 0);
    CHECK(t.n == 1);
    strlist_release(&t);
    CHECK(python_wheel_tags("Tag: broken\nTag: a--b\nTag: -x-y\nTag: a-b-\nTag: a-b-c-d\n", &t) ==
          -EINVAL);
    CHECK(t.n == 0);
    CHECK(python_wheel_tags("", &t) == -EINVAL);

    CHECK(python_tag_matches("cp311-cp311-linux_x86_64", "3.11.4") == 1);
    CHECK(python_tag_matches("cp311-cp311-linux_x86_64", "3.12.3") == 0);
    CHECK(python_tag_matches("cp39-cp39-linux_x86_64", "3.9.18") == 1);
    CHECK(python_tag_matches("cp310-cp310-linux_x86_64", "3.1.0") == 0);
    CHECK(python_tag_matches("py3-none-any", "3.12.0") == 1);
    CHECK(python_tag_matches("py2-none-any", "3.12.0") == 0);
    CHECK(python_tag_matches("cp38-abi3-linux_x86_64", "3.12.1") == 1);
    CHECK(python_tag_matches("cp313-abi3-linux_x86_64", "3.12.1") == 0);
    CHECK(python_tag_matches("cp311.cp312-cp311-linux_x86_64", "3.12.0") == 1);
    CHECK(python_tag_matches("pp310-pypy310_pp73-linux_x86_64", "3.10.0") == 0);
    CHECK(python_tag_matches("cp311", "3.11.0") == -EINVAL);
    CHECK(python_tag_matches("cp311-cp311-linux_x86_64", "three") == -EINVAL);
}

static void env_case(const char *prefix, const char *base, int conda_meta, const char *want_kind,
                     const char *want_name)
{
    tree_fresh("pyenv");
    factset_release(&fs);
    if (conda_meta) {
        char *p = xasprintf("%s/conda-meta/history", prefix);
        put(p, "");
        free(p);
    }
    put("/site/torch/__init__.py", "");
    put("/site/torch-2.5.1+rocm6.2.dist-info/WHEEL", "Tag: cp312-cp312-linux_x86_64\n");
    use_root();
    python_env_facts(&fs, "test", prefix, base, "3.12.3", "/site/torch", NULL);
    if (want_kind) {
        CHECK_STR(fstr("python.env_kind"), want_kind);
        CHECK_STR(fstr("python.env_name"), want_name);
    } else {
        CHECK(unknown("python.env_kind"));
    }
    CHECK(fbool("python.wheel_tags_match") == 1);
    CHECK_STR(fstr("python.abi_tag"), "cp312");
}

static void test_python_env(void)
{
    env_case("/home/a/venv", "/usr", 0, "venv", "venv");
    env_case("/usr", "/usr", 0, "system", "/usr");
    env_case("/opt/conda/envs/vla", "/opt/conda/envs/vla", 1, "conda", "vla");
    env_case("/opt/conda", "/opt/conda", 1, "conda", "conda");
    env_case("/usr", NULL, 0, NULL, NULL);

    /* no dist-info: the tags are unknown with the reason, never a match */
    tree_fresh("pyenv");
    factset_release(&fs);
    put("/usr/lib/python3/dist-packages/torch/__init__.py", "");
    use_root();
    python_env_facts(&fs, "test", "/usr", "/usr", "3.11.2", "/usr/lib/python3/dist-packages/torch",
                     NULL);
    CHECK(unknown("python.wheel_tags_match"));
    CHECK(strstr(get("python.wheel_tags_match")->reason, "dist-info") != NULL);

    /* a cp311 wheel under 3.12 */
    tree_fresh("pyenv");
    factset_release(&fs);
    put("/s/torch-2.5.1.dist-info/WHEEL", "Tag: cp311-cp311-linux_x86_64\n");
    use_root();
    python_env_facts(&fs, "test", "/usr", "/usr", "3.12.3", "/s/torch", NULL);
    CHECK(fbool("python.wheel_tags_match") == 0);

    /* no interpreter: all unknown with the reason */
    factset_release(&fs);
    python_env_facts(&fs, "test", NULL, NULL, NULL, NULL, "no python3");
    CHECK(unknown("python.env_kind") && unknown("python.torch_wheel_tags"));
}

int main(void)
{
    test_aer_parse();
    test_fw_name();
    test_tuning_parsers();
    test_tuning_probe();
    test_wheel();
    test_python_env();
    factset_release(&fs);
    tree_remove();
    return test_report();
}
