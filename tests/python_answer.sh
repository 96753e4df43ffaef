#!/bin/sh
# python_answer.sh - the python probe's fast answer (python -S, .pth import
# lines recorded, dist-info read directly: probes/probe_python.c) gives the
# facts a normal start of the same interpreter gives through site and
# importlib.metadata (issue 25). A venv from tools/big_pyenv.sh, then torch
# moved behind a .pth path line, then behind a meta-path finder that a .pth
# import line installs (an editable install), then odd METADATA files, then
# pip found or not (python.pip_present) as `python -m pip` would.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=python_answer
. tests/lib.sh
D=$OUT/python_answer
rm -rf "$D"
mkdir -p "$D"
if ! sh tools/big_pyenv.sh "$D/venv" 40 python3 >"$D/venv.log" 2>&1; then
    echo "SKIP python_answer: python3 cannot make a venv here ($(tail -1 "$D/venv.log"))"
    exit 0
fi
PY=$D/venv/bin/python
SP=$("$PY" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')

# compare LABEL: the doctor's python facts against the interpreter's own
# normal-start answer (site run, importlib.metadata over sys.path)
compare() {
    "$PY" - >"$D/want.json" <<'PY'
import importlib.metadata as md, importlib.util, json, os, re, sys
seen = {}
for d in md.distributions():
    n = d.metadata['Name']
    if n:
        seen.setdefault(re.sub(r'[-_.]+', '-', n).lower(), d.version)
s = importlib.util.find_spec('torch')
o = getattr(s, 'origin', None)
# `python -m pip` runs when pip's package imports (a namespace directory
# has no origin file); its dist-info alone also counts as present
p = getattr(importlib.util.find_spec('pip'), 'origin', None)
json.dump({"python.executable": sys.executable, "python.prefix": sys.prefix,
           "python.dist_count": len(seen),
           "python.torch_dir": os.path.dirname(os.path.abspath(o)) if o and os.path.isfile(o) else "",
           "python.pip_present": bool(p and os.path.isfile(p)) or "pip" in seen,
           "dists": sorted("%s %s" % kv for kv in seen.items())}, sys.stdout)
PY
    "$RVD" --no-color --python "$PY" --json "$D/r.json" >/dev/null 2>"$D/r.err"
    python3 - "$D/want.json" "$D/r.json" <<'PY' >"$D/diff.txt"
import json, sys
want, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["facts"]
for k, v in want.items():
    if k != "dists" and f.get(k) != v:
        print("%s: doctor %r, interpreter %r" % (k, f.get(k), v))
# triton counts only next to pytorch-triton-rocm (python_dist_cuda_reason)
cuda = [d for d in want["dists"] if d.split()[0] == "nvidia-cudnn-cu13"]
if f.get("python.nvidia_packages") != cuda:
    print("python.nvidia_packages: doctor %r, want %r" % (f.get("python.nvidia_packages"), cuda))
PY
    if [ -s "$D/r.json" ] && [ ! -s "$D/diff.txt" ]; then ok; else bad "$1: $(cat "$D/diff.txt") $(head -2 "$D/r.err")"; fi
}

compare "big venv"
expect "big venv: torch found" "$D/r.json" "f['python.torch_present'] is True and f['python.torch_build'] == 'cuda'"
expect "big venv (--without-pip): no pip" "$D/r.json" "f['python.pip_present'] is False"

mkdir -p "$D/alt"
mv "$SP/torch" "$D/alt/torch"
echo "$D/alt" >"$SP/zz-alt.pth"
compare "torch behind a .pth path line"

rm "$SP/zz-alt.pth"
cat >"$SP/__editable___torch_finder.py" <<PY
import importlib.util, sys
class Finder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name == 'torch':
            return importlib.util.spec_from_file_location('torch', '$D/alt/torch/__init__.py')
def install():
    sys.meta_path.append(Finder)
PY
echo "import __editable___torch_finder; __editable___torch_finder.install()" >"$SP/__editable__.torch.pth"
compare "torch behind a .pth import line's finder"
expect "finder: torch found" "$D/r.json" "f['python.torch_dir'].endswith('/alt/torch')"

# duplicates (first wins), no METADATA, no Name, a folded header and a body
# after it, an egg-info file without Version, a dist-info that is a file
mkdir -p "$SP/dup_a-1.0.dist-info" "$SP/Dup.A-2.0.dist-info" "$SP/nometa-1.dist-info" \
    "$SP/noname-1.dist-info" "$SP/FOLD-1.DIST-INFO"
printf 'Name: Dup_A\nVersion: 1.0\n' >"$SP/dup_a-1.0.dist-info/METADATA"
printf 'Name: dup-a\nVersion: 2.0\n' >"$SP/Dup.A-2.0.dist-info/METADATA"
printf 'Version: 3\n' >"$SP/noname-1.dist-info/METADATA"
printf 'Name:   folded\r\nVersion: 1.0\r\n\r\nName: notme\n' >"$SP/FOLD-1.DIST-INFO/PKG-INFO"
printf 'Name: asfile\nVersion: 9\n' >"$SP/asfile-9.dist-info"
printf 'Name: nover\n' >"$SP/nover-0.egg-info"
compare "odd metadata"

# pip: an empty pip directory (a namespace package: -m pip fails), then a
# pip package without dist-info, then its dist-info without the package
mkdir -p "$SP/pip"
compare "an empty pip directory"
expect "empty pip directory: no pip" "$D/r.json" "f['python.pip_present'] is False"
printf '' >"$SP/pip/__init__.py"
compare "a pip package"
expect "pip package: present" "$D/r.json" "f['python.pip_present'] is True"
rm -r "$SP/pip"
mkdir -p "$SP/pip-24.0.dist-info"
printf 'Name: pip\nVersion: 24.0\n' >"$SP/pip-24.0.dist-info/METADATA"
compare "pip's dist-info"
expect "pip dist-info: present" "$D/r.json" "f['python.pip_present'] is True"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
