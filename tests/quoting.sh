#!/bin/sh
# quoting.sh - the fix commands' quoting round trip (issue 30): every
# string of test_shell_roundtrip's corpus (over 1000: every byte, quotes,
# backslashes, $(...), backquotes, a leading - or =, bidi controls, invalid
# UTF-8) that shell_word() accepts becomes one command `"$STUB" argv WORD
# pre-WORD`; the script runs once under each of dash, bash, zsh and busybox
# sh (one shell process per shell), and the argument vectors the stub
# prints must equal the strings. A refused string never reaches a command
# (checks_run.c leaves it out and names the fact; test_checks). A shell that
# is not installed fails the layer: CI installs zsh and busybox.
# Ends with "N passed, M failed".
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-build/out}
NAME=quoting
. tests/lib.sh
D=$OUT/quoting
rm -rf "$D" && mkdir -p "$D"
T=$BUILD/tests/test_shell_roundtrip
if ! "$T" emit "$D/cmds.sh" "$D/want" 2>"$D/emit.err"; then
    bad "$T emit: $(cat "$D/emit.err")"
fi
n=$(wc -l <"$D/want")
[ "$n" -ge 300 ] && ok || bad "only $n commands generated"
STUB=$T
export STUB
for sh in dash bash zsh "busybox sh"; do
    tag=$(echo "$sh" | tr ' ' _)
    exe=${sh%% *}
    if ! command -v "$exe" >/dev/null 2>&1; then
        bad "$sh is not installed (CI: apt-get install $exe)"
        continue
    fi
    # zsh as zsh (its own rules: =word, no word splitting), not in sh emulation
    $sh "$D/cmds.sh" >"$D/got.$tag" 2>"$D/err.$tag"
    if cmp -s "$D/want" "$D/got.$tag" && [ ! -s "$D/err.$tag" ]; then
        ok
    else
        bad "$sh: the argument vectors differ from the strings: $(diff "$D/want" "$D/got.$tag" | head -4) $(head -c 300 "$D/err.$tag")"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
