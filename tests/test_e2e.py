"""The explorer in a real browser: ``streamlit run app.py`` headless on a free localhost port,
driven by Playwright on Debian's Chromium. Visits every page through the app's navigation,
moves a slider, restores a view from a URL, refuses a
hostile URL inline, and saves screenshots to artifacts/screenshots/ (and, with
PROBCORE_UPDATE_SCREENSHOTS=1, one per page to docs/screenshots/ for the README)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from bench.browser import CHROMIUM, FIRST_CHART_Y, ROOT, VIEWPORT, chromium, open_controls, serve, settle, slider_step
from explorer.i18n import catalogue
from views.registry import PAGES as REGISTRY

sync_api = pytest.importorskip("playwright.sync_api")

ARTIFACTS = ROOT / "artifacts"
SHOTS = ARTIFACTS / "screenshots"
DOCS_SHOTS = ROOT / "docs" / "screenshots"
UPDATE_DOCS = os.environ.get("PROBCORE_UPDATE_SCREENSHOTS") == "1"
EN = catalogue("en")
# page folder (screenshot name) -> (url path, title, navigation section): every page but the lesson editor
PAGES = {
    Path(p.script).parent.name: (p.url_path, EN[p.title], EN[p.section]) for p in REGISTRY.values() if p.in_lessons
}
TIMEOUT_MS = 60_000
SHOT_HEIGHT = 1700

pytestmark = [
    pytest.mark.slow,  # a real browser on a served explorer
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
]


@pytest.fixture(scope="module")
def server():
    with serve(ARTIFACTS / "streamlit-e2e.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api.sync_playwright) as b:
        yield b


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    p = context.new_page()
    p.set_default_timeout(TIMEOUT_MS)
    yield p
    context.close()


def assert_no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0, page.inner_text("[data-testid='stMain']")


def screenshot(page, name: str, docs: bool = False) -> None:
    """To artifacts/screenshots/ in a window SHOT_HEIGHT pixels tall (the page's top with its first
    figures); a page's also to docs/screenshots/ when PROBCORE_UPDATE_SCREENSHOTS=1."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.set_viewport_size({"width": VIEWPORT["width"], "height": SHOT_HEIGHT})
    settle(page)
    page.screenshot(path=str(path))
    page.set_viewport_size(VIEWPORT)
    if docs and UPDATE_DOCS:
        DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SHOTS / f"{name}.png")


def test_every_page_through_the_navigation(server, page):
    page.goto(server)
    settle(page)
    for name, (path, title, section) in PAGES.items():
        page.get_by_test_id("stTopNavSection").filter(has_text=section).click()
        page.get_by_test_id("stTopNavDropdownLink").filter(has_text=title).click()
        page.wait_for_url(f"{server}/{path}" if path else f"{server}/")
        page.wait_for_function(
            "t => document.querySelector('h1') && document.querySelector('h1').innerText.includes(t)", arg=title
        )
        settle(page)
        assert_no_exception(page)
        screenshot(page, name, docs=True)


def test_topic_pages_in_chinese_from_the_url(server, page):
    """?lang=zh opens each topic page in Chinese (titles from the Chinese catalogue), no traceback."""
    for entry in REGISTRY.values():
        if entry.section == "nav.core" or not entry.in_lessons:
            continue
        page.goto(f"{server}/{entry.url_path}?lang=zh")
        settle(page)
        assert_no_exception(page)
        sync_api.expect(page.locator("h1").first).to_have_text(catalogue("zh")[entry.title])


def test_slider_updates_the_chart_and_the_url(server, page):
    """Three slider steps (right, left, right) each redraw the chart; the URL and the text follow.
    (Their latency is measured by bench/bench_explorer.py, not asserted here.)"""
    page.goto(server)
    settle(page)
    open_controls(page)  # folded on a page with a live view (figure first)
    page.locator(".st-key-x_2 input[type='range']").focus()
    for key in ("ArrowRight", "ArrowLeft", "ArrowRight"):
        slider_step(page, key)  # waits until the first chart shows new data
    assert_no_exception(page)
    page.wait_for_url("**logits=*")
    assert parse_qs(urlsplit(page.url).query)["logits"] == ["1.2, 0.3, -0.45"], page.url
    assert page.locator(".st-key-w_logits input").input_value() == "1.2, 0.3, -0.45"
    shown = page.evaluate(
        "() => JSON.parse(document.querySelector('[data-live-view=compare]').getAttribute('data-values'))"
    )
    assert shown["logits"] == [1.2, 0.3, -0.45]  # Compare's chart is live (explorer/live): it shows the server's logits


def test_url_restores_the_view(server, page):
    page.goto(f"{server}/?logits=2,1,0.5,-1&alpha=1.8&show=softmax,entmax&log=1")
    settle(page)
    assert_no_exception(page)
    open_controls(page)  # the live page opens its Logits and Mappings expanders closed, their widgets undrawn
    sync_api.expect(page.locator(".st-key-w_logits input")).to_have_value("2,1,0.5,-1")
    page.locator(".st-key-w_params_of button").filter(has_text="α-entmax").click()
    sync_api.expect(page.locator(".st-key-w_alpha input")).to_have_value("1.8")
    page.wait_for_function("""() => {  // Compare's live chart: its mappings, and a log axis (ticks 1e0, 1e-1, ...)
        const view = document.querySelector('[data-live-view=compare][data-values]');
        const shown = Object.keys(JSON.parse(view.getAttribute('data-values')).mappings).join();
        return shown === 'softmax,entmax' && view.querySelector('.pl-tick').textContent.startsWith('1e');
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
    page.locator("[data-live-view='sweeps'] button[data-play='T']").click()  # the live view's own Play button
    page.wait_for_function(f"b => ({FIRST_CHART_Y})() !== b", arg=before)
    assert page.evaluate("() => window.__reruns") == 0  # the frames play in the browser
    assert_no_exception(page)


def test_busy_sessions_keep_the_numbers_they_were_given(server, browser):
    """Issue 10: five sessions at once, each opened from its own link with logits off the sliders'
    0.05 grid, each stepping only x0 (keys pressed without waiting, so reruns queue up on a busy
    server). Every session ends with x0 moved by its steps and every other logit exactly as linked."""
    links = [[1.2, 0.3, -0.72, -0.83 - 0.01 * s] for s in range(5)]
    steps = 3
    pages = []
    for x in links:
        context = browser.new_context(viewport=VIEWPORT)
        p = context.new_page()
        p.set_default_timeout(TIMEOUT_MS)
        p.goto(f"{server}/?logits=" + ",".join(f"{v:g}" for v in x))
        pages.append(p)
    try:
        for p in pages:
            settle(p)
            open_controls(p)
        for _ in range(steps):
            for p in pages:
                p.locator(".st-key-x_0 input[type='range']").press("ArrowRight")
        for p, x in zip(pages, links):
            expected = ", ".join(f"{v:g}" for v in [round(x[0] + 0.05 * steps, 2), *x[1:]])
            try:
                p.wait_for_function("e => new URLSearchParams(location.search).get('logits') === e", arg=expected)
            except sync_api.TimeoutError:  # say what the session shows instead: steps lost, or numbers changed
                got = p.evaluate("() => new URLSearchParams(location.search).get('logits')")
                raise AssertionError(
                    f"expected logits {expected!r}, the URL holds {got!r}, the text field "
                    f"{p.locator('.st-key-w_logits input').input_value()!r}"
                ) from None
            settle(p)
            assert_no_exception(p)
            sync_api.expect(p.locator(".st-key-w_logits input")).to_have_value(expected)
    finally:
        for p in pages:
            p.context.close()


def test_the_question_is_drawn_when_opened_and_keeps_the_guess(server, page):
    """A browser draws "Predict, then reveal" only while its expander is open (a run draws none of its
    widgets before); a guess and the reveal outlive closing it, and the reveal shows the computed answer."""
    page.goto(f"{server}/")
    settle(page)
    words = EN
    guess = page.locator(".st-key-q_compare_guess")
    assert guess.count() == 0  # closed: not drawn
    summary = page.locator("[data-testid='stExpander'] summary", has_text=words["predict.title"])
    summary.click()
    guess.get_by_text(words["q_compare.c0"]).click()
    page.locator(".st-key-q_compare_reveal label").click()
    sync_api.expect(page.get_by_text(words["predict.right"])).to_be_visible()
    settle(page)
    summary.click()  # closed, then opened again: the guess and the reveal are kept
    sync_api.expect(guess).to_have_count(0)
    summary.click()
    sync_api.expect(guess.locator("input[type='radio']").first).to_be_checked()
    sync_api.expect(page.get_by_text(words["predict.right"])).to_be_visible()
    assert_no_exception(page)
