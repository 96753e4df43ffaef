#!/bin/sh
# gpu_device.sh (make test-gpu) - on a machine with a GPU: every GPU probe
# through the real runtime (HIP on AMD, the CUDA reference on NVIDIA), cold
# then warm, results checked for physical sanity; VRAM read through NVML /
# rocm-smi, GEMM through cuBLAS / rocBLAS, and the project's own GEMM kernel
# forced with ROCM_VLA_DOCTOR_NO_BLAS=1 checked against the fp64 CPU
# reference and timed; then fault injection (a
# kernel that never returns) must end as a timeout of sync.latency alone;
# every fact of these runs must be declared in the fact catalogue.
# last the VLA probe's GPU path (tests/vla_probe.sh).
# Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}/gpu_device
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=gpu_device
. tests/lib.sh
export ROCM_VLA_DOCTOR_CACHE="$OUT/cache"

now() { python3 -c "import time; print(time.time())"; }
t0=$(now)
"$RVD" --level standard --json "$OUT/cold.json" >"$OUT/cold.txt" 2>&1
t1=$(now)
"$RVD" --level standard --json "$OUT/warm.json" >"$OUT/warm.txt" 2>&1
t2=$(now)
cold=$(python3 -c "print(round($t1 - $t0, 2))")
warm=$(python3 -c "print(round($t2 - $t1, 2))")
echo "cold run $cold s, warm run $warm s"
grep -E 'gpu.runtime|kernels_compile|sync.latency|pcie.bandwidth|hmm.managed|mem.release' "$OUT/warm.txt"
python3 -c "import sys; sys.exit(0 if $warm < 30 else 1)" && ok || bad "warm standard run took $warm s (budget 30 s)"
W="$OUT/warm.json"
expect "a device" "$W" 'f["runtime.device_count"] >= 1'
# runtime devices paired with the OS's PCI devices by address, never by position:
# every device's address is a PCI device of its vendor in sysfs, nothing is unpaired,
# and on HIP each names the gpu.<j> at the same address
expect "runtime devices at their PCI addresses" "$W" 'f["runtime.unpaired"] == [] and all(f["runtime.dev.%d.pci_vendor" % i] == {"cuda": "0x10de", "hip": "0x1002"}[f["runtime.backend"]] for i in range(f["runtime.device_count"]))'
expect "HIP devices paired with gpu.<j> by PCI address" "$W" 'f["runtime.backend"] != "hip" or all(f["gpu.%d.pci" % f["runtime.dev.%d.gpu" % i]][:10] == f["runtime.dev.%d.pci" % i][:10] for i in range(f["runtime.device_count"]))'
expect "kernels compiled for device 0 at its address" "$W" 'f["kernels.device_pci"] == f["runtime.dev.0.pci"] and f["kernels.targets"] == [f["runtime.dev.0.target"]]'
expect "warm run compiles nothing" "$W" 'f["kernels.compiled"] == 0 and f["kernels.cached"] >= 3'
for id in gpu.runtime gpu.kernels_compile sync.latency pcie.bandwidth hmm.managed mem.release; do
    expect "$id measured" "$W" "c['$id']['status'] in ('pass', 'warn', 'fail')"
done
expect "null stream orders" "$W" 'f["sync.null_stream_stale"] == 0'
expect ">= 1000 samples" "$W" 'f["sync.samples"] >= 1000'
expect "launch overhead plausible (0.5..100 us)" "$W" '0.5 <= f["sync.launch_us.p50"] <= 100'
expect "event resolution plausible (< 100 us)" "$W" '0 < f["sync.event_resolution_us"] < 100'
# PCIe Gen5 x16 carries 63 GB/s per direction: anything above is a timing bug
expect "H2D pinned within physics (1..64 GB/s)" "$W" '1 <= f["bw.h2d_pinned_gbs"] <= 64'
expect "D2H pinned within physics (1..64 GB/s)" "$W" '1 <= f["bw.d2h_pinned_gbs"] <= 64'
# HBM3e of an H200 is 4.8 TB/s, MI300X 5.3 TB/s
expect "triad within physics (50..5500 GB/s)" "$W" '50 <= f["bw.triad_gbs"] <= 5500'
expect "managed verdict" "$W" 'f["hmm.verdict"] in ("migrates", "host fallback", "partial")'
expect "device read bw within physics" "$W" '50 <= f["hmm.device_gbs"] <= 5500'
expect "VRAM delta measured" "$W" 'abs(f["memrel.delta_mb"]) < 1024'
# VRAM telemetry outside the allocator: NVML on the CUDA reference, rocm-smi on HIP
expect "mem.release reads the vendor telemetry" "$W" 'f["memrel.source"] == {"cuda": "NVML", "hip": "rocm-smi"}[f["memrel.backend"]]'
expect "GEMM through the vendor BLAS" "$W" 'f["gpu.gemm_peak.blas"] == {"cuda": "cuBLAS cublasGemmEx", "hip": "rocBLAS rocblas_gemm_ex"}[f["gpu.gemm_peak.backend"]] and f["fp.gemm.blas"] == f["gpu.gemm_peak.blas"]'

# the project's own GEMM kernel (kernels/gemm.hip), forced: fp16/bf16 against the fp64 CPU
# reference on VLA and odd shapes (fp.correctness), fp16/bf16/fp32 spot-checked at the timed
# size (gpu.gemm_peak), and its throughput
N="$OUT/noblas.json"
ROCM_VLA_DOCTOR_NO_BLAS=1 "$RVD" --level standard --only fp.correctness,gpu.gemm_peak \
    --json "$N" >"$OUT/noblas.txt" 2>&1
expect "NO_BLAS: own kernel in both probes" "$N" 'f["fp.gemm.blas"] == f["gpu.gemm_peak.blas"] == "own kernel rvd_gemm (no BLAS)" and "NO_BLAS" in f["gpu.gemm_peak.blas_lib"]'
expect "own kernel: fp16/bf16 within the fp32-accumulation bound" "$N" 'f["fp.gemm.failures"] == 0 and f["fp.gemm.nonfinite"] == 0 and f["fp.gemm.f16.max_bound_ratio"] <= 1 and f["fp.gemm.bf16.max_bound_ratio"] <= 1'
expect "own kernel: timed GEMMs spot-checked within the bound" "$N" 'f["gpu.gemm_peak.error"] == "" and f["gpu.gemm_peak.spot_checked"] == 48 and f["gpu.gemm_peak.spot_ratio"] <= 1'
expect "own kernel: throughput measured" "$N" 'all(f["gpu.gemm_peak.%s_tflops" % t] > 0 for t in ("fp16", "bf16", "fp32"))'
python3 - "$N" "$W" <<'PY'
import json, sys
n, w = (json.load(open(p))["facts"] for p in sys.argv[1:3])
for t in ("fp16", "bf16", "fp32"):
    print("GEMM %s: own kernel %.2f TFLOP/s at N=%d, %s %.1f TFLOP/s at N=%d" % (
        t, n["gpu.gemm_peak.%s_tflops" % t], n["gpu.gemm_peak.%s_n" % t], w["gpu.gemm_peak.blas"],
        w["gpu.gemm_peak.%s_tflops" % t], w["gpu.gemm_peak.%s_n" % t]))
print("own kernel error/bound: fp16 %.3g, bf16 %.3g (fp.correctness), spot %.3g (gemm_peak)" % (
    n["fp.gemm.f16.max_bound_ratio"], n["fp.gemm.bf16.max_bound_ratio"], n["gpu.gemm_peak.spot_ratio"]))
print("mem.release via %s (%s): baseline %.0f MiB, peak %.0f MiB, after %.0f MiB, delta %.1f MiB (runtime view %.1f MiB)" % (
    w["memrel.source"], w["memrel.source_lib"], w["memrel.baseline_mb"], w["memrel.peak_mb"],
    w["memrel.after_mb"], w["memrel.delta_mb"], w["memrel.runtime_delta_mb"]))
PY

# fault injection: a kernel that never returns; the sync budget is cut to 3 s
sed '/- id: sync.latency/,/timeout:/ s/timeout: 20/timeout: 3/' checks.yaml >"$OUT/checks.yaml"
ROCM_VLA_DOCTOR_FAULT=kernel_hang "$RVD" --level standard --checks "$OUT/checks.yaml" \
    --json "$OUT/hang.json" >"$OUT/hang.txt" 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "hung-kernel run exit code $rc"
expect "hung kernel -> timeout" "$OUT/hang.json" 'c["sync.latency"]["status"] == "timeout" and "never returns" in c["sync.latency"]["summary"]'
expect "later probes still ran" "$OUT/hang.json" 'c["mem.release"]["status"] in ("pass", "warn", "fail")'

# the VLA probe on the GPU path (tests/vla_probe.sh asserts on whichever path
# the machine takes; here a GPU is present, so it must take the GPU path and
# fails when the probe's GPU facts are missing)
vout=$(OUT="$OUT" RVD="$RVD" sh tests/vla_probe.sh 2>&1)
printf '%s\n' "$vout" | grep -E '^(FAIL|note)' || true
printf '%s\n' "$vout" | grep -q '^note vla_probe: GPU path' && ok || bad "vla_probe.sh did not take the GPU path on a GPU machine"
vp=$(printf '%s\n' "$vout" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' | tail -1)
if [ -n "$vp" ]; then
    pass=$((pass + ${vp% *}))
    fail=$((fail + ${vp#* }))
else
    bad "vla_probe.sh gave no counts"
fi
# telemetry on real silicon (issue 12): monitor reads the GPU live (NVML on
# NVIDIA, sysfs on AMD) with a source per value; the energy of a policy call
# comes from a counter or integrated power, never a made-up 0; a short soak
# of the tiny preset on the GPU path with its GEMM load judges its run
"$RVD" monitor --count 3 --interval 200 >"$OUT/monitor.jsonl" 2>"$OUT/monitor.err"
[ $? -eq 0 ] && ok || bad "monitor: $(tail -2 "$OUT/monitor.err")"
python3 - "$OUT/monitor.jsonl" <<'PY' && ok || bad "monitor: no GPU with clocks, power and temperature from a named source"
import json, sys
L = [json.loads(x) for x in open(sys.argv[1])]
assert len(L) == 3 and L[0]["gpus"], L[0]
g = L[0]["gpus"][0]
for k in ("sclk_mhz", "power_w", "temp_junction_c", "vram_used_bytes"):
    assert g[k] is not None and g["src"][k], (k, g["unknown"].get(k))
assert g["throttle"] is not None, g.get("throttle_why")
PY
"$RVD" bench --preset tiny --dtype bf16 --runs 5 --json "$OUT/bench-energy.json" >"$OUT/bench-energy.txt" 2>&1
python3 - "$OUT/bench-energy.json" <<'PY' && ok || bad "bench: no energy per call on the GPU: $(grep energy "$OUT/bench-energy.txt")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["energy_per_call_j"] is not None and d["energy_per_call_j"] > 0, d.get("energy_why")
assert d["avg_power_w"] > 10 and d["energy_source"], d
PY
grep -E '^energy' "$OUT/bench-energy.txt"
"$RVD" soak --duration 20s --preset tiny --dtype bf16 --json "$OUT/soak.json" >"$OUT/soak.txt" 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "soak: exit $rc: $(tail -3 "$OUT/soak.txt")"
expect "soak: ran on the GPU" "$OUT/soak.json" 'f["soak.backend"] in ("cuda", "hip") and f["soak.calls"] > 100 and c["soak.run"]["status"] == "pass"'
expect "soak: energy per call" "$OUT/soak.json" 'f["soak.energy_per_call_j"] is not None and f["soak.energy_per_call_j"] > 0'
expect "soak: clock and temperature judged" "$OUT/soak.json" 'c["soak.clock"]["status"] != "skip" and c["soak.thermal"]["status"] != "skip"'
sed -n '1,30p' "$OUT/soak.txt"

# the fact catalogue covers what the GPU probes produce on real silicon
# (tests/catalog.sh does the same for the CPU paths), the VLA pass included
"$RVD" --level full --only vla.latency.total --json "$OUT/full.json" >"$OUT/full.txt" 2>&1
"$RVD" list --facts >"$OUT/facts.txt"
python3 tests/catalog_check.py "$OUT/facts.txt" "$OUT"/*.json >"$OUT/catalog.out" 2>&1
while read -r verdict rest; do
    case $verdict in
    ok) ok ;;
    *) bad "undeclared or mistyped fact: $rest" ;;
    esac
done <"$OUT/catalog.out"
[ "$(grep -c '^ok ' "$OUT/catalog.out")" -ge 5 ] && ok || bad "catalogue: too few reports checked"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
