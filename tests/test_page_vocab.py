"""The "Large vocabularies" page under AppTest: defaults, extreme and hostile settings, Chinese, the
measurement button, and figures whose values equal probcore.vocab's, recomputed here with the
same seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest
from helpers import figure, assert_ok, assert_readable, figures, run_app, trace

from explorer.i18n import EN, ZH
from probcore import vocab
from views.vocab import compute as vocab_compute
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["vocab"].script
D64 = torch.float64


def metric(at, label: str) -> str:
    found = [m.value for m in at.metric if m.label == label]
    assert found, (label, [m.label for m in at.metric])
    return found[0]


def logits(n, s, sigma, seed):
    """The page's recipe: log Zipf(s) frequencies + sigma * N(0, 1) from torch's generator."""
    noise = torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=D64)
    return vocab.zipf_frequencies(n, s).log() + sigma * noise


def proposals(n, s):
    return {"uniform": torch.full((n,), 1.0 / n, dtype=D64), "unigram": vocab.zipf_frequencies(n, s)}


def label(key: str) -> str:
    return EN[f"vocab.proposal_{key}"]


def test_defaults_render_every_section():
    at = run_app(PAGE)
    assert_ok(at)
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert len(titles) == 6  # no tree at n = 1000, no cost plot before the button
    for fig in figures(at):
        assert_readable(fig)
    assert any("the tree is drawn up to n = 32" in c.value for c in at.caption)
    assert any("Not measured yet" in c.value for c in at.caption)
    assert float(metric(at, EN["vocab.hs_sum"])) == pytest.approx(1.0, abs=1e-9)


def test_hierarchical_softmax_sum_and_code_lengths_equal_probcore():
    n, s, seed = 20, 1.3, 5
    at = run_app(PAGE, vocab_n=n, vocab_s=s, vocab_seed=seed)
    assert_ok(at)
    tree = vocab.huffman_tree(vocab.zipf_frequencies(n, s))
    g = torch.Generator().manual_seed(seed)  # the page draws the node vectors first, then h
    vectors = torch.randn(n - 1, vocab_compute.VOCAB_D, generator=g, dtype=D64)
    h = torch.randn(vocab_compute.VOCAB_D, generator=g, dtype=D64)
    p = vocab.hierarchical_softmax(h, vectors, tree)
    shown = float(metric(at, EN["vocab.hs_sum"]))
    assert abs(shown - float(p.sum())) < 1e-6 and abs(shown - 1) < 1e-6

    leaves = trace(figure(at, "Huffman tree"), EN["vocab.fig_leaf"])
    np.testing.assert_allclose(leaves["marker"]["color"], p.numpy(), rtol=1e-12)
    assert [int(v) for v in leaves["text"]] == list(range(n))
    assert len(trace(figure(at, "Huffman tree"), EN["vocab.fig_internal"])["x"]) == n - 1

    freqs = vocab.zipf_frequencies(n, s)
    lengths = figure(at, "Code (path) lengths")
    entropy, expected = vocab.entropy_bits(freqs), vocab.expected_path_length(tree, freqs)
    assert trace(lengths, EN["vocab.fig_entropy"].format(value=entropy))["x"][0] == pytest.approx(entropy, rel=1e-6)
    assert trace(lengths, EN["vocab.fig_expected"].format(value=expected))["x"][0] == pytest.approx(expected, rel=1e-6)
    share = trace(lengths, EN["vocab.fig_share_classes"])
    counts = np.bincount(tree.lengths.numpy())[1:] / n
    np.testing.assert_allclose(share["y"], counts, rtol=1e-6)

    bound = figure(at, "Expected path length against n")
    want = [
        vocab.code_length_summary(vocab.zipf_frequencies(k, s))["expected_length"] for k in vocab_compute.VOCAB_BOUND_NS
    ]
    np.testing.assert_allclose(trace(bound, EN["vocab.fig_expected_n"])["y"], want, rtol=1e-6)
    assert all(h_ <= e < h_ + 1 + 1e-6 for h_, e in zip(trace(bound, EN["vocab.fig_entropy_n"])["y"], want))


def test_log_z_estimates_equal_probcore_with_the_same_seed():
    n, s, sigma, seed = 300, 0.8, 1.5, 3
    at = run_app(PAGE, vocab_n=n, vocab_s=s, vocab_sigma=sigma, vocab_seed=seed)
    assert_ok(at)
    x = logits(n, s, sigma, seed)
    assert float(metric(at, EN["vocab.log_z"])) == pytest.approx(float(torch.logsumexp(x, 0)), abs=1e-6)
    log_z_fig, bias_fig, grad_fig = (
        figure(at, "log Ẑ against m"),
        figure(at, "Bias and variance"),
        figure(at, "Error of"),
    )
    for key, q in proposals(n, s).items():
        stats = [
            vocab.importance_sampling_stats(x, q, m, vocab_compute.VOCAB_REPEATS, torch.Generator().manual_seed(seed))
            for m in vocab_compute.VOCAB_MS
        ]
        tr = trace(log_z_fig, label(key))
        assert tr["x"] == list(vocab_compute.VOCAB_MS)
        np.testing.assert_allclose(tr["y"], [st.log_z + st.log_z_bias for st in stats], rtol=1e-6)
        np.testing.assert_allclose(tr["error_y"]["array"], [math.sqrt(st.log_z_var) for st in stats], rtol=1e-5)
        bias = [tr_ for tr_ in bias_fig["data"] if tr_["name"] == label(key) and tr_["xaxis"] == "x"][0]
        np.testing.assert_allclose(bias["y"], [st.log_z_bias for st in stats], rtol=1e-5, atol=1e-9)
        var = [tr_ for tr_ in bias_fig["data"] if tr_["name"] == label(key) and tr_["xaxis"] == "x2"][0]
        np.testing.assert_allclose(var["y"], [st.ratio_var for st in stats], rtol=1e-5)
        theory = trace(bias_fig, EN["vocab.fig_var_theory"].format(q=label(key)))
        np.testing.assert_allclose(
            theory["y"], [float(vocab.partition_estimate_variance(x, q, m)) for m in vocab_compute.VOCAB_MS], rtol=1e-5
        )
        np.testing.assert_allclose(trace(grad_fig, label(key))["y"], [st.grad_tv for st in stats], rtol=1e-5)
        assert (
            metric(at, EN["vocab.chi2"].format(q=label(key))) == f"{float(vocab.partition_estimate_variance(x, q)):.4g}"
        )
    # unbiased Z, log Z biased low: the mean of log Z_hat rises towards log Z as m grows
    ys = trace(log_z_fig, label("uniform"))["y"]
    assert ys[0] < ys[-1] < float(torch.logsumexp(x, 0)) + 0.05


def test_nce_values_equal_probcore_nce_loss():
    n, s, sigma, seed = 200, 1.0, 1.0, 4
    at = run_app(PAGE, vocab_n=n, vocab_s=s, vocab_sigma=sigma, vocab_seed=seed)
    assert_ok(at)
    logp = torch.log_softmax(logits(n, s, sigma, seed), 0)
    q = vocab.zipf_frequencies(n, s)
    g = torch.Generator().manual_seed(seed)
    t = int(torch.multinomial(logp.exp(), 1, generator=g))
    assert metric(at, EN["vocab.nce_target"]) == str(t)
    assert float(metric(at, EN["vocab.nce_ce"])) == pytest.approx(-float(logp[t]), abs=1e-6)
    means = []
    for k in vocab_compute.VOCAB_KS:
        noise = vocab.draw_samples(q, k, (vocab_compute.VOCAB_REPEATS,), g)
        loss = vocab.nce_loss(
            logp[t].expand(vocab_compute.VOCAB_REPEATS), logp[noise], q.log()[t], q.log()[noise], k, reduction="none"
        )
        means.append(float(loss.mean()))
    fig = figure(at, "NCE against k")
    sampled = trace(fig, EN["vocab.fig_nce_sampled"])
    np.testing.assert_allclose(sampled["y"], means, rtol=1e-5)
    exact = np.array(trace(fig, EN["vocab.fig_nce_exact"])["y"])
    sd = np.array(sampled["error_y"]["array"])
    assert (np.abs(exact - means) < 4 * sd / math.sqrt(vocab_compute.VOCAB_REPEATS) + 1e-6).all()  # mean ~ expectation
    limit = np.array(trace(fig, EN["vocab.fig_nce_limit"])["y"])
    assert abs(exact[-1] - limit[-1]) < abs(exact[0] - limit[0])  # E[L] -> CE + log(k q_t) + 1
    bias = trace(fig, EN["vocab.fig_nce_grad_exact"])["y"]
    assert bias[-1] < 0.1 * bias[0]  # the NCE gradient tends to the softmax CE gradient


@pytest.mark.parametrize(
    "params",
    [
        dict(vocab_n=2, vocab_s=0, vocab_sigma=0),
        dict(vocab_n=2, vocab_s=3, vocab_sigma=4, vocab_seed=2**31 - 1),
        dict(vocab_n=32, vocab_s=3),
        dict(vocab_n=100_000, vocab_s=3, vocab_sigma=4),
        dict(vocab_n=100_000, vocab_s=0, vocab_sigma=0),
    ],
    ids=lambda p: ",".join(f"{k[6:]}={v}" for k, v in p.items()),
)
def test_extreme_settings(params):
    at = run_app(PAGE, **params)
    assert_ok(at)
    assert float(metric(at, EN["vocab.hs_sum"])) == pytest.approx(1.0, abs=1e-9)
    if params["vocab_n"] <= vocab_compute.VOCAB_TREE_MAX_N:
        assert figure(at, "Huffman tree")
    if params.get("vocab_sigma") == 0 and params.get("vocab_s") == 0:  # q = softmax(x) for both proposals
        assert any("Ẑ is exact" in i.value for i in at.info)
        assert metric(at, EN["vocab.entropy"]) == metric(at, EN["vocab.log2n"])  # uniform: H = log2 n


def test_widgets_change_the_view_and_the_url():
    at = run_app(PAGE)
    at.number_input(key="vocab_n").set_value(12).run()
    at.slider(key="vocab_s").set_value(0.0).run()
    at.number_input(key="vocab_seed").set_value(9).run()
    assert_ok(at)
    assert dict(at.query_params) == {"vocab_n": "12", "vocab_s": "0", "vocab_seed": "9"}
    leaves = trace(figure(at, "Huffman tree of n = 12"), EN["vocab.fig_leaf"])
    assert len(leaves["x"]) == 12
    lengths = figure(at, "Code (path) lengths, n = 12, s = 0")
    assert trace(lengths, EN["vocab.fig_log2_n"].format(value=math.log2(12)))  # s = 0: uniform, H = log2 n
    assert trace(lengths, EN["vocab.fig_entropy"].format(value=math.log2(12)))


@pytest.mark.parametrize(
    "params,key",
    [
        (dict(vocab_n="0"), "vocab_n"),
        (dict(vocab_n="abc"), "vocab_n"),
        (dict(vocab_n="1000001"), "vocab_n"),
        (dict(vocab_s="-1"), "vocab_s"),
        (dict(vocab_s="nan"), "vocab_s"),
        (dict(vocab_sigma="1e9"), "vocab_sigma"),
        (dict(vocab_seed="-5"), "vocab_seed"),
        (dict(vocab_n="[x](https://example.com)"), "vocab_n"),
    ],
)
def test_hostile_url_params_give_a_message_and_the_default(params, key):
    at = run_app(PAGE, **params)
    assert_ok(at)
    text = " ".join(w.value for w in at.warning).replace("\\", "")
    assert key in text, text
    assert "](" not in " ".join(w.value for w in at.warning)
    assert metric(at, EN["vocab.expected_len"]) == run_app(PAGE).metric[2].value  # defaults stand in


def test_measure_button_times_every_method_and_keeps_the_result():
    at = run_app(PAGE)
    at.button(key="vocab_measure").click().run()
    assert_ok(at)
    fig = figure(at, EN["vocab.cost_title"])
    for meth in vocab.COST_METHODS:
        tr = trace(fig, EN[f"vocab.method_{meth}"])
        assert tr["x"] == list(vocab_compute.VOCAB_COST_NS) and all(v > 0 for v in tr["y"])
    assert any("Measured in" in c.value for c in at.caption)
    at.slider(key="vocab_s").set_value(1.5).run()  # another rerun: the measurement stays
    assert figure(at, EN["vocab.cost_title"])


def in_chinese(at: AppTest) -> AppTest:
    """The page switched to Chinese by its sidebar control. (?lang=zh with AppTest's switch before a
    first run no longer reaches the page: before its first run AppTest finds a page by its file name,
    and every page's script is now views/<page>/page.py; a browser goes by the URL path.)"""
    at.selectbox(key="lang").set_value("zh").run()
    return at


def test_chinese():
    at = in_chinese(run_app(PAGE, vocab_n=10))
    assert_ok(at)
    assert at.title[0].value == ZH["page.vocab"]
    assert ZH["vocab.hs"] in [s.value for s in at.subheader]
    axes = {f["layout"].get("xaxis", {}).get("title", {}).get("text") for f in figures(at)}
    assert ZH["vocab.fig_m"] in axes and ZH["vocab.fig_n"] in axes


def test_training_nce_learns_minus_log_z_and_sampled_softmax_learns():
    """The training section: NCE's learned c approaches -log Z of the offset logits (recomputed here),
    and both the full and the sampled softmax lower the KL divergence to the data."""
    at = run_app(PAGE, vocab_n=200, vocab_train_steps=200, vocab_train_offset=2.5)
    assert any("Not trained yet" in c.value for c in at.caption)
    at.button(key="vocab_train").click().run()
    assert_ok(at)
    x = logits(200, 1.0, 1.0, 0) + 2.5
    minus_log_z = -float(torch.logsumexp(x, 0))
    nce = figure(at, "NCE learns c = −log Z")
    c = np.asarray(trace(nce, "learned c")["y"])
    assert c[0] == 0.0 and abs(c[-1] - minus_log_z) < 0.15 < abs(c[0] - minus_log_z)
    kl = figure(at, "Learning the scores")
    p = torch.softmax(x, 0)
    uniform_kl = float((p * (p.log() + math.log(200))).sum())  # theta = 0 at the start
    for name in (EN["vocab.method_full"], "sampled softmax, m = 64"):
        curve = np.asarray(trace(kl, name)["y"])
        assert curve[-1] < 0.2 * uniform_kl


def test_training_runs_in_the_job_process_not_the_script(monkeypatch):
    """Train goes through explorer.serving.jobs (a queued run in the job process, identical settings computed
    once), never in the page's script thread: with the training functions broken in this process,
    the page still gets its result."""

    def not_here(*args, **kwargs):
        raise AssertionError("training ran in the script's thread")

    monkeypatch.setattr(vocab_compute, "nce_self_normalisation", not_here)
    monkeypatch.setattr(vocab_compute, "sampled_softmax_training", not_here)
    at = run_app(PAGE, vocab_n=50, vocab_train_steps=20)
    at.button(key="vocab_train").click().run()
    assert_ok(at)
    assert figure(at, "NCE learns c = −log Z") and figure(at, "Learning the scores")
