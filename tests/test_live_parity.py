"""The browser's maths (explorer/live/static/probcore.js) against probcore in float64.

Cases are generated here (every parameter over its range, ties, n = 2 to 1000, logit scales 1e-6 to
1e4, -inf masks), run through node in one process (explorer/live/parity_runner.mjs) and compared
with the numpy reference (mappings, losses) and the torch core (Jacobians, loss gradients, the loss
plane, the T / alpha sweeps). Tolerances: 1e-9 for closed forms, 1e-7 for the iterative and
quadrature ones (alpha-entmax's bisection, perturb-max, sweeps that hold them), absolute for
probabilities and Jacobians, relative to max(1, |value|) for losses and gradients. Parameter errors
must give probcore's message (up to the value's spelling after "got").
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

import probcore
from explorer import compute
from views.loss_landscape import compute as loss_landscape_compute
from views.simplex import figures as simplex_figures
from probcore import reference as R
from probcore.registry import MAPPINGS

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "explorer" / "live" / "parity_runner.mjs"
MODULE = ROOT / "explorer" / "live" / "static" / "probcore.js"
CLOSED, ITERATIVE = 1e-9, 1e-7
N_CASES = 10_000


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: scripts/test.sh installs Debian's nodejs")
    return node


def _encode(value):
    if isinstance(value, (np.ndarray, list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return "nan" if math.isnan(v) else "inf" if v == math.inf else "-inf" if v == -math.inf else v
    if isinstance(value, np.integer):
        return int(value)
    return value


def _decode(value):
    if isinstance(value, list):
        return np.array([_decode(v) for v in value], dtype=object if any(isinstance(v, list) for v in value) else float)
    return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(value, value) if isinstance(value, str) else value


def run_node(cases: list[dict], module: Path = MODULE, tmp: Path | None = None) -> list[dict]:
    """Each case {"fn", "args"} run by the browser module; {"value"} or {"error"} or {"crash"}."""
    path = (tmp or Path("/tmp")) / "live_parity_cases.json"
    path.write_text(json.dumps([{"fn": c["fn"], "args": _encode(c["args"])} for c in cases]))
    out = subprocess.run([_node(), str(RUNNER), str(path), str(module)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# ---------------------------------------------------------------- generated cases


def _logits(rng: np.random.Generator, n_max: int = 1000) -> np.ndarray:
    """n log-uniform in [2, n_max]; scale 1e-6..1e4; sometimes ties, -inf masks, an all-masked row."""
    n = int(np.clip(np.round(np.exp(rng.uniform(np.log(2), np.log(n_max + 0.5)))), 2, n_max))
    scale = 10.0 ** rng.uniform(-6, 4)
    x = rng.normal(0, 1, n) * scale
    if rng.random() < 0.25:  # ties: copies of a few values
        x = rng.choice(x[: max(1, n // 3)], n)
    if rng.random() < 0.1:
        x = np.round(x)  # integer logits, many equal
    if rng.random() < 0.2:
        x[rng.random(n) < rng.uniform(0.1, 0.6)] = -np.inf
        if rng.random() < 0.05:
            x[:] = -np.inf
    return x


def _temperature(rng) -> float:
    t = 10.0 ** rng.uniform(np.log10(0.05), np.log10(5.0))
    return float(-t if rng.random() < 0.15 else t)


def _finite_target(rng, x) -> int:
    live = np.flatnonzero(np.isfinite(x))
    return int(rng.choice(live)) if len(live) else 0


def mapping_cases(rng, count: int) -> list[dict]:
    """Mappings against probcore.reference: (fn, args, expected, tolerance)."""
    cases = []
    makers = [
        "softmax",
        "softmax_beta",
        "taylor_softmax",
        "sparse_softmax_k",
        "sparse_softmax_p",
        "sparsemax",
        "entmax15",
        "entmax",
        "perturbmax",
        "am_softmax",
        "smooth_max",
    ]
    for i in range(count):
        kind = makers[i % len(makers)]
        small = kind == "perturbmax"
        x = _logits(rng, 12 if small else 1000)
        T = _temperature(rng)
        tol = CLOSED
        if kind == "softmax":
            fn, args, ref = "softmax", [x, T], lambda x=x, T=T: R.softmax(x, T)
        elif kind == "softmax_beta":
            beta = float(rng.uniform(-5, 5))
            fn, args, ref = "softmax", [x, 1, beta], lambda x=x, b=beta: R.softmax(x, beta=b)
        elif kind == "taylor_softmax":
            order = int(rng.choice([2, 4, 6, 8]))
            fn, args, ref = "taylor_softmax", [x, order, T], lambda x=x, o=order, T=T: R.taylor_softmax(x, o, T)
        elif kind == "sparse_softmax_k":
            k = int(rng.integers(1, len(x) + 1))
            fn, args, ref = (
                "sparse_softmax",
                [x, k, None, T],
                lambda x=x, k=k, T=T: R.sparse_softmax(x, k=k, temperature=T),
            )
        elif kind == "sparse_softmax_p":
            top_p = float(rng.choice([rng.uniform(0.01, 1.0), 1.0, 0.5]))
            fn, args, ref = (
                "sparse_softmax",
                [x, None, top_p, T],
                lambda x=x, p=top_p, T=T: R.sparse_softmax(x, top_p=p, temperature=T),
            )
        elif kind in ("sparsemax", "entmax15"):
            fn, args, ref = kind, [x, T], lambda kind=kind, x=x, T=T: getattr(R, kind)(x, T)
        elif kind == "entmax":
            alpha = float(rng.choice([rng.uniform(0.1, 4.0), 1.0, 2.0, 1.0 + 1e-4 * rng.normal(), 1.5]))
            fn, args, ref, tol = "entmax", [x, alpha, T], lambda x=x, a=alpha, T=T: R.entmax(x, a, T), ITERATIVE
        elif kind == "perturbmax":
            noise = ("gumbel", "normal", "uniform", "logistic")[(i // len(makers)) % 4]
            fn, args, ref, tol = "perturbmax", [x, noise, T], lambda x=x, e=noise, T=T: R.perturbmax(x, e, T), ITERATIVE
        elif kind == "am_softmax":
            t = int(rng.integers(len(x)))
            m, s = float(rng.uniform(0, 1)), float(rng.uniform(1, 64))
            x = np.where(
                np.isfinite(x), np.clip(x / max(1.0, np.abs(x[np.isfinite(x)]).max(initial=1.0)), -1, 1), x
            )  # cosines
            fn, args, ref = "am_softmax", [x, t, m, s, T], lambda x=x, t=t, m=m, s=s, T=T: R.am_softmax(x, t, m, s, T)
        else:  # smooth_max: a value, T > 0
            T = abs(T)
            fn, args, ref = "smooth_max", [x, T], lambda x=x, T=T: R.smooth_max(x, T)
            cases.append(dict(fn=fn, args=args, expected=ref(), tol=tol, relative=True))
            continue
        cases.append(dict(fn=fn, args=args, expected=ref(), tol=tol, relative=False))
    return cases


def loss_cases(rng, count: int) -> list[dict]:
    """Losses against probcore.reference (relative tolerance); the target is never masked."""
    cases = []
    for i in range(count):
        kind = i % 7
        x = _logits(rng, 1000)
        if not np.isfinite(x).any():
            x[0] = 0.0
        t, T = _finite_target(rng, x), _temperature(rng)
        tol = CLOSED
        if kind == 0:
            fn, args, ref = "cross_entropy", [x, t, T], lambda x=x, t=t, T=T: R.cross_entropy(x, t, T)
        elif kind == 1:
            k = int(rng.integers(1, len(x) + 1))
            fn, args, ref = (
                "sparse_softmax_loss",
                [x, t, k, T],
                lambda x=x, t=t, k=k, T=T: R.sparse_softmax_loss(x, t, k, T),
            )
        elif kind == 2:
            fn, args, ref = "sparsemax_loss", [x, t, T], lambda x=x, t=t, T=T: R.sparsemax_loss(x, t, T)
        elif kind == 3:
            alpha = float(rng.choice([rng.uniform(0.1, 4.0), 1.0, 1.5, 2.0]))
            tol = CLOSED if alpha in (1.0, 2.0) else ITERATIVE
            fn, args, ref = "entmax_loss", [x, t, alpha, T], lambda x=x, t=t, a=alpha, T=T: R.entmax_loss(x, t, a, T)
        elif kind == 4:
            order = int(rng.choice([2, 4, 6, 8]))
            fn, args, ref = (
                "taylor_cross_entropy",
                [x, t, order, T],
                lambda x=x, t=t, o=order, T=T: R.taylor_cross_entropy(x, t, o, T),
            )
        elif kind == 5:
            c = np.where(np.isfinite(x), np.tanh(x), x)
            m, s = float(rng.uniform(0, 1)), float(rng.uniform(1, 64))
            fn, args, ref = (
                "am_softmax_loss",
                [c, t, m, s, T],
                lambda c=c, t=t, m=m, s=s, T=T: R.am_softmax_loss(c, t, m, s, T),
            )
        else:
            fn, args, ref = "neg_prob_loss", [x, t, T], lambda x=x, t=t, T=T: R.neg_prob_loss(x, t, T)
        with np.errstate(all="ignore"):
            expected = ref()
        if not np.isfinite(expected):  # e.g. Taylor p_t underflowing to 0 at 1e4: not a comparison of digits
            continue
        cases.append(dict(fn=fn, args=args, expected=expected, tol=tol, relative=True))
    return cases


LIVE_NAMES = ("softmax", "taylor_softmax", "sparse_softmax", "sparsemax", "entmax15", "entmax", "am_softmax")


def _kw(rng, name: str, n: int) -> dict:
    T = _temperature(rng)
    return {
        "softmax": {"temperature": T},
        "taylor_softmax": {"order": int(rng.choice([2, 4, 6])), "temperature": T},
        "sparse_softmax": {"k": int(rng.integers(1, n + 1)), "temperature": T},
        "sparsemax": {"temperature": T},
        "entmax15": {"temperature": T},
        "entmax": {"alpha": float(rng.uniform(0.2, 3.0)), "temperature": T},
        "am_softmax": {"margin": float(rng.uniform(0, 1)), "scale": float(rng.uniform(1, 40)), "temperature": abs(T)},
    }[name]


def jacobian_cases(rng, count: int) -> list[dict]:
    """probcore.jacobian (torch, float64) and the loss gradient by autograd (explorer.compute)."""
    cases = []
    for i in range(count):
        name = LIVE_NAMES[i % len(LIVE_NAMES)]
        n = int(rng.integers(2, 13 if i % 3 else 60))
        x = rng.normal(0, 1, n) * 10.0 ** rng.uniform(-3, 1.5)
        kw = _kw(rng, name, n)
        t = int(rng.integers(n))
        tol = ITERATIVE if name == "entmax" else CLOSED
        extra = {"target": torch.tensor(t)} if name == "am_softmax" else {}
        J = probcore.jacobian(name, torch.tensor(x), **kw, **extra).numpy()
        cases.append(dict(fn="jacobian", args=[name, x, kw, t], expected=J, tol=tol, relative=False))
        if name == "taylor_softmax" or (i // len(LIVE_NAMES)) % 2:  # gradients of half of them (all of Taylor's)
            grad = compute.loss_and_grad(name, tuple(x), compute.items(kw), t)[1]
            cases.append(dict(fn="loss_grad", args=[name, x, t, kw], expected=grad, tol=tol, relative=True))
    return cases


def path_cases(rng) -> list[dict]:
    """The Sweeps page's T and alpha paths and the loss plane, against explorer.compute (torch)."""
    cases = []
    for name in LIVE_NAMES:
        for _ in range(3):
            x = rng.normal(0, 2, int(rng.integers(2, 9)))
            kw = _kw(rng, name, len(x))
            rows = compute.temperature_sweep(name, tuple(x), compute.items(kw), 0, 0)
            cases.append(
                dict(fn="temperature_sweep", args=[name, x, kw, 0], expected=rows, tol=ITERATIVE, relative=False)
            )
            if name == "entmax":
                rows = compute.alpha_sweep(name, tuple(x), compute.items(kw), 0, 0)
                cases.append(
                    dict(fn="alpha_sweep", args=[name, x, kw, 0], expected=rows, tol=ITERATIVE, relative=False)
                )
        kw = _kw(rng, name, 3)
        radius, t = float(rng.uniform(1, 10)), int(rng.integers(3))
        loss, du, dv = loss_landscape_compute.loss_surface(name, compute.items(kw), t, radius, 9)
        tol = ITERATIVE if name == "entmax" else CLOSED
        cases.append(
            dict(
                fn="loss_surface",
                args=[name, kw, t, radius, 9],
                expected={"loss": loss, "du": du, "dv": dv},
                tol=tol,
                relative=True,
            )
        )
    return cases


def plane_cases(rng, count: int) -> list[dict]:
    """The Simplex view's plane coordinates (views.simplex.figures._plane) of probability vectors and of
    logits moved onto the plane sum = 1 (x - (sum x - 1) / 3), logit scales 1e-3 to 1e3."""
    cases = []
    for _ in range(count):
        p = rng.dirichlet(np.ones(3) * rng.choice([0.1, 1.0, 10.0]))
        cases.append(
            dict(fn="plane_coordinates", args=[p], expected=simplex_figures._plane(p)[0], tol=CLOSED, relative=False)
        )
        x = rng.normal(0, 1, 3) * 10.0 ** rng.uniform(-3, 3)
        cases.append(
            dict(
                fn="logits_on_plane",
                args=[x],
                expected=simplex_figures._plane(x - (x.sum() - 1) / 3)[0],
                tol=CLOSED,
                relative=True,
            )
        )
    return cases


UNDERFLOWS = [  # (name, x, kw): p > 0 exactly and 0 in float64 somewhere, or an exact 0 beside it
    ("softmax", [1.2, 0.3, -1000.0], {"temperature": 1.0}),
    ("softmax", [0.0, -1000.0, -2000.0, 5.0], {"temperature": 0.5}),
    ("taylor_softmax", [0.0, 1e100, -1e100], {"order": 2, "temperature": 1.0}),
    ("am_softmax", [0.9, -1.0, -math.inf], {"margin": 0.0, "scale": 1e4, "temperature": 1.0}),
    ("sparse_softmax", [5.0, 1.0, -900.0, -1000.0], {"k": 3, "temperature": 1.0}),
    ("sparse_softmax", [5.0, 1.0, -900.0, -1000.0], {"top_p": 1.0, "temperature": 1.0}),
    ("perturbmax", [0.0, -0.5, -1.0, -1000.0], {"noise": "uniform", "temperature": 1.0}),
    ("perturbmax", [0.0, -0.5, -1.0, -1000.0], {"noise": "gumbel", "temperature": 1.0}),
    ("perturbmax", [0.0, -0.5, -1.0, -1000.0], {"noise": "normal", "temperature": 1.0}),
    ("entmax", [1.2, 0.3, -1000.0], {"alpha": 1.01, "temperature": 1.0}),
    ("entmax", [0.0, -99.99, -200.0], {"alpha": 1.01, "temperature": 1.0}),  # 1e-4^100: > 0, rounds to 0
    ("entmax", [1.2, 0.3, -1000.0], {"alpha": 0.5, "temperature": 1.0}),
    ("sparsemax", [1.2, 0.3, -1000.0], {"temperature": 1.0}),
    ("sparsemax", [1.0, 0.0, 0.0], {"temperature": 1.0}),  # ties on the threshold: off the support
    ("entmax15", [1.2, 0.3, -1000.0], {"temperature": 1.0}),
    ("entmax", [1.0, 1.0, -math.inf, 0.0, 0.0], {"alpha": 2.0, "temperature": 1.0}),
]


def positive_cases(rng, count: int) -> list[dict]:
    """probcore.js's positive_exactly (where p > 0 in exact arithmetic: a 0 there is an underflow) against
    explorer.compute.positive_exactly on every mapping the live views draw: UNDERFLOWS, then generated logits
    (ties, -inf masks) with a third spread by 1000, and each with its p from probcore.js."""
    names = (*LIVE_NAMES, "perturbmax")
    generated = []
    for i in range(count):
        name = names[i % len(names)]
        x = _logits(rng, 60)
        if i % 3 == 0:
            x = x * 1000 / max(1.0, np.abs(x[np.isfinite(x)]).max(initial=1.0))  # a spread of ~1000
        kw = _kw(rng, name, len(x)) if name != "perturbmax" else {"temperature": _temperature(rng)}
        if name == "sparse_softmax" and i % 2:
            kw = {"top_p": float(rng.uniform(0.05, 1.0)), "temperature": kw["temperature"]}
        if name == "perturbmax":
            kw["noise"] = ("gumbel", "normal", "uniform", "logistic")[(i // len(names)) % 4]
        if name == "entmax" and i % 4 == 0:
            kw["alpha"] = float(rng.choice([1.01, 2.0, 1.5, 1.0]))
        generated.append((name, x, kw))
    cases = []
    for name, x, kw in [*UNDERFLOWS, *generated]:
        with np.errstate(invalid="ignore"):  # an all -inf row: z - max z is NaN, nothing is positive
            expected = compute.positive_exactly(name, tuple(x), compute.items(kw)).astype(float)
        cases.append(dict(fn="positive_exactly", args=[name, x, kw], expected=expected, tol=0.0, relative=False))
    return cases


def error_cases() -> list[dict]:
    """Bad parameters: the same ValueError message as probcore (compared up to 'got')."""
    x = [1.0, 0.5, -0.5]
    bad = [
        ("softmax", [x, 0.0]),
        ("softmax", [x, math.inf]),
        ("softmax", [x, 2.0, 1.0]),
        ("softmax", [x, 1.0, math.inf]),
        ("taylor_softmax", [x, 3]),
        ("taylor_softmax", [x, 0]),
        ("sparse_softmax", [x, 0, None]),
        ("sparse_softmax", [x, 4, None]),
        ("sparse_softmax", [x, None, 0.0]),
        ("sparse_softmax", [x, None, 1.5]),
        ("sparse_softmax", [x, None, None]),
        ("sparse_softmax", [x, 2, 0.5]),
        ("entmax", [x, 0.0]),
        ("entmax", [x, -1.0]),
        ("entmax", [x, math.inf]),
        ("entmax", [x, 1.5, 1.0, 0]),
        ("perturbmax", [x, "cauchy"]),
        ("am_softmax", [x, 3]),
        ("am_softmax", [x, 0, -0.1]),
        ("am_softmax", [x, 0, 0.3, 0.0]),
        ("cross_entropy", [x, 5]),
        ("sparse_softmax_loss", [x, 0, 9]),
        ("sparsemax", [x, 0.0]),
    ]
    cases = []
    for fn, args in bad:
        with pytest.raises(ValueError) as err:
            getattr(R, fn)(*args)
        cases.append(dict(fn=fn, args=args, expected=str(err.value), tol=None, relative=False))
    return cases


def all_cases() -> list[dict]:
    rng = np.random.default_rng(21)
    cases = error_cases() + path_cases(rng) + plane_cases(rng, 50) + jacobian_cases(rng, 700) + loss_cases(rng, 2400)
    return cases + mapping_cases(rng, N_CASES - len(cases) + 300) + positive_cases(np.random.default_rng(23), 800)


def mismatch(case: dict, result: dict) -> str | None:
    """Why the browser's result differs from probcore's, None if it agrees."""
    if "crash" in result:
        return f"crashed: {result['crash'][:300]}"
    if case["tol"] is None:  # an error case
        if "error" not in result:
            return "no error"
        same = result["error"].split(", got")[0] == case["expected"].split(", got")[0]
        return None if same else f"message {result['error']!r} != {case['expected']!r}"
    if "error" in result:
        return f"error {result['error']}"
    expected, got = case["expected"], result["value"]
    if isinstance(expected, dict):
        return next((f"{k}: {why}" for k in expected if (why := _differ(expected[k], got[k], case)) is not None), None)
    return _differ(expected, got, case)


def _differ(expected, got, case) -> str | None:
    e = np.asarray(expected, dtype=float)
    g = np.asarray(_decode(got) if isinstance(got, list) else _decode(got), dtype=float)
    if np.isnan(g).any() and not np.isnan(e).any():
        return "NaN"
    if e.shape != g.shape:
        return f"shape {g.shape} != {e.shape}"
    if (np.isinf(e) != np.isinf(g)).any():
        return "inf pattern differs"
    e, g = np.where(np.isfinite(e), e, 0.0), np.where(np.isfinite(g), g, 0.0)
    scale = np.maximum(1.0, np.abs(e)) if case["relative"] else 1.0
    err = float(np.max(np.abs(g - e) / scale, initial=0.0))
    return None if err <= case["tol"] else f"error {err:.3g} > {case['tol']:g}"


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return all_cases()


@pytest.mark.slow  # node over the ~10,000 generated cases
def test_browser_maths_matches_probcore(cases, tmp_path):
    assert len(cases) >= N_CASES
    results = run_node(cases, tmp=tmp_path)
    bad = [(c["fn"], why) for c, r in zip(cases, results) if (why := mismatch(c, r)) is not None]
    assert not bad, f"{len(bad)} of {len(cases)} cases differ, e.g. {bad[:5]}"
    kinds = {c["fn"] for c in cases}
    assert {
        "softmax",
        "taylor_softmax",
        "sparse_softmax",
        "sparsemax",
        "entmax15",
        "entmax",
        "perturbmax",
        "am_softmax",
        "jacobian",
        "loss_grad",
        "loss_surface",
        "temperature_sweep",
        "alpha_sweep",
        "cross_entropy",
        "plane_coordinates",
        "logits_on_plane",
        "positive_exactly",
    } <= kinds


def _server_underflows(name: str, x: list, kw: dict) -> list[bool]:
    """explorer.compute.underflows of a case of UNDERFLOWS at probcore's p (its reference, target 0)."""
    assert (name, x, kw) in UNDERFLOWS
    extra = {"target": 0} if MAPPINGS[name].needs_target else {}
    p = MAPPINGS[name].reference(np.array(x), **kw, **extra)
    return compute.underflows(name, tuple(x), compute.items(kw), p).tolist()


def test_the_underflow_cases_hold_underflows_and_exact_zeros():
    """UNDERFLOWS hold what they are there for: a p computed as 0 though > 0 (softmax spread by 1000, a kept
    top-k class at -900, alpha-entmax at 1.01) and exact zeros, not underflows (sparsemax, uniform perturb-max)."""
    T = {"temperature": 1.0}
    assert _server_underflows("softmax", [1.2, 0.3, -1000.0], T) == [False, False, True]
    assert _server_underflows("sparse_softmax", [5.0, 1.0, -900.0, -1000.0], {"k": 3, **T}) == [
        False,
        False,
        True,
        False,
    ]
    assert _server_underflows("entmax", [0.0, -99.99, -200.0], {"alpha": 1.01, **T}) == [False, True, False]
    assert not any(_server_underflows("sparsemax", [1.2, 0.3, -1000.0], T))
    assert R.sparsemax([1.2, 0.3, -1000.0])[2] == 0
    assert not any(_server_underflows("perturbmax", [0.0, -0.5, -1.0, -1000.0], {"noise": "uniform", **T}))


def test_top_k_ties_at_the_cut_are_kept_as_the_kernel_kept_them():
    """Logits tied at top-k's cut: which of them are in Omega is the kernel's choice (torch.topk's
    order, not a stable sort); a tied class left out (p = 0) is not an underflow, a kept tied class whose
    p underflowed is, and the count of underflows is the same whichever tied class was kept."""
    T = {"temperature": 1.0}
    for x, k, underflowed in (
        ([0.0, 1.0, 0.0, 0.0], 2, 0),
        ([0.0, 1.0, 0.0, 0.0], 3, 0),
        ([0.3] * 5, 2, 0),
        ([2.0, 0.5, 0.5, 0.5, -1.0], 3, 0),
        ([1000.0, 0.0, 0.0], 2, 1),
        ([0.0, 1000.0, 0.0, 0.0], 3, 2),
    ):
        kw = compute.items({"k": k, **T})
        p = compute.probabilities("sparse_softmax", tuple(x), kw, 0)
        under = compute.underflows("sparse_softmax", tuple(x), kw, p)
        assert int(under.sum()) == underflowed, (x, k, p, under)
        assert int((p > 0).sum() + under.sum()) == k, (x, k, p, under)  # the support: k classes


@pytest.mark.slow  # the ~10,000 generated cases (about 5 s)
def test_cases_cover_the_ranges(cases):
    """The generated logits reach n = 2 and n near 1000, scales 1e-6 and 1e4, ties and -inf masks."""
    vectors = [np.asarray(c["args"][0], dtype=float) for c in cases if c["fn"] in ("softmax", "sparsemax", "entmax")]
    ns = [len(x) for x in vectors]
    scales = [np.abs(x[np.isfinite(x)]).max(initial=0) for x in vectors]
    assert min(ns) == 2 and max(ns) >= 800
    assert min(s for s in scales if s > 0) < 1e-5 and max(scales) > 1e4
    assert any(np.isneginf(x).any() for x in vectors) and any(np.isneginf(x).all() for x in vectors)
    assert any(len(np.unique(x)) < len(x) for x in vectors)
    noises = {c["args"][1] for c in cases if c["fn"] == "perturbmax" and c["tol"] is not None}
    assert noises == {"gumbel", "normal", "uniform", "logistic"}


MUTATIONS = [  # one small change to one formula each: the parity test must see it
    ("(s - 1) / (i + 1)", "(s - 1.000001) / (i + 1)"),  # sparsemax's threshold
    ("scaled(x, temperature).map((v) => v / 2)", "scaled(x, temperature).map((v) => v / 2.0001)"),  # 1.5-entmax's z / 2
    ("(2 / Math.sqrt(Math.PI)) * Math.exp(-a * a)", "(2 / Math.sqrt(Math.PI)) * Math.exp(-a * a * 1.00001)"),  # erf
    ("c * ((i === j ? w[i] : 0) - p[i] * w[j])", "c * ((i === j ? w[i] : 0) - p[j] * w[i])"),  # Taylor's Jacobian
]


@pytest.mark.slow  # node over the cases, once per changed formula
@pytest.mark.parametrize("before,after", MUTATIONS)
def test_a_changed_formula_fails_parity(cases, tmp_path, before, after):
    source = MODULE.read_text()
    assert source.count(before) == 1
    mutated = tmp_path / "probcore.js"
    mutated.write_text(source.replace(before, after))
    kinds: dict = {}
    for c in cases:  # 1 in 8 of each function (and of each noise)
        kinds.setdefault((c["fn"], c["args"][1] if c["fn"] == "perturbmax" else None), []).append(c)
    subset = [c for group in kinds.values() for c in group[::8]]
    results = run_node(subset, module=mutated, tmp=tmp_path)
    bad = [c["fn"] for c, r in zip(subset, results) if mismatch(c, r) is not None]
    assert bad, f"the mutation {after!r} went unnoticed"
