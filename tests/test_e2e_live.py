"""Live views in a real browser (issue 21): drag a logit handle and a bar on Compare, in English
and in Chinese, and check what the view holds (data-values) against probcore at three positions,
then that the release reached the server (the URL's logits). Not timed (bench/bench_explorer.py
times the frames)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from bench.browser import CHROMIUM, ROOT, chromium, open_controls, serve, settle
from explorer.drawing.colors import mapping_color
from explorer.i18n.shared import STRINGS
from explorer.session import state
from probcore.registry import MAPPINGS
from views.compare.strings import STRINGS as COMPARE_STRINGS

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.slow,  # a browser and a served app, every test
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
]
TIMEOUT_MS = 90_000
ROOT_SELECTOR = "[data-live-view='compare'][data-values]"


SERVER_LOG = ROOT / "artifacts" / "streamlit-e2e-live.log"


@pytest.fixture(scope="module")
def server():
    os.environ["PROBCORE_RUN_LOG"] = "1"  # each script run logged with what ran (explorer.drawing.ui.log_run)
    try:
        with serve(SERVER_LOG) as url:
            yield url
    finally:
        del os.environ["PROBCORE_RUN_LOG"]


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
            page.wait_for_function(
                "x => new URL(location.href).searchParams.get('logits') === x",
                arg=", ".join(f"{v:.6g}" for v in shown["logits"]),
            )
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
        page.wait_for_function(
            f'() => JSON.parse(document.querySelector("{ROOT_SELECTOR}")'
            f".getAttribute('data-values')).logits[1] > {before}"
        )
        shown = values(page)
        assert_matches_probcore(shown)
        temperature = page.locator("[data-live-view='compare'] input[data-param='temperature']")
        for _ in range(4):  # T 1 -> 1.2 by keyboard: each step drawn at once, each sent (a full page run)
            temperature.press("ArrowRight")
            settle(page)  # as a hand would: a key press after the page has taken the last one
        page.wait_for_function("() => new URL(location.href).searchParams.get('temperature') === '1.2'")
        assert_matches_probcore(values(page), temperature=1.2)
        settle(page)
        assert (
            page.locator(".st-key-w_temperature").count() == 0
            or page.locator(".st-key-w_temperature input").input_value() == "1.2"
        )
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
            page.wait_for_function(
                "x => new URL(location.href).searchParams.get('logits') === x",
                arg=", ".join(f"{v:.6g}" for v in shown["logits"]),
            )
        assert not errors, errors
    finally:
        page.close()


# ------------------------------------------------------------------ every live view (issue 21)

LIVE_PAGES = {"compare": "", "jacobian": "jacobian", "simplex": "simplex", "loss": "loss", "sweeps": "sweeps"}


def open_view(browser, server, view: str, query: str = "", viewport=None):
    page = browser.new_page(viewport=viewport or {"width": 1400, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.goto(f"{server}/{LIVE_PAGES[view]}{query}")
    page.wait_for_selector(f"[data-live-view='{view}'][data-values]", state="attached")
    settle(page)
    return page


def view_values(page, view: str) -> dict:
    return json.loads(page.locator(f"[data-live-view='{view}']").get_attribute("data-values"))


def next_frame(page) -> None:
    page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def pressed(page, index: int) -> list:
    """Press ArrowRight on Compare's handle x<index> and return the logits of the frame that draws it
    (read before that frame, they would be the old ones)."""
    old = view_values(page, "compare")["logits"][index]
    page.locator(f"[data-live-view='compare'] input[aria-label='x{index}']").press("ArrowRight")
    page.wait_for_function(
        f"([i, old]) => JSON.parse(document.querySelector(\"{ROOT_SELECTOR}\").getAttribute('data-values')).logits[i] !== old",
        arg=[index, old],
    )
    return view_values(page, "compare")["logits"]


def drag_in(page, locator, fx: float, fy: float, steps: int = 10) -> None:
    """Press in the middle of ``locator`` and drag to the fraction (fx, fy) of its box."""
    box = locator.evaluate("""e => {  // in one go: a live view may replace its SVG elements in any frame
        e.scrollIntoView({block: 'nearest'});
        const r = e.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height};
    }""")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + fx * box["width"], box["y"] + fy * box["height"], steps=steps)
    page.mouse.up()


def reference(name: str, x: np.ndarray, **params) -> np.ndarray:
    """probcore's numpy reference with the explorer's default parameters but ``params``."""
    kwargs = {k: params.get(k, v) for k, v in state.default_kwargs(name).items() if params.get(k, v) is not None}
    return MAPPINGS[name].reference(x, **kwargs, **({"target": 0} if MAPPINGS[name].needs_target else {}))


def check_view(view: str, shown: dict) -> None:
    """What the view holds is probcore's (Python) at the logits it shows, within 1e-9."""
    import torch

    import probcore
    from explorer import compute
    from views.simplex.figures import _plane

    x = np.array(shown["logits"])
    names = {"softmax", "sparsemax"} if view == "jacobian" else set(state.DEFAULT_SHOWN)  # Jacobian: the maps drawn
    assert set(shown["mappings"]) == names, shown["mappings"].keys()
    if view == "sweeps":
        T, alpha = shown["temperature"], shown["alpha"]
        for name, p in shown["mappings"].items():  # p(x / T) with the mapping's own T at 1
            assert np.allclose(p, reference(name, x / T, temperature=1.0), rtol=0, atol=1e-9), (name, T)
        assert set(shown["alpha_mappings"]) == {"entmax"}
        assert np.allclose(shown["alpha_mappings"]["entmax"], reference("entmax", x, alpha=alpha), rtol=0, atol=1e-9)
        return
    for name, p in shown["mappings"].items():
        assert np.allclose(p, reference(name, x), rtol=0, atol=1e-9), (name, p)
    if view == "jacobian":
        for name, J in shown["jacobians"].items():
            kwargs = {k: v for k, v in state.default_kwargs(name).items() if v is not None}
            assert np.allclose(J, probcore.jacobian(name, torch.tensor(x), **kwargs).numpy(), rtol=0, atol=1e-9), name
    if view == "simplex":
        assert np.allclose(shown["plane"]["logits"], _plane(x - (x.sum() - 1) / 3)[0], rtol=0, atol=1e-9)
        for name, p in shown["mappings"].items():
            assert np.allclose(shown["plane"][name], _plane(np.array(p))[0], rtol=0, atol=1e-9), name
    if view == "loss":
        assert np.allclose(shown["point"], [x[0] - x[2], x[1] - x[2]], rtol=0, atol=1e-12)
        assert shown["losses"], "no loss shown"
        for name, value in shown["losses"].items():
            kw = compute.items({k: v for k, v in state.default_kwargs(name).items()})
            loss, grad = compute.loss_and_grad(name, tuple(x), kw, shown["target"])
            assert abs(value - loss) <= 1e-9 * max(1.0, abs(loss)), (name, value, loss)
            assert np.allclose(shown["gradients"][name], grad, rtol=1e-9, atol=1e-9), name


def drag_view(page, view: str, k: int) -> None:
    """The k-th of three drags on ``view``: a logit handle (Compare, Jacobian, Sweeps: with the T slider moved
    by keyboard), the logits' star on Simplex's plane, the point on the first loss plane."""
    root = page.locator(f"[data-live-view='{view}']")
    if view == "simplex":
        drag_in(page, root.locator("rect.pl-plane"), (0.3, 0.6, 0.75)[k], (0.35, 0.7, 0.5)[k])
    elif view == "loss":
        drag_in(page, root.locator("[data-plane]").first, (0.8, 0.25, 0.6)[k], (0.3, 0.75, 0.55)[k])
    else:
        drag_in(page, root.locator("input[aria-label='x0']"), (0.85, 0.2, 0.6)[k], 0.5)
        if view == "sweeps":
            root.locator("input[data-sweep='T']").press(("ArrowLeft", "End", "Home")[k])


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("view", list(LIVE_PAGES))
def test_every_live_view_draws_probcore_at_three_drag_positions(server, browser, view, lang):
    """A drag on each live view at three positions: what it holds (data-values) is probcore's within 1e-9,
    and the release reaches the server (the URL's logits)."""
    page = open_view(browser, server, view, f"?lang={lang}")
    try:
        check_view(view, view_values(page, view))
        seen = []
        for k in range(3):
            drag_view(page, view, k)
            next_frame(page)
            shown = view_values(page, view)
            check_view(view, shown)
            seen.append(tuple(shown["logits"]))
            page.wait_for_function(
                "x => new URL(location.href).searchParams.get('logits') === x",
                arg=", ".join(f"{v:.6g}" for v in shown["logits"]),
            )
            settle(page)  # the release's run drawn: the next drag does not start on a page that still moves
        assert len(set(seen)) == 3, seen  # three different positions
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.slow
def test_the_last_release_wins_when_keys_outrun_the_server(server, browser):
    """Six key presses on the live temperature without waiting (each a release, faster than the server's
    runs): the server ends with the last value (the URL, and the softmax drawn at T = 1.3). The server's run
    after a release is not drawn again, so the input pressed is never replaced: it is the same element, with
    the focus, after the runs (issue 21: the run after a released T rebuilt the parameter inputs and a key
    pressed meanwhile went to the page, so under load the last press was lost)."""
    page = open_view(browser, server, "compare")
    try:
        temperature = page.locator("[data-live-view='compare'] input[data-param='temperature']")
        temperature.evaluate("e => { e.dataset.pressed = 'yes'; }")  # marks this element, not its replacement
        for _ in range(6):  # T 1 -> 1.3
            temperature.press("ArrowRight")
        assert view_values(page, "compare")["mappings"]  # drawn at once
        page.wait_for_function("() => new URL(location.href).searchParams.get('temperature') === '1.3'")
        settle(page)
        assert np.allclose(
            view_values(page, "compare")["mappings"]["softmax"],
            reference("softmax", np.array(view_values(page, "compare")["logits"]), temperature=1.3),
            rtol=0,
            atol=1e-9,
        )
        kept = page.evaluate(
            """() => { const e = document.querySelector("[data-live-view='compare'] input[data-param='temperature']");
                return {same: e.dataset.pressed === 'yes', focused: document.activeElement === e, value: e.value}; }"""
        )
        assert kept == {"same": True, "focused": True, "value": "1.3"}, kept
        assert not page.errors, page.errors
    finally:
        page.close()


def runs_logged() -> list[str]:
    """What each script run of the test server ran, in order: "app" or a fragment's function name."""
    return [line.split()[3] for line in SERVER_LOG.read_text().splitlines() if line.startswith("RUN ")]


def table_cells(page) -> dict[str, dict[str, str]]:
    """Compare's statistics table as the browser draws it (explorer/live/static/stats.js): {row header: {column
    header: cell}}; the page has no server table then."""
    return page.evaluate(
        """() => {
            if (document.querySelector("[data-testid='stTable']")) return null;
            const table = document.querySelector("[data-live-table='compare'] table");
            const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
            return Object.fromEntries([...table.querySelectorAll('tbody tr')].map(tr => [
                tr.querySelector('th').textContent.trim(),
                Object.fromEntries([...tr.children].map((cell, i) => [heads[i], cell.textContent.trim()]))]));
        }"""
    )


def table_max_p(page, label: str) -> float:
    """The max p column of Compare's statistics table in the row of mapping ``label``."""
    return float(table_cells(page)[label][STRINGS["col.max_p"]["en"]])


def test_a_release_reruns_what_the_logits_change_not_the_controls(server, browser):
    """A release of a logit on Compare, the Logits expander closed (it and the Mappings expander draw no
    widget then): the server reruns the fragment of the chart alone (``chart``: the browser draws the
    statistics table, the controls above and the question below are not drawn again), and the table shows
    the softmax of the new logits; the Logits expander opened, a release reruns the page's fragment
    (``live``) so that its text field shows the new logits too."""
    page = open_view(browser, server, "compare")
    try:
        for closed in (".st-key-w_logits", ".st-key-w_show", ".st-key-x_0"):  # closed expanders draw no widget
            assert page.locator(closed).count() == 0, closed
        handle = page.locator("[data-live-view='compare'] input[aria-label='x0']")
        for opened in (False, True):
            if opened:
                page.locator("[data-testid='stExpander'] summary", has_text=STRINGS["sb.logits"]["en"]).click()
                page.wait_for_selector(".st-key-w_logits input")
                settle(page)
            before, x0 = len(runs_logged()), view_values(page, "compare")["logits"][0]
            handle.press("ArrowRight")
            page.wait_for_function(  # the frame that draws the press
                f"x0 => JSON.parse(document.querySelector(\"{ROOT_SELECTOR}\").getAttribute('data-values')).logits[0] !== x0",
                arg=x0,
            )
            x = view_values(page, "compare")["logits"]
            page.wait_for_function(
                "x => new URL(location.href).searchParams.get('logits') === x", arg=", ".join(f"{v:.6g}" for v in x)
            )
            settle(page)
            ran = runs_logged()[before:]  # the view sends a release again if no run took it within 2.5 s
            assert ran and set(ran) == {"live" if opened else "chart"}, ran
            expected = reference("softmax", np.array(x)).max()
            assert table_max_p(page, "Softmax") == float(f"{expected:.4f}")
            if opened:
                assert page.locator(".st-key-w_logits input").input_value() == ", ".join(f"{v:.6g}" for v in x)
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.slow
def test_the_table_follows_the_hand_and_a_revealed_answer_follows_the_release(server, browser):
    """While x0 moves (input events, no release) the browser's statistics table is redrawn in the frame that
    draws the chart: its max p and Σ p are those of data-values, and no script runs. A released temperature
    (the Mappings expander closed) reruns the chart alone and the table shows T's p. With the question's answer
    revealed, a release reruns the fragment around the chart and the question (``numbers``), so that the
    answer is the one of the new logits."""
    page = open_view(browser, server, "compare")
    try:
        before = len(runs_logged())
        for value in (3.5, -2.25, 7.0):
            page.evaluate(
                """v => { const e = document.querySelector("[data-live-view='compare'] input[aria-label='x0']");
                    e.value = v; e.dispatchEvent(new Event('input', {bubbles: true})); }""",
                value,
            )
            next_frame(page)
            shown, cells = view_values(page, "compare"), table_cells(page)
            assert shown["logits"][0] == value
            for name, p in shown["mappings"].items():
                row = cells[STRINGS.get(f"mapping.{name}", {}).get("en") or MAPPINGS[name].label]
                assert row[STRINGS["col.max_p"]["en"]] == f"{max(p):.4f}", (name, row)
                assert row[STRINGS["col.sum"]["en"]] == f"{np.sum(p):.6f}", (name, row)
        assert runs_logged()[before:] == []  # the hand moved the table without the server
        page.locator("[data-live-view='compare'] input[data-param='temperature']").press("ArrowRight")  # T 1 -> 1.05
        page.wait_for_function("() => new URL(location.href).searchParams.get('temperature') === '1.05'")
        settle(page)
        ran = runs_logged()[before:]  # the Mappings expander closed: a released parameter reruns the chart alone
        assert ran and set(ran) == {"chart"}, ran
        x = np.array(view_values(page, "compare")["logits"])
        assert table_max_p(page, "Softmax") == float(f"{reference('softmax', x, temperature=1.05).max():.4f}")
        page.locator("[data-testid='stExpander'] summary", has_text=STRINGS["predict.title"]["en"]).click()
        settle(page)  # the opening's run has drawn the question (a click during it can land on a replaced element)
        reveal = page.locator(".st-key-q_compare_reveal")
        reveal.locator("label").click()
        settle(page)
        if not reveal.locator("input").is_checked():  # (taken by a run still drawing: once more)
            reveal.locator("label").click()
        answer = page.get_by_text(COMPARE_STRINGS["q_compare.a"]["en"].split("{")[0].strip())
        sync_api.expect(answer).to_be_visible(timeout=TIMEOUT_MS)
        settle(page)
        before = len(runs_logged())
        x = pressed(page, 1)
        page.wait_for_function(
            "x => new URL(location.href).searchParams.get('logits') === x", arg=", ".join(f"{v:.6g}" for v in x)
        )
        settle(page)
        ran = runs_logged()[before:]
        assert ran and set(ran) == {"numbers"}, ran
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.slow
def test_add_ten_after_a_release_adds_to_the_released_logits(server, browser):
    """The question open, its answer not revealed: after a release (x0 1.2 -> 1.25, shown in the URL), "Add 10"
    puts the released logits + 10 in the URL, not those of the fragment's last run (it read them from its
    closure and gave 11.2); no page error."""
    page = open_view(browser, server, "compare")
    try:
        page.locator("[data-testid='stExpander'] summary", has_text=STRINGS["predict.title"]["en"]).click()
        add = page.get_by_role("button", name=COMPARE_STRINGS["q_compare.do"]["en"])
        sync_api.expect(add).to_be_visible(timeout=TIMEOUT_MS)
        settle(page)
        x = pressed(page, 0)
        page.wait_for_function(
            "x => new URL(location.href).searchParams.get('logits') === x", arg=", ".join(f"{v:.6g}" for v in x)
        )
        settle(page)
        add.click()
        shifted = ", ".join(f"{v + 10:.6g}" for v in x)
        page.wait_for_function("x => new URL(location.href).searchParams.get('logits') === x", arg=shifted)
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.slow
@pytest.mark.parametrize("view", ["compare", "sweeps"])
def test_downloads_hold_what_the_view_shows(server, browser, view, tmp_path):
    """The view's CSV and JSON buttons, reached by keyboard, save the numbers of data-values."""
    page = open_view(browser, server, view)
    try:
        shown = view_values(page, view)
        for kind in ("json", "csv"):
            button = page.locator(f"[data-live-view='{view}'] button[data-download='{kind}']")
            button.focus()
            with page.expect_download() as info:
                page.keyboard.press("Enter")
            path = tmp_path / f"{view}.{kind}"
            info.value.save_as(path)
            if kind == "json":
                assert json.loads(path.read_text()) == shown
            else:
                rows = [line.split(",") for line in path.read_text().strip().splitlines()]
                header = [h.strip('"') for h in rows[0]]
                table = np.array(rows[1:], dtype=float)
                assert np.array_equal(table[:, 1], shown["logits"])
                for name, p in shown["mappings"].items():
                    assert np.array_equal(table[:, header.index(name)], p), name
                if view == "sweeps":
                    assert np.array_equal(
                        table[:, header.index("alpha_mappings.entmax")], shown["alpha_mappings"]["entmax"]
                    )
    finally:
        page.close()


FIRST_SCREEN = """view => {  // what is not on the first screen, or cut
    const root = document.querySelector(`[data-live-view='${view}']`);
    const H = innerHeight, W = innerWidth, problems = [];
    const box = el => el.getBoundingClientRect();
    const inside = (r, o) => r.top >= o.top - 0.5 && r.left >= o.left - 0.5 && r.bottom <= o.bottom + 0.5 && r.right <= o.right + 0.5;
    const screen = {top: 0, left: 0, bottom: H, right: W};
    const chart = root.querySelector('svg.pl-chart');
    if (!inside(box(chart), screen)) problems.push(`chart at ${JSON.stringify(box(chart))}`);
    const driver = root.querySelector("input[aria-label='x0']");
    if (!driver || !inside(box(driver), screen)) problems.push('x0 handle');
    for (const text of chart.querySelectorAll('text')) {  // no chart label outside the chart
        if (!inside(box(text), box(chart))) problems.push(`chart label cut: ${text.textContent}`);
    }
    const labels = '.pl-name, .pl-key, .pl-button, [data-testid=stWidgetLabel] p, [data-testid=stExpander] summary p, '
        + 'h1, button p, [data-testid=stCaptionContainer] p';
    for (const el of document.querySelectorAll(labels)) {
        const r = box(el);
        if (r.width === 0 || r.bottom <= 0 || r.top >= H) continue;  // not on the first screen
        if (el.scrollWidth > el.clientWidth + 1) problems.push(`label cut: ${el.textContent.slice(0, 40)}`);
    }
    return problems;
}"""


# Every map the Jacobian page draws live: the shown mappings with a closed-form Jacobian (perturb-max's is
# autograd's, drawn by the server under the view); 7 maps, more than one row of them.
JACOBIAN_LIVE_MAPS = [name for name in state.DEFAULT_SHOWN if MAPPINGS[name].analytic_jacobian]
# (shot name, view, query): every core page as it opens, and the Jacobian with every live map picked
FIGURE_FIRST_CASES = [(view, view, "") for view in LIVE_PAGES] + [
    ("jacobian_all_maps", "jacobian", "&heatmaps=" + ",".join(JACOBIAN_LIVE_MAPS))
]


@pytest.mark.slow
@pytest.mark.parametrize("present", [0, 1], ids=["plain", "present"])
@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_figure_first(server, browser, size, present):
    """Every core page at 1280x720 and 1920x1080, presentation mode off and on, and the Jacobian with every map
    it draws live (7: two rows or more): its live figure and the handle that drives it are on the first screen
    without scrolling, and no label there is cut (scrollWidth <= clientWidth; no chart label outside the chart).
    Screenshots in artifacts/figure-first/."""
    shots = ROOT / "artifacts" / "figure-first"
    shots.mkdir(parents=True, exist_ok=True)
    width, height = size
    problems = {}
    for shot, view, query in FIGURE_FIRST_CASES:
        page = open_view(
            browser, server, view, f"?present={present}{query}", viewport={"width": width, "height": height}
        )
        try:
            page.wait_for_function("() => new Promise(r => setTimeout(() => requestAnimationFrame(r), 300))")
            page.screenshot(path=shots / f"{shot}_{width}x{height}_present{present}.png")
            if shot == "jacobian_all_maps":  # every map drawn, not fewer
                assert list(view_values(page, view)["jacobians"]) == JACOBIAN_LIVE_MAPS
            found = page.evaluate(FIRST_SCREEN, view)
            if found:
                problems[shot] = found
            assert not page.errors, page.errors
        finally:
            page.close()
    assert not problems, problems


@pytest.mark.slow
def test_figure_first_follows_what_moves_above_the_view(server, browser):
    """The chart's height is fitted to the room under its top. When what is above the view grows after it is drawn
    (here the title, 60 px: as a caption that wraps once its font has loaded, or an element that arrives late), the
    view is not resized but moved: it is fitted again, smaller, and still ends on the first screen (Jacobian at
    1280x720 in presentation mode)."""
    page = open_view(browser, server, "jacobian", "?present=1", viewport={"width": 1280, "height": 720})
    chart = "document.querySelector(\"[data-live-view='jacobian'] svg.pl-chart\").getBoundingClientRect()"
    try:
        before = page.evaluate(f"() => {{ const r = {chart}; return [r.top, r.height]; }}")
        page.evaluate("""() => {
            const title = document.querySelector('.stMainBlockContainer h1');
            title.style.paddingTop = `${parseFloat(getComputedStyle(title).paddingTop) + 60}px`;
        }""")
        page.wait_for_function(f"top => {chart}.top > top + 59", arg=before[0])
        next_frame(page)
        next_frame(page)
        top, height, bottom, window = page.evaluate(
            f"() => {{ const r = {chart}; return [r.top, r.height, r.bottom, innerHeight]; }}"
        )
        assert bottom <= window + 0.5, (before, top, height, bottom)
        assert height < before[1] - 50, (before, height)  # fitted again, not only moved
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.slow
def test_compare_marks_an_underflow_apart_from_an_exact_zero(server, browser):
    """At x = (1.2, 0.3, -1000) softmax's p_2 (about e^-1001) is > 0 but 0 in float64: an open circle on the axis
    in softmax's colour, with the underflow hover and legend entry; sparsemax's p_2 is exactly 0: the cross. The
    screen-reader sentence counts sparsemax's zero as exact and softmax's as an underflow."""
    page = open_view(browser, server, "compare", "?logits=1.2,0.3,-1000&show=softmax,sparsemax")
    try:
        shown = view_values(page, "compare")
        assert shown["logits"] == [1.2, 0.3, -1000]
        assert shown["mappings"]["softmax"][2] == 0 and shown["mappings"]["sparsemax"][2] == 0
        assert shown["underflows"] == {"softmax": [False, False, True], "sparsemax": [False, False, False]}
        column = page.locator("[data-live-view='compare'] [data-class='2']")
        ring, cross = column.locator("circle.pl-underflow"), column.locator("path.pl-zero")
        assert ring.count() == 1 and cross.count() == 1
        assert ring.get_attribute("stroke") == mapping_color("softmax")
        assert cross.get_attribute("stroke") == mapping_color("sparsemax")
        assert ring.locator("title").text_content().endswith(STRINGS["fig.underflow_hover"]["en"])
        assert cross.locator("title").text_content().endswith("p = 0 (exact)")
        legend = page.locator("[data-live-view='compare'] .pl-key").all_text_contents()
        assert STRINGS["fig.exact_zero"]["en"] in legend and STRINGS["fig.underflow"]["en"] in legend
        spoken = page.locator("[data-live-view='compare'] .pl-sr").text_content()
        assert spoken.count("1 exact zero(s)") == 1  # sparsemax's: softmax's 0 is not counted as exact
        assert spoken.count("1 p > 0 rounded to 0 (underflow)") == 1
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.slow
def test_sweeps_marks_an_underflow_apart_from_an_exact_zero(server, browser):
    """Sweeps at x = (1.2, 0.3, -1000), T = 1: softmax's p_2 (about e^-1001) is > 0 but 0 in float64, an open
    circle in softmax's colour with the underflow hover; sparsemax's and α-entmax's (α = 1.25) p_2 are exactly 0,
    crosses; the legend has both keys and the spoken sentence counts one underflow. The α panel starts at α = 1.5
    (p_2 exactly 0); moved to α = 1 (α-entmax is softmax there) its p_2 is an underflow (data-values'
    "alpha_underflows"): an open circle in entmax's colour."""
    page = open_view(browser, server, "sweeps", "?logits=1.2,0.3,-1000&show=softmax,sparsemax,entmax")
    root = page.locator("[data-live-view='sweeps']")
    try:
        shown = view_values(page, "sweeps")
        assert shown["logits"] == [1.2, 0.3, -1000] and shown["temperature"] == pytest.approx(1.0)
        assert all(p[2] == 0 for p in shown["mappings"].values())
        assert shown["underflows"] == {
            "softmax": [False, False, True],
            "sparsemax": [False, False, False],
            "entmax": [False, False, False],
        }
        assert shown["alpha"] == 1.5 and shown["alpha_underflows"] == {"entmax": [False, False, False]}
        column = root.locator("[data-class='2']")  # the T panel's column of class 2 comes first
        ring, crosses = column.first.locator("circle.pl-underflow"), column.first.locator("path.pl-zero")
        assert ring.count() == 1 and crosses.count() == 2
        assert ring.get_attribute("stroke") == mapping_color("softmax")
        assert {crosses.nth(k).get_attribute("stroke") for k in range(2)} == {
            mapping_color("sparsemax"),
            mapping_color("entmax"),
        }
        assert ring.locator("title").text_content().endswith(STRINGS["fig.underflow_hover"]["en"])
        assert crosses.first.locator("title").text_content().endswith("p = 0 (exact)")
        legend = root.locator(".pl-key").all_text_contents()
        assert STRINGS["fig.exact_zero"]["en"] in legend and STRINGS["fig.underflow"]["en"] in legend
        spoken = root.locator(".pl-sr").text_content()
        assert spoken.count("1 exact zero(s)") == 2  # sparsemax's and entmax's: softmax's 0 is not exact
        assert spoken.count("1 p > 0 rounded to 0 (underflow)") == 1
        alpha_column = column.nth(1)  # the α panel's
        assert alpha_column.locator("circle.pl-underflow").count() == 0
        assert alpha_column.locator("path.pl-zero").count() == 1
        root.locator(".pl-sweeps input[data-sweep='alpha']").press("Home")  # the α sweep's range: α = 1
        next_frame(page)
        shown = view_values(page, "sweeps")
        assert shown["alpha"] == 1 and shown["alpha_mappings"]["entmax"][2] == 0
        assert shown["alpha_underflows"] == {"entmax": [False, False, True]}
        assert alpha_column.locator("circle.pl-underflow").get_attribute("stroke") == mapping_color("entmax")
        assert alpha_column.locator("path.pl-zero").count() == 0
        assert not page.errors, page.errors
    finally:
        page.close()


# The roles of the controls a screen reader lists by name (Chromium's accessibility tree)
CONTROL_ROLES = set("button checkbox combobox listbox radio searchbox slider spinbutton switch textbox".split())


def control_names(page, view: str) -> tuple[list[str], list[str]]:
    """The accessible names Chromium computes (its accessibility tree, over CDP) of the live view's controls
    (inputs, selects, buttons) and of every control of the page (the live view's included), those shown only."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Accessibility.enable")
        nodes = [n for n in cdp.send("Accessibility.getFullAXTree")["nodes"] if not n.get("ignored")]
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        ids = cdp.send(
            "DOM.querySelectorAll",
            {"nodeId": root, "selector": f"[data-live-view='{view}'] :is(input, select, button)"},
        )["nodeIds"]
        live = {cdp.send("DOM.describeNode", {"nodeId": i})["node"]["backendNodeId"] for i in ids}
    finally:
        cdp.detach()
    controls = [n for n in nodes if n.get("role", {}).get("value") in CONTROL_ROLES]
    names = [(n.get("name", {}).get("value", "").strip(), n.get("backendDOMNodeId") in live) for n in controls]
    return [name for name, in_view in names if in_view], [name for name, _ in names]


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_live_control_has_a_name_of_its_own(server, browser, lang):
    """WCAG 2.1 AA (4.1.2, 2.4.6): on every core page, each control of the live view (handles, parameters, the
    Sweeps page's T and α ranges, their Play / Pause, the downloads) has an accessible name that no other control
    on the page has, with the Mappings and Logits expanders open and α-entmax's parameters shown (the Streamlit
    field "α" beside the live α). The Sweeps page had two sliders named "alpha": the live α parameter and the α
    sweep's range."""
    clashes = {}
    for view in LIVE_PAGES:
        page = open_view(browser, server, view, f"?lang={lang}")
        try:
            open_controls(page)
            page.locator(".st-key-w_params_of button", has_text="α-entmax").click()  # its α field shown
            page.wait_for_selector(".st-key-w_alpha input")
            settle(page)
            live, everywhere = control_names(page, view)
            assert len(live) >= 4, live  # the handles x0..x2 and a parameter at least: the view's controls were found
            clash = sorted({name for name in live if not name or everywhere.count(name) > 1})
            if clash:
                clashes[view] = clash
            assert not page.errors, page.errors
        finally:
            page.close()
    assert not clashes, clashes
