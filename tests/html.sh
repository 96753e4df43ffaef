#!/bin/sh
# html.sh - the reports people look at: `check --html`, `report --html`,
# `diff --html` (one self-contained page: well-formed, every check id in
# the verdicts table, one bar per known figure and a tick per budget or
# peak, no external reference, every string escaped), the pages rendered
# by headless Chromium (a screenshot that is not blank, the rendered DOM),
# and `--markdown` (redaction and --no-redact, a Python that crashes and a
# HIP library that crashes, the fixed summary of one fixture).
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/html
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=html
. tests/lib.sh
CHK="python3 tests/html_check.py"
# OUT and BUILD may be relative or absolute: Chromium and dlopen want absolute
OUT=$(cd "$OUT" && pwd)
BUILDABS=$(cd "${BUILD:-build}" 2>/dev/null && pwd || echo "${BUILD:-build}")

# assert LABEL CMD...: the command succeeds (its output in $OUT/last.err)
assert() {
    label=$1
    shift
    if "$@" >"$OUT/last.err" 2>&1; then ok; else
        bad "$label"
        sed 's/^/    /' "$OUT/last.err" | head -8
    fi
}
has() { if grep -Eq -- "$2" "$1"; then ok; else bad "$1 lacks /$2/"; fi; }
hasnt() { if grep -Eq -- "$2" "$1"; then bad "$1 has /$2/: $(grep -Eo -- "$2" "$1" | head -1)"; else ok; fi; }
code() { # code LABEL WANT GOT
    if [ "$3" = "$2" ]; then ok; else bad "$1: exit $3, want $2"; fi
}

# ---- check --html / --markdown on fixture machines ---------------------------
"$RVD" --sysroot tests/fixtures/rx7800xt-override/root --no-color --json "$OUT/rx.json" \
    --html "$OUT/rx.html" --markdown "$OUT/rx.md" >"$OUT/rx.txt" 2>&1
code "rx7800xt-override check --html" 1 $?
"$RVD" --sysroot tests/fixtures/mi300x-node/root --no-color --json "$OUT/mi.json" \
    --html "$OUT/mi.html" --markdown "$OUT/mi.md" >/dev/null 2>&1
code "mi300x-node check --html" 0 $?
for m in rx mi; do
    assert "$m: structure" $CHK structure "$OUT/$m.html" "$OUT/$m.json" 0
done
has "$OUT/rx.html" '<p class="verdict">Overall: <span class="st st-fail">fail</span> &mdash; exit code 1: '
has "$OUT/mi.html" '<tr><th>Tool</th><td>rocm-vla-doctor [^<]*, checks \(built in\)</td></tr>'
has "$OUT/mi.html" '<p class="verdict">Overall: <span class="st st-pass">pass</span> &mdash; exit code 0: no check failed'
# each finding with its summary, fix and evidence (the facts its check reads)
has "$OUT/rx.html" '<div class="finding fail"><h3><span class="st st-fail">fail</span> <code>kfd.access</code>'
has "$OUT/rx.html" '<tr><td><code>kfd.open_result</code></td><td>EACCES</td></tr>'
has "$OUT/rx.html" '<pre class="cmd">[^<]*usermod -aG render'
# quick level: no figure measured, and the page says so instead of plotting 0
has "$OUT/rx.html" 'No copy bandwidth was measured'
hasnt "$OUT/rx.html" '<svg'

# --html to stdout: the text report goes to stderr; one stdout only
"$RVD" --sysroot tests/fixtures/mi300x-node/root --html - >"$OUT/stdout.html" 2>"$OUT/stdout.err"
code "--html -" 0 $?
has "$OUT/stdout.html" '^<!DOCTYPE html>$'
has "$OUT/stdout.err" '^Verdict: '
"$RVD" --sysroot tests/fixtures/mi300x-node/root --html - --markdown - >/dev/null 2>"$OUT/two.err"
code "--html - --markdown -" 2 $?
has "$OUT/two.err" 'cannot both write to stdout'
"$RVD" --sysroot tests/fixtures/mi300x-node/root --html "$OUT/same" --json "$OUT/same" \
    >/dev/null 2>"$OUT/same.err"
code "--html and --json the same file" 2 $?
[ ! -e "$OUT/same" ] && ok || bad "a refused run wrote $OUT/same"
# an unwritable target fails before any probe runs
"$RVD" --sysroot tests/fixtures/mi300x-node/root --html "$OUT/no/such/dir/x.html" \
    >"$OUT/nodir.out" 2>"$OUT/nodir.err"
code "--html into a missing directory" 2 $?
[ ! -s "$OUT/nodir.out" ] && ok || bad "a run with an unwritable --html still probed"
"$RVD" --sysroot tests/fixtures/mi300x-node/root --markdown /dev/full >/dev/null 2>"$OUT/full.err"
code "--markdown /dev/full" 2 $?

# ---- per-GPU figures from real runs: two GPUs, one, none ----------------------
# the CPU backend's test devices (src/gpu/backend.h) on fixture machines give
# per-GPU slots (tests/gpus.sh): on the mi300x node paired by PCI address with
# sysfs GPUs 0 and 2, whose peaks are derived; on the GPU-less server two
# unpaired slots whose runtime devices have no peak. A test device measures
# no figure: each GPU's section says why.
MI=tests/fixtures/mi300x-node/root
ROCM_VLA_DOCTOR_CPU_DEVICES=0000:05:00.0,0000:65:00.0 "$RVD" --sysroot "$MI" --level standard \
    --gpu all --json "$OUT/two.json" --html "$OUT/two.html" >/dev/null 2>&1
code "two test devices: check --html" 0 $?
ROCM_VLA_DOCTOR_CPU_DEVICES=0000:65:00.0 "$RVD" --sysroot "$MI" --level standard \
    --json "$OUT/one.json" --html "$OUT/one.html" >/dev/null 2>&1
code "one test device: check --html" 0 $?
ROCM_VLA_DOCTOR_CPU_DEVICES=2 "$RVD" --sysroot tests/fixtures/no-gpu-server/root \
    --level standard --gpu all --json "$OUT/unpaired.json" --html "$OUT/unpaired.html" >/dev/null 2>&1
code "two unpaired test devices: check --html" 1 $?
"$RVD" --sysroot "$MI" --level standard --json "$OUT/none.json" --html "$OUT/none.html" \
    >/dev/null 2>&1
code "no GPU runtime: check --html" 0 $?
for m in two one unpaired none; do
    assert "$m: structure" $CHK structure "$OUT/$m.html" "$OUT/$m.json" 0
done
has "$OUT/two.html" '<h3>GPU 0: host CPU \(test device 0\), 0000:05:00\.0</h3>'
has "$OUT/two.html" '<h3>GPU 2: host CPU \(test device 1\), 0000:65:00\.0</h3>'
has "$OUT/two.html" "No copy bandwidth was measured on this GPU \(device 1 is the CPU backend&#39;s test device"
has "$OUT/one.html" '<h3>GPU 2: host CPU \(test device 0\), 0000:65:00\.0</h3>'
hasnt "$OUT/one.html" '<h3>GPU 0:'
has "$OUT/unpaired.html" '<h3>GPU 1: host CPU \(test device 1\), 00ff:01:00\.0</h3>'
# no device measured: one sentence per figure, with the probe's own why
hasnt "$OUT/none.html" '<h3>GPU '
has "$OUT/none.html" 'No copy bandwidth was measured in this report \([^)]'
has "$OUT/none.html" 'No GEMM rate was measured in this report \([^)]'
hasnt "$OUT/none.html" '<svg'

# ---- report --html with measured figures, budgets and peaks ------------------
# a test device measures no bandwidth or GEMM rate: the figures are written
# into the real reports above, under the names the per-GPU probes use
# (probes/probe_each_gpu.c). Forged reports are named neg-*.json:
# tests/catalog.sh checks the facts of the reports runs wrote.
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
vla = {"vla.available": True, "vla.error": "", "vla.preset": "pi0", "vla.requested_preset": "pi0",
       "vla.backend": "hip", "vla.device": "MI300X", "vla.latency.vision_ms": 9.5,
       "vla.latency.prefix_ms": 7.25, "vla.latency.step_ms": 1.5, "vla.latency.post_ms": None,
       "vla.latency.total_ms": 95.0, "vla.latency.total_p99_ms": 99.0, "vla.control_rate_hz": 10.5}
def figures(j, h2d):
    p = "gpu.%s." % j
    return {p + "bw.available": True, p + "bw.why": "", p + "bw.h2d_pinned_gbs": h2d,
            p + "bw.d2h_pinned_gbs": 26.3, p + "bw.h2d_pageable_gbs": None,
            p + "bw.d2h_pageable_gbs": 0, p + "bw.link_payload_gbs": 31.5,
            p + "bw.h2d_payload_fraction": round(h2d / 57.614, 4),
            p + "membw.available": True, p + "membw.why": "", p + "membw.copy_gbs": 4100.0,
            p + "membw.mul_gbs": 4050.0, p + "membw.add_gbs": 4200.0, p + "membw.triad_gbs": 3900.0,
            p + "membw.dot_gbs": None, p + "gemm_peak.available": True, p + "gemm_peak.why": "",
            p + "gemm_peak.fp16_tflops": 600.0, p + "gemm_peak.bf16_tflops": 580.5,
            p + "gemm_peak.fp32_tflops": None}
def write(d, add, name, reasons={}):
    for k, v in add.items():
        d["facts"][k] = v
        d["facts_meta"][k] = {"source": "test",
                              "reason": None if v is not None else reasons.get(k, "not measured")}
    json.dump(d, open("%s/%s" % (out, name), "w"))
# two GPUs with derived peaks; gpu.2's link unknown to sysfs: the bandwidth
# probe's own payload rate is the reference instead
d = json.load(open(out + "/two.json"))
add = dict(vla, **figures(0, 25.1), **figures(2, 24.0))
add["gpu.2.peak.link_gbs"] = None
write(d, add, "neg-perf.json",
      {"gpu.2.peak.link_gbs": "not derived: the link's speed or width is not known"})
# two unpaired devices, one with figures: its runtime device has no peak
d = json.load(open(out + "/unpaired.json"))
f = figures(0, 25.1)
del f["gpu.0.bw.link_payload_gbs"]
write(d, dict(vla, **f), "neg-nopeak.json")
PY
"$RVD" report --html "$OUT/perf.html" "$OUT/neg-perf.json" 2>"$OUT/perf.err"
code "report --html" 0 $?
"$RVD" report --html "$OUT/nopeak.html" "$OUT/neg-nopeak.json" 2>/dev/null
code "report --html (peaks not derived)" 0 $?
# 2 budgets (vision 15 ms, total 80 ms for pi0, from checks.yaml) + per GPU
# 3 GEMM peaks (fp32's tick drawn by its unknown bar too)
assert "perf: structure, bars and ticks" $CHK structure "$OUT/perf.html" "$OUT/neg-perf.json" 8
assert "no peak: structure, only the budget ticks" $CHK structure "$OUT/nopeak.html" "$OUT/neg-nopeak.json" 2
has "$OUT/perf.html" '<title>budget 15 ms</title>'
has "$OUT/perf.html" '<title>budget 80 ms</title>'
has "$OUT/perf.html" '<svg [^>]*aria-label="GPU 0: GEMM \(TFLOP/s\)"'
has "$OUT/perf.html" '<svg [^>]*aria-label="GPU 2: GEMM \(TFLOP/s\)"'
has "$OUT/perf.html" '<title>peak 1307 TFLOP/s</title>'
has "$OUT/perf.html" '<title>peak 163.4 TFLOP/s</title>'
has "$OUT/perf.html" '<title>gpu\.0\.peak\.link_gbs 57\.61 GB/s</title>'
has "$OUT/perf.html" '<title>gpu\.0\.peak\.mem_gbs 5325 GB/s</title>'
has "$OUT/perf.html" '<title>gpu\.2\.peak\.mem_gbs 5325 GB/s</title>'
# gpu.2's link peak unknown: the probe's payload rate, and the reason
has "$OUT/perf.html" 'gpu\.2\.bw\.link_payload_gbs 31\.5 GB/s'
has "$OUT/perf.html" '<p class="unknown">PCIe link peak not derived: the link&#39;s speed or width is not known</p>'
has "$OUT/perf.html" 'Pinned host-to-device copies reach 0\.44 of the link'
hasnt "$OUT/perf.html" 'Memory peak not derived|fp16 peak not derived'
# unpaired devices: no sysfs GPU, the runtime device's peaks not derived
has "$OUT/nopeak.html" '<p class="unknown">fp16 peak not derived: the architecture is not in checks.yaml&#39;s peaks table</p>'
has "$OUT/nopeak.html" '<p class="unknown">fp32 peak not derived: the architecture is not in checks.yaml&#39;s peaks table</p>'
has "$OUT/nopeak.html" '<p class="unknown">Memory peak not derived: the architecture is not in the peaks table</p>'
has "$OUT/nopeak.html" '<p class="unknown">PCIe link peak not derived: no derived peak for this device in the report</p>'
hasnt "$OUT/nopeak.html" '<title>peak '
has "$OUT/nopeak.html" 'No copy bandwidth was measured on this GPU \(device 1 is the CPU'
# unknown is the word, never a bar of 0; a measured 0 is a bar
has "$OUT/perf.html" '<text class="unk" x="[0-9.]+" y="[0-9.]+">unknown</text>'
has "$OUT/perf.html" '<rect class="bar" [^>]*><title>d2h_pageable_gbs: 0 GB/s</title>'
# total 95 ms is over its 80 ms budget: the alarm colour
has "$OUT/perf.html" '<rect class="bar over" [^>]*><title>total_ms: 95 ms'
# a checks file with another budget is followed (the rules are data)
sed 's/vla.latency.total_ms > 80/vla.latency.total_ms > 120/' checks.yaml >"$OUT/checks.yaml"
"$RVD" report --checks "$OUT/checks.yaml" --html "$OUT/perf120.html" "$OUT/neg-perf.json" 2>/dev/null
has "$OUT/perf120.html" '<title>budget 120 ms</title>'
hasnt "$OUT/perf120.html" 'class="bar over"'

# ---- every string escaped ------------------------------------------------------
python3 - "$OUT/rx.json" "$OUT/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["checks"][0]
c["title"] = "<script>alert('t')</script> & \"q\""
c["status"] = "fail"
c["summary"] = "\x1b[31mred\x1b[0m </td></tr></table><img src=x onerror=alert(1)>"
c["fix"] = "run <b>this</b> & 'that'"
c["fix_say"] = c["fix"]
c["fix_commands"] = ["echo '</pre><i>x</i>' && id"]
c["fix_then"] = None
c["evidence"]["<svg onload=alert(1)>"] = "https://example.com/x url(x) <link href=y>"
d["host"]["hostname"] = "evil<host>&\"'"
d["facts"]["gpu.names"] = "<iframe src=//x></iframe>"
json.dump(d, open(sys.argv[2], "w"))
PY
"$RVD" report --html "$OUT/hostile.html" --markdown "$OUT/hostile.md" --no-redact \
    "$OUT/hostile.json" 2>/dev/null
code "report of a hostile JSON" 0 $?
assert "hostile: nothing executable, text shown" $CHK hostile "$OUT/hostile.html" \
    "<script>alert('t')</script> & \"q\"" "\\x1b[31mred" "<img src=x onerror=alert(1)>" \
    "run <b>this</b> & 'that'" "<svg onload=alert(1)>" "evil<host>&\"'" \
    "echo '</pre><i>x</i>' && id" \
    "<iframe src=//x></iframe>" "https://example.com/x url(x) <link href=y>"
assert "hostile: structure" $CHK structure "$OUT/hostile.html" "$OUT/hostile.json"
hasnt "$OUT/hostile.md" '<(script|img|iframe|b>)'
has "$OUT/hostile.md" '&lt;img src=x onerror=alert\(1\)&gt;<br>Fix: run &lt;b&gt;this&lt;/b&gt; &amp; .that.$'
# a command is verbatim in a fenced block (markdown shows it as code)
has "$OUT/hostile.md" "^  echo '</pre><i>x</i>' && id\$"
if grep -q "$(printf '\033')" "$OUT/hostile.md" "$OUT/hostile.html"; then
    bad "a raw ESC reached the markdown or the page"
else ok; fi

# ---- report: bad input -----------------------------------------------------------
"$RVD" report "$OUT/mi.json" >/dev/null 2>"$OUT/noout.err"
code "report without an output" 2 $?
has "$OUT/noout.err" 'needs --html FILE or --markdown FILE'
printf '{"schema": "rocm-vla-doctor/1", "facts": ' >"$OUT/cut.json"
"$RVD" report --html "$OUT/cut.html" "$OUT/cut.json" 2>"$OUT/cut.err"
code "report of a cut JSON" 2 $?
[ ! -e "$OUT/cut.html" ] && ok || bad "a failed report left $OUT/cut.html"
has "$OUT/cut.err" 'cut.json'
"$RVD" report --html "$OUT/x.html" "$OUT/absent.json" 2>/dev/null
code "report of a missing file" 2 $?
"$RVD" report --html "$OUT/x.html" "$OUT/mi.json" "$OUT/mi.json" 2>/dev/null
code "report of two files" 2 $?
"$RVD" report --bogus "$OUT/mi.json" 2>/dev/null
code "report --bogus" 2 $?

# ---- diff --html ---------------------------------------------------------------
python3 - "$OUT/neg-perf.json" "$OUT/neg-perf2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["facts"]["vla.latency.total_ms"] = 140.0
d["facts"]["gpu.0.bw.h2d_pinned_gbs"] = 12.0
d["facts"]["gpu.2.gemm_peak.fp16_tflops"] = 700.0
d["facts"]["rocm.version"] = "6.3.0 <script>"
json.dump(d, open(sys.argv[2], "w"))
PY
"$RVD" diff "$OUT/neg-perf.json" "$OUT/neg-perf2.json" --html "$OUT/diff.html" >/dev/null 2>&1
code "diff --html with regressions" 1 $?
assert "diff: structure" $CHK structure "$OUT/diff.html"
# a before/after pair of bars per performance fact that moved (3 facts)
n=$(grep -c '<rect class="bar' "$OUT/diff.html")
[ "$n" -eq 6 ] && ok || bad "diff --html draws $n bars, want 6"
has "$OUT/diff.html" '<h2>Regressions \(2\)</h2>'
has "$OUT/diff.html" '<h2>Improvements \(1\)</h2>'
has "$OUT/diff.html" '<td><code>rocm.version</code></td><td>6.2.0</td><td>6.3.0 &lt;script&gt;</td>'
"$RVD" diff "$OUT/neg-perf.json" "$OUT/neg-perf.json" --html - >"$OUT/same.html" 2>"$OUT/same.err"
code "diff --html - of a report with itself" 0 $?
has "$OUT/same.html" 'No performance figure differs'
has "$OUT/same.err" 'no regression'
"$RVD" diff "$OUT/neg-perf.json" "$OUT/neg-perf2.json" --html "$OUT/d.x" --json "$OUT/d.x" 2>/dev/null
code "diff --html and --json the same file" 2 $?

# ---- markdown ---------------------------------------------------------------------
# the mi300x node: host mi300x-node07, user ops, Python under /home/ops
has "$OUT/mi.md" '^\| ROCm \| 6\.2\.0 \|$'
has "$OUT/mi.md" '^\| PyTorch \| 2\.5\.1\+rocm6\.2 \(rocm build, HIP 6\.2\.41133\) \|$'
has "$OUT/mi.md" '^\| gfx target \| gfx942, '
"$RVD" report --markdown "$OUT/mi-all.md" --no-redact "$OUT/mi.json" 2>/dev/null
python3 - "$OUT/mi.json" "$OUT/mi-ops.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# a failing check whose text names the user, the host and a home directory
c = next(c for c in d["checks"] if c["id"] == "python.torch_build")
c["status"] = "fail"
c["summary"] = "ops on mi300x-node07: torch in /home/ops/venv/lib is broken"
c["evidence"]["python.prefix"] = "/home/ops/venv"
json.dump(d, open(sys.argv[2], "w"))
PY
"$RVD" report --markdown "$OUT/ops.md" "$OUT/mi-ops.json" 2>/dev/null
code "report --markdown" 0 $?
"$RVD" report --markdown "$OUT/ops-all.md" --no-redact "$OUT/mi-ops.json" 2>/dev/null
hasnt "$OUT/ops.md" 'mi300x-node07|/home/ops|\bops\b'
has "$OUT/ops.md" '&lt;user&gt; on &lt;host&gt;: torch in \\~/venv/lib is broken'
has "$OUT/ops.md" 'python.prefix = ~/venv'
has "$OUT/ops-all.md" 'ops on mi300x-node07: torch in /home/ops/venv/lib'
has "$OUT/ops-all.md" 'not redacted'

# the fixed summary of one fixture (the version line aside)
sed 's/^<sub>rocm-vla-doctor [^;]*;/<sub>rocm-vla-doctor VERSION;/' "$OUT/rx.md" >"$OUT/rx.md.cmp"
if diff -u tests/data/markdown/rx7800xt-override.md "$OUT/rx.md.cmp" >"$OUT/rx.md.diff"; then ok; else
    bad "rx7800xt-override markdown differs from tests/data/markdown/rx7800xt-override.md"
    head -20 "$OUT/rx.md.diff" | sed 's/^/    /'
fi

# a Python that crashes and a HIP library that crashes in hipInit: the live
# host's facts still come from sysfs, and the summary is written
printf '#!/bin/sh\nkill -SEGV $$\n' >"$OUT/crashpy"
chmod +x "$OUT/crashpy"
"$RVD" --python "$OUT/crashpy" --markdown "$OUT/nopy.md" --html "$OUT/nopy.html" \
    --json "$OUT/nopy.json" >/dev/null 2>&1
rc=$?
[ $rc -le 1 ] && ok || bad "a crashing Python: exit $rc (want 0 or 1)"
has "$OUT/nopy.md" '^\| Python \| error: .*crashpy was killed by signal 11 \|$'
has "$OUT/nopy.md" '^\| PyTorch \| unknown \(no Python interpreter: '
has "$OUT/nopy.md" '^\| Kernel \| [^|]*[0-9]'
assert "crashing Python: page structure" $CHK structure "$OUT/nopy.html" "$OUT/nopy.json"
FAKEHIP=$BUILDABS/tests/fake/libamdhip64.so
if [ -f "$FAKEHIP" ]; then
    FAKE_HIP_SEGV=1 ROCM_VLA_DOCTOR_HIP_LIB="$FAKEHIP" "$RVD" --level standard \
        --python "$OUT/crashpy" --markdown "$OUT/nohip.md" --json "$OUT/nohip.json" >/dev/null 2>&1
    rc=$?
    [ $rc -le 1 ] && ok || bad "a crashing HIP: exit $rc (want 0 or 1)"
    has "$OUT/nohip.md" '^\| HIP runtime \| error: the probe child was killed by SIGSEGV.*crashing in hipInit \|$'
    has "$OUT/nohip.md" '^- \*\*error\*\* `gpu.runtime`: '
    has "$OUT/nohip.md" '^\| Python \| error: '
    has "$OUT/nohip.md" '^\| Level \| standard \|$'
else
    bad "the fake libamdhip64 is not built: $FAKEHIP (make unit-bins)"
fi

# ---- rendered by headless Chromium ---------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
chrome() { # chrome ARGS...: bounded, with a private profile
    HOME="$OUT/home" timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --user-data-dir="$OUT/profile" --no-first-run "$@"
}
if [ -z "$CHROMIUM" ]; then
    echo "SKIP html: chromium is not installed (Debian package chromium): no render test"
else
    mkdir -p "$OUT/home"
    # can it start at all? a page of one word
    printf '<!DOCTYPE html><title>t</title><p>started</p>\n' >"$OUT/probe.html"
    if ! chrome --dump-dom "file://$OUT/probe.html" 2>"$OUT/probe.err" | grep -q started; then
        echo "SKIP html: chromium cannot start here: $(grep -v '^\s*$' "$OUT/probe.err" | tail -1)"
    else
        for pair in rx:rx perf:neg-perf; do
            m=${pair%%:*} json=${pair#*:}
            rm -f "$OUT/$m.png"
            chrome --screenshot="$OUT/$m.png" --window-size=1280,2000 \
                "file://$OUT/$m.html" >/dev/null 2>&1
            [ -f "$OUT/$m.png" ] && ok || bad "chromium wrote no screenshot of $m.html"
            [ -f "$OUT/$m.png" ] && assert "$m: screenshot" $CHK png "$OUT/$m.png"
            chrome --dump-dom "file://$OUT/$m.html" >"$OUT/$m.dom" 2>/dev/null
            assert "$m: rendered DOM" $CHK dom "$OUT/$m.dom" "$OUT/$json.json" "$OUT/$m.html"
        done
        # every bar of the page rendered: 5 VLA, per GPU 3 copies, 4 memory, 2 GEMM
        n=$(grep -o '<rect class="bar' "$OUT/perf.dom" | wc -l)
        [ "$n" -eq 23 ] && ok || bad "perf: $n bars in the rendered DOM, want 23"
        chrome --dump-dom "file://$OUT/hostile.html" >"$OUT/hostile.dom" 2>/dev/null
        hasnt "$OUT/hostile.dom" '<(script|img|iframe|link)[ >]'
        has "$OUT/hostile.dom" '&lt;script&gt;alert'
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
