/* bench_gpu.c - the VLA pass measured on a GPU (bench_gpu.h). */
#include "bench_gpu.h"

#include "../telemetry/tel_energy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/util.h"
#include "ops_gpu.h"
#include "weights.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* launches of a profile's rows by stage ("vision", "prefix", "steps"):
 * out[0..2]; rows of another stage are not counted */
static void vla_prof_launches(const struct vla_gpu_prof *rows, int n, int out[3])
{
    static const char *const names[3] = {"vision", "prefix", "steps"};
    out[0] = out[1] = out[2] = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (strcmp(rows[i].stage, names[k]) == 0)
                out[k] += rows[i].calls;
}

/* largest time first */
static int cmp_prof(const void *a, const void *b)
{
    double x = ((const struct vla_gpu_prof *)a)->ms, y = ((const struct vla_gpu_prof *)b)->ms;
    return (x < y) - (x > y);
}

/* nearest rank, as bench.c */
struct vla_pct vla_pcts(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    struct vla_pct r;
    double q[3] = {0.5, 0.9, 0.99}, *o[3] = {&r.p50, &r.p90, &r.p99};
    for (int k = 0; k < 3; k++) {
        int i = (int)ceil(q[k] * n) - 1;
        i = i < 0 ? 0 : i >= n ? n - 1 : i;
        *o[k] = v[i];
    }
    return r;
}

/* FLOPs of vision / prefix / one step from vla_flops on trimmed copies */
static void stage_work(const struct vla_preset *p, const struct vla_weights *w, int image, int es,
                       int batch, struct vla_gpu_out *o)
{
    struct vla_preset q = *p;
    q.steps = 0;
    double no_steps = vla_flops(&q, image);
    q.backbone.layers = 0;
    double vis = vla_flops(&q, image);
    o->stage_flops[0] = vis;
    o->stage_flops[1] = no_steps - vis;
    o->stage_flops[2] = (vla_flops(p, image) - no_steps) / (p->steps ? p->steps : 1);
    for (int k = 0; k < 3; k++)
        o->stage_flops[k] *= batch;
    /* bytes: the weights each stage reads once (the embedding table only
     * for its rows, ignored), at the GEMM operand width */
    memset(o->stage_bytes, 0, sizeof(o->stage_bytes));
    for (size_t i = 0; i < w->n; i++) {
        const char *n = w->t[i].name;
        int s = strncmp(n, "vision.", 7) == 0             ? 0
                : strncmp(n, "backbone.layers.", 16) == 0 ? 1
                : strncmp(n, "expert.", 7) == 0           ? 2
                                                          : -1;
        if (s >= 0)
            o->stage_bytes[s] += (double)w->t[i].nelem * es;
    }
}

void vla_actions_compare(const float *a, const float *b, size_t n, double *cosv, double *maxerr)
{
    double ab = 0, aa = 0, bb = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        ab += (double)a[i] * b[i];
        aa += (double)a[i] * a[i];
        bb += (double)b[i] * b[i];
        double d = fabs((double)a[i] - b[i]);
        m = d > m || isnan(d) ? d : m;
    }
    *cosv = aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : (aa == bb ? 1.0 : 0.0);
    *maxerr = m;
}

/* dst = what, then the context's first failure ("" when there is none); -1 */
static int gpu_error(struct vla_gpu *g, char *dst, size_t n, const char *what)
{
    char *why = NULL;
    vla_gpu_failed(g, &why);
    snprintf(dst, n, "%s%s", what, why ? why : "");
    free(why);
    return -1;
}

/* energy per call: the pass repeated (the graph when there is one) for at
 * least VLA_ENERGY_MIN_S, so that a counter updated every few ms still
 * resolves it; never a figure without a counter or power readings */
static void measure_energy(struct vla_gpu *g, const struct vla_gpu_req *r, struct vla_gpu_out *o,
                           struct vla_model *m, struct vla_inputs *in, float *scratch)
{
    const struct vla_gpu_info *gi = vla_gpu_info(g);
    struct tel_energy *e = tel_energy_start(gi->backend, gi->pci);
    double t0 = util_mono_s();
    int calls = 0, rc = 0;
    while (!rc && (calls < r->runs || util_mono_s() - t0 < VLA_ENERGY_MIN_S)) {
        rc = o->graph ? vla_gpu_graph_run(g, NULL, 0)
                      : (vla_forward(m, in, scratch, NULL, NULL) || vla_gpu_failed(g, NULL));
        calls++;
    }
    double j, secs;
    if (tel_energy_stop(e, &j, &secs, o->energy_source, sizeof(o->energy_source), o->energy_why,
                        sizeof(o->energy_why)) == 0 &&
        !rc && secs > 0) {
        o->have_energy = 1;
        o->energy_calls = calls;
        o->energy_s = secs;
        o->energy_j_per_call = j / calls;
        o->avg_power_w = j / secs;
    } else if (rc) {
        gpu_error(g, o->energy_why, sizeof(o->energy_why), "the energy run failed: ");
    }
}

/* the runtime, the weights on the device, the model and the first pass
 * (with layer statistics): what bench and soak share. 0, 1 no GPU, -1 */
static int prepare(const struct vla_gpu_req *r, struct vla_gpu_out *o, struct vla_gpu **gout,
                   struct vla_weights *w, struct vla_model *m, struct vla_inputs *in)
{
    const struct vla_preset *p = r->p;
    int B = r->batch > 0 ? r->batch : 1;
    size_t na = (size_t)B * p->chunk * p->action_dim;
    double t0 = util_mono_s();
    char *why = NULL;
    if (vla_gpu_open(r->backend, gout, &why)) {
        snprintf(o->error, sizeof(o->error), "%s", why ? why : "no GPU");
        free(why);
        return 1;
    }
    struct vla_gpu *g = *gout;
    const struct vla_gpu_info *gi = vla_gpu_info(g);
    snprintf(o->backend, sizeof(o->backend), "%s", gi->backend);
    snprintf(o->device, sizeof(o->device), "%s", gi->device);
    snprintf(o->pci, sizeof(o->pci), "%s", gi->pci);
    snprintf(o->target, sizeof(o->target), "%s", gi->target);
    snprintf(o->blas, sizeof(o->blas), "%s", gi->blas);
    o->open_s = gi->open_s;
    o->compiles = gi->compiles;
    o->cache_hits = gi->cache_hits;
    o->mem_total = gi->total_mem;
    int host = r->weights || r->save;
    if (vla_weights_layout(w, p, host))
        return snprintf(o->error, sizeof(o->error), "cannot allocate the host weights"), -1;
    if (r->weights && vla_weights_load(w, p, r->weights))
        return snprintf(o->error, sizeof(o->error), "cannot load %s", r->weights), -1;
    o->params = vla_weights_params(w);
    o->weights_fp32_bytes = w->arena_len * sizeof(float);
    snprintf(o->origin, sizeof(o->origin), "%s",
             r->weights ? r->weights : "synthetic, generated on the device");
    if (vla_gpu_weights(g, w, p, r->seed, r->weights != NULL))
        return gpu_error(g, o->error, sizeof(o->error), "weights: ");
    if (r->save && !r->weights) {
        if (vla_gpu_weights_download(g, w->arena, w->arena_len))
            return gpu_error(g, o->error, sizeof(o->error), "");
        free(w->origin);
        w->origin = xasprintf("synthetic (seed %llu)", (unsigned long long)r->seed);
        if (vla_weights_save(w, p, r->save))
            return snprintf(o->error, sizeof(o->error), "cannot write %s", r->save), -1;
    }
    if (vla_gpu_set_dtype(g, r->dtype)) {
        char what[sizeof(o->error)];
        snprintf(what, sizeof(what), "dtype %s: ", r->dtype);
        return gpu_error(g, o->error, sizeof(o->error), what);
    }
    if (vla_model_init_batch(m, p, w, vla_gpu_ops(g), r->image, B, 1))
        return snprintf(o->error, sizeof(o->error), "model init failed"), -1;
    vla_inputs_synthetic_batch(in, p, r->image, B, r->seed);
    o->actions = xcalloc(na, sizeof(float));
    double t1 = util_mono_s();
    if (vla_forward(m, in, o->actions, NULL, &o->st) || vla_gpu_failed(g, NULL))
        return gpu_error(g, o->error, sizeof(o->error), "first pass: ");
    o->first_pass_s = util_mono_s() - t1;
    o->cold_s = util_mono_s() - t0;
    /* GEMMs the Lt BLAS refused ran through the plain BLAS: said beside it */
    const char *lt_why = "";
    long long ltf = vla_gpu_lt_fallbacks(g, &lt_why);
    if (ltf > 0) {
        size_t bl = strlen(o->blas);
        snprintf(o->blas + bl, sizeof(o->blas) - bl,
                 "; %lld GEMM calls of the first pass fell back (%s)", ltf, lt_why);
    }
    /* which vision attention the first pass ran: launches, not intent */
    long long fl = 0;
    const char *fwhy = vla_gpu_flash(g, &fl);
    if (fl > 0)
        snprintf(o->attention, sizeof(o->attention),
                 "fused kernel (QK^T, online softmax, PV in one launch; mma.sync)");
    else
        snprintf(o->attention, sizeof(o->attention), "BLAS GEMMs around a softmax kernel: %s",
                 fwhy                            ? fwhy
                 : strcmp(r->dtype, "fp32") == 0 ? "fp32 (the fused kernel is 16-bit only)"
                                                 : "a head size over 128 (or unaligned operands)");

    vla_gaps_from_pass(g, r->dtype, &o->gaps);

    o->flops = B * vla_flops(p, r->image);
    stage_work(p, w, r->image, strcmp(r->dtype, "fp32") == 0 ? 4 : 2, B, o);
    return 0;
}

static int run(const struct vla_gpu_req *r, struct vla_gpu_out *o, struct vla_gpu **gout,
               struct vla_weights *w, struct vla_model *m, struct vla_inputs *in)
{
    const struct vla_preset *p = r->p;
    size_t na = (size_t)(r->batch > 0 ? r->batch : 1) * p->chunk * p->action_dim;
    int ns = VLA_STAGES(p);
    int prc = prepare(r, o, gout, w, m, in);
    if (prc)
        return prc;
    struct vla_gpu *g = *gout;

    /* numerics: the fp32 pass on the same device weights is the reference */
    float *norm = xcalloc(na, sizeof(float));
    vla_gpu_download_state(g, m, norm);
    if (r->want_ref && strcmp(r->dtype, "fp32") != 0) {
        float *ra = xcalloc(na, sizeof(float)), *rn = xcalloc(na, sizeof(float));
        struct vla_stats rs = {0};
        vla_gpu_set_dtype(g, "fp32");
        if (!vla_forward(m, in, ra, NULL, &rs) && !vla_gpu_failed(g, NULL) &&
            !vla_gpu_download_state(g, m, rn)) {
            o->have_ref = 1;
            vla_actions_compare(o->actions, ra, na, &o->cos_phys, &o->maxerr_phys);
            vla_actions_compare(norm, rn, na, &o->cos_norm, &o->maxerr_norm);
            double mx = 0;
            for (size_t i = 0; i < na; i++)
                mx = fabs(ra[i]) > mx ? fabs(ra[i]) : mx;
            o->ref_maxabs_phys = mx;
            if (rs.first_bad >= 0)
                snprintf(o->ref_first_bad, sizeof(o->ref_first_bad), "%s", rs.v[rs.first_bad].name);
        }
        vla_stats_release(&rs);
        free(ra);
        free(rn);
        vla_gpu_set_dtype(g, r->dtype);
        /* the reference pass must not leave its actions behind */
        vla_forward(m, in, o->actions, NULL, NULL);
    }
    free(norm);

    /* timed runs: stream launches (eager), then one graph of the pass */
    o->nstages = ns + 1;
    o->stage = xcalloc((size_t)ns + 1, sizeof(*o->stage));
    double *times = xcalloc((size_t)r->runs * (ns + 1), sizeof(double));
    double *col = xcalloc((size_t)r->runs, sizeof(double));
    float *scratch = xcalloc(na, sizeof(float));
    int rc = 0;
    for (int k = 0; k < r->runs && !rc; k++) {
        double *row = times + (size_t)k * (ns + 1);
        rc = vla_forward(m, in, scratch, row, NULL) || vla_gpu_failed(g, NULL);
        for (int s = 0; s < ns; s++)
            row[ns] += row[s];
    }
    if (rc) {
        gpu_error(g, o->error, sizeof(o->error), "timed pass: ");
        goto out;
    }
    if (r->profile) {
        vla_gpu_profile_begin(g);
        rc = vla_forward(m, in, scratch, NULL, NULL) || vla_gpu_failed(g, NULL);
        int n = vla_gpu_profile_end(g, o->prof, (int)(sizeof(o->prof) / sizeof(o->prof[0])));
        o->nprof = n > 0 ? n : 0;
        for (int i = 0; i < o->nprof; i++)
            o->prof_total_ms += o->prof[i].ms;
        qsort(o->prof, (size_t)o->nprof, sizeof(o->prof[0]), cmp_prof);
        vla_prof_launches(o->prof, o->nprof, o->prof_launches);
        if (rc) {
            gpu_error(g, o->error, sizeof(o->error), "profiled pass: ");
            goto out;
        }
    }
    char *gwhy = NULL;
    if (vla_gpu_graph_capture(g, m, in, scratch, &gwhy) == 0 &&
        vla_gpu_graph_run(g, NULL, 0) == 0) {
        memset(scratch, 0, na * sizeof(float));
        vla_gpu_graph_run(g, NULL, 0);
        o->graph = 1;
        for (int k = 0; k < r->runs; k++)
            col[k] = times[(size_t)k * (ns + 1) + ns];
        o->eager_total = vla_pcts(col, r->runs);
        /* the total from the whole-pass graph (host clock, input staging
         * included); the stages from the split graphs (events between them) */
        for (int k = 0; k < r->runs && !rc; k++) {
            double *row = times + (size_t)k * (ns + 1);
            double a = util_mono_s();
            rc = vla_gpu_graph_run(g, NULL, 0);
            row[ns] = util_mono_s() - a;
            rc = rc || vla_gpu_graph_run(g, row, ns);
        }
        if (rc) {
            gpu_error(g, o->error, sizeof(o->error), "graph replay: ");
            goto out;
        }
        /* the replayed graph must give the eager pass's actions */
        if (memcmp(scratch, o->actions, na * sizeof(float)) != 0) {
            snprintf(o->graph_why, sizeof(o->graph_why),
                     "the graph's actions differ from the stream pass's");
        }
    } else {
        snprintf(o->graph_why, sizeof(o->graph_why), "%s", gwhy ? gwhy : "graph replay failed");
    }
    free(gwhy);
    vla_gaps_set_graph(&o->gaps, o->graph, o->graph_why);
    for (int s = 0; s <= ns; s++) {
        for (int k = 0; k < r->runs; k++)
            col[k] = times[(size_t)k * (ns + 1) + s];
        o->stage[s] = vla_pcts(col, r->runs);
    }
    measure_energy(g, r, o, m, in, scratch);
    o->mem_used = vla_gpu_used_bytes(g);
    o->alloc_peak = vla_gpu_alloc_peak(g);
    vla_gpu_ceilings(g, &o->gemm_peak, &o->bw_peak);
out:
    free(times);
    free(col);
    free(scratch);
    return rc ? -1 : 0;
}

int vla_gpu_run(const struct vla_gpu_req *r, struct vla_gpu_out *o)
{
    memset(o, 0, sizeof(*o));
    o->st.first_bad = -1;
    struct vla_weights w;
    memset(&w, 0, sizeof(w));
    struct vla_model m;
    memset(&m, 0, sizeof(m));
    struct vla_inputs in;
    memset(&in, 0, sizeof(in));
    struct vla_gpu *g = NULL;
    int rc = run(r, o, &g, &w, &m, &in);
    if (m.ops)
        vla_model_release(&m);
    vla_inputs_release(&in);
    vla_weights_release(&w);
    vla_gpu_close(g);
    return rc;
}

void vla_gpu_out_release(struct vla_gpu_out *o)
{
    vla_stats_release(&o->st);
    free(o->actions);
    free(o->stage);
    memset(o, 0, sizeof(*o));
}

struct vla_gpu_session {
    struct vla_gpu *g;
    struct vla_weights w;
    struct vla_model m;
    struct vla_inputs in;
    float *scratch;
};

int vla_gpu_session_open(const struct vla_gpu_req *r, struct vla_gpu_out *o,
                         struct vla_gpu_session **out)
{
    memset(o, 0, sizeof(*o));
    o->st.first_bad = -1;
    struct vla_gpu_session *s = xcalloc(1, sizeof(*s));
    *out = s;
    int rc = prepare(r, o, &s->g, &s->w, &s->m, &s->in);
    if (rc)
        return rc;
    s->scratch = xcalloc((size_t)s->m.B * r->p->chunk * r->p->action_dim, sizeof(float));
    char *why = NULL;
    if (vla_gpu_graph_capture(s->g, &s->m, &s->in, s->scratch, &why) == 0 &&
        vla_gpu_graph_run(s->g, NULL, 0) == 0)
        o->graph = 1;
    else
        snprintf(o->graph_why, sizeof(o->graph_why), "%s", why ? why : "graph replay failed");
    free(why);
    return 0;
}

int vla_gpu_session_call(struct vla_gpu_session *s, int graph)
{
    if (graph)
        return vla_gpu_graph_run(s->g, NULL, 0);
    return vla_forward(&s->m, &s->in, s->scratch, NULL, NULL) || vla_gpu_failed(s->g, NULL) ? -1
                                                                                            : 0;
}

float *vla_gpu_session_actions(struct vla_gpu_session *s, size_t *n)
{
    *n = (size_t)s->m.B * s->m.p->chunk * s->m.p->action_dim;
    return s->scratch;
}

struct vla_gpu *vla_gpu_session_gpu(struct vla_gpu_session *s)
{
    return s->g;
}

void vla_gpu_session_close(struct vla_gpu_session *s)
{
    if (!s)
        return;
    if (s->m.ops)
        vla_model_release(&s->m);
    vla_inputs_release(&s->in);
    vla_weights_release(&s->w);
    free(s->scratch);
    vla_gpu_close(s->g);
    free(s);
}
