"""Parameter checks shared by the torch core and the numpy reference.

Every check raises ``ValueError`` naming the parameter and its valid range, so callers
(training code, the explorer) can show the message as it is.
"""
from __future__ import annotations

import math
import numbers

NOISES = ("gumbel", "normal", "uniform", "logistic")
# Taylor softmax's largest order: the largest even k whose 1 / k! is a normal float64 (1/170! ~ 1.4e-307,
# 171! overflows). Every run of an order up to it costs k Horner steps, never a huge integer.
MAX_ORDER = 170


def _real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a real number, got nan")
    return value


def check_temperature(temperature) -> float:
    """temperature: any finite non-zero real (negative = softmin)."""
    t = _real("temperature", temperature)
    if t == 0 or math.isinf(t):
        raise ValueError(f"temperature must be finite and non-zero (negative gives softmin), got {temperature!r}")
    return t


def check_positive_temperature(temperature) -> float:
    """temperature for Gumbel-softmax: a finite real > 0."""
    t = _real("temperature", temperature)
    if not (0 < t < math.inf):
        raise ValueError(f"temperature must be in (0, inf), got {temperature!r}")
    return t


def check_beta(beta) -> float:
    """beta (inverse temperature): any finite real; 0 gives uniform, negative gives softmin."""
    b = _real("beta", beta)
    if math.isinf(b):
        raise ValueError(f"beta must be finite, got {beta!r}")
    return b


def check_order(order) -> int:
    """Taylor order: an even integer in [2, MAX_ORDER]."""
    if (isinstance(order, bool) or not isinstance(order, numbers.Integral) or not 2 <= order <= MAX_ORDER
            or order % 2):
        raise ValueError(f"order must be an even integer >= 2 and <= {MAX_ORDER}, got {order!r}")
    return int(order)


def check_k(k, n: int) -> int:
    """k for top-k: an integer in [1, n]."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not (1 <= k <= n):
        raise ValueError(f"k must be an integer in [1, {n}] (n = {n}), got {k!r}")
    return int(k)


def check_top_p(top_p) -> float:
    """top_p: a real in (0, 1]."""
    p = _real("top_p", top_p)
    if not (0 < p <= 1):
        raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")
    return p


def check_alpha(alpha) -> float:
    """entmax alpha: a finite real > 0 (alpha < 1: dense, 1: softmax, 2: sparsemax)."""
    a = _real("alpha", alpha)
    if not (a > 0) or math.isinf(a):
        raise ValueError(f"alpha must be a finite real > 0, got {alpha!r}")
    return a


def check_noise(noise) -> str:
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {', '.join(NOISES)}; got {noise!r}")
    return noise


def check_nonnegative(name: str, value) -> float:
    v = _real(name, value)
    if not (0 <= v < math.inf):
        raise ValueError(f"{name} must be in [0, inf), got {value!r}")
    return v


def check_positive(name: str, value) -> float:
    v = _real(name, value)
    if not (0 < v < math.inf):
        raise ValueError(f"{name} must be in (0, inf), got {value!r}")
    return v


def check_positive_int(name: str, value, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_reduction(reduction) -> str:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"reduction must be one of none, mean, sum; got {reduction!r}")
    return reduction


def check_temperature_or_beta(temperature, beta) -> None:
    """Softmax takes a temperature or an inverse temperature beta, not both."""
    if beta is not None and temperature != 1:
        raise ValueError("give either temperature or beta (beta = 1 / temperature), not both")


def check_k_or_top_p(k, top_p) -> None:
    """Top-k truncation takes exactly one of k or top_p."""
    if (k is None) == (top_p is None):
        raise ValueError("give exactly one of k (an integer in [1, n]) or top_p (a real in (0, 1])")
