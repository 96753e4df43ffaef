/* tui.h - the `dashboard` command: a live view of per-GPU telemetry above the
 * quick-level checklist, refreshed every --interval ms; `--once` prints one
 * frame as plain text without ncurses (tests, scripts). Parses its own
 * options; argv[0] is "dashboard". Returns the process exit code: 0 done,
 * 2 usage or configuration error, 3 internal error (no terminal library). */
#ifndef RVD_TUI_H
#define RVD_TUI_H

int tui_cmd_dashboard(int argc, char **argv);
struct cmd_spec;
extern const struct cmd_spec dashboard_spec; /* its option table */

#endif
