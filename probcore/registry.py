"""The single description of every mapping: parameters (valid and slider ranges), formula,
torch and numpy implementations, matching loss and properties. The explorer, the losses and
the tests read it; nothing else lists the mappings."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

from probcore import functional as F
from probcore import reference as R
from probcore._validate import (
    check_k_or_top_p,
    check_temperature_or_beta,
    NOISES,
    check_alpha,
    check_beta,
    check_k,
    check_noise,
    check_nonnegative,
    MAX_ORDER,
    check_order,
    check_positive,
    check_positive_int,
    check_positive_temperature,
    check_temperature,
    check_top_p,
)
from probcore.errors import ProbcoreError


@dataclass(frozen=True)
class Param:
    name: str  # keyword of the torch/numpy function
    label: str  # UI label, e.g. "temperature T"
    kind: str  # "float" | "int" | "choice" | "bool"
    default: object
    low: float | None = None  # valid range (None = unbounded)
    high: float | None = None
    low_open: bool = False  # open ends, e.g. top_p in (0, 1]
    high_open: bool = False
    ui_low: float | None = None  # slider range
    ui_high: float | None = None
    step: float | None = None
    choices: tuple = ()
    help: str = ""


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ProbcoreError("bool", name=name, value=repr(value))
    return value


# How each parameter is checked (the same functions the torch and numpy code call). k's upper
# bound is n, known only with x: validate(n=...) checks it, otherwise k >= 1 only.
_CHECKS: dict[str, Callable[[Any], Any]] = {
    "temperature": check_temperature,
    "beta": check_beta,
    "order": check_order,
    "top_p": check_top_p,
    "alpha": check_alpha,
    "noise": check_noise,
    "margin": partial(check_nonnegative, "margin"),
    "scale": partial(check_positive, "scale"),
    "hard": partial(_check_bool, "hard"),
}
_POSITIVE_TEMPERATURE = {"gumbel_softmax"}  # T > 0 there (the noise does not flip)
# Noises of bounded support: a logit more than the noise's width below the largest never wins, so
# perturb-max gives it exactly 0 (unbounded noises give every class some chance).
BOUNDED_NOISES = ("uniform",)
_MAY_BE_NONE = {"k", "top_p", "beta"}  # None = not given: k / top_p are alternatives, beta replaces T


@dataclass(frozen=True)
class Mapping:
    name: str
    label: str
    latex: str  # display formula for st.latex
    params: tuple[Param, ...]
    forward: Callable  # torch: forward(x, dim=-1, **params)
    reference: Callable  # numpy: reference(x_1d, **params) -> 1-D np.ndarray
    analytic_jacobian: bool
    loss: str | None  # name of the matching function in probcore.losses
    sparse: bool  # gives exact zeros, for some parameters at least (is_sparse says for which)
    shift_invariant: bool
    stochastic: bool
    needs_target: bool
    sparse_when: Callable[[dict], bool] | None = None  # the parameters that give exact zeros (None: sparse)

    def is_sparse(self, **params: Any) -> bool:
        """Whether this mapping with these parameters (the defaults for the others) gives exact zeros."""
        if self.sparse_when is None:
            return self.sparse
        return self.sparse_when({**{p.name: p.default for p in self.params}, **params})

    def validate(self, n: int | None = None, **params: Any) -> dict[str, Any]:
        """The given parameters checked and converted (int, float, str, bool; None kept where
        None is allowed). ValueError names the bad parameter and its valid range; ``n`` (the
        length of the mapped dimension) bounds k."""
        known = {p.name: p for p in self.params}
        out: dict[str, Any] = {}
        for name, value in params.items():
            if name not in known:
                raise ProbcoreError(
                    "unknown_param", name=repr(name), mapping=self.name, valid=", ".join(known) or "none"
                )
            if value is None and name in _MAY_BE_NONE:
                out[name] = None
            elif name == "k":
                out[name] = check_positive_int("k", value) if n is None else check_k(value, n)
            elif name == "temperature" and self.name in _POSITIVE_TEMPERATURE:
                out[name] = check_positive_temperature(value)
            else:
                out[name] = _CHECKS[name](value)
        if self.name == "sparse_softmax":
            check_k_or_top_p(out.get("k"), out.get("top_p"))
        check_temperature_or_beta(out.get("temperature", 1), out.get("beta"))
        return out


_T = Param(
    "temperature",
    "temperature T",
    "float",
    1.0,
    ui_low=0.05,
    ui_high=5.0,
    step=0.05,
    help="p = f(x / T); any finite T ≠ 0 (T < 0 reverses the order). Small T → the one-hot argmax for "
    "the mappings that keep the order of the logits; Taylor softmax does not: it tends to pᵢ ∝ xᵢᵏ.",
)
_T_POSITIVE = Param(
    "temperature",
    "temperature T",
    "float",
    1.0,
    low=0.0,
    low_open=True,
    ui_low=0.05,
    ui_high=5.0,
    step=0.05,
    help="softmax((x + g) / T), T > 0. Small T → one-hot samples.",
)

MAPPINGS: dict[str, Mapping] = {
    m.name: m
    for m in (
        Mapping(
            "softmax",
            "Softmax",
            r"p_i = \frac{e^{x_i/T}}{\sum_{j=1}^n e^{x_j/T}}",
            (
                _T,
                Param(
                    "beta",
                    "inverse temperature β",
                    "float",
                    None,
                    ui_low=-5.0,
                    ui_high=5.0,
                    step=0.05,
                    help="p = softmax(βx), base e^β; β < 0 gives softmin. Give T or β, not both.",
                ),
            ),
            F.softmax,
            R.softmax,
            True,
            "cross_entropy",
            sparse=False,
            shift_invariant=True,
            stochastic=False,
            needs_target=False,
        ),
        Mapping(
            "taylor_softmax",
            "Taylor softmax",
            r"p_i = \frac{f_k(x_i/T)}{\sum_j f_k(x_j/T)},\quad f_k(x) = \sum_{m=0}^{k} \frac{x^m}{m!}",
            (
                Param(
                    "order",
                    "order k",
                    "int",
                    2,
                    low=2,
                    high=MAX_ORDER,
                    ui_low=2,
                    ui_high=8,
                    step=2,
                    help="An even integer ≥ 2: the even Taylor polynomials of e^x are positive.",
                ),
                _T,
            ),
            F.taylor_softmax,
            R.taylor_softmax,
            True,
            "taylor_cross_entropy",
            sparse=False,
            shift_invariant=False,
            stochastic=False,
            needs_target=False,
        ),
        Mapping(
            "sparse_softmax",
            "Sparse softmax (top-k / top-p)",
            r"p_i = \begin{cases} \frac{e^{x_i/T}}{\sum_{j\in\Omega} e^{x_j/T}} & i \in \Omega \\ 0 & i \notin \Omega"
            r"\end{cases},\quad \Omega = \text{top-}k \text{ or the top-}p \text{ nucleus}",
            (
                Param(
                    "k",
                    "top k",
                    "int",
                    3,
                    low=1,
                    ui_low=1,
                    step=1,
                    help="Keep the k largest logits; an integer in [1, n]. Give k or top-p, not both.",
                ),
                Param(
                    "top_p",
                    "top p",
                    "float",
                    None,
                    low=0.0,
                    high=1.0,
                    low_open=True,
                    ui_low=0.05,
                    ui_high=1.0,
                    step=0.05,
                    help="Keep the smallest set of largest entries whose softmax mass is ≥ p.",
                ),
                _T,
            ),
            F.sparse_softmax,
            R.sparse_softmax,
            True,
            "sparse_softmax_loss",
            sparse=True,
            shift_invariant=True,
            stochastic=False,
            needs_target=False,
        ),
        Mapping(
            "sparsemax",
            "Sparsemax",
            r"p = \operatorname{relu}(x/T - \lambda(x)),\quad \textstyle\sum_i p_i = 1",
            (_T,),
            F.sparsemax,
            R.sparsemax,
            True,
            "sparsemax_loss",
            sparse=True,
            shift_invariant=True,
            stochastic=False,
            needs_target=False,
        ),
        Mapping(
            "entmax15",
            "1.5-entmax",
            r"p = \operatorname{relu}\!\left(\tfrac{x}{2T} - \lambda(x)\right)^{2},\quad \textstyle\sum_i p_i = 1",
            (_T,),
            F.entmax15,
            R.entmax15,
            True,
            "entmax_loss",
            sparse=True,
            shift_invariant=True,
            stochastic=False,
            needs_target=False,
        ),
        Mapping(
            "entmax",
            "α-entmax",
            r"p = \operatorname{relu}\!\left(\tfrac{(\alpha-1)\,x}{T} - \lambda(x)\right)^{1/(\alpha-1)},"
            r"\quad \textstyle\sum_i p_i = 1",
            (
                Param(
                    "alpha",
                    "α",
                    "float",
                    1.5,
                    low=0.0,
                    low_open=True,
                    ui_low=0.1,
                    ui_high=4.0,
                    step=0.05,
                    help="α > 0. α < 1: dense (every p > 0), α = 1: softmax, α = 2: sparsemax; larger α is sparser.",
                ),
                _T,
            ),
            F.entmax,
            R.entmax,
            True,
            "entmax_loss",
            sparse=True,
            shift_invariant=True,
            stochastic=False,
            needs_target=False,
            sparse_when=lambda params: params["alpha"] > 1,
        ),
        Mapping(
            "perturbmax",
            "Perturb-max",
            r"p_i = P\big[\arg\max_j (x_j/T + \varepsilon_j) = i\big]"
            r" = \mathbb{E}_{\varepsilon}\Big[\prod_{j\neq i} \Phi\big(\tfrac{x_i - x_j}{T} + \varepsilon\big)\Big]",
            (
                Param(
                    "noise",
                    "noise",
                    "choice",
                    "gumbel",
                    choices=NOISES,
                    help="Distribution of ε; Gumbel noise gives exactly softmax; uniform noise (bounded) gives exact zeros.",
                ),
                _T,
            ),
            F.perturbmax,
            R.perturbmax,
            False,
            None,
            sparse=True,
            shift_invariant=True,
            stochastic=False,
            needs_target=False,
            sparse_when=lambda params: params["noise"] in BOUNDED_NOISES,
        ),
        Mapping(
            "gumbel_softmax",
            "Gumbel-softmax",
            r"p = \operatorname{softmax}\big((x + g)/T\big),\quad g_i \sim \mathrm{Gumbel}(0, 1)",
            (
                _T_POSITIVE,
                Param(
                    "hard",
                    "hard (straight-through)",
                    "bool",
                    False,
                    help="One-hot forward value, gradient of the soft sample.",
                ),
            ),
            F.gumbel_softmax,
            R.gumbel_softmax,
            True,
            None,
            sparse=False,
            shift_invariant=True,
            stochastic=True,
            needs_target=False,
        ),
        Mapping(
            "am_softmax",
            "AM-softmax",
            r"p_i = \frac{e^{s\,(x_i - m\,[i = t])}}{\sum_j e^{s\,(x_j - m\,[j = t])}}",
            (
                Param(
                    "margin",
                    "margin m",
                    "float",
                    0.35,
                    low=0.0,
                    ui_low=0.0,
                    ui_high=1.0,
                    step=0.01,
                    help="Subtracted from the target's cosine before scaling.",
                ),
                Param(
                    "scale",
                    "scale s",
                    "float",
                    30.0,
                    low=0.0,
                    low_open=True,
                    ui_low=1.0,
                    ui_high=64.0,
                    step=1.0,
                    help="Multiplies the cosines (an inverse temperature).",
                ),
            ),
            F.am_softmax,
            R.am_softmax,
            True,
            "am_softmax_loss",
            sparse=False,
            shift_invariant=True,
            stochastic=False,
            needs_target=True,
        ),
    )
}


def get_mapping(name: str) -> Mapping:
    """The registry entry; ValueError listing the valid names for an unknown one."""
    try:
        return MAPPINGS[name]
    except (KeyError, TypeError):
        raise ProbcoreError("one_of", name="mapping", choices=", ".join(MAPPINGS), value=repr(name)) from None
