"""Accessibility in a real browser (issue 26): axe-core (from the npm registry, installed by
scripts/test.sh into the git-ignored .axe/; the app never serves it, the test injects it) runs the
WCAG 2.1 A / AA rules on every page of the registry, in English, in Chinese and in presentation mode
with the dark theme, each page grown to its full height so that nothing is skipped: 0 serious and
0 critical violations. Leftovers owned by a framework are listed in ``FRAMEWORK_LEFTOVERS`` by rule and
selector with the reason, never silenced wholesale. ``PROBCORE_A11Y_REPORT=path`` writes the
per-page counts (the table of docs/accessibility.md)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.browser import CHROMIUM, IDLE, ROOT, VIEWPORT, chromium, serve
from views.registry import PAGES as REGISTRY

sync_api = pytest.importorskip("playwright.sync_api")

AXE = ROOT / ".axe" / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "artifacts"
TIMEOUT_MS = 90_000
WCAG21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# (language, presentation mode, colour scheme): every page is audited in each
VARIANTS = (("en", False, "light"), ("zh", False, "light"), ("en", True, "dark"))
# (rule id, CSS selector axe reports) -> why the app cannot fix it
FRAMEWORK_LEFTOVERS: dict[tuple[str, str], str] = {}

pytestmark = [pytest.mark.slow,  # a real browser on a served explorer
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
              pytest.mark.skipif(not AXE.exists(), reason="needs axe-core in .axe/ (bash scripts/test.sh installs it)")]


@pytest.fixture(scope="module")
def server():
    with serve(ARTIFACTS / "streamlit-a11y.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api.sync_playwright) as b:
        yield b


ALL_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(c => c.querySelector('.main-svg'))
    && [...document.querySelectorAll('[data-live-view]')].every(v => v.hasAttribute('data-values'))
    && !document.querySelector('[data-stale="true"]')"""


def drawn(page) -> None:
    """The script idle and every chart on the page drawn (bench.browser.settle also waits for a first
    chart, which the lesson editor does not have)."""
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function(ALL_DRAWN)
    page.wait_for_selector(IDLE, state="attached")


def grow_to_full_height(page) -> None:
    """A window as tall as the page's content, so that axe sees every element on screen."""
    height = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
        '[data-testid="stMain"], [data-testid="stMainBlockContainer"], body')].map(e => e.scrollHeight))""")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(int(height) + 200, 30_000)})
    drawn(page)


def axe_violations(page) -> list[dict]:
    """axe's WCAG 2.1 A/AA violations on the page as drawn: [{id, impact, targets}]."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})
        .then(r => r.violations.map(v => ({id: v.id, impact: v.impact,
              nodes: v.nodes.map(n => ({target: n.target.join(' '), impact: n.impact, summary: n.failureSummary}))})))""",
                          WCAG21_AA)
    return found


def serious(violations: list[dict]) -> dict[str, list[str]]:
    """Rule -> selectors of the serious and critical nodes not listed in FRAMEWORK_LEFTOVERS."""
    out: dict[str, list[str]] = {}
    for v in violations:
        for node in v["nodes"]:
            if (node["impact"] or v["impact"]) in ("serious", "critical") and (v["id"], node["target"]) not in FRAMEWORK_LEFTOVERS:
                out.setdefault(v["id"], []).append(node["target"])
    return out


def test_every_page_has_no_serious_or_critical_violation(server, browser):
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
                page.goto(f"{server}/{entry.url_path}?lang={lang}" + ("&present=1" if present else ""))
                drawn(page)
                grow_to_full_height(page)
                found = serious(axe_violations(page))
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
