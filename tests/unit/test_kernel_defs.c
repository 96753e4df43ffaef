/* test_kernel_defs.c - the kernel interfaces the probes decode, held
 * against copies of the kernel's own definitions in tests/data/kernel/
 * (each file names the kernel file and commit it was copied from), never
 * against the decoder's own tables:
 * - PCI config-space offsets and AtomicOp bits (probes/pcie_regs.h) against
 *   include/uapi/linux/pci_regs.h (pci_regs.txt);
 * - the KFD node capability bit for SVM and the mem_banks heap types of
 *   VRAM (probes/kfd_sysfs.h) against include/uapi/linux/kfd_sysfs.h
 *   (kfd_sysfs.txt);
 * - every string pci_speed_string() gives current_link_speed
 *   (pci_speed.txt): the PCIe rates read back by pci_link_speed_parse(),
 *   the PCI/AGP/"Unknown" ones refused;
 * - every amdgpu parameter default in probes/probe_kernel.c's table against
 *   amdgpu_drv.c's variables and module_param lines (amdgpu_params.txt);
 * - every key a probe reads from a KFD properties file (each
 *   gp_kv_get(..., "key", ...) in a probes/ source) against the keys
 *   kfd_topology.c prints (kfd_topology_keys.txt);
 * - the name of every ASIC-independent throttler bit
 *   (gpu_metrics_throttle_names) against amdgpu_smu.h's SMU_THROTTLER_*_BIT
 *   (smu_throttler_bits.txt), both ways;
 * - the compute and memory partition mode names amdgpu_gfx.h and
 *   amdgpu_gmc.c print (partition_modes.txt), each read back as that mode
 *   by probe_gpu_partition.c, and the kernel's "UNKNOWN" never as a mode;
 * - DRM fdinfo lines in drm_file.c's formats (drm_fdinfo.txt), read back by
 *   tel_fdinfo_parse(), every size unit print_size() uses;
 * - amdgpu's own fdinfo lines per kernel, 5.15 to 6.11 (amdgpu_fdinfo.txt),
 *   the 5.14-5.18 "vram mem" format included;
 * - amdgpu's RAS counts, "Query currently inaccessible" and bad-page lines
 *   (amdgpu_ras.txt), read back by probes/ras_parse.c;
 * - the module states of /sys/module/amdgpu/initstate (module_initstate.txt):
 *   probe_driver.c calls amdgpu loaded for "live" alone.
 * gpu_metrics layouts have their own test (test_gpu_metrics.c). */
#include "../../probes/gpu_pci.h"
#include "../../probes/kfd_sysfs.h"
#include "../../probes/pcie_regs.h"
#include "../../probes/probe.h"
#include "../../probes/ras_parse.h"
#include "../../src/core/pci_path.h"
#include "../../src/core/util.h"
#include "../../src/telemetry/gpu_metrics.h"
#include "../../src/telemetry/telemetry.h"
#include "sysroot_tree.h"
#include "test.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KDIR "tests/data/kernel/"

static char *slurp(const char *path)
{
    char *buf = NULL;
    size_t len;
    if (read_user_file(path, 1 << 20, &buf, &len)) {
        fprintf(stderr, "cannot read %s (run from the repository root)\n", path);
        exit(2);
    }
    return buf;
}

/* the value of "#define NAME VALUE" in a copy of kernel lines; -1 when the
 * copy has no such line (a missing name fails, never passes) */
static long long kernel_define(const char *text, const char *name)
{
    for (const char *p = text; (p = strstr(p, "#define")); p++) {
        char nm[96];
        char val[32];
        if (sscanf(p, "#define %95s %31s", nm, val) == 2 && !strcmp(nm, name))
            return strtoll(val, NULL, 0);
    }
    return -1;
}

static void check_define(const char *text, const char *kname, long long ours, const char *oname)
{
    long long k = kernel_define(text, kname);
    CHECK(k == ours);
    if (k != ours)
        fprintf(stderr, "  %s = %#llx, the kernel's %s = %#llx\n", oname, ours, kname, k);
}

#define SAME(kname, ours) check_define(text, kname, (long long)(ours), #ours)

static void test_pci_regs(void)
{
    char *text = slurp(KDIR "pci_regs.txt");
    SAME("PCI_STATUS", PCI_STATUS);
    SAME("PCI_STATUS_CAP_LIST", PCI_STATUS_CAP_LIST);
    SAME("PCI_CAPABILITY_LIST", PCI_CAPABILITY_LIST);
    SAME("PCI_CAP_ID_EXP", PCI_CAP_ID_EXP);
    SAME("PCI_EXP_FLAGS", PCI_EXP_FLAGS);
    SAME("PCI_EXP_FLAGS_VERS", PCI_EXP_FLAGS_VERS);
    SAME("PCI_EXP_FLAGS_TYPE", PCI_EXP_FLAGS_TYPE);
    SAME("PCI_EXP_TYPE_ENDPOINT", PCI_EXP_TYPE_ENDPOINT);
    SAME("PCI_EXP_TYPE_LEG_END", PCI_EXP_TYPE_LEG_END);
    SAME("PCI_EXP_TYPE_ROOT_PORT", PCI_EXP_TYPE_ROOT_PORT);
    SAME("PCI_EXP_TYPE_UPSTREAM", PCI_EXP_TYPE_UPSTREAM);
    SAME("PCI_EXP_TYPE_DOWNSTREAM", PCI_EXP_TYPE_DOWNSTREAM);
    SAME("PCI_EXP_TYPE_RC_END", PCI_EXP_TYPE_ROOT_INT_EP);
    SAME("PCI_EXP_DEVCAP2", PCI_EXP_DEVCAP2);
    SAME("PCI_EXP_DEVCTL2", PCI_EXP_DEVCTL2);
    SAME("PCI_EXP_DEVCAP2_ATOMIC_ROUTE", PCI_EXP_DEVCAP2_ATOMICOP_ROUTING);
    SAME("PCI_EXP_DEVCAP2_ATOMIC_COMP32", PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP);
    SAME("PCI_EXP_DEVCAP2_ATOMIC_COMP64", PCI_EXP_DEVCAP2_64BIT_ATOMICOP_COMP);
    SAME("PCI_EXP_DEVCTL2_ATOMIC_REQ", PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN);
    SAME("PCI_EXP_DEVCTL2_ATOMIC_EGRESS_BLOCK", PCI_EXP_DEVCTL2_ATOMICOP_EGRESS_BLOCK);
    /* the lookup fails for a name the copy lacks */
    CHECK(kernel_define(text, "PCI_EXP_DEVCTL2_ATOMIC_BLOCK") == -1);
    free(text);
}

static void test_kfd_caps(void)
{
    char *text = slurp(KDIR "kfd_sysfs.txt");
    SAME("HSA_CAP_SVMAPI_SUPPORTED", HSA_CAP_SVMAPI_SUPPORTED);
    SAME("HSA_MEM_HEAP_TYPE_FB_PUBLIC", HSA_MEM_HEAP_TYPE_FB_PUBLIC);
    SAME("HSA_MEM_HEAP_TYPE_FB_PRIVATE", HSA_MEM_HEAP_TYPE_FB_PRIVATE);
    free(text);
}

/* the keys kfd_topology.c prints: the quoted name of each
 * "sysfs_show_<n>bit_prop(buffer, offs, "<key>"," line */
static void kernel_keys(const char *text, struct strlist *out)
{
    const char *tag = "bit_prop(buffer, offs, \"";
    for (const char *p = text; (p = strstr(p, tag)); p++) {
        const char *k = p + strlen(tag);
        size_t n = strcspn(k, "\"");
        char *key = xstrndup(k, n);
        strlist_add(out, key);
        free(key);
    }
}

static int has(const struct strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s))
            return 1;
    return 0;
}

/* every gp_kv_get(<text>, "<key>", ...) of one source file */
static int probe_keys(const char *path, const struct strlist *kernel)
{
    char *src = slurp(path);
    int n = 0;
    for (const char *p = src; (p = strstr(p, "gp_kv_get(")); p++) {
        const char *comma = strchr(p, ',');
        const char *paren = strchr(p, ')');
        if (!comma || (paren && paren < comma))
            continue;
        const char *q = comma + 1;
        while (*q == ' ' || *q == '\n')
            q++;
        if (*q != '"')
            continue; /* a key in a variable: the declaration, or a table */
        char *key = xstrndup(q + 1, strcspn(q + 1, "\""));
        int ok = has(kernel, key);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  %s reads KFD key '%s', which kfd_topology.c does not print\n", path,
                    key);
        free(key);
        n++;
    }
    free(src);
    return n;
}

static void test_kfd_keys(void)
{
    char *text = slurp(KDIR "kfd_topology_keys.txt");
    struct strlist keys = STRLIST_INIT;
    kernel_keys(text, &keys);
    CHECK(keys.n >= 50 && has(&keys, "gfx_target_version") && has(&keys, "node_to"));
    DIR *d = opendir("probes");
    CHECK(d != NULL);
    int seen = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len > 2 && !strcmp(de->d_name + len - 2, ".c")) {
            char *path = xasprintf("probes/%s", de->d_name);
            seen += probe_keys(path, &keys);
            free(path);
        }
    }
    if (d)
        closedir(d);
    CHECK(seen >= 10); /* the scan found the probes' reads */
    strlist_release(&keys);
    free(text);
}

static void test_throttler_bits(void)
{
    char *text = slurp(KDIR "smu_throttler_bits.txt");
    uint64_t kernel_bits = 0;
    int n = 0;
    for (const char *p = text; (p = strstr(p, "#define SMU_THROTTLER_")); p++) {
        char name[64];
        unsigned bit;
        if (sscanf(p, "#define SMU_THROTTLER_%63s %u", name, &bit) != 2 || bit > 63)
            continue;
        size_t len = strlen(name);
        CHECK(len > 4 && !strcmp(name + len - 4, "_BIT"));
        name[len - 4] = '\0';
        char got[64];
        gpu_metrics_throttle_names(1ull << bit, got, sizeof(got));
        CHECK_STR(got, name);
        kernel_bits |= 1ull << bit;
        n++;
    }
    CHECK(n == 34);
    /* a bit the kernel does not define has no name of ours */
    for (unsigned b = 0; b < 64; b++) {
        if (kernel_bits >> b & 1)
            continue;
        char got[16], want[16];
        gpu_metrics_throttle_names(1ull << b, got, sizeof(got));
        snprintf(want, sizeof(want), "BIT%u", b);
        CHECK_STR(got, want);
    }
    free(text);
}

/* the quoted names of one [section] of partition_modes.txt */
static void section_names(const char *text, const char *section, struct strlist *out)
{
    const char *p = strstr(text, section);
    if (!p)
        return;
    for (p = strchr(p, '\n'); p && p[1] && p[1] != '['; p = strchr(p + 1, '\n')) {
        const char *q = memchr(p + 1, '"', strcspn(p + 1, "\n"));
        if (q)
            strlist_add_owned(out, xstrndup(q + 1, strcspn(q + 1, "\"\\")));
    }
}

#define PART_DEV "/sys/bus/pci/devices/0000:05:00.0"

/* the probe's reading of one current_*_partition text: the mode, or "" */
static const char *partition_read(struct factset *fs, const char *file, const char *text,
                                  const char *fact)
{
    char *path = xasprintf(PART_DEV "/%s", file);
    char *line = xasprintf("%s\n", text);
    put(path, line);
    free(path);
    free(line);
    factset_release(fs);
    if (rootfs_init(root))
        exit(2);
    gp_partition_facts(fs, 0, "0000:05:00.0");
    const struct fact *f = fact_get(fs, fact);
    return f && f->type == FACT_STR ? f->s : "";
}

static void test_partition_modes(void)
{
    char *text = slurp(KDIR "partition_modes.txt");
    struct strlist compute = STRLIST_INIT, memory = STRLIST_INIT;
    section_names(text, "[amdgpu_gfx_compute_mode_desc]", &compute);
    section_names(text, "[nps_desc]", &memory);
    section_names(text, "[current_memory_partition_show]", &memory);
    CHECK(compute.n == 6 && memory.n == 7);
    struct factset fs = FACTSET_INIT;
    tree_fresh("kdefs");
    put(PART_DEV "/current_memory_partition", "NPS1\n");
    for (size_t i = 0; i < compute.n; i++) {
        const char *got = partition_read(&fs, "current_compute_partition", compute.v[i],
                                         "gpu.0.compute_partition");
        CHECK_STR(got, strcmp(compute.v[i], "UNKNOWN") ? compute.v[i] : "");
    }
    for (size_t i = 0; i < memory.n; i++) {
        const char *got =
            partition_read(&fs, "current_memory_partition", memory.v[i], "gpu.0.memory_partition");
        CHECK_STR(got, strcmp(memory.v[i], "UNKNOWN") ? memory.v[i] : "");
    }
    tree_fresh("kdefs"); /* removes the last tree */
    rmdir(root);
    rootfs_release();
    factset_release(&fs);
    strlist_release(&compute);
    strlist_release(&memory);
    free(text);
}

/* a size in print_size()'s form: the largest unit of units[] that divides it */
static void print_size(struct strbuf *sb, const char *stat, const char *region, uint64_t sz)
{
    static const char *const units[] = {"", " KiB", " MiB"};
    unsigned u;
    for (u = 0; u < ARRAY_SIZE(units) - 1; u++) {
        if (sz == 0 || sz % 1024)
            break;
        sz /= 1024;
    }
    strbuf_addf(sb, "drm-%s-%s:\t%llu%s\n", stat, region, (unsigned long long)sz, units[u]);
}

static void test_drm_fdinfo(void)
{
    char *text = slurp(KDIR "drm_fdinfo.txt");
    /* the formats this test prints are the copy's */
    CHECK(strstr(text, "\"drm-driver:\\t%s\\n\"") && strstr(text, "\"drm-client-id:\\t%llu\\n\"") &&
          strstr(text, "\"drm-pdev:\\t%04x:%02x:%02x.%d\\n\"") &&
          strstr(text, "\"drm-%s-%s:\\t%llu%s\\n\"") &&
          strstr(text, "units[] = {\"\", \" KiB\", \" MiB\"}") &&
          strstr(text, "print_size(p, \"total\"") && strstr(text, "print_size(p, \"resident\""));
    /* bytes (not a KiB multiple), KiB, MiB: each read back in bytes */
    static const uint64_t sizes[] = {1000, 3 * 1024, 5ull << 30};
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "drm-driver:\t%s\n", "amdgpu");
        strbuf_addf(&sb, "drm-client-id:\t%llu\n", 77ull);
        strbuf_addf(&sb, "drm-pdev:\t%04x:%02x:%02x.%d\n", 0, 0x86, 0, 0);
        print_size(&sb, "total", "vram", sizes[i] * 2);
        print_size(&sb, "shared", "vram", 0);
        print_size(&sb, "active", "vram", 0);
        print_size(&sb, "resident", "vram", sizes[i]);
        struct tel_fdinfo f;
        CHECK(tel_fdinfo_parse(sb.buf, &f) == 0);
        CHECK_STR(f.driver, "amdgpu");
        CHECK_STR(f.pdev, "0000:86:00.0");
        CHECK(f.has_client_id && f.client_id == 77);
        CHECK(f.vram_bytes == (int64_t)sizes[i]); /* resident, not total */
        strbuf_release(&sb);
    }
    free(text);
}

/* the lines of one kernel's section ("@ v6.1 ...") of amdgpu_fdinfo.txt;
 * the caller frees. An absent section is empty, so its checks fail. */
static char *fdinfo_section(const char *text, const char *ver)
{
    char *mark = xasprintf("@ %s ", ver);
    const char *b = strstr(text, mark);
    free(mark);
    if (!b)
        return xasprintf("%s", "");
    const char *e = strstr(b + 1, "\n@ ");
    return xasprintf("%.*s", (int)(e ? e - b : (ptrdiff_t)strlen(b)), b);
}

/* amdgpu's own fdinfo keys per kernel (amdgpu_fdinfo.txt): the 5.14-5.18
 * "pdev"/"vram mem" format, 6.1's drm-* keys printed by amdgpu itself
 * (%Lu and %Ld are the kernel's long long), 6.6's, and 6.11's legacy
 * drm-memory-vram after the DRM core's drm-driver/drm-pdev lines */
static void test_amdgpu_fdinfo(void)
{
    char *text = slurp(KDIR "amdgpu_fdinfo.txt");
    char *v515 = fdinfo_section(text, "v5.15");
    CHECK(strstr(v515, "\"pdev:\\t%04x:%02x:%02x.%d\\npasid:\\t%u\\n\"") &&
          strstr(v515, "\"vram mem:\\t%llu kB\\n\"") && strstr(v515, "\"gtt mem:\\t%llu kB\\n\"") &&
          strstr(v515, "\"%s%d:\\t%d.%d%%\\n\"") && !strstr(v515, "\"drm-"));
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "pdev:\t%04x:%02x:%02x.%d\npasid:\t%u\n", 0, 0x86, 0, 0, 32770u);
    strbuf_addf(&sb, "vram mem:\t%llu kB\n", 4096ull);
    strbuf_addf(&sb, "gtt mem:\t%llu kB\n", 8ull);
    strbuf_addf(&sb, "%s%d:\t%d.%d%%\n", "gfx", 0, 12, 34);
    struct tel_fdinfo f;
    CHECK(tel_fdinfo_parse(sb.buf, &f) == 0);
    CHECK_STR(f.driver, "amdgpu");
    CHECK_STR(f.pdev, "0000:86:00.0");
    CHECK(f.vram_bytes == 4096 * 1024);
    CHECK(f.engine_ns == -1); /* percentages, not a time: unknown */
    strbuf_release(&sb);

    char *v61 = fdinfo_section(text, "v6.1");
    CHECK(strstr(v61, "\"drm-driver:\\t%s\\n\"") &&
          strstr(v61, "\"drm-pdev:\\t%04x:%02x:%02x.%d\\n\"") &&
          strstr(v61, "\"drm-client-id:\\t%Lu\\n\"") &&
          strstr(v61, "\"drm-memory-vram:\\t%llu KiB\\n\"") &&
          strstr(v61, "\"drm-memory-gtt: \\t%llu KiB\\n\"") &&
          strstr(v61, "\"drm-engine-%s:\\t%Ld ns\\n\""));
    char *v66 = fdinfo_section(text, "v6.6");
    char *v611 = fdinfo_section(text, "v6.11");
    CHECK(strstr(v66, "\"drm-client-id:\\t%llu\\n\"") &&
          strstr(v66, "\"drm-memory-vram:\\t%llu KiB\\n\"") &&
          strstr(v66, "\"drm-engine-%s:\\t%lld ns\\n\""));
    /* 6.11: the core prints drm-driver and drm-pdev, amdgpu the rest */
    CHECK(strstr(v611, "\"drm-memory-vram:\\t%llu KiB\\n\"") &&
          strstr(v611, "\"drm-engine-%s:\\t%lld ns\\n\"") && !strstr(v611, "\"drm-driver") &&
          !strstr(v611, "\"drm-pdev"));
    strbuf_addf(&sb, "pasid:\t%u\n", 32770u);
    strbuf_addf(&sb, "drm-driver:\t%s\n", "amdgpu");
    strbuf_addf(&sb, "drm-pdev:\t%04x:%02x:%02x.%d\n", 0, 0x86, 0, 0);
    strbuf_addf(&sb, "drm-client-id:\t%llu\n", 9ull);
    strbuf_addf(&sb, "drm-memory-vram:\t%llu KiB\n", 2048ull);
    strbuf_addf(&sb, "drm-memory-gtt: \t%llu KiB\n", 16ull);
    strbuf_addf(&sb, "drm-engine-%s:\t%lld ns\n", "gfx", 1000ll);
    strbuf_addf(&sb, "drm-engine-%s:\t%lld ns\n", "compute", 500ll);
    CHECK(tel_fdinfo_parse(sb.buf, &f) == 0);
    CHECK_STR(f.driver, "amdgpu");
    CHECK_STR(f.pdev, "0000:86:00.0");
    CHECK(f.has_client_id && f.client_id == 9);
    CHECK(f.vram_bytes == 2048 * 1024);
    CHECK(f.engine_ns == 1500);
    strbuf_release(&sb);
    free(v515);
    free(v61);
    free(v66);
    free(v611);
    free(text);
}

static void test_ras(void)
{
    char *text = slurp(KDIR "amdgpu_ras.txt");
    CHECK(strstr(text, "\"%s: %lu\\n%s: %lu\\n\", \"ue\"") &&
          strstr(text, "\"ce\", info.ce_count") &&
          strstr(text, "\"Query currently inaccessible\\n\"") &&
          strstr(text, "\"0x%08x : 0x%08x : %1s\\n\"") && strstr(text, "return \"R\";") &&
          strstr(text, "return \"P\";") && strstr(text, "return \"F\";") &&
          strstr(text, "sizeof(\"0xabcdabcd : 0x12345678 : R\\n\") - 1"));
    char buf[128];
    struct ras_count c;
    snprintf(buf, sizeof(buf), "%s: %lu\n%s: %lu\n", "ue", 3ul, "ce", 4000000000ul);
    CHECK(ras_parse_count(buf, &c) == RAS_COUNT_OK);
    CHECK(c.ue == 3 && c.ce == 4000000000LL && c.de == -1);
    CHECK(ras_parse_count("Query currently inaccessible\n", &c) == RAS_COUNT_INACCESSIBLE);
    /* the ACA form of 6.8+ kernels: ue, ce and deferred errors */
    CHECK(strstr(text, "\"%s: %lu\\n%s: %lu\\n%s: %lu\\n\", \"ue\"") &&
          strstr(text, "\"de\", info.de_count"));
    snprintf(buf, sizeof(buf), "%s: %lu\n%s: %lu\n%s: %lu\n", "ue", 0ul, "ce", 7ul, "de", 2ul);
    CHECK(ras_parse_count(buf, &c) == RAS_COUNT_OK);
    CHECK(c.ue == 0 && c.ce == 7 && c.de == 2);
    /* one page of each flag, each line the kernel's element_size long */
    struct strbuf sb = STRBUF_INIT;
    static const char *const flags[] = {"R", "P", "F"};
    for (unsigned i = 0; i < ARRAY_SIZE(flags); i++) {
        snprintf(buf, sizeof(buf), "0x%08x : 0x%08x : %1s\n", 0x12340u + i, 0x1000u, flags[i]);
        CHECK(strlen(buf) == sizeof("0xabcdabcd : 0x12345678 : R\n") - 1);
        strbuf_adds(&sb, buf);
    }
    struct ras_pages pg;
    CHECK(ras_parse_bad_pages(sb.buf, &pg) == 0);
    CHECK(pg.reserved == 1 && pg.pending == 1 && pg.failed == 1 && pg.bad_line == 0);
    strbuf_release(&sb);
    free(text);
}

/* the first quoted string of each copied (not '#') line of pci_speed.txt */
static void test_link_speed(void)
{
    char *text = slurp(KDIR "pci_speed.txt");
    static const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    size_t npcie = 0, nother = 0;
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
        const char *q = strchr(l, '"');
        if (*l == '#' || !q || q > l + strcspn(l, "\n"))
            continue;
        char *s = xstrndup(q + 1, strcspn(q + 1, "\""));
        char *sysfs = xasprintf("%s\n", s); /* the attribute adds "\n" */
        double g = 0;
        int rc = pci_link_speed_parse(sysfs, &g);
        if (strstr(s, "GT/s PCIe")) {
            int ok = npcie < ARRAY_SIZE(rates) && rc == 0 && g == rates[npcie];
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  \"%s\": rc %d, %g GT/s\n", s, rc, g);
            npcie++;
        } else {
            CHECK(rc != 0);
            if (rc == 0)
                fprintf(stderr, "  \"%s\" read as a PCIe rate\n", s);
            nother++;
        }
        free(sysfs);
        free(s);
    }
    CHECK(npcie == ARRAY_SIZE(rates) && nother == 17);
    free(text);
}

/* the text after "key" up to the first of `stop` in the copy, or NULL */
static char *after(const char *text, const char *key, const char *stop)
{
    const char *p = strstr(text, key);
    return p ? xstrndup(p + strlen(key), strcspn(p + strlen(key), stop)) : NULL;
}

/* the default the copy gives parameter `name`, as sysfs prints it; 0 when
 * found. A symbolic initializer takes the value its MODULE_PARM_DESC calls
 * the default ("N = ... (Default)"). */
static int kernel_param_default(const char *text, const char *name, long long *out)
{
    char *key = xasprintf("module_param_named(%s, ", name);
    char *var = after(text, key, ",");
    free(key);
    if (!var) {
        key = xasprintf("module_param(%s, ", name);
        char *has = after(text, key, ",");
        free(key);
        if (!has)
            return -1;
        free(has);
        var = xstrdup(name);
    }
    key = xasprintf("(%s, %s, ", name, var);
    char *type = after(text, key, ",");
    free(key);
    if (!type) {
        key = xasprintf("(%s, ", name);
        type = after(text, key, ",");
        free(key);
    }
    key = xasprintf(" %s", var);
    const char *p = text;
    while ((p = strstr(p, key)) && p[strlen(key)] != ';' && strncmp(p + strlen(key), " = ", 3))
        p++;
    free(key);
    int rc = 0;
    unsigned long long v = 0;
    if (!p || !type) {
        rc = -1;
    } else if (!strncmp(p + strlen(var) + 1, " = ", 3)) {
        const char *val = p + strlen(var) + 4;
        char *end;
        if (!strncmp(val, "UINT_MAX;", 9)) {
            v = 0xffffffffull;
        } else if ((v = (unsigned long long)strtoll(val, &end, 0)), end == val || *end != ';') {
            const char *d = strstr(p, "(Default)");
            const char *r = d;
            while (r && r > p && r[-1] != '(')
                r--;
            v = (unsigned long long)strtoll(r ? r : "", &end, 10);
            rc = r && d && end != r && !strncmp(end, " = ", 3) ? 0 : -1;
        }
    }
    if (rc == 0)
        *out = !strcmp(type, "int")    ? (long long)(int32_t)(uint32_t)v
               : !strcmp(type, "uint") ? (long long)(uint32_t)v
                                       : (long long)v;
    free(type);
    free(var);
    return rc;
}

static void test_amdgpu_params(void)
{
    char *text = slurp(KDIR "amdgpu_params.txt");
    char *src = slurp("probes/probe_kernel.c");
    const char *p = strstr(src, "param_defaults[] = {");
    const char *end = p ? strstr(p, "};") : NULL;
    size_t n = 0;
    for (p = p ? strstr(p, "{\"") : NULL; p && p < end; p = strstr(p + 1, "{\"")) {
        char *name = xstrndup(p + 2, strcspn(p + 2, "\""));
        const char *d = strchr(p + 2 + strlen(name) + 1, '"');
        char *def = d ? xstrndup(d + 1, strcspn(d + 1, "\"")) : xstrdup("?");
        long long k = 0;
        int ok = kernel_param_default(text, name, &k) == 0 && strtoll(def, NULL, 10) == k;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  %s: probe_kernel.c says %s, amdgpu_drv.c %lld\n", name, def, k);
        n++;
        free(name);
        free(def);
    }
    CHECK(n >= 30); /* the table was found and read */
    long long k;
    CHECK(kernel_param_default(text, "no_such_param", &k) != 0);
    free(src);
    free(text);
}

int probe_driver_run(struct probe_ctx *ctx);

static void test_initstate(void)
{
    char *text = slurp(KDIR "module_initstate.txt");
    struct strlist states = STRLIST_INIT;
    for (const char *p = text; (p = strstr(p, "state = \"")); p++)
        strlist_add_owned(&states, xstrndup(p + 9, strcspn(p + 9, "\"")));
    CHECK(states.n == 4 && strstr(text, "sprintf(buffer, \"%s\\n\", state)"));
    struct factset fs = FACTSET_INIT;
    struct probe_opts opts = {0};
    struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};
    for (size_t i = 0; i < states.n; i++) {
        tree_fresh("kdefs");
        char *line = xasprintf("%s\n", states.v[i]);
        put("/sys/module/amdgpu/initstate", line);
        free(line);
        if (rootfs_init(root))
            exit(2);
        factset_release(&fs);
        probe_driver_run(&ctx);
        const struct fact *st = fact_get(&fs, "driver.initstate");
        const struct fact *ld = fact_get(&fs, "driver.loaded");
        CHECK(st && st->type == FACT_STR && !strcmp(st->s, states.v[i]));
        CHECK(ld && ld->type == FACT_BOOL && ld->b == !strcmp(states.v[i], "live"));
    }
    tree_fresh("kdefs"); /* removes the last tree */
    rmdir(root);
    rootfs_release();
    factset_release(&fs);
    strlist_release(&states);
    free(text);
}

int main(void)
{
    test_pci_regs();
    test_kfd_caps();
    test_kfd_keys();
    test_throttler_bits();
    test_partition_modes();
    test_drm_fdinfo();
    test_amdgpu_fdinfo();
    test_ras();
    test_initstate();
    test_link_speed();
    test_amdgpu_params();
    return test_report();
}
