/* cpu_fit.h - which presets the cpu reference backend takes: the limits
 * `bench --sweep` and `soak` share when they fall back to the CPU (and
 * `soak --backend cpu` refuses beyond). Beyond them one pass takes minutes
 * and gigabytes of fp32 weights: a soak of the default pi0 on the CPU ran
 * 3 minutes for 0 calls (issue 20). */
#ifndef RVD_VLA_CPU_FIT_H
#define RVD_VLA_CPU_FIT_H

#include "preset.h"

#define VLA_CPU_MAX_WEIGHT_BYTES (2.0 * (1 << 30))
#define VLA_CPU_MAX_FLOPS 200e9

/* 1 when the cpu backend takes p at its own image size, else 0; *bytes and
 * *flops (either may be NULL): its fp32 weights and one pass's FLOPs */
int vla_cpu_fits(const struct vla_preset *p, double *bytes, double *flops);

#endif
