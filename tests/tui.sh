#!/bin/sh
# tui.sh - the dashboard: `dashboard --once` frames of fixture machines (GPU
# panels, unknown drawn as "?", the checklist's marks agree with every
# fixture's expected statuses), small terminal sizes, usage errors, and the
# real ncurses path on a pseudo-terminal (script(1)): one frame, 'q', SIGWINCH
# and SIGTERM, the terminal restored each time. The workload panel
# (--workload tiny: the reference pass on the CPU backend in the isolated
# child): its figures, '?' for what has no value, the one-line form, usage.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
# ASCII frames (the UTF-8 box drawing has its own cases in tests/tui_screen.sh)
LC_ALL=C
export LC_ALL
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/tui"
rm -rf "$D" && mkdir -p "$D"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL tui $*"
}
# has FILE REGEX [COUNT]: FILE matches REGEX (COUNT times when given; panels
# side by side match more than once per line)
has() {
    n=$(grep -Eo -- "$2" "$1" | wc -l)
    if [ $# -ge 3 ]; then
        if [ "$n" -eq "$3" ]; then ok; else bad "$(basename "$1"): /$2/ $n times, want $3"; fi
    elif [ "$n" -gt 0 ]; then
        ok
    else
        bad "$(basename "$1"): no line matches /$2/"
        sed 's/^/    /' "$1" | head -8
    fi
}
lacks() {
    if grep -Eq -- "$2" "$1"; then bad "$(basename "$1"): unexpected /$2/: $(grep -E -- "$2" "$1" | head -1)"; else ok; fi
}
# once NAME WANT_EXIT ARGS...: dashboard --once, stdout in $D/NAME.out
once() {
    o_name=$1
    o_want=$2
    shift 2
    "$RVD" dashboard --once "$@" >"$D/$o_name.out" 2>"$D/$o_name.err"
    o_rc=$?
    if [ "$o_rc" = "$o_want" ]; then
        ok
    else
        bad "$o_name: exit $o_rc, want $o_want: $(head -2 "$D/$o_name.err")"
    fi
}
FX=tests/fixtures
# the title names the GPU from the fixture's pci.ids where libpci is built
# in (src/core/pci_names.c); without it the ids alone
N31_NAME=
"$RVD" --sysroot $FX/rx7900xtx-desktop/root --only gpu.present --json /dev/stdout 2>/dev/null |
    grep -q '"gpu.0.pci_name": "Navi 31' && N31_NAME='  Navi 31 \[Radeon RX 7900 XT/7900 XTX\]'

# ---- the MI300X node: 8 panels of 192 GiB, every check passes ------------
once mi300x 0 --sysroot $FX/mi300x-node/root --size 64x100
has "$D/mi300x.out" '\+- GPU [0-7]  gfx942  0000:[0-9a-f]{2}:00\.0 -' 8
lacks "$D/mi300x.out" 'GPU 8'
has "$D/mi300x.out" 'VRAM 0\.3/192\.0 GiB  GTT \?/\? GiB' 8
has "$D/mi300x.out" 'PCIe 32\.0/32\.0 x16/x16 path x16 32\.0 replays 0 ' 8
has "$D/mi300x.out" 'edge 38/100  jct 41/110  mem 36/95 C' 8
has "$D/mi300x.out" 'power 147/750 W  busy 0 %  fan \? rpm' 8
# the DPM levels (pp_dpm_sclk/mclk synthesized for the derived peaks): now [min-max]
has "$D/mi300x.out" 'sclk 2100 MHz \[500-2100\]  mclk 1300 \[900-1300\]' 8
# one sample: one column of each plot
has "$D/mi300x.out" '\| power\| +-\| 147\.\.147 W' 8
has "$D/mi300x.out" '\| sclk \| +-\| 2100\.\.2100 MHz' 8
has "$D/mi300x.out" 'checks \(quick\): [0-9]+ pass, 0 warn, 0 fail, [0-9]+ skip'
# the skip comes first (nothing fails), then the passes
has "$D/mi300x.out" '^\| \[--\] python\.requirements '
# the key hints first (they survive any width), then the scroll position
# and the refresh times (cut at 100 columns)
has "$D/mi300x.out" '^q quit \? help p procs Enter fix  \[1-8 of [0-9]+ checks\]  checks [0-9]{2}:[0-9]{2}:[0-9]{2} \([0-9.]+ s\)  telemetry [0-9:]{8} ev'
if [ "$(wc -l <"$D/mi300x.out")" -eq 64 ]; then ok; else bad "mi300x: not 64 lines"; fi
# without --size: tall enough for every panel and every check
once mi300x-auto 0 --sysroot $FX/mi300x-node/root
has "$D/mi300x-auto.out" '^\| \[(ok|--)\] ' "$("$RVD" list | awk '$2 == "quick" { n++ } END { print n }')"
has "$D/mi300x-auto.out" '\+- GPU 7 ' 1

# ---- the RX 7900 XTX desktop: the slot at x8, failing checks in red --------
once rx7900 0 --sysroot $FX/rx7900xtx-desktop/root --size 60x100 \
    --requirements $FX/rx7900xtx-desktop/requirements.txt
has "$D/rx7900.out" '^\+- GPU 0  gfx1100  0000:86:00\.0'"$N31_NAME"' -' 1
# the GPU's own link (pp_dpm_pcie) runs x16; the slot's x8 upstream is
# what pcie.link finds on the way to the root port
has "$D/rx7900.out" 'PCIe 16\.0/16\.0 x16/x16 path x8! 16\.0 replays \? LIMITED at 0000:84:00\.0'
has "$D/rx7900.out" 'power 68/290 W  busy 3 %  fan 0 rpm'
has "$D/rx7900.out" 'VRAM 0\.6/24\.0 GiB'
# RDNA3's pp_dpm_sclk: the current clock (31) between the DPM range's ends
has "$D/rx7900.out" 'sclk 31 MHz \[500-2219\]  mclk 1249 \[96-1249\]'
has "$D/rx7900.out" 'edge 53/100  jct 61/110  mem 68/108 C'
has "$D/rx7900.out" '^\| \[XX\] pcie\.link +link trained at x8 where x16 is possible'
has "$D/rx7900.out" '^\| \[XX\] pcie\.atomics '
has "$D/rx7900.out" '^\| \[XX\] kfd\.access '
has "$D/rx7900.out" '^\| \[!!\] kernel\.dmesg '
has "$D/rx7900.out" '^\| \[XX\] python\.requirements '
has "$D/rx7900.out" 'robo-desk'

# ---- every fixture: the checklist agrees with the expected statuses --------
for dir in $FX/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/expected" ] || continue
    root="$dir/root"
    [ -d "$root" ] || root="$dir/snapshot.tar.gz"
    set --
    if [ -f "$dir/args" ]; then
        while IFS= read -r a; do
            [ -n "$a" ] && set -- "$@" "$(printf '%s' "$a" | sed "s|@FIX@|$dir|g")"
        done <"$dir/args"
    fi
    once "fx-$name" 0 --sysroot "$root" --size 120x160 "$@"
    # "[XX] id" -> "id fail", as in the expected file
    # (the checklist lists what did not pass first: compared sorted)
    sed -n 's/^| \[\(..\)\] \([a-z0-9_.]*\) .*/\2 \1/p' "$D/fx-$name.out" |
        sed 's/ ok$/ pass/; s/ !!$/ warn/; s/ XX$/ fail/; s/ --$/ skip/; s/ ER$/ error/; s/ TO$/ timeout/' |
        sort >"$D/fx-$name.got"
    # the third field (the deciding rule) is not on the dashboard
    grep -E '^[a-z0-9_.]+ (pass|warn|fail|skip|error|timeout)( [^ ]+)?$' "$dir/expected" |
        awk '{ print $1, $2 }' | sort >"$D/fx-$name.want"
    if [ -s "$D/fx-$name.want" ] && diff -u "$D/fx-$name.want" "$D/fx-$name.got" >"$D/fx-$name.diff"; then
        ok
    else
        bad "$name: checklist differs from $dir/expected"
        sed 's/^/    /' "$D/fx-$name.diff" | head -10
    fi
    # one panel per AMD GPU of the check's JSON report, each value a
    # number or "?"
    n=$("$RVD" --sysroot "$root" --json - "$@" 2>/dev/null |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["facts"].get("gpu.count") or 0)')
    has "$D/fx-$name.out" '\+- GPU [0-9]+  ' "$n"
    has "$D/fx-$name.out" 'busy ([0-9]+|\?) %  fan ([0-9]+|\?) rpm' "$n"
    has "$D/fx-$name.out" 'VRAM ([0-9.]+|\?)/([0-9.]+|\?) GiB  GTT ([0-9.]+|\?)/([0-9.]+|\?) GiB' "$n"
    has "$D/fx-$name.out" 'PCIe ([0-9.]+|\?)/([0-9.]+|\?) x([0-9]+|\?)/x([0-9]+|\?) path x([0-9]+|\?)!? ([0-9.]+|\?) replays ([0-9]+|\?)' "$n"
done
has "$D/fx-no-gpu-server.out" '^no GPU \(gpu\.count = 0; NVML not asked\)'
# the sensor that decided gpu.thermal is in the checklist and in the panel
has "$D/fx-rx7800xt-hot-edge.out" '^\| \[XX\] gpu\.thermal +edge 96 °C is within 5 °C of its limit 100 °C'
has "$D/fx-rx7800xt-hot-edge.out" 'edge 96/100  jct 104/110  mem 90/108 C'

# a tarball sysroot (what collect writes) gives the same frame as its tree
if [ -f $FX/this-machine/snapshot.tar.gz ]; then
    once tarball 0 --sysroot $FX/this-machine/snapshot.tar.gz --size 60x120
    has "$D/tarball.out" '^\+- checks \(quick\): '
fi

# ---- unknown values: '?' with the file missing or garbage, never 0 ---------
U="$D/root-unknown"
cp -a $FX/rx7900xtx-desktop/root "$U"
G="$U/sys/devices/pci0000:80/0000:80:01.1/0000:84:00.0/0000:85:00.0/0000:86:00.0"
rm -f "$G/gpu_busy_percent" "$G/mem_info_vram_used" "$G/pp_dpm_sclk"
printf 'garbage\n' >"$G/pp_dpm_mclk"
printf '0: 96Mhz\n1: 456Mhz\n' >"$G/pp_dpm_pcie"
rm -f "$G"/hwmon/hwmon*/power1_average "$G"/hwmon/hwmon*/temp1_input
once unknown 0 --sysroot "$U" --size 40x100
has "$D/unknown.out" 'power \?/290 W  busy \? %'
has "$D/unknown.out" 'VRAM \?/24\.0 GiB'
has "$D/unknown.out" 'edge \?/100  jct 61/110  mem 68/108 C'
has "$D/unknown.out" 'sclk \? MHz \[\?-\?\]  mclk \? \[\?-\?\]'
# pp_dpm_pcie without a marked level: the link files instead
has "$D/unknown.out" 'PCIe 16\.0/16\.0 x16/x16'
# unknown history is a gap with no scale, never a bar at 0
has "$D/unknown.out" '^\| busy \| +\| \? \(unknown\)'
has "$D/unknown.out" '^\| jct  \| +-\| 61\.0\.\.61\.0 C'
# the throttle reasons and the process list unknown: "?" in the panel, the
# reason in the help screen (tests/tui_screen.sh), never raw errno text here
once mi250x 0 --sysroot $FX/mi250x-degraded/root --size 40x120
has "$D/mi250x.out" '^\| throttle \? +\|\| throttle \? +\|$'
lacks "$D/mi250x.out" 'No such file|not readable'

# ---- the key hints: the first thing on the last row, whatever the size ------
for size in 24x80 20x60 10x40; do
    once "hints-$size" 0 --sysroot $FX/mi250x-degraded/root --size "$size"
    if tail -1 "$D/hints-$size.out" | grep -Eq '^q quit \? help p procs Enter fix'; then
        ok
    else
        bad "hints-$size: last row '$(tail -1 "$D/hints-$size.out")'"
    fi
done

# ---- small and odd sizes: never wider or taller than asked ----------------
for size in 10x40 24x80 3x20 1x10 5x200; do
    rows=${size%x*}
    cols=${size#*x}
    once "size-$size" 0 --sysroot $FX/mi300x-node/root --size "$size"
    lines=$(wc -l <"$D/size-$size.out")
    # one column per character: the degree sign is two bytes
    wide=$(sed "s/$(printf '\302\260')/o/g" "$D/size-$size.out" |
        awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
    if [ "$lines" -eq "$rows" ] && [ "$wide" -le "$cols" ]; then
        ok
    else
        bad "size $size: $lines lines, widest $wide"
    fi
done
has "$D/size-24x80.out" '^GPU[0-7] 0000:[0-9a-f]{2}:00\.0 0% 147W 41C 2100MHz VRAM 0\.3/192G PCIe 32\.0x16 path x16$' 8
has "$D/size-10x40.out" '^GPU[0-2] 0000:[0-9a-f]{2}:00\.0 0% 147W' 3
has "$D/size-10x40.out" '^\| \[(ok|--)\] ' 3

# ---- the workload panel: the tiny pass on the CPU backend -------------------
# (this host: no --sysroot; the CPU backend runs when there is no GPU)
once wl-tiny 0 --workload tiny --size 40x110
W="$D/wl-tiny.out"
has "$W" '^\+- workload tiny  [a-z]+: .+  (fp32|bf16|fp16) -' 1
has "$W" '^\| total p50 [0-9]+\.?[0-9]* ms  p99 [0-9]+\.?[0-9]* ms  budget ' 1
has "$W" '^\| vision [0-9.]+ ms  prefix [0-9.]+ ms  denoising step [0-9.]+ ms' 1
has "$W" '^\| control rate [0-9.]+ Hz  needs ' 1
# the latency history on the telemetry's time axis: one sample so far
has "$W" '^\| p50  \| +[_.,=+*#-]\| [0-9.]+\.\.[0-9.]+ ms' 1
has "$W" '^\| p99  \| +[_.,=+*#-]\| [0-9.]+\.\.[0-9.]+ ms' 1
has "$W" '^\| last run [0-9]{2}:[0-9]{2}:[0-9]{2} \([0-9.]+ s\), every 5 s' 1
# measured figures are never a made-up 0
lacks "$W" '(p50|p99|vision|prefix|step|rate) 0(\.0+)? '
if grep -q 'cpu: host CPU' "$W"; then
    # on the CPU backend the pass is a self-test (vla.selftest): no budget
    # of the competition applies, so '?' with the checks' reasons
    has "$W" 'budget \?  \[--\] vla\.latency\.total: no GPU: ' 1
    has "$W" 'needs \?  \[--\] vla\.control_rate: no GPU: ' 1
    lacks "$W" '\[ok\] vla\.latency\.total'
else
    # on a GPU the competition budget (80 ms for every preset but lingbot-v2)
    has "$W" 'budget 80 ms  \[(ok|XX)\] vla\.latency\.total' 1
fi
# a budget from a --checks file with other figures is followed (on a GPU); on
# the CPU a --checks file does not turn the self-test into a judged latency
sed 's/vla.latency.total_ms > 80/vla.latency.total_ms > 1234.5/' checks.yaml >"$D/checks-wl.yaml"
once wl-checks 0 --workload tiny --checks "$D/checks-wl.yaml" --size 40x110
if grep -q 'cpu: host CPU' "$D/wl-checks.out"; then
    has "$D/wl-checks.out" 'budget \?  \[--\] vla\.latency\.total: no GPU: ' 1
else
    has "$D/wl-checks.out" 'budget 1234\.5 ms' 1
fi
# pi0 without a GPU: pi0 does not run, the tiny self-test does (with its
# figures) and the budget lines say that pi0 did not run; on a GPU pi0 runs
once wl-pi0 0 --workload pi0 --size 40x110
if grep -q 'no AMD GPU' "$D/wl-pi0.out" && grep -q 'cpu: host CPU' "$D/wl-pi0.out"; then
    has "$D/wl-pi0.out" '^\+- workload tiny  cpu: host CPU' 1
    has "$D/wl-pi0.out" '^\| total p50 [0-9.]+ ms  p99 [0-9.]+ ms  budget \?  \[--\] vla\.latency\.total: no GPU: pi0 did not run' 1
    lacks "$D/wl-pi0.out" '(p50|p99|rate) 0(\.0+)? '
else
    has "$D/wl-pi0.out" '^\+- workload pi0  (cuda|hip): ' 1
    has "$D/wl-pi0.out" '^\| total p50 [0-9.]+ ms  p99 [0-9.]+ ms  budget 80 ms' 1
fi
# a small terminal: the panel is one line
once wl-small 0 --workload tiny --size 8x80
has "$D/wl-small.out" '^VLA tiny [a-z]+ p50 [0-9.]+ p99 [0-9.]+ ms [0-9.]+ Hz  last [0-9:]{8}' 1
lacks "$D/wl-small.out" '.{81}'
once wl-sysroot 2 --workload tiny --sysroot $FX/mi300x-node/root
has "$D/wl-sysroot.err" "--workload runs the pass on this host; --sysroot does not apply"
once wl-dtype 2 --dtype bf16
has "$D/wl-dtype.err" "--dtype and --workload-interval apply to --workload only"
once wl-bad-dtype 2 --workload tiny --dtype fp8
has "$D/wl-bad-dtype.err" "--dtype must be bf16, fp16 or fp32, not 'fp8'"
once wl-interval 2 --workload tiny --workload-interval 0
has "$D/wl-interval.err" "--workload-interval must be an integer in .1, 3600. seconds, not '0'"

# ---- usage ----------------------------------------------------------------
once bad-interval 2 --interval 5
has "$D/bad-interval.err" "--interval must be an integer in .100, 60000. milliseconds, not '5'"
once bad-size 2 --size 10by40
has "$D/bad-size.err" "--size must be ROWSxCOLS"
once bad-flag 2 --bogus
has "$D/bad-flag.err" "unknown option '--bogus'"
once bad-arg 2 extra
has "$D/bad-arg.err" "dashboard takes no arguments"
once bad-sysroot 2 --sysroot /nonexistent/root
has "$D/bad-sysroot.err" "cannot use sysroot '/nonexistent/root'"
"$RVD" dashboard --size 10x40 >"$D/size-live.out" 2>&1
if [ $? -eq 2 ]; then ok; else bad "--size without --once: not a usage error"; fi
"$RVD" dashboard --help >"$D/help.out" 2>&1
if [ $? -eq 0 ]; then ok; else bad "dashboard --help failed"; fi
has "$D/help.out" '^usage: rocm-vla-doctor dashboard '
"$RVD" --help >"$D/main-help.out" 2>&1
has "$D/main-help.out" 'rocm-vla-doctor dashboard '
# the live view without a terminal says so instead of garbling a pipe
"$RVD" dashboard --sysroot $FX/mi300x-node/root </dev/null >"$D/notty.out" 2>&1
if [ $? -eq 2 ]; then ok; else bad "live dashboard without a terminal: not exit 2"; fi
has "$D/notty.out" "dashboard needs a terminal; use --once"

# ---- the ncurses path on a pseudo-terminal ----------------------------------
# script(1) gives the dashboard a pty; input 'q' after a second. Then a
# SIGWINCH to a smaller size and a SIGTERM. Each must end with exit 0 and
# the terminal restored (rmcup, ESC [?1049l for TERM=xterm).
if command -v script >/dev/null 2>&1 && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
    (sleep 1; printf q) | TERM=xterm timeout 10 script -qec \
        "stty rows 30 cols 100; $RVD dashboard --sysroot $FX/rx7900xtx-desktop/root --interval 200; echo rc=\$?" \
        /dev/null >"$D/live-q.out" 2>&1
    has "$D/live-q.out" 'rc=0'
    has "$D/live-q.out" 'x16/x16 path x8! 16\.0 replays'
    has "$D/live-q.out" 'pcie\.link'
    has "$D/live-q.out" "$(printf '\033')\\[\\?1049l"
    TERM=xterm timeout 10 script -qec "sh -c 'stty rows 30 cols 100; \
        $RVD dashboard --sysroot $FX/mi300x-node/root --interval 200 </dev/tty & p=\$!; \
        sleep 1; stty rows 20 cols 60; kill -WINCH \$p; sleep 0.5; kill -TERM \$p; \
        wait \$p; echo rc=\$?'" /dev/null </dev/null >"$D/live-sig.out" 2>&1
    has "$D/live-sig.out" 'rc=0'
    # after the resize, 8 GPUs no longer fit as panels in 20x60: one line each
    has "$D/live-sig.out" 'GPU7 0000:f5:00\.0 '
    has "$D/live-sig.out" "$(printf '\033')\\[20;1H[^q]*q quit \\? help p procs"
    has "$D/live-sig.out" '\[1-[0-9]+ of [0-9]+ checks\]'
    has "$D/live-sig.out" "$(printf '\033')\\[\\?1049l"
    # the workload panel live: runs every second while the UI stays responsive
    # ('q' after 2.5 s quits at once), then a SIGTERM while the first run may
    # still be going: exit 0, terminal restored, no helper left behind
    (sleep 2.5; printf q) | TERM=xterm timeout 20 script -qec \
        "stty rows 30 cols 100; $RVD dashboard --workload tiny --workload-interval 1 --interval 200; echo rc=\$?" \
        /dev/null >"$D/live-wl.out" 2>&1
    has "$D/live-wl.out" 'rc=0'
    has "$D/live-wl.out" 'workload tiny'
    has "$D/live-wl.out" "$(printf '\033')\\[\\?1049l"
    TERM=xterm timeout 20 script -qec "sh -c 'stty rows 30 cols 100; \
        $RVD dashboard --workload tiny --workload-interval 3599 </dev/tty & p=\$!; \
        sleep 0.3; kill -TERM \$p; wait \$p; echo rc=\$?; sleep 0.5; \
        echo left=\$(pgrep -f -- \"^$RVD dashboard --workload tiny --workload-interval 3599\" | wc -l)'" /dev/null </dev/null >"$D/live-wl-sig.out" 2>&1
    has "$D/live-wl-sig.out" 'rc=0'
    has "$D/live-wl-sig.out" 'left=0'
    has "$D/live-wl-sig.out" "$(printf '\033')\\[\\?1049l"
else
    echo "SKIP tui: no working script(1); the ncurses path is not exercised"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
