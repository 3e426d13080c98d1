"""Differential property suite (hypothesis): probcore against itself in float64 (the same, rounded
logits), its numpy reference, torch and the entmax package, over float16 / bfloat16 / float32 /
float64, 3-D tensors mapped along every dim, n = 1..300, scales 1e-6..3e4, ties, masks, fully
masked rows, per-row alpha tensors, alpha in (0, 1) and near 1; the losses' gradient
(p - onehot) / T; gradcheck in float64. Derandomized, so CI sees the same cases every run.

Tolerances (|p - p_float64| per entry; losses relative to 1 + |L|), each measured and bounded:
- float16 / bfloat16: computed in float32 and cast back, so p is off by at most its rounding to
  the dtype, eps(dtype) / 2 (relative; p <= 1): tolerance eps(dtype).
- float32, every mapping and alpha <= 2: 1e-6 (measured: at most 2.8e-7 over alpha in
  [0.05, 2.5] and scales up to 3e4; x - max x is taken before any scaling, so the digits do not
  depend on the scale).
- alpha > 2: p = d^(1 / (alpha - 1)) with d the distance to the threshold is only Hoelder
  continuous at the support's edge (q = 1 / (alpha - 1) < 1): a rounding of d by c eps moves p by
  up to (c eps)^q. Tolerance (64 eps)^q, in float32 and in float64 alike (alpha = 4, float32:
  measured 6.9e-3 at scale 1e-6, n = 300, against 1.6e-2 allowed; the entmax package's own
  float32 entmax_bisect is off by 1.3e-5 where probcore is 4e-7 at alpha = 4, scale 3, n = 6 and
  worse at the edge, see test_entmax_package_float32_is_no_better_at_alpha_4).
- float64 against the numpy reference and the package (both bisection in float64): 1e-10 for
  alpha <= 2, the Hoelder bound above beyond.
"""

from __future__ import annotations

import math

import entmax as entmax_pkg
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import probcore as pc
from probcore import losses as L
from probcore import reference as R

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
SCALES = (1e-6, 1e-3, 0.1, 1.0, 10.0, 300.0, 3e4)
ALPHAS = st.one_of(
    st.sampled_from([0.05, 0.3, 0.5, 0.9, 0.999, 1.0, 1 + 1e-5, 1.001, 1.1, 1.25, 1.5, 1.7, 2.0, 2.5, 3.0, 4.0]),
    st.floats(0.05, 4.0),
)


def edge_tolerance(alpha, dtype):
    """(64 eps)^(1 / (alpha - 1)) for alpha > 2 (Hoelder at the support's edge), else 0."""
    return (64 * torch.finfo(dtype).eps) ** (1 / (alpha - 1)) if alpha > 2 else 0.0


def tolerance(dtype, alpha=1.0):
    """Allowed |p - p_float64| of probcore in ``dtype`` (see the module docstring)."""
    edge = edge_tolerance(alpha, torch.float32 if dtype != torch.float64 else torch.float64)
    base = {
        torch.float16: torch.finfo(torch.float16).eps,
        torch.bfloat16: torch.finfo(torch.bfloat16).eps,
        torch.float32: 1e-6,
        torch.float64: 1e-10,
    }[dtype]
    return max(base, edge) + (1e-6 if dtype in (torch.float16, torch.bfloat16) else 0)


@st.composite
def logits(draw, max_n=300, mask=True):
    """(x float64 of shape 3-D, dim): x is what probcore gets, already rounded to ``dtype`` where
    the test casts it. Ties (entries on a coarse grid), masked entries and fully masked rows."""
    n = draw(st.integers(1, max_n))
    dim = draw(st.integers(-3, 2))
    shape = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    shape.insert(dim % 3, n)
    scale = draw(st.sampled_from(SCALES))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    x = torch.randn(shape, generator=g, dtype=torch.float64) * scale
    if draw(st.booleans()):  # ties: a grid of 4 steps per unit of the scale
        x = torch.round(x / scale * 4) * scale / 4
    kind = draw(st.sampled_from(["none", "some", "row"])) if mask else "none"
    if kind != "none":
        x = x.masked_fill(torch.rand(shape, generator=g, dtype=torch.float64) < 0.3, -math.inf)
    if kind == "row":  # one fully masked row
        index = [0, 0, 0]
        index[dim % 3] = slice(None)
        x[tuple(index)] = -math.inf
    return x, dim


def rounded(x, dtype):
    """x in dtype (float16: clamped to its range, +-6e4), and the same values in float64."""
    if dtype == torch.float16:
        x = x.clamp(min=-6e4, max=6e4).masked_fill(torch.isneginf(x), -math.inf)
    xd = x.to(dtype)
    return xd, xd.double()


def rows(x, dim):
    """The 1-D rows of x along dim, as numpy arrays, with their index in x.movedim(dim, -1)."""
    moved = x.movedim(dim, -1)
    return [(index, moved[index].numpy()) for index in np.ndindex(*moved.shape[:-1])]


def close(a, b, tol, what=""):
    """Every entry within tol; NaN where the other is NaN."""
    a, b = a.double(), b.double()
    assert torch.equal(torch.isnan(a), torch.isnan(b)), what
    err = (a - b).nan_to_num(0.0).abs().max().item() if a.numel() else 0.0
    assert err <= tol, f"{what}: max error {err:.3g} > {tol:.3g}"


MAPPINGS = {
    "softmax": lambda x, dim, a: pc.softmax(x, dim=dim, temperature=0.7),
    "softmin": lambda x, dim, a: pc.softmax(x, dim=dim, beta=-1.3),
    "sparsemax": lambda x, dim, a: pc.sparsemax(x, dim=dim),
    "entmax15": lambda x, dim, a: pc.entmax15(x, dim=dim, temperature=1.3),
    "entmax": lambda x, dim, a: pc.entmax(x, alpha=a, dim=dim),
}


@pytest.mark.slow
@SETTINGS
@given(logits(), st.lists(ALPHAS, min_size=1, max_size=3))
def test_every_dtype_against_float64(case, alphas):
    """Every dtype, every mapping (entmax at each of the drawn alphas) on the same logits."""
    x, dim = case
    for dtype in DTYPES:
        xd, x64 = rounded(x, dtype)
        live = ~torch.isneginf(x64).all(dim, keepdim=True)
        for name, alpha in [(name, 1.0) for name in MAPPINGS if name != "entmax"] + [("entmax", a) for a in alphas]:
            p = MAPPINGS[name](xd, dim, alpha)
            assert p.dtype == dtype and p.shape == x.shape
            close(p, MAPPINGS[name](x64, dim, alpha), tolerance(dtype, alpha), f"{name} {dtype} alpha={alpha}")
            sums = p.double().sum(dim, keepdim=True)
            # sums to 1 up to the rounding of each p to the dtype; masked entries and rows exactly 0
            assert ((sums - 1).abs()[live] <= x.shape[dim] * tolerance(dtype) + 1e-6).all(), (name, dtype)
            assert (sums[~live] == 0).all() and (p[torch.isneginf(xd)] == 0).all(), (name, dtype)


@SETTINGS
@given(logits(max_n=60), ALPHAS, st.sampled_from([0.5, 1.0, -2.0]))
def test_float64_against_the_numpy_reference(case, alpha, temperature):
    x, dim = case
    tol = tolerance(torch.float64, alpha)
    ours = {
        "softmax": (pc.softmax(x, dim=dim, temperature=temperature), lambda v: R.softmax(v, temperature)),
        "sparsemax": (pc.sparsemax(x, dim=dim, temperature=temperature), lambda v: R.sparsemax(v, temperature)),
        "entmax15": (pc.entmax15(x, dim=dim, temperature=temperature), lambda v: R.entmax15(v, temperature)),
        "entmax": (
            pc.entmax(x, alpha=alpha, dim=dim, temperature=temperature),
            lambda v: R.entmax(v, alpha, temperature),
        ),
    }
    for name, (p, reference) in ours.items():
        moved = p.movedim(dim, -1)
        for index, row in rows(x, dim):
            np.testing.assert_allclose(
                moved[index].numpy(), reference(row), atol=tol, rtol=0, err_msg=f"{name} alpha={alpha}"
            )


@SETTINGS
@given(logits(max_n=80), ALPHAS)
def test_per_row_alpha_tensors(case, alpha):
    """One alpha per row (the package's layout: size 1 along dim) equals the float alpha row by row."""
    x, dim = case
    moved = x.movedim(dim, -1)
    spread = torch.linspace(0.5, 1.5, moved[..., :1].numel(), dtype=torch.float64).reshape(moved.shape[:-1] + (1,))
    alphas = (alpha * spread).clamp(min=0.05)
    p = pc.entmax(x, alpha=alphas.movedim(-1, dim), dim=dim).movedim(dim, -1)
    for index in np.ndindex(*moved.shape[:-1]):
        a = alphas[index].item()
        close(p[index], pc.entmax(moved[index], alpha=a), tolerance(torch.float64, a), f"alpha={a}")


@SETTINGS
@given(logits(max_n=100), ALPHAS)
def test_against_the_entmax_package(case, alpha):
    x, dim = case
    live = ~torch.isneginf(x).all(dim, keepdim=True)  # the package gives NaN on fully masked rows
    x = x.masked_fill(~live, 0.0)
    tol = 10 * tolerance(torch.float64, alpha)
    close(pc.sparsemax(x, dim=dim), entmax_pkg.sparsemax(x, dim=dim), 1e-10, "sparsemax")
    close(pc.entmax15(x, dim=dim), entmax_pkg.entmax15(x, dim=dim), 1e-10, "entmax15")
    close(
        pc.entmax(x, alpha=alpha, dim=dim),
        entmax_pkg.entmax_bisect(x, alpha=alpha, dim=dim, n_iter=100),
        tol,
        f"entmax alpha={alpha}",
    )


@SETTINGS
@given(logits(), st.sampled_from(DTYPES))
def test_against_torch(case, dtype):
    x, dim = case
    xd, x64 = rounded(x, dtype)
    live = ~torch.isneginf(x64).all(dim, keepdim=True)
    expected = torch.softmax(x64 / 0.7, dim).masked_fill(~live, 0)  # torch: NaN on fully masked rows
    softmax_at_1 = torch.softmax(x64, dim).masked_fill(~live, 0)
    close(pc.softmax(xd, dim=dim, temperature=0.7), expected, tolerance(dtype), "softmax")
    close(pc.sparse_softmax(xd, k=x.shape[dim], dim=dim), softmax_at_1, tolerance(dtype), "top-n")
    close(pc.entmax(xd, alpha=1.0, dim=dim), pc.softmax(xd, dim=dim), 0.0, "alpha = 1")
    if dtype in (torch.float32, torch.float64):
        near = pc.entmax(xd, alpha=1 + 1e-6, dim=dim)
        close(near, softmax_at_1, tolerance(dtype) + 1e-5, "alpha = 1 + 1e-6")


FY_LOSSES = {
    "cross_entropy": lambda x, t, T, a, **kw: L.cross_entropy(x, t, temperature=T, **kw),
    "sparsemax_loss": lambda x, t, T, a, **kw: L.sparsemax_loss(x, t, temperature=T, **kw),
    "entmax_loss": lambda x, t, T, a, **kw: L.entmax_loss(x, t, alpha=a, temperature=T, **kw),
}
FY_MAPPINGS = {
    "cross_entropy": lambda x, T, a: pc.softmax(x, dim=1, temperature=T),
    "sparsemax_loss": lambda x, T, a: pc.sparsemax(x, dim=1, temperature=T),
    "entmax_loss": lambda x, T, a: pc.entmax(x, alpha=a, dim=1, temperature=T),
}


@pytest.mark.slow
@SETTINGS
@given(logits(), ALPHAS, st.sampled_from([1.0, 0.5, 3.0, -1.5]), st.integers(0, 2**31 - 1))
def test_losses_gradient_is_p_minus_onehot_over_T(case, alpha, temperature, seed):
    """Every dtype and Fenchel-Young loss; class dim 1 (the losses' layout); a random target among
    the unmasked classes; fully masked rows are ignored (ignore_index). Gradient = (p - onehot) / T
    with p the mapping's own p, and value and gradient within the dtype's tolerance of float64 on
    the same logits."""
    x, dim = case
    x = x.movedim(dim, 1)
    dead = torch.isneginf(x).all(1)
    weights = (~torch.isneginf(x)).double().movedim(1, -1).reshape(-1, x.shape[1])
    weights[dead.reshape(-1)] = 1
    target = torch.multinomial(weights, 1, generator=torch.Generator().manual_seed(seed)).reshape(dead.shape)
    target = target.masked_fill(dead, -100)
    for dtype in DTYPES:
        for name in FY_LOSSES:
            check_loss(x, target, dead, dtype, name, alpha, temperature)


def check_loss(x, target, dead, dtype, name, alpha, temperature):
    xd, x64 = rounded(x, dtype)
    results = []
    for xx in (xd, x64):
        xx = xx.clone().requires_grad_(True)
        value = FY_LOSSES[name](xx, target, temperature, alpha, reduction="none")
        value.sum().backward()
        results.append((value, xx.grad))
    (value, grad), (value64, grad64) = results
    tol = tolerance(dtype, alpha if name == "entmax_loss" else 1.0)
    representable = value64.abs() <= torch.finfo(dtype).max  # (a float16 loss above 65504 is inf)
    assert value.dtype == dtype and torch.isfinite(value[representable]).all() and torch.isfinite(grad).all()
    value, value64 = value[representable], value64[representable]
    err = ((value.double() - value64).abs() / (1 + value64.abs())).max().item() if value.numel() else 0
    assert err <= tol, f"{name} value {dtype}: {err:.3g}"
    close(grad, grad64, tol / abs(temperature), f"{name} gradient {dtype}")
    p = FY_MAPPINGS[name](x64, temperature, alpha)
    onehot = torch.nn.functional.one_hot(target.clamp(min=0), x.shape[1]).movedim(-1, 1).to(p.dtype)
    expected = ((p - onehot) / temperature).masked_fill(dead.unsqueeze(1), 0)
    close(grad64, expected, 1e-12, f"{name}: (p - onehot) / T")


@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(st.integers(1, 6), st.integers(0, 2**31 - 1), st.floats(0.05, 3.0), st.sampled_from([0.6, 1.0, -1.4]))
def test_gradcheck_float64(n, seed, alpha, temperature):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2, n, generator=g, dtype=torch.float64, requires_grad=True)
    a = torch.full((2, 1), alpha, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, b: pc.entmax(v, alpha=b, temperature=temperature), (x, a))
    assert torch.autograd.gradcheck(lambda v: pc.sparsemax(v, temperature=temperature), (x,))
    t = torch.randint(0, n, (2,), generator=g)
    for loss in (
        lambda v: L.entmax_loss(v, t, alpha=alpha, temperature=temperature),
        lambda v: L.cross_entropy(v, t, temperature=temperature),
    ):
        assert torch.autograd.gradcheck(loss, (x,))


def test_entmax_package_float32_is_no_better_at_alpha_4():
    """The measurement behind the alpha > 2 tolerance: float32 against float64 on the same logits,
    probcore and the package side by side (a fixed case: scale 3, 64 rows of 6)."""
    x = 3 * torch.randn(64, 6, generator=torch.Generator().manual_seed(0))
    exact = pc.entmax(x.double(), alpha=4.0)
    ours = (pc.entmax(x, alpha=4.0).double() - exact).abs().max().item()
    theirs = (entmax_pkg.entmax_bisect(x, alpha=4.0).double() - exact).abs().max().item()
    assert ours <= edge_tolerance(4.0, torch.float32) and ours <= theirs
