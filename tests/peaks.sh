#!/bin/sh
# peaks.sh - expectations derived from the device, end to end: the derived
# peaks of fixture machines (MI300X, one MI250X GCD, RX 7800 XT: the vendors'
# figures), gpu.derived_peak passing and warning, a --checks file whose peaks
# table lacks a row (warn, with the reason) or is malformed (exit 2 at
# file:line:col), and on a machine without a GPU the measuring checks
# (gpu.mem_bandwidth, gpu.gemm_peak, pcie.bandwidth) skipping with the
# runtime's reason. The GPU path is tests/gpu_device.sh. Ends with
# "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
W="$OUT/peaks"
rm -rf "$W" && mkdir -p "$W"
NAME=peaks
. tests/lib.sh
F=tests/fixtures

# ---- 1. fixture machines ------------------------------------------------------
"$RVD" --sysroot $F/mi300x-node/root --only gpu.derived_peak --json "$W/mi300x.json" \
    >"$W/mi300x.txt" 2>&1
expect "MI300X: 1307.4 TFLOP/s fp16 (AMD's figure)" "$W/mi300x.json" 'abs(f["gpu.0.peak.fp16_tflops"] - 1307.4) < 0.1'
expect "MI300X: 163.4 TFLOP/s fp32 vector" "$W/mi300x.json" 'abs(f["gpu.0.peak.fp32_tflops"] - 163.4) < 0.1'
expect "MI300X: 5.3 TB/s HBM3" "$W/mi300x.json" 'abs(f["gpu.0.peak.mem_gbs"] - 5324.8) < 0.1'
expect "MI300X: Gen5 x16 payload 57.6 GB/s" "$W/mi300x.json" 'abs(f["gpu.0.peak.link_gbs"] - 57.614) < 0.01'
expect "MI300X: every GPU derived, gpu.derived_peak passes" "$W/mi300x.json" 'c["gpu.derived_peak"]["status"] == "pass" and all(f["gpu.%d.peak.why" % i] == "" for i in range(f["gpu.count"]))'
"$RVD" --sysroot $F/mi250x-degraded/root --only gpu.derived_peak --json "$W/mi250x.json" \
    >"$W/mi250x.txt" 2>&1
expect "MI250X GCD (KFD clocks): 1638 GB/s" "$W/mi250x.json" 'abs(f["gpu.0.peak.mem_gbs"] - 1638.4) < 0.1 and f["gpu.0.sclk_max_mhz"] == 1700'
"$RVD" --sysroot $F/rx7800xt-override/root --only gpu.derived_peak --json "$W/rx7800xt.json" \
    >"$W/rx7800xt.txt" 2>&1
expect "RX 7800 XT: real pp_dpm_mclk 1218 MHz x 256 bits x 16 = 624 GB/s" "$W/rx7800xt.json" 'abs(f["gpu.0.peak.mem_gbs"] - 623.6) < 0.1'
"$RVD" --sysroot $F/rx580-legacy/root --only gpu.derived_peak --json "$W/rx580.json" \
    >"$W/rx580.txt" 2>&1
expect "RX 580 (gfx803, no row): warn naming it, peaks unknown" "$W/rx580.json" 'c["gpu.derived_peak"]["status"] == "warn" and "gfx803" in c["gpu.derived_peak"]["summary"] and f["gpu.0.peak.fp16_tflops"] is None'
# GFX8 counts 4 SIMDs a CU (GFX10+ 2): the card's 36 CUs, and the captured
# pp_dpm_mclk's top level
expect "RX 580: 36 CUs, mclk 1750 MHz" "$W/rx580.json" 'f["gpu.0.cu_count"] == 36 and f["gpu.0.mclk_max_mhz"] == 1750'

# ---- 2. the peaks table is data: a --checks file without gfx942, and broken ones
sed '/^  - arch: gfx942$/,/^    source:/d' checks.yaml >"$W/no942.yaml"
if grep -q 'arch: gfx942' "$W/no942.yaml"; then bad "could not drop the gfx942 row"; else ok; fi
"$RVD" --sysroot $F/mi300x-node/root --checks "$W/no942.yaml" --only gpu.derived_peak \
    --json "$W/no942.json" >"$W/no942.txt" 2>&1
expect "without its row MI300X is not derived, and the check says why" "$W/no942.json" 'c["gpu.derived_peak"]["status"] == "warn" and "gfx942 is not in checks.yaml" in c["gpu.derived_peak"]["summary"]'
sed 's/^    fp16_matrix: 2048$/    fp16_matrix: -2048/' checks.yaml >"$W/neg.yaml"
"$RVD" --checks "$W/neg.yaml" --only gpu.derived_peak >"$W/neg.txt" 2>&1
rc=$?
line=$(grep -n 'fp16_matrix: -2048' "$W/neg.yaml" | head -1 | cut -d: -f1)
if [ "$rc" = 2 ] && grep -q "neg.yaml:$line:18: peaks 'fp16_matrix' must be a positive number" "$W/neg.txt"; then ok; else bad "negative figure: exit $rc, $(head -1 "$W/neg.txt")"; fi
sed 's/^    fp16_matrix: 2048$/    fp16_matix: 2048/' checks.yaml >"$W/typo.yaml"
"$RVD" --checks "$W/typo.yaml" --only gpu.derived_peak >"$W/typo.txt" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "unknown key 'fp16_matix' in peaks" "$W/typo.txt"; then ok; else bad "misspelt key: exit $rc, $(head -1 "$W/typo.txt")"; fi

# ---- 3. this machine: no GPU, so the measuring checks skip with the reason ----
"$RVD" --level standard --only gpu.mem_bandwidth,gpu.gemm_peak,pcie.bandwidth,gpu.derived_peak \
    --json "$W/live.json" >"$W/live.txt" 2>&1
if q "$W/live.json" 'f.get("runtime.device_count", 0) >= 1'; then
    echo "SKIP peaks live: this machine has a GPU (tests/gpu_device.sh covers it)"
else
    expect "no GPU: gpu.mem_bandwidth skips naming the runtime" "$W/live.json" 'c["gpu.mem_bandwidth"]["status"] == "skip" and g("membw.available") is False and ("GPU" in g("membw.why"))'
    expect "no GPU: gpu.gemm_peak and pcie.bandwidth skip" "$W/live.json" 'c["gpu.gemm_peak"]["status"] == "skip" and c["pcie.bandwidth"]["status"] == "skip"'
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
