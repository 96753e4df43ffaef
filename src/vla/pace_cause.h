/* pace_cause.h - why paced calls are slower than back-to-back ones (issue
 * 36, `bench --rate`): a pure function of what was measured, so the unit
 * tests hold each cause to its figures. GPUs drop their clocks when idle
 * between requests; the cause named must come from a measurement:
 *   - not slower: paced p50 within 10 % of the back-to-back p50;
 *   - clock ramp: the shader clock sampled as a paced call starts is under
 *     80 % of the one back to back (fix: a fixed performance level or the
 *     compute power profile);
 *   - otherwise the clock is ruled out by its figures; ASPM L1 on the GPU's
 *     link is named as the remaining candidate when it is enabled (its exit
 *     latency is not measured here: the text says so), else the cause is
 *     unexplained.
 * Unknown figures are NAN (clocks) or -1 (aspm_l1): a cause that needs one
 * is never named without it. */
#ifndef RVD_VLA_PACE_CAUSE_H
#define RVD_VLA_PACE_CAUSE_H

#include <stddef.h>

struct pace_obs {
    double b2b_p50_ms, paced_p50_ms;
    double sclk_b2b_mhz, sclk_gap_mhz; /* medians; NAN unknown */
    int aspm_l1;                       /* 1 enabled, 0 disabled, -1 unknown */
};

enum pace_cause_id { PACE_NOT_SLOWER, PACE_CLOCK_RAMP, PACE_ASPM_CANDIDATE, PACE_UNEXPLAINED };

/* the cause, and its sentence with the figures and the knob in buf */
enum pace_cause_id pace_cause(const struct pace_obs *o, char *buf, size_t cap);

#endif
