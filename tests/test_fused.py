"""The fused path (fused=True, probcore.fused): the same 1e-6 / 1e-12 agreement with the sort /
bisection references as the eager path, on the threshold tests' inputs (tests/helpers.py); gradients equal the eager
ones; rows the kernel leaves are recomputed; without a C compiler it warns once and runs eager."""
import warnings

import pytest
import torch

import probcore
from helpers import KINDS, SHAPES, close, make
from probcore import fused
from probcore import threshold as T

ALPHAS = (2.0, 1.5, 1.3, 1.25, 1.75)  # the kernel's range, [1.25, 2]

pytestmark = pytest.mark.skipif(not fused.available(), reason="no C compiler for the fused kernel")


def reference(x, alpha):
    """p along the last dim from the sort-based thresholds (alpha 2, 1.5) or the bisection,
    renormalised as the mappings do; on x minus its row max (the maps are shift invariant), so that
    huge logits keep the digits of p."""
    xmax = x.amax(-1, keepdim=True)
    x = x - xmax.masked_fill(~torch.isfinite(xmax), 0)
    if alpha == 2:
        return (x - T.sparsemax_threshold_sort(x)).clamp(min=0)
    if alpha == 1.5:
        return (x / 2 - T.entmax15_threshold_sort(x / 2)).clamp(min=0) ** 2
    z = (alpha - 1) * x
    q = (z - T.entmax_threshold_bisect(z, torch.tensor(alpha, dtype=x.dtype))).clamp(min=0) ** (1 / (alpha - 1))
    return q / q.sum(-1, keepdim=True).masked_fill(q.sum(-1, keepdim=True) == 0, 1)


def fused_entmax(x, alpha, **kw):
    return probcore.entmax(x, alpha=alpha, fused=True, **kw)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES[:9])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fused_equals_the_references(alpha, kind, shape, dtype):
    x = make(kind, shape, dtype)
    close(fused_entmax(x, alpha), reference(x, alpha))


def test_sparsemax_and_entmax15_entry_points_and_layouts():
    """fused=True on sparsemax / entmax15, any dim, non-contiguous and half-precision input."""
    x = make("random", (8, 300, 5), torch.float32)
    close(probcore.sparsemax(x, dim=1, fused=True), probcore.sparsemax(x, dim=1))
    close(probcore.entmax15(x.transpose(0, 2), fused=True), probcore.entmax15(x.transpose(0, 2)))
    half = x.half()
    torch.testing.assert_close(probcore.sparsemax(half, fused=True, temperature=0.5),
                               probcore.sparsemax(half, temperature=0.5))


def test_nan_and_fully_masked_rows():
    x = make("random", (6, 40), torch.float32)
    x[1, 3] = float("nan")
    x[2, 5] = float("inf")
    x[3] = float("-inf")
    for alpha in (2.0, 1.5, 1.3):
        p = fused_entmax(x, alpha)
        assert p[1].isnan().all() and p[2].isnan().all() and (p[3] == 0).all()
        close(p[[0, 4, 5]], reference(x[[0, 4, 5]], alpha))


@pytest.mark.parametrize("alpha", (2.0, 1.5, 1.3))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gradients_equal_the_eager_gradients(alpha, dtype):
    x = make("wide", (64, 100), dtype)
    x[0, :50] = float("-inf")
    g = make("random", (64, 100), dtype, seed=1)
    eager, fast = x.clone().requires_grad_(), x.clone().requires_grad_()
    probcore.entmax(eager, alpha=alpha).backward(g)
    fused_entmax(fast, alpha).backward(g)
    close(fast.grad, eager.grad, factor=10)


def test_double_backward_flows_through_p():
    """create_graph: the differentiable backward (as on the eager path), second derivatives equal."""
    x = make("random", (5, 30), torch.float64)
    g = make("random", (5, 30), torch.float64, seed=2)
    results = []
    for fused_flag in (False, True):
        leaf = x.clone().requires_grad_()
        (dx,) = torch.autograd.grad((probcore.entmax(leaf, alpha=1.3, fused=fused_flag) ** 2 * g).sum(), leaf,
                                    create_graph=True)
        results.append(torch.autograd.grad(dx.sum(), leaf)[0])
    close(results[1], results[0])


def test_rows_the_kernel_leaves_are_recomputed(monkeypatch):
    """Rows with status 1 (iteration bound reached) get the eager path's p and gradient."""
    kernel_forward = fused.forward

    def leave_every_other_row(z, alpha):
        p, s, status = kernel_forward(z, alpha)
        p.view(-1, z.shape[-1])[::2] = 7.0  # garbage the eager path must replace
        status[::2] = 1
        return p, s, status

    monkeypatch.setattr(fused, "forward", leave_every_other_row)
    x = make("random", (10, 50), torch.float32)
    g = make("random", (10, 50), torch.float32, seed=3)
    for alpha in (2.0, 1.5, 1.3):
        leaf, eager = x.clone().requires_grad_(), x.clone().requires_grad_()
        p = fused_entmax(leaf, alpha)
        close(p, reference(x, alpha))
        p.backward(g)
        probcore.entmax(eager, alpha=alpha).backward(g)
        close(leaf.grad, eager.grad, factor=10)


def test_without_a_compiler_it_warns_once_and_runs_eager(monkeypatch, tmp_path):
    """A failed build (no compiler: CC names none, empty cache): one RuntimeWarning naming the
    cause, then the eager path's results, without further warnings."""
    monkeypatch.setattr(fused, "_library", None)
    monkeypatch.setenv("CC", "no-such-compiler-probcore")
    monkeypatch.setenv("PROBCORE_CACHE", str(tmp_path))
    x = make("random", (16, 64), torch.float32)
    with pytest.warns(RuntimeWarning, match="fused path unavailable.*no C compiler"):
        p = probcore.sparsemax(x, fused=True)
    close(p, probcore.sparsemax(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        close(probcore.entmax(x, alpha=1.3, fused=True), probcore.entmax(x, alpha=1.3))
    assert not fused.available()


@pytest.mark.slow
def test_build_reports_its_compile_time(monkeypatch, tmp_path):
    monkeypatch.setenv("PROBCORE_CACHE", str(tmp_path))
    monkeypatch.setattr(fused, "_library", None)
    seconds = fused.build()
    assert seconds > 0 and fused.compile_seconds is not None and list(tmp_path.glob("fused-*.so"))
    fused.build()  # from the cache now
    assert fused.compile_seconds is None


def test_alphas_outside_the_kernel_and_tensor_alpha_take_the_eager_path():
    x = make("random", (4, 30), torch.float64)
    for alpha in (1.0, 1.1, 0.5, 2.5, 4.0):
        close(probcore.entmax(x, alpha=alpha, fused=True), probcore.entmax(x, alpha=alpha))
    alpha = torch.tensor([[1.3], [2.0], [1.5], [1.0]], dtype=torch.float64)
    close(probcore.entmax(x, alpha=alpha, fused=True), probcore.entmax(x, alpha=alpha))


def test_fused_must_be_a_bool():
    with pytest.raises(ValueError, match="fused must be True or False"):
        probcore.sparsemax(torch.zeros(3), fused="yes")
