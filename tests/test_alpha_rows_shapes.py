"""entmax's tensor alpha: which shapes fit x is numpy / torch broadcasting to x's shape with size 1
along dim (torch.broadcast_shapes(alpha.shape, kept) == kept, at most x's dims), or (B,) for a (B, n)
x, or a single entry of any shape; every other shape raises the coded alpha_shape error, and a bad entry in any row of a (B, 1)
alpha alpha_entries. probcore.functional._alpha_rows writes the broadcast rule out (torch.broadcast_shapes
goes through torch._refs): here it is checked against torch.broadcast_shapes itself."""

import itertools

import pytest
import torch

from probcore.errors import ProbcoreError
from probcore.functional import entmax


def fits_by_torch(shape: tuple, x_shape: tuple, dim: int) -> bool:
    axis = dim % len(x_shape)
    kept = (*x_shape[:axis], 1, *x_shape[axis + 1 :])
    if all(size == 1 for size in shape):  # one alpha (a single entry, any number of dims)
        return True
    if len(x_shape) == 2 and axis == 1 and shape == (x_shape[0],):
        return True
    if len(shape) > len(x_shape):
        return False
    try:
        return torch.broadcast_shapes(shape, kept) == kept
    except RuntimeError:
        return False


@pytest.mark.parametrize("x_shape, dim", [((2, 3), -1), ((2, 3), 0), ((3, 2, 3), -1), ((3, 2, 3), 1), ((4,), 0)])
def test_alpha_shapes_fit_as_torch_broadcasts(x_shape, dim):
    x = torch.linspace(-1.0, 1.0, int(torch.tensor(x_shape).prod())).reshape(x_shape).double()
    for ndim in range(4):
        for shape in itertools.product((0, 1, 2, 3), repeat=ndim):
            alpha = torch.full(shape, 1.5, dtype=torch.float64)
            if fits_by_torch(shape, x_shape, dim):
                p = entmax(x, alpha=alpha, dim=dim)
                assert torch.allclose(p, entmax(x, alpha=1.5, dim=dim), atol=1e-12), shape
            else:
                with pytest.raises(ProbcoreError) as err:
                    entmax(x, alpha=alpha, dim=dim)
                assert err.value.code == "alpha_shape", shape


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), float("-inf")])
def test_a_bad_alpha_entry_is_refused_in_any_row(bad):
    x = torch.zeros(4, 3, dtype=torch.float64)
    alpha = torch.tensor([1.5, 2.0, 1.2, 3.0], dtype=torch.float64)
    for row in range(4):
        given = alpha.clone()
        given[row] = bad
        with pytest.raises(ProbcoreError) as err:
            entmax(x, alpha=given[:, None])
        assert err.value.code == "alpha_entries"
    assert torch.isfinite(entmax(x, alpha=alpha[:, None])).all()
