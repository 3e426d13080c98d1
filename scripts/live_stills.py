"""Three stills of a drag on the live Simplex view for the README (docs/screenshots/live_drag_1.png ..
live_drag_3.png): the logits' star pressed on the plane sum = 1 and dragged across it, the pointer held,
each still taken in the frame after a move (no server run between them). Playwright + Debian's
Chromium on a local server. Run: python scripts/live_stills.py"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.browser import ROOT, chromium, serve, settle  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
NEXT_FRAME = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with serve(ROOT / "artifacts" / "streamlit-stills.log") as url, chromium(sync_playwright) as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.set_default_timeout(120_000)
        page.goto(f"{url}/simplex")
        page.wait_for_selector("[data-live-view='simplex'][data-values]", state="attached")
        settle(page)
        view = page.locator("[data-live-view='simplex']")
        box = view.locator("rect.pl-plane").bounding_box()
        points = [(0.62, 0.3), (0.45, 0.55), (0.3, 0.72)]  # fractions of the plane's box
        at = lambda fx, fy: (box["x"] + fx * box["width"], box["y"] + fy * box["height"])  # noqa: E731
        page.mouse.move(*at(0.5, 0.5))
        page.mouse.down()
        for k, (fx, fy) in enumerate(points, 1):
            page.mouse.move(*at(fx, fy), steps=8)
            page.wait_for_function(NEXT_FRAME)
            view.screenshot(path=OUT / f"live_drag_{k}.png")
        page.mouse.up()


if __name__ == "__main__":
    main()
