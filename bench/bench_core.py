"""Core benchmark: forward + backward of torch.softmax, probcore's sparse mappings (the default
call, which takes the compiled kernel wherever it applies; the eager path, fused=False; the kernel
forced, fused=True) and the public entmax package (sort-based sparsemax / entmax15, bisection
entmax), float32, 2 threads.

    python bench/bench_core.py [--quick] [--out bench/results/core.md]
    python bench/bench_core.py --fused-only     # only the fused section of --out, rerun at 4096 x 256
    python bench/bench_core.py --goals 15 [--root CHECKOUT]   # issue 22's goals only, printed; probcore
                                                              # of CHECKOUT (its kernel built in place)

Every measured call is ``x.grad = None; f(x).backward(g)``, wall time (time.perf_counter). The
candidates of a table row group are interleaved: each round runs all of them once, in a freshly
shuffled order, so load from other processes hits them alike; tables give medians over the rounds
and ratios of medians from the same run. Memory is measured per candidate in a fresh subprocess
(see ``memory_probe``). Writes the Markdown report to --out and prints it. This is a benchmark,
not a test: nothing here asserts, the "goal" columns only report.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if "--root" in sys.argv[:-1]:  # before probcore is imported: another checkout's (an older commit's)
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--root") + 1]).resolve()))

import entmax as entmax_pkg  # noqa: E402

import probcore  # noqa: E402
from probcore import threshold  # noqa: E402

THREADS = 2
GENERAL_ALPHAS = (1.25, 1.75)
FUSED_ALPHA = 1.3  # the general-alpha goal


def candidates():
    """name -> f(x) along the last dim; 'softmax' is the baseline."""
    out = {
        "softmax": lambda x: torch.softmax(x, -1),
        "probcore sparsemax": probcore.sparsemax,
        "eager sparsemax": lambda x: probcore.sparsemax(x, fused=False),
        "entmax-pkg sparsemax": lambda x: entmax_pkg.sparsemax(x, -1),
        "probcore entmax15": probcore.entmax15,
        "eager entmax15": lambda x: probcore.entmax15(x, fused=False),
        "entmax-pkg entmax15": lambda x: entmax_pkg.entmax15(x, -1),
    }
    for a in (*GENERAL_ALPHAS, FUSED_ALPHA):
        out[f"probcore entmax a={a}"] = lambda x, a=a: probcore.entmax(x, alpha=a)
        out[f"eager entmax a={a}"] = lambda x, a=a: probcore.entmax(x, alpha=a, fused=False)
        out[f"entmax-pkg bisect a={a}"] = lambda x, a=a: entmax_pkg.entmax_bisect(x, alpha=a, dim=-1)
    out["fused sparsemax"] = lambda x: probcore.sparsemax(x, fused=True)
    out["fused entmax15"] = lambda x: probcore.entmax15(x, fused=True)
    out[f"fused entmax a={FUSED_ALPHA}"] = lambda x: probcore.entmax(x, alpha=FUSED_ALPHA, fused=True)
    return out


# (mapping label, probcore candidate (the default call), package candidate, goal: max ratio to
# softmax on short rows (n < 32000), on wide rows); issue 22's goals for sparsemax, entmax15 and
# alpha = 1.3, issue 2's for the other alphas
MAPPINGS = [
    ("sparsemax", "probcore sparsemax", "entmax-pkg sparsemax", (1.5, 1.5)),
    ("entmax15", "probcore entmax15", "entmax-pkg entmax15", (2, 1.5)),
    (f"entmax a={FUSED_ALPHA}", f"probcore entmax a={FUSED_ALPHA}", f"entmax-pkg bisect a={FUSED_ALPHA}", (3, 1.5)),
] + [(f"entmax a={a}", f"probcore entmax a={a}", f"entmax-pkg bisect a={a}", (6, 6)) for a in GENERAL_ALPHAS]


def inputs(shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g).requires_grad_()
    return x, torch.randn(shape, generator=g)


def forward_backward(f, x, g):
    x.grad = None
    f(x).backward(g)


def interleaved(names, shape, rounds):
    """{name: median seconds} of forward + backward of the named candidates on one input."""
    table = candidates()
    x, g = inputs(shape)
    return timed({name: lambda f=table[name]: forward_backward(f, x, g) for name in names}, rounds)


def timed(thunks, rounds, seed=0):
    """{name: median seconds} of the zero-argument callables, interleaved in shuffled rounds."""
    for thunk in thunks.values():  # warm-up: lazy initialisation, allocator
        thunk()
    times = {name: [] for name in thunks}
    order = list(thunks)
    rng = random.Random(seed)
    for _ in range(rounds):
        rng.shuffle(order)
        for name in order:
            start = time.perf_counter()
            thunks[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def memory_probe(name, shape):
    """(extra peak, workspace) bytes: the extra peak resident memory of one forward + backward
    beyond the inputs, in this (fresh) process: after a warm-up call, free heap pages go back to the
    OS (malloc_trim) and the peak-RSS mark is reset (/proc/self/clear_refs 5); then VmHWM after the
    call minus VmRSS before. It counts what the OS really had to provide, allocator slack included.
    The scratch probcore's threshold keeps between calls (its per-thread workspace, made by the
    warm-up call) is not in that peak: it is the second number."""
    torch.set_num_threads(THREADS)
    f = candidates()[name]
    x, g = inputs(shape)
    forward_backward(f, x, g)
    x.grad = None
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_kb("VmRSS")
    forward_backward(f, x, g)
    kept = sum(b.numel() * b.element_size() for b in threshold._workspace.__dict__.get("buffers", {}).values())
    return (_status_kb("VmHWM") - before) * 1024, kept


def _status_kb(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def memory(names, shape):
    """{name: (extra peak bytes, workspace bytes)}, each from its own subprocess (None where
    probing failed)."""
    out = {}
    for name in names:
        cmd = [sys.executable, __file__, "--memory-probe", name, str(shape[0]), str(shape[1])]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        words = res.stdout.split()
        out[name] = (int(words[-2]), int(words[-1])) if res.returncode == 0 and len(words) >= 2 else None
    return out


# ------------------------------------------------------------------ report


def ms(seconds):
    return f"{seconds * 1e3:.3g}" if seconds >= 1e-3 else f"{seconds * 1e3:.2f}"


def ratio(a, b):
    return f"{a / b:.1f}x"


def headline(shapes, rounds):
    """Two interleaved groups per shape: softmax with probcore's mappings (the ratios to softmax),
    then probcore's mappings with the package's (the package ratios). The package is kept out of
    the first group: its large temporaries, freed between calls, make the next calls' allocations
    fault their pages in again, which slows softmax more than probcore and flatters the ratios."""
    ours_names = [ours for _, ours, _, _ in MAPPINGS]
    pkg_names = [pkg for _, _, pkg, _ in MAPPINGS]
    lines = [
        "| shape (rows x n) | mapping | torch.softmax ms | probcore ms | probcore / softmax | goal |"
        " entmax pkg ms | pkg / probcore | goal (n = 32000) |",
        "|---|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for shape in shapes:
        t = interleaved(["softmax", *ours_names], shape, rounds)
        u = interleaved([*ours_names, *pkg_names], shape, max(3, rounds // 2))
        for label, ours, pkg, limits in MAPPINGS:
            limit = limits[shape[1] >= 32000]
            r_soft, r_pkg = t[ours] / t["softmax"], u[pkg] / u[ours]
            goal_pkg = ("met" if r_pkg >= 10 else "NOT met") if shape[1] >= 32000 else "-"
            lines.append(
                f"| {shape[0]} x {shape[1]} | {label} | {ms(t['softmax'])} | {ms(t[ours])} |"
                f" {ratio(t[ours], t['softmax'])} | <= {limit}x: {'met' if r_soft <= limit else 'NOT met'} |"
                f" {ms(u[pkg])} | {r_pkg:.1f}x | {goal_pkg} |"
            )
    return lines


# (mapping label, eager candidate, fused candidate, package candidate, goal: max ratio to softmax)
FUSED = [
    ("sparsemax", "eager sparsemax", "fused sparsemax", "entmax-pkg sparsemax", 1.5),
    ("entmax15", "eager entmax15", "fused entmax15", "entmax-pkg entmax15", 2),
    (
        f"entmax a={FUSED_ALPHA}",
        f"eager entmax a={FUSED_ALPHA}",
        f"fused entmax a={FUSED_ALPHA}",
        f"entmax-pkg bisect a={FUSED_ALPHA}",
        3,
    ),
]


def load_cost():
    """Seconds a first fused call in a fresh process spends loading the compiled kernel (it is
    compiled when probcore is installed, never at run time)."""
    code = "import time, probcore.fused as f; t = time.perf_counter(); f.available(); print(time.perf_counter() - t)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return float(done.stdout.split()[-1])


def fused_table(shapes, rounds):
    """Eager and fused (fused=True) side by side with softmax (one interleaved group), then fused
    with the entmax package (a second group, as in headline)."""
    lines = [
        "| shape (rows x n) | mapping | torch.softmax ms | eager ms | fused ms | eager / softmax |"
        " fused / softmax | goal (fused) | fused speed-up | entmax pkg ms | pkg / fused |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for shape in shapes:
        t = interleaved(["softmax", *(e for _, e, _, _, _ in FUSED), *(f for _, _, f, _, _ in FUSED)], shape, rounds)
        u = interleaved([*(f for _, _, f, _, _ in FUSED), *(p for _, _, _, p, _ in FUSED)], shape, max(3, rounds // 2))
        for label, eager, fast, pkg, limit in FUSED:
            r = t[fast] / t["softmax"]
            lines.append(
                f"| {shape[0]} x {shape[1]} | {label} | {ms(t['softmax'])} | {ms(t[eager])} | {ms(t[fast])} |"
                f" {ratio(t[eager], t['softmax'])} | {ratio(t[fast], t['softmax'])} |"
                f" <= {limit}x: {'met' if r <= limit else 'NOT met'} | {ratio(t[eager], t[fast])} |"
                f" {ms(u[pkg])} | {ratio(u[pkg], u[fast])} |"
            )
    return lines


SCALING = [
    "softmax",
    "probcore sparsemax",
    "probcore entmax15",
    "probcore entmax a=1.25",
    "probcore entmax a=1.75",
    "entmax-pkg sparsemax",
]
STAGED = [("sparsemax", 2.0), ("entmax15", 1.5)] + [(f"entmax a={a}", a) for a in GENERAL_ALPHAS]


def thresholds(shapes, rounds):
    """Forward only: probcore.threshold's fast thresholds against its sort / bisection references."""
    a = torch.tensor(GENERAL_ALPHAS[0])
    pairs = [
        ("sparsemax", 1.0, threshold.sparsemax_threshold, threshold.sparsemax_threshold_sort),
        ("entmax15", 0.5, threshold.entmax15_threshold, threshold.entmax15_threshold_sort),
        (
            f"entmax a={a.item()}",
            a.item() - 1,
            lambda z: threshold.entmax_threshold(z, a),
            lambda z: threshold.entmax_threshold_bisect(z, a),
        ),
    ]
    lines = [
        "| shape | threshold | torch.softmax forward ms | fast ms | reference ms | fast / softmax | reference / fast |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for shape in shapes:
        x = inputs(shape)[0].detach()
        thunks = {"softmax": lambda x=x: torch.softmax(x, -1)}
        for label, scale, fast, ref in pairs:
            z = x * scale
            thunks[label], thunks[label + " ref"] = (lambda f=fast, z=z: f(z)), (lambda f=ref, z=z: f(z))
        t = timed(thunks, rounds)
        for label, *_ in pairs:
            fast, ref = t[label], t[label + " ref"]
            lines.append(
                f"| {shape[0]} x {shape[1]} | {label} | {ms(t['softmax'])} | {ms(fast)} | {ms(ref)} | "
                f"{ratio(fast, t['softmax'])} | {ratio(ref, fast)} |"
            )
    return lines


def stages(shapes, rounds):
    """Where the time goes: the threshold alone (threshold.threshold_candidates, what the forward
    calls), the whole forward (with autograd recording), the backward alone
    (torch.autograd.grad on a kept graph), against torch.softmax's forward and backward. One
    interleaved group per mapping (only its own graph kept alive)."""
    lines = [
        "| shape | mapping | threshold ms | rest of forward ms | backward ms | forward + backward ms |"
        " softmax fwd / bwd ms | threshold share |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for shape in shapes:
        x, g = inputs(shape)
        xd = x.detach()
        soft = torch.softmax(x, -1)
        base = timed(
            {
                "fwd": lambda x=x: torch.softmax(x, -1),
                "bwd": lambda x=x, g=g, soft=soft: torch.autograd.grad(soft, x, g, retain_graph=True),
            },
            rounds,
        )
        del soft
        for label, alpha in STAGED:
            f = candidates()[f"probcore {label}"]
            p = f(x)
            t = timed(
                {
                    "thr": lambda xd=xd, alpha=alpha: threshold.threshold_candidates(xd, alpha),
                    "fwd": lambda f=f, x=x: f(x),
                    "bwd": lambda x=x, g=g, p=p: torch.autograd.grad(p, x, g, retain_graph=True),
                },
                rounds,
            )
            del p
            lines.append(
                f"| {shape[0]} x {shape[1]} | {label} | {ms(t['thr'])} | {ms(max(t['fwd'] - t['thr'], 0))} |"
                f" {ms(t['bwd'])} | {ms(t['fwd'] + t['bwd'])} | {ms(base['fwd'])} / {ms(base['bwd'])} |"
                f" {100 * t['thr'] / (t['fwd'] + t['bwd']):.0f}% |"
            )
    return lines


def scaling(shapes, rounds, vary):
    head = (
        "| "
        + vary
        + " | "
        + " | ".join(f"{n} ms" for n in SCALING)
        + " | "
        + " | ".join(f"{n} / softmax" for n in SCALING[1:])
        + " |"
    )
    lines = [head, "|" + "---:|" * (2 * len(SCALING))]
    for shape in shapes:
        t = interleaved(SCALING, shape, rounds)
        key = shape[1] if vary == "n" else shape[0]
        lines.append(
            f"| {key:,} | "
            + " | ".join(ms(t[n]) for n in SCALING)
            + " | "
            + " | ".join(ratio(t[n], t["softmax"]) for n in SCALING[1:])
            + " |"
        )
    return lines


def memory_table(shapes):
    names = [name for name in candidates() if not name.endswith(f"a={FUSED_ALPHA}")]
    lines = ["| shape | candidate | extra peak RSS MB | vs softmax | workspace kept MB |", "|---|---|---:|---:|---:|"]
    for shape in shapes:
        mem = memory(names, shape)
        base = mem["softmax"][0] if mem["softmax"] else None
        for name in names:
            if mem[name] is None or not base:
                lines.append(f"| {shape[0]} x {shape[1]} | {name} | n/a | n/a | n/a |")
                continue
            peak, kept = mem[name]
            lines.append(
                f"| {shape[0]} x {shape[1]} | {name} | {peak / 2**20:.1f} | {peak / base:.1f}x | {kept / 2**20:.1f} |"
            )
    return lines


def fused_section(shapes, rounds):
    """The fused path's section of the report (its tables and compile cost, measured now)."""
    loaded = load_cost()
    return [
        "## The fused path (fused=True) against the eager path, softmax and the entmax package",
        "",
        "`probcore.sparsemax(x, fused=True)`, `probcore.entmax15(x, fused=True)`, "
        f"`probcore.entmax(x, alpha={FUSED_ALPHA}, fused=True)`: threshold, p and backward in one C kernel per "
        "row (probcore/fused.py), against the eager path of the same functions. One interleaved group per "
        "shape for softmax, eager and fused; a second for fused and the package (columns 10 and 11). "
        "The kernel is compiled when probcore is installed (setup.py); a process loads it on its first "
        f"fused call in {loaded * 1e3:.1f} ms (measured in a fresh process).",
        "",
        *fused_table(shapes, rounds),
        "",
    ]


def fused_only(path, rounds):
    """--fused-only: the fused section rerun at 4096 x 256 and put in place in the report at path
    (the other sections stay those of its last full run), with this run's conditions."""
    load_before, started = os.getloadavg()[0], time.perf_counter()
    section = fused_section([(4096, 256)], rounds)
    section.insert(
        2,
        f"This section alone was rerun with `--fused-only` ({rounds} interleaved rounds, "
        f"{time.perf_counter() - started:.0f} s, {datetime.date.today()}, 1-min load average "
        f"{load_before:.1f} before / {os.getloadavg()[0]:.1f} after); the other sections are "
        "from the full run described above.\n",
    )
    text = path.read_text() if path.exists() else "# Core benchmark: forward + backward\n\n"
    start = text.find("## The fused path")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + "\n".join(section) + text[end + 1 :]
    else:
        anchor = text.find("## Against torch.softmax")
        anchor = anchor if anchor >= 0 else len(text)
        text = text[:anchor] + "\n".join(section) + "\n" + text[anchor:]
    return text


def report(quick):
    rounds = 3 if quick else 15
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    fast = fused_section([(4096, 256), (256, 32000)], rounds)
    head = headline([(4096, 256), (256, 32000)], rounds)
    staged = stages([(4096, 256), (256, 32000)], rounds)
    thr = thresholds([(4096, 256), (256, 32000)], rounds)
    n_shapes = [(16, n) for n in ((100, 1000, 10_000, 100_000) if quick else (100, 1000, 10_000, 100_000, 1_000_000))]
    by_n = scaling(n_shapes, rounds, "n")
    b_shapes = [(b, 1000) for b in ((1, 64, 1024) if quick else (1, 16, 256, 4096))]
    by_batch = scaling(b_shapes, rounds, "batch")
    mem = memory_table([(4096, 256), (256, 32000)])
    took = time.perf_counter() - started
    load_after = os.getloadavg()[0]
    meta = (
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs, float32, "
        f"{'quick' if quick else 'full'} run ({rounds} interleaved rounds per table row group, {took:.0f} s), "
        f"{datetime.date.today()}, 1-min load average {load_before:.1f} before / {load_after:.1f} after"
    )
    return "\n".join(
        [
            "# Core benchmark: forward + backward",
            "",
            f"{meta}. Inputs: x ~ N(0, 1), upstream gradient g ~ N(0, 1). Each cell: median wall time of "
            "`f(x).backward(g)`; the candidates of one shape run interleaved in shuffled rounds, so the "
            "ratios compare like with like. entmax pkg = the public `entmax` package (sort-based "
            "sparsemax / entmax15, `entmax_bisect` for other alphas).",
            "",
            *fast,
            "## Against torch.softmax and the entmax package (eager path)",
            "",
            "Two interleaved groups per shape: softmax with probcore's four mappings (columns 3 to 6), then "
            "probcore's mappings with the package's (columns 7 and 8: the package's time, and its ratio to "
            "probcore's time in that group). The package stays out of the softmax group: its large "
            "temporaries, freed between calls, make the next allocations fault their pages in again, which "
            "slows softmax more than probcore and would flatter the ratios.",
            "",
            *head,
            "",
            "## Where the time goes",
            "",
            "Each stage timed on its own (interleaved with the other stages of its mapping and shape): the threshold "
            "(`threshold.threshold_candidates`, what the forward runs first: on wide rows the search for tau on "
            "the screened candidates; on short rows, solved whole, it includes p, written by the pass that "
            "certifies tau), the rest of the forward (wide rows: p scattered from the candidates; short rows: "
            "the renormalisation for a general alpha and autograd's bookkeeping), and the backward "
            "(`torch.autograd.grad` on a kept graph: on the candidates alone for wide rows, in 4 MB chunks on "
            "short ones). Stage sums differ a little from the table above (separate calls, their own cache state).",
            "",
            *staged,
            "",
            "## The thresholds alone (forward, no autograd)",
            "",
            "`probcore.threshold`'s fast thresholds against the sort-based references it keeps for the tests "
            "(bisection for general alpha), with torch.softmax's forward for scale; z = (alpha - 1) x. "
            "The public functions are timed, alpha given as a tensor: for a general alpha that is the log/exp "
            "Newton, while the forward with a float alpha runs the cheaper multiply-based one "
            "(`threshold_candidates`, in the stage table above). On short rows the fast sparsemax and entmax15 "
            "thresholds build p as well (the pass that certifies tau writes it).",
            "",
            *thr,
            "",
            "## Scaling with n (16 rows)",
            "",
            *by_n,
            "",
            "## Scaling with the batch (n = 1000)",
            "",
            *by_batch,
            "",
            "## Peak memory (one forward + backward)",
            "",
            "Extra resident memory at the peak of one call beyond its inputs, each candidate in a fresh "
            "process (after a warm-up call, `malloc_trim`, peak-RSS reset; VmHWM after minus VmRSS before). "
            "It counts what the OS had to supply, allocator slack included; one 4096 x 256 float32 tensor "
            "is 4 MB, one 256 x 32000 tensor 31.3 MB. The last column is the scratch probcore's threshold "
            "keeps between calls (a per-thread workspace, at most 16 MB per buffer; made by the warm-up "
            "call, so not in the peak).",
            "",
            *mem,
            "",
        ]
    )


def goals(rounds):
    """Issue 22's goals: softmax and the three default calls interleaved (the headline's first group)."""
    print(f"probcore {probcore.__file__}, {rounds} rounds, 1-min load average {os.getloadavg()[0]:.2f}")
    names = ["softmax", *(ours for _, ours, _, _ in MAPPINGS[:3])]
    for shape in ((4096, 256), (256, 32000)):
        t = interleaved(names, shape, rounds)
        print(
            f"{shape[0]} x {shape[1]}: softmax {ms(t['softmax'])} ms; "
            + "; ".join(
                f"{label} {ms(t[ours])} ms {t[ours] / t['softmax']:.2f}x (goal {limits[shape[1] >= 32000]}x)"
                for label, ours, _, limits in MAPPINGS[:3]
            )
        )
    print(f"1-min load average after: {os.getloadavg()[0]:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and sizes (about a minute)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "core.md"))
    parser.add_argument("--fused-only", action="store_true", help="rerun only the fused section of --out")
    parser.add_argument("--memory-probe", nargs=3, metavar=("NAME", "ROWS", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--goals", type=int, metavar="ROUNDS", help="only issue 22's goals, printed: ROUNDS rounds")
    parser.add_argument("--root", help="with --goals: the checkout whose probcore is measured")
    args = parser.parse_args()
    torch.set_num_threads(THREADS)
    if args.goals:
        goals(args.goals)
        return
    if args.memory_probe:
        name, rows, n = args.memory_probe
        print(*memory_probe(name, (int(rows), int(n))))
        return
    out = Path(args.out)
    text = fused_only(out, 3 if args.quick else 15) if args.fused_only else report(args.quick)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
