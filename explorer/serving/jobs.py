"""Heavy runs of the explorer (the training demo, the vocabulary page's cost measurement) in a
bounded queue per server process, so that a class pressing Run at once does not starve every
other page: at most ``PROBCORE_JOB_THREADS`` runs compute at a time (default 1), each in a
separate Python process at a lower priority (``nice`` + NICE: its own GIL, and the OS serves the
pages' reruns first), at most ``MAX_PENDING`` wait, and a press beyond that is refused with a
message. A run is named by a key (the page and every setting, seed included); a
press whose key is queued, running or finished within ``KEEP_SECONDS`` joins that run instead of
starting another, so thirty identical presses compute once and all get the result (a measurement
of this machine joins only a run in progress: pressing again measures anew). With a shared
store (explorer/serving/runs.py, the queue of a server process has one) this holds across the worker
processes of the machine: the first to claim a key computes it, the others follow its position,
progress and result through the store, and take it over if its owner dies.

A page hooks in with two calls: :func:`submit` when its button is pressed, :func:`follow` on
every run. While this session's run is pending, :func:`follow` blocks the script showing the
queue position (the runs ahead of it), then the run's progress, and returns the finished job;
a widget change meanwhile interrupts the wait (the run goes on) and the next script run follows
it again. The queue lives in this process: each worker behind the proxy has its own, and they
meet in the shared store.
"""

from __future__ import annotations

import collections
import functools
import multiprocessing.connection
import os
import pickle
import secrets
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable

import streamlit as st

from explorer.serving import client, limits
from explorer.i18n import t
from explorer.serving import runs
from explorer.serving.store import StoreUnavailable

ROOT = Path(__file__).resolve().parents[2]
MAX_PENDING = 64  # queued runs per server process; beyond that a press is refused
PER_SESSION = 1  # waiting runs one session may hold (a run it joins does not count)
PER_CLIENT = 3  # waiting runs the sessions of one client address may hold together
KEEP = 16  # finished runs kept for identical presses
KEEP_SECONDS = 600.0
POLL_SECONDS = 0.25  # how often a waiting page refreshes the position / progress
SHARE_SECONDS = 0.5  # how often the queue renews its claims and reads the runs it follows in the shared store
NICE = int(os.environ.get("PROBCORE_JOB_NICE", "5"))  # the job process's priority below the worker's


@dataclass(eq=False)
class Job:
    """One run: ``fn(progress)`` with ``progress(fraction, **detail)`` called by the run as it goes."""

    key: Hashable
    fn: Callable[[Callable[..., None]], Any]
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    fraction: float = 0.0
    detail: dict = field(default_factory=dict)
    ahead: int = 0  # runs before it in another process's queue, while followed through the shared store
    result: Any = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)
    holders: set = field(default_factory=set)  # (session id, client address) of every press that queued or joined it

    @property
    def seconds(self) -> float:
        """Compute time of the run (queue wait excluded)."""
        return (self.finished or time.monotonic()) - (self.started or time.monotonic())

    def progress(self, fraction: float, **detail) -> None:
        self.fraction, self.detail = min(max(float(fraction), 0.0), 1.0), detail


class QueueFull(Exception):
    """MAX_PENDING runs are waiting already (``which`` = "all"), or PER_SESSION of this session's
    ("session") or PER_CLIENT of this client's ("client")."""

    def __init__(self, which: str = "all"):
        super().__init__(which)
        self.which = which


def _in_thread(fn: Callable, progress: Callable) -> Any:
    return fn(progress)


def _child_main(fd: int, nice: int) -> None:
    """The job process (its end of the socket ``fd``): the training stack imported once, then
    jobs at lower priority until EOF."""
    conn = multiprocessing.connection.Connection(fd)
    from streamlit.logger import set_log_level

    set_log_level("error")  # no "No runtime found" notes from the cached functions imported here
    import explorer.compute  # noqa: F401  (torch, probcore: paid once, not by the first job)
    import explorer.training  # noqa: F401
    import torch._dynamo  # noqa: F401  (imported by torch.optim's first optimizer: ~1.4 s of CPU here)

    os.nice(nice)  # the jobs, not the start-up, give way to the pages

    def progress(fraction: float, **detail) -> None:
        conn.send(("progress", fraction, detail))

    while True:
        try:
            fn = conn.recv()
        except EOFError:  # the worker is gone
            return
        try:
            conn.send(("done", fn(progress)))
        except Exception as err:
            conn.send(("error", err))


class ChildProcess:
    """Runs picklable jobs ``fn(progress)`` one at a time in a fresh Python process niced by
    ``nice``, relaying its progress over a socket pair; a new process if the last one died. (A
    plain subprocess, not multiprocessing's spawn: that would re-run the parent's __main__, which
    in a Streamlit server is the app script. Never fork a threaded server.)"""

    def __init__(self, nice: int = NICE):
        self.nice, self.proc, self.conn = nice, None, None
        self.start()

    def start(self) -> None:
        ours, theirs = socket.socketpair()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from explorer.serving.jobs import _child_main; "
                "_child_main(int(sys.argv[1]), int(sys.argv[2]))",
                str(theirs.fileno()),
                str(self.nice),
            ],
            cwd=ROOT,
            pass_fds=(theirs.fileno(),),  # the parent's import path, as multiprocessing passes it
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, sys.path)])},
        )
        theirs.close()
        self.conn = multiprocessing.connection.Connection(ours.detach())

    def __call__(self, fn: Callable, progress: Callable) -> Any:
        if self.proc.poll() is not None:
            self.start()
        self.conn.send(fn)
        while True:
            try:
                kind, *payload = self.conn.recv()
            except (EOFError, OSError):  # the process died (killed, out of memory)
                raise RuntimeError(f"the job process stopped (exit code {self.proc.wait(5)})") from None
            if kind == "progress":
                progress(payload[0], **payload[1])
            elif kind == "done":
                return payload[0]
            else:
                raise payload[0]


class JobQueue:
    """FIFO of distinct runs computed by ``threads`` daemon threads, each handing its jobs to its
    own ``runner()`` (runner(fn, progress) -> result; default: in that thread); identical keys
    share one Job, across processes too when they share a ``shared`` store (keys of plain values:
    see runs.run_key)."""

    def __init__(
        self,
        threads: int = 1,
        max_pending: int = MAX_PENDING,
        keep: int = KEEP,
        keep_seconds: float = KEEP_SECONDS,
        runner: Callable[[], Callable] = lambda: _in_thread,
        shared: runs.RunStore | None = None,
        alive: Callable[[str], bool] = lambda session: True,
        per_session: int = PER_SESSION,
        per_client: int = PER_CLIENT,
    ):
        self.max_pending, self.keep, self.keep_seconds, self.runner = max_pending, keep, keep_seconds, runner
        self.alive, self.per_session, self.per_client = alive, per_session, per_client
        self.shared, self.owner = shared, f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._lock = threading.Condition()
        self._waiting: collections.deque[Job] = collections.deque()
        self._running: dict[Hashable, Job] = {}
        self._finished: collections.OrderedDict[Hashable, Job] = collections.OrderedDict()
        self._followed: dict[Hashable, Job] = {}  # computed by another process: followed through the store
        self.computed = 0  # runs actually computed (not joined): for tests and the load benchmark
        for i in range(threads):
            threading.Thread(target=self._work, name=f"probcore-job-{i}", daemon=True).start()
        if shared is not None:
            threading.Thread(target=self._share, name="probcore-job-share", daemon=True).start()

    def submit(
        self, key: Hashable, fn: Callable, reuse_finished: bool = True, session: str = "", client: str = ""
    ) -> Job:
        """The job of ``key``: an identical one queued, running or (``reuse_finished``) recently
        finished, else a new one at the end of the queue. QueueFull when max_pending runs wait, or
        (waiting runs of sessions that left dropped first) per_session of ``session``'s or
        per_client of ``client``'s."""
        with self._lock:
            self._forget_old()
            job = self._running.get(key) or (self._finished.get(key) if reuse_finished else None)
            job = job or next((j for j in self._waiting if j.key == key), None) or self._followed.get(key)
            if job is None:
                self._drop_abandoned()
                held = [holder for j in self._waiting for holder in j.holders]
                if len(self._waiting) >= self.max_pending:
                    raise QueueFull
                if session and sum(s == session for s, _ in held) >= self.per_session:
                    raise QueueFull("session")
                if client and sum(any(c == client for _, c in j.holders) for j in self._waiting) >= self.per_client:
                    raise QueueFull("client")
                job = Job(key, fn)
                try:
                    run = self.shared.claim(key, self.owner, reuse_finished) if self.shared else runs.Run("claimed")
                except (sqlite3.Error, StoreUnavailable):  # the store is unavailable: computed here, not shared
                    run = runs.Run("claimed")
                if run.state == "claimed":
                    self._waiting.append(job)
                    self._lock.notify()
                elif run.state == "taken":
                    self._followed[key] = job
                else:
                    self._take(job, run)
            if session or client:
                job.holders.add((session, client))
            return job

    def _abandoned(self, job: Job) -> bool:
        """Every session that pressed for ``job`` has left (a job nobody pressed for is kept)."""
        return bool(job.holders) and not any(self.alive(session) for session, _ in job.holders if session)

    def _drop_abandoned(self) -> None:
        """Waiting runs whose sessions all left leave the queue (lock held)."""
        for job in [j for j in self._waiting if self._abandoned(j)]:
            self._waiting.remove(job)
            job.error = RuntimeError("dropped: every session waiting for it has left")
            job.done.set()

    def _take(self, job: Job, run: runs.Run) -> None:
        """Finish ``job`` with the done or failed ``run`` another process computed (lock held)."""
        job.finished = time.monotonic()
        job.started = job.finished - run.seconds
        job.result, job.error, job.fraction, job.ahead = run.result, run.error, 1.0, 0
        self._followed.pop(job.key, None)
        if job.error is None:
            self._finished[job.key] = job
            self._forget_old()
        job.done.set()

    def _share(self) -> None:
        """Every SHARE_SECONDS: renew this process's claims (with each run's position and
        progress); refresh the runs followed from the store, finishing the done ones and claiming
        those whose owner's claim expired (they go first in this queue)."""
        while True:
            time.sleep(SHARE_SECONDS)
            with self._lock:
                own = [
                    (job.key, self.position(job), job.fraction, job.detail)
                    for job in [*self._running.values(), *self._waiting]
                ]
                followed = list(self._followed.values())
            try:
                self.shared.beat(self.owner, own)
                for job in followed:
                    run = self.shared.look(job.key) or self.shared.claim(job.key, self.owner)
                    with self._lock:
                        if run.state in ("running", "taken"):
                            job.ahead, job.fraction, job.detail = run.ahead, run.fraction, run.detail
                        elif run.state == "claimed":
                            del self._followed[job.key]
                            job.ahead, job.fraction = 0, 0.0
                            self._waiting.appendleft(job)
                            self._lock.notify()
                        else:
                            self._take(job, run)
            except (
                sqlite3.Error,
                StoreUnavailable,
                pickle.UnpicklingError,
            ):  # try again at the next beat (the lease is much longer)
                pass

    def position(self, job: Job) -> int:
        """Runs ahead of a waiting job (running ones included); 0 once it runs or is done."""
        with self._lock:
            if self._followed.get(job.key) is job:
                return job.ahead
            if job.started is not None:
                return 0
            ahead = next((i for i, j in enumerate(self._waiting) if j is job), len(self._waiting))
            return ahead + len(self._running)

    def stats(self) -> dict:
        with self._lock:
            return {
                "waiting": len(self._waiting),
                "running": len(self._running),
                "kept": len(self._finished),
                "followed": len(self._followed),
                "computed": self.computed,
            }

    def _forget_old(self) -> None:
        now = time.monotonic()
        while self._finished and (
            len(self._finished) > self.keep or now - next(iter(self._finished.values())).finished > self.keep_seconds
        ):
            self._finished.popitem(last=False)

    def _work(self) -> None:
        run = self.runner()
        while True:
            with self._lock:
                self._drop_abandoned()
                while not self._waiting:
                    self._lock.wait()
                    self._drop_abandoned()
                job = self._waiting.popleft()
                job.started = time.monotonic()
                self._running[job.key] = job
            try:
                job.result = run(job.fn, job.progress)
            except Exception as err:  # handed to every session following the job
                job.error = err
            job.finished = time.monotonic()
            self._publish(job)
            with self._lock:
                del self._running[job.key]
                self.computed += 1
                if job.error is None:
                    self._finished[job.key] = job
                    self._forget_old()
            job.done.set()

    def _publish(self, job: Job) -> None:
        """The finished job's result or error for the other processes following it."""
        if self.shared is None:
            return
        try:
            if job.error is None:
                self.shared.publish(job.key, self.owner, job.result, job.seconds)
            else:
                self.shared.fail(job.key, self.owner, job.error)
        except (sqlite3.Error, StoreUnavailable, pickle.PicklingError, TypeError, AttributeError):
            pass  # not shared: the claim expires and a follower computes the run itself


@limits.once_per_process  # not st.cache_resource: nothing a client sends makes a second job process
def queue() -> JobQueue:
    """The queue of this server process, its job processes started now (ready before a first press),
    sharing runs with the other workers through the store of $PROBCORE_RUNS_URL or $PROBCORE_STORE_URL
    (when it cannot be opened: a message in the server's log, and runs shared within this process
    only; while it is down: each press computed where it is made)."""
    try:
        shared = runs.open_runs()
    except (ValueError, OSError, sqlite3.Error, StoreUnavailable) as err:
        print(f"probcore: heavy runs not shared between workers: {err}", file=sys.stderr, flush=True)
        shared = None
    return JobQueue(
        threads=max(1, int(os.environ.get("PROBCORE_JOB_THREADS", "1"))),
        runner=ChildProcess,
        shared=shared,
        alive=client.session_alive,
    )


def submit(slot: str, key: Hashable, fn: Callable, reuse_finished: bool = True) -> None:
    """Queue ``fn`` (or join the identical run ``key``: see JobQueue.submit) as this session's
    run for ``slot`` (one per page); a full queue gives a message instead."""
    try:
        st.session_state.setdefault("_jobs", {})[slot] = queue().submit(
            (slot, key), fn, reuse_finished, session=client.session_id(), client=client.address()
        )
    except QueueFull as full:
        message = {"session": t("jobs.full_session"), "client": t("jobs.full_client", runs=PER_CLIENT)}
        st.error(message.get(full.which) or t("jobs.full", pending=MAX_PENDING), icon=":material/hourglass_disabled:")


def follow(slot: str, describe: Callable[[dict], str] = lambda detail: "") -> Job | None:
    """This session's run for ``slot``: None when there is none; else waits for it, showing how
    many runs are ahead, then its progress (``describe(detail)`` of the run's latest report), and
    returns the finished Job once (its error, if any, shown here as a message)."""
    jobs = st.session_state.get("_jobs", {})
    job = jobs.get(slot)
    if job is None:
        return None
    bar = st.progress(0.0)
    while not job.done.wait(POLL_SECONDS):  # each update lets Streamlit interrupt the wait for a rerun
        ahead = queue().position(job)
        if ahead:
            bar.progress(0.0, text=t("jobs.queued", ahead=ahead))
        else:
            bar.progress(job.fraction, text=describe(job.detail) or t("jobs.running"))
    bar.empty()
    del jobs[slot]
    if isinstance(job.error, ValueError):
        from explorer.session.state import plain

        st.error(plain(str(job.error)))
        return None
    if job.error is not None:
        raise job.error
    return job


def train_histories(steps: int, n_classes: int, k: int, seed: int, pretrain_steps: int, progress: Callable) -> dict:
    """The over-confidence page's run (a job: see :func:`training_demo`): explorer.training.compare_losses,
    reporting progress (loss, pretrained, step, steps) about 60 times; returns the histories only."""
    from explorer import training

    total = 2 * len(training.LOSSES) * (steps + 1)
    every, done = max(1, total // 60), [0]

    def report(loss_name, pretrained, step, metrics):
        done[0] += 1
        if done[0] % every == 0 or done[0] == total:
            progress(done[0] / total, loss=loss_name, pretrained=pretrained, step=step, steps=steps)

    results = training.compare_losses(steps, n_classes, seed=seed, k=k, pretrain_steps=pretrain_steps, callback=report)
    return {(name, start): r.history for (name, start), r in results.items()}


def training_demo(steps: int, n_classes: int, k: int, seed: int, pretrain_steps: int) -> Callable:
    """train_histories with these settings as a picklable job fn(progress)."""
    return functools.partial(train_histories, steps, n_classes, k, seed, pretrain_steps)
