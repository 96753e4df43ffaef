/* test_ras.c - amdgpu's RAS sysfs text (probes/ras_parse.c) in every form
 * the kernel prints it (amdgpu_ras.c at 001ebcf5b903, the 6.8+ "de:" line,
 * "Query currently inaccessible"), the bad-page lines and the threshold on
 * each side of its rules, then the probe's facts per family on small trees
 * (probes/probe_gpu_ras.c): unknown is never 0. */
#include "../../probes/gpu_pci.h"
#include "../../probes/ras_parse.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define BDF "0000:c1:00.0"
#define DEV "/sys/bus/pci/devices/" BDF
#define GIB (1024LL * 1024 * 1024)

static void test_count(void)
{
    struct ras_count c;
    /* before 6.8: two lines */
    CHECK(ras_parse_count("ue: 2\nce: 17\n", &c) == RAS_COUNT_OK);
    CHECK(c.ue == 2 && c.ce == 17 && c.de == -1);
    /* 6.8+: a deferred line after them */
    CHECK(ras_parse_count("ue: 0\nce: 3\nde: 5\n", &c) == RAS_COUNT_OK);
    CHECK(c.ue == 0 && c.ce == 3 && c.de == 5);
    /* without the last newline (rootfs may trim it) */
    CHECK(ras_parse_count("ue: 1\nce: 0", &c) == RAS_COUNT_OK && c.ue == 1);
    CHECK(ras_parse_count("Query currently inaccessible\n", &c) == RAS_COUNT_INACCESSIBLE);
    CHECK(c.ue == -1 && c.ce == -1);
    /* anything else is not trusted */
    CHECK(ras_parse_count("", &c) == RAS_COUNT_BAD);
    CHECK(ras_parse_count("ue: 1\n", &c) == RAS_COUNT_BAD && c.ue == -1);
    CHECK(ras_parse_count("ce: 1\nue: 0\n", &c) == RAS_COUNT_BAD);
    CHECK(ras_parse_count("ue: -1\nce: 0\n", &c) == RAS_COUNT_BAD);
    CHECK(ras_parse_count("ue: 1x\nce: 0\n", &c) == RAS_COUNT_BAD);
    CHECK(ras_parse_count("ue:1\nce: 0\n", &c) == RAS_COUNT_BAD);
    CHECK(ras_parse_count("ue: 0\nce: 0\nde: 0\nxx: 0\n", &c) == RAS_COUNT_BAD);
    CHECK(ras_parse_count("ue: 99999999999999999999\nce: 0\n", &c) == RAS_COUNT_BAD);
    CHECK(ras_parse_count("ue: 9223372036854775807\nce: 0\n", &c) == RAS_COUNT_OK);
}

static void test_pages(void)
{
    struct ras_pages p;
    /* the kernel's own example (amdgpu_ras.c DOC: gpu_vram_bad_pages) */
    CHECK(ras_parse_bad_pages("0x00000001 : 0x00001000 : R\n0x00000002 : 0x00001000 : P\n", &p) ==
          0);
    CHECK(p.reserved == 1 && p.pending == 1 && p.failed == 0 && p.bad_line == 0);
    CHECK(ras_parse_bad_pages("", &p) == 0 && p.reserved == 0);
    CHECK(ras_parse_bad_pages("0x0001a2b3 : 0x00001000 : F", &p) == 0 && p.failed == 1);
    CHECK(ras_parse_bad_pages("0x00000001 : 0x00001000 : R\n0x1 : 0x1000 : R\n", &p) == -1);
    CHECK(p.bad_line == 2);
    CHECK(ras_parse_bad_pages("0x00000001 : 0x00001000 : X\n", &p) == -1 && p.bad_line == 1);
    CHECK(ras_parse_bad_pages("0x0000000g : 0x00001000 : R\n", &p) == -1);
    CHECK(ras_parse_bad_pages("0x00000001 - 0x00001000 : R\n", &p) == -1);
}

static void test_threshold(void)
{
    /* negative (-1 default, -2): VRAM / 100 MiB; 64 GiB gives 655 */
    CHECK(ras_page_threshold(-1, 64 * GIB) == 655);
    CHECK(ras_page_threshold(-2, 192 * GIB) == 1966);
    /* capped at the EEPROM table: 10921 records */
    CHECK(RAS_EEPROM_MAX_RECORDS == 10921);
    CHECK(ras_page_threshold(-1, 2048 * GIB) == 10921);
    CHECK(ras_page_threshold(10921, 0) == 10921);
    CHECK(ras_page_threshold(10922, 0) == 10921);
    CHECK(ras_page_threshold(100, 64 * GIB) == 100);
    CHECK(ras_page_threshold(0, 64 * GIB) == 0);
    CHECK(ras_block_family("umc") == RAS_MEMORY);
    CHECK(ras_block_family("xgmi_wafl") == RAS_LINK && ras_block_family("pcie_bif") == RAS_LINK);
    CHECK(ras_block_family("gfx") == RAS_ENGINE && ras_block_family("mmhub") == RAS_ENGINE);
}

static struct factset fs = FACTSET_INIT;

static void probe(void)
{
    factset_release(&fs);
    if (rootfs_init(root))
        exit(2);
    fact_set_int(&fs, "gpu.0.vram_bytes", 64 * GIB, "test");
    gp_ras_facts(&fs, 0, BDF);
}

static int64_t fint(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_INT ? f->i : -999;
}

static const char *reason(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_UNKNOWN && f->reason ? f->reason : "";
}

static size_t list_n(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_LIST ? f->list.n : 999;
}

static const char *item(const char *name, size_t i)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_LIST && i < f->list.n ? f->list.v[i] : "";
}

static void test_probe(void)
{
    /* an MI250X-like GCD: memory, engine and link blocks, 6.8+ format */
    tree_fresh("ras");
    put(DEV "/ras/features", "feature mask: 0x3fff\n");
    put(DEV "/ras/umc_err_count", "ue: 2\nce: 17\nde: 0\n");
    put(DEV "/ras/gfx_err_count", "ue: 1\nce: 0\n");
    put(DEV "/ras/sdma_err_count", "ue: 0\nce: 4\n");
    put(DEV "/ras/xgmi_wafl_err_count", "ue: 0\nce: 0\n");
    put(DEV "/ras/gpu_vram_bad_pages", "0x00012345 : 0x00001000 : R\n0x00012346 : 0x00001000 : "
                                       "R\n0x00023456 : 0x00001000 : P\n");
    put("/sys/module/amdgpu/parameters/bad_page_threshold", "-1\n");
    probe();
    CHECK(fint("gpu.0.ras_ue") == 3 && fint("gpu.0.ras_ce") == 21);
    CHECK(fint("gpu.0.ras_de") == 0);
    CHECK(fint("gpu.0.ras_umc_ue") == 2 && fint("gpu.0.ras_umc_ce") == 17);
    CHECK(fint("gpu.0.ras_engine_ue") == 1 && fint("gpu.0.ras_link_ue") == 0);
    CHECK(list_n("gpu.0.ras_ue_blocks") == 2 && list_n("gpu.0.ras_unreadable") == 0);
    CHECK(list_n("gpu.0.ras_ce_blocks") == 2);
    CHECK(fint("gpu.0.ras_pages_retired") == 2 && fint("gpu.0.ras_pages_pending") == 1);
    CHECK(fint("gpu.0.ras_pages_failed") == 0);
    CHECK(fint("gpu.0.ras_page_threshold") == 655);
    CHECK(fint("gpu.0.ras_page_threshold_param") == -1);

    /* in a reset: the engine counter is inaccessible; the family is unknown
     * (never 0), the blocks read still count, the block is named */
    put(DEV "/ras/gfx_err_count", "Query currently inaccessible\n");
    put(DEV "/ras/umc_err_count", "ue: 0\nce: 0\n");
    put("/sys/module/amdgpu/parameters/bad_page_threshold", "0\n");
    probe();
    CHECK(fint("gpu.0.ras_engine_ue") == -999);
    CHECK(strstr(reason("gpu.0.ras_engine_ue"), "inaccessible") != NULL);
    CHECK(fint("gpu.0.ras_umc_ue") == 0 && fint("gpu.0.ras_ce") == 4);
    CHECK(list_n("gpu.0.ras_unreadable") == 1);
    CHECK_STR(item("gpu.0.ras_unreadable", 0), "gfx: Query currently inaccessible");
    /* no "de:" line read anywhere and one block unread: unknown */
    CHECK(fint("gpu.0.ras_de") == -999);
    CHECK(strstr(reason("gpu.0.ras_page_threshold"), "off") != NULL);

    /* a nonzero count read elsewhere is a lower bound: still "> 0" */
    put(DEV "/ras/mmhub_err_count", "ue: 4\nce: 0\n");
    probe();
    CHECK(fint("gpu.0.ras_engine_ue") == 4);

    /* a malformed bad-page table is unknown with the line, not 0 pages */
    put(DEV "/ras/gpu_vram_bad_pages", "0x00012345 : 0x00001000 : R\ngarbage\n");
    probe();
    CHECK(fint("gpu.0.ras_pages_retired") == -999);
    CHECK(strstr(reason("gpu.0.ras_pages_retired"), "line 2") != NULL);

    /* two blocks at 2^63-1: the sums saturate (a signed sum gave -2) */
    put(DEV "/ras/umc_err_count", "ue: 9223372036854775807\nce: 9223372036854775807\n");
    put(DEV "/ras/gfx_err_count", "ue: 9223372036854775807\nce: 0\n");
    probe();
    CHECK(fint("gpu.0.ras_ue") == INT64_MAX && fint("gpu.0.ras_ce") == INT64_MAX);
    const struct fact *sf = fact_get(&fs, "gpu.0.ras_ue");
    CHECK(sf && sf->source && strstr(sf->source, "held there"));

    /* no bad-page file, no module parameter */
    tree_fresh("ras");
    put(DEV "/ras/umc_err_count", "ue: 0\nce: 0\n");
    probe();
    CHECK(strstr(reason("gpu.0.ras_pages_retired"), "bad_page_threshold=0") != NULL);
    CHECK(fint("gpu.0.ras_page_threshold") == -999);
    CHECK(strstr(reason("gpu.0.ras_link_ue"), "xgmi_wafl") != NULL);
    CHECK(strstr(reason("gpu.0.ras_engine_ue"), "engine") != NULL);
    CHECK(strstr(reason("gpu.0.ras_de"), "6.8") != NULL); /* a kernel before 6.8 */

    /* no ras/ directory: no RAS at all, every counter unknown */
    tree_fresh("ras");
    put(DEV "/vendor", "0x1002\n");
    probe();
    const struct fact *f = fact_get(&fs, "gpu.0.ras_present");
    CHECK(f && f->type == FACT_BOOL && !f->b);
    CHECK(fint("gpu.0.ras_ue") == -999 && fint("gpu.0.ras_pages_retired") == -999);
    tree_remove();
}

int main(void)
{
    test_count();
    test_pages();
    test_threshold();
    test_probe();
    factset_release(&fs);
    return test_report();
}
