#!/bin/sh
# fuzz_replay.sh - every fuzz harness (tests/fuzz/fuzz_<h>.c) built with
# tests/fuzz/replay_main.c (no libFuzzer; gcc, and ASan+UBSan under `make
# asan-test`) runs once over each file of its seed corpus
# tests/fuzz/corpus/<h>/ and of its committed crash reproducers
# tests/fuzz/crashes/<h>/: a crash, a sanitizer report or a leak fails the
# harness. Reproducers of bugs not fixed yet wait in tests/fuzz/pending/<h>/
# and are skipped by name. Each harness has a time bound. Ends with
# "N passed, M failed".
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}
mkdir -p "$OUT/fuzz"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    echo "FAIL fuzz_replay: $*"
    fail=$((fail + 1))
}

for src in tests/fuzz/fuzz_*.c; do
    h=$(basename "$src" .c)
    h=${h#fuzz_}
    bin="$BUILD/tests/fuzz/replay_$h"
    if [ ! -x "$bin" ]; then
        bad "$h: $bin not built"
        continue
    fi
    n=$(ls "tests/fuzz/corpus/$h" 2>/dev/null | wc -l)
    if [ "$n" -gt 0 ]; then ok; else bad "$h: no seed corpus in tests/fuzz/corpus/$h"; fi
    set -- "tests/fuzz/corpus/$h"
    if [ -d "tests/fuzz/crashes/$h" ]; then
        set -- "$@" "tests/fuzz/crashes/$h"
        n=$((n + $(ls "tests/fuzz/crashes/$h" | wc -l)))
    fi
    log="$OUT/fuzz/$h.log"
    timeout 300 "$bin" "$@" >"$OUT/fuzz/$h.out" 2>"$log"
    rc=$?
    got=$(sed -n 's/^replayed //p' "$OUT/fuzz/$h.out")
    if [ "$rc" -eq 0 ] && [ "${got:-0}" -eq "$n" ]; then
        ok
    else
        last=$(grep '^replay: ' "$log" | tail -1)
        bad "$h: exit $rc, ${got:-?} of $n files replayed (last: ${last#replay: }) $(grep -m1 -E 'ERROR|runtime error' "$log")"
    fi
    if [ -d "tests/fuzz/pending/$h" ] && [ -n "$(ls "tests/fuzz/pending/$h")" ]; then
        echo "SKIP fuzz_replay pending/$h: $(ls "tests/fuzz/pending/$h" | wc -l) reproducer(s) of bugs not fixed on this branch"
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
