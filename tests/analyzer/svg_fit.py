#!/usr/bin/env python3
# The static SVGs as a browser draws them: each file opened in headless Chromium (cdp.py), every text of a
# Graphviz node measured with the browser's own font (getBBox) against the smallest box of that node holding
# its anchor: a node's shape, a legend table's border.  Graphviz sizes boxes from its Helvetica metrics; a
# browser's sans-serif may be wider (DejaVu Sans on Debian), and a text running past its border is what a user sees.
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
    print(f"{checked} texts in {len(files)} SVGs measured in Chromium, {len(bad)} past their box")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
