#!/usr/bin/env python3
"""hipblaslt_abi.py - hold src/gpu/hipblaslt_api.h against
tests/data/hipblaslt-abi.tsv, the values, layouts and prototypes of AMD's
hipBLASLt headers (C++ only: they cannot be compiled from C, so the table
stands in for them; tests/rocm_headers.sh runs this).

usage: hipblaslt_abi.py TABLE HEADER OUT.c
Value rows become _Static_asserts in OUT.c (the caller compiles it, so a
differing value fails the build of that file); prototype rows are compared
as text, whitespace and parameter spacing normalised. Prints
"values N prototypes N" and one "FAIL ..." line per differing prototype;
exit 1 when one differs or a prototype is missing from HEADER."""
import re
import sys


def norm(s):
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"\s*([*(),\[\]])\s*", r"\1", s)


def prototypes(path):
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    out = {}
    for m in re.finditer(r"hipblasStatus_t\s+(hipblasLt\w+)\s*\(([^;]*)\)\s*;", text):
        out[m.group(1)] = norm("hipblasStatus_t %s(%s)" % (m.group(1), m.group(2)))
    return out


def main():
    table, header, out_c = sys.argv[1:4]
    rows = [l.rstrip("\n").split("\t") for l in open(table) if l.strip() and not l.startswith("#")]
    ours = prototypes(header)
    nv = np = bad = 0
    with open(out_c, "w") as f:
        f.write('#include "%s"\n' % header)
        for kind, name, want, source in rows:
            if kind == "value":
                nv += 1
                f.write('_Static_assert((long long)(%s) == %sLL, "value %s differs from %s");\n'
                        % (name, want, name.replace('"', "'"), source))
            elif kind == "proto":
                np += 1
                have = ours.get(name)
                if have != norm(want):
                    bad += 1
                    print("FAIL prototype of %s differs from %s:\n    ours:   %s\n    theirs: %s"
                          % (name, source, have, norm(want)))
            else:
                print("FAIL unknown row kind %r" % kind)
                bad += 1
    print("values %d prototypes %d" % (nv, np))
    return 1 if bad else 0


sys.exit(main())
