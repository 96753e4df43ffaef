/* gpu_probe.h - what every GPU probe does first, in its isolated child:
 * open a backend (HIP, else CUDA), pick the device the runner chose (ctx->device,
 * 0 by default; --gpu), and say why not. Also
 * small timing and statistics helpers shared by the measuring probes. */
#ifndef RVD_GPU_PROBE_H
#define RVD_GPU_PROBE_H

#include "../core/probe_def.h"
#include "backend.h"

/* 0 with *b open on device ctx->device and *p filled; 1 when there is nothing to
 * measure (then facts "<prefix>.available" = false and "<prefix>.why" say
 * why); the backend name is recorded as "<prefix>.backend". */
int gpu_probe_begin(struct probe_ctx *ctx, const char *prefix, struct gpu_backend **b,
                    struct gpu_props *p);
/* the same, also on the CPU backend's test devices (ROCM_VLA_DOCTOR_CPU_DEVICES,
 * backend.h), which gpu_probe_begin refuses: for the probes whose logic has a C
 * twin on the CPU (the memory test, peer-to-peer copies) */
int gpu_probe_begin_cpu_ok(struct probe_ctx *ctx, const char *prefix, struct gpu_backend **b,
                           struct gpu_props *p);
/* facts "<prefix>.available" = false, "<prefix>.why" = the formatted reason */
void gpu_probe_unavailable(struct probe_ctx *ctx, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* the target to compile for: ROCM_VLA_DOCTOR_TARGET overrides p->target */
const char *gpu_probe_target(const struct gpu_props *p);

/* a measured figure against runtime device `dev`'s derived peak
 * (runtime.dev.<dev>.peak.<peak>, probes/probe_peaks.c, set in the parent
 * before this child forked): facts "<name>_peak" (the peak) and
 * "<name>_fraction" (measured / peak), or both unknown with the peak's own
 * reason, so a check can judge the fraction or say why it cannot; and
 * "<name>_vs_peak", a string for summaries ("0.45 of the 1307 derived from
 * the device", or "no fraction of a peak (<why>)") */
void gpu_probe_fraction(struct probe_ctx *ctx, const char *name, double measured, int dev,
                        const char *peak);

/* sorts v in place; q in [0,1] */
double gpu_quantile(double *v, size_t n, double q);

#endif
