"""Live rooms: a teacher drives a lesson, students follow. The room state lives in a store every
worker process of the machine shares (several Streamlit servers behind a proxy follow one room; a
restarted worker loses nothing).

The store is chosen by a URL (explorer/serving/store.py): ``PROBCORE_ROOMS_URL``, else
``PROBCORE_STORE_URL``, else ``sqlite:///var/rooms.sqlite3`` under the repository. :class:`RoomStore`
is the interface; :class:`SQLiteRooms` serves one machine (explorer/serving/sqlite_file.py: WAL
mode, a busy timeout, one short transaction per call), ``RedisRooms`` (explorer/classroom/rooms_redis.py)
several. A Redis store that cannot be reached raises ``StoreUnavailable``.

Security: a room code is 6 characters from a 31-letter alphabet (31^6 ~ 8.9e8 codes), the teacher
secret 32 random bytes of which only the SHA-256 is stored and compared in constant time; failed
joins and wrong secrets are counted per client (a salted hash of its address, never the address)
and over all clients in one-minute windows and refused beyond the limits; a room expires after
``ROOM_TTL_S`` without a teacher action. A room holds a code, the lesson's text and the step:
no personal data.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from explorer.serving.sqlite_file import ROOT, SQLiteFile, path_from_url
from explorer.serving.store import chosen_url, is_redis

ENV_URL = "PROBCORE_ROOMS_URL"
DEFAULT_URL = f"sqlite:///{ROOT / 'var' / 'rooms.sqlite3'}"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed from a projector
CODE_LENGTH = 6
ROOM_TTL_S = 3 * 3600
WINDOW_S = 60
CLIENT_FAILURES = 10  # failed joins / wrong secrets per session per window
ADDRESS_FAILURES = 60  # per client address per window: a class behind one school NAT shares it
ALL_FAILURES = 300  # over all clients per window: bounds guessing from many addresses
MAX_LESSON_BYTES = 64 * 1024
LINK_TTL_S = 15 * 60  # a teacher link works once, within 15 minutes
PIN_DIGITS = 8  # the recovery PIN a teacher types to take a room back (10^8 PINs)
PIN_FAILURES = 5  # wrong PINs per room, and per client address, ...
PIN_WINDOW_S = 600  # ... per 10 minutes: 5 guesses in 10^8 (a student cannot take the room)
PIN_ROUNDS = 20_000  # PBKDF2-SHA256 rounds: a copied store does not give the PIN back at once


class RateLimited(Exception):
    """Too many failed attempts; try again after ``retry_s`` seconds."""

    def __init__(self, retry_s: int):
        super().__init__(f"too many attempts; try again in {retry_s} s")
        self.retry_s = retry_s


@dataclass(frozen=True)
class Room:
    code: str
    lesson_id: str
    lesson_text: str  # the lesson file (students parse and validate it like an upload)
    step: int  # 0-based
    version: int  # +1 on every teacher move
    updated: float  # time of the last teacher action


def normalize_code(text: str) -> str:
    """A typed code in canonical form: upper case, spaces and dashes dropped."""
    return "".join(ch for ch in str(text).upper() if ch not in " -")[:32]


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def _pin_hash(pin: str, salt: str) -> str:
    """PBKDF2-HMAC-SHA256(pin, salt, PIN_ROUNDS), hex."""
    return hashlib.pbkdf2_hmac("sha256", pin.encode(), salt.encode(), PIN_ROUNDS).hex()


class RoomStore(Protocol):
    """What the player needs from a room store (one implementation per URL scheme)."""

    def create(self, lesson_id: str, lesson_text: str, step: int) -> tuple[str, str]:
        """A new room at ``step``: (code, teacher secret)."""

    def join(self, code: str, client: str, session: str = "") -> Room | None:
        """The room of a typed code, or None (counted as a failure of ``session`` and of the client
        address ``client``); RateLimited past the limits."""

    def get(self, code: str) -> Room | None:
        """The room of a known code (no counting: for a client that already joined), None if gone."""

    def move(self, code: str, secret: str, step: int, client: str) -> Room | None:
        """Set the step if ``secret`` is the room's teacher secret (else None, counted as a failure;
        the right secret is never limited: 32 random bytes are not guessed, and others' typos must
        not stop a teacher)."""

    def is_teacher(self, code: str, secret: str, client: str) -> bool:
        """Whether ``secret`` drives the room (a wrong one counts as a failure; the right one is
        never limited)."""

    def teacher_link(self, code: str, secret: str) -> str | None:
        """A one-time token for a teacher link (the room's earlier unused ones revoked), or None."""

    def redeem(self, code: str, token: str, client: str) -> str | None:
        """A teacher secret of its own for a device opening a teacher link (the token then spent),
        or None (counted as a failure)."""

    def revoke(self, code: str, secret: str) -> str | None:
        """Rotate: every other teacher secret and link of the room revoked; the caller's new secret."""

    def recovery_pin(self, code: str, secret: str) -> str | None:
        """A new recovery PIN for the room (the earlier one no longer works), or None."""

    def take_back(self, code: str, pin: str, client: str) -> str | None:
        """The room's teacher secret, rotated as :meth:`revoke` does, for the right recovery PIN
        (then spent), else None; RateLimited past PIN_FAILURES wrong PINs per room or per client
        address in PIN_WINDOW_S (the right PIN too: limits that let it through would not bound guessing)."""


class SQLiteRooms(SQLiteFile):
    """Rooms in one SQLite file shared by every process that opens the same path."""

    def __init__(self, path: Path, clock=time.time):
        self.clock = clock
        super().__init__(
            path,
            """
            CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL,
                lesson_id TEXT NOT NULL, lesson_text TEXT NOT NULL, step INTEGER NOT NULL,
                version INTEGER NOT NULL, updated REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS failures (bucket TEXT NOT NULL, window INTEGER NOT NULL,
                count INTEGER NOT NULL, PRIMARY KEY (bucket, window));
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS teacher_links (token_sha256 TEXT PRIMARY KEY, code TEXT NOT NULL,
                expires REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS teachers (secret_sha256 TEXT PRIMARY KEY, code TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS pins (code TEXT PRIMARY KEY, salt TEXT NOT NULL, pin_hash TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS pin_failures (bucket TEXT NOT NULL, window INTEGER NOT NULL,
                count INTEGER NOT NULL, PRIMARY KEY (bucket, window));
            INSERT OR IGNORE INTO meta VALUES ('salt', lower(hex(randomblob(16))));
        """,
        )
        with closing(self._connect()) as db:
            self._salt = db.execute("SELECT value FROM meta WHERE key = 'salt'").fetchone()[0]

    # ------------------------------------------------ rate limit
    def _bucket(self, client: str, kind: str = "c") -> str:
        return f"{kind}:" + hashlib.sha256(f"{self._salt}:{client}".encode()).hexdigest()[:24]

    def _buckets(self, client: str, session: str) -> dict[str, int]:
        """The failure buckets of a request and their limits: its session (when known; else the
        client stands for it), its client address, all clients."""
        own = self._bucket(session, "s") if session else self._bucket(client)
        return {
            own: CLIENT_FAILURES,
            **({self._bucket(client): ADDRESS_FAILURES} if session else {}),
            "all": ALL_FAILURES,
        }

    def _check_limits(self, db: sqlite3.Connection, client: str, session: str = "") -> None:
        window = int(self.clock() // WINDOW_S)
        limits = self._buckets(client, session)
        rows = dict(
            db.execute(
                f"SELECT bucket, count FROM failures WHERE window = ? AND bucket IN ({', '.join('?' * len(limits))})",
                (window, *limits),
            ).fetchall()
        )
        if any(rows.get(bucket, 0) >= limit for bucket, limit in limits.items()):
            raise RateLimited(int(WINDOW_S - self.clock() % WINDOW_S) + 1)

    def _fail(self, db: sqlite3.Connection, client: str, session: str = "") -> None:
        window = int(self.clock() // WINDOW_S)
        for bucket in self._buckets(client, session):
            db.execute(
                "INSERT INTO failures VALUES (?, ?, 1) ON CONFLICT (bucket, window) DO UPDATE SET count = count + 1",
                (bucket, window),
            )

    def _purge(self, db: sqlite3.Connection) -> None:
        now = self.clock()
        db.execute("DELETE FROM rooms WHERE updated < ?", (now - ROOM_TTL_S,))
        db.execute("DELETE FROM teacher_links WHERE expires < ? OR code NOT IN (SELECT code FROM rooms)", (now,))
        db.execute("DELETE FROM teachers WHERE code NOT IN (SELECT code FROM rooms)")
        db.execute("DELETE FROM pins WHERE code NOT IN (SELECT code FROM rooms)")
        db.execute("DELETE FROM pin_failures WHERE window < ?", (int(now // PIN_WINDOW_S) - 1,))
        db.execute("DELETE FROM failures WHERE window < ?", (int(now // WINDOW_S) - 1,))

    # ------------------------------------------------ rooms
    def _room(self, db: sqlite3.Connection, code: str) -> Room | None:
        row = db.execute(
            "SELECT code, lesson_id, lesson_text, step, version, updated FROM rooms WHERE code = ? AND updated >= ?",
            (normalize_code(code), self.clock() - ROOM_TTL_S),
        ).fetchone()
        return Room(*row) if row else None

    def create(self, lesson_id: str, lesson_text: str, step: int) -> tuple[str, str]:
        if len(lesson_text.encode()) > MAX_LESSON_BYTES:
            raise ValueError(f"lesson_text must be at most {MAX_LESSON_BYTES} bytes")
        secret = secrets.token_urlsafe(32)
        with self._write() as db:
            self._purge(db)
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
                    break
            db.execute(
                "INSERT INTO rooms VALUES (?, ?, ?, ?, ?, 0, ?)",
                (code, _digest(secret), lesson_id, lesson_text, int(step), self.clock()),
            )
        return code, secret

    def join(self, code: str, client: str, session: str = "") -> Room | None:
        with self._write() as db:
            self._check_limits(db, client, session)
            room = self._room(db, code)
            if room is None:
                self._fail(db, client, session)
            return room

    def get(self, code: str) -> Room | None:
        with closing(self._connect()) as db:
            return self._room(db, code)

    def _authorised(self, db: sqlite3.Connection, code: str, secret: str, client: str) -> bool:
        """The right secret passes whatever the limits; a wrong one is refused past them, else counted."""
        code, digest = normalize_code(code), _digest(secret)
        row = db.execute(
            "SELECT secret_sha256 FROM rooms WHERE code = ? AND updated >= ?", (code, self.clock() - ROOM_TTL_S)
        ).fetchone()
        if row is not None and (
            hmac.compare_digest(row[0], digest)
            or db.execute("SELECT 1 FROM teachers WHERE secret_sha256 = ? AND code = ?", (digest, code)).fetchone()
        ):
            return True
        self._check_limits(db, client)
        self._fail(db, client)
        return False

    def is_teacher(self, code: str, secret: str, client: str) -> bool:
        with self._write() as db:
            return self._authorised(db, code, secret, client)

    def move(self, code: str, secret: str, step: int, client: str) -> Room | None:
        with self._write() as db:
            if not self._authorised(db, code, secret, client):
                return None
            db.execute(
                "UPDATE rooms SET step = ?, version = version + 1, updated = ? WHERE code = ?",
                (int(step), self.clock(), normalize_code(code)),
            )
            return self._room(db, code)

    def teacher_link(self, code: str, secret: str) -> str | None:
        token = secrets.token_urlsafe(32)
        with self._write() as db:
            if not self._authorised(db, code, secret, "teacher link"):
                return None
            db.execute("DELETE FROM teacher_links WHERE code = ?", (normalize_code(code),))
            db.execute(
                "INSERT INTO teacher_links VALUES (?, ?, ?)",
                (_digest(token), normalize_code(code), self.clock() + LINK_TTL_S),
            )
        return token

    def redeem(self, code: str, token: str, client: str) -> str | None:
        secret = secrets.token_urlsafe(32)
        with self._write() as db:  # the right token passes whatever the limits, as a right secret does
            spent = db.execute(
                "DELETE FROM teacher_links WHERE token_sha256 = ? AND code = ? AND expires >= ?",
                (_digest(token), normalize_code(code), self.clock()),
            ).rowcount
            if not spent or self._room(db, code) is None:
                self._check_limits(db, client)
                self._fail(db, client)
                return None
            db.execute("INSERT INTO teachers VALUES (?, ?)", (_digest(secret), normalize_code(code)))
        return secret

    def revoke(self, code: str, secret: str) -> str | None:
        with self._write() as db:
            if not self._authorised(db, code, secret, "revoke"):
                return None
            return self._rotate(db, normalize_code(code))

    @staticmethod
    def _rotate(db: sqlite3.Connection, code: str) -> str:
        """Every teacher secret and link of the room revoked: the one new secret."""
        new = secrets.token_urlsafe(32)
        db.execute("DELETE FROM teacher_links WHERE code = ?", (code,))
        db.execute("DELETE FROM teachers WHERE code = ?", (code,))
        db.execute("UPDATE rooms SET secret_sha256 = ? WHERE code = ?", (_digest(new), code))
        return new

    def recovery_pin(self, code: str, secret: str) -> str | None:
        pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
        salt = secrets.token_hex(16)
        with self._write() as db:
            if not self._authorised(db, code, secret, "recovery pin"):
                return None
            db.execute(
                "INSERT OR REPLACE INTO pins VALUES (?, ?, ?)", (normalize_code(code), salt, _pin_hash(pin, salt))
            )
        return pin

    def take_back(self, code: str, pin: str, client: str) -> str | None:
        code, window = normalize_code(code), int(self.clock() // PIN_WINDOW_S)
        buckets = (f"room:{code}", self._bucket(client, "a"))
        with self._write() as db:
            counts = dict(
                db.execute(
                    "SELECT bucket, count FROM pin_failures WHERE window = ? AND bucket IN (?, ?)", (window, *buckets)
                ).fetchall()
            )
            if any(counts.get(bucket, 0) >= PIN_FAILURES for bucket in buckets):
                raise RateLimited(int(PIN_WINDOW_S - self.clock() % PIN_WINDOW_S) + 1)
            row = db.execute("SELECT salt, pin_hash FROM pins WHERE code = ?", (code,)).fetchone()
            typed = "".join(ch for ch in str(pin) if ch.isdigit())[: PIN_DIGITS + 8]
            if row is None or self._room(db, code) is None or not hmac.compare_digest(_pin_hash(typed, row[0]), row[1]):
                for bucket in buckets:
                    db.execute(
                        "INSERT INTO pin_failures VALUES (?, ?, 1) "
                        "ON CONFLICT (bucket, window) DO UPDATE SET count = count + 1",
                        (bucket, window),
                    )
                return None
            db.execute("DELETE FROM pins WHERE code = ?", (code,))  # spent: the new teacher gets a new one
            return self._rotate(db, code)


def open_store(url: str | None = None) -> RoomStore:
    """The store named by ``url`` (default: $PROBCORE_ROOMS_URL, else $PROBCORE_STORE_URL, else
    DEFAULT_URL): ``redis://host:port/db``, ``sqlite:///path`` (relative to the repository) or
    ``sqlite:////absolute/path``; ValueError for any other scheme."""
    url = chosen_url(url, ENV_URL, DEFAULT_URL)
    if is_redis(url):
        from explorer.classroom.rooms_redis import RedisRooms

        return RedisRooms(url)
    return SQLiteRooms(path_from_url(url, ENV_URL))
