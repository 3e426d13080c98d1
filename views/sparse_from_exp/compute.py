"""Sparse from exp page: relu(x)^(1/beta) against exp(x), entmax from its threshold tau (sum relu(x -
tau)^(1/beta) = 1), and the KKT steps of sparsemax."""

from __future__ import annotations

import numpy as np
import torch

import probcore
from explorer.compute import D64
from probcore.threshold import sparsemax_threshold

EXP_GRID = np.linspace(-4.0, 2.0, 241)


def relu_power(x: np.ndarray, beta: float) -> np.ndarray:
    """relu(1 + beta x)^(1/beta), the approximation of exp(x) that gives (1 + beta)-entmax."""
    return np.maximum(0.0, 1.0 + beta * x) ** (1.0 / beta)


def entmax_from_threshold(x: tuple, beta: float) -> dict:
    """alpha-entmax with alpha = 1 + beta written out: p = relu(beta x - lambda)^(1/beta) with the
    threshold lambda solving sum p = 1 (probcore.threshold), beside probcore.entmax(x, alpha)."""
    from probcore.threshold import entmax_threshold

    z = torch.tensor(x, dtype=D64)
    alpha = 1.0 + beta
    lam = float(entmax_threshold((beta * z).unsqueeze(0), alpha)[0])
    by_hand = np.maximum(0.0, beta * np.asarray(x) - lam) ** (1.0 / beta)
    return {
        "alpha": alpha,
        "lambda": lam,
        "by_hand": by_hand,
        "probcore": probcore.entmax(z, alpha=alpha).numpy(),
        "softmax": probcore.softmax(z).numpy(),
    }


def kkt_steps(x: tuple) -> dict:
    """The sparsemax threshold step by step: z sorted decreasingly, cumulative sums, the test
    1 + k z_(k) > sum_{j<=k} z_(j), its largest passing k = K, lambda_k = (sum_{j<=k} z_(j) - 1) / k,
    lambda = lambda_K, beside probcore's threshold and p = relu(z - lambda)."""
    z = np.sort(np.asarray(x, dtype=float))[::-1]
    k = np.arange(1, len(z) + 1)
    cumsum = np.cumsum(z)
    passes = 1 + k * z > cumsum
    support = int(k[passes].max())
    lam = (cumsum[support - 1] - 1) / support
    zt = torch.tensor(x, dtype=D64)
    return {
        "k": k,
        "z_sorted": z,
        "cumsum": cumsum,
        "lhs": 1 + k * z,
        "passes": passes,
        "lambda_k": (cumsum - 1) / k,
        "support": support,
        "lambda": float(lam),
        "lambda_probcore": float(sparsemax_threshold(zt.unsqueeze(0))[0]),
        "p": np.maximum(0.0, np.asarray(x) - lam),
        "p_probcore": probcore.sparsemax(zt).numpy(),
    }


def entmax15_sorted_steps(x: tuple) -> dict:
    """The exact 1.5-entmax threshold step by step: z = x / 2 sorted decreasingly; for each k the
    mean mu_k and variance sigma2_k of the k largest, lambda_k = mu_k - sqrt(1/k - sigma2_k) where
    1/k >= sigma2_k (else no real root: sum_{i<=k} (z_i - lambda)^2 >= k sigma2_k > 1, k is not the
    support), and whether z_(k) >= lambda_k >= z_(k+1) (the selection rule); the chosen lambda
    beside probcore's threshold and p = relu(z - lambda)^2 beside probcore.entmax15."""
    from probcore.threshold import entmax15_threshold

    z = np.sort(np.asarray(x, dtype=float) / 2)[::-1]
    k = np.arange(1, len(z) + 1)
    mu = np.cumsum(z) / k
    sigma2 = np.cumsum(z**2) / k - mu**2
    real = 1 / k >= sigma2
    lam = np.where(real, mu - np.sqrt(np.where(real, 1 / k - sigma2, 0.0)), np.nan)
    after = np.append(z[1:], -np.inf)
    chosen = real & (z >= lam) & (lam >= after)
    first = int(np.flatnonzero(chosen)[0])
    half = torch.tensor(x, dtype=D64) / 2
    return {
        "z": z,
        "mu": mu,
        "sigma2": sigma2,
        "lambda_k": lam,
        "chosen": chosen,
        "support": first + 1,
        "lambda": float(lam[first]),
        "probcore_lambda": float(entmax15_threshold(half.unsqueeze(0))[0]),
        "p": np.maximum(np.asarray(x) / 2 - lam[first], 0.0) ** 2,
        "probcore": probcore.entmax15(torch.tensor(x, dtype=D64)).numpy(),
    }


def bisection_bracket(x: tuple, alpha: float) -> dict:
    """The bracket of the alpha-entmax threshold after the shift: z = (alpha - 1) x moved so that
    max z = 1; then g(lambda) = sum relu(z - lambda)^(1/(alpha - 1)) has g(0) >= 1 (the max alone
    gives 1) and g(1) = 0, so the lambda with g = 1 lies in [0, 1) (probcore's threshold of the
    shifted z, and g at both ends)."""
    from probcore.threshold import entmax_threshold

    z = (alpha - 1) * np.asarray(x, dtype=float)
    z = z - z.max() + 1.0
    power = 1.0 / (alpha - 1)
    lam = float(entmax_threshold(torch.tensor(z, dtype=D64).unsqueeze(0), alpha)[0])
    return {
        "lambda": lam,
        "g0": float(np.sum(np.maximum(z, 0.0) ** power)),
        "g1": float(np.sum(np.maximum(z - 1.0, 0.0) ** power)),
        "g": float(np.sum(np.maximum(z - lam, 0.0) ** power)),
    }


BINARY_GAPS = np.linspace(-3.0, 3.0, 121)  # t = z1 - z2


def binary_sparsemax(gaps: np.ndarray = BINARY_GAPS) -> dict:
    """p1 of [t, 0] for each gap t: probcore.sparsemax (the hard sigmoid clip((t + 1)/2, 0, 1))
    beside probcore.softmax (the sigmoid 1 / (1 + e^-t))."""
    x = torch.tensor(np.stack([gaps, np.zeros_like(gaps)], axis=1), dtype=D64)
    return {
        "t": gaps,
        "sparsemax": probcore.sparsemax(x)[:, 0].numpy(),
        "softmax": probcore.softmax(x)[:, 0].numpy(),
        "hard_sigmoid": np.clip((gaps + 1) / 2, 0.0, 1.0),
    }
