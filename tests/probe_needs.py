#!/usr/bin/env python3
"""probe_needs.py CATALOGUE probes/probe_table.c probes/*.c - the probe
dependencies `check --only` follows (probe_needs in probe_table.c) are
complete: every fact a quick probe's sources read by a literal name
(fact_get(fs, "x"), fstr(fs, "x"), gget(fs, g, "x") and fact_gpu_name(...,
"x") for gpu.<i>.x, probe_gpu_pci for gpu.<i>.pci, probe_getenv for the env
probe) is produced by the probe itself or one it needs, directly or not, and
every needed probe runs earlier. A file belongs to the longest probe name p
with the stem probe_<p> or probe_<p>_*. Prints "ok N" or "bad ..." lines;
exits 1 on any bad."""
import re
import sys

READS = [
    (re.compile(r'\b(?:fact_get|fstr)\(\s*[\w>.-]+\s*,\s*"([a-z][a-z0-9_.]*)"\s*\)'), "%s"),
    (re.compile(r'\b(?:fact_gpu_name\(\s*\w+\s*,\s*[\w>.()-]+\s*,|gget\(\s*\w+\s*,\s*\w+\s*,)'
                r'\s*"([a-z][a-z0-9_.]*)"\s*\)'), "gpu.<i>.%s"),
]


def main():
    producer = {}
    for line in open(sys.argv[1]):
        name, _, probe = line.split(None, 2)
        producer.setdefault(name, probe.strip())
    table = open(sys.argv[2]).read()
    order = re.findall(r'^\s*\{"(\w+)", (LEVEL_\w+),', table, re.M)
    rank = {p: i for i, (p, _) in enumerate(order)}
    quick = {p for p, lv in order if lv == "LEVEL_QUICK"}
    block = table[table.index("probe_needs[] = {"):]
    block = block[:block.index("};")]
    needs = {p: n.split(",") for p, n in re.findall(r'\{"(\w+)", "([\w,]+)"\}', block)}
    bad = []
    for p, ns in needs.items():
        for n in ns:
            if n not in rank or rank.get(p, -1) <= rank[n]:
                bad.append("bad probe_needs: %s needs %s, which is no earlier probe" % (p, n))

    def closure(p):
        seen, todo = {p}, [p]
        while todo:
            for n in needs.get(todo.pop(), []):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    checked = 0
    for path in sys.argv[3:]:
        stem = path.rsplit("/", 1)[-1][:-2]
        owners = [p for p in rank if stem == "probe_" + p or stem.startswith("probe_" + p + "_")]
        if not owners:
            continue
        owner = max(owners, key=len)
        if owner not in quick:
            continue  # a probe above quick brings every quick probe
        src = open(path).read()
        facts = {fmt % m for rx, fmt in READS for m in rx.findall(src)}
        if "probe_gpu_pci(" in src:
            facts.add("gpu.<i>.pci")
        have = closure(owner)
        if "probe_getenv(" in src and owner != "env" and "env" not in have:
            bad.append("bad %s: %s reads probe_getenv() but does not need env" % (path, owner))
        for fct in sorted(facts):
            prod = producer.get(fct)
            checked += 1
            if prod and prod in rank and prod not in have:
                bad.append("bad %s: %s reads %s of probe %s, not in its probe_needs"
                           % (path, owner, fct, prod))
    for b in bad:
        print(b)
    print("ok %d" % checked)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
