/* probe_sync.c - synchronisation latency (probe "sync", check sync.latency):
 * kernel launch overhead, stream and device synchronise round trips
 * (p50/p99/max over SYNC_SAMPLES samples), the event timer's resolution,
 * and null-stream ordering verified with data: a slow writer on a blocking
 * stream, then a reader on the null stream that counts stale elements (must
 * be 0); the same on a non-blocking stream shows whether the test can see
 * overlap at all. Facts: sync.launch_us.{p50,p99,max}, sync.stream_sync_us.*,
 * sync.device_sync_us.*, sync.graph_launch_us.p50, sync.event_resolution_us,
 * sync.samples, sync.null_stream_stale (int), sync.nonblocking_stale (int). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/kcache.h"
#include "probe.h"

#define SYNC_SAMPLES 2000

int probe_sync_run(struct probe_ctx *ctx);

static void stats(struct factset *fs, const char *name, double *v, size_t n, const char *src)
{
    char f[FACT_NAME_MAX];
    snprintf(f, sizeof(f), "sync.%s.p50", name);
    fact_set_float(fs, f, gpu_quantile(v, n, 0.5), src);
    snprintf(f, sizeof(f), "sync.%s.p99", name);
    fact_set_float(fs, f, gpu_quantile(v, n, 0.99), src);
    snprintf(f, sizeof(f), "sync.%s.max", name);
    fact_set_float(fs, f, gpu_quantile(v, n, 1.0), src);
}

/* writer on stream s, reader on the null stream; returns the stale count */
static int ordering(struct gpu_backend *b, gpu_function wr, gpu_function rd, gpu_stream s, int *buf,
                    int *bad, int n, int tag, long long spins)
{
    int zero = 0, nb = -1;
    b->memcpy(b, bad, &zero, sizeof(zero), GPU_H2D);
    b->device_sync(b);
    void *wa[] = {&buf, &n, &tag, &spins};
    void *ra[] = {&buf, &n, &tag, &bad};
    unsigned grid = (unsigned)((n + 255) / 256);
    if (b->launch(b, wr, grid, 256, 0, s, wa) || b->launch(b, rd, grid, 256, 0, NULL, ra))
        return -1;
    b->device_sync(b);
    b->memcpy(b, &nb, bad, sizeof(nb), GPU_D2H);
    return nb;
}

int probe_sync_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    if (gpu_probe_begin(ctx, "sync", &b, &p))
        return 0;
    gpu_module mod;
    char *why = NULL;
    if (gpu_kernel_load(b, "sync", gpu_probe_target(&p), &mod, &why)) {
        gpu_probe_unavailable(ctx, "sync", "%s", why);
        free(why);
        return 0;
    }
    gpu_function fnull, fwr, frd;
    gpu_stream s = NULL, snb = NULL;
    if (b->function(b, mod, "rvd_null", &fnull) || b->function(b, mod, "rvd_slow_write", &fwr) ||
        b->function(b, mod, "rvd_check", &frd) || b->stream_create(b, &s, 0) ||
        b->stream_create(b, &snb, 1)) {
        gpu_probe_unavailable(ctx, "sync", "%s", b->err);
        return 0;
    }
    const char *src = b->lib;
    double *v = xcalloc(SYNC_SAMPLES, sizeof(double));
    int *nullp = NULL;
    void *args[] = {&nullp};
    /* fault injection for tests: a kernel that never returns; the watchdog
     * must turn this into a timeout of this probe only */
    const char *fault = getenv("ROCM_VLA_DOCTOR_FAULT");
    if (fault && strcmp(fault, "kernel_hang") == 0) {
        gpu_function fspin;
        int *flag = NULL;
        if (!b->function(b, mod, "rvd_spin_forever", &fspin) &&
            !b->malloc(b, (void **)&flag, sizeof(int)) && !b->memset(b, flag, 0, sizeof(int))) {
            void *fa[] = {&flag};
            fprintf(stderr, "fault injection: launching a kernel that never returns\n");
            b->launch(b, fspin, 1, 1, 0, s, fa);
            b->stream_sync(b, s);
        }
    }
    for (int i = 0; i < 50; i++) /* warm up */
        b->launch(b, fnull, 1, 64, 0, s, args);
    b->stream_sync(b, s);

    /* launch overhead: the host-side cost of one launch call */
    for (int i = 0; i < SYNC_SAMPLES; i++) {
        double t0 = util_mono_s();
        b->launch(b, fnull, 1, 64, 0, s, args);
        v[i] = (util_mono_s() - t0) * 1e6;
        if (i % 64 == 63)
            b->stream_sync(b, s);
    }
    b->stream_sync(b, s);
    stats(fs, "launch_us", v, SYNC_SAMPLES, src);
    /* launch + stream synchronise round trip */
    for (int i = 0; i < SYNC_SAMPLES; i++) {
        double t0 = util_mono_s();
        b->launch(b, fnull, 1, 64, 0, s, args);
        b->stream_sync(b, s);
        v[i] = (util_mono_s() - t0) * 1e6;
    }
    stats(fs, "stream_sync_us", v, SYNC_SAMPLES, src);
    for (int i = 0; i < SYNC_SAMPLES; i++) {
        double t0 = util_mono_s();
        b->launch(b, fnull, 1, 64, 0, s, args);
        b->device_sync(b);
        v[i] = (util_mono_s() - t0) * 1e6;
    }
    stats(fs, "device_sync_us", v, SYNC_SAMPLES, src);
    fact_set_int(fs, "sync.samples", SYNC_SAMPLES, src);
    isolate_flush(fs);

    /* event timer resolution: the smallest nonzero interval between two events */
    gpu_event e0, e1;
    if (!b->event_create(b, &e0) && !b->event_create(b, &e1)) {
        double res = 1e9;
        for (int i = 0; i < 200; i++) {
            float ms = 0;
            b->event_record(b, e0, s);
            b->launch(b, fnull, 1, 64, 0, s, args);
            b->event_record(b, e1, s);
            b->event_sync(b, e1);
            if (!b->event_elapsed_ms(b, &ms, e0, e1) && ms > 0 && ms * 1e3 < res)
                res = ms * 1e3;
        }
        if (res < 1e9)
            fact_set_float(fs, "sync.event_resolution_us", res, src);
        else
            fact_set_unknown(fs, "sync.event_resolution_us", src, "no nonzero event interval");
    }

    /* graph replay of 10 null kernels: what a captured control step costs */
    gpu_graph g = NULL;
    if (b->graph_begin && !b->graph_begin(b, s)) {
        for (int i = 0; i < 10; i++)
            b->launch(b, fnull, 1, 64, 0, s, args);
        if (!b->graph_end(b, s, &g)) {
            for (int i = 0; i < 200; i++) {
                double t0 = util_mono_s();
                b->graph_launch(b, g, s);
                b->stream_sync(b, s);
                v[i] = (util_mono_s() - t0) * 1e6;
            }
            fact_set_float(fs, "sync.graph10_us.p50", gpu_quantile(v, 200, 0.5), src);
            b->graph_destroy(b, g);
        } else {
            fact_set_unknown(fs, "sync.graph10_us.p50", src, "%s", b->err);
        }
    }

    /* ordering, with data: 1M ints, the writer spins first so the reader
     * would run ahead if the null stream did not wait for it */
    int n = 1 << 20, *buf = NULL, *bad = NULL;
    if (!b->malloc(b, (void **)&buf, (size_t)n * sizeof(int)) &&
        !b->malloc(b, (void **)&bad, sizeof(int))) {
        b->memset(b, buf, 0, (size_t)n * sizeof(int));
        long long spins = 20000;
        int stale = ordering(b, fwr, frd, s, buf, bad, n, 7, spins);
        int stale_nb = ordering(b, fwr, frd, snb, buf, bad, n, 9, spins);
        if (stale < 0)
            fact_set_unknown(fs, "sync.null_stream_stale", src, "%s", b->err);
        else
            fact_set_int(fs, "sync.null_stream_stale", stale, src);
        if (stale_nb >= 0)
            fact_set_int(fs, "sync.nonblocking_stale", stale_nb, src);
        b->free(b, buf);
        b->free(b, bad);
    } else {
        fact_set_unknown(fs, "sync.null_stream_stale", src, "%s", b->err);
    }
    free(v);
    return 0;
}
