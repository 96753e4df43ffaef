#!/bin/sh
# cli.sh - command-line behaviour and bad input: exit codes, usage errors,
# malformed checks.yaml reported as file:line:col, --only, list/explain.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
mkdir -p "$OUT/cli"
D="$OUT/cli"
pass=0
fail=0
t() { # t NAME WANT_EXIT CMD... ; stdout+stderr in $D/NAME.out
    name=$1
    want=$2
    shift 2
    "$@" >"$D/$name.out" 2>&1
    rc=$?
    if [ "$rc" = "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL cli $name: exit $rc, want $want"
        sed 's/^/    /' "$D/$name.out" | head -5
    fi
}
has() { # has NAME REGEX: the output of test NAME matches
    if grep -Eq -- "$2" "$D/$1.out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL cli $1: output lacks /$2/"
        sed 's/^/    /' "$D/$1.out" | head -5
    fi
}

t unknown-flag 2 "$RVD" --bogus
has unknown-flag "unknown option '--bogus'"
has unknown-flag "^usage:"
t unknown-cmd 2 "$RVD" frobnicate
has unknown-cmd "unknown command 'frobnicate'"
t bad-level 2 "$RVD" --level extreme
has bad-level "--level must be quick, standard or full"
t help 0 "$RVD" --help
has help "rocm-vla-doctor explain ID"
t version 0 "$RVD" --version
has version "^rocm-vla-doctor [0-9]+\.[0-9]+\.[0-9]+( \(git [^)]+\))?$"
t list 0 "$RVD" list
has list "^pcie\.atomics +quick +"
t explain 0 "$RVD" explain gpu.vram
has explain "^Why:"
has explain "fail when .*gpu.vram_bytes < 11.5 GiB"
t explain-unknown 2 "$RVD" explain no.such.check
has explain-unknown "no check named 'no.such.check'"
t only-unknown 2 "$RVD" --only gpu.vram,no.such --sysroot tests/cli-roots/named
has only-unknown "no check named 'no.such'"
# typos get "did you mean" on stderr (nothing on stdout) and exit 2
typo() { # typo NAME HINT CMD...: exit 2, stderr names HINT, stdout empty
    name=$1
    hint=$2
    shift 2
    "$@" >"$D/$name.stdout" 2>"$D/$name.out" </dev/null
    rc=$?
    if [ "$rc" = 2 ] && [ ! -s "$D/$name.stdout" ] && grep -qF -- "did you mean '$hint'?" "$D/$name.out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL cli $name: exit $rc (want 2), stderr lacks \"did you mean '$hint'?\""
        sed 's/^/    /' "$D/$name.out" | head -5
    fi
}
typo typo-cmd list "$RVD" lst
typo typo-opt --level "$RVD" --levl full
typo typo-opt-eq --level "$RVD" --levl=full
typo typo-cmd-opt --preset "$RVD" soak --presett tiny
typo typo-explain kfd.access "$RVD" explain kfd
has typo-explain "ids starting with 'kfd': kfd.access"
typo typo-explain-edit kfd.access "$RVD" explain kfd.acess
typo typo-preset pi0 "$RVD" bench --preset PI0 --backend cpu
typo typo-only kfd.access "$RVD" --only gpu.vram,kfd.acess --sysroot tests/cli-roots/named
# a word nothing is near gets no guess
t typo-far 2 "$RVD" frobnicate
if grep -q "did you mean" "$D/typo-far.out"; then
    fail=$((fail + 1))
    echo "FAIL cli typo-far: a guess for a word nothing is near"
else
    pass=$((pass + 1))
fi
# an interrupted check says which probe was running (a Python that sleeps
# holds the python probe while the signal comes)
printf '#!/bin/sh\nsleep 3\n' >"$D/slowpy"
chmod +x "$D/slowpy"
"$RVD" --python "$D/slowpy" >/dev/null 2>"$D/int-probe.out" &
ipid=$!
sleep 1
kill -TERM $ipid
wait $ipid
rc=$?
if [ "$rc" = 143 ] && grep -q "check interrupted by SIGTERM;.*; the probe python was running$" "$D/int-probe.out"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL cli int-probe: exit $rc (want 143), stderr names no probe"
    sed 's/^/    /' "$D/int-probe.out" | head -5
fi
t missing-sysroot 2 "$RVD" --sysroot /nonexistent/dir
has missing-sysroot "cannot use sysroot '/nonexistent/dir'"

# malformed checks.yaml: file:line:col and exit 2
bad() { # bad NAME LINE:COL TEXT
    printf '%s' "$3" >"$D/$1.yaml"
    t "$1" 2 "$RVD" list --checks "$D/$1.yaml"
    has "$1" "$D/$1.yaml:$2: "
}
bad yaml-syntax 4:1 'schema: rocm-vla-doctor-checks/1
checks:
  - id: [unclosed
'
bad yaml-unknown-key 9:5 'schema: rocm-vla-doctor-checks/1
checks:
  - id: a.b
    title: t
    level: quick
    why: w
    pass:
      summary: ok
    wehn: typo
'
bad yaml-bad-rule 7:28 'schema: rocm-vla-doctor-checks/1
checks:
  - id: a.b
    title: t
    level: quick
    fail:
      - when: "gpu.count > > 1"
        summary: s
        fix: f
    why: w
    pass:
      summary: ok
'
bad yaml-dup-id 8:5 'schema: rocm-vla-doctor-checks/1
checks:
  - id: a.b
    title: t
    level: quick
    why: w
    pass: {summary: ok}
  - id: a.b
    title: t
    level: quick
    why: w
    pass: {summary: ok}
'
bad yaml-no-fix 3:5 'schema: rocm-vla-doctor-checks/1
checks:
  - id: a.b
    title: t
    level: quick
    why: w
    warn: [{when: "true", summary: s}]
    pass: {summary: ok}
'
bad yaml-bad-level 3:5 'schema: rocm-vla-doctor-checks/1
checks:
  - id: a.b
    title: t
    level: sometimes
    why: w
    pass: {summary: ok}
'
bad yaml-bad-id 3:5 'schema: rocm-vla-doctor-checks/1
checks:
  - id: A.B
    title: t
    level: quick
    why: w
    pass: {summary: ok}
'
bad yaml-schema 1:9 'schema: something-else/9
checks: []
'
bad yaml-not-mapping 1:1 '- just
- a list
'
t yaml-missing 2 "$RVD" list --checks "$D/does-not-exist.yaml"
has yaml-missing "cannot read checks file .*No such file or directory"
printf '\000\001\002binary' >"$D/yaml-binary.yaml"
t yaml-binary 2 "$RVD" list --checks "$D/yaml-binary.yaml"

# a tightened threshold takes effect without a rebuild, and an undecidable
# rule skips instead of passing
cat >"$D/custom.yaml" <<'YAML'
schema: rocm-vla-doctor-checks/1
checks:
  - id: host.named
    title: host has a name
    level: quick
    fail:
      - when: "host.hostname == \"\""
        summary: empty
        fix: name it
    pass: {summary: "named {host.hostname}"}
    why: test
  - id: test.unknown
    title: reads a fact no probe of this level produces
    level: quick
    fail:
      - when: "gpu.sync.launch_us.p50 > 1"
        summary: cannot happen
        fix: none
    pass: {summary: must not pass}
    why: test
  - id: test.always_fails
    title: a failing rule gives exit 1
    level: quick
    fail:
      - when: "1 < 2"
        summary: "fails by design"
        fix: "nothing"
    pass: {summary: no}
    why: test
  - id: test.warns
    title: a warning alone gives exit 0, or 1 with --strict
    level: quick
    warn:
      - when: "true"
        summary: "warns by design"
        fix: "nothing"
    pass: {summary: no}
    why: test
  - id: test.standard_only
    title: not run at quick level
    level: standard
    pass: {summary: ran}
    why: test
YAML
mkdir -p tests/cli-roots/empty 2>/dev/null
t custom 1 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named --no-color
has custom "^\[--\] test.unknown +cannot tell: no probe produced gpu.sync.launch_us.p50"
has custom "^\[XX\] test.always_fails +fails by design"
has custom "^ +fix: nothing"
has custom "^\[ok\] host.named +named fixture-host"
has custom "1 passed, 1 warning, 1 failed, 1 skipped"
t custom-only-warn 0 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named --only test.warns
t custom-strict 1 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named --only test.warns --strict
t custom-prefix 1 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named --only test.
has custom-prefix "test.standard_only"
t custom-standard 1 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named --level standard
has custom-standard "test.standard_only +ran"
NO_COLOR=1 t custom-ascii 1 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named
if grep -q "$(printf '\033')" "$D/custom-ascii.out"; then
    fail=$((fail + 1)); echo "FAIL cli custom-ascii: escape codes in non-tty output"
else
    pass=$((pass + 1))
fi
t verbose 1 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named -v --only host.named,test.always_fails
has verbose "host.hostname = fixture-host +\[/proc/sys/kernel/hostname\]"
t json-unwritable 2 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/named --json /nonexistent/dir/x.json

# the sysroot cannot be escaped through symlinks
t escape 0 "$RVD" --checks "$D/custom.yaml" --sysroot tests/cli-roots/escape --only host.named -v
has escape "host.hostname = inside"

# truncated and unreadable sysfs files: unknown facts, skip with the reason,
# never a pass and never 0
rm -rf "$D/trunc" && cp -r tests/fixtures/rx7900xtx-desktop/root "$D/trunc"
gdir="$D/trunc/sys/devices/pci0000:80/0000:80:01.1/0000:84:00.0/0000:85:00.0/0000:86:00.0"
: >"$gdir/mem_info_vram_total"                       # truncated to nothing
printf 'garbage\n' >"$gdir/mem_info_vis_vram_total"   # not a number
rm -f "$D/trunc/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties"
printf '13 /sys/bus/pci/devices/0000:86:00.0/gpu_busy_percent\n' >>"$D/trunc/.snapshot/read-errors"
t trunc 0 env COLUMNS=250 "$RVD" --sysroot "$D/trunc" --no-color --only gpu.vram,gpu.large_bar,gpu.idle -v
has trunc "^\[--\] gpu.vram +cannot tell: gpu.0.vram_bytes is unknown"
has trunc "^\[--\] gpu.large_bar +cannot tell: gpu.0.vis_vram_bytes is unknown"
has trunc "^\[--\] gpu.idle +cannot tell: gpu.0.busy_percent is unknown \(.*Permission denied\)"
if grep -q "= 0 " "$D/trunc.out"; then
    fail=$((fail + 1)); echo "FAIL cli trunc: an unreadable value shows as 0"
else
    pass=$((pass + 1))
fi

# the support matrix is looked up by exact release first: gfx1101 arrived
# in a 6.4 point release, so 6.4.0 fails and 6.4.2 passes
for v in 6.4.0:fail 6.4.2:pass; do
    ver=${v%%:*}
    want=${v#*:}
    rm -rf "$D/m$ver" && cp -r tests/fixtures/rx7800xt-override/root "$D/m$ver"
    rm -rf "$D/m$ver/opt/rocm-5.7.1" "$D/m$ver/opt/rocm-6.1.0" "$D/m$ver/opt/rocm"
    mkdir -p "$D/m$ver/opt/rocm-$ver/.info"
    echo "$ver-1" >"$D/m$ver/opt/rocm-$ver/.info/version"
    ln -s "rocm-$ver" "$D/m$ver/opt/rocm"
    "$RVD" --sysroot "$D/m$ver" --only gpu.gfx_supported --no-color >"$D/m$ver.out" 2>&1
    if [ "$want" = fail ]; then re='^\[XX\] gpu.gfx_supported +gfx1101 is not on ROCm 6.4'; else re='^\[ok\] gpu.gfx_supported +gfx1101 is supported'; fi
    if grep -Eq "$re" "$D/m$ver.out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL cli matrix $ver: want $want"; head -5 "$D/m$ver.out"
    fi
done

# ---- the option tables (src/core/parse_options.h) -----------------------------
# every command refuses every option of the others' tables that its own
# lacks: exit 2, one message naming the option (and the command; check is
# the default command and has no prefix), nothing run. The lists come from
# the tables themselves (the hidden __complete-table), so a new option or
# command is covered without editing this.
"$RVD" __complete-table | sed -n 's/^    \([a-z]*\)) echo "\(.*\)" ;;$/\1 \2/p' >"$D/tables"
[ "$(wc -l <"$D/tables")" -ge 11 ] && pass=$((pass + 1)) || {
    fail=$((fail + 1)); echo "FAIL cli tables: __complete-table lists $(wc -l <"$D/tables") commands"
}
all=$(cut -d' ' -f2- "$D/tables" | tr ' ' '\n' | LC_ALL=C sort -u)
while read -r cmd opts; do
    pre="$cmd: "
    [ "$cmd" = check ] && pre=""
    for o in $all; do
        case " $opts " in *" $o "*) continue ;; esac
        # an abbreviation of one of its own options is that option
        case " $opts " in *" $o"[a-z-]*) continue ;; esac
        "$RVD" "$cmd" "$o" >"$D/foreign.out" 2>"$D/foreign.err"
        rc=$?
        if [ $rc = 2 ] && [ ! -s "$D/foreign.out" ] &&
            head -1 "$D/foreign.err" | grep -qxF "rocm-vla-doctor: error: ${pre}unknown option '$o'"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1)); echo "FAIL cli foreign: $cmd $o: exit $rc, $(head -1 "$D/foreign.err")"
        fi
    done
    # --help exits 0 and lists every option of the table
    "$RVD" "$cmd" --help >"$D/help.$cmd" 2>&1
    rc=$?
    missing=""
    for o in $opts; do
        case $o in
        --*) grep -Eq -- "^ +(-[a-z], )?$o( |\[|$)" "$D/help.$cmd" || missing="$missing $o" ;;
        *) grep -Eq -- "^ +$o, --" "$D/help.$cmd" || missing="$missing $o" ;;
        esac
    done
    if [ $rc = 0 ] && [ -z "$missing" ] && grep -q "^usage: rocm-vla-doctor .*$cmd" "$D/help.$cmd"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL cli help: $cmd --help: exit $rc, lacks$missing"
    fi
done <"$D/tables"
# the issue's cases: options of check given to list and explain
t list-foreign 2 "$RVD" list --junit "$D/l.xml" --level full --gpu 1
has list-foreign "^rocm-vla-doctor: error: list: unknown option '--junit'$"
t explain-foreign 2 "$RVD" explain gpu.vram --json "$D/e.json"
has explain-foreign "^rocm-vla-doctor: error: explain: unknown option '--json'$"
# one message for a bad --dtype, word for word, from every command taking it
n=0
: >"$D/dtype.all"
while read -r cmd opts; do
    case " $opts " in *" --dtype "*) ;; *) continue ;; esac
    n=$((n + 1))
    "$RVD" "$cmd" --dtype x 2>&1 >/dev/null | head -1 >>"$D/dtype.all"
done <"$D/tables"
if [ "$n" -ge 4 ] && [ "$(LC_ALL=C sort -u "$D/dtype.all")" = "rocm-vla-doctor: error: --dtype must be bf16, fp16 or fp32, not 'x'" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL cli dtype: $n commands, messages: $(LC_ALL=C sort -u "$D/dtype.all" | tr '\n' '|')"
fi

echo "$pass passed, $fail failed"
