#!/bin/sh
# venv_recipe.sh - the PyTorch fix fits the machine's Python (issue 20): an
# externally managed Python (PEP 668) gets a venv recipe, with Debian's
# python3.X-venv package first where ensurepip is stripped; another
# distribution is not told to apt-get; a Python pip may write to gets its own
# `-m pip`, or first ensurepip, or a venv, where it has no pip. Variants of the debian12-rocm52-py311 fixture, compared command
# by command (JSON fix_commands). Then collect records what the ensurepip
# fact reads: a replay of the live machine has the same python facts.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=venv_recipe
. tests/lib.sh
D=$OUT/venv_recipe
rm -rf "$D"
mkdir -p "$D"
M=$D/root
cp -R tests/fixtures/debian12-rocm52-py311/root "$M"
STDLIB=$M/usr/lib/python3.11
IDX=https://download.pytorch.org/whl/rocm5.4.2
VENV="'/usr/bin/python3 -m venv ~/vla-venv', '~/vla-venv/bin/python -m pip install torch torchvision --index-url $IDX'"

# commands LABEL EXPECTED-PYTHON-LIST: python.torch_build's fix commands
commands() {
    "$RVD" --sysroot "$M" --no-color --json "$D/r.json" >"$D/r.txt" 2>"$D/r.err"
    if [ ! -s "$D/r.json" ]; then
        bad "$1: no JSON report ($(head -2 "$D/r.err"))"
        return
    fi
    expect "$1: fails" "$D/r.json" "c['python.torch_build']['status'] == 'fail'"
    expect "$1: commands" "$D/r.json" "c['python.torch_build'].get('fix_commands') == [$2]"
}

# the fixture: Debian 12, externally managed, no ensurepip
commands "debian without ensurepip" "'sudo apt-get install -y python3.11-venv', $VENV"
expect "debian: the package is named in the prose" "$D/r.json" \
    "'python3.11-venv' in c['python.torch_build']['fix_say']"

# Ubuntu: ID_LIKE=debian picks the same package manager
printf 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n' >"$M/etc/os-release"
commands "ubuntu without ensurepip" "'sudo apt-get install -y python3.11-venv', $VENV"

# another distribution without ensurepip: no apt-get, the package in prose
printf 'ID=fedora\nVERSION_ID=40\n' >"$M/etc/os-release"
commands "fedora without ensurepip" "$VENV"
expect "fedora: says what is missing" "$D/r.json" "'ensurepip' in c['python.torch_build']['fix_say']"

# ensurepip present (python3.11-venv installed): the venv alone
cp tests/fixtures/debian12-rocm52-py311/root/etc/os-release "$M/etc/os-release"
mkdir -p "$STDLIB/ensurepip"
printf 'import os\n' >"$STDLIB/ensurepip/__init__.py"
commands "debian with ensurepip" "$VENV"

# not externally managed: this interpreter's pip, never a bare pip
rm "$STDLIB/EXTERNALLY-MANAGED"
commands "not externally managed" "'/usr/bin/python3 -m pip install torch torchvision --index-url $IDX'"

# no pip module in the interpreter (python.pip_present false): a printed
# `-m pip` would fail with "No module named pip". The answer's pip_dir is
# the lookup; without it and without pip's dist-info the fact is unknown.
ANSWER=$M/.snapshot/python
ORIG=$D/python.orig
cp "$ANSWER" "$ORIG"
answer() { # LINE...: the fixture's answer without pip's dist-info, plus LINEs
    grep -v '^dist=pip ' "$ORIG" >"$ANSWER"
    for l in "$@"; do printf '%s\n' "$l" >>"$ANSWER"; done
}
PIP="'/usr/bin/python3 -m pip install torch torchvision --index-url $IDX'"
answer "pip_dir=/usr/lib/python3/dist-packages/pip"
commands "pip found by its package: old advice" "$PIP"
answer
commands "pip unknown (older answer): no claim, old advice" "$PIP"
expect "pip unknown: the fact says why" "$D/r.json" \
    "f['python.pip_present'] is None"
answer "pip_dir="
commands "no pip, ensurepip, not externally managed: ensurepip first" \
    "'/usr/bin/python3 -m ensurepip --upgrade', $PIP"
expect "no pip: the prose says so" "$D/r.json" "'no pip module' in c['python.torch_build']['fix_say']"
# in a venv the PEP 668 marker of its base Python does not bind pip
printf '[externally-managed]\n' >"$STDLIB/EXTERNALLY-MANAGED"
answer "pip_dir="
sed -i 's|^prefix=/usr$|prefix=/home/u/venv|' "$ANSWER"
commands "no pip, a venv of an externally managed Python: ensurepip first" \
    "'/usr/bin/python3 -m ensurepip --upgrade', $PIP"
# outside a venv the PEP 668 rules come first: the venv brings its own pip
answer "pip_dir="
commands "no pip, externally managed: the PEP 668 venv" "$VENV"
rm "$STDLIB/EXTERNALLY-MANAGED"
# no ensurepip either: a venv, after Debian's package where apt-get is
rm -r "$STDLIB/ensurepip"
commands "no pip, no ensurepip, debian: python3.11-venv, then a venv" \
    "'sudo apt-get install -y python3.11-venv', $VENV"
printf 'ID=fedora\nVERSION_ID=40\n' >"$M/etc/os-release"
commands "no pip, no ensurepip, fedora: a venv, the package in prose" "$VENV"
expect "no pip, fedora: says what is missing" "$D/r.json" \
    "'ensurepip' in c['python.torch_build']['fix_say'] and 'no pip module' in c['python.torch_build']['fix_say']"
cp tests/fixtures/debian12-rocm52-py311/root/etc/os-release "$M/etc/os-release"
# ensurepip and the marker unknown (no stdlib path): a venv, never -m pip
answer "pip_dir="
sed -i '/^stdlib=/d' "$ANSWER"
commands "no pip, ensurepip unknown: a venv" "$VENV"
cp "$ORIG" "$ANSWER"

# collect records <stdlib>/ensurepip/__init__.py: live and replay agree
# (the live run's exit status is its verdict: only its report matters)
"$RVD" --no-color --json "$D/live.json" >/dev/null 2>"$D/collect.err"
if [ -s "$D/live.json" ] && "$RVD" collect -o "$D/live.tar.gz" >/dev/null 2>"$D/collect.err"; then
    "$RVD" --sysroot "$D/live.tar.gz" --no-color --json "$D/replay.json" >/dev/null 2>&1
    for fact in python.ensurepip_present python.venv_package python.externally_managed \
        python.pip_present; do
        if same_fact "$D/live.json" "$D/replay.json" "$fact"; then ok; else bad "collect/replay: $fact differs"; fi
    done
else
    bad "live run or collect failed: $(head -2 "$D/collect.err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
