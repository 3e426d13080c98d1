"""probcore.functional: simplex, monotonicity, shift invariance, temperature, gradients, masks,
dtypes, dims, NaN, errors, and each mapping's own facts (entmax alpha, perturbmax, Gumbel, ...)."""

import math

import entmax as entmax_pkg
import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from helpers import KINDS, make
from probcore import functional as F
from probcore import perturb

INF = float("inf")
DET = settings(max_examples=10, deadline=None)


def rows(min_n=1, max_n=6, low=-5.0, high=5.0):
    """(batch, n) float64 tensors, batch possibly 0."""
    shapes = st.tuples(st.integers(0, 3), st.integers(min_n, max_n))
    return shapes.flatmap(lambda s: arrays(np.float64, s, elements=st.floats(low, high))).map(torch.from_numpy)


def clear_of_ties(case, x):
    """sparse_softmax's kept set jumps at ties (top-k) and at prefix masses equal to top_p; the
    properties below are checked away from them (rounding decides there)."""
    if case.name != "sparse_softmax" or x.numel() == 0:
        return True
    z = x / case.params.get("temperature", 1)
    gaps = z.sort(-1).values.diff(dim=-1)
    if (gaps < 1e-6).any():
        return False
    top_p = case.params.get("top_p")
    masses = torch.softmax(z, -1).sort(-1, descending=True).values.cumsum(-1)
    return top_p is None or ((masses - top_p).abs() > 1e-9).all()


def sign(case):
    """+1 if the mapping keeps the order of x, -1 if it reverses it (negative T or beta)."""
    return -1 if case.params.get("temperature", 1) < 0 or case.params.get("beta", 1) < 0 else 1


# ------------------------------------------------------------------ common properties


@DET
@given(x=rows())
def test_outputs_are_probabilities(case, x):
    p = case(x)
    assert p.shape == x.shape and p.dtype == x.dtype
    assert (p >= 0).all()
    torch.testing.assert_close(p.sum(-1), torch.ones(x.shape[0], dtype=x.dtype), atol=1e-9, rtol=0)


@DET
@given(x=rows(min_n=2))
def test_monotone(case, x):
    if case.mapping.stochastic or case.mapping.needs_target:
        pytest.skip("a sample / the target's margin does not follow the order of x")
    if case.name == "taylor_softmax":
        x = x.clamp(min=-1) * abs(case.params.get("temperature", 1))  # f_k increases on [-1, inf) only
    assume(clear_of_ties(case, x))
    p = case(x)
    s = sign(case)
    order = s * (x[..., :, None] - x[..., None, :]) > 0
    assert (p[..., :, None] >= p[..., None, :] - 1e-9)[order].all()


def test_taylor_is_not_monotone_below_minus_one():
    p = F.taylor_softmax(torch.tensor([-3.0, -1.0]))  # f_2(-3) = 2.5 > f_2(-1) = 0.5
    assert p[0] > p[1]


@DET
@given(x=rows(), c=st.floats(-20, 20))
def test_shift_invariant(case, x, c):
    if not case.mapping.shift_invariant:
        pytest.skip("Taylor softmax is not shift invariant (test below)")
    assume(clear_of_ties(case, x))
    torch.testing.assert_close(case(x + c), case(x), atol=1e-8, rtol=0)


def test_taylor_is_not_shift_invariant():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    assert (F.taylor_softmax(x + 3.0) - F.taylor_softmax(x)).abs().max() > 0.05


def test_low_temperature_gives_onehot_argmax(case):
    if case.mapping.stochastic or case.mapping.needs_target or case.name == "taylor_softmax":
        pytest.skip("no argmax limit (noise / margin / polynomial, see below)")
    x = torch.tensor([[0.3, -1.2, 0.9, 0.5], [2.0, 1.5, -3.0, 1.9]], dtype=torch.float64)
    params = {k: v for k, v in case.params.items() if k not in ("temperature", "beta")}
    p = case.mapping.forward(x, dim=-1, **params, temperature=1e-3)
    torch.testing.assert_close(p, torch.eye(4, dtype=x.dtype)[x.argmax(-1)], atol=1e-6, rtol=0)


def test_taylor_low_temperature_tends_to_power_ratio():
    """f_k(x / T) ~ (x / T)^k / k!, so p -> x^k / sum x^k, not one-hot."""
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    torch.testing.assert_close(F.taylor_softmax(x, order=4, temperature=1e-4), x**4 / (x**4).sum(), atol=1e-3, rtol=0)


@pytest.mark.slow
def test_gradcheck(case):
    """float64 gradients against finite differences (gumbel: the soft sample, fixed noise)."""
    x = torch.randn(2, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(3)).requires_grad_()
    assert torch.autograd.gradcheck(lambda v: case(v), (x,))


@pytest.mark.parametrize(
    "fn",
    [
        F.softmax,
        F.entmax15,
        F.sparsemax,
        lambda x: F.entmax(x, alpha=1.3),
        lambda x: F.taylor_softmax(x, order=4),
    ],
)
def test_double_backward(fn):
    x = torch.randn(2, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(4)).requires_grad_()
    assert torch.autograd.gradgradcheck(fn, (x,))


# ------------------------------------------------------------------ masks, dtypes, shapes, NaN

MASKED = [[0.3, -INF, 1.2, -0.5], [-INF, -INF, -INF, -INF], [2.0, -INF, -INF, -INF]]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_masked_entries_and_rows(case, dtype):
    x = torch.tensor(MASKED, dtype=dtype, requires_grad=True)
    p = case(x)
    assert p.dtype == dtype
    assert (p[torch.isneginf(x)] == 0).all() and (p[1] == 0).all()
    torch.testing.assert_close(p[:1].float().sum(-1), torch.ones(1), atol=1e-2, rtol=0)
    torch.testing.assert_close(p[2].float(), torch.eye(4)[0], atol=1e-6, rtol=0)
    (p * torch.arange(12, dtype=dtype).reshape(3, 4)).sum().backward()
    assert torch.isfinite(x.grad).all()
    assert (x.grad[torch.isneginf(x)] == 0).all() and (x.grad[1] == 0).all()
    assert (x.grad[2] == 0).all()  # a single live entry: p = 1 whatever its value


def test_softmax_fully_masked_row_where_torch_gives_nan():
    x = torch.full((2, 3), -INF).requires_grad_()
    assert torch.isnan(torch.softmax(x, -1)).all()
    p = F.softmax(x)
    p.sum().backward()
    assert (p == 0).all() and (x.grad == 0).all()


@pytest.mark.parametrize(
    "dtype, big", [(torch.float16, 1e4), (torch.bfloat16, 1e4), (torch.float32, 3e4), (torch.float64, 3e4)]
)
def test_dtypes_and_large_logits(case, dtype, big):
    x = torch.tensor([[1.0, -0.5, 0.25, 2.0], [big, -big, big / 2, big - 10]], dtype=dtype, requires_grad=True)
    p = case(x)
    assert p.dtype == dtype and torch.isfinite(p).all() and (p >= 0).all()
    torch.testing.assert_close(p.float().sum(-1), torch.ones(2), atol=2e-3 if dtype.itemsize == 2 else 1e-6, rtol=0)
    if not case.mapping.stochastic:  # (the noise is drawn in the compute dtype)
        reference = case(x.detach().double())
        torch.testing.assert_close(p[0].double(), reference[0], atol=1e-2 if dtype.itemsize == 2 else 1e-6, rtol=0)
    p[:, 0].sum().backward()
    assert x.grad.dtype == dtype and torch.isfinite(x.grad).all()


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_any_dim(case, dim):
    x = torch.randn(2, 3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    expected = case(x.movedim(dim, -1)).movedim(-1, dim)
    torch.testing.assert_close(case(x, dim=dim), expected)


@pytest.mark.parametrize("shape", [(0, 4), (2, 0, 3), (0,) * 3 + (1,)])
def test_empty_batch(case, shape):
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    p = case(x)
    assert p.shape == x.shape
    p.sum().backward()
    assert x.grad.shape == x.shape


def test_single_entry(case):
    x = torch.tensor([[0.7], [-3.0], [-INF]], dtype=torch.float64, requires_grad=True)
    p = case(x)
    torch.testing.assert_close(p.flatten(), torch.tensor([1.0, 1.0, 0.0], dtype=x.dtype), atol=1e-9, rtol=0)
    p.sum().backward()
    torch.testing.assert_close(x.grad, torch.zeros_like(x), atol=1e-9, rtol=0)  # perturbmax: quadrature


def test_nan_row_is_nan_and_others_unaffected(case):
    x = torch.tensor([[0.1, float("nan"), 0.3], [0.2, 0.5, -0.4]], dtype=torch.float64)
    p = case(x)
    assert torch.isnan(p[0]).all()
    if not case.mapping.stochastic:  # (fewer rows draw other noise)
        torch.testing.assert_close(p[1], case(x[1:])[0])


def test_non_floating_input(case):
    with pytest.raises(ValueError, match="x must be a floating tensor"):
        case(torch.tensor([[1, 2, 3]]))


def test_bad_dim(case):
    with pytest.raises(ValueError, match=r"dim must be an integer in \[-2, 1\]"):
        case(torch.zeros(2, 3), dim=2)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda x: F.taylor_softmax(x, order=3), "order must be an even integer >= 2"),
        (lambda x: F.taylor_softmax(x, order=0), "order must be an even integer >= 2"),
        (lambda x: F.sparse_softmax(x, k=0), r"k must be an integer in \[1, 4\]"),
        (lambda x: F.sparse_softmax(x, k=5), r"k must be an integer in \[1, 4\]"),
        (lambda x: F.sparse_softmax(x), "exactly one of k"),
        (lambda x: F.sparse_softmax(x, k=2, top_p=0.5), "exactly one of k"),
        (lambda x: F.sparse_softmax(x, top_p=0.0), r"top_p must be in \(0, 1\]"),
        (lambda x: F.sparse_softmax(x, top_p=1.5), r"top_p must be in \(0, 1\]"),
        (lambda x: F.entmax(x, alpha=0.0), "alpha must be a finite real > 0"),
        (lambda x: F.entmax(x, alpha=torch.tensor([[-0.5]])), "alpha must be a finite real > 0"),
        (
            lambda x: F.entmax(x, alpha=torch.ones(1, 4) * 1.5),
            r"alpha of shape \(1, 4\) does not fit x of shape \(1, 4\)",
        ),
        (lambda x: F.entmax(x, n_iter=0), "n_iter must be an integer >= 1"),
        (lambda x: F.softmax(x, temperature=0.0), "temperature must be finite and non-zero"),
        (lambda x: F.sparsemax(x, temperature=INF), "temperature must be finite and non-zero"),
        (lambda x: F.softmax(x, temperature=2.0, beta=0.5), "either temperature or beta"),
        (lambda x: F.gumbel_softmax(x, temperature=-1.0), r"temperature must be in \(0, inf\)"),
        (lambda x: F.gumbel_softmax(x, hard=1), "hard must be True or False"),
        (lambda x: F.perturbmax(x, noise="cauchy"), "noise must be one of gumbel, normal, uniform, logistic"),
        (lambda x: F.perturbmax_sample(x, noise="cauchy"), "noise must be one of"),
        (lambda x: F.perturbmax(x, n_points=1), "n_points must be an integer >= 2"),
        (lambda x: F.perturbmax_sample(x, n_samples=0), "n_samples must be an integer >= 1"),
        (lambda x: F.am_softmax(x, torch.tensor([4])), r"target must hold class indices in \[0, 3\]"),
        (lambda x: F.am_softmax(x, torch.tensor([0.0])), "target must hold integer class indices"),
        (lambda x: F.am_softmax(x, torch.tensor([0, 1, 2])), r"target must have the shape of x without dim, \(1,\)"),
        (lambda x: F.am_softmax(x, torch.tensor([0]), margin=-0.1), r"margin must be in \[0, inf\)"),
        (lambda x: F.am_softmax(x, torch.tensor([0]), scale=0.0), r"scale must be in \(0, inf\)"),
        (lambda x: F.softmax(x[0, 0]), "at least one dimension"),
    ],
)
def test_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call(torch.zeros(1, 4))


# ------------------------------------------------------------------ softmax family


def test_softmax_beta_and_temperature():
    x = torch.tensor([[0.2, -1.0, 3.0, -INF]], dtype=torch.float64)
    softmin = torch.cat([torch.softmax(-2 * x[0, :3], 0), torch.zeros(1, dtype=x.dtype)])
    torch.testing.assert_close(F.softmax(x, beta=-2.0)[0], softmin)
    torch.testing.assert_close(F.softmax(x, temperature=-0.5)[0], softmin)
    torch.testing.assert_close(F.softmax(x, beta=0.5), F.softmax(x, temperature=2.0))
    torch.testing.assert_close(F.softmax(x, beta=0.0), torch.tensor([[1 / 3, 1 / 3, 1 / 3, 0]], dtype=x.dtype))
    torch.testing.assert_close(F.softmax(x), torch.softmax(x, -1))


def test_smooth_max():
    x = torch.tensor([[0.2, -1.0, 3.0, -INF], [-INF] * 4], dtype=torch.float64, requires_grad=True)
    out = F.smooth_max(x, temperature=0.5)
    torch.testing.assert_close(out[0], 0.5 * torch.logsumexp(x[0, :3] / 0.5, 0))
    assert out[1] == -INF
    out[0].backward()
    torch.testing.assert_close(x.grad, F.softmax(x.detach(), temperature=0.5))
    torch.testing.assert_close(F.smooth_max(x.detach()[:1], temperature=1e-3), torch.tensor([3.0], dtype=x.dtype))
    torch.testing.assert_close(F.smooth_max(x.detach()[:1], temperature=-1e-3), torch.tensor([-1.0], dtype=x.dtype))


def test_taylor_softmax_formula():
    x = torch.tensor([[0.5, -2.0, 3.0, -INF]], dtype=torch.float64)
    for order in (2, 4, 8):
        f = sum(x[:, :3] ** m / math.factorial(m) for m in range(order + 1))
        expected = torch.cat([f / f.sum(), torch.zeros(1, 1, dtype=x.dtype)], -1)
        torch.testing.assert_close(F.taylor_softmax(x, order=order), expected)
    big = torch.tensor([3e4, -2e4, 1e4], dtype=torch.float64)  # f_10(3e4) overflows float32 unscaled
    f = sum(big**m / math.factorial(m) for m in range(11))
    torch.testing.assert_close(F.taylor_softmax(big.float(), order=10).double(), f / f.sum(), atol=1e-6, rtol=0)


def test_sparse_softmax_top_k():
    x = torch.tensor([[0.1, 2.0, -1.0, 1.5, 0.3]], dtype=torch.float64)
    expected = torch.zeros_like(x)
    expected[0, [1, 3]] = torch.softmax(x[0, [1, 3]], 0)
    torch.testing.assert_close(F.sparse_softmax(x, k=2), expected)
    torch.testing.assert_close(F.sparse_softmax(x, k=5), torch.softmax(x, -1))


@DET
@given(x=rows(min_n=2), top_p=st.floats(0.01, 1.0))
def test_sparse_softmax_top_p_keeps_smallest_prefix(x, top_p):
    q = torch.softmax(x, -1)
    keep = F.sparse_softmax(x, top_p=top_p) > 0
    kept_mass = (q * keep).sum(-1)
    smallest_kept = torch.where(keep, q, INF).amin(-1)
    assert (kept_mass >= top_p - 1e-12).all() and (kept_mass - smallest_kept < top_p + 1e-12).all()
    assert (torch.where(keep, -INF, q).amax(-1) <= smallest_kept).all()  # kept entries are the largest


def test_am_softmax():
    x = torch.tensor([[0.9, 0.2, -0.3], [0.1, 0.5, 0.4]], dtype=torch.float64)
    t = torch.tensor([0, 2])
    shifted = x - 0.3 * torch.nn.functional.one_hot(t, 3)
    torch.testing.assert_close(F.am_softmax(x, t, margin=0.3, scale=10.0), torch.softmax(10.0 * shifted, -1))
    torch.testing.assert_close(F.am_softmax(x.T, t, margin=0.3, scale=10.0, dim=0), torch.softmax(10.0 * shifted, -1).T)


# ------------------------------------------------------------------ sparsemax / entmax


def test_entmax_special_alphas_are_exact():
    x = torch.randn(3, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    assert torch.equal(F.entmax(x, alpha=1.0), F.softmax(x))
    assert torch.equal(F.entmax(x, alpha=2.0), F.sparsemax(x))
    assert torch.equal(F.entmax(x, alpha=1.5), F.entmax15(x))
    mixed = torch.tensor([[1.0], [2.0], [1.7]], dtype=torch.float64)
    p = F.entmax(x, alpha=mixed)
    assert torch.equal(p[0], F.softmax(x[0])) and torch.equal(p[1], F.sparsemax(x[1]))
    torch.testing.assert_close(p[2], F.entmax(x[2], alpha=1.7))
    assert torch.equal(F.entmax(x.T, alpha=mixed.T, dim=0), p.T)


def test_entmax_gradcheck_in_x_and_alpha():
    x = torch.randn(4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(6)).requires_grad_()
    alpha = torch.tensor([[1.25], [1.5], [2.0], [2.7]], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, a: F.entmax(v, alpha=a, temperature=0.8), (x, alpha))
    shared = torch.tensor(1.6, dtype=torch.float64, requires_grad=True)  # one alpha broadcast to every row
    assert torch.autograd.gradcheck(lambda v, a: F.entmax(v, alpha=a), (x, shared))


def test_entmax_alpha_gradient_at_one_is_the_limit():
    x = torch.randn(3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(7))
    g = torch.randn(3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(8))
    alpha = torch.ones(3, 1, dtype=torch.float64, requires_grad=True)
    (F.entmax(x, alpha=alpha) * g).sum().backward()
    h = 1e-6
    one_sided = ((F.entmax(x, alpha=1 + h, n_iter=200) - F.softmax(x)) * g).sum(-1) / h
    torch.testing.assert_close(alpha.grad.flatten(), one_sided, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (F.sparsemax, entmax_pkg.sparsemax),
        (F.entmax15, entmax_pkg.entmax15),
        (lambda x: F.entmax(x, alpha=1.3), lambda x: entmax_pkg.entmax_bisect(x, alpha=1.3, n_iter=80)),
        (lambda x: F.entmax(x, alpha=2.6), lambda x: entmax_pkg.entmax_bisect(x, alpha=2.6, n_iter=80)),
    ],
)
def test_matches_entmax_package(ours, theirs):
    x = (3 * torch.randn(6, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(9))).requires_grad_()
    g = torch.randn(6, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(10))
    p, q = ours(x), theirs(x)
    torch.testing.assert_close(p, q, atol=1e-10, rtol=0)
    (grad_p,), (grad_q,) = torch.autograd.grad((p * g).sum(), x), torch.autograd.grad((q * g).sum(), x)
    torch.testing.assert_close(grad_p, grad_q, atol=1e-8, rtol=0)


def test_entmax_alpha_gradient_matches_entmax_package():
    x = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(11))
    g = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(12))
    grads = []
    for fn in (F.entmax, lambda v, alpha: entmax_pkg.entmax_bisect(v, alpha=alpha, n_iter=80)):
        alpha = torch.tensor([[1.2], [1.5], [1.9], [3.0]], dtype=torch.float64, requires_grad=True)
        (fn(x, alpha=alpha) * g).sum().backward()
        grads.append(alpha.grad)
    torch.testing.assert_close(*grads, atol=1e-8, rtol=0)


def test_bisection_with_nan_finishes():
    x = torch.tensor([[float("nan")] * 4, [0.1, 0.2, 0.3, 0.4]], dtype=torch.float32)
    p = F.entmax(x, alpha=1.8)
    assert torch.isnan(p[0]).all() and torch.isfinite(p[1]).all()


# ------------------------------------------------------------------ perturb-max, Gumbel


@pytest.mark.parametrize("spread", [0.01, 1.0, 10.0, 200.0])
def test_perturbmax_gumbel_is_softmax(spread):
    x = spread * torch.randn(4, 30, dtype=torch.float64, generator=torch.Generator().manual_seed(13))
    torch.testing.assert_close(F.perturbmax(x, noise="gumbel"), torch.softmax(x, -1), atol=1e-9, rtol=0)
    torch.testing.assert_close(F.perturbmax(x.float(), noise="gumbel"), torch.softmax(x.float(), -1), atol=1e-6, rtol=0)


@pytest.mark.parametrize("noise", ["normal", "uniform", "logistic"])
@pytest.mark.parametrize("n", [2, 9, 32, 60])
def test_perturbmax_sums_to_one_and_ties_are_uniform(noise, n):
    """Exact to rounding, except uniform noise past n = 32 (16 Gauss-Legendre nodes per piece):
    all-equal logits are its worst case."""
    atol = 1e-7 if noise == "uniform" and n > 32 else 1e-9
    x = 0.5 * torch.randn(3, n, dtype=torch.float64, generator=torch.Generator().manual_seed(n))
    torch.testing.assert_close(F.perturbmax(x, noise=noise).sum(-1), torch.ones(3, dtype=x.dtype), atol=atol, rtol=0)
    torch.testing.assert_close(
        F.perturbmax(torch.zeros(n, dtype=x.dtype), noise=noise),
        torch.full((n,), 1 / n, dtype=x.dtype),
        atol=atol / n,
        rtol=0,
    )


def test_perturbmax_two_entries_closed_forms():
    a = torch.tensor([0.0, 0.3, 0.8, 1.7], dtype=torch.float64)
    x = torch.stack([a, torch.zeros_like(a)], -1)  # P[a + e1 > e2]
    normal = 0.5 * (1 + torch.erf(a / 2))  # e2 - e1 ~ N(0, 2)
    uniform = torch.where(a < 1, 1 - (1 - a).clamp(min=0) ** 2 / 2, 1.0)  # triangular on (-1, 1)
    torch.testing.assert_close(F.perturbmax(x, noise="normal")[:, 0], normal, atol=1e-10, rtol=0)
    torch.testing.assert_close(F.perturbmax(x, noise="uniform")[:, 0], uniform, atol=1e-12, rtol=0)


@pytest.mark.parametrize("noise", ["gumbel", "normal", "uniform", "logistic"])
def test_perturbmax_sample_converges(noise):
    x = torch.tensor([[0.4, -0.2, 0.1, 0.9]], dtype=torch.float64)
    exact = F.perturbmax(x, noise=noise)
    errors = [
        (F.perturbmax_sample(x, noise=noise, n_samples=s, generator=torch.Generator().manual_seed(0)) - exact)
        .abs()
        .max()
        .item()
        for s in (100, 10_000, 200_000)
    ]
    assert errors[2] < errors[0] and errors[2] < 5e-3 and errors[1] < 3e-2


def test_gumbel_softmax_soft_and_hard():
    x = torch.tensor([[0.5, -1.0, 2.0, 0.0]] * 3, dtype=torch.float64, requires_grad=True)
    g = torch.randn(3, 4, dtype=torch.float64)
    soft = F.gumbel_softmax(x, temperature=0.7, generator=torch.Generator().manual_seed(1))
    hard = F.gumbel_softmax(x, temperature=0.7, hard=True, generator=torch.Generator().manual_seed(1))
    assert torch.equal(hard.detach(), torch.eye(4, dtype=x.dtype)[soft.argmax(-1)])
    (grad_soft,), (grad_hard,) = (torch.autograd.grad((y * g).sum(), x) for y in (soft, hard))
    torch.testing.assert_close(grad_hard, grad_soft)
    other = F.gumbel_softmax(x, temperature=0.7, generator=torch.Generator().manual_seed(2))
    assert not torch.allclose(soft, other)


def test_gumbel_max_samples_follow_softmax():
    x = torch.tensor([0.5, -1.0, 2.0, 0.0], dtype=torch.float64)
    hard = F.gumbel_softmax(x.expand(40_000, 4), hard=True, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(hard.mean(0), torch.softmax(x, -1), atol=0.01, rtol=0)


# ------------------------------------------------------------------ sparsemax / entmax fast paths

from probcore import threshold as T  # noqa: E402

FAST_ALPHAS = (2.0, 1.5, 1.25, 1.75)
FAST_SHAPES = ((5, 7), (4096, 256), (64, 3000), (4, 32000))  # sort path; dense (chunked); sparse (screened)


def entmax_by_alpha(x, alpha, **kw):
    if alpha == 2:
        return F.sparsemax(x, **kw)
    return F.entmax15(x, **kw) if alpha == 1.5 else F.entmax(x, alpha=alpha, **kw)


def reference_p(x, alpha):
    """p from the sort-based thresholds (alpha 2, 1.5) or the bisection (others), computed on
    z = (alpha - 1) x shifted by its row max (p is shift-invariant; the shift keeps the entries
    near the max exact, so large logits do not lose the last digits of p to rounding)."""
    z = x if alpha == 2 else (alpha - 1) * x
    zmax = z.amax(-1, keepdim=True)
    z = z - torch.where(torch.isfinite(zmax), zmax, 0.0)
    if alpha == 2:
        return (z - T.sparsemax_threshold_sort(z)).clamp(min=0)
    if alpha == 1.5:
        return (z - T.entmax15_threshold_sort(z)).clamp(min=0) ** 2
    p = (z - T.entmax_threshold_bisect(z, torch.tensor(alpha, dtype=x.dtype))).clamp(min=0) ** (1 / (alpha - 1))
    return p / p.sum(-1, keepdim=True).clamp(min=torch.finfo(x.dtype).tiny)


def reference_grad(p, g, alpha):
    """g^T J with J = diag(s) - s s^T / sum s, s = p^(2 - alpha) on the support of p."""
    tiny = torch.finfo(p.dtype).tiny
    s = torch.where(p > 0, p.clamp(min=tiny) ** (2 - alpha), 0.0)
    return s * (g - (s * g).sum(-1, keepdim=True) / s.sum(-1, keepdim=True).clamp(min=tiny))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", FAST_SHAPES)
@pytest.mark.parametrize("alpha", FAST_ALPHAS)
def test_forward_and_gradient_equal_the_references(alpha, shape, dtype):
    """p equal to the sort / bisection reference to 1e-6 (float32) / 1e-12 (float64) on random,
    peaked, tied, masked, fully masked, huge and constant rows, through every path (sort, dense
    with the chunked backward, screened candidates with the sparse backward). The gradient is
    g^T J at our p exactly (1e-5 / 1e-12), and equals the closed form at the reference p to
    1e-5 (float32, alpha 2 and 1.5), 2e-4 (float32, general alpha: s = p^(2 - alpha) turns the
    1e-9 rounding of a p near 1e-7 into a relative 1e-3 on s) and 1e-12 (float64)."""
    single = dtype == torch.float32
    tol_p, tol_g = (1e-6, 1e-5) if single else (1e-12, 1e-12)
    tol_ref = (1e-5 if alpha in (2.0, 1.5) else 2e-4) if single else 1e-12
    for kind in KINDS:  # the threshold tests' inputs (tests/helpers.py)
        x = make(kind, shape, dtype).requires_grad_()
        g = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(1))
        p = entmax_by_alpha(x, alpha)
        (grad,) = torch.autograd.grad(p, x, g)
        ref = reference_p(x.detach(), alpha)
        torch.testing.assert_close(p, ref, rtol=tol_p, atol=tol_p, msg=kind)
        torch.testing.assert_close(grad, reference_grad(p.detach(), g, alpha), rtol=tol_g, atol=tol_g, msg=kind)
        torch.testing.assert_close(grad, reference_grad(ref, g, alpha), rtol=tol_ref, atol=tol_ref, msg=kind)
        if kind == "fully_masked":
            assert (p[::2] == 0).all() and (grad[::2] == 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(64, 3000), (4, 32000), (4096, 256)])
@pytest.mark.parametrize("alpha", (2.0, 1.5))
def test_gradient_equals_autograd_through_the_sort(alpha, shape):
    """The closed-form backward against autograd through the sort-based reference itself."""
    x = make("peaked", shape, torch.float64, seed=2).requires_grad_()
    g = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    (ours,) = torch.autograd.grad(entmax_by_alpha(x, alpha), x, g)
    (ref,) = torch.autograd.grad(reference_p(x, alpha), x, g)
    torch.testing.assert_close(ours, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("shape", FAST_SHAPES)
@pytest.mark.parametrize("alpha", FAST_ALPHAS)
def test_nan_rows_give_nan_and_leave_the_others(alpha, shape):
    x = make("random", shape, torch.float32).requires_grad_()
    with torch.no_grad():
        x[1, 2] = float("nan")
    g = torch.randn(shape, generator=torch.Generator().manual_seed(1))
    p = entmax_by_alpha(x, alpha)
    (grad,) = torch.autograd.grad(p, x, g)
    assert torch.isnan(p[1]).all() and torch.isnan(grad[1]).all()
    others = [0] + list(range(2, shape[0]))
    y = x.detach()[others].requires_grad_()
    q = entmax_by_alpha(y, alpha)
    torch.testing.assert_close(p[others], q)
    torch.testing.assert_close(grad[others], torch.autograd.grad(q, y, g[others])[0])


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(4096, 256), (4, 32000)])
@pytest.mark.parametrize("alpha", FAST_ALPHAS)
def test_create_graph_backward_equals_the_fast_backward(alpha, shape):
    """With create_graph the backward runs differentiable ops on the saved p (double backward);
    its first derivative is the fast one's."""
    x = make("random", shape, torch.float64).requires_grad_()
    g = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    p = entmax_by_alpha(x, alpha)
    (fast,) = torch.autograd.grad(p, x, g, retain_graph=True)
    (graph,) = torch.autograd.grad(p, x, g, create_graph=True)
    torch.testing.assert_close(graph, fast, rtol=1e-12, atol=1e-12)
    if alpha != 2:  # (sparsemax's Jacobian is locally constant: nothing to differentiate)
        (hvp,) = torch.autograd.grad((graph * g).sum(), x)
        assert torch.isfinite(hvp).all() and hvp.abs().sum() > 0


@pytest.mark.parametrize("alpha", (1.5, 1.25, 1.75))
def test_double_backward_on_the_sparse_path(alpha):
    x = make("peaked", (2, 3000), torch.float64, seed=5)[:, :2600].requires_grad_()
    assert T.threshold_candidates(x.detach(), alpha).values is not None
    f = lambda v: entmax_by_alpha(v, alpha)  # noqa: E731
    g = torch.randn(x.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    (grad,) = torch.autograd.grad(f(x), x, g, create_graph=True)
    (hvp,) = torch.autograd.grad((grad * g).sum(), x)
    h = 1e-6  # the Hessian-vector product against finite differences of the gradient
    (plus,) = torch.autograd.grad(f(x + h * g), x, g)
    (minus,) = torch.autograd.grad(f(x - h * g), x, g)
    torch.testing.assert_close(hvp, (plus - minus) / (2 * h), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", FAST_ALPHAS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_through_the_fast_paths(alpha, dtype):
    for shape in ((4096, 256), (4, 32000)):
        x = make("peaked", shape, torch.float32).to(dtype).requires_grad_()
        p = entmax_by_alpha(x, alpha)
        assert p.dtype == dtype
        torch.testing.assert_close(p.float(), entmax_by_alpha(x.detach().float(), alpha).to(dtype).float())
        p.float().pow(2).sum().backward()
        assert x.grad.dtype == dtype and torch.isfinite(x.grad).all()


@pytest.mark.parametrize("alpha", FAST_ALPHAS)
def test_chunks_dims_and_temperature(alpha, monkeypatch):
    """The chunked backward gives the same gradient whatever the chunk (rows split across
    chunks, one row per chunk); dim and temperature go through the fast paths too."""
    x = make("random", (300, 256), torch.float64, seed=6).requires_grad_()
    g = torch.randn(x.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    (whole,) = torch.autograd.grad(entmax_by_alpha(x, alpha), x, g)
    for chunk in (1000, 10):
        monkeypatch.setattr(F, "_CHUNK", chunk)
        (chunked,) = torch.autograd.grad(entmax_by_alpha(x, alpha), x, g)
        torch.testing.assert_close(chunked, whole, rtol=1e-14, atol=1e-14)
    monkeypatch.undo()
    wide = make("random", (3, 8000), torch.float64, seed=7)
    for v in (wide, x.detach()):
        ref = entmax_by_alpha(v / 0.7, alpha)
        torch.testing.assert_close(entmax_by_alpha(v.T, alpha, dim=0, temperature=0.7), ref.T)


def test_gradient_of_alpha_one_float_is_softmax():
    x = make("random", (64, 3000), torch.float64).requires_grad_()
    g = torch.randn(x.shape, dtype=torch.float64)
    (a,) = torch.autograd.grad(F.entmax(x, alpha=1.0), x, g)
    (b,) = torch.autograd.grad(torch.softmax(x, -1), x, g)
    assert torch.equal(F.entmax(x, alpha=1.0), F.softmax(x))
    torch.testing.assert_close(a, b)


def test_uniform_perturbmax_drops_entries_that_cannot_win_exactly():
    """Entries below max - 1 get p = 0 and leave the others' p and gradient as the quadrature
    over every entry gives them."""
    x = (torch.randn(3, 40, generator=torch.Generator().manual_seed(1), dtype=torch.float64) * 2).requires_grad_()
    c = x - x.amax(-1, keepdim=True)
    assert (c <= -1).sum() > 40  # the screened path is taken
    full = perturb._perturbmax_uniform_live(c, None)
    fast = F.perturbmax(x, noise="uniform")
    torch.testing.assert_close(fast, full, rtol=0, atol=1e-14)
    assert torch.all(fast[c.detach() < -1] == 0)
    g = torch.randn_like(fast)
    torch.testing.assert_close(
        torch.autograd.grad(fast, x, g)[0], torch.autograd.grad(full, x, g)[0], rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_uniform_perturbmax_screened_path_keeps_nan_rows_whole(bad):
    x = torch.tensor([[1.0, bad, 0.0, -5.0], [1.0, 1.5, float("-inf"), -5.0]], dtype=torch.float64)
    p = F.perturbmax(x, noise="uniform")
    assert p[0].isnan().all()
    # P[1 + e0 > 1.5 + e1] = P[e0 - e1 > 1/2] = (1/2)^2 / 2 for e uniform on (-1/2, 1/2)
    torch.testing.assert_close(p[1], x.new_tensor([0.125, 0.875, 0.0, 0.0]), rtol=0, atol=1e-14)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", FAST_ALPHAS)
def test_scratch_is_never_shared_with_results(alpha):
    """The whole-row path reuses a per-thread workspace for its scratch: a second forward (as a
    second layer would run) leaves the first one's p and gradient as they were, and threads
    running at once each get their own workspace."""
    from concurrent.futures import ThreadPoolExecutor

    xs = [make("random", (4096, 256), torch.float64, seed=s).requires_grad_() for s in (11, 12, 13, 14)]
    g = torch.randn(4096, 256, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    alone = []
    for x in xs:
        p = entmax_by_alpha(x, alpha)
        alone.append((p.detach().clone(), torch.autograd.grad(p, x, g)[0]))
    first, second = entmax_by_alpha(xs[0], alpha), entmax_by_alpha(xs[1], alpha)
    torch.testing.assert_close(torch.autograd.grad(second, xs[1], g)[0], alone[1][1], rtol=0, atol=0)
    torch.testing.assert_close(torch.autograd.grad(first, xs[0], g)[0], alone[0][1], rtol=0, atol=0)
    torch.testing.assert_close(first.detach(), alone[0][0], rtol=0, atol=0)

    def run(x):
        p = entmax_by_alpha(x, alpha)
        return p.detach(), torch.autograd.grad(p, x, g)[0]

    with ThreadPoolExecutor(4) as pool:
        for (p, grad), (p_alone, grad_alone) in zip(pool.map(run, xs * 3), alone * 3):
            torch.testing.assert_close(p, p_alone, rtol=0, atol=0)
            torch.testing.assert_close(grad, grad_alone, rtol=0, atol=0)
