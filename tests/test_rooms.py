"""The live-room stores (explorer/classroom/rooms.py, rooms_redis.py), each test against both
backends (SQLite, one machine; Redis, several): codes and secrets, moves, wrong secrets, rate
limits, expiry, the store URL, a restart, and two processes writing to one store at once."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest

from explorer.classroom import rooms
from helpers import plain_main, room_store, stored_bytes

LESSON = 'title_en = "T"\n'


class Clock:
    """A settable time.time."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock():
    return Clock()


@pytest.fixture()
def url(backend, tmp_path, request):
    """The store's URL: a SQLite file of this test, or the test's Redis."""
    return f"sqlite:///{tmp_path / 'rooms.sqlite3'}" if backend == "sqlite" else request.getfixturevalue("redis_url")


@pytest.fixture()
def store(backend, url, tmp_path, clock):
    return room_store(backend, tmp_path, url, clock)


def holds(store, code: str) -> bool:
    """Whether the store still holds anything of room ``code`` (expired or not)."""
    if isinstance(store, rooms.SQLiteRooms):
        with sqlite3.connect(store.path) as db:
            return db.execute("SELECT count(*) FROM rooms WHERE code = ?", (code,)).fetchone()[0] > 0
    return bool(store.redis.exists(f"probcore:room:{code}") or store.redis.zscore("probcore:rooms", code) is not None)


def test_a_room_from_creation_to_a_teachers_moves(store):
    code, secret = store.create("01_softmax_temperature", LESSON, 2)
    assert len(code) == rooms.CODE_LENGTH and set(code) <= set(rooms.CODE_ALPHABET)
    room = store.join(code.lower()[:3] + " " + code.lower()[3:], client="a")  # typed loosely
    assert (room.code, room.lesson_id, room.lesson_text, room.step, room.version) == (
        code,
        "01_softmax_temperature",
        LESSON,
        2,
        0,
    )
    moved = store.move(code, secret, 5, client="t")
    assert (moved.step, moved.version) == (5, 1)
    assert store.get(code).step == 5


def test_a_wrong_secret_cannot_move_the_room(store):
    code, secret = store.create("x", LESSON, 0)
    assert store.move(code, secret[:-1] + ("A" if secret[-1] != "A" else "B"), 3, client="s") is None
    assert store.move(code, "", 3, client="s") is None
    assert not store.is_teacher(code, "guess", client="s")
    assert store.get(code).step == 0 and store.get(code).version == 0
    assert store.is_teacher(code, secret, client="t")


def test_the_secret_is_not_stored(store):
    code, secret = store.create("x", LESSON, 0)
    assert code.encode() in stored_bytes(store) and secret.encode() not in stored_bytes(store)


def test_codes_are_distinct(store):
    codes = {store.create("x", LESSON, 0)[0] for _ in range(200)}
    assert len(codes) == 200


def test_wrong_codes_are_rate_limited_per_client(store, clock):
    code, _ = store.create("x", LESSON, 0)
    for _ in range(rooms.CLIENT_FAILURES):
        assert store.join("ZZZZZZ", client="guesser") is None
    with pytest.raises(rooms.RateLimited) as err:
        store.join(code, client="guesser")  # even the right code, until the window ends
    assert 0 < err.value.retry_s <= rooms.WINDOW_S + 1
    assert store.join(code, client="someone else").code == code
    clock.now += rooms.WINDOW_S
    assert store.join(code, client="guesser").code == code


def test_wrong_secrets_count_as_failures(store):
    code, secret = store.create("x", LESSON, 0)
    for _ in range(rooms.CLIENT_FAILURES):
        store.move(code, "nope", 1, client="c")
    with pytest.raises(rooms.RateLimited):
        store.move(code, "nope again", 1, client="c")
    assert store.move(code, secret, 1, client="c").step == 1  # the teacher's own secret is never limited (issue 25)


def test_failures_over_all_clients_are_bounded(store, monkeypatch):
    monkeypatch.setattr(rooms, "ALL_FAILURES", 25)
    for i in range(25):
        store.join("ZZZZZZ", client=f"address {i}")
    with pytest.raises(rooms.RateLimited):
        store.join("ZZZZZZ", client="a new address")


def test_clients_are_stored_hashed(store):
    store.join("ZZZZZZ", client="203.0.113.7")
    assert b"203.0.113.7" not in stored_bytes(store)


def test_rooms_expire_after_inactivity(store, clock):
    code, secret = store.create("x", LESSON, 0)
    clock.now += rooms.ROOM_TTL_S - 1
    assert store.move(code, secret, 1, client="t") is not None  # a move keeps it alive
    clock.now += rooms.ROOM_TTL_S - 1
    assert store.get(code) is not None
    clock.now += 2
    assert store.get(code) is None and store.join(code, client="s") is None
    assert store.move(code, secret, 2, client="t") is None
    assert holds(store, code)
    store.create("y", LESSON, 0)  # creating purges expired rooms
    assert not holds(store, code)


def test_a_restarted_worker_keeps_every_room(url):
    code, secret = rooms.open_store(url).create("x", LESSON, 4)
    again = rooms.open_store(url)  # a new process opening the same store
    assert again.get(code).step == 4
    assert again.move(code, secret, 5, client="t").step == 5


def test_wal_mode(tmp_path):
    store = rooms.SQLiteRooms(tmp_path / "rooms.sqlite3")
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_url(tmp_path, monkeypatch):
    monkeypatch.delenv(rooms.ENV_URL, raising=False)
    monkeypatch.delenv("PROBCORE_STORE_URL", raising=False)
    assert rooms.open_store(f"sqlite:///{tmp_path}/a.sqlite3").path == tmp_path / "a.sqlite3"
    relative = rooms.ROOT / "var" / "test-rooms.sqlite3"
    try:
        assert rooms.open_store("sqlite:///var/test-rooms.sqlite3").path == relative
    finally:
        for suffix in ("", "-wal", "-shm"):
            relative.with_name(relative.name + suffix).unlink(missing_ok=True)
    monkeypatch.setenv(rooms.ENV_URL, f"sqlite:///{tmp_path}/env.sqlite3")
    assert rooms.open_store().path == tmp_path / "env.sqlite3"
    for url, message in (
        ("postgresql://db.example/rooms", "scheme 'postgresql' is not supported"),
        ("/tmp/rooms.sqlite3", "scheme '(none)' is not supported"),
        ("sqlite://host/rooms.sqlite3", "three slashes"),
    ):
        with pytest.raises(ValueError, match=rooms.ENV_URL) as err:
            rooms.open_store(url)
        assert message in str(err.value)


def test_the_shared_store_url_selects_redis_and_a_rooms_url_still_wins(tmp_path, monkeypatch, redis_url):
    from explorer.classroom.rooms_redis import RedisRooms

    monkeypatch.delenv(rooms.ENV_URL, raising=False)
    monkeypatch.setenv("PROBCORE_STORE_URL", redis_url)
    store = rooms.open_store()
    assert isinstance(store, RedisRooms) and store.url == redis_url
    code, _ = store.create("x", LESSON, 1)
    assert rooms.open_store().get(code).step == 1  # another worker, same Redis
    monkeypatch.setenv(rooms.ENV_URL, f"sqlite:///{tmp_path}/own.sqlite3")
    assert rooms.open_store().path == tmp_path / "own.sqlite3"
    monkeypatch.delenv(rooms.ENV_URL)
    monkeypatch.setenv("PROBCORE_STORE_URL", f"sqlite:///{tmp_path}/x.sqlite3")
    with pytest.raises(ValueError, match="PROBCORE_STORE_URL: expected redis://"):
        rooms.open_store()


def test_a_redis_store_that_is_down_raises_store_unavailable_fast():
    """Nothing listens on the port: every call raises StoreUnavailable (never a driver's error),
    within about the connect timeout (no retries)."""
    import time

    from bench.browser import free_port
    from explorer.classroom.rooms_redis import RedisRooms
    from explorer.serving.store import StoreUnavailable

    store = RedisRooms(f"redis://127.0.0.1:{free_port()}/0")
    for call in (
        lambda: store.get("ABCDEF"),
        lambda: store.join("ABCDEF", client="a"),
        lambda: store.create("x", LESSON, 0),
        lambda: store.move("ABCDEF", "s", 1, client="t"),
    ):
        began = time.monotonic()
        with pytest.raises(StoreUnavailable):
            call()
        assert time.monotonic() - began < 5


def test_a_lesson_text_has_a_size_limit(store):
    with pytest.raises(ValueError, match="lesson_text"):
        store.create("x", "#" * (rooms.MAX_LESSON_BYTES + 1), 0)


def _writer(url: str, code: str, secret: str, moves: int, start, errors) -> None:
    """Another worker process: wait for the start signal, then move the room and create rooms."""
    store = rooms.open_store(url)
    start.wait()
    try:
        for i in range(moves):
            assert store.move(code, secret, i % 7, client="teacher") is not None
            store.create("x", LESSON, 0)
    except Exception as err:  # noqa: BLE001 (reported to the parent)
        errors.put(repr(err))


@pytest.mark.slow
def test_two_processes_writing_at_once(backend, url, tmp_path):
    """Two processes move one room and create rooms concurrently: no lost update, no lock error."""
    code, secret = rooms.open_store(url).create("x", LESSON, 0)
    ctx = multiprocessing.get_context("spawn")
    start, errors = ctx.Event(), ctx.Queue()
    moves = 60
    workers = [ctx.Process(target=_writer, args=(url, code, secret, moves, start, errors)) for _ in range(2)]
    with plain_main():  # after an AppTest, spawn would run the last page script again in each child
        for w in workers:
            w.start()
    start.set()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0]
    assert errors.empty(), errors.get()
    store = rooms.open_store(url)
    assert store.get(code).version == 2 * moves
    if backend == "sqlite":
        with sqlite3.connect(store.path) as db:
            assert db.execute("SELECT count(*) FROM rooms").fetchone()[0] == 1 + 2 * moves
    else:
        assert store.redis.zcard("probcore:rooms") == 1 + 2 * moves
