"""Issue 14.1 in the explorer: the Compare table's loss and gradient use the page's temperature
and beta, as the probabilities beside them do (the expected values come from probcore here)."""

import math

import pytest
import torch

from explorer.drawing import ui
from explorer.session.state import DEFAULT_LOGITS
from probcore import losses
from probcore.registry import MAPPINGS
from helpers import assert_ok, label, run_app

pytestmark = pytest.mark.slow  # whole pages run under AppTest

X = torch.tensor([[float(v) for v in DEFAULT_LOGITS.split(",")]], dtype=torch.float64)
TARGET = torch.tensor([0])


def expected(name, **kw):
    """(loss value, gradient text as the table writes it) of the mapping's loss, from probcore."""
    x = X.clone().requires_grad_(True)
    value = getattr(losses, MAPPINGS[name].loss)(x, TARGET, **kw)
    value.backward()
    return value.item(), ui.vector(x.grad[0].numpy())


def table(at):
    """Compare's table (st.table of formatted text, indexed by the mapping's label)."""
    return at.table[0].value


def test_compare_losses_at_temperature_half():
    at = run_app(temperature=0.5, alpha=1.5, show="softmax,sparsemax,entmax15,entmax")
    assert_ok(at)
    rows = table(at)
    for name, kw in (("softmax", {}), ("sparsemax", {}), ("entmax15", {}), ("entmax", {"alpha": 1.5})):
        value, grad = expected(name, temperature=0.5, **kw)
        assert float(rows.loc[label(name), "loss value"]) == pytest.approx(value, abs=5e-5), name  # shown to 4 decimals
        assert rows.loc[label(name), "∇ₓ loss"] == grad, name
    # p = sparsemax(x / 0.5) is one-hot on the target: loss and gradient are exactly 0
    assert float(rows.loc[label("sparsemax"), "loss value"]) == 0
    assert rows.loc[label("sparsemax"), "∇ₓ loss"] == ui.vector([0.0, 0.0, 0.0])


def test_compare_cross_entropy_at_beta_minus_one_is_softmin_loss():
    at = run_app(beta=-1, show="softmax")
    assert_ok(at)
    rows = table(at)
    value, grad = expected("softmax", beta=-1.0)
    softmin = torch.softmax(-X[0], -1)
    assert value == pytest.approx(-math.log(softmin[0]), abs=1e-12)
    assert float(rows.loc[label("softmax"), "loss value"]) == pytest.approx(value, abs=5e-5)
    assert rows.loc[label("softmax"), "∇ₓ loss"] == grad
