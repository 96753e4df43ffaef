#!/usr/bin/env python3
"""gpu_pins.py PINS.tsv REPORT.json... - the statuses one GPU model must give.

PINS.tsv (tests/data/h200-pins.tsv) lists check id, status and why. The
pins apply when runtime device 0 of the first report names itself the
model (the file's name: h200-pins.tsv -> "H200" in runtime.dev.0.name); a
check is looked up in the reports in order, the first that ran it wins.
One line per pin on stdout:
  pin ID: STATUS (rule RULE), want WANT   the check gave what it must
  PIN ID: STATUS (rule RULE), want WANT   it did not (or did not run)
  note ...                                the pins do not apply here
Exit 2 on a bad pins file or report, else 0: the caller counts the lines,
so every pin is shown, not only the first that is off.
"""
import json
import os
import sys

STATUSES = ("pass", "warn", "fail", "skip", "error", "timeout")


def die(msg):
    print("gpu_pins.py: " + msg, file=sys.stderr)
    sys.exit(2)


def pins_of(path):
    pins = []
    for n, line in enumerate(open(path).read().splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("check\t"):
            continue
        cols = line.split("\t")
        if len(cols) != 3 or cols[1] not in STATUSES or not cols[2].strip():
            die("%s:%d: want 'check<TAB>status<TAB>why', status one of %s" %
                     (path, n, ", ".join(STATUSES)))
        pins.append(cols)
    if not pins:
        die("%s: no pin" % path)
    return pins


def main():
    if len(sys.argv) < 3:
        die("usage: " + __doc__.splitlines()[0])
    model = os.path.basename(sys.argv[1]).split("-pins")[0].upper()
    reports = []
    for p in sys.argv[2:]:
        try:
            reports.append(json.load(open(p)))
        except (OSError, ValueError) as e:
            die("%s: %s" % (p, e))
    name = reports[0].get("facts", {}).get("runtime.dev.0.name")
    if not isinstance(name, str) or model not in name.upper():
        print("note the %s pins do not apply: runtime device 0 is %s" %
              (model, "unknown" if name is None else repr(name)))
        return
    for cid, want, _why in pins_of(sys.argv[1]):
        got, rule = "missing", "none"
        for r in reports:
            c = [x for x in r.get("checks", []) if x.get("id") == cid]
            if c:
                got, rule = c[0].get("status"), c[0].get("rule") or "none"
                break
        print("%s %s: %s (rule %s), want %s" % ("pin" if got == want else "PIN", cid, got, rule,
                                                want))


if __name__ == "__main__":
    main()
