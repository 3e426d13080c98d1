"""The margin softmax (AM-softmax) page under AppTest: defaults, extreme and hostile settings,
Chinese, and that what it shows is probcore's AM-softmax (loss, probabilities, loss against m)
and the geometry it claims (regions, no-man's-land only with a margin)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from helpers import assert_ok, assert_readable, figures, run_app, trace

import probcore
from probcore import losses
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["margin"].script


def cosines(classes: int, angle_deg: float) -> np.ndarray:
    """cos theta_j of the unit feature at angle_deg and centres at 2 pi j / C, computed here."""
    return np.cos(np.deg2rad(angle_deg) - 2 * np.pi * np.arange(classes) / classes)


def heatmaps(fig: dict) -> list[np.ndarray]:
    return [np.asarray(tr["z"]) for tr in fig["data"] if tr["type"] == "heatmap"]


def metric(at, start: str) -> str:
    found = [m for m in at.metric if m.label.startswith(start)]
    assert found, [m.label for m in at.metric]
    return found[0].value


def test_defaults():
    at = run_app(PAGE)
    assert_ok(at)
    figs = figures(at)
    assert len(figs) == 3
    for fig in figs:
        assert_readable(fig)
    plain, strict = heatmaps(figs[0])
    assert plain.shape == strict.shape == (200, 200)
    assert at.title[0].value == "Margin softmax"


def test_loss_and_probabilities_are_probcores():
    at = run_app(PAGE, margin_classes=5, margin_m=0.2, margin_s=12, margin_angle=-50, margin_target=4)
    assert_ok(at)
    cos = torch.tensor(cosines(5, -50.0))
    target = torch.tensor(4)
    loss = losses.am_softmax_loss(cos, target, margin=0.2, scale=12.0).item()
    loss0 = losses.am_softmax_loss(cos, target, margin=0.0, scale=12.0).item()
    p = probcore.am_softmax(cos, target, margin=0.2, scale=12.0).numpy()
    p0 = probcore.softmax(12.0 * cos).numpy()
    assert metric(at, "AM-softmax loss") == f"{loss:.4f}"
    assert metric(at, "AM-softmax pₜ") == f"{p[4]:.4f}"
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["cos θⱼ"], cos.numpy(), atol=1e-12)
    np.testing.assert_allclose(table["p (AM-softmax, margin m)"], p, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(table["p (m = 0: softmax(s cos θ))"], p0, rtol=1e-10, atol=1e-300)
    assert any(f"{loss:.4f} with the margin, {loss0:.4f} without" in c.value for c in at.caption)
    # the loss against m is probcore's loss at each m; the target logit falls as s (cos_t - m)
    sweep = figures(at)[2]
    curve = trace(sweep, "loss")
    expected = [losses.am_softmax_loss(cos, target, margin=m, scale=12.0).item() for m in curve["x"]]
    np.testing.assert_allclose(curve["y"], expected, rtol=1e-9)
    assert np.all(np.diff(curve["y"]) > 0)  # a larger margin only makes the loss larger
    target_logit = next(tr for tr in sweep["data"] if tr["name"].startswith("s(cos θₜ − m)"))
    np.testing.assert_allclose(target_logit["y"], 12.0 * (cos[4].item() - np.asarray(target_logit["x"])), atol=1e-9)


def test_status_follows_the_gap():
    # default: 35 degrees, class 0 of 4: gap cos 35 - cos 55 = 0.2456 < 0.35: no-man's-land
    at = run_app(PAGE)
    assert float(metric(at, "gap")) == pytest.approx(math.cos(math.radians(35)) - math.cos(math.radians(55)), abs=1e-4)
    assert any("no-man's-land" in w.value for w in at.warning)
    at.slider(key="margin_angle").set_value(10.0).run()  # gap cos 10 - cos 80 = 0.81 >= 0.35
    assert_ok(at)
    assert any("Counts for class 0" in s.value for s in at.success)
    at.slider(key="margin_angle").set_value(80.0).run()  # class 1 is nearer
    assert any("Misclassified" in i.value for i in at.info)


def test_no_mans_land_only_with_a_margin():
    at = run_app(PAGE, margin_m=0)
    assert_ok(at)
    plain, strict = heatmaps(figures(at)[0])
    assert (strict >= 0).all() and np.array_equal(plain, strict)
    assert any("0.0 % of the directions" in c.value for c in at.caption)

    at = run_app(PAGE, margin_m=0.35)
    plain, strict = heatmaps(figures(at)[0])
    grid = np.asarray(figures(at)[0]["data"][0]["x"], dtype=np.float64)
    xx, yy = np.meshgrid(grid, grid)
    angle = np.arctan2(yy, xx)
    cos = np.cos(angle[..., None] - 2 * np.pi * np.arange(4) / 4)
    top2 = np.sort(cos, axis=-1)[..., -2:]
    gap = top2[..., 1] - top2[..., 0]
    clear = gap > 1e-5  # off the boundaries (the figure's grid is float32)
    np.testing.assert_array_equal(plain[clear], np.argmax(cos, axis=-1)[clear])
    none = strict == -1
    assert 0.2 < none.mean() < 0.6
    assert (gap[none] < 0.35 + 1e-5).all() and (gap[~none] >= 0.35 - 1e-5).all()
    assert np.array_equal(strict[~none], plain[~none])  # where a class counts, it is the argmax class


@pytest.mark.parametrize("classes", [2, 8])
@pytest.mark.parametrize("m", [0.0, 1.0])
@pytest.mark.parametrize("s", [1.0, 64.0])
def test_extreme_settings(classes, m, s):
    at = run_app(PAGE, margin_classes=classes, margin_m=m, margin_s=s, margin_target=classes - 1, margin_angle=180)
    assert_ok(at)
    figs = figures(at)
    plain, strict = heatmaps(figs[0])
    assert set(np.unique(plain)) == set(range(classes))
    if m == 0:
        assert (strict >= 0).all()
    elif classes == 8:  # neighbours 45 degrees apart: the best gap 1 - cos 45 < 1, no class anywhere
        assert (strict == -1).all()
        assert any("no direction qualifies" in w.value for w in at.warning)
    else:  # two classes: a gap of 2 cos theta, so |cos theta| >= 1/2 counts
        assert 0 < (strict == -1).mean() < 1
    cos = torch.tensor(cosines(classes, 180.0))
    loss = losses.am_softmax_loss(cos, torch.tensor(classes - 1), margin=m, scale=s).item()
    assert metric(at, "AM-softmax loss") == f"{loss:.4f}"
    p_map = np.asarray(next(tr for tr in figs[1]["data"] if tr["type"] == "heatmap")["z"])
    assert np.isfinite(p_map).all() and p_map.min() >= 0 and p_map.max() <= 1


def test_scale_sharpens_the_probability_map():
    soft = np.asarray(figures(run_app(PAGE, margin_s=2))[1]["data"][0]["z"])
    sharp = np.asarray(figures(run_app(PAGE, margin_s=60))[1]["data"][0]["z"])
    assert ((sharp < 0.01) | (sharp > 0.99)).mean() > 0.9 > ((soft < 0.01) | (soft > 0.99)).mean()


def test_fewer_classes_drop_a_missing_target():
    at = run_app(PAGE, margin_classes=6, margin_target=5)
    assert_ok(at)
    assert metric(at, "cos θₜ") == f"{math.cos(math.radians(35 - 300)):.4f}"  # class 5 of 6 sits at 300 degrees
    at.slider(key="margin_classes").set_value(3).run()
    assert_ok(at)
    assert any("does not exist" in w.value for w in at.warning)
    assert at.slider(key="margin_target").value == 0
    assert metric(at, "cos θₜ") == f"{math.cos(math.radians(35)):.4f}"


@pytest.mark.parametrize(
    "params",
    [
        dict(margin_classes=99, margin_m="abc", margin_s="inf", margin_angle="1e9", margin_target=-1),
        dict(
            margin_classes="<script>alert(1)</script>", margin_m=-0.5, margin_s=0, margin_angle="nan", margin_target="x"
        ),
        dict(margin_classes=3, margin_target=7),
    ],
)
def test_hostile_url_params(params):
    at = run_app(PAGE, **params)
    assert_ok(at)
    text = " ".join(w.value for w in at.warning)
    if "margin_m" in params:  # each bad value named inline (escaped: plain text only)
        for key in params:
            assert key.replace("_", "\\_") in text, key
    else:
        assert "target class 7 does not exist for C \\= 3" in text
    assert "Traceback" not in text and "<script>" not in text
    assert len(figures(at)) == 3
    assert metric(at, "AM-softmax loss")  # the defaults stand in


def test_chinese():
    at = run_app(PAGE)
    at.selectbox(key="lang").set_value("zh").run()  # (lang=zh in the URL trips AppTest's switch_page)
    assert_ok(at)
    assert at.title[0].value == "间隔 softmax"
    assert any("无人区" in w.value for w in at.warning)
    assert "无（无人区）" in figures(at)[0]["layout"]["coloraxis"]["colorbar"]["ticktext"]
