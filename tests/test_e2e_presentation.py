"""Presentation mode at a projector's 1280x720 (issue 24: "Previ…", "Back to the lesson…", slider values
drawn on the track, a small statistics table) and the PNG of a chart (saved as ``plot-image.png``
with its legend cut), in a real browser. On every topic and tool page of the registry and on the
lesson bar (English and Chinese), with presentation mode on: no label is cut (scrollWidth <=
clientWidth for every label, button, tab, select, slider value, metric and caption), no slider value
overlaps its track, and tables are zoomed with the text and stay in their column. Compare's live view
(explorer/live/static) likewise: its handles, parameters and legend uncut, and its statistics table drawn in
the browser (stats.js) with no cell cut, its text as large as st.table's in presentation mode and the table
within the page. The toolbar's
camera saves a PNG named by page, chart and parameters (explorer.drawing.ui.file_name), twice
ui.PNG_WIDTH wide, with nothing drawn on its right edge (a legend cut there would be)."""

from __future__ import annotations

import os
import re
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
    '[data-testid="stTable"] td, [data-testid="stMetricLabel"], [data-testid="stCaptionContainer"], '
    # the live views' own text (explorer/live/static): handles' and parameters' labels, legend, messages, and
    # Compare's statistics table drawn in the browser (stats.js), as the server's table above
    ".pl-live label, .pl-live select, .pl-legend, .pl-message, [data-live-table] th, [data-live-table] td, "
    "[data-live-table] caption, [data-live-table] h3, [data-live-table] p"
)
TWELVE_LOGITS = "2,-1.5,0.7,3.1,-2.2,0.05,1.1,-0.4,2.6,-3,0.9,1.8"  # 12 classes: a gradient cell is its head and norm
# the server's table cells in presentation mode (PROJECTOR_FIT_CSS): the browser's table is as large
TABLE_REM = float(re.search(r'stTable"\] td \{ font-size: ([\d.]+)rem', ui.PROJECTOR_FIT_CSS).group(1))
LIVE_TABLE = """() => {  // Compare's browser-drawn table: its text's smallest font size and its right edge past the page's
  const table = document.querySelector('[data-live-table] table');
  if (!table) return null;
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
  const texts = [...table.querySelectorAll('th, td, caption')].filter(e => e.getClientRects().length);
  const main = document.querySelector('[data-testid="stMainBlockContainer"]').getBoundingClientRect();
  return {cells: texts.length, smallest_rem: Math.min(...texts.map(e => parseFloat(getComputedStyle(e).fontSize))) / rem,
          overflow: table.getBoundingClientRect().right - main.right, scroll: table.parentElement.scrollWidth - table.parentElement.clientWidth};
}"""
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
    live = page.evaluate(LIVE_TABLE)
    if live is not None:  # as large as the server's table, within the page (no scrolling needed at 1280)
        assert live["cells"] and live["smallest_rem"] >= TABLE_REM - 0.01, (where, live)
        assert live["overflow"] <= 1 and live["scroll"] <= 1, (where, live)


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


def test_compare_live_view_and_its_table_fit_at_1280x720(server, browser):
    """Compare (the core page, not in the loop above) draws its statistics table in the browser
    (explorer/live/static/stats.js): its cells as large as the server's table's and none cut, the table
    within the page; the live view's handles, buttons, legend and (unfolded) parameters uncut too."""
    page = new_page(browser, PROJECTOR)
    page.set_default_timeout(180_000)
    for lang in ("en", "zh"):
        # the default mappings (all but Gumbel-softmax): the longest gradients
        page.goto(f"{server}/?present=1&logits={TWELVE_LOGITS}&lang={lang}")
        page.locator("[data-live-table='compare'] table").wait_for()
        fits(page, f"compare ({lang}), 12 classes")
        assert page.evaluate(LIVE_TABLE) is not None, "Compare's table is not the browser's"
        page.locator("[data-live-view='compare'] button[aria-controls]").click()  # unfold the parameters
        page.locator("[data-live-view='compare'] .pl-params:not([hidden])").wait_for()
        fits(page, f"compare ({lang}), its parameters unfolded")
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
