"""Issue 23, the new user's list: each fix checked against numbers recomputed here (numpy, the
exact maths), each test failing on the old behaviour. Underflow against exact zeros on Compare,
the Jacobian's colour bar on an all-zero matrix, a non-negative entropy, the binary loss slice
(AM-softmax's scale, k > 2), the predict answer's change for Taylor softmax, the multi-label
demo's predicted labels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import assert_ok, figures, run_app, trace

from explorer import compute
from explorer.i18n import EN, catalogue, mapping_label
from explorer.session import state
from views.jacobian import figures as jacobian_figures
from views.loss_landscape import compute as loss_landscape_compute
from views.losses import compute as losses_compute
from views.registry import PAGES as REGISTRY

SMALLEST = 4.9406564584124654e-324  # the smallest positive float64 (a subnormal)


def softmax_log(x: np.ndarray) -> np.ndarray:
    """log softmax by hand (finite for finite logits: every p > 0 in exact arithmetic)."""
    return x - (x.max() + np.log(np.sum(np.exp(x - x.max()))))


# ---------------------------------------------------------------- underflow against exact zeros


def test_float64_has_no_number_between_0_and_its_smallest_positive_one():
    """The words: "float64 has no number between 0 and 4.9e-324": the smallest positive float64 prints
    as 4.9e-324 (its next value down is 0); and a p > 0 just above half of it can still be computed as 0
    (softmax's exp, then its division, each round: reviewer's case), so the page names no other bound."""
    assert np.nextafter(0.0, 1.0) == SMALLEST and f"{SMALLEST:.1e}" == "4.9e-324" and np.nextafter(SMALLEST, 0.0) == 0.0
    from probcore.reference import softmax

    d = -(np.log(2.6e-324))  # p_2 = e^-d / (1 + 1 + e^-d) would be 1.3e-324 > 0 in exact arithmetic
    assert softmax(np.array([0.0, 0.0, -d]))[2] == 0.0


def test_softmax_at_minus_1000_underflows_and_sparsemax_zero_is_exact():
    x = (1.2, 0.3, -1000.0)
    p_soft = compute.probabilities("softmax", x, state.default_kw("softmax"))
    assert p_soft[2] == 0.0 and math.isfinite(softmax_log(np.array(x))[2])  # > 0 exactly, 0 in float64
    assert list(compute.underflows("softmax", x, state.default_kw("softmax"), p_soft)) == [False, False, True]
    p_sparse = compute.probabilities("sparsemax", x, state.default_kw("sparsemax"))
    assert p_sparse[2] == 0.0  # sparsemax: tau = 0.25 (support {0, 1}), -1000 - tau < 0: an exact zero
    assert not compute.underflows("sparsemax", x, state.default_kw("sparsemax"), p_sparse).any()


@pytest.mark.parametrize(
    "name, kw, x, under",
    [
        (
            "sparse_softmax",
            (("k", 2), ("temperature", 1.0), ("top_p", None)),
            (1.0, -900.0, -1000.0),
            [False, True, False],
        ),
        ("entmax", (("alpha", 1.01), ("temperature", 1.0)), (1.0, 0.3, -0.2), None),
        ("perturbmax", (("noise", "uniform"), ("temperature", 1.0)), (2.0, 0.5, 0.0, 1.5), [False] * 4),
        ("taylor_softmax", (("order", 2), ("temperature", 1.0)), (1.0, 0.5, -0.5), [False] * 3),
    ],
)
def test_underflow_follows_each_mappings_definition(name, kw, x, under):
    """top-k: the kept class at -900 is e^-901 / Z > 0 (underflow), the dropped one exactly 0;
    uniform perturb-max: classes 1 and 2 lie >= 1 below the max (can never win: exact zeros)."""
    p = compute.probabilities(name, x, kw)
    got = compute.underflows(name, x, kw, p)
    if under is None:  # entmax 1.01: relu((a-1) z - tau)^100; an entry with base > 0.0006 cannot underflow
        assert not got.any()
    else:
        assert list(got) == under
    if name == "perturbmax":
        assert list(p > 0) == [True, False, False, True]


@pytest.mark.parametrize("alpha", [1.005, 1.01, 1.02, 1.0292, 1.0293, 1.05, 1.3, 1.5, 2.0, 3.0])
def test_a_threshold_mapping_with_normal_p_on_its_support_never_underflows(alpha):
    """compute.normal_on_support: where it holds (sparsemax, 1.5-entmax, alpha-entmax at alpha >= 1.0293),
    underflows needs no positive_exactly: on generated logits (ties, -inf, scales 1e-3 to 1e3, far outliers)
    the full test finds no underflow either; where it does not hold the full test runs, and at
    alpha <= 1.01 finds one near the edge of the support."""
    rng = np.random.default_rng(int(alpha * 1e4))
    for name, kw in (("entmax", (("alpha", alpha), ("temperature", 1.0))), ("sparsemax", ()), ("entmax15", ())):
        kw = kw or state.default_kw(name)
        for _ in range(60):
            n = int(rng.integers(2, 12))
            x = rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3)
            x[rng.random(n) < 0.2] = x.max() - 10.0 ** rng.uniform(0, 3)  # far below the top
            x[rng.random(n) < 0.1] = x[0]  # ties
            if rng.random() < 0.2:
                x[-1] = -np.inf
            x = tuple(float(v) for v in x)
            p = compute.probabilities(name, x, kw)
            full = (p == 0) & compute.positive_exactly(name, x, kw)
            assert list(compute.underflows(name, x, kw, p)) == list(full)
            if compute.normal_on_support(name, kw):
                assert not full.any()
    assert compute.normal_on_support("entmax", (("alpha", alpha),)) == (alpha >= 1.0293)
    if alpha <= 1.01:  # q = 1 / (alpha - 1) >= 100: x1 just inside the support rounds to 0
        x, kw = (0.0, {1.005: -195.3, 1.01: -99.98}[alpha]), (("alpha", alpha), ("temperature", 1.0))
        p = compute.probabilities("entmax", x, kw)
        assert p[1] == 0.0 and list(compute.underflows("entmax", x, kw, p)) == [False, True]


def test_hard_gumbel_softmax_zeros_are_exact():
    kw = (("hard", True), ("temperature", 1.0))
    p = compute.probabilities("gumbel_softmax", (1.0, 0.0, -5.0), kw, 0, 3)
    assert sorted(p) == [0.0, 0.0, 1.0] and not compute.underflows("gumbel_softmax", (1.0, 0.0, -5.0), kw, p).any()
    soft = (("hard", False), ("temperature", 1.0))
    assert compute.positive_exactly("gumbel_softmax", (1.0, 0.0, -5.0), soft).all()


@pytest.mark.slow  # a whole page under AppTest
def test_compare_marks_an_underflow_apart_from_exact_zeros():
    at = run_app(logits="1.2, 0.3, -1000", show="softmax,sparsemax")
    assert_ok(at)
    fig = figures(at)[0]
    soft = [tr for tr in fig["data"] if tr.get("name") == mapping_label("softmax") and tr["type"] == "scatter"]
    assert [tr["marker"]["symbol"] for tr in soft] == ["circle-open"]  # was the exact-zero cross
    sparse = [tr for tr in fig["data"] if tr.get("name") == mapping_label("sparsemax") and tr["type"] == "scatter"]
    assert [tr["marker"]["symbol"] for tr in sparse] == ["x-thin-open"]
    assert {tr["name"] for tr in fig["data"] if tr["x"] == [None]} == {EN["fig.exact_zero"], EN["fig.underflow"]}
    table = at.table[0].value
    assert table.loc[mapping_label("softmax"), EN["col.support"]] == "3 (1 rounded to 0)"  # was "2"
    assert table.loc[mapping_label("sparsemax"), EN["col.support"]] == "2"
    assert any(c.value.startswith("Underflow in Softmax:") for c in at.caption)


# ---------------------------------------------------------------- entropy, Jacobian colour bar


def test_entropy_of_a_one_hot_p_prints_as_0_not_minus_0():
    assert f"{-np.sum(np.array([0.0, 0.0, 0.0])):.4f}" == "-0.0000"  # the old sign
    assert f"{compute.entropy(np.array([1.0, 0.0, 0.0])):.4f}" == "0.0000"
    assert f"{compute.entropy(np.array([1.0 + 2e-16, 0.0])):.4f}" == "0.0000"  # rounding above 1


def test_jacobian_colour_bar_of_an_all_zero_matrix_and_the_gap_between_maps():
    fig = jacobian_figures.jacobian_pair(np.zeros((3, 3)), np.zeros((3, 3)), np.arange(3), "J")
    layout = fig.to_dict()["layout"]
    assert (layout["coloraxis"]["cmin"], layout["coloraxis"]["cmax"]) == (-1.0, 1.0)  # was +-1e-12: "1p"
    assert layout["coloraxis"]["colorbar"]["exponentformat"] == "e"  # never an SI prefix
    assert layout["yaxis2"]["title"]["text"] == EN["fig.jac_y"]
    assert layout["xaxis2"]["domain"][0] - layout["xaxis"]["domain"][1] == pytest.approx(0.24)  # was 0.16


# ---------------------------------------------------------------- the binary loss slice


@pytest.mark.slow  # a whole page under AppTest
def test_binary_slice_axis_is_not_flattened_by_am_softmax():
    at = run_app(REGISTRY["loss"].script, show="softmax,sparsemax,am_softmax")
    assert_ok(at)
    fig = [f for f in figures(at) if f["layout"].get("title", {}).get("text") == EN["loss.binary_title"]][0]
    am = np.array(trace(fig, mapping_label("am_softmax"))["y"], dtype=float)
    t = np.linspace(-3, 3, 241)
    assert am.max() == pytest.approx(30 * (3 + 0.35) + math.log1p(math.exp(-30 * 3.35)), rel=1e-9)  # s (m - t)+
    top = fig["layout"]["yaxis"]["range"][1]
    hinge_top = float(np.max(1 - t))  # 4, at t = -3
    assert top == pytest.approx(1.05 * hinge_top)  # the references' scale, not AM-softmax's 100
    text = " ".join(c.value for c in at.caption)
    assert "reaches 100.5 at t = -3" in text and f"{am.max():.4g}" == "100.5"  # not "100" (.3g, review)


@pytest.mark.slow  # a whole page under AppTest
def test_binary_slice_k_too_large_is_a_translated_note():
    at = run_app(REGISTRY["loss"].script, show="softmax,sparse_softmax", k="3")
    assert_ok(at)
    assert [i.value for i in at.info if "slice" in i.value] == [
        EN["loss.binary_k"].format(mapping=mapping_label("sparse_softmax"), k=3)
    ]
    assert not any("must be an integer" in c.value for c in at.caption)  # the raw error, before
    assert "k ≤ 2" in catalogue("zh")["loss.binary_k"]


def test_binary_axis_top_keeps_curves_of_the_references_scale():
    ref = np.array([[4.0, 0.0], [3.0, 0.0]])
    assert loss_landscape_compute.binary_axis_top({"a": np.array([3.05, 0.0])}, ref) == (pytest.approx(4.2), [])
    assert loss_landscape_compute.binary_axis_top({"b": np.array([100.5, 0.0])}, ref) == (pytest.approx(4.2), ["b"])


# ---------------------------------------------------------------- the predict answer's change


def taylor2(x: np.ndarray) -> np.ndarray:
    f = 1 + x + x**2 / 2
    return f / f.sum()


def test_taylor_changes_between_x_x10_and_x20():
    """Defaults 1.2, 0.3, -0.5: the bars move 0.213 from x to x + 10; from x + 10 to x + 20 only 0.024."""
    x = np.array([1.2, 0.3, -0.5])
    assert np.abs(taylor2(x + 10) - taylor2(x)).max() == pytest.approx(0.2127, abs=5e-5)
    assert np.abs(taylor2(x + 20) - taylor2(x + 10)).max() == pytest.approx(0.0239, abs=5e-5)


@pytest.mark.slow  # a whole page under AppTest
def test_compare_answer_after_the_press_quotes_the_move_the_bars_made():
    at = run_app(show="softmax,sparsemax,taylor_softmax")
    taylor_before = np.array(trace(figures(at)[0], mapping_label("taylor_softmax"), type="bar")["y"])
    at.radio(key="q_compare_guess").set_value(0).run()
    [button] = [b for b in at.button if b.key == "q_compare_action"]
    button.click().run()
    at.toggle(key="q_compare_reveal").set_value(True).run()
    assert_ok(at)
    taylor_after = np.array(trace(figures(at)[0], mapping_label("taylor_softmax"), type="bar")["y"])
    moved = np.abs(taylor_after - taylor_before).max()
    assert moved == pytest.approx(0.2127, abs=5e-5)
    answer = "\n".join(m.value for m in at.markdown)
    assert f"Taylor softmax ({moved:.2g})" in answer  # was (0.024): x + 10 to x + 20
    # a second press: the answer follows the new move (x + 10 to x + 20)
    [button] = [b for b in at.button if b.key == "q_compare_action"]
    button.click().run()
    answer = "\n".join(m.value for m in at.markdown)
    assert "Taylor softmax (0.024)" in answer


# ---------------------------------------------------------------- multi-label predicted labels


@pytest.mark.slow  # a whole page under AppTest
def test_multilabel_tiny_p_is_not_a_predicted_label():
    run = losses_compute.multilabel_training((1.2, 0.3, -0.5), 1, 40, 0.5)
    assert run["p"][1] == pytest.approx(0.5**40 * 0.05, rel=1e-3)  # p1 = 0.05 halves each step: 4.5e-14
    assert run["support"][-1] == 2  # in the support, so the old caption said "support 2"
    assert losses_compute.predicted_labels(run["p"]) == (1, 1, pytest.approx(run["p"][1]))
    at = run_app(REGISTRY["losses"].script, losses_labels="1", losses_steps="40")
    assert_ok(at)
    text = " ".join(c.value for c in at.caption)
    assert "After 40 steps: loss" in text and "1 predicted labels." in text
    assert f"1 more class(es) keep a p > 0 no larger than {run['p'][1]:.2g}" in text


def test_multilabel_step_halves_the_others_once_the_labels_are_in_the_support():
    """p <- (p + q)/2 on S: 4 classes, 2 labels, every class in the support at the start."""
    z = np.array([0.5, 0.45, 0.4, 0.35])
    q = np.array([0.5, 0.5, 0.0, 0.0])
    _, p, grad = losses_compute.multilabel_sparsemax_loss(z, q)
    assert (p > 0).all()
    _, p_next, _ = losses_compute.multilabel_sparsemax_loss(z - 0.5 * grad, q)
    np.testing.assert_allclose(p_next, (p + q) / 2, atol=1e-15)
