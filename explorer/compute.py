"""probcore calls of the explorer, numpy in and numpy out, cached in process-wide memos of
bounded size (:func:`memo`), shared by every session of a worker.

Every function takes plain hashable arguments (logits as a tuple, keyword arguments as a sorted
tuple of items) so the cache key is cheap, and computes in float64 through the registry
(``probcore.registry.MAPPINGS``): no per-mapping code. The topic pages' computations (perturb-max
samples, margin grids, the training demo, vocabularies, attention, check-my-numbers) follow, one
section per page.
"""
from __future__ import annotations

import functools
import inspect
from types import MappingProxyType

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


def _immutable(value):
    """``value`` made safe to share: arrays read-only, tuples / lists as tuples and dicts as
    read-only mappings, each item in turn."""
    if isinstance(value, np.ndarray):
        return _frozen(value)
    if isinstance(value, (tuple, list)):
        return tuple(_immutable(v) for v in value)
    if isinstance(value, dict):
        return MappingProxyType({k: _immutable(v) for k, v in value.items()})
    return value


def memo(max_entries: int):
    """Cache a function of hashable arguments in this process, at most ``max_entries`` results
    (least recently used out), each result immutable (:func:`_immutable`) since every session
    shares it. Unlike ``st.cache_data`` it neither hashes the arguments' bytes nor pickles the
    result on every call (about 0.25 ms a call on a busy worker, 19 calls a Simplex step)."""
    def decorate(fn):
        @functools.lru_cache(maxsize=max_entries)
        @functools.wraps(fn)
        def cached(*args, **kwargs):
            return _immutable(fn(*args, **kwargs))
        return cached
    return decorate


@memo(1024)
def probabilities(name: str, x: tuple, kw: Kw, target: int = 0, seed: int = 0) -> np.ndarray:
    """p = mapping(x) for one logit vector (read-only array)."""
    with torch.no_grad():
        return _forward(name, _tensor(x), kw, target, seed).numpy()


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


@memo(1024)
def loss_and_grad(name: str, x: tuple, kw: Kw, target: int) -> tuple[float, np.ndarray] | None:
    """(L(x, target), dL/dx) of the mapping's loss by autograd, None if it has no loss."""
    if not has_loss(name, kw):
        return None
    xt = _tensor(x).requires_grad_(True)
    loss = _batch_loss(name, xt, kw, torch.tensor(target))
    loss.backward()
    return float(loss.detach()), xt.grad.numpy()


@memo(128)
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


@memo(64)
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


@memo(128)
def temperature_sweep(name: str, x: tuple, kw: Kw, target: int, seed: int) -> np.ndarray:
    """Rows p = mapping(x / T) (its own temperature set to 1) for T in TEMPERATURES: (len(T), n)."""
    batch = np.asarray(x)[None, :] / TEMPERATURES[:, None]
    with torch.no_grad():
        return _forward(name, _tensor(batch), _without_temperature(kw), target, seed).numpy()


def alpha_names() -> tuple[str, ...]:
    """Registry mappings with an alpha parameter (alpha sweeps apply to them)."""
    return tuple(n for n, m in MAPPINGS.items() if any(p.name == "alpha" for p in m.params))


@memo(128)
def alpha_sweep(name: str, x: tuple, kw: Kw, target: int, seed: int) -> np.ndarray:
    """Rows p = mapping(x; alpha) for alpha in ALPHAS (one batched call, alpha per row): (len(ALPHAS), n)."""
    batch = np.repeat(np.asarray(x, dtype=np.float64)[None, :], len(ALPHAS), axis=0)
    alpha = torch.as_tensor(ALPHAS)[:, None]
    kw = tuple((k, alpha if k == "alpha" else v) for k, v in kw)
    with torch.no_grad():
        return _forward(name, _tensor(batch), kw, target, seed).numpy()


def plane_grid(radius: float, m: int) -> np.ndarray:
    return np.linspace(-radius, radius, m)


@memo(64)
def loss_surface(name: str, kw: Kw, target: int, radius: float, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Loss over the plane x = (u, v, 0) and the descent step's direction: arrays (m, m) indexed
    [v, u]: (L, g0 - g2, g1 - g2) with g = dL/dx. A gradient step x <- x - eta g on all three logits
    moves (u, v) = (x0 - x2, x1 - x2) by -eta (g0 - g2, g1 - g2); for a shift-invariant loss
    g2 = -(g0 + g1), i.e. -eta (2 g0 + g1, g0 + 2 g1), not -eta (g0, g1)."""
    g = plane_grid(radius, m)
    uu, vv = np.meshgrid(g, g)
    grid = _tensor(np.stack([uu.ravel(), vv.ravel(), np.zeros(uu.size)], axis=1)).requires_grad_(True)
    loss = _batch_loss(name, grid, kw, torch.full((grid.shape[0],), target, dtype=torch.long))
    loss.sum().backward()  # rows are independent: row r of the gradient is dL_r/dx_r
    grad = grid.grad.numpy()
    shape = (m, m)
    return (loss.detach().numpy().reshape(shape), (grad[:, 0] - grad[:, 2]).reshape(shape),
            (grad[:, 1] - grad[:, 2]).reshape(shape))


@memo(64)
def binary_losses(name: str, kw: Kw, margins: tuple) -> np.ndarray:
    """The mapping's loss of logits [t, 0] with target class 0, for each margin t."""
    t = np.asarray(margins)
    x = _tensor(np.stack([t, np.zeros_like(t)], axis=1))
    with torch.no_grad():
        return _batch_loss(name, x, kw, torch.zeros(len(t), dtype=torch.long)).numpy()


def taylor_binary_turn(margins: np.ndarray, loss: np.ndarray) -> dict[str, str]:
    """Where the Taylor loss of [t, 0] turns (it is not monotone in t): its peak, and the t left of the
    peak where the loss equals the loss at t = 1 (interpolated), formatted for ``loss.taylor_binary``."""
    top = int(np.argmax(loss))
    right = float(np.interp(1.0, margins, loss))
    left_t, left_loss = margins[: top + 1], loss[: top + 1]  # increasing up to the peak
    twin = float(np.interp(right, left_loss, left_t)) if left_loss[0] <= right <= left_loss[-1] else float("nan")
    return dict(tpeak=f"{margins[top]:.3g}", peak=f"{loss[top]:.4g}", twin=f"{twin:.3g}", right=f"{right:.4g}")


def hinge(t: np.ndarray) -> np.ndarray:
    """max(0, 1 - t)"""
    return np.maximum(0.0, 1.0 - t)


def logistic(t: np.ndarray) -> np.ndarray:
    """log(1 + e^-t)"""
    return np.logaddexp(0.0, -t)


def modified_huber(t: np.ndarray) -> np.ndarray:
    """Zhang (2004): max(0, 1 - t)^2 for t >= -1, else -4 t."""
    return np.where(t >= -1, np.maximum(0.0, 1.0 - t) ** 2, -4.0 * t)


@memo(8)
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


# ---------------------------------------------------------------- perturb page ----

SAMPLE_GRID = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
MC_DRAW_BUDGET = 10_000_000  # noise draws (N x n) per Monte-Carlo estimate: about 0.5 s
TAU_CHOICES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
# Gumbel-softmax sharpness curve: 6 temperatures per decade, TAU_CHOICES among them
TAUS = tuple(sorted({round(m * 10.0**e, 10) for e in range(-2, 2) for m in (1, 1.5, 2, 3, 5, 7)} | {100.0}))
SHARPNESS_DRAWS = 200  # samples per temperature of that curve


def sample_cap(n: int) -> int:
    """The largest N of SAMPLE_GRID with N * n <= MC_DRAW_BUDGET (at least the first one)."""
    fitting = [m for m in SAMPLE_GRID if m * n <= MC_DRAW_BUDGET]
    return fitting[-1] if fitting else SAMPLE_GRID[0]


@memo(64)
def perturbmax_nested(x: tuple, noise: str, n_max: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo perturb-max (probcore.functional.perturbmax_sample, temperature 1) at every N
    of SAMPLE_GRID up to ``n_max``, nested: one generator, torch.Generator().manual_seed(seed),
    draws the blocks N_1, N_2 - N_1, N_3 - N_2, ... so the estimate at N_k extends the one at
    N_(k-1) with new draws. Returns (Ns, frequencies of shape (len(Ns), n)); rows sum to 1."""
    ns = np.array([m for m in SAMPLE_GRID if m <= n_max] or [SAMPLE_GRID[0]])
    generator = torch.Generator().manual_seed(seed)
    xt = _tensor(x)
    counts = np.zeros(len(x))
    rows = []
    done = 0
    for m in ns:
        block = int(m) - done
        freq = probcore.perturbmax_sample(xt, noise=noise, n_samples=block, generator=generator).numpy()
        counts += np.rint(freq * block)
        done = int(m)
        rows.append(counts / done)
    return ns, np.stack(rows)


def clt_total_variation(p: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """E[TV(f_N, p)] to first order (central limit): sum_i sqrt(p_i (1 - p_i) / (2 pi N))."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)  # quadrature p may exceed 1 by ~1e-12
    return np.sqrt(p * (1 - p)).sum() / np.sqrt(2 * np.pi * np.asarray(ns, dtype=np.float64))


def _gumbel_softmax_rows(x: tuple, rows: int, tau: float, hard: bool, seed: int) -> np.ndarray:
    """``rows`` Gumbel-softmax samples of x (registry forward, generator seeded with ``seed``)."""
    batch = _tensor(np.repeat(np.asarray(x, dtype=np.float64)[None, :], rows, axis=0))
    with torch.no_grad():
        return _forward("gumbel_softmax", batch, items({"temperature": tau, "hard": hard}), 0, seed).numpy()


@memo(64)
def gumbel_softmax_draws(x: tuple, tau: float, draws: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(soft, hard) samples, shape (draws, n), from the same Gumbel noise (seed): hard is the
    straight-through one-hot of soft's argmax."""
    return _gumbel_softmax_rows(x, draws, tau, False, seed), _gumbel_softmax_rows(x, draws, tau, True, seed)


@memo(64)
def gumbel_softmax_sharpness(x: tuple, seed: int) -> np.ndarray:
    """Mean of max_i y_i over SHARPNESS_DRAWS Gumbel-softmax samples y for every tau of TAUS
    (the same noise for every tau: the seed is reset)."""
    return np.array([_gumbel_softmax_rows(x, SHARPNESS_DRAWS, tau, False, seed).max(axis=1).mean() for tau in TAUS])



# ---------------------------------------------------------------- margin page ----

MARGIN_RADIUS = 1.5  # the plane [-R, R]^2 of 2-D features
MARGIN_GRID = 200  # grid points per axis of the region maps
MARGIN_SWEEP = tuple(float(v) for v in np.linspace(0.0, 1.0, 101))  # m of the loss-vs-margin curves
MARGIN_DIRECTIONS = 3600  # directions (0.1 degree) for the share of no-man's-land


def margin_centres(classes: int) -> np.ndarray:
    """C unit weight vectors w_j evenly on the circle, class j at angle 2 pi j / C: shape (C, 2)."""
    angles = 2 * np.pi * np.arange(classes) / classes
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def margin_cosines(points: np.ndarray, classes: int) -> np.ndarray:
    """cos theta_j between 2-D features (..., 2) and each class centre (both normalised):
    shape (..., C); NaN at the origin (no direction)."""
    points = np.asarray(points, dtype=np.float64)
    norm = np.linalg.norm(points, axis=-1, keepdims=True)
    unit = np.divide(points, norm, out=np.full_like(points, np.nan), where=norm > 0)
    return unit @ margin_centres(classes).T


def margin_gap(cos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(argmax_j cos_j, cos of that class minus the largest other cosine) along the last axis."""
    top2 = np.sort(cos, axis=-1)[..., -2:]
    return np.argmax(cos, axis=-1), top2[..., 1] - top2[..., 0]


@memo(32)
def margin_regions(classes: int, margin: float, scale: float, target: int, radius: float = MARGIN_RADIUS,
                   size: int = MARGIN_GRID) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Over the size x size grid of [-radius, radius]^2 (arrays indexed [y, x]): (grid, plain,
    strict, p_target). plain: argmax_j cos theta_j, the decision without margin. strict: that
    class t where cos theta_t - max_{j != t} cos theta_j >= margin (the point counts for t under
    AM-softmax training), -1 elsewhere (no-man's-land); with margin 0 strict == plain.
    p_target: probcore.am_softmax(cos, target, margin, scale)[target], the probability a feature
    there gets for class ``target`` when labelled ``target``. int8 / float32 (for plotly)."""
    grid = np.linspace(-radius, radius, size)
    xx, yy = np.meshgrid(grid, grid)
    cos = margin_cosines(np.stack([xx, yy], axis=-1), classes)
    plain, gap = margin_gap(cos)
    strict = np.where(gap >= margin, plain, -1)
    labels = torch.full(cos.shape[:-1], target, dtype=torch.long)
    with torch.no_grad():
        p = probcore.am_softmax(_tensor(cos), labels, margin=margin, scale=scale)[..., target].numpy()
    return grid, plain.astype(np.int8), strict.astype(np.int8), p.astype(np.float32)


@memo(64)
def margin_share(classes: int, margin: float) -> float:
    """Fraction of directions (MARGIN_DIRECTIONS evenly spaced angles) in no-man's-land, i.e. with
    cos theta_(1) - cos theta_(2) < margin."""
    angles = (np.arange(MARGIN_DIRECTIONS) + 0.5) * 2 * np.pi / MARGIN_DIRECTIONS
    _, gap = margin_gap(margin_cosines(np.stack([np.cos(angles), np.sin(angles)], axis=1), classes))
    return float(np.mean(gap < margin))


@memo(256)
def margin_point(classes: int, angle_deg: float, margin: float, scale: float, target: int) -> dict:
    """The feature (cos a, sin a) with label ``target``: its cosines, AM-softmax logits
    s (cos - m [j = t]), probcore.am_softmax probabilities with margin and without (m = 0, i.e.
    softmax(s cos)), and probcore.losses.am_softmax_loss with and without margin."""
    a = np.deg2rad(angle_deg)
    cos = margin_cosines(np.array([np.cos(a), np.sin(a)]), classes)
    xt, tt = _tensor(cos), torch.tensor(target)
    with torch.no_grad():
        p = probcore.am_softmax(xt, tt, margin=margin, scale=scale).numpy()
        p0 = probcore.am_softmax(xt, tt, margin=0.0, scale=scale).numpy()
        loss = float(losses.am_softmax_loss(xt, tt, margin=margin, scale=scale))
        loss0 = float(losses.am_softmax_loss(xt, tt, margin=0.0, scale=scale))
    logits = scale * (cos - margin * (np.arange(classes) == target))
    return {"cos": cos, "logits": logits, "p": p, "p0": p0,
            "loss": loss, "loss0": loss0}


@memo(256)
def margin_sweep(classes: int, angle_deg: float, scale: float, target: int) -> dict:
    """For m in MARGIN_SWEEP: probcore's AM-softmax loss and p_target of the feature at angle
    ``angle_deg`` labelled ``target`` (one call per m), the target logit s (cos_t - m) and the
    largest other logit s max_{j != t} cos_j."""
    ms = np.asarray(MARGIN_SWEEP)
    a = np.deg2rad(angle_deg)
    cos = margin_cosines(np.array([np.cos(a), np.sin(a)]), classes)
    xt, tt = _tensor(cos), torch.tensor(target)
    with torch.no_grad():
        loss = np.array([float(losses.am_softmax_loss(xt, tt, margin=m, scale=scale)) for m in ms])
        p_t = np.array([float(probcore.am_softmax(xt, tt, margin=m, scale=scale)[target]) for m in ms])
    others = np.delete(cos, target)
    return {"m": ms, "loss": loss, "p_target": p_t, "target_logit": scale * (cos[target] - ms),
            "runner_logit": np.full(len(ms), scale * others.max())}



# ---------------------------------------------------------------- overconfidence page ----

OC_N = tuple(int(v) for v in np.unique(np.round(np.geomspace(2, 1e6, 241))))  # class counts of the bound plot
# Seconds per full-batch update (forward with metrics, backward, Adam) of the training demo, as
# a + b * n_classes milliseconds: fitted to compare_losses timings on the 2-core development box
# (100 steps x 20 classes, 8 runs + 150 pretraining steps: 1.5-2.3 s idle, 3-4 s under load).
OC_MS_PER_UPDATE = (1.0, 0.08)


@memo(64)
def oc_bounds(eps: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, cross-entropy bound, top-k bound) for n in OC_N: explorer.training.logit_gap_bound(n,
    eps), the smallest s_max - s_min at loss eps, and logit_gap_bound(n, eps, k=min(k, n)), the
    smallest s_max - s_(k) at top-k sparse softmax loss eps."""
    from explorer import training

    n = np.asarray(OC_N)
    ce = np.array([training.logit_gap_bound(int(m), eps) for m in n])
    topk = np.array([training.logit_gap_bound(int(m), eps, k=min(k, int(m))) for m in n])
    return n, ce, topk


def oc_updates(steps: int, runs: int = 8, pretrain_steps: int = 150) -> int:
    """Full-batch updates (each with its metrics) of compare_losses: pretraining, then every run."""
    return pretrain_steps + runs * (steps + 1)


def oc_estimate_seconds(steps: int, n_classes: int, runs: int = 8, pretrain_steps: int = 150) -> float:
    """Expected seconds of compare_losses(steps, n_classes) on the development box (OC_MS_PER_UPDATE)."""
    a, b = OC_MS_PER_UPDATE
    return oc_updates(steps, runs, pretrain_steps) * (a + b * n_classes) / 1000.0



# ---------------------------------------------------------------- vocab page ----

VOCAB_D = 16  # hidden size of the hierarchical-softmax demo (random h and node vectors)
VOCAB_TREE_MAX_N = 32  # the tree is drawn up to this n
VOCAB_REPEATS = 200  # draws per m (importance sampling) and per k (NCE)
VOCAB_MS = tuple(2**k for k in range(12))  # samples m = 1 .. 2048
VOCAB_KS = tuple(2**k for k in range(11))  # NCE noise samples k = 1 .. 1024
VOCAB_BOUND_NS = (2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000)  # code-length bound
VOCAB_COST_NS = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000)
VOCAB_COST = dict(d=64, m=64, batch=16, repeats=5)  # measure_costs settings of the cost plot
VOCAB_PROPOSALS = ("uniform", "unigram")


def vocab_logits(n: int, s: float, sigma: float, seed: int) -> torch.Tensor:
    """Logits of one context over n classes: the Zipf(s) unigram log-frequency plus N(0, sigma^2)
    noise (the context moves the scores away from the unigram), float64, from ``seed``."""
    from probcore.vocab import zipf_frequencies
    noise = torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return zipf_frequencies(n, s).log() + sigma * noise


def vocab_proposal(name: str, n: int, s: float) -> torch.Tensor:
    """The sampling distribution q: uniform 1/n, or the Zipf(s) unigram frequencies."""
    from probcore.vocab import zipf_frequencies
    return torch.full((n,), 1.0 / n, dtype=torch.float64) if name == "uniform" else zipf_frequencies(n, s)


@memo(32)
def vocab_hs(n: int, s: float, seed: int) -> dict:
    """Huffman tree of Zipf(s) over n classes and the hierarchical-softmax probabilities of one
    random h with random node vectors (both N(0, 1), d = VOCAB_D, drawn from ``seed``: first the
    (n - 1, d) node vectors, then h). Returns numpy arrays and the code-length figures."""
    from probcore import vocab
    freqs = vocab.zipf_frequencies(n, s)
    tree = vocab.huffman_tree(freqs)
    g = torch.Generator().manual_seed(seed)
    vectors = torch.randn(n - 1, VOCAB_D, generator=g, dtype=torch.float64)
    h = torch.randn(VOCAB_D, generator=g, dtype=torch.float64)
    with torch.no_grad():
        p = vocab.hierarchical_softmax(h, vectors, tree)
    return dict(p=p.numpy(), sum=float(p.sum()), freqs=freqs.numpy(), lengths=tree.lengths.numpy(),
                nodes=tree.nodes.numpy(), codes=tree.codes.numpy(), entropy=vocab.entropy_bits(freqs),
                expected=vocab.expected_path_length(tree, freqs), log2_n=float(np.log2(n)),
                max_length=tree.max_length)


@memo(16)
def huffman_uniform(n: int) -> dict[str, float]:
    """code_length_summary of n equal frequencies (Zipf s = 0): the Huffman expected length equals
    log2 n only when n is a power of 2."""
    from probcore.vocab import code_length_summary, zipf_frequencies
    return code_length_summary(zipf_frequencies(n, 0.0))


@memo(16)
def vocab_bounds(s: float) -> dict[str, np.ndarray]:
    """Entropy, Huffman expected and maximum code length of Zipf(s) for n in VOCAB_BOUND_NS."""
    from probcore.vocab import code_length_summary, zipf_frequencies
    rows = [code_length_summary(zipf_frequencies(n, s)) for n in VOCAB_BOUND_NS]
    return {key: np.array([r[key] for r in rows], dtype=float)
            for key in ("n", "entropy_bits", "expected_length", "log2_n", "max_length")}


@memo(32)
def vocab_importance(n: int, s: float, sigma: float, seed: int) -> dict:
    """``importance_sampling_stats`` of ``vocab_logits`` for each proposal and each m in VOCAB_MS
    (VOCAB_REPEATS draws, a generator seeded with ``seed`` for every m): {proposal: {field: array}}
    plus "log_z" (exact) and "chi2" (chi^2(p || q), the variance of Z_hat / Z with one sample)."""
    from probcore.vocab import importance_sampling_stats, partition_estimate_variance
    x = vocab_logits(n, s, sigma, seed)
    out = {"log_z": float(torch.logsumexp(x, 0)), "chi2": {}}
    for name in VOCAB_PROPOSALS:
        q = vocab_proposal(name, n, s)
        stats = [importance_sampling_stats(x, q, m, VOCAB_REPEATS, torch.Generator().manual_seed(seed))
                 for m in VOCAB_MS]
        out[name] = {f: np.array([getattr(st_, f) for st_ in stats], dtype=float) for f in stats[0]._fields}
        out["chi2"][name] = float(partition_estimate_variance(x, q, 1))
    return out


@memo(32)
def vocab_nce(n: int, s: float, sigma: float, seed: int) -> dict:
    """NCE with k unigram noise samples (k in VOCAB_KS) for the normalised model scores
    log softmax(vocab_logits) and one target t ~ softmax (drawn from ``seed``):

    * ``loss_mean`` / ``loss_sd``: nce_loss over VOCAB_REPEATS noise draws,
    * ``loss_exact``: its expectation log(1 + k q_t / p_t) + k sum_i q_i log(1 + p_i / (k q_i)),
    * ``loss_limit``: CE + log(k q_t) + Z - log Z with Z = sum exp(score) = 1 here (normalised scores),
      what the expectation tends to as k grows,
    * ``grad_err_draw``: mean over draws of |g_hat - g|_1 / |g|_1, g = p - onehot(t) the gradient of
      the full softmax cross-entropy CE = -log p_t, g_hat the autograd gradient of one draw,
    * ``grad_err_exact``: the same for the exact expected NCE gradient k q D - (1 - D_t) onehot(t),
      D = p / (p + k q) (the bias left for finite k)."""
    from probcore.vocab import draw_samples, nce_loss
    x = vocab_logits(n, s, sigma, seed)
    logp = torch.log_softmax(x, 0)
    p = logp.exp()
    q = vocab_proposal("unigram", n, s)
    logq = q.log()
    g = torch.Generator().manual_seed(seed)
    t = int(torch.multinomial(p, 1, generator=g))
    ce = float(-logp[t])
    grad_ce = p.clone()
    grad_ce[t] -= 1
    norm = float(grad_ce.abs().sum())
    chunk = max(1, 2**20 // n)
    out = {key: [] for key in ("loss_mean", "loss_sd", "loss_exact", "loss_limit", "grad_err_draw", "grad_err_exact")}
    for k in VOCAB_KS:
        noise = draw_samples(q, k, (VOCAB_REPEATS,), g)
        x_t = logp[t].expand(VOCAB_REPEATS).clone().requires_grad_(True)
        x_noise = logp[noise].requires_grad_(True)
        loss = nce_loss(x_t, x_noise, logq[t], logq[noise], k, reduction="none")
        loss.sum().backward()
        err = []
        for start in range(0, VOCAB_REPEATS, chunk):  # dense gradients, ~2^20 entries at a time
            rows = slice(start, min(start + chunk, VOCAB_REPEATS))
            dense = torch.zeros(rows.stop - start, n, dtype=torch.float64)
            dense.scatter_add_(1, noise[rows], x_noise.grad[rows])
            dense[:, t] += x_t.grad[rows]
            err.append((dense - grad_ce).abs().sum(1) / norm)
        d = p / (p + k * q)
        expected = k * q * d
        expected[t] -= 1 - d[t]
        loss = loss.detach()
        out["loss_mean"].append(float(loss.mean()))
        out["loss_sd"].append(float(loss.std()))
        out["loss_exact"].append(float(torch.log1p(k * q[t] / p[t]) + k * (q * torch.log1p(p / (k * q))).sum()))
        out["loss_limit"].append(ce + float(np.log(k * float(q[t]))) + 1.0)
        out["grad_err_draw"].append(float(torch.cat(err).mean()))
        out["grad_err_exact"].append(float((expected - grad_ce).abs().sum() / norm))
    return {**{key: np.array(v) for key, v in out.items()}, "target": t, "ce": ce, "p_t": float(p[t]),
            "q_t": float(q[t])}


def vocab_costs(s: float) -> dict:
    """Wall time of one loss (full softmax, hierarchical, sampled) for n in VOCAB_COST_NS, measured
    now on this machine by ``probcore.vocab.measure_costs`` (not cached: a new measurement each call)."""
    import time

    from probcore.vocab import COST_METHODS, measure_costs
    start = time.perf_counter()
    rows = [measure_costs(n, s=s, **VOCAB_COST) for n in VOCAB_COST_NS]
    return {"n": np.array(VOCAB_COST_NS, dtype=float), "s": s, "threads": torch.get_num_threads(),
            "seconds": time.perf_counter() - start,
            **{meth: np.array([r[meth] for r in rows]) for meth in COST_METHODS}}


# ---------------------------------------------------------------- attention page ----

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
        return _forward(name, _tensor(np.array(scores, dtype=np.float64)), kw, 0, 0).numpy()



# ---------------------------------------------------------------- check page ----

CHECK_MAPPINGS = tuple(name for name, m in MAPPINGS.items() if not m.stochastic)  # output is reproducible
CHECK_TEXT_CHARS = 4_000_000  # pasted text, per text area
CHECK_EAGER_VALUES = 200_000  # reference downloads up to this size are prepared with the page
CHECK_TOP_VIEW = 40  # entries shown in the bar chart of one row
UPLOAD_TTL = 600  # seconds the check caches keep an upload's arrays (up to 16 uploads of 2M values each)


def check_parse_rows(text: str, name: str) -> np.ndarray:
    """(rows, n) float64 from pasted text, never eval: one row per line when the lines hold
    several numbers each (also [[...], [...]] as printed by numpy or Python), else the whole text
    is one vector (numbers separated by commas, spaces or new lines). nan / inf are accepted (an
    output may have overflowed; check_outputs refuses them in the logits). ValueError names the
    line and the token."""
    import re

    from probcore.check import MAX_ROWS, MAX_VALUES, parse_vector
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{name} is empty: paste numbers separated by commas or spaces, one row per line")
    if len(text) > CHECK_TEXT_CHARS:
        raise ValueError(f"{name} must be at most {CHECK_TEXT_CHARS:,} characters, got {len(text):,}; upload a .npy file")
    body = text.strip().replace("−", "-")
    if body[:2] in ("[[", "((") and body[-2:] in ("]]", "))"):
        chunks = re.split(r"[\])]\s*[,;]?\s*[\[(]", body[1:-1])  # split between rows
        unit = "row"
    else:
        chunks = [line for line in body.splitlines() if line.strip()]
        unit = "line"
    if len(chunks) > MAX_ROWS:
        raise ValueError(f"{name} must have at most {MAX_ROWS:,} rows, got {len(chunks):,}")
    rows = []
    for i, chunk in enumerate(chunks, start=1):
        chunk = chunk.strip().rstrip(",;").strip()
        if unit == "row":  # the first row keeps its "[", the last its "]"
            chunk = chunk.lstrip("[(").rstrip("])")
        try:
            rows.append(parse_vector(chunk, allow_nonfinite=True, name=f"{name}, {unit} {i}"))
        except ValueError as err:
            raise ValueError(str(err)) from None
    if len(rows) > 1 and all(len(r) == 1 for r in rows):
        rows = [np.concatenate(rows)]  # a column of numbers: one vector
    width = len(rows[0])
    for i, r in enumerate(rows, start=1):
        if len(r) != width:
            raise ValueError(f"{name}: {unit} {i} has {len(r)} values, expected {width} like {unit} 1")
    if len(rows) * width > MAX_VALUES:
        raise ValueError(f"{name} must hold at most {MAX_VALUES:,} values in all, got {len(rows) * width:,}")
    return np.stack(rows)


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner=False)
def check_load_file(data: bytes, filename: str, name: str) -> np.ndarray:
    """probcore.check.load_rows of an uploaded .csv / .npy (nan / inf kept: see check_parse_rows)."""
    from probcore.check import load_rows
    return load_rows(data, filename, allow_nonfinite=True, name=name)


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner=False)
def check_run(x: np.ndarray, p: np.ndarray, mapping: str, params: Kw, atol: float, rtol: float) -> list:
    """probcore.check.check_outputs, one RowVerdict per row (params: sorted items, target included)."""
    from probcore.check import check_outputs
    return check_outputs(x, p, mapping, atol=atol, rtol=rtol, **dict(params))


@st.cache_data(max_entries=8, ttl=UPLOAD_TTL, show_spinner=False)
def check_reference_files(reference: np.ndarray) -> tuple[bytes, bytes]:
    """The reference output as CSV and as .npy (probcore.check.rows_bytes)."""
    from probcore.check import rows_bytes
    return rows_bytes(reference, "csv"), rows_bytes(reference, "npy")


def check_view_index(reference: np.ndarray, user: np.ndarray, top: int) -> np.ndarray:
    """All entries when n <= top, else the ``top`` entries with the largest error (non-finite
    first), then the largest reference values, in index order."""
    n = len(reference)
    if n <= top:
        return np.arange(n)
    with np.errstate(invalid="ignore"):
        err = np.abs(user - reference)
    err = np.where(np.isnan(err), np.inf, err)
    by_error = np.argsort(-err, kind="stable")[: top // 2]
    by_error = by_error[err[by_error] > 0]
    by_ref = np.argsort(-reference, kind="stable")[:top]
    rest = by_ref[~np.isin(by_ref, by_error)][: top - len(by_error)]
    return np.sort(np.concatenate([by_error, rest]))


# Example "user implementations" (written from the formulas, independently of probcore), one row at a time.

def user_softmax(z, temperature=1.0):
    """A correct softmax: subtract the max before exp."""
    z = np.asarray(z, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def user_softmax_no_max(z, temperature=1.0):
    """The textbook formula as written: exp(z) / sum exp(z). exp overflows beyond z = 709.78."""
    with np.errstate(all="ignore"):
        e = np.exp(np.asarray(z, dtype=np.float64) / temperature)
        return e / e.sum()


def user_softmax_forgot_temperature(z, temperature=1.0):
    """Softmax that never divides by the temperature it is given."""
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def user_log_softmax(z, temperature=1.0):
    """Returns log p (as log_softmax does) where p was wanted."""
    z = np.asarray(z, dtype=np.float64) / temperature
    return z - z.max() - np.log(np.exp(z - z.max()).sum())


def user_sparsemax(z, temperature=1.0):
    """A correct sparsemax: sort, support size K = max{k : 1 + k z_(k) > sum_(j<=k) z_(j)} with k
    counted from 1, threshold tau = (sum of the K largest - 1) / K."""
    z = np.asarray(z, dtype=np.float64) / temperature
    zs = np.sort(z)[::-1]
    cs = np.cumsum(zs)
    k = np.arange(1, len(z) + 1)
    K = k[1 + k * zs > cs][-1]
    tau = (cs[K - 1] - 1) / K
    return np.maximum(z - tau, 0.0)


def user_sparsemax_off_by_one(z, temperature=1.0):
    """Sparsemax with the support size off by one: k already counts from 1, and the code adds 1
    again, as if it were a 0-based index."""
    z = np.asarray(z, dtype=np.float64) / temperature
    zs = np.sort(z)[::-1]
    cs = np.cumsum(zs)
    k = np.arange(1, len(z) + 1)
    K = k[1 + k * zs > cs][-1] + 1  # bug: K is a count already
    tau = (cs[K - 1] - 1) / K
    return np.maximum(z - tau, 0.0)


def _example_logits(large_row: bool) -> np.ndarray:
    """Three rows of 8 logits (N(0, 1.5^2), a seed whose sparsemax supports have 2 to 4 entries: the
    off-by-one threshold then differs visibly); the last row shifted to ~750 when ``large_row``
    (large logits, e.g. unscaled dot products: exp overflows)."""
    x = np.round(np.random.default_rng(1).normal(0.0, 1.5, size=(3, 8)), 3)
    if large_row:
        x[2] += 750.0
    return x


# name -> (mapping, parameters, user implementation, large last row?)
CHECK_EXAMPLES = {
    "softmax_ok": ("softmax", {}, user_softmax, True),
    "softmax_no_max": ("softmax", {}, user_softmax_no_max, True),
    "softmax_forgot_temperature": ("softmax", {"temperature": 2.0}, user_softmax_forgot_temperature, False),
    "log_softmax": ("softmax", {}, user_log_softmax, False),
    "sparsemax_ok": ("sparsemax", {}, user_sparsemax, False),
    "sparsemax_off_by_one": ("sparsemax", {}, user_sparsemax_off_by_one, False),
}


def check_example(name: str) -> tuple[str, dict, np.ndarray, np.ndarray]:
    """(mapping, parameters, logits rows, the example implementation's output rows)."""
    mapping, params, impl, large = CHECK_EXAMPLES[name]
    x = _example_logits(large)
    return mapping, params, x, np.stack([impl(row, **params) for row in x])


def format_rows(rows: np.ndarray) -> str:
    """One line per row, values separated by ', ' (repr: float64 round-trips; nan / inf as words)."""
    return "\n".join(", ".join(repr(float(v)) for v in row) for row in np.atleast_2d(rows))
