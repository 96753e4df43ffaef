#!/bin/sh
# hostile_checks.sh - checks files made to crash, hang or exhaust the loader
# and the rule language (written by tests/hostile/mk-checks.py): every one is
# a usage error (exit 2) naming file:line:col, within a time bound and under
# a memory limit, so a blow-up fails the test instead of the machine.
#
# 1. rule language: calls without arguments (crashed at evaluation), nesting
#    of ( ! - [ and long operator chains (overflowed the stack), rule length,
#    infinite numbers.
# 2. regular expressions: {n,m} expansion, counts, length, back-references,
#    in `matches` and in count().
# 3. YAML: duplicate keys (a second checks: overran the heap), anchors and
#    aliases (billion laughs; 5000 aliases of one list took 3 GB), deep
#    [[[ and {a: {a: (quadratic in libyaml), two documents, 4 MiB cap.
# 4. scale: 55000 checks, 20000 tables looked up by 2000 rules, a duplicate
#    id among 55000: linear, not quadratic.
# 5. timeout: nan, inf, infinity, negative, zero, 1e999, above 600, text.
# 7. rule templates (templates: / use:): a use expands to the template's
#    rules with its parameters filled in, is checked like a written rule at
#    the use, and every malformed template or use is refused; a template
#    cannot use another, and the expansion is bounded (a small file that
#    would grow past 4 MiB or 65536 rules is refused, like aliases).
# Ends with "N passed, M failed". RVD and OUT come from the environment.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=hostile_checks
. tests/lib.sh
D=$OUT/hostile_checks
rm -rf "$D" && mkdir -p "$D"
python3 tests/hostile/mk-checks.py "$D" || bad "mk-checks.py failed"

# Memory: 1 GiB of address space; under AddressSanitizer (whose shadow
# memory needs terabytes of address space) its own RSS and malloc limits.
# Time: 10 s per case, 60 s under the sanitizers.
LIMIT_S=10
if ldd "$RVD" 2>/dev/null | grep -q libasan || nm "$RVD" 2>/dev/null | grep -q __asan_init; then
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:hard_rss_limit_mb=1024:malloc_limit_mb=1024:allocator_may_return_null=0"
    export ASAN_OPTIONS
    LIMIT_S=60
    VLIMIT=unlimited
else
    VLIMIT=1048576
fi

# run NAME WANT_EXIT ARGS...: the doctor on $D/NAME.yaml (ARGS before
# --checks), stderr in $D/NAME.err
run() {
    name=$1 want=$2
    shift 2
    (ulimit -v "$VLIMIT" && exec timeout -k 2 "$LIMIT_S" "$RVD" "$@" --checks "$D/$name.yaml") \
        >"$D/$name.out" 2>"$D/$name.err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$name: exit $rc, want $want: $(head -c 300 "$D/$name.err")"; fi
}
# has NAME LINE:COL REGEX: the first line of stderr is FILE:LINE:COL: REGEX
has() {
    if head -1 "$D/$1.err" | grep -Eq -- "^$D/$1.yaml:$2: $3"; then ok; else
        bad "$1: stderr is not '$D/$1.yaml:$2: $3': $(head -c 300 "$D/$1.err")"
    fi
}
# bad_file NAME LINE:COL REGEX: `list` refuses it with that message
bad_file() {
    run "$1" 2 list
    has "$@"
}

# 1. rule language (the rule starts at line 8, column 20)
for fn in len lower known; do
    bad_file "call-$fn" 8:37 "$fn\(\) takes 1 argument, not 0 in rule"
done
for fn in count lookup; do
    bad_file "call-$fn" 8:37 "$fn\(\) takes 2 arguments, not 0 in rule"
done
# len() crashed only when evaluated: the check run refuses it at load too
run call-len 2 --sysroot tests/fixtures/no-gpu-server/root --level quick
has call-len 8:37 "len\(\) takes 1 argument"
bad_file nest-paren 8:84 "rule nested deeper than 64 levels"
bad_file nest-not 8:84 "rule nested deeper than 64 levels"
bad_file nest-neg 8:84 "rule nested deeper than 64 levels"
bad_file nest-list 8:97 "rule nested deeper than 64 levels"
bad_file chain-add 8:798 "rule nested deeper than 64 levels"
bad_file chain-and 8:1105 "rule nested deeper than 64 levels"
bad_file nest-paren-100k 8:4116 "rule longer than 4096 characters"
bad_file chain-add-100k 8:4116 "rule longer than 4096 characters"
bad_file long-rule 8:4116 "rule longer than 4096 characters"
bad_file number-inf 8:32 "number out of range"

# 2. regular expressions (the pattern of `rocm.series matches "..."` at 8:40)
bad_file regex-expand 8:40 'regular expression "\(a\{255\}\)\{255\}" refused: regular expression too large'
bad_file regex-count 8:51 'regular expression "\(\(x\{200\}\)\{200\}\)\{200\}" refused: regular expression too large'
bad_file regex-repeat 8:40 'regular expression "a\{1,30000\}" refused: repetition count above 255'
bad_file regex-long 8:40 'regular expression ".*" refused: regular expression longer than 256 characters'
bad_file regex-backref 8:40 "regular expression .* refused: back-reference"

# 3. YAML structure
bad_file dup-checks 4:1 "duplicate key 'checks' \(first at line 2\)"
bad_file dup-when 8:36 "duplicate key 'when' \(first at line 8\)"
bad_file dup-data 4:3 "duplicate key 't' \(first at line 3\)"
bad_file alias-tables 3:8 "YAML anchor '&a': aliases and anchors are not allowed"
bad_file billion-laughs 1:5 "YAML anchor '&l0': aliases and anchors are not allowed"
bad_file deep-flow 1:40 "nested deeper than 32 levels"
bad_file deep-map 1:133 "nested deeper than 32 levels"
bad_file two-docs 4:1 "a checks file holds one YAML document"
run huge 2 list
if grep -q "checks file '$D/huge.yaml' is larger than 4 MiB" "$D/huge.err"; then ok; else bad "huge: $(head -c 300 "$D/huge.err")"; fi

# 4. scale
run many-checks 0 list
n=$(grep -c '^c\.[0-9]' "$D/many-checks.out")
if [ "$n" = 55000 ]; then ok; else bad "many-checks: $n checks listed, want 55000"; fi
bad_file many-checks-dup 55003:5 "duplicate check id 'c.3' \(first at line 6\)"
run many-lookups 0 list

# 5. timeouts: a finite number of seconds in (0, 600]
for t in nan inf infinity neg zero huge over text; do
    bad_file "timeout-$t" 9:14 "check h.one: timeout must be a number of seconds above 0 and at most 600"
done
run timeout-ok 0 list

# 6. the loader's messages quote the file's text: a bidi override in a rule
# (YAML allows it; libyaml itself refuses C0/C1 controls and invalid bytes)
# reaches the terminal escaped, never raw
printf 'schema: rocm-vla-doctor-checks/1\nchecks:\n  - id: a.b\n    title: t\n    level: quick\n    fail: [{when: "gpu.count \342\200\256== 0", summary: x}]\n    pass: {summary: y}\n    fix: f\n' >"$D/term-rule.yaml"
"$RVD" list --checks "$D/term-rule.yaml" >/dev/null 2>"$D/term-rule.err"
rc=$?
if [ $rc = 2 ] && python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
raw = b"\xe2\x80\xae" in b
sys.exit(1 if raw or b"\\u202e" not in b else 0)' "$D/term-rule.err"; then
    ok
else
    bad "term-rule: exit $rc, or a raw bidi override in: $(cat "$D/term-rule.err")"
fi

# 7. rule templates
# tmpl NAME: $D/NAME.yaml is a checks file with one template `t` (params
# p, q) used by a per-GPU check; stdin holds the lines after `templates:`
# and after the check's `fail:`, split by a line "--"
tmpl() {
    { printf 'schema: rocm-vla-doctor-checks/1\ntemplates:\n'
      sed '/^--$/,$d'
      printf 'checks:\n  - id: t.one\n    title: t\n    level: quick\n    per: gpu\n    fix: f\n    pass: {summary: ok}\n    why: w\n    fail:\n'
    } <"$D/tmpl.in" >"$D/$1.yaml"
    sed '1,/^--$/d' "$D/tmpl.in" >>"$D/$1.yaml"
}
T_OK='  t:
    params: [p, q]
    rules:
      - when: "gpu.vram_bytes < ${p} GiB"
        summary: "${q} {gpu.vram_bytes:gib} GiB, $LOGNAME stays"'
printf '%s\n--\n      - {use: t, with: {p: 12, q: small}}\n      - {when: "gpu.count == 0", summary: none}\n' "$T_OK" >"$D/tmpl.in"
tmpl tmpl-ok
run tmpl-ok 0 explain t.one
if grep -q '^  fail when gpu.vram_bytes < 12 GiB$' "$D/tmpl-ok.out" &&
    grep -q '^  fail when gpu.count == 0$' "$D/tmpl-ok.out"; then ok; else
    bad "tmpl-ok: explain does not show the rule filled in: $(cat "$D/tmpl-ok.out")"
fi
# the filled-in rule decides like a written one: a 16 GiB GPU fails below
# 17, and the summary keeps a $ that is no ${param}
printf '%s\n--\n      - {use: t, with: {p: 17, q: small}}\n' "$T_OK" >"$D/tmpl.in"
tmpl tmpl-run
fixture_check tests/fixtures/rx7800xt-override --checks "$D/tmpl-run.yaml" --json "$D/tmpl-run.json" >/dev/null 2>"$D/tmpl-run.err"
expect "tmpl-run: the template's rule fails" "$D/tmpl-run.json" \
    'c["t.one"]["status"] == "fail" and c["t.one"]["summary"] == "small 16.0 GiB, $LOGNAME stays"'

# tmpl_bad NAME LINE:COL REGEX TEMPLATES USES: refused with that message
tmpl_bad() {
    printf '%s\n--\n%s\n' "$4" "$5" >"$D/tmpl.in"
    tmpl "$1"
    bad_file "$1" "$2" "$3"
}
U='      - {use: t, with: {p: 12, q: small}}'
tmpl_bad tmpl-unknown 18:15 "unknown template 'nope'" "$T_OK" "$U
      - {use: nope}"
tmpl_bad tmpl-missing 17:9 "this use of template 't' gives no value for 'q'" "$T_OK" '      - {use: t, with: {p: 12}}'
tmpl_bad tmpl-extra 17:37 "template 't' has no parameter 'r'" "$T_OK" '      - {use: t, with: {p: 1, q: 2, r: 3}}'
tmpl_bad tmpl-hole 7:18 "template 't' has no parameter 'x'" '  t:
    params: [p, q]
    rules:
      - when: "gpu.vram_bytes < ${p} GiB"
        summary: "${q} ${x}"' "$U"
tmpl_bad tmpl-unused-param 3:3 "parameter 'q' of template 't' is never used" '  t:
    params: [p, q]
    rules: {when: "gpu.vram_bytes < ${p}", summary: s}' "$U"
tmpl_bad tmpl-unused 8:3 "template 'u' is never used" "$T_OK
  u:
    rules: {when: \"true\", summary: s}" "$U"
tmpl_bad tmpl-nested 10:10 "template 'u': a template cannot use another" "$T_OK
  u:
    rules:
      - {use: t, with: {p: 1, q: 2}}" "$U"
tmpl_bad tmpl-key 7:9 "unknown key 'fixx' in a rule of template 't'" '  t:
    params: [p]
    rules:
      - when: "gpu.vram_bytes < ${p}"
        fixx: f' '      - {use: t, with: {p: 1}}'
tmpl_bad tmpl-usekey 17:38 "unknown key 'and' in a use of a template \(use, with\)" "$T_OK" \
    '      - {use: t, with: {p: 1, q: 2}, and: 3}'
# checked at the use: an unknown fact, a syntax error after filling in
tmpl_bad tmpl-fact 15:9 "unknown fact 'gpu.vram_byte'" '  t:
    params: [p]
    rules: {when: "gpu.vram_${p} > 1", summary: s}' '      - {use: t, with: {p: byte}}'
tmpl_bad tmpl-syntax 15:9 ".* at column 19 of rule \"gpu.vram_bytes > \(\" \(template 't'\)" '  t:
    params: [p]
    rules: {when: "gpu.vram_bytes > ${p}", summary: s}' '      - {use: t, with: {p: "("}}'
# bounded: 64 KiB of text used 100 times, a rule used 70000 times
python3 - "$D" <<'PY'
import sys
d = sys.argv[1]
head = "schema: rocm-vla-doctor-checks/1\ntemplates:\n  t:\n    rules: {when: \"true\", summary: \"%s\"}\n"
check = "checks:\n  - id: t.one\n    title: t\n    level: quick\n    fix: f\n    pass: {summary: ok}\n    why: w\n    fail:\n"
with open(d + "/tmpl-bytes.yaml", "w") as f:
    f.write(head % ("x" * 65536) + check + "      - {use: t}\n" * 100)
with open(d + "/tmpl-rules.yaml", "w") as f:
    f.write(head % "x" + check + "      - {use: t}\n" * 70000)
PY
bad_file tmpl-bytes 76:9 "templates expand to more than 4 MiB"
bad_file tmpl-rules 65549:9 "templates expand to more than 65536 rules"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
