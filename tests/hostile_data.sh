#!/bin/sh
# hostile_data.sh - a recorded machine is data, never code (issue 30).
#
# 1. a snapshot whose recorded interpreter (python.executable) is a script
#    that writes a file: after `check --sysroot` at every level, with and
#    without --only, by absolute path, bare name on PATH and relative path,
#    the file does not exist; the torch and VLA probes skip with "measured
#    on the live machine only"; --python PATH runs that interpreter here and
#    torch.measured_on says the figures are this host's.
# Ends with "N passed, M failed". RVD, BUILD and OUT come from the environment.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
OUT=${OUT:-build/out}
NAME=hostile_data
. tests/lib.sh
D=$OUT/hostile_data
rm -rf "$D" && mkdir -p "$D"
D=$(cd "$D" && pwd)
case $RVD in /*) ARVD=$RVD ;; *) ARVD=$PWD/$RVD ;; esac

# ---- 1. the recorded interpreter never runs ------------------------------
cp -R tests/fixtures/mi300x-node/root "$D/root"
mkdir -p "$D/bin" "$D/rel"
for f in "$D/bin/evilpy" "$D/rel/evil.sh" "$D/evil.sh"; do
    printf '#!/bin/sh\necho "$0 $*" >>%s/ran\nexit 1\n' "$D" >"$f"
    chmod +x "$f"
done
for exe in "$D/evil.sh" evilpy rel/evil.sh; do
    sed -i "s|^executable=.*|executable=$exe|" "$D/root/.snapshot/python"
    for level in quick standard full; do
        for only in "" torch.latency,torch.numerics,vla.latency.total,vla.selftest; do
            (cd "$D" && PATH="$D/bin:$PATH" "$ARVD" check --sysroot root --level $level \
                ${only:+--only "$only"} --checks "$OLDPWD/checks.yaml" --json "$D/r.json" \
                >/dev/null 2>&1)
            if [ -e "$D/ran" ]; then
                bad "check --sysroot --level $level ${only:+--only $only} ran the recorded interpreter $exe: $(cat "$D/ran")"
                rm -f "$D/ran"
            else
                ok
            fi
        done
    done
done
expect "full: torch and vla skip, measured on the live machine only" "$D/r.json" \
    'f["torch.available"] is False and f["torch.why"].startswith("measured on the live machine only") and f["vla.available"] is False and f["vla.why"] == "measured on the live machine only" and c["torch.latency"]["status"] == "skip" and c["vla.latency.total"]["status"] == "skip" and f.get("vla.backend") is None'
# --python PATH asks for it: that interpreter runs here, and the report says so
"$RVD" check --sysroot "$D/root" --level full --only torch.latency --python tests/fake/torch/cuda.sh \
    --json "$D/py.json" >/dev/null 2>"$D/py.err"
expect "--python under --sysroot: runs, its figures marked as this host's" "$D/py.json" \
    'f["torch.version"] == "2.11.0+cu130" and f["torch.measured_on"].startswith("this host, not the recorded machine")'
grep -q "the torch.\* figures are this host's" "$D/py.err" && ok || bad "--python under --sysroot: no warning: $(cat "$D/py.err")"
"$RVD" check --sysroot "$D/root" --level quick --python tests/fake/torch/cuda.sh >/dev/null 2>"$D/pyq.err"
[ $? -eq 2 ] && grep -q "at --level full" "$D/pyq.err" && ok || bad "--python at quick under --sysroot not refused: $(cat "$D/pyq.err")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
