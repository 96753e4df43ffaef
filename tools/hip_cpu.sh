#!/bin/sh
# hip_cpu.sh [DIR] - fetch ROCm's HIP-CPU headers (github.com/ROCm/HIP-CPU,
# MIT licence; not packaged in Debian) into DIR (default build/hip-cpu), at
# the commit tests/hip_cpu.sh was written against. A developer runs this
# once on a machine with network access; .ci/run runs it too, so that the
# layer runs in CI (a skip there fails CI). Never commit DIR.
#
# HIP-CPU is headers only: tests/hip_cpu.sh compiles kernels/*.hip with g++
# -std=c++17 against DIR/include; libstdc++ runs its parallel algorithms
# serially without TBB (libtbb-dev makes them parallel; not needed).
set -eu
DIR=${1:-build/hip-cpu}
COMMIT=e112c935057434897bb12d9ab3910380a8bd5f58
if [ -f "$DIR/include/hip/hip_runtime.h" ]; then
    echo "hip_cpu.sh: $DIR already holds HIP-CPU ($(git -C "$DIR" rev-parse HEAD 2>/dev/null || echo "not a git tree"))"
    exit 0
fi
git clone --quiet https://github.com/ROCm/HIP-CPU.git "$DIR"
git -C "$DIR" checkout --quiet "$COMMIT"
echo "hip_cpu.sh: HIP-CPU $COMMIT in $DIR"
