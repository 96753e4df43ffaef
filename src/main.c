/* main.c - command line: one static command table, `commands[]` below
 * (check, list, explain, collect run here; bench, dashboard, diff, fleet,
 * report, monitor and soak parse their own options in their folders). Only
 * main() exits. Exit codes: 0 no failure, 1 a failure (or a warning with
 * --strict), 2 usage or configuration error, 3 internal error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../probes/fact_catalog.h"
#include "../probes/probe.h"
#include "../probes/probe_each_gpu.h"
#include "../probes/probe_python.h"
#include "core/children.h"
#include "core/checks.h"
#include "diff/diff.h"
#include "core/parse_options.h"
#include "core/outfile.h"
#include "report/report.h"
#include "report/report_prom.h"
#include "fleet/fleet.h"
#include "gpu/gpu_trace.h"
#include "report/report_doc.h"
#include "core/rootfs.h"
#include "snapshot/snapshot.h"
#include "core/tmpdirs.h"
#include "snapshot/snapshot_redact.h"
#include "soak/soak.h"
#include "telemetry/monitor.h"
#include "telemetry/telemetry.h"
#include "tui/tui.h"
#include "core/checks_man.h"
#include "core/suggest.h"
#include "core/util.h"
#include "core/version.h"
#include "explain_fix.h"
#include "cmd/bench.h"
#include "../probes/probe_torch.h"

enum { EXIT_OK = 0, EXIT_FINDING = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3 };

/* the report outputs of check: one row each, {option, value name, help,
 * writer, stdout allowed}; a new format is its writer and one row here */
#define CHECK_OUTPUTS(X)                                                                           \
    X(JSON, "json", "FILE|-", "the JSON report (reports/schema.json)", w_json, 1)                  \
    X(JUNIT, "junit", "FILE", "a JUnit XML report for CI", w_junit, 1)                             \
    X(PROM, "prom", "FILE|-", "Prometheus text for node_exporter's textfile collector", w_prom, 1) \
    X(HTML, "html", "FILE|-", "one self-contained HTML page", w_html, 1)                           \
    X(MD, "markdown", "FILE|-", "a markdown summary for an issue tracker", w_md, 1)

#define OUT_ENUM(id, ...) OUT_##id,
enum { CHECK_OUTPUTS(OUT_ENUM) OUT_N };

struct opts {
    enum level level;
    const char *sysroot;
    const char *out[OUT_N]; /* the CHECK_OUTPUTS paths, NULL when not asked */
    int no_redact;          /* --no-redact: keep host, user and home names in --markdown */
    int redact;             /* --redact: hide them in --html too */
    const char *checks;
    const char *output;    /* collect -o */
    const char *trace_gpu; /* --trace-gpu FILE (gpu/gpu_trace.h) */
    struct strlist only;
    int verbose, no_color, strict;
    int facts; /* list --facts */
    struct probe_opts probe;
};

static int load_checks(struct checkset *cs, const struct opts *o)
{
    return checks_load_default(cs, o->checks);
}

/* ---- the option tables (src/core/parse_options.h) ----------------------- */

static int opt_level(void *base, const struct optspec *spec, const char *v)
{
    if (strcmp(v, "soak") == 0)
        return error("--level soak: the soak checks judge a sustained run; run "
                     "'rocm-vla-doctor soak --duration 10m'");
    return opt_enum_check(spec, v) || level_parse(v, &((struct opts *)base)->level) ? -1 : 0;
}

static int opt_only(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    /* an empty id would select nothing, and no selection runs every check
     * (issue 30): refused, as a misspelt id is */
    size_t n = strlen(v);
    if (n == 0 || v[0] == ',' || v[n - 1] == ',' || strstr(v, ",,"))
        return error("--only '%s': an empty check id (give ID[,ID...], or leave --only out to "
                     "run every check)",
                     v);
    strlist_split(&((struct opts *)base)->only, v, ",");
    return 0;
}

static int opt_gpu(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    struct gpu_select sel;
    char why[300];
    if (gpu_select_parse(v, &sel, why, sizeof(why)))
        return error("%s", why);
    ((struct opts *)base)->probe.gpus = v;
    return 0;
}

static int opt_memtest(void *base, const struct optspec *spec, const char *v)
{
    (void)spec;
    double f;
    if (str_parse_double(v, &f) || !(f > 0 && f <= 0.9))
        return error("--memtest-fraction wants a share of the free VRAM above 0 and at most 0.9, "
                     "not '%s'",
                     v);
    ((struct opts *)base)->probe.memtest_fraction = f;
    return 0;
}

static const char *const level_values[] = {"quick", "standard", "full", NULL};
#define OUT_OPT(id, n, a, h, ...) OPT_OUT(struct opts, out[OUT_##id], n, 0, a, h),

static const struct optspec check_opts[] = {
    {.name = "level",
     .kind = OPTK_CALLBACK,
     .arg = OPTA_REQUIRED,
     .values = level_values,
     .cb = opt_level,
     .help = "the checks to run: quick reads files, standard and full measure the GPU"},
    OPT_SYSROOT(struct opts, sysroot),
    CHECK_OUTPUTS(OUT_OPT) /* --json --junit --prom --html --markdown */
    OPT_FLAG(struct opts, no_redact, "no-redact", 0,
             "keep host, user and home names in --markdown"),
    OPT_FLAG(struct opts, redact, "redact", 0,
             "hide host, user and home names in --html too, for sharing"),
    OPT_CALLBACK("only", 0, OPTA_REQUIRED, opt_only, OPTC_IDS, "ID,...",
                 "only these checks (and the probes they need)"),
    OPT_FLAG(struct opts, strict, "strict", 0, "a warning fails too (exit 1)"),
    OPT_CHECKS(struct opts, checks),
    OPT_REQUIREMENTS(struct opts, probe.requirements),
    OPT_PYTHON(struct opts, probe.python),
    OPT_PRESET(struct opts, probe.vla_preset),
    OPT_DTYPE(struct opts, probe.vla_dtype),
    OPT_CALLBACK("gpu", 0, OPTA_REQUIRED, opt_gpu, OPTC_ANY, "N[,M...]|all",
                 "the GPUs the per-GPU probes measure (default 0)"),
    OPT_CALLBACK("memtest-fraction", 0, OPTA_REQUIRED, opt_memtest, OPTC_ANY, "F",
                 "the share of free VRAM the memory test covers (0 < F <= 0.9)"),
    OPT_OUT(struct opts, trace_gpu, "trace-gpu", 0, "FILE",
            "record every HIP, HSA, hiprtc and rocBLAS call of the GPU probes, redacted"),
    OPT_VERBOSE(struct opts, verbose),
    OPT_NO_COLOR(struct opts, no_color),
    OPT_HELP_VERSION_END,
};

static const struct optspec list_opts[] = {
    OPT_CHECKS(struct opts, checks),
    OPT_FLAG(struct opts, facts, "facts", 0, "the fact catalogue instead of the checks"),
    OPT_HELP_VERSION_END,
};

static const struct optspec explain_opts[] = {
    OPT_CHECKS(struct opts, checks),
    OPT_HELP_VERSION_END,
};

static const struct optspec collect_opts[] = {
    OPT_OUT(struct opts, output, "output", 'o', "FILE.tar.gz",
            "the snapshot (default rocm-vla-doctor-HOST.tar.gz)"),
    {.name = "level",
     .kind = OPTK_CALLBACK,
     .arg = OPTA_REQUIRED,
     .values = level_values,
     .cb = opt_level,
     .help = "standard and full also run the GPU probes, for their call trace"},
    OPT_REQUIREMENTS(struct opts, probe.requirements),
    OPT_PYTHON(struct opts, probe.python),
    OPT_HELP_VERSION_END,
};

static void check_more_help(FILE *out);

static const struct cmd_spec check_spec = {
    "check",    NULL,
    NULL,       "Runs the checks of checks.yaml on this machine (or --sysroot's).",
    check_opts, check_more_help};
static const struct cmd_spec list_spec = {
    "list", "list", NULL, "Lists the checks (id, level, title).", list_opts, NULL};
static const struct cmd_spec explain_spec = {
    "explain", "explain", "ID", "What a check reads, its rules and its fix.", explain_opts, NULL};
static const struct cmd_spec collect_spec = {
    "collect",    "collect",
    NULL,         "Records what the probes read into a snapshot tarball for --sysroot.",
    collect_opts, NULL};

/* ---- commands --------------------------------------------------------- */

static int cmd_list(struct opts *o, int argc, char **argv)
{
    /* `list man` (not in the usage: `make man` runs it) prints the manual's
     * CHECKS block */
    int man = argc == 1 && strcmp(argv[0], "man") == 0;
    if (argc && !man)
        return error("list takes no arguments"), EXIT_USAGE;
    if (o->facts && o->checks)
        return error("list --facts prints the probes' fact catalogue; --checks does not apply"),
               EXIT_USAGE;
    if (o->facts) {
        fact_catalog_print(stdout);
        return EXIT_OK;
    }
    struct checkset cs;
    if (load_checks(&cs, o))
        return EXIT_USAGE;
    size_t w = 0;
    for (size_t i = 0; i < cs.n; i++)
        w = strlen(cs.v[i].id) > w ? strlen(cs.v[i].id) : w;
    if (man)
        checks_man_print(&cs, stdout);
    for (size_t i = 0; i < cs.n && !man; i++) { /* a title from the user's checks file: made safe */
        char *title = str_sanitize(cs.v[i].title, 0);
        printf("%-*s  %-8s  %s\n", (int)w, cs.v[i].id, level_name(cs.v[i].level), title);
        free(title);
    }
    checks_release(&cs);
    return EXIT_OK;
}

static int cmd_explain(struct opts *o, int argc, char **argv)
{
    if (argc != 1)
        return error("explain takes one check id"), EXIT_USAGE;
    struct checkset cs;
    if (load_checks(&cs, o))
        return EXIT_USAGE;
    const struct check *c = checks_find(&cs, argv[0]);
    if (!c) {
        checks_say_unknown(&cs, argv[0]);
        checks_release(&cs);
        return EXIT_USAGE;
    }
    /* a --checks file is text from outside: sanitised like machine text */
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s: %s\nlevel: %s%s\n\nWhy:\n  %s\n", c->id, c->title, level_name(c->level),
                c->per_gpu ? " (evaluated for every GPU; the worst wins)" : "", c->why);
    if (c->how)
        strbuf_addf(&sb, "\nHow it is measured:\n  %s\n", c->how);
    /* a consequence of these points at them instead of a fix of its own */
    for (size_t i = 0; i < c->ncauses; i++)
        strbuf_addf(&sb, "%s%s",
                    i ? ", " : "\nCaused by (when they do not pass either): ", c->causes[i]->id);
    if (c->ncauses)
        strbuf_addc(&sb, '\n');
    if (c->reads.n) {
        strbuf_addf(&sb, "\nFacts read:\n");
        for (size_t i = 0; i < c->reads.n; i++)
            strbuf_addf(&sb, "  %s\n", c->reads.v[i]);
    }
    explain_rules_fixes(&sb, c);
    char *safe = str_sanitize(sb.buf ? sb.buf : "", 1);
    fputs(safe, stdout);
    free(safe);
    strbuf_release(&sb);
    checks_release(&cs);
    return EXIT_OK;
}

static void iso_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* the exit status when several apply: the largest (internal 3 > usage or
 * an unwritable report 2 > a finding 1 > 0), so that a CI gate never reads
 * "the machine failed" when the report it wants was not written */
static int exit_worst(int a, int b)
{
    return a > b ? a : b;
}

/* what a writer draws from */
struct out_ctx {
    const struct report_meta *meta;
    const struct factset *fs;
    const struct results *res;
    const struct checkset *cs;
    int redact;
};

static int w_json(FILE *f, const struct out_ctx *c)
{
    return report_json_write(f, c->meta, c->fs, c->res);
}

static int w_junit(FILE *f, const struct out_ctx *c)
{
    return report_junit_write(f, c->meta, c->res);
}

static int w_prom(FILE *f, const struct out_ctx *c)
{
    return report_prom_write(f, c->meta, c->fs, c->res);
}

/* --html and --markdown: the JSON report rendered in memory and drawn from
 * (src/report/report_cmd.c), as `report` draws a file. 0, or -1 */
static int write_page(FILE *html, FILE *md, const struct out_ctx *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return error("cannot render the report in memory");
    int rc = w_json(mem, c);
    if (fclose(mem))
        rc = error("cannot render the report in memory");
    if (rc == 0)
        rc = report_render_json(html, md, buf, len, c->cs, c->redact);
    free(buf);
    return rc;
}

static int w_html(FILE *f, const struct out_ctx *c)
{
    return write_page(f, NULL, c);
}

static int w_md(FILE *f, const struct out_ctx *c)
{
    return write_page(NULL, f, c);
}

#define OUT_ROW(id, n, a, h, fn, std) {"--" n, fn, std},
static const struct output {
    const char *opt;
    int (*write)(FILE *f, const struct out_ctx *c);
    int allow_stdout;
} outputs[OUT_N] = {CHECK_OUTPUTS(OUT_ROW)};

/* the outputs are opened before anything is probed, so that a bad path
 * fails at once; written through a temporary file in the target's
 * directory and renamed (src/core/outfile.c), which is also what
 * node_exporter's textfile collector needs: it never reads half a file */
struct outputs {
    struct outfile f[OUT_N];
};

/* give up every output: the targets stay as they were */
static void outputs_abort(struct outputs *out)
{
    for (int i = 0; i < OUT_N; i++)
        if (out->f[i].f)
            outfile_close(&out->f[i], 1);
}

static int outputs_open(struct outputs *out, const struct opts *o)
{
    const char *const *path = o->out;
    memset(out, 0, sizeof(*out));
    /* the same file by another name too (./a.json, a link, /dev/stdout
     * and -), and the GPU trace among them (issue 30) */
    for (int i = 0; i <= OUT_N; i++)
        for (int j = i + 1; j <= OUT_N; j++) {
            const char *a = i < OUT_N ? path[i] : o->trace_gpu;
            const char *b = j < OUT_N ? path[j] : o->trace_gpu;
            if (!a || !b || !outfile_same(a, b))
                continue;
            const char *an = outputs[i].opt, *bn = j < OUT_N ? outputs[j].opt : "--trace-gpu";
            return strcmp(a, "-") && strcmp(b, "-")
                       ? error("%s and %s name the same file ('%s', '%s')", an, bn, a, b)
                       : error("%s and %s cannot both write to stdout", an, bn);
        }
    for (int i = 0; i < OUT_N; i++)
        if (path[i] && outfile_open(&out->f[i], path[i], outputs[i].allow_stdout)) {
            outputs_abort(out);
            return -1;
        }
    return 0;
}

/* every output asked for, each closed (renamed into place) after its
 * writer; the exit status 2 when one cannot be written (see exit_worst) */
static int outputs_write(struct outputs *outs, const struct out_ctx *c)
{
    int rc = EXIT_OK;
    for (int i = 0; i < OUT_N; i++) {
        if (!outs->f[i].f)
            continue;
        int failed = outputs[i].write(outs->f[i].f, c) != 0;
        if (outfile_close(&outs->f[i], failed))
            rc = EXIT_USAGE;
    }
    return rc;
}

/* the level the run reaches: --level, raised by the checks --only names
 * (as cmd_check raises it for their probes) */
static enum level run_level(const struct checkset *cs, const struct opts *o)
{
    enum level l = o->level;
    for (size_t i = 0; o->only.n && i < cs->n; i++)
        if (check_selected(&cs->v[i], &o->only) && cs->v[i].level > l)
            l = cs->v[i].level;
    return l;
}

/* an option that nothing of this run reads is refused (exit 2), not
 * dropped: the report would look as if it had been applied */
static int check_moot(const struct checkset *cs, const struct opts *o)
{
    enum level l = run_level(cs, o);
    if (o->redact && !o->out[OUT_HTML])
        return error("--redact hides names in the --html page; no --html FILE is written");
    if (o->no_redact && !o->out[OUT_MD])
        return error("--no-redact keeps names in the --markdown summary; no --markdown FILE is "
                     "written");
    /* under --sysroot the python probe reads the recorded answer; only the
     * torch probe (level full) runs an interpreter, and only the one named
     * here, its figures marked as this host's (torch.measured_on) */
    if (o->probe.python && o->sysroot && l < LEVEL_FULL)
        return error("--python under --sysroot runs that interpreter on this host for the torch "
                     "probe, at --level full (or with --only naming one of its checks), not at %s; "
                     "the python facts are the recorded machine's answer",
                     level_name(l));
    /* --memtest-fraction stays valid with --sysroot: the GPU probes run on
     * this host's devices whatever root the files are read from
     * (tests/gpus.sh measures its test devices under a fixture root) */
    if (l == LEVEL_QUICK && (o->trace_gpu || o->probe.memtest_fraction > 0))
        return error("%s: the GPU probes run at --level standard or full (or with --only naming "
                     "one of their checks), not at quick",
                     o->trace_gpu ? "--trace-gpu" : "--memtest-fraction");
    if (l < LEVEL_FULL && (o->probe.vla_preset || o->probe.vla_dtype))
        return error("%s: the VLA pass runs at --level full (or with --only naming one of its "
                     "checks), not at %s",
                     o->probe.vla_preset ? "--preset" : "--dtype", level_name(l));
    return 0;
}

static int cmd_check(struct opts *o, int argc, char **argv)
{
    if (argc)
        return error("unexpected argument '%s'", argv[0]), EXIT_USAGE;
    if (o->redact && o->no_redact)
        return error("--redact and --no-redact contradict each other"), EXIT_USAGE;
    struct outputs outs;
    if (outputs_open(&outs, o))
        return EXIT_USAGE;
    struct checkset cs;
    if (load_checks(&cs, o)) {
        outputs_abort(&outs);
        return EXIT_USAGE;
    }
    if (check_moot(&cs, o)) {
        outputs_abort(&outs);
        checks_release(&cs);
        return EXIT_USAGE;
    }
    if (o->probe.requirements && requirements_check_file(o->probe.requirements)) {
        outputs_abort(&outs);
        checks_release(&cs);
        return EXIT_USAGE;
    }
    char twhy[4200];
    if (o->trace_gpu && gpu_trace_open(o->trace_gpu, twhy, sizeof(twhy))) {
        error("%s", twhy);
        outputs_abort(&outs);
        checks_release(&cs);
        return EXIT_USAGE;
    }

    int rc = EXIT_OK;
    char *unpacked = NULL;
    if (sysroot_open(o->sysroot, &unpacked)) {
        gpu_trace_abort();
        outputs_abort(&outs);
        checks_release(&cs);
        return EXIT_USAGE;
    }

    char started[32];
    iso_now(started, sizeof(started));
    double t0 = util_mono_s();
    struct factset fs = FACTSET_INIT;
    struct probe_ctx pctx = {&fs, o->level, &o->probe, 0};
    struct strlist only_probes = STRLIST_INIT;
    if (o->only.n) {
        /* run what the selected checks need: their level, the probes of the
         * facts they read (the others' facts stay absent) */
        for (size_t i = 0; i < cs.n; i++) {
            const struct check *c = &cs.v[i];
            if (!check_selected(c, &o->only))
                continue;
            if (c->level > pctx.level)
                pctx.level = c->level;
            struct strlist facts = STRLIST_INIT;
            check_facts(c, &facts);
            probes_select(&facts, c->per_gpu, &only_probes);
            strlist_release(&facts);
        }
        probes_select_finish(&only_probes, pctx.level);
        o->probe.only_probes = &only_probes;
    }
    o->probe.checks = &cs; /* GPU probe budgets from `timeout:`, peaks, wheel data */
    int probed = -1;
    if (o->probe.gpus && pctx.level == LEVEL_QUICK)
        error("--gpu %s: the GPU probes run at --level standard or full (or with --only naming "
              "one of their checks), not at quick",
              o->probe.gpus);
    else
        probed = probes_run_all(&pctx);
    o->probe.only_probes = NULL;
    strlist_release(&only_probes);
    /* the GPU probes are done: the trace is renamed into place */
    if (probed)
        gpu_trace_abort();
    else
        gpu_trace_close();
    if (probed) { /* --gpu names a device the runtime does not show */
        factset_release(&fs);
        outputs_abort(&outs);
        rc = EXIT_USAGE;
        goto out;
    }

    struct results res;
    struct run_filter flt = {o->level, o->only.n ? &o->only : NULL};
    if (checks_run(&cs, &fs, &flt, &res)) {
        factset_release(&fs);
        outputs_abort(&outs);
        rc = EXIT_USAGE;
        goto out;
    }
    struct report_meta meta = {
        RVD_VERSION,
        level_name(o->level),
        o->sysroot,
        checks_origin(&cs),
        fact_str(&fs, "host.hostname"),
        fact_str(&fs, "kernel.release"),
        fact_str(&fs, "host.os"),
        started,
        util_mono_s() - t0,
        o->strict,
        fact_str(&fs, "rocm.support_data"),
    };
    int text_to_stdout = 1;
    for (int i = 0; i < OUT_N; i++)
        text_to_stdout &= !outs.f[i].is_stdout;
    struct out_ctx octx = {&meta, &fs, &res, &cs,
                           (o->no_redact ? 0 : REPORT_REDACT_MD) |
                               (o->redact ? REPORT_REDACT_HTML : 0)};
    rc = exit_worst(rc, outputs_write(&outs, &octx));
    FILE *tout = text_to_stdout ? stdout : stderr;
    int tty = isatty(fileno(tout));
    struct text_opts to = {tty && !o->no_color && !getenv("NO_COLOR"),
                           tty && !getenv("NO_COLOR") && !o->no_color, o->verbose, 0, &fs};
    report_text_write(tout, &meta, &res, &to);
    rc = exit_worst(rc, results_exit_code(&res, o->strict));
    results_release(&res);
    factset_release(&fs);
out:
    sysroot_close(unpacked);
    checks_release(&cs);
    return rc;
}

/* collect --level standard: the GPU calls, in /.snapshot/gpu-trace.txt */
static int collect_trace_open(const char *stage)
{
    char *dir = xasprintf("%s" ROOTFS_SNAPSHOT_DIR, stage);
    char *path = xasprintf("%s/gpu-trace.txt", dir);
    char why[4200];
    int e = 0;
    if (mkdir(dir, 0755) && errno != EEXIST)
        e = error("cannot create '%s': %s", dir, strerror(errno));
    else if ((e = gpu_trace_open(path, why, sizeof(why))))
        error("%s", why);
    free(path);
    free(dir);
    return e;
}

static int cmd_collect(struct opts *o, int argc, char **argv)
{
    if (argc)
        return error("unexpected argument '%s'", argv[0]), EXIT_USAGE;
    if (o->probe.requirements && requirements_check_file(o->probe.requirements))
        return EXIT_USAGE;
    char *tmpl = tmpdirs_template("rocm-vla-doctor-collect."); /* under $TMPDIR */
    char *stage = tmpdirs_make(tmpl); /* removed also when collect is killed */
    if (!stage) {
        error("cannot create a private directory: %s", strerror(errno));
        free(tmpl);
        return EXIT_INTERNAL;
    }
    int rc = EXIT_OK;
    rootfs_init(NULL);
    struct factset fs = FACTSET_INIT;
    /* collect records what the host-level probes read; GPU probes measure
     * and are not replayable from files, but at --level standard or full
     * they run for their call trace, a member of the snapshot */
    struct probe_ctx pctx = {&fs, o->level, &o->probe, 0};
    int rec = rootfs_record_start(stage);
    if (rec)
        error("cannot create the staging directory '%s': %s", stage, strerror(-rec));
    else if (o->level > LEVEL_QUICK && collect_trace_open(stage))
        rc = EXIT_USAGE;
    else
        probes_run_all(&pctx);
    gpu_trace_close();
    if (rootfs_record_stop() || rec)
        rc = EXIT_USAGE;

    /* only what the probes read of passwd, group and dpkg's status */
    if (rc == EXIT_OK && snapshot_redact(stage))
        rc = EXIT_USAGE;
    /* the manifest: what makes a tarball a snapshot for --sysroot */
    char when[32];
    iso_now(when, sizeof(when));
    if (rc == EXIT_OK && snapshot_write_meta(stage, RVD_VERSION, when))
        rc = EXIT_USAGE;
    const char *host = fact_str(&fs, "host.hostname");
    char *out = o->output ? xstrdup(o->output)
                          : xasprintf("rocm-vla-doctor-%s.tar.gz", host ? host : "snapshot");
    if (rc == EXIT_OK && snapshot_pack(stage, out))
        rc = EXIT_USAGE;
    if (rc == EXIT_OK)
        eprint_safe("rocm-vla-doctor: snapshot written to %s\n", out); /* the host's name */
    else
        error("collect failed: no snapshot written");
    free(out);
    factset_release(&fs);
    rootfs_release();
    snapshot_remove_tree(stage);
    free(tmpl);
    return rc;
}

static const struct command {
    const char *name;
    int (*fn)(struct opts *o, int argc, char **argv);
    int (*own_opts)(int argc, char **argv); /* a command that parses its own options */
    const struct cmd_spec *spec;            /* its option table */
} commands[] = {
    /* one command per line */
    /* clang-format off */
    {"check", cmd_check, NULL, &check_spec},
    {"list", cmd_list, NULL, &list_spec},
    {"explain", cmd_explain, NULL, &explain_spec},
    {"collect", cmd_collect, NULL, &collect_spec},
    {"bench", NULL, vla_cmd_bench, &bench_spec},
    {"dashboard", NULL, tui_cmd_dashboard, &dashboard_spec},
    {"diff", NULL, diff_cmd, &diff_spec},
    {"fleet", NULL, fleet_cmd, &fleet_spec},
    {"report", NULL, report_cmd, &report_spec},
    {"monitor", NULL, monitor_cmd, &monitor_spec},
    {"soak", NULL, soak_cmd, &soak_spec},
    /* clang-format on */
};

/* the top-level --help: check's options after every command's synopsis */
static void check_more_help(FILE *out)
{
    fputs("commands:\n", out);
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        const struct cmd_spec *cs = commands[i].spec;
        fprintf(out, "  rocm-vla-doctor %s%s%s [options]\n      %s\n", cs->name,
                cs->args ? " " : "", cs->args ? cs->args : "", cs->summary);
    }
    fputs("'rocm-vla-doctor COMMAND --help' lists a command's options.\n"
          "See rocm-vla-doctor(1) and checks.yaml(5).\n",
          out);
}

/* `__complete-table`: the bash completion's data from the option tables
 * (completion/rocm-vla-doctor.bash holds it between its generated marks) */
static int complete_table(void)
{
    const struct cmd_spec *specs[ARRAY_SIZE(commands)];
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        specs[i] = commands[i].spec;
    parse_options_complete_table(stdout, specs, ARRAY_SIZE(commands));
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    struct opts o = {0};
    o.level = LEVEL_QUICK;
    const struct command *cmd = &commands[0];
    int first = 1;
    /* every command validates checks files against the probes' catalogue */
    checks_set_schema(&fact_catalog_schema);
    if (argc == 2 && strcmp(argv[1], "__complete-table") == 0)
        return complete_table();
    /* the telemetry value table (tel_keys.h) that tools/gen_monitor_schema.py
     * writes reports/monitor-schema.json's lists from */
    if (argc == 2 && strcmp(argv[1], "__monitor-keys") == 0) {
        for (int k = 0; k < TEL_NKEYS; k++)
            printf("%s\t%s\t%s\n", tel_key_name(k), tel_key_unit(k), tel_key_meaning(k));
        return 0;
    }
    if (argc > 1 && argv[1][0] != '-') {
        cmd = NULL;
        for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                cmd = &commands[i];
        if (!cmd) {
            char hint[32];
            struct suggest sg;
            suggest_init(&sg, argv[1], hint, sizeof(hint));
            for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
                suggest_consider(&sg, commands[i].name);
            if (suggest_best(&sg))
                error("unknown command '%s' (did you mean '%s'?)", argv[1], hint);
            else
                error("unknown command '%s'", argv[1]);
            parse_options_usage_short(stderr, &check_spec);
            return EXIT_USAGE;
        }
        first = 2;
    }
    /* a signal now removes what the run left unfinished and says so */
    children_start(); /* the probes' children are ours to end (children.h) */
    tmpdirs_install(cmd->name);
    if (first == 2) {
        if (cmd->own_opts)
            return cmd->own_opts(argc - 1, argv + 1);
    }
    /* argv[0] and the words after the command */
    int ac = argc - first + 1;
    char **av = xcalloc((size_t)ac + 1, sizeof(char *));
    av[0] = argv[0];
    for (int i = first; i < argc; i++)
        av[i - first + 1] = argv[i];
    int p = parse_options(ac, av, cmd->spec, &o);
    int rc = p == PARSE_DONE    ? EXIT_OK
             : p == PARSE_ERROR ? EXIT_USAGE
                                : cmd->fn(&o, ac - p, av + p);
    free(av);
    strlist_release(&o.only);
    fflush(stdout);
    if (ferror(stdout))
        return EXIT_INTERNAL;
    return rc;
}
