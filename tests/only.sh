#!/bin/sh
# only.sh - `check --only` runs just the probes its checks read (src/main.c,
# probes_select in probes/probe_table.c), and that changes no verdict: on
# every fixture machine the checks of each id prefix together, and on three
# representative machines every check alone, get the status and summary of
# the full run. A check whose rules read a fact whose probe was left out
# would skip ("no probe produced ...") or judge differently here. Also: the
# report names only the selected checks, `--only kfd.access` leaves the
# python probe out, and -v lists the slowest probes.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=only
. tests/lib.sh
D="$OUT/only"
rm -rf "$D"
mkdir -p "$D"
# one machine with AMD GPUs, one desktop with findings, one without a GPU
REPS="mi300x-node rx6900xt-degraded no-gpu-server"

# ids IDS PREFIX: the ids of IDS (one a line) under PREFIX., comma-joined
ids_of() { printf '%s\n' "$1" | awk -v p="$2." 'index($1, p) == 1' | paste -sd, -; }

for dir in tests/fixtures/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/expected" ] || continue
    fixture_check "$dir" --no-color --json "$D/$name.full.json" >/dev/null 2>&1
    ids=$(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["checks"]: print(c["id"])' "$D/$name.full.json" 2>/dev/null)
    if [ -z "$ids" ]; then
        bad "$name: no full report"
        continue
    fi
    for p in $(printf '%s\n' "$ids" | cut -d. -f1 | sort -u); do
        fixture_check "$dir" --no-color --only "$(ids_of "$ids" "$p")" \
            --json "$D/$name.prefix-$p.json" >/dev/null 2>&1
    done
    case " $REPS " in
    *" $name "*)
        for id in $ids; do
            fixture_check "$dir" --no-color --only "$id" --json "$D/$name.check-$id.json" \
                >/dev/null 2>&1
        done
        ;;
    esac
    # every partial report: exactly the checks asked for, each as in the full run
    python3 - "$D/$name.full.json" "$D/$name".prefix-*.json "$D/$name".check-*.json \
        >"$D/$name.cmp" 2>&1 <<'PY'
import glob, json, sys
import re
# a check run alone cannot know a cause that did not run with it, so the
# "(caused by ID)" that the full run adds is not part of the comparison
def checks(path):
    return {c["id"]: (c["status"], re.sub(r" \(caused by [a-z0-9_.]+\)$", "", c["summary"]))
            for c in json.load(open(path))["checks"]}
full = checks(sys.argv[1])
for path in sys.argv[2:]:
    if "*" in path:
        continue
    part = path.rsplit("/", 1)[1][:-5].split(".", 1)[1]
    kind, sel = part.split("-", 1)
    want = {i for i in full if (i == sel if kind == "check" else i.startswith(sel + "."))}
    try:
        got = checks(path)
    except Exception as e:
        print("bad %s: no report (%s)" % (part, e))
        continue
    if set(got) != want:
        print("bad %s: reports %s, want %s" % (part, sorted(got), sorted(want)))
    for i in sorted(want & set(got)):
        if got[i] != full[i]:
            print("bad %s: %s is %s, the full run %s" % (part, i, got[i], full[i]))
        else:
            print("ok")
PY
    while read -r line; do
        case $line in
        ok) ok ;;
        *) bad "$name: ${line#bad }" ;;
        esac
    done <"$D/$name.cmp"
done

# --only kfd.access reads no python.* fact: the python probe does not run
"$RVD" --sysroot tests/fixtures/rx6900xt-desktop/root --no-color -v --only kfd.access \
    --json "$D/kfd.json" >"$D/kfd.txt" 2>&1
expect "--only kfd.access: only its check" "$D/kfd.json" 'list(c) == ["kfd.access"]'
expect "--only kfd.access: its probe ran" "$D/kfd.json" '"kfd.present" in f and "probe.kfd.wall_s" in f'
expect "--only kfd.access: no python probe" "$D/kfd.json" \
    'not any(k.startswith("python.") or k.startswith("probe.python.") for k in f)'
if grep -q '^slowest probes' "$D/kfd.txt" && grep -Eq '^    kfd +[0-9.]+ s$' "$D/kfd.txt" &&
    ! grep -Eq '^    python ' "$D/kfd.txt"; then ok; else bad "-v --only kfd.access: probe times $(grep -A5 slowest "$D/kfd.txt")"; fi
# the full run times every probe and -v lists the five slowest
"$RVD" --sysroot tests/fixtures/rx6900xt-desktop/root --no-color -v \
    --json "$D/all.json" >"$D/all.txt" 2>&1
expect "every probe timed" "$D/all.json" \
    'all("probe.%s.wall_s" % p in f for p in ("host", "kfd", "gpu", "python", "rocm_libs"))'
n=$(sed -n '/^slowest probes/,/^$/p' "$D/all.txt" | grep -Ec '^    [a-z_]+ +[0-9.]+ s$')
if [ "$n" = 5 ]; then ok; else bad "-v lists $n slowest probes, want 5"; fi
# without -v, no probe times
"$RVD" --sysroot tests/fixtures/rx6900xt-desktop/root --no-color >"$D/plain.txt" 2>&1
if grep -q '^slowest probes' "$D/plain.txt"; then bad "probe times without -v"; else ok; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
