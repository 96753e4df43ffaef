/* test_telemetry.c - the telemetry's text parsers on the real captures
 * (tests/data/fixtures-real: pp_dpm_* of six cards, NUL padding kept) and
 * the sampler on a sysroot: the rx7900xtx-desktop fixture copied to a temp
 * dir, plus DRM fdinfo, KFD process files and the real gpu_metrics. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/rootfs.h"
#include "../../src/core/util.h"
#include "../../src/telemetry/tel_energy.h"
#include "../../src/telemetry/tel_table.h"
#include "../../src/telemetry/telemetry.h"
#include "test.h"
#include "rx7900_path.h"

#define REAL "tests/data/fixtures-real/amdgpu-sysfs-rs/"

static char *real(const char *card, const char *file)
{
    char path[256], *buf;
    size_t len;
    snprintf(path, sizeof(path), REAL "%s/%s", card, file);
    if (read_user_file(path, 1 << 20, &buf, &len)) {
        fprintf(stderr, "cannot read %s\n", path);
        return xstrdup("");
    }
    return buf; /* NUL padding ends the string where sysfs' text ends */
}

static void test_dpm_real(void)
{
    struct tel_dpm d;
    char *t = real("rx580", "pp_dpm_sclk");
    CHECK(tel_dpm_parse(t, &d) == 0);
    CHECK(d.n == 8 && d.nstar == 1 && d.cur == 900 && d.min == 300 && d.max == 1366);
    free(t);
    t = real("rx6900xt", "pp_dpm_sclk"); /* NUL padded */
    CHECK(tel_dpm_parse(t, &d) == 0);
    CHECK(d.n == 2 && d.cur == 500 && d.min == 500 && d.max == 2660);
    free(t);
    t = real("rx7800xt", "pp_dpm_sclk"); /* "1: 0Mhz *": GFXOFF, the range is 500..2124 */
    CHECK(tel_dpm_parse(t, &d) == 0);
    CHECK(d.n == 3 && d.cur == 0 && d.min == 500 && d.max == 2124);
    free(t);
    t = real("rx7900xt", "pp_dpm_sclk");
    CHECK(tel_dpm_parse(t, &d) == 0 && d.cur == 31 && d.min == 500 && d.max == 2219);
    free(t);
    t = real("vega56", "pp_dpm_mclk");
    CHECK(tel_dpm_parse(t, &d) == 0 && d.cur == 167 && d.min == 167 && d.max == 920);
    free(t);
    t = real("rx9070xt", "pp_dpm_mclk");
    CHECK(tel_dpm_parse(t, &d) == 0 && d.n == 6 && d.cur == 96 && d.max == 1258);
    free(t);
    CHECK(tel_dpm_parse("", &d) == -EINVAL);
    CHECK(tel_dpm_parse("garbage\n0: 12GHz *\n", &d) == -EINVAL);
    CHECK(tel_dpm_parse("0: 300Mhz\n1: 600Mhz\n", &d) == 0 && d.cur == -1 && d.nstar == 0);
    /* deep sleep below the lowest level, as smu_v13_0_6_ppt.c prints it
     * ("S: %uMhz *\n" before the levels; no capture of one here): the
     * current clock, outside the range and the marked levels */
    CHECK(tel_dpm_parse("S: 19Mhz *\n0: 500Mhz\n1: 1500Mhz\n2: 2100Mhz\n", &d) == 0);
    CHECK(d.cur == 19 && d.n == 3 && d.nstar == 0 && d.min == 500 && d.max == 2100);
    CHECK(tel_dpm_parse("S: 19Mhz\n0: 500Mhz *\n1: 2100Mhz\n", &d) == 0 && d.cur == 500);
    CHECK(tel_dpm_parse("S: 19Mhz *\n", &d) == -EINVAL);
}

static void test_dpm_pcie_real(void)
{
    struct tel_dpm_pcie p;
    char *t = real("rx580", "pp_dpm_pcie");
    CHECK(tel_dpm_pcie_parse(t, &p) == 0);
    CHECK(p.n == 2 && p.nstar == 1 && p.cur_gts == 8.0 && p.cur_width == 16);
    CHECK(p.max_gts == 8.0 && p.max_width == 16);
    free(t);
    t = real("rx6900xt", "pp_dpm_pcie");
    CHECK(tel_dpm_pcie_parse(t, &p) == 0 && p.cur_gts == 16.0 && p.cur_width == 16);
    free(t);
    t = real("rx7800xt", "pp_dpm_pcie");
    CHECK(tel_dpm_pcie_parse(t, &p) == 0 && p.n == 3 && p.cur_gts == 16.0 && p.max_width == 16);
    free(t);
    t = real("rx7900xt", "pp_dpm_pcie"); /* every level marked, all one link */
    CHECK(tel_dpm_pcie_parse(t, &p) == 0 && p.nstar == 3 && !p.star_conflict);
    CHECK(p.cur_gts == 16.0 && p.cur_width == 16);
    free(t);
    t = real("rx9070xt", "pp_dpm_pcie"); /* none marked */
    CHECK(tel_dpm_pcie_parse(t, &p) == 0 && p.nstar == 0 && p.cur_gts == -1);
    CHECK(p.max_gts == 8.0 && p.max_width == 16);
    free(t);
    t = real("vega56", "pp_dpm_pcie"); /* two levels marked, one link */
    CHECK(tel_dpm_pcie_parse(t, &p) == 0 && p.cur_gts == 8.0 && p.cur_width == 16);
    CHECK(p.nstar == 2 && !p.star_conflict);
    free(t);
    /* marks on different links do not tell the link */
    CHECK(tel_dpm_pcie_parse("0: 2.5GT/s, x1 *\n1: 16.0GT/s, x16 *\n", &p) == 0);
    CHECK(p.nstar == 2 && p.star_conflict);
    CHECK(tel_dpm_pcie_parse("0: 16.0GT/s, x8 *\n1: 16.0GT/s, x16 *\n", &p) == 0);
    CHECK(p.star_conflict);
    CHECK(tel_dpm_pcie_parse("0: fast\n", &p) == -EINVAL);
}

static void test_fdinfo(void)
{
    struct tel_fdinfo f;
    /* the keys amdgpu prints (Documentation/gpu/drm-usage-stats.rst) */
    const char *amd = "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1073\n"
                      "drm-driver:\tamdgpu\ndrm-client-id:\t42\ndrm-pdev:\t0000:86:00.0\n"
                      "pasid:\t32770\ndrm-memory-vram:\t1048576 KiB\ndrm-memory-gtt:\t2048 KiB\n"
                      "drm-engine-gfx:\t2000000000 ns\ndrm-engine-compute:\t500000000 ns\n"
                      "drm-engine-capacity-gfx:\t2\n";
    CHECK(tel_fdinfo_parse(amd, &f) == 0);
    CHECK_STR(f.driver, "amdgpu");
    CHECK_STR(f.pdev, "0000:86:00.0");
    CHECK(f.has_client_id && f.client_id == 42);
    CHECK(f.vram_bytes == 1073741824LL);
    CHECK(f.engine_ns == 2500000000LL && !f.saturated); /* capacity is not time */
    /* engines whose sum passes 2^63-1 (or one past 2^64): held, and said so */
    CHECK(tel_fdinfo_parse("drm-driver:\tamdgpu\ndrm-engine-gfx:\t9223372036854775807 ns\n"
                           "drm-engine-compute:\t9223372036854775807 ns\n",
                           &f) == 0);
    CHECK(f.engine_ns == INT64_MAX && f.saturated);
    CHECK(tel_fdinfo_parse("drm-driver:\tamdgpu\ndrm-engine-gfx:\t99999999999999999999 ns\n", &f) ==
          0);
    CHECK(f.engine_ns == INT64_MAX && f.saturated);
    /* no kernel prints amd-memory-vram (amdgpu's own keys are
     * amd-memory-visible-vram, amd-evicted-vram, amd-requested-vram) */
    CHECK(tel_fdinfo_parse("drm-driver:\tamdgpu\namd-memory-vram:\t4096 KiB\n", &f) == 0);
    CHECK(f.vram_bytes == -1 && f.engine_ns == -1 && !f.has_client_id);
    /* 6.0-6.10 as torvalds/linux amdgpu_fdinfo.c at 0604aa87b098 prints it
     * ("drm-memory-gtt: \t" has a space before the tab) */
    CHECK(tel_fdinfo_parse("pasid:\t32770\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\n"
                           "drm-client-id:\t7\ndrm-memory-vram:\t8192 KiB\n"
                           "drm-memory-gtt: \t16 KiB\ndrm-memory-cpu: \t0 KiB\n"
                           "amd-memory-visible-vram:\t8192 KiB\namd-evicted-vram:\t0 KiB\n"
                           "amd-requested-vram:\t9000 KiB\ndrm-engine-gfx:\t10 ns\n",
                           &f) == 0);
    CHECK(f.vram_bytes == 8192 * 1024 && f.engine_ns == 10);
    /* 6.11+ (drm_print_memory_stats): resident wins over total, which also
     * counts shared and evicted buffers, and over the legacy alias */
    CHECK(tel_fdinfo_parse("drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\n"
                           "drm-total-vram:\t3 GiB\ndrm-shared-vram:\t1 GiB\n"
                           "drm-resident-vram:\t2 GiB\ndrm-purgeable-vram:\t0\n"
                           "drm-memory-vram:\t2097152 KiB\n",
                           &f) == 0);
    CHECK(f.vram_bytes == 2147483648LL);
    CHECK(tel_fdinfo_parse("drm-driver:\tamdgpu\ndrm-total-vram:\t3 GiB\n"
                           "drm-memory-vram:\t1 GiB\n",
                           &f) == 0);
    CHECK(f.vram_bytes == 1073741824LL); /* the legacy key before total */
    CHECK(tel_fdinfo_parse("drm-driver:\tamdgpu\ndrm-total-vram:\t3 GiB\n", &f) == 0);
    CHECK(f.vram_bytes == 3221225472LL);
    /* 5.14-5.18 (Ubuntu 22.04's 5.15): amdgpu_fdinfo.c as first added
     * printed "pdev", "pasid", "vram mem: %llu kB", "gtt mem", "cpu mem"
     * and per-ring percentages, no drm-driver line */
    const char *k515 = "pos:\t0\nflags:\t02100002\nmnt_id:\t26\n"
                       "pdev:\t0000:0c:00.0\npasid:\t32769\nvram mem:\t524288 kB\n"
                       "gtt mem:\t2048 kB\ncpu mem:\t0 kB\ngfx0:\t12.34%\ncompute0:\t0.0%\n";
    CHECK(tel_fdinfo_parse(k515, &f) == 0);
    CHECK_STR(f.driver, "amdgpu");
    CHECK_STR(f.pdev, "0000:0c:00.0");
    CHECK(f.vram_bytes == 536870912LL && f.engine_ns == -1 && !f.has_client_id);
    /* a pdev line alone is no DRM client */
    CHECK(tel_fdinfo_parse("pos:\t0\npdev:\t0000:0c:00.0\n", &f) == -ENOENT);
    /* not a DRM file */
    CHECK(tel_fdinfo_parse("pos:\t0\nflags:\t0100002\n", &f) == -ENOENT);
    CHECK(tel_fdinfo_parse("drm-driver:\ti915\ndrm-memory-vram:\tlots\n", &f) == 0);
    CHECK(f.vram_bytes == -1);
}

#define GPU_BDF "0000:86:00.0"
#define GPU_DIR "/sys/devices/pci0000:80/0000:80:01.1/0000:84:00.0/0000:85:00.0/0000:86:00.0"

static void put_file(const char *root, const char *rel, const char *text)
{
    char *path = xasprintf("%s%s", root, rel);
    char *cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", path);
    if (system(cmd) != 0)
        fprintf(stderr, "mkdir failed\n");
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(cmd);
    free(path);
}

static void test_sampler(void)
{
    char root[] = "/tmp/rvd-tel-XXXXXX";
    if (!mkdtemp(root)) {
        CHECK(!"mkdtemp");
        return;
    }
    char *cmd = xasprintf("cp -a tests/fixtures/rx7900xtx-desktop/root/. %s/ && cp " REAL
                          "rx6900xt/gpu_metrics %s" GPU_DIR "/gpu_metrics",
                          root, root);
    CHECK(system(cmd) == 0);
    free(cmd);
    /* a compute process (KFD) and a graphics client (fdinfo) */
    put_file(root, "/proc/4242/comm", "python3\n");
    put_file(root, "/proc/4242/fdinfo/5",
             "drm-driver:\tamdgpu\ndrm-client-id:\t7\n"
             "drm-pdev:\t" GPU_BDF "\ndrm-memory-vram:\t2048 KiB\n"
             "drm-engine-gfx:\t1000 ns\n");
    put_file(root, "/proc/4242/fdinfo/6",
             "drm-driver:\tamdgpu\ndrm-client-id:\t7\n"
             "drm-pdev:\t" GPU_BDF "\ndrm-memory-vram:\t2048 KiB\n");
    put_file(root, "/proc/4242/fdinfo/1", "pos:\t0\n");
    put_file(root, "/proc/77/comm", "Xorg\n");
    put_file(root, "/proc/77/fdinfo/3",
             "drm-driver:\tamdgpu\ndrm-client-id:\t1\n"
             "drm-pdev:\t0000:99:00.0\n"); /* another GPU */
    CHECK(rootfs_init(root) == 0);
    struct strlist bdfs = STRLIST_INIT;
    strlist_add(&bdfs, GPU_BDF);
    struct tel *t = tel_open(&bdfs, 0, 1);
    struct tel_sample s;
    tel_sample(t, &s);
    CHECK(s.ngpu == 1);
    const struct tel_gpu *g = &s.gpus[0];
    CHECK_STR(g->pci, GPU_BDF);
    CHECK(g->src[TEL_SCLK_MHZ] && g->v[TEL_SCLK_MHZ] == 31);
    CHECK(g->v[TEL_SCLK_MIN_MHZ] == 500 && g->v[TEL_SCLK_MAX_MHZ] == 2219);
    CHECK_STR(g->src[TEL_SCLK_MHZ], "pp_dpm_sclk");
    CHECK(g->src[TEL_POWER_W] && fabs(g->v[TEL_POWER_W] - 68) < 1e-9);
    CHECK(fabs(g->v[TEL_POWER_CAP_W] - 290) < 1e-9);
    CHECK(fabs(g->v[TEL_TEMP_EDGE_C] - 53) < 1e-9 &&
          fabs(g->v[TEL_TEMP_EDGE_LIMIT_C] - 100) < 1e-9);
    CHECK(fabs(g->v[TEL_TEMP_JUNCTION_C] - 61) < 1e-9);
    CHECK(fabs(g->v[TEL_TEMP_JUNCTION_LIMIT_C] - 110) < 1e-9);
    CHECK(fabs(g->v[TEL_TEMP_MEM_C] - 68) < 1e-9 && fabs(g->v[TEL_TEMP_MEM_LIMIT_C] - 108) < 1e-9);
    CHECK(g->src[TEL_BUSY_PCT] && g->v[TEL_BUSY_PCT] == 3);
    CHECK(g->v[TEL_VRAM_USED_B] == 641728512.0);
    /* every level of this pp_dpm_pcie is marked, and all are one link: the
     * SMU's link, not the function's own link files */
    CHECK_STR(g->src[TEL_PCIE_GTS], "pp_dpm_pcie");
    CHECK_STR(g->src[TEL_PCIE_WIDTH], "pp_dpm_pcie");
    CHECK(g->v[TEL_PCIE_GTS] == 16.0 && g->v[TEL_PCIE_WIDTH] == 16);
    /* not in this fixture: unknown with the reason, never 0 */
    CHECK(!g->src[TEL_GTT_USED_B] && strstr(g->why[TEL_GTT_USED_B], "mem_info_gtt_used"));
    CHECK(!g->src[TEL_PCIE_REPLAYS]);
    /* hwmon has no energy1_input: the gpu_metrics accumulator */
    CHECK_STR(g->src[TEL_ENERGY_J], "gpu_metrics energy_accumulator");
    CHECK(g->throttle_known && g->throttle_bits == 0);
    CHECK_STR(g->throttle_src, "gpu_metrics 1.3");
    /* one process on this GPU; the duplicated client counted once */
    CHECK(s.nproc == 1);
    if (s.nproc == 1) {
        CHECK(s.procs[0].pid == 4242 && s.procs[0].gpu == 0);
        CHECK_STR(s.procs[0].comm, "python3");
        CHECK(s.procs[0].vram_bytes == 2097152);
        CHECK(s.procs[0].busy_pct < 0); /* first sample: no interval yet */
    }
    tel_sample_release(&s);

    /* second sample: engine time grew; a KFD compute process appears;
     * gpu_metrics turns into an unknown revision */
    put_file(root, "/proc/4242/fdinfo/5",
             "drm-driver:\tamdgpu\ndrm-client-id:\t7\n"
             "drm-pdev:\t" GPU_BDF "\ndrm-engine-gfx:\t900001000 ns\n");
    put_file(root, "/sys/class/kfd/kfd/proc/5151/vram_52138", "3221225472\n");
    put_file(root, "/proc/5151/comm", "rocm-bench\n");
    /* (52138: the gpu_id of the fixture's KFD node at 0000:86:00.0) */
    char *gm = xasprintf("%s" GPU_DIR "/gpu_metrics", root);
    FILE *f = fopen(gm, "r+b");
    if (f) {
        fseek(f, 3, SEEK_SET);
        fputc(10, f); /* content revision 10: none the kernel defines */
        fclose(f);
    }
    usleep(20000);
    tel_sample(t, &s);
    CHECK(s.nproc == 2);
    for (size_t i = 0; i < s.nproc; i++) {
        if (s.procs[i].pid == 4242)
            CHECK(s.procs[i].busy_pct > 0 && s.procs[i].busy_pct <= 100);
        if (s.procs[i].pid == 5151) {
            CHECK_STR(s.procs[i].src, "kfd");
            CHECK(s.procs[i].vram_bytes == 3221225472LL);
            CHECK_STR(s.procs[i].comm, "rocm-bench");
        }
    }
    CHECK(!s.gpus[0].throttle_known);
    CHECK_STR(s.gpus[0].throttle_why, "gpu_metrics format 1.10 unknown (120 bytes)");
    CHECK(!s.gpus[0].src[TEL_ENERGY_J]);
    tel_sample_release(&s);
    /* a second client whose engine time would wrap the process's sum
     * (issue 30): held at 2^63-1, and the description says so */
    put_file(root, "/proc/4242/fdinfo/7",
             "drm-driver:\tamdgpu\ndrm-client-id:\t8\n"
             "drm-pdev:\t" GPU_BDF "\ndrm-engine-gfx:\t9223372036854775807 ns\n");
    tel_sample(t, &s);
    for (size_t i = 0; i < s.nproc; i++)
        if (s.procs[i].pid == 4242) {
            CHECK(s.procs[i].engine_ns == INT64_MAX && s.procs[i].saturated);
            struct strbuf d = STRBUF_INIT;
            tel_proc_describe(&s, 0, &d);
            CHECK(d.buf && strstr(d.buf, "saturated"));
            strbuf_release(&d);
        }
    tel_sample_release(&s);
    tel_close(t);
    strlist_release(&bdfs);
    rootfs_release();
    free(gm);
    cmd = xasprintf("rm -rf %s", root);
    CHECK(system(cmd) == 0);
    free(cmd);
}

/* a private copy of the rx7900xtx-desktop fixture as the root of every
 * read; root is a mkdtemp template. 0, or -1 (a failed CHECK) */
static int rx7900_root(char *root)
{
    if (!mkdtemp(root)) {
        CHECK(!"mkdtemp");
        return -1;
    }
    char *cmd = xasprintf("cp -a tests/fixtures/rx7900xtx-desktop/root/. %s/", root);
    int rc = system(cmd);
    free(cmd);
    CHECK(rc == 0);
    CHECK(rootfs_init(root) == 0);
    return 0;
}

/* the sampler of the one GPU of an rx7900_root copy, and its end: the
 * sampler closed, the root released and removed */
static struct tel *rx7900_tel(struct strlist *bdfs, double recheck)
{
    strlist_add(bdfs, GPU_BDF);
    struct tel *t = tel_open(bdfs, 0, 0);
    tel_set_recheck(t, recheck);
    return t;
}

static void rx7900_done(const char *root, struct tel *t, struct strlist *bdfs)
{
    tel_close(t);
    strlist_release(bdfs);
    rootfs_release();
    char *cmd = xasprintf("rm -rf %s", root);
    CHECK(system(cmd) == 0);
    free(cmd);
}

/* the real v1_3 capture as the GPU's gpu_metrics */
static void copy_real_v1_3(const char *root)
{
    char *cmd = xasprintf("cp " REAL "rx6900xt/gpu_metrics %s" GPU_DIR "/gpu_metrics", root);
    CHECK(system(cmd) == 0);
    free(cmd);
}

/* an optional file found absent is not opened again until the recheck
 * interval has passed (the dashboard samples every 100 ms): a file that
 * appears is seen at the next recheck, and meanwhile the value stays
 * unknown with the same reason, never 0 */
static void test_absent_files(void)
{
    char root[] = "/tmp/rvd-tel-XXXXXX";
    if (rx7900_root(root))
        return;
    struct strlist bdfs = STRLIST_INIT;
    struct tel *t = rx7900_tel(&bdfs, 1e6);
    struct tel_sample s;
    tel_sample(t, &s);
    CHECK(!s.gpus[0].src[TEL_GTT_USED_B]);
    CHECK(strstr(s.gpus[0].why[TEL_GTT_USED_B], "mem_info_gtt_used: No such file"));
    CHECK(strstr(s.gpus[0].throttle_why, "gpu_metrics: No such file"));
    tel_sample_release(&s);
    /* both appear: remembered absent until the recheck */
    put_file(root, GPU_DIR "/mem_info_gtt_used", "4096\n");
    copy_real_v1_3(root);
    tel_sample(t, &s);
    CHECK(!s.gpus[0].src[TEL_GTT_USED_B]);
    CHECK(strstr(s.gpus[0].why[TEL_GTT_USED_B], "mem_info_gtt_used: No such file"));
    CHECK(!s.gpus[0].throttle_known);
    CHECK(s.gpus[0].src[TEL_SCLK_MHZ] != NULL); /* present files still read */
    tel_sample_release(&s);
    /* the recheck: both are read */
    tel_set_recheck(t, 0);
    tel_sample(t, &s);
    CHECK(s.gpus[0].src[TEL_GTT_USED_B] && s.gpus[0].v[TEL_GTT_USED_B] == 4096);
    CHECK(s.gpus[0].throttle_known);
    CHECK_STR(s.gpus[0].throttle_src, "gpu_metrics 1.3");
    tel_sample_release(&s);
    rx7900_done(root, t, &bdfs);
}

static void write_at(const char *root, const char *rel, const char *text)
{
    char *path = xasprintf("%s%s", root, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(path);
}

/* energy over an interval: hwmon energy1_input, else the gpu_metrics
 * accumulator, else integrated power samples; unknown without any */
static void test_energy(void)
{
    char root[] = "/tmp/rvd-energy-XXXXXX";
    if (rx7900_root(root))
        return;
    char *cmd;
    const char *hw = GPU_DIR "/hwmon/hwmon8";
    char src[128], why[300];
    double j = -1, secs = -1;

    write_at(root, GPU_DIR "/hwmon/hwmon8/energy1_input", "1000000\n");
    struct tel_energy *e = tel_energy_start("hip", GPU_BDF);
    write_at(root, GPU_DIR "/hwmon/hwmon8/energy1_input", "3500000\n"); /* +2.5 J */
    CHECK(tel_energy_stop(e, &j, &secs, src, sizeof(src), why, sizeof(why)) == 0);
    CHECK(fabs(j - 2.5) < 1e-9 && secs >= 0);
    CHECK_STR(src, "hwmon energy1_input");

    /* no energy1_input: the gpu_metrics accumulator (the real v1_3 capture;
     * the same value twice: 0 J, a measured zero, not an unknown) */
    char *p = xasprintf("%s%s/energy1_input", root, hw);
    unlink(p);
    free(p);
    cmd = xasprintf("cp " REAL "rx6900xt/gpu_metrics %s" GPU_DIR "/gpu_metrics", root);
    CHECK(system(cmd) == 0);
    free(cmd);
    e = tel_energy_start("hip", GPU_BDF);
    CHECK(tel_energy_stop(e, &j, &secs, src, sizeof(src), why, sizeof(why)) == 0);
    CHECK(j == 0);
    CHECK_STR(src, "gpu_metrics energy accumulator");

    /* neither: power1_average (68 W in this fixture) sampled and integrated */
    p = xasprintf("%s" GPU_DIR "/gpu_metrics", root);
    unlink(p);
    free(p);
    e = tel_energy_start("hip", GPU_BDF);
    usleep(200000);
    CHECK(tel_energy_stop(e, &j, &secs, src, sizeof(src), why, sizeof(why)) == 0);
    CHECK(strstr(src, "integrated hwmon power samples") != NULL);
    /* 68 W over the ~0.2 s the samples cover */
    CHECK(j > 68 * 0.1 && fabs(j - 68 * secs) < 1e-6);
    if (!(j > 68 * 0.1 && fabs(j - 68 * secs) < 1e-6))
        fprintf(stderr, "integrated %g J over %g s (%s)\n", j, secs, src);

    /* no hwmon at all: unknown, never 0 */
    cmd = xasprintf("rm -rf %s" GPU_DIR "/hwmon", root);
    CHECK(system(cmd) == 0);
    free(cmd);
    e = tel_energy_start("hip", GPU_BDF);
    j = -1;
    CHECK(tel_energy_stop(e, &j, &secs, src, sizeof(src), why, sizeof(why)) == -1);
    CHECK(j == -1 && strstr(why, "no energy1_input") != NULL);
    /* the cpu backend: no GPU counter */
    e = tel_energy_start("cpu", "");
    CHECK(tel_energy_stop(e, &j, &secs, src, sizeof(src), why, sizeof(why)) == -1);
    CHECK(strstr(why, "no GPU energy counter for the cpu backend") != NULL);
    rootfs_release();
    cmd = xasprintf("rm -rf %s", root);
    CHECK(system(cmd) == 0);
    free(cmd);
}

/* the PCIe path beside the GPU's own link: rx7900xtx-desktop's GPU reads
 * x16 16 GT/s (pp_dpm_pcie) while the on-card switch's upstream port (the
 * slot) and the root port run x8: limited, at 0000:84:00.0. mi300x-node's
 * GPUs sit on x16 Gen5 hops: not limited. A GPU address with no PCI path is
 * unknown with the reason, never 0. */
static void path_of(const char *fixture, const char *bdf, struct tel_sample *s)
{
    struct strlist bdfs = STRLIST_INIT;
    strlist_add(&bdfs, bdf);
    CHECK(rootfs_init(fixture) == 0);
    struct tel *t = tel_open(&bdfs, 0, 0);
    tel_sample(t, s);
    tel_close(t);
    strlist_release(&bdfs);
}

static void test_pcie_path(void)
{
    struct tel_sample s;
    path_of(RX7900_ROOT, RX7900_GPU, &s);
    const struct tel_gpu *g = &s.gpus[0];
    CHECK(g->src[TEL_PCIE_WIDTH] && g->v[TEL_PCIE_WIDTH] == 16);
    check_rx7900_path(g);
    tel_sample_release(&s);

    path_of("tests/fixtures/mi300x-node/root", "0000:05:00.0", &s);
    g = &s.gpus[0];
    CHECK(g->src[TEL_PCIE_PATH_WIDTH] && g->v[TEL_PCIE_PATH_WIDTH] == 16);
    CHECK(g->src[TEL_PCIE_PATH_GTS] && g->v[TEL_PCIE_PATH_GTS] == 32);
    CHECK(g->src[TEL_PCIE_PATH_LIMITED] && g->v[TEL_PCIE_PATH_LIMITED] == 0);
    CHECK(g->path_hop[0] != '\0');
    tel_sample_release(&s);

    path_of("tests/fixtures/mi300x-node/root", "0000:ff:00.0", &s);
    g = &s.gpus[0];
    CHECK(!g->src[TEL_PCIE_PATH_WIDTH] && strstr(g->why[TEL_PCIE_PATH_WIDTH], "PCIe path"));
    CHECK(!g->src[TEL_PCIE_PATH_LIMITED] && g->path_hop[0] == '\0');
    tel_sample_release(&s);
}

/* a synthetic gpu_metrics v1_6 (the layout that stayed upstream) written at
 * the offsets tests/data/kernel/gpu_metrics_layouts.txt holds from the
 * kernel's struct: no real v1_6+ capture is public (tests/data/kernel/README) */
static void put_le(unsigned char *b, size_t off, unsigned bytes, uint64_t v)
{
    for (unsigned i = 0; i < bytes; i++)
        b[off + i] = (unsigned char)(v >> (8 * i));
}

static void write_v1_6(const char *root, uint32_t acc, uint32_t socket_thm, uint32_t ppt,
                       uint64_t replays, uint64_t recov)
{
    unsigned char b[1664] = {0};
    put_le(b, 0, 2, sizeof(b));
    b[2] = 1, b[3] = 6;
    put_le(b, 32, 4, acc);        /* accumulation_counter */
    put_le(b, 36, 4, 0);          /* prochot_residency_acc */
    put_le(b, 40, 4, ppt);        /* ppt_residency_acc */
    put_le(b, 44, 4, socket_thm); /* socket_thm_residency_acc */
    put_le(b, 48, 4, 0xffffffff); /* vr_thm_residency_acc: not provided */
    put_le(b, 96, 8, recov);      /* pcie_l0_to_recov_count_acc */
    put_le(b, 104, 8, replays);   /* pcie_replay_count_acc */
    for (int x = 0; x < 8; x++)   /* current_gfxclk[8]: XCD 5 slower */
        put_le(b, 264 + 2 * x, 2, x == 5 ? 1900 : 2100);
    char *path = xasprintf("%s" GPU_DIR "/gpu_metrics", root);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, sizeof(b), f) == sizeof(b));
    if (f)
        fclose(f);
    free(path);
}

/* the counters of gpu_metrics reach the sample, a field the revision lacks
 * or does not provide is unknown naming it, and the monitor's res cell is
 * the growth between two rows */
static void test_counters(void)
{
    char root[] = "/tmp/rvd-tel-XXXXXX";
    if (rx7900_root(root))
        return;
    struct strlist bdfs = STRLIST_INIT;
    struct tel *t = rx7900_tel(&bdfs, 0);
    struct tel_sample a, b;
    write_v1_6(root, 1000, 40, 900, 7, 2);
    tel_sample(t, &a);
    const struct tel_gpu *g = &a.gpus[0];
    CHECK(g->src[TEL_THR_ACC] && g->v[TEL_THR_ACC] == 1000);
    CHECK(g->v[TEL_THR_SOCKET_THM] == 40 && g->v[TEL_THR_PPT] == 900);
    CHECK(g->src[TEL_THR_PROCHOT] && g->v[TEL_THR_PROCHOT] == 0); /* a real 0 */
    CHECK(!g->src[TEL_THR_VR_THM] && strstr(g->why[TEL_THR_VR_THM], "vr_thm_residency_acc"));
    CHECK(!g->src[TEL_THR_SPL] && strstr(g->why[TEL_THR_SPL], "gpu_metrics 1.6: no "));
    CHECK(g->v[TEL_PCIE_REPLAY_ACC] == 7 && g->v[TEL_PCIE_L0_RECOV] == 2);
    CHECK(g->src[TEL_XCD_SCLK_MIN_MHZ] && g->v[TEL_XCD_SCLK_MIN_MHZ] == 1900);
    CHECK(!g->src[TEL_TEMP_HBM_MAX_C] && strstr(g->why[TEL_TEMP_HBM_MAX_C], "temperature_hbm"));
    /* the slot's link: the on-card switch's upstream port, x8 in this fixture */
    CHECK(g->src[TEL_LINK_SLOT_WIDTH] && g->v[TEL_LINK_SLOT_WIDTH] == 8);
    CHECK(g->v[TEL_LINK_SLOT_GTS] == 16);
    char cell[64];
    tel_residency_cell(NULL, g, cell, sizeof(cell));
    CHECK_STR(cell, "-"); /* the first row has no interval */
    /* 100 accumulations later: socket thermal 12 of them, PPT 30 */
    write_v1_6(root, 1100, 52, 930, 9, 2);
    tel_sample(t, &b);
    tel_residency_cell(g, &b.gpus[0], cell, sizeof(cell));
    CHECK_STR(cell, "thm:12%,ppt:30%");
    tel_residency_cell(&b.gpus[0], &b.gpus[0], cell, sizeof(cell));
    CHECK_STR(cell, "none");
    tel_sample_release(&b);
    /* the real v1_3 capture: no residency counters, the reason names them */
    copy_real_v1_3(root);
    tel_sample(t, &b);
    CHECK(!b.gpus[0].src[TEL_THR_PPT]);
    CHECK(strstr(b.gpus[0].why[TEL_THR_PPT], "gpu_metrics 1.3: no ppt_residency_acc"));
    CHECK(!b.gpus[0].src[TEL_PCIE_REPLAY_ACC]);
    tel_residency_cell(&b.gpus[0], &b.gpus[0], cell, sizeof(cell));
    CHECK_STR(cell, "-");
    /* the table: a res column between pcie and the throttle reasons */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    struct tel_table tt = TEL_TABLE_INIT;
    tel_write_table(mem, &tt, &a);
    tel_write_table(mem, &tt, &b);
    fclose(mem);
    CHECK(buf && strstr(buf, " pcie res ") && strstr(buf, "%acc"));
    tel_table_release(&tt);
    free(buf);
    tel_sample_release(&a);
    tel_sample_release(&b);
    rx7900_done(root, t, &bdfs);
}

int main(void)
{
    test_pcie_path();
    test_dpm_real();
    test_dpm_pcie_real();
    test_fdinfo();
    test_sampler();
    test_absent_files();
    test_energy();
    test_counters();
    return test_report();
}
