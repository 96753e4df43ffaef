#!/bin/sh
# gpus.sh - every GPU without a GPU: --gpu N[,M]|all, the per-GPU facts
# gpu.<j>.* and verdicts, and one isolated child per GPU, through the CPU
# backend's test devices (ROCM_VLA_DOCTOR_CPU_DEVICES, src/gpu/backend.h) on
# fixture machines: the mi300x node's 8 sysfs GPUs (the devices named by their
# PCI addresses, in another order than sysfs lists them) and the GPU-less
# server (synthetic addresses, paired with nothing). Fault injection
# (ROCM_VLA_DOCTOR_FAULT=device_abort:<i> / device_hang:<i>) kills or hangs one
# device's children: the other devices' facts survive.
# Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/gpus
NAME=gpus
. tests/lib.sh
rm -rf "$OUT" && mkdir -p "$OUT"
MI=tests/fixtures/mi300x-node/root
NOGPU=tests/fixtures/no-gpu-server/root
# the fixture's gpu.0, gpu.2 and gpu.5, listed by the runtime as devices 0, 1, 2
# in the order 2, 0, 5: pairing must go by address, never by position
DEVS=0000:65:00.0,0000:05:00.0,0000:95:00.0
EACH="sync.latency pcie.bandwidth hmm.managed mem.release fp.correctness fp.sampling gpu.gemm_peak"

# run NAME EXPECTED_RC ARGS...: the doctor with the test devices on the mi300x node
run() {
    n=$1 want=$2
    shift 2
    ROCM_VLA_DOCTOR_CPU_DEVICES=${DEVICES:-$DEVS} "$RVD" --sysroot "${ROOT:-$MI}" \
        --json "$OUT/$n.json" "$@" >"$OUT/$n.txt" 2>"$OUT/$n.err"
    rc=$?
    [ "$rc" -eq "$want" ] && ok || bad "$n: exit $rc, want $want ($(head -c 300 "$OUT/$n.err"))"
}

# ---- --gpu all: three children per probe, facts under the paired gpu.<j> -----
run all 0 --level standard --gpu all
J="$OUT/all.json"
expect "all: the three devices measured, by sysfs slot" "$J" 'sorted(f["gpu.measured"]) == ["0", "2", "5"]'
expect "all: paired by PCI address, not position" "$J" 'f["gpu.2.runtime_device"] == 0 and f["gpu.0.runtime_device"] == 1 and f["gpu.5.runtime_device"] == 2 and all(f["gpu.%s.runtime_pci" % j] == f["gpu.%s.pci" % j] for j in f["gpu.measured"])'
expect "all: every per-GPU probe ran once per device, each ok" "$J" 'all(f["gpu.%s.probe.%s.status" % (j, p)] == "ok" for j in ("0", "2", "5") for p in ("sync", "bandwidth", "hmm", "mem_release", "fp", "fp_sampling", "gemm_peak"))'
expect "all: each device's own facts" "$J" 'f["gpu.0.sync.device"] == "host CPU (test device 1)" and f["gpu.5.gemm_peak.device"] == "host CPU (test device 2)" and f["gpu.2.bw.available"] is False'
expect "all: no unrenamed per-GPU facts" "$J" 'not any(k.startswith(("sync.", "bw.", "hmm.", "memrel.", "fp.")) for k in f) and "gpu.gemm_peak.available" not in f and "gpu.1.sync.available" not in f'
for id in $EACH; do
    expect "all: $id judged on the 3 measured GPUs" "$J" "c['$id']['status'] == 'skip' and c['$id']['summary'].startswith('not judged on 3 GPUs: ') and 'test device' in c['$id']['summary'] and sorted(g['gpu'] for g in c['$id']['gpus']) == [0, 2, 5] and all(g['status'] == 'skip' and g['pci'] == f['gpu.%d.pci' % g['gpu']] for g in c['$id']['gpus'])"
done
expect "all: the probes' aggregate outcome" "$J" 'f["probe.sync.status"] == "ok" and f["probe.sync.per_gpu"] is True'

# ---- --gpu 0,2: runtime devices 0 and 2 = gpu.2 and gpu.5 ---------------------
run sel 0 --level standard --gpu 0,2
J="$OUT/sel.json"
expect "0,2: the devices chosen, nothing else" "$J" 'sorted(f["gpu.measured"]) == ["2", "5"] and "gpu.0.sync.available" not in f and "gpu.0.runtime_device" not in f'
expect "0,2: judged on 2 GPUs" "$J" 'c["sync.latency"]["summary"].startswith("not judged on 2 GPUs: ") and sorted(g["gpu"] for g in c["sync.latency"]["gpus"]) == [2, 5]'

# ---- default: device 0 only (documented in rocm-vla-doctor(1)) ----------------
run default 0 --level standard
expect "default: runtime device 0 only" "$OUT/default.json" 'f["gpu.measured"] == ["2"] and "GPUs pass" not in c["sync.latency"]["summary"]'
# issue 34: the text says that a gate would miss the other devices
if tr '\n' ' ' <"$OUT/default.txt" | tr -s ' ' | grep -q "Note: the GPU probes measured 1 of the runtime's 3 devices; --gpu all measures every one"; then ok; else bad "default: no note that 1 of 3 devices was measured"; fi
if grep -q "Note: the GPU probes measured" "$OUT/all.txt"; then bad "all: the note with every device measured"; else ok; fi

# ---- devices with no sysfs GPU get slots after the sysfs ones -----------------
DEVICES=2 ROOT=$NOGPU run nogpu 1 --level standard --gpu all
expect "unpaired: slots 0 and 1 after the 0 sysfs GPUs, synthetic addresses" "$OUT/nogpu.json" 'f["gpu.count"] == 0 and f["gpu.measured"] == ["0", "1"] and f["gpu.1.runtime_pci"] == "00ff:01:00.0"'
DEVICES=2 run unpaired 0 --level standard --gpu 1
expect "unpaired on the 8-GPU node: device 1 is gpu.9" "$OUT/unpaired.json" 'f["gpu.measured"] == ["9"] and f["gpu.9.runtime_device"] == 1'

# ---- fault injection: one device's children die or hang ------------------------
ROCM_VLA_DOCTOR_FAULT=device_abort:1 run abort 1 --level standard --gpu all
J="$OUT/abort.json"
expect "abort: device 1 (gpu.0) is an error of each per-GPU check, named" "$J" 'all(c[i]["status"] == "error" and c[i]["summary"].startswith("GPU 0 errs, GPUs 2, 5 not judged; GPU 0: probe ") and "SIGABRT" in c[i]["summary"] and [g["status"] for g in c[i]["gpus"] if g["gpu"] == 0] == ["error"] for i in ("sync.latency", "gpu.gemm_peak"))'
expect "abort: the other devices' facts survive" "$J" 'f["gpu.2.sync.device"] == "host CPU (test device 0)" and f["gpu.5.sync.available"] is False and f["gpu.2.probe.sync.status"] == "ok" and f["gpu.0.probe.sync.status"] == "error"'
expect "abort: the aggregate names the device" "$J" 'f["probe.sync.status"] == "error" and f["probe.sync.message"].startswith("device 1 (gpu.0): ")'
# a hang: the sync budget cut to 2 s; the devices after it are still measured
sed '/- id: sync.latency/,/timeout:/ s/timeout: 20/timeout: 2/' checks.yaml >"$OUT/checks.yaml"
ROCM_VLA_DOCTOR_FAULT=device_hang:0 run hang 1 --level standard --gpu all --only sync.latency \
    --checks "$OUT/checks.yaml"
J="$OUT/hang.json"
expect "hang: device 0 (gpu.2) times out" "$J" 'c["sync.latency"]["status"] == "timeout" and c["sync.latency"]["summary"].startswith("GPU 2 times out, GPUs 0, 5 not judged; GPU 2: probe sync timed out") and [g["rule"] for g in c["sync.latency"]["gpus"] if g["gpu"] == 2] == ["probe"] and f["gpu.2.probe.sync.status"] == "timeout"'
expect "hang: devices 1 and 2 measured after it" "$J" 'f["gpu.0.probe.sync.status"] == "ok" and f["gpu.5.probe.sync.status"] == "ok" and "gpu.5.sync.device" in f'

# ---- the VRAM pattern test on each device (the C twin on the test devices) ----
run mt 0 --level standard --gpu all --only gpu.memtest
J="$OUT/mt.json"
expect "memtest: each device passes every pattern" "$J" 'c["gpu.memtest"]["status"] == "pass" and c["gpu.memtest"]["summary"].startswith("all 3 GPUs: 16.0 MiB (0.05 of the free VRAM) read back right under walking ones, address in address, random, moving inversions at ")'
expect "memtest: facts per GPU, throughput measured" "$J" 'all(f["gpu.%s.memtest.errors" % j] == 0 and f["gpu.%s.memtest.complete" % j] and f["gpu.%s.memtest.gbs" % j] > 0 and f["gpu.%s.memtest.bytes" % j] == 16 << 20 and f["gpu.%s.memtest.injected" % j] == "" for j in ("0", "2", "5"))'
# a bit flipped on device 1 (gpu.0) only: its failing offset and pattern, the others pass
ROCM_VLA_DOCTOR_MEMTEST_FLIP=4101:3@1 run mtflip 1 --level standard --gpu all --only gpu.memtest
J="$OUT/mtflip.json"
expect "memtest flip: GPU 0 fails with the address and pattern" "$J" 'c["gpu.memtest"]["status"] == "fail" and c["gpu.memtest"]["summary"].startswith("GPU 0: 41 wrong reads in 16.0 MiB of VRAM at ") and "first at walking ones: offset 0x1004 (address 0x" in c["gpu.memtest"]["summary"] and "expected 0x00000002, read 0x00000802 (bits 0x00000800) (2 of 3 GPUs pass)" in c["gpu.memtest"]["summary"]'
expect "memtest flip: the facts say where and that it was injected" "$J" 'f["gpu.0.memtest.errors"] == 41 and len(f["gpu.0.memtest.first_errors"]) == 1 and f["gpu.0.memtest.failed_patterns"] == ["walking ones", "address in address", "random", "moving inversions"] and f["gpu.0.memtest.injected"] == "4101:3@1" and f["gpu.2.memtest.errors"] == 0 and f["gpu.5.memtest.errors"] == 0'
expect "memtest flip: the device address is the buffer's plus the offset" "$J" '"(address 0x%x)" % (int(f["gpu.0.memtest.base"], 16) + 0x1004) in f["gpu.0.memtest.first_error"]'
# --memtest-fraction and the level's default: the share is recorded (the C twin caps at 16 MiB)
run mtfrac 0 --level full --gpu 0 --only gpu.memtest --memtest-fraction 0.5
expect "memtest: --memtest-fraction and the full level's bound" "$OUT/mtfrac.json" 'f["gpu.2.memtest.fraction"] == 0.5 and f["gpu.2.memtest.time_bound_s"] == 60'
run mtfull 0 --level full --gpu 0 --only gpu.memtest
expect "memtest: full level default 0.25" "$OUT/mtfull.json" 'f["gpu.2.memtest.fraction"] == 0.25'
for v in 0 1 -0.1 x 0.95 ""; do
    run "mtbad-$v" 2 --level standard --memtest-fraction "$v"
    grep -q -- "--memtest-fraction" "$OUT/mtbad-$v.err" && ok || bad "--memtest-fraction '$v': no message"
done
ROCM_VLA_DOCTOR_MEMTEST_FLIP=4:9 run mtbadhook 0 --level standard --only gpu.memtest
expect "memtest: a malformed flip hook is said" "$OUT/mtbadhook.json" 'c["gpu.memtest"]["status"] == "skip" and "want OFFSET[:BIT][@DEVICE]" in c["gpu.memtest"]["summary"]'

# ---- peer-to-peer between the selected GPUs ------------------------------------
# a copy of the node with KFD io_links: gpu.0-gpu.2 xGMI (type 11), gpu.2-gpu.5
# PCIe (type 2), none between gpu.0 and gpu.5 (KFD nodes 2, 4, 7)
P2P="$OUT/p2proot"
cp -r "$MI" "$P2P"
# the fixture has its own full xGMI mesh (gpu.xgmi): this test draws its own
rm -rf "$P2P"/sys/class/kfd/kfd/topology/nodes/*/io_links
link() { # FROM TO TYPE
    d="$P2P/sys/class/kfd/kfd/topology/nodes/$1/io_links/$2"
    mkdir -p "$d" && printf 'type %s\nnode_from %s\nnode_to %s\n' "$3" "$1" "$2" >"$d/properties"
}
link 2 4 11 && link 4 2 11 && link 4 7 2 && link 7 4 2
ROOT=$P2P run p2p 0 --level standard --gpu all --only gpu.p2p
[ "$rc" -le 1 ] && ok || bad "p2p: exit $rc"
J="$OUT/p2p.json"
expect "p2p: every pair, access both ways, bandwidth both ways" "$J" 'f["gpu.p2p.gpus"] == 3 and sorted(f["gpu.p2p.pairs"]) == ["0_2", "0_5", "2_5"] and all(f["gpu.p2p.%s.access" % p] and f["gpu.p2p.%s.ab_gbs" % p] > 0 and f["gpu.p2p.%s.ba_gbs" % p] > 0 for p in f["gpu.p2p.pairs"])'
expect "p2p: link types from the KFD io_links" "$J" 'f["gpu.p2p.0_2.link"] == "xgmi" and f["gpu.p2p.2_5.link"] == "pcie" and f["gpu.p2p.0_5.link"] is None and "no io_link from KFD node 2 to 7" in d["facts_meta"]["gpu.p2p.0_5.link"]["reason"]'
expect "p2p: the smallest copy per link type" "$J" 'f["gpu.p2p.xgmi_min_gbs"] == min(f["gpu.p2p.0_2.ab_gbs"], f["gpu.p2p.0_2.ba_gbs"]) and f["gpu.p2p.pcie_min_gbs"] == min(f["gpu.p2p.2_5.ab_gbs"], f["gpu.p2p.2_5.ba_gbs"])'
# memmove is no xGMI link: below 20 GB/s it is judged far below one
expect "p2p: xGMI below its link's rate warns" "$J" '(c["gpu.p2p"]["status"] == "warn" and "over xGMI reaches only" in c["gpu.p2p"]["summary"]) if f["gpu.p2p.xgmi_min_gbs"] < 20 else c["gpu.p2p"]["status"] == "pass"'
ROOT=$P2P run p2ppair 0 --level standard --gpu 1,2 --only gpu.p2p
expect "p2p: --gpu 1,2 is the one pair gpu.0-gpu.5, link unknown, passes" "$OUT/p2ppair.json" 'f["gpu.p2p.pairs"] == ["0_5"] and c["gpu.p2p"]["status"] == "pass" and c["gpu.p2p"]["summary"].startswith("2 GPUs, peer access between every pair: gpu.0<->gpu.5 unknown: ")'
# devices 0 and 1 (gpu.2, gpu.0: xGMI) refuse peer access: a failure naming them
ROCM_VLA_DOCTOR_FAULT=no_peer:0,1 ROOT=$P2P run p2pnoxgmi 1 --level standard --gpu all --only gpu.p2p
expect "p2p: no access on an xGMI pair fails" "$OUT/p2pnoxgmi.json" 'c["gpu.p2p"]["status"] == "fail" and c["gpu.p2p"]["summary"] == "GPUs linked by xGMI cannot access each other'"'"'s memory: gpu.0-gpu.2" and f["gpu.p2p.0_2.access"] is False and f["gpu.p2p.0_2.ab_gbs"] > 0'
# devices 0 and 2 (gpu.2, gpu.5: PCIe) refuse: a warning, copies still measured
ROCM_VLA_DOCTOR_FAULT=no_peer:0,2 ROOT=$P2P run p2pnopcie 0 --level standard --gpu all --only gpu.p2p
expect "p2p: no access over PCIe warns" "$OUT/p2pnopcie.json" 'c["gpu.p2p"]["status"] == "warn" and c["gpu.p2p"]["summary"].startswith("no peer access between gpu.2-gpu.5 (pcie)") and f["gpu.p2p.no_access_xgmi"] == []'
ROOT=$P2P run p2pone 0 --level standard --gpu 2 --only gpu.p2p
expect "p2p: one GPU skips, saying why" "$OUT/p2pone.json" 'c["gpu.p2p"]["status"] == "skip" and c["gpu.p2p"]["summary"] == "one GPU measured: peer-to-peer needs two (--gpu all, or --gpu 0,1)"'
"$RVD" --sysroot "$MI" --level standard --only gpu.p2p --json "$OUT/p2pnone.json" >/dev/null 2>&1
expect "p2p: no GPU skips" "$OUT/p2pnone.json" 'c["gpu.p2p"]["status"] == "skip" and c["gpu.p2p"]["summary"].startswith("no GPU measured")'

# ---- bad values: a clear message, exit 2, before or instead of any measurement --
for v in "" x -1 1,1 0, ,0 "all,1" 0x1 64 " 1"; do
    run "bad-$v" 2 --level standard --gpu "$v"
    grep -q -- "--gpu" "$OUT/bad-$v.err" && ok || bad "--gpu '$v': no message naming --gpu"
done
run range 2 --level standard --gpu 0,7
grep -q -- "--gpu 7: the cpu runtime shows 3 device(s), numbered 0 to 2" "$OUT/range.err" && ok ||
    bad "--gpu 7 on 3 devices: $(cat "$OUT/range.err")"
[ ! -s "$OUT/range.json" ] && ok || bad "--gpu 7: a report was written"
run quick 2 --gpu 1
grep -q "run at --level standard or full" "$OUT/quick.err" && ok || bad "--gpu at quick: $(cat "$OUT/quick.err")"
"$RVD" --sysroot "$MI" --level standard --gpu 0 >"$OUT/none.txt" 2>"$OUT/none.err"
[ $? -eq 2 ] && grep -q -- "--gpu 0: no GPU runtime shows a device" "$OUT/none.err" && ok ||
    bad "--gpu 0 without a device: $(cat "$OUT/none.err")"
"$RVD" collect --gpu 0 -o "$OUT/c.tar.gz" >/dev/null 2>"$OUT/collect.err"
[ $? -eq 2 ] && grep -q "collect: unknown option '--gpu'" "$OUT/collect.err" && ok || bad "collect --gpu: $(cat "$OUT/collect.err")"
ROCM_VLA_DOCTOR_CPU_DEVICES=0000:zz:00.0 "$RVD" --sysroot "$MI" --level standard --gpu all \
    --json "$OUT/badhook.json" >/dev/null 2>&1
expect "a malformed test hook is said, nothing measured" "$OUT/badhook.json" '"not a PCI address" in f["gpu.sync.why"] and "gpu.measured" not in f or f["gpu.measured"] == []'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
