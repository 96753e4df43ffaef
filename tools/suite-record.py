#!/usr/bin/python3
"""suite-record.py [--asan] CPU_TSV - write the CPU seconds of a run
(tests/run.sh's $OUT/cpu.tsv: "name<TAB>seconds" a line) into
tests/suite.tsv: the cpu column, or cpu_asan with --asan. A layer of the
run that the table lacks gets a row tagged full (review it: sample or skip
may fit). Unit binaries (unit/...) are not recorded. Comments and the
order of the rows are kept. Run it after a change that makes a layer
cheaper or dearer on purpose, and commit the table with the change."""
import sys

SUITE = "tests/suite.tsv"


def main(argv):
    asan = argv[:1] == ["--asan"]
    if asan:
        argv = argv[1:]
    if len(argv) != 1:
        print("usage: suite-record.py [--asan] CPU_TSV", file=sys.stderr)
        return 2
    cpu = {}
    for line in open(argv[0]):
        w = line.split()
        if len(w) == 2 and not w[0].startswith("unit/"):
            cpu[w[0]] = w[1]
    col = 3 if asan else 2
    out, seen = [], set()
    for line in open(SUITE):
        w = line.split(None, 4)
        if line.startswith("#") or len(w) < 4:
            out.append(line)
            continue
        seen.add(w[0])
        if w[0] in cpu:
            w[col] = cpu[w[0]]
        why = w[4].rstrip("\n") if len(w) > 4 else ""
        out.append("%-15s %-7s %-7s %-9s %s" % (w[0], w[1], w[2], w[3], why))
        out[-1] = out[-1].rstrip() + "\n"
    for name in cpu:
        if name not in seen:
            row = [name, "full", "-", "-"]
            row[col] = cpu[name]
            out.append("%-15s %-7s %-7s %s\n" % tuple(row))
    with open(SUITE, "w") as fh:
        fh.writelines(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
