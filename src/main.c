/* main.c - command line: a static command table (check, list, explain,
 * collect). Only main() exits. Exit codes: 0 no failure, 1 a failure (or a
 * warning with --strict), 2 usage or configuration error, 3 internal error. */
#include <errno.h>
#include <getopt.h>
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
#include "core/checks.h"
#include "diff/diff.h"
#include "core/opts.h"
#include "core/outfile.h"
#include "report/report.h"
#include "report/report_prom.h"
#include "fleet/fleet.h"
#include "report/report_doc.h"
#include "core/rootfs.h"
#include "snapshot/snapshot.h"
#include "core/tmpdirs.h"
#include "snapshot/snapshot_redact.h"
#include "soak/soak.h"
#include "telemetry/monitor.h"
#include "tui/tui.h"
#include "core/util.h"
#include "core/version.h"
#include "vla/vla_cli.h"

enum { EXIT_OK = 0, EXIT_FINDING = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3 };

struct opts {
    enum level level;
    const char *sysroot;
    const char *json;
    const char *junit;
    const char *prom;     /* --prom: Prometheus text for the textfile collector */
    const char *html;     /* --html: one self-contained page */
    const char *markdown; /* --markdown: a summary for an issue tracker */
    int no_redact;        /* --no-redact: keep host, user and home names in --markdown */
    const char *checks;
    const char *output; /* collect -o */
    struct strlist only;
    int verbose, no_color, strict;
    int facts; /* list --facts */
    struct probe_opts probe;
};

static void usage(FILE *out)
{
    fputs("usage: rocm-vla-doctor [check] [--level quick|standard|full] [--sysroot DIR|TARBALL]\n"
          "                       [--json FILE|-] [--junit FILE] [--prom FILE|-] [--only ID,...]\n"
          "                       [--strict] [--html FILE|-] [--markdown FILE|-] [--no-redact]\n"
          "                       [--checks FILE] [--requirements FILE] [--python PATH]\n"
          "                       [--preset NAME|FILE] [--dtype bf16|fp16|fp32] [-v] [--no-color]\n"
          "                       [--gpu N[,M...]|all] [--memtest-fraction F]\n"
          "       rocm-vla-doctor list [--checks FILE] | list --facts\n"
          "       rocm-vla-doctor explain ID [--checks FILE]\n"
          "       rocm-vla-doctor collect [-o FILE.tar.gz] [--requirements FILE] [--python PATH]\n"
          "       rocm-vla-doctor bench --preset NAME [--dtype fp32|bf16|fp16] [--weights F] "
          "[--runs N] ...\n"
          "       rocm-vla-doctor dashboard [--interval MS] [--sysroot DIR|TARBALL] [--once]\n"
          "                                 [--workload PRESET [--workload-interval S]]\n"
          "       rocm-vla-doctor monitor [--sysroot DIR|TARBALL] [--interval MS] [--count N]\n"
          "                               [--json|--csv] [-o FILE]\n"
          "       rocm-vla-doctor soak --duration T [--preset NAME] [--dtype bf16|fp16|fp32] "
          "[--json FILE]\n"
          "       rocm-vla-doctor diff BASELINE.json CURRENT.json [--json FILE|-] [--tolerance "
          "N=PCT]\n"
          "       rocm-vla-doctor fleet REPORT.json...|DIR [--json FILE|-] [--html FILE|-]\n"
          "                             [--tolerance NAME=PCT]\n"
          "       rocm-vla-doctor report [--html FILE|-] [--markdown FILE|-] [--no-redact] "
          "REPORT.json\n"
          "       rocm-vla-doctor --help | --version\n"
          "See rocm-vla-doctor(1) and checks.yaml(5).\n",
          out);
}

static int load_checks(struct checkset *cs, const struct opts *o)
{
    return checks_load_default(cs, o->checks);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    enum {
        O_LEVEL = 256,
        O_SYSROOT,
        O_JSON,
        O_JUNIT,
        O_ONLY,
        O_NOCOLOR,
        O_STRICT,
        O_CHECKS,
        O_REQ,
        O_PYTHON,
        O_HELP,
        O_VERSION,
        O_PRESET,
        O_DTYPE,
        O_FACTS,
        O_PROM,
        O_HTML,
        O_MARKDOWN,
        O_NOREDACT,
        O_GPU,
        O_MEMTEST
    };
    static const struct option longopts[] = {
        {"level", required_argument, NULL, O_LEVEL},
        {"sysroot", required_argument, NULL, O_SYSROOT},
        {"json", required_argument, NULL, O_JSON},
        {"junit", required_argument, NULL, O_JUNIT},
        {"prom", required_argument, NULL, O_PROM},
        {"only", required_argument, NULL, O_ONLY},
        {"no-color", no_argument, NULL, O_NOCOLOR},
        {"strict", no_argument, NULL, O_STRICT},
        {"checks", required_argument, NULL, O_CHECKS},
        {"requirements", required_argument, NULL, O_REQ},
        {"python", required_argument, NULL, O_PYTHON},
        {"preset", required_argument, NULL, O_PRESET},
        {"dtype", required_argument, NULL, O_DTYPE},
        {"facts", no_argument, NULL, O_FACTS},
        {"html", required_argument, NULL, O_HTML},
        {"markdown", required_argument, NULL, O_MARKDOWN},
        {"no-redact", no_argument, NULL, O_NOREDACT},
        {"gpu", required_argument, NULL, O_GPU},
        {"memtest-fraction", required_argument, NULL, O_MEMTEST},
        {"output", required_argument, NULL, 'o'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = opt_next(argc, argv, "+vo:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_ERROR:
            return -1;
        case O_LEVEL:
            if (level_parse(optarg, &o->level))
                return error("--level must be quick, standard or full, not '%s'", optarg);
            if (o->level == LEVEL_SOAK)
                return error("--level soak: the soak checks judge a sustained run; run "
                             "'rocm-vla-doctor soak --duration 10m'");
            break;
        case O_SYSROOT:
            o->sysroot = optarg;
            break;
        case O_JSON:
            o->json = optarg;
            break;
        case O_JUNIT:
            o->junit = optarg;
            break;
        case O_PROM:
            o->prom = optarg;
            break;
        case O_ONLY:
            strlist_split(&o->only, optarg, ",");
            break;
        case O_NOCOLOR:
            o->no_color = 1;
            break;
        case O_STRICT:
            o->strict = 1;
            break;
        case O_CHECKS:
            o->checks = optarg;
            break;
        case O_REQ:
            o->probe.requirements = optarg;
            break;
        case O_PYTHON:
            o->probe.python = optarg;
            break;
        case O_PRESET:
            o->probe.vla_preset = optarg;
            break;
        case O_DTYPE:
            if (strcmp(optarg, "bf16") && strcmp(optarg, "fp16") && strcmp(optarg, "fp32"))
                return error("--dtype must be bf16, fp16 or fp32, not '%s'", optarg);
            o->probe.vla_dtype = optarg;
            break;
        case O_GPU: {
            struct gpu_select sel;
            char why[300];
            if (gpu_select_parse(optarg, &sel, why, sizeof(why)))
                return error("%s", why);
            o->probe.gpus = optarg;
            break;
        }
        case O_MEMTEST: {
            double f;
            if (str_parse_double(optarg, &f) || !(f > 0 && f <= 0.9))
                return error("--memtest-fraction wants a share of the free VRAM above 0 and at "
                             "most 0.9, not '%s'",
                             optarg);
            o->probe.memtest_fraction = f;
            break;
        }
        case 'o':
            o->output = optarg;
            break;
        case O_FACTS:
            o->facts = 1;
            break;
        case O_HTML:
            o->html = optarg;
            break;
        case O_MARKDOWN:
            o->markdown = optarg;
            break;
        case O_NOREDACT:
            o->no_redact = 1;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'h':
        case O_HELP:
            usage(stdout);
            exit(EXIT_OK);
        case O_VERSION:
            version_print(stdout);
            exit(EXIT_OK);
        default:
            return error("unhandled option '%s'", argv[optind - 1]);
        }
    }
    return 0;
}

/* ---- commands --------------------------------------------------------- */

static int cmd_list(struct opts *o, int argc, char **argv)
{
    (void)argv;
    if (argc)
        return error("list takes no arguments"), EXIT_USAGE;
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
    for (size_t i = 0; i < cs.n; i++)
        printf("%-*s  %-8s  %s\n", (int)w, cs.v[i].id, level_name(cs.v[i].level), cs.v[i].title);
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
        error("no check named '%s' (see 'rocm-vla-doctor list')", argv[0]);
        checks_release(&cs);
        return EXIT_USAGE;
    }
    /* a --checks file is text from outside: sanitised like machine text */
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s: %s\nlevel: %s%s\n\nWhy:\n  %s\n", c->id, c->title, level_name(c->level),
                c->per_gpu ? " (evaluated for every GPU; the worst wins)" : "", c->why);
    if (c->how)
        strbuf_addf(&sb, "\nHow it is measured:\n  %s\n", c->how);
    if (c->reads.n) {
        strbuf_addf(&sb, "\nFacts read:\n");
        for (size_t i = 0; i < c->reads.n; i++)
            strbuf_addf(&sb, "  %s\n", c->reads.v[i]);
    }
    strbuf_addf(&sb, "\nRules (first match wins):\n");
    for (size_t i = 0; i < c->nskip; i++)
        strbuf_addf(&sb, "  skip when %s\n", c->skip[i].when_src);
    for (size_t i = 0; i < c->nfail; i++)
        strbuf_addf(&sb, "  fail when %s\n", c->fail[i].when_src);
    for (size_t i = 0; i < c->nwarn; i++)
        strbuf_addf(&sb, "  warn when %s\n", c->warn[i].when_src);
    strbuf_addf(&sb, "  otherwise pass\n");
    if (c->fix)
        strbuf_addf(&sb, "\nFix:\n  %s\n", c->fix);
    for (size_t i = 0; i < c->nfail; i++)
        if (c->fail[i].fix)
            strbuf_addf(&sb, "  (when %s) %s\n", c->fail[i].when_src, c->fail[i].fix);
    for (size_t i = 0; i < c->nwarn; i++)
        if (c->warn[i].fix)
            strbuf_addf(&sb, "  (when %s) %s\n", c->warn[i].when_src, c->warn[i].fix);
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

static const char *fact_str(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

/* the exit status when several apply: the largest (internal 3 > usage or
 * an unwritable report 2 > a finding 1 > 0), so that a CI gate never reads
 * "the machine failed" when the report it wants was not written */
static int exit_worst(int a, int b)
{
    return a > b ? a : b;
}

/* --json, --junit, --prom, --html and --markdown: opened before anything
 * is probed, so that a bad path fails at once; written through a temporary
 * file in the target's directory and renamed (src/core/outfile.c), which is
 * also what node_exporter's textfile collector needs: it never reads half a
 * file */
enum { OUT_JSON, OUT_JUNIT, OUT_PROM, OUT_HTML, OUT_MD, OUT_N };
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
    static const char *const opt[OUT_N] = {"--json", "--junit", "--prom", "--html", "--markdown"};
    const char *path[OUT_N] = {o->json, o->junit, o->prom, o->html, o->markdown};
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < OUT_N; i++)
        for (int j = i + 1; j < OUT_N; j++)
            if (path[i] && path[j] && strcmp(path[i], path[j]) == 0)
                return strcmp(path[i], "-")
                           ? error("%s and %s name the same file '%s'", opt[i], opt[j], path[i])
                           : error("%s and %s cannot both write to stdout", opt[i], opt[j]);
    for (int i = 0; i < OUT_N; i++)
        if (path[i] && outfile_open(&out->f[i], path[i], 1)) {
            outputs_abort(out);
            return -1;
        }
    return 0;
}

/* --html and --markdown: the JSON report rendered in memory and drawn from
 * (src/report/report_cmd.c), as `report` draws a file. 0, or -1 */
static int write_pages(struct outputs *outs, const struct report_meta *meta,
                       const struct factset *fs, const struct results *res,
                       const struct checkset *cs, int redact)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return error("cannot render the report in memory");
    int rc = report_json_write(mem, meta, fs, res);
    if (fclose(mem))
        rc = error("cannot render the report in memory");
    if (rc == 0)
        rc = report_render_json(outs->f[OUT_HTML].f, outs->f[OUT_MD].f, buf, len, cs, redact);
    free(buf);
    return rc;
}

static int cmd_check(struct opts *o, int argc, char **argv)
{
    if (argc)
        return error("unexpected argument '%s'", argv[0]), EXIT_USAGE;
    struct outputs outs;
    if (outputs_open(&outs, o))
        return EXIT_USAGE;
    struct checkset cs;
    if (load_checks(&cs, o)) {
        outputs_abort(&outs);
        return EXIT_USAGE;
    }
    if (o->probe.requirements && requirements_check_file(o->probe.requirements)) {
        outputs_abort(&outs);
        checks_release(&cs);
        return EXIT_USAGE;
    }

    int rc = EXIT_OK;
    char *unpacked = NULL;
    if (sysroot_open(o->sysroot, &unpacked)) {
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
        /* run what the selected checks need: their level, their probes */
        for (size_t i = 0; i < cs.n; i++) {
            const struct check *c = &cs.v[i];
            if (!check_selected(c, &o->only))
                continue;
            if (c->level > pctx.level)
                pctx.level = c->level;
            if (c->probe && !strlist_has(&only_probes, c->probe))
                strlist_add(&only_probes, c->probe);
        }
        o->probe.only_probes = &only_probes;
    }
    probes_set_checks(&cs); /* GPU probe budgets from `timeout:` */
    int probed = -1;
    if (o->probe.gpus && pctx.level == LEVEL_QUICK)
        error("--gpu %s: the GPU probes run at --level standard or full (or with --only naming "
              "one of their checks), not at quick",
              o->probe.gpus);
    else
        probed = probes_run_all(&pctx);
    o->probe.only_probes = NULL;
    strlist_release(&only_probes);
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
    };
    /* a report that cannot be written is exit 2 (see exit_worst) */
    int text_to_stdout = 1;
    for (int i = 0; i < OUT_N; i++)
        text_to_stdout &= !outs.f[i].is_stdout;
    if (outs.f[OUT_JSON].f) {
        int failed = report_json_write(outs.f[OUT_JSON].f, &meta, &fs, &res) != 0;
        if (outfile_close(&outs.f[OUT_JSON], failed))
            rc = exit_worst(rc, EXIT_USAGE);
    }
    if (outs.f[OUT_JUNIT].f) {
        int failed = report_junit_write(outs.f[OUT_JUNIT].f, &meta, &res) != 0;
        if (outfile_close(&outs.f[OUT_JUNIT], failed))
            rc = exit_worst(rc, EXIT_USAGE);
    }
    if (outs.f[OUT_PROM].f) {
        int failed = report_prom_write(outs.f[OUT_PROM].f, &meta, &fs, &res) != 0;
        if (outfile_close(&outs.f[OUT_PROM], failed))
            rc = exit_worst(rc, EXIT_USAGE);
    }
    if (outs.f[OUT_HTML].f || outs.f[OUT_MD].f) {
        int failed = write_pages(&outs, &meta, &fs, &res, &cs, !o->no_redact) != 0;
        for (int i = OUT_HTML; i <= OUT_MD; i++)
            if (outs.f[i].f && outfile_close(&outs.f[i], failed))
                rc = exit_worst(rc, EXIT_USAGE);
    }
    FILE *tout = text_to_stdout ? stdout : stderr;
    int tty = isatty(fileno(tout));
    struct text_opts to = {tty && !o->no_color && !getenv("NO_COLOR"),
                           tty && !getenv("NO_COLOR") && !o->no_color, o->verbose, 0};
    report_text_write(tout, &meta, &res, &to);
    rc = exit_worst(rc, results_exit_code(&res, o->strict));
    results_release(&res);
    factset_release(&fs);
out:
    sysroot_close(unpacked);
    checks_release(&cs);
    return rc;
}

static int cmd_collect(struct opts *o, int argc, char **argv)
{
    if (argc)
        return error("unexpected argument '%s'", argv[0]), EXIT_USAGE;
    if (o->sysroot)
        return error("collect records the live host; --sysroot does not apply"), EXIT_USAGE;
    if (o->probe.gpus)
        return error("collect records files, no GPU is measured; --gpu does not apply"), EXIT_USAGE;
    if (o->probe.requirements && requirements_check_file(o->probe.requirements))
        return EXIT_USAGE;
    char tmpl[] = "/tmp/rocm-vla-doctor-collect.XXXXXX";
    char *stage = tmpdirs_make(tmpl); /* removed also when collect is killed */
    if (!stage)
        return error("cannot create a private directory: %s", strerror(errno)), EXIT_INTERNAL;
    int rc = EXIT_OK;
    rootfs_init(NULL);
    struct factset fs = FACTSET_INIT;
    /* collect records what the host-level probes read; GPU probes measure
     * and are not replayable from files */
    struct probe_ctx pctx = {&fs, LEVEL_QUICK, &o->probe, 0};
    int rec = rootfs_record_start(stage);
    if (rec)
        error("cannot create the staging directory '%s': %s", stage, strerror(-rec));
    else
        probes_run_all(&pctx);
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
    return rc;
}

static const struct command {
    const char *name;
    int (*fn)(struct opts *o, int argc, char **argv);
    int (*own_opts)(int argc, char **argv); /* a command that parses its own options */
} commands[] = {
    /* one command per line */
    /* clang-format off */
    {"check", cmd_check, NULL},
    {"list", cmd_list, NULL},
    {"explain", cmd_explain, NULL},
    {"collect", cmd_collect, NULL},
    {"bench", NULL, vla_cmd_bench},
    {"dashboard", NULL, tui_cmd_dashboard},
    {"diff", NULL, diff_cmd},
    {"fleet", NULL, fleet_cmd},
    {"report", NULL, report_cmd},
    {"monitor", NULL, monitor_cmd},
    {"soak", NULL, soak_cmd},
    /* clang-format on */
};

int main(int argc, char **argv)
{
    struct opts o = {0};
    o.level = LEVEL_QUICK;
    const struct command *cmd = &commands[0];
    int first = 1;
    /* every command validates checks files against the probes' catalogue */
    checks_set_schema(&fact_catalog_schema);
    if (argc > 1 && argv[1][0] != '-') {
        cmd = NULL;
        for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                cmd = &commands[i];
        if (!cmd) {
            error("unknown command '%s'", argv[1]);
            usage(stderr);
            return EXIT_USAGE;
        }
        first = 2;
        if (cmd->own_opts)
            return cmd->own_opts(argc - 1, argv + 1);
    }
    /* options may come before or after positional arguments */
    struct strlist pos = STRLIST_INIT;
    int ac = argc - first + 1;
    char **av = xcalloc((size_t)ac + 1, sizeof(char *));
    av[0] = argv[0];
    for (int i = first; i < argc; i++)
        av[i - first + 1] = argv[i];
    optind = 1;
    for (;;) {
        if (parse_opts(ac, av, &o)) {
            usage(stderr);
            free(av);
            strlist_release(&pos);
            strlist_release(&o.only);
            return EXIT_USAGE;
        }
        if (optind >= ac)
            break;
        strlist_add(&pos, av[optind]);
        /* shift the positional argument out and continue parsing */
        for (int i = optind; i + 1 < ac; i++)
            av[i] = av[i + 1];
        ac--;
    }
    int rc = o.facts && cmd->fn != cmd_list ? (error("--facts goes with 'list' only"), EXIT_USAGE)
                                            : cmd->fn(&o, (int)pos.n, pos.v);
    free(av);
    strlist_release(&pos);
    strlist_release(&o.only);
    fflush(stdout);
    if (ferror(stdout))
        return EXIT_INTERNAL;
    return rc;
}
