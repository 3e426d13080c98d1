"""probcore on CUDA held to probcore on the CPU in float64: every mapping of the registry (conftest's
cases) and every loss, forward and backward, float32 / float64 / half precision, masks, any dim, wide
rows. Skipped without a GPU (CI has none); run on a GPU machine with
``python -m pytest -q tests/test_cuda.py tests/test_torch_func.py``."""

import pytest
import torch

import probcore as pc
from probcore import losses as L

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

SHAPES = [(7, 5), (64, 300), (4, 32000)]
# float32 on the GPU against float64: p within 2e-6, gradients within 2e-5 (relative to their scale)
TOL = {torch.float64: (1e-10, 1e-9), torch.float32: (2e-6, 2e-5)}


def logits(shape, seed=0, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return scale * torch.randn(shape, generator=g, dtype=torch.float64)


def call(case, x, dim=-1):
    """case's mapping on x (any device): a target on x's device, a generator seeded on x's device."""
    params = dict(case.params)
    if case.mapping.needs_target:
        shape = [s for d, s in enumerate(x.shape) if d != dim % x.dim()]
        params["target"] = (torch.arange(int(torch.tensor(shape).prod())) % x.shape[dim]).reshape(shape).to(x.device)
    if case.mapping.stochastic:
        params["generator"] = torch.Generator(device=x.device).manual_seed(0)
    if "k" in params:
        params["k"] = min(params["k"], x.shape[dim])
    return case.mapping.forward(x, dim=dim, **params)


def forward_backward(case, x, w, dim=-1):
    x = x.detach().requires_grad_(True)
    p = call(case, x, dim)
    (g,) = torch.autograd.grad((p * w).sum(), x)
    return p.detach(), g


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_cuda_equals_cpu_float64(case, shape, dtype):
    if case.mapping.stochastic:
        pytest.skip("samples: the CUDA generator draws other noise (see test_gumbel_softmax_on_cuda)")
    x, w = logits(shape), logits(shape, seed=1)
    p_ref, g_ref = forward_backward(case, x, w)
    p, g = forward_backward(case, x.to("cuda", dtype), w.to("cuda", dtype))
    p_tol, g_tol = TOL[dtype]
    assert p.dtype == dtype and p.device.type == "cuda"
    torch.testing.assert_close(p.double().cpu(), p_ref, atol=p_tol, rtol=0)
    scale = max(g_ref.abs().max().item(), 1.0)
    torch.testing.assert_close(g.double().cpu(), g_ref, atol=g_tol * scale, rtol=0)


def test_cuda_any_dim_and_non_contiguous(case):
    if case.mapping.stochastic:
        pytest.skip("samples")
    x = logits((5, 9, 4))
    for dim in (0, 1, 2):
        p_ref = call(case, x, dim)
        p = call(case, x.to("cuda").transpose(0, 2).contiguous().transpose(0, 2), dim)
        torch.testing.assert_close(p.cpu(), p_ref, atol=1e-10, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_cuda_half_precision_within_the_dtypes_eps(case, dtype):
    if case.mapping.stochastic:
        pytest.skip("samples")
    x = logits((32, 50)).to(dtype).double()  # the same values in both precisions
    p_ref = call(case, x)
    p = call(case, x.to("cuda", dtype))
    assert p.dtype == dtype and torch.isfinite(p).all()
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(p.double().cpu(), p_ref, atol=2 * eps, rtol=0)


def test_cuda_masks_give_exact_zeros_and_masked_rows_zeros(case):
    if case.mapping.needs_target or case.name == "taylor_softmax":
        pytest.skip("-inf is no cosine; Taylor's polynomial is not defined at -inf")
    x = logits((3, 6))
    x[0, [1, 4]] = -torch.inf
    x[1, :] = -torch.inf
    x[2, 0] = torch.nan
    xc = x.to("cuda").requires_grad_(True)
    p = call(case, xc)
    assert (p[0, [1, 4]] == 0).all()
    assert torch.allclose(p[0].sum().double(), torch.tensor(1.0, dtype=torch.float64, device="cuda"))
    assert (p[1] == 0).all()
    assert torch.isnan(p[2]).all()
    (g,) = torch.autograd.grad(p[:2].sum(), xc)
    assert (g[1] == 0).all() and torch.isfinite(g[0]).all()


def test_gumbel_softmax_on_cuda():
    x = logits((1000, 6)).to("cuda")
    gen = torch.Generator(device="cuda").manual_seed(0)
    soft = pc.gumbel_softmax(x, temperature=0.5, generator=gen)
    hard = pc.gumbel_softmax(x, temperature=0.5, hard=True, generator=gen)
    assert soft.device.type == "cuda" and torch.allclose(soft.sum(-1), torch.ones(1000, dtype=x.dtype, device="cuda"))
    assert ((hard == 0) | (hard == 1)).all() and (hard.sum(-1) == 1).all()
    # the argmax frequencies of hard samples approach softmax(x) (Gumbel-max): 1000 rows of one x
    y = x[:1].expand(20000, -1)
    freq = pc.gumbel_softmax(y, hard=True, generator=gen).mean(0)
    assert (freq - pc.softmax(x[0])).abs().max() < 0.02


LOSSES = {
    "cross_entropy": {},
    "sparsemax_loss": {},
    "entmax_loss": {"alpha": 1.5},
    "neg_prob_loss": {},
    "taylor_cross_entropy": {"order": 2},
    "sparse_softmax_loss": {"k": 3},
    "am_softmax_loss": {"scale": 8.0},
    "surrogate_loss": {"mapping": "sparsemax"},
}


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_cuda_losses_equal_cpu_float64(name, dtype):
    loss = getattr(L, name)
    x = logits((64, 40))
    if name == "am_softmax_loss":
        x = x.tanh()  # cosines
    t = torch.arange(64) % 40
    t[5] = -100  # ignored
    x_ref = x.clone().requires_grad_(True)
    v_ref = loss(x_ref, t, **LOSSES[name])
    (g_ref,) = torch.autograd.grad(v_ref, x_ref)
    xc = x.to("cuda", dtype).requires_grad_(True)
    v = loss(xc, t.to("cuda"), **LOSSES[name])
    (g,) = torch.autograd.grad(v, xc)
    p_tol, g_tol = TOL[dtype]
    assert v.device.type == "cuda"
    assert abs(v.item() - v_ref.item()) <= g_tol * (1 + abs(v_ref.item()))
    torch.testing.assert_close(g.double().cpu(), g_ref, atol=g_tol, rtol=0)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 1.00001, 1.3, 2.0, 3.0])
def test_cuda_entmax_alpha_tensor_and_gradient(alpha):
    x = logits((16, 100))
    a = torch.full((16, 1), alpha, dtype=torch.float64)
    a[::2] += 0.25
    xr, ar = x.clone().requires_grad_(True), a.clone().requires_grad_(True)
    p_ref = pc.entmax(xr, alpha=ar)
    g_ref = torch.autograd.grad((p_ref * torch.arange(100.0, dtype=torch.float64)).sum(), (xr, ar))
    xc, ac = x.cuda().requires_grad_(True), a.cuda().requires_grad_(True)
    p = pc.entmax(xc, alpha=ac)
    g = torch.autograd.grad((p * torch.arange(100.0, dtype=torch.float64, device="cuda")).sum(), (xc, ac))
    torch.testing.assert_close(p.cpu(), p_ref.detach(), atol=1e-10, rtol=0)
    for got, want in zip(g, g_ref):
        torch.testing.assert_close(got.cpu(), want, atol=1e-8, rtol=1e-8)
