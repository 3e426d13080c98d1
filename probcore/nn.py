"""``torch.nn`` module forms of the probcore mappings and losses, for training code.

Mappings: ``Softmax(dim=-1, temperature=1.0)``, ``Sparsemax(dim=-1)``, ``Entmax15(dim=-1)``,
``Entmax(alpha=1.5, dim=-1, learn_alpha=False)``, ``SparseSoftmax(k, dim=-1)``.

Losses, one per :mod:`probcore.losses` function, built like ``torch.nn.CrossEntropyLoss``: the
constructor takes the function's parameters after ``(x, target)`` (reduction and ignore_index
included) and checks them at once; ``forward(x, target)`` calls the function.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable

import torch
from torch import nn

from probcore import functional as F
from probcore import losses as L
from probcore._api import by_keyword, old_positions
from probcore._validate import check_alpha, check_positive_int, check_temperature

__all__ = [
    "Softmax",
    "Sparsemax",
    "Entmax15",
    "Entmax",
    "SparseSoftmax",
    "CrossEntropyLoss",
    "SparseSoftmaxLoss",
    "SparsemaxLoss",
    "EntmaxLoss",
    "TaylorCrossEntropyLoss",
    "AMSoftmaxLoss",
    "NegProbLoss",
    "SurrogateLoss",
    "SmoothedCrossEntropyLoss",
]


class _Mapping(nn.Module):
    """forward(x) = fn(x, dim=dim, **params) for a probcore.functional mapping fn."""

    def __init__(self, fn: Callable[..., torch.Tensor], dim: int = -1, **params: Any) -> None:
        super().__init__()
        self.fn, self.dim, self.params = fn, dim, params

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x, dim=self.dim, **self.params)

    def extra_repr(self) -> str:
        return ", ".join(f"{name}={value!r}" for name, value in {"dim": self.dim, **self.params}.items())


class Softmax(_Mapping):
    """p = softmax(x / T) along dim; temperature T finite and non-zero (negative = softmin)."""

    @old_positions("dim", "temperature", kept=1)
    def __init__(self, dim: int = -1, *, temperature: float = 1.0) -> None:
        super().__init__(F.softmax, dim, temperature=check_temperature(temperature))


class Sparsemax(_Mapping):
    """p = relu(x - tau) along dim with sum p = 1 (Martins & Astudillo 2016)."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__(F.sparsemax, dim)


class Entmax15(_Mapping):
    """p = relu(x/2 - tau)^2 along dim with sum p = 1 (exact 1.5-entmax, Peters et al. 2019)."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__(F.entmax15, dim)


class SparseSoftmax(_Mapping):
    """Softmax over the k largest entries along dim, 0 elsewhere; k an integer >= 1 (and <= n,
    checked on the input)."""

    @old_positions("k", "dim")
    def __init__(self, *, k: int, dim: int = -1) -> None:
        super().__init__(F.sparse_softmax, dim, k=check_positive_int("k", k))


class Entmax(nn.Module):
    """alpha-entmax p = relu((alpha - 1) x - tau)^(1/(alpha - 1)) along dim, alpha > 0
    (alpha < 1 dense, 1 = softmax, 2 = sparsemax).

    learn_alpha=True makes alpha trainable as alpha = softplus(raw_alpha) with ``raw_alpha`` an
    ``nn.Parameter``, so alpha stays > 0 whatever the optimiser does and may start anywhere in
    (0, inf), 1 included, and cross 1 smoothly while training. ``alpha`` reads the current value."""

    @old_positions("alpha", "dim", "learn_alpha")
    def __init__(self, *, dim: int = -1, alpha: float = 1.5, learn_alpha: bool = False) -> None:
        super().__init__()
        alpha = check_alpha(alpha)
        self.dim, self.learn_alpha = dim, bool(learn_alpha)
        if self.learn_alpha:  # softplus^-1(a) = log(expm1(a)), written a + log(-expm1(-a)) for large a
            self.raw_alpha = nn.Parameter(torch.tensor(alpha + math.log(-math.expm1(-alpha))))
        else:
            self._alpha = alpha

    @property
    def alpha(self) -> float | torch.Tensor:
        """Current alpha: a float, or a 0-d tensor (differentiable) with learn_alpha."""
        return nn.functional.softplus(self.raw_alpha) if self.learn_alpha else self._alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.entmax(x, alpha=self.alpha, dim=self.dim)

    def extra_repr(self) -> str:
        alpha = float(self.alpha)
        return f"alpha={alpha:.4g}, dim={self.dim}, learn_alpha={self.learn_alpha}"


class _Loss(nn.Module):
    """Module form of ``loss_fn`` (a probcore.losses function): the constructor takes loss_fn's
    parameters after (x, target), checked at construction; forward(x, target) calls loss_fn."""

    loss_fn: Callable[..., torch.Tensor]
    __signature__: inspect.Signature

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        signature = inspect.signature(cls.loss_fn)
        cls.__signature__ = signature.replace(parameters=list(signature.parameters.values())[2:])
        cls.__doc__ = (
            f"Module form of ``probcore.losses.{cls.loss_fn.__name__}``: {cls.__name__}{cls.__signature__}, "
            f"arguments checked at construction, forward(x, target).\n\n{inspect.getdoc(cls.loss_fn)}"
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        if args:  # the loss function's old positions after (x, target), deprecated
            old = getattr(type(self).loss_fn, "old_names", ())[1:]
            kwargs = {**by_keyword(type(self).__name__, old, args, kwargs), **kwargs}
        bound = self.__signature__.bind(**kwargs)
        bound.apply_defaults()
        params = {}
        for name, value in bound.arguments.items():
            if self.__signature__.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                params.update(value)  # surrogate_loss's mapping parameters
            else:
                params[name] = value
        self.params = L.check_params(**params)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return type(self).loss_fn(x, target, **self.params)

    def extra_repr(self) -> str:
        return ", ".join(f"{name}={value!r}" for name, value in self.params.items())


class CrossEntropyLoss(_Loss):
    loss_fn = staticmethod(L.cross_entropy)


class SparseSoftmaxLoss(_Loss):
    loss_fn = staticmethod(L.sparse_softmax_loss)


class SparsemaxLoss(_Loss):
    loss_fn = staticmethod(L.sparsemax_loss)


class EntmaxLoss(_Loss):
    loss_fn = staticmethod(L.entmax_loss)


class TaylorCrossEntropyLoss(_Loss):
    loss_fn = staticmethod(L.taylor_cross_entropy)


class AMSoftmaxLoss(_Loss):
    loss_fn = staticmethod(L.am_softmax_loss)


class NegProbLoss(_Loss):
    loss_fn = staticmethod(L.neg_prob_loss)


class SurrogateLoss(_Loss):
    loss_fn = staticmethod(L.surrogate_loss)


class SmoothedCrossEntropyLoss(_Loss):
    loss_fn = staticmethod(L.smoothed_cross_entropy)
