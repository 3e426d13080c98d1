"""CUDA benchmark: forward + backward of torch.softmax, probcore's sparse mappings and (when installed)
the public entmax package on one GPU, float32 (and bfloat16 for probcore's default path). For each
mapping: the default call, the eager path (fused=False) and the sync-free path (_EntmaxOps, what
torch.compile takes and the default call takes up to functional._OPS_MAX_NUMEL entries), so the size
rule can be read off the table.

    python bench/bench_cuda.py [--rounds 15] [--out bench/results/cuda.md]

Every measured call is ``x.grad = None; f(x).backward(g)``, timed with CUDA events around 5 calls.
Candidates of a shape are interleaved: each round runs all of them once in a freshly shuffled order;
tables give medians over the rounds and ratios of medians to torch.softmax from the same run. A
benchmark, not a test: nothing asserts.
"""

from __future__ import annotations

import argparse
import datetime
import random
import statistics
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import probcore  # noqa: E402

try:
    import entmax as entmax_pkg
except ImportError:  # the GPU machine may not have it
    entmax_pkg = None

SHAPES = [(4096, 256), (256, 32000), (1024, 8192), (1024, 32000), (4096, 32000)]  # 2**23 = 1024 x 8192
CALLS = 5


def candidates() -> dict:
    out = {
        "softmax": lambda x: torch.softmax(x, -1),
        "sparsemax": probcore.sparsemax,
        "entmax15": probcore.entmax15,
        "entmax a=1.3": lambda x: probcore.entmax(x, alpha=1.3),
        "entmax a=1.75": lambda x: probcore.entmax(x, alpha=1.75),
    }
    ops = probcore.functional._EntmaxOps.apply  # the sync-free path torch.compile / torch.func take
    for name, a in (("sparsemax", 2.0), ("entmax15", 1.5), ("entmax a=1.3", 1.3), ("entmax a=1.75", 1.75)):
        out[f"ops {name}"] = lambda x, a=a: ops(x, a, None)
        out[f"eager {name}"] = lambda x, a=a: probcore.entmax(x, alpha=a, fused=False)
    if entmax_pkg is not None:
        out["pkg sparsemax"] = lambda x: entmax_pkg.sparsemax(x, -1)
        out["pkg entmax15"] = lambda x: entmax_pkg.entmax15(x, -1)
        out["pkg bisect a=1.3"] = lambda x: entmax_pkg.entmax_bisect(x, alpha=1.3, dim=-1)
    return out


def time_call(f, x, g) -> float:
    """Milliseconds of one forward + backward, the mean of CALLS calls between two CUDA events."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(CALLS):
        x.grad = None
        f(x).backward(g)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / CALLS


def run(shape, dtype, rounds: int) -> dict:
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = (2 * torch.randn(shape, generator=gen, device="cuda")).to(dtype).requires_grad_(True)
    g = torch.randn(shape, generator=gen, device="cuda").to(dtype)
    cands = candidates() if dtype == torch.float32 else {k: v for k, v in candidates().items() if "pkg" not in k}
    for f in cands.values():  # warm-up: kernels loaded, caches filled
        time_call(f, x, g)
    times: dict[str, list[float]] = {name: [] for name in cands}
    for _ in range(rounds):
        order = list(cands)
        random.shuffle(order)
        for name in order:
            times[name].append(time_call(cands[name], x, g))
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench_cuda.py needs a CUDA device")
    lines = [
        f"# CUDA benchmark, {datetime.date.today()}, {torch.cuda.get_device_name()}, torch {torch.__version__}",
        "",
        f"forward + backward, medians of {args.rounds} interleaved rounds (each the mean of {CALLS} calls)",
        "",
        "| shape | dtype | mapping | ms | / torch.softmax | package ms | package / probcore |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for dtype in (torch.float32, torch.bfloat16):
        for shape in SHAPES:
            med = run(shape, dtype, args.rounds)
            base = med["softmax"]
            lines.append(f"| {shape[0]} x {shape[1]} | {str(dtype)[6:]} | torch.softmax | {base:.3f} | 1.00 | | |")
            for name, pkg in (
                ("sparsemax", "pkg sparsemax"),
                ("entmax15", "pkg entmax15"),
                ("entmax a=1.3", "pkg bisect a=1.3"),
                ("entmax a=1.75", None),
            ):
                extra = f"| {med[pkg]:.3f} | {med[pkg] / med[name]:.1f}x |" if pkg in med else "| | |"
                lines.append(
                    f"| {shape[0]} x {shape[1]} | {str(dtype)[6:]} | {name} | {med[name]:.3f} | "
                    f"{med[name] / base:.2f}x {extra}"
                )
                for path in (f"eager {name}", f"ops {name}"):
                    lines.append(
                        f"| {shape[0]} x {shape[1]} | {str(dtype)[6:]} | {path} | {med[path]:.3f} | "
                        f"{med[path] / base:.2f}x | | |"
                    )
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        Path(args.out).write_text(report)


if __name__ == "__main__":
    main()
