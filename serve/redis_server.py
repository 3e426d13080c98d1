"""The Redis that several machines' workers share (explorer/serving/store.py): Debian's
``redis-server`` started in a folder of its own with persistence on (``appendonly yes``, fsync every
second: a restart loses at most the last second; the rooms and runs come back), listening on
``bind``:``port``. Used by serve/cluster.py (``--store redis``), bench/bench_load.py (``--groups``)
and the tests, which start it on a free loopback port in a temporary folder.

    python -m serve.redis_server --port 6379 --dir var/redis    # until Ctrl-C
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import time
from pathlib import Path

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
INSTALL = "apt-get install -y redis-server (Debian's package; bash scripts/serve.sh --store redis installs it)"


def ping(host: str, port: int, timeout: float = 0.5) -> bool:
    """Whether a Redis answers PING at host:port (plain RESP over a socket: no client needed; one
    that asks for its password answers too)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False


class RedisServer:
    """``redis-server`` on ``bind``:``port`` keeping its append-only file in ``folder``; a context
    manager. :meth:`stop` then :meth:`start` again is an outage the stores must live through."""

    def __init__(self, folder: Path, port: int, bind: str = "127.0.0.1", password: str = ""):
        if not Path(REDIS).exists():
            raise FileNotFoundError(f"redis-server not found; install it: {INSTALL}")
        self.folder, self.port, self.bind, self.password = Path(folder), port, bind, password
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.bind in ("0.0.0.0", "::") else self.bind
        return f"redis://{':' + self.password + '@' if self.password else ''}{host}:{self.port}/0"

    def start(self, timeout_s: float = 30.0) -> RedisServer:
        args = [
            REDIS,
            "--port",
            str(self.port),
            "--bind",
            self.bind,
            "--dir",
            str(self.folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "no" if self.password or self.bind == "127.0.0.1" else "yes",
            "--logfile",
            str(self.folder / "redis.log"),
        ]
        if self.password:
            args += ["--requirepass", self.password]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        host = "127.0.0.1" if self.bind in ("0.0.0.0", "::") else self.bind
        while not ping(host, self.port):
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}; see {self.folder / 'redis.log'}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server not answering after {timeout_s:.0f} s")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        """SIGTERM: Redis flushes its append-only file and exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=6379)
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--dir", type=Path, default=Path("var/redis"))
    args = parser.parse_args(argv)
    with RedisServer(args.dir, args.port, args.bind) as server:
        print(f"redis: {server.url} (append-only file in {args.dir})", flush=True)
        try:
            server.proc.wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
