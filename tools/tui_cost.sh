#!/bin/sh
# tui_cost.sh - the live dashboard's CPU cost (part of `make bench`): runs
# `dashboard --sysroot <fixture> --interval MS` on a tmux terminal for
# SECONDS and reads the process's utime+stime from /proc/PID/stat after a
# warm-up (the start runs every probe and check once) and at the end; prints
# the steady-state share of one core and the whole run's.
# Environment: RVD (binary), FIXTURE (default the 8-GPU MI300X node),
# INTERVAL (ms, default 100), SECONDS_RUN (default 20), WARMUP (s, default 3),
# SIZE (ROWSxCOLS of the terminal, default 40x120).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
FIXTURE=${FIXTURE:-tests/fixtures/mi300x-node/root}
INTERVAL=${INTERVAL:-100}
SECONDS_RUN=${SECONDS_RUN:-20}
WARMUP=${WARMUP:-3}
SIZE=${SIZE:-40x120}
if ! command -v tmux >/dev/null 2>&1; then
    echo "tui_cost: SKIP: no tmux (the dashboard needs a terminal)"
    exit 0
fi
RVD_ABS=$(cd "$(dirname "$RVD")" && pwd)/$(basename "$RVD")
FIX_ABS=$(cd "$FIXTURE" && pwd)
SOCK="rvd-cost-$$"
T() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'T kill-server 2>/dev/null' EXIT
T new-session -d -s cost -x "${SIZE#*x}" -y "${SIZE%x*}" \
    "exec env LC_ALL=C.UTF-8 $RVD_ABS dashboard --sysroot $FIX_ABS --interval $INTERVAL"
pid=$(T display-message -p -t cost '#{pane_pid}')
tck=$(getconf CLK_TCK)
# utime + stime in clock ticks (fields 14 and 15; comm may hold spaces)
ticks() { sed 's/^.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }'; }
sleep "$WARMUP"
t0=$(ticks)
sleep "$SECONDS_RUN"
t1=$(ticks)
frame=$(T capture-pane -p -t cost | head -3)
T send-keys -t cost q
awk -v a="$t0" -v b="$t1" -v s="$SECONDS_RUN" -v w="$WARMUP" -v hz="$tck" \
    -v iv="$INTERVAL" -v fx="$FIXTURE" 'BEGIN {
    printf "tui_cost: dashboard --sysroot %s --interval %d, %s s after a %s s warm-up: %.2f s CPU = %.2f %% of one core (whole run %.2f %%)\n",
        fx, iv, s, w, (b - a) / hz, 100 * (b - a) / hz / s, 100 * b / hz / (s + w) }'
echo "$frame" | sed 's/^/tui_cost:   | /'
echo "tui_cost: load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
