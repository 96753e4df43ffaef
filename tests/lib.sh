# lib.sh - sourced by the shell test layers: pass/fail counters and queries
# against a JSON report. Set NAME (the layer's name) before sourcing.
pass=0
fail=0
# TEST_PY: the interpreter of the test helpers (q, fact, status ... and the
# layers' own "$TEST_PY" calls), resolved once: run.sh exports it to every layer.
# Debian's /usr/bin/python3 carries the yaml, numpy and jsonschema the tests
# import; a python3 found on PATH may be a pyenv shim, a shell script that
# starts pyenv on every call (0.5 s instead of 0.04 s, issue 31).
if [ -z "${TEST_PY:-}" ]; then
    if [ -x /usr/bin/python3 ]; then TEST_PY=/usr/bin/python3; else TEST_PY=$(command -v python3 || echo python3); fi
fi
# ROCM_TREE: Debian's ROCm 5.2 libraries and headers, unpacked (never
# installed) by tools/ensure-deps.sh rocm-tree; where it is, the loader finds
# them (LD_LIBRARY_PATH, absolute: layers cd) and tests/rocm_headers.sh reads
# their headers (ROCM_INCLUDE), so make test changes nothing on this host
ROCM_TREE=${ROCM_TREE:-build/rocm52}
if [ -f "$ROCM_TREE/root/.unpacked" ]; then
    for _rd in "$ROCM_TREE"/root/usr/lib "$ROCM_TREE"/root/usr/lib/*-linux-gnu; do
        _rd=$(cd "$_rd" && pwd)
        case ":${LD_LIBRARY_PATH:-}:" in *":$_rd:"*) ;; *) LD_LIBRARY_PATH=$_rd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ;; esac
    done
    ROCM_INCLUDE=${ROCM_INCLUDE:-$(cd "$ROCM_TREE/root/usr/include" && pwd)}
    export LD_LIBRARY_PATH ROCM_INCLUDE
fi
export ROCM_TREE
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL ${NAME:-test}: $*"; }
# q FILE PYTHON-EXPR: evaluate against the JSON report (d; c = checks by id;
# f = facts; g("sync.samples", k) = the per-GPU probes' fact of the k-th
# measured GPU, gpu.<slot>.sync.samples, or gpu.sync.samples when none was
# measured: probes/probe_each_gpu.c); exit status 0 when true
q() {
    "$TEST_PY" - "$1" "$2" <<'PY'
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
# fact NAME FILE: the fact's value as Python prints it (lists one item a
# line, "<unknown>" and "<absent>" for those)
fact() {
    "$TEST_PY" -c '
import json, sys
v = json.load(open(sys.argv[2]))["facts"].get(sys.argv[1], "<absent>")
print("\n".join(v) if isinstance(v, list) else ("<unknown>" if v is None else v))' "$1" "$2"
}
# status ID FILE: the check's status in the report
status() {
    "$TEST_PY" -c '
import json, sys
for c in json.load(open(sys.argv[2]))["checks"]:
    if c["id"] == sys.argv[1]: print(c["status"])' "$1" "$2"
}
# same_fact LIVE REPLAY FACT: the fact is in the live report and the replay
# of its snapshot has the same value (collect recorded what it reads)
same_fact() {
    "$TEST_PY" - "$1" "$2" "$3" <<'PY'
import json, sys
a, b = (json.load(open(p))["facts"] for p in sys.argv[1:3])
k = sys.argv[3]
if k not in a or a.get(k) != b.get(k):
    print("live %r, replay %r" % (a.get(k), b.get(k)))
    sys.exit(1)
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
# fixture_check DIR ARG...: the doctor on fixture machine DIR (its root/, else
# its snapshot.tar.gz) with ARG... and the extra arguments of DIR/args (one a
# line, @FIX@ standing for DIR); returns the doctor's exit status
fixture_check() {
    _fdir=${1%/}
    shift
    _froot="$_fdir/root"
    [ -d "$_froot" ] || _froot="$_fdir/snapshot.tar.gz"
    if [ -f "$_fdir/args" ]; then
        while IFS= read -r _fa; do
            [ -n "$_fa" ] && set -- "$@" "$(printf '%s' "$_fa" | sed "s|@FIX@|$_fdir|g")"
        done <"$_fdir/args"
    fi
    "$RVD" --sysroot "$_froot" "$@"
}
# expect_rc RC SUBSTRING DESCRIPTION CMD...: run CMD (stdout and stderr into
# $OUT/last.out and $OUT/last.err); it must exit RC and, unless SUBSTRING is
# empty, print SUBSTRING on either
expect_rc() {
    want=$1 pat=$2 what=$3
    shift 3
    "$@" >"$OUT/last.out" 2>"$OUT/last.err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        bad "$what: exit $rc, want $want: $(head -c 300 "$OUT/last.err")"
    elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$OUT/last.out" "$OUT/last.err"; then
        bad "$what: output lacks '$pat': $(head -c 300 "$OUT/last.out" "$OUT/last.err")"
    else
        ok
    fi
}
