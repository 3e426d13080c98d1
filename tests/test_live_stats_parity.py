"""Compare's statistics table drawn in the browser (explorer/live/static/stats.js) against the server's
(views.compare.compute.statistics_row): every cell string equal but for :func:`same_cell`'s allowances (rows of :func:`tied_at_the_cut`: the support alone),
over generated cases (every live mapping, its parameters across their slider ranges, targets, n = 2 to
30, logits on the 0.05 grid at scales 0.1 to 1e3, underflows: logits hundreds apart), and the number formats (Python's .4f, .6f and .3g, ties
to even) over values that JS's own formatting writes otherwise. Run with node
(explorer/live/parity_runner.mjs) on probcore.js + stats.js, the module Compare's view is made of.
"""

from __future__ import annotations

import numpy as np
import pytest

from pathlib import Path

import views.registry  # noqa: F401  (the pages' strings: compare.support_underflow)
from explorer import compute
from explorer.i18n import t
from probcore.registry import MAPPINGS
from tests.test_live_parity import run_node
from views.compare import compute as compare_compute

pytestmark = pytest.mark.slow  # node over 600 rows and 1000 numbers in 3 formats, ~10 s

STATIC = Path(__file__).resolve().parents[1] / "explorer" / "live" / "static"
SUPPORT_WORDS = t("compare.support_underflow", support="{support}", under="{under}")  # as the view gets it
CELLS = ("support", "entropy", "max_p", "sum", "loss", "grad")


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """probcore.js and stats.js as one module (explorer.live joins them so for Compare's view)."""
    path = tmp_path_factory.mktemp("stats") / "stats_module.mjs"
    path.write_text((STATIC / "probcore.js").read_text() + "\n" + (STATIC / "stats.js").read_text())
    return path


def _params(rng: np.random.Generator, name: str, n: int) -> dict:
    """The controls' values of a mapping's parameters, drawn over the sliders' ranges."""
    T = float(np.round(10.0 ** rng.uniform(np.log10(0.05), np.log10(5.0)), 2))
    return {
        "softmax": lambda: (
            {"temperature": T, "beta": None}
            if rng.random() < 0.7
            else {"temperature": 1.0, "beta": float(np.round(rng.uniform(-5, 5), 2))}
        ),
        "taylor_softmax": lambda: {"order": int(rng.choice([2, 4, 6, 8])), "temperature": T},
        "sparse_softmax": lambda: (
            {"k": int(rng.integers(1, n + 1)), "top_p": None, "temperature": T}
            if rng.random() < 0.7
            else {"top_p": float(np.round(rng.uniform(0.05, 1.0), 2)), "temperature": T}
        ),
        "sparsemax": lambda: {"temperature": T},
        "entmax15": lambda: {"temperature": T},
        "entmax": lambda: {"alpha": float(np.round(rng.uniform(0.1, 4.0), 2)), "temperature": T},
        "perturbmax": lambda: {"noise": str(rng.choice(["gumbel", "normal", "uniform", "logistic"])), "temperature": T},
        "am_softmax": lambda: {
            "margin": float(np.round(rng.uniform(0, 1), 2)),
            "scale": float(np.round(rng.uniform(1, 64), 1)),
        },
    }[name]()


def _logits(rng: np.random.Generator) -> np.ndarray:
    """n in 2..30 (more than 8: the gradient is cut and its norm given), logits on the handles' 0.05 grid
    at scales 0.1..1000 (hundreds apart: p of softmax underflows), sometimes ties."""
    n = int(rng.choice([2, 3, 4, 5, 8, 9, 12, 30]))
    x = np.round(rng.normal(0, 1, n) * 10.0 ** rng.uniform(-1, 3) / 0.05) * 0.05
    if rng.random() < 0.2:
        x = rng.choice(x[: max(1, n // 2)], n)
    if rng.random() < 0.2:  # one class far below: an underflow for the dense mappings
        x[rng.integers(n)] = x.max() - float(rng.choice([750.0, 800.0, 1000.0]))
    return x


def stats_cases(rng: np.random.Generator, count: int) -> list[tuple[str, np.ndarray, dict, int]]:
    names = [name for name in MAPPINGS if name != "gumbel_softmax"]  # a seeded sample: the server's table
    cases = []
    for i in range(count):
        name = names[i % len(names)]
        x = _logits(rng)
        kwargs = MAPPINGS[name].validate(n=len(x), **_params(rng, name, len(x)))
        cases.append((name, x, kwargs, int(rng.integers(len(x)))))
    return cases


def server_row(name: str, x: np.ndarray, kwargs: dict, target: int) -> dict[str, str]:
    """The server's cells (views/compare/page.py statistics: p and underflows as the page computes them)."""
    xs, kw = tuple(float(v) for v in x), compute.items(kwargs)
    p = compute.probabilities(name, xs, kw, target)
    return compare_compute.statistics_row(name, xs, kw, target, p, compute.underflows(name, xs, kw, p))


def tied_at_the_cut(name: str, x: np.ndarray, kwargs: dict) -> bool:
    """Top-k / top-p softmax with equal logits across its cut: which of them it keeps is each kernel's own
    tie-break (probcore's torch kernel and probcore.js differ): p, the loss and its gradient may
    differ there; the support may not (explorer.compute.underflows counts the tied classes as p kept them)."""
    if name != "sparse_softmax":
        return False
    kept = np.flatnonzero(compute.positive_exactly(name, tuple(x), compute.items(kwargs)))
    out = np.setdiff1d(np.arange(len(x)), kept)
    return bool(len(out)) and bool(np.isin(x[out], x[kept]).any())


def same_cell(cell: str, browser: str, server: str, name: str) -> bool:
    """Equal strings; but a gradient entry below 1e-12 may differ (autograd and the closed form round
    differently at that size: 3.56e-18 against 4.52e-18), and perturb-max's count of p rounded to 0 (its
    quadrature against the torch kernel, p < 1e-300) where the support itself agrees."""
    if browser == server:
        return True
    if cell == "grad" and browser.count(",") == server.count(","):
        entries = zip(browser.strip("[]").split(", "), server.strip("[]").split(", "))
        return all(a == b or (abs(float(a)) < 1e-12 and abs(float(b)) < 1e-12) for a, b in entries)
    return cell == "support" and name == "perturbmax" and browser.split()[0] == server.split()[0]


def test_the_browser_table_writes_the_server_table_cell_for_cell(module, tmp_path):
    """600 generated rows: each cell the browser writes is the server's string (:func:`same_cell`; rows of
    :func:`tied_at_the_cut` compared on the support alone, at most a tenth of them), and the cases reach the underflow
    marking, gradients cut after 8 entries, mappings without a loss and every live mapping."""
    cases = stats_cases(np.random.default_rng(26), 600)
    results = run_node(
        [{"fn": "statistics_row", "args": [name, x, kw, target, SUPPORT_WORDS]} for name, x, kw, target in cases],
        module,
        tmp_path,
    )
    wrong, reached, tied = [], set(), 0
    for (name, x, kw, target), result in zip(cases, results):
        assert "value" in result, (name, kw, result)
        browser, server = result["value"], server_row(name, x, kw, target)
        if tied_at_the_cut(name, x, kw):  # the support still agrees: the same number of tied classes kept
            tied += 1
            if browser["support"] != server["support"]:
                wrong.append((name, kw, target, list(x), "support", browser["support"], server["support"]))
            continue
        for cell in CELLS:
            if not same_cell(cell, browser[cell], server[cell], name):
                wrong.append((name, kw, target, list(x), cell, browser[cell], server[cell]))
        if name != "perturbmax" and browser["underflow"] != ("rounded to 0" in server["support"]):
            wrong.append((name, kw, target, list(x), "underflow note", browser["underflow"], server["support"]))
        if browser["no_loss"] != (server["loss"] == "—"):
            wrong.append((name, kw, target, list(x), "no-loss note", browser["no_loss"], server["loss"]))
        reached.add(name)
        reached |= {"underflow"} if "rounded to 0" in server["support"] else set()
        reached |= {"cut gradient"} if "‖·‖₂" in server["grad"] else set()
        reached |= {"no loss"} if server["loss"] == "—" else set()
    assert not wrong, f"{len(wrong)} cells differ, e.g. {wrong[:5]}"
    assert tied <= len(cases) // 10
    assert reached >= {*(n for n in MAPPINGS if n != "gumbel_softmax"), "underflow", "cut gradient", "no loss"}


def test_numbers_are_written_as_python_writes_them(module, tmp_path):
    """.4f, .6f and .3g as Python's format: exact ties to even (JS's toFixed takes the larger), -0, carries
    (9.9995 -> 10.0000), the exponent's sign and two digits, and random values at every scale."""
    rng = np.random.default_rng(7)
    values = [0.0, -0.0, 0.03125, 0.125, 1.125, 2.5, 9.9995, 999.5, 1234.5, -0.875, 1e-5, 1.5e-5, 1e-17, -1.11e-16]
    values += [k / 64 for k in range(-100, 100)] + [k / 2**20 for k in range(0, 2000, 7)]
    values += list(rng.standard_normal(500) * 10.0 ** rng.integers(-8, 5, 500))
    cases = [
        {"fn": fn, "args": [v, d]} for v in values for fn, d in (("py_fixed", 4), ("py_fixed", 6), ("py_general", 3))
    ]
    results = run_node(cases, module, tmp_path)
    expected = [
        f"{v:.4f}" if (fn, d) == ("py_fixed", 4) else f"{v:.6f}" if fn == "py_fixed" else f"{v:.3g}"
        for v in values
        for fn, d in (("py_fixed", 4), ("py_fixed", 6), ("py_general", 3))
    ]
    wrong = [(c["args"], r, e) for c, r, e in zip(cases, results, expected) if r.get("value") != e]
    assert not wrong, wrong[:10]
