/* test_xgmi.c - the XGMI hive and link facts (probes/probe_gpu_xgmi.c) on
 * a tree of three GPUs in one hive, the io_link type and flag values taken
 * from tests/data/kernel/kfd_iolink_defs.h (a copy of the kernel's
 * kfd_crat.h), never from the probe's own constants: one link enabled at
 * full bandwidth, one slower, one not enabled, a PCIe link to the CPU that
 * is no XGMI link, and a GPU outside any hive. */
#include "../../probes/gpu_pci.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct factset fs = FACTSET_INIT;

/* the value of `#define NAME value` in the kernel definitions' copy */
static long kernel_def(const char *name)
{
    FILE *fp = fopen("tests/data/kernel/kfd_iolink_defs.h", "r");
    char line[256], n[96], v[64];
    long out = -1;
    while (fp && out < 0 && fgets(line, sizeof(line), fp))
        if (sscanf(line, "#define %95s %63s", n, v) == 2 && strcmp(n, name) == 0)
            out = strcmp(v, "(1") == 0 ? 1L << atoi(strstr(line, "<<") + 2) : strtol(v, NULL, 0);
    if (fp)
        fclose(fp);
    return out;
}

static void io_link(int node, int k, long type, int to, int bw, long flags)
{
    char p[160];
    snprintf(p, sizeof(p), "/sys/class/kfd/kfd/topology/nodes/%d/io_links/%d/properties", node, k);
    putf(p,
         "type %ld\nversion_major 0\nversion_minor 0\nnode_from %d\nnode_to %d\nweight 15\n"
         "min_latency 0\nmax_latency 0\nmin_bandwidth 50000\nmax_bandwidth %d\n"
         "recommended_transfer_size 0\nflags %ld\n",
         type, node, to, bw, flags);
}

static void gpu(int i, const char *bdf, int node, const char *hive)
{
    char fn[FACT_NAME_MAX], p[160];
    fact_set_str(&fs, fact_gpu_name(fn, i, "pci"), bdf, "test");
    fact_set_int(&fs, fact_gpu_name(fn, i, "kfd_node"), node, "test");
    fact_set_str(&fs, fact_gpu_name(fn, i, "gfx"), "gfx942", "test");
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", bdf);
    put(p, "0x1002\n");
    if (hive) {
        snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/xgmi_hive_info/xgmi_hive_id", bdf);
        put(p, hive);
        snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/xgmi_physical_id", bdf);
        putf(p, "%d\n", i);
    }
}

static const struct fact *get(const char *name, enum fact_type t)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == t ? f : NULL;
}

int main(void)
{
    long xgmi = kernel_def("CRAT_IOLINK_TYPE_XGMI"),
         pcie = kernel_def("CRAT_IOLINK_TYPE_PCIEXPRESS");
    long enabled = kernel_def("CRAT_IOLINK_FLAGS_ENABLED");
    CHECK(xgmi == 11 && pcie == 2 && enabled == 1); /* the copy was read */
    tree_fresh("xgmi");
    gpu(0, "0000:05:00.0", 2, "77\n");
    gpu(1, "0000:15:00.0", 3, "77\n");
    gpu(2, "0000:65:00.0", 4, "77\n");
    gpu(3, "0000:75:00.0", 5, NULL);
    io_link(2, 0, pcie, 0, 0, enabled);
    io_link(2, 1, xgmi, 3, 50000, enabled);
    io_link(2, 2, xgmi, 4, 25000, enabled);
    io_link(3, 0, xgmi, 2, 50000, enabled);
    io_link(3, 1, xgmi, 4, 50000, 0);
    io_link(3, 2, xgmi, 2, 50000, enabled); /* a duplicate of link 0: one peer */
    io_link(4, 0, pcie, 0, 0, enabled);
    if (rootfs_init(root))
        return 2;
    gp_xgmi_facts(&fs, 4);

    const struct fact *f = get("gpu.0.xgmi_hive_id", FACT_STR);
    CHECK(f && strcmp(f->s, "77") == 0);
    CHECK((f = get("gpu.0.xgmi_hive_gpus", FACT_INT)) && f->i == 3);
    CHECK((f = get("gpu.0.xgmi_links", FACT_INT)) && f->i == 2); /* PCIe not counted */
    CHECK((f = get("gpu.0.xgmi_links_expected", FACT_INT)) && f->i == 2);
    CHECK((f = get("gpu.0.xgmi_links_slow", FACT_LIST)) && f->list.n == 1 &&
          strstr(f->list.v[0], "gpu.2 (25000 of 50000") != NULL);
    CHECK((f = get("gpu.0.xgmi_bw_min_mbs", FACT_INT)) && f->i == 25000);
    /* distinct peers, not links (issue 30): the duplicate link to gpu.0
     * does not hide the down one to gpu.2 */
    CHECK((f = get("gpu.1.xgmi_links", FACT_INT)) && f->i == 1);
    CHECK((f = get("gpu.1.xgmi_links_down", FACT_LIST)) && f->list.n == 1 &&
          strstr(f->list.v[0], "gpu.2 (KFD node 4)") != NULL);
    CHECK((f = get("gpu.2.xgmi_links", FACT_INT)) && f->i == 0);
    CHECK(get("gpu.2.xgmi_bw_min_mbs", FACT_UNKNOWN) != NULL);
    CHECK((f = get("gpu.3.xgmi_hive_id", FACT_UNKNOWN)) &&
          strstr(f->reason, "not in an XGMI hive"));
    CHECK(fact_get(&fs, "gpu.3.xgmi_links") == NULL);
    tree_remove();
    factset_release(&fs);
    return test_report();
}
