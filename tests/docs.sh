#!/bin/sh
# docs.sh - the documentation and report contracts: both man pages are clean
# under `mandoc -T lint`, every check id has an entry in rocm-vla-doctor(1),
# each command's SYNOPSIS names exactly its option table's options,
# the JSON report of a live run validates against reports/schema.json (and
# `--json -` keeps stdout pure JSON), the JUnit report validates against
# reports/junit.xsd, escaping survives hostile text end to end, the
# schemas reject documents they must reject, and ARCHITECTURE.md lists the
# folders in the order of tools/layers.order.
# Environment: RVD (the binary), OUT (a scratch directory).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
D="$OUT/docs"
mkdir -p "$D"
PY=/usr/bin/python3 # Debian's, which has python3-jsonschema
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL docs $*"
}

# ---- man pages -----------------------------------------------------------
# mandoc checks .Xr against the manuals installed on this machine only: the
# two pages' references to each other until they are installed, and any
# other page's (promtool, srun, prometheus-node-exporter) where its package
# is absent, are "not found". That says what this machine has, not what the
# page gets wrong, so it is the one message allowed (make test is green with
# or without those packages). Lines without file:line:col (mandoc.db notes)
# are not lint.
for page in man/rocm-vla-doctor.1 man/checks.yaml.5; do
    mandoc -T lint "$page" >"$D/lint.out" 2>&1
    msgs=$(grep -E '^mandoc: [^:]+:[0-9]+:[0-9]+: ' "$D/lint.out" |
        grep -vE 'STYLE: referenced manual not found: Xr [A-Za-z0-9_.+-]+ [1-8]( \([0-9]+ times\))?$')
    if [ -z "$msgs" ]; then ok; else bad "mandoc -T lint $page: $msgs"; fi
    if mandoc -T ascii "$page" >/dev/null 2>&1; then ok; else bad "mandoc cannot render $page"; fi
done

# every check id has an entry in the CHECKS section, and every entry there is
# a check (a renamed or removed check leaves no stale entry)
"$RVD" list >"$D/list.out" 2>&1 || bad "rocm-vla-doctor list failed"
sed -n '/^\.Sh CHECKS$/,/^\.Sh /p' man/rocm-vla-doctor.1 |
    sed -n 's/^\.It Cm \([^ ]*\).*/\1/p' | sort >"$D/man-ids"
awk '{print $1}' "$D/list.out" | sort >"$D/list-ids"
if [ -s "$D/list-ids" ]; then ok; else bad "rocm-vla-doctor list printed no ids"; fi
missing=$(comm -23 "$D/list-ids" "$D/man-ids" | tr '\n' ' ')
if [ -z "$missing" ]; then ok; else bad "check ids missing from man/rocm-vla-doctor.1 CHECKS: $missing"; fi
stale=$(comm -13 "$D/list-ids" "$D/man-ids" | tr '\n' ' ')
if [ -z "$stale" ]; then ok; else bad "man/rocm-vla-doctor.1 CHECKS names unknown checks: $stale"; fi

# the CHECKS list is written from checks.yaml (make man): the committed block
# is what this checks.yaml gives, so the manual states the rules applied
if "$RVD" list man --checks checks.yaml >"$D/man-checks.gen" 2>"$D/man-checks.err"; then ok; else
    bad "list man failed: $(head -3 "$D/man-checks.err")"
fi
sed -n '/^\.\\" BEGIN CHECKS/,/^\.\\" END CHECKS/p' man/rocm-vla-doctor.1 >"$D/man-checks.page"
if [ -s "$D/man-checks.gen" ] && cmp -s "$D/man-checks.gen" "$D/man-checks.page"; then ok; else
    bad "man/rocm-vla-doctor.1 CHECKS is not what checks.yaml gives (run make man): $(diff "$D/man-checks.page" "$D/man-checks.gen" | head -5)"
fi

# ---- JSON report of a live run ---------------------------------------------
"$RVD" --no-color --json "$D/live.json" --junit "$D/live.junit.xml" >"$D/live.txt" 2>"$D/live.err"
rc=$?
if [ "$rc" -le 1 ]; then ok; else bad "live run exited $rc: $(head -3 "$D/live.err")"; fi
cp "$D/live.json" "$OUT/live.json" 2>/dev/null
if $PY tests/validate_json.py reports/schema.json "$D/live.json" >"$D/live.schema" 2>&1; then
    ok
else
    bad "live JSON does not match reports/schema.json: $(head -3 "$D/live.schema")"
fi
# what the schema cannot say: counts add up, exit_code is the process's,
# facts are sorted, evidence values agree with the facts
if $PY - "$D/live.json" "$rc" >"$D/live.consistency" 2>&1 <<'EOF'; then ok; else bad "live JSON inconsistent: $(head -3 "$D/live.consistency")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
st = [c["status"] for c in d["checks"]]
for k in ("pass", "warn", "fail", "skip", "error", "timeout"):
    assert s[k] == st.count(k), (k, s[k], st.count(k))
assert s["total"] == len(d["checks"]), "total"
assert s["exit_code"] == int(sys.argv[2]), ("exit_code", s["exit_code"], sys.argv[2])
names = list(d["facts"])
assert names == sorted(names), "facts not sorted"
assert list(d["facts_meta"]) == names, "facts_meta does not match facts"
for c in d["checks"]:
    for k, v in c["evidence"].items():
        if k in d["facts"]:
            assert d["facts"][k] == v, ("evidence differs from fact", c["id"], k)
EOF

# `--json -`: stdout is exactly one JSON document, the text report on stderr
"$RVD" --no-color --json - >"$D/stdout.json" 2>"$D/stdout.err"
if $PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$D/stdout.json" 2>"$D/stdout.py"; then
    ok
else
    bad "--json - does not write only JSON to stdout: $(head -2 "$D/stdout.py")"
fi
if grep -q 'passed,' "$D/stdout.err"; then ok; else bad "--json -: the text report is not on stderr"; fi

# ---- JUnit report ------------------------------------------------------------
if xmllint --noout --schema reports/junit.xsd "$D/live.junit.xml" >"$D/live.xsd" 2>&1; then
    ok
else
    bad "live JUnit does not match reports/junit.xsd: $(head -3 "$D/live.xsd")"
fi
if $PY - "$D/live.junit.xml" "$D/live.json" >"$D/live.junit.cmp" 2>&1 <<'EOF'; then ok; else bad "JUnit disagrees with JSON: $(head -3 "$D/live.junit.cmp")"; fi
import json, sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
d = json.load(open(sys.argv[2]))
cases = suite.findall("testcase")
# a per-GPU check of several GPUs is a testcase per GPU of its "gpus" (issue 34)
def name(c, g):
    return c["id"] if g is None else "%s (GPU %d%s)" % (c["id"], g["gpu"], ", " + g["pci"] if g["pci"] else "")
want = [(c, g, name(c, g)) for c in d["checks"]
        for g in (c["gpus"] if len(c.get("gpus", [])) > 1 else [None])]
assert [c.get("name") for c in cases] == [w[2] for w in want], "ids"
st = [w[1]["status"] if w[1] else w[0]["status"] for w in want]
assert int(suite.get("tests")) == len(want)
assert int(suite.get("failures")) == st.count("fail")
assert int(suite.get("errors")) == st.count("error") + st.count("timeout")
assert int(suite.get("skipped")) == st.count("skip")
for tc, w in zip(cases, want):
    assert tc.get("classname") == w[0]["id"].split(".")[0]
    status = w[1]["status"] if w[1] else w[0]["status"]
    tag = {"fail": "failure", "error": "error", "timeout": "error", "skip": "skipped"}.get(status)
    kids = [k.tag for k in tc if k.tag != "system-out"]
    assert kids == ([tag] if tag else []), (w[2], kids)
EOF

# ---- hostile text end to end: a checks file whose strings need escaping ------
cat >"$D/escape.yaml" <<'EOF'
schema: rocm-vla-doctor-checks/1
checks:
  - id: docs.escape_fail
    title: "<title> & \"quotes\" 'apos'"
    level: quick
    fail:
      - when: "true"
        summary: "bell\a esc\e tab\t nl\n <b>&amp; \"q\" 'a' \\ caf\u00e9 \U0001F600 \uFFFE"
        fix: "fix ]]> with <tags> & \x01"
    pass:
      summary: "never"
    why: "escaping test"
  - id: docs.escape_warn
    title: warn
    level: quick
    warn:
      - when: "1 < 2"
        summary: "warned <x>"
        fix: "f"
    pass:
      summary: "never"
    why: "strict test"
EOF
# the manual's CHECKS list from text that is roff: control lines, escapes,
# quotes in a condition, controls and non-ASCII; lint-clean and shown as written
cat >"$D/escape-man.yaml" <<'EOF'
schema: rocm-vla-doctor-checks/1
checks:
  - id: docs.escape_man
    title: ".Sh NAME \\fB bold"
    level: quick
    per: gpu
    fail:
      - when: "gpu.gfx == \"\\\\\" || gpu.gfx == \".Sh\""
        summary: "'quoted start. .Sh mid {gpu.vram_bytes:gib} GiB of {gpu.count:GPU/GPUs} stat() -- {sudo}x"
        fix: "bell\a caf\u00e9 \U0001F600"
    pass:
      summary: "never"
    why: "escaping test. .TH too"
EOF
{
    printf '.Dd January 1, 2026\n.Dt T 1\n.Os\n.Sh NAME\n.Nm t\n.Nd t\n.Sh DESCRIPTION\n'
    "$RVD" list man --checks "$D/escape-man.yaml"
} >"$D/escape-man.1"
mandoc -T lint "$D/escape-man.1" >"$D/escape-man.lint" 2>&1
if ! grep -q '^mandoc: .*:[0-9]*:[0-9]*: ' "$D/escape-man.lint"; then ok; else
    bad "list man of hostile text is not lint-clean: $(head -3 "$D/escape-man.lint")"
fi
mandoc -T utf8 "$D/escape-man.1" 2>&1 | col -bx | tr -s ' \n' '  ' >"$D/escape-man.txt"
for want in '.Sh NAME \fB bold.' 'gpu.gfx == "\\" || gpu.gfx == ".Sh"' "'quoted start." \
    '.Sh mid gpu.vram_bytes GiB of gpu.count GPUs stat() -- sudo x.' 'café 😀' 'escaping test. .TH too'; do
    if grep -qF -- "$want" "$D/escape-man.txt"; then ok; else
        bad "list man does not show '$want' as written: $(head -c 600 "$D/escape-man.txt")"
    fi
done
"$RVD" --checks "$D/escape.yaml" --no-color --json "$D/escape.json" --junit "$D/escape.xml" \
    >"$D/escape.txt" 2>&1
rc=$?
if [ "$rc" = 1 ]; then ok; else bad "escape run exited $rc, want 1: $(head -3 "$D/escape.txt")"; fi
if $PY tests/validate_json.py reports/schema.json "$D/escape.json" >"$D/escape.schema" 2>&1; then
    ok
else
    bad "escape JSON does not match the schema: $(head -3 "$D/escape.schema")"
fi
if xmllint --noout --schema reports/junit.xsd "$D/escape.xml" >"$D/escape.xsd" 2>&1; then
    ok
else
    bad "escape JUnit is not valid XML for the XSD: $(head -3 "$D/escape.xsd")"
fi
if $PY - "$D/escape.json" "$D/escape.xml" >"$D/escape.cmp" 2>&1 <<'EOF'; then ok; else bad "escaping does not round-trip: $(head -3 "$D/escape.cmp")"; fi
import json, sys, xml.etree.ElementTree as ET
summary = "bell\a esc\x1b tab\t nl\n <b>&amp; \"q\" 'a' \\ caf\u00e9 \U0001F600 \uFFFE"
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["summary"] == summary, repr(c["summary"])
assert c["title"] == "<title> & \"quotes\" 'apos'", repr(c["title"])
assert c["fix"] == "fix ]]> with <tags> & \x01", repr(c["fix"])
# XML 1.0 cannot carry C0 controls other than tab/newline/CR, nor U+FFFE
want = summary.replace("\a", "\ufffd").replace("\x1b", "\ufffd").replace("\ufffe", "\ufffd")
tc = ET.parse(sys.argv[2]).getroot().find("testsuite").find("testcase")
f = tc.find("failure")
assert f.get("message") == want, repr(f.get("message"))
assert f.text == "fix ]]> with <tags> & \ufffd", repr(f.text)
EOF
"$RVD" --checks "$D/escape.yaml" --only docs.escape_warn --json "$D/warn.json" >/dev/null 2>&1
rc=$?
"$RVD" --checks "$D/escape.yaml" --only docs.escape_warn --strict --json "$D/strict.json" \
    >/dev/null 2>&1
rc_strict=$?
if [ "$rc" = 0 ] && [ "$rc_strict" = 1 ]; then ok; else bad "warn exit $rc/$rc_strict, want 0/1"; fi
got=$($PY -c 'import json,sys; print(*[json.load(open(f))["summary"]["exit_code"] for f in sys.argv[1:]])' \
    "$D/warn.json" "$D/strict.json" 2>&1)
if [ "$got" = "0 1" ]; then ok; else bad "summary.exit_code without/with --strict: '$got', want '0 1'"; fi

# ---- the schemas reject what they must ---------------------------------------
$PY - "$D/live.json" "$D" <<'EOF'
import copy, json, sys
d = json.load(open(sys.argv[1]))
out = sys.argv[2]
def write(name, doc):
    json.dump(doc, open(f"{out}/{name}.json", "w"))
bogus = copy.deepcopy(d)
bogus["checks"].append({"id": "x.y", "title": "t", "status": "bogus", "level": "quick",
                        "summary": "", "fix": None, "evidence": {}})
write("neg-status", bogus)
obj = copy.deepcopy(d)
obj["facts"]["x.object"] = {"nested": 1}
obj["facts_meta"]["x.object"] = {"source": None, "reason": None}
write("neg-fact-object", obj)
extra = copy.deepcopy(d)
extra["summary"]["bonus"] = 1
write("neg-extra-key", extra)
badid = copy.deepcopy(d)
badid["checks"].append({"id": "Bad.Id.", "title": "t", "status": "pass", "level": "quick",
                        "summary": "", "fix": None, "evidence": {}})
write("neg-id", badid)
nolevel = copy.deepcopy(d)
del nolevel["host"]["level"]
write("neg-missing", nolevel)
EOF
for neg in neg-status neg-fact-object neg-extra-key neg-id neg-missing; do
    if [ ! -f "$D/$neg.json" ]; then
        bad "could not build $neg.json"
    elif $PY tests/validate_json.py reports/schema.json "$D/$neg.json" >"$D/$neg.out" 2>&1; then
        bad "reports/schema.json accepts $neg.json"
    else
        ok
    fi
done
sed '0,/<testcase classname="\([^"]*\)" name="[^"]*">/s//<testcase classname="\1">/' \
    "$D/live.junit.xml" >"$D/neg-noname.xml"
if grep -q '<testcase classname="[^"]*">' "$D/neg-noname.xml" &&
    ! xmllint --noout --schema reports/junit.xsd "$D/neg-noname.xml" >"$D/neg-noname.out" 2>&1; then
    ok
else
    bad "reports/junit.xsd accepts a <testcase> without name"
fi
sed 's|<testsuite name=|<testsuite bogus="1" name=|' "$D/live.junit.xml" >"$D/neg-attr.xml"
if xmllint --noout --schema reports/junit.xsd "$D/neg-attr.xml" >/dev/null 2>&1; then
    bad "reports/junit.xsd accepts an unknown testsuite attribute"
else
    ok
fi

# every command of the binary's command table is in the man page's SYNOPSIS
syn=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' man/rocm-vla-doctor.1)
cmds=$(sed -n '/commands\[\] = {/,/^};/p' src/main.c | grep -o '{"[a-z]*",' | tr -d '{",')
[ "$(echo $cmds | wc -w)" -ge 7 ] && ok || bad "cannot read the command table of src/main.c"
for cmd in $cmds; do
    if [ "$cmd" = check ] || printf '%s\n' "$syn" | grep -qx ".Cm $cmd"; then
        ok
    else
        bad "command $cmd is missing from the SYNOPSIS of man/rocm-vla-doctor.1"
    fi
done

# each command's SYNOPSIS names exactly the options of its table
if out=$(python3 tests/man_options.py "$RVD" man/rocm-vla-doctor.1); then ok; else bad "$out"; fi

# fix texts name the privilege prefix as {sudo} (rendered from user.is_root
# and host.sudo_present), never a literal "sudo ", so a fix fits the machine:
# root or a machine without sudo gets no "sudo" prefix
lit=$(grep -n '^ *fix: ' checks.yaml | sed 's/{sudo}//g' | grep -E '(^|[^a-z_])sudo ' || true)
if [ -z "$lit" ]; then ok; else bad "checks.yaml fix text with a literal sudo: $lit"; fi
[ "$(grep -c '{sudo}' checks.yaml)" -ge 10 ] && ok || bad "checks.yaml: fewer {sudo} placeholders than expected"

# a fixture recorded by collect says so in its README; a built tree does not
# claim to be recorded
for d in tests/fixtures/*/; do
    d=${d%/}
    if [ -f "$d/snapshot.tar.gz" ]; then
        grep -q '^Recorded live' "$d/README" && ok || bad "$d: a recorded snapshot whose README does not say 'Recorded live'"
    elif grep -qi 'recorded live' "$d/README" "$d/expected" 2>/dev/null; then
        bad "$d: a built tree described as recorded live"
    else
        ok
    fi
done

# ---- the layers ---------------------------------------------------------------
# docs/ARCHITECTURE.md's "Source layout" table lists the folders in the order
# of tools/layers.order (bottom first), the one the layer check enforces
sed -n '/^## Source layout$/,/^## /p' docs/ARCHITECTURE.md |
    sed -n 's/^| `\([^`]*\)` |.*/\1/p' |
    sed 's|^src/main\.c$|main|; s|^src/||; s|/$||' >"$D/layers-doc"
sed 's/#.*//' tools/layers.order | awk 'NF { print $1 }' >"$D/layers-order"
if [ -s "$D/layers-order" ] && cmp -s "$D/layers-doc" "$D/layers-order"; then
    ok
else
    bad "docs/ARCHITECTURE.md's Source layout table ($(tr '\n' ' ' <"$D/layers-doc")) is not tools/layers.order ($(tr '\n' ' ' <"$D/layers-order"))"
fi
# every folder of the tree is in the order (and the table)
for dir in src/*/ probes/; do
    name=$(basename "$dir")
    if grep -qx "$name" "$D/layers-order"; then ok; else bad "folder $dir is not in tools/layers.order"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
