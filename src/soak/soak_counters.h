/* soak_counters.h - the soak's verdict facts from counters that the
 * telemetry samples carry (src/telemetry/telemetry.h), judged by their
 * growth over the run, never by their value (they accumulate since the
 * driver loaded):
 *   residency_thermal_grew, residency_power_grew   the throttler residency
 *     counters of gpu_metrics v1_6+ (PROCHOT, socket/VR/HBM thermal, PPT) and
 *     v3_0 (thm_core/gfx/soc, SPL, fast/slow PPT), summed per class
 *   residency_thermal_pct, residency_power_pct     the largest counter's
 *     growth over accumulation_counter's (v1_6+ only: v3_0 has none)
 *   residency_detail                                which limiter grew, per GPU
 *   pcie_replays_grew, pcie_recoveries_grew, pcie_naks_grew, pcie_counter_detail
 *     gpu_metrics' PCIe replay (+ rollover), L0->recovery (+ recoveries the
 *     link partner started) and NAK accumulators; sysfs pcie_replay_count
 *     stands in for the replays where gpu_metrics has none
 *   link_start_width, link_start_speed_gts, link_min_width, link_min_speed_gts,
 *   link_changes, link_change_list                  the slot's link (as
 *     pcie.link_stable reads it) in every sample: RVS PESM over the soak
 * A counter a revision lacks is unknown with the sampler's reason ("gpu_metrics
 * 1.3 has no ppt_residency_acc"), never a growth of 0. */
#ifndef RVD_SOAK_COUNTERS_H
#define RVD_SOAK_COUNTERS_H

#include <stddef.h>

#include "../core/fact.h"
#include "../telemetry/telemetry.h"

/* the first and the last sample (indexes) where GPU g's key k is known;
 * both -1 when none */
void soak_first_last(const struct tel_sample *s, size_t ns, size_t g, enum tel_key k, long *a,
                     long *b);
void soak_counter_facts(struct factset *fs, const struct tel_sample *samples, size_t nsamples);

#endif
