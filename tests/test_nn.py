"""probcore.nn: mapping modules equal the functional calls, loss modules equal the loss functions,
arguments are checked at construction, and Entmax learns alpha."""

import copy
import inspect

import pytest
import torch

from probcore import functional as F
from probcore import losses as L
from probcore import nn as pnn


def logits(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@pytest.mark.parametrize(
    "module, call",
    [
        (pnn.Softmax(), lambda x: F.softmax(x)),
        (pnn.Softmax(dim=1, temperature=0.5), lambda x: F.softmax(x, dim=1, temperature=0.5)),
        (pnn.Sparsemax(dim=0), lambda x: F.sparsemax(x, dim=0)),
        (pnn.Entmax15(), lambda x: F.entmax15(x)),
        (pnn.Entmax(alpha=1.7, dim=1), lambda x: F.entmax(x, alpha=1.7, dim=1)),
        (pnn.Entmax(alpha=1.7, dim=1, learn_alpha=True), lambda x: F.entmax(x, alpha=1.7, dim=1)),
        (pnn.SparseSoftmax(2, dim=-2), lambda x: F.sparse_softmax(x, k=2, dim=-2)),
    ],
)
def test_mapping_modules_equal_functional_calls(module, call):
    x = logits(2, 4, 5)
    torch.testing.assert_close(module(x), call(x))
    x = x.clone().requires_grad_(True)
    module(x).pow(2).sum().backward()
    assert x.grad.isfinite().all()


@pytest.mark.parametrize(
    "make",
    [
        lambda: pnn.Softmax(temperature=0),
        lambda: pnn.SparseSoftmax(0),
        lambda: pnn.SparseSoftmax(1.5),
        lambda: pnn.Entmax(alpha=0.0),
        lambda: pnn.Entmax(alpha=-1.0, learn_alpha=True),
    ],
)
def test_mapping_modules_check_arguments_at_construction(make):
    with pytest.raises(ValueError, match="temperature|k must|alpha must"):
        make()


def test_entmax_alpha_is_a_parameter_only_when_learned():
    assert list(pnn.Entmax(alpha=1.5).parameters()) == []
    module = pnn.Entmax(alpha=1.5, learn_alpha=True)
    assert [name for name, _ in module.named_parameters()] == ["raw_alpha"]
    assert module.alpha.item() == pytest.approx(1.5)
    assert "alpha=1.5" in repr(module)


@pytest.mark.parametrize("start, goal", [(1.2, 1.8), (1.6, 1.0), (0.5, 1.3), (1.0, 0.3)])
def test_entmax_learns_alpha_and_keeps_it_above_zero(start, goal):
    """Fit alpha so that Entmax(x) matches a target distribution made with alpha = goal
    (goal 1 = softmax; 0.5 -> 1.3 and 1 -> 0.3 cross alpha = 1, where the map turns sparse)."""
    torch.manual_seed(0)
    x = 2 * torch.randn(16, 6)
    target = F.entmax(x, alpha=goal)
    module = pnn.Entmax(alpha=start, learn_alpha=True)
    optimiser = torch.optim.Adam(module.parameters(), lr=0.1)
    alphas = []
    for _ in range(60):
        optimiser.zero_grad()
        loss = (module(x) - target).pow(2).sum()
        loss.backward()
        assert module.raw_alpha.grad is not None and module.raw_alpha.grad.isfinite()
        optimiser.step()
        alphas.append(module.alpha.item())
    assert min(alphas) > 0
    assert abs(alphas[-1] - goal) < abs(start - goal) / 2  # moved most of the way


CASES = [  # module, the same loss as a function call
    (pnn.CrossEntropyLoss(), lambda x, t: L.cross_entropy(x, t)),
    (pnn.CrossEntropyLoss(temperature=2.0, reduction="sum"), lambda x, t: L.cross_entropy(x, t, 2.0, reduction="sum")),
    (pnn.SparseSoftmaxLoss(3), lambda x, t: L.sparse_softmax_loss(x, t, 3)),
    (pnn.SparsemaxLoss(reduction="none"), lambda x, t: L.sparsemax_loss(x, t, reduction="none")),
    (pnn.EntmaxLoss(1.3), lambda x, t: L.entmax_loss(x, t, alpha=1.3)),
    (pnn.EntmaxLoss(), lambda x, t: L.entmax_loss(x, t)),
    (pnn.TaylorCrossEntropyLoss(order=4, ignore_index=1), lambda x, t: L.taylor_cross_entropy(x, t, 4, ignore_index=1)),
    (pnn.AMSoftmaxLoss(0.2, scale=10.0), lambda x, t: L.am_softmax_loss(torch.tanh(x), t, 0.2, 10.0)),
    (pnn.NegProbLoss(), lambda x, t: L.neg_prob_loss(x, t)),
    (pnn.SurrogateLoss("entmax", alpha=1.4), lambda x, t: L.surrogate_loss(x, t, "entmax", alpha=1.4)),
    (pnn.SurrogateLoss(), lambda x, t: L.surrogate_loss(x, t)),
    (pnn.SmoothedCrossEntropyLoss(eps=0.01), lambda x, t: L.smoothed_cross_entropy(torch.softmax(x, 1), t, eps=0.01)),
]


@pytest.mark.parametrize("module, call", CASES, ids=[type(m).__name__ + str(i) for i, (m, _) in enumerate(CASES)])
def test_loss_modules_equal_loss_functions(module, call):
    x, t = logits(5, 6, seed=1), torch.tensor([0, 1, 2, 5, 1])
    if isinstance(module, pnn.AMSoftmaxLoss):
        x = torch.tanh(x)
        call_x = lambda x, t, call=call: call(torch.atanh(x), t)  # noqa: E731
    elif isinstance(module, pnn.SmoothedCrossEntropyLoss):
        x = torch.softmax(x, 1)
        call_x = lambda x, t, call=call: call(torch.log(x), t)  # noqa: E731
    else:
        call_x = call
    torch.testing.assert_close(module(x, t), call_x(x, t))
    assert isinstance(copy.deepcopy(module), type(module))


def test_loss_module_signatures_mirror_the_functions():
    assert list(inspect.signature(pnn.EntmaxLoss).parameters) == ["alpha", "reduction", "ignore_index", "temperature"]
    assert list(inspect.signature(pnn.SparseSoftmaxLoss).parameters) == [
        "k",
        "reduction",
        "ignore_index",
        "temperature",
    ]
    assert "entmax_loss" in pnn.EntmaxLoss.__doc__
    assert (
        repr(pnn.SparseSoftmaxLoss(3)) == "SparseSoftmaxLoss(k=3, reduction='mean', ignore_index=-100, temperature=1.0)"
    )
    with pytest.raises(TypeError):
        pnn.SparseSoftmaxLoss()  # k is required, as in sparse_softmax_loss
    with pytest.raises(TypeError):
        pnn.SparsemaxLoss(alpha=1.5)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: pnn.CrossEntropyLoss(reduction="avg"), "reduction"),
        (lambda: pnn.CrossEntropyLoss(temperature=0.0), "temperature"),
        (lambda: pnn.CrossEntropyLoss(ignore_index="x"), "ignore_index"),
        (lambda: pnn.SparseSoftmaxLoss(0), "k must"),
        (lambda: pnn.EntmaxLoss(0.0), "alpha must"),
        (lambda: pnn.TaylorCrossEntropyLoss(3), "order must"),
        (lambda: pnn.AMSoftmaxLoss(margin=-1.0), "margin must"),
        (lambda: pnn.AMSoftmaxLoss(scale=0.0), "scale must"),
        (lambda: pnn.SmoothedCrossEntropyLoss(eps=0.0), "eps must"),
        (lambda: pnn.SurrogateLoss("nope"), "nope"),
        (lambda: pnn.SurrogateLoss("entmax", alpha=-0.5), "alpha"),
    ],
)
def test_loss_modules_check_arguments_at_construction(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_loss_modules_backpropagate_into_a_model():
    torch.manual_seed(1)
    x, t = torch.randn(8, 4), torch.randint(0, 5, (8,))
    head = torch.nn.Linear(4, 5)
    for loss in (pnn.EntmaxLoss(1.5), pnn.SparsemaxLoss(), pnn.SurrogateLoss("sparsemax")):
        head.zero_grad()
        loss(head(x), t).backward()
        assert head.weight.grad.isfinite().all() and head.weight.grad.abs().sum() > 0
