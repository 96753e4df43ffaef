#!/usr/bin/python3
"""gfx_support.py CHECKS_YAML SOURCES_TSV PROBE_ROCM_C - the support data of
gpu.gfx_supported against the published lists kept as data
(tests/data/sources/rocm-gfx-support.tsv). Prints one "FAIL ..." line per
problem and "N passed, M failed"; exit 1 on any failure.

Reads checks.yaml's data tables by their line form ('    "key": [a, b]' and
'    "key": "text"') so that the test needs no YAML module."""
import re
import sys

checks_yaml, tsv, probe_c = sys.argv[1:4]


def table(text, name):
    """the keyed data table NAME: key -> list or string"""
    m = re.search(r"^  %s:\n((?:    .*\n)+)" % re.escape(name), text, re.M)
    if not m:
        return None
    out = {}
    for line in m.group(1).splitlines():
        km = re.match(r'\s+"([^"]+)":\s*(.*)$', line)
        if not km:
            continue
        key, val = km.group(1), km.group(2).strip()
        if val.startswith("["):
            out[key] = [v.strip().strip('"') for v in val.strip("[]").split(",") if v.strip()]
        else:
            out[key] = val.strip('"')
    return out


text = open(checks_yaml).read()
sup = table(text, "gfx_supported") or {}
src = table(text, "gfx_supported_source") or {}
fam = table(text, "gfx_override_family") or {}
rows = {}
for line in open(tsv):
    if line.startswith("#") or not line.strip():
        continue
    rel, gfx, status, source = line.rstrip("\n").split("\t")
    rows.setdefault(rel, []).append((gfx, status, source))
# the probe's release list (probes/probe_rocm.c, rocm_series[])
pm = re.search(r"rocm_series\[\]\s*=\s*\{([^}]*)\}", open(probe_c).read())
releases = re.findall(r'"([0-9.]+)"', pm.group(1)) if pm else []

om = re.search(r'^  rocm_release_order: \[(.*)\]$', text, re.M)
order = re.findall(r'"([0-9.]+)"', om.group(1)) if om else []
prm = re.search(r"rocm_preview_series\[\]\s*=\s*\{([^}]*)\}", open(probe_c).read())
previews = re.findall(r'"([0-9.]+)"', prm.group(1)) if prm else []

passed = failed = 0


def check(ok, msg):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL gfx_support: " + msg)


check(len(sup) >= 21 and len(rows) >= 21 and len(releases) >= 19,
      "too little read: %d rows in checks.yaml, %d releases in the TSV, %d in the probe"
      % (len(sup), len(rows), len(releases)))
for rel in releases:
    check(rel in sup, "ROCm %s (probes/probe_rocm.c) has no gfx_supported row" % rel)
check(order == releases, "checks.yaml rocm_release_order %s is not the probe's release list %s"
      % (order, releases))
check(len(previews) >= 5, "the probe names %d technology previews" % len(previews))
for rel in previews:
    check(rel not in sup and rel not in releases,
          "preview %s has a production row: previews are named, never judged" % rel)
newest = releases[-1] if releases else None
check(newest and sup.get("latest") == sup.get(newest),
      "gfx_supported 'latest' is not the newest release's row (%s)" % newest)
for key, gfxs in sup.items():
    if key == "latest":
        continue
    s = src.get(key)
    check(isinstance(s, str) and len(s) > 10, "gfx_supported '%s' has no gfx_supported_source" % key)
    listed = rows.get(key, [])
    check(listed, "gfx_supported '%s' has no row in %s" % (key, tsv))
    have = {g for g, _, _ in listed}
    for g in gfxs:
        check(g in have, "checks.yaml lists %s for ROCm %s, which %s does not" % (g, key, tsv))
    for g in have:
        check(g in gfxs, "%s lists %s for ROCm %s, which checks.yaml does not" % (tsv, g, key))
    unver = any(st == "unverified" for _, st, _ in listed)
    check(unver == (isinstance(s, str) and s.startswith("unverified")),
          "gfx_supported_source '%s' must start with 'unverified' exactly when a source row is" % key)
    for g, st, so in listed:
        check(st in ("read", "carried", "unverified") and len(so) > 10,
              "%s: ROCm %s %s: bad status '%s' or no source" % (tsv, key, g, st))
everlisted = {g for k, v in sup.items() for g in v}
check(len(fam) >= 5, "gfx_override_family has %d rows" % len(fam))
for g, v in fam.items():
    # "none": on no list at all; an override: some release leaves it out
    # (gfx1102/gfx1103 before 10.0), or the override advice is dead
    if v == ["none"]:
        check(g not in everlisted, "gfx_override_family names %s as 'none', which a release lists" % g)
    else:
        check(any(g not in gl for k, gl in sup.items()),
              "gfx_override_family names %s, which every release lists" % g)
    check(len(v) == 1 and (v[0] == "none" or re.fullmatch(r"\d+\.\d+\.\d+", v[0])),
          "gfx_override_family %s: %s is not one override version or 'none'" % (g, v))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
