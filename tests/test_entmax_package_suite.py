"""The entmax package's own tests (entmax==1.3 ships them as entmax/test_*.py), run on probcore.

A thin adapter gives probcore the package's signatures (``entmax_bisect(X, alpha, dim, n_iter,
ensure_sum_one)``, ``Sparsemax(dim, k)``, ``EntmaxBisectLoss(alpha, n_iter, ignore_index,
reduction="elementwise_mean")``, ...). The package's test functions are used as they are: those
that look the function under test up in their module run here with the package's bisection
functions monkeypatched to the adapter (the package's exact sort-based ``sparsemax`` / ``entmax15``
stay, as the references they are there); those that take the function or class under test as an
argument are called with the adapter's. ``n_iter`` and ``k`` are accepted and ignored: probcore
solves to the dtype's resolution and needs no top-k hint. ``ensure_sum_one``: probcore always
renormalises.

Run on probcore (every alpha they use: 0.2, 0.5, 0.75, 1.2, 1.25, 1.5, 1.75, 2.25 and
0.05 + 2.5 u per row):
  test_root_finding: test_sparsemax, test_entmax15, test_sparsemax_grad, test_entmax_grad,
    test_entmax_correct_multiple_alphas, test_entmax_grad_multiple_alphas,
    test_arbitrary_dimension, test_arbitrary_dimension_grad
  test_mask: test_mask (on the adapter's six mappings), test_mask_alphas
  test_losses: test_non_neg, test_loss, test_index_ignored (ignore_index = y[0], a 0-d tensor)
    for every loss but NormmaxBisectLoss
  test_topk: test_mapping (gradcheck of the modules built with k = 3)
Not applicable: normmax_bisect and budget_bisect (test_normmax, test_budget, test_normmax_grad,
test_budget_grad, *_multiple_*: mappings probcore does not have). test_topk's test_entmax_topk /
test_sparsemax_topk compare the package's partial-sort threshold with its full sort (internals);
their inputs (coef 1e-5, 0.5, 1e4 times randn(3, 4, 5), every dim) are re-expressed below as
probcore's p against the package's full-sort p.
"""

import pytest
import torch

import entmax
import entmax.test_losses as upstream_losses
import entmax.test_mask as upstream_mask
import entmax.test_root_finding as upstream_root_finding
import entmax.test_topk as upstream_topk
import probcore as pc
from probcore import losses as L
from probcore import nn as pnn


# ------------------------------------------------------------------ the adapter


def entmax_bisect(X, alpha=1.5, dim=-1, n_iter=50, ensure_sum_one=True):
    return pc.entmax(X, alpha=alpha, dim=dim)


def sparsemax_bisect(X, dim=-1, n_iter=50, ensure_sum_one=True):
    return pc.sparsemax(X, dim=dim)


class Sparsemax(pnn.Sparsemax):
    def __init__(self, dim=-1, k=None):
        super().__init__(dim)


class Entmax15(pnn.Entmax15):
    def __init__(self, dim=-1, k=None):
        super().__init__(dim)


class _Loss(torch.nn.Module):
    """The package's loss modules: reduction in none / sum / elementwise_mean (= probcore's mean:
    the sum over the entries not ignored, divided by their number)."""

    def __init__(self, loss, ignore_index=-100, reduction="elementwise_mean", **params):
        super().__init__()
        assert reduction in ("elementwise_mean", "sum", "none")
        self.loss, self.params = loss, params
        self.params.update(
            ignore_index=ignore_index, reduction="mean" if reduction == "elementwise_mean" else reduction
        )

    def forward(self, X, target):
        return self.loss(X, target, **self.params)


def SparsemaxLoss(k=None, ignore_index=-100, reduction="elementwise_mean"):
    return _Loss(L.sparsemax_loss, ignore_index, reduction)


def SparsemaxBisectLoss(n_iter=50, ignore_index=-100, reduction="elementwise_mean"):
    return _Loss(L.sparsemax_loss, ignore_index, reduction)


def Entmax15Loss(k=100, ignore_index=-100, reduction="elementwise_mean"):
    return _Loss(L.entmax_loss, ignore_index, reduction, alpha=1.5)


def EntmaxBisectLoss(alpha=1.5, n_iter=50, ignore_index=-100, reduction="elementwise_mean"):
    return _Loss(L.entmax_loss, ignore_index, reduction, alpha=alpha)


@pytest.fixture(autouse=True)
def probcore_in_the_package(monkeypatch):
    for module in (upstream_root_finding, upstream_mask):
        monkeypatch.setattr(module, "entmax_bisect", entmax_bisect)
        monkeypatch.setattr(module, "sparsemax_bisect", sparsemax_bisect)


def test_the_adapter_is_what_runs():
    assert upstream_root_finding.entmax_bisect is entmax_bisect and upstream_mask.sparsemax_bisect is sparsemax_bisect
    assert upstream_root_finding.sparsemax is entmax.sparsemax  # the package's exact sort: the reference


# ------------------------------------------------------------------ test_root_finding, as they are

test_sparsemax = upstream_root_finding.test_sparsemax
test_entmax15 = upstream_root_finding.test_entmax15
test_sparsemax_grad = upstream_root_finding.test_sparsemax_grad
test_entmax_grad = upstream_root_finding.test_entmax_grad
test_entmax_correct_multiple_alphas = upstream_root_finding.test_entmax_correct_multiple_alphas
test_entmax_grad_multiple_alphas = upstream_root_finding.test_entmax_grad_multiple_alphas
test_arbitrary_dimension = upstream_root_finding.test_arbitrary_dimension
test_arbitrary_dimension_grad = upstream_root_finding.test_arbitrary_dimension_grad

# ------------------------------------------------------------------ test_mask

test_mask_alphas = upstream_mask.test_mask_alphas
MASK_FUNCS = [
    Sparsemax(dim=1),
    Entmax15(dim=1),
    Sparsemax(dim=1, k=512),
    Entmax15(dim=1, k=512),
    sparsemax_bisect,
    entmax_bisect,
]  # upstream_mask.funcs with the adapter's


@pytest.mark.parametrize("func", MASK_FUNCS)
@pytest.mark.parametrize("dtype", (torch.float32, torch.float64))
def test_mask(func, dtype):
    upstream_mask.test_mask(func, dtype)


# ------------------------------------------------------------------ test_losses

LOSSES = [
    SparsemaxLoss,
    lambda **kw: SparsemaxLoss(k=5, **kw),
    Entmax15Loss,
    lambda **kw: Entmax15Loss(k=5, **kw),
    SparsemaxBisectLoss,
    EntmaxBisectLoss,
]  # upstream_losses.losses without NormmaxBisectLoss
LOSS_IDS = ["sparsemax", "sparsemax_k5", "entmax15", "entmax15_k5", "sparsemax_bisect", "entmax_bisect"]


@pytest.mark.parametrize("Loss", LOSSES, ids=LOSS_IDS)
def test_non_neg(Loss):
    upstream_losses.test_non_neg(Loss)


@pytest.mark.slow
@pytest.mark.parametrize("Loss", LOSSES, ids=LOSS_IDS)
@pytest.mark.parametrize("ignore_index", (False, True))
@pytest.mark.parametrize("reduction", ("sum", "elementwise_mean"))
def test_loss(Loss, ignore_index, reduction):
    upstream_losses.test_loss(Loss, ignore_index, reduction)


@pytest.mark.parametrize("Loss", LOSSES, ids=LOSS_IDS)
def test_index_ignored(Loss):
    upstream_losses.test_index_ignored(Loss)


# ------------------------------------------------------------------ test_topk


@pytest.mark.parametrize("dim", (0, 1, 2))
@pytest.mark.parametrize("Map", (Sparsemax, Entmax15))
def test_mapping(dim, Map):
    upstream_topk.test_mapping(dim, Map)


@pytest.mark.parametrize("dim", (0, 1, 2))
@pytest.mark.parametrize("coef", (0.00001, 0.5, 10000))
@pytest.mark.parametrize(
    "ours, theirs", [(pc.sparsemax, entmax.sparsemax), (pc.entmax15, entmax.entmax15)], ids=["sparsemax", "entmax15"]
)
def test_topk_inputs_against_the_package_full_sort(dim, coef, ours, theirs):
    """test_entmax_topk / test_sparsemax_topk's inputs: probcore's p equals the package's full-sort
    p (k=None) to float32's rounding of p (both work on x - max x)."""
    x = coef * torch.randn(3, 4, 5)
    torch.testing.assert_close(ours(x, dim=dim), theirs(x, dim=dim, k=None), atol=1e-6, rtol=0)
