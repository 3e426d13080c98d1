// Loss landscape (n = 3), live: for each picked mapping its loss over the plane (u, v) = (x0 - x2, x1 - x2),
// x = (u, v, 0), from probcore.js's loss_surface (the server's grid: m x m points, radius R), drawn as Viridis
// cells with white arrows along the descent step -(g0 - g2, g1 - g2) on every 6th point, as the server's figure;
// the current logits are a star in the mapping's colour with their own descent arrow. Press or drag anywhere on a
// plane to move the logits there (x0 = x2 + u, x1 = x2 + v). The surfaces are computed when the parameters
// change, not while the point moves. data-live-view="loss", data-values = {"logits", "mappings": {name: p},
// "point": [u, v], "losses": {name: L(x)}, "gradients": {name: dL/dx}, "target"}.

const VIRIDIS = [[0, [68, 1, 84]], [0.25, [59, 82, 139]], [0.5, [33, 145, 140]], [0.75, [94, 201, 98]], [1, [253, 231, 37]]];

function viridis(u) {
  const k = VIRIDIS.findIndex(([stop]) => stop >= u);
  if (k <= 0) return `rgb(${VIRIDIS[0][1]})`;
  const [[a, ca], [b, cb]] = [VIRIDIS[k - 1], VIRIDIS[k]];
  const w = (u - a) / (b - a);
  return `rgb(${ca.map((c, i) => Math.round(c + w * (cb[i] - c))).join(",")})`;
}

/** The surfaces of the drawn mappings (cached by their parameters, the target and the grid). */
function surfaces(view, kwargs) {
  const { data } = view;
  const key = JSON.stringify([data.drawn, data.drawn.map((name) => kwargs[name]), data.target, data.radius, data.m, data.font_size, data.lang]);
  if (view.surfaceKey !== key) {
    view.surfaceKey = key;
    view.surfaces = {};
    for (const name of data.drawn) {
      try {
        view.surfaces[name] = loss_surface(name, kwargs[name], data.target, data.radius, data.m);
      } catch (err) {
        view.surfaces[name] = { error: err.message };
      }
    }
    view.cells = null;
  }
  return view.surfaces;
}

/** Press or drag on a plane: the logits move so that (x0 - x2, x1 - x2) is under the pointer (the plane pressed
 * stays the one followed until the release). */
function dragLoss(view) {
  let dragging = null;
  const at = (event) => {
    const rect = view.svg.getBoundingClientRect();
    return [event.clientX - rect.left, event.clientY - rect.top];
  };
  const moveTo = (event) => {
    const box = view.panels[dragging], r = view.data.radius;
    if (!box) return;
    const [px, py] = at(event);
    const u = Math.min(r, Math.max(-r, (px - box.x) / box.size * 2 * r - r));
    const v = Math.min(r, Math.max(-r, r - (py - box.y) / box.size * 2 * r));
    moveLogit(view, 0, view.logits[2] + u);
    moveLogit(view, 1, view.logits[2] + v);
  };
  view.svg.addEventListener("pointerdown", (event) => {
    const [px, py] = at(event);
    const hit = Object.entries(view.panels || {}).find(([, b]) => px >= b.x && px <= b.x + b.size && py >= b.y && py <= b.y + b.size);
    if (!hit || view.logits.length !== 3) return;
    dragging = hit[0];
    view.svg.setPointerCapture(event.pointerId);
    event.preventDefault();
    moveTo(event);
  });
  view.svg.addEventListener("pointermove", (event) => { if (dragging) moveTo(event); });
  const release = () => {
    if (dragging) send(view);
    dragging = null;
  };
  view.svg.addEventListener("pointerup", release);
  view.svg.addEventListener("pointercancel", release);
}

function arrow(svg, x1, y1, x2, y2, cls) {
  const a = Math.atan2(y2 - y1, x2 - x1), h = Math.min(5, 0.4 * Math.hypot(x2 - x1, y2 - y1));
  el("path", { d: `M${x1},${y1}L${x2},${y2}M${x2 - h * Math.cos(a - 0.5)},${y2 - h * Math.sin(a - 0.5)}L${x2},${y2}L${x2 - h * Math.cos(a + 0.5)},${y2 - h * Math.sin(a + 0.5)}`, class: cls }, svg, SVG);
}

function drawLoss(view) {
  const { data, svg } = view;
  const started = performance.now();
  const { probs, errors, kwargs } = compute(view);
  const font = data.font_size, r = data.radius, m = data.m;
  const surface = surfaces(view, kwargs);
  const names = data.drawn.filter((name) => surface[name] && !surface[name].error);
  const width = Math.max(view.root.clientWidth, 320), height = fitHeight(view, 260);
  const columns = Math.min(2, Math.max(names.length, 1));
  const size = Math.max(160, Math.min(width / columns - 4.5 * font, height - 4.7 * font));
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  const n3 = view.logits.length === 3;
  const point = n3 ? [view.logits[0] - view.logits[2], view.logits[1] - view.logits[2]] : null;
  if (!view.cells || view.cellsWidth !== width || view.cellsHeight !== height) {  // the surfaces: drawn once per parameters
    svg.replaceChildren();
    view.panels = {};
    view.cells = el("g", {}, svg, SVG);
    view.cellsWidth = width;
    view.cellsHeight = height;
    names.forEach((name, k) => {
      const box = { x: (k % columns) * (width / columns) + 3.6 * font, y: Math.floor(k / columns) * (size + 4 * font) + 1.8 * font, size };
      view.panels[name] = box;
      const { loss, du, dv } = surface[name];
      const flat = loss.flat().filter(Number.isFinite);
      const lo = Math.min(...flat), hi = Math.max(...flat), cell = size / (m - 1);
      const g = el("g", { "data-plane": name, class: "pl-draggable-2d" }, view.cells, SVG);
      svgText(view.cells, box.x, box.y - 0.5 * font, data.text.plane_title.replace("{mapping}", data.labels[name]), "pl-axis",
        width / columns - 3.6 * font - 6);
      for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) {  // row i: v (bottom to top), column j: u
        el("rect", { x: box.x + (j - 0.5) * cell, y: box.y + (m - 1.5 - i) * cell, width: cell + 0.6, height: cell + 0.6,
          fill: viridis(hi > lo ? (loss[i][j] - lo) / (hi - lo) : 0.5) }, g, SVG);
      }
      const every = 6, grid = linspace(-r, r, m), length = 0.9 * (grid[every] - grid[0]);
      let longest = 1e-12;
      for (let i = 0; i < m; i += every) for (let j = 0; j < m; j += every) longest = Math.max(longest, Math.hypot(du[i][j], dv[i][j]));
      const px = (u) => box.x + ((u + r) / (2 * r)) * size, py = (v) => box.y + ((r - v) / (2 * r)) * size;
      for (let i = 0; i < m; i += every) for (let j = 0; j < m; j += every) {
        const s = length / longest;
        arrow(g, px(grid[j]), py(grid[i]), px(grid[j] - du[i][j] * s), py(grid[i] - dv[i][j] * s), "pl-descent");
      }
      for (const [v, label] of [[-r, fmt(-r)], [0, "0"], [r, fmt(r)]]) {
        el("text", { x: px(v), y: box.y + size + 1.1 * font, class: "pl-tick", "text-anchor": "middle" }, view.cells, SVG).textContent = label;
        el("text", { x: box.x - 0.3 * font, y: py(v) + font / 3, class: "pl-tick", "text-anchor": "end" }, view.cells, SVG).textContent = label;
      }
      el("text", { x: box.x + size / 2, y: box.y + size + 2.3 * font, class: "pl-tick", "text-anchor": "middle" }, view.cells, SVG).textContent = data.text.u_axis;
      const ay = box.y + size / 2, ax = box.x - 2.6 * font;
      el("text", { x: ax, y: ay, class: "pl-tick", "text-anchor": "middle", transform: `rotate(-90 ${ax} ${ay})` }, view.cells, SVG).textContent = data.text.v_axis;
    });
    view.points = el("g", {}, svg, SVG);
  }
  view.points.replaceChildren();
  const losses = {}, gradients = {};
  for (const name of data.mappings) {
    if (!probs[name] || !LOSSES[name]) continue;
    try {
      const value = LOSSES[name](view.logits, data.target, kwargs[name]);
      if (value === null) continue;
      losses[name] = value;
      gradients[name] = Array.from(loss_grad(name, view.logits, data.target, kwargs[name]));
    } catch (err) {
      errors[name] = err.message;
    }
  }
  if (point) {
    for (const name of names) {
      const box = view.panels[name];
      if (!box) continue;
      const px = (u) => box.x + ((Math.min(r, Math.max(-r, u)) + r) / (2 * r)) * size, py = (v) => box.y + ((r - Math.min(r, Math.max(-r, v))) / (2 * r)) * size;
      const g = gradients[name];
      if (g) {
        const du = g[0] - g[2], dv = g[1] - g[2], norm = Math.hypot(du, dv);
        if (norm > 0) arrow(view.points, px(point[0]), py(point[1]), px(point[0]) - (du / norm) * 0.12 * size, py(point[1]) + (dv / norm) * 0.12 * size, "pl-descent pl-descent-here");
      }
      const star = el("path", { d: markerPath("star", px(point[0]), py(point[1]), 0.8 * font), fill: data.colors[name], class: "pl-star-loss" }, view.points, SVG);
      el("title", {}, star, SVG).textContent = `u = ${fmt(point[0])}, v = ${fmt(point[1])}\n${data.text.loss} = ${losses[name] === undefined ? "—" : losses[name].toPrecision(6)}`;
    }
  }
  drawLegend(view, names, [data.text.scale]);
  view.message.textContent = [n3 ? "" : data.text.need3, ...Object.entries(errors).map(([name, message]) => `${data.labels[name]}: ${message}`)].filter(Boolean).join("\n");
  const shown = {};
  for (const name of data.mappings) if (probs[name]) shown[name] = Array.from(probs[name]);
  setValues(view, { logits: view.logits, mappings: shown, point, losses, gradients, target: data.target }, started);
}

export default function liveLoss(args) {
  mount(args, "loss", drawLoss, dragLoss);
}
