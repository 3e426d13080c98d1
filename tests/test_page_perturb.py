"""The perturb-max & Gumbel page under AppTest: defaults, extreme and hostile settings, Chinese,
and figures that hold probcore's numbers (recomputed here from probcore, not from the page)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from probcore import functional as F
from probcore._validate import NOISES
from helpers import assert_ok, assert_readable, figures, perturbmax_nested as nested, run_app, trace

from explorer.drawing.prose import HEADING
from views.perturb import compute as perturb_compute
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["perturb"].script
DEFAULT_X = [1.2, 0.3, -0.5]
NOISE_LABELS = {"gumbel": "Gumbel", "normal": "normal", "uniform": "uniform", "logistic": "logistic"}


def section_headings(at) -> list[str]:
    """The page's section headings (h3: "### " lines of its Markdown, explorer/drawing/prose.py), in order."""
    return [line[len(HEADING) :] for m in at.markdown for line in m.value.splitlines() if line.startswith(HEADING)]


def formulas(at) -> list[str]:
    """The display formulas ($$ ... $$, as st.latex writes them) of the page's Markdown, in order."""
    return [f for m in at.markdown for f in re.findall(r"\$\$\n(.+?)\n\$\$", m.value, flags=re.S)]


def by_title(at, start: str) -> dict:
    found = [fig for fig in figures(at) if fig["layout"]["title"]["text"].startswith(start)]
    assert found, [fig["layout"]["title"]["text"] for fig in figures(at)]
    return found[0]


def test_defaults_render_and_every_figure_is_readable():
    at = run_app(PAGE)
    assert_ok(at)
    assert at.title[0].value == "Perturb-max & Gumbel"
    figs = figures(at)
    assert len(figs) == 6
    for fig in figs:
        assert_readable(fig)
    assert len(formulas(at)) >= 3  # Gumbel-max, perturb-max, Gumbel-softmax formulas
    assert section_headings(at)[:4] == [
        "Gumbel-max: sampling softmax with an argmax",
        "Perturb-max: other noises",
        "Gumbel-softmax: a soft, differentiable sample",
        "Quantiles instead of samples, and a smooth accuracy",
    ]


def test_gumbel_max_histogram_is_the_seeded_sample_and_sums_to_one():
    at = run_app(PAGE, seed=7)
    fig = by_title(at, "Share of argmax")
    freq = np.array(trace(fig, "frequency of argmax(x + g)")["y"])
    assert freq.sum() == pytest.approx(1.0, abs=1e-12)
    expected = nested(DEFAULT_X, "gumbel", 1000, 7)[-1]
    np.testing.assert_array_equal(freq, expected)
    assert np.all(freq * 1000 == np.round(freq * 1000))  # counts out of N = 1000
    softmax = np.array(trace(fig, "softmax(x), exact")["y"])
    np.testing.assert_allclose(softmax, F.softmax(torch.tensor(DEFAULT_X, dtype=torch.float64)).numpy(), atol=1e-15)
    other_seed = np.array(trace(by_title(run_app(PAGE, seed=8), "Share of argmax"), "frequency of argmax(x + g)")["y"])
    assert not np.array_equal(other_seed, freq)  # the seed matters


def test_error_curve_follows_the_nested_samples_and_shrinks_like_one_over_sqrt_n():
    at = run_app(PAGE, perturb_samples=100000)
    assert_ok(at)
    fig = by_title(at, "Error of the Gumbel-max")
    rows = nested(DEFAULT_X, "gumbel", 100000, 0)
    p = F.softmax(torch.tensor(DEFAULT_X, dtype=torch.float64)).numpy()
    tv = trace(fig, "total variation ½ Σ |fᵢ − pᵢ|")
    np.testing.assert_array_equal(tv["x"], perturb_compute.SAMPLE_GRID)
    np.testing.assert_allclose(tv["y"], 0.5 * np.abs(rows - p).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(
        trace(fig, "largest error maxᵢ |fᵢ − pᵢ|")["y"], np.abs(rows - p).max(axis=1), rtol=1e-12
    )
    clt = np.array(trace(fig, "central-limit expectation Σ √(pᵢ(1 − pᵢ)/(2πN))")["y"])
    np.testing.assert_allclose(
        clt * np.sqrt(perturb_compute.SAMPLE_GRID), np.sqrt(p * (1 - p)).sum() / np.sqrt(2 * np.pi)
    )
    y = np.array(tv["y"])
    assert y[-1] < y[0] / 10  # 10^4 times more samples: the error drops by far more than 10
    assert y[-1] < 3 * clt[-1]


@pytest.mark.parametrize("logits", ["1.2, 0.3, -0.5", "3, 0, -1, 2, 0.5"])
def test_quadrature_bars_equal_probcore_perturbmax_and_markers_the_monte_carlo(logits):
    x = [float(v) for v in logits.split(",")]
    at = run_app(PAGE, logits=logits, perturb_samples=2000, seed=3)
    assert_ok(at)
    fig = by_title(at, "Perturb-max p")
    for noise in NOISES:
        bars = trace(fig, f"{NOISE_LABELS[noise]}: quadrature", type="bar")
        exact = F.perturbmax(torch.tensor(x, dtype=torch.float64), noise=noise).numpy()
        np.testing.assert_allclose(bars["y"], exact, rtol=1e-12, atol=1e-15)
        marks = trace(fig, f"{NOISE_LABELS[noise]}: Monte-Carlo", type="scatter")
        np.testing.assert_array_equal(marks["y"], nested(x, noise, 2000, 3)[-1])
    gumbel = trace(fig, "Gumbel: quadrature", type="bar")["y"]
    np.testing.assert_allclose(gumbel, F.softmax(torch.tensor(x, dtype=torch.float64)).numpy(), atol=1e-10)
    errors = by_title(at, "Total variation between")
    normal = trace(errors, "normal")
    exact = F.perturbmax(torch.tensor(x, dtype=torch.float64), noise="normal").numpy()
    np.testing.assert_allclose(normal["y"], 0.5 * np.abs(nested(x, "normal", 2000, 3) - exact).sum(axis=1), rtol=1e-9)


def test_gumbel_softmax_samples_come_from_the_seed_and_hard_is_their_one_hot():
    at = run_app(PAGE, seed=5, perturb_tau="0.5", perturb_draws=4)
    assert_ok(at)
    fig = by_title(at, "4 Gumbel-softmax samples at T = 0.5")
    soft, hard = (np.array(tr["z"]) for tr in fig["data"] if tr["type"] == "heatmap")
    batch = torch.tensor([DEFAULT_X] * 4, dtype=torch.float64)
    expected = F.gumbel_softmax(batch, temperature=0.5, generator=torch.Generator().manual_seed(5)).numpy()
    np.testing.assert_allclose(soft, expected, rtol=1e-12)
    np.testing.assert_allclose(soft.sum(axis=1), 1.0)
    np.testing.assert_array_equal(hard, np.eye(3)[soft.argmax(axis=1)])


@pytest.mark.parametrize("tau, low, high", [("0.01", 0.97, 1.0), ("100", 1 / 3, 0.36)])
def test_extreme_temperatures_give_one_hot_or_flat_samples(tau, low, high):
    at = run_app(PAGE, perturb_tau=tau, perturb_draws=12)
    assert_ok(at)
    fig = by_title(at, "12 Gumbel-softmax samples")
    soft = np.array(fig["data"][0]["z"])
    assert low <= soft.max(axis=1).mean() <= high
    curve = by_title(at, "How close to one-hot")
    mean_max = np.array(trace(curve, "mean maxᵢ yᵢ")["y"])
    assert mean_max[0] > 0.97 and mean_max[-1] < 0.36  # T = 0.01 ... 100
    assert np.all(np.diff(mean_max) <= 1e-12)  # the same noise at every T: monotone
    star = trace(curve, f"chosen T = {float(tau):g}")
    assert star["x"] == [float(tau)]


def test_two_classes_and_few_samples():
    at = run_app(PAGE, logits="0.5, -0.5", perturb_samples=10, perturb_draws=1, show="softmax")  # k = 3 > n
    assert_ok(at)
    freq = np.array(trace(by_title(at, "Share of argmax"), "frequency of argmax(x + g)")["y"])
    assert len(freq) == 2 and freq.sum() == pytest.approx(1.0) and np.all(freq * 10 % 1 == 0)
    assert len(trace(by_title(at, "Error of the Gumbel-max"), "total variation ½ Σ |fᵢ − pᵢ|")["x"]) == 1


def test_large_n_shows_the_top_classes():
    at = run_app(PAGE, preset="random", n=300, seed=2)
    assert_ok(at)
    assert sum("showing the 50 classes" in c.value for c in at.caption) == 1
    fig = by_title(at, "Perturb-max p")
    bars = trace(fig, "normal: quadrature", type="bar")
    assert len(bars["y"]) == 50
    x = torch.tensor(np.round(np.random.default_rng(2).normal(0.0, 1.5, 300), 2) + 0.0, dtype=torch.float64)
    exact = F.perturbmax(x, noise="normal").numpy()
    np.testing.assert_allclose(bars["y"], exact[bars["customdata"]], rtol=1e-12, atol=1e-15)
    assert set(np.argsort(-exact)[:10]) <= set(bars["customdata"])  # the most probable classes are shown
    hist = trace(by_title(at, "Share of argmax"), "frequency of argmax(x + g)")
    assert np.sum(hist["y"]) <= 1.0 + 1e-12


def test_huge_n_caps_the_samples_and_keeps_the_uniform_quadrature_of_few_contenders():
    at = run_app(PAGE, preset="random", n=1000, perturb_samples=100000)
    assert_ok(at)
    captions = " ".join(c.value for c in at.caption)
    assert "capped at 10,000" in captions and "Uniform noise is left out" not in captions
    assert [tr for tr in by_title(at, "Perturb-max p")["data"] if tr["name"] == "uniform: quadrature"]
    assert by_title(at, "Share of argmax")["layout"]["title"]["text"].endswith("N = 10,000 draws against softmax(x)")


def test_uniform_quadrature_is_skipped_when_too_many_logits_can_win():
    at = run_app(PAGE, preset="uniform", n=1000)  # all 1000 within 1 of the max
    assert_ok(at)
    assert "here m = 1000" in " ".join(c.value for c in at.caption)
    assert not [tr for tr in by_title(at, "Perturb-max p")["data"] if tr["name"].startswith("uniform")]


def test_noise_choice_from_the_url_and_none_selected():
    at = run_app(PAGE, perturb_noises="normal,logistic")
    assert_ok(at)
    names = {tr["name"] for tr in by_title(at, "Perturb-max p")["data"]}
    assert names == {"normal: quadrature", "logistic: quadrature", "normal: Monte-Carlo", "logistic: Monte-Carlo"}
    at = run_app(PAGE, perturb_noises="")
    assert_ok(at)
    assert any("at least one noise" in i.value for i in at.info)


def test_widgets_change_the_figures_and_the_url():
    at = run_app(PAGE)
    at.select_slider(key="perturb_samples").set_value(50).run()
    at.select_slider(key="perturb_tau").set_value(0.05).run()
    at.slider(key="perturb_draws").set_value(2).run()
    assert_ok(at)
    assert dict(at.query_params) == {"perturb_samples": "50", "perturb_tau": "0.05", "perturb_draws": "2"}
    freq = np.array(trace(by_title(at, "Share of argmax"), "frequency of argmax(x + g)")["y"])
    np.testing.assert_array_equal(freq, nested(DEFAULT_X, "gumbel", 50, 0)[-1])
    assert by_title(at, "2 Gumbel-softmax samples at T = 0.05")
    again = run_app(PAGE, **dict(at.query_params))  # the URL restores the view
    assert [f.proto.spec for f in again.get("plotly_chart")] == [f.proto.spec for f in at.get("plotly_chart")]


@pytest.mark.parametrize(
    "params",
    [
        {"perturb_samples": "abc"},
        {"perturb_samples": "7"},
        {"perturb_samples": "1e9"},
        {"perturb_tau": "0"},
        {"perturb_tau": "-1"},
        {"perturb_tau": "nan"},
        {"perturb_tau": "inf"},
        {"perturb_draws": "0"},
        {"perturb_draws": "99"},
        {"perturb_draws": "2.5"},
        {"perturb_noises": "cauchy"},
        {"perturb_noises": "normal,[x](https://example.com)"},
    ],
    ids=lambda p: "&".join(f"{k}={v[:12]}" for k, v in p.items()),
)
def test_hostile_page_parameters_give_a_message_and_the_default(params):
    at = run_app(PAGE, **params)
    assert_ok(at)
    assert at.warning, "expected an inline message"
    for message in at.warning:
        assert "](" not in message.value
    assert len(figures(at)) == 6


def test_hostile_sidebar_parameters_keep_the_page_usable():
    at = run_app(PAGE, logits="1, nan", seed="-4", n="0")
    assert_ok(at, errors=True)
    assert at.error
    assert len(figures(at)) == 6  # the default logits stand in


def test_chinese_interface():
    at = run_app(PAGE)
    at.selectbox(key="lang").set_value("zh").run()
    assert_ok(at)
    assert at.title[0].value == "Perturb-max 与 Gumbel"
    assert section_headings(at)[:3] == [
        "Gumbel-max：用 argmax 从 softmax 中采样",
        "Perturb-max：换用其他噪声",
        "Gumbel-softmax：可微的软样本",
    ]
    titles = [fig["layout"]["title"]["text"] for fig in figures(at)]
    assert any("argmax(x + g) 的频率" in title for title in titles)
    names = {tr["name"] for tr in by_title(at, "Perturb-max 的 p")["data"]}
    assert "正态：数值积分" in names


def test_a_temperature_off_the_grid_snaps_to_the_nearest_choice():
    at = run_app(PAGE, perturb_tau="0.3")
    assert_ok(at)
    assert any("using the nearest, T = 0.2" in c.value for c in at.caption)
    assert by_title(at, "5 Gumbel-softmax samples at T = 0.2")
    assert at.select_slider(key="perturb_tau").value == 0.2
