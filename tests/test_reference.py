"""probcore.reference: (a) the numpy references' own properties, checked against independent
computations (bisection projections, closed forms, sampling); (b) every registry mapping's torch
forward against its reference; (c) every loss in probcore.losses against its reference."""

import functools
import inspect
import math

import numpy as np
import pytest
import torch

from probcore import _validate as V
from probcore import reference as R
from probcore import threshold
from probcore.losses import __all__ as LOSS_NAMES
from probcore.registry import MAPPINGS


def vectors(count=12, seed=0, masked=True):
    """Random 1-D logits of lengths 1..9 and several spreads; some with -inf entries."""
    g = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(g.integers(1, 10))
        x = g.normal(scale=[0.3, 1.0, 3.0][i % 3], size=n)
        if masked and i % 4 == 3 and n > 2:
            x[g.choice(n, size=n // 3, replace=False)] = -np.inf
        out.append(x)
    return out


def tied(count=40, seed=1):
    """Logits with many exact ties (small integers times a step)."""
    g = np.random.default_rng(seed)
    return [g.integers(-3, 4, size=int(g.integers(1, 12))) * g.choice([0.25, 0.5, 1.0, 2.0]) for _ in range(count)]


def message(check, *args):
    """The ValueError message the shared check gives for these arguments."""
    with pytest.raises(ValueError) as info:
        check(*args)
    return str(info.value)


def project_by_bisection(x, power=1.0, iters=200):
    """p = relu(x - tau)^power with sum p = 1, tau by plain bisection on [max x - 1, max x]."""
    lo, hi = np.max(x) - 1, np.max(x)
    for _ in range(iters):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.sum(np.maximum(x - mid, 0) ** power) >= 1 else (lo, mid)
    return np.maximum(x - (lo + hi) / 2, 0) ** power


# ================================================================ (a) the references on their own

# id -> (reference mapping, keyword parameters)
REF_CASES = {
    "softmax": (R.softmax, {}),
    "softmax_T": (R.softmax, {"temperature": 0.4}),
    "softmin": (R.softmax, {"beta": -2.0}),
    "taylor_2": (R.taylor_softmax, {}),
    "taylor_6_T": (R.taylor_softmax, {"order": 6, "temperature": 0.5}),
    "top_1": (R.sparse_softmax, {"k": 1}),
    "top_p": (R.sparse_softmax, {"top_p": 0.7}),
    "sparsemax": (R.sparsemax, {}),
    "sparsemax_T": (R.sparsemax, {"temperature": -0.3}),
    "entmax15": (R.entmax15, {"temperature": 2.0}),
    "entmax_1.2": (R.entmax, {"alpha": 1.2}),
    "entmax_3": (R.entmax, {"alpha": 3.0}),
    "perturb_gumbel": (R.perturbmax, {}),
    "perturb_normal": (R.perturbmax, {"noise": "normal"}),
    "perturb_uniform": (R.perturbmax, {"noise": "uniform", "temperature": 0.3}),
    "perturb_logistic": (R.perturbmax, {"noise": "logistic"}),
    "perturb_sample": (R.perturbmax_sample, {"noise": "normal", "n_samples": 500}),
    "gumbel_softmax": (R.gumbel_softmax, {"temperature": 0.5}),
    "gumbel_hard": (R.gumbel_softmax, {"hard": True, "seed": 3}),
    "am_softmax": (R.am_softmax, {"target": 0, "scale": 5.0}),
}


@pytest.mark.parametrize("case", list(REF_CASES))
def test_output_is_a_float64_distribution_with_masked_zeros(case):
    fn, params = REF_CASES[case]
    for x in vectors() + [np.array([0.7])]:
        p = fn(x, **params)
        assert p.dtype == np.float64 and p.shape == x.shape
        assert (p >= 0).all() and abs(p.sum() - 1) < 1e-9
        assert (p[np.isneginf(x)] == 0).all()
    assert (fn(np.full(4, -np.inf), **params) == 0).all()  # fully masked: all zeros


@pytest.mark.parametrize(
    "case",
    [c for c in REF_CASES if c not in ("taylor_2", "taylor_6_T", "gumbel_softmax", "gumbel_hard", "perturb_sample")],
)
def test_shift_invariant_and_order_preserving(case):
    """The shift-invariant maps; all but am_softmax (its margin lowers the target) keep the order
    of the logits (reversed for T < 0)."""
    fn, params = REF_CASES[case]
    for x in vectors(masked=False):
        p = fn(x, **params)
        np.testing.assert_allclose(fn(x + 3.7, **params), p, atol=1e-9)
        order = np.argsort(x if params.get("temperature", 1) > 0 and params.get("beta", 1) > 0 else -x)
        if fn is not R.am_softmax:
            assert (np.diff(p[order]) >= -1e-12).all()  # larger logit, no smaller probability


def test_sparsemax_is_the_euclidean_projection_onto_the_simplex():
    g = np.random.default_rng(2)
    for x in vectors(40, seed=2, masked=False) + tied():
        p = R.sparsemax(x)
        np.testing.assert_allclose(p, project_by_bisection(x), atol=1e-12)
        # no point of the simplex is closer to x
        q = g.dirichlet(np.ones(len(x)), size=200)
        assert np.linalg.norm(p - x) <= np.linalg.norm(q - x, axis=1).min() + 1e-12


def test_entmax15_exact_equals_bisection():
    for x in vectors(40, seed=3) + tied():
        np.testing.assert_allclose(R.entmax15(x), R.entmax(x, alpha=1.5), atol=1e-12)
        finite = x[x > -np.inf]
        if finite.size:
            np.testing.assert_allclose(R.entmax15(finite), project_by_bisection(finite / 2, power=2), atol=1e-12)


def bracket_taus(x):
    """(sorted z = x / 2 shifted to max 0, tau_k = mu_k - sqrt(1/k - sigma_k^2), the next z)."""
    z = np.sort(x / 2 - np.max(x / 2))[::-1]
    k = np.arange(1, len(z) + 1)
    mu = np.cumsum(z) / k
    return z, mu - np.sqrt(np.maximum(1 / k - (np.cumsum(z**2) / k - mu**2), 0)), np.append(z[1:], -np.inf)


@functools.cache
def empty_bracket_vectors():
    """Logits with entries within a few ulps of tau where, in float64, the bracket
    z_(k) >= tau_k >= z_(k+1) holds for no k."""
    g = np.random.default_rng(4)
    empty = []
    for _ in range(2000):
        base = g.normal(scale=0.1, size=int(g.integers(1, 6)))
        z, taus, _ = bracket_taus(base)
        tau = taus[np.sum(taus <= z) - 1] + np.max(base / 2)
        near = tau + g.integers(-2, 3, size=int(g.integers(1, 5))) * np.spacing(abs(tau))
        x = np.concatenate([base, 2 * near])
        z, taus, z_next = bracket_taus(x)
        if not ((z >= taus) & (taus >= z_next)).any():
            empty.append(x)
    assert len(empty) >= 5
    return empty


def test_entmax15_near_ties_at_the_threshold():
    """Where the bracket is empty the reference takes the k that misses it least, and still
    matches bisection."""
    for x in empty_bracket_vectors():
        np.testing.assert_allclose(R.entmax15(x), project_by_bisection(x / 2, power=2), atol=1e-12)


def test_entmax_at_alpha_1_and_2_is_softmax_and_sparsemax():
    for x in vectors(20, seed=5):
        np.testing.assert_array_equal(R.entmax(x, alpha=1), R.softmax(x))
        np.testing.assert_array_equal(R.entmax(x, alpha=2), R.sparsemax(x))
        np.testing.assert_allclose(R.entmax(x, alpha=1 + 1e-6), R.softmax(x), atol=1e-4)
        np.testing.assert_allclose(R.entmax(x, alpha=2 + 1e-9), R.sparsemax(x), atol=1e-6)


def test_perturbmax_with_gumbel_noise_is_softmax():
    for x in vectors(20, seed=6) + [np.random.default_rng(6).normal(scale=30, size=8)]:
        np.testing.assert_allclose(R.perturbmax(x), R.softmax(x), atol=1e-9)
        np.testing.assert_allclose(R.perturbmax(x, temperature=0.5), R.softmax(x, temperature=0.5), atol=1e-9)


@pytest.mark.parametrize("d", [-1.5, -0.6, 0.0, 0.25, 0.9, 2.0])
def test_perturbmax_two_entries_closed_forms(d):
    """n = 2: p_1 = P[eps_2 - eps_1 < d]: Phi(d / sqrt 2) for normal noise, the triangular CDF for
    uniform noise, the logistic sigmoid(d) for gumbel noise."""
    x = np.array([d, 0.0])
    np.testing.assert_allclose(R.perturbmax(x, "normal")[0], (1 + math.erf(d / 2)) / 2, atol=1e-12)
    triangular = 0.0 if d <= -1 else 1.0 if d >= 1 else (1 + d) ** 2 / 2 if d < 0 else 1 - (1 - d) ** 2 / 2
    np.testing.assert_allclose(R.perturbmax(x, "uniform")[0], triangular, atol=1e-12)
    np.testing.assert_allclose(R.perturbmax(x, "gumbel")[0], 1 / (1 + math.exp(-d)), atol=1e-12)


@pytest.mark.parametrize("noise", V.NOISES)
def test_perturbmax_agrees_with_sampling(noise):
    x = np.array([0.8, 0.0, -0.5, 0.3, -2.0])
    p = R.perturbmax(x, noise)
    sampled = R.perturbmax_sample(x, noise, n_samples=40000, seed=1)
    assert np.abs(sampled - p).max() < 4 * np.sqrt(0.25 / 40000)
    np.testing.assert_array_equal(sampled, R.perturbmax_sample(x, noise, n_samples=40000, seed=1))


def test_softmax_base_beta_and_temperature():
    for x in vectors(10, seed=7):
        np.testing.assert_allclose(R.softmax(x, beta=2.5), R.softmax(x, temperature=0.4), atol=1e-15)
        np.testing.assert_allclose(
            R.softmax(x, beta=-1.0), R.softmax(np.where(np.isneginf(x), -np.inf, -x)), atol=1e-15
        )  # softmin, masked entries stay masked
        live = x > -np.inf
        np.testing.assert_allclose(R.softmax(x, beta=0.0), live / live.sum(), atol=1e-15)


def test_smooth_max_brackets_the_max():
    for x in vectors(10, seed=8):
        n, top = np.sum(x > -np.inf), np.max(x)
        for t in (1.0, 0.1):
            assert top <= R.smooth_max(x, t) <= top + t * np.log(n) + 1e-12
        assert abs(R.smooth_max(x, 1e-3) - top) < 1e-2
    assert R.smooth_max(np.full(3, -np.inf)) == -np.inf


def test_taylor_softmax_formula():
    for x in vectors(10, seed=9, masked=False):
        f = 1 + x + x**2 / 2
        np.testing.assert_allclose(R.taylor_softmax(x), f / f.sum(), atol=1e-15)
    x = np.array([-30.0, 0.0, 5.0])  # even order: positive even far below the expansion point
    assert (R.taylor_softmax(x, order=4) > 0).all()


def test_sparse_softmax_keeps_the_top_entries():
    for x in vectors(10, seed=10, masked=False):
        n = len(x)
        np.testing.assert_allclose(R.sparse_softmax(x, k=n), R.softmax(x), atol=1e-15)
        np.testing.assert_allclose(R.sparse_softmax(x, top_p=1.0), R.softmax(x), atol=1e-15)
        k = (n + 1) // 2
        p = R.sparse_softmax(x, k=k)
        top = np.argsort(-x)[:k]
        assert set(np.flatnonzero(p)) == set(top)
        np.testing.assert_allclose(p[top], R.softmax(x[top]), atol=1e-15)
        kept = R.sparse_softmax(x, top_p=0.5) > 0  # smallest prefix of sorted softmax with mass >= 0.5
        mass = np.sort(R.softmax(x))[::-1].cumsum()
        assert kept.sum() == np.argmax(mass >= 0.5) + 1


def test_gumbel_softmax_seeded_and_hard():
    x = np.array([1.0, 0.2, -0.4, 0.9])
    soft = R.gumbel_softmax(x, temperature=0.7, seed=5)
    np.testing.assert_array_equal(soft, R.gumbel_softmax(x, temperature=0.7, seed=5))
    assert not np.array_equal(soft, R.gumbel_softmax(x, temperature=0.7, seed=6))
    hard = R.gumbel_softmax(x, temperature=0.7, hard=True, seed=5)
    np.testing.assert_array_equal(hard, np.eye(4)[np.argmax(soft)])


def test_am_softmax_is_softmax_with_a_margin_on_the_target():
    x = np.array([0.3, 0.9, -0.2, 0.5])
    np.testing.assert_allclose(R.am_softmax(x, 1, margin=0.0, scale=8.0), R.softmax(8 * x), atol=1e-15)
    shifted = x - 0.3 * np.eye(4)[1]
    np.testing.assert_allclose(R.am_softmax(x, 1, margin=0.3, scale=8.0), R.softmax(8 * shifted), atol=1e-15)
    assert R.am_softmax(x, 1, margin=0.3, scale=8.0)[1] < R.am_softmax(x, 1, margin=0.0, scale=8.0)[1]


# ---------------------------------------------------------------- (a) losses


def loss_cases(x, t):
    return {
        "cross_entropy": R.cross_entropy(x, t),
        "cross_entropy_T": R.cross_entropy(x, t, temperature=0.5),
        "sparse_softmax": R.sparse_softmax_loss(x, t, k=max(1, len(x) // 2)),
        "sparsemax": R.sparsemax_loss(x, t),
        **{f"entmax_{a}": R.entmax_loss(x, t, alpha=a) for a in (1, 1.25, 1.5, 2, 3)},
        "taylor": R.taylor_cross_entropy(x, t, order=4),
        "am_softmax": R.am_softmax_loss(np.tanh(x), t),
        "smoothed": R.smoothed_cross_entropy(R.sparsemax(x), t),
    }


def test_losses_are_nonnegative_and_neg_prob_in_minus_one_zero():
    for x in vectors(12, seed=11, masked=False):
        for t in range(len(x)):
            assert min(loss_cases(x, t).values()) >= -1e-12
            assert -1 <= R.neg_prob_loss(x, t) <= 0


def test_entmax_loss_is_cross_entropy_at_1_and_sparsemax_loss_at_2():
    for x in vectors(20, seed=12):
        for t in np.flatnonzero(x > -np.inf):
            assert abs(R.entmax_loss(x, t, alpha=1) - R.cross_entropy(x, t)) < 1e-12
            assert abs(R.entmax_loss(x, t, alpha=2) - R.sparsemax_loss(x, t)) < 1e-12
            assert abs(R.entmax_loss(x, t, alpha=1 + 1e-6) - R.cross_entropy(x, t)) < 1e-4  # continuous


@pytest.mark.parametrize(
    "loss, mapping",
    [
        (R.cross_entropy, R.softmax),
        (R.sparsemax_loss, R.sparsemax),
        (lambda x, t: R.entmax_loss(x, t, alpha=1.5), R.entmax15),
        (lambda x, t: R.entmax_loss(x, t, alpha=2.5), lambda x: R.entmax(x, alpha=2.5)),
    ],
)
def test_fenchel_young_gradient_is_p_minus_onehot(loss, mapping):
    h = 1e-6
    for x in vectors(8, seed=13, masked=False):
        t = len(x) - 1
        grad = [(loss(x + h * e, t) - loss(x - h * e, t)) / (2 * h) for e in np.eye(len(x))]
        np.testing.assert_allclose(grad, mapping(x) - np.eye(len(x))[t], atol=1e-6)


@pytest.mark.parametrize("s", [-3.0, -1.0, -0.999, -0.4, 0.0, 0.5, 0.999, 1.0, 1.001, 4.0])
def test_binary_sparsemax_loss_is_the_modified_huber_loss(s):
    huber = 0.0 if s >= 1 else -s if s <= -1 else (1 - s) ** 2 / 4
    assert abs(R.sparsemax_loss([s, 0.0], 0) - huber) < 1e-12
    assert abs(R.sparsemax_loss([2.0, 2.0 - s], 0) - huber) < 1e-12


def test_sparsemax_loss_zero_once_the_target_wins_by_one():
    x = np.array([0.2, 1.7, 0.7, -3.0])
    assert R.sparsemax_loss(x, 1) == 0 and R.sparsemax_loss(x, 0) > 0


def test_sparse_softmax_and_am_softmax_losses_reduce_to_cross_entropy():
    for x in vectors(10, seed=14, masked=False):
        for t in range(len(x)):
            assert abs(R.sparse_softmax_loss(x, t, k=len(x)) - R.cross_entropy(x, t)) < 1e-12
            cos = np.tanh(x)
            assert abs(R.am_softmax_loss(cos, t, margin=0.0, scale=3.0) - R.cross_entropy(3 * cos, t)) < 1e-12
    x = np.array([3.0, 1.0, 0.0])
    assert R.sparse_softmax_loss(x, 0, k=1) == 0  # the target alone in the top-1 set


def test_smoothed_cross_entropy_and_surrogate_values():
    p = np.array([0.0, 0.25, 0.75])
    assert R.smoothed_cross_entropy(p, 0, eps=1e-3) == pytest.approx(-math.log(1e-3 / 1.003))
    assert R.smoothed_cross_entropy(p, 2, eps=1e-12) == pytest.approx(-math.log(0.75))
    x = np.array([1.0, -np.inf, 0.5])
    d = R.softmax(x) - np.eye(3)[0]
    assert R.surrogate_loss(x, 0) == pytest.approx(d[0] * 1.0 + d[2] * 0.5)
    assert R.surrogate_loss(x, 2, mapping="sparsemax") == pytest.approx(0.75 * 1.0 - 0.75 * 0.5)  # p = (.75, 0, .25)


# ---------------------------------------------------------------- (a) errors

X3 = np.array([0.1, 0.2, 0.3])
ERRORS = [
    (lambda: R.softmax(X3, temperature=0), message(V.check_temperature, 0)),
    (lambda: R.softmax(X3, temperature=float("inf")), message(V.check_temperature, float("inf"))),
    (lambda: R.softmax(X3, beta=float("nan")), message(V.check_beta, float("nan"))),
    (lambda: R.softmax(X3, temperature=2.0, beta=1.0), "give either temperature or beta"),
    (lambda: R.taylor_softmax(X3, order=3), message(V.check_order, 3)),
    (lambda: R.sparse_softmax(X3, k=4), message(V.check_k, 4, 3)),
    (lambda: R.sparse_softmax(X3, top_p=0.0), message(V.check_top_p, 0.0)),
    (lambda: R.sparse_softmax(X3), "give exactly one of k"),
    (lambda: R.sparse_softmax(X3, k=1, top_p=0.5), "give exactly one of k"),
    (lambda: R.entmax(X3, alpha=0.0), message(V.check_alpha, 0.0)),
    (lambda: R.entmax(X3, n_iter=0), message(V.check_positive_int, "n_iter", 0)),
    (lambda: R.perturbmax(X3, noise="cauchy"), message(V.check_noise, "cauchy")),
    (lambda: R.perturbmax(X3, n_points=1), message(V.check_positive_int, "n_points", 1, 2)),
    (lambda: R.perturbmax_sample(X3, n_samples=0), message(V.check_positive_int, "n_samples", 0)),
    (lambda: R.gumbel_softmax(X3, temperature=-1.0), message(V.check_positive_temperature, -1.0)),
    (lambda: R.gumbel_softmax(X3, hard="yes"), "hard must be True or False"),
    (lambda: R.am_softmax(X3, 0, margin=-0.1), message(V.check_nonnegative, "margin", -0.1)),
    (lambda: R.am_softmax(X3, 0, scale=0.0), message(V.check_positive, "scale", 0.0)),
    (lambda: R.am_softmax(X3, 3), "target must be a class index in [0, 2]"),
    (lambda: R.cross_entropy(X3, -1), "target must be a class index in [0, 2]"),
    (lambda: R.sparse_softmax_loss(X3, 0, k=0), message(V.check_k, 0, 3)),
    (lambda: R.entmax_loss(X3, 0, alpha=-0.9), message(V.check_alpha, -0.9)),
    (lambda: R.smoothed_cross_entropy(X3, 0, eps=0.0), message(V.check_positive, "eps", 0.0)),
    (lambda: R.surrogate_loss(X3, 0, mapping="argmax"), "mapping must be one of"),
    (lambda: R.softmax(np.ones((2, 2))), "x must be a 1-D array"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_bad_parameters_raise_the_shared_message(i):
    call, expected = ERRORS[i]
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(expected)


def test_sort_count_rule_equals_the_bracket_rule():
    """threshold.entmax15_threshold_sort picks K = #{k : tau_k <= z_(k)}; the reference picks the k
    with z_(k) >= tau_k >= z_(k+1) (the least-missed one where rounding leaves none). Same
    distribution, ties, masks and near ties included."""
    xs = tied(80, seed=15) + vectors(20, seed=15) + empty_bracket_vectors()
    for x in xs:
        z = torch.tensor(x / 2)
        p = (z - threshold.entmax15_threshold_sort(z.unsqueeze(0)).squeeze(0)).clamp(min=0) ** 2
        np.testing.assert_allclose(p.numpy(), R.entmax15(x), atol=1e-12)


# ================================================================ (b) torch forward vs reference


def draws(param, n, g):
    """Values of one registry parameter to try: every choice / bool, else the ends of its slider
    range and random values from it rounded to its step, some negated where negatives are valid."""
    if param.kind in ("choice", "bool"):
        return list(param.choices) if param.kind == "choice" else [False, True]
    lo = param.ui_low if param.ui_low is not None else 1
    hi = param.ui_high if param.ui_high is not None else n
    if param.kind == "int":
        return sorted({int(lo + param.step * g.integers(0, (hi - lo) // param.step + 1)) for _ in range(3)})
    values = [lo, hi] + [float(np.round(g.uniform(lo, hi) / param.step) * param.step) for _ in range(3)]
    if param.low is None and lo > 0:
        values[1:3] = [-values[1], -values[2]]
    low = -np.inf if param.low is None else param.low
    return [v for v in values if v > low or (v == low and not param.low_open)]


def with_defaults(mapping, n, name, value):
    """{name: value} with the registry defaults of the other parameters, leaving out one default
    where the two exclude each other (top_p replaces k); None if no such set is valid."""
    defaults = {p.name: p.default for p in mapping.params if p.default is not None and p.name != name}
    candidates = [defaults] + [{k: v for k, v in defaults.items() if k != other} for other in defaults]
    for params in candidates:
        try:
            mapping.validate(n=n, **params, **{name: value})
            return {**params, name: value}
        except ValueError:
            pass
    return None  # e.g. the default k = 3 for n = 2


def parameter_sets(mapping, n, g):
    """The registry defaults, then each parameter at drawn values (others at their defaults)."""
    sets = [
        with_defaults(mapping, n, p.name, v)
        for p in mapping.params
        for v in [p.default] + draws(p, n, g)
        if v is not None
    ]
    return [params for params in sets if params is not None]


@pytest.mark.parametrize("name", list(MAPPINGS))
def test_torch_forward_equals_reference(name):
    mapping = MAPPINGS[name]
    assert mapping.reference is getattr(R, name)  # the registry's reference is the function shown
    g = np.random.default_rng(list(MAPPINGS).index(name))
    compared = 0
    for x in vectors(6, seed=16):
        for params in parameter_sets(mapping, len(x), g):
            params = mapping.validate(n=len(x), **params)
            extra_torch, extra_ref = {}, {}
            if mapping.needs_target:
                t = int(g.integers(len(x)))
                extra_torch, extra_ref = {"target": torch.tensor(t)}, {"target": t}
            if mapping.stochastic:
                extra_torch = {"generator": torch.Generator().manual_seed(0)}
            got = mapping.forward(torch.tensor(x, dtype=torch.float64), **params, **extra_torch).numpy()
            want = mapping.reference(x, **params, **extra_ref)
            assert got.dtype == want.dtype == np.float64 and got.shape == want.shape
            if mapping.stochastic:  # different generators: same kind of output only
                for p in (got, want):
                    assert (p >= 0).all() and abs(p.sum() - 1) < 1e-12 and (p[np.isneginf(x)] == 0).all()
                    if params.get("hard"):
                        assert sorted(p) == [0.0] * (len(x) - 1) + [1.0]
                continue
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, err_msg=f"{name} {params} x={x}")
            compared += 1
    assert compared > 0 or mapping.stochastic


@pytest.mark.parametrize("name", list(MAPPINGS))
def test_torch_and_reference_reject_the_same_bad_parameters(name):
    mapping = MAPPINGS[name]
    x = np.array([0.5, -1.0, 2.0])
    bad = {"float": [0.0, -1e9, float("nan")], "int": [0, 3.5, 99], "choice": ["nope"], "bool": ["yes"]}
    extra = {"target": 0} if mapping.needs_target else {}
    checked = 0
    for param in mapping.params:
        valid = with_defaults(mapping, len(x), param.name, draws(param, len(x), np.random.default_rng(0))[0])
        for value in bad[param.kind]:
            params = {**valid, param.name: value}
            try:
                mapping.validate(n=len(x), **params)
                continue  # a valid value for this parameter
            except ValueError as e:
                expected = str(e)
            with pytest.raises(ValueError) as torch_error:
                mapping.forward(torch.tensor(x), **params, **({"target": torch.tensor(0)} if extra else {}))
            with pytest.raises(ValueError) as ref_error:
                mapping.reference(x, **params, **extra)
            assert str(torch_error.value) == str(ref_error.value) == expected
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("noise", V.NOISES)
def test_torch_and_reference_sampling_agree_within_sampling_error(noise):
    """perturbmax_sample draws from different generators: compare the frequencies, not the draws."""
    import probcore.functional as F

    x = np.array([0.4, -0.3, 1.1, -np.inf, 0.0])
    n = 20000
    got = F.perturbmax_sample(torch.tensor(x), noise, n_samples=n, generator=torch.Generator().manual_seed(0))
    want = R.perturbmax_sample(x, noise, n_samples=n)
    assert got.dtype == torch.float64 and got.shape == want.shape and got[3] == want[3] == 0
    assert np.abs(got.numpy() - want).max() < 5 * np.sqrt(2 * 0.25 / n)


# ================================================================ (c) torch losses vs reference


LOSS_VALUES = {  # keyword -> values to try
    "temperature": [0.5, -2.0],
    "beta": [-1.0, 0.0, 0.7],
    "k": [1, 3],
    "alpha": [0.5, 1.0, 1.0001, 1.25, 1.5, 2.0, 3.0],
    "order": [2, 4],
    "margin": [0.0, 0.3],
    "scale": [1.0, 30.0],
    "eps": [1e-3, 0.1],
    "mapping": [m for m in MAPPINGS if not MAPPINGS[m].stochastic],
}


def loss_parameter_sets(fn):
    """Each keyword of the loss (besides x, target, reduction, ignore_index) at every value above;
    required keywords (k) filled in from the same table."""
    sig = inspect.signature(fn)
    keywords = [
        p
        for p in list(sig.parameters.values())[2:]
        if p.name not in ("reduction", "ignore_index") and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    required = {p.name: LOSS_VALUES[p.name][-1] for p in keywords if p.default is p.empty}
    return [required] + [
        {**required, p.name: v, **defaults(v if p.name == "mapping" else None)}
        for p in keywords
        for v in LOSS_VALUES[p.name]
    ]


def defaults(mapping_name):
    """The registry's default parameters of a mapping (surrogate_loss passes them on)."""
    if mapping_name is None:
        return {}
    return {p.name: p.default for p in MAPPINGS[mapping_name].params if p.default is not None}


@pytest.mark.parametrize("name", [n for n in LOSS_NAMES if n != "check_params"])
def test_torch_loss_equals_reference(name):
    import probcore.losses as L

    fn, ref = getattr(L, name), getattr(R, name)
    first = next(iter(inspect.signature(fn).parameters))  # x, cosines or p
    g = np.random.default_rng(17)
    x = g.normal(scale=1.5, size=(6, 5))
    x[1, 3] = x[4, 0] = -np.inf
    x = {"cosines": np.tanh(x), "p": np.stack([R.sparsemax(row) for row in x])}.get(first, x)
    t = np.array([0, 1, 2, 3, 4, 2])
    for params in loss_parameter_sets(fn):
        got = fn(torch.tensor(x), torch.tensor(t), reduction="none", **params).numpy()
        want = [ref(row, int(c), **params) for row, c in zip(x, t)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, err_msg=f"{name} {params}")
