"""The default call on small CUDA inputs takes the sync-free path (functional._ops_applies). Checked
here on the CPU, with the device test forced true, against the eager path (fused=False): the same
p (masks, fully masked rows, NaN rows, large logits, ties, temperatures) and the same gradients on
every row without a NaN (a NaN row's gradient is NaN on the eager path for alpha in [1.25, 2] and 0
elsewhere; the sync-free path gives 0), for every alpha range the dispatch meets (0.7, 1, 1.1, 1.3,
1.5, 1.75, 2, 3), float32 and float64. tests/test_cuda.py holds the real GPU to the CPU."""

import math

import pytest
import torch

import probcore as pc
from probcore import functional

ALPHAS = (0.7, 1.0, 1.1, 1.3, 1.5, 1.75, 2.0, 3.0)
TOL = {torch.float64: 1e-9, torch.float32: 2e-6}


NAN_ROW = 3


def inputs(dtype):
    g = torch.Generator().manual_seed(0)
    x = 3 * torch.randn(6, 9, generator=g, dtype=torch.float64)
    x[1, :4] = -math.inf  # masked entries
    x[2] = -math.inf  # a fully masked row
    x[NAN_ROW, 5] = math.nan  # a NaN row
    x[4] *= 1e4  # large logits
    x[5, 1] = x[5, 2]  # a tie
    return x.to(dtype)


def assert_same(default, eager, tol):
    """p everywhere (NaN where NaN), the gradient on the rows without a NaN."""
    rows = [r for r in range(default[1].shape[0]) if r != NAN_ROW]
    torch.testing.assert_close(default[0], eager[0], atol=tol, rtol=tol, equal_nan=True)
    torch.testing.assert_close(default[1][rows], eager[1][rows], atol=tol, rtol=tol)


def forward_backward(f, x):
    x = x.detach().requires_grad_(True)
    p = f(x)
    w = torch.linspace(-1, 1, x.shape[-1], dtype=x.dtype)
    (g,) = torch.autograd.grad(torch.nan_to_num(p * w).sum(), x)
    return p.detach(), g


@pytest.fixture
def ops_on_cpu(monkeypatch):
    """Count the calls that took the sync-free path, with the device test forced true."""
    taken = []
    monkeypatch.setattr(functional, "_ops_applies", lambda z: taken.append(z.shape) or True)
    return taken


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_sync_free_default_matches_the_eager_path(ops_on_cpu, dtype, alpha, temperature):
    x = inputs(dtype)
    eager = forward_backward(lambda v: pc.entmax(v / temperature, alpha=alpha, fused=False), x)
    default = forward_backward(lambda v: pc.entmax(v / temperature, alpha=alpha), x)
    assert ops_on_cpu or alpha == 1  # alpha = 1 is softmax, which never reaches the dispatch
    assert_same(default, eager, TOL[dtype])


@pytest.mark.parametrize("name", ["sparsemax", "entmax15"])
def test_sparsemax_and_entmax15_take_it_too(ops_on_cpu, name):
    x = inputs(torch.float64)
    f = getattr(pc, name)
    eager = forward_backward(lambda v: f(v, temperature=0.7, fused=False), x)
    default = forward_backward(lambda v: f(v, temperature=0.7), x)
    assert ops_on_cpu
    assert_same(default, eager, 1e-9)


def test_forward_mode_and_double_backward_through_it(ops_on_cpu):
    x = torch.randn(3, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    t = torch.randn_like(x)
    _, jvp = torch.func.jvp(lambda v: pc.entmax(v, alpha=1.3), (x,), (t,))
    _, jvp_eager = torch.func.jvp(lambda v: pc.entmax(v, alpha=1.3, fused=False), (x,), (t,))
    torch.testing.assert_close(jvp, jvp_eager)
    assert torch.autograd.gradgradcheck(lambda v: pc.entmax(v, alpha=1.3), (x.requires_grad_(),))


def test_only_small_cuda_inputs_and_a_float_alpha_take_it():
    cpu = torch.zeros(4, 4)
    assert not functional._ops_applies(cpu)
    meta = torch.empty(2**12, 2**11, device="meta")  # 2**23 entries: the largest that takes it
    big = torch.empty(2**12, 2**11 + 1, device="meta")
    assert meta.numel() == functional._OPS_MAX_NUMEL
    fake_cuda = type("FakeDevice", (), {"type": "cuda"})()
    assert functional._ops_applies(type("Z", (), {"device": fake_cuda, "numel": meta.numel})())
    assert not functional._ops_applies(type("Z", (), {"device": fake_cuda, "numel": big.numel})())


def test_a_tensor_alpha_or_fused_false_keeps_the_eager_path(ops_on_cpu):
    x = inputs(torch.float64)
    pc.entmax(x, alpha=torch.full((6, 1), 1.5, dtype=torch.float64))
    pc.entmax(x, alpha=1.5, fused=False)
    assert not ops_on_cpu
