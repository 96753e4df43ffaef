/* monitor_cmd.c - `rocm-vla-doctor monitor`: the telemetry sampler
 * (telemetry.h) every --interval ms as JSON lines or CSV, to stdout or a
 * file written in place and flushed per sample (a recording is read while
 * it grows). SIGINT/SIGTERM only set a flag: the sample being written is
 * finished, the file closed, and the exit status is 0. */
#include "monitor.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/opts.h"
#include "../core/version.h"
#include "../core/outfile.h"
#include "../core/rootfs.h"
#include "../snapshot/snapshot.h"
#include "tel_write.h"
#include "telemetry.h"

#define MON_INTERVAL_MIN 10
#define MON_INTERVAL_MAX 3600000
#define MON_COUNT_MAX 1000000000L

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void usage(FILE *out)
{
    fputs("usage: rocm-vla-doctor monitor [--sysroot DIR|TARBALL] [--interval MS] [--count N]\n"
          "                               [--json|--csv] [-o FILE]\n"
          "GPU telemetry every MS milliseconds (default 1000) as JSON lines (default) or\n"
          "CSV, until N samples or Ctrl-C. Schema: reports/monitor-schema.json.\n",
          out);
}

/* sleep ms, waking early on a stop signal */
static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (!stop_flag && nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

int monitor_cmd(int argc, char **argv)
{
    enum { O_SYSROOT = 256, O_INTERVAL, O_COUNT, O_JSON, O_CSV, O_HELP, O_VERSION };
    static const struct option longopts[] = {
        {"sysroot", required_argument, NULL, O_SYSROOT},
        {"interval", required_argument, NULL, O_INTERVAL},
        {"count", required_argument, NULL, O_COUNT},
        {"json", no_argument, NULL, O_JSON},
        {"csv", no_argument, NULL, O_CSV},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    const char *sysroot = NULL, *output = "-";
    long interval = 1000, count = 0;
    int csv = 0, fmt_given = 0, c;
    optind = 1;
    while ((c = opt_next(argc, argv, "ho:", longopts, "monitor")) != -1) {
        int64_t v;
        switch (c) {
        case O_SYSROOT:
            sysroot = optarg;
            break;
        case O_INTERVAL:
            if (str_parse_i64(optarg, &v) || v < MON_INTERVAL_MIN || v > MON_INTERVAL_MAX) {
                error("monitor: --interval must be %d to %d milliseconds, not '%s'",
                      MON_INTERVAL_MIN, MON_INTERVAL_MAX, optarg);
                return 2;
            }
            interval = (long)v;
            break;
        case O_COUNT:
            if (str_parse_i64(optarg, &v) || v < 1 || v > MON_COUNT_MAX) {
                error("monitor: --count must be 1 to %ld, not '%s'", MON_COUNT_MAX, optarg);
                return 2;
            }
            count = (long)v;
            break;
        case O_JSON:
        case O_CSV:
            if (fmt_given && csv != (c == O_CSV)) {
                error("monitor: --json and --csv exclude each other");
                return 2;
            }
            fmt_given = 1;
            csv = c == O_CSV;
            break;
        case 'o':
            output = optarg;
            break;
        case 'h':
        case O_HELP:
            usage(stdout);
            return 0;
        case O_VERSION:
            version_print(stdout);
            return 0;
        default: /* OPT_ERROR: opt_next printed why */
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        error("monitor takes no arguments, not '%s'", argv[optind]);
        return 2;
    }
    struct outfile of;
    if (outfile_open_stream(&of, output, 1))
        return 2;
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
    if (csv)
        tel_write_csv_header(of.f);
    for (long i = 0; !stop_flag && (count == 0 || i < count); i++) {
        double t0 = util_mono_s();
        struct tel_sample s;
        tel_sample(t, &s);
        if (csv)
            tel_write_csv(of.f, &s, i);
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
    tel_close(t);
    strlist_release(&bdfs);
    sysroot_close(unpacked);
    if (outfile_close(&of, 0) || failed)
        return 3;
    return 0;
}
