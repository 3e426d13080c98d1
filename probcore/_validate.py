"""Parameter checks shared by the torch core and the numpy reference.

Every check raises :class:`probcore.errors.ProbcoreError` (a ``ValueError``) naming the parameter and its valid range, so callers
(training code, the explorer) can show the message as it is.
"""

from __future__ import annotations

import math
import numbers

from probcore.errors import ProbcoreError

NOISES = ("gumbel", "normal", "uniform", "logistic")
# Taylor softmax's largest order: the largest even k whose 1 / k! is a normal float64 (1/170! ~ 1.4e-307,
# 171! overflows). Every run of an order up to it costs k Horner steps, never a huge integer.
MAX_ORDER = 170


def _real(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ProbcoreError("real", name=name, value=repr(value))
    value = float(value)
    if math.isnan(value):
        raise ProbcoreError("real", name=name, value="nan")
    return value


def check_temperature(temperature: object) -> float:
    """temperature: any finite non-zero real (negative = softmin)."""
    t = _real("temperature", temperature)
    if t == 0 or math.isinf(t):
        raise ProbcoreError("temperature", value=repr(temperature))
    return t


def check_positive_temperature(temperature: object) -> float:
    """temperature for Gumbel-softmax: a finite real > 0."""
    t = _real("temperature", temperature)
    if not (0 < t < math.inf):
        raise ProbcoreError("open_positive", name="temperature", value=repr(temperature))
    return t


def check_beta(beta: object) -> float:
    """beta (inverse temperature): any finite real; 0 gives uniform, negative gives softmin."""
    b = _real("beta", beta)
    if math.isinf(b):
        raise ProbcoreError("beta", value=repr(beta))
    return b


def check_order(order: object) -> int:
    """Taylor order: an even integer in [2, MAX_ORDER]."""
    if (
        isinstance(order, bool)
        or not isinstance(order, numbers.Integral)
        or not 2 <= int(order) <= MAX_ORDER
        or order % 2
    ):
        raise ProbcoreError("order", value=repr(order), high=MAX_ORDER)
    return int(order)


def check_k(k: object, n: int) -> int:
    """k for top-k: an integer in [1, n]."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not (1 <= int(k) <= n):
        raise ProbcoreError("k", n=n, value=repr(k))
    return int(k)


def check_top_p(top_p: object) -> float:
    """top_p: a real in (0, 1]."""
    p = _real("top_p", top_p)
    if not (0 < p <= 1):
        raise ProbcoreError("top_p", value=repr(top_p))
    return p


def check_alpha(alpha: object) -> float:
    """entmax alpha: a finite real > 0 (alpha < 1: dense, 1: softmax, 2: sparsemax)."""
    a = _real("alpha", alpha)
    if not (a > 0) or math.isinf(a):
        raise ProbcoreError("alpha", value=repr(alpha))
    return a


def check_noise(noise: object) -> str:
    if noise not in NOISES:
        raise ProbcoreError("one_of", name="noise", choices=", ".join(NOISES), value=repr(noise))
    return noise


def check_nonnegative(name: str, value: object) -> float:
    v = _real(name, value)
    if not (0 <= v < math.inf):
        raise ProbcoreError("nonnegative", name=name, value=repr(value))
    return v


def check_positive(name: str, value: object) -> float:
    v = _real(name, value)
    if not (0 < v < math.inf):
        raise ProbcoreError("open_positive", name=name, value=repr(value))
    return v


def check_positive_int(name: str, value: object, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ProbcoreError("integer_at_least", name=name, low=low, value=repr(value))
    return int(value)


def check_reduction(reduction: object) -> str:
    if reduction not in ("none", "mean", "sum"):
        raise ProbcoreError("one_of", name="reduction", choices="none, mean, sum", value=repr(reduction))
    return reduction


def check_temperature_or_beta(temperature: object, beta: object) -> None:
    """Softmax takes a temperature or an inverse temperature beta, not both."""
    if beta is not None and temperature != 1:
        raise ProbcoreError("temperature_or_beta")


def check_k_or_top_p(k: object, top_p: object) -> None:
    """Top-k truncation takes exactly one of k or top_p."""
    if (k is None) == (top_p is None):
        raise ProbcoreError("k_or_top_p")
