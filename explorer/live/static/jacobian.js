// Jacobian, live: a heat map of J[i][j] = dp_i/dx_j (probcore.js's closed forms, as probcore.jacobian) for each
// picked mapping, recomputed and redrawn in the animation frame after each input (live_core.js). Colours as the
// server's (RdBu, symmetric about 0 per map); hover gives the entry. Perturb-max has no closed form: the server
// draws it. data-live-view="jacobian", data-values = {"logits", "mappings": {name: p}, "jacobians": {name: J}}.

const RDBU = [[0, [5, 48, 97]], [0.35, [103, 169, 207]], [0.5, [247, 247, 247]], [0.6, [244, 165, 130]], [1, [103, 0, 31]]];

/** RdBu at u in [0, 1] (0: blue, 1: red), as Plotly's scale: linear between its stops. */
function rdbu(u) {
  const k = RDBU.findIndex(([stop]) => stop >= u);
  if (k <= 0) return `rgb(${RDBU[0][1]})`;
  const [[a, ca], [b, cb]] = [RDBU[k - 1], RDBU[k]];
  const w = (u - a) / (b - a);
  return `rgb(${ca.map((c, i) => Math.round(c + w * (cb[i] - c))).join(",")})`;
}

function drawJacobian(view) {
  const { data, svg } = view;
  const started = performance.now();
  const { probs, errors, kwargs } = compute(view);
  const names = data.drawn.filter((name) => probs[name]);
  const index = viewIndex(view.logits, probs).slice(0, data.handles ? 12 : TOP_VIEW);
  const font = data.font_size;
  const width = Math.max(view.root.clientWidth, 320);
  const columns = index.length <= 12 ? Math.min(2, Math.max(names.length, 1)) : 1;
  const panel = Math.min((width - 10) / columns, fitHeight(view) - 1.6 * font);
  const cell = (panel - 3 * font) / Math.max(index.length, 1);
  const rows = Math.ceil(names.length / columns);
  svg.setAttribute("viewBox", `0 0 ${width} ${rows * (panel + 1.6 * font)}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", rows * (panel + 1.6 * font));
  svg.replaceChildren();
  const jacobians = {};
  names.forEach((name, k) => {
    const J = jacobian(name, view.logits, kwargs[name], data.target);
    jacobians[name] = J.map((row) => Array.from(row));
    const ox = (k % columns) * (width / columns) + 2.5 * font, oy = Math.floor(k / columns) * (panel + 1.6 * font) + 1.4 * font;
    marker(svg, view, name, ox + 0.45 * font, oy - 0.75 * font, 0.4 * font);  // the mapping's cue beside its name
    svgText(svg, ox + 1.1 * font, oy - 0.4 * font, data.labels[name], "pl-axis", width / columns - 3.6 * font - 6);
    const bound = Math.max(1e-12, ...index.flatMap((i) => index.map((j) => Math.abs(J[i][j]))));
    index.forEach((i, r) => {
      if (index.length <= 24) el("text", { x: ox - 0.3 * font, y: oy + (r + 0.5) * cell + font / 3, class: "pl-tick", "text-anchor": "end" }, svg, SVG).textContent = i;
      index.forEach((j, c) => {
        const box = el("rect", { x: ox + c * cell, y: oy + r * cell, width: cell + 0.5, height: cell + 0.5, fill: rdbu(0.5 + J[i][j] / (2 * bound)) }, svg, SVG);
        el("title", {}, box, SVG).textContent = `∂p${i}/∂x${j} = ${J[i][j].toPrecision(4)}`;
      });
    });
    if (index.length <= 24) index.forEach((j, c) => { el("text", { x: ox + (c + 0.5) * cell, y: oy + index.length * cell + font, class: "pl-tick", "text-anchor": "middle" }, svg, SVG).textContent = j; });
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
