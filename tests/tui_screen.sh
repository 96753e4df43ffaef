#!/bin/sh
# tui_screen.sh - the live dashboard on a real terminal emulator (tmux):
# frames at 120x40, 80x24 and 40x10 on fixture sysroots (the failing checks
# visible in each, the fixture's telemetry values, the history plots after a
# few samples), the help screen, End after a resize, the mouse wheel, 'q'
# exits 0, TERM=dumb / unknown / unset and a non-terminal exit 2 with a
# message, UTF-8 box drawing only in a UTF-8 locale, and --record (asciicast
# v2) from the live view and from headless --frames; on the MI250X fixture
# the colour of values whose checks fail or warn, "?" with its reason in the
# help, the process table (p), a check's fix (Enter, Esc), the key hints
# at 60x20 and 80x24.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=tui_screen
. tests/lib.sh
D="$OUT/tui_screen"
rm -rf "$D" && mkdir -p "$D"
D_ABS=$(cd "$D" && pwd)
FX=tests/fixtures
# the title names the GPU from the fixture's pci.ids where libpci is built
# in (src/core/pci_names.c); without it the ids alone
N31_NAME=
"$RVD" --sysroot $FX/rx7900xtx-desktop/root --only gpu.present --json /dev/stdout 2>/dev/null |
    grep -q '"gpu.0.pci_name": "Navi 31' && N31_NAME='  Navi 31 \[Radeon RX 7900 XT/7900 XTX\]'
DESK=$FX/rx7900xtx-desktop/root
RVD_ABS=$(cd "$(dirname "$RVD")" && pwd)/$(basename "$RVD")

. tests/tui_lib.sh
# the quick level's check count: the list's positions below follow it, so
# a new check does not move every expectation by hand
NQ=$("$RVD" list | awk '$2 == "quick" { n++ } END { print n }')
# count FILE REGEX N: exactly N lines match
count() {
    n=$(grep -Ec -- "$2" "$1")
    if [ "$n" -eq "$3" ]; then ok; else bad "$(basename "$1"): /$2/ on $n lines, want $3"; fi
}

# ---- without a terminal emulator: headless parts ----------------------------
# not a tty: exit 2 (never 1: that means a failed check) and what to use
"$RVD" dashboard --sysroot $DESK </dev/null >"$D/notty.out" 2>&1
rc=$?
if [ $rc -eq 2 ]; then ok; else bad "not a tty: exit $rc, want 2"; fi
has "$D/notty.out" 'needs a terminal; use --once for a text frame, or monitor'

# UTF-8 box drawing and block plots only when the locale's codeset is UTF-8
if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
    LC_ALL=C.UTF-8 "$RVD" dashboard --sysroot $DESK --size 40x120 --frames 3 --interval 100 \
        --history 2 >"$D/utf8.out" 2>&1
    has "$D/utf8.out" '^┌─ GPU 0  gfx1100  0000:86:00\.0'"$N31_NAME"' ─'
    has "$D/utf8.out" '^│ power│ +▄▄▄│ 68\.0\.\.68\.0 W'
    lacks "$D/utf8.out" '^\+-'
else
    echo "SKIP tui_screen: no C.UTF-8 locale; the UTF-8 frame is not checked"
fi
LC_ALL=C "$RVD" dashboard --sysroot $DESK --size 40x120 --frames 3 --interval 100 --history 2 \
    >"$D/ascii.out" 2>&1
has "$D/ascii.out" '^\+- GPU 0  gfx1100  0000:86:00\.0'"$N31_NAME"' -'
# three samples: three columns of the flat series (the middle level), the
# scale is the fixture's value
has "$D/ascii.out" '^\| power\| +---\| 68\.0\.\.68\.0 W'
has "$D/ascii.out" '^\| jct  \| +---\| 61\.0\.\.61\.0 C'
has "$D/ascii.out" '^\| sclk \| +---\| 31\.0\.\.31\.0 MHz'
lacks "$D/ascii.out" '[^ -~]│'

# --record of headless frames: an asciicast v2 header, one event per changed
# frame, each the screen as text with the fixture's values
LC_ALL=C "$RVD" dashboard --sysroot $DESK --size 24x80 --frames 4 --interval 100 --history 2 \
    --record "$D/frames.cast" >/dev/null 2>"$D/frames.err"
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "--frames --record: exit $rc: $(head -2 "$D/frames.err")"; fi
# shellcheck disable=SC2016
if python3 - "$D/frames.cast" <<'PY'; then ok; else bad "frames.cast is not asciicast v2 with the frames"; fi
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head = json.loads(lines[0])
assert head["version"] == 2 and head["width"] == 80 and head["height"] == 24, head
ev = [json.loads(l) for l in lines[1:]]
assert len(ev) >= 1, ev
t = [e[0] for e in ev]
assert t == sorted(t) and all(e[1] == "o" for e in ev)
last = ev[-1][2]
assert last.startswith("\x1b[H\x1b[2J"), last[:20]
rows = last[len("\x1b[H\x1b[2J"):].split("\r\n")
assert len(rows) == 24, len(rows)
assert any("[XX] kfd.access" in r for r in rows), rows
assert any("GPU0 0000:86:00.0 3% 68W 61C 31MHz" in r for r in rows), rows
PY
# throttle reasons from the real RX 6900 XT gpu_metrics (v1_3): a bit set
# from the first sample is named apart (RDNA reports some permanently), a
# bit that turns on during the run is NEW
GPU=sys/devices/pci0000:80/0000:80:01.1/0000:84:00.0/0000:85:00.0/0000:86:00.0
setbits() { python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[112] = int(sys.argv[2]); open(sys.argv[1], "wb").write(b)' "$THR/$GPU/gpu_metrics" "$1"; }
THR="$D/thr-root"
cp -a $DESK "$THR"
cp tests/data/fixtures-real/amdgpu-sysfs-rs/rx6900xt/gpu_metrics "$THR/$GPU/gpu_metrics"
chmod u+w "$THR/$GPU/gpu_metrics"
LC_ALL=C "$RVD" dashboard --sysroot "$THR" --size 40x120 --once >"$D/thr-none.out" 2>&1
has "$D/thr-none.out" '^\| throttle none \(gpu_metrics 1\.3\)'
setbits 1
LC_ALL=C "$RVD" dashboard --sysroot "$THR" --size 40x120 --once >"$D/thr-start.out" 2>&1
has "$D/thr-start.out" '^\| throttle PPT0 set from start \(RDNA reports some bits permanently\)'
LC_ALL=C "$RVD" dashboard --sysroot "$THR" --size 40x120 --frames 15 --interval 100 \
    --record "$D/thr.cast" >"$D/thr-new.out" 2>&1 &
thr_pid=$!
# the bit turns on after the first frame (the header and one frame recorded)
i=0
while [ "$(cat "$D/thr.cast" 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
setbits 3
wait $thr_pid
has "$D/thr-new.out" '^\| throttle NEW PPT1; set from start PPT0 \(RDNA: permanent bits\)'

# the workload keeps running between headless frames (what the H200 run
# records): the p50/p99 plots fill, one column per sample
LC_ALL=C "$RVD" dashboard --workload tiny --workload-interval 1 --frames 8 --interval 250 \
    --history 2 --size 30x100 >"$D/wl-frames.out" 2>"$D/wl-frames.err"
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "--workload --frames: exit $rc: $(head -2 "$D/wl-frames.err")"; fi
has "$D/wl-frames.out" '^\| p50  \| +[_.,=+*#-]{8}\| [0-9.]+\.\.[0-9.]+ ms'
has "$D/wl-frames.out" '^\| p99  \| +[_.,=+*#-]{8}\| [0-9.]+\.\.[0-9.]+ ms'
"$RVD" dashboard --sysroot $DESK --once --record "$D/no-dir/x.cast" >/dev/null 2>"$D/rec-bad.err"
rc=$?
if [ $rc -eq 2 ]; then ok; else bad "--record into a missing directory: exit $rc, want 2"; fi
"$RVD" dashboard --sysroot $DESK --once --frames 2 >/dev/null 2>"$D/once-frames.err"
if [ $? -eq 2 ]; then ok; else bad "--once with --frames: not a usage error"; fi
has "$D/once-frames.err" "--once is --frames 1"
"$RVD" dashboard --sysroot $DESK --frames 0 >/dev/null 2>"$D/frames0.err"
if [ $? -eq 2 ]; then ok; else bad "--frames 0: not a usage error"; fi
"$RVD" dashboard --sysroot $DESK --history 0 >/dev/null 2>"$D/hist0.err"
if [ $? -eq 2 ]; then ok; else bad "--history 0: not a usage error"; fi
has "$D/hist0.err" "--history must be an integer in \[1, 3600\] seconds"

# ---- tmux ---------------------------------------------------------------------
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP tui_screen: no tmux; the live screen is not exercised"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi
tmux_begin
U8=LC_ALL=C.UTF-8
ARGS="--sysroot $PWD/$DESK --interval 100 --history 2"

# 120x40: the full panel with the fixture's values, the plots after a few
# samples, and all eight checks that fail or warn
start big 40 120 "$U8" "$ARGS"
if wait_for big big.txt '^│ power│ +▄▄▄' 'power 68/290 W  busy 3 %' 'edge 53/100  jct 61/110' \
    'PCIe 16\.0/16\.0 x16/x16 path x8!' '^│ jct  │ +▄▄▄+│' '^q quit \? help p procs Enter fix  \[1-23 of'; then ok; else bad "120x40: no power plot after a few samples"; fi
has "$D/big.txt" 'power 68/290 W  busy 3 %  fan 0 rpm'
has "$D/big.txt" 'sclk 31 MHz \[500-2219\]  mclk 1249 \[96-1249\]'
has "$D/big.txt" 'edge 53/100  jct 61/110  mem 68/108 C'
has "$D/big.txt" 'PCIe 16\.0/16\.0 x16/x16 path x8! 16\.0 replays \? LIMITED at 0000:84:00\.0'
has "$D/big.txt" '^│ jct  │ +▄▄▄+│ 61\.0\.\.61\.0 C'
count "$D/big.txt" '^│ \[(XX|!!)\] ' 8
# the key hints come first on the status line; the refresh times after them
has "$D/big.txt" '^q quit \? help p procs Enter fix  \[1-23 of '"$NQ"' checks\]  checks [0-9:]{8} \([0-9.]+ s\)  telemetry [0-9:]{8} every 100 ms'
# the help screen lists every key; any key closes it
T send-keys -t big '?'
# wait for the last key's line: under load the header is drawn before the rest
if wait_for big help.txt '^│   Left Right Tab 0-9 ' 'rocm-vla-doctor dashboard: help' '^│   \?  h  F1 '; then ok; else bad "'?' shows no help"; fi
has "$D/help.txt" 'rocm-vla-doctor dashboard: help'
for k in '\?  h  F1' 'q  Q' 'r  R' 'p  P' 'Up  Down' 'Enter' 'PgUp PgDn Home End' 'mouse wheel' \
    'Left Right Tab 0-9'; do
    has "$D/help.txt" "^│   $k "
done
T send-keys -t big x
if wait_for big after-help.txt 'power 68/290 W'; then ok; else bad "a key does not close the help"; fi
T send-keys -t big F1
if wait_for big help-f1.txt 'dashboard: help'; then ok; else bad "F1 shows no help"; fi
T send-keys -t big h
T send-keys -t big h
if wait_for big help-h.txt 'dashboard: help'; then ok; else bad "h shows no help"; fi
T send-keys -t big Escape
quit big

# 80x24: the GPU as one line, every failing check still on screen
start mid 24 80 "$U8" "$ARGS"
# (the GPU line shows before the checks have run: wait for the checks)
if wait_for mid mid.txt '^q quit [^[]*\[1-19 of '"$NQ"' checks\]' '^GPU0 0000:86:00\.0 3% 68W'; then ok; else bad "80x24: the checks never ran"; fi
has "$D/mid.txt" '^GPU0 0000:86:00\.0 3% 68W 61C 31MHz VRAM 0\.6/24G PCIe 16\.0x16 path x8!'
count "$D/mid.txt" '^│ \[(XX|!!)\] ' 8
has "$D/mid.txt" '^q quit [^[]*\[1-19 of '"$NQ"' checks\]'
# End, then a smaller terminal: still the end; the wheel scrolls 3 lines
T send-keys -t mid End
if wait_for mid end.txt '^q quit [^[]*\['"$((NQ - 18))"'-'"$NQ"' of '"$NQ"' checks\]'; then ok; else bad "End: not at the end"; fi
T resize-window -t mid -x 100 -y 20
if wait_for mid resized.txt '^q quit [^[]*\['"$((NQ - 14))"'-'"$NQ"' of '"$NQ"' checks\]'; then ok; else bad "End then resize: the end is no longer shown"; fi
has "$D/resized.txt" '^│ \[ok\] rocm\.kernel_userspace '
T resize-window -t mid -x 80 -y 24
if wait_for mid resized2.txt '^q quit [^[]*\['"$((NQ - 18))"'-'"$NQ"' of '"$NQ"' checks\]'; then ok; else bad "End then resize back: not at the end"; fi
# X10 mouse reports (what ncurses asks TERM=screen's tmux for): wheel up, then down
T send-keys -t mid -H 1b 5b 4d 60 2a 2a
if wait_for mid wheel-up.txt '^q quit [^[]*\['"$((NQ - 21))"'-'"$((NQ - 3))"' of '"$NQ"' checks\]'; then ok; else bad "wheel up: not 3 lines up"; fi
T send-keys -t mid -H 1b 5b 4d 61 2a 2a
if wait_for mid wheel-down.txt '^q quit [^[]*\['"$((NQ - 18))"'-'"$NQ"' of '"$NQ"' checks\]'; then ok; else bad "wheel down: not 3 lines down"; fi
T send-keys -t mid Home
if wait_for mid home.txt '^q quit [^[]*\[1-19 of '"$NQ"' checks\]'; then ok; else bad "Home: not at the top"; fi
quit mid

# 40x10: the failing checks still come first, as many as fit
start tiny 10 40 "$U8" "$ARGS"
# (pcie.atomics fails: the RX 7900 XTX's user space needs the atomics it lacks)
if wait_for tiny tiny.txt '^│ \[XX\] ' '^GPU0 0000:86:00\.0 3% 68W' '^│ \[XX\] pcie\.atomics '; then ok; else bad "40x10: the checks never ran"; fi
has "$D/tiny.txt" '^GPU0 0000:86:00\.0 3% 68W'
count "$D/tiny.txt" '^│ \[XX\] ' 5
has "$D/tiny.txt" '^│ \[XX\] pcie\.atomics '
lacks "$D/tiny.txt" '\[ok\]'
quit tiny

# ---- the MI250X with a hot junction: coloured values, '?' and its reason,
# the process table, a check's fix, the key hints at 60x20 -----------------
# fg FILE TEXT: the foreground colour (SGR 30-37, "default") of TEXT's first
# character in a `capture-pane -e` capture
fg() {
    python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
at = text.find(sys.argv[2])
colour = "default"
for m in re.finditer(r"\x1b\[([0-9;]*)m", text[:max(at, 0)]):
    for p in (m.group(1) or "0").split(";"):
        if p in ("0", "39"):
            colour = "default"
        elif p.isdigit() and 30 <= int(p) <= 37:
            colour = p
print(colour if at >= 0 else "absent")
PY
}
# is_fg FILE TEXT WANT
is_fg() {
    got=$(fg "$1" "$2")
    if [ "$got" = "$3" ]; then ok; else bad "$(basename "$1"): '$2' in colour $got, want $3"; fi
}
MI="--sysroot $PWD/$FX/mi250x-degraded/root --interval 100 --history 2"
start mi 30 100 "$U8" "$MI"
if wait_for mi mi.txt '\[XX\] gpu\.thermal'; then ok; else bad "mi250x: the checks never ran"; fi
T capture-pane -e -p -t mi >"$D/mi-e.txt"
# gpu.thermal fails on GPU 0 (jct 107/110): red; gpu.idle warns (busy 100):
# yellow; pcie.aer fails on GPU 0 (12 replays): red; the clocks: plain
is_fg "$D/mi-e.txt" 'edge 71/100  jct 107/110' 31
is_fg "$D/mi-e.txt" 'power ?/? W  busy 100 %' 33
is_fg "$D/mi-e.txt" 'PCIe 16.0/16.0 x16/x16 path x16 16.0 replays 1' 31
is_fg "$D/mi-e.txt" 'sclk ? MHz' default
# unknown: '?' in the panel, the reason in the help
has "$D/mi.txt" '^│ throttle \? +│'
lacks "$D/mi.txt" 'No such file'
T send-keys -t mi '?'
# wait for the reasons themselves: under load the frame is written in
# pieces, and its first line alone may be on the screen already
if wait_for mi mi-help.txt 'GPU 0 sclk_mhz, sclk_min_mhz' 'dashboard: help' 'GPU 0 throttle: gpu_metrics'; then ok; else bad "mi250x: no help"; fi
has "$D/mi-help.txt" 'dashboard: help'
has "$D/mi-help.txt" 'GPU 0 throttle: gpu_metrics: No such file or directory'
has "$D/mi-help.txt" 'GPU 0 sclk_mhz, sclk_min_mhz, sclk_max_mhz: pp_dpm_sclk: '
T send-keys -t mi x
# the process table: the fixture's python3 found through fdinfo and KFD
T send-keys -t mi p
if wait_for mi mi-procs.txt 'processes using the GPUs' '^│ PID +NAME +GPU' '^│ 41211 +python3 ' '^q quit \? help p procs'; then ok; else bad "'p' shows no process table"; fi
has "$D/mi-procs.txt" '^│ PID +NAME +GPU +PCI +VRAM +SOURCE'
has "$D/mi-procs.txt" '^│ 41211 +python3 +0 +0000:c1:00\.0 +48\.0 GiB +fdinfo\+kfd'
has "$D/mi-procs.txt" '^q quit \? help p procs Enter fix'
T send-keys -t mi p
if wait_for mi mi-back.txt 'jct 107/110'; then ok; else bad "'p' again: the panels do not come back"; fi
# the fix of the selected check (the first: gpu.thermal), then the next one
fix=$("$RVD" check --sysroot $FX/mi250x-degraded/root --json - 2>/dev/null |
    python3 -c 'import json, sys
c = [c for c in json.load(sys.stdin)["checks"] if c["id"] == "gpu.thermal"][0]
print(" ".join(c["fix"].split()[:4]))')
T send-keys -t mi Enter
if wait_for mi mi-fix.txt 'gpu\.thermal: fail \(Esc: back\)' '^│ fix +│' 'GPU 0: junction 107 °C'; then ok; else bad "Enter: no fix view"; fi
has "$D/mi-fix.txt" '^│ fix +│'
if [ -n "$fix" ] && grep -Fq -- "$fix" "$D/mi-fix.txt"; then ok; else bad "fix view: no '$fix'"; fi
has "$D/mi-fix.txt" 'GPU 0: junction 107 °C'
T send-keys -t mi Escape
if wait_for mi mi-esc.txt 'jct 107/110'; then ok; else bad "Esc: the panels do not come back"; fi
T send-keys -t mi Down Enter
# the second check of the list (failures first), whichever it is: not the first
if wait_for mi mi-fix2.txt '[a-z_]+\.[a-z_.]+: (fail|warn) \(Esc: back\)'; then ok; else bad "Down Enter: no fix view"; fi
lacks "$D/mi-fix2.txt" 'gpu\.thermal: fail \(Esc: back\)'
T send-keys -t mi Escape
quit mi
# a process name is the process's own choice: its escape sequence is shown
# as text, never sent to the terminal
H="$D_ABS/root-hostile"
cp -a "$FX/mi250x-degraded/root" "$H"
printf 'py\033[2Jthon\n' >"$H/proc/41211/comm"
start hostile 30 100 "$U8" "--sysroot $H --interval 100"
T send-keys -t hostile p
if wait_for hostile hostile.txt '^│ 41211 +py'; then ok; else bad "hostile name: no process row"; fi
has "$D/hostile.txt" '^│ 41211 +py\\x1b\[2Jthon +0 '
quit hostile
# 60x20 and 80x24: the hints on the last row
for size in 20x60 24x80; do
    start "mi$size" "${size%x*}" "${size#*x}" "$U8" "$MI"
    if wait_for "mi$size" "mi$size.txt" '\[XX\] gpu\.thermal'; then ok; else bad "$size: the checks never ran"; fi
    if tail -1 "$D/mi$size.txt" | grep -q '^q quit ? help p procs Enter fix'; then ok; else bad "$size: no key hints on the last row"; fi
    quit "mi$size"
done

# ASCII terminal: no box drawing characters
start plain 24 80 "LC_ALL=C" "$ARGS"
if wait_for plain plain.txt '^\+- checks \(quick\): [0-9]+ pass, [0-9]+ warn, [0-9]+ fail, [0-9]+ skip -'; then ok; else bad "C locale: no ASCII frame"; fi
lacks "$D/plain.txt" '[│┌─]'
quit plain

# --record from the live view: frames as they were drawn
start rec 24 80 "$U8" "$ARGS --record $D_ABS/live.cast"
wait_for rec rec.txt '^GPU0 gfx1100' >/dev/null
T send-keys -t rec End
wait_for rec rec-end.txt '^q quit [^[]*\['"$((NQ - 18))"'-'"$NQ"' of '"$NQ"' checks\]' >/dev/null
quit rec
if NQ=$NQ python3 - "$D/live.cast" <<'PY'; then ok; else bad "live.cast: not the frames drawn"; fi
import json, os, sys
n = int(os.environ["NQ"])
lines = open(sys.argv[1]).read().splitlines()
assert json.loads(lines[0])["version"] == 2
frames = [json.loads(l)[2] for l in lines[1:]]
assert any("[1-19 of %d checks]" % n in f for f in frames)
assert any("[%d-%d of %d checks]" % (n - 18, n, n) in f for f in frames)
assert all(f.startswith("\x1b[H\x1b[2J") for f in frames)
PY

# TERM that cannot draw: exit 2 and a message, not a garbled screen
for t in dumb unknown-xyz; do
    start "term-$t" 24 80 "TERM=$t" "$ARGS"
    i=0
    while [ ! -s "$D/term-$t.rc" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    cap "term-$t" "term-$t.txt"
    if [ "$(cat "$D/term-$t.rc" 2>/dev/null)" = 2 ]; then ok; else bad "TERM=$t: exit '$(cat "$D/term-$t.rc" 2>/dev/null)', want 2"; fi
done
has "$D/term-dumb.txt" 'TERM=dumb cannot move the cursor'
has "$D/term-unknown-xyz.txt" 'TERM=unknown-xyz is not in the terminfo database'
has "$D/term-unknown-xyz.txt" 'use --once \(a text frame\) or monitor'
start term-unset 24 80 "-u TERM" "$ARGS"
i=0
while [ ! -s "$D/term-unset.rc" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cap term-unset term-unset.txt
if [ "$(cat "$D/term-unset.rc" 2>/dev/null)" = 2 ]; then ok; else bad "TERM unset: exit '$(cat "$D/term-unset.rc" 2>/dev/null)', want 2"; fi
has "$D/term-unset.txt" 'TERM is not set'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
