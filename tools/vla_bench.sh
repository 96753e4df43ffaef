#!/bin/sh
# vla_bench.sh - `make bench`: on a machine with a CUDA GPU and PyTorch (the
# device machine; never CI), the doctor's VLA pass against PyTorch eager and
# one CUDA graph on the same weights, written into docs/PERFORMANCE.md
# (section "VLA workload (issue 4)") by tools/vla_perf_md.py.
# Environment: RVD (the binary), PRESET (pi0), DTYPE (bf16), RUNS (30),
# WORK (scratch dir with room for the fp32 weights: 13 GB for pi0).
set -eu
RVD=${RVD:-build/rocm-vla-doctor}
PRESET=${PRESET:-pi0}
DTYPE=${DTYPE:-bf16}
RUNS=${RUNS:-30}
WORK=${WORK:-/tmp/rvd-bench}
mkdir -p "$WORK"
W="$WORK/$PRESET.safetensors"
say() { echo "+ $*" >&2; }
# 1. fp32 on the GPU, saving the synthetic weights (the twin loads them)
say "$RVD" bench --preset "$PRESET" --dtype fp32 --runs 5 --save-weights "$W" --json "$WORK/doctor-fp32.json"
"$RVD" bench --preset "$PRESET" --dtype fp32 --runs 5 --save-weights "$W" --json "$WORK/doctor-fp32.json" --rows 0 >"$WORK/doctor-fp32.txt"
# 2. the reduced-precision pass: cold with an empty kernel cache, then warm-cache cold + timed runs
export ROCM_VLA_DOCTOR_CACHE="$WORK/kcache"
rm -rf "$ROCM_VLA_DOCTOR_CACHE"
say "$RVD" bench --preset "$PRESET" --dtype "$DTYPE" --runs 3 --json "$WORK/doctor-cold.json"
"$RVD" bench --preset "$PRESET" --dtype "$DTYPE" --runs 3 --json "$WORK/doctor-cold.json" --rows 0 >"$WORK/doctor-cold.txt"
say "$RVD" bench --preset "$PRESET" --dtype "$DTYPE" --runs "$RUNS" --json "$WORK/doctor-$DTYPE.json"
"$RVD" bench --preset "$PRESET" --dtype "$DTYPE" --runs "$RUNS" --json "$WORK/doctor-$DTYPE.json" --rows 0 >"$WORK/doctor-$DTYPE.txt"
# 3. PyTorch on the same weights: cross-check and eager/graph timings
say python3 tools/torch_twin.py --preset "models/$PRESET.yaml" --weights "$W" --dtype "$DTYPE" --runs "$RUNS"
python3 tools/torch_twin.py --preset "models/$PRESET.yaml" --weights "$W" --dtype "$DTYPE" \
    --doctor "fp32=$WORK/doctor-fp32.json" --doctor "$DTYPE=$WORK/doctor-$DTYPE.json" \
    --runs "$RUNS" --json "$WORK/twin.json" >/dev/null
# 4. the table
python3 tools/vla_perf_md.py --doctor "$WORK/doctor-$DTYPE.json" --cold "$WORK/doctor-cold.json" \
    --fp32 "$WORK/doctor-fp32.json" --twin "$WORK/twin.json" --out docs/PERFORMANCE.md \
    --command "make bench (PRESET=$PRESET DTYPE=$DTYPE RUNS=$RUNS)"
rm -f "$W"
