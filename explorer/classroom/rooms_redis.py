"""Live rooms in Redis (``PROBCORE_STORE_URL=redis://...`` or ``PROBCORE_ROOMS_URL=redis://...``):
the :class:`~explorer.classroom.rooms.RoomStore` of several machines, with the same codes, secrets,
limits and expiry as the SQLite store (explorer/classroom/rooms.py says what each promises).

Keys (prefix ``probcore:``): ``room:<code>`` a hash (secret_sha256, lesson_id, lesson_text, step,
version, updated), made by a Lua script only when the code is free (the claim) and expiring
ROOM_TTL_S after the last teacher action; ``rooms`` a sorted set code -> updated (expired rooms
are purged on create, as SQLite does); ``teachers:<code>`` the set of other devices' secret
digests; ``link:<code>`` the one live teacher link (digest and expiry; redeemed by a
compare-and-delete script); ``pin:<code>`` the recovery PIN's salt and PBKDF2 hash; failure
counters ``fail:<bucket>:<window>`` and ``pinfail:<bucket>:<window>`` (INCR + EXPIRE in one
transaction). Time is the store's ``clock`` (as in SQLite), so every worker judges expiry alike.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from explorer.classroom import rooms as base  # its limits read at each call, as SQLiteRooms does
from explorer.classroom.rooms import RateLimited, Room, _digest, _pin_hash, normalize_code
from explorer.serving.store import PREFIX, redis_client, unavailable_as_store_error

FIELDS = ("lesson_id", "lesson_text", "step", "version", "updated")

CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'secret_sha256', ARGV[1], 'lesson_id', ARGV[2], 'lesson_text', ARGV[3],
           'step', ARGV[4], 'version', 0, 'updated', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[7])
return 1
"""
MOVE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'step', ARGV[1], 'updated', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
for i = 3, #KEYS do if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end end
return 1
"""
REDEEM = """
local link = redis.call('GET', KEYS[1])
if not link then return 0 end
local sep = string.find(link, '|', 1, true)
if string.sub(link, 1, sep - 1) ~= ARGV[1] or tonumber(string.sub(link, sep + 1)) < tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""


class RedisRooms:
    """Rooms in one Redis shared by every worker of every machine that opens the same URL."""

    def __init__(self, url: str, clock=time.time):
        self.url, self.clock = url, clock
        self.redis = redis_client(url)
        self._create, self._move = self.redis.register_script(CREATE), self.redis.register_script(MOVE)
        self._redeem = self.redis.register_script(REDEEM)
        self._salt_value = ""

    # ------------------------------------------------ keys
    @staticmethod
    def _key(kind: str, code: str = "") -> str:
        return f"{PREFIX}{kind}:{code}" if code else f"{PREFIX}{kind}"

    def _salt(self) -> str:
        """The store's salt for client buckets, made once by whichever worker comes first (SET NX)."""
        if not self._salt_value:
            self.redis.set(self._key("salt"), secrets.token_hex(16), nx=True)
            self._salt_value = self.redis.get(self._key("salt")).decode()
        return self._salt_value

    # ------------------------------------------------ rate limit (as SQLiteRooms)
    def _bucket(self, client: str, kind: str = "c") -> str:
        return f"{kind}:" + hashlib.sha256(f"{self._salt()}:{client}".encode()).hexdigest()[:24]

    def _buckets(self, client: str, session: str) -> dict[str, int]:
        own = self._bucket(session, "s") if session else self._bucket(client)
        return {
            own: base.CLIENT_FAILURES,
            **({self._bucket(client): base.ADDRESS_FAILURES} if session else {}),
            "all": base.ALL_FAILURES,
        }

    def _check_limits(self, client: str, session: str = "") -> None:
        window = int(self.clock() // base.WINDOW_S)
        limits = self._buckets(client, session)
        counts = self.redis.mget([self._key("fail", f"{bucket}:{window}") for bucket in limits])
        if any(int(count or 0) >= limit for count, limit in zip(counts, limits.values())):
            raise RateLimited(int(base.WINDOW_S - self.clock() % base.WINDOW_S) + 1)

    def _fail(self, client: str, session: str = "") -> None:
        window = int(self.clock() // base.WINDOW_S)
        with self.redis.pipeline() as pipe:
            for bucket in self._buckets(client, session):
                key = self._key("fail", f"{bucket}:{window}")
                pipe.incr(key)
                pipe.expire(key, 2 * base.WINDOW_S)
            pipe.execute()

    def _purge(self) -> None:
        """Rooms not moved for ROOM_TTL_S by the store's clock, and what belongs to them."""
        old = self.redis.zrangebyscore(self._key("rooms"), "-inf", f"({self.clock() - base.ROOM_TTL_S}")
        if old:
            codes = [c.decode() for c in old]
            self.redis.delete(
                *(self._key(kind, code) for code in codes for kind in ("room", "teachers", "link", "pin"))
            )
            self.redis.zrem(self._key("rooms"), *codes)

    # ------------------------------------------------ rooms
    def _room(self, code: str) -> Room | None:
        code = normalize_code(code)
        values = self.redis.hmget(self._key("room", code), FIELDS)
        if values[0] is None or float(values[4]) < self.clock() - base.ROOM_TTL_S:
            return None
        lesson_id, text, step, version, updated = values
        return Room(code, lesson_id.decode(), text.decode(), int(step), int(version), float(updated))

    @unavailable_as_store_error
    def create(self, lesson_id: str, lesson_text: str, step: int) -> tuple[str, str]:
        if len(lesson_text.encode()) > base.MAX_LESSON_BYTES:
            raise ValueError(f"lesson_text must be at most {base.MAX_LESSON_BYTES} bytes")
        secret = secrets.token_urlsafe(32)
        self._purge()
        while True:
            code = "".join(secrets.choice(base.CODE_ALPHABET) for _ in range(base.CODE_LENGTH))
            if self._create(
                keys=[self._key("room", code), self._key("rooms")],
                args=[_digest(secret), lesson_id, lesson_text, int(step), repr(self.clock()), base.ROOM_TTL_S, code],
            ):
                return code, secret

    @unavailable_as_store_error
    def join(self, code: str, client: str, session: str = "") -> Room | None:
        self._check_limits(client, session)
        room = self._room(code)
        if room is None:
            self._fail(client, session)
        return room

    @unavailable_as_store_error
    def get(self, code: str) -> Room | None:
        return self._room(code)

    def _authorised(self, code: str, secret: str, client: str) -> bool:
        """The right secret passes whatever the limits; a wrong one is refused past them, else counted."""
        code, digest = normalize_code(code), _digest(secret)
        stored, updated = self.redis.hmget(self._key("room", code), ("secret_sha256", "updated"))
        if (
            stored is not None
            and float(updated) >= self.clock() - base.ROOM_TTL_S
            and (
                hmac.compare_digest(stored.decode(), digest)
                or self.redis.sismember(self._key("teachers", code), digest)
            )
        ):
            return True
        self._check_limits(client)
        self._fail(client)
        return False

    @unavailable_as_store_error
    def is_teacher(self, code: str, secret: str, client: str) -> bool:
        return self._authorised(code, secret, client)

    @unavailable_as_store_error
    def move(self, code: str, secret: str, step: int, client: str) -> Room | None:
        if not self._authorised(code, secret, client):
            return None
        code = normalize_code(code)
        keys = [self._key("room", code), self._key("rooms"), self._key("teachers", code), self._key("pin", code)]
        if not self._move(keys=keys, args=[int(step), repr(self.clock()), base.ROOM_TTL_S, code]):
            return None
        return self._room(code)

    @unavailable_as_store_error
    def teacher_link(self, code: str, secret: str) -> str | None:
        token = secrets.token_urlsafe(32)
        if not self._authorised(code, secret, "teacher link"):
            return None
        self.redis.set(
            self._key("link", normalize_code(code)),
            f"{_digest(token)}|{self.clock() + base.LINK_TTL_S!r}",
            ex=base.LINK_TTL_S,
        )
        return token

    @unavailable_as_store_error
    def redeem(self, code: str, token: str, client: str) -> str | None:
        code = normalize_code(code)
        spent = self._redeem(keys=[self._key("link", code)], args=[_digest(token), repr(self.clock())])
        if not spent or self._room(code) is None:
            self._check_limits(client)
            self._fail(client)
            return None
        secret = secrets.token_urlsafe(32)
        with self.redis.pipeline() as pipe:
            pipe.sadd(self._key("teachers", code), _digest(secret))
            pipe.expire(self._key("teachers", code), base.ROOM_TTL_S)
            pipe.execute()
        return secret

    @unavailable_as_store_error
    def revoke(self, code: str, secret: str) -> str | None:
        if not self._authorised(code, secret, "revoke"):
            return None
        return self._rotate(normalize_code(code))

    def _rotate(self, code: str) -> str:
        """Every teacher secret and link of the room revoked: the one new secret."""
        new = secrets.token_urlsafe(32)
        with self.redis.pipeline() as pipe:  # MULTI / EXEC
            pipe.delete(self._key("link", code), self._key("teachers", code))
            pipe.hset(self._key("room", code), "secret_sha256", _digest(new))
            pipe.execute()
        return new

    @unavailable_as_store_error
    def recovery_pin(self, code: str, secret: str) -> str | None:
        pin = "".join(secrets.choice("0123456789") for _ in range(base.PIN_DIGITS))
        salt = secrets.token_hex(16)
        if not self._authorised(code, secret, "recovery pin"):
            return None
        key = self._key("pin", normalize_code(code))
        with self.redis.pipeline() as pipe:
            pipe.hset(key, mapping={"salt": salt, "pin_hash": _pin_hash(pin, salt)})
            pipe.expire(key, base.ROOM_TTL_S)
            pipe.execute()
        return pin

    @unavailable_as_store_error
    def take_back(self, code: str, pin: str, client: str) -> str | None:
        code, window = normalize_code(code), int(self.clock() // base.PIN_WINDOW_S)
        buckets = [self._key("pinfail", f"{bucket}:{window}") for bucket in (f"room:{code}", self._bucket(client, "a"))]
        if any(int(count or 0) >= base.PIN_FAILURES for count in self.redis.mget(buckets)):
            raise RateLimited(int(base.PIN_WINDOW_S - self.clock() % base.PIN_WINDOW_S) + 1)
        salt, stored = self.redis.hmget(self._key("pin", code), ("salt", "pin_hash"))
        typed = "".join(ch for ch in str(pin) if ch.isdigit())[: base.PIN_DIGITS + 8]
        if (
            stored is None
            or self._room(code) is None
            or not hmac.compare_digest(_pin_hash(typed, salt.decode()), stored.decode())
        ):
            with self.redis.pipeline() as pipe:
                for key in buckets:
                    pipe.incr(key)
                    pipe.expire(key, 2 * base.PIN_WINDOW_S)
                pipe.execute()
            return None
        if not self.redis.delete(self._key("pin", code)):  # spent (by another worker at the same moment: refused)
            return None
        return self._rotate(code)
