"""A class on one address: N Streamlit worker processes of the explorer behind HAProxy with
sticky sessions (serve/haproxy.cfg), started and stopped together.

    python -m serve.cluster --workers 2 [--port 8501] [--bind 0.0.0.0]      # proxy + 2 local workers
    python -m serve.cluster --workers 2 --store redis --redis-bind 0.0.0.0 \
        --backend 10.0.0.7:8601 --backend 10.0.0.7:8602      # + another host's workers, one shared Redis
    PROBCORE_STORE_URL=redis://:SECRET@10.0.0.5:6379/0 \
        python -m serve.cluster --workers 2 --no-proxy --worker-port 8601 --bind 0.0.0.0   # workers only

Several machines share one store (rooms, heavy runs, rate limits): ``--store redis`` starts Debian's
redis-server here (serve/redis_server.py: appendonly, a password when it listens beyond loopback)
and prints the ``PROBCORE_STORE_URL`` the other machines export; ``--backend`` and ``--no-proxy``
are refused with a SQLite store (each machine would keep its own rooms).

(scripts/serve.sh installs HAProxy and runs this.) Every worker gets the same cookie secret, so
any of them accepts a browser sent over by the proxy. Until Ctrl-C (or SIGTERM) the command
restarts a worker that exits; then it stops HAProxy and every worker. bench/bench_load.py and
tests/test_serve.py use :class:`Cluster` directly.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("haproxy.cfg")
PROXY_SECRET_ENV = "PROBCORE_PROXY_SECRET"  # shared by the proxy and its workers (explorer/client.py)
PROXY_HEADER = "X-Probcore-Proxy"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


# Workers (and their job processes) compute on one thread each (unless the environment says
# otherwise): a worker serves many sessions at once, and a second OpenMP / BLAS thread per
# operation only spins against the other workers (explorer/serving/process.py: one_torch_thread).
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as r:
            return r.read() == b"ok"
    except OSError:
        return False


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MiB (Linux /proc), 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def loopback(bind: str) -> str:
    """The address to reach a server listening on ``bind`` from this machine."""
    return "127.0.0.1" if bind in ("0.0.0.0", "::", "") else bind


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (Linux /proc), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def descendants(pid: int) -> list[int]:
    """Every process below pid (a worker's job process and the like)."""
    children = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            children += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return children + [d for c in children for d in descendants(c)]


def tree_rss_mb(pid: int) -> float:
    """rss_mb of a process and all its descendants (a worker and its job process)."""
    return rss_mb(pid) + sum(rss_mb(c) for c in descendants(pid))


def haproxy_config(port: int, servers: list[str], bind: str = "127.0.0.1", proxy_secret: str = "") -> str:
    """serve/haproxy.cfg with the frontend address and one sticky `server` line per "host:port";
    with ``proxy_secret``, the header by which the workers know the proxy (explorer/client.py)."""
    lines = "\n".join(f"    server w{i} {address} cookie w{i}" for i, address in enumerate(servers, 1))
    mark = f"    http-request set-header {PROXY_HEADER} {proxy_secret}" if proxy_secret else ""
    return TEMPLATE.read_text().format(bind=bind, port=port, servers=lines, proxy_mark=mark)


class Cluster:
    """``workers`` local Streamlit workers (plus ``backends`` elsewhere) behind HAProxy on
    ``port`` (a free one when None; ``proxy=False``: workers only), run from the checkout ``root``
    (its app.py, its var/). A context manager."""

    def __init__(
        self,
        workers: int = 1,
        port: int | None = None,
        *,
        bind: str = "127.0.0.1",
        worker_bind: str = "127.0.0.1",
        worker_port: int | None = None,
        backends: tuple[str, ...] = (),
        proxy: bool = True,
        run_dir: Path | None = None,
        env: dict | None = None,
        script: Path | None = None,
        root: Path = ROOT,
    ):
        if workers < 0 or (workers == 0 and not backends):
            raise ValueError(f"workers must be >= 1 (or >= 0 with backends), got {workers}")
        self.port = port or free_port()
        self.bind, self.worker_bind, self.proxy, self.backends = bind, worker_bind, proxy, tuple(backends)
        self.worker_ports = [worker_port + i if worker_port else free_port() for i in range(workers)]
        self.run_dir = Path(run_dir or tempfile.mkdtemp(prefix="probcore-serve-"))
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.env = {
            **ONE_THREAD,
            **os.environ,
            "STREAMLIT_SERVER_COOKIE_SECRET": os.environ.get("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_hex(16)),
            **({PROXY_SECRET_ENV: os.environ.get(PROXY_SECRET_ENV) or secrets.token_hex(16)} if proxy else {}),
            **(env or {}),
        }
        self.workers: list[subprocess.Popen | None] = [None] * workers
        self.haproxy: subprocess.Popen | None = None
        self.root = Path(root)
        self.script = Path(script) if script is not None else self.root / "app.py"

    @property
    def url(self) -> str:
        return f"http://{loopback(self.bind)}:{self.port}"

    def worker_url(self, i: int) -> str:
        return f"http://{loopback(self.worker_bind)}:{self.worker_ports[i]}"

    def start_worker(self, i: int) -> None:
        log = open(self.run_dir / f"worker{i + 1}.log", "a")
        self.workers[i] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(self.script),
                "--server.headless=true",
                f"--server.port={self.worker_ports[i]}",
                f"--server.address={self.worker_bind}",
                "--browser.gatherUsageStats=false",
                "--server.fileWatcherType=none",
                "--server.runOnSave=false",
            ],
            cwd=self.root,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self.env,
            start_new_session=True,
        )
        log.close()

    def wait_healthy(self, url: str, proc: subprocess.Popen | None, timeout_s: float, what: str) -> None:
        deadline = time.monotonic() + timeout_s
        while not healthy(url):
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"{what} exited with {proc.returncode}; see {self.run_dir}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} not healthy after {timeout_s:.0f} s; see {self.run_dir}")
            time.sleep(0.2)

    def start(self, timeout_s: float = 90.0) -> Cluster:
        for i in range(len(self.workers)):
            self.start_worker(i)
        for i, proc in enumerate(self.workers):
            self.wait_healthy(self.worker_url(i), proc, timeout_s, f"worker {i + 1}")
        if self.proxy:
            config = self.run_dir / "haproxy.cfg"
            local = [f"{loopback(self.worker_bind)}:{p}" for p in self.worker_ports]
            config.write_text(
                haproxy_config(self.port, local + list(self.backends), self.bind, self.env.get(PROXY_SECRET_ENV, ""))
            )
            subprocess.run([HAPROXY, "-c", "-q", "-f", str(config)], check=True)
            log = open(self.run_dir / "haproxy.log", "a")
            self.haproxy = subprocess.Popen(
                [HAPROXY, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
            log.close()
            self.wait_healthy(self.url, self.haproxy, 30.0, "haproxy")
        return self

    def kill_worker(self, i: int) -> None:
        """SIGKILL worker i (a crash: no goodbye to its sessions)."""
        proc = self.workers[i]
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def rss_mb(self) -> list[float]:
        """Resident MiB of each worker, its job process included."""
        return [tree_rss_mb(p.pid) if p is not None and p.poll() is None else 0.0 for p in self.workers]

    def cpu_seconds(self) -> list[tuple[float, float]]:
        """(the worker's own, its job process's) CPU seconds so far, per worker."""
        alive = [p if p is not None and p.poll() is None else None for p in self.workers]
        return [
            (cpu_seconds(p.pid), sum(cpu_seconds(c) for c in descendants(p.pid))) if p else (0.0, 0.0) for p in alive
        ]

    def stop(self) -> None:
        procs = [p for p in [self.haproxy, *self.workers] if p is not None and p.poll() is None]
        for proc in procs:
            proc.terminate()
        deadline = time.monotonic() + 10
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def __enter__(self) -> Cluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


def several_machines_need_redis(args, environ) -> str:
    """Why this start is refused ("" when it is not): ``--backend`` / ``--no-proxy`` (several
    machines) with a store of SQLite files, which each machine would keep to itself."""
    if not (args.backend or args.no_proxy):
        return ""
    shared = args.store == "redis" or environ.get("PROBCORE_STORE_URL", "").startswith("redis")
    own = [name for name in ("PROBCORE_ROOMS_URL", "PROBCORE_RUNS_URL") if environ.get(name, "").startswith("sqlite")]
    if shared and not own:
        return ""
    flag = "--no-proxy" if args.no_proxy else "--backend"
    return (
        f"{flag} serves one class from several machines, which need one shared store, not a SQLite file each"
        + (f" ({', '.join(own)} names one: unset it)" if own else "")
        + ". On the machine with the proxy add "
        "--store redis --redis-bind 0.0.0.0 (it prints the URL), and on every other machine export "
        "PROBCORE_STORE_URL=redis://:PASSWORD@PROXYHOST:6379/0 before --no-proxy (docs/serving.md, several machines)."
    )


COPIED = ("app.py", "probcore", "explorer", "views", "lessons", "serve", ".streamlit")


def checkout(dest: Path) -> Path:
    """A copy of what a worker runs (the app, the library with its built kernel, the lessons, the
    Streamlit settings) at ``dest``: another machine's working directory, with its own var/."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, dest / name, ignore=shutil.ignore_patterns("__pycache__", "var"), dirs_exist_ok=True
            )
        elif source.exists():
            shutil.copy2(source, dest / name)
    return dest


class Groups:
    """``groups`` groups of ``workers`` workers, each group as another machine would run it (its own
    checkout and var/, workers only, serve.sh --no-proxy), one Redis (serve/redis_server.py,
    appendonly) and one HAProxy in front of every worker (w1.. in group order), all on loopback in
    ``folder``. What bench/bench_load.py --groups and tests/test_serve_groups.py run; the
    worker-facing methods of :class:`Cluster` over all the groups' workers. A context manager."""

    def __init__(self, groups: int, workers: int, folder: Path, env: dict | None = None):
        from serve.redis_server import RedisServer

        self.folder = Path(folder)
        self.redis = RedisServer(self.folder / "redis", free_port())
        secrets_env = {
            "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(16),
            PROXY_SECRET_ENV: secrets.token_hex(16),
            "PROBCORE_STORE_URL": self.redis.url,
            "PROBCORE_ROOMS_URL": "",
            "PROBCORE_RUNS_URL": "",
            **(env or {}),
        }
        self.groups = [
            Cluster(
                workers,
                proxy=False,
                root=checkout(self.folder / f"group{g + 1}"),
                run_dir=self.folder / f"group{g + 1}" / "logs",
                env=secrets_env,
            )
            for g in range(groups)
        ]
        self.slots = [(c, i) for c in self.groups for i in range(workers)]  # w1.. -> (group, its worker)
        self.proxy: Cluster | None = None
        self.env = secrets_env

    def start(self) -> Groups:
        self.redis.start()
        for group in self.groups:
            group.start()
        backends = tuple(f"127.0.0.1:{c.worker_ports[i]}" for c, i in self.slots)
        self.proxy = Cluster(0, backends=backends, run_dir=self.folder / "proxy", env=self.env).start()
        return self

    @property
    def url(self) -> str:
        return self.proxy.url

    @property
    def workers(self) -> list:
        return [c.workers[i] for c, i in self.slots]

    def worker_url(self, k: int) -> str:
        c, i = self.slots[k]
        return c.worker_url(i)

    def kill_worker(self, k: int) -> None:
        c, i = self.slots[k]
        c.kill_worker(i)

    def start_worker(self, k: int) -> None:
        c, i = self.slots[k]
        c.start_worker(i)

    def rss_mb(self) -> list[float]:
        return [mb for c in self.groups for mb in c.rss_mb()]

    def cpu_seconds(self) -> list[tuple[float, float]]:
        return [cpu for c in self.groups for cpu in c.cpu_seconds()]

    def stop(self) -> None:
        for c in [self.proxy, *self.groups]:
            if c is not None:
                c.stop()
        self.redis.stop()

    def __enter__(self) -> Groups:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


def _interrupt(*_) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the class as Ctrl-C does


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2, help="local Streamlit workers (default 2)")
    parser.add_argument("--port", type=int, default=8501, help="the proxy's port, the class's address (default 8501)")
    parser.add_argument("--bind", default="0.0.0.0", help="address to listen on (default all: students' laptops)")
    parser.add_argument(
        "--worker-port",
        type=int,
        default=None,
        help="first port of the local workers (default: free ports on loopback)",
    )
    parser.add_argument(
        "--backend",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="a worker on another machine (repeat), started there with --no-proxy",
    )
    parser.add_argument("--no-proxy", action="store_true", help="start the workers only (an extra machine)")
    parser.add_argument(
        "--store",
        choices=("sqlite", "redis"),
        default="sqlite",
        help="sqlite: files in var/ (one machine, the default); redis: start redis-server here "
        "and share it (several machines; PROBCORE_STORE_URL names one started elsewhere)",
    )
    parser.add_argument("--redis-port", type=int, default=6379)
    parser.add_argument(
        "--redis-bind",
        default="127.0.0.1",
        help="where --store redis listens (0.0.0.0 for other machines: a password is made)",
    )
    args = parser.parse_args(argv)
    refused = several_machines_need_redis(args, os.environ)
    if refused:
        parser.error(refused)
    redis = None
    if args.store == "redis":
        from serve.redis_server import RedisServer

        password = "" if args.redis_bind in ("127.0.0.1", "localhost") else secrets.token_urlsafe(24)
        try:
            redis = RedisServer(ROOT / "var" / "redis", args.redis_port, args.redis_bind, password).start()
        except (FileNotFoundError, RuntimeError) as err:  # not installed, or the port is taken
            parser.error(f"--store redis: {err}")
        os.environ["PROBCORE_STORE_URL"] = redis.url
        host = socket.getfqdn() if password else "127.0.0.1"
        print(
            f"shared store: redis on {args.redis_bind}:{args.redis_port} (append-only file in var/redis); "
            f"other machines: export PROBCORE_STORE_URL={redis.url.replace('127.0.0.1', host)}",
            flush=True,
        )
    # Local workers listen on loopback behind the proxy; on an extra machine they face the proxy host.
    cluster = Cluster(
        args.workers,
        args.port,
        bind=args.bind,
        worker_bind=args.bind if args.no_proxy else "127.0.0.1",
        worker_port=args.worker_port,
        backends=tuple(args.backend),
        proxy=not args.no_proxy,
    )
    for sig in (signal.SIGINT, signal.SIGTERM):  # SIGINT too: a background start inherits it ignored
        signal.signal(sig, _interrupt)
    try:
        cluster.start()
        where = cluster.url if cluster.proxy else ", ".join(cluster.worker_url(i) for i in range(args.workers))
        print(
            f"probcore explorer: {where} ({args.workers} local worker(s), {len(args.backend)} elsewhere; "
            f"logs in {cluster.run_dir}). Ctrl-C stops everything.",
            flush=True,
        )
        while True:  # restart a worker that died; the proxy sends its students elsewhere meanwhile
            time.sleep(1.0)
            for i, proc in enumerate(cluster.workers):
                if proc is not None and proc.poll() is not None:
                    print(f"worker {i + 1} exited ({proc.returncode}); restarting it", flush=True)
                    cluster.start_worker(i)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
        if redis is not None:
            redis.stop()
        print("stopped", flush=True)


if __name__ == "__main__":
    main()
