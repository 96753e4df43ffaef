#!/bin/sh
# cli_inputs.sh - inputs that are not what they claim, and outputs that
# cannot be written: every one a usage error (exit 2) with one clear line,
# never a verdict about a machine that is not there and never a report or
# snapshot that is silently cut short.
#
# 1. --sysroot: an empty directory, a tree without proc/ or sys/, a tarball
#    without collect's manifest; the dashboard too.
# 2. collect under a file-size limit and into /dev/full: exit 2, no file.
# 3. report files: a bad path fails before probing; a failed write keeps the
#    old report; "-" is stdout; the exit status when several apply.
# 4. --requirements naming a missing or binary file.
# 5. missing option values, unknown and ambiguous options, for every command.
# 6. a value that looks like an option (--json --strict), and the explicit
#    --json=--strict.
# Ends with "N passed, M failed". RVD and OUT come from the environment.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=cli_inputs
. tests/lib.sh
D=$OUT/cli_inputs
rm -rf "$D" && mkdir -p "$D"
case $RVD in /*) ABS_RVD=$RVD ;; *) ABS_RVD=$PWD/$RVD ;; esac
FX=tests/fixtures

# run NAME WANT_EXIT CMD...: stdout in $D/NAME.out, stderr in $D/NAME.err
run() {
    name=$1 want=$2
    shift 2
    "$@" >"$D/$name.out" 2>"$D/$name.err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$name: exit $rc, want $want: $(head -2 "$D/$name.err")"; fi
}
# err NAME REGEX: stderr of NAME matches
err() { if grep -Eq -- "$2" "$D/$1.err"; then ok; else bad "$1: stderr lacks /$2/: $(head -3 "$D/$1.err")"; fi; }
# one_line NAME: stderr is exactly one line and holds no control byte
one_line() {
    n=$(wc -l <"$D/$1.err")
    if [ "$n" -eq 1 ] && ! LC_ALL=C grep -q '[[:cntrl:]]' "$D/$1.err"; then ok; else
        bad "$1: want one printable line on stderr, got $n: $(head -3 "$D/$1.err" | od -c | head -3)"
    fi
}
# no_report NAME: nothing was probed or reported (stdout empty)
no_report() { if [ ! -s "$D/$1.out" ]; then ok; else bad "$1: printed a report: $(head -2 "$D/$1.out")"; fi; }
# limited CMD...: run with a 1-2 KiB file-size limit (dash counts 512-byte
# blocks, bash 1024) and SIGXFSZ ignored, so that write() fails with EFBIG;
# stdout goes to /dev/null (a device: not limited), so the report file alone
# meets the limit
limited() { (trap '' XFSZ; ulimit -f 2 && exec "$@" >/dev/null); }

# ---- 1. --sysroot must be a machine ------------------------------------------
mkdir -p "$D/empty" "$D/only-proc/proc" "$D/only-sys/sys"
run sysroot-empty 2 "$RVD" --sysroot "$D/empty"
err sysroot-empty "sysroot '.*/empty' is not a machine's root: no proc/ and no sys/ directory"
one_line sysroot-empty
no_report sysroot-empty
run sysroot-only-proc 2 "$RVD" --sysroot "$D/only-proc"
err sysroot-only-proc "no sys/ directory"
run sysroot-only-sys 2 "$RVD" --sysroot "$D/only-sys"
err sysroot-only-sys "no proc/ directory"
# proc/ as a file is not the directory a machine has
mkdir -p "$D/proc-file/sys" && : >"$D/proc-file/proc"
run sysroot-proc-file 2 "$RVD" --sysroot "$D/proc-file"
# any tarball is not a snapshot: it needs collect's manifest
mkdir -p "$D/tarsrc/proc" "$D/tarsrc/sys"
echo x >"$D/tarsrc/sys/x"
tar czf "$D/random.tar.gz" -C "$D/tarsrc" proc sys
run sysroot-random-tar 2 "$RVD" --sysroot "$D/random.tar.gz"
err sysroot-random-tar "snapshot '.*random.tar.gz': no manifest"
one_line sysroot-random-tar
no_report sysroot-random-tar
run dashboard-sysroot-empty 2 "$RVD" dashboard --once --sysroot "$D/empty"
err dashboard-sysroot-empty "is not a machine's root"
# every fixture machine still loads, as a tree and as collect's tarball
for r in "$FX"/*/root "$FX"/*/snapshot.tar.gz; do
    n=$(basename "$(dirname "$r")")
    "$RVD" --sysroot "$r" --only env.container >/dev/null 2>"$D/fx-$n.err"
    rc=$?
    if [ $rc -le 1 ] && ! grep -q "not a machine's root\|no manifest" "$D/fx-$n.err"; then ok; else
        bad "fixture $n refused (exit $rc): $(head -1 "$D/fx-$n.err")"
    fi
done
# an extracted snapshot (the manifest) is a machine root too
mkdir -p "$D/extracted"
tar xzf "$FX/this-machine/snapshot.tar.gz" -C "$D/extracted"
run sysroot-extracted 0 "$RVD" --sysroot "$D/extracted" --only env.container

# ---- 2. collect: any write error fails, and leaves no file --------------------
# the first write to fail is a staged copy (a kernel log or dpkg's status
# passes 1 KiB long before the tarball is written): caught there, not
# packed as a truncated file
run collect-fsize 2 limited "$RVD" collect -o "$D/limited.tar.gz"
err collect-fsize "^rocm-vla-doctor: error: collect: cannot write '.*rocm-vla-doctor-collect\..*': File too large"
err collect-fsize "collect failed: no snapshot written"
if [ ! -e "$D/limited.tar.gz" ]; then ok; else bad "collect-fsize: left $D/limited.tar.gz"; fi
if ls "$D" | grep -q '\.tmp\.'; then bad "collect-fsize: left a temporary file"; else ok; fi
# a full device: every write fails, at the latest when gzclose flushes. A
# private node like /dev/full (1,7), so that a regression that renames over
# the target clobbers only this one; needs root for mknod
FULL=$D/full
if mknod "$FULL" c 1 7 2>/dev/null; then
    run collect-full 2 "$RVD" collect -o "$FULL"
    err collect-full "cannot write.*No space left on device"
    if [ -c "$FULL" ]; then ok; else bad "collect-full: the device was replaced by a file"; fi
else
    FULL=
    echo "SKIP cli_inputs: no full device (mknod needs root)"
fi
# a good snapshot survives a failed collect over it
"$RVD" collect -o "$D/good.tar.gz" >/dev/null 2>&1
cp "$D/good.tar.gz" "$D/good.copy"
run collect-over-good 2 limited "$RVD" collect -o "$D/good.tar.gz"
if cmp -s "$D/good.tar.gz" "$D/good.copy"; then ok; else bad "collect-over-good: the old snapshot was clobbered"; fi

# ---- 3. report files ---------------------------------------------------------
named=tests/cli-roots/named
# a bad path fails before any probe runs, even at the standard level
t0=$(date +%s)
run json-bad-path 2 "$RVD" --level standard --json "$D/no/such/dir/r.json"
t1=$(date +%s)
err json-bad-path "cannot write '.*no/such/dir/r.json': No such file or directory"
one_line json-bad-path
no_report json-bad-path
if [ $((t1 - t0)) -le 2 ]; then ok; else bad "json-bad-path: took $((t1 - t0)) s"; fi
run junit-bad-path 2 "$RVD" --level standard --json "$D/ok.json" --junit "$D/no/such/j.xml"
err junit-bad-path "cannot write '.*no/such/j.xml'"
no_report junit-bad-path
if [ ! -e "$D/ok.json" ] && ! ls "$D" | grep -q '\.tmp\.'; then ok; else
    bad "junit-bad-path: left a report or a temporary file"
fi
run json-dir 2 "$RVD" --json "$D"
err json-dir "it is a directory"
# a failed write keeps the previous report (JSON and JUnit), exit 2
run json-good 0 "$RVD" --sysroot "$named" --only env.container --json "$D/r.json" --junit "$D/r.xml"
cp "$D/r.json" "$D/r.json.good" && cp "$D/r.xml" "$D/r.xml.good"
run json-fsize 2 limited "$RVD" --sysroot "$named" --json "$D/r.json" --junit "$D/r.xml"
err json-fsize "cannot write '.*r.json': File too large"
if cmp -s "$D/r.json" "$D/r.json.good" && cmp -s "$D/r.xml" "$D/r.xml.good"; then ok; else
    bad "json-fsize: a failed write changed the previous report"
fi
if ls "$D" | grep -q '\.tmp\.'; then bad "json-fsize: left a temporary file"; else ok; fi
if [ -n "$FULL" ]; then
    run json-full 2 "$RVD" --sysroot "$named" --only env.container --json "$FULL"
    err json-full "cannot write '.*full': No space left on device"
    if [ -c "$FULL" ]; then ok; else bad "json-full: the device was replaced by a file"; fi
fi
# "-" is stdout (the text report goes to stderr then)
run json-stdout 0 "$RVD" --sysroot "$named" --only env.container --json -
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$D/json-stdout.out"; then ok; else
    bad "json-stdout: stdout is not the JSON report"
fi
# several exit codes: the largest wins; a report that cannot be written (2)
# beats a failed check (1)
cat >"$D/fails.yaml" <<'YAML'
schema: rocm-vla-doctor-checks/1
checks:
  - id: test.always_fails
    title: fails by design
    level: quick
    fail:
      - when: "1 < 2"
        summary: "fails by design"
        fix: "nothing"
    pass: {summary: no}
    why: test
YAML
run exit-finding 1 "$RVD" --checks "$D/fails.yaml" --sysroot "$named" --json "$D/f.json"
[ -z "$FULL" ] || run exit-finding-and-write 2 "$RVD" --checks "$D/fails.yaml" --sysroot "$named" --json "$FULL"
run exit-finding-and-write-fsize 2 limited "$RVD" --checks "$D/fails.yaml" --sysroot "$named" --json "$D/f.json"
run json-junit-same 2 "$RVD" --sysroot "$named" --json "$D/same" --junit "$D/same"
err json-junit-same "name the same file"
# diff --json: the same rules
"$RVD" --sysroot "$FX/mi300x-node/root" --json "$D/a.json" >/dev/null 2>&1
run diff-json-bad-path 2 "$RVD" diff "$D/a.json" "$D/a.json" --json "$D/no/such/d.json"
err diff-json-bad-path "cannot write '.*no/such/d.json'"
no_report diff-json-bad-path
[ -z "$FULL" ] || run diff-json-full 2 "$RVD" diff "$D/a.json" "$D/a.json" --json "$FULL"
# bench --json: the same rules (the tiny preset on the cpu backend)
run bench-json-bad-path 2 "$RVD" bench --preset tiny --backend cpu --json "$D/no/such/b.json"
err bench-json-bad-path "cannot write '.*no/such/b.json'"
no_report bench-json-bad-path
run bench-json-good 0 "$RVD" bench --preset tiny --runs 1 --backend cpu --json "$D/b.json"
cp "$D/b.json" "$D/b.json.good"
run bench-json-fsize 2 limited "$RVD" bench --preset tiny --runs 1 --backend cpu --json "$D/b.json"
err bench-json-fsize "cannot write '.*b.json': File too large"
if cmp -s "$D/b.json" "$D/b.json.good"; then ok; else bad "bench-json-fsize: the previous report changed"; fi

# ---- 4. --requirements -------------------------------------------------------
printf 'torch==2.3\0\001\002' >"$D/binary.txt"
# (collect's output named, so that a failure leaves nothing in the tree)
for cmd in check collect; do
    set -- "$cmd"
    [ "$cmd" = collect ] && set -- collect -o "$D/req.tar.gz"
    run "req-missing-$cmd" 2 "$RVD" "$@" --requirements "$D/no-such.txt"
    err "req-missing-$cmd" "--requirements '.*no-such.txt': No such file or directory"
    one_line "req-missing-$cmd"
    no_report "req-missing-$cmd"
    run "req-binary-$cmd" 2 "$RVD" "$@" --requirements "$D/binary.txt"
    err "req-binary-$cmd" "--requirements '.*binary.txt': binary content"
    run "req-dir-$cmd" 2 "$RVD" "$@" --requirements "$D"
done
run req-binary-dashboard 2 "$RVD" dashboard --once --sysroot "$named" --requirements "$D/binary.txt"
err req-binary-dashboard "binary content"
if [ -e "$D/req.tar.gz" ]; then bad "req: collect wrote a snapshot"; else ok; fi
printf 'torch==2.3.0\n' >"$D/req.txt"
run req-good 0 "$RVD" --sysroot "$named" --only env.container --requirements "$D/req.txt"

# ---- 5. option errors, named as typed, one line, exit 2, every command --------
# opt NAME REGEX CMD...: exit 2, one printable line matching REGEX, no report
opt() {
    n=$1 re=$2
    shift 2
    run "$n" 2 "$@"
    if head -1 "$D/$n.err" | grep -Eq -- "$re"; then ok; else bad "$n: first line lacks /$re/: $(head -1 "$D/$n.err")"; fi
    if LC_ALL=C grep -q '[[:cntrl:]]' "$D/$n.err"; then bad "$n: a control byte in the message"; else ok; fi
    no_report "$n"
}
opt check-json-missing "^rocm-vla-doctor: error: option '--json' requires a value$" "$RVD" --json
opt check-level-missing "option '--level' requires a value$" "$RVD" check --level
opt check-o-missing "option '-o' requires a value$" "$RVD" collect -o
opt check-abbrev-missing "option '--junit' requires a value$" "$RVD" --jun
opt check-unknown "unknown option '--bogus'$" "$RVD" --bogus=1
opt check-unknown-short "unknown option '-q'$" "$RVD" -vq
opt check-flag-value "option '--strict' takes no value$" "$RVD" --strict=yes
opt check-ambiguous "option '--j' is ambiguous \(--json, --junit\)$" "$RVD" --j x
opt list-unknown "unknown option '--bogus'$" "$RVD" list --bogus
opt dash-interval-missing "dashboard: option '--interval' requires a value$" "$RVD" dashboard --interval
opt dash-unknown "dashboard: unknown option '--json'$" "$RVD" dashboard --json x
opt bench-preset-missing "bench: option '--preset' requires a value$" "$RVD" bench --preset
opt bench-runs-missing "bench: option '--runs' requires a value$" "$RVD" bench --preset tiny --runs
opt bench-unknown "bench: unknown option '--bogus'$" "$RVD" bench --bogus
opt diff-json-missing "diff: option '--json' requires a value$" "$RVD" diff a b --json
opt diff-tol-missing "diff: option '--tolerance' requires a value$" "$RVD" diff --tolerance
opt diff-flag-value "diff: option '--allow-skip' takes no value$" "$RVD" diff --allow-skip=1 a b

# ---- 6. a value that looks like an option ------------------------------------
mkdir -p "$D/cwd"
opt check-json-strict "option '--json' requires a value, not the option '--strict' \(write --json=--strict" \
    sh -c 'cd "$1" && exec "$2" --json --strict' sh "$D/cwd" "$ABS_RVD"
opt check-o-dash "option '-o' requires a value, not the option '--json' \(write --output=--json" \
    sh -c 'cd "$1" && exec "$2" collect -o --json' sh "$D/cwd" "$ABS_RVD"
opt check-sysroot-dash "option '--sysroot' requires a value, not the option '-v'" "$RVD" --sysroot -v
opt dash-sysroot-once "dashboard: option '--sysroot' requires a value, not the option '--once'" \
    "$RVD" dashboard --sysroot --once
opt bench-json-runs "bench: option '--json' requires a value, not the option '--runs'" \
    "$RVD" bench --preset tiny --json --runs 2
opt diff-json-nocolor "diff: option '--json' requires a value, not the option '--no-color'" \
    "$RVD" diff a b --json --no-color
if [ -z "$(ls -A "$D/cwd")" ]; then ok; else bad "a file named like an option was written: $(ls -A "$D/cwd")"; fi
# a negative number goes to the option's own range check
run bench-runs-negative 2 "$RVD" bench --preset tiny --runs -5
err bench-runs-negative "--runs must be an integer in \[1, 100000\], not '-5'"
run dash-interval-negative 2 "$RVD" dashboard --once --interval -5
err dash-interval-negative "--interval must be .* not '-5'"
# the explicit form takes the value as it is
(cd "$D/cwd" && "$ABS_RVD" --sysroot "$OLDPWD/$named" --only env.container --json=--strict >/dev/null 2>&1)
if [ -s "$D/cwd/--strict" ]; then ok; else bad "--json=--strict did not write the file '--strict'"; fi
run json-eq-dash 0 "$RVD" --sysroot "$named" --only env.container --json=-
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$D/json-eq-dash.out"; then ok; else
    bad "json-eq-dash: --json=- is not stdout"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
