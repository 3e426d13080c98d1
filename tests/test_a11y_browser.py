"""Accessibility in a real browser (issue 26): axe-core (from the npm registry, installed by
scripts/test.sh into the git-ignored .axe/; the app never serves it, the test injects it) runs the
WCAG 2.1 A / AA rules on every page of the registry, in English, in Chinese and in presentation mode
with the dark theme, each page grown to its full height so that nothing is skipped: 0 serious and
0 critical violations. Leftovers owned by a framework are listed in ``FRAMEWORK_LEFTOVERS`` by rule and
selector with the reason, never silenced wholesale; each page also names itself (its window title
and ``<html lang>`` in its language). ``PROBCORE_A11Y_REPORT=path`` writes the per-page counts (the
table of docs/accessibility.md). Then the keyboard: focus into the Download popover, visible focus,
the lesson bar's keys only while no control has the focus, no invisible Tab stop, its leave button
named by what it does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.browser import CHROMIUM, IDLE, ROOT, VIEWPORT, chromium, open_controls, serve
from bench.lesson_browser import idle, wait_for_step
from explorer.classroom import lessons
from explorer.i18n import catalogue
from views.registry import PAGES as REGISTRY
from views.registry import window_title

sync_api = pytest.importorskip("playwright.sync_api")

AXE = ROOT / ".axe" / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "artifacts"
TIMEOUT_MS = 180_000  # a page under a loaded 2-core machine
WCAG21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# (language, presentation mode, colour scheme): every page is audited in each
VARIANTS = (("en", False, "light"), ("zh", False, "light"), ("en", True, "dark"))
# (rule id, CSS selector axe reports) -> why the app cannot fix it here
FRAMEWORK_LEFTOVERS: dict[tuple[str, str], str] = {}  # none: the live views' SVG is named (role="img", aria-label)

pytestmark = [
    pytest.mark.slow,  # a real browser on a served explorer
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
    pytest.mark.skipif(not AXE.exists(), reason="needs axe-core in .axe/ (bash scripts/test.sh installs it)"),
]


@pytest.fixture(scope="module")
def server():
    with serve(ARTIFACTS / "streamlit-a11y.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api.sync_playwright) as b:
        yield b


NAMED = "([title, lang]) => document.title === title && document.documentElement.lang === lang"
ALL_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(c => c.querySelector('.main-svg'))
    && [...document.querySelectorAll('[data-live-view]')].every(v => v.hasAttribute('data-values'))
    && !document.querySelector('[data-stale="true"]')"""


CALM_FOR = """ms => {  // the script idle and nothing stale, polled, for ms in a row
    const app = document.querySelector('[data-testid="stApp"]');
    const calm = app && app.getAttribute('data-test-script-state') === 'notRunning' && !document.querySelector('[data-stale="true"]');
    if (!calm) { window.__calmSince = null; return false; }
    if (window.__calmSince == null) window.__calmSince = performance.now();
    return performance.now() - window.__calmSince >= ms;
}"""


def drawn(page) -> None:
    """The script idle and every chart on the page drawn (bench.browser.settle also waits for a first
    chart, which the lesson editor does not have), then a second with no run and nothing faded as
    stale (a live view's first values start a run after the page's: a faded page is not the page)."""
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(ALL_DRAWN)
    page.evaluate("() => { window.__calmSince = null; }")
    page.wait_for_function(CALM_FOR, arg=1000, polling=100)  # within TIMEOUT_MS, like every wait here


def grow_to_full_height(page) -> None:
    """A window as tall as the page's content, so that axe sees every element on screen."""
    height = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
        '[data-testid="stMain"], [data-testid="stMainBlockContainer"], body')].map(e => e.scrollHeight))""")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(int(height) + 200, 30_000)})
    drawn(page)


def axe_violations(page) -> list[dict]:
    """axe's WCAG 2.1 A/AA violations on the page as drawn: [{id, impact, targets}]."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})
        .then(r => r.violations.map(v => ({id: v.id, impact: v.impact,
              nodes: v.nodes.map(n => ({target: n.target.join(' '), impact: n.impact, summary: n.failureSummary}))})))""",
        WCAG21_AA,
    )
    return found


FAINT_CHART_TEXT = """() => {  // Plotly's SVG text (axe does not check SVG text) under 4.5:1 on the page
    const rgb = c => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
    const lum = c => { const [r, g, b] = rgb(c).map(v => v / 255).map(v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
                       return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const page = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
    const skip = '.heatmaplayer, .barlayer, .scatterlayer, .hoverlayer, .updatemenu-container, .slider-container, .contourlayer';
    return [...document.querySelectorAll('[data-testid="stPlotlyChart"] .main-svg text')]
        .filter(t => t.textContent.trim() && !t.closest(skip))
        .map(t => [t.textContent.trim().slice(0, 30), ratio(getComputedStyle(t).fill, page)])
        .filter(([, r]) => r < 4.5);
}"""


def serious(violations: list[dict]) -> dict[str, list[str]]:
    """Rule -> selectors of the serious and critical nodes not listed in FRAMEWORK_LEFTOVERS."""
    out: dict[str, list[str]] = {}
    for v in violations:
        for node in v["nodes"]:
            if (node["impact"] or v["impact"]) in ("serious", "critical") and (
                v["id"],
                node["target"],
            ) not in FRAMEWORK_LEFTOVERS:
                out.setdefault(v["id"], []).append(node["target"])
    return out


def test_every_page_has_no_serious_or_critical_violation_and_names_itself(server, browser):
    report: dict[str, dict[str, dict[str, int]]] = {}
    failures = {}
    for lang, present, scheme in VARIANTS:
        context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        try:
            for entry in REGISTRY.values():
                name = f"{entry.id} {lang}{' present' if present else ''} {scheme}"
                page.set_viewport_size(VIEWPORT)
                try:
                    page.goto(f"{server}/{entry.url_path}?lang={lang}" + ("&present=1" if present else ""))
                    drawn(page)
                except sync_api.TimeoutError:  # say which page, and go on with the others
                    failures[name] = {"not drawn": [f"within {TIMEOUT_MS / 1000:g} s"]}
                    continue
                want = window_title(catalogue(lang)[entry.title])
                try:  # the title and <html lang> follow the run (set_page_config, the page script): wait for them
                    page.wait_for_function(NAMED, arg=[want, lang], timeout=30_000)
                except sync_api.TimeoutError:
                    got = page.evaluate("[document.title, document.documentElement.lang]")
                    failures[name] = {"window title / lang": [f"{got} instead of {[want, lang]}"]}
                    continue
                grow_to_full_height(page)
                found = serious(axe_violations(page))
                faint = page.evaluate(FAINT_CHART_TEXT)
                if faint:
                    found["chart-text-contrast"] = [f"{text!r} {ratio:.2f}:1" for text, ratio in faint]
                report[name] = {rule: len(nodes) for rule, nodes in found.items()}
                if found:
                    failures[name] = found
                with open(ARTIFACTS / "a11y-progress.log", "a") as log:
                    print(name, report[name], file=log)
        finally:
            context.close()
    if os.environ.get("PROBCORE_A11Y_REPORT"):
        Path(os.environ["PROBCORE_A11Y_REPORT"]).write_text(json.dumps(report, indent=1, ensure_ascii=False))
    assert not failures, json.dumps(failures, indent=1, ensure_ascii=False)[:20_000]


LIVE_TABLE_CONTRAST = """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})
  .then(r => Object.fromEntries(['passes', 'violations', 'incomplete'].map(kind => [kind,
    r[kind].filter(v => v.id === 'color-contrast').flatMap(v => v.nodes.map(n => n.target.join(' ')))
      .filter(t => document.querySelector(t)?.closest('[data-live-table]'))])))"""


WORDED_CELLS = """() => [...document.querySelectorAll("[data-live-table='compare'] :is(th, td, caption)")]
    .filter(cell => /[\\p{L}\\p{N}]/u.test(cell.textContent)).length"""


def test_compare_live_table_text_meets_contrast_in_light_and_dark(server, browser):
    """Compare's statistics table, drawn by the browser (stats.js): axe's color-contrast finds no violation and
    nothing incomplete in it, and passes at least as many nodes in it as it has cells with a letter or digit (axe
    skips a lone "—"), light and dark (WCAG 2.1 AA); the whole page has no serious or critical violation."""
    for lang, present, scheme in VARIANTS:
        context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        try:
            page.goto(f"{server}/?lang={lang}" + ("&present=1" if present else ""))
            page.locator("[data-live-table='compare'] table").wait_for()
            drawn(page)
            grow_to_full_height(page)
            cells = page.evaluate(WORDED_CELLS)
            page.add_script_tag(path=str(AXE))
            contrast = page.evaluate(LIVE_TABLE_CONTRAST, WCAG21_AA)
            where = f"compare {lang}{' present' if present else ''} {scheme}"
            assert not contrast["violations"] and not contrast["incomplete"], (where, contrast)
            # at least as many passes as worded cells
            assert len(contrast["passes"]) >= cells > 0, (where, cells, contrast["passes"])
            assert not serious(axe_violations(page)), where
        finally:
            context.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    p = context.new_page()
    p.set_default_timeout(TIMEOUT_MS)
    yield p
    context.close()


def focused(page) -> str:
    """The focused element's text or accessible label (for messages and checks)."""
    return page.evaluate(
        "() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || "
        "e.innerText || e.tagName) : null; }"
    )


WHERE_THE_FOCUS_IS = """() => {  // on a failure: the focus, the popover(s) and the script state
    const html = (e, n) => e ? e.outerHTML.slice(0, n) : null;
    const bodies = [...document.querySelectorAll('[data-testid="stPopoverBody"]')];
    const first = bodies[0] && bodies[0].querySelector('button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])');
    const style = first && getComputedStyle(first);
    return {active: html(document.activeElement, 300), popover_bodies: bodies.map(b => html(b, 1500)),
            openers_expanded: [...document.querySelectorAll('[data-testid="stPopoverButton"]')].map(b => b.getAttribute('aria-expanded')),
            first_focusable: first ? {disabled: first.disabled, visibility: style.visibility, display: style.display,
                                     rect: JSON.stringify(first.getBoundingClientRect())} : null,
            script_state: document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state'),
            stale: document.querySelectorAll('[data-stale="true"]').length, a11y_script: !!window.__pcA11y,
            events: (window.__pcEvents || []).slice(0, 60), animation_frames: window.__pcFrames};
}"""


RECORD_EVENTS = """() => {  // for a failure's report: the clicks, keys and focus moves from now on, with their times
    const t0 = performance.now(), log = window.__pcEvents = [];
    const what = e => e && e.getAttribute ? (e.getAttribute('data-testid') || e.tagName) + ' ' + (e.innerText || '').trim().slice(0, 12) : String(e);
    for (const type of ['keydown', 'click', 'focusin', 'focusout'])
        document.addEventListener(type, e => log.push([Math.round(performance.now() - t0), type, what(e.target),
                                                      e.key || '', e.defaultPrevented]), true);
    window.__pcFrames = 0;  // animation frames since (the app's script redraws from one): does the page still draw?
    const frame = () => { window.__pcFrames += 1; requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
}"""


def where_the_focus_is(page, name: str) -> str:
    """On a failure: a screenshot in artifacts/<name>.png and the state of WHERE_THE_FOCUS_IS, as JSON."""
    page.screenshot(path=ARTIFACTS / f"{name}.png")
    return json.dumps(page.evaluate(WHERE_THE_FOCUS_IS), indent=1)


def test_the_language_switch_renames_the_window_and_the_document(server, page):
    page.goto(f"{server}/sweeps")
    drawn(page)
    assert (page.title(), page.evaluate("document.documentElement.lang")) == (window_title("Sweeps"), "en")
    page.goto(f"{server}/sweeps?lang=zh")
    drawn(page)
    page.wait_for_function("() => document.documentElement.lang === 'zh'")
    assert page.title() == window_title(catalogue("zh")["page.sweeps"])


def open_download_by_keyboard(page) -> None:
    """The page's first Download popover opener focused, then Enter (a keyboard user opening it)."""
    opener = page.get_by_test_id("stPopoverButton").first
    page.evaluate(RECORD_EVENTS)
    opener.focus()
    page.keyboard.press("Enter")


def wait_for_focus_in_popover(page) -> None:
    """Until the focus is inside the open popover; on a timeout the failure says where the focus and
    the popover are (WHERE_THE_FOCUS_IS) and leaves a screenshot, artifacts/popover-focus.png."""
    try:
        page.wait_for_function(
            "() => document.activeElement && document.activeElement.closest('[data-testid=stPopoverBody]')"
        )
    except sync_api.TimeoutError:
        pytest.fail(f"the focus is not in the popover: {where_the_focus_is(page, 'popover-focus')}")


def test_download_popover_takes_the_focus_and_focus_stays_visible(server, page):
    page.goto(f"{server}/sweeps")
    drawn(page)
    open_download_by_keyboard(page)
    wait_for_focus_in_popover(page)
    assert focused(page).strip() == "CSV", focused(page)
    page.keyboard.press("Escape")
    # a toggle's focus (its input is hidden; the label is outlined), by keyboard
    toggle = page.locator("[data-testid='stSidebar'] input[type='checkbox']").first
    toggle.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    outline = page.evaluate("""() => { const label = document.activeElement.closest('label');
        const s = getComputedStyle(label); return [s.outlineStyle, s.outlineWidth]; }""")
    assert outline[0] != "none" and outline[1] != "0px", outline
    # a table's toolbar is shown while one of its buttons has the focus
    page.goto(f"{server}/check")
    drawn(page)
    toolbar_button = page.get_by_test_id("stElementToolbarButton").first
    toolbar_button.locator("button").focus() if toolbar_button.locator("button").count() else toolbar_button.focus()
    opacity = page.evaluate(
        "() => getComputedStyle(document.activeElement.closest('[data-testid=stElementToolbar]')).opacity"
    )
    assert float(opacity) == 1.0


LATE_S = 6  # the popover's buttons come this long after the Enter (their code held back)


def test_download_popover_takes_the_focus_however_late_its_buttons_come(server, page):
    """A slow machine: the popover opens at once but its download buttons (Streamlit loads their
    code, a chunk of its frontend, when a first one is drawn) come LATE_S later; the focus still
    lands on the first of them, not on the opener left behind."""
    held = []
    page.route("**/DownloadButton*.js", lambda route: held.append(route))
    page.goto(f"{server}/sweeps")
    drawn(page)
    open_download_by_keyboard(page)
    page.wait_for_selector("[data-testid=stPopoverBody]")
    page.wait_for_timeout(LATE_S * 1000)
    no_buttons_yet = "() => !document.querySelector('[data-testid=stPopoverBody] button')"
    assert held and page.evaluate(no_buttons_yet), "the popover's buttons were not held back"
    on_opener = "() => document.activeElement.matches('[data-testid=stPopoverButton]')"
    assert page.evaluate(on_opener), focused(page)  # the focus left on the opener meanwhile
    for route in held:
        route.continue_()
    wait_for_focus_in_popover(page)
    assert focused(page).strip() == "CSV", focused(page)


def test_an_open_popover_takes_the_focus_from_its_opener_though_no_activation_was_seen(server, page):
    """The state of the CI failure (the popover open, its buttons drawn, the focus on its opener), made
    on purpose: the click of the Enter is stopped at the app's root, after Streamlit has opened the
    popover, so the page's script never sees an activation; the focus still goes into the popover,
    once: Shift+Tab back to the opener leaves it there."""
    page.goto(f"{server}/sweeps")
    drawn(page)
    page.evaluate("() => document.getElementById('root').addEventListener('click', e => e.stopPropagation())")
    open_download_by_keyboard(page)
    wait_for_focus_in_popover(page)
    assert focused(page).strip() == "CSV", focused(page)
    page.keyboard.press("Shift+Tab")
    page.wait_for_timeout(500)  # frames and the script's retries pass
    on_opener = "() => document.activeElement.matches('[data-testid=stPopoverButton]')"
    assert page.evaluate(on_opener), focused(page)


def test_lesson_bar_keys_only_without_a_focused_control_and_no_invisible_tab_stop(server, page):
    n = len(lessons.shipped()["01_softmax_temperature"].steps)
    page.goto(f"{server}/?lesson=01_softmax_temperature&step=1")
    wait_for_step(page, 1, n)
    idle(page)
    page.wait_for_function("() => document.__lessonKeys")
    assert page.get_by_role("button", name="Leave the lesson").count() == 1  # named by what it does, not "close"
    frames = page.evaluate(
        "() => [...document.querySelectorAll('iframe')].filter(f => f.offsetHeight <= 2).map(f => f.tabIndex)"
    )
    assert frames and all(index == -1 for index in frames), frames  # the keys' 1-px frame is no Tab stop
    open_controls(page)  # the Mappings expander starts folded on a page with a live view (figure first)
    chip = page.locator(".st-key-w_params_of button").first  # a mapping chip
    chip.focus()
    page.keyboard.press("ArrowRight")  # goes to the focused chip, not to the lesson
    idle(page)
    assert "step=1" in page.url and page.evaluate("() => document.activeElement !== document.body")
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("ArrowRight")  # no control has the focus: the lesson moves on
    wait_for_step(page, 2, n)
