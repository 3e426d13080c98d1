"""Issue 15's reproducers, each with its exact value: float32 losses on large logits, entmax just
above alpha = 1, alpha in (0, 1), ignore_index as a 0-d tensor; and issue 14's loss temperature /
beta (14.1) and the one AM-softmax scale default (14.12)."""

import inspect
import math

import numpy as np
import pytest
import torch

import probcore as pc
from probcore import losses as L
from probcore import nn as pnn
from probcore import reference as R
from probcore.registry import MAPPINGS

T0 = torch.tensor([0])
LOG2 = math.log(2)


# ------------------------------------------------------------------ 15.1: losses keep their digits


def test_cross_entropy_on_logits_in_the_thousands():
    value = L.cross_entropy(torch.tensor([[3000.0, 3000.0, 1000.0]]), T0)
    assert value.dtype == torch.float32 and abs(value.item() - LOG2) <= 1e-7  # was 0.693115
    x = torch.tensor([[30000.0, 30000.0, 0.0]], requires_grad=True)
    L.cross_entropy(x, T0).backward()
    assert torch.equal(x.grad, torch.tensor([[-0.5, 0.5, 0.0]]))  # was [-0.5001, 0.4999, 0]


@pytest.mark.parametrize(
    "loss, kw, value, grad",
    [
        (L.sparse_softmax_loss, {"k": 2}, LOG2, [-0.5, 0.5, 0.0]),  # was 0.6931152
        (L.neg_prob_loss, {}, -0.5, [-0.25, 0.25, 0.0]),  # was -0.5000160
        (L.am_softmax_loss, {"scale": 1.0, "margin": 0.0}, LOG2, [-0.5, 0.5, 0.0]),
        (L.entmax_loss, {"alpha": 1.0}, LOG2, [-0.5, 0.5, 0.0]),
        (L.sparsemax_loss, {}, 0.25, [-0.5, 0.5, 0.0]),
    ],
)
def test_every_cross_entropy_like_loss_keeps_its_digits(loss, kw, value, grad):
    x = torch.tensor([[3000.0, 3000.0, 1000.0]], requires_grad=True)
    out = loss(x, T0, **kw)
    out.backward()
    assert abs(out.item() - value) <= 1e-7
    torch.testing.assert_close(x.grad, torch.tensor([grad]), atol=1e-7, rtol=0)


LOSSES_ON_LOGITS = [
    (L.cross_entropy, {}),
    (L.cross_entropy, {"temperature": 0.7}),
    (L.cross_entropy, {"beta": -1.0}),
    (L.sparse_softmax_loss, {"k": 3}),
    (L.sparsemax_loss, {}),
    (L.entmax_loss, {"alpha": 1.5}),
    (L.entmax_loss, {"alpha": 1.0001}),
    (L.entmax_loss, {"alpha": 0.5}),
    (L.entmax_loss, {"alpha": 1.3}),
    (L.taylor_cross_entropy, {"order": 2}),
    (L.am_softmax_loss, {}),
    (L.neg_prob_loss, {}),
    (L.surrogate_loss, {"mapping": "entmax", "alpha": 1.2}),
]


@pytest.mark.parametrize("loss, kw", LOSSES_ON_LOGITS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("scale", [1.0, 100.0, 3e4])
def test_float32_losses_within_1e_6_of_float64(loss, kw, scale):
    """Value within 1e-6 (1 + |L|) and gradient within 1e-6 of float64 on the same (float32) logits,
    up to 3e4. (The value of a loss in the thousands has float32 ulps of 1e-4: relative there.
    AM-softmax's gradient in the cosines is s (p - onehot), s = 30: 1e-6 s there.)"""
    g = torch.Generator().manual_seed(int(scale))
    x32 = scale * torch.randn(64, 7, generator=g)
    if loss is L.am_softmax_loss:
        x32 = torch.tanh(x32)  # cosines
    t = torch.randint(0, 7, (64,), generator=g)
    results = []
    for dtype in (torch.float32, torch.float64):
        x = x32.to(dtype).detach().clone().requires_grad_(True)
        value = loss(x, t, reduction="none", **kw)
        value.sum().backward()
        results.append((value.double(), x.grad.double()))
    (v32, g32), (v64, g64) = results
    if loss is not L.surrogate_loss:  # (whose value means nothing: a dot product that cancels)
        assert ((v32 - v64).abs() <= 1e-6 * (1 + v64.abs())).all(), (v32 - v64).abs().max()
    grad_scale = 30.0 if loss is L.am_softmax_loss else 1.0
    assert ((g32 - g64).abs() <= 1e-6 * grad_scale).all(), (g32 - g64).abs().max()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("loss, kw", LOSSES_ON_LOGITS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_half_precision_losses_are_finite_and_sum_right(loss, kw, dtype):
    """Half-precision logits up to 3e4 (float16's max is 65504): finite loss and gradient, equal
    to the float32 loss of the same logits rounded to the half dtype (computed in float32)."""
    g = torch.Generator().manual_seed(3)
    x = (3e4 * torch.rand(8, 5, generator=g) - 1.5e4).to(dtype)
    if loss is L.am_softmax_loss:
        x = torch.tanh(x.float()).to(dtype)
    t = torch.randint(0, 5, (8,), generator=g)
    xh = x.clone().requires_grad_(True)
    value = loss(xh, t, reduction="none", **kw)  # (a sum of losses of 1e4 overflows float16)
    value.sum().backward()
    assert value.dtype == dtype and torch.isfinite(value).all() and torch.isfinite(xh.grad).all()
    expected = loss(x.float(), t, reduction="none", **kw)
    assert torch.equal(value, expected.to(dtype))


# ------------------------------------------------------------------ 15.2: entmax just above alpha = 1


@pytest.mark.parametrize("alpha", [1.00001, 1.0001, 1.001, 1.01, 1.1, 1.2])
def test_entmax_near_one_float32_within_1e_6(alpha):
    x = torch.tensor([[0.1257302, -0.1321049]])
    error = (pc.entmax(x, alpha=alpha).double() - pc.entmax(x.double(), alpha=alpha)).abs().max()
    assert error <= 1e-7  # was 3.8e-4 at 1.00001, 6e-5 at 1.0001, 3.6e-6 at 1.001


@pytest.mark.parametrize("alpha", [1 + 1e-7, 1.00001, 1.001, 0.99999, 0.999])
def test_entmax_tends_to_softmax_smoothly(alpha):
    x = torch.randn(16, 9, dtype=torch.float64, generator=torch.Generator().manual_seed(1)) * 3
    gap = (pc.entmax(x, alpha=alpha) - pc.softmax(x)).abs().max().item()
    assert gap <= 30 * abs(alpha - 1)  # dp/dalpha is bounded near 1: the gap is O(alpha - 1)


def test_entmax_near_one_gradients_in_x_and_alpha_float32_within_1e_6():
    x = 3 * torch.randn(8, 7, generator=torch.Generator().manual_seed(2))
    g = torch.randn(8, 7, generator=torch.Generator().manual_seed(3))
    for alpha in (1.00001, 1.0001, 1.001, 1.01, 1.2, 0.9999, 0.5):
        grads = []
        for dtype in (torch.float32, torch.float64):
            xx = x.to(dtype).detach().clone().requires_grad_(True)
            a = torch.full((8, 1), alpha, dtype=dtype, requires_grad=True)
            (pc.entmax(xx, alpha=a) * g.to(dtype)).sum().backward()
            grads.append((xx.grad.double(), a.grad.double()))
        assert (grads[0][0] - grads[1][0]).abs().max() <= 1e-6, alpha
        assert (grads[0][1] - grads[1][1]).abs().max() <= 1e-6, alpha


def test_alpha_gradient_is_continuous_through_one():
    x = torch.randn(3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    grads = []
    for alpha in (1.0, 1 + 1e-9, 1 - 1e-9):
        a = torch.tensor(alpha, dtype=torch.float64, requires_grad=True)
        pc.entmax(x, alpha=a)[:, 0].sum().backward()
        grads.append(a.grad.item())
    assert max(grads) - min(grads) <= 1e-8


# ------------------------------------------------------------------ 15.3: alpha in (0, 1)


@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.5, 0.75, 0.999])
def test_entmax_below_one_is_dense_and_solves_its_optimality_condition(alpha):
    """alpha < 1: every unmasked p_i > 0, masked ones 0, and p_i^(alpha - 1) - (alpha - 1) x_i is
    the same for every i (the KKT condition of max <p, x> + Tsallis entropy)."""
    x = torch.randn(6, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(5)) * 2
    x[:, -2:] = -math.inf
    p = pc.entmax(x, alpha=alpha)
    assert (p[:, :-2] > 0).all() and (p[:, -2:] == 0).all()
    torch.testing.assert_close(p.sum(-1), torch.ones(6, dtype=torch.float64))
    kkt = p[:, :-2] ** (alpha - 1) - (alpha - 1) * x[:, :-2]
    torch.testing.assert_close(kkt, kkt[:, :1].expand_as(kkt), rtol=1e-10, atol=1e-10)
    for row in range(6):
        np.testing.assert_allclose(p[row].numpy(), R.entmax(x[row].numpy(), alpha=alpha), atol=1e-12)


@pytest.mark.parametrize("alpha", [0.05, 0.3, 0.75, 1.1, 1.7])
def test_entmax_gradcheck_below_and_above_one(alpha):
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True, generator=torch.Generator().manual_seed(6))
    a = torch.tensor(alpha, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, b: pc.entmax(v, alpha=b), (x, a))
    assert torch.autograd.gradcheck(lambda v: pc.entmax(v, alpha=alpha, temperature=0.7), (x,))


@pytest.mark.parametrize("alpha", [0.3, 0.8])
def test_entmax_loss_below_one(alpha):
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True, generator=torch.Generator().manual_seed(7))
    t = torch.tensor([0, 1, 2, 3, 0])
    value = L.entmax_loss(x, t, alpha=alpha, reduction="none")
    value.sum().backward()
    p = pc.entmax(x.detach(), alpha=alpha)
    torch.testing.assert_close(x.grad, p - torch.nn.functional.one_hot(t, 4))
    for row in range(5):
        assert value[row].item() == pytest.approx(
            R.entmax_loss(x[row].detach().numpy(), int(t[row]), alpha=alpha), abs=1e-12
        )
    masked = x.detach().clone()
    masked[:, 3] = -math.inf
    assert torch.isfinite(L.entmax_loss(masked, torch.tensor([0, 1, 2, 0, 1]), alpha=alpha))


def test_learnable_alpha_starts_below_one_and_stays_positive():
    module = pnn.Entmax(alpha=0.3, learn_alpha=True)
    assert module.alpha.item() == pytest.approx(0.3)
    assert pnn.Entmax(alpha=1.0, learn_alpha=True).alpha.item() == pytest.approx(1.0)
    with torch.no_grad():
        module.raw_alpha.fill_(-50.0)  # wherever the optimiser takes it
    assert module.alpha.item() > 0 and torch.isfinite(module(torch.randn(2, 3))).all()


def test_registry_lets_the_explorer_pick_any_alpha_above_zero():
    alpha = next(p for p in MAPPINGS["entmax"].params if p.name == "alpha")
    assert alpha.low == 0 and alpha.low_open and 0 < alpha.ui_low < 1
    assert MAPPINGS["entmax"].validate(alpha=0.5) == {"alpha": 0.5}
    with pytest.raises(ValueError, match=r"alpha must be a finite real > 0"):
        MAPPINGS["entmax"].validate(alpha=0.0)


# ------------------------------------------------------------------ 15.4: ignore_index as a 0-d tensor


def test_ignore_index_accepts_a_0d_integer_tensor():
    x = torch.randn(6, 4, generator=torch.Generator().manual_seed(8))
    y = torch.tensor([2, 1, 2, 0, 3, 2])
    for loss in (L.cross_entropy, L.sparsemax_loss, L.entmax_loss):
        assert torch.equal(loss(x, y, ignore_index=y[0], reduction="sum"), loss(x, y, ignore_index=2, reduction="sum"))
    torch.testing.assert_close(
        L.cross_entropy(x, y, ignore_index=y[0]), torch.nn.functional.cross_entropy(x, y, ignore_index=y[0])
    )
    assert pnn.CrossEntropyLoss(ignore_index=y[0]).params["ignore_index"] == 2
    for bad in (torch.tensor(2.0), torch.tensor([2]), torch.tensor(True)):
        with pytest.raises(ValueError, match="ignore_index must be an integer"):
            L.cross_entropy(x, y, ignore_index=bad)


# ------------------------------------------------------------------ 14.1: losses take their mapping's temperature

DEFAULT_LOGITS = [1.2, 0.3, -0.5]  # the explorer sidebar's default


def _loss_and_grad(loss, x, target, **kw):
    x = torch.tensor([x], dtype=torch.float64, requires_grad=True)
    value = loss(x, torch.tensor([target]), **kw)
    value.backward()
    return value.item(), x.grad[0]


def test_sparsemax_loss_at_temperature_is_zero_when_p_is_one_hot():
    p = pc.sparsemax(torch.tensor(DEFAULT_LOGITS), temperature=0.5)
    assert p.tolist() == [1.0, 0.0, 0.0]
    value, grad = _loss_and_grad(L.sparsemax_loss, DEFAULT_LOGITS, 0, temperature=0.5)
    assert value == 0 and grad.abs().max() == 0


def test_cross_entropy_with_beta_is_minus_log_softmin():
    value, grad = _loss_and_grad(L.cross_entropy, DEFAULT_LOGITS, 0, beta=-1.0)
    softmin = pc.softmax(torch.tensor(DEFAULT_LOGITS, dtype=torch.float64), beta=-1.0)
    assert value == pytest.approx(-math.log(softmin[0]), abs=1e-12) and value > 2
    torch.testing.assert_close(grad, -(softmin - torch.tensor([1.0, 0, 0], dtype=torch.float64)))  # beta (p - e_t)
    assert R.cross_entropy(DEFAULT_LOGITS, 0, beta=-1.0) == pytest.approx(value, abs=1e-12)


# (loss, its mapping's name, the parameters both take, temperature)
FY_AT_TEMPERATURE = [
    (L.cross_entropy, "softmax", {}),
    (L.sparsemax_loss, "sparsemax", {}),
    (L.entmax_loss, "entmax", {"alpha": 1.5}),
    (L.entmax_loss, "entmax", {"alpha": 0.6}),
    (L.entmax_loss, "entmax", {"alpha": 2.5}),
    (L.sparse_softmax_loss, "sparse_softmax", {"k": 2}),
    (L.am_softmax_loss, "am_softmax", {"margin": 0.2, "scale": 3.0}),
]


@pytest.mark.parametrize("loss, name, kw", FY_AT_TEMPERATURE, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("temperature", [0.5, 2.0, -0.8])
def test_loss_at_temperature_is_the_loss_of_the_mappings_own_p(loss, name, kw, temperature):
    """loss(x, T) = loss(x / T) (the mapping at T is the mapping of x / T), and its gradient is
    (p - onehot) / T with p = mapping(x, T) (am_softmax: s (p - onehot) / T)."""
    x = torch.randn(5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(9))
    if name == "am_softmax":
        x = torch.tanh(x)
    if name == "sparse_softmax" and temperature < 0:
        pytest.skip("top-k of x / T with T < 0 is the bottom-k of x: the same loss, tested below for T > 0")
    t = torch.tensor([0, 1, 2, 3, 1])
    xg = x.clone().requires_grad_(True)
    value = loss(xg, t, reduction="none", temperature=temperature, **kw)
    value.sum().backward()
    if name == "am_softmax":  # cross-entropy of s (x - m onehot) / T
        margin = kw["margin"] * torch.nn.functional.one_hot(t, 4)
        plain = L.cross_entropy(kw["scale"] * (x - margin) / temperature, t, reduction="none")
    else:
        plain = loss(x / temperature, t, reduction="none", **kw)
    torch.testing.assert_close(value, plain)
    extra = {"target": t} if name == "am_softmax" else {}
    p = MAPPINGS[name].forward(x, temperature=temperature, **kw, **extra)
    factor = kw.get("scale", 1.0) / temperature
    torch.testing.assert_close(xg.grad, factor * (p - torch.nn.functional.one_hot(t, 4)))
    ref = getattr(R, loss.__name__)
    for row in range(5):
        assert value[row].item() == pytest.approx(
            ref(x[row].numpy(), int(t[row]), temperature=temperature, **kw), abs=1e-10
        )


@pytest.mark.parametrize("temperature", [0.5, 3.0])
def test_other_losses_at_temperature(temperature):
    x = torch.randn(4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(10))
    t = torch.tensor([0, 1, 2, 4])
    for loss, kw in ((L.taylor_cross_entropy, {"order": 4}), (L.neg_prob_loss, {})):
        value = loss(x, t, reduction="none", temperature=temperature, **kw)
        p = pc.taylor_softmax(x, order=4, temperature=temperature) if kw else pc.softmax(x, temperature=temperature)
        picked = p.gather(-1, t[:, None]).squeeze(-1)
        torch.testing.assert_close(value, -torch.log(picked) if kw else -picked)
        ref = getattr(R, loss.__name__)
        assert value[0].item() == pytest.approx(ref(x[0].numpy(), 0, temperature=temperature, **kw), abs=1e-12)
    torch.testing.assert_close(
        L.neg_prob_loss(x, t, beta=-1.0, reduction="none"), -pc.softmax(x, beta=-1.0).gather(-1, t[:, None]).squeeze(-1)
    )
    xg = x.clone().requires_grad_(True)
    L.surrogate_loss(xg, t, mapping="entmax", alpha=1.5, temperature=temperature, reduction="sum").backward()
    p = pc.entmax(x, alpha=1.5, temperature=temperature)
    torch.testing.assert_close(xg.grad, (p - torch.nn.functional.one_hot(t, 5)) / temperature)


def test_loss_modules_take_temperature_and_beta():
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(11))
    t = torch.tensor([0, 1, 2])
    assert torch.equal(pnn.SparsemaxLoss(temperature=0.5)(x, t), L.sparsemax_loss(x, t, temperature=0.5))
    assert torch.equal(pnn.CrossEntropyLoss(beta=-1.0)(x, t), L.cross_entropy(x, t, beta=-1.0))
    with pytest.raises(ValueError, match="give either temperature or beta"):
        pnn.CrossEntropyLoss(temperature=2.0, beta=1.0)
    with pytest.raises(ValueError, match="temperature must be finite and non-zero"):
        pnn.EntmaxLoss(temperature=0.0)


def test_every_mapping_loss_takes_the_mappings_temperature():
    """The registry's loss of each mapping takes every temperature-like parameter the mapping has,
    so the explorer (which passes a loss the parameters its signature names) passes them."""
    for mapping in MAPPINGS.values():
        if mapping.loss is None:
            continue
        takes = inspect.signature(getattr(L, mapping.loss)).parameters
        for param in mapping.params:
            if param.name in ("temperature", "beta"):
                assert param.name in takes, (mapping.name, mapping.loss, param.name)


# ------------------------------------------------------------------ 14.12: one AM-softmax scale


def test_am_softmax_scale_has_one_default():
    defaults = {
        "functional": inspect.signature(pc.am_softmax).parameters["scale"].default,
        "reference": inspect.signature(R.am_softmax).parameters["scale"].default,
        "loss": inspect.signature(L.am_softmax_loss).parameters["scale"].default,
        "reference loss": inspect.signature(R.am_softmax_loss).parameters["scale"].default,
        "registry": next(p.default for p in MAPPINGS["am_softmax"].params if p.name == "scale"),
    }
    assert set(defaults.values()) == {30.0}, defaults
    cos = torch.tensor([[0.8, 0.3, -0.2]], dtype=torch.float64)
    p = pc.am_softmax(cos, T0)
    assert L.am_softmax_loss(cos, T0).item() == pytest.approx(-math.log(p[0, 0].item()), rel=1e-6)
