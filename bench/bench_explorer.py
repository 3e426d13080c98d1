"""Explorer responsiveness in a real browser (Playwright + Debian's Chromium), every page side by
side with a one-slider, one-chart Streamlit app run the same way (the floor of this machine). The
floor app freezes its imported objects as app.py does (``gc.freeze``), so Streamlit's collection
after every run costs it nothing either.

    python bench/bench_explorer.py [--steps 20] [--sessions 3]
    python bench/bench_explorer.py --live   # the live views only (issue 21): bench/results/live.md

Measures, in one run: server start to health; the home page's first render (the first session
after the server starts, and new sessions after it) and each page's first render in a new
session; the main interaction of each of the eleven pages (a logit or parameter step: key press
-> every chart that changes drawn, the script idle, nothing stale; p50 / p95), split into key press
-> script start, the script (the run the server logs with PROBCORE_RUN_LOG=1: a fragment's run
where the step reruns only a fragment) and script end -> drawn; where a step's time goes in the
browser (Chromium's main-thread busy / JavaScript / layout / style time per step from the DevTools
Performance domain, then a V8 sampling profile of a few more steps split into Plotly's bundle,
React's, other JavaScript, native work and garbage collection); and, outside the browser, where a
Compare rerun's script time goes (cProfile under ``streamlit.testing``). Goals are ratios to the
floor measured in the same run. Writes bench/results/explorer.md and .json. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.browser import IDLE, ROOT, VIEWPORT, chromium, open_controls, percentile, serve, settle  # noqa: E402
from views import registry  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FLOOR_APP = """import gc
import plotly.graph_objects as go
import streamlit as st
gc.freeze()  # as app.py does
x = st.sidebar.slider("x2", -10.0, 10.0, -0.5, step=0.05, key="x_2")
st.plotly_chart(go.Figure(go.Bar(y=[1.2, 0.3, x])))
"""
TABLE_APP = """import gc
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
gc.freeze()
x = st.sidebar.slider("x2", -10.0, 10.0, -0.5, step=0.05, key="x_2")
st.plotly_chart(go.Figure(go.Bar(y=[1.2, 0.3, x])))
p = np.exp(np.array([1.2, 0.3, x]) * np.arange(1, 9)[:, None])
frame = pd.DataFrame({"mapping": [f"mapping {i}" for i in range(8)], "support": 3, "entropy": p[:, 0] / p.sum(1),
                      "max p": p.max(1) / p.sum(1), "sum": 1.0, "loss": "cross_entropy", "loss value": x * np.arange(8),
                      "gradient": [str(np.round(r / r.sum(), 3)) for r in p]})
cells = [[f"{v:.4f}" if isinstance(v, float) else str(v) for v in row] for row in frame.itertuples(index=False)]
markdown = "\\n".join("| " + " | ".join(r) + " |" for r in [list(frame.columns), ["---"] * frame.shape[1], *cells])
ELEMENT
"""
TABLE_ELEMENTS = {  # the Compare table (8 rows) drawn three ways beside the floor's chart
    "st.dataframe": "st.dataframe(frame, hide_index=True)",
    "st.table": "st.table(frame.set_index('mapping'))",
    "markdown": "st.markdown(markdown)",
}
CHARTS_DATA = """() => JSON.stringify([...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')]
    .map(p => (p._fullData || []).map(t => ['x', 'y', 'z', 'a', 'b', 'c'].map(k => t[k] ? Array.from(t[k]).slice(0, 60)
        .map(e => (Array.isArray(e) || ArrayBuffer.isView(e)) ? Array.from(e).slice(0, 60) : e) : null)))
    .concat([...document.querySelectorAll('[data-live-view]')].map(v => v.getAttribute('data-values'))))"""
NOTHING_STALE = "() => !document.querySelector('[data-stale=\"true\"]')"


class Interaction(NamedTuple):
    """A page's main interaction: the widget (key) and how it steps ("slider": arrow keys on its
    thumb; "number": its +/- buttons), the page's path with any query that sets it up, the goal
    group (core: p50 <= 1.5x floor, p95 <= 2x; topic: 2x / 3x)."""

    path: str
    key: str
    kind: str
    group: str


PAGES = {
    "compare": Interaction(registry.PAGES["compare"].url_path, "x_2", "slider", "core"),
    "simplex": Interaction(registry.PAGES["simplex"].url_path, "x_2", "slider", "core"),
    "jacobian": Interaction(registry.PAGES["jacobian"].url_path, "x_2", "slider", "core"),
    "loss": Interaction(registry.PAGES["loss"].url_path, "x_2", "slider", "core"),
    "sweeps": Interaction(registry.PAGES["sweeps"].url_path, "x_2", "slider", "core"),
    "perturb": Interaction(registry.PAGES["perturb"].url_path, "x_2", "slider", "topic"),
    "margin": Interaction(registry.PAGES["margin"].url_path, "margin_m", "slider", "topic"),
    "overconfidence": Interaction(registry.PAGES["overconfidence"].url_path, "oc_k", "number", "topic"),
    "vocab": Interaction(registry.PAGES["vocab"].url_path, "vocab_s", "slider", "topic"),
    "attention": Interaction(registry.PAGES["attention"].url_path, "attention_scale", "slider", "topic"),
    "check": Interaction(registry.PAGES["check"].url_path + "?check_row=0", "check_row", "number", "topic"),
}
GOALS = {"core": (1.5, 2.0), "topic": (2.0, 3.0)}  # p50, p95 as multiples of the floor's


def open_page(browser, url: str):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(120_000)
    start = time.perf_counter()
    page.goto(url)
    settle(page)
    return page, time.perf_counter() - start


def first_renders(browser, url: str, sessions: int) -> list[float]:
    """Seconds from opening the page in a new browser session to every chart drawn."""
    times = []
    for _ in range(sessions):
        page, seconds = open_page(browser, url)
        times.append(seconds)
        page.context.close()
    return times


def step(page, action: Interaction, forward: bool) -> float:
    """One step of the page's interaction; seconds until a chart shows new data, the script is
    idle and nothing on the page is stale."""
    before = page.evaluate(CHARTS_DATA)
    if action.kind == "slider":
        target = page.locator(f".st-key-{action.key} input[type='range']")
        start = time.perf_counter()
        target.press("ArrowRight" if forward else "ArrowLeft")
    else:
        target = page.locator(
            f".st-key-{action.key} button[data-testid='stNumberInputStep{'Up' if forward else 'Down'}']"
        )
        start = time.perf_counter()
        target.click()
    page.wait_for_function(f"b => ({CHARTS_DATA})() !== b", arg=before, polling="raf")
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(NOTHING_STALE, polling="raf")
    return time.perf_counter() - start


BROWSER_METRICS = {
    "TaskDuration": "browser_busy_ms",
    "ScriptDuration": "js_ms",
    "LayoutDuration": "layout_ms",
    "RecalcStyleDuration": "style_ms",
}
PAGE_SIZE = """() => ({charts: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
    traces: [...document.querySelectorAll('.js-plotly-plot')].reduce((n, p) => n + (p._fullData || []).length, 0),
    elements: document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]').length})"""


PROFILED_STEPS = 6
JS_PARTS = {"PlotlyChart": "plotly_ms", "react-dom": "react_ms"}  # script files of Streamlit's frontend bundle


def js_split(profile: dict, count: int) -> dict[str, float]:
    """Milliseconds per step of a V8 sampling profile's self time in Plotly's bundle, in React's,
    in the rest of the page's JavaScript, and outside JavaScript ("(program)": style, layout,
    paint and other native work on the main thread) and in garbage collection."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    split = dict.fromkeys([*JS_PARTS.values(), "other_js_ms", "native_ms", "gc_ms"], 0.0)
    for sample, dt in zip(profile["samples"], profile["timeDeltas"]):
        frame = nodes[sample]
        name, url = frame["functionName"], frame["url"]
        part = next((v for k, v in JS_PARTS.items() if k in url), None)
        if part is None:
            part = {"(program)": "native_ms", "(garbage collector)": "gc_ms", "(idle)": None, "(root)": None}.get(
                name, "other_js_ms"
            )
        if part is not None:
            split[part] += dt / 1000 / count
    return {k: round(v, 1) for k, v in split.items()}


def browser_metrics(cdp) -> dict[str, float]:
    """Chromium's cumulative main-thread times (seconds) from the DevTools Performance domain."""
    return {
        m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] in BROWSER_METRICS
    }


def steps(
    browser, url: str, action: Interaction, count: int
) -> tuple[float, list[float], list[tuple[float, float]], dict]:
    """The page's first render, then ``count`` steps alternating forward / back (one cache-warming
    step first, dropped). Returns the first render, the step times, (press time, step time) and the
    browser's profile of a step: main-thread busy / JavaScript / layout / style ms per step (DevTools
    Performance metrics over the timed steps) and the page's charts, traces and elements."""
    page, first = open_page(browser, url)
    open_controls(page)  # the core pages' Streamlit controls start folded (figure first)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    if action.kind == "slider":
        page.locator(f".st-key-{action.key} input[type='range']").focus()
    totals, presses = [], []
    for i in range(count + 1):
        if i == 1:
            before = browser_metrics(cdp)
        pressed = time.time()
        total = step(page, action, i % 2 == 0)
        if i:
            totals.append(total)
            presses.append((pressed, total))
    after = browser_metrics(cdp)
    profile = {name: round(1000 * (after[m] - before[m]) / count, 1) for m, name in BROWSER_METRICS.items()}
    cdp.send(
        "Profiler.enable"
    )  # then a few more steps under the sampling profiler (its overhead kept out of the timing)
    cdp.send("Profiler.setSamplingInterval", {"interval": 500})
    cdp.send("Profiler.start")
    profiled = min(count, PROFILED_STEPS)
    for i in range(profiled):
        step(page, action, i % 2 == (count + 1) % 2)
    profile.update(js_split(cdp.send("Profiler.stop")["profile"], profiled))
    profile.update(page.evaluate(PAGE_SIZE))
    page.context.close()
    return first, totals, presses, profile


def script_runs(log: Path) -> list[tuple[float, float]]:
    """(start, end) wall-clock times of the script runs the server logged (PROBCORE_RUN_LOG=1)."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [(float(a), float(b)) for _, a, b, *_ in (line.split() for line in lines if line.startswith("RUN "))]


def split(presses: list[tuple[float, float]], runs: list[tuple[float, float]]) -> dict:
    """Median of each part of a step: key press -> script start, the script, script end -> drawn."""
    parts = []
    for pressed, total in presses:
        run = next((r for r in runs if r[0] >= pressed), None)
        if run is not None and run[1] <= pressed + total:
            parts.append((run[0] - pressed, run[1] - run[0], pressed + total - run[1]))
    if not parts:
        return {}
    med = [round(statistics.median(p[i] for p in parts), 3) for i in range(3)]
    return {"press_to_script_s": med[0], "script_s": med[1], "script_end_to_drawn_s": med[2]}


def summary(times: list[float], parts: dict | None = None) -> dict:
    return {
        "n": len(times),
        "p50_s": round(statistics.median(times), 3),
        "p95_s": round(percentile(sorted(times), 0.95), 3),
        "max_s": round(max(times), 3),
        **(parts or {}),
    }


def script_profile(count: int) -> str:
    """Where a Compare rerun's script time goes after a logit change (AppTest runs the whole
    script, not only the fragment a browser step reruns): cProfile, cumulative."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
    from streamlit.testing.v1 import AppTest

    profiler, profiling = cProfile.Profile(), [False]
    run_script = ScriptRunner._run_script

    def profiled(self, rerun_data):  # the script runs in its own thread: profile it there
        if not profiling[0]:
            return run_script(self, rerun_data)
        profiler.enable()
        try:
            return run_script(self, rerun_data)
        finally:
            profiler.disable()

    ScriptRunner._run_script = profiled
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        for i in range(count + 1):
            at.slider(key="x_2").set_value(-0.5 + 0.05 * (i % 2))
            profiling[0] = i > 0
            at.run()
    finally:
        ScriptRunner._run_script = run_script
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(30)
    return out.getvalue()


def table(report: dict) -> list[str]:
    floor = report["floor"]["step"]
    lines = [
        "| page | step p50 (s) | p95 (s) | p50 / floor | p95 / floor | goal p50 / p95 | met | press -> script | "
        "script | script end -> drawn | first render (s) | first render / floor |",
        "|---|---:|---:|---:|---:|---:|:-:|---:|---:|---:|---:|---:|",
        f"| floor app (one slider, one chart) | {floor['p50_s']:.3f} | {floor['p95_s']:.3f} | 1.00 | 1.00 | | | — | — | — | "
        f"{report['floor']['first_render']['p50_s']:.2f} | 1.00 |",
    ]
    floor_render = report["floor"]["first_render"]["p50_s"]
    for name, action in PAGES.items():
        r = report["pages"][name]
        s = r["step"]
        g50, g95 = GOALS[action.group]
        r50, r95 = s["p50_s"] / floor["p50_s"], s["p95_s"] / floor["p95_s"]
        met = "yes" if r50 <= g50 and r95 <= g95 else "**no**"
        parts = " | ".join(
            f"{s[k]:.3f}" if k in s else "—" for k in ("press_to_script_s", "script_s", "script_end_to_drawn_s")
        )
        lines.append(
            f"| {name} ({action.key}) | {s['p50_s']:.3f} | {s['p95_s']:.3f} | {r50:.2f} | {r95:.2f} | "
            f"{g50:g} / {g95:g} | {met} | {parts} | {r['first_render_s']:.2f} | {r['first_render_s'] / floor_render:.2f} |"
        )
    return lines


def browser_table(report: dict) -> list[str]:
    floor = report["floor"]["browser"]
    rows = [("floor app", floor), *((name, r["browser"]) for name, r in report["pages"].items())]
    return [
        f"| {name} | {b['browser_busy_ms']:.0f} | {b['js_ms']:.0f} | {b['layout_ms']:.0f} | {b['style_ms']:.0f} | "
        f"{b['browser_busy_ms'] / floor['browser_busy_ms']:.2f} | {b['plotly_ms']:.0f} | {b['react_ms']:.0f} | "
        f"{b['other_js_ms']:.0f} | {b['native_ms']:.0f} | {b['gc_ms']:.0f} | {b['charts']} | {b['traces']} | {b['elements']} |"
        for name, b in rows
    ]


LIVE_VIEWS = {"compare": "", "jacobian": "jacobian", "simplex": "simplex", "loss": "loss", "sweeps": "sweeps"}
FRAME_PROBE = """view => {  // per input event on x0's handle: its time, the end of the frame work that drew it
    const root = document.querySelector(`[data-live-view='${view}']`);
    const input = root.querySelector("input[aria-label='x0']");
    window.__frames = [];
    if (window.__probed) return;  // one probe per page: later calls only clear the readings
    window.__probed = true;
    let pending = null;
    input.addEventListener('input', e => { pending = pending || e.timeStamp; }, true);
    new MutationObserver(() => {
        if (pending === null) return;
        window.__frames.push({input: pending, drawn: performance.now(), ms: Number(root.getAttribute('data-frame-ms'))});
        pending = null;
    }).observe(root, {attributes: true, attributeFilter: ['data-values']});
}"""
SHOWN_X0 = (
    "view => JSON.parse(document.querySelector(`[data-live-view='${view}']`).getAttribute('data-values')).logits[0]"
)


def live_drag(page, moves: int, view: str = "compare") -> list[dict]:
    """``moves`` pointer moves across x0's handle of ``view``, one at a time (each waits for the frame that
    shows it): for each, the input event's time and when the chart and data-values showed it."""
    page.evaluate(FRAME_PROBE, view)
    handle = page.locator(f"[data-live-view='{view}'] input[aria-label='x0']")
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] / 2, y)
    page.mouse.down()
    for i in range(moves):  # back and forth over the middle 45 % of the track, 19 moves each way (~0.47 logit each)
        before = page.evaluate(SHOWN_X0, view)
        k = i % 38
        page.mouse.move(box["x"] + box["width"] * (0.275 + 0.45 * (k if k <= 19 else 38 - k) / 19), y)
        page.wait_for_function(f"b => ({SHOWN_X0})('{view}') !== b", arg=before, polling="raf")
    frames = page.evaluate("() => window.__frames")
    page.mouse.up()
    return frames


def live_release(page, forward: bool = True) -> float:
    """One key press on Compare's x0 handle (a release: input and change at once), drawn in the frame; then
    seconds from the press to the server's run done (the URL holds the new logits, the script idle,
    nothing stale)."""
    handle = page.locator("[data-live-view='compare'] input[aria-label='x0']")
    handle.focus()
    x0 = page.evaluate(SHOWN_X0, "compare")
    start = time.perf_counter()
    handle.press("ArrowRight" if forward else "ArrowLeft")
    page.wait_for_function(f"b => ({SHOWN_X0})('compare') !== b", arg=x0, polling="raf")
    shown = page.evaluate(SHOWN_X0, "compare")
    page.wait_for_function(
        "x => (new URL(location.href).searchParams.get('logits') || '').startsWith(x + ',')",
        arg=f"{shown:.6g}",
        polling="raf",
    )
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(NOTHING_STALE, polling="raf")
    return time.perf_counter() - start


def ms_summary(ms: list[float]) -> dict:
    """summary() of millisecond readings, kept to 0.1 ms."""
    return {
        "n": len(ms),
        "p50_s": round(statistics.median(ms) / 1000, 5),
        "p95_s": round(percentile(sorted(ms), 0.95) / 1000, 5),
        "max_s": round(max(ms) / 1000, 5),
    }


def live_bench(browser, moves: int, releases: int, sessions: int, floor_steps: int) -> dict:
    """Every live view beside the floor app, in one run: frames during a drag of x0's handle on each view,
    Compare's release round trip and first render (issue 21)."""
    report: dict = {"load_before": os.getloadavg(), "views": {}}
    with tempfile.TemporaryDirectory() as tmp:
        floor_script = Path(tmp) / "floor_app.py"
        floor_script.write_text(FLOOR_APP)
        with serve(Path(tmp) / "floor.log", script=floor_script) as url:
            report["floor_first_render"] = summary(first_renders(browser, url, 1 + sessions)[1:])
            report["floor_step"] = summary(steps(browser, url, Interaction("", "x_2", "slider", ""), floor_steps)[1])
        with serve(Path(tmp) / "explorer.log") as url:
            first_renders(browser, url, 1)  # the server's first session (imports, caches)
            report["compare_first_render"] = summary(first_renders(browser, url, sessions))
            for view, path in LIVE_VIEWS.items():
                page, _ = open_page(browser, f"{url}/{path}")
                live_drag(page, 5, view)  # warm the JIT
                settle(page)
                frames = live_drag(page, moves, view)
                settle(page)
                report["views"][view] = {
                    "frames": len(frames),
                    "frame_input_to_drawn": ms_summary([f["drawn"] - f["input"] for f in frames]),
                    "frame_work_ms": ms_summary([f["ms"] for f in frames]),
                }
                if view == "compare":
                    report["release"] = summary([live_release(page, k % 2 == 0) for k in range(releases)])
                page.context.close()
    report["load_after"] = os.getloadavg()
    return report


def live_lines(report: dict) -> list[str]:
    floor, floor_render = report["floor_step"], report["floor_first_render"]
    release, render = report["release"], report["compare_first_render"]
    lines = [
        "# Live views (issue 21; bench/bench_explorer.py --live)",
        "",
        f"One run, beside the one-slider one-chart floor app. Load average before / after: "
        f"{' '.join(f'{v:.2f}' for v in report['load_before'])} / {' '.join(f'{v:.2f}' for v in report['load_after'])} "
        "(2 cores, shared).",
        "",
        "| measure | p50 (ms) | p95 (ms) | p50 / floor step | p95 / floor step | goal |",
        "|---|---:|---:|---:|---:|---|",
        f"| floor app: slider step (key press -> chart drawn, idle) | {1000 * floor['p50_s']:.1f} | {1000 * floor['p95_s']:.1f} "
        "| 1.00 | 1.00 | |",
    ]
    for view, v in report["views"].items():
        frame, work = v["frame_input_to_drawn"], v["frame_work_ms"]
        lines += [
            f"| {view} live: frame during a drag ({v['frames']} pointer moves on x0's handle: input event -> chart and "
            f"data-values drawn) | {1000 * frame['p50_s']:.1f} | {1000 * frame['p95_s']:.1f} | {frame['p50_s'] / floor['p50_s']:.2f} "
            f"| {frame['p95_s'] / floor['p95_s']:.2f} | p50 <= 0.3, p95 <= 0.5 |",
            f"| of which {view}'s own work (compute + SVG + data-values) | {1000 * work['p50_s']:.1f} "
            f"| {1000 * work['p95_s']:.1f} | | | |",
        ]
    lines += [
        f"| Compare live: release (a key press on x0's handle) -> server run done (URL, table), not redrawn | {1000 * release['p50_s']:.1f} "
        f"| {1000 * release['p95_s']:.1f} | {release['p50_s'] / floor['p50_s']:.2f} | {release['p95_s'] / floor['p95_s']:.2f} "
        "| p50 <= 1.5 |",
        f"| first render, new session: floor app | {1000 * floor_render['p50_s']:.0f} | {1000 * floor_render['p95_s']:.0f} | | | |",
        f"| first render, new session: Compare (live view drawn) | {1000 * render['p50_s']:.0f} | {1000 * render['p95_s']:.0f} "
        f"| {render['p50_s'] / floor_render['p50_s']:.2f} (/ floor's first render) | | <= 1.25 |",
        "",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="steps per page (default 20)")
    parser.add_argument("--sessions", type=int, default=3, help="new sessions for the warm first render")
    parser.add_argument("--pages", nargs="*", default=list(PAGES), help="pages to time (default: all)")
    parser.add_argument(
        "--live",
        action="store_true",
        help="only the live views beside the floor app "
        "(frames of a drag on each, Compare's release and first render): bench/results/live.md",
    )
    parser.add_argument("--moves", type=int, default=60, help="--live: pointer moves per view (default 60)")
    parser.add_argument("--releases", type=int, default=10, help="--live: Compare releases timed (default 10)")
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.live:
        with chromium(sync_playwright) as browser:
            report = live_bench(
                browser, moves=args.moves, releases=args.releases, sessions=args.sessions, floor_steps=args.steps
            )
        (RESULTS / "live.json").write_text(json.dumps(report, indent=1))
        (RESULTS / "live.md").write_text("\n".join(live_lines(report)))
        print("\n".join(live_lines(report)))
        return
    report: dict = {"steps": args.steps, "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp, chromium(sync_playwright) as browser:
        floor_script = Path(tmp) / "floor_app.py"
        floor_script.write_text(FLOOR_APP)
        with serve(Path(tmp) / "floor.log", script=floor_script) as url:
            renders = first_renders(browser, url, 1 + args.sessions)
            first, totals, _, profile = steps(browser, url, Interaction("", "x_2", "slider", ""), args.steps)
            report["floor"] = {
                "first_render_cold_s": round(renders[0], 3),
                "first_render": summary(renders[1:]),
                "step": summary(totals),
                "browser": profile,
            }
        report["table elements"] = {}
        for name, element in TABLE_ELEMENTS.items():
            script = Path(tmp) / f"table_{name.replace('.', '_')}.py"
            script.write_text(TABLE_APP.replace("ELEMENT", element))
            with serve(Path(tmp) / f"{script.stem}.log", script=script) as url:
                report["table elements"][name] = summary(
                    steps(browser, url, Interaction("", "x_2", "slider", ""), args.steps)[1]
                )
        os.environ["PROBCORE_RUN_LOG"] = "1"
        log = RESULTS / "explorer-server.log"
        start = time.perf_counter()
        with serve(log) as url:
            report["server_start_s"] = round(time.perf_counter() - start, 3)
            cold, *warm = first_renders(browser, url, 1 + args.sessions)
            report["home_first_render"] = {"cold_s": round(cold, 3), **summary(warm)}
            report["pages"] = {}
            for name in args.pages:
                action = PAGES[name]
                first, totals, presses, profile = steps(browser, f"{url}/{action.path}", action, args.steps)
                report["pages"][name] = {
                    "first_render_s": round(first, 3),
                    "step": summary(totals, split(presses, script_runs(log))),
                    "browser": profile,
                }
                print(name, report["pages"][name], flush=True)
    report["load_after"] = os.getloadavg()
    profile = script_profile(min(args.steps, 10))
    (RESULTS / "explorer.json").write_text(json.dumps(report, indent=1))

    floor_render = report["floor"]["first_render"]["p50_s"]
    home = report["home_first_render"]
    lines = [
        "# Explorer responsiveness (bench/bench_explorer.py)",
        "",
        f"Each page's main interaction (a logit or parameter step) -> every chart it changes drawn, the script idle and "
        f"nothing stale; {args.steps} steps per page, Playwright + Debian Chromium, all in one run beside the floor app "
        f"(one slider, one chart). Load average before / after: {' '.join(f'{v:.2f}' for v in report['load_before'])} / "
        f"{' '.join(f'{v:.2f}' for v in report['load_after'])} (2 cores, shared). Goals: step p50 <= 1.5x floor "
        "(core pages) / 2x (topic pages), p95 <= 2x / 3x; home first render <= 1.25x floor (new session), "
        "<= 2x (first session after the server starts); script time of a Compare step <= 25 ms.",
        "",
        *(table(report) if len(report["pages"]) == len(PAGES) else []),
        "",
        "| first render of the home page | seconds | / floor |",
        "|---|---:|---:|",
        f"| explorer, new session (median of {args.sessions}) | {home['p50_s']:.2f} | {home['p50_s'] / floor_render:.2f} |",
        f"| explorer, first session after the server starts | {home['cold_s']:.2f} | {home['cold_s'] / floor_render:.2f} |",
        f"| floor app, new session (median) | {floor_render:.2f} | 1.00 |",
        f"| explorer server start -> health | {report['server_start_s']:.2f} | |",
        "",
        "Where a step's time goes in the browser, ms per step: Chromium's main thread (DevTools Performance "
        "metrics over the timed steps; JavaScript, layout and style are parts of busy), then a V8 sampling profile of "
        f"{PROFILED_STEPS} more steps split by where the time was spent (Plotly's bundle, React's, the rest of the JavaScript, "
        "native work outside JavaScript, garbage collection), and what the page holds:",
        "",
        "| page | busy (ms) | JavaScript | layout | style | busy / floor | Plotly JS | React JS | other JS | native | GC "
        "| charts | traces | elements |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *browser_table(report),
        "",
        "The floor app plus the Compare table (8 rows) drawn as each element, stepped the same way:",
        "",
        "| element | step p50 (s) | p95 (s) | p50 / floor |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {r['p50_s']:.3f} | {r['p95_s']:.3f} | {r['p50_s'] / report['floor']['step']['p50_s']:.2f} |"
            for name, r in report["table elements"].items()
        ),
        "",
        "Where a Compare rerun's script time goes (cProfile, cumulative; AppTest reruns the whole script, "
        "a browser step only the fragment):",
        "",
        "```",
        "\n".join(profile.strip().splitlines()[:50]),
        "```",
        "",
    ]
    (RESULTS / "explorer.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
