#!/bin/sh
# monitor.sh - `monitor`: JSON lines (each validated against
# reports/monitor-schema.json), CSV and the aligned columns (--table, and
# the default on a pty through script(1)) from fixture sysroots (count 3,
# interval 10), a tarball snapshot, -o FILE, a sysroot whose files change
# between samples, usage errors (exit 2), and SIGINT/SIGTERM mid-run leaving
# complete, parseable output with exit 0.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/monitor"
rm -rf "$D" && mkdir -p "$D"
NAME=monitor
. tests/lib.sh
FIX=tests/fixtures/rx7900xtx-desktop/root
GPU=sys/devices/pci0000:80/0000:80:01.1/0000:84:00.0/0000:85:00.0/0000:86:00.0
PY=python3

# jl FILE EXPR: every line of FILE is JSON; EXPR over L (the list of objects)
jl() {
    $PY - "$1" "$2" <<'PY'
import json, sys
L = [json.loads(x) for x in open(sys.argv[1]) if x.strip()]
G = L[0]["gpus"][0] if L and L[0]["gpus"] else None
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
jexpect() { if jl "$2" "$3"; then ok; else bad "$1 ($3)"; fi; }
# schema FILE: each line valid against the schema
schema() {
    rm -rf "$D/lines" && mkdir -p "$D/lines"
    $PY -c 'import sys
for i, l in enumerate(open(sys.argv[1])):
    open("%s/%d.json" % (sys.argv[2], i), "w").write(l)' "$1" "$D/lines"
    if $PY tests/validate_json.py reports/monitor-schema.json "$D"/lines/*.json >"$D/schema.out" 2>&1; then
        ok
    else
        bad "$1 not valid against reports/monitor-schema.json: $(head -3 "$D/schema.out")"
    fi
}

# --- JSON lines from a built fixture ---
"$RVD" monitor --sysroot "$FIX" --count 3 --interval 10 >"$D/a.jsonl" 2>"$D/a.err"
rc=$?
[ $rc -eq 0 ] && ok || bad "json run exit $rc: $(cat "$D/a.err")"
schema "$D/a.jsonl"
jexpect "3 samples" "$D/a.jsonl" 'len(L) == 3 and [x["sample"] for x in L] == [0, 1, 2]'
jexpect "monotonic t_s" "$D/a.jsonl" 'L[0]["t_s"] <= L[1]["t_s"] <= L[2]["t_s"]'
jexpect "one gpu" "$D/a.jsonl" 'all(len(x["gpus"]) == 1 and x["gpus"][0]["pci"] == "0000:86:00.0" for x in L)'
jexpect "sclk and range" "$D/a.jsonl" 'L[0]["gpus"][0]["sclk_mhz"] == 31 and L[0]["gpus"][0]["sclk_max_mhz"] == 2219 and L[0]["gpus"][0]["src"]["sclk_mhz"] == "pp_dpm_sclk"'
jexpect "temperatures with limits" "$D/a.jsonl" 'G["temp_junction_c"] == 61 and G["temp_junction_limit_c"] == 110 and G["temp_mem_limit_c"] == 108'
jexpect "power and cap" "$D/a.jsonl" 'L[0]["gpus"][0]["power_w"] == 68 and L[0]["gpus"][0]["power_cap_w"] == 290'
jexpect "unknown is null with a reason" "$D/a.jsonl" 'G["gtt_used_bytes"] is None and "mem_info_gtt_used" in G["unknown"]["gtt_used_bytes"]'
jexpect "no gpu_metrics: throttle unknown" "$D/a.jsonl" 'L[0]["gpus"][0]["throttle"] is None and "gpu_metrics" in L[0]["gpus"][0]["throttle_why"]'

# --- CSV ---
"$RVD" monitor --sysroot "$FIX" --count 3 --interval 10 --csv >"$D/a.csv" 2>"$D/a.csv.err"
rc=$?
[ $rc -eq 0 ] && ok || bad "csv run exit $rc"
if $PY - "$D/a.csv" <<'PY'; then ok; else bad "csv does not parse as expected: $(head -2 "$D/a.csv")"; fi
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 3, rows
assert [r["sample"] for r in rows] == ["0", "1", "2"]
assert all(len(r) == len(rows[0]) for r in rows)
assert rows[0]["sclk_mhz"] == "31" and rows[0]["temp_edge_limit_c"] == "100"
assert rows[0]["gtt_used_bytes"] == ""  # unknown: empty, never 0
PY

# --- aligned columns (--table; the default on a terminal): a two-line header
# repeated every 20 rows, a sample's GPUs kept together, numbers right-aligned
# under their names, unknown as "-" where the JSON has null ---
# tcheck FILE JSONL: the table's layout, and its values against the JSON lines
tcheck() {
    $PY - "$1" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
J = [json.loads(x) for x in open(sys.argv[2]) if x.strip()]
heads = [i for i, l in enumerate(lines) if l.startswith("# time ")]
rows = [l for l in lines if not l.startswith("#")]
ngpu = len(J[0]["gpus"])
assert len(rows) == ngpu * len(J), (len(rows), ngpu, len(J))
# a header before the first row and whenever 20 rows would be passed
want, since = [], None
for k in range(len(J)):
    if since is None or since + ngpu > 20:
        want.append(k)
        since = 0
    since += ngpu
assert len(heads) == len(want), (heads, want)
assert all(lines[h + 1].startswith("# HH:MM:SS ") for h in heads)
names = lines[heads[0]].split()[2:]  # after "#" and "time"
assert names[:11] == ["gpu", "pwr", "junc", "memT", "sclk", "mclk", "gfx", "mem", "vram", "fan", "pcie"], names
def ends(l):
    out, i = [], 0
    for tok in l.split():
        i = l.index(tok, i) + len(tok)
        out.append(i)
    return out
hend = ends(lines[heads[0]])[2:13]  # gpu .. pcie
keys = ["power_w", "temp_junction_c", "temp_mem_c", "sclk_mhz", "mclk_mhz", "busy_pct", "mem_busy_pct", "vram_used_bytes", "fan_pct"]
for r, l in enumerate(rows):
    assert ends(l)[1:12] == hend, (l, lines[heads[0]])  # right-aligned under the names
    cells = l.split()
    g = J[r // ngpu]["gpus"][r % ngpu]
    assert int(cells[1]) == r % ngpu
    for key, cell in zip(keys, cells[2:11]):
        if g[key] is None:
            assert cell == "-", (key, cell)
        elif key == "vram_used_bytes":
            assert abs(float(cell) - g[key] / 2**30) <= 0.05, (key, cell, g[key])
        else:
            assert float(cell) == round(g[key]), (key, cell, g[key])
    assert cells[-1] == ("-" if g["throttle"] is None else g["throttle"] or "none"), cells
    # res: the residency growth since the GPU's previous row; none before
    # the first, and "-" where no residency counter is known (v1_3, hwmon only)
    import re
    known = g["thr_acc_counter"] is not None or g["thr_thm_gfx_acc"] is not None
    assert (cells[-2] == "-") if r < ngpu or not known else re.match(r"^(none|(hot|thm|ppt):\+?[0-9]+%?(,(thm|ppt):\+?[0-9]+%?)*)$", cells[-2]), cells
PY
}
for fx in rx7900xtx-desktop mi300x-node mi250x-degraded; do
    "$RVD" monitor --sysroot "tests/fixtures/$fx/root" --count 5 --interval 10 --table >"$D/t-$fx.txt" 2>"$D/t.err"
    rc=$?
    "$RVD" monitor --sysroot "tests/fixtures/$fx/root" --count 5 --interval 10 >"$D/t-$fx.jsonl" 2>/dev/null
    if [ $rc -eq 0 ] && tcheck "$D/t-$fx.txt" "$D/t-$fx.jsonl" >"$D/t.py.err" 2>&1; then ok; else
        bad "--table on $fx (exit $rc): $(tail -2 "$D/t.py.err")"
        sed 's/^/    /' "$D/t-$fx.txt" | head -8
    fi
done
# on a terminal the columns are the default; piped, JSON lines stay (above)
if command -v script >/dev/null 2>&1 && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
    script -qec "$RVD monitor --sysroot $FIX --count 2 --interval 10" /dev/null </dev/null | tr -d '\r' >"$D/pty.txt"
    if head -1 "$D/pty.txt" | grep -q '^# time  *gpu  *pwr' && [ "$(grep -c '^  [0-9]' "$D/pty.txt")" = 2 ]; then ok; else
        bad "monitor on a pty: no table: $(head -3 "$D/pty.txt")"
    fi
    script -qec "$RVD monitor --sysroot $FIX --count 1 --json" /dev/null </dev/null | tr -d '\r' >"$D/pty.jsonl"
    jexpect "--json on a pty: JSON lines" "$D/pty.jsonl" 'len(L) == 1'
else
    echo "SKIP monitor: no working script(1); the terminal default is not exercised"
fi

# --- -o FILE, and a sysroot with gpu_metrics, processes, and a file changing between samples ---
R="$D/root"
cp -a "$FIX" "$R"
cp tests/data/fixtures-real/amdgpu-sysfs-rs/rx6900xt/gpu_metrics "$R/$GPU/gpu_metrics"
mkdir -p "$R/proc/4242/fdinfo" "$R/sys/class/kfd/kfd/proc/5151"
printf 'python3\n' >"$R/proc/4242/comm"
printf 'drm-driver:\tamdgpu\ndrm-client-id:\t7\ndrm-pdev:\t0000:86:00.0\ndrm-memory-vram:\t4096 KiB\n' >"$R/proc/4242/fdinfo/5"
printf '1073741824\n' >"$R/sys/class/kfd/kfd/proc/5151/vram_52138"
"$RVD" monitor --sysroot "$R" --count 2 --interval 10 -o "$D/b.jsonl" >"$D/b.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "-o run exit $rc: $(cat "$D/b.out")"
[ ! -s "$D/b.out" ] && ok || bad "-o wrote to stdout: $(head -2 "$D/b.out")"
schema "$D/b.jsonl"
jexpect "throttle from gpu_metrics 1.3" "$D/b.jsonl" 'G["throttle"] == "" and G["throttle_src"] == "gpu_metrics 1.3"'
jexpect "energy from the accumulator" "$D/b.jsonl" 'L[0]["gpus"][0]["src"]["energy_j"] == "gpu_metrics energy_accumulator"'
jexpect "processes: fdinfo and kfd" "$D/b.jsonl" 'sorted((p["pid"], p["src"], p["vram_bytes"]) for p in L[0]["procs"]) == [(4242, "fdinfo", 4194304), (5151, "kfd", 1073741824)]'

# --- a process name chosen by any local user (comm, 15 bytes on a real
# kernel) holding a formula, a title escape, clear-screen, U+202E, U+0085 and
# a byte that is not UTF-8: no raw control or bidi byte in either file, the
# JSON strict and exact, the CSV cell text and not a formula ---
H="$D/hostile"
cp -a "$R" "$H"
printf '=\033]0;x\007\033[2J\342\200\256\302\205\377\n' >"$H/proc/4242/comm"
mkdir -p "$H/proc/5151"
printf '@SUM(1)\n' >"$H/proc/5151/comm"
"$RVD" monitor --sysroot "$H" --count 1 -o "$D/hostile.jsonl" >"$D/hostile.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "hostile comm json: exit $rc: $(cat "$D/hostile.out")"
"$RVD" monitor --sysroot "$H" --count 1 --csv -o "$D/hostile.csv" >>"$D/hostile.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "hostile comm csv: exit $rc: $(cat "$D/hostile.out")"
for f in "$D/hostile.jsonl" "$D/hostile.csv"; do
    if $PY - "$f" <<'PY'; then ok; else bad "raw control or bidi bytes in $f: $(od -c "$f" | head -5)"; fi
import re, sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8")  # valid UTF-8 (strict)
bad = [c for c in t if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
       or ord(c) in (0x61c, 0x200e, 0x200f) or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
sys.exit(1 if bad else 0)
PY
done
schema "$D/hostile.jsonl"
jexpect "hostile comm: the exact text back from strict JSON" "$D/hostile.jsonl" 'sorted(p["comm"] for p in L[0]["procs"]) == ["=\x1b]0;x\x07\x1b[2J\u202e\x85\ufffd", "@SUM(1)"]'
if $PY - "$D/hostile.csv" <<'PY'; then ok; else bad "hostile comm: csv cell not neutralised: $(cat "$D/hostile.csv")"; fi
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
assert len(rows) == 1, rows
cells = [v for r in rows for v in r.values()]
# no cell a spreadsheet would evaluate
assert not [v for v in cells if v[:1] in ("=", "+", "-", "@")], cells
procs = rows[0]["procs"]
assert procs.startswith("'"), procs
assert "\\x1b]0;x\\x07\\x1b[2J\\u202e\\u0085\\xff(4242)" in procs, procs
assert "@SUM(1)(5151)" in procs, procs
PY

# a file rewritten while the monitor runs shows in a later sample
"$RVD" monitor --sysroot "$R" --interval 200 --count 4 -o "$D/c.jsonl" 2>"$D/c.err" &
pid=$!
sleep 0.3
printf '0: 500Mhz\n1: 1800Mhz *\n2: 2219Mhz\n' >"$R/$GPU/pp_dpm_sclk"
wait $pid
rc=$?
[ $rc -eq 0 ] && ok || bad "changing sysroot run exit $rc"
jexpect "clock change seen" "$D/c.jsonl" 'L[0]["gpus"][0]["sclk_mhz"] == 31 and L[-1]["gpus"][0]["sclk_mhz"] == 1800'

# --- a snapshot tarball (the H200: no AMD GPU in sysfs, NVML not read from a snapshot) ---
"$RVD" monitor --sysroot tests/fixtures/h200/snapshot.tar.gz --count 1 >"$D/h.jsonl" 2>"$D/h.err"
rc=$?
[ $rc -eq 0 ] && ok || bad "tarball run exit $rc: $(cat "$D/h.err")"
jexpect "tarball: no AMD GPU" "$D/h.jsonl" 'len(L) == 1 and L[0]["gpus"] == []'
grep -q "no GPU found" "$D/h.err" && ok || bad "no 'no GPU found' warning: $(cat "$D/h.err")"

# --- gpu.idle names the process that keeps a GPU busy (mi250x-degraded: python3
# on GCD 0 through KFD and fdinfo, GCD 1 idle and unused) ---
"$RVD" --sysroot tests/fixtures/mi250x-degraded/root --only gpu.idle --json "$D/idle.json" >"$D/idle.out" 2>&1
expect "gpu.idle warns naming python3" "$D/idle.json" 'c["gpu.idle"]["status"] == "warn" and "used by python3 (pid 41211, 48.0 GiB VRAM, fdinfo+kfd)" in c["gpu.idle"]["summary"]'
expect "gpu.0 user count" "$D/idle.json" 'f["gpu.0.user_count"] == 1'
expect "gpu.1 unused" "$D/idle.json" 'f["gpu.1.users"] == "no process found that has it open" and f["gpu.1.user_count"] == 0'
"$RVD" --sysroot tests/fixtures/rx580-legacy/root --only gpu.idle --json "$D/idle2.json" >/dev/null 2>&1
expect "busy without a visible process" "$D/idle2.json" 'c["gpu.idle"]["status"] == "warn" and "no process found" in c["gpu.idle"]["summary"]'

# --- usage errors: exit 2, one message ---
usage() { # LABEL PATTERN ARGS...
    label=$1 pat=$2
    shift 2
    "$RVD" monitor "$@" >"$D/u.out" 2>"$D/u.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$D/u.err"; then ok; else bad "$label: exit $rc, $(head -2 "$D/u.err")"; fi
}
usage "interval too small" "--interval must be an integer in .10, 3600000. milliseconds, not .5." --interval 5
usage "interval not a number" "--interval must be" --interval abc
usage "count 0" "--count must be an integer in .1, 1000000000., not .0." --count 0
usage "json and csv" "exclude each other" --json --csv
usage "table and json" "exclude each other" --table --json
usage "unknown option" "unknown option" --bogus
usage "argument" "takes no arguments" extra
usage "missing sysroot" "" --sysroot "$D/nonexistent"
usage "output directory" "is a directory" -o "$D"
usage "value looks like an option" "requires a value" -o --csv

# --- SIGINT / SIGTERM mid-run: complete lines, exit 0, the stop said on stderr ---
for sig in INT TERM; do
    "$RVD" monitor --sysroot "$R" --interval 20 -o "$D/sig-$sig.jsonl" 2>"$D/sig.err" &
    pid=$!
    sleep 0.5
    kill -"$sig" $pid
    wait $pid
    rc=$?
    [ $rc -eq 0 ] && ok || bad "SIG$sig: exit $rc"
    grep -q "^rocm-vla-doctor monitor: stopped by SIG$sig after [0-9]* samples$" "$D/sig.err" && ok || bad "SIG$sig: the stop is not said: $(head -2 "$D/sig.err")"
    jexpect "SIG$sig: every line complete" "$D/sig-$sig.jsonl" 'len(L) >= 2'
    [ "$(tail -c 1 "$D/sig-$sig.jsonl" | od -An -c | tr -d ' ')" = '\n' ] && ok || bad "SIG$sig: last line unfinished"
done
"$RVD" monitor --sysroot "$R" --interval 20 --csv -o "$D/sig.csv" 2>"$D/sig.err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] && ok || bad "SIGINT csv: exit $rc"
$PY -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); assert len(r) >= 2 and all(len(x) == len(r[0]) and x["pcie_max_width"] == "16" for x in r)' "$D/sig.csv" && ok || bad "SIGINT csv unparseable"

# the schema's value lists are the telemetry table's (src/telemetry/tel_keys.h):
# a value added to the table but not to the schema, or left in the schema
# after it left the table, fails here; every value has a name, unit and meaning
if $PY tools/gen_monitor_schema.py "$RVD" --check >"$D/gen.out" 2>&1; then ok; else bad "monitor schema stale: $(tail -1 "$D/gen.out")"; fi
"$RVD" __monitor-keys >"$D/keys.tsv" 2>&1
if awk -F'\t' 'NF != 3 || $1 == "" || $2 == "" || $3 == "" || seen[$1]++ { bad = 1 } END { exit bad || NR < 50 }' "$D/keys.tsv"; then ok; else bad "__monitor-keys: a row without name, unit or meaning, or a duplicate"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
