"""bench_step_cpu.py's worker CPU per step, two checkouts side by side: a before / after that the
machine's other load moves alike.

    python bench/bench_step_cpu_paired.py --before CHECKOUT [--after CHECKOUT] [--steps 30]
                                          [--only perturb_slider,...] [--json OUT]

One worker per checkout (serve/cluster.py, no proxy), both up at once; for each kind of step the two
simulated students (bench_step_cpu.measure) run concurrently, each against its own worker, so their
steps interleave and share whatever else the machine is doing. On a small shared machine the
figures of two separate runs of one checkout moved by up to 45 % (Perturb slider 61.7 / 89.7 ms);
here both sides of a pair see the same moments.
A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_step_cpu import STEPS, finish, measure  # noqa: E402
from serve.cluster import Cluster  # noqa: E402
from views.registry import PAGES  # noqa: E402


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the checkout served as 'before'")
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1], help="default: this one")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated step names (default: all but follow_poll)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    names = [s for s in args.only.split(",") if s] or [s for s, (_, action) in STEPS.items() if action is not None]
    unknown = {s for s in names if s not in STEPS or STEPS[s][1] is None}
    if unknown:
        parser.error(f"unknown steps (follow_poll is not paired): {', '.join(sorted(unknown))}")
    result: dict = {
        "load_average_start": os.getloadavg()[0],
        "steps": args.steps,
        "before": str(args.before),
        "after": str(args.after),
    }
    with tempfile.TemporaryDirectory() as tmp:
        clusters = {}
        for side, root in (("before", args.before), ("after", args.after)):
            run_dir = Path(tmp) / side
            run_dir.mkdir()
            env = {"PROBCORE_RUNS_URL": f"sqlite:///{run_dir / 'runs.sqlite3'}"}
            clusters[side] = Cluster(1, env=env, proxy=False, run_dir=run_dir, root=root)
        with clusters["before"] as before, clusters["after"] as after:
            for name in names:
                page_id, action = STEPS[name]
                path = PAGES[page_id].url_path

                async def both(path: str = path, action=action) -> list[dict]:
                    return await asyncio.gather(
                        *(
                            measure(c.worker_url(0), lambda c=c: c.cpu_seconds()[0][0], path, action, args.steps)
                            for c in (before, after)
                        )
                    )

                b, a = asyncio.run(both())
                result[name] = {"before": b, "after": a, "ratio": round(a["cpu_ms_per_step"] / b["cpu_ms_per_step"], 3)}
                print(
                    f"{name:>24}: before {b['cpu_ms_per_step']:6.1f}, after {a['cpu_ms_per_step']:6.1f} ms CPU a step "
                    f"(x{result[name]['ratio']:.3f}); errors {b['errors']} / {a['errors']}",
                    flush=True,
                )
    return finish(result, args.json)


if __name__ == "__main__":
    main()
