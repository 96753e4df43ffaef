/* test_tel_rsmi.c - the sampler's rocm-smi-lib source (tel_src_rsmi.c) with the
 * fake librocm_smi64 (tests/fake/fake_rsmi.c, next to this binary) on the
 * rx7900xtx-desktop fixture, whose GPU sits at 0000:86:00.0: rocm-smi's
 * values win with src "rocm-smi" when its device has that PCI address; a
 * device at another address is not used; failing calls leave the sysfs
 * values and sources (never 0); without the library, or when tel_open is not
 * allowed vendor libraries, everything is sysfs. */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/rootfs.h"
#include "../../src/core/util.h"
#include "../../src/telemetry/telemetry.h"
#include "test.h"

#define GPU_BDF "0000:86:00.0"

static int near(double a, double b)
{
    return fabs(a - b) < 1e-6;
}

/* one sample of the fixture's GPU; *status gets tel_rsmi_status */
static void sample(int vendor_libs, struct tel_sample *s, char *status, size_t n)
{
    struct strlist bdfs = STRLIST_INIT;
    strlist_add(&bdfs, GPU_BDF);
    struct tel *t = tel_open(&bdfs, vendor_libs, 0);
    snprintf(status, n, "%s", tel_rsmi_status(t));
    tel_sample(t, s);
    tel_close(t);
    strlist_release(&bdfs);
}

/* every value as sysfs gives it in the fixture, with the sysfs file as src */
static void check_sysfs(const struct tel_gpu *g)
{
    for (int k = 0; k < TEL_NKEYS; k++)
        CHECK(!g->src[k] || strcmp(g->src[k], "rocm-smi") != 0);
    CHECK_STR(g->src[TEL_SCLK_MHZ], "pp_dpm_sclk");
    CHECK(g->v[TEL_SCLK_MHZ] == 31 && g->v[TEL_SCLK_MAX_MHZ] == 2219);
    CHECK_STR(g->src[TEL_MCLK_MHZ], "pp_dpm_mclk");
    CHECK(g->v[TEL_MCLK_MHZ] == 1249);
    CHECK_STR(g->src[TEL_POWER_W], "hwmon");
    CHECK(near(g->v[TEL_POWER_W], 68) && near(g->v[TEL_POWER_CAP_W], 290));
    CHECK_STR(g->src[TEL_TEMP_EDGE_C], "hwmon");
    CHECK(near(g->v[TEL_TEMP_EDGE_C], 53) && near(g->v[TEL_TEMP_JUNCTION_LIMIT_C], 110));
    CHECK_STR(g->src[TEL_BUSY_PCT], "gpu_busy_percent");
    CHECK(g->v[TEL_BUSY_PCT] == 3);
    CHECK_STR(g->src[TEL_VRAM_USED_B], "mem_info_vram_used");
    CHECK(g->v[TEL_VRAM_USED_B] == 641728512.0);
    /* not in the fixture: unknown with the file named, never 0 */
    CHECK(!g->src[TEL_GTT_USED_B] && strstr(g->why[TEL_GTT_USED_B], "mem_info_gtt_used"));
}

int main(int argc, char **argv)
{
    (void)argc;
    char *self = xstrdup(argv[0]);
    char lib[512];
    snprintf(lib, sizeof(lib), "%s/fake/librocm_smi64.so", dirname(self));
    free(self);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "%s is missing: make builds it (FAKE_LIBS)\n", lib);
        CHECK(0);
        return test_report();
    }
    CHECK(rootfs_init("tests/fixtures/rx7900xtx-desktop/root") == 0);
    setenv("ROCM_VLA_DOCTOR_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("ROCM_VLA_DOCTOR_RSMI_LIB", lib, 1);
    unsetenv("FAKE_RSMI_FAIL");
    struct tel_sample s;
    char st[640];

    /* the device at the fixture's address: rocm-smi's values */
    setenv("FAKE_RSMI_BDFIDS", "0x8600", 1);
    sample(1, &s, st, sizeof(st));
    CHECK(strstr(st, "loaded") && strstr(st, "1 device(s)"));
    const struct tel_gpu *g = &s.gpus[0];
    CHECK(s.ngpu == 1);
    static const enum tel_key from_rsmi[] = {
        TEL_SCLK_MHZ,     TEL_SCLK_MIN_MHZ,      TEL_SCLK_MAX_MHZ,    TEL_MCLK_MHZ,
        TEL_MCLK_MIN_MHZ, TEL_MCLK_MAX_MHZ,      TEL_POWER_W,         TEL_POWER_CAP_W,
        TEL_TEMP_EDGE_C,  TEL_TEMP_EDGE_LIMIT_C, TEL_TEMP_JUNCTION_C, TEL_TEMP_JUNCTION_LIMIT_C,
        TEL_TEMP_MEM_C,   TEL_TEMP_MEM_LIMIT_C,  TEL_BUSY_PCT,        TEL_FAN_RPM,
        TEL_VRAM_USED_B,  TEL_VRAM_TOTAL_B,      TEL_GTT_USED_B,      TEL_GTT_TOTAL_B};
    for (size_t i = 0; i < ARRAY_SIZE(from_rsmi); i++)
        CHECK_STR(g->src[from_rsmi[i]], "rocm-smi");
    CHECK(g->v[TEL_SCLK_MHZ] == 1234 && g->v[TEL_SCLK_MIN_MHZ] == 500 &&
          g->v[TEL_SCLK_MAX_MHZ] == 2500);
    CHECK(g->v[TEL_MCLK_MHZ] == 1000 && g->v[TEL_MCLK_MIN_MHZ] == 96);
    CHECK(near(g->v[TEL_POWER_W], 123.5) && near(g->v[TEL_POWER_CAP_W], 250));
    CHECK(near(g->v[TEL_TEMP_EDGE_C], 41) && near(g->v[TEL_TEMP_EDGE_LIMIT_C], 91));
    CHECK(near(g->v[TEL_TEMP_JUNCTION_C], 52) && near(g->v[TEL_TEMP_JUNCTION_LIMIT_C], 102));
    CHECK(near(g->v[TEL_TEMP_MEM_C], 63) && near(g->v[TEL_TEMP_MEM_LIMIT_C], 113));
    CHECK(g->v[TEL_BUSY_PCT] == 77 && g->v[TEL_FAN_RPM] == 1357);
    CHECK(g->v[TEL_VRAM_USED_B] == 1048576.0 && g->v[TEL_VRAM_TOTAL_B] == 8589934592.0);
    CHECK(g->v[TEL_GTT_USED_B] == 3145728.0 && g->v[TEL_GTT_TOTAL_B] == 4294967296.0);
    /* what rocm-smi does not give stays sysfs' (the fixture's pp_dpm_pcie
     * marks every level, all one link: tel_src_sysfs.c takes it) */
    CHECK_STR(g->src[TEL_PCIE_GTS], "pp_dpm_pcie");
    CHECK_STR(g->src[TEL_FAN_PCT], "hwmon");
    tel_sample_release(&s);

    /* two devices, ours second: matched by address, not by index (device 1
     * reports 2 MiB used) */
    setenv("FAKE_RSMI_BDFIDS", "0x0300,0x8600", 1);
    sample(1, &s, st, sizeof(st));
    CHECK(strstr(st, "2 device(s)") != NULL);
    CHECK_STR(s.gpus[0].src[TEL_VRAM_USED_B], "rocm-smi");
    CHECK(s.gpus[0].v[TEL_VRAM_USED_B] == 2097152.0);
    tel_sample_release(&s);

    /* only a device at another address: not used */
    setenv("FAKE_RSMI_BDFIDS", "0x0300", 1);
    sample(1, &s, st, sizeof(st));
    CHECK(strstr(st, "1 device(s)") != NULL);
    check_sysfs(&s.gpus[0]);
    tel_sample_release(&s);

    /* the device matches but every call fails: sysfs, never 0 */
    setenv("FAKE_RSMI_BDFIDS", "0x8600", 1);
    setenv("FAKE_RSMI_FAIL", "1", 1);
    sample(1, &s, st, sizeof(st));
    CHECK(strstr(st, "1 device(s)") != NULL);
    check_sysfs(&s.gpus[0]);
    tel_sample_release(&s);
    unsetenv("FAKE_RSMI_FAIL");

    /* the library absent: sysfs, and the status says why */
    setenv("ROCM_VLA_DOCTOR_RSMI_LIB", "/nonexistent/librocm_smi64.so.7", 1);
    sample(1, &s, st, sizeof(st));
    CHECK(strncmp(st, "not loaded", 10) == 0);
    check_sysfs(&s.gpus[0]);
    tel_sample_release(&s);

    /* not allowed vendor libraries (--sysroot): never opened */
    setenv("ROCM_VLA_DOCTOR_RSMI_LIB", lib, 1);
    sample(0, &s, st, sizeof(st));
    CHECK_STR(st, "not asked");
    check_sysfs(&s.gpus[0]);
    tel_sample_release(&s);

    rootfs_release();
    return test_report();
}
