#!/usr/bin/python3
"""mk-hostile-tarballs.py DIR - write hostile snapshot archives for
tests/snapshot.sh, and DIR/expected: one line per archive,
"<file>\t<regex the one-line error must match>" ("-" for the valid control).

Archives are built with Python's tarfile module where it can write them, and
from raw header bytes where it cannot (a wrong checksum, a size with no data).
Nothing here is committed as a binary: the test generates it each run, in a
deterministic way (fixed seed, gzip mtime 0).

Names that try to escape aim at ../../escape-target: from the private
directory $TMPDIR/rocm-vla-doctor-snapshot.XXXXXX that is $TMPDIR/../escape-target,
which the test checks was never created."""
import gzip
import io
import os
import random
import sys
import tarfile

MiB = 1 << 20


class Zeros:
    """a file object of n zero bytes, without holding them in memory"""

    def __init__(self, n):
        self.left = n

    def read(self, n=-1):
        if n < 0 or n > self.left:
            n = self.left
        self.left -= n
        return bytes(n)


def info(name, type_=tarfile.REGTYPE, size=0, linkname=""):
    ti = tarfile.TarInfo(name)
    ti.type = type_
    ti.size = size
    ti.linkname = linkname
    ti.mtime = 0
    ti.mode = 0o755 if type_ == tarfile.DIRTYPE else 0o644
    return ti


def tar_bytes(members, fmt=tarfile.USTAR_FORMAT, pax_headers=None):
    """members: (TarInfo, data bytes or file object or None)"""
    buf = io.BytesIO()
    kw = {"format": fmt}
    if pax_headers:
        kw["pax_headers"] = pax_headers
    with tarfile.open(fileobj=buf, mode="w", **kw) as tf:
        for ti, data in members:
            if isinstance(data, bytes):
                data = io.BytesIO(data)
            tf.addfile(ti, data)
    return buf.getvalue()


def gz(data):
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as g:
        g.write(data)
    return out.getvalue()


def write(dirname, name, data):
    with open(os.path.join(dirname, name), "wb") as f:
        f.write(data)


def text(name, s):
    b = s.encode()
    return (info(name, size=len(b)), b)


def raw_header(name, size, type_=b"0", linkname=b"", checksum_delta=0):
    """a ustar header block, by hand"""
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b"0000644\0"
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = type_
    h[157:157 + len(linkname)] = linkname
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[148:156] = b" " * 8
    s = sum(h) + checksum_delta
    h[148:156] = b"%06o\0 " % s
    return bytes(h)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mk-hostile-tarballs.py DIR")
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    expected = []

    def add(name, data, pattern, compress=True):
        write(d, name, gz(data) if compress else data)
        expected.append((name, pattern))

    good = [
        (info("sys", tarfile.DIRTYPE), None),
        (info("sys/class", tarfile.DIRTYPE), None),
        text("sys/class/hello", "hello\n"),
    ]

    # the manifest collect writes: without it a tarball is not a snapshot
    meta = [
        (info(".snapshot", tarfile.DIRTYPE), None),
        text(".snapshot/meta", "tool rocm-vla-doctor 0.1.0\ncollected 2026-11-30T00:00:00Z\n"),
    ]

    # the control: a small valid snapshot
    add("valid.tar.gz",
        tar_bytes(meta + good + [(info("sys/class/link", tarfile.SYMTYPE, linkname="hello"),
                                  None)]),
        "-")
    # well-formed archives that are not snapshots
    add("no-manifest.tar.gz", tar_bytes(good), "no manifest")
    add("foreign-manifest.tar.gz",
        tar_bytes([(info(".snapshot", tarfile.DIRTYPE), None),
                   text(".snapshot/meta", "tool something-else 1\n")] + good),
        "no manifest")
    add("manifest-symlink.tar.gz",
        tar_bytes([(info(".snapshot", tarfile.DIRTYPE), None),
                   (info(".snapshot/meta", tarfile.SYMTYPE, linkname="../sys/class/hello"),
                    None)] + good),
        "no manifest")
    add("abs-path.tar.gz", tar_bytes(good + [text("/tmp/rvd-hostile-abs", "x\n")]),
        "absolute name")
    add("dotdot.tar.gz", tar_bytes(good + [text("../../escape-target", "x\n")]),
        r"'\.\.' component")
    add("dotdot-inner.tar.gz", tar_bytes(good + [text("sys/../../../escape-target", "x\n")]),
        r"'\.\.' component")
    # issue 18: one member "./../x" and nothing else. The reader freed the
    # "." while compacting, then refused the ".." and the caller freed it
    # again: a double free that aborted and left the unpack directory behind
    add("dot-dotdot.tar.gz", raw_header(b"./../x", 0) + bytes(1024), r"'\.\.' component")
    add("symlink-etc.tar.gz",
        tar_bytes(good + [(info("etc-link", tarfile.SYMTYPE, linkname="/etc"), None),
                          text("etc-link/rvd-hostile", "x\n")]),
        "symlink to an absolute path")
    add("symlink-escape.tar.gz",
        tar_bytes(good + [(info("sys/up", tarfile.SYMTYPE, linkname="../../../escape-target"),
                           None)]),
        "leaves the snapshot")
    add("symlink-escape-mid.tar.gz",
        tar_bytes(good + [(info("sys/class/up", tarfile.SYMTYPE,
                                linkname="../x/../../../escape-target"), None)]),
        "leaves the snapshot")
    # links through links: each target reads as inside by its text alone,
    # and resolves outside once the links it passes through are followed
    def link(name, target):
        return (info(name, tarfile.SYMTYPE, linkname=target), None)
    add("link-via-dirlink.tar.gz",
        tar_bytes(meta + good + [(info("a", tarfile.DIRTYPE), None), (info("a/b", tarfile.DIRTYPE), None),
                          link("a/b/up", "../.."), link("x", "a/b/up/../escape-target")]),
        "leaves the snapshot through the symlink 'a/b/up'")
    # the escaping link before the one it goes through: checked at the end
    add("link-via-dirlink-first.tar.gz",
        tar_bytes(meta + good + [link("sys/x", "class/up/../../escape-target"),
                          link("sys/class/up", "../..")]),
        "leaves the snapshot through the symlink 'sys/class/up'")
    add("link-chain.tar.gz",
        tar_bytes(meta + good + [link("sys/c1", "c2"), link("sys/c2", "c3"), link("sys/c3", ".."),
                          link("sys/x", "c1/../escape-target")]),
        "leaves the snapshot through the symlink 'sys/c3'")
    # the PCI device link of a GPU, then its config through a link to the top
    pci = "sys/bus/pci/devices/0000:03:00.0"
    add("link-pci-config.tar.gz",
        tar_bytes(meta + good + [(info("sys/bus", tarfile.DIRTYPE), None),
                                 (info("sys/bus/pci", tarfile.DIRTYPE), None),
                                 (info("sys/bus/pci/devices", tarfile.DIRTYPE), None),
                                 (info(pci, tarfile.DIRTYPE), None),
                                 link(pci + "/top", "../../../../.."),
                                 link(pci + "/config", "top/../outside/config")]),
        "leaves the snapshot through the symlink '%s/top'" % pci)
    # a relative link that climbs to a directory link pointing at the root
    add("link-to-root-then-up.tar.gz",
        tar_bytes(meta + good + [link("root", "."), link("sys/class/x", "../../root/../escape-target")]),
        "leaves the snapshot through the symlink 'root'")
    # many long chains: the physical check has a step budget
    dots = "./" * 2000
    chain = [link("sys/c%02d" % i, dots + "c%02d" % (i + 1)) for i in range(45)]
    add("link-chain-budget.tar.gz",
        tar_bytes(meta + good + chain + [link("sys/z%03d" % i, "c00") for i in range(100)],
                  fmt=tarfile.PAX_FORMAT),
        "steps to resolve")
    # harmless shapes that must stay accepted: a loop leads nowhere (ELOOP
    # for the kernel and the in-root reader alike), a 40-link chain, links
    # through links that stay inside, a dangling link
    add("link-loop-valid.tar.gz",
        tar_bytes(meta + good + [link("sys/la", "lb"), link("sys/lb", "la"),
                                 link("sys/self", "self")] +
                  [link("sys/k%02d" % i, "k%02d" % (i + 1)) for i in range(40)] +
                  [link("sys/k40", "class/hello"), link("sys/up", ".."),
                   link("sys/back", "up/sys/up/sys/class/../class/hello"),
                   link("sys/dangling", "nowhere/../../sys")]),
        "-")

    # a link that stays inside, then a member written through it
    add("through-symlink.tar.gz",
        tar_bytes(good + [(info("dlink", tarfile.SYMTYPE, linkname="sys"), None),
                          text("dlink/written-through", "x\n")]),
        "through the symlink 'dlink'")
    add("replace-symlink.tar.gz",
        tar_bytes(good + [(info("sys/l", tarfile.SYMTYPE, linkname="class"), None),
                          (info("sys/l", tarfile.DIRTYPE), None)]),
        "duplicate member")
    add("chardev.tar.gz", tar_bytes(good + [(info("dev-null", tarfile.CHRTYPE), None)]),
        "character device")
    add("blockdev.tar.gz", tar_bytes(good + [(info("dev-sda", tarfile.BLKTYPE), None)]),
        "block device")
    add("fifo.tar.gz", tar_bytes(good + [(info("fifo", tarfile.FIFOTYPE), None)]), "FIFOs")
    add("hardlink.tar.gz",
        tar_bytes(good + [(info("passwd", tarfile.LNKTYPE, linkname="/etc/passwd"), None)]),
        "hard links")
    add("contiguous.tar.gz", tar_bytes(good + [(info("c", tarfile.CONTTYPE), None)]),
        "type '7' is not allowed")
    add("duplicate.tar.gz", tar_bytes(good + [text("sys/class/hello", "again\n")]),
        "duplicate member")
    add("file-as-parent.tar.gz", tar_bytes(good + [text("sys/class/hello/child", "x\n")]),
        "'sys/class/hello' is not a directory")
    add("newline-name.tar.gz", tar_bytes(good + [text("sys/a\nb", "x\n")]), "newline")
    add("gnu-longname.tar.gz",
        tar_bytes(good + [text("sys/" + "n" * 150, "x\n")], fmt=tarfile.GNU_FORMAT),
        "GNU long-name")
    add("pax-global.tar.gz", tar_bytes(good, fmt=tarfile.PAX_FORMAT,
                                       pax_headers={"comment": "hi"}),
        "pax global headers")
    # an innocent ustar name with an evil pax path
    evil = info("innocent", size=2)
    evil.pax_headers = {"path": "../../escape-target"}
    add("pax-path-escape.tar.gz", tar_bytes(good + [(evil, b"x\n")], fmt=tarfile.PAX_FORMAT),
        r"'\.\.' component")
    evil_link = info("innocent-link", tarfile.SYMTYPE, linkname="ok")
    evil_link.pax_headers = {"linkpath": "/etc/shadow"}
    add("pax-linkpath-abs.tar.gz",
        tar_bytes(good + [(evil_link, None)], fmt=tarfile.PAX_FORMAT),
        "symlink to an absolute path")

    # a pax header whose record length runs past its end
    def pax_raw(records):
        return tar_bytes(good)[:4 * 512] + raw_header(b"././@PaxHeader", len(records), b"x") + \
            records + bytes(-len(records) % 512) + raw_header(b"sys/p", 0) + bytes(1024)
    add("pax-malformed.tar.gz", pax_raw(b"99 path=sys/x\n"), "malformed pax extended header")
    add("pax-size.tar.gz", pax_raw(b"13 size=1234\n"), "pax 'size' records are not supported")
    add("pax-nul.tar.gz", pax_raw(b"14 path=a\0bcd\n"), "record with a NUL")
    add("pax-dangling.tar.gz",
        tar_bytes(good)[:4 * 512] + raw_header(b"././@PaxHeader", 12, b"x") +
        b"12 path=sys\n" + bytes(500) + bytes(1024),
        "pax extended header without a member")

    # sizes: a 1 GiB declaration with no data behind it, a gzip bomb (one
    # 300 MiB member of zeros) and a total over 256 MiB in members that are
    # each under the per-file cap (16 members of 16 MiB pass, the 17th not)
    add("huge-size.tar.gz", tar_bytes(good)[:4 * 512] + raw_header(b"sys/huge", 1 << 30),
        "declared size")
    add("gzip-bomb.tar.gz", tar_bytes(good + [(info("sys/bomb", size=300 * MiB),
                                              Zeros(300 * MiB))]),
        "declared size .* over the")
    add("total-bomb.tar.gz",
        tar_bytes(good + [(info("sys/z%02d" % i, size=16 * MiB), Zeros(16 * MiB))
                          for i in range(17)]),
        "would exceed the")

    # damage
    # blocks: 0 sys/, 1 sys/class/, 2-3 hello, 4 big's header, 5.. its 10000 bytes
    whole = tar_bytes(good + [text("sys/class/big", "y" * 10000)])
    add("truncated.tar.gz", whole[:5 * 512 + 5000], "truncated archive")
    add("truncated-header.tar.gz", whole[:4 * 512 + 100], "truncated archive")
    add("truncated-gzip.tar.gz", gz(whole)[:-40], "corrupt or truncated archive",
        compress=False)
    add("no-end-marker.tar", whole[:5 * 512 + 10240], "no end-of-archive block",
        compress=False)
    bad = bytearray(whole)
    bad[4 * 512 + 148] ^= 0x01  # the checksum of the fourth header (block 4)
    add("bad-checksum.tar.gz", bytes(bad), "bad header checksum")
    bad = bytearray(whole)
    bad[0] ^= 0x20
    add("bad-first-checksum.tar.gz", bytes(bad), "not a tar archive")
    rnd = random.Random(20240601)
    add("random.bin", bytes(rnd.getrandbits(8) for _ in range(8192)), "not a tar archive",
        compress=False)
    add("random-gzip.tar.gz", b"\x1f\x8b" + bytes(rnd.getrandbits(8) for _ in range(4096)),
        "corrupt or truncated archive|not a tar archive", compress=False)
    add("empty.tar.gz", b"", "empty file", compress=False)
    add("zeros.tar.gz", bytes(10240), "no members")

    with open(os.path.join(d, "expected"), "w") as f:
        for name, pattern in expected:
            f.write("%s\t%s\n" % (name, pattern))


if __name__ == "__main__":
    main()
