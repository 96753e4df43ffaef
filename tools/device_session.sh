#!/bin/sh
# device_session.sh PHASE - the GPU figures of docs/PERFORMANCE.md in the
# fewest device calls (the device tool's 2-GPU H200 machine; each call is at
# most 10 minutes, so a 10-minute soak spans two calls):
#   a: the soak (pi0 bf16, 10 min) started on GPU 1 in its own session,
#      monitor of both GPUs for 60 s, and on GPU 0 meanwhile: make test-gpu,
#      the dashboard recorded headless with the pi0 workload, make bench
#      (doctor vs the fair PyTorch twin), bench --sweep, lingbot-v2
#   b: waits for the soak and collects it, then with both GPUs free:
#      --gpu all (with --prom/--html/--markdown) and tests/gpu_multi.sh
#   c: one H200 (the `nvidia-h200` kind), no soak, in one call: make
#      test-gpu (with bench --kernel-test), --profile of pi0 bf16 (and with
#      ROCM_VLA_DOCTOR_NO_FLASH=1), make bench
#      (doctor vs the fair twin), bench --sweep (quick grid: steps, chunk,
#      image 224/256/320, dtype, batch 1/4/8)
#      (JSON, then its HTML page through `report`), lingbot-v2, a dashboard
#      frame with the pi0 workload and monitor samples (processes on the GPU);
#      (not with SKIP_TUI=1); everything lands in $OUT/results.tgz (the
#      device tool returns few files)
#   d: a short re-check (test-gpu, make bench, monitor and a dashboard frame
#      beside a running bench), results in $OUT/results.tgz
#   e: one change's first look: bench --kernel-test, pi0 bf16 --profile with
#      and without the fused attention, make bench, then test-gpu (not with
#      SKIP_TESTS=1); results in $OUT/results.tgz
# Environment: RVD (the binary), OUT (results), CARRY (dir of the carried
# .so files, put on LD_LIBRARY_PATH).
set -u
PHASE=${1:?usage: device_session.sh a|b|c|d|e}
RVD=${RVD:?} OUT=${OUT:?}
S=/tmp/rvd-soak
mkdir -p "$OUT"
# pi0 bf16 --profile into $1, with the fused attention and without it
profiles() {
    timeout 60 "$RVD" bench --preset pi0 --dtype bf16 --runs 20 --rows 0 --profile >"$1/profile.txt" 2>&1
    echo "profile: exit $?"
    ROCM_VLA_DOCTOR_NO_FLASH=1 timeout 60 "$RVD" bench --preset pi0 --dtype bf16 --runs 20 \
        --rows 0 --profile >"$1/profile-noflash.txt" 2>&1
    echo "profile without the fused attention (the BLAS path): exit $?"
}
if [ "$PHASE" = e ]; then
    # a quick look at one change: the kernel tests, pi0 bf16 profiled with and
    # without the fused attention, make bench; test-gpu last
    t0=$(date +%s)
    R=/tmp/rvd-results && rm -rf "$R" && mkdir -p "$R"
    timeout 120 "$RVD" bench --kernel-test >"$R/ktest.txt" 2>&1
    echo "kernel-test: exit $? ($(tail -1 "$R/ktest.txt"))"
    profiles "$R"
    RUNS=30 RVD="$RVD" WORK=/tmp/rvd-bench timeout 240 sh tools/vla_bench.sh >"$R/bench.txt" 2>&1
    echo "make bench: exit $?"
    cp docs/PERFORMANCE.md "$R/PERFORMANCE.md"
    [ -n "${SKIP_TESTS:-}" ] || {
    timeout 240 env OUT="$R" RVD="$RVD" BUILD=/tmp/b sh tests/gpu_device.sh >"$R/test-gpu.txt" 2>&1
    echo "test-gpu: $(tail -1 "$R/test-gpu.txt")"
    }
    tar -C "$R" -czf "$OUT/results.tgz" .
    echo "phase e: $(($(date +%s) - t0)) s"
elif [ "$PHASE" = d ]; then
    t0=$(date +%s)
    R=/tmp/rvd-results && rm -rf "$R" && mkdir -p "$R"
    timeout 240 env OUT="$R" RVD="$RVD" BUILD=/tmp/b sh tests/gpu_device.sh >"$R/test-gpu.txt" 2>&1
    echo "test-gpu: $(tail -1 "$R/test-gpu.txt")"
    RUNS=30 RVD="$RVD" WORK=/tmp/rvd-bench timeout 240 sh tools/vla_bench.sh >"$R/bench.txt" 2>&1
    echo "make bench: exit $?"
    cp docs/PERFORMANCE.md "$R/PERFORMANCE.md"
    "$RVD" bench --preset pi0 --dtype bf16 --runs 400 --rows 0 >/dev/null 2>&1 &
    sleep 8
    "$RVD" monitor --interval 500 --count 3 -o "$R/monitor.jsonl" >"$R/monitor.err" 2>&1
    echo "monitor: exit $?"
    LC_ALL=C.UTF-8 timeout 20 "$RVD" dashboard --interval 500 --frames 8 --size 40x120 \
        >"$R/dashboard-frame.txt" 2>"$R/dashboard.err"
    echo "dashboard: exit $?"
    wait
    tar -C "$R" -czf "$OUT/results.tgz" .
    echo "phase d: $(($(date +%s) - t0)) s"
elif [ "$PHASE" = c ]; then
    t0=$(date +%s)
    R=/tmp/rvd-results && rm -rf "$R" && mkdir -p "$R"
    nvidia-smi -L >"$R/gpus.txt" 2>&1
    timeout 240 env OUT="$R" RVD="$RVD" BUILD=/tmp/b sh tests/gpu_device.sh >"$R/test-gpu.txt" 2>&1
    echo "test-gpu: $(tail -1 "$R/test-gpu.txt")"
    profiles "$R"
    RUNS=30 RVD="$RVD" WORK=/tmp/rvd-bench timeout 240 sh tools/vla_bench.sh >"$R/bench.txt" 2>&1
    echo "make bench: exit $?"
    cp docs/PERFORMANCE.md "$R/PERFORMANCE.md"
    timeout 150 "$RVD" bench --sweep --preset pi0 \
        --json "$R/sweep.json" >"$R/sweep.txt" 2>&1
    echo "sweep: exit $?"
    "$RVD" report --html "$R/sweep.html" --markdown "$R/sweep.md" "$R/sweep.json" >"$R/sweep-report.txt" 2>&1
    echo "sweep report: exit $?"
    timeout 40 "$RVD" bench --preset lingbot-v2 --dtype bf16 --runs 10 --rows 0 >"$R/lingbot.txt" 2>&1
    echo "lingbot-v2: exit $?"
    [ -n "${SKIP_TUI:-}" ] || {
    LC_ALL=C.UTF-8 timeout 40 "$RVD" dashboard --workload pi0 --dtype bf16 --workload-interval 2 \
        --interval 500 --history 60 --frames 30 --size 40x120 --record "$R/dashboard.cast" \
        >"$R/dashboard-frame.txt" 2>"$R/dashboard.err"
    echo "dashboard: exit $?"
    "$RVD" bench --preset pi0 --dtype bf16 --runs 400 --rows 0 >/dev/null 2>&1 &
    sleep 8
    "$RVD" monitor --interval 500 --count 6 -o "$R/monitor.jsonl" >"$R/monitor.err" 2>&1
    echo "monitor: exit $?"
    wait
    }
    tar -C "$R" -czf "$OUT/results.tgz" .
    echo "phase c: $(($(date +%s) - t0)) s"
elif [ "$PHASE" = a ]; then
    t0=$(date +%s)
    nvidia-smi -L >"$OUT/gpus.txt" 2>&1
    # the soak on GPU 1 first, in a session of its own (it outlives this call)
    rm -rf "$S" && mkdir -p "$S"
    CUDA_VISIBLE_DEVICES=1 setsid sh -c "'$RVD' soak --duration 10m --preset pi0 --dtype bf16 \
        --json $S/soak.json >$S/soak.txt 2>&1; echo \$? >$S/rc" </dev/null >/dev/null 2>&1 &
    # NVML sees both GPUs whatever CUDA_VISIBLE_DEVICES says
    "$RVD" monitor --interval 1000 --count 60 -o "$OUT/monitor.jsonl" >"$OUT/monitor.err" 2>&1 &
    mon=$!
    export CUDA_VISIBLE_DEVICES=0
    timeout 240 env OUT="$OUT" RVD="$RVD" BUILD=/tmp/b sh tests/gpu_device.sh >"$OUT/test-gpu.txt" 2>&1
    tail -1 "$OUT/test-gpu.txt"
    wait $mon
    echo "monitor: exit $?, $(wc -l <"$OUT/monitor.jsonl") samples"
    LC_ALL=C.UTF-8 timeout 60 "$RVD" dashboard --workload pi0 --dtype bf16 --workload-interval 2 \
        --interval 500 --history 60 --frames 50 --size 40x120 --record "$OUT/dashboard.cast" \
        >"$OUT/dashboard-frame.txt" 2>"$OUT/dashboard.err"
    echo "dashboard: exit $?"
    RUNS=30 RVD="$RVD" WORK=/tmp/rvd-bench timeout 200 sh tools/vla_bench.sh >"$OUT/bench.txt" 2>&1
    echo "make bench: exit $?"
    cp docs/PERFORMANCE.md "$OUT/PERFORMANCE.md"
    timeout 90 "$RVD" bench --sweep --preset pi0 --json "$OUT/sweep.json" >"$OUT/sweep.txt" 2>&1
    echo "sweep: exit $?"
    timeout 40 "$RVD" bench --preset lingbot-v2 --dtype bf16 --runs 10 --rows 0 >"$OUT/lingbot.txt" 2>&1
    echo "lingbot-v2: exit $?"
    echo "phase a: $(($(date +%s) - t0)) s"
else
    while [ ! -f "$S/rc" ]; do sleep 5; done
    cp "$S"/* "$OUT/"
    echo "soak: exit $(cat "$S/rc")"
    # both GPUs free again: every GPU, peer to peer
    "$RVD" --level standard --gpu all --json "$OUT/all.json" --prom "$OUT/all.prom" \
        --html "$OUT/all.html" --markdown "$OUT/all.md" >"$OUT/all.txt" 2>&1
    echo "gpu all: exit $?"
    OUT="$OUT" RVD="$RVD" BUILD=/tmp/b timeout 200 sh tests/gpu_multi.sh >"$OUT/gpu-multi.txt" 2>&1
    tail -1 "$OUT/gpu-multi.txt"
fi
