/* test_gpu_metrics.c - the gpu_metrics parser on the real v1_3 capture of
 * an RX 6900 XT and on test data written at the offsets of the kernel's
 * structs (kgd_pp_interface.h; the sizes and offsets below were taken from
 * those struct definitions compiled with the kernel's natural alignment,
 * independently of the parser's layout tables), plus truncated, oversized,
 * padded and unknown revisions. */
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../src/core/util.h"
#include "../../src/telemetry/gpu_metrics.h"
#include "test.h"

#define REAL "tests/data/fixtures-real/amdgpu-sysfs-rs/rx6900xt/gpu_metrics"

static unsigned char buf[8192];

static void hdr(size_t size, unsigned f, unsigned c)
{
    memset(buf, 0, sizeof(buf));
    buf[0] = (unsigned char)(size & 0xff);
    buf[1] = (unsigned char)(size >> 8);
    buf[2] = (unsigned char)f;
    buf[3] = (unsigned char)c;
}

static void put(size_t off, unsigned bytes, uint64_t v)
{
    for (unsigned i = 0; i < bytes; i++)
        buf[off + i] = (unsigned char)(v >> (8 * i));
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

static void test_sizes(void)
{
    /* sizeof(struct gpu_metrics_vX_Y) with the kernel's layout */
    CHECK(gpu_metrics_struct_size(1, 0) == 80);
    CHECK(gpu_metrics_struct_size(1, 1) == 96);
    CHECK(gpu_metrics_struct_size(1, 2) == 104);
    CHECK(gpu_metrics_struct_size(1, 3) == 120);
    CHECK(gpu_metrics_struct_size(1, 4) == 288);
    CHECK(gpu_metrics_struct_size(1, 5) == 360);
    CHECK(gpu_metrics_struct_size(1, 6) == 1664);
    CHECK(gpu_metrics_struct_size(1, 7) == 2208);
    CHECK(gpu_metrics_struct_size(1, 8) == 3872);
    CHECK(gpu_metrics_struct_size(2, 0) == 120);
    CHECK(gpu_metrics_struct_size(2, 1) == 120);
    CHECK(gpu_metrics_struct_size(2, 2) == 128);
    CHECK(gpu_metrics_struct_size(2, 3) == 152);
    CHECK(gpu_metrics_struct_size(2, 4) == 168);
    CHECK(gpu_metrics_struct_size(3, 0) == 264);
    CHECK(gpu_metrics_struct_size(1, 9) == 0);
    CHECK(gpu_metrics_struct_size(4, 0) == 0);
}

static void test_real_capture(void)
{
    char *data;
    size_t len;
    char why[160] = "";
    struct gpu_metrics m;
    if (read_user_file(REAL, 1 << 20, &data, &len)) {
        /* the capture is part of the shared test data: its absence is a
         * failure, not a skip */
        CHECK(!"real gpu_metrics capture readable");
        return;
    }
    CHECK(len == 4096); /* a page: the struct plus zero padding */
    CHECK(gpu_metrics_parse(data, len, &m, why, sizeof(why)) == 0);
    CHECK(m.format == 1 && m.content == 3 && m.size == 120);
    CHECK(m.known[GM_TEMP_EDGE_C] && near(m.v[GM_TEMP_EDGE_C], 56));
    CHECK(m.known[GM_TEMP_HOTSPOT_C] && near(m.v[GM_TEMP_HOTSPOT_C], 59));
    CHECK(m.known[GM_TEMP_MEM_C] && near(m.v[GM_TEMP_MEM_C], 54));
    CHECK(near(m.v[GM_POWER_W], 36));     /* hwmon power1_average: 36000000 uW */
    CHECK(near(m.v[GM_GFXCLK_MHZ], 500)); /* pp_dpm_sclk: "0: 500Mhz *" */
    CHECK(near(m.v[GM_UCLK_MHZ], 1000));  /* pp_dpm_mclk: "3: 1000Mhz *" */
    CHECK(near(m.v[GM_PCIE_WIDTH], 16) && near(m.v[GM_PCIE_GTS], 16.0));
    CHECK(near(m.v[GM_GFX_BUSY_PCT], 3));
    CHECK(near(m.v[GM_ENERGY_J], 0x010df422 / 65536.0));
    CHECK(m.has_throttle && m.throttle == 0);
    CHECK(m.has_indep && m.indep_throttle == 0);
    /* the same bytes cut to the struct: still fine */
    CHECK(gpu_metrics_parse(data, 120, &m, why, sizeof(why)) == 0);
    /* truncated */
    CHECK(gpu_metrics_parse(data, 100, &m, why, sizeof(why)) == -1);
    CHECK_STR(why, "gpu_metrics 1.3: 100 bytes read, 120 expected");
    /* data after the struct is not padding */
    data[200] = 1;
    CHECK(gpu_metrics_parse(data, len, &m, why, sizeof(why)) == -1);
    CHECK(strstr(why, "data after the struct") != NULL);
    free(data);
}

/* Every fixture machine's gpu_metrics is the RX 6900 XT capture: sysfs
 * gives the whole page and the parser is tested on it, so a fixture copy that
 * lost the zeros at the struct's end (indep_throttle_status is 0, an earlier
 * generator stripped them as text padding) is a truncated struct the sampler
 * refuses, leaving the machine without throttle or energy telemetry. */
static char *real_bytes;
static size_t real_len, fixture_copies;

static int fixture_copy(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    if (type != FTW_F || strcmp(path + ftw->base, "gpu_metrics"))
        return 0;
    char *data, why[160] = "";
    size_t len;
    struct gpu_metrics m;
    fixture_copies++;
    if (read_user_file(path, 1 << 20, &data, &len)) {
        CHECK(!"fixture gpu_metrics readable");
        return 0;
    }
    int same = len == real_len && memcmp(data, real_bytes, len) == 0;
    if (!same)
        fprintf(stderr, "%s: %zu bytes, not the capture's %zu\n", path, len, real_len);
    CHECK(same);
    CHECK(gpu_metrics_parse(data, len, &m, why, sizeof(why)) == 0);
    free(data);
    return 0;
}

static void test_fixture_copies(void)
{
    if (read_user_file(REAL, 1 << 20, &real_bytes, &real_len)) {
        CHECK(!"real gpu_metrics capture readable");
        return;
    }
    CHECK(nftw("tests/fixtures", fixture_copy, 16, FTW_PHYS) == 0);
    CHECK(fixture_copies >= 5); /* rx6900xt-desktop and the machines built on it */
    free(real_bytes);
}

static void test_v1_0(void)
{
    struct gpu_metrics m;
    char why[160];
    hdr(80, 1, 0);
    put(8, 8, 123456789);     /* system_clock_counter */
    put(18, 2, 71);           /* temperature_hotspot */
    put(34, 2, 250);          /* average_socket_power, W */
    put(36, 4, 65536 * 1000); /* energy_accumulator (u32) */
    put(54, 2, 1800);         /* current_gfxclk */
    put(68, 4, 0x5);          /* throttle_status */
    put(72, 2, 2100);         /* current_fan_speed */
    put(74, 1, 16);
    put(75, 1, 80);
    CHECK(gpu_metrics_parse(buf, 80, &m, why, sizeof(why)) == 0);
    CHECK(near(m.v[GM_TEMP_HOTSPOT_C], 71) && near(m.v[GM_POWER_W], 250));
    CHECK(near(m.v[GM_ENERGY_J], 1000) && near(m.v[GM_GFXCLK_MHZ], 1800));
    CHECK(near(m.v[GM_FAN_RPM], 2100) && near(m.v[GM_PCIE_GTS], 8.0));
    CHECK(near(m.v[GM_TIMESTAMP_NS], 123456789));
    CHECK(m.has_throttle && m.throttle == 5 && !m.has_indep);
}

static void test_v1_3_throttle(void)
{
    struct gpu_metrics m;
    char why[160], names[256];
    hdr(120, 1, 3);
    put(4, 2, 0xffff); /* temperature_edge not provided */
    put(112, 8, (UINT64_C(1) << 36) | 1 | (UINT64_C(1) << 60));
    CHECK(gpu_metrics_parse(buf, 120, &m, why, sizeof(why)) == 0);
    CHECK(!m.known[GM_TEMP_EDGE_C]); /* unknown, never 0xffff or 0 */
    CHECK(m.known[GM_TEMP_MEM_C] && m.v[GM_TEMP_MEM_C] == 0);
    CHECK(m.has_indep);
    gpu_metrics_throttle_names(m.indep_throttle, names, sizeof(names));
    CHECK_STR(names, "PPT0,TEMP_HOTSPOT,BIT60");
    gpu_metrics_throttle_names(0, names, sizeof(names));
    CHECK_STR(names, "");
    gpu_metrics_throttle_names(UINT64_MAX, names, 12); /* truncated at a name boundary */
    CHECK_STR(names, "PPT0,PPT1");
    /* a wrong structure_size for a known revision */
    hdr(112, 1, 3);
    CHECK(gpu_metrics_parse(buf, 120, &m, why, sizeof(why)) == -1);
    CHECK_STR(why, "gpu_metrics 1.3: structure_size 112, the kernel's v1_3 is 120 bytes");
}

static void test_v1_4_v1_5(void)
{
    struct gpu_metrics m;
    char why[160];
    hdr(288, 1, 4);
    put(4, 2, 85);   /* temperature_hotspot */
    put(10, 2, 550); /* curr_socket_power, W */
    put(24, 8, UINT64_C(65536) * 5000);
    put(40, 4, 0x10);  /* throttle_status */
    put(240, 2, 2100); /* current_gfxclk[0] */
    put(280, 2, 1300); /* current_uclk */
    CHECK(gpu_metrics_parse(buf, 288, &m, why, sizeof(why)) == 0);
    CHECK(near(m.v[GM_TEMP_HOTSPOT_C], 85) && near(m.v[GM_POWER_W], 550));
    CHECK(near(m.v[GM_ENERGY_J], 5000) && m.throttle == 0x10);
    CHECK(near(m.v[GM_GFXCLK_MHZ], 2100) && near(m.v[GM_UCLK_MHZ], 1300));
    CHECK(!m.known[GM_TEMP_EDGE_C] && !m.has_indep); /* v1_4 has neither */
    hdr(360, 1, 5);
    put(88, 8, UINT64_C(65536) * 7);
    put(104, 4, 0x3);
    put(312, 2, 1900);
    put(352, 2, 1200);
    CHECK(gpu_metrics_parse(buf, 360, &m, why, sizeof(why)) == 0);
    CHECK(near(m.v[GM_ENERGY_J], 7) && m.throttle == 3);
    CHECK(near(m.v[GM_GFXCLK_MHZ], 1900) && near(m.v[GM_UCLK_MHZ], 1200));
}

/* v1_6 as it stayed upstream: residency accumulators, no throttle word */
static void test_v1_6_upstream(void)
{
    struct gpu_metrics m;
    char why[160];
    hdr(1664, 1, 6);
    put(32, 4, 1000); /* accumulation_counter */
    put(40, 4, 250);  /* ppt_residency_acc */
    put(52, 4, 7);    /* hbm_thm_residency_acc */
    put(104, 8, 3);   /* pcie_replay_count_acc */
    put(264, 2, 2100);
    put(278, 2, 1400); /* current_gfxclk[7] */
    put(306, 2, 4);    /* num_partition */
    CHECK(gpu_metrics_parse(buf, 4096, &m, why, sizeof(why)) == 0);
    CHECK(!m.has_throttle && !m.has_indep);
    CHECK(near(m.v[GM_ACC_COUNTER], 1000) && near(m.v[GM_RES_PPT], 250));
    CHECK(near(m.v[GM_RES_HBM_THM], 7) && near(m.v[GM_PCIE_REPLAY], 3));
    CHECK(near(m.v[GM_GFXCLK_MHZ], 2100) && m.xcd_known[7] && near(m.xcd_gfxclk_mhz[7], 1400));
    CHECK(near(m.v[GM_NUM_PARTITION], 4));
    /* the reverted May-2024 v1_6 was 384 bytes: refused, naming the size */
    hdr(384, 1, 6);
    CHECK(gpu_metrics_parse(buf, 384, &m, why, sizeof(why)) == -1);
    CHECK_STR(why, "gpu_metrics 1.6: structure_size 384, the kernel's v1_6 is 1664 bytes");
}

/* the kernel field name -> what the parser reports it as; NONE: a field
 * the parser skips (writing there must leave every field unknown) */
enum { NONE = -1, ARR_HBM = -2, ARR_XCD = -3, TWORD = -4, IWORD = -5 };
static const struct {
    const char *name;
    int field;
} kfields[] = {
    {"temperature_edge", GM_TEMP_EDGE_C},
    {"temperature_hotspot", GM_TEMP_HOTSPOT_C},
    {"temperature_mem", GM_TEMP_MEM_C},
    {"temperature_gfx", GM_TEMP_GFX_C},
    {"temperature_soc", GM_TEMP_SOC_C},
    {"average_gfx_activity", GM_GFX_BUSY_PCT},
    {"average_umc_activity", GM_UMC_BUSY_PCT},
    {"average_socket_power", GM_POWER_W},
    {"curr_socket_power", GM_POWER_W},
    {"energy_accumulator", GM_ENERGY_J},
    {"system_clock_counter", GM_TIMESTAMP_NS},
    {"current_gfxclk", ARR_XCD},
    {"average_gfxclk_frequency", GM_GFXCLK_MHZ},
    {"current_uclk", GM_UCLK_MHZ},
    {"average_uclk_frequency", GM_UCLK_MHZ},
    {"current_fan_speed", GM_FAN_RPM},
    {"pcie_link_width", GM_PCIE_WIDTH},
    {"pcie_link_speed", GM_PCIE_GTS},
    {"throttle_status", TWORD},
    {"indep_throttle_status", IWORD},
    {"temperature_hbm", ARR_HBM},
    {"pcie_l0_to_recov_count_acc", GM_PCIE_L0_TO_RECOV},
    {"pcie_replay_count_acc", GM_PCIE_REPLAY},
    {"pcie_replay_rover_count_acc", GM_PCIE_REPLAY_ROVER},
    {"pcie_nak_sent_count_acc", GM_PCIE_NAK_SENT},
    {"pcie_nak_rcvd_count_acc", GM_PCIE_NAK_RCVD},
    {"pcie_lc_perf_other_end_recovery", GM_PCIE_OTHER_END_RECOV},
    {"accumulation_counter", GM_ACC_COUNTER},
    {"prochot_residency_acc", GM_RES_PROCHOT},
    {"ppt_residency_acc", GM_RES_PPT},
    {"socket_thm_residency_acc", GM_RES_SOCKET_THM},
    {"vr_thm_residency_acc", GM_RES_VR_THM},
    {"hbm_thm_residency_acc", GM_RES_HBM_THM},
    {"num_partition", GM_NUM_PARTITION},
    {"throttle_residency_prochot", GM_THR_PROCHOT},
    {"throttle_residency_spl", GM_THR_SPL},
    {"throttle_residency_fppt", GM_THR_FPPT},
    {"throttle_residency_sppt", GM_THR_SPPT},
    {"throttle_residency_thm_core", GM_THR_THM_CORE},
    {"throttle_residency_thm_gfx", GM_THR_THM_GFX},
    {"throttle_residency_thm_soc", GM_THR_THM_SOC},
    {"xcp_stats", NONE},
    {"mem_max_bandwidth", NONE},
    {"xgmi_link_status", NONE},
};

static int kfield(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(kfields); i++)
        if (!strcmp(kfields[i].name, name))
            return kfields[i].field;
    return NONE - 100; /* a field the test does not know: fails below */
}

static int nknown(const struct gpu_metrics *m)
{
    int n = m->has_throttle + m->has_indep;
    for (int i = 0; i < GM_NFIELDS; i++)
        n += m->known[i];
    for (int i = 0; i < GM_NHBM; i++)
        n += m->hbm_known[i];
    for (int i = 0; i < GM_NXCD; i++)
        n += m->xcd_known[i] && i; /* [0] is GM_GFXCLK_MHZ as well */
    return n;
}

/* one field of the kernel's description: a buffer of all-ones ("not
 * provided") with a small value at the field's offset (its first element;
 * for an array also its last) must make exactly that field known */
static void check_field(unsigned f, unsigned c, size_t size, const char *name, size_t off,
                        size_t bytes)
{
    struct gpu_metrics m;
    char why[160];
    int id = kfield(name);
    if (id == ARR_XCD && bytes == 2) /* v1_0..v1_3: one current_gfxclk */
        id = GM_GFXCLK_MHZ;
    unsigned el = id == ARR_HBM || id == ARR_XCD || id == NONE ? 2 : (unsigned)bytes;
    hdr(size, f, c);
    memset(buf + 4, 0xff, size - 4);
    put(off, el, 42);
    if (bytes > el)
        put(off + bytes - el, el, 43);
    if (gpu_metrics_parse(buf, size, &m, why, sizeof(why))) {
        fprintf(stderr, "v%u_%u %s: %s\n", f, c, name, why);
        CHECK(0);
        return;
    }
    int ok;
    if (id == NONE)
        ok = nknown(&m) == 0;
    else if (id == ARR_HBM)
        ok = m.hbm_known[0] && near(m.hbm_temp_c[0], 42) && m.hbm_known[GM_NHBM - 1] &&
             near(m.hbm_temp_c[GM_NHBM - 1], 43) && nknown(&m) == 2;
    else if (id == ARR_XCD)
        ok = near(m.v[GM_GFXCLK_MHZ], 42) && m.xcd_known[GM_NXCD - 1] &&
             near(m.xcd_gfxclk_mhz[GM_NXCD - 1], 43) && nknown(&m) == 2;
    else if (id == TWORD)
        ok = m.has_throttle && m.throttle == 42 && nknown(&m) == 1;
    else if (id == IWORD)
        ok = m.has_indep && m.indep_throttle == 42 && nknown(&m) == 1;
    else
        ok = id >= 0 && m.known[id] && nknown(&m) == 1;
    if (!ok)
        fprintf(stderr, "v%u_%u %s at %zu (%zu bytes): not read as that field\n", f, c, name, off,
                bytes);
    CHECK(ok);
}

/* every size and offset of tests/data/kernel/gpu_metrics_layouts.txt,
 * written from the kernel's struct definitions, against the parser */
static void test_kernel_layouts(void)
{
    FILE *fp = fopen("tests/data/kernel/gpu_metrics_layouts.txt", "r");
    CHECK(fp != NULL);
    if (!fp)
        return;
    char line[256], name[80];
    unsigned f, c, revs = 0, fields = 0;
    size_t size = 0, off, bytes;
    while (fgets(line, sizeof(line), fp)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "v%u_%u size %zu", &f, &c, &size) == 3) {
            CHECK(gpu_metrics_struct_size(f, c) == size);
            revs++;
        } else if (sscanf(line, "v%u_%u %79s %zu %zu", &f, &c, name, &off, &bytes) == 5) {
            CHECK(gpu_metrics_struct_size(f, c) == size && off + bytes <= size);
            if (gpu_metrics_struct_size(f, c) == size)
                check_field(f, c, size, name, off, bytes);
            fields++;
        } else {
            fprintf(stderr, "bad layout line: %s", line);
            CHECK(0);
        }
    }
    fclose(fp);
    CHECK(revs == 7 && fields > 100);
}

static void test_v2(void)
{
    struct gpu_metrics m;
    char why[160];
    hdr(120, 2, 0);
    put(16, 2, 4550);  /* temperature_gfx, centi-C */
    put(40, 2, 9000);  /* average_gfx_activity, centi-% */
    put(44, 2, 15000); /* average_socket_power, mW */
    put(80, 2, 2200);  /* current_gfxclk */
    put(112, 4, 0x2);
    CHECK(gpu_metrics_parse(buf, 120, &m, why, sizeof(why)) == 0);
    CHECK(near(m.v[GM_TEMP_GFX_C], 45.5) && near(m.v[GM_GFX_BUSY_PCT], 90));
    CHECK(near(m.v[GM_POWER_W], 15) && near(m.v[GM_GFXCLK_MHZ], 2200) && m.throttle == 2);
    CHECK(!m.known[GM_ENERGY_J]); /* APUs have no accumulator */
    hdr(120, 2, 1);
    put(40, 2, 12000);
    put(76, 2, 1600);
    put(108, 4, 0x4);
    CHECK(gpu_metrics_parse(buf, 120, &m, why, sizeof(why)) == 0);
    CHECK(near(m.v[GM_POWER_W], 12) && near(m.v[GM_GFXCLK_MHZ], 1600) && m.throttle == 4);
    hdr(128, 2, 2);
    put(120, 8, UINT64_C(1) << 4);
    CHECK(gpu_metrics_parse(buf, 128, &m, why, sizeof(why)) == 0);
    CHECK(m.has_indep && m.indep_throttle == 16);
    hdr(152, 2, 3);
    put(120, 8, UINT64_C(1) << 5);
    CHECK(gpu_metrics_parse(buf, 152, &m, why, sizeof(why)) == 0);
    CHECK(m.indep_throttle == 32);
    hdr(168, 2, 4);
    put(4, 2, 6000);
    put(28, 2, 5000);
    put(40, 2, 8000);
    put(76, 2, 2900);
    put(120, 8, UINT64_C(1) << 33);
    CHECK(gpu_metrics_parse(buf, 168, &m, why, sizeof(why)) == 0);
    CHECK(near(m.v[GM_TEMP_GFX_C], 60) && near(m.v[GM_GFX_BUSY_PCT], 50));
    CHECK(near(m.v[GM_POWER_W], 8) && near(m.v[GM_GFXCLK_MHZ], 2900));
    CHECK(m.indep_throttle == (UINT64_C(1) << 33));
}

static void test_v3_0(void)
{
    struct gpu_metrics m;
    char why[160];
    hdr(264, 3, 0);
    put(4, 2, 5100);    /* temperature_gfx */
    put(42, 2, 37);     /* average_gfx_activity, % */
    put(104, 8, 42);    /* system_clock_counter */
    put(112, 4, 21000); /* average_socket_power, mW */
    put(174, 2, 2700);  /* average_gfxclk_frequency */
    put(186, 2, 2800);  /* average_uclk_frequency */
    CHECK(gpu_metrics_parse(buf, 264, &m, why, sizeof(why)) == 0);
    CHECK(near(m.v[GM_TEMP_GFX_C], 51) && near(m.v[GM_GFX_BUSY_PCT], 37));
    CHECK(near(m.v[GM_POWER_W], 21) && near(m.v[GM_GFXCLK_MHZ], 2700));
    CHECK(near(m.v[GM_UCLK_MHZ], 2800) && near(m.v[GM_TIMESTAMP_NS], 42));
    CHECK(!m.has_throttle && !m.has_indep);
}

static void test_bad(void)
{
    struct gpu_metrics m;
    char why[160];
    CHECK(gpu_metrics_parse(buf, 0, &m, why, sizeof(why)) == -1);
    CHECK(gpu_metrics_parse(buf, 3, &m, why, sizeof(why)) == -1);
    CHECK(strstr(why, "4-byte header") != NULL);
    /* v1_9, the attribute list after v1_8: recognised, not parsed */
    hdr(120, 1, 9);
    CHECK(gpu_metrics_parse(buf, 120, &m, why, sizeof(why)) == -1);
    CHECK_STR(why, "gpu_metrics 1.9 (the kernel's self-describing attribute list, 120 bytes): "
                   "format not supported yet");
    hdr(120, 1, 10);
    CHECK(gpu_metrics_parse(buf, 120, &m, why, sizeof(why)) == -1);
    CHECK_STR(why, "gpu_metrics format 1.10 unknown (120 bytes)");
    hdr(64, 4, 0);
    CHECK(gpu_metrics_parse(buf, 64, &m, why, sizeof(why)) == -1);
    CHECK_STR(why, "gpu_metrics format 4.0 unknown (64 bytes)");
    hdr(0xffff, 1, 3);
    CHECK(gpu_metrics_parse(buf, sizeof(buf), &m, why, sizeof(why)) == -1);
    CHECK(strstr(why, "structure_size 65535") != NULL);
    /* a v2_4 header on v1_3-sized data (oversized claim) */
    hdr(168, 2, 4);
    CHECK(gpu_metrics_parse(buf, 120, &m, why, sizeof(why)) == -1);
    CHECK_STR(why, "gpu_metrics 2.4: 120 bytes read, 168 expected");
}

int main(void)
{
    test_sizes();
    test_real_capture();
    test_fixture_copies();
    test_v1_0();
    test_v1_3_throttle();
    test_v1_4_v1_5();
    test_v1_6_upstream();
    test_kernel_layouts();
    test_v2();
    test_v3_0();
    test_bad();
    return test_report();
}
