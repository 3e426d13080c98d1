"""What the live views draw with (issue 21), measured: the same Compare frame (every default mapping
at the logits, computed with explorer/live/static/probcore.js) drawn 60 times with a new x0, as the
live view's SVG and as Plotly.react on the plotly.js the plotly package ships, in one Chromium page
(no server). Prints ms per frame (p50 / p95) of each, and the load average.

    python bench/bench_live_drawing.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

import plotly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.browser import chromium, percentile  # noqa: E402
from explorer.session import state  # noqa: E402
from explorer.drawing.colors import mapping_color  # noqa: E402

STATIC = Path(__file__).resolve().parents[1] / "explorer" / "live" / "static"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
FRAMES = 60
TIMED = """async ([js, data, frames]) => {
    const mod = await import(URL.createObjectURL(new Blob([js], {type: 'text/javascript'})));
    const host = document.getElementById('svg');
    mod.default({parentElement: host, data, setStateValue: () => {}});
    const input = host.querySelector("input[aria-label='x0']");
    const svg = [], plotly = [];
    const names = data.mappings;
    const figure = (x) => names.map(name => ({type: 'bar', name, x: [0, 1, 2], marker: {color: data.colors[name]},
        y: Array.from(mod.probabilities(name, x, data.kwargs[name], 0))}));
    await Plotly.newPlot('plotly', figure(data.logits), {barmode: 'group', height: 380, width: 900});
    for (let i = 0; i < frames; i++) {
        const x0 = -3 + 6 * i / frames;
        let t = performance.now();
        input.value = x0; input.dispatchEvent(new Event('input'));
        await new Promise(r => requestAnimationFrame(() => r()));  // the view draws in this frame
        await new Promise(r => requestAnimationFrame(() => r()));
        svg.push(Number(host.querySelector('[data-live-view]').getAttribute('data-frame-ms')));
        t = performance.now();
        await Plotly.react('plotly', figure([x0, ...data.logits.slice(1)]), {barmode: 'group', height: 380, width: 900});
        plotly.push(performance.now() - t);
    }
    return {svg, plotly};
}"""


def main() -> None:
    names = list(state.DEFAULT_SHOWN)
    data = {
        "logits": [1.2, 0.3, -0.5],
        "mappings": names,
        "target": 0,
        "log_y": False,
        "kwargs": {n: {k: v for k, v in state.default_kwargs(n).items() if v is not None} for n in names},
        "params": [],
        "param_values": {},
        "labels": {n: n for n in names},
        "colors": {n: mapping_color(n) for n in names},
        "handles": True,
        "bound": 10.0,
        "height": 380,
        "font_size": 13,
        "text": {"probability": "p", "class_axis": "class", "exact_zero": "x = 0"},
        "lang": "en",
    }
    js = "\n".join((STATIC / name).read_text() for name in ("probcore.js", "live_core.js", "compare.js"))
    with chromium(sync_playwright) as browser:
        page = browser.new_page(viewport={"width": 1000, "height": 1000})
        page.set_content("<div id='svg' style='width:900px'></div><div id='plotly'></div>")
        page.add_script_tag(path=str(PLOTLY_JS))
        result = page.evaluate(TIMED, [js, data, FRAMES])
    for name, ms in result.items():
        ms = sorted(ms)
        print(
            f"{name}: p50 {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms per frame ({len(ms)} frames)"
        )
    print("load average", " ".join(f"{v:.2f}" for v in os.getloadavg()))
    print(json.dumps({k: [round(v, 2) for v in ms] for k, ms in result.items()}))


if __name__ == "__main__":
    main()
