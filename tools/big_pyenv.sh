#!/bin/sh
# big_pyenv.sh - a venv that looks like a large ML environment, for timing
# the python probe (issue 25: the quick level on a host with a large Python
# environment). N fake distributions (dist-info with METADATA and RECORD, a
# few egg-info files), a fake CUDA torch package (torch/version.py, no
# code), and .pth files: path lines to extra directories and `import`
# lines that import a stdlib module, as certifi CA hooks and distutils
# shims do. Nothing is downloaded; the venv has no pip.
# Usage: sh tools/big_pyenv.sh DIR [N] [PYTHON]
#   then: PATH=DIR/bin:$PATH sh tools/quick_bench.sh
set -eu
DIR=${1:?usage: big_pyenv.sh DIR [N] [PYTHON]}
N=${2:-300}
PY=${3:-python3}
"$PY" -m venv --without-pip "$DIR"
SP=$("$DIR/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
"$DIR/bin/python" - "$SP" "$N" <<'PY'
import os, sys
sp, n = sys.argv[1], int(sys.argv[2])
def dist(root, name, version, egg=False):
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: fake\n\nlong text\n" % (name, version)
    if egg:
        with open(os.path.join(root, "%s-%s.egg-info" % (name, version)), "w") as f:
            f.write(meta)
        return
    d = os.path.join(root, "%s-%s.dist-info" % (name.replace("-", "_"), version))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(meta)
    with open(os.path.join(d, "RECORD"), "w") as f:
        f.write("".join("%s/f%d.py,,\n" % (name, i) for i in range(20)))
for i in range(n):
    dist(sp, "fake-pkg-%d" % i, "1.%d.0" % i, egg=(i % 25 == 0))
for name, version in [("torch", "2.11.0+cu130"), ("nvidia-cudnn-cu13", "9.13.0"),
                      ("numpy", "2.3.4"), ("triton", "3.6.0")]:
    dist(sp, name, version)
t = os.path.join(sp, "torch")
os.makedirs(t, exist_ok=True)
open(os.path.join(t, "__init__.py"), "w").close()
with open(os.path.join(t, "version.py"), "w") as f:
    f.write("__version__ = '2.11.0+cu130'\ncuda = '13.0'\nhip = None\n")
for i in range(n // 10):
    extra = os.path.join(sp, "..", "extra-%d" % i)
    os.makedirs(extra, exist_ok=True)
    dist(extra, "extra-pkg-%d" % i, "0.%d" % i)
    with open(os.path.join(sp, "path-%03d.pth" % i), "w") as f:
        f.write("# a path line\n%s\n" % os.path.abspath(extra))
    with open(os.path.join(sp, "hook-%03d.pth" % i), "w") as f:
        f.write("import os; import json, email.parser, zipfile; os.environ.get('X%d')\n" % i)
PY
echo "big_pyenv: $DIR ($N distributions, $((N / 10)) path and $((N / 10)) import .pth files)"
