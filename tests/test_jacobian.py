"""probcore.jacobian: closed forms against autograd, the softmax L1 identity, layout and errors."""

import pytest
import torch

from probcore import functional as F
from probcore.jacobian import jacobian

INF = float("inf")


def autograd_rows(fn, x):
    """Per-row Jacobians (..., n, n) of a row-wise fn by torch.autograd.functional.jacobian."""
    flat = x.reshape(-1, x.shape[-1])
    full = torch.autograd.functional.jacobian(lambda v: fn(v.reshape(x.shape)).reshape(flat.shape), flat)
    b = torch.arange(flat.shape[0])
    return full[b, :, b, :].reshape(*x.shape, x.shape[-1])


def x_with_masks():
    x = torch.randn(4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(21))
    x[1, 2] = x[2, 0] = -INF
    x[3] = -INF  # a fully masked row: J = 0
    return x


def test_matches_autograd(case):
    x = x_with_masks()
    jac = jacobian(case.name, x, **case.params, **case.extra(x))
    assert jac.shape == (4, 5, 5) and jac.dtype == x.dtype
    torch.testing.assert_close(jac, autograd_rows(case, x), atol=1e-9, rtol=1e-7)
    assert (jac[3] == 0).all()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_dim_moves_last(case, dim):
    x = torch.randn(3, 4, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(22))
    expected = jacobian(case.name, x.movedim(dim, -1), **case.params, **case.extra(x.movedim(dim, -1)))
    torch.testing.assert_close(jacobian(case.name, x, dim=dim, **case.params, **case.extra(x, dim)), expected)


def test_entmax_per_row_alpha():
    x = x_with_masks()
    alpha = torch.tensor([[1.0], [1.4], [2.0], [2.5]], dtype=torch.float64)
    torch.testing.assert_close(
        jacobian("entmax", x, alpha=alpha), autograd_rows(lambda v: F.entmax(v, alpha=alpha), x), atol=1e-9, rtol=1e-7
    )


def test_softmax_half_l1_norm_is_one_minus_sum_of_squares():
    x = 2 * torch.randn(6, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(23))
    p = F.softmax(x)
    torch.testing.assert_close(jacobian("softmax", x).abs().sum((-2, -1)) / 2, 1 - (p**2).sum(-1))


def test_columns_sum_to_zero_and_rows_too_if_shift_invariant(case):
    """sum_i p_i = 1 => sum_i dp_i/dx_j = 0; p(x + c) = p(x) => sum_j dp_i/dx_j = 0."""
    x = torch.randn(3, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(24))
    jac = jacobian(case.name, x, **case.params, **case.extra(x))
    torch.testing.assert_close(jac.sum(-2), torch.zeros(3, 6, dtype=x.dtype), atol=1e-9, rtol=0)
    if case.mapping.shift_invariant:
        torch.testing.assert_close(jac.sum(-1), torch.zeros(3, 6, dtype=x.dtype), atol=1e-9, rtol=0)
    else:
        assert jac.sum(-1).abs().max() > 1e-3


def test_sparse_softmax_jacobian_lives_on_the_kept_set():
    x = torch.tensor([0.3, 2.0, -1.0, 1.1], dtype=torch.float64)
    jac = jacobian("sparse_softmax", x, k=2)
    p = torch.softmax(x[[1, 3]], 0)
    kept = torch.zeros(4, 4, dtype=x.dtype)
    kept[[1, 1, 3, 3], [1, 3, 1, 3]] = (torch.diag(p) - torch.outer(p, p)).flatten()
    torch.testing.assert_close(jac, kept)


def test_half_input_and_empty_batch():
    jac = jacobian("entmax15", torch.randn(2, 3, 4).half(), dim=1)
    assert jac.shape == (2, 4, 3, 3) and jac.dtype == torch.float16
    assert jacobian("perturbmax", torch.zeros(0, 3), noise="normal").shape == (0, 3, 3)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda x: jacobian("gumbel_softmax", x), "pass generator="),
        (lambda x: jacobian("softmin", x), "mapping must be one of softmax, taylor_softmax"),
        (lambda x: jacobian("softmax", x.long()), "x must be a floating tensor"),
        (lambda x: jacobian("taylor_softmax", x, order=3), "order must be an even integer"),
        (lambda x: jacobian("sparse_softmax", x, k=9), r"k must be an integer in \[1, 3\]"),
    ],
)
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call(torch.zeros(2, 3))
