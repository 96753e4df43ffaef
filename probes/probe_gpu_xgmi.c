/* probe_gpu_xgmi.c - the XGMI links between the GPUs of one hive (MI200/
 * MI300-class), from two kernel interfaces:
 *
 * - amdgpu's sysfs (drivers/gpu/drm/amd/amdgpu/amdgpu_xgmi.c, torvalds/linux
 *   at 00f85667faf0): <device>/xgmi_hive_info/xgmi_hive_id ("%llu\n"; the
 *   directory exists only when the GPU is in a hive, amdgpu_get_xgmi_hive
 *   returns none for hive id 0) and <device>/xgmi_physical_id ("%u\n").
 *   The kernel exposes no per-link up/down state in sysfs
 *   (amdgpu_get_xgmi_link_status reads a PCS register for the SMU only).
 * - KFD's topology io_links (drivers/gpu/drm/amd/amdkfd/kfd_topology.c
 *   iolink_show; kfd_crat.h at torvalds/linux 0f2cb7cf8033, copied in
 *   tests/data/kfd_iolink_defs.h): "type" 11 is CRAT_IOLINK_TYPE_XGMI, 2
 *   CRAT_IOLINK_TYPE_PCIEXPRESS; "flags" bit 0 CRAT_IOLINK_FLAGS_ENABLED;
 *   max_bandwidth is the number of links to that peer times one link's
 *   bandwidth in MB/s (amdgpu_amdkfd_get_xgmi_bandwidth_mbytes), 0 for a
 *   peer reached only through another GPU.
 *
 * Facts per GPU: gpu.<i>.xgmi_hive_id, xgmi_physical_id, xgmi_hive_gpus
 * (GPUs of this host in the same hive), xgmi_links (distinct other GPUs
 * that an enabled XGMI io_link reaches: a duplicated link counts once),
 * xgmi_links_down (peers with links and none of them enabled),
 * xgmi_links_slow (peers whose max_bandwidth is below this GPU's fastest
 * link: fewer links or a narrower one), xgmi_bw_min_mbs, xgmi_links_expected
 * (where the product joins every GPU of a hive to every other one). */
#include "gpu_pci.h"
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IOLINK_TYPE_XGMI 11       /* kfd_crat.h CRAT_IOLINK_TYPE_XGMI */
#define IOLINK_FLAGS_ENABLED 0x1u /* kfd_crat.h CRAT_IOLINK_FLAGS_ENABLED */

/* targets whose hives join every GPU to every other one directly: an
 * MI300X/MI325X OAM board of 8 (gfx942) and MI350 (gfx950). MI250X
 * (gfx90a) joins its GCDs in a partial mesh, so no count is expected. */
static const char *const fully_connected[] = {"gfx942", "gfx950"};

struct xgmi_gpu {
    char *hive;
    int node;
};

/* the GPU whose KFD node is `node`, -1 when none */
static int gpu_of_node(const struct xgmi_gpu *g, int n, int node)
{
    for (int i = 0; i < n; i++)
        if (g[i].node >= 0 && g[i].node == node)
            return i;
    return -1;
}

static void hive_facts(struct factset *fs, int i, const char *bdf, struct xgmi_gpu *g)
{
    char fn[FACT_NAME_MAX], src[160], *text = NULL;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/xgmi_hive_info/xgmi_hive_id", bdf);
    int rc = rootfs_read_str(src, &text);
    fact_gpu_name(fn, i, "xgmi_hive_id");
    if (rc == -ENOENT)
        fact_set_unknown(fs, fn, src,
                         "no xgmi_hive_info: not in an XGMI hive (one GPU, or GPUs on PCIe only)");
    else if (rc)
        fact_set_errno(fs, fn, src, rc);
    else {
        g->hive = xstrdup(str_trim(text));
        fact_set_str(fs, fn, g->hive, src);
    }
    free(text);
    int64_t phys;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/xgmi_physical_id", bdf);
    rc = rootfs_readf_i64(&phys, "%s", src);
    fact_gpu_name(fn, i, "xgmi_physical_id");
    if (rc == 0)
        fact_set_int(fs, fn, phys, src);
    else if (rc == -ENOENT)
        fact_set_unknown(fs, fn, src, "no xgmi_physical_id: not in an XGMI hive");
    else
        fact_set_errno(fs, fn, src, rc);
}

static void link_facts(struct factset *fs, int i, const struct xgmi_gpu *g, int n)
{
    char fn[FACT_NAME_MAX], dir[96];
    snprintf(dir, sizeof(dir), GP_KFD_NODES "/%d/io_links", g[i].node);
    struct strlist links = STRLIST_INIT, down = STRLIST_INIT, slow = STRLIST_INIT;
    int rc = rootfs_list(dir, &links);
    if (rc) {
        const char *names[] = {"xgmi_links", "xgmi_links_down", "xgmi_links_slow",
                               "xgmi_bw_min_mbs"};
        for (size_t k = 0; k < ARRAY_SIZE(names); k++)
            fact_set_errno(fs, fact_gpu_name(fn, i, names[k]), dir, rc);
        return;
    }
    /* per peer GPU, not per io_link (issue 30): a duplicated link to one
     * peer must not stand in for a missing one. A peer is up when any of
     * its links is enabled, at the best of their bandwidths. */
    int *up = xcalloc((size_t)n, sizeof(*up)), *seen = xcalloc((size_t)n, sizeof(*seen));
    uint64_t *bw = xcalloc((size_t)n, sizeof(*bw)), bw_max = 0;
    for (size_t l = 0; l < links.n; l++) {
        char *props = NULL;
        uint64_t type, to, flags = 0, max_bw = 0;
        if (rootfs_readf_str(&props, "%s/%s/properties", dir, links.v[l]))
            continue;
        int ok = !gp_kv_get(props, "type", &type) && type == IOLINK_TYPE_XGMI &&
                 !gp_kv_get(props, "node_to", &to);
        gp_kv_get(props, "flags", &flags);
        gp_kv_get(props, "max_bandwidth", &max_bw);
        free(props);
        int j = ok && to < 100000 ? gpu_of_node(g, n, (int)to) : -1;
        if (j < 0 || j == i)
            continue; /* a CPU, a partition of this GPU, or no XGMI */
        seen[j] = 1;
        if (!(flags & IOLINK_FLAGS_ENABLED))
            continue;
        up[j] = 1;
        if (max_bw > bw[j])
            bw[j] = max_bw;
        if (max_bw > bw_max)
            bw_max = max_bw;
    }
    strlist_release(&links);
    uint64_t bw_min = bw_max;
    int count = 0;
    for (int p = 0; p < n; p++) {
        if (seen[p] && !up[p])
            strlist_add_owned(&down, xasprintf("gpu.%d (KFD node %d)", p, g[p].node));
        if (!up[p])
            continue;
        count++;
        if (bw[p] < bw_max)
            strlist_add_owned(&slow,
                              xasprintf("gpu.%d (%llu of %llu MB/s)", p, (unsigned long long)bw[p],
                                        (unsigned long long)bw_max));
        if (bw[p] < bw_min)
            bw_min = bw[p];
    }
    free(up);
    free(seen);
    free(bw);
    fact_set_int(fs, fact_gpu_name(fn, i, "xgmi_links"), count, dir);
    fact_set_list(fs, fact_gpu_name(fn, i, "xgmi_links_down"), &down, dir);
    fact_set_list(fs, fact_gpu_name(fn, i, "xgmi_links_slow"), &slow, dir);
    fact_gpu_name(fn, i, "xgmi_bw_min_mbs");
    if (bw_max > 0)
        fact_set_int(fs, fn, (int64_t)bw_min, dir);
    else
        fact_set_unknown(fs, fn, dir, "%s",
                         count ? "the kernel fills no XGMI bandwidth (before GC 9.4.2)"
                               : "no enabled XGMI link to another GPU");
    strlist_release(&down);
    strlist_release(&slow);
}

static void expected_fact(struct factset *fs, int i, int hive_gpus)
{
    char fn[FACT_NAME_MAX];
    const struct fact *gfx = fact_get(fs, fact_gpu_name(fn, i, "gfx"));
    fact_gpu_name(fn, i, "xgmi_links_expected");
    if (!gfx || gfx->type != FACT_STR) {
        fact_set_unknown(fs, fn, GP_KFD_NODES, "the gfx target is not known");
        return;
    }
    for (size_t k = 0; k < ARRAY_SIZE(fully_connected); k++)
        if (strcmp(gfx->s, fully_connected[k]) == 0) {
            fact_set_int(fs, fn, hive_gpus - 1, "xgmi_hive_id");
            return;
        }
    fact_set_unknown(fs, fn, GP_KFD_NODES,
                     "a %s hive is not fully connected: only down and slow links are judged",
                     gfx->s);
}

void gp_xgmi_facts(struct factset *fs, int ngpu)
{
    if (ngpu <= 0)
        return;
    struct xgmi_gpu *g = xcalloc((size_t)ngpu, sizeof(*g));
    char fn[FACT_NAME_MAX], buf[FACT_NAME_MAX];
    for (int i = 0; i < ngpu; i++) {
        const struct fact *k = fact_get(fs, fact_gpu_name(fn, i, "kfd_node"));
        g[i].node = k && k->type == FACT_INT ? (int)k->i : -1;
        const char *bdf = probe_gpu_pci(fs, i, buf);
        if (bdf)
            hive_facts(fs, i, bdf, &g[i]);
    }
    for (int i = 0; i < ngpu; i++) {
        if (!g[i].hive)
            continue; /* the hive id's reason stands for the rest */
        int same = 0;
        for (int j = 0; j < ngpu; j++)
            same += g[j].hive && strcmp(g[j].hive, g[i].hive) == 0;
        fact_set_int(fs, fact_gpu_name(fn, i, "xgmi_hive_gpus"), same, "xgmi_hive_id");
        expected_fact(fs, i, same);
        if (g[i].node >= 0)
            link_facts(fs, i, g, ngpu);
        else
            fact_set_unknown(fs, fact_gpu_name(fn, i, "xgmi_links"), GP_KFD_NODES,
                             "no KFD topology node for this GPU");
    }
    for (int i = 0; i < ngpu; i++)
        free(g[i].hive);
    free(g);
}
