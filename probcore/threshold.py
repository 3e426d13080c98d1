"""Thresholds tau of the sparse mappings, along the last dimension.

sparsemax:  p = relu(z - tau),            sum p = 1
entmax-1.5: p = relu(z - tau)^2,          sum p = 1   (z = x / 2)
entmax-a:   p = relu(z - tau)^(1/(a-1)),  sum p = 1   (z = (a - 1) x)

Inputs are float32/float64 with the mapped dimension last; ``-inf`` entries never enter the
support; a row that is entirely ``-inf`` gets tau = +inf (so p = 0 there). Each threshold is
computed on the row shifted by its max (the maps are shift-invariant), which keeps the
cumulative sums small for logits of any magnitude.

``sparsemax_threshold``, ``entmax15_threshold`` and ``entmax_threshold`` are the fast ones: no
sort, a screen of the entries that can be in the support (see _rows_threshold), then a few
vectorised passes on them that end exact (closed form checked against its own support, or Newton
to the dtype's resolution), with the sort / bisection below as the fallback for rows that take
too many passes. A row holding a NaN (or +inf) gets tau = NaN, so relu(z - tau) is NaN on the
whole row; every loop is bounded, so no input hangs. The sort-based ``*_sort`` and
``entmax_threshold_bisect`` are the references the tests compare with.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import torch


def _shift_by_max(z: torch.Tensor):
    """(z - max, max) per row; a fully masked row gets max = 0 so nothing turns into nan, a row
    with a NaN or +inf gets NaN."""
    zmax = z.amax(dim=-1, keepdim=True)
    zmax = torch.where(torch.isneginf(zmax), torch.zeros_like(zmax), zmax)
    zmax = torch.where(torch.isposinf(zmax), torch.full_like(zmax, float("nan")), zmax)
    return z - zmax, zmax


def _no_support_to_inf(tau: torch.Tensor, support_size: torch.Tensor) -> torch.Tensor:
    return torch.where(support_size == 0, torch.full_like(tau, float("inf")), tau)


def sparsemax_threshold_sort(z: torch.Tensor) -> torch.Tensor:
    """Sort-based (Martins & Astudillo 2016): K = max{k : 1 + k z_(k) > sum_{j<=k} z_(j)},
    tau = (sum_{j<=K} z_(j) - 1) / K."""
    zs, zmax = _shift_by_max(z)
    zsorted = torch.sort(zs, dim=-1, descending=True).values
    cumsum = zsorted.cumsum(dim=-1)
    k = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)
    support_size = (1 + k * zsorted > cumsum).sum(dim=-1, keepdim=True)
    index = (support_size - 1).clamp(min=0)
    tau = (cumsum.gather(-1, index) - 1) / support_size.to(z.dtype).clamp(min=1)
    return _no_support_to_inf(tau, support_size) + zmax


def entmax15_threshold_sort(z: torch.Tensor) -> torch.Tensor:
    """Exact entmax-1.5 (Peters et al. 2019): for the top-k sorted entries,
    tau_k = mean_k - sqrt(max(0, (1 - k * var_k) / k)); K = #{k : tau_k <= z_(k)}."""
    zs, zmax = _shift_by_max(z)
    zsorted = torch.sort(zs, dim=-1, descending=True).values
    k = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)
    mean = zsorted.cumsum(dim=-1) / k
    mean_sq = (zsorted * zsorted).cumsum(dim=-1) / k
    var = mean_sq - mean * mean
    tau_k = mean - torch.sqrt(((1 - k * var) / k).clamp(min=0))
    support_size = (tau_k <= zsorted).sum(dim=-1, keepdim=True)
    index = (support_size - 1).clamp(min=0)
    tau = tau_k.gather(-1, index)
    return _no_support_to_inf(tau, support_size) + zmax


def entmax_threshold_bisect(z: torch.Tensor, alpha: torch.Tensor, n_iter: int | None = None) -> torch.Tensor:
    """Bisection for general alpha > 1 (alpha broadcastable to z[..., :1]).

    With the row max at 0, tau lies in [-1, -(1/n)^(alpha-1)]: at -1 the max entry alone gives
    1, at the upper end every entry gives at most 1/n. Each step halves the bracket; the
    default number of steps reaches the dtype's resolution."""
    zs, zmax = _shift_by_max(z)
    n = z.shape[-1]
    alpha = torch.as_tensor(alpha, dtype=z.dtype, device=z.device).expand_as(zmax)
    power = 1.0 / (alpha - 1)
    lo = torch.full_like(zmax, -1.0)
    hi = -(torch.tensor(1.0 / n, dtype=z.dtype, device=z.device) ** (alpha - 1))
    if n_iter is None:
        n_iter = 60 if z.dtype == torch.float64 else 30
    for _ in range(n_iter):
        mid = (lo + hi) / 2
        mass = ((zs - mid).clamp(min=0) ** power).sum(dim=-1, keepdim=True)
        too_low = mass >= 1  # tau too small: move lo up
        lo = torch.where(too_low, mid, lo)
        hi = torch.where(too_low, hi, mid)
    tau = (lo + hi) / 2
    support_size = torch.isfinite(zs).sum(dim=-1, keepdim=True)
    return _no_support_to_inf(tau, support_size) + zmax


# Fast exact thresholds: screen the candidates, then a few vectorised passes on them.

_BLOCK = 16  # entries per screening block (at most)
_MIN_BLOCKS = 32  # reductions across blocks vectorise when there are at least this many
_MIN_SCREENED = 4096  # a lower bound is found on whole rows shorter than this
_MIN_PACKED = 128  # blocks per row below which gathering them is not worth its overhead
_SCREEN_PASSES = 3  # passes on the block maxima: any lower bound of their threshold will do
_MAX_ITER = 50  # passes before the rows still running fall back to the reference method
_SORT_BELOW = 4096  # entries: fewer than this and one sort is cheaper than the passes' overhead


class _Method(NamedTuple):
    """How a mapping's threshold is iterated on candidates (row max at 0 after the shift)."""

    step: Callable  # step(cand, shift, buffers, *state, check=True) -> (state, finished); state[0] = tau
    state: Callable  # state(tau0) -> initial state from a lower bound tau0
    bound: Callable  # bound(state) -> a lower bound of tau (after any number of passes)
    finish: Callable | None  # finish(cand - shift, rows) -> tau for rows still running at the end
    max_iter: int
    buffers: int  # scratch tensors (shaped like cand) a pass writes into
    compact: bool  # passes are costly: gather single entries when blocks do not shrink the rows
    refine: bool  # screening passes after the first run the full step (else the check=False one)


def _tol(dtype: torch.dtype) -> float:
    """Slack of the exactness tests, in units of the shifted row (max 0, support above -1)."""
    return 16 * torch.finfo(dtype).eps


def _threshold(z: torch.Tensor, method: _Method) -> torch.Tensor:
    """Threshold along the last dim of z; a fully -inf row gets +inf, a row with NaN or +inf NaN."""
    tau, zmax = _rows_threshold(z.reshape(-1, z.shape[-1]).contiguous(), method, exact=True)
    tau = torch.where(torch.isneginf(zmax), torch.full_like(tau, float("inf")), tau)
    return tau.reshape(*z.shape[:-1], 1)


def _rows_threshold(rows: torch.Tensor, method: _Method, exact: bool):
    """(tau, row max) of the rows of a 2-D tensor: exact, or else only a lower bound.

    The threshold of a subset of a row's entries is a lower bound for the row's threshold (less
    mass at every tau). The row is cut into blocks of up to _BLOCK entries (block j = entries j,
    j + nb, j + 2 nb, ...); a lower bound of the threshold of the block maxima (found the same
    way) is one of the row, and only blocks whose maximum exceeds it can hold support entries.
    The passes run on those blocks (plus the last n % size entries) when there are at least
    _MIN_PACKED blocks and the kept ones fill at most a quarter of the widest row, else
    (method.compact) on the single entries above the bound when they fill at most half of it,
    else on the whole rows."""
    n_rows, n = rows.shape
    size = min(_BLOCK, n // _MIN_BLOCKS)
    if size < 2 or (not exact and n < _MIN_SCREENED):
        zmax = rows.amax(dim=-1, keepdim=True)
        tau0 = torch.full_like(zmax, -1.0)  # the max entry alone has mass 1 there
        return _solve(rows, zmax, tau0, method, exact), zmax
    nb = n // size
    blocks = rows[:, : nb * size].unflatten(-1, (size, nb))
    tail = rows[:, nb * size :]
    maxima = blocks.amax(dim=1)
    tau0, zmax = _rows_threshold(torch.cat([maxima, tail], dim=-1) if tail.numel() else maxima, method, exact=False)
    bound = tau0 - _tol(rows.dtype) * (1 + zmax.abs())  # below the threshold despite rounding
    cand = _pack(blocks, maxima > bound, 4) if nb >= _MIN_PACKED else None
    if cand is not None:
        cand = torch.cat([cand, tail], dim=-1)
    elif method.compact:
        cand = _pack(rows.unsqueeze(1), rows > bound, 2)
    return _solve(rows if cand is None else cand, zmax, bound - zmax, method, exact), zmax


def _pack(blocks: torch.Tensor, keep: torch.Tensor, shrink: int):
    """The blocks (rows, size, nb) marked in keep (rows, nb), packed to the left of each row and
    flattened, padded with -inf; None unless that shrinks the widest row ``shrink`` times."""
    n_rows, size, nb = blocks.shape
    count = keep.sum(dim=-1, dtype=torch.int32)  # (a bool sum would make an int64 copy of keep)
    width = max(1, int(count.max()) if n_rows else 0)
    if shrink * width > nb:
        return None
    r, c = keep.nonzero(as_tuple=True)
    slot = torch.arange(len(r), device=r.device) - (count.cumsum(0) - count)[r]
    packed = blocks.new_full((n_rows, width, size), float("-inf"))
    packed[r, slot] = blocks[r, :, c]
    return packed.flatten(1)


def _solve(cand, zmax, tau0, method: _Method, exact: bool):
    """Threshold (absolute) by passes of method.step on cand - shift from the lower bound tau0
    (shifted); shift = zmax, or 0 for a fully -inf row. Not exact: _SCREEN_PASSES passes on all
    rows, returning the lower bound. Exact: each row stops once finished (finished rows are
    dropped when they are the majority), rows still running after method.max_iter passes go to
    method.finish, and rows without a finite max are left alone (NaN when the max is NaN/+inf)."""
    full_shift = torch.where(torch.isneginf(zmax), torch.zeros_like(zmax), zmax)
    shift = full_shift = torch.where(torch.isposinf(zmax), torch.full_like(zmax, float("nan")), full_shift)
    buffers = [torch.empty(cand.shape, dtype=cand.dtype, device=cand.device) for _ in range(method.buffers)]
    state = method.state(tau0)
    if not exact:
        for i in range(_SCREEN_PASSES):
            state, _ = method.step(cand, shift, buffers, *state, check=method.refine and i > 0)
        return method.bound(state) + shift
    tau = tau0.clone()
    rows = torch.arange(len(tau), device=tau.device)
    take = lambda i: (rows[i], cand.index_select(0, i), shift[i], tuple(s[i] for s in state))  # noqa: E731
    valid = torch.isfinite(zmax).squeeze(-1)
    if not bool(valid.all()):
        rows, cand, shift, state = take(valid.nonzero().squeeze(-1))
    done = torch.zeros_like(shift, dtype=torch.bool)
    for _ in range(method.max_iter):
        if not len(rows):
            break
        new, finished = method.step(cand, shift, [b[: len(rows)] for b in buffers], *state)
        state = tuple(torch.where(done, old, s) for old, s in zip(state, new))
        done |= finished
        left = (~done).squeeze(-1).nonzero().squeeze(-1)
        if 2 * len(left) <= len(rows):  # drop the finished rows once they are the majority
            tau[rows] = state[0]
            rows, cand, shift, state = take(left)
            done = done[left]
    else:
        left = (~done).squeeze(-1).nonzero().squeeze(-1)
        tau[rows] = state[0]
        if method.finish is not None and len(left):
            tau[rows[left]] = method.finish(cand.index_select(0, left) - shift[left], rows[left])
    return tau + full_shift


def _support(cand, shift, tau, out):
    """d = relu(cand - shift - tau), written into out; S = {d > 0} is the support at tau."""
    return torch.sub(cand, shift, out=out).sub_(tau).clamp_(min=0)


def _count_and_min(d):
    """(|S|, min_S d) per row, from d >= 0 (min = inf when S is empty); overwrites d."""
    inv = d.reciprocal_().nan_to_num_(posinf=0.0)  # 1/d on S, 0 elsewhere
    d_min = 1 / inv.amax(dim=-1, keepdim=True)
    return inv.sign_().sum(dim=-1, keepdim=True), d_min


def _sparsemax_step(cand, shift, buffers, tau, check=True):
    """Michelot: on S = {z > tau}, tau_S = tau + (sum_S (z - tau) - 1) / |S| = (sum_S z - 1) / |S|.
    From a lower bound it never passes the solution; it is exact once no entry of S lies below
    tau_S (then S is the support of tau_S)."""
    d = _support(cand, shift, tau, buffers[0])
    s1 = d.sum(dim=-1, keepdim=True)
    if not check:
        return (tau + (s1 - 1) / d.sign_().sum(dim=-1, keepdim=True),), None
    k, d_min = _count_and_min(d)
    step = (s1 - 1) / k
    return (tau + step,), ~(step > d_min + _tol(cand.dtype))


def _entmax15_step(cand, shift, buffers, tau, check=True):
    """On S = {z > tau}, d = z - tau: the closed form tau_S = tau + mean_S d - sqrt(1/|S| - var_S d)
    is exact when no entry of S lies below it; otherwise take Newton's step on the convex
    sqrt(F) - 1, F = sum d^2, which stays below the solution: tau + (F - sqrt(F)) / sum d."""
    d = _support(cand, shift, tau, buffers[0])
    s1 = d.sum(dim=-1, keepdim=True)
    d2 = d.mul_(d)  # d^2 > 0 exactly on S: d >= ulp(tau) / 2 there, and |tau| >= n^-1/2
    s2 = d2.sum(dim=-1, keepdim=True)
    if not check:
        return (tau + (s2 - torch.sqrt(s2)) / s1,), None
    k, d2_min = _count_and_min(d2)
    mean = s1 / k
    closed = mean - torch.sqrt((1 / k - (s2 / k - mean * mean)).clamp(min=0))
    exact = ~(closed > torch.sqrt(d2_min) + _tol(cand.dtype))  # NaN (no support) counts as exact
    return (tau + torch.where(exact, closed, (s2 - torch.sqrt(s2)) / s1),), exact


def _entmax_step(cand, shift, buffers, tau, lo, hi, alpha, check=True):
    """Newton on g(tau) = F^(alpha-1) - 1, F = sum relu(z - tau)^q, q = 1/(alpha-1):
    tau + (F - F^(2-alpha)) / sum_S (z - tau)^(q-1), kept inside the bracket [lo, hi] (F(lo) >= 1
    >= F(hi)) by bisection. Finished when |g| <= _tol (then |tau - root| <= |g|, as |g'| >= 1 at
    the root) or when tau no longer moves. Without check (screening), the cheaper lower bound
    tau <- mean_S z - |S|^-c, c = min(alpha - 1, 1): F >= |S| (mean_S d)^q by Jensen for q >= 1,
    and F >= (sum_S d)^q for q <= 1."""
    d = _support(cand, shift, tau, buffers[0])
    if not check:
        s1 = d.sum(dim=-1, keepdim=True)
        k = d.sign_().sum(dim=-1, keepdim=True)
        new = tau + s1 / k - k.pow(-(alpha - 1).clamp(max=1))
        return (new, new, hi, alpha), None
    t = torch.sign(d, out=buffers[1])
    off = d.shape[-1] - t.sum(dim=-1, keepdim=True)  # entries outside S
    # d^(q-1) = exp((q-1) log d) on S; off S, log is taken at 1/2 (log and pow are slow at 0 and 1)
    power = 1 / (alpha - 1) - 1
    t.mul_(-0.5).add_(0.5).add_(d).log_().mul_(power).exp_()
    slope = t.sum(dim=-1, keepdim=True) - off * torch.exp(power * math.log(0.5))
    mass = t.mul_(d).sum(dim=-1, keepdim=True)
    g = mass.pow(alpha - 1) - 1
    above = g >= 0
    lo, hi = torch.where(above, tau, lo), torch.where(above, hi, tau)
    new = tau + (mass - mass / (g + 1)) / slope
    new = torch.where((new >= lo) & (new <= hi), new, (lo + hi) / 2)
    return (new, lo, hi, alpha), ~(g.abs() > _tol(cand.dtype)) | (new == tau)


_SPARSEMAX = _Method(_sparsemax_step, lambda tau: (tau,), lambda state: state[0],
                     lambda cand, _: sparsemax_threshold_sort(cand), _MAX_ITER, 1, False, False)
_ENTMAX15 = _Method(_entmax15_step, lambda tau: (tau,), lambda state: state[0],
                    lambda cand, _: entmax15_threshold_sort(cand), _MAX_ITER, 1, False, False)


def sparsemax_threshold(z: torch.Tensor) -> torch.Tensor:
    """Exact sparsemax threshold: Michelot's fixed point tau <- (sum_{z > tau} z - 1) / #{z > tau}
    from a lower bound on the screened candidates; rows not done in _MAX_ITER passes are sorted
    (small inputs are sorted outright)."""
    return sparsemax_threshold_sort(z) if z.numel() < _SORT_BELOW else _threshold(z, _SPARSEMAX)


def entmax15_threshold(z: torch.Tensor) -> torch.Tensor:
    """Exact entmax-1.5 threshold: Newton from below on sqrt(sum relu(z - tau)^2) - 1, finished by
    the closed form tau = mean_S - sqrt(1/|S| - var_S) once it agrees with its support S (small
    inputs are sorted outright)."""
    return entmax15_threshold_sort(z) if z.numel() < _SORT_BELOW else _threshold(z, _ENTMAX15)


def entmax_threshold(z: torch.Tensor, alpha, n_iter: int | None = None) -> torch.Tensor:
    """Entmax threshold for alpha > 1 (a tensor broadcastable to z[..., :1]). alpha = 2 and 1.5
    everywhere use the exact methods above; otherwise safeguarded Newton (see _entmax_step) from a
    lower bound on the screened candidates. g is linear for a single entry and convex for
    alpha <= 2, so the steps rise monotonically to the root. With n_iter (maximum passes) given,
    the result after those passes is returned; otherwise rows still running after _MAX_ITER
    passes are finished by bisection."""
    alpha = torch.as_tensor(alpha, dtype=z.dtype, device=z.device)
    if n_iter is None and bool((alpha == 2).all()):
        return sparsemax_threshold(z)
    if n_iter is None and bool((alpha == 1.5).all()):
        return entmax15_threshold(z)
    alpha = alpha.expand(*z.shape[:-1], 1).reshape(-1, 1)
    finish = None if n_iter is not None else lambda cand, rows: entmax_threshold_bisect(cand, alpha[rows])
    method = _Method(
        _entmax_step,
        lambda tau: (tau, tau, torch.zeros_like(tau), alpha),
        lambda state: torch.where(alpha <= 2, state[0], state[1]),  # Newton stays below for alpha <= 2
        finish, _MAX_ITER if n_iter is None else n_iter, 2, True, True)
    return _threshold(z, method)
