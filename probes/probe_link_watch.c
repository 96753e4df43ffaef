/* probe_link_watch.c - the PCIe link of each GPU before and after the
 * standard level's GPU probes (RVS PESM's question: did a link retrain or
 * lose lanes while the GPU was under load?). link_start runs before the
 * first GPU probe, link_end after the last one (probe_table.c); both read
 * the slot's link (pci_path_slot: the on-card switch's upstream port of a
 * Navi card, else the GPU) through rootfs, so a test swaps the files between
 * the two. A link that drops and recovers inside the window is not seen: the
 * kernel log's AER lines (gpu.pcie_errors) are the record of those. */
#include "gpu_pci.h"
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_link_start_run(struct probe_ctx *ctx);
int probe_link_end_run(struct probe_ctx *ctx);

static void watch(struct factset *fs, const char *when)
{
    const struct fact *count = fact_get(fs, "gpu.count");
    int n = count && count->type == FACT_INT ? (int)count->i : 0;
    char wname[48], sname[48], fn[FACT_NAME_MAX], buf[FACT_NAME_MAX];
    snprintf(wname, sizeof(wname), "link.%s_width", when);
    snprintf(sname, sizeof(sname), "link.%s_speed_gts", when);
    for (int g = 0; g < n; g++) {
        const char *bdf = probe_gpu_pci(fs, g, buf);
        if (!bdf)
            continue;
        struct pci_hop *h;
        size_t nh;
        int rc = pci_path_read(bdf, &h, &nh);
        if (rc) {
            fact_set_errno(fs, fact_gpu_name(fn, g, wname), GP_PCI_DEVICES, rc);
            fact_set_errno(fs, fact_gpu_name(fn, g, sname), GP_PCI_DEVICES, rc);
            continue;
        }
        const struct pci_hop *s = &h[pci_path_slot(h, nh)];
        if (s->has_link && s->width > 0) {
            fact_set_int(fs, fact_gpu_name(fn, g, wname), s->width, s->dir);
            fact_set_float(fs, fact_gpu_name(fn, g, sname), s->speed, s->dir);
        } else {
            fact_set_unknown(fs, fact_gpu_name(fn, g, wname), s->dir, "no readable link files");
            fact_set_unknown(fs, fact_gpu_name(fn, g, sname), s->dir, "no readable link files");
        }
        free(h);
    }
}

int probe_link_start_run(struct probe_ctx *ctx)
{
    watch(ctx->facts, "watch_start");
    return 0;
}

int probe_link_end_run(struct probe_ctx *ctx)
{
    watch(ctx->facts, "watch_end");
    return 0;
}
