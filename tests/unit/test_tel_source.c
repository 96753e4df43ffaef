/* test_tel_source.c - a new telemetry source is one file and one table line
 * (tel_source.h): a test-only source beside amdgpu's sysfs on the
 * rx7900xtx-desktop fixture, in a table of two lines, adds its 2 GPUs (one
 * at a PCI address, one whose address it cannot tell) with its values, its
 * unknown reasons (never 0) and its processes; its third device, at the
 * address the AMD list holds, is left out (never one GPU twice). An
 * overlay (a vendor library's kind) writes only what it reads onto the GPU
 * at its address, adds no GPU, and is not opened when vendor libraries are
 * not allowed. gpu_enumerate lists the fixture's GPU as tel_list_amd gives
 * it to the sampler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/gpu_enum.h"
#include "../../src/core/rootfs.h"
#include "../../src/core/util.h"
#include "../../src/telemetry/monitor.h"
#include "../../src/telemetry/tel_source.h"
#include "test.h"

#define AMD "0000:86:00.0" /* the fixture's GPU */

/* ---- the test-only source: 3 devices, the first at AMD's address ---- */

struct fake {
    int closed;
};
static struct fake fake_state;
static double fake_recheck = -1;
static const char *const fake_pci[] = {AMD, "0000:0a:00.0", ""};

static void *fake_open(const struct strlist *amd_bdfs, char *status, size_t n)
{
    (void)amd_bdfs;
    snprintf(status, n, "fake: %zu device(s)", ARRAY_SIZE(fake_pci));
    fake_state.closed = 0;
    return &fake_state;
}
static size_t fake_count(void *st)
{
    (void)st;
    return ARRAY_SIZE(fake_pci);
}
static const char *fake_pci_of(void *st, size_t i)
{
    (void)st;
    return fake_pci[i];
}
static void fake_sample(void *st, size_t i, struct tel_gpu *g, const struct tel_src_ctx *c)
{
    (void)st;
    fake_recheck = c->recheck_s;
    for (int k = 0; k < TEL_NKEYS; k++)
        tel_gpu_unknown(g, (enum tel_key)k, "fake: %s not read", tel_key_name((enum tel_key)k));
    tel_gpu_set(g, TEL_POWER_W, 100.0 + (double)i, "fake");
    snprintf(g->throttle_why, sizeof(g->throttle_why), "fake: no throttle bits");
}
static int fake_processes(void *st, struct tel_sample *s, size_t *cap, const int *gpu)
{
    (void)st;
    if (gpu[1] >= 0) {
        struct tel_proc *p = tel_proc_add(s, cap, 4242, gpu[1], "fakeproc");
        p->src = "fake";
        p->vram_bytes = 1 << 20;
    }
    if (gpu[2] >= 0) /* a list the source cannot read: unknown, not empty */
        snprintf(s->gpus[gpu[2]].procs_why, sizeof(s->gpus[0].procs_why), "fake: list unknown");
    return 0;
}
static void fake_close(void *st)
{
    ((struct fake *)st)->closed = 1;
}

static const struct tel_source_ops fake = {
    .name = "fake",
    .vendor = "nvidia",
    .open = fake_open,
    .count = fake_count,
    .pci = fake_pci_of,
    .sample = fake_sample,
    .processes = fake_processes,
    .close = fake_close,
};

/* ---- an overlay: one device at AMD's address, one elsewhere ---- */

static const char *const over_pci[] = {"0000:0b:00.0", AMD};
static void *over_open(const struct strlist *amd_bdfs, char *status, size_t n)
{
    (void)amd_bdfs;
    snprintf(status, n, "overlay open");
    return &fake_state;
}
static size_t over_count(void *st)
{
    (void)st;
    return ARRAY_SIZE(over_pci);
}
static const char *over_pci_of(void *st, size_t i)
{
    (void)st;
    return over_pci[i];
}
static void over_sample(void *st, size_t i, struct tel_gpu *g, const struct tel_src_ctx *c)
{
    (void)st;
    (void)c;
    tel_gpu_set(g, TEL_FAN_PCT, 40.0 + (double)i, "overlay");
}
static void over_close(void *st)
{
    (void)st;
}

static const struct tel_source_ops overlay = {
    .name = "overlay",
    .vendor = "amd",
    .vendor_lib = 1,
    .overlay = 1,
    .open = over_open,
    .count = over_count,
    .pci = over_pci_of,
    .sample = over_sample,
    .close = over_close,
};

static int gpu_at(const struct tel_sample *s, const char *key)
{
    for (size_t i = 0; i < s->ngpu; i++)
        if (!strcmp(s->gpus[i].pci, key))
            return (int)i;
    return -1;
}

/* every key of every GPU is read with a source or unknown with a reason */
static void check_never_silent(const struct tel_sample *s)
{
    for (size_t i = 0; i < s->ngpu; i++)
        for (int k = 0; k < TEL_NKEYS; k++)
            if (!s->gpus[i].src[k] && !s->gpus[i].why[k][0]) {
                fprintf(stderr, "GPU %s: %s neither read nor unknown\n", s->gpus[i].pci,
                        tel_key_name((enum tel_key)k));
                CHECK(0);
            }
}

static void test_new_source(const struct strlist *bdfs)
{
    /* the one line that adds the source */
    static const struct tel_source_ops *const table[] = {&tel_src_sysfs, &fake};
    struct tel *t = tel_open_sources(table, ARRAY_SIZE(table), bdfs, 0, 1);
    CHECK_STR(tel_source_status(t, "fake"), "fake: 3 device(s)");
    CHECK(tel_source_status(t, "nvml") == NULL); /* not in this table */
    tel_set_recheck(t, 7.5);
    struct tel_sample s;
    tel_sample(t, &s);
    CHECK(fake_recheck == 7.5);
    /* the AMD GPU, then the fake's devices 1 and 2; device 0 is the AMD GPU */
    CHECK(s.ngpu == 3);
    int a = gpu_at(&s, AMD), f1 = gpu_at(&s, "0000:0a:00.0"), f2 = gpu_at(&s, "fake:2");
    CHECK(a == 0 && f1 == 1 && f2 == 2);
    if (a != 0 || f1 != 1 || f2 != 2) {
        tel_sample_release(&s);
        tel_close(t);
        return;
    }
    CHECK_STR(s.gpus[a].vendor, "amd");
    CHECK_STR(s.gpus[a].src[TEL_VRAM_USED_B], "mem_info_vram_used"); /* sysfs, not the fake's */
    CHECK_STR(s.gpus[f1].vendor, "nvidia");
    CHECK_STR(s.gpus[f1].src[TEL_POWER_W], "fake");
    CHECK(s.gpus[f1].v[TEL_POWER_W] == 101.0 && s.gpus[f2].v[TEL_POWER_W] == 102.0);
    /* its unknowns keep their reasons */
    CHECK(!s.gpus[f1].src[TEL_SCLK_MHZ]);
    CHECK_STR(s.gpus[f1].why[TEL_SCLK_MHZ], "fake: sclk_mhz not read");
    /* an address: the sampler walks the path (not in the fixture: unknown, why) */
    CHECK(!s.gpus[f1].src[TEL_PCIE_PATH_WIDTH] &&
          strstr(s.gpus[f1].why[TEL_PCIE_PATH_WIDTH], "PCIe path") != NULL);
    /* no address: the path is the source's own reason */
    CHECK_STR(s.gpus[f2].why[TEL_PCIE_PATH_WIDTH], "fake: pcie_path_width not read");
    check_never_silent(&s);
    /* its processes, on its GPUs */
    CHECK(s.nproc == 1 && s.procs[0].pid == 4242 && s.procs[0].gpu == f1);
    CHECK(s.procs[0].vram_bytes == 1 << 20);
    CHECK_STR(s.procs[0].src, "fake");
    struct strbuf d = STRBUF_INIT;
    tel_proc_describe(&s, f2, &d);
    CHECK_STR(d.buf, "users: ? (fake: list unknown)");
    strbuf_release(&d);
    tel_sample_release(&s);

    /* the dashboard's list: the same GPUs and processes, no values */
    CHECK(tel_sample_procs(t, &s) == 0);
    CHECK(s.ngpu == 3 && s.nproc == 1 && s.procs[0].gpu == 1);
    CHECK_STR(s.gpus[2].pci, "fake:2");
    CHECK(!s.gpus[1].src[TEL_POWER_W]);
    tel_sample_release(&s);

    char key[24];
    CHECK(tel_gpu_key(t, "0000:0A:00.0", key, sizeof(key)) && !strcmp(key, "0000:0a:00.0"));
    CHECK(tel_gpu_key(t, "0000:0c:00.0", key, sizeof(key)) == NULL);
    tel_close(t);
    CHECK(fake_state.closed == 1);
}

static void test_overlay(const struct strlist *bdfs)
{
    static const struct tel_source_ops *const table[] = {&tel_src_sysfs, &overlay};
    struct tel_sample s;
    /* vendor libraries allowed: the overlay's value wins, nothing added */
    struct tel *t = tel_open_sources(table, ARRAY_SIZE(table), bdfs, 1, 0);
    CHECK_STR(tel_source_status(t, "overlay"), "overlay open");
    tel_sample(t, &s);
    CHECK(s.ngpu == 1);
    CHECK_STR(s.gpus[0].src[TEL_FAN_PCT], "overlay");
    CHECK(s.gpus[0].v[TEL_FAN_PCT] == 41.0); /* its device 1, by address */
    CHECK_STR(s.gpus[0].src[TEL_VRAM_USED_B], "mem_info_vram_used");
    check_never_silent(&s);
    tel_sample_release(&s);
    tel_close(t);

    /* not allowed (--sysroot): never opened, sysfs alone */
    t = tel_open_sources(table, ARRAY_SIZE(table), bdfs, 0, 0);
    CHECK_STR(tel_source_status(t, "overlay"), "not asked");
    tel_sample(t, &s);
    CHECK(s.ngpu == 1 && !strcmp(s.gpus[0].src[TEL_FAN_PCT], "hwmon"));
    tel_sample_release(&s);
    tel_close(t);

    /* no GPU listed before it: nothing to overlay, not opened */
    t = tel_open_sources(table, ARRAY_SIZE(table), NULL, 1, 0);
    CHECK_STR(tel_source_status(t, "overlay"), "not asked");
    tel_sample(t, &s);
    CHECK(s.ngpu == 0);
    tel_sample_release(&s);
    tel_close(t);
}

static void test_enumerate(struct strlist *bdfs)
{
    struct gpu_enum e;
    CHECK(gpu_enumerate(&e) == 0);
    size_t amd = 0;
    for (size_t i = 0; i < e.n; i++) {
        CHECK((e.v[i].cls >> 16) == 0x03 || (e.v[i].cls >> 16) == 0x12);
        amd += e.v[i].vendor == PCI_VENDOR_AMD;
    }
    CHECK(amd == 1);
    gpu_enum_release(&e);
    tel_list_amd(bdfs);
    CHECK(bdfs->n == 1 && !strcmp(bdfs->v[0], AMD));
}

int main(void)
{
    CHECK(rootfs_init("tests/fixtures/rx7900xtx-desktop/root") == 0);
    struct strlist bdfs = STRLIST_INIT;
    test_enumerate(&bdfs);
    if (bdfs.n == 1) {
        test_new_source(&bdfs);
        test_overlay(&bdfs);
    }
    strlist_release(&bdfs);
    rootfs_release();
    /* a root without /sys/bus/pci/devices: the error, nothing listed */
    CHECK(rootfs_init("tests/fixtures") == 0);
    struct gpu_enum e;
    CHECK(gpu_enumerate(&e) < 0 && e.n == 0);
    rootfs_release();
    return test_report();
}
