#!/bin/sh
# fleet.sh - `rocm-vla-doctor fleet` end to end on reports the real binary
# wrote from fixture machines, and hand-edited copies of them (hostnames,
# figures, versions, statuses): all nodes alike, one failing, figure
# outliers both ways and with --tolerance, version mismatches and a split,
# a directory as input, the JSON output against reports/fleet-schema.json,
# terminal escapes in a hostname, and bad input (exit 2 naming the file).
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
NAME=fleet
. tests/lib.sh
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/fleet"
rm -rf "$D" && mkdir -p "$D"
PY=/usr/bin/python3

# t NAME WANT_EXIT ARGS... ; stdout in $D/NAME.out, stderr in $D/NAME.err;
# COLUMNS (default wide: one table row per node for the greps) as given
t() {
    name=$1
    want=$2
    shift 2
    COLUMNS=${COLS:-1000} "$RVD" fleet --no-color "$@" >"$D/$name.out" 2>"$D/$name.err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else
        bad "$name: exit $rc, want $want"
        cat "$D/$name.out" "$D/$name.err" | sed 's/^/    /' | head -12
    fi
}
has() { # has NAME out|err REGEX
    if grep -Eq -- "$3" "$D/$1.$2"; then ok; else
        bad "$1: $2 lacks /$3/"
        sed 's/^/    /' "$D/$1.$2" | head -12
    fi
}
hasnt() { # hasnt NAME out|err REGEX
    if grep -Eq -- "$3" "$D/$1.$2"; then
        bad "$1: $2 has /$3/"
        sed 's/^/    /' "$D/$1.$2" | head -12
    else ok; fi
}
# edit SRC DST PYTHON: a copy of a report with d (the document), f (its
# facts) and c (checks by id) changed by the statements given
edit() {
    $PY - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["facts"]
c = {x["id"]: x for x in d["checks"]}
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

# the base report: a machine that passes, with the figures a standard/full
# run on a GPU adds (numbers from docs/PERFORMANCE.md's H200 run)
"$RVD" --sysroot tests/fixtures/mi300x-node/root --json "$D/mi300x.json" >/dev/null 2>&1
rc=$?
[ "$rc" = 0 ] && ok || bad "the mi300x-node report: exit $rc, want 0"
"$RVD" --sysroot tests/fixtures/mi250x-degraded/root --json "$D/mi250x.json" >/dev/null 2>&1
rc=$?
[ "$rc" = 1 ] && ok || bad "the mi250x-degraded report: exit $rc, want 1"
# the figures as a GPU run names them: per GPU (gpu.<j>.*, gpu.measured)
FIG='f["gpu.measured"]=["0"]; f["gpu.0.bw.h2d_pinned_gbs"]=55.3; f["gpu.0.bw.d2h_pinned_gbs"]=55.1; f["gpu.0.gemm_peak.bf16_tflops"]=766.0; f["gpu.0.gemm_peak.fp32_tflops"]=51.0; f["vla.latency.total_ms"]=30.3'
mkdir -p "$D/same" "$D/fail" "$D/out" "$D/ver" "$D/split" "$D/empty" "$D/nojson"
for n in a b c d; do
    edit "$D/mi300x.json" "$D/same/node-$n.json" "$FIG; f['host.hostname']='node-$n'"
done

# ---- all alike -------------------------------------------------------------
t same 0 "$D/same/node-a.json" "$D/same/node-b.json" "$D/same/node-c.json" "$D/same/node-d.json"
has same out '^rocm-vla-doctor fleet: 4 nodes, 0 failing, 0 figure outliers, 0 version mismatches'
has same out '^NODE +RESULT +H2D GB/s +D2H GB/s +bf16 TFLOP/s +fp32 TFLOP/s +VLA p50 ms +driver +rocm +kernel +vbios$'
has same out '^node-c +ok +55\.3 +55\.1 +766 +51 +30\.3 +6\.8\.5 \(amdgpu-dkms\) +6\.2\.0 '
has same out 'Every node passes'
hasnt same out '!'

# ---- a directory as input: the same table, in file-name order ---------------
t dir 0 "$D/same"
if cmp -s "$D/same.out" "$D/dir.out"; then ok; else bad "a directory and its files give different tables"; fi
touch "$D/same/README.txt" # not a report: ignored
t dir-other-files 0 "$D/same"

# ---- one node fails a check --------------------------------------------------
cp "$D/same/node-a.json" "$D/same/node-b.json" "$D/same/node-c.json" "$D/fail/"
edit "$D/same/node-d.json" "$D/fail/node-d.json" 'c["pcie.atomics"]["status"]="fail"; d["summary"]["fail"]=1'
t fail 1 "$D/fail"
has fail out '^rocm-vla-doctor fleet: 4 nodes, 1 failing, 0 figure outliers, 0 version mismatches'
has fail out 'pcie\.atomics$' # the differing verdict is a column
has fail out '^node-d +FAIL 1 .* fail$'
has fail out '^node-a +ok .* pass$'
has fail out 'node-d: 1 check failed'
hasnt fail out 'gpu\.vram' # verdicts all nodes share are not columns
# a real failing machine in a fleet of passing ones
t real-fail 1 "$D/same/node-a.json" "$D/same/node-b.json" "$D/mi250x.json"
has real-fail out '^hpc-gpu12 +FAIL [0-9]+ '

# ---- figure outliers -----------------------------------------------------------
cp "$D/same/node-a.json" "$D/same/node-b.json" "$D/out/"
edit "$D/same/node-c.json" "$D/out/node-c.json" 'f["gpu.0.bw.h2d_pinned_gbs"]=30.0; f["vla.latency.total_ms"]=20.0'
edit "$D/same/node-d.json" "$D/out/node-d.json" 'f["vla.latency.total_ms"]=45.0; f["gpu.0.gemm_peak.bf16_tflops"]=900.0'
t outlier 1 "$D/out"
has outlier out '4 nodes, 0 failing, 2 figure outliers, 0 version mismatches'
# lower bandwidth is bad; a lower latency and a higher GEMM rate are not
has outlier out '^node-c +ok +30 ! +55\.1 +766 +51 +20 +'
has outlier out '^node-d +ok +55\.3 +55\.1 +900 +51 +45 ! '
has outlier out 'node-c: bw\.h2d_pinned_gbs 30 GB/s is 46% below the fleet median 55\.3 \(threshold 15%\)'
has outlier out 'node-d: vla\.latency\.total_ms 45 ms is 49% above the fleet median 30\.3 \(threshold 15%\)'
hasnt outlier out 'node-c: vla|node-d: gpu\.gemm'
# thresholds: wider for the bandwidth leaves the latency; off for both passes
t outlier-tol 1 "$D/out" --tolerance 'bw.*=50'
has outlier-tol out '1 figure outlier,'
t outlier-off 0 "$D/out" --tolerance 'bw.*=50' --tolerance 'vla.latency.total_ms=off'
t outlier-badtol 2 "$D/out" --tolerance 'bw.h2d_pinned_gbs=-3'
has outlier-badtol err 'percentage must be a number'
# an unknown figure is no outlier and no part of the median
edit "$D/same/node-d.json" "$D/out/node-d.json" 'f["gpu.0.bw.h2d_pinned_gbs"]=None; f.pop("vla.latency.total_ms")'
t outlier-unknown 1 "$D/out"
has outlier-unknown out '1 figure outlier,'
has outlier-unknown out '^node-d +ok +- +55\.1 +766 +51 +- '

# per-GPU figures (a probe run once per GPU): the node's worst GPU counts
mkdir -p "$D/pergpu"
cp "$D/same/node-a.json" "$D/same/node-b.json" "$D/same/node-c.json" "$D/pergpu/"
edit "$D/same/node-d.json" "$D/pergpu/node-d.json" 'f["gpu.measured"]=["0", "1"]; f["gpu.0.bw.h2d_pinned_gbs"]=55.0; f["gpu.1.bw.h2d_pinned_gbs"]=20.0; f["gpu.0.gemm_peak.bf16_tflops"]=770.0; f["gpu.1.gemm_peak.bf16_tflops"]=760.0'
t per-gpu 1 "$D/pergpu"
has per-gpu out '^node-d +ok +20 ! +55\.1 +760 +51 +30\.3 '
has per-gpu out 'node-d: bw\.h2d_pinned_gbs 20 GB/s is 64% below the fleet median 55\.3'
rm -rf "$D/pergpu"

# ---- versions ------------------------------------------------------------------
cp "$D/same/node-a.json" "$D/same/node-b.json" "$D/same/node-c.json" "$D/ver/"
edit "$D/same/node-d.json" "$D/ver/node-d.json" 'f["driver.version"]="6.7.0 (amdgpu-dkms)"; f["gpu.3.vbios"]="113-M3000100-999"'
t version 1 "$D/ver"
has version out '4 nodes, 0 failing, 0 figure outliers, 2 version mismatches'
has version out "node-d: driver '6\.7\.0 \(amdgpu-dkms\)', most nodes have '6\.8\.5 \(amdgpu-dkms\)'"
has version out "node-d: vbios '113-M3000100-102, 113-M3000100-999', most nodes have '113-M3000100-102'"
hasnt version out 'node-[abc]:'
# two against two: no majority, every node is marked
cp "$D/ver/node-a.json" "$D/ver/node-d.json" "$D/split/"
edit "$D/same/node-b.json" "$D/split/node-b.json" 'f["driver.version"]="6.7.0 (amdgpu-dkms)"'
cp "$D/same/node-c.json" "$D/split/node-c.json"
t split 1 "$D/split" --tolerance '*=off'
has split out "node-a: driver '6\.8\.5 \(amdgpu-dkms\)', and no version is held by most nodes"
has split out "node-b: driver '6\.7\.0 \(amdgpu-dkms\)', and no version is held by most nodes"

# ---- VBIOS per model: images differ by board, so only one model's GPUs agree --
mkdir -p "$D/models"
cp "$D/same/node-a.json" "$D/same/node-b.json" "$D/same/node-c.json" "$D/models/"
MI250='for k in [k for k in f if k.endswith(".device_id")]: f[k]="0x740c"
for k in [k for k in f if k.endswith(".vbios")]: f[k]="113-D65201-042"'
edit "$D/same/node-d.json" "$D/models/node-d.json" "$MI250; f['host.hostname']='node-d'"
edit "$D/same/node-d.json" "$D/models/node-e.json" "$MI250; f['host.hostname']='node-e'"
t models 0 "$D/models"
has models out '0 version mismatches'
# a model's odd one out is a mismatch, named with its model
edit "$D/same/node-d.json" "$D/models/node-f.json" "$MI250; f['host.hostname']='node-f'; f['gpu.1.vbios']='113-D65201-047'"
t models-odd 1 "$D/models"
has models-odd out '1 version mismatch$'
has models-odd out "node-f: vbios '113-D65201-042, 113-D65201-047' on its 0x740c GPUs, most nodes with that model have '113-D65201-042'"
hasnt models-odd out 'node-[a-e]:'
t models-json 1 "$D/models" --json "$D/models.json"
$PY - "$D/models.json" <<'PY' && ok || bad "fleet JSON: the VBIOS majority per model"
import json, sys
a = json.load(open(sys.argv[1]))
v = a["versions"]["vbios"]
assert v["majority"] is None and v["by_model"] == {"0x740c": "113-D65201-042", "0x74a1": "113-M3000100-102"}, v
assert [n["versions"]["vbios"]["mismatch"] for n in a["nodes"]] == [False] * 5 + [True]
PY

# ---- the text fits the terminal: every input at 80 and 120 columns -------------
widest() { # widest FILE: the longest line in code points
    $PY -c 'import sys; print(max([len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")] + [0]))' "$1"
}
# the inputs: name, then the reports; the verdict must not depend on the width
set -- same "$D/same" fail "$D/fail" out "$D/out" ver "$D/ver" split "$D/split" \
    models "$D/models" real "$D/same/node-a.json $D/same/node-b.json $D/mi250x.json"
while [ $# -ge 2 ]; do
    in=$1 files=$2
    shift 2
    # shellcheck disable=SC2086 # files: a list of paths without spaces
    COLUMNS=1000 "$RVD" fleet --no-color $files >"$D/wide-$in.out" 2>&1
    want=$?
    for cols in 80 120; do
        # shellcheck disable=SC2086
        COLUMNS=$cols "$RVD" fleet --no-color $files >"$D/w$cols-$in.out" 2>&1
        rc=$?
        w=$(widest "$D/w$cols-$in.out")
        if [ "$rc" = "$want" ] && [ "$w" -le "$cols" ]; then ok; else
            bad "fleet $in at COLUMNS=$cols: exit $rc (want $want), widest line $w"
            sed 's/^/    /' "$D/w$cols-$in.out" | head -12
        fi
    done
done
# at 80 columns the table is blocks of columns, each led by the node's name,
# and a reason too long for a line goes on, indented, on the next
has w80-real out '^NODE +RESULT +H2D GB/s'
has w80-real out '^NODE +driver +rocm'
has w80-real out '^hpc-gpu12 +FAIL [0-9]+ '
has w80-real out '^hpc-gpu12 +6\.3\.6 \(amdgpu-dkms\) ! '
has w80-models out '^    with that model have'
# a cell wider than a line is cut with "..." (the JSON keeps it whole), its mark kept
edit "$D/same/node-a.json" "$D/longver.json" "f['kernel.release']='6.8.0-' + 'x' * 120"
COLUMNS=80 "$RVD" fleet --no-color "$D/longver.json" "$D/same/node-b.json" "$D/same/node-c.json" >"$D/w80-long.out" 2>&1
w=$(widest "$D/w80-long.out")
[ "$w" -le 80 ] && ok || bad "a 126-character kernel release at 80 columns: widest line $w"
has w80-long out '^node-a +6\.8\.0-x+\.\.\. !$'

# ---- JSON output ---------------------------------------------------------------
t json 1 "$D/out" "$D/ver/node-d.json" --json "$D/fleet.json"
t json-stdout 1 "$D/fail" --json -
has json-stdout err '^rocm-vla-doctor fleet: 4 nodes' # the text moves to stderr
t json-same 0 "$D/same" --json "$D/fleet-same.json"
if $PY tests/validate_json.py reports/fleet-schema.json "$D/fleet.json" "$D/json-stdout.out" \
    "$D/fleet-same.json" >"$D/schema.err" 2>&1; then ok; else
    bad "fleet JSON does not validate against reports/fleet-schema.json"
    sed 's/^/    /' "$D/schema.err" | head -10
fi
$PY - "$D/fleet.json" "$D/json-stdout.out" <<'PY' && ok || bad "fleet JSON content"
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
names = [n["name"] for n in a["nodes"]]
assert names == ["node-a", "node-b", "node-c", "node-d", "node-d"], names
assert a["summary"] == {"nodes": 5, "failing": 0, "outliers": 1, "version_mismatches": 2, "exit_code": 1}, a["summary"]
med = {x["fact"]: x["median"] for x in a["figures"]}
assert med["bw.h2d_pinned_gbs"] == 55.3 and med["vla.latency.total_ms"] == 30.3, med
assert a["nodes"][2]["figures"]["bw.h2d_pinned_gbs"] == {"value": 30.0, "deviation_pct": a["nodes"][2]["figures"]["bw.h2d_pinned_gbs"]["deviation_pct"], "outlier": True}
assert abs(a["nodes"][2]["figures"]["bw.h2d_pinned_gbs"]["deviation_pct"] + 45.75) < 0.01
assert a["nodes"][3]["figures"]["bw.h2d_pinned_gbs"]["value"] is None
assert a["versions"]["driver"]["majority"] == "6.8.5 (amdgpu-dkms)"
assert a["nodes"][4]["versions"]["driver"] == {"value": "6.7.0 (amdgpu-dkms)", "mismatch": True}
assert b["differing_checks"] == ["pcie.atomics"], b["differing_checks"]
assert [n["checks"]["pcie.atomics"] for n in b["nodes"]] == ["pass", "pass", "pass", "fail"]
assert b["nodes"][3]["failed_checks"] == ["pcie.atomics"] and b["summary"]["failing"] == 1
PY

# ---- names: hostname, else the file name; terminal escapes neutralised ----------
edit "$D/same/node-a.json" "$D/evil.json" 'f["host.hostname"]="ev\x1b]0;owned\x07il\x1b[31m"; f["driver.version"]="x\x1b[2J"'
edit "$D/same/node-b.json" "$D/nameless.json" 'f.pop("host.hostname")'
t evil 1 "$D/evil.json" "$D/same/node-b.json" "$D/nameless.json"
if grep -q "$(printf '\033')" "$D/evil.out"; then bad "a raw ESC reached the text output"; else ok; fi
has evil out '^ev.*il'
has evil out '^nameless\.json +ok '

# ---- bad input: exit 2, the file named ---------------------------------------------
printf '{"schema": "rocm-vla-doctor/1", "facts": ' >"$D/trunc.json"
t bad-json 2 "$D/same/node-a.json" "$D/trunc.json"
has bad-json err 'trunc\.json: invalid JSON at line 1'
echo '{"schema": "something-else/1"}' >"$D/foreign.json"
t bad-foreign 2 "$D/foreign.json"
has bad-foreign err 'foreign\.json: not a rocm-vla-doctor report'
t bad-missing 2 "$D/same/node-a.json" "$D/no-such.json"
has bad-missing err "cannot read report '.*no-such\.json'"
cp "$D/trunc.json" "$D/nojson/zz.json"
cp "$D/same/node-a.json" "$D/nojson/a.json"
t bad-in-dir 2 "$D/nojson"
has bad-in-dir err 'nojson/zz\.json: invalid JSON'
t bad-empty-dir 2 "$D/empty"
has bad-empty-dir err "directory '.*empty' holds no \*\.json report"
# a FIFO among the reports is refused at once, never waited on
mkdir -p "$D/fifo"
cp "$D/same/node-a.json" "$D/fifo/a.json"
mkfifo "$D/fifo/b.json"
timeout 10 "$RVD" fleet "$D/fifo" >"$D/bad-fifo.out" 2>"$D/bad-fifo.err"
rc=$?
[ "$rc" = 2 ] && ok || bad "a FIFO among the reports: exit $rc, want 2"
has bad-fifo err "b\.json.*not a regular file"
rm -f "$D/fifo/b.json"
t bad-noargs 2
has bad-noargs err 'fleet takes one or more reports'
t bad-option 2 "$D/same" --bogus
has bad-option err "unknown option '--bogus'"
# --html: the fleet's spread as one self-contained page, a dot per node and
# the median (src/report/report_html_fleet.c), named as the table names them
t html 1 "$D/out" --html "$D/fleet.html"
if [ -s "$D/fleet.html" ] && [ "$(grep -c '<svg' "$D/fleet.html")" -ge 3 ] &&
    grep -q 'node-c' "$D/fleet.html" && grep -q 'median' "$D/fleet.html" &&
    ! grep -Eq '<script src|<link |https?://' "$D/fleet.html"; then ok; else
    bad "fleet --html: no self-contained page with the nodes' spread"
fi
# the page leads with what failed the fleet: every reason the text gives
for in in ver models split; do
    t "html-$in" 1 "$D/$in" --html "$D/fleet-$in.html" --tolerance '*=off'
    $PY - "$D/html-$in.out" "$D/fleet-$in.html" <<'PY' && ok || bad "fleet --html ($in) lacks a reason the text gives"
import html, re, sys
text = open(sys.argv[1]).read().split("Why the fleet does not pass ('!' in the table):\n")[1]
why = [l.strip() for l in text.splitlines() if l.strip()]
page = open(sys.argv[2]).read()
items = [html.unescape(re.sub("<[^>]+>", "", i)) for i in re.findall(r"<li>(.*?)</li>", page)]
assert why and all(w in items for w in why), (why, items)
assert page.index("Why the fleet does not pass") < page.index("<h2>Nodes</h2>")
PY
done
# the plots' labels fit their svg; a hostname too long for the label column
# is cut with "..." and given whole in its tooltip
mkdir -p "$D/long"
edit "$D/same/node-a.json" "$D/long/node-long.json" "f['host.hostname']='node-' + 'l' * 70"
cp "$D/same/node-b.json" "$D/long/"
t html-long 0 "$D/long" --html "$D/fleet-long.html"
for p in fleet fleet-ver fleet-long; do
    if out=$($PY tests/page_fit.py svg "$D/$p.html"); then ok; else bad "$p.html: a plot label is clipped: $out"; fi
done
grep -qE '<title>node-l{70} GPU 0</title>node-l{36}\.\.\.<' "$D/fleet-long.html" && ok ||
    bad "fleet-long.html: the long label is not cut with its tooltip"
t html-same 2 "$D/same" --html "$D/x.html" --json "$D/x.html"
has html-same err 'name the same file'
t html-stdout-both 2 "$D/same" --html - --json -
has html-stdout-both err 'cannot both write to stdout'
t bad-html-out 2 "$D/same" --html "$D/no/such/dir/f.html"
if [ -e "$D/no/such/dir/f.html" ]; then bad "an html page was written into a missing directory"; else ok; fi
t bad-json-out 2 "$D/same" --json "$D/no/such/dir/f.json"
if [ -e "$D/no/such/dir/f.json" ]; then bad "an output was written into a missing directory"; else ok; fi
t help 0 --help
has help out '^usage: rocm-vla-doctor fleet'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
