"""Which store the workers share, and the Redis connection when it is a server (several machines).

One machine: each concern has its SQLite file (``PROBCORE_ROOMS_URL``, ``PROBCORE_RUNS_URL``,
default ``sqlite:///var/...``) and the rate limits live in each process. Several machines:
``PROBCORE_STORE_URL=redis://host:port/db`` puts the rooms, the heavy runs and the per-address
rate limits of every worker of every machine in one Redis (a per-concern URL, when set, still
wins for its concern). A store that cannot be reached raises :class:`StoreUnavailable` (never a
driver's own error), which the pages turn into an inline "rooms unavailable, retrying".
"""

from __future__ import annotations

import functools
import os
import threading
from typing import Callable, TypeVar
from urllib.parse import urlsplit

STORE_ENV = "PROBCORE_STORE_URL"
PREFIX = "probcore:"  # every key of the project in a shared Redis
CONNECT_TIMEOUT_S = 0.5  # a store that is down answers a page within about this
READ_TIMEOUT_S = 2.0

F = TypeVar("F", bound=Callable)


class StoreUnavailable(Exception):
    """The shared store could not be reached (down, restarting, or too slow): try again later."""


def chosen_url(url: str | None, env: str, default: str) -> str:
    """The store of one concern: ``url``, else $``env``, else $PROBCORE_STORE_URL, else ``default``."""
    return url or os.environ.get(env) or shared_url() or default


def shared_url() -> str:
    """$PROBCORE_STORE_URL ("" when unset); ValueError naming it for a scheme other than redis."""
    url = os.environ.get(STORE_ENV, "")
    if url and not is_redis(url):
        raise ValueError(
            f"{STORE_ENV}: expected redis://HOST:PORT/DB, got scheme "
            f"{urlsplit(url).scheme or '(none)'!r} (one machine needs none: SQLite is the default)"
        )
    return url


def is_redis(url: str) -> bool:
    return urlsplit(url).scheme in ("redis", "rediss", "unix")


_clients: dict[str, object] = {}
_clients_lock = threading.Lock()


def redis_client(url: str):
    """One client (a connection pool) per URL per process: short timeouts, no retries (a store that
    is down must not hold a page; the caller retries at its next poll)."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    with _clients_lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(
                url,
                socket_connect_timeout=CONNECT_TIMEOUT_S,
                socket_timeout=READ_TIMEOUT_S,
                retry=Retry(NoBackoff(), 0),
                health_check_interval=10,
            )
        return _clients[url]


def unavailable_as_store_error(method: F) -> F:
    """A method of a Redis store: the client's connection errors (refused, timed out, loading after
    a restart, read-only replica) raised as :class:`StoreUnavailable`."""
    import redis.exceptions as errors

    @functools.wraps(method)
    def call(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except (
            errors.ConnectionError,
            errors.TimeoutError,
            errors.BusyLoadingError,
            errors.ReadOnlyError,
            errors.TryAgainError,
        ) as err:
            raise StoreUnavailable(f"the shared store is unavailable: {type(err).__name__}") from err

    return call  # type: ignore[return-value]
