#!/usr/bin/env python3
# Checks a static fabric SVG (topology --svg, the heat map) from its own coordinates against the console's
# layout rules: the canvas's aspect near 16:10, no two texts overlapping, every switch and host drawn, each host
# beside its own leaf on the side away from the leaf's spines (nearer to it than to any other leaf), and in a fabric of
# pods (a fat-tree: the spine-leaf links fall apart into groups) each spine right next to its own pod: its pod's leaves
# on one side of it, within their span, the nearest leaf on that side one of them; else the rows of leaves evenly
# filled; no link between switches through the hosts of more than ceil(rows of leaves / 2) - 1 rows (none with one
# or two rows).  With --event the files are event graphs
# (a part of the fabric, queue badges, a legend): aspect and overlapping texts only, and at least one of them must
# carry two badges or more (else overlapping badges could not have been seen).
# Usage: svg_layout.py TRUTH_JSON FILE.svg...  |  svg_layout.py --event FILE.svg...
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
ASPECT = (1.25, 2.1)  # 16:10 is 1.6; between 5:4 and 21:10 is "near" for a screen


def advance(ch):
    """Helvetica's advance width in em (its AFM: space, punctuation and i j l f t r 0.333 or less, digits and the
    other lower case 0.556 or less, capitals up to 0.778, m and w 0.833 and 0.722, M and W 0.833 and 0.944):
    rounded up per class, so boxes are never too small."""
    if ch in " .,-:;!|'ijlftr/":
        return 0.333
    if ch in "MW":
        return 0.944
    if ch in "mw":
        return 0.833
    if ch.isupper():
        return 0.778
    return 0.556


def boxes(root):
    """(x0, y0, x1, y1, text) of every text, from its x, y, anchor and font size (baseline y: 0.75 em above,
    0.25 em below)."""
    out = []
    for t in root.iter(NS + "text"):
        s = "".join(t.itertext())
        if not s.strip():
            continue
        size = float(t.get("font-size", "14"))
        w = size * sum(advance(c) for c in s)
        x, y = float(t.get("x")), float(t.get("y"))
        anchor = t.get("text-anchor", "start")
        x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        out.append((x0, y - 0.75 * size, x0 + w, y + 0.25 * size, s))
    return out


def overlaps(bs):
    bs = sorted(bs)
    found = []
    for i, a in enumerate(bs):
        for b in bs[i + 1:]:
            if b[0] >= a[2]:
                break
            if b[1] < a[3] and a[1] < b[3]:
                found.append((a[4], b[4]))
    return found


def positions(root):
    """Node name -> (x, y) of its label, for the groups with id n-NAME."""
    pos = {}
    for g in root.iter(NS + "g"):
        gid = g.get("id", "")
        if g.get("class") == "node" and gid.startswith("n-"):
            t = next(g.iter(NS + "text"), None)  # under the group's tooltip link
            if t is not None:
                pos[gid[2:]] = (float(t.get("x")), float(t.get("y")))
    return pos


def leaves_per_row(pos, leaves):
    """How many leaves each row holds, top down.  Labels less than 40 pt apart in y are one row: a leaf's label is its
    first text, one line (about 12 pt) higher when the leaf carries a note, and rows are a switch's cell (100 pt) apart."""
    rows = []  # [y of the row's first label, leaves]
    for y in sorted(pos[lf][1] for lf in leaves):
        if rows and y - rows[-1][0] < 40:
            rows[-1][1] += 1
        else:
            rows.append([y, 1])
    return [n for _, n in rows]


def badges(root):
    return sum(1 for g in root.iter(NS + "g") if g.get("class") == "node" and g.get("id", "").startswith("q-"))


def pods(truth, tier):
    """Spine and leaf names -> pod number: the groups of the spine-leaf links (union-find); {} for one group."""
    up = {n: n for n, t in tier.items() if t in ("spine", "leaf")}

    def root(v):
        while up[v] != v:
            v = up[v]
        return v
    for lk in truth["links"]:
        a, b = lk["a"]["node"], lk["b"]["node"]
        if {tier[a], tier[b]} == {"spine", "leaf"}:
            up[root(a)] = root(b)
    roots = sorted({root(v) for v in up})
    return {v: roots.index(root(v)) for v in up} if len(roots) > 1 else {}


def misplaced_spines(truth, tier, pos):
    """Spines not right next to their own pod's leaves: all of them on one side of it (below; above in a row drawn
    upside down, over the super-spines), the spine within their span and the nearest leaf on that side one of them
    (SVG y grows downwards; a switch's cell is 100 pt)."""
    pod = pods(truth, tier)
    wrong = []
    for s in (v for v in pod if tier[v] == "spine" and v in pos):
        own = [v for v in pod if tier[v] == "leaf" and pod[v] == pod[s] and v in pos]
        sx, sy = pos[s]
        if not own or (any(pos[v][1] <= sy for v in own) and any(pos[v][1] >= sy for v in own)):
            wrong.append(f"{s}: its pod's leaves not all on one side of it")
            continue
        down = pos[own[0]][1] > sy
        side = [v for v in pod if tier[v] == "leaf" and v in pos and (pos[v][1] > sy) == down]
        near = min(side, key=lambda lf: (pos[lf][0] - sx) ** 2 + (pos[lf][1] - sy) ** 2)
        lo, hi = min(pos[v][0] for v in own) - 50, max(pos[v][0] for v in own) + 50
        if pod[near] != pod[s] or not lo <= sx <= hi:
            wrong.append(f"{s} at ({sx:.0f}, {sy:.0f}): nearest leaf {'below' if down else 'above'} {near} (pod "
                         f"{pod[near]}, its own {pod[s]}), its pod's leaves from x {lo + 50:.0f} to {hi - 50:.0f}")
    return pod, wrong


def crosses(p, q, box):
    """Whether the segment p-q passes through box (x0, y0, x1, y1): Liang-Barsky clipping."""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for d, lo, hi, v in ((dx, box[0], box[2], p[0]), (dy, box[1], box[3], p[1])):
        if d == 0:
            if not lo <= v <= hi:
                return False
            continue
        a, b = (lo - v) / d, (hi - v) / d
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
        if t0 > t1:
            return False
    return True


def links_over_hosts(truth, tier, pos):
    """Links between two switches that pass through a host's box (0.8 x 0.3 in, 57.6 x 21.6 pt, around its label:
    the baseline about 4 pt under the box's centre); taken 2 pt in on every side, so a line that only grazes it is
    not counted.  Each such link with the rows of leaves (their labels' y, 40 pt apart or more) whose hosts it
    crosses."""
    leaf_of = {}
    for lk in truth["links"]:
        for h, lf in ((lk["a"]["node"], lk["b"]["node"]), (lk["b"]["node"], lk["a"]["node"])):
            if tier[h] == "host" and tier[lf] == "leaf":
                leaf_of[h] = lf
    ys = sorted(pos[v][1] for v in pos if tier.get(v) == "leaf")
    tops = [y for i, y in enumerate(ys) if not i or y - ys[i - 1] >= 40]  # each row's first label y

    def row(v):
        return max(i for i, t in enumerate(tops) if pos[v][1] >= t - 1e-6)
    hosts = [((x - 26.8, y - 4 - 8.8, x + 26.8, y - 4 + 8.8), row(leaf_of[v]) if leaf_of.get(v) in pos else -1)
             for v, (x, y) in pos.items() if tier.get(v) == "host"]
    out = []
    for lk in truth["links"]:
        a, b = lk["a"]["node"], lk["b"]["node"]
        if "host" in (tier[a], tier[b]) or a not in pos or b not in pos:
            continue
        rows = {r for box, r in hosts if crosses(pos[a], pos[b], box)}
        if rows:
            out.append((f"{a}--{b}", rows))
    return out


def check(truth, path):
    bad = []
    root = ET.parse(path).getroot()
    pt = lambda v: float(re.match(r"[\d.]+", v).group())  # noqa: E731
    w, h = pt(root.get("width")), pt(root.get("height"))
    if not ASPECT[0] <= w / h <= ASPECT[1]:
        bad.append(f"{path}: canvas {w:.0f} x {h:.0f} pt, aspect {w / h:.2f} (expected {ASPECT[0]} to {ASPECT[1]})")
    bs = boxes(root)
    ov = overlaps(bs)
    if ov:
        bad.append(f"{path}: {len(ov)} pairs of overlapping texts, e.g. {ov[:5]}")
    if truth is None:
        print(f"{path}: {w:.0f} x {h:.0f} pt (aspect {w / h:.2f}), {len(bs)} texts, {len(ov)} overlapping, "
              f"{badges(root)} badges")
        return bad
    tier = {n["node"]: n["tier"] for n in truth["nodes"]}
    pos = positions(root)
    missing = [n for n in tier if n not in pos]
    if missing:
        bad.append(f"{path}: {len(missing)} nodes not drawn, e.g. {missing[:5]}")
    leaves = [n for n, t in tier.items() if t == "leaf" and n in pos]
    up = {}  # leaf -> the mean y of the spines it links to, drawn
    for lk in truth["links"]:
        for leaf, sp in ((lk["a"]["node"], lk["b"]["node"]), (lk["b"]["node"], lk["a"]["node"])):
            if tier[leaf] == "leaf" and tier[sp] == "spine" and leaf in pos and sp in pos:
                up.setdefault(leaf, []).append(pos[sp][1])
    wrong = []
    for lk in truth["links"]:
        for host, leaf in ((lk["a"]["node"], lk["b"]["node"]), (lk["b"]["node"], lk["a"]["node"])):
            if tier[host] != "host" or tier[leaf] != "leaf" or host not in pos or leaf not in pos:
                continue
            hx, hy = pos[host]
            near = min(leaves, key=lambda lf: (pos[lf][0] - hx) ** 2 + (pos[lf][1] - hy) ** 2)
            # on the far side of its leaf from the leaf's spines: under it, or over it when the spines are under
            # (a row drawn upside down); SVG y grows downwards
            below = not up.get(leaf) or sum(up[leaf]) / len(up[leaf]) < pos[leaf][1]
            if (hy <= pos[leaf][1] if below else hy >= pos[leaf][1]) or near != leaf:
                wrong.append(f"{host} at ({hx:.0f}, {hy:.0f}): nearest leaf {near}, its own {leaf} at "
                             f"({pos[leaf][0]:.0f}, {pos[leaf][1]:.0f}), {'under' if below else 'over'} it expected")
    if wrong:
        bad.append(f"{path}: {len(wrong)} hosts not beside their own leaf, away from its spines, e.g. {wrong[:3]}")
    pod, spines = misplaced_spines(truth, tier, pos)
    if spines:
        bad.append(f"{path}: {len(spines)} spines not over their own pod, e.g. {spines[:3]}")
    per_row = leaves_per_row(pos, leaves)
    if not pod and per_row and max(per_row) - min(per_row) > 1:  # whole-tier rows: evenly filled
        bad.append(f"{path}: rows of leaves not evenly filled: {per_row} leaves, top down")
    # the rows of leaves (of pods) split about the tier they hang from, the first half (rounded down) upside down
    # over it: a link between switches crosses the hosts of at most the rows between it and its end on the deeper
    # side, ceil(rows / 2) - 1 of them (with one or two rows: none)
    over = links_over_hosts(truth, tier, pos)
    most = (len(per_row) + 1) // 2 - 1
    deep = [f"{k} through the hosts of rows {sorted(r)}" for k, r in over if len(r) > most]
    if deep:
        bad.append(f"{path}: {len(deep)} links between switches through the hosts of more than {most} rows of "
                   f"leaves, e.g. {deep[:3]}")
    print(f"{path}: {w:.0f} x {h:.0f} pt (aspect {w / h:.2f}), {len(bs)} texts, {len(ov)} overlapping, "
          f"{len(pos)} nodes, hosts beside their leaves: {'no' if wrong else 'yes'}, "
          f"{len(set(pod.values()))} pods, spines next to their pod: {'no' if spines else 'yes'}, leaves per row "
          f"{per_row}, switch links through hosts {len(over)}")
    return bad


def main():
    event = sys.argv[1] == "--event"
    truth = None if event else json.load(open(sys.argv[1]))["topology"]
    bad = []
    for path in sys.argv[2:]:
        bad += check(truth, path)
    if event and max(badges(ET.parse(p).getroot()) for p in sys.argv[2:]) < 2:
        bad.append("no event graph with two badges or more")
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
