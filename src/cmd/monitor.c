/* monitor_cmd.c - `rocm-vla-doctor monitor`: the telemetry sampler
 * (telemetry.h) every --interval ms as JSON lines, CSV or aligned columns
 * (tel_table.h), to stdout or a file written in place and flushed per
 * sample (a recording is read while it grows). Without a format option a
 * terminal gets the columns and anything else (a file, a pipe) JSON lines,
 * today's default, so recordings and scripts read what they always did. SIGINT/SIGTERM only set a
 * flag: the sample being written is finished, the file closed, and the exit status is 0. */
#include "../telemetry/monitor.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/parse_options.h"
#include "../core/version.h"
#include "../core/outfile.h"
#include "../core/rootfs.h"
#include "../core/tmpdirs.h"
#include "../snapshot/snapshot.h"
#include "../telemetry/tel_table.h"
#include "../telemetry/tel_write.h"
#include "../telemetry/telemetry.h"

#define MON_INTERVAL_MIN 10
#define MON_INTERVAL_MAX 3600000
#define MON_COUNT_MAX 1000000000L

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
    stop_flag = sig; /* nonzero: the signal, for the line that says so */
}

struct mon_opts {
    const char *sysroot, *output;
    long interval, count;
    int fmt; /* FMT_* ; FMT_AUTO: by where the output goes */
};

enum { FMT_AUTO, FMT_JSON, FMT_CSV, FMT_TABLE };

/* --json, --csv and --table: one format, the same one given twice is fine */
static int opt_format(void *base, const struct optspec *spec, const char *v)
{
    (void)v;
    struct mon_opts *o = base;
    int fmt = !strcmp(spec->name, "csv")     ? FMT_CSV
              : !strcmp(spec->name, "table") ? FMT_TABLE
                                             : FMT_JSON;
    if (o->fmt != FMT_AUTO && o->fmt != fmt)
        return error("monitor: --json, --csv and --table exclude each other");
    o->fmt = fmt;
    return 0;
}

static void more_help(FILE *out)
{
    fputs("GPU telemetry every MS milliseconds (default 1000) until N samples or Ctrl-C:\n"
          "aligned columns on a terminal, JSON lines otherwise (the defaults), or the\n"
          "format asked for. Schema of the JSON: reports/monitor-schema.json.\n",
          out);
}

static const struct optspec monitor_opts[] = {
    OPT_SYSROOT(struct mon_opts, sysroot),
    OPT_INT(struct mon_opts, interval, "interval", MON_INTERVAL_MIN, MON_INTERVAL_MAX,
            "milliseconds", "MS", "the time between samples (default 1000)"),
    OPT_INT(struct mon_opts, count, "count", 1, MON_COUNT_MAX, NULL, "N",
            "stop after N samples (default: at Ctrl-C)"),
    OPT_CALLBACK("json", 0, OPTA_NONE, opt_format, OPTC_ANY, NULL,
                 "JSON lines (the default when not writing to a terminal)"),
    OPT_CALLBACK("csv", 0, OPTA_NONE, opt_format, OPTC_ANY, NULL, "CSV with a header line"),
    OPT_CALLBACK("table", 0, OPTA_NONE, opt_format, OPTC_ANY, NULL,
                 "aligned columns, a header every 20 rows (the default on a terminal)"),
    OPT_OUT(struct mon_opts, output, "output", 'o', "FILE|-", "where to write (default stdout)"),
    OPT_HELP_VERSION_END,
};

const struct cmd_spec monitor_spec = {
    "monitor",    "monitor", NULL, "Samples GPU telemetry as columns, JSON lines or CSV.",
    monitor_opts, more_help};

/* sleep ms, waking early on a stop signal */
static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (!stop_flag && nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

int monitor_cmd(int argc, char **argv)
{
    struct mon_opts mo = {NULL, "-", 0, 0, FMT_AUTO};
    int p = parse_options(argc, argv, &monitor_spec, &mo);
    if (p <= 0)
        return p == PARSE_DONE ? 0 : 2;
    if (mo.interval && mo.count == 1) { /* one sample waits for nothing */
        error("monitor: --interval is the time between samples; --count 1 takes one");
        return 2;
    }
    mo.interval = mo.interval ? mo.interval : 1000;
    if (p < argc) {
        error("monitor takes no arguments, not '%s'", argv[p]);
        return 2;
    }
    const char *sysroot = mo.sysroot, *output = mo.output;
    long interval = mo.interval, count = mo.count;
    struct outfile of;
    if (outfile_open_stream(&of, output, 1))
        return 2;
    int fmt = mo.fmt != FMT_AUTO                       ? mo.fmt
              : of.is_stdout && isatty(fileno(stdout)) ? FMT_TABLE
                                                       : FMT_JSON;
    struct tel_table table = TEL_TABLE_INIT;
    char *unpacked = NULL;
    if (sysroot_open(sysroot, &unpacked)) {
        outfile_close(&of, 1);
        return 2;
    }
    struct strlist bdfs = STRLIST_INIT;
    tel_list_amd(&bdfs);
    /* NVML reads the live GPU only: a snapshot replays sysfs */
    struct tel *t = tel_open(&bdfs, rootfs_is_live(), 1);
    if (!bdfs.n && !strstr(tel_nvml_status(t), "device(s)"))
        warning("monitor: no GPU found (no AMD GPU in sysfs; NVML: %s)", tel_nvml_status(t));

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop; /* no SA_RESTART: the sleep wakes up */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int failed = 0;
    long i = 0;
    if (fmt == FMT_CSV)
        tel_write_csv_header(of.f);
    for (; !stop_flag && (count == 0 || i < count); i++) {
        double t0 = util_mono_s();
        struct tel_sample s;
        tel_sample(t, &s);
        if (fmt == FMT_CSV)
            tel_write_csv(of.f, &s, i);
        else if (fmt == FMT_TABLE)
            tel_write_table(of.f, &table, &s);
        else
            tel_write_json(of.f, &s, i);
        tel_sample_release(&s);
        if (fflush(of.f) != 0 || ferror(of.f)) {
            failed = 1;
            break;
        }
        if (count && i + 1 >= count)
            break;
        long left = interval - (long)((util_mono_s() - t0) * 1000);
        if (left > 0)
            nap(left);
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (stop_flag) /* the recording ends early: say so, not silently */
        fprintf(stderr, "rocm-vla-doctor monitor: stopped by %s after %ld sample%s%s\n",
                tmpdirs_signal_name(stop_flag), i, i == 1 ? "" : "s",
                count ? " (fewer than --count asked)" : "");
    tel_table_release(&table);
    tel_close(t);
    strlist_release(&bdfs);
    sysroot_close(unpacked);
    if (outfile_close(&of, 0) || failed)
        return 3;
    return 0;
}
