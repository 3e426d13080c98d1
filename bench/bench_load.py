"""A class of simulated students against the explorer, speaking Streamlit's own protocol.

    python bench/bench_load.py --students 60 --seconds 120 --workers 2 [--json OUT]
        [--step-every 3] [--kill-at 60] [--burst 30 [--burst-distinct]] [--app floor] [--url http://host:port]
        [--groups 2]

``--groups G`` runs G groups of ``--workers`` workers each, as G machines would (serve/cluster.py
Groups: each group its own copy of the app and var/, one Redis shared by all, one HAProxy in front);
``--kill-at`` then kills group A's first worker. HAProxy (and, for groups, redis-server) come
from Debian: when one is missing the benchmark says how to install it.

Starts ``--workers`` Streamlit workers behind HAProxy (serve/cluster.py; or loads ``--url``, a class
already served), warms each worker up (one session visits every page, as the teacher opening the app
before the class), then each student (bench/load_client.py: Student) does what a browser does,
without a browser: GET /_stcore/health through the proxy (the proxy's PROBCORE_WORKER cookie and
Streamlit's XSRF cookie come back), opens the websocket /_stcore/stream, sends a ``rerun_script``
BackMsg (streamlit.proto ClientState: the page's URL path and the query string of a shared link,
then the page's page_script_hash, the widget states and, as the frontend, the hashes of the large
elements it holds so the server sends those as references), and reads ForwardMsgs until
``script_finished``. Every ``--step-every`` seconds (+-50 % jitter) it takes one step of its page
(load_client.PAGES):

- on a live page (explorer/live: Compare, Jacobian; Simplex until its view is live: the slider), a
  *release*: a drag is computed in the browser and the server hears only its end, one state commit
  of the live view, as live_core.js's ``setStateValue("state", {logits, params, seq})`` sends it
  (the element's WidgetState.json_value = ``{"state": {...}}``, then one rerun of the view's
  fragment carrying every widget state): a logit moved to a point of its handle's grid, or now and
  then a parameter (temperature: the page then reruns whole);
- on a topic page, a widget change the way the frontend sends it (a rerun carrying the widget
  states; a fragment rerun for a widget inside a fragment);
- Run pressed on the training demo, two CSV files uploaded on Check my numbers (file_urls_request
  BackMsg -> PUT /_stcore/upload_file/... -> rerun with the file_uploader state), or a move to
  another page.
A step's latency is from its request to ``script_finished`` (server-side: the browser's drawing is
not included). When its websocket closes (``--kill-at`` kills worker 1 at that second) the
student reconnects through the proxy as the frontend does (health, then the websocket with its
old session id) and asks for a rerun with its URL and widget states; it counts as restored when
that run succeeds and leaves its URL as it was. ``--burst K`` adds K students who open the
training demo and press Run at the same moment (at a third of the run), with identical settings
or (``--burst-distinct``) each its own seed; the workers share a fresh heavy-run store
(explorer/serving/runs.py) whose count of computations is reported: identical presses on any worker
compute once.

Widgets are found by key (Streamlit's element id ends with "-<key>") or else by label, and every
page and action is in load_client.PAGES. Loopback only, bounded by --students and --seconds (a step
that takes longer than STEP_TIMEOUT_S counts as an error), stops everything by itself. Prints a
table and writes JSON: p50_s, p95_s, max_s (page steps), errors, sessions_lost, steps, runs (the
training presses), reconnects, rss_mb per worker (after warm-up, at the end, the largest),
client_cpu_s (this generator's CPU, imports and warm-up included) and client_class_cpu_s (its CPU
from the end of the warm-up to the end of the class: what it takes from the workers' cores).
Protocol facts from streamlit==1.67.0's proto/ and web/server/starlette/; the websocket is the
``websockets`` package Streamlit itself installs. ``--app floor`` runs the same class against
bench_explorer.py's one-slider one-chart app (every student moving its slider): the floor of this
machine under the same load, to read the explorer's figures against. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from pathlib import Path

from streamlit.proto.WidgetStates_pb2 import WidgetState

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_explorer import FLOOR_APP  # noqa: E402
from bench.load_client import PAGES, RUN_TIMEOUT_S, Action, Page, Report, Student  # noqa: E402
from explorer.serving.runs import ENV_URL as RUNS_URL, SharedRuns  # noqa: E402
from explorer.serving.runs_redis import RedisRuns  # noqa: E402
from views import registry  # noqa: E402
from serve import cluster as serving  # noqa: E402
from serve.cluster import ROOT, Cluster, Groups  # noqa: E402
from serve.redis_server import REDIS  # noqa: E402

RAMP_S = 10.0  # students arrive over the first seconds of the class
# Every simulated student comes from loopback, one address: the per-address rerun budget
# (explorer/serving/limits.py, 20 a second by default: about one worker's worth, for a school behind
# one NAT) would refuse the class's runs; the per-session budget still holds.
WORKER_ENV = {"PROBCORE_CLIENT_RERUN_RATE": "100000"}

FLOOR_PAGES = (Page("", "", 1, (Action("slider", "x_2", 1),)),)  # the yardstick app: one slider, one chart
BURST_PAGE = registry.PAGES["overconfidence"].url_path
BURST_BUTTON = "oc_run"
BURST_SEED = "oc_seed"


# ---------------------------------------------------------------- the run ----


def quantile(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank below), nan for none."""
    s = sorted(values)
    return s[int(q * (len(s) - 1))] if s else float("nan")


async def warm_up(url: str, pages: tuple[Page, ...]) -> None:
    """As the teacher opening the app before the class: one session visits every page once on a
    worker (imports, first renders, caches), so the class measures a warm server."""
    student = Student(url, pages[0], random.Random(0), Report(), time.monotonic)
    await student.open()
    await student.rerun(timeout=120)
    for page in pages[1:]:
        await student.act(Action("page", page.path))
    await student.close()


async def the_class(args, base: str, cluster: Cluster | None) -> dict:
    rng = random.Random(args.seed)
    pages = FLOOR_PAGES if args.app == "floor" else PAGES
    if cluster is not None:
        began = time.monotonic()
        await asyncio.gather(*(warm_up(cluster.worker_url(i), pages) for i in range(len(cluster.workers))))
        warm_up_s = time.monotonic() - began
    t0, cpu0 = time.monotonic(), time.process_time()

    def clock() -> float:
        return time.monotonic() - t0

    reports, tasks = [], []
    weights = [p.weight for p in pages]
    for i in range(args.students):
        report = Report()
        student = Student(base, rng.choices(pages, weights)[0], random.Random(rng.random()), report, clock)
        reports.append(report)
        tasks.append(asyncio.create_task(start_later(student, RAMP_S * i / max(1, args.students), args)))
    burst_reports: list[Report] = []
    burst_at = args.seconds / 3
    if args.burst:
        page = next(p for p in PAGES if p.path == BURST_PAGE)
        for i in range(args.burst):
            report = Report()
            burst_reports.append(report)
            student = Student(base, page, random.Random(rng.random()), report, clock)
            tasks.append(asyncio.create_task(burst_student(student, i, burst_at, args)))
    memory: list[tuple[float, list[float]]] = []
    cpu_start = cluster.cpu_seconds() if cluster is not None else []
    killed_at = None
    while not all(t.done() for t in tasks):
        await asyncio.sleep(1.0)
        if cluster is not None:
            memory.append((clock(), cluster.rss_mb()))
            if args.kill_at is not None and killed_at is None and clock() >= args.kill_at:
                cluster.kill_worker(0)
                killed_at = clock()
                cluster.start_worker(0)  # as serve/cluster.py's supervisor does; it rejoins when healthy
        if clock() > args.seconds + RUN_TIMEOUT_S + 60:
            for t in tasks:
                t.cancel()
            break
    await asyncio.gather(*tasks, return_exceptions=True)
    class_cpu_s = time.process_time() - cpu0
    result = summarize(args, reports, burst_reports, burst_at, memory, killed_at)
    result["client_class_cpu_s"] = round(class_cpu_s, 2)  # the generator's CPU while the class ran
    result["client_cpu_ms_per_step"] = round(1000 * class_cpu_s / max(1, result["steps"]), 2)
    result["warm_up_s"] = round(warm_up_s, 1) if cluster is not None else None
    if cluster is not None and killed_at is None:  # a killed worker's counters start again
        cpu = [(own - own0, job - job0) for (own, job), (own0, job0) in zip(cluster.cpu_seconds(), cpu_start)]
        burst = result["burst"] or {"students": 0, "presses": 0}
        runs = (
            result["steps"]
            + args.students
            + result["runs"]["presses"]  # steps, first runs, presses
            + burst["students"]
            + burst["presses"]
        )
        result["worker_cpu_s"] = [round(own, 1) for own, _ in cpu]
        result["job_cpu_s"] = [round(job, 1) for _, job in cpu]
        result["worker_cpu_ms_per_run"] = round(1000 * sum(own for own, _ in cpu) / max(1, runs), 1)
    return result


async def start_later(student: Student, delay: float, args) -> None:
    await asyncio.sleep(delay)
    await student.run(args.seconds, args.step_every)


async def burst_student(student: Student, i: int, at: float, args) -> None:
    """Opens the training demo early, sets its seed (distinct bursts), presses Run at ``at``."""

    async def press() -> Action:
        if args.burst_distinct:
            found = student.find(BURST_SEED)
            if found is not None:
                ws = WidgetState(id=found[0], double_value=float(1000 + i))
                student.states[found[0]] = ws
                await student.rerun(fragment_id=found[1].fragment_id)
        await asyncio.sleep(max(0.0, at - student.clock()))
        return Action("button", BURST_BUTTON)

    await asyncio.sleep(RAMP_S * random.random())
    await student.run(args.seconds, args.step_every * 1e3, first=press)  # after the press: idle


def summarize(args, reports: list[Report], burst: list[Report], burst_at: float, memory, killed_at) -> dict:
    steps = [s for r in reports for s in r.steps]
    times = [s[1] for s in steps if s[2]]
    by_action = {}
    for kind in sorted({s[0] for s in steps}):
        values = [s[1] for s in steps if s[0] == kind and s[2]]
        by_action[kind] = {
            "steps": sum(1 for s in steps if s[0] == kind),
            "p50_s": quantile(values, 0.5),
            "p95_s": quantile(values, 0.95),
            "max_s": max(values, default=float("nan")),
        }
    runs = [r_ for r in reports for r_ in r.runs]
    burst_runs = [r_ for r in burst for r_ in r.runs]
    burst_end = burst_at + max((s for s, _ in burst_runs), default=0.0)
    during = [s[1] for s in steps if s[2] and burst_at <= s[3] <= burst_end]
    reconnects = [c for r in reports + burst for c in r.reconnects]
    warm = [m for t, m in memory if t >= min(args.seconds * 0.2, 60)]  # the class's own warm-up: arrivals
    n_workers = len(memory[0][1]) if memory else 0
    rss = [
        {
            "worker": i + 1,
            "after_warmup": round(warm[0][i], 1) if warm else None,
            "end": round(memory[-1][1][i], 1) if memory else None,
            "max": round(max(m[i] for _, m in memory), 1) if memory else None,
        }
        for i in range(n_workers)
    ]
    per_worker: dict[str, int] = {}
    for r in reports:
        per_worker[r.worker] = per_worker.get(r.worker, 0) + 1
    errors = [e for r in reports + burst for e in r.errors]
    return {
        "students": args.students,
        "seconds": args.seconds,
        "workers": args.workers,
        "step_every_s": args.step_every,
        "steps": len(steps),
        "p50_s": quantile(times, 0.5),
        "p95_s": quantile(times, 0.95),
        "max_s": max(times, default=float("nan")),
        "errors": len(errors),
        "sessions_lost": sum(r.lost for r in reports + burst),
        "by_action": by_action,
        "runs": {
            "presses": len(runs),
            "ok": sum(ok for _, ok in runs),
            "p50_s": quantile([s for s, _ in runs], 0.5),
            "max_s": max((s for s, _ in runs), default=float("nan")),
        },
        "burst": {
            "students": len(burst),
            "distinct_seeds": bool(args.burst_distinct),
            "at_s": round(burst_at, 1),
            "presses": len(burst_runs),
            "ok": sum(ok for _, ok in burst_runs),
            "p50_s": quantile([s for s, _ in burst_runs], 0.5),
            "max_s": max((s for s, _ in burst_runs), default=float("nan")),
            "per_worker": {w: sum(r.worker == w for r in burst) for w in sorted({r.worker for r in burst})},
            "other_steps_meanwhile": len(during),
            "other_max_s": max(during, default=float("nan")),
        }
        if burst
        else None,
        "reconnects": {
            "count": len(reconnects),
            "restored_url": sum(ok for _, ok in reconnects),
            "p95_s": quantile([s for s, _ in reconnects], 0.95),
            "max_s": max((s for s, _ in reconnects), default=float("nan")),
            "killed_at_s": killed_at,
        },
        "rss_mb": rss,
        "students_per_worker": per_worker,
        "first_worker": [r.workers[0] if r.workers else "" for r in reports],
        "reconnected": [len(r.reconnects) for r in reports],
        "error_samples": [f"{t:.1f}s {what}" for t, what in errors[:10]],
        "missing_widgets": dict(Counter(m for r in reports + burst for m in r.missing)),
        "load_average_end": os.getloadavg()[0],
        "client_cpu_s": round(time.process_time(), 1),  # this generator's own CPU, imports and warm-up included
    }


def table(result: dict) -> str:
    groups = result.get("groups", 1)
    rows = [
        (
            "app, students / workers",
            f"{result.get('app', 'explorer')}, {result['students']} / {result['workers']}"
            + (f" in each of {groups} groups (one Redis, one HAProxy)" if groups > 1 else ""),
        ),
        ("page steps", result["steps"]),
        ("p50 s", f"{result['p50_s']:.3f}"),
        ("p95 s", f"{result['p95_s']:.3f}"),
        ("max s", f"{result['max_s']:.3f}"),
        ("errors", result["errors"]),
        ("sessions lost", result["sessions_lost"]),
        (
            "training presses (ok), p50 / max s",
            f"{result['runs']['presses']} ({result['runs']['ok']}), "
            f"{result['runs']['p50_s']:.2f} / {result['runs']['max_s']:.2f}",
        ),
        (
            "reconnects (URL kept), max s",
            f"{result['reconnects']['count']} ({result['reconnects']['restored_url']}), "
            f"{result['reconnects']['max_s']:.2f}",
        ),
        (
            "students per worker",
            ", ".join(f"{k or '?'}: {v}" for k, v in sorted(result["students_per_worker"].items())),
        ),
        (
            "RSS MiB per worker (warm, end, max)",
            "; ".join(f"w{r['worker']}: {r['after_warmup']}, {r['end']}, {r['max']}" for r in result["rss_mb"]),
        ),
        (
            "actions whose widget was missing",
            ", ".join(f"{k} x{v}" for k, v in result["missing_widgets"].items()) or "none",
        ),
        ("load average (1 min) at the end", f"{result['load_average_end']:.2f}"),
        ("CPU seconds of this load generator", result["client_cpu_s"]),
    ]
    if "client_class_cpu_s" in result:
        rows.append(
            (
                "  of them in the class (after warm-up), ms a step",
                f"{result['client_class_cpu_s']}, {result['client_cpu_ms_per_step']}",
            )
        )
    if result.get("worker_cpu_s"):
        rows.append(
            (
                "worker CPU s (job process CPU s), ms per script run",
                f"{result['worker_cpu_s']} ({result['job_cpu_s']}), {result['worker_cpu_ms_per_run']}",
            )
        )
    for kind, a in result["by_action"].items():
        rows.append(
            (
                f"  {kind}: steps, p50 / p95 / max s",
                f"{a['steps']}, {a['p50_s']:.3f} / {a['p95_s']:.3f} / {a['max_s']:.3f}",
            )
        )
    if result["burst"]:
        b = result["burst"]
        rows.append(
            (
                f"burst of {b['students']} Run presses ({'distinct' if b['distinct_seeds'] else 'identical'})",
                f"{b['ok']}/{b['presses']} ok, p50 {b['p50_s']:.2f} s, last {b['max_s']:.2f} s; other steps "
                f"meanwhile {b['other_steps_meanwhile']}, max {b['other_max_s']:.3f} s",
            )
        )
        rows.append(("  burst students per worker", ", ".join(f"{k or '?'}: {v}" for k, v in b["per_worker"].items())))
    if result.get("heavy_runs_computed") is not None:
        rows.append(("heavy runs computed, all workers (shared store)", result["heavy_runs_computed"]))
    width = max(len(str(k)) for k, _ in rows)
    return "\n".join(f"{str(k):<{width}}  {v}" for k, v in rows)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--step-every", type=float, default=3.0, help="mean seconds between a student's steps")
    parser.add_argument("--kill-at", type=float, default=None, help="SIGKILL worker 1 at this second")
    parser.add_argument("--burst", type=int, default=0, help="extra students pressing Run together")
    parser.add_argument("--burst-distinct", action="store_true", help="each burst student with its own seed")
    parser.add_argument(
        "--app",
        choices=("explorer", "floor"),
        default="explorer",
        help="floor: bench_explorer.py's one-slider one-chart app, the yardstick of this machine",
    )
    parser.add_argument("--url", default=None, help="load a class already served here instead (loopback)")
    parser.add_argument(
        "--groups",
        type=int,
        default=1,
        help="groups of --workers workers, as that many machines: one Redis, one HAProxy",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if not (
        1 <= args.students <= 500 and 1 <= args.seconds <= 3600 and 1 <= args.workers <= 16 and 1 <= args.groups <= 4
    ):
        parser.error("students in [1, 500], seconds in [1, 3600], workers in [1, 16], groups in [1, 4]")
    missing = [
        f"{name} (apt-get install -y {package})"
        for name, path, package, needed in (
            ("HAProxy", serving.HAPROXY, "haproxy", not args.url),
            ("redis-server", REDIS, "redis-server", args.groups > 1),
        )
        if needed and not Path(path).exists()
    ]
    if missing:
        parser.error(
            f"not installed: {', '.join(missing)}; bash scripts/serve.sh installs HAProxy, "
            "and redis-server with --store redis"
        )
    if args.url:
        host = urllib.parse.urlsplit(args.url).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            parser.error("--url must be on loopback")
        result = asyncio.run(the_class(args, args.url.rstrip("/"), None))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            script = ROOT / "app.py"
            if args.app == "floor":
                script = Path(tmp) / "floor.py"
                script.write_text(FLOOR_APP)
            if args.groups > 1:  # a fresh Redis: its count of heavy runs starts at 0
                if args.app == "floor":
                    parser.error("--groups runs the explorer")
                with Groups(args.groups, args.workers, Path(tmp), env=WORKER_ENV) as cluster:
                    result = asyncio.run(the_class(args, cluster.url, cluster))
                    result["heavy_runs_computed"] = RedisRuns(cluster.redis.url).computed()
            else:
                store = Path(tmp) / "runs.sqlite3"  # this class's shared heavy-run store: its count starts at 0
                with Cluster(
                    args.workers, script=script, env={**WORKER_ENV, RUNS_URL: f"sqlite:///{store}"}
                ) as cluster:
                    result = asyncio.run(the_class(args, cluster.url, cluster))
                result["heavy_runs_computed"] = SharedRuns(store).computed()
    result["app"], result["groups"] = args.app, args.groups
    result["load_average_start"] = LOAD_AT_START
    print(table(result))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1, default=float))
    return result


LOAD_AT_START = os.getloadavg()[0]

if __name__ == "__main__":
    main()
