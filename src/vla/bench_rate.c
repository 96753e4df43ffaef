/* bench_rate.c - `bench --rate HZ`: back-to-back calls, then paced ones
 * (see bench_rate.h). */
#include "bench_rate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/rootfs.h"
#include "../core/util.h"
#include "../telemetry/monitor.h"
#include "../telemetry/telemetry.h"
#include "bench_gpu.h"
#include "cpu_fit.h"
#include "model.h"
#include "ops.h"
#include "pace_cause.h"
#include "weights.h"

#define RATE_WARMUP 3

/* one call of the pass, on the GPU session or the cpu reference */
struct rate_pass {
    struct vla_gpu_session *s;
    int graph;
    struct vla_weights w;
    struct vla_model m;
    struct vla_inputs in;
    float *act;
};

static int pass_call(struct rate_pass *r)
{
    if (r->s)
        return vla_gpu_session_call(r->s, r->graph);
    return vla_forward(&r->m, &r->in, r->act, NULL, NULL);
}

static int cpu_open(struct rate_pass *r, const struct vla_preset *p, uint64_t seed)
{
    if (vla_weights_layout(&r->w, p, 1))
        return error("bench: cannot allocate the preset's fp32 weights");
    vla_weights_synthetic(&r->w, p, seed);
    if (vla_model_init(&r->m, p, &r->w, &vla_ops_cpu, p->vision.image))
        return error("bench: model init failed");
    vla_inputs_synthetic(&r->in, p, p->vision.image, seed);
    r->act = xcalloc((size_t)p->chunk * p->action_dim, sizeof(float));
    return 0;
}

static void pass_close(struct rate_pass *r)
{
    if (r->s) {
        vla_gpu_session_close(r->s);
        return;
    }
    if (r->m.ops)
        vla_model_release(&r->m);
    vla_inputs_release(&r->in);
    vla_weights_release(&r->w);
    free(r->act);
}

/* the loaded GPU's shader clock now; NAN when the sampler cannot tell */
static double sclk_now(struct tel *t, const char *key)
{
    if (!key)
        return NAN;
    struct tel_sample s;
    tel_sample(t, &s);
    double v = NAN;
    for (size_t i = 0; i < s.ngpu; i++)
        if (!strcmp(s.gpus[i].pci, key) && s.gpus[i].src[TEL_SCLK_MHZ])
            v = s.gpus[i].v[TEL_SCLK_MHZ];
    tel_sample_release(&s);
    return v;
}

static double median_known(double *v, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]))
            v[k++] = v[i];
    return k ? vla_pcts(v, k).p50 : NAN;
}

static void sleep_until(double t)
{
    double d = t - util_mono_s();
    if (d <= 0)
        return;
    struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* n calls; paced: one per period on a grid from the first; lat in ms, the
 * clock sampled before each call; late (paced, else NULL): how long after
 * its slot the loop woke, in microseconds - the scheduling jitter of a
 * periodic thread at the control rate, as cyclictest measures it */
static int phase(struct rate_pass *r, int n, double period, struct tel *t, const char *key,
                 double *lat, double *clk, double *late)
{
    double slot = util_mono_s();
    for (int i = 0; i < n; i++) {
        if (period > 0) {
            sleep_until(slot);
            late[i] = (util_mono_s() - slot) * 1e6;
            slot += period;
            if (slot < util_mono_s())
                slot = util_mono_s();
        }
        clk[i] = sclk_now(t, key);
        double a = util_mono_s();
        if (pass_call(r))
            return -1;
        lat[i] = (util_mono_s() - a) * 1e3;
    }
    return 0;
}

/* 1 enabled, 0 disabled, -1 unknown: the device's link/l1_aspm (Linux 6.5+) */
static int aspm_l1(const char *pci)
{
    uint64_t v;
    if (!pci || !*pci || rootfs_readf_u64(&v, "/sys/bus/pci/devices/%s/link/l1_aspm", pci))
        return -1;
    return v ? 1 : 0;
}

int vla_bench_rate(const struct vla_rate_opts *o)
{
    const struct vla_preset *p = o->p;
    struct rate_pass r;
    memset(&r, 0, sizeof(r));
    char backend[16] = "cpu", device[256] = "host CPU (reference backend)", pci[32] = "";
    int cpu = !strcmp(o->backend, "cpu"), grc = 1;
    if (!cpu) {
        struct vla_gpu_req q = {p, o->backend, o->dtype, NULL, NULL, 1, p->vision.image,
                                0, o->seed,    0,        1};
        struct vla_gpu_out g;
        grc = vla_gpu_session_open(&q, &g, &r.s);
        if (grc == 0) {
            r.graph = g.graph;
            snprintf(backend, sizeof(backend), "%s", g.backend);
            snprintf(device, sizeof(device), "%s", g.device);
            snprintf(pci, sizeof(pci), "%s", g.pci);
        } else if (grc < 0 || strcmp(o->backend, "auto")) {
            error("bench: %s backend: %s", o->backend, g.error);
            vla_gpu_out_release(&g);
            pass_close(&r);
            return grc < 0 ? 3 : 2;
        } else {
            fprintf(stderr,
                    "rocm-vla-doctor bench: no GPU backend (%.300s); using the cpu "
                    "backend\n",
                    g.error);
            vla_gpu_session_close(r.s);
            r.s = NULL;
        }
        vla_gpu_out_release(&g);
    }
    if (grc) {
        if (strcmp(o->dtype, "fp32")) {
            error("bench: --dtype %s needs a GPU backend; the cpu backend is the fp32 reference",
                  o->dtype);
            return 2;
        }
        if (!vla_cpu_fits(p, NULL, NULL)) {
            error("bench: preset '%s' is too large for the cpu reference backend: use --preset "
                  "tiny, or a GPU backend",
                  p->name);
            return 2;
        }
        if (cpu_open(&r, p, o->seed)) {
            pass_close(&r);
            return 3;
        }
    }
    struct strlist bdfs = STRLIST_INIT;
    tel_list_amd(&bdfs);
    struct tel *t = tel_open(&bdfs, rootfs_is_live(), 0);
    char kbuf[48];
    const char *key = pci[0] ? tel_gpu_key(t, pci, kbuf, sizeof(kbuf)) : NULL;
    int n = o->runs;
    double period = 1.0 / (double)o->rate_hz;
    double *lat = xcalloc((size_t)n * 5, sizeof(double)), *clk = lat + n, *plat = lat + 2 * n,
           *pclk = lat + 3 * n, *late = lat + 4 * n;
    int rc = phase(&r, RATE_WARMUP < n ? RATE_WARMUP : n, 0, t, key, lat, clk, NULL) ||
             phase(&r, n, 0, t, key, lat, clk, NULL) ||
             phase(&r, n, period, t, key, plat, pclk, late);
    if (rc) {
        error("bench: the pass failed");
        rc = 3;
    } else {
        int miss = 0;
        for (int i = 0; i < n; i++)
            miss += plat[i] > period * 1e3;
        struct vla_pct b = vla_pcts(lat, n), q = vla_pcts(plat, n);
        struct pace_obs ob = {b.p50, q.p50, median_known(clk, n), median_known(pclk, n),
                              aspm_l1(pci)};
        char cause[640];
        pace_cause(&ob, cause, sizeof(cause));
        printf("rocm-vla-doctor bench --rate %ld: preset %s, backend %s (%s), dtype %s, %d calls "
               "a phase\n",
               o->rate_hz, p->name, backend, device, grc ? "fp32" : o->dtype, n);
        printf("  %-14s %10s %10s %12s\n", "phase", "p50 ms", "p99 ms", "sclk MHz");
        printf("  %-14s %10.3f %10.3f %12.0f\n", "back to back", b.p50, b.p99, ob.sclk_b2b_mhz);
        printf("  %-14s %10.3f %10.3f %12.0f\n", "paced", q.p50, q.p99, ob.sclk_gap_mhz);
        printf("  period %.3f ms: %d of %d paced calls missed it; ASPM L1 %s\n", period * 1e3, miss,
               n,
               ob.aspm_l1 < 0 ? "unknown"
               : ob.aspm_l1   ? "enabled"
                              : "disabled");
        /* a call that overran leaves no sleep: its wake-up is no jitter */
        int nl = 0;
        for (int i = 0; i < n; i++)
            if (i == 0 || plat[i - 1] <= period * 1e3)
                late[nl++] = late[i];
        struct vla_pct w = vla_pcts(late, nl);
        printf("  wake-up after the idle gap (host jitter, %d wake-ups): p50 %.0f us, p99 %.0f "
               "us, max %.0f us\n",
               nl, w.p50, w.p99, late[nl - 1]);
        if (!key)
            printf("  sclk: %s\n", pci[0] ? "the sampler does not see the loaded GPU"
                                          : "no GPU ran (the cpu reference backend)");
        char *safe = str_sanitize(cause, 0);
        printf("  cause: %s\n", safe);
        free(safe);
        rc = q.p99 > period * 1e3 ? 1 : 0;
    }
    free(lat);
    tel_close(t);
    strlist_release(&bdfs);
    pass_close(&r);
    return rc;
}
