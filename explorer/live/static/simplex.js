// Simplex (n = 3), live: left, the probability triangle with each shown mapping's p (its marker) and its path
// p(x / T) as T runs over TEMPERATURES (its dash pattern); right, the plane sum = 1 seen from above with the
// logits moved onto it (a star: drag it, or press anywhere in the plane), each mapping's p and the Euclidean
// projection (sparsemax) joined to the logits by a dashed segment. Both use plane_coordinates
// (views.simplex.figures._plane). data-live-view="simplex", data-values = {"logits": x[:3], "mappings": {name: p},
// "plane": {"logits": [u, v], name: [u, v]}}.

const SIMPLEX_VERTICES = [[1, 0, 0], [0, 1, 0], [0, 0, 1]].map(plane_coordinates);

/** A panel's map from plane coordinates to px: the square [-extent, extent]^2 about ``centre`` in the box. */
function planeMap(box, extent, centre = [0, 0]) {
  const side = Math.min(box.width, box.height), scale = side / (2 * extent);
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
  const to = ([u, v]) => [cx + (u - centre[0]) * scale, cy - (v - centre[1]) * scale];
  const from = (px, py) => [(px - cx) / scale + centre[0], -(py - cy) / scale + centre[1]];
  return { to, from };
}

function triangle(svg, map, labels, font) {
  const corners = SIMPLEX_VERTICES.map(map.to);
  el("path", { d: `M${corners.map((c) => c.join(",")).join("L")}Z`, class: "pl-simplex" }, svg, SVG);
  corners.forEach(([px, py], i) => {
    const below = SIMPLEX_VERTICES[i][1] < 0;
    el("text", { x: px, y: py + (below ? 1.3 * font : -0.5 * font), class: "pl-tick", "text-anchor": "middle" }, svg, SVG).textContent = labels[i];
  });
}

/** The plane the logits are dragged in: press or drag anywhere in the right panel moves the logits so that their
 * point on the plane is under the pointer (x + du b1 + dv b2: the sum of the logits stays). */
function dragPlane(view) {
  let dragging = false;
  const moveTo = (event) => {
    const rect = view.svg.getBoundingClientRect();
    const [u, v] = view.planeMap.from(event.clientX - rect.left, event.clientY - rect.top);
    const [u0, v0] = logits_on_plane(view.logits);
    const du = u - u0, dv = v - v0, bound = view.data.bound;
    const step = [du / Math.SQRT2 + dv / Math.sqrt(6), -du / Math.SQRT2 + dv / Math.sqrt(6), (-2 * dv) / Math.sqrt(6)];
    step.forEach((d, i) => moveLogit(view, i, Math.min(bound, Math.max(-bound, view.logits[i] + d))));
  };
  const inPlane = (event) => {
    const rect = view.svg.getBoundingClientRect(), box = view.planeBox;
    const px = event.clientX - rect.left, py = event.clientY - rect.top;
    return box && px >= box.x && px <= box.x + box.width && py >= box.y && py <= box.y + box.height;
  };
  view.svg.addEventListener("pointerdown", (event) => {
    if (!inPlane(event) || !view.data.handles) return;
    dragging = true;
    view.svg.setPointerCapture(event.pointerId);
    event.preventDefault();
    moveTo(event);
  });
  view.svg.addEventListener("pointermove", (event) => { if (dragging) moveTo(event); });
  const release = () => {
    if (dragging) send(view);
    dragging = false;
    view.extent = null;  // the plane's scale follows the logits again
  };
  view.svg.addEventListener("pointerup", release);
  view.svg.addEventListener("pointercancel", release);
  view.isDragging = () => dragging;
}

const PATHS_EVERY_MS = 250;

/** Each mapping's T path (temperature_sweep: 61 mappings calls each, perturb-max's quadrature among them): recomputed
 * at most every PATHS_EVERY_MS while the logits keep moving (the points move every frame), and once more after the
 * last move. */
function paths(view, x, kwargs, names) {
  const key = JSON.stringify([x, names.map((name) => kwargs[name]), view.data.target]);
  if (view.pathKey === key) return view.paths;
  const now = performance.now();
  clearTimeout(view.pathTimer);
  if (view.paths && now - view.pathsAt < PATHS_EVERY_MS && names.every((name) => view.paths[name])) {
    view.pathTimer = setTimeout(() => schedule(view), PATHS_EVERY_MS);
    return view.paths;
  }
  view.paths = {};
  for (const name of names) view.paths[name] = temperature_sweep(name, x, kwargs[name], view.data.target);
  view.pathKey = key;
  view.pathsAt = now;
  return view.paths;
}

function drawSimplex(view) {
  const { data, svg } = view;
  const started = performance.now();
  const x = view.logits.slice(0, 3);
  const { probs, errors, kwargs } = compute(view, x);
  const names = data.mappings.filter((name) => probs[name]);
  const font = data.font_size;
  const width = Math.max(view.root.clientWidth, 320), height = fitHeight(view, 260);
  const wide = width >= 560;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.replaceChildren();
  const half = wide ? width / 2 : width, panelH = wide ? height : height / 2;
  const left = { x: 8, y: 1.8 * font, width: half - 16, height: panelH - 3.4 * font };
  const right = { x: (wide ? half : 0) + 8, y: (wide ? 0 : panelH) + 1.8 * font, width: half - 16, height: panelH - 3.4 * font };
  const axes = x.map((v, i) => `p${i} (x${i} = ${fmt(v)})`);
  // the triangle: paths p(x / T), then each mapping's p
  svgText(svg, left.x, font, data.text.points_title, "pl-axis", left.width);
  const tri = planeMap({ ...left, y: left.y + font, height: left.height - font }, 0.62, [0, -0.2]);
  triangle(svg, tri, axes, font);
  const plane = {};
  const pathRows = paths(view, x, kwargs, names);
  for (const name of names) {
    const rows = pathRows[name];
    const d = rows.map((p) => tri.to(plane_coordinates(p)).map((c) => c.toFixed(1)).join(",")).join("L");
    el("path", { d: `M${d}`, class: "pl-path", stroke: data.colors[name], "stroke-dasharray": data.cues[name].dash }, svg, SVG);
  }
  names.forEach((name, k) => {
    plane[name] = plane_coordinates(probs[name]);
    const [px, py] = tri.to(plane[name]);
    const p = probs[name];
    marker(svg, view, name, px, py, Math.max(0.45 * font, (1.05 - 0.08 * k) * font * 0.75),
      `${data.labels[name]}\np = (${Array.from(p, (v) => v.toFixed(4)).join(", ")})`);
  });
  // the plane: the logits on it, the projection (sparsemax) and each p
  svgText(svg, right.x, (wide ? 0 : panelH) + font, data.text.projection_title, "pl-axis", right.width);
  const moved = logits_on_plane(x);
  if (!view.extent || !(view.isDragging && view.isDragging())) view.extent = Math.max(0.9, 1.15 * Math.hypot(...moved));
  const map = planeMap(right, view.extent);
  view.planeMap = map;
  view.planeBox = right;
  el("rect", { ...right, class: "pl-plane pl-hit pl-draggable-2d" }, svg, SVG);
  triangle(svg, map, ["e0", "e1", "e2"], font);
  const projection = probabilities("sparsemax", x, { temperature: 1 });
  const [sx, sy] = map.to(moved), [tx, ty] = map.to(plane_coordinates(projection));
  el("line", { x1: sx, y1: sy, x2: tx, y2: ty, class: "pl-projection", stroke: data.colors.sparsemax || "#E45756" }, svg, SVG);
  names.forEach((name) => {
    const [px, py] = map.to(plane[name]);
    marker(svg, view, name, px, py, 0.5 * font, data.labels[name]);
  });
  const star = el("path", { d: markerPath("star", sx, sy, 0.9 * font), class: "pl-star pl-plane" }, svg, SVG);
  el("title", {}, star, SVG).textContent = `${data.text.logits_on_plane}: x = (${x.map(fmt).join(", ")})`;
  drawLegend(view, names, [data.text.logits_on_plane, data.text.projection]);
  view.message.textContent = [data.text.need3 || "", ...Object.entries(errors).map(([name, message]) => `${data.labels[name]}: ${message}`)].filter(Boolean).join("\n");
  const shown = {};
  for (const name of names) shown[name] = Array.from(probs[name]);
  setValues(view, { logits: x, mappings: shown, plane: { logits: moved, ...plane } }, started);
}

export default function liveSimplex(args) {
  mount(args, "simplex", drawSimplex, dragPlane);
}
