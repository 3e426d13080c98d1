"""The attention page under AppTest: defaults, extreme and hostile settings, Chinese, and figures
that hold probcore's mappings of the same scores (recomputed here from probcore) with exact zeros
marked, outputs equal to weights @ values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from probcore import functional as F
from helpers import assert_ok, assert_readable, figures, run_app, trace

from views.attention import compute as attention_compute
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["attention"].script
ROWS = ["Softmax", "Sparsemax", "α-entmax (α = {alpha:g})", "Sparse softmax (k = {k})"]


def by_title(at, start: str) -> dict:
    found = [fig for fig in figures(at) if fig["layout"]["title"]["text"].startswith(start)]
    assert found, [fig["layout"]["title"]["text"] for fig in figures(at)]
    return found[0]


def inputs(length=6, dim=4, queries=1, seed=0):
    """The documented draw: queries, keys, values with N(0, 1) entries from default_rng(seed)."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(queries, dim)), rng.normal(size=(length, dim)), rng.normal(size=(length, dim))


def expected_weights(scores: np.ndarray, alpha=1.5, k=2) -> np.ndarray:
    """Rows softmax, sparsemax, entmax(alpha), top-k softmax of every score row: (4, m, L)."""
    s = torch.tensor(scores, dtype=torch.float64)
    return np.stack(
        [
            F.softmax(s).numpy(),
            F.sparsemax(s).numpy(),
            F.entmax(s, alpha=alpha).numpy(),
            F.sparse_softmax(s, k=k).numpy(),
        ]
    )


def heatmap(at) -> dict:
    return by_title(at, "Attention weights of query q₀")


def test_defaults_render_with_readable_figures():
    at = run_app(PAGE)
    assert_ok(at)
    assert at.title[0].value == "Attention"
    figs = figures(at)
    assert len(figs) == 3  # scores, outputs, weights (one query)
    for fig in figs:
        assert_readable(fig)


def test_heat_map_is_probcore_of_the_same_scores_with_exact_zeros_marked():
    at = run_app(PAGE)
    q, k, v = inputs()
    scores = q @ k.T / np.sqrt(4)
    np.testing.assert_allclose(trace(by_title(at, "Scores"), "s")["y"], scores[0], rtol=1e-12)
    fig = heatmap(at)
    z = np.array(fig["data"][0]["z"])
    want = expected_weights(scores)[:, 0]
    np.testing.assert_allclose(z, want, rtol=1e-12, atol=1e-15)
    ticks = fig["layout"]["yaxis"]["ticktext"]
    assert ticks == [r.format(alpha=1.5, k=2) for r in ROWS]
    assert np.count_nonzero(z[1] == 0) >= 1 and np.all(z[0] > 0)  # sparsemax has exact zeros, softmax none
    np.testing.assert_array_equal(z[1] == 0, want[1] == 0)  # exact zeros, not small numbers
    np.testing.assert_array_equal(z[3] > 0, np.isin(np.arange(6), np.argsort(-scores[0])[:2]))  # top-2 only
    zeros = trace(fig, "× = exactly 0", type="scatter")
    marked = {(int(r), int(c)) for r, c in zip(zeros["y"], zeros["x"])}
    assert marked == {(int(r), int(c)) for r, c in zip(*np.nonzero(z == 0))}
    text = np.array(fig["data"][0]["text"])
    assert np.all(text[z == 0] == "") and np.all(text[z > 0] != "")


def test_outputs_are_weights_times_values():
    at = run_app(PAGE, attention_seed=11, attention_scale=3.0, attention_alpha=2.5, attention_k=3)
    assert_ok(at)
    q, k, v = inputs(seed=11)
    weights = expected_weights(3.0 * q @ k.T / 2, alpha=2.5, k=3)[:, 0]
    fig = by_title(at, "Output o")
    for row, w in zip(ROWS, weights):
        bars = trace(fig, row.format(alpha=2.5, k=3), type="bar")
        np.testing.assert_allclose(bars["y"], w @ v, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.array(heatmap(at)["data"][0]["z"]).sum(axis=1), 1.0, atol=1e-9)


def test_several_queries_give_one_panel_per_mapping():
    at = run_app(PAGE, attention_queries=3, attention_L=9, attention_d=2, attention_scale=4)
    assert_ok(at)
    q, k, _ = inputs(length=9, dim=2, queries=3)
    want = expected_weights(4 * q @ k.T / np.sqrt(2))
    fig = by_title(at, "Weights of all 3 queries")
    panels = [tr for tr in fig["data"] if tr["type"] == "heatmap"]
    assert [tr["name"] for tr in panels] == [r.format(alpha=1.5, k=2) for r in ROWS]
    for tr, w in zip(panels, want):
        np.testing.assert_allclose(tr["z"], w, rtol=1e-10, atol=1e-15)
    assert sum(tr["type"] == "scatter" and tr.get("showlegend", True) for tr in fig["data"]) == 1  # one legend key
    assert_readable(fig)


def test_an_edited_query_replaces_the_first_one():
    at = run_app(PAGE, attention_query="[2, 0, 0, −1]")
    assert_ok(at)
    _, k, _ = inputs()
    scores = (np.array([2.0, 0, 0, -1]) @ k.T) / 2
    np.testing.assert_allclose(np.array(heatmap(at)["data"][0]["z"]), expected_weights(scores[None])[:, 0], rtol=1e-12)


@pytest.mark.parametrize(
    "text, word",
    [
        ("1, 2", "d = 4"),
        ("abc", "not a number"),
        ("nan, 1, 2, 3", "value 1"),
        ("1e9, 0, 0, 0", "at most"),
        ("![x](https://example.com/x.png) [a](https://example.com)", "Query not used"),
    ],
)
def test_a_bad_query_gives_an_inline_error_and_the_random_query(text, word):
    at = run_app(PAGE, attention_query=text)
    assert_ok(at, errors=True)
    assert len(at.error) == 1 and word in at.error[0].value.replace("\\", "")
    assert "](" not in at.error[0].value
    q, k, _ = inputs()
    np.testing.assert_allclose(np.array(heatmap(at)["data"][0]["z"]), expected_weights(q @ k.T / 2)[:, 0], rtol=1e-12)


def test_extreme_settings():
    at = run_app(
        PAGE,
        attention_L=16,
        attention_d=1,
        attention_queries=6,
        attention_scale=10,
        attention_alpha=4,
        attention_k=16,
        attention_seed=10**9,
    )
    assert_ok(at)
    assert not at.warning
    q, k, _ = inputs(16, 1, 6, 10**9)
    want = expected_weights(10 * q @ k.T, alpha=4.0, k=16)
    z = np.array(heatmap(at)["data"][0]["z"])
    np.testing.assert_allclose(z, want[:, 0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(z[3], z[0], rtol=1e-12)  # k = L: top-k softmax is softmax
    at = run_app(PAGE, attention_L=2, attention_k=1, attention_scale=0.1)
    assert_ok(at)
    z = np.array(heatmap(at)["data"][0]["z"])
    assert z.shape == (4, 2) and sorted(z[3]) == [0.0, 1.0]


def test_k_larger_than_the_sequence_is_clamped():
    at = run_app(PAGE, attention_k=10)
    assert_ok(at)
    assert any("using k = 6" in c.value for c in at.caption)
    assert heatmap(at)["layout"]["yaxis"]["ticktext"][3] == "Sparse softmax (k = 6)"


def test_widgets_change_the_figure_and_the_url():
    at = run_app(PAGE)
    at.slider(key="attention_L").set_value(4).run()
    at.slider(key="attention_scale").set_value(2.5).run()
    at.text_input(key="attention_query").input("1 1 1 1").run()
    assert_ok(at)
    assert dict(at.query_params) == {"attention_L": "4", "attention_scale": "2.5", "attention_query": "1 1 1 1"}
    _, k, _ = inputs(length=4)
    z = np.array(heatmap(at)["data"][0]["z"])
    np.testing.assert_allclose(z, expected_weights((2.5 * np.ones(4) @ k.T / 2)[None])[:, 0], rtol=1e-12)
    again = run_app(PAGE, **dict(at.query_params))
    assert [f.proto.spec for f in again.get("plotly_chart")] == [f.proto.spec for f in at.get("plotly_chart")]


@pytest.mark.parametrize(
    "params",
    [
        {"attention_L": "99"},
        {"attention_L": "1"},
        {"attention_d": "0"},
        {"attention_d": "x"},
        {"attention_queries": "7"},
        {"attention_seed": "-3"},
        {"attention_scale": "inf"},
        {"attention_scale": "1000"},
        {"attention_scale": "-1"},
        {"attention_alpha": "0.5"},
        {"attention_alpha": "nan"},
        {"attention_k": "0"},
        {"attention_k": "2.5"},
    ],
    ids=lambda p: "&".join(f"{k}={v[:12]}" for k, v in p.items()),
)
def test_hostile_page_parameters_give_a_message_and_the_default(params):
    at = run_app(PAGE, **params)
    assert_ok(at)
    assert at.warning, "expected an inline message"
    q, k, _ = inputs()
    np.testing.assert_allclose(np.array(heatmap(at)["data"][0]["z"]), expected_weights(q @ k.T / 2)[:, 0], rtol=1e-12)


def test_edited_keys_are_checked():
    keys = np.arange(12.0).reshape(6, 2)
    np.testing.assert_array_equal(attention_compute.finite_matrix(pd.DataFrame(keys), (6, 2), 1e3), keys)
    bad = pd.DataFrame(keys)
    bad.iloc[2, 1] = None  # an emptied cell
    assert attention_compute.finite_matrix(bad, (6, 2), 1e3) is None
    text = pd.DataFrame(keys).astype(object)
    text.iloc[0, 0] = "abc"
    assert attention_compute.finite_matrix(text, (6, 2), 1e3) is None
    assert attention_compute.finite_matrix(keys * 1e4, (6, 2), 1e3) is None
    assert attention_compute.finite_matrix(np.full((6, 2), np.inf), (6, 2), 1e3) is None
    assert attention_compute.finite_matrix(keys[:5], (6, 2), 1e3) is None


def test_chinese_interface():
    at = run_app(PAGE, attention_queries=2)
    at.selectbox(key="lang").set_value("zh").run()
    assert_ok(at)
    assert at.title[0].value == "注意力"
    titles = [fig["layout"]["title"]["text"] for fig in figures(at)]
    assert "查询 q₀ 的注意力权重（× = 恰好为 0）" in titles and "全部 2 个查询的权重，每个映射一幅图" in titles
    assert at.slider(key="attention_L").label == "序列长度 L"
