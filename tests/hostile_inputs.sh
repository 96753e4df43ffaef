#!/bin/sh
# hostile_inputs.sh - the CLI against inputs made to hang it, slow it down or
# drive the terminal; every case has an expected exit code and a time bound
# (timeout), and the parsers run under a memory limit (ulimit -v) where the
# binary is not built with ASan (which reserves terabytes of address space).
#
# 1. every user-named input that is a FIFO (and a directory, a character
#    device): exit 2 at once, "not a regular file", never a blocked open/read.
# 2. JSON: a report with 200k facts diffs in linear time; a duplicate key
#    after 200k keys and 100k-deep nesting are exit 2 naming the problem; a
#    safetensors header of 200k keys is refused quickly.
# 3. terminal text: a sysroot whose hostname, os-release and Python answers
#    hold C0/C1 controls, bidi overrides and invalid UTF-8: the text report,
#    -v, explain, diff, list and the --once dashboard carry none of them raw
#    (and do show them escaped, so the hostile text did reach the output);
#    bench with such a preset path: its text escaped, its --json valid.
# 4. signals: a run unpacking a snapshot and killed by SIGTERM, SIGINT or
#    SIGHUP leaves nothing in TMPDIR and dies of that signal; a run writing
#    reports (--json, --junit, --markdown, --html) killed by SIGINT or SIGTERM
#    leaves no `*.tmp.*` beside them, keeps an older report untouched, dies
#    of the signal (a shell sees 130/143) and says one line about it.
# Ends with "N passed, M failed". RVD and OUT come from the environment.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=hostile_inputs
. tests/lib.sh
D=$OUT/hostile_inputs
rm -rf "$D" && mkdir -p "$D"
case $D in /*) ABS_D=$D ;; *) ABS_D=$PWD/$D ;; esac
FX=tests/fixtures
MEM_KB=2097152 # 2 GiB of address space for one run
if ldd "$RVD" 2>/dev/null | grep -q libasan; then MEM_KB=unlimited; fi

# run NAME WANT_EXIT SECONDS CMD...: stdout/stderr in $D/NAME.{out,err}
run() {
    name=$1 want=$2 secs=$3
    shift 3
    (ulimit -v "$MEM_KB" && exec timeout "$secs" "$@") >"$D/$name.out" 2>"$D/$name.err" </dev/null
    got=$?
    if [ "$got" = "$want" ]; then
        ok
    elif [ "$got" = 124 ]; then
        bad "$name: still running after ${secs}s (want exit $want)"
    else
        bad "$name: exit $got, want $want: $(head -c 300 "$D/$name.err")"
    fi
}
# err_has NAME TEXT: stderr of NAME says TEXT
err_has() {
    if grep -qF -- "$2" "$D/$1.err"; then ok; else bad "$1: stderr lacks '$2': $(head -c 300 "$D/$1.err")"; fi
}

# ---- 1. FIFOs and other non-regular files ---------------------------------
# (no input here ends in .json: tests/catalog.sh reads every *.json under
# $OUT as a report; the FIFOs are removed at the end)
mkfifo "$D/fifo" "$D/fifo.yaml" "$D/fifo-report" "$D/fifo.safetensors"
mkdir -p "$D/models" && mkfifo "$D/models/hang.yaml"
"$RVD" check --sysroot "$FX/mi300x-node/root" --json "$D/report.json" >/dev/null 2>&1
NR="not a regular file"
run fifo_checks 2 10 "$RVD" check --sysroot "$FX/mi300x-node/root" --checks "$D/fifo"
err_has fifo_checks "$NR"
run fifo_explain 2 10 "$RVD" explain gpu.present --checks "$D/fifo"
err_has fifo_explain "$NR"
run fifo_requirements 2 10 "$RVD" check --sysroot "$FX/mi300x-node/root" --requirements "$D/fifo"
err_has fifo_requirements "$NR"
run fifo_collect_requirements 2 10 "$RVD" collect -o "$D/c.tar.gz" --requirements "$D/fifo"
err_has fifo_collect_requirements "$NR"
run fifo_dashboard_checks 2 10 "$RVD" dashboard --once --sysroot "$FX/mi300x-node/root" --checks "$D/fifo"
err_has fifo_dashboard_checks "$NR"
run fifo_dashboard_requirements 2 10 "$RVD" dashboard --once --sysroot "$FX/mi300x-node/root" \
    --requirements "$D/fifo"
err_has fifo_dashboard_requirements "$NR"
run fifo_diff_baseline 2 10 "$RVD" diff "$D/fifo-report" "$D/report.json"
err_has fifo_diff_baseline "$NR"
run fifo_diff_current 2 10 "$RVD" diff "$D/report.json" "$D/fifo-report"
err_has fifo_diff_current "$NR"
run fifo_preset_file 2 10 "$RVD" bench --preset "$D/fifo.yaml" --dry-run
err_has fifo_preset_file "$NR"
run fifo_models_dir 2 10 "$RVD" bench --preset hang --models "$D/models" --dry-run
err_has fifo_models_dir "$NR"
run fifo_weights 2 10 "$RVD" bench --preset tiny --backend cpu --runs 1 --weights "$D/fifo.safetensors"
err_has fifo_weights "$NR"
run fifo_sysroot 2 10 "$RVD" check --sysroot "$D/fifo"
err_has fifo_sysroot "$NR"
# a directory and a character device named as a file
run dir_checks 2 10 "$RVD" check --sysroot "$FX/mi300x-node/root" --checks "$D/models"
err_has dir_checks "Is a directory"
run chardev_checks 2 10 "$RVD" check --sysroot "$FX/mi300x-node/root" --checks /dev/zero
err_has chardev_checks "$NR"
run chardev_diff 2 10 "$RVD" diff /dev/zero "$D/report.json"
err_has chardev_diff "$NR"
run chardev_weights 2 10 "$RVD" bench --preset tiny --backend cpu --runs 1 --weights /dev/zero
err_has chardev_weights "$NR"

# ---- 2. JSON: many keys, a late duplicate, deep nesting ----------------------
python3 - "$D" <<'PY'
import json, struct, sys
d = sys.argv[1]
rep = json.load(open(d + "/report.json"))
for i in range(200000):
    rep["facts"]["x.k%d" % i] = i
json.dump(rep, open(d + "/many.report", "w"))
text = open(d + "/many.report").read()
# a duplicate of the report's first fact as the last member of the object
i = text.index('"facts": {') + len('"facts": {')
first = text[i:text.index(",", i)]
j = text.index('"facts_meta"')
k = text.rindex("}", 0, j)
open(d + "/dup.report", "w").write(text[:k] + ", " + first + text[k:])
open(d + "/deep.report", "w").write("[" * 100000 + "]" * 100000)
# safetensors: an 8-byte header length, then a header of 200k tensors
hdr = {"t%d" % n: {"dtype": "F32", "shape": [1], "data_offsets": [4 * n, 4 * n + 4]}
       for n in range(200000)}
h = json.dumps(hdr).encode()
with open(d + "/many.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"\0" * (4 * 200000))
PY
run json_many_keys 0 10 "$RVD" diff "$D/many.report" "$D/many.report"
run json_late_duplicate 2 10 "$RVD" diff "$D/dup.report" "$D/report.json"
err_has json_late_duplicate "duplicate key"
run json_deep 2 10 "$RVD" diff "$D/deep.report" "$D/report.json"
err_has json_deep "nesting deeper"
run safetensors_many_keys 2 10 "$RVD" bench --preset tiny --backend cpu --runs 1 \
    --weights "$D/many.safetensors"

# ---- 3. terminal text ---------------------------------------------------------
E=$D/evil
cp -a "$FX/mi300x-node/root" "$E"
# CSI as C1 (U+009B) and as ESC [, RLO (U+202E), an isolate (U+2066), BEL,
# DEL, a backspace, and bytes that are not UTF-8
EVIL='\302\2332J\033[31mred\342\200\256desrever\342\201\246\007\177\010\377\376'
printf "evil$EVIL-host\n" >"$E/proc/sys/kernel/hostname"
sed -i "s/^PRETTY_NAME=.*/PRETTY_NAME=\"Ubuntu $(printf "$EVIL" | sed 's/[\/&]/\\&/g')\"/" \
    "$E/etc/os-release"
sed -i "s/^executable=.*/executable=\/home\/ops\/venv\/bin\/py$(printf "$EVIL" | sed 's/[\/&]/\\&/g')/" \
    "$E/.snapshot/python"
"$RVD" check --sysroot "$E" --json "$D/evil.report" >/dev/null 2>&1
run term_report 0 20 "$RVD" check --sysroot "$E"
run term_verbose 0 20 "$RVD" check --sysroot "$E" -v
run term_dashboard 0 20 "$RVD" dashboard --once --sysroot "$E"
run term_diff 0 20 "$RVD" diff "$D/report.json" "$D/evil.report" -v
# a checks file from elsewhere, through explain (YAML escapes: the stream
# itself may not hold controls)
sed 's/title: an AMD GPU is present/title: "present \\u009b2J\\e[31mred\\u202e\\x07"/' \
    checks.yaml >"$D/evil-checks.yaml"
run term_explain 0 20 "$RVD" explain gpu.present --checks "$D/evil-checks.yaml"
# the error path quotes file content too: a tarball member name
python3 - "$D/evil-member.tar" <<'PY'
import io, sys, tarfile
t = tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT)
ti = tarfile.TarInfo("proc/a\x9b2J\u202eb/../../x")
ti.size = 0
t.addfile(ti, io.BytesIO(b""))
t.close()
PY
run term_member_name 2 20 "$RVD" check --sysroot "$D/evil-member.tar"
# a user's checks file through list, and a preset whose path holds a title
# escape, U+202E and byte 0xff through bench's text report
run term_list 0 20 "$RVD" list --checks "$D/evil-checks.yaml"
EVIL_PRESET=$D/$(printf 'p\033]0;x\007\342\200\256\377').yaml
cp tests/vla/tiny-p14.yaml "$EVIL_PRESET"
run term_bench 0 60 "$RVD" bench --preset "$EVIL_PRESET" --backend cpu --runs 1 --json "$D/evil-bench.json"
for n in term_report term_verbose term_dashboard term_diff term_explain term_member_name term_list \
    term_bench; do
    for s in out err; do
        if python3 - "$D/$n.$s" <<'PY'; then ok; else bad "$n.$s: raw control, bidi or invalid bytes reach the terminal"; fi
import re, sys
b = open(sys.argv[1], "rb").read()
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    print("invalid UTF-8 at byte %d" % e.start); sys.exit(1)
bad = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
m = bad.search(t)
if m:
    print("U+%04X at %d" % (ord(m.group()), m.start())); sys.exit(1)
PY
    done
done
# and the hostile text did reach them, escaped
for n in term_report term_verbose term_dashboard term_explain term_list; do
    if grep -qF '\u009b' "$D/$n.out"; then ok; else bad "$n: the escaped U+009B is not shown"; fi
done
if grep -qF '\u202e' "$D/term_verbose.out" && grep -qF '\xff' "$D/term_verbose.out"; then ok; else
    bad "term_verbose: the escaped U+202E or byte 0xff is not shown"; fi
# the JSON report holds U+FFFD for the invalid bytes; diff shows that as is
if grep -qF '\u202e' "$D/term_diff.out"; then ok; else bad "term_diff: no escaped U+202E"; fi
if grep -qF '\u009b' "$D/term_member_name.err"; then ok; else bad "term_member_name: no escaped name"; fi
if grep -qF '\x1b]0;x\x07\u202e\xff' "$D/term_bench.out"; then ok; else bad "term_bench: the escaped path is not shown"; fi
# bench --json: valid JSON (strict UTF-8, no raw control or bidi byte) whatever
# bytes the preset path holds, and the path's text otherwise exact
if python3 - "$D/evil-bench.json" <<'PY'; then ok; else bad "bench --json with a hostile preset path"; fi
import json, re, sys
b = open(sys.argv[1], "rb").read()
d = json.loads(b.decode("utf-8"))
assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]", b.decode("utf-8"))
assert d["preset_source"].endswith("p\x1b]0;x\x07\u202e\ufffd.yaml"), d["preset_source"]
PY
# JSON stays exact: the hostname in the report is the file's text, escaped by JSON only
expect "json report keeps the exact hostname" "$D/evil.report" \
    'd["host"]["hostname"].startswith("evil\u009b2J\x1b[31mred\u202e")'

# ---- 4. signals: the unpacked snapshot is removed -------------------------------
python3 - "$RVD" "$D" "$FX/this-machine/snapshot.tar.gz" <<'PY' >"$D/signals.txt" 2>&1
import io, os, signal, subprocess, sys, tarfile, time
rvd, d, snap = sys.argv[1:4]
d = os.path.abspath(d)  # TMPDIR must be absolute
big = d + "/slow.tar.gz"
src = tarfile.open(snap)
out = tarfile.open(big, "w:gz", format=tarfile.USTAR_FORMAT, compresslevel=1)
for m in src.getmembers():
    out.addfile(m, src.extractfile(m) if m.isfile() else None)
p = tarfile.TarInfo("padding"); p.type = tarfile.DIRTYPE; p.mode = 0o755
out.addfile(p)
for i in range(5000):
    t = tarfile.TarInfo("padding/f%06d" % i); t.size = 2; t.mode = 0o644
    out.addfile(t, io.BytesIO(b"x\n"))
out.close()
def dfl():
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)

# The run is stopped (SIGSTOP) at a known point, sent the signal, then
# continued: the signal is handled where the run stood, whatever the speed of
# the file system. "unpack": as soon as its private directory exists;
# "probes": once the last member is unpacked (the full level then runs the
# VLA probe for a while).
fails = 0
cases = [(signal.SIGTERM, "unpack"), (signal.SIGINT, "unpack"), (signal.SIGHUP, "unpack"),
         (signal.SIGTERM, "probes"), (signal.SIGINT, "probes")]
for sig, phase in cases:
    tag = "%s-%s" % (sig.name, phase)
    tmp = "%s/tmp-%s" % (d, tag)
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    pr = subprocess.Popen([rvd, "check", "--level", "full", "--sysroot", big], env=env,
                          preexec_fn=dfl, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < 20 and pr.poll() is None:
        ents = os.listdir(tmp)
        if ents and (phase == "unpack" or
                     os.path.exists(os.path.join(tmp, ents[0], "padding/f004999"))):
            pr.send_signal(signal.SIGSTOP)
            break
        time.sleep(0.001)
    if pr.poll() is not None:
        print("FAIL %s: the run ended before the signal (exit %s)" % (tag, pr.returncode))
        fails += 1
        continue
    pr.send_signal(sig)
    pr.send_signal(signal.SIGCONT)
    try:
        pr.wait(10)
    except subprocess.TimeoutExpired:
        pr.kill(); pr.wait()
        print("FAIL %s: still running 10 s after the signal" % tag)
        fails += 1
        continue
    left = os.listdir(tmp)
    if pr.returncode != -sig:
        print("FAIL %s: exit %s, want death by the signal" % (tag, pr.returncode)); fails += 1
    elif left:
        print("FAIL %s: left in TMPDIR: %s" % (tag, left[:3])); fails += 1
    else:
        print("ok %s" % tag)
sys.exit(1 if fails else 0)
PY
if [ $? = 0 ]; then ok; else bad "signals: $(grep FAIL "$D/signals.txt" | tr '\n' ' ')"; fi

# ---- 4b. signals: unfinished reports are removed, one line says so -------------
python3 - "$RVD" "$D" "$FX/this-machine/snapshot.tar.gz" <<'PY' >"$D/signals-out.txt" 2>&1
import glob, os, signal, subprocess, sys, time
rvd, d, snap = sys.argv[1:4]
d = os.path.abspath(d)
def dfl():
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
fails = 0
for sig in (signal.SIGINT, signal.SIGTERM):
    out = "%s/out-%s" % (d, sig.name)
    os.mkdir(out)
    with open(out + "/old.json", "w") as f:
        f.write("{}\n")  # an older report: must survive the interrupted run
    env = dict(os.environ, TMPDIR=out)
    cmd = [rvd, "check", "--level", "full", "--sysroot", snap, "--json", out + "/old.json",
           "--junit", out + "/r.xml", "--markdown", out + "/r.md", "--html", out + "/r.html"]
    pr = subprocess.Popen(cmd, env=env, preexec_fn=dfl, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    # the outputs are opened (their temporary files made) before the work
    # starts: stop the run as soon as all four exist, then signal it
    t0 = time.time()
    while time.time() - t0 < 20 and pr.poll() is None:
        if len(glob.glob(out + "/*.tmp.*")) == 4:
            pr.send_signal(signal.SIGSTOP)
            break
        time.sleep(0.001)
    if pr.poll() is not None:
        print("FAIL %s: the run ended before the signal (exit %s)" % (sig.name, pr.returncode))
        fails += 1
        continue
    pr.send_signal(sig)
    pr.send_signal(signal.SIGCONT)
    try:
        err = pr.communicate(timeout=10)[1].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        pr.kill(); pr.wait()
        print("FAIL %s: still running 10 s after the signal" % sig.name); fails += 1
        continue
    left = sorted(os.listdir(out))
    lines = [l for l in err.splitlines() if "interrupted" in l]
    want = "rocm-vla-doctor: check interrupted by %s; removed 4 unfinished files" % sig.name
    if pr.returncode != -sig:
        print("FAIL %s: exit %s, want death by the signal" % (sig.name, pr.returncode)); fails += 1
    elif left != ["old.json"]:
        print("FAIL %s: left %s" % (sig.name, left)); fails += 1
    elif open(out + "/old.json").read() != "{}\n":
        print("FAIL %s: the older report was changed" % sig.name); fails += 1
    elif len(lines) != 1 or not lines[0].startswith(want):
        print("FAIL %s: stderr %r, want one line starting %r" % (sig.name, err[-300:], want))
        fails += 1
    else:
        print("ok %s" % sig.name)
# a shell reports death by SIGINT/SIGTERM as 130/143 (the shell runs the
# doctor in the foreground; a background job would have SIGINT ignored)
for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
    out = "%s/sh-%s" % (d, sig.name)
    os.mkdir(out)
    sh = subprocess.Popen(["sh", "-c", '"$0" "$@" 2>/dev/null; echo $?', rvd, "check",
                           "--level", "full", "--sysroot", snap, "--json", out + "/r.json"],
                          stdout=subprocess.PIPE, text=True, preexec_fn=dfl,
                          env=dict(os.environ, TMPDIR=out))
    child = None
    t0 = time.time()
    while time.time() - t0 < 20 and child is None:
        kids = open("/proc/%d/task/%d/children" % (sh.pid, sh.pid)).read().split()
        if kids and glob.glob(out + "/r.json.tmp.*"):
            child = int(kids[0])
        time.sleep(0.001)
    if child is None:
        print("FAIL shell %s: the run never started" % sig.name); fails += 1
        sh.kill(); sh.wait()
        continue
    os.kill(child, sig)
    got = sh.communicate(timeout=30)[0].strip()
    if got != str(code) or glob.glob(out + "/*.tmp.*"):
        print("FAIL shell %s: status %r (want %d), left %s" % (sig.name, got[-200:], code,
                                                          os.listdir(out)))
        fails += 1
    else:
        print("ok shell %s" % sig.name)
sys.exit(1 if fails else 0)
PY
if [ $? = 0 ]; then ok; else bad "signals (outputs): $(grep FAIL "$D/signals-out.txt" | tr '\n' ' ')"; fi

rm -f "$D/fifo" "$D/fifo.yaml" "$D/fifo-report" "$D/fifo.safetensors" "$D/models/hang.yaml" \
    "$D/many.report" "$D/dup.report" "$D/deep.report" "$D/many.safetensors" "$D/slow.tar.gz"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
