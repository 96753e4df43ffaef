#!/bin/sh
# gpu_ci.sh - the GPU layer on a machine without a GPU (CI): the real ROCm 5.2
# libraries of Debian (libamdhip64-5, libhsa-runtime64-1) load, gpu.runtime
# reports the missing device, every GPU probe skips with its reason; every
# kernel in kernels/ compiles through the real hiprtc for gfx90a and gfx1030
# in the isolated child, a warm run compiles nothing, and gfx1100 (unknown to
# ROCm 5.2's compiler, which aborts) becomes an `error` naming the old ROCm;
# a fake libamdhip64 that segfaults in hipInit is reported and the run
# completes. Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}/gpu_ci
rm -rf "$OUT" && mkdir -p "$OUT"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL gpu_ci: $*"; }

# q FILE PYTHON-EXPR: evaluate against the JSON report (d; c = checks by id)
q() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["id"]: x for x in d["checks"]}
f = d["facts"]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
expect() { # expect NAME FILE EXPR
    if q "$2" "$3"; then ok; else bad "$1 ($3)"; fi
}

export ROCM_VLA_DOCTOR_CACHE="$OUT/cache"
GPU_CHECKS="gpu.kernels_compile sync.latency pcie.bandwidth hmm.managed mem.release"

if ! ldconfig -p 2>/dev/null | grep -q 'libamdhip64\.so'; then
    echo "SKIP gpu_ci: libamdhip64 is not installed (apt-get install libamdhip64-5)"
    echo "0 passed, 0 failed"
    exit 0
fi

# 1. no GPU here: a clear gpu.runtime finding and a skip with a reason for every GPU probe
"$RVD" --level standard --json "$OUT/nogpu.json" >"$OUT/nogpu.txt" 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "standard run exit code $rc (want 0 or 1)"
if [ ! -e /dev/kfd ]; then
    expect "HIP loads" "$OUT/nogpu.json" 'f["runtime.hip.loaded"] is True and f["runtime.hip.version"].startswith("5.2")'
    expect "0 devices" "$OUT/nogpu.json" 'f["runtime.device_count"] == 0 and f["runtime.kfd_present"] is False'
    expect "gpu.runtime finding" "$OUT/nogpu.json" 'c["gpu.runtime"]["status"] == "warn" and "no GPU" in c["gpu.runtime"]["summary"] and "5.2" in c["gpu.runtime"]["summary"]'
    for id in $GPU_CHECKS; do
        expect "$id skips with reason" "$OUT/nogpu.json" "c['$id']['status'] == 'skip' and 'sees no GPU' in c['$id']['summary']"
    done
fi
expect "GPU probes isolated" "$OUT/nogpu.json" 'all(f.get("probe.%s.wall_s" % p) is not None for p in ("gpu_runtime", "kernels", "sync", "bandwidth", "hmm", "mem_release"))'

# 2. every kernel through the real hiprtc for gfx90a and gfx1030, cold then warm
ROCM_VLA_DOCTOR_TARGETS=gfx90a,gfx1030 "$RVD" --level standard --only gpu.kernels_compile \
    --json "$OUT/cold.json" >/dev/null 2>&1
expect "kernels compile for gfx90a,gfx1030" "$OUT/cold.json" 'c["gpu.kernels_compile"]["status"] == "pass" and f["kernels.compiled"] >= 2 * 3 and f["kernels.failed"] == []'
nk=$(ls kernels/*.hip | grep -vc prelude)
expect "one compile per kernel and target" "$OUT/cold.json" "f['kernels.compiled'] == 2 * $nk"
ROCM_VLA_DOCTOR_TARGETS=gfx90a,gfx1030 "$RVD" --level standard --only gpu.kernels_compile \
    --json "$OUT/warm.json" >/dev/null 2>&1
expect "warm run compiles nothing" "$OUT/warm.json" "f['kernels.compiled'] == 0 and f['kernels.cached'] == 2 * $nk"
ncache=$(ls "$ROCM_VLA_DOCTOR_CACHE" | grep -c '\.bin$')
[ "$ncache" -eq $((2 * nk)) ] && ok || bad "cache holds $ncache code objects, want $((2 * nk))"

# 3. gfx1100: ROCm 5.2's hiprtc aborts; an error naming the old ROCm, the run completes
ROCM_VLA_DOCTOR_TARGETS=gfx1100 "$RVD" --level standard --json "$OUT/gfx1100.json" >/dev/null 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "gfx1100 run exit code $rc"
expect "gfx1100 is an error naming ROCm 5.2" "$OUT/gfx1100.json" 'c["gpu.kernels_compile"]["status"] in ("error", "fail") and "ROCm 5.2" in c["gpu.kernels_compile"]["summary"] and "gfx1100" in c["gpu.kernels_compile"]["summary"]'
expect "other checks still ran" "$OUT/gfx1100.json" 'c["gpu.runtime"]["status"] in ("warn", "pass") and "sync.latency" in c'

# 4. a vendor library that segfaults in hipInit
cat >"$OUT/fakehip.c" <<'C'
#include <signal.h>
#include <stdio.h>
int hipInit(unsigned f) { (void)f; fprintf(stderr, "fake libamdhip64: crashing in hipInit\n"); raise(SIGSEGV); return 0; }
int hipRuntimeGetVersion(int *v) { *v = 60000000; return 0; }
#define STUB(n) int n(void); int n(void) { return 0; }
STUB(hipDriverGetVersion) STUB(hipGetErrorName) STUB(hipGetErrorString) STUB(hipGetDeviceCount)
STUB(hipSetDevice) STUB(hipDeviceGetName) STUB(hipDeviceGetPCIBusId) STUB(hipDeviceTotalMem)
STUB(hipDeviceGetAttribute) STUB(hipMemGetInfo) STUB(hipMalloc) STUB(hipMallocManaged)
STUB(hipHostMalloc) STUB(hipFree) STUB(hipHostFree) STUB(hipMemcpy) STUB(hipMemcpyAsync)
STUB(hipMemset) STUB(hipStreamCreateWithFlags) STUB(hipStreamDestroy) STUB(hipStreamSynchronize)
STUB(hipDeviceSynchronize) STUB(hipEventCreate) STUB(hipEventDestroy) STUB(hipEventRecord)
STUB(hipEventSynchronize) STUB(hipEventElapsedTime) STUB(hipModuleLoadData) STUB(hipModuleUnload)
STUB(hipModuleGetFunction) STUB(hipModuleLaunchKernel)
C
if ${CC:-cc} -shared -fPIC -o "$OUT/libamdhip64.so" "$OUT/fakehip.c" 2>"$OUT/fakehip.err"; then
    ROCM_VLA_DOCTOR_HIP_LIB="$PWD/$OUT/libamdhip64.so" "$RVD" --level standard \
        --json "$OUT/segv.json" >/dev/null 2>&1
    rc=$?
    [ $rc -le 1 ] && ok || bad "segfaulting HIP: exit code $rc (want 0 or 1: the run completes)"
    expect "segfault reported" "$OUT/segv.json" 'c["gpu.runtime"]["status"] == "error" and "SIGSEGV" in c["gpu.runtime"]["summary"] and "crashing in hipInit" in c["gpu.runtime"]["summary"]'
    expect "facts before the crash kept" "$OUT/segv.json" 'f.get("runtime.kfd_present") is not None'
    expect "host checks still ran" "$OUT/segv.json" 'c["rocm.install"]["status"] != "error" and "mem.release" in c'
else
    bad "cannot build the fake libamdhip64: $(cat "$OUT/fakehip.err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
