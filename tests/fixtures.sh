#!/bin/sh
# fixtures.sh - fixture machines end to end. Each tests/fixtures/<machine>/
# holds root/ (a sysroot tree, or snapshot.tar.gz recorded by collect),
# `expected` (lines "exit N", "start_with ID" (the check the report says to
# fix first, or none) and "<check-id> <status> [<rule>]": every check
# of the run must be listed; the rule that decided, e.g. warn[0], is
# compared when given, so that a rule that vanishes or a threshold that moves
# to another rule is caught even where the status stays) and optionally `args` (extra arguments, one per line;
# @FIX@ is replaced by the fixture's directory). The JSON report of every
# fixture is validated against reports/schema.json and the JUnit report
# against reports/junit.xsd.
# `sh tests/fixtures.sh --update` rewrites every `expected` from the current
# run instead (its leading # lines kept, the statuses and rules in run
# order), so that
# a change of verdicts is reviewed in `git diff tests/fixtures`.
# This shell runs the doctor once per fixture; tests/fixtures_check.py judges
# every run in one Python process and xmllint every JUnit file in one call
# (a process per assertion cost 85 CPU-s here: issue 31).
set -u
update=
case ${1:-} in
--update) update=1 ;;
'') ;;
*)
    echo "usage: sh tests/fixtures.sh [--update]" >&2
    exit 2
    ;;
esac
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
mkdir -p "$OUT"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL fixture $*"; }

TEST_PY=${TEST_PY:-/usr/bin/python3}
dirs=
for dir in tests/fixtures/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/expected" ] || continue
    if [ -d "$dir/root" ]; then
        root="$dir/root"
    elif [ -f "$dir/snapshot.tar.gz" ]; then
        root="$dir/snapshot.tar.gz"
    else
        bad "$name: no root/ or snapshot.tar.gz"
        continue
    fi
    set --
    if [ -f "$dir/args" ]; then
        while IFS= read -r a; do
            [ -n "$a" ] && set -- "$@" "$(printf '%s' "$a" | sed "s|@FIX@|$dir|g")"
        done <"$dir/args"
    fi
    rm -f "$OUT/$name.json" "$OUT/$name.junit.xml"
    "$RVD" --sysroot "$root" --no-color --json "$OUT/$name.json" --junit "$OUT/$name.junit.xml" "$@" \
        >"$OUT/$name.txt" 2>"$OUT/$name.err"
    echo $? >"$OUT/$name.rc"
    dirs="$dirs $dir"
done
"$RVD" list | awk '$2 == "quick" { print $1 }' >"$OUT/quick-checks"
# shellcheck disable=SC2086
"$TEST_PY" tests/fixtures_check.py ${update:+--update} "$OUT" $dirs >"$OUT/fixtures.check" 2>&1
cat "$OUT/fixtures.check" | grep -v '^[0-9]* passed, [0-9]* failed$'
line=$(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$OUT/fixtures.check")
if [ -n "$line" ]; then
    pass=$((pass + ${line% *}))
    fail=$((fail + ${line#* }))
else
    bad "fixtures_check.py gave no result: $(tail -3 "$OUT/fixtures.check")"
fi
# every JUnit report against reports/junit.xsd, one xmllint for all of them
junits=
for dir in $dirs; do
    n=$(basename "$dir")
    if [ -s "$OUT/$n.junit.xml" ]; then junits="$junits $OUT/$n.junit.xml"; else bad "$n: no JUnit report"; fi
done
# shellcheck disable=SC2086
[ -z "$junits" ] || xmllint --noout --schema reports/junit.xsd $junits >"$OUT/junit.xsd.log" 2>&1
for j in $junits; do
    n=$(basename "$j" .junit.xml)
    if grep -qxF "$j validates" "$OUT/junit.xsd.log"; then
        ok
    else
        bad "$n: JUnit report does not match reports/junit.xsd: $(grep -F "$j" "$OUT/junit.xsd.log" | head -3)"
    fi
done
[ -z "$update" ] || echo "rewrote tests/fixtures/*/expected: review with git diff tests/fixtures"
echo "$pass passed, $fail failed"
