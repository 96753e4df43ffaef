#!/usr/bin/python3
"""mk-fixture-pciids.py [PCI_IDS] - give the fixture machines the pci.ids
lines their GPUs need, copied verbatim from a real pci.ids (default: this
machine's /usr/share/misc/pci.ids, Debian's package pci.ids), into
tests/fixtures/<m>/root/usr/share/misc/pci.ids, and say so in each README.

Run after tools/mk-fixtures.py (which rebuilds root/ without them). The
machines and the ids they look up are listed below; rx7800xt-hot-edge is
left without a pci.ids on purpose (the fallback to the ids is tested there),
and mi300x-node and rx7800xt-override get only the vendor line where the
file predates their device (the "not in pci.ids" fallback).
"""
import os
import re
import sys

# machine -> (vendor, device, subvendor, subdevice) of its GPUs
GPUS = {
    "debian12-rocm52-py311": [("1002", "73bf", "1da2", "440e")],
    "mi250x-degraded": [("1002", "740c", None, None)],
    "mi300x-node": [("1002", "74a1", None, None)],
    "rx580-legacy": [("1002", "67df", "1da2", "e387")],
    "rx7800xt-override": [("1002", "747e", None, None)],
    "rx7900xt-firmware": [("1002", "744c", None, None)],
    "rx7900xtx-desktop": [("1002", "744c", None, None)],
    "rx7900xtx-kfd-hang": [("1002", "744c", None, None)],
}
# the machines rebuilt from public reports (issue 32) on the RX 6900 XT
# capture; the two RX 6600 ones carry that card's device id
for m in ("ollama-rootless-docker", "buildah-rootless-fedora", "cuda-visible-minus1",
          "second-user-groups", "sudo-only", "docker-no-kfd", "torch-cpu-py37",
          "podman-nogroup", "hpc-not-in-video", "apptainer-containall"):
    GPUS["report-" + m] = [("1002", "73bf", "1da2", "440e")]
for m in ("gfx1032-fooocus", "gfx1032-sovits"):
    GPUS["report-" + m] = [("1002", "73ff", None, None)]
for m in ("blacklist", "degraded", "desktop", "dkms-stale", "no-amdgpu-kernel",
          "no-modules-extra", "nomodeset", "secureboot", "secureboot-nolog"):
    GPUS["rx6900xt-" + m] = [("1002", "73bf", "1da2", "440e")]

MARK = "pci.ids excerpt (tools/mk-fixture-pciids.py)"


def excerpt(lines, gpus):
    """the numbered lines for these GPUs, in the file's order"""
    want = set()
    vendor = None
    device = None
    for no, line in enumerate(lines, 1):
        if line.startswith("#") or not line.strip():
            continue
        if not line.startswith("\t"):
            vendor, device = line[:4], None
            if any(vendor in (g[0], g[2]) for g in gpus):
                want.add(no)
        elif not line.startswith("\t\t"):
            device = line[1:5]
            if any((vendor, device) == g[:2] for g in gpus):
                want.add(no)
        elif device and any((vendor, device, line[2:6], line[7:11]) == g for g in gpus):
            want.add(no)
    return sorted(want)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/misc/pci.ids"
    with open(src, encoding="utf-8") as f:
        lines = f.read().split("\n")
    version = next((re.sub(r"^#\s*", "", l) for l in lines[:20] if "Version:" in l), "?")
    here = os.path.dirname(os.path.abspath(__file__))
    for m, gpus in sorted(GPUS.items()):
        fx = os.path.join(here, "..", "tests", "fixtures", m)
        nos = excerpt(lines, gpus)
        out = os.path.join(fx, "root", "usr", "share", "misc", "pci.ids")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            f.write("# lines %s of %s (%s), copied verbatim\n"
                    % (", ".join(map(str, nos)), src, version))
            for no in nos:
                f.write(lines[no - 1] + "\n")
        readme = os.path.join(fx, "README")
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        if MARK not in text:
            with open(readme, "a", encoding="utf-8") as f:
                f.write("\n/usr/share/misc/pci.ids: a real %s: lines %s of %s (%s,\n"
                        "Debian's package pci.ids), copied verbatim.\n"
                        % (MARK, ", ".join(map(str, nos)), src, version))


main()
