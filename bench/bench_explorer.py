"""Explorer responsiveness in a real browser (Playwright + Debian's Chromium), side by side with
a one-slider, one-chart Streamlit app run the same way (the floor of this machine) and with the
explorer's sidebar alone beside one chart. Both freeze their imported objects as app.py does
(``gc.freeze``), so Streamlit's collection after every run costs them nothing either.

    python bench/bench_explorer.py [--steps 30]

Measures: server start to health; the home page's first render (the first session after start,
and new sessions after it); the time from a step of the x2 logit slider on the Compare page to
the chart showing new data with the script idle (p50 / p95 / max), with the default mappings and
with all of them, split into key press -> script start, the script, and script end -> chart drawn
(the server logs its runs when PROBCORE_RUN_LOG=1); and, outside the browser, where a rerun's script time goes (cProfile under
``streamlit.testing``). Writes bench/results/explorer.md and .json. A benchmark, not a test.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.browser import ROOT, VIEWPORT, chromium, percentile, serve, settle, slider_step  # noqa: E402
from probcore.registry import MAPPINGS  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FLOOR_APP = '''import gc
import plotly.graph_objects as go
import streamlit as st
gc.freeze()  # as app.py does
x = st.sidebar.slider("x2", -10.0, 10.0, -0.5, step=0.05, key="x_2")
st.plotly_chart(go.Figure(go.Bar(y=[1.2, 0.3, x])))
'''
SIDEBAR_APP = f'''import gc
import sys
sys.path.insert(0, {str(ROOT)!r})
import plotly.graph_objects as go
import streamlit as st
from explorer import state
gc.freeze()  # as app.py does
st.plotly_chart(go.Figure(go.Bar(y=state.sidebar().logits)))
'''
SCENARIOS = {
    "explorer, default mappings": "",
    "explorer, all mappings": "?show=" + ",".join(MAPPINGS),
}


def first_renders(browser, url: str, sessions: int) -> list[float]:
    """Seconds from opening the page in a new browser session to every chart drawn."""
    times = []
    for _ in range(sessions):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.set_default_timeout(120_000)
        start = time.perf_counter()
        page.goto(url)
        settle(page)
        times.append(time.perf_counter() - start)
        context.close()
    return times


def script_runs(log: Path) -> list[tuple[float, float]]:
    """(start, end) wall-clock times of the script runs the server logged (PROBCORE_RUN_LOG=1)."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [(float(a), float(b)) for _, a, b in (line.split() for line in lines if line.startswith("RUN "))]


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


def slider_steps(browser, url: str, steps: int) -> tuple[list[float], list[tuple[float, float]]]:
    """Slider step -> re-rendered chart, alternating right/left; the first (cache-warming) step
    dropped. Returns the step times and (wall-clock press time, step time) pairs."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(url)
    settle(page)
    page.locator(".st-key-x_2 input[type='range']").focus()
    totals, presses = [], []
    for i in range(steps + 1):
        pressed = time.time()
        total = slider_step(page, "ArrowRight" if i % 2 == 0 else "ArrowLeft")
        if i:
            totals.append(total)
            presses.append((pressed, total))
    context.close()
    return totals, presses


def summary(times: list[float], parts: dict | None = None) -> dict:
    return {"n": len(times), "p50_s": round(statistics.median(times), 3),
            "p95_s": round(percentile(sorted(times), 0.95), 3), "max_s": round(max(times), 3), **(parts or {})}


def script_profile(steps: int) -> tuple[dict, str]:
    """Script time of a Compare rerun after a logit change (AppTest, no browser) and its profile."""
    from streamlit.testing.v1 import AppTest

    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    profiler, profiling, times = cProfile.Profile(), [False], []
    run_script = ScriptRunner._run_script

    def timed(self, rerun_data):  # the script runs in its own thread: profile it there
        if not profiling[0]:
            return run_script(self, rerun_data)
        start = time.perf_counter()
        profiler.enable()
        try:
            return run_script(self, rerun_data)
        finally:
            profiler.disable()
            times.append(time.perf_counter() - start)

    ScriptRunner._run_script = timed
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        for i in range(steps + 1):
            at.slider(key="x_2").set_value(-0.5 + 0.05 * (i % 2))
            profiling[0] = i > 0
            at.run()
    finally:
        ScriptRunner._run_script = run_script
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    return summary(times), out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="slider steps per scenario (default 30)")
    parser.add_argument("--sessions", type=int, default=3, help="new sessions for the warm first render")
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    report: dict = {"steps": args.steps}
    with tempfile.TemporaryDirectory() as tmp, chromium(sync_playwright) as browser:
        floor_script = Path(tmp) / "floor_app.py"
        floor_script.write_text(FLOOR_APP)
        start = time.perf_counter()
        with serve(Path(tmp) / "floor.log", script=floor_script) as url:
            report["floor_server_start_s"] = round(time.perf_counter() - start, 3)
            report["floor first render"] = summary(first_renders(browser, url, 1 + args.sessions))
            report["floor: one slider, one chart"] = summary(slider_steps(browser, url, args.steps)[0])
        sidebar_script = Path(tmp) / "sidebar_app.py"
        sidebar_script.write_text(SIDEBAR_APP)
        with serve(Path(tmp) / "sidebar.log", script=sidebar_script) as url:
            report["explorer's sidebar and one chart"] = summary(slider_steps(browser, url, args.steps)[0])
        start = time.perf_counter()
        os.environ["PROBCORE_RUN_LOG"] = "1"
        log = RESULTS / "explorer-server.log"
        with serve(log) as url:
            report["server_start_s"] = round(time.perf_counter() - start, 3)
            cold, *warm = first_renders(browser, url, 1 + args.sessions)
            report["first_render_cold_s"] = round(cold, 3)
            report["first_render_warm"] = summary(warm)
            for name, query in SCENARIOS.items():
                times, presses = slider_steps(browser, url + "/" + query, args.steps)
                report[name] = summary(times, split(presses, script_runs(log)))
    report["script alone (AppTest, no browser)"], profile = script_profile(min(args.steps, 10))
    (RESULTS / "explorer.json").write_text(json.dumps(report, indent=1))

    rows = [name for name in report if isinstance(report[name], dict) and "p50_s" in report[name] and "render" not in name]
    lines = [
        "# Explorer responsiveness (bench/bench_explorer.py)", "",
        f"Slider step on the Compare page -> chart re-drawn and script idle, {args.steps} steps each, "
        "Playwright + Debian Chromium, same run. Goal: p50 <= 0.25 s, p95 <= 0.40 s; first render <= 3 s.", "",
        "| scenario | p50 (s) | p95 (s) | max (s) | p50 / floor | press -> script | script | script end -> drawn |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    floor = report["floor: one slider, one chart"]["p50_s"]
    for name in rows:
        r = report[name]
        parts = " | ".join(f"{r[k]:.3f}" if k in r else "—" for k in ("press_to_script_s", "script_s", "script_end_to_drawn_s"))
        lines.append(f"| {name} | {r['p50_s']:.3f} | {r['p95_s']:.3f} | {r['max_s']:.3f} | {r['p50_s'] / floor:.2f} | {parts} |")
    lines += [
        "", "| first render of the home page | seconds |", "|---|---:|",
        f"| explorer, first session after the server is up (cold: imports, caches) | {report['first_render_cold_s']:.2f} |",
        f"| explorer, later sessions (median) | {report['first_render_warm']['p50_s']:.2f} |",
        f"| floor app, sessions (median) | {report['floor first render']['p50_s']:.2f} |",
        f"| explorer server start -> health | {report['server_start_s']:.2f} |",
        "", "Where a rerun's script time goes (cProfile, cumulative, Compare page after a logit change):", "",
        "```", "\n".join(profile.strip().splitlines()[:45]), "```", "",
    ]
    (RESULTS / "explorer.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
