#!/usr/bin/env python3
"""catalog_source.py CATALOGUE FILE.c... - the source side of the catalogue
test: every fact_set_<type>() call that names its fact with a literal
("vla.latency.total_ms", or fact_gpu_name(..., "vram_bytes") for
gpu.<i>.vram_bytes) must match a declaration of that type. This reaches
the GPU paths that no run without a GPU takes. Prints "ok N" or one "bad"
line per mismatch; exits 1 on any."""
import re
import sys

SETTER = re.compile(
    r'fact_set_(bool|int|float|str|list|unknown|errno)\(\s*[\w>.-]+\s*,\s*'
    r'(?:"([a-z][a-z0-9_.]*)"|fact_gpu_name\(\s*\w+\s*,\s*\w+\s*,\s*"([a-z][a-z0-9_.]*)"\s*\))')
TYPES = {"bool": "bool", "int": "int", "float": "float", "str": "string", "list": "list"}


def main():
    decls = []
    for line in open(sys.argv[1]):
        name, typ, _ = line.split(None, 2)
        rx = re.escape(name).replace(re.escape("<i>"), "[0-9]+")
        rx = re.sub(r"\\<[a-zA-Z]+\\>|<[a-zA-Z]+>", "[A-Za-z0-9_]+", rx)
        decls.append((re.compile(rx + r"\Z"), typ, name))
    bad = n = 0
    for path in sys.argv[2:]:
        src = open(path).read()
        for m in SETTER.finditer(src):
            setter, plain, per_gpu = m.groups()
            name = plain if plain else "gpu.0." + per_gpu
            n += 1
            match = [(t, d) for rx, t, d in decls if rx.match(name)]
            if not match and plain:
                # a per-GPU probe's child sets "sync.x" / "gpu.gemm_peak.x"; the
                # runner renames it gpu.<j>.sync.x (probes/probe_each_gpu.c)
                each = "gpu.0." + (plain[4:] if plain.startswith("gpu.") else plain)
                match = [(t, d) for rx, t, d in decls if rx.match(each) and d.startswith("gpu.<i>.")]
            line = src.count("\n", 0, m.start()) + 1
            if not match:
                bad += 1
                print("bad %s:%d: %s is not declared" % (path, line, name))
            elif setter in TYPES and match[0][0] != TYPES[setter]:
                bad += 1
                print("bad %s:%d: %s set as %s, declared %s (%s)" % (
                    path, line, name, TYPES[setter], match[0][0], match[0][1]))
    if not bad:
        print("ok %d" % n)
    sys.exit(1 if bad else 0)


main()
