/* probe_hmm.c - managed memory, measured (probe "hmm", check hmm.managed).
 * Attributes from the runtime, then: managed memory first touched on the
 * host, then HMM_PASSES device read passes, each timed, against device
 * memory and pinned host memory read by the same kernel. A last pass near
 * device bandwidth means pages migrated; every pass at host-link rate means
 * the GPU reads host memory over PCIe ("host fallback"). Then a prefetch to
 * the device, its reported location, and one more pass. A plain malloc
 * pointer is read from the GPU only when pageable access is reported.
 * Sizes stay small (HMM_BYTES) and are checked against free memory: asking
 * for more managed memory than is free can hang a GPU.
 * Facts: hmm.managed, hmm.concurrent_managed, hmm.pageable_access (ints from
 * the runtime), hmm.device_gbs, hmm.pinned_host_gbs, hmm.pass_gbs (list),
 * hmm.first_pass_gbs, hmm.last_pass_gbs, hmm.verdict ("migrates", "host
 * fallback", "partial"), hmm.prefetch_location (int: device, -1 host, -2
 * mixed), hmm.after_prefetch_gbs, hmm.prefetch_honoured (bool),
 * hmm.pageable_gbs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "probe.h"

#define HMM_BYTES (256ull << 20)
#define HMM_PASSES 5

int probe_hmm_run(struct probe_ctx *ctx);

/* one timed read pass over p, GB/s; -1 on error */
static double read_pass(struct gpu_backend *b, gpu_function f, const void *p, size_t n, float *out,
                        unsigned grid, gpu_event e0, gpu_event e1)
{
    unsigned long long n4 = n / 16;
    void *args[] = {&p, &n4, &out};
    float ms = 0;
    if (b->event_record(b, e0, NULL) || b->launch(b, f, grid, 256, 0, NULL, args) ||
        b->event_record(b, e1, NULL) || b->event_sync(b, e1) ||
        b->event_elapsed_ms(b, &ms, e0, e1) || ms <= 0)
        return -1;
    return (double)n / (ms * 1e6);
}

int probe_hmm_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    if (gpu_probe_begin(ctx, "hmm", &b, &p))
        return 0;
    const char *src = b->lib;
    fact_set_int(fs, "hmm.managed", p.managed, src);
    fact_set_int(fs, "hmm.concurrent_managed", p.concurrent_managed, src);
    fact_set_int(fs, "hmm.pageable_access", p.pageable_access, src);
    isolate_flush(fs);
    if (p.managed != 1) {
        gpu_probe_unavailable(ctx, "hmm", "the runtime reports no managed memory on %s", p.name);
        return 0;
    }
    size_t n = HMM_BYTES, fr = 0, tot = 0;
    if (b->mem_info(b, &fr, &tot) || fr < 4 * n) {
        gpu_probe_unavailable(ctx, "hmm", "not enough free device memory to test safely");
        return 0;
    }
    gpu_module mod;
    gpu_function f;
    gpu_event e0, e1;
    char *why = NULL;
    if (gpu_kernel_load(b, "stream", gpu_probe_target(&p), &mod, &why)) {
        gpu_probe_unavailable(ctx, "hmm", "%s", why);
        free(why);
        return 0;
    }
    float *out = NULL;
    void *d = NULL, *h = NULL, *m = NULL;
    if (b->function(b, mod, "rvd_read_sum", &f) || b->event_create(b, &e0) ||
        b->event_create(b, &e1) || b->malloc(b, (void **)&out, 64) || b->malloc(b, &d, n)) {
        gpu_probe_unavailable(ctx, "hmm", "%s", b->err);
        return 0;
    }
    unsigned grid = (unsigned)(p.cu_count > 0 ? p.cu_count * 8 : 1024);
    b->memset(b, d, 0, n);
    read_pass(b, f, d, n, out, grid, e0, e1);
    double dev = 0;
    for (int i = 0; i < 3; i++) {
        double g = read_pass(b, f, d, n, out, grid, e0, e1);
        dev = g > dev ? g : dev;
    }
    b->free(b, d);
    fact_set_float(fs, "hmm.device_gbs", dev, src);
    if (!b->malloc_host(b, &h, n)) {
        memset(h, 0, n);
        double g = read_pass(b, f, h, n, out, grid, e0, e1);
        g = read_pass(b, f, h, n, out, grid, e0, e1);
        if (g > 0)
            fact_set_float(fs, "hmm.pinned_host_gbs", g, src);
        b->free_host(b, h);
    }
    isolate_flush(fs);

    if (b->malloc_managed(b, &m, n)) {
        fact_set_unknown(fs, "hmm.verdict", src, "%s", b->err);
        return 0;
    }
    memset(m, 0, n); /* first touch on the host: the pages start in host memory */
    struct strlist passes = STRLIST_INIT;
    double first = -1, last = -1;
    for (int i = 0; i < HMM_PASSES; i++) {
        double g = read_pass(b, f, m, n, out, grid, e0, e1);
        if (g < 0) {
            fact_set_unknown(fs, "hmm.verdict", src, "device read of managed memory: %s", b->err);
            strlist_release(&passes);
            return 0;
        }
        strlist_add_owned(&passes, xasprintf("%.1f", g));
        if (i == 0)
            first = g;
        last = g;
    }
    fact_set_list(fs, "hmm.pass_gbs", &passes, src);
    strlist_release(&passes);
    fact_set_float(fs, "hmm.first_pass_gbs", first, src);
    fact_set_float(fs, "hmm.last_pass_gbs", last, src);
    const struct fact *ph = fact_get(fs, "hmm.pinned_host_gbs");
    double pin = ph && ph->type == FACT_FLOAT ? ph->f : 0;
    /* half of device bandwidth: migrated; within 2x of reading pinned host
     * memory over the link: served from host memory */
    const char *verdict = last >= 0.5 * dev            ? "migrates"
                          : pin > 0 && last <= 2 * pin ? "host fallback"
                                                       : "partial";
    fact_set_str(fs, "hmm.verdict", verdict, "hmm.last_pass_gbs vs hmm.device_gbs");
    isolate_flush(fs);

    /* prefetch: back to the host by touching, then to the device */
    memset(m, 1, n);
    if (b->prefetch && !b->prefetch(b, m, n, ctx->device, NULL) && !b->device_sync(b)) {
        int loc = -3;
        if (b->prefetch_location && !b->prefetch_location(b, m, n, &loc))
            fact_set_int(fs, "hmm.prefetch_location", loc, src);
        double g = read_pass(b, f, m, n, out, grid, e0, e1);
        if (g > 0) {
            fact_set_float(fs, "hmm.after_prefetch_gbs", g, src);
            fact_set_bool(fs, "hmm.prefetch_honoured", loc == ctx->device && g >= 0.5 * dev, src);
        }
    } else {
        fact_set_unknown(fs, "hmm.prefetch_honoured", src, "prefetch failed: %s", b->err);
    }
    b->free(b, m);

    if (p.pageable_access == 1) {
        size_t pn = 64ull << 20;
        void *pg = malloc(pn);
        if (pg) {
            memset(pg, 0, pn);
            double g = read_pass(b, f, pg, pn, out, grid, e0, e1);
            if (g > 0)
                fact_set_float(fs, "hmm.pageable_gbs", g, src);
            else
                fact_set_unknown(fs, "hmm.pageable_gbs", src, "%s", b->err);
            free(pg);
        }
    }
    return 0;
}
