/* tui_workload.h - the dashboard's workload panel: the reference VLA pass
 * (probes/probe_vla.c) run every --workload-interval seconds, its latency
 * facts, their history and the budgets of the vla.* checks.
 *
 * The pass never runs in the dashboard's process: a helper process is forked
 * that calls isolate_run() (which forks the isolated child that may load a
 * GPU runtime) and writes the resulting facts back over a pipe (fact_wire.h).
 * The dashboard only polls that pipe without blocking, so the UI keeps
 * drawing while a pass runs; a round is skipped while one is still running.
 * The helper dies with the dashboard (PR_SET_PDEATHSIG) and the isolated
 * child with the helper, so quitting never leaves a pass behind. */
#ifndef RVD_TUI_WORKLOAD_H
#define RVD_TUI_WORKLOAD_H

#include <sys/types.h>

#include "../../probes/probe.h"
#include "../core/checks.h"
#include "../core/fact.h"
#include "tui_plot.h"

struct tui_workload {
    struct probe_opts popts; /* vla_preset, vla_dtype */
    const struct checkset *cs;
    double interval_s;
    double budget_s; /* the isolated child's watchdog: checks' `timeout:` */
    /* the run in flight */
    pid_t pid; /* helper, 0 when none */
    int fd;    /* its facts pipe, -1 when none */
    double started;
    struct strbuf wire;
    double next_at; /* monotonic time of the next round */
    int skipped;    /* rounds skipped while a run was still going */
    /* the last finished run */
    struct factset facts;
    int have; /* facts hold a finished run */
    struct results res;
    int have_res;
    char last_time[16]; /* local HH:MM:SS */
    double last_s;      /* helper wall time */
    int runs;
    char error[160]; /* why the last run gave no facts ("" when it did) */
    /* the last run's total p50 and p99 at every telemetry sample (NaN
     * before the first run), on the GPU plots' time axis */
    struct tui_ring p50, p99;
    /* budgets from the loaded vla.* checks for the last run's facts; NaN
     * when no fail rule bounds the figure (a skip, or no such check) */
    double budget_total_ms, budget_rate_hz;
};

void tui_workload_init(struct tui_workload *w, const char *preset, const char *dtype,
                       double interval_s, const struct checkset *cs, int hist_cap);
/* push the last run's p50 and p99 onto the history (once per telemetry sample) */
void tui_workload_sample(struct tui_workload *w);
/* start a run when none is running and its time has come (now is
 * util_mono_s()); 1 when one was started */
int tui_workload_tick(struct tui_workload *w, double now);
/* read what the helper sent, without blocking; 1 when a run just finished */
int tui_workload_poll(struct tui_workload *w, double now);
int tui_workload_running(const struct tui_workload *w);
/* start one run and wait for it (--once) */
void tui_workload_run_blocking(struct tui_workload *w);
/* kill the helper (and so the isolated child), wait, free everything */
void tui_workload_release(struct tui_workload *w);

#endif
