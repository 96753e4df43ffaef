/* test_partition.c - the compute and memory partition modes
 * (probes/probe_gpu_partition.c) as amdgpu_gfx.c / amdgpu_gmc.c print them:
 * one mode per current_* file, the available ones joined by ", ",
 * "Not supported", and text no kernel prints (unknown, never a mode). */
#include "../../probes/gpu_pci.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define BDF "0000:05:00.0"
#define DEV "/sys/bus/pci/devices/" BDF

static struct factset fs = FACTSET_INIT;

static void probe(void)
{
    factset_release(&fs);
    if (rootfs_init(root))
        exit(2);
    gp_partition_facts(&fs, 0, BDF);
}

static const char *fstr(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_STR ? f->s : "";
}

static const char *reason(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_UNKNOWN && f->reason ? f->reason : "";
}

static const struct fact *flist(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_LIST ? f : NULL;
}

int main(void)
{
    tree_fresh("part");
    put(DEV "/current_compute_partition", "CPX\n");
    put(DEV "/available_compute_partition", "SPX, DPX, QPX, CPX\n");
    put(DEV "/current_memory_partition", "NPS4\n");
    put(DEV "/available_memory_partition", "NPS1, NPS4\n");
    probe();
    CHECK_STR(fstr("gpu.0.compute_partition"), "CPX");
    CHECK_STR(fstr("gpu.0.memory_partition"), "NPS4");
    const struct fact *l = flist("gpu.0.compute_partitions_available");
    CHECK(l && l->list.n == 4 && strcmp(l->list.v[3], "CPX") == 0);
    l = flist("gpu.0.memory_partitions_available");
    CHECK(l && l->list.n == 2 && strcmp(l->list.v[1], "NPS4") == 0);

    /* an older kernel's "Not supported", and modes no kernel prints */
    put(DEV "/available_compute_partition", "Not supported\n");
    put(DEV "/current_compute_partition", "UNKNOWN\n");
    put(DEV "/current_memory_partition", "NPS1, NPS4\n");
    put(DEV "/available_memory_partition", "NPS1, , NPS4\n");
    probe();
    CHECK(strstr(reason("gpu.0.compute_partitions_available"), "no compute partitions") != NULL);
    CHECK(strstr(reason("gpu.0.compute_partition"), "'UNKNOWN'") != NULL);
    CHECK(strstr(reason("gpu.0.memory_partition"), "no memory partition mode") != NULL);
    CHECK(flist("gpu.0.memory_partitions_available") == NULL);

    /* a GPU without the files: not partitionable */
    tree_fresh("part");
    put(DEV "/vendor", "0x1002\n");
    probe();
    CHECK(strstr(reason("gpu.0.compute_partition"), "not a partitionable GPU") != NULL);
    CHECK(strstr(reason("gpu.0.memory_partition"), "not a partitionable GPU") != NULL);
    tree_remove();
    factset_release(&fs);
    return test_report();
}
