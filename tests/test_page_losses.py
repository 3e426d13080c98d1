"""The Losses page under AppTest: defaults, hostile URL, Chinese, and every number it states
recomputed here from probcore.losses (surrogate gradient, -p_t's vanishing gradient, the
smoothed CE's flat part and non-convexity, exact zeros from 1/(alpha - 1), multi-label sparsemax)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from helpers import figure, assert_ok, assert_readable, figures, run_app, trace

import probcore
from probcore import losses
from views.losses import compute as losses_compute
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["losses"].script
D64 = torch.float64


def captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_defaults():
    at = run_app(PAGE)
    assert_ok(at)
    assert len(figures(at)) == 8
    for fig in figures(at):
        assert_readable(fig)
    assert at.title[0].value == "Losses"


def test_surrogate_gradient_is_p_minus_onehot():
    at = run_app(PAGE, logits="2, -1, 0.5, 0.4", target=2, show="sparsemax,entmax")
    assert_ok(at)
    fig = figure(at, "Autograd gradient of the surrogate")
    x = torch.tensor([2.0, -1.0, 0.5, 0.4], dtype=D64)
    expected = probcore.sparsemax(x).numpy() - np.eye(4)[2]
    np.testing.assert_allclose(trace(fig, "Sparsemax", type="bar")["y"], expected, atol=1e-12)
    z = x.clone().requires_grad_(True)
    losses.surrogate_loss(z, torch.tensor(2), mapping="entmax", alpha=1.5).backward()
    np.testing.assert_allclose(trace(fig, "α-entmax", type="bar")["y"], z.grad.numpy(), atol=1e-12)


def test_neg_p_gradient_vanishes_where_ce_does_not():
    at = run_app(PAGE, losses_n=5)
    assert_ok(at)
    z = torch.tensor([-6.0, 0, 0, 0, 0], dtype=D64, requires_grad=True)
    losses.neg_prob_loss(z, torch.tensor(0)).backward()
    p0 = math.exp(-6) / (math.exp(-6) + 4)
    assert abs(float(z.grad[0])) == pytest.approx(p0 * (1 - p0), rel=1e-9)
    text = captions(at)
    assert f"−pₜ's {p0 * (1 - p0):.3g}" in text and f"gradient {1 - p0:.3g}" in text


def test_smoothed_cross_entropy_is_flat_then_not_convex():
    eps, n = 1e-2, 3
    at = run_app(PAGE, losses_log_eps=-2, losses_sparse_n=n)
    assert_ok(at)
    x = losses_compute._rows(losses_compute.MARGINS, n)
    p = probcore.sparsemax(x)
    smoothed = losses.smoothed_cross_entropy(
        p, torch.zeros(len(x), dtype=torch.long), eps=eps, reduction="none"
    ).numpy()
    dead = p[:, 0].numpy() == 0
    np.testing.assert_allclose(smoothed[dead], math.log((1 + n * eps) / eps))  # flat: no gradient while p_t = 0
    assert np.diff(smoothed, 2).min() < -1e-3  # not convex
    sparse = losses.sparsemax_loss(x, torch.zeros(len(x), dtype=torch.long), reduction="none").numpy()
    assert np.diff(sparse, 2).min() > -1e-12  # convex
    fig = figure(at, "Losses of sparsemax")
    np.testing.assert_allclose(trace(fig, "−log((pₜ + ε)/(1 + nε)), ε = 1e-02")["y"], smoothed, rtol=1e-10)
    assert f"{math.log((1 + n * eps) / eps):.4g}" in captions(at)


@pytest.mark.parametrize("alpha", [1.5, 2.0, 3.0])
def test_sparse_loss_is_exactly_zero_from_one_over_alpha_minus_one(alpha):
    at = run_app(PAGE, losses_alpha=alpha)
    assert_ok(at)
    t = losses_compute.MARGINS
    x = torch.stack([torch.tensor(t, dtype=D64), torch.zeros(len(t), dtype=D64)], 1)
    loss = losses.entmax_loss(x, torch.zeros(len(t), dtype=torch.long), alpha=alpha, reduction="none").numpy()
    bound = 1 / (alpha - 1)
    assert np.all(loss[t >= bound + 1e-9] == 0) and np.all(loss[t < bound - 1e-9] > 0)
    ce = losses.cross_entropy(x, torch.zeros(len(t), dtype=torch.long), reduction="none").numpy()
    assert ce.min() > 0
    assert f"exactly 0 from t = {t[t >= bound - 1e-9][0]:.4g}" in captions(at)


def test_multilabel_loss_gradient_and_zero():
    z = np.array([1.2, 0.3, -0.5, 0.9])
    q = np.array([0.5, 0.0, 0.0, 0.5])
    value, p, grad = losses_compute.multilabel_sparsemax_loss(z, q)
    eps = 1e-6  # central differences of the loss
    numeric = [
        (
            losses_compute.multilabel_sparsemax_loss(z + eps * e, q)[0]
            - losses_compute.multilabel_sparsemax_loss(z - eps * e, q)[0]
        )
        / (2 * eps)
        for e in np.eye(4)
    ]
    np.testing.assert_allclose(grad, numeric, atol=1e-6)
    np.testing.assert_allclose(grad, probcore.sparsemax(torch.tensor(z)).numpy() - q, atol=1e-12)
    onehot = np.eye(4)[0]  # one label: the ordinary sparsemax loss
    assert losses_compute.multilabel_sparsemax_loss(z, onehot)[0] == pytest.approx(
        float(losses.sparsemax_loss(torch.tensor(z), torch.tensor(0))), abs=1e-12
    )
    at = run_app(PAGE, logits="1.2, 0.3, -0.5, 0.9", losses_labels=2, losses_steps=60)
    assert_ok(at)
    fig = figure(at, "Loss during gradient descent")
    curve = np.asarray(trace(fig, "multi-label sparsemax loss")["y"])
    first_two = np.array([0.5, 0.5, 0.0, 0.0])  # the page's target: labels 0 and 1
    assert curve[0] == pytest.approx(losses_compute.multilabel_sparsemax_loss(z, first_two)[0])
    assert abs(curve[-1]) < 1e-12  # sparsemax reaches q: the loss is 0 (up to rounding)
    assert np.all(curve >= -1e-12)


def test_hostile_url_and_chinese():
    at = run_app(PAGE, losses_n="abc", losses_alpha="1", losses_labels="-4", losses_log_eps="nan")
    assert_ok(at, errors=True)
    assert len(at.warning) >= 3
    at = run_app(PAGE)
    at.selectbox(key="lang").set_value("zh").run()  # (lang=zh in the URL trips AppTest's switch_page)
    assert_ok(at)
    assert at.title[0].value == "损失函数"
