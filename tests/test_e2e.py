"""The explorer in a real browser: ``streamlit run app.py`` headless on a free localhost port,
driven by Playwright on Debian's Chromium. Visits every page through the app's navigation,
moves a slider (and times slider -> re-rendered page), restores a view from a URL, refuses a
hostile URL inline, and saves screenshots to artifacts/screenshots/ (and, with
PROBCORE_UPDATE_SCREENSHOTS=1, one per page to docs/screenshots/ for the README)."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from urllib.parse import parse_qs, urlsplit
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "artifacts"
SHOTS = ARTIFACTS / "screenshots"
DOCS_SHOTS = ROOT / "docs" / "screenshots"
UPDATE_DOCS = os.environ.get("PROBCORE_UPDATE_SCREENSHOTS") == "1"
# page file stem -> (url path, navigation label, title)
PAGES = {
    "compare": ("", "Compare"),
    "simplex": ("simplex", "Simplex"),
    "jacobian": ("jacobian", "Jacobian"),
    "loss_landscape": ("loss", "Loss landscape"),
    "sweeps": ("sweeps", "Sweeps"),
}
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
CHARTS_DRAWN = """() => {
    const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
    return charts.length > 0 && charts.every(c => c.querySelector('.js-plotly-plot .main-svg'));
}"""
FIRST_CHART_Y = """() => {  // _fullData: plotly's decoded arrays (data holds base64 typed arrays)
    const plot = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
    return plot && plot._fullData ? JSON.stringify(plot._fullData.map(t => Array.from(t.y || []))) : null;
}"""
TIMEOUT_MS = 60_000

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "streamlit-e2e.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", f"--server.port={port}",
         "--server.address=127.0.0.1", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none",
         "--server.runOnSave=false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    break
        except OSError:
            pass
        assert proc.poll() is None, (ARTIFACTS / "streamlit-e2e.log").read_text()
        assert time.monotonic() < deadline, "streamlit did not start"
        time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    p = context.new_page()
    p.set_default_timeout(TIMEOUT_MS)
    yield p
    context.close()


def settle(page) -> None:
    """Wait until the script is idle, nothing on the page is stale and every chart is drawn (no sleeping)."""
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(CHARTS_DRAWN)
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')")


def assert_no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0, page.inner_text("[data-testid='stMain']")


def screenshot(page, name: str, docs: bool = False) -> None:
    """To artifacts/screenshots/; a page's also to docs/screenshots/ when PROBCORE_UPDATE_SCREENSHOTS=1."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    if docs and UPDATE_DOCS:
        DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SHOTS / f"{name}.png")


def test_every_page_through_the_navigation(server, page):
    page.goto(server)
    settle(page)
    for name, (path, title) in PAGES.items():
        page.get_by_role("link", name=title, exact=True).click()
        page.wait_for_url(f"{server}/{path}" if path else f"{server}/")
        page.wait_for_function("t => document.querySelector('h1') && document.querySelector('h1').innerText.includes(t)",
                               arg=title)
        settle(page)
        assert_no_exception(page)
        screenshot(page, name, docs=True)


def _slider_step(page, key: str = "ArrowRight") -> float:
    """Move the x2 slider one step; seconds until the chart shows the new data and the script is idle."""
    before = page.evaluate(FIRST_CHART_Y)
    thumb = page.locator(".st-key-x_2 input[type='range']")
    start = time.perf_counter()
    thumb.press(key)
    page.wait_for_function(f"b => ({FIRST_CHART_Y})() !== b", arg=before, polling="raf")
    page.wait_for_selector(IDLE, state="attached")
    return time.perf_counter() - start


def test_slider_updates_the_chart_and_the_url(server, page):
    start = time.perf_counter()
    page.goto(server)
    settle(page)
    first_render = time.perf_counter() - start
    page.locator(".st-key-x_2 input[type='range']").focus()
    times = [_slider_step(page, "ArrowRight" if i % 2 == 0 else "ArrowLeft") for i in range(21)]
    assert_no_exception(page)
    page.wait_for_url("**logits=*")  # 21 alternating steps end one step right of -0.5
    assert parse_qs(urlsplit(page.url).query)["logits"] == ["1.2, 0.3, -0.45"], page.url
    assert page.locator(".st-key-logits input").input_value() == "1.2, 0.3, -0.45"
    steps = sorted(times[1:])  # the first step also warms the caches
    report = {"first_render_s": round(first_render, 3), "steps": len(steps),
              "p50_s": round(steps[len(steps) // 2], 3), "p95_s": round(steps[int(0.95 * (len(steps) - 1))], 3),
              "max_s": round(steps[-1], 3)}
    (ARTIFACTS / "slider_latency.json").write_text(json.dumps(report, indent=1))
    print("slider -> render", report)
    assert report["p50_s"] < 5.0  # generous: a shared 2-core machine; the measured numbers are the report


def test_url_restores_the_view(server, page):
    page.goto(f"{server}/?logits=2,1,0.5,-1&alpha=1.8&show=softmax,sparsemax&log=1")
    settle(page)
    assert_no_exception(page)
    sync_api.expect(page.locator(".st-key-logits input")).to_have_value("2,1,0.5,-1")
    sync_api.expect(page.locator(".st-key-alpha input")).to_have_value("1.8")
    page.wait_for_function("""() => {
        const plot = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
        const bars = plot.data.filter(t => t.type === 'bar').map(t => t.name).join();
        return bars === 'Softmax,Sparsemax' && plot.layout.yaxis.type === 'log';
    }""")
    screenshot(page, "url_state")


def test_hostile_url_shows_messages_not_tracebacks(server, page):
    page.goto(f"{server}/?logits=abc&alpha=-3&k=9999&temperature=0")
    settle(page)
    assert_no_exception(page)
    alerts = page.locator("[data-testid='stAlertContentError']").all_inner_texts()
    text = " ".join(alerts)
    for word in ("logits", "alpha", "k must be", "temperature"):
        assert word in text, (word, text)
    screenshot(page, "hostile_url")


def test_sweeps_play_animates_without_a_rerun(server, page):
    page.goto(f"{server}/sweeps")
    settle(page)
    page.evaluate("""() => {
        window.__reruns = 0;
        const app = document.querySelector('[data-testid="stApp"]');
        new MutationObserver(() => window.__reruns++).observe(app, {attributeFilter: ['data-test-script-state']});
    }""")
    before = page.evaluate(FIRST_CHART_Y)
    page.locator("[data-testid='stPlotlyChart']").first.locator(".updatemenu-button").first.click()
    page.wait_for_function(f"b => ({FIRST_CHART_Y})() !== b", arg=before)
    assert page.evaluate("() => window.__reruns") == 0  # the frames play in the browser
    assert_no_exception(page)
