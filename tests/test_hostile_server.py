"""Hostile input, issue 25 findings 2, 8, 10: what a client sends over the websocket (Streamlit's
protocol, spoken by bench/load_client.py) against real Streamlit workers on loopback.

- clear_cache from a client: ignored (before: every st.cache_resource cleared, so the next run
  started another job process, 1 -> 4 after three messages, and the sender's rerun budget reset).
- The address behind the limits: a forged X-Forwarded-For is never believed, through the project's
  HAProxy (which drops it and adds the address it sees) or straight to a worker.
- The rerun budget per client address: fresh sessions get no fresh budget.
Every loop is bounded; every wait has a timeout."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg

from bench.load_client import Page, Report, Student
from serve.cluster import Cluster, descendants

pytestmark = pytest.mark.slow  # served workers (Streamlit, HAProxy), every test

ROOT = Path(__file__).resolve().parents[1]


def run(coro, timeout: float = 240):
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def open_session(base: str, path: str = "", link: str = "", headers: dict | None = None) -> Student:
    """A fresh browser session (health, websocket with ``headers`` added, a first run)."""
    s = Student(base, Page(path, link, 1, ()), random.Random(0), Report(), time.monotonic)
    await s.open(headers=headers, open_timeout=20)
    ok, why = await s.rerun(timeout=90)
    assert ok or refused(s), (
        why
    )  # a run the address's budget refuses is a finished run here (bench_load counts it failed)
    return s


def job_processes(worker_pid: int) -> list[int]:
    """The worker's job processes (explorer/jobs.py's ChildProcess: `-c ... _child_main`)."""
    found = []
    for pid in descendants(worker_pid):
        try:
            if b"_child_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            pass
    return found


def refused(s: Student) -> bool:
    return any("Too many updates" in text for text in s.alerts)


@pytest.fixture(scope="module")
def app_worker():
    with Cluster(workers=1, proxy=False) as c:
        yield c


def test_clear_cache_from_a_client_leaks_no_job_process(app_worker):
    async def go():
        s = await open_session(app_worker.worker_url(0))
        deadline = time.monotonic() + 30
        while len(job_processes(app_worker.workers[0].pid)) < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert len(job_processes(app_worker.workers[0].pid)) == 1
        for _ in range(3):
            await s.send(BackMsg(clear_cache=True))
            await asyncio.sleep(0.3)
            ok, why = await s.rerun(timeout=90)
            assert ok, why
        await asyncio.sleep(2.0)  # a second job process would be started by now
        count = len(job_processes(app_worker.workers[0].pid))
        await s.close()
        return count

    assert run(go()) == 1


ADDRESS_APP = """
import streamlit as st

from explorer.serving import client, guard, limits
from explorer.classroom import lesson_bar

client.refuse_control_messages()  # as app.py
limits.CLIENT_RERUN_RATE, limits.CLIENT_RERUN_BURST = 1.0, 5.0  # this test app's per-client budget (read at the first run)
st.info("address=" + lesson_bar.client())
st.session_state["runs"] = st.session_state.get("runs", 0) + 1  # session state: what clear_cache also cleared
st.info(f"runs={st.session_state['runs']}")
guard.limit_reruns()
"""


@pytest.fixture(scope="module")
def address_cluster(tmp_path_factory):
    app = tmp_path_factory.mktemp("hostile") / "address_app.py"
    app.write_text(ADDRESS_APP)
    with Cluster(workers=1, script=app) as c:
        yield c


async def address_of(base: str, headers: dict) -> str:
    s = await open_session(base, headers=headers)
    await s.close()
    return next(text.removeprefix("address=") for text in s.alerts if text.startswith("address="))


def test_clear_cache_keeps_the_senders_session_state(address_cluster):
    """Before: clear_cache also cleared the sender's session state (its rerun budget with it)."""

    async def go():
        s = await open_session(address_cluster.worker_url(0))
        ok, _ = await s.rerun(timeout=60)
        await s.send(BackMsg(clear_cache=True))
        await asyncio.sleep(0.3)
        ok, why = await s.rerun(timeout=60)
        assert ok, why
        await s.close()
        return next(text for text in s.alerts if text.startswith("runs="))

    assert run(go()) == "runs=3"


@pytest.mark.parametrize("through", ["proxy", "worker"])
def test_a_forged_forwarded_address_is_never_believed(address_cluster, through):
    """Before: the rate limit's client was the first X-Forwarded-For entry a client sent."""
    base = address_cluster.url if through == "proxy" else address_cluster.worker_url(0)
    forged = [f"203.0.113.{i}" for i in range(1, 4)]

    async def go():
        return [await address_of(base, {"X-Forwarded-For": f}) for f in forged] + [await address_of(base, {})]

    seen = run(go())
    assert set(seen) == {"127.0.0.1"}, seen


def test_fresh_sessions_of_one_address_share_one_rerun_budget(address_cluster):
    """Before: 10 fresh sessions ran 250 steps in 16 s, none refused (the budget was per session)."""

    async def go():
        refused_runs = 0
        for i in range(8):
            s = await open_session(address_cluster.url, headers={"X-Forwarded-For": f"198.51.100.{i}"})
            refused_runs += refused(s)
            for _ in range(2):
                ok, why = await s.rerun(timeout=60)
                assert ok or refused(s), why
                refused_runs += refused(s)
            await s.close()
        return refused_runs

    assert run(go()) >= 10  # 24 runs against a burst of 5 + 1 a second
