/* bench_sweep.c - `bench --sweep` (bench_sweep.h): which configuration of a
 * preset meets the budget on this machine. The grid's axes are the knobs
 * the seeds tune by hand; every configuration runs the same weights, so the
 * numerics drift against the preset's own configuration in fp32 says what a
 * knob costs in actions, not only in time. The budget mark is the verdict of
 * checks.yaml's vla.latency.vision and vla.latency.total checks on the
 * configuration's facts: the budgets live in one place. */
#include "bench_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/checks.h"
#include "../core/fact.h"
#include "../report/report.h"
#include "../report/report_sweep.h"
#include "../vla/bench_gpu.h"
#include "../vla/cpu_fit.h"
#include "../vla/model.h"
#include "../vla/weights.h"

enum { SW_OK = 0, SW_FINDING = 1, SW_USAGE = 2, SW_INTERNAL = 3 };
enum { AX_STEPS, AX_CHUNK, AX_IMAGE, AX_DTYPE, AX_BATCH, AX_N };
#define AX_MAX 16
#define SW_MAX_CONFIGS 512

static const char *const ax_name[AX_N] = {"steps", "chunk", "image", "dtype", "batch"};
static const char *const dtypes[] = {"fp32", "bf16", "fp16"};
static const char *const budget_ids[] = {"vla.latency.vision", "vla.latency.total"};
#define NBUDGET 2
/* the energy column where the GPU has no counter and no power readings, or
 * on the CPU (the GPU's energy is not the cost of a CPU pass) */
#define ENERGY_NOTE "n/a (no energy counter)"

struct axis {
    int v[AX_MAX];
    int n, given;
};

struct cfg {
    int steps, chunk, image, dtype, batch; /* dtype: index into dtypes[] */
};

struct row {
    struct cfg c;
    int ran, nonfinite, graph;
    double cold_s; /* the first pass (CPU), or the GPU run's cold start */
    char note[720];
    struct vla_pct st[4]; /* vision, prefix, worst step, total (seconds) */
    int have_mem;
    size_t mem_used, alloc_peak;
    int have_drift, drift_rows;
    double cos, maxerr;
    int have_energy;
    double energy_j;       /* per call (src/telemetry/tel_energy.c) */
    char energy_note[320]; /* its source, or why there is none */
    enum status bst[NBUDGET];
    char *bsum[NBUDGET];
    float *actions;
};

struct sweep {
    const struct vla_sweep_opts *o;
    const struct vla_preset *p;
    int cpu;
    char backend[16], device[256];
    struct checkset cs;
    struct row *rows;
    int n;
    struct row ref;
};

/* ---- the grid ----------------------------------------------------------- */

static void axis_add(struct axis *a, int v)
{
    for (int i = 0; i < a->n; i++)
        if (a->v[i] == v)
            return;
    if (a->n < AX_MAX)
        a->v[a->n++] = v;
}

static int parse_value(int ax, const char *s, int *out)
{
    if (ax == AX_DTYPE) {
        for (int i = 0; i < 3; i++)
            if (strcmp(s, dtypes[i]) == 0)
                return *out = i, 0;
        return error("--grid dtype=%s: a dtype is fp32, bf16 or fp16", s);
    }
    static const long lo[] = {1, 1, 8, 0, 1}, hi[] = {1000, 4096, 8192, 0, VLA_MAX_BATCH};
    int64_t v;
    if (str_parse_i64(s, &v) || v < lo[ax] || v > hi[ax])
        return error("--grid %s=%s: must be an integer in [%ld, %ld]", ax_name[ax], s, lo[ax],
                     hi[ax]);
    *out = (int)v;
    return 0;
}

/* "key=v1,v2,..." entries into the axes (given ones replace the defaults) */
static int parse_grid(const struct strlist *g, struct axis *ax)
{
    for (size_t i = 0; g && i < g->n; i++) {
        const char *e = g->v[i], *eq = strchr(e, '=');
        int k = -1;
        for (int j = 0; eq && j < AX_N; j++)
            if ((size_t)(eq - e) == strlen(ax_name[j]) && strncmp(e, ax_name[j], eq - e) == 0)
                k = j;
        if (k < 0)
            return error("--grid '%s': expected KEY=V1,V2,... with KEY one of steps, chunk, "
                         "image, dtype, batch",
                         e);
        struct strlist vals = {0};
        strlist_split(&vals, eq + 1, ",");
        if (!vals.n) {
            strlist_release(&vals);
            return error("--grid '%s': no values", e);
        }
        if (vals.n > AX_MAX) {
            strlist_release(&vals);
            return error("--grid '%s': at most %d values per key", e, AX_MAX);
        }
        if (!ax[k].given)
            ax[k].n = 0;
        ax[k].given = 1;
        for (size_t j = 0; j < vals.n; j++) {
            int v = 0;
            if (parse_value(k, vals.v[j], &v)) {
                strlist_release(&vals);
                return -1;
            }
            axis_add(&ax[k], v);
        }
        strlist_release(&vals);
    }
    return 0;
}

/* the values plus the preset's own (its configuration is the
 * reference, and the quick grid's base) */
static void defaults(struct axis *ax, int cpu, const struct vla_preset *p)
{
    static const int steps[] = {1, 5, 10, 20}, chunk[] = {16, 24, 32, 50},
                     image[] = {224, 256, 320};
    memset(ax, 0, AX_N * sizeof(*ax));
    axis_add(&ax[AX_STEPS], p->steps);
    axis_add(&ax[AX_CHUNK], p->chunk);
    axis_add(&ax[AX_IMAGE], p->vision.image);
    for (int i = 0; i < 4; i++)
        axis_add(&ax[AX_STEPS], steps[i]), axis_add(&ax[AX_CHUNK], chunk[i]);
    for (int i = 0; i < 3; i++)
        axis_add(&ax[AX_IMAGE], image[i]);
    if (cpu) {
        axis_add(&ax[AX_DTYPE], 0); /* the CPU backend is the fp32 reference */
    } else {
        axis_add(&ax[AX_DTYPE], 1);
        axis_add(&ax[AX_DTYPE], 2);
        axis_add(&ax[AX_DTYPE], 0);
    }
    axis_add(&ax[AX_BATCH], 1);
    axis_add(&ax[AX_BATCH], 4);
    axis_add(&ax[AX_BATCH], 8);
}

static int cfg_eq(const struct cfg *a, const struct cfg *b)
{
    return a->steps == b->steps && a->chunk == b->chunk && a->image == b->image &&
           a->dtype == b->dtype && a->batch == b->batch;
}

static void add_cfg(struct sweep *s, const struct cfg *c)
{
    for (int i = 0; i < s->n; i++)
        if (cfg_eq(&s->rows[i].c, c))
            return;
    if (s->n == SW_MAX_CONFIGS)
        return;
    memset(&s->rows[s->n], 0, sizeof(s->rows[s->n]));
    s->rows[s->n++].c = *c;
}

static int base_of(const struct axis *a, int want)
{
    for (int i = 0; i < a->n; i++)
        if (a->v[i] == want)
            return want;
    return a->v[0];
}

/* quick: the base configuration, then one axis at a time over its values;
 * full: the cartesian product */
static void build_configs(struct sweep *s, const struct axis *ax)
{
    const struct vla_preset *p = s->p;
    s->rows = xcalloc(SW_MAX_CONFIGS, sizeof(*s->rows));
    int want[AX_N] = {p->steps, p->chunk, p->vision.image, s->cpu ? 0 : 1, 1};
    if (s->o->full) {
        struct cfg c;
        for (int a = 0; a < ax[AX_STEPS].n; a++)
            for (int b = 0; b < ax[AX_CHUNK].n; b++)
                for (int i = 0; i < ax[AX_IMAGE].n; i++)
                    for (int d = 0; d < ax[AX_DTYPE].n; d++)
                        for (int k = 0; k < ax[AX_BATCH].n; k++) {
                            c = (struct cfg){ax[AX_STEPS].v[a], ax[AX_CHUNK].v[b],
                                             ax[AX_IMAGE].v[i], ax[AX_DTYPE].v[d],
                                             ax[AX_BATCH].v[k]};
                            add_cfg(s, &c);
                        }
        return;
    }
    int base[AX_N];
    for (int k = 0; k < AX_N; k++)
        base[k] = base_of(&ax[k], want[k]);
    for (int k = 0; k < AX_N; k++)
        for (int i = 0; i < ax[k].n; i++) {
            int v[AX_N];
            memcpy(v, base, sizeof(v));
            v[k] = ax[k].v[i];
            struct cfg c = {v[AX_STEPS], v[AX_CHUNK], v[AX_IMAGE], v[AX_DTYPE], v[AX_BATCH]};
            add_cfg(s, &c);
        }
}

/* ---- running one configuration ----------------------------------------- */

static void pct_rows(struct row *r, double *times, int runs, int ns)
{
    /* times: runs x (ns + 1) seconds, stages then the total */
    double *col = xcalloc((size_t)runs, sizeof(double));
    struct vla_pct step = {0, 0, 0};
    for (int s = 0; s <= ns; s++) {
        for (int k = 0; k < runs; k++)
            col[k] = times[(size_t)k * (ns + 1) + s];
        struct vla_pct q = vla_pcts(col, runs);
        if (s == 0)
            r->st[0] = q;
        else if (s == 1)
            r->st[1] = q;
        else if (s < ns - 1) { /* the worst step, as the vla probe's step_ms */
            step.p50 = q.p50 > step.p50 ? q.p50 : step.p50;
            step.p90 = q.p90 > step.p90 ? q.p90 : step.p90;
            step.p99 = q.p99 > step.p99 ? q.p99 : step.p99;
        } else if (s == ns)
            r->st[3] = q;
    }
    r->st[2] = step;
    free(col);
}

/* the CPU reference pass of a configuration on weights w (made once) */
static int run_cpu(struct sweep *s, struct row *r, const struct vla_weights *w)
{
    struct vla_preset p = *s->p; /* shallow: only steps and chunk change */
    p.steps = r->c.steps;
    p.chunk = r->c.chunk;
    double flops = r->c.batch * vla_flops(&p, r->c.image);
    if (flops > VLA_CPU_MAX_FLOPS) {
        snprintf(r->note, sizeof(r->note), "not run: %.0f GFLOP per pass is too much for the CPU",
                 flops / 1e9);
        return 0;
    }
    struct vla_model m;
    if (vla_model_init_batch(&m, &p, w, &vla_ops_cpu, r->c.image, r->c.batch, 0))
        return SW_INTERNAL;
    struct vla_inputs in;
    vla_inputs_synthetic_batch(&in, &p, r->c.image, r->c.batch, s->o->seed);
    int ns = VLA_STAGES(&p), runs = s->o->runs, rc = 0;
    size_t na = (size_t)r->c.batch * p.chunk * p.action_dim;
    r->actions = xcalloc(na, sizeof(float));
    double *times = xcalloc((size_t)runs * (ns + 1), sizeof(double));
    struct vla_stats st = {0};
    double t0 = util_mono_s();
    if (vla_forward(&m, &in, r->actions, NULL, &st)) {
        rc = SW_INTERNAL;
        goto out;
    }
    r->nonfinite = st.first_bad >= 0;
    r->cold_s = util_mono_s() - t0;
    for (int k = 0; k < runs; k++) {
        double *row = times + (size_t)k * (ns + 1);
        if (vla_forward(&m, &in, r->actions, row, NULL)) {
            rc = SW_INTERNAL;
            goto out;
        }
        for (int i = 0; i < ns; i++)
            row[ns] += row[i];
    }
    pct_rows(r, times, runs, ns);
    r->ran = 1;
out:
    vla_stats_release(&st);
    free(times);
    vla_inputs_release(&in);
    vla_model_release(&m);
    return rc;
}

/* 0 ran or noted, 1 no GPU (r->note says why), 2 failed */
static int run_gpu(struct sweep *s, struct row *r)
{
    struct vla_preset p = *s->p;
    p.steps = r->c.steps;
    p.chunk = r->c.chunk;
    struct vla_gpu_req q = {
        &p, s->o->backend, dtypes[r->c.dtype], NULL, NULL, s->o->runs, r->c.image, 0, s->o->seed,
        0,  r->c.batch};
    struct vla_gpu_out g;
    int rc = vla_gpu_run(&q, &g);
    if (rc) {
        snprintf(r->note, sizeof(r->note), "%s", g.error);
        vla_gpu_out_release(&g);
        return rc == 1 ? 1 : 2;
    }
    snprintf(s->backend, sizeof(s->backend), "%s", g.backend);
    snprintf(s->device, sizeof(s->device), "%s", g.device);
    int ns = g.nstages - 1;
    r->st[0] = g.stage[0];
    r->st[1] = g.stage[1];
    memset(&r->st[2], 0, sizeof(r->st[2]));
    for (int i = 2; i < ns - 1; i++) {
        r->st[2].p50 = g.stage[i].p50 > r->st[2].p50 ? g.stage[i].p50 : r->st[2].p50;
        r->st[2].p90 = g.stage[i].p90 > r->st[2].p90 ? g.stage[i].p90 : r->st[2].p90;
        r->st[2].p99 = g.stage[i].p99 > r->st[2].p99 ? g.stage[i].p99 : r->st[2].p99;
    }
    r->st[3] = g.stage[ns];
    r->have_mem = 1;
    r->graph = g.graph;
    r->cold_s = g.cold_s;
    r->mem_used = g.mem_used;
    r->alloc_peak = g.alloc_peak;
    r->nonfinite = g.st.first_bad >= 0;
    r->have_energy = g.have_energy;
    r->energy_j = g.energy_j_per_call;
    snprintf(r->energy_note, sizeof(r->energy_note), "%s",
             g.have_energy     ? g.energy_source
             : g.energy_why[0] ? g.energy_why
                               : ENERGY_NOTE);
    r->actions = g.actions;
    g.actions = NULL;
    if (!g.graph)
        snprintf(r->note, sizeof(r->note), "no graph: %s", g.graph_why);
    r->ran = 1;
    vla_gpu_out_release(&g);
    return 0;
}

/* ---- the budget mark: checks.yaml's verdict on this configuration ------ */

static void budget(struct sweep *s, struct row *r)
{
    struct factset fs = {0};
    const char *SRC = "bench --sweep";
    fact_set_bool(&fs, "vla.available", 1, SRC);
    fact_set_str(&fs, "vla.why", "", SRC);
    fact_set_str(&fs, "vla.error", "", SRC);
    fact_set_str(&fs, "vla.backend", s->cpu ? "cpu" : s->backend, SRC);
    fact_set_str(&fs, "vla.device", s->cpu ? "host CPU (reference backend)" : s->device, SRC);
    fact_set_str(&fs, "vla.preset", s->p->name, SRC);
    fact_set_str(&fs, "vla.requested_preset", s->p->name, SRC);
    fact_set_str(&fs, "vla.dtype", dtypes[r->c.dtype], SRC);
    fact_set_bool(&fs, "vla.graph", r->graph, SRC);
    fact_set_int(&fs, "vla.runs", s->o->runs, SRC);
    fact_set_float(&fs, "vla.cold_s", r->cold_s, SRC);
    fact_set_float(&fs, "vla.latency.vision_ms", r->st[0].p50 * 1e3, SRC);
    fact_set_float(&fs, "vla.latency.prefix_ms", r->st[1].p50 * 1e3, SRC);
    fact_set_float(&fs, "vla.latency.step_ms", r->st[2].p50 * 1e3, SRC);
    fact_set_float(&fs, "vla.latency.total_ms", r->st[3].p50 * 1e3, SRC);
    fact_set_float(&fs, "vla.latency.total_p99_ms", r->st[3].p99 * 1e3, SRC);
    factset_sort(&fs);
    for (int b = 0; b < NBUDGET; b++) {
        struct strlist only = {0};
        strlist_add(&only, budget_ids[b]);
        struct run_filter flt = {LEVEL_FULL, &only};
        struct results res;
        r->bst[b] = ST_ERROR;
        if (checks_run(&s->cs, &fs, &flt, &res) == 0 && res.n == 1) {
            r->bst[b] = res.v[0].st;
            r->bsum[b] = res.v[0].summary ? xstrdup(res.v[0].summary) : NULL;
        }
        results_release(&res);
        strlist_release(&only);
    }
    factset_release(&fs);
}

/* "meets", "over budget", "not judged" or "error" */
static const char *mark(const struct row *r, int *meets)
{
    int fail = 0, skip = 0, err = 0;
    for (int b = 0; b < NBUDGET; b++) {
        fail |= r->bst[b] == ST_FAIL;
        skip |= r->bst[b] == ST_SKIP;
        err |= r->bst[b] == ST_ERROR || r->bst[b] == ST_TIMEOUT;
    }
    *meets = fail ? 0 : (err || skip) ? -1 : 1;
    return fail ? "over budget" : err ? "error" : skip ? "not judged" : "meets";
}

/* drift: the first rows the configuration shares with the reference (the
 * noise of row t is the same for every chunk length: docs/VLA.md); of a
 * batch, observation 0, whose inputs are the reference's own */
static void drift(const struct sweep *s, struct row *r)
{
    if (!r->ran || !s->ref.ran)
        return;
    int rows = r->c.chunk < s->ref.c.chunk ? r->c.chunk : s->ref.c.chunk;
    vla_actions_compare(r->actions, s->ref.actions, (size_t)rows * s->p->action_dim, &r->cos,
                        &r->maxerr);
    r->have_drift = 1;
    r->drift_rows = rows;
}

/* ---- output ------------------------------------------------------------- */

static void fmt_pct(char *buf, size_t n, const struct row *r, int k)
{
    if (r->ran)
        snprintf(buf, n, "%.3f/%.3f", r->st[k].p50 * 1e3, r->st[k].p99 * 1e3);
    else
        snprintf(buf, n, "-");
}

static void print_table(FILE *f, const struct sweep *s)
{
    const struct vla_sweep_opts *o = s->o;
    fprintf(f, "rocm-vla-doctor bench --sweep: preset %s, %s%s%s%s%s, %s grid, %d run(s) each%s\n",
            s->p->name, s->cpu ? "self-test (CPU)" : "backend ", s->cpu ? "" : s->backend,
            s->cpu ? "" : " (", s->cpu ? "" : s->device, s->cpu ? "" : ")",
            o->full ? "full" : "quick (one axis at a time around the preset's configuration)",
            o->runs, s->cpu ? "" : "; stages from graph replays");
    fprintf(f,
            "  reference  steps %d, chunk %d, image %d, fp32 (drift = actions of a configuration "
            "vs it, the rows both have; physical units)\n",
            s->ref.c.steps, s->ref.c.chunk, s->ref.c.image);
    fprintf(f, "  budgets    checks %s and %s from %s\n\n", budget_ids[0], budget_ids[1],
            o->checks ? o->checks : "the built-in checks.yaml");
    fprintf(f, "%5s %5s %5s %5s %5s %15s %15s %15s %15s %8s %9s %-23s %-21s %s\n", "steps", "chunk",
            "image", "dtype", "batch", "vision p50/p99", "prefix p50/p99", "step p50/p99",
            "total p50/p99", "Hz", "mem GiB", "energy/call", "drift cos / max err", "budget");
    for (int i = 0; i < s->n; i++) {
        const struct row *r = &s->rows[i];
        char v[32], pf[32], st[32], tot[32], hz[16], mem[16], dr[40];
        fmt_pct(v, sizeof(v), r, 0);
        fmt_pct(pf, sizeof(pf), r, 1);
        fmt_pct(st, sizeof(st), r, 2);
        fmt_pct(tot, sizeof(tot), r, 3);
        snprintf(hz, sizeof(hz), r->ran ? "%.2f" : "-", r->ran ? 1.0 / r->st[3].p50 : 0.0);
        if (r->have_mem)
            snprintf(mem, sizeof(mem), "%.2f", (double)r->mem_used / (1 << 30));
        else
            snprintf(mem, sizeof(mem), "n/a");
        if (r->have_drift)
            snprintf(dr, sizeof(dr), "%.6f / %.3g", r->cos, r->maxerr);
        else
            snprintf(dr, sizeof(dr), "-");
        char en[32];
        if (r->have_energy)
            snprintf(en, sizeof(en), "%.3f J", r->energy_j);
        else
            snprintf(en, sizeof(en), "%s", r->ran ? ENERGY_NOTE : "-");
        int meets;
        const char *mk = r->ran ? mark(r, &meets) : "-";
        fprintf(f, "%5d %5d %5d %5s %5d %15s %15s %15s %15s %8s %9s %-23s %-21s %s%s%s%s\n",
                r->c.steps, r->c.chunk, r->c.image, dtypes[r->c.dtype], r->c.batch, v, pf, st, tot,
                hz, mem, en, dr, mk, r->nonfinite ? " NaN/Inf" : "", r->note[0] ? "  " : "",
                r->note);
    }
    fprintf(f,
            "\ntimes in ms; memory: %s; budget: \"meets\" when both checks pass, \"not judged\" "
            "when they skip (a CPU self-test is not judged against a GPU budget)\n",
            s->cpu ? "n/a on the CPU backend" : "device memory in use during the configuration");
    fprintf(f,
            "batch: B observations per call; times, Hz and energy are per call of the whole batch "
            "(observations/s = Hz x batch); drift is observation 0's\n");
    fprintf(f,
            "image: floor(image / %d) patches per side%s, as the model's stride-%d patch "
            "convolution without padding; the remainder pixels are dropped\n",
            s->p->vision.patch,
            s->p->vision.merge > 1 ? ", floored to a multiple of the merge" : "",
            s->p->vision.patch);
}

static void json_cfg(FILE *f, const struct cfg *c)
{
    fprintf(f, "{\"steps\": %d, \"chunk\": %d, \"image\": %d, \"dtype\": \"%s\", \"batch\": %d",
            c->steps, c->chunk, c->image, dtypes[c->dtype], c->batch);
}

/* the patch grid an image size gives (vla_grid: remainder pixels dropped) */
static void json_grid(FILE *f, const struct vla_preset *p, int image)
{
    int g = vla_grid(p, image);
    fprintf(f, ", \"grid\": %d, \"pixels_dropped\": %d, \"tokens_per_camera\": %d", g,
            image - g * p->vision.patch, vla_image_tokens(p, image));
}

static void write_json(FILE *f, const struct sweep *s)
{
    static const char *const stn[] = {"vision", "prefix", "step", "total"};
    fputs("{\n  \"schema\": \"rocm-vla-doctor-sweep/1\",\n  \"version\": ", f);
    json_write_string(f, RVD_VERSION);
    fputs(",\n  \"preset\": ", f);
    json_write_string(f, s->p->name);
    fprintf(f, ",\n  \"mode\": \"%s\",\n  \"backend\": ", s->cpu ? "self-test (CPU)" : "gpu");
    json_write_string(f, s->cpu ? "cpu" : s->backend);
    fputs(",\n  \"device\": ", f);
    json_write_string(f, s->cpu ? "host CPU (reference backend)" : s->device);
    fprintf(f, ",\n  \"grid\": \"%s\",\n  \"runs\": %d,\n  \"seed\": %llu,\n  \"checks\": ",
            s->o->full ? "full" : "quick", s->o->runs, (unsigned long long)s->o->seed);
    json_write_string(f, s->o->checks ? s->o->checks : "built-in");
    fputs(",\n  \"reference\": ", f);
    json_cfg(f, &s->ref.c);
    fputs("},\n  \"configs\": [", f);
    for (int i = 0; i < s->n; i++) {
        const struct row *r = &s->rows[i];
        fputs(i ? ",\n    " : "\n    ", f);
        json_cfg(f, &r->c);
        json_grid(f, s->p, r->c.image);
        fprintf(f, ", \"ran\": %s, \"note\": ", r->ran ? "true" : "false");
        json_write_string(f, r->note);
        fputs(", \"stages\": ", f);
        if (r->ran) {
            fputc('{', f);
            for (int k = 0; k < 4; k++) {
                fprintf(f, "%s\"%s\": {\"p50_ms\": ", k ? ", " : "", stn[k]);
                json_write_number(f, r->st[k].p50 * 1e3, 9);
                fputs(", \"p99_ms\": ", f);
                json_write_number(f, r->st[k].p99 * 1e3, 9);
                fputc('}', f);
            }
            fputs("}, \"control_rate_hz\": ", f);
            json_write_number(f, 1.0 / r->st[3].p50, 9);
        } else {
            fputs("null, \"control_rate_hz\": null", f);
        }
        if (r->have_mem)
            fprintf(f, ", \"memory_used_bytes\": %zu, \"memory_allocated_bytes\": %zu", r->mem_used,
                    r->alloc_peak);
        else
            fputs(", \"memory_used_bytes\": null, \"memory_allocated_bytes\": null", f);
        fputs(", \"energy_j\": ", f);
        if (r->have_energy)
            json_write_number(f, r->energy_j, 9);
        else
            fputs("null", f);
        fputs(", \"energy_note\": ", f);
        json_write_string(f, r->ran && r->energy_note[0] ? r->energy_note : ENERGY_NOTE);
        fputs(", \"drift\": ", f);
        if (r->have_drift) {
            fputs("{\"cosine\": ", f);
            json_write_number(f, r->cos, 9);
            fputs(", \"max_error\": ", f);
            json_write_number(f, r->maxerr, 9);
            fprintf(f, ", \"rows\": %d}", r->drift_rows);
        } else {
            fputs("null", f);
        }
        fprintf(f, ", \"nonfinite\": %s, \"budget\": ", r->nonfinite ? "true" : "false");
        if (r->ran) {
            int meets;
            const char *mk = mark(r, &meets);
            fprintf(f, "{\"mark\": \"%s\", \"meets\": %s, \"checks\": [", mk,
                    meets < 0 ? "null"
                    : meets   ? "true"
                              : "false");
            for (int b = 0; b < NBUDGET; b++) {
                fprintf(f, "%s{\"id\": \"%s\", \"status\": \"%s\", \"summary\": ", b ? ", " : "",
                        budget_ids[b], status_name(r->bst[b]));
                json_write_string(f, r->bsum[b] ? r->bsum[b] : "");
                fputc('}', f);
            }
            fputs("]}}", f);
        } else {
            fputs("null}", f);
        }
    }
    fputs("\n  ]\n}\n", f);
}

/* ---- the command -------------------------------------------------------- */

/* the page from the JSON this sweep writes, parsed back: one renderer for
 * `bench --sweep --html` and `report --html SWEEP.json` (report_sweep.h) */
static int write_html(FILE *f, const struct sweep *s)
{
    char *buf = NULL, err[160];
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return error("bench --sweep --html: no memory for the page");
    write_json(m, s);
    int rc = fclose(m) ? error("bench --sweep --html: no memory for the page") : 0;
    struct json *root = rc ? NULL : json_parse(buf, len, err, sizeof(err));
    if (!rc && !root)
        rc = error("bench --sweep --html: the sweep's own JSON does not parse: %s", err);
    if (!rc && report_sweep_validate(root, "the sweep's own JSON"))
        rc = -1;
    if (!rc)
        rc = report_sweep_html(f, root);
    json_free(root);
    free(buf);
    return rc ? -1 : 0;
}

static void release(struct sweep *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->rows[i].actions);
        for (int b = 0; b < NBUDGET; b++)
            free(s->rows[i].bsum[b]);
    }
    free(s->rows);
    free(s->ref.actions);
    checks_release(&s->cs);
}

/* the CPU sweep's preset: the requested one if the CPU backend takes it,
 * else tiny (the self-test preset) */
static int cpu_preset(const struct vla_sweep_opts *o, const struct vla_preset *p,
                      struct vla_preset *tiny, const struct vla_preset **use)
{
    *use = p;
    if (vla_cpu_fits(p, NULL, NULL))
        return 0;
    if (vla_preset_find(tiny, "tiny", o->models))
        return -1;
    fprintf(stderr,
            "rocm-vla-doctor bench --sweep: preset %s is too large for the CPU backend; the "
            "self-test sweeps tiny\n",
            p->name);
    *use = tiny;
    return 0;
}

int vla_sweep(const struct vla_sweep_opts *o, const struct vla_preset *p0)
{
    struct axis ax[AX_N];
    struct sweep s;
    memset(&s, 0, sizeof(s));
    s.o = o;
    s.p = p0;
    /* the grid first: a bad value is exit 2 before anything runs */
    defaults(ax, 0, p0);
    if (parse_grid(o->grid, ax))
        return SW_USAGE;
    if (checks_load_default(&s.cs, o->checks))
        return SW_USAGE;
    for (int b = 0; b < NBUDGET; b++)
        if (!checks_find(&s.cs, budget_ids[b])) {
            error("bench --sweep: the checks file has no check %s (the budget)", budget_ids[b]);
            checks_release(&s.cs);
            return SW_USAGE;
        }
    struct vla_preset tiny;
    memset(&tiny, 0, sizeof(tiny));
    int rc = SW_OK;
    s.ref.c = (struct cfg){p0->steps, p0->chunk, p0->vision.image, 0, 1};
    s.cpu = strcmp(o->backend, "cpu") == 0;
    if (!s.cpu) {
        int g = run_gpu(&s, &s.ref);
        if (g == 1 && strcmp(o->backend, "auto") == 0) {
            fprintf(stderr,
                    "rocm-vla-doctor bench --sweep: no GPU backend (%s); self-test on "
                    "the cpu backend\n",
                    s.ref.note);
            s.cpu = 1;
            s.ref.note[0] = 0;
        } else if (g) {
            error("bench --sweep: %s backend: %s", o->backend, s.ref.note);
            checks_release(&s.cs);
            return SW_USAGE;
        }
    }
    struct vla_weights w;
    memset(&w, 0, sizeof(w));
    if (s.cpu) {
        if (ax[AX_DTYPE].given) {
            for (int i = 0; i < ax[AX_DTYPE].n; i++)
                if (ax[AX_DTYPE].v[i] != 0) {
                    error("bench --sweep: --grid dtype=%s needs a GPU backend; the cpu backend "
                          "is the fp32 reference",
                          dtypes[ax[AX_DTYPE].v[i]]);
                    rc = SW_USAGE;
                    goto out;
                }
        } else {
            ax[AX_DTYPE].n = 0;
            axis_add(&ax[AX_DTYPE], 0);
        }
        if (cpu_preset(o, p0, &tiny, &s.p)) {
            rc = SW_USAGE;
            goto out;
        }
        s.ref.c = (struct cfg){s.p->steps, s.p->chunk, s.p->vision.image, 0, 1};
        if (s.p != p0) { /* the axes not given follow the preset actually swept */
            struct axis d[AX_N];
            defaults(d, 1, s.p);
            for (int k = 0; k < AX_N; k++)
                if (!ax[k].given)
                    ax[k] = d[k];
        }
        if (vla_weights_layout(&w, s.p, 1)) {
            rc = SW_INTERNAL;
            goto out;
        }
        vla_weights_synthetic(&w, s.p, o->seed);
        if (run_cpu(&s, &s.ref, &w)) {
            rc = SW_INTERNAL;
            goto out;
        }
    }
    build_configs(&s, ax);
    for (int i = 0; i < s.n; i++) {
        struct row *r = &s.rows[i];
        int g = vla_grid(s.p, r->c.image), drop = r->c.image - g * s.p->vision.patch;
        if (g < 1) {
            snprintf(r->note, sizeof(r->note),
                     "not run: image %d is smaller than %d px (patch x merge)", r->c.image,
                     s.p->vision.patch * s.p->vision.merge);
            continue;
        }
        if (cfg_eq(&r->c, &s.ref.c) && s.ref.ran) { /* the reference ran already */
            *r = s.ref;
            r->actions = xcalloc((size_t)r->c.chunk * s.p->action_dim, sizeof(float));
            memcpy(r->actions, s.ref.actions, (size_t)r->c.chunk * s.p->action_dim * 4);
        } else if (s.cpu) {
            if (run_cpu(&s, r, &w)) {
                rc = SW_INTERNAL;
                goto out;
            }
        } else if (run_gpu(&s, r) == 1) {
            error("bench --sweep: the GPU went away: %s", r->note);
            rc = SW_INTERNAL;
            goto out;
        }
        if (r->ran) {
            budget(&s, r);
            drift(&s, r);
        }
        if (r->nonfinite)
            rc = SW_FINDING;
        if (drop && !r->note[0]) /* the patch grid dropped pixels: say how many */
            snprintf(r->note, sizeof(r->note), "%d x %d patches, last %d px per side dropped", g, g,
                     drop);
    }
    if (!o->json_stdout) { /* machine strings (paths, device names) made safe */
        struct text_safe ts;
        print_table(text_safe_begin(&ts, stdout), &s);
        text_safe_end(&ts);
    }
    if (o->out && o->out->f) {
        write_json(o->out->f, &s);
        if (outfile_close(o->out, 0) && rc == SW_OK)
            rc = SW_USAGE;
    }
    if (o->html && o->html->f) {
        int bad = write_html(o->html->f, &s);
        if (outfile_close(o->html, bad) && rc == SW_OK)
            rc = bad ? SW_INTERNAL : SW_USAGE;
    }
out:
    vla_weights_release(&w);
    release(&s);
    if (tiny.name)
        vla_preset_release(&tiny);
    return rc;
}
