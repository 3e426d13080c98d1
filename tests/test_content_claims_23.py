"""Issue 23: the corrected statements, each recomputed here independently of the code that draws
it (numpy quadrature, exact enumeration, Monte Carlo with a fixed seed and a stated tolerance),
then checked in the text that shows it: the lessons as the player renders them (placeholders
resolved), the page strings through explorer.i18n. The page strings are corrected by the lead from
tests/content_fixes_23.json (each page string's old and new text: the old one must be gone) and
tests/content_fixes_23_new_keys.json (the strings added with a code change)."""

from __future__ import annotations

import itertools
import json
import math
import string
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import assert_ok, run_app

import probcore
import views.registry  # noqa: F401  (registers every page's strings)
from explorer import compute
from explorer.classroom import lessons
from explorer.i18n import LANGS, catalogue
from views.losses import compute as theory
from views.simplex import compute as simplex_compute

from probcore import losses, threshold
from probcore.vocab import sampled_softmax_loss

REGISTRY_SCRIPT = {page.id: page.script for page in views.registry.PAGES.values()}

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = lessons.shipped()
D64 = torch.float64


def _load(name: str) -> list[dict]:
    return json.loads((Path(__file__).parent / name).read_text(encoding="utf-8"))


FIXES = {(f["key"], f["lang"]): f for f in _load("content_fixes_23.json")}
NEW_KEYS = {(f["key"], f["lang"]): f for f in _load("content_fixes_23_new_keys.json")}


def rendered(lesson_id: str, step: int, field: str = "text") -> dict[str, str]:
    """The narration of step ``step`` (1-based) in both languages, placeholders resolved."""
    s = SHIPPED[lesson_id].steps[step - 1]
    return {lang: lessons.resolve(s.texts[field][lang], s) for lang in LANGS}


def page_string(key: str, lang: str) -> str:
    """The page's string, the corrected one (the old text of content_fixes_23.json is gone)."""
    value = catalogue(lang)[key]
    fix = FIXES.get((key, lang))
    assert fix is None or value == fix["new"], (key, lang)
    return value


def new_key(key: str, lang: str = "en") -> str:
    """A string that content_fixes_23_new_keys.json adds together with a code change."""
    assert catalogue(lang)[key] == NEW_KEYS[(key, lang)]["new"]
    return catalogue(lang)[key]


def _fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name)


def test_fixes_files_are_consistent_with_the_strings():
    """Every replacement's key holds its old or its new text (nothing else), with the same
    {fields}; a new key is absent or holds the proposed text."""
    assert len(FIXES) >= 15 and len(NEW_KEYS) == 4
    for (key, lang), fix in FIXES.items():
        assert catalogue(lang)[key] in (fix["old"], fix["new"]), (key, lang)
        assert _fields(fix["old"]) == _fields(fix["new"]), (key, lang)
        assert fix["old"] != fix["new"]
    for (key, lang), fix in NEW_KEYS.items():
        assert catalogue(lang).get(key) in (None, fix["new"]), (key, lang)
    for key in {k for k, _ in NEW_KEYS}:
        assert _fields(NEW_KEYS[(key, "en")]["new"]) == _fields(NEW_KEYS[(key, "zh")]["new"])


# ---------------------------------------------------------------- numpy oracles


def _softmax(x) -> np.ndarray:
    e = np.exp(np.asarray(x, float) - np.max(x))
    return e / e.sum()


def _sparsemax(x) -> np.ndarray:
    """Euclidean projection onto the simplex by the sorted threshold."""
    z = np.sort(x)[::-1]
    k = np.arange(1, len(z) + 1)
    support = 1 + k * z > np.cumsum(z)
    kk = k[support][-1]
    tau = (np.cumsum(z)[kk - 1] - 1) / kk
    return np.maximum(np.asarray(x, float) - tau, 0.0)


def _entmax(x, alpha: float) -> np.ndarray:
    """alpha-entmax by bisection on tau: p = relu((alpha - 1) x - tau)^(1/(alpha - 1)), sum p = 1."""
    z = (alpha - 1) * np.asarray(x, float)
    lo, hi = z.max() - 1, z.max()  # mass >= 1 at lo (the max alone), 0 at hi
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (np.maximum(z - mid, 0) ** (1 / (alpha - 1))).sum() >= 1 else (lo, mid)
    p = np.maximum(z - lo, 0) ** (1 / (alpha - 1))
    return p / p.sum()


def _grid(lo: float, hi: float, n: int = 40001) -> np.ndarray:
    return np.linspace(lo, hi, n)


_erf = np.frompyfunc(math.erf, 1, 1)
NOISES = {  # name(scale): (pdf, cdf, integration range), each with mean-free shape as on the perturb page
    "gumbel": lambda s: (
        lambda e: np.exp(-e / s - np.exp(-e / s)) / s,
        lambda z: np.exp(-np.exp(-z / s)),
        (-8 * s, 40 * s),
    ),
    "normal": lambda s: (
        lambda e: np.exp(-(e**2) / (2 * s * s)) / (s * math.sqrt(2 * math.pi)),
        lambda z: 0.5 * (1 + _erf(z / (s * math.sqrt(2))).astype(float)),
        (-12 * s, 12 * s),
    ),
    "logistic": lambda s: (
        lambda e: 1 / (4 * s * np.cosh(e / (2 * s)) ** 2),
        lambda z: 1 / (1 + np.exp(-z / s)),
        (-60 * s, 60 * s),
    ),
}


def _perturbmax(x, noise: str, scale: float = 1.0) -> np.ndarray:
    """p_i = E_eps[prod_{j != i} Phi(x_i - x_j + eps)] by the trapezoid rule on a fine grid."""
    pdf, cdf, (lo, hi) = NOISES[noise](scale)
    e = _grid(lo, hi)
    x = np.asarray(x, float)
    return np.array(
        [
            np.trapezoid(pdf(e) * np.prod([cdf(x[i] - x[j] + e) for j in range(len(x)) if j != i], axis=0), e)
            for i in range(len(x))
        ]
    )


def _moments(noise: str, scale: float = 1.0) -> tuple[float, float]:
    """(variance, excess kurtosis) of the noise by quadrature."""
    pdf, _, (lo, hi) = NOISES[noise](scale)
    e = _grid(lo, hi, 400001)
    w = pdf(e)
    mean = np.trapezoid(e * w, e)
    var = np.trapezoid((e - mean) ** 2 * w, e)
    return var, np.trapezoid((e - mean) ** 4 * w, e) / var**2 - 3


# ---------------------------------------------------------------- item 1: sampled softmax


def _sampled_expected_gradient(theta, p, q, m: int) -> np.ndarray:
    """E over t ~ p and m samples s ~ q of the gradient in theta of
    -log softmax([theta_t - log q_t, theta_s1 - log q_s1, ...])_0, by enumerating every (t, s)."""
    n = len(p)
    g = np.zeros(n)
    for t in range(n):
        for s in itertools.product(range(n), repeat=m):
            weight = p[t] * np.prod(q[list(s)])
            idx = [t, *s]
            r = _softmax([theta[i] - np.log(q[i]) for i in idx])
            np.add.at(g, idx, weight * r)
            g[t] -= weight
    return g


def _probcore_expected_gradient(theta, p, q, m: int) -> np.ndarray:
    """The same expectation of probcore.vocab.sampled_softmax_loss's autograd gradient."""
    logq = torch.tensor(np.log(q), dtype=D64)
    g = np.zeros(len(p))
    for t in range(len(p)):
        for s in itertools.product(range(len(p)), repeat=m):
            th = torch.tensor(theta, dtype=D64, requires_grad=True)
            si = torch.tensor(s)
            sampled_softmax_loss(th[t], th[si], logq[t], logq[si]).backward()
            g += p[t] * np.prod(q[list(s)]) * th.grad.numpy()
    return g


def test_sampled_softmax_expected_gradient_is_not_p_minus_onehot():
    """p = (.7, .2, .1) (data), q = (.5, .3, .2), m = 2, theta = 0: the exact expectation is
    (-0.244, 0.104, 0.139), the full loss's softmax(theta) - p = (-0.367, 0.133, 0.233): not parallel."""
    p, q, theta = np.array([0.7, 0.2, 0.1]), np.array([0.5, 0.3, 0.2]), np.zeros(3)
    sampled = _sampled_expected_gradient(theta, p, q, 2)
    np.testing.assert_allclose(sampled, [-0.24366, 0.10433, 0.13933], atol=5e-5)
    np.testing.assert_allclose(_probcore_expected_gradient(theta, p, q, 2), sampled, atol=1e-12)
    full = _softmax(theta) - p
    np.testing.assert_allclose(full, [-0.36667, 0.13333, 0.23333], atol=5e-5)
    ratios = sampled / full
    assert ratios.max() - ratios.min() > 0.15  # not a multiple of it: not parallel


@pytest.mark.parametrize("n, m, seed", [(3, 1, 0), (3, 3, 1), (4, 2, 2)])
def test_sampled_softmax_expected_gradient_vanishes_where_the_model_equals_the_data(n, m, seed):
    """At softmax(theta) = p (theta = log p + c) the expected gradient is exactly 0, for any q and m;
    elsewhere it is not."""
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    np.testing.assert_allclose(_sampled_expected_gradient(np.log(p) + 0.7, p, q, m), 0, atol=1e-12)
    assert np.abs(_sampled_expected_gradient(np.zeros(n), p, q, m)).max() > 1e-3


def test_vocab_page_states_the_sampled_gradient():
    en, zh = page_string("vocab.train_explain", "en"), page_string("vocab.train_explain", "zh")
    assert "both follow the gradient p − onehot in expectation" not in en
    assert "两者的梯度在期望意义下都是 p − onehot" not in zh
    for text in (en, zh):
        assert "softmax(θ) = softmax(x)" in text and "softmax(θ) − softmax(x)" in text


# ---------------------------------------------------------------- item 2: zero beyond the grid


@pytest.mark.parametrize("alpha", [1.1, 1.15])
def test_entmax_loss_reaches_zero_beyond_the_losses_grid(alpha):
    """1/(alpha - 1) lies beyond the grid's end (t = 6): alpha-entmax of [t, 0] keeps p_1 > 0 on the
    whole grid, so the loss is nowhere 0 there (the old caption printed "from t = nan")."""
    end = float(theory.MARGINS[-1])
    assert end == 6.0 and 1 / (alpha - 1) > end
    assert _entmax([end, 0.0], alpha)[1] > 0
    assert _entmax([1 / (alpha - 1) + 1e-6, 0.0], alpha)[1] == 0
    curve = theory.zero_loss_curves((alpha,))[alpha]
    assert curve.min() > 0 and math.isnan(theory.first_zero(theory.MARGINS, curve))
    assert theory.first_zero(theory.MARGINS, theory.zero_loss_curves((1.2,))[1.2]) == pytest.approx(5.0)


def test_losses_page_says_the_zero_lies_beyond_the_grid():
    new_key("losses.zero_note_beyond")
    at = run_app(REGISTRY_SCRIPT["losses"], losses_alpha="1.1")
    assert_ok(at)
    captions = " ".join(c.value for c in at.caption)
    assert "t = nan" not in captions and "lies beyond this grid (t ≤ 6)" in captions


# ---------------------------------------------------------------- items 5, 7, 8: Smooth max page


def test_softmax_with_a_large_base_is_a_soft_argmax():
    """softmax(beta x) tends to the one-hot argmax (its values are probabilities), while the smooth
    max (1/beta) logsumexp(beta x) tends to max x."""
    x = np.array([1.2, 0.9, 0.1, -0.8])
    for beta in (10.0, 100.0):
        p = _softmax(beta * x)
        smooth = (np.log(np.exp(beta * (x - x.max())).sum()) / beta) + x.max()
        assert p[0] > 1 - 2 * math.exp(-beta * 0.3) and smooth - x.max() < math.log(4) / beta + 1e-12
    for lang, word in (("en", "soft maximum"), ("zh", "软的最大值")):
        text = page_string("smooth.kind_max", lang)
        assert "argmax" in text and word not in text


def test_beta_zero_is_uniform_with_no_most_likely_class():
    x = torch.tensor([1.2, 0.9, 0.1, -0.8], dtype=D64)
    assert probcore.softmax(x, beta=0.0).tolist() == [0.25] * 4
    new_key("smooth.base_note_uniform")
    at = run_app(REGISTRY_SCRIPT["smooth_max"], smooth_beta="0")
    assert_ok(at)
    captions = " ".join(c.value for c in at.caption)
    assert "the most likely class is" not in captions and "no class is the most likely" in captions


def _directional(x, d, h=1e-7) -> float:
    return (np.max(np.asarray(x) + h * np.asarray(d)) - np.max(x)) / h


def test_max_has_a_kink_only_where_the_two_largest_tie():
    """max is differentiable at (3, 1, 1) (directional derivative linear in the direction: d_0) and
    not at (3, 3, 1) (max(d_0, d_1))."""
    directions = np.random.default_rng(0).normal(size=(20, 3))
    assert all(_directional([3, 1, 1], d) == pytest.approx(d[0], abs=1e-6) for d in directions)
    kinked = [_directional([3, 3, 1], d) for d in directions]
    np.testing.assert_allclose(kinked, np.maximum(directions[:, 0], directions[:, 1]), atol=1e-6)
    assert any(k != pytest.approx(d[0], abs=1e-3) for k, d in zip(kinked, directions))
    assert "two largest logits tie" in page_string("smooth.lse_text", "en")
    assert "最大的两个 logit 相等" in page_string("smooth.lse_text", "zh")


# ---------------------------------------------------------------- item 9: multi-label loss >= 0


def _multilabel_loss_nonnegative_form(z, q) -> float:
    """L(z; q) = 1/2 |p - q|^2 + sum_{j not in S} q_j (tau - z_j), p = sparsemax(z): a sum of
    non-negative terms, equal to -q.z + 1/2 sum_S (z_j^2 - tau^2) + 1/2 |q|^2."""
    p = _sparsemax(z)
    support = p > 0
    tau = (z[support].sum() - 1) / support.sum()
    return 0.5 * np.sum((p - q) ** 2) + np.sum(q[~support] * (tau - z[~support]))


def test_multilabel_loss_is_non_negative_in_exact_arithmetic():
    rng = np.random.default_rng(0)
    for _ in range(50):
        z = rng.normal(size=5) * 2
        q = np.where(np.arange(5) < rng.integers(1, 5), 1.0, 0.0)
        q /= q.sum()
        value = _multilabel_loss_nonnegative_form(z, q)
        assert value >= 0
        assert theory.multilabel_sparsemax_loss(z, q)[0] == pytest.approx(value, abs=1e-12)


def test_multilabel_training_never_shows_a_negative_loss():
    run = theory.multilabel_training((1.2, 0.9, 0.1, -0.8), 1, 40, 0.5)
    assert run["loss"].min() >= 0


# ---------------------------------------------------------------- Chinese terms

OLD_CHINESE = (
    "扰动最大",
    "代理函数",
    "消失的梯度",
    "modified Huber",
    "损失地形",
    "全变差",
    "锐利的代价",
    "小了 {ratio} 倍",
    "hinge 损失",
    "不去相信",
    "截断距离",
    "算错了一个",
    "归一化因子",
    "蒙特卡罗",
    "软的最大值",
    "最大两个",
)


def _lesson_chinese() -> list[str]:
    return [lesson.title["zh"] for lesson in SHIPPED.values()] + [
        by_lang["zh"] for lesson in SHIPPED.values() for step in lesson.steps for by_lang in step.texts.values()
    ]


def test_lessons_use_the_pages_chinese_terms():
    """One term per concept, the pages' own (page titles and section names checked here)."""
    zh = catalogue("zh")
    assert (
        "Perturb-max" in zh["page.perturb"] and zh["page.loss"] == "损失曲面" and "替代损失" in zh["losses.surrogate"]
    )
    assert "总变差" in zh["perturb.tv"] and "合页损失" in zh["loss.hinge"] and "配分函数" in zh["vocab.intro"]
    assert "蒙特卡洛" in zh["perturb.samples"] and "修正 Huber 损失（除以 4）" in zh["loss.binary_note"]
    texts = _lesson_chinese()
    for old in OLD_CHINESE:
        assert not [t for t in texts if old in t], old
    assert "Perturb-max" in SHIPPED["03_perturb_gumbel"].title["zh"]


def test_page_strings_use_one_chinese_term():
    for key, lang in FIXES:
        page_string(key, lang)
    for key, text in catalogue("zh").items():
        for old in OLD_CHINESE:
            assert old not in text, (key, old)
    assert "只有其 1/{ratio}" in catalogue("zh")["losses.accuracy_note"]


def test_entmax_zero_below_the_largest_by_one_over_beta():
    """sfe.approx_text: with alpha = 1 + beta, every class more than 1/beta below the largest logit
    gets exactly 0 (p_max <= 1 puts tau at least beta max x - 1)."""
    rng = np.random.default_rng(1)
    for beta in (1.0, 0.5, 0.25):
        for _ in range(20):
            x = rng.normal(size=6) * 3
            p = _entmax(x, 1 + beta)
            assert np.all(p[x < x.max() - 1 / beta] == 0)
            np.testing.assert_allclose(probcore.entmax(torch.tensor(x), alpha=1 + beta).numpy(), p, atol=1e-9)
    assert "1/β below the largest" in page_string("sfe.approx_text", "en")
    assert "比最大者低超过 1/β" in page_string("sfe.approx_text", "zh")


# ---------------------------------------------------------------- item 3 and 4: perturb-max noises

X_PERTURB = [1.5, 0.5, 0.0, -1.0]


def test_normal_noise_shift_is_its_smaller_variance():
    """Standard normal p0 = 0.685; with the Gumbel's variance pi^2/6 (sigma = pi/sqrt 6) 0.602,
    against softmax's 0.598: the variance, not the tails, moves p0."""
    gumbel_var, gumbel_kurtosis = _moments("gumbel")
    assert gumbel_var == pytest.approx(math.pi**2 / 6, rel=1e-6) and f"{gumbel_var:.2f}" == "1.64"
    assert gumbel_kurtosis == pytest.approx(2.4, abs=1e-3)
    np.testing.assert_allclose(_perturbmax(X_PERTURB, "gumbel"), _softmax(X_PERTURB), atol=1e-7)
    standard = _perturbmax(X_PERTURB, "normal", 1.0)[0]
    matched = _perturbmax(X_PERTURB, "normal", math.pi / math.sqrt(6))[0]
    assert f"{standard:.3f}" == "0.685" and f"{matched:.3f}" == "0.602" and f"{_softmax(X_PERTURB)[0]:.3f}" == "0.598"
    en, zh = rendered("03_perturb_gumbel", 5).values()
    assert "light tails" not in en and "尾部较轻" not in zh
    for text in (en, zh):
        assert "$p_0 = 0.602$" in text and r"$\pi^2/6 \approx 1.64$" in text and "$p_0 = 0.685$" in text
    # the tails still count for the smallest class (review): 0.0345 at the Gumbel's variance against softmax's 0.0491
    matched_last = _perturbmax(X_PERTURB, "normal", math.pi / math.sqrt(6))[3]
    assert f"{matched_last:.4f}" == "0.0345" and f"{_softmax(X_PERTURB)[3]:.4f}" == "0.0491"
    for text in (en, zh):
        assert "$0.0345$" in text and "$0.0491$" in text


def test_logistic_noise_spreads_by_its_variance_not_its_tails():
    """Logistic(0, 1) has variance pi^2/3 (twice the Gumbel's) and spreads the mass (p0 0.518 <
    0.598, higher entropy); rescaled to the Gumbel's variance it concentrates it (p0 = 0.618), its
    excess kurtosis 1.2 below the Gumbel's 2.4. Normal (variance 1) and uniform (1/12) concentrate."""
    soft = _softmax(X_PERTURB)
    entropy = lambda p: -np.sum(p[p > 0] * np.log(p[p > 0]))  # noqa: E731
    var, kurtosis = _moments("logistic")
    assert var == pytest.approx(2 * math.pi**2 / 6, rel=1e-6) and kurtosis == pytest.approx(1.2, abs=1e-3)
    unit = _perturbmax(X_PERTURB, "logistic", 1.0)
    assert unit[0] < soft[0] and entropy(unit) > entropy(soft)
    matched = _perturbmax(X_PERTURB, "logistic", 1 / math.sqrt(2))
    assert f"{matched[0]:.3f}" == "0.618" and matched[0] > soft[0]
    assert _perturbmax(X_PERTURB, "normal", 1.0)[0] > soft[0]
    gap = np.array(X_PERTURB)[0] - np.array(X_PERTURB)[1:]  # uniform on (-1/2, 1/2): rivals at least 1 below
    assert gap.min() >= 1  # can never win: p0 = 1
    en, zh = rendered("03_perturb_gumbel", 7).values()
    assert "heavier-tailed" not in en and "尾部更重" not in zh
    for text in (en, zh):
        assert "$p_0 = 0.618$" in text and r"$\pi^2/3$" in text and "$1/12$" in text


# ---------------------------------------------------------------- item 6: which losses give p - e_t


def _finite_difference_gradient(f, x, h=1e-6) -> np.ndarray:
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def test_which_losses_have_the_gradient_p_minus_onehot():
    """At (1, 0.5, -0.5), t = 0: cross-entropy, the sparsemax loss, the top-2 loss and the 1.5-entmax
    loss have gradient p - e_t (p the mapping's own output); Taylor softmax's cross-entropy has
    (-0.379, 0.316, 0.105) against p - e_t = (-0.474, 0.342, 0.132)."""
    x = np.array([1.0, 0.5, -0.5])
    onehot = np.eye(3)[0]
    top2 = np.where(x >= np.sort(x)[-2], np.exp(x), 0.0)
    expected = {
        "cross_entropy": _softmax(x),
        "sparsemax_loss": _sparsemax(x),
        "sparse_softmax_loss": top2 / top2.sum(),
        "entmax_loss": _entmax(x, 1.5),
    }
    params = {"sparse_softmax_loss": {"k": 2}, "entmax_loss": {"alpha": 1.5}}
    for name, p in expected.items():
        xt = torch.tensor(x, dtype=D64, requires_grad=True)
        getattr(losses, name)(xt, torch.tensor(0), **params.get(name, {})).backward()
        np.testing.assert_allclose(xt.grad.numpy(), p - onehot, atol=1e-7, err_msg=name)
    f = lambda v: 1 + v + v * v / 2  # noqa: E731
    taylor_loss = lambda v: -np.log(f(v)[0] / f(v).sum())  # noqa: E731
    grad = _finite_difference_gradient(taylor_loss, x)
    np.testing.assert_allclose(grad, [-0.379, 0.316, 0.105], atol=5e-4)
    np.testing.assert_allclose(f(x) / f(x).sum() - onehot, [-0.474, 0.342, 0.132], atol=5e-4)
    xt = torch.tensor(x, dtype=D64, requires_grad=True)
    losses.taylor_cross_entropy(xt, torch.tensor(0)).backward()
    np.testing.assert_allclose(xt.grad.numpy(), grad, atol=1e-6)  # the loss the pages draw
    en, zh = rendered("04_losses_margins_vocab", 1).values()
    assert "Each mapping comes with a loss" not in en and "每个映射都有对应的损失" not in zh
    assert (
        "Taylor softmax's cross-entropy is not $p - e_t$" in en and "Taylor softmax 交叉熵的梯度就不是 $p - e_t$" in zh
    )


# ---------------------------------------------------------------- item 10: the simplex image


def test_softmax_image_of_the_square_grid_covers_94_percent():
    """The Simplex page maps (u, v, 0), u, v in [-R, R] (R = 4, the step's radius): the image is
    {p : |log(p0/p2)|, |log(p1/p2)| <= R}, 93.8 % of the triangle (uniform points on the triangle,
    10^6, seed 0, +-0.2 %), more for a larger R; the drawn points reach max p = e^4/(e^4 + e^-4 + 1)."""
    radius = lessons.StepState.of(SHIPPED["01_softmax_temperature"].steps[5])["radius"]
    assert radius == 4.0
    p = np.random.default_rng(0).dirichlet(np.ones(3), size=1_000_000)
    ratios = np.abs(np.log(p[:, :2] / p[:, 2:]))
    share = lambda r: float(np.mean(np.all(ratios <= r, axis=1)))  # noqa: E731
    assert share(radius) == pytest.approx(0.938, abs=0.002) and round(100 * share(radius)) == 94
    assert share(2 * radius) > share(radius)
    image = simplex_compute.simplex_image("softmax", (), radius, 41, 0, 0)
    assert image.min() > 0
    assert image.max() == pytest.approx(math.exp(4) / (math.exp(4) + math.exp(-4) + 1), abs=1e-12)
    en, zh = rendered("01_softmax_temperature", 6).values()
    assert "disc" not in en and "圆盘" not in zh and "填满" not in zh
    assert "square grid" in en and "about 94 %" in en and "正方形网格" in zh and "约 94 %" in zh
    assert "from $-4$ to $4$" in en and "从 $-4$ 到 $4$" in zh


def test_simplex_page_note_does_not_say_softmax_fills_the_triangle():
    assert "fills" not in page_string("simplex.images_note", "en")
    assert "strictly inside" in page_string("simplex.images_note", "en")
    assert "严格留在三角形内部" in page_string("simplex.images_note", "zh")


# ---------------------------------------------------------------- item 11: top-k jumps


def _topk_softmax(x, k: int) -> np.ndarray:
    keep = np.argsort(-np.asarray(x), kind="stable")[:k]
    p = np.zeros(len(x))
    p[keep] = _softmax(np.asarray(x)[keep])
    return p


@pytest.mark.parametrize("a, b, jumps", [(0, 1, False), (1, 2, True), (2, 3, False)])
def test_topk_jumps_only_when_the_kth_and_next_swap(a, b, jumps):
    """k = 2 at (1.2, 0.9, 0.1, -0.8): move x_b across x_a; the output jumps only for the 2nd / 3rd."""
    x = np.array([1.2, 0.9, 0.1, -0.8])
    below, above = x.copy(), x.copy()
    below[b], above[b] = x[a] - 1e-9, x[a] + 1e-9
    for fn in (lambda v: _topk_softmax(v, 2), lambda v: probcore.sparse_softmax(torch.tensor(v), k=2).numpy()):
        change = np.abs(fn(above) - fn(below)).max()
        assert (change > 0.3) if jumps else (change < 1e-8), (a, b, change)
    en, zh = rendered("02_sparse_zeros", 8).values()
    assert "the output jumps when two scores swap rank" not in en and "两个分数交换名次时输出会跳变" not in zh
    assert "$k$-th and $(k+1)$-th largest scores swap" in en and "第 $k$ 大与第 $k+1$ 大的分数交换名次" in zh


# ---------------------------------------------------------------- item 12: modified Huber / 4


def test_binary_sparsemax_loss_is_modified_huber_over_4():
    """Sparsemax loss of [t, 0], target 0 (1/2 - x_t + 1/2 sum_S (x_i^2 - tau^2), from the numpy
    projection) against modified Huber h(t) = max(0, 1 - t)^2 for t >= -1, -4t below: L = h / 4."""

    def loss(t):
        z = np.array([t, 0.0])
        p = _sparsemax(z)
        s = p > 0
        tau = (z[s].sum() - 1) / s.sum()
        return 0.5 - t + 0.5 * np.sum(z[s] ** 2 - tau**2)

    for t in np.linspace(-3, 3, 61):
        huber = max(0.0, 1 - t) ** 2 if t >= -1 else -4 * t
        assert loss(t) == pytest.approx(huber / 4, abs=1e-12), t
    assert loss(0.0) == 0.25 and (max(0.0, 1 - 0.0) ** 2) == 1  # not the modified Huber loss itself
    en, zh = rendered("02_sparse_zeros", 10).values()
    assert "the modified Huber loss divided by 4" in en and "修正 Huber 损失（除以 4）" in zh and "合页损失" in zh
    assert "(in the two-class case it is the modified Huber loss)" not in en and "modified Huber" not in zh


# ---------------------------------------------------------------- item 13: Gumbel-softmax gradient


def test_gumbel_softmax_gradient_mean_bounded_variance_like_one_over_tau():
    """At (1.5, 0.5, 0, -1), 400 000 Gumbel draws (seed 0) for each tau: the trace of
    dy/dx = (diag y - y y^T)/tau has a mean near 0.57 at tau = 0.1 and 0.01 (within 10 %), a median
    falling to ~1e-43, a variance growing ~10x when tau shrinks 10x (1/tau; 7x to 14x accepted)."""
    x = np.array(X_PERTURB)
    g = -np.log(-np.log(np.random.default_rng(0).random((400_000, 4))))
    stats = {}
    for tau in (0.1, 0.01):
        z = (x + g) / tau
        y = np.exp(z - z.max(axis=1, keepdims=True))
        y /= y.sum(axis=1, keepdims=True)
        trace = (y * (1 - y)).sum(axis=1) / tau
        stats[tau] = trace.mean(), np.median(trace), trace.var()
    (m1, med1, v1), (m2, med2, v2) = stats[0.1], stats[0.01]
    assert 0.45 < m1 < 0.7 and abs(m2 / m1 - 1) < 0.1
    assert med1 < 1e-2 and med2 < 1e-30
    assert 7 < v2 / v1 < 14
    en, zh = rendered("03_perturb_gumbel", 9).values()
    assert "becomes large and noisy" not in en and "梯度变得很大且噪声很强" not in zh
    assert r"its mean stays bounded while its variance grows like $1/\tau$" in en and r"方差却按 $1/\tau$ 增长" in zh


# ---------------------------------------------------------------- items 14, 16: margin page


def _am_softmax_p_t(angle_deg: float, m: float, s: float, classes: int = 4) -> float:
    cos = np.cos(np.deg2rad(angle_deg) - 2 * np.pi * np.arange(classes) / classes)
    return float(_softmax(s * (cos - m * (np.arange(classes) == 0)))[0])


def test_margin_step_shows_p_t_as_it_is():
    """At 10 degrees, m = 0.35, s = 30: p_t = 1 - 9.8e-7, not 1; the loss -log p_t = 9.81e-07 is
    shown as plain text, not inside TeX."""
    p_t = _am_softmax_p_t(10, 0.35, 30)
    assert 1 - p_t == pytest.approx(9.8e-7, rel=0.01)
    en, zh = rendered("04_losses_margins_vocab", 6).values()
    for text in (en, zh):
        assert f"$p_t = {p_t:.8f}$" in text and f" {-math.log(p_t):.2e}" in text and "0.99999902" in text
        assert "$p_t = 1$" not in text and "$9.81e-07$" not in text


def test_scale_step_is_at_the_class_centre():
    """s = 4, m = 0.35: p_t = 0.870 at the class centre (0 degrees), 0.834 at 10 degrees."""
    assert f"{_am_softmax_p_t(0, 0.35, 4):.3f}" == "0.870" and f"{_am_softmax_p_t(10, 0.35, 4):.3f}" == "0.834"
    step = SHIPPED["04_losses_margins_vocab"].steps[6]
    assert step.values()["margin_angle"] == 0
    en, zh = rendered("04_losses_margins_vocab", 7).values()
    assert "$p_t = 0.87$" in en and "exactly at its class centre ($0°$)" in en
    assert "$p_t = 0.87$" in zh and "恰好在类别中心（$0°$）" in zh


# ---------------------------------------------------------------- item 15: the alpha sweep's solver


def test_alpha_sweep_is_solved_by_safeguarded_newton(monkeypatch):
    """The sweep at lesson 02's logits (46 values of alpha) runs Newton passes, and bisection only
    finishes a few rows (alpha > 2, where Newton may approach from above); every row matches the
    numpy bisection oracle."""
    newton_passes, bisected = [0], []
    newton, bisect = threshold._newton, threshold.entmax_threshold_bisect

    def counted_newton(*args, **kwargs):
        newton_passes[0] += 1
        return newton(*args, **kwargs)

    def counted_bisect(z, alpha, *args, **kwargs):
        bisected.extend(torch.as_tensor(alpha).reshape(-1).tolist())
        return bisect(z, alpha, *args, **kwargs)

    from probcore import functional

    large = []
    solve_large = functional._entmax_large

    def counted_large(z, alpha, *args, **kwargs):
        large.extend(torch.as_tensor(alpha).reshape(-1).tolist())
        return solve_large(z, alpha, *args, **kwargs)

    monkeypatch.setattr(threshold, "_newton", counted_newton)
    monkeypatch.setattr(threshold, "entmax_threshold_bisect", counted_bisect)
    monkeypatch.setattr(functional, "_entmax_large", counted_large)
    x = (1.2, 0.9, 0.1, -0.8)
    rows = compute.alpha_sweep.__wrapped__("entmax", x, (("alpha", 1.5),), 0, 0)  # unmemoised
    assert newton_passes[0] > 0
    # bisection only finishes rows in [1.25, 2); every alpha above 2 goes to the sorted-support solver
    assert all(1.25 <= alpha < 2 for alpha in bisected), bisected
    assert {round(float(a), 9) for a in compute.ALPHAS if a > 2} <= {round(a, 9) for a in large}, large
    for alpha, p in zip(compute.ALPHAS, rows):
        expected = _softmax(x) if alpha == 1 else _entmax(x, alpha)
        np.testing.assert_allclose(p, expected, atol=1e-9, err_msg=str(alpha))
    en, zh = rendered("02_sparse_zeros", 7).values()
    assert "solved by bisection" not in en and "通过对阈值做二分求解" not in zh
    assert (
        "safeguarded Newton steps" in en
        and "bisection also finishes" in en
        and "above 2 the sweep finds the support" in en
    )
    assert "带保护的牛顿法" in zh and "二分收尾" in zh and "排好序的分数上确定支撑集" in zh


# ---------------------------------------------------------------- item 17: the Jacobian's rank


def test_zero_row_sums_bound_the_rank_softmax_reaches_it():
    """Zero row sums give rank <= n - 1 only: softmax (every p > 0) has n - 1 at (2, 1, 0.5, -1),
    a sparse Jacobian with zero row sums (sparsemax, support 2 of 4) has 1."""
    x = np.array([2.0, 1.0, 0.5, -1.0])
    p = _softmax(x)
    jac = np.diag(p) - np.outer(p, p)
    np.testing.assert_allclose(jac.sum(axis=1), 0, atol=1e-15)
    assert np.linalg.matrix_rank(jac) == len(x) - 1
    s = (_sparsemax([1.2, 0.9, 0.1, -0.8]) > 0).astype(float)
    sparse_jac = np.diag(s) - np.outer(s, s) / s.sum()
    np.testing.assert_allclose(sparse_jac.sum(axis=1), 0, atol=1e-15)
    assert np.linalg.matrix_rank(sparse_jac) == 1
    en, zh = rendered("01_softmax_temperature", 7).values()
    assert "so the rank is $3 = n - 1$" not in en and "所以秩为 $3 = n - 1$" not in zh
    assert "so the rank is at most $n - 1$" in en and "rank $3 = n - 1$" in en
    assert "所以秩至多为 $n - 1$" in zh and "秩为 $3 = n - 1$" in zh


def test_the_simplex_grid_reaches_a_vertex_only_from_radius_one_over_alpha_minus_one():
    """Review of the Simplex note: the 41 x 41 grid (u, v, 0), |u|, |v| <= R, has a one-hot image under
    alpha-entmax iff (alpha - 1) R >= 1 (its largest gap between the two largest logits is R):
    sparsemax from R = 1, 1.5-entmax from R = 2; and every grid reaches an edge for sparsemax."""
    for alpha, bound in ((2.0, 1.0), (1.5, 2.0)):
        for radius, reached in ((0.95 * bound, False), (bound, True)):
            g = np.linspace(-radius, radius, 41)
            x = torch.tensor([[u, v, 0.0] for u in g for v in g], dtype=torch.float64)
            p = probcore.entmax(x, alpha=alpha)
            assert bool(((p > 1 - 1e-12).any(-1)).any()) is reached, (alpha, radius)
    en = catalogue("en")["simplex.images_note"]
    zh = catalogue("zh")["simplex.images_note"]
    assert "≥ 1 for sparsemax, ≥ 1/(α − 1) for α-entmax: 2 for 1.5-entmax" in en and "1.5-entmax 即 2" in zh


def test_cross_entropy_is_smallest_at_the_grids_end():
    """Review of the Losses note: cross-entropy of [t, 0] is smallest at the grid's end t = 6,
    log(1 + e^-6) = 0.0024757, shown as 0.00248 ("its smallest value there is {ce}, at t = {end}")."""
    grid = theory.MARGINS
    ce = np.log1p(np.exp(-grid))
    assert int(np.argmin(ce)) == len(grid) - 1 and f"{ce.min():.3g}" == "0.00248" and grid[-1] == 6.0
    for lang in LANGS:
        for key in ("losses.zero_note", "losses.zero_note_beyond"):
            assert "{ce}" in catalogue(lang)[key] and "{end}" in catalogue(lang)[key]
    assert "stays above {ce}" not in catalogue("en")["losses.zero_note"]
