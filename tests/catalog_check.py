#!/usr/bin/env python3
"""catalog_check.py CATALOGUE REPORT.json... - every fact of every report
must match a declaration of the fact catalogue (`rocm-vla-doctor list
--facts`: NAME TYPE PROBE per line) with a compatible JSON type (null is an
unknown fact, allowed for any declaration). Prints one line per report,
"ok FILE N" or "bad FILE: name=value (why)", and exits 1 on any bad fact."""
import json
import re
import sys

JSON_TYPES = {
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    # a float that happens to be whole is written without a fraction
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "list": lambda v: isinstance(v, list),
}


def load_catalogue(path):
    decls = []
    probes = set()
    for line in open(path):
        name, typ, probe = line.split(None, 2)
        probes.add(probe.strip())
        decls.append((name, typ))
    out = []
    for name, typ in decls:
        rx = ""
        for part in re.split(r"(<[^>]+>)", name):
            if part == "<i>":
                rx += r"[0-9]+"
            elif part == "<probe>":
                rx += "(?:" + "|".join(sorted(p for p in probes if not p.startswith("("))) + ")"
            elif part.startswith("<"):
                rx += r"[A-Za-z0-9_]+"
            else:
                rx += re.escape(part)
        out.append((re.compile(rx + r"\Z"), typ, name))
    return out


def main():
    cat = load_catalogue(sys.argv[1])
    bad = 0
    for path in sys.argv[2:]:
        try:
            d = json.load(open(path))
        except (OSError, ValueError, RecursionError):  # hostile inputs of other layers
            continue
        if not isinstance(d, dict) or d.get("schema") != "rocm-vla-doctor/1":
            continue  # a diff or bench report
        problems = []
        for name, value in d["facts"].items():
            match = [(t, n) for rx, t, n in cat if rx.match(name)]
            if not match:
                problems.append("%s=%r (no probe declares it)" % (name, value))
            elif value is not None and not JSON_TYPES[match[0][0]](value):
                problems.append("%s=%r (declared %s as %s)" % (name, value, match[0][1], match[0][0]))
        if problems:
            bad += 1
            print("bad %s: %s" % (path, "; ".join(problems)))
        else:
            print("ok %s %d" % (path, len(d["facts"])))
    sys.exit(1 if bad else 0)


main()
