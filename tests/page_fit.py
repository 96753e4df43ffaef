#!/usr/bin/env python3
"""page_fit.py - does what an HTML page draws fit where it is drawn?

  svg PAGE.html
      every <text> of every <svg> lies inside the svg's viewBox: its width
      estimated at EM of its font size per character (12 px, 13 px for
      class "title", as the page's css sets them), placed by text-anchor
  table PAGE.html CLASS COLS MAX_PX FONT_PX PAD_PX
      the <table class="CLASS"> has COLS columns (header and every row, with
      colspans), each row one line high (no <br>, a cell as wide as its whole
      text) and the columns together at most MAX_PX wide: a column is as wide
      as its widest cell (a header cell as its longest word, headers wrap),
      EM * FONT_PX per character, plus PAD_PX of padding and border
EM is 0.6: at least what a sans-serif font draws for digits and lower case
(Helvetica's digits are 0.556 em), so an estimate that fits, fits.
Prints what does not fit and exits 1, else exits 0.
"""
import re
import sys
from html.parser import HTMLParser

EM = 0.6


class Svg(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs = []  # (w, h, [(attrs, text)])
        self.text = None  # attrs of the open <text>, its characters
        self.in_title = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            _, _, w, h = (float(x) for x in a["viewbox"].split())
            self.svgs.append((w, h, []))
        elif tag == "text":
            self.text = (a, [])
        elif tag == "title":
            self.in_title += 1

    def handle_endtag(self, tag):
        if tag == "text" and self.text:
            self.svgs[-1][2].append((self.text[0], "".join(self.text[1])))
            self.text = None
        elif tag == "title":
            self.in_title -= 1

    def handle_data(self, data):
        if self.text and not self.in_title:  # a tooltip is not drawn
            self.text[1].append(data)


def svg(page):
    p = Svg()
    p.feed(open(page, encoding="utf-8").read())
    bad = []
    for i, (w, h, texts) in enumerate(p.svgs):
        for a, t in texts:
            font = 13.0 if "title" in a.get("class", "").split() else 12.0
            tw = len(t) * font * EM
            x, y = float(a["x"]), float(a["y"])
            anchor = a.get("text-anchor", "start")
            left = x - tw if anchor == "end" else x - tw / 2 if anchor == "middle" else x
            if left < 0 or left + tw > w or y - font < 0 or y > h:
                bad.append("svg %d (%gx%g): %r at x %g..%g, y %g" % (i, w, h, t, left, left + tw, y))
    if not p.svgs:
        bad.append("no <svg> on the page")
    return bad


class Table(HTMLParser):
    def __init__(self, cls):
        super().__init__()
        self.cls, self.depth, self.rows = cls, 0, []  # rows: [(is_head, [(text, colspan)])]
        self.cell = None
        self.brs = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            if self.depth or self.cls in (a.get("class") or "").split():
                self.depth += 1
        if not self.depth:
            return
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = [tag == "th", int(a.get("colspan", 1)), int(a.get("rowspan", 1)), []]
        elif tag == "br" and self.cell and not self.cell[0]:
            self.brs += 1

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "table":
            self.depth -= 1
        elif tag in ("td", "th") and self.cell:
            self.rows[-1].append((self.cell[0], self.cell[1], self.cell[2], "".join(self.cell[3])))
            self.cell = None

    def handle_data(self, data):
        if self.cell:
            self.cell[3].append(data)


def table(page, cls, cols, max_px, font, pad):
    p = Table(cls)
    p.feed(open(page, encoding="utf-8").read())
    bad = []
    if not p.rows:
        return ["no <table class=%r>" % cls]
    width = [0.0] * cols
    pending = {}  # column -> rows a rowspan still covers
    for r, row in enumerate(p.rows):
        c = 0
        for head, span, rspan, text in row:
            while pending.get(c, 0) > 0:
                pending[c] -= 1
                c += 1
            text = " ".join(text.split())
            chars = max((len(w) for w in text.split()), default=0) if head else len(text)
            if span == 1 and c < cols:
                width[c] = max(width[c], chars * font * EM)
            if rspan > 1:
                for k in range(c, c + span):
                    pending[k] = rspan - 1
            c += span
        while pending.get(c, 0) > 0:
            pending[c] -= 1
            c += 1
        if c != cols:
            bad.append("row %d has %d columns, want %d" % (r, c, cols))
    total = sum(width) + cols * pad
    if total > max_px:
        bad.append("the columns need %.0f px, more than %g" % (total, max_px))
    if p.brs:
        bad.append("%d <br> in the table's cells: rows taller than a line" % p.brs)
    return bad


def main(argv):
    if len(argv) == 3 and argv[1] == "svg":
        bad = svg(argv[2])
    elif len(argv) == 8 and argv[1] == "table":
        bad = table(argv[2], argv[3], int(argv[4]), float(argv[5]), float(argv[6]), float(argv[7]))
    else:
        sys.stderr.write(__doc__)
        return 2
    for b in bad:
        print(argv[2] + ": " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
