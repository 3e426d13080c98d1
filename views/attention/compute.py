"""Attention page: scores q·k / scale of random queries and keys, and each mapping's weights over the
keys, cached."""
from __future__ import annotations

import numpy as np
import torch

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
