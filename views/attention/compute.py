"""Attention page: scores q·k / scale of random queries and keys, and each mapping's weights over the
keys, cached."""

from __future__ import annotations

import math

import numpy as np
import torch

import probcore
from explorer.compute import Kw, forward, as_tensor, memo

ATTENTION_MAPPINGS = ("softmax", "sparsemax", "entmax", "sparse_softmax")


def attention_inputs(length: int, dim: int, queries: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random (queries (m, d), keys (L, d), values (L, d)), entries N(0, 1) drawn in that order
    from np.random.default_rng(seed)."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(queries, dim)), rng.normal(size=(length, dim)), rng.normal(size=(length, dim))


def finite_matrix(table, shape: tuple[int, int], limit: float) -> np.ndarray | None:
    """The entries of an edited table (DataFrame or array; text and empty cells count as bad) as
    a float64 array of ``shape``, or None unless every entry is a finite number with |v| <= limit."""
    import pandas as pd  # local: the rest of this module needs no pandas

    try:
        values = pd.DataFrame(table).apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    except (ValueError, TypeError):
        return None
    if values.shape != tuple(shape) or not np.all(np.isfinite(values)) or np.abs(values).max() > limit:
        return None
    return values


def attention_scores(q: np.ndarray, k: np.ndarray, scale: float) -> np.ndarray:
    """s[r, j] = scale * q_r . k_j / sqrt(d), shape (m, L)."""
    return scale * (np.atleast_2d(q) @ np.asarray(k).T) / np.sqrt(np.shape(k)[1])


@memo(256)
def attention_weights(name: str, scores: tuple, kw: Kw) -> np.ndarray:
    """The mapping (registry forward) of every row of ``scores`` (a tuple of row tuples): (m, L)."""
    with torch.no_grad():
        return forward(name, as_tensor(np.array(scores, dtype=np.float64)), kw, 0, 0).numpy()


TAYLOR_LENGTH, TAYLOR_DIM = 256, 4  # the self-attention example of the Taylor section: L queries = L keys, d


def taylor_features(u: np.ndarray, c: float) -> np.ndarray:
    """phi(u) = (1, sqrt(c) u, c vec(u u^T) / sqrt(2)) per row, so that phi(q) . phi(k) =
    1 + c q.k + (c q.k)^2 / 2 = f_2(c q.k): 1 + d + d^2 features."""
    outer = np.einsum("li,lj->lij", u, u).reshape(len(u), -1)
    return np.concatenate([np.ones((len(u), 1)), math.sqrt(c) * u, c * outer / math.sqrt(2)], axis=1)


@memo(8)
def taylor_linear_attention(length: int = TAYLOR_LENGTH, dim: int = TAYLOR_DIM, seed: int = 0) -> dict:
    """Self-attention with second-order Taylor softmax, two ways: quadratic (the (L, L) scores
    q.k / sqrt(d) through probcore.taylor_softmax, then W V) and linear (phi(Q) (phi(K)^T V)
    normalised by phi(Q) (phi(K)^T 1): no (L, L) matrix); their largest difference; the
    multiply-adds of each (scores and weighted sum, 2 L^2 d; features times the (D, d) and (D,)
    sums, 2 L D (d + 1) with D = 1 + d + d^2); and the weights' tails against softmax's (the
    smallest weight of each query, its median over queries)."""
    q, k, v = attention_inputs(length, dim, length, seed)
    c = 1.0 / math.sqrt(dim)
    scores = c * q @ k.T
    with torch.no_grad():
        weights = probcore.taylor_softmax(torch.tensor(scores), order=2).numpy()
        soft = probcore.softmax(torch.tensor(scores)).numpy()
    quadratic = weights @ v
    fq, fk = taylor_features(q, c), taylor_features(k, c)
    linear = (fq @ (fk.T @ v)) / (fq @ fk.sum(axis=0))[:, None]
    features = fq.shape[1]
    return {
        "length": length,
        "dim": dim,
        "features": features,
        "diff": float(np.abs(linear - quadratic).max()),
        "quadratic_ops": 2 * length**2 * dim,
        "linear_ops": 2 * length * features * (dim + 1),
        "taylor_min": float(np.median(weights.min(axis=1))),
        "softmax_min": float(np.median(soft.min(axis=1))),
    }
