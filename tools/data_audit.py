#!/usr/bin/python3
"""data_audit.py CHECKS_YAML [TSV...] - every row of every support-data table
with its source and whether that source was verified (`make data-audit`).

Tables: checks.yaml's keyed data tables (each row's source in the table
named <table>_source, or torch_wheel_source for the torch_wheel_* tables,
whose torch_wheel_verified says which fields were confirmed), its peaks:
rows (their own source: field) and the source tables of
tests/data/sources/*.tsv (a status column and a source or citation column;
a file without one, wheels.tsv, has its source in its header comment).
A source starting "unverified" is unverified; so is a TSV row whose status
says so. Prints "TABLE KEY: verified|unverified|NO SOURCE: SOURCE" per row
and "N rows, U unverified, M without a source"; exit 1 when a row has no
source. Reads the line forms of checks.yaml, so no YAML module is needed."""
import os
import re
import sys

# tables whose rows are the source of another table, or say which rows
# of one were verified: they are the sources, not rows to source
SOURCE_TABLES = {"torch_wheel_source", "torch_wheel_verified"}
# the torch_wheel_verified field that confirms each torch_wheel_* table
WHEEL_FIELD = {"torch_wheel_torch": "torch", "torch_wheel_python": "python",
               "torch_wheel_gfx": "gfx"}


def data_tables(text):
    """checks.yaml's data: section as name -> {key: value} (a plain list
    as {None: list}), in file order"""
    m = re.search(r"^data:\n(.*?)^\S", text, re.M | re.S)
    out = {}
    if not m:
        return out
    name = None
    for line in m.group(1).splitlines():
        tm = re.match(r"^  ([a-z0-9_]+):\s*(.*)$", line)
        if tm:
            name = tm.group(1)
            out[name] = {}
            if tm.group(2).startswith("["):
                out[name][None] = re.findall(r'"?([^",\[\]\s]+)"?', tm.group(2))
            continue
        km = re.match(r'^    "([^"]+)":\s*(.*)$', line)
        if km and name:
            val = km.group(2).strip()
            out[name][km.group(1)] = (re.findall(r'"?([^",\[\]\s]+)"?', val)
                                      if val.startswith("[") else val.strip('"'))
    return out


def peaks_rows(text):
    """(arch, source) of every peaks: row"""
    m = re.search(r"^peaks:\n(.*?)^\S", text, re.M | re.S)
    rows, arch = [], None
    for line in (m.group(1).splitlines() if m else []):
        am = re.match(r"^  - arch: (\S+)", line)
        if am:
            arch = am.group(1)
            rows.append([arch, None])
        sm = re.match(r'^    source: "(.*)"$', line)
        if sm and rows:
            rows[-1][1] = sm.group(1)
    return rows


def verdict(source):
    if not source or not str(source).strip():
        return "NO SOURCE"
    return "unverified" if str(source).startswith("unverified") else "verified"


def main(argv):
    if len(argv) < 2:
        print("usage: data_audit.py CHECKS_YAML [TSV...]", file=sys.stderr)
        return 2
    text = open(argv[1]).read()
    tables = data_tables(text)
    rows = []  # (table, key, verdict, source)
    for name, t in tables.items():
        if name in SOURCE_TABLES or name.endswith("_source"):
            continue
        if name in WHEEL_FIELD:
            src = tables.get("torch_wheel_source", {})
            ver = tables.get("torch_wheel_verified", {})
            for key in t:
                s = src.get(key)
                v = verdict(s)
                if v == "verified" and WHEEL_FIELD[name] not in (ver.get(key) or []):
                    v = "unverified"
                rows.append((name, key, v, s))
            continue
        src = tables.get(name + "_source")
        if src is None:
            rows.append((name, "(table)", "NO SOURCE", None))
            continue
        keys = t[None] if None in t else list(t)
        for key in keys:
            s = src.get(key)
            if key == "latest" and s:
                # the newest row's twin: as verified as that row
                base = re.match(r"the (\S+) row$", s)
                s2 = src.get(base.group(1)) if base else None
                rows.append((name, key, verdict(s2) if s2 else "NO SOURCE", s))
                continue
            rows.append((name, key, verdict(s), s))
    for arch, s in peaks_rows(text):
        rows.append(("peaks", arch, verdict(s), s))
    for path in argv[2:]:
        header, cols, comment = None, {}, []
        for line in open(path):
            line = line.rstrip("\n")
            if line.startswith("#") and "\t" in line and header is None:
                # a commented header ("# release\tgfx\tstatus\tsource")
                header = line[1:].strip().split("\t")
                cols = {c: i for i, c in enumerate(header)}
                continue
            if line.startswith("#"):
                comment.append(line[1:].strip())
                continue
            if not line.strip():
                continue
            f = line.split("\t")
            if header is None:
                header = f
                cols = {c: i for i, c in enumerate(f)}
                continue
            si = cols.get("source", cols.get("citation"))
            s = f[si] if si is not None and si < len(f) else None
            if si is None and comment:
                s = "the file's header: " + comment[0]
            v = verdict(s)
            st = cols.get("status")
            if st is not None and st < len(f) and f[st] == "unverified" and v == "verified":
                v = "unverified"
            key = " ".join(f[:2]) if st != 1 else f[0]
            rows.append((os.path.basename(path), key, v, s))
    nosrc = unver = 0
    for table, key, v, s in rows:
        shown = s[len("unverified: "):] if s and s.startswith("unverified: ") else s
        print("%s %s: %s%s" % (table, key, v, ": " + shown if shown else ""))
        nosrc += v == "NO SOURCE"
        unver += v == "unverified"
    print("%d rows, %d unverified, %d without a source" % (len(rows), unver, nosrc))
    return 1 if nosrc or not rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
