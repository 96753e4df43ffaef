/* tui_model.h - what the dashboard shows, as facts: the quick-level probes and
 * checks (run at start and on 'r'), and telemetry facts refreshed every
 * interval by the same probes that the checks use (gpu and pcie from the probe
 * table), plus the few values only a live view needs:
 *   gpu.<i>.vram_used_bytes  int     mem_info_vram_used
 *   gpu.<i>.sclk_mhz         int     current level of pp_dpm_sclk (line with '*')
 *   gpu.<i>.mclk_mhz         int     current level of pp_dpm_mclk
 *   gpu.<i>.pcie_dpm         string  current level of pp_dpm_pcie, '*' dropped
 * Unknown is a fact with a reason, drawn as "?", never 0. Everything is read
 * through rootfs.h, so --sysroot fixtures and snapshots replay. */
#ifndef RVD_TUI_MODEL_H
#define RVD_TUI_MODEL_H

#include <stddef.h>

#include "../core/checks.h"
#include "../core/fact.h"

struct probe_opts;

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
    struct factset tele;
    char tele_time[16];
};

/* rootfs and checks.yaml (checks == NULL: the built-in one); 0, or -1 after
 * printing why (a usage or configuration error) */
int tui_model_open(struct tui_model *m, const char *sysroot, const char *checks,
                   const struct probe_opts *popts);
void tui_model_close(struct tui_model *m);
/* the quick-level probes and checks, again */
void tui_model_run_checks(struct tui_model *m);
/* telemetry facts, again */
void tui_model_refresh_telemetry(struct tui_model *m);
/* AMD GPUs in the telemetry facts (0 when unknown) */
int tui_model_gpu_count(const struct tui_model *m);

/* pp_dpm_sclk / pp_dpm_mclk / pp_dpm_pcie: the first line marked '*' (the
 * current level), without the mark and surrounding spaces, into buf;
 * 0, or -ENOENT when no line is marked */
int tui_dpm_current(const char *text, char *buf, size_t n);
/* "1: 2219Mhz *" -> 2219; 0, or -EINVAL */
int tui_dpm_mhz(const char *level, unsigned *mhz);

#endif
