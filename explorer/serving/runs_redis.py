"""Heavy runs shared in Redis (``PROBCORE_STORE_URL=redis://...`` or ``PROBCORE_RUNS_URL=redis://...``):
the :class:`~explorer.serving.runs.RunStore` of several machines, with the claims, leases and
bounds of the SQLite store (explorer/serving/runs.py says what each promises).

Keys (prefix ``probcore:``): ``run:<sha256 of the key>`` a hash (owner, state, beat, ahead,
fraction, detail, seconds, finished, payload); ``runs:running`` and ``runs:finished`` sorted sets
(name -> last beat, name -> finish time) that bound the store; ``runs:computed`` the count of
claims granted. A claim, a beat, a publish and a failure are each one Lua script (atomic: two
machines pressing at once, one computes). Time is the store's ``clock``, as in SQLite.
"""

from __future__ import annotations

import json
import pickle
import time
from typing import Any, Hashable

from explorer.serving.runs import KEEP, KEEP_S, LEASE_S, MAX_RESULT_BYTES, Run, _pickled_error, run_key
from explorer.serving.store import PREFIX, redis_client, unavailable_as_store_error

RUNNING, FINISHED, COMPUTED = PREFIX + "runs:running", PREFIX + "runs:finished", PREFIX + "runs:computed"
SHOWN = ("state", "ahead", "fraction", "detail", "seconds", "payload", "beat")

# KEYS: run, running, finished, computed; ARGV: owner, now, lease_s, reuse (1/0), name, ttl
CLAIM = """
local row = redis.call('HMGET', KEYS[1], 'owner', 'state', 'beat')
if row[2] == 'running' and row[1] ~= ARGV[1] and tonumber(row[3]) >= tonumber(ARGV[2]) - tonumber(ARGV[3]) then
  return {'taken'}
end
if row[2] == 'done' and ARGV[4] == '1' then
  return {'done'}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'state', 'running', 'beat', ARGV[2], 'ahead', 0, 'fraction', 0,
           'detail', '{}')
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('ZREM', KEYS[3], ARGV[5])
redis.call('INCR', KEYS[4])
return {'claimed'}
"""
# KEYS: run, running; ARGV: owner, now, ahead, fraction, detail, name, ttl
BEAT = """
local row = redis.call('HMGET', KEYS[1], 'owner', 'state')
if row[1] ~= ARGV[1] or row[2] ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'beat', ARGV[2], 'ahead', ARGV[3], 'fraction', ARGV[4], 'detail', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
return 1
"""
# KEYS: run, running, finished; ARGV: owner, state, now, seconds, payload, name, ttl, delete (1/0)
FINISH = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('ZREM', KEYS[2], ARGV[6])
if ARGV[8] == '1' then redis.call('DEL', KEYS[1]) return 1 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'finished', ARGV[3], 'payload', ARGV[5])
if ARGV[2] == 'done' then redis.call('HSET', KEYS[1], 'ahead', 0, 'fraction', 1, 'seconds', ARGV[4]) end
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[6])
return 1
"""
# KEYS: running, finished; ARGV: now, keep_s, keep, prefix
PURGE = """
local cut = tonumber(ARGV[1]) - tonumber(ARGV[2])
local gone = {}
for _, set in ipairs({KEYS[1], KEYS[2]}) do
  for _, name in ipairs(redis.call('ZRANGEBYSCORE', set, '-inf', '(' .. cut)) do table.insert(gone, name) end
  redis.call('ZREMRANGEBYSCORE', set, '-inf', '(' .. cut)
end
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if extra > 0 then
  for _, name in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do table.insert(gone, name) end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
for _, name in ipairs(gone) do redis.call('DEL', ARGV[4] .. name) end
return #gone
"""


class RedisRuns:
    """Runs in one Redis shared by every worker of every machine that opens the same URL."""

    def __init__(
        self,
        url: str,
        clock=time.time,
        lease_s: float = LEASE_S,
        keep: int = KEEP,
        keep_s: float = KEEP_S,
        max_result_bytes: int = MAX_RESULT_BYTES,
    ):
        self.url, self.clock, self.lease_s, self.keep, self.keep_s = url, clock, lease_s, keep, keep_s
        self.max_result_bytes = max_result_bytes
        self.ttl = int(max(keep_s, 3 * lease_s)) + 1  # Redis's own expiry: a backstop to the bounds below
        self.redis = redis_client(url)
        self._claim, self._beat = self.redis.register_script(CLAIM), self.redis.register_script(BEAT)
        self._finish, self._purge_script = self.redis.register_script(FINISH), self.redis.register_script(PURGE)

    @staticmethod
    def _key(name: str) -> str:
        return f"{PREFIX}run:{name}"

    def _purge(self) -> None:
        """Drop finished runs older than keep_s or beyond the newest ``keep``, and long-dead claims."""
        self._purge_script(keys=[RUNNING, FINISHED], args=[repr(self.clock()), self.keep_s, self.keep, PREFIX + "run:"])

    @staticmethod
    def _run(values: list) -> Run:
        state, ahead, fraction, detail, seconds, payload = (
            v.decode() if isinstance(v, bytes) and i < 5 else v for i, v in enumerate(values[:6])
        )
        run = Run(state, int(ahead or 0), float(fraction or 0), json.loads(detail or "{}"), float(seconds or 0.0))
        if state == "done":
            run.result = pickle.loads(payload)
        elif state == "failed":
            run.error = pickle.loads(payload)
        return run

    @unavailable_as_store_error
    def claim(self, key: Hashable, owner: str, reuse_finished: bool = True) -> Run:
        """As SharedRuns.claim: ``claimed`` (compute it), ``taken`` (follow it) or ``done``."""
        name = run_key(key)
        self._purge()
        state = self._claim(
            keys=[self._key(name), RUNNING, FINISHED, COMPUTED],
            args=[owner, repr(self.clock()), self.lease_s, int(reuse_finished), name, self.ttl],
        )[0]
        if state == b"done":
            run = self.look(key)
            return run if run is not None and run.state == "done" else self.claim(key, owner, reuse_finished)
        return Run(state.decode())

    @unavailable_as_store_error
    def look(self, key: Hashable) -> Run | None:
        """The run of ``key`` as its followers see it; None when nobody holds it (claim it)."""
        values = self.redis.hmget(self._key(run_key(key)), SHOWN)
        if values[0] is None or (values[0] == b"running" and float(values[6]) < self.clock() - self.lease_s):
            return None
        return self._run(values)

    @unavailable_as_store_error
    def beat(self, owner: str, runs: list[tuple[Hashable, int, float, dict]]) -> None:
        """Renew ``owner``'s claims, with each run's (key, ahead, fraction, detail)."""
        if not runs:
            return
        now = repr(self.clock())
        with self.redis.pipeline(transaction=False) as pipe:
            for key, ahead, fraction, detail in runs:
                name = run_key(key)
                self._beat(
                    keys=[self._key(name), RUNNING],
                    client=pipe,
                    args=[owner, now, ahead, fraction, json.dumps(detail, default=str), name, self.ttl],
                )
            pipe.execute()

    def _finish_run(
        self, key: Hashable, owner: str, state: str, payload: bytes, seconds: float = 0.0, delete: bool = False
    ) -> None:
        name = run_key(key)
        self._finish(
            keys=[self._key(name), RUNNING, FINISHED],
            args=[owner, state, repr(self.clock()), seconds, payload, name, self.ttl, int(delete)],
        )

    @unavailable_as_store_error
    def publish(self, key: Hashable, owner: str, result: Any, seconds: float) -> None:
        """The result of ``owner``'s run, for every follower (not shared when it is too big)."""
        blob = pickle.dumps(result)
        too_big = len(blob) > self.max_result_bytes
        self._finish_run(key, owner, "done", b"" if too_big else blob, seconds, delete=too_big)
        self._purge()

    @unavailable_as_store_error
    def fail(self, key: Hashable, owner: str, error: BaseException) -> None:
        """``owner``'s run failed: its followers get ``error``; the next claim computes it anew."""
        self._finish_run(key, owner, "failed", _pickled_error(error))

    @unavailable_as_store_error
    def computed(self) -> int:
        """Claims granted so far (take-overs included)."""
        return int(self.redis.get(COMPUTED) or 0)

    @unavailable_as_store_error
    def size(self) -> int:
        """Runs held (any state)."""
        return sum(1 for _ in self.redis.scan_iter(match=self._key("*"), count=1000))
