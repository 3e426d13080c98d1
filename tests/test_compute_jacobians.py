"""explorer.compute.jacobians: the Jacobian page's autograd column, computed in one backward pass over a
batch of n copies of the logits (deterministic mappings), is the very same matrix as torch's n backward
passes (torch.autograd.functional.jacobian): the page's "largest difference" to probcore's analytic J
does not move by a bit."""

import numpy as np
import pytest
import torch

from explorer import compute
from explorer.session import state
from probcore.registry import MAPPINGS


@pytest.mark.parametrize("name", list(MAPPINGS))
@pytest.mark.parametrize("n", [3, 7, 40])
def test_the_autograd_jacobian_is_torchs_to_the_bit(name, n):
    x = tuple(float(v) for v in np.random.default_rng(n).normal(0.0, 3.0, n))
    kw = state.default_kw(name)
    target, seed = 1, 5
    analytic, auto = compute.jacobians.__wrapped__(name, x, kw, target, seed)
    expected = torch.autograd.functional.jacobian(
        lambda z: compute.forward(name, z, kw, target, seed), compute.as_tensor(x)
    ).numpy()
    assert auto.shape == (n, n)
    np.testing.assert_array_equal(auto, expected)
    np.testing.assert_allclose(analytic, expected, atol=1e-9)


def test_beyond_the_limit_a_mapping_without_analytic_jacobian_says_why_in_the_explorers_words():
    """perturbmax has no analytic Jacobian: past AUTOGRAD_MAX_N the page says why (n vector-Jacobian
    products), in a message the explorer recognises (and so shows in Chinese too)."""
    from explorer.i18n import messages

    name = next(n for n, m in MAPPINGS.items() if not m.analytic_jacobian)
    x = (0.0,) * (compute.AUTOGRAD_MAX_N + 1)
    with pytest.raises(ValueError, match="n vector-Jacobian products") as error:
        compute.jacobians.__wrapped__(name, x, state.default_kw(name), 0, 5)
    assert messages.message_id(str(error.value)) == "no_analytic_jacobian"
