// Compare, live: every shown mapping's p as grouped SVG bars, recomputed with probcore.js (above in the
// same module: explorer/live/__init__.py joins the two files) and redrawn in the animation frame after
// each input: a logit handle (<input type="range" aria-label="x{i}">), a bar dragged up or down, a
// parameter slider. On release the new state goes to the server once (setStateValue "state"); the
// server run that follows sends the same state back, which is not drawn again.
// The root holds what it draws: data-live-view="compare", data-values = {"logits", "mappings": {name: p}}.

const SVG = "http://www.w3.org/2000/svg";
const STEP = 0.05;
const TOP_VIEW = 50;

function el(tag, attrs = {}, parent = null, ns = null) {
  const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** A number as the server writes logits (explorer.state.format_logits: 6 significant digits). */
const sixDigits = (v) => Number(v.toPrecision(6));
const fmt = (v) => (v === 0 ? "0" : Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4 ? String(Number(v.toPrecision(4))) : v.toExponential(2));

/** The classes drawn: all up to TOP_VIEW, else the TOP_VIEW largest p under any mapping, by decreasing logit
 * (explorer.compute.view_index). */
function viewIndex(x, probs) {
  const n = x.length;
  if (n <= TOP_VIEW) return [...Array(n).keys()];
  const score = x.map((_, i) => Math.max(...Object.values(probs).map((p) => p[i])));
  const keep = [...Array(n).keys()].sort((i, j) => score[j] - score[i] || x[j] - x[i] || i - j).slice(0, TOP_VIEW);
  return keep.sort((i, j) => x[j] - x[i] || i - j);
}

/** The keyword arguments of each mapping after the live parameter values (k at most n). */
function kwargsOf(view) {
  const out = {};
  for (const name of view.data.mappings) {
    const kw = { ...view.data.kwargs[name] };
    for (const [param, value] of Object.entries(view.params)) if (param in kw) kw[param] = value;
    if ("k" in kw && kw.k != null) kw.k = Math.min(kw.k, view.logits.length);
    out[name] = kw;
  }
  return out;
}

function compute(view) {
  const probs = {}, errors = {};
  const kwargs = kwargsOf(view);
  for (const name of view.data.mappings) {
    try {
      probs[name] = probabilities(name, view.logits, kwargs[name], view.data.target);
    } catch (err) {
      errors[name] = err.message;
    }
  }
  return { probs, errors, kwargs };
}

function build(parentElement, data) {
  const root = el("div", { class: "pl-live", "data-live-view": "compare" });
  parentElement.appendChild(root);
  const view = { root, data: null, logits: [], params: {}, drawnKey: null, pending: false };
  view.controls = el("div", { class: "pl-controls" }, root);
  view.handles = el("div", { class: "pl-handles" }, view.controls);
  view.paramBox = el("div", { class: "pl-params" }, view.controls);
  view.svg = el("svg", { class: "pl-chart", role: "img" }, root, SVG);
  view.legend = el("div", { class: "pl-legend" }, root);
  view.message = el("div", { class: "pl-message" }, root);
  new ResizeObserver(() => draw(view)).observe(root);
  return view;
}

/** The state the server holds, as a string: a server run that sends what is drawn changes nothing. */
const stateKey = (logits, params, data) => JSON.stringify([logits, params, data.mappings, data.target, data.log_y, data.labels, data.text]);

function schedule(view) {
  if (view.pending) return;
  view.pending = true;
  requestAnimationFrame(() => {
    view.pending = false;
    draw(view);
  });
}

/** Release: the new state to the server, once. */
function send(view) {
  view.seq += 1;
  view.drawnKey = stateKey(view.logits, view.params, view.data);
  view.setStateValue("state", { logits: view.logits, params: view.params, seq: view.seq });
}

function buildHandles(view) {
  const { data } = view;
  view.handles.replaceChildren();
  view.inputs = [];
  if (!data.handles) return;
  view.logits.forEach((value, i) => {
    const box = el("label", { class: "pl-handle" }, view.handles);
    const name = el("span", { class: "pl-name" }, box);
    const input = el("input", { type: "range", min: -data.bound, max: data.bound, step: STEP, "aria-label": `x${i}` }, box);
    input.value = value;
    name.textContent = `x${i} = ${fmt(value)}`;
    input.addEventListener("input", () => {
      view.logits[i] = sixDigits(Number(input.value));
      name.textContent = `x${i} = ${fmt(view.logits[i])}`;
      schedule(view);
    });
    input.addEventListener("change", () => send(view));
    view.inputs.push({ input, name });
  });
}

function buildParams(view) {
  view.paramBox.replaceChildren();
  for (const spec of view.data.params) {
    const box = el("label", { class: "pl-param" }, view.paramBox);
    const name = el("span", { class: "pl-name" }, box);
    const show = () => { name.textContent = `${spec.label} = ${spec.kind === "choice" ? view.params[spec.name] : fmt(view.params[spec.name])}`; };
    let input;
    if (spec.kind === "choice") {
      input = el("select", { "aria-label": spec.name }, box);
      for (const choice of spec.choices) el("option", { value: choice }, input).textContent = choice;
      input.value = view.params[spec.name];
    } else {
      const high = spec.name === "k" ? view.logits.length : spec.high;
      input = el("input", { type: "range", min: spec.low, max: high, step: spec.step, "aria-label": spec.name }, box);
      input.value = view.params[spec.name];
    }
    show();
    input.addEventListener("input", () => {
      const raw = input.value;
      view.params[spec.name] = spec.kind === "choice" ? raw : spec.kind === "int" ? Math.round(Number(raw)) : sixDigits(Number(raw));
      show();
      schedule(view);
    });
    input.addEventListener("change", () => send(view));
  }
}

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
function draw(view) {
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

function drawLegend(view, names, zeros) {
  const { data } = view;
  view.legend.replaceChildren();
  for (const name of names) {
    const item = el("span", { class: "pl-key" }, view.legend);
    el("span", { class: "pl-swatch", style: `background:${data.colors[name]}` }, item);
    item.append(data.labels[name]);
  }
  if (zeros) el("span", { class: "pl-key" }, view.legend).textContent = data.text.exact_zero;
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

const views = new WeakMap();

export default function liveCompare({ parentElement, data, setStateValue }) {
  let view = views.get(parentElement);
  if (!view) {
    view = build(parentElement, data);
    view.seq = 0;
    views.set(parentElement, view);
    dragBars(view);
  }
  view.setStateValue = setStateValue;
  const incoming = stateKey(data.logits, data.param_values, data);
  if (incoming === view.drawnKey) {  // the server's run after a release: already drawn
    view.data = data;
    return;
  }
  const rebuild = !view.data || data.logits.length !== view.logits.length || JSON.stringify(data.params) !== JSON.stringify(view.data.params);
  view.data = data;
  view.logits = [...data.logits];
  view.params = { ...data.param_values };
  view.drawnKey = incoming;
  if (rebuild) {
    buildHandles(view);
    buildParams(view);
  } else {
    view.inputs.forEach(({ input, name }, i) => { input.value = view.logits[i]; name.textContent = `x${i} = ${fmt(view.logits[i])}`; });
    buildParams(view);
  }
  draw(view);
}
