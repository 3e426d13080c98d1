"""probcore.losses: values, gradients p - onehot, F.cross_entropy conventions, errors, masks, half."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from probcore import functional as F
from probcore import losses as L

# id -> (loss, keyword parameters); smoothed_cross_entropy is fed softmax(x) (it takes probabilities)
CASES = {
    "cross_entropy": (L.cross_entropy, {}),
    "cross_entropy_T": (L.cross_entropy, {"temperature": 0.5}),
    "cross_entropy_softmin": (L.cross_entropy, {"temperature": -2.0}),
    "sparse_softmax": (L.sparse_softmax_loss, {"k": 3}),
    "sparsemax": (L.sparsemax_loss, {}),
    "entmax_1.25": (L.entmax_loss, {"alpha": 1.25}),
    "entmax_1.5": (L.entmax_loss, {"alpha": 1.5}),
    "entmax_3": (L.entmax_loss, {"alpha": 3.0}),
    "taylor_2": (L.taylor_cross_entropy, {"order": 2}),
    "taylor_4": (L.taylor_cross_entropy, {"order": 4}),
    "am_softmax": (L.am_softmax_loss, {"margin": 0.2, "scale": 5.0}),
    "neg_prob": (L.neg_prob_loss, {}),
    "surrogate_softmax": (L.surrogate_loss, {"mapping": "softmax"}),
    "surrogate_entmax": (L.surrogate_loss, {"mapping": "entmax", "alpha": 1.7}),
    "smoothed": (L.smoothed_cross_entropy, {"eps": 1e-3}),
}
NONNEGATIVE = [name for name in CASES if not name.startswith(("surrogate", "neg_prob"))]
GRADCHECKED = [name for name in CASES if not name.startswith("surrogate")]  # surrogates: see below


def call(name, x, target, **kwargs):
    fn, params = CASES[name]
    if name == "smoothed":
        x = F.softmax(x, dim=0 if x.dim() == 1 else 1)
    return fn(x, target, **params, **kwargs)


def batch(n=4, c=6, seed=0, dtype=torch.float64, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    x = (scale * torch.randn(n, c, generator=g)).to(dtype)
    return x, torch.randint(0, c, (n,), generator=g)


def onehot(t, c, dtype=torch.float64):
    return TF.one_hot(t, c).to(dtype)


# ---------------------------------------------------------------- values


@st.composite
def logits_and_target(draw, max_abs=30.0):
    n, c = draw(st.integers(1, 4)), draw(st.integers(3, 7))
    x = draw(arrays(np.float64, (n, c), elements=st.floats(-max_abs, max_abs)))
    t = draw(arrays(np.int64, (n,), elements=st.integers(0, c - 1)))
    return torch.from_numpy(x), torch.from_numpy(t)


@settings(max_examples=30, deadline=None)
@given(logits_and_target())
def test_losses_are_nonnegative_and_neg_prob_in_minus_one_zero(xt):
    x, t = xt
    for name in NONNEGATIVE:
        assert (call(name, x, t, reduction="none") >= 0).all(), name
    neg = call("neg_prob", x, t, reduction="none")
    assert ((neg >= -1) & (neg <= 0)).all()


@settings(max_examples=15, deadline=None)
@given(logits_and_target(max_abs=10.0))
def test_entmax_loss_alpha_one_is_cross_entropy_and_two_is_sparsemax_loss(xt):
    x, t = xt
    ce = L.cross_entropy(x, t, reduction="none")
    torch.testing.assert_close(L.entmax_loss(x, t, alpha=1, reduction="none"), ce)
    torch.testing.assert_close(
        L.entmax_loss(x, t, alpha=2.0, reduction="none"), L.sparsemax_loss(x, t, reduction="none")
    )
    # and alpha -> 1 approaches cross-entropy continuously (no cancellation near 1)
    torch.testing.assert_close(L.entmax_loss(x, t, alpha=1 + 1e-7, reduction="none"), ce, atol=1e-4, rtol=1e-4)


def _sparsemax_loss_seed(x, t):
    """The seed's formula with the seed's sort-based tau, in numpy: 1/2 - x_t + sum_S (x_i^2 - tau^2)/2."""
    xs = np.sort(x)[::-1]
    taus = (np.cumsum(xs) - 1) / np.arange(1, len(x) + 1)
    tau = taus[(xs > taus).sum() - 1]
    support = x > tau
    return 0.5 - x[t] + ((x[support] ** 2 - tau**2) / 2).sum()


def test_sparsemax_loss_is_the_seed_formula():
    x, t = batch(n=8, c=7, seed=3)
    ours = L.sparsemax_loss(x, t, reduction="none").numpy()
    seed = [_sparsemax_loss_seed(row, int(k)) for row, k in zip(x.numpy(), t)]
    np.testing.assert_allclose(ours, seed, rtol=1e-10, atol=1e-10)


def test_sparsemax_loss_binary_is_modified_huber():
    s = torch.linspace(-3, 3, 61, dtype=torch.float64)  # margin s = x_t - x_other
    huber = torch.where(s >= 1, 0.0, torch.where(s <= -1, -s, (s - 1) ** 2 / 4))
    for shift in (0.0, -7.5):  # shift invariance
        x = torch.stack([s + shift, torch.full_like(s, shift)], dim=1)
        torch.testing.assert_close(L.sparsemax_loss(x, torch.zeros(61, dtype=torch.long), reduction="none"), huber)
        torch.testing.assert_close(
            L.sparsemax_loss(x.flip(1), torch.ones(61, dtype=torch.long), reduction="none"), huber
        )


def test_sparse_softmax_loss_is_logsumexp_top_k_minus_target_and_ce_for_k_equal_n():
    x, t = batch(n=5, c=6, seed=1)
    torch.testing.assert_close(
        L.sparse_softmax_loss(x, t, k=6, reduction="none"), L.cross_entropy(x, t, reduction="none")
    )
    for k in (1, 2, 4):
        top = x.sort(dim=1, descending=True).values[:, :k]
        expected = top.exp().sum(1).log() - x.gather(1, t[:, None]).squeeze(1)
        torch.testing.assert_close(L.sparse_softmax_loss(x, t, k=k, reduction="none"), expected)


def test_other_closed_forms():
    x, t = batch(n=5, c=6, seed=2)
    e = onehot(t, 6)
    pick = lambda v: v.gather(1, t[:, None]).squeeze(1)  # noqa: E731
    torch.testing.assert_close(
        L.cross_entropy(x, t, temperature=0.5, reduction="none"), TF.cross_entropy(x / 0.5, t, reduction="none")
    )
    torch.testing.assert_close(L.neg_prob_loss(x, t, reduction="none"), -pick(torch.softmax(x, 1)))
    for order in (2, 4):
        f = sum(x**m / math.factorial(m) for m in range(order + 1))
        torch.testing.assert_close(
            L.taylor_cross_entropy(x, t, order=order, reduction="none"), -torch.log(pick(f / f.sum(1, keepdim=True)))
        )
    cos = torch.tanh(x)
    am = TF.cross_entropy(30.0 * (cos - 0.35 * e), t, reduction="none")
    torch.testing.assert_close(L.am_softmax_loss(cos, t, reduction="none"), am)
    torch.testing.assert_close(
        L.am_softmax_loss(cos, t, margin=0.0, scale=30.0, reduction="none"),
        TF.cross_entropy(30 * cos, t, reduction="none"),
    )
    p = torch.softmax(x, 1)
    torch.testing.assert_close(
        L.smoothed_cross_entropy(p, t, eps=0.01, reduction="none"), -torch.log((pick(p) + 0.01) / (1 + 6 * 0.01))
    )
    assert (L.smoothed_cross_entropy(F.sparsemax(4 * x), t, reduction="none")).isfinite().all()  # p_t may be 0
    for mapping, params in (("softmax", {}), ("sparsemax", {}), ("entmax", {"alpha": 1.3})):
        p = (
            F.softmax(x)
            if mapping == "softmax"
            else F.sparsemax(x)
            if mapping == "sparsemax"
            else F.entmax(x, alpha=1.3)
        )
        torch.testing.assert_close(L.surrogate_loss(x, t, mapping, reduction="none", **params), ((p - e) * x).sum(1))


# ---------------------------------------------------------------- gradients


def _grad(fn, x):
    x = x.clone().requires_grad_(True)
    fn(x).backward()
    return x.grad


@pytest.mark.parametrize("alpha", [1.0, 1.25, 1.5, 2.0, 2.5])
def test_entmax_loss_gradient_is_p_minus_onehot(alpha):
    x, t = batch(n=6, c=7, seed=4)
    grad = _grad(lambda v: L.entmax_loss(v, t, alpha=alpha, reduction="sum"), x)
    torch.testing.assert_close(grad, F.entmax(x, alpha=alpha) - onehot(t, 7))


def test_ce_and_sparsemax_loss_gradient_is_p_minus_onehot():
    x, t = batch(n=6, c=7, seed=5)
    torch.testing.assert_close(_grad(lambda v: L.cross_entropy(v, t, reduction="sum"), x), F.softmax(x) - onehot(t, 7))
    torch.testing.assert_close(
        _grad(lambda v: L.cross_entropy(v, t, temperature=2.0, reduction="sum"), x),
        (F.softmax(x, temperature=2.0) - onehot(t, 7)) / 2.0,
    )
    torch.testing.assert_close(
        _grad(lambda v: L.sparsemax_loss(v, t, reduction="sum"), x), F.sparsemax(x) - onehot(t, 7)
    )
    # mean: divided by the number of targets
    torch.testing.assert_close(_grad(lambda v: L.sparsemax_loss(v, t), x), (F.sparsemax(x) - onehot(t, 7)) / 6)


SURROGATE_PARTNERS = {  # mapping (params) -> the Fenchel-Young loss with the same gradient
    "softmax": ({}, lambda x, t: L.cross_entropy(x, t, reduction="sum")),
    "sparsemax": ({}, lambda x, t: L.sparsemax_loss(x, t, reduction="sum")),
    "entmax15": ({}, lambda x, t: L.entmax_loss(x, t, alpha=1.5, reduction="sum")),
    "entmax": ({"alpha": 1.7}, lambda x, t: L.entmax_loss(x, t, alpha=1.7, reduction="sum")),
}


def _numerical_gradient(fn, x, h=1e-6):
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        step = torch.zeros_like(x).view(-1)
        step[i] = h
        grad.view(-1)[i] = (fn(x + step.view_as(x)) - fn(x - step.view_as(x))) / (2 * h)
    return grad


@pytest.mark.parametrize("mapping", SURROGATE_PARTNERS)
def test_surrogate_gradient_is_p_minus_onehot(mapping):
    """The surrogate's value is not a loss, so no gradcheck on it: its autograd gradient must be
    p - onehot and equal the numerical gradient of the matching Fenchel-Young loss."""
    params, partner = SURROGATE_PARTNERS[mapping]
    x, t = batch(n=3, c=5, seed=6)
    grad = _grad(lambda v: L.surrogate_loss(v, t, mapping, reduction="sum", **params), x)
    p = F.entmax(x, alpha=params.get("alpha", {"softmax": 1.0, "sparsemax": 2.0, "entmax15": 1.5}.get(mapping)))
    torch.testing.assert_close(grad, p - onehot(t, 5))
    torch.testing.assert_close(grad, _numerical_gradient(lambda v: partner(v, t), x), atol=1e-6, rtol=1e-5)
    # any mapping: taylor softmax
    grad = _grad(lambda v: L.surrogate_loss(v, t, "taylor_softmax", order=4, reduction="sum"), x)
    torch.testing.assert_close(grad, F.taylor_softmax(x, order=4) - onehot(t, 5))


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name):
    x, t = batch(n=3, c=5, seed=7, scale=1.0)
    x.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda v: call(name, v, t, reduction="none"), (x,), eps=1e-6, atol=1e-5)
    assert torch.autograd.gradcheck(lambda v: call(name, v, t), (x,), eps=1e-6, atol=1e-5)


# ---------------------------------------------------------------- conventions of F.cross_entropy


@pytest.mark.parametrize("shape", [(5,), (4, 5), (2, 5, 3), (2, 5, 2, 3)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_matches_torch(shape, reduction, ignore_index):
    g = torch.Generator().manual_seed(8)
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    t = torch.randint(0, 5, () if len(shape) == 1 else (shape[0],) + shape[2:], generator=g)
    t.view(-1)[1::3] = ignore_index  # ignored entries (ignore_index=2 also ignores class 2 itself)
    kwargs = dict(reduction=reduction, ignore_index=ignore_index)
    ours = _grad_and_value(lambda v: L.cross_entropy(v, t, **kwargs), x)
    expected = _grad_and_value(lambda v: TF.cross_entropy(v, t, **kwargs), x)
    for a, b in zip(ours, expected):
        torch.testing.assert_close(a, b, equal_nan=True)


def _grad_and_value(fn, x):
    x = x.clone().requires_grad_(True)
    value = fn(x)
    value.sum().backward()
    return value.detach(), x.grad


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_all_ignored_and_empty_batch_follow_torch(reduction):
    x = torch.randn(3, 4, dtype=torch.float64)
    ignored = torch.full((3,), -100)
    empty_x, empty_t = torch.randn(0, 4, dtype=torch.float64), torch.zeros(0, dtype=torch.long)
    for name in CASES:
        for xx, tt in ((x, ignored), (empty_x, empty_t)):
            torch.testing.assert_close(
                call(name, xx, tt, reduction=reduction), TF.cross_entropy(xx, tt, reduction=reduction), equal_nan=True
            )


@pytest.mark.parametrize("name", CASES)
def test_reductions_and_ignore_index_for_every_loss(name):
    x, t = batch(n=6, c=5, seed=9)
    t[[1, 4]] = -1
    x[4] = -math.inf  # an ignored, fully masked row must stay harmless
    none = call(name, x, t, reduction="none", ignore_index=-1)
    assert none.shape == (6,) and (none[[1, 4]] == 0).all() and none.isfinite().all()
    kept = t != -1
    torch.testing.assert_close(none[kept], call(name, x[kept], t[kept], reduction="none"))
    torch.testing.assert_close(call(name, x, t, reduction="sum", ignore_index=-1), none.sum())
    torch.testing.assert_close(call(name, x, t, ignore_index=-1), none.sum() / 4)
    grad = _grad(lambda v: call(name, v, t, ignore_index=-1), x)
    assert grad.isfinite().all() and (grad[[1, 4]] == 0).all()
    # an ignore_index inside [0, C) ignores that class, like torch
    t = t[kept]
    by_class = call(name, x[kept], t, reduction="none", ignore_index=0)
    torch.testing.assert_close(by_class, torch.where(t == 0, 0.0, none[kept]))


@pytest.mark.parametrize("name", CASES)
def test_1d_and_nd_layouts(name):
    x, t = batch(n=6, c=5, seed=10)
    rows = call(name, x, t, reduction="none")
    torch.testing.assert_close(call(name, x[2], t[2], reduction="none"), rows[2])
    assert call(name, x[2], t[2]).dim() == 0
    xnd = x.view(2, 3, 5).permute(0, 2, 1)  # (N, C, d1)
    torch.testing.assert_close(call(name, xnd, t.view(2, 3), reduction="none"), rows.view(2, 3))


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "fn, kwargs, match",
    [
        (L.cross_entropy, {"reduction": "avg"}, "reduction must be one of none, mean, sum"),
        (L.cross_entropy, {"reduction": "elementwise_mean"}, "reduction"),
        (L.cross_entropy, {"temperature": 0.0}, "temperature must be"),
        (L.cross_entropy, {"ignore_index": 1.5}, "ignore_index must be an integer"),
        (L.sparse_softmax_loss, {"k": 0}, r"k must be an integer >= 1"),
        (L.sparse_softmax_loss, {"k": 7}, r"k must be an integer in \[1, 5\]"),
        (L.sparse_softmax_loss, {"k": 2.0}, "k must be an integer"),
        (L.entmax_loss, {"alpha": 0.0}, "alpha must be a finite real > 0"),
        (L.entmax_loss, {"alpha": math.inf}, "alpha must be"),
        (L.taylor_cross_entropy, {"order": 3}, "order must be an even integer >= 2"),
        (L.taylor_cross_entropy, {"order": 0}, "order must be"),
        (L.am_softmax_loss, {"margin": -0.1}, r"margin must be in \[0, inf\)"),
        (L.am_softmax_loss, {"scale": 0.0}, r"scale must be in \(0, inf\)"),
        (L.smoothed_cross_entropy, {"eps": 0.0}, r"eps must be in \(0, inf\)"),
        (L.smoothed_cross_entropy, {"eps": -1e-3}, "eps must be"),
        (L.surrogate_loss, {"mapping": "nope"}, "nope"),
        (L.surrogate_loss, {"mapping": "entmax", "alpha": 0.0}, "alpha"),
    ],
)
def test_bad_parameters_raise_value_error_naming_them(fn, kwargs, match):
    x, t = batch(n=3, c=5)
    with pytest.raises(ValueError, match=match):
        fn(x, t, **kwargs)


@pytest.mark.parametrize("name", CASES)
def test_bad_targets_and_inputs_raise_value_error(name):
    x, t = batch(n=3, c=5)
    for bad, match in (
        (torch.tensor([0, 5, 1]), r"target must hold class indices in \[0, 5\) or ignore_index=-100, got 5"),
        (torch.tensor([0, -1, 1]), r"in \[0, 5\).*got -1"),
        (t.double(), "target must be an integer tensor"),
        (t[:2], r"target must have shape \(3,\)"),
    ):
        with pytest.raises(ValueError, match=match):
            call(name, x, bad)
    fn, params = CASES[name]
    with pytest.raises(ValueError, match="must be a floating tensor"):
        fn(torch.ones(3, 5, dtype=torch.long), t, **params)


# ---------------------------------------------------------------- masks and precision

MASKABLE = [name for name in CASES if name != "smoothed"]


@pytest.mark.parametrize("name", MASKABLE)
def test_masked_logits_equal_removing_the_class(name):
    x, t = batch(n=4, c=7, seed=11)
    keep = torch.tensor([0, 2, 3, 5, 6])
    t = keep[torch.tensor([0, 1, 4, 2])]
    masked = x.clone()
    masked[:, [1, 4]] = -math.inf
    value, grad = _grad_and_value(lambda v: call(name, v, t, reduction="none"), masked)
    remap = {int(c): i for i, c in enumerate(keep)}
    reference, ref_grad = _grad_and_value(
        lambda v: call(name, v, torch.tensor([remap[int(c)] for c in t]), reduction="none"), x[:, keep]
    )
    assert value.isfinite().all() and grad.isfinite().all()
    torch.testing.assert_close(value, reference)
    torch.testing.assert_close(grad[:, keep], ref_grad)
    assert (grad[:, [1, 4]] == 0).all()


@pytest.mark.parametrize(
    "name", ["cross_entropy", "sparse_softmax", "sparsemax", "entmax_1.25", "entmax_1.5", "entmax_3"]
)
def test_large_logits_in_float32(name):
    """Shift invariance keeps float32 accurate for logits of size 1e4 (no x^2 - tau^2 cancellation)."""
    x, t = batch(n=6, c=8, seed=14, dtype=torch.float64)
    x = x + 1e4
    value = call(name, x.float(), t, reduction="none")
    assert value.isfinite().all() and (value >= 0).all()
    torch.testing.assert_close(
        value.double(), call(name, x.float().double(), t, reduction="none"), atol=1e-4, rtol=1e-4
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", CASES)
def test_half_precision_is_computed_in_float32(name, dtype):
    x, t = batch(n=5, c=6, seed=12, dtype=torch.float32)
    x = x.to(dtype)
    value, grad = _grad_and_value(lambda v: call(name, v, t, reduction="none"), x)
    assert value.dtype == dtype and grad.dtype == dtype
    reference, ref_grad = _grad_and_value(lambda v: call(name, v, t, reduction="none"), x.float())
    tol = dict(atol=2e-2, rtol=2e-2)
    torch.testing.assert_close(value.float(), reference.to(dtype).float(), **tol)
    torch.testing.assert_close(grad.float(), ref_grad.to(dtype).float(), **tol)


# ---------------------------------------------------------------- the entmax package

entmax_pkg = pytest.importorskip("entmax")


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda x, t, **kw: L.sparsemax_loss(x, t, **kw), lambda **kw: entmax_pkg.SparsemaxLoss(**kw)),
        (lambda x, t, **kw: L.entmax_loss(x, t, alpha=1.5, **kw), lambda **kw: entmax_pkg.Entmax15Loss(k=None, **kw)),
        (
            lambda x, t, **kw: L.entmax_loss(x, t, alpha=1.3, **kw),
            lambda **kw: entmax_pkg.EntmaxBisectLoss(alpha=1.3, n_iter=100, **kw),
        ),
        (
            lambda x, t, **kw: L.entmax_loss(x, t, alpha=2.5, **kw),
            lambda **kw: entmax_pkg.EntmaxBisectLoss(alpha=2.5, n_iter=100, **kw),
        ),
    ],
)
def test_matches_the_entmax_package(ours, theirs):
    """The package has no mean over (N, C) targets named "mean" ("elementwise_mean") and only
    ignores a non-negative ignore_index; values and gradients must agree otherwise."""
    x, t = batch(n=8, c=6, seed=13, scale=3.0)
    for kw_ours, kw_theirs in (
        ({"reduction": "none"}, {"reduction": "none"}),
        ({"reduction": "sum"}, {"reduction": "sum"}),
        ({"reduction": "mean"}, {"reduction": "elementwise_mean"}),
        ({"reduction": "mean", "ignore_index": 0}, {"reduction": "elementwise_mean", "ignore_index": 0}),
    ):
        a, ga = _grad_and_value(lambda v, kw=kw_ours: ours(v, t, **kw), x)
        b, gb = _grad_and_value(lambda v, kw=kw_theirs: theirs(**kw)(v, t), x)
        torch.testing.assert_close(a, b)
        torch.testing.assert_close(ga, gb)
