// Compare, live: every shown mapping's p as grouped SVG bars, recomputed with probcore.js and redrawn in the
// animation frame after each input (live_core.js): a logit handle, a bar dragged up or down, a parameter.
// A 0 that is > 0 in exact arithmetic (an underflow: positive_exactly) is an open circle, the other zeros a cross.
// The root holds what it draws: data-live-view="compare", data-values = {"logits", "mappings": {name: p},
// "underflows": {name: [whether p_i is an underflow]}}. Given the table's words (data.table), the statistics table is
// drawn under the chart in the same frame (stats.js: the server's cells, written as the server writes them).

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
    moveLogit(view, drag.i, value);
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
  const started = performance.now();
  const { probs, errors, kwargs } = compute(view);
  const names = data.mappings.filter((name) => probs[name]);
  const underflow = {};
  for (const name of names) underflow[name] = underflows(name, probs[name], view.logits, kwargs[name]);
  const index = viewIndex(view.logits, probs);
  const width = Math.max(view.root.clientWidth, 320), height = fitHeight(view);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.replaceChildren();
  view.plotHeight = drawBars(view, svg, { x: 0, y: 0, width, height }, index, names, probs,
    { logY: data.log_y, draggable: data.handles, underflow });
  const shown = {};
  for (const name of names) shown[name] = Array.from(probs[name]);
  drawLegend(view, names, zeroKeys(view, [[shown, underflow]]));
  view.message.textContent = Object.entries(errors).map(([name, message]) => `${data.labels[name]}: ${message}`).join("\n");
  drawStatistics(view, names, probs, kwargs);
  setValues(view, { logits: view.logits, mappings: shown, underflows: underflow }, started);
}

/** The statistics table of the mappings computed (a <table> with its column and row headers and its caption, the
 * server's table's words), and the notes under it; removed where the server draws the table (data.table null). */
function drawStatistics(view, names, probs, kwargs) {
  const words = view.data.table;
  if (!words) {
    if (view.stats) view.stats.remove();
    view.stats = null;
    return;
  }
  if (!view.stats || !view.stats.isConnected) {
    view.stats = el("section", { class: "pl-stats", "data-live-table": view.page });
    view.root.after(view.stats);
  }
  const { labels, target } = view.data;
  const rows = names.map((name) => [name, statistics_row(name, view.logits, kwargs[name], target, words.support_underflow, probs[name])]);
  const section = view.stats;
  section.replaceChildren();
  el("h3", { class: "pl-stats-title" }, section).textContent = words.title;
  const table = el("table", {}, section);
  el("caption", {}, table).textContent = words.note;
  const head = el("tr", {}, el("thead", {}, table));
  for (const column of words.columns) el("th", { scope: "col" }, head).textContent = column;
  const body = el("tbody", {}, table);
  for (const [name, cells] of rows) {
    const tr = el("tr", {}, body);
    el("th", { scope: "row" }, tr).textContent = labels[name];
    for (const text of [cells.support, cells.entropy, cells.max_p, cells.sum, words.loss_fns[name], cells.loss, cells.grad])
      el("td", {}, tr).textContent = text;
  }
  const listed = (key) => rows.filter(([, cells]) => cells[key]).map(([name]) => labels[name]).join(", ");
  for (const [key, note] of [["underflow", words.underflow_note], ["no_loss", words.no_loss]])
    if (listed(key)) el("p", { class: "pl-stats-note" }, section).textContent = note.replace("{mappings}", listed(key));
}

export default function liveCompare(args) {
  mount(args, "compare", drawCompare, dragBars);
}
