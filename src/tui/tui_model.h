/* tui_model.h - what the dashboard shows: the quick-level probes and checks
 * (run at start and on 'r', or on the slow --checks-every timer), and per-GPU
 * telemetry from the one sampler that monitor, soak and bench use
 * (src/telemetry/telemetry.h), with a history ring per plotted series.
 *
 * Cost: a frame reads only what the sampler reads per GPU; the checks (every
 * probe) never run per frame, and the process list (a walk of /proc) is
 * refreshed on a slow cadence (TUI_PROCS_EVERY_S), not every sample.
 * Everything goes through rootfs.h, so --sysroot fixtures and snapshots
 * replay. Unknown stays unknown (the sampler's why), drawn as "?". */
#ifndef RVD_TUI_MODEL_H
#define RVD_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/checks.h"
#include "../core/fact.h"
#include "../telemetry/telemetry.h"
#include "tui_plot.h"

struct probe_opts;

#define TUI_PROCS_EVERY_S 2.0

/* the plotted series of one GPU */
enum tui_series { TS_BUSY, TS_POWER, TS_JUNCTION, TS_SCLK, TS__COUNT };

struct tui_model {
    const char *sysroot;            /* as given, NULL for the live host */
    const struct probe_opts *popts; /* --requirements, --python */
    char *unpacked;                 /* private copy of a tarball sysroot */
    struct checkset cs;
    int have_cs;
    struct factset check_facts;
    struct results res;
    int have_res;
    char checks_time[16]; /* local HH:MM:SS of the last checks run */
    double checks_s;      /* how long it took */
    /* telemetry */
    struct tel *tel;
    struct tel_sample cur; /* the last sample */
    int have_sample;
    struct tel_sample procs; /* the process list (slow cadence) */
    int have_procs;
    double procs_at; /* util_mono_s() of the last process scan */
    char tele_time[16];
    int nhist;                 /* GPUs with history rings (cur.ngpu at the first sample) */
    struct tui_ring *hist;     /* nhist * TS__COUNT */
    uint64_t *first_throttle;  /* per GPU: the bits already set in the first sample */
    int *first_throttle_known; /* per GPU */
    int hist_cap;              /* samples kept per series */
};

/* rootfs and checks.yaml (checks == NULL: the built-in one); hist_cap:
 * samples kept per plotted series. 0, or -1 after printing why */
int tui_model_open(struct tui_model *m, const char *sysroot, const char *checks,
                   const struct probe_opts *popts, int hist_cap);
void tui_model_close(struct tui_model *m);
/* the quick-level probes and checks, again */
void tui_model_run_checks(struct tui_model *m);
/* one telemetry sample (and the process list when it is due); pushes every
 * series' history */
void tui_model_refresh_telemetry(struct tui_model *m);
/* GPUs in the last sample (AMD through sysfs, NVIDIA through NVML) */
int tui_model_gpu_count(const struct tui_model *m);
/* GPU g's ring of series s, or NULL */
const struct tui_ring *tui_model_hist(const struct tui_model *m, int g, enum tui_series s);
/* the checklist's order into order[] (m->res.n entries): fail, error,
 * timeout, warn, skip, pass, each in checks.yaml's order, so that what did
 * not pass stays visible on a small terminal; returns the count */
size_t tui_model_check_order(const struct tui_model *m, size_t *order);
/* checks that did not pass or skip (fail, error, timeout, warn) */
int tui_model_bad_checks(const struct tui_model *m);

#endif
