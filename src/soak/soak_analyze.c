/* soak_analyze.c - see soak_analyze.h. */
#include "soak_analyze.h"

#include "soak_counters.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC "soak"
#define WINDOW_MAX_S 60.0
#define MIN_CALLS 8
/* what counts as a change around an outlier */
#define CLOCK_STEP_FRAC 0.05
#define TEMP_NEAR_C 5.0
#define POWER_NEAR_CAP 0.95
/* NVML clock-event reasons that are not throttling: GpuIdle,
 * ApplicationsClocksSetting, DisplayClockSetting */
#define NVML_NOT_THROTTLE 0x103ull
#define MAX_CAUSES 200
#define OUTLIER_X_P50 1.5

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* nearest-rank percentile of n values (sorted in place) */
static double pct(double *v, size_t n, double q)
{
    qsort(v, n, sizeof(double), cmp_d);
    size_t k = (size_t)ceil(q * (double)n);
    return v[k ? k - 1 : 0];
}

/* linear interpolation between order statistics (sorted v): the largest
 * call of a short run is above it, unlike the nearest rank */
static double pct_interp(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    return lo + 1 < n ? v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* the same reason for each of a group of facts */
static void unknown_all(struct factset *fs, const char *why, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fact_set_unknown(fs, names[i], SRC, "%s", why);
}
#define UNKNOWN3(fs, why, a, b, c)                                                                 \
    do {                                                                                           \
        static const char *const n3_[] = {a, b, c};                                                \
        unknown_all(fs, why, n3_, 3);                                                              \
    } while (0)

static double window_p99(const struct soak_call *c, size_t n, double lo, double hi, size_t *cnt)
{
    double *v = xcalloc(n + 1, sizeof(double));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].t >= lo && c[i].t <= hi)
            v[m++] = c[i].lat_s;
    double r = m ? pct(v, m, 0.99) : NAN;
    free(v);
    *cnt = m;
    return r;
}

/* median of a value of GPU g over the samples in [lo, hi]; NAN when none known */
static double window_median(const struct tel_sample *s, size_t ns, size_t g, enum tel_key k,
                            double lo, double hi)
{
    double *v = xcalloc(ns + 1, sizeof(double));
    size_t m = 0;
    for (size_t i = 0; i < ns; i++)
        if (s[i].t_s >= lo && s[i].t_s <= hi && g < s[i].ngpu && s[i].gpus[g].src[k])
            v[m++] = s[i].gpus[g].v[k];
    double r = m ? pct(v, m, 0.5) : NAN;
    free(v);
    return r;
}

static size_t max_gpus(const struct tel_sample *s, size_t ns)
{
    size_t n = 0;
    for (size_t i = 0; i < ns; i++)
        n = s[i].ngpu > n ? s[i].ngpu : n;
    return n;
}

static const char *const sensors[] = {"edge", "junction", "mem"};
static const enum tel_key temp_keys[] = {TEL_TEMP_EDGE_C, TEL_TEMP_JUNCTION_C, TEL_TEMP_MEM_C};

static uint64_t throttle_mask(const struct tel_gpu *g)
{
    uint64_t b = g->throttle_bits;
    if (!strcmp(g->throttle_src, "NVML"))
        b &= ~NVML_NOT_THROTTLE;
    return b;
}

static void clock_facts(struct factset *fs, const struct tel_sample *s, size_t ns, double lo0,
                        double hi0, double lo1, double hi1)
{
    double worst = NAN, first = NAN, last = NAN;
    for (size_t g = 0; g < max_gpus(s, ns); g++) {
        double a = window_median(s, ns, g, TEL_SCLK_MHZ, lo0, hi0);
        double b = window_median(s, ns, g, TEL_SCLK_MHZ, lo1, hi1);
        if (isnan(a) || isnan(b) || a <= 0)
            continue;
        double drop = (1 - b / a) * 100;
        if (isnan(worst) || drop > worst)
            worst = drop, first = a, last = b;
    }
    if (isnan(worst)) {
        UNKNOWN3(fs, "no shader clock known in both the first and the last window",
                 "soak.sclk_first_mhz", "soak.sclk_last_mhz", "soak.sclk_drop_pct");
        return;
    }
    fact_set_float(fs, "soak.sclk_first_mhz", first, SRC);
    fact_set_float(fs, "soak.sclk_last_mhz", last, SRC);
    fact_set_float(fs, "soak.sclk_drop_pct", worst, SRC);
}

static void temp_facts(struct factset *fs, const struct tel_sample *s, size_t ns)
{
    double margin = NAN;
    char hottest[160] = "";
    for (size_t i = 0; i < ns; i++)
        for (size_t g = 0; g < s[i].ngpu; g++)
            for (size_t k = 0; k < ARRAY_SIZE(temp_keys); k++) {
                const struct tel_gpu *gp = &s[i].gpus[g];
                enum tel_key t = temp_keys[k], l = temp_keys[k] + 1;
                if (!gp->src[t] || !gp->src[l])
                    continue;
                double m = gp->v[l] - gp->v[t];
                if (isnan(margin) || m < margin) {
                    margin = m;
                    snprintf(hottest, sizeof(hottest), "GPU %zu %s %.0f C of its %.0f C limit", g,
                             sensors[k], gp->v[t], gp->v[l]);
                }
            }
    if (isnan(margin)) {
        UNKNOWN3(fs, "no temperature sensor with a limit was readable", "soak.temp_margin_c",
                 "soak.temp_at_limit", "soak.temp_hottest");
        return;
    }
    fact_set_float(fs, "soak.temp_margin_c", margin, SRC);
    fact_set_bool(fs, "soak.temp_at_limit", margin <= 0, SRC);
    fact_set_str(fs, "soak.temp_hottest", hottest, SRC);
}

/* a search per name is fine: throttle names are bits of one 64-bit mask */
static void add_names(char *buf, size_t n, const char *names)
{
    struct strlist have = STRLIST_INIT, add = STRLIST_INIT;
    strlist_split(&have, buf, ",");
    strlist_split(&add, names, ",");
    for (size_t i = 0; i < add.n; i++)
        if (!strlist_has(&have, add.v[i])) {
            size_t l = strlen(buf);
            snprintf(buf + l, n - l, "%s%s", l ? "," : "", add.v[i]);
            strlist_add(&have, add.v[i]);
        }
    strlist_release(&have);
    strlist_release(&add);
}

/* names of bits (g's source) into buf */
static void bit_names(const struct tel_gpu *g, uint64_t bits, char *buf, size_t n)
{
    buf[0] = '\0';
    /* the sampler names the bits it read; rebuild the names of a subset by
     * keeping the names whose bit is in it: names and bits are in the same
     * order (lowest bit first) */
    struct strlist all = STRLIST_INIT;
    strlist_split(&all, g->throttle, ",");
    size_t idx = 0;
    for (unsigned b = 0; b < 64 && idx < all.n; b++) {
        if (!(g->throttle_bits >> b & 1))
            continue;
        if (bits >> b & 1)
            add_names(buf, n, all.v[idx]);
        idx++;
    }
    strlist_release(&all);
}

static void throttle_facts(struct factset *fs, const struct tel_sample *s, size_t ns)
{
    int known = 0;
    long events = 0;
    char reasons[512] = "", since[512] = "";
    for (size_t g = 0; g < max_gpus(s, ns); g++) {
        const struct tel_gpu *prev = NULL;
        for (size_t i = 0; i < ns; i++) {
            if (g >= s[i].ngpu || !s[i].gpus[g].throttle_known)
                continue;
            const struct tel_gpu *cur = &s[i].gpus[g];
            known = 1;
            uint64_t bits = throttle_mask(cur);
            char names[256];
            if (!prev) {
                bit_names(cur, bits, names, sizeof(names));
                add_names(since, sizeof(since), names);
            } else {
                uint64_t on = bits & ~throttle_mask(prev);
                if (on) {
                    events += __builtin_popcountll(on);
                    bit_names(cur, on, names, sizeof(names));
                    add_names(reasons, sizeof(reasons), names);
                }
            }
            prev = cur;
        }
    }
    if (!known) {
        UNKNOWN3(fs, "no throttle status readable (gpu_metrics or NVML)", "soak.throttle_events",
                 "soak.throttle_reasons", "soak.throttle_since_start");
        return;
    }
    fact_set_int(fs, "soak.throttle_events", events, SRC);
    fact_set_str(fs, "soak.throttle_reasons", reasons, SRC);
    fact_set_str(fs, "soak.throttle_since_start", since, SRC);
}

static void vram_facts(struct factset *fs, const struct tel_sample *s, size_t ns, double lo0,
                       double hi0, double lo1, double hi1)
{
    double worst = NAN;
    for (size_t g = 0; g < max_gpus(s, ns); g++) {
        double a = window_median(s, ns, g, TEL_VRAM_USED_B, lo0, hi0);
        double b = window_median(s, ns, g, TEL_VRAM_USED_B, lo1, hi1);
        if (!isnan(a) && !isnan(b) && (isnan(worst) || b - a > worst))
            worst = b - a;
    }
    if (isnan(worst))
        fact_set_unknown(fs, "soak.vram_growth_bytes", SRC,
                         "no VRAM reading in both the first and the last window");
    else
        fact_set_int(fs, "soak.vram_growth_bytes", (int64_t)worst, SRC);
}

/* the last sample at or before t (index), or -1 */
static long sample_before(const struct tel_sample *s, size_t ns, double t)
{
    long k = -1;
    for (size_t i = 0; i < ns && s[i].t_s <= t; i++)
        k = (long)i;
    return k;
}

static int has_proc(const struct tel_sample *s, int pid, int gpu)
{
    for (size_t i = 0; i < s->nproc; i++)
        if (s->procs[i].pid == pid && s->procs[i].gpu == gpu)
            return 1;
    return 0;
}

/* what changed between samples a and b (a before the call, b after it) */
static void causes(const struct tel_sample *a, const struct tel_sample *b, struct strbuf *out)
{
    size_t n0 = out->len;
    for (size_t g = 0; g < a->ngpu && g < b->ngpu; g++) {
        const struct tel_gpu *x = &a->gpus[g], *y = &b->gpus[g];
        if (x->src[TEL_SCLK_MHZ] && y->src[TEL_SCLK_MHZ] &&
            fabs(y->v[TEL_SCLK_MHZ] - x->v[TEL_SCLK_MHZ]) >=
                CLOCK_STEP_FRAC * fmax(x->v[TEL_SCLK_MHZ], 1))
            strbuf_addf(out, "%sGPU %zu shader clock %.0f -> %.0f MHz", out->len > n0 ? "; " : "",
                        g, x->v[TEL_SCLK_MHZ], y->v[TEL_SCLK_MHZ]);
        if (x->src[TEL_POWER_CAP_W] && y->src[TEL_POWER_CAP_W] &&
            x->v[TEL_POWER_CAP_W] != y->v[TEL_POWER_CAP_W])
            strbuf_addf(out, "%sGPU %zu power cap %.0f -> %.0f W", out->len > n0 ? "; " : "", g,
                        x->v[TEL_POWER_CAP_W], y->v[TEL_POWER_CAP_W]);
        else if (y->src[TEL_POWER_W] && y->src[TEL_POWER_CAP_W] && y->v[TEL_POWER_CAP_W] > 0 &&
                 y->v[TEL_POWER_W] >= POWER_NEAR_CAP * y->v[TEL_POWER_CAP_W])
            strbuf_addf(out, "%sGPU %zu at its power cap (%.0f of %.0f W)",
                        out->len > n0 ? "; " : "", g, y->v[TEL_POWER_W], y->v[TEL_POWER_CAP_W]);
        for (size_t k = 0; k < ARRAY_SIZE(temp_keys); k++) {
            enum tel_key t = temp_keys[k], l = temp_keys[k] + 1;
            if (y->src[t] && y->src[l] && y->v[l] - y->v[t] <= TEMP_NEAR_C)
                strbuf_addf(out, "%sGPU %zu %s %.0f C, %.0f C from its limit",
                            out->len > n0 ? "; " : "", g, sensors[k], y->v[t], y->v[l] - y->v[t]);
        }
        if (x->throttle_known && y->throttle_known) {
            uint64_t on = throttle_mask(y) & ~throttle_mask(x);
            if (on) {
                char names[256];
                bit_names(y, on, names, sizeof(names));
                strbuf_addf(out, "%sGPU %zu throttle %s on", out->len > n0 ? "; " : "", g, names);
            }
        }
    }
    for (size_t i = 0; i < b->nproc; i++) {
        const struct tel_proc *p = &b->procs[i];
        if (!has_proc(a, p->pid, p->gpu))
            strbuf_addf(out, "%sanother process: %s (pid %d) on GPU %d", out->len > n0 ? "; " : "",
                        p->comm, p->pid, p->gpu);
    }
}

struct outlier {
    double lat;
    char *text;
};

static int cmp_outlier(const void *a, const void *b)
{
    double x = ((const struct outlier *)a)->lat, y = ((const struct outlier *)b)->lat;
    return (x < y) - (x > y); /* the slowest first */
}

static void outlier_facts(struct factset *fs, const struct soak_call *c, size_t n, double p99,
                          const struct tel_sample *s, size_t ns)
{
    struct outlier *o = NULL;
    size_t no = 0, cap = 0;
    long unexplained = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].lat_s <= p99)
            continue;
        /* the samples around the call: one interval before its start to the
         * first after its end */
        long k = sample_before(s, ns, c[i].t);
        long before = k > 0 ? k - 1 : k;
        long after = sample_before(s, ns, c[i].t + c[i].lat_s) + 1;
        struct strbuf why = STRBUF_INIT;
        if (before >= 0 && after < (long)ns && after > before)
            causes(&s[before], &s[after], &why);
        if (!why.len)
            unexplained++;
        if (no == cap) {
            cap = cap ? cap * 2 : 64;
            o = xrealloc(o, cap * sizeof(*o));
        }
        o[no].lat = c[i].lat_s;
        o[no++].text = xasprintf("t=%.1fs %.2f ms: %s", c[i].t - c[0].t, c[i].lat_s * 1e3,
                                 why.len ? why.buf : "unexplained");
        strbuf_release(&why);
    }
    /* the slowest MAX_CAUSES, slowest first */
    if (no)
        qsort(o, no, sizeof(*o), cmp_outlier);
    struct strlist list = STRLIST_INIT;
    for (size_t i = 0; i < no; i++) {
        if (i < MAX_CAUSES)
            strlist_add(&list, o[i].text);
        free(o[i].text);
    }
    free(o);
    fact_set_int(fs, "soak.outliers", (int64_t)no, SRC);
    fact_set_int(fs, "soak.outliers_unexplained", unexplained, SRC);
    fact_set_list(fs, "soak.outlier_causes", &list, SRC);
    strlist_release(&list);
}

static void energy_facts(struct factset *fs, size_t ncalls, const struct tel_sample *s, size_t ns)
{
    /* the first GPU with a counter at both ends; else integrated power */
    for (size_t g = 0; g < max_gpus(s, ns); g++) {
        long a, b;
        soak_first_last(s, ns, g, TEL_ENERGY_J, &a, &b);
        if (a >= 0 && b > a && s[b].gpus[g].v[TEL_ENERGY_J] >= s[a].gpus[g].v[TEL_ENERGY_J]) {
            double j = s[b].gpus[g].v[TEL_ENERGY_J] - s[a].gpus[g].v[TEL_ENERGY_J];
            double dt = s[b].t_s - s[a].t_s;
            fact_set_float(fs, "soak.energy_per_call_j", j / (double)ncalls, SRC);
            fact_set_float(fs, "soak.avg_power_w", j / dt, SRC);
            fact_set_str(fs, "soak.energy_source", s[b].gpus[g].src[TEL_ENERGY_J], SRC);
            return;
        }
    }
    for (size_t g = 0; g < max_gpus(s, ns); g++) {
        double j = 0, t0 = NAN, t1 = NAN;
        long prev = -1;
        for (size_t i = 0; i < ns; i++) {
            if (g >= s[i].ngpu || !s[i].gpus[g].src[TEL_POWER_W])
                continue;
            if (prev >= 0)
                j += (s[i].gpus[g].v[TEL_POWER_W] + s[prev].gpus[g].v[TEL_POWER_W]) / 2 *
                     (s[i].t_s - s[prev].t_s);
            else
                t0 = s[i].t_s;
            t1 = s[i].t_s;
            prev = (long)i;
        }
        if (!isnan(t0) && t1 > t0) {
            fact_set_float(fs, "soak.energy_per_call_j", j / (double)ncalls, SRC);
            fact_set_float(fs, "soak.avg_power_w", j / (t1 - t0), SRC);
            fact_set_str(fs, "soak.energy_source", "integrated power samples (telemetry interval)",
                         SRC);
            return;
        }
    }
    UNKNOWN3(fs, "no energy counter and no power reading", "soak.energy_per_call_j",
             "soak.avg_power_w", "soak.energy_source");
}

static const char *const latency_facts[] = {
    "soak.p50_ms",
    "soak.p99_ms",
    "soak.p99_first_ms",
    "soak.p99_last_ms",
    "soak.p99_growth_pct",
    "soak.window_s",
    "soak.window_calls",
    "soak.outliers",
    "soak.outliers_unexplained",
    "soak.outlier_causes",
    "soak.energy_per_call_j",
    "soak.avg_power_w",
    "soak.energy_source",
};

/* soak.window_samples: the telemetry samples in the shorter of the first
 * and the last window; the drift checks skip below the minimum in
 * checks.yaml (a median of one or two samples is one reading, not a trend) */
static void window_samples(struct factset *fs, const struct tel_sample *s, size_t ns, double lo0,
                           double hi0, double lo1, double hi1)
{
    size_t a = 0, b = 0;
    for (size_t i = 0; i < ns; i++) {
        a += s[i].t_s >= lo0 && s[i].t_s <= hi0;
        b += s[i].t_s >= lo1 && s[i].t_s <= hi1;
    }
    fact_set_int(fs, "soak.window_samples", (int64_t)(a < b ? a : b), SRC);
}

void soak_only_gpu(struct tel_sample *s, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        size_t keep = s[i].ngpu;
        for (size_t g = 0; g < s[i].ngpu && keep == s[i].ngpu; g++)
            if (!strcmp(s[i].gpus[g].pci, key))
                keep = g;
        if (keep < s[i].ngpu) {
            if (keep)
                s[i].gpus[0] = s[i].gpus[keep];
            s[i].ngpu = 1;
        } else {
            s[i].ngpu = 0;
        }
    }
}

void soak_analyze(const struct soak_call *c, size_t n, const struct tel_sample *s, size_t ns,
                  struct factset *fs)
{
    fact_set_int(fs, "soak.calls", (int64_t)n, SRC);
    double t_first = n ? c[0].t : 0, t_last = n ? c[n - 1].t + c[n - 1].lat_s : 0;
    fact_set_float(fs, "soak.duration_s", t_last - t_first, SRC);
    double span = t_last - t_first;
    double w = span / 4 < WINDOW_MAX_S ? span / 4 : WINDOW_MAX_S;
    double lo0 = t_first, hi0 = t_first + w, lo1 = t_last - w, hi1 = t_last;
    if (n < MIN_CALLS) {
        char why[64];
        snprintf(why, sizeof(why), "%zu policy calls, fewer than %d", n, MIN_CALLS);
        unknown_all(fs, why, latency_facts, ARRAY_SIZE(latency_facts));
    } else {
        double *v = xcalloc(n, sizeof(double));
        for (size_t i = 0; i < n; i++)
            v[i] = c[i].lat_s;
        double p50 = pct(v, n, 0.5), p99 = pct(v, n, 0.99);
        /* an outlier is above the p99 and 1.5x the median: the jitter tail
         * of a steady run (p99/p50 near 1) is no outlier */
        double limit = pct_interp(v, n, 0.99);
        if (limit < OUTLIER_X_P50 * p50)
            limit = OUTLIER_X_P50 * p50;
        free(v);
        size_t n0, n1;
        double a = window_p99(c, n, lo0, hi0, &n0), b = window_p99(c, n, lo1, hi1, &n1);
        fact_set_float(fs, "soak.p50_ms", p50 * 1e3, SRC);
        fact_set_float(fs, "soak.p99_ms", p99 * 1e3, SRC);
        fact_set_float(fs, "soak.window_s", w, SRC);
        fact_set_int(fs, "soak.window_calls", (int64_t)(n0 < n1 ? n0 : n1), SRC);
        fact_set_float(fs, "soak.p99_first_ms", a * 1e3, SRC);
        fact_set_float(fs, "soak.p99_last_ms", b * 1e3, SRC);
        if (n0 && n1 && a > 0)
            fact_set_float(fs, "soak.p99_growth_pct", (b / a - 1) * 100, SRC);
        else
            fact_set_unknown(fs, "soak.p99_growth_pct", SRC, "an empty first or last window");
        outlier_facts(fs, c, n, limit, s, ns);
        energy_facts(fs, n, s, ns);
    }
    if (n)
        window_samples(fs, s, ns, lo0, hi0, lo1, hi1);
    else
        fact_set_unknown(fs, "soak.window_samples", SRC, "no policy call: no window");
    clock_facts(fs, s, ns, lo0, hi0, lo1, hi1);
    temp_facts(fs, s, ns);
    throttle_facts(fs, s, ns);
    vram_facts(fs, s, ns, lo0, hi0, lo1, hi1);
    soak_counter_facts(fs, s, ns);
}

void soak_pace_facts(const struct soak_call *calls, size_t ncalls, long rate_hz, struct factset *fs)
{
    if (rate_hz <= 0) {
        const char *why = "back to back (no --rate): no control period";
        fact_set_unknown(fs, "soak.rate_hz", "soak", "%s", why);
        fact_set_unknown(fs, "soak.period_ms", "soak", "%s", why);
        fact_set_unknown(fs, "soak.deadline_misses", "soak", "%s", why);
        return;
    }
    double period = 1.0 / (double)rate_hz;
    long miss = 0;
    for (size_t i = 0; i < ncalls; i++)
        miss += calls[i].lat_s > period;
    fact_set_int(fs, "soak.rate_hz", rate_hz, "soak");
    fact_set_float(fs, "soak.period_ms", period * 1e3, "soak");
    fact_set_int(fs, "soak.deadline_misses", miss, "soak");
}
