/* test_soak.c - the soak's drift analysis on synthetic timelines, each
 * verdict fact both ways: steady runs and runs whose latency grows, whose
 * clock falls, whose temperature reaches its limit, whose throttle bits turn
 * on, whose VRAM creeps; outliers tied to a clock step, a power cap, a new
 * process, or unexplained; unknown telemetry gives unknown facts. */
#include <math.h>
#include <stdlib.h>

#include "../../src/core/fact.h"
#include "../../src/soak/soak_analyze.h"
#include "test.h"

#define NCALL 400
#define NSAMP 41 /* one per 0.25 s over 10 s */

static struct soak_call calls[NCALL];
static struct tel_sample samples[NSAMP];

/* 400 calls over 10 s at 25 ms, latency base_ms (+ late_ms in the last 2.5 s) */
static void mk_calls(double base_ms, double late_ms)
{
    for (int i = 0; i < NCALL; i++) {
        calls[i].t = 100.0 + i * 0.025;
        /* a small deterministic jitter, under 1.5x the median */
        calls[i].lat_s = (base_ms + (i % 7) * 0.1 + (calls[i].t >= 107.5 ? late_ms : 0)) * 1e-3;
    }
}

static void set(struct tel_gpu *g, enum tel_key k, double v)
{
    g->v[k] = v;
    g->src[k] = "test";
}

/* one GPU: 2400 MHz, junction 70 of 110 C, 250 of 300 W, 4 GiB VRAM, no throttle */
static void mk_samples(int with_throttle)
{
    for (int i = 0; i < NSAMP; i++) {
        struct tel_sample *s = &samples[i];
        tel_sample_release(s);
        s->t_s = 100.0 + i * 0.25;
        s->ngpu = 1;
        s->gpus = calloc(1, sizeof(struct tel_gpu));
        struct tel_gpu *g = &s->gpus[0];
        set(g, TEL_SCLK_MHZ, 2400);
        set(g, TEL_TEMP_JUNCTION_C, 70);
        set(g, TEL_TEMP_JUNCTION_LIMIT_C, 110);
        set(g, TEL_POWER_W, 250);
        set(g, TEL_POWER_CAP_W, 300);
        set(g, TEL_VRAM_USED_B, 4.0 * (1 << 30));
        set(g, TEL_ENERGY_J, 1000 + 250 * (s->t_s - 100));
        if (with_throttle) {
            g->throttle_known = 1;
            snprintf(g->throttle_src, sizeof(g->throttle_src), "gpu_metrics 1.3");
        }
    }
}

static double fnum(struct factset *fs, const char *n)
{
    const struct fact *f = fact_get(fs, n);
    if (!f)
        return NAN;
    return f->type == FACT_FLOAT  ? f->f
           : f->type == FACT_INT  ? (double)f->i
           : f->type == FACT_BOOL ? f->b
                                  : NAN;
}

static int unknown(struct factset *fs, const char *n)
{
    const struct fact *f = fact_get(fs, n);
    return f && f->type == FACT_UNKNOWN;
}

static const struct fact *causes(struct factset *fs)
{
    const struct fact *f = fact_get(fs, "soak.outlier_causes");
    return f && f->type == FACT_LIST ? f : NULL;
}

static void test_steady(void)
{
    struct factset fs = FACTSET_INIT;
    mk_calls(30, 0);
    mk_samples(1);
    soak_analyze(calls, NCALL, samples, NSAMP, &fs);
    CHECK(fnum(&fs, "soak.calls") == NCALL);
    CHECK(fabs(fnum(&fs, "soak.p99_growth_pct")) < 5);
    CHECK(fnum(&fs, "soak.window_s") > 2.4 && fnum(&fs, "soak.window_s") < 2.6);
    CHECK(fnum(&fs, "soak.sclk_drop_pct") == 0);
    CHECK(fnum(&fs, "soak.temp_margin_c") == 40 && fnum(&fs, "soak.temp_at_limit") == 0);
    CHECK(fnum(&fs, "soak.throttle_events") == 0);
    CHECK(fnum(&fs, "soak.vram_growth_bytes") == 0);
    CHECK(fnum(&fs, "soak.outliers") == 0 && fnum(&fs, "soak.outliers_unexplained") == 0);
    /* the energy counter: 250 W over the samples, 400 calls */
    CHECK(fabs(fnum(&fs, "soak.avg_power_w") - 250) < 1e-6);
    CHECK(fabs(fnum(&fs, "soak.energy_per_call_j") - 250.0 * 10 / NCALL) < 1e-6);
    factset_release(&fs);
}

static void test_drift(void)
{
    struct factset fs = FACTSET_INIT;
    mk_calls(30, 15); /* +50 % at the end */
    mk_samples(1);
    for (int i = 30; i < NSAMP; i++) { /* t >= 107.5: hot, slow, throttled, leaking */
        struct tel_gpu *g = &samples[i].gpus[0];
        g->v[TEL_SCLK_MHZ] = 1800;
        g->v[TEL_TEMP_JUNCTION_C] = 110;
        g->v[TEL_VRAM_USED_B] += 2.0 * (1 << 30);
        g->throttle_bits = 1ull << 36;
        snprintf(g->throttle, sizeof(g->throttle), "TEMP_HOTSPOT");
    }
    soak_analyze(calls, NCALL, samples, NSAMP, &fs);
    CHECK(fnum(&fs, "soak.p99_growth_pct") > 40);
    CHECK(fabs(fnum(&fs, "soak.sclk_drop_pct") - 25) < 1e-9);
    CHECK(fnum(&fs, "soak.sclk_first_mhz") == 2400 && fnum(&fs, "soak.sclk_last_mhz") == 1800);
    CHECK(fnum(&fs, "soak.temp_at_limit") == 1 && fnum(&fs, "soak.temp_margin_c") == 0);
    CHECK(fnum(&fs, "soak.throttle_events") == 1);
    const struct fact *r = fact_get(&fs, "soak.throttle_reasons");
    CHECK(r && r->type == FACT_STR && !strcmp(r->s, "TEMP_HOTSPOT"));
    CHECK(fnum(&fs, "soak.vram_growth_bytes") == 2.0 * (1 << 30));
    factset_release(&fs);
}

/* a bit set from the first sample on (RDNA reports some permanently) is
 * listed, not counted */
static void test_permanent_bit(void)
{
    struct factset fs = FACTSET_INIT;
    mk_calls(30, 0);
    mk_samples(1);
    for (int i = 0; i < NSAMP; i++) {
        samples[i].gpus[0].throttle_bits = 1;
        snprintf(samples[i].gpus[0].throttle, sizeof(samples[i].gpus[0].throttle), "PPT0");
    }
    soak_analyze(calls, NCALL, samples, NSAMP, &fs);
    CHECK(fnum(&fs, "soak.throttle_events") == 0);
    const struct fact *f = fact_get(&fs, "soak.throttle_since_start");
    CHECK(f && f->type == FACT_STR && !strcmp(f->s, "PPT0"));
    factset_release(&fs);
}

static void test_outliers(void)
{
    struct factset fs = FACTSET_INIT;
    mk_calls(30, 0);
    mk_samples(1);
    /* call 120 (t = 103.0) takes 90 ms while the clock steps 2400 -> 1500 */
    calls[120].lat_s = 0.090;
    for (int i = 13; i < NSAMP; i++) /* sample 13 is t = 103.25 */
        samples[i].gpus[0].v[TEL_SCLK_MHZ] = 1500;
    /* call 200 (t = 105.0) takes 95 ms while another process appears */
    calls[200].lat_s = 0.095;
    samples[21].nproc = 1;
    samples[21].procs = calloc(1, sizeof(struct tel_proc));
    samples[21].procs[0] = (struct tel_proc){.pid = 77, .comm = "Xorg", .gpu = 0};
    /* call 280 (t = 107.0): 99 ms, the power cap drops 300 -> 200 W */
    calls[280].lat_s = 0.099;
    for (int i = 29; i < NSAMP; i++) {
        samples[i].gpus[0].v[TEL_POWER_CAP_W] = 200;
        samples[i].gpus[0].v[TEL_POWER_W] = 150; /* below the new cap: only the step counts */
    }
    /* call 360 (t = 109.0): 97 ms, nothing changes */
    calls[360].lat_s = 0.097;
    soak_analyze(calls, NCALL, samples, NSAMP, &fs);
    CHECK(fnum(&fs, "soak.outliers") == 4);
    CHECK(fnum(&fs, "soak.outliers_unexplained") == 1);
    const struct fact *c = causes(&fs);
    CHECK(c && c->list.n == 4);
    if (c && c->list.n == 4) {
        /* the slowest first: 99, 97, 95, 90 ms */
        CHECK(strstr(c->list.v[3], "GPU 0 shader clock 2400 -> 1500 MHz") != NULL);
        CHECK(strstr(c->list.v[3], "t=3.0s 90.00 ms") != NULL);
        CHECK(strstr(c->list.v[2], "another process: Xorg (pid 77) on GPU 0") != NULL);
        CHECK(strstr(c->list.v[0], "GPU 0 power cap 300 -> 200 W") != NULL);
        CHECK(strstr(c->list.v[1], "unexplained") != NULL);
    }
    factset_release(&fs);
    /* power at 95 % of the cap is a cause by itself */
    for (int i = 29; i < NSAMP; i++)
        samples[i].gpus[0].v[TEL_POWER_W] = 195;
    soak_analyze(calls, NCALL, samples, NSAMP, &fs);
    c = causes(&fs);
    CHECK(c && c->list.n == 4 && strstr(c->list.v[1], "GPU 0 at its power cap (195 of 200 W)"));
    CHECK(fnum(&fs, "soak.outliers_unexplained") == 0);
    factset_release(&fs);
}

static void test_unknown(void)
{
    struct factset fs = FACTSET_INIT;
    mk_calls(30, 0);
    /* no telemetry at all */
    soak_analyze(calls, NCALL, NULL, 0, &fs);
    CHECK(unknown(&fs, "soak.sclk_drop_pct") && unknown(&fs, "soak.temp_at_limit"));
    CHECK(unknown(&fs, "soak.throttle_events") && unknown(&fs, "soak.vram_growth_bytes"));
    CHECK(unknown(&fs, "soak.energy_per_call_j"));
    CHECK(!unknown(&fs, "soak.p99_growth_pct")); /* latency needs no telemetry */
    factset_release(&fs);
    /* too few calls: latency facts unknown, never 0 */
    soak_analyze(calls, 3, NULL, 0, &fs);
    CHECK(fnum(&fs, "soak.calls") == 3);
    CHECK(unknown(&fs, "soak.p99_growth_pct") && unknown(&fs, "soak.outliers"));
    factset_release(&fs);
    /* power only (no energy counter): integrated samples */
    mk_samples(0);
    for (int i = 0; i < NSAMP; i++)
        samples[i].gpus[0].src[TEL_ENERGY_J] = NULL;
    soak_analyze(calls, NCALL, samples, NSAMP, &fs);
    CHECK(fabs(fnum(&fs, "soak.avg_power_w") - 250) < 1e-6);
    const struct fact *f = fact_get(&fs, "soak.energy_source");
    CHECK(f && f->type == FACT_STR && strstr(f->s, "integrated power samples"));
    CHECK(unknown(&fs, "soak.throttle_events")); /* no throttle status read */
    factset_release(&fs);
}


/* two GPUs: the one the soak loaded (nvml:1) steady, a neighbour (nvml:0)
 * busy at first and idle at the end, as on the H200 pair where another job
 * ran on GPU 0: judged on every GPU the neighbour's 1980 -> 345 MHz reads as
 * a clock drop of this run; soak_only_gpu keeps the loaded GPU alone */
static void test_only_gpu(void)
{
    for (int pass = 0; pass < 2; pass++) {
        struct factset fs = FACTSET_INIT;
        mk_calls(30, 0);
        mk_samples(0);
        for (int i = 0; i < NSAMP; i++) {
            struct tel_sample *s = &samples[i];
            struct tel_gpu *two = calloc(2, sizeof(struct tel_gpu));
            two[1] = s->gpus[0];
            snprintf(two[1].pci, sizeof(two[1].pci), "nvml:1");
            snprintf(two[0].pci, sizeof(two[0].pci), "nvml:0");
            set(&two[0], TEL_SCLK_MHZ, i < 30 ? 1980 : 345);
            free(s->gpus);
            s->gpus = two;
            s->ngpu = 2;
        }
        if (pass)
            soak_only_gpu(samples, NSAMP, "nvml:1");
        soak_analyze(calls, NCALL, samples, NSAMP, &fs);
        if (pass)
            CHECK(fnum(&fs, "soak.sclk_drop_pct") == 0 && fnum(&fs, "soak.sclk_last_mhz") == 2400);
        else
            CHECK(fnum(&fs, "soak.sclk_drop_pct") > 80); /* the neighbour decides */
        factset_release(&fs);
    }
    /* a key no sample has: no GPU left, the GPU figures unknown, never 0 */
    struct factset fs = FACTSET_INIT;
    mk_calls(30, 0);
    mk_samples(0);
    soak_only_gpu(samples, NSAMP, "nvml:7");
    soak_analyze(calls, NCALL, samples, NSAMP, &fs);
    CHECK(unknown(&fs, "soak.sclk_drop_pct"));
    factset_release(&fs);
}

int main(void)
{
    test_steady();
    test_drift();
    test_permanent_bit();
    test_outliers();
    test_unknown();
    test_only_gpu();
    for (int i = 0; i < NSAMP; i++)
        tel_sample_release(&samples[i]);
    return test_report();
}
