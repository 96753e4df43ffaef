#!/bin/sh
# quick_bench.sh - the quick level's wall time on this host (part of `make
# bench`, issue 25): `check` (every quick probe) against `check --only
# kfd.access` (the probes that check reads), RUNS runs each, and the five
# slowest probes of one -v run. hyperfine when installed, else a loop timed
# with the monotonic clock; the live host unless SYSROOT is set.
# Environment: RVD (binary), RUNS (default 20), SYSROOT (a fixture or snapshot).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
RUNS=${RUNS:-20}
set -- --no-color
[ -n "${SYSROOT:-}" ] && set -- "$@" --sysroot "$SYSROOT"
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N -i --warmup 2 --runs "$RUNS" "$RVD $*" "$RVD $* --only kfd.access"
else
    # mean, min and max seconds of RUNS runs of the command line "$@"
    runs() {
        python3 - "$RUNS" "$@" <<'PY'
import subprocess, sys, time
n, cmd = int(sys.argv[1]), sys.argv[2:]
t = []
for _ in range(n):
    t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t.append(time.monotonic() - t0)
print("quick_bench: %-40s mean %.3f s  min %.3f s  max %.3f s  (%d runs)"
      % (" ".join(cmd[1:]), sum(t) / n, min(t), max(t), n))
PY
    }
    runs "$RVD" "$@"
    runs "$RVD" "$@" --only kfd.access
fi
echo "quick_bench: slowest probes of one run:"
"$RVD" "$@" -v 2>/dev/null | sed -n '/^slowest probes/,/^$/p' | sed '1d;/^$/d'
