"""Thresholds tau of the sparse mappings, along the last dimension.

sparsemax:  p = relu(z - tau),            sum p = 1
entmax-1.5: p = relu(z - tau)^2,          sum p = 1   (z = x / 2)
entmax-a:   p = relu(z - tau)^(1/(a-1)),  sum p = 1   (z = (a - 1) x)

Inputs are float32/float64 with the mapped dimension last; ``-inf`` entries never enter the
support; a row that is entirely ``-inf`` gets tau = +inf (so p = 0 there). Each threshold is
computed on the row shifted by its max (the maps are shift-invariant), which keeps the
cumulative sums small for logits of any magnitude.
"""
from __future__ import annotations

import torch


def _shift_by_max(z: torch.Tensor):
    """(z - max, max) per row; a fully masked row gets max = 0 so nothing turns into nan."""
    zmax = z.amax(dim=-1, keepdim=True)
    zmax = torch.where(torch.isneginf(zmax), torch.zeros_like(zmax), zmax)
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
    return _no_support_to_inf(tau + zmax, support_size)


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
    return _no_support_to_inf(tau + zmax, support_size)


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
    return _no_support_to_inf(tau + zmax, support_size)


# The names the mappings call. A faster exact method can replace these as long as it
# satisfies the same contract; the sort-based versions stay for tests.
sparsemax_threshold = sparsemax_threshold_sort
entmax15_threshold = entmax15_threshold_sort
entmax_threshold = entmax_threshold_bisect
