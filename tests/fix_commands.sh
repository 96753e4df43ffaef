#!/bin/sh
# fix_commands.sh - every printed fix is runnable as printed (issue 20).
# For every fixture machine (replayed as tests/fixtures.sh does): each
# fix_commands item of its JSON report passes `bash -n`, is one line and
# holds no prose (tests/fix_commands.py, whose heuristic has its own cases);
# and the paste test: the command lines of the text report at COLUMNS=80,
# pasted into a shell that runs nothing (a DEBUG trap under extdebug logs
# $BASH_COMMAND and skips it), log exactly the simple commands that the
# JSON's fix_commands log, so a wrapped line or a stray word fails. Then the
# built-in checks.yaml's own fixes with plausible fact values (fixes no
# fixture reaches), the lint that keeps {sudo} and commands out of prose
# (FIX_LINT_UPTO="  # ---- SECTION" lints only the part before that line),
# and that the loader keeps accepting an old-style prose-and-command fix.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}/fix_commands
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=fix_commands
. tests/lib.sh
PY=tests/fix_commands.py

python3 "$PY" selftest && ok || bad "the prose heuristic fails its own cases"

# the stub shell: logs each simple command it is given, runs none
cat >"$OUT/stub.sh" <<'SH'
shopt -s extdebug
trap 'printf "%s\n" "$BASH_COMMAND" >>"$FIX_LOG"; false' DEBUG
SH
paste_log() { # FILE-OF-COMMAND-LINES LOG
    : >"$2"
    cat "$OUT/stub.sh" "$1" | FIX_LOG=$2 bash --norc --noprofile 2>/dev/null
}

n=0
for dir in tests/fixtures/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/expected" ] || continue
    (export COLUMNS=80 && fixture_check "$dir" --no-color --json "$OUT/$name.json") \
        >"$OUT/$name.txt" 2>"$OUT/$name.err"
    [ -s "$OUT/$name.json" ] || {
        bad "$name: no JSON report"
        continue
    }
    python3 "$PY" reports "$OUT/$name.json" >"$OUT/$name.cmds" && ok ||
        bad "$name: $(grep FAIL "$OUT/$name.cmds" | head -3)"
    # the commands as the JSON has them, and as the text report prints them
    # (lines under "To fix" indented as commands: 5 + 7 columns)
    # in the order of "To fix" (fix_rank, the most important last), a fix
    # said once, under the more important check, when another has the same
    # ("same as ID")
    python3 -c '
import json, sys
checks = json.load(open(sys.argv[1]))["checks"]
found = sorted((c for c in checks if c.get("fix_rank")), key=lambda c: -c["fix_rank"])
for c in found:
    fix = c.get("fix") or ""
    if len(fix) > 40 and any(o.get("fix") == fix and o["fix_rank"] < c["fix_rank"] for o in found):
        continue
    for cmd in c.get("fix_commands") or []:
        print(cmd)' "$OUT/$name.json" >"$OUT/$name.want"
    sed -n '/^To fix/,$p' "$OUT/$name.txt" | sed -n 's/^            \([^ ]\)/\1/p' >"$OUT/$name.pasted"
    paste_log "$OUT/$name.want" "$OUT/$name.want.log"
    paste_log "$OUT/$name.pasted" "$OUT/$name.pasted.log"
    if [ -s "$OUT/$name.want" ]; then
        n=$((n + 1))
        [ -s "$OUT/$name.want.log" ] || bad "$name: the stub shell logged nothing"
    fi
    cmp -s "$OUT/$name.want.log" "$OUT/$name.pasted.log" && ok ||
        bad "$name: pasting the text report's fix lines runs other commands: $(diff "$OUT/$name.want.log" "$OUT/$name.pasted.log" | head -4)"
done
[ "$n" -ge 3 ] && ok || bad "only $n fixtures print a fix command: the paste test tests little"

# a command is never wrapped, however narrow the terminal
env COLUMNS=40 "$RVD" --sysroot tests/fixtures/rx7800xt-override/root --no-color >"$OUT/narrow.txt" 2>&1
grep -qx '            echo auto | sudo tee /sys/class/drm/card\*/device/power_dpm_force_performance_level' \
    "$OUT/narrow.txt" && ok || bad "COLUMNS=40: the perf_level command is not on one line"

# the built-in file's fixes, every rule's, with plausible facts
"$RVD" list --facts >"$OUT/facts.txt" 2>&1
python3 "$PY" lint checks.yaml "$OUT/facts.txt" ${FIX_LINT_UPTO:+"$FIX_LINT_UPTO"} >"$OUT/lint.out" && ok ||
    bad "checks.yaml: $(grep -c FAIL "$OUT/lint.out") fixes break the model: $(grep FAIL "$OUT/lint.out" | head -3)"
# the lint catches what it is for
printf 'checks:\n  - id: t.a\n    fix: "{sudo}usermod -aG render $LOGNAME, then log in again"\n  - id: t.b\n    fix: {say: s, run: ["{sudo}update-grub then reboot"]}\n' >"$OUT/old.yaml"
python3 "$PY" lint "$OUT/old.yaml" "$OUT/facts.txt" >"$OUT/old.lint" && bad "the lint accepts {sudo} in prose" ||
    { [ "$(grep -c FAIL "$OUT/old.lint")" = 2 ] && ok || bad "the lint: $(cat "$OUT/old.lint")"; }

# ... while the loader still takes an old-style fix from a user's own file
cat >"$OUT/user.yaml" <<'YAML'
schema: rocm-vla-doctor-checks/1
checks:
  - id: user.old
    title: old style
    level: quick
    fail: [{when: "true", summary: "always"}]
    pass: {summary: ok}
    fix: "{sudo}usermod -aG render,video $LOGNAME, then log out and in again"
    why: test
YAML
"$RVD" --checks "$OUT/user.yaml" --sysroot tests/cli-roots/named --no-color --json "$OUT/user.json" >"$OUT/user.txt" 2>&1
[ $? = 1 ] && q "$OUT/user.json" "c['user.old']['fix_say'].endswith('then log out and in again') and c['user.old']['fix_commands'] == []" &&
    ok || bad "an old-style fix in --checks: $(head -3 "$OUT/user.txt")"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
