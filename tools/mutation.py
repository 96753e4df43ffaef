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
each index's torch releases one removed and the next minor added,
judged like the rule mutants (test_sources reads the cited tables).

C mutations: each entry of tools/mutations-c.txt (file, the exact text,
its replacement, why) is applied alone to one persistent mutation tree
(BUILD/mutation/tree, a detached git worktree built once), built
incrementally: first the doctor and the unit tests that name the file or
one of its object's symbols, then, for a mutant those and tests/fixtures.sh
miss, every unit binary and each test that was relinked; the file is then
restored byte for byte and its object rebuilt.
A mutant that does not compile counts as killed only on a compiler
error. --c-only runs the C mutations alone; --c-match TEXT and --c-from N
pick some of them (a new test's targets, the rest of a stopped run). An entry with a "gpu:" field
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
import time
from concurrent.futures import ThreadPoolExecutor

BUILD = os.environ.get("BUILD", "build")
RVD = os.path.join(BUILD, "rocm-vla-doctor")
EVAL = os.path.join(BUILD, "tools", "mutation_eval")
UNITS = ["test_boundaries", "test_verdicts", "test_thermal", "test_peaks", "test_sources"]
FIX = "tests/fixtures"
BUILD_IN_TREE = "build"  # the mutation tree builds in its own default folder

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
WHEEL_TORCH = re.compile(r'^(?P<pre>\s*"(?P<key>rocm[\d.]+)": \[)(?P<vers>"[\d.]+"(?:, "[\d.]+")*)\]\s*$')


def data_mutants(lines):
    """the data tables test_sources checks against their sources: each peaks
    figure x2 and /2, each wheel index's Python tags one removed and the next
    CPython added"""
    arch, table = "?", None
    # an index whose torch releases are not confirmed (torch_wheel_verified)
    # is not checked against wheel-indexes.tsv, so its mutants say nothing
    torch_verified, cur = set(), None
    for line in lines:
        t = re.match(r"^  (\w+):\s*$", line)
        cur = t.group(1) if t else cur
        v = re.match(r'^\s*"(rocm[\d.]+)": \[(.*)\]\s*$', line)
        if cur == "torch_wheel_verified" and v and "torch" in v.group(2).split(", "):
            torch_verified.add(v.group(1))
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
        m = WHEEL_TORCH.match(line)
        if m and table == "torch_wheel_torch" and m.group("key") in torch_verified:
            vers = m.group("vers").split(", ")
            # each release removed, and one the index never carried added
            # (the next minor of its last): wheel-indexes.tsv must tell
            for k in range(len(vers) + 1):
                if k < len(vers):
                    new, what = vers[:k] + vers[k + 1:], "%s removed" % vers[k]
                else:
                    last = vers[-1].strip('"').split(".")
                    nxt = '"%s.%d.0"' % (last[0], int(last[1]) + 1)
                    new, what = vers + [nxt], "%s added" % nxt
                if not new:
                    continue
                nl = list(lines)
                nl[i] = m.group("pre") + ", ".join(new) + "]"
                yield "torch_wheel_torch %s (checks.yaml:%d)" % (m.group("key"), i + 1), what, nl


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


def git_out(*args, cwd=None):
    return subprocess.run(["git"] + list(args), cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout


def same_file(a, b):
    try:
        with open(a, "rb") as x, open(b, "rb") as y:
            return x.read() == y.read()
    except OSError:
        return False


class CTree:
    """one persistent mutation tree (BUILD/mutation/tree): a detached git
    worktree of HEAD with the uncommitted and untracked files of this tree
    copied in, built once; a mutant then costs the one object it changes and
    the binaries that link it, where a fresh tree per mutant rebuilt all.
    GIT_DESC is fixed on make's command line so that the mutant's dirty tree
    does not rewrite version_gen.c and relink every binary."""

    def __init__(self, jobs):
        self.dir = os.path.join(BUILD, "mutation", "tree")
        self.jobs = jobs
        self.build_s, self.ran = 0.0, 0
        head = git_out("rev-parse", "HEAD").strip()
        if not os.path.isdir(os.path.join(self.dir, "src")):
            shutil.rmtree(self.dir, ignore_errors=True)
            subprocess.run(["git", "worktree", "prune"])
            subprocess.run(["git", "worktree", "add", "-q", "--detach", self.dir, head], check=True)
        else:
            # only the files that differ are rewritten (their objects rebuild)
            subprocess.run(["git", "checkout", "-q", "-f", "--detach", head], cwd=self.dir,
                           check=True)
        changed = git_out("diff", "--name-only", "HEAD").split()
        changed += git_out("ls-files", "--others", "--exclude-standard").split()
        for f in changed:
            dst = os.path.join(self.dir, f)
            if os.path.isfile(f) and not same_file(f, dst):
                os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
                shutil.copy(f, dst)  # the uncommitted tree, as tested
        r = self.make()
        if r.returncode:
            sys.exit("mutation: the mutation tree %s does not build unmutated:\n%s"
                     % (self.dir, r.stderr[-2000:]))

    def make(self, target="unit-bins"):
        targets = [target] if isinstance(target, str) else list(target)
        return subprocess.run(["make", "-C", self.dir, "-j%d" % self.jobs, "GIT_DESC=mutation"] +
                              targets, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)

    def near(self, file):
        """the unit tests whose source names the file's stem or a global
        symbol of its object (nm): the likely killers, tried first"""
        obj = os.path.join(self.dir, BUILD_IN_TREE, os.path.splitext(file)[0] + ".o")
        r = subprocess.run(["nm", "-g", "--defined-only", obj], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        names = {l.split()[-1] for l in r.stdout.splitlines() if l.split()}
        names.add(os.path.splitext(os.path.basename(file))[0])
        out = []
        d = os.path.join(self.dir, "tests", "unit")
        for src in sorted(os.listdir(d)):
            if src.startswith("test_") and src.endswith(".c"):
                with open(os.path.join(d, src), errors="replace") as f:
                    if names & set(re.findall(r"\w+", f.read())):
                        out.append(src[:-2])
        return out

    def units(self, tests, before):
        """the first of `tests` that fails ('unit: NAME'), or ''"""
        self.ran += len(tests)

        def unit(t):
            exe = os.path.join(BUILD_IN_TREE, "tests", t)  # from cwd=self.dir
            return subprocess.run([exe], cwd=self.dir, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode

        with ThreadPoolExecutor(self.jobs) as ex:
            for t, rc in zip(tests, ex.map(unit, tests)):
                if rc:
                    return "unit: " + t
        return ""

    def finish(self):
        r = self.make()
        if r.returncode:
            sys.exit("mutation: the tree does not build again:\n" + r.stderr[-2000:])

    def binaries(self):
        d = os.path.join(self.dir, BUILD_IN_TREE, "tests")
        out = {}
        for t in sorted(os.listdir(d)):
            exe = os.path.join(d, t)
            if t.startswith("test_") and os.path.isfile(exe) and os.access(exe, os.X_OK):
                out[t] = os.stat(exe).st_mtime_ns
        return out

    def judge(self, m, gpu=False):
        src = os.path.join(self.dir, m["file"])
        with open(src) as f:
            text = f.read()
        if text.count(m["from"]) != 1:
            return "stale: the text is not found exactly once in %s" % m["file"]
        before, self.ran = self.binaries(), 0
        try:
            with open(src, "w") as f:
                f.write(text.replace(m["from"], m["to"]))
            # first the doctor and the unit tests that name the file or one
            # of its object's symbols: most mutants die there, for the cost of
            # a few links where every unit binary (each links every object)
            # costs ~60. A kill there is as sound as any; a mutant that
            # survives it is judged by the fixtures and every relinked test.
            near = self.near(m["file"])
            t0 = time.monotonic()
            b = self.make([BUILD_IN_TREE + "/rocm-vla-doctor"] +
                          [BUILD_IN_TREE + "/tests/" + u for u in near])
            self.build_s = time.monotonic() - t0
            if b.returncode:
                # a compiler's diagnostic is a kill; anything else (make itself,
                # the disk) is not a verdict on the mutant
                errs = [l for l in b.stderr.splitlines() if "error:" in l]
                if errs:
                    return "build: does not compile (%s)" % errs[0].strip()
                return "stale: the build failed without a compiler error: %s" % (
                    b.stderr.strip().splitlines() or ["?"])[-1]
            why = self.units(near, before)
            if why:
                return why
            layers = ["tests/fixtures.sh"] + (["tests/gpu_device.sh"] if gpu else [])
            for layer in layers:
                f = subprocess.run(["sh", layer], cwd=self.dir, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   env=dict(os.environ, RVD=BUILD_IN_TREE + "/rocm-vla-doctor",
                                            BUILD=BUILD_IN_TREE, OUT=BUILD_IN_TREE + "/out"))
                fails = [l for l in f.stdout.splitlines() if l.startswith("FAIL")]
                if fails:
                    return "%s: %s" % (os.path.basename(layer), fails[0])
            t0 = time.monotonic()
            b = self.make()
            self.build_s += time.monotonic() - t0
            if b.returncode:
                return "stale: the full build failed after the first: %s" % (
                    b.stderr.strip().splitlines() or ["?"])[-1]
            after = self.binaries()
            return self.units([t for t in after if after[t] != before.get(t) and t not in near],
                              before)
        finally:
            # restored byte for byte and its object rebuilt; the binaries are
            # relinked by the next mutant's build (every unit binary links
            # every object, so relinking here as well doubled the cost) and
            # by finish()
            with open(src, "w") as f:
                f.write(text)
            obj = os.path.join(BUILD_IN_TREE, os.path.splitext(m["file"])[0] + ".o")
            r = self.make(obj if m["file"].endswith(".c") else "unit-bins")
            if r.returncode:
                sys.exit("mutation: the tree does not build again after %s:\n%s"
                         % (m["file"], r.stderr[-2000:]))


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
    ap.add_argument("--c-only", action="store_true",
                    help="the C mutations alone (tools/mutations-c.txt), no rule or data mutant")
    ap.add_argument("--c-match", action="append", default=[], metavar="TEXT",
                    help="only the C mutations whose file, from, to or why contains TEXT "
                    "(repeatable: any of them); to judge again the ones a new test targets")
    ap.add_argument("--c-from", type=int, default=1, metavar="N",
                    help="only the C mutations from the Nth of tools/mutations-c.txt on "
                    "(1-based): to finish a run stopped for time")
    a = ap.parse_args()
    only = a.only.split(",") if a.only else None
    out_dir = os.path.join(BUILD, "mutation")
    # the mutation tree (BUILD/mutation/tree) is kept: built once, reused
    os.makedirs(out_dir, exist_ok=True)
    for e in os.listdir(out_dir):
        if e != "tree":
            p = os.path.join(out_dir, e)
            shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)
    mutants, results = [], []
    t_rules = time.monotonic()
    if not a.c_only:
        pairs = fixture_runs(out_dir)
        base = subprocess.run([EVAL, "checks.yaml"] + pairs, stdout=subprocess.PIPE, text=True)
        if base.returncode != 0:
            sys.exit("mutation: the committed checks.yaml does not reproduce the fixtures' "
                     "expected statuses from their recorded facts; fix that first:\n" +
                     base.stdout)
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
    t_rules = time.monotonic() - t_rules
    survivors = [(w, x) for w, x, why in results if not why]
    cm = [] if a.no_c or a.data_only else c_mutants("tools/mutations-c.txt")
    c_listed = len(cm)
    cm = [m for k, m in enumerate(cm, 1) if k >= a.c_from and
          (not a.c_match or any(t in m.get(f, "") for t in a.c_match
                                for f in ("file", "from", "to", "why")))]
    c_surv, gpu_left = [], [m for m in cm if m.get("gpu") and not a.gpu]
    judged = [m for m in cm if m not in gpu_left]
    t_c, t_setup, kinds = time.monotonic(), 0.0, {}
    if judged:
        tree = CTree(a.jobs)
        t_setup = time.monotonic() - t_c
    with open(os.path.join(out_dir, "c-verdicts.txt"), "w") as log:
        for m in judged:
            t0 = time.monotonic()
            why = tree.judge(m, gpu=bool(m.get("gpu")))
            kind = why.split(":")[0] if why else "survived"
            kinds[kind] = kinds.get(kind, 0) + 1
            log.write("%s: %s -> %s [%s] %.1f s (build %.1f s, %d unit tests)\n" % (
                m["file"], m["from"].strip(), m["to"].strip(), why or "SURVIVED",
                time.monotonic() - t0, tree.build_s, tree.ran))
            log.flush()
            if not why or why.startswith("stale"):
                c_surv.append((m["file"], "%s -> %s (%s)%s" % (m["from"].strip(),
                                                              m["to"].strip(),
                                                              m.get("why", ""),
                                                              " [" + why + "]" if why else "")))
    if judged:
        tree.finish()
    t_c = time.monotonic() - t_c
    with open(os.path.join(out_dir, "survivors.txt"), "w") as f:
        for w, x in survivors + c_surv:
            f.write("%s: %s\n" % (w, x))
    for w, x in survivors + c_surv:
        print("survivor %s: %s" % (w, x))
    for m in gpu_left:
        print("not judged here (--gpu on a GPU machine): %s: %s (%s)" % (m["file"], m["why"],
                                                                          m["gpu"]))
    print("rule and data mutants: %d, killed %d, survived %d (%.1f s); C mutants: %d of %d, "
          "survived %d, %d left to --gpu (list: %s)" % (
              len(mutants), len(mutants) - len(survivors), len(survivors), t_rules, len(cm),
              c_listed, len(c_surv), len(gpu_left), os.path.join(out_dir, "survivors.txt")))
    if judged:
        print("C mutants judged: %d in %.0f s (tree set-up %.0f s, %.1f s a mutant); %s" % (
            len(judged), t_c, t_setup, (t_c - t_setup) / len(judged),
            ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))


if __name__ == "__main__":
    main()
