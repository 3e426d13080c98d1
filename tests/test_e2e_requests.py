"""Issue 25 finding 4 in a real browser: every request a page makes while a lesson plays is
recorded, and none may go to a host other than the test server's. A lesson file with
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
pytestmark = [pytest.mark.slow,  # a served worker and a real browser
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium")]

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
# Known third-party requests (URL prefix: reason), each to be removed by the issue named.
KNOWN_THIRD_PARTY = {
    "https://fonts.gstatic.com/s/i/short-term/release/materialsymbolsrounded/":
        "Streamlit's frontend fetches each `:material/...:` icon (page icons, button icons) as an SVG "
        "from Google's font server; issue 24 serves them locally",
}
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
    foreign = [url for url in requested if urlsplit(url).scheme in ("http", "https", "ws", "wss")
               and urlsplit(url).hostname not in LOCAL_HOSTS and not url.startswith(tuple(KNOWN_THIRD_PARTY))]
    assert not foreign, sorted(set(foreign))
    assert not any("tracker.example.com" in url for url in requested)
