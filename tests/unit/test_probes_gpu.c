/* test_probes_gpu.c - the gpu and pcie probes on sysroot trees built in a
 * temp dir from the real captures in tests/data/fixtures-real (copied, NUL
 * padding and all), with crafted PCI config spaces for the AtomicOp bits;
 * plus the pure decoders (gfx names, families, override syntax, link text)
 * and one run on the live machine. */
#include "../../probes/gpu_pci.h"
#include "sysroot_tree.h"
#include "test.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/header.h>

int probe_env_run(struct probe_ctx *ctx);
int probe_gpu_run(struct probe_ctx *ctx);
int probe_pcie_run(struct probe_ctx *ctx);

/* the captures (a committed copy of ../shared/fixtures-real); RVD_FIXTURES_REAL
 * points elsewhere */
static const char *real(const char *rel)
{
    static char ring[4][512];
    static int k;
    const char *base = getenv("RVD_FIXTURES_REAL");
    char *b = ring[k++ % 4];
    snprintf(b, sizeof(ring[0]), "%s/%s", base ? base : "tests/data/fixtures-real", rel);
    return b;
}
#define RX7900 real("amdgpu-sysfs-rs/rx7900xt")
#define RX6900 real("amdgpu-sysfs-rs/rx6900xt")
#define RX6900_CONFIG real("amdgpu-sysfs-rs/rx6900xt/config")
#define KFD1100 real("kfd-topology/gfx1100-rx7900xtx/properties")

/* ---- sysroot helpers ------------------------------------------------------ */

static struct factset fs = FACTSET_INIT;
static struct probe_opts opts = {0};
static struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};

static const char *at(const char *dir, const char *file)
{
    static char ring[4][320];
    static int k;
    char *b = ring[k++ % 4];
    snprintf(b, sizeof(ring[0]), "/sys/devices/%s/%s", dir, file);
    return b;
}

static void rm(const char *rel)
{
    char *path = xasprintf("%s%s", root, rel);
    unlink(path);
    free(path);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
        exit(2);
    }
    struct strbuf sb = STRBUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        strbuf_add(&sb, chunk, n);
    fclose(f);
    if (!sb.buf)
        strbuf_add(&sb, "", 0);
    *len = sb.len;
    return strbuf_detach(&sb);
}

/* copy a capture directory (regular files and subdirectories) under rel */
static const char *copy_src, *copy_dst;
static int copy_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag != FTW_F)
        return 0;
    char *rel = xasprintf("%s%s", copy_dst, p + strlen(copy_src));
    size_t len;
    char *buf = slurp(p, &len);
    put_bin(rel, buf, len);
    free(buf);
    free(rel);
    return 0;
}

static void copy_tree(const char *src, const char *dst_rel)
{
    copy_src = src;
    copy_dst = dst_rel;
    nftw(src, copy_cb, 16, FTW_PHYS);
}

static void fresh(void)
{
    tree_fresh("gpu");
    factset_release(&fs);
}

/* env first (the override is read through probe_getenv), then gpu, pcie */
static void run_probes(void)
{
    factset_release(&fs);
    if (rootfs_init(root))
        exit(2);
    probe_env_run(&ctx);
    probe_gpu_run(&ctx);
    probe_pcie_run(&ctx);
}

static const struct fact *F(const char *name)
{
    return fact_get(&fs, name);
}

static int fbool(const char *name) /* 1, 0, -1 unknown, -2 missing/other type */
{
    const struct fact *f = F(name);
    if (!f)
        return -2;
    if (f->type == FACT_UNKNOWN)
        return -1;
    return f->type == FACT_BOOL ? f->b : -2;
}

static const char *fstr(const char *name)
{
    const struct fact *f = F(name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

static int64_t fint(const char *name)
{
    const struct fact *f = F(name);
    return f && f->type == FACT_INT ? f->i : -999;
}

static double fflt(const char *name)
{
    const struct fact *f = F(name);
    return f && f->type == FACT_FLOAT ? f->f : -999.0;
}

static int is_unknown(const char *name)
{
    const struct fact *f = F(name);
    return f && f->type == FACT_UNKNOWN;
}

static const char *reason(const char *name)
{
    const struct fact *f = F(name);
    return f && f->reason ? f->reason : "";
}

static int list_has(const char *name, const char *v)
{
    const struct fact *f = F(name);
    return f && f->type == FACT_LIST && strlist_has(&f->list, v);
}

static int list_n(const char *name)
{
    const struct fact *f = F(name);
    return f && f->type == FACT_LIST ? (int)f->list.n : -1;
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

/* ---- PCI devices ----------------------------------------------------------- */

/* a PCI device directory at /sys/devices/<path> with its /sys/bus/pci link */
static void pci_dev(const char *path, unsigned vendor, unsigned device, unsigned cls)
{
    const char *bdf = strrchr(path, '/') + 1;
    char lnk[96], tgt[256];
    putf(at(path, "vendor"), "0x%04x\n", vendor);
    putf(at(path, "device"), "0x%04x\n", device);
    putf(at(path, "class"), "0x%06x\n", cls);
    snprintf(lnk, sizeof(lnk), "/sys/bus/pci/devices/%s", bdf);
    snprintf(tgt, sizeof(tgt), "../../../devices/%s", path);
    put_link(lnk, tgt);
}

static void pci_link(const char *path, const char *cur, unsigned w, const char *max, unsigned mw)
{
    putf(at(path, "current_link_speed"), "%s GT/s PCIe\n", cur);
    putf(at(path, "current_link_width"), "%u\n", w);
    putf(at(path, "max_link_speed"), "%s GT/s PCIe\n", max);
    putf(at(path, "max_link_width"), "%u\n", mw);
}

/* A 256-byte config space: header and a PCIe capability (version 2) at 0x40
 * of the given port type with DevCap2 / DevCtl2. Header type 1 for bridges. */
static void pci_config(const char *path, unsigned vendor, unsigned device, unsigned type,
                       uint32_t devcap2, uint16_t devctl2)
{
    unsigned char c[256];
    memset(c, 0, sizeof(c));
    c[0] = vendor & 0xff, c[1] = vendor >> 8;
    c[2] = device & 0xff, c[3] = device >> 8;
    c[PCI_STATUS] = PCI_STATUS_CAP_LIST;
    c[PCI_HEADER_TYPE] = type == PCI_EXP_TYPE_ENDPOINT ? 0 : 1;
    c[PCI_CAPABILITY_LIST] = 0x40;
    c[0x40] = PCI_CAP_ID_EXP;
    c[0x41] = 0;
    c[0x42] = (unsigned char)(2 | type << 4);
    c[0x40 + PCI_EXP_DEVCAP2] = devcap2 & 0xff;
    c[0x40 + PCI_EXP_DEVCAP2 + 1] = (devcap2 >> 8) & 0xff;
    c[0x40 + PCI_EXP_DEVCTL2] = devctl2 & 0xff;
    c[0x40 + PCI_EXP_DEVCTL2 + 1] = devctl2 >> 8;
    put_bin(at(path, "config"), c, sizeof(c));
}

#define RP_COMP (PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP | PCI_EXP_DEVCAP2_64BIT_ATOMICOP_COMP)
#define ROUTE PCI_EXP_DEVCAP2_ATOMICOP_ROUTING

/* The RX 7900 machine: root port 80:01.1 -> on-card switch 84:00.0 (1478)
 * -> 85:00.0 (1479) -> GPU 86:00.0 (KFD location_id 34304 = 0x8600 in the
 * real node). The GPU directory is the real rx7900xt capture plus the
 * identity files that capture lacks. */
#define N31_RP "pci0000:80/0000:80:01.1"
#define N31_UP N31_RP "/0000:84:00.0"
#define N31_DN N31_UP "/0000:85:00.0"
#define N31_GPU N31_DN "/0000:86:00.0"

static void build_navi31(const char *slot_speed, unsigned slot_width, const char *root_max,
                         unsigned root_max_width)
{
    pci_dev(N31_RP, 0x1022, 0x14ab, 0x060400);
    pci_link(N31_RP, slot_speed, slot_width, root_max, root_max_width);
    pci_config(N31_RP, 0x1022, 0x14ab, PCI_EXP_TYPE_ROOT_PORT, RP_COMP, 0);
    pci_dev(N31_UP, 0x1002, 0x1478, 0x060400);
    pci_link(N31_UP, slot_speed, slot_width, "16.0", 16);
    pci_config(N31_UP, 0x1002, 0x1478, PCI_EXP_TYPE_UPSTREAM, ROUTE, 0);
    pci_dev(N31_DN, 0x1002, 0x1479, 0x060400);
    pci_link(N31_DN, "16.0", 16, "16.0", 16);
    pci_config(N31_DN, 0x1002, 0x1479, PCI_EXP_TYPE_DOWNSTREAM, ROUTE, 0);

    copy_tree(RX7900, "/sys/devices/" N31_GPU);
    pci_dev(N31_GPU, 0x1002, 0x744c, 0x030000);
    put("/sys/devices/" N31_GPU "/max_link_speed", "16.0 GT/s PCIe\n");
    put("/sys/devices/" N31_GPU "/max_link_width", "16\n");
    put("/sys/devices/" N31_GPU "/mem_info_vram_total", "25753026560\n");
    put("/sys/devices/" N31_GPU "/mem_info_vis_vram_total", "268435456\n");
    pci_config(N31_GPU, 0x1002, 0x744c, PCI_EXP_TYPE_ENDPOINT, 0,
               PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN);
    put("/sys/devices/" N31_GPU "/drm/card1/dev", "226:1\n");
    put("/sys/devices/" N31_GPU "/drm/renderD128/dev", "226:128\n");
    put_link("/sys/class/drm/card1", "../../devices/" N31_GPU "/drm/card1");

    /* KFD: node 0 the CPU, node 1 the real gfx1100 properties (local_mem_size 0) */
    put("/sys/class/kfd/kfd/topology/nodes/0/properties",
        "cpu_cores_count 16\nsimd_count 0\nmem_banks_count 1\nlocation_id 0\ndomain 0\n"
        "gfx_target_version 0\n");
    size_t len;
    char *props = slurp(KFD1100, &len);
    put_bin("/sys/class/kfd/kfd/topology/nodes/1/properties", props, len);
    free(props);
    put("/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties",
        "heap_type 1\nsize_in_bytes 25753026560\nflags 0\nwidth 384\nmem_clk_max 1249\n");
}

/* ---- pure decoders --------------------------------------------------------- */

static void test_decoders(void)
{
    char b[GP_GFX_NAME_MAX];
    static const struct {
        unsigned v;
        const char *name, *family;
    } tab[] = {
        {90010, "gfx90a", "cdna2"},   {90402, "gfx942", "cdna3"},   {100300, "gfx1030", "rdna2"},
        {110000, "gfx1100", "rdna3"}, {110001, "gfx1101", "rdna3"}, {120001, "gfx1201", "rdna4"},
        {90000, "gfx900", "gcn5"},    {90006, "gfx906", "gcn5"},    {90008, "gfx908", "cdna1"},
        {90500, "gfx950", "cdna4"},   {100100, "gfx1010", "rdna1"}, {100102, "gfx1012", "rdna1"},
        {90012, "gfx90c", "gcn5"},    {110501, "gfx1151", "rdna3"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(tab); i++) {
        gp_gfx_name(tab[i].v, b);
        CHECK_STR(b, tab[i].name);
        CHECK_STR(gp_gfx_family(tab[i].v), tab[i].family);
    }
    CHECK(gp_gfx_family(130000) == NULL);

    CHECK(gp_gfx_is_apu_target(90012) == 1);  /* gfx90c */
    CHECK(gp_gfx_is_apu_target(100305) == 1); /* gfx1035 */
    CHECK(gp_gfx_is_apu_target(110003) == 1); /* gfx1103 */
    CHECK(gp_gfx_is_apu_target(110500) == 1); /* gfx1150 */
    CHECK(gp_gfx_is_apu_target(110501) == 1); /* gfx1151 */
    CHECK(gp_gfx_is_apu_target(110000) == 0);
    CHECK(gp_gfx_is_apu_target(90010) == 0);

    CHECK(gp_gfx_needs_atomics(110000) == 1);
    CHECK(gp_gfx_needs_atomics(100300) == 1);
    CHECK(gp_gfx_needs_atomics(120001) == 1);
    CHECK(gp_gfx_needs_atomics(80003) == 1); /* Polaris */
    CHECK(gp_gfx_needs_atomics(90010) == 0); /* CDNA2 */
    CHECK(gp_gfx_needs_atomics(90402) == 0); /* CDNA3 */
    CHECK(gp_gfx_needs_atomics(90006) == 0); /* Vega20: kernel needs_pci_atomics false */
    CHECK(gp_gfx_needs_atomics(200000) == -1);

    unsigned v[3];
    CHECK(gp_gfx_override_parse("11.0.0", v) == 0 && v[0] == 11 && v[1] == 0 && v[2] == 0);
    CHECK(gp_gfx_override_parse("10.3.0", v) == 0 && v[0] == 10 && v[1] == 3);
    CHECK(gp_gfx_override_parse("9.0.10", v) == 0 && v[2] == 10);
    gp_gfx_name_parts(v[0], v[1], v[2], b);
    CHECK_STR(b, "gfx90a"); /* stepping is decimal in the variable, hex in the name */
    CHECK(gp_gfx_override_parse("11.0", v) == -EINVAL);
    CHECK(gp_gfx_override_parse("11.0.0x", v) == -EINVAL);
    CHECK(gp_gfx_override_parse("64.0.0", v) == -EINVAL);
    CHECK(gp_gfx_override_parse("11.256.0", v) == -EINVAL);
    CHECK(gp_gfx_override_parse("gfx1100", v) == -EINVAL);
    CHECK(gp_gfx_override_parse("", v) == -EINVAL);

    double g;
    unsigned w;
    CHECK(pci_link_speed_parse("16.0 GT/s PCIe", &g) == 0 && NEAR(g, 16.0));
    CHECK(pci_link_speed_parse("8 GT/s", &g) == 0 && NEAR(g, 8.0));
    CHECK(pci_link_speed_parse("2.5 GT/s PCIe", &g) == 0 && NEAR(g, 2.5));
    CHECK(pci_link_speed_parse("Unknown", &g) == -EINVAL);
    CHECK(gp_dpm_pcie_top("0: 2.5GT/s, x1 310Mhz \n1: 16.0GT/s, x16 619Mhz *\n", &g, &w) == 0 &&
          NEAR(g, 16.0) && w == 16);
    CHECK(gp_dpm_pcie_top("0: 2.5GT/s, x8 \n1: 8.0GT/s, x16 *\n", &g, &w) == 0 && NEAR(g, 8.0));
    CHECK(gp_dpm_pcie_top("garbage\n", &g, &w) == -EINVAL);

    struct pci_bdf a;
    CHECK(pci_bdf_parse("0000:86:00.0", &a) == 0 && a.bus == 0x86 &&
          gp_bdf_location_id(&a) == 34304);
    CHECK(pci_bdf_parse("0000:0c:1f.7", &a) == 0 && a.dev == 31 && a.fn == 7);
    CHECK(pci_bdf_parse("pci0000:80", &a) == -EINVAL);
    CHECK(pci_bdf_parse("0000:86:00.0x", &a) == -EINVAL);
}

/* ---- the RX 7900 machine ------------------------------------------------------ */

/* the active profile of pp_power_profile_mode, in each generation's
 * format (real captures), and cpulists as the kernel prints them */
static void test_power_numa_decoders(void)
{
    static const struct {
        const char *card, *want;
    } prof[] = {{"rx580", "3D_FULL_SCREEN"},
                {"vega56", "BOOTUP_DEFAULT"},
                {"rx9070xt", "3D_FULL_SCREEN"},
                {"rx7900xt", "BOOTUP_DEFAULT"}};
    char name[64], rel[128];
    for (size_t i = 0; i < ARRAY_SIZE(prof); i++) {
        size_t len;
        snprintf(rel, sizeof(rel), "amdgpu-sysfs-rs/%s/pp_power_profile_mode", prof[i].card);
        char *text = slurp(real(rel), &len);
        CHECK(gp_power_profile_parse(text, name, sizeof(name)) == 0);
        CHECK_STR(name, prof[i].want);
        free(text);
    }
    CHECK(gp_power_profile_parse("NUM MODE_NAME\n  0 BOOTUP_DEFAULT:\n", name, sizeof(name)) ==
          -ENOENT);
    CHECK(gp_power_profile_parse(" 0 *:\n", name, sizeof(name)) == -EINVAL);
    CHECK(gp_power_profile_parse("", name, sizeof(name)) == -ENOENT);
    CHECK(gp_power_profile_parse(" 0 BOOTUP_DEFAULT*:\n", name, 4) == -EINVAL);

    struct gp_cpus c, d;
    CHECK(gp_cpulist_parse("0-63,128-191\n", &c) == 0 && gp_cpus_count(&c) == 128);
    CHECK(gp_cpulist_parse("64-127,192-255\n", &d) == 0 && gp_cpus_common(&c, &d) == 0);
    CHECK(gp_cpulist_parse("5\n", &d) == 0 && gp_cpus_count(&d) == 1 &&
          gp_cpus_common(&c, &d) == 1);
    CHECK(gp_cpulist_parse("\n", &d) == 0 && gp_cpus_count(&d) == 0); /* a memory-only node */
    CHECK(gp_cpulist_parse("8191\n", &d) == 0 && gp_cpus_count(&d) == 1);
    CHECK(gp_cpulist_parse("8192\n", &d) == -ERANGE);
    CHECK(gp_cpulist_parse("0-8192\n", &d) == -ERANGE);
    static const char *const badlists[] = {
        "3-1", "a", "1,", "-1", "1-", "1 2", "1,,2", "+1", "99999999999999999999"};
    for (size_t i = 0; i < ARRAY_SIZE(badlists); i++)
        CHECK(gp_cpulist_parse(badlists[i], &d) == -EINVAL ||
              gp_cpulist_parse(badlists[i], &d) == -ERANGE);
}

static void test_navi31(void)
{
    /* an x16 card in a slot that trained (or is wired) x8 */
    fresh();
    build_navi31("16.0", 8, "16.0", 8);
    run_probes();
    CHECK(fint("gpu.count") == 1);
    CHECK_STR(fstr("gpu.names"), "gfx1100 [1002:744c] at 0000:86:00.0");
    CHECK(list_n("gpu.other") == 0);
    CHECK(list_n("gpu.other_links") == 0);
    CHECK_STR(fstr("gpu.0.pci"), "0000:86:00.0");
    CHECK_STR(fstr("gpu.0.device_id"), "0x744c");
    CHECK(fint("gpu.0.kfd_node") == 1);
    CHECK(fint("gpu.0.gfx_target_version") == 110000);
    CHECK_STR(fstr("gpu.0.gfx"), "gfx1100");
    CHECK_STR(fstr("gpu.0.family"), "rdna3");
    CHECK(fbool("gpu.0.is_apu") == 0);
    CHECK(fbool("gpu.0.needs_atomics") == 1);
    CHECK(fint("gpu.0.cu_count") == 96);
    CHECK(fbool("gpu.0.svm_capable") == 1); /* capability 671588992 has bit 27 */
    CHECK(fint("gpu.0.render_minor") == 128);
    CHECK_STR(fstr("gpu.0.drm_card"), "card1");
    /* local_mem_size reads 0 in the real node: VRAM comes from mem_info */
    CHECK(fint("gpu.0.vram_bytes") == 25753026560LL);
    CHECK(str_ends(F("gpu.0.vram_bytes")->source, "mem_info_vram_total"));
    CHECK(fint("gpu.0.vram_kfd_bytes") == 25753026560LL);
    CHECK(fint("gpu.0.vis_vram_bytes") == 268435456); /* small BAR */
    CHECK(fint("gpu.0.busy_percent") == 3);
    CHECK_STR(fstr("gpu.0.vbios"), "113-D70401XT-N11");
    /* the capture has no power_dpm_force_performance_level: unknown, not "" */
    CHECK(is_unknown("gpu.0.perf_level"));
    CHECK(strstr(reason("gpu.0.perf_level"), "not present") != NULL);
    CHECK(NEAR(fflt("gpu.0.temp_edge_c"), 53.0));
    CHECK(NEAR(fflt("gpu.0.temp_junction_c"), 61.0));
    CHECK(NEAR(fflt("gpu.0.temp_mem_c"), 68.0));
    /* each sensor's own limit (temp*_crit): mem's is not junction's */
    CHECK(NEAR(fflt("gpu.0.temp_edge_limit_c"), 100.0));
    CHECK(NEAR(fflt("gpu.0.temp_junction_limit_c"), 110.0));
    CHECK(NEAR(fflt("gpu.0.temp_mem_limit_c"), 108.0));
    CHECK(str_ends(F("gpu.0.temp_mem_limit_c")->source, "temp3_crit"));
    CHECK(list_has("gpu.0.temp_sensors", "mem 68 °C (limit 108 °C)"));
    CHECK(NEAR(fflt("gpu.0.power_w"), 68.0));
    /* the capture's hwmon limits (microwatts) and active profile */
    CHECK(NEAR(fflt("gpu.0.power_cap_w"), 290.0));
    CHECK(NEAR(fflt("gpu.0.power_cap_default_w"), 290.0));
    CHECK(NEAR(fflt("gpu.0.power_cap_max_w"), 333.0));
    CHECK_STR(fstr("gpu.0.power_profile"), "BOOTUP_DEFAULT");
    /* no NUMA data in this tree: unknown, never node 0 */
    CHECK(is_unknown("gpu.0.numa_node"));
    CHECK(is_unknown("host.numa_nodes"));
    CHECK(is_unknown("gpu.0.numa_allowed_cpus"));
    CHECK(fbool("gpu.0.ras_present") == 0);
    CHECK(is_unknown("gpu.0.ras_ue"));
    /* no override in the environment */
    CHECK_STR(fstr("gpu.0.gfx_override"), "");
    CHECK(fbool("gpu.0.gfx_override_set") == 0);
    CHECK(fbool("gpu.0.gfx_override_valid") == 1);
    CHECK_STR(fstr("gpu.0.gfx_claimed"), "gfx1100");
    CHECK(fbool("gpu.0.gfx_override_major_differs") == 0);

    /* link: the x8 is seen at the on-card switch's upstream port */
    CHECK(fint("gpu.0.link.hop_count") == 4);
    CHECK(list_has("gpu.0.link.hops", "0000:84:00.0 [1002:1478] 16.0 GT/s x8 (max 16.0 GT/s x16)"));
    CHECK(
        list_has("gpu.0.link.hops", "0000:86:00.0 [1002:744c] 16.0 GT/s x16 (max 16.0 GT/s x16)"));
    CHECK(fint("gpu.0.link.width") == 8);
    CHECK(fint("gpu.0.link.max_width") == 16);
    CHECK_STR(fstr("gpu.0.link.narrowest_hop"), "0000:84:00.0 [1002:1478]");
    CHECK_STR(fstr("gpu.0.link.slot"), "0000:84:00.0 [1002:1478] 16.0 GT/s x8 (max 16.0 GT/s x16)");
    CHECK(NEAR(fflt("gpu.0.link.speed_gts"), 16.0));
    CHECK(NEAR(fflt("gpu.0.link.max_speed_gts"), 16.0));
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 16.0));

    /* atomics: crafted config spaces, everything in order */
    CHECK(fbool("gpu.0.atomics.requester_enabled") == 1);
    CHECK(fbool("gpu.0.atomics.path_ok") == 1);
    CHECK_STR(fstr("gpu.0.atomics.missing_at"), "");

    /* NUMA: a two-node host, the GPU on node 1; the process on node 0
     * only, then on both; numa_node -1 on one node and on two */
    fresh();
    build_navi31("16.0", 16, "16.0", 16);
    put("/sys/devices/system/node/node0/cpulist", "0-7\n");
    put("/sys/devices/system/node/node1/cpulist", "8-15\n");
    put("/sys/devices/system/node/possible", "0-1\n"); /* not a node<N> directory */
    put("/sys/devices/" N31_GPU "/numa_node", "1\n");
    put("/.snapshot/cpu-affinity", "0-7\n");
    run_probes();
    CHECK(fint("host.numa_nodes") == 2);
    CHECK_STR(fstr("host.cpus_allowed"), "0-7");
    CHECK(fint("host.cpus_allowed_count") == 8);
    CHECK(fint("gpu.0.numa_node") == 1);
    CHECK_STR(fstr("gpu.0.numa_node_cpus"), "8-15");
    CHECK(fint("gpu.0.numa_allowed_cpus") == 0);
    put("/.snapshot/cpu-affinity", "0-15\n");
    run_probes();
    CHECK(fint("gpu.0.numa_allowed_cpus") == 8);
    put("/sys/devices/" N31_GPU "/numa_node", "-1\n");
    run_probes();
    CHECK(is_unknown("gpu.0.numa_node") && is_unknown("gpu.0.numa_allowed_cpus"));
    rm("/sys/devices/system/node/node1/cpulist");
    char *node1 = xasprintf("%s/sys/devices/system/node/node1", root);
    rmdir(node1);
    free(node1);
    run_probes();
    CHECK(fint("host.numa_nodes") == 1);
    CHECK(is_unknown("gpu.0.numa_node"));        /* -1 stays unknown */
    CHECK(fint("gpu.0.numa_allowed_cpus") == 8); /* one node: the GPU is on it */
    put("/.snapshot/cpu-affinity", "garbage\n");
    run_probes();
    CHECK(is_unknown("host.cpus_allowed") && is_unknown("gpu.0.numa_allowed_cpus"));

    /* idle: the slot link downclocked to 2.5 GT/s, pp_dpm_pcie's top is 16 */
    fresh();
    build_navi31("2.5", 16, "16.0", 16);
    run_probes();
    CHECK(fint("gpu.0.link.width") == 16);
    CHECK(fint("gpu.0.link.max_width") == 16);
    CHECK(NEAR(fflt("gpu.0.link.speed_gts"), 2.5));
    CHECK(NEAR(fflt("gpu.0.link.max_speed_gts"), 16.0));
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 16.0));
    CHECK_STR(fstr("gpu.0.link.slowest_hop"), "0000:84:00.0 [1002:1478]");

    /* a Gen5 card in a Gen4 slot: its top DPM level (32) trains to the
     * slot's 16 GT/s, not to the idle 2.5 */
    put("/sys/devices/" N31_GPU "/pp_dpm_pcie",
        "0: 2.5GT/s, x16 78Mhz *\n1: 32.0GT/s, x16 619Mhz \n");
    run_probes();
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 16.0));
    CHECK(strstr(F("gpu.0.link.reachable_speed_gts")->source, "max_link_speed") != NULL);

    /* idle without pp_dpm_pcie: cannot tell downclock from a slow slot */
    rm("/sys/devices/" N31_GPU "/pp_dpm_pcie");
    run_probes();
    CHECK(is_unknown("gpu.0.link.reachable_speed_gts"));

    /* a Gen3 platform: the card's top DPM level is 8 GT/s, below its max */
    fresh();
    build_navi31("8.0", 16, "8.0", 16);
    put("/sys/devices/" N31_GPU "/pp_dpm_pcie",
        "0: 2.5GT/s, x16 78Mhz \n1: 8.0GT/s, x16 619Mhz *\n");
    run_probes();
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 8.0));
    CHECK(NEAR(fflt("gpu.0.link.max_speed_gts"), 16.0));

    /* idle behind a Gen3 root port: the top DPM level (16) is capped by the
     * slowest hop's maximum, 8 GT/s, which the source names */
    fresh();
    build_navi31("2.5", 16, "8.0", 16);
    run_probes();
    CHECK(NEAR(fflt("gpu.0.link.speed_gts"), 2.5));
    CHECK(NEAR(fflt("gpu.0.link.max_speed_gts"), 16.0));
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 8.0));
    CHECK(strstr(F("gpu.0.link.reachable_speed_gts")->source, "0000:80:01.1/max_link_speed") !=
          NULL);

    /* a Gen5 root port with this Gen4 card is not a slow link */
    fresh();
    build_navi31("16.0", 16, "32.0", 16);
    run_probes();
    CHECK(NEAR(fflt("gpu.0.link.max_speed_gts"), 16.0));
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 16.0));
    CHECK(
        list_has("gpu.0.link.hops", "0000:80:01.1 [1022:14ab] 16.0 GT/s x16 (max 32.0 GT/s x16)"));

    /* VRAM from the KFD banks when mem_info is missing; unknown without both */
    rm("/sys/devices/" N31_GPU "/mem_info_vram_total");
    run_probes();
    CHECK(fint("gpu.0.vram_bytes") == 25753026560LL);
    CHECK(str_ends(F("gpu.0.vram_bytes")->source, "mem_banks"));
    rm("/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties");
    run_probes();
    CHECK(is_unknown("gpu.0.vram_bytes"));

    /* root port without a 64-bit completer (a chipset port, say) */
    fresh();
    build_navi31("16.0", 16, "16.0", 16);
    pci_config(N31_RP, 0x1022, 0x14ab, PCI_EXP_TYPE_ROOT_PORT, PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP,
               0);
    run_probes();
    CHECK(fbool("gpu.0.atomics.path_ok") == 0);
    CHECK_STR(fstr("gpu.0.atomics.missing_at"), "0000:80:01.1 (root port: no 64-bit completer)");
    CHECK(fbool("gpu.0.atomics.requester_enabled") == 1);

    /* a switch port that does not route them, and a GPU without requests */
    pci_config(N31_RP, 0x1022, 0x14ab, PCI_EXP_TYPE_ROOT_PORT, RP_COMP, 0);
    pci_config(N31_DN, 0x1002, 0x1479, PCI_EXP_TYPE_DOWNSTREAM, 0, 0);
    pci_config(N31_GPU, 0x1002, 0x744c, PCI_EXP_TYPE_ENDPOINT, 0, 0);
    run_probes();
    CHECK(fbool("gpu.0.atomics.path_ok") == 0);
    CHECK_STR(fstr("gpu.0.atomics.missing_at"),
              "0000:85:00.0 (switch downstream port: no AtomicOp routing)");
    CHECK(fbool("gpu.0.atomics.requester_enabled") == 0);

    /* egress blocking on the upstream port; a GPU function that is not PCIe */
    pci_config(N31_DN, 0x1002, 0x1479, PCI_EXP_TYPE_DOWNSTREAM, ROUTE, 0);
    pci_config(N31_UP, 0x1002, 0x1478, PCI_EXP_TYPE_UPSTREAM, ROUTE,
               PCI_EXP_DEVCTL2_ATOMICOP_EGRESS_BLOCK);
    {
        unsigned char c[256];
        memset(c, 0, sizeof(c));
        c[0] = 0x02, c[1] = 0x10, c[2] = 0x4c, c[3] = 0x74;
        put_bin("/sys/devices/" N31_GPU "/config", c, sizeof(c));
    }
    run_probes();
    CHECK_STR(fstr("gpu.0.atomics.missing_at"),
              "0000:84:00.0 (switch upstream port: AtomicOp egress blocking on), "
              "0000:86:00.0 (not a PCI Express device)");
    CHECK(fbool("gpu.0.atomics.requester_enabled") == 0);

    /* the kernel lets only endpoints request AtomicOps: a GPU function whose
     * capability says switch port is refused, a legacy endpoint is not */
    fresh();
    build_navi31("16.0", 16, "16.0", 16);
    pci_config(N31_GPU, 0x1002, 0x744c, PCI_EXP_TYPE_DOWNSTREAM, 0,
               PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN);
    run_probes();
    CHECK(fbool("gpu.0.atomics.path_ok") == 0);
    CHECK_STR(fstr("gpu.0.atomics.missing_at"), "0000:86:00.0 (not a PCI Express endpoint)");
    pci_config(N31_GPU, 0x1002, 0x744c, PCI_EXP_TYPE_LEG_END, 0,
               PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN);
    run_probes();
    CHECK(fbool("gpu.0.atomics.path_ok") == 1);

    /* unprivileged: sysfs gives 64 bytes of config space */
    fresh();
    build_navi31("16.0", 16, "16.0", 16);
    {
        unsigned char c[64];
        memset(c, 0, sizeof(c));
        c[0] = 0x02, c[1] = 0x10, c[2] = 0x4c, c[3] = 0x74, c[PCI_STATUS] = 0x10;
        c[PCI_CAPABILITY_LIST] = 0x48;
        put_bin("/sys/devices/" N31_GPU "/config", c, sizeof(c));
    }
    run_probes();
    CHECK(is_unknown("gpu.0.atomics.path_ok"));
    CHECK(is_unknown("gpu.0.atomics.requester_enabled"));
    CHECK(is_unknown("gpu.0.atomics.missing_at"));
    CHECK_STR(reason("gpu.0.atomics.path_ok"),
              "PCI config space beyond 64 bytes needs root (run as root, or collect as root)");
    /* the link facts do not need root */
    CHECK(fint("gpu.0.link.width") == 16);
}

/* ---- override ------------------------------------------------------------------ */

static void test_override(void)
{
    fresh();
    build_navi31("16.0", 16, "16.0", 16);
    put("/.snapshot/environ", "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
    run_probes();
    CHECK_STR(fstr("gpu.0.gfx_override"), "10.3.0");
    CHECK(fbool("gpu.0.gfx_override_set") == 1);
    CHECK(fbool("gpu.0.gfx_override_valid") == 1);
    CHECK_STR(fstr("gpu.0.gfx_claimed"), "gfx1030");
    CHECK(fbool("gpu.0.gfx_override_major_differs") == 1);

    put("/.snapshot/environ", "HSA_OVERRIDE_GFX_VERSION=11.0\n");
    run_probes();
    CHECK(fbool("gpu.0.gfx_override_set") == 1);
    CHECK(fbool("gpu.0.gfx_override_valid") == 0);
    CHECK(is_unknown("gpu.0.gfx_claimed"));
    CHECK(is_unknown("gpu.0.gfx_override_major_differs"));

    /* the per-node variable (KFD node 1) wins over the global one */
    put("/.snapshot/environ",
        "HSA_OVERRIDE_GFX_VERSION=10.3.0\nHSA_OVERRIDE_GFX_VERSION_1=11.0.0\n");
    run_probes();
    CHECK_STR(fstr("gpu.0.gfx_override"), "11.0.0");
    CHECK_STR(F("gpu.0.gfx_override")->source, "HSA_OVERRIDE_GFX_VERSION_1");
    CHECK_STR(fstr("gpu.0.gfx_claimed"), "gfx1100");
    CHECK(fbool("gpu.0.gfx_override_major_differs") == 0);

    /* 11.0.0 on a gfx1101 (RX 7800 XT): same family, same major */
    {
        size_t len;
        char *p = slurp(KFD1100, &len);
        char *at = strstr(p, "gfx_target_version 110000");
        at[strlen("gfx_target_version 11000")] = '1';
        put_bin("/sys/class/kfd/kfd/topology/nodes/1/properties", p, len);
        free(p);
    }
    put("/.snapshot/environ", "HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
    run_probes();
    CHECK_STR(fstr("gpu.0.gfx"), "gfx1101");
    CHECK_STR(fstr("gpu.0.gfx_claimed"), "gfx1100");
    CHECK(fbool("gpu.0.gfx_override_valid") == 1);
    CHECK(fbool("gpu.0.gfx_override_major_differs") == 0);
}

/* ---- the RX 6900 XT capture, an NVIDIA card and a BMC ---------------------------- */

#define N21_RP "pci0000:00/0000:00:01.1"
#define N21_UP N21_RP "/0000:0a:00.0"
#define N21_DN N21_UP "/0000:0b:00.0"
#define N21_GPU N21_DN "/0000:0c:00.0"
#define NV_RP "pci0000:00/0000:00:03.1"
#define NV_GPU NV_RP "/0000:19:00.0"
#define BMC_BR "pci0000:c0/0000:c0:07.1/0000:c2:00.0"
#define BMC_VGA BMC_BR "/0000:c3:00.0"

static void test_mixed(void)
{
    fresh();
    build_navi31("16.0", 16, "16.0", 16);

    /* the RX 6900 XT: the real directory as captured (files NUL-padded to
     * 4 KiB, a 4 KiB config space whose bytes past 64 are zeros) */
    pci_dev(N21_RP, 0x1022, 0x1483, 0x060400);
    pci_link(N21_RP, "16.0", 16, "16.0", 16);
    pci_config(N21_RP, 0x1022, 0x1483, PCI_EXP_TYPE_ROOT_PORT, RP_COMP, 0);
    pci_dev(N21_UP, 0x1002, 0x1478, 0x060400);
    pci_link(N21_UP, "16.0", 16, "16.0", 16);
    pci_config(N21_UP, 0x1002, 0x1478, PCI_EXP_TYPE_UPSTREAM, ROUTE, 0);
    pci_dev(N21_DN, 0x1002, 0x1479, 0x060400);
    pci_link(N21_DN, "16.0", 16, "16.0", 16);
    pci_config(N21_DN, 0x1002, 0x1479, PCI_EXP_TYPE_DOWNSTREAM, ROUTE, 0);
    copy_tree(RX6900, "/sys/devices/" N21_GPU);
    put("/sys/devices/" N21_GPU "/device", "0x73bf\n"); /* not in the capture */
    put_link("/sys/bus/pci/devices/0000:0c:00.0", "../../../devices/" N21_GPU);
    put("/sys/devices/" N21_GPU "/drm/card0/dev", "226:0\n");
    put("/sys/devices/" N21_GPU "/drm/renderD129/dev", "226:129\n");
    put("/sys/devices/" N21_GPU "/ras/umc_err_count", "ue: 0\nce: 3\n");
    put("/sys/devices/" N21_GPU "/ras/gfx_err_count", "ue: 1\nce: 0\n");
    put("/sys/class/kfd/kfd/topology/nodes/2/properties",
        "cpu_cores_count 0\nsimd_count 160\nsimd_per_cu 2\ngfx_target_version 100300\n"
        "vendor_id 4098\ndevice_id 29631\nlocation_id 3072\ndomain 0\ndrm_render_minor 129\n"
        "local_mem_size 17163091968\ncapability 671588992\n");

    /* an NVIDIA card on its own root port, and an ASPEED BMC behind a bridge */
    pci_dev(NV_RP, 0x1022, 0x1483, 0x060400);
    pci_link(NV_RP, "32.0", 16, "32.0", 16);
    pci_dev(NV_GPU, 0x10de, 0x2335, 0x030200);
    pci_link(NV_GPU, "32.0", 16, "32.0", 16);
    pci_dev("pci0000:c0/0000:c0:07.1", 0x1022, 0x14a7, 0x060400);
    pci_dev(BMC_BR, 0x1a03, 0x1150, 0x060400);
    pci_dev(BMC_VGA, 0x1a03, 0x2000, 0x030000);
    pci_link(BMC_VGA, "5.0", 1, "5.0", 1);
    /* not a display device */
    pci_dev("pci0000:00/0000:00:02.1/0000:01:00.0", 0x144d, 0xa808, 0x010802);
    run_probes();

    CHECK(fint("gpu.count") == 2);
    CHECK_STR(fstr("gpu.names"),
              "gfx1030 [1002:73bf] at 0000:0c:00.0, gfx1100 [1002:744c] at 0000:86:00.0");
    CHECK(list_n("gpu.other") == 2);
    CHECK(list_has("gpu.other", "NVIDIA [10de:2335] at 0000:19:00.0"));
    CHECK(list_has("gpu.other", "ASPEED [1a03:2000] at 0000:c3:00.0"));
    CHECK(list_has("gpu.other_links", "NVIDIA 0000:19:00.0: 32.0 GT/s x16 (max 32.0 GT/s x16)"));
    CHECK(list_has("gpu.other_links", "ASPEED 0000:c3:00.0: 5.0 GT/s x1 (max 5.0 GT/s x1)"));

    /* gpu.0 is the RX 6900 XT, read through its NUL padding */
    CHECK_STR(fstr("gpu.0.pci"), "0000:0c:00.0");
    CHECK(fint("gpu.0.kfd_node") == 2);
    CHECK_STR(fstr("gpu.0.gfx"), "gfx1030");
    CHECK_STR(fstr("gpu.0.family"), "rdna2");
    CHECK(fint("gpu.0.cu_count") == 80);
    CHECK_STR(fstr("gpu.0.drm_card"), "card0");
    CHECK(fint("gpu.0.render_minor") == 129);
    CHECK(fint("gpu.0.vram_bytes") == 17163091968LL);
    CHECK(fint("gpu.0.vis_vram_bytes") == 17163091968LL); /* large BAR */
    CHECK(is_unknown("gpu.0.vram_kfd_bytes"));            /* no mem_banks */
    CHECK_STR(fstr("gpu.0.perf_level"), "auto");
    CHECK_STR(fstr("gpu.0.vbios"), "113-D4121EXT-CO1");
    CHECK(NEAR(fflt("gpu.0.temp_edge_c"), 56.0));
    CHECK(NEAR(fflt("gpu.0.temp_junction_c"), 59.0));
    CHECK(NEAR(fflt("gpu.0.temp_junction_limit_c"), 110.0));
    CHECK(NEAR(fflt("gpu.0.temp_mem_limit_c"), 100.0));
    CHECK(NEAR(fflt("gpu.0.power_w"), 36.0));
    CHECK(fbool("gpu.0.ras_present") == 1);
    CHECK(fint("gpu.0.ras_ue") == 1);
    CHECK(fint("gpu.0.ras_ce") == 3);
    CHECK(fint("gpu.0.link.width") == 16);
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 16.0));
    /* the captured config space holds only the 64 unprivileged bytes */
    CHECK(is_unknown("gpu.0.atomics.path_ok"));
    CHECK(strstr(reason("gpu.0.atomics.path_ok"), "reads as zeros") != NULL);

    /* the same header with the PCIe capability where its pointer (0x48)
     * says, requester enabled: the capability walk finds it */
    {
        size_t len;
        char *c = slurp(RX6900_CONFIG, &len);
        CHECK(len == 4096 && (unsigned char)c[PCI_CAPABILITY_LIST] == 0x48);
        c[0x48] = PCI_CAP_ID_EXP;
        c[0x49] = 0;
        c[0x4a] = 2 | PCI_EXP_TYPE_ENDPOINT << 4;
        c[0x48 + PCI_EXP_DEVCTL2] = PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN;
        put_bin("/sys/devices/" N21_GPU "/config", c, len);
        free(c);
    }
    run_probes();
    CHECK(fbool("gpu.0.atomics.requester_enabled") == 1);
    CHECK(fbool("gpu.0.atomics.path_ok") == 1);

    /* gpu.1 is the RX 7900 at node 1 */
    CHECK_STR(fstr("gpu.1.pci"), "0000:86:00.0");
    CHECK(fint("gpu.1.kfd_node") == 1);
    CHECK_STR(fstr("gpu.1.gfx"), "gfx1100");

    /* without KFD: identity from PCI, gfx unknown with a reason */
    char *kfd = xasprintf("%s/sys/class/kfd", root);
    nftw(kfd, tree_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    free(kfd);
    run_probes();
    CHECK(fint("gpu.count") == 2);
    CHECK_STR(fstr("gpu.names"),
              "AMD [1002:73bf] at 0000:0c:00.0, AMD [1002:744c] at 0000:86:00.0");
    CHECK(is_unknown("gpu.0.gfx"));
    CHECK(strstr(reason("gpu.0.gfx"), "/sys/class/kfd") != NULL);
    CHECK(fint("gpu.0.render_minor") == 129); /* from drm/renderD129 */
    CHECK(fbool("gpu.0.gfx_override_valid") == 1);
    CHECK(is_unknown("gpu.0.gfx_claimed"));
}

/* collect on a fixture, replay the snapshot: every gpu/pcie fact the same,
 * including the atomics read from the recorded config files */
static void test_collect_replay(void)
{
    fresh();
    build_navi31("2.5", 16, "16.0", 16);
    pci_config(N31_RP, 0x1022, 0x14ab, PCI_EXP_TYPE_ROOT_PORT, PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP,
               0);
    char *stage = xasprintf("%s-stage", root);
    rootfs_init(root);
    rootfs_record_start(stage);
    factset_release(&fs);
    probe_gpu_run(&ctx);
    probe_pcie_run(&ctx);
    rootfs_record_stop();
    struct strlist first = STRLIST_INIT;
    for (size_t i = 0; i < fs.n; i++) {
        char *t = fact_to_text(fs.v[i]);
        strlist_add_owned(&first, xasprintf("%s=%s", fs.v[i]->name, t));
        free(t);
    }
    CHECK(fbool("gpu.0.atomics.path_ok") == 0);

    rootfs_init(stage);
    factset_release(&fs);
    probe_gpu_run(&ctx);
    probe_pcie_run(&ctx);
    int same = fs.n == first.n;
    for (size_t i = 0; same && i < fs.n; i++) {
        char *t = fact_to_text(fs.v[i]);
        char *line = xasprintf("%s=%s", fs.v[i]->name, t);
        if (!strlist_has(&first, line)) {
            fprintf(stderr, "replay differs: %s\n", line);
            same = 0;
        }
        free(line);
        free(t);
    }
    CHECK(same);
    CHECK(fbool("gpu.0.atomics.path_ok") == 0);
    CHECK_STR(fstr("gpu.0.atomics.missing_at"), "0000:80:01.1 (root port: no 64-bit completer)");
    CHECK(NEAR(fflt("gpu.0.link.reachable_speed_gts"), 16.0));
    strlist_release(&first);
    nftw(stage, tree_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    free(stage);
}

/* names from the root's pci.ids (libpci), the excerpt collect stages, and
 * the fallback to the ids without pci.ids or without libpci */
#define IDS_LINE_DEV "\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]\n"
#define IDS_LINE_SUB "\t\t1eae 7901  RX-79XMERCB9 [SPEEDSTER MERC 310 RX 7900 XTX]\n"
static void test_pci_names(void)
{
    fresh();
    build_navi31("16.0", 16, "16.0", 16);
    putf("/usr/share/misc/pci.ids",
         "# a pci.ids with more than this GPU needs\n1000  Broadcom / LSI\n\t0001  53c810\n"
         "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n\t73bf  Navi 21 [Radeon RX 6800/6800 XT "
         "/ 6900 XT]\n\t\t1002 0e3a  Radeon RX 6900 XT\n" IDS_LINE_DEV
         "\t\t1da2 e471  NITRO+ RX 7900 XTX Vapor-X\n" IDS_LINE_SUB
         "1eae  XFX Limited\n1f00  Other\n");
    putf(at(N31_GPU, "subsystem_vendor"), "0x1eae\n");
    putf(at(N31_GPU, "subsystem_device"), "0x7901\n");
    run_probes();
#ifdef RVD_HAVE_LIBPCI
    CHECK_STR(fstr("gpu.0.pci_name"), "Navi 31 [Radeon RX 7900 XT/7900 XTX]");
    CHECK_STR(fstr("gpu.0.board_name"), "RX-79XMERCB9 [SPEEDSTER MERC 310 RX 7900 XTX]");
    CHECK_STR(fstr("gpu.names"),
              "gfx1100 Navi 31 [Radeon RX 7900 XT/7900 XTX] [1002:744c] at 0000:86:00.0");

    /* collect stages only the lines found; the replay names the GPU alike */
    char *stage = xasprintf("%s-stage", root);
    rootfs_record_start(stage);
    factset_release(&fs);
    probe_gpu_run(&ctx);
    rootfs_record_stop();
    char *staged = xasprintf("%s/usr/share/misc/pci.ids", stage);
    size_t len;
    char *text = slurp(staged, &len);
    CHECK(strstr(text, "\n1002  Advanced Micro Devices, Inc. [AMD/ATI]\n" IDS_LINE_DEV IDS_LINE_SUB
                       "1eae  XFX Limited\n") != NULL);
    CHECK(strstr(text, "Broadcom") == NULL && strstr(text, "73bf") == NULL &&
          strstr(text, "e471") == NULL);
    free(text);
    free(staged);
    rootfs_init(stage);
    factset_release(&fs);
    probe_gpu_run(&ctx);
    CHECK_STR(fstr("gpu.0.pci_name"), "Navi 31 [Radeon RX 7900 XT/7900 XTX]");
    CHECK_STR(fstr("gpu.0.board_name"), "RX-79XMERCB9 [SPEEDSTER MERC 310 RX 7900 XTX]");
    nftw(stage, tree_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    free(stage);

    /* a device the file does not know */
    putf("/usr/share/misc/pci.ids", "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n");
    run_probes();
    CHECK(is_unknown("gpu.0.pci_name"));
    CHECK(strstr(reason("gpu.0.pci_name"), "1002:744c is not in /usr/share/misc/pci.ids") != NULL);
#else
    CHECK(is_unknown("gpu.0.pci_name"));
    CHECK(strstr(reason("gpu.0.pci_name"), "built without libpci") != NULL);
#endif
    /* no pci.ids: the ids, and a reason */
    rm("/usr/share/misc/pci.ids");
    run_probes();
    CHECK(is_unknown("gpu.0.pci_name") && is_unknown("gpu.0.board_name"));
    CHECK(strlen(reason("gpu.0.pci_name")) > 0);
    CHECK_STR(fstr("gpu.names"), "gfx1100 [1002:744c] at 0000:86:00.0");
}

/* no /sys/bus/pci/devices at all: unknown, not 0 */
/* an MI300X in CPX-style partitions: one PCI function, four KFD nodes whose
 * location_id carries the partition's node id (kfd_topology.c ORs it into
 * the function bits when num_nodes > 1; some trees put it in [31:28]).
 * Every partition is the same GPU; partition 0 gives the facts. */
static void mi300x_partitions(unsigned shift)
{
    fresh();
    const char *gpu = "pci0000:c0/0000:c0:01.1/0000:c1:00.0";
    pci_dev("pci0000:c0/0000:c0:01.1", 0x1022, 0x14ab, 0x060400);
    pci_dev(gpu, 0x1002, 0x74a1, 0x038000);
    put("/sys/class/kfd/kfd/topology/nodes/0/properties",
        "cpu_cores_count 96\nsimd_count 0\nlocation_id 0\ndomain 0\n");
    /* the nodes listed out of partition order, as a directory read may give */
    static const int order[] = {3, 1, 4, 2};
    /* with the id in the function bits, partition 0 is not the lowest node
     * (node 2), so the exact match, not the first, must give the facts */
    static const unsigned part_of[5] = {0, 2, 0, 3, 1};
    for (int i = 0; i < 4; i++) {
        int node = order[i];
        unsigned part = shift ? (unsigned)node - 1 : part_of[node];
        char p[96];
        snprintf(p, sizeof(p), "/sys/class/kfd/kfd/topology/nodes/%d/properties", node);
        putf(p,
             "cpu_cores_count 0\nsimd_count %d\nsimd_per_cu 4\ngfx_target_version 90402\n"
             "location_id %u\ndomain 0\n",
             304 / 4 * 4, 0xc100u | part << shift);
    }
    run_probes();
    CHECK(fint("gpu.count") == 1);
    CHECK(fint("gpu.0.kfd_partitions") == 4);
    CHECK(fint("gpu.0.kfd_node") == (shift ? 1 : 2));
    CHECK_STR(fstr("gpu.0.gfx"), "gfx942");
}

static void test_partitions(void)
{
    mi300x_partitions(0);
    mi300x_partitions(28);
    /* one unpartitioned GPU: one node */
    fresh();
    pci_dev("pci0000:c0/0000:c0:01.1", 0x1022, 0x14ab, 0x060400);
    pci_dev("pci0000:c0/0000:c0:01.1/0000:c1:00.0", 0x1002, 0x74a1, 0x038000);
    put("/sys/class/kfd/kfd/topology/nodes/1/properties",
        "cpu_cores_count 0\nsimd_count 1216\nsimd_per_cu 4\ngfx_target_version 90402\n"
        "location_id 49408\ndomain 0\n");
    run_probes();
    CHECK(fint("gpu.0.kfd_partitions") == 1 && fint("gpu.0.kfd_node") == 1);
    /* a node of another device is no partition of this one */
    put("/sys/class/kfd/kfd/topology/nodes/2/properties",
        "cpu_cores_count 0\nsimd_count 1216\nsimd_per_cu 4\ngfx_target_version 90402\n"
        "location_id 49665\ndomain 0\n");
    run_probes();
    CHECK(fint("gpu.0.kfd_partitions") == 1);
}

/* a GPU KFD has no node for (it was refused, or amdgpu alone runs it):
 * its GC version from ip_discovery and its MEC firmware from
 * fw_version/mec_fw_version; kfd_refuses_without_atomics must flip exactly
 * at kfd_device.c's no_atomic_fw_version */
static int refuses_at(unsigned major, unsigned minor, unsigned rev, unsigned mec)
{
    const char *gpu = "pci0000:00/0000:00:01.1/0000:03:00.0";
    fresh();
    pci_dev("pci0000:00/0000:00:01.1", 0x1022, 0x1483, 0x060400);
    pci_dev(gpu, 0x1002, 0x744c, 0x030000);
    putf(at(gpu, "ip_discovery/die/0/GC/0/major"), "%u\n", major);
    putf(at(gpu, "ip_discovery/die/0/GC/0/minor"), "%u\n", minor);
    putf(at(gpu, "ip_discovery/die/0/GC/0/revision"), "%u\n", rev);
    putf(at(gpu, "fw_version/mec_fw_version"), "0x%08x\n", mec);
    run_probes();
    CHECK(fint("gpu.0.mec_fw") == mec);
    const struct fact *f = F("gpu.0.kfd_refuses_without_atomics");
    return f && f->type == FACT_BOOL ? f->b : -1;
}

static void test_atomics_fw(void)
{
    /* GC 10.1 (145), 10.3 (92) but 10.3.6 (14) and 10.3.7 (3), each with its
     * own firmware line, GFX11 RS64 (509), GFX12 (2090) */
    static const struct {
        unsigned major, minor, rev, need;
    } t[] = {{10, 1, 10, 145}, {10, 3, 0, 92},  {10, 3, 2, 92},  {10, 3, 6, 14},
             {10, 3, 7, 3},    {11, 0, 0, 509}, {12, 0, 1, 2090}};
    for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
        CHECK(refuses_at(t[i].major, t[i].minor, t[i].rev, t[i].need - 1) == 1);
        CHECK(refuses_at(t[i].major, t[i].minor, t[i].rev, t[i].need) == 0);
        CHECK(gp_no_atomic_fw_version(t[i].major, t[i].minor, t[i].rev) == (int)t[i].need);
    }
    /* GC 8 (Polaris): no firmware lifts it; GC 9 (Vega, CDNA) needs none */
    CHECK(refuses_at(8, 0, 3, 0xffff) == 1);
    CHECK(refuses_at(9, 4, 2, 1) == 0);
    /* no GC version and no KFD node: unknown, never a guess */
    fresh();
    pci_dev("pci0000:00/0000:00:01.1", 0x1022, 0x1483, 0x060400);
    pci_dev("pci0000:00/0000:00:01.1/0000:03:00.0", 0x1002, 0x744c, 0x030000);
    run_probes();
    CHECK(is_unknown("gpu.0.kfd_refuses_without_atomics"));
    CHECK(is_unknown("gpu.0.mec_fw"));
}

static void test_empty(void)
{
    fresh();
    run_probes();
    CHECK(is_unknown("gpu.count"));
    CHECK(is_unknown("gpu.other"));
    CHECK(is_unknown("gpu.other_links"));

    /* a PCI bus without display devices: a real 0 */
    fresh();
    pci_dev("pci0000:00/0000:00:02.0", 0x1af4, 0x1001, 0x010000);
    run_probes();
    CHECK(fint("gpu.count") == 0);
    CHECK(list_n("gpu.other") == 0);
    CHECK_STR(fstr("gpu.names"), "");
}

/* the live machine: whatever is there, the facts are well-formed */
static void test_live(void)
{
    factset_release(&fs);
    rootfs_init(NULL);
    probe_env_run(&ctx);
    probe_gpu_run(&ctx);
    probe_pcie_run(&ctx);
    int64_t n = fint("gpu.count");
    CHECK(n >= 0);
    CHECK(list_n("gpu.other") >= 0);
    CHECK(list_n("gpu.other_links") == list_n("gpu.other"));
    for (int64_t i = 0; i < n; i++) {
        char fn[FACT_NAME_MAX];
        CHECK(fstr(fact_gpu_name(fn, (int)i, "pci")) != NULL);
        CHECK(F(fact_gpu_name(fn, (int)i, "atomics.path_ok")) != NULL);
    }
    printf("live: gpu.count=%lld, other=%d\n", (long long)n, list_n("gpu.other"));
}

/* the capability walk: libpci's rules, with hostile lists */
static void test_config_caps(void)
{
    unsigned char c[256];
    struct gp_config_caps k;
    memset(c, 0, sizeof(c));
    /* no capability list: nothing, whatever the pointer says */
    c[PCI_CAPABILITY_LIST] = 0x40;
    c[0x40] = PCI_CAP_ID_EXP;
    gp_config_caps(c, sizeof(c), &k);
    CHECK(k.pcie == 0);
    /* a power-management capability, then PCIe v2 at 0x60 */
    c[PCI_STATUS] = PCI_STATUS_CAP_LIST;
    c[0x40] = PCI_CAP_ID_PM;
    c[0x41] = 0x63; /* the low two bits are masked off */
    c[0x60] = PCI_CAP_ID_EXP;
    c[0x62] = 2 | PCI_EXP_TYPE_ROOT_PORT << 4;
    c[0x60 + PCI_EXP_DEVCAP2] = 0x80;
    c[0x60 + PCI_EXP_DEVCAP2 + 1] = 0x01;
    c[0x60 + PCI_EXP_DEVCTL2] = 0x40;
    gp_config_caps(c, sizeof(c), &k);
    CHECK(k.pcie == 1 && k.type == PCI_EXP_TYPE_ROOT_PORT);
    CHECK(k.devcap2 == 0x180 && k.devctl2 == 0x40);
    /* version 1: no DevCap2/DevCtl2 */
    c[0x62] = 1 | PCI_EXP_TYPE_ROOT_PORT << 4;
    gp_config_caps(c, sizeof(c), &k);
    CHECK(k.pcie == 1 && k.devcap2 == 0 && k.devctl2 == 0);
    /* a loop (0x40 -> 0x40) and an 0xff id end the walk */
    c[0x41] = 0x40;
    gp_config_caps(c, sizeof(c), &k);
    CHECK(k.pcie == 0);
    c[0x41] = 0x60;
    c[0x60] = 0xff;
    gp_config_caps(c, sizeof(c), &k);
    CHECK(k.pcie == 0);
    /* a capability at the end of a short file: the bytes past it read as
     * 0xff (libpci's failed read), so DevCap2 is all ones */
    c[0x60] = PCI_CAP_ID_EXP;
    c[0x62] = 2 | PCI_EXP_TYPE_ENDPOINT << 4;
    gp_config_caps(c, 0x64, &k);
    CHECK(k.pcie == 1 && k.type == PCI_EXP_TYPE_ENDPOINT);
    CHECK(k.devcap2 == 0xffffffffu && k.devctl2 == 0xffff);
    /* a pointer past the end of a 64-byte file: id 0xff, nothing */
    gp_config_caps(c, 64, &k);
    CHECK(k.pcie == 0);
}

int main(void)
{
    test_decoders();
    test_power_numa_decoders();
    test_config_caps();
    if (access(KFD1100, R_OK) == 0) {
        test_navi31();
        test_override();
        test_mixed();
        test_collect_replay();
        test_pci_names();
    } else {
        /* say so loudly: these are most of the file's checks */
        fprintf(stderr, "test_probes_gpu: %s missing: capture-based tests not run\n", KFD1100);
        test_failed++;
    }
    test_empty();
    test_partitions();
    test_atomics_fw();
    fresh(); /* removes the last tree */
    rmdir(root);
    test_live();
    rootfs_release();
    factset_release(&fs);
    return test_report();
}
