"""Over-confidence demo: softmax cross-entropy versus sparse losses on a synthetic many-class task.

Why softmax over-trains (seeds 003/004): for any example, cross-entropy eps = logsumexp(s) - s_t >=
logsumexp(s) - s_max >= log(1 + (n - 1) e^{s_min - s_max}), hence

    s_max - s_min >= log(n - 1) - log(e^eps - 1),

so pushing the loss down forces a logit gap that grows like log(n - 1). The sparse (top-k) softmax
loss logsumexp(top-k of s) - s_t only needs s_max - s_(k) >= log(k - 1) - log(e^eps - 1). The
articles claim top-k helps fine-tuning a pre-trained model and hurts training from scratch;
:func:`compare_losses` puts that to a small test.

The task: Gaussian class clusters (``n_classes`` means in ``dim`` dimensions), few noisy-labelled
training points per class and a clean held-out set; the model is a one-hidden-layer MLP trained
full-batch with Adam. "pretrained" starts from weights trained with cross-entropy on a related task
(the same classes with shifted means, more and clean data); "from scratch" from a random init.
Everything runs in torch on one CPU thread and is deterministic under ``seed``; a 300-step run at
the defaults (run_training: 50 classes, its 150 pretraining steps) took 1.7-2.5 s of CPU time on the
shared 2-core box at load 4.6-6.7, the page's default compare_losses (8 runs of 100 steps, 20
classes) 2.1-3.1 s in its job process (bench/results/training_cpu_2026-11-28.md).
No streamlit here: the explorer page calls these functions and draws the results.
"""

from __future__ import annotations

import copy
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.nn import functional as F

from probcore import losses as loss_functions
from probcore._validate import check_k, check_positive, check_positive_int
from probcore.check import torch_threads
from probcore.registry import get_mapping

__all__ = [
    "LOSSES",
    "METRICS",
    "Task",
    "TrainingResult",
    "compare_losses",
    "logit_gap_bound",
    "make_task",
    "metrics_of",
    "run_training",
]


@dataclass(frozen=True)
class LossChoice:
    label: str
    mapping: str  # registry name; its ``loss`` entry names the function in probcore.losses
    params: tuple[str, ...]  # run_training keywords passed to both the loss and the mapping


LOSSES = {
    "cross_entropy": LossChoice("softmax cross-entropy", "softmax", ()),
    "sparse_softmax": LossChoice("sparse softmax (top-k)", "sparse_softmax", ("k",)),
    "sparsemax": LossChoice("sparsemax loss", "sparsemax", ()),
    "entmax": LossChoice("entmax loss", "entmax", ("alpha",)),
}
METRICS = ("loss", "train_accuracy", "test_accuracy", "logit_gap", "sparsity")


def logit_gap_bound(n: int, eps: float, k: int | None = None) -> float:
    """Smallest logit gap compatible with loss eps: s_max - s_min >= log(n - 1) - log(e^eps - 1)
    (cross-entropy over n classes). With k (top-k sparse softmax loss, 1 <= k <= n) the gap is
    s_max - s_(k) >= log(k - 1) - log(e^eps - 1); k = 1 gives -inf (no constraint).
    n: integer >= 2; eps: loss value in (0, inf)."""
    n = check_positive_int("n", n, low=2)
    eps = check_positive("eps", eps)
    m = n if k is None else check_k(k, n)
    if m == 1:
        return -math.inf
    return math.log(m - 1) - math.log(math.expm1(eps))


@dataclass(frozen=True)
class Task:
    """Training inputs/labels (labels noisy) and clean held-out inputs/labels."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor


def _clusters(means, per_class, spread, generator):
    n, dim = means.shape
    y = torch.arange(n).repeat_interleave(per_class)
    x = means[y] + spread * torch.randn(len(y), dim, generator=generator)
    return x, y


def make_task(
    n_classes=50,
    dim=32,
    train_per_class=10,
    test_per_class=20,
    label_noise=0.2,
    separation=0.6,
    shift=0.0,
    seed=0,
    variant=0,
) -> Task:
    """Class means m_c = separation * N(0, I) + shift * N(0, I) (both drawn from ``seed``; shift
    > 0 gives a related task), points m_c + N(0, I) drawn from the stream (seed, variant); a
    fraction label_noise of the training labels replaced by uniformly random classes."""
    n_classes = check_positive_int("n_classes", n_classes, low=2)
    dim = check_positive_int("dim", dim)
    if not 0 <= label_noise < 1:
        raise ValueError(f"label_noise must be in [0, 1), got {label_noise!r}")
    g = torch.Generator().manual_seed(seed)
    means = separation * torch.randn(n_classes, dim, generator=g)
    means = means + shift * torch.randn(n_classes, dim, generator=g)
    g = torch.Generator().manual_seed(seed + 1_000_003 * (check_positive_int("variant", variant, low=0) + 1))
    x_train, y_train = _clusters(means, check_positive_int("train_per_class", train_per_class), 1.0, g)
    x_test, y_test = _clusters(means, check_positive_int("test_per_class", test_per_class), 1.0, g)
    flip = torch.rand(len(y_train), generator=g) < label_noise
    y_train = torch.where(flip, torch.randint(n_classes, y_train.shape, generator=g), y_train)
    return Task(x_train, y_train, x_test, y_test)


def _model(dim, n_classes, hidden):
    return nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))


@contextmanager
def _cpu(seed: int, num_threads: int):
    """Seeded global RNG (restored afterwards) and a small thread count for tiny matrices."""
    with torch_threads(num_threads), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def _loss_and_mapping(loss_name, k, alpha):
    if loss_name not in LOSSES:
        raise ValueError(f"loss_name must be one of {', '.join(LOSSES)}; got {loss_name!r}")
    choice = LOSSES[loss_name]
    spec = get_mapping(choice.mapping)
    params = {name: {"k": k, "alpha": alpha}[name] for name in choice.params}
    loss_fn = getattr(loss_functions, spec.loss)
    return (lambda s, y: loss_fn(s, y, **params)), (lambda s: spec.forward(s, dim=-1, **params))


def _logits(model, x):
    """model(x) for the MLP of :func:`_model` by its layers' functions, linear(relu(linear(x))):
    the same ops as the module call, without the per-module call overhead."""
    first, _relu, last = model
    return F.linear(torch.relu(F.linear(x, first.weight, first.bias)), last.weight, last.bias)


def _share(count: torch.Tensor, total: int) -> float:
    """count / total for an integer count: equals the mean of the 0/1 values it counts (their sum is
    exact in any order, and torch's mean is that sum / total, rounded once), as (mask).double().mean()."""
    return count.item() / total


def metrics_of(model, task: Task, loss, mapping) -> tuple[dict, torch.Tensor]:
    """Metrics of the model as it is: loss on the training set, accuracies (training labels as
    given, held-out clean), mean s_max - s_min over training points, mean fraction of exact zeros
    of mapping(logits). Also returns the training loss tensor (with graph) for the update.

    One op per need: the row max and its index come from one max (argmax's first-index rule), the
    shares from integer counts (:func:`_share`); tests/test_training.py checks every metric of
    every step against the plain definition, bit for bit."""
    logits = _logits(model, task.x_train)
    value = loss(logits, task.y_train)
    with torch.inference_mode():
        top, predicted = logits.max(-1)
        test_predicted = _logits(model, task.x_test).argmax(-1)
        p = mapping(logits)
        metrics = {
            "loss": value.item(),
            "train_accuracy": _share(torch.count_nonzero(predicted == task.y_train), len(task.y_train)),
            "test_accuracy": _share(torch.count_nonzero(test_predicted == task.y_test), len(task.y_test)),
            "logit_gap": (top - logits.amin(-1)).mean().item(),
            "sparsity": _share(p.numel() - torch.count_nonzero(p), p.numel()),
        }
    return metrics, value


@dataclass
class TrainingResult:
    """history[name][s]: metric name after s updates (s = 0..steps); final = the last entry."""

    loss_name: str
    pretrained: bool
    history: dict = field(default_factory=dict)
    model: nn.Module | None = None
    task: Task | None = None
    seconds: float = 0.0

    @property
    def final(self) -> dict:
        return {name: values[-1] for name, values in self.history.items()}


def _adam(model, lr):
    return torch.optim.Adam(model.parameters(), lr=lr, fused=True)


def _update(model, optimizer, value) -> None:
    """One Adam update on the loss tensor ``value`` (gradients set to None first, as zero_grad)."""
    model.zero_grad()
    value.backward()
    optimizer.step()


def _train(model, task, loss, mapping, steps, lr, callback) -> dict:
    """Full-batch Adam; records metrics before every update and after the last."""
    history = {"step": [], **{name: [] for name in METRICS}}
    optimizer = _adam(model, lr)
    for step in range(steps + 1):
        metrics, value = metrics_of(model, task, loss, mapping)
        history["step"].append(step)
        for name in METRICS:
            history[name].append(metrics[name])
        if callback is not None:
            callback(step, metrics)
        if step < steps:
            _update(model, optimizer, value)
    return history


def _fit(model, task, loss, steps, lr) -> None:
    """The updates of :func:`_train` alone (nothing recorded): the pretraining."""
    optimizer = _adam(model, lr)
    for _ in range(steps):
        _update(model, optimizer, loss(_logits(model, task.x_train), task.y_train))


_TASK_DEFAULTS = dict(dim=32, train_per_class=10, test_per_class=20, label_noise=0.2, separation=0.6)


def _setup(n_classes, seed, hidden, pretrain_steps, lr, related_shift, related_per_class, task_options):
    """The task, a random init, and the pretrained weights: that init trained with cross-entropy
    on the related task (class means moved by related_shift * N(0, I), related_per_class clean
    points per class)."""
    options = {**_TASK_DEFAULTS, **task_options}
    task = make_task(n_classes=n_classes, seed=seed, **options)
    related = make_task(
        n_classes=n_classes,
        seed=seed,
        variant=1,
        **{**options, "shift": related_shift, "train_per_class": related_per_class, "label_noise": 0.0},
    )
    scratch = _model(task.x_train.shape[1], n_classes, hidden)
    pretrained = copy.deepcopy(scratch)
    loss, _mapping = _loss_and_mapping("cross_entropy", None, None)
    _fit(pretrained, related, loss, pretrain_steps, lr)
    return task, scratch.state_dict(), pretrained.state_dict()


def run_training(
    loss_name: str,
    steps: int = 300,
    n_classes: int = 50,
    *,
    pretrained: bool = False,
    seed: int = 0,
    k: int = 5,
    alpha: float = 1.5,
    hidden: int = 64,
    lr: float = 0.003,
    pretrain_steps: int = 150,
    related_shift: float = 0.5,
    related_per_class: int = 40,
    num_threads: int = 1,
    callback=None,
    **task_options,
) -> TrainingResult:
    """Train one loss (a key of LOSSES) for ``steps`` full-batch Adam updates and record
    METRICS after every update. ``k``: top-k of the sparse softmax loss; ``alpha``: entmax.
    callback(step, metrics) after each record (step 0..steps). task_options go to make_task."""
    return compare_losses(
        steps,
        n_classes,
        losses=(loss_name,),
        starts=(pretrained,),
        seed=seed,
        k=k,
        alpha=alpha,
        hidden=hidden,
        lr=lr,
        pretrain_steps=pretrain_steps,
        related_shift=related_shift,
        related_per_class=related_per_class,
        num_threads=num_threads,
        callback=None if callback is None else (lambda _l, _p, s, m: callback(s, m)),
        **task_options,
    )[(loss_name, pretrained)]


def compare_losses(
    steps: int = 300,
    n_classes: int = 50,
    *,
    losses=tuple(LOSSES),
    starts=(False, True),
    seed: int = 0,
    k: int = 5,
    alpha: float = 1.5,
    hidden: int = 64,
    lr: float = 0.003,
    pretrain_steps: int = 150,
    related_shift: float = 0.5,
    related_per_class: int = 40,
    num_threads: int = 1,
    callback=None,
    **task_options,
) -> dict:
    """{(loss_name, pretrained): TrainingResult} for every loss in ``losses`` and start in
    ``starts`` (False = random init, True = pretrained), all on the same task and initial weights.
    callback(loss_name, pretrained, step, metrics) after each record."""
    steps = check_positive_int("steps", steps, low=0)
    pretrain_steps = check_positive_int("pretrain_steps", pretrain_steps, low=0)
    lr = check_positive("lr", lr)
    runs = [(name, bool(start)) for start in starts for name in losses]
    losses_fns = {name: _loss_and_mapping(name, k, alpha) for name in dict.fromkeys(losses)}
    with _cpu(seed, check_positive_int("num_threads", num_threads)):
        task, scratch, pretrained = _setup(
            n_classes,
            seed,
            check_positive_int("hidden", hidden),
            pretrain_steps,
            lr,
            related_shift,
            related_per_class,
            task_options,
        )
        results = {}
        for name, start in runs:
            began = time.perf_counter()
            model = _model(task.x_train.shape[1], n_classes, hidden)
            model.load_state_dict(pretrained if start else scratch)
            loss, mapping = losses_fns[name]
            report = None if callback is None else (lambda s, m, name=name, start=start: callback(name, start, s, m))
            history = _train(model, task, loss, mapping, steps, lr, report)
            results[(name, start)] = TrainingResult(name, start, history, model, task, time.perf_counter() - began)
    return results
