"""Softmax and its alternatives as torch functions: x (any shape) -> probabilities along ``dim``.

Common behaviour of every mapping:

* ``dim`` may be negative; empty batch dimensions and n = 1 work; the result has x's dtype
  (float16 / bfloat16 are computed in float32 and cast back).
* ``temperature`` T (finite, non-zero; negative where the mapping allows) gives p = f(x / T).
* ``-inf`` entries are masked out: probability exactly 0 for every T (also T < 0). A row that
  is entirely ``-inf`` gives zeros, and zero gradients, never NaN.
* x must be finite or ``-inf``: a row containing NaN comes out NaN (``+inf`` is not supported).
  Every loop is bounded, so no input can hang.
* Bad parameters raise ``ValueError`` naming the parameter and its valid range.

sparsemax / entmax keep their CPU scratch in a per-thread workspace between calls (threshold.scratch:
at most three tensors per dtype of up to 16 MB each, grown to the largest input seen), since fresh memory
costs more in page faults than the passes on short rows; the results never share it.
"""

from __future__ import annotations

import itertools
import math
import numbers
from typing import Any, Callable

import torch
from torch import Tensor

from probcore import fused as _fused
from probcore import threshold
from probcore._api import old_positions
from probcore._trace import traced
from probcore.errors import ProbcoreError
from probcore._validate import (
    check_k_or_top_p,
    check_temperature_or_beta,
    check_alpha,
    check_beta,
    check_k,
    check_nonnegative,
    check_order,
    check_positive,
    check_positive_int,
    check_temperature,
    check_top_p,
)

__all__ = [
    "softmax",
    "smooth_max",
    "taylor_softmax",
    "sparse_softmax",
    "sparsemax",
    "entmax15",
    "entmax",
    "am_softmax",
    "perturbmax",
    "perturbmax_sample",
    "gumbel_softmax",
]

_NEG_INF = float("-inf")


# ------------------------------------------------------------------ shared plumbing


def _lastdim(x: Tensor, dim: int) -> tuple[Tensor, Callable[[Tensor], Tensor]]:
    """Checks x and dim; returns (x with ``dim`` last in float32/64, restore) where
    ``restore(p)`` gives p x's dtype and layout back."""
    if not isinstance(x, torch.Tensor) or not torch.is_floating_point(x):
        got = f"dtype {x.dtype}" if isinstance(x, torch.Tensor) else type(x).__name__
        raise ProbcoreError("x_dtype", got=got)
    nd = x.dim()
    if nd == 0:
        raise ProbcoreError("x_scalar")
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or not -nd <= dim < nd:
        raise ProbcoreError("dim", low=-nd, high=nd - 1, ndim=nd, value=repr(dim))
    dim = int(dim)
    if x.shape[dim] == 0:
        raise ProbcoreError("x_empty")
    if dim % nd == nd - 1 and x.dtype in (torch.float32, torch.float64):  # as it is (no movedim / to calls)
        return x, _same
    dtype = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    return x.movedim(dim, -1).to(dtype), lambda p: p.to(x.dtype).movedim(-1, dim)


def _same(p: Tensor) -> Tensor:
    return p


def _scaled(z: Tensor, temperature: float = 1.0, beta: float | None = None) -> Tensor:
    """z / T (or beta * z); masked (-inf) entries stay -inf whatever the sign."""
    if beta is None:
        t = check_temperature(temperature)
        out, flips = (z if t == 1 else z / t), t < 0
    else:
        b = check_beta(beta)
        out, flips = z * b, b <= 0
    return out.masked_fill(torch.isneginf(z), _NEG_INF) if flips else out


def _shifted_scaled(z: Tensor, temperature: float = 1.0, beta: float | None = None) -> Tensor:
    """_scaled(z - m), m the row's entry that is largest after the scaling (its max, or its min
    where T or beta < 0), taken as a constant: for maps that are shift invariant. The shift
    comes before the division, so large logits keep their digits at any T (z / T would round
    each entry by eps |z| first). z itself at T = 1."""
    if beta is None and check_temperature(temperature) == 1:
        return z
    flips = (beta if beta is not None else temperature) < 0
    fixed = z.detach()
    m = (
        fixed.masked_fill(torch.isneginf(fixed), math.inf).amin(-1, keepdim=True)
        if flips
        else fixed.amax(-1, keepdim=True)
    )
    return _scaled(z - m.masked_fill(~torch.isfinite(m), 0), temperature, beta)


def _dead_rows(z: Tensor) -> Tensor:
    """Rows (keepdim) whose entries are all -inf."""
    return torch.isneginf(z).all(-1, keepdim=True)


def _nan_rows(z: Tensor, v: Tensor) -> Tensor:
    """v with every row where z has a NaN set to NaN."""
    return v.masked_fill(torch.isnan(z).any(-1, keepdim=True), float("nan"))


def _nonzero(d: Tensor) -> Tensor:
    """Denominator guard: zeros (sums over empty rows) replaced by 1."""
    return d.masked_fill(d == 0, 1)


def _softmax(z: Tensor) -> Tensor:
    """softmax along the last dim; an all -inf row gives zeros (torch gives NaN there). Plain
    torch.softmax unless such a row exists (one max reduction and a host sync to find out; traced:
    the masking always, without the sync)."""
    dead = torch.isneginf(z.amax(-1, keepdim=True))
    if not traced() and not dead.any():
        return torch.softmax(z, -1)
    return torch.softmax(z.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def _gram_vjp(g: Tensor, s: Tensor) -> Tensor:
    """g^T J for J = diag(s) - s s^T / sum(s), the Jacobian of softmax (s = p), sparsemax
    (s = 1 on the support) and entmax (s = p^(2 - alpha) on the support)."""
    return s * (g - (g * s).sum(-1, keepdim=True) / _nonzero(s.sum(-1, keepdim=True)))


def _gram_vjp_log(g: Tensor, log_s: Tensor) -> Tensor:
    """_gram_vjp from log s (-inf off the support), for s = p^(2 - alpha) with alpha > 2, which
    overflows where p is tiny although g^T J stays finite: with r = s / max s,
    dz_i = s_i (g_i - <g, r> / sum r) for i other than the row's largest s (index m), and
    dz_m = sum_{j != m} s_j (g_m - g_j) / sum r (no cancellation of the dominant term)."""
    top = log_s.amax(-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, 0.0)
    m = log_s.argmax(-1, keepdim=True)
    is_top = torch.arange(log_s.shape[-1], device=log_s.device) == m  # (vmap has no batching rule for scatter_)
    r = (log_s - top).exp()
    total = _nonzero(r.sum(-1, keepdim=True))
    others = log_s.masked_fill(is_top, float("-inf")).exp()  # s off the top entry
    dz = others * (g - (g * r).sum(-1, keepdim=True) / total)
    dz_top = (others * (g.gather(-1, m) - g)).sum(-1, keepdim=True) / total
    return torch.where(is_top, dz_top, dz)


# ------------------------------------------------------------------ softmax family


@old_positions("dim", "temperature", "beta", kept=1)
def softmax(x: Tensor, dim: int = -1, *, temperature: float = 1.0, beta: float | None = None) -> Tensor:
    """p_i = exp(x_i / T) / sum_j exp(x_j / T); with ``beta``: p = softmax(beta x) (base e^beta,
    beta < 0 = softmin, beta = 0 uniform). Give either temperature or beta, not both."""
    check_temperature_or_beta(temperature, beta)
    z, back = _lastdim(x, dim)
    return back(_softmax(_shifted_scaled(z, temperature, beta)))


@old_positions("dim", "temperature", kept=1)
def smooth_max(x: Tensor, dim: int = -1, *, temperature: float = 1.0) -> Tensor:
    """T * logsumexp(x / T) (no keepdim): a smooth max (T < 0: smooth min); its gradient is
    softmax(x / T). A fully masked row gives -inf (T > 0) or +inf (T < 0)."""
    z, _ = _lastdim(x, dim)
    t = check_temperature(temperature)
    z = _scaled(z, t)
    dead = _dead_rows(z)
    lse = torch.logsumexp(z.masked_fill(dead, 0.0), -1, keepdim=True).masked_fill(dead, _NEG_INF)
    return (t * lse).squeeze(-1).to(x.dtype)


def _taylor_scale(z: Tensor) -> Tensor:
    """Per-row c = max(1, max |z|) over unmasked entries (constant: p does not depend on it)."""
    return z.masked_fill(torch.isneginf(z), 0).abs().amax(-1, keepdim=True).clamp(min=1).detach()


def _taylor_f(z: Tensor, order: int, c: Tensor) -> Tensor:
    """f_order(z) / c^order = sum_m u^m c^(m - order) / m! with u = z / c, by Horner (every term
    stays bounded for any |z|); 0 at masked entries."""
    masked = torch.isneginf(z)
    u, r = z.masked_fill(masked, 0) / c, 1 / c
    inverse_factorials = list(itertools.accumulate(range(1, order + 1), lambda f, m: f / m, initial=1.0))
    acc, r_power = torch.full_like(u, inverse_factorials[order]), torch.ones_like(c)
    for m in range(order - 1, -1, -1):
        r_power = r_power * r
        acc = acc * u + r_power * inverse_factorials[m]
    return acc.masked_fill(masked, 0)


@old_positions("order", "dim", "temperature")
def taylor_softmax(x: Tensor, *, dim: int = -1, order: int = 2, temperature: float = 1.0) -> Tensor:
    """p_i = f_k(x_i / T) / sum_j f_k(x_j / T), f_k(x) = sum_{m=0..k} x^m / m! (k even, so
    f_k > 0). Not shift invariant. Autograd through the Horner evaluation is exact."""
    order = check_order(order)
    z, back = _lastdim(x, dim)
    z = _scaled(z, temperature)
    f = _taylor_f(z, order, _taylor_scale(z))
    return back(f / _nonzero(f.sum(-1, keepdim=True)))


@old_positions("k", "dim", "top_p", "temperature")
def sparse_softmax(
    x: Tensor, *, dim: int = -1, k: int | None = None, top_p: float | None = None, temperature: float = 1.0
) -> Tensor:
    """Softmax restricted to a set Omega, 0 elsewhere: p_i = exp(x_i) / sum_{j in Omega} exp(x_j).
    Give exactly one of k (Omega = the k largest, ties in torch.topk order) or top_p (Omega =
    the smallest prefix of the sorted softmax whose mass is >= top_p)."""
    check_k_or_top_p(k, top_p)
    z, back = _lastdim(x, dim)
    z = _shifted_scaled(z, temperature)
    keep = torch.zeros_like(z, dtype=torch.bool)
    if k is not None:
        keep = keep.scatter(-1, z.topk(check_k(k, z.shape[-1]), -1).indices, True)
    else:
        top_p = check_top_p(top_p)
        q, order = _softmax(z.detach()).sort(-1, descending=True)
        keep = keep.scatter(-1, order, q.cumsum(-1) - q < top_p)  # mass before each entry < top_p
    return back(_nan_rows(z, _softmax(z.masked_fill(~keep, _NEG_INF))))


@old_positions("target", "margin", "scale", "dim", "temperature", kept=1)
def am_softmax(
    x: Tensor,
    target: Tensor | int,
    *,
    dim: int = -1,
    margin: float = 0.35,
    scale: float = 30.0,
    temperature: float = 1.0,
) -> Tensor:
    """Additive-margin softmax: p = softmax(scale * (x - margin * onehot(target)) / T), x cosines;
    target: integer class indices, shape of x without ``dim``. scale 30 and margin 0.35 by default,
    as am_softmax_loss and the paper (Wang et al. 2018)."""
    z, back = _lastdim(x, dim)
    margin, scale = check_nonnegative("margin", margin), check_positive("scale", scale)
    target = _check_target(target, z)
    onehot = torch.zeros_like(z).scatter_(-1, target.unsqueeze(-1), 1.0)
    return back(_softmax(_scaled(scale * (z - margin * onehot), temperature)))


def _check_target(target: Tensor | int, z: Tensor) -> Tensor:
    n, shape = z.shape[-1], z.shape[:-1]
    target = torch.as_tensor(target, device=z.device)
    if target.dtype == torch.bool or target.dtype.is_floating_point or target.dtype.is_complex:
        raise ProbcoreError("target_dtype", high=n - 1, dtype=str(target.dtype))
    try:
        target = target.long().broadcast_to(shape)
    except RuntimeError:
        raise ProbcoreError("target_shape", shape=str(tuple(shape)), got=str(tuple(target.shape))) from None
    if not traced() and ((target < 0) | (target >= n)).any():  # (unchecked when traced: no host sync)
        raise ProbcoreError("target_range", high=n - 1)
    return target


# ------------------------------------------------------------------ sparsemax / entmax

_Weights = Callable[[slice, Tensor], Tensor]  # weights(rows, out) -> s on those rows, written into out

_CHUNK = 1 << 20  # entries per chunk of the dense backward's scratch (4 MB of float32, in the workspace)


def _entmax_float(z: Tensor, alpha: float, n_iter: int | None = None) -> tuple[Tensor, bool, tuple[Any, ...]]:
    """(p, sparse, saved) of entmax_alpha(z) along the last dim for a float alpha (forward only):
    saved is what the backward needs besides p (see _Entmax). 1 -> softmax, 2 -> sparsemax, 1.5 ->
    exact entmax-1.5, otherwise threshold.entmax_threshold's Newton, then renormalised to sum 1
    (its tolerance).

    Everything is computed on z' = (alpha - 1) z shifted by its row max (threshold_candidates),
    so large logits keep the digits of p; for a general alpha z is shifted by its max before the
    scaling (z' = (alpha - 1)(z - max z)), so the product rounds small numbers only. Sparse path, when the threshold screened the rows down
    to candidates: p = 0 except at the candidates, whose p and s = p^(2 - alpha) are computed
    alone and scattered; sparse = True, saved = (index, s at the candidates, tau). Whole rows: p
    as the threshold's last pass made it (small inputs, sorted outright: from tau); saved =
    (z, shift, tau, total), from which the backward rebuilds s chunk by chunk (total: None where
    not needed; shift: the row max of z itself for a general alpha; softmax: saved = ()). A row holding NaN gets tau = NaN, so p (and the gradient)
    is NaN on the whole row; a fully masked row gets tau = +inf, so p = 0 there."""
    if alpha == 1:
        return _softmax(z), False, ()
    if alpha in (1.5, 2):  # (scaled by 1 and 1/2: exact)
        cand = threshold.threshold_candidates(z, alpha, n_iter)
        shift = cand.shift
    else:
        shift = _finite_max(z)
        cand = threshold.threshold_candidates(z - shift, alpha, n_iter)
    if cand.values is not None and cand.columns is not None:
        return _entmax_sparse(z, alpha, cand.tau, cand.values, cand.columns)
    tau = cand.tau
    if cand.shifted is not None:  # small inputs, sorted outright (alpha 2 and 1.5 only): p from tau
        d = cand.shifted.view(z.shape).sub_(tau).clamp_(min=0)
        return (d if alpha == 2 else d.mul_(d)), False, (z, shift, tau, None)
    assert cand.p is not None and cand.mass is not None, "whole rows: the threshold's last pass wrote p"
    p = cand.p.view(z.shape)
    if alpha in (1.5, 2):
        return p, False, (z, shift, tau, None)
    total = _nonzero(cand.mass.view(tau.shape))  # sum p, from the pass that wrote p
    return p.div_(total), False, (z, shift, tau, total)


def _finite_max(z: Tensor) -> Tensor:
    """Row max (keepdim, a constant), 0 where it is not finite (masked rows stay -inf, NaN rows NaN)."""
    zmax = z.detach().amax(-1, keepdim=True)
    return zmax.masked_fill(~torch.isfinite(zmax), 0)


def _entmax_sparse(
    z: Tensor, alpha: float, tau: Tensor, values: Tensor, columns: Tensor
) -> tuple[Tensor, bool, tuple[Tensor, ...]]:
    """Sparse path of _entmax_float: p and s on the candidates (small; values and columns as
    threshold.Candidates has them), scattered into zeros."""
    n = z.shape[-1]
    tau = tau.reshape(-1, 1)
    d = (values - tau).clamp_(min=0)  # -inf padding -> 0
    if alpha == 2:
        p, s = d, torch.sign(d)
    elif alpha == 1.5:
        p, s = d * d, d
    else:
        s = _power(d, 1 / (alpha - 1) - 1)
        p = s * d
        total = _nonzero(p.sum(-1, keepdim=True))
        p.div_(total)
        s.mul_(total.pow(alpha - 2))  # s = p^(2 - alpha) of the renormalised p
    out = torch.zeros((tau.shape[0], n), dtype=z.dtype, device=z.device).scatter_add_(-1, columns, p)
    _fill_nan_rows(out, tau)
    return out.view(z.shape), True, (columns, s, tau)


def _fill_nan_rows(rows: Tensor, tau: Tensor) -> None:
    """rows (2-D) set to NaN where tau is NaN (the candidates of such rows are arbitrary)."""
    nan = torch.isnan(tau).squeeze(-1)
    if bool(nan.any()):
        rows.index_fill_(0, nan.nonzero().squeeze(-1), float("nan"))


def _power(d: Tensor, q: float) -> Tensor:
    """d^q for d >= 0 (0 where d = 0 for any real q; products where q allows: torch.pow is slow)."""
    if q in (2, 3, 4):
        out = d * d
        return out if q == 2 else out.mul_(d) if q == 3 else out.mul_(out)
    if q > 0:
        return d.pow(q)
    return torch.where(d > 0, d.masked_fill(d == 0, 1).pow(q), 0.0)


def _entmax_weights(alpha: float, p: Tensor, z: Tensor, shift: Tensor, tau: Tensor, total: Tensor | None) -> _Weights:
    """weights(rows, out) -> s = p^(2 - alpha) on those rows (a slice of the flattened rows), written into out, rebuilt
    from the forward's p, z, shift, tau and total by cheap elementwise ops (no root or power of
    the zeros off the support: those are slow), with d as the forward had it,
    relu(z / 2 - shift - tau) (entmax-1.5) or relu((alpha - 1)(z - shift) - tau) (general alpha):
    sparsemax s = sign(p); entmax-1.5 s = d; general alpha s = d^(q - 1) total^(alpha - 2) = (p / d) total^(alpha - 1), q = 1 / (alpha - 1), with d
    clamped to the smallest normal (p = 0 wherever d = 0, so s = 0 there)."""
    n = p.shape[-1]
    p = p.reshape(-1, n)
    if alpha == 2:
        return lambda rows, out: torch.sign(p[rows], out=out)  # p >= 0 (NaN rows: see _chunked_vjp)
    z, shift, tau = z.reshape(-1, n), shift.reshape(-1, 1), tau.reshape(-1, 1)
    if alpha == 1.5:
        return lambda rows, out: torch.mul(z[rows], 0.5, out=out).sub_(shift[rows]).sub_(tau[rows]).clamp_(min=0)

    def d(rows: slice, out: Tensor, low: float) -> Tensor:
        return torch.sub(z[rows], shift[rows], out=out).mul_(alpha - 1).sub_(tau[rows]).clamp_(min=low)

    assert total is not None, "a general alpha saves sum p"
    scale = total.reshape(-1, 1).pow(alpha - 1)
    tiny = torch.finfo(p.dtype).tiny

    def weights(rows: slice, out: Tensor) -> Tensor:
        dr = d(rows, out, tiny)
        return torch.div(p[rows], dr, out=dr).mul_(scale[rows])

    return weights


def _chunked_vjp(g: Tensor, weights: _Weights, shape: torch.Size, tau: Tensor) -> Tensor:
    """g^T (diag(s) - s s^T / sum s) = s * g - s <g, s> / sum s, row chunk by row chunk: s comes
    from weights(rows, out) for a slice of about _CHUNK entries, written into the threshold's
    workspace, so the only new full-size tensor is the result. Not differentiable (the backward
    of a backward goes through _gram_vjp). Empty support: 0; NaN row (tau NaN): NaN."""
    n = shape[-1]
    g = g.reshape(-1, n)
    out = torch.empty(g.shape, dtype=g.dtype, device=g.device)
    step = max(1, _CHUNK // n)
    tiny = torch.finfo(g.dtype).tiny
    scratch = threshold.scratch(g[:step], 0)
    for start in range(0, len(out), step):
        rows = slice(start, start + step)
        s = weights(rows, scratch[: len(g[rows])])
        o = torch.mul(s, g[rows], out=out[rows])
        v = o.sum(-1, keepdim=True).div_(s.sum(-1, keepdim=True).clamp_(min=tiny))
        o.addcmul_(s, v, value=-1)
    _fill_nan_rows(out, tau.reshape(-1, 1))  # (sign(NaN) is 0: sparsemax's s misses them)
    return out.reshape(shape)


def _sparse_vjp(g: Tensor, index: Tensor, s: Tensor, tau: Tensor, shape: torch.Size) -> Tensor:
    """The same product when s is 0 off the candidates (index, s: (rows, width), s = 0 on the
    padding): computed on the candidates and scattered into zeros."""
    g = g.reshape(-1, shape[-1])
    u = s * g.gather(-1, index)
    v = u.sum(-1, keepdim=True).div_(s.sum(-1, keepdim=True).clamp_(min=torch.finfo(g.dtype).tiny))
    u.addcmul_(s, v, value=-1)
    out = torch.zeros(g.shape, dtype=g.dtype, device=g.device).scatter_add_(-1, index, u)
    _fill_nan_rows(out, tau)
    return out.reshape(shape)


_SMOOTH_BELOW = 1.25  # alpha below this (and != 1): _entmax_smooth; float32 within 1e-6 of float64 there


def _log_exp_alpha(u: Tensor, b: Tensor | float) -> Tensor:
    """log exp_alpha(u) = log1p(b u) / b, b = alpha - 1 != 0: exp_alpha(u) = [1 + b u]_+^(1 / b) tends
    to e^u as b -> 0 with the digits of softmax (log1p); -inf where 1 + b u <= 0 (off the support)."""
    w = b * u
    return torch.where(w > -1, torch.log1p(w.clamp(min=-1)) / b, _NEG_INF)


def _entmax_smooth(z: Tensor, alpha: Tensor | float, n_iter: int | None = None) -> Tensor:
    """alpha-entmax along the last dim as p_i = exp_alpha(z_i - lam) with sum p = 1, for alpha in
    (0, 1) or near 1 (a float, or a (..., 1) tensor; alpha != 1). The same map as
    relu((alpha - 1) z - tau)^(1 / (alpha - 1)) with tau = (alpha - 1) lam - 1, but lam is found in
    the units of z (relative to the row max, as softmax's log-partition), so p keeps softmax's
    digits as alpha -> 1, where tau -> -1 would lose eps / (alpha - 1). alpha < 1: every
    unmasked p_i > 0 (dense).

    lam lies in [0, (1 - n^(1 - alpha)) / (alpha - 1)] (the max alone has mass 1 at 0; n equal
    entries have mass 1 at the top): safeguarded Newton on log sum p (linear in lam at alpha = 1,
    so one step from logsumexp is exact there), bisection when a step leaves the bracket, until
    |log sum p| <= 4 eps or lam stops moving (at most ``n_iter`` steps, default 100); then
    renormalised. Fully masked row: zeros; a row holding NaN or +inf: NaN."""
    b = alpha - 1
    zmax = z.amax(-1, keepdim=True)
    finite = torch.isfinite(zmax)
    y = z - zmax.masked_fill(~finite, 0)
    log_n = (~torch.isneginf(z)).sum(-1, keepdim=True).clamp(min=1).to(z.dtype).log()
    lo, hi = torch.zeros_like(zmax), -torch.expm1(-b * log_n) / b
    lam = torch.logsumexp(y.masked_fill(~finite, 0), -1, keepdim=True).clamp(min=0)
    lam, hi = torch.minimum(lam, hi), hi.expand_as(lam)
    tol, done = 4 * torch.finfo(z.dtype).eps, ~finite
    for _ in range(n_iter or 100):
        logp = _log_exp_alpha(y - lam, b)
        mass = logp.exp().sum(-1, keepdim=True)
        slope = (logp * (1 - b)).exp().sum(-1, keepdim=True)  # sum p^(2 - alpha) = -d mass / d lam
        log_mass = mass.log()
        above = mass >= 1
        lo, hi = torch.where(above, lam, lo), torch.where(above, hi, lam)
        new = lam + log_mass * mass / slope
        new = torch.where((new >= lo) & (new <= hi), new, (lo + hi) / 2)
        converged, small_step = log_mass.abs() <= tol, (new - lam).abs() <= tol * (1 + lam.abs())
        lam = torch.where(done | converged, lam, new)
        done = done | converged | small_step
        if not traced() and bool(done.all()):  # (traced: every step, no host sync)
            break
    p = _log_exp_alpha(y - lam, b).exp()
    p = p / _nonzero(p.sum(-1, keepdim=True))
    return p.masked_fill(torch.isneginf(zmax), 0).masked_fill(~finite & ~torch.isneginf(zmax), float("nan"))


_EXACT_ABOVE = 2.0  # alpha above this: _entmax_large (p = d^(1/(alpha-1)) would lose p's digits to tau's rounding)
_LARGE_NEWTON = 40  # Newton steps of _entmax_large at most (12 at most measured for alpha 2.1 to 1000; traced: all 40)


def _entmax_large(z: Tensor, alpha: Tensor | float, n_iter: int | None = None) -> Tensor:
    """alpha-entmax along the last dim for alpha > 2 (a float or a (..., 1) tensor), exact: every
    p_i to a few units of the dtype's eps, however close to 0.

    With b = alpha - 1, q = 1/b and the entries sorted, x_(1) >= x_(2) >= ..., p_i^b = (b z_i - tau)
    differs between entries by b (z_i - z_j) exactly, so with K the support size and
    w = p_(K) (the smallest p of the support):
        p_(i) = (w^b + c_i)^q,  c_i = b (z_(i) - z_(K)) >= 0,  sum_{i <= K} p_(i) = 1,
    where no quantity comes from a difference of nearly equal numbers (p = (b z - tau)^q does:
    at alpha = 55.7, top two logits 0.0057 apart, p_(2)^b = 1e-92 is b z_(2) - tau, tau = -0.31).
    K = max{k : sum_{i<k} (b (z_(i) - z_(k)))^q < 1} (monotone in k: binary search on the sorted
    row). g(w) = sum_i (w^b + c_i)^q is increasing and convex, g(1/K) >= 1: Newton from w = 1/K
    descends monotonically to the root (g' >= 1); the terms are taken in log space,
    q logaddexp(b log w, log c_i), so nothing underflows. Computed in float64 (float32 input:
    the differences z_(i) - z_(K) are exact), p renormalised to sum 1 and scattered back.
    A row holding NaN / +inf comes out NaN, a fully -inf row 0. No host sync when traced (the
    Newton loop then runs all its steps)."""
    zmax = z.detach().amax(-1, keepdim=True)
    finite = torch.isfinite(zmax)
    x = z.detach().to(torch.float64)
    b = torch.as_tensor(alpha, dtype=torch.float64, device=z.device) - 1
    q = 1 / b
    xs, order = x.masked_fill(~finite, 0.0).sort(-1, descending=True)
    n = z.shape[-1]
    position = torch.arange(n, device=z.device)
    lo = torch.zeros_like(zmax, dtype=torch.long)  # support size - 1 (index of the smallest support entry)
    hi = torch.full_like(lo, n - 1)
    for _ in range(max(1, (n - 1).bit_length())):  # binary search: the largest k - 1 with S_k < 1
        mid = (lo + hi + 1) // 2
        gap = b * (xs - xs.gather(-1, mid))  # NaN where both are -inf: not below 1
        mass = torch.where(position < mid, gap.clamp(min=0) ** q, 0.0).sum(-1, keepdim=True)
        inside = mass < 1
        lo, hi = torch.where(inside, mid, lo), torch.where(inside, hi, mid - 1)
    support = position <= lo
    log_c = torch.where(support, (b * (xs - xs.gather(-1, lo))).log(), float("-inf"))  # -inf: ties with z_(K)
    w = 1 / (lo + 1).to(torch.float64)
    steps = _LARGE_NEWTON if n_iter is None else n_iter
    for _ in range(steps):
        log_terms = torch.logaddexp(b * w.log(), log_c)
        mass = torch.where(support, (q * log_terms).exp(), 0.0).sum(-1, keepdim=True)
        slope = torch.where(support, ((1 - q) * (b * w.log() - log_terms)).exp(), 0.0).sum(-1, keepdim=True)
        new = (w - (mass - 1) / slope).clamp(min=torch.finfo(torch.float64).tiny)
        done = new >= w  # convex from the right: a step that no longer descends is rounding
        w = torch.where(done, w, new)
        if not traced() and bool(done.all()):
            break
    sorted_p = torch.where(support, (q * torch.logaddexp(b * w.log(), log_c)).exp(), 0.0)
    sorted_p = sorted_p / sorted_p.sum(-1, keepdim=True)
    p = torch.zeros_like(sorted_p).scatter(-1, order, sorted_p).to(z.dtype)
    return p.masked_fill(torch.isneginf(zmax), 0).masked_fill(~finite & ~torch.isneginf(zmax), float("nan"))


def _entmax_forward(z: Tensor, alpha: Tensor, n_iter: int | None) -> Tensor:
    """p for a (..., 1) tensor alpha with one alpha per row: the rows at 1, 1.5 and 2 take the
    exact paths, those below _SMOOTH_BELOW _entmax_smooth, the others the threshold's Newton
    (routed by torch.where)."""
    p, general = torch.zeros_like(z), torch.ones_like(alpha, dtype=torch.bool)
    for value in (1.0, 1.5, 2.0):
        rows = alpha == value
        general &= ~rows
        if rows.any():
            p = torch.where(rows, _entmax_float(z, value)[0], p)
    smooth = general & (alpha < _SMOOTH_BELOW)
    if smooth.any():
        p = torch.where(smooth, _entmax_smooth(z, alpha.masked_fill(~smooth, 0.5), n_iter), p)
    general &= ~smooth
    large = general & (alpha > _EXACT_ABOVE)
    if large.any():
        p = torch.where(large, _entmax_large(z, alpha.masked_fill(~large, 3.0), n_iter), p)
    general &= ~large
    if general.any():
        alpha = alpha.masked_fill(~general, 1.5)
        z = (alpha - 1) * (z - _finite_max(z))  # shifted before scaling, as _entmax_float
        q = (z - threshold.entmax_threshold(z, alpha, n_iter)).clamp(min=0) ** (1 / (alpha - 1))
        p = torch.where(general, q / _nonzero(q.sum(-1, keepdim=True)), p)
    return p


def _entmax_s(p: Tensor, alpha: Tensor | float) -> Tensor:
    """s = p^(2 - alpha) on the support, 0 off it: the Jacobian is diag(s) - s s^T / sum s.
    Differentiable in p (the double-backward path and jacobian.py use it)."""
    if not isinstance(alpha, torch.Tensor):
        if alpha == 1:
            return p
        if alpha == 2:
            return (p > 0).to(p.dtype)
    support = p > 0  # powers taken on the support only, so double backward has no 0 * inf
    positive = p.masked_fill(~support, 1)
    exact15 = not isinstance(alpha, torch.Tensor) and alpha == 1.5
    return torch.where(support, positive.sqrt() if exact15 else positive ** (2 - alpha), 0.0)


def _entmax_log_s(p: Tensor, alpha: Tensor | float) -> Tensor:
    """log s = (2 - alpha) log p on the support, -inf off it."""
    support = p > 0
    return torch.where(support, (2 - alpha) * p.masked_fill(~support, 1).log(), float("-inf"))


def _in_log_space(alpha: Tensor | float) -> bool:
    """Whether s = p^(2 - alpha) may overflow (alpha > 2, or a tensor alpha): the vjp then takes log s."""
    return isinstance(alpha, torch.Tensor) or alpha > _EXACT_ABOVE


def _entmax_vjp(g: Tensor, p: Tensor, alpha: Tensor | float) -> Tensor:
    """g^T J of alpha-entmax at p (J symmetric: also J times a tangent), differentiable in p."""
    if _in_log_space(alpha):
        return _gram_vjp_log(g, _entmax_log_s(p, alpha))
    return _gram_vjp(g, _entmax_s(p, alpha))


def _entmax_s_relative(p: Tensor, alpha: Tensor | float) -> Tensor:
    """s up to a positive factor per row (s / max s where s may overflow): what _entmax_dalpha needs."""
    if not _in_log_space(alpha):
        return _entmax_s(p, alpha)
    log_s = _entmax_log_s(p, alpha)
    top = log_s.amax(-1, keepdim=True)
    return (log_s - torch.where(torch.isfinite(top), top, 0.0)).exp()


_PHI_SERIES = 26  # terms of phi's series, used for |w| < 1/4: 4^-26 < float64's eps


def _phi(w: Tensor, log_p: Tensor, b: Tensor | float) -> Tensor:
    """phi(w) = (w / (1 + w) - log1p(w)) / w^2 with 1 + w = p^b: -1/2 + 2w/3 - 3w^2/4 + ... by its
    series for |w| < 1/4 (the closed form cancels there), else closed (log1p(w) = b log p)."""
    series = torch.zeros_like(w)
    for k in range(_PHI_SERIES + 1, 1, -1):
        series = series * w + (-1) ** (k + 1) * (k - 1) / k
    small = w.abs() < 0.25
    safe = w.masked_fill(small, 1)
    closed = (safe / (1 + safe) - b * log_p) / (safe * safe)
    return torch.where(small, series, closed)


def _entmax_dalpha(g: Tensor, p: Tensor, s: Tensor, alpha: Tensor) -> Tensor:
    """<g, dp/dalpha> per row. With p_i = exp_alpha(u_i), u_i = z_i - lam (see _entmax_smooth),
    b = alpha - 1: dp_i/dalpha = r_i - s~_i sum_j r_j, s~ = s / sum s, where
    r_i = p_i d log exp_alpha(u_i) / d alpha = p_i u_i^2 phi(b u_i) and u_i = expm1(b log p_i) / b.
    The same as Peters et al. (2019)'s (p - s~) / b^2 - (p log p - s~ sum p log p) / b, without its
    cancellation as alpha -> 1 (at alpha = 1: r = -p log^2 p / 2)."""
    support = p > 0
    log_p = torch.where(support, p.masked_fill(~support, 1).log(), 0.0)
    b = alpha - 1
    w = torch.expm1(b * log_p)
    zero = b == 0
    u = torch.where(zero, log_p, w / torch.where(zero, 1.0, b))
    r = torch.where(support, p * u * u * _phi(w, log_p, b), 0.0)
    s_tilde = s / _nonzero(s.sum(-1, keepdim=True))
    return (g * (r - s_tilde * r.sum(-1, keepdim=True))).sum(-1, keepdim=True)


class _Entmax(torch.autograd.Function):
    """alpha-entmax along the last dim, eager path, with the closed-form backward
    dz = s * (g - <g, s> / sum s), s = p^(2 - alpha) on the support (O(n) per row), and d alpha
    from _entmax_dalpha when alpha is a tensor that needs it.

    forward returns (p, (kind, saved)), the second output being what the backward needs besides p,
    passed to setup_context (not a tensor: autograd leaves it alone). A float alpha saves what
    _entmax_float gives for s: on the sparse path s itself at the candidates (the backward then
    works on them alone, _sparse_vjp), on whole rows z and per-row tensors from which the
    backward rebuilds s chunk by chunk (_entmax_weights, _chunked_vjp); the fused kernel's path is
    _FusedEntmax. Forward + backward keep two or three full-size tensors. When the backward itself is recorded (create_graph,
    double backward), is traced (torch.func over the backward, e.g. jacrev) or alpha is a tensor,
    s is computed from the saved output by differentiable ops (_entmax_s, _gram_vjp), so the
    second derivative flows through p. Inside torch.func transforms and torch.compile the forward
    is _EntmaxOps instead (no out= scratch, no host syncs)."""

    @staticmethod
    def forward(z: Tensor, alpha: Tensor | float, n_iter: int | None) -> tuple[Tensor, tuple[str, tuple[Any, ...]]]:
        if isinstance(alpha, torch.Tensor):
            return _entmax_forward(z, alpha, n_iter), ("dense", ())
        if alpha < _SMOOTH_BELOW and alpha not in (1, 1.5, 2):  # dense backward from p alone
            return _entmax_smooth(z, alpha, n_iter), ("dense", ())
        if alpha > _EXACT_ABOVE:
            return _entmax_large(z, alpha, n_iter), ("dense", ())
        p, sparse, saved = _entmax_float(z, alpha, n_iter)
        return p, ("sparse" if sparse else "whole", saved)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[Tensor, tuple[str, tuple[Any, ...]]]) -> None:
        _, alpha, _ = inputs
        p, (ctx.kind, saved) = output
        tensor = isinstance(alpha, torch.Tensor)
        ctx.alpha = None if tensor else alpha
        ctx.save_for_backward(p, alpha if tensor else None, *saved)

    @staticmethod
    def backward(ctx: Any, g: Tensor, _: Any) -> tuple[Tensor | None, Tensor | None, None]:
        p, alpha, *saved = ctx.saved_tensors
        alpha = ctx.alpha if alpha is None else alpha
        dz = dalpha = None
        if ctx.kind == "dense" or torch.is_grad_enabled() or traced():
            if ctx.needs_input_grad[0]:
                dz = _entmax_vjp(g, p, alpha)
            if ctx.needs_input_grad[1]:
                dalpha = _entmax_dalpha(g, p, _entmax_s_relative(p, alpha), alpha)
        elif ctx.needs_input_grad[0]:
            if ctx.kind == "sparse":
                index, s, tau = saved
                dz = _sparse_vjp(g, index, s, tau, p.shape)
            else:
                dz = _chunked_vjp(g, _entmax_weights(alpha, p, *saved), p.shape, saved[2])
        return dz, dalpha, None


class _FusedEntmax(torch.autograd.Function):
    """alpha-entmax along the last dim through the compiled kernel (probcore.fused; a float alpha
    in [1.25, 2], CPU, outside torch.func transforms and torch.compile): p and the backward
    dz = s * (g - <g, s> / sum s), s = p^(2 - alpha) on the support, from p; for alpha other than 2
    and 1.5 (where a gradient is wanted) the kernel may take it from z (saved as it is, not copied)
    and the forward's per-row (max, tau) as s = p / (c - tau) instead, without powers (the same s
    within 16 eps: p = (c - tau)^q / total, total^(alpha - 1) certified within 16 eps of 1). Rows
    the kernel leaves (status 1) are recomputed by the eager path (their stats set to NaN: s from p). A backward that is itself recorded (create_graph)
    or traced takes _entmax_vjp's differentiable ops, as _Entmax's. Written with forward(ctx, ...)
    (no setup_context): Function.apply then binds no signature (inspect), which on a small input
    cost more than the kernel itself."""

    @staticmethod
    def forward(ctx: Any, z: Tensor, alpha: float) -> Tensor:
        p, status, stats = _fused.forward(z, alpha, stats=ctx.needs_input_grad[0])
        if status is not None:  # rows the kernel left: the eager path, as without fused (their stats are NaN)
            rows = status.nonzero().squeeze(-1)
            flat = z.reshape(-1, z.shape[-1])[rows]
            p.view(-1, z.shape[-1])[rows] = _entmax_float(flat, alpha, None)[0]
            if stats is not None:
                stats[rows] = math.nan
        ctx.alpha = alpha
        if stats is None:
            ctx.save_for_backward(p, None, None)
        else:  # z itself (no copy; changing it in place before the backward is an error, as for torch's ops)
            ctx.save_for_backward(p, z, stats)
        return p

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor, None]:
        p, z, stats = ctx.saved_tensors
        if torch.is_grad_enabled() or traced():
            return _entmax_vjp(g, p, ctx.alpha), None
        return _fused.backward(g, p, ctx.alpha, z, stats), None


def _entmax_ops(z: Tensor, alpha: Tensor | float, n_iter: int | None) -> Tensor:
    """p of alpha-entmax along the last dim from plain torch operations (no out=, no host sync):
    the sort-based thresholds for alpha 2 and 1.5, _entmax_smooth below _SMOOTH_BELOW (all its
    steps), bisection otherwise; a tensor alpha routes each row by torch.where (alpha = 1:
    softmax). The path of torch.func transforms and torch.compile."""
    if not isinstance(alpha, torch.Tensor):
        if alpha == 1:
            return _softmax(z)
        if alpha == 2:
            return (z - threshold.sparsemax_threshold_sort(z)).clamp(min=0)
        if alpha == 1.5:
            half = z / 2
            return (half - threshold.entmax15_threshold_sort(half)).clamp(min=0) ** 2
        if alpha < _SMOOTH_BELOW:
            return _entmax_smooth(z, alpha, n_iter)
        return _entmax_large(z, alpha, n_iter) if alpha > _EXACT_ABOVE else _entmax_bisect(z, alpha, n_iter)
    smooth = (alpha < _SMOOTH_BELOW) & (alpha != 1)
    large = alpha > _EXACT_ABOVE
    p = torch.where(alpha == 1, _softmax(z), _entmax_bisect(z, alpha.masked_fill(smooth | large, 2.0), n_iter))
    p = torch.where(large, _entmax_large(z, alpha.masked_fill(~large, 3.0), n_iter), p)
    return torch.where(smooth, _entmax_smooth(z, alpha.masked_fill(~smooth, 0.5), n_iter), p)


def _entmax_bisect(z: Tensor, alpha: Tensor | float, n_iter: int | None) -> Tensor:
    """alpha-entmax (alpha > 1) by threshold.entmax_threshold_bisect, renormalised to sum 1."""
    scaled = (alpha - 1) * z
    q = (scaled - threshold.entmax_threshold_bisect(scaled, alpha, n_iter)).clamp(min=0) ** (1 / (alpha - 1))
    return q / _nonzero(q.sum(-1, keepdim=True))


class _EntmaxOps(torch.autograd.Function):
    """alpha-entmax from plain torch operations (_entmax_ops): vmap batches its forward and
    backward (generate_vmap_rule)."""

    generate_vmap_rule = True

    @staticmethod
    def forward(z: Tensor, alpha: Tensor | float, n_iter: int | None) -> Tensor:
        return _entmax_ops(z, alpha, n_iter)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Tensor) -> None:
        _, alpha, _ = inputs
        tensor = isinstance(alpha, torch.Tensor)
        ctx.alpha = None if tensor else alpha
        ctx.save_for_backward(output, alpha if tensor else None)
        ctx.save_for_forward(output, alpha if tensor else None)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        p, alpha = ctx.saved_tensors
        alpha = ctx.alpha if alpha is None else alpha
        dz = _entmax_vjp(g, p, alpha) if ctx.needs_input_grad[0] else None
        dalpha = _entmax_dalpha(g, p, _entmax_s_relative(p, alpha), alpha) if ctx.needs_input_grad[1] else None
        return dz, dalpha, None


class _EntmaxOpsJvp(_EntmaxOps):
    """_EntmaxOps with forward-mode AD (jvp, for torch.func.jvp / jacfwd); torch.compile takes
    _EntmaxOps, as dynamo does not trace Functions that define jvp."""

    @staticmethod
    def jvp(ctx: Any, z_t: Tensor | None, alpha_t: Tensor | None, _: Any) -> Tensor:
        """J = diag(s) - s s^T / sum s is symmetric: the vjp's formula applied to the tangent, plus
        dp/dalpha times alpha's tangent."""
        p, alpha = ctx.saved_tensors
        alpha = ctx.alpha if alpha is None else alpha
        s = _entmax_s_relative(p, alpha)
        dp = _entmax_vjp(z_t, p, alpha) if z_t is not None else torch.zeros_like(p)
        if alpha_t is not None:  # dp/dalpha: <e_i, dp/dalpha> for every i at once
            eye = torch.eye(p.shape[-1], dtype=p.dtype, device=p.device)
            rate = _entmax_dalpha(eye, p.unsqueeze(-2), s.unsqueeze(-2), alpha.unsqueeze(-2)).squeeze(-1)
            dp = dp + rate * alpha_t
        return dp


_OPS_MAX_NUMEL = 2**23  # CUDA inputs up to this size take the sync-free path by default (_ops_applies)


def _ops_applies(z: Tensor) -> bool:
    """Whether the default call on z takes the sync-free _EntmaxOps outside transforms: CUDA inputs
    of at most _OPS_MAX_NUMEL entries, where the eager path is bound by its host syncs and small
    kernel launches (an H200, bench/results/cuda.md, float32: there the default call is 2.5-2.7x
    faster than the eager path at 4096 x 256 and 256 x 32000 for alpha 1.5 and 2, 1.4-1.6x for alpha
    1.3; the sync-free path is 1.2-1.9x slower at 1024 x 32000 and 3.1-6.9x slower at 4096 x 32000)."""
    return z.device.type == "cuda" and z.numel() <= _OPS_MAX_NUMEL


def _entmax_apply(z: Tensor, alpha: Tensor | float, n_iter: int | None = None, fused: bool | None = None) -> Tensor:
    """p of alpha-entmax on z (dim last): _EntmaxOps when traced, else _Entmax, through the compiled
    kernel (probcore.fused) wherever it applies (a float alpha in [1.25, 2], CPU, no n_iter) unless
    fused is False; measured faster there than the eager path at every shape of
    bench/bench_core.py (docs/library-kernel.md). On CUDA, small inputs with a float alpha take
    _EntmaxOps unless fused is False (_ops_applies)."""
    if traced() or (fused is None and not isinstance(alpha, torch.Tensor) and _ops_applies(z)):
        return (_EntmaxOps if torch.compiler.is_compiling() else _EntmaxOpsJvp).apply(z, alpha, n_iter)
    if (
        fused is not False
        and n_iter is None
        and not isinstance(alpha, torch.Tensor)
        and _SMOOTH_BELOW <= alpha <= 2
        and _fused.applies(z)
        and _fused.available()
    ):
        return _FusedEntmax.apply(z, alpha)
    return _Entmax.apply(z, alpha, n_iter)[0]


def _check_fused(fused: object) -> bool | None:
    if fused is not None and not isinstance(fused, bool):
        raise ProbcoreError("fused", value=repr(fused))
    return fused


@old_positions("dim", "temperature", "fused", kept=1)
def sparsemax(x: Tensor, dim: int = -1, *, temperature: float = 1.0, fused: bool | None = None) -> Tensor:
    """p = relu(z - tau), z = x / T, tau such that sum p = 1 (Euclidean projection onto the
    simplex). Jacobian on the support S: I - 11^T / |S| (over T). fused: None (default) runs the
    threshold, p and backward in probcore's compiled CPU kernel wherever it applies (CPU float
    tensors, outside torch.func / torch.compile; same results, faster) and, on CUDA inputs of at
    most 2**23 entries, the sync-free path of torch.compile; True / False force the kernel on / off
    (probcore.fused; without the compiled kernel: one RuntimeWarning, then the eager path)."""
    z, back = _lastdim(x, dim)
    return back(_entmax_apply(_shifted_scaled(z, temperature), 2.0, fused=_check_fused(fused)))


@old_positions("dim", "temperature", "fused", kept=1)
def entmax15(x: Tensor, dim: int = -1, *, temperature: float = 1.0, fused: bool | None = None) -> Tensor:
    """1.5-entmax: p = relu(z / 2 - tau)^2, z = x / T, sum p = 1 (exact: closed-form tau on the
    screened support). fused: as for sparsemax."""
    z, back = _lastdim(x, dim)
    return back(_entmax_apply(_shifted_scaled(z, temperature), 1.5, fused=_check_fused(fused)))


@old_positions("alpha", "dim", "temperature", "n_iter", "fused")
def entmax(
    x: Tensor,
    *,
    dim: int = -1,
    alpha: float | Tensor = 1.5,
    temperature: float = 1.0,
    n_iter: int | None = None,
    fused: bool | None = None,
) -> Tensor:
    """alpha-entmax: p = relu((alpha - 1) z - tau)^(1 / (alpha - 1)), z = x / T, sum p = 1.

    alpha > 0: a float, or a tensor broadcastable to x with size 1 along ``dim`` (one alpha
    per row), differentiable in x and alpha. alpha = 1 is exactly softmax, 2 exactly sparsemax,
    1.5 exactly entmax15 (per row too); alpha < 1 is dense (every unmasked p_i > 0). Other values
    solve for the threshold iteratively (``n_iter``: at most that many iterations; default: to the
    dtype's resolution) and are renormalised to sum 1; below alpha = 1.25 in the units of x
    (_entmax_smooth), so p tends to softmax smoothly as alpha -> 1.
    alpha > 2 is solved in the units of p (p_(i) = (p_min^(alpha-1) + (alpha-1)(z_(i) - z_min))^(1/(alpha-1))
    over the sorted support), so every p keeps its digits at any alpha (1e-6 float32 / 1e-9 float64
    of a 400-digit reference up to alpha = 1000, near-ties included).

    alpha shapes: a number; a 0-d or one-element tensor; any tensor that broadcasts against x with
    size 1 along ``dim`` (x's dims, the reduced one kept: e.g. (B, 1) or (1, 1) for a (B, n) x with
    dim=-1, (B, 1, T) for a (B, n, T) x with dim=1); and, for a 2-d x (B, n) with dim=-1 (or 1),
    a (B,) tensor, one alpha per row. Other shapes raise ValueError naming the shape passed.
    fused (float alpha in [1.25, 2], n_iter None; other alphas: the eager path): as for sparsemax."""
    z, back = _lastdim(x, dim)
    z = _shifted_scaled(z, temperature)
    fused = _check_fused(fused)
    if n_iter is not None:
        n_iter = check_positive_int("n_iter", n_iter)
    if not isinstance(alpha, torch.Tensor):
        alpha = check_alpha(alpha)
        return back(_softmax(z) if alpha == 1 else _entmax_apply(z, alpha, n_iter, fused))
    return back(_entmax_apply(z, _alpha_rows(alpha, x, dim, z), n_iter))


def _alpha_rows(alpha: Tensor, x: Tensor, dim: int, z: Tensor) -> Tensor:
    """alpha tensor -> (..., 1) aligned with z (dim moved last), after checking it."""
    if not (alpha.dtype.is_floating_point or alpha.dtype in (torch.int32, torch.int64)):
        raise ProbcoreError("alpha_dtype", dtype=str(alpha.dtype))
    if not traced() and not bool((torch.isfinite(alpha) & (alpha > 0)).all()):  # one host sync, not three
        raise ProbcoreError("alpha_entries")
    shape, axis = tuple(alpha.shape), dim % x.dim()
    kept = (*x.shape[:axis], 1, *x.shape[axis + 1 :])  # x's shape with size 1 along dim
    if alpha.numel() == 1:
        alpha = alpha.reshape((1,) * x.dim())
    elif x.dim() == 2 and axis == 1 and shape == (x.shape[0],):  # (B,) for a (B, n) x: one alpha per row
        alpha = alpha.reshape(-1, 1)
    else:
        # broadcast_shapes(shape, kept) == kept, written out: each of alpha's sizes, aligned from the
        # right, is 1 or kept's (torch.broadcast_shapes goes through torch._refs, ~0.02 ms of Python a call)
        fits = alpha.dim() <= x.dim() and all(a in (1, k) for a, k in zip(reversed(shape), reversed(kept)))
        if not fits:
            rows = f", or ({x.shape[0]},) (one alpha per row)" if x.dim() == 2 and axis == 1 else ""
            raise ProbcoreError(
                "alpha_shape", shape=str(shape), x_shape=str(tuple(x.shape)), dim=dim, kept=str(kept), rows=rows
            )
        alpha = alpha.reshape((1,) * (x.dim() - alpha.dim()) + shape)
    return alpha.movedim(axis, -1).to(z.dtype).expand(*z.shape[:-1], 1)


# perturb-max and Gumbel-softmax live in probcore.perturb (imported last: it uses the plumbing above)
from probcore.perturb import gumbel_softmax, perturbmax, perturbmax_sample  # noqa: E402
