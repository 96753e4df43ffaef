#!/bin/sh
# report_text.sh - the text report a newcomer reads on an 80x24 terminal:
# no line wider than the terminal (COLUMNS, else 80 when not a tty), the
# marks explained once, the report ends with what to fix (every failure and
# warning with its fix) and a one-line verdict, text repeated by several
# checks said once, counted nouns in the singular for one. Checked on the
# no-GPU fixture and on an AMD fixture. Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/report_text
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=report_text
. tests/lib.sh

# widest line in columns (UTF-8 characters), and its text; a fix command
# (one of the JSON report beside it, fix_commands) is never wrapped and does
# not count
widest() {
    python3 - "$1" "${1%.txt}.json" <<'PY'
import json, os, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
cmds = set()
if os.path.exists(sys.argv[2]):
    for c in json.load(open(sys.argv[2]))["checks"]:
        cmds.update(c.get("fix_commands") or [])
lines = [l for l in lines if l.strip() not in cmds or not l.startswith(" ")]
w = max(lines, key=len)
print(len(w), w)
PY
}

# run NAME FIXTURE [ENV...]: text report of a fixture (with its args) + JSON
run() {
    name=$1 dir=tests/fixtures/$2
    shift 2
    set -- "$@" "$RVD" --sysroot "$dir/root" --no-color --json "$OUT/$name.json"
    if [ -f "$dir/args" ]; then
        while IFS= read -r a; do
            [ -n "$a" ] && set -- "$@" "$(printf '%s' "$a" | sed "s|@FIX@|$dir|g")"
        done <"$dir/args"
    fi
    env "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"
}

# the report's tail is: "To fix" heading, then only the warnings, failures,
# errors and timeouts (each with its fix), then the verdict as the last line
tail_is_todo() { # NAME
    python3 - "$OUT/$1.txt" "$OUT/$1.json" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read().rstrip("\n").split("\n")
d = json.load(open(sys.argv[2]))
bad_ids = [c["id"] for c in d["checks"] if c["status"] in ("fail", "warn", "error", "timeout")]
heads = [i for i, l in enumerate(text) if l.startswith("To fix")]
assert len(heads) == 1, "one To fix heading: %r" % heads
todo = text[heads[0] + 1:]
entries = [re.match(r"^\[(..)\] ([a-z0-9_.]+):", l) for l in todo]
ids = [m.group(2) for m in entries if m]
assert ids and sorted(ids) == sorted(bad_ids), "to-fix ids %r, want %r" % (ids, bad_ids)
# in the order to fix them (fix_rank), the most important nearest the end:
# the last is the check to start with
rank = {c["id"]: c.get("fix_rank") for c in d["checks"]}
order = [rank[i] for i in ids]
assert order == sorted(order, reverse=True) and order[-1] == 1, order
assert ids[-1] == d["start_with"], (ids[-1], d["start_with"])
for c in d["checks"]:
    if c["id"] in ids and c.get("fix"):
        assert any(l.startswith("     fix:") for l in todo), "a fix line"
v = [i for i, l in enumerate(todo) if l.startswith("Verdict: ")]
assert len(v) == 1 and all(l.startswith("         ") for l in todo[v[0] + 1:]), "verdict last"
print(" ".join(todo[v[0]:]))
PY
}

# ---- the no-GPU machine: failures and the one-line verdict last ----------
run nogpu no-gpu-server COLUMNS=80
w=$(widest "$OUT/nogpu.txt")
[ "${w%% *}" -le 80 ] && ok || bad "no-gpu: a line wider than 80 columns: $w"
verdict=$(tail_is_todo nogpu) && ok || bad "no-gpu: the report does not end with what to fix: $verdict"
case $verdict in *"no AMD GPU"*"gpu.present"*) ok ;; *) bad "no-gpu verdict: $verdict" ;; esac
# the key finding is within the last 24 lines (one 80x24 screen)
tail -n 24 "$OUT/nogpu.txt" | grep -q '^\[XX\] gpu.present: no AMD GPU' && ok ||
    bad "no-gpu: gpu.present's failure is not on the last screen"
# the PyTorch fix names the wheel index chosen for this machine (no ROCm
# installed: the newest index with a wheel for this Python), whole
idx=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"].get("python.torch_wheel_index") or "")' "$OUT/nogpu.json" 2>/dev/null)
case $idx in
https://download.pytorch.org/whl/rocm*) grep -qF "$idx" "$OUT/nogpu.txt" && ok || bad "no-gpu: PyTorch fix without the chosen wheel index $idx" ;;
*) bad "no-gpu: no wheel index chosen ($idx)" ;;
esac
[ "$(grep -c '^marks: ' "$OUT/nogpu.txt")" = 1 ] && grep -q '\[--\] skipped' "$OUT/nogpu.txt" && ok ||
    bad "no-gpu: the marks are not explained once"
# the support data's age, once, under the header (issue 33)
[ "$(grep -c '^support data as of [0-9]\{4\}-[0-9][0-9] (newest ROCm [0-9.]*)$' "$OUT/nogpu.txt")" = 1 ] && ok ||
    bad "no-gpu: no 'support data as of YYYY-MM (newest ROCm X.Y)' line"

# ---- an AMD desktop with failures and warnings ------------------------------
run amd rx7900xtx-desktop COLUMNS=80
w=$(widest "$OUT/amd.txt")
[ "${w%% *}" -le 80 ] && ok || bad "amd: a line wider than 80 columns: $w"
verdict=$(tail_is_todo amd) && ok || bad "amd: the report does not end with what to fix: $verdict"
case $verdict in *"not ready"*) ok ;; *) bad "amd verdict: $verdict" ;; esac
# a narrower terminal is honoured too, and a pipe without COLUMNS gets 80
run amd60 rx7900xtx-desktop COLUMNS=60
w=$(widest "$OUT/amd60.txt")
[ "${w%% *}" -le 60 ] && ok || bad "COLUMNS=60: a line wider than 60 columns: $w"
run amdpipe rx7900xtx-desktop -u COLUMNS
w=$(widest "$OUT/amdpipe.txt")
[ "${w%% *}" -le 80 ] && [ "${w%% *}" -gt 60 ] && ok || bad "no COLUMNS, not a tty: want 80 columns, widest $w"

# ---- plurals: "1 warning", "1 check" ---------------------------------------
python3 - "$OUT/amd.json" "$OUT/amd.txt" <<'PY' && ok || bad "counts line: $(grep ' passed, ' "$OUT/amd.txt")"
import json, re, sys
d = json.load(open(sys.argv[1]))
line = [l for l in open(sys.argv[2]) if " passed, " in l][0]
n = sum(1 for c in d["checks"] if c["status"] == "warn")
assert ("%d warning%s," % (n, "" if n == 1 else "s")) in line, line
PY
env COLUMNS=80 "$RVD" --sysroot tests/fixtures/no-gpu-server/root --no-color --only gpu.present >"$OUT/one.txt" 2>&1
grep -q '(1 check in ' "$OUT/one.txt" && grep -q '0 passed, 0 warnings, 1 failed' "$OUT/one.txt" && ok ||
    bad "one check: $(grep passed "$OUT/one.txt")"

# ---- text repeated by several checks is said once ---------------------------
cat >"$OUT/dup.yaml" <<'YAML'
schema: rocm-vla-doctor-checks/1
checks:
  - id: dup.first
    title: first
    level: quick
    fail: [{when: "true", summary: "the hip runtime sees no GPU: hipInit: hipErrorNoDevice (a long repeated reason)"}]
    pass: {summary: ok}
    fix: "install the thing that is missing, then log out and in again and run the doctor again"
    why: test
  - id: dup.second
    title: second
    level: quick
    fail: [{when: "true", summary: "the hip runtime sees no GPU: hipInit: hipErrorNoDevice (a long repeated reason)"}]
    pass: {summary: ok}
    fix: "install the thing that is missing, then log out and in again and run the doctor again"
    why: test
YAML
env COLUMNS=80 "$RVD" --checks "$OUT/dup.yaml" --sysroot tests/cli-roots/named --no-color >"$OUT/dup.txt" 2>&1
[ "$(grep -c 'hipErrorNoDevice' "$OUT/dup.txt")" = 2 ] && ok ||
    bad "a repeated summary is printed $(grep -c hipErrorNoDevice "$OUT/dup.txt") times (want once in the list, once in To fix)"
grep -q '^\[XX\] dup.second  *same as dup.first$' "$OUT/dup.txt" && ok || bad "no 'same as dup.first' in the list"
grep -q '^     fix: same as dup.first$' "$OUT/dup.txt" && ok || bad "the repeated fix is not 'same as dup.first'"
[ "$(grep -c 'install the thing' "$OUT/dup.txt")" = 1 ] && ok || bad "a repeated fix is printed more than once"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
