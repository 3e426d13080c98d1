// The live views' common part (explorer/live): the logit handles (<input type="range" aria-label="x{i}">),
// the parameter controls, one redraw per animation frame after any input, the release that sends the state
// to the server once, and the mount that does not redraw the server's echo of it. explorer/live/__init__.py
// joins probcore.js, this file and one view's file (compare.js, jacobian.js) into the component's module;
// a view gives mount() its page id and its draw(view), which computes with probcore.js and sets data-values.

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

function build(parentElement, page) {
  const root = el("div", { class: "pl-live", "data-live-view": page });
  parentElement.appendChild(root);
  const view = { root, data: null, logits: [], params: {}, drawnKey: null, pending: false };
  view.controls = el("div", { class: "pl-controls" }, root);
  view.handles = el("div", { class: "pl-handles" }, view.controls);
  view.paramBox = el("div", { class: "pl-params" }, view.controls);
  view.svg = el("svg", { class: "pl-chart", role: "img" }, root, SVG);
  view.legend = el("div", { class: "pl-legend" }, root);
  view.message = el("div", { class: "pl-message" }, root);
  new ResizeObserver(() => view.draw && view.draw()).observe(root);
  return view;
}

/** The state the server holds, as a string: a server run that sends what is drawn changes nothing. */
const stateKey = (logits, params, data) => JSON.stringify([logits, params, { ...data, logits: null, param_values: null, seq: null }]);

function schedule(view) {
  if (view.pending) return;
  view.pending = true;
  requestAnimationFrame(() => {
    view.pending = false;
    view.draw();
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

const views = new WeakMap();

/** The components v2 entry of a live view: build it once per mount (handles, parameters, the chart's
 * ``setup``), then draw what the server sends unless it is the state already drawn (the echo of a release). */
function mount({ parentElement, data, setStateValue }, page, drawView, setup = () => {}) {
  let view = views.get(parentElement);
  if (!view) {
    view = build(parentElement, page);
    view.seq = data.seq;
    view.draw = () => { if (view.data) drawView(view); };
    views.set(parentElement, view);
    setup(view);
  }
  view.setStateValue = setStateValue;
  if (data.seq < view.seq) return;  // a run from before the last release: the view is ahead of it
  const incoming = stateKey(data.logits, data.param_values, data);
  if (incoming === view.drawnKey) {  // the server's run after a release: already drawn
    view.data = data;
    return;
  }
  const rebuild = !view.data || data.logits.length !== view.logits.length;
  view.data = data;
  view.logits = [...data.logits];
  view.params = { ...data.param_values };
  view.drawnKey = incoming;
  if (rebuild) buildHandles(view);
  else view.inputs.forEach(({ input, name }, i) => { input.value = view.logits[i]; name.textContent = `x${i} = ${fmt(view.logits[i])}`; });
  buildParams(view);
  view.draw();
}
