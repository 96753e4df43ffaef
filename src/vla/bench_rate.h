/* bench_rate.h - `bench --rate HZ` (issue 36): the pass called back to back,
 * then at the team's control rate with idle gaps between calls, latency per
 * call against the back-to-back figure, the shader clock sampled before
 * every call (through the shared telemetry sampler, src/telemetry), the
 * GPU link's ASPM L1 state, and the cause when paced calls are slower
 * (pace_cause.h). A GPU backend when one loads, else the cpu reference
 * (a preset it can run in time). Exit: 0 paced p99 within the period, 1
 * beyond it, 2 usage, 3 the pass failed. */
#ifndef RVD_VLA_BENCH_RATE_H
#define RVD_VLA_BENCH_RATE_H

#include <stdint.h>

#include "preset.h"

struct vla_rate_opts {
    const struct vla_preset *p;
    const char *backend, *dtype; /* "auto"|"cpu"|..., "fp32"|"bf16"|"fp16" */
    int runs;                    /* calls per phase */
    long rate_hz;
    uint64_t seed;
};

int vla_bench_rate(const struct vla_rate_opts *o);

#endif
