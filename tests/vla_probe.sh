#!/bin/sh
# vla_probe.sh - the vla probe and checks, on whichever path this machine
# takes. Without a GPU (CI): `--level full` runs the tiny preset on the CPU
# reference backend in the isolated child as a self-test (vla.selftest), the
# budget checks skip with the figure and say pi0 did not run. With a GPU
# runtime that has a device (make test-gpu runs this too): pi0 in bf16 on the
# GPU, every fact present, finite and within sane bounds, every vla.* check
# judged - a GPU with missing facts fails. Bench with a forced GPU backend
# fails with a clear message, and auto falls back to the CPU. Ends with
# "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/vla_probe
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=vla_probe
. tests/lib.sh

IDS=gpu.runtime,vla.latency.vision,vla.latency.total,vla.selftest,vla.control_rate,vla.memory,vla.numerics,vla.nonfinite
"$RVD" --level full --only "$IDS" --json "$OUT/full.json" >"$OUT/full.txt" 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "--level full exit $rc: $(head -c 300 "$OUT/full.txt")"
expect "probe ran isolated" "$OUT/full.json" 'f["probe.vla.status"] == "ok" and f["probe.vla.wall_s"] is not None'
# which path: a GPU runtime with a device means the GPU path, and then the
# probe's GPU facts must be there - a GPU present with CPU or missing facts
# is a failure, never a skip
if q "$OUT/full.json" '(f.get("runtime.device_count") or 0) >= 1'; then
    echo "note vla_probe: GPU path ($(python3 -c "import json; f=json.load(open('$OUT/full.json'))['facts']; print(f.get('vla.backend'), f.get('vla.device'))" 2>&1))"
    G="$OUT/full.json"
    expect "GPU: the probe ran on the GPU backend" "$G" 'f.get("vla.available") is True and f.get("vla.backend") in ("hip", "cuda") and f.get("vla.backend") == f.get("runtime.backend")'
    expect "GPU: no error" "$G" 'f.get("vla.error") == ""'
    expect "GPU: the default preset ran, as asked" "$G" 'f.get("vla.preset") == "pi0" and f.get("vla.requested_preset") == "pi0" and f.get("vla.dtype") == "bf16"'
    expect "GPU: device named" "$G" 'isinstance(f.get("vla.device"), str) and len(f["vla.device"]) > 3 and "CPU" not in f["vla.device"]'
    # finite and within sane bounds: pi0 bf16 takes ~20-40 ms on an H200
    expect "GPU: latency finite, 0 < vision <= total < 10 s" "$G" 'all(isinstance(f.get(k), (int, float)) and math.isfinite(f[k]) for k in ("vla.latency.vision_ms", "vla.latency.total_ms", "vla.latency.total_p99_ms", "vla.latency.step_ms")) and 0 < f["vla.latency.vision_ms"] <= f["vla.latency.total_ms"] < 10000 and f["vla.latency.total_p99_ms"] >= f["vla.latency.total_ms"] and 0 < f["vla.latency.step_ms"] < f["vla.latency.total_ms"]'
    expect "GPU: control rate = 1 / p50" "$G" 'abs(f["vla.control_rate_hz"] * f["vla.latency.total_ms"] - 1000) < 1'
    expect "GPU: cold pass timed" "$G" '0 < f["vla.cold_s"] < 300'
    expect "GPU: memory 0 < deploy <= used <= total, total > 1 GiB" "$G" '0 < f["vla.memory.deploy_bytes"] <= f["vla.memory.used_bytes"] <= f["vla.memory.total_bytes"] and f["vla.memory.total_bytes"] > 2**30'
    expect "GPU: bf16 vs fp32 cosine in (0.9, 1]" "$G" '0.9 < f["vla.numerics.cosine"] <= 1.000001 and math.isfinite(f["vla.numerics.max_error_rel"]) and f["vla.numerics.max_error_rel"] >= 0'
    expect "GPU: finite pass, activations measured" "$G" 'f["vla.nonfinite"] is False and f["vla.nonfinite_layer"] == "" and 0 < f["vla.max_activation"] < 1e6 and f["vla.max_activation_layer"] != ""'
    for id in vla.latency.vision vla.latency.total vla.control_rate vla.memory vla.numerics vla.nonfinite; do
        expect "GPU: $id judged (not skipped)" "$G" "c['$id']['status'] in ('pass', 'warn', 'fail') and 'pi0' in c['$id']['summary']"
    done
    expect "GPU: the CPU self-test is not what ran" "$G" 'c["vla.selftest"]["status"] == "skip" and "a GPU ran pi0" in c["vla.selftest"]["summary"]'
else
    echo "note vla_probe: CPU path (no GPU runtime with a device)"
    expect "tiny on the cpu" "$OUT/full.json" 'f["vla.preset"] == "tiny" and f["vla.requested_preset"] == "pi0" and f["vla.dtype"] == "fp32" and "no GPU" in f["vla.why"] and "pi0 did not run" in f["vla.why"]'
    expect "latency facts" "$OUT/full.json" 'f["vla.latency.total_ms"] > 0 and f["vla.latency.vision_ms"] > 0 and f["vla.latency.step_ms"] > 0 and abs(f["vla.control_rate_hz"] * f["vla.latency.total_ms"] - 1000) < 1'
    expect "layer facts" "$OUT/full.json" 'f["vla.nonfinite"] is False and f["vla.nonfinite_layer"] == "" and 1 < f["vla.max_activation"] < 100'
    expect "GPU facts unknown, not 0" "$OUT/full.json" 'f["vla.memory.deploy_bytes"] is None and f["vla.numerics.cosine"] is None'
    # the CPU pass is a self-test: its own result, never [ok] against the budget
    expect "self-test judged (2 s)" "$OUT/full.json" 'c["vla.selftest"]["status"] == "pass" and "tiny ran on the CPU" in c["vla.selftest"]["summary"]'
    expect "total not judged against the budget" "$OUT/full.json" 'c["vla.latency.total"]["status"] == "skip" and "self-test" in c["vla.latency.total"]["summary"] and " ms" in c["vla.latency.total"]["summary"]'
    grep -q '^\[ok\] vla.latency.total' "$OUT/full.txt" && bad "text report shows [ok] vla.latency.total on the CPU" || ok
    expect "nonfinite: pi0 did not run, the self-test judges NaN/Inf" "$OUT/full.json" 'c["vla.nonfinite"]["status"] == "skip" and "vla.selftest" in c["vla.nonfinite"]["summary"]'
    for id in vla.latency.vision vla.control_rate vla.numerics vla.memory; do
        expect "$id skips with a reason" "$OUT/full.json" "c['$id']['status'] == 'skip' and len(c['$id']['summary']) > 10"
    done
    # --preset pi0 without a GPU: what ran (tiny, with its figure) and what did not (pi0)
    "$RVD" --level full --preset pi0 --only vla. --json "$OUT/pi0.json" >"$OUT/pi0.txt" 2>&1
    expect "pi0 without a GPU: the self-test ran instead" "$OUT/pi0.json" 'f["vla.available"] is True and f["vla.backend"] == "cpu" and f["vla.preset"] == "tiny" and f["vla.requested_preset"] == "pi0"'
    expect "pi0 without a GPU: says pi0 did not run, with the self-test figure" "$OUT/pi0.json" 'c["vla.latency.total"]["status"] == "skip" and "pi0 did not run" in c["vla.latency.total"]["summary"] and "tiny, " in c["vla.latency.total"]["summary"]'
    expect "pi0 without a GPU: self-test passes" "$OUT/pi0.json" 'c["vla.selftest"]["status"] == "pass"'
fi
# bench: a forced GPU backend that is not there is a usage error naming it
if ! has_lib 'libcuda\.so'; then
    "$RVD" bench --preset tiny --backend cuda >"$OUT/cuda.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q "cuda backend" "$OUT/cuda.out" && ok || bad "bench --backend cuda without CUDA: exit $rc: $(head -c 200 "$OUT/cuda.out")"
fi
"$RVD" bench --preset tiny --runs 1 --rows 0 >"$OUT/auto.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "backend" "$OUT/auto.out" && ok || bad "bench auto: exit $rc"
"$RVD" bench --preset tiny --backend nosuch >"$OUT/bad.out" 2>&1
[ $? -eq 2 ] && grep -q "must be auto, cpu, cuda or hip" "$OUT/bad.out" && ok || bad "bad --backend"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
