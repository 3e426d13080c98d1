"""probcore calls of the explorer, numpy in and numpy out, cached: grids with ``st.cache_data``,
single logit vectors with an in-process memo.

Every function takes plain hashable arguments (logits as a tuple, keyword arguments as a sorted
tuple of items) so the cache key is cheap, and computes in float64 through the registry
(``probcore.registry.MAPPINGS``): no per-mapping code.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np
import streamlit as st
import torch

import probcore
from probcore import losses
from probcore.registry import MAPPINGS

Kw = tuple  # sorted (name, value) items of a mapping's keyword arguments

TEMPERATURES = np.geomspace(0.02, 50.0, 61)
ALPHAS = np.concatenate([np.linspace(1.0, 2.0, 21), np.geomspace(2.0, 64.0, 26)[1:]])
CLASSIC_ALPHAS = (1.0, 1.5, 2.0, float("inf"))
AUTOGRAD_MAX_N = 200  # the autograd Jacobian costs n backward passes


def items(kwargs: dict) -> Kw:
    return tuple(sorted(kwargs.items()))


def _forward(name: str, x: torch.Tensor, kw: Kw, target: int, seed: int) -> torch.Tensor:
    """p = mapping(x) along the last dim; the target class and a seeded generator are passed to
    the mappings that need them (margin softmax, stochastic ones), so a URL reproduces a sample."""
    return MAPPINGS[name].forward(x, dim=-1, **dict(kw), **_extra(name, x.shape[:-1], target, seed))


def _extra(name: str, batch: tuple, target: int, seed: int) -> dict:
    """Keyword arguments beyond the registry parameters: the target class of margin mappings and
    a freshly seeded generator for stochastic ones."""
    mapping = MAPPINGS[name]
    extra = {}
    if mapping.needs_target:
        extra["target"] = torch.full(batch, target, dtype=torch.long)
    if mapping.stochastic and "generator" in inspect.signature(mapping.forward).parameters:
        extra["generator"] = torch.Generator().manual_seed(seed)
    return extra


def _tensor(x) -> torch.Tensor:
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False  # shared by the memo below: nobody may change it
    return a


# One logit vector: a slider step misses any cache, so these use a plain in-process memo
# (no pickling of arguments and results as st.cache_data does); the grids below use st.cache_data.
@functools.lru_cache(maxsize=1024)
def probabilities(name: str, x: tuple, kw: Kw, target: int = 0, seed: int = 0) -> np.ndarray:
    """p = mapping(x) for one logit vector (read-only array)."""
    with torch.no_grad():
        return _frozen(_forward(name, _tensor(x), kw, target, seed).numpy())


def entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy -sum p log p along the last axis (0 log 0 = 0)."""
    p = np.asarray(p, dtype=np.float64)
    return -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)


def tsallis_entropy(p: np.ndarray, alpha: float) -> np.ndarray:
    """Tsallis alpha-entropy (1 - sum p^alpha) / (alpha (alpha - 1)) along the last axis; alpha = 1
    is Shannon's entropy, alpha = inf the zero regulariser of argmax."""
    if alpha == 1:
        return entropy(p)
    if np.isinf(alpha):
        return np.zeros(np.shape(p)[:-1])
    return (1 - np.sum(np.asarray(p) ** alpha, axis=-1)) / (alpha * (alpha - 1))


def _loss(name: str, kw: Kw):
    """(the registry's loss function of the mapping, the keyword arguments it takes from ``kw``),
    or None when the mapping has no loss or ``kw`` lacks a required one (top-p has no loss: the
    sparse softmax loss needs k)."""
    loss = MAPPINGS[name].loss
    if loss is None:
        return None
    fn = getattr(losses, loss)
    params = list(inspect.signature(fn).parameters.values())[2:]  # after (x, target)
    given = dict(kw)
    if any(p.default is inspect.Parameter.empty and p.name not in given for p in params):
        return None
    return fn, {p.name: given[p.name] for p in params if p.name in given}


def has_loss(name: str, kw: Kw) -> bool:
    return _loss(name, kw) is not None


def _batch_loss(name: str, x: torch.Tensor, kw: Kw, target: torch.Tensor) -> torch.Tensor:
    fn, kwargs = _loss(name, kw)
    return fn(x, target, reduction="none", **kwargs)


@functools.lru_cache(maxsize=1024)
def loss_and_grad(name: str, x: tuple, kw: Kw, target: int) -> tuple[float, np.ndarray] | None:
    """(L(x, target), dL/dx) of the mapping's loss by autograd, None if it has no loss."""
    if not has_loss(name, kw):
        return None
    xt = _tensor(x).requires_grad_(True)
    loss = _batch_loss(name, xt, kw, torch.tensor(target))
    loss.backward()
    return float(loss.detach()), _frozen(xt.grad.numpy())


@st.cache_data(max_entries=128, show_spinner=False)
def jacobians(name: str, x: tuple, kw: Kw, target: int, seed: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(probcore.jacobian, torch autograd Jacobian or None when n > AUTOGRAD_MAX_N), J[i, j] = dp_i/dx_j.
    ValueError beyond AUTOGRAD_MAX_N for a mapping whose Jacobian is autograd's anyway."""
    if len(x) > AUTOGRAD_MAX_N and not MAPPINGS[name].analytic_jacobian:
        raise ValueError(f"no analytic Jacobian: autograd needs n backward passes, shown for n <= {AUTOGRAD_MAX_N}")
    xt = _tensor(x)
    analytic = probcore.jacobian(name, xt, **dict(kw), **_extra(name, (), target, seed)).numpy()
    if len(x) > AUTOGRAD_MAX_N:
        return analytic, None
    auto = torch.autograd.functional.jacobian(lambda z: _forward(name, z, kw, target, seed), xt)
    return analytic, auto.numpy()


def rank(matrix: np.ndarray) -> int:
    """Numerical rank (SVD, relative tolerance 1e-9); O(n^3), so the page asks for n <= AUTOGRAD_MAX_N."""
    return int(np.linalg.matrix_rank(matrix, tol=1e-9 * max(1.0, float(np.abs(matrix).max()))))


@st.cache_data(max_entries=64, show_spinner=False)
def simplex_image(name: str, kw: Kw, radius: float, m: int, target: int, seed: int) -> np.ndarray:
    """One p per 1e-3 cell (the drawing's resolution) of the outputs over the m x m grid of logits
    (u, v, 0), u, v in [-radius, radius]: shape (<= m*m, 3). Sparse mappings pile many logits on
    the same edge and vertex points, so they draw with far fewer markers."""
    g = np.linspace(-radius, radius, m)
    uu, vv = np.meshgrid(g, g)
    grid = np.stack([uu.ravel(), vv.ravel(), np.zeros(uu.size)], axis=1)
    with torch.no_grad():
        p = _forward(name, _tensor(grid), kw, target, seed).numpy()
    _, keep = np.unique(np.round(p, 3), axis=0, return_index=True)
    return p[np.sort(keep)]  # exact values: a tiny positive p stays off the edge


def _without_temperature(kw: Kw) -> Kw:
    return tuple((k, 1.0 if k == "temperature" else v) for k, v in kw)


@st.cache_data(max_entries=128, show_spinner=False)
def temperature_sweep(name: str, x: tuple, kw: Kw, target: int, seed: int) -> np.ndarray:
    """Rows p = mapping(x / T) (its own temperature set to 1) for T in TEMPERATURES: (len(T), n)."""
    batch = np.asarray(x)[None, :] / TEMPERATURES[:, None]
    with torch.no_grad():
        return _forward(name, _tensor(batch), _without_temperature(kw), target, seed).numpy()


def alpha_names() -> tuple[str, ...]:
    """Registry mappings with an alpha parameter (alpha sweeps apply to them)."""
    return tuple(n for n, m in MAPPINGS.items() if any(p.name == "alpha" for p in m.params))


@st.cache_data(max_entries=128, show_spinner=False)
def alpha_sweep(name: str, x: tuple, kw: Kw, target: int, seed: int) -> np.ndarray:
    """Rows p = mapping(x; alpha) for alpha in ALPHAS (one batched call, alpha per row): (len(ALPHAS), n)."""
    batch = np.repeat(np.asarray(x, dtype=np.float64)[None, :], len(ALPHAS), axis=0)
    alpha = torch.as_tensor(ALPHAS)[:, None]
    kw = tuple((k, alpha if k == "alpha" else v) for k, v in kw)
    with torch.no_grad():
        return _forward(name, _tensor(batch), kw, target, seed).numpy()


def plane_grid(radius: float, m: int) -> np.ndarray:
    return np.linspace(-radius, radius, m)


@st.cache_data(max_entries=64, show_spinner=False)
def loss_surface(name: str, kw: Kw, target: int, radius: float, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Loss and its gradient over the plane x = (u, v, 0): arrays (m, m) indexed [v, u]
    (L, dL/du = dL/dx0, dL/dv = dL/dx1)."""
    g = plane_grid(radius, m)
    uu, vv = np.meshgrid(g, g)
    grid = _tensor(np.stack([uu.ravel(), vv.ravel(), np.zeros(uu.size)], axis=1)).requires_grad_(True)
    loss = _batch_loss(name, grid, kw, torch.full((grid.shape[0],), target, dtype=torch.long))
    loss.sum().backward()  # rows are independent: row r of the gradient is dL_r/dx_r
    grad = grid.grad.numpy()
    shape = (m, m)
    return loss.detach().numpy().reshape(shape), grad[:, 0].reshape(shape), grad[:, 1].reshape(shape)


@st.cache_data(max_entries=64, show_spinner=False)
def binary_losses(name: str, kw: Kw, margins: tuple) -> np.ndarray:
    """The mapping's loss of logits [t, 0] with target class 0, for each margin t."""
    t = np.asarray(margins)
    x = _tensor(np.stack([t, np.zeros_like(t)], axis=1))
    with torch.no_grad():
        return _batch_loss(name, x, kw, torch.zeros(len(t), dtype=torch.long)).numpy()


def hinge(t: np.ndarray) -> np.ndarray:
    """max(0, 1 - t)"""
    return np.maximum(0.0, 1.0 - t)


def logistic(t: np.ndarray) -> np.ndarray:
    """log(1 + e^-t)"""
    return np.logaddexp(0.0, -t)


def modified_huber(t: np.ndarray) -> np.ndarray:
    """Zhang (2004): max(0, 1 - t)^2 for t >= -1, else -4 t."""
    return np.where(t >= -1, np.maximum(0.0, 1.0 - t) ** 2, -4.0 * t)


@st.cache_data(max_entries=8, show_spinner=False)
def classic_panels(margins: tuple, probs: tuple) -> dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For alpha in CLASSIC_ALPHAS: (Tsallis entropy of [p, 1 - p], entmax([t, 0])_1, entmax loss of
    [t, 0] for class 0). alpha = inf is the limit: argmax and the perceptron loss max(0, -t)."""
    t, p = np.asarray(margins), np.asarray(probs)
    pair = np.stack([p, 1 - p], axis=1)
    x = _tensor(np.stack([t, np.zeros_like(t)], axis=1))
    zeros = torch.zeros(len(t), dtype=torch.long)
    out = {}
    with torch.no_grad():
        for alpha in CLASSIC_ALPHAS:
            if np.isinf(alpha):
                out[alpha] = (tsallis_entropy(pair, alpha), np.where(t > 0, 1.0, np.where(t < 0, 0.0, 0.5)),
                              np.maximum(0.0, -t))
                continue
            out[alpha] = (tsallis_entropy(pair, alpha), probcore.entmax(x, alpha=alpha)[:, 0].numpy(),
                          losses.entmax_loss(x, zeros, alpha=alpha, reduction="none").numpy())
    return out


def view_index(x: np.ndarray, probs: dict[str, np.ndarray], top: int) -> np.ndarray:
    """All classes when n <= top, else the ``top`` classes with the largest probability under any
    mapping (ties by logit), ordered by decreasing logit."""
    n = len(x)
    if n <= top:
        return np.arange(n)
    score = np.max(np.stack(list(probs.values())), axis=0) if probs else np.zeros(n)
    keep = np.lexsort((-x, -score))[:top]
    return keep[np.argsort(-x[keep], kind="stable")]


def support_size(p: np.ndarray) -> int:
    return int(np.count_nonzero(p))
