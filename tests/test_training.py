"""explorer.training: the logit-gap bound, and the training demo's guarantees (honesty of
the reported metrics, determinism)."""

import copy
import math

import pytest
import torch

from explorer.training import LOSSES, METRICS, compare_losses, logit_gap_bound, make_task, run_training

SMALL = dict(steps=60, n_classes=20, pretrain_steps=30)  # test size


@pytest.fixture(scope="module")
def compared():
    return compare_losses(**SMALL, seed=3)


def test_bound_values():
    assert logit_gap_bound(2, math.log(2)) == pytest.approx(0.0, abs=1e-15)
    assert logit_gap_bound(101, math.log(2)) == pytest.approx(math.log(100))
    assert logit_gap_bound(50, math.log(2), k=5) == pytest.approx(math.log(4))
    assert logit_gap_bound(50, 0.1, k=1) == -math.inf
    assert logit_gap_bound(50, 0.1, k=50) == logit_gap_bound(50, 0.1)
    # the bound is where eps = log(1 + (n - 1) e^{-gap}) (equality case of the derivation)
    for n, eps in [(10, 0.05), (1000, 2.0), (3, 1e-6)]:
        gap = logit_gap_bound(n, eps)
        assert math.log1p((n - 1) * math.exp(-gap)) == pytest.approx(eps, rel=1e-9)
    assert logit_gap_bound(1000, 0.01) > logit_gap_bound(1000, 0.01, k=10) > 0


@pytest.mark.parametrize(
    "args,word", [((1, 0.5), "n"), ((10, 0.0), "eps"), ((10, -1.0), "eps"), ((10, 0.5, 0), "k"), ((10, 0.5, 11), "k")]
)
def test_bound_rejects(args, word):
    with pytest.raises(ValueError, match=word):
        logit_gap_bound(*args)


@pytest.mark.slow
def test_compare_runs_everything(compared):
    results = compared
    assert set(results) == {(name, start) for name in LOSSES for start in (False, True)}
    for r in results.values():
        assert r.history["step"] == list(range(SMALL["steps"] + 1))
        assert all(len(r.history[m]) == SMALL["steps"] + 1 for m in METRICS)
        assert all(math.isfinite(v) for m in METRICS for v in r.history[m])


def test_reported_metrics_are_recomputed(compared):
    from probcore import losses, registry

    results = compared
    for (name, _start), r in results.items():
        task = r.task
        with torch.no_grad():
            s, s_test = r.model(task.x_train), r.model(task.x_test)
        final = r.final
        assert final["train_accuracy"] == pytest.approx((s.argmax(1) == task.y_train).float().mean().item())
        assert final["test_accuracy"] == pytest.approx((s_test.argmax(1) == task.y_test).float().mean().item())
        assert final["logit_gap"] == pytest.approx((s.max(1).values - s.min(1).values).mean().item(), rel=1e-6)
        if name == "cross_entropy":
            assert final["loss"] == pytest.approx(torch.nn.functional.cross_entropy(s, task.y_train).item(), abs=1e-5)
            assert final["sparsity"] == (torch.softmax(s, 1) == 0).float().mean().item()
        if name == "sparse_softmax":  # top-5 of 20 classes: exactly 15/20 zeros per row
            top = s.topk(5, dim=1).values
            manual = (torch.logsumexp(top, 1) - s.gather(1, task.y_train[:, None])[:, 0]).mean()
            assert final["loss"] == pytest.approx(manual.item(), abs=1e-5)
            assert final["sparsity"] == pytest.approx(15 / 20)
        if name == "sparsemax":
            assert final["loss"] == pytest.approx(losses.sparsemax_loss(s, task.y_train).item(), rel=1e-6)
            p = registry.get_mapping("sparsemax").forward(s, dim=-1)
            assert final["sparsity"] == pytest.approx((p == 0).float().mean().item())


def test_gap_obeys_the_bound(compared):
    """mean gap >= bound(mean loss) by Jensen (the bound is convex and decreasing in eps)."""
    results = compared
    n = SMALL["n_classes"]
    for start in (False, True):
        for name, k in (("cross_entropy", None), ("sparse_softmax", 5)):
            h = results[(name, start)].history
            for loss, gap in zip(h["loss"], h["logit_gap"]):
                assert gap >= logit_gap_bound(n, loss, k=k) - 1e-5


def test_training_learns_and_pretraining_helps(compared):
    results = compared
    ce_scratch, ce_pre = results[("cross_entropy", False)], results[("cross_entropy", True)]
    chance = 1 / SMALL["n_classes"]
    assert ce_scratch.history["test_accuracy"][0] < 3 * chance
    assert ce_scratch.final["test_accuracy"] > 3 * chance
    assert ce_pre.history["test_accuracy"][0] > ce_scratch.history["test_accuracy"][0]


def test_deterministic_under_seed():
    a = run_training("sparsemax", steps=20, n_classes=10, pretrained=True, pretrain_steps=10, seed=7)
    b = run_training("sparsemax", steps=20, n_classes=10, pretrained=True, pretrain_steps=10, seed=7)
    c = run_training("sparsemax", steps=20, n_classes=10, pretrained=True, pretrain_steps=10, seed=8)
    assert a.history == b.history
    assert a.history != c.history
    state = torch.random.get_rng_state()
    run_training("entmax", steps=2, n_classes=5, seed=1)
    assert torch.equal(state, torch.random.get_rng_state())  # the global RNG is left alone


def test_callback_sees_every_step():
    seen = []
    r = run_training("cross_entropy", steps=5, n_classes=5, callback=lambda step, m: seen.append((step, m["loss"])))
    assert seen == list(zip(range(6), r.history["loss"]))


def test_make_task_label_noise():
    clean = make_task(n_classes=10, train_per_class=50, label_noise=0.0, seed=0)
    noisy = make_task(n_classes=10, train_per_class=50, label_noise=0.5, seed=0)
    assert torch.equal(clean.y_train, torch.arange(10).repeat_interleave(50))
    flipped = (noisy.y_train != clean.y_train).float().mean().item()
    assert 0.3 < flipped < 0.6  # about 0.5 * 9/10


@pytest.mark.parametrize(
    "kwargs,word",
    [
        (dict(loss_name="hinge"), "loss_name"),
        (dict(loss_name="cross_entropy", steps=-1), "steps"),
        (dict(loss_name="cross_entropy", lr=0.0), "lr"),
        (dict(loss_name="sparse_softmax", k=0, steps=1, n_classes=5), "k"),
        (dict(loss_name="cross_entropy", label_noise=1.0), "label_noise"),
    ],
)
def test_run_training_rejects(kwargs, word):
    with pytest.raises(ValueError, match=word):
        run_training(**kwargs)


# ---- the fast training loop equals its plain definition, bit for bit


def _plain_metrics_of(model, task, loss, mapping):
    """explorer.training.metrics_of as first written (a36c17b): the module call, no_grad, a double
    mean per share, five .item() reads. The definition the faster metrics_of must reproduce."""
    logits = model(task.x_train)
    value = loss(logits, task.y_train)
    with torch.no_grad():
        test_logits = model(task.x_test)
        metrics = {
            "loss": value.item(),
            "train_accuracy": (logits.argmax(-1) == task.y_train).double().mean().item(),
            "test_accuracy": (test_logits.argmax(-1) == task.y_test).double().mean().item(),
            "logit_gap": (logits.amax(-1) - logits.amin(-1)).mean().item(),
            "sparsity": (mapping(logits) == 0).double().mean().item(),
        }
    return metrics, value


def _plain_train(model, task, loss, mapping, steps, lr):
    """explorer.training._train as first written: metrics before every update (pretraining too)."""
    history = {"step": [], **{name: [] for name in METRICS}}
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, fused=True)
    for step in range(steps + 1):
        metrics, value = _plain_metrics_of(model, task, loss, mapping)
        history["step"].append(step)
        for name in METRICS:
            history[name].append(metrics[name])
        if step < steps:
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
    return history


def _plain_compare(steps, n_classes, pretrain_steps, seed, k=5, alpha=1.5, hidden=64, lr=0.003):
    """compare_losses (every loss, both starts) by the plain loop above, as first written."""
    from explorer import training

    with training._cpu(seed, 1):
        options = training._TASK_DEFAULTS
        task = make_task(n_classes=n_classes, seed=seed, **options)
        related = make_task(
            n_classes=n_classes,
            seed=seed,
            variant=1,
            **{**options, "shift": 0.5, "train_per_class": 40, "label_noise": 0.0},
        )
        scratch = training._model(task.x_train.shape[1], n_classes, hidden)
        pretrained = copy.deepcopy(scratch)
        _plain_train(pretrained, related, *training._loss_and_mapping("cross_entropy", None, None), pretrain_steps, lr)
        histories = {}
        for start in (False, True):
            for name in LOSSES:
                model = training._model(task.x_train.shape[1], n_classes, hidden)
                model.load_state_dict((pretrained if start else scratch).state_dict())
                histories[(name, start)] = _plain_train(
                    model, task, *training._loss_and_mapping(name, k, alpha), steps, lr
                )
    return histories


def _bits(history):
    """Every recorded value as float.hex (tells -0.0 from 0.0 and keeps NaN comparable)."""
    return {name: [v if isinstance(v, int) else float.hex(v) for v in values] for name, values in history.items()}


def test_history_equals_the_plain_definition(compared):
    plain = _plain_compare(**SMALL, seed=3)
    assert set(plain) == set(compared)
    for key, history in plain.items():
        assert _bits(compared[key].history) == _bits(history), key


@pytest.mark.slow
def test_page_run_equals_the_plain_definition():
    """The over-confidence page's default run (views/registry.py: 100 steps, 20 classes, top-5; the
    page's 150 pretraining steps), seeds 0 and 1 (the load bench's two presses)."""
    for seed in (0, 1):
        fast = compare_losses(100, 20, k=5, seed=seed, pretrain_steps=150)
        plain = _plain_compare(100, 20, 150, seed)
        for key, history in plain.items():
            assert _bits(fast[key].history) == _bits(history), (seed, key)
