"""Shares of a worker that one client cannot exceed, whatever it sends (issue 25), and
process-wide resources that no message can multiply.

- :func:`once_per_process`: a resource (the job queue and its job process, the room store) made
  once per server process under a lock, out of Streamlit's caches, so no clear_cache (refused
  anyway: explorer/client.py) and no race of first runs makes a second one.
- :class:`Buckets`: token buckets per key (a client address), ``rate`` tokens a second up to
  ``burst``, at most ``max_keys`` keys (the least recently used dropped): the rerun budget per
  client (explorer/guard.py keeps the one per session), the rooms a client may create. In one
  process (one machine's worker each); with ``PROBCORE_STORE_URL=redis://...`` the same buckets
  live in Redis (:class:`RedisBuckets`), shared by every worker of every machine, so a client sent
  to another machine brings its spent budget along.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import os
import sys
import threading
import time
from typing import Callable, Protocol, TypeVar

from explorer.serving.store import PREFIX, StoreUnavailable, redis_client, shared_url, unavailable_as_store_error

T = TypeVar("T")

# Runs a second, sustained, over all the sessions of one client address, and at once: about what a
# worker serves (a class behind one school NAT shares it: 60 students stepping every 3 s fit), so one
# address opening fresh sessions cannot take more than a worker; PROBCORE_CLIENT_RERUN_RATE changes it.
CLIENT_RERUN_RATE = float(os.environ.get("PROBCORE_CLIENT_RERUN_RATE", "20"))
CLIENT_RERUN_BURST = 5 * CLIENT_RERUN_RATE
ROOMS_PER_CLIENT = 3  # rooms one client address may create ...
ROOMS_WINDOW_S = 600.0  # ... per 10 minutes (a teacher needs one per lesson)
MAX_KEYS = 4096  # client addresses remembered per process


def once_per_process(make: Callable[[], T]) -> Callable[[], T]:
    """``make()`` called once per process (under a lock), its result returned ever after (``clear()``
    forgets it: for tests that point a store at another file; nothing a client sends calls it)."""
    lock, made = threading.Lock(), []

    @functools.wraps(make)
    def get() -> T:
        if not made:
            with lock:
                if not made:
                    made.append(make())
        return made[0]

    get.clear = made.clear
    return get


class Buckets:
    """Token buckets per key: tokens = min(burst, tokens + rate * elapsed); :meth:`take` spends one."""

    def __init__(self, rate: float, burst: float, max_keys: int = MAX_KEYS, clock=time.monotonic):
        self.rate, self.burst, self.max_keys, self.clock = rate, burst, max_keys, clock
        self._lock = threading.Lock()
        self._state: collections.OrderedDict[str, tuple[float, float]] = collections.OrderedDict()

    def take(self, key: str) -> bool:
        """Spend one token of ``key``'s bucket; False (nothing spent) when it holds less than one."""
        with self._lock:
            now = self.clock()
            tokens, last = self._state.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + self.rate * (now - last))
            ok = tokens >= 1.0
            self._state[key] = (tokens - 1.0 if ok else tokens, now)
            while len(self._state) > self.max_keys:
                self._state.popitem(last=False)
            return ok


class Bucket(Protocol):
    def take(self, key: str) -> bool: ...


# KEYS: the bucket; ARGV: rate, burst, now, ttl. The formula of Buckets.take, atomic in the store.
TAKE = """
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(held[1]) or burst, tonumber(held[2]) or now
tokens = math.min(burst, tokens + rate * math.max(0, now - at))
local ok = 0
if tokens >= 1 then tokens = tokens - 1 ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], ARGV[4])
return ok
"""


class RedisBuckets:
    """:class:`Buckets` in Redis, named ``name``: one Lua script per take (read, refill, spend, write;
    the key expires once the bucket would be full again). Keys are salted hashes of the client, never
    its address. A store that is down lets the request through (the limits bound a flood; they must
    not stop a class) and says so in the server's log."""

    def __init__(self, url: str, name: str, rate: float, burst: float, clock=time.time):
        self.name, self.rate, self.burst, self.clock = name, rate, burst, clock
        self.redis = redis_client(url)
        self._take = self.redis.register_script(TAKE)
        self.ttl = int(burst / rate) + 2
        self._salt = ""
        self._logged = -1e9

    @unavailable_as_store_error
    def _spend(self, key: str) -> bool:
        if not self._salt:
            self.redis.set(PREFIX + "salt", os.urandom(16).hex(), nx=True)
            self._salt = self.redis.get(PREFIX + "salt").decode()
        hashed = hashlib.sha256(f"{self._salt}:{key}".encode()).hexdigest()[:24]
        return bool(
            self._take(
                keys=[f"{PREFIX}bucket:{self.name}:{hashed}"],
                args=[self.rate, self.burst, repr(self.clock()), self.ttl],
            )
        )

    def take(self, key: str) -> bool:
        """Spend one token of ``key``'s bucket; False when it holds less than one; True while the
        store is down."""
        try:
            return self._spend(key)
        except StoreUnavailable as err:
            if time.monotonic() - self._logged > 10.0:  # once per 10 s of outage, not once per rerun
                self._logged = time.monotonic()
                print(f"probcore: {self.name} limit not applied: {err}", file=sys.stderr, flush=True)
            return True


def buckets(name: str, rate: float, burst: float) -> Bucket:
    """The buckets ``name`` of this process: in Redis with $PROBCORE_STORE_URL, else in memory (also,
    with a message in the server's log, when that URL is not a Redis one)."""
    try:
        url = shared_url()
    except ValueError as err:
        print(f"probcore: {name} limit kept per process: {err}", file=sys.stderr, flush=True)
        url = ""
    return RedisBuckets(url, name, rate, burst) if url else Buckets(rate, burst)


reruns_per_client = once_per_process(lambda: buckets("reruns", CLIENT_RERUN_RATE, CLIENT_RERUN_BURST))
rooms_per_client = once_per_process(
    lambda: buckets("rooms", ROOMS_PER_CLIENT / ROOMS_WINDOW_S, float(ROOMS_PER_CLIENT))
)


def upload_bytes(upload, limit: int) -> bytes | None:
    """An uploaded file's bytes, or None when it holds more than ``limit`` bytes: its size, sent
    with the upload, is checked first, so an oversized file is never copied or parsed. Streamlit's
    per-uploader limit (``max_upload_size``) is whole MB in the browser only; the server refuses
    above ``server.maxUploadSize`` (64 MiB, probcore.check.MAX_FILE_BYTES) for every uploader."""
    return None if upload.size > limit else upload.getvalue()
