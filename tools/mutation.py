#!/usr/bin/env python3
"""mutation.py - which behaviour changes would the tests miss? (`make mutation`)

Rule mutations: every `when:` of checks.yaml is changed one way at a time
  - the rule removed (its whole list item),
  - the condition negated,
  - each number in it x10 and /10 (0 becomes 1),
  - each comparison swapped (< <=, > >=, == !=) and each connective (&& ||),
and the mutant is judged by the fast layers that read checks.yaml:
  - every fixture machine's recorded facts re-judged with the mutant
    (build/tools/mutation_eval; the facts come from one run of each
    fixture with the committed checks.yaml, so a mutant costs milliseconds),
  - the unit tests that load checks.yaml (test_boundaries, test_verdicts,
    test_thermal, test_peaks, test_sources) with RVD_TEST_CHECKS=<mutant>.
A mutant that no layer tells apart from the original is a survivor: a rule,
threshold or operator that no test pins.

Data mutations (all of them without --only; --data adds them to --only,
--data-only runs them alone): each figure of the peaks table x2 and /2,
each wheel index's Python tags one removed and the next CPython added,
judged like the rule mutants (test_sources reads the cited tables).

C mutations: each entry of tools/mutations-c.txt (file, the exact text,
its replacement, why) is applied to a copy of the tree, built, and run
through the unit tests and tests/fixtures.sh. An entry with a "gpu:" field
(a decision only a GPU run reaches; the H200 pins catch it) is judged only
with --gpu, on a GPU machine, through tests/gpu_device.sh as well; without
--gpu it is listed as not judged.

Survivors go to BUILD/mutation/survivors.txt, one per line, with what was
changed; the summary line says how many mutants each kind killed. Exit 0
always (a survivor is a finding for a reviewer, not a build failure): this
is a developer's tool, not part of `make test`.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

BUILD = os.environ.get("BUILD", "build")
RVD = os.path.join(BUILD, "rocm-vla-doctor")
EVAL = os.path.join(BUILD, "tools", "mutation_eval")
UNITS = ["test_boundaries", "test_verdicts", "test_thermal", "test_peaks", "test_sources"]
FIX = "tests/fixtures"

WHEN = re.compile(r'^(?P<indent>\s*)(?P<dash>- )?when: "(?P<expr>(?:[^"\\]|\\.)*)"\s*$')
NUMBER = re.compile(r'(?<![\w.])(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])')
SWAPS = [("<=", "<"), (">=", ">"), ("==", "!="), ("!=", "=="), ("&&", "||"), ("||", "&&")]
SINGLE = [("<", "<="), (">", ">=")]  # only where not part of <= >=


def fixture_runs(tmp):
    """each fixture once with the committed checks.yaml: its JSON report"""
    pairs = []
    for name in sorted(os.listdir(FIX)):
        d = os.path.join(FIX, name)
        exp = os.path.join(d, "expected")
        if not os.path.isfile(exp):
            continue
        root = os.path.join(d, "root")
        if not os.path.isdir(root):
            root = os.path.join(d, "snapshot.tar.gz")
        args = []
        if os.path.isfile(os.path.join(d, "args")):
            for a in open(os.path.join(d, "args")).read().splitlines():
                if a:
                    args.append(a.replace("@FIX@", d))
        out = os.path.join(tmp, name + ".json")
        subprocess.run([RVD, "--sysroot", root, "--no-color", "--json", out] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if os.path.isfile(out):
            pairs += [out, exp]
        else:
            print("mutation: %s gave no JSON report; left out" % name, file=sys.stderr)
    return pairs


def check_of(lines, i):
    """the id of the check a line belongs to"""
    for k in range(i, -1, -1):
        m = re.match(r"^\s*- id: (\S+)", lines[k])
        if m:
            return m.group(1)
    return "?"


def item_span(lines, i):
    """the lines of the list item that starts at line i (a `- when:`)"""
    ind = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    while j < len(lines):
        s = lines[j]
        if s.strip() and len(s) - len(s.lstrip()) <= ind:
            break
        j += 1
    return i, j


def expr_mutants(expr):
    out = [("negated", "!(%s)" % expr)]
    for m in NUMBER.finditer(expr):
        v = m.group(1)
        f = float(v)
        isint = re.fullmatch(r"\d+", v) is not None
        for label, nv in (("x10", f * 10), ("/10", f / 10 if f else 1)):
            text = str(int(nv)) if isint and nv == int(nv) else repr(nv)
            if text != v:
                out.append(("%s %s -> %s at %d" % (label, v, text, m.start()),
                            expr[:m.start()] + text + expr[m.end():]))
    # the position names which of several equal operators was swapped
    for a, b in SWAPS:
        for m in re.finditer(re.escape(a), expr):
            out.append(("'%s' -> '%s' at %d" % (a, b, m.start()),
                        expr[:m.start()] + b + expr[m.end():]))
    for a, b in SINGLE:
        for m in re.finditer(r"(?<![<>=!])%s(?!=)" % re.escape(a), expr):
            out.append(("'%s' -> '%s' at %d" % (a, b, m.start()),
                        expr[:m.start()] + b + expr[m.end():]))
    return out


def rule_mutants(lines, only):
    for i, line in enumerate(lines):
        m = WHEN.match(line)
        if not m:
            continue
        cid = check_of(lines, i)
        if only and not any(cid == o or (o.endswith(".") and cid.startswith(o)) for o in only):
            continue
        where = "%s (checks.yaml:%d)" % (cid, i + 1)
        if m.group("dash"):
            a, b = item_span(lines, i)
            yield where, "rule removed: %s" % m.group("expr"), lines[:a] + lines[b:]
        for label, new in expr_mutants(m.group("expr")):
            nl = list(lines)
            nl[i] = '%s%swhen: "%s"' % (m.group("indent"), m.group("dash") or "", new)
            yield where, "%s in %s" % (label, m.group("expr")), nl


PEAK_FIG = re.compile(r'^(?P<pre>\s+(?:fp16_matrix|bf16_matrix|fp32_vector|mem_transfers_per_clock): )'
                      r'(?P<v>\d+(?:\.\d+)?)\s*$')
WHEEL_PY = re.compile(r'^(?P<pre>\s+"(?P<key>rocm[^"]+)": \[)(?P<tags>cp\d+(?:, cp\d+)*)\]\s*$')


def data_mutants(lines):
    """the data tables test_sources checks against their sources: each peaks
    figure x2 and /2, each wheel index's Python tags one removed and the next
    CPython added"""
    arch, table = "?", None
    for i, line in enumerate(lines):
        m = re.match(r"^\s*- arch: (\S+)", line)
        if m:
            arch = m.group(1)
        t = re.match(r"^  (\w+):\s*$", line)
        if t:
            table = t.group(1)
        m = PEAK_FIG.match(line)
        if m:
            v = float(m.group("v"))
            for label, nv in (("x2", v * 2), ("/2", v / 2)):
                nl = list(lines)
                nl[i] = m.group("pre") + ("%g" % nv)
                yield ("peaks %s (checks.yaml:%d)" % (arch, i + 1),
                       "%s %s -> %g" % (label, line.strip(), nv), nl)
        m = WHEEL_PY.match(line)
        if m and table == "torch_wheel_python":
            tags = m.group("tags").split(", ")
            last = int(tags[-1][3:])
            for k in range(len(tags) + 1):
                new = tags[:k] + tags[k + 1:] if k < len(tags) else tags + ["cp3%d" % (last + 1)]
                nl = list(lines)
                nl[i] = m.group("pre") + ", ".join(new) + "]"
                what = ("%s removed" % tags[k]) if k < len(tags) else ("%s added" % new[-1])
                yield "torch_wheel_python %s (checks.yaml:%d)" % (m.group("key"), i + 1), what, nl


def killed_by_rules(path, pairs):
    """which layer tells the mutant apart ('' when none: a survivor)"""
    r = subprocess.run([EVAL, path] + pairs, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode == 1:
        return "fixtures: " + r.stdout.splitlines()[0]
    if r.returncode == 2:
        return "load: " + (r.stderr.strip().splitlines() or ["refused"])[0]
    for u in UNITS:
        exe = os.path.join(BUILD, "tests", u)
        if not os.path.exists(exe):
            continue
        t = subprocess.run([exe], env=dict(os.environ, RVD_TEST_CHECKS=path),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if t.returncode != 0:
            return "unit: " + u
    return ""


def c_mutants(path):
    """tools/mutations-c.txt: blocks of 'file:', 'from:', 'to:', 'why:' lines"""
    if not os.path.isfile(path):
        return []
    out, cur = [], {}
    for line in open(path).read().splitlines() + [""]:
        if not line.strip():
            if cur:
                out.append(cur)
            cur = {}
        elif not line.startswith("#"):
            k, _, v = line.partition(": ")
            cur[k.strip()] = v.replace("\\n", "\n")
    return out


def killed_by_c(m, jobs, gpu=False):
    tmp = tempfile.mkdtemp(prefix="rvd-mut-c.")
    try:
        subprocess.run(["git", "worktree", "add", "-q", "--detach", tmp, "HEAD"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for f in subprocess.run(["git", "diff", "--name-only", "HEAD"], stdout=subprocess.PIPE,
                                text=True).stdout.split():
            if os.path.isfile(f):
                shutil.copy(f, os.path.join(tmp, f))  # the uncommitted tree, as tested
        src = os.path.join(tmp, m["file"])
        text = open(src).read()
        if text.count(m["from"]) != 1:
            return "stale: the text is not found exactly once in %s" % m["file"]
        open(src, "w").write(text.replace(m["from"], m["to"]))
        b = subprocess.run(["make", "-C", tmp, "-j%d" % jobs, "unit-bins"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if b.returncode:
            return "build: does not compile"
        for t in sorted(os.listdir(os.path.join(tmp, "build", "tests"))):
            exe = os.path.join(tmp, "build", "tests", t)
            if t.startswith("test_") and os.access(exe, os.X_OK) and os.path.isfile(exe):
                if subprocess.run([exe], cwd=tmp, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode:
                    return "unit: " + t
        layers = ["tests/fixtures.sh"] + (["tests/gpu_device.sh"] if gpu else [])
        for layer in layers:
            f = subprocess.run(["sh", layer], cwd=tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               env=dict(os.environ, RVD="build/rocm-vla-doctor", OUT="build/out"))
            fails = [l for l in f.stdout.splitlines() if l.startswith("FAIL")]
            if fails:
                return "%s: %s" % (os.path.basename(layer), fails[0])
        return ""
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", tmp], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="check ids or prefixes (a,b.), as --only")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-c", action="store_true", help="rule mutations only")
    ap.add_argument("--gpu", action="store_true",
                    help="on a GPU machine: also the C mutations marked gpu:, through "
                    "tests/gpu_device.sh (minutes each)")
    ap.add_argument("--data", action="store_true",
                    help="with --only: the data table mutations too (always without --only)")
    ap.add_argument("--data-only", action="store_true",
                    help="the data table mutations alone (no rule, no C mutation)")
    a = ap.parse_args()
    only = a.only.split(",") if a.only else None
    out_dir = os.path.join(BUILD, "mutation")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    pairs = fixture_runs(out_dir)
    base = subprocess.run([EVAL, "checks.yaml"] + pairs, stdout=subprocess.PIPE, text=True)
    if base.returncode != 0:
        sys.exit("mutation: the committed checks.yaml does not reproduce the fixtures' expected "
                 "statuses from their recorded facts; fix that first:\n" + base.stdout)
    lines = open("checks.yaml").read().split("\n")
    mutants = list(rule_mutants(lines, only))
    if a.data_only:
        mutants = []
    if not only or a.data or a.data_only:
        mutants += list(data_mutants(lines))

    def judge(k):
        where, what, nl = mutants[k]
        p = os.path.join(out_dir, "m%05d.yaml" % k)
        with open(p, "w") as f:
            f.write("\n".join(nl))
        why = killed_by_rules(p, pairs)
        os.unlink(p)
        return where, what, why

    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(judge, range(len(mutants))))
    survivors = [(w, x) for w, x, why in results if not why]
    cm = [] if a.no_c or a.data_only else c_mutants("tools/mutations-c.txt")
    c_surv, gpu_left = [], [m for m in cm if m.get("gpu") and not a.gpu]
    for m in cm:
        if m in gpu_left:
            continue
        why = killed_by_c(m, a.jobs, gpu=bool(m.get("gpu")))
        if not why or why.startswith("stale"):
            c_surv.append((m["file"], "%s -> %s (%s)%s" % (m["from"].strip(), m["to"].strip(),
                                                          m.get("why", ""),
                                                          " [" + why + "]" if why else "")))
    with open(os.path.join(out_dir, "survivors.txt"), "w") as f:
        for w, x in survivors + c_surv:
            f.write("%s: %s\n" % (w, x))
    for w, x in survivors + c_surv:
        print("survivor %s: %s" % (w, x))
    for m in gpu_left:
        print("not judged here (--gpu on a GPU machine): %s: %s (%s)" % (m["file"], m["why"],
                                                                          m["gpu"]))
    print("rule and data mutants: %d, killed %d, survived %d; C mutants: %d, survived %d, "
          "%d left to --gpu (list: %s)" % (len(mutants), len(mutants) - len(survivors),
                                           len(survivors), len(cm), len(c_surv), len(gpu_left),
                                           os.path.join(out_dir, "survivors.txt")))


if __name__ == "__main__":
    main()
