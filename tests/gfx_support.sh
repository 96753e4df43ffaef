#!/bin/sh
# gfx_support.sh - the support data of gpu.gfx_supported (checks.yaml's
# gfx_supported, gfx_supported_source, gfx_override_family) against the
# published lists kept as data with their citations
# (tests/data/sources/rocm-gfx-support.tsv): every release of the probe's
# list has a row, every target a row lists is in the source table for that
# release (and the reverse), a release with an unverified source row is
# marked unverified, and no target of gfx_override_family is on any list
# (tests/gfx_support.py). The test can fail: copies of checks.yaml with a
# planted target and a planted unmarked row must be caught.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}/gfx_support
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=gfx_support
. tests/lib.sh
TSV=tests/data/sources/rocm-gfx-support.tsv
PROBE=probes/probe_rocm.c

python3 tests/gfx_support.py checks.yaml "$TSV" "$PROBE" >"$OUT/real.out"
rc=$?
grep '^FAIL' "$OUT/real.out"
n=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' "$OUT/real.out")
[ $rc -eq 0 ] && [ "${n:-0}" -ge 150 ] && ok || bad "checks.yaml against $TSV: $(tail -1 "$OUT/real.out")"

# planted: gfx1031 on ROCm 5.4 (no source lists it), then 5.6 marked unverified
sed 's/^    "5.4": \[gfx906,/    "5.4": [gfx1031, gfx906,/' checks.yaml >"$OUT/planted1.yaml"
python3 tests/gfx_support.py "$OUT/planted1.yaml" "$TSV" "$PROBE" >"$OUT/planted1.out"
grep -q 'checks.yaml lists gfx1031 for ROCm 5.4' "$OUT/planted1.out" && ok ||
    bad "a target the source table lacks was not caught: $(tail -3 "$OUT/planted1.out")"
sed 's/^    "5.6": "ROCm/    "5.6": "unverified: ROCm/' checks.yaml >"$OUT/planted2.yaml"
python3 tests/gfx_support.py "$OUT/planted2.yaml" "$TSV" "$PROBE" >"$OUT/planted2.out"
grep -q "gfx_supported_source '5.6' must start" "$OUT/planted2.out" && ok ||
    bad "a wrongly marked row was not caught: $(tail -3 "$OUT/planted2.out")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
