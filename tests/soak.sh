#!/bin/sh
# soak.sh - `soak` on the CPU backend (a cut-down tiny preset, 5 s) against a fixture
# sysroot whose telemetry files this script rewrites mid-run: a steady run
# (verdicts pass; any outlier unexplained), a drifting run (latency growth
# through the test hook, clock drop, junction at its limit, a throttle bit,
# VRAM creep: each verdict fails or warns), an outlier run (one slow call while
# the clock steps and a process appears: the outlier names both), Ctrl-C
# (report written, soak.interrupted), usage errors (exit 2). Also: the host
# named, the drift checks skipping below checks.yaml's window minimum (and
# judging above it), the status line on a terminal only, the cpu backend
# refusing pi0, auto falling back to the cpu without a GPU backend. Reports
# are validated against reports/schema.json.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/soak"
rm -rf "$D" && mkdir -p "$D"
NAME=soak
. tests/lib.sh
PY=python3
FIX=tests/fixtures/rx7900xtx-desktop/root
GPU=sys/devices/pci0000:80/0000:80:01.1/0000:84:00.0/0000:85:00.0/0000:86:00.0
HW=$GPU/hwmon/hwmon8
HOOK="$D/hook"
# tiny cut to ~1 ms a call: hundreds of calls in 5 s, also under ASan
MICRO=tests/data/soak-micro.yaml
export ROCM_VLA_DOCTOR_SOAK_HOOK="$HOOK"

# fresh ROOT: the fixture at 2400 MHz with the real v1_3 gpu_metrics (no throttle bit)
mkroot() {
    rm -rf "$1"
    cp -a "$FIX" "$1"
    cp tests/data/fixtures-real/amdgpu-sysfs-rs/rx6900xt/gpu_metrics "$1/$GPU/gpu_metrics"
    chmod u+w "$1/$GPU/gpu_metrics"
    printf '0: 500Mhz\n1: 2400Mhz *\n2: 2500Mhz\n' >"$1/$GPU/pp_dpm_sclk"
}
soak() { # NAME ROOT [ARGS...]: ${DUR:-5} s on the CPU, telemetry every 100 ms
    n=$1 r=$2
    shift 2
    "$RVD" soak --duration "${DUR:-5}s" --preset "$MICRO" --backend cpu --interval 100 --sysroot "$r" \
        --json "$D/$n.json" "$@" >"$D/$n.out" 2>"$D/$n.err"
}
schema() {
    if $PY tests/validate_json.py reports/schema.json "$1" >"$D/schema.out" 2>&1; then ok; else
        bad "$1 not valid: $(head -3 "$D/schema.out")"
    fi
}
st() { expect "$1: $2 is $3" "$D/$1.json" "c['$2']['status'] == '$3'"; }

# --- steady ---
mkroot "$D/r1"
rm -f "$HOOK"
soak steady "$D/r1"
rc=$?
[ $rc -le 1 ] && ok || bad "steady: exit $rc: $(tail -3 "$D/steady.err")"
schema "$D/steady.json"
expect "steady: level soak" "$D/steady.json" 'd["host"]["level"] == "soak" and all(x["level"] == "soak" for x in d["checks"])'
expect "steady: only soak checks" "$D/steady.json" 'len(d["checks"]) == 13'
# the fixture's v1_3 gpu_metrics has no residency counters: unknown naming
# the field, never a growth of 0; its slot link (x8, the on-card switch)
# stays put in every sample
expect "steady: residency unknown" "$D/steady.json" 'any(x["id"] == "soak.thermal_residency" and x["status"] == "skip" and "gpu_metrics 1.3: no " in x["summary"] for x in d["checks"])'
expect "steady: link stable" "$D/steady.json" 'any(x["id"] == "soak.link_stable" and x["status"] == "pass" and "x8 at 16 GT/s" in x["summary"] for x in d["checks"])'
st steady soak.run pass
st steady soak.clock pass
st steady soak.thermal pass
st steady soak.throttle pass
st steady soak.vram pass
expect "steady: latency judged" "$D/steady.json" 'c["soak.latency_drift"]["status"] in ("pass", "warn", "fail")'
expect "steady: calls recorded" "$D/steady.json" 'f["soak.calls"] >= 100 and f["soak.backend"] == "cpu"'
expect "steady: any outlier is unexplained" "$D/steady.json" 'all("unexplained" in x for x in f["soak.outlier_causes"])'
expect "steady: no GPU energy for CPU calls" "$D/steady.json" 'f["soak.energy_per_call_j"] is None'
grep -q "soak.latency_drift" "$D/steady.out" && ok || bad "steady: no text report"
expect "steady: the host named" "$D/steady.json" 'd["host"]["hostname"] == "robo-desk"'
grep -q "robo-desk, level soak" "$D/steady.out" && ok || bad "steady: the text names no host"
expect "steady: windows big enough" "$D/steady.json" 'f["soak.window_samples"] >= 5 and f["soak.window_calls"] >= 10'
# stderr is no terminal here: no status line
grep -q "calls, last" "$D/steady.err" && bad "steady: a status line on a pipe" || ok

# --- outputs that stay right (issue 36): the steady run gave the first call's
# actions bit for bit; planted wrong results, placed by call count through
# ROCM_VLA_DOCTOR_SOAK_OUTPUTS (never by the clock), fail or warn
st steady soak.outputs pass
expect "steady: outputs compared" "$D/steady.json" 'f["soak.outputs_compared"] == f["soak.calls"] - 1 and f["soak.outputs_differ_calls"] == 0 and f["soak.outputs_max_rel_diff"] == 0 and f["soak.outputs_nonfinite"] == 0 and f["soak.outputs_first_differ_call"] is None'
outputs() { # NAME SPEC: a 1 s run with SPEC planted
    ROCM_VLA_DOCTOR_SOAK_OUTPUTS="$2" DUR=1 soak "$1" "$D/r1"
}
outputs wrong "12 add 0.5"
st wrong soak.outputs fail
expect "wrong: from call 12, beyond the tolerance" "$D/wrong.json" 'f["soak.outputs_first_differ_call"] == 12 and f["soak.outputs_differ_calls"] == f["soak.calls"] - 11 and f["soak.outputs_max_rel_diff"] > 0.001 and abs(f["soak.outputs_max_diff"] - 0.5) < 1e-3 and f["soak.outputs_nonfinite"] == 0'
expect "wrong: the summary names the latency beside it" "$D/wrong.json" '"from call 12 on" in c["soak.outputs"]["summary"] and "while latency p99 was" in c["soak.outputs"]["summary"]'
outputs nan "15 nan"
st nan soak.outputs fail
expect "nan: non-finite counted" "$D/nan.json" 'f["soak.outputs_nonfinite"] == f["soak.calls"] - 14 and f["soak.outputs_nonfinite_calls"] == f["soak.outputs_nonfinite"] and f["soak.outputs_max_rel_diff"] == 0 and "non-finite" in c["soak.outputs"]["summary"]'
outputs lastbit "10 add 0.0001"
st lastbit soak.outputs warn
expect "lastbit: within the tolerance" "$D/lastbit.json" '0 < f["soak.outputs_max_rel_diff"] <= 0.001 and f["soak.outputs_first_differ_call"] == 10'
ROCM_VLA_DOCTOR_SOAK_OUTPUTS="3 twice" "$RVD" soak --duration 1s --preset "$MICRO" --backend cpu >"$D/badspec.out" 2>"$D/badspec.err"
[ $? -eq 2 ] && grep -q "is not 'CALL add VALUE' or 'CALL nan'" "$D/badspec.err" && ok || bad "a malformed SOAK_OUTPUTS spec is not exit 2"

# --- paced calls (--rate): back to back the check skips; at the rate the
# call count follows the grid; the hook's extra milliseconds put p99 under,
# near and over the control period (both sides of soak.paced's rules)
st steady soak.paced skip
expect "steady: no rate, no period" "$D/steady.json" 'f["soak.rate_hz"] is None and f["soak.deadline_misses"] is None'
paced() { # NAME HZ HOOK: a 1 s run at HZ with HOOK in the test hook ("" for none)
    if [ -n "$3" ]; then echo "$3" >"$HOOK"; else rm -f "$HOOK"; fi
    DUR=1 soak "$1" "$D/r1" --rate "$2"
    rm -f "$HOOK"
}
paced paced20 20 ""
st paced20 soak.paced pass
expect "paced20: about 20 calls on the grid" "$D/paced20.json" '18 <= f["soak.calls"] <= 21 and f["soak.rate_hz"] == 20 and f["soak.period_ms"] == 50 and f["soak.deadline_misses"] == 0'
paced paced10 10 "always 85"
st paced10 soak.paced warn
paced paced50 50 "always 30"
st paced50 soak.paced fail
expect "paced50: every call missed the 20 ms period" "$D/paced50.json" 'f["soak.deadline_misses"] == f["soak.calls"] and "missed it" in c["soak.paced"]["summary"]'
"$RVD" soak --duration 1s --rate 10 --load gemm --preset "$MICRO" >"$D/rateload.out" 2>"$D/rateload.err"
[ $? -eq 2 ] && grep -q "would fill the gaps" "$D/rateload.err" && ok || bad "--rate with --load gemm not refused"

# --- too short to judge drift: the other side of checks.yaml's minimum
# (5 samples and 10 calls a window): 1 s telemetry and 300 ms calls in 5 s
mkroot "$D/r5"
echo "always 300" >"$HOOK"
"$RVD" soak --duration 5s --preset "$MICRO" --backend cpu --interval 1000 --sysroot "$D/r5" \
    --json "$D/short.json" >"$D/short.out" 2>"$D/short.err"
rm -f "$HOOK"
expect "short: few samples a window" "$D/short.json" 'f["soak.window_samples"] < 5 and f["soak.window_calls"] < 10'
for id in soak.latency_drift soak.clock soak.vram; do
    expect "short: $id skips" "$D/short.json" "c['$id']['status'] == 'skip' and 'too short to judge drift' in c['$id']['summary']"
done

# --- a terminal gets a status line updated in place (script(1) gives one)
if command -v script >/dev/null 2>&1; then
    mkroot "$D/r6"
    script -qec "\"$RVD\" soak --duration 3s --preset $MICRO --backend cpu --interval 100 --sysroot $D/r6" "$D/tty.typescript" >/dev/null 2>&1 </dev/null
    grep -q "soak: [0-9]* of 3 s, [0-9]* calls, last" "$D/tty.typescript" && ok || bad "tty: no status line: $(tail -c 300 "$D/tty.typescript")"
    # the line is erased (CR, ESC [K) before the report starts
    tr '\r' '\n' <"$D/tty.typescript" | grep -q "^.\[Krocm-vla-doctor soak" && ok || bad "tty: the status line was not cleared before the report"
fi

# --- the cpu backend refuses a preset too large for it (exit 2, before running)
"$RVD" soak --duration 5s --preset pi0 --backend cpu >"$D/big.out" 2>"$D/big.err"
rc=$?
[ $rc -eq 2 ] && grep -q "too large for the cpu reference backend" "$D/big.err" && grep -q -- "--preset tiny" "$D/big.err" && ok || bad "cpu pi0: exit $rc: $(head -2 "$D/big.err")"

# --- auto without a GPU backend: the self-test on the cpu (as bench --sweep);
# with one, the GPU runs (either way something ran)
mkroot "$D/r7"
"$RVD" soak --duration 3s --preset "$MICRO" --interval 100 --load none --sysroot "$D/r7" \
    --json "$D/auto.json" >"$D/auto.out" 2>"$D/auto.err"
if grep -q "no GPU backend" "$D/auto.err"; then
    expect "auto: fell back to the cpu" "$D/auto.json" 'f["soak.backend"] == "cpu" and f["soak.calls"] >= 10 and f["soak.error"] == "" and f["soak.fallback"]'
    grep -q "self-test on the cpu backend with preset" "$D/auto.err" && ok || bad "auto: fallback not said"
else
    expect "auto: a GPU backend ran" "$D/auto.json" 'f["soak.backend"] != "cpu"'
fi

# wait_first_call: "once 0" in the hook is consumed by the first call (it
# adds nothing): the changes below are timed from the calls, not from the
# launch, whose cold start varies (ASan, a loaded CI machine); prints the
# seconds the cold start took
wait_first_call() {
    t0=$($PY -c 'import time; print(time.time())')
    i=0
    while [ -e "$HOOK" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
    $PY -c "import time; print(round(time.time() - $t0, 2))"
}

# --- drifting: halfway through the calls everything changes ---
mkroot "$D/r2"
echo "once 0" >"$HOOK"
DUR=8 soak drift "$D/r2" &
pid=$!
cold=$(wait_first_call)
# the run ends 8 s after the child started (about the launch): the middle of
# the calls is (8 - cold) / 2 after the first one; windows are a quarter of
# the calls' span, so the change lands between them with margin
sleep "$($PY -c "print(max(0.5, (8 - $cold) / 2))")"
# 100 ms a call: still 10 calls in the last window (checks.yaml's minimum)
echo "always 100" >"$HOOK"
printf '0: 500Mhz\n1: 1500Mhz *\n2: 2500Mhz\n' >"$D/r2/$GPU/pp_dpm_sclk"
echo 110000 >"$D/r2/$HW/temp2_input"
echo 1715470336 >"$D/r2/$GPU/mem_info_vram_used"
$PY -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[112] = 1; open(sys.argv[1], "wb").write(b)' "$D/r2/$GPU/gpu_metrics"
wait $pid
rc=$?
[ $rc -eq 1 ] && ok || bad "drift: exit $rc, want 1: $(tail -3 "$D/drift.err")"
schema "$D/drift.json"
st drift soak.latency_drift fail
st drift soak.clock fail
st drift soak.thermal fail
st drift soak.throttle warn
st drift soak.vram warn
expect "drift: clock figures" "$D/drift.json" 'f["soak.sclk_first_mhz"] == 2400 and f["soak.sclk_last_mhz"] == 1500'
expect "drift: junction named" "$D/drift.json" '"junction 110 C of its 110 C limit" in f["soak.temp_hottest"]'
expect "drift: PPT0 turned on" "$D/drift.json" 'f["soak.throttle_reasons"] == "PPT0" and f["soak.throttle_events"] == 1'
expect "drift: VRAM grew 1 GiB" "$D/drift.json" 'f["soak.vram_growth_bytes"] == 1073741824'

# --- one outlier while the clock steps and a process appears ---
mkroot "$D/r3"
echo "once 0" >"$HOOK"
DUR=8 soak outlier "$D/r3" &
pid=$!
cold=$(wait_first_call)
sleep 1
echo "once 1500" >"$HOOK"
# the child removes the hook when the slow call starts: change the telemetry during that call
i=0
while [ -e "$HOOK" ] && [ $i -lt 600 ]; do sleep 0.02; i=$((i + 1)); done
printf '0: 500Mhz\n1: 1500Mhz *\n2: 2500Mhz\n' >"$D/r3/$GPU/pp_dpm_sclk"
mkdir -p "$D/r3/proc/999/fdinfo"
echo stress >"$D/r3/proc/999/comm"
printf 'drm-driver:\tamdgpu\ndrm-client-id:\t5\ndrm-pdev:\t0000:86:00.0\n' >"$D/r3/proc/999/fdinfo/4"
wait $pid
rc=$?
[ $rc -le 1 ] && ok || bad "outlier: exit $rc: $(tail -3 "$D/outlier.err")"
expect "outlier: attributed to the clock step and the process" "$D/outlier.json" 'any("GPU 0 shader clock 2400 -> 1500 MHz" in x and "another process: stress (pid 999) on GPU 0" in x for x in f["soak.outlier_causes"])'
expect "outlier: not unexplained" "$D/outlier.json" 'f["soak.outliers"] >= 1 and f["soak.outliers_unexplained"] == f["soak.outliers"] - sum(1 for x in f["soak.outlier_causes"] if "unexplained" not in x)'

# --- Ctrl-C: the report is written with what was measured ---
mkroot "$D/r4"
rm -f "$HOOK"
t0=$(date +%s)
"$RVD" soak --duration 60s --preset "$MICRO" --backend cpu --interval 100 --sysroot "$D/r4" \
    --json "$D/int.json" >"$D/int.out" 2>"$D/int.err" &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
t1=$(date +%s)
[ $rc -le 1 ] && ok || bad "SIGINT: exit $rc: $(tail -3 "$D/int.err")"
[ $((t1 - t0)) -lt 20 ] && ok || bad "SIGINT: took $((t1 - t0)) s"
schema "$D/int.json"
expect "SIGINT: interrupted, calls kept" "$D/int.json" 'f["soak.interrupted"] is True and f["soak.calls"] >= 1 and f["soak.duration_s"] < 30'
expect "SIGINT: soak.run warns" "$D/int.json" 'c["soak.run"]["status"] in ("warn", "fail") and ("stopped early" in c["soak.run"]["summary"] or "only" in c["soak.run"]["summary"])'
grep -q "^rocm-vla-doctor soak (stopped early by SIGINT while the pass ran: the results are partial, [0-9]* of 60 s)$" "$D/int.out" && ok || bad "SIGINT: text does not say so: $(head -1 "$D/int.out")"

# --- usage errors: exit 2 ---
usage() { # LABEL PATTERN ARGS...
    label=$1 pat=$2
    shift 2
    "$RVD" soak "$@" >"$D/u.out" 2>"$D/u.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$D/u.err"; then ok; else bad "$label: exit $rc, $(head -2 "$D/u.err")"; fi
}
usage "no duration" "--duration is required"
usage "zero duration" "--duration must be" --duration 0
usage "bad unit" "--duration must be" --duration 5x
usage "bad dtype" "--dtype must be" --duration 5s --dtype int8
usage "bad backend" "--backend must be" --duration 5s --backend tpu
usage "bad load" "--load must be" --duration 5s --load disk
usage "bad interval" "--interval must be" --duration 5s --interval 5
usage "bad rate" "--rate must be" --duration 5s --rate 0
usage "argument" "takes no arguments" --duration 5s extra
usage "unknown preset" "" --duration 5s --preset no-such-preset
usage "json to a directory" "is a directory" --duration 5s --json "$D"
"$RVD" --level soak >"$D/lvl.out" 2>&1
[ $? -eq 2 ] && grep -q "rocm-vla-doctor soak --duration" "$D/lvl.out" && ok || bad "check --level soak not refused"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
