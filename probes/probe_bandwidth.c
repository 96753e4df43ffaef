/* probe_bandwidth.c - host<->device copy bandwidth, pinned and pageable,
 * against what the negotiated PCIe link carries, and device memory
 * bandwidth (STREAM triad). Probe "bandwidth", check pcie.bandwidth.
 * Facts (GB/s = 1e9 bytes/s): bw.h2d_pinned_gbs, bw.d2h_pinned_gbs,
 * bw.h2d_pageable_gbs, bw.d2h_pageable_gbs, bw.triad_gbs, bw.bytes,
 * bw.link_speed_gts, bw.link_width, bw.link_gbs (the link's payload ceiling
 * per direction after line encoding), bw.h2d_link_fraction, bw.link_payload_gbs
 * and bw.h2d_payload_fraction (the payload a link carries after TLP
 * overhead, probes/peak_model.h, and the pinned upload's share of it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "peak_model.h"
#include "probe.h"

#define BW_BYTES (256ull << 20)
#define BW_REPS 5

int probe_bandwidth_run(struct probe_ctx *ctx);

/* best of BW_REPS synchronous copies, GB/s */
static double copy_gbs(struct gpu_backend *b, void *dst, const void *src, size_t n, enum gpu_copy k)
{
    double best = 0;
    b->memcpy(b, dst, src, n, k); /* warm: page-in, pinning of staging buffers */
    for (int r = 0; r < BW_REPS; r++) {
        double t0 = util_mono_s();
        if (b->memcpy(b, dst, src, n, k))
            return -1;
        double g = (double)n / (util_mono_s() - t0) / 1e9;
        if (g > best)
            best = g;
    }
    return best;
}

static void set_gbs(struct factset *fs, const char *name, double g, struct gpu_backend *b)
{
    if (g < 0)
        fact_set_unknown(fs, name, b->lib, "%s", b->err);
    else
        fact_set_float(fs, name, g, b->lib);
}

/* the link as negotiated, from sysfs (the GPU function's own link; probe
 * pcie has the whole path for AMD GPUs) */
static void link_facts(struct factset *fs, const char *pci)
{
    char *sp = NULL;
    uint64_t w = 0;
    char path[160];
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/current_link_speed", pci);
    int e = rootfs_read_str(path, &sp);
    if (e || !pci[0]) {
        fact_set_unknown(fs, "bw.link_gbs", path, "cannot read the link speed of '%s'", pci);
        fact_set_unknown(fs, "bw.link_payload_gbs", path, "cannot read the link speed of '%s'",
                         pci);
        free(sp);
        return;
    }
    double gts = atof(sp);
    free(sp);
    if (rootfs_readf_u64(&w, "/sys/bus/pci/devices/%s/current_link_width", pci) || !w || gts <= 0) {
        fact_set_unknown(fs, "bw.link_gbs", path, "no link width/speed (virtual device?)");
        fact_set_unknown(fs, "bw.link_payload_gbs", path, "no link width/speed (virtual device?)");
        return;
    }
    /* the encoded rate (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s) and the
     * payload under the TLP model of peak_model.h */
    fact_set_float(fs, "bw.link_speed_gts", gts, path);
    fact_set_int(fs, "bw.link_width", (int64_t)w, path);
    fact_set_float(fs, "bw.link_gbs", peak_pcie_encoded_gbs(gts, (double)w), path);
    fact_set_float(fs, "bw.link_payload_gbs", peak_pcie_payload_gbs(gts, (double)w), path);
}

int probe_bandwidth_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    if (gpu_probe_begin(ctx, "bw", &b, &p))
        return 0;
    link_facts(fs, p.pci);
    size_t n = BW_BYTES;
    size_t fr = 0, tot = 0;
    if (!b->mem_info(b, &fr, &tot) && fr < 8 * n) {
        gpu_probe_unavailable(ctx, "bw", "only %zu MiB free on the device", fr >> 20);
        return 0;
    }
    fact_set_int(fs, "bw.bytes", (int64_t)n, "probe");
    void *d = NULL, *h = NULL;
    if (b->malloc(b, &d, n)) {
        gpu_probe_unavailable(ctx, "bw", "%s", b->err);
        return 0;
    }
    if (!b->malloc_host(b, &h, n)) {
        memset(h, 1, n);
        set_gbs(fs, "bw.h2d_pinned_gbs", copy_gbs(b, d, h, n, GPU_H2D), b);
        set_gbs(fs, "bw.d2h_pinned_gbs", copy_gbs(b, h, d, n, GPU_D2H), b);
        b->free_host(b, h);
    } else {
        fact_set_unknown(fs, "bw.h2d_pinned_gbs", b->lib, "%s", b->err);
    }
    isolate_flush(fs);
    void *pg = malloc(n);
    if (pg) {
        memset(pg, 1, n);
        set_gbs(fs, "bw.h2d_pageable_gbs", copy_gbs(b, d, pg, n, GPU_H2D), b);
        set_gbs(fs, "bw.d2h_pageable_gbs", copy_gbs(b, pg, d, n, GPU_D2H), b);
        free(pg);
    }
    const struct fact *hp = fact_get(fs, "bw.h2d_pinned_gbs"), *lk = fact_get(fs, "bw.link_gbs");
    if (hp && lk && hp->type == FACT_FLOAT && lk->type == FACT_FLOAT && lk->f > 0)
        fact_set_float(fs, "bw.h2d_link_fraction", hp->f / lk->f,
                       "bw.h2d_pinned_gbs / bw.link_gbs");
    const struct fact *pay = fact_get(fs, "bw.link_payload_gbs");
    if (hp && pay && hp->type == FACT_FLOAT && pay->type == FACT_FLOAT && pay->f > 0)
        fact_set_float(fs, "bw.h2d_payload_fraction", hp->f / pay->f,
                       "bw.h2d_pinned_gbs / bw.link_payload_gbs");
    else
        fact_set_unknown(fs, "bw.h2d_payload_fraction", "bw.link_payload_gbs",
                         "no payload peak: the link's speed or width is not known, or no pinned "
                         "copy was timed");
    isolate_flush(fs);
    b->free(b, d);

    /* triad: a = b + s*c over three arrays of BW_BYTES each */
    gpu_module mod;
    gpu_function ft, ff;
    char *why = NULL;
    float *A = NULL, *B = NULL, *C = NULL;
    if (gpu_kernel_load(b, "stream", gpu_probe_target(&p), &mod, &why)) {
        fact_set_unknown(fs, "bw.triad_gbs", b->lib, "%s", why);
        free(why);
        return 0;
    }
    unsigned long long ne = n / sizeof(float);
    if (b->function(b, mod, "rvd_triad", &ft) || b->function(b, mod, "rvd_fill", &ff) ||
        b->malloc(b, (void **)&A, n) || b->malloc(b, (void **)&B, n) ||
        b->malloc(b, (void **)&C, n)) {
        fact_set_unknown(fs, "bw.triad_gbs", b->lib, "%s", b->err);
        return 0;
    }
    float one = 1.0f, two = 2.0f, s = 3.0f;
    void *fa[] = {&B, &one, &ne}, *fc[] = {&C, &two, &ne}, *ta[] = {&A, &B, &C, &s, &ne};
    unsigned grid = (unsigned)(p.cu_count > 0 ? p.cu_count * 8 : 1024);
    b->launch(b, ff, grid, 256, 0, NULL, fa);
    b->launch(b, ff, grid, 256, 0, NULL, fc);
    gpu_event e0, e1;
    double best = 0;
    if (!b->event_create(b, &e0) && !b->event_create(b, &e1)) {
        b->launch(b, ft, grid, 256, 0, NULL, ta);
        for (int r = 0; r < 10; r++) {
            float ms = 0;
            b->event_record(b, e0, NULL);
            b->launch(b, ft, grid, 256, 0, NULL, ta);
            b->event_record(b, e1, NULL);
            b->event_sync(b, e1);
            if (!b->event_elapsed_ms(b, &ms, e0, e1) && ms > 0 && 3.0 * n / (ms * 1e6) > best)
                best = 3.0 * (double)n / (ms * 1e6);
        }
    }
    float check = 0;
    b->memcpy(b, &check, A + ne / 2, sizeof(check), GPU_D2H);
    if (best > 0 && check == 7.0f)
        fact_set_float(fs, "bw.triad_gbs", best, b->lib);
    else
        fact_set_unknown(fs, "bw.triad_gbs", b->lib, "triad result %g (want 7) or no timing: %s",
                         (double)check, b->err);
    b->free(b, A);
    b->free(b, B);
    b->free(b, C);
    return 0;
}
