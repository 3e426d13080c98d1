"""Screenshots of lessons for docs/lessons.md (Playwright + Debian's Chromium, two local workers sharing a
temporary room store): docs/screenshots/lesson_presentation.png, a lesson step in presentation mode
as a projector shows it, and docs/screenshots/lesson_follow.png, a teacher's window and a student's
window side by side in one live room. Run: python scripts/lesson_screenshots.py"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.browser import ROOT, chromium, settle  # noqa: E402
from bench.lesson_browser import click, idle, new_page, start_room, wait_for_step, workers  # noqa: E402
from explorer.classroom import lessons  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
PROJECTOR = {"width": 1600, "height": 1000}
WINDOW = {"width": 1000, "height": 1100}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    n = len(lessons.shipped()["01_softmax_temperature"].steps)
    with (
        tempfile.TemporaryDirectory() as tmp,
        workers(2, Path(tmp) / "rooms.sqlite3", ROOT / "artifacts") as urls,
        chromium(sync_playwright) as browser,
    ):
        projector = new_page(browser, PROJECTOR)
        projector.goto(f"{urls[0]}/?lesson=02_sparse_zeros&step=1&present=1")
        wait_for_step(projector, 1, len(lessons.shipped()["02_sparse_zeros"].steps))
        settle(projector)
        projector.screenshot(path=str(OUT / "lesson_presentation.png"))

        teacher, student = new_page(browser, WINDOW), new_page(browser, WINDOW)
        code = start_room(teacher, urls[0], n)
        click(teacher, "lesson_back")
        student.goto(f"{urls[1]}/lesson?room={code}")
        wait_for_step(student, 1, n)
        for k in (2, 3, 4, 5, 6):
            click(teacher, "lesson_next")
            wait_for_step(student, k, n)
        for page in (teacher, student):
            idle(page)
            settle(page)
        shots = [Path(tmp) / "teacher.png", Path(tmp) / "student.png"]
        teacher.screenshot(path=str(shots[0]))
        student.screenshot(path=str(shots[1]))
        images = [Image.open(p) for p in shots]
        gap = 24
        both = Image.new("RGB", (sum(i.width for i in images) + gap, max(i.height for i in images)), "#9e9e9e")
        both.paste(images[0], (0, 0))
        both.paste(images[1], (images[0].width + gap, 0))
        both.save(OUT / "lesson_follow.png")
    print(f"wrote {OUT / 'lesson_presentation.png'} and {OUT / 'lesson_follow.png'}")


if __name__ == "__main__":
    main()
