#!/bin/sh
# tests/fuzz/run.sh BUILD [HARNESS...] - run each libFuzzer harness of
# BUILD/tests/fuzz/ for FUZZ_SECONDS (default 60), one after the other, from
# its committed corpus (tests/fuzz/corpus/<h>/, read-only: new inputs go to
# BUILD/corpus/<h>/). A crash, leak, timeout or out-of-memory input is written
# to tests/fuzz/crashes/<h>/ (commit it once the bug is fixed: `make test`
# replays it; a reproducer of a bug not yet fixed goes to
# tests/fuzz/pending/<h>/, which the replay skips by name). Prints and writes
# BUILD/summary.txt: harness, executions, seconds, findings. Run by `make fuzz`.
set -u
B=${1:?usage: run.sh BUILD [HARNESS...]}
shift
S=${FUZZ_SECONDS:-60}
names=$*
[ -n "$names" ] || names=$(ls tests/fuzz/fuzz_*.c | sed 's|tests/fuzz/fuzz_||; s|\.c$||')
mkdir -p "$B/logs"
sum="$B/summary.txt"
printf '%-18s %12s %8s  %s\n' harness executions seconds findings >"$sum"
found_any=0
for h in $names; do
    bin="$B/tests/fuzz/fuzz_$h"
    if [ ! -x "$bin" ]; then
        printf '%-18s %12s %8s  %s\n' "$h" - - "NOT BUILT" >>"$sum"
        found_any=1
        continue
    fi
    mkdir -p "$B/corpus/$h" "tests/fuzz/crashes/$h"
    before=$(ls "tests/fuzz/crashes/$h" | wc -l)
    start=$(date +%s)
    # -close_fd_mask=2: the parsers' error messages (one per rejected input)
    # are silenced; libFuzzer and the sanitizers keep their own copy of stderr
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
        UBSAN_OPTIONS=print_stacktrace=1 \
        "$bin" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -close_fd_mask=2 -print_final_stats=1 \
        -artifact_prefix="tests/fuzz/crashes/$h/" \
        "$B/corpus/$h" "tests/fuzz/corpus/$h" >"$B/logs/$h.log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/logs/$h.log" | tail -1)
    # libFuzzer prints no final stats after a crash: the last status line
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$B/logs/$h.log" | tail -1)
    after=$(ls "tests/fuzz/crashes/$h" | wc -l)
    if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]; then
        what="none"
    else
        found_any=1
        kind=$(grep -m1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer): [a-z-]+|runtime error: [^:]*' "$B/logs/$h.log")
        new=$(ls -t "tests/fuzz/crashes/$h" | head -1)
        what="FOUND (exit $rc): ${kind:-see $B/logs/$h.log} -> tests/fuzz/crashes/$h/$new"
    fi
    printf '%-18s %12s %8s  %s\n' "$h" "${execs:-?}" "$secs" "$what" >>"$sum"
    tail -1 "$sum"
done
echo
cat "$sum"
echo "(FUZZ_SECONDS=$S per harness; logs in $B/logs/; table in $sum)"
exit "$found_any"
