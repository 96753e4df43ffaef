/* pace_cause.c - why paced calls are slower (see pace_cause.h). */
#include "pace_cause.h"

#include <math.h>
#include <stdio.h>

#define PACE_SLOWER 1.10 /* paced p50 over back-to-back p50 that counts as slower */
#define PACE_CLOCK_DROP 0.80

enum pace_cause_id pace_cause(const struct pace_obs *o, char *buf, size_t cap)
{
    double pct = (o->paced_p50_ms / o->b2b_p50_ms - 1) * 100;
    if (o->paced_p50_ms <= o->b2b_p50_ms * PACE_SLOWER) {
        snprintf(buf, cap, "paced calls are as fast as back to back (p50 %+.1f%%)", pct);
        return PACE_NOT_SLOWER;
    }
    int clocks = isfinite(o->sclk_b2b_mhz) && isfinite(o->sclk_gap_mhz);
    if (clocks && o->sclk_gap_mhz < o->sclk_b2b_mhz * PACE_CLOCK_DROP) {
        snprintf(buf, cap,
                 "clock ramp: paced p50 %+.1f%%; the shader clock is %.0f MHz when a paced call "
                 "starts against %.0f MHz back to back. Fix: a fixed performance level "
                 "(echo high > /sys/class/drm/cardN/device/power_dpm_force_performance_level; "
                 "NVIDIA: nvidia-smi --lock-gpu-clocks) or the compute power profile",
                 pct, o->sclk_gap_mhz, o->sclk_b2b_mhz);
        return PACE_CLOCK_RAMP;
    }
    char clk[128];
    if (clocks)
        snprintf(clk, sizeof(clk), "not the clock (%.0f MHz paced, %.0f MHz back to back)",
                 o->sclk_gap_mhz, o->sclk_b2b_mhz);
    else
        snprintf(clk, sizeof(clk), "the shader clock was not readable");
    if (o->aspm_l1 == 1) {
        snprintf(buf, cap,
                 "paced p50 %+.1f%%: %s; ASPM L1 is enabled on the GPU's link, whose exit "
                 "latency after each idle gap is the remaining candidate (not measured). "
                 "Try: echo 0 > /sys/bus/pci/devices/ADDR/link/l1_aspm, or pcie_aspm=off",
                 pct, clk);
        return PACE_ASPM_CANDIDATE;
    }
    snprintf(buf, cap, "paced p50 %+.1f%%: %s; ASPM L1 is %s: unexplained", pct, clk,
             o->aspm_l1 == 0 ? "off" : "unknown");
    return PACE_UNEXPLAINED;
}
