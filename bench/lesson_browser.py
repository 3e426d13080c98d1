"""Browser helpers for lessons and live rooms, shared by tests/test_e2e_lessons.py,
bench/bench_rooms.py and scripts/lesson_screenshots.py: worker processes sharing one room store,
waiting for a page to settle, clicking a keyed button, reading the lesson bar."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from bench.browser import IDLE, ROOT, VIEWPORT, serve
from explorer.classroom import rooms

ARTIFACTS = ROOT / "artifacts"  # a screenshot of a page whose button could not be clicked
BAR = ".st-key-lesson_bar"
SKELETON = "[data-testid='stSkeleton']"  # an element whose browser code is still loading
TIMEOUT_MS = 60_000


@contextlib.contextmanager
def workers(count: int, store_path: Path, log_dir: Path):
    """``count`` Streamlit servers sharing the SQLite room store at ``store_path``; yields their URLs."""
    before = os.environ.get(rooms.ENV_URL)
    os.environ[rooms.ENV_URL] = f"sqlite:///{Path(store_path).resolve()}"  # inherited by the servers
    try:
        with contextlib.ExitStack() as stack:
            yield [stack.enter_context(serve(log_dir / f"streamlit-lessons-{i}.log")) for i in range(count)]
    finally:
        if before is None:
            os.environ.pop(rooms.ENV_URL, None)
        else:
            os.environ[rooms.ENV_URL] = before


def new_page(browser, viewport=VIEWPORT):
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page


def idle(page) -> None:
    """The script has stopped, nothing on the page is stale and every element is drawn. Streamlit's
    browser code loads each kind of element on its first use and shows a skeleton in its place until
    then, which can outlast the run by a second on a fresh page; a button's keyboard shortcut only
    exists once the button itself is drawn."""
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function("sel => !document.querySelector(sel)", arg=f"[data-stale='true'], {SKELETON}")


def click(page, key: str) -> None:
    """Click the button with this key once the page has finished rerunning (a button with a help
    tooltip is drawn twice inside its element: the first one is the visible one)."""
    idle(page)
    try:
        page.locator(f".st-key-{key} button").first.click()
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"lesson-click-{key}-failed.png"), full_page=True)
        raise


def counter(k: int, n: int) -> str:
    return f"step {k} of {n}"


def wait_for_step(page, k: int, n: int, timeout_ms: float = TIMEOUT_MS) -> None:
    """Until the lesson bar says step k of n; on a timeout, an AssertionError saying what the page
    shows instead (its URL and the bar's text)."""
    try:
        page.wait_for_function(
            "([sel, text]) => { const bar = document.querySelector(sel); return bar && bar.innerText.includes(text); }",
            arg=[BAR, counter(k, n)],
            timeout=timeout_ms,
        )
    except Exception as err:
        if type(err).__name__ != "TimeoutError":
            raise
        bar = page.evaluate("sel => { const bar = document.querySelector(sel); return bar && bar.innerText; }", BAR)
        raise AssertionError(
            f"step {k} of {n} not shown within {timeout_ms / 1000:g} s: at {page.url}, the lesson bar says {bar!r}"
        ) from None


def start_room(page, server: str, n: int) -> str:
    """The teacher opens the Lessons page and starts a room with the first lesson; returns its code."""
    page.goto(f"{server}/lesson")
    idle(page)
    page.get_by_role("tab", name="Live room").click()
    click(page, "room_start")
    wait_for_step(page, 1, n)
    idle(page)
    return re.search(r"You drive room ([A-Z0-9]{6})", page.inner_text(BAR)).group(1)
