# lib.sh - sourced by the shell test layers: pass/fail counters and queries
# against a JSON report. Set NAME (the layer's name) before sourcing.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL ${NAME:-test}: $*"; }
# q FILE PYTHON-EXPR: evaluate against the JSON report (d; c = checks by id;
# f = facts; g("sync.samples", k) = the per-GPU probes' fact of the k-th
# measured GPU, gpu.<slot>.sync.samples, or gpu.sync.samples when none was
# measured: probes/probe_each_gpu.c); exit status 0 when true
q() {
    python3 - "$1" "$2" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
c = {x["id"]: x for x in d["checks"]}
f = d["facts"]
def g(name, k=0):
    m = f.get("gpu.measured") or []
    return f["gpu.%s.%s" % (m[k], name)] if m else f["gpu." + name]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
# expect LABEL FILE EXPR
expect() { if q "$2" "$3"; then ok; else bad "$1 ($3)"; fi; }
# has_lib REGEX: 0 when a shared library whose file name matches REGEX (grep -E)
# is where the dynamic loader looks. Never `ldconfig -p` from PATH alone: a normal
# user's PATH has no /sbin, and the test would SKIP with a false reason. The
# loader cache through ldconfig at its fixed paths, then the directories
# themselves (LD_LIBRARY_PATH, ld.so.conf's usual ones, /opt/rocm/lib).
has_lib() {
    for l in /sbin/ldconfig /usr/sbin/ldconfig "$(command -v ldconfig 2>/dev/null)"; do
        [ -n "$l" ] && [ -x "$l" ] || continue
        "$l" -p 2>/dev/null | grep -Eq "$1" && return 0
        break
    done
    # shellcheck disable=SC2086
    for d in $(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' ' ') /lib /usr/lib /lib64 /usr/lib64 \
        /usr/local/lib /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu \
        /usr/lib/aarch64-linux-gnu /opt/rocm/lib /usr/local/cuda/lib64; do
        [ -d "$d" ] && ls "$d" 2>/dev/null | grep -Eq "$1" && return 0
    done
    return 1
}
