"""Issue 23, the topics of the five source articles that were on no page: every number and
every "always / never / exactly" claim of the new sections recomputed here in numpy / scipy,
independently of the page's code (own sorts, bisections, quadratures, closed forms), then found
in the text the page shows. tests/content_claims_new.md lists each claim with its test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from views.attention.strings import STRINGS as STRINGS_ATTENTION
from helpers import assert_ok, run_app
from scipy import integrate, stats

from explorer.i18n import EN, ZH
from views.attention import compute as attention_compute
from views.overconfidence import compute as overconfidence_compute
from views.registry import PAGES as REGISTRY

X = np.array([1.2, 0.3, -0.5])  # the explorer's default logits


def captions(page: str, **params) -> str:
    at = run_app(REGISTRY[page].script, **params)
    assert_ok(at)
    return "\n".join(c.value for c in at.caption)


def np_softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def np_sparsemax(z: np.ndarray) -> tuple[np.ndarray, float]:
    """Sparsemax by sorting (Martins & Astudillo): p and lambda."""
    zs = np.sort(z)[::-1]
    k = np.arange(1, len(z) + 1)
    cs = np.cumsum(zs)
    big_k = k[1 + k * zs > cs].max()
    lam = (cs[big_k - 1] - 1) / big_k
    return np.maximum(z - lam, 0), lam


def np_entmax_bisect(z: np.ndarray, alpha: float, iters: int = 200) -> tuple[np.ndarray, float]:
    """alpha-entmax of x = z by bisection on tau: p = relu((alpha-1) z - tau)^(1/(alpha-1))."""
    w = (alpha - 1) * z
    lo, hi = w.max() - 1, w.max()
    for _ in range(iters):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.sum(np.maximum(w - mid, 0) ** (1 / (alpha - 1))) >= 1 else (lo, mid)
    tau = (lo + hi) / 2
    return np.maximum(w - tau, 0) ** (1 / (alpha - 1)), tau


# ---------------------------------------------------------------- 1. Taylor softmax, linear attention


def test_taylor_polynomial_is_positive_and_factors_through_features():
    s = np.linspace(-50, 50, 100001)
    assert (1 + s + s**2 / 2).min() == pytest.approx(0.5, abs=1e-6)  # > 0 for every s (minimum 1/2 at s = -1)
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=(5, 4)), rng.normal(size=(7, 4))
    c = 0.5
    f = 1 + c * q @ k.T + (c * q @ k.T) ** 2 / 2
    fq, fk = attention_compute.taylor_features(q, c), attention_compute.taylor_features(k, c)
    assert fq.shape[1] == 1 + 4 + 16
    np.testing.assert_allclose(fq @ fk.T, f, rtol=1e-12)


@pytest.mark.slow  # a whole page under AppTest
def test_attention_taylor_note_numbers():
    length, dim = attention_compute.TAYLOR_LENGTH, attention_compute.TAYLOR_DIM
    q, k, v = attention_compute.attention_inputs(length, dim, length, 0)
    s = q @ k.T / math.sqrt(dim)
    f = 1 + s + s**2 / 2
    w = f / f.sum(1, keepdims=True)
    soft = np.exp(s - s.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    features = 1 + dim + dim**2
    even = features * (dim + 1) / dim  # 2 L^2 d = 2 L D (d + 1)
    assert 2 * 27**2 * dim > 2 * 27 * features * (dim + 1) > 0 and 2 * 26**2 * dim < 2 * 26 * features * (dim + 1)
    tmin, smin = np.median(w.min(1)), np.median(soft.min(1))
    assert tmin > 5 * smin  # the longer tail
    text = captions("attention")
    c = 1 / math.sqrt(dim)  # features built here: (1, sqrt(c) u, c u_a u_b / sqrt 2 for every pair a, b)

    def phi(u):
        return np.hstack(
            [
                np.ones((len(u), 1)),
                math.sqrt(c) * u,
                np.stack([c * u[:, a] * u[:, b] / math.sqrt(2) for a in range(dim) for b in range(dim)], 1),
            ]
        )

    linear = (phi(q) @ (phi(k).T @ v)) / (phi(q) @ phi(k).sum(0))[:, None]
    np.testing.assert_allclose(linear, w @ v, atol=1e-12)
    assert "the linear form equals the quadratic one (probcore.taylor_softmax over the L × L scores) to " in text
    assert (
        f"Multiply-adds: {2 * length**2 * dim:,} (2 L² d) against {2 * length * features * (dim + 1):,}"
        f" (2 L D (d + 1), D = {features} features)"
    ) in text
    assert f"L > D (d + 1)/d = {even:.4g}" in text
    assert f"Taylor softmax {tmin:.3g}, softmax {smin:.3g}" in text


# ---------------------------------------------------------------- 2. why top-k


@pytest.mark.slow
def test_why_topk_note_numbers():
    x, target, k = overconfidence_compute_example()
    p = np_softmax(np.array(x))
    outside = np.argsort(-np.array(x))[k:]
    # cross-entropy's gradient is p - e_t: p itself off the target; the top-k loss's is 0 off the top k
    text = captions("overconfidence")
    assert f"softmax puts {p[outside].sum():.3f} of its mass on the {len(outside)} classes outside the top k" in text
    assert (
        f"cross-entropy's gradient is ({', '.join(f'{v:.3g}' for v in p[outside])}), the top-k loss's (0, 0, 0)" in text
    )


def overconfidence_compute_example():
    import ast

    source = open(REGISTRY["overconfidence"].script, encoding="utf-8").read()
    line = next(ln for ln in source.splitlines() if ln.startswith("TOPK_EXAMPLE = "))
    return ast.literal_eval(line.split("=", 1)[1].split("#")[0].strip())


def test_topk_loss_gradient_is_zero_off_the_top_k_but_not_at_a_cut_target():
    import torch
    from probcore import losses

    x = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0], dtype=torch.float64, requires_grad=True)
    losses.sparse_softmax_loss(x, torch.tensor(4), k=2).backward()  # the target is cut
    assert x.grad[4] == -1.0 and (x.grad[2:4] == 0).all()  # "(other than the target's)"
    r = overconfidence_compute.topk_gradients((2.0, 1.0, 0.5, 0.0, -1.0), 0, 2)
    assert (r["topk_outside"] == 0).all()


# ---------------------------------------------------------------- 3. exact 1.5-entmax, bisection bracket


def test_entmax15_sorted_rule_and_no_real_root_rule_on_random_logits():
    rng = np.random.default_rng(0)
    for _ in range(300):
        x = rng.normal(size=rng.integers(2, 9)) * rng.choice([0.3, 1, 3])
        p, _ = np_entmax_bisect(x, 1.5)
        z = np.sort(x / 2)[::-1]
        support = int(np.sum(p > 1e-12))
        kk = np.arange(1, len(z) + 1)
        mu = np.cumsum(z) / kk
        var = np.cumsum(z**2) / kk - mu**2
        assert 1 / support - var[support - 1] >= -1e-12  # the support's k always has a real root
        lam = mu[support - 1] - math.sqrt(max(1 / support - var[support - 1], 0))
        after = z[support] if support < len(z) else -np.inf
        assert z[support - 1] >= lam - 1e-9 and lam >= after - 1e-9  # and satisfies the rule
        np.testing.assert_allclose(np.maximum(x / 2 - lam, 0) ** 2, p, atol=1e-9)
        bad = 1 / kk < var  # no real root: sum of (z_i - lam)^2 >= k var > 1 for any lam
        assert not bad[support - 1]


def test_bisection_bracket_after_the_shift():
    for alpha in (1.1, 1.25, 1.5, 3.0):
        z = (alpha - 1) * X
        z = z - z.max() + 1
        g = lambda lam, z=z, alpha=alpha: np.sum(np.maximum(z - lam, 0) ** (1 / (alpha - 1)))  # noqa: E731
        assert g(0.0) >= 1 and g(1.0) == 0
        lo, hi = 0.0, 1.0
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if g(mid) >= 1 else (lo, mid)
        assert 0 <= lo < 1


@pytest.mark.slow
def test_sparse_from_exp_new_notes():
    z = np.sort(X / 2)[::-1]
    p, _ = np_entmax_bisect(X, 1.5)
    w = 0.25 * X - (0.25 * X).max() + 1
    lam = 0.0
    lo, hi = 0.0, 1.0
    for _ in range(200):
        lam = (lo + hi) / 2
        lo, hi = (lam, hi) if np.sum(np.maximum(w - lam, 0) ** 4) >= 1 else (lo, lam)
    text = captions("sparse_from_exp")
    kk = int(np.sum(p > 0))
    mu, var = z[:kk].mean(), z[:kk].var()
    assert f"the rule picks k = {kk}: λ = {mu - math.sqrt(1 / kk - var):.6g}" in text
    assert f"g(0) = {np.sum(np.maximum(w, 0) ** 4):.4g}, g(1) = 0, and probcore's λ = {lo:.4g} lies in [0, 1)" in text
    sig1 = 1 / (1 + math.exp(-1))
    assert f"differ by at most 0.0e+00 on this grid. At t = 1 sparsemax gives 1 and softmax σ(1) = {sig1:.4g}." in text


def test_binary_sparsemax_is_the_hard_sigmoid():
    for t in np.linspace(-3, 3, 601):
        p, _ = np_sparsemax(np.array([t, 0.0]))
        assert p[0] == pytest.approx(min(max((t + 1) / 2, 0), 1), abs=1e-15)
        if t <= -1:
            assert p[0] == 0.0  # exactly 0
        if t >= 1:
            assert p[0] == 1.0  # exactly 1
    h = 1e-6
    assert (np_sparsemax(np.array([h, 0.0]))[0][0] - np_sparsemax(np.array([-h, 0.0]))[0][0]) / (
        2 * h
    ) == pytest.approx(0.5)
    sig = lambda t: 1 / (1 + math.exp(-t))  # noqa: E731
    assert (sig(h) - sig(-h)) / (2 * h) == pytest.approx(0.25)
    assert 0 < sig(-30) < sig(30) < 1  # the sigmoid stays strictly inside (0, 1)


# ---------------------------------------------------------------- 4, 5. the sparsemax loss derived, the entmax loss written out


def sparsemax_loss_np(x: np.ndarray, t: int) -> float:
    _, lam = np_sparsemax(x)
    s = x > lam
    return 0.5 - x[t] + 0.5 * float(np.sum(x[s] ** 2 - lam**2))


def test_sparsemax_loss_gradient_and_the_half():
    rng = np.random.default_rng(1)
    for _ in range(100):
        x = rng.normal(size=5) * 2
        t = int(rng.integers(5))
        p, lam = np_sparsemax(x)
        h = 1e-6
        grad = np.array(
            [(sparsemax_loss_np(x + h * e, t) - sparsemax_loss_np(x - h * e, t)) / (2 * h) for e in np.eye(5)]
        )
        np.testing.assert_allclose(grad, p - np.eye(5)[t], atol=1e-5)
        dlam = np.array([(np_sparsemax(x + h * e)[1] - np_sparsemax(x - h * e)[1]) / (2 * h) for e in np.eye(5)])
        np.testing.assert_allclose(dlam, (p > 0) / np.sum(p > 0), atol=1e-5)
        assert sparsemax_loss_np(x, t) >= -1e-12
    x = np.array([10.0, 0.0, 0.0])
    _, lam = np_sparsemax(x)
    assert lam == 9.0 and sparsemax_loss_np(x, 0) - 0.5 == -0.5 and sparsemax_loss_np(x, 0) == 0.0


def fy_loss_np(x: np.ndarray, t: int, alpha: float) -> float:
    p, _ = np_entmax_bisect(x, alpha)
    return float(np.dot(p - np.eye(len(x))[t], x) + (1 - np.sum(p**alpha)) / (alpha * (alpha - 1)))


def test_entmax_fenchel_young_loss_properties():
    rng = np.random.default_rng(2)
    for _ in range(100):
        x = rng.normal(size=4) * 2
        t = int(rng.integers(4))
        for alpha in (1.25, 1.5, 2.0):
            assert fy_loss_np(x, t, alpha) >= -1e-9
        assert fy_loss_np(x, t, 2.0) == pytest.approx(
            sparsemax_loss_np(x, t), abs=1e-9
        )  # alpha = 2: the sparsemax loss
        ce = math.log(np.sum(np.exp(x))) - x[t]
        assert fy_loss_np(x, t, 1.001) == pytest.approx(ce, abs=5e-3)  # alpha -> 1: cross-entropy
    x = np.array([3.0, 0.5, 0.0])  # gap 2.5 >= 1/(alpha - 1) = 2: p = e_0 exactly
    assert fy_loss_np(x, 0, 1.5) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.slow
def test_losses_new_notes():
    text = captions("losses")
    p, lam = np_sparsemax(X)
    assert (
        f"λ = {lam:.6g}, support {{0, 1}}; the formula gives {sparsemax_loss_np(X, 0):.6g}, "
        f"probcore.losses.sparsemax_loss {sparsemax_loss_np(X, 0):.6g}"
    ) in text
    assert "∂λ/∂x by central differences: (0.5, 0.5, 0)" in text
    assert "At x = (10, 0, …, 0), t = 0: λ = 9 and −xₜ + ½ Σᵢ∈S (xᵢ² − λ²) = -0.5." in text
    assert "the written-out loss and probcore's differ by at most" in text


# ---------------------------------------------------------------- 6, 7. readings of softmax, collision entropy


def test_softmax_readings():
    p = np_softmax(X)
    h = 1e-6
    lse = lambda v: math.log(np.sum(np.exp(v)))  # noqa: E731
    np.testing.assert_allclose([(lse(X + h * e) - lse(X - h * e)) / (2 * h) for e in np.eye(3)], p, atol=1e-8)
    # max entropy with a given mean logit: q proportional to e^(b x), b found by bisection on the mean: b = 1
    target = float(p @ X)
    lo, hi = -20.0, 20.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np_softmax(mid * X) @ X < target else (lo, mid)
    assert lo == pytest.approx(1.0, abs=1e-9)
    assert math.exp(2) == pytest.approx(7.389, abs=5e-4) and f"{math.exp(20):.3g}" == "4.85e+08"


def test_collision_entropy_claims():
    rng = np.random.default_rng(4)
    for _ in range(1000):
        p = rng.dirichlet(np.full(rng.integers(2, 8), rng.choice([0.1, 1.0, 10.0])))
        h2, h = -math.log(np.sum(p**2)), float(-np.sum(p[p > 0] * np.log(p[p > 0])))
        assert h2 <= h + 1e-12  # never exceeds Shannon's
        assert 1 - np.sum(p**2) == pytest.approx(1 - math.exp(-h2), abs=1e-12)
        assert 1 - np.sum(p**2) == pytest.approx(2 * (1 - np.sum(p**2)) / (2 * 1), abs=1e-15)  # twice Tsallis-2
    p = np_softmax(X)
    draws = rng.choice(3, size=(200_000, 2), p=p)
    freq = np.mean(draws[:, 0] == draws[:, 1])
    assert abs(freq - np.sum(p**2)) < 4 * math.sqrt(np.sum(p**2) * (1 - np.sum(p**2)) / 200_000)


@pytest.mark.slow
def test_smooth_max_new_notes():
    text = captions("smooth_max")
    p = np_softmax(X)
    assert f"A(x) = {math.log(np.sum(np.exp(X))):.6g}" in text
    assert f"mean logit Σ pᵢ xᵢ = {p @ X:.4g}, entropy H(p) = {-np.sum(p * np.log(p)):.6g}" in text
    assert f"p₀/p₁ = {math.exp(2):.4g} at β = 1 and {math.exp(20):.3g} at β = 10" in text
    assert f"softmax reads {p @ np.arange(3):.4g}, argmax reads slot 0" in text
    assert "200 random distributions with the same total and the same mean logit all have less entropy" in text
    h2 = -math.log(np.sum(p**2))
    assert f"Σ pᵢ² = {np.sum(p**2):.4f}" in text
    assert f"H₂ = {h2:.4f} ≤ H = {-np.sum(p * np.log(p)):.4f}; 1 − Σ pᵢ² = {1 - np.sum(p**2):.4f}" in text
    freq = float(text.split("collide with frequency ")[1][:6])
    assert abs(freq - np.sum(p**2)) < 4 * math.sqrt(np.sum(p**2) * (1 - np.sum(p**2)) / 100_000)


# ---------------------------------------------------------------- 8. quantiles, smooth accuracy


def normal_perturbmax(x: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """p_i = int phi(e) prod_{j != i} Phi((x_i - x_j)/T + e) de by scipy quadrature."""
    z = x / temperature
    return np.array(
        [
            integrate.quad(
                lambda e, i=i: stats.norm.pdf(e) * np.prod(stats.norm.cdf(z[i] - np.delete(z, i) + e)),
                -12,
                12,
                epsabs=1e-13,
                limit=200,
            )[0]
            for i in range(len(z))
        ]
    )


def test_quantile_estimate_converges_and_the_smooth_accuracy_tends_to_accuracy():
    from views.perturb import compute as perturb_compute

    exact = normal_perturbmax(X)
    errors = []
    for m in (10, 100, 1000):
        eps = stats.norm.ppf((np.arange(1, m + 1) - 0.5) / m)
        est = np.array(
            [np.mean(np.prod(stats.norm.cdf(X[i] - np.delete(X, i)[:, None] + eps[None, :]), axis=0)) for i in range(3)]
        )
        errors.append(np.abs(est - exact).max())
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-5
    page = perturb_compute.quantile_perturbmax(tuple(X))["errors"]
    np.testing.assert_allclose(list(page.values()), errors, rtol=1e-3, atol=1e-9)
    smooth = [normal_perturbmax(X, temp)[0] for temp in (2.0, 1.0, 0.3, 0.1, 0.01)]
    assert all(a < b for a, b in zip(smooth, smooth[1:])) and smooth[-1] == pytest.approx(1.0, abs=1e-12)
    tied = normal_perturbmax(np.array([1.0, 1.0, 0.0]), 0.01)[0]  # not unique: tends to 1/2, not to an accuracy
    assert tied == pytest.approx(0.5, abs=1e-6)


@pytest.mark.slow
def test_perturb_quantile_note():
    text = captions("perturb")
    assert "its accuracy 1[argmax x = 0] here is 1." in text


# ---------------------------------------------------------------- 9. margin motivation


@pytest.mark.slow
def test_margin_gap_note():
    s, loss, m = 30.0, 0.01, 0.35
    plain = math.log(1 / (math.exp(loss) - 1)) / s  # log(1 + e^(-s gap)) = loss
    assert math.log1p(math.exp(-s * plain)) == pytest.approx(loss, rel=1e-12)
    assert math.log1p(math.exp(-s * (plain + m - m))) == pytest.approx(loss, rel=1e-12)  # gap - m = plain
    text = captions("margin")
    assert (
        f"needs cos θₜ − cos θⱼ ≥ {plain:.4f}; AM-softmax with m = 0.35 needs ≥ {plain + m:.4f}, exactly m more" in text
    )


# ---------------------------------------------------------------- both languages carry the same numbers


@pytest.mark.parametrize(
    "key",
    [
        "sfe.entmax15_note",
        "sfe.hs_note",
        "losses.derivation_note",
        "losses.fy_note",
        "attention.taylor_note",
        "overconfidence.why_topk_note",
        "margin.why_note",
        "perturb.quantiles_note",
        "smooth.readings_note",
        "smooth.readings_maxent",
        "smooth.collision_note",
    ],
)
def test_new_notes_have_the_same_fields_in_both_languages(key):
    import string

    fields = lambda text: sorted(f for _, f, _, _ in string.Formatter().parse(text) if f)  # noqa: E731
    assert fields(EN[key]) == fields(ZH[key]) and fields(EN[key])


def test_taylor_weight_is_not_monotone_and_never_below_one_half():
    """attention.taylor_text: f(s) = 1 + s + s^2/2 never falls below 1/2 (its minimum, at s = -1),
    grows again below -1, and a score of -3 outweighs a score of 0 (independent review's wording)."""
    s = np.linspace(-50, 50, 200_001)
    f = 1 + s + s**2 / 2
    assert f.min() == pytest.approx(0.5, abs=1e-12) and s[np.argmin(f)] == pytest.approx(-1.0, abs=1e-3)
    assert 1 + (-3) + 9 / 2 == 2.5 > 1.0 and np.all(np.diff(f[s < -1]) < 0)
    words = STRINGS_ATTENTION["attention.taylor_text"]
    assert "½" in words["en"] and "s = −1" in words["en"] and "−3 outweighs a score of 0" in words["en"]
    assert "½" in words["zh"] and "s = −1" in words["zh"] and "分数 −3 的权重超过分数 0" in words["zh"]
