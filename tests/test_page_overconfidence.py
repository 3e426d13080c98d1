"""The "Why sparse: over-confidence" page under AppTest: the bound curves are
explorer.training.logit_gap_bound, the training demo runs on Run within its stated time, keeps its
result over reruns, and shows exactly the metrics the run recorded (and a rerun reproduces)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from helpers import assert_ok, assert_readable, figures, run_app, trace

from explorer import training
from explorer.i18n import EN
from explorer.training import LOSSES, logit_gap_bound, run_training
from views.overconfidence import compute as overconfidence_compute
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["overconfidence"].script
RESULT = "_oc_result"
DEFAULT = dict(steps=100, n_classes=20, k=5, seed=0)


def bound_figure(at) -> dict:
    return figures(at)[0]


def test_defaults_show_the_bound_and_wait_for_run(monkeypatch):
    monkeypatch.setattr(overconfidence_compute, "_LAST_RUN", {})  # a fresh server: nothing timed yet
    at = run_app(PAGE)
    assert_ok(at)
    assert at.title[0].value == "Why sparse"
    figs = figures(at)
    assert len(figs) == 1  # no training before Run
    assert_readable(figs[0])
    assert any("Press Run" in i.value for i in at.info)
    assert at.button(key="oc_run")
    # issue 24: the page promised "about 2.5 s" (a fit on another machine) and took 5.9 s; it states no time now
    assert any(
        c.value.startswith(f"8 runs, {150 + 8 * 101} full-batch updates in all. No run has been timed")
        for c in at.caption
    )
    assert not any(re.search(r"\d s\b", c.value) for c in at.caption if "full-batch" in c.value)


@pytest.mark.parametrize("eps,k", [(0.1, 10), (1e-4, 2), (5.0, 10**6), (0.5, 37)])
def test_bound_curves_are_logit_gap_bound(eps, k):
    at = run_app(PAGE, oc_eps=eps, oc_k=k)
    assert_ok(at)
    fig = bound_figure(at)
    ce = trace(fig, EN["overconfidence.ce_curve"])
    topk = trace(fig, EN["overconfidence.topk_curve"].format(k=k))
    n = np.asarray(ce["x"]).astype(int)
    assert n[0] == 2 and n[-1] == 10**6 and fig["layout"]["xaxis"]["type"] == "log"
    np.testing.assert_allclose(ce["y"], [logit_gap_bound(int(m), eps) for m in n], rtol=1e-12)
    np.testing.assert_allclose(topk["y"], [logit_gap_bound(int(m), eps, k=min(k, int(m))) for m in n], rtol=1e-12)
    note = next(c.value for c in at.caption if c.value.startswith("Values from explorer.training.logit_gap_bound"))
    assert f"≥ {logit_gap_bound(10**6, eps):.2f};" in note and f"pₜ = e^−ε = {np.exp(-eps):.4f}" in note
    # the cross-entropy bound grows like log n; top-k stops growing at n = k
    assert ce["y"][-1] - ce["y"][0] == pytest.approx(np.log(10**6 - 1), rel=1e-12)
    beyond = n >= k
    np.testing.assert_allclose(np.asarray(topk["y"])[beyond], np.log(k - 1) - np.log(np.expm1(eps)), rtol=1e-12)


@pytest.mark.parametrize(
    "params,keys",
    [
        (
            dict(oc_eps=-1, oc_k=1, oc_steps=10**9, oc_classes="abc", oc_seed=-5, oc_train_k=1000),
            ("oc_eps", "oc_k", "oc_steps", "oc_classes", "oc_seed", "oc_train_k"),
        ),
        (
            dict(oc_eps="nan", oc_k="2.5", oc_steps="<b>x</b>", oc_classes=4),
            ("oc_eps", "oc_k", "oc_steps", "oc_classes"),
        ),
        (dict(oc_eps="inf", oc_train_k=40, oc_classes=20), ("oc_eps",)),
        (dict(oc_steps=15, oc_classes=7, oc_eps=5.5), ("oc_eps",)),  # off the slider steps: accepted as is
    ],
)
def test_hostile_url_params(params, keys):
    at = run_app(PAGE, **params)
    assert_ok(at)
    text = " ".join(w.value for w in at.warning)
    for key in keys:
        assert key.replace("_", "\\_") in text, key
    if params.get("oc_train_k") == 40:  # valid alone, but k must stay below the classes
        assert "k = 40 needs k < classes = 20: using k = 19." in text
    assert "<b>" not in text
    assert len(figures(at)) == 1
    np.testing.assert_allclose(
        trace(bound_figure(at), EN["overconfidence.ce_curve"])["y"][-1], logit_gap_bound(10**6, 0.1)
    )  # the defaults stand in


@pytest.fixture(scope="module")
def ran():
    """The page after pressing Run at the default settings, and the wall seconds the click took."""
    at = run_app(PAGE)
    began = time.perf_counter()
    at.button(key="oc_run").click().run()
    return at, time.perf_counter() - began


def test_run_reports_its_own_time(ran):
    """The page states the run's measured seconds (how fast it is is a benchmark's business, not a test's:
    a shared 2-core machine takes 3x longer under load). The time is the computation's: a run already
    computed with these settings (by another session or worker: explorer.serving.runs) comes back at once and
    keeps the time it took there."""
    at, _ = ran
    assert_ok(at)
    result = at.session_state[RESULT]
    assert result["settings"] == DEFAULT
    assert result["seconds"] > 0
    assert any(f"Last run: {result['seconds']:.1f} s (measured)" in c.value for c in at.caption)
    # the time stated before the next run is this measured one (scaled to the settings: here the same)
    assert overconfidence_compute.last_run() == (result["seconds"], DEFAULT["steps"], DEFAULT["n_classes"])
    at.run()
    assert any(
        f"about {result['seconds']:.1f} s, scaled from the last run measured on this server "
        f"({result['seconds']:.1f} s for 100 steps and 20 classes" in c.value
        for c in at.caption
    )


def test_shown_metrics_are_the_runs(ran):
    at, _ = ran
    history = at.session_state[RESULT]["history"]
    assert set(history) == {(name, start) for name in LOSSES for start in (False, True)}
    figs = {fig["layout"]["title"]["text"]: fig for fig in figures(at)[1:]}
    assert len(figs) == 4
    for fig in figs.values():
        assert_readable(fig)
    accuracy = next(fig for title, fig in figs.items() if title.startswith("Accuracy"))
    loss = next(fig for title, fig in figs.items() if title.startswith("Training loss"))
    gap = next(fig for title, fig in figs.items() if title.startswith("Mean logit gap"))
    sparsity = next(fig for title, fig in figs.items() if title.startswith("Share of exact zeros"))
    for fig, metric, suffix in (
        (accuracy, "test_accuracy", " (held-out)"),
        (accuracy, "train_accuracy", " (training set)"),
        (loss, "loss", ""),
        (gap, "logit_gap", ""),
        (sparsity, "sparsity", ""),
    ):
        for start, axis in ((False, "x"), (True, "x2")):
            for name, choice in LOSSES.items():
                curve = trace(fig, choice.label + suffix, xaxis=axis)
                assert curve["y"] == history[(name, start)][metric], (metric, name, start)
                assert curve["x"] == list(range(DEFAULT["steps"] + 1))
    # the table's final values and the verdict text come from the same run
    table = at.dataframe[0].value
    assert list(table["held-out accuracy"]) == [
        history[(name, start)]["test_accuracy"][-1] for start in (False, True) for name in LOSSES
    ]
    assert list(table["share of exact zeros"])[1] == pytest.approx(1 - 5 / 20)  # top-5 of 20: exactly 15 zeros
    summary = at.markdown[-1].value
    ce, topk = (history[(name, False)]["test_accuracy"][-1] for name in ("cross_entropy", "sparse_softmax"))
    assert f"from scratch: CE {ce:.3f}, top-k {topk:.3f}" in summary
    diff = {
        start: history[("sparse_softmax", start)]["test_accuracy"][-1]
        - history[("cross_entropy", start)]["test_accuracy"][-1]
        for start in (False, True)
    }
    supported = diff[True] >= 0.01 and diff[False] <= -0.01
    if supported:
        assert any("agrees with the articles' claim" in s.value for s in at.success)
    else:
        assert any("does not reproduce the articles' claim" in w.value for w in at.warning)
    shown = re.search(r"Top-k from scratch: (better|worse|about equal)", summary).group(1)
    assert shown == ("better" if diff[False] >= 0.01 else "worse" if diff[False] <= -0.01 else "about equal")


@pytest.mark.parametrize("name,pretrained", [("sparse_softmax", True), ("cross_entropy", False)])
def test_a_rerun_reproduces_the_shown_curves(ran, name, pretrained):
    at, _ = ran
    again = run_training(
        name,
        steps=DEFAULT["steps"],
        n_classes=DEFAULT["n_classes"],
        pretrained=pretrained,
        seed=DEFAULT["seed"],
        k=DEFAULT["k"],
    )
    accuracy = next(fig for fig in figures(at)[1:] if fig["layout"]["title"]["text"].startswith("Accuracy"))
    axis = "x2" if pretrained else "x"
    assert trace(accuracy, LOSSES[name].label + " (held-out)", xaxis=axis)["y"] == again.history["test_accuracy"]


def test_result_survives_reruns_and_flags_changed_settings(ran):
    at, _ = ran
    history = at.session_state[RESULT]["history"]
    at.number_input(key="oc_eps").set_value(0.5).run()  # another control of the page: no new training
    assert_ok(at)
    assert at.session_state[RESULT]["history"] is history
    assert len(figures(at)) == 5
    assert not any("changed since this run" in w.value for w in at.warning)
    at.slider(key="oc_steps").set_value(50).run()
    assert len(figures(at)) == 5  # the old result stays, marked as such
    assert any("changed since this run" in w.value for w in at.warning)


def test_small_run_via_widgets_and_k_capped():
    at = run_app(PAGE)
    at.slider(key="oc_steps").set_value(10)
    at.slider(key="oc_classes").set_value(5)
    at.number_input(key="oc_train_k").set_value(5).run()
    assert any("using k = 4." in w.value for w in at.warning)
    at.button(key="oc_run").click().run()
    assert_ok(at)
    result = at.session_state[RESULT]
    assert result["settings"] == dict(steps=10, n_classes=5, k=4, seed=0)
    table = at.dataframe[0].value
    assert list(table["share of exact zeros"])[1] == pytest.approx(1 - 4 / 5)
    assert len(result["history"][("entmax", True)]["loss"]) == 11


def test_estimate_scales_the_last_measured_run(monkeypatch):
    monkeypatch.setattr(overconfidence_compute, "_LAST_RUN", {})
    assert overconfidence_compute.oc_updates(100) == 150 + 8 * 101
    assert overconfidence_compute.oc_estimate(100, 20) is None  # nothing measured: no time stated
    overconfidence_compute.record_run(3.0, 100, 20)
    assert overconfidence_compute.oc_estimate(100, 20) == pytest.approx(3.0)
    work = overconfidence_compute.oc_work
    assert overconfidence_compute.oc_estimate(200, 50) == pytest.approx(3.0 * work(200, 50) / work(100, 20))
    assert overconfidence_compute.oc_estimate(200, 20) > 3.0 and overconfidence_compute.oc_estimate(100, 50) > 3.0
    assert training.LOSSES  # the page trains every loss of explorer.training


def test_chinese():
    at = run_app(PAGE)
    at.slider(key="oc_steps").set_value(10)
    at.slider(key="oc_classes").set_value(5).run()
    at.button(key="oc_run").click().run()
    # then Chinese (AppTest cannot run again after the switch: its stored sidebar labels are English)
    at.selectbox(key="lang").set_value("zh").run()
    assert_ok(at)
    assert at.title[0].value == "为何稀疏"
    assert at.button(key="oc_run").label == "运行"
    assert any("最终测试集准确率（从零训练）" in m.value for m in at.markdown)
    assert trace(figures(at)[0], "softmax 交叉熵：s_max − s_min ≥ log(n − 1) − log(e^ε − 1)")
    assert len(figures(at)) == 5 and at.dataframe[0].value.columns[2] == "测试集准确率"
    assert list(at.dataframe[0].value["损失"])[:2] == ["softmax 交叉熵", "稀疏 softmax（top-k）"]
