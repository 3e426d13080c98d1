"""Softmax and its alternatives as torch functions: x (any shape) -> probabilities along ``dim``.

Common behaviour of every mapping:

* ``dim`` may be negative; empty batch dimensions and n = 1 work; the result has x's dtype
  (float16 / bfloat16 are computed in float32 and cast back).
* ``temperature`` T (finite, non-zero; negative where the mapping allows) gives p = f(x / T).
* ``-inf`` entries are masked out: probability exactly 0 for every T (also T < 0). A row that
  is entirely ``-inf`` gives zeros, and zero gradients, never NaN.
* x must be finite or ``-inf``: a row containing NaN comes out NaN (``+inf`` is not supported).
  Nothing iterates until convergence, so no input can hang.
* Bad parameters raise ``ValueError`` naming the parameter and its valid range.
"""
from __future__ import annotations

import functools
import math
import numbers
from statistics import NormalDist

import numpy as np
import torch

from probcore import threshold
from probcore._validate import (
    check_k_or_top_p,
    check_temperature_or_beta,
    check_alpha,
    check_beta,
    check_k,
    check_noise,
    check_nonnegative,
    check_order,
    check_positive,
    check_positive_int,
    check_positive_temperature,
    check_temperature,
    check_top_p,
)

__all__ = [
    "softmax", "smooth_max", "taylor_softmax", "sparse_softmax", "sparsemax", "entmax15", "entmax",
    "am_softmax", "perturbmax", "perturbmax_sample", "gumbel_softmax",
]

_NEG_INF = float("-inf")


# ------------------------------------------------------------------ shared plumbing

def _lastdim(x, dim):
    """Checks x and dim; returns (x with ``dim`` last in float32/64, restore) where
    ``restore(p)`` gives p x's dtype and layout back."""
    if not isinstance(x, torch.Tensor) or not torch.is_floating_point(x):
        got = f"dtype {x.dtype}" if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(f"x must be a floating tensor (float16, bfloat16, float32 or float64), got {got}")
    nd = x.dim()
    if nd == 0:
        raise ValueError("x must have at least one dimension (the one mapped), got a 0-d tensor")
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or not -nd <= dim < nd:
        raise ValueError(f"dim must be an integer in [{-nd}, {nd - 1}] for this {nd}-d x, got {dim!r}")
    dim = int(dim)
    if x.shape[dim] == 0:
        raise ValueError("x must have at least one entry along dim (n >= 1)")
    dtype = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    return x.movedim(dim, -1).to(dtype), lambda p: p.to(x.dtype).movedim(-1, dim)


def _scaled(z, temperature=1.0, beta=None):
    """z / T (or beta * z); masked (-inf) entries stay -inf whatever the sign."""
    if beta is None:
        t = check_temperature(temperature)
        out, flips = (z if t == 1 else z / t), t < 0
    else:
        b = check_beta(beta)
        out, flips = z * b, b <= 0
    return out.masked_fill(torch.isneginf(z), _NEG_INF) if flips else out


def _dead_rows(z):
    """Rows (keepdim) whose entries are all -inf."""
    return torch.isneginf(z).all(-1, keepdim=True)


def _nan_rows(z, v):
    """v with every row where z has a NaN set to NaN."""
    return v.masked_fill(torch.isnan(z).any(-1, keepdim=True), float("nan"))


def _nonzero(d):
    """Denominator guard: zeros (sums over empty rows) replaced by 1."""
    return d.masked_fill(d == 0, 1)


def _softmax(z):
    """softmax along the last dim; an all -inf row gives zeros (torch gives NaN there). Plain
    torch.softmax unless such a row exists (one max reduction and a host sync to find out)."""
    dead = torch.isneginf(z.amax(-1, keepdim=True))
    if not dead.any():
        return torch.softmax(z, -1)
    return torch.softmax(z.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def _gram_vjp(g, s):
    """g^T J for J = diag(s) - s s^T / sum(s), the Jacobian of softmax (s = p), sparsemax
    (s = 1 on the support) and entmax (s = p^(2 - alpha) on the support)."""
    return s * (g - (g * s).sum(-1, keepdim=True) / _nonzero(s.sum(-1, keepdim=True)))


# ------------------------------------------------------------------ softmax family

def softmax(x, dim=-1, temperature=1.0, beta=None):
    """p_i = exp(x_i / T) / sum_j exp(x_j / T); with ``beta``: p = softmax(beta x) (base e^beta,
    beta < 0 = softmin, beta = 0 uniform). Give either temperature or beta, not both."""
    check_temperature_or_beta(temperature, beta)
    z, back = _lastdim(x, dim)
    return back(_softmax(_scaled(z, temperature, beta)))


def smooth_max(x, dim=-1, temperature=1.0):
    """T * logsumexp(x / T) (no keepdim): a smooth max (T < 0: smooth min); its gradient is
    softmax(x / T). A fully masked row gives -inf (T > 0) or +inf (T < 0)."""
    z, _ = _lastdim(x, dim)
    t = check_temperature(temperature)
    z = _scaled(z, t)
    dead = _dead_rows(z)
    lse = torch.logsumexp(z.masked_fill(dead, 0.0), -1, keepdim=True).masked_fill(dead, _NEG_INF)
    return (t * lse).squeeze(-1).to(x.dtype)


def _taylor_scale(z):
    """Per-row c = max(1, max |z|) over unmasked entries (constant: p does not depend on it)."""
    return z.masked_fill(torch.isneginf(z), 0).abs().amax(-1, keepdim=True).clamp(min=1).detach()


def _taylor_f(z, order, c):
    """f_order(z) / c^order = sum_m u^m c^(m - order) / m! with u = z / c, by Horner (every term
    stays bounded for any |z|); 0 at masked entries."""
    masked = torch.isneginf(z)
    u, r = z.masked_fill(masked, 0) / c, 1 / c
    acc, r_power = torch.full_like(u, 1 / math.factorial(order)), torch.ones_like(c)
    for m in range(order - 1, -1, -1):
        r_power = r_power * r
        acc = acc * u + r_power / math.factorial(m)
    return acc.masked_fill(masked, 0)


def taylor_softmax(x, order=2, dim=-1, temperature=1.0):
    """p_i = f_k(x_i / T) / sum_j f_k(x_j / T), f_k(x) = sum_{m=0..k} x^m / m! (k even, so
    f_k > 0). Not shift invariant. Autograd through the Horner evaluation is exact."""
    order = check_order(order)
    z, back = _lastdim(x, dim)
    z = _scaled(z, temperature)
    f = _taylor_f(z, order, _taylor_scale(z))
    return back(f / _nonzero(f.sum(-1, keepdim=True)))


def sparse_softmax(x, k=None, dim=-1, top_p=None, temperature=1.0):
    """Softmax restricted to a set Omega, 0 elsewhere: p_i = exp(x_i) / sum_{j in Omega} exp(x_j).
    Give exactly one of k (Omega = the k largest, ties in torch.topk order) or top_p (Omega =
    the smallest prefix of the sorted softmax whose mass is >= top_p)."""
    check_k_or_top_p(k, top_p)
    z, back = _lastdim(x, dim)
    z = _scaled(z, temperature)
    keep = torch.zeros_like(z, dtype=torch.bool)
    if k is not None:
        keep.scatter_(-1, z.topk(check_k(k, z.shape[-1]), -1).indices, True)
    else:
        top_p = check_top_p(top_p)
        q, order = _softmax(z.detach()).sort(-1, descending=True)
        keep.scatter_(-1, order, q.cumsum(-1) - q < top_p)  # mass before each entry < top_p
    return back(_nan_rows(z, _softmax(z.masked_fill(~keep, _NEG_INF))))


def am_softmax(x, target, margin=0.35, scale=1.0, dim=-1, temperature=1.0):
    """Additive-margin softmax: p = softmax(scale * (x - margin * onehot(target)) / T), x cosines;
    target: integer class indices, shape of x without ``dim``."""
    z, back = _lastdim(x, dim)
    margin, scale = check_nonnegative("margin", margin), check_positive("scale", scale)
    target = _check_target(target, z)
    onehot = torch.zeros_like(z).scatter_(-1, target.unsqueeze(-1), 1.0)
    return back(_softmax(_scaled(scale * (z - margin * onehot), temperature)))


def _check_target(target, z):
    n, shape = z.shape[-1], z.shape[:-1]
    target = torch.as_tensor(target, device=z.device)
    if target.dtype == torch.bool or target.dtype.is_floating_point or target.dtype.is_complex:
        raise ValueError(f"target must hold integer class indices in [0, {n - 1}], got dtype {target.dtype}")
    try:
        target = target.long().broadcast_to(shape)
    except RuntimeError:
        raise ValueError(
            f"target must have the shape of x without dim, {tuple(shape)}, got {tuple(target.shape)}") from None
    if ((target < 0) | (target >= n)).any():
        raise ValueError(f"target must hold class indices in [0, {n - 1}]")
    return target


# ------------------------------------------------------------------ sparsemax / entmax

def _entmax_value(z, alpha, n_iter=None):
    """entmax_alpha(z) along the last dim (forward only). alpha: a float, or a (..., 1) tensor
    with no row at alpha = 1. 1 -> softmax, 2 -> sparsemax, 1.5 -> exact entmax-1.5, otherwise
    threshold.entmax_threshold (iterative), then renormalised to sum 1 (its tolerance)."""
    if not isinstance(alpha, torch.Tensor):
        if alpha == 1:
            return _softmax(z)
        if alpha == 2:
            return (z - _nan_rows(z, threshold.sparsemax_threshold(z))).clamp(min=0)
        if alpha == 1.5:
            z = z / 2
            return (z - _nan_rows(z, threshold.entmax15_threshold(z))).clamp(min=0) ** 2
    z = (alpha - 1) * z
    p = (z - _nan_rows(z, threshold.entmax_threshold(z, alpha, n_iter))).clamp(min=0) ** (1 / (alpha - 1))
    return p / _nonzero(p.sum(-1, keepdim=True))


def _entmax_forward(z, alpha, n_iter):
    """Like _entmax_value, with per-row alphas routed by torch.where: the rows at 1, 1.5 and 2
    take the exact paths, the others the iterative one."""
    if not isinstance(alpha, torch.Tensor):
        return _entmax_value(z, alpha, n_iter)
    p, general = torch.zeros_like(z), torch.ones_like(alpha, dtype=torch.bool)
    for value in (1.0, 1.5, 2.0):
        rows = alpha == value
        general &= ~rows
        if rows.any():
            p = torch.where(rows, _entmax_value(z, value), p)
    if general.any():
        p = torch.where(general, _entmax_value(z, alpha.masked_fill(~general, 3.0), n_iter), p)
    return p


def _entmax_s(p, alpha):
    """s = p^(2 - alpha) on the support, 0 off it: the Jacobian is diag(s) - s s^T / sum s."""
    if not isinstance(alpha, torch.Tensor):
        if alpha == 1:
            return p
        if alpha == 2:
            return (p > 0).to(p.dtype)
    support = p > 0  # powers taken on the support only, so double backward has no 0 * inf
    positive = p.masked_fill(~support, 1)
    exact15 = not isinstance(alpha, torch.Tensor) and alpha == 1.5
    return torch.where(support, positive.sqrt() if exact15 else positive ** (2 - alpha), 0.0)


def _entmax_dalpha(g, p, s, alpha):
    """<g, dp/dalpha> per row (Peters et al. 2019, as EntmaxBisectFunction):
    sum_i g_i [(p_i - s~_i) / (a-1)^2 - (p_i log p_i - s~_i sum_j p_j log p_j) / (a-1)], s~ = s / sum s;
    at alpha = 1 its limit, sum_i g_i p_i (sum_j p_j log^2 p_j - log^2 p_i) / 2."""
    support = p > 0
    logp = torch.where(support, p.masked_fill(~support, 1).log(), 0.0)
    s_tilde = s / _nonzero(s.sum(-1, keepdim=True))
    one = alpha == 1
    am1 = torch.where(one, 1.0, alpha - 1)
    plogp = p * logp
    general = (p - s_tilde) / am1**2 - (plogp - s_tilde * plogp.sum(-1, keepdim=True)) / am1
    at_one = 0.5 * p * ((plogp * logp).sum(-1, keepdim=True) - logp**2)
    return (g * torch.where(one, at_one, general)).sum(-1, keepdim=True)


class _Entmax(torch.autograd.Function):
    """alpha-entmax along the last dim with the closed-form backward
    dz = s * (g - <g, s> / sum s), s = p^(2 - alpha) on the support (O(n) per row, nothing but
    p saved), and d alpha from _entmax_dalpha when alpha is a tensor that needs it. The
    backward is written in differentiable ops of the saved output, so double backward works."""

    @staticmethod
    def forward(z, alpha, n_iter):
        return _entmax_forward(z, alpha, n_iter)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, alpha, _ = inputs
        is_tensor = isinstance(alpha, torch.Tensor)
        ctx.alpha = None if is_tensor else alpha
        ctx.save_for_backward(output, alpha if is_tensor else None)

    @staticmethod
    def backward(ctx, g):
        p, alpha = ctx.saved_tensors
        alpha = ctx.alpha if alpha is None else alpha
        s = _entmax_s(p, alpha)
        dalpha = _entmax_dalpha(g, p, s, alpha) if ctx.needs_input_grad[1] else None
        return _gram_vjp(g, s), dalpha, None


def sparsemax(x, dim=-1, temperature=1.0):
    """p = relu(z - tau), z = x / T, tau such that sum p = 1 (Euclidean projection onto the
    simplex). Jacobian on the support S: I - 11^T / |S| (over T)."""
    z, back = _lastdim(x, dim)
    return back(_Entmax.apply(_scaled(z, temperature), 2.0, None))


def entmax15(x, dim=-1, temperature=1.0):
    """1.5-entmax: p = relu(z / 2 - tau)^2, z = x / T, sum p = 1 (exact, by sorting)."""
    z, back = _lastdim(x, dim)
    return back(_Entmax.apply(_scaled(z, temperature), 1.5, None))


def entmax(x, alpha=1.5, dim=-1, temperature=1.0, n_iter=None):
    """alpha-entmax: p = relu((alpha - 1) z - tau)^(1 / (alpha - 1)), z = x / T, sum p = 1.

    alpha >= 1: a float, or a tensor broadcastable to x with size 1 along ``dim`` (one alpha
    per row), differentiable in x and alpha. alpha = 1 is exactly softmax, 2 exactly sparsemax,
    1.5 exactly entmax15 (per row too); other values solve for tau iteratively (``n_iter``: at
    most that many iterations; default: to the dtype's resolution) and are renormalised to sum 1."""
    z, back = _lastdim(x, dim)
    z = _scaled(z, temperature)
    if n_iter is not None:
        n_iter = check_positive_int("n_iter", n_iter)
    if not isinstance(alpha, torch.Tensor):
        alpha = check_alpha(alpha)
        return back(_softmax(z) if alpha == 1 else _Entmax.apply(z, alpha, n_iter))
    return back(_Entmax.apply(z, _alpha_rows(alpha, x, dim, z), n_iter))


def _alpha_rows(alpha, x, dim, z):
    """alpha tensor -> (..., 1) aligned with z (dim moved last), after checking it."""
    if not (alpha.dtype.is_floating_point or alpha.dtype in (torch.int32, torch.int64)):
        raise ValueError(f"alpha must be a real number or a real tensor, got dtype {alpha.dtype}")
    if torch.isnan(alpha).any() or (alpha < 1).any() or torch.isinf(alpha).any():
        raise ValueError("alpha must be a finite real >= 1 (every entry of the alpha tensor)")
    dim = dim % x.dim()
    if alpha.dim() > x.dim():
        raise ValueError(f"alpha must have at most {x.dim()} dimensions (those of x), got {alpha.dim()}")
    alpha = alpha.reshape((1,) * (x.dim() - alpha.dim()) + alpha.shape)
    if alpha.shape[dim] != 1:
        raise ValueError(f"alpha must have size 1 along dim (one alpha per row), got shape {tuple(alpha.shape)}")
    try:
        return alpha.movedim(dim, -1).to(z.dtype).expand(*z.shape[:-1], 1)
    except RuntimeError:
        raise ValueError(
            f"alpha of shape {tuple(alpha.shape)} does not broadcast to x of shape {tuple(x.shape)}") from None


# ------------------------------------------------------------------ perturb-max

_TAIL = 1e-12  # probability mass of the max left outside the quadrature range, each side


def _noise_range(noise, n):
    """[lo, hi] holding all but _TAIL of each tail of max_j(x_j + e_j) - max(x), and the
    trapezoid step. The max lies above Q(_TAIL) and below Q(1 - _TAIL / n)."""
    a, b = _TAIL, _TAIL / n
    if noise == "gumbel":
        return -math.log(-math.log(a)), -math.log(-math.log1p(-b)), 0.3
    if noise == "logistic":
        return math.log(a / (1 - a)), math.log((1 - b) / b), 0.3
    # normal: the max of n normals narrows like 1 / sqrt(2 log n), so the step does too
    return NormalDist().inv_cdf(a), -NormalDist().inv_cdf(b), min(0.3, 0.6 / math.sqrt(2 * math.log(n) + 1))


def _log_cdf(noise, u):
    if noise == "gumbel":
        return -torch.exp(-u)
    if noise == "logistic":
        return -torch.nn.functional.softplus(-u)
    return torch.special.log_ndtr(u)


def _log_pdf_over_cdf(noise, u):
    """log(pdf / CDF), the log reverse hazard."""
    if noise == "gumbel":
        return -u
    if noise == "logistic":
        return -torch.nn.functional.softplus(u)
    return -0.5 * u * u - 0.5 * math.log(2 * math.pi) - torch.special.log_ndtr(u)


@functools.lru_cache(maxsize=64)
def _gauss_legendre01(k):
    nodes, weights = np.polynomial.legendre.leggauss(k)
    return (nodes + 1) / 2, weights / 2


def _prod_others(f, dim):
    """prod_{j != i} f_j along dim, without division (f may hold zeros)."""
    ones = torch.ones_like(f.narrow(dim, 0, 1))
    n = f.shape[dim]
    before = torch.cat([ones, f.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = torch.cat([f.narrow(dim, 1, n - 1), ones], dim).flip(dim).cumprod(dim).flip(dim)
    return before * after


def _perturbmax_smooth(z, noise, n_points):
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


def _perturbmax_uniform(z, n_points):
    """Uniform noise on (-1/2, 1/2): between the breakpoints z_j +- 1/2 the integrand
    1[|t - z_i| < 1/2] prod_{j != i} clamp(t - z_j + 1/2, 0, 1) is a polynomial of degree < n, so
    Gauss-Legendre with ceil(n / 2) nodes per piece is exact (default: at most 16 nodes, exact up
    to n = 32). Cost O(n^2 * nodes) per row."""
    n = z.shape[-1]
    k = n_points or min(-(-n // 2), 16)
    zmax = z.amax(-1, keepdim=True)
    c = (z - zmax.masked_fill(torch.isneginf(zmax), 0)).masked_fill(torch.isneginf(z), -2.0)  # <= 0
    # breakpoints; the max lies in [-1/2, 1/2] and the integrand is 0 below, so clamping far
    # entries to [-1, 1] changes nothing (the ends of [-1/2, 1/2] stay ordinary breakpoints)
    b = torch.cat([c - 0.5, c + 0.5], -1).clamp(-1, 1).sort(-1).values
    lo, width = b[..., :-1, None], (b[..., 1:] - b[..., :-1])[..., None]
    nodes, weights = (torch.as_tensor(a, dtype=z.dtype, device=z.device) for a in _gauss_legendre01(k))
    t = (lo + width * nodes).flatten(-2)[..., None, :]  # (..., 1, pieces * k)
    w = (width * weights).flatten(-2)[..., None, :]
    mid = (lo + width / 2).expand(*lo.shape[:-1], k).flatten(-2)[..., None, :]
    cdf = (t - c[..., None] + 0.5).clamp(0, 1)  # (..., n, pieces * k)
    inside = (mid - c[..., None]).abs() < 0.5  # pdf of entry i, constant on each piece
    return (inside * _prod_others(cdf, -2) * w).sum(-1)


def perturbmax(x, noise="gumbel", dim=-1, temperature=1.0, n_points=None):
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


def _noise(noise, shape, like, generator):
    """iid standard noise (the distributions of perturbmax) in like's dtype and device."""
    if noise == "normal":
        return torch.randn(shape, generator=generator, dtype=like.dtype, device=like.device)
    u = torch.rand(shape, generator=generator, dtype=like.dtype, device=like.device)
    if noise == "uniform":
        return u - 0.5
    u = u.clamp(min=torch.finfo(like.dtype).tiny)  # rand may give 0; u < 1 always
    return u.log() - torch.log1p(-u) if noise == "logistic" else -torch.log(-torch.log(u))


def perturbmax_sample(x, noise="gumbel", n_samples=1000, dim=-1, temperature=1.0, generator=None):
    """Monte-Carlo perturbmax: the frequency of argmax(x / T + eps) = i over ``n_samples`` noise
    draws (from ``generator``). Not differentiable (the frequencies are counts)."""
    noise = check_noise(noise)
    n_samples = check_positive_int("n_samples", n_samples)
    z, back = _lastdim(x, dim)
    z = _scaled(z, temperature).detach()
    winners = (z + _noise(noise, (n_samples, *z.shape), z, generator)).argmax(-1).movedim(0, -1)
    counts = torch.zeros_like(z).scatter_add_(-1, winners, torch.ones_like(winners, dtype=z.dtype))
    return back(_nan_rows(z, (counts / n_samples).masked_fill(_dead_rows(z), 0)))


def gumbel_softmax(x, temperature=1.0, hard=False, dim=-1, generator=None):
    """Soft sample softmax((x + g) / T), g iid gumbel(0, 1) from ``generator``, T > 0. With
    hard=True the forward value is the one-hot argmax and the gradient that of the soft sample
    (straight-through)."""
    t = check_positive_temperature(temperature)
    if not isinstance(hard, bool):
        raise ValueError(f"hard must be True or False, got {hard!r}")
    z, back = _lastdim(x, dim)
    soft = _softmax((z + _noise("gumbel", z.shape, z, generator)) / t)
    if hard:
        onehot = torch.zeros_like(soft).scatter_(-1, soft.argmax(-1, keepdim=True), 1.0)
        soft = onehot.masked_fill(_dead_rows(z), 0) + (soft - soft.detach())
    return back(soft)
