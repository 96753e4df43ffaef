/* soak_cmd.c - `rocm-vla-doctor soak`: the reference VLA pass (and, unless
 * --load none, a GEMM load after every call) for --duration in the isolated
 * GPU child (watchdog: the duration plus a margin for the cold start), the
 * telemetry sampled throughout in the parent, then the drift verdicts.
 *
 *   parent                              isolated child (src/gpu/isolate.c)
 *   sampler thread: tel_sample every    pass, GEMM load, pass, ...
 *   --interval ms; reads the child's    one "t latency" line per call on
 *   call records from a pipe            the records pipe; stops at the end of
 *   main thread: isolate_run            the duration or when the stop pipe
 *   SIGINT/SIGTERM: one byte on the     becomes readable
 *   stop pipe
 *
 * Ctrl-C therefore ends the child's loop, the child sends its facts, and the
 * report is written with what was measured. The checks are the level "soak"
 * ones of checks.yaml (run by this command only; `check` refuses --level
 * soak). Test hook: ROCM_VLA_DOCTOR_SOAK_HOOK=FILE; when FILE exists at a
 * call, "once MS" adds MS to that call (then FILE is removed) and "always
 * MS" to every later call, so a test can place outliers and drift. */
#include "soak.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../probes/probe.h"
#include "../core/checks.h"
#include "../core/parse_options.h"
#include "../core/version.h"
#include "../core/outfile.h"
#include "../core/rootfs.h"
#include "../core/tmpdirs.h"
#include "../gpu/isolate.h"
#include "../report/report.h"
#include "../snapshot/snapshot.h"
#include "../telemetry/monitor.h"
#include "../vla/bench_gpu.h"
#include "../vla/cpu_fit.h"
#include "../vla/model.h"
#include "../vla/ops.h"
#include "../vla/ops_gpu.h"
#include "../vla/preset.h"
#include "../vla/weights.h"
#include "soak_analyze.h"
#include "soak_outputs.h"

#define SOAK_MIN_S 1.0
#define SOAK_MAX_S (7 * 24 * 3600.0)
/* the child's watchdog: the duration, plus the cold start (runtime, kernel
 * compilation, weights: minutes for a large preset the first time) */
#define SOAK_COLD_MARGIN_S 300.0
#define GEMM_LOAD_N 8192
#define GEMM_LOAD_REPS 4
#define SRC "soak"

struct soak_opts {
    double duration_s;
    const char *preset, *dtype, *backend, *json, *sysroot, *load;
    long interval_ms;
    long rate_hz; /* 0: back to back; else one call per 1/rate s, idle between */
};

/* shared with the child through fork */
static struct {
    const struct soak_opts *o;
    int rec_w, stop_r;
} C;

static int stop_w = -1;
static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
    stopped = sig; /* nonzero: the signal, for the report's first line */
    if (stop_w >= 0) {
        char b = 1;
        ssize_t r = write(stop_w, &b, 1);
        (void)r;
    }
}

/* "10m", "5s", "2h", "90" */
static int parse_duration(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v))
        return -1;
    if (!strcmp(end, "h"))
        v *= 3600;
    else if (!strcmp(end, "m"))
        v *= 60;
    else if (*end && strcmp(end, "s"))
        return -1;
    if (v < SOAK_MIN_S || v > SOAK_MAX_S)
        return -1;
    *out = v;
    return 0;
}

static int opt_duration(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    if (parse_duration(v, &((struct soak_opts *)base)->duration_s))
        return error("--duration must be 1 s to 7 days (90, 90s, 10m, 2h), not '%s'", v);
    return 0;
}

static const char *const load_values[] = {"gemm", "none", NULL};

static const struct optspec soak_opts_table[] = {
    OPT_CALLBACK("duration", 0, OPTA_REQUIRED, opt_duration, OPTC_ANY, "T",
                 "how long: seconds, or 90s, 10m, 2h (required)"),
    OPT_PRESET(struct soak_opts, preset),
    OPT_DTYPE(struct soak_opts, dtype),
    OPT_BACKEND(struct soak_opts, backend),
    OPT_OUT(struct soak_opts, json, "json", 0, "FILE|-", "the soak report as JSON"),
    OPT_SYSROOT(struct soak_opts, sysroot),
    OPT_ENUM(struct soak_opts, load, "load", load_values, "a GEMM load beside the pass, or none"),
    OPT_INT(struct soak_opts, interval_ms, "interval", 10, 60000, "milliseconds", "MS",
            "the telemetry sampling interval (default 1000)"),
    OPT_INT(struct soak_opts, rate_hz, "rate", 1, 1000, "Hz", "HZ",
            "paced: one call every 1/HZ s, idle in between (a robot's control rate)"),
    OPT_HELP_VERSION_END,
};

static void more_help(FILE *out)
{
    fputs("T: seconds, or with a unit: 90s, 10m, 2h. The pass (and a GEMM load) run for T in\n"
          "an isolated child while telemetry is sampled; then the drift verdicts (soak.*).\n",
          out);
}

const struct cmd_spec soak_spec = {
    "soak",          "soak",   NULL, "A sustained VLA pass under telemetry: drift verdicts.",
    soak_opts_table, more_help};

/* 0 to go on, 1 after --help or --version, -1 after a usage error */
static int parse(int argc, char **argv, struct soak_opts *o)
{
    int first = parse_options(argc, argv, &soak_spec, o);
    if (first <= 0)
        return first == PARSE_DONE ? 1 : -1;
    if (first < argc)
        return error("soak takes no arguments, not '%s'", argv[first]);
    if (o->duration_s <= 0)
        return error("soak: --duration is required (e.g. --duration 10m)");
    return 0;
}

/* ---- the isolated child ----------------------------------------------- */

static int stop_requested(void)
{
    struct pollfd pf = {C.stop_r, POLLIN, 0};
    return poll(&pf, 1, 0) > 0;
}

/* the test hook's extra milliseconds for this call */
static double hook_ms(double *always)
{
    const char *f = getenv("ROCM_VLA_DOCTOR_SOAK_HOOK");
    if (!f || !*f)
        return *always;
    FILE *h = fopen(f, "r");
    if (!h)
        return *always;
    char kind[16] = "";
    double ms = 0;
    int n = fscanf(h, "%15s %lf", kind, &ms);
    fclose(h);
    if (n == 2 && !strcmp(kind, "always")) {
        *always = ms;
        unlink(f);
    } else if (n == 2 && !strcmp(kind, "once")) {
        unlink(f);
        return *always + ms;
    }
    return *always;
}

/* the actions of every call against the first call's (soak_outputs.h) */
struct out_track {
    float *ref;
    size_t n;
    long call; /* 1-based index of the call just made */
    struct soak_out_plant plant[8];
    size_t nplant;
};

static void out_track_init(struct out_track *ot, size_t n)
{
    memset(ot, 0, sizeof(*ot));
    ot->ref = xcalloc(n ? n : 1, sizeof(float));
    ot->n = n;
    /* the spec was checked by the parent before the fork */
    soak_outputs_plants(getenv("ROCM_VLA_DOCTOR_SOAK_OUTPUTS"), ot->plant, ARRAY_SIZE(ot->plant),
                        &ot->nplant);
}

/* one "t latency differ max_diff rel_diff nonfinite" line per call */
static void record(double t, double lat, struct out_track *ot, float *act)
{
    struct soak_out_cmp c;
    ot->call++;
    soak_outputs_apply(ot->plant, ot->nplant, ot->call, act);
    if (ot->call == 1)
        memcpy(ot->ref, act, ot->n * sizeof(float));
    soak_outputs_compare(ot->ref, act, ot->n, &c);
    char line[160];
    int n = snprintf(line, sizeof(line), "%.6f %.9f %d %.9g %.9g %ld\n", t, lat, c.differ,
                     c.max_diff, c.rel_diff, c.nonfinite);
    ssize_t w = write(C.rec_w, line, (size_t)n);
    (void)w;
}

/* a line for the user, sent at once through the records pipe (the child's
 * own stderr is the isolation's error pipe): the parent prints it */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    char line[2048] = "# "; /* the no-GPU reason names every library tried */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + 2, sizeof(line) - 3, fmt, ap);
    va_end(ap);
    line[strcspn(line, "\n")] = '\0';
    strcat(line, "\n");
    ssize_t w = write(C.rec_w, line, strlen(line));
    (void)w;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    nanosleep(&ts, NULL);
}

/* --rate: sleep until the next slot of a fixed grid from the first call
 * (a control loop's period); a call that overran starts the next one at
 * once and the grid moves on from it (no burst of late calls) */
static void pace(double *next)
{
    if (C.o->rate_hz <= 0)
        return;
    double now = util_mono_s();
    *next = (*next > 0 ? *next : now) + 1.0 / (double)C.o->rate_hz;
    if (*next <= now) {
        *next = now;
        return;
    }
    double d = *next - now;
    struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR && !stop_requested())
        ;
}

/* soak.error: the GPU context's first failure */
static void gpu_error_fact(struct factset *fs, struct vla_gpu_session *s)
{
    char *why = NULL;
    vla_gpu_failed(vla_gpu_session_gpu(s), &why);
    fact_set_str(fs, "soak.error", why ? why : "", SRC);
    free(why);
}

static int child_cpu(struct factset *fs, const struct vla_preset *p, double end)
{
    struct vla_weights w;
    if (vla_weights_layout(&w, p, 1)) {
        vla_weights_release(&w);
        fact_set_str(fs, "soak.error", "cannot allocate the preset's fp32 weights", SRC);
        return 0;
    }
    vla_weights_synthetic(&w, p, 0);
    struct vla_model m;
    struct vla_inputs in;
    if (vla_model_init(&m, p, &w, &vla_ops_cpu, p->vision.image)) {
        vla_weights_release(&w);
        fact_set_str(fs, "soak.error", "model init failed", SRC);
        return 0;
    }
    vla_inputs_synthetic(&in, p, p->vision.image, 0);
    float *act = xcalloc((size_t)p->chunk * p->action_dim, sizeof(float));
    fact_set_str(fs, "soak.backend", "cpu", SRC);
    fact_set_str(fs, "soak.device", "host CPU (reference backend)", SRC);
    fact_set_str(fs, "soak.dtype", "fp32", SRC);
    fact_set_str(fs, "soak.load_path", "none (no GEMM load on the cpu backend)", SRC);
    isolate_flush(fs);
    double always = 0;
    struct out_track ot;
    out_track_init(&ot, (size_t)p->chunk * p->action_dim);
    double slot = 0;
    while (util_mono_s() < end && !stop_requested()) {
        if (ot.call)
            pace(&slot);
        else
            slot = util_mono_s();
        double extra = hook_ms(&always), t = util_mono_s();
        int rc = vla_forward(&m, &in, act, NULL, NULL);
        if (extra > 0)
            sleep_ms(extra);
        if (rc) {
            fact_set_str(fs, "soak.error", "the pass failed", SRC);
            break;
        }
        record(t, util_mono_s() - t, &ot, act);
    }
    free(ot.ref);
    free(act);
    vla_inputs_release(&in);
    vla_model_release(&m);
    vla_weights_release(&w);
    return 0;
}

static int child_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const struct soak_opts *o = C.o;
    struct vla_preset p;
    fact_set_str(fs, "soak.error", "", SRC);
    if (vla_preset_find(&p, o->preset, NULL)) {
        fact_set_str(fs, "soak.error", "unknown preset", SRC);
        return 0;
    }
    fact_set_str(fs, "soak.preset", p.name, SRC);
    double end = util_mono_s() + o->duration_s;
    if (!strcmp(o->backend, "cpu")) {
        child_cpu(fs, &p, end);
        vla_preset_release(&p);
        return 0;
    }
    struct vla_gpu_req r = {&p, o->backend, o->dtype, NULL, NULL, 1, p.vision.image, 0, 0, 0, 1};
    struct vla_gpu_out g;
    struct vla_gpu_session *s = NULL;
    int rc = vla_gpu_session_open(&r, &g, &s);
    if (rc == 1 && !strcmp(o->backend, "auto")) {
        /* no GPU backend: the self-test on the cpu, as `bench --sweep` does */
        char why[sizeof(g.error)];
        snprintf(why, sizeof(why), "%s", g.error);
        fact_set_str(fs, "soak.fallback", why, SRC);
        vla_gpu_session_close(s);
        vla_gpu_out_release(&g);
        struct vla_preset tiny;
        const struct vla_preset *use = &p;
        if (!vla_cpu_fits(&p, NULL, NULL)) {
            if (vla_preset_find(&tiny, "tiny", NULL)) {
                fact_set_str(fs, "soak.error", "no GPU backend and no tiny preset", SRC);
                vla_preset_release(&p);
                return 0;
            }
            use = &tiny;
            fact_set_str(fs, "soak.preset", tiny.name, SRC);
        }
        note("no GPU backend (%s); self-test on the cpu backend with preset %s%s%s%s", why,
             use->name, use == &p ? "" : " (", use == &p ? "" : p.name,
             use == &p ? "" : " is too large for the cpu)");
        child_cpu(fs, use, util_mono_s() + o->duration_s);
        if (use == &tiny)
            vla_preset_release(&tiny);
        vla_preset_release(&p);
        return 0;
    }
    if (rc) {
        fact_set_str(fs, "soak.error", g.error, SRC);
        vla_gpu_session_close(s);
        vla_gpu_out_release(&g);
        vla_preset_release(&p);
        return 0;
    }
    fact_set_str(fs, "soak.backend", g.backend, SRC);
    fact_set_str(fs, "soak.device", g.device, SRC);
    fact_set_str(fs, "soak.pci", g.pci, SRC);
    fact_set_str(fs, "soak.dtype", o->dtype, SRC);
    int load = !strcmp(o->load, "gemm");
    fact_set_str(
        fs, "soak.load_path",
        load ? (g.blas[0] ? g.blas : "the project's own GEMM kernel") : "none (--load none)", SRC);
    /* the cold start is over: the duration counts from here */
    end = util_mono_s() + o->duration_s;
    isolate_flush(fs);
    double always = 0;
    size_t nact;
    float *act = vla_gpu_session_actions(s, &nact);
    struct out_track ot;
    out_track_init(&ot, nact);
    double slot = 0;
    while (util_mono_s() < end && !stop_requested()) {
        if (ot.call)
            pace(&slot);
        else
            slot = util_mono_s();
        double extra = hook_ms(&always), t = util_mono_s();
        rc = vla_gpu_session_call(s, g.graph);
        if (extra > 0)
            sleep_ms(extra);
        if (rc) {
            gpu_error_fact(fs, s);
            break;
        }
        /* the call's actions are in host memory (the graph downloads them) */
        record(t, util_mono_s() - t, &ot, act);
        if (load && vla_gpu_load_gemm(vla_gpu_session_gpu(s), GEMM_LOAD_N, GEMM_LOAD_REPS)) {
            gpu_error_fact(fs, s);
            break;
        }
    }
    free(ot.ref);
    vla_gpu_session_close(s);
    vla_gpu_out_release(&g);
    vla_preset_release(&p);
    return 0;
}

/* ---- the parent: sampler thread ---------------------------------------- */

struct sampler {
    struct tel *tel;
    long interval_ms;
    int rec_r;
    pthread_mutex_t mu;
    int stop;
    struct tel_sample *samples;
    size_t n, cap;
    struct soak_call *calls;
    struct soak_out_cmp *outs; /* [ccap]: each call's actions against the first */
    size_t ncalls, ccap;
    struct strbuf partial;
    pthread_t th;
    int started; /* the thread runs (start_sampler) */
    /* the status line on a terminal: stderr is a tty (nothing otherwise) */
    int tty, shown;
    double duration_s, next_status;
};

/* "\r" and erase the line: the status line goes before any other output */
static void status_clear(struct sampler *sp)
{
    if (sp->shown)
        fputs("\r\033[K", stderr);
    sp->shown = 0;
}

/* one line updated in place, about once a second: how far the run is */
static void status_line(struct sampler *sp)
{
    double now = util_mono_s();
    if (!sp->tty || now < sp->next_status)
        return;
    sp->next_status = now + 1;
    status_clear(sp);
    if (!sp->ncalls) {
        fputs("soak: starting the pass (cold start)...", stderr);
    } else {
        double el = now - sp->calls[0].t;
        fprintf(stderr, "soak: %.0f of %.0f s, %zu calls, last %.1f ms", el < 0 ? 0 : el,
                sp->duration_s, sp->ncalls, sp->calls[sp->ncalls - 1].lat_s * 1e3);
    }
    fflush(stderr);
    sp->shown = 1;
}

static void take_records(struct sampler *sp)
{
    char buf[4096];
    for (;;) {
        ssize_t r = read(sp->rec_r, buf, sizeof(buf));
        if (r <= 0)
            break;
        strbuf_add(&sp->partial, buf, (size_t)r);
    }
    char *start = sp->partial.buf;
    if (!start)
        return;
    char *nl;
    while ((nl = strchr(start, '\n'))) {
        *nl = '\0';
        double t, lat;
        struct soak_out_cmp oc = {0};
        if (start[0] == '#' && start[1] == ' ') {
            /* the child's note for the user (note()): printed as it comes */
            char *safe = str_sanitize(start + 2, 0);
            status_clear(sp);
            fprintf(stderr, "rocm-vla-doctor soak: %s\n", safe);
            free(safe);
        } else if (sscanf(start, "%lf %lf %d %lf %lf %ld", &t, &lat, &oc.differ, &oc.max_diff,
                          &oc.rel_diff, &oc.nonfinite) == 6) {
            if (sp->ncalls == sp->ccap) {
                sp->ccap = sp->ccap ? sp->ccap * 2 : 1024;
                sp->calls = xrealloc(sp->calls, sp->ccap * sizeof(*sp->calls));
                sp->outs = xrealloc(sp->outs, sp->ccap * sizeof(*sp->outs));
            }
            sp->outs[sp->ncalls] = oc;
            sp->calls[sp->ncalls++] = (struct soak_call){t, lat};
        }
        start = nl + 1;
    }
    char *rest = xstrdup(start);
    strbuf_release(&sp->partial);
    strbuf_adds(&sp->partial, rest);
    free(rest);
}

static void *sampler_main(void *arg)
{
    struct sampler *sp = arg;
    double next = util_mono_s();
    for (;;) {
        pthread_mutex_lock(&sp->mu);
        int stop = sp->stop;
        pthread_mutex_unlock(&sp->mu);
        double now = util_mono_s();
        if (now >= next || stop) {
            struct tel_sample s;
            tel_sample(sp->tel, &s);
            s.t_s = util_mono_s(); /* the calls' clock */
            if (sp->n == sp->cap) {
                sp->cap = sp->cap ? sp->cap * 2 : 256;
                sp->samples = xrealloc(sp->samples, sp->cap * sizeof(*sp->samples));
            }
            sp->samples[sp->n++] = s;
            next += sp->interval_ms / 1e3;
            if (next < now)
                next = now;
        }
        take_records(sp);
        if (stop)
            return NULL;
        status_line(sp);
        struct pollfd pf = {sp->rec_r, POLLIN, 0};
        int wait = (int)((next - util_mono_s()) * 1e3);
        poll(&pf, 1, wait > 0 ? (wait < 50 ? wait : 50) : 0);
    }
}

/* isolate_after_fork: in the parent, once the child exists */
static void start_sampler(void *arg)
{
    struct sampler *sp = arg;
    sp->started = pthread_create(&sp->th, NULL, sampler_main, sp) == 0;
}

/* the seconds from the first call to the end of the last */
static double last_call_s(const struct sampler *sp)
{
    const struct soak_call *a = &sp->calls[0], *b = &sp->calls[sp->ncalls - 1];
    return b->t + b->lat_s - a->t;
}

static const struct probe soak_probe = {"soak", LEVEL_SOAK, 1, child_run,
                                        "the soak's VLA pass and GEMM load"};

/* the report's host line: the host probe's facts (the reader `check` uses,
 * through the sysroot when one is given) */
static void host_facts(struct factset *fs)
{
    static const struct probe_opts none = {0};
    const struct probe *host = probe_find("host");
    struct probe_ctx ctx = {fs, LEVEL_QUICK, &none, 0};
    if (host)
        host->run(&ctx);
}

static void print_summary(const struct factset *fs)
{
    const char *const names[] = {"soak.backend",
                                 "soak.device",
                                 "soak.preset",
                                 "soak.dtype",
                                 "soak.load_path",
                                 "soak.calls",
                                 "soak.duration_s",
                                 "soak.p50_ms",
                                 "soak.p99_ms",
                                 "soak.p99_first_ms",
                                 "soak.p99_last_ms",
                                 "soak.p99_growth_pct",
                                 "soak.sclk_first_mhz",
                                 "soak.sclk_last_mhz",
                                 "soak.temp_hottest",
                                 "soak.throttle_events",
                                 "soak.throttle_reasons",
                                 "soak.throttle_since_start",
                                 "soak.vram_growth_bytes",
                                 "soak.energy_per_call_j",
                                 "soak.avg_power_w",
                                 "soak.energy_source",
                                 "soak.outliers",
                                 "soak.outliers_unexplained",
                                 "soak.rate_hz",
                                 "soak.deadline_misses",
                                 "soak.outputs_differ_calls",
                                 "soak.outputs_max_rel_diff",
                                 "soak.outputs_nonfinite"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        const struct fact *f = fact_get(fs, names[i]);
        char *t = f ? fact_to_text(f) : xstrdup("?");
        char *safe = str_sanitize(t, 0);
        printf("  %-26s %s\n", names[i] + 5, safe);
        free(safe);
        free(t);
    }
    const struct fact *oc = fact_get(fs, "soak.outlier_causes");
    if (oc && oc->type == FACT_LIST)
        for (size_t i = 0; i < oc->list.n && i < 20; i++) {
            char *safe = str_sanitize(oc->list.v[i], 0);
            printf("  outlier  %s\n", safe);
            free(safe);
        }
    printf("\n");
}

int soak_cmd(int argc, char **argv)
{
    struct soak_opts o = {0, "pi0", NULL, "auto", NULL, NULL, NULL, 1000, 0};
    int prc = parse(argc, argv, &o);
    if (prc)
        return prc > 0 ? 0 : 2;
    /* the reference backend computes in fp32 and runs no GEMM load: asked
     * for anything else, say so rather than run something else */
    int cpu = !strcmp(o.backend, "cpu");
    if (cpu && o.dtype && strcmp(o.dtype, "fp32")) {
        error("soak: --backend cpu is the fp32 reference; --dtype %s does not apply", o.dtype);
        return 2;
    }
    if (cpu && o.load) {
        error("soak: --backend cpu runs no GEMM load; --load does not apply");
        return 2;
    }
    /* paced calls are idle between: a load would fill the gaps they measure */
    if (o.rate_hz > 0 && o.load && strcmp(o.load, "none")) {
        error("soak: --rate leaves the GPU idle between calls; --load %s would fill the gaps "
              "(use --load none, or no --rate)",
              o.load);
        return 2;
    }
    if (o.rate_hz > 0 && !o.load)
        o.load = cpu ? NULL : "none";
    struct soak_out_plant plants[8];
    size_t nplants;
    if (soak_outputs_plants(getenv("ROCM_VLA_DOCTOR_SOAK_OUTPUTS"), plants, ARRAY_SIZE(plants),
                            &nplants))
        return 2;
    o.dtype = o.dtype ? o.dtype : cpu ? "fp32" : "bf16";
    o.load = o.load ? o.load : "gemm";
    struct vla_preset chk;
    if (vla_preset_find(&chk, o.preset, NULL))
        return 2;
    double bytes, flops;
    if (!strcmp(o.backend, "cpu") && !vla_cpu_fits(&chk, &bytes, &flops)) {
        error(
            "soak: preset '%s' (%.1f GiB of fp32 weights, %.0f GFLOP per call) is too large for "
            "the cpu reference backend (at most %.0f GiB and %.0f GFLOP): use --preset tiny, or a "
            "GPU backend",
            chk.name, bytes / (1 << 30), flops / 1e9, VLA_CPU_MAX_WEIGHT_BYTES / (1 << 30),
            VLA_CPU_MAX_FLOPS / 1e9);
        vla_preset_release(&chk);
        return 2;
    }
    vla_preset_release(&chk);
    struct outfile out = {0};
    if (o.json && outfile_open(&out, o.json, 1))
        return 2;
    char *unpacked = NULL;
    if (sysroot_open(o.sysroot, &unpacked)) {
        if (o.json)
            outfile_close(&out, 1);
        return 2;
    }
    struct checkset cs;
    if (checks_load_default(&cs, NULL)) {
        sysroot_close(unpacked);
        if (o.json)
            outfile_close(&out, 1);
        return 2;
    }
    struct strlist bdfs = STRLIST_INIT;
    tel_list_amd(&bdfs);
    struct sampler sp;
    memset(&sp, 0, sizeof(sp));
    sp.tel = tel_open(&bdfs, rootfs_is_live(), 1);
    sp.interval_ms = o.interval_ms;
    sp.tty = isatty(STDERR_FILENO);
    sp.duration_s = o.duration_s;
    int rec[2], stp[2];
    if (pipe(rec) || pipe(stp)) {
        error("soak: pipe: %s", strerror(errno));
        return 3;
    }
    fcntl(rec[0], F_SETFL, O_NONBLOCK);
    fcntl(rec[0], F_SETFD, FD_CLOEXEC);
    fcntl(stp[1], F_SETFD, FD_CLOEXEC);
    sp.rec_r = rec[0];
    C.o = &o;
    C.rec_w = rec[1];
    C.stop_r = stp[0];
    stop_w = stp[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    pthread_mutex_init(&sp.mu, NULL);
    /* the sampler thread starts once the child is forked: a thread that
     * exists at fork time can hold the allocator's lock the child then
     * waits for forever (seen under ASan: the child hung in calloc) */
    isolate_after_fork(start_sampler, &sp);

    char started[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
    double t0 = util_mono_s();
    fprintf(stderr, "rocm-vla-doctor soak: %s %s for %.0f s (load: %s); Ctrl-C stops early\n",
            o.preset, o.dtype, o.duration_s, strcmp(o.backend, "cpu") ? o.load : "none on the cpu");
    struct factset fs = FACTSET_INIT;
    static const struct probe_opts none = {0};
    struct probe_ctx ctx = {&fs, LEVEL_SOAK, &none, 0};
    isolate_run(&soak_probe, &ctx, o.duration_s + SOAK_COLD_MARGIN_S + o.duration_s / 10);
    close(rec[1]);

    pthread_mutex_lock(&sp.mu);
    sp.stop = 1;
    pthread_mutex_unlock(&sp.mu);
    if (sp.started)
        pthread_join(sp.th, NULL);
    take_records(&sp);
    status_clear(&sp);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    stop_w = -1;
    fact_set_bool(&fs, "soak.interrupted", stopped != 0, SRC);
    fact_set_int(&fs, "soak.samples", (int64_t)sp.n, SRC);
    /* the calls from the run's start (after the cold start): samples before
     * the first call only set the baseline */
    /* judge the GPU the child loaded (its PCI address), not every GPU the
     * sampler sees: a neighbour going idle is no clock drop of this run */
    const struct fact *pf = fact_get(&fs, "soak.pci");
    char key[48];
    const char *k =
        pf && pf->type == FACT_STR ? tel_gpu_key(sp.tel, pf->s, key, sizeof(key)) : NULL;
    if (k) {
        soak_only_gpu(sp.samples, sp.n, k);
        fact_set_str(&fs, "soak.telemetry_gpu", k, SRC);
    } else {
        fact_set_unknown(&fs, "soak.telemetry_gpu", SRC,
                         "the loaded GPU's PCI address is not among the sampled GPUs: every "
                         "sampled GPU is judged");
    }
    soak_analyze(sp.calls, sp.ncalls, sp.samples, sp.n, &fs);
    soak_outputs_facts(sp.outs, sp.ncalls, &fs);
    soak_pace_facts(sp.calls, sp.ncalls, o.rate_hz, &fs);
    const struct fact *be = fact_get(&fs, "soak.backend");
    if (be && be->type == FACT_STR && !strcmp(be->s, "cpu")) {
        /* the GPU's energy is not the cost of a call computed on the CPU */
        const char *why = "the cpu backend's calls do not run on the GPU";
        fact_set_unknown(&fs, "soak.energy_per_call_j", SRC, "%s", why);
        fact_set_unknown(&fs, "soak.avg_power_w", SRC, "%s", why);
        fact_set_unknown(&fs, "soak.energy_source", SRC, "%s", why);
    }

    struct strlist only = STRLIST_INIT;
    strlist_add(&only, "soak.");
    struct run_filter flt = {LEVEL_SOAK, &only};
    struct results res;
    int rc = 3;
    if (checks_run(&cs, &fs, &flt, &res) == 0) {
        struct factset host = FACTSET_INIT;
        host_facts(&host);
        struct report_meta meta = {RVD_VERSION,
                                   "soak",
                                   o.sysroot,
                                   "(built in)",
                                   fact_str(&host, "host.hostname"),
                                   fact_str(&host, "kernel.release"),
                                   fact_str(&host, "host.os"),
                                   started,
                                   util_mono_s() - t0,
                                   0,
                                   NULL};
        int json_stdout = o.json && !strcmp(o.json, "-");
        if (!json_stdout) {
            if (stopped)
                printf("rocm-vla-doctor soak (stopped early by %s while the pass ran: the "
                       "results are partial, %.0f of %.0f s)\n",
                       tmpdirs_signal_name(stopped), sp.ncalls ? last_call_s(&sp) : 0.0,
                       o.duration_s);
            else
                printf("rocm-vla-doctor soak\n");
            print_summary(&fs);
            struct text_opts to = {isatty(STDOUT_FILENO), 0, 0, 0, NULL};
            report_text_write(stdout, &meta, &res, &to);
        }
        rc = results_exit_code(&res, 0);
        if (o.json) {
            int bad = report_json_write(out.f, &meta, &fs, &res) != 0;
            if (outfile_close(&out, bad) || bad)
                rc = 3;
        }
        results_release(&res);
        factset_release(&host);
    } else if (o.json) {
        outfile_close(&out, 1);
    }
    const struct fact *err = fact_get(&fs, "soak.error");
    if (err && err->type == FACT_STR && err->s && *err->s) {
        char *safe = str_sanitize(err->s, 0);
        fprintf(stderr, "rocm-vla-doctor soak: the pass stopped: %s\n", safe);
        free(safe);
    }
    strlist_release(&only);
    for (size_t i = 0; i < sp.n; i++)
        tel_sample_release(&sp.samples[i]);
    free(sp.samples);
    free(sp.calls);
    free(sp.outs);
    strbuf_release(&sp.partial);
    pthread_mutex_destroy(&sp.mu);
    close(rec[0]);
    close(stp[0]);
    close(stp[1]);
    tel_close(sp.tel);
    strlist_release(&bdfs);
    factset_release(&fs);
    checks_release(&cs);
    sysroot_close(unpacked);
    return rc;
}
