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
    json="$OUT/$name.json"
    junit="$OUT/$name.junit.xml"
    "$RVD" --sysroot "$root" --no-color --json "$json" --junit "$junit" "$@" \
        >"$OUT/$name.txt" 2>"$OUT/$name.err"
    rc=$?
    # statuses: the text report's lines are "[mark] id summary"; use JSON
    run_order=$(/usr/bin/python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["checks"]:
    print(c["id"], c["status"], c.get("rule", ""))' "$json" 2>/dev/null)
    # the check the report says to fix first (checks.yaml caused_by)
    start=$(/usr/bin/python3 -c '
import json, sys
print(json.load(open(sys.argv[1])).get("start_with") or "none")' "$json" 2>/dev/null)
    if [ -n "$update" ] && [ -n "$run_order" ]; then
        { sed -n '/^#/!q;p' "$dir/expected"; echo "exit $rc"; echo "start_with $start"; printf '%s\n' "$run_order"; } \
            >"$dir/expected.new" && mv "$dir/expected.new" "$dir/expected"
    fi
    want_rc=$(sed -n 's/^exit //p' "$dir/expected")
    if [ "$rc" = "$want_rc" ]; then ok; else bad "$name: exit $rc, want $want_rc"; fi
    want_start=$(sed -n 's/^start_with //p' "$dir/expected")
    if [ "$start" = "$want_start" ]; then ok; else bad "$name: start with ${start:-?}, want ${want_start:-no start_with line}"; fi
    got=$(printf '%s\n' "$run_order" | sed '/^$/d' | sort)
    want=$(grep -v '^exit ' "$dir/expected" | grep -v '^start_with ' | grep -v '^#' | grep -v '^$' | sort)
    if [ -z "$got" ]; then
        bad "$name: no JSON report (see $OUT/$name.err)"
        continue
    fi
    printf '%s\n' "$want" | while read -r id st rule; do
        g=$(printf '%s\n' "$got" | awk -v id="$id" '$1 == id { print $2 }')
        gr=$(printf '%s\n' "$got" | awk -v id="$id" '$1 == id { print $3 }')
        if [ "$g" != "$st" ]; then
            echo "bad $id: got ${g:-missing}, want $st"
        elif [ -n "$rule" ] && [ "$gr" != "$rule" ]; then
            echo "bad $id: $st decided by ${gr:-no rule}, want $rule"
        else
            echo ok
        fi
    done >"$OUT/$name.cmp"
    while read -r line; do
        case $line in
        ok) ok ;;
        *) bad "$name: ${line#bad }" ;;
        esac
    done <"$OUT/$name.cmp"
    extra=$(printf '%s\n' "$got" | awk '{print $1}' | while read -r id; do
        printf '%s\n' "$want" | awk '{print $1}' | grep -qxF "$id" || echo "$id"
    done)
    if [ -z "$extra" ]; then ok; else bad "$name: checks not in expected: $(echo $extra)"; fi
    if /usr/bin/python3 tests/validate_json.py reports/schema.json "$json" >"$OUT/$name.schema" 2>&1; then
        ok
    else
        bad "$name: JSON report does not match reports/schema.json: $(head -3 "$OUT/$name.schema")"
    fi
    if xmllint --noout --schema reports/junit.xsd "$junit" >"$OUT/$name.xsd" 2>&1; then
        ok
    else
        bad "$name: JUnit report does not match reports/junit.xsd: $(head -3 "$OUT/$name.xsd")"
    fi
done
# every quick-level check passes on at least one fixture machine and does
# not pass on another: a check that cannot fail (or cannot pass) is a defect
for id in $("$RVD" list | awk '$2 == "quick" { print $1 }'); do
    st=$(cat tests/fixtures/*/expected | awk -v id="$id" '$1 == id { print $2 }' | sort -u)
    if ! printf '%s\n' "$st" | grep -qx pass; then
        bad "coverage: $id passes on no fixture machine"
    elif ! printf '%s\n' "$st" | grep -qvx pass; then
        bad "coverage: $id never fails, warns or skips on a fixture machine"
    else
        ok
    fi
done
[ -z "$update" ] || echo "rewrote tests/fixtures/*/expected: review with git diff tests/fixtures"
echo "$pass passed, $fail failed"
