#!/bin/sh
# gpu_multi.sh - on a machine with two or more GPUs (tests/gpu_device.sh runs
# it when the runtime shows more than one): --gpu all measures every GPU in
# its own children with per-GPU facts and verdicts, --gpu N one, a device
# number past the last is exit 2, a device whose children abort leaves the
# others' figures, peer-to-peer access and copy bandwidth between every pair,
# and diff matches the GPUs by PCI address across a renumbering
# (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES reversed).
# Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}/gpu_multi
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=gpu_multi
. tests/lib.sh

"$RVD" --level standard --gpu all --json "$OUT/all.json" >"$OUT/all.txt" 2>&1
J="$OUT/all.json"
n=$(python3 -c "import json; print(json.load(open('$J'))['facts']['runtime.device_count'])")
echo "devices: $n"
[ "$n" -ge 2 ] && ok || bad "gpu_multi.sh needs two GPUs, the runtime shows $n"
grep -E 'sync.latency|pcie.bandwidth|mem.release|gpu.gemm_peak|gpu.memtest|gpu.p2p' -A3 "$OUT/all.txt"
expect "every device measured, each at its own PCI address" "$J" 'len(f["gpu.measured"]) == f["runtime.device_count"] and sorted(f["gpu.%s.runtime_device" % j] for j in f["gpu.measured"]) == list(range(f["runtime.device_count"])) and all(f["gpu.%s.runtime_pci" % j] == f["runtime.dev.%d.pci" % f["gpu.%s.runtime_device" % j]] for j in f["gpu.measured"]) and len(set(f["gpu.%s.runtime_pci" % j] for j in f["gpu.measured"])) == len(f["gpu.measured"])'
expect "each GPU's own figures" "$J" 'all(0.5 <= g("sync.launch_us.p50", k) <= 100 and 1 <= g("bw.h2d_pinned_gbs", k) <= 64 and g("gemm_peak.bf16_tflops", k) > 10 and g("memtest.errors", k) == 0 and 50 <= g("memtest.gbs", k) <= 5500 for k in range(len(f["gpu.measured"])))'
expect "each GPU's children ok" "$J" 'all(f["gpu.%s.probe.%s.status" % (j, p)] == "ok" for j in f["gpu.measured"] for p in ("sync", "bandwidth", "hmm", "mem_release", "fp", "fp_sampling", "gemm_peak", "memtest"))'
for id in sync.latency pcie.bandwidth mem.release fp.correctness gpu.gemm_peak gpu.memtest; do
    expect "$id judged on every GPU" "$J" "c['$id']['status'] in ('pass', 'warn', 'fail') and ('all %d GPUs: ' % len(f['gpu.measured']) in c['$id']['summary'] or 'GPUs pass)' in c['$id']['summary'])"
done
# peer-to-peer: two H200s on NVLink reach hundreds of GB/s; anything in 1..1000 is physical
expect "p2p: every pair measured both ways" "$J" 'len(f["gpu.p2p.pairs"]) == len(f["gpu.measured"]) * (len(f["gpu.measured"]) - 1) // 2 and all(1 <= f["gpu.p2p.%s.ab_gbs" % p] <= 1000 and 1 <= f["gpu.p2p.%s.ba_gbs" % p] <= 1000 for p in f["gpu.p2p.pairs"])'
expect "p2p: access reported for every pair" "$J" 'all(isinstance(f["gpu.p2p.%s.access" % p], bool) for p in f["gpu.p2p.pairs"]) and c["gpu.p2p"]["status"] in ("pass", "warn", "fail")'
python3 - "$J" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["facts"]
for j in f["gpu.measured"]:
    print("gpu.%s (device %s, %s): launch p50 %.2f us, H2D %.1f GB/s, bf16 %.0f TFLOP/s, memtest %.1f GiB at %.0f GB/s" % (
        j, f["gpu.%s.runtime_device" % j], f["gpu.%s.runtime_pci" % j], f["gpu.%s.sync.launch_us.p50" % j],
        f["gpu.%s.bw.h2d_pinned_gbs" % j], f["gpu.%s.gemm_peak.bf16_tflops" % j],
        f["gpu.%s.memtest.bytes" % j] / 2**30, f["gpu.%s.memtest.gbs" % j]))
for line in f["gpu.p2p.summary"]:
    print("p2p:", line)
for p in f["gpu.p2p.pairs"]:
    print("p2p %s: access %s, link %s" % (p, f["gpu.p2p.%s.access" % p], f.get("gpu.p2p.%s.link" % p)))
PY

# one device: only its slot
"$RVD" --level standard --gpu 1 --only sync.latency,gpu.p2p --json "$OUT/one.json" >/dev/null 2>&1
expect "--gpu 1: device 1 alone" "$OUT/one.json" 'len(f["gpu.measured"]) == 1 and f["gpu.%s.runtime_device" % f["gpu.measured"][0]] == 1 and c["gpu.p2p"]["status"] == "skip"'
# past the last device: exit 2 naming the count
"$RVD" --level standard --gpu "0,$n" --only sync.latency >"$OUT/range.txt" 2>&1
[ $? -eq 2 ] && grep -q "shows $n device(s)" "$OUT/range.txt" && ok || bad "--gpu 0,$n: $(head -c 300 "$OUT/range.txt")"
# device 1's children abort: device 0's figures are kept and judged
ROCM_VLA_DOCTOR_FAULT=device_abort:1 "$RVD" --level standard --gpu all --only sync.latency,gpu.memtest \
    --json "$OUT/abort.json" >/dev/null 2>&1
expect "device 1 aborts: an error naming its GPU, device 0 measured" "$OUT/abort.json" 'c["sync.latency"]["status"] == "error" and [j for j in f["gpu.measured"] if f["gpu.%s.runtime_device" % j] == 1][0] == c["sync.latency"]["summary"].split(":")[0].split()[1] and all(f["gpu.%s.probe.sync.status" % j] == "ok" and f["gpu.%s.sync.launch_us.p50" % j] > 0 for j in f["gpu.measured"] if f["gpu.%s.runtime_device" % j] == 0)'
# renumbered devices: diff compares each GPU with itself, by PCI address
rev=$(python3 -c "print(','.join(str(i) for i in range($n - 1, -1, -1)))")
"$RVD" --level standard --gpu all --only sync.latency,gpu.memtest --json "$OUT/fwd.json" \
    >/dev/null 2>&1
CUDA_VISIBLE_DEVICES=$rev HIP_VISIBLE_DEVICES=$rev "$RVD" --level standard --gpu all \
    --only sync.latency,gpu.memtest --json "$OUT/rev.json" >/dev/null 2>&1
expect "reversed visibility: the devices renumbered" "$OUT/rev.json" 'f["runtime.dev.0.pci"] == json.load(open("'"$J"'"))["facts"]["runtime.dev.%d.pci" % (f["runtime.device_count"] - 1)]'
"$RVD" diff "$OUT/fwd.json" "$OUT/rev.json" --json "$OUT/diff.json" --tolerance '*=off' >"$OUT/diff.txt" 2>&1
if python3 - "$OUT/diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))  # a diff report: no "checks" (lib.sh's q does not apply)
moved = [i["name"] for k in ("regressions", "improvements", "changes") for i in d[k]
         if (i.get("name") or "").startswith("gpu.") and ".p2p." not in i["name"]
         and (i.get("change") in ("added", "removed") or i["name"].endswith("runtime_pci"))]
print("per-GPU facts added/removed or moved PCI address:", moved)
sys.exit(1 if moved else 0)
PY
then ok; else bad "diff of renumbered devices: GPUs not matched by PCI address"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
