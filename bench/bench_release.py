"""Compare's release round trip (a key press on x0's live handle -> the server's run done: URL, table;
bench_explorer.live_release) of this checkout and, with ``--root``, of another one (an older commit's
worktree), alternated round by round, beside the one-slider one-chart floor app's step, in one run:
ratios to the floor of the same run (issue 21's goal: p50 <= 1.5x).

    python bench/bench_release.py [--presses 15] [--rounds 2] [--root ../before]

A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.bench_explorer import FLOOR_APP, Interaction, live_drag, live_release, open_page, steps  # noqa: E402
from bench.browser import ROOT, chromium, percentile, serve, settle  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=15, help="timed releases per app and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--root", type=Path, help="another checkout to time beside this one")
    args = parser.parse_args()
    apps = {"this checkout": ROOT / "app.py", **({f"{args.root}": args.root.resolve() / "app.py"} if args.root else {})}
    times: dict[str, list[float]] = {"floor app (slider step)": [], **{name: [] for name in apps}}
    load = os.getloadavg()[0]
    with chromium(sync_playwright) as browser, tempfile.TemporaryDirectory() as tmp:
        floor = Path(tmp) / "floor.py"
        floor.write_text(FLOOR_APP)
        for r in range(args.rounds):
            with serve(Path(tmp) / "floor.log", script=floor) as url:
                times["floor app (slider step)"] += steps(
                    browser, url, Interaction("", "x_2", "slider", ""), args.presses
                )[1]
            for name in list(apps) if r % 2 == 0 else list(apps)[::-1]:
                with serve(Path(tmp) / "app.log", script=apps[name]) as url:
                    page, _ = open_page(browser, url)
                    live_drag(page, 3, "compare")  # off the preset, JIT warm
                    settle(page)
                    live_release(page)
                    live_release(page, False)
                    times[name] += [live_release(page, k % 2 == 0) for k in range(args.presses)]
                    page.context.close()
    floor_p50 = statistics.median(times["floor app (slider step)"])
    print(f"1-min load average {load:.2f} before, {os.getloadavg()[0]:.2f} after; {args.rounds} rounds")
    print("| | presses | p50 ms | p95 ms | p50 / floor's |\n|---|---:|---:|---:|---:|")
    for name, t in times.items():
        p50 = statistics.median(t)
        print(
            f"| {name} | {len(t)} | {1000 * p50:.1f} | {1000 * percentile(sorted(t), 0.95):.1f} | {p50 / floor_p50:.2f} |"
        )


if __name__ == "__main__":
    main()
