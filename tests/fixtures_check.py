#!/usr/bin/python3
"""fixtures_check.py OUT FIXTURE_DIR... - judge every fixture machine's run
in one process (tests/fixtures.sh runs the doctor and calls this once).

For each fixture NAME (the last part of its directory) it reads
OUT/NAME.json, OUT/NAME.rc (the doctor's exit status) and DIR/expected, and
prints "ok" or "FAIL fixture NAME: ..." lines for: the exit status, the
start_with check, every expected check's status and deciding rule, checks
the run has that expected lacks, and the JSON report against
reports/schema.json. Then the coverage rule over every expected file: each
quick-level check (OUT/quick-checks, one id a line) passes on some fixture
and does not pass on another. With --update it rewrites each expected from
the run first (its leading # lines kept, checks in run order).
Ends with "N passed, M failed" like every layer; one process instead of a
few hundred awk and grep processes per fixture (issue 31)."""
import json
import os
import sys

import jsonschema


def read_expected(path):
    """(exit, start_with, {id: (status, rule)}, [header lines])"""
    want_rc = want_start = None
    checks, header, body = {}, [], False
    with open(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("#"):
                if not body:
                    header.append(line)
                continue
            body = True
            w = line.split()
            if not w:
                continue
            if w[0] == "exit" and len(w) == 2:
                want_rc = w[1]
            elif w[0] == "start_with" and len(w) == 2:
                want_start = w[1]
            else:
                checks[w[0]] = (w[1] if len(w) > 1 else "", w[2] if len(w) > 2 else "")
    return want_rc, want_start, checks, header


def main(argv):
    update = argv[:1] == ["--update"]
    if update:
        argv = argv[1:]
    if len(argv) < 1:
        print("usage: fixtures_check.py [--update] OUT FIXTURE_DIR...", file=sys.stderr)
        return 2
    out, dirs = argv[0], argv[1:]
    schema = json.load(open("reports/schema.json"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    passed = failed = 0

    def ok():
        nonlocal passed
        passed += 1

    def bad(msg):
        nonlocal failed
        failed += 1
        print("FAIL fixture " + msg)

    statuses = {}  # check id -> statuses over every fixture's expected
    for d in dirs:
        d = d.rstrip("/")
        name = os.path.basename(d)
        exp = os.path.join(d, "expected")
        try:
            rc = open(os.path.join(out, name + ".rc")).read().strip()
        except OSError:
            bad("%s: the doctor did not run (no %s.rc)" % (name, name))
            continue
        try:
            doc = json.load(open(os.path.join(out, name + ".json")))
            run = [(c["id"], c["status"], c.get("rule", "")) for c in doc["checks"]]
            start = doc.get("start_with") or "none"
        except (OSError, ValueError, KeyError, TypeError) as e:
            doc, run, start = None, [], None
            err = os.path.join(out, name + ".err")
            bad("%s: no JSON report (%s; see %s)" % (name, e, err))
        if update and doc is not None:
            header = read_expected(exp)[3]
            with open(exp + ".new", "w") as fh:
                for line in header + ["exit " + rc, "start_with " + start]:
                    fh.write(line + "\n")
                for cid, st, rule in run:
                    fh.write(" ".join([cid, st, rule]).rstrip() + "\n")
            os.replace(exp + ".new", exp)
        want_rc, want_start, want, _ = read_expected(exp)
        if doc is None:
            continue
        if rc == want_rc:
            ok()
        else:
            bad("%s: exit %s, want %s" % (name, rc, want_rc))
        if start == want_start:
            ok()
        else:
            bad("%s: start with %s, want %s" % (name, start, want_start or "no start_with line"))
        got = {cid: (st, rule) for cid, st, rule in run}
        for cid, (st, rule) in sorted(want.items()):
            g = got.get(cid)
            if g is None or g[0] != st:
                bad("%s: %s: got %s, want %s" % (name, cid, g[0] if g else "missing", st))
            elif rule and g[1] != rule:
                bad("%s: %s: %s decided by %s, want %s" % (name, cid, st, g[1] or "no rule", rule))
            else:
                ok()
        extra = [cid for cid, _, _ in run if cid not in want]
        if extra:
            bad("%s: checks not in expected: %s" % (name, " ".join(extra)))
        else:
            ok()
        errs = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errs:
            loc = "/".join(str(p) for p in errs[0].absolute_path)
            bad("%s: JSON report does not match reports/schema.json: /%s: %s (%d errors)"
                % (name, loc, errs[0].message, len(errs)))
        else:
            ok()
    # every quick-level check passes on at least one fixture machine and does
    # not pass on another: a check that cannot fail (or cannot pass) is a defect
    for d in dirs:
        for cid, (st, _) in read_expected(os.path.join(d, "expected"))[2].items():
            statuses.setdefault(cid, set()).add(st)
    try:
        quick = open(os.path.join(out, "quick-checks")).read().split()
    except OSError:
        quick = []
    if not quick:
        bad("coverage: no quick-level checks listed (rocm-vla-doctor list failed?)")
    for cid in quick:
        st = statuses.get(cid, set())
        if "pass" not in st:
            bad("coverage: %s passes on no fixture machine" % cid)
        elif st == {"pass"}:
            bad("coverage: %s never fails, warns or skips on a fixture machine" % cid)
        else:
            ok()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
