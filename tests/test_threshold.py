"""probcore.threshold: the fast thresholds equal the sort-based / bisection references (1e-6 in
float32, 1e-12 in float64) on random, peaked, tied, masked and huge inputs, satisfy their defining
equation, end exact on their support, take every internal path (screened blocks, packed entries,
whole rows, reference fallback), and terminate on NaN."""

import entmax as entmax_pkg
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from helpers import INF, KINDS, SHAPES, TOL, close, make
from probcore import threshold as T

ALPHAS = (1.05, 1.25, 1.5, 1.75, 2.0, 2.5, 4.0)


def mass(z, tau, alpha):
    """sum relu(z - tau)^(1/(alpha-1)) per row (the defining equation's left side)."""
    return ((z - tau).clamp(min=0) ** (1 / (alpha - 1))).sum(-1)


def assert_mass_one(z, tau, alpha):
    """tau is a root of mass = 1 up to rounding: moving it by 16 eps (1 + |tau|) brackets 1."""
    live = torch.isfinite(tau).squeeze(-1)
    z, tau = z[live], tau[live]
    delta = 16 * torch.finfo(z.dtype).eps * (1 + tau.abs())
    slack = 10 * TOL[z.dtype]
    assert (mass(z, tau - delta, alpha) >= 1 - slack).all()
    assert (mass(z, tau + delta, alpha) <= 1 + slack).all()


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", KINDS)
def test_sparsemax_and_entmax15_equal_the_sort(kind, shape, dtype):
    x = make(kind, shape, dtype)
    close(T.sparsemax_threshold(x), T.sparsemax_threshold_sort(x))
    close(T.entmax15_threshold(x / 2), T.entmax15_threshold_sort(x / 2))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(6, 7), (16, 256), (4, 1000), (2, 32000)])
@pytest.mark.parametrize("kind", ["random", "wide", "peaked", "tied", "masked", "fully_masked", "huge"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_entmax_equals_the_bisection(alpha, kind, shape, dtype):
    z = (alpha - 1) * make(kind, shape, dtype)
    a = torch.tensor(alpha, dtype=dtype)
    close(T.entmax_threshold(z, a), T.entmax_threshold_bisect(z, a))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(64, 100), (8, 3000)])
def test_entmax_per_row_alpha(shape, dtype):
    x = make("random", shape, dtype, seed=3)
    alpha = torch.linspace(1.02, 4.0, shape[0], dtype=dtype).unsqueeze(-1)
    alpha[:4] = torch.tensor([[1.5], [2.0], [1.5], [2.0]], dtype=dtype)  # exact values mixed in
    z = (alpha - 1) * x
    tau = T.entmax_threshold(z, alpha)
    close(tau, T.entmax_threshold_bisect(z, alpha))
    assert_mass_one(z, tau, alpha)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_dims_layouts_and_empty_batches(dtype):
    x = make("random", (3, 5, 300), dtype)
    close(T.sparsemax_threshold(x), T.sparsemax_threshold_sort(x))
    xt = make("random", (300, 12), dtype).T  # not contiguous along the mapped dim
    close(T.entmax15_threshold(xt), T.entmax15_threshold_sort(xt))
    alpha = torch.full((3, 1, 1), 1.3, dtype=dtype)  # broadcast over the middle batch dim
    close(T.entmax_threshold(x, alpha), T.entmax_threshold_bisect(x, alpha.expand(3, 5, 1)))
    for f in (T.sparsemax_threshold, T.entmax15_threshold, lambda z: T.entmax_threshold(z, 1.3)):
        assert f(torch.zeros(0, 4, 50, dtype=dtype)).shape == (0, 4, 1)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_defining_equation_and_exact_support(kind, dtype):
    """sum relu(z - tau)^q = 1; for sparsemax / entmax-1.5 tau is also the closed form on its own
    support S = {z > tau}: (sum_S z - 1)/|S|, and mean_S - sqrt(1/|S| - var_S)."""
    z = make(kind, (32, 2000), dtype)
    live = ~torch.isneginf(z).all(-1)
    tol = 10 * TOL[dtype]
    for alpha, f in ((2.0, T.sparsemax_threshold), (1.5, T.entmax15_threshold), (1.3, None), (3.0, None)):
        za = (alpha - 1) * z
        tau = f(za) if f else T.entmax_threshold(za, alpha)
        assert_mass_one(za, tau, alpha)
        if f is None:
            continue
        s = (za > tau).to(dtype)
        k = s.sum(-1, keepdim=True)
        zs = torch.where(s > 0, za, 0.0)
        if alpha == 2.0:
            closed = (zs.sum(-1, keepdim=True) - 1) / k
        else:
            mean = zs.sum(-1, keepdim=True) / k
            var = (zs * zs).sum(-1, keepdim=True) / k - mean * mean
            closed = mean - torch.sqrt(1 / k - var)
        scale = za.nan_to_num(neginf=0).abs().amax(-1, keepdim=True).clamp(min=1)
        torch.testing.assert_close((closed / scale)[live], (tau / scale)[live], rtol=tol, atol=tol)


def fast_sized(x):
    """x with its rows repeated past T._SORT_BELOW entries, so the fast path runs, not the sort."""
    return x.repeat(T._SORT_BELOW // x.numel() + 1, 1)


@pytest.mark.parametrize("size", [fast_sized, lambda x: x])
def test_fully_masked_rows_and_n_equal_one(size):
    x = size(torch.tensor([[-INF, -INF, -INF], [0.0, -INF, 2.0]]))
    for f in (T.sparsemax_threshold, T.entmax15_threshold, lambda z: T.entmax_threshold(z, 1.7)):
        tau = f(x)
        assert (tau[::2] == INF).all() and torch.isfinite(tau[1::2]).all()
    one = size(torch.tensor([[3.0]]))
    for f in (T.sparsemax_threshold, T.entmax15_threshold, lambda z: T.entmax_threshold(z, 3.0)):
        torch.testing.assert_close(f(one), torch.full_like(one, 2.0))


@pytest.mark.parametrize("shape", [(4, 5), (1024, 5), (4, 300), (4, 5000)])
def test_nan_gives_nan_rows_and_terminates(shape):
    """A row with a NaN (or +inf) gets tau = NaN, so p = relu(z - tau) is NaN on that whole row;
    the other rows are untouched, and nothing iterates without bound (sort path and fast path)."""
    x = make("random", shape, torch.float32)
    x[1, 2] = float("nan")
    x[2, 0] = INF
    pairs = ((T.sparsemax_threshold, T.sparsemax_threshold_sort), (T.entmax15_threshold, T.entmax15_threshold_sort))
    for f, ref in pairs:
        tau = f(x)
        assert torch.isnan(tau[1:3]).all()
        close(tau[[0, 3]], ref(x[[0, 3]]))
    tau = T.entmax_threshold(x, 1.3)
    assert torch.isnan(tau[1:3]).all()
    close(tau[[0, 3]], T.entmax_threshold_bisect(x[[0, 3]], torch.tensor(1.3)))
    assert torch.isnan(T.sparsemax_threshold(torch.full(shape, float("nan")))).all()


def test_the_reference_fallback_is_exact(monkeypatch):
    """Rows not finished within the pass budget go to the sort / bisection and come out exact."""
    x = make("random", (16, 3000), torch.float64, seed=5)
    monkeypatch.setattr(T, "_SPARSEMAX", T._SPARSEMAX._replace(max_iter=1))
    monkeypatch.setattr(T, "_ENTMAX15", T._ENTMAX15._replace(max_iter=1))
    monkeypatch.setattr(T, "_MAX_ITER", 1)
    close(T.sparsemax_threshold(x), T.sparsemax_threshold_sort(x))
    close(T.entmax15_threshold(x), T.entmax15_threshold_sort(x))
    a = torch.tensor(1.3, dtype=torch.float64)
    close(T.entmax_threshold(x, a), T.entmax_threshold_bisect(x, a))


def test_n_iter_caps_the_newton_passes():
    z = 0.3 * make("random", (8, 500), torch.float64)
    a = torch.tensor(1.3, dtype=torch.float64)
    ref = T.entmax_threshold_bisect(z, a)
    rough = T.entmax_threshold(z, a, n_iter=1)
    assert torch.isfinite(rough).all() and not torch.allclose(rough, ref, rtol=0, atol=1e-12)
    close(T.entmax_threshold(z, a, n_iter=40), ref)


def test_screening_shrinks_wide_rows(monkeypatch):
    """On vocabulary-wide rows the passes run on gathered candidates, not on the whole rows."""
    widths = []
    solve = T._solve
    monkeypatch.setattr(T, "_solve", lambda cand, *a: widths.append(cand.shape[-1]) or solve(cand, *a))
    x = make("random", (8, 32000), torch.float32)
    T.sparsemax_threshold(x)
    assert widths[-1] < 32000 // 8
    widths.clear()
    T.entmax_threshold(0.25 * x, 1.25)  # dense support: packed single entries
    assert widths[-1] < 32000 // 4


def test_matches_the_entmax_package():
    x = make("peaked", (32, 4000), torch.float64, seed=7)
    torch.testing.assert_close((x - T.sparsemax_threshold(x)).clamp(min=0), entmax_pkg.sparsemax(x, dim=-1))
    torch.testing.assert_close((x / 2 - T.entmax15_threshold(x / 2)).clamp(min=0) ** 2, entmax_pkg.entmax15(x, dim=-1))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    x=st.tuples(st.integers(1, 4), st.integers(1, 80)).flatmap(
        lambda s: arrays(np.float64, s, elements=st.one_of(st.sampled_from([-INF, 0.0, 1.0, -0.5]), st.floats(-4, 4)))
    )
)
def test_random_rows_with_ties_and_masks(x):
    x = fast_sized(torch.from_numpy(x))
    close(T.sparsemax_threshold(x), T.sparsemax_threshold_sort(x))
    close(T.entmax15_threshold(x), T.entmax15_threshold_sort(x))
    a = torch.tensor(1.7, dtype=torch.float64)
    close(T.entmax_threshold(x, a), T.entmax_threshold_bisect(x, a))


# ------------------------------------------------------------------ threshold_candidates

CAND_SHAPES = ((6, 7), (600, 7), (4096, 256), (64, 3000), (2, 32000))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", CAND_SHAPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("alpha", (2.0, 1.5, 1.25, 1.75, 2.5))
def test_candidates_give_the_reference_threshold_and_hold_the_support(alpha, kind, shape, dtype):
    """threshold_candidates(x, alpha): tau + shift equal to the sort / bisection reference on
    z' = (alpha - 1) x (x for alpha = 2), shift the row max of z'; the candidate values are
    z' - shift at their columns (or -inf padding), every entry of z' - shift that is not a
    candidate lies at or below tau (p = 0 there), and whole rows come with p = relu(z' - shift -
    tau)^(1 / (alpha - 1))."""
    x = make(kind, shape, dtype)
    z = x if alpha == 2 else (alpha - 1) * x
    cand = T.threshold_candidates(x, alpha)
    if alpha == 2:
        ref = T.sparsemax_threshold_sort(z)
    elif alpha == 1.5:
        ref = T.entmax15_threshold_sort(z)
    else:
        ref = T.entmax_threshold_bisect(z, torch.tensor(alpha, dtype=dtype))
    close(cand.tau + cand.shift, ref)
    zmax = z.amax(-1, keepdim=True)
    torch.testing.assert_close(cand.shift, torch.where(torch.isfinite(zmax), zmax, 0.0), rtol=0, atol=0)
    rows = (z - cand.shift).reshape(-1, shape[-1])
    tau = cand.tau.reshape(-1, 1)
    if cand.shifted is not None:
        assert torch.equal(cand.shifted, rows)
    if cand.p is not None:
        close(cand.p, (rows - tau).clamp(min=0) ** (1 / (alpha - 1)))
        torch.testing.assert_close(
            cand.mass, cand.p.sum(-1, keepdim=True), rtol=TOL[dtype], atol=TOL[dtype], equal_nan=True
        )
    if cand.values is None:
        return
    pad = torch.isneginf(cand.values) & ~torch.isneginf(rows.gather(-1, cand.columns))
    assert torch.equal(torch.where(pad, -INF, rows.gather(-1, cand.columns)), cand.values)
    outside = torch.ones_like(rows, dtype=torch.bool).scatter_(-1, cand.columns, False)
    tau = tau.expand_as(rows)
    live = torch.isfinite(tau)
    assert (rows[outside & live] <= tau[outside & live]).all()


def test_candidates_take_both_paths():
    """Wide rows are screened down to candidates (sparse path for the callers); short rows, and
    rows whose support is too wide to pack, are solved whole."""
    wide = make("random", (8, 32000), torch.float32)
    for alpha in (2.0, 1.5, 1.25, 1.75):
        cand = T.threshold_candidates(wide, alpha)
        assert cand.values is not None and cand.values.shape[-1] < 32000 // 4
        assert cand.columns.shape == cand.values.shape and cand.columns.dtype == torch.long
    short = make("random", (4096, 256), torch.float32)
    for alpha in (2.0, 1.5, 1.25):
        assert T.threshold_candidates(short, alpha).values is None
    tiny = make("random", (4, 5), torch.float32)  # sorted outright
    assert (
        T.threshold_candidates(tiny, 1.5).shifted is not None and T.threshold_candidates(tiny, 2.0).shifted is not None
    )


@pytest.mark.parametrize("alpha", (2.0, 1.5))
def test_whole_rows_left_running_go_on_alone(alpha, monkeypatch):
    """On whole rows most rows are done after the first pass from the screening bound; the few
    left run alone (smaller buffers), and their p lands in the right rows."""
    sizes = []  # rows of each pass over whole rows (not the block maxima's)
    dense_pass = T._dense_pass
    monkeypatch.setattr(
        T, "_dense_pass", lambda rows, *a: (rows.shape[-1] == 256 and sizes.append(len(rows))) or dense_pass(rows, *a)
    )
    x = make("random", (4096, 256), torch.float64, seed=3)
    x[::7] = make("tied", (586, 256), torch.float64)  # rows with ties among them
    cand = T.threshold_candidates(x, alpha)
    assert cand.p is not None and sizes[0] == 4096 and 0 < sizes[-1] <= 2048
    z = x if alpha == 2 else (alpha - 1) * x
    d = (z - cand.shift - cand.tau).clamp(min=0)
    close(cand.p, d ** (1 / (alpha - 1)))
    close(cand.tau + cand.shift, T.sparsemax_threshold_sort(z) if alpha == 2 else T.entmax15_threshold_sort(z))


def test_candidates_of_nan_and_masked_rows():
    x = make("random", (6, 32000), torch.float32)
    x[1, 5] = float("nan")
    x[3] = -INF
    for alpha in (2.0, 1.5, 1.75):
        cand = T.threshold_candidates(x, alpha)
        tau = cand.tau + cand.shift
        assert torch.isnan(tau[1]).all() and (tau[3] == INF).all() and torch.isfinite(tau[[0, 2, 4, 5]]).all()


@pytest.mark.slow
def test_float_alpha_newton_with_products_equals_the_bisection():
    """alpha = 1.25 (q - 1 = 3) takes products instead of log / exp in the Newton passes."""
    for dtype in (torch.float32, torch.float64):
        for shape in ((4096, 256), (16, 3000)):
            x = make("wide", shape, dtype, seed=4)
            ref = T.entmax_threshold_bisect(0.25 * x, torch.tensor(1.25, dtype=dtype))
            cand = T.threshold_candidates(x, 1.25)
            close(cand.tau + cand.shift, ref)


def test_inputs_that_require_grad_give_the_same_constant_threshold():
    """Logits from a model (requires_grad) are accepted: tau is the same, as a constant."""
    for shape in ((4, 5), (4096, 256), (4, 32000)):
        x = make("random", shape, torch.float32, seed=8)
        xg = x.clone().requires_grad_()
        for f in (T.sparsemax_threshold, T.entmax15_threshold, lambda z: T.entmax_threshold(z, 1.3)):
            tau = f(xg)
            assert not tau.requires_grad
            assert torch.equal(tau, f(x))
