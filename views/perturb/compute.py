"""Perturb-max & Gumbel page: Monte-Carlo frequencies of argmax(x + noise), their central-limit error,
Gumbel-softmax draws and sharpness, cached (explorer.compute.memo)."""

from __future__ import annotations

import numpy as np
import torch

import probcore
from probcore.functional import _softmax
from probcore.perturb import _noise
from explorer.compute import forward, as_tensor, items, memo

SAMPLE_GRID = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)


MC_DRAW_BUDGET = 10_000_000  # noise draws (N x n) per Monte-Carlo estimate: about 0.5 s


TAU_CHOICES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)


# Gumbel-softmax sharpness curve: 6 temperatures per decade, TAU_CHOICES among them
TAUS = tuple(sorted({round(m * 10.0**e, 10) for e in range(-2, 2) for m in (1, 1.5, 2, 3, 5, 7)} | {100.0}))


SHARPNESS_DRAWS = 200  # samples per temperature of that curve
SHARPNESS_BATCH = 1_000_000  # values (taus x draws x n) of one softmax call of that curve


def sample_cap(n: int) -> int:
    """The largest N of SAMPLE_GRID with N * n <= MC_DRAW_BUDGET (at least the first one)."""
    fitting = [m for m in SAMPLE_GRID if m * n <= MC_DRAW_BUDGET]
    return fitting[-1] if fitting else SAMPLE_GRID[0]


MERGED_DRAWS = 1_000_000  # noise draws (N x n) of the blocks one call of perturbmax_nested may draw together


CUT_FREE_NOISES = ("gumbel", "uniform", "logistic")  # drawn from torch.rand: the same numbers however cut


def block_groups(ns, noise: str, n: int) -> list[list[int]]:
    """The ends N_k of perturbmax_nested's blocks, grouped into one call each. torch.rand's stream
    does not depend on how it is cut, so the blocks of gumbel, uniform and logistic noise are drawn
    together, up to MERGED_DRAWS draws a call; torch.randn (normal) makes its numbers in chunks of
    16, so a cut changes them: one block a call, as the blocks are defined."""
    groups: list[list[int]] = []
    begun = 0  # draws before the current group
    for m in map(int, ns):
        if groups and noise in CUT_FREE_NOISES and (m - begun) * n <= MERGED_DRAWS:
            groups[-1].append(m)
        else:
            begun = groups[-1][-1] if groups else 0
            groups.append([m])
    return groups


@memo(64)
def perturbmax_nested(x: tuple, noise: str, n_max: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo perturb-max (probcore.functional.perturbmax_sample, temperature 1) at every N
    of SAMPLE_GRID up to ``n_max``, nested: one generator, torch.Generator().manual_seed(seed),
    draws the blocks N_1, N_2 - N_1, N_3 - N_2, ... so the estimate at N_k extends the one at
    N_(k-1) with new draws. Returns (Ns, frequencies of shape (len(Ns), n)); rows sum to 1.
    Several blocks drawn in one call (:func:`block_groups`) take one sample of each of as many
    copies of x: the one-hot winner of every draw, whose running sums give the counts at each N_k."""
    ns = np.array([m for m in SAMPLE_GRID if m <= n_max] or [SAMPLE_GRID[0]])
    generator = torch.Generator().manual_seed(seed)
    xt = as_tensor(x)
    counts = torch.zeros(len(x), dtype=torch.float64)
    rows = []
    done = 0
    for group in block_groups(ns, noise, len(x)):
        if len(group) == 1:
            block = group[0] - done
            freq = probcore.perturbmax_sample(xt, noise=noise, n_samples=block, generator=generator)
            ends = (counts + torch.round(freq * block))[None]
        else:
            winners = probcore.perturbmax_sample(
                xt.expand(group[-1] - done, -1), noise=noise, n_samples=1, generator=generator
            )
            ends = counts + winners.cumsum(0)[[m - done - 1 for m in group]]
        rows.append(ends / torch.tensor(group, dtype=torch.float64)[:, None])
        counts, done = ends[-1], group[-1]
    return ns, torch.cat(rows).numpy()


def clt_total_variation(p: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """E[TV(f_N, p)] to first order (central limit): sum_i sqrt(p_i (1 - p_i) / (2 pi N))."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)  # quadrature p may exceed 1 by ~1e-12
    return np.sqrt(p * (1 - p)).sum() / np.sqrt(2 * np.pi * np.asarray(ns, dtype=np.float64))


@memo(64)
def gumbel_softmax_draws(x: tuple, tau: float, draws: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(soft, hard) samples, shape (draws, n), from the same Gumbel noise (seed): soft from the
    registry's gumbel_softmax (generator seeded with ``seed``), hard its straight-through forward
    value, the one-hot of soft's argmax (what gumbel_softmax(hard=True) gives from that noise)."""
    batch = as_tensor(np.repeat(np.asarray(x, dtype=np.float64)[None, :], draws, axis=0))
    with torch.no_grad():
        soft = forward("gumbel_softmax", batch, items({"temperature": tau, "hard": False}), 0, seed).numpy()
    hard = np.zeros_like(soft)
    hard[np.arange(draws), soft.argmax(axis=1)] = 1.0
    return soft, hard


@memo(64)
def gumbel_softmax_sharpness(x: tuple, seed: int) -> np.ndarray:
    """Mean of max_i y_i over SHARPNESS_DRAWS Gumbel-softmax samples y for every tau of TAUS
    (the same noise for every tau: the seed is reset). One noise draw g, as gumbel_softmax draws it
    (probcore.perturb._noise, generator seeded with ``seed``), and y = softmax((x + g) / tau) for
    the taus at once, a few taus a call where n is large (SHARPNESS_BATCH values)."""
    xt = as_tensor(x)
    g = _noise("gumbel", (SHARPNESS_DRAWS, len(x)), xt, torch.Generator().manual_seed(seed))
    taus = torch.tensor(TAUS, dtype=torch.float64)[:, None, None]
    step = max(1, SHARPNESS_BATCH // (SHARPNESS_DRAWS * len(x)))
    with torch.no_grad():
        y = torch.cat([_softmax((xt + g) / taus[i : i + step]).amax(-1) for i in range(0, len(TAUS), step)])
    return y.numpy().mean(axis=1)


QUANTILE_COUNTS = (10, 100, 1000)  # M of the deterministic estimate
QUANTILE_MAX_N = 12  # classes for which the page shows it (n x n x M values)


@memo(8)
def normal_quantiles(m: int) -> np.ndarray:
    """eps_k = Phi^-1((k - 1/2) / M), k = 1..M: evenly spaced quantiles of N(0, 1) (inverse CDF;
    the same for every x: cached)."""
    from statistics import NormalDist

    inv = NormalDist().inv_cdf
    return np.array([inv((k - 0.5) / m) for k in range(1, m + 1)])


@memo(64)
def quantile_perturbmax(x: tuple, counts: tuple = QUANTILE_COUNTS) -> dict:
    """Normal perturb-max p_i = E[prod_{j != i} Phi(x_i - x_j + eps)] estimated deterministically
    by averaging over M inverse-CDF quantiles eps_k (no random draws), for each M, beside
    probcore.perturbmax(x, noise="normal") (quadrature): {M: largest error over the classes}."""
    z = np.asarray(x, dtype=float)
    if len(z) > QUANTILE_MAX_N:
        raise ValueError(f"the quantile estimate holds n x n x M values: n <= {QUANTILE_MAX_N}, got {len(z)}")
    exact = probcore.perturbmax(torch.tensor(z, dtype=torch.float64), noise="normal").numpy()
    errors = {}
    for m in counts:
        eps = normal_quantiles(m)
        diff = z[:, None] - z[None, :]  # x_i - x_j
        phi = torch.special.ndtr(torch.from_numpy(diff[:, :, None] + eps[None, None, :])).numpy()  # [i, j, k]
        phi[np.arange(len(z)), np.arange(len(z)), :] = 1.0  # leave j = i out of the product
        estimate = phi.prod(axis=1).mean(axis=1)
        errors[m] = float(np.abs(estimate - exact).max())
    return {"exact": exact, "errors": errors}


SMOOTH_ACCURACY_TEMPERATURES = (2.0, 1.0, 0.3, 0.1)


@memo(64)
def smooth_accuracy(x: tuple, target: int, temperatures: tuple = SMOOTH_ACCURACY_TEMPERATURES) -> dict:
    """Accuracy 1[argmax x = t] and its smooth version, the chance that argmax(x + T eps) = t with
    normal noise: perturb-max p_t at temperature T (probcore.perturbmax of x / T, one row per T, in
    one call)."""
    z = torch.tensor(np.asarray(x, dtype=float), dtype=torch.float64)
    scaled = z / torch.tensor(temperatures, dtype=torch.float64)[:, None]  # row T: x / T
    p_t = probcore.perturbmax(scaled, noise="normal")[:, target].tolist()
    return {"accuracy": float(int(torch.argmax(z)) == target), "p_t": dict(zip(temperatures, p_t))}
