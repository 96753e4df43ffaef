#!/bin/sh
# diff.sh - `rocm-vla-doctor diff` end to end: reports made by the real
# binary from fixture machines (and edited copies of them), regressions and
# improvements, exit codes 0/1/2, tolerances, --allow-skip, the JSON output
# against reports/diff-schema.json, and corrupt, empty, foreign and
# other-version inputs (exit 2 with the file named, never a crash).
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/diff"
rm -rf "$D" && mkdir -p "$D"
PY=/usr/bin/python3
pass=0
fail=0
t() { # t NAME WANT_EXIT CMD... ; stdout in $D/NAME.out, stderr in $D/NAME.err
    name=$1
    want=$2
    shift 2
    "$@" >"$D/$name.out" 2>"$D/$name.err"
    rc=$?
    if [ "$rc" = "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL diff $name: exit $rc, want $want"
        cat "$D/$name.out" "$D/$name.err" | sed 's/^/    /' | head -8
    fi
}
has() { # has NAME out|err REGEX
    if grep -Eq -- "$3" "$D/$1.$2"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL diff $1: $2 lacks /$3/"
        sed 's/^/    /' "$D/$1.$2" | head -8
    fi
}
hasnt() { # hasnt NAME out|err REGEX
    if grep -Eq -- "$3" "$D/$1.$2"; then
        fail=$((fail + 1))
        echo "FAIL diff $1: $2 has /$3/"
        grep -E -- "$3" "$D/$1.$2" | sed 's/^/    /' | head -4
    else
        pass=$((pass + 1))
    fi
}
py() { # py NAME SCRIPT ARGS...: a Python assertion; its output in $D/NAME.py
    name=$1
    shift
    if $PY -c "$@" >"$D/$name.py" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL diff $name: $(tail -3 "$D/$name.py")"
    fi
}

# ---- reports from the fixture machines -------------------------------------
"$RVD" --sysroot tests/fixtures/mi300x-node/root --json "$D/mi300x.json" >/dev/null 2>&1
"$RVD" --sysroot tests/fixtures/rx7800xt-override/root --json "$D/rx7800xt.json" >/dev/null 2>&1
"$RVD" --sysroot tests/fixtures/mi300x-node/root --level standard --json "$D/mi300x-std.json" \
    >/dev/null 2>&1
for f in mi300x rx7800xt mi300x-std; do
    py "report-$f" 'import json,sys; d=json.load(open(sys.argv[1])); assert d["checks"]' "$D/$f.json"
done

# a report against itself: nothing to say, exit 0
t self 0 "$RVD" diff "$D/mi300x.json" "$D/mi300x.json" --no-color
has self out "^0 regressions, 0 improvements, 0 changes: no regression \(exit 0\)$"

# the datacenter node's baseline against the desktop with a gfx override:
# pass -> fail/warn regressions with old -> new, the stack that changed
t worse 1 "$RVD" diff "$D/mi300x.json" "$D/rx7800xt.json" --no-color
has worse out "^Regressions \([0-9]+\):$"
has worse out "^\[XX\] kfd\.access +pass -> fail: "
has worse out "^\[XX\] gpu\.gfx_supported +pass -> fail: "
has worse out "^\[XX\] gpu\.gfx_override +pass -> warn: "
has worse out "gpu\.0\.gfx: 'gfx942' -> 'gfx1101'"
has worse out "^  stack: +driver\.version '6\.8\.5 \(amdgpu-dkms\)' -> '6\.7\.0 \(amdgpu-dkms\)'$"
has worse out "rocm\.version +'6\.2\.0' -> '6\.1\.0'"
has worse out "^ +gpu\.7\.\* \([0-9]+ facts\) +not in the current report$"
has worse out "regressions?, .*: the gate fails \(exit 1\)$"
hasnt worse out "$(printf '\033')"
# a pass -> skip (RAS counters unknown on the consumer card) is lost coverage
has worse out "^\[XX\] gpu\.ras +pass -> skip \(coverage lost; --allow-skip accepts it\)"
t worse-allow 1 "$RVD" diff "$D/mi300x.json" "$D/rx7800xt.json" --no-color --allow-skip
hasnt worse-allow out "^\[XX\] gpu\.ras "
has worse-allow out "^ +gpu\.ras +pass -> skip"

# the other way round: the fixes are improvements and nothing regressed...
t better 0 "$RVD" diff "$D/rx7800xt.json" "$D/mi300x.json" --no-color
has better out "^Improvements \([0-9]+\):$"
has better out "^\[ok\] kfd\.access +fail -> pass"
has better out "no regression \(exit 0\)$"
# the same as JSON
t better-json 0 "$RVD" diff "$D/rx7800xt.json" "$D/mi300x.json" --json "$D/better.json"
py better-json-shape 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rocm-vla-doctor-diff/1"
assert d["regressions"] == [] and d["summary"]["exit_code"] == 0
ids = [i["id"] for i in d["improvements"] if i["kind"] == "check"]
assert "kfd.access" in ids, ids' "$D/better.json"

# ---- JSON output -------------------------------------------------------------
t json-stdout 1 "$RVD" diff "$D/mi300x.json" "$D/rx7800xt.json" --json -
has json-stdout err "^Regressions"
py json-stdout-shape 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rocm-vla-doctor-diff/1"
r = {i.get("id") or i.get("name"): i for i in d["regressions"]}
assert r["kfd.access"]["old"] == "pass" and r["kfd.access"]["new"] == "fail", r["kfd.access"]
c = {i.get("id") or i.get("name"): i for i in d["changes"]}
assert c["driver.version"]["old"] == "6.8.5 (amdgpu-dkms)", c["driver.version"]
assert c["driver.version"]["new"] == "6.7.0 (amdgpu-dkms)"
assert c["gpu.7.gfx"]["change"] == "removed" and c["gpu.7.gfx"]["new"] is None
assert c["gpu.0.ras_ue"]["change"] == "unknown" and c["gpu.0.ras_ue"]["reason"]
s = d["summary"]
assert s["exit_code"] == 1 and s["regressions"] == len(d["regressions"])
assert s["changes"] == len(d["changes"])' "$D/json-stdout.out"
if $PY tests/validate_json.py reports/diff-schema.json "$D/json-stdout.out" "$D/better.json" \
    >"$D/schema.out" 2>&1; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL diff: JSON output does not match reports/diff-schema.json: $(head -3 "$D/schema.out")"
fi
t json-unwritable 2 "$RVD" diff "$D/mi300x.json" "$D/mi300x.json" --json /nonexistent/dir/x.json
has json-unwritable err "cannot write '/nonexistent/dir/x.json'"

# ---- performance facts: edited copies of a real report -----------------------
$PY - "$D/mi300x.json" "$D" <<'EOF'
import json, sys
base = json.load(open(sys.argv[1]))
d = sys.argv[2]
perf = {"gpu.0.sync.launch_us.p99": 10.0, "gpu.0.sync.launch_us.p50": 5.0, "gpu.0.bw.h2d_pinned_gbs": 50.0,
        "gpu.0.gemm_peak.fp16_tflops": 600.0, "vla.latency.total_ms": 40.0,
        "vla.control_rate_hz": 25.0}
def write(name, facts, meta=None, status=None):
    r = json.loads(json.dumps(base))
    r["facts"].update(facts)
    for k in facts:
        r["facts_meta"][k] = {"source": "edited", "reason": None}
    r["facts_meta"].update(meta or {})
    for cid, st in (status or {}).items():
        for c in r["checks"]:
            if c["id"] == cid:
                c["status"] = st
    r["facts"] = dict(sorted(r["facts"].items()))
    r["facts_meta"] = {k: r["facts_meta"][k] for k in r["facts"]}
    json.dump(r, open(f"{d}/{name}.json", "w"), indent=2)
write("perf-base", perf)
slower = dict(perf, **{"gpu.0.sync.launch_us.p99": 12.4, "gpu.0.bw.h2d_pinned_gbs": 60.0,
                       "vla.latency.total_ms": 41.0})
write("perf-slower", slower)
write("perf-lost", dict(perf, **{"gpu.0.gemm_peak.fp16_tflops": None}),
      meta={"gpu.0.gemm_peak.fp16_tflops": {"source": "edited", "reason": "libhipblaslt.so not found"}})
write("perf-skip", perf, status={"pcie.atomics": "skip"})
write("driver-only", dict(perf, **{"driver.version": "6.10.5 (amdgpu-dkms)"}))
# issue 34: a driver update seen hot: the stack apart from the readings
write("driver-hot", dict(perf, **{"driver.version": "6.10.5 (amdgpu-dkms)", "gpu.0.temp_junction_c": 97,
                                   "gpu.0.power_w": 612.0, "kernel.release": "6.8.0-51-generic"}))
EOF

t perf 1 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" --no-color
has perf out "^\[XX\] gpu\.0\.sync\.launch_us\.p99 +10\.0 -> 12\.4 \(\+24\.0%, lower is better, tolerance 10%\)$"
has perf out "^\[ok\] gpu\.0\.bw\.h2d_pinned_gbs +50\.0 -> 60\.0 \(\+20\.0%, higher is better, tolerance 10%\)$"
hasnt perf out "vla\.latency\.total_ms" # +2.5%: within tolerance, folded
has perf out "1 performance value within tolerance; -v lists them"
t perf-v 1 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" --no-color -v
has perf-v out "vla\.latency\.total_ms +40\.0 -> 41\.0 \(\+2\.5%"
t perf-tol 0 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" --tolerance gpu.0.sync.launch_us.p99=25 -v
has perf-tol out "tolerance 25%"
t perf-glob 0 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" --tolerance 'gpu.*.sync.*=30%'
t perf-off 0 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" --tolerance 'gpu.*.sync.*=off'
t perf-last-wins 1 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" \
    --tolerance 'gpu.*.sync.*=30' --tolerance gpu.0.sync.launch_us.p99=5
t perf-tight 1 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" --tolerance '*=1' -v
has perf-tight out "^\[XX\] vla\.latency\.total_ms "
for bad in sync.launch_us.p99 =5 x= x=-3 x=fast; do
    t "tol-bad-$bad" 2 "$RVD" diff "$D/perf-base.json" "$D/perf-slower.json" --tolerance "$bad"
    has "tol-bad-$bad" err "--tolerance"
done

# a measurement that became unknown, a check that became skip: lost coverage
t perf-lost 1 "$RVD" diff "$D/perf-base.json" "$D/perf-lost.json" --no-color
has perf-lost out "^\[XX\] gpu\.0\.gemm_peak\.fp16_tflops +600\.0 -> unknown: libhipblaslt\.so not found"
t perf-lost-allow 0 "$RVD" diff "$D/perf-base.json" "$D/perf-lost.json" --allow-skip
t skip 1 "$RVD" diff "$D/perf-base.json" "$D/perf-skip.json" --no-color
has skip out "^\[XX\] pcie\.atomics +pass -> skip"
t skip-allow 0 "$RVD" diff "$D/perf-base.json" "$D/perf-skip.json" --allow-skip
# a driver update alone is context, not a regression
t driver-only 0 "$RVD" diff "$D/perf-base.json" "$D/driver-only.json" --no-color
has driver-only out "^  stack: +driver\.version '6\.8\.5 \(amdgpu-dkms\)' -> '6\.10\.5 \(amdgpu-dkms\)'$"
has driver-only out "^Stack changes \(1\):$"
# the temperature and power that moved are telemetry, never stack changes
t driver-hot 0 "$RVD" diff "$D/perf-base.json" "$D/driver-hot.json" --no-color -v
has driver-hot out "^Stack changes \(2\):$"
has driver-hot out "^Telemetry \(readings that move between runs\) \(2\):$"
if sed -n '/^Stack changes/,/^$/p' "$D/driver-hot.out" | grep -q 'temp_junction\|power_w'; then
    fail=$((fail + 1)); echo "FAIL diff driver-hot: telemetry listed under Stack changes"
else pass=$((pass + 1)); fi
t driver-hot-json 0 "$RVD" diff "$D/perf-base.json" "$D/driver-hot.json" --json "$D/driver-hot-diff.json"
if /usr/bin/python3 -c '
import json, sys
g = {i["name"]: i["group"] for i in json.load(open(sys.argv[1]))["changes"] if i["kind"] == "fact"}
sys.exit(0 if g == {"driver.version": "stack", "kernel.release": "stack", "gpu.0.temp_junction_c": "telemetry", "gpu.0.power_w": "telemetry"} else 1)' "$D/driver-hot-diff.json"; then
    pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL diff driver-hot-json: groups $(head -c 300 "$D/driver-hot-diff.json")"; fi

# different levels: the standard-only checks are new (skip on a sysroot), not regressions
t levels 0 "$RVD" diff "$D/mi300x.json" "$D/mi300x-std.json" --no-color
has levels out "note: the runs used different levels"
has levels out "^Check changes"

# ---- bad input: exit 2, the file named, no crash -------------------------------
: >"$D/empty.json"
head -c 300 "$D/mi300x.json" >"$D/truncated.json"
printf '{"schema": "rocm-vla-doctor/1",\n  "facts": {,}\n}\n' >"$D/syntax.json"
head -c 4096 /bin/sh >"$D/binary.json"
printf '{"name": "some other tool", "results": []}\n' >"$D/foreign.json"
printf '[1, 2, 3]\n' >"$D/array.json"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["schema"]="rocm-vla-doctor/2"; json.dump(d, open(sys.argv[2], "w"))' \
    "$D/mi300x.json" "$D/v2.json"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["checks"][0]["status"]="great"; json.dump(d, open(sys.argv[2], "w"))' \
    "$D/mi300x.json" "$D/badstatus.json"
$PY -c 'import sys; print("[" * 100000)' >"$D/deep.json"
t empty 2 "$RVD" diff "$D/empty.json" "$D/mi300x.json"
has empty err "empty\.json: empty file"
t truncated 2 "$RVD" diff "$D/mi300x.json" "$D/truncated.json"
has truncated err "truncated\.json: invalid JSON at line [0-9]+, column [0-9]+ \(byte 300\): "
t syntax 2 "$RVD" diff "$D/syntax.json" "$D/mi300x.json"
has syntax err "syntax\.json: invalid JSON at line 2, column 13 \(byte 44\): "
t binary 2 "$RVD" diff "$D/mi300x.json" "$D/binary.json"
has binary err "binary\.json: invalid JSON at line 1, column 1 \(byte 0\)"
t foreign 2 "$RVD" diff "$D/foreign.json" "$D/mi300x.json"
has foreign err "foreign\.json: not a rocm-vla-doctor report \(no \"schema\" string\)"
t array 2 "$RVD" diff "$D/mi300x.json" "$D/array.json"
has array err "array\.json: not a rocm-vla-doctor report"
t v2 2 "$RVD" diff "$D/v2.json" "$D/mi300x.json"
has v2 err "v2\.json: report schema 'rocm-vla-doctor/2' is not supported"
t badstatus 2 "$RVD" diff "$D/mi300x.json" "$D/badstatus.json"
has badstatus err "badstatus\.json: invalid report: check 'driver\.loaded' has no valid \"status\""
t deep 2 "$RVD" diff "$D/deep.json" "$D/mi300x.json"
has deep err "deep\.json: invalid JSON"
t diff-of-diff 2 "$RVD" diff "$D/better.json" "$D/mi300x.json"
has diff-of-diff err "not a rocm-vla-doctor report \(schema 'rocm-vla-doctor-diff/1'\)"
t missing 2 "$RVD" diff "$D/mi300x.json" "$D/no-such.json"
has missing err "cannot read report '.*no-such\.json': No such file or directory"
t directory 2 "$RVD" diff "$D" "$D/mi300x.json"
has directory err "Is a directory"
t one-arg 2 "$RVD" diff "$D/mi300x.json"
has one-arg err "diff takes two reports"
t no-arg 2 "$RVD" diff
t three-args 2 "$RVD" diff "$D/mi300x.json" "$D/mi300x.json" "$D/mi300x.json"
t bad-option 2 "$RVD" diff --bogus "$D/mi300x.json" "$D/mi300x.json"
has bad-option err "diff: unknown option '--bogus'"
t help 0 "$RVD" diff --help
has help out "^usage: rocm-vla-doctor diff BASELINE\.json CURRENT\.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
