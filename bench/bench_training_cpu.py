"""CPU time of the over-confidence page's training run, as its job process makes it.

    PYTHONPATH=CHECKOUT python bench/bench_training_cpu.py [--steps 100 --classes 20 --k 5 --seeds 0 1]

Starts the checkout's job process (explorer.serving.jobs.ChildProcess: its start-up imports, its
nice), then sends it the page's run (jobs.training_demo: compare_losses with the progress reports
relayed over the socket; defaults: the page's, views/registry.py oc_steps / oc_classes / oc_train_k,
150 pretraining steps) once per seed, and prints the CPU time (user + system, /proc/PID/stat) the
process spent on its start-up and on each run. PYTHONPATH picks the checkout measured: run a before
and an after alternated, with the load average (the 2-core box is shared)."""

from __future__ import annotations

import argparse
import functools
import operator
import os
import time

from explorer.serving import jobs


def cpu_seconds(pid: int) -> float:
    """utime + stime of process pid (seconds)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--pretrain-steps", type=int, default=150)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    args = parser.parse_args()
    child = jobs.ChildProcess()
    reports = []
    child(functools.partial(operator.truth), reports.append)  # answered once its start-up is done
    pid, before = child.proc.pid, cpu_seconds(child.proc.pid)
    print(f"checkout={jobs.ROOT} nice={child.nice} start-up cpu_s={before:.2f} load={os.getloadavg()[0]:.2f}")
    for seed in args.seeds:
        began = time.perf_counter()
        child(
            jobs.training_demo(args.steps, args.classes, args.k, seed, args.pretrain_steps),
            lambda fraction, **_: reports.append(fraction),
        )
        after = cpu_seconds(pid)
        print(
            f"  run steps={args.steps} classes={args.classes} k={args.k} seed={seed}: cpu_s={after - before:.2f} "
            f"wall_s={time.perf_counter() - began:.2f} progress_reports={len(reports)} load={os.getloadavg()[0]:.2f}"
        )
        before = after
        reports.clear()
    child.conn.close()
    child.proc.wait(30)


if __name__ == "__main__":
    main()
