// The live fabric console of hopwatch-analyzer run --http: polls the analyzer's JSON every 500 ms and draws the
// fabric map (tiers, hosts folded under leaves), the device panel, the incidents and a queue's 1 ms view.
"use strict";

const NS = "http://www.w3.org/2000/svg";
const COLOUR = ["#2e7d32", "#ef6c00", "#c62828"]; // ok, warning, alarm
const TIERS = ["superspine", "spine", "leaf", "unknown"];
const CELL_W = 100, BOX_W = 88, BOX_H = 26, ROW_H = 60, HOST_H = 40, TIER_GAP = 40;
const POLL_MS = 500;

let fabric = null, incidents = [], layoutKey = "", pos = {}, polls = 0;

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
  return {device: p.get("device"), port: p.get("port"), queue: p.get("queue")};
}

function fmtInt(v) {
  return Math.round(v).toLocaleString("en-US");
}

// Columns per row so that the drawing's aspect ratio is nearest the pane's.
function columns(tiers, target) {
  let best = 1, bestErr = Infinity;
  const maxN = Math.max(1, ...tiers.map((t) => t.nodes.length));
  for (let c = 1; c <= maxN; c++) {
    let h = 0;
    for (const t of tiers) h += Math.ceil(t.nodes.length / c) * (ROW_H + (t.name === "leaf" ? HOST_H : 0)) + TIER_GAP;
    const err = Math.abs(Math.log((c * CELL_W) / h / target));
    if (err < bestErr) {
      bestErr = err;
      best = c;
    }
  }
  return best;
}

// Lay the switches out by tier (top: superspine, spine; then leaves with their hosts folded below each), in rows
// of as many columns as keep the aspect ratio near the pane's; builds the map's SVG elements once per topology.
function buildMap() {
  const svg = document.getElementById("map");
  const pane = document.getElementById("map-pane");
  const target = Math.max(0.3, pane.clientWidth / Math.max(1, pane.clientHeight));
  const tiers = TIERS.map((name) => ({name, nodes: fabric.switches.filter((s) => s.tier === name || (name === "unknown" && !TIERS.includes(s.tier)))}))
    .filter((t) => t.nodes.length);
  for (const t of tiers) t.nodes.sort((a, b) => natural(a.name, b.name));
  const cols = columns(tiers, target);
  svg.textContent = "";
  pos = {};
  let y = TIER_GAP / 2;
  for (const t of tiers) {
    const rowH = ROW_H + (t.name === "leaf" ? HOST_H : 0);
    const perRow = Math.min(cols, t.nodes.length);
    t.nodes.forEach((s, i) => {
      const row = Math.floor(i / cols), inRow = i % cols;
      const n = row === Math.floor((t.nodes.length - 1) / cols) ? t.nodes.length - row * cols : perRow;
      const x = (cols - n) * CELL_W / 2 + inRow * CELL_W + CELL_W / 2; // rows centred
      pos[s.name] = {x, y: y + row * rowH + BOX_H / 2};
    });
    y += Math.ceil(t.nodes.length / cols) * rowH + TIER_GAP;
  }
  const w = cols * CELL_W, h = y - TIER_GAP / 2;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  const gl = el("g", {id: "links"}, svg), gn = el("g", {id: "nodes"}, svg);
  for (const l of fabric.links) {
    const a = pos[l.a], b = pos[l.b];
    if (!a || !b) continue;
    const up = a.y <= b.y ? [a, b] : [b, a];
    el("line", {class: "link", "data-a": `${l.a}:${l.ap}`, "data-b": `${l.b}:${l.bp}`,
      x1: up[0].x, y1: up[0].y + BOX_H / 2, x2: up[1].x, y2: up[1].y - BOX_H / 2}, gl);
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
      const hg = el("g", {class: "hosts", id: "hosts-" + s.name, "data-leaf": s.name, "data-count": s.hosts}, gn);
      const hy = p.y + BOX_H / 2 + 10;
      el("line", {x1: p.x, y1: p.y + BOX_H / 2, x2: p.x, y2: hy, stroke: "#999"}, hg);
      el("rect", {x: p.x - BOX_W / 2 + 8, y: hy, width: BOX_W - 16, height: 20, rx: 10, fill: "#fff", "stroke-width": 2}, hg);
      const label = `${s.hosts} hosts`;
      const ht = el("text", {x: p.x, y: hy + 14, "text-anchor": "middle", "font-size": fitFont(label, BOX_W - 24, 11).toFixed(2), fill: "#222"}, hg);
      ht.textContent = label;
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

function linkColour(l) {
  if (l.link === "down") return "#000";
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
  const lines = document.querySelectorAll("#map line.link");
  fabric.links.forEach((l, i) => {
    const e = lines[i];
    if (!e) return;
    e.setAttribute("data-state", l.state);
    e.setAttribute("data-link", l.link);
    e.setAttribute("stroke", linkColour(l));
    e.setAttribute("stroke-width", l.state ? 3 : 1.2);
    e.setAttribute("stroke-dasharray", l.link === "up" ? "" : "6 4");
  });
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
    const cells = [x.kind, culprit, x.victims || "-", x.start.replace("T", " "), dur];
    for (const c of cells) tr.appendChild(document.createElement("td")).textContent = c;
    const td = tr.appendChild(document.createElement("td"));
    if (x.svg) {
      const a = td.appendChild(document.createElement("a"));
      a.href = "/svg/" + encodeURIComponent(x.svg);
      a.textContent = "graph";
    }
    tr.title = x.detail;
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

async function poll() {
  try {
    const [f, i] = await Promise.all([fetch("/api/fabric", {cache: "no-store"}), fetch("/api/incidents", {cache: "no-store"})]);
    if (!f.ok || !i.ok) throw new Error(`HTTP ${f.status} ${i.status}`);
    const snapshot = await f.json();
    incidents = await i.json();
    if (snapshot.pending) throw new Error("waiting for the analyzer's first snapshot");
    fabric = snapshot;
    const key = fabric.switches.map((s) => s.name + "/" + s.tier + "/" + s.hosts).join(",") + "|" + fabric.links.length;
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
    paintIncidents();
    await pollQueue();
    document.getElementById("time").textContent = fabric.time ? fabric.time.replace("T", " ").replace("Z", " UTC") : "-";
    document.getElementById("records").textContent = `${fmtInt(fabric.records)} records`;
    document.getElementById("status").textContent = "live";
    document.body.dataset.polls = ++polls;
  } catch (e) {
    document.getElementById("status").textContent = "no answer: " + e.message;
  }
  setTimeout(poll, POLL_MS);
}

window.addEventListener("hashchange", () => { if (fabric) { paintDevice(); pollQueue(); } });
window.addEventListener("resize", () => { layoutKey = ""; });
document.getElementById("device-close").addEventListener("click", (e) => { e.preventDefault(); location.hash = ""; });
poll();
