#!/bin/sh
# host.sh - the host section of issue 10 end to end: AER/replay/ASPM,
# firmware and kernel-event facts of the fixture machines, the CPU governor
# check (standard level), diff naming a firmware change as a stack change,
# and collect recording the new files and the memlock query so that a
# replay of this machine gives the live verdicts.
set -u
NAME=host
. tests/lib.sh
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
H=$OUT/host
rm -rf "$H"
mkdir -p "$H"
FX=tests/fixtures

run() { # NAME MACHINE [ARGS...]
    n=$1 m=$2
    shift 2
    "$RVD" --sysroot "$FX/$m/root" --no-color --json "$H/$n.json" "$@" >"$H/$n.txt" 2>"$H/$n.err"
}

# ---- PCIe: AER summed over the path, replay count, ASPM states -------------
run mi250x mi250x-degraded
expect aer-fatal "$H/mi250x.json" 'f["gpu.0.aer.fatal"] == 1 and f["gpu.1.aer.fatal"] == 0'
expect aer-errors "$H/mi250x.json" \
    '"0000:c0:01.1 [8086:347a] fatal DLP 1" in f["gpu.0.aer.errors"] and "0000:c1:00.0 [1002:740c] correctable BadTLP 3" in f["gpu.0.aer.errors"]'
expect aer-hops "$H/mi250x.json" 'f["gpu.0.aer.hops_read"] == 2 and f["gpu.0.aer.correctable"] == 4'
expect aer-per-hop "$H/mi250x.json" \
    'f["gpu.0.aer.hops"] == ["0000:c0:01.1 [8086:347a]: correctable 0 nonfatal 0 fatal 1", "0000:c1:00.0 [1002:740c]: correctable 4 nonfatal 0 fatal 0"]'
expect replay "$H/mi250x.json" 'f["gpu.0.pcie_replay_count"] == 12'
expect aer-check "$H/mi250x.json" 'c["pcie.aer"]["status"] == "fail" and "fatal DLP 1" in c["pcie.aer"]["summary"]'
expect aspm-unknown "$H/mi250x.json" 'f["gpu.0.aspm.gpu_link_on"] is None and c["pcie.aspm"]["status"] == "skip"'

run desktop rx6900xt-desktop
expect aspm-real "$H/desktop.json" \
    'f["gpu.0.aspm.gpu_link_states"] == ["L0s", "L1"] and f["pcie.aspm_policy"] == "default"'
expect aspm-links "$H/desktop.json" '"0000:0c:00.0 [1002:73bf]: L0s L1" in f["gpu.0.aspm.links"]'
expect aspm-fix "$H/desktop.json" \
    'c["pcie.aspm"]["status"] == "warn" and "sync.latency" in c["pcie.aspm"]["fix"] and "pcie_aspm=off" not in c["pcie.aspm"]["fix"]'
expect aer-zero "$H/desktop.json" 'f["gpu.0.aer.fatal"] == 0 and f["gpu.0.aer.correctable"] == 0 and f["gpu.0.pcie_replay_count"] == 0'

# ---- firmware inventory ------------------------------------------------------
expect fw-real "$H/desktop.json" \
    'f["gpu.0.fw.mec"] == "0x00000068" and f["gpu.0.fw.vcn"] == "0x0211a000" and f["gpu.0.fw.uvd"] == "0x00000000" and f["gpu.0.fw_count"] == 22'
expect fw-vbios "$H/desktop.json" 'f["gpu.0.vbios"] == "113-D4121EXT-CO1"'
expect fw-package "$H/desktop.json" \
    'f["driver.firmware_package"] == ["linux-firmware 20240318.git3b128b60-0ubuntu2.3"]'
expect fw-pass "$H/desktop.json" 'c["gpu.firmware"]["status"] == "pass" and f["gpu.0.fw_not_loaded"] == []'
run degraded rx6900xt-degraded
expect fw-zero "$H/degraded.json" \
    'f["gpu.0.fw_not_loaded"] == ["mec"] and c["gpu.firmware"]["status"] == "fail"'
expect fw-package-rpm "$H/mi250x.json" 'f["driver.firmware_package"] is None'

# ---- kernel events: counts, last occurrence, the faulting process -----------
expect ev-count "$H/degraded.json" \
    'f["kernel.events.ring_timeout.count"] == 2 and abs(f["kernel.events.ring_timeout.last"] - 3121.2) < 1e-6'
expect ev-reset "$H/degraded.json" \
    'f["kernel.events.gpu_reset_begin.count"] == 2 and f["kernel.events.gpu_reset_failed.count"] == 1 and f["kernel.events.vram_lost.count"] == 1'
expect ev-proc "$H/degraded.json" 'f["kernel.events.fault_processes"] == ["pt_main_thread pid 5120"]'
expect ev-never "$H/desktop.json" 'f["kernel.events.ring_timeout.count"] == 0 and f["kernel.events.ring_timeout.last"] is None'
expect ev-info "$H/desktop.json" \
    '"hmm_registered" in f["kernel.dmesg.signatures"] and f["kernel.events"] == []'
expect vm-proc "$H/degraded.json" '"pt_main_thread pid 5120" in c["kernel.vm_faults"]["summary"]'

# ---- the CPU governor while measuring (standard level only) -----------------
run gov-bad rx6900xt-degraded --level standard --only cpu.governor
expect gov-warn "$H/gov-bad.json" 'c["cpu.governor"]["status"] == "warn" and f["cpu.governors"] == ["powersave (acpi-cpufreq)"]'
run gov-ok rx6900xt-desktop --level standard --only cpu.governor
expect gov-pass "$H/gov-ok.json" 'c["cpu.governor"]["status"] == "pass"'
run gov-none mi300x-node --level standard --only cpu.governor
expect gov-skip "$H/gov-none.json" 'c["cpu.governor"]["status"] == "skip"'
expect gov-quick "$H/desktop.json" '"cpu.governor" not in c'

# ---- diff: a firmware change is a stack change -------------------------------
"$RVD" diff "$H/desktop.json" "$H/degraded.json" --no-color >"$H/diff.txt" 2>&1
if grep -Eq "^  (stack: +| +)gpu\.0\.fw\.mec '0x00000068' -> '0x00000000'$" "$H/diff.txt" &&
    grep -Eq "^  stack: " "$H/diff.txt"; then
    ok
else
    bad "diff does not name gpu.0.fw.mec as a stack change: $(grep -n 'fw\.mec' "$H/diff.txt" | head -2)"
fi

# the firmware package of a linux-firmware update is a stack line too
python3 - "$H/desktop.json" "$H/desktop-fw.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["facts"]["driver.firmware_package"] = ["linux-firmware 20240318.git3b128b60-0ubuntu2.9"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$RVD" diff "$H/desktop.json" "$H/desktop-fw.json" --no-color >"$H/diff-fw.txt" 2>&1
if grep -Eq "^  stack: +driver\.firmware_package .*0ubuntu2\.3.* -> .*0ubuntu2\.9" "$H/diff-fw.txt"; then
    ok
else
    bad "diff does not name the firmware package as a stack change: $(head -8 "$H/diff-fw.txt")"
fi

# ---- collect records the new files; the replay agrees with the live run ------
if "$RVD" collect -o "$H/live.tar.gz" >"$H/collect.out" 2>"$H/collect.err"; then
    ok
    if python3 - "$H/live.tar.gz" >"$H/members.txt" 2>&1 <<'PY'
import sys, tarfile
names = set(tarfile.open(sys.argv[1]).getnames())
missing = [n for n in (".snapshot/limits",) if n not in names]
# files this host has must be in the snapshot
import os
for p in ("/proc/sys/kernel/numa_balancing", "/sys/kernel/mm/transparent_hugepage/enabled",
          "/sys/module/pcie_aspm/parameters/policy"):
    if os.path.exists(p) and p.lstrip("/") not in names:
        missing.append(p)
if missing:
    print("not recorded:", missing)
    sys.exit(1)
PY
    then ok; else bad "$(cat "$H/members.txt")"; fi
    "$RVD" --no-color --json "$H/live.json" >/dev/null 2>&1
    "$RVD" --sysroot "$H/live.tar.gz" --no-color --json "$H/replay.json" >/dev/null 2>&1
    if python3 - "$H/live.json" "$H/replay.json" >"$H/agree.txt" 2>&1 <<'PY'
import json, sys
ids = "host.memlock kernel.thp kernel.numa_balancing pcie.aer pcie.aspm gpu.firmware kernel.gpu_resets kernel.vm_faults kernel.pci_realloc python.wheel_tags".split()
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ca = {c["id"]: c["status"] for c in a["checks"]}
cb = {c["id"]: c["status"] for c in b["checks"]}
diff = [(i, ca.get(i), cb.get(i)) for i in ids if ca.get(i) != cb.get(i)]
for k in ("host.memlock_unlimited", "host.memlock_bytes", "kernel.numa_balancing",
          "kernel.thp_enabled", "cpu.governors", "python.env_kind"):
    if a["facts"].get(k) != b["facts"].get(k):
        diff.append((k, a["facts"].get(k), b["facts"].get(k)))
if diff:
    print("live and replay differ:", diff)
    sys.exit(1)
PY
    then ok; else bad "$(cat "$H/agree.txt")"; fi
else
    bad "collect failed: $(head -3 "$H/collect.err")"
fi

echo "$pass passed, $fail failed"
