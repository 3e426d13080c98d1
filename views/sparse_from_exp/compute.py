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
    return {"alpha": alpha, "lambda": lam, "by_hand": by_hand, "probcore": probcore.entmax(z, alpha=alpha).numpy(),
            "softmax": probcore.softmax(z).numpy()}


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
    return {"k": k, "z_sorted": z, "cumsum": cumsum, "lhs": 1 + k * z, "passes": passes, "lambda_k": (cumsum - 1) / k,
            "support": support, "lambda": float(lam), "lambda_probcore": float(sparsemax_threshold(zt.unsqueeze(0))[0]),
            "p": np.maximum(0.0, np.asarray(x) - lam), "p_probcore": probcore.sparsemax(zt).numpy()}
