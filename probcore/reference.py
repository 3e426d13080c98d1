"""One-vector numpy versions of every probcore mapping and loss, written to read like the maths.

The explorer shows these under "how it is computed"; the tests check the torch core against them.
Input: a 1-D array-like of floats, with ``-inf`` allowed (it gets probability 0; a vector that is
all ``-inf`` gives all zeros). Output: float64. Bad parameters raise the same ``ValueError`` as the
torch side (``probcore._validate``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._api import old_positions

from .errors import ProbcoreError
from ._validate import (
    check_alpha,
    check_beta,
    check_k,
    check_noise,
    check_nonnegative,
    check_order,
    check_positive,
    check_positive_int,
    check_positive_temperature,
    check_temperature,
    check_temperature_or_beta,
    check_k_or_top_p,
    check_top_p,
)

# ---------------------------------------------------------------- helpers


def _vector(x: ArrayLike) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ProbcoreError("x_vector", shape=str(x.shape))
    return x


def _scaled(x: ArrayLike, temperature: float = 1.0, beta: float | None = None) -> np.ndarray:
    """z = x / T (or z = beta x); -inf entries stay -inf for any sign of T or beta."""
    x = _vector(x)
    check_temperature_or_beta(temperature, beta)
    masked = np.isneginf(x)
    x = np.where(masked, 0.0, x)
    z = x * check_beta(beta) if beta is not None else x / check_temperature(temperature)
    return np.where(masked, -np.inf, z)


def _shifted(z: np.ndarray) -> np.ndarray:
    """z - max z (shift-invariant maps see max 0); an all -inf vector stays as it is."""
    top = np.max(z, initial=-np.inf)
    return z - top if np.isfinite(top) else z


def _normalize(w: np.ndarray) -> np.ndarray:
    """w / sum w; a zero sum (everything masked) gives zeros, a NaN sum gives NaN."""
    total = w.sum()
    return w / total if total != 0 else w


def _logsumexp(z: np.ndarray) -> float:
    """log sum_i exp(z_i) = max z + log sum_i exp(z_i - max z)."""
    top = np.max(z, initial=-np.inf)
    return top + np.log(np.sum(np.exp(z - top))) if np.isfinite(top) else top


def _target(target: object, n: int) -> int:
    if isinstance(target, bool) or not isinstance(target, numbers.Integral) or not 0 <= int(target) < n:
        raise ProbcoreError("target_index", high=n - 1, value=repr(target))
    return int(target)


def _normal_cdf(e: np.ndarray) -> np.ndarray:
    return (1 + np.vectorize(math.erf, otypes=[float])(e / math.sqrt(2))) / 2


# noise: (pdf, cdf, quadrature interval holding all but ~1e-17 of the mass, sampler); uniform is U[0, 1]
_NOISE = {
    "gumbel": (
        lambda e: np.exp(-e - np.exp(-e)),
        lambda e: np.exp(-np.exp(-e)),
        (-5.0, 40.0),
        lambda rng, size: rng.gumbel(size=size),
    ),
    "normal": (
        lambda e: np.exp(-e * e / 2) / math.sqrt(2 * math.pi),
        _normal_cdf,
        (-10.0, 10.0),
        lambda rng, size: rng.standard_normal(size),
    ),
    "uniform": (
        lambda e: ((0 <= e) & (e <= 1)) * 1.0,
        lambda e: np.clip(e, 0.0, 1.0),
        (0.0, 1.0),
        lambda rng, size: rng.random(size),
    ),
    "logistic": (
        lambda e: np.exp(-np.abs(e)) / (1 + np.exp(-np.abs(e))) ** 2,
        lambda e: 1 / (1 + np.exp(-e)),
        (-40.0, 40.0),
        lambda rng, size: rng.logistic(size=size),
    ),
}


def _quadrature(noise: str, z: np.ndarray, n_points: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Nodes t and weights w for int dt over where max_j (z_j + eps_j) lies. Smooth noises: the
    trapezoid rule on n_points (default 400) nodes over max z + [lo, hi] (the integrand is analytic
    and decays fast: error ~1e-13). Uniform: Gauss-Legendre with n_points (default n // 2 + 1)
    nodes on each piece between the breakpoints z_j, z_j + 1, exact for that piecewise polynomial."""
    n_points = None if n_points is None else check_positive_int("n_points", n_points, low=2)
    top = np.max(z, initial=-np.inf)
    if noise == "uniform":
        cuts = np.unique(np.clip(np.concatenate([z, z + 1]), top, top + 1))[:, None]
        nodes, weights = np.polynomial.legendre.leggauss(n_points or len(z) // 2 + 1)
        width = np.diff(cuts, axis=0)
        return (cuts[:-1] + width * (nodes + 1) / 2).ravel(), (width * weights / 2).ravel()
    lo, hi = _NOISE[noise][2]
    t = top + np.linspace(lo, hi, n_points or 400)
    return t, np.full(len(t), (hi - lo) / (len(t) - 1))  # ends carry ~0 mass: trapezoid = Riemann


# ---------------------------------------------------------------- mappings


@old_positions("temperature", "beta")
def softmax(x: ArrayLike, *, temperature: float = 1.0, beta: float | None = None) -> np.ndarray:
    """p_i = exp(z_i) / sum_j exp(z_j),  z = x / T  (or z = beta x)."""
    z = _scaled(x, temperature, beta)
    return _normalize(np.exp(_shifted(z)))


@old_positions("temperature")
def smooth_max(x: ArrayLike, *, temperature: float = 1.0) -> float:
    """T log sum_i exp(x_i / T)  (-> max x as T -> 0+)."""
    return temperature * _logsumexp(_scaled(x, temperature))


@old_positions("order", "temperature")
def taylor_softmax(x: ArrayLike, *, order: int = 2, temperature: float = 1.0) -> np.ndarray:
    """p_i = f_k(z_i) / sum_j f_k(z_j),  f_k(z) = sum_{m=0..k} z^m / m!  (k even, so f_k > 0), each
    f_k(z_i) divided by c^k, c = max(1, max |z|): terms (z/c)^m exp((m - k) log c - lgamma(m + 1)),
    bounded for any z and k (no factorial as an integer)."""
    k = check_order(order)
    z = _scaled(x, temperature)
    kept = ~np.isneginf(z)
    z = np.where(kept, z, 0.0)
    c = max(1.0, float(np.abs(z).max(initial=0.0)))
    f = sum((z / c) ** m * math.exp((m - k) * math.log(c) - math.lgamma(m + 1)) for m in range(k + 1))
    return _normalize(f * kept)


@old_positions("k", "top_p", "temperature")
def sparse_softmax(
    x: ArrayLike, *, k: int | None = None, top_p: float | None = None, temperature: float = 1.0
) -> np.ndarray:
    """p_i = exp(z_i) / sum_{j in Omega} exp(z_j) on Omega = top-k (or the top-p nucleus) of z, else 0."""
    z = _scaled(x, temperature)
    check_k_or_top_p(k, top_p)
    order = np.argsort(-z, kind="stable")
    if top_p is not None:
        mass = np.cumsum(softmax(z)[order])
        k = min(int(np.searchsorted(mass, check_top_p(top_p))) + 1, len(z))
    omega = order[: check_k(k, len(z))]
    p = np.zeros_like(z)
    p[omega] = softmax(z[omega])
    return p


@old_positions("temperature")
def sparsemax(x: ArrayLike, *, temperature: float = 1.0) -> np.ndarray:
    """p = relu(z - tau),  tau = (sum_{j<=K} z_(j) - 1) / K,  K = #{k : z_(k) > (sum_{j<=k} z_(j) - 1) / k}."""
    z = _shifted(_scaled(x, temperature))
    z_sorted = np.sort(z)[::-1]
    tau = (np.cumsum(z_sorted) - 1) / np.arange(1, len(z) + 1)
    support = np.sum(z_sorted > tau)
    return np.maximum(z - tau[support - 1], 0) if support else np.zeros_like(z)


@old_positions("temperature")
def entmax15(x: ArrayLike, *, temperature: float = 1.0) -> np.ndarray:
    """p = relu(z - tau)^2, z = x/2T, tau = mu_k - sqrt(1/k - sigma_k^2) for the k with z_(k) >= tau_k >= z_(k+1)."""
    z = _shifted(_scaled(x, temperature) / 2)
    z_sorted = np.sort(z[z > -np.inf])[::-1]
    k = np.arange(1, len(z_sorted) + 1)
    mu = np.cumsum(z_sorted) / k  # mean and variance of the k largest z
    sigma2 = np.cumsum(z_sorted**2) / k - mu**2
    tau = mu - np.sqrt(np.maximum(1 / k - sigma2, 0))
    z_next = np.append(z_sorted[1:], -np.inf)
    miss = np.maximum(tau - z_sorted, 0) + np.maximum(z_next - tau, 0)  # 0 inside the bracket; min: rounding
    return np.maximum(z - tau[np.argmin(miss)], 0) ** 2 if len(k) else np.zeros_like(z)


def exp_alpha(u: ArrayLike, alpha: float) -> np.ndarray:
    """exp_alpha(u) = [1 + (alpha-1) u]_+^(1/(alpha-1)) = exp(log1p((alpha-1) u) / (alpha-1)); e^u at alpha = 1."""
    u = np.asarray(u, dtype=np.float64)
    if alpha == 1:
        return np.exp(u)
    w = (alpha - 1) * u
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(w > -1, np.exp(np.log1p(np.maximum(w, -1)) / (alpha - 1)), 0.0)


@old_positions("alpha", "temperature", "n_iter")
def entmax(x: ArrayLike, *, alpha: float = 1.5, temperature: float = 1.0, n_iter: int = 80) -> np.ndarray:
    """p_i = exp_alpha(z_i - lam),  z = x / T,  lam by bisection so that sum p = 1.

    The same as relu((alpha-1) z - tau)^(1/(alpha-1)) with tau = (alpha-1) lam - 1, for any alpha > 0:
    alpha < 1 is dense (1 + (alpha-1) u > 0 for every u <= 0), alpha -> 1 tends to softmax (lam -> logsumexp z)."""
    alpha = check_alpha(alpha)
    if alpha == 1:
        return softmax(x, temperature=temperature)
    if alpha == 2:
        return sparsemax(x, temperature=temperature)
    z = _shifted(_scaled(x, temperature))
    live = np.isfinite(z)
    if not live.any():
        return np.zeros_like(z)
    # max z = 0: mass(0) >= 1 (the max alone), mass(hi) <= 1 (n entries at most exp_alpha(-hi) = 1/n each)
    lo, hi = 0.0, (1 - live.sum() ** (1 - alpha)) / (alpha - 1)
    for _ in range(check_positive_int("n_iter", n_iter)):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.sum(exp_alpha(z[live] - mid, alpha)) >= 1 else (lo, mid)
    return _normalize(np.where(live, exp_alpha(np.where(live, z, 0) - (lo + hi) / 2, alpha), 0.0))  # sum 1 to rounding


@old_positions("noise", "temperature", "n_points")
def perturbmax(
    x: ArrayLike, *, noise: str = "gumbel", temperature: float = 1.0, n_points: int | None = None
) -> np.ndarray:
    """p_i = P[argmax(z + eps) = i] = E_eps[prod_{j != i} Phi(z_i - z_j + eps)]  (gumbel noise: softmax)."""
    z = _scaled(x, temperature)  # below: p_i = int pdf(t - z_i) prod_{j != i} Phi(t - z_j) dt, t = z_i + eps
    pdf, cdf, _, _ = _NOISE[check_noise(noise)]
    live = np.flatnonzero(z > -np.inf)
    t, w = _quadrature(noise, z[live], n_points)
    others = np.where(np.eye(len(live), dtype=bool)[:, :, None], 1.0, cdf(t - z[live, None]))  # [i, j, t]
    p = np.zeros_like(z)
    p[live] = (pdf(t - z[live, None]) * others.prod(axis=1)) @ w
    return p


@old_positions("noise", "n_samples", "temperature", "seed")
def perturbmax_sample(
    x: ArrayLike, *, noise: str = "gumbel", n_samples: int = 1000, temperature: float = 1.0, seed: int = 0
) -> np.ndarray:
    """p_i = #{s : argmax(z + eps_s) = i} / S, eps_s ~ noise: Monte Carlo perturbmax."""
    z = _scaled(x, temperature)
    sample = _NOISE[check_noise(noise)][3]
    eps = sample(np.random.default_rng(seed), (check_positive_int("n_samples", n_samples), len(z)))
    wins = np.bincount(np.argmax(z + eps, axis=1), minlength=len(z))
    return wins / n_samples * (z > -np.inf)


@old_positions("temperature", "hard", "seed")
def gumbel_softmax(x: ArrayLike, *, temperature: float = 1.0, hard: bool = False, seed: int = 0) -> np.ndarray:
    """y = softmax((x + g) / T), g_i ~ Gumbel(0, 1); hard: onehot(argmax y) (straight-through)."""
    x, temperature = _vector(x), check_positive_temperature(temperature)
    if not isinstance(hard, bool):
        raise ProbcoreError("bool", name="hard", value=repr(hard))
    y = softmax(x + np.random.default_rng(seed).gumbel(size=x.shape), temperature=temperature)
    return np.eye(len(y))[np.argmax(y)] if hard and y.any() else y


@old_positions("target", "margin", "scale", "temperature", kept=1)
def am_softmax(
    x: ArrayLike, target: int, *, margin: float = 0.35, scale: float = 30.0, temperature: float = 1.0
) -> np.ndarray:
    """p = softmax(s (x - m e_t) / T): the target cosine x_t gives up a margin m before scaling by s."""
    x = _vector(x)
    onehot = np.eye(len(x))[_target(target, len(x))]
    z = check_positive("scale", scale) * (x - check_nonnegative("margin", margin) * onehot)
    return softmax(z, temperature=temperature)


# ---------------------------------------------------------------- losses (one vector, target t)


@old_positions("target", "temperature", "beta", kept=1)
def cross_entropy(x: ArrayLike, target: int, *, temperature: float = 1.0, beta: float | None = None) -> float:
    """L = -log softmax(z)_t = logsumexp(z) - z_t,  z = x / T  (or z = beta x)."""
    z = _shifted(_scaled(x, temperature, beta))  # L is shift invariant
    return _logsumexp(z) - z[_target(target, len(z))]


@old_positions("target", "k", "temperature", kept=1)
def sparse_softmax_loss(x: ArrayLike, target: int, *, k: int, temperature: float = 1.0) -> float:
    """L = log sum_{i in top-k} exp(z_i) - z_t,  z = x / T."""
    z = _shifted(_scaled(x, temperature))
    top_k = np.sort(z)[::-1][: check_k(k, len(z))]
    return _logsumexp(top_k) - z[_target(target, len(z))]


@old_positions("target", "temperature", kept=1)
def sparsemax_loss(x: ArrayLike, target: int, *, temperature: float = 1.0) -> float:
    """L = 1/2 - z_t + sum_{i in S} (z_i^2 - tau^2) / 2,  z = x / T,  S = support of sparsemax(z), tau its threshold."""
    z = _shifted(_scaled(x, temperature))  # L is shift invariant
    t = _target(target, len(z))
    s = z[sparsemax(z) > 0]
    tau = (s.sum() - 1) / len(s)
    return 0.5 - z[t] + np.sum(s**2 - tau**2) / 2


@old_positions("target", "alpha", "temperature", kept=1)
def entmax_loss(x: ArrayLike, target: int, *, alpha: float = 1.5, temperature: float = 1.0) -> float:
    """L = <p - e_t, z> + H_alpha(p), z = x / T, p = entmax_alpha(z), H_alpha(p) = (1 - sum p^alpha) / (alpha (alpha - 1))."""
    z = _shifted(_scaled(x, temperature))
    t = _target(target, len(z))
    p = entmax(z, alpha=alpha)
    p, zs = p[p > 0], z[p > 0]
    shannon = alpha == 1  # the Tsallis entropy's limit at alpha = 1
    entropy = -np.sum(p * np.log(p)) if shannon else (1 - np.sum(p**alpha)) / (alpha * (alpha - 1))
    return np.sum(p * zs) - z[t] + entropy


@old_positions("target", "order", "temperature", kept=1)
def taylor_cross_entropy(x: ArrayLike, target: int, *, order: int = 2, temperature: float = 1.0) -> float:
    """L = -log taylor_softmax(x, order, T)_t."""
    p = taylor_softmax(x, order=order, temperature=temperature)
    return -np.log(p[_target(target, len(p))])


@old_positions("target", "margin", "scale", "temperature", kept=1)
def am_softmax_loss(
    cosines: ArrayLike, target: int, *, margin: float = 0.35, scale: float = 30.0, temperature: float = 1.0
) -> float:
    """L = -log am_softmax(c, t)_t = -log e^{s(c_t - m)/T} / (e^{s(c_t - m)/T} + sum_{j != t} e^{s c_j/T})."""
    c = _vector(cosines)
    z = check_positive("scale", scale) * (
        c - check_nonnegative("margin", margin) * np.eye(len(c))[_target(target, len(c))]
    )
    return cross_entropy(z, target, temperature=temperature)


@old_positions("target", "temperature", "beta", kept=1)
def neg_prob_loss(x: ArrayLike, target: int, *, temperature: float = 1.0, beta: float | None = None) -> float:
    """L = -softmax(z)_t,  z = x / T (or beta x)  (minus a smooth accuracy)."""
    p = softmax(x, temperature=temperature, beta=beta)
    return -p[_target(target, len(p))]


@old_positions("target", "eps", kept=1)
def smoothed_cross_entropy(p: ArrayLike, target: int, *, eps: float = 1e-3) -> float:
    """L = -log((p_t + eps) / (1 + n eps)) for probabilities p that may hold exact zeros."""
    p = _vector(p)
    eps = check_positive("eps", eps)
    return -np.log((p[_target(target, len(p))] + eps) / (1 + len(p) * eps))


@old_positions("target", "mapping", kept=1)
def surrogate_loss(x: ArrayLike, target: int, *, mapping: str = "softmax", **params: Any) -> float:
    """L = stop_grad(p - e_t) . z, p = mapping(x), z = x / T (or beta x): gradient exactly (p - e_t) / T; the value means nothing."""
    from .registry import get_mapping  # the registry imports this module

    x = _vector(x)
    t = _target(target, len(x))
    spec = get_mapping(mapping)
    d = spec.reference(x, **params, **({"target": t} if spec.needs_target else {})) - np.eye(len(x))[t]
    z = _scaled(x, params.get("temperature", 1.0), params.get("beta"))
    return np.sum(d[d != 0] * z[d != 0])  # masked (-inf) classes have d = 0
