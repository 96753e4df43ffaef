#!/bin/sh
# sweep.sh - `bench --sweep` on the CPU backend (the self-test sweep of the
# tiny preset): table shape, the JSON report against reports/sweep-schema.json,
# budget marks both ways from a checks file (the budgets are read, never
# built in), drift against the reference configuration, bad grid values;
# --kernel-test and --profile refuse the CPU backend; the batch axis (batch 1, 4,
# 8 by default; observation 0 of a batch is the reference's pass bitwise on
# the CPU) and image sizes off the patch grid (tiny-p14's 14-px patch at 256
# and 320 px: floor(S/14)^2 tokens per camera, the remainder dropped).
# Ends with "N passed, M failed". Environment: RVD (the binary), OUT.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/sweep
PY=/usr/bin/python3
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=sweep
. tests/lib.sh
expect() { expect_rc "$@"; }
# the data rows of a sweep table: lines that start with a number
rows() { grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +(fp32|bf16|fp16) ' "$1"; }
SWB="$RVD bench --sweep --preset tiny --backend cpu --runs 2"
SW="$SWB --grid batch=1" # the cases below without the default batch axis (1, 4, 8)

# ---- quick grid: one axis at a time around the preset (steps 10, chunk 50, image 64)
expect 0 "self-test (CPU)" "quick sweep on the CPU" $SW --grid image=64 --grid steps=1,5,10 --grid chunk=16,50 --json "$OUT/quick.json"
cp "$OUT/last.out" "$OUT/quick.txt"
# base (10,50,64) + steps 1,5 + chunk 16 = 4 configurations
[ "$(rows "$OUT/quick.txt")" = 4 ] && ok || bad "quick grid: $(rows "$OUT/quick.txt") rows, want 4"
grep -q "steps chunk image dtype batch  vision p50/p99" "$OUT/quick.txt" && ok || bad "quick: table header"
grep -q "n/a (no energy counter)" "$OUT/quick.txt" && ok || bad "quick: energy column says n/a"
# the built-in checks do not judge a CPU self-test against a GPU budget
[ "$(grep -c ' not judged$' "$OUT/quick.txt")" = 4 ] && ok || bad "quick: every row 'not judged' with the built-in checks"
# the reference configuration against itself: cosine 1, error 0
grep -qE '^ +10 +50 +64 +fp32 +1 .* 1\.000000 / 0 ' "$OUT/quick.txt" && ok || bad "quick: the reference row has no drift"
if [ -x "$PY" ] && $PY -c 'import jsonschema' 2>/dev/null; then
    if $PY tests/validate_json.py reports/sweep-schema.json "$OUT/quick.json" >"$OUT/schema.out" 2>&1; then ok; else bad "quick.json schema: $(head -5 "$OUT/schema.out")"; fi
    $PY - "$OUT/quick.json" >"$OUT/quick.py" 2>&1 <<'PYEOF' && ok || bad "quick.json content: $(cat "$OUT/quick.py")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "self-test (CPU)" and d["grid"] == "quick", d["mode"]
c = d["configs"]
assert len(c) == 4, len(c)
assert all(x["energy_j"] is None and x["budget"]["mark"] == "not judged" for x in c)
assert all(x["budget"]["checks"][0]["status"] == "skip" for x in c)
ref = [x for x in c if (x["steps"], x["chunk"], x["image"]) == (10, 50, 64)][0]
assert ref["drift"]["cosine"] == 1 and ref["drift"]["max_error"] == 0, ref["drift"]
one = [x for x in c if x["steps"] == 1][0]
assert one["drift"]["cosine"] < 0.999999, one["drift"]  # 1 Euler step is not 10
assert [x for x in c if x["chunk"] == 16][0]["drift"]["rows"] == 16
PYEOF
else
    echo "SKIP sweep: python3-jsonschema missing, sweep JSON not validated"
fi

# ---- full grid: the cartesian product
expect 0 "full grid" "full sweep" $SW --sweep=full --grid image=64 --grid steps=1,2 --grid chunk=8,16
[ "$(rows "$OUT/last.out")" = 4 ] && ok || bad "full grid: $(rows "$OUT/last.out") rows, want 4"

# ---- budget marks read from a checks file, both ways
# a budget check without the CPU skip: ID TITLE FACT BUDGET-MS
mkcheck() {
    cat <<YEOF
  - id: $1
    title: $2
    level: full
    probe: vla
    reads: [$3]
    fail:
      - when: "$3 > $4"
        summary: "{$3} ms (budget $4 ms)"
    pass:
      summary: "{$3} ms"
    fix: "see docs/VLA.md"
    why: "test budget"
    how: "test budget"
YEOF
}
mkchecks() { # FILE VISION_MS TOTAL_MS: the two budget checks
    {
        printf 'schema: rocm-vla-doctor-checks/1\nchecks:\n'
        mkcheck vla.latency.vision "VLA vision tower latency within the budget" vla.latency.vision_ms "$2"
        mkcheck vla.latency.total "VLA forward pass latency within the budget" vla.latency.total_ms "$3"
    } >"$1"
}
mkchecks "$OUT/loose.yaml" 100000 100000
mkchecks "$OUT/tight.yaml" 100000 0.001
expect 0 "meets" "generous budget: marks" $SW --grid image=64 --grid chunk=50 --grid steps=1,5 --checks "$OUT/loose.yaml" --json "$OUT/loose.json"
[ "$(grep -c ' meets' "$OUT/last.out")" = 2 ] && ok || bad "generous budget: every row meets"
expect 0 "over budget" "tight total budget: marks" $SW --grid image=64 --grid chunk=50 --grid steps=1,5 --checks "$OUT/tight.yaml" --json "$OUT/tight.json"
[ "$(grep -c 'over budget' "$OUT/last.out")" = 2 ] && ok || bad "tight budget: every row over budget"
grep -q '"meets": false' "$OUT/tight.json" && ! grep -q '"meets": true' "$OUT/tight.json" && ok || bad "tight.json: meets false"
grep -q '"summary": "[0-9.]* ms (budget 0.001 ms)"' "$OUT/tight.json" && ok || bad "tight.json: the check's own summary"
grep -q '"meets": true' "$OUT/loose.json" && ok || bad "loose.json: meets true"

# ---- the batch axis: default 1, 4, 8; per call times; observation 0 is the
# reference's own pass (batch 1, same seed) bit for bit on the CPU
expect 0 "batch: B observations per call" "default batch axis" $SWB --grid image=64 --grid steps=10 --grid chunk=50 --json "$OUT/batch.json"
cp "$OUT/last.out" "$OUT/batch.txt"
[ "$(rows "$OUT/batch.txt")" = 3 ] && ok || bad "batch axis: $(rows "$OUT/batch.txt") rows, want 3 (batch 1, 4, 8)"
for b in 4 8; do
    grep -qE "^ +10 +50 +64 +fp32 +$b .* 1\.000000 / 0 " "$OUT/batch.txt" && ok || bad "batch $b: observation 0 has the reference's actions (no drift)"
done
if [ -x "$PY" ] && $PY -c 'import jsonschema' 2>/dev/null; then
    if $PY tests/validate_json.py reports/sweep-schema.json "$OUT/batch.json" >"$OUT/schema-b.out" 2>&1; then ok; else bad "batch.json schema: $(head -5 "$OUT/schema-b.out")"; fi
fi
$PY - "$OUT/batch.json" >"$OUT/batch.py" 2>&1 <<'PYEOF' && ok || bad "batch.json content: $(cat "$OUT/batch.py")"
import json, sys
c = {x["batch"]: x for x in json.load(open(sys.argv[1]))["configs"]}
assert sorted(c) == [1, 4, 8], sorted(c)
assert all(x["ran"] and x["drift"]["cosine"] == 1 and x["drift"]["max_error"] == 0 for x in c.values())
# a call of 8 observations takes longer than a call of 1 (per call, not per observation)
assert c[8]["stages"]["total"]["p50_ms"] > c[1]["stages"]["total"]["p50_ms"], c
PYEOF

# ---- image sizes off the patch grid: 256 and 320 px with a 14-px patch run
# with floor(S/14) patches per side (the remainder pixels dropped); a size
# below one patch is named, not dropped
P14="$RVD bench --sweep --preset tests/vla/tiny-p14.yaml --backend cpu --runs 1 --grid batch=1"
expect 0 "18 x 18 patches, last 4 px per side dropped" "image 256 with a 14-px patch" $P14 --grid image=56,256,320,13 --grid steps=1 --grid chunk=8 --json "$OUT/p14.json"
cp "$OUT/last.out" "$OUT/p14.txt"
grep -q "22 x 22 patches, last 12 px per side dropped" "$OUT/p14.txt" && ok || bad "image 320: 22 x 22 patches"
grep -qE "^ +1 +8 +320 +fp32 +1 +[0-9]" "$OUT/p14.txt" && ok || bad "image 320 ran"
grep -q "not run: image 13 is smaller than 14 px (patch x merge)" "$OUT/p14.txt" && ok || bad "image 13: not run, named"
grep -q "the remainder pixels are dropped" "$OUT/p14.txt" && ok || bad "the legend says the remainder is dropped"
$PY - "$OUT/p14.json" >"$OUT/p14.py" 2>&1 <<'PYEOF' && ok || bad "p14.json content: $(cat "$OUT/p14.py")"
import json, sys
c = {x["image"]: x for x in json.load(open(sys.argv[1]))["configs"]}
for s, g in ((56, 4), (256, 18), (320, 22)):
    x = c[s]
    assert x["ran"] and x["grid"] == g and x["tokens_per_camera"] == g * g, (s, x)
    assert x["pixels_dropped"] == s - 14 * g, (s, x)
assert not c[13]["ran"] and c[13]["grid"] == 0, c[13]
PYEOF
if [ -x "$PY" ] && $PY -c 'import jsonschema' 2>/dev/null; then
    if $PY tests/validate_json.py reports/sweep-schema.json "$OUT/p14.json" >"$OUT/schema-p.out" 2>&1; then ok; else bad "p14.json schema: $(head -5 "$OUT/schema-p.out")"; fi
fi

# ---- bad grid values and options: exit 2 before anything runs
expect 2 "must be an integer in [1, 1000]" "steps 0" $SW --grid steps=0
expect 2 "KEY one of steps" "unknown key" $SW --grid speed=1
expect 2 "a dtype is fp32, bf16 or fp16" "bad dtype" $SW --grid dtype=int8
expect 2 "must be an integer in [1, 64]" "batch 0" $SW --grid batch=0
expect 2 "must be an integer in [1, 64]" "batch 65" $SW --grid batch=65
expect 2 "no values" "empty list" $SW --grid steps=
expect 2 "must be an integer" "not a number" $SW --grid chunk=abc
expect 2 "needs a GPU backend" "bf16 on the cpu" $SW --grid dtype=bf16
expect 2 "--sweep must be quick or full, not 'huge'" "bad --sweep value" "$RVD" bench --sweep=huge --preset tiny --backend cpu
expect 2 "--grid needs --sweep" "--grid alone" "$RVD" bench --preset tiny --backend cpu --grid steps=1
expect 2 "do not apply" "--sweep with --dry-run" $SW --dry-run
printf 'schema: rocm-vla-doctor-checks/1\nchecks: []\n' >"$OUT/none.yaml"
expect 2 "has no check vla.latency.vision" "checks file without the budget" $SW --checks "$OUT/none.yaml"
echo '{"old": 1}' >"$OUT/keep.json"
expect 2 "" "bad grid keeps the previous report" $SW --grid steps=0 --json "$OUT/keep.json"
grep -q '"old"' "$OUT/keep.json" && ok || bad "a failed sweep overwrote its --json target"

# ---- the GPU-only modes say so on the CPU (exit 2), never pass silently
expect 2 "needs a GPU backend" "--kernel-test on the cpu backend" "$RVD" bench --kernel-test --backend cpu
expect 2 "takes no preset" "--kernel-test with a preset" "$RVD" bench --kernel-test --preset tiny
expect 2 "the cpu backend has none" "--profile on the cpu backend" "$RVD" bench --preset tiny --backend cpu --profile

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
