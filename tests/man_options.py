#!/usr/bin/env python3
"""man_options.py RVD MAN: the options the SYNOPSIS of rocm-vla-doctor(1)
names for each command are exactly the options of that command's table
(as its --help lists them; --help and --version have a synopsis line of
their own). An option is named by its long or its short form. Prints one
line per difference, exit 1 when there is one (tests/docs.sh)."""
import re
import subprocess
import sys

rvd, man = sys.argv[1], sys.argv[2]
lines = open(man).read().split("\n")
a = lines.index(".Sh SYNOPSIS")
b = lines.index(".Sh DESCRIPTION")
cmds = subprocess.run([rvd, "__complete-table"], capture_output=True, text=True).stdout
cmds = re.search(r'_rocm_vla_doctor_commands="([^"]*)"', cmds).group(1).split()
named = {c: set() for c in cmds}
cur = "check"
for l in lines[a + 1:b]:
    m = re.match(r"\.(?:Op )?Cm ([a-z]+)$", l)
    if m and m.group(1) in named:
        cur = m.group(1)
        continue
    if l == ".Nm":
        continue
    if re.match(r"\.Fl \\-help", l):
        cur = None  # the --help | --version line
        continue
    for w in re.findall(r"(?:Fl |\| )(\\-[a-z\\-]+|[a-z])\b", l):
        if cur:
            named[cur].add("--" + w[2:].replace("\\-", "-") if w.startswith("\\-") else "-" + w)
bad = 0
for c in cmds:
    help_ = subprocess.run([rvd, c, "--help"], capture_output=True, text=True).stdout
    rows = re.findall(r"^  (?:-([a-z]), )?\s*--([a-z-]+)", help_, re.M)
    table = [(("-" + s) if s else None, "--" + l) for s, l in rows if l not in ("help", "version")]
    for s, l in table:
        if l not in named[c] and (s is None or s not in named[c]):
            print("man/rocm-vla-doctor.1 SYNOPSIS of %s lacks %s" % (c, l)); bad = 1
    known = {x for st in table for x in st if x}
    for o in sorted(named[c] - known):
        print("man/rocm-vla-doctor.1 SYNOPSIS of %s names %s, which its table lacks" % (c, o)); bad = 1
sys.exit(bad)
