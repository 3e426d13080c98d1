// Jacobian, live: a heat map of J[i][j] = dp_i/dx_j (probcore.js's closed forms, as probcore.jacobian) for each
// picked mapping, recomputed and redrawn in the animation frame after each input (live_core.js). Colours as the
// server's (RdBu, symmetric about 0 per map); hover gives the entry. The maps are laid out in the columns that give
// each the largest side within the width and the first screen's room (figure first, every map: jacobianGrid).
// Perturb-max has no closed form: the server draws it. data-live-view="jacobian", data-values = {"logits", "mappings":
// {name: p}, "jacobians": {name: J}}.

const RDBU = [[0, [5, 48, 97]], [0.35, [103, 169, 207]], [0.5, [247, 247, 247]], [0.6, [244, 165, 130]], [1, [103, 0, 31]]];

/** RdBu at u in [0, 1] (0: blue, 1: red), as Plotly's scale: linear between its stops. */
function rdbu(u) {
  const k = RDBU.findIndex(([stop]) => stop >= u);
  if (k <= 0) return `rgb(${RDBU[0][1]})`;
  const [[a, ca], [b, cb]] = [RDBU[k - 1], RDBU[k]];
  const w = (u - a) / (b - a);
  return `rgb(${ca.map((c, i) => Math.round(c + w * (cb[i] - c))).join(",")})`;
}

// A map's frame in font sizes: its title above (a line, and LINE more where titles take two), its column ticks under,
// its row ticks at the left, a gap at the right; a title starts TITLE_X from its column's left.
const TITLE = 1.4, LINE = 1.05, TICKS = 1.5, LEFT = 2.5, RIGHT = 0.5, TITLE_X = 1.4;
const MIN_SIDE = 3;  // the least side of a map, in font sizes: under it the maps run past the first screen
const SQUEEZE = 0.8;  // a title squeezed more than this to fit its column is drawn on two lines

/** A title in two lines, broken at the space or before the bracket that makes the longer line shortest (["words"]
 * where there is no such place). */
function twoLines(words, em) {
  let best = [words];
  for (let i = 1; i < words.length; i += 1) {
    if (!" (（".includes(words[i])) continue;
    const lines = [words.slice(0, i).trimEnd(), words.slice(i).trimStart()];
    if (best.length === 1 || Math.max(...lines.map((l) => textWidth(l, em))) < Math.max(...best.map((l) => textWidth(l, em)))) best = lines;
  }
  return best;
}

/** The grid of the maps titled ``titles`` in ``width`` x ``height`` px: the number of columns that gives each map the
 * largest side (ties: fewer columns), a row at most ``rowHigh`` px high. {columns, rows, lines, side}: side =
 * min(width / columns - (LEFT + RIGHT) font, min(height / rows, rowHigh) - (TITLE + TICKS + LINE where the titles take
 * two lines) font), never under MIN_SIDE font; a title takes two lines where one would be squeezed under SQUEEZE. */
function jacobianGrid(titles, width, height, rowHigh, font) {
  const count = Math.max(titles.length, 1), em = 0.9 * font;  // the titles' class pl-axis: 0.9 em
  let best = null;
  for (let columns = 1; columns <= count; columns += 1) {
    const rows = Math.ceil(count / columns), room = width / columns - (TITLE_X + RIGHT) * font;
    const lines = titles.some((words) => textWidth(words, em) * SQUEEZE > room) ? 2 : 1;
    const side = Math.min(width / columns - (LEFT + RIGHT) * font,
      Math.min(height / rows, rowHigh) - (TITLE + (lines - 1) * LINE + TICKS) * font);
    if (!best || side > best.side + 0.5) best = { columns, rows, lines, side };
  }
  return { ...best, side: Math.max(best.side, MIN_SIDE * font) };
}

/** Every ``step``-th tick label where a label is wider (columns) or taller (rows) than a cell, so that none overlaps. */
function tickStep(index, cell, font, across) {
  const tick = 0.8 * font, digits = String(Math.max(...index)).length;
  return Math.max(1, Math.ceil((across ? digits * 0.62 * tick + 2 : 1.1 * tick) / cell));
}

function drawJacobian(view) {
  const { data, svg } = view;
  const started = performance.now();
  const { probs, errors, kwargs } = compute(view);
  const names = data.drawn.filter((name) => probs[name]);
  const index = viewIndex(view.logits, probs).slice(0, data.handles ? 12 : TOP_VIEW);
  const font = data.font_size;
  const width = Math.max(view.root.clientWidth, 320);
  // figure first: every map on the first screen, in as many rows as gives the largest maps (a row at most data.height)
  const titles = names.map((name) => data.labels[name]);
  const { columns, rows, lines, side } = jacobianGrid(titles, width, fitHeight(view, 220, Infinity), data.height, font);
  const top = (TITLE + (lines - 1) * LINE) * font;  // a row's title band
  const columnW = width / columns, rowH = top + side + TICKS * font, titleW = columnW - (TITLE_X + RIGHT) * font;
  const cell = side / Math.max(index.length, 1);
  const rowStep = tickStep(index, cell, font, false), columnStep = tickStep(index, cell, font, true);
  svg.setAttribute("viewBox", `0 0 ${width} ${rows * rowH}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", rows * rowH);
  svg.replaceChildren();
  const jacobians = {};
  names.forEach((name, k) => {
    const J = jacobian(name, view.logits, kwargs[name], data.target);
    jacobians[name] = J.map((row) => Array.from(row));
    const left = (k % columns) * columnW, ox = left + LEFT * font, oy = Math.floor(k / columns) * rowH + top;
    const title = lines > 1 && textWidth(data.labels[name], 0.9 * font) * SQUEEZE > titleW ? twoLines(data.labels[name], 0.9 * font) : [data.labels[name]];
    const first = oy - 0.4 * font - (title.length - 1) * LINE * font;  // the first line's baseline
    marker(svg, view, name, left + 0.75 * font, first - 0.35 * font, 0.4 * font);  // the mapping's cue beside its name
    title.forEach((words, line) => svgText(svg, left + TITLE_X * font, first + line * LINE * font, words, "pl-axis", titleW));
    const bound = Math.max(1e-12, ...index.flatMap((i) => index.map((j) => Math.abs(J[i][j]))));
    index.forEach((i, r) => {
      if (index.length <= 24 && r % rowStep === 0) el("text", { x: ox - 0.3 * font, y: oy + (r + 0.5) * cell + font / 3, class: "pl-tick", "text-anchor": "end" }, svg, SVG).textContent = i;
      index.forEach((j, c) => {
        const box = el("rect", { x: ox + c * cell, y: oy + r * cell, width: cell + 0.5, height: cell + 0.5, fill: rdbu(0.5 + J[i][j] / (2 * bound)) }, svg, SVG);
        el("title", {}, box, SVG).textContent = `∂p${i}/∂x${j} = ${J[i][j].toPrecision(4)}`;
      });
    });
    if (index.length <= 24) index.forEach((j, c) => { if (c % columnStep === 0) el("text", { x: ox + (c + 0.5) * cell, y: oy + index.length * cell + font, class: "pl-tick", "text-anchor": "middle" }, svg, SVG).textContent = j; });
  });
  view.legend.replaceChildren();
  el("span", { class: "pl-key" }, view.legend).textContent = data.text.scale;
  view.message.textContent = Object.entries(errors).map(([name, message]) => `${data.labels[name]}: ${message}`).join("\n");
  const shown = {};
  for (const name of names) shown[name] = Array.from(probs[name]);
  setValues(view, { logits: view.logits, mappings: shown, jacobians }, started);
}

export default function liveJacobian(args) {
  mount(args, "jacobian", drawJacobian);
}
