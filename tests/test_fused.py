"""The fused path (probcore.fused; the default where it applies, fused=True forces it): the same
1e-6 / 1e-12 agreement with the sort / bisection references as the eager path, on the threshold
tests' inputs (tests/helpers.py); gradients equal the eager ones; rows the kernel leaves are recomputed; the kernel is the
one compiled at install (nothing compiled or written at run time); without it one warning, then
the eager path."""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import probcore
from helpers import KINDS, SHAPES, close, make
from probcore import fused
from probcore import threshold as T

ALPHAS = (2.0, 1.5, 1.3, 1.25, 1.75)  # the kernel's range, [1.25, 2]

# (kernel_path only looks for the file: nothing is loaded or compiled while tests are collected)
needs_kernel = pytest.mark.skipif(fused.kernel_path() is None, reason="probcore/_fused_kernel*.so not built")


def test_the_compiled_kernel_is_present_and_loads():
    """CI and scripts/test.sh install probcore with `pip install -e .`, which builds the kernel in
    place: its absence there is a packaging bug, not a reason to skip."""
    assert fused.kernel_path() is not None, "run `python setup.py build_ext --inplace` (or pip install -e .)"
    assert fused.kernel_path().parent == Path(probcore.__file__).parent
    assert fused.available()


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
    close(probcore.sparsemax(x, dim=1, fused=True), probcore.sparsemax(x, dim=1, fused=False))
    close(probcore.entmax15(x.transpose(0, 2), fused=True), probcore.entmax15(x.transpose(0, 2), fused=False))
    half = x.half()
    torch.testing.assert_close(
        probcore.sparsemax(half, fused=True, temperature=0.5), probcore.sparsemax(half, temperature=0.5, fused=False)
    )


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
    probcore.entmax(eager, alpha=alpha, fused=False).backward(g)
    fused_entmax(fast, alpha).backward(g)
    close(fast.grad, eager.grad, factor=10)


def rows_for_the_backward(n, dtype):
    """12 rows of n entries: N(0, 1) at three scales, ties, -inf entries, a fully -inf row, a NaN row, a constant row."""
    x = torch.cat([make("random", (4, n), dtype, seed=4) * scale for scale in (0.3, 1.0, 5.0)])
    x[3] = x[3].round()  # ties (few distinct values)
    x[4, : n // 2 + 1] = float("-inf")
    x[5, -1] = float("-inf")
    x[6] = float("-inf")
    x[7, n // 3] = float("nan")
    x[8] = x[8, :1]  # constant (every entry tied)
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", (5, 256, 32000))
@needs_kernel
def test_the_backward_from_the_forward_stats_equals_s_from_p(n, dtype):
    """alpha other than 2 and 1.5: the backward's s = p / (c - tau) from the forward's (max, tau)
    (no powers; taken on the rows it reads whole: short rows at alpha < 1.5, wide rows whose support
    spans most blocks) gives dz = s (g - <g, s> / sum s) equal to the p^(2 - alpha) path's (in float64),
    within 2e-5 (float32) / 1e-12 (float64) of max s max |g| per row; stats finite on the plain and -inf-entry
    rows (m the row max), NaN on the NaN and fully -inf rows (whose dz stay NaN / 0); rows with NaN stats take s
    from p (the old path, bit for bit)."""
    assert fused.available()
    x, g = rows_for_the_backward(n, dtype), make("random", (12, n), dtype, seed=5)
    tol = 2e-5 if dtype == torch.float32 else 1e-12
    for alpha in (1.25, 1.3, 1.45, 1.75, 1.99):
        p, status, stats = fused.forward(x, alpha, stats=True)
        assert status is None and stats.shape == (12, 2) and stats.dtype == dtype
        bad = torch.zeros(12, dtype=torch.bool)
        bad[[6, 7]] = True
        solved = stats[:, 1].isfinite()  # (a tie / constant row may end on its bracket, uncertified: NaN)
        assert stats[bad].isnan().all() and solved[[0, 1, 2, 4, 5, 9, 10, 11]].all()
        assert (stats[solved, 0] == x[solved].amax(-1)).all()  # m, the row max
        new, old = fused.backward(g, p, alpha, x, stats), fused.backward(g, p, alpha)
        powers = probcore.functional._entmax_vjp(g.double(), p.double(), alpha)  # s = p^(2 - alpha), float64
        s = p.double().clamp(min=0) ** (2 - alpha) * (p > 0)  # (|dz| <= max s 2 max |g|)
        assert new[7].isnan().all() and (new[6] == 0).all()
        for dz in (old, new):
            error = (dz[~bad].double() - powers[~bad]).abs().amax(-1)
            scale = s[~bad].amax(-1) * g[~bad].abs().amax(-1)  # (not dz's own size: it cancels on near one-hot rows)
            assert (error <= tol * scale).all(), (alpha, (error / scale).max().item())
        half_nan = stats.clone()
        half_nan[::2] = float("nan")
        mixed = fused.backward(g, p, alpha, x, half_nan)
        assert torch.equal(mixed[::2], old[::2]) and torch.equal(mixed[1::2].nan_to_num(), new[1::2].nan_to_num())
    assert fused.forward(x, 2.0, stats=True)[2] is None and fused.forward(x, 1.5, stats=True)[2] is None


def test_changing_the_input_in_place_before_the_backward_raises():
    """A general alpha's backward reads the forward's input (saved, not copied): changing it in place
    before the backward raises autograd's usual error, as for torch's own ops that save their input
    (here pow); alpha 2 / 1.5 save p alone and do not raise."""
    leaf = make("random", (4, 50), torch.float32).requires_grad_()
    for mapping in (lambda y: probcore.entmax(y, alpha=1.3), lambda y: y.pow(3)):
        y = leaf * 1
        out = mapping(y)
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    for alpha in (2.0, 1.5):
        y = leaf * 1
        out = probcore.entmax(y, alpha=alpha)
        y.add_(1)
        out.sum().backward()


def test_double_backward_flows_through_p():
    """create_graph: the differentiable backward (as on the eager path), second derivatives equal."""
    x = make("random", (5, 30), torch.float64)
    g = make("random", (5, 30), torch.float64, seed=2)
    results = []
    for fused_flag in (False, True):
        leaf = x.clone().requires_grad_()
        (dx,) = torch.autograd.grad(
            (probcore.entmax(leaf, alpha=1.3, fused=fused_flag) ** 2 * g).sum(), leaf, create_graph=True
        )
        results.append(torch.autograd.grad(dx.sum(), leaf)[0])
    close(results[1], results[0])


def test_rows_the_kernel_leaves_are_recomputed(monkeypatch):
    """Rows with status 1 (iteration bound reached) get the eager path's p and gradient."""
    kernel_forward = fused.forward

    def leave_every_other_row(z, alpha, stats=False):
        p, _, row_stats = kernel_forward(z, alpha, stats)
        p.view(-1, z.shape[-1])[::2] = 7.0  # garbage the eager path must replace
        if row_stats is not None:
            row_stats[::2] = 0.5  # garbage too: those rows' backward must take s from p
        status = torch.zeros(p.numel() // z.shape[-1], dtype=torch.int32)
        status[::2] = 1
        return p, status, row_stats

    monkeypatch.setattr(fused, "forward", leave_every_other_row)
    x = make("random", (10, 50), torch.float32)
    g = make("random", (10, 50), torch.float32, seed=3)
    for alpha in (2.0, 1.5, 1.3):
        leaf, eager = x.clone().requires_grad_(), x.clone().requires_grad_()
        p = fused_entmax(leaf, alpha)
        close(p, reference(x, alpha))
        p.backward(g)
        probcore.entmax(eager, alpha=alpha, fused=False).backward(g)
        close(leaf.grad, eager.grad, factor=10)


def test_without_the_compiled_kernel_it_warns_once_and_runs_eager(monkeypatch):
    """No compiled kernel beside the package (installed without a compiler): one RuntimeWarning
    naming the cause, on the first call that would use it (the default fused=None too), then the
    eager path's results without further warnings."""
    monkeypatch.setattr(fused, "_library", None)
    monkeypatch.setattr(fused, "kernel_path", lambda: None)
    x = make("random", (16, 64), torch.float32)
    with pytest.warns(RuntimeWarning, match="fused path unavailable.*no compiled kernel"):
        p = probcore.sparsemax(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = probcore.entmax(x, alpha=1.3, fused=True)
    assert not fused.available()
    monkeypatch.undo()
    close(p, probcore.sparsemax(x, fused=False))
    close(again, probcore.entmax(x, alpha=1.3, fused=False))


@needs_kernel
def test_the_default_takes_the_kernel_where_it_applies(monkeypatch):
    """fused=None (default): the kernel for a float alpha in [1.25, 2] on CPU float rows; fused=False,
    n_iter, a tensor alpha or an alpha outside that range: the eager path."""
    calls = []
    kernel_forward = fused.forward
    monkeypatch.setattr(
        fused, "forward", lambda z, alpha, stats=False: calls.append(alpha) or kernel_forward(z, alpha, stats)
    )
    x = make("random", (8, 40), torch.float32)
    probcore.sparsemax(x)
    probcore.entmax15(x.double())
    probcore.entmax(x, alpha=1.3)
    probcore.entmax(x.half(), alpha=1.75)
    assert calls == [2.0, 1.5, 1.3, 1.75]
    probcore.sparsemax(x, fused=False)
    probcore.entmax(x, alpha=1.3, n_iter=5)
    probcore.entmax(x, alpha=torch.full((8, 1), 1.3))
    probcore.entmax(x, alpha=1.1)
    probcore.entmax(x, alpha=3.0)
    assert len(calls) == 4


@needs_kernel
def test_import_and_fused_calls_write_nothing_and_compile_nothing(tmp_path):
    """A fresh process with an empty HOME and no compiler on PATH: import probcore, run the
    fused path forward and backward; the home directory stays empty, no warning."""
    root = Path(probcore.__file__).parent.parent
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import torch, probcore\n"
        "x = torch.randn(64, 100, requires_grad=True)\n"
        "probcore.entmax(x, alpha=1.3, fused=True).sum().backward()\n"
        "assert probcore.fused._library, 'kernel not loaded'\n"
    )
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "PATH": "/nonexistent",
        "CC": "no-such-compiler",
        "PYTHONPATH": str(root),
    }
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_alphas_outside_the_kernel_and_tensor_alpha_take_the_eager_path():
    x = make("random", (4, 30), torch.float64)
    for alpha in (1.0, 1.1, 0.5, 2.5, 4.0):
        close(probcore.entmax(x, alpha=alpha, fused=True), probcore.entmax(x, alpha=alpha))
    alpha = torch.tensor([[1.3], [2.0], [1.5], [1.0]], dtype=torch.float64)
    close(probcore.entmax(x, alpha=alpha, fused=True), probcore.entmax(x, alpha=alpha))


def test_fused_must_be_a_bool():
    with pytest.raises(ValueError, match="fused must be None"):
        probcore.sparsemax(torch.zeros(3), fused="yes")
