"""Large-vocabulary methods: Huffman tree, hierarchical softmax, importance sampling, sampled
softmax, NCE, cost helpers."""

import math

import pytest
import torch

from probcore.vocab import (
    COST_METHODS,
    code_length_summary,
    draw_samples,
    entropy_bits,
    expected_path_length,
    hierarchical_softmax,
    hierarchical_softmax_log_prob,
    huffman_tree,
    importance_log_partition,
    importance_sampling_stats,
    measure_costs,
    nce_loss,
    partition_estimate_variance,
    sampled_softmax_loss,
    time_full_softmax,
    time_hierarchical,
    time_sampled,
    zipf_frequencies,
)

D64 = torch.float64


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


FREQS = {
    "zipf50": zipf_frequencies(50, 1.0),
    "zipf300_s1.3": zipf_frequencies(300, 1.3),
    "random": torch.rand(40, generator=gen(1), dtype=D64) + 1e-3,
    "uniform8": torch.ones(8, dtype=D64),
    "uniform13": torch.ones(13, dtype=D64),
    "two": torch.tensor([3.0, 1.0], dtype=D64),
    "one": torch.tensor([1.0], dtype=D64),
}


# ------------------------------------------------------------------ Huffman tree


@pytest.mark.parametrize("name", FREQS)
def test_huffman_codes_prefix_free_and_kraft_equality(name):
    tree = huffman_tree(FREQS[name])
    codes = sorted(tree.code(i) for i in range(tree.n_classes))
    assert len(set(codes)) == len(codes)
    for a, b in zip(codes, codes[1:]):  # in sorted order a prefix sits right before its extensions
        assert not b.startswith(a), (a, b)
    if tree.n_classes > 1:  # full binary tree: sum 2^-len = 1
        assert sum(2.0 ** -len(c) for c in codes) == pytest.approx(1.0, abs=1e-12)
    # each internal node is used, the root is node 0 and starts every path
    used = set().union(*(tree.path(i) for i in range(tree.n_classes)))
    assert used == set(range(tree.n_internal))
    assert all(tree.path(i)[0] == 0 for i in range(tree.n_classes) if tree.n_classes > 1)


@pytest.mark.parametrize("name", FREQS)
def test_huffman_expected_length_within_entropy_bound(name):
    f = FREQS[name]
    tree = huffman_tree(f)
    h, length = entropy_bits(f), expected_path_length(tree, f)
    assert h - 1e-12 <= length < h + 1
    assert length <= math.ceil(math.log2(len(f))) + 1e-12  # never worse than a balanced tree


def test_huffman_known_lengths_and_uniform_is_balanced():
    tree = huffman_tree([0.5, 0.25, 0.125, 0.125])
    assert tree.lengths.tolist() == [1, 2, 3, 3]
    assert expected_path_length(tree, [0.5, 0.25, 0.125, 0.125]) == pytest.approx(1.75)  # = H: dyadic
    assert huffman_tree(torch.ones(16)).lengths.tolist() == [4] * 16  # log2 n
    n = 1000
    zipf = zipf_frequencies(n)
    summary = code_length_summary(zipf)
    assert summary["expected_length"] == expected_path_length(huffman_tree(zipf), zipf)
    assert summary["entropy_bits"] <= summary["expected_length"] < summary["log2_n"] - 1  # Zipf beats log2 n
    assert summary["max_length"] > summary["log2_n"] and summary["n"] == n


def test_zipf_frequencies():
    p = zipf_frequencies(5, 2.0)
    w = torch.tensor([1 / k**2 for k in range(1, 6)], dtype=D64)
    torch.testing.assert_close(p, w / w.sum())
    torch.testing.assert_close(zipf_frequencies(4, 0.0), torch.full((4,), 0.25, dtype=D64))


# ------------------------------------------------------------------ hierarchical softmax


def _hs_setup(n=37, d=5, batch=(3, 2), seed=0):
    g = gen(seed)
    tree = huffman_tree(torch.rand(n, generator=g, dtype=D64) + 0.05)
    vectors = torch.randn(tree.n_internal, d, generator=g, dtype=D64)
    h = torch.randn(*batch, d, generator=g, dtype=D64)
    return tree, vectors, h


def test_hierarchical_softmax_sums_to_one():
    tree, vectors, h = _hs_setup()
    p = hierarchical_softmax(h, vectors, tree)
    assert p.shape == (3, 2, 37)
    assert (p > 0).all()
    torch.testing.assert_close(p.sum(-1), torch.ones(3, 2, dtype=D64), rtol=0, atol=1e-13)
    torch.testing.assert_close(hierarchical_softmax(h, vectors, tree, log=True).exp(), p)


def test_hierarchical_softmax_is_product_of_sigmoids_along_path():
    tree, vectors, h = _hs_setup(n=11, batch=(4,))
    p = hierarchical_softmax(h, vectors, tree)
    for b in range(4):
        for i in range(tree.n_classes):
            prob = 1.0
            for node, bit in zip(tree.path(i), tree.code(i)):
                a = float(h[b] @ vectors[node])
                prob *= 1 / (1 + math.exp(-a)) if bit == "0" else 1 / (1 + math.exp(a))
            assert float(p[b, i]) == pytest.approx(prob, rel=1e-12)


def test_hierarchical_log_prob_matches_full_and_grads():
    tree, vectors, h = _hs_setup()
    target = torch.randint(0, 37, (3, 2), generator=gen(5))
    full = hierarchical_softmax(h, vectors, tree, log=True).gather(-1, target[..., None])[..., 0]
    torch.testing.assert_close(hierarchical_softmax_log_prob(h, vectors, tree, target), full, rtol=0, atol=1e-13)
    v = vectors.clone().requires_grad_()
    hierarchical_softmax_log_prob(h, v, tree, target).sum().backward()
    touched = set(tree.nodes[target][tree.lengths[target][..., None] > torch.arange(tree.max_length)].tolist())
    assert set(v.grad.abs().sum(-1).nonzero()[:, 0].tolist()) <= touched  # only path nodes get gradient


def test_hierarchical_single_class_and_float32():
    tree = huffman_tree([2.0])
    h = torch.randn(4, 3)
    p = hierarchical_softmax(h, torch.zeros(0, 3), tree)
    assert p.shape == (4, 1) and (p == 1).all()
    tree, vectors, h = _hs_setup()
    p32 = hierarchical_softmax(h.float(), vectors.float(), tree)
    assert p32.dtype == torch.float32
    torch.testing.assert_close(p32.sum(-1), torch.ones(3, 2), atol=1e-5, rtol=0)


# ------------------------------------------------------------------ importance sampling


X = torch.randn(50, generator=gen(2), dtype=D64)
UNIFORM = torch.full((50,), 1 / 50, dtype=D64)


def test_is_estimate_unbiased_on_z():
    for q in (UNIFORM, zipf_frequencies(50, 0.7)):
        st = importance_sampling_stats(X, q, m=8, repeats=3000, generator=gen(3))
        assert abs(st.ratio_mean - 1) < 4 * st.ratio_std_err  # E[Z_hat] = Z
        assert st.ratio_var == pytest.approx(st.ratio_var_theory, rel=0.25)
        assert st.log_z_bias < 0  # Jensen: log Z_hat biased low
        assert st.log_z == pytest.approx(float(torch.logsumexp(X, 0)))


def test_is_variance_drops_like_one_over_m():
    var = {m: importance_sampling_stats(X, UNIFORM, m, repeats=2000, generator=gen(m)).ratio_var for m in (4, 16, 64)}
    assert 2.8 < var[4] / var[16] < 5.6
    assert 2.8 < var[16] / var[64] < 5.6
    torch.testing.assert_close(
        partition_estimate_variance(X, UNIFORM, 16) * 16, partition_estimate_variance(X, UNIFORM)
    )


def test_is_exact_when_proposal_is_softmax():
    p = torch.softmax(X, 0)
    st = importance_sampling_stats(X, p, m=3, repeats=50, generator=gen(4))
    assert st.ratio_var < 1e-24 and abs(st.log_z_bias) < 1e-12
    assert abs(float(partition_estimate_variance(X, p))) < 1e-12


def test_is_gradient_converges_to_softmax_and_equals_autograd():
    tvs = [importance_sampling_stats(X, UNIFORM, m, repeats=40, generator=gen(6)).grad_tv for m in (16, 256, 4096)]
    assert tvs[0] > tvs[1] > tvs[2] and tvs[2] < 0.05
    x = X.expand(3, 50).clone().requires_grad_()
    est = importance_log_partition(x, UNIFORM, 20, generator=gen(7))
    assert est.samples.shape == (3, 20) and est.log_z.shape == (3,)
    est.log_z.sum().backward()
    torch.testing.assert_close(x.grad, est.grad)
    torch.testing.assert_close(est.grad.sum(-1), torch.ones(3, dtype=D64))
    est32 = importance_log_partition(X.float(), UNIFORM, 20, generator=gen(7))  # float64 q with float32 x
    assert est32.grad.dtype == est32.log_z.dtype == torch.float32


def test_is_batched_proposal_and_deterministic_under_seed():
    x = torch.randn(2, 3, 30, generator=gen(8), dtype=D64)
    q = torch.softmax(torch.randn(2, 3, 30, generator=gen(9), dtype=D64), -1)
    a = importance_log_partition(x, q, 7, generator=gen(10))
    b = importance_log_partition(x, q, 7, generator=gen(10))
    assert a.log_z.shape == (2, 3)
    assert torch.equal(a.samples, b.samples) and torch.equal(a.log_z, b.log_z)
    torch.testing.assert_close(
        importance_log_partition(x, torch.softmax(x, -1), 5, generator=gen(0)).log_z, torch.logsumexp(x, -1)
    )
    assert importance_sampling_stats(X, UNIFORM, 5, 30, gen(1)) == importance_sampling_stats(X, UNIFORM, 5, 30, gen(1))


def test_draw_samples_matches_proposal():
    q = zipf_frequencies(6, 1.0)
    s = draw_samples(q, 20000, (3,), gen(11))
    assert s.shape == (3, 20000)
    torch.testing.assert_close(torch.bincount(s.flatten(), minlength=6) / 60000.0, q.float(), atol=0.01, rtol=0)


# ------------------------------------------------------------------ sampled softmax


def test_sampled_softmax_loss_value_and_gradient_converges():
    x_t, x_s = torch.tensor([1.0, -0.5], dtype=D64), torch.tensor([[0.2, 2.0, -1.0], [0.0, 0.3, 0.1]], dtype=D64)
    lq_t, lq_s = torch.log(torch.tensor([0.1, 0.2], dtype=D64)), torch.log(torch.tensor([0.3, 0.3, 0.4], dtype=D64))
    a_t = torch.exp(x_t - lq_t)
    hand = -torch.log(a_t / (a_t + torch.exp(x_s - lq_s).sum(-1)))
    torch.testing.assert_close(sampled_softmax_loss(x_t, x_s, lq_t, lq_s, reduction="none"), hand)
    torch.testing.assert_close(sampled_softmax_loss(x_t, x_s, lq_t, lq_s, reduction="sum"), hand.sum())

    n, target = 20, torch.tensor([3, 17])
    logits = torch.randn(2, n, generator=gen(12), dtype=D64).requires_grad_()
    q = zipf_frequencies(n, 0.5)
    neg = draw_samples(q, 40000, (2,), gen(13))
    loss = sampled_softmax_loss(
        logits.gather(-1, target[:, None])[:, 0], logits.gather(-1, neg), q.log()[target], q.log()[neg], reduction="sum"
    )
    (grad,) = torch.autograd.grad(loss, logits)
    exact = torch.softmax(logits.detach(), -1) - torch.nn.functional.one_hot(target, n)
    torch.testing.assert_close(grad, exact, atol=0.02, rtol=0)


# ------------------------------------------------------------------ NCE


def test_nce_loss_hand_computed():
    sig = lambda a: 1 / (1 + math.exp(-a))  # noqa: E731
    k = 2
    x_t, lq_t = 1.0, math.log(0.25)
    x_n, lq_n = [0.5, -1.0], [math.log(0.25), math.log(0.5)]
    hand = -math.log(sig(x_t - math.log(k * 0.25)))
    hand -= math.log(1 - sig(0.5 - math.log(k * 0.25))) + math.log(1 - sig(-1.0 - math.log(k * 0.5)))
    got = nce_loss(
        torch.tensor(x_t, dtype=D64),
        torch.tensor(x_n, dtype=D64),
        torch.tensor(lq_t, dtype=D64),
        torch.tensor(lq_n, dtype=D64),
        k,
    )
    assert float(got) == pytest.approx(hand, rel=1e-12)
    batch = nce_loss(
        torch.full((3,), x_t), torch.tensor([x_n] * 3), torch.tensor(lq_t), torch.tensor(lq_n), k, reduction="none"
    )
    torch.testing.assert_close(batch, torch.full((3,), hand, dtype=torch.float32))


def test_nce_minimiser_is_normalised_log_data_distribution():
    p_data = torch.tensor([0.4, 0.3, 0.15, 0.1, 0.05], dtype=D64)
    q = torch.tensor([0.1, 0.3, 0.2, 0.2, 0.2], dtype=D64)
    n_data, k = 6000, 10
    data = draw_samples(p_data, n_data, generator=gen(14))
    noise = draw_samples(q, k, (n_data,), gen(15))
    logq_data, logq_noise = q.log()[data], q.log()[noise]
    theta = torch.zeros(5, dtype=D64, requires_grad=True)  # free unnormalised log-scores
    opt = torch.optim.LBFGS(
        [theta], max_iter=100, tolerance_grad=1e-12, tolerance_change=1e-15, line_search_fn="strong_wolfe"
    )

    def closure():
        opt.zero_grad()
        loss = nce_loss(theta.take(data), theta.take(noise), logq_data, logq_noise, k)
        loss.backward()
        return loss

    opt.step(closure)
    probs = theta.detach().exp()
    assert float(probs.sum()) == pytest.approx(1.0, abs=0.03)  # self-normalised, Z never computed
    torch.testing.assert_close(probs, p_data, atol=0.02, rtol=0)
    # exact empirical optimum: sigma(theta - log kq) = c / (c + noise count) => theta = log(k q c / noise count)
    c, nc = torch.bincount(data, minlength=5), torch.bincount(noise.flatten(), minlength=5)
    torch.testing.assert_close(theta.detach(), torch.log(k * q * c / nc), atol=1e-6, rtol=0)


# ------------------------------------------------------------------ costs


def test_cost_helpers_return_positive_seconds():
    costs = measure_costs(2000, d=16, m=8, batch=4, repeats=3)
    assert set(costs) == set(COST_METHODS)
    assert all(0 < t < 1 for t in costs.values())
    for t in (
        time_full_softmax(500, 8, repeats=2),
        time_hierarchical(500, 8, repeats=2),
        time_sampled(500, 8, 4, repeats=2),
        measure_costs(1, 4, repeats=1)["hierarchical"],
    ):
        assert 0 < t < 1


# ------------------------------------------------------------------ bad input

Z3, Z0 = torch.zeros(3), torch.zeros(())


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: importance_log_partition(X, UNIFORM, 0), "m must be an integer >= 1"),
        (lambda: importance_sampling_stats(X, UNIFORM, 0), "m must be"),
        (lambda: importance_sampling_stats(X, UNIFORM, 4, repeats=1), "repeats must be an integer >= 2"),
        (lambda: importance_sampling_stats(X.expand(2, 50), UNIFORM, 4), "x must be 1-D"),
        (lambda: draw_samples(UNIFORM, 0), "m must be"),
        (lambda: draw_samples(UNIFORM.expand(2, 50), 3, (3,)), r"q must have shape \(n,\) or \(3,\)"),
        (lambda: partition_estimate_variance(X, UNIFORM, 0), "m must be"),
        (lambda: importance_log_partition(X, UNIFORM[:-1] * 50 / 49, 3), r"q must have shape \(50,\)"),
        (lambda: importance_log_partition(X, UNIFORM * 2, 3), "q must sum to 1"),
        (
            lambda: importance_log_partition(X, torch.cat([UNIFORM[:-1] * 50 / 49, torch.zeros(1, dtype=D64)]), 3),
            r"q entries must be in \(0, 1\]",
        ),
        (lambda: importance_log_partition(torch.arange(50), UNIFORM, 3), "x must be a floating tensor"),
        (lambda: nce_loss(Z3, torch.zeros(3, 0), Z0, Z0, 0), "k must be an integer >= 1"),
        (lambda: nce_loss(Z3, torch.zeros(3, 4), Z0, Z0, 5), "x_noise must have shape"),
        (lambda: nce_loss(Z3, torch.zeros(3, 4), torch.zeros(2), Z0, 4), "logq_target must be broadcastable"),
        (lambda: nce_loss(Z3, torch.zeros(3, 4), Z0, torch.zeros(3, 4), 4, reduction="avg"), "reduction"),
        (lambda: sampled_softmax_loss(Z3, torch.zeros(3, 0), Z0, Z0), "m >= 1"),
        (lambda: sampled_softmax_loss(Z3, torch.zeros(2, 4), Z0, Z0), "x_sampled must have shape"),
        (lambda: sampled_softmax_loss(Z3, torch.zeros(3, 4), Z0, torch.zeros(5)), "logq_sampled must be broadcastable"),
        (lambda: huffman_tree([1.0, 0.0, 2.0]), r"freqs entries must be in \(0, inf\)"),
        (lambda: huffman_tree([1.0, -2.0]), "freqs entries"),
        (lambda: huffman_tree([1.0, float("nan")]), "freqs entries"),
        (lambda: huffman_tree([]), "freqs must be a 1-D sequence"),
        (lambda: huffman_tree([[1.0, 2.0]]), "freqs must be a 1-D sequence"),
        (lambda: expected_path_length(huffman_tree([1.0, 2.0]), [1.0, 2.0, 3.0]), "freqs must have 2 entries"),
        (lambda: zipf_frequencies(0), "n must be an integer >= 1"),
        (lambda: zipf_frequencies(5, -1.0), r"s must be in \[0, inf\)"),
        (
            lambda: hierarchical_softmax(
                torch.zeros(2, 3, dtype=D64), torch.zeros(4, 3, dtype=D64), huffman_tree([1.0] * 4)
            ),
            r"node_vectors must have shape \(3, 3\)",
        ),
        (
            lambda: hierarchical_softmax(
                torch.zeros(2, 3, dtype=D64), torch.zeros(3, 2, dtype=D64), huffman_tree([1.0] * 4)
            ),
            "node_vectors must have shape",
        ),
        (
            lambda: hierarchical_softmax(torch.zeros(2, 3), torch.zeros(3, 3, dtype=D64), huffman_tree([1.0] * 4)),
            "dtype",
        ),
        (
            lambda: hierarchical_softmax_log_prob(
                torch.zeros(2, 3), torch.zeros(3, 3), huffman_tree([1.0] * 4), torch.tensor([0, 1, 2])
            ),
            "target must be a long tensor of shape",
        ),
        (
            lambda: hierarchical_softmax_log_prob(
                torch.zeros(2, 3), torch.zeros(3, 3), huffman_tree([1.0] * 4), torch.tensor([0, 4])
            ),
            r"target entries must be in \[0, 3\]",
        ),
        (lambda: measure_costs(0), "n must be"),
        (lambda: measure_costs(10, m=0), "m must be"),
        (lambda: measure_costs(10, methods=("full", "fast")), "methods must be"),
    ],
)
def test_bad_parameters_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
