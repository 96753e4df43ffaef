#!/bin/sh
# gpu_pins.sh - tests/gpu_pins.py, which make test-gpu runs on the H200 with
# tests/data/h200-pins.tsv, checked without a GPU: every pinned id is a
# check of the standard or full level; a report of an H200 whose checks give
# the pinned statuses prints one "pin" line each, one check off (or not run)
# prints a "PIN" line for it with its rule; another GPU, or none, gets a
# note and no pin; a malformed pins file is exit 2.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}/gpu_pins
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=gpu_pins
. tests/lib.sh
PINS=tests/data/h200-pins.tsv

"$RVD" list >"$OUT/list.txt" 2>&1 || bad "list failed"
for id in $(grep -v '^#' "$PINS" | sed 1d | cut -f1); do
    grep -qE "^$id +(standard|full) " "$OUT/list.txt" && ok || bad "$id is pinned but no check of the standard or full level"
done

# mk NAME STATUS-OVERRIDE: a report of runtime device NAME whose checks give
# the pinned statuses, but the one named ID=STATUS
mk() {
    python3 - "$PINS" "$1" "$2" <<'PY'
import json, sys
pins = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()
        if l and not l.startswith("#") and not l.startswith("check\t")]
off = dict([sys.argv[3].split("=")]) if "=" in sys.argv[3] else {}
checks = [{"id": p[0], "status": off.get(p[0], p[1]), "rule": off.get(p[0], p[1]) + "[0]"}
          for p in pins if off.get(p[0]) != "absent"]
facts = {"runtime.dev.0.name": None if sys.argv[2] == "-" else sys.argv[2]}
print(json.dumps({"facts": facts, "checks": checks}))
PY
}
n=$(grep -v '^#' "$PINS" | sed 1d | grep -c .)
mk "NVIDIA H200" "" >"$OUT/good.json"
python3 tests/gpu_pins.py "$PINS" "$OUT/good.json" >"$OUT/good.out" 2>&1
[ "$(grep -c '^pin ' "$OUT/good.out")" -eq "$n" ] && ! grep -qv '^pin ' "$OUT/good.out" && ok || bad "H200 with the pinned statuses: $(head -3 "$OUT/good.out")"
grep -q '^pin sync.latency: pass (rule pass\[0\]), want pass$' "$OUT/good.out" && ok || bad "pin line format: $(grep sync.latency "$OUT/good.out")"

mk "NVIDIA H200" "gpu.gemm_peak=warn" >"$OUT/warn.json"
python3 tests/gpu_pins.py "$PINS" "$OUT/warn.json" >"$OUT/warn.out" 2>&1
[ "$(grep -c '^PIN ' "$OUT/warn.out")" -eq 1 ] && grep -q '^PIN gpu.gemm_peak: warn (rule warn\[0\]), want pass$' "$OUT/warn.out" && ok || bad "a warning off its pin: $(grep -v '^pin ' "$OUT/warn.out")"
# a check missing from the first report is taken from the next (the full level's)
mk "NVIDIA H200" "vla.numerics=absent" >"$OUT/novla.json"
python3 tests/gpu_pins.py "$PINS" "$OUT/novla.json" >"$OUT/novla.out" 2>&1
grep -q '^PIN vla.numerics: missing (rule none), want pass$' "$OUT/novla.out" && ok || bad "a check that did not run: $(grep vla.numerics "$OUT/novla.out")"
python3 tests/gpu_pins.py "$PINS" "$OUT/novla.json" "$OUT/good.json" >"$OUT/two.out" 2>&1
! grep -q '^PIN' "$OUT/two.out" && ok || bad "the second report not read: $(grep '^PIN' "$OUT/two.out")"

for gpu in "AMD Instinct MI300X" -; do
    mk "$gpu" "gpu.gemm_peak=fail" >"$OUT/other.json"
    python3 tests/gpu_pins.py "$PINS" "$OUT/other.json" >"$OUT/other.out" 2>&1
    [ "$(grep -c . "$OUT/other.out")" -eq 1 ] && grep -q '^note the H200 pins do not apply: runtime device 0 is ' "$OUT/other.out" && ok || bad "$gpu: $(head -2 "$OUT/other.out")"
done

printf 'check\tstatus\twhy\nsync.latency\tgreen\tno such status\n' >"$OUT/h200-pins.tsv"
python3 tests/gpu_pins.py "$OUT/h200-pins.tsv" "$OUT/good.json" >"$OUT/badpins.out" 2>&1
[ $? -eq 2 ] && grep -q 'h200-pins.tsv:2: want' "$OUT/badpins.out" && ok || bad "malformed pins file: $(cat "$OUT/badpins.out")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
