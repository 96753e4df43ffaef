#!/bin/sh
# data_audit.sh - `make data-audit` (tools/data_audit.py): every row of
# every support-data table has a source, and the audit can fail: copies of
# checks.yaml and of a source table with a row's source removed must be
# caught, naming the row; an unverified row is listed as unverified.
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}/data_audit
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=data_audit
. tests/lib.sh
TSVS=$(ls tests/data/sources/*.tsv)

# shellcheck disable=SC2086 # the file list splits on purpose
python3 tools/data_audit.py checks.yaml $TSVS >"$OUT/real.out"
rc=$?
grep 'NO SOURCE' "$OUT/real.out"
n=$(sed -n 's/^\([0-9]*\) rows, .*/\1/p' "$OUT/real.out")
[ $rc -eq 0 ] && [ "${n:-0}" -ge 280 ] && ok || bad "the real data: $(tail -1 "$OUT/real.out")"
# every table is listed: checks.yaml's data tables, peaks, each TSV
for t in gfx_supported gfx_override_family torch_wheel_torch torch_wheel_python torch_wheel_gfx \
    rocm_release_order peaks rocm-gfx-support.tsv wheel-indexes.tsv wheels.tsv peaks.tsv; do
    grep -q "^$t " "$OUT/real.out" && ok || bad "table $t is not in the audit"
done
grep -q '^gfx_supported 10.1: unverified' "$OUT/real.out" && ok || bad "10.1 is not listed unverified"
grep -q '^gfx_supported 10.0: verified: ROCm/rocm-docs' "$OUT/real.out" && ok ||
    bad "10.0 is not listed verified with its source"

# planted: a gfx_supported row without its source, a TSV row without one
sed '/^    "10.0": "ROCm\/rocm-docs/d' checks.yaml >"$OUT/planted1.yaml"
python3 tools/data_audit.py "$OUT/planted1.yaml" >"$OUT/planted1.out"
rc=$?
[ $rc -eq 1 ] && grep -q '^gfx_supported 10.0: NO SOURCE' "$OUT/planted1.out" && ok ||
    bad "a row without a source was not caught (exit $rc): $(tail -1 "$OUT/planted1.out")"
T=$(printf '\t')
sed "s/^\(7.2${T}gfx1201${T}carried${T}\).*/\1/" tests/data/sources/rocm-gfx-support.tsv >"$OUT/planted2.tsv"
python3 tools/data_audit.py checks.yaml "$OUT/planted2.tsv" >"$OUT/planted2.out"
rc=$?
[ $rc -eq 1 ] && grep -q '^planted2.tsv 7.2 gfx1201: NO SOURCE' "$OUT/planted2.out" && ok ||
    bad "a TSV row without a source was not caught (exit $rc): $(grep NO "$OUT/planted2.out")"
# a whole table without a _source table
sed 's/^  rocm_release_order_source:/  rocm_release_order_sources:/' checks.yaml >"$OUT/planted3.yaml"
python3 tools/data_audit.py "$OUT/planted3.yaml" >"$OUT/planted3.out"
[ $? -eq 1 ] && grep -q '^rocm_release_order (table): NO SOURCE' "$OUT/planted3.out" && ok ||
    bad "a table without sources was not caught"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
