"""Worker CPU per script run, one kind of step at a time: where a class's CPU goes.

    python bench/bench_step_cpu.py [--steps 30] [--only compare_release,follow_poll] [--floor] [--json OUT]
                                   [--root CHECKOUT]

Starts one Streamlit worker of the explorer (serve/cluster.py, no proxy) and, for each kind of step
of bench_load.py's class mix, one simulated browser (load_client.Student: Streamlit's own protocol)
opens the step's page, takes a few warm-up steps, then ``--steps`` steps one after the other. The
worker's CPU (user + system, /proc, the whole process: the script thread, the event loop that
serialises and sends) over those steps divided by their number is the figure: CPU time, so far less
moved by other load on the machine than a latency (the load average is printed beside it). A
following student's room poll (``follow_poll``: the lesson bar's ``st.fragment(run_every=1 s)``,
sent as the frontend's timer does, ``is_auto_rerun``) follows a room made in the worker's own room
store. ``--floor`` adds bench_explorer.py's one-slider one-chart app on a worker of its own: the
floor of a script run here. ``--root`` serves the explorer of another checkout (an older commit's
worktree, for a before / after of the same steps in one run of this script). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_explorer import FLOOR_APP  # noqa: E402
from bench.bench_load import quantile  # noqa: E402
from bench.load_client import ELSEWHERE, Action, Page, Report, Student  # noqa: E402
from explorer.classroom import lessons, rooms  # noqa: E402
from serve.cluster import Cluster  # noqa: E402
from views.registry import PAGES  # noqa: E402

# name: (page id, the action repeated); "follow_poll" is the room poll
STEPS = {
    "compare_release": ("compare", Action("release", "x_0")),
    "compare_release_param": ("compare", Action("release", "temperature")),
    "jacobian_release": ("jacobian", Action("release", "x_1")),
    "simplex_step": ("simplex", Action("release", "x_1")),
    "loss_step": ("loss", Action("release", "x_1")),
    "sweeps_step": ("sweeps", Action("release", "x_1")),
    "perturb_slider": ("perturb", Action("slider", "x_1")),
    "margin_slider": ("margin", Action("slider", "margin_m")),
    "overconfidence_eps": ("overconfidence", Action("number", "oc_eps", values=(0.05, 0.1, 0.5, 1.0))),
    "check_upload": ("check", Action("upload", ("check_logits_file", "check_probs_file"))),
    "check_example": ("check", Action("choice", "check_example", values=(2, 3))),
    "page_switch": ("compare", Action("page", "*")),  # to the next page of load_client's ELSEWHERE, in turn
    "follow_poll": ("compare", None),
}
WARM_UP = 4
PACE_S = 0.5  # at most 2 steps a second: the rerun guard never refuses one
ROOM_LESSON = "01_softmax_temperature"


async def measure(url: str, cpu, page_path: str, action: Action | None, n: int, room: str = "") -> dict:
    """One student: open the page (or the room link), WARM_UP steps, then n steps: worker CPU ms per
    step and the steps' latencies."""
    seed = zlib.crc32(f"{page_path} {action}".encode())  # each kind its own values: no cache hit from another kind
    student = Student(
        url, Page(page_path, f"room={room}" if room else "", 1, ()), random.Random(seed), Report(), time.monotonic
    )
    await student.open()
    ok, why = await student.rerun(timeout=120)
    if not ok:
        raise RuntimeError(f"first run of /{page_path}: {why}")
    if room:
        for _ in range(20):  # the join reruns the app; the poll's timer comes with the page that follows
            if student.polls:
                break
            await student.rerun()

    pages = itertools.cycle([a.target for a in ELSEWHERE if a.target != page_path] + [page_path])

    async def step() -> tuple[bool, str]:
        if action is not None and action.target == "*":
            return await student.act(Action("page", next(pages)))
        if action is not None:
            return await student.act(action)
        (fragment,) = student.polls
        return await student.rerun(fragment_id=fragment, auto=True)

    for _ in range(WARM_UP):
        await step()
        await asyncio.sleep(PACE_S)
    before, began, times, errors = cpu(), time.monotonic(), [], []
    for _ in range(n):
        t0 = time.monotonic()
        ok, why = await step()
        times.append(time.monotonic() - t0)
        await asyncio.sleep(max(0.0, PACE_S - times[-1]))  # within the session's rerun budget (guard.RATE)
        if not ok or why:
            errors.append(why)
    spent = cpu() - before
    await student.close()
    return {
        "cpu_ms_per_step": round(1000 * spent / n, 1),
        "p50_s": round(quantile(times, 0.5), 4),
        "wall_s": round(time.monotonic() - began, 1),
        "errors": len(errors),
        "error_samples": errors[:3],
        "drawn": dict(sorted(student.drawn.items())),
        "url_after": student.query,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated step names (default: all): " + ", ".join(STEPS))
    parser.add_argument("--floor", action="store_true", help="also the floor app's slider step")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--root", type=Path, default=None, help="the checkout whose app.py is served (default: this one)"
    )
    args = parser.parse_args(argv)
    names = [s for s in args.only.split(",") if s] or list(STEPS)
    unknown = set(names) - set(STEPS)
    if unknown:
        parser.error(f"unknown steps: {', '.join(sorted(unknown))}")
    result: dict = {"load_average_start": os.getloadavg()[0], "steps": args.steps, "root": str(args.root or ".")}
    with tempfile.TemporaryDirectory() as tmp:
        store_url = f"sqlite:///{Path(tmp) / 'rooms.sqlite3'}"
        env = {rooms.ENV_URL: store_url, "PROBCORE_RUNS_URL": f"sqlite:///{Path(tmp) / 'runs.sqlite3'}"}
        with Cluster(
            1, env=env, proxy=False, run_dir=Path(tmp), **({"root": args.root} if args.root else {})
        ) as cluster:

            def cpu() -> float:
                return cluster.cpu_seconds()[0][0]

            for name in names:
                page_id, action = STEPS[name]
                room = ""
                if action is None:
                    lesson = lessons.shipped()[ROOM_LESSON]
                    room, _ = rooms.open_store(store_url).create(
                        lesson.id, lesson.source or lessons.dump(lesson.title, list(lesson.steps)), 0
                    )
                result[name] = asyncio.run(
                    measure(cluster.worker_url(0), cpu, PAGES[page_id].url_path, action, args.steps, room)
                )
                print(
                    f"{name:>24}: {result[name]['cpu_ms_per_step']:7.1f} ms CPU a step, p50 "
                    f"{result[name]['p50_s']:.3f} s, errors {result[name]['errors']}",
                    flush=True,
                )
        if args.floor:
            script = Path(tmp) / "floor.py"
            script.write_text(FLOOR_APP)
            with Cluster(1, script=script, proxy=False, run_dir=Path(tmp)) as cluster:
                result["floor_slider"] = asyncio.run(
                    measure(
                        cluster.worker_url(0),
                        lambda: cluster.cpu_seconds()[0][0],
                        "",
                        Action("slider", "x_2"),
                        args.steps,
                    )
                )
                print(
                    f"{'floor_slider':>24}: {result['floor_slider']['cpu_ms_per_step']:7.1f} ms CPU a step, p50 "
                    f"{result['floor_slider']['p50_s']:.3f} s",
                    flush=True,
                )
    return finish(result, args.json)


def finish(result: dict, out: Path | None) -> dict:
    """The load average at the end, printed with the one at the start; the result written to ``out``
    as JSON when given."""
    result["load_average_end"] = os.getloadavg()[0]
    print(
        f"load average (1 min): {result['load_average_start']:.2f} at the start, {result['load_average_end']:.2f} "
        f"at the end, {os.cpu_count()} cores"
    )
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
