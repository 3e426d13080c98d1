"""Simplex page: the image of a grid of logits (radius R, m x m points) under each mapping."""

from __future__ import annotations

import numpy as np
import torch

from explorer.compute import Kw, forward, as_tensor, memo


@memo(64)
def simplex_image(name: str, kw: Kw, radius: float, m: int, target: int, seed: int) -> np.ndarray:
    """One p per 1e-3 cell (the drawing's resolution) of the outputs over the m x m grid of logits
    (u, v, 0), u, v in [-radius, radius]: shape (<= m*m, 3). Sparse mappings pile many logits on
    the same edge and vertex points, so they draw with far fewer markers."""
    g = np.linspace(-radius, radius, m)
    uu, vv = np.meshgrid(g, g)
    grid = np.stack([uu.ravel(), vv.ravel(), np.zeros(uu.size)], axis=1)
    with torch.no_grad():
        p = forward(name, as_tensor(grid), kw, target, seed).numpy()
    _, keep = np.unique(np.round(p, 3), axis=0, return_index=True)
    return p[np.sort(keep)]  # exact values: a tiny positive p stays off the edge
