"""Presentation mode at a projector's 1280x720 (issue 24: "Previ…", "Back to the lesson…", slider values
drawn on the track, a small statistics table) and the PNG of a chart (saved as ``plot-image.png``
with its legend cut), in a real browser. On every topic and tool page of the registry and on the
lesson bar (English and Chinese), with presentation mode on: no label is cut (scrollWidth <=
clientWidth for every label, button, tab, select, slider value, metric and caption), no slider value
overlaps its track, and tables are zoomed with the text and stay in their column. The toolbar's
camera saves a PNG named by page, chart and parameters (explorer.drawing.ui.file_name), twice
ui.PNG_WIDTH wide, with nothing drawn on its right edge (a legend cut there would be)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.browser import CHROMIUM, ROOT, chromium, serve
from bench.lesson_browser import idle, new_page
from explorer.classroom import lessons
from explorer.drawing import ui
from views.registry import PAGES

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.slow,  # a served worker and a real browser
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
]

PROJECTOR = {"width": 1280, "height": 720}
TOPIC_AND_TOOL_PAGES = [page for page in PAGES.values() if page.section in ("nav.topics", "nav.tools")]
LABELS = (
    'button, [data-testid="stWidgetLabel"], [role="tab"], summary, [data-baseweb="select"], '
    '[data-testid="stSliderThumbValue"], [data-testid="stSliderTickBar"], [data-testid="stTable"] th, '
    '[data-testid="stTable"] td, [data-testid="stMetricLabel"], [data-testid="stCaptionContainer"]'
)
FIT = """labels => {
  const main = document.querySelector('[data-testid="stMain"]');
  const cut = [];  // a label, or any box inside it, wider than it is shown (an ellipsis or clipped text)
  for (const root of main.querySelectorAll(labels)) {
    for (const el of [root, ...root.querySelectorAll('*')]) {
      // icons are font ligatures; a 1-pixel box is text for screen readers only
      if (el.closest('[data-testid="stIconMaterial"]') || !el.getClientRects().length || el.clientWidth <= 1) continue;
      if (el.scrollWidth > el.clientWidth + 1)
        cut.push(`${root.getAttribute('data-testid') || root.tagName}: ${(el.innerText || '').slice(0, 50)} `
                 + `(${el.scrollWidth} > ${el.clientWidth} px)`);
    }
  }
  const onTrack = [];  // a slider's value is drawn above its thumb, never over the track
  for (const value of main.querySelectorAll('[data-testid="stSliderThumbValue"]')) {
    const v = value.getBoundingClientRect(), thumb = value.parentElement.getBoundingClientRect();
    if (v.bottom > thumb.top + 1) onTrack.push(`${value.innerText}: ${v.bottom} > ${thumb.top}`);
  }
  const tables = [...main.querySelectorAll('[data-testid="stDataFrame"]')].map(el => ({
    zoom: parseFloat(getComputedStyle(el).zoom),
    overflow: el.getBoundingClientRect().right - el.parentElement.getBoundingClientRect().right}));
  return {cut, onTrack, tables};
}"""


@pytest.fixture(scope="module")
def server():
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT)  # the worker imports this checkout's probcore and explorer
    try:
        with serve(ROOT / "artifacts" / "streamlit-e2e-presentation.log") as url:
            yield url
    finally:
        os.environ.pop("PYTHONPATH") if old is None else os.environ.__setitem__("PYTHONPATH", old)


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api.sync_playwright) as b:
        yield b


def fits(page, where: str) -> None:
    idle(page)
    page.wait_for_timeout(500)  # fonts and KaTeX laid out
    found = page.evaluate(FIT, LABELS)
    assert not found["cut"], (where, found["cut"])
    assert not found["onTrack"], (where, found["onTrack"])
    for table in found["tables"]:
        assert table["zoom"] >= 1.3 and table["overflow"] <= 1, (where, table)


def test_presentation_mode_cuts_no_label_at_1280x720(server, browser):
    page = new_page(browser, PROJECTOR)
    page.set_default_timeout(180_000)  # a whole page's first run on a busy shared machine
    for entry in TOPIC_AND_TOOL_PAGES:
        page.goto(f"{server}/{entry.url_path}?present=1")
        fits(page, entry.id)
    lesson = lessons.shipped()["01_softmax_temperature"]
    for lang, counter in (("en", "step 2 of"), ("zh", "第 2 步")):
        page.goto(f"{server}/?lesson={lesson.id}&step=2&present=1&lang={lang}")
        page.locator(".st-key-lesson_bar").get_by_text(counter).first.wait_for()
        fits(page, f"lesson bar ({lang})")
        labels = page.inner_text(".st-key-lesson_bar")
        assert ("Previous" in labels and "Back to the lesson's view" in labels) if lang == "en" else "上一步" in labels
    page.context.close()


def test_a_png_download_is_named_and_holds_the_whole_legend(server, browser, tmp_path):
    from PIL import Image

    page = new_page(browser, PROJECTOR)
    page.set_default_timeout(300_000)  # the server's first page (torch, plotly) on a busy shared machine
    page.goto(f"{server}/losses?losses_n=12")
    idle(page)
    chart = page.locator("[data-testid='stPlotlyChart']").first
    chart.hover()
    with page.expect_download() as download:
        chart.locator(".modebar-btn[data-title='Download plot as a PNG']").click()
    name = download.value.suggested_filename
    assert name.startswith("losses_") and name.endswith("-losses_n12.png"), name
    path = tmp_path / name
    download.value.save_as(path)
    image = Image.open(path).convert("RGB")
    assert image.width == 2 * ui.PNG_WIDTH, image.size
    background = image.getpixel((image.width - 1, 0))
    edge = [image.getpixel((x, y)) for x in range(image.width - 6, image.width) for y in range(image.height)]
    drawn = [pixel for pixel in edge if max(abs(a - b) for a, b in zip(pixel, background)) > 40]
    assert len(drawn) < 0.01 * len(edge), f"{len(drawn)} drawn pixels on the right edge of {name}"
    page.context.close()
