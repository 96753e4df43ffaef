#!/bin/sh
# gpu_verdicts.sh - every GPU's verdict in every output (issue 34). One run
# of the doctor on the 8-GPU fixture mi300x-gpus-failing (GPU 3 fails
# gpu.ras, GPUs 4 and 6 fail gpu.thermal, GPUs 4-7 warn gpu.numa_affinity)
# writes text, JSON, JUnit, Prometheus, HTML and markdown; one Python
# process then holds each to the others: the JSON per-GPU arrays against
# reports/schema.json, each check's status the worst of its GPUs, the text
# naming every failing GPU, a JUnit testcase per GPU, the Prometheus
# per-GPU series with gpu and pci labels read by a strict exposition-format
# reader (and promtool where installed), the HTML and markdown per-GPU
# tables. mi250x-degraded's GPU 1 warning must be stated too. `fleet` on
# both reports and a copy of the first: the drain list (node, GPU, check)
# in text, JSON (against reports/fleet-schema.json) and HTML, and the two
# reports of one host name, and of one GPU serial, flagged. Environment:
# RVD (the binary), OUT (a scratch directory).
set -u
NAME=gpu_verdicts
. tests/lib.sh
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/gpu_verdicts"
rm -rf "$D" && mkdir -p "$D"

F=tests/fixtures/mi300x-gpus-failing
"$RVD" --sysroot "$F/root" --no-color --json "$D/r.json" --junit "$D/r.xml" --prom "$D/r.prom" \
    --html "$D/r.html" --markdown "$D/r.md" >"$D/r.txt" 2>"$D/r.err"
rc=$?
[ "$rc" = 1 ] && ok || bad "mi300x-gpus-failing: exit $rc, want 1 (see $D/r.err)"
"$RVD" --sysroot tests/fixtures/mi250x-degraded/root --no-color --json "$D/m.json" >"$D/m.txt" 2>&1
[ $? = 1 ] && ok || bad "mi250x-degraded: exit not 1"
# the fleet of the two nodes and a second copy of the first (same host name)
mkdir -p "$D/fleet"
cp "$D/r.json" "$D/fleet/a.json" && cp "$D/m.json" "$D/fleet/b.json" && cp "$D/r.json" "$D/fleet/c.json"
# and one of its GPUs again under another host name: a GPU moved or a copy
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = d["facts"]["host.hostname"] = "mi300x-node12"
for k in list(d["facts"]):
    if k.endswith(".serial") and k != "gpu.5.serial":
        d["facts"][k] = None
json.dump(d, open(sys.argv[2], "w"))' "$D/r.json" "$D/fleet/d.json"
"$RVD" fleet "$D/fleet" --no-color --json "$D/fleet.json" --html "$D/fleet.html" >"$D/fleet.txt" 2>&1
[ $? = 1 ] && ok || bad "fleet: exit not 1"
"$RVD" report "$D/r.json" --html "$D/redacted.html" --redact >/dev/null 2>&1
[ $? = 0 ] && ok || bad "report --html --redact: exit not 0"

if command -v xmllint >/dev/null 2>&1; then
    if xmllint --noout --schema reports/junit.xsd "$D/r.xml" 2>"$D/xsd.err"; then ok; else
        bad "JUnit report against reports/junit.xsd: $(head -3 "$D/xsd.err")"
    fi
fi
if command -v promtool >/dev/null 2>&1; then
    if promtool check metrics <"$D/r.prom" >"$D/promtool.out" 2>&1; then ok; else
        bad "promtool check metrics: $(head -3 "$D/promtool.out")"
    fi
fi

/usr/bin/python3 - "$D" >"$D/py.out" 2>&1 <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
D = sys.argv[1]
passed = failed = 0
def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL gpu_verdicts: " + what)

d = json.load(open(D + "/r.json"))
c = {x["id"]: x for x in d["checks"]}
try:
    import jsonschema
    jsonschema.validate(d, json.load(open("reports/schema.json")))
    check(True, "")
except ImportError:
    print("SKIP gpu_verdicts: python3-jsonschema missing, the schema is not checked")
except jsonschema.ValidationError as e:
    check(False, "JSON report against reports/schema.json: %s" % e.message)

# the control: the schema refuses a per-GPU item without its status
try:
    import jsonschema
    bad_doc = json.loads(json.dumps(d))
    del [x for x in bad_doc["checks"] if x["id"] == "gpu.thermal"][0]["gpus"][0]["status"]
    try:
        jsonschema.validate(bad_doc, json.load(open("reports/schema.json")))
        check(False, "the schema accepted a gpus item without a status")
    except jsonschema.ValidationError:
        check(True, "")
except ImportError:
    pass

# ---- JSON: every per-GPU check has a verdict per GPU, the worst wins ----
SEV = {"pass": 0, "skip": 1, "warn": 2, "timeout": 3, "error": 4, "fail": 5}
PCI = ["0000:05:00.0", "0000:15:00.0", "0000:65:00.0", "0000:75:00.0",
       "0000:85:00.0", "0000:95:00.0", "0000:e5:00.0", "0000:f5:00.0"]
per_gpu = [x for x in d["checks"] if "gpus" in x]
check(len(per_gpu) >= 15, "only %d checks have a gpus array" % len(per_gpu))
for x in per_gpu:
    g = x["gpus"]
    check([i["gpu"] for i in g] == list(range(8)), "%s: GPUs %r" % (x["id"], [i["gpu"] for i in g]))
    check([i["pci"] for i in g] == PCI, "%s: PCI addresses %r" % (x["id"], [i["pci"] for i in g]))
    worst = max(g, key=lambda i: SEV[i["status"]])
    check(x["status"] == worst["status"] and x["rule"] == worst["rule"],
          "%s: status %s rule %s, worst GPU %s %s" % (x["id"], x["status"], x["rule"], worst["status"], worst["rule"]))
    check("(0 of 8 GPUs pass)" not in x["summary"], "%s: %s" % (x["id"], x["summary"]))
    for i in g:
        check((i.get("fix") is not None) == (i["status"] in ("warn", "fail")),
              "%s GPU %d: fix %r for %s" % (x["id"], i["gpu"], i.get("fix"), i["status"]))
def bad_gpus(cid):
    return {i["gpu"]: i["status"] for i in c[cid]["gpus"] if i["status"] != "pass"}
WANT = {"gpu.ras": {3: "fail"}, "gpu.thermal": {4: "fail", 6: "fail"},
        "gpu.numa_affinity": {4: "warn", 5: "warn", 6: "warn", 7: "warn"}}
for cid, want in WANT.items():
    check(bad_gpus(cid) == want, "%s: GPUs not passing %r, want %r" % (cid, bad_gpus(cid), want))
check(c["gpu.thermal"]["summary"].startswith("GPUs 4, 6 fail; GPU 4: junction 108"),
      "gpu.thermal summary: " + c["gpu.thermal"]["summary"])
check(c["gpu.numa_affinity"]["summary"].startswith("GPUs 4-7 warn; GPU 4: "),
      "gpu.numa_affinity summary: " + c["gpu.numa_affinity"]["summary"])
check(c["gpu.ras_pages"]["summary"].startswith("not judged on 8 GPUs: "),
      "gpu.ras_pages summary: " + c["gpu.ras_pages"]["summary"])
check("gpus" not in c["kernel.svm"], "kernel.svm (not per GPU) has a gpus array")

# ---- text: the check's line and one line per failing GPU ----
text = open(D + "/r.txt").read()
flat = re.sub(r"\s+", " ", text)
for needle in ("GPUs 4, 6 fail; GPU 4: junction 108", "GPU 4 (0000:85:00.0) fail: junction 108",
               "GPU 6 (0000:e5:00.0) fail: junction 108", "GPUs 4-7 warn;",
               "GPU 7 (0000:f5:00.0) warn:", "GPU 3: 1 uncorrectable error in the GPU's engines",
               "not judged on 8 GPUs"):
    check(needle in flat, "text report lacks %r" % needle)
check("(0 of 8 GPUs pass)" not in flat, "text report says (0 of 8 GPUs pass)")
check("GPU 0 (0000:05:00.0)" not in flat, "text report has a line for a GPU that passed")
m = re.sub(r"\s+", " ", open(D + "/m.txt").read())
check("GPU 1 (0000:c6:00.0) warn: mem 80" in m and "GPU 0 fails, GPU 1 warns;" in m,
      "mi250x-degraded: GPU 1's warning is not stated")

# ---- JUnit: one testcase per GPU of a per-GPU check ----
root = ET.parse(D + "/r.xml").getroot()
cases = list(root.iter("testcase"))
n_want = sum(len(x.get("gpus", [])) if len(x.get("gpus", [])) > 1 else 1 for x in d["checks"])
check(len(cases) == n_want and root.find("testsuite").get("tests") == str(n_want),
      "%d testcases (tests=%s), want %d" % (len(cases), root.find("testsuite").get("tests"), n_want))
failing = sorted(t.get("name") for t in cases if t.find("failure") is not None)
check(failing == ["gpu.ras (GPU 3, 0000:75:00.0)", "gpu.thermal (GPU 4, 0000:85:00.0)",
                  "gpu.thermal (GPU 6, 0000:e5:00.0)"], "JUnit failures %r" % failing)
check(root.find("testsuite").get("failures") == "3", "JUnit failures= %s" % root.find("testsuite").get("failures"))
g3 = [t for t in cases if t.get("name") == "gpu.ras (GPU 3, 0000:75:00.0)"]
out3 = g3[0].find("system-out").text if g3 else ""
check("gpu.3.ras_engine_ue" in out3 and "gpu.4.ras" not in out3,
      "the GPU 3 testcase's evidence is not GPU 3's alone")

# ---- Prometheus: a strict reader of the exposition format ----
NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)')
series, fam, typ, ok = {}, None, None, True
for n, l in enumerate(open(D + "/r.prom").read().split("\n")[:-1], 1):
    if l.startswith("# HELP "):
        fam, typ = l[7:].split(" ", 1)[0], None
        ok = ok and bool(NAME.match(fam))
    elif l.startswith("# TYPE "):
        name, typ = l[7:].split(" ")
        ok = ok and name == fam
    else:
        mm = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$", l)
        if not mm or mm.group(1) != fam or not typ:
            ok = False
            print("line %d: %r" % (n, l))
            continue
        labels, body, i = {}, (mm.group(2) or "{}")[1:-1], 0
        while i < len(body):
            lm = LABEL.match(body, i)
            if not lm:
                ok = False
                break
            labels[lm.group(1)] = lm.group(2)
            i = lm.end()
        key = (mm.group(1), tuple(sorted(labels.items())))
        ok = ok and key not in series
        series[key] = float(mm.group(3))
check(ok, "the .prom file is not valid exposition format")
CODE = {"pass": 0, "skip": 1, "warn": 2, "fail": 3, "error": 4, "timeout": 5}
st = {k[1]: v for k, v in series.items() if k[0] == "rocm_vla_doctor_check_status"}
for x in d["checks"]:
    check(st.get((("check", x["id"]),)) == CODE[x["status"]], "prom: %s has no worst series" % x["id"])
    for i in x.get("gpus", []):
        k = (("check", x["id"]), ("gpu", str(i["gpu"])), ("pci", i["pci"]))
        check(st.get(k) == CODE[i["status"]], "prom: %s GPU %d: %r" % (x["id"], i["gpu"], st.get(k)))
alert = sorted((dict(k)["check"], dict(k)["gpu"]) for k, v in st.items() if "gpu" in dict(k) and v >= 3)
check(alert == [("gpu.ras", "3"), ("gpu.thermal", "4"), ("gpu.thermal", "6")], "prom alert set %r" % alert)

# ---- HTML: the findings' per-GPU tables ----
class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.finding, self.rows, self.row, self.cell, self.depth = None, {}, None, None, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and "finding" in (a.get("class") or "").split():
            self.finding = a.get("id")
        if tag == "table" and a.get("class") == "gpus":
            self.depth = 1
            self.rows.setdefault(self.finding, [])
        elif self.depth and tag == "tr":
            self.row = []
        elif self.depth and tag == "td":
            self.cell = ""
    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth = 0
        elif self.depth and tag == "td" and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif self.depth and tag == "tr" and self.row:
            self.rows[self.finding].append(self.row)
            self.row = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
p = Tables()
p.feed(open(D + "/r.html").read())
for cid, want in WANT.items():
    rows = p.rows.get(cid, [])
    check(len(rows) == 8 and all(r[1] == PCI[int(r[0])] for r in rows),
          "HTML %s: per-GPU rows %r" % (cid, rows[:2]))
    got = {int(r[0]): r[2].split()[-1] for r in rows if "pass" not in r[2]}
    check(got == want, "HTML %s: GPUs not passing %r, want %r" % (cid, got, want))

# ---- markdown: the not-passing GPUs of each finding ----
md = open(D + "/r.md").read()
for gpu, pci, stt in ((3, PCI[3], "fail"), (4, PCI[4], "fail"), (6, PCI[6], "fail"), (7, PCI[7], "warn")):
    check("  | %d | `%s` | %s |" % (gpu, pci, stt) in md, "markdown lacks the row of GPU %d" % gpu)
check("| 0 | `0000:05:00.0`" not in md, "markdown lists a GPU that passed")
# ---- fleet: the drain list in text, JSON and HTML; the duplicate host ----
fl = json.load(open(D + "/fleet.json"))
try:
    import jsonschema
    jsonschema.validate(fl, json.load(open("reports/fleet-schema.json")))
    check(True, "")
except ImportError:
    pass
except jsonschema.ValidationError as e:
    check(False, "fleet JSON against reports/fleet-schema.json: %s" % e.message)
drain = [(x["node"], x["file"].split("/")[-1], x["gpu"], x["check"]) for x in fl["drain"] if x["node"] != "mi300x-node12"]
want_r = [("mi300x-node11", f, g, k) for f in ("a.json", "c.json")
          for g, k in ((4, "gpu.thermal"), (6, "gpu.thermal"), (3, "gpu.ras"))]
check([x for x in drain if x[0] == "mi300x-node11"] == want_r, "fleet drain of mi300x-node11: %r" % drain)
check(("hpc-gpu12", "b.json", 0, "gpu.thermal") in drain and ("hpc-gpu12", "b.json", None, "kernel.svm") in drain,
      "fleet drain of mi250x-degraded: %r" % drain)
check(all(x["pci"] for x in fl["drain"] if x["gpu"] is not None), "a drained GPU without its PCI address")
check([(x["hostname"], [f.split("/")[-1] for f in x["files"]]) for x in fl["duplicate_hosts"]] ==
      [("mi300x-node11", ["a.json", "c.json"])], "duplicate hosts %r" % fl["duplicate_hosts"])
check([(x["serial"], [f.split("/")[-1] for f in x["files"]]) for x in fl["duplicate_gpus"]] ==
      [("692413000101", ["a.json", "c.json"]), ("692413000106", ["a.json", "d.json"])],
      "duplicate GPUs %r" % fl["duplicate_gpus"])
ft = re.sub(r"\s+", " ", open(D + "/fleet.txt").read())
for needle in ("Drain (node, GPU, the check that failed):", "mi300x-node11 GPU 3 (0000:75:00.0): gpu.ras fail:",
               "mi300x-node11 GPU 6 (0000:e5:00.0): gpu.thermal fail:", "hpc-gpu12 the node: kernel.svm fail:",
               "both report host 'mi300x-node11'", "d.json both report the GPU of serial '692413000106'"):
    check(needle in ft, "fleet text lacks %r" % needle)
class Drain(HTMLParser):
    def __init__(self):
        super().__init__()
        self.on, self.rows, self.row, self.cell, self.dup = False, [], None, None, ""
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("class") == "drain":
            self.on = True
        elif self.on and tag == "tr":
            self.row = []
        elif self.on and tag == "td":
            self.cell = ""
    def handle_endtag(self, tag):
        if tag == "table":
            self.on = False
        elif self.on and tag == "td" and self.row is not None:
            self.row.append(self.cell.strip()); self.cell = None
        elif self.on and tag == "tr" and self.row:
            self.rows.append(self.row); self.row = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        self.dup += data
h = Drain()
h.feed(open(D + "/fleet.html").read())
check(len(h.rows) == len(fl["drain"]) and ["mi300x-node11", "3", "0000:75:00.0", "gpu.ras"] in [r[:4] for r in h.rows],
      "fleet page drain rows %r" % h.rows[:3])
check("both report host" in h.dup and "both report the GPU of serial 692413000106" in h.dup,
      "fleet page does not flag the duplicate host and GPU")
# the serials are redacted like the host name on a page to share
red = open(D + "/redacted.html").read()
check("692413000" not in red and "&lt;serial&gt;" in red and "692413000" in open(D + "/r.html").read(),
      "report --html --redact does not hide the GPU serials")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
py=$?
grep '^FAIL\|^SKIP\|^line' "$D/py.out"
counts=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$D/py.out")
if [ -n "$counts" ]; then
    pass=$((pass + ${counts% *}))
    fail=$((fail + ${counts#* }))
fi
[ "$py" = 0 ] || [ -n "$counts" ] || bad "the checker did not run: $(tail -3 "$D/py.out")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
