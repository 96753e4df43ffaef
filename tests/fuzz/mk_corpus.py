#!/usr/bin/python3
"""mk_corpus.py [BIN] - (re)write the seed corpora tests/fuzz/corpus/<harness>/
from the repository's own data: checks.yaml and its rules, models/*.yaml,
the fixture machines' files, synthetic safetensors/ELF/bundle/tar files
built here, and (with BIN, the doctor) two JSON reports for diff. Run from
the repository root; deterministic; keeps every file small. The corpora are
committed: `make fuzz` starts from them and `make test` replays them."""
import gzip
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import zlib

import yaml

C = "tests/fuzz/corpus"
FX = "tests/fixtures"


def out(harness, name, data):
    d = os.path.join(C, harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def reset(harness):
    shutil.rmtree(os.path.join(C, harness), ignore_errors=True)


# ---- rule language: every rule of checks.yaml, and some corners -----------
reset("expr")
doc = yaml.safe_load(open("checks.yaml"))
rules = []


def walk(n):
    if isinstance(n, dict):
        for k, v in n.items():
            if k == "when" and isinstance(v, str):
                rules.append(v)
            else:
                walk(v)
    elif isinstance(n, list):
        for v in n:
            walk(v)


walk(doc["checks"])
extra = ['gpu.vram_bytes < 12 GiB && !(gpu.gfx in lookup(gfx_supported, rocm.series))',
         'len(user.groups) > 1 && "video" in user.groups', 'lower(gpu.gfx) matches "^gfx1[01]"',
         'count(user.groups, "^re") == 1 || known(x.unknown)', '-gpu.vram_bytes / 2 * 3 + 1 >= 0',
         '[1, 2.5 KiB, "a"] == [1, 2560, "a"]', 'driver.loaded != !driver.loaded', 'any == any']
for i, r in enumerate(sorted(set(rules)) + extra):
    out("expr", "rule-%03d" % i, r)

# ---- checks.yaml ------------------------------------------------------------
reset("checks")
out("checks", "checks.yaml", read("checks.yaml"))
out("checks", "peaks.yaml", yaml.safe_dump({"schema": doc["schema"], "peaks": doc["peaks"][:3],
                                           "checks": doc["checks"][:1]}, sort_keys=False))
first = yaml.safe_dump({"schema": doc["schema"], "checks": doc["checks"][:2]}, sort_keys=False)
out("checks", "two-checks.yaml", first)
out("checks", "data.yaml", yaml.safe_dump({"schema": doc["schema"], "data": doc["data"],
                                           "checks": doc["checks"][5:7]}, sort_keys=False))

# ---- presets ----------------------------------------------------------------
reset("preset")
for f in sorted(os.listdir("models")):
    if f.endswith(".yaml"):
        out("preset", f, read("models/" + f))
out("preset", "tiny-moe.yaml", read("tests/vla/tiny-moe.yaml"))


# ---- safetensors and JSON ---------------------------------------------------
def safetensors(tensors, meta):
    hdr, chunks, at = {}, [], 0
    if meta is not None:
        hdr["__metadata__"] = meta
    for name, dtype, shape, raw in tensors:
        hdr[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + len(raw)]}
        chunks.append(raw)
        at += len(raw)
    h = json.dumps(hdr).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(chunks), h


reset("safetensors")
reset("json")
f32 = struct.pack("<6f", 1, -2, 3.5, 0, 1e-3, 65504)
bf16 = struct.pack("<4H", 0x3f80, 0xc000, 0x7f80, 0x0001)
f16 = struct.pack("<4H", 0x3c00, 0xc000, 0x7c00, 0x0001)
files = {
    "f32": [("w", "F32", [2, 3], f32)],
    "mixed": [("a.weight", "BF16", [4], bf16), ("b.bias", "F16", [2, 2], f16),
              ("c", "F32", [6], f32)],
    "scalar-empty": [("s", "F32", [], f32[:4]), ("e", "F32", [0, 3], b"")],
}
for name, ts in files.items():
    buf, h = safetensors(ts, {"format": "pt", "preset": "tiny"})
    out("safetensors", name + ".safetensors", buf)
    out("json", "st-" + name + ".json", h.rstrip())
buf, _ = safetensors(files["f32"], None)
out("safetensors", "nometa.safetensors", buf)
out("json", "corners.json", '{"a": [1, -0, 1.5e300, true, false, null], "b\\u00e9\\ud83d\\ude00": '
    '{"c": "\\n\\t\\"\\\\\\/"}, "n": 18446744073709551615}')
out("json", "schema.json", read("reports/schema.json")[:20000])

# ---- requirements -----------------------------------------------------------
reset("requirements")
for fx in ("no-gpu-server", "rx7900xtx-desktop"):
    out("requirements", fx + ".txt", read("%s/%s/requirements.txt" % (FX, fx)))
out("requirements", "corners.txt", "# comment\r\ntorch==2.3.0+rocm6.0 ; python_version >= '3.9'\r\n"
    "nvidia-cublas-cu12 \\\n  ==12.1\n-r other.txt\n--extra-index-url https://x\n"
    "cupy-cuda12x\nflash_attn @ https://x/flash_attn-2.5-cp310-linux_x86_64.whl\n"
    "tensorrt>=8 # trailing\n-e git+https://x/y.git#egg=vllm\n")


# ---- snapshot tarballs ------------------------------------------------------
def tgz(members):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as t:
        for m in members:
            name, kind, data = m
            ti = tarfile.TarInfo(name)
            ti.mtime = 0
            if kind == "dir":
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                t.addfile(ti)
            elif kind == "sym":
                ti.type, ti.linkname = tarfile.SYMTYPE, data
                t.addfile(ti)
            elif kind == "hard":
                ti.type, ti.linkname = tarfile.LNKTYPE, data
                t.addfile(ti)
            else:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
    z = io.BytesIO()
    with gzip.GzipFile(fileobj=z, mode="wb", mtime=0) as g:
        g.write(raw.getvalue())
    return z.getvalue(), raw.getvalue()


reset("snapshot_unpack")
meta = b"tool rocm-vla-doctor 0.1.0\ncollected 2026-01-01T00:00:00Z\n"  # as collect writes it
base = [(".snapshot", "dir", None), (".snapshot/meta", "file", meta), ("proc", "dir", None),
        ("sys", "dir", None), ("proc/cmdline", "file", b"quiet iommu=pt\n")]
good, plain = tgz(base)
out("snapshot_unpack", "minimal.tar.gz", good)
out("snapshot_unpack", "minimal.tar", plain)
out("snapshot_unpack", "links.tar.gz", tgz(base + [
    ("sys/class", "dir", None), ("sys/class/drm", "dir", None),
    ("sys/class/drm/card0", "sym", "../../devices/pci0000:00/0000:00:01.0"),
    ("proc/self", "sym", "1"), ("proc/cmdline2", "hard", "proc/cmdline")])[0])
out("snapshot_unpack", "longname.tar.gz", tgz(base + [("sys/" + "d" * 120 + "/" + "f" * 120,
                                                        "file", b"x")])[0])
out("snapshot_unpack", "escape.tar.gz", tgz(base + [("../escape", "file", b"x"),
                                                      ("sys/up", "sym", "../../..")])[0])
# member lists for the structure-aware harness (fuzz_snapshot_unpack.c says
# the format): OPTIONS, then SPEC NAME LINK CONTENT PAX per member
def mlist(opts, members):
    b = opts.encode() + b"\0"
    for m in members:
        spec, name, link, content, pax = (list(m) + ["", "", "", ""])[:5]
        for p in (spec, name, link, content, pax):
            b += (p if isinstance(p, bytes) else p.encode()) + b"\0"
    return b


ml_base = [("5", ".snapshot"), ("0", ".snapshot/meta", "", meta.decode()), ("5", "proc"),
           ("5", "sys"), ("0x", "proc/cmdline", "", "quiet iommu=pt\n")]
out("snapshot_unpack", "ml-minimal", mlist("", ml_base))
out("snapshot_unpack", "ml-minimal-plain", mlist("r", ml_base))
# issue 18: the double free of "./../x"
out("snapshot_unpack", "ml-dot-dotdot", mlist("", [("0", "./../x")]))
out("snapshot_unpack", "ml-dot-dotdot-dir", mlist("", ml_base + [("5", "./"), ("5", "./.././sys")]))
out("snapshot_unpack", "ml-links", mlist("", ml_base + [
    ("5", "sys/class"), ("2", "sys/class/drm", "../devices/pci0000:00"),
    ("2l", "sys/card0", "class/drm/card0/device"), ("2", "proc/self", "1"),
    ("2", "sys/up", "../../escape"), ("2", "sys/abs", "/etc/passwd")]))
out("snapshot_unpack", "ml-via-dirlink", mlist("", ml_base + [
    ("5", "a"), ("5", "a/b"), ("2", "a/b/up", "../.."), ("2", "x", "a/b/up/../escape")]))
deep = "sys/" + "d" * 120 + "/" + "f" * 90
out("snapshot_unpack", "ml-longnames", mlist("", ml_base + [
    ("0", deep, "", "x"), ("0u", "sys/" + "p" * 130 + "/leaf", "", "y"),
    ("2", "sys/longlink", "../" + "t" * 150), ("0p", "sys/short", "", "z")]))
out("snapshot_unpack", "ml-pax-records", mlist("", ml_base + [
    ("0", "sys/a", "", "a", "13 size=1234\n"), ("0", "sys/b", "", "b", "30 mtime=1700000000.123456789\n"),
    ("0", "sys/c", "", "c", "99 path=sys/x\n")]))
out("snapshot_unpack", "ml-types", mlist("", ml_base + [
    ("1", "sys/hard", "proc/cmdline"), ("3", "sys/chr"), ("6", "sys/fifo"), ("g", "sys/g"),
    ("L", "sys/long"), ("7", "sys/contig")]))
out("snapshot_unpack", "ml-damage", mlist("1j", ml_base + [
    ("0c", "sys/badsum", "", "x"), ("0s", "sys/short", "", "abc"), ("0z", "sys/huge", "", "q")]))
out("snapshot_unpack", "ml-truncated", mlist("t0", ml_base + [("0", "sys/big", "", "y" * 2000)]))
out("snapshot_unpack", "ml-duplicates", mlist("", ml_base + [
    ("0", "sys/f", "", "1"), ("0", "./sys//f", "", "2"), ("2", "sys/l", "f"), ("5", "sys/l"),
    ("0", "sys/f/child", "", "3"), ("0", "sys/a\nb"), ("0", "/abs")]))
h200 = read(FX + "/h200/snapshot.tar.gz")
if len(h200) < 64 * 1024:
    out("snapshot_unpack", "h200.tar.gz", h200)

# ---- driver_block: cmdline NUL modprobe.d file NUL kernel log ---------------
reset("driver_block")
for fx in ("rx6900xt-blacklist", "rx6900xt-nomodeset", "rx7900xt-firmware", "rx6900xt-secureboot"):
    r = "%s/%s/root" % (FX, fx)
    mp = b""
    for d in ("etc/modprobe.d", "usr/lib/modprobe.d"):
        if os.path.isdir(os.path.join(r, d)):
            for f in sorted(os.listdir(os.path.join(r, d))):
                mp += read(os.path.join(r, d, f))
    log = read(r + "/.snapshot/dmesg")[:16384] if os.path.exists(r + "/.snapshot/dmesg") else b""
    out("driver_block", fx, read(r + "/proc/cmdline") + b"\0" + mp + b"\0" + log)
out("driver_block", "corners", b"nomodeset amdgpu.modeset=1 modprobe.blacklist=nouveau,amdgpu "
    b"initcall_blacklist=amdgpu_init -- amdgpu.modeset=0\0# c\nblacklist amdgpu\ninstall amdgpu "
    b"/bin/true\noptions amdgpu \\\n  modeset=0\n\0[ 1.0] amdgpu 0000:03:00.0: Direct firmware "
    b"load for amdgpu/gc_11_0_0_pfp.bin failed with error -2\n")


# ---- offload bundles and ELF ------------------------------------------------
def bundle(ids):
    hdr = 32 + sum(24 + len(i) for i in ids)
    data = (hdr + 7) & ~7
    b = bytearray(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids)))
    payload = bytearray()
    for i in ids:
        size = 0 if i.startswith("host-") else 64
        b += struct.pack("<QQQ", data + len(payload), size, len(i)) + i.encode()
        payload += b"\xab" * size
    b += b"\0" * (data - len(b))
    return bytes(b + payload)


def ccob(version, inner):
    c = zlib.compress(inner, 6)
    if version == 1:
        h = b"CCOB" + struct.pack("<HHI", 1, 0, len(inner)) + struct.pack("<Q", 0x1234)
    elif version == 2:
        h = b"CCOB" + struct.pack("<HHII", 2, 0, 24 + len(c), len(inner)) + struct.pack("<Q", 1)
    else:
        h = b"CCOB" + struct.pack("<HHQQ", 3, 0, 32 + len(c), len(inner)) + struct.pack("<Q", 1)
    return h + c


ids_a = ["host-x86_64-unknown-linux-gnu", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
         "hipv4-amdgcn-amd-amdhsa--gfx1030"]
ids_b = ["hip-amdgcn-amd-amdhsa-gfx906", "hipv4-spirv64-amd-amdhsa--amdgcnspirv",
         "hipv4-amdgcn-amd-amdhsa--gfx9-generic:sramecc+"]
reset("offload_bundle")
out("offload_bundle", "plain", bundle(ids_a))
for v in (1, 2, 3):
    c = ccob(v, bundle(ids_a))
    out("offload_bundle", "ccob-v%d" % v, c + b"\0" * (-len(c) % 4096) + bundle(ids_b))
out("offload_bundle", "tensile-name", b"TensileLibrary_lazy_gfx90a_gfx1100.dat")


def elf(sections):
    """a minimal ELF64 LE shared object with the given (name, type, bytes)"""
    names = b"\0.shstrtab\0" + b"".join(n.encode() + b"\0" for n, _, _ in sections)
    body, offs, at = b"", [], 64
    for _, _, data in sections:
        offs.append(at)
        body += data
        at += len(data)
    stroff = at
    body += names
    at += len(names)
    at += -at % 8
    body += b"\0" * (at - 64 - len(body))
    shoff, shnum = at, len(sections) + 2
    eh = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
          struct.pack("<HHIQQQIHHHHHH", 3, 0xE0 if False else 62, 1, 0, 0, shoff, 0, 64, 56, 0,
                      64, shnum, shnum - 1))
    sh = b"\0" * 64
    pos = len(b"\0.shstrtab\0")
    for (n, t, data), o in zip(sections, offs):
        sh += struct.pack("<IIQQQQIIQQ", pos, t, 2, 0, o, len(data), 0, 0, 8, 0)
        pos += len(n) + 1
    sh += struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, stroff, len(names), 0, 0, 1, 0)
    return eh + body + sh


reset("elf")
out("elf", "fatbin.so", elf([(".hip_fatbin", 1, bundle(ids_a)),
                             (".hipFatBinSegment", 1, b"\0" * 24)]))
out("elf", "ccob.so", elf([(".hip_fatbin", 1, ccob(3, bundle(ids_b)))]))
out("elf", "nobits.so", elf([(".bss", 8, b""), (".text", 1, b"\xc3")]))
# DT_NEEDED, DT_SONAME, DT_RUNPATH (ld_resolve.c reads .dynamic through .dynstr)
dynstr = b"\0libhsa-runtime64.so.1\0libamdhip64.so.6\0$ORIGIN\0"
dynamic = b"".join(struct.pack("<QQ", t, v) for t, v in
                   [(1, 1), (14, 23), (29, 40), (15, 40), (1, 999), (0, 0)])
out("elf", "dynamic.so", elf([(".dynstr", 3, dynstr), (".dynamic", 6, dynamic)]))

# ---- ld.so.cache: glibc-ld.so.cache1.1, alone and after the old table -------
reset("ld_cache")


def ld_cache(entries, old=0):
    """header, 24-byte entries (flags, key, value, osversion, hwcap), strings;
    offsets from the new header"""
    strings, offs = b"", []
    base = 48 + 24 * len(entries)
    for name, path, _ in entries:
        offs.append((base + len(strings), base + len(strings) + len(name) + 1))
        strings += name.encode() + b"\0" + path.encode() + b"\0"
    new = (b"glibc-ld.so.cache1.1" + struct.pack("<IIB3xI12x", len(entries), len(strings), 0, 0) +
           b"".join(struct.pack("<iIIIQ", f, k, v, 0, 0) for (_, _, f), (k, v) in zip(entries, offs))
           + strings)
    if not old:
        return new
    head = b"ld.so-1.7.0\0" + struct.pack("<I", old) + b"\0" * (12 * old)
    return head + b"\0" * (-len(head) % 8) + new


libs = [("libamdhip64.so.6", "/opt/rocm-6.2.0/lib/libamdhip64.so.6", 0x303),
        ("libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", 0x303),
        ("libc.so.6", "/lib32/libc.so.6", 0x3)]
out("ld_cache", "new", ld_cache(libs))
out("ld_cache", "old-and-new", ld_cache(libs, old=2))
out("ld_cache", "empty", ld_cache([]))

# ---- redact: passwd NUL group NUL dpkg status NUL user ----------------------
reset("redact")
for fx in ("rx580-legacy", "rx7900xtx-desktop", "mi300x-node"):
    r = "%s/%s/root" % (FX, fx)
    st = r + "/var/lib/dpkg/status"
    status = read(st) if os.path.exists(st) else (
        b"Package: rocm-hip-runtime\nStatus: install ok installed\nVersion: 6.2.0\n"
        b"Description: x\n multi\n .\n\nPackage: vim\nStatus: install ok installed\n\n")
    out("redact", fx, read(r + "/etc/passwd") + b"\0" + read(r + "/etc/group") + b"\0" + status +
        b"\0grace")

# ---- fact_wire --------------------------------------------------------------
reset("fact_wire")
out("fact_wire", "all-types", "b\tdriver.loaded\t1\t/sys/module/amdgpu/initstate\t\n"
    "i\tgpu.count\t2\tsysfs\t\nf\tperf.gemm.tflops\t123.25\tgemm\t\n"
    "s\tgpu.0.gfx\tgfx1100\tkfd\t\nl\tuser.groups\tvideo\x1frender\\x\\t\\n\\\\\tid\t\n"
    "u\tpython.torch\t\tpython\tno module named torch\n")
out("fact_wire", "bad", "x\tbad\t1\t\t\ni\tgpu.count\t1e3\tx\t\ns\tonly-three\tx\n"
    "b\tb\t2\t\t\ns\tesc\t\\q\t\t\nl\tempty\t\tsrc\t\n")

# ---- sysroot harnesses: first byte picks the target --------------------------
def targets_of(harness):
    src = open("tests/fuzz/fuzz_%s.c" % harness).read()
    gpu = None
    for line in src.splitlines():
        if line.startswith("#define GPU "):
            gpu = line.split('"')[1]
        if line.startswith("#define TOPO "):
            topo = line.split('"')[1]
    body = src.split("targets[] = {", 1)[1].split("NULL}", 1)[0]
    body = body.replace("GPU \"", "\"" + (gpu or "")).replace("TOPO \"", "\"" + (
        topo if "TOPO" in src else ""))
    fixture = src.split("struct sysroot_fuzz sf = {\"", 1)[1].split('"', 1)[0]
    return fixture, [p.strip().strip('"') for p in body.split(",") if p.strip()]


for h in ("gpu_sysfs", "kfd_topology", "host_text", "kernel_log", "groupdb", "dpkg_status", "ras",
          "partition", "virt",
          "python_answer", "host_settings", "pci_ids", "xgmi"):
    reset(h)
    fixture, targets = targets_of(h)
    for i, t in enumerate(targets):
        p = "%s/%s/root%s" % (FX, fixture, t)
        data = read(p)[:32768] if os.path.isfile(p) else b""
        out(h, "%02d-%s" % (i, os.path.basename(t)), bytes([i]) + data)

# ras: the other forms amdgpu_ras.c prints (the 6.8+ "de:" line, a query in a
# reset) and near misses (first byte: the file, in the harness's order)
for i, (k, data, name) in enumerate([
        (0, b"ue: 0\nce: 3\nde: 5\n", "de_line"), (1, b"Query currently inaccessible\n", "inaccessible"),
        (0, b"ue: 99999999999999999999\nce: 0\n", "overflow"),
        (3, b"0x00000001 : 0x00001000 : F\n0x1 : 0x1000 : R\n", "bad_line"),
        (4, b"-2\n", "threshold_driver"), (4, b"0\n", "retirement_off"), (2, b"ue: 1\n", "one_line")]):
    out("ras", "%02d-%s" % (6 + i, name), bytes([k]) + data)

# python_answer: pip located, not found, its lookup failed, and a pip
# dist-info next to an empty pip_dir (python.pip_present)
PYA = read("%s/rx7900xtx-desktop/root/.snapshot/python" % FX)[:32768]
for i, (extra, name) in enumerate([
        (b"pip_dir=/usr/lib/python3/dist-packages/pip\n", "pip_dir"), (b"pip_dir=\n", "no_pip"),
        (b"pip_error=ValueError: pip.__spec__ is None\n", "pip_error"),
        (b"pip_dir=\ndist=pip 24.0\n", "pip_dist_only")]):
    out("python_answer", "%02d-%s" % (1 + i, name), b"\0" + PYA + extra)

# ---- snapshot_answers: the answer files only it reaches (first byte: the file,
# in the harness's order) ------------------------------------------------------
reset("snapshot_answers")
for fx in ("rx7800xt-hot-edge", "rx6900xt-secureboot-nolog"):
    out("snapshot_answers", "00-read-errors-" + fx,
        b"\0" + read("%s/%s/root/.snapshot/read-errors" % (FX, fx)))
out("snapshot_answers", "00-read-errors-bad",
    b"\0" + b"13 /sys/kernel/debug\n0 /zero\n4096 /max\n-1 /neg\n013 /octal\n5 rel\n\n")
# the head of the answer `collect` wrote on the development container (ROCm
# 5.2 from Debian: hip found, the math libraries not)
out("snapshot_answers", "01-rocm-lib-deps-debian", b"\1" + (
    'root\thip\t/lib/x86_64-linux-gnu/libamdhip64.so\t/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153\tld.so.cache\n'
    'root\trocblas\t\t\tnot found\n'
    'root\thipblaslt\t\t\tnot found\n'
    'root\tmiopen\t\t\tnot found\n'
    'root\trocm-smi\t/lib/librocm_smi64.so\t/usr/lib/librocm_smi64.so.1.0\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libamdhip64.so\tlibhsa-runtime64.so.1\t/lib/x86_64-linux-gnu/libhsa-runtime64.so.1\t/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.5.0\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libamdhip64.so\tlibnuma.so.1\t/lib/x86_64-linux-gnu/libnuma.so.1\t/usr/lib/x86_64-linux-gnu/libnuma.so.1.0.0\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libamdhip64.so\tlibstdc++.so.6\t/lib/x86_64-linux-gnu/libstdc++.so.6\t/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libamdhip64.so\tlibm.so.6\t/lib/x86_64-linux-gnu/libm.so.6\t/usr/lib/x86_64-linux-gnu/libm.so.6\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libamdhip64.so\tlibgcc_s.so.1\t/lib/x86_64-linux-gnu/libgcc_s.so.1\t/usr/lib/x86_64-linux-gnu/libgcc_s.so.1\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libamdhip64.so\tlibc.so.6\t/lib/x86_64-linux-gnu/libc.so.6\t/usr/lib/x86_64-linux-gnu/libc.so.6\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libamdhip64.so\tld-linux-x86-64.so.2\t/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\t/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\tld.so.cache\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libhsa-runtime64.so.1\tlibhsakmt.so.1\t/lib/x86_64-linux-gnu/libhsakmt.so.1\t/usr/lib/x86_64-linux-gnu/libhsakmt.so.1.0.6\tRUNPATH\n'
    'dep\t/lib/x86_64-linux-gnu/libamdhip64.so\t/lib/x86_64-linux-gnu/libhsa-runtime64.so.1\tlibelf.so.1\t/lib/x86_64-linux-gnu/libelf.so.1\t/usr/lib/x86_64-linux-gnu/libelf-0.188.so\tRUNPATH\n'
).encode())
out("snapshot_answers", "01-rocm-lib-deps-errors", b"\1" + (
    "root\thip\t/opt/rocm-6.2.0/lib/libamdhip64.so\t/opt/rocm-6.2.0/lib/libamdhip64.so.6\tRUNPATH\n"
    "root\twheel hip\t/home/u/torch/lib/libamdhip64.so\t/home/u/torch/lib/libamdhip64.so\ttorch/lib\n"
    "torch\t/home/u/torch/lib/libc10_hip.so\t/opt/rocm-5.7.0/lib/libamdhip64.so.5\t"
    "/opt/rocm-5.7.0/lib/libamdhip64.so.5.7.0\tLD_LIBRARY_PATH\n"
    "err\t/opt/rocm-6.2.0/lib/libamdhip64.so\tbad ELF header\n"
    "dep\t/opt/rocm-6.2.0/lib/libamdhip64.so\t/opt/rocm-6.2.0/lib/libamdhip64.so\t"
    "libhsa-runtime64.so.1\t\t\tmissing\n").encode())
# the producer's line shapes (probe_target_binaries.c: elf PATH TARGETS
# UNKNOWN ERROR BUNDLES, tensile DIR TARGETS)
out("snapshot_answers", "02-target-binaries", b"\2" + (
    "elf\t/opt/rocm-6.2.0/lib/librocblas.so.4\tgfx1030 gfx1100 gfx90a\t\t\t3\n"
    "elf\t/home/u/torch/lib/libtorch_hip.so\tgfx900 gfx906 gfx908\t\t\t12\n"
    "elf\t/opt/rocm-6.2.0/lib/libMIOpen.so.1\t\tcompressed bundle (zstd)\t\t1\n"
    "elf\t/opt/rocm-6.2.0/lib/librccl.so.1\t\t\tlibrccl.so.1: Permission denied\t0\n"
    "tensile\t/opt/rocm-6.2.0/lib/rocblas/library\tgfx1030 gfx1100 gfx90a\n"
    "tensile\t/opt/rocm-6.2.0/lib/hipblaslt/library\t\n"
    "bogus\tline\n\t\t\n").encode())
# the producer's lines (probe_vulkan.c: loader, instance, device NAME VENDOR
# DEVICE TYPE API DRIVERID DRIVERNAME DRIVERINFO, error)
out("snapshot_answers", "03-vulkan-radv", b"\3" + (
    "loader\t1\tlibvulkan.so.1\t\ninstance\t1.3.275\n"
    "device\tAMD Radeon RX 7900 XTX (RADV NAVI31)\t0x1002\t0x744c\t2\t1.3.274\t3\tradv\tMesa 24.0.5\n"
    "device\tllvmpipe (LLVM 17.0.6, 256 bits)\t0x10005\t0x0000\t4\t1.3.274\t13\tllvmpipe\t"
    "Mesa 24.0.5 (LLVM 17.0.6)\n").encode())
out("snapshot_answers", "03-vulkan-noloader",
    b"\3loader\t0\tlibvulkan.so.1\tlibvulkan.so.1: cannot open shared object file\n")
out("snapshot_answers", "03-vulkan-errors", b"\3" + (
    "loader\t1\tlibvulkan.so.1\t\ninstance\t1.0.0\nerror\tvkCreateInstance failed (VkResult -9)\n"
    "device\tshort\t0x1002\n").encode())

# ---- gpu_metrics: the real v1_3 capture, each revision's size with zeros and
# all-ones, unknown and truncated ones; pp_dpm_* and fdinfo text -----------
reset("gpu_metrics")
real = read("tests/data/fixtures-real/amdgpu-sysfs-rs/rx6900xt/gpu_metrics")
out("gpu_metrics", "real-v1_3-page", real)
out("gpu_metrics", "real-v1_3", real[:120])
out("gpu_metrics", "real-v1_3-truncated", real[:100])
sizes = {(1, 0): 80, (1, 1): 96, (1, 2): 104, (1, 3): 120, (1, 4): 288, (1, 5): 360, (1, 6): 1664,
         (1, 7): 2208, (1, 8): 3872, (2, 0): 120, (2, 1): 120, (2, 2): 128, (2, 3): 152, (2, 4): 168, (3, 0): 264}
for (f, c), n in sorted(sizes.items()):
    out("gpu_metrics", "v%d_%d-zero" % (f, c), struct.pack("<HBB", n, f, c) + bytes(n - 4))
    out("gpu_metrics", "v%d_%d-ones" % (f, c), struct.pack("<HBB", n, f, c) + b"\xff" * (n - 4))
# v1_9: a header, attr_count and encoded attributes (recognised, refused);
# 1.10 is unknown; 384 bytes is the reverted May-2024 v1_6
out("gpu_metrics", "attr-1_9", struct.pack("<HBBiI", 24, 1, 9, 1, 0) + struct.pack("<Q", 0x2400000))
out("gpu_metrics", "unknown-1_10", struct.pack("<HBB", 120, 1, 10) + bytes(116))
out("gpu_metrics", "reverted-1_6", struct.pack("<HBB", 384, 1, 6) + bytes(380))
out("gpu_metrics", "size-mismatch", struct.pack("<HBB", 112, 1, 3) + bytes(116))
for card in ("rx580", "rx7800xt", "rx9070xt"):
    for f in ("pp_dpm_sclk", "pp_dpm_pcie"):
        out("gpu_metrics", "%s-%s" % (card, f),
            read("tests/data/fixtures-real/amdgpu-sysfs-rs/%s/%s" % (card, f)))
out("gpu_metrics", "fdinfo-amdgpu",
    "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t42\n"
    "drm-pdev:\t0000:86:00.0\ndrm-memory-vram:\t1048576 KiB\namd-memory-vram:\t4 KiB\n"
    "drm-engine-gfx:\t2000000000 ns\ndrm-engine-capacity-gfx:\t2\n")
# the 5.14-5.18 keys and the drm_print_memory_stats ones (6.11+)
out("gpu_metrics", "fdinfo-5_15",
    "pos:\t0\npdev:\t0000:0c:00.0\npasid:\t32769\nvram mem:\t524288 kB\n"
    "gtt mem:\t2048 kB\ncpu mem:\t0 kB\ngfx0:\t12.34%\n")
out("gpu_metrics", "fdinfo-resident",
    "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-total-vram:\t3 GiB\n"
    "drm-shared-vram:\t1 GiB\ndrm-resident-vram:\t2 GiB\ndrm-memory-vram:\t2097152 KiB\n")

# ---- issue 30's harnesses ---------------------------------------------------
# pci_ids: what libpci refuses (a line it cannot parse, a device before any
# vendor), what it reads (a subsystem line, a class list)
for i, (data, name) in enumerate([
        (b"1002  AMD\n\t74a1  MI300X\nzzzz not a pci.ids line\n", "parse_error"),
        (b"\t74a1  a device before any vendor\n", "no_vendor"),
        (b"1002  AMD\n\t74a1  MI300X\n\t\t1002 74a1  MI300X OAM\n", "subsystem"),
        (b"C 03  Display controller\n\t00  VGA\n1002  AMD\n", "classes"),
        (b"1002  AMD\n\t74a1  " + b"x" * 5000 + b"\n", "long_name")]):
    out("pci_ids", "%02d-%s" % (1 + i, name), b"\0" + data)
# xgmi: a duplicated link to one peer, a disabled one, a link to itself, to
# a node that is no GPU, numbers past 64 bits
XL = ("type 11\nversion_major 0\nversion_minor 0\nnode_from 2\nnode_to %s\nweight 15\n"
      "min_latency 0\nmax_latency 0\nmin_bandwidth 50000\nmax_bandwidth %s\n"
      "recommended_transfer_size 0\nflags %s\n")
for i, (k, args, name) in enumerate([
        (1, ("3", "50000", "1"), "duplicate_of_link_2"), (2, ("4", "50000", "0"), "disabled"),
        (0, ("2", "50000", "1"), "self"), (0, ("0", "50000", "1"), "cpu_node"),
        (3, ("99999999999999999999", "18446744073709551615", "1"), "huge")]):
    out("xgmi", "%02d-%s" % (4 + i, name), bytes([k]) + (XL % args).encode())
reset("torch_answer")
# torch_answer: stdout NUL stderr NUL mode (bit 0: the child failed, bit 1:
# the doctor's shared actions are there)
for i, (f, mode, name) in enumerate([("cuda", 2, "cuda"), ("rocm", 0, "rocm"), ("nan", 2, "nan")]):
    js = read("tests/fake/torch/%s.sh" % f).split(b"<<'J'\n", 1)[1].split(b"\nJ\n", 1)[0]
    out("torch_answer", "%02d-%s" % (i, name), js + b"\0\0" + bytes([mode]))
out("torch_answer", "03-nogpu", read("tests/fake/torch/nogpu.sh").split(b"echo '", 1)[1]
    .rsplit(b"'", 1)[0] + b"\0\0\x00")
out("torch_answer", "04-failed", b"\0Traceback\nImportError: libamdhip64.so\n\0\x01")
out("torch_answer", "05-long_line", b"\0" + b"x" * 20000 + b"\n\0\x01")
out("torch_answer", "06-NaN_literal", b'{"numerics": {"cosine": NaN}}\0\0\x00')
out("torch_answer", "07-range", b'{"torch": "2", "gpu_count": 1e300, "peak_memory_bytes": -1e300, '
    b'"numerics": {"cosine": 1e999, "max_error": 1, "max_abs_fp32": 0}}\0\0\x02')
# fdinfo: the kernels' forms and sums that would pass 2^63-1
reset("fdinfo")
out("fdinfo", "00-amdgpu",
    "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t42\n"
    "drm-pdev:\t0000:86:00.0\ndrm-memory-vram:\t1048576 KiB\ndrm-engine-gfx:\t2000000000 ns\n"
    "drm-engine-capacity-gfx:\t2\n")
out("fdinfo", "01-saturate",
    "drm-driver:\tamdgpu\ndrm-engine-gfx:\t9223372036854775807 ns\n"
    "drm-engine-compute:\t9223372036854775807 ns\ndrm-engine-dma:\t99999999999999999999 ns\n")
out("fdinfo", "02-5_15", "pos:\t0\npdev:\t0000:0c:00.0\nvram mem:\t524288 kB\n")
out("fdinfo", "03-sizes", "drm-driver:\tamdgpu\ndrm-total-vram:\t9999999999999 GiB\n"
    "drm-resident-vram:\t-5 KiB\ndrm-memory-vram:\tlots\n")

# ---- diff: two reports NUL-separated ----------------------------------------
if len(sys.argv) > 1:
    reset("diff")
    reports = []
    for fx in ("rx7900xtx-desktop", "rx6900xt-blacklist"):
        p = subprocess.run([sys.argv[1], "--sysroot", "%s/%s/root" % (FX, fx), "--json", "-",
                            "--no-color"], capture_output=True)
        j = json.loads(p.stdout)
        reports.append(json.dumps(j, indent=None, separators=(",", ":")).encode())
    out("diff", "two-machines", reports[0] + b"\0" + reports[1])
    out("diff", "self", reports[0])
