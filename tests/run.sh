#!/bin/sh
# run.sh - every test layer that needs no GPU: the unit tests, then every
# tests/*.sh but the few named below, then catalog.sh. One line per unit
# binary and per layer: "PASS name (N passed, M failed, T CPU-s)", "FAIL name
# (...)" with the layer's FAIL lines under it, or "SKIP name: reason" for a
# layer that ran nothing; a layer's whole output is in $OUT/layers/NAME.log.
# Ends with "N passed, M failed"; exits non-zero on any failure.
# Each layer also runs alone: RVD=... BUILD=... OUT=... sh tests/NAME.sh
# T is the layer's CPU seconds (user + system of it and of every process it
# waited for), so the load of other jobs does not count; a layer past twice
# its figure in tests/suite.tsv fails. $OUT/cpu.tsv has every layer's figure
# (tools/suite-record.py writes them into suite.tsv) and $OUT/skipped.txt
# every layer that printed a SKIP line (.ci/run allows a listed few).
# Environment: RVD (the binary), BUILD (build directory), OUT (scratch);
# RVD_PLAIN (set by `make asan-test`: the plain build's binary) runs the
# layers as tests/suite.tsv tags them for ASan: full, sample (one doctor run
# in RVD_ASAN_EVERY through RVD, the others through RVD_PLAIN) or skip.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
export RVD BUILD
OUT=${OUT:-$BUILD/out}
export OUT
rm -rf "$OUT" && mkdir -p "$OUT/layers"
pass=0
fail=0
RVD_PLAIN=${RVD_PLAIN:-}
RVD_ASAN_EVERY=${RVD_ASAN_EVERY:-4}
SUITE=tests/suite.tsv
# the test helpers' interpreter, resolved once for every layer (tests/lib.sh)
. tests/lib.sh
export TEST_PY
pass=0
fail=0
: >"$OUT/cpu.tsv"
: >"$OUT/skipped.txt"

# not layers: sourced helpers, this file, and the layers that need a GPU
# (make test-gpu runs gpu_device.sh, which runs gpu_multi.sh)
# hip_cpu.sh needs HIP-CPU's headers, which no package registry CI reaches
# carries: `make test-hip-cpu` runs it where tools/hip_cpu.sh could fetch them
NOT_LAYERS="lib.sh tui_lib.sh run.sh gpu_device.sh gpu_multi.sh hip_cpu.sh"
# last: it checks the facts of every report the earlier layers left in $OUT
LAST=catalog.sh
for f in $NOT_LAYERS $LAST; do
    # a name here that no longer exists hides nothing, but is stale
    [ -f "tests/$f" ] || {
        echo "FAIL run.sh: tests/$f is named in run.sh but missing"
        fail=$((fail + 1))
    }
done

# suite_col NAME N: column N of NAME's row in suite.tsv, empty when untagged
suite_col() {
    awk -v n="$1" -v c="$2" '!/^#/ && $1 == n { print $c; exit }' "$SUITE"
}
# cpu_of FILE: user + system seconds of the children in `times` output
# ("0m1.230000s 0m0.040000s" on its second line; bash prints "0m1.230s")
cpu_of() {
    sed -n 2p "$1" | awk '{ t = 0
        for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
        printf "%.1f", t }'
}

# run NAME LOG CMD...: CMD's output into LOG; one line for it
run() {
    name=$1 log=$2
    shift 2
    # a subshell that waits for the layer: its children's times are the layer's
    (
        "$@" >"$log" 2>&1
        echo $? >"$log.rc"
        times >"$log.times"
    )
    rc=$(cat "$log.rc")
    secs=$(cpu_of "$log.times")
    printf '%s\t%s\n' "$name" "$secs" >>"$OUT/cpu.tsv"
    budget=
    col=3
    [ -z "$RVD_PLAIN" ] || col=4
    case $name in unit/*) ;; *) budget=$(suite_col "$name" $col) ;; esac
    over=
    if [ -n "$budget" ] && [ "$budget" != - ] &&
        awk -v s="$secs" -v b="$budget" 'BEGIN { exit !(s > 2 * b && s > b + 2) }'; then
        over="CPU $secs s is past twice its recorded $budget s (tests/suite.tsv)"
    fi
    line=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$log" | tail -1)
    skips=$(grep -c '^SKIP' "$log")
    [ "$skips" -eq 0 ] || echo "$name: $(grep '^SKIP' "$log" | head -1)" >>"$OUT/skipped.txt"
    if [ -z "$line" ]; then
        echo "FAIL $name (no 'N passed, M failed' line, exit $rc, $secs CPU-s; $log)"
        tail -5 "$log" | sed 's/^/    /'
        fail=$((fail + 1))
        return
    fi
    p=${line% *} f=${line#* }
    pass=$((pass + p))
    fail=$((fail + f))
    extra=
    [ "$skips" -eq 0 ] || extra=", $skips skipped"
    if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ] || [ -n "$over" ]; then
        [ "$f" -ne 0 ] || fail=$((fail + 1)) # a non-zero exit (or CPU) with no FAIL counted
        echo "FAIL $name ($p passed, $f failed$extra, exit $rc, $secs CPU-s)"
        [ -z "$over" ] || echo "    $over"
        grep '^FAIL' "$log" | head -40 | sed 's/^/    /'
    elif [ "$p" -eq 0 ] && [ "$skips" -gt 0 ]; then
        echo "SKIP $name: $(grep '^SKIP' "$log" | head -1 | sed 's/^SKIP [^ :]*:* *//')"
    else
        echo "PASS $name ($p passed, $f failed$extra, $secs CPU-s)"
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

# asan_wrapper NAME: a script standing for the doctor in a `sample` layer
# under ASan: run N of the layer (counted in a file) goes through the ASan
# build when N is a multiple of RVD_ASAN_EVERY, else through the plain one;
# exec, so that signals and exit statuses reach the binary unchanged
asan_wrapper() {
    w="$OUT/asan-sample/$1"
    mkdir -p "$w"
    a=$(cd "$(dirname "$RVD")" && pwd)/$(basename "$RVD")
    b=$(cd "$(dirname "$RVD_PLAIN")" && pwd)/$(basename "$RVD_PLAIN")
    {
        echo '#!/bin/sh'
        echo "n=\$(cat '$w/count' 2>/dev/null || echo 0)"
        echo "echo \$((n + 1)) >'$w/count'"
        echo "[ \$((n % $RVD_ASAN_EVERY)) -eq 0 ] && exec '$a' \"\$@\""
        echo "exec '$b' \"\$@\""
    } >"$w/rocm-vla-doctor"
    chmod +x "$w/rocm-vla-doctor"
    echo "$w/rocm-vla-doctor"
}

layer() { # layer tests/NAME.sh
    name=${1#tests/}
    name=${name%.sh}
    tag=full
    if [ -n "$RVD_PLAIN" ]; then
        tag=$(suite_col "$name" 2)
        case $tag in
        full | sample | skip) ;;
        '') tag=full ;; # untagged: the safe default
        *)
            echo "FAIL $name: ASan tag '$tag' in $SUITE is not full, sample or skip"
            fail=$((fail + 1))
            return
            ;;
        esac
    fi
    if [ ! -r "$1" ]; then
        echo "FAIL $name: $1 is not readable"
        fail=$((fail + 1))
    elif [ "$tag" = skip ]; then
        echo "ASAN-SKIP $name (tagged skip in $SUITE; make test runs it)"
    elif [ "$tag" = sample ]; then
        asan_rvd=$RVD
        RVD=$(asan_wrapper "$name")
        run "$name" "$OUT/layers/$name.log" sh "$1"
        RVD=$asan_rvd
    else
        run "$name" "$OUT/layers/$name.log" sh "$1"
    fi
}
for s in tests/*.sh; do
    case " $NOT_LAYERS $LAST " in *" ${s#tests/} "*) continue ;; esac
    layer "$s"
done
[ -f "tests/$LAST" ] && layer "tests/$LAST" # missing: reported above

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
