"""The Perturb and Margin pages' computations that batch or cache their work (issue 24: CPU per
step) give exactly what their definitions give: the same seeded draws, the same numbers, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import probcore
from probcore import losses
from probcore._validate import NOISES
from views.margin import compute as margin_compute
from views.perturb import compute as perturb_compute
from views.registry import PAGES
from helpers import perturbmax_nested as nested

X = (1.2, 0.3, -0.5)
MASKED = (0.4, float("-inf"), 1.0, -0.2, 0.0)


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("x, n_max, merged", [(X, 20000, 1_000_000), (MASKED, 5000, 600), (X, 1000, 30)])
def test_nested_monte_carlo_equals_the_block_by_block_draws(monkeypatch, noise, x, n_max, merged):
    monkeypatch.setattr(perturb_compute, "MERGED_DRAWS", merged)  # small: groups split mid-grid
    ns, rows = perturb_compute.perturbmax_nested.__wrapped__(x, noise, n_max, 11)
    np.testing.assert_array_equal(ns, [v for v in perturb_compute.SAMPLE_GRID if v <= n_max])
    np.testing.assert_array_equal(rows, nested(x, noise, n_max, 11))


def test_blocks_are_grouped_only_where_the_draws_do_not_change():
    ns = [10, 20, 50, 100, 200, 500, 1000]
    assert perturb_compute.block_groups(ns, "normal", 3) == [[m] for m in ns]  # randn: one block a call
    assert perturb_compute.block_groups(ns, "gumbel", 3) == [ns]
    assert perturb_compute.block_groups(ns, "uniform", 1000) == [ns]  # 1000 x 1000 draws: MERGED_DRAWS exactly
    assert perturb_compute.block_groups(ns, "logistic", 5000) == [[10, 20, 50, 100, 200], [500], [1000]]
    for noise in NOISES:  # every end once, in order
        assert sum(perturb_compute.block_groups(ns, noise, 4000), []) == ns


@pytest.mark.parametrize("x, batch", [(X, 1_000_000), (MASKED, 2000)])
def test_sharpness_curve_equals_one_gumbel_softmax_call_per_temperature(monkeypatch, x, batch):
    monkeypatch.setattr(perturb_compute, "SHARPNESS_BATCH", batch)  # small: a few taus a call
    rows = np.repeat(np.asarray(x)[None, :], perturb_compute.SHARPNESS_DRAWS, axis=0)
    expected = [
        probcore.gumbel_softmax(torch.tensor(rows), temperature=tau, generator=torch.Generator().manual_seed(4))
        .numpy()
        .max(axis=1)
        .mean()
        for tau in perturb_compute.TAUS
    ]
    np.testing.assert_array_equal(perturb_compute.gumbel_softmax_sharpness.__wrapped__(x, 4), expected)


def test_smooth_accuracy_equals_perturbmax_at_each_temperature():
    x = (0.3, 1.1, -0.4, 1.0)
    got = perturb_compute.smooth_accuracy.__wrapped__(x, 1)
    z = torch.tensor(x, dtype=torch.float64)
    expected = {T: float(probcore.perturbmax(z, noise="normal", temperature=T)[1]) for T in got["p_t"]}
    assert got["p_t"] == expected and list(got["p_t"]) == list(perturb_compute.SMOOTH_ACCURACY_TEMPERATURES)
    assert got["accuracy"] == 1.0


@pytest.mark.parametrize("classes, margin, scale, target", [(4, 0.35, 30.0, 0), (3, 0.0, 1.0, 2), (8, 0.9, 64.0, 5)])
def test_margin_maps_and_point_equal_their_direct_computation(classes, margin, scale, target):
    grid, plain, strict, p = margin_compute.margin_regions.__wrapped__(classes, margin, scale, target)
    xx, yy = np.meshgrid(grid, grid)
    cos = margin_compute.margin_cosines(np.stack([xx, yy], axis=-1), classes)
    argmax, gap = margin_compute.margin_gap(cos)
    np.testing.assert_array_equal(plain, argmax.astype(np.int8))
    np.testing.assert_array_equal(strict, np.where(gap >= margin, argmax, -1).astype(np.int8))
    labels = torch.full(cos.shape[:-1], target, dtype=torch.long)
    direct = probcore.am_softmax(torch.tensor(cos), labels, margin=margin, scale=scale)[..., target]
    np.testing.assert_array_equal(p, direct.numpy().astype(np.float32))

    angles = (np.arange(margin_compute.MARGIN_DIRECTIONS) + 0.5) * 2 * np.pi / margin_compute.MARGIN_DIRECTIONS
    _, gaps = margin_compute.margin_gap(
        margin_compute.margin_cosines(np.stack([np.cos(angles), np.sin(angles)], 1), classes)
    )
    assert margin_compute.margin_share.__wrapped__(classes, margin) == float(np.mean(gaps < margin))

    point = margin_compute.margin_point.__wrapped__(classes, 35.0, margin, scale, target)
    xt, tt = torch.tensor(point["cos"]), torch.tensor(target)
    for m, p_key, loss_key in ((margin, "p", "loss"), (0.0, "p0", "loss0")):
        np.testing.assert_array_equal(point[p_key], probcore.am_softmax(xt, tt, margin=m, scale=scale).numpy())
        assert point[loss_key] == float(losses.am_softmax_loss(xt, tt, margin=m, scale=scale))


@pytest.mark.parametrize("x, tau", [(X, 1.0), (MASKED, 0.01), ((0.0, 0.0), 100.0)])
def test_hard_gumbel_softmax_draws_equal_the_straight_through_samples(x, tau):
    soft, hard = perturb_compute.gumbel_softmax_draws.__wrapped__(x, tau, 9, 3)
    rows = torch.tensor([x] * 9, dtype=torch.float64)
    for got, is_hard in ((soft, False), (hard, True)):
        sample = probcore.gumbel_softmax(
            rows, temperature=tau, hard=is_hard, generator=torch.Generator().manual_seed(3)
        )
        np.testing.assert_array_equal(got, sample.numpy())


def test_margin_region_maps_are_kept_for_every_margin_of_the_slider():
    option = PAGES["margin"].option("margin_m")
    margins = round((option.high - option.low) / margin_compute.MARGIN_STEP) + 1  # 0, 0.01, ..., 1
    assert margins <= margin_compute.MARGIN_REGION_MAPS == margin_compute.margin_regions.cache_info().maxsize
    first = margin_compute.margin_regions(4, 0.35, 30.0, 0)
    other = margin_compute.margin_regions(4, 0.36, 30.0, 0)
    assert other[1] is first[1] and not first[1].flags.writeable  # the map without margin: one shared array
    assert first[1].dtype == first[2].dtype == np.int8 and first[3].dtype == np.float32
