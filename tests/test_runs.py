"""Identical heavy runs across worker processes (explorer/serving/runs.py, explorer/serving/jobs.py's JobQueue with
a shared store): two processes pressing the same run compute it once and both get its result and
see its progress; a run whose claimer died is taken over; the store stays bounded. Each test
against both backends: SQLite (one machine) and Redis (several)."""

from __future__ import annotations

import functools
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from explorer.serving import runs
from helpers import plain_main
from explorer.serving.jobs import JobQueue
from explorer.serving.runs_redis import RedisRuns

KEY = ("overconfidence", (("steps", 10), ("seed", 0)))


def computation(log: str, hold: float, progress):
    """A run that writes one line to ``log`` per computation, reports half-way, then holds."""
    with open(log, "a") as f:
        f.write(f"{os.getpid()}\n")
    progress(0.5, step=1)
    time.sleep(hold)
    return {"pid": os.getpid(), "history": [3.0, 2.0, 1.0]}


def lines(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


@pytest.fixture()
def url(backend, tmp_path, request):
    """The run store's URL: a SQLite file of this test, or the test's Redis."""
    return f"sqlite:///{tmp_path / 'runs.sqlite3'}" if backend == "sqlite" else request.getfixturevalue("redis_url")


def open_store(url: str, **kwargs):
    """runs.open_runs with the store's own settings (a clock, the bounds)."""
    store = runs.open_runs(url)
    return type(store)(store.url if isinstance(store, RedisRuns) else store.path, **kwargs) if kwargs else store


def press(store: str, log: str, ready, out) -> None:
    """A worker process: its own queue on the shared store; presses KEY with the others."""
    q = JobQueue(threads=1, shared=runs.open_runs(store))
    ready.wait(120)
    job = q.submit(KEY, functools.partial(computation, log, 3.0))
    seen = 0.0
    while not job.done.wait(0.05):
        seen = max(seen, job.fraction)
    out.put((job.result, seen, job.error))


@pytest.mark.slow
def test_two_processes_pressing_the_same_run_compute_it_once(url, tmp_path):
    store, log = url, tmp_path / "computed.log"
    runs.open_runs(store)
    ctx = multiprocessing.get_context("spawn")
    ready, out = ctx.Barrier(3), ctx.Queue()
    workers = [ctx.Process(target=press, args=(str(store), str(log), ready, out)) for _ in range(2)]
    with plain_main():
        for w in workers:
            w.start()
    try:
        ready.wait(120)
        results = [out.get(timeout=120) for _ in workers]
    finally:
        for w in workers:
            w.join(10)
            w.kill()
    assert len(lines(log)) == 1 and runs.open_runs(store).computed() == 1  # one computation
    (first, seen_a, err_a), (second, seen_b, err_b) = results
    assert err_a is None and err_b is None and first == second  # both get the same result
    assert first["pid"] == int(lines(log)[0]) and first["history"] == [3.0, 2.0, 1.0]
    assert seen_a == seen_b == 0.5  # the follower saw the owner's progress through the store


def claim_and_die(store: str, log: str) -> None:
    """A worker that claims KEY and computes it until it is killed."""
    q = JobQueue(threads=1, shared=runs.open_runs(store))
    q.submit(KEY, functools.partial(computation, log, 600.0))
    time.sleep(600)


@pytest.mark.slow
def test_a_run_whose_claimer_died_is_taken_over(url, tmp_path):
    store, log = url, tmp_path / "computed.log"
    shared = open_store(store, lease_s=2.0)
    worker = multiprocessing.get_context("spawn").Process(target=claim_and_die, args=(str(store), str(log)))
    with plain_main():
        worker.start()
    try:
        deadline = time.monotonic() + 120
        while not lines(log) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lines(log) == [str(worker.pid)]
        q = JobQueue(threads=1, shared=shared)
        job = q.submit(KEY, functools.partial(computation, str(log), 0.0))
        time.sleep(1.0)  # the owner lives: followed, not computed here
        assert q.stats()["followed"] == 1 and not job.done.is_set() and len(lines(log)) == 1
        assert q.position(job) == 0 and job.fraction == 0.5
        worker.kill()
        assert job.done.wait(60), "the dead claimer's run was not taken over"
    finally:
        worker.kill()
        worker.join(10)
    assert job.error is None and job.result["pid"] == os.getpid()
    assert lines(log) == [str(worker.pid), str(os.getpid())] and shared.computed() == 2


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_store_is_bounded_in_count_age_and_size_and_forgets_failures(url):
    clock = Clock()
    store = open_store(url, clock=clock, keep=3, keep_s=60.0, max_result_bytes=1000)
    for i in range(10):
        clock.now += 1
        assert store.claim(("r", i), "a").state == "claimed"
        store.publish(("r", i), "a", [i], 0.1)
    assert store.size() == 3 and store.look(("r", 0)) is None  # the newest three are kept
    assert [store.look(("r", i)).result for i in (7, 8, 9)] == [[7], [8], [9]]
    again = store.claim(("r", 9), "b")
    assert again.state == "done" and again.result == [9] and again.seconds == 0.1  # served, not computed
    assert store.claim(("r", 8), "b", reuse_finished=False).state == "claimed"  # a measurement: anew
    assert store.claim(("r", 8), "c").state == "taken"  # ... and b's claim holds it
    clock.now += 61
    assert store.claim(("x",), "a").state == "claimed" and store.size() == 1  # the old ones expired
    store.publish(("x",), "a", b"0" * 2000, 1.0)  # too big to share: the next claim computes it
    assert store.look(("x",)) is None and store.claim(("x",), "b").state == "claimed"
    store.fail(("x",), "b", ValueError("steps must be >= 0"))
    failed = store.look(("x",))
    assert failed.state == "failed" and isinstance(failed.error, ValueError)  # followers get the error
    assert store.claim(("x",), "c").state == "claimed"  # ... and a new press computes anew
    assert store.computed() == 14


def test_the_store_url_names_its_variable(tmp_path, monkeypatch, redis_url):
    monkeypatch.setenv(runs.ENV_URL, f"sqlite:///{tmp_path}/env.sqlite3")
    monkeypatch.setenv("PROBCORE_STORE_URL", redis_url)
    assert runs.open_runs().path == tmp_path / "env.sqlite3"  # the concern's own URL wins
    monkeypatch.setenv(runs.ENV_URL, "")
    assert isinstance(runs.open_runs(), RedisRuns) and runs.open_runs().url == redis_url
    with pytest.raises(ValueError, match="PROBCORE_RUNS_URL: scheme 'postgresql' is not supported"):
        runs.open_runs("postgresql://db.example/runs")
