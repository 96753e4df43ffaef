#!/usr/bin/env python3
"""mk-checks.py DIR - write the hostile checks files of tests/hostile_checks.sh.

Each file is small to write and tries one way of making the checks loader or
the rule language crash, hang or take gigabytes. The expected exit code,
message and position of each are in tests/hostile_checks.sh."""
import os
import sys

D = sys.argv[1]
HEAD = "schema: rocm-vla-doctor-checks/1\nchecks:\n"


def check(rule, extra=""):
    # one check on line 3; its fail rule (a double-quoted scalar) on line 8,
    # the rule text from column 20
    return (HEAD + "  - id: h.one\n    title: t\n    level: quick\n    why: w\n"
            "    pass: {summary: ok}\n"
            '    fail: [{when: "' + rule.replace("\\", "\\\\").replace('"', '\\"') +
            '", summary: s, fix: f}]\n' + extra)


def w(name, text):
    with open(os.path.join(D, name), "w") as f:
        f.write(text)


# rule language: calls without arguments, nesting, chains, length
for fn in ("len", "lower", "count", "known", "lookup"):
    w("call-%s.yaml" % fn, check("gpu.count > 0 && %s() == 1" % fn))
w("nest-paren.yaml", check("(" * 2000 + "gpu.count > 0" + ")" * 2000))
w("nest-paren-100k.yaml", check("(" * 100000 + "gpu.count > 0" + ")" * 100000))
w("nest-not.yaml", check("!" * 3000 + "(gpu.count > 0)"))
w("nest-neg.yaml", check("-" * 3000 + "gpu.count > 0"))
w("nest-list.yaml", check("gpu.count in " + "[" * 2000 + "1" + "]" * 2000))
w("chain-add.yaml", check("gpu.count" + " + gpu.count" * 300 + " > 0"))
w("chain-add-100k.yaml", check("gpu.count" + "+gpu.count" * 100000 + " > 0"))
w("chain-and.yaml", check(" && ".join(["gpu.count > 0"] * 100)))
w("long-rule.yaml", check('rocm.series == "' + "x" * 5000 + '"'))
w("number-inf.yaml", check("gpu.count > 1e999"))

# regular expressions
w("regex-expand.yaml", check('rocm.series matches "(a{255}){255}"'))
w("regex-count.yaml", check('count(kernel.dmesg.signatures, "((x{200}){200}){200}") > 0'))
w("regex-repeat.yaml", check('rocm.series matches "a{1,30000}"'))
w("regex-long.yaml", check('rocm.series matches "' + "(a|b)" * 100 + '"'))
w("regex-backref.yaml", check('rocm.series matches "(a*)*\\\\1"'))

# YAML structure
CHECK1 = "  - {id: a.b, title: t, level: quick, why: w, pass: {summary: ok}}\n"
w("dup-checks.yaml", HEAD + CHECK1 + "checks:\n" + CHECK1 * 50)
w("dup-when.yaml", check("gpu.count > 0").replace(
    "summary: s, fix: f}", "when: \"gpu.count > 1\", summary: s, fix: f}"))
w("dup-data.yaml", "schema: rocm-vla-doctor-checks/1\ndata:\n  t: [a]\n  t: [b]\nchecks:\n"
  + CHECK1)
# quadratic, not exponential: every alias of a 5000-item list becomes a
# table of its own (about 3 GB before)
items = ", ".join(["x"] * 5000)
keys = "".join("    k%d: *a\n" % i for i in range(5000))
w("alias-tables.yaml", "schema: rocm-vla-doctor-checks/1\ndata:\n  big: &a [" + items +
  "]\n  t:\n" + keys + "checks:\n" + CHECK1)
laughs = 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for i in range(1, 10):
    laughs += "l%d: &l%d [%s]\n" % (i, i, ",".join(["*l%d" % (i - 1)] * 9))
w("billion-laughs.yaml", laughs)
w("deep-flow.yaml", "checks: " + "[" * 1000000 + "\n")
w("deep-map.yaml", "checks: " + "{a: " * 200000 + "\n")
w("two-docs.yaml", HEAD + CHECK1 + "---\n" + HEAD + CHECK1)
w("huge.yaml", HEAD + CHECK1 + "#" * (4 << 20) + "\n")

# scale: as many checks as 4 MiB holds, and a 20000-key table looked up
# by 2000 rules
w("many-checks.yaml", HEAD + "".join(
    "  - {id: c.%d, title: t, level: quick, why: w, pass: {summary: ok}}\n" % i
    for i in range(55000)))
w("many-checks-dup.yaml", HEAD + "".join(
    "  - {id: c.%d, title: t, level: quick, why: w, pass: {summary: ok}}\n" % i
    for i in range(55000)) + "  - {id: c.3, title: t, level: quick, why: w, pass: {summary: ok}}\n")
w("many-lookups.yaml", "schema: rocm-vla-doctor-checks/1\ndata:\n" +
  "".join("  t%d: [a]\n" % i for i in range(20000)) + "checks:\n" +
  "".join("  - {id: c.%d, title: t, level: quick, why: w, pass: {summary: ok}, "
          "fail: [{when: 'rocm.series in lookup(t%d, rocm.series)', summary: s, fix: f}]}\n"
          % (i, 19999 - i) for i in range(2000)))

# timeouts
for name, v in (("nan", "nan"), ("inf", "inf"), ("infinity", "infinity"), ("neg", "-5"),
                ("zero", "0"), ("huge", "1e999"), ("over", "601"), ("text", "soon")):
    w("timeout-%s.yaml" % name, check("gpu.count > 0", "    timeout: %s\n" % v))
w("timeout-ok.yaml", check("gpu.count > 0", "    timeout: 600\n"))
