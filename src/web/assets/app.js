// The web view of a running sparse topology. Plain browser JavaScript, no build step, no
// dependencies: it polls the JSON API every second and redraws the numbers in place.
// Everything that comes from the topology (names, errors) is inserted as text, never as HTML.
"use strict";

(function () {
  const POLL_MS = 1000;
  const SVG_NS = "http://www.w3.org/2000/svg";

  const state = {
    id: null,
    graph: null,
    window: ":all-time",
    colourBy: "capacity",
    watermark: 1000,
    nodes: new Map(), // component id -> {shape, metric} SVG elements
    rows: { spouts: new Map(), bolts: new Map() },
    selected: null,
  };

  // ---- small helpers -------------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }

  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  const fmtInt = (n) => Number(n || 0).toLocaleString("en-US");
  const fmtMs = (v) => (v ? v.toFixed(v < 10 ? 2 : 1) : "0");
  const fmtFrac = (v) => (v || 0).toFixed(3);

  function fmtAge(secs) {
    if (secs === null || secs === undefined) return "";
    secs = Math.floor(secs);
    if (secs < 60) return secs + "s ago";
    if (secs < 3600) return Math.floor(secs / 60) + "m " + (secs % 60) + "s ago";
    return Math.floor(secs / 3600) + "h " + Math.floor((secs % 3600) / 60) + "m ago";
  }

  function fmtUptime(secs) {
    secs = Math.floor(secs || 0);
    const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60), s = secs % 60;
    return (h ? h + "h " : "") + (h || m ? m + "m " : "") + s + "s";
  }

  // 0 -> green, 0.5 -> yellow, 1 -> red; light enough to read dark text on.
  function heat(f) {
    f = Math.max(0, Math.min(1, f || 0));
    const hue = 130 * (1 - f);
    return "hsl(" + hue.toFixed(0) + ", 75%, " + (86 - 16 * f).toFixed(0) + "%)";
  }

  async function getJson(path) {
    const r = await fetch(path, { cache: "no-store" });
    if (!r.ok) throw new Error(path + ": HTTP " + r.status);
    return r.json();
  }

  const api = (suffix) => "api/v1/topology/" + encodeURIComponent(state.id) + (suffix || "");

  // ---- the graph -----------------------------------------------------------------------------

  const NODE_W = 204, NODE_H = 64, GAP_X = 170, GAP_Y = 40, PAD = 24, TOP = 64;
  const SLOT_H = 22; // height reserved in a layer for an edge passing through it

  // Edges that close a cycle (found by a depth-first search from the spouts, then from every
  // node not reached yet); the rest of the graph is acyclic and gets layered.
  function backEdges(n, edges) {
    const out = Array.from({ length: n }, () => []);
    edges.forEach((e, k) => out[e.s].push(k));
    const mark = new Array(n).fill(0); // 0 new, 1 on the stack, 2 done
    const back = new Set();
    const visit = (v) => {
      mark[v] = 1;
      for (const k of out[v]) {
        const w = edges[k].t;
        if (mark[w] === 1) back.add(k);
        else if (mark[w] === 0) visit(w);
      }
      mark[v] = 2;
    };
    for (let v = 0; v < n; v++) if (!edges.some((e) => e.t === v && e.s !== v) && !mark[v]) visit(v);
    for (let v = 0; v < n; v++) if (!mark[v]) visit(v);
    return back;
  }

  // Layered left to right (Sugiyama style): a node's layer is the longest path to it from a
  // source; an edge spanning several layers gets a slot in each layer it crosses, so it runs
  // between the nodes instead of through them; within a layer, nodes and slots are ordered by
  // the mean position of their neighbours.
  function layout(graph) {
    const n = graph.nodes.length;
    const index = new Map(graph.nodes.map((node, i) => [node.id, i]));
    const edges = graph.edges
      .filter((e) => index.has(e.source) && index.has(e.target))
      .map((e) => ({ s: index.get(e.source), t: index.get(e.target), e }));
    const back = backEdges(n, edges);
    edges.forEach((edge, k) => (edge.back = back.has(k) || edge.s === edge.t));

    const layer = new Array(n).fill(0);
    for (let pass = 0; pass < n; pass++) {
      let changed = false;
      for (const edge of edges) {
        if (!edge.back && layer[edge.t] < layer[edge.s] + 1) {
          layer[edge.t] = layer[edge.s] + 1;
          changed = true;
        }
      }
      if (!changed) break;
    }

    // Items: real nodes (0..n-1), then one slot per layer crossed by a long forward edge.
    const items = graph.nodes.map((_, i) => ({ layer: layer[i], height: NODE_H, real: true }));
    const links = []; // item -> item, for ordering
    for (const edge of edges) {
      edge.points = []; // the slots it passes through
      if (edge.back) continue;
      let from = edge.s;
      for (let l = layer[edge.s] + 1; l < layer[edge.t]; l++) {
        const slot = items.length;
        items.push({ layer: l, height: SLOT_H, real: false });
        edge.points.push(slot);
        links.push([from, slot]);
        from = slot;
      }
      links.push([from, edge.t]);
    }
    const depth = Math.max(0, ...items.map((it) => it.layer)) + 1;
    const layers = Array.from({ length: depth }, () => []);
    items.forEach((it, i) => layers[it.layer].push(i));

    const preds = items.map(() => []), succs = items.map(() => []);
    for (const [a, b] of links) {
      preds[b].push(a);
      succs[a].push(b);
    }
    const pos = new Array(items.length).fill(0);
    layers.forEach((l) => l.forEach((i, k) => (pos[i] = k)));
    const reorder = (l, neighbours) => {
      const key = new Map(l.map((i) => {
        const ns = neighbours[i];
        return [i, ns.length ? ns.reduce((a, j) => a + pos[j], 0) / ns.length : pos[i]];
      }));
      l.sort((a, b) => key.get(a) - key.get(b) || a - b);
      l.forEach((i, k) => (pos[i] = k));
    };
    for (let sweep = 0; sweep < 6; sweep++) {
      for (let li = 1; li < layers.length; li++) reorder(layers[li], preds);
      for (let li = layers.length - 2; li >= 0; li--) reorder(layers[li], succs);
    }

    const heightOf = (l) => l.reduce((h, i) => h + items[i].height, 0) + (l.length - 1) * GAP_Y;
    const inner = Math.max(NODE_H, ...layers.map(heightOf));
    const xy = new Array(items.length);
    layers.forEach((l, li) => {
      let y = TOP + (inner - heightOf(l)) / 2;
      for (const i of l) {
        xy[i] = { x: PAD + li * (NODE_W + GAP_X), y, h: items[i].height };
        y += items[i].height + GAP_Y;
      }
    });
    return {
      xy,
      layer,
      edges,
      width: PAD * 2 + depth * NODE_W + (depth - 1) * GAP_X,
      height: TOP + inner + PAD,
    };
  }

  function edgeLabel(e) {
    const first = e.stream + (e.fields && e.fields.length ? " [" + e.fields.join(", ") + "]" : "");
    const second = e.grouping +
      (e.groupingFields && e.groupingFields.length ? "(" + e.groupingFields.join(", ") + ")" : "");
    return [first, second];
  }

  // The path of a forward edge: out of the source's right side, straight through the slots it
  // crosses, into the target's left side; the label sits in the middle of its first hop.
  function forwardPath(L, edge, spread) {
    const a = L.xy[edge.s], b = L.xy[edge.t];
    const stops = [{ x: a.x + NODE_W, y: a.y + NODE_H / 2 + spread }];
    for (const slot of edge.points) {
      const p = L.xy[slot];
      stops.push({ x: p.x, y: p.y + p.h / 2 }, { x: p.x + NODE_W, y: p.y + p.h / 2 });
    }
    stops.push({ x: b.x, y: b.y + NODE_H / 2 + spread });
    let d = "M" + stops[0].x + "," + stops[0].y;
    for (let k = 1; k < stops.length; k++) {
      const p = stops[k - 1], q = stops[k];
      if (k % 2 === 0) {
        d += " L" + q.x + "," + q.y; // across a slot
      } else {
        const mx = (p.x + q.x) / 2;
        d += " C" + mx + "," + p.y + " " + mx + "," + q.y + " " + q.x + "," + q.y;
      }
    }
    return { d, lx: (stops[0].x + stops[1].x) / 2, ly: (stops[0].y + stops[1].y) / 2 };
  }

  // A backward edge (closing a cycle) or a self-loop: an arc over the top of every node between.
  function backPath(L, edge, k) {
    const a = L.xy[edge.s], b = L.xy[edge.t];
    if (edge.s === edge.t) {
      const x = a.x + NODE_W / 2, lift = 34 + 14 * k;
      return {
        d: "M" + (x - 30) + "," + a.y + " C" + (x - 40) + "," + (a.y - lift) + " " + (x + 40) +
          "," + (a.y - lift) + " " + (x + 30) + "," + a.y,
        lx: x, ly: a.y - lift + 2,
      };
    }
    const lo = Math.min(L.layer[edge.s], L.layer[edge.t]);
    const hi = Math.max(L.layer[edge.s], L.layer[edge.t]);
    let top = Math.min(a.y, b.y);
    L.edges.forEach((other) => {
      for (const v of [other.s, other.t]) {
        if (L.layer[v] >= lo && L.layer[v] <= hi) top = Math.min(top, L.xy[v].y);
      }
    });
    top -= 36 + 12 * k;
    const x1 = a.x + NODE_W / 2 + 12 * k, x2 = b.x + NODE_W / 2 + 12 * k;
    return {
      d: "M" + x1 + "," + a.y + " C" + x1 + "," + top + " " + x2 + "," + top + " " + x2 + "," + b.y,
      lx: (x1 + x2) / 2, ly: top + 8,
    };
  }

  function drawGraph(graph) {
    const box = document.getElementById("graph");
    clear(box);
    state.nodes.clear();
    const L = layout(graph);
    // Arcs of backward edges rise above the layout: make room for them.
    let rise = 0;
    const paths = new Map();
    const groups = new Map();
    for (const edge of L.edges) {
      const key = edge.s + ">" + edge.t;
      groups.set(key, (groups.get(key) || []).concat([edge]));
    }
    for (const list of groups.values()) {
      list.forEach((edge, k) => {
        const p = edge.back ? backPath(L, edge, k)
          : forwardPath(L, edge, (k - (list.length - 1) / 2) * 16);
        paths.set(edge, p);
      });
    }
    // Labels in the same gap between two layers are pushed apart vertically so none overlaps.
    const columns = new Map();
    for (const p of paths.values()) {
      const key = Math.round(p.lx / 10);
      columns.set(key, (columns.get(key) || []).concat([p]));
    }
    for (const column of columns.values()) {
      column.sort((a, b) => a.ly - b.ly);
      for (let k = 1; k < column.length; k++) {
        column[k].ly = Math.max(column[k].ly, column[k - 1].ly + 30);
      }
    }
    for (const p of paths.values()) rise = Math.max(rise, -(p.ly - 24));
    const lowest = Math.max(0, ...[...paths.values()].map((p) => p.ly + 16));
    const height = Math.max(L.height, lowest) + rise;
    const root = svg("svg", {
      width: L.width, height, viewBox: "0 " + -rise + " " + L.width + " " + height,
      role: "img", "aria-label": "topology graph",
    });
    const defs = svg("defs");
    const marker = svg("marker", {
      id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerUnits: "userSpaceOnUse",
      markerWidth: "11", markerHeight: "11", orient: "auto-start-reverse",
    });
    marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#8a93a3" }));
    defs.append(marker);
    root.append(defs);

    const edgeLayer = svg("g", { class: "edges" });
    const labelLayer = svg("g", { class: "labels" });
    for (const edge of L.edges) {
      const { d, lx, ly } = paths.get(edge);
      const cls = "edge" + (edge.e.grouping === "all" ? " all" : "") +
        (edge.e.grouping === "direct" ? " direct" : "");
      const g = svg("g", {
        class: cls, "data-source": edge.e.source, "data-target": edge.e.target,
        "data-stream": edge.e.stream,
      });
      g.append(svg("path", { d, "marker-end": "url(#arrow)" }));
      edgeLayer.append(g);
      const [first, second] = edgeLabel(edge.e);
      const label = svg("g", { class: "edge" });
      label.append(svg("text", { x: lx, y: ly - 4, "text-anchor": "middle" }, first));
      label.append(svg("text", { x: lx, y: ly + 10, "text-anchor": "middle" }, second));
      labelLayer.append(label);
    }
    root.append(edgeLayer);

    graph.nodes.forEach((node, i) => {
      const { x, y } = L.xy[i];
      const g = svg("g", {
        class: "node " + node.type, "data-node": node.id, transform: "translate(" + x + "," + y + ")",
      });
      let shape;
      if (node.type === "spout") {
        const p = [[0, 0], [NODE_W - 16, 0], [NODE_W, NODE_H / 2], [NODE_W - 16, NODE_H], [0, NODE_H]];
        shape = svg("polygon", {
          points: p.map((q) => q.join(",")).join(" "), stroke: "#ef8a17", "stroke-width": 2,
        });
      } else {
        shape = svg("rect", {
          width: NODE_W, height: NODE_H, rx: 10, stroke: "#2f6fd0", "stroke-width": 2,
        });
      }
      shape.setAttribute("fill", "#ffffff");
      const title = svg("title", {}, node.id + " (" + node.type + ", parallelism " +
        node.parallelism + ")\n" + node.runs);
      g.append(title, shape);
      g.append(svg("text", { class: "name", x: 12, y: 20 }, node.id));
      g.append(svg("text", { class: "sub", x: 12, y: 37 },
        node.type + " \u00d7 " + node.parallelism));
      const metric = svg("text", { class: "sub metric", x: 12, y: 54 }, "");
      g.append(metric);
      g.addEventListener("click", () => select(node.id));
      root.append(g);
      state.nodes.set(node.id, { shape, metric, type: node.type });
    });
    root.append(labelLayer);
    box.append(root);
  }

  // What the node's colour means, as a fraction from 0 (fine) to 1 (saturated).
  function pressure(c, covered) {
    if (state.colourBy === "capacity") return c.type === "bolt" ? c.capacity : null;
    if (c.type === "spout") {
      const span = Math.max(1, covered) * 1000 * Math.max(1, c.tasks);
      return c.backpressureMs / span;
    }
    return c.queueDepth / Math.max(1, state.watermark);
  }

  function nodeMetric(c, covered) {
    if (state.colourBy === "capacity") {
      return c.type === "bolt"
        ? "capacity " + fmtFrac(c.capacity) + " \u00b7 exec " + fmtInt(c.executed)
        : "emitted " + fmtInt(c.emitted) + " \u00b7 pending " + fmtInt(c.pending);
    }
    return c.type === "bolt"
      ? "queue " + fmtInt(c.queueDepth) + " / " + fmtInt(state.watermark)
      : "throttled " + (100 * pressure(c, covered)).toFixed(1) + "%";
  }

  function colourGraph(t) {
    for (const c of t.spouts.concat(t.bolts)) {
      const n = state.nodes.get(c.id);
      if (!n) continue;
      const f = pressure(c, t.windowCoveredSecs);
      n.shape.setAttribute("fill", f === null ? "#fff3e0" : heat(f));
      n.metric.textContent = nodeMetric(c, t.windowCoveredSecs);
    }
  }

  function drawLegend() {
    const box = document.getElementById("legend");
    clear(box);
    const item = (colour, text, border) => {
      const s = el("span", { class: "swatch" });
      s.style.background = colour;
      if (border) s.style.borderColor = border;
      return el("span", {}, s, text);
    };
    box.append(item("#fff3e0", "spout", "#ef8a17"), item("#ffffff", "bolt", "#2f6fd0"));
    const what = state.colourBy === "capacity"
      ? "bolt capacity (busy fraction of its busiest task)"
      : "spouts: share of time throttled; bolts: queue depth / high watermark";
    box.append(item(heat(0), "0"), item(heat(0.5), "0.5"), item(heat(1), "1"), el("span", {}, what));
    box.append(el("span", {}, "edges: stream [fields], grouping(fields); bold: all, dashed: direct"));
  }

  // ---- tables --------------------------------------------------------------------------------

  const LAST_ERROR = { key: "lastError", title: "last error", kind: "error" };
  const COLUMNS = {
    spouts: [
      { key: "id", title: "spout", kind: "text" },
      { key: "tasks", title: "tasks" },
      { key: "emitted", title: "emitted" },
      { key: "transferred", title: "transferred" },
      { key: "acked", title: "acked" },
      { key: "failed", title: "failed", bad: true },
      { key: "timedOut", title: "timed out", bad: true },
      { key: "completeLatency", title: "complete latency ms", fmt: fmtMs },
      { key: "pending", title: "pending" },
      { key: "backpressureMs", title: "throttled ms" },
      { key: "errors", title: "errors", bad: true },
      { key: "restarts", title: "restarts", bad: true },
      LAST_ERROR,
    ],
    bolts: [
      { key: "id", title: "bolt", kind: "text" },
      { key: "tasks", title: "tasks" },
      { key: "executed", title: "executed" },
      { key: "emitted", title: "emitted" },
      { key: "transferred", title: "transferred" },
      { key: "acked", title: "acked" },
      { key: "failed", title: "failed", bad: true },
      { key: "processLatency", title: "process latency ms", fmt: fmtMs },
      { key: "executeLatency", title: "execute latency ms", fmt: fmtMs },
      { key: "capacity", title: "capacity", kind: "capacity" },
      { key: "queueDepth", title: "queue" },
      { key: "pending", title: "in flight" },
      { key: "errors", title: "errors", bad: true },
      { key: "restarts", title: "restarts", bad: true },
      LAST_ERROR,
    ],
  };

  function updateCell(td, col, c) {
    const v = c[col.key];
    if (col.kind === "text") {
      td.textContent = v;
      return;
    }
    if (col.kind === "error") {
      // Its first line only (a traceback is in the errors panel, a click away); all of it on hover.
      td.className = "error text";
      const first = v ? v.split("\n").find((l) => l.trim()) || "" : "";
      td.textContent = v ? first + (first !== v.trim() ? " \u2026" : "") + " (" +
        fmtAge(c.errorAgeSecs) + ")" : "";
      td.title = v || "";
      return;
    }
    td.dataset.value = String(v);
    if (col.kind === "capacity") {
      clear(td);
      const fill = el("span");
      fill.style.width = Math.round(100 * Math.min(1, v)) + "%";
      fill.style.background = heat(v);
      td.append(fmtFrac(v), el("span", { class: "bar" }, fill));
      return;
    }
    td.textContent = col.fmt ? col.fmt(v) : fmtInt(v);
    td.className = v === 0 ? "zero" : col.bad ? "bad" : "";
  }

  function updateTable(kind, list) {
    const table = document.getElementById(kind);
    const cols = COLUMNS[kind];
    const rows = state.rows[kind];
    if (!table.tHead) {
      const head = table.createTHead().insertRow();
      for (const col of cols) {
        head.append(el("th", { class: col.kind === "text" || col.kind === "error" ? "text" : "" },
          col.title));
      }
      table.createTBody();
    }
    if (!list.length) {
      if (!table.tBodies[0].rows.length) {
        const r = table.tBodies[0].insertRow();
        r.append(el("td", { class: "empty", colspan: cols.length }, "none"));
      }
      return;
    }
    for (const c of list) {
      let row = rows.get(c.id);
      if (!row) {
        if (!rows.size) clear(table.tBodies[0]);
        row = table.tBodies[0].insertRow();
        row.dataset.component = c.id;
        for (const col of cols) row.insertCell().dataset.field = col.key;
        row.addEventListener("click", () => select(c.id));
        rows.set(c.id, row);
      }
      cols.forEach((col, i) => updateCell(row.cells[i], col, c));
    }
  }

  function card(label, value, bad, field) {
    const attrs = { class: "card" + (bad ? " bad" : "") };
    if (field) attrs["data-field"] = field;
    return el("div", attrs, el("div", { class: "label" }, label),
      el("div", { class: "value" }, value));
  }

  function updateOverview(t) {
    const all = t.topologyStats.find((s) => s.window === ":all-time");
    const w = t.topologyStats.find((s) => s.window === t.window) || all;
    const rate = t.throughput.coveredSecs > 0
      ? fmtInt(Math.round(t.throughput.emittedPerSec)) + "/s" : "\u2013";
    const box = document.getElementById("overview");
    clear(box);
    box.append(
      card("uptime", fmtUptime(t.uptimeSecs)),
      card("tasks ready", t.tasksReady + " / " + t.tasksTotal),
      card("emitted (all components)", fmtInt(w.emitted), false, "emitted"),
      card("emitted, last " + t.throughput.window + " s", rate, false, "throughput"),
      card("acked (spout trees)", fmtInt(w.acked)),
      card("failed (spout trees)", fmtInt(w.failed), w.failed > 0),
      card("complete latency", fmtMs(w.completeLatency) + " ms"),
      card("pending trees", fmtInt(t.pendingTrees)),
      card("errors", fmtInt(w.errors), w.errors > 0),
      card("restarts", fmtInt(w.restarts), w.restarts > 0),
      card("backpressure", t.backpressure ? "on" : "off", t.backpressure),
    );
  }

  // A group of repeated errors: one row with its count, first and last time and first line;
  // the whole newest text (a traceback) opens on a click. Open ones stay open across polls.
  const openErrors = new Set();

  function updateErrors(groups) {
    const table = document.getElementById("errors");
    clear(table);
    if (!groups.length) {
      table.append(el("tbody", {}, el("tr", {}, el("td", { class: "empty" }, "no errors"))));
      return;
    }
    const head = el("tr", {}, el("th", { class: "text" }, "component"), el("th", {}, "count"),
      el("th", { class: "text" }, "first"), el("th", { class: "text" }, "last"),
      el("th", { class: "text" }, "tasks"), el("th", { class: "text" }, "error"));
    const body = el("tbody");
    const time = (ms) => new Date(ms).toLocaleTimeString();
    for (const g of groups) {
      const key = g.component + "\u0000" + g.firstTime;
      const details = el("details", { class: "error-group" },
        el("summary", {}, g.firstLine || "(empty)"), el("pre", {}, g.error));
      if (openErrors.has(key)) details.open = true;
      details.addEventListener("toggle", () => {
        if (details.open) openErrors.add(key);
        else openErrors.delete(key);
      });
      body.append(el("tr", { "data-component": g.component, "data-count": g.count },
        el("td", { class: "text" }, g.component),
        el("td", { class: g.count > 1 ? "bad" : "" }, fmtInt(g.count)),
        el("td", { class: "text" }, time(g.firstTime)),
        el("td", { class: "text" }, time(g.lastTime) + " (" + fmtAge(g.errorLapsedSecs) + ")"),
        el("td", { class: "text" }, g.tasks.join(", ")),
        el("td", { class: "message" }, details)));
    }
    table.append(el("thead", {}, head), body);
  }

  // Gauges, now: Kafka's per-partition lag and uncommitted offsets as one table (a row per
  // partition), every other gauge (records/s, in flight, ...) as component / name / value.
  const PARTITION_GAUGE = /^kafka\.(lag|uncommitted)\.(.+)$/;

  function fmtGauge(v) {
    return Number.isInteger(v) ? fmtInt(v) : Number(v).toFixed(Math.abs(v) < 10 ? 2 : 1);
  }

  function updateGauges(components) {
    const partitions = new Map(); // component \0 partition -> {component, partition, lag, uncommitted}
    const rows = [];
    for (const c of components) {
      for (const [name, value] of Object.entries(c.gauges || {})) {
        const m = PARTITION_GAUGE.exec(name);
        if (m) {
          const key = c.id + "\u0000" + m[2];
          const p = partitions.get(key) || { component: c.id, partition: m[2] };
          p[m[1]] = value;
          partitions.set(key, p);
        } else {
          rows.push({ component: c.id, name, value });
        }
      }
    }
    document.getElementById("gauges-panel").hidden = !rows.length && !partitions.size;

    const ptable = document.getElementById("partitions");
    clear(ptable);
    if (partitions.size) {
      ptable.append(el("thead", {}, el("tr", {}, el("th", { class: "text" }, "component"),
        el("th", { class: "text" }, "partition"), el("th", {}, "lag"),
        el("th", {}, "uncommitted"))));
      const body = el("tbody");
      const list = [...partitions.values()].sort((a, b) =>
        a.component.localeCompare(b.component) || a.partition.localeCompare(b.partition, "en",
          { numeric: true }));
      for (const p of list) {
        const lag = el("td", { "data-field": "lag", "data-value": String(p.lag ?? "") },
          p.lag === undefined ? "" : fmtGauge(p.lag));
        if (p.lag > 0) lag.className = "bad";
        body.append(el("tr", { "data-component": p.component, "data-partition": p.partition },
          el("td", { class: "text" }, p.component), el("td", { class: "text" }, p.partition), lag,
          el("td", {}, p.uncommitted === undefined ? "" : fmtGauge(p.uncommitted))));
      }
      ptable.append(body);
    }

    const gtable = document.getElementById("gauges");
    clear(gtable);
    if (rows.length) {
      gtable.append(el("thead", {}, el("tr", {}, el("th", { class: "text" }, "component"),
        el("th", { class: "text" }, "gauge"), el("th", {}, "value"))));
      const body = el("tbody");
      rows.sort((a, b) => a.component.localeCompare(b.component) || a.name.localeCompare(b.name));
      for (const r of rows) {
        body.append(el("tr", { "data-component": r.component, "data-gauge": r.name },
          el("td", { class: "text" }, r.component), el("td", { class: "text" }, r.name),
          el("td", { "data-value": String(r.value) }, fmtGauge(r.value))));
      }
      gtable.append(body);
    }
  }

  // The effective configuration, one row per key; it does not change during a run.
  function drawConfiguration(conf) {
    const table = document.getElementById("configuration");
    clear(table);
    const keys = Object.keys(conf || {}).sort();
    if (!keys.length) {
      table.append(el("tbody", {}, el("tr", {}, el("td", { class: "empty" }, "none"))));
      return;
    }
    table.append(el("thead", {}, el("tr", {}, el("th", { class: "text" }, "key"),
      el("th", { class: "text" }, "value"))));
    const body = el("tbody");
    for (const k of keys) {
      const v = conf[k];
      body.append(el("tr", { "data-config-key": k }, el("td", { class: "text" }, k),
        el("td", { class: "text value" }, typeof v === "string" ? v : JSON.stringify(v))));
    }
    table.append(body);
  }

  // ---- charts --------------------------------------------------------------------------------

  const CHART_W = 420, CHART_H = 150, CHART_PAD = { l: 52, r: 10, t: 10, b: 22 };
  const PALETTE = ["#2f6fd0", "#ef8a17", "#2e7d32", "#c62828", "#7b1fa2", "#00838f", "#6d4c41"];

  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }

  function fmtAxis(v) {
    if (v >= 1e6) return (v / 1e6).toFixed(v % 1e6 ? 1 : 0) + "M";
    if (v >= 1e3) return (v / 1e3).toFixed(v % 1e3 ? 1 : 0) + "k";
    return String(Math.round(v * 100) / 100);
  }

  // One line chart: `series` is [{name, values}], all over the same x (uptime seconds).
  function lineChart(id, title, unit, xs, series, fixedMax) {
    const w = CHART_W - CHART_PAD.l - CHART_PAD.r, h = CHART_H - CHART_PAD.t - CHART_PAD.b;
    const all = series.flatMap((s) => s.values);
    const max = fixedMax || niceMax(Math.max(0, ...all));
    const x0 = xs[0], x1 = xs[xs.length - 1];
    const px = (x) => CHART_PAD.l + (x1 > x0 ? ((x - x0) / (x1 - x0)) * w : w);
    const py = (y) => CHART_PAD.t + h - (Math.min(y, max) / max) * h;
    const root = svg("svg", {
      class: "chart", "data-chart": id, viewBox: "0 0 " + CHART_W + " " + CHART_H,
      width: CHART_W, height: CHART_H, role: "img", "aria-label": title,
    });
    for (const f of [0, 0.5, 1]) {
      const y = py(max * f);
      root.append(svg("line", { class: "grid", x1: CHART_PAD.l, x2: CHART_PAD.l + w, y1: y, y2: y }));
      root.append(svg("text", { class: "axis", x: CHART_PAD.l - 6, y: y + 4, "text-anchor": "end" },
        fmtAxis(max * f)));
    }
    root.append(svg("text", { class: "axis", x: CHART_PAD.l, y: CHART_H - 6 },
      fmtUptime(x0)), svg("text", { class: "axis", x: CHART_PAD.l + w, y: CHART_H - 6,
      "text-anchor": "end" }, fmtUptime(x1)));
    series.forEach((s, k) => {
      const pts = s.values.map((v, i) => px(xs[i]).toFixed(1) + "," + py(v).toFixed(1)).join(" ");
      root.append(svg("polyline", {
        points: pts, fill: "none", stroke: PALETTE[k % PALETTE.length], "stroke-width": 1.8,
        "data-series": s.name, "data-points": s.values.length,
        "data-last": String(s.values[s.values.length - 1] ?? ""),
      }));
    });
    const legend = el("div", { class: "chart-legend" });
    series.forEach((s, k) => {
      const sw = el("span", { class: "swatch" });
      sw.style.background = PALETTE[k % PALETTE.length];
      const last = s.values[s.values.length - 1];
      legend.append(el("span", {}, sw, s.name + " " + (last === undefined ? "" : fmtAxis(last))));
    });
    return el("figure", { class: "chart-box" }, el("figcaption", {}, title + " (" + unit + ")"),
      root, legend);
  }

  function drawCharts(history) {
    const box = document.getElementById("charts");
    const points = history.points || [];
    clear(box);
    if (points.length < 2) {
      box.append(el("p", { class: "empty" }, "collecting (a point per status report)\u2026"));
      return;
    }
    const xs = points.map((p) => p.uptimeSecs);
    const col = (key) => points.map((p) => p[key] || 0);
    const bolts = [...new Set(points.flatMap((p) => Object.keys(p.capacity || {})))].sort();
    box.append(
      lineChart("throughput", "Throughput", "tuples/s", xs, [
        { name: "emitted", values: col("emittedPerSec") },
        { name: "acked", values: col("ackedPerSec") },
        { name: "executed", values: col("executedPerSec") },
      ]),
      lineChart("latency", "Complete latency", "ms", xs,
        [{ name: "complete", values: col("completeLatency") }]),
      lineChart("capacity", "Capacity", "busy fraction", xs,
        bolts.map((b) => ({ name: b, values: points.map((p) => (p.capacity || {})[b] || 0) })), 1),
    );
  }

  // ---- run controls --------------------------------------------------------------------------

  // The token the server embedded in the page; without one the run has no controls.
  function controlToken() {
    const m = document.querySelector('meta[name="sparse-token"]');
    const t = m ? m.getAttribute("content") : "";
    return t && !t.startsWith("__") ? t : "";
  }

  async function control(operation) {
    const out = document.getElementById("control-result");
    out.textContent = operation + "\u2026";
    try {
      const r = await fetch(api("/" + operation), {
        method: "POST", cache: "no-store", headers: { "X-Sparse-Token": controlToken() },
      });
      const body = await r.json();
      out.textContent = r.ok ? operation.split("/")[0] + ": " + body.status
        : operation.split("/")[0] + " refused: " + body.errorMessage;
      out.dataset.result = r.ok ? "ok" : "refused";
    } catch (err) {
      out.textContent = operation + " failed: " + err.message;
      out.dataset.result = "failed";
    }
  }

  function setUpControls() {
    if (!controlToken()) return;
    document.getElementById("run-controls").hidden = false;
    document.getElementById("deactivate").addEventListener("click", () => control("deactivate"));
    document.getElementById("activate").addEventListener("click", () => control("activate"));
    // Kill asks twice: the first click arms the button for a few seconds.
    const kill = document.getElementById("kill");
    let armed = null;
    kill.addEventListener("click", () => {
      if (!armed) {
        kill.textContent = "really kill?";
        armed = setTimeout(() => {
          armed = null;
          kill.textContent = "kill";
        }, 5000);
        return;
      }
      clearTimeout(armed);
      armed = null;
      kill.textContent = "kill";
      const wait = Math.max(0, Math.floor(Number(document.getElementById("kill-wait").value) || 0));
      control("kill/" + wait);
    });
  }

  function updateControls(t) {
    document.getElementById("deactivate").disabled = !(t.state === "running" && t.active);
    document.getElementById("activate").disabled = !(t.state === "running" && !t.active);
    document.getElementById("kill").disabled = t.state !== "running";
  }

  // ---- one component -------------------------------------------------------------------------

  // The selected component is also in the address (#component=ID), so it can be linked to.
  function select(id) {
    state.selected = id;
    document.getElementById("details").hidden = false;
    history.replaceState(null, "", "#component=" + encodeURIComponent(id));
    if (state.id) refreshDetails();
  }

  function listTable(headers, rows) {
    if (!rows.length) return el("p", { class: "empty" }, "none");
    const t = el("table");
    t.append(el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", { class: "text" }, h)))));
    const b = el("tbody");
    for (const r of rows) b.append(el("tr", {}, ...r.map((v) => el("td", { class: "text" }, v))));
    t.append(b);
    return t;
  }

  // Storm UI's executors table: a row per task (sparse runs an executor per task).
  function taskTable(c) {
    const bolt = c.componentType === "bolt";
    const cols = bolt
      ? [["executed", fmtInt], ["emitted", fmtInt], ["transferred", fmtInt], ["acked", fmtInt],
        ["failed", fmtInt], ["processLatency", fmtMs], ["executeLatency", fmtMs],
        ["capacity", fmtFrac], ["queueDepth", fmtInt], ["pending", fmtInt], ["restarts", fmtInt]]
      : [["emitted", fmtInt], ["transferred", fmtInt], ["acked", fmtInt], ["failed", fmtInt],
        ["completeLatency", fmtMs], ["pending", fmtInt], ["backpressureMs", fmtInt],
        ["restarts", fmtInt]];
    const rows = c.executorStats || [];
    if (!rows.length) return el("p", { class: "empty" }, "none");
    const t = el("table", { class: "tasks" });
    t.append(el("thead", {}, el("tr", {}, el("th", { class: "text" }, "task"),
      el("th", { class: "text" }, "pid"), ...cols.map(([k]) => el("th", {}, k)))));
    const b = el("tbody");
    for (const r of rows) {
      b.append(el("tr", { "data-task": r.task },
        el("td", { class: "text" }, r.id + (r.ready ? "" : " (not ready)")),
        el("td", { class: "text" }, r.pid > 0 ? String(r.pid) : "–"),
        ...cols.map(([k, f]) => el("td", { "data-field": k, "data-value": String(r[k]) }, f(r[k])))));
    }
    t.append(b);
    return t;
  }

  async function refreshDetails() {
    if (!state.selected) return;
    let c;
    try {
      c = await getJson(api("/component/" + encodeURIComponent(state.selected)) +
        "?window=" + encodeURIComponent(state.window));
    } catch (err) {
      return;
    }
    document.getElementById("details-name").textContent = c.id + " (" + c.componentType + ")";
    const body = document.getElementById("details-body");
    clear(body);
    const join = (a) => (a && a.length ? a.join(", ") : "");
    const windows = c.spoutSummary || c.boltStats || [];
    body.append(
      el("div", {}, el("h3", {}, "Runs"), el("p", {}, c.runs),
        el("h3", {}, "Log file"), el("p", {}, c.logFile || "(none)")),
      el("div", {}, el("h3", {}, "Windows"), listTable(
        ["window", "emitted", "acked", "failed", c.componentType === "bolt" ? "executed" : "pending"],
        windows.map((w) => [w.windowPretty, fmtInt(w.emitted), fmtInt(w.acked), fmtInt(w.failed),
          fmtInt(c.componentType === "bolt" ? w.executed : w.pending)]))),
      el("div", {}, el("h3", {}, "Inputs"), listTable(["from", "stream", "grouping", "fields"],
        c.inputs.map((i) => [i.component, i.stream, i.grouping + (i.groupingFields.length ?
          "(" + join(i.groupingFields) + ")" : ""), join(i.fields)]))),
      el("div", {}, el("h3", {}, "Outputs"), listTable(["stream", "fields", "to"],
        c.outputs.map((o) => [o.stream + (o.direct ? " (direct)" : ""), join(o.fields),
          o.subscribers.map((s) => s.component + " (" + s.grouping + ")").join(", ")]))),
      el("div", { class: "wide" }, el("h3", {}, "Tasks"), taskTable(c)),
      el("div", {}, el("h3", {}, "Output stats"), listTable(["stream", "emitted", "transferred"],
        (c.outputStats || []).map((o) => [o.stream, fmtInt(o.emitted), fmtInt(o.transferred)]))),
      el("div", {}, el("h3", {}, "Errors"), listTable(["last", "count", "tasks", "error"],
        (c.componentErrorGroups || []).map((g) => [fmtAge(g.errorLapsedSecs), fmtInt(g.count),
          g.tasks.join(", "), g.firstLine]))),
    );
  }

  // ---- polling -------------------------------------------------------------------------------

  function setState(text) {
    const s = document.getElementById("state");
    s.textContent = text;
    s.className = "state " + text;
  }

  async function poll() {
    try {
      if (!state.id) {
        const summary = await getJson("api/v1/topology/summary");
        const topo = summary.topologies[0];
        state.id = topo.id;
        document.getElementById("topology-name").textContent = topo.name;
        document.title = topo.name + " \u00b7 sparse";
        const links = document.getElementById("api-links");
        links.append(" \u00b7 ", el("a", { href: api() }, api()),
          " \u00b7 ", el("a", { href: api("/graph") }, api("/graph")));
      }
      if (!state.graph) {
        state.graph = await getJson(api("/graph"));
        drawGraph(state.graph);
        drawLegend();
      }
      const t = await getJson(api("?window=" + encodeURIComponent(state.window)));
      if (t.configuration && t.configuration["sparse.queue.high.watermark"]) {
        state.watermark = Number(t.configuration["sparse.queue.high.watermark"]);
      }
      setState(t.state === "running" && !t.active ? "inactive" : t.state);
      for (const h of document.querySelectorAll(".window-hint")) {
        h.textContent = t.windowHint + (t.window === ":all-time" ? "" :
          " (covering " + fmtUptime(t.windowCoveredSecs) + ")");
      }
      updateOverview(t);
      colourGraph(t);
      updateTable("spouts", t.spouts);
      updateTable("bolts", t.bolts);
      updateErrors(t.errorGroups || []);
      updateGauges(t.spouts.concat(t.bolts));
      updateControls(t);
      if (!state.configDrawn) {
        drawConfiguration(t.configuration);
        state.configDrawn = true;
      }
      drawCharts(await getJson(api("/history")));
      if (state.selected) refreshDetails();
      document.body.dataset.updated = String(Date.now());
    } catch (err) {
      setState("disconnected");
    }
    setTimeout(poll, POLL_MS);
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("window").addEventListener("change", (e) => {
      state.window = e.target.value; // used from the next poll on
    });
    document.getElementById("colour-by").addEventListener("change", (e) => {
      state.colourBy = e.target.value;
      drawLegend();
    });
    document.getElementById("details-close").addEventListener("click", () => {
      state.selected = null;
      document.getElementById("details").hidden = true;
      history.replaceState(null, "", "#");
    });
    setUpControls();
    const linked = /^#component=(.+)$/.exec(location.hash);
    if (linked) select(decodeURIComponent(linked[1]));
    poll();
  });
})();
