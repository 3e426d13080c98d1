"""Live views in a real browser (issue 21): drag a logit handle and a bar on Compare, in English
and in Chinese, and check what the view holds (data-values) against probcore at three positions,
then that the release reached the server (the URL's logits). Not timed (bench/bench_explorer.py
times the frames)."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from bench.browser import CHROMIUM, ROOT, chromium, serve, settle
from explorer.session import state
from probcore.registry import MAPPINGS

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium")
TIMEOUT_MS = 90_000
ROOT_SELECTOR = "[data-live-view='compare'][data-values]"


@pytest.fixture(scope="module")
def server():
    with serve(ROOT / "artifacts" / "streamlit-e2e-live.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api.sync_playwright) as b:
        yield b


def values(page) -> dict:
    return json.loads(page.locator(ROOT_SELECTOR).get_attribute("data-values"))


def assert_matches_probcore(shown: dict, **params) -> None:
    """Every mapping the view draws, at the logits it draws them for, as probcore's reference gives it
    with the explorer's default parameters but ``params``."""
    x = np.array(shown["logits"])
    assert set(shown["mappings"]) == set(state.DEFAULT_SHOWN)
    for name, p in shown["mappings"].items():
        defaults = state.default_kwargs(name)
        kwargs = {k: params.get(k, v) for k, v in defaults.items() if params.get(k, v) is not None}
        extra = {"target": 0} if MAPPINGS[name].needs_target else {}
        expected = MAPPINGS[name].reference(x, **kwargs, **extra)
        assert np.allclose(p, expected, rtol=0, atol=1e-9), (name, p, expected)


def drag_handle(page, index: int, fraction: float) -> None:
    """Press on the handle of logit ``index`` and drag to ``fraction`` of its track, in steps."""
    handle = page.locator(f"[data-live-view='compare'] input[aria-label='x{index}']")
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    y = box["y"] + box["height"] / 2
    start = box["x"] + box["width"] / 2
    page.mouse.move(start, y)
    page.mouse.down()
    page.mouse.move(box["x"] + fraction * box["width"], y, steps=12)
    page.mouse.up()


def url_logits(page) -> list[float]:
    return [float(v) for v in parse_qs(urlsplit(page.url).query).get("logits", [""])[0].split(",") if v]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dragging_compare_draws_probcore_and_reaches_the_server(server, browser, lang):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{server}/?lang={lang}")
        page.wait_for_selector(ROOT_SELECTOR, state="attached")
        settle(page)
        assert_matches_probcore(values(page))
        for fraction in (0.85, 0.2, 0.6):  # three positions of x0's handle
            drag_handle(page, 0, fraction)
            page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            shown = values(page)
            assert_matches_probcore(shown)
            page.wait_for_function("x => new URL(location.href).searchParams.get('logits') === x",
                                   arg=", ".join(f"{v:.6g}" for v in shown["logits"]))
            assert np.allclose(url_logits(page), shown["logits"])
        assert page.locator("[data-testid='stPlotlyChart']").count() == 0  # the live view replaced it
        bar = page.locator("[data-live-view='compare'] [data-class='1'] .pl-hit")  # drag class 1's bar up
        bar.scroll_into_view_if_needed()
        box = bar.bounding_box()
        before = values(page)["logits"][1]
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.7)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.3, steps=8)
        page.mouse.up()
        page.wait_for_function(f"() => JSON.parse(document.querySelector(\"{ROOT_SELECTOR}\")"
                               f".getAttribute('data-values')).logits[1] > {before}")
        shown = values(page)
        assert_matches_probcore(shown)
        temperature = page.locator("[data-live-view='compare'] input[aria-label='temperature']")
        for _ in range(4):  # T 1 -> 1.2 by keyboard: each step drawn at once, each sent (a full page run)
            temperature.press("ArrowRight")
            settle(page)  # as a hand would: a key press after the page has taken the last one
        page.wait_for_function("() => new URL(location.href).searchParams.get('temperature') === '1.2'")
        assert_matches_probcore(values(page), temperature=1.2)
        settle(page)
        assert page.locator(".st-key-w_temperature").count() == 0 or \
            page.locator(".st-key-w_temperature input").input_value() == "1.2"
        label = page.locator("[data-live-view='compare'] .pl-axis").last.text_content()
        assert label == ("class i (logit xᵢ)" if lang == "en" else "类别 i（logit xᵢ）")
        assert not errors, errors
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dragging_on_jacobian_draws_probcore_jacobians(server, browser, lang):
    """The Jacobian page's live heat maps (softmax and sparsemax at first) follow x0's handle: the
    matrices it holds are probcore.jacobian's at the logits it shows, at three positions."""
    import torch

    import probcore
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    selector = "[data-live-view='jacobian'][data-values]"
    try:
        page.goto(f"{server}/jacobian?lang={lang}")
        page.wait_for_selector(selector, state="attached")
        settle(page)
        handle = page.locator("[data-live-view='jacobian'] input[aria-label='x0']")
        for fraction in (0.8, 0.3, 0.55):
            handle.scroll_into_view_if_needed()
            box = handle.bounding_box()
            y = box["y"] + box["height"] / 2
            page.mouse.move(box["x"] + box["width"] / 2, y)
            page.mouse.down()
            page.mouse.move(box["x"] + fraction * box["width"], y, steps=10)
            page.mouse.up()
            page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            shown = json.loads(page.locator(selector).get_attribute("data-values"))
            assert set(shown["jacobians"]) == {"softmax", "sparsemax"}
            x = torch.tensor(shown["logits"], dtype=torch.float64)
            for name, J in shown["jacobians"].items():
                kwargs = {k: v for k, v in state.default_kwargs(name).items() if v is not None}
                assert np.allclose(J, probcore.jacobian(name, x, **kwargs).numpy(), rtol=0, atol=1e-9), name
            page.wait_for_function("x => new URL(location.href).searchParams.get('logits') === x",
                                   arg=", ".join(f"{v:.6g}" for v in shown["logits"]))
        assert not errors, errors
    finally:
        page.close()
