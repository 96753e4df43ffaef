/* probe_p2p.c - peer-to-peer between the GPUs --gpu selected (probe "p2p",
 * check gpu.p2p), in one isolated child, after the per-GPU probes: for each
 * pair of measured GPUs (gpu.measured, with their runtime devices
 * gpu.<j>.runtime_device), whether each can access the other's memory
 * (hipDeviceCanAccessPeer / cuDeviceCanAccessPeer), peer access enabled both
 * ways, and the bandwidth of a device-to-device copy each way
 * (hipMemcpyPeerAsync / cuMemcpyPeerAsync, best of 5, timed with events; the
 * CPU backend's test devices copy with memmove, timed by the clock). The link
 * type comes from the KFD topology: the io_link from one GPU's node to the
 * other's, type 11 = xGMI, 2 = PCIe (amdgpu's kfd_topology.h); NVIDIA's NVLink
 * is not read (the link is then "unknown").
 *
 * Facts, for slots a < b: gpu.p2p.<a>_<b>.{access, access_ab, access_ba,
 * link, ab_gbs, ba_gbs, error}; and over the pairs: gpu.p2p.pairs (list
 * "a_b"), gpu.p2p.no_access (pairs that cannot access each other, "gpu.a-gpu.b
 * (link)"), gpu.p2p.no_access_xgmi (those on an xGMI link), the smallest
 * bandwidth per link type gpu.p2p.{xgmi,pcie,unknown}_min_gbs, and
 * gpu.p2p.summary (one line per pair). With fewer than two GPUs measured,
 * gpu.p2p.available = false and gpu.p2p.why say so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "gpu_pci.h"
#include "probe.h"

#define P2P_MAX 16
#define P2P_RUNS 5

int probe_p2p_run(struct probe_ctx *ctx);

/* the link between the KFD nodes of slots a and b: "xgmi", "pcie", or why not known */
static void link_type(const struct factset *fs, int a, int b, char *out, size_t len)
{
    char n[FACT_NAME_MAX];
    const struct fact *na = fact_get(fs, fact_gpu_name(n, a, "kfd_node"));
    const struct fact *nb = fact_get(fs, fact_gpu_name(n, b, "kfd_node"));
    if (!na || na->type != FACT_INT || !nb || nb->type != FACT_INT) {
        snprintf(out, len, "unknown: no KFD topology node for both (NVLink is not read)");
        return;
    }
    char dir[128];
    struct strlist links = STRLIST_INIT;
    snprintf(dir, sizeof(dir), GP_KFD_NODES "/%lld/io_links", (long long)na->i);
    if (rootfs_list(dir, &links)) {
        snprintf(out, len, "unknown: %s cannot be listed", dir);
        return;
    }
    snprintf(out, len, "unknown: no io_link from KFD node %lld to %lld", (long long)na->i,
             (long long)nb->i);
    for (size_t i = 0; i < links.n; i++) {
        char *props = NULL;
        uint64_t to, type;
        if (rootfs_readf_str(&props, "%s/%s/properties", dir, links.v[i]))
            continue;
        if (!gp_kv_get(props, "node_to", &to) && to == (uint64_t)nb->i &&
            !gp_kv_get(props, "type", &type))
            snprintf(out, len, "%s",
                     type == 11  ? "xgmi"
                     : type == 2 ? "pcie"
                                 : "unknown: io_link of another type");
        free(props);
    }
    strlist_release(&links);
}

/* GB/s of the best of P2P_RUNS copies of n bytes src (device sdev) -> dst (ddev),
 * issued on device `on`; -1 with b->err */
static double copy_gbs(struct gpu_backend *b, int on, void *dst, int ddev, void *src, int sdev,
                       size_t n)
{
    gpu_stream s = NULL;
    gpu_event e0 = NULL, e1 = NULL;
    int events = b->set_device(b, on) == 0 && b->event_create && b->stream_create &&
                 !b->stream_create(b, &s, 1) && !b->event_create(b, &e0) &&
                 !b->event_create(b, &e1);
    double best = 0;
    for (int r = 0; r <= P2P_RUNS; r++) { /* run 0 warms up */
        float ms = 0;
        double t0 = util_mono_s();
        if (events && b->event_record(b, e0, s))
            return -1;
        if (b->memcpy_peer_async(b, dst, ddev, src, sdev, n, s))
            return -1;
        if (events) {
            if (b->event_record(b, e1, s) || b->event_sync(b, e1) ||
                b->event_elapsed_ms(b, &ms, e0, e1))
                return -1;
        } else {
            b->device_sync(b);
            ms = (float)((util_mono_s() - t0) * 1e3);
        }
        double gbs = ms > 0 ? (double)n / (ms * 1e-3) / 1e9 : 0;
        if (r > 0 && gbs > best)
            best = gbs;
    }
    if (events) {
        b->event_destroy(b, e0);
        b->event_destroy(b, e1);
        b->stream_destroy(b, s);
    }
    return best;
}

struct mins {
    double xgmi, pcie, unknown;
};

static void one_pair(struct probe_ctx *ctx, struct gpu_backend *b, int a, int da, int bb, int db,
                     struct strlist *no_access, struct strlist *no_xgmi, struct strlist *summary,
                     struct mins *m)
{
    struct factset *fs = ctx->facts;
    char n[FACT_NAME_MAX], link[200];
    const char *src = b->lib[0] ? b->lib : b->name;
    int ab = 0, ba = 0;
#define PAIR(k) (snprintf(n, sizeof(n), "gpu.p2p.%d_%d." k, a, bb), n)
    link_type(fs, a, bb, link, sizeof(link));
    if (str_starts(link, "unknown"))
        fact_set_unknown(fs, PAIR("link"), "KFD io_links", "%s", link + 9);
    else
        fact_set_str(fs, PAIR("link"), link, "KFD io_links");
    const char *kind = str_starts(link, "unknown") ? "unknown" : link;
    if (b->can_access_peer(b, da, db, &ab) || b->can_access_peer(b, db, da, &ba)) {
        fact_set_str(fs, PAIR("error"), b->err, src);
        fact_set_unknown(fs, PAIR("access"), src, "%s", b->err);
        return;
    }
    fact_set_bool(fs, PAIR("access_ab"), ab, src);
    fact_set_bool(fs, PAIR("access_ba"), ba, src);
    fact_set_bool(fs, PAIR("access"), ab && ba, src);
    if (!(ab && ba)) {
        strlist_add_owned(no_access, xasprintf("gpu.%d-gpu.%d (%s)", a, bb, kind));
        if (strcmp(kind, "xgmi") == 0)
            strlist_add_owned(no_xgmi, xasprintf("gpu.%d-gpu.%d", a, bb));
    }
    /* enable both ways where allowed; a copy without it is staged through the host */
    if (ab && (b->set_device(b, da) || b->enable_peer(b, db)))
        fact_set_str(fs, PAIR("error"), b->err, src);
    if (ba && (b->set_device(b, db) || b->enable_peer(b, da)))
        fact_set_str(fs, PAIR("error"), b->err, src);
    size_t bytes = strcmp(b->name, "cpu") == 0 ? 16u << 20 : 256u << 20;
    void *pa = NULL, *pb = NULL;
    if (b->set_device(b, da) || b->malloc(b, &pa, bytes) || b->memset(b, pa, 1, bytes) ||
        b->set_device(b, db) || b->malloc(b, &pb, bytes) || b->memset(b, pb, 2, bytes)) {
        fact_set_str(fs, PAIR("error"), b->err, src);
        fact_set_unknown(fs, PAIR("ab_gbs"), src, "%s", b->err);
    } else {
        double g1 = copy_gbs(b, da, pb, db, pa, da, bytes);
        double g2 = g1 < 0 ? -1 : copy_gbs(b, da, pa, da, pb, db, bytes);
        if (g1 < 0 || g2 < 0) {
            fact_set_str(fs, PAIR("error"), b->err, src);
            fact_set_unknown(fs, PAIR("ab_gbs"), src, "%s", b->err);
        } else {
            fact_set_float(fs, PAIR("ab_gbs"), g1, src);
            fact_set_float(fs, PAIR("ba_gbs"), g2, src);
            double lo = g1 < g2 ? g1 : g2;
            double *slot = strcmp(kind, "xgmi") == 0   ? &m->xgmi
                           : strcmp(kind, "pcie") == 0 ? &m->pcie
                                                       : &m->unknown;
            if (*slot < 0 || lo < *slot)
                *slot = lo;
            strlist_add_owned(summary,
                              xasprintf("gpu.%d<->gpu.%d %s%s: %.1f / %.1f GB/s", a, bb, kind,
                                        ab && ba ? "" : " (no peer access)", g1, g2));
        }
    }
    if (pa && !b->set_device(b, da))
        b->free(b, pa);
    if (pb && !b->set_device(b, db))
        b->free(b, pb);
#undef PAIR
}

static void set_min(struct factset *fs, const char *name, double v, const char *what)
{
    if (v >= 0)
        fact_set_float(fs, name, v, "peer copies");
    else
        fact_set_unknown(fs, name, "peer copies", "no pair of GPUs on %s was measured", what);
}

int probe_p2p_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const struct fact *m = fact_get(fs, "gpu.measured");
    int slot[P2P_MAX], dev[P2P_MAX], ns = 0;
    for (size_t i = 0; m && m->type == FACT_LIST && i < m->list.n && ns < P2P_MAX; i++) {
        char n[FACT_NAME_MAX];
        int64_t s;
        const struct fact *d;
        if (str_parse_i64(m->list.v[i], &s) || s < 0 || s > 100000)
            continue;
        d = fact_get(fs, fact_gpu_name(n, (int)s, "runtime_device"));
        if (d && d->type == FACT_INT)
            slot[ns] = (int)s, dev[ns++] = (int)d->i;
    }
    if (ns < 2) {
        gpu_probe_unavailable(ctx, "gpu.p2p",
                              "%s GPU measured: peer-to-peer needs two (--gpu all, or --gpu 0,1)",
                              ns ? "one" : "no");
        return 0;
    }
    struct gpu_backend *b;
    struct gpu_props p;
    ctx->device = dev[0];
    if (gpu_probe_begin_cpu_ok(ctx, "gpu.p2p", &b, &p))
        return 0;
    if (!b->can_access_peer || !b->enable_peer || !b->memcpy_peer_async) {
        gpu_probe_unavailable(ctx, "gpu.p2p", "the %s backend has no peer-to-peer calls", b->name);
        return 0;
    }
    fact_set_int(fs, "gpu.p2p.gpus", ns, "gpu.measured");
    struct strlist pairs = STRLIST_INIT, no_access = STRLIST_INIT, no_xgmi = STRLIST_INIT,
                   summary = STRLIST_INIT;
    struct mins mins = {-1, -1, -1};
    for (int i = 0; i < ns; i++)
        for (int j = i + 1; j < ns; j++) {
            int lo = slot[i] < slot[j] ? i : j, hi = lo == i ? j : i;
            strlist_add_owned(&pairs, xasprintf("%d_%d", slot[lo], slot[hi]));
            one_pair(ctx, b, slot[lo], dev[lo], slot[hi], dev[hi], &no_access, &no_xgmi, &summary,
                     &mins);
            isolate_flush(fs);
        }
    fact_set_list(fs, "gpu.p2p.pairs", &pairs, "gpu.measured");
    fact_set_list(fs, "gpu.p2p.no_access", &no_access, "can-access-peer");
    fact_set_list(fs, "gpu.p2p.no_access_xgmi", &no_xgmi, "can-access-peer, KFD io_links");
    fact_set_list(fs, "gpu.p2p.summary", &summary, "peer copies");
    set_min(fs, "gpu.p2p.xgmi_min_gbs", mins.xgmi, "an xGMI link");
    set_min(fs, "gpu.p2p.pcie_min_gbs", mins.pcie, "a PCIe link");
    set_min(fs, "gpu.p2p.unknown_min_gbs", mins.unknown, "a link of unknown type");
    strlist_release(&pairs);
    strlist_release(&no_access);
    strlist_release(&no_xgmi);
    strlist_release(&summary);
    return 0;
}
