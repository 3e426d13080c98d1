// The live views' common part (explorer/live): the logit handles (<input type="range" aria-label="x{i}">),
// the parameter controls, one redraw per animation frame after any input, the release that sends the state
// to the server once (and again until a run has taken it), the mount that does not
// redraw the server's echo of it, the chart pieces several views draw (grouped bars, markers, legend), the
// spoken summary and the CSV / JSON downloads of data-values. explorer/live/__init__.py joins probcore.js,
// this file and one view's file (compare.js, jacobian.js, simplex.js, loss.js, sweeps.js) into the
// component's module; a view gives mount() its page id and its draw(view), which computes with probcore.js
// and sets data-values (setValues).

const SVG = "http://www.w3.org/2000/svg";
const STEP = 0.05;
const TOP_VIEW = 50;
const RESEND_MS = 2500;  // a release no run has taken after this is sent again
const RESEND_TRIES = 6;

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
function kwargsOf(view, n = view.logits.length) {
  const out = {};
  for (const name of view.data.mappings) {
    const kw = { ...view.data.kwargs[name] };
    for (const [param, value] of Object.entries(view.params)) if (param in kw) kw[param] = value;
    if ("k" in kw && kw.k != null) kw.k = Math.min(kw.k, n);
    out[name] = kw;
  }
  return out;
}

/** Every shown mapping's p at ``x`` (the live logits): {probs, errors (messages by mapping), kwargs}. */
function compute(view, x = view.logits, names = view.data.mappings) {
  const probs = {}, errors = {};
  const kwargs = kwargsOf(view, x.length);
  for (const name of names) {
    try {
      probs[name] = probabilities(name, x, kwargs[name], view.data.target);
    } catch (err) {
      errors[name] = err.message;
    }
  }
  return { probs, errors, kwargs };
}

function build(parentElement, page, text) {
  const root = el("figure", { class: "pl-live", "data-live-view": page, "aria-label": text.view_name || page }, parentElement);
  const view = { root, page, data: null, logits: [], params: {}, drawnKey: null, pending: false, acked: 0, tries: 0 };
  view.controls = el("div", { class: "pl-controls" }, root);
  view.handles = el("div", { class: "pl-handles", role: "group", "aria-label": text.logits || "logits" }, view.controls);
  view.toggle = el("button", { type: "button", class: "pl-button", "aria-expanded": "true", "aria-controls": `pl-params-${page}` }, view.controls);
  view.toggle.textContent = text.parameters || "parameters";
  view.toggle.addEventListener("click", () => showParams(view, view.paramBox.hidden));
  view.svg = el("svg", { class: "pl-chart", role: "img", "aria-label": text.view_name || page }, root, SVG);
  view.legend = el("div", { class: "pl-legend" }, root);
  view.message = el("div", { class: "pl-message", role: "status" }, root);
  view.tools = el("div", { class: "pl-tools" }, view.controls);
  view.paramBox = el("div", { class: "pl-params", id: `pl-params-${page}` }, view.controls);
  view.summary = el("p", { class: "pl-sr", "aria-live": "polite" }, root);
  for (const [kind, mime] of [["csv", "text/csv"], ["json", "application/json"]]) {
    const button = el("button", { type: "button", class: "pl-button", "data-download": kind }, view.tools);
    button.textContent = `${text.download || "Download"} ${kind.toUpperCase()}`;
    button.addEventListener("click", () => download(view, kind, mime));
  }
  new ResizeObserver(() => view.draw && view.draw()).observe(root);
  return view;
}

/** The parameter controls shown or folded (presentation mode starts folded: figure first). */
function showParams(view, shown) {
  view.paramBox.hidden = !shown;
  view.toggle.setAttribute("aria-expanded", String(shown));
}

/** The estimated drawn width of ``words`` in px at ``em`` px a character: 0.55 em a Latin character, 1 em a CJK one. */
const textWidth = (words, em) => [...words].reduce((w, c) => w + (c.charCodeAt(0) > 0x2e80 ? 1 : 0.55), 0) * em;

/** SVG text that never runs past ``max`` px: squeezed to it where its drawn width is larger (measured only where its
 * estimated width, textWidth, comes near ``max``; never stretched). */
function svgText(parent, x, y, words, cls, max = Infinity, anchor = "start") {
  const node = el("text", { x, y, class: cls, "text-anchor": anchor }, parent, SVG);
  node.textContent = words;
  const em = parseFloat(getComputedStyle(parent.ownerSVGElement || parent).fontSize) * (cls.includes("pl-tick") ? 0.8 : 0.9);
  const estimate = textWidth(words, em);
  if (estimate > 0.75 * max && node.getComputedTextLength() > max) {
    node.setAttribute("textLength", max);
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}

/** What the view shows, as the file ``kind``: JSON = data-values; CSV = one row per class (class, logit, the p of
 * each mapping in data-values' "mappings" and any other {name: p} block of the view, e.g. Sweeps' alpha_mappings). */
function valuesFile(view, kind) {
  const values = JSON.parse(view.root.getAttribute("data-values") || "{}");
  if (kind === "json") return JSON.stringify(values, null, 1);
  const blocks = Object.entries(values).filter(([, v]) => v && typeof v === "object" && !Array.isArray(v)
    && Object.values(v).every((p) => Array.isArray(p) && p.length === values.logits.length && typeof p[0] === "number"));
  const quote = (s) => `"${String(s).replace(/"/g, '""')}"`;
  const header = ["class", "logit", ...blocks.flatMap(([block, v]) => Object.keys(v).map((name) => quote(block === "mappings" ? name : `${block}.${name}`)))];
  const rows = values.logits.map((x, i) => [i, x, ...blocks.flatMap(([, v]) => Object.values(v).map((p) => p[i]))].join(","));
  return [header.join(","), ...rows].join("\n") + "\n";
}

function download(view, kind, mime) {
  const url = URL.createObjectURL(new Blob([valuesFile(view, kind)], { type: mime }));
  const link = el("a", { href: url, download: `${view.page}_live.${kind}` }, document.body);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** data-values (what the view draws, same frame) and the view's own work in ms (data-frame-ms). */
function setValues(view, values, started) {
  view.root.setAttribute("data-values", JSON.stringify(values));
  view.root.setAttribute("data-frame-ms", (performance.now() - started).toFixed(2));
}

/** One sentence per shown mapping for screen readers ("sparsemax: p = 0.95, 0.05, 0; 1 exact zero"), written on
 * release and when the server's state is drawn, not every frame. A 0 that data-values' "underflows" marks (> 0
 * exactly) is counted as an underflow, not as an exact zero. */
function speak(view) {
  const values = JSON.parse(view.root.getAttribute("data-values") || "{}");
  const { text, labels } = view.data;
  const lines = Object.entries(values.mappings || {}).map(([name, p]) => {
    const under = (values.underflows?.[name] || []).filter(Boolean).length;
    const zeros = p.filter((v) => v === 0).length - under;
    const shown = p.slice(0, 12).map((v) => (v === 0 ? "0" : Number(v.toPrecision(2)))).join(", ") + (p.length > 12 ? ", …" : "");
    const counts = [[zeros, text.zeros], [under, text.underflows]].filter(([k]) => k).map(([k, words]) => `; ${words.replace("{k}", k)}`);
    return `${labels[name]}: p = ${shown}${counts.join("")}`;
  });
  view.summary.textContent = `${text.view_name}. x = ${values.logits.map(fmt).join(", ")}. ${lines.join(". ")}.`;
}

/** The state the server holds, as a string: a server run that sends what is drawn changes nothing (mount keeps the
 * view's inputs, so the focus stays on the one in use). The mappings' keyword arguments are keyed without the live
 * parameters (``params`` holds those, and kwargsOf draws with them): the server's run after a released T holds the new
 * T in its kwargs too and is the state drawn (issue 21: keyed with them, that run rebuilt the parameter inputs, and a
 * key pressed meanwhile went to the page, so the last press was lost). */
const stateKey = (logits, params, data) => {
  const kwargs = Object.fromEntries(Object.entries(data.kwargs).map(([name, kw]) =>
    [name, Object.fromEntries(Object.entries(kw).filter(([param]) => !(param in params)))]));
  return JSON.stringify([logits, params, { ...data, kwargs, logits: null, param_values: null, seq: null }]);
};

function schedule(view) {
  if (view.pending) return;
  view.pending = true;
  requestAnimationFrame(() => {
    view.pending = false;
    view.draw();
  });
}

/** Release: the new state to the server, once per release; ``post`` sends it again while no run has taken it. */
function send(view) {
  view.seq += 1;
  view.sent = { logits: [...view.logits], params: { ...view.params }, seq: view.seq };
  view.tries = 0;
  view.drawnKey = stateKey(view.logits, view.params, view.data);
  post(view);
  speak(view);
}

function post(view) {
  clearTimeout(view.watch);
  if (!view.sent || view.acked >= view.sent.seq || view.tries >= RESEND_TRIES) return;
  view.setStateValue("state", { ...view.sent, try: view.tries });  // "try" makes a resend a new value
  view.tries += 1;
  view.watch = setTimeout(() => post(view), RESEND_MS);
}

function showHandle(view, i) {
  const { input, name } = view.inputs[i];
  input.value = view.logits[i];
  input.setAttribute("aria-valuetext", fmt(view.logits[i]));
  name.textContent = `x${i} = ${fmt(view.logits[i])}`;
}

/** Set logit ``i`` from a drag on the chart (the handle follows) and redraw in the next frame. */
function moveLogit(view, i, value) {
  view.logits[i] = sixDigits(value);
  if (view.inputs[i]) showHandle(view, i);
  schedule(view);
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
    input.addEventListener("input", () => {
      view.logits[i] = sixDigits(Number(input.value));
      name.textContent = `x${i} = ${fmt(view.logits[i])}`;
      schedule(view);
    });
    input.addEventListener("change", () => send(view));
    view.inputs.push({ input, name });
    showHandle(view, i);
  });
}

function buildParams(view) {
  view.paramBox.replaceChildren();
  for (const spec of view.data.params) {
    const box = el("label", { class: "pl-param", title: spec.label }, view.paramBox);
    const name = el("span", { class: "pl-name" }, box);
    const show = () => { name.textContent = `${spec.short} = ${spec.kind === "choice" ? view.params[spec.name] : fmt(view.params[spec.name])}`; };
    let input;
    if (spec.kind === "choice") {
      input = el("select", { "aria-label": spec.control, "data-param": spec.name }, box);
      for (const choice of spec.choices) el("option", { value: choice }, input).textContent = choice;
      input.value = view.params[spec.name];
    } else {
      const high = spec.name === "k" ? view.logits.length : spec.high;
      input = el("input", { type: "range", min: spec.low, max: high, step: spec.step, "aria-label": spec.control, "data-param": spec.name }, box);
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

/** The path of a marker shape (explorer.drawing.colors.mapping_cue) of radius r at (x, y). */
function markerPath(shape, x, y, r) {
  const poly = (points) => `M${points.map(([a, b]) => `${(x + a * r).toFixed(2)},${(y + b * r).toFixed(2)}`).join("L")}Z`;
  const star = [...Array(10).keys()].map((k) => [(k % 2 ? 0.45 : 1) * Math.sin((k * Math.PI) / 5), -(k % 2 ? 0.45 : 1) * Math.cos((k * Math.PI) / 5)]);
  const hexagon = [...Array(6).keys()].map((k) => [Math.cos((k * Math.PI) / 3), Math.sin((k * Math.PI) / 3)]);
  const w = 0.35;  // half width of the cross's arms
  switch (shape) {
    case "square": return poly([[-0.85, -0.85], [0.85, -0.85], [0.85, 0.85], [-0.85, 0.85]]);
    case "diamond": return poly([[0, -1.15], [1, 0], [0, 1.15], [-1, 0]]);
    case "triangle-up": return poly([[0, -1.1], [1.05, 0.8], [-1.05, 0.8]]);
    case "triangle-down": return poly([[0, 1.1], [1.05, -0.8], [-1.05, -0.8]]);
    case "cross": return poly([[-w, -1], [w, -1], [w, -w], [1, -w], [1, w], [w, w], [w, 1], [-w, 1], [-w, w], [-1, w], [-1, -w], [-w, -w]]);
    case "x": return poly([[-1, -0.6], [-0.6, -1], [0, -0.4], [0.6, -1], [1, -0.6], [0.4, 0], [1, 0.6], [0.6, 1], [0, 0.4], [-0.6, 1], [-1, 0.6], [-0.4, 0]]);
    case "star": return poly(star.map(([a, b]) => [1.2 * a, 1.2 * b]));
    case "hexagon": return poly(hexagon);
    default: return `M${x - r},${y}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0Z`;
  }
}

/** A mapping's marker (its cue's shape, its colour, an outline that shows on light and dark). */
function marker(parent, view, name, x, y, r, tip = null) {
  const node = el("path", { d: markerPath(view.data.cues[name].marker, x, y, r), fill: view.data.colors[name], class: "pl-marker" }, parent, SVG);
  if (tip) el("title", {}, node, SVG).textContent = tip;
  return node;
}

/** The legend: each mapping's marker and dash pattern beside its name (colour is never the only cue). */
function drawLegend(view, names, extra = []) {
  const { data } = view;
  view.legend.replaceChildren();
  for (const name of names) {
    const item = el("span", { class: "pl-key" }, view.legend);
    const icon = el("svg", { width: 34, height: 14, viewBox: "0 0 34 14", "aria-hidden": "true" }, item, SVG);
    el("line", { x1: 1, x2: 33, y1: 7, y2: 7, stroke: data.colors[name], "stroke-width": 2, "stroke-dasharray": data.cues[name].dash }, icon, SVG);
    el("path", { d: markerPath(data.cues[name].marker, 17, 7, 5), fill: data.colors[name], class: "pl-marker" }, icon, SVG);
    item.append(data.labels[name]);
  }
  for (const words of extra) el("span", { class: "pl-key" }, view.legend).textContent = words;
}

/** Which zeros of ``p`` (mapping ``name`` at logits ``x``, keyword arguments ``kw``) are underflows: > 0 in exact
 * arithmetic (positive_exactly), 0 in float64. drawBars draws them as open circles, the other zeros as crosses. */
function underflows(name, p, x, kw) {
  const zero = Array.prototype.some.call(p, (v) => v === 0);
  const positive = zero ? positive_exactly(name, x, kw) : null;
  return Array.from(p, (v, i) => zero && v === 0 && positive[i]);
}

/** The legend's words for the zeros drawn (``blocks``: [{name: p}, {name: underflows}] pairs): the cross's where an
 * exact zero is drawn, the open circle's where an underflow is. */
function zeroKeys(view, blocks) {
  const kinds = new Set(blocks.flatMap(([probs, under]) =>
    Object.keys(probs).flatMap((name) => under[name].filter((_, i) => probs[name][i] === 0))));  // true: an underflow
  return [[false, view.data.text.exact_zero], [true, view.data.text.underflow]].filter(([under]) => kinds.has(under)).map(([, words]) => words);
}

/** The chart's top in the page (not moved by scrolling). */
const chartTop = (view) => view.svg.getBoundingClientRect().top + (view.scroller ? view.scroller.scrollTop : 0);

/** The chart's height: at most ``high`` (the asked ``data.height``), less where the first screen has less room below
 * its top (figure first: the chart, the legend and the downloads fit in the window), never under ``low``. The fit
 * follows the chart's top: what is above the view (a caption that wraps once its font has loaded, an element that
 * arrives after the first draw) moves the chart without resizing the view, so a change of the page's size that moved
 * it redraws. */
function fitHeight(view, low = 220, high = view.data.height) {
  const below = (view.legend.offsetHeight || 2.4 * view.data.font_size) + view.message.offsetHeight + 10;
  if (!view.scroller) {
    let node = view.root.parentElement;
    while (node && node !== document.body && !(node.scrollHeight > node.clientHeight && /auto|scroll/.test(getComputedStyle(node).overflowY))) node = node.parentElement;
    view.scroller = node && node !== document.body ? node : document.scrollingElement;
    new ResizeObserver(() => { if (Math.abs(chartTop(view) - view.fittedTop) > 0.5) schedule(view); })
      .observe(view.root.closest(".stMainBlockContainer") || document.body);
  }
  view.fittedTop = chartTop(view);
  const room = window.innerHeight - view.fittedTop - below;  // the first screen's room, wherever it is scrolled
  return Math.round(Math.max(low, Math.min(high, room)));
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

/** drawBars' margins around the plot in px: the probability ticks and axis name at the left, a line for the title
 * (``titled``) at the top, the class and logit ticks and the class axis name at the bottom. */
const barMargins = (font, titled) => ({ l: 4.2 * font, r: 10, t: titled ? 1.6 * font : 12, b: 4.2 * font });

/** Grouped bars of p (Compare, Sweeps) in ``svg`` within the box {x, y, width, height}: one column per class of
 * ``index`` (a [data-class] group, its hit area draggable when ``draggable``), one bar per mapping with its
 * marker on top; an exact zero is a cross on the axis, never a bar, and a 0 that ``underflow[name]`` marks (> 0
 * exactly, rounded to 0: positive_exactly) an open circle there; hover gives mapping, class and p. Returns the
 * plot's height in px. */
function drawBars(view, svg, box, index, names, probs, { logY = false, draggable = false, title = null, top = null, underflow = {} } = {}) {
  const { data } = view;
  const font = data.font_size;
  const margin = barMargins(font, Boolean(title));
  const plotW = box.width - margin.l - margin.r, plotH = box.height - margin.t - margin.b;
  const ox = box.x + margin.l, oy = box.y + margin.t;
  const positive = names.flatMap((name) => index.map((i) => probs[name][i]).filter((v) => v > 0));
  const highest = top ?? Math.max(1e-9, ...positive);
  const floor = logY ? Math.max(Math.min(...positive, 1) / 3, 1e-16) : 0;
  const y = logY
    ? (p) => oy + plotH * (1 - (Math.log10(Math.max(p, floor)) - (Math.log10(floor) - 0.2)) / (0.25 - Math.log10(floor)))
    : (p) => oy + plotH * (1 - p / (1.02 * highest));
  if (title) svgText(svg, ox, box.y + font, title, "pl-axis", plotW);
  for (const v of logY ? logTicks(floor) : niceTicks(1.02 * highest)) {
    el("line", { x1: ox, x2: ox + plotW, y1: y(v), y2: y(v), class: "pl-grid" }, svg, SVG);
    el("text", { x: ox - 6, y: y(v) + font / 3, class: "pl-tick", "text-anchor": "end" }, svg, SVG).textContent = logY ? `1e${Math.round(Math.log10(v))}` : fmt(v);
  }
  const cy = oy + plotH / 2, ax = box.x + font;
  // the rotated axis name, centred on the plot, never past the box's top: at most the plot's height and the top margin twice
  svgText(svg, ax, cy, data.text.probability, "pl-axis", plotH + 2 * margin.t, "middle").setAttribute("transform", `rotate(-90 ${ax} ${cy})`);
  el("text", { x: ox + plotW / 2, y: box.y + box.height - 0.4 * font, class: "pl-axis", "text-anchor": "middle" }, svg, SVG).textContent = data.text.class_axis;
  const group = plotW / Math.max(index.length, 1), barW = (0.8 * group) / Math.max(names.length, 1);
  const cross = Math.min(Math.max(barW * 0.8, 6), 14) / 2;
  const mark = Math.min(Math.max(barW * 0.32, 3), 7);
  index.forEach((i, c) => {
    const x0 = ox + c * group;
    const column = el("g", { "data-class": i, class: draggable ? "pl-column pl-draggable" : "pl-column" }, svg, SVG);
    el("rect", { x: x0, y: oy, width: group, height: plotH, class: "pl-hit" }, column, SVG);
    names.forEach((name, m) => {
      const p = probs[name][i], bx = x0 + 0.1 * group + m * barW, color = data.colors[name];
      const under = p === 0 && Boolean(underflow[name]?.[i]);
      const tip = `${data.labels[name]}\nclass ${i}\n${under ? data.text.underflow_hover : `p = ${p === 0 ? "0 (exact)" : p.toPrecision(6)}`}`;
      if (under) {  // > 0 exactly, 0 in float64: an open circle on the axis
        const ring = el("circle", { cx: bx + barW / 2, cy: y(floor), r: cross, stroke: color, class: "pl-zero pl-underflow" }, column, SVG);
        el("title", {}, ring, SVG).textContent = tip;
      } else if (p === 0) {  // exact zero: a cross on the axis, never a tiny bar
        const cx = bx + barW / 2, zy = y(floor);
        const zero = el("path", { d: `M${cx - cross},${zy - cross}L${cx + cross},${zy + cross}M${cx - cross},${zy + cross}L${cx + cross},${zy - cross}`, stroke: color, class: "pl-zero" }, column, SVG);
        el("title", {}, zero, SVG).textContent = tip;
      } else {
        const bar = el("rect", { x: bx, y: y(p), width: Math.max(barW - 1, 1), height: Math.max(y(floor) - y(p), 0), fill: color, class: "pl-bar" }, column, SVG);
        el("title", {}, bar, SVG).textContent = tip;
        if (barW >= 5) marker(column, view, name, bx + barW / 2, y(p) - mark - 1, mark);
      }
    });
    if (index.length <= 24) {
      el("text", { x: x0 + group / 2, y: oy + plotH + 1.2 * font, class: "pl-tick", "text-anchor": "middle" }, svg, SVG).textContent = `${i}`;
      el("text", { x: x0 + group / 2, y: oy + plotH + 2.3 * font, class: "pl-tick pl-logit", "text-anchor": "middle" }, svg, SVG).textContent = fmt(view.logits[i]);
    }
  });
  el("line", { x1: ox, x2: ox + plotW, y1: y(floor), y2: y(floor), class: "pl-axisline" }, svg, SVG);
  return plotH;
}

const views = new WeakMap();

/** The components v2 entry of a live view: build it once per mount (handles, parameters, the chart's
 * ``setup``), then draw what the server sends unless it is the state already drawn (the echo of a release: the
 * inputs stay as they are). A run made before the view's last release is not drawn and the release is sent again
 * at once, so that the server ends with the last release (docs/live.md, "Releases in flight"). */
function mount({ parentElement, data, setStateValue }, page, drawView, setup = () => {}) {
  let view = views.get(parentElement);
  if (!view) {
    view = build(parentElement, page, data.text);
    view.seq = data.seq;
    view.acked = data.seq;
    view.draw = () => { if (view.data) drawView(view); };
    views.set(parentElement, view);
    setup(view);
  }
  view.setStateValue = setStateValue;
  view.acked = Math.max(view.acked, data.seq);
  if (data.seq < view.seq) {  // a run from before the last release: the view is ahead of it
    post(view);
    return;
  }
  clearTimeout(view.watch);
  const incoming = stateKey(data.logits, data.param_values, data);
  if (incoming === view.drawnKey) {  // the server's run after a release: already drawn
    view.data = data;
    return;
  }
  const rebuild = !view.inputs || data.logits.length !== view.logits.length || data.bound !== view.data.bound;
  view.data = data;
  view.logits = [...data.logits];
  view.params = { ...data.param_values };
  view.drawnKey = incoming;
  view.svg.style.fontSize = `${data.font_size}px`;
  view.legend.style.fontSize = data.present ? "1.1rem" : "0.85rem";
  view.controls.style.fontSize = data.present ? "1.25rem" : "";
  if (!view.data || view.present !== data.present) showParams(view, !data.present);
  view.present = data.present;
  if (rebuild) buildHandles(view);
  else view.inputs.forEach((_, i) => showHandle(view, i));
  buildParams(view);
  view.draw();
  speak(view);
}
