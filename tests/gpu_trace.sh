#!/bin/sh
# gpu_trace.sh - --trace-gpu and collect --level standard's trace member, on
# the fake libamdhip64, libhsa-runtime64 and librocm_smi64 (tests/fake/):
# every process's calls are listed in order with their results (the fake's
# failing hipDeviceGetAttribute included, with its error name, and
# hsa_agent_get_info's attributes and values decoded), the trace
# holds neither the host's nor the user's name, collect puts it in the
# snapshot as .snapshot/gpu-trace.txt and the snapshot still replays, and an
# unwritable trace path is a usage error. Where Debian's real hiprtc is
# installed, its compile calls are traced with their options.
# Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
W="$OUT/gpu_trace"
rm -rf "$W" && mkdir -p "$W"
NAME=gpu_trace
. tests/lib.sh

F=$(cd "${BUILD:-build}" 2>/dev/null && pwd)/tests/fake
if [ ! -f "$F/libamdhip64.so" ] || [ ! -f "$F/libhsa-runtime64.so" ] || [ ! -f "$F/librocm_smi64.so" ]; then
    bad "the fake ROCm libraries are not built in $F (make unit-bins)"
    echo "$pass passed, $fail failed"
    exit 1
fi
fake() {
    FAKE_HIP_DEVICES=0000:03:00.0 ROCM_VLA_DOCTOR_HIP_LIB="$F/libamdhip64.so" \
        ROCM_VLA_DOCTOR_HSA_LIB="$F/libhsa-runtime64.so" \
        ROCM_VLA_DOCTOR_RSMI_LIB="$F/librocm_smi64.so" "$RVD" "$@"
}
# ordered FILE: 7 columns a line; each process's seqs are 1..n without a gap
# and its start times grow with seq (lines are written when a call returns,
# so the file order of a nested call is not its seq order)
ordered() {
    python3 - "$1" <<'PY'
import sys
by = {}
for l in open(sys.argv[1]):
    if l.startswith("#"):
        continue
    f = l.rstrip("\n").split("\t")
    if len(f) != 7:
        print("not 7 columns: %r" % l); sys.exit(1)
    by.setdefault(f[0], []).append((int(f[1]), float(f[2])))
if not by:
    print("no calls"); sys.exit(1)
for pid, v in by.items():
    v.sort()
    if [s for s, _ in v] != list(range(1, len(v) + 1)):
        print("pid %s: seqs %r" % (pid, [s for s, _ in v][:20])); sys.exit(1)
    if any(b[1] < a[1] for a, b in zip(v, v[1:])):
        print("pid %s: a later call started earlier" % pid); sys.exit(1)
PY
}
# leaks FILE: the host's or the user's name in the file (names of 2+ bytes)
leaks() {
    for w in "$(hostname 2>/dev/null)" "$(id -un 2>/dev/null)"; do
        [ ${#w} -ge 2 ] && grep -qwF -- "$w" "$1" && echo "$w"
    done
}

# ---- 1. check --trace-gpu on the fake runtime -----------------------------
T="$W/trace.txt"
fake --level standard --trace-gpu "$T" --json "$W/r.json" >"$W/r.out" 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "check --trace-gpu: exit $rc ($(tail -2 "$W/r.out"))"
head -1 "$T" | grep -q '^# rocm-vla-doctor GPU call trace 1:' && ok || bad "no trace header in $T"
why=$(ordered "$T") && ok || bad "trace order: $why"
# the backend's start, in order, in the first process that opened it
first=$(grep -v '^#' "$T" | head -1 | cut -f1)
seqline=$(awk -F'\t' -v p="$first" '$1 == p { print $2 "\t" $6 }' "$T" | sort -n | cut -f2 |
    sed 's/(.*//' | head -4 | tr '\n' ' ')
[ "$seqline" = "hipRuntimeGetVersion hipInit hipDriverGetVersion hsa_init " ] && ok ||
    bad "first calls: '$seqline'"
grep -q "$(printf 'hip\thipInit(0)\t0$')" "$T" && ok || bad "no 'hipInit(0) = 0' line"
grep -q "$(printf 'hip\thipGetDeviceCount(&1)\t0$')" "$T" && ok || bad "no output value of hipGetDeviceCount"
grep -q "$(printf 'hipDeviceGetAttribute(&?, 63, 0)\t1 hipErrorUnknown$')" "$T" && ok ||
    bad "the failing hipDeviceGetAttribute is not traced with its error name"
grep -q "$(printf 'rsmi\trsmi_init(0)\t0$')" "$T" && ok || bad "no rocm-smi call traced"
# HSA's answers decoded, on a fake with a CPU and a GPU agent: the
# attribute by name, the device type as a number, the BDF id as bus:dev.fn
TH="$W/trace-hsa.txt"
FAKE_HSA_AGENTS=cpu,0000:03:00.0=gfx90a fake --level standard --trace-gpu "$TH" >"$W/rh.out" 2>&1
grep -q "$(printf 'hsa_agent_get_info(p[0-9]*, HSA_AMD_AGENT_INFO_BDFID, &03:00.0)\t0$')" "$TH" &&
    ok || bad "hsa_agent_get_info's BDF id is not decoded"
grep -q "$(printf 'hsa_agent_get_info(p[0-9]*, HSA_AGENT_INFO_DEVICE, &0)\t0$')" "$TH" && ok ||
    bad "hsa_agent_get_info's device type (the CPU agent's 0) is not decoded"
grep -q 'Fake AMD GPU\|0000:03:00' "$T" && bad "an output buffer (name, PCI id) is in the trace" || ok
l=$(leaks "$T")
[ -z "$l" ] && ok || bad "the trace names '$l'"

# ---- 2. the trace changes no verdict ---------------------------------------
fake --level standard --json "$W/plain.json" >/dev/null 2>&1
python3 - "$W/r.json" "$W/plain.json" <<'PY' && ok || bad "verdicts differ with --trace-gpu"
import json, sys
a, b = ({c["id"]: c["status"] for c in json.load(open(p))["checks"]} for p in sys.argv[1:3])
d = {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
print(d) if d else None
sys.exit(1 if d else 0)
PY

# ---- 3. an unwritable trace path is a usage error --------------------------
fake --level standard --trace-gpu "$W/no/such/dir/t.txt" >/dev/null 2>"$W/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "cannot write the GPU trace '.*no/such/dir/t.txt'" "$W/bad.err" && ok ||
    bad "unwritable trace: exit $rc, $(head -1 "$W/bad.err")"

# ---- 4. collect --level standard: the trace is a member, the snapshot replays
fake collect --level standard -o "$W/snap.tar.gz" >"$W/collect.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "collect --level standard: exit $rc ($(tail -2 "$W/collect.out"))"
tar xzf "$W/snap.tar.gz" -O .snapshot/gpu-trace.txt >"$W/member.txt" 2>"$W/tar.err" && ok ||
    bad "no .snapshot/gpu-trace.txt in the snapshot: $(cat "$W/tar.err")"
why=$(ordered "$W/member.txt") && ok || bad "snapshot trace: $why"
l=$(leaks "$W/member.txt")
[ -z "$l" ] && ok || bad "the snapshot's trace names '$l'"
"$RVD" --sysroot "$W/snap.tar.gz" --json "$W/replay.json" >/dev/null 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "replay of the traced snapshot: exit $rc"
# README's "new AMD card" section runs this and names this member
for w in 'collect --level standard -o snapshot.tar.gz' '.snapshot/gpu-trace.txt' \
    '--level standard --json report.json --markdown issue.md'; do
    grep -qF -- "$w" README.md && ok || bad "README's new-card section lacks '$w'"
done
fake collect -o "$W/quick.tar.gz" >/dev/null 2>&1
tar tzf "$W/quick.tar.gz" | grep -q gpu-trace && bad "collect at the quick level wrote a GPU trace" || ok

# ---- 5. Debian's real hiprtc: the compile calls and their options ---------
if has_lib 'libamdhip64\.so'; then
    ROCM_VLA_DOCTOR_CACHE="$W/cache" ROCM_VLA_DOCTOR_TARGETS=gfx90a "$RVD" --level standard \
        --only gpu.kernels_compile --trace-gpu "$W/rtc.txt" --json "$W/rtc.json" >/dev/null 2>&1
    grep -q "$(printf 'hiprtc\thiprtcCompileProgram(p[0-9]*, 3, {"--offload-arch=gfx90a", "-O3", "-std=c++17"})\t0$')" \
        "$W/rtc.txt" && ok || bad "no traced hiprtcCompileProgram for gfx90a in $W/rtc.txt"
    why=$(ordered "$W/rtc.txt") && ok || bad "hiprtc trace: $why"
else
    echo "SKIP gpu_trace real hiprtc: no libamdhip64 installed"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
