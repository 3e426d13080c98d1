"""Why sparse page: the logit gap a cross-entropy of eps needs over n classes, and the cost of the
training demo (explorer.training)."""
from __future__ import annotations

import numpy as np

from explorer.compute import memo

OC_N = tuple(int(v) for v in np.unique(np.round(np.geomspace(2, 1e6, 241))))  # class counts of the bound plot


# Seconds per full-batch update (forward with metrics, backward, Adam) of the training demo, as
# a + b * n_classes milliseconds: fitted to compare_losses timings on the 2-core development box
# (100 steps x 20 classes, 8 runs + 150 pretraining steps: 1.5-2.3 s idle, 3-4 s under load).
OC_MS_PER_UPDATE = (1.0, 0.08)


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


def oc_estimate_seconds(steps: int, n_classes: int, runs: int = 8, pretrain_steps: int = 150) -> float:
    """Expected seconds of compare_losses(steps, n_classes) on the development box (OC_MS_PER_UPDATE)."""
    a, b = OC_MS_PER_UPDATE
    return oc_updates(steps, runs, pretrain_steps) * (a + b * n_classes) / 1000.0


def topk_gradients(x: tuple, target: int, k: int) -> dict:
    """Why train with top-k: the softmax mass outside the k largest logits (what top-k decoding
    treats as 0), and the gradients of cross-entropy and of the sparse softmax loss
    log sum_{i in top k} e^{x_i} - x_t (probcore.losses, autograd) on the classes outside the top k."""
    import torch

    import probcore
    from probcore import losses

    z = torch.tensor(x, dtype=torch.float64)
    outside = np.argsort(-np.asarray(x), kind="stable")[k:]
    grads = {}
    for name, fn in (("cross_entropy", lambda v: losses.cross_entropy(v, torch.tensor(target))),
                     ("sparse_softmax", lambda v: losses.sparse_softmax_loss(v, torch.tensor(target), k=k))):
        v = z.clone().requires_grad_(True)
        fn(v).backward()
        grads[name] = v.grad.numpy()
    return {"outside": outside, "dropped_mass": float(probcore.softmax(z).numpy()[outside].sum()),
            "ce_outside": grads["cross_entropy"][outside], "topk_outside": grads["sparse_softmax"][outside]}
