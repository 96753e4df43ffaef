#!/bin/sh
# sweep_report.sh - a `bench --sweep` JSON report as an HTML page and a
# markdown table (`report --html/--markdown SWEEP.json`,
# src/report/report_sweep.c): a real CPU self-test sweep, then forged GPU
# sweeps for the paths a CPU cannot produce (a configuration over budget, one
# that did not run, energy figures), escaping, and reports of the wrong shape
# (exit 2 naming the field, never a page with blanks or zeros).
# Ends with "N passed, M failed". Environment: RVD (the binary), OUT.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/sweep_report
PY=/usr/bin/python3
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=sweep_report
. tests/lib.sh
expect() { expect_rc "$@"; }
# count of a fixed string's occurrences in a file
count() { grep -oF -- "$1" "$2" | wc -l | tr -d ' '; }

# ---- a real sweep on the CPU backend, rendered
expect 0 "self-test (CPU)" "CPU sweep" "$RVD" bench --sweep --preset tiny --backend cpu --runs 2 \
    --grid image=64 --grid steps=1,5 --grid chunk=16,50 --json "$OUT/cpu.json"
expect 0 "" "report --html/--markdown of a sweep" "$RVD" report --html "$OUT/cpu.html" \
    --markdown "$OUT/cpu.md" "$OUT/cpu.json"
n=$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["configs"]))' "$OUT/cpu.json")
[ "$n" -ge 3 ] && ok || bad "the CPU sweep has $n configurations, want >= 3"
# one table row per configuration (the meta table uses <th> rows), one bar per
# configuration in each of the two latency plots, none for energy (unknown)
rows=$(grep -c '^<tr[^>]*><td class="num">' "$OUT/cpu.html")
[ "$rows" = "$n" ] && ok || bad "html: $rows configuration rows, want $n"
[ "$(count 'class="bar' "$OUT/cpu.html")" = $((2 * n)) ] && ok ||
    bad "html: $(count 'class="bar' "$OUT/cpu.html") bars, want $((2 * n))"
grep -qF "energy per call: no configuration has this figure" "$OUT/cpu.html" && ok ||
    bad "html: unknown energy is not said so"
grep -qF "self-test (CPU)" "$OUT/cpu.html" && ok || bad "html: the mode is not on the page"
grep -qiE 'nan|<script|https?:' "$OUT/cpu.html" && bad "html: NaN, a script or a URL on the page" || ok
[ "$(grep -c '^| [0-9]' "$OUT/cpu.md")" = "$n" ] && ok || bad "markdown: want $n rows: $(cat "$OUT/cpu.md")"
grep -qF '| not judged |' "$OUT/cpu.md" && ok || bad "markdown: the CPU rows are not 'not judged'"

# ---- bench --sweep --html: the same page as `report --html` of its JSON
expect 0 "" "bench --sweep --html" "$RVD" bench --sweep --preset tiny --backend cpu --runs 2 \
    --grid image=64 --grid steps=1,5 --json "$OUT/b.json" --html "$OUT/b.html"
expect 0 "" "report of bench's JSON" "$RVD" report --html "$OUT/b2.html" "$OUT/b.json"
cmp -s "$OUT/b.html" "$OUT/b2.html" && ok || bad "bench --sweep --html differs from report --html of its JSON"
expect 2 "--html needs --sweep" "bench --html without --sweep" "$RVD" bench --preset tiny --backend cpu --html "$OUT/x.html"
expect 2 "name the same file" "--html and --json the same file" "$RVD" bench --sweep --preset tiny \
    --backend cpu --json "$OUT/same" --html "$OUT/same"
expect 2 "" "--html into a missing directory" "$RVD" bench --sweep --preset tiny --backend cpu \
    --runs 2 --html "$OUT/none/x.html"
grep -q "self-test" "$OUT/last.out" && bad "--html into a missing directory ran the sweep first" || ok
expect 2 "not standard output" "--html to stdout" "$RVD" bench --sweep --preset tiny --backend cpu --html -

# ---- forged GPU sweeps from the real one: over budget, not run, energy, hostile strings
$PY - "$OUT/cpu.json" "$OUT" <<'PYEOF' || bad "forging the GPU sweeps failed"
import copy, json, sys
d = json.load(open(sys.argv[1])); out = sys.argv[2]
d["mode"], d["backend"], d["device"] = "gpu", "cuda", "GPU <script>x</script>"
c = d["configs"]
for i, x in enumerate(c):
    x["energy_j"], x["energy_note"] = 10.0 + i, "NVML energy counter"
    x["budget"] = {"mark": "meets", "meets": True, "checks": [
        {"id": "vla.latency.vision", "status": "pass", "summary": "vision ok"},
        {"id": "vla.latency.total", "status": "pass", "summary": "total ok"}]}
c[0]["budget"]["mark"], c[0]["budget"]["meets"] = "over budget", False
c[0]["budget"]["checks"][1].update(status="fail", summary="total 99 ms over 80 ms")
nr = copy.deepcopy(c[1])
nr.update(ran=False, note="batch 8 | out of memory", stages=None, control_rate_hz=None,
          memory_used_bytes=None, energy_j=None, drift=None, budget=None, image=320)
c.append(nr)
json.dump(d, open(out + "/gpu.json", "w"))
def bad(path, value, name):
    e = copy.deepcopy(d); o = e
    for k in path[:-1]: o = o[k]
    if value is KeyError: del o[path[-1]]
    else: o[path[-1]] = value
    json.dump(e, open(out + "/" + name + ".json", "w"))
bad(["configs", 1, "stages", "total", "p50_ms"], "12", "str_p50")
bad(["configs", 0, "energy_j"], KeyError, "no_energy")
bad(["configs", 2, "batch"], 1.5, "frac_batch")
bad(["configs", 0, "budget", "checks", 1, "status"], 3, "num_status")
bad(["configs"], {}, "configs_obj")
bad(["runs"], None, "null_runs")
PYEOF
expect 0 "" "report of a forged GPU sweep" "$RVD" report --html "$OUT/gpu.html" --markdown "$OUT/gpu.md" "$OUT/gpu.json"
grep -q '<tr class="row-fail">' "$OUT/gpu.html" && ok || bad "html: the over-budget row is not marked"
[ "$(count 'class="bar over"' "$OUT/gpu.html")" = 3 ] && ok ||
    bad "html: the over-budget configuration is not in the alarm colour in the three plots"
grep -qF 'total 99 ms over 80 ms' "$OUT/gpu.html" && ok || bad "html: the failing budget check's summary is missing"
grep -qF 'not run: batch 8 | out of memory' "$OUT/gpu.html" && ok || bad "html: the not-run configuration's reason"
# the not-run row: dashes, and no bar (n ran + energy plot of n bars)
[ "$(count 'class="bar' "$OUT/gpu.html")" = $((3 * n)) ] && ok ||
    bad "html: $(count 'class="bar' "$OUT/gpu.html") bars, want $((3 * n)) (a not-run configuration has none)"
grep -qF '&lt;script&gt;x&lt;/script&gt;' "$OUT/gpu.html" && ! grep -qF '<script>' "$OUT/gpu.html" && ok ||
    bad "html: the device name is not escaped"
grep -qF 'batch 8 \| out of memory' "$OUT/gpu.md" && ok || bad "markdown: a '|' in a note is not escaped"
grep -qF '| over budget |' "$OUT/gpu.md" && ok || bad "markdown: the over-budget mark"
grep -qE '^\| 10 \| 50 \| 320 \| fp32 \| 1 \| - \| - ' "$OUT/gpu.md" || grep -qE '^\| [0-9]+ \| [0-9]+ \| 320 \| [a-z0-9]+ \| 1 \| - \| - ' "$OUT/gpu.md" && ok ||
    bad "markdown: the not-run row has no dashes: $(grep 320 "$OUT/gpu.md")"

# ---- the page fits: no plot label outside its svg, the table's 19 columns in
# the 1152 px of the body (72em) at its 0.8em type (12.8 px) and 10 px of
# padding and border a cell, each row one line (the notes under the table)
for p in cpu gpu; do
    if out=$($PY tests/page_fit.py svg "$OUT/$p.html"); then ok; else bad "$p.html: a plot label is clipped: $out"; fi
    if out=$($PY tests/page_fit.py table "$OUT/$p.html" sweep 19 1152 12.8 10); then ok; else
        bad "$p.html: the table does not fit: $out"
    fi
done
grep -qF 'table.sweep{font-size:.8em}' "$OUT/gpu.html" && ok ||
    bad "the page's css is not the one the width budget assumes"
# a row's mark links to its note under the table
grep -qE '<td class="mark"><a href="#cfg-1">over budget</a></td>' "$OUT/gpu.html" &&
    grep -qE '<li id="cfg-1">steps .*: over budget<br><code>vla.latency.vision</code>' "$OUT/gpu.html" && ok ||
    bad "html: the over-budget row does not link to its budget checks"

# ---- wrong shapes: exit 2 naming the field, no output file left
for case in "str_p50:configs[1].stages.total.p50_ms is not a number or null" \
    "no_energy:configs[0].energy_j is missing" \
    "frac_batch:configs[2].batch is not an integer" \
    "num_status:configs[0].budget.checks[1].status is not a string" \
    "configs_obj:configs is not an array" \
    "null_runs:runs is not an integer"; do
    f=${case%%:*} msg=${case#*:}
    expect 2 "$msg" "report of $f" "$RVD" report --html "$OUT/$f.html" "$OUT/$f.json"
    [ ! -e "$OUT/$f.html" ] && ok || bad "report of $f left a page behind"
done
printf '{"schema": "rocm-vla-doctor-sweep/1", "configs": [' >"$OUT/trunc.json"
expect 2 "" "a truncated sweep report" "$RVD" report --html "$OUT/trunc.html" "$OUT/trunc.json"
[ ! -e "$OUT/trunc.html" ] && ok || bad "a truncated report left a page behind"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
