"""One SQLite file that every worker process of the machine shares (the live rooms, the shared heavy
runs): named by a ``sqlite:///`` URL in an environment variable, in WAL mode (readers never wait for
the writer), with a busy timeout, one short transaction per call."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
BUSY_TIMEOUT_MS = 5000


def path_from_url(url: str, env: str) -> Path:
    """The file of ``sqlite:///path`` (relative to the repository) or ``sqlite:////absolute/path``;
    ValueError naming the variable ``env`` for any other scheme or form."""
    parts = urlsplit(url)
    if parts.scheme != "sqlite":
        raise ValueError(
            f"{env}: scheme {parts.scheme or '(none)'!r} is not supported; "
            "only sqlite:///relative/path, sqlite:////absolute/path or redis://host:port/db"
        )
    if parts.netloc or not parts.path or parts.path == "/":
        raise ValueError(f"{env}: expected sqlite:///PATH (three slashes), got {url!r}")
    path = Path(unquote(parts.path[1:]))
    return path if path.is_absolute() else ROOT / path


class SQLiteFile:
    """The file at ``path`` (its folder made), in WAL mode, with ``schema`` (idempotent SQL) applied."""

    def __init__(self, path: Path, schema: str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(schema)

    def _connect(self) -> sqlite3.Connection:
        """A connection for one call: autocommit off, writers wait up to BUSY_TIMEOUT_MS for the lock."""
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        return db

    def _write(self) -> _Transaction:
        """A connection inside BEGIN IMMEDIATE (the write lock is taken at once: no upgrade deadlock)."""
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")
        return _Transaction(db)


class _Transaction:
    """COMMIT on success, ROLLBACK on an exception, then close."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, kind, value, tb) -> None:
        try:
            self.db.execute("ROLLBACK" if kind is not None else "COMMIT")
        finally:
            self.db.close()
