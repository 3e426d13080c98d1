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
to the dtype's resolution), with the sort / bisection above as the fallback for rows that take
too many passes. A row holding a NaN (or +inf) gets tau = NaN, so relu(z - tau) is NaN on the
whole row; every loop is bounded, so no input hangs. The sort-based ``*_sort`` and
``entmax_threshold_bisect`` are the references the tests compare with.

``threshold_candidates`` (what probcore.functional calls) gives the same thresholds of
(alpha - 1) z relative to the row max, with the screened candidates they were found from (so
that p and its gradient can be computed on those entries alone when the screening shrank the
rows), or p itself when whole rows were solved: there the pass that certifies tau
(sum p = 1 to 4 eps) is the one that writes p, and its scratch is a per-thread workspace
(``scratch``) rather than fresh memory, whose page faults cost more than the passes on short rows.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Callable, NamedTuple

import torch

from probcore._trace import traced


def _shift_by_max(z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
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


def entmax_threshold_bisect(z: torch.Tensor, alpha: torch.Tensor | float, n_iter: int | None = None) -> torch.Tensor:
    """Bisection for general alpha > 1 (alpha broadcastable to z[..., :1]).

    With the row max at 0, tau lies in [-1, -(1/n)^(alpha-1)]: at -1 the max entry alone gives
    1, at the upper end every entry gives at most 1/n. Each step halves the bracket; the
    default number of steps reaches the dtype's resolution."""
    zs, zmax = _shift_by_max(z)
    n = z.shape[-1]
    alphas = torch.as_tensor(alpha, dtype=z.dtype, device=z.device).expand_as(zmax)
    power = 1.0 / (alphas - 1)
    lo = torch.full_like(zmax, -1.0)
    hi = -(torch.tensor(1.0 / n, dtype=z.dtype, device=z.device) ** (alphas - 1))
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
_SCREEN_PASSES = 4  # passes on the block maxima: any lower bound of their threshold will do
_MAX_ITER = 50  # passes before the rows still running fall back to the reference method
_SORT_BELOW = 4096  # entries: fewer than this and one sort is cheaper than the passes' overhead


class Candidates(NamedTuple):
    """A threshold with what it was found from (see threshold_candidates). Everything is relative
    to the row max of z' = scale * z: the absolute threshold is tau + shift."""

    tau: torch.Tensor  # (..., 1): threshold of z' - shift (+inf on fully -inf rows, NaN on rows with NaN / +inf)
    shift: torch.Tensor  # (..., 1): the row max of z' (0 where it is not finite)
    values: torch.Tensor | None  # (rows, width): z' - shift at the entries that can be in the support, -inf padding
    columns: torch.Tensor | None  # (rows, width) int64: the column of each value, 0 for the padding
    shifted: torch.Tensor | None  # (rows, n): z' - shift, a new tensor, when it was made whole (else None)
    p: torch.Tensor | None = (
        None  # (rows, n): relu(z' - shift - tau)^q (not renormalised), when whole-row passes made it
    )
    mass: torch.Tensor | None = None  # (rows, 1): sum of p, beside it


# (tau, row max, cand, index, (p, mass) or None): see _rows_threshold
_RowsResult = tuple[
    torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor | None, tuple[torch.Tensor, torch.Tensor] | None
]
# (the new state, (rows, 1) bool: finished, or None for the screening passes): a _Method's step
_StepResult = tuple[tuple[torch.Tensor, ...], torch.Tensor | None]


class _Method(NamedTuple):
    """How a mapping's threshold is iterated on candidates (row max at 0 after the shift)."""

    step: Callable  # step(cand, shift, buffers, *state, check=True, scale=1.0) -> (state, finished); state[0] = tau
    state: Callable  # state(tau0) -> initial state from a lower bound tau0
    bound: Callable  # bound(state) -> a lower bound of tau (after any number of passes)
    finish: Callable | None  # finish(cand - shift, rows) -> tau for rows still running at the end
    max_iter: int
    buffers: int  # scratch tensors (shaped like cand) a pass writes into
    compact: bool  # passes are costly: gather single entries when blocks do not shrink the rows
    refine: bool  # screening passes after the first run the full step (else the check=False one)
    alpha: float | None  # one alpha for every row: whole rows are solved by _dense (None: by _solve)


def _tol(dtype: torch.dtype) -> float:
    """Slack of the exactness tests, in units of the shifted row (max 0, support above -1)."""
    return 16 * torch.finfo(dtype).eps


def _threshold(z: torch.Tensor, method: _Method) -> torch.Tensor:
    """Threshold along the last dim of z; a fully -inf row gets +inf, a row with NaN or +inf NaN."""
    cand = _threshold_candidates(z, method)
    return cand.tau + cand.shift


def _threshold_candidates(z: torch.Tensor, method: _Method, scale: float = 1.0) -> Candidates:
    """Candidates of scale * z (scale > 0) by _rows_threshold: tau shaped like z[..., :1] (+inf on
    fully -inf rows), the rest 2-D (rows of z flattened)."""
    rows = z.reshape(-1, z.shape[-1]).contiguous()
    tau, zmax, cand, index, dense = _rows_threshold(rows, method, exact=True, scale=scale)
    finite = torch.isfinite(zmax)
    tau = torch.where(finite, tau, torch.where(torch.isneginf(zmax), float("inf"), float("nan")))
    shift = torch.where(finite, zmax, 0.0)
    if cand is not None:
        cand = cand - shift
    return Candidates(tau.reshape(*z.shape[:-1], 1), shift.reshape(*z.shape[:-1], 1), cand, index, None, *(dense or ()))


def _scaled(t: torch.Tensor, scale: float) -> torch.Tensor:
    return t if scale == 1 else t * scale


def _rows_threshold(rows: torch.Tensor, method: _Method, exact: bool, scale: float = 1.0) -> _RowsResult:
    """(tau, row max, cand, index, dense) of the rows of a 2-D tensor times scale (> 0): tau
    (relative to the row max, left as it is on rows whose max is not finite) exact, or else only
    a lower bound; cand / index the packed candidates (scaled, not shifted) and their
    columns when the passes ran on them, else None (the recursion on block maxima ignores them);
    dense = (p, mass) from _dense when whole rows were solved exactly with a float alpha, else None.
    _solve scales whole rows pass by pass; _dense shifts them once into its workspace.

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
        zmax = _scaled(rows.amax(dim=-1, keepdim=True), scale)
        tau0 = torch.full_like(zmax, -1.0)  # the max entry alone has mass 1 there
        return _whole_rows(rows, zmax, tau0, method, exact, scale)
    nb = n // size
    blocks = rows[:, : nb * size].unflatten(-1, (size, nb))
    tail = _scaled(rows[:, nb * size :], scale)
    maxima = _scaled(blocks.amax(dim=1), scale)  # scale > 0 keeps the maxima
    tau0, zmax, *_ = _rows_threshold(torch.cat([maxima, tail], dim=-1) if tail.numel() else maxima, method, exact=False)
    bound = tau0 - _tol(rows.dtype) * (1 + zmax.abs())  # below the threshold despite rounding (relative)
    packed = _pack(rows, size, maxima > bound + zmax, 4) if nb >= _MIN_PACKED else None
    if packed is not None:
        cand, index = packed
        cand = torch.cat([_scaled(cand, scale), tail], dim=-1)
        tail_index = torch.arange(nb * size, n, device=rows.device).expand(n_rows, n - nb * size)
        index = torch.cat([index, tail_index], dim=-1)
    elif method.compact:
        # rows > bound / scale may keep an entry a hair above the bound: harmless (a superset)
        packed = _pack(rows, 1, rows > (bound + zmax) / scale, 2)
        if packed is not None:
            cand, index = packed
            cand = _scaled(cand, scale)
    if packed is None:
        return _whole_rows(rows, zmax, bound, method, exact, scale, guess=tau0)
    return _solve(cand, zmax, bound, method, exact), zmax, cand, index, None


def _whole_rows(
    rows: torch.Tensor,
    zmax: torch.Tensor,
    tau0: torch.Tensor,
    method: _Method,
    exact: bool,
    scale: float,
    guess: torch.Tensor | None = None,
) -> _RowsResult:
    """_rows_threshold's result when the passes run on the whole rows from the lower bound tau0
    (_dense starts from guess, when given: the block maxima's threshold, often the row's own)."""
    if exact and method.alpha is not None:
        tau, p, mass = _dense(rows, zmax, tau0 if guess is None else guess, method, method.alpha, scale)
        return tau, zmax, None, None, (p, mass)
    return _solve(rows, zmax, tau0, method, exact, scale), zmax, None, None, None


def _pack(rows: torch.Tensor, size: int, keep: torch.Tensor, shrink: int) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The blocks of rows (block j of a row: its entries j, j + nb, ..., j + (size - 1) nb, nb =
    keep.shape[1]) marked in keep (rows, nb), packed to the left of each row and flattened,
    padded with -inf, and the column each packed entry came from (0 for the padding); None
    unless that shrinks the widest row ``shrink`` times."""
    n_rows, nb = keep.shape
    count = keep.sum(dim=-1, dtype=torch.int32)  # (a bool sum would make an int64 copy of keep)
    width = max(1, int(count.max()) if n_rows else 0)
    if shrink * width > nb:
        return None
    r, c = keep.nonzero(as_tuple=True)
    slot = torch.arange(len(r), device=r.device) - (count.cumsum(0) - count)[r]
    columns = c.unsqueeze(-1) + nb * torch.arange(size, device=rows.device)  # (kept blocks, size)
    values = rows.reshape(-1).index_select(0, (columns + (r * rows.shape[1]).unsqueeze(-1)).flatten())
    target = r * width + slot  # whole blocks go to rows of (rows * width, size) matrices
    packed = rows.new_full((n_rows * width, size), float("-inf")).index_copy_(0, target, values.view(-1, size))
    index = torch.zeros((n_rows * width, size), dtype=torch.long, device=rows.device).index_copy_(0, target, columns)
    return packed.view(n_rows, width * size), index.view(n_rows, width * size)


def _solve(
    cand: torch.Tensor, zmax: torch.Tensor, tau0: torch.Tensor, method: _Method, exact: bool, scale: float = 1.0
) -> torch.Tensor:
    """Threshold (relative to zmax) by passes of method.step on cand - shift from the lower bound
    tau0 (relative); shift = zmax, or 0 for a fully -inf row. Not exact: _SCREEN_PASSES passes on all
    rows, returning the lower bound. Exact: each row stops once finished (finished rows are
    dropped once they are the majority), rows still running after method.max_iter passes go to
    method.finish, and rows without a finite max are left alone (NaN when the max is NaN/+inf).
    scale: the passes work on scale * cand (scale > 0)."""
    step = method.step if scale == 1 else functools.partial(method.step, scale=scale)
    nan = float("nan")
    shift = torch.nan_to_num(zmax, nan=nan, posinf=nan, neginf=0.0)
    buffers = [scratch(cand, 1 + i) for i in range(method.buffers)]
    state = method.state(tau0)
    if not exact:
        for i in range(_SCREEN_PASSES):
            state, _ = step(cand, shift, buffers, *state, check=method.refine and i > 0)
        return method.bound(state)
    tau, rows = tau0, None  # rows: those in cand (None: all of them)
    valid = torch.isfinite(zmax)
    if not bool(valid.all()):
        rows = valid.squeeze(-1).nonzero().squeeze(-1)
        cand, shift, state = cand.index_select(0, rows), shift[rows], tuple(s[rows] for s in state)
        tau = tau0.clone()
    done = None  # rows of cand already finished (None: none)
    for _ in range(method.max_iter):
        if not len(cand):
            break
        new, finished = step(cand, shift, [b[: len(cand)] for b in buffers], *state)
        state = new if done is None else tuple(torch.where(done, old, s) for old, s in zip(state, new))
        done = finished if done is None else done | finished
        left = (~done).squeeze(-1).nonzero().squeeze(-1)
        if not len(left) or 2 * len(left) <= len(cand):  # drop the finished rows once they are the majority
            if rows is None:
                tau = state[0].clone()
            else:
                tau[rows] = state[0]
            if not len(left):
                return tau
            rows = left if rows is None else rows[left]
            cand, shift, state, done = cand.index_select(0, left), shift[left], tuple(s[left] for s in state), None
    else:
        if rows is None:
            tau = state[0].clone()
        else:
            tau[rows] = state[0]
        everyone = torch.arange(len(cand), device=cand.device)
        left = everyone if done is None else (~done).squeeze(-1).nonzero().squeeze(-1)
        if method.finish is not None and len(left):
            rows = torch.arange(len(tau), device=tau.device) if rows is None else rows
            tau[rows[left]] = method.finish(_scaled(cand.index_select(0, left), scale) - shift[left], rows[left])
    return tau


def _dense(
    rows: torch.Tensor, zmax: torch.Tensor, tau0: torch.Tensor, method: _Method, alpha: float, scale: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(tau, p, mass) of whole rows for one float alpha: tau (relative to zmax) exact,
    p = relu(scale * rows - zmax - tau)^q, q = 1 / (alpha - 1), and mass = sum p, as the pass that
    certified tau wrote and summed it (no pass after the threshold to build p). p is the only new full-size tensor: the
    shifted rows and the passes' scratch live in this thread's workspace (scratch).

    From tau0 (a guess, on either side of the root), a pass (_dense_pass) writes d, p and
    s = d^(q - 1) and sums F = sum p; a row is done when |g| = |F^(alpha - 1) - 1| <= 4 eps (tau
    is then within that of the root: |dg/dtau| >= 1 there, see _newton) or when its last step
    moved tau by at most that (rounding); the others step (_dense_step) and take another pass,
    on their own once they are at most half of the rows. Rows still running after
    method.max_iter steps get method.finish's tau (without a finish, n_iter, the one after the
    steps). A row with no finite max gets tau = +inf and p = mass = 0 (fully -inf) or NaN (NaN or
    +inf in the row)."""
    valid = torch.isfinite(zmax).squeeze(-1)
    if not bool(valid.all()):
        dead = torch.isneginf(zmax)
        tau = torch.where(dead, float("inf"), float("nan")).to(rows.dtype)
        mass = torch.where(dead, 0.0, float("nan")).to(rows.dtype)
        p = mass.expand(rows.shape).clone()
        keep = valid.nonzero().squeeze(-1)
        if len(keep):
            solved = _dense(rows.index_select(0, keep), zmax[keep], tau0[keep], method, alpha, scale)
            for whole, solved_part in zip((tau, p, mass), solved):
                whole.index_copy_(0, keep, solved_part)
        return tau, p, mass
    tol = 4 * torch.finfo(rows.dtype).eps
    # shifted once: the passes subtract only tau, so d is as exact as its entries near the max
    ws = scratch(rows, 0)
    if math.frexp(scale)[0] == 0.5:  # a power of 2 (1, 1/2): scale * rows is exact, one op will do
        xs = torch.add(zmax.neg(), rows, alpha=scale, out=ws)
    else:  # rounded as (alpha - 1) * x is everywhere else
        xs = torch.mul(rows, scale, out=ws).sub_(zmax)
    p, buffers = torch.empty_like(rows), (scratch(rows, 1), scratch(rows, 2))
    # the root's bracket: at tau = -1 the max entry alone has mass 1, at 0 (the max) no mass is left
    tau, lo, hi = tau0, torch.full_like(tau0, -1.0), torch.zeros_like(tau0)
    stuck: torch.Tensor | None = None
    part: tuple[torch.Tensor, ...] | None = None  # (the rows running alone, the whole p, the others' tau and mass)
    for step in range(method.max_iter + 1):
        mass, slope = _dense_pass(xs, tau, alpha, p, *buffers)
        g = mass - 1 if alpha == 2 else mass.pow(alpha - 1) - 1
        done = g.abs() <= tol if stuck is None else (g.abs() <= tol) | stuck
        if step == method.max_iter or bool(done.all()):
            break
        left = (~done).squeeze(-1).nonzero().squeeze(-1)
        if part is None and 2 * len(left) <= len(xs):  # the rest go on alone; the done rows' p stays
            part = (left, p, tau, mass)
            # what their step reads: p (sparsemax), d = buffers[0] (entmax-1.5), neither (general alpha)
            p_left, s_left = (
                None if alpha != value else torch.index_select(b, 0, left, out=scratch(b, 3)[: len(left)])
                for value, b in ((2, p), (1.5, buffers[0]))
            )
            tau, lo, hi, mass, g = tau[left], lo[left], hi[left], mass[left], g[left]
            new, lo, hi = _dense_step(
                alpha, p_left, s_left, tau, lo, hi, mass, None if slope is None else slope[left], g
            )
            # the whole rows' shifted copy and scratch are free now: the rest runs in the same workspace
            xs = torch.index_select(xs, 0, left, out=scratch(xs, 3)[: len(left)])
            p, buffers = scratch(xs, 0), (scratch(xs, 1), scratch(xs, 2))
        else:
            new, lo, hi = _dense_step(alpha, p, buffers[0], tau, lo, hi, mass, slope, g)
            new = torch.where(done, tau, new)
        stuck, tau = (new - tau).abs() <= tol, new
    if not bool(done.all()) and method.finish is not None:
        left = (~done).squeeze(-1).nonzero().squeeze(-1)
        tau = tau.clone()
        tau[left] = method.finish(xs.index_select(0, left), None)
        mass, _ = _dense_pass(xs, tau, alpha, p, *buffers)
    if part is not None:
        left, whole, tau_whole, mass_whole = part
        tau, mass = tau_whole.index_copy(0, left, tau), mass_whole.index_copy(0, left, mass)
        p = whole.index_copy_(0, left, p)
    return tau, p, mass


_workspace = threading.local()
_WORKSPACE_MAX = 1 << 22  # entries per scratch tensor kept between calls (16 MB of float32)


def scratch(like: torch.Tensor, slot: int) -> torch.Tensor:
    """A scratch tensor shaped like ``like``: on the CPU, slot ``slot`` of this thread's
    workspace, kept between calls and grown as needed up to _WORKSPACE_MAX entries (fresh CPU
    memory costs a page fault per 4 KB, which on short rows outweighs the passes themselves).
    Only for temporaries that nothing keeps after the call."""
    if like.device.type != "cpu" or like.numel() > _WORKSPACE_MAX:
        return torch.empty_like(like)
    buffers = _workspace.__dict__.setdefault("buffers", {})
    key = (like.dtype, slot)
    buffer = buffers.get(key)
    if buffer is None or buffer.numel() < like.numel():
        buffer = buffers[key] = torch.empty(like.numel(), dtype=like.dtype)
    return buffer[: like.numel()].view(like.shape)


def _dense_pass(
    rows: torch.Tensor, tau: torch.Tensor, alpha: float, p: torch.Tensor, s: torch.Tensor, work: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """One pass of the (scaled, shifted) rows at tau: d = relu(rows - tau), p = d^q, s = d^(q - 1)
    (0 off the support) written into p, s, work; returns (F = sum p, sum s) (sum s only for a
    general alpha). d itself is p for sparsemax, s for entmax-1.5, work otherwise."""
    d = torch.sub(rows, tau, out=p if alpha == 2 else s if alpha == 1.5 else work).clamp_(min=0)
    if alpha == 2:
        return p.sum(dim=-1, keepdim=True), None
    if alpha == 1.5:
        return torch.mul(d, d, out=p).sum(dim=-1, keepdim=True), None
    power = 1 / (alpha - 1) - 1
    if power in (2.0, 3.0, 4.0):  # products (exact zeros off the support)
        torch.mul(d, d, out=s)
        if power == 3:
            s.mul_(d)
        elif power == 4:
            s.mul_(s)
        torch.mul(s, d, out=p)
    else:  # exp(power log d) on the support; log is taken at 1/2 off it (log and pow are slow at 0)
        torch.sign(d, out=s).mul_(-0.5).add_(0.5).add_(d).log_().mul_(power).exp_()
        torch.mul(s, d, out=p)
        s.mul_(d.sign_())
    return p.sum(dim=-1, keepdim=True), s.sum(dim=-1, keepdim=True)


def _dense_step(
    alpha: float,
    p: torch.Tensor | None,
    s: torch.Tensor | None,
    tau: torch.Tensor,
    lo: torch.Tensor,
    hi: torch.Tensor,
    mass: torch.Tensor,
    slope: torch.Tensor | None,
    g: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The next tau of the rows after a pass (shifted; their p and s buffers serve as scratch) and
    the bracket [lo, hi] of the root. Sparsemax: Michelot's tau + (F - 1) / |S|, below the root
    from anywhere. Entmax-1.5: the closed form on S = {d > 0} when it lies in the bracket (exact
    once S is the support), else Newton's step on the convex sqrt(F) - 1, which lands below the
    root from anywhere. General alpha: _newton's step, bisection when it leaves the bracket."""
    if alpha == 2:
        assert p is not None, "sparsemax's step reads p"
        return tau + g / p.sign_().sum(dim=-1, keepdim=True).clamp_(min=1), lo, hi
    above = g >= 0
    lo, hi = torch.where(above, tau, lo), torch.where(above, hi, tau)
    if alpha == 1.5:
        assert s is not None, "entmax-1.5's step reads d"
        s1 = s.sum(dim=-1, keepdim=True).clamp_(min=torch.finfo(s.dtype).tiny)
        k = s.sign_().sum(dim=-1, keepdim=True).clamp_(min=1)
        lo = torch.maximum(lo, tau + (mass - torch.sqrt(mass)) / s1)
        mean = s1 / k
        closed = tau + mean - torch.sqrt((1 / k - (mass / k - mean * mean)).clamp(min=0))
        return torch.where((closed >= lo) & (closed <= hi), closed, lo), lo, hi
    assert slope is not None, "a general alpha's step reads the slope"
    new = tau + (mass - mass / (g + 1)) / slope
    return torch.where((new >= lo) & (new <= hi), new, (lo + hi) / 2), lo, hi


def _support(
    cand: torch.Tensor, shift: torch.Tensor, tau: torch.Tensor, out: torch.Tensor, scale: float = 1.0
) -> torch.Tensor:
    """d = relu(scale * cand - shift - tau), written into out; S = {d > 0} is the support at tau."""
    d = torch.sub(cand, shift, out=out) if scale == 1 else torch.mul(cand, scale, out=out).sub_(shift)
    return d.sub_(tau).clamp_(min=0)


def _count_and_min(d: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(|S|, min_S d) per row, from d >= 0 (min = inf when S is empty); overwrites d."""
    inv = d.reciprocal_().nan_to_num_(posinf=0.0)  # 1/d on S, 0 elsewhere
    d_min = 1 / inv.amax(dim=-1, keepdim=True)
    return inv.sign_().sum(dim=-1, keepdim=True), d_min


def _sparsemax_step(
    cand: torch.Tensor,
    shift: torch.Tensor,
    buffers: list[torch.Tensor],
    tau: torch.Tensor,
    check: bool = True,
    scale: float = 1.0,
) -> _StepResult:
    """Michelot: on S = {z > tau}, tau_S = tau + (sum_S (z - tau) - 1) / |S| = (sum_S z - 1) / |S|.
    From a lower bound it never passes the solution; it is exact once no entry of S lies below
    tau_S (then S is the support of tau_S)."""
    d = _support(cand, shift, tau, buffers[0], scale)
    s1 = d.sum(dim=-1, keepdim=True)
    if not check:
        return (tau + (s1 - 1) / d.sign_().sum(dim=-1, keepdim=True),), None
    k, d_min = _count_and_min(d)
    step = (s1 - 1) / k
    return (tau + step,), ~(step > d_min + _tol(cand.dtype))


def _entmax15_step(
    cand: torch.Tensor,
    shift: torch.Tensor,
    buffers: list[torch.Tensor],
    tau: torch.Tensor,
    check: bool = True,
    scale: float = 1.0,
) -> _StepResult:
    """On S = {z > tau}, d = z - tau: the closed form tau_S = tau + mean_S d - sqrt(1/|S| - var_S d)
    is exact when no entry of S lies below it; otherwise take Newton's step on the convex
    sqrt(F) - 1, F = sum d^2, which stays below the solution: tau + (F - sqrt(F)) / sum d."""
    d = _support(cand, shift, tau, buffers[0], scale)
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


def _entmax_step(
    cand: torch.Tensor,
    shift: torch.Tensor,
    buffers: list[torch.Tensor],
    tau: torch.Tensor,
    lo: torch.Tensor,
    hi: torch.Tensor,
    alpha: torch.Tensor,
    check: bool = True,
    scale: float = 1.0,
) -> _StepResult:
    """_newton with the alphas (a (rows, 1) tensor) carried in the state."""
    state, finished = _newton(cand, shift, buffers, tau, lo, hi, alpha, check, scale)
    return (*state, alpha), finished


def _newton(
    cand: torch.Tensor,
    shift: torch.Tensor,
    buffers: list[torch.Tensor],
    tau: torch.Tensor,
    lo: torch.Tensor,
    hi: torch.Tensor,
    alpha: torch.Tensor | float,
    check: bool = True,
    scale: float = 1.0,
) -> _StepResult:
    """Newton on g(tau) = F^(alpha-1) - 1, F = sum relu(z - tau)^q, q = 1/(alpha-1):
    tau + (F - F^(2-alpha)) / sum_S (z - tau)^(q-1), kept inside the bracket [lo, hi] (F(lo) >= 1
    >= F(hi)) by bisection. Finished when |g| <= _tol (then |tau - root| <= |g|, as |g'| >= 1 at
    the root) or when tau no longer moves. Without check (screening), the cheaper lower bound
    tau <- mean_S z - |S|^-c, c = min(alpha - 1, 1): F >= |S| (mean_S d)^q by Jensen for q >= 1,
    and F >= (sum_S d)^q for q <= 1. alpha: a (rows, 1) tensor or one float for all rows (then
    q - 1 in {2, 3, 4}, as for alpha = 1.25, takes products instead of log and exp).
    Returns ((tau, lo, hi), finished)."""
    d = _support(cand, shift, tau, buffers[0], scale)
    if not check:
        s1 = d.sum(dim=-1, keepdim=True)
        k = d.sign_().sum(dim=-1, keepdim=True)
        new = tau + s1 / k - k.pow(-min(alpha - 1, 1) if isinstance(alpha, float) else -(alpha - 1).clamp(max=1))
        return (new, new, hi), None
    power = 1 / (alpha - 1) - 1
    if isinstance(power, float) and power in (2.0, 3.0, 4.0):  # d^(q-1) by products (0 off S)
        t = torch.mul(d, d, out=buffers[1])
        if power == 3:
            t.mul_(d)
        elif power == 4:
            t.mul_(t)
        slope = t.sum(dim=-1, keepdim=True)
    else:
        t = torch.sign(d, out=buffers[1])
        off = d.shape[-1] - t.sum(dim=-1, keepdim=True)  # entries outside S
        # d^(q-1) = exp((q-1) log d) on S; off S, log is taken at 1/2 (log and pow are slow at 0 and 1)
        t.mul_(-0.5).add_(0.5).add_(d).log_().mul_(power).exp_()
        at_half = math.exp(power * math.log(0.5)) if isinstance(power, float) else torch.exp(power * math.log(0.5))
        slope = t.sum(dim=-1, keepdim=True) - off * at_half
    mass = t.mul_(d).sum(dim=-1, keepdim=True)
    g = mass.pow(alpha - 1) - 1
    above = g >= 0
    lo, hi = torch.where(above, tau, lo), torch.where(above, hi, tau)
    new = tau + (mass - mass / (g + 1)) / slope
    new = torch.where((new >= lo) & (new <= hi), new, (lo + hi) / 2)
    return (new, lo, hi), ~(g.abs() > _tol(cand.dtype)) | (new == tau)


_SPARSEMAX = _Method(
    _sparsemax_step,
    lambda tau: (tau,),
    lambda state: state[0],
    lambda cand, _: sparsemax_threshold_sort(cand),
    _MAX_ITER,
    1,
    False,
    False,
    2.0,
)
_ENTMAX15 = _Method(
    _entmax15_step,
    lambda tau: (tau,),
    lambda state: state[0],
    lambda cand, _: entmax15_threshold_sort(cand),
    _MAX_ITER,
    1,
    False,
    False,
    1.5,
)


def sparsemax_threshold(z: torch.Tensor) -> torch.Tensor:
    """Exact sparsemax threshold: Michelot's fixed point tau <- (sum_{z > tau} z - 1) / #{z > tau}
    from a lower bound on the screened candidates; rows not done in _MAX_ITER passes are sorted
    (small inputs are sorted outright; traced by torch.func / torch.compile: sorted too). Not recorded by
    autograd (tau comes back as a constant)."""
    z = z.detach()
    return sparsemax_threshold_sort(z) if z.numel() < _SORT_BELOW or traced() else _threshold(z, _SPARSEMAX)


def entmax15_threshold(z: torch.Tensor) -> torch.Tensor:
    """Exact entmax-1.5 threshold: Newton from below on sqrt(sum relu(z - tau)^2) - 1, finished by
    the closed form tau = mean_S - sqrt(1/|S| - var_S) once it agrees with its support S (small
    inputs are sorted outright; traced: sorted too). Not recorded by autograd (tau comes back as a constant)."""
    z = z.detach()
    return entmax15_threshold_sort(z) if z.numel() < _SORT_BELOW or traced() else _threshold(z, _ENTMAX15)


def entmax_threshold(z: torch.Tensor, alpha: torch.Tensor | float, n_iter: int | None = None) -> torch.Tensor:
    """Entmax threshold for alpha > 1 (a tensor broadcastable to z[..., :1]). alpha = 2 and 1.5
    everywhere use the exact methods above; otherwise safeguarded Newton (see _entmax_step) from a
    lower bound on the screened candidates. g is linear for a single entry and convex for
    alpha <= 2, so the steps rise monotonically to the root. With n_iter (maximum passes) given,
    the result after those passes is returned; otherwise rows still running after _MAX_ITER
    passes are finished by bisection (traced by torch.func / torch.compile: bisection alone). Not
    recorded by autograd (tau comes back as a constant)."""
    z = z.detach()
    alphas = torch.as_tensor(alpha, dtype=z.dtype, device=z.device).detach()
    if traced():
        return entmax_threshold_bisect(z, alphas, n_iter)
    if n_iter is None and bool((alphas == 2).all()):
        return sparsemax_threshold(z)
    if n_iter is None and bool((alphas == 1.5).all()):
        return entmax15_threshold(z)
    return _threshold(z, _entmax_method(alphas.expand(*z.shape[:-1], 1).reshape(-1, 1), n_iter))


def _entmax_method(alpha: torch.Tensor, n_iter: int | None) -> _Method:
    """Newton for general alpha, one alpha per flattened row ((rows, 1))."""
    finish = None if n_iter is not None else lambda cand, rows: entmax_threshold_bisect(cand, alpha[rows])
    return _Method(
        _entmax_step,
        lambda tau: (tau, tau, torch.zeros_like(tau), alpha),
        lambda state: torch.where(alpha <= 2, state[0], state[1]),  # Newton stays below for alpha <= 2
        finish,
        _MAX_ITER if n_iter is None else n_iter,
        2,
        True,
        True,
        None,
    )


def _entmax_method_float(alpha: float, n_iter: int | None) -> _Method:
    """The same with one float alpha for every row (cheaper passes, see _newton)."""
    finish = None if n_iter is not None else lambda cand, rows: entmax_threshold_bisect(cand, alpha)
    return _Method(
        lambda cand, shift, buffers, tau, lo, hi, check=True, scale=1.0: _newton(
            cand, shift, buffers, tau, lo, hi, alpha, check, scale
        ),
        lambda tau: (tau, tau, torch.zeros_like(tau)),
        lambda state: state[0] if alpha <= 2 else state[1],
        finish,
        _MAX_ITER if n_iter is None else n_iter,
        2,
        True,
        True,
        alpha,
    )


def threshold_candidates(z: torch.Tensor, alpha: float, n_iter: int | None = None) -> Candidates:
    """The threshold of z' = (alpha - 1) z (z itself for alpha = 2; alpha a float > 1) relative to
    the row max of z' (``shift``), with what a caller needs to build
    p = relu(z' - shift - tau)^(1 / (alpha - 1)) without another pass over the rows: ``p`` and
    ``s`` themselves when whole rows were solved (not renormalised); else, when ``values`` is not
    None, the candidates, outside which every entry of z' - shift lies below tau (p = 0 there);
    else (small inputs, sorted outright) ``shifted`` = z' - shift, a new tensor. tau + shift is
    the one sparsemax_threshold, entmax15_threshold or entmax_threshold(z', alpha, n_iter) gives
    (same methods, same rows); alpha = 2 and 1.5 are exact whatever n_iter."""
    scale = 1.0 if alpha == 2 else alpha - 1
    if alpha in (1.5, 2):  # exact: n_iter does not apply
        if z.numel() < _SORT_BELOW:
            shifted, shift = _shift_by_max(_scaled(z, scale))
            sort = sparsemax_threshold_sort if alpha == 2 else entmax15_threshold_sort
            tau = sort(shifted)  # (its own shift is 0: no rounding)
            shift = torch.where(torch.isfinite(shift), shift, 0.0)
            return Candidates(tau, shift, None, None, shifted.reshape(-1, z.shape[-1]))
        return _threshold_candidates(z, _SPARSEMAX if alpha == 2 else _ENTMAX15, scale)
    return _threshold_candidates(z, _entmax_method_float(float(alpha), n_iter), scale)
