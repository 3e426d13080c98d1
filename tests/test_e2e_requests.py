"""Issue 25 finding 4 and issue 24 (offline) in a real browser: every request a page makes is
recorded, and none may go to a host other than the test server's: on every page of the registry
(a load, a slider step, the Download popover, presentation mode, Chinese), and while a lesson plays. A lesson file with
reference-style links and images is uploaded through the Lessons page's "Open a lesson" (refused:
no request follows), then a lesson whose free-text page option carries a Markdown image and link,
shown through ``{{param:attention_query}}``, is uploaded and played through its steps."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.browser import CHROMIUM, ROOT, chromium, serve
from bench.lesson_browser import click, counter, idle, new_page, wait_for_step

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.slow,  # a served worker and a real browser
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
]

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
PIXEL = "https://tracker.example.com/pixel.png"

REFERENCE_LINKS = f"""title_en = "Refs"
title_zh = "Refs"

[[step]]
page = "compare"
params = {{ logits = "1, 0" }}
text_en = '''
See [notes][a] and ![pixel][b].

[a]: https://tracker.example.com/notes
[b]: {PIXEL}
'''
text_zh = "z"
"""

FREE_TEXT = f"""title_en = "Free text"
title_zh = "Free text"

[[step]]
page = "attention"
params = {{ attention_query = "![x]({PIXEL}) [y](https://tracker.example.com/y) <img src='{PIXEL}'>" }}
text_en = "Query: {{{{param:attention_query}}}}."
text_zh = "z"

[[step]]
page = "compare"
params = {{ logits = "2, 1, 0" }}
text_en = "Step two."
text_zh = "z"

[[step]]
page = "compare"
params = {{ logits = "3, 1, 0" }}
text_en = "Step three."
text_zh = "z"
"""


@pytest.fixture(scope="module")
def server():
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT)  # the worker imports this checkout's probcore and explorer
    try:
        with serve(ROOT / "artifacts" / "streamlit-e2e-requests.log") as url:
            yield url
    finally:
        os.environ.pop("PYTHONPATH") if old is None else os.environ.__setitem__("PYTHONPATH", old)


def foreign(requested: list[str]) -> list[str]:
    """The requests that left the test server (http(s) or websocket to another host; blob: and
    data: URLs stay in the page)."""
    return sorted(
        {
            url
            for url in requested
            if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname not in LOCAL_HOSTS
        }
    )


def test_every_page_requests_nothing_from_another_host(server):
    """Offline (issue 24): the tab icon was fetched from fonts.gstatic.com on every load. Each page
    of the registry is loaded (every other one in presentation mode, the others in Chinese), then a
    slider moved with the keyboard (where it has one) and its first Download popover opened: no
    request leaves the test server."""
    from views.registry import PAGES

    with chromium(sync_api.sync_playwright) as browser:
        page = new_page(browser)
        page.set_default_timeout(180_000)  # a whole page's first run on a busy shared machine
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        for i, entry in enumerate(PAGES.values()):
            page.goto(f"{server}/{entry.url_path}?{'present=1' if i % 2 else 'lang=zh'}")
            idle(page)
            slider = page.locator("[data-testid='stMain'] [role='slider']")
            if slider.count():
                slider.first.focus()
                page.keyboard.press("ArrowRight")
                idle(page)
            popover = page.locator("[data-testid='stMain'] [data-testid='stPopover'] button")
            if popover.count():
                popover.first.click()
                page.wait_for_timeout(300)
                page.keyboard.press("Escape")
            page.wait_for_timeout(300)  # images, fonts and icons of the page load
        icon = page.evaluate("document.querySelector(\"link[rel='shortcut icon']\").href")
    assert len(requested) > 5 * len(PAGES), len(requested)
    assert icon.startswith("data:image/svg+xml"), icon[:80]  # the tab icon, sent with the page
    assert not foreign(requested), foreign(requested)


def upload(page, tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    page.locator(".st-key-author_upload input[type='file']").set_input_files(str(path))
    idle(page)


def test_a_played_lesson_requests_nothing_from_another_host(server, tmp_path):
    with chromium(sync_api.sync_playwright) as browser:
        page = new_page(browser)
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{server}/lesson")
        idle(page)
        page.get_by_role("tab", name="Write a lesson").click()
        upload(page, tmp_path, "refs.toml", REFERENCE_LINKS)
        page.get_by_text("markup", exact=False).first.wait_for()  # refused, with a message
        upload(page, tmp_path, "free_text.toml", FREE_TEXT)
        page.locator(".st-key-author_play button").first.wait_for()
        click(page, "author_play")
        for k in (1, 2, 3):
            wait_for_step(page, k, 3)
            idle(page)
            page.wait_for_timeout(1000)  # let images and fonts of the step load
            if k < 3:
                click(page, "lesson_next")
        assert counter(3, 3) in page.inner_text(".st-key-lesson_bar")
    assert requested, "no request was recorded"
    assert not foreign(requested), foreign(requested)
    assert not any("tracker.example.com" in url for url in requested)
