"""The "Sparsemax from scratch" page under AppTest: the ReLU-power form of entmax and the KKT
threshold, step by step, checked against probcore's entmax and threshold."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_ok, assert_readable, figures, run_app, trace

import probcore
from probcore.threshold import sparsemax_threshold
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["sparse_from_exp"].script
D64 = torch.float64


def test_defaults():
    at = run_app(PAGE)
    assert_ok(at)
    assert len(figures(at)) == 4  # exp vs relu power, entmax from its threshold, KKT, the hard sigmoid
    for fig in figures(at):
        assert_readable(fig)


@pytest.mark.parametrize("logits", ["1.2, 0.3, -0.5", "3, 2.9, 2.8, -1, 0.5, 2.95", "0, 0, 0"])
def test_kkt_steps_give_probcores_threshold(logits):
    at = run_app(PAGE, logits=logits)
    assert_ok(at)
    z = np.array([float(v) for v in logits.split(",")])
    lam = float(sparsemax_threshold(torch.tensor(z).unsqueeze(0))[0])
    s = np.sort(z)[::-1]
    k = np.arange(1, len(z) + 1)
    support = int(k[1 + k * s > np.cumsum(s)].max())
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["z₍ₖ₎"], s)
    assert [v == "yes" for v in table.iloc[:, 4]] == list(1 + k * s > np.cumsum(s))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["support size K"] == str(support) == str(int((probcore.sparsemax(torch.tensor(z)) > 0).sum()))
    assert float(metrics["λ from the steps"]) == pytest.approx(lam, abs=1e-5)
    fig = [f for f in figures(at) if f["layout"]["title"]["text"].startswith("Logits, the threshold")][0]
    np.testing.assert_allclose(
        trace(fig, "p = relu(z − λ)")["y"], probcore.sparsemax(torch.tensor(z)).numpy(), atol=1e-12
    )


@pytest.mark.parametrize("beta", [1.0, 0.5, 0.25])
def test_relu_power_with_threshold_is_entmax(beta):
    at = run_app(PAGE, logits="2, 1, -0.5, 0.7", sfe_beta=beta)
    assert_ok(at)
    x = torch.tensor([2.0, 1.0, -0.5, 0.7], dtype=D64)
    expected = probcore.entmax(x, alpha=1 + beta).numpy()
    fig = [f for f in figures(at) if f["layout"]["title"]["text"].startswith("softmax against")][0]
    by_hand = np.asarray(trace(fig, f"relu(βx − λ)^(1/β), by hand (α = {1 + beta:g})", type="bar")["y"])
    np.testing.assert_allclose(by_hand, expected, atol=1e-9)
    assert by_hand.sum() == pytest.approx(1.0, abs=1e-9)
    if beta == 1.0:
        assert (by_hand == 0).any()  # sparsemax cuts the smallest logit off


def test_chinese_and_hostile_url():
    at = run_app(PAGE, sfe_beta="-1")
    assert at.warning
    at.selectbox(key="lang").set_value("zh").run()  # (lang=zh in the URL trips AppTest's switch_page)
    assert_ok(at, errors=True)
    assert at.title[0].value == "从头推导 sparsemax"
