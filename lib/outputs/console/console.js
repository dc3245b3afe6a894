// The live fabric console of hopwatch-analyzer run --http: polls the analyzer's JSON every 250 ms and draws the
// fabric map (tiers, hosts folded under leaves), the device panel, the incidents and a queue's 1 ms view.
"use strict";

const NS = "http://www.w3.org/2000/svg";
const COLOUR = ["#2e7d32", "#ef6c00", "#c62828"]; // ok, warning, alarm
const FLAPPING = "#8e24aa"; // a link whose state keeps changing, dotted
const TIERS = ["superspine", "spine", "leaf", "unknown"];
const CELL_W = 100, BOX_W = 88, BOX_H = 26, ROW_H = 60, HOST_H = 40, TIER_GAP = 40;
const POLL_MS = 250; // a link turns within 2 s of a change even behind a 200 ms snapshot and a loaded host

const HOST_W = 44, HOST_BOX_H = 16, HOST_LINE = 20, HOST_COLS = 2; // unfolded hosts: two per line under their leaf

let fabric = null, incidents = [], layoutKey = "", pos = {}, polls = 0;
let linkEls = new Map(); // "node:port|node:port" -> the link's line on the map
const expanded = new Set(); // leaves whose hosts are unfolded (at first those the URL names: #hosts=leaf1,leaf2)
for (const leaf of (new URLSearchParams(location.hash.slice(1)).get("hosts") || "").split(","))
  if (leaf) expanded.add(leaf);

function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// Names in natural order: leaf2 before leaf10.
function natural(a, b) {
  return a.localeCompare(b, undefined, {numeric: true});
}

// A label's font size so that it fits width (monospace glyphs are about 0.62 em wide).
function fitFont(text, width, max) {
  return Math.min(max, width / (0.62 * Math.max(1, text.length)));
}

function params() {
  const p = new URLSearchParams(location.hash.slice(1));
  return {device: p.get("device"), port: p.get("port"), queue: p.get("queue"), link: p.get("link")};
}

// A leaf's host-facing ports (the hosts under it), in natural order of the host's name.
function hostPorts(s) {
  return s.ports.filter((p) => p.peer_tier === "host").sort((a, b) => natural(a.peer, b.peer));
}

// The height an unfolded leaf adds below its folded box.
function unfoldedH(s) {
  return expanded.has(s.name) ? Math.ceil(s.hosts / HOST_COLS) * HOST_LINE + 8 : 0;
}

function fmtInt(v) {
  return Math.round(v).toLocaleString("en-US");
}

// Pods: the groups of spines and leaves linked to each other (a fat-tree's pod: its aggregation switches link only
// its edge switches), in the order of their first leaf; [] when fewer than two, or a spine or leaf is in none with
// both (a leaf-spine fabric is one pod: drawn as whole tiers).  The static SVG's rule (topo_render.c find_pods).
function pods(tiers) {
  const of = (name) => (tiers.find((t) => t.name === name) || {nodes: []}).nodes;
  const spines = of("spine"), leaves = of("leaf");
  const tier = new Map(spines.map((s) => [s.name, "spine"]).concat(leaves.map((s) => [s.name, "leaf"])));
  const up = new Map([...tier.keys()].map((n) => [n, n]));
  const root = (v) => { while (up.get(v) !== v) v = up.get(v); return v; };
  for (const l of fabric.links)
    if (tier.has(l.a) && tier.has(l.b) && tier.get(l.a) !== tier.get(l.b)) up.set(root(l.a), root(l.b));
  const index = new Map();
  for (const s of leaves) if (!index.has(root(s.name))) index.set(root(s.name), index.size);
  if (index.size < 2 || spines.some((s) => !index.has(root(s.name)))) return [];
  const out = [...index.keys()].map(() => ({spines: [], leaves: []}));
  for (const s of spines) out[index.get(root(s.name))].spines.push(s);
  for (const s of leaves) out[index.get(root(s.name))].leaves.push(s);
  return out.some((p) => !p.spines.length) ? [] : out;
}

// A pod's column: as wide as its wider tier; half a cell between pods.
const podW = (p) => Math.max(p.spines.length, p.leaves.length) * CELL_W;
// Items in rows of at most perRow, evenly filled (the first `extra` rows one more): leaves, or pods.
function rowsOf(items, perRow) {
  const n = Math.ceil(items.length / perRow), base = Math.floor(items.length / n), extra = items.length % n, rows = [];
  for (let r = 0, first = 0; r < n; first += rows[r].length, r++)
    rows.push(items.slice(first, first + base + (r < extra ? 1 : 0)));
  return rows;
}
const rowW = (row) => row.reduce((w, p) => w + podW(p), 0) + (row.length - 1) * CELL_W / 2;
// A row of pods: its spines, then its leaves with their hosts folded (unfolded ones add their height).
const podRowH = (row) => 2 * ROW_H + HOST_H + 2 * TIER_GAP + Math.max(0, ...row.flatMap((p) => p.leaves).map(unfoldedH));

// The smallest scale at which the map's labels stay easy to read (a switch's name at 13 px drawn at 10 px or more).
const MIN_SCALE = 0.75;
// The layouts to choose from, each {cols, perRow, deep} with place()'s {pos, w, h}: leaves cols to a row (a fabric of
// pods: perRow pods to a row, cols the columns of the widest row); deep the rows of leaves (of pods) on the deeper
// side of the tier they hang from plus the extra rows of the tiers above them (each is links drawn across the rows
// nearer the spines).
function layouts(tiers, ps) {
  const out = [];
  const add = (cols, perRow, deep) => out.push(Object.assign({cols, perRow, deep}, place(tiers, ps, cols, perRow)));
  if (ps.length) {
    for (let perRow = 1; perRow <= ps.length; perRow++) {
      const rows = rowsOf(ps, perRow), cols = Math.ceil(Math.max(...rows.map(rowW)) / CELL_W);
      let deep = rows.length - upperPodRows(tiers, ps, perRow);
      for (const t of tiers) if (t.name === "superspine") deep += rowsOf(t.nodes, cols).length - 1;
      add(cols, perRow, deep);
    }
    return out;
  }
  const maxN = Math.max(1, ...tiers.map((t) => t.nodes.length));
  for (let cols = 1; cols <= maxN; cols++) {
    const nUp = upperRows(tiers, ps, cols);
    let deep = 0;
    for (const t of tiers) {
      const rows = rowsOf(t.nodes, cols).length;
      if (t.name === "leaf") deep += rows - nUp;
      else if (t.name !== "unknown") deep += rows - 1; // the unknown tier is drawn under the leaves
    }
    add(cols, 0, deep);
  }
  return out;
}

// The layout to draw: among those the pane shows at MIN_SCALE or larger, or when none is that large (a big fabric) at
// 0.85 of the largest scale any reaches or larger, the fewest rows on the deeper side, then the largest.
function chooseLayout(cands, paneW, paneH) {
  const scale = (c) => Math.min(Math.max(1, paneW) / c.w, Math.max(1, paneH) / c.h);
  const limit = Math.min(MIN_SCALE, 0.85 * Math.max(...cands.map(scale)));
  return cands.filter((c) => scale(c) >= limit)
    .reduce((b, c) => c.deep < b.deep || (c.deep === b.deep && scale(c) > scale(b)) ? c : b);
}

// Two rows of leaves or more under the spines alone (no super-spines, no switch of unknown tier, no pods) are split
// about the spines, as in the static pictures (docs/topology.md): the first half (rounded down) over them, their hosts
// folded over them, so that a spine's link crosses only the hosts of rows on its side nearer to it (two rows: none).
// How many rows go over the spines.
function upperRows(tiers, ps, cols) {
  const names = tiers.map((t) => t.name), leaf = tiers.find((t) => t.name === "leaf");
  const rows = leaf ? Math.ceil(leaf.nodes.length / cols) : 0;
  return !ps.length && rows >= 2 && names.includes("spine") && !names.includes("superspine") &&
    !names.includes("unknown") ? Math.floor(rows / 2) : 0;
}

// The same in a fabric of pods with super-spines (and no switch of unknown tier): the rows of pods over them.
function upperPodRows(tiers, ps, perRow) {
  const names = tiers.map((t) => t.name);
  return ps.length && names.includes("superspine") && !names.includes("unknown") ?
    Math.floor(rowsOf(ps, perRow).length / 2) : 0;
}

// The map's geometry with leaves cols to a row (a fabric of pods: perRow pods to a row), by tier (top: superspine,
// spine; then leaves with their hosts folded below each), or in a fabric of pods the pods side by side, each pod's
// spines over its leaves (pods()); rows of leaves (of pods) split about the spines (super-spines: upperRows(),
// upperPodRows()).  Every switch's place {x, y, up} (up: in a row over the spines, its hosts over it) and the
// drawing's size w x h before scaling: layouts() measures each candidate with it, buildMap() draws the chosen one.
function place(tiers, ps, cols, perRow) {
  const pos = {};
  let y = TIER_GAP / 2;
  const placeRow = (nodes, up) => nodes.forEach((s, inRow) => { // a row centred
    pos[s.name] = {x: (cols - nodes.length) * CELL_W / 2 + inRow * CELL_W + CELL_W / 2, y: y + BOX_H / 2, up};
  });
  // a row of pods, each pod's spines right over its leaves, or upside down over the super-spines (up): its leaves'
  // hosts on top, its leaves, its spines
  const placePodRow = (row, up) => {
    let x = (cols * CELL_W - rowW(row)) / 2;
    const over = up ? HOST_H + Math.max(0, ...row.flatMap((p) => p.leaves).map(unfoldedH)) : 0;
    for (const p of row) {
      for (const [k, nodes] of [[0, p.spines], [1, p.leaves]])
        nodes.forEach((s, i) => {
          pos[s.name] = {x: x + (podW(p) - nodes.length * CELL_W) / 2 + i * CELL_W + CELL_W / 2,
            y: y + over + (up ? 1 - k : k) * (ROW_H + TIER_GAP) + BOX_H / 2, up: up && k === 1};
        });
      x += podW(p) + CELL_W / 2;
    }
    y += podRowH(row);
  };
  const nUp = upperRows(tiers, ps, cols), podUp = upperPodRows(tiers, ps, perRow);
  if (nUp) { // the rows of leaves over the spines: room over each for its hosts' badges, unfolded or not
    for (const row of rowsOf(tiers.find((t) => t.name === "leaf").nodes, cols).slice(0, nUp)) {
      y += HOST_H + Math.max(0, ...row.map(unfoldedH));
      placeRow(row, true);
      y += ROW_H;
    }
    y += TIER_GAP;
  }
  for (const row of rowsOf(ps, perRow).slice(0, podUp)) placePodRow(row, true);
  for (const t of tiers) {
    if (ps.length && t.name === "spine") { // a fat-tree: rows of pods (those not over the super-spines)
      for (const row of rowsOf(ps, perRow).slice(podUp)) placePodRow(row, false);
      continue;
    }
    if (ps.length && t.name === "leaf") continue; // drawn with their pods
    const rowH = ROW_H + (t.name === "leaf" ? HOST_H : 0);
    for (const nodes of rowsOf(t.nodes, cols).slice(t.name === "leaf" ? nUp : 0)) {
      placeRow(nodes, false);
      y += rowH + Math.max(0, ...nodes.map(unfoldedH)); // a row grows by its tallest unfolded leaf
    }
    y += TIER_GAP;
  }
  return {pos, w: cols * CELL_W, h: y - TIER_GAP / 2};
}

// Builds the map's SVG elements once per topology: the layout chooseLayout() picks for the pane.
function buildMap() {
  const svg = document.getElementById("map");
  const pane = document.getElementById("map-pane");
  const tiers = TIERS.map((name) => ({name, nodes: fabric.switches.filter((s) => s.tier === name || (name === "unknown" && !TIERS.includes(s.tier)))}))
    .filter((t) => t.nodes.length);
  for (const t of tiers) t.nodes.sort((a, b) => natural(a.name, b.name));
  const chosen = chooseLayout(layouts(tiers, pods(tiers)), pane.clientWidth, pane.clientHeight);
  const {w, h} = chosen;
  pos = chosen.pos;
  svg.textContent = "";
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  const gl = el("g", {id: "links"}, svg), gn = el("g", {id: "nodes"}, svg);
  linkEls = new Map();
  const addLink = (key, a, b, attrs) => {
    const e = el("line", Object.assign({class: "link", "data-a": a, "data-b": b, "data-key": key}, attrs), gl);
    e.addEventListener("click", () => { location.hash = "link=" + encodeURIComponent(key); });
    linkEls.set(key, e);
  };
  for (const l of fabric.links) {
    const a = pos[l.a], b = pos[l.b];
    if (!a || !b) continue;
    const up = a.y <= b.y ? [a, b] : [b, a];
    addLink(linkKey(l), `${l.a}:${l.ap}`, `${l.b}:${l.bp}`,
      {x1: up[0].x, y1: up[0].y + BOX_H / 2, x2: up[1].x, y2: up[1].y - BOX_H / 2});
  }
  for (const s of fabric.switches) {
    const p = pos[s.name];
    const g = el("g", {class: "sw", id: "sw-" + s.name, "data-tier": s.tier}, gn);
    el("rect", {x: p.x - BOX_W / 2, y: p.y - BOX_H / 2, width: BOX_W, height: BOX_H, rx: 4, stroke: "#333", "stroke-width": 1}, g);
    const t = el("text", {x: p.x, y: p.y + 4, "text-anchor": "middle", "font-size": fitFont(s.name, BOX_W - 6, 13).toFixed(2), fill: "#fff"}, g);
    t.textContent = s.name;
    el("title", {}, g).textContent = s.name;
    g.addEventListener("click", () => { location.hash = "device=" + encodeURIComponent(s.name); });
    if (s.hosts > 0) {
      const open = expanded.has(s.name);
      const hg = el("g", {class: "hosts", id: "hosts-" + s.name, "data-leaf": s.name, "data-count": s.hosts,
        "data-expanded": open ? 1 : 0}, gn);
      // the badge (its top at hy) under the leaf, or over it in a row over the spines (p.up), the hosts beyond it
      const hy = p.up ? p.y - BOX_H / 2 - 30 : p.y + BOX_H / 2 + 10;
      el("line", {class: "host-stub", x1: p.x, y1: p.y + (p.up ? -1 : 1) * BOX_H / 2, x2: p.x, y2: p.up ? hy + 20 : hy,
        stroke: "#999"}, hg);
      el("rect", {x: p.x - BOX_W / 2 + 8, y: hy, width: BOX_W - 16, height: 20, rx: 10, fill: "#fff", "stroke-width": 2}, hg);
      const label = `${s.hosts} hosts ${open ? "▴" : "▾"}`;
      const ht = el("text", {x: p.x, y: hy + 14, "text-anchor": "middle", "font-size": fitFont(label, BOX_W - 24, 11).toFixed(2), fill: "#222"}, hg);
      ht.textContent = label;
      el("title", {}, hg).textContent = `${s.hosts} hosts under ${s.name}: click to ${open ? "fold" : "unfold"}`;
      hg.addEventListener("click", () => {
        if (open) expanded.delete(s.name); else expanded.add(s.name);
        layoutKey = ""; // rebuilt at once, not at the next poll
        relayout();
      });
      const lines = Math.ceil(s.hosts / HOST_COLS); // in reading order top down either way
      if (open)
        hostPorts(s).forEach((pt, i) => {
          const hx = p.x + ((i % HOST_COLS) - (HOST_COLS - 1) / 2) * (HOST_W + 4), line = Math.floor(i / HOST_COLS);
          const ty = p.up ? hy - 8 - (lines - line) * HOST_LINE : hy + 20 + 8 + line * HOST_LINE;
          addLink(hostKey(s.name, pt), `${s.name}:${pt.name}`, `${pt.peer}:${pt.peer_port}`,
            p.up ? {x1: p.x, y1: hy, x2: hx, y2: ty + HOST_BOX_H} : {x1: p.x, y1: hy + 20, x2: hx, y2: ty});
          const hb = el("g", {class: "host", id: "host-" + pt.peer, "data-leaf": s.name}, gn);
          el("rect", {x: hx - HOST_W / 2, y: ty, width: HOST_W, height: HOST_BOX_H, rx: 3, fill: "#eceff1", stroke: "#78909c"}, hb);
          el("text", {x: hx, y: ty + 12, "text-anchor": "middle", "font-size": fitFont(pt.peer, HOST_W - 4, 10).toFixed(2), fill: "#222"}, hb)
            .textContent = pt.peer;
          el("title", {}, hb).textContent = `${pt.peer} ${pt.peer_port} — ${s.name} ${pt.name}`;
        });
    }
  }
}

// How many pairs of the map's labels overlap on screen (from their bounding boxes): the layout's promise, which
// the console states on the page (body data-label-overlaps) for people and tests to check.
function labelOverlaps() {
  const boxes = [...document.querySelectorAll("#map text")].map((t) => t.getBoundingClientRect())
    .sort((a, b) => a.left - b.left);
  let n = 0;
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length && boxes[j].left < boxes[i].right; j++)
      if (boxes[j].top < boxes[i].bottom && boxes[i].top < boxes[j].bottom) n++;
  return n;
}

// The key of a switch link, and of a host's link (its leaf's port first).
function linkKey(l) {
  return `${l.a}:${l.ap}|${l.b}:${l.bp}`;
}
function hostKey(leaf, pt) {
  return `${leaf}:${pt.name}|${pt.peer}:${pt.peer_port}`;
}

function linkColour(l) {
  if (l.link === "down") return "#000";
  if (l.link === "flapping") return FLAPPING; // changed state more than 3 times in 10 min (console.c)
  if (l.state === 2 || l.score >= 1) return COLOUR[2];
  if (l.state === 1 || l.score >= 0.5) return COLOUR[1];
  return "#90a4ae";
}

// Colours of switches, folded hosts and links from the latest snapshot.
function paintMap() {
  const byName = {};
  for (const s of fabric.switches) byName[s.name] = s;
  for (const g of document.querySelectorAll("#map .sw")) {
    const s = byName[g.id.slice(3)];
    if (!s) continue;
    g.setAttribute("data-state", s.state);
    g.querySelector("rect").setAttribute("fill", COLOUR[s.state]);
  }
  for (const g of document.querySelectorAll("#map .hosts")) {
    const s = byName[g.getAttribute("data-leaf")];
    if (!s) continue;
    g.setAttribute("data-state", s.hosts_state);
    g.querySelector("rect").setAttribute("stroke", COLOUR[s.hosts_state]);
  }
  const paintLink = (e, l) => {
    if (!e) return;
    e.setAttribute("data-state", l.state);
    e.setAttribute("data-link", l.link);
    e.setAttribute("stroke", linkColour(l));
    e.setAttribute("stroke-width", l.state ? 3 : 1.2);
    e.setAttribute("stroke-dasharray", l.link === "up" ? "" : l.link === "flapping" ? "2 3" : "6 4");
    if (l.link === "flapping") e.setAttribute("stroke-width", 3);
  };
  for (const l of fabric.links) paintLink(linkEls.get(linkKey(l)), l);
  for (const s of fabric.switches) {
    const g = document.getElementById("hosts-" + s.name);
    if (g) paintLink(g.querySelector(".host-stub"), {link: "up", state: s.hosts_state, score: 0});
    if (expanded.has(s.name))
      for (const pt of hostPorts(s))
        paintLink(linkEls.get(hostKey(s.name, pt)), {link: pt.link || "up", state: pt.state, score: pt.score || 0});
  }
}

// Rebuild the map now (after a fold or unfold), keeping the layout check current.
function relayout() {
  if (!fabric) return;
  buildMap();
  paintMap();
  layoutKey = mapKey();
  document.body.dataset.labelOverlaps = labelOverlaps();
}

function mapKey() {
  return fabric.switches.map((s) => s.name + "/" + s.tier + "/" + s.hosts).join(",") + "|" + fabric.links.length +
    "|" + [...expanded].sort().join(",");
}

// Both ends of the fragment's link (link=node:port|node:port): each end's queues with occupancy and latency,
// or why it has none (a host, or no records yet).
function paintLinkPane() {
  const pane = document.getElementById("link-pane");
  const key = params().link;
  pane.hidden = !key || !fabric;
  if (pane.hidden) return;
  const body = document.querySelector("#link-queues tbody");
  body.textContent = "";
  document.getElementById("link-name").textContent = key.replace("|", " — ");
  for (const end of key.split("|")) {
    const i = end.lastIndexOf(":"), node = end.slice(0, i), port = end.slice(i + 1);
    const s = fabric.switches.find((x) => x.name === node);
    const pt = s && s.ports.find((x) => x.name === port);
    const rows = pt ? pt.queues : [];
    if (!rows.length) {
      const tr = body.appendChild(document.createElement("tr"));
      tr.className = "queue none";
      tr.dataset.end = end;
      const why = s ? "no records of its queues yet" : "a host: no INT reports";
      for (const c of [`${node} ${port}`, "-", why, ""]) tr.appendChild(document.createElement("td")).textContent = c;
      continue;
    }
    for (const q of rows) {
      const tr = body.appendChild(document.createElement("tr"));
      tr.className = "queue st" + q.state;
      tr.dataset.end = end;
      tr.dataset.queue = q.queue;
      tr.dataset.state = q.state;
      tr.dataset.peakOcc = q.peak_occ;
      const cells = [`${node} ${port}`, q.queue, `${fmtInt(q.occ)} B / ${fmtInt(q.peak_occ)} B`,
        `${fmtInt(q.lat)} ns / ${fmtInt(q.peak_lat)} ns`];
      for (const c of cells) tr.appendChild(document.createElement("td")).textContent = c;
      tr.addEventListener("click", () => {
        location.hash = `device=${encodeURIComponent(node)}&port=${encodeURIComponent(port)}&queue=${q.queue}`;
      });
    }
  }
}

// The device panel: the switch as a front panel (ports in two rows, each coloured by its worst queue state),
// and its queues with neighbour, occupancy and latency.
function paintDevice() {
  const pane = document.getElementById("device-pane");
  const p = params();
  const s = fabric && p.device && fabric.switches.find((x) => x.name === p.device);
  pane.hidden = !s;
  if (!s) return;
  document.getElementById("device-name").textContent = `${s.name} (${s.tier})`;
  const panel = document.getElementById("panel");
  const ports = s.ports.slice().sort((a, b) => natural(a.name, b.name));
  const perRow = Math.max(1, Math.ceil(ports.length / 2)), pw = 560 / Math.max(8, perRow);
  panel.setAttribute("viewBox", `0 0 580 ${2 * 44 + 10}`);
  panel.textContent = "";
  el("rect", {x: 2, y: 2, width: 576, height: 2 * 44 + 6, rx: 6, fill: "#37474f"}, panel);
  ports.forEach((pt, i) => {
    const x = 10 + (i % perRow) * pw, y = 8 + Math.floor(i / perRow) * 44;
    const g = el("g", {class: "port", id: "port-" + pt.name, "data-state": pt.state}, panel);
    el("rect", {x, y, width: pw - 4, height: 28, rx: 3, fill: COLOUR[pt.state], stroke: p.port === pt.name ? "#fff" : "none", "stroke-width": 2}, g);
    const t = el("text", {x: x + (pw - 4) / 2, y: y + 40, "text-anchor": "middle", "font-size": fitFont(pt.name, pw - 4, 10).toFixed(2), fill: "#eceff1"}, g);
    t.textContent = pt.name;
    el("title", {}, g).textContent = `${pt.name} → ${pt.peer || "no neighbour"} ${pt.peer_port}`;
  });
  const body = document.querySelector("#device-queues tbody");
  body.textContent = "";
  for (const pt of ports)
    for (const q of pt.queues) {
      const tr = document.createElement("tr");
      tr.className = "queue st" + q.state;
      tr.dataset.port = pt.name;
      tr.dataset.queue = q.queue;
      const cells = [pt.name, pt.peer ? `${pt.peer} ${pt.peer_port}` : "-", q.queue,
        `${fmtInt(q.occ)} B / ${fmtInt(q.peak_occ)} B`, `${fmtInt(q.lat)} ns / ${fmtInt(q.peak_lat)} ns`];
      for (const c of cells) tr.appendChild(document.createElement("td")).textContent = c;
      tr.addEventListener("click", () => {
        location.hash = `device=${encodeURIComponent(s.name)}&port=${encodeURIComponent(pt.name)}&queue=${q.queue}`;
      });
      body.appendChild(tr);
    }
}

function paintIncidents() {
  const body = document.querySelector("#incidents tbody");
  body.textContent = "";
  for (const x of incidents) {
    const tr = document.createElement("tr");
    tr.className = "incident" + (x.open ? " open" : "");
    tr.dataset.kind = x.kind;
    tr.dataset.node = x.node;
    tr.dataset.port = x.port;
    tr.dataset.queue = x.queue;
    const culprit = x.node ? `${x.node}${x.port ? ":" + x.port : ""}${x.queue >= 0 ? " q" + x.queue : ""}` : "-";
    const dur = x.open ? "open" : `${x.duration_ms.toFixed(3)} ms`;
    // whose traffic (run --pods / --ident-map): the alert's sender and receiver jobs
    const jobs = x.jobs ? `${x.jobs.senders || "?"} → ${x.jobs.receivers || "?"}` +
      (x.jobs.unattributed_flows ? ` (${x.jobs.unattributed_flows} flows without a job)` : "") : "-";
    if (x.jobs) {
      tr.dataset.senders = x.jobs.senders;
      tr.dataset.receivers = x.jobs.receivers;
    }
    const cells = [x.kind, culprit, x.victims || "-", jobs, x.start.replace("T", " "), dur];
    for (const c of cells) tr.appendChild(document.createElement("td")).textContent = c;
    const td = tr.appendChild(document.createElement("td"));
    if (x.svg) {
      const a = td.appendChild(document.createElement("a"));
      a.href = "/svg/" + encodeURIComponent(x.svg);
      a.textContent = "graph";
    }
    tr.title = x.summary || x.detail; // the alert's own words, as its notification says them
    if (x.node)
      tr.addEventListener("click", () => {
        location.hash = `device=${encodeURIComponent(x.node)}` + (x.port ? `&port=${encodeURIComponent(x.port)}&queue=${x.queue}` : "");
      });
    body.appendChild(tr);
  }
}

// The queue of the fragment's device, port and queue in the latest snapshot.
function selectedQueue() {
  const p = params();
  if (!fabric || !p.device || !p.port || p.queue === null) return null;
  const s = fabric.switches.find((x) => x.name === p.device);
  const pt = s && s.ports.find((x) => x.name === p.port);
  return pt && pt.queues.find((q) => String(q.queue) === p.queue);
}

function utcMs(ms) {
  return new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC");
}

// The ms view: highest occupancy and hop latency per ms over the ring's window, as two polylines.
function paintQueue(data) {
  const svg = document.getElementById("ms");
  svg.textContent = "";
  const pts = data.points;
  const W = 600, H = 220, L = 50, R = 50, T = 12, B = 30;
  const maxOcc = Math.max(0, ...pts.map((p) => p[1])), maxLat = Math.max(0, ...pts.map((p) => p[2]));
  const peakO = el("text", {id: "ms-peak-occ", "data-bytes": maxOcc, x: L, y: 10, fill: "#1565c0"}, svg);
  peakO.textContent = `peak occupancy ${fmtInt(maxOcc)} B`;
  const peakL = el("text", {id: "ms-peak-lat", "data-ns": maxLat, x: W - R, y: 10, "text-anchor": "end", fill: "#6a1b9a"}, svg);
  peakL.textContent = `peak hop latency ${fmtInt(maxLat)} ns`;
  el("rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#999"}, svg);
  if (!pts.length) {
    el("text", {x: W / 2, y: H / 2, "text-anchor": "middle"}, svg).textContent = "no records of this queue yet";
    return;
  }
  const t1 = pts[pts.length - 1][0], t0 = Math.max(pts[0][0], t1 - data.window_ms + 1);
  const span = Math.max(1, t1 - t0);
  const xs = (t) => L + ((t - t0) / span) * (W - L - R);
  const line = (k, max) => pts.map((p) => `${xs(p[0]).toFixed(1)},${(H - B - (max ? p[k] / max : 0) * (H - T - B)).toFixed(1)}`).join(" ");
  el("polyline", {id: "ms-occ", points: line(1, maxOcc), fill: "none", stroke: "#1565c0", "stroke-width": 1.5}, svg);
  el("polyline", {id: "ms-lat", points: line(2, maxLat), fill: "none", stroke: "#6a1b9a", "stroke-width": 1}, svg);
  el("text", {x: L, y: H - 8}, svg).textContent = utcMs(t0);
  el("text", {x: W - R, y: H - 8, "text-anchor": "end"}, svg).textContent = utcMs(t1);
  el("text", {x: L - 4, y: T + 10, "text-anchor": "end", fill: "#1565c0"}, svg).textContent = `${(maxOcc / 1e3).toFixed(0)} kB`;
  el("text", {x: W - R + 4, y: T + 10, fill: "#6a1b9a"}, svg).textContent = `${(maxLat / 1e3).toFixed(1)} µs`;
  document.getElementById("ms-legend").textContent =
    `${pts.length} ms with records from ${utcMs(t0)} to ${utcMs(t1)}; blue: highest occupancy per ms, purple: highest hop latency per ms`;
}

async function pollQueue() {
  const q = selectedQueue(), p = params();
  document.getElementById("ms-pane").hidden = !q;
  if (!q) return;
  document.getElementById("ms-name").textContent = `${p.device} ${p.port} q${p.queue}`;
  const r = await fetch(`/api/queue?node=${q.node_id}&port=${q.port_id}&queue=${q.queue}`, {cache: "no-store"});
  if (r.ok) paintQueue(await r.json());
}

// The absolute colour scale of the latency matrix (p99.9 of end-to-end in-switch latency), the same whatever
// the cells hold: up to 1 µs, 10 µs, 100 µs, 1 ms, above.
const LAT_SCALE = [[1e3, "#1a9850", "≤ 1 µs"], [1e4, "#91cf60", "≤ 10 µs"], [1e5, "#fee08b", "≤ 100 µs"],
  [1e6, "#fc8d59", "≤ 1 ms"], [Infinity, "#d73027", "> 1 ms"]];

function latColour(ns) {
  return LAT_SCALE.find((s) => ns <= s[0])[1];
}

function fmtNs(ns) {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns} ns`;
}

// The latency matrix over the selected window: a cell per (source, destination) leaf with reports in it,
// coloured by its p99.9 on the absolute scale, the p99.9 written in it.
function paintLatency(m) {
  const svg = document.getElementById("latency");
  svg.textContent = "";
  const n = m.leaves.length, CELL = 58, HEAD = 60;
  const side = HEAD + Math.max(1, n) * CELL;
  svg.setAttribute("viewBox", `0 0 ${side} ${side + 30}`);
  svg.dataset.window = m.window_s;
  svg.dataset.job = m.job || "";
  svg.dataset.from = m.from_ns;
  svg.dataset.to = m.to_ns;
  m.leaves.forEach((name, i) => {
    el("text", {x: HEAD - 4, y: HEAD + i * CELL + CELL / 2 + 4, "text-anchor": "end", "font-size": fitFont(name, HEAD - 6, 11).toFixed(2)}, svg).textContent = name;
    el("text", {x: HEAD + i * CELL + CELL / 2, y: HEAD - 6, "text-anchor": "middle", "font-size": fitFont(name, CELL - 4, 11).toFixed(2)}, svg).textContent = name;
  });
  for (const [i, j, count, avg, p999] of m.cells) {
    const g = el("g", {class: "lat-cell", "data-src": m.leaves[i], "data-dst": m.leaves[j], "data-count": count, "data-p999": p999}, svg);
    el("rect", {x: HEAD + j * CELL + 1, y: HEAD + i * CELL + 1, width: CELL - 2, height: CELL - 2, fill: latColour(p999)}, g);
    const label = fmtNs(p999);
    el("text", {x: HEAD + j * CELL + CELL / 2, y: HEAD + i * CELL + CELL / 2 + 4, "text-anchor": "middle", "font-size": fitFont(label, CELL - 6, 11).toFixed(2)}, g).textContent = label;
    el("title", {}, g).textContent = `${m.leaves[i]} → ${m.leaves[j]}: ${fmtInt(count)} reports, mean ${fmtNs(Math.round(avg))}, p99.9 ${fmtNs(p999)}`;
  }
  LAT_SCALE.forEach(([, colour, label], k) => {
    el("rect", {x: 4 + k * 70, y: side + 8, width: 14, height: 14, fill: colour}, svg);
    el("text", {x: 22 + k * 70, y: side + 19, "font-size": 10}, svg).textContent = label;
  });
  const span = m.from ? `${m.from.replace("T", " ")} to ${m.to.replace("T", " ")}` : `the whole run to ${(m.to || "-").replace("T", " ")}`;
  document.getElementById("lat-legend").textContent =
    `${m.cells.length} leaf pairs with reports${m.job ? ` from job ${m.job}'s senders` : ""}, ${span}; colour: p99.9 on a fixed scale`;
  jobOptions(m.jobs || []);
}

// The job selector: "all traffic" and every job with a matrix of its own (the server's latency groups); the
// URL's #job=NAME chooses one once it is listed.
let jobFromUrl = new URLSearchParams(location.hash.slice(1)).get("job");
function jobOptions(jobs) {
  const sel = document.getElementById("lat-job");
  const have = [...sel.options].map((o) => o.value).slice(1);
  for (const j of jobs)
    if (!have.includes(j)) {
      const o = sel.appendChild(document.createElement("option"));
      o.value = j;
      o.textContent = `job ${j}`;
    }
  if (jobFromUrl && jobs.includes(jobFromUrl)) {
    sel.value = jobFromUrl;
    jobFromUrl = null;
    pollLatency();
  }
}

// A job's matrix is over the whole run (the window selector is set to it while a job is chosen).
async function pollLatency() {
  const job = document.getElementById("lat-job").value;
  if (job) document.getElementById("lat-window").value = "0";
  const w = document.getElementById("lat-window").value;
  const r = await fetch(job ? `/api/latency?job=${encodeURIComponent(job)}` : `/api/latency?window=${w}`, {cache: "no-store"});
  if (r.ok && document.getElementById("lat-window").value === w && document.getElementById("lat-job").value === job)
    paintLatency(await r.json());
}

async function poll() {
  try {
    const [f, i] = await Promise.all([fetch("/api/fabric", {cache: "no-store"}), fetch("/api/incidents", {cache: "no-store"})]);
    if (!f.ok || !i.ok) throw new Error(`HTTP ${f.status} ${i.status}`);
    const snapshot = await f.json();
    incidents = await i.json();
    if (snapshot.pending) throw new Error("waiting for the analyzer's first snapshot");
    fabric = snapshot;
    const key = mapKey();
    if (key !== layoutKey) {
      layoutKey = key;
      const t0 = performance.now();
      buildMap();
      paintMap();
      document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
      document.body.dataset.labelOverlaps = labelOverlaps();
      if (!document.body.dataset.firstMapMs) document.body.dataset.firstMapMs = performance.now().toFixed(0);
    }
    paintMap();
    paintDevice();
    paintLinkPane();
    paintIncidents();
    await pollQueue();
    if (polls % 4 === 0) await pollLatency(); // its JSON changes at most every second
    document.getElementById("time").textContent = fabric.time ? fabric.time.replace("T", " ").replace("Z", " UTC") : "-";
    document.getElementById("records").textContent = `${fmtInt(fabric.records)} records`;
    document.getElementById("status").textContent = "live";
    document.body.dataset.polls = ++polls;
  } catch (e) {
    document.getElementById("status").textContent = "no answer: " + e.message;
  }
  setTimeout(poll, POLL_MS);
}

window.addEventListener("hashchange", () => { if (fabric) { paintDevice(); paintLinkPane(); pollQueue(); } });
window.addEventListener("resize", () => { layoutKey = ""; });
document.getElementById("lat-window").addEventListener("change", () => {
  document.getElementById("lat-job").value = ""; // a window is for all traffic
  pollLatency();
});
document.getElementById("lat-job").addEventListener("change", () => { pollLatency(); });
for (const id of ["device-close", "link-close"])
  document.getElementById(id).addEventListener("click", (e) => { e.preventDefault(); location.hash = ""; });
poll();
