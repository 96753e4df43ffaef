#!/bin/sh
# loop_device.sh - issue 36's figures on a GPU machine in one device call
# (under 4 minutes; the binary and its libraries carried in, as
# tools/device_session.sh), printing a compact table at the end:
#   1. bench --rate 20 (pi0 bf16, 60 calls a phase): back to back, then
#      paced at 20 Hz; the shader clock before every call, the cause when
#      paced calls are slower, and the paced loop's wake-up lateness (host
#      scheduling jitter at the control rate)
#   2. soak --duration 60s (pi0 bf16, GEMM load): the drift checks and every
#      call's actions against the first call's (soak.outputs)
#   3. soak --duration "${PACED_S}s" --rate 20 --load none: paced p99 against the
#      50 ms period (soak.paced) and the outputs under paced calls
#   4. the co-load case (a Vulkan render load beside the pass) is NOT built
#      yet (issue 36 item 4): the script says whether a Vulkan loader is
#      there and that the case was skipped
# Everything lands in $OUT/loop/ (text and JSON).
# Environment: RVD (the binary), OUT (results), CARRY (dir of the carried
# .so files, put on LD_LIBRARY_PATH when set).
set -u
RVD=${RVD:?} OUT=${OUT:?}
R="$OUT/loop"
mkdir -p "$R"
[ -n "${CARRY:-}" ] && export LD_LIBRARY_PATH="$CARRY${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PRESET=${PRESET:-pi0} DTYPE=${DTYPE:-bf16}
# a local smoke run may shorten the soaks (SOAK_S=3 PACED_S=2)
SOAK_S=${SOAK_S:-60} PACED_S=${PACED_S:-20}
t0=$(date +%s)
step() { # NAME LIMIT_S CMD...: stdout+stderr in $R/NAME.txt, the exit status said
    n=$1 lim=$2
    shift 2
    s=$(date +%s)
    timeout "$lim" "$@" >"$R/$n.txt" 2>&1
    echo "$n: exit $? in $(($(date +%s) - s)) s"
}
step bench-rate 75 "$RVD" bench --rate 20 --runs 60 --preset "$PRESET" --dtype "$DTYPE"
step soak 110 "$RVD" soak --duration "${SOAK_S}s" --preset "$PRESET" --dtype "$DTYPE" --json "$R/soak.json"
step soak-paced 70 "$RVD" soak --duration "${PACED_S}s" --rate 20 --load none --preset "$PRESET" \
    --dtype "$DTYPE" --json "$R/soak-paced.json"
vk=no
for l in /sbin/ldconfig /usr/sbin/ldconfig; do
    [ -x "$l" ] && "$l" -p 2>/dev/null | grep -q 'libvulkan\.so\.1' && vk=yes && break
done
echo "co-load: Vulkan loader here: $vk; the co-load case is not built (issue 36 item 4): skipped"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv \
    >"$R/nvidia-smi.txt" 2>&1 || true

echo
echo "== issue 36 figures ($PRESET $DTYPE; $(head -2 "$R/nvidia-smi.txt" | tail -1))"
sed -n 's/^  \(back to back\|paced\) .*/bench --rate 20 &/p; s/^  period .*/bench --rate 20 &/p; s/^  wake-up .*/bench --rate 20 &/p; s/^  cause: .*/bench --rate 20 &/p' "$R/bench-rate.txt"
for j in soak soak-paced; do
    [ -s "$R/$j.json" ] || { echo "$j: no report (see $R/$j.txt: $(tail -2 "$R/$j.txt"))"; continue; }
    python3 - "$R/$j.json" "$j" <<'PY' || grep -E "^\[|^  (p50|p99|calls|outputs|rate|deadline)" "$R/$j.txt"
import json, sys
d = json.load(open(sys.argv[1])); f = d["facts"]
c = {x["id"]: x["status"] for x in d["checks"]}
keys = ["soak.calls", "soak.p50_ms", "soak.p99_ms", "soak.p99_growth_pct", "soak.sclk_first_mhz",
        "soak.sclk_last_mhz", "soak.rate_hz", "soak.deadline_misses", "soak.outputs_compared",
        "soak.outputs_differ_calls", "soak.outputs_max_rel_diff", "soak.outputs_nonfinite"]
fmt = lambda v: "%.4g" % v if isinstance(v, float) else str(v)
print(sys.argv[2] + ": " + ", ".join("%s=%s" % (k[5:], fmt(f.get(k))) for k in keys))
print(sys.argv[2] + " checks: " + ", ".join("%s %s" % (k, v) for k, v in sorted(c.items())))
PY
done
echo "loop_device: $(($(date +%s) - t0)) s"
