#!/bin/sh
# run.sh - every test layer that needs no GPU: unit tests, fixture machines
# (with JSON-schema and JUnit-XSD validation) and CLI tests. Ends with
# "N passed, M failed"; exits non-zero on any failure.
# Environment: RVD (the binary), BUILD (build directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
export RVD BUILD
OUT=${OUT:-$BUILD/out}
export OUT
rm -rf "$OUT" && mkdir -p "$OUT"
pass=0
fail=0

add() { # add "<output containing N passed, M failed>"
    p=$(printf '%s\n' "$1" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p' | tail -1)
    f=$(printf '%s\n' "$1" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p' | tail -1)
    if [ -z "$p" ]; then
        fail=$((fail + 1))
        return
    fi
    pass=$((pass + p))
    fail=$((fail + f))
}

# layer 1: unit tests
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    out=$("$t" 2>"$OUT/$name.err")
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL unit $name (exit $rc)"
        sed 's/^/    /' "$OUT/$name.err" | head -40
    fi
    add "$out"
done

# layers 2 and 3: fixture machines and CLI behaviour; catalog.sh last, as it
# also checks the facts of every report the earlier layers left in $OUT
for s in tests/layers.sh tests/fixtures.sh tests/cli.sh tests/cli_inputs.sh tests/hostile_checks.sh tests/snapshot.sh tests/hostile_cli.sh tests/docs.sh tests/install.sh tests/ci_recipes.sh tests/gpu_ci.sh tests/gpus.sh tests/rocm_headers.sh tests/vla.sh tests/sweep.sh tests/sweep_report.sh tests/vla_probe.sh tests/report_text.sh tests/binscan.sh tests/rocm_libs.sh tests/peaks.sh tests/diff.sh tests/host.sh tests/html.sh tests/prom.sh tests/fleet.sh tests/slurm.sh tests/tui.sh tests/tui_screen.sh tests/tui_gpus.sh tests/monitor.sh tests/soak.sh tests/driver_cause.sh tests/hostile_inputs.sh tests/fuzz_replay.sh tests/catalog.sh; do
    [ -f "$s" ] || continue
    out=$(sh "$s" 2>&1)
    printf '%s\n' "$out" | grep -E '^(FAIL|SKIP)' || true
    add "$out"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
