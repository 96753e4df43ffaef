#!/bin/sh
# prom.sh - `check --prom FILE` end to end: every fixture machine (built
# trees and the recorded h200/this-machine snapshots) rendered, its series
# compared with its JSON report, validated by `promtool check metrics`, and
# read by a real prometheus-node-exporter (textfile collector only) started
# on 127.0.0.1, scraped with curl; the file is written atomically (no
# temporary left, a failed run keeps the old file); bad paths are exit 2.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
NAME=prom
. tests/lib.sh
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/prom"
rm -rf "$D" && mkdir -p "$D/text"

# ---- every fixture machine -----------------------------------------------
for dir in tests/fixtures/*/; do
    m=$(basename "$dir")
    [ -e "$dir/root" ] || [ -e "$dir/snapshot.tar.gz" ] || continue
    fixture_check "$dir" --prom "$D/text/$m.prom" --json "$D/$m.json" >"$D/$m.out" 2>&1
    rc=$?
    want_rc=$(sed -n 's/^exit //p' "$dir/expected")
    if [ "$rc" != "$want_rc" ] || [ ! -s "$D/text/$m.prom" ]; then
        bad "$m: exit $rc (want $want_rc), or no .prom written"
        continue
    fi
    # every check of the JSON report has its status code and one-hot series;
    # the info metric carries the report's ROCm and driver; figures only
    # where the JSON report has the fact as a number
    if python3 - "$D/$m.json" "$D/text/$m.prom" <<'PY'; then ok; else bad "$m: .prom disagrees with the JSON report"; fi
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
code = {"pass": 0, "skip": 1, "warn": 2, "fail": 3, "error": 4, "timeout": 5}
samples = {}
for line in text.splitlines():
    if line.startswith("#"):
        continue
    name_labels, value = line.rsplit(" ", 1)
    samples[name_labels] = float(value)
errs = []
for c in d["checks"]:
    k = 'rocm_vla_doctor_check_status{check="%s"}' % c["id"]
    if samples.get(k) != code[c["status"]]:
        errs.append("%s: %r" % (k, samples.get(k)))
    for st in code:
        k = 'rocm_vla_doctor_check{check="%s",status="%s"}' % (c["id"], st)
        if samples.get(k) != (1 if st == c["status"] else 0):
            errs.append(k)
    # a per-GPU check: a series per GPU of its "gpus", with gpu and pci
    for g in c.get("gpus", []):
        k = 'rocm_vla_doctor_check_status{check="%s",gpu="%d",pci="%s"}' % (c["id"], g["gpu"], g["pci"] or "")
        if samples.get(k) != code[g["status"]]:
            errs.append("%s: %r, want %s" % (k, samples.get(k), g["status"]))
n_status = sum(1 for k in samples if k.startswith("rocm_vla_doctor_check_status{") and ",gpu=" not in k)
n_gpu = sum(1 for k in samples if k.startswith("rocm_vla_doctor_check_status{") and ",gpu=" in k)
if n_gpu != sum(len(c.get("gpus", [])) for c in d["checks"]):
    errs.append("%d per-GPU status series for the JSON's per-GPU verdicts" % n_gpu)
if n_status != len(d["checks"]):
    errs.append("%d status series for %d checks" % (n_status, len(d["checks"])))
f = d["facts"]
info = [k for k in samples if k.startswith("rocm_vla_doctor_build_info{")]
want_rocm = f.get("rocm.version") if isinstance(f.get("rocm.version"), str) else ""
if len(info) != 1 or ('rocm="%s"' % want_rocm) not in info[0]:
    errs.append("build_info %r, want rocm=%r" % (info, want_rocm))
# per-GPU power: a sample exactly for the GPUs whose power_w is a number
for name, v in f.items():
    m = re.fullmatch(r"gpu\.(\d+)\.power_w", name)
    if not m:
        continue
    got = [k for k in samples if k.startswith("rocm_vla_doctor_gpu_power_watts{") and 'gpu="%s"' % m.group(1) in k]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        pci = f.get("gpu.%s.pci" % m.group(1))
        if len(got) != 1 or samples[got[0]] != v or (pci and 'pci="%s"' % pci not in got[0]):
            errs.append("power of gpu %s: %r" % (m.group(1), got))
    elif got:
        errs.append("unknown power of gpu %s has a sample %r" % (m.group(1), got))
if errs:
    print("\n".join(errs[:10]))
    sys.exit(1)
PY
done
# the fixtures include GPUs with a PCI address and machines without a GPU
if grep -q 'pci="0000:' "$D"/text/*.prom; then ok; else bad "no per-GPU series with a pci label"; fi
if grep -q 'rocm_vla_doctor_gpu_' "$D/text/no-gpu-server.prom"; then
    bad "no-gpu-server has GPU series"
else ok; fi
if grep -q 'check="gpu.present"' "$D/text/h200.prom"; then ok; else bad "h200 snapshot: no gpu.present series"; fi

# ---- the man page describes every metric, and no metric that is not written ----
grep -v '^#define' src/report/report_prom.c | grep -o 'P "[a-z0-9_]*"' |
    sed 's/^P "/rocm_vla_doctor_/; s/"//g' | sort -u >"$D/code-metrics"
sed -n '/^\.Ss PROMETHEUS METRICS$/,/^\.Ss /p' man/rocm-vla-doctor.1 |
    sed -n 's/^\.It Cm \(rocm_vla_doctor_[a-z0-9_]*\).*/\1/p' | sort -u >"$D/man-metrics"
[ "$(wc -l <"$D/code-metrics")" -ge 20 ] && ok || bad "metric names not found in report_prom.c"
if cmp -s "$D/code-metrics" "$D/man-metrics"; then ok; else
    bad "metrics in src/report/report_prom.c and the man page's PROMETHEUS METRICS differ:"
    diff "$D/code-metrics" "$D/man-metrics" | sed 's/^/    /' | head -10
fi

# ---- a strict reader of the exposition format (promtool may be absent) ----
# HELP then TYPE once per family before its samples, counters named *_total
# and only they, names and labels by the grammar, only \\ \" \n escaped,
# numeric values, no series twice; a broken file as the control
prom_lint() {
    python3 - "$@" <<'PY'
import re, sys
NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)')
def lint(path):
    fams, series, fam, typ, after_help = set(), set(), None, None, False
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n")[:-1], 1):
        if l.startswith("# HELP "):
            name = l[7:].split(" ", 1)[0]
            assert NAME.match(name) and name not in fams, (n, l)
            fams.add(name); fam, typ, after_help = name, None, True
        elif l.startswith("# TYPE "):
            name, t = l[7:].split(" ")
            assert after_help and name == fam and t in ("counter", "gauge"), (n, l)
            assert (t == "counter") == name.endswith("_total"), (n, l)
            typ, after_help = t, False
        else:
            assert not l.startswith("#"), (n, l)
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$", l)
            assert m and typ and m.group(1) == fam, (n, l)
            if m.group(2):
                body, names, i = m.group(2)[1:-1], [], 0
                while i < len(body):
                    lm = LABEL.match(body, i)
                    assert lm, (n, l)
                    names.append(lm.group(1)); i = lm.end()
                assert len(names) == len(set(names)), (n, l)
            v = m.group(3)
            assert v in ("NaN", "+Inf", "-Inf") or float(v) is not None, (n, l)
            key = m.group(1) + (m.group(2) or "")
            assert key not in series, (n, l)
            series.add(key); after_help = False
bad = 0
for p in sys.argv[1:]:
    try:
        lint(p)
    except (AssertionError, ValueError) as e:
        print("%s: %s" % (p, e)); bad = 1
sys.exit(bad)
PY
}
if prom_lint "$D"/text/*.prom >"$D/lint.out" 2>&1; then ok; else
    bad "the strict reader refuses a fixture's .prom:"; sed 's/^/    /' "$D/lint.out" | head -5
fi
printf '# HELP a x\n# TYPE a counter\na{k="v} 1\n' >"$D/lint-broken.prom"
if prom_lint "$D/lint-broken.prom" >/dev/null 2>&1; then
    bad "the strict reader accepted a broken file (the check proves nothing)"
else ok; fi

# ---- promtool ------------------------------------------------------------
if command -v promtool >/dev/null 2>&1; then
    for p in "$D"/text/*.prom; do
        if promtool check metrics <"$p" >"$p.lint" 2>&1; then ok; else
            bad "promtool check metrics $(basename "$p"):"
            sed 's/^/    /' "$p.lint" | head -5
        fi
    done
    # the control: promtool does reject a broken exposition
    printf '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\nbad metric\n' >"$D/broken.prom"
    if promtool check metrics <"$D/broken.prom" >/dev/null 2>&1; then
        bad "promtool accepted a broken file (the validation proves nothing)"
    else ok; fi
else
    echo "SKIP prom: promtool not found (Debian package prometheus)"
fi

# ---- atomic write, bad paths ---------------------------------------------
A="$D/atomic"
mkdir -p "$A"
"$RVD" --sysroot tests/fixtures/mi300x-node/root --prom "$A/doctor.prom" >/dev/null 2>&1
if [ "$(ls -A "$A")" = "doctor.prom" ]; then ok; else bad "temporary files left: $(ls -A "$A")"; fi
cp "$A/doctor.prom" "$D/before.prom"
# a run that fails (a checks file that does not load) keeps the old file
printf 'checks: [\n' >"$D/badchecks.yaml"
"$RVD" --sysroot tests/fixtures/mi300x-node/root --checks "$D/badchecks.yaml" \
    --prom "$A/doctor.prom" >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok || bad "bad checks with --prom: exit $rc, want 2"
if cmp -s "$A/doctor.prom" "$D/before.prom" && [ "$(ls -A "$A")" = "doctor.prom" ]; then ok; else
    bad "a failed run changed or left files in the textfile directory"
fi
"$RVD" --sysroot tests/fixtures/mi300x-node/root --prom "$D/no/such/dir/x.prom" >"$D/nodir.out" 2>&1
rc=$?
[ "$rc" = 2 ] && ok || bad "--prom into a missing directory: exit $rc, want 2"
"$RVD" --sysroot tests/fixtures/mi300x-node/root --prom "$D/same" --json "$D/same" >"$D/same.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q 'same file' "$D/same.out" && ok || bad "--prom = --json: exit $rc, want 2"
"$RVD" --sysroot tests/fixtures/mi300x-node/root --prom - --json - >"$D/twostd.out" 2>&1
rc=$?
[ "$rc" = 2 ] && ok || bad "--prom - with --json -: exit $rc, want 2"
"$RVD" --sysroot tests/fixtures/mi300x-node/root --prom - >"$D/stdout.prom" 2>/dev/null
if grep -q '^rocm_vla_doctor_build_info{' "$D/stdout.prom" && ! grep -q 'Summary\|passed' "$D/stdout.prom"; then
    ok
else bad "--prom -: stdout is not the exposition alone"; fi

# ---- a real node_exporter reading the textfile directory ------------------
NE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [ -z "$NE" ]; then
    echo "SKIP prom: prometheus-node-exporter not found (Debian package prometheus-node-exporter)"
elif ! command -v curl >/dev/null 2>&1; then
    echo "SKIP prom: curl not found"
else
    T="$D/textfile"
    mkdir -p "$T"
    cp "$D/text/mi300x-node.prom" "$T/rocm-vla-doctor.prom"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$NE" --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$T" --web.listen-address="127.0.0.1:$port" \
        >"$D/node_exporter.log" 2>&1 &
    nepid=$!
    trap 'kill "$nepid" 2>/dev/null; wait "$nepid" 2>/dev/null' EXIT INT TERM
    up=0
    for _ in $(seq 1 50); do
        if curl -sf "http://127.0.0.1:$port/metrics" >"$D/scrape.txt" 2>/dev/null; then
            up=1
            break
        fi
        kill -0 "$nepid" 2>/dev/null || break
        sleep 0.1
    done
    if [ "$up" = 0 ]; then
        echo "SKIP prom: node_exporter did not start:"
        sed 's/^/    /' "$D/node_exporter.log" | tail -5
    else
        sc() { if grep -Eq -- "$1" "$D/scrape.txt"; then ok; else bad "scrape lacks /$1/"; fi; }
        sc '^node_textfile_scrape_error 0$'
        sc '^rocm_vla_doctor_build_info\{.*rocm="6\.2\.0".*\} 1$'
        # node_exporter gives a check's worst-GPU series (no gpu label) the
        # empty gpu and pci labels of its per-GPU series
        sc '^rocm_vla_doctor_check_status\{check="pcie\.atomics"(,gpu="",pci="")?\} 0$'
        sc '^rocm_vla_doctor_check\{check="gpu\.vram",status="pass"\} 1$'
        sc '^rocm_vla_doctor_gpu_power_watts\{gpu="0",pci="0000:05:00\.0"\} 147$'
        sc '^rocm_vla_doctor_pcie_link_width_lanes\{gpu="7",pci="0000:f5:00\.0",state="current"\} 16$'
        sc '^# HELP rocm_vla_doctor_check_status Check verdict'
        # a failing machine's verdict arrives as 3
        cp "$D/text/mi250x-degraded.prom" "$T/rocm-vla-doctor.prom"
        curl -sf "http://127.0.0.1:$port/metrics" >"$D/scrape.txt"
        sc '^node_textfile_scrape_error 0$'
        sc '^rocm_vla_doctor_check_status\{check="[a-z.]+"(,gpu="",pci="")?\} 3$'
        # the control: node_exporter does flag a file it cannot parse
        printf 'rocm_vla_doctor_x{a="1" 1\n' >"$T/broken.prom"
        curl -sf "http://127.0.0.1:$port/metrics" >"$D/scrape.txt"
        sc '^node_textfile_scrape_error 1$'
    fi
    kill "$nepid" 2>/dev/null
    wait "$nepid" 2>/dev/null
    trap - EXIT INT TERM
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
