#!/usr/bin/env python3
"""ci_recipes.py - the CI recipes of docs/ci/ run for real, on fixture machines.

docs/ci/github-actions.yml and docs/ci/gitlab-ci.yml are parsed with PyYAML,
their keys checked (self-hosted runner, the JUnit file published, the
reports and the baseline kept as artifacts, the baseline cached under a key
of the stack), then each job is played four times in a row on one persistent
workspace, as a self-hosted runner would, with `rocm-vla-doctor` on PATH being
the binary under test with --sysroot FIXTURE added to the check runs:

  0. mi250x-degraded, no baseline yet: checks fail, the job fails, no
     diff, and a failing report never becomes a baseline
  1. mi300x-node: no baseline yet: no diff, the report becomes the baseline
  2. mi300x-node again: same stack: no diff, the baseline stays
  3. mi250x-degraded (another driver and kernel, two checks now failing):
     the diff runs and finds the regression, the job fails, the baseline stays
  4. rx7900xtx-desktop (another stack, nothing failing): the diff runs and
     passes, this report becomes the baseline
  5. rx7900xtx-desktop again: no diff, and no stale diff.json of run 4 is
     kept as this run's (the workspace persists)

and, between runs 2 and 3, mi300x-gpus-failing (mi300x-node's stack, GPU 3
with an uncorrectable engine error, gpu.ras judged too): the job fails, the
published JUnit report fails exactly the testcase of GPU 3 for gpu.ras, and
the baseline stays. The standard-level command must pass --gpu all.

The shell the recipes run is real (bash -e, as both CI systems run it); the
hosted parts (actions/cache, upload-artifact, the JUnit reporter, GitLab's
cache and artifacts) are modelled by what their documented keys say.
Usage: ci_recipes.py RVD TOP OUTDIR. Prints FAIL lines and "N passed, M failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

RVD, TOP, OUT = (os.path.abspath(a) for a in sys.argv[1:4])
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL ci_recipes {what}")
    return cond


try:
    import yaml
except ImportError:
    print("SKIP ci_recipes: python3-yaml is not installed")
    print("0 passed, 0 failed")
    sys.exit(0)

ONLY = "driver.loaded,gpu.present,gpu.vram,gpu.thermal,kernel.svm"
RUNS = [  # fixture, job should succeed, diff should run, diff exit, baseline fixture after
    ("mi250x-degraded", False, False, None, None),
    ("mi300x-node", True, False, None, "mi300x-node"),
    ("mi300x-node", True, False, None, "mi300x-node"),
    ("mi300x-gpus-failing", False, False, None, "mi300x-node"),
    ("mi250x-degraded", False, True, 1, "mi300x-node"),
    ("rx7900xtx-desktop", True, True, 0, "rx7900xtx-desktop"),
    ("rx7900xtx-desktop", True, False, None, "rx7900xtx-desktop"),
]

# the job's rocm-vla-doctor: the binary under test; check runs on a fixture
# machine; every call and its exit status logged
BIN = os.path.join(OUT, "bin")
os.makedirs(BIN, exist_ok=True)
with open(os.path.join(BIN, "rocm-vla-doctor"), "w") as w:
    w.write(f"""#!/bin/sh
case "${{1:-}}" in
diff | explain | list | --version) "{RVD}" "$@" ;;
*) "{RVD}" "$@" --sysroot "$CI_FIXTURE" --only "$CI_ONLY" ;;
esac
rc=$?
printf '%s\\t%s\\n' "$rc" "$*" >>"$CI_CALLS"
exit $rc
""")
os.chmod(os.path.join(BIN, "rocm-vla-doctor"), 0o755)


def fixture_root(name):
    return os.path.join(TOP, "tests/fixtures", name, "root")


def env_for(fixture, calls):
    e = dict(os.environ)
    e.update(PATH=BIN + ":" + e["PATH"], CI_FIXTURE=fixture_root(fixture), CI_CALLS=calls,
             NO_COLOR="1", CI_ONLY=ONLY + (",gpu.ras" if fixture == "mi300x-gpus-failing" else ""))
    return e


def stack_of(report):
    if not os.path.exists(report):
        return None
    f = json.load(open(report))["facts"]
    return "".join(f"{k}={f.get(k)}\n" for k in ("driver.version", "rocm.version", "kernel.release"))


def host_of(report):
    return json.load(open(report))["host"]["hostname"]


def calls_of(path):
    if not os.path.exists(path):
        return []
    return [line.rstrip("\n").split("\t", 1) for line in open(path)]


def check_commands(name, text):
    """every rocm-vla-doctor command line of a recipe parses: the binary
    accepts its options (run under a fixture, exit 0 or 1, never 2)"""
    lines = [l for l in text.replace("\\\n", " ").splitlines() if "rocm-vla-doctor " in l]
    cmds = []
    for l in lines:
        m = re.search(r"rocm-vla-doctor ([^|;&>]*)", l)
        cmds.append(m.group(1).strip())
    check(any(c.startswith("--level standard") and "--json" in c and "--junit" in c for c in cmds),
          f"{name}: no 'rocm-vla-doctor --level standard --json ... --junit ...' command")
    # the gate measures every GPU of the node, not device 0 alone (issue 34)
    check(all("--gpu all" in c for c in cmds if c.startswith("--level ")),
          f"{name}: a measuring run without --gpu all: {[c for c in cmds if c.startswith('--level ')]}")
    check(any(c.startswith("diff ") for c in cmds), f"{name}: no 'rocm-vla-doctor diff' command")
    check(not any("--sysroot" in c for c in cmds), f"{name}: a CI job on the machine itself names --sysroot")
    return cmds


def junit_ok(path):
    try:
        root = ET.parse(path).getroot()
        return root.tag == "testsuites" and root.find("testsuite") is not None
    except (OSError, ET.ParseError):
        return False


# ---- GitHub Actions ---------------------------------------------------------
def gh_eval(expr, steps, job_ok):
    """a GitHub expression of the forms the recipe uses: steps.<id>.outputs.<k>,
    steps.<id>.outcome, 'literal', ==, !=, &&, ||, always()"""
    def ref(m):
        sid, kind, key = m.group(1), m.group(2), m.group(3)
        st = steps.get(sid, {"outputs": {}, "outcome": "skipped"})
        v = st["outputs"].get(key, "") if kind == "outputs" else st["outcome"]
        return repr(v)
    py = re.sub(r"steps\.([\w-]+)\.(outputs)\.([\w-]+)", ref, expr)
    py = re.sub(r"steps\.([\w-]+)\.(outcome)()", ref, py)
    py = py.replace("&&", " and ").replace("||", " or ").replace("always()", "True")
    py = py.replace("success()", repr(job_ok)).replace("failure()", repr(not job_ok))
    val = bool(eval(py, {"__builtins__": {}}))
    if "always()" not in expr and "failure()" not in expr:
        val = val and job_ok
    return val


def gh_job(doc, ws, cache, fixture, calls):
    job = doc["jobs"]["doctor"]
    steps, job_ok, uploaded, published = {}, True, [], []
    for i, st in enumerate(job["steps"]):
        sid = st.get("id", f"step{i}")
        if not gh_eval(st.get("if", "success()"), steps, job_ok):
            steps[sid] = {"outputs": {}, "outcome": "skipped"}
            continue
        outputs, ok = {}, True
        if "run" in st:
            gho = os.path.join(ws, ".github_output")
            open(gho, "w").close()
            e = env_for(fixture, calls)
            e["GITHUB_OUTPUT"] = gho
            r = subprocess.run(["bash", "-e", "-c", st["run"]], cwd=ws, env=e,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            ok = r.returncode == 0
            for line in open(gho):
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    outputs[k] = v
            os.unlink(gho)
        else:
            uses, w = st["uses"], st.get("with", {})
            if uses.startswith("actions/cache/restore@"):
                key, prefix = w["key"], w["restore-keys"]
                key = gh_subst(key, steps)
                prefix = gh_subst(prefix, steps)
                hit = key if key in cache else None
                if not hit:
                    older = [k for k in cache if k.startswith(prefix)]
                    hit = max(older, key=lambda k: cache[k][0]) if older else None
                if hit:
                    dst = os.path.join(ws, w["path"])
                    shutil.rmtree(dst, ignore_errors=True)
                    shutil.copytree(cache[hit][1], dst)
                outputs = {"cache-hit": "true" if hit == key else "false",
                           "cache-primary-key": key, "cache-matched-key": hit or ""}
            elif uses.startswith("actions/cache/save@"):
                key = gh_subst(w["key"], steps)
                if key not in cache:  # a cache key is immutable
                    store = os.path.join(OUT, "gh-cache", str(len(cache)))
                    shutil.copytree(os.path.join(ws, w["path"]), store)
                    cache[key] = (len(cache), store)
            elif uses.startswith("actions/upload-artifact@"):
                uploaded = [p for p in w["path"].split() if os.path.exists(os.path.join(ws, p))]
            elif uses.startswith("mikepenz/action-junit-report@"):
                published = [w["report_paths"]] if junit_ok(os.path.join(ws, w["report_paths"])) else []
        steps[sid] = {"outputs": outputs, "outcome": "success" if ok else "failure"}
        job_ok = job_ok and ok
    return job_ok, uploaded, published


def gh_subst(s, steps):
    s = s.replace("${{ runner.name }}", "runner-1")
    return re.sub(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}",
                  lambda m: steps.get(m.group(1), {"outputs": {}})["outputs"].get(m.group(2), ""), s)


# ---- GitLab CI ------------------------------------------------------------------
def gl_job(doc, ws, store, fixture, calls):
    job = doc["rocm-vla-doctor"]
    cache_dirs = job["cache"]["paths"]
    for p in cache_dirs:  # the runner's cache, extracted over the workspace
        if os.path.isdir(os.path.join(store, p)):
            shutil.rmtree(os.path.join(ws, p), ignore_errors=True)
            shutil.copytree(os.path.join(store, p), os.path.join(ws, p))
    script = "\n".join(job["script"])
    r = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=ws, env=env_for(fixture, calls),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok = r.returncode == 0
    if ok and job["cache"].get("when", "on_success") in ("on_success", "always"):
        for p in cache_dirs:
            shutil.rmtree(os.path.join(store, p), ignore_errors=True)
            shutil.copytree(os.path.join(ws, p), os.path.join(store, p))
    art = job["artifacts"]
    uploaded = []
    if ok or art.get("when") in ("always", "on_failure"):
        uploaded = [p for p in art["paths"] if os.path.exists(os.path.join(ws, p))]
    j = art["reports"]["junit"]
    published = [j] if junit_ok(os.path.join(ws, j)) else []
    return ok, uploaded, published


# ---- the recipes' keys ------------------------------------------------------------
gh = yaml.safe_load(open(os.path.join(TOP, "docs/ci/github-actions.yml")))
gl = yaml.safe_load(open(os.path.join(TOP, "docs/ci/gitlab-ci.yml")))

ghjob = gh["jobs"]["doctor"]
check("self-hosted" in ghjob["runs-on"], "github: the job does not run on a self-hosted runner")
ghsteps = ghjob["steps"]
gh_text = "\n".join(s.get("run", "") for s in ghsteps)
gh_cmds = check_commands("github", gh_text)
junit_in_cmd = re.search(r"--junit (\S+)", gh_text).group(1)
rep = [s for s in ghsteps if s.get("uses", "").startswith("mikepenz/action-junit-report@")]
check(rep and rep[0]["with"]["report_paths"] == junit_in_cmd and "always()" in rep[0].get("if", ""),
      "github: the JUnit file the check writes is not published always()")
up = [s for s in ghsteps if s.get("uses", "").startswith("actions/upload-artifact@")]
up_paths = up[0]["with"]["path"].split() if up else []
check(up and "always()" in up[0].get("if", "") and junit_in_cmd in up_paths and "baseline/" in up_paths
      and "current.json" in up_paths and "diff.json" in up_paths,
      f"github: upload-artifact does not keep the reports and the baseline always(): {up_paths}")
restore = [s for s in ghsteps if s.get("uses", "").startswith("actions/cache/restore@")]
save = [s for s in ghsteps if s.get("uses", "").startswith("actions/cache/save@")]
check(restore and save and "steps.stack.outputs.key" in restore[0]["with"]["key"]
      and restore[0]["with"]["key"] == save[0]["with"]["key"] and "restore-keys" in restore[0]["with"],
      "github: the baseline cache is not keyed by the stack (restore and save, with restore-keys)")

gljob = gl["rocm-vla-doctor"]
check(bool(gljob.get("tags")), "gitlab: the job names no runner tags (a self-hosted runner)")
gl_text = "\n".join(gljob["script"])
gl_cmds = check_commands("gitlab", gl_text)
gl_junit = re.search(r"--junit (\S+)", gl_text).group(1)
art = gljob.get("artifacts", {})
check(art.get("reports", {}).get("junit") == gl_junit and art.get("when") == "always",
      "gitlab: artifacts:reports:junit is not the file the check writes, or not when: always")
check(all(p in art.get("paths", []) for p in ("current.json", gl_junit, "diff.json", "baseline/")),
      f"gitlab: artifacts:paths do not keep the reports and the baseline: {art.get('paths')}")
check("baseline/" in gljob.get("cache", {}).get("paths", []), "gitlab: the baseline is not cached")

# the commands' option sets parse (the standard level under a fixture)
for name, cmds in (("github", gh_cmds), ("gitlab", gl_cmds)):
    for c in cmds:
        if c.startswith("diff ") or c == "--version":
            continue  # run by the jobs below
        args = c.split() + ["--sysroot", fixture_root("mi300x-node")]
        tmp = os.path.join(OUT, f"parse-{name}")
        os.makedirs(tmp, exist_ok=True)
        r = subprocess.run([RVD] + args, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(r.returncode in (0, 1), f"{name}: 'rocm-vla-doctor {c}' exits {r.returncode}: {r.stdout[-300:]}")

# ---- the jobs, four runs each -------------------------------------------------------
for name, doc, job in (("github", gh, gh_job), ("gitlab", gl, gl_job)):
    ws = os.path.join(OUT, f"{name}-ws")
    os.makedirs(ws, exist_ok=True)
    state = {} if name == "github" else os.path.join(OUT, f"{name}-cache")
    if name == "gitlab":
        os.makedirs(state, exist_ok=True)
    for n, (fixture, want_ok, want_diff, diff_rc, base_after) in enumerate(RUNS):
        calls = os.path.join(OUT, f"{name}-calls-{n}")
        ok, uploaded, published = job(doc, ws, state, fixture, calls)
        tag = f"{name} run {n} ({fixture})"
        check(ok == want_ok, f"{tag}: job {'succeeded' if ok else 'failed'}, want {'success' if want_ok else 'failure'}")
        cl = calls_of(calls)
        std = [c for c in cl if c[1].startswith("--level standard")]
        check(len(std) == 1 and std[0][0] in ("0", "1"), f"{tag}: the standard level ran: {std}")
        diffs = [c for c in cl if c[1].startswith("diff ")]
        if want_diff:
            check(len(diffs) == 1 and diffs[0][0] == str(diff_rc),
                  f"{tag}: diff should run and exit {diff_rc}: {diffs}")
            dj = os.path.join(ws, "diff.json")
            s = json.load(open(dj))["summary"] if os.path.exists(dj) else {}
            check(s.get("exit_code") == diff_rc and (s.get("regressions", 0) > 0) == (diff_rc == 1),
                  f"{tag}: diff.json does not say exit {diff_rc}: {s}")
        else:
            check(not diffs, f"{tag}: diff ran on an unchanged stack (or without a baseline): {diffs}")
        check("junit.xml" in published, f"{tag}: the JUnit report was not published")
        if fixture == "mi300x-gpus-failing":  # the CI page names the broken GPU
            cases = ET.parse(os.path.join(ws, "junit.xml")).getroot().iter("testcase")
            failing = sorted(t.get("name") for t in cases if t.find("failure") is not None)
            check(failing == ["gpu.ras (GPU 3, 0000:75:00.0)", "gpu.thermal (GPU 4, 0000:85:00.0)",
                              "gpu.thermal (GPU 6, 0000:e5:00.0)"],
                  f"{tag}: the JUnit failures are {failing}")
        check("current.json" in uploaded and "junit.xml" in uploaded
              and ("baseline/" in uploaded) == os.path.isdir(os.path.join(ws, "baseline"))
              and ("diff.json" in uploaded) == want_diff,
              f"{tag}: artifacts kept: {uploaded}")
        # the baseline the next run will see: the runner's cache
        if name == "github":
            newest = max(state.values())[1] if state else None
            base = os.path.join(newest, "rocm-vla-doctor.json") if newest else None
        else:
            base = os.path.join(state, "baseline", "rocm-vla-doctor.json")
        got_stack = stack_of(base) if base else None
        if base_after is None:
            check(got_stack is None, f"{tag}: a failed first run became the baseline")
        elif fixture == base_after:
            check(got_stack is not None and got_stack == stack_of(os.path.join(ws, "current.json")),
                  f"{tag}: the baseline is not this run's report")
        else:  # the same stack (mi300x-gpus-failing): told by the host name
            cur = os.path.join(ws, "current.json")
            check(got_stack is not None and (got_stack != stack_of(cur) or host_of(base) != host_of(cur)),
                  f"{tag}: a failed run replaced the baseline")
    if name == "github":
        check(len(state) == 2, f"github: {len(state)} baselines cached, want 2 (one per stack that passed)")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
