"""What the pages state, checked against numbers recomputed here from probcore (issue 14's errors):
descent arrows, Taylor softmax's failure of monotonicity, the temperature paths' ends, the
sparsity of perturb-max per noise, the Huffman length at s = 0, the overflow's precision, the
AM-softmax logit ranges, the over-confidence bound at n = k."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from helpers import assert_ok, run_app

import probcore
from explorer import compute, training
from explorer.drawing import ui
from explorer.session import state
from explorer.i18n import EN
from probcore import losses, vocab
from probcore.registry import BOUNDED_NOISES, MAPPINGS
from probcore.check import check_outputs
from views.check import compute as check_compute
from views.loss_landscape import compute as loss_landscape_compute
from views.margin import compute as margin_compute
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

D64 = torch.float64


# ---------------------------------------------------------------- loss plane arrows (error 3)


@pytest.mark.parametrize("name", ["softmax", "sparsemax", "taylor_softmax"])
def test_plane_arrows_are_the_descent_step_of_the_plane_coordinates(name):
    """An arrow is where one gradient step on all three logits moves (x0 - x2, x1 - x2)."""
    radius, m = 2.0, 5
    loss, du, dv = loss_landscape_compute.loss_surface(name, state.default_kw(name), 0, radius, m)
    grid = loss_landscape_compute.plane_grid(radius, m)
    eta = 1e-6
    for iv, iu in [(2, 2), (1, 3), (4, 0)]:
        x = torch.tensor([grid[iu], grid[iv], 0.0], dtype=D64, requires_grad=True)
        fn = getattr(losses, MAPPINGS[name].loss)
        fn(x, torch.tensor(0)).backward()
        step = x.detach() - eta * x.grad
        moved = np.array([step[0] - step[2], step[1] - step[2]]) - np.array([grid[iu], grid[iv]])
        np.testing.assert_allclose(moved, -eta * np.array([du[iv, iu], dv[iv, iu]]), rtol=1e-6, atol=1e-15)
        if MAPPINGS[name].shift_invariant:  # -(2 g0 + g1, g0 + 2 g1), not -(g0, g1)
            g = x.grad.numpy()
            np.testing.assert_allclose([du[iv, iu], dv[iv, iu]], [2 * g[0] + g[1], g[0] + 2 * g[1]], atol=1e-12)


def test_arrow_differs_from_the_partial_gradient_at_zero():
    """At x = 0 the partial gradient (g0, g1) and the step (2 g0 + g1, g0 + 2 g1) are ~27 degrees apart."""
    _, du, dv = loss_landscape_compute.loss_surface("softmax", state.default_kw("softmax"), 0, 1.0, 3)
    g = np.array([-2 / 3, 1 / 3, 1 / 3])
    angle = math.degrees(math.atan2(dv[1, 1], du[1, 1]) - math.atan2(g[1], g[0]))
    assert abs(angle) == pytest.approx(26.57, abs=0.05)


# ---------------------------------------------------------------- Taylor softmax (error 2)


def taylor_ce(t: float, order: int = 2) -> float:
    return float(losses.taylor_cross_entropy(torch.tensor([t, 0.0], dtype=D64), torch.tensor(0), order=order))


def test_taylor_binary_turn_is_where_probcores_loss_turns():
    margins = np.linspace(-3, 3, 241)
    curve = loss_landscape_compute.binary_losses("taylor_softmax", state.default_kw("taylor_softmax"), tuple(margins))
    turn = loss_landscape_compute.taylor_binary_turn(margins, curve)
    assert float(turn["tpeak"]) == pytest.approx(-1.0, abs=0.03)
    assert float(turn["twin"]) == pytest.approx(-3.0, abs=0.03)
    assert taylor_ce(-3.0) == pytest.approx(taylor_ce(1.0), rel=1e-12)  # same loss on both sides
    assert taylor_ce(-2.0) < taylor_ce(-1.0)  # left of the peak, lowering the target logit lowers the loss


def test_loss_page_states_taylors_turn():
    at = run_app(REGISTRY["loss"].script, show="softmax,taylor_softmax")
    assert_ok(at)
    text = " ".join(c.value for c in at.caption)
    assert f"({taylor_ce(-1.0):.4g})" in text and f"{taylor_ce(1.0):.4g}" in text


def test_scaling_flips_taylors_largest_class_and_the_answer_says_so():
    x = torch.tensor([1.0, 0.0, -2.0], dtype=D64)
    before, after = probcore.taylor_softmax(x).numpy(), probcore.taylor_softmax(3 * x).numpy()
    assert before.argmax() == 0 and after.argmax() == 2
    at = run_app(REGISTRY["simplex"].script, logits="1, 0, -2", show="softmax,taylor_softmax")
    at.toggle(key="q_simplex_reveal").set_value(True).run()
    answer = " ".join(m.value for m in at.markdown)
    assert f"{before.max():.3f} (x0) → {after.max():.3f} (x2)" in answer


def test_taylor_small_temperature_limit_is_x_to_the_k():
    x = torch.tensor([1.0, 0.5, -2.0], dtype=D64)
    p = probcore.taylor_softmax(x, temperature=1e-4).numpy()
    np.testing.assert_allclose(p, x.numpy() ** 2 / (x.numpy() ** 2).sum(), atol=1e-3)
    assert "Taylor" in MAPPINGS["taylor_softmax"].params[1].help


# ---------------------------------------------------------------- temperature paths (error 6)


def test_temperature_note_gives_the_true_ends():
    at = run_app(REGISTRY["simplex"].script, show="sparse_softmax,sparsemax,am_softmax", k="2")
    assert_ok(at)
    note = [c.value for c in at.caption if "Ends of the paths" in c.value]
    assert note
    x = torch.tensor([1.2, 0.3, -0.5], dtype=D64)
    low, high = compute.TEMPERATURES[0], compute.TEMPERATURES[-1]
    topk_low = probcore.sparse_softmax(x / low, k=2).numpy()
    topk_high = probcore.sparse_softmax(x / high, k=2).numpy()
    assert 0 < topk_low[1] < 1e-15  # no exact vertex at any finite T
    np.testing.assert_allclose(topk_high[:2], 0.5, atol=0.01)  # uniform on the top 2, not the centre
    assert topk_high[2] == 0
    am_high = probcore.am_softmax(
        x / high, torch.tensor(0), margin=0.35, scale=MAPPINGS["am_softmax"].params[1].default
    )
    assert am_high[0] < 0.3  # the margin stays: not the centre
    for p in (topk_low, topk_high, am_high.numpy()):
        assert ui.vector(p)[1:-1] in note[0], (ui.vector(p), note[0])


# ---------------------------------------------------------------- perturb-max sparsity (error 11)


@pytest.mark.parametrize("noise", ["gumbel", "normal", "uniform", "logistic"])
def test_perturbmax_is_sparse_exactly_for_bounded_noise(noise):
    x = torch.tensor([2.0, 0.5, 0.0], dtype=D64)
    p = probcore.perturbmax(x, noise=noise)
    mapping = MAPPINGS["perturbmax"]
    assert bool((p == 0).any()) == mapping.is_sparse(noise=noise) == (noise in BOUNDED_NOISES)
    if noise == "uniform":
        assert p.tolist() == [1.0, 0.0, 0.0]  # two different logits tied at 0
    assert mapping.sparse  # sparse for some noise


def test_entmax_is_sparse_above_alpha_one():
    x = torch.tensor([3.0, 0.1, -2.5], dtype=D64)
    for alpha in (1.0, 1.5):
        assert bool((probcore.entmax(x, alpha=alpha) == 0).any()) == MAPPINGS["entmax"].is_sparse(alpha=alpha)


# ---------------------------------------------------------------- Huffman at s = 0 (error 9)


@pytest.mark.parametrize("n", [3, 4])
def test_huffman_note_gives_the_uniform_length(n):
    summary = vocab.code_length_summary(vocab.zipf_frequencies(n, 0.0))
    coincide = summary["expected_length"] == pytest.approx(summary["log2_n"])
    assert coincide == (n & (n - 1) == 0)  # only for a power of 2
    at = run_app(REGISTRY["vocab"].script, vocab_n=n, vocab_s=0)
    text = " ".join(c.value for c in at.caption)
    assert f"{summary['expected_length']:.3f} bits against log₂ n = {summary['log2_n']:.3f}" in text


# ---------------------------------------------------------------- check page precision (error 7)


def test_example_overflow_names_float64():
    mapping, params, x, user = check_compute.check_example("softmax_no_max")
    bad = [v for v in check_outputs(x, user, mapping, **params) if not v.ok]
    assert bad and np.abs(x).max() > math.log(np.finfo(np.float64).max)
    for v in bad:
        assert v.fitted["dtype"] == "float64" and "709.8" in v.likely_cause


# ---------------------------------------------------------------- AM-softmax (error 10)


def test_am_softmax_target_logit_range_and_loss_never_zero():
    m, s, classes = 0.35, 30.0, 4
    at_centre = margin_compute.margin_point(classes, 0.0, m, s, 0)
    opposite = margin_compute.margin_point(classes, 180.0, m, s, 0)
    assert at_centre["logits"][0] == pytest.approx(s * (1 - m))
    assert opposite["logits"][0] == pytest.approx(-s * (1 + m))
    assert at_centre["loss"] > 0  # a cross-entropy: far past the band, still not 0
    assert "[−s(1 + m), s(1 − m)]" in EN["margin.explain"]


# ---------------------------------------------------------------- over-confidence bound (error 5)


@pytest.mark.parametrize("eps", [0.01, 0.3])
def test_bounds_coincide_at_n_equal_k(eps):
    for k in (2, 5):
        assert training.logit_gap_bound(k, eps, k) == training.logit_gap_bound(k, eps)
        assert training.logit_gap_bound(k + 3, eps, k) < training.logit_gap_bound(k + 3, eps)
    p_t = math.exp(-eps)  # CE = -log p_t: a loss of eps is p_t = e^-eps exactly
    assert -math.log(p_t) == pytest.approx(eps)
    assert "s_max − s_min" in EN["overconfidence.ce_curve"] and "s_max − s₍ₖ₎" in EN["overconfidence.topk_curve"]
