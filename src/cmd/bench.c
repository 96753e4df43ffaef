/* bench.c - `rocm-vla-doctor bench`: options, the timed runs, the
 * per-stage table, the layer statistics and the JSON record. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/parse_options.h"
#include "../core/outfile.h"
#include "../report/report.h"
#include "../core/rootfs.h"
#include "../core/util.h"
#include "../vla/bench_gpu.h"
#include "../../probes/probe_torch.h"
#include "bench_sweep.h"
#include "../vla/kernel_test.h"
#include "../vla/model.h"
#include "../vla/ops.h"
#include "../vla/preset.h"
#include "bench.h"
#include "../vla/bench_rate.h"
#include "../vla/weights.h"

enum { B_OK = 0, B_FINDING = 1, B_USAGE = 2, B_INTERNAL = 3 };

/* beyond these the cpu backend asks for --force (minutes per pass) */
#define CPU_MAX_WEIGHT_BYTES (2.0 * (1 << 30))
#define CPU_MAX_FLOPS 200e9

struct bench_opts {
    const char *preset, *models, *dtype, *weights, *save, *json, *backend, *checks;
    const char *html; /* --html FILE: the sweep's page (report_sweep.c) */
    int runs, image, verbose, rows, dry_run, force;
    int batch; /* observations per call (--batch) */
    int sweep; /* 0 none, 1 quick, 2 full */
    int kernel_test, profile;
    long rate;          /* --rate HZ: back to back, then paced (bench_rate.c) */
    int torch;          /* --torch: the team's PyTorch side by side (bench_torch.c) */
    const char *python; /* --python PATH for --torch */
    struct strlist grid;
    uint64_t seed;
    int seed_given;      /* --seed (0 is a seed too) */
    struct outfile *out; /* --json, opened before the pass runs */
};

/* the cpu reference backend measures no energy: a CPU package counter
 * (RAPL) would include everything else the host runs */
#define CPU_ENERGY_WHY "the cpu reference backend has no GPU energy counter"

static void bench_more_help(FILE *f)
{
    fputs("modes: bench --preset NAME|FILE.yaml [...]   one configuration, timed\n"
          "       bench --sweep[=full] --preset NAME [--grid KEY=V1,V2...]...\n"
          "       bench --kernel-test [--backend auto|cuda|hip]\n"
          "Runs the reference VLA pass (vision, prefix, denoising steps, post) and prints\n"
          "per-stage latency percentiles; --sweep runs a grid of configurations (KEY: steps,\n"
          "chunk, image, dtype, batch) with budget marks from checks.yaml (--html: the table\n"
          "and plots as one page); --kernel-test holds\n"
          "the GPU kernels to the CPU reference on odd shapes. Built-in presets: ",
          f);
    const char *const *n = vla_preset_builtin_names();
    for (int i = 0; n[i]; i++)
        fprintf(f, "%s%s", i ? ", " : "", n[i]);
    fputs(". See docs/VLA.md.\n", f);
}

static int opt_sweep(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    ((struct bench_opts *)base)->sweep = v && strcmp(v, "full") == 0 ? 2 : 1;
    return 0;
}

static int opt_grid(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    strlist_add(&((struct bench_opts *)base)->grid, v);
    return 0;
}

static int opt_seed(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    uint64_t s;
    if (str_parse_u64(v, &s))
        return error("--seed must be a non-negative integer, not '%s'", v);
    ((struct bench_opts *)base)->seed = s;
    ((struct bench_opts *)base)->seed_given = 1;
    return 0;
}

static const char *const sweep_values[] = {"quick", "full", NULL};

static const struct optspec bench_opts_table[] = {
    OPT_PRESET(struct bench_opts, preset),
    OPT_STRING(struct bench_opts, models, "models", 0, OPTC_DIR, "DIR",
               "where preset files and weights are looked up"),
    OPT_DTYPE(struct bench_opts, dtype),
    OPT_STRING(struct bench_opts, weights, "weights", 0, OPTC_FILE, "FILE.safetensors",
               "real weights instead of synthetic ones"),
    OPT_OUT(struct bench_opts, save, "save-weights", 0, "FILE",
            "write the synthetic weights as safetensors"),
    OPT_INT(struct bench_opts, runs, "runs", 1, 100000, NULL, "N", "timed passes (default 5)"),
    OPT_CALLBACK("seed", 0, OPTA_REQUIRED, opt_seed, OPTC_ANY, "S",
                 "the synthetic weights' and inputs' seed"),
    OPT_OUT(struct bench_opts, json, "json", 0, "FILE|-", "the bench record as JSON"),
    OPT_INT(struct bench_opts, image, "image-size", 8, 8192, NULL, "PX",
            "the camera image's side (default the preset's)"),
    OPT_INT(struct bench_opts, batch, "batch", 1, VLA_MAX_BATCH, NULL, "N",
            "observations per call (default 1)"),
    OPT_INT(struct bench_opts, rows, "rows", 0, 100000, NULL, "N",
            "layer statistics rows to print (default 3)"),
    OPT_BACKEND(struct bench_opts, backend),
    OPT_FLAG(struct bench_opts, dry_run, "dry-run", 0, "the plan and sizes, no pass"),
    OPT_FLAG(struct bench_opts, force, "force", 0,
             "run a pass the cpu backend would take minutes for"),
    {.name = "sweep",
     .kind = OPTK_ENUM,
     .arg = OPTA_OPTIONAL,
     .values = sweep_values,
     .cb = opt_sweep,
     .help = "a grid of configurations (quick by default)"},
    OPT_CALLBACK("grid", 0, OPTA_REQUIRED, opt_grid, OPTC_ANY, "KEY=V1,V2...",
                 "a sweep axis: steps, chunk, image, dtype, batch (repeatable)"),
    OPT_CHECKS(struct bench_opts, checks),
    OPT_FLAG(struct bench_opts, kernel_test, "kernel-test", 0,
             "hold the GPU kernels to the CPU reference"),
    OPT_FLAG(struct bench_opts, profile, "profile", 0, "time each GPU kernel"),
    OPT_INT(struct bench_opts, rate, "rate", 1, 1000, "Hz", "HZ",
            "back to back, then paced at HZ with idle gaps: latency, clocks, the cause"),
    OPT_FLAG(struct bench_opts, torch, "torch", 0,
             "run the PyTorch twin too and print the passes side by side"),
    OPT_STRING(struct bench_opts, python, "python", 0, OPTC_FILE, "PATH",
               "the interpreter for --torch (default python3)"),
    OPT_OUT(struct bench_opts, html, "html", 0, "FILE", "the sweep's table and plots as one page"),
    OPT_VERBOSE(struct bench_opts, verbose),
    OPT_HELP_VERSION_END,
};

const struct cmd_spec bench_spec = {
    "bench",          "bench",        NULL, "Times the reference VLA pass of a preset.",
    bench_opts_table, bench_more_help};

/* an option a mode reads nothing of is refused by name (exit 2), never
 * dropped: the user would read a result that did not do what they asked */
struct given {
    const char *name;
    int set;
};

static int refuse_given(const char *mode, const struct given *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].set)
            return error("bench: %s; --%s does not apply", mode, g[i].name);
    return 0;
}

/* the options that no mode but the one pass reads */
/* clang-format off */
#define PASS_ONLY_GIVEN(o)                                                                         \
    {"rows", (o)->rows >= 0}, {"force", (o)->force}, {"profile", (o)->profile},                    \
    {"torch", (o)->torch}, {"python", (o)->python != NULL}, {"verbose", (o)->verbose}
/* clang-format on */

static int bench_modes_check(const struct bench_opts *o)
{
    if (o->python && !o->torch)
        return error("bench: --python is the interpreter of --torch; give --torch too");
    if (o->rate && (o->kernel_test || o->sweep || o->dry_run)) {
        return error("bench: --rate runs one pass paced; --%s does not apply",
                     o->kernel_test ? "kernel-test"
                     : o->sweep     ? "sweep"
                                    : "dry-run");
    }
    if (o->rate && o->runs > 0 && o->runs < 10)
        return error("bench: --rate wants --runs 10 or more (calls a phase; a p99 of fewer is "
                     "their maximum)");
    if (o->rate) {
        const struct given g[] = {
            {"weights", o->weights != NULL},
            {"save-weights", o->save != NULL},
            {"json", o->json != NULL},
            {"image-size", o->image > 0},
            {"batch", o->batch > 0},
            {"grid", o->grid.n > 0},
            {"checks", o->checks != NULL},
            {"html", o->html != NULL},
            PASS_ONLY_GIVEN(o),
        };
        return refuse_given("--rate times the preset's synthetic pass, one observation a call, "
                            "and prints its own table",
                            g, ARRAY_SIZE(g));
    }
    if (o->kernel_test) {
        const struct given g[] = {
            {"models", o->models != NULL},   {"dtype", o->dtype != NULL},
            {"weights", o->weights != NULL}, {"save-weights", o->save != NULL},
            {"runs", o->runs > 0},           {"seed", o->seed_given},
            {"json", o->json != NULL},       {"image-size", o->image > 0},
            {"batch", o->batch > 0},         {"dry-run", o->dry_run},
            {"grid", o->grid.n > 0},         {"checks", o->checks != NULL},
            {"html", o->html != NULL},       PASS_ONLY_GIVEN(o),
        };
        return refuse_given("--kernel-test runs its own shapes against the CPU reference and "
                            "takes only --backend",
                            g, ARRAY_SIZE(g));
    }
    if (o->sweep) {
        const struct given grid[] = {
            {"dtype", o->dtype != NULL}, {"image-size", o->image > 0}, {"batch", o->batch > 0}};
        const struct given g[] = {PASS_ONLY_GIVEN(o)};
        return refuse_given("--sweep takes its dtypes, image sizes and batch sizes from "
                            "--grid dtype=..., image=..., batch=...",
                            grid, ARRAY_SIZE(grid)) ||
                       refuse_given("--sweep prints one row per configuration", g, ARRAY_SIZE(g))
                   ? -1
                   : 0;
    }
    if (o->dry_run) {
        const struct given g[] = {
            {"runs", o->runs > 0},
            {"seed", o->seed_given},
            {"json", o->json != NULL},
            {"backend", o->backend != NULL},
            {"dtype", o->dtype != NULL},
            {"weights", o->weights != NULL},
            {"save-weights", o->save != NULL},
            PASS_ONLY_GIVEN(o),
        };
        return refuse_given("--dry-run prints the plan and the fp32 sizes and runs no pass", g,
                            ARRAY_SIZE(g));
    }
    if (o->force && o->backend && strcmp(o->backend, "cpu") && strcmp(o->backend, "auto"))
        return error("bench: --force lets the cpu backend run a large pass; --backend %s does "
                     "not apply it",
                     o->backend);
    return 0;
}

/* the defaults, after bench_modes_check has seen what was given */
static void bench_defaults(struct bench_opts *o)
{
    o->dtype = o->dtype ? o->dtype : "fp32";
    o->backend = o->backend ? o->backend : "auto";
    o->runs = o->runs ? o->runs : 5;
    o->rows = o->rows >= 0 ? o->rows : 3;
    o->batch = o->batch ? o->batch : 1;
}

static int bench_parse(int argc, char **argv, struct bench_opts *o)
{
    int first = parse_options(argc, argv, &bench_spec, o);
    if (first <= 0)
        return first == PARSE_DONE ? 1 : -1;
    if (first < argc)
        return error("bench: unexpected argument '%s'", argv[first]);
    if (o->kernel_test && (o->preset || o->sweep))
        return error("bench: --kernel-test takes no preset and no --sweep");
    if (bench_modes_check(o))
        return -1;
    bench_defaults(o);
    if (o->kernel_test)
        return 0;
    if (!o->preset)
        return error("bench: --preset NAME is required");
    if (o->grid.n && !o->sweep)
        return error("bench: --grid needs --sweep");
    if (o->checks && !o->sweep)
        return error("bench: --checks needs --sweep (the budgets of the marks)");
    if (o->html && !o->sweep)
        return error("bench: --html needs --sweep (a bench's JSON is drawn by `check --html`)");
    if (o->html && strcmp(o->html, "-") == 0)
        return error("bench: --html writes a file, not standard output (the table goes there)");
    if (o->html && o->json && strcmp(o->html, o->json) == 0)
        return error("bench: --html and --json name the same file '%s'", o->html);
    if (o->sweep && (o->dry_run || o->weights || o->save))
        return error("bench: --sweep runs synthetic weights; --dry-run, --weights and "
                     "--save-weights do not apply");
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* nearest-rank percentile of n sorted values */
static double pct(const double *sorted, int n, double q)
{
    int i = (int)ceil(q * n) - 1;
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    return sorted[i];
}

struct stage_row {
    char name[32];
    double p50, p90, p99;
};

/* the end of both JSON reports: per-layer statistics, the first non-finite
 * layer and the action chunk (physical units) */
static void json_layers_actions(FILE *f, const struct vla_stats *st, const float *actions,
                                const struct vla_preset *p)
{
    fputs(",\n  \"layers\": [", f);
    for (size_t i = 0; i < st->n; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_write_string(f, st->v[i].name);
        fputs(", \"max_abs\": ", f);
        json_write_number(f, st->v[i].max_abs, 9);
        fprintf(f, ", \"nonfinite\": %s}", st->v[i].nonfinite ? "true" : "false");
    }
    fputs("\n  ],\n  \"first_nonfinite\": ", f);
    if (st->first_bad >= 0)
        json_write_string(f, st->v[st->first_bad].name);
    else
        fputs("null", f);
    fputs(",\n  \"actions\": [", f);
    for (int t = 0; t < p->chunk; t++) {
        fputs(t ? ",\n    [" : "\n    [", f);
        for (int a = 0; a < p->action_dim; a++) {
            if (a)
                fputs(", ", f);
            json_write_number(f, actions[(size_t)t * p->action_dim + a], 9);
        }
        fputc(']', f);
    }
    fputs("\n  ]\n}\n", f);
}

/* the lines both text reports print about the batch and the patch grid */
static void print_batch_grid(FILE *f, const struct bench_opts *o, const struct vla_preset *p)
{
    int g = vla_grid(p, o->image), drop = o->image - g * p->vision.patch;
    if (drop)
        fprintf(
            f,
            "  image    %d px: %d x %d patches of %d px, the last %d px of each side dropped (a "
            "stride-%d convolution without padding%s)\n",
            o->image, g, g, p->vision.patch, drop, p->vision.patch,
            p->vision.merge > 1 ? "; the grid floored to a multiple of the merge" : "");
    if (o->batch > 1)
        fprintf(f,
                "  batch    %d observations per call: times, control rate and energy are per call "
                "of all %d; actions shown are observation 0's\n",
                o->batch, o->batch);
}

/* "batch", the patch grid and the pixels dropped: keys of both JSON reports */
static void json_batch_grid(FILE *f, const struct bench_opts *o, const struct vla_preset *p)
{
    int g = vla_grid(p, o->image);
    fprintf(f, "  \"batch\": %d,\n  \"grid\": %d,\n  \"pixels_dropped\": %d,\n", o->batch, g,
            o->image - g * p->vision.patch);
}

/* the control rate line: per call, and per observation for a batch */
static void print_rate(FILE *f, const struct bench_opts *o, const struct vla_preset *p, double p50)
{
    fprintf(f, "\ncontrol rate  %.2f Hz at p50 (%.0f actions/s with chunks of %d", 1.0 / p50,
            o->batch * p->chunk / p50, p->chunk);
    if (o->batch > 1)
        fprintf(f, "; %d observations per call: %.2f observations/s", o->batch, o->batch / p50);
    fprintf(f, ")\n");
}

struct bench_result {
    const struct bench_opts *o;
    const struct vla_preset *p;
    const struct vla_weights *w;
    uint64_t params;
    double flops, cold_s;
    struct stage_row *rows;
    int nrows;
    struct vla_stats *st;
    const float *actions;
};

static void write_json(FILE *f, const struct bench_result *r)
{
    const struct vla_preset *p = r->p;
    fputs("{\n  \"schema\": \"rocm-vla-doctor-bench/1\",\n  \"version\": ", f);
    json_write_string(f, RVD_VERSION);
    fputs(",\n  \"preset\": ", f);
    json_write_string(f, p->name);
    fputs(",\n  \"preset_source\": ", f);
    json_write_string(f, p->source);
    fprintf(f, ",\n  \"backend\": \"cpu\",\n  \"dtype\": \"fp32\",\n  \"seed\": %llu,\n",
            (unsigned long long)r->o->seed);
    fputs("  \"weights\": ", f);
    json_write_string(f, r->w->origin);
    fprintf(f, ",\n  \"image\": %d,\n  \"cameras\": %d,\n  \"prefix_tokens\": %d,\n", r->o->image,
            p->vision.cameras, vla_prefix_len(p, r->o->image));
    fprintf(f, "  \"chunk\": %d,\n  \"action_dim\": %d,\n  \"steps\": %d,\n  \"runs\": %d,\n",
            p->chunk, p->action_dim, p->steps, r->o->runs);
    json_batch_grid(f, r->o, p);
    fprintf(f, "  \"params\": %llu,\n  \"flops\": ", (unsigned long long)r->params);
    json_write_number(f, r->flops, 9);
    fputs(",\n  \"cold_ms\": ", f);
    json_write_number(f, r->cold_s * 1e3, 9);
    fputs(",\n  \"stages\": [", f);
    for (int i = 0; i < r->nrows; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_write_string(f, r->rows[i].name);
        fputs(", \"p50_ms\": ", f);
        json_write_number(f, r->rows[i].p50 * 1e3, 9);
        fputs(", \"p90_ms\": ", f);
        json_write_number(f, r->rows[i].p90 * 1e3, 9);
        fputs(", \"p99_ms\": ", f);
        json_write_number(f, r->rows[i].p99 * 1e3, 9);
        fputc('}', f);
    }
    const struct stage_row *tot = &r->rows[r->nrows - 1];
    fputs("\n  ],\n  \"control_rate_hz\": ", f);
    json_write_number(f, 1.0 / tot->p50, 9);
    fputs(",\n  \"energy_per_call_j\": null,\n  \"avg_power_w\": null,\n"
          "  \"energy_source\": \"\",\n  \"energy_why\": ",
          f);
    json_write_string(f, CPU_ENERGY_WHY);
    json_layers_actions(f, r->st, r->actions, p);
}

static void print_report(FILE *f, const struct bench_result *r)
{
    const struct vla_preset *p = r->p;
    const struct bench_opts *o = r->o;
    int img_tok = p->vision.cameras * vla_image_tokens(p, o->image);
    fprintf(f, "rocm-vla-doctor bench: preset %s (%s), backend cpu, dtype fp32\n", p->name,
            p->source);
    fprintf(f, "  weights  %s: %.3f M parameters, %.1f MiB in fp32\n", r->w->origin,
            (double)r->params / 1e6, (double)r->params * 4 / (1 << 20));
    fprintf(f,
            "  shapes   %d camera(s) x %d px%s -> %d image + %d text = %d prefix tokens; "
            "chunk %d x %d, %d steps\n",
            p->vision.cameras, o->image,
            o->image != p->vision.image ? " (position table interpolated)" : "", img_tok,
            p->text_tokens, img_tok + p->text_tokens, p->chunk, p->action_dim, p->steps);
    print_batch_grid(f, o, p);
    const struct stage_row *tot = &r->rows[r->nrows - 1];
    fprintf(f, "  work     %.3f GFLOP per pass; %.2f GFLOP/s at p50\n", r->flops / 1e9,
            r->flops / tot->p50 / 1e9);
    fprintf(f, "  cold     %.3f ms (first pass), then %d timed run(s)\n\n", r->cold_s * 1e3,
            o->runs);
    fprintf(f, "%-10s %12s %12s %12s\n", "stage", "p50 ms", "p90 ms", "p99 ms");
    for (int i = 0; i < r->nrows; i++) {
        if (i == r->nrows - 1)
            fprintf(f, "%-10s %12s %12s %12s\n", "", "------", "------", "------");
        fprintf(f, "%-10s %12.3f %12.3f %12.3f\n", r->rows[i].name, r->rows[i].p50 * 1e3,
                r->rows[i].p90 * 1e3, r->rows[i].p99 * 1e3);
    }
    print_rate(f, o, p, tot->p50);
    fprintf(f, "energy        unknown: %s\n", CPU_ENERGY_WHY);
    if (r->st->first_bad >= 0) {
        const struct vla_layer_stat *s = &r->st->v[r->st->first_bad];
        if (s->first_step >= 0)
            fprintf(f, "non-finite    first NaN/Inf in %s (denoising step %d)\n", s->name,
                    s->first_step);
        else
            fprintf(f, "non-finite    first NaN/Inf in %s\n", s->name);
    } else {
        fprintf(f, "non-finite    none\n");
    }
    if (o->verbose) {
        fprintf(f, "\n%-22s %14s  %s\n", "layer", "max |act|", "NaN/Inf");
        for (size_t i = 0; i < r->st->n; i++)
            fprintf(f, "%-22s %14.6g  %s\n", r->st->v[i].name, (double)r->st->v[i].max_abs,
                    r->st->v[i].nonfinite ? "yes" : "-");
    }
    int rows = o->rows < p->chunk ? o->rows : p->chunk;
    if (rows) {
        int dims = p->action_dim < 8 ? p->action_dim : 8;
        fprintf(f, "\nactions (physical units; first %d of %d rows, first %d of %d dims)\n", rows,
                p->chunk, dims, p->action_dim);
        for (int t = 0; t < rows; t++) {
            fprintf(f, "  [%2d]", t);
            for (int a = 0; a < dims; a++)
                fprintf(f, " %9.5f", (double)r->actions[(size_t)t * p->action_dim + a]);
            fprintf(f, "%s\n", dims < p->action_dim ? " ..." : "");
        }
    }
}

static void dry_run(FILE *f, const struct vla_preset *p, const struct vla_weights *w, int image,
                    int batch)
{
    uint64_t params = vla_weights_params(w);
    int img_tok = p->vision.cameras * vla_image_tokens(p, image);
    fprintf(f, "preset %s (%s): valid\n", p->name, p->source);
    fprintf(f, "  parameters   %.3f %s (%.3f GiB in bf16, %.3f GiB in fp32), %zu tensors\n",
            params >= 1000000000ULL ? (double)params / 1e9 : (double)params / 1e6,
            params >= 1000000000ULL ? "B" : "M", (double)params * 2 / (1 << 30),
            (double)params * 4 / (1 << 30), w->n);
    fprintf(f, "  prefix       %d image + %d text = %d tokens at %d px\n", img_tok, p->text_tokens,
            img_tok + p->text_tokens, image);
    fprintf(f, "  pass         %.1f GFLOP (vision + prefix + %d steps over a %d x %d chunk)\n",
            vla_flops(p, image) / 1e9, p->steps, p->chunk, p->action_dim);
    if (batch > 1)
        fprintf(f, "  batch        %d observations per call: %.1f GFLOP per call\n", batch,
                batch * vla_flops(p, image) / 1e9);
}

static void stage_name(char *buf, size_t n, int s, int ns)
{
    if (s == 0)
        snprintf(buf, n, "vision");
    else if (s == 1)
        snprintf(buf, n, "prefix");
    else if (s < ns - 1)
        snprintf(buf, n, "step %d", s - 2);
    else if (s == ns - 1)
        snprintf(buf, n, "post");
    else
        snprintf(buf, n, "total");
}

/* achieved rates of a stage against the ceilings measured in the same run */
static void rates(const struct vla_gpu_out *g, int s, int ns, double t, double *fl, double *by)
{
    int k = s == 0 ? 0 : s == 1 ? 1 : s < ns - 1 ? 2 : -1;
    *fl = k >= 0 && t > 0 ? g->stage_flops[k] / t : NAN;
    *by = k >= 0 && t > 0 ? g->stage_bytes[k] / t : NAN;
}

/* the fast paths this backend could not take (vla.backend_gaps), each with
 * the reason the run got */
static void print_gaps(FILE *f, const struct vla_gap_set *gs)
{
    if (!vla_gaps_count(gs)) {
        fputs("  fast paths: all taken (", f);
        for (int i = 0; i < VLA_GAP_N; i++)
            fprintf(f, "%s%s", i ? ", " : "", vla_gap_table[i].key);
        fputs(")\n", f);
        return;
    }
    fprintf(f, "  fast paths not taken (%d):\n", vla_gaps_count(gs));
    for (int i = 0; i < VLA_GAP_N; i++)
        if (gs->why[i][0])
            fprintf(f, "    %-16s %s\n", vla_gap_table[i].key, gs->why[i]);
}

static void json_gaps(FILE *f, const struct vla_gap_set *gs)
{
    fputs(",\n  \"backend_gaps\": [", f);
    const char *sep = "";
    for (int i = 0; i < VLA_GAP_N; i++) {
        if (!gs->why[i][0])
            continue;
        fprintf(f, "%s{\"gap\": \"%s\", \"why\": ", sep, vla_gap_table[i].key);
        json_write_string(f, gs->why[i]);
        fputc('}', f);
        sep = ", ";
    }
    fputc(']', f);
}

static void print_gpu(FILE *f, const struct bench_opts *o, const struct vla_preset *p,
                      const struct vla_gpu_out *g)
{
    int ns = g->nstages - 1;
    fprintf(f, "rocm-vla-doctor bench: preset %s (%s), backend %s (%s, %s), dtype %s\n", p->name,
            p->source, g->backend, g->device, g->target, o->dtype);
    fprintf(f, "  weights  %s: %.3f M parameters; GEMMs through %s\n", g->origin,
            (double)g->params / 1e6, g->blas[0] ? g->blas : "the project's own kernel");
    fprintf(f, "  attention vision: %s\n", g->attention);
    print_gaps(f, &g->gaps);
    fprintf(f, "  work     %.3f GFLOP per pass; %.1f TFLOP/s at p50\n", g->flops / 1e9,
            g->flops / g->stage[ns].p50 / 1e12);
    fprintf(f,
            "  cold     %.3f s (runtime + kernels %.3f s: %d compiled, %d from the cache; weights; "
            "first pass %.3f s incl. layer statistics)\n",
            g->cold_s, g->open_s, g->compiles, g->cache_hits, g->first_pass_s);
    print_batch_grid(f, o, p);
    if (g->graph)
        fprintf(f,
                "  timing   %d replays of one %s graph of the whole pass (the total; stages from "
                "the pass split into one graph per stage); stream launches: total p50 %.3f ms\n",
                o->runs, g->backend, g->eager_total.p50 * 1e3);
    else
        fprintf(f, "  timing   %d runs of stream launches (no graph: %s)\n", o->runs, g->graph_why);
    if (g->graph && g->graph_why[0])
        fprintf(f, "  warning  %s\n", g->graph_why);
    fprintf(f,
            "  ceilings %.1f TFLOP/s (%s GEMM 8192^3), %.0f GB/s (device copy), measured now\n\n",
            g->gemm_peak / 1e12, o->dtype, g->bw_peak / 1e9);
    fprintf(f, "%-10s %10s %10s %10s %10s %8s %10s %8s\n", "stage", "p50 ms", "p90 ms", "p99 ms",
            "TFLOP/s", "% GEMM", "GB/s", "% copy");
    for (int s = 0; s <= ns; s++) {
        char name[32];
        stage_name(name, sizeof(name), s, ns);
        if (s == ns)
            fprintf(f, "%-10s %10s %10s %10s\n", "", "------", "------", "------");
        double fl, by;
        rates(g, s, ns, g->stage[s].p50, &fl, &by);
        fprintf(f, "%-10s %10.3f %10.3f %10.3f", name, g->stage[s].p50 * 1e3, g->stage[s].p90 * 1e3,
                g->stage[s].p99 * 1e3);
        if (isfinite(fl))
            fprintf(f, " %10.1f %8.1f %10.0f %8.1f", fl / 1e12,
                    g->gemm_peak > 0 ? 100 * fl / g->gemm_peak : NAN, by / 1e9,
                    g->bw_peak > 0 ? 100 * by / (g->bw_peak / 2) : NAN);
        fprintf(f, "\n");
    }
    print_rate(f, o, p, g->stage[ns].p50);
    if (g->have_energy)
        fprintf(f, "energy        %.4f J per call, %.1f W average (%d calls in %.2f s; %s)\n",
                g->energy_j_per_call, g->avg_power_w, g->energy_calls, g->energy_s,
                g->energy_source);
    else
        fprintf(f, "energy        unknown: %s\n", g->energy_why);
    fprintf(f,
            "memory        %.3f GiB in use on the device (%.3f GiB allocated by the pass) of "
            "%.1f GiB\n",
            (double)g->mem_used / (1 << 30), (double)g->alloc_peak / (1 << 30),
            (double)g->mem_total / (1 << 30));
    if (g->nprof) {
        fprintf(
            f,
            "profile       one stream-launched pass, %.3f ms of device time by stage and kernel "
            "(an event "
            "after every launch; the gap before a launch counts to it):\n",
            g->prof_total_ms);
        for (int i = 0; i < g->nprof; i++) /* largest first (bench_gpu.c sorted them) */
            fprintf(f, "  %-6s %-26s %6d calls %9.3f ms %5.1f %%  %7.2f us/call\n",
                    g->prof[i].stage, g->prof[i].what, g->prof[i].calls, g->prof[i].ms,
                    100 * g->prof[i].ms / g->prof_total_ms, 1e3 * g->prof[i].ms / g->prof[i].calls);
        /* what fusion cuts: kernels and library GEMMs launched per stage */
        const int *n = g->prof_launches;
        fprintf(f,
                "launches      vision %d, prefix %d, denoising steps and tail %d (%.1f per step)\n",
                n[0], n[1], n[2], (double)n[2] / p->steps);
    }
    if (g->have_ref)
        fprintf(f,
                "numerics      vs the fp32 pass on the same weights: cosine %.6f (normalised) "
                "%.6f (physical); max error %.3g (normalised) %.3g (physical, max |a| %.3g)\n",
                g->cos_norm, g->cos_phys, g->maxerr_norm, g->maxerr_phys, g->ref_maxabs_phys);
    if (g->st.first_bad >= 0) {
        const struct vla_layer_stat *s = &g->st.v[g->st.first_bad];
        fprintf(f, "non-finite    first NaN/Inf in %s", s->name);
        if (s->first_step >= 0)
            fprintf(f, " (denoising step %d)", s->first_step);
        fprintf(f, "\n");
    } else {
        fprintf(f, "non-finite    none\n");
    }
    if (o->verbose) {
        fprintf(f, "\n%-22s %14s  %s\n", "layer", "max |act|", "NaN/Inf");
        for (size_t i = 0; i < g->st.n; i++)
            fprintf(f, "%-22s %14.6g  %s\n", g->st.v[i].name, (double)g->st.v[i].max_abs,
                    g->st.v[i].nonfinite ? "yes" : "-");
    }
    int rows = o->rows < p->chunk ? o->rows : p->chunk;
    if (rows) {
        int dims = p->action_dim < 8 ? p->action_dim : 8;
        fprintf(f, "\nactions (physical units; first %d of %d rows, first %d of %d dims)\n", rows,
                p->chunk, dims, p->action_dim);
        for (int t = 0; t < rows; t++) {
            fprintf(f, "  [%2d]", t);
            for (int a = 0; a < dims; a++)
                fprintf(f, " %9.5f", (double)g->actions[(size_t)t * p->action_dim + a]);
            fprintf(f, "%s\n", dims < p->action_dim ? " ..." : "");
        }
    }
}

static void json_gpu(FILE *f, const struct bench_opts *o, const struct vla_preset *p,
                     const struct vla_gpu_out *g)
{
    int ns = g->nstages - 1;
    fputs("{\n  \"schema\": \"rocm-vla-doctor-bench/1\",\n  \"version\": ", f);
    json_write_string(f, RVD_VERSION);
    fputs(",\n  \"preset\": ", f);
    json_write_string(f, p->name);
    fputs(",\n  \"backend\": ", f);
    json_write_string(f, g->backend);
    fputs(",\n  \"device\": ", f);
    json_write_string(f, g->device);
    fputs(",\n  \"dtype\": ", f);
    json_write_string(f, o->dtype);
    fprintf(f, ",\n  \"seed\": %llu,\n  \"weights\": ", (unsigned long long)o->seed);
    json_write_string(f, g->origin);
    fprintf(f,
            ",\n  \"image\": %d,\n  \"cameras\": %d,\n  \"prefix_tokens\": %d,\n"
            "  \"chunk\": %d,\n  \"action_dim\": %d,\n  \"steps\": %d,\n  \"runs\": %d,\n"
            "  \"params\": %llu,\n",
            o->image, p->vision.cameras, vla_prefix_len(p, o->image), p->chunk, p->action_dim,
            p->steps, o->runs, (unsigned long long)g->params);
    json_batch_grid(f, o, p);
    fputs("  \"vision_attention\": ", f);
    json_write_string(f, g->attention);
    fputs(",\n  \"gemms\": ", f);
    json_write_string(f, g->blas[0] ? g->blas : "the project's own kernel");
    fprintf(f, ",\n  \"graph\": %s,\n  \"graph_note\": ", g->graph ? "true" : "false");
    json_write_string(f, g->graph_why);
    json_gaps(f, &g->gaps);
    fputs(",\n  \"flops\": ", f);
    json_write_number(f, g->flops, 9);
    fputs(",\n  \"cold_ms\": ", f);
    json_write_number(f, g->cold_s * 1e3, 9);
    fputs(",\n  \"open_ms\": ", f);
    json_write_number(f, g->open_s * 1e3, 9);
    fprintf(f, ",\n  \"kernels_compiled\": %d,\n  \"kernels_cached\": %d,\n  \"first_pass_ms\": ",
            g->compiles, g->cache_hits);
    json_write_number(f, g->first_pass_s * 1e3, 9);
    fputs(",\n  \"eager_total_p50_ms\": ", f);
    json_write_number(f, g->graph ? g->eager_total.p50 * 1e3 : g->stage[ns].p50 * 1e3, 9);
    fputs(",\n  \"gemm_peak_flops\": ", f);
    json_write_number(f, g->gemm_peak, 9);
    fputs(",\n  \"copy_bytes_per_s\": ", f);
    json_write_number(f, g->bw_peak, 9);
    fputs(",\n  \"stages\": [", f);
    for (int s = 0; s <= ns; s++) {
        char name[32];
        double fl, by;
        stage_name(name, sizeof(name), s, ns);
        rates(g, s, ns, g->stage[s].p50, &fl, &by);
        fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
        json_write_string(f, name);
        fputs(", \"p50_ms\": ", f);
        json_write_number(f, g->stage[s].p50 * 1e3, 9);
        fputs(", \"p90_ms\": ", f);
        json_write_number(f, g->stage[s].p90 * 1e3, 9);
        fputs(", \"p99_ms\": ", f);
        json_write_number(f, g->stage[s].p99 * 1e3, 9);
        fputs(", \"flops_per_s\": ", f);
        json_write_number(f, fl, 9);
        fputs(", \"bytes_per_s\": ", f);
        json_write_number(f, by, 9);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"control_rate_hz\": ", f);
    json_write_number(f, 1.0 / g->stage[ns].p50, 9);
    fputs(",\n  \"energy_per_call_j\": ", f);
    if (g->have_energy)
        json_write_number(f, g->energy_j_per_call, 9);
    else
        fputs("null", f);
    fputs(",\n  \"avg_power_w\": ", f);
    if (g->have_energy)
        json_write_number(f, g->avg_power_w, 9);
    else
        fputs("null", f);
    fputs(",\n  \"energy_source\": ", f);
    json_write_string(f, g->have_energy ? g->energy_source : "");
    if (!g->have_energy) {
        fputs(",\n  \"energy_why\": ", f);
        json_write_string(f, g->energy_why);
    }
    fprintf(f,
            ",\n  \"memory_used_bytes\": %zu,\n  \"memory_allocated_bytes\": %zu,\n"
            "  \"memory_total_bytes\": %zu,\n  \"numerics\": ",
            g->mem_used, g->alloc_peak, g->mem_total);
    if (g->have_ref) {
        fputs("{\"reference\": \"fp32 on the same device\", \"cosine_normalised\": ", f);
        json_write_number(f, g->cos_norm, 9);
        fputs(", \"cosine_physical\": ", f);
        json_write_number(f, g->cos_phys, 9);
        fputs(", \"max_error_normalised\": ", f);
        json_write_number(f, g->maxerr_norm, 9);
        fputs(", \"max_error_physical\": ", f);
        json_write_number(f, g->maxerr_phys, 9);
        fputs(", \"reference_max_abs_physical\": ", f);
        json_write_number(f, g->ref_maxabs_phys, 9);
        fputs(", \"reference_first_nonfinite\": ", f);
        if (g->ref_first_bad[0])
            json_write_string(f, g->ref_first_bad);
        else
            fputs("null", f);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    json_layers_actions(f, &g->st, g->actions, p);
}

/* 0/1 done (exit code), 2 usage, -1: no GPU here (the caller may fall back) */
static int run_bench_gpu(const struct bench_opts *o, const struct vla_preset *p)
{
    struct vla_gpu_req r = {p,        o->backend, o->dtype, o->weights, o->save, o->runs,
                            o->image, 1,          o->seed,  o->profile, o->batch};
    struct vla_gpu_out g;
    int rc = vla_gpu_run(&r, &g);
    if (rc == 1 && strcmp(o->backend, "auto") == 0) {
        fprintf(stderr, "rocm-vla-doctor bench: no GPU backend (%s); using the cpu backend\n",
                g.error);
        vla_gpu_out_release(&g);
        return -1;
    }
    if (rc) {
        error("bench: %s backend: %s", o->backend, g.error);
        vla_gpu_out_release(&g);
        return B_USAGE;
    }
    int json_stdout = o->json && strcmp(o->json, "-") == 0;
    if (!json_stdout) { /* machine strings (paths, device names) made safe */
        struct text_safe ts;
        FILE *tf = text_safe_begin(&ts, stdout);
        print_gpu(tf, o, p, &g);
        if (o->torch) /* bench stands above the probes: the probe's table */
            probe_bench_torch(tf, o->python, p, &g);
        text_safe_end(&ts);
    }
    rc = B_OK;
    if (o->out->f) {
        json_gpu(o->out->f, o, p, &g);
        if (outfile_close(o->out, 0))
            rc = B_USAGE;
    }
    if (rc == B_OK && g.st.first_bad >= 0)
        rc = B_FINDING;
    vla_gpu_out_release(&g);
    return rc;
}

static int run_bench(const struct bench_opts *o, const struct vla_preset *p)
{
    struct vla_weights w;
    if (o->dry_run) {
        vla_weights_layout(&w, p, 0);
        { /* machine strings (paths, device names) made safe */
            struct text_safe ts;
            dry_run(text_safe_begin(&ts, stdout), p, &w, o->image, o->batch);
            text_safe_end(&ts);
        }
        vla_weights_release(&w);
        return B_OK;
    }
    /* the cpu backend is the fp32 reference for small presets: a full-size
     * preset would take minutes per pass and gigabytes of fp32 weights, so
     * it is refused unless forced (and never beyond physical memory) */
    vla_weights_layout(&w, p, 0);
    double need = (double)w.arena_len * 4, flops = o->batch * vla_flops(p, o->image);
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    vla_weights_release(&w);
    if (ram > 0 && need > 0.6 * ram) {
        error("preset '%s' needs %.1f GiB of fp32 weights; this machine has %.1f GiB of memory "
              "(use --dry-run, or a GPU backend)",
              p->name, need / (1 << 30), ram / (1 << 30));
        return B_USAGE;
    }
    if (!o->force && (need > CPU_MAX_WEIGHT_BYTES || flops > CPU_MAX_FLOPS)) {
        error("preset '%s' (%.1f GiB of fp32 weights, %.0f GFLOP per pass) is too large for the "
              "cpu reference backend; use --dry-run, a GPU backend, or --force",
              p->name, need / (1 << 30), flops / 1e9);
        return B_USAGE;
    }
    if (vla_weights_layout(&w, p, 1)) {
        vla_weights_release(&w);
        return B_USAGE;
    }
    int rc = B_OK;
    if (o->weights) {
        if (vla_weights_load(&w, p, o->weights)) {
            vla_weights_release(&w);
            return B_USAGE;
        }
    } else {
        vla_weights_synthetic(&w, p, o->seed);
    }
    if (o->save && vla_weights_save(&w, p, o->save)) {
        vla_weights_release(&w);
        return B_USAGE;
    }
    struct vla_model m;
    if (vla_model_init_batch(&m, p, &w, &vla_ops_cpu, o->image, o->batch, 0)) {
        vla_weights_release(&w);
        return B_USAGE;
    }
    struct vla_inputs in;
    vla_inputs_synthetic_batch(&in, p, o->image, o->batch, o->seed);
    int ns = VLA_STAGES(p);
    float *actions = xcalloc((size_t)o->batch * p->chunk * p->action_dim, sizeof(float));
    double *times = xcalloc((size_t)o->runs * (ns + 1), sizeof(double));
    struct vla_stats st = {0};
    /* the cold pass also collects the layer statistics; the timed runs do
     * not, so their latency is the pass alone */
    double t0 = util_mono_s();
    if (vla_forward(&m, &in, actions, NULL, &st)) {
        rc = B_USAGE;
        goto out;
    }
    double cold = util_mono_s() - t0;
    for (int r = 0; r < o->runs; r++) {
        double *row = times + (size_t)r * (ns + 1);
        if (vla_forward(&m, &in, actions, row, NULL)) {
            rc = B_INTERNAL;
            goto out;
        }
        for (int s = 0; s < ns; s++)
            row[ns] += row[s];
    }
    struct stage_row *rows = xcalloc((size_t)ns + 1, sizeof(*rows));
    double *col = xcalloc((size_t)o->runs, sizeof(double));
    for (int s = 0; s <= ns; s++) {
        for (int r = 0; r < o->runs; r++)
            col[r] = times[(size_t)r * (ns + 1) + s];
        qsort(col, (size_t)o->runs, sizeof(double), cmp_double);
        rows[s].p50 = pct(col, o->runs, 0.50);
        rows[s].p90 = pct(col, o->runs, 0.90);
        rows[s].p99 = pct(col, o->runs, 0.99);
        if (s == 0)
            snprintf(rows[s].name, sizeof(rows[s].name), "vision");
        else if (s == 1)
            snprintf(rows[s].name, sizeof(rows[s].name), "prefix");
        else if (s < ns - 1)
            snprintf(rows[s].name, sizeof(rows[s].name), "step %d", s - 2);
        else if (s == ns - 1)
            snprintf(rows[s].name, sizeof(rows[s].name), "post");
        else
            snprintf(rows[s].name, sizeof(rows[s].name), "total");
    }
    free(col);
    struct bench_result res = {o,      p,   &w,     vla_weights_params(&w), flops, cold, rows,
                               ns + 1, &st, actions};
    int json_stdout = o->json && strcmp(o->json, "-") == 0;
    if (!json_stdout) { /* machine strings (paths, device names) made safe */
        struct text_safe ts;
        print_report(text_safe_begin(&ts, stdout), &res);
        text_safe_end(&ts);
    }
    if (o->out->f) {
        write_json(o->out->f, &res);
        if (outfile_close(o->out, 0))
            rc = B_USAGE;
    }
    if (rc == B_OK && st.first_bad >= 0)
        rc = B_FINDING;
    free(rows);
out:
    vla_stats_release(&st);
    free(times);
    free(actions);
    vla_inputs_release(&in);
    vla_model_release(&m);
    vla_weights_release(&w);
    return rc;
}

/* a GPU backend when one loads (auto), else the cpu reference */
static int bench_dispatch(const struct bench_opts *o, const struct vla_preset *p)
{
    if (vla_grid(p, o->image) < 1) {
        error("bench: --image-size %d is smaller than %d px (patch %d x merge %d) of preset '%s'",
              o->image, p->vision.patch * p->vision.merge, p->vision.patch, p->vision.merge,
              p->name);
        return B_USAGE;
    }
    if (strcmp(o->backend, "cpu") != 0 && !o->dry_run) {
        int grc = run_bench_gpu(o, p);
        if (grc >= 0)
            return grc;
    }
    if (o->profile) {
        error("bench: --profile times GPU kernels; the cpu backend has none");
        return B_USAGE;
    }
    if (strcmp(o->dtype, "fp32") != 0) {
        error("bench: --dtype %s needs a GPU backend; the cpu backend is the fp32 reference "
              "(use --dtype fp32)",
              o->dtype);
        return B_USAGE;
    }
    if (o->torch)
        fprintf(stderr, "rocm-vla-doctor bench: --torch sets PyTorch beside the GPU pass; no GPU "
                        "backend here, so the cpu pass runs alone\n");
    return run_bench(o, p);
}

static int bench_main(struct bench_opts *op);

int vla_cmd_bench(int argc, char **argv)
{
    struct bench_opts o = {0};
    o.rows = -1; /* the defaults after parsing (bench_defaults): --rows 0 is a value */
    /* the energy counters (hwmon, gpu_metrics) are read through rootfs */
    rootfs_init(NULL);
    int prc = bench_parse(argc, argv, &o);
    if (prc > 0) {
        strlist_release(&o.grid);
        return B_OK; /* --help, --version */
    }
    if (prc < 0) {
        strlist_release(&o.grid);
        return B_USAGE;
    }
    int rc = o.kernel_test ? vla_kernel_test(o.backend) : bench_main(&o);
    strlist_release(&o.grid);
    return rc;
}

static int bench_main(struct bench_opts *op)
{
    struct bench_opts o = *op;
    struct vla_preset p;
    if (vla_preset_find(&p, o.preset, o.models)) {
        vla_preset_release(&p);
        return B_USAGE;
    }
    if (!o.image)
        o.image = p.vision.image;
    /* the report file first: a bad path fails before the pass runs, and a
     * failed write keeps the previous report (src/core/outfile.c) */
    struct outfile jf = {0};
    o.out = &jf;
    if (o.json && !o.dry_run && outfile_open(&jf, o.json, 1)) {
        vla_preset_release(&p);
        return B_USAGE;
    }
    struct outfile hf = {0};
    if (o.html && outfile_open(&hf, o.html, 0)) {
        if (jf.f)
            outfile_close(&jf, 1);
        vla_preset_release(&p);
        return B_USAGE;
    }
    int rc;
    if (o.rate) {
        struct vla_rate_opts ro = {
            &p, o.backend, o.dtype, o.runs < 10 ? 30 : o.runs /* the default 5 */, o.rate, o.seed};
        rc = vla_bench_rate(&ro);
    } else if (o.sweep) {
        struct vla_sweep_opts so = {o.backend, o.models,     o.checks,
                                    &o.grid,   o.sweep == 2, o.runs,
                                    o.seed,    &jf,          o.json && strcmp(o.json, "-") == 0,
                                    &hf};
        rc = vla_sweep(&so, &p);
    } else {
        rc = bench_dispatch(&o, &p);
    }
    if (jf.f)
        outfile_close(&jf, 1); /* never written: the target stays as it was */
    if (hf.f)
        outfile_close(&hf, 1);
    vla_preset_release(&p);
    return rc;
}
