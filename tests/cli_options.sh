#!/bin/sh
# cli_options.sh - every (command, option) pair of `__complete-table` does
# something: the table below says, per pair, how it shows on the fixtures
# (no GPU, no network):
#   used      the output (stdout, stderr and the exit status) of WITH differs
#             from WITHOUT's
#   reason    nothing differs here; WITHOUT is the reason, WITH must print REGEX
#   rejected  a combination that makes the option moot: WITH exits 2 and
#             says REGEX (WITHOUT is unused)
# A pair of the completion table without a used/reason row fails, and so does
# a row naming a pair the table lacks: an option added later cannot slip
# past the audit (docs/TESTING.md).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/cli_options"
rm -rf "$D"
mkdir -p "$D"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL cli_options $*"
}

F=tests/fixtures/rx6900xt-desktop/root
F2=tests/fixtures/rx6900xt-degraded/root
# a sweep of one configuration (the quick grid takes seconds)
SW="--sweep --preset tiny --backend cpu --runs 1 --grid chunk=4 --grid image=64 --grid batch=1 --grid dtype=fp32"
printf 'schema: rocm-vla-doctor-checks/1\nchecks: []\n' >"$D/none.yaml"
printf 'torch==2.5.1\nnvidia-cublas-cu12\n' >"$D/req.txt"
"$RVD" --sysroot "$F" --json "$D/a.json" >/dev/null 2>&1
"$RVD" --sysroot "$F2" --json "$D/b.json" >/dev/null 2>&1
"$RVD" bench $SW --grid steps=1 --json "$D/sweep.json" \
    >/dev/null 2>&1
"$RVD" collect -o "$D/snap.tar.gz" >/dev/null 2>&1
# a performance figure that got 24 % worse and a check that now skips, for
# diff's and fleet's --tolerance and --allow-skip
python3 - "$D" <<'PY' || bad "setup: the perf reports were not written"
import json, sys
d = sys.argv[1]
for name, v, status in (("p1", 10.0, "pass"), ("p2", 12.4, "skip"), ("p3", 10.0, "pass")):
    r = json.load(open(d + "/a.json"))
    r["facts"]["vla.latency.total_ms"] = v
    for c in r["checks"]:
        if c["id"] == "gpu.vram":
            c["status"] = status
    json.dump(r, open("%s/%s.json" % (d, name), "w"))
PY
[ -s "$D/a.json" ] && [ -s "$D/b.json" ] && [ -s "$D/sweep.json" ] && [ -s "$D/snap.tar.gz" ] &&
    ok || bad "setup: a report, the sweep or the snapshot was not written"

# the output of one shell command line, numbers with a fraction (timings) and
# times of day made equal, then its exit status
run() {
    {
        (eval "$1") </dev/null 2>&1
        echo "rc=$?"
    } | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/TIME/g; s/[0-9]+\.[0-9]+/N/g'
}

# cmd ~ option ~ class ~ WITHOUT (or the reason) ~ WITH ~ REGEX
# $R is the binary, $F/$F2 two fixture roots, $D this layer's directory.
R='"$RVD"'
TABLE=$(
    cat <<'EOF'
check~--level~used~$R --sysroot $F~$R --sysroot $F --level standard~
check~--sysroot~used~$R --sysroot $F2~$R --sysroot $F~
check~--json~used~$R --sysroot $F~$R --sysroot $F --json -~
check~--junit~used~$R --sysroot $F~$R --sysroot $F --junit -~
check~--prom~used~$R --sysroot $F~$R --sysroot $F --prom -~
check~--html~used~$R --sysroot $F~$R --sysroot $F --html -~
check~--markdown~used~$R --sysroot $F~$R --sysroot $F --markdown -~
check~--no-redact~used~$R --sysroot $F --markdown -~$R --sysroot $F --markdown - --no-redact~
check~--no-redact~rejected~~$R --sysroot $F --no-redact~--no-redact keeps names in the --markdown summary; no --markdown FILE
check~--redact~used~$R --sysroot $F --html -~$R --sysroot $F --html - --redact~
check~--redact~rejected~~$R --sysroot $F --redact --markdown -~--redact hides names in the --html page; no --html FILE
check~--only~used~$R --sysroot $F~$R --sysroot $F --only gpu.vram~
check~--strict~used~$R --sysroot $F~$R --sysroot $F --strict~
check~--checks~used~$R --sysroot $F~$R --sysroot $F --checks $D/none.yaml~
check~--requirements~used~$R --sysroot $F~$R --sysroot $F --requirements $D/req.txt~
check~--python~used~$R --only python.torch_build~$R --only python.torch_build --python $D/no-such-python~
check~--python~rejected~~$R --sysroot $F --python python3~--python under --sysroot runs that interpreter on this host for the torch probe, at --level full
check~--preset~used~$R --only vla.latency.total~$R --only vla.latency.total --preset lingbot-v1~
check~--preset~rejected~~$R --sysroot $F --preset tiny~--preset: the VLA pass runs at --level full .*not at quick
check~--dtype~reason~the CPU self-test (no GPU here) is fp32 whatever --dtype asks; the GPU pass takes it~$R --sysroot $F --only vla.selftest --dtype bf16~vla\.selftest
check~--dtype~rejected~~$R --sysroot $F --level standard --dtype fp16~--dtype: the VLA pass runs at --level full .*not at standard
check~--gpu~reason~no GPU runtime sees a device on the test machine: the per-GPU probes have nothing to pick~$R --level standard --gpu 0~--gpu 0: no GPU runtime shows a device|gpu\.
check~--gpu~rejected~~$R --sysroot $F --gpu 0~--gpu 0: the GPU probes run at --level standard or full
check~--memtest-fraction~reason~the memory test needs a GPU, which the test machine lacks~$R --level standard --only gpu.memtest --memtest-fraction 0.1~gpu\.memtest
check~--memtest-fraction~rejected~~$R --memtest-fraction 0.1~--memtest-fraction: the GPU probes run at --level standard or full
check~--trace-gpu~used~$R --sysroot $F --level standard --only gpu.runtime~$R --sysroot $F --level standard --only gpu.runtime --trace-gpu $D/t.txt && cat $D/t.txt~
check~--trace-gpu~rejected~~$R --sysroot $F --trace-gpu $D/t.txt~--trace-gpu: the GPU probes run at --level standard or full
check~--verbose~used~$R --sysroot $F2~$R --sysroot $F2 --verbose~
check~--no-color~reason~colour is for a terminal only and the test's output is a pipe: assert it is accepted~$R --sysroot $F --no-color~Verdict:
check~--help~used~$R --sysroot $F~$R --help~
check~--version~used~$R --sysroot $F~$R --version~
list~--checks~used~$R list~$R list --checks $D/none.yaml~
list~--checks~rejected~~$R list --facts --checks $D/none.yaml~list --facts prints the probes' fact catalogue; --checks does not apply
list~--facts~used~$R list~$R list --facts~
list~--help~used~$R list~$R list --help~
list~--version~used~$R list~$R list --version~
explain~--checks~used~$R explain gpu.vram~$R explain gpu.vram --checks $D/none.yaml~
explain~--help~used~$R explain gpu.vram~$R explain --help~
explain~--version~used~$R explain gpu.vram~$R explain --version~
collect~--output~used~$R collect -o $D/c1.tar.gz~$R collect --output $D/c2.tar.gz~
collect~--level~reason~a GPU probe's call trace joins the snapshot at standard: the snapshot's member list differs~$R collect --level standard -o $D/cs.tar.gz && tar tzf $D/cs.tar.gz~gpu-trace\.txt
collect~--requirements~reason~the file is read into the snapshot: check on it names it~$R collect --requirements $D/req.txt -o $D/cr.tar.gz && $R --sysroot $D/cr.tar.gz --only python.requirements~python\.requirements
collect~--python~used~$R --sysroot $D/snap.tar.gz --only python.torch_build~$R collect --python $D/no-such-python -o $D/cp.tar.gz && $R --sysroot $D/cp.tar.gz --only python.torch_build~
collect~--help~used~$R collect -o $D/c3.tar.gz~$R collect --help~
collect~--version~used~$R collect -o $D/c4.tar.gz~$R collect --version~
bench~--preset~used~$R bench --preset tiny --dry-run~$R bench --preset pi0 --dry-run~
bench~--models~used~$R bench --preset tiny --dry-run~$R bench --preset tiny --models $D --dry-run~
bench~--dtype~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --backend cpu --runs 1 --dtype bf16~
bench~--dtype~rejected~~$R bench --preset tiny --dry-run --dtype bf16~--dry-run prints the plan .* --dtype does not apply
bench~--dtype~rejected~~$R bench --sweep --preset tiny --dtype bf16~--sweep takes its dtypes, .* --dtype does not apply
bench~--weights~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --backend cpu --runs 1 --weights $D/no-such.safetensors~
bench~--weights~rejected~~$R bench --preset tiny --dry-run --weights $D/w.safetensors~--weights does not apply
bench~--save-weights~reason~the weights file is written; the table is the same~$R bench --preset tiny --backend cpu --runs 1 --save-weights $D/w.safetensors && ls $D~w\.safetensors
bench~--save-weights~rejected~~$R bench --preset tiny --dry-run --save-weights $D/w2.safetensors~--save-weights does not apply
bench~--runs~used~$R bench --preset tiny --backend cpu~$R bench --preset tiny --backend cpu --runs 2~
bench~--runs~rejected~~$R bench --kernel-test --runs 2~--kernel-test runs its own shapes .* --runs does not apply
bench~--seed~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --backend cpu --runs 1 --seed 9~
bench~--seed~rejected~~$R bench --preset tiny --dry-run --seed 9~--seed does not apply
bench~--json~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --backend cpu --runs 1 --json -~
bench~--json~rejected~~$R bench --preset tiny --dry-run --json -~--dry-run prints the plan .* --json does not apply
bench~--image-size~used~$R bench --preset tiny --dry-run~$R bench --preset tiny --dry-run --image-size 96~
bench~--image-size~rejected~~$R bench --sweep --preset tiny --image-size 96~--image-size does not apply
bench~--batch~used~$R bench --preset tiny --dry-run~$R bench --preset tiny --dry-run --batch 2~
bench~--batch~rejected~~$R bench --sweep --preset tiny --batch 2~--batch does not apply
bench~--rows~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --backend cpu --runs 1 --rows 5~
bench~--rows~rejected~~$R bench --sweep --preset tiny --rows 5~--sweep prints one row per configuration; --rows does not apply
bench~--backend~used~$R bench --preset tiny --runs 1~$R bench --preset tiny --runs 1 --backend cpu~
bench~--backend~rejected~~$R bench --preset tiny --dry-run --backend cpu~--backend does not apply
bench~--dry-run~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --dry-run~
bench~--force~used~$R bench --preset pi0 --backend cpu --runs 1~$R bench --preset pi0 --backend cpu --runs 1 --force --image-size 8 --dry-run~
bench~--force~rejected~~$R bench --preset tiny --backend hip --force~--force lets the cpu backend run a large pass; --backend hip
bench~--force~rejected~~$R bench --preset tiny --dry-run --force~--force does not apply
bench~--sweep~used~$R bench --preset tiny --backend cpu --runs 1~$R bench $SW --grid steps=1~
bench~--grid~used~$R bench $SW --grid steps=1~$R bench $SW --grid steps=1,2~
bench~--grid~rejected~~$R bench --preset tiny --grid steps=1~--grid needs --sweep
bench~--checks~used~$R bench $SW --grid steps=1~$R bench $SW --grid steps=1 --checks $D/none.yaml~
bench~--checks~rejected~~$R bench --preset tiny --checks $D/none.yaml~--checks needs --sweep
bench~--kernel-test~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --kernel-test --backend cpu~
bench~--kernel-test~rejected~~$R bench --kernel-test --json -~--kernel-test runs its own shapes .* --json does not apply
bench~--profile~reason~kernel timing needs a GPU backend; on the cpu one it is refused~$R bench --preset tiny --backend cpu --runs 1 --profile~--profile times GPU kernels; the cpu backend has none
bench~--profile~rejected~~$R bench --sweep --preset tiny --profile~--profile does not apply
bench~--rate~used~$R bench --preset tests/data/soak-micro.yaml --backend cpu --runs 10~$R bench --preset tests/data/soak-micro.yaml --backend cpu --runs 10 --rate 10~
bench~--rate~rejected~~$R bench --sweep --preset tiny --rate 10~--sweep does not apply
bench~--torch~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --backend cpu --runs 1 --torch~
bench~--torch~rejected~~$R bench --preset tiny --dry-run --torch~--torch does not apply
bench~--python~reason~the twin needs a GPU pass beside it; without one --torch says so~$R bench --preset tiny --backend cpu --runs 1 --torch --python python3~--torch sets PyTorch beside the GPU pass
bench~--python~rejected~~$R bench --preset tiny --python python3~--python is the interpreter of --torch; give --torch too
bench~--html~used~$R bench $SW --grid steps=1~$R bench $SW --grid steps=1 --html $D/s.html && head -c 200 $D/s.html~
bench~--html~rejected~~$R bench --preset tiny --html $D/s2.html~--html needs --sweep
bench~--verbose~used~$R bench --preset tiny --backend cpu --runs 1~$R bench --preset tiny --backend cpu --runs 1 --verbose~
bench~--verbose~rejected~~$R bench --sweep --preset tiny --verbose~--verbose does not apply
bench~--help~used~$R bench --preset tiny --dry-run~$R bench --help~
bench~--version~used~$R bench --preset tiny --dry-run~$R bench --version~
dashboard~--interval~reason~headless frames sleep one interval between them: 3 frames at 100 ms take well under the default's 2 s~$R dashboard --sysroot $F --frames 3 --interval 100 >/dev/null && echo drawn~drawn
dashboard~--interval~rejected~~$R dashboard --sysroot $F --once --interval 200~--interval: --once draws one frame
dashboard~--sysroot~used~$R dashboard --sysroot $F2 --once~$R dashboard --sysroot $F --once~
dashboard~--checks~used~$R dashboard --sysroot $F --once~$R dashboard --sysroot $F --once --checks $D/none.yaml~
dashboard~--requirements~used~$R dashboard --sysroot $F --once --size 60x120~$R dashboard --sysroot $F --once --size 60x120 --requirements $D/req.txt~
dashboard~--python~reason~the live host's interpreter is asked: assert the frame is drawn~$R dashboard --once --python $D/no-such-python~GPU|CHECK|check
dashboard~--python~rejected~~$R dashboard --sysroot $F --once --python python3~--python runs an interpreter on this host; --sysroot
dashboard~--once~used~$R dashboard --sysroot $F --frames 2 --interval 100~$R dashboard --sysroot $F --once~
dashboard~--size~used~$R dashboard --sysroot $F --once~$R dashboard --sysroot $F --once --size 30x90~
dashboard~--size~rejected~~$R dashboard --sysroot $F --size 30x90~--size applies to --once and --frames only
dashboard~--workload~used~$R dashboard --once --size 30x100~$R dashboard --once --size 30x100 --workload tiny~
dashboard~--workload~rejected~~$R dashboard --sysroot $F --once --workload tiny~--workload runs the pass on this host; --sysroot does not apply
dashboard~--dtype~reason~the workload falls back to the CPU reference backend (no GPU here), which is fp32 whatever --dtype asks, and its header says so; the GPU pass takes it~$R dashboard --once --size 30x100 --workload tiny --dtype bf16~workload tiny .*fp32
dashboard~--dtype~rejected~~$R dashboard --sysroot $F --once --dtype bf16~--dtype and --workload-interval apply to --workload only
dashboard~--workload-interval~reason~a pass every S seconds: 2 frames at 100 ms see one pass either way; assert it is accepted~$R dashboard --frames 2 --interval 100 --size 30x100 --workload tiny --workload-interval 1~workload|tiny
dashboard~--workload-interval~rejected~~$R dashboard --once --workload tiny --workload-interval 1~--workload-interval: --once draws one frame
dashboard~--record~reason~the recording is a file; the frame is the same~$R dashboard --sysroot $F --once --record $D/rec.cast >/dev/null && head -c 60 $D/rec.cast~"version": 2
dashboard~--frames~used~$R dashboard --sysroot $F --once~$R dashboard --sysroot $F --frames 2 --interval 100~
dashboard~--frames~rejected~~$R dashboard --sysroot $F --once --frames 2~--once is --frames 1
dashboard~--history~used~$R dashboard --sysroot $F --frames 3 --interval 100 --size 40x120~$R dashboard --sysroot $F --frames 3 --interval 100 --size 40x120 --history 1~
dashboard~--history~rejected~~$R dashboard --sysroot $F --once --history 5~--history: --once draws one frame
dashboard~--help~used~$R dashboard --sysroot $F --once~$R dashboard --help~
dashboard~--version~used~$R dashboard --sysroot $F --once~$R dashboard --version~
diff~--json~used~$R diff $D/a.json $D/b.json~$R diff $D/a.json $D/b.json --json -~
diff~--html~used~$R diff $D/a.json $D/b.json~$R diff $D/a.json $D/b.json --html -~
diff~--tolerance~used~$R diff $D/p1.json $D/p2.json~$R diff $D/p1.json $D/p2.json --tolerance vla.latency.total_ms=30~
diff~--allow-skip~used~$R diff $D/p1.json $D/p2.json~$R diff $D/p1.json $D/p2.json --allow-skip~
diff~--no-color~reason~colour is for a terminal only and the test's output is a pipe: assert it is accepted~$R diff $D/a.json $D/b.json --no-color~regress|worse|better|fixed
diff~--verbose~used~$R diff $D/a.json $D/b.json~$R diff $D/a.json $D/b.json --verbose~
diff~--help~used~$R diff $D/a.json $D/b.json~$R diff --help~
diff~--version~used~$R diff $D/a.json $D/b.json~$R diff --version~
fleet~--json~used~$R fleet $D/a.json $D/b.json~$R fleet $D/a.json $D/b.json --json -~
fleet~--html~used~$R fleet $D/a.json $D/b.json~$R fleet $D/a.json $D/b.json --html -~
fleet~--tolerance~used~$R fleet $D/p1.json $D/p2.json $D/p3.json~$R fleet $D/p1.json $D/p2.json $D/p3.json --tolerance vla.latency.total_ms=50~
fleet~--no-color~reason~colour is for a terminal only and the test's output is a pipe: assert it is accepted~$R fleet $D/a.json $D/b.json --no-color~node|NODE
fleet~--help~used~$R fleet $D/a.json $D/b.json~$R fleet --help~
fleet~--version~used~$R fleet $D/a.json $D/b.json~$R fleet --version~
report~--html~used~$R report $D/a.json --markdown -~$R report $D/a.json --html -~
report~--markdown~used~$R report $D/a.json --html -~$R report $D/a.json --markdown -~
report~--no-redact~used~$R report $D/a.json --markdown -~$R report $D/a.json --markdown - --no-redact~
report~--no-redact~rejected~~$R report $D/a.json --html - --no-redact~--no-redact keeps names in the --markdown summary
report~--no-redact~rejected~~$R report $D/sweep.json --markdown - --no-redact~a sweep report is drawn as it is; --redact or --no-redact does not apply
report~--redact~used~$R report $D/a.json --html -~$R report $D/a.json --html - --redact~
report~--redact~rejected~~$R report $D/a.json --markdown - --redact~--redact hides names in the --html page
report~--checks~used~$R report $D/p2.json --html -~$R report $D/p2.json --html - --checks $D/none.yaml~
report~--checks~rejected~~$R report $D/a.json --markdown - --checks $D/none.yaml~--checks gives the VLA budgets of the --html page
report~--checks~rejected~~$R report $D/sweep.json --html - --checks $D/none.yaml~a sweep report is drawn as it is; --checks does not apply
report~--help~used~$R report $D/a.json --markdown -~$R report --help~
report~--version~used~$R report $D/a.json --markdown -~$R report --version~
monitor~--sysroot~used~$R monitor --sysroot $F2 --count 1~$R monitor --sysroot $F --count 1~
monitor~--interval~reason~the gap between samples is time, which the comparison blurs: sample 1 comes at 0.0x s, not the default's 1 s~$R monitor --sysroot $F --count 2 --interval 10 --json | grep -c '"sample":1,"t_s":0\.0'~^1$
monitor~--interval~rejected~~$R monitor --sysroot $F --count 1 --interval 10~--interval is the time between samples; --count 1 takes one
monitor~--count~used~$R monitor --sysroot $F --count 1 --json~$R monitor --sysroot $F --count 2 --interval 10 --json~
monitor~--json~used~$R monitor --sysroot $F --count 1 --csv~$R monitor --sysroot $F --count 1 --json~
monitor~--csv~used~$R monitor --sysroot $F --count 1~$R monitor --sysroot $F --count 1 --csv~
monitor~--table~used~$R monitor --sysroot $F --count 1~$R monitor --sysroot $F --count 1 --table~
monitor~--output~reason~the samples go to the file instead of stdout~$R monitor --sysroot $F --count 1 --output $D/m.jsonl && head -c 40 $D/m.jsonl~rocm-vla-doctor/monitor/1
monitor~--help~used~$R monitor --sysroot $F --count 1~$R monitor --help~
monitor~--version~used~$R monitor --sysroot $F --count 1~$R monitor --version~
soak~--duration~used~$R soak~$R soak --duration 1 --preset tiny --backend cpu~
soak~--preset~used~$R soak --duration 1 --backend cpu --dtype fp32 --preset tests/vla/no-such.yaml~$R soak --duration 1 --backend cpu --preset tiny~
soak~--dtype~reason~no GPU here: the auto backend falls back to the fp32 cpu self-test and says which dtype was asked~$R soak --duration 1 --preset tiny --dtype fp16~tiny fp16 for 1 s
soak~--dtype~rejected~~$R soak --duration 1 --preset tiny --backend cpu --dtype bf16~--backend cpu is the fp32 reference; --dtype bf16 does not apply
soak~--backend~reason~no GPU here: only the cpu backend runs; hip says why it cannot (libamdhip64 installed or not)~$R soak --duration 1 --preset tiny --backend hip~the pass stopped: (the hip runtime|no GPU runtime loads \(HIP)
soak~--json~used~$R soak --duration 1 --preset tiny --backend cpu~$R soak --duration 1 --preset tiny --backend cpu --json -~
soak~--sysroot~used~$R soak --duration 1 --preset tiny --backend cpu~$R soak --duration 1 --preset tiny --backend cpu --sysroot $F~
soak~--load~reason~no GPU here: the cpu fallback runs no load and the header names the one asked~$R soak --duration 1 --preset tiny --load none~load: none
soak~--load~rejected~~$R soak --duration 1 --preset tiny --backend cpu --load none~--backend cpu runs no GEMM load; --load does not apply
soak~--interval~used~$R soak --duration 1 --preset tiny --backend cpu --json -~$R soak --duration 1 --preset tiny --backend cpu --json - --interval 10~
soak~--rate~used~$R soak --duration 1 --preset tiny --backend cpu --json -~$R soak --duration 1 --preset tiny --backend cpu --json - --rate 5~
soak~--rate~rejected~~$R soak --duration 1 --preset tiny --rate 5 --load gemm~--load gemm would fill the gaps
soak~--help~used~$R soak~$R soak --help~
soak~--version~used~$R soak~$R soak --version~
EOF
)

# ---- every pair of the completion table has a row, every row a pair -------
"$RVD" __complete-table >"$D/table.sh" || bad "__complete-table failed"
sed -n 's/^ *\([a-z]*\)) echo "\(--[^"]*\)" ;;$/\1 \2/p' "$D/table.sh" |
    while read -r cmd opts; do
        for o in $opts; do
            case $o in --*) echo "$cmd~$o" ;; esac
        done
    done | LC_ALL=C sort -u >"$D/pairs"
[ -s "$D/pairs" ] && ok || bad "no pairs read from __complete-table"
printf '%s\n' "$TABLE" | awk -F'~' '$3 == "used" || $3 == "reason" {print $1 "~" $2}' |
    LC_ALL=C sort -u >"$D/covered"
printf '%s\n' "$TABLE" | awk -F'~' '{print $1 "~" $2}' | LC_ALL=C sort -u >"$D/named"
missing=$(LC_ALL=C comm -23 "$D/pairs" "$D/covered")
[ -z "$missing" ] && ok || bad "pairs of __complete-table without a used/reason row (audit them):" $missing
stale=$(LC_ALL=C comm -13 "$D/pairs" "$D/named")
[ -z "$stale" ] && ok || bad "rows naming a pair __complete-table lacks:" $stale

# ---- each row's class --------------------------------------------------------
n=0
printf '%s\n' "$TABLE" >"$D/rows"
while IFS='~' read -r cmd opt cls without with regex; do
    n=$((n + 1))
    with=$(printf '%s' "$with" | sed "s|\\\$R|$R|g")
    without=$(printf '%s' "$without" | sed "s|\\\$R|$R|g")
    case $cls in
    used)
        run "$without" >"$D/$n.without"
        run "$with" >"$D/$n.with"
        if cmp -s "$D/$n.without" "$D/$n.with"; then
            bad "$cmd $opt (row $n): the output is the same with and without it"
        else ok; fi
        ;;
    reason | rejected)
        run "$with" >"$D/$n.with"
        if [ "$cls" = rejected ] && ! tail -1 "$D/$n.with" | grep -qx 'rc=2'; then
            bad "$cmd $opt (row $n): $(tail -1 "$D/$n.with"), want rc=2 for: $with"
        elif ! grep -Eq -- "$regex" "$D/$n.with"; then
            bad "$cmd $opt (row $n): output lacks /$regex/: $(head -2 "$D/$n.with")"
        else ok; fi
        ;;
    *) bad "row $n: class '$cls' is none of used, reason, rejected" ;;
    esac
done <"$D/rows"

echo "cli_options: $n rows"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
