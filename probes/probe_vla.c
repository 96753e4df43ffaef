/* probe_vla.c - the reference VLA workload (docs/VLA.md) at level full, in
 * the isolated child (needs_gpu): the preset's pass on the GPU in bf16 with
 * the fp32 pass on the same device weights as the numerical reference,
 * timed as one graph (src/vla/bench_gpu.h). Without a GPU the CPU reference
 * backend runs the `tiny` preset instead (the CI size): its latency and
 * NaN/Inf facts are real, the GPU-bound facts (memory, reduced-precision
 * numerics) are unknown with the reason.
 *
 * Preset: --preset (or $ROCM_VLA_DOCTOR_VLA_PRESET; a name or a .yaml path),
 * else pi0 on a GPU and tiny on the CPU; dtype --dtype (or
 * $ROCM_VLA_DOCTOR_VLA_DTYPE), default bf16.
 *
 * Facts (all vla.*): available, why, backend, device, preset, dtype, graph,
 * runs, cold_s, latency.vision_ms / prefix_ms / step_ms / post_ms / total_ms
 * (p50) and latency.total_p99_ms, control_rate_hz, tflops (achieved at p50),
 * memory.used_bytes / total_bytes / deploy_bytes (used less the fp32 weight copy
 * kept for the reference pass), numerics.cosine / max_error /
 * max_error_rel / cosine_normalised / max_error_normalised, nonfinite (bool),
 * nonfinite_layer ("" when none), max_activation, max_activation_layer, error ("", or
 * why the pass failed on a GPU that is there), requested_preset (the preset
 * asked for; without a GPU vla.preset names the CPU self-test that ran
 * instead, and vla.why says what did not run), numerics.actions_digest (the
 * fixed-seed actions' digest that `diff` gates on: src/core/actions_digest.h),
 * numerics.planted ("" or the weight the test hook changed).
 *
 * Test hook: ROCM_VLA_DOCTOR_VLA_PLANT="INDEX DELTA" adds DELTA to the
 * synthetic weight INDEX (counted from the end when negative) of the CPU
 * reference pass: a planted change of one weight that the numerics gate
 * must catch. GPU weights are generated on the device: there the hook is
 * not applied and vla.numerics.planted says so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/actions_digest.h"
#include "../src/gpu/backend.h"
#include "../src/gpu/isolate.h"
#include "../src/vla/bench_gpu.h"
#include "../src/vla/model.h"
#include "../src/vla/ops.h"
#include "../src/vla/preset.h"
#include "../src/vla/weights.h"
#include "probe.h"

#define SRC "vla workload"
#define VLA_PROBE_RUNS 20
#define VLA_CPU_RUNS 3

int probe_vla_run(struct probe_ctx *ctx);

static void layer_facts(struct factset *fs, const struct vla_stats *st)
{
    const struct vla_layer_stat *mx = NULL;
    for (size_t i = 0; i < st->n; i++)
        if (!mx || st->v[i].max_abs > mx->max_abs)
            mx = &st->v[i];
    if (mx) {
        fact_set_float(fs, "vla.max_activation", mx->max_abs, SRC);
        fact_set_str(fs, "vla.max_activation_layer", mx->name, SRC);
    }
    fact_set_bool(fs, "vla.nonfinite", st->first_bad >= 0, SRC);
    char name[96] = "";
    if (st->first_bad >= 0) {
        const struct vla_layer_stat *s = &st->v[st->first_bad];
        if (s->first_step >= 0)
            snprintf(name, sizeof(name), "%s (denoising step %d)", s->name, s->first_step);
        else
            snprintf(name, sizeof(name), "%s", s->name);
    }
    fact_set_str(fs, "vla.nonfinite_layer", name, SRC);
}

static void latency_facts(struct factset *fs, const double *p50, int ns, double total_p50,
                          double total_p99)
{
    /* stages: vision, prefix, steps..., post */
    fact_set_float(fs, "vla.latency.vision_ms", p50[0] * 1e3, SRC);
    fact_set_float(fs, "vla.latency.prefix_ms", p50[1] * 1e3, SRC);
    double step = 0;
    for (int s = 2; s < ns - 1; s++)
        step = p50[s] > step ? p50[s] : step;
    fact_set_float(fs, "vla.latency.step_ms", step * 1e3, SRC);
    fact_set_float(fs, "vla.latency.post_ms", p50[ns - 1] * 1e3, SRC);
    fact_set_float(fs, "vla.latency.total_ms", total_p50 * 1e3, SRC);
    fact_set_float(fs, "vla.latency.total_p99_ms", total_p99 * 1e3, SRC);
    fact_set_float(fs, "vla.control_rate_hz", total_p50 > 0 ? 1.0 / total_p50 : 0, SRC);
}

static void unknown_gpu_facts(struct factset *fs, const char *why)
{
    static const char *const names[] = {"vla.memory.used_bytes",
                                        "vla.memory.total_bytes",
                                        "vla.memory.deploy_bytes",
                                        "vla.numerics.cosine",
                                        "vla.numerics.max_error",
                                        "vla.numerics.max_error_rel",
                                        "vla.numerics.cosine_normalised",
                                        "vla.numerics.max_error_normalised",
                                        "vla.energy_per_call_j",
                                        "vla.avg_power_w",
                                        "vla.energy_source",
                                        "vla.backend_gaps",
                                        "vla.backend_gaps_n",
                                        "vla.backend_gaps.flash_attention",
                                        "vla.backend_gaps.lt_epilogues",
                                        "vla.backend_gaps.ptr_batch",
                                        "vla.backend_gaps.graph"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        fact_set_unknown(fs, names[i], SRC, "%s", why);
}

static void digest_fact(struct factset *fs, const float *a, size_t n, const char *preset,
                        const char *dtype)
{
    char *d = actions_digest_text(a, n, preset, dtype);
    fact_set_str(fs, "vla.numerics.actions_digest", d, SRC);
    free(d);
}

/* the test hook: "" when unset, else what was changed (or why not) */
static void plant_weight(struct factset *fs, struct vla_weights *w)
{
    const char *spec = getenv("ROCM_VLA_DOCTOR_VLA_PLANT");
    long long idx;
    double delta;
    char extra;
    if (!spec || !*spec) {
        fact_set_str(fs, "vla.numerics.planted", "", SRC);
        return;
    }
    if (sscanf(spec, "%lld %lf %c", &idx, &delta, &extra) != 2 || !isfinite(delta) ||
        (idx < 0 ? (size_t)(-idx) > w->arena_len : (size_t)idx >= w->arena_len) || !w->arena) {
        fact_set_str(fs, "vla.numerics.planted",
                     "not applied: ROCM_VLA_DOCTOR_VLA_PLANT wants "
                     "'INDEX DELTA' with INDEX inside the weights",
                     SRC);
        return;
    }
    size_t i = idx < 0 ? w->arena_len - (size_t)(-idx) : (size_t)idx;
    w->arena[i] += (float)delta;
    char *t = xasprintf("weight %zu of %zu changed by %g", i, w->arena_len, delta);
    fact_set_str(fs, "vla.numerics.planted", t, SRC);
    free(t);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the CPU reference pass of a small preset (no GPU here) */
static int run_cpu(struct factset *fs, const struct vla_preset *p, const char *gpu_why)
{
    struct vla_weights w;
    if (vla_weights_layout(&w, p, 1)) {
        vla_weights_release(&w);
        fact_set_bool(fs, "vla.available", 0, SRC);
        fact_set_str(fs, "vla.why", "cannot allocate the tiny preset's weights", SRC);
        return 0;
    }
    vla_weights_synthetic(&w, p, 0);
    plant_weight(fs, &w);
    struct vla_model m;
    struct vla_inputs in;
    int image = p->vision.image, ns = VLA_STAGES(p);
    if (vla_model_init(&m, p, &w, &vla_ops_cpu, image)) {
        vla_weights_release(&w);
        return -1;
    }
    vla_inputs_synthetic(&in, p, image, 0);
    float *act = calloc((size_t)p->chunk * p->action_dim, sizeof(float));
    double *t = calloc((size_t)VLA_CPU_RUNS * ns, sizeof(double));
    double tot[VLA_CPU_RUNS], p50[64], col[VLA_CPU_RUNS];
    struct vla_stats st = {0};
    double t0 = util_mono_s();
    int rc = act && t ? vla_forward(&m, &in, act, NULL, &st) : -1;
    double cold = util_mono_s() - t0;
    for (int r = 0; r < VLA_CPU_RUNS && !rc; r++) {
        rc = vla_forward(&m, &in, act, t + (size_t)r * ns, NULL);
        tot[r] = 0;
        for (int s = 0; s < ns; s++)
            tot[r] += t[(size_t)r * ns + s];
    }
    if (!rc && ns <= 64) {
        fact_set_bool(fs, "vla.available", 1, SRC);
        fact_set_str(fs, "vla.why", gpu_why, SRC);
        fact_set_str(fs, "vla.backend", "cpu", SRC);
        fact_set_str(fs, "vla.device", "host CPU (reference backend)", SRC);
        fact_set_str(fs, "vla.preset", p->name, SRC);
        fact_set_str(fs, "vla.dtype", "fp32", SRC);
        fact_set_bool(fs, "vla.graph", 0, SRC);
        fact_set_int(fs, "vla.runs", VLA_CPU_RUNS, SRC);
        fact_set_float(fs, "vla.cold_s", cold, SRC);
        for (int s = 0; s < ns; s++) {
            for (int r = 0; r < VLA_CPU_RUNS; r++)
                col[r] = t[(size_t)r * ns + s];
            qsort(col, VLA_CPU_RUNS, sizeof(double), cmp_d);
            p50[s] = col[VLA_CPU_RUNS / 2];
        }
        qsort(tot, VLA_CPU_RUNS, sizeof(double), cmp_d);
        latency_facts(fs, p50, ns, tot[VLA_CPU_RUNS / 2], tot[VLA_CPU_RUNS - 1]);
        fact_set_float(fs, "vla.tflops", vla_flops(p, image) / tot[VLA_CPU_RUNS / 2] / 1e12, SRC);
        layer_facts(fs, &st);
        unknown_gpu_facts(fs, "no GPU: the CPU reference backend ran (fp32 only)");
        digest_fact(fs, act, (size_t)p->chunk * p->action_dim, p->name, "fp32");
    }
    vla_stats_release(&st);
    free(act);
    free(t);
    vla_inputs_release(&in);
    vla_model_release(&m);
    vla_weights_release(&w);
    return rc ? -1 : 0;
}

/* the fast paths the pass could not take on this backend, from what it
 * answered at run time (src/vla/gaps.h): the list, its length, and each
 * path's reason ("" where it was taken) */
static void gap_facts(struct factset *fs, const struct vla_gap_set *gs)
{
    char all[VLA_GAP_N * 420];
    vla_gaps_join(gs, all, sizeof(all));
    fact_set_str(fs, "vla.backend_gaps", all, SRC);
    fact_set_int(fs, "vla.backend_gaps_n", vla_gaps_count(gs), SRC);
    fact_set_str(fs, "vla.backend_gaps.flash_attention", gs->why[VLA_GAP_flash_attention], SRC);
    fact_set_str(fs, "vla.backend_gaps.lt_epilogues", gs->why[VLA_GAP_lt_epilogues], SRC);
    fact_set_str(fs, "vla.backend_gaps.ptr_batch", gs->why[VLA_GAP_ptr_batch], SRC);
    fact_set_str(fs, "vla.backend_gaps.graph", gs->why[VLA_GAP_graph], SRC);
}

static void gpu_facts(struct factset *fs, const struct vla_preset *p, const char *dtype,
                      const struct vla_gpu_out *g)
{
    int ns = g->nstages - 1;
    fact_set_bool(fs, "vla.available", 1, SRC);
    fact_set_str(fs, "vla.why", "", SRC);
    fact_set_str(fs, "vla.backend", g->backend, SRC);
    fact_set_str(fs, "vla.device", g->device, SRC);
    fact_set_str(fs, "vla.preset", p->name, SRC);
    fact_set_str(fs, "vla.dtype", dtype, SRC);
    fact_set_bool(fs, "vla.graph", g->graph, SRC);
    fact_set_int(fs, "vla.runs", VLA_PROBE_RUNS, SRC);
    fact_set_float(fs, "vla.cold_s", g->cold_s, SRC);
    double p50[128];
    int stages_known = ns <= 128;
    for (int s = 0; s < ns && stages_known; s++) {
        p50[s] = g->stage[s].p50;
        stages_known = isfinite(p50[s]);
    }
    if (stages_known) {
        latency_facts(fs, p50, ns, g->stage[ns].p50, g->stage[ns].p99);
    } else {
        static const char *const st[] = {"vla.latency.vision_ms", "vla.latency.prefix_ms",
                                         "vla.latency.step_ms", "vla.latency.post_ms"};
        for (int i = 0; i < 4; i++)
            fact_set_unknown(fs, st[i], SRC, "no per-stage times: %s", g->graph_why);
        fact_set_float(fs, "vla.latency.total_ms", g->stage[ns].p50 * 1e3, SRC);
        fact_set_float(fs, "vla.latency.total_p99_ms", g->stage[ns].p99 * 1e3, SRC);
        fact_set_float(fs, "vla.control_rate_hz", 1.0 / g->stage[ns].p50, SRC);
    }
    fact_set_float(fs, "vla.tflops", g->flops / g->stage[ns].p50 / 1e12, SRC);
    fact_set_int(fs, "vla.memory.used_bytes", (int64_t)g->mem_used, SRC);
    fact_set_int(fs, "vla.memory.total_bytes", (int64_t)g->mem_total, SRC);
    /* a deployment holds only the reduced-precision weights: the fp32 copy
     * this run keeps for its reference pass is not counted */
    size_t dep = g->mem_used;
    if (strcmp(dtype, "fp32") != 0 && dep > g->weights_fp32_bytes)
        dep -= g->weights_fp32_bytes;
    fact_set_int(fs, "vla.memory.deploy_bytes", (int64_t)dep, SRC);
    if (g->have_ref) {
        fact_set_float(fs, "vla.numerics.cosine", g->cos_phys, SRC);
        fact_set_float(fs, "vla.numerics.max_error", g->maxerr_phys, SRC);
        fact_set_float(fs, "vla.numerics.max_error_rel",
                       g->ref_maxabs_phys > 0 ? g->maxerr_phys / g->ref_maxabs_phys : 0, SRC);
        fact_set_float(fs, "vla.numerics.cosine_normalised", g->cos_norm, SRC);
        fact_set_float(fs, "vla.numerics.max_error_normalised", g->maxerr_norm, SRC);
    } else {
        /* fp32 against itself: the reference pass is this pass */
        fact_set_float(fs, "vla.numerics.cosine", 1.0, SRC);
        fact_set_float(fs, "vla.numerics.max_error", 0.0, SRC);
        fact_set_float(fs, "vla.numerics.max_error_rel", 0.0, SRC);
        fact_set_float(fs, "vla.numerics.cosine_normalised", 1.0, SRC);
        fact_set_float(fs, "vla.numerics.max_error_normalised", 0.0, SRC);
    }
    if (g->have_energy) {
        fact_set_float(fs, "vla.energy_per_call_j", g->energy_j_per_call, SRC);
        fact_set_float(fs, "vla.avg_power_w", g->avg_power_w, SRC);
        fact_set_str(fs, "vla.energy_source", g->energy_source, SRC);
    } else {
        fact_set_unknown(fs, "vla.energy_per_call_j", SRC, "%s", g->energy_why);
        fact_set_unknown(fs, "vla.avg_power_w", SRC, "%s", g->energy_why);
        fact_set_unknown(fs, "vla.energy_source", SRC, "%s", g->energy_why);
    }
    layer_facts(fs, &g->st);
    gap_facts(fs, &g->gaps);
    /* the first pass's actions (batch 1): the fixed-seed pass that diff gates */
    digest_fact(fs, g->actions, (size_t)p->chunk * p->action_dim, p->name, dtype);
    const char *plant = getenv("ROCM_VLA_DOCTOR_VLA_PLANT");
    fact_set_str(fs, "vla.numerics.planted",
                 plant && *plant ? "not applied: the GPU generates its weights on the device" : "",
                 SRC);
}

int probe_vla_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    /* --preset/--dtype win over the environment variables */
    const char *want = ctx->opts && ctx->opts->vla_preset ? ctx->opts->vla_preset
                                                          : getenv("ROCM_VLA_DOCTOR_VLA_PRESET");
    const char *dtype = ctx->opts && ctx->opts->vla_dtype ? ctx->opts->vla_dtype
                                                          : getenv("ROCM_VLA_DOCTOR_VLA_DTYPE");
    dtype = dtype && *dtype ? dtype : "bf16";
    /* a recorded machine is never measured here: without the CPU backend's
     * test devices (an explicit option of the test suite, backend.h) the
     * CPU self-test would time this host and report it as the recorded
     * machine's (issue 30) */
    char tpci[GPU_CPU_MAX_DEVICES][32], bad[160];
    if (!rootfs_is_live() &&
        gpu_cpu_test_devices(tpci, GPU_CPU_MAX_DEVICES, bad, sizeof(bad)) <= 0) {
        fact_set_bool(fs, "vla.available", 0, SRC);
        fact_set_str(fs, "vla.why", PROBE_LIVE_ONLY, SRC);
        fact_set_str(fs, "vla.error", "", SRC);
        isolate_flush(fs);
        return 0;
    }
    struct vla_preset p;
    if (vla_preset_find(&p, want && *want ? want : "pi0", NULL)) {
        vla_preset_release(&p);
        fact_set_bool(fs, "vla.available", 0, SRC);
        fact_set_str(fs, "vla.why", "the preset does not load (see the error above)", SRC);
        return 0;
    }
    struct vla_gpu_req r = {&p, "auto", dtype, NULL, NULL, VLA_PROBE_RUNS, p.vision.image,
                            1,  0,      0,     1};
    struct vla_gpu_out g;
    int rc = vla_gpu_run(&r, &g);
    if (rc == 0) {
        fact_set_str(fs, "vla.requested_preset", p.name, SRC);
        gpu_facts(fs, &p, dtype, &g);
    } else if (rc == 1) {
        /* no GPU: a self-test of the workload on the CPU reference backend -
         * the preset asked for when it is CPU-sized, else `tiny`; a large
         * preset (pi0) did not run, and the facts say so next to the
         * self-test's figures (vla.requested_preset, vla.why) */
        char why[900];
        struct vla_preset cpu;
        int small = want && *want && vla_preset_find(&cpu, want, NULL) == 0 &&
                    vla_flops(&cpu, cpu.vision.image) < 1e9;
        if (!small) {
            if (want && *want)
                vla_preset_release(&cpu);
            small = vla_preset_find(&cpu, "tiny", NULL) == 0;
        }
        if (small && strcmp(cpu.name, p.name) == 0)
            snprintf(why, sizeof(why),
                     "no GPU (%s): %s ran on the CPU reference backend as a self-test", g.error,
                     cpu.name);
        else
            snprintf(
                why, sizeof(why),
                "no GPU (%s): %s did not run; the %s self-test ran on the CPU reference backend",
                g.error, p.name, small ? cpu.name : "tiny");
        fact_set_str(fs, "vla.requested_preset", p.name, SRC);
        if (small)
            rc = run_cpu(fs, &cpu, why);
        if (!small || rc) {
            fact_set_bool(fs, "vla.available", 0, SRC);
            fact_set_str(fs, "vla.why", why, SRC);
        }
        rc = small ? rc : 0;
        vla_preset_release(&cpu);
    } else {
        /* a GPU is there and the pass failed on it: a finding, not a skip */
        fact_set_bool(fs, "vla.available", 1, SRC);
        fact_set_str(fs, "vla.why", "", SRC);
        fact_set_str(fs, "vla.preset", p.name, SRC);
        fact_set_str(fs, "vla.requested_preset", p.name, SRC);
        fact_set_str(fs, "vla.error", g.error, SRC);
        rc = 0;
    }
    if (!fact_get(fs, "vla.error"))
        fact_set_str(fs, "vla.error", "", SRC);
    vla_gpu_out_release(&g);
    vla_preset_release(&p);
    isolate_flush(fs);
    return rc;
}
