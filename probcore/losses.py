"""Classification losses on class-index targets, laid out like ``torch.nn.functional.cross_entropy``.

Every loss is ``loss(x, target, ..., reduction="mean", ignore_index=-100)``:

- ``x`` is ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``; the class dimension is 0 for 1-D input and 1
  otherwise. ``target`` holds class indices (any integer dtype) and has x's shape without the class
  dimension; each entry lies in ``[0, C)`` or equals ``ignore_index`` (else ``ValueError``).
- ``reduction="none"`` gives one loss per target entry (0 where ignored), ``"sum"`` their sum,
  ``"mean"`` the sum over the number of non-ignored entries -- ``nan`` when there is none (empty
  batch or everything ignored), as ``torch.nn.functional.cross_entropy`` does.
- float16/bfloat16 input is computed in float32 and the result is returned in the input dtype.
- ``-inf`` logits (masked classes) are fine for every loss on logits as long as the target class
  itself is not masked.
- Every loss on logits takes its mapping's ``temperature`` (cross_entropy and neg_prob_loss also
  ``beta``, softmin for beta < 0): L(x) = L_1(x / T), so the gradient has the chain rule's 1 / T
  (Fenchel-Young losses: (p - onehot) / T with p the mapping's own p at that temperature).
- Logits are shifted by their row max before any log-sum-exp (the losses are shift invariant),
  so float32 keeps the digits of value and gradient for logits in the tens of thousands.

Parameter errors raise ``ValueError`` naming the parameter and its valid range (``check_params``,
also used by :mod:`probcore.nn` when a loss module is built).
"""

from __future__ import annotations

import math
import numbers
from functools import partial
from typing import Any, Callable

import torch
from torch import Tensor
from torch.autograd.function import once_differentiable

from probcore._validate import (
    check_alpha,
    check_beta,
    check_k,
    check_nonnegative,
    check_order,
    check_positive,
    check_positive_int,
    check_reduction,
    check_temperature,
    check_temperature_or_beta,
)
from probcore import functional as F
from probcore._api import old_positions
from probcore._trace import traced
from probcore.errors import ProbcoreError
from probcore.functional import entmax, taylor_softmax
from probcore.registry import get_mapping
from probcore.threshold import sparsemax_threshold

__all__ = [
    "check_params",
    "cross_entropy",
    "sparse_softmax_loss",
    "sparsemax_loss",
    "entmax_loss",
    "taylor_cross_entropy",
    "am_softmax_loss",
    "neg_prob_loss",
    "surrogate_loss",
    "smoothed_cross_entropy",
]


def _check_ignore_index(ignore_index: object) -> int:
    """An integer, or a 0-d integer tensor (as ``y[0]``, which torch's cross_entropy accepts)."""
    if (
        torch.is_tensor(ignore_index)
        and ignore_index.dim() == 0
        and not (ignore_index.is_floating_point() or ignore_index.is_complex() or ignore_index.dtype == torch.bool)
    ):
        return int(ignore_index.item())
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral):
        raise ProbcoreError("ignore_index", value=repr(ignore_index))
    return int(ignore_index)


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "reduction": check_reduction,
    "ignore_index": _check_ignore_index,
    "temperature": check_temperature,
    "beta": lambda beta: None if beta is None else check_beta(beta),
    "k": partial(check_positive_int, "k"),  # k <= C once x is known
    "alpha": check_alpha,
    "order": check_order,
    "margin": partial(check_nonnegative, "margin"),
    "scale": partial(check_positive, "scale"),
    "eps": partial(check_positive, "eps"),
}
_COMMON = ("reduction", "ignore_index")


def check_params(mapping: str | None = None, **params: Any) -> dict[str, Any]:
    """Checks loss keywords by name and returns them normalised.

    Raises ``ValueError`` naming the keyword and its valid range. With ``mapping``
    (``surrogate_loss``) the keywords other than reduction / ignore_index are that mapping's
    parameters and are checked by its registry entry. ``k <= C`` is checked once x arrives."""
    if mapping is None:
        checked = {name: _CHECKS[name](value) for name, value in params.items()}
        check_temperature_or_beta(checked.get("temperature", 1), checked.get("beta"))
        return checked
    common = {name: _CHECKS[name](params.pop(name)) for name in _COMMON if name in params}
    return {**common, "mapping": mapping, **get_mapping(mapping).validate(**params)}


def _classify(
    row_loss: Callable[..., Tensor],
    x: Tensor,
    target: Tensor,
    reduction: str,
    ignore_index: int | Tensor,
    x_name: str = "x",
    **params: Any,
) -> Tensor:
    """Checks everything, moves the class dimension last and applies
    ``row_loss(z, t, **params)`` (z: (..., C) float32/64, t: (...) long -> (...)) on it;
    ignored entries get loss 0 and no gradient, then the reduction."""
    params = check_params(reduction=reduction, ignore_index=ignore_index, **params)
    reduction, ignore_index = params.pop("reduction"), params.pop("ignore_index")
    if not (torch.is_tensor(x) and x.is_floating_point() and x.dim() >= 1):
        got = f"{x.dtype}{tuple(x.shape)}" if torch.is_tensor(x) else type(x).__name__
        raise ProbcoreError("loss_input", name=x_name, got=got)
    class_dim = 0 if x.dim() == 1 else 1
    z = x.movedim(class_dim, -1)
    n = z.shape[-1]
    if not torch.is_tensor(target) or target.is_floating_point() or target.is_complex() or target.dtype == torch.bool:
        got = str(target.dtype) if torch.is_tensor(target) else type(target).__name__
        raise ProbcoreError("loss_target_dtype", n=n, got=got)
    if target.shape != z.shape[:-1]:
        raise ProbcoreError(
            "loss_target_shape",
            shape=str(tuple(z.shape[:-1])),
            name=x_name,
            class_dim=class_dim,
            got=str(tuple(target.shape)),
        )
    target = target.long()
    ignored = target == ignore_index
    bad = ~ignored & ((target < 0) | (target >= n))
    tracing = traced()  # torch.func / torch.compile: no host syncs (target values unchecked)
    if not tracing and bad.any():
        raise ProbcoreError("loss_target_range", n=n, ignore_index=ignore_index, value=str(target[bad][0].item()))
    if tracing or ignored.any():  # keep whatever sits in ignored rows (e.g. a fully masked row) out of the maths
        target = target.masked_fill(ignored, 0)
        z = z.masked_fill(ignored.unsqueeze(-1), 0)
    if z.dtype in (torch.float16, torch.bfloat16):
        z = z.float()
    loss = row_loss(z, target, **params).masked_fill(ignored, 0)
    if reduction == "sum":
        loss = loss.sum()
    elif reduction == "mean":
        loss = loss.sum() / (~ignored).sum()
    return loss.to(x.dtype)


def _pick(z: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """z[..., t]"""
    return z.gather(-1, t.unsqueeze(-1)).squeeze(-1)


def _minus_onehot(p: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """p - onehot(t)"""
    return p.scatter_add(-1, t.unsqueeze(-1), torch.full_like(p[..., :1], -1))


LossValue = Callable[[Tensor, Tensor], tuple[Tensor, Tensor]]  # (z, t) -> (loss per row, p)


class _FenchelYoung(torch.autograd.Function):
    """A Fenchel-Young loss L = <p - e_t, z> + H(p) from ``value(z, t) -> (L, p)``, with the
    exact gradient dL/dz = p - onehot(t) (no differentiation through the mapping: p - onehot is
    a constant of the backward, so no double backward). vmap batches it (value runs the traced
    paths there)."""

    generate_vmap_rule = True

    @staticmethod
    def forward(z: Tensor, t: Tensor, value: LossValue) -> tuple[Tensor, Tensor]:
        zmax = z.amax(-1, keepdim=True)  # L is shift invariant: evaluate it on z - max z
        loss, p = value(z - zmax.masked_fill(torch.isneginf(zmax), 0), t)
        return loss, _minus_onehot(p, t)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Tensor, Tensor, LossValue], output: tuple[Tensor, Tensor]) -> None:
        _, p_minus_onehot = output
        ctx.mark_non_differentiable(p_minus_onehot)
        ctx.save_for_backward(p_minus_onehot)
        ctx.save_for_forward(p_minus_onehot)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: Tensor, _: Tensor) -> tuple[Tensor | None, None, None]:
        (p_minus_onehot,) = ctx.saved_tensors
        return grad.unsqueeze(-1) * p_minus_onehot, None, None


class _FenchelYoungJvp(_FenchelYoung):
    """_FenchelYoung with forward-mode AD (torch.func.jvp / jacfwd); torch.compile takes
    _FenchelYoung, as dynamo does not trace Functions that define jvp."""

    @staticmethod
    def jvp(ctx: Any, z_t: Tensor, _t: Tensor, _value: LossValue) -> tuple[Tensor, None]:
        (p_minus_onehot,) = ctx.saved_tensors
        return (p_minus_onehot * z_t).sum(-1), None


def _fenchel_young(z: Tensor, t: Tensor, value: LossValue) -> Tensor:
    """The loss per row by _FenchelYoung (_FenchelYoungJvp under torch.func transforms)."""
    function = _FenchelYoungJvp if traced() and not torch.compiler.is_compiling() else _FenchelYoung
    return function.apply(z, t, value)[0]


def _shifted(z: Tensor, temperature: float = 1.0, beta: float | None = None) -> Tensor:
    """z / T (or beta z) minus its row max, the shift taken on z before the scaling and as a
    constant (the losses using it are shift invariant, so its gradient is 0): logsumexp(y) - y_t
    then subtracts small numbers, not two large ones. Masked (-inf) classes stay masked."""
    y = F._shifted_scaled(z, temperature, beta)
    ymax = y.detach().amax(-1, keepdim=True)  # 0 already unless T = 1
    return y - ymax.masked_fill(~torch.isfinite(ymax), 0)


def _ce_rows(z: Tensor, t: Tensor, temperature: float = 1.0, beta: float | None = None) -> Tensor:
    y = _shifted(z, temperature, beta)
    return torch.logsumexp(y, dim=-1) - _pick(y, t)


@old_positions("target", "temperature", "reduction", "ignore_index", "beta", kept=1)
def cross_entropy(
    x: Tensor,
    target: Tensor,
    *,
    temperature: float = 1.0,
    reduction: str = "mean",
    ignore_index: int | Tensor = -100,
    beta: float | None = None,
) -> Tensor:
    """Cross-entropy -log softmax(z)_t = logsumexp(z) - z_t, z = x/T (or beta x); gradient
    (p - onehot)/T (or beta (p - onehot)).

    temperature: finite, non-zero (negative = softmin; -inf logits stay masked); beta: finite
    (beta < 0 = softmin, 0 = uniform), given instead of temperature. Equals
    ``torch.nn.functional.cross_entropy(x / T, target)`` with the same reduction / ignore_index."""
    return _classify(_ce_rows, x, target, reduction, ignore_index, temperature=temperature, beta=beta)


def _sparse_softmax_rows(z: Tensor, t: Tensor, k: int, temperature: float = 1.0) -> Tensor:
    y = _shifted(z, temperature)
    top = y.topk(check_k(k, y.shape[-1]), dim=-1).values
    return torch.logsumexp(top, dim=-1) - _pick(y, t)


@old_positions("target", "k", "reduction", "ignore_index", "temperature", kept=1)
def sparse_softmax_loss(
    x: Tensor,
    target: Tensor,
    *,
    k: int,
    reduction: str = "mean",
    ignore_index: int | Tensor = -100,
    temperature: float = 1.0,
) -> Tensor:
    """Sparse softmax loss logsumexp(top-k of z) - z_t (Su 2020), z = x/T, k an integer in [1, C].

    Gradient: (softmax over the top-k set minus onehot) / T; equals cross_entropy for k = C."""
    return _classify(_sparse_softmax_rows, x, target, reduction, ignore_index, k=k, temperature=temperature)


def _sparsemax_value(z: Tensor, t: Tensor) -> tuple[Tensor, Tensor]:
    """1/2 - z_t + sum_{i in S} (z_i^2 - tau^2)/2, written with p_i = z_i - tau on the support S as
    (1 + |p|^2)/2 - (z_t - tau): no cancellation for large logits and no -inf arithmetic."""
    tau = sparsemax_threshold(z)
    p = (z - tau).clamp(min=0)
    loss = (1 + (p * p).sum(-1)) / 2 - (_pick(z, t) - tau.squeeze(-1))
    return loss.clamp(min=0), p  # >= 0 exactly; the clamp only removes rounding


def _sparsemax_rows(z: Tensor, t: Tensor, temperature: float = 1.0) -> Tensor:
    return _fenchel_young(F._shifted_scaled(z, temperature), t, _sparsemax_value)


@old_positions("target", "reduction", "ignore_index", "temperature", kept=1)
def sparsemax_loss(
    x: Tensor, target: Tensor, *, reduction: str = "mean", ignore_index: int | Tensor = -100, temperature: float = 1.0
) -> Tensor:
    """Sparsemax loss (Martins & Astudillo 2016) 1/2 - z_t + sum_{i in S} (z_i^2 - tau^2)/2, z = x/T,
    S the sparsemax support, tau its threshold; gradient exactly (sparsemax(x, T) - onehot) / T.

    In the binary case with s = z_t - z_other it is the modified Huber loss divided by 4:
    0 for s >= 1, -s for s <= -1, (s - 1)^2 / 4 in between."""
    return _classify(_sparsemax_rows, x, target, reduction, ignore_index, temperature=temperature)


def _tsallis_entropy(p: torch.Tensor, alpha: float) -> torch.Tensor:
    """H_alpha(p) = (1 - sum p^alpha) / (alpha (alpha - 1)), evaluated as
    -sum p expm1((alpha - 1) log p) / (alpha (alpha - 1)) (no cancellation near alpha = 1);
    H_1 = -sum p log p (Shannon)."""
    if alpha == 1:
        return -torch.special.xlogy(p, p).sum(-1)
    terms = p * torch.expm1((alpha - 1) * torch.log(p.masked_fill(p == 0, 1)))  # 0 off the support (any alpha)
    return -terms.sum(-1) / (alpha * (alpha - 1))


def _entmax_value(z: Tensor, t: Tensor, alpha: float) -> tuple[Tensor, Tensor]:
    p = entmax(z, alpha=alpha, dim=-1)
    gap = torch.where(p > 0, p * (z - _pick(z, t).unsqueeze(-1)), 0).sum(-1)  # <p - e_t, z>; 0 * -inf -> 0
    return (gap + _tsallis_entropy(p, alpha)).clamp(min=0), p


def _entmax_rows(z: Tensor, t: Tensor, alpha: float, temperature: float = 1.0) -> Tensor:
    return _fenchel_young(F._shifted_scaled(z, temperature), t, partial(_entmax_value, alpha=alpha))


@old_positions("target", "alpha", "reduction", "ignore_index", "temperature", kept=1)
def entmax_loss(
    x: Tensor,
    target: Tensor,
    *,
    alpha: float = 1.5,
    reduction: str = "mean",
    ignore_index: int | Tensor = -100,
    temperature: float = 1.0,
) -> Tensor:
    """Fenchel-Young entmax loss <p - e_t, z> + H_alpha(p), z = x/T, p = alpha-entmax(z), with the
    Tsallis entropy H_alpha(p) = (1 - sum p^alpha) / (alpha (alpha - 1)) (H_1 = Shannon).

    alpha: a float > 0; alpha = 1 gives cross_entropy, alpha = 2 sparsemax_loss. Gradient
    exactly (p - onehot) / T. Unlike the ``entmax`` package's losses, reduction="mean" is accepted."""
    return _classify(_entmax_rows, x, target, reduction, ignore_index, alpha=alpha, temperature=temperature)


def _taylor_rows(z: Tensor, t: Tensor, order: int, temperature: float = 1.0) -> Tensor:
    return -torch.log(_pick(taylor_softmax(z, order=order, dim=-1, temperature=temperature), t))


@old_positions("target", "order", "reduction", "ignore_index", "temperature", kept=1)
def taylor_cross_entropy(
    x: Tensor,
    target: Tensor,
    *,
    order: int = 2,
    reduction: str = "mean",
    ignore_index: int | Tensor = -100,
    temperature: float = 1.0,
) -> Tensor:
    """-log taylor_softmax(x, order, T)_t = log sum_j f(z_j) - log f(z_t), z = x/T,
    f(z) = sum_{m<=order} z^m/m!, order an even integer >= 2."""
    return _classify(_taylor_rows, x, target, reduction, ignore_index, order=order, temperature=temperature)


def _am_softmax_rows(z: Tensor, t: Tensor, margin: float, scale: float, temperature: float = 1.0) -> Tensor:
    shifted = z.scatter_add(-1, t.unsqueeze(-1), torch.full_like(z[..., :1], -margin))
    return _ce_rows(scale * shifted, t, temperature)


@old_positions("target", "margin", "scale", "reduction", "ignore_index", "temperature", kept=1)
def am_softmax_loss(
    cosines: Tensor,
    target: Tensor,
    *,
    margin: float = 0.35,
    scale: float = 30.0,
    reduction: str = "mean",
    ignore_index: int | Tensor = -100,
    temperature: float = 1.0,
) -> Tensor:
    """AM-softmax loss (Wang et al. 2018) -log softmax(s (cos - m onehot(t)) / T)_t on cosine logits:
    the target must beat every other class by the margin m (>= 0); scale s > 0 (the default of
    probcore.am_softmax too)."""
    return _classify(
        _am_softmax_rows,
        cosines,
        target,
        reduction,
        ignore_index,
        "cosines",
        margin=margin,
        scale=scale,
        temperature=temperature,
    )


def _neg_prob_rows(z: Tensor, t: Tensor, temperature: float = 1.0, beta: float | None = None) -> Tensor:
    return -torch.exp(-_ce_rows(z, t, temperature, beta))


@old_positions("target", "reduction", "ignore_index", "temperature", "beta", kept=1)
def neg_prob_loss(
    x: Tensor,
    target: Tensor,
    *,
    reduction: str = "mean",
    ignore_index: int | Tensor = -100,
    temperature: float = 1.0,
    beta: float | None = None,
) -> Tensor:
    """-p_t with p = softmax(x / T) (or softmax(beta x)): minus a smooth accuracy, in [-1, 0] (not
    >= 0); its gradient p_t (p - onehot) / T vanishes as p_t -> 0 or 1, so it suits fine-tuning
    more than training."""
    return _classify(_neg_prob_rows, x, target, reduction, ignore_index, temperature=temperature, beta=beta)


def _surrogate_rows(z: Tensor, t: Tensor, mapping: str, **params: Any) -> Tensor:
    spec = get_mapping(mapping)
    if spec.needs_target:
        params["target"] = t
    d = _minus_onehot(spec.forward(z, dim=-1, **params), t).detach()
    z = F._scaled(z, params.get("temperature", 1.0), params.get("beta"))  # the chain rule's 1 / T (or beta)
    return torch.where(d != 0, d * z, 0).sum(-1)  # masked (-inf) classes have d = 0


@old_positions("target", "mapping", "reduction", "ignore_index", kept=1)
def surrogate_loss(
    x: Tensor,
    target: Tensor,
    *,
    mapping: str = "softmax",
    reduction: str = "mean",
    ignore_index: int | Tensor = -100,
    **params: Any,
) -> Tensor:
    """Stop-gradient surrogate stop_grad(p - onehot) . z with p = mapping(x, **params), any name in
    ``probcore.registry.MAPPINGS``, z = x / T (or beta x) for the mapping's temperature (beta). Its
    gradient is exactly (p - onehot) / T (the Fenchel-Young gradient, without the loss); its value
    means nothing and may be negative."""
    return _classify(_surrogate_rows, x, target, reduction, ignore_index, mapping=mapping, **params)


def _smoothed_rows(p: Tensor, t: Tensor, eps: float) -> Tensor:
    return math.log1p(p.shape[-1] * eps) - torch.log(_pick(p, t) + eps)


@old_positions("target", "eps", "reduction", "ignore_index", kept=1)
def smoothed_cross_entropy(
    p: Tensor, target: Tensor, *, eps: float = 1e-3, reduction: str = "mean", ignore_index: int | Tensor = -100
) -> Tensor:
    """-log((p_t + eps) / (1 + C eps)) on probabilities p (e.g. sparsemax output, where p_t may be 0);
    eps > 0. Non-negative for p_t <= 1, but not convex in the logits."""
    return _classify(_smoothed_rows, p, target, reduction, ignore_index, "p", eps=eps)
