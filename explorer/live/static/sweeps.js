// Sweeps, live: p of every shown mapping as the temperature runs over TEMPERATURES (p(x / T), the mapping's own T
// set to 1: probcore.js's temperature_sweep) and of the alpha mappings as alpha runs over ALPHAS (alpha_sweep),
// as grouped bars at the chosen T and alpha. The T and alpha controls are the app's own: a range input each
// (keyboard and pointer) with real Play / Pause buttons, in place of Plotly's in-chart player. The sweeps are
// computed when the logits or parameters change; playing only picks a row. A 0 that is > 0 in exact arithmetic (an
// underflow: positive_exactly at that T or alpha) is an open circle, the other zeros a cross, as on Compare.
// data-live-view="sweeps", data-values = {"logits", "temperature", "alpha", "mappings": {name: p at T},
// "alpha_mappings": {name: p at alpha}, "underflows": {name: [whether p_i at T is an underflow]}, "alpha_underflows":
// {name: [the same at alpha]}}.

const PLAY_MS = 120;  // one grid step per 120 ms, as the server's Plotly animation
const MIN_PLOT = 6;  // the least height of a stacked panel's plot, in font sizes

/** A sweep's control: its value's name and value, a range over the grid's indices, Play and Pause. ``control``: the
 * accessible name of the range, which says which sweep it moves (the page's live α parameter is another control);
 * Play and Pause are named with it too. */
function sweepControl(view, key, grid, label, start, control) {
  const box = el("div", { class: "pl-sweep", role: "group", "aria-label": control }, view.sweepBox);
  const name = el("span", { class: "pl-name" }, box);
  const input = el("input", { type: "range", min: 0, max: grid.length - 1, step: 1, "aria-label": control, "data-sweep": key }, box);
  const play = el("button", { type: "button", class: "pl-button", "data-play": key }, box);
  const pause = el("button", { type: "button", class: "pl-button", "data-pause": key }, box);
  play.textContent = `▶ ${view.data.text.play}`;
  pause.textContent = `■ ${view.data.text.pause}`;
  play.setAttribute("aria-label", `${play.textContent}${view.data.text.name_separator}${control}`);  // the visible words first (WCAG 2.5.3)
  pause.setAttribute("aria-label", `${pause.textContent}${view.data.text.name_separator}${control}`);
  const sweep = { index: start, timer: null };
  const show = () => {
    input.value = sweep.index;
    input.setAttribute("aria-valuetext", `${label} = ${fmt(grid[sweep.index])}`);
    name.textContent = `${label} = ${fmt(grid[sweep.index])}`;
  };
  const stop = () => { clearInterval(sweep.timer); sweep.timer = null; play.setAttribute("aria-pressed", "false"); };
  input.addEventListener("input", () => { sweep.index = Number(input.value); show(); schedule(view); });
  play.addEventListener("click", () => {
    if (sweep.timer) return;
    if (sweep.index >= grid.length - 1) sweep.index = 0;
    play.setAttribute("aria-pressed", "true");
    sweep.timer = setInterval(() => {
      sweep.index += 1;
      show();
      schedule(view);
      if (sweep.index >= grid.length - 1) stop();
    }, PLAY_MS);
  });
  pause.addEventListener("click", stop);
  show();
  return sweep;
}

function setupSweeps(view) {
  view.sweepBox = el("div", { class: "pl-sweeps" }, view.controls);
  view.sweepControls = null;
}

/** The sweeps at the live logits and parameters (cached: playing does not recompute them). */
function sweeps(view, kwargs) {
  const { data } = view;
  const key = JSON.stringify([view.logits, kwargs, data.mappings, data.alpha_mappings, data.target]);
  if (view.sweepKey !== key) {
    view.sweepKey = key;
    view.byT = {};
    view.byAlpha = {};
    view.sweepErrors = {};
    for (const name of data.mappings) {
      try {
        view.byT[name] = temperature_sweep(name, view.logits, kwargs[name], data.target);
        if (data.alpha_mappings.includes(name)) view.byAlpha[name] = alpha_sweep(name, view.logits, kwargs[name], data.target);
      } catch (err) {
        view.sweepErrors[name] = err.message;
      }
    }
  }
  return { byT: view.byT, byAlpha: view.byAlpha, errors: view.sweepErrors };
}

function drawSweeps(view) {
  const { data, svg } = view;
  const started = performance.now();
  if (!view.sweepControls) {
    view.sweepControls = {
      t: sweepControl(view, "T", TEMPERATURES, "T", data.t_start, data.text.t_control),
      alpha: sweepControl(view, "alpha", ALPHAS, "α", data.alpha_start, data.text.alpha_control),
    };
  }
  const kwargs = kwargsOf(view);
  const { byT, byAlpha, errors } = sweeps(view, kwargs);
  const ti = view.sweepControls.t.index, ai = view.sweepControls.alpha.index;
  const names = data.mappings.filter((name) => byT[name]), alphaNames = data.alpha_mappings.filter((name) => byAlpha[name]);
  const atT = {}, atAlpha = {};
  const underT = {}, underAlpha = {};
  for (const name of names) {  // the row of temperature_sweep: mapping(x / T) with its own temperature 1
    atT[name] = Array.from(byT[name][ti]);
    underT[name] = underflows(name, atT[name], view.logits.map((v) => v / TEMPERATURES[ti]), { ...kwargs[name], temperature: 1 });
  }
  for (const name of alphaNames) {  // the row of alpha_sweep: mapping(x) at that alpha
    atAlpha[name] = Array.from(byAlpha[name][ai]);
    underAlpha[name] = underflows(name, atAlpha[name], view.logits, { ...kwargs[name], alpha: ALPHAS[ai] });
  }
  const index = viewIndex(view.logits, { ...atT, ...atAlpha });
  const width = Math.max(view.root.clientWidth, 320), height = fitHeight(view, 240);
  // the two panels side by side on a wide view, or where stacked each plot would be under MIN_PLOT font sizes high
  // (a short first screen: 1280x720 in presentation mode)
  const margin = barMargins(data.font_size, true);
  const wide = alphaNames.length > 0 && (width >= 900 || height / 2 - margin.t - margin.b < MIN_PLOT * data.font_size);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.replaceChildren();
  const title = (words, value) => `${words} — ${value}`;
  const panels = alphaNames.length ? (wide ? [[0, 0, width / 2, height], [width / 2, 0, width / 2, height]]
    : [[0, 0, width, height / 2], [0, height / 2, width, height / 2]]) : [[0, 0, width, height]];
  drawBars(view, svg, { x: panels[0][0], y: panels[0][1], width: panels[0][2], height: panels[0][3] }, index, names, atT,
    { top: 1, title: title(data.text.t_title, `T = ${fmt(TEMPERATURES[ti])}`), underflow: underT });
  if (alphaNames.length) {
    drawBars(view, svg, { x: panels[1][0], y: panels[1][1], width: panels[1][2], height: panels[1][3] }, index, alphaNames, atAlpha,
      { top: 1, title: title(data.text.alpha_title, `α = ${fmt(ALPHAS[ai])}`), underflow: underAlpha });
  }
  drawLegend(view, names, [...(alphaNames.length ? [] : [data.text.no_alpha]), ...zeroKeys(view, [[atT, underT], [atAlpha, underAlpha]])]);
  view.message.textContent = Object.entries(errors).map(([name, message]) => `${data.labels[name]}: ${message}`).join("\n");
  setValues(view, { logits: view.logits, temperature: TEMPERATURES[ti], alpha: ALPHAS[ai], mappings: atT, alpha_mappings: atAlpha,
    underflows: underT, alpha_underflows: underAlpha }, started);
}

export default function liveSweeps(args) {
  mount(args, "sweeps", drawSweeps, setupSweeps);
}
