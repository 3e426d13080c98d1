"""The public API's shape: inputs and dim first, the mapping's parameters keyword-only; calls in
the old positional style still work, with exactly one DeprecationWarning (attributed to the caller)
and the same result."""

from __future__ import annotations

import inspect
import warnings

import pytest
import torch

import probcore as pc
from probcore import losses as L
from probcore import nn
from probcore import reference as R

x = torch.randn(3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
t = torch.tensor([0, 1, 2])
NEW = [
    lambda: pc.softmax(x, -1, temperature=2.0),
    lambda: pc.softmax(x, 1),
    lambda: pc.taylor_softmax(x, dim=0, order=4),
    lambda: pc.sparse_softmax(x, dim=-1, k=2),
    lambda: pc.am_softmax(x, t, dim=-1, margin=0.1),
    lambda: pc.sparsemax(x, 0),
    lambda: pc.entmax15(x, -1, temperature=0.5),
    lambda: pc.entmax(x, dim=0, alpha=1.3),
    lambda: pc.perturbmax(x, noise="normal"),
    lambda: pc.perturbmax_sample(x, n_samples=10),
    lambda: pc.gumbel_softmax(x, dim=0, hard=True),
    lambda: pc.smooth_max(x, 0),
    lambda: L.entmax_loss(x, t, alpha=1.3),
    lambda: L.cross_entropy(x, t),
    lambda: L.surrogate_loss(x, t, mapping="sparsemax"),
    lambda: nn.Softmax(0, temperature=2)(x),
    lambda: nn.SparseSoftmax(k=2)(x),
    lambda: nn.Entmax(alpha=1.3)(x),
    lambda: nn.EntmaxLoss(alpha=1.3)(x, t),
    lambda: nn.SparseSoftmaxLoss(k=2)(x, t),
    lambda: R.entmax(x[0].numpy(), alpha=1.3),
    lambda: R.cross_entropy(x[0].numpy(), 1),
    lambda: pc.jacobian("entmax", x, alpha=1.3),
    lambda: pc.jacobian("taylor_softmax", x, order=2),
]
OLD = [
    (lambda: pc.softmax(x, -1, 2.0), lambda: pc.softmax(x, -1, temperature=2.0)),
    (lambda: pc.entmax(x, 1.3, 0), lambda: pc.entmax(x, alpha=1.3, dim=0)),
    (lambda: pc.taylor_softmax(x, 4, 0), lambda: pc.taylor_softmax(x, order=4, dim=0)),
    (lambda: pc.sparse_softmax(x, 2), lambda: pc.sparse_softmax(x, k=2)),
    (lambda: pc.am_softmax(x, t, 0.1, 10.0), lambda: pc.am_softmax(x, t, margin=0.1, scale=10.0)),
    (
        lambda: pc.gumbel_softmax(x, 0.5, False, -1, torch.Generator().manual_seed(0)),
        lambda: pc.gumbel_softmax(x, temperature=0.5, generator=torch.Generator().manual_seed(0)),
    ),
    (lambda: L.entmax_loss(x, t, 1.3, "sum"), lambda: L.entmax_loss(x, t, alpha=1.3, reduction="sum")),
    (lambda: nn.Entmax(1.3, 0)(x), lambda: nn.Entmax(alpha=1.3, dim=0)(x)),
    (lambda: nn.SparseSoftmaxLoss(2, "sum")(x, t), lambda: nn.SparseSoftmaxLoss(k=2, reduction="sum")(x, t)),
    (lambda: torch.as_tensor(R.entmax(x[0].numpy(), 1.3)), lambda: torch.as_tensor(R.entmax(x[0].numpy(), alpha=1.3))),
]


@pytest.mark.parametrize("call", NEW)
def test_keyword_calls_warn_nothing(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call()


@pytest.mark.parametrize("old, new", OLD)
def test_old_positional_calls_work_with_one_deprecation_warning(old, new):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = old()
    assert [w.category for w in caught] == [DeprecationWarning]
    assert caught[0].filename == __file__  # attributed to the caller's line
    assert "by position is deprecated" in str(caught[0].message)
    torch.testing.assert_close(got, new())


def test_positions_given_twice_or_too_many_are_type_errors():
    with pytest.raises(TypeError, match="multiple values for argument 'alpha'"):
        pc.entmax(x, 1.3, alpha=1.5)
    with pytest.raises(TypeError, match="at most"):
        pc.softmax(x, -1, 1.0, None, 3)


MAPPINGS = [
    pc.softmax,
    pc.smooth_max,
    pc.taylor_softmax,
    pc.sparse_softmax,
    pc.sparsemax,
    pc.entmax15,
    pc.entmax,
    pc.perturbmax,
    pc.perturbmax_sample,
    pc.gumbel_softmax,
]


@pytest.mark.parametrize("fn", MAPPINGS + [pc.am_softmax], ids=lambda f: f.__name__)
def test_signatures_put_inputs_and_dim_first_and_parameters_keyword_only(fn):
    params = list(inspect.signature(fn).parameters.values())
    inputs = ["x", "target"] if fn is pc.am_softmax else ["x"]
    assert [p.name for p in params[: len(inputs)]] == inputs
    assert params[len(inputs)].name == "dim"
    rest = params[len(inputs) + 1 :]
    assert rest and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in rest)
    assert all(p.annotation is not inspect.Parameter.empty for p in params)
    assert inspect.signature(fn).return_annotation is not inspect.Signature.empty
