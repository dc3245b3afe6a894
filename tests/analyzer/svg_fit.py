#!/usr/bin/env python3
# The static SVGs as a browser draws them: each file opened in headless Chromium (cdp.py), every text of a
# Graphviz node measured with the browser's own font (getBBox) against the smallest box of that node holding
# its anchor: a node's shape, a legend table's border.  Graphviz sizes boxes from its Helvetica metrics; a
# browser's sans-serif may be wider (DejaVu Sans on Debian), and a text running past its border is what a user sees.
# Each legend's table is also checked to be no more than legend_slack wider than its texts.
# Usage: svg_fit.py CHROMIUM SVG...
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

# For every text of every node group: its bounding box and that of the smallest polygon, ellipse or rect of the
# group whose bounding box holds the text's anchor (x, y).  All in the group's user space (one transform).
MEASURE = """(() => {
  const out = [];
  for (const g of document.querySelectorAll('g.node')) {
    const shapes = [...g.querySelectorAll('polygon, ellipse, rect')].map((s) => s.getBBox());
    for (const t of g.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const x = +t.getAttribute('x'), y = +t.getAttribute('y'), b = t.getBBox();
      const holds = shapes.filter((s) => s.x <= x && x <= s.x + s.width && s.y <= y && y <= s.y + s.height)
        .sort((p, q) => p.width * p.height - q.width * q.height);
      if (!holds.length) continue;
      const s = holds[0];
      out.push({node: g.id, text: t.textContent, t: [b.x, b.y, b.x + b.width, b.y + b.height],
                box: [s.x, s.y, s.x + s.width, s.y + s.height]});
    }
  }
  return out;
})()"""

SLACK = 0.5  # user units (pt): the border's own half width

# The legend's table border (its black-stroked polygon, the largest) and how far its texts reach, across every row.
LEGEND = """(() => {
  const g = document.getElementById('legend');
  if (!g) return 'none';
  const borders = [...g.querySelectorAll('polygon[stroke="black"]')].map((s) => s.getBBox())
    .sort((p, q) => q.width * q.height - p.width * p.height);
  let x0 = Infinity, x1 = -Infinity;
  for (const t of g.querySelectorAll('text')) {
    if (!t.textContent.trim()) continue;
    const b = t.getBBox();
    x0 = Math.min(x0, b.x);
    x1 = Math.max(x1, b.x + b.width);
  }
  return borders.length && x1 > x0 ? {border: borders[0].width, text: x1 - x0} : 'none';
})()"""


def legend_slack(text_w):
    """How much wider than its texts a legend's table may be (pt): 24 for its border, cell spacing and padding
    (legend_size in lib/topo/topo_render.c: 18 + 6 per cell), and a tenth of the text for the width estimate, which
    must err wide (a browser's font is not Graphviz's).  The flat 0.62 em per character it replaced left 69 pt
    around the heat map legend's 265 pt of text, past the 50.5 this allows."""
    return 24 + 0.1 * text_w


def main():
    binary, files = sys.argv[1], sys.argv[2:]
    bad, checked = [], 0
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:  # chromium's helpers may still write
        b = cdp.Browser(binary, profile)
        try:
            for f in files:
                b.call("Page.navigate", url="file://" + os.path.abspath(f))
                texts = b.wait_for(f"document.URL.endsWith({os.path.basename(f)!r}) && "
                                   "document.readyState === 'complete' && " + MEASURE, 30)
                if not texts:
                    bad.append(f"{f}: no node texts measured")
                    continue
                checked += len(texts)
                lg = b.eval(LEGEND)  # the page is loaded: its nodes were measured above
                if isinstance(lg, dict) and lg["border"] - lg["text"] > legend_slack(lg["text"]):
                    bad.append(f"{os.path.basename(f)} legend: its table is {lg['border']:.1f} pt wide for "
                               f"{lg['text']:.1f} pt of text, more than {legend_slack(lg['text']):.1f} pt around it")
                for m in texts:
                    t, box = m["t"], m["box"]
                    over = max(box[0] - t[0], t[2] - box[2])
                    if over > SLACK:
                        bad.append(f"{os.path.basename(f)} {m['node']}: {m['text']!r} runs {over:.1f} pt past its box "
                                   f"(text {t[0]:.1f}..{t[2]:.1f}, box {box[0]:.1f}..{box[2]:.1f})")
        finally:
            b.close()
    for line in bad[:20]:
        print(line)
    print(f"{checked} texts in {len(files)} SVGs measured in Chromium, {len(bad)} past their box or in a legend too wide")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
