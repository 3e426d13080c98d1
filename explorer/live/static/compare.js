// Compare, live: every shown mapping's p as grouped SVG bars, recomputed with probcore.js and redrawn in the
// animation frame after each input (live_core.js): a logit handle, a bar dragged up or down, a parameter.
// The root holds what it draws: data-live-view="compare", data-values = {"logits", "mappings": {name: p}}.

/** Dragging a bar up or down moves its logit: the plot's height is `bound` logits. */
function dragBars(view) {
  let drag = null;
  view.svg.addEventListener("pointerdown", (event) => {
    const column = event.target.closest("[data-class]");
    if (!column || !view.data.handles) return;
    const i = Number(column.getAttribute("data-class"));
    drag = { i, y: event.clientY, start: view.logits[i] };
    view.svg.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  view.svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const { bound } = view.data;
    const moved = ((drag.y - event.clientY) / Math.max(view.plotHeight, 1)) * bound;
    const value = Math.min(bound, Math.max(-bound, Math.round((drag.start + moved) / STEP) * STEP));
    view.logits[drag.i] = sixDigits(value);
    const handle = view.inputs[drag.i];
    handle.input.value = view.logits[drag.i];
    handle.name.textContent = `x${drag.i} = ${fmt(view.logits[drag.i])}`;
    schedule(view);
  });
  const release = () => {
    if (drag && view.logits[drag.i] !== drag.start) send(view);
    drag = null;
  };
  view.svg.addEventListener("pointerup", release);
  view.svg.addEventListener("pointercancel", release);
}

/** Compute every mapping at the live logits and parameters and draw them; data-values in the same frame. */
function drawCompare(view) {
  const { data, svg } = view;
  if (!data) return;
  const started = performance.now();
  const { probs, errors } = compute(view);
  const names = data.mappings.filter((name) => probs[name]);
  const index = viewIndex(view.logits, probs);
  const width = Math.max(view.root.clientWidth, 320), height = data.height;
  const font = data.font_size;
  const margin = { l: 4.2 * font, r: 10, t: 12, b: 3.4 * font };
  const plotW = width - margin.l - margin.r, plotH = height - margin.t - margin.b;
  view.plotHeight = plotH;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.replaceChildren();
  const positive = names.flatMap((name) => index.map((i) => probs[name][i]).filter((v) => v > 0));
  const top = Math.max(1e-9, ...positive);
  const floor = data.log_y ? Math.max(Math.min(...positive, 1) / 3, 1e-16) : 0;
  const y = data.log_y
    ? (p) => margin.t + plotH * (1 - (Math.log10(Math.max(p, floor)) - (Math.log10(floor) - 0.2)) / (0.25 - Math.log10(floor)))
    : (p) => margin.t + plotH * (1 - p / (1.02 * top));
  // axes and grid
  const ticks = data.log_y ? logTicks(floor) : niceTicks(1.02 * top);
  for (const v of ticks) {
    el("line", { x1: margin.l, x2: width - margin.r, y1: y(v), y2: y(v), class: "pl-grid" }, svg, SVG);
    el("text", { x: margin.l - 6, y: y(v) + font / 3, class: "pl-tick", "text-anchor": "end" }, svg, SVG).textContent = data.log_y ? `1e${Math.round(Math.log10(v))}` : fmt(v);
  }
  el("text", { x: font, y: margin.t + plotH / 2, class: "pl-axis", transform: `rotate(-90 ${font} ${margin.t + plotH / 2})`, "text-anchor": "middle" }, svg, SVG).textContent = data.text.probability;
  el("text", { x: margin.l + plotW / 2, y: height - 4, class: "pl-axis", "text-anchor": "middle" }, svg, SVG).textContent = data.text.class_axis;
  const group = plotW / Math.max(index.length, 1), barW = (0.8 * group) / Math.max(names.length, 1);
  const cross = Math.min(Math.max(barW * 0.8, 6), 14) / 2;
  index.forEach((i, c) => {
    const x0 = margin.l + c * group;
    const column = el("g", { "data-class": i, class: data.handles ? "pl-column pl-draggable" : "pl-column" }, svg, SVG);
    el("rect", { x: x0, y: margin.t, width: group, height: plotH, class: "pl-hit" }, column, SVG);
    names.forEach((name, m) => {
      const p = probs[name][i], bx = x0 + 0.1 * group + m * barW, color = data.colors[name];
      const tip = `${data.labels[name]}\nclass ${i}\np = ${p === 0 ? "0 (exact)" : p.toPrecision(6)}`;
      if (p === 0) {  // exact zero: a cross on the axis, never a tiny bar
        const cx = bx + barW / 2, cy = y(floor);
        const mark = el("path", { d: `M${cx - cross},${cy - cross}L${cx + cross},${cy + cross}M${cx - cross},${cy + cross}L${cx + cross},${cy - cross}`, stroke: color, class: "pl-zero" }, column, SVG);
        el("title", {}, mark, SVG).textContent = tip;
      } else {
        const bar = el("rect", { x: bx, y: y(p), width: Math.max(barW - 1, 1), height: Math.max(y(floor) - y(p), 0), fill: color, class: "pl-bar" }, column, SVG);
        el("title", {}, bar, SVG).textContent = tip;
      }
    });
    if (index.length <= 24) {
      const label = el("text", { x: x0 + group / 2, y: margin.t + plotH + 1.2 * font, class: "pl-tick", "text-anchor": "middle" }, svg, SVG);
      label.textContent = `${i}`;
      const logit = el("text", { x: x0 + group / 2, y: margin.t + plotH + 2.3 * font, class: "pl-tick pl-logit", "text-anchor": "middle" }, svg, SVG);
      logit.textContent = fmt(view.logits[i]);
    }
  });
  el("line", { x1: margin.l, x2: width - margin.r, y1: y(floor), y2: y(floor), class: "pl-axisline" }, svg, SVG);
  drawLegend(view, names, Object.values(probs).some((p) => p.some((v) => v === 0)));
  view.message.textContent = Object.entries(errors).map(([name, message]) => `${data.labels[name]}: ${message}`).join("\n");
  const shown = {};
  for (const name of names) shown[name] = Array.from(probs[name]);
  view.root.setAttribute("data-values", JSON.stringify({ logits: view.logits, mappings: shown }));
  view.root.setAttribute("data-frame-ms", (performance.now() - started).toFixed(2));
}

function niceTicks(top) {
  const raw = top / 5, power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let v = 0; v <= top + 1e-12; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function logTicks(floor) {
  const ticks = [];
  const every = Math.max(1, Math.ceil(-Math.log10(floor) / 6));
  for (let e = 0; e >= Math.log10(floor); e -= every) ticks.push(10 ** e);
  return ticks;
}

export default function liveCompare(args) {
  mount(args, "compare", drawCompare, dragBars);
}
