#!/bin/sh
# torch_probe.sh - the torch probe (probes/probe_torch.c) on fake
# interpreters standing in for python.executable (tests/fake/torch/): a CUDA
# answer and a ROCm answer (torch.version.hip, AOTriton, rocBLAS without
# hipBLASLt), a torch with no GPU, one that crashes on import, one whose
# answer is not JSON, one that hangs in device init (the watchdog ends it
# within its bound); then the real probes/torch_probe.py where torch is
# installed here (CPU torch: the no-GPU answer). No GPU needed.
# Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/torch_probe
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=torch_probe
. tests/lib.sh
F=tests/fake/torch
IDS=torch.latency,torch.gap,torch.numerics,torch.matches_doctor

run() { # NAME FAKE [ARGS]: the torch checks with FAKE as the interpreter
    n=$1 fake=$2
    shift 2
    "$RVD" check --level full --only "$IDS" --python "$fake" "$@" --json "$OUT/$n.json" \
        >"$OUT/$n.txt" 2>&1
    echo $? >"$OUT/$n.rc"
}

run cuda "$F/cuda.sh"
expect "cuda: versions as torch sees them" "$OUT/cuda.json" 'f["torch.version"] == "2.11.0+cu130" and f["torch.cuda"] == "13.0" and f["torch.hip"] == "" and f["torch.driver"] == "13000"'
expect "cuda: flash attention, cuBLASLt from the kernel names" "$OUT/cuda.json" 'f["torch.sdpa_backend"] == "flash" and f["torch.blas"] == "cublaslt" and f["torch.cpu_copies"] is False'
expect "cuda: device by PCI address; not an AMD GPU of the doctor's list" "$OUT/cuda.json" 'f["torch.device.pci"] == "0000:19:00.0" and f["torch.device.gpu"] == ""'
expect "cuda: best is compiled" "$OUT/cuda.json" 'f["torch.latency.best_ms"] == 21 and f["torch.latency.best_mode"] == "compiled" and f["torch.latency.graph.step_ms"] == 1'
expect "cuda: bf16 vs fp32 numerics" "$OUT/cuda.json" 'abs(f["torch.numerics.max_error_rel"] - 0.033 / 2.1) < 1e-9'
expect "cuda: latency within budget passes" "$OUT/cuda.json" 'c["torch.latency"]["status"] == "pass" and c["torch.numerics"]["status"] == "pass"'
expect "cuda: no shared actions: unknown with the reason, the check skips" "$OUT/cuda.json" 'f["torch.shared.cosine"] is None and c["torch.matches_doctor"]["status"] == "skip"'

run rocm "$F/rocm.sh"
expect "rocm: HIP version, AOTriton attention, rocBLAS (no hipBLASLt), host copies" "$OUT/rocm.json" 'f["torch.hip"] == "6.4.43483" and f["torch.sdpa_backend"] == "aotriton" and f["torch.blas"] == "rocblas" and f["torch.cpu_copies"] is True and f["torch.tunableop"] is False'
expect "rocm: compile failure and graph failure recorded; best is eager" "$OUT/rocm.json" 'f["torch.compile.ok"] is False and "gfx942" in f["torch.compile.error"] and "capturing" in f["torch.graph_error"] and f["torch.latency.best_mode"] == "eager" and f["torch.latency.graph.total_ms"] is None'
expect "rocm: over the 80 ms budget fails" "$OUT/rocm.json" 'c["torch.latency"]["status"] == "fail" and "190" in c["torch.latency"]["summary"]'

run nogpu "$F/nogpu.sh"
expect "no GPU: clear skip with the reason" "$OUT/nogpu.json" 'f["torch.available"] is False and "is_available() is False" in f["torch.why"] and all(c[i]["status"] == "skip" for i in c if i.startswith("torch.")) and "CPU-only" in c["torch.latency"]["summary"]'

run crash "$F/crash.sh"
expect "crash on import: a failure naming the error" "$OUT/crash.json" 'c["torch.latency"]["status"] == "fail" and "exit status 1" in f["torch.error"] and "libamdhip64" in f["torch.error"]'

run garbage "$F/garbage.sh"
expect "not JSON: a failure saying so" "$OUT/garbage.json" 'c["torch.latency"]["status"] == "fail" and "not a JSON object" in f["torch.error"]'

# a binary in a build tree writes its built-in torch_probe.py to a private
# temporary directory, and removes it afterwards
run argv "$F/argv.sh"
script=$(fact torch.why "$OUT/argv.json" | sed -n 's/^script \(.*\) yes$/\1/p')
case "$script" in
/tmp/rvd-torch-*/torch_probe.py) ok ;;
*) bad "built-in script not written to a private directory: $(fact torch.why "$OUT/argv.json")" ;;
esac
[ -n "$script" ] && [ ! -e "$(dirname "$script")" ] && ok || bad "the temporary directory $script was left behind"

# the answer is untrusted data (issue 30): NaN output is null plus
# "nonfinite" and fails; counts out of range are unknown with the reason
run nan "$F/nan.sh"
expect "nan: not finite fails, never skips" "$OUT/nan.json" 'f["torch.numerics.finite"] is False and f["torch.numerics.cosine"] is None and c["torch.numerics"]["status"] == "fail" and "not finite" in c["torch.numerics"]["summary"]'
expect "nan: 1e300 devices and -1e300 bytes are unknown, not INT64_MIN" "$OUT/nan.json" 'f["torch.gpu_count"] is None and "not a whole number in range" in d["facts_meta"]["torch.gpu_count"]["reason"] and f["torch.peak_memory_bytes"] is None'
expect "cuda: finite numerics" "$OUT/cuda.json" 'f["torch.numerics.finite"] is True'
# a 3 MB stderr line: the reason keeps about 500 bytes of it
run flood "$F/flood.sh"
expect "flood: the stderr line is cut" "$OUT/flood.json" 'len(f["torch.error"]) < 1000 and f["torch.error"].endswith("x...")'
[ "$(wc -c <"$OUT/flood.json")" -lt 200000 ] && ok || bad "flood: the report is $(wc -c <"$OUT/flood.json") bytes"
# an answer over the 16 MiB cap is refused whole, not spliced
printf '#!/bin/sh
head -c 17000000 /dev/zero | tr "\\0" " "\ncat %s/cuda.sh | sed -n "/^{/,/^J/p" | sed "\$d"\n' "$PWD/$F" >"$OUT/big.sh"
chmod +x "$OUT/big.sh"
run big "$OUT/big.sh"
expect "big: refused whole" "$OUT/big.json" '"refused whole" in f["torch.error"] and c["torch.latency"]["status"] == "fail"'
# temporary folders honour TMPDIR
mkdir -p "$OUT/tmp"
T=$(cd "$OUT/tmp" && pwd)
(TMPDIR=$T && export TMPDIR && run tmpdir "$F/argv.sh")
case "$(fact torch.why "$OUT/tmpdir.json")" in
"script $T/rvd-torch-"*) ok ;;
*) bad "TMPDIR not honoured: $(fact torch.why "$OUT/tmpdir.json")" ;;
esac

# the watchdog: a checks file whose torch budget is 3 s
sed '/probe: torch/{n;s/timeout: 600/timeout: 3/}' checks.yaml >"$OUT/checks.yaml"
grep -q 'timeout: 3$' "$OUT/checks.yaml" && ok || bad "could not make the 3 s checks file"
t0=$(date +%s)
run hang "$F/hang.sh" --checks "$OUT/checks.yaml"
t1=$(date +%s)
[ $((t1 - t0)) -lt 30 ] && ok || bad "hang: the doctor took $((t1 - t0)) s with a 3 s watchdog"
expect "hang: a timeout finding within the bound" "$OUT/hang.json" 'f["torch.timed_out"] is True and "within 3 s" in f["torch.error"] and 3 <= f["torch.wall_s"] < 20 and c["torch.latency"]["status"] == "fail"'

# children are the doctor's to end (issue 30): an interpreter that exits
# while a grandchild holds stdout open is answered at its exit (the 3 s
# watchdog does not fire), and a SIGTERM ends a descendant that left the
# group with setsid
run grandkid "$F/grandkid.sh" --checks "$OUT/checks.yaml"
expect "grandkid: the answer at the exit, no watchdog" "$OUT/grandkid.json" 'f["torch.timed_out"] is False and f["torch.version"] == "2.11.0+cu130"'
P=$(cd "$OUT" && pwd)/setsid.pid
rm -f "$P" "$P.parent"
RVD_TEST_PIDFILE=$P "$RVD" check --level full --only "$IDS" --python "$F/setsid.sh" \
    >"$OUT/setsid.txt" 2>&1 &
doc=$!
i=0
while [ ! -s "$P" ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill -TERM $doc
wait $doc 2>/dev/null # (the shell says "Terminated": the doctor died of the signal)
gk=$(cat "$P" 2>/dev/null)
par=$(cat "$P.parent" 2>/dev/null)
if [ -z "$gk" ]; then
    bad "setsid: the descendant never started"
else
    for p in "$gk" "$par"; do
        if kill -0 "$p" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
            bad "setsid: process $p outlived the doctor's SIGTERM"
            kill -KILL "$p"
        else
            ok
        fi
    done
fi
grep -q "interrupted by SIGTERM" "$OUT/setsid.txt" && ok || bad "setsid: $(tail -2 "$OUT/setsid.txt")"

# the real file: with torch here (CPU build: the no-GPU answer), else a skip
if python3 -c 'import torch' 2>/dev/null; then
    run real "$(command -v python3)"
    expect "real torch_probe.py: an answer" "$OUT/real.json" 'isinstance(f["torch.version"], str) and f["torch.error"] == ""'
else
    echo "note torch_probe: skipped the real torch_probe.py run: torch is not installed for python3 here"
fi
python3 -m py_compile probes/torch_probe.py && ok || bad "probes/torch_probe.py does not compile"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
