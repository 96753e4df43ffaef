#!/bin/sh
# hip_cpu.sh - kernels/*.hip compiled ahead of time with g++ against ROCm's
# HIP-CPU headers and run on the CPU (tests/hip_cpu/run.cpp): the HIP
# branches of the kernels (RVD_HIP in kernels/prelude.hip: _Float16
# conversion, warpSize-wide xor shuffles, shared-memory reductions) execute
# on a 64-lane wavefront against the CPU references src/gpu/fp_ref.c and
# src/vla/ops_cpu.c. HIP-CPU is fetched by tools/hip_cpu.sh into
# HIP_CPU_DIR (default build/hip-cpu); without it the layer skips.
# What it cannot show: AMDGPU code generation, registers, scratch or
# occupancy (the code is x86), LDS banking, real wave64 timing or lane
# divergence on hardware, hiprtc (the kernels are compiled ahead of time).
# Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
BUILD=${BUILD:-build}
W="$OUT/hip_cpu"
rm -rf "$W" && mkdir -p "$W"
NAME=hip_cpu
. tests/lib.sh
HC=${HIP_CPU_DIR:-$BUILD/hip-cpu}
CXX=${CXX:-g++}

if [ ! -f "$HC/include/hip/hip_runtime.h" ]; then
    echo "SKIP hip_cpu: no HIP-CPU headers in $HC (run tools/hip_cpu.sh, which needs network access)"
    echo "0 passed, 0 failed"
    exit 0
fi
if ! command -v "$CXX" >/dev/null 2>&1; then
    echo "SKIP hip_cpu: no C++17 compiler ($CXX)"
    echo "0 passed, 0 failed"
    exit 0
fi
OBJS="$BUILD/src/gpu/fp_ref.o $BUILD/src/vla/ops_cpu.o $BUILD/src/core/util.o $BUILD/src/core/escape.o $BUILD/src/core/strset.o"
for o in $OBJS; do
    [ -f "$o" ] || { bad "$o is not built (make $BUILD/rocm-vla-doctor)"; echo "$pass passed, $fail failed"; exit 1; }
done
# shellcheck disable=SC2086
if "$CXX" -std=c++17 -O1 -I"$HC/include" -o "$W/run" tests/hip_cpu/run.cpp $OBJS -pthread -lm \
    >"$W/cc.log" 2>&1; then
    ok
else
    bad "kernels/*.hip do not build against HIP-CPU: $(grep -m3 'error' "$W/cc.log")"
    echo "$pass passed, $fail failed"
    exit 1
fi
"$W/run" >"$W/run.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "run.cpp exit $rc"
while IFS= read -r l; do
    case $l in
    PASS*) ok ;;
    FAIL*) bad "$l" ;;
    *) bad "unexpected output: $l" ;;
    esac
done <"$W/run.log"
n=$(grep -c '^PASS' "$W/run.log")
[ "$n" -ge 9 ] && ok || bad "only $n cases passed, want 9"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
