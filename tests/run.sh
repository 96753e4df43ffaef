#!/bin/sh
# run.sh - every test layer that needs no GPU: the unit tests, then every
# tests/*.sh but the few named below, then catalog.sh. One line per unit
# binary and per layer: "PASS name (N passed, M failed, T s)", "FAIL name
# (...)" with the layer's FAIL lines under it, or "SKIP name: reason" for a
# layer that ran nothing; a layer's whole output is in $OUT/layers/NAME.log.
# Ends with "N passed, M failed"; exits non-zero on any failure.
# Each layer also runs alone: RVD=... BUILD=... OUT=... sh tests/NAME.sh
# Environment: RVD (the binary), BUILD (build directory), OUT (scratch).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
export RVD BUILD
OUT=${OUT:-$BUILD/out}
export OUT
rm -rf "$OUT" && mkdir -p "$OUT/layers"
pass=0
fail=0

# not layers: sourced helpers, this file, and the layers that need a GPU
# (make test-gpu runs gpu_device.sh, which runs gpu_multi.sh)
NOT_LAYERS="lib.sh tui_lib.sh run.sh gpu_device.sh gpu_multi.sh"
# last: it checks the facts of every report the earlier layers left in $OUT
LAST=catalog.sh
for f in $NOT_LAYERS $LAST; do
    # a name here that no longer exists hides nothing, but is stale
    [ -f "tests/$f" ] || {
        echo "FAIL run.sh: tests/$f is named in run.sh but missing"
        fail=$((fail + 1))
    }
done

# run NAME LOG CMD...: CMD's output into LOG; one line for it
run() {
    name=$1 log=$2
    shift 2
    t0=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    line=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$log" | tail -1)
    skips=$(grep -c '^SKIP' "$log")
    if [ -z "$line" ]; then
        echo "FAIL $name (no 'N passed, M failed' line, exit $rc, $secs s; $log)"
        tail -5 "$log" | sed 's/^/    /'
        fail=$((fail + 1))
        return
    fi
    p=${line% *} f=${line#* }
    pass=$((pass + p))
    fail=$((fail + f))
    extra=
    [ "$skips" -eq 0 ] || extra=", $skips skipped"
    if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
        [ "$f" -ne 0 ] || fail=$((fail + 1)) # a non-zero exit with no FAIL counted
        echo "FAIL $name ($p passed, $f failed$extra, exit $rc, $secs s)"
        grep '^FAIL' "$log" | head -40 | sed 's/^/    /'
    elif [ "$p" -eq 0 ] && [ "$skips" -gt 0 ]; then
        echo "SKIP $name: $(grep '^SKIP' "$log" | head -1 | sed 's/^SKIP [^ :]*:* *//')"
    else
        echo "PASS $name ($p passed, $f failed$extra, $secs s)"
    fi
}

# unit tests: one binary each
units=0
for t in "$BUILD"/tests/test_*; do
    [ -f "$t" ] || continue
    case $t in *.d) continue ;; esac # the compiler's dependency file
    units=$((units + 1))
    name=unit/$(basename "$t")
    if [ -x "$t" ]; then
        run "$name" "$OUT/layers/$(basename "$t").log" "$t"
    else
        echo "FAIL $name: not executable"
        fail=$((fail + 1))
    fi
done
if [ "$units" -eq 0 ]; then
    echo "FAIL unit: no $BUILD/tests/test_* (make unit-bins)"
    fail=$((fail + 1))
fi

layer() { # layer tests/NAME.sh
    name=${1#tests/}
    name=${name%.sh}
    if [ -r "$1" ]; then
        run "$name" "$OUT/layers/$name.log" sh "$1"
    else
        echo "FAIL $name: $1 is not readable"
        fail=$((fail + 1))
    fi
}
for s in tests/*.sh; do
    case " $NOT_LAYERS $LAST " in *" ${s#tests/} "*) continue ;; esac
    layer "$s"
done
[ -f "tests/$LAST" ] && layer "tests/$LAST" # missing: reported above

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
