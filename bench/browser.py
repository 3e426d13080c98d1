"""The explorer in a real browser, shared by the browser test (tests/test_e2e.py) and the
latency benchmark (bench/bench_explorer.py): ``streamlit run app.py`` headless on a free
localhost port, Playwright driving Debian's Chromium, and the waits that tell a page is drawn."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1000}
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
CHARTS_DRAWN = """() => {  // live views (explorer/live) count as drawn once they hold data-values
    const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
    const live = [...document.querySelectorAll('[data-live-view]')];
    return charts.length + live.length > 0 && charts.every(c => c.querySelector('.js-plotly-plot .main-svg'))
        && live.every(v => v.hasAttribute('data-values'));
}"""
FIRST_CHART_Y = """() => {  // a live view's data-values, else plotly's _fullData (data holds base64 typed arrays)
    const live = document.querySelector('[data-live-view][data-values]');
    if (live) return JSON.stringify(JSON.parse(live.getAttribute('data-values')).mappings);
    const plot = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
    return plot && plot._fullData ? JSON.stringify(plot._fullData.map(t => Array.from(t.y || []))) : null;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(log_path: Path, timeout_s: float = 60.0, script: Path = ROOT / "app.py"):
    """``streamlit run <script>`` until the block ends; yields its URL once /_stcore/health answers ok."""
    port = free_port()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(script),
                "--server.headless=true",
                f"--server.port={port}",
                "--server.address=127.0.0.1",
                "--browser.gatherUsageStats=false",
                "--server.fileWatcherType=none",
                "--server.runOnSave=false",
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.read() == b"ok":
                            break
                except OSError:
                    pass
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited: {log_path.read_text()}")
                if time.monotonic() > deadline:
                    raise RuntimeError("streamlit did not start")
                time.sleep(0.1)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


@contextlib.contextmanager
def chromium(sync_playwright):
    """Debian's Chromium under Playwright (never a downloaded browser)."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def settle(page) -> None:
    """Wait until the script is idle, nothing on the page is stale and every chart is drawn (no sleeping)."""
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(CHARTS_DRAWN)
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')")


def open_controls(page) -> None:
    """Open every closed expander (the core pages with a live view open their Mappings and Logits
    expanders closed: figure first) so that the Streamlit widgets in them can be used; other pages
    are left as they are."""
    if not page.locator("[data-live-view]").count():
        return
    closed = "[data-testid='stExpander'] details:not([open]) > summary"
    left = page.locator(closed).count()
    while left:  # one at a time: an opened expander leaves the selector, so indices taken before a click move
        page.locator(closed).first.click()
        page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length < n", arg=[closed, left])
        left = page.locator(closed).count()


def slider_step(page, key: str = "ArrowRight", slider: str = "x_2") -> float:
    """Move a logit slider one step; seconds until the first chart shows new data and the script is idle."""
    before = page.evaluate(FIRST_CHART_Y)
    thumb = page.locator(f".st-key-{slider} input[type='range']")
    start = time.perf_counter()
    thumb.press(key)
    page.wait_for_function(f"b => ({FIRST_CHART_Y})() !== b", arg=before, polling="raf")
    page.wait_for_selector(IDLE, state="attached")
    return time.perf_counter() - start


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-quantile of sorted values (nearest rank below)."""
    return sorted_values[int(q * (len(sorted_values) - 1))]
