/* bench_gpu.h - the VLA pass measured on a GPU backend (ops_gpu.h): cold
 * pass, the fp32 reference on the same device weights, graph capture and
 * timed replays, per-stage work, ceilings measured in the same run. Used by
 * `bench` (bench.c prints it) and by the `vla` probe (facts). */
#ifndef RVD_VLA_BENCH_GPU_H
#define RVD_VLA_BENCH_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gaps.h"
#include "model.h"
#include "ops_gpu.h"
#include "preset.h"

struct vla_gpu_req {
    const struct vla_preset *p;
    const char *backend; /* "auto", "cuda", "hip" */
    const char *dtype;   /* "fp32", "bf16", "fp16" */
    const char *weights, *save;
    int runs, image, want_ref;
    uint64_t seed;
    int profile; /* one extra stream-launched pass timed per kernel (prof) */
    int batch;   /* observations per call (1 and up): times, energy per call of all */
};

struct vla_pct {
    double p50, p90, p99;
};

struct vla_gpu_out {
    char backend[16], device[256], target[64], blas[512], origin[512];
    char pci[32];            /* the device's PCI address, "" when the runtime does not say */
    char graph_why[512];     /* why no graph ("" with one) */
    char attention[512];     /* how the vision attention ran (fused kernel, or BLAS and why) */
    struct vla_gap_set gaps; /* the fast paths not taken and why (after the graph's try) */
    char error[700];         /* why the run failed ("" if it ran) */
    int graph;               /* 1: timed runs are graph replays */
    uint64_t params;
    double flops;        /* per pass (call): all the batch's observations */
    double open_s;       /* runtime + kernels (compile or cache) */
    double cold_s;       /* open + weights + first pass */
    double first_pass_s; /* the first pass alone */
    int compiles, cache_hits;
    int nstages;                /* VLA_STAGES + 1 (the last is the total) */
    struct vla_pct *stage;      /* [nstages], seconds */
    struct vla_pct eager_total; /* stream launches, when a graph ran too */
    struct vla_stats st;        /* of the first pass */
    float *actions;             /* [batch * chunk * A], physical units */
    /* numerics against the fp32 pass on the same device weights */
    int have_ref;
    double cos_norm, cos_phys, maxerr_norm, maxerr_phys, ref_maxabs_phys;
    char ref_first_bad[64];
    /* work per stage and call (the whole batch): 0 vision, 1 prefix, 2 one
     * denoising step; the weight bytes are read once per call */
    double stage_flops[3], stage_bytes[3];
    double gemm_peak, bw_peak; /* measured here: FLOP/s of a large GEMM, bytes/s of a device copy */
    size_t mem_used, mem_total, alloc_peak;
    size_t weights_fp32_bytes;    /* the fp32 arena kept for the reference pass */
    struct vla_gpu_prof prof[96]; /* --profile: per kernel and stage, one pass */
    int nprof;                    /* rows; 0 without --profile */
    double prof_total_ms;
    int prof_launches[3]; /* --profile: launches by stage: vision, prefix, the steps and the tail */
    /* energy per call: graph replays (else stream passes) for at least
     * VLA_ENERGY_MIN_S and `runs` calls, the GPU's energy over them
     * (src/telemetry/tel_energy.h); have_energy 0: energy_why says why */
    int have_energy, energy_calls;
    double energy_j_per_call, avg_power_w, energy_s;
    char energy_source[96], energy_why[300];
};
#define VLA_ENERGY_MIN_S 1.0

/* 0 ran (out filled), 1 no GPU (out->error says why), -1 failed (out->error) */
int vla_gpu_run(const struct vla_gpu_req *r, struct vla_gpu_out *out);
void vla_gpu_out_release(struct vla_gpu_out *out);

/* nearest-rank p50/p90/p99 of n values (sorts v) */
struct vla_pct vla_pcts(double *v, int n);
/* cosine and max |a - b| of two vectors (cosine 1 for two zero vectors) */
void vla_actions_compare(const float *a, const float *b, size_t n, double *cosv, double *maxerr);
/* soak: the pass prepared as bench prepares it (out: backend, device,
 * graph, first pass), then one call at a time (the graph's replay when one
 * was captured, out->graph). open: 0, 1 no GPU, -1 failed (out->error);
 * close the session in every case. */
struct vla_gpu_session;
int vla_gpu_session_open(const struct vla_gpu_req *r, struct vla_gpu_out *out,
                         struct vla_gpu_session **s);
int vla_gpu_session_call(struct vla_gpu_session *s, int graph);
/* the host buffer each call writes its actions to ([*n] floats, physical
 * units: the graph's replay downloads them, as the stream pass does) */
float *vla_gpu_session_actions(struct vla_gpu_session *s, size_t *n);
/* the session's GPU context: its failure (vla_gpu_failed), the soak's GEMM
 * load (vla_gpu_load_gemm) */
struct vla_gpu *vla_gpu_session_gpu(struct vla_gpu_session *s);
void vla_gpu_session_close(struct vla_gpu_session *s);

#endif
