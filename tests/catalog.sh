#!/bin/sh
# catalog.sh - the fact catalogue and full validation of checks files.
# 1. Every fact a probe produced on the fixture machines, in the CPU run of
#    every level and in the reports the earlier layers left in $OUT (the GPU
#    layer's runs with Debian's ROCm libraries, the VLA probe) is declared in
#    the catalogue (`list --facts`) with a matching type, and so is every
#    fact a probe's source sets by a literal name, so the catalogue cannot
#    rot silently. The probes a probe reads facts of are in its probe_needs
#    (probes/probe_table.c), which `check --only` follows.
# 2. A custom --checks file naming an undeclared fact (in a rule, in reads:,
#    in a summary placeholder) or with a type error in a rule is rejected
#    before any probe runs: exit 2 with file:line:col, for check, list and
#    explain alike.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=catalog
. tests/lib.sh
D="$OUT/catalog"
mkdir -p "$D"

# ---- 1. the catalogue covers what the probes produce ------------------------
"$RVD" list --facts >"$D/facts.txt" 2>"$D/facts.err"
if [ $? -eq 0 ] && grep -Eq '^gpu\.<i>\.vram_bytes +int +gpu$' "$D/facts.txt" &&
    grep -Eq '^probe\.<probe>\.status +string +\(every probe\)$' "$D/facts.txt" &&
    grep -Eq '^vla\.latency\.total_ms +float +vla$' "$D/facts.txt"; then ok; else bad "list --facts"; fi

for dir in tests/fixtures/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -e "$dir/root" ] || [ -e "$dir/snapshot.tar.gz" ] || continue
    fixture_check "$dir" --json "$D/fixture-$name.json" >/dev/null 2>&1
    [ -s "$D/fixture-$name.json" ] && ok || bad "fixture $name wrote no report"
done
# this machine at every level: the GPU probes' no-GPU paths and the CPU VLA pass
for level in quick standard full; do
    "$RVD" --level "$level" --json "$D/live-$level.json" >/dev/null 2>&1
    [ -s "$D/live-$level.json" ] && ok || bad "--level $level wrote no report"
done
# (not the documents the docs layer forges to test the schema: neg-*.json)
reports=$(find "$OUT" -name '*.json' ! -name 'neg-*' | sort)
python3 tests/catalog_check.py "$D/facts.txt" $reports >"$D/check.out" 2>&1
while read -r verdict rest; do
    case $verdict in
    ok) ok ;;
    *) bad "undeclared or mistyped fact: $rest" ;;
    esac
done <"$D/check.out"
n=$(grep -c '^ok ' "$D/check.out")
[ "$n" -ge 13 ] && ok || bad "only $n reports checked"
# the checker itself catches an undeclared fact and a wrong type
grep -v '^gpu\.<i>\.vram_bytes ' "$D/facts.txt" >"$D/facts-short.txt"
if python3 tests/catalog_check.py "$D/facts-short.txt" "$D/fixture-mi300x-node.json" >"$D/neg.out" 2>&1; then
    bad "checker accepts a catalogue without gpu.<i>.vram_bytes"
else
    grep -q "gpu.0.vram_bytes=.*(no probe declares it)" "$D/neg.out" && ok || bad "checker message"
fi
sed 's/^\(gpu\.count  *\)int /\1bool/' "$D/facts.txt" >"$D/facts-type.txt"
if python3 tests/catalog_check.py "$D/facts-type.txt" "$D/fixture-mi300x-node.json" >"$D/neg2.out" 2>&1; then
    bad "checker accepts gpu.count declared bool"
else
    grep -q "gpu.count=.*(declared gpu.count as bool)" "$D/neg2.out" && ok || bad "checker type message"
fi

# the source side: every fact_set_<type>() with a literal name, GPU paths
# included, matches a declaration of that type
python3 tests/catalog_source.py "$D/facts.txt" probes/*.c src/gpu/*.c src/vla/*.c >"$D/source.out" 2>&1 &&
    ok || bad "$(cat "$D/source.out")"
sed 's/^\(gpu\.<i>\.power_w  *\)float /\1int  /' "$D/facts.txt" >"$D/facts-power.txt"
if python3 tests/catalog_source.py "$D/facts-power.txt" probes/*.c >"$D/source-neg.out" 2>&1; then
    bad "source check accepts gpu.<i>.power_w declared int"
else
    grep -q "gpu.0.power_w set as float, declared int" "$D/source-neg.out" && ok || bad "source check message"
fi
# the probes `check --only` adds for a probe (probe_needs) cover the facts its
# sources read, and the checker catches one left out (user reads kfd.present)
python3 tests/probe_needs.py "$D/facts.txt" probes/probe_table.c probes/*.c >"$D/needs.out" 2>&1 &&
    ok || bad "$(cat "$D/needs.out")"
sed 's/{"user", "kfd,env"}/{"user", "env"}/' probes/probe_table.c >"$D/table-neg.c"
if python3 tests/probe_needs.py "$D/facts.txt" "$D/table-neg.c" probes/*.c >"$D/needs-neg.out" 2>&1; then
    bad "probe_needs check accepts user without kfd"
else
    grep -q "user reads kfd.present of probe kfd" "$D/needs-neg.out" && ok || bad "probe_needs check message"
fi

# ---- 2. checks files are validated before any probe runs -------------------
"$RVD" list >/dev/null 2>"$D/builtin.err" && ok || bad "the built-in checks.yaml does not validate: $(cat "$D/builtin.err")"
"$RVD" list --checks checks.yaml >/dev/null 2>&1 && ok || bad "checks.yaml does not validate"

# mk FILE WHEN SUMMARY [READS]: a one-check file; the rule is on line 8
mk() {
    cat >"$D/$1.yaml" <<EOY
schema: rocm-vla-doctor-checks/1
checks:
  - id: custom.gpus
    title: custom
    level: quick
    per: gpu
    reads: [$4]
    fail: [{when: '$2', summary: '$3'}]
    pass: {summary: ok}
    fix: f
    why: w
EOY
}
mk when 'gpu.cuont == 0' 'none' 'gpu.count'
mk reads 'gpu.count == 0' 'none' 'gpu.count, gpu.vram_bytse'
mk summary 'gpu.count == 0' 'none: {gpu.cuont} GPUs' 'gpu.count'
mk not 'gpu.count > 0 && !gpu.vram_bytes' 'none' 'gpu.count'
mk contains 'gpu.count contains 0' 'none' 'gpu.count'
mk good 'gpu.count > 0 && gpu.vram_bytes < 1 GiB' 'small: {gpu.vram_bytes:gib} GiB' 'gpu.count'

# WANT per file: the exact first line of the error
w_when="$D/when.yaml:8:20: unknown fact 'gpu.cuont' (did you mean 'gpu.count'?) in rule \"gpu.cuont == 0\""
w_reads="$D/reads.yaml:7:24: unknown fact 'gpu.vram_bytse' (did you mean 'gpu.vram_bytes'?) in 'reads'"
w_summary="$D/summary.yaml:8:54: unknown fact 'gpu.cuont' (did you mean 'gpu.count'?) in placeholder {gpu.cuont}"
w_not="$D/not.yaml:8:37: '!' needs a yes/no value, not a number in rule \"gpu.count > 0 && !gpu.vram_bytes\""
w_contains="$D/contains.yaml:8:30: 'contains' searches a list or a string, not a number in rule \"gpu.count contains 0\""

for f in when reads summary not contains; do
    eval "want=\$w_$f"
    for cmd in check list explain; do
        case $cmd in
        check) "$RVD" --checks "$D/$f.yaml" --json "$D/$f-report.json" >"$D/$f-$cmd.out" 2>&1 ;;
        list) "$RVD" list --checks "$D/$f.yaml" >"$D/$f-$cmd.out" 2>&1 ;;
        explain) "$RVD" explain custom.gpus --checks "$D/$f.yaml" >"$D/$f-$cmd.out" 2>&1 ;;
        esac
        rc=$?
        if [ $rc -eq 2 ]; then ok; else bad "$cmd --checks $f.yaml: exit $rc, want 2"; fi
        got=$(head -1 "$D/$f-$cmd.out")
        if [ "$got" = "$want" ]; then ok; else bad "$cmd --checks $f.yaml: '$got', want '$want'"; fi
    done
    # rejected before any probe ran: no report was written
    [ -e "$D/$f-report.json" ] && bad "$f.yaml: a report was written" || ok
done
"$RVD" list --checks "$D/good.yaml" >"$D/good.out" 2>&1 && ok || bad "good.yaml rejected: $(cat "$D/good.out")"
"$RVD" --sysroot tests/fixtures/rx7900xtx-desktop/root --checks "$D/good.yaml" --json "$D/good.json" >/dev/null 2>&1
expect "good.yaml runs" "$D/good.json" 'c["custom.gpus"]["status"] == "pass"'
"$RVD" --facts >"$D/facts-check.out" 2>&1
[ $? -eq 2 ] && grep -q "unknown option '--facts'" "$D/facts-check.out" && ok || bad "--facts outside list"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
