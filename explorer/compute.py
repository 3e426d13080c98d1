"""probcore calls of the explorer, numpy in and numpy out, cached in process-wide memos of
bounded size (:func:`memo`), shared by every session of a worker.

Every function takes plain hashable arguments (logits as a tuple, keyword arguments as a sorted
tuple of items) so the cache key is cheap, and computes in float64 through the registry
(``probcore.registry.MAPPINGS``): no per-mapping code. What several pages use is here; a page's own
computations are in views/<page>/compute.py, built on :func:`memo` and the helpers below.
"""

from __future__ import annotations

import functools
import inspect
from types import MappingProxyType

import numpy as np
import torch

import probcore
from probcore import losses, threshold
from probcore.registry import MAPPINGS

Kw = tuple  # sorted (name, value) items of a mapping's keyword arguments
D64 = torch.float64

TEMPERATURES = np.geomspace(0.02, 50.0, 61)
ALPHAS = np.concatenate([np.linspace(1.0, 2.0, 21), np.geomspace(2.0, 64.0, 26)[1:]])
AUTOGRAD_MAX_N = 200  # the autograd Jacobian costs n vector-Jacobian products (n passes, or one over n copies)


def items(kwargs: dict) -> Kw:
    return tuple(sorted(kwargs.items()))


def forward(name: str, x: torch.Tensor, kw: Kw, target: int, seed: int) -> torch.Tensor:
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
    if mapping.stochastic and _takes_generator(name):
        extra["generator"] = torch.Generator().manual_seed(seed)
    return extra


@functools.cache
def _takes_generator(name: str) -> bool:
    """Whether the mapping's forward takes a ``generator`` (read once per process: inspect.signature
    costs about as much as a small mapping's call)."""
    return "generator" in inspect.signature(MAPPINGS[name].forward).parameters


def as_tensor(x) -> torch.Tensor:
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
        return forward(name, as_tensor(x), kw, target, seed).numpy()


def entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy -sum p log p along the last axis (0 log 0 = 0), never below +0.0 (a one-hot p
    gives -0.0 and rounding can give -1e-16: shown as "-0.0000" before)."""
    p = np.asarray(p, dtype=np.float64)
    return np.maximum(-np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1), 0.0) + 0.0


def tsallis_entropy(p: np.ndarray, alpha: float) -> np.ndarray:
    """Tsallis alpha-entropy (1 - sum p^alpha) / (alpha (alpha - 1)) along the last axis; alpha = 1
    is Shannon's entropy, alpha = inf the zero regulariser of argmax."""
    if alpha == 1:
        return entropy(p)
    if np.isinf(alpha):
        return np.zeros(np.shape(p)[:-1])
    return (1 - np.sum(np.asarray(p) ** alpha, axis=-1)) / (alpha * (alpha - 1))


@functools.cache
def _loss_params(loss: str) -> tuple[inspect.Parameter, ...]:
    """The parameters of probcore.losses.<loss> after (x, target), read once per process (inspect.signature
    costs about as much as a small loss itself, and a Compare step asked for it twice per mapping)."""
    return tuple(inspect.signature(getattr(losses, loss)).parameters.values())[2:]


def _loss(name: str, kw: Kw):
    """(the registry's loss function of the mapping, the keyword arguments it takes from ``kw``),
    or None when the mapping has no loss or ``kw`` lacks a required one (top-p has no loss: the
    sparse softmax loss needs k)."""
    loss = MAPPINGS[name].loss
    if loss is None:
        return None
    fn = getattr(losses, loss)
    params = _loss_params(loss)
    given = dict(kw)
    if any(p.default is inspect.Parameter.empty and p.name not in given for p in params):
        return None
    return fn, {p.name: given[p.name] for p in params if p.name in given}


def has_loss(name: str, kw: Kw) -> bool:
    return _loss(name, kw) is not None


def batch_loss(name: str, x: torch.Tensor, kw: Kw, target: torch.Tensor) -> torch.Tensor:
    fn, kwargs = _loss(name, kw)
    return fn(x, target, reduction="none", **kwargs)


@memo(1024)
def loss_and_grad(name: str, x: tuple, kw: Kw, target: int) -> tuple[float, np.ndarray] | None:
    """(L(x, target), dL/dx) of the mapping's loss by autograd, None if it has no loss."""
    found = _loss(name, kw)  # looked up once (has_loss, then batch_loss, looked it up twice)
    if found is None:
        return None
    fn, kwargs = found
    xt = as_tensor(x).requires_grad_(True)
    loss = fn(xt, torch.tensor(target), reduction="none", **kwargs)
    loss.backward()
    return float(loss.detach()), xt.grad.numpy()


@memo(128)
def jacobians(name: str, x: tuple, kw: Kw, target: int, seed: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(probcore.jacobian, torch autograd Jacobian or None when n > AUTOGRAD_MAX_N), J[i, j] = dp_i/dx_j.
    ValueError beyond AUTOGRAD_MAX_N for a mapping whose Jacobian is autograd's anyway."""
    if len(x) > AUTOGRAD_MAX_N and not MAPPINGS[name].analytic_jacobian:
        raise ValueError(
            f"no analytic Jacobian: autograd needs n vector-Jacobian products, shown for n <= {AUTOGRAD_MAX_N}"
        )
    xt = as_tensor(x)
    analytic = probcore.jacobian(name, xt, **dict(kw), **_extra(name, (), target, seed)).numpy()
    if len(x) > AUTOGRAD_MAX_N:
        return analytic, None
    if MAPPINGS[name].stochastic:  # a batch would draw other noise than the one sample of p
        auto = torch.autograd.functional.jacobian(lambda z: forward(name, z, kw, target, seed), xt)
        return analytic, auto.numpy()
    return analytic, _batched_jacobian(name, xt, kw, target, seed)


def _batched_jacobian(name: str, x: torch.Tensor, kw: Kw, target: int, seed: int) -> np.ndarray:
    """Autograd's J of a deterministic mapping in one backward pass: row i of the batch Z (n copies of
    x) gives p_i, so d(sum_i P[i, i]) / dZ[i, j] = dp_i/dx_j; the same numbers as n backward passes
    (torch.autograd.functional.jacobian; tests/test_compute_jacobians.py) at about half the CPU."""
    n = len(x)
    z = x.detach().expand(n, n).clone().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(forward(name, z, kw, target, seed).diagonal().sum(), z)
    return grad.numpy()


def rank(matrix: np.ndarray) -> int:
    """Numerical rank (SVD, relative tolerance 1e-9); O(n^3), so the page asks for n <= AUTOGRAD_MAX_N."""
    return int(np.linalg.matrix_rank(matrix, tol=1e-9 * max(1.0, float(np.abs(matrix).max()))))


def _without_temperature(kw: Kw) -> Kw:
    return tuple((k, 1.0 if k == "temperature" else v) for k, v in kw)


@memo(128)
def temperature_sweep(name: str, x: tuple, kw: Kw, target: int, seed: int) -> np.ndarray:
    """Rows p = mapping(x / T) (its own temperature set to 1) for T in TEMPERATURES: (len(T), n)."""
    batch = np.asarray(x)[None, :] / TEMPERATURES[:, None]
    with torch.no_grad():
        return forward(name, as_tensor(batch), _without_temperature(kw), target, seed).numpy()


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
        return forward(name, as_tensor(batch), kw, target, seed).numpy()


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


SUPPORT_MARGIN = 1e-9  # (alpha - 1) z - tau within this of 0 counts as off the support


def positive_exactly(name: str, x: tuple, kw: Kw) -> np.ndarray:
    """Where the mapping's p is > 0 in exact arithmetic, from its definition (not from the float
    p): everywhere but at -inf logits for the dense mappings (softmax and its kin, Taylor
    softmax, unbounded-noise perturb-max, alpha-entmax with alpha <= 1); on Omega for top-k /
    top-p softmax; where (alpha - 1) z - tau clearly exceeds 0 for sparsemax and entmax (z = x / T,
    tau from probcore.threshold; within 1e-9 of the threshold counts as off the support); where
    z_i > max z - 1 for perturb-max with uniform noise on [0, 1]. (Hard Gumbel-softmax is one-hot
    by definition: :func:`underflows` leaves it out.)"""
    params = dict(kw)
    x = np.asarray(x, dtype=np.float64)
    live = x > -np.inf
    mapping = MAPPINGS[name]
    if not mapping.is_sparse(**params):
        return live
    beta, temperature = params.get("beta"), params.get("temperature", 1.0)
    z = np.where(live, x * beta if beta is not None else x / temperature, -np.inf)
    if name == "sparse_softmax":
        order = np.argsort(-z, kind="stable")
        k = params.get("k")
        if params.get("top_p") is not None:
            mass = np.cumsum(probcore.reference.softmax(z)[order])
            k = min(int(np.searchsorted(mass, params["top_p"])) + 1, len(z))
        inside = np.zeros(len(z), dtype=bool)
        inside[order[:k]] = True
        return inside & live
    if name == "perturbmax":  # bounded noise U[0, 1]: class i can win only if z_i + 1 > max z
        return live & (z > z.max() - 1)
    scale = {"sparsemax": 1.0, "entmax15": 0.5}.get(name, params.get("alpha", 1.5) - 1)
    shifted = torch.as_tensor(scale * (z - z.max()))[None]
    tau = threshold.entmax_threshold(shifted, 1.0 + scale)
    return (shifted - tau)[0].numpy() > SUPPORT_MARGIN


def underflows(name: str, x: tuple, kw: Kw, p: np.ndarray) -> np.ndarray:
    """Where p is 0 in float64 though the mapping's value is > 0 (:func:`positive_exactly`): an
    underflow (float64 has no number between 0 and 4.9e-324), e.g. softmax at a logit 1000 below
    the largest (e^-1000); the other zeros of p are exact (off a sparse mapping's support)."""
    zero = np.asarray(p) == 0
    if not zero.any() or (name == "gumbel_softmax" and dict(kw).get("hard")) or normal_on_support(name, kw):
        return np.zeros(np.shape(p), dtype=bool)
    inside = positive_exactly(name, x, kw)
    if name == "sparse_softmax":
        inside = _as_kept(inside, x, kw, np.asarray(p))
    return zero & inside


def _as_kept(inside: np.ndarray, x: tuple, kw: Kw, p: np.ndarray) -> np.ndarray:
    """Top-k / top-p's Omega as p kept it: where logits tie at the cut, which of them are in Omega
    is the implementation's choice (torch.topk's order for top-k, torch.sort's for top-p in probcore's p;
    a stable sort for :func:`positive_exactly`); the same number of the tied classes, those with p > 0 first."""
    params = dict(kw)
    beta, temperature = params.get("beta"), params.get("temperature", 1.0)
    z = np.asarray(x, dtype=np.float64) * beta if beta is not None else np.asarray(x, dtype=np.float64) / temperature
    if not inside.any():
        return inside
    tied = z == z[inside].min()
    members = int((inside & tied).sum())
    order = np.flatnonzero(tied)
    order = np.concatenate([order[p[order] > 0], order[p[order] <= 0]])  # (stable within each part)
    kept = inside & ~tied
    kept[order[:members]] = True
    return kept


def normal_on_support(name: str, kw: Kw) -> bool:
    """Whether every p > 0 of a threshold mapping is a normal float64, so that none underflows (no need
    of :func:`positive_exactly`): on the support s = (alpha - 1) z - tau > SUPPORT_MARGIN, so p = s^q with
    q = 1 / (alpha - 1) is at least SUPPORT_MARGIN^q (1e-9 for sparsemax, 1e-18 for 1.5-entmax), a
    normal float64 while q <= 34.18 (alpha >= 1.02926)."""
    scale = {"sparsemax": 1.0, "entmax15": 0.5}.get(name, dict(kw).get("alpha", 1.5) - 1 if name == "entmax" else 0.0)
    return scale > 0 and SUPPORT_MARGIN ** (1 / scale) >= np.finfo(np.float64).tiny


# Example "user implementations" (written from the formulas, independently of probcore), one row at a time.


def given_defaults(name: str) -> dict:
    """The registry defaults of a mapping's given parameters (None = not given is left out)."""
    return {p.name: p.default for p in MAPPINGS[name].params if p.default is not None}
