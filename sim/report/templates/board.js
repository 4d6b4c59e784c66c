"use strict";
// The table drawn as SVG from sim.report.board.table_data, as the report's picture draws it
// (sim/report/table_picture.py): landscape cards (long sides north and south, R1.1), a box
// shaded by its leader's colour (tied leaders grey and hatched), thick lines for walls,
// awake cats and the Princess as ovals across the long seam of their two cards (R4.1, R6.1),
// sleeping cats as dashed ovals on one card (R3.2), items on the middle of their seam (R5.1),
// and each box's value (after doubling, R8.4) in its north-west card, "c" when closed.
// Shared by the live table (sim table) and the replay page (sim replay).
const BOARD = (() => {
  const W = 100, H = 60;  // a card's long and short sides
  const SVGNS = "http://www.w3.org/2000/svg";
  const WALL = {N: 1, E: 2, S: 4, W: 8};
  const TIED = "#bbbbbb", UNLED = "#faf8f2";
  const SHAPES = ["circle", "square", "triangle", "diamond", "down", "plus", "star", "hexagon"];
  let colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"];

  function el(name, attrs, parent, text) {
    const node = document.createElementNS(SVGNS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function colour(seat) { return colours[seat % colours.length]; }
  function wallsOf(name) {  // "box:NE" -> mask
    let m = 0;
    for (const ch of name.slice(4)) m |= WALL[ch] || 0;
    return m;
  }
  function turnedMask(m) { return ((m & 3) << 2) | ((m >> 2) & 3); }
  function centre(r, c) { return [c * W + W / 2, r * H + H / 2]; }

  function markerPath(shape, x, y, s) {
    const p = (pts) => "M" + pts.map(([a, b]) => `${(x + a * s).toFixed(1)},${(y + b * s).toFixed(1)}`).join("L") + "Z";
    switch (shape) {
      case "square": return p([[-1, -1], [1, -1], [1, 1], [-1, 1]]);
      case "triangle": return p([[0, -1.2], [1.1, 0.9], [-1.1, 0.9]]);
      case "diamond": return p([[0, -1.3], [1.1, 0], [0, 1.3], [-1.1, 0]]);
      case "down": return p([[0, 1.2], [1.1, -0.9], [-1.1, -0.9]]);
      case "plus": return p([[-0.4, -1.2], [0.4, -1.2], [0.4, -0.4], [1.2, -0.4], [1.2, 0.4], [0.4, 0.4],
                             [0.4, 1.2], [-0.4, 1.2], [-0.4, 0.4], [-1.2, 0.4], [-1.2, -0.4], [-0.4, -0.4]]);
      case "star": {
        const pts = [];
        for (let i = 0; i < 10; i++) {
          const a = -Math.PI / 2 + i * Math.PI / 5, r = i % 2 ? 0.55 : 1.3;
          pts.push([r * Math.cos(a), r * Math.sin(a)]);
        }
        return p(pts);
      }
      case "hexagon": {
        const pts = [];
        for (let i = 0; i < 6; i++) pts.push([1.15 * Math.cos(i * Math.PI / 3), 1.15 * Math.sin(i * Math.PI / 3)]);
        return p(pts);
      }
      default: return `M${x - s},${y}a${s},${s} 0 1,0 ${2 * s},0a${s},${s} 0 1,0 ${-2 * s},0Z`;
    }
  }

  function item(g, kind, x, y, kinds, scale) {
    const s = 7 * (scale || 1);
    if (kind === "sprayer") {
      el("path", {d: `M${x - s},${y - s}L${x + s},${y + s}M${x + s},${y - s}L${x - s},${y + s}`,
                  stroke: "#fff", "stroke-width": 6 * (scale || 1), "stroke-linecap": "round"}, g);
      el("path", {d: `M${x - s},${y - s}L${x + s},${y + s}M${x + s},${y - s}L${x - s},${y + s}`,
                  stroke: "#c00000", "stroke-width": 3.5 * (scale || 1), "stroke-linecap": "round",
                  class: "sprayer"}, g);
      return;
    }
    const k = Math.max(0, kinds.indexOf(kind));
    el("path", {d: markerPath(SHAPES[k % SHAPES.length], x, y, s * 0.8), fill: "#f5d000",
                stroke: "#000", "stroke-width": 1.2, class: "toy"}, g);
  }

  function oval(g, r, c, fill, label, textFill, cls) {
    const [x, y] = centre(r, c);
    el("ellipse", {cx: x, cy: y + H / 2, rx: W * 0.25, ry: H * 0.725, fill, stroke: "#000",
                   "stroke-width": 1.2, class: cls}, g);
    el("text", {x, y: y + H * 0.16, "text-anchor": "middle", "dominant-baseline": "middle",
                "font-size": 15, "font-weight": "bold", fill: textFill}, g, label);
  }

  function bounds(table, opt) {
    const cells = table.cards.map((c) => [c[0], c[1]]);
    for (const t of opt.targets || []) {
      if (t.at) cells.push(t.at);
      if (t.between) cells.push(...t.between);
    }
    if (!cells.length) cells.push([0, 0]);
    const rim = opt.rim || 0;
    const rows = cells.map((c) => c[0]), cols = cells.map((c) => c[1]);
    return {r0: Math.min(...rows) - rim, r1: Math.max(...rows) + rim,
            c0: Math.min(...cols) - rim, c1: Math.max(...cols) + rim};
  }

  // Where a click fell: its cell, the nearest seam of that cell, and the north-south pair
  // (the cell and its neighbour across the nearer long side).
  function locate(svg, evt) {
    const pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const r = Math.floor(p.y / H), c = Math.floor(p.x / W);
    const dx = p.x / W - c, dy = p.y / H - r;
    const d = {N: dy * H, S: (1 - dy) * H, W: dx * W, E: (1 - dx) * W};
    const side = Object.keys(d).reduce((a, b) => (d[a] <= d[b] ? a : b));
    const step = {N: [-1, 0], S: [1, 0], E: [0, 1], W: [0, -1]}[side];
    const other = [r + step[0], c + step[1]];
    const north = dy < 0.5 ? [[r - 1, c], [r, c]] : [[r, c], [r + 1, c]];
    return {cell: [r, c], seam: [[r, c], other], pair: north};
  }

  // Draw `table` into `host` (an element whose contents are replaced). Options: kinds (toy
  // kinds in the config's order, for stable markers), rim (empty cells shown around),
  // targets ([{type: cell|seam|pair, at | between, code, text}]), highlight ({cells, seams,
  // pairs}), onTarget(target), onBoard(where) for a click on no target, maxWidth (px) and
  // maxScale (how much a small table may be enlarged, default 1).
  function draw(host, table, opt) {
    opt = opt || {};
    const kinds = opt.kinds || [];
    const b = bounds(table, opt);
    const pad = 12;
    const vw = (b.c1 - b.c0 + 1) * W + 2 * pad, vh = (b.r1 - b.r0 + 1) * H + 2 * pad;
    host.textContent = "";
    const svg = el("svg", {viewBox: `${b.c0 * W - pad} ${b.r0 * H - pad} ${vw} ${vh}`,
                           class: "board", role: "img",
                           "aria-label": `the table: ${table.cards.length} cards`}, host);
    const scale = Math.min(opt.maxScale || 1, (opt.maxWidth || 900) / vw);
    svg.setAttribute("width", Math.round(vw * scale));
    svg.setAttribute("height", Math.round(vh * scale));
    const defs = el("defs", {}, svg);
    const hatch = el("pattern", {id: "hatch-" + (opt.id || "b"), width: 8, height: 8,
                                 patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)"}, defs);
    el("rect", {width: 8, height: 8, fill: TIED, "fill-opacity": 0.45}, hatch);
    el("line", {x1: 0, y1: 0, x2: 0, y2: 8, stroke: "#888", "stroke-width": 2}, hatch);
    const back = el("rect", {x: b.c0 * W - pad, y: b.r0 * H - pad, width: vw, height: vh,
                             fill: "#fff", class: "backdrop"}, svg);
    const gCards = el("g", {class: "cards"}, svg);
    for (const [r, c, walls, bi] of table.cards) {
      const box = table.boxes[bi];
      const x = c * W, y = r * H;
      let fill = UNLED, op = 1;
      if (box.leaders.length === 1) { fill = colour(box.leaders[0]); op = 0.28; }
      else if (box.leaders.length > 1) { fill = `url(#hatch-${opt.id || "b"})`; }
      el("rect", {x, y, width: W, height: H, fill, "fill-opacity": op, class: "card",
                  "data-at": `${r},${c}`}, gCards);
      el("rect", {x, y, width: W, height: H, fill: "none", stroke: "#999", "stroke-width": 0.8}, gCards);
      const side = (bit, x1, y1, x2, y2) => {
        if (walls & bit) el("line", {x1, y1, x2, y2, stroke: "#000", "stroke-width": 5,
                                     "stroke-linecap": "square"}, gCards);
      };
      side(WALL.N, x, y, x + W, y);
      side(WALL.S, x, y + H, x + W, y + H);
      side(WALL.W, x, y, x, y + H);
      side(WALL.E, x + W, y, x + W, y + H);
    }
    const gOcc = el("g", {class: "occupants"}, svg);
    for (const [seat, r, c] of table.cats) oval(gOcc, r, c, colour(seat), String(seat), "#fff", "cat");
    for (const [r, c] of table.princesses) oval(gOcc, r, c, "#000", "P", "#fff", "princess");
    for (const [seat, r, c] of table.sleeping) {
      const [x, y] = centre(r, c);
      el("ellipse", {cx: x, cy: y, rx: W * 0.225, ry: H * 0.3, fill: colour(seat), "fill-opacity": 0.55,
                     stroke: "#000", "stroke-width": 1.2, "stroke-dasharray": "4 3", class: "sleeping"}, gOcc);
      el("text", {x, y, "text-anchor": "middle", "dominant-baseline": "middle", "font-size": 12}, gOcc, "z" + seat);
    }
    const gItems = el("g", {class: "items"}, svg);
    for (const [kind, r1, c1, r2, c2] of table.items) {
      const [xa, ya] = centre(r1, c1), [xb, yb] = centre(r2, c2);
      item(gItems, kind, (xa + xb) / 2, (ya + yb) / 2, kinds);
    }
    const gLabels = el("g", {class: "labels"}, svg);
    for (const box of table.boxes) {
      if (box.value === 0 && !box.closed) continue;
      const value = box.value ? (box.value > 0 ? "+" : "") + box.value : "";
      const text = box.closed ? (value + " c").trim() : value;
      el("text", {x: box.nw[1] * W + 5, y: box.nw[0] * H + 14, "font-size": 13, class: "box-value"},
         gLabels, text);
    }
    const hl = opt.highlight || {};
    const gHl = el("g", {class: "highlight"}, svg);
    for (const [r, c] of hl.cells || []) {
      el("rect", {x: c * W + 3, y: r * H + 3, width: W - 6, height: H - 6, fill: "none",
                  stroke: "#e6a100", "stroke-width": 4}, gHl);
    }
    for (const [r, c] of hl.pairs || []) {
      const [x, y] = centre(r, c);
      el("ellipse", {cx: x, cy: y + H / 2, rx: W * 0.3, ry: H * 0.8, fill: "none",
                     stroke: "#e6a100", "stroke-width": 4}, gHl);
    }
    for (const [[r1, c1], [r2, c2]] of hl.seams || []) {
      const [xa, ya] = centre(r1, c1), [xb, yb] = centre(r2, c2);
      el("circle", {cx: (xa + xb) / 2, cy: (ya + yb) / 2, r: 13, fill: "none", stroke: "#e6a100",
                    "stroke-width": 4}, gHl);
    }
    const gT = el("g", {class: "targets"}, svg);
    for (const t of opt.targets || []) {
      let node;
      if (t.type === "cell") {
        const [r, c] = t.at;
        node = el("rect", {x: c * W + 4, y: r * H + 4, width: W - 8, height: H - 8, rx: 6}, gT);
      } else if (t.type === "pair") {
        const [x, y] = centre(t.at[0], t.at[1]);
        node = el("ellipse", {cx: x, cy: y + H / 2, rx: W * 0.22, ry: H * 0.62}, gT);
      } else {
        const [[r1, c1], [r2, c2]] = t.between;
        const [xa, ya] = centre(r1, c1), [xb, yb] = centre(r2, c2);
        node = el("circle", {cx: (xa + xb) / 2, cy: (ya + yb) / 2, r: 11}, gT);
      }
      node.setAttribute("class", "target target-" + t.type);
      node.setAttribute("data-code", t.code);
      el("title", {}, node, t.text || "");
      node.addEventListener("click", (evt) => { evt.stopPropagation(); opt.onTarget && opt.onTarget(t); });
    }
    if (opt.onBoard) {
      svg.addEventListener("click", (evt) => opt.onBoard(locate(svg, evt)));
    }
    return svg;
  }

  // A card of a hand, small: a box card with its walls, the Princess, a toy or a sprayer.
  function card(name, opt) {
    opt = opt || {};
    const w = 64, h = 38;
    const svg = el("svg", {viewBox: `-4 -4 ${w + 8} ${h + 8}`, width: w + 8, height: h + 8,
                           class: "hand-card", role: "img", "aria-label": name});
    el("rect", {x: 0, y: 0, width: w, height: h, fill: "#faf8f2", stroke: "#999", rx: 2}, svg);
    if (name.startsWith("box:")) {
      let m = wallsOf(name);
      if (opt.turned) m = turnedMask(m);
      const line = (x1, y1, x2, y2) => el("line", {x1, y1, x2, y2, stroke: "#000", "stroke-width": 4}, svg);
      if (m & WALL.N) line(0, 0, w, 0);
      if (m & WALL.S) line(0, h, w, h);
      if (m & WALL.W) line(0, 0, 0, h);
      if (m & WALL.E) line(w, 0, w, h);
    } else if (name === "princess") {
      el("ellipse", {cx: w / 2, cy: h / 2, rx: 11, ry: 15, fill: "#000"}, svg);
      el("text", {x: w / 2, y: h / 2 + 1, "text-anchor": "middle", "dominant-baseline": "middle",
                  fill: "#fff", "font-size": 12, "font-weight": "bold"}, svg, "P");
    } else {
      item(svg, name === "sprayer" ? "sprayer" : name.replace(/^toy:/, ""), w / 2, h / 2, opt.kinds || [], 1.2);
    }
    return svg;
  }

  // A small line chart of each seat's score over the steps, the current step marked.
  function trace(host, series, current, opt) {
    opt = opt || {};
    host.textContent = "";
    const n = series.length ? series[0].length : 0;
    const w = opt.width || 560, h = opt.height || 150, left = 30, bottom = 20;
    const all = series.flat();
    const lo = Math.min(0, ...all), hi = Math.max(1, ...all);
    const x = (i) => left + (n > 1 ? (i * (w - left - 8)) / (n - 1) : 0);
    const y = (v) => 6 + (h - bottom - 6) * (1 - (v - lo) / (hi - lo));
    const svg = el("svg", {viewBox: `0 0 ${w} ${h}`, width: w, height: h, class: "trace",
                           role: "img", "aria-label": opt.label || "score trace"}, host);
    for (const v of [lo, 0, hi]) {
      el("line", {x1: left, x2: w - 8, y1: y(v), y2: y(v), stroke: v === 0 ? "#999" : "#ddd"}, svg);
      el("text", {x: left - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 10}, svg, String(v));
    }
    series.forEach((s, seat) => {
      const d = s.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join("");
      el("path", {d, fill: "none", stroke: colour(seat), "stroke-width": 2, class: "trace-seat"}, svg);
    });
    for (const m of opt.marks || []) {
      el("circle", {cx: x(m), cy: h - bottom + 6, r: 3, fill: "#1f5fa8"}, svg);
    }
    el("line", {x1: x(current), x2: x(current), y1: 2, y2: h - bottom + 2, stroke: "#e6a100",
                "stroke-width": 2, class: "trace-now"}, svg);
    el("text", {x: left, y: h - 4, "font-size": 10}, svg, "step 0");
    el("text", {x: w - 8, y: h - 4, "font-size": 10, "text-anchor": "end"}, svg, `step ${n - 1}`);
    if (opt.onPick) {
      svg.addEventListener("click", (evt) => {
        const pt = svg.createSVGPoint();
        pt.x = evt.clientX; pt.y = evt.clientY;
        const p = pt.matrixTransform(svg.getScreenCTM().inverse());
        const i = Math.round(((p.x - left) * (n - 1)) / (w - left - 8));
        opt.onPick(Math.max(0, Math.min(n - 1, i)));
      });
    }
    return svg;
  }

  return {
    draw, card, trace, colour,
    setColours(list) { colours = list; },
  };
})();
