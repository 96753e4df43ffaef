#!/usr/bin/env python3
"""html_check.py - assertions on the HTML pages (tests/html.sh).

  structure PAGE.html [REPORT.json] [MARKS]  well-formed nesting, no external
      reference, and with a report: one verdicts row per check id with its
      status, a heading per measured GPU (gpu.measured), one bar per known
      figure in that GPU's charts, MARKS budget/peak ticks if given
  hostile PAGE.html TEXT...   no element a hostile string could have made, and
      each TEXT present as text
  png FILE.png                a real screenshot: PNG, > 10 kB, not one colour
  dom DOM.html REPORT.json PAGE.html  Chromium's rendered DOM: a verdict row per
      check, the overall verdict and the page's svg elements after rendering
Prints what failed and exits 1, else exits 0.
"""
import html
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
# elements that load something or run something: never in a page of ours
FORBIDDEN = {"script", "link", "img", "iframe", "object", "embed", "image", "use",
             "audio", "video", "source", "base", "form", "foreignobject"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.elements = [], [], []
        self.text, self.style = [], []
        self.cur = None  # the element whose text is being collected

    def handle_starttag(self, tag, attrs):
        self._element(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self._element(tag, attrs)

    def _element(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a, list(self.stack)))
        if tag in FORBIDDEN:
            self.errors.append("forbidden element <%s>" % tag)
        for k, v in attrs:
            v = v or ""
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster", "data") or \
                    k.startswith("on"):
                self.errors.append("attribute %s=%r on <%s>" % (k, v, tag))
            if re.search(r"https?://|url\(|javascript:|//", v, re.I):
                self.errors.append("external reference in %s=%r on <%s>" % (k, v, tag))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes %s" % (tag, self.stack[-1] if self.stack else
                                                    "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "style":
            self.style.append(data)
        self.text.append(data)


def parse(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    if p.stack:
        p.errors.append("unclosed at the end: %s" % p.stack)
    css = "".join(p.style)
    if re.search(r"url\(|@import|https?:|//", css, re.I):
        p.errors.append("the style sheet references something outside the page")
    return p


def svg_counts(p):
    """{aria-label of each svg: (bars, marks, dots)}"""
    out, cur = {}, None
    for tag, a, stack in p.elements:
        if tag == "svg":
            cur = a.get("aria-label", "")
            out[cur] = [0, 0, 0]
        elif cur is not None and "svg" in stack:
            cls = a.get("class", "").split()
            if tag == "rect" and "bar" in cls:
                out[cur][0] += 1
            if tag == "line" and "mark" in cls:
                out[cur][1] += 1
            if tag == "circle" and "dot" in cls:
                out[cur][2] += 1
    return out


def known(facts, names):
    return sum(1 for n in names if isinstance(facts.get(n), (int, float))
               and not isinstance(facts.get(n), bool))


def structure(page, report=None, marks=None):
    p = parse(page)
    errs = list(p.errors)
    raw = open(page, encoding="utf-8").read()
    # escaped text never holds these; the parser checked attributes and CSS
    for bad in ("<script", "<link"):
        if bad in raw.lower():
            errs.append("%r in the page" % bad)
    if report:
        d = json.load(open(report))
        ids = [c["id"] for c in d["checks"]]
        # the verdict table's first cell of each row is the id in <code>
        m = re.search(r'<table class="verdicts">(.*?)</table>', raw, re.S)
        found = re.findall(r'<tr class="row-([a-z]+)"><td><code>([^<]*)</code>', m.group(1)) \
            if m else []
        want = [(c["status"], c["id"]) for c in d["checks"]]
        if found != want:
            errs.append("verdict rows %s, want %s" % (found[:5], want[:5]))
        for i in ids:
            if i not in raw:
                errs.append("check id %s absent" % i)
        # the answer first: the verdict, the check to start with and every
        # failing or warning finding with its fix, before the table
        ans = raw.find('<section class="answer">')
        table = raw.find('<table class="verdicts">')
        if ans < 0 or table < 0 or raw.find('<p class="verdict">') < ans or \
                raw.find('</section>') > table:
            errs.append("the answer section does not precede the verdicts table")
        sect = raw[ans:raw.find('</section>')] if ans >= 0 else ""
        bad = [c["id"] for c in d["checks"] if c["status"] in ("fail", "error", "timeout")]
        for c in d["checks"]:
            if c["status"] in ("fail", "warn", "error", "timeout") and \
                    'id="%s"' % html.escape(c["id"]) not in sect:
                errs.append("finding %s not in the answer section" % c["id"])
        if bad and 'class="start">Start with' not in sect:
            errs.append("checks failed and no 'Start with'")
        if re.search(r"with -v\b|see -v\b", raw):
            errs.append("terminal advice (-v) in the page")
        f = d["facts"]
        counts = svg_counts(p)
        vla = [k for k in f if k.startswith("vla.latency.") and k.endswith("_ms")]
        expect = []
        if vla:
            expect.append(("VLA pass", known(f, vla)))
        elif "VLA workload did not run" not in raw:
            errs.append("no VLA facts and no sentence saying so")
        # the per-GPU figures: one set of charts per slot of gpu.measured
        # (probes/probe_each_gpu.c), each titled with its slot
        slots = f.get("gpu.measured") or []
        heads = re.findall(r"<h3>GPU ([0-9]+): ", raw)
        if heads != list(slots):
            errs.append("GPU headings %s, want gpu.measured %s" % (heads, slots))
        for title, tails, absent in (
                ("PCIe copies", ["bw.%s_gbs" % t for t in ("h2d_pinned", "d2h_pinned",
                                                          "h2d_pageable", "d2h_pageable")],
                 "No copy bandwidth was measured"),
                ("device memory bandwidth", ["membw.%s_gbs" % t for t in
                                             ("copy", "mul", "add", "triad", "dot")] +
                 ["bw.triad_gbs"], "No device memory bandwidth was measured"),
                ("GEMM", ["gemm_peak.%s_tflops" % t for t in ("fp16", "bf16", "fp32")],
                 "No GEMM rate was measured")):
            for j in slots:
                names = ["gpu.%s.%s" % (j, t) for t in tails]
                label = "GPU %s: %s" % (j, title)
                if any(n in f for n in names):
                    expect.append((label, known(f, names)))
                elif label in counts:
                    errs.append("%s drawn with no figure in the report" % label)
            if not slots and absent + " in this report" not in raw:
                errs.append("no GPU measured and no sentence %r" % absent)
            elif raw.count(absent) != sum(1 for j in slots if not any(
                    "gpu.%s.%s" % (j, t) in f for t in tails)):
                if slots:
                    errs.append("%r %d times, want once per GPU without the figures" %
                                (absent, raw.count(absent)))
        for title, n in expect:
            got = [v for k, v in counts.items() if k.startswith(title)]
            if len(got) != 1 or got[0][0] != n:
                errs.append("%s: %s bars, want %d" % (title, got[0][0] if got else "no svg", n))
        if marks is not None:
            got = sum(v[1] for v in counts.values())
            if got != int(marks):
                errs.append("%d budget/peak ticks, want %s" % (got, marks))
    return errs


def hostile(page, *texts):
    p = parse(page)
    errs = list(p.errors)
    text = "".join(p.text)
    for t in texts:
        if t not in text:
            errs.append("text %r not shown as text" % t)
    if "\x1b" in open(page, encoding="utf-8").read():
        errs.append("a raw ESC reached the page")
    return errs


def png(path):
    data = open(path, "rb").read()
    errs = []
    if len(data) < 10000:
        errs.append("PNG of %d bytes" % len(data))
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return errs + ["not a PNG"]
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        return errs + ["PNG depth %d colour type %d not handled" % (depth, ctype)]
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        if y % 8 == 0:
            for x in range(0, stride, bpp * 4):
                colours.add(bytes(line[x:x + 3]))
        prev = line
    if len(colours) < 3:
        errs.append("the screenshot has %d colour(s)" % len(colours))
    return errs


def dom(path, report, page):
    d = json.load(open(report))
    static = open(page, encoding="utf-8").read()
    s = open(path, encoding="utf-8").read()
    errs = []
    rows = re.findall(r'<tr class="row-[a-z]+"', s)
    if len(rows) != len(d["checks"]):
        errs.append("%d verdict rows rendered, want %d" % (len(rows), len(d["checks"])))
    if s.count("<svg") != static.count("<svg"):
        errs.append("%d svg elements rendered, the page has %d" % (s.count("<svg"),
                                                                   static.count("<svg")))
    if not re.search(r'<p class="verdict">Overall: <span class="st st-', s):
        errs.append("no overall verdict rendered")
    return errs


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    errs = {"structure": structure, "hostile": hostile, "png": png, "dom": dom}[mode](*args)
    for e in errs[:10]:
        print(e)
    sys.exit(1 if errs else 0)
