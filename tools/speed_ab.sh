#!/bin/sh
# speed_ab.sh - one change's before/after on the device in one call: the
# binaries BEFORE and AFTER alternated 3 times (pi0 bf16, doctor only, RUNS
# runs, p50 per stage), so drift of the machine hits both alike; then
# `make bench` (tools/vla_bench.sh) with AFTER. A run's cuBLASLt tuning picks
# per run, so one run of each is not enough to call a difference.
# Environment: BEFORE, AFTER (binaries), OUT (results.tgz goes there),
# RUNS (30), LD_LIBRARY_PATH (the carried libyaml).
set -u
BEFORE=${BEFORE:?} AFTER=${AFTER:?} OUT=${OUT:?} RUNS=${RUNS:-30}
R=/tmp/speed-ab && rm -rf "$R" && mkdir -p "$R"
t0=$(date +%s)
for i in 1 2 3; do
    for v in before after; do
        [ $v = before ] && b=$BEFORE || b=$AFTER
        timeout 60 "$b" bench --preset pi0 --dtype bf16 --runs "$RUNS" --rows 0 \
            --json "$R/$v-$i.json" >"$R/$v-$i.txt" 2>&1 || echo "$v-$i: exit $?"
    done
done
python3 - "$R" <<'PY'
import json, statistics, sys
for v in ("before", "after"):
    for i in (1, 2, 3):
        try:
            d = json.load(open("%s/%s-%d.json" % (sys.argv[1], v, i)))
        except (OSError, ValueError) as e:
            print(v, i, "no result:", e)
            continue
        s = {x["name"]: x["p50_ms"] for x in d["stages"]}
        steps = [s[k] for k in s if k.startswith("step ")]
        print("%s run %d: vision %.3f prefix %.3f step mean %.3f total %.3f ms p50"
              % (v, i, s["vision"], s["prefix"], statistics.mean(steps), s["total"]))
PY
echo "A/B: $(($(date +%s) - t0)) s"
RUNS=$RUNS RVD=$AFTER WORK=/tmp/rvd-bench timeout 200 sh tools/vla_bench.sh >"$R/bench.txt" 2>&1
echo "make bench: exit $? ($(($(date +%s) - t0)) s)"
cp docs/PERFORMANCE.md /tmp/rvd-bench/*.json "$R/" 2>/dev/null
tar -C "$R" -czf "$OUT/results.tgz" .
