"""A class on two machines, as tested here: two groups of workers, each run from its own copy of
the app with its own var/ (serve/cluster.py Groups), one Redis (appendonly) and one HAProxy in front,
all on loopback, driven by bench/load_client.py's protocol client. A student on group B follows a
room started on group A; an identical run pressed on both groups computes once; Redis stopped for
10 s mid-class: every page still answers, with the inline "rooms unavailable, retrying" and no
exception, a worker killed meanwhile loses no student, and once Redis is back the rooms resume
with nothing lost (the teacher's move made during the outage included). Also: serve.cluster
refuses several machines on SQLite files."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from bench import bench_load as load
from bench.load_client import Action, Page, Report, Student
from explorer.classroom.rooms_redis import RedisRooms
from explorer.classroom.strings import STRINGS
from explorer.serving.runs_redis import RedisRuns
from serve.cluster import ROOT, Groups
from serve.redis_server import REDIS

UNAVAILABLE = STRINGS["room.unavailable"]["en"].split("…")[0]  # "Rooms unavailable, retrying"
OUTAGE_S = 10.0
WAIT_S = 60.0  # bound of every wait below


def test_several_machines_on_sqlite_files_are_refused_with_what_to_set():
    for flags in (["--no-proxy"], ["--backend", "127.0.0.1:9"]):
        env = {"PATH": "/usr/bin:/bin", "PROBCORE_STORE_URL": "", "HOME": "/tmp"}
        out = subprocess.run(
            [sys.executable, "-m", "serve.cluster", "--workers", "1", *flags],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 2, out
        assert (
            "shared store" in out.stderr
            and "--store redis" in out.stderr
            and "PROBCORE_STORE_URL=redis://" in out.stderr
        )


def needs_servers(test):
    """Slow (served workers), and skipped only where redis-server is not installed."""
    test = pytest.mark.skipif(not Path(REDIS).exists(), reason="redis-server is not installed")(test)
    return pytest.mark.slow(test)


@pytest.fixture(scope="module")
def groups(tmp_path_factory):
    with Groups(2, 1, tmp_path_factory.mktemp("groups")) as g:
        yield g


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 300))


def student(groups: Groups, worker: str, path: str = "lesson", link: str = "") -> Student:
    """A browser whose first request carries the proxy's cookie for ``worker`` (w1: group A, w2: B)."""
    s = Student(groups.url, Page(path, link, 1, ()), random.Random(0), Report(), time.monotonic)
    s.cookies["PROBCORE_WORKER"] = worker
    return s


def param(s: Student, name: str) -> str:
    from urllib.parse import parse_qs

    return parse_qs(s.query).get(name, [""])[0]


async def start_room(teacher: Student) -> str:
    await teacher.open()
    assert (await teacher.rerun())[0]
    ok, why = await teacher.act(Action("button", "room_start"))
    assert ok, why
    code = param(teacher, "room")
    assert len(code) == 6, teacher.query
    return code


async def until_step(s: Student, step: int) -> None:
    """Poll as the browser does until the student's URL shows ``step`` (1-based), within WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while param(s, "step") != str(step):
        assert time.monotonic() < deadline, (s.query, s.alerts)
        ok, why = await s.poll()
        assert ok, why
        await asyncio.sleep(0.5)


@needs_servers
def test_a_student_on_group_b_follows_a_room_started_on_group_a(groups):
    async def go():
        teacher = student(groups, "w1")
        code = await start_room(teacher)
        follower = student(groups, "w2", link=f"room={code}")
        await follower.open()
        assert (await follower.rerun())[0]
        assert param(follower, "room") == code and param(follower, "step") == "1", follower.query
        ok, why = await teacher.act(Action("button", "lesson_next"))
        assert ok, why
        await until_step(follower, 2)
        assert teacher.cookies["PROBCORE_WORKER"] == "w1" and follower.cookies["PROBCORE_WORKER"] == "w2"
        await teacher.close()
        await follower.close()
        return code

    code = run(go())
    assert RedisRooms(groups.redis.url).get(code).step == 1  # 0-based: the second step, in the one store
    for group in groups.groups:  # each machine's own var/ holds no room store: the rooms are in Redis
        assert not (group.root / "var" / "rooms.sqlite3").exists()


@needs_servers
def test_an_identical_run_pressed_on_both_groups_computes_once(groups):
    shared = RedisRuns(groups.redis.url)
    before = shared.computed()

    async def go():
        link = "oc_steps=10&oc_classes=5&oc_seed=7"
        pressers = [student(groups, w, "overconfidence", link) for w in ("w1", "w2")]
        for s in pressers:
            await s.open()
            ok, why = await s.rerun(timeout=120)  # a worker's first visit to the page: imports under load
            assert ok, why
        results = await asyncio.gather(*(s.act(Action("button", "oc_run")) for s in pressers))
        assert all(ok for ok, _ in results), results
        for s in pressers:
            assert s.drawn.get("plotly_chart") == 5, s.drawn  # both got the run's figures
            await s.close()

    run(go())
    assert shared.computed() - before == 1  # one computation for both machines


@needs_servers
def test_redis_stopped_mid_class_then_back_and_a_worker_killed_meanwhile(groups):
    async def go():
        teacher = student(groups, "w1")
        code = await start_room(teacher)
        followers = [student(groups, w, link=f"room={code}") for w in ("w1", "w2", "w2")]
        for s in followers:
            await s.open()
            assert (await s.rerun())[0]
        for s in followers:  # on the lesson's first step, following
            await until_step(s, 1)

        groups.redis.stop()  # the outage
        began, warned = time.monotonic(), set()
        ok, why = await teacher.act(Action("button", "lesson_next"))  # a move made during the outage
        assert ok, why
        assert any(a.startswith(UNAVAILABLE) for a in teacher.alerts), teacher.alerts  # inline, no exception
        groups.kill_worker(1)  # group B's worker: two students lose their worker
        while time.monotonic() - began < OUTAGE_S:
            for i, s in enumerate(followers):
                try:
                    ok, why = await s.poll()
                    if any(a.startswith(UNAVAILABLE) for a in s.alerts):
                        warned.add(i)
                    if ok and s.find("x_0") is not None:  # the page itself works: a slider step
                        ok, why = await s.act(Action("slider", "x_0"))
                except (ConnectionClosed, OSError):
                    await s.reconnect(s.clock())  # through the proxy to the live worker, with its URL
                    ok, why = True, ""
                assert ok, why  # no exception, no timeout: the page answers
                assert not any("Traceback" in a for a in s.alerts)
                if any(a.startswith(UNAVAILABLE) for a in s.alerts):
                    warned.add(i)
                assert param(s, "room") == code, s.query  # the room stays in the URL
            await asyncio.sleep(1.0)
        assert warned == {0, 1, 2}  # every student saw the inline warning
        groups.start_worker(1)  # as serve.cluster's supervisor does
        groups.redis.start()  # back, from its append-only file

        deadline = time.monotonic() + WAIT_S
        while param(teacher, "step") != "2" or RedisRooms(groups.redis.url).get(code).step != 1:
            assert time.monotonic() < deadline, (teacher.query, teacher.alerts)
            assert (await teacher.poll())[0]  # pushes the move kept during the outage
            await asyncio.sleep(0.5)
        for s in followers:
            await until_step(s, 2)  # everyone follows again, at the teacher's step
            assert not s.report.lost
        assert all(
            s.report.reconnects and s.cookies["PROBCORE_WORKER"] == "w1" for s in followers[1:]
        )  # now on group A
        for s in [teacher, *followers]:
            await s.close()

    run(go())


def test_bench_load_without_haproxy_says_how_to_install_it(monkeypatch, capsys):
    """Before: a FileNotFoundError traceback for /usr/sbin/haproxy."""
    import serve.cluster

    monkeypatch.setattr(serve.cluster, "HAPROXY", "/nonexistent/haproxy")
    with pytest.raises(SystemExit) as exit_:
        load.main(["--students", "1", "--seconds", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "not installed: HAProxy (apt-get install -y haproxy)" in err and "scripts/serve.sh" in err
