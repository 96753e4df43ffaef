#!/usr/bin/python3
"""fix_commands.py - every fix command is runnable as printed (issue 20).

  fix_commands.py selftest            the prose heuristic on its own cases
  fix_commands.py reports JSON...     every fix_commands item of the reports
  fix_commands.py lint CHECKS FACTS [MARKER]
                                      the checks file's fixes: prose holds no
                                      {sudo} and no command, each run item
                                      rendered with plausible fact values
                                      (FACTS: `list --facts` output) passes
                                      the command checks; MARKER: only the
                                      part of the file before that line
Prints a FAIL line per problem and exits 1 when there was one."""
import json
import re
import subprocess
import sys

import yaml

PROSE = [
    (re.compile(r",\s*then\b"), "', then' joins prose to the command"),
    (re.compile(r"\sthen\s+(log|reboot|run|restart)\b"), "'then ...' prose after the command"),
    (re.compile(r"\.\.\."), "'...' placeholder"),
    (re.compile(r"<[A-Za-z][\w.-]*>"), "<word> placeholder"),
    (re.compile(r"\s\((or|and|until|see|e\.g\.|if|then|on|for|the|a|to|as|which)\b[^()]*\)\s*$"),
     "a trailing prose parenthesis"),
    (re.compile(r"\s(or|,\s*or)\s+(\{sudo\}|sudo|echo|pip|apt|dnf|rocm-smi|docker|[a-z][\w-]*\s+--?\w)"),
     "'or' between two commands"),
]


def prose_in(cmd):
    """why cmd holds prose, or None"""
    for rx, why in PROSE:
        if rx.search(cmd):
            return why
    return None


def command_problem(cmd):
    """why cmd is not one whole command line, or None"""
    if "\n" in cmd or "\r" in cmd:
        return "more than one line"
    if not cmd.strip():
        return "empty"
    why = prose_in(cmd)
    if why:
        return why
    r = subprocess.run(["bash", "-n", "-c", cmd], capture_output=True, text=True)
    if r.returncode:
        return "bash -n: " + r.stderr.strip().splitlines()[-1]
    return None


def selftest():
    good = [
        'sudo usermod -aG render,video "$LOGNAME"',
        "echo auto | sudo tee /sys/class/drm/card*/device/power_dpm_force_performance_level",
        'grep CONFIG_HSA_AMD_SVM "/boot/config-$(uname -r)"',
        "sudo dmesg | grep -i -e 'key was rejected' -e 'unsigned module'",
        "pip install torch --index-url https://download.pytorch.org/whl/rocm6.2",
        "cat <<< x",
        "test -e /dev/kfd || echo missing",
        "printf '* soft memlock unlimited\\n' | sudo tee /etc/security/limits.d/99-rocm.conf",
    ]
    bad = [
        "sudo usermod -aG render,video $LOGNAME, then log out and in again",
        "sudo update-grub then reboot",
        "docker run --device=/dev/kfd ...",
        "sudo dkms install amdgpu/<version>",
        "echo auto | sudo tee /sys/x (or rocm-smi --setperflevel auto)",
        "sudo cpupower frequency-set -g performance or echo performance | sudo tee x",
        "pip install torch\ntorchvision",
        "pip install 'torch",
        "",
    ]
    fails = 0
    for c in good:
        if command_problem(c):
            fails += 1
            print("FAIL selftest: good command refused (%s): %r" % (command_problem(c), c))
    for c in bad:
        if not command_problem(c):
            fails += 1
            print("FAIL selftest: prose or broken command accepted: %r" % c)
    return fails


def reports(paths):
    fails = n = 0
    for p in paths:
        for c in json.load(open(p))["checks"]:
            for cmd in c.get("fix_commands") or []:
                n += 1
                why = command_problem(cmd)
                if why:
                    fails += 1
                    print("FAIL %s: %s: %s: %r" % (p, c["id"], why, cmd))
    print("%d commands" % n)
    return fails


def shell_word(s):
    """src/core/escape.c shell_word() (no control characters here)"""
    if s and s[0] != "=" and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def sample(name, types):
    """a plausible value of a fact, by its name and declared type"""
    t = types.get(name) or types.get(re.sub(r"^gpu\.", "gpu.<i>.", name), "string")
    if t in ("int", "float"):
        return "16"
    if t == "bool":
        return "true"
    if t == "list":
        return "a, b"
    for part, v in (("release", "6.8.0-51-generic"), ("index", "https://download.pytorch.org/whl/rocm6.2"),
                    ("executable", "/usr/bin/python3"), ("gfx", "gfx1100"), ("pci", "0000:03:00.0"),
                    ("series", "6.2"), ("version", "6.2.4"), ("user", "alice"), ("name", "alice")):
        if part in name:
            return v
    return "some value"


def render(tmpl, types, shell):
    def one(m):
        name, _, unit = m.group(1).partition(":")
        if name == "sudo":
            return "sudo "
        if name == "gpu":
            return "0"
        v = "16.0" if unit in ("gib", "mib") else sample(name, types)
        return shell_word(v) if shell else v
    return re.sub(r"\{([^{}]+)\}", one, tmpl)


def fixes(doc):
    """(where, fix) of every check and rule"""
    for c in doc.get("checks") or []:
        if "fix" in c:
            yield c["id"], c["fix"]
        for kind in ("skip", "fail", "warn"):
            rules = c.get(kind) or []
            for i, r in enumerate(rules if isinstance(rules, list) else [rules]):
                if isinstance(r, dict) and "fix" in r:
                    yield "%s %s[%d]" % (c["id"], kind, i), r["fix"]


def prose_problem(text):
    if "{sudo}" in text:
        return "{sudo} in prose (a command belongs in run:)"
    if "`" in text:
        return "a backtick command in prose"
    if re.search(r"\S \| \S", text):
        return "a pipeline in prose"
    return None


def lint(path, facts, marker=None):
    text = open(path).read()
    if marker:
        text = text[:text.index(marker)]
    types = {}
    for line in open(facts):
        f = line.split()
        if len(f) >= 2:
            types[f[0]] = f[1]
    fails = n = 0
    for where, fx in fixes(yaml.safe_load(text)):
        n += 1
        parts = [fx] if isinstance(fx, str) else [fx.get("say"), fx.get("then")]
        for p in parts:
            why = p and prose_problem(p)
            if why:
                fails += 1
                print("FAIL %s: %s: %s: %r" % (path, where, why, p))
        runs = [] if isinstance(fx, str) else fx.get("run") or []
        runs = [runs] if isinstance(runs, str) else runs
        # a run item may be a mapping of distribution family -> command
        cmds = [c for item in runs for c in (item.values() if isinstance(item, dict) else [item])]
        for cmd in cmds:
            r = render(cmd, types, True)
            why = command_problem(r)
            if why:
                fails += 1
                print("FAIL %s: %s: %s: %r (rendered %r)" % (path, where, why, cmd, r))
    print("%d fixes" % n)
    return fails


def main():
    mode = sys.argv[1]
    if mode == "selftest":
        bad = selftest()
    elif mode == "reports":
        bad = reports(sys.argv[2:])
    elif mode == "lint":
        bad = lint(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        sys.exit(__doc__)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
