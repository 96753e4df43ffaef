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
# issue 11: the fused VLA kernels against the CPU reference on odd shapes
# (seq 37, 3 heads x 72, 1/7/50-row GEMMs), then the odd preset's whole pass
# fused vs unfused and vs the CPU; a kernel disagreeing is exit 1
"$RVD" bench --kernel-test >"$OUT/ktest.txt" 2>&1
krc=$?
[ "$krc" -eq 0 ] && ok || bad "bench --kernel-test exit $krc: $(grep -E '^FAIL|error' "$OUT/ktest.txt" | head -5)"
[ "$(grep -c '^ok ' "$OUT/ktest.txt")" -ge 50 ] && ok || bad "kernel tests: $(grep -c '^ok ' "$OUT/ktest.txt") cases ok, want >= 50"
grep -q '^ok   pass: GPU bf16 fused vs GPU bf16 unfused' "$OUT/ktest.txt" && ok || bad "kernel tests: fused vs unfused pass missing"
# the GEMM paths on odd shapes and a 4-byte aligned operand, and (CUDA with
# cuBLASLt) both batch-1 GEMM paths: the fused ops again through
# cublasGemmEx, the odd preset's pass Lt vs cublasGemmEx
grep -q '^ok   matmul 7 x 100 x 1153 +bias += (4-byte aligned)' "$OUT/ktest.txt" && ok || bad "kernel tests: the odd matmul case missing"
if grep -q 'GEMMs through .*(tuned per shape)' "$OUT/ktest.txt"; then
    grep -q '^ok   pass: GPU bf16 cuBLASLt vs cublasGemmEx' "$OUT/ktest.txt" && ok || bad "kernel tests: the cuBLASLt A/B pass missing"
    grep -q '^-- fused ops, fp32, GEMMs through cublasGemmEx instead of cuBLASLt' "$OUT/ktest.txt" && ok || bad "kernel tests: the ops without cuBLASLt missing"
    ROCM_VLA_DOCTOR_NO_BLASLT=1 "$RVD" bench --kernel-test >"$OUT/ktest-nolt.txt" 2>&1 && ok || bad "bench --kernel-test with ROCM_VLA_DOCTOR_NO_BLASLT=1 failed"
    grep -q '^skip the cuBLASLt A/B: disabled by ROCM_VLA_DOCTOR_NO_BLASLT=1' "$OUT/ktest-nolt.txt" && ok || bad "NO_BLASLT: the kernel tests still used cuBLASLt"
else
    echo "SKIP gpu_device: no cuBLASLt on this backend: $(grep '^skip the cuBLASLt' "$OUT/ktest.txt")"
    grep -q '^skip the cuBLASLt A/B: ' "$OUT/ktest.txt" && ok || bad "kernel tests: no cuBLASLt and no reason given"
fi
# --profile: rows by stage, the GEMMs named by the path that ran them
"$RVD" bench --preset tiny --dtype bf16 --runs 2 --rows 0 --profile >"$OUT/profile.txt" 2>&1 && ok || bad "bench --profile failed"
for st in vision prefix steps; do
    grep -qE "^  $st +(GEMM|vla_)" "$OUT/profile.txt" && ok || bad "--profile: no $st rows"
done
# the unfused path on demand (A/B): the same bench, NO_FUSE, finite and close
ROCM_VLA_DOCTOR_VLA_NO_FUSE=1 "$RVD" bench --preset tiny --dtype bf16 --runs 3 --rows 0 >"$OUT/nofuse.txt" 2>&1 && ok || bad "bench with ROCM_VLA_DOCTOR_VLA_NO_FUSE=1 failed"
# bench --sweep on the GPU: a small grid, the JSON schema, GPU mode
"$RVD" bench --sweep --preset tiny --runs 3 --grid steps=1,10 --grid chunk=50 --grid image=64 \
    --grid dtype=bf16,fp32 --json "$OUT/sweep.json" >"$OUT/sweep.txt" 2>&1 && ok || bad "GPU sweep failed: $(tail -3 "$OUT/sweep.txt")"
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 tests/validate_json.py reports/sweep-schema.json "$OUT/sweep.json" >"$OUT/sweep.schema" 2>&1 && ok || bad "GPU sweep JSON: $(head -3 "$OUT/sweep.schema")"
else
    echo "SKIP gpu_device: python3 jsonschema missing, the GPU sweep's JSON not validated"
fi
python3 -c 'import json, sys; f = json.load(open(sys.argv[1])); sys.exit(0 if f["mode"] == "gpu" and len(f["configs"]) == 3 and all(c["ran"] and c["memory_used_bytes"] > 0 for c in f["configs"]) else 1)' "$OUT/sweep.json" && ok || bad "GPU sweep: want gpu mode, 3 configurations run, memory measured"

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
