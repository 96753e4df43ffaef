/* tui_status.h - which check results colour which GPU value on the
 * dashboard. Each part of a GPU panel (a value line, or a value of the
 * one-line entry) shows telemetry that stands for per-GPU facts; a check
 * that reads one of those facts (check_facts(): reads:, rules, templates)
 * and did not pass on that GPU colours the part with its status, so a
 * junction temperature that fails gpu.thermal is drawn as that failure. */
#ifndef RVD_TUI_STATUS_H
#define RVD_TUI_STATUS_H

#include "tui_model.h"

enum tui_part {
    TP_CLOCKS,   /* sclk, mclk */
    TP_POWER,    /* power, busy, fan */
    TP_TEMP,     /* edge, junction, memory temperatures */
    TP_VRAM,     /* VRAM, GTT */
    TP_PCIE,     /* the link, its path, replays */
    TP_THROTTLE, /* throttle reasons */
    TP_USERS,    /* the processes that have the GPU open */
    TP__COUNT
};

/* for GPU g, each part's worst status among the checks that read its facts
 * and did not pass (fail before error, timeout, warn); ST_PASS for a part
 * no such check reads */
/* 0 for pass, skip (nothing to colour), then warn, timeout, error, fail */
int tui_status_severity(enum status st);
void tui_status_parts(const struct tui_model *m, int g, enum status out[TP__COUNT]);

#endif
