# lib.sh - sourced by the shell test layers: pass/fail counters and queries
# against a JSON report. Set NAME (the layer's name) before sourcing.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL ${NAME:-test}: $*"; }
# q FILE PYTHON-EXPR: evaluate against the JSON report (d; c = checks by id;
# f = facts); exit status 0 when true
q() {
    python3 - "$1" "$2" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
c = {x["id"]: x for x in d["checks"]}
f = d["facts"]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
# expect LABEL FILE EXPR
expect() { if q "$2" "$3"; then ok; else bad "$1 ($3)"; fi; }
