#!/bin/sh
# hostile_data.sh - a recorded machine is data, never code (issue 30).
#
# 1. a snapshot whose recorded interpreter (python.executable) is a script
#    that writes a file: after `check --sysroot` at every level, with and
#    without --only, by absolute path, bare name on PATH and relative path,
#    the file does not exist; the torch and VLA probes skip with "measured
#    on the live machine only"; --python PATH runs that interpreter here and
#    torch.measured_on says the figures are this host's.
# 3. an interpreter that answers and exits while a grandchild holds its
#    stdout open: the answer is taken at its exit (not after the 10 s
#    watchdog, which made python.present false), and the grandchild, in its
#    process group, is ended (tests/torch_probe.sh: the torch probe's side
#    and SIGTERM).
# 5. redaction: the user's and the host's names in any case, next to - _ .
#    and /, and the host's full name with its domain are hidden in the
#    markdown summary and the --html --redact page.
# 7. a pci.ids that libpci refuses (a parse error): the names are unknown
#    with the reason, naming the file as the root has it, and the run goes on.
# 9. outputs: --only '' (and an empty id in a list) is refused, not a run of
#    every check; two outputs naming one file by any name (./a, a link,
#    - and /dev/stdout, --trace-gpu among them) are exit 2; a run that
#    stops before its probes leaves no --trace-gpu file (temporary + rename).
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

# ---- 3. the answer at the interpreter's exit ---------------------------------
printf '#!/bin/sh\nsleep 300 &\necho $! >%s/gk.pid\nprintf "executable=/opt/fake/bin/python3\\nversion=3.11.2\\nprefix=/opt/fake\\nbase_prefix=/usr\\n"\n' "$D" >"$D/fakepy"
chmod +x "$D/fakepy"
"$RVD" check --only python.torch_build --python "$D/fakepy" --json "$D/py3.json" >/dev/null 2>&1
expect "python query: answered at the exit despite a grandchild on stdout" "$D/py3.json" \
    'f["python.present"] is True and f["python.version"] == "3.11.2"'
gk=$(cat "$D/gk.pid" 2>/dev/null)
if [ -n "$gk" ] && kill -0 "$gk" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$gk/status" 2>/dev/null; then
    bad "python query: the grandchild $gk outlived the run"
    kill -KILL "$gk"
else
    ok
fi

# ---- 5. redaction of every form of a name ----------------------------------
cp -R tests/fixtures/mi300x-node/root "$D/redroot" # host mi300x-node07, user ops
sed -i "s|^executable=.*|executable=/data/OPS-scratch/MI300X-NODE07.corp.example.org/ops_tools/python3|" \
    "$D/redroot/.snapshot/python"
"$RVD" check --sysroot "$D/redroot" --html "$D/red.html" --redact --markdown "$D/red.md" >/dev/null 2>&1
for f in red.html red.md; do
    leak=$(grep -oiE '(^|[^a-z0-9])(ops|mi300x-node07)([^a-z0-9]|$)|corp\.example' "$D/$f" | head -3 | tr '\n' ' ')
    [ -s "$D/$f" ] && [ -z "$leak" ] && ok || bad "$f: a name leaked: $leak"
done
grep -q '/data/&lt;user&gt;-scratch/&lt;host&gt;/&lt;user&gt;_tools/python3' "$D/red.html" && ok ||
    bad "red.html: the interpreter's path is not redacted as expected: $(grep -o '/data/[^<]*' "$D/red.html" | head -1)"

# ---- 7. a pci.ids libpci refuses -------------------------------------------
cp -R tests/fixtures/mi300x-node/root "$D/pciroot"
printf '1002  AMD\n\t74a1  MI300X\nzzzz not a pci.ids line\n' >"$D/pciroot/usr/share/misc/pci.ids"
"$RVD" check --sysroot "$D/pciroot" --json "$D/pci.json" >/dev/null 2>"$D/pci.err"
rc=$?
[ $rc -le 1 ] && ok || bad "a refused pci.ids ended the run: exit $rc: $(cat "$D/pci.err")"
expect "a refused pci.ids: the names unknown with libpci's reason" "$D/pci.json" \
    'f["gpu.0.pci_name"] is None and d["facts_meta"]["gpu.0.pci_name"]["reason"].startswith("libpci cannot read /usr/share/misc/pci.ids: Parse error at /usr/share/misc/pci.ids, line 3") and len(d["checks"]) > 40'

# ---- 9. outputs -----------------------------------------------------------
F=tests/fixtures/mi300x-node/root
refused() { # LABEL MESSAGE-REGEX ARGS...: exit 2 with the message
    _l=$1 _m=$2
    shift 2
    (cd "$D" && "$ARVD" check --sysroot "$OLDPWD/$F" --checks "$OLDPWD/checks.yaml" "$@" \
        >"$D/o.out" 2>"$D/o.err")
    _rc=$?
    [ $_rc -eq 2 ] && grep -Eq -e "$_m" "$D/o.err" && ok || bad "$_l: exit $_rc: $(head -c 300 "$D/o.err")"
}
refused "--only ''" "an empty check id" --only ''
refused "--only a,,b" "an empty check id" --only gpu.vram,,gpu.gfx_supported
refused "--only trailing comma" "an empty check id" --only gpu.vram,
rm -f "$D/a.json" "$D/b.json" "$D/c.json"
refused "same file by ./name" "name the same file" --json a.json --junit ./a.json
: >"$D/b.json"
ln -s b.json "$D/c.json"
refused "same file by a link" "name the same file" --json b.json --prom c.json
refused "- and /dev/stdout" "cannot both write to stdout" --json - --junit /dev/stdout
refused "--trace-gpu and --json" "and --trace-gpu name the same file" --level standard --json b.json --trace-gpu ./b.json
[ ! -s "$D/b.json" ] && ok || bad "a refused run wrote b.json"
# the trace goes through a temporary file: a run that stops early leaves none
rm -f "$D/t.txt"
"$RVD" check --sysroot "$D/no-such-root" --level standard --trace-gpu "$D/t.txt" >/dev/null 2>&1
[ ! -e "$D/t.txt" ] && ok || bad "--trace-gpu: a run that stopped left $(wc -c <"$D/t.txt") bytes of trace"
ls "$D" | grep -q '^\.t\.txt\|t\.txt\.' && bad "--trace-gpu: a temporary file was left: $(ls -a "$D")" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
