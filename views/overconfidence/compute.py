"""Why sparse page: the logit gap a cross-entropy of eps needs over n classes, and the cost of the
training demo (explorer.training)."""

from __future__ import annotations

import numpy as np

from explorer.compute import memo

OC_N = tuple(int(v) for v in np.unique(np.round(np.geomspace(2, 1e6, 241))))  # class counts of the bound plot


# The work of a full-batch update (forward with metrics, backward, Adam) of the training demo grows
# as a + b * n_classes: the shape fitted to compare_losses timings on the 2-core development box.
# The page states no time from it: it scales the last run measured on this server (oc_estimate).
OC_WORK_PER_UPDATE = (1.0, 0.08)
_LAST_RUN: dict[str, tuple[float, int, int]] = {}  # "run" -> (seconds, steps, classes) of this server process


@memo(64)
def oc_bounds(eps: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, cross-entropy bound, top-k bound) for n in OC_N: explorer.training.logit_gap_bound(n,
    eps), the smallest s_max - s_min at loss eps, and logit_gap_bound(n, eps, k=min(k, n)), the
    smallest s_max - s_(k) at top-k sparse softmax loss eps."""
    from explorer import training

    n = np.asarray(OC_N)
    ce = np.array([training.logit_gap_bound(int(m), eps) for m in n])
    topk = np.array([training.logit_gap_bound(int(m), eps, k=min(k, int(m))) for m in n])
    return n, ce, topk


def oc_updates(steps: int, runs: int = 8, pretrain_steps: int = 150) -> int:
    """Full-batch updates (each with its metrics) of compare_losses: pretraining, then every run."""
    return pretrain_steps + runs * (steps + 1)


def oc_work(steps: int, n_classes: int, runs: int = 8, pretrain_steps: int = 150) -> float:
    """The relative work of compare_losses(steps, n_classes): updates x (a + b * n_classes)."""
    a, b = OC_WORK_PER_UPDATE
    return oc_updates(steps, runs, pretrain_steps) * (a + b * n_classes)


def record_run(seconds: float, steps: int, n_classes: int) -> None:
    """Keep the measured seconds of a finished run (this server process's latest)."""
    _LAST_RUN["run"] = (float(seconds), int(steps), int(n_classes))


def last_run() -> tuple[float, int, int] | None:
    """(seconds, steps, classes) of the last run measured in this server process, None before any."""
    return _LAST_RUN.get("run")


def oc_estimate(steps: int, n_classes: int, pretrain_steps: int = 150) -> float | None:
    """Seconds a run at these settings should take here: the last measured run's seconds scaled by
    the work (:func:`oc_work`); None before any run was measured on this server."""
    last = last_run()
    if last is None:
        return None
    seconds, last_steps, last_classes = last
    return (
        seconds
        * oc_work(steps, n_classes, pretrain_steps=pretrain_steps)
        / oc_work(last_steps, last_classes, pretrain_steps=pretrain_steps)
    )


@memo(8)
def topk_gradients(x: tuple, target: int, k: int) -> dict:
    """Why train with top-k: the softmax mass outside the k largest logits (what top-k decoding
    treats as 0), and the gradients of cross-entropy and of the sparse softmax loss
    log sum_{i in top k} e^{x_i} - x_t (probcore.losses, autograd) on the classes outside the top k
    (the page's one example: cached)."""
    import torch

    import probcore
    from probcore import losses

    z = torch.tensor(x, dtype=torch.float64)
    outside = np.argsort(-np.asarray(x), kind="stable")[k:]
    grads = {}
    for name, fn in (
        ("cross_entropy", lambda v: losses.cross_entropy(v, torch.tensor(target))),
        ("sparse_softmax", lambda v: losses.sparse_softmax_loss(v, torch.tensor(target), k=k)),
    ):
        v = z.clone().requires_grad_(True)
        fn(v).backward()
        grads[name] = v.grad.numpy()
    return {
        "outside": outside,
        "dropped_mass": float(probcore.softmax(z).numpy()[outside].sum()),
        "ce_outside": grads["cross_entropy"][outside],
        "topk_outside": grads["sparse_softmax"][outside],
    }
