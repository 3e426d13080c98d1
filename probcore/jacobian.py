"""Jacobians dp/dx of the mappings: J[..., i, j] = dp_i / dx_j with ``dim`` moved last.

Closed forms (c = 1/T, or beta for softmax(beta=...), or scale/T for am_softmax):
* softmax-like (softmax, sparse_softmax, am_softmax, gumbel_softmax) and sparsemax / entmax:
  J = c (diag(s) - s s^T / sum s), s = p for the softmax-like ones (for sparse_softmax p is 0
  off the kept set, which restricts J to it), s = 1[p > 0] for sparsemax, s = p^(2 - alpha)
  on the support for entmax15 / entmax;
* taylor_softmax: J = c (diag(w) - p w^T), w_i = f_{k-1}(z_i) / sum_j f_k(z_j).
perturbmax has no closed form: autograd, one backward pass per output index (rows are
independent, so each pass gives that row of J for the whole batch).
gumbel_softmax is stochastic: its Jacobian is that of one sample and needs ``generator``
(seeded), which draws the noise; hard=True has the soft sample's Jacobian (straight-through).
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from probcore import functional as F
from probcore.errors import ProbcoreError
from probcore.registry import get_mapping

# the mappings whose Jacobian is diag(s) - s s^T / sum s with s = p^(2 - alpha): alpha per name
_GRAM_ALPHA = {
    "softmax": 1.0,
    "sparse_softmax": 1.0,
    "am_softmax": 1.0,
    "gumbel_softmax": 1.0,
    "sparsemax": 2.0,
    "entmax15": 1.5,
}


def jacobian(name: str, x: torch.Tensor, dim: int = -1, **params: Any) -> torch.Tensor:
    """J of mapping ``name`` at x along ``dim``: shape (*x.shape without dim, n, n), x's dtype."""
    mapping = get_mapping(name)
    z, _ = F._lastdim(x, dim)  # checks x and dim; float32/64 with dim last
    if name == "gumbel_softmax" and params.get("generator") is None:
        raise ProbcoreError("jacobian_generator")
    if not mapping.analytic_jacobian:
        return _autograd_jacobian(lambda v: mapping.forward(v, dim=-1, **params), z).to(x.dtype)
    if name == "gumbel_softmax":
        params = {**params, "hard": False}
    p = mapping.forward(z, dim=-1, **params)
    c = _scale(name, params)
    if name == "taylor_softmax":
        order = params.get("order", 2)
        u = F._scaled(z, params.get("temperature", 1.0))
        scale = F._taylor_scale(u)
        f = F._taylor_f(u, order, scale)
        w = F._taylor_f(u, order - 1, scale) / scale / F._nonzero(f.sum(-1, keepdim=True))
        jac = torch.diag_embed(w) - p.unsqueeze(-1) * w.unsqueeze(-2)
    else:
        alpha = params.get("alpha", 1.5) if name == "entmax" else _GRAM_ALPHA[name]
        if isinstance(alpha, torch.Tensor):
            alpha = F._alpha_rows(alpha, x, dim, z)
        else:
            alpha = float(alpha)
        s = F._entmax_s(p, alpha)
        total = F._nonzero(s.sum(-1, keepdim=True)).unsqueeze(-1)
        jac = torch.diag_embed(s) - s.unsqueeze(-1) * s.unsqueeze(-2) / total
    return (c * jac).to(x.dtype)


def _scale(name: str, params: dict[str, Any]) -> float:
    """dz/dx: the factor the logits are multiplied by before the mapping."""
    if params.get("beta") is not None:
        return params["beta"]
    c = 1 / params.get("temperature", 1.0)
    return c * params.get("scale", 1.0) if name == "am_softmax" else c


def _autograd_jacobian(fn: Callable[[torch.Tensor], torch.Tensor], z: torch.Tensor) -> torch.Tensor:
    """J of fn (row-wise along the last dim) at z by one backward pass per output index."""
    z = z.detach().requires_grad_()
    with torch.enable_grad():
        p = fn(z)
        rows = [torch.autograd.grad(p[..., i].sum(), z, retain_graph=True)[0] for i in range(p.shape[-1])]
    return torch.stack(rows, -2)
