"""Margin softmax page: AM-softmax on 2-D features, cos_j = <w_j, h> / |h| with class centres w_j on a
circle; p_j = softmax(s (cos_j - m [j = target]))."""

from __future__ import annotations

import math

import numpy as np
import torch

import probcore
from explorer.compute import as_tensor, memo
from probcore import losses

MARGIN_RADIUS = 1.5  # the plane [-R, R]^2 of 2-D features


MARGIN_GRID = 200  # grid points per axis of the region maps


MARGIN_SWEEP = tuple(float(v) for v in np.linspace(0.0, 1.0, 101))  # m of the loss-vs-margin curves


MARGIN_DIRECTIONS = 3600  # directions (0.1 degree) for the share of no-man's-land


def margin_centres(classes: int) -> np.ndarray:
    """C unit weight vectors w_j evenly on the circle, class j at angle 2 pi j / C: shape (C, 2)."""
    angles = 2 * np.pi * np.arange(classes) / classes
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def margin_cosines(points: np.ndarray, classes: int) -> np.ndarray:
    """cos theta_j between 2-D features (..., 2) and each class centre (both normalised):
    shape (..., C); NaN at the origin (no direction)."""
    points = np.asarray(points, dtype=np.float64)
    norm = np.linalg.norm(points, axis=-1, keepdims=True)
    unit = np.divide(points, norm, out=np.full_like(points, np.nan), where=norm > 0)
    return unit @ margin_centres(classes).T


def margin_gap(cos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(argmax_j cos_j, cos of that class minus the largest other cosine) along the last axis."""
    top2 = np.sort(cos, axis=-1)[..., -2:]
    return np.argmax(cos, axis=-1), top2[..., 1] - top2[..., 0]


@memo(16)
def region_cosines(
    classes: int, radius: float = MARGIN_RADIUS, size: int = MARGIN_GRID
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Over the size x size grid of [-radius, radius]^2 (arrays indexed [y, x]): (grid, cos theta_j
    of each point (size, size, C), argmax_j cos theta_j as int8, its gap to the next cosine): what
    the region maps need that the margin, the scale and the target do not change."""
    grid = np.linspace(-radius, radius, size)
    xx, yy = np.meshgrid(grid, grid)
    cos = margin_cosines(np.stack([xx, yy], axis=-1), classes)
    plain, gap = margin_gap(cos)
    return grid, cos, plain.astype(np.int8), gap


MARGIN_STEP = 0.01  # the step of the page's margin slider
MARGIN_REGION_MAPS = 128  # cached region maps: each margin of that slider (101) at one setting, 0.2 MB each


@memo(MARGIN_REGION_MAPS)
def margin_regions(
    classes: int, margin: float, scale: float, target: int, radius: float = MARGIN_RADIUS, size: int = MARGIN_GRID
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Over the size x size grid of [-radius, radius]^2 (arrays indexed [y, x]): (grid, plain,
    strict, p_target). plain: argmax_j cos theta_j, the decision without margin. strict: that
    class t where cos theta_t - max_{j != t} cos theta_j >= margin (the point counts for t under
    AM-softmax training), -1 elsewhere (no-man's-land); with margin 0 strict == plain.
    p_target: probcore.am_softmax(cos, target, margin, scale)[target], the probability a feature
    there gets for class ``target`` when labelled ``target``. int8 / float32 (for plotly). The
    cosines come from :func:`region_cosines` (cached per number of classes). MARGIN_REGION_MAPS of
    them are kept: a class dragging the margin finds each one computed."""
    grid, cos, plain, gap = region_cosines(classes, radius, size)
    strict = np.where(gap >= margin, plain, np.int8(-1))
    labels = torch.full(cos.shape[:-1], target, dtype=torch.long)
    with torch.no_grad():
        p = probcore.am_softmax(torch.tensor(cos), labels, margin=margin, scale=scale)[..., target].numpy()
    return grid, plain, strict, p.astype(np.float32)  # plain: region_cosines' own (cached, read-only)


@memo(16)
def direction_gaps(classes: int) -> np.ndarray:
    """cos theta_(1) - cos theta_(2) of MARGIN_DIRECTIONS evenly spaced directions (angle (k + 1/2)
    2 pi / MARGIN_DIRECTIONS): the same for every margin."""
    angles = (np.arange(MARGIN_DIRECTIONS) + 0.5) * 2 * np.pi / MARGIN_DIRECTIONS
    return margin_gap(margin_cosines(np.stack([np.cos(angles), np.sin(angles)], axis=1), classes))[1]


@memo(64)
def margin_share(classes: int, margin: float) -> float:
    """Fraction of directions (MARGIN_DIRECTIONS evenly spaced angles) in no-man's-land, i.e. with
    cos theta_(1) - cos theta_(2) < margin."""
    return float(np.mean(direction_gaps(classes) < margin))


@memo(256)
def point_without_margin(
    classes: int, angle_deg: float, scale: float, target: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """The feature (cos a, sin a) with label ``target``: (its cosines, probcore.am_softmax with
    m = 0, i.e. softmax(s cos), and probcore.losses.am_softmax_loss with m = 0): the same for
    every margin."""
    a = np.deg2rad(angle_deg)
    cos = margin_cosines(np.array([np.cos(a), np.sin(a)]), classes)
    xt, tt = as_tensor(cos), torch.tensor(target)
    with torch.no_grad():
        p0 = probcore.am_softmax(xt, tt, margin=0.0, scale=scale).numpy()
        loss0 = float(losses.am_softmax_loss(xt, tt, margin=0.0, scale=scale))
    return cos, p0, loss0


@memo(256)
def margin_point(classes: int, angle_deg: float, margin: float, scale: float, target: int) -> dict:
    """The feature (cos a, sin a) with label ``target``: its cosines, AM-softmax logits
    s (cos - m [j = t]), probcore.am_softmax probabilities with margin and without (m = 0, i.e.
    softmax(s cos)), and probcore.losses.am_softmax_loss with and without margin (those without:
    :func:`point_without_margin`)."""
    cos, p0, loss0 = point_without_margin(classes, angle_deg, scale, target)
    xt, tt = torch.tensor(cos), torch.tensor(target)
    with torch.no_grad():
        p = probcore.am_softmax(xt, tt, margin=margin, scale=scale).numpy()
        loss = float(losses.am_softmax_loss(xt, tt, margin=margin, scale=scale))
    logits = scale * (cos - margin * (np.arange(classes) == target))
    return {"cos": cos, "logits": logits, "p": p, "p0": p0, "loss": loss, "loss0": loss0}


@memo(256)
def margin_sweep(classes: int, angle_deg: float, scale: float, target: int) -> dict:
    """For m in MARGIN_SWEEP: probcore's AM-softmax loss and p_target of the feature at angle
    ``angle_deg`` labelled ``target`` (one call per m), the target logit s (cos_t - m) and the
    largest other logit s max_{j != t} cos_j."""
    ms = np.asarray(MARGIN_SWEEP)
    a = np.deg2rad(angle_deg)
    cos = margin_cosines(np.array([np.cos(a), np.sin(a)]), classes)
    xt, tt = as_tensor(cos), torch.tensor(target)
    with torch.no_grad():
        loss = np.array([float(losses.am_softmax_loss(xt, tt, margin=m, scale=scale)) for m in ms])
        p_t = np.array([float(probcore.am_softmax(xt, tt, margin=m, scale=scale)[target]) for m in ms])
    others = np.delete(cos, target)
    return {
        "m": ms,
        "loss": loss,
        "p_target": p_t,
        "target_logit": scale * (cos[target] - ms),
        "runner_logit": np.full(len(ms), scale * others.max()),
    }


def gap_for_loss(loss: float, margin: float, scale: float) -> tuple[float, float]:
    """The cosine gap cos_t - cos_j that two classes need for the AM-softmax loss
    log(1 + e^{-s (gap - m)}) to fall to ``loss``: gap = m + log(1 / (e^loss - 1)) / s (m = 0:
    plain softmax cross-entropy on s cos), with probcore.losses.am_softmax_loss at that gap."""
    gap = margin + math.log(1.0 / math.expm1(loss)) / scale
    check = float(
        losses.am_softmax_loss(
            torch.tensor([gap, 0.0], dtype=torch.float64), torch.tensor(0), margin=margin, scale=scale
        )
    )
    return gap, check
