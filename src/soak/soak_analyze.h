/* soak_analyze.h - the verdict facts of a sustained run (`soak`): the
 * policy calls' latencies (from the isolated child) against the telemetry
 * sampled throughout (src/telemetry). A pure function of its inputs, so the
 * unit tests give it timelines with known drift.
 *
 * Windows: "first" and "last" are the first and the last minute of the
 * calls, or a quarter of the run each when it is shorter than 4 minutes
 * (a 5 s CI run still compares a start with an end).
 *
 * Facts (all soak.*, declared in probes/fact_catalog.c):
 *   calls, duration_s, p50_ms, p99_ms, p99_first_ms, p99_last_ms,
 *   p99_growth_pct, window_s                    latency drift
 *   window_calls, window_samples                 the calls and the telemetry samples in
 *                                               the shorter window (checks.yaml skips
 *                                               the drift checks below a minimum)
 *   sclk_first_mhz, sclk_last_mhz, sclk_drop_pct shader clock (worst GPU)
 *   temp_margin_c, temp_at_limit, temp_hottest   every sensor against its own limit
 *   throttle_events, throttle_reasons, throttle_since_start
 *                                               bits that turned on (a bit set in the
 *                                               first sample is reported, not counted:
 *                                               RDNA reports some permanently)
 *   vram_growth_bytes                            VRAM in use, last window - first
 *   outliers, outliers_unexplained, outlier_causes
 *                                               calls above the p99 (interpolated) and
 *                                               1.5x the median, each tied to what
 *                                               changed around it, or "unexplained"
 *                                               (the list: the slowest 200, slowest first)
 *   energy_per_call_j, avg_power_w, energy_source
 *                                               the energy counter over the run (GEMM
 *                                               load included unless --load none)
 * A figure without data is unknown with the reason, never 0. */
#ifndef RVD_SOAK_ANALYZE_H
#define RVD_SOAK_ANALYZE_H

#include <stddef.h>

#include "../core/fact.h"
#include "../telemetry/telemetry.h"

struct soak_call {
    double t;     /* CLOCK_MONOTONIC seconds at the call's start (util_mono_s) */
    double lat_s; /* its latency */
};

/* samples' t_s are in the same clock as the calls' t (the caller converts) */
/* keep, in every sample, only the GPU named key (tel_gpu_key): the soak
 * judges the GPU it loaded, not its neighbours (another job's GPU going
 * idle is no clock drop of this run) */
void soak_only_gpu(struct tel_sample *samples, size_t n, const char *key);
/* --rate: soak.rate_hz, soak.period_ms (the control period) and
 * soak.deadline_misses (calls longer than the period); unknown with the
 * reason for a back-to-back run (rate_hz 0) */
void soak_pace_facts(const struct soak_call *calls, size_t ncalls, long rate_hz,
                     struct factset *fs);
void soak_analyze(const struct soak_call *calls, size_t ncalls, const struct tel_sample *samples,
                  size_t nsamples, struct factset *fs);

#endif
