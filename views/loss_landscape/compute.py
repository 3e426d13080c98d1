"""Loss landscape page: each mapping's loss over a plane of logits, the binary losses against the
margin t = x_target - x_other, and the classic margin losses (hinge, logistic, modified Huber)."""

from __future__ import annotations

import numpy as np
import torch

import probcore
from explorer.compute import Kw, batch_loss, as_tensor, memo, tsallis_entropy
from probcore import losses

CLASSIC_ALPHAS = (1.0, 1.5, 2.0, float("inf"))


def plane_grid(radius: float, m: int) -> np.ndarray:
    return np.linspace(-radius, radius, m)


@memo(64)
def loss_surface(name: str, kw: Kw, target: int, radius: float, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Loss over the plane x = (u, v, 0) and the descent step's direction: arrays (m, m) indexed
    [v, u]: (L, g0 - g2, g1 - g2) with g = dL/dx. A gradient step x <- x - eta g on all three logits
    moves (u, v) = (x0 - x2, x1 - x2) by -eta (g0 - g2, g1 - g2); for a shift-invariant loss
    g2 = -(g0 + g1), i.e. -eta (2 g0 + g1, g0 + 2 g1), not -eta (g0, g1)."""
    g = plane_grid(radius, m)
    uu, vv = np.meshgrid(g, g)
    grid = as_tensor(np.stack([uu.ravel(), vv.ravel(), np.zeros(uu.size)], axis=1)).requires_grad_(True)
    loss = batch_loss(name, grid, kw, torch.full((grid.shape[0],), target, dtype=torch.long))
    loss.sum().backward()  # rows are independent: row r of the gradient is dL_r/dx_r
    grad = grid.grad.numpy()
    shape = (m, m)
    return (
        loss.detach().numpy().reshape(shape),
        (grad[:, 0] - grad[:, 2]).reshape(shape),
        (grad[:, 1] - grad[:, 2]).reshape(shape),
    )


@memo(64)
def binary_losses(name: str, kw: Kw, margins: tuple) -> np.ndarray:
    """The mapping's loss of logits [t, 0] with target class 0, for each margin t."""
    t = np.asarray(margins)
    x = as_tensor(np.stack([t, np.zeros_like(t)], axis=1))
    with torch.no_grad():
        return batch_loss(name, x, kw, torch.zeros(len(t), dtype=torch.long)).numpy()


def taylor_binary_turn(margins: np.ndarray, loss: np.ndarray) -> dict[str, str]:
    """Where the Taylor loss of [t, 0] turns (it is not monotone in t): its peak, and the t left of the
    peak where the loss equals the loss at t = 1 (interpolated), formatted for ``loss.taylor_binary``."""
    top = int(np.argmax(loss))
    right = float(np.interp(1.0, margins, loss))
    left_t, left_loss = margins[: top + 1], loss[: top + 1]  # increasing up to the peak
    twin = float(np.interp(right, left_loss, left_t)) if left_loss[0] <= right <= left_loss[-1] else float("nan")
    return dict(tpeak=f"{margins[top]:.3g}", peak=f"{loss[top]:.4g}", twin=f"{twin:.3g}", right=f"{right:.4g}")


def binary_axis_top(curves: dict[str, np.ndarray], reference: np.ndarray) -> tuple[float, list[str]]:
    """The top of the binary slice's loss axis and the curves it leaves off: a curve whose largest
    value is over 4 times the reference curves' (hinge, logistic, modified Huber / 4; AM-softmax's,
    scaled by s = 30, reaches ~100 on t in [-3, 3]) would flatten every other one, so the axis
    ends at 1.05 times the largest of the rest."""
    limit = 4 * float(np.max(reference))
    tall = [name for name, y in curves.items() if float(np.nanmax(y)) > limit]
    rest = [float(np.nanmax(y)) for name, y in curves.items() if name not in tall] + [float(np.max(reference))]
    return 1.05 * max(rest), tall


def hinge(t: np.ndarray) -> np.ndarray:
    """max(0, 1 - t)"""
    return np.maximum(0.0, 1.0 - t)


def logistic(t: np.ndarray) -> np.ndarray:
    """log(1 + e^-t)"""
    return np.logaddexp(0.0, -t)


def modified_huber(t: np.ndarray) -> np.ndarray:
    """Zhang (2004): max(0, 1 - t)^2 for t >= -1, else -4 t."""
    return np.where(t >= -1, np.maximum(0.0, 1.0 - t) ** 2, -4.0 * t)


@memo(8)
def classic_panels(margins: tuple, probs: tuple) -> dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For alpha in CLASSIC_ALPHAS: (Tsallis entropy of [p, 1 - p], entmax([t, 0])_1, entmax loss of
    [t, 0] for class 0). alpha = inf is the limit: argmax and the perceptron loss max(0, -t)."""
    t, p = np.asarray(margins), np.asarray(probs)
    pair = np.stack([p, 1 - p], axis=1)
    x = as_tensor(np.stack([t, np.zeros_like(t)], axis=1))
    zeros = torch.zeros(len(t), dtype=torch.long)
    out = {}
    with torch.no_grad():
        for alpha in CLASSIC_ALPHAS:
            if np.isinf(alpha):
                out[alpha] = (
                    tsallis_entropy(pair, alpha),
                    np.where(t > 0, 1.0, np.where(t < 0, 0.0, 0.5)),
                    np.maximum(0.0, -t),
                )
                continue
            out[alpha] = (
                tsallis_entropy(pair, alpha),
                probcore.entmax(x, alpha=alpha)[:, 0].numpy(),
                losses.entmax_loss(x, zeros, alpha=alpha, reduction="none").numpy(),
            )
    return out
