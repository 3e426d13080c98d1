"""A shared store that goes down mid-class (explorer/serving/store.py, lesson_bar): the pages keep
working with the inline "rooms unavailable, retrying" (no exception), a teacher's move made
meanwhile reaches the room when the store is back, a student who opens the room link meanwhile
joins by itself once it is back, and nothing stored before the outage is lost (appendonly)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bench.browser import free_port
from explorer.classroom import rooms
from explorer.classroom.strings import STRINGS
from serve.redis_server import REDIS, RedisServer

APP = str(Path(__file__).resolve().parents[1] / "app.py")
UNAVAILABLE = STRINGS["room.unavailable"]

pytestmark = [
    pytest.mark.slow,  # whole pages under AppTest
    pytest.mark.skipif(not Path(REDIS).exists(), reason="redis-server is not installed"),
]


def warned(at: AppTest) -> bool:
    return any(w.value.startswith(UNAVAILABLE["en"].split("…")[0]) for w in at.warning)


def test_rooms_unavailable_inline_then_resumed_with_nothing_lost(tmp_path, monkeypatch):
    server = RedisServer(tmp_path / "redis", free_port()).start()
    try:
        monkeypatch.setenv("PROBCORE_STORE_URL", server.url)
        monkeypatch.delenv("PROBCORE_ROOMS_URL", raising=False)
        from explorer.classroom import lesson_bar

        lesson_bar.store.clear()
        teacher = AppTest.from_file(APP, default_timeout=90)
        teacher.run()
        teacher.switch_page("views/lesson/page.py").run()
        teacher.button(key="room_start").click().run()
        code = teacher.session_state["_room"]
        student = AppTest.from_file(APP, default_timeout=90)
        student.query_params["room"] = code
        student.run()
        assert student.session_state["_room"] == code and not student.exception

        server.stop()  # the outage
        teacher.button(key="lesson_next").click().run()  # moved here; waits for the store
        late = AppTest.from_file(APP, default_timeout=90)  # a student who (re)opens the link now
        late.query_params["room"] = code
        late.run()
        student.run()  # a poll
        for at in (teacher, student, late):
            assert not at.exception, [e.value for e in at.exception]
            assert warned(at), [w.value for w in at.warning]
        assert teacher.session_state["_room_pending"] == 1
        assert late.query_params["room"] == [code] or late.query_params["room"] == code  # kept in its URL

        server.start()  # back: the same append-only file
        teacher.run()  # the poll pushes the pending move
        assert "_room_pending" not in teacher.session_state and not warned(teacher)
        assert rooms.open_store(server.url).get(code).step == 1  # the room and the move, nothing lost
        for at in (student, late):
            at.run()  # a poll: joined / followed
            at.run()
            assert not at.exception, [e.value for e in at.exception]
            assert at.session_state["_room"] == code and at.session_state["_lesson_step"] == 1
            assert not warned(at)
    finally:
        server.stop()
        from explorer.classroom import lesson_bar

        lesson_bar.store.clear()


def test_the_warning_has_both_languages():
    assert UNAVAILABLE["en"].startswith("Rooms unavailable, retrying") and "课堂暂时不可用" in UNAVAILABLE["zh"]
