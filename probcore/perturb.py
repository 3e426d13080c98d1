"""Perturb-max and Gumbel-softmax as torch functions (the perturb-max part of
probcore.functional, which re-exports them): p_i = P[argmax_j (x_j / T + eps_j) = i] by quadrature
for the four noises, sampled estimates, and the Gumbel-softmax sample. Common behaviour as in
probcore.functional (any dim, masks, NaN rows, coded errors)."""

from __future__ import annotations

import functools
import math
from typing import Callable, TypeVar
from statistics import NormalDist

import numpy as np
import torch
from torch import Tensor

from probcore._api import old_positions
from probcore._trace import traced
from probcore._validate import check_noise, check_positive_int, check_positive_temperature
from probcore.errors import ProbcoreError
from probcore.functional import _NEG_INF, _dead_rows, _lastdim, _nan_rows, _scaled, _softmax

__all__ = ["perturbmax", "perturbmax_sample", "gumbel_softmax"]

_F = TypeVar("_F", bound=Callable[..., object])

_TAIL = 1e-12  # probability mass of the max left outside the quadrature range, each side


def _assume_constant_result(fn: _F) -> _F:
    """``torch.compiler.assume_constant_result(fn)`` (torch.compile takes fn's plain-float result
    as a constant) without its ``import torch._dynamo``, which would add 1-3 s to ``import
    probcore``: the mark it sets, checked against torch's own in tests/test_torch_func.py."""
    setattr(fn, "_dynamo_marked_constant", True)  # noqa: B010 (a plain attribute on a function)
    return fn


@_assume_constant_result
def _noise_range(noise: str, n: int) -> tuple[float, float, float]:
    """[lo, hi] holding all but _TAIL of each tail of max_j(x_j + e_j) - max(x), and the
    trapezoid step. The max lies above Q(_TAIL) and below Q(1 - _TAIL / n)."""
    a, b = _TAIL, _TAIL / n
    if noise == "gumbel":
        return -math.log(-math.log(a)), -math.log(-math.log1p(-b)), 0.3
    if noise == "logistic":
        return math.log(a / (1 - a)), math.log((1 - b) / b), 0.3
    # normal: the max of n normals narrows like 1 / sqrt(2 log n), so the step does too
    return NormalDist().inv_cdf(a), -NormalDist().inv_cdf(b), min(0.3, 0.6 / math.sqrt(2 * math.log(n) + 1))


def _log_cdf(noise: str, u: Tensor) -> Tensor:
    if noise == "gumbel":
        return -torch.exp(-u)
    if noise == "logistic":
        return -torch.nn.functional.softplus(-u)
    return torch.special.log_ndtr(u)


def _log_pdf_over_cdf(noise: str, u: Tensor) -> Tensor:
    """log(pdf / CDF), the log reverse hazard."""
    if noise == "gumbel":
        return -u
    if noise == "logistic":
        return -torch.nn.functional.softplus(u)
    return -0.5 * u * u - 0.5 * math.log(2 * math.pi) - torch.special.log_ndtr(u)


@functools.lru_cache(maxsize=64)
def _gauss_legendre01(k: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Gauss-Legendre nodes and weights on [0, 1], k points, as tuples of floats."""
    nodes, weights = np.polynomial.legendre.leggauss(k)
    return tuple(((nodes + 1) / 2).tolist()), tuple((weights / 2).tolist())


_GAUSS_LEGENDRE01 = tuple(
    _gauss_legendre01(k) for k in range(1, 17)
)  # k = 1..16, the defaults: constants for torch.compile


def _prod_others(f: Tensor, dim: int) -> Tensor:
    """prod_{j != i} f_j along dim, without division (f may hold zeros)."""
    ones = torch.ones_like(f.narrow(dim, 0, 1))
    n = f.shape[dim]
    before = torch.cat([ones, f.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = torch.cat([f.narrow(dim, 1, n - 1), ones], dim).flip(dim).cumprod(dim).flip(dim)
    return before * after


def _perturbmax_smooth(z: Tensor, noise: str, n_points: int | None) -> Tensor:
    """p_i = int pdf(t - z_i) prod_{j != i} CDF(t - z_j) dt = int G(t) r(t - z_i) dt, G the CDF of
    the max and r = pdf / CDF, by the trapezoid rule on an equispaced grid in t - max(z) that
    covers the max up to _TAIL per side. The integrand is analytic and decays fast, so the rule
    converges geometrically: errors ~1e-12 (float64) at the default step, any n, any spread.
    Gumbel noise gives softmax."""
    n = z.shape[-1]
    lo, hi, step = _noise_range(noise, n)
    m = n_points or math.ceil((hi - lo) / step) + 1
    e = torch.linspace(lo, hi, m, dtype=z.dtype, device=z.device)
    masked = torch.isneginf(z)[..., None]
    zmax = z.amax(-1, keepdim=True)  # the grid moves with the max: p is exactly shift invariant
    d = (zmax.masked_fill(torch.isneginf(zmax), 0) - z)[..., None].masked_fill(masked, 0)
    u = d + e  # (..., n, m): t - z_j at the nodes
    log_g = _log_cdf(noise, u).masked_fill(masked, 0).sum(-2, keepdim=True)
    log_r = _log_pdf_over_cdf(noise, u).masked_fill(masked, _NEG_INF)
    return (hi - lo) / (m - 1) * torch.exp(log_g + log_r).sum(-1)


def _perturbmax_uniform(z: Tensor, n_points: int | None) -> Tensor:
    """Uniform noise on (-1/2, 1/2). An entry below max - 1 can never win (p = 0 exactly) and its
    CDF factor is 1 wherever the others can win, so only the entries above max - 1 (the most of
    any row) enter the quadrature: cost O(m^2 * nodes) per row for m such entries."""
    zmax = z.amax(-1, keepdim=True)
    c = (z - zmax.masked_fill(torch.isneginf(zmax), 0)).masked_fill(torch.isneginf(z), -2.0)  # <= 0
    if traced():  # every entry enters (no host sync to count them): the same p, at O(n^2) per row
        return _perturbmax_uniform_live(c, n_points).masked_fill(c.isnan().any(-1, keepdim=True), float("nan"))
    m = int(((c > -1) | c.isnan()).sum(-1).amax()) if c.numel() else 0
    if m == z.shape[-1]:
        return _perturbmax_uniform_live(c, n_points)
    if m == 0:  # every row fully masked (or no rows): zeros that keep the graph
        return c * 0
    top, index = c.topk(m, -1)
    p = torch.zeros_like(z).scatter(-1, index, _perturbmax_uniform_live(top, n_points))
    return p.masked_fill(c.isnan().any(-1, keepdim=True), float("nan"))  # a NaN (or +inf) row: NaN, as above


def _perturbmax_uniform_live(c: Tensor, n_points: int | None) -> Tensor:
    """Between the breakpoints c_j +- 1/2 (c = z - max <= 0) the integrand
    1[|t - c_i| < 1/2] prod_{j != i} clamp(t - c_j + 1/2, 0, 1) is a polynomial of degree < m, so
    Gauss-Legendre with ceil(m / 2) nodes per piece is exact (default: at most 16 nodes, exact up
    to m = 32)."""
    m = c.shape[-1]
    k = n_points or min(-(-m // 2), 16)
    # breakpoints; the max lies in [-1/2, 1/2] and the integrand is 0 below, so clamping far
    # entries to [-1, 1] changes nothing (the ends of [-1/2, 1/2] stay ordinary breakpoints)
    b = torch.cat([c - 0.5, c + 0.5], -1).clamp(-1, 1).sort(-1).values
    lo, width = b[..., :-1, None], (b[..., 1:] - b[..., :-1])[..., None]
    rule = _GAUSS_LEGENDRE01[k - 1] if k <= len(_GAUSS_LEGENDRE01) else _gauss_legendre01(k)
    nodes, weights = (torch.tensor(a, dtype=c.dtype, device=c.device) for a in rule)
    t = (lo + width * nodes).flatten(-2)[..., None, :]  # (..., 1, pieces * k)
    w = (width * weights).flatten(-2)[..., None, :]
    mid = (lo + width / 2).expand(*lo.shape[:-1], k).flatten(-2)[..., None, :]
    cdf = (t - c[..., None] + 0.5).clamp(0, 1)  # (..., m, pieces * k)
    inside = (mid - c[..., None]).abs() < 0.5  # pdf of entry i, constant on each piece
    return (inside * _prod_others(cdf, -2) * w).sum(-1)


@old_positions("noise", "dim", "temperature", "n_points")
def perturbmax(
    x: Tensor, *, dim: int = -1, noise: str = "gumbel", temperature: float = 1.0, n_points: int | None = None
) -> Tensor:
    """p_i = P[argmax(x / T + eps) = i] = E_eps[prod_{j != i} CDF(x_i - x_j + eps)], eps iid
    gumbel(0, 1), normal(0, 1), uniform(-1/2, 1/2) or logistic(0, 1), by deterministic
    quadrature (differentiable by autograd; not renormalised: sum p = 1 to ~1e-12 in float64).
    Gumbel equals softmax. ``n_points``: the number of trapezoid nodes (smooth noises, default
    from the step: about 100-200), or Gauss-Legendre nodes per piece (uniform)."""
    noise = check_noise(noise)
    if n_points is not None:
        n_points = check_positive_int("n_points", n_points, low=2)
    z, back = _lastdim(x, dim)
    z = _scaled(z, temperature)
    p = _perturbmax_uniform(z, n_points) if noise == "uniform" else _perturbmax_smooth(z, noise, n_points)
    return back(p.masked_fill(torch.isneginf(z), 0))


def _noise(noise: str, shape: tuple[int, ...] | torch.Size, like: Tensor, generator: torch.Generator | None) -> Tensor:
    """iid standard noise (the distributions of perturbmax) in like's dtype and device."""
    if noise == "normal":
        return torch.randn(shape, generator=generator, dtype=like.dtype, device=like.device)
    u = torch.rand(shape, generator=generator, dtype=like.dtype, device=like.device)
    if noise == "uniform":
        return u - 0.5
    u = u.clamp(min=torch.finfo(like.dtype).tiny)  # rand may give 0; u < 1 always
    return u.log() - torch.log1p(-u) if noise == "logistic" else -torch.log(-torch.log(u))


@old_positions("noise", "n_samples", "dim", "temperature", "generator")
def perturbmax_sample(
    x: Tensor,
    *,
    dim: int = -1,
    noise: str = "gumbel",
    n_samples: int = 1000,
    temperature: float = 1.0,
    generator: torch.Generator | None = None,
) -> Tensor:
    """Monte-Carlo perturbmax: the frequency of argmax(x / T + eps) = i over ``n_samples`` noise
    draws (from ``generator``). Not differentiable (the frequencies are counts)."""
    noise = check_noise(noise)
    n_samples = check_positive_int("n_samples", n_samples)
    z, back = _lastdim(x, dim)
    z = _scaled(z, temperature).detach()
    winners = (z + _noise(noise, (n_samples, *z.shape), z, generator)).argmax(-1).movedim(0, -1)
    counts = torch.zeros_like(z).scatter_add_(-1, winners, torch.ones_like(winners, dtype=z.dtype))
    return back(_nan_rows(z, (counts / n_samples).masked_fill(_dead_rows(z), 0)))


@old_positions("temperature", "hard", "dim", "generator")
def gumbel_softmax(
    x: Tensor, *, dim: int = -1, temperature: float = 1.0, hard: bool = False, generator: torch.Generator | None = None
) -> Tensor:
    """Soft sample softmax((x + g) / T), g iid gumbel(0, 1) from ``generator``, T > 0. With
    hard=True the forward value is the one-hot argmax and the gradient that of the soft sample
    (straight-through)."""
    t = check_positive_temperature(temperature)
    if not isinstance(hard, bool):
        raise ProbcoreError("bool", name="hard", value=repr(hard))
    z, back = _lastdim(x, dim)
    soft = _softmax((z + _noise("gumbel", z.shape, z, generator)) / t)
    if hard:
        onehot = torch.zeros_like(soft).scatter_(-1, soft.argmax(-1, keepdim=True), 1.0)
        soft = onehot.masked_fill(_dead_rows(z), 0) + (soft - soft.detach())
    return back(soft)
