#!/bin/sh
# tui_gpus.sh - many GPUs and the PCIe path on the dashboard and in monitor:
# the 8-GPU mi300x fixture at 120x40 and 80x24 (headless frames and a live
# tmux terminal) shows every GPU's PCI address at once and the failing
# check; at 120x40 the selected GPU's panel with its plots sits under the
# GPU lines and Right/Left/Tab/digits select another; the PCIe path's
# narrowest hop beside the GPU's own link, marked when it holds the GPU back
# (rx7900xtx-desktop: an x8 slot behind a GPU that reads x16) and not marked
# when it does not (mi300x: x16 Gen5 hops); the same in monitor's JSON
# (schema-validated) and CSV.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=tui_gpus
. tests/lib.sh
D="$OUT/tui_gpus"
rm -rf "$D" && mkdir -p "$D"
D_ABS=$(cd "$D" && pwd)
RVD_ABS=$(cd "$(dirname "$RVD")" && pwd)/$(basename "$RVD")
MI=tests/fixtures/mi300x-node/root
DESK=tests/fixtures/rx7900xtx-desktop/root
# a CUDA-only requirements file: python.requirements fails on the AMD node
REQ=tests/fixtures/rx7900xtx-desktop/requirements.txt
BDFS="05 15 65 75 85 95 e5 f5"

. tests/tui_lib.sh
# every GPU's address on its own line, and the failing check
all_gpus() {
    for b in $BDFS; do has "$1" "GPU[0-7] 0000:$b:00\\.0 "; done
    has "$1" '\[XX\] python\.requirements'
}

# ---- headless frames ---------------------------------------------------------
for size in 40x120 24x80; do
    LC_ALL=C "$RVD" dashboard --sysroot $MI --requirements $REQ --size $size --frames 4 \
        --interval 100 --history 2 >"$D/mi-$size.out" 2>"$D/mi-$size.err"
    rc=$?
    if [ $rc -eq 0 ]; then ok; else bad "mi300x $size: exit $rc: $(head -2 "$D/mi-$size.err")"; fi
    all_gpus "$D/mi-$size.out"
done
# 120x40: labels and sparklines on each line, the selected GPU (0) marked,
# its panel with the four plots under the lines
has "$D/mi-40x120.out" '^>GPU0 0000:05:00\.0 busy [ -]+0% pwr [ -]+147W jct [ -]+41C sclk [ -]+2100MHz VRAM 0\.3/192G PCIe 32\.0x16 path x16$'
has "$D/mi-40x120.out" '^ GPU7 0000:f5:00\.0 busy '
has "$D/mi-40x120.out" '^\+- GPU 0  gfx942  0000:05:00\.0  \(Left/Right select a GPU\) -'
has "$D/mi-40x120.out" '^\| sclk \|'
has "$D/mi-40x120.out" '^\| PCIe 32\.0/32\.0 x16/x16 path x16 32\.0 replays 0 '
lacks "$D/mi-40x120.out" 'LIMITED|path x16!'
# 80x24: values only (their units name them), no panel, no marker
has "$D/mi-24x80.out" '^GPU3 0000:75:00\.0 0% 147W 41C 2100MHz VRAM 0\.3/192G PCIe 32\.0x16 path x16$'
lacks "$D/mi-24x80.out" '^>|^\+- GPU '

# the PCIe path on a GPU behind an x8 slot: the GPU's own link reads x16
LC_ALL=C "$RVD" dashboard --sysroot $DESK --size 40x120 --once >"$D/desk-full.out" 2>&1
has "$D/desk-full.out" '^\| PCIe 16\.0/16\.0 x16/x16 path x8! 16\.0 replays \? LIMITED at 0000:84:00\.0 '
LC_ALL=C "$RVD" dashboard --sysroot $DESK --size 24x80 --once >"$D/desk-line.out" 2>&1
has "$D/desk-line.out" '^GPU0 0000:86:00\.0 .* PCIe 16\.0x16 path x8!$'

# ---- monitor: the same fields ------------------------------------------------
"$RVD" monitor --sysroot $DESK --count 2 --interval 10 --json >"$D/desk.jsonl" 2>"$D/desk.err"
"$RVD" monitor --sysroot $MI --count 1 --json >"$D/mi.jsonl" 2>>"$D/desk.err"
rm -rf "$D/lines" && mkdir -p "$D/lines"
python3 -c 'import sys
for n, f in enumerate(sys.argv[2:]):
    for i, l in enumerate(open(f)):
        open("%s/%d-%d.json" % (sys.argv[1], n, i), "w").write(l)' "$D/lines" "$D/desk.jsonl" "$D/mi.jsonl"
if python3 tests/validate_json.py reports/monitor-schema.json "$D"/lines/*.json >"$D/schema.out" 2>&1; then
    ok
else
    bad "monitor lines not valid against the schema: $(head -3 "$D/schema.out")"
fi
if python3 - "$D/desk.jsonl" "$D/mi.jsonl" <<'PY'; then ok; else bad "monitor: pcie_path_* wrong"; fi
import json, sys
desk = [json.loads(l) for l in open(sys.argv[1])]
mi = [json.loads(l) for l in open(sys.argv[2])]
for s in desk:
    g = s["gpus"][0]
    assert (g["pcie_width"], g["pcie_max_width"]) == (16, 16), g
    assert (g["pcie_path_width"], g["pcie_path_gts"], g["pcie_path_limited"]) == (8, 16, 1), g
    assert g["pcie_path_hop"] == "0000:84:00.0" and g["src"]["pcie_path_width"] == "PCIe path", g
gs = mi[0]["gpus"]
assert len(gs) == 8
for g in gs:
    assert (g["pcie_path_width"], g["pcie_path_gts"], g["pcie_path_limited"]) == (16, 32, 0), g
PY
"$RVD" monitor --sysroot $DESK --count 1 --csv >"$D/desk.csv" 2>>"$D/desk.err"
if python3 - "$D/desk.csv" <<'PY'; then ok; else bad "monitor csv: pcie_path_* wrong"; fi
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert len(r) == 1, r
x = r[0]
assert (x["pcie_path_width"], x["pcie_path_gts"], x["pcie_path_limited"], x["pcie_path_hop"]) == ("8", "16", "1", "0000:84:00.0"), x
PY

# ---- tmux: the live screen ---------------------------------------------------
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP tui_gpus: no tmux; the live screen is not exercised"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi
tmux_begin
A="--sysroot $PWD/$MI --requirements $PWD/$REQ --interval 100 --history 2"

start big 40 120 LC_ALL=C.UTF-8 "$A"
if wait_for big big.txt '\[XX\] python\.requirements' '^┌─ GPU 0  gfx942  0000:05:00\.0 ' \
    '^>GPU0 0000:05:00\.0 busy ' '^ GPU7 0000:f5:00\.0 '; then ok; else bad "120x40: checks never shown"; fi
all_gpus "$D/big.txt"
has "$D/big.txt" '^┌─ GPU 0  gfx942  0000:05:00\.0 '
has "$D/big.txt" '^>GPU0 0000:05:00\.0 busy '
# Right: GPU 1's panel; 7: GPU 7; Right wraps to 0; Left wraps to 7; Tab: 0
T send-keys -t big Right
if wait_for big sel1.txt '^┌─ GPU 1  gfx942  0000:15:00\.0 ' '^>GPU1 0000:15:00\.0 ' '^ GPU0 0000:05:00\.0 '; then ok; else bad "Right does not select GPU 1"; fi
has "$D/sel1.txt" '^>GPU1 0000:15:00\.0 '
has "$D/sel1.txt" '^ GPU0 0000:05:00\.0 '
T send-keys -t big 7
if wait_for big sel7.txt '^┌─ GPU 7  gfx942  0000:f5:00\.0 '; then ok; else bad "7 does not select GPU 7"; fi
T send-keys -t big Right
if wait_for big sel0.txt '^┌─ GPU 0  gfx942  0000:05:00\.0 '; then ok; else bad "Right after the last does not wrap to GPU 0"; fi
T send-keys -t big Left
if wait_for big selw.txt '^┌─ GPU 7  gfx942 '; then ok; else bad "Left from GPU 0 does not wrap to GPU 7"; fi
T send-keys -t big Tab
if wait_for big selt.txt '^┌─ GPU 0  gfx942 ' '^ GPU7 0000:f5:00\.0 '; then ok; else bad "Tab does not select the next GPU"; fi
# 9: no GPU 9, the selection stays
T send-keys -t big 9
sleep 0.3
cap big sel9.txt
has "$D/sel9.txt" '^┌─ GPU 0  gfx942 '
all_gpus "$D/selt.txt"
quit big

start mid 24 80 LC_ALL=C.UTF-8 "$A"
if wait_for mid mid.txt '\[XX\] python\.requirements' 'GPU7 0000:f5:00\.0 '; then ok; else bad "80x24: checks never shown"; fi
all_gpus "$D/mid.txt"
lacks "$D/mid.txt" '^┌─ GPU '
quit mid

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
