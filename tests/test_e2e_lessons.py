"""Lessons and live rooms in a real browser: two ``streamlit run app.py`` worker processes on free
localhost ports share one SQLite room store (PROBCORE_ROOMS_URL); Playwright drives Debian's
Chromium with one browser context per person. The teacher starts a room on worker A, a student
joins with the code on worker B and follows three moves; a student who stops following is not
moved and catches up on "follow again"; a wrong teacher secret drives nothing. (How fast a student
follows is measured by bench/bench_rooms.py, not asserted here: the machine is shared.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.browser import CHROMIUM, ROOT, chromium
from bench.lesson_browser import BAR, click, counter, idle, new_page, start_room, wait_for_step, workers
from explorer.classroom import lessons, rooms

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.slow,  # served workers and real browsers
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
]

FOLLOW_TIMEOUT_MS = 30_000  # a following student moves within POLL_S + one run (1-2 s on an idle machine)
N = len(lessons.shipped()["01_softmax_temperature"].steps)  # the lesson a room starts with


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"


@pytest.fixture(scope="module")
def servers(store_path):
    """Two worker processes sharing the store, as behind a proxy."""
    with workers(2, store_path, ROOT / "artifacts") as urls:
        yield urls


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api.sync_playwright) as b:
        yield b


def no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0, page.inner_text("[data-testid='stMain']")


def test_student_on_another_worker_follows_the_teacher(servers, browser, store_path):
    server_a, server_b = servers
    store = rooms.SQLiteRooms(store_path)
    teacher, student, intruder = new_page(browser), new_page(browser), new_page(browser)
    code = start_room(teacher, server_a, N)
    assert code in teacher.inner_text("[data-testid='stMain']")  # shown big for the class
    click(teacher, "lesson_back")  # show step 1's page

    student.goto(f"{server_b}/lesson?room={code.lower()}")
    wait_for_step(student, 1, N)
    student.wait_for_url(re.compile(rf"{server_b}/\?.*room={code}"))  # step 1 is on the compare page
    idle(student)
    no_exception(student)

    for k in (2, 3, 4):  # three moves, each followed
        click(teacher, "lesson_next")
        wait_for_step(student, k, N, FOLLOW_TIMEOUT_MS)
        wait_for_step(teacher, k, N)
    idle(student)
    assert student.url.startswith(f"{server_b}/sweeps"), student.url  # step 4's page
    no_exception(student)

    # a student exploring on their own is not moved ...
    click(student, "room_stop")
    student.locator(".st-key-room_follow button").first.wait_for()
    click(teacher, "lesson_next")
    wait_for_step(teacher, 5, N)
    assert store.get(code).step == 4
    student.wait_for_timeout(3000)  # three polls
    assert counter(4, N) in student.inner_text(BAR)
    # ... and catches up on "follow again"
    click(student, "room_follow")
    wait_for_step(student, 5, N, FOLLOW_TIMEOUT_MS)

    # a wrong teacher secret drives nothing
    intruder.goto(f"{server_b}/lesson?room={code}&teacher=not-the-secret")
    wait_for_step(intruder, 5, N)
    idle(intruder)
    assert "does not drive room" in intruder.inner_text("[data-testid='stMain']")
    assert "teacher=" not in intruder.url
    click(intruder, "lesson_next")
    wait_for_step(intruder, 6, N)  # its own view moves ...
    idle(intruder)
    assert store.get(code).step == 4 and store.get(code).version == 4  # ... the room does not
    student.wait_for_timeout(2000)
    assert counter(5, N) in student.inner_text(BAR)
    for page in (teacher, student, intruder):
        no_exception(page)
        page.context.close()


def test_a_link_opens_a_lesson_at_a_step_and_keys_move_it(servers, browser):
    server_a, _ = servers
    n = len(lessons.shipped()["02_sparse_zeros"].steps)
    page = new_page(browser)
    page.goto(f"{server_a}/?lesson=02_sparse_zeros&step=5")
    page.wait_for_url(re.compile(rf"{server_a}/jacobian\?"))
    wait_for_step(page, 5, n)
    idle(page)  # the Next button drawn, not a skeleton: its PageDown shortcut exists from then on
    page.evaluate("() => document.activeElement.blur()")  # focus on the page, not on a control
    page.keyboard.press("PageDown")  # a presenter's clicker
    wait_for_step(page, 6, n)
    idle(page)
    page.wait_for_function("() => document.__lessonKeys")  # the lesson bar's arrow-key script has run
    page.evaluate("() => document.activeElement.blur()")  # its keys act only while no control has the focus (issue 26)
    page.keyboard.press("ArrowLeft")
    wait_for_step(page, 5, n)
    idle(page)
    page.wait_for_url(re.compile(r".*step=5"))
    no_exception(page)
    page.context.close()
