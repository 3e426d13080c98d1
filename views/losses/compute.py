"""Losses page: surrogate gradients, accuracy and sparsemax losses against the margin, zero-loss
regions of entmax losses, multilabel sparsemax training; every number from probcore.losses."""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch

import probcore
from explorer.compute import D64, given_defaults
from probcore import losses
from probcore.registry import MAPPINGS
from probcore.threshold import sparsemax_threshold

MARGINS = np.linspace(-6.0, 6.0, 241)  # t of the binary / one-against-zeros logits [t, 0, ..., 0]


def _rows(t: np.ndarray, n: int) -> torch.Tensor:
    """Logits [t, 0, ..., 0] (n classes), one row per t, float64."""
    x = torch.zeros(len(t), n, dtype=D64)
    x[:, 0] = torch.as_tensor(t, dtype=D64)
    return x


def _loss_and_grad0(fn, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Per-row loss fn(x) (target class 0) and its derivative in the target's logit x0 (autograd)."""
    x = x.clone().requires_grad_(True)
    loss = fn(x)
    loss.sum().backward()
    return loss.detach().numpy(), x.grad[:, 0].numpy()


@st.cache_data(max_entries=32, show_spinner=False)
def surrogate_gradients(x: tuple, target: int) -> dict[str, dict[str, np.ndarray]]:
    """For every deterministic registry mapping (default parameters): the autograd gradient of
    probcore.losses.surrogate_loss (stop_grad(p - onehot) . x), the vector p - onehot it should
    equal, and the surrogate's value (meaningless, may be negative)."""
    out = {}
    for name, mapping in MAPPINGS.items():
        if mapping.stochastic:
            continue
        z = torch.tensor(x, dtype=D64, requires_grad=True)
        t = torch.tensor(target)
        value = losses.surrogate_loss(z, t, mapping=name, **given_defaults(name))
        value.backward()
        extra = {"target": t} if mapping.needs_target else {}
        p = mapping.forward(z.detach(), **extra, **given_defaults(name)).numpy()
        out[name] = {
            "grad": z.grad.numpy(),
            "p_minus_onehot": p - np.eye(len(x))[target],
            "value": float(value.detach()),
        }
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def accuracy_losses(n: int) -> dict[str, np.ndarray]:
    """Over logits [t, 0, ..., 0] (n classes, target 0): cross-entropy and -p_t (neg_prob_loss) with
    their derivatives in x0: CE' = p0 - 1, (-p0)' = -p0 (1 - p0), which vanishes as p0 -> 0."""
    x = _rows(MARGINS, n)
    ce, ce_grad = _loss_and_grad0(
        lambda z: losses.cross_entropy(z, torch.zeros(len(z), dtype=torch.long), reduction="none"), x
    )
    acc, acc_grad = _loss_and_grad0(
        lambda z: losses.neg_prob_loss(z, torch.zeros(len(z), dtype=torch.long), reduction="none"), x
    )
    return {"t": MARGINS, "ce": ce, "ce_grad": ce_grad, "neg_p": acc, "neg_p_grad": acc_grad}


@st.cache_data(max_entries=32, show_spinner=False)
def sparsemax_cross_entropy(eps: float, n: int) -> dict[str, np.ndarray]:
    """Over logits [t, 0, ..., 0] (n classes, target 0), p = sparsemax: plain CE -log p0 (inf where
    p0 = 0), the smoothed -log((p0 + eps)/(1 + n eps)) (probcore.losses.smoothed_cross_entropy) and
    the sparsemax loss, with their derivatives in x0 and second differences (convexity along t)."""
    x = _rows(MARGINS, n)
    zeros = torch.zeros(len(x), dtype=torch.long)
    with torch.no_grad():
        p0 = probcore.sparsemax(x)[:, 0].numpy()
    with np.errstate(divide="ignore"):
        plain = -np.log(p0)
    smoothed, smoothed_grad = _loss_and_grad0(
        lambda z: losses.smoothed_cross_entropy(probcore.sparsemax(z), zeros, eps=eps, reduction="none"), x
    )
    sparse, sparse_grad = _loss_and_grad0(lambda z: losses.sparsemax_loss(z, zeros, reduction="none"), x)
    return {
        "t": MARGINS,
        "p0": p0,
        "plain": plain,
        "smoothed": smoothed,
        "smoothed_grad": smoothed_grad,
        "sparsemax": sparse,
        "sparsemax_grad": sparse_grad,
        "smoothed_curvature": np.diff(smoothed, 2).min(),
        "sparsemax_curvature": np.diff(sparse, 2).min(),
    }


@st.cache_data(max_entries=32, show_spinner=False)
def zero_loss_curves(alphas: tuple) -> dict[float, np.ndarray]:
    """probcore.losses.entmax_loss of [t, 0] (target 0) for each alpha (alpha = 1: cross-entropy)."""
    x = _rows(MARGINS, 2)
    zeros = torch.zeros(len(x), dtype=torch.long)
    with torch.no_grad():
        return {a: losses.entmax_loss(x, zeros, alpha=a, reduction="none").numpy() for a in alphas}


def first_zero(t: np.ndarray, loss: np.ndarray) -> float:
    """The smallest t from which the loss is exactly 0 on the rest of the grid (nan if never)."""
    nonzero = np.flatnonzero(loss != 0)
    if len(nonzero) == len(t):
        return float("nan")
    return float(t[nonzero[-1] + 1]) if len(nonzero) else float(t[0])


def multilabel_sparsemax_loss(z: np.ndarray, q: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Sparsemax loss of logits z against a target distribution q (Martins & Astudillo 2016, multi-label):
    L = -q.z + 1/2 sum_{j in S} (z_j^2 - lambda^2) + 1/2 |q|^2, S and lambda those of p = sparsemax(z),
    computed as the equal sum of non-negative terms 1/2 |p - q|^2 + sum_{j not in S} q_j (lambda - z_j)
    (so no rounding shows a negative loss); L = 0 exactly when p = q; gradient p - q. Returns (L, p, gradient)."""
    zt = torch.as_tensor(z, dtype=D64)
    p = probcore.sparsemax(zt).numpy()
    lam = float(sparsemax_threshold(zt.unsqueeze(0))[0])
    support = p > 0
    loss = 0.5 * np.sum((p - q) ** 2) + np.sum(q[~support] * (lam - z[~support]))
    return float(loss), p, p - q


PREDICTED_AT = 1e-6  # a class is a predicted label when its p exceeds this


def predicted_labels(p: np.ndarray) -> tuple[int, int, float]:
    """(classes with p > PREDICTED_AT: the predicted labels, classes with 0 < p <= PREDICTED_AT:
    in the support but not predicted (once every label is in the support S, a step of
    z <- z - 0.5 (p - q) keeps S and lambda and gives p_S <- (p_S + q_S) / 2: such a p halves, never
    exactly 0 in exact arithmetic), the largest such p (0 if none))."""
    p = np.asarray(p)
    tiny = p[(p > 0) & (p <= PREDICTED_AT)]
    return int((p > PREDICTED_AT).sum()), len(tiny), float(tiny.max()) if len(tiny) else 0.0


@st.cache_data(max_entries=32, show_spinner=False)
def multilabel_training(x: tuple, labels: int, steps: int, lr: float) -> dict[str, np.ndarray]:
    """Gradient descent z <- z - lr (p - q) on the multi-label sparsemax loss from the logits x,
    q uniform on the first ``labels`` classes: the loss and the support size per step, the final p."""
    z = np.array(x, dtype=float)
    q = np.where(np.arange(len(z)) < labels, 1.0 / labels, 0.0)
    loss, support = [], []
    for _ in range(steps + 1):
        value, p, grad = multilabel_sparsemax_loss(z, q)
        loss.append(value)
        support.append(int((p > 0).sum()))
        z = z - lr * grad
    return {"loss": np.array(loss), "support": np.array(support), "p": p, "q": q, "z": z}


def sparsemax_loss_derivation(x: tuple, target: int) -> dict:
    """The sparsemax loss written out, L = 1/2 - x_t + 1/2 sum_{i in S} (x_i^2 - lambda^2), beside
    probcore.losses.sparsemax_loss; d lambda / d x_j = [j in S] / |S| by central differences
    (lambda = (sum_S x_i - 1) / |S| on a fixed support); the autograd gradient beside p - e_t; and
    the perfect-prediction limit: at x = (10, 0, ..., 0), t = 0, the sum without the 1/2 is -1/2."""
    z = np.asarray(x, dtype=float)
    zt = torch.tensor(z, dtype=D64, requires_grad=True)

    def lam_of(v: np.ndarray) -> float:
        return float(sparsemax_threshold(torch.tensor(v, dtype=D64).unsqueeze(0))[0])

    lam = lam_of(z)
    support = z > lam
    written = 0.5 - z[target] + 0.5 * float(np.sum(z[support] ** 2 - lam**2))
    loss = losses.sparsemax_loss(zt, torch.tensor(target))
    loss.backward()
    h = 1e-6
    dlam = np.array([(lam_of(z + h * e) - lam_of(z - h * e)) / (2 * h) for e in np.eye(len(z))])
    p = probcore.sparsemax(torch.tensor(z, dtype=D64)).numpy()
    perfect = np.zeros(len(z))
    perfect[0] = 10.0
    lam_perfect = lam_of(perfect)
    tail = -perfect[0] + 0.5 * float(np.sum(perfect[perfect > lam_perfect] ** 2 - lam_perfect**2))
    return {
        "lambda": lam,
        "support": support,
        "written": written,
        "probcore": float(loss.detach()),
        "dlam": dlam,
        "grad": zt.grad.numpy(),
        "p_minus_onehot": p - np.eye(len(z))[target],
        "perfect_tail": tail,
        "perfect_lambda": lam_perfect,
    }


FY_ALPHAS = (1.25, 1.5, 2.0)


def fenchel_young_table(x: tuple, target: int, alphas: tuple = FY_ALPHAS) -> list[dict]:
    """The alpha-entmax Fenchel-Young loss written out, <p - e_t, x> + H_alpha(p) with p =
    probcore.entmax(x, alpha) and the Tsallis entropy H_alpha(p) = (1 - sum p^alpha) / (alpha (alpha - 1)),
    beside probcore.losses.entmax_loss, for each alpha."""
    z = np.asarray(x, dtype=float)
    rows = []
    for alpha in alphas:
        p = probcore.entmax(torch.tensor(z, dtype=D64), alpha=alpha).numpy()
        tsallis = (1 - np.sum(p**alpha)) / (alpha * (alpha - 1))
        written = float(np.dot(p - np.eye(len(z))[target], z) + tsallis)
        lib = float(losses.entmax_loss(torch.tensor(z, dtype=D64), torch.tensor(target), alpha=alpha))
        rows.append({"alpha": alpha, "tsallis": float(tsallis), "written": written, "probcore": lib})
    return rows
