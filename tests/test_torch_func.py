"""torch.func (vmap, grad, jacrev, jacfwd) and torch.compile over every mapping (conftest's cases) and
every loss, held to eager autograd: values and gradients equal, Jacobians equal probcore.jacobian.
Each test runs on the CPU and on CUDA when one is present."""

import pytest
import torch
import torch._dynamo
from torch.func import grad, jacfwd, jacrev, vmap

import probcore
from probcore import losses as L
from probcore.jacobian import jacobian

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]
TOL = dict(rtol=1e-9, atol=1e-10)
NOT_FULLGRAPH = {"gumbel_softmax"}  # torch.Generator arguments are not traceable by dynamo (graph breaks)


def logits(shape, device, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (2 * torch.randn(shape, generator=g, dtype=torch.float64)).to(device)


def extra(case, x, device):
    """case's extra keywords (target, generator) for x with the mapped dim last, on device."""
    kw = case.extra(x)
    if "generator" in kw:  # a generator draws on its own device
        kw["generator"] = torch.Generator(device=device).manual_seed(0)
    if "target" in kw:
        kw["target"] = (torch.arange(kw["target"].numel()) % x.shape[-1]).reshape(kw["target"].shape).to(device)
    return kw


def call(case, x, **kw):
    params = {**case.params, **kw}
    if "k" in params:
        params["k"] = min(params["k"], x.shape[-1])
    return case.mapping.forward(x, dim=-1, **params)


@pytest.mark.parametrize("device", DEVICES)
def test_vmap_equals_the_batched_call(case, device):
    x = logits((4, 3, 6), device)
    if case.mapping.stochastic:  # one noise draw shared by the vmapped rows, as in the per-row calls
        got = vmap(lambda r: call(case, r, **extra(case, r, device)), randomness="same")(x)
        want = torch.stack([call(case, r, **extra(case, r, device)) for r in x])
    else:
        kw = extra(case, x, device)
        in_dims = (0, 0) if "target" in kw else (0, None)
        got = vmap(lambda r, t: call(case, r, **({"target": t} if t is not None else {})), in_dims)(x, kw.get("target"))
        want = call(case, x, **kw)
    torch.testing.assert_close(got, want, **TOL)


@pytest.mark.parametrize("transform", [jacrev, jacfwd])
@pytest.mark.parametrize("device", DEVICES)
def test_jacobians_equal_probcore_jacobian(case, transform, device):
    x = logits((6,), device)
    kw = extra(case, x, device)
    options = {"randomness": "same"} if transform is jacfwd and case.mapping.stochastic else {}
    got = transform(lambda v: call(case, v, **extra(case, v, device)), **options)(x)
    torch.testing.assert_close(got, jacobian(case.name, x, **case.params, **kw), **TOL)


@pytest.mark.parametrize("device", DEVICES)
def test_vmap_of_jacrev_gives_every_row_its_jacobian(case, device):
    if case.mapping.stochastic:
        pytest.skip("one noise draw per row: covered by the single-row Jacobian test")
    x = logits((5, 6), device)
    kw = extra(case, x, device)
    if "target" in kw:
        got = vmap(jacrev(lambda r, t: call(case, r, target=t)))(x, kw["target"])
    else:
        got = vmap(jacrev(lambda r: call(case, r)))(x)
    torch.testing.assert_close(got, jacobian(case.name, x, **case.params, **kw), **TOL)


@pytest.mark.parametrize("device", DEVICES)
def test_func_grad_equals_eager_backward(case, device):
    x = logits((3, 6), device, seed=1)
    w = logits((3, 6), device, seed=2)
    leaf = x.clone().requires_grad_()
    (call(case, leaf, **extra(case, x, device)) * w).sum().backward()
    got = grad(lambda v: (call(case, v, **extra(case, v, device)) * w).sum())(x)
    torch.testing.assert_close(got, leaf.grad, **TOL)


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
def test_compiled_values_and_gradients_equal_eager(case, device):
    x = logits((4, 7), device, seed=3)
    w = logits((4, 7), device, seed=4)
    torch._dynamo.reset()
    compiled = torch.compile(
        lambda v: (call(case, v, **extra(case, v, device)) * w).sum(-1),
        backend="aot_eager",
        fullgraph=case.name not in NOT_FULLGRAPH,
    )
    eager_x, compiled_x = x.clone().requires_grad_(), x.clone().requires_grad_()
    want = (call(case, eager_x, **extra(case, x, device)) * w).sum(-1)
    got = compiled(compiled_x)
    torch.testing.assert_close(got, want, **TOL)
    want.sum().backward()
    got.sum().backward()
    torch.testing.assert_close(compiled_x.grad, eager_x.grad, **TOL)


@pytest.mark.parametrize("device", DEVICES)
def test_sparse_mappings_keep_masks_under_transforms(device):
    """-inf entries and fully masked rows under vmap / jacrev: p = 0 there, Jacobian 0, no NaN."""
    x = logits((3, 6), device)
    x[0, :2] = float("-inf")
    x[1] = float("-inf")
    for f in (
        probcore.sparsemax,
        probcore.entmax15,
        lambda v: probcore.entmax(v, alpha=1.3),
        lambda v: probcore.entmax(v, alpha=0.7),
    ):
        torch.testing.assert_close(vmap(f)(x), f(x), **TOL)
        jac = vmap(jacrev(f))(x)
        assert not jac.isnan().any()
        assert (jac[1] == 0).all() and (jac[0, :2] == 0).all() and (jac[0, :, :2] == 0).all()


@pytest.mark.parametrize("device", DEVICES)
def test_alpha_tensor_gradients_under_transforms(device):
    """Per-row alpha (1 for softmax, 0.7 dense, 1.1 smooth, 1.5, 2, 2.5 general): func.grad in x
    and alpha, and jacfwd in alpha, equal eager autograd."""
    x = logits((6, 5), device)
    alpha = torch.tensor([1.0, 0.7, 1.1, 1.5, 2.0, 2.5], dtype=torch.float64, device=device).unsqueeze(-1)
    w = logits((6, 5), device, seed=5)

    def loss(v, a):
        return (probcore.entmax(v, alpha=a) * w).sum()

    leaf_x, leaf_a = x.clone().requires_grad_(), alpha.clone().requires_grad_()
    loss(leaf_x, leaf_a).backward()
    gx, ga = grad(loss, argnums=(0, 1))(x, alpha)
    torch.testing.assert_close(gx, leaf_x.grad, **TOL)
    torch.testing.assert_close(ga, leaf_a.grad, rtol=1e-7, atol=1e-8)
    torch.testing.assert_close(jacfwd(loss, argnums=1)(x, alpha), leaf_a.grad, rtol=1e-7, atol=1e-8)


def test_fused_requests_take_the_transform_path():
    """fused=True inside vmap / grad: the plain-op path, same values and gradients."""
    x = logits((4, 9), "cpu")
    for alpha in (2.0, 1.5, 1.3):
        f = lambda v, a=alpha: probcore.entmax(v, alpha=a, fused=True)  # noqa: E731
        torch.testing.assert_close(vmap(f)(x), probcore.entmax(x, alpha=alpha), **TOL)
        torch.testing.assert_close(vmap(jacrev(f))(x), jacobian("entmax", x, alpha=alpha), **TOL)


# ------------------------------------------------------------------ losses

LOSSES = {
    "cross_entropy": lambda x, t: L.cross_entropy(x, t, temperature=0.8),
    "sparse_softmax_loss": lambda x, t: L.sparse_softmax_loss(x, t, k=3),
    "sparsemax_loss": lambda x, t: L.sparsemax_loss(x, t),
    "entmax_loss_1.5": lambda x, t: L.entmax_loss(x, t, alpha=1.5),
    "entmax_loss_1.3": lambda x, t: L.entmax_loss(x, t, alpha=1.3),
    "entmax_loss_1": lambda x, t: L.entmax_loss(x, t, alpha=1.0),
    "taylor_cross_entropy": lambda x, t: L.taylor_cross_entropy(x, t, order=4),
    "am_softmax_loss": lambda x, t: L.am_softmax_loss(torch.tanh(x), t, margin=0.2, scale=8.0),
    "neg_prob_loss": lambda x, t: L.neg_prob_loss(x, t),
    "surrogate_loss": lambda x, t: L.surrogate_loss(x, t, mapping="entmax15"),
    "smoothed_cross_entropy": lambda x, t: L.smoothed_cross_entropy(probcore.sparsemax(x), t),
}


def loss_inputs(device):
    return logits((5, 6), device, seed=6), torch.tensor([0, 3, 5, 1, 3], device=device)


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("device", DEVICES)
def test_loss_gradients_by_func_equal_eager(name, device):
    """func.grad, jacrev and jacfwd of the mean loss equal eager autograd's gradient."""
    f = LOSSES[name]
    x, t = loss_inputs(device)
    leaf = x.clone().requires_grad_()
    f(leaf, t).backward()
    for transform in (grad, jacrev, jacfwd):
        torch.testing.assert_close(transform(f)(x, t), leaf.grad, **TOL)


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("device", DEVICES)
def test_loss_vmap_per_sample_equals_reduction_none(name, device):
    """vmap of the loss of one sample (a 1-D x) gives each row's loss; vmap(grad) the per-sample
    gradients, equal to eager autograd row by row."""
    f = LOSSES[name]
    x, t = loss_inputs(device)
    per_sample = vmap(f)(x, t)
    torch.testing.assert_close(per_sample, torch.stack([f(r, i) for r, i in zip(x, t)]), **TOL)
    leaf = x.clone().requires_grad_()
    torch.stack([f(r, i) for r, i in zip(leaf, t)]).sum().backward()
    torch.testing.assert_close(vmap(grad(f))(x, t), leaf.grad, **TOL)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("device", DEVICES)
def test_compiled_loss_values_and_gradients_equal_eager(name, device):
    f = LOSSES[name]
    x, t = loss_inputs(device)
    torch._dynamo.reset()
    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    eager_x, compiled_x = x.clone().requires_grad_(), x.clone().requires_grad_()
    want, got = f(eager_x, t), compiled(compiled_x, t)
    torch.testing.assert_close(got, want, **TOL)
    want.backward()
    got.backward()
    torch.testing.assert_close(compiled_x.grad, eager_x.grad, **TOL)


def test_noise_range_carries_torchs_constant_result_mark():
    """probcore marks _noise_range as torch.compiler.assume_constant_result would (without importing
    torch._dynamo at import time): the same attributes on the function."""
    from probcore import perturb

    def marked():
        pass

    torch.compiler.assume_constant_result(marked)
    added = set(vars(marked))
    assert added and {k: getattr(perturb._noise_range, k, None) for k in added} == {k: vars(marked)[k] for k in added}


@pytest.mark.slow
def test_losses_have_no_graph_breaks():
    """torch._dynamo.explain: one graph, no break, for every loss and the sparse mappings."""
    x, t = loss_inputs("cpu")
    fs = {
        **LOSSES,
        "sparsemax": lambda v, _: probcore.sparsemax(v),
        "entmax": lambda v, _: probcore.entmax(v, alpha=1.3),
    }
    for name, f in fs.items():
        torch._dynamo.reset()
        explained = torch._dynamo.explain(f)(x, t)
        assert (explained.graph_count, explained.graph_break_count) == (1, 0), (name, explained.break_reasons)
