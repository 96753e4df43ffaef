/* test_peaks.c - peaks derived from the device (probes/peak_model.h,
 * probes/probe_peaks.c) with the built-in checks.yaml table: the vendors'
 * published figures reproduced from units x clocks (MI300X, MI250X GCD,
 * RX 7900 XTX, H100/H200 through the runtime's figures), the PCIe payload
 * model, DPM text, every input's fallback (pp_dpm -> KFD -> runtime -> the
 * paired sysfs GPU) and every "not derived" reason. */
#include <errno.h>
#include <math.h>

#include "../../probes/fact_catalog.h"
#include "../../probes/peak_model.h"
#include "../../probes/probe.h"
#include "../../src/gpu/gpu_probe.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdlib.h>

int probe_peaks_run(struct probe_ctx *ctx);

static double F(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    return f && f->type == FACT_FLOAT ? f->f : f && f->type == FACT_INT ? (double)f->i : -1;
}

static int unknown_says(const struct factset *fs, const char *name, const char *needle)
{
    const struct fact *f = fact_get(fs, name);
    if (f && f->type == FACT_UNKNOWN && f->reason && strstr(f->reason, needle))
        return 1;
    fprintf(stderr, "%s: want unknown with '%s', got %s\n", name, needle,
            !f                        ? "absent"
            : f->type == FACT_UNKNOWN ? (f->reason ? f->reason : "unknown")
                                      : "a value");
    return 0;
}

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static void test_model(const struct peak_table *t)
{
    /* PCIe: Gen4 x16 31.5 GB/s encoded, x 256/280 payload; Gen1 8b/10b */
    CHECK(NEAR(peak_pcie_encoded_gbs(16, 16), 31.5077, 1e-3));
    CHECK(NEAR(peak_pcie_payload_gbs(16, 16), 28.8070, 1e-3));
    CHECK(NEAR(peak_pcie_encoded_gbs(2.5, 1), 0.25, 1e-9));
    CHECK(NEAR(peak_pcie_payload_gbs(32, 16), 57.614, 1e-3));
    CHECK(peak_pcie_payload_gbs(0, 16) == 0 && peak_pcie_payload_gbs(16, 0) == 0);
    /* every generation's line code at x16 (PCIe base spec): 8b/10b for Gen1
     * and Gen2, 128b/130b for Gen3-5, and Gen6's FLIT mode (256-byte flits
     * of which 242 carry TLP and DLLP bytes; the rest is CRC and FEC) */
    CHECK(NEAR(peak_pcie_encoded_gbs(2.5, 16), 4.0, 1e-9));
    CHECK(NEAR(peak_pcie_encoded_gbs(5, 16), 8.0, 1e-9));
    CHECK(NEAR(peak_pcie_encoded_gbs(8, 16), 8.0 * 16 * 128 / 130 / 8, 1e-9));
    CHECK(NEAR(peak_pcie_encoded_gbs(32, 16), 32.0 * 16 * 128 / 130 / 8, 1e-9));
    CHECK(NEAR(peak_pcie_encoded_gbs(64, 16), 64.0 * 16 * 242 / 256 / 8, 1e-9));

    double mhz;
    CHECK(peak_dpm_max_mhz("0: 500Mhz\n1: 1800Mhz\n2: 2100Mhz *\n", &mhz) == 0 && mhz == 2100);
    CHECK(peak_dpm_max_mhz("0: 500Mhz\n1: 0Mhz *\n2: 2219Mhz\n", &mhz) == 0 && mhz == 2219);
    CHECK(peak_dpm_max_mhz("garbage\n", &mhz) == -EINVAL);
    CHECK(peak_dpm_max_mhz("", &mhz) == -EINVAL);

    /* MI300X: AMD's 1307.4 TFLOPS fp16, 163.4 fp32, 5.3 TB/s */
    struct factset fs = FACTSET_INIT;
    struct peak_inputs mi300 = {"gfx942:sramecc+:xnack-",
                                304,
                                2100,
                                1300,
                                8192,
                                "KFD",
                                "pp_dpm_sclk",
                                "pp_dpm_mclk",
                                "KFD"};
    peak_derive(&fs, "gpu.0", t, &mi300);
    CHECK(NEAR(F(&fs, "gpu.0.peak.fp16_tflops"), 1307.4, 0.1));
    CHECK(NEAR(F(&fs, "gpu.0.peak.bf16_tflops"), 1307.4, 0.1));
    CHECK(NEAR(F(&fs, "gpu.0.peak.fp32_tflops"), 163.4, 0.1));
    CHECK(NEAR(F(&fs, "gpu.0.peak.mem_gbs"), 5324.8, 0.1));
    const struct fact *why = fact_get(&fs, "gpu.0.peak.why");
    CHECK(why && why->type == FACT_STR && !*why->s);
    /* one MI250X GCD: 110 CUs x 1700 MHz = 191.5 of the 383 TFLOPS; 1.6 TB/s */
    struct peak_inputs gcd = {"gfx90a", 110, 1700, 1600, 4096, "KFD", "KFD", "KFD", "KFD"};
    peak_derive(&fs, "gpu.1", t, &gcd);
    CHECK(NEAR(F(&fs, "gpu.1.peak.fp16_tflops"), 383.0 / 2, 0.1));
    CHECK(NEAR(F(&fs, "gpu.1.peak.mem_gbs"), 1638.4, 0.1));
    /* RX 7900 XTX: 96 CUs x 2500 MHz: 122.9 TFLOPS; 1249 MHz x 384 bits x 16: 959 GB/s */
    struct peak_inputs xtx = {"gfx1100", 96, 2500, 1249, 384, "KFD", "KFD", "KFD", "KFD"};
    peak_derive(&fs, "gpu.2", t, &xtx);
    CHECK(NEAR(F(&fs, "gpu.2.peak.fp16_tflops"), 122.88, 0.01));
    CHECK(NEAR(F(&fs, "gpu.2.peak.mem_gbs"), 959.2, 0.1));
    /* RDNA2 has no bf16 rate: that peak alone is unknown, with the reason, and
     * nothing is missing (peak.why empty: gpu.derived_peak passes) */
    struct peak_inputs n21 = {"gfx1030", 80, 2250, 1000, 256, "KFD", "KFD", "KFD", "KFD"};
    peak_derive(&fs, "gpu.3", t, &n21);
    CHECK(NEAR(F(&fs, "gpu.3.peak.fp16_tflops"), 46.08, 0.01));
    CHECK(NEAR(F(&fs, "gpu.3.peak.mem_gbs"), 512, 0.01));
    CHECK(unknown_says(&fs, "gpu.3.peak.bf16_tflops", "no such rate"));
    why = fact_get(&fs, "gpu.3.peak.why");
    CHECK(why && why->type == FACT_STR && strcmp(why->s, "") == 0);
    /* a processor with no row; no architecture; a missing clock and width */
    struct peak_inputs polaris = {"gfx803", 36, 1340, 2000, 256, "KFD", "KFD", "KFD", "KFD"};
    peak_derive(&fs, "gpu.4", t, &polaris);
    CHECK(unknown_says(&fs, "gpu.4.peak.fp16_tflops", "not in checks.yaml's peaks table"));
    CHECK(unknown_says(&fs, "gpu.4.peak.mem_gbs", "not in the peaks table"));
    why = fact_get(&fs, "gpu.4.peak.why");
    CHECK(why && why->type == FACT_STR &&
          strcmp(why->s, "gfx803 is not in checks.yaml's peaks "
                         "table") == 0);
    struct peak_inputs none = {NULL, 36, 1340, 2000, 256, "KFD", "KFD", "KFD", "KFD"};
    peak_derive(&fs, "gpu.5", t, &none);
    CHECK(unknown_says(&fs, "gpu.5.peak.fp32_tflops", "the architecture is not known"));
    struct peak_inputs noclk = {"gfx942", 304, 0, 1300, 0, "KFD", "none", "KFD", "none"};
    peak_derive(&fs, "gpu.6", t, &noclk);
    CHECK(unknown_says(&fs, "gpu.6.peak.fp16_tflops", "maximum shader clock is not known"));
    CHECK(unknown_says(&fs, "gpu.6.peak.mem_gbs", "bus width is not known"));
    CHECK(unknown_says(&fs, "gpu.6.peak.basis", "not derived"));
    struct peak_inputs nocu = {"gfx942", 0, 2100, 0, 8192, "none", "KFD", "none", "KFD"};
    peak_derive(&fs, "gpu.7", t, &nocu);
    CHECK(unknown_says(&fs, "gpu.7.peak.bf16_tflops", "compute-unit count is not known"));
    CHECK(unknown_says(&fs, "gpu.7.peak.mem_gbs", "memory clock is not known"));
    /* CDNA4 has no memory figure: said, not guessed */
    struct peak_inputs mi355 = {"gfx950", 256, 2400, 2000, 8192, "KFD", "KFD", "KFD", "KFD"};
    peak_derive(&fs, "gpu.8", t, &mi355);
    CHECK(NEAR(F(&fs, "gpu.8.peak.fp16_tflops"), 2516.6, 0.1));
    CHECK(unknown_says(&fs, "gpu.8.peak.mem_gbs", "no memory transfers-per-clock figure"));
    factset_release(&fs);
}

/* the probe on a sysroot: pp_dpm files, KFD fallbacks, runtime devices */
static void test_probe(const struct checkset *cs)
{
    tree_fresh("peaks");
    put("/sys/bus/pci/devices/0000:05:00.0/pp_dpm_sclk", "0: 500Mhz\n1: 2100Mhz *\n");
    put("/sys/bus/pci/devices/0000:05:00.0/pp_dpm_mclk", "0: 900Mhz\n3: 1300Mhz *\n");
    put("/sys/class/kfd/kfd/topology/nodes/2/mem_banks/0/properties",
        "heap_type 1\nsize_in_bytes 1\nwidth 8192\nmem_clk_max 1300\n");
    /* gpu 1: no pp_dpm files: the KFD node's clocks */
    put("/sys/class/kfd/kfd/topology/nodes/3/properties", "max_engine_clk_fcompute 1700\n");
    put("/sys/class/kfd/kfd/topology/nodes/3/mem_banks/0/properties",
        "heap_type 1\nwidth 2048\nmem_clk_max 1600\n");
    put("/sys/class/kfd/kfd/topology/nodes/3/mem_banks/1/properties", "heap_type 1\nwidth 4096\n"
                                                                      "mem_clk_max 1600\n");
    CHECK(rootfs_init(root) == 0);
    struct factset fs = FACTSET_INIT;
    fact_set_int(&fs, "gpu.count", 3, "test");
    fact_set_str(&fs, "gpu.0.pci", "0000:05:00.0", "test");
    fact_set_int(&fs, "gpu.0.kfd_node", 2, "test");
    fact_set_str(&fs, "gpu.0.gfx", "gfx942", "test");
    fact_set_int(&fs, "gpu.0.cu_count", 304, "test");
    fact_set_float(&fs, "gpu.0.link.speed_gts", 32, "test");
    fact_set_int(&fs, "gpu.0.link.width", 16, "test");
    fact_set_str(&fs, "gpu.1.pci", "0000:06:00.0", "test");
    fact_set_int(&fs, "gpu.1.kfd_node", 3, "test");
    fact_set_str(&fs, "gpu.1.gfx", "gfx90a", "test");
    fact_set_int(&fs, "gpu.1.cu_count", 110, "test");
    /* gpu 2: nothing readable */
    fact_set_str(&fs, "gpu.2.gfx", "gfx1100", "test");
    fact_set_int(&fs, "gpu.2.cu_count", 96, "test");
    /* runtime device 0: an H200 as CUDA reports it (no sysfs GPU); device 1:
     * HIP without clocks, paired with gpu.0 */
    fact_set_int(&fs, "runtime.device_count", 2, "test");
    fact_set_str(&fs, "runtime.dev.0.target", "sm_90", "test");
    fact_set_int(&fs, "runtime.dev.0.cu_count", 132, "test");
    fact_set_int(&fs, "runtime.dev.0.clock_khz", 1980000, "test");
    fact_set_int(&fs, "runtime.dev.0.mem_clock_khz", 3201000, "test");
    fact_set_int(&fs, "runtime.dev.0.mem_bus_width", 6144, "test");
    fact_set_str(&fs, "runtime.dev.1.target", "gfx942", "test");
    fact_set_int(&fs, "runtime.dev.1.cu_count", 304, "test");
    fact_set_int(&fs, "runtime.dev.1.gpu", 0, "test");
    fact_set_unknown(&fs, "runtime.dev.1.clock_khz", "test", "not reported");

    struct probe_opts po = {.checks = cs};
    struct probe_ctx ctx = {&fs, LEVEL_STANDARD, &po, 0};
    CHECK(probe_peaks_run(&ctx) == 0);
    CHECK(F(&fs, "gpu.0.sclk_max_mhz") == 2100 && F(&fs, "gpu.0.mclk_max_mhz") == 1300);
    CHECK(F(&fs, "gpu.0.vram_width_bits") == 8192);
    CHECK(NEAR(F(&fs, "gpu.0.peak.fp16_tflops"), 1307.4, 0.1));
    CHECK(NEAR(F(&fs, "gpu.0.peak.mem_gbs"), 5324.8, 0.1));
    CHECK(NEAR(F(&fs, "gpu.0.peak.link_gbs"), 57.614, 1e-3));
    const struct fact *b = fact_get(&fs, "gpu.0.peak.basis");
    CHECK(b && b->type == FACT_STR && strstr(b->s, "2100 MHz (pp_dpm_sclk)"));
    /* KFD fallbacks, the widest bank */
    CHECK(F(&fs, "gpu.1.sclk_max_mhz") == 1700 && F(&fs, "gpu.1.mclk_max_mhz") == 1600);
    CHECK(F(&fs, "gpu.1.vram_width_bits") == 4096);
    CHECK(NEAR(F(&fs, "gpu.1.peak.fp16_tflops"), 191.49, 0.01));
    CHECK(unknown_says(&fs, "gpu.1.peak.link_gbs", "speed or width is not known"));
    /* nothing readable: unknown with the reasons, never 0 */
    CHECK(unknown_says(&fs, "gpu.2.sclk_max_mhz", "neither pp_dpm_sclk nor"));
    CHECK(unknown_says(&fs, "gpu.2.vram_width_bits", "no KFD memory bank"));
    CHECK(unknown_says(&fs, "gpu.2.peak.fp16_tflops", "maximum shader clock"));
    /* H200 from the runtime: 132 x 1980 MHz x 4096; 3201 MHz x 6144 bits x 2 */
    CHECK(NEAR(F(&fs, "runtime.dev.0.peak.fp16_tflops"), 1070.5, 0.1));
    CHECK(NEAR(F(&fs, "runtime.dev.0.peak.mem_gbs"), 4916.7, 0.1));
    /* the runtime's missing clocks come from the paired sysfs GPU */
    CHECK(NEAR(F(&fs, "runtime.dev.1.peak.fp16_tflops"), 1307.4, 0.1));
    CHECK(NEAR(F(&fs, "runtime.dev.1.peak.mem_gbs"), 5324.8, 0.1));
    b = fact_get(&fs, "runtime.dev.1.peak.basis");
    CHECK(b && b->type == FACT_STR && strstr(b->s, "2100 MHz (sysfs)"));
    factset_release(&fs);

    /* no checks passed (a unit caller): nothing is derived, and it says so */
    po.checks = NULL;
    fact_set_int(&fs, "gpu.count", 1, "test");
    fact_set_str(&fs, "gpu.0.gfx", "gfx942", "test");
    CHECK(probe_peaks_run(&ctx) == 0);
    CHECK(unknown_says(&fs, "gpu.0.peak.fp16_tflops", "not in checks.yaml's peaks table"));
    factset_release(&fs);
    rootfs_release();
    tree_remove();
}

/* a measuring probe's figure against the derived peak, and the check that
 * judges it: a fraction when there is a peak, the reason when there is none */
static void test_fraction(const struct checkset *cs)
{
    struct factset fs = FACTSET_INIT;
    struct probe_opts po = {0};
    struct probe_ctx ctx = {&fs, LEVEL_STANDARD, &po, 0};
    fact_set_float(&fs, "runtime.dev.0.peak.fp16_tflops", 1000, "test");
    fact_set_unknown(&fs, "runtime.dev.0.peak.bf16_tflops", "test", "not derived: no figure");
    gpu_probe_fraction(&ctx, "gpu.gemm_peak.fp16", 450, 0, "fp16_tflops");
    gpu_probe_fraction(&ctx, "gpu.gemm_peak.bf16", 450, 0, "bf16_tflops");
    gpu_probe_fraction(&ctx, "x.mem", 450, 3, "mem_gbs");
    CHECK(NEAR(F(&fs, "gpu.gemm_peak.fp16_fraction"), 0.45, 1e-12));
    CHECK(F(&fs, "gpu.gemm_peak.fp16_peak") == 1000);
    CHECK(unknown_says(&fs, "gpu.gemm_peak.bf16_fraction", "not derived: no figure"));
    CHECK(unknown_says(&fs, "gpu.gemm_peak.bf16_peak", "not derived: no figure"));
    CHECK(unknown_says(&fs, "x.mem_fraction", "did not describe this runtime device"));
    const struct fact *vs = fact_get(&fs, "gpu.gemm_peak.fp16_vs_peak");
    CHECK(vs && vs->type == FACT_STR &&
          strcmp(vs->s, "0.45 of the 1000 derived from the device") == 0);

    /* gpu.gemm_peak passes without a peak (fp16 beats fp32, spot check fine)
     * and names why there is no fraction */
    fact_set_bool(&fs, "gpu.gemm_peak.available", 1, "test");
    fact_set_str(&fs, "gpu.gemm_peak.error", "", "test");
    fact_set_str(&fs, "gpu.gemm_peak.blas", "rocBLAS", "test");
    fact_set_float(&fs, "gpu.gemm_peak.spot_ratio", 0.1, "test");
    fact_set_float(&fs, "gpu.gemm_peak.fp16_tflops", 450, "test");
    fact_set_float(&fs, "gpu.gemm_peak.bf16_tflops", 450, "test");
    fact_set_float(&fs, "gpu.gemm_peak.fp32_tflops", 100, "test");
    fact_set_unknown(&fs, "runtime.dev.0.peak.fp16_tflops", "test",
                     "not derived: sm_75 has no row");
    gpu_probe_fraction(&ctx, "gpu.gemm_peak.fp16", 450, 0, "fp16_tflops");
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, "gpu.gemm_peak");
    struct run_filter flt = {LEVEL_STANDARD, &only};
    struct results r;
    CHECK(checks_run(cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1 && r.v[0].st == ST_PASS);
    CHECK(r.n == 1 && strstr(r.v[0].summary, "sm_75 has no row"));
    if (r.n == 1)
        fprintf(stderr, "pass summary: %s\n", r.v[0].summary);
    results_release(&r);
    /* with a peak: 0.45 passes, 0.2 warns */
    fact_set_float(&fs, "gpu.gemm_peak.fp16_fraction", 0.2, "test");
    CHECK(checks_run(cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1 && r.v[0].st == ST_WARN && strstr(r.v[0].summary, "derived from the device"));
    results_release(&r);
    strlist_release(&only);
    factset_release(&fs);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    struct checkset cs;
    /* RVD_TEST_CHECKS: a mutant of checks.yaml (make mutation) */
    CHECK(checks_load_default(&cs, getenv("RVD_TEST_CHECKS")) == 0);
    test_model(&cs.peaks);
    test_probe(&cs);
    test_fraction(&cs);
    checks_release(&cs);
    return test_report();
}
