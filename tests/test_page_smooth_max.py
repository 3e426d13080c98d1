"""The "Smooth max & properties" page under AppTest: the smooth max and its gradient, the live
property tests (Taylor softmax fails monotonicity and shift invariance), base-b softmax and the
attention saturation, each recomputed here from probcore."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from helpers import figure, assert_ok, assert_readable, figures, run_app, trace

import probcore
from probcore.registry import MAPPINGS
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["smooth_max"].script
D64 = torch.float64


def test_defaults():
    at = run_app(PAGE)
    assert_ok(at)
    assert len(figures(at)) == 6
    for fig in figures(at):
        assert_readable(fig)


def test_smooth_max_bounds_and_gradient():
    at = run_app(PAGE, logits="1, 3, -2, 2.5", smooth_log_T="-0.5")
    assert_ok(at)
    x = torch.tensor([1.0, 3.0, -2.0, 2.5], dtype=D64)
    temperature = 10**-0.5
    fig = figure(at, "The smooth max")
    curve = np.asarray(trace(fig, "T·logsumexp(x/T)")["y"])
    temps = np.asarray(fig["data"][0]["x"])
    assert np.all(curve >= 3.0 - 1e-12) and np.all(curve <= 3.0 + temps * math.log(4) + 1e-12)
    assert curve[0] == pytest.approx(3.0, abs=1e-6)  # T = 0.02: the max
    z = x.clone().requires_grad_(True)
    (temperature * torch.logsumexp(z / temperature, 0)).backward()
    bars = figure(at, "Gradient of the smooth max")
    np.testing.assert_allclose(
        trace(bars, "autograd ∇ of T·logsumexp(x/T)", type="bar")["y"], z.grad.numpy(), atol=1e-12
    )
    np.testing.assert_allclose(z.grad.numpy(), probcore.softmax(x, temperature=temperature).numpy(), atol=1e-12)


def test_property_table_matches_a_direct_check():
    at = run_app(PAGE, smooth_n=4, smooth_draws=100, smooth_shift=2, smooth_seed=3)
    assert_ok(at)
    table = at.dataframe[0].value
    x = torch.tensor(np.random.default_rng(3).normal(0.0, 2.0, (100, 4)), dtype=D64)
    rows = dict(zip(table.iloc[:, 0], zip(table.iloc[:, 1], table.iloc[:, 2])))
    for name in ("softmax", "sparsemax", "taylor_softmax"):
        p = MAPPINGS[name].forward(x)
        broken = ((x[:, :, None] > x[:, None, :]) & (p[:, :, None] < p[:, None, :] - 1e-9)).flatten(1).any(1)
        order, shift = rows[MAPPINGS[name].label]
        assert order == pytest.approx(float(broken.double().mean()))
        assert shift == pytest.approx(float((MAPPINGS[name].forward(x + 2) - p).abs().max()), abs=1e-12)
    assert rows["Taylor softmax"][0] > 0 and rows["Taylor softmax"][1] > 1e-3  # fails both
    assert rows["Softmax"][0] == 0 and rows["Softmax"][1] < 1e-12
    assert any("Taylor softmax breaks the order" in c.value for c in at.caption)


@pytest.mark.parametrize("beta", [-2.0, 0.0, 1.5])
def test_base_b_softmax_is_softmax_of_beta_x(beta):
    at = run_app(PAGE, logits="1, 0, -1", smooth_beta=beta)
    assert_ok(at)
    x = torch.tensor([1.0, 0.0, -1.0], dtype=D64)
    b = math.exp(beta)
    expected = np.array([b**v for v in (1.0, 0.0, -1.0)])
    expected /= expected.sum()
    np.testing.assert_allclose(probcore.softmax(x, beta=beta).numpy(), expected, rtol=1e-12)
    fig = figure(at, "softmax(βx), β")
    np.testing.assert_allclose(np.nan_to_num(fig["data"][0]["y"]), expected, rtol=1e-12)
    if beta == 0:  # uniform: no class is named the most likely
        assert any("no class is the most likely" in c.value for c in at.caption)
        assert not any("the most likely class is" in c.value for c in at.caption)
    else:
        assert any(f"the most likely class is {int(np.argmax(expected))}" in c.value for c in at.caption)


def test_saturation_and_scaling():
    at = run_app(PAGE, smooth_log2_d=8, smooth_sat_seed=1)
    assert_ok(at)
    fig = figure(at, "Mean 1 − Σ p²")
    raw = np.asarray(trace(fig, "softmax(q·k)")["y"])
    scaled = np.asarray(trace(fig, "softmax(q·k/√d)")["y"])
    d = 256
    g = torch.Generator().manual_seed(1 * 7919 + d)
    q = torch.randn(200, d, generator=g, dtype=D64)
    k = torch.randn(16, d, generator=g, dtype=D64)
    for value, scores in ((raw[8], q @ k.T), (scaled[8], q @ k.T / math.sqrt(d))):
        p = probcore.softmax(scores)
        assert value == pytest.approx(float((1 - (p**2).sum(-1)).mean()), rel=1e-12)
    assert raw[-1] < 0.1 < 0.8 < scaled.min()  # saturates without 1/sqrt(d), not with it


def test_chinese_and_hostile_url():
    at = run_app(PAGE, smooth_log_T="x", smooth_n="99")
    assert at.warning
    at.selectbox(key="lang").set_value("zh").run()  # (lang=zh in the URL trips AppTest's switch_page)
    assert_ok(at, errors=True)
    assert at.title[0].value == "光滑最大值与性质"
