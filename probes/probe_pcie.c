/* probe_pcie.c - the PCIe path from each GPU up to its root port.
 *
 * The device's canonical sysfs path (/sys/devices/pci0000:00/0000:00:01.1/
 * 0000:01:00.0/0000:02:00.0/0000:03:00.0) names every hop. A path is a root
 * port followed by pairs (switch upstream port, switch downstream port) and
 * the GPU: each link joins a downstream-facing port (root or switch
 * downstream port) to the next hop, an upstream-facing port. The link is
 * judged at its upstream-facing end, whose max_link_* are the card's (or the
 * switch's) capability: a Gen5 root port with a Gen4 card is not a slow link,
 * an x16 card in an x8-wired slot is a narrow one. Navi cards carry their
 * own switch (1002:1478 / 1002:1479), so their slot link is the one at the
 * on-card upstream port. Idle links downclock: speed is judged against the
 * GPU's top pp_dpm_pcie level. AtomicOp bits: probe_pcie_atomics.c; AER
 * counters, replays and ASPM states: probe_pcie_health.c. The walker and
 * the hop choice are src/core/pci_path.c (the telemetry sampler shares them). */
#include "gpu_pci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_pcie_run(struct probe_ctx *ctx);

int gp_dpm_pcie_top(const char *text, double *gts, unsigned *width)
{
    int found = 0;
    for (const char *p = text; p && *p;) {
        unsigned lvl, w = 0;
        double v;
        /* "1: 16.0GT/s, x16 619Mhz *"; older kernels: "1: 8.0GT/s, x16 *" */
        if (sscanf(p, "%u: %lfGT/s, x%u", &lvl, &v, &w) >= 2 && v > 0 && (!found || v > *gts)) {
            *gts = v;
            *width = w;
            found = 1;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return found ? 0 : -EINVAL;
}

static void hop_id(struct strbuf *sb, const struct pci_hop *h)
{
    strbuf_addf(sb, "%s [%04x:%04x]", h->bdf, h->vendor, h->device);
}

static void hop_link_text(struct strbuf *sb, const struct pci_hop *h)
{
    strbuf_addf(sb, "%.1f GT/s x%u (max %.1f GT/s x%u)", h->speed, h->width, h->max_speed,
                h->max_width);
}

static const char *const link_fact_names[] = {
    "link.hops",          "link.hop_count", "link.width",         "link.max_width",
    "link.narrowest_hop", "link.speed_gts", "link.max_speed_gts", "link.reachable_speed_gts",
    "link.slowest_hop",   "link.slot",
};

static void link_unknown(struct factset *fs, int gpu, const char *src, const char *reason)
{
    char fn[FACT_NAME_MAX];
    for (size_t i = 0; i < ARRAY_SIZE(link_fact_names); i++)
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, link_fact_names[i]), src, "%s", reason);
}

static void link_facts(struct factset *fs, int gpu, const char *bdf, const struct pci_hop *h,
                       size_t n)
{
    char fn[FACT_NAME_MAX], src[96];
    struct strlist hops = STRLIST_INIT;
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s", bdf);
    for (size_t k = 0; k < n; k++) {
        if (!h[k].has_link)
            continue; /* host bridges and some virtual ports have no link files */
        struct strbuf sb = STRBUF_INIT;
        hop_id(&sb, &h[k]);
        strbuf_addc(&sb, ' ');
        hop_link_text(&sb, &h[k]);
        strlist_add_owned(&hops, strbuf_detach(&sb));
    }
    long narrow, slow;
    pci_path_pick(h, n, &narrow, &slow);
    if (narrow < 0) {
        link_unknown(fs, gpu, src, "no hop on the path has readable current/max link files");
        strlist_release(&hops);
        return;
    }
    fact_set_list(fs, fact_gpu_name(fn, gpu, "link.hops"), &hops, src);
    fact_set_int(fs, fact_gpu_name(fn, gpu, "link.hop_count"), (int64_t)hops.n, src);
    strlist_release(&hops);

    const struct pci_hop *nh = &h[narrow], *sh = &h[slow];
    struct strbuf sb = STRBUF_INIT;
    char wsrc[96], ssrc[96];
    snprintf(wsrc, sizeof(wsrc), GP_PCI_DEVICES "/%s/current_link_width", nh->bdf);
    snprintf(ssrc, sizeof(ssrc), GP_PCI_DEVICES "/%s/current_link_speed", sh->bdf);
    fact_set_int(fs, fact_gpu_name(fn, gpu, "link.width"), nh->width, wsrc);
    fact_set_int(fs, fact_gpu_name(fn, gpu, "link.max_width"), nh->max_width, wsrc);
    hop_id(&sb, nh);
    fact_set_str(fs, fact_gpu_name(fn, gpu, "link.narrowest_hop"), sb.buf, wsrc);
    strbuf_release(&sb);

    fact_set_float(fs, fact_gpu_name(fn, gpu, "link.speed_gts"), sh->speed, ssrc);
    fact_set_float(fs, fact_gpu_name(fn, gpu, "link.max_speed_gts"), sh->max_speed, ssrc);
    hop_id(&sb, sh);
    fact_set_str(fs, fact_gpu_name(fn, gpu, "link.slowest_hop"), sb.buf, ssrc);
    strbuf_release(&sb);

    /* idle links train down; the top DPM level is what the GPU will ask
     * for under load. A top above a hop's maximum (a Gen5 card in a Gen4
     * slot) is capped below, not dropped for the idle speed */
    char *dpm, dsrc[128];
    double top = 0;
    unsigned topw = 0;
    snprintf(dsrc, sizeof(dsrc), GP_PCI_DEVICES "/%s/pp_dpm_pcie", bdf);
    int drc = rootfs_read_str(dsrc, &dpm);
    if (drc == 0) {
        drc = gp_dpm_pcie_top(dpm, &top, &topw);
        free(dpm);
    }
    const char *fr = fact_gpu_name(fn, gpu, "link.reachable_speed_gts");
    int use_top = drc == 0 && top > sh->speed;
    double reach = use_top ? top : sh->speed;
    const char *rsrc = use_top ? dsrc : ssrc;
    /* no link trains above either end's maximum, and the slowest link
     * bounds the path: an idle Gen4 card behind a Gen3 root port or bridge
     * reaches 8 GT/s, not its top DPM level (every hop with link files, the
     * unjudged ends of links included) */
    char csrc[96];
    for (size_t k = 0; k < n; k++)
        if (h[k].has_link && h[k].max_speed > 0 && h[k].max_speed < reach - 1e-9) {
            reach = h[k].max_speed;
            snprintf(csrc, sizeof(csrc), GP_PCI_DEVICES "/%s/max_link_speed", h[k].bdf);
            rsrc = csrc;
        }
    if (drc == 0 || sh->speed >= sh->max_speed - 1e-9)
        fact_set_float(fs, fr, reach, rsrc);
    else
        fact_set_unknown(fs, fr, dsrc,
                         "%s runs below its maximum and pp_dpm_pcie is unavailable to tell an "
                         "idle downclock from a slow slot",
                         sh->bdf);

    size_t s = pci_path_slot(h, n);
    if (h[s].has_link) {
        hop_id(&sb, &h[s]);
        strbuf_addc(&sb, ' ');
        hop_link_text(&sb, &h[s]);
        fact_set_str(fs, fact_gpu_name(fn, gpu, "link.slot"), sb.buf, h[s].bdf);
        strbuf_release(&sb);
    } else {
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "link.slot"), h[s].bdf,
                         "no readable link files at %s", h[s].bdf);
    }
}

/* "NVIDIA 0000:19:00.0: 32.0 GT/s x16 (max 32.0 GT/s x16)" for an entry of
 * gpu.other ("NVIDIA [10de:2335] at 0000:19:00.0") */
static char *other_link(const char *entry)
{
    const char *at = strstr(entry, " at ");
    const char *br = strstr(entry, " [");
    if (!at || !br)
        return NULL;
    const char *bdf = at + 4;
    struct pci_hop *h;
    size_t n;
    struct strbuf sb = STRBUF_INIT;
    strbuf_add(&sb, entry, (size_t)(br - entry));
    strbuf_addf(&sb, " %s: ", bdf);
    if (pci_path_read(bdf, &h, &n) == 0) {
        size_t s = pci_path_slot(h, n);
        if (h[s].has_link)
            hop_link_text(&sb, &h[s]);
        else
            strbuf_adds(&sb, "no readable link files");
        free(h);
    } else {
        strbuf_adds(&sb, "no PCI path");
    }
    return strbuf_detach(&sb);
}

int probe_pcie_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const struct fact *other = fact_get(fs, "gpu.other");
    if (other && other->type == FACT_LIST) {
        struct strlist links = STRLIST_INIT;
        for (size_t i = 0; i < other->list.n; i++) {
            char *l = other_link(other->list.v[i]);
            if (l)
                strlist_add_owned(&links, l);
        }
        fact_set_list(fs, "gpu.other_links", &links, GP_PCI_DEVICES);
        strlist_release(&links);
    } else {
        fact_set_unknown(fs, "gpu.other_links", GP_PCI_DEVICES, "gpu.other is unknown");
    }

    gp_aspm_policy_fact(fs);
    const struct fact *count = fact_get(fs, "gpu.count");
    if (!count || count->type != FACT_INT)
        return 0;
    for (int g = 0; g < (int)count->i; g++) {
        char buf[FACT_NAME_MAX];
        const char *bdf = probe_gpu_pci(fs, g, buf);
        if (!bdf)
            continue;
        struct pci_hop *h;
        size_t n;
        int rc = pci_path_read(bdf, &h, &n);
        if (rc) {
            char src[96], reason[160];
            snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s", bdf);
            snprintf(reason, sizeof(reason), "cannot resolve %s to a PCI path: %s", src,
                     strerror(-rc));
            link_unknown(fs, g, src, reason);
            gp_atomics_facts(fs, g, NULL, 0);
            gp_health_facts(fs, g, bdf, NULL, 0, 0);
            continue;
        }
        link_facts(fs, g, bdf, h, n);
        gp_atomics_facts(fs, g, h, n);
        gp_health_facts(fs, g, bdf, h, n, pci_path_slot(h, n));
        free(h);
    }
    return 0;
}
