"""Heavy runs shared by every worker process of the machine: thirty identical training-demo presses
spread over the workers behind the proxy compute once. A run is named by its key (the page and
every setting, seed included); the first process to :meth:`SharedRuns.claim` it computes it and
publishes the result, the others follow it here: its position in the owner's queue and its
progress while it runs, its result (or error) once done.

The owner renews its claim (:meth:`SharedRuns.beat`) while the run waits or computes; a claim not
renewed for ``lease_s`` (its worker was killed) is taken over by the next process that claims it.
The store is bounded: at most ``keep`` finished runs, each at most ``keep_s`` old and at most
``max_result_bytes`` pickled (a bigger result is not shared: each process computes its own).

The store is named by ``PROBCORE_RUNS_URL``, else ``PROBCORE_STORE_URL`` (explorer/serving/store.py),
else ``sqlite:///var/runs.sqlite3`` beside the rooms: :class:`RunStore` is the interface,
:class:`SharedRuns` the SQLite file of one machine (explorer/serving/sqlite_file.py), ``RedisRuns``
(explorer/serving/runs_redis.py) the store of several. Results are pickles written by the
explorer's own workers: the file (or the Redis) must be writable by the server's user only, as the
code is.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Hashable, Protocol

from explorer.serving.sqlite_file import ROOT, SQLiteFile, path_from_url
from explorer.serving.store import chosen_url, is_redis

ENV_URL = "PROBCORE_RUNS_URL"
DEFAULT_URL = f"sqlite:///{ROOT / 'var' / 'runs.sqlite3'}"
LEASE_S = 10.0  # a claim not renewed for this long is taken over
KEEP = 64  # finished runs kept
KEEP_S = 600.0
MAX_RESULT_BYTES = 8 * 2**20


@dataclass
class Run:
    """What a follower sees of a run: ``state`` running / done / failed, or ``claimed`` (this
    process computes it), ``taken`` (another process does and its claim is alive)."""

    state: str
    ahead: int = 0  # runs before it in its owner's queue
    fraction: float = 0.0
    detail: dict = field(default_factory=dict)
    seconds: float = 0.0  # compute time, when done
    result: Any = None
    error: BaseException | None = None


def run_key(key: Hashable) -> str:
    """The store's name of a run: SHA-256 of the key's repr (plain values: str, numbers, tuples)."""
    return hashlib.sha256(repr(key).encode()).hexdigest()


def _pickled_error(err: BaseException) -> bytes:
    try:
        blob = pickle.dumps(err)
        pickle.loads(blob)
        return blob
    except Exception:  # an exception that does not round-trip: its message
        return pickle.dumps(RuntimeError(f"{type(err).__name__}: {err}"))


class RunStore(Protocol):
    """What a JobQueue needs from the store its processes share (one implementation per URL scheme)."""

    def claim(self, key: Hashable, owner: str, reuse_finished: bool = True) -> Run: ...
    def look(self, key: Hashable) -> Run | None: ...
    def beat(self, owner: str, runs: list[tuple[Hashable, int, float, dict]]) -> None: ...
    def publish(self, key: Hashable, owner: str, result: Any, seconds: float) -> None: ...
    def fail(self, key: Hashable, owner: str, error: BaseException) -> None: ...
    def computed(self) -> int: ...
    def size(self) -> int: ...


class SharedRuns(SQLiteFile):
    """Runs in one SQLite file shared by every process that opens the same path."""

    def __init__(
        self,
        path: Path,
        clock=time.time,
        lease_s: float = LEASE_S,
        keep: int = KEEP,
        keep_s: float = KEEP_S,
        max_result_bytes: int = MAX_RESULT_BYTES,
    ):
        self.clock, self.lease_s, self.keep, self.keep_s = clock, lease_s, keep, keep_s
        self.max_result_bytes = max_result_bytes
        super().__init__(
            path,
            """
            CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, owner TEXT NOT NULL, state TEXT NOT NULL,
                beat REAL NOT NULL, ahead INTEGER NOT NULL DEFAULT 0, fraction REAL NOT NULL DEFAULT 0,
                detail TEXT NOT NULL DEFAULT '{}', seconds REAL, finished REAL, payload BLOB);
            CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
            INSERT OR IGNORE INTO counters VALUES ('computed', 0);
        """,
        )

    def _purge(self, db: sqlite3.Connection) -> None:
        """Drop finished runs older than keep_s or beyond the newest ``keep``, and long-dead claims."""
        now = self.clock()
        db.execute(
            "DELETE FROM runs WHERE (state != 'running' AND finished < ?) OR (state = 'running' AND beat < ?)",
            (now - self.keep_s, now - self.keep_s),
        )
        db.execute(
            "DELETE FROM runs WHERE state != 'running' AND key NOT IN "
            "(SELECT key FROM runs WHERE state != 'running' ORDER BY finished DESC LIMIT ?)",
            (self.keep,),
        )

    def _run(self, row) -> Run:
        state, ahead, fraction, detail, seconds, payload = row
        run = Run(state, ahead, fraction, json.loads(detail), seconds or 0.0)
        if state == "done":
            run.result = pickle.loads(payload)
        elif state == "failed":
            run.error = pickle.loads(payload)
        return run

    def claim(self, key: Hashable, owner: str, reuse_finished: bool = True) -> Run:
        """Claim the run of ``key`` for ``owner`` (state ``claimed``: compute it, then publish or
        fail) unless another live claim holds it (``taken``: follow it with :meth:`look`) or
        (``reuse_finished``) it is done (``done``, with its result)."""
        name, now = run_key(key), self.clock()
        with self._write() as db:
            self._purge(db)
            row = db.execute("SELECT owner, state, beat FROM runs WHERE key = ?", (name,)).fetchone()
            if row is not None:
                if row[1] == "running" and row[0] != owner and row[2] >= now - self.lease_s:
                    return Run("taken")
                if row[1] == "done" and reuse_finished:
                    return self._run(
                        db.execute(
                            "SELECT state, ahead, fraction, detail, seconds, payload FROM runs WHERE key = ?", (name,)
                        ).fetchone()
                    )
            db.execute(
                "INSERT OR REPLACE INTO runs (key, owner, state, beat) VALUES (?, ?, 'running', ?)", (name, owner, now)
            )
            db.execute("UPDATE counters SET value = value + 1 WHERE name = 'computed'")
        return Run("claimed")

    def look(self, key: Hashable) -> Run | None:
        """The run of ``key`` as its followers see it; None when nobody holds it any more (gone,
        or its claim expired: claim it)."""
        with closing(self._connect()) as db:
            row = db.execute(
                "SELECT state, ahead, fraction, detail, seconds, payload, beat FROM runs WHERE key = ?", (run_key(key),)
            ).fetchone()
        if row is None or (row[0] == "running" and row[6] < self.clock() - self.lease_s):
            return None
        return self._run(row[:6])

    def beat(self, owner: str, runs: list[tuple[Hashable, int, float, dict]]) -> None:
        """Renew ``owner``'s claims, with each run's (key, ahead, fraction, detail)."""
        if not runs:
            return
        with self._write() as db:
            db.executemany(
                "UPDATE runs SET beat = ?, ahead = ?, fraction = ?, detail = ? "
                "WHERE key = ? AND owner = ? AND state = 'running'",
                [
                    (self.clock(), ahead, fraction, json.dumps(detail, default=str), run_key(key), owner)
                    for key, ahead, fraction, detail in runs
                ],
            )

    def publish(self, key: Hashable, owner: str, result: Any, seconds: float) -> None:
        """The result of ``owner``'s run, for every follower (not shared when it is too big)."""
        blob = pickle.dumps(result)
        with self._write() as db:
            if len(blob) > self.max_result_bytes:
                db.execute("DELETE FROM runs WHERE key = ? AND owner = ?", (run_key(key), owner))
            else:
                db.execute(
                    "UPDATE runs SET state = 'done', ahead = 0, fraction = 1, seconds = ?, finished = ?, "
                    "payload = ? WHERE key = ? AND owner = ?",
                    (seconds, self.clock(), blob, run_key(key), owner),
                )
            self._purge(db)

    def fail(self, key: Hashable, owner: str, error: BaseException) -> None:
        """``owner``'s run failed: its followers get ``error``; the next claim computes it anew."""
        with self._write() as db:
            db.execute(
                "UPDATE runs SET state = 'failed', finished = ?, payload = ? WHERE key = ? AND owner = ?",
                (self.clock(), _pickled_error(error), run_key(key), owner),
            )

    def computed(self) -> int:
        """Claims granted so far (runs computed or being computed, take-overs included)."""
        with closing(self._connect()) as db:
            return db.execute("SELECT value FROM counters WHERE name = 'computed'").fetchone()[0]

    def size(self) -> int:
        """Runs held (any state)."""
        with closing(self._connect()) as db:
            return db.execute("SELECT count(*) FROM runs").fetchone()[0]


def open_runs(url: str | None = None) -> RunStore:
    """The store named by ``url`` (default: $PROBCORE_RUNS_URL, else $PROBCORE_STORE_URL, else
    DEFAULT_URL): redis://host:port/db or sqlite:///PATH."""
    url = chosen_url(url, ENV_URL, DEFAULT_URL)
    if is_redis(url):
        from explorer.serving.runs_redis import RedisRuns

        return RedisRuns(url)
    return SharedRuns(path_from_url(url, ENV_URL))
