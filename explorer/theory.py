"""Computations of the topic pages that teach the theory behind the mappings (views/losses.py,
views/smooth_max.py, views/sparse_from_exp.py) and of the vocabulary page's training section: every
number comes from probcore (mappings, losses, thresholds, vocab losses), cached per argument tuple."""
from __future__ import annotations

import functools
import math

import numpy as np
import streamlit as st
import torch

import probcore
from explorer.compute import vocab_logits, vocab_proposal
from probcore import losses
from probcore.registry import MAPPINGS
from probcore.threshold import sparsemax_threshold
from probcore.vocab import draw_samples, nce_loss, sampled_softmax_loss

D64 = torch.float64
MARGINS = np.linspace(-6.0, 6.0, 241)  # t of the binary / one-against-zeros logits [t, 0, ..., 0]


def _rows(t: np.ndarray, n: int) -> torch.Tensor:
    """Logits [t, 0, ..., 0] (n classes), one row per t, float64."""
    x = torch.zeros(len(t), n, dtype=D64)
    x[:, 0] = torch.as_tensor(t, dtype=D64)
    return x


def _defaults(name: str) -> dict:
    """The registry defaults of a mapping's given parameters (None = not given is left out)."""
    return {p.name: p.default for p in MAPPINGS[name].params if p.default is not None}


def _loss_and_grad0(fn, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Per-row loss fn(x) (target class 0) and its derivative in the target's logit x0 (autograd)."""
    x = x.clone().requires_grad_(True)
    loss = fn(x)
    loss.sum().backward()
    return loss.detach().numpy(), x.grad[:, 0].numpy()


# ---------------------------------------------------------------- Losses page


def _one_thread(fn):
    """Run ``fn`` with one torch thread: many small tensors, where thread hand-offs cost more than
    they save (see probcore.check.torch_threads). For the runs done in the job process
    (explorer.serving.jobs), which a plain ``streamlit run`` starts with torch's default thread count; the
    app's own process already computes on one thread (app.py: one_torch_thread)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from probcore.check import torch_threads
        with torch_threads(1):
            return fn(*args, **kwargs)
    return wrapper

@st.cache_data(max_entries=32, show_spinner=False)
def surrogate_gradients(x: tuple, target: int) -> dict[str, dict[str, np.ndarray]]:
    """For every deterministic registry mapping (default parameters): the autograd gradient of
    probcore.losses.surrogate_loss (stop_grad(p - onehot) . x), the vector p - onehot it should
    equal, and the surrogate's value (meaningless, may be negative)."""
    out = {}
    for name, mapping in MAPPINGS.items():
        if mapping.stochastic:
            continue
        z = torch.tensor(x, dtype=D64, requires_grad=True)
        t = torch.tensor(target)
        value = losses.surrogate_loss(z, t, mapping=name, **_defaults(name))
        value.backward()
        extra = {"target": t} if mapping.needs_target else {}
        p = mapping.forward(z.detach(), **extra, **_defaults(name)).numpy()
        out[name] = {"grad": z.grad.numpy(), "p_minus_onehot": p - np.eye(len(x))[target], "value": float(value.detach())}
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def accuracy_losses(n: int) -> dict[str, np.ndarray]:
    """Over logits [t, 0, ..., 0] (n classes, target 0): cross-entropy and -p_t (neg_prob_loss) with
    their derivatives in x0: CE' = p0 - 1, (-p0)' = -p0 (1 - p0), which vanishes as p0 -> 0."""
    x = _rows(MARGINS, n)
    ce, ce_grad = _loss_and_grad0(lambda z: losses.cross_entropy(z, torch.zeros(len(z), dtype=torch.long),
                                                                 reduction="none"), x)
    acc, acc_grad = _loss_and_grad0(lambda z: losses.neg_prob_loss(z, torch.zeros(len(z), dtype=torch.long),
                                                                   reduction="none"), x)
    return {"t": MARGINS, "ce": ce, "ce_grad": ce_grad, "neg_p": acc, "neg_p_grad": acc_grad}


@st.cache_data(max_entries=32, show_spinner=False)
def sparsemax_cross_entropy(eps: float, n: int) -> dict[str, np.ndarray]:
    """Over logits [t, 0, ..., 0] (n classes, target 0), p = sparsemax: plain CE -log p0 (inf where
    p0 = 0), the smoothed -log((p0 + eps)/(1 + n eps)) (probcore.losses.smoothed_cross_entropy) and
    the sparsemax loss, with their derivatives in x0 and second differences (convexity along t)."""
    x = _rows(MARGINS, n)
    zeros = torch.zeros(len(x), dtype=torch.long)
    with torch.no_grad():
        p0 = probcore.sparsemax(x)[:, 0].numpy()
    with np.errstate(divide="ignore"):
        plain = -np.log(p0)
    smoothed, smoothed_grad = _loss_and_grad0(
        lambda z: losses.smoothed_cross_entropy(probcore.sparsemax(z), zeros, eps=eps, reduction="none"), x)
    sparse, sparse_grad = _loss_and_grad0(lambda z: losses.sparsemax_loss(z, zeros, reduction="none"), x)
    return {"t": MARGINS, "p0": p0, "plain": plain, "smoothed": smoothed, "smoothed_grad": smoothed_grad,
            "sparsemax": sparse, "sparsemax_grad": sparse_grad,
            "smoothed_curvature": np.diff(smoothed, 2).min(), "sparsemax_curvature": np.diff(sparse, 2).min()}


@st.cache_data(max_entries=32, show_spinner=False)
def zero_loss_curves(alphas: tuple) -> dict[float, np.ndarray]:
    """probcore.losses.entmax_loss of [t, 0] (target 0) for each alpha (alpha = 1: cross-entropy)."""
    x = _rows(MARGINS, 2)
    zeros = torch.zeros(len(x), dtype=torch.long)
    with torch.no_grad():
        return {a: losses.entmax_loss(x, zeros, alpha=a, reduction="none").numpy() for a in alphas}


def first_zero(t: np.ndarray, loss: np.ndarray) -> float:
    """The smallest t from which the loss is exactly 0 on the rest of the grid (nan if never)."""
    nonzero = np.flatnonzero(loss != 0)
    if len(nonzero) == len(t):
        return float("nan")
    return float(t[nonzero[-1] + 1]) if len(nonzero) else float(t[0])


def multilabel_sparsemax_loss(z: np.ndarray, q: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Sparsemax loss of logits z against a target distribution q (Martins & Astudillo 2016, multi-label):
    L = -q.z + 1/2 sum_{j in S} (z_j^2 - lambda^2) + 1/2 |q|^2, S and lambda those of p = sparsemax(z);
    L >= 0, L = 0 exactly when p = q; gradient p - q. Returns (L, p, gradient)."""
    zt = torch.as_tensor(z, dtype=D64)
    p = probcore.sparsemax(zt).numpy()
    lam = float(sparsemax_threshold(zt.unsqueeze(0))[0])
    support = p > 0
    loss = -q @ z + 0.5 * np.sum(z[support] ** 2 - lam**2) + 0.5 * q @ q
    return float(loss), p, p - q


@st.cache_data(max_entries=32, show_spinner=False)
def multilabel_training(x: tuple, labels: int, steps: int, lr: float) -> dict[str, np.ndarray]:
    """Gradient descent z <- z - lr (p - q) on the multi-label sparsemax loss from the logits x,
    q uniform on the first ``labels`` classes: the loss and the support size per step, the final p."""
    z = np.array(x, dtype=float)
    q = np.where(np.arange(len(z)) < labels, 1.0 / labels, 0.0)
    loss, support = [], []
    for _ in range(steps + 1):
        value, p, grad = multilabel_sparsemax_loss(z, q)
        loss.append(value)
        support.append(int((p > 0).sum()))
        z = z - lr * grad
    return {"loss": np.array(loss), "support": np.array(support), "p": p, "q": q, "z": z}


# ---------------------------------------------------------------- Smooth max page

@st.cache_data(max_entries=32, show_spinner=False)
def smooth_max_curve(x: tuple, temperatures: tuple) -> np.ndarray:
    """probcore.smooth_max(x, T) = T logsumexp(x / T) for each T."""
    z = torch.tensor(x, dtype=D64)
    return np.array([float(probcore.smooth_max(z, temperature=t)) for t in temperatures])


def smooth_max_gradient(x: tuple, temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """(autograd gradient of T logsumexp(x / T), softmax(x / T)): the smooth max's gradient is softmax."""
    z = torch.tensor(x, dtype=D64, requires_grad=True)
    probcore.smooth_max(z, temperature=temperature).backward()
    return z.grad.numpy(), probcore.softmax(z.detach(), temperature=temperature).numpy()


PROPERTY_TOL = 1e-9


@st.cache_data(max_entries=32, show_spinner=False)
def property_tests(n: int, draws: int, shift: float, seed: int) -> dict[str, dict]:
    """Every deterministic registry mapping (default parameters, target class 0) on ``draws`` random
    logit vectors x ~ N(0, 2^2) of length n (numpy default_rng(seed)):

    * shift: max |f(x + shift) - f(x)|, shift invariant when <= PROPERTY_TOL;
    * order: share of draws with a pair x_i > x_j but p_i < p_j - PROPERTY_TOL (monotonicity broken),
      and the first such x with its p."""
    x = torch.tensor(np.random.default_rng(seed).normal(0.0, 2.0, (draws, n)), dtype=D64)
    out = {}
    for name, mapping in MAPPINGS.items():
        if mapping.stochastic:
            continue
        extra = {"target": torch.zeros(draws, dtype=torch.long)} if mapping.needs_target else {}
        extra.update(_defaults(name))
        with torch.no_grad():
            p, shifted = mapping.forward(x, **extra), mapping.forward(x + shift, **extra)
        bigger = x[:, :, None] > x[:, None, :]
        smaller = p[:, :, None] < p[:, None, :] - PROPERTY_TOL
        broken = (bigger & smaller).flatten(1).any(1).numpy()
        first = int(np.argmax(broken)) if broken.any() else None
        out[name] = {"shift": float((shifted - p).abs().max()), "order": float(broken.mean()),
                     "example": None if first is None else (x[first].numpy(), p[first].numpy())}
    return out


BETAS = np.linspace(-5.0, 5.0, 201)


@st.cache_data(max_entries=32, show_spinner=False)
def beta_curves(x: tuple) -> np.ndarray:
    """softmax(beta x) = base-e^beta softmax for beta in BETAS: rows (len(BETAS), n)."""
    z = torch.tensor(x, dtype=D64)
    return np.stack([probcore.softmax(z, beta=float(b)).numpy() for b in BETAS])


DIMS = tuple(2**k for k in range(11))  # d = 1 .. 1024
ATTENTION_KEYS = 16
ATTENTION_QUERIES = 200


@st.cache_data(max_entries=32, show_spinner=False)
def saturation(seed: int) -> dict[str, np.ndarray]:
    """Mean 1 - sum p^2 (half the L1 norm of the softmax Jacobian) of attention weights
    softmax(q.k_j) and softmax(q.k_j / sqrt d) over ATTENTION_QUERIES queries and ATTENTION_KEYS keys
    with N(0, 1) entries (torch generator seeded per d), and the standard deviation of the scores q.k."""
    raw, scaled, spread = [], [], []
    for d in DIMS:
        g = torch.Generator().manual_seed(seed * 7919 + d)
        q = torch.randn(ATTENTION_QUERIES, d, generator=g, dtype=D64)
        k = torch.randn(ATTENTION_KEYS, d, generator=g, dtype=D64)
        scores = q @ k.T
        for out, s in ((raw, scores), (scaled, scores / math.sqrt(d))):
            p = probcore.softmax(s)
            out.append(float((1 - (p**2).sum(-1)).mean()))
        spread.append(float(scores.std()))
    return {"d": np.array(DIMS, dtype=float), "raw": np.array(raw), "scaled": np.array(scaled),
            "score_sd": np.array(spread), "uniform": 1 - 1 / ATTENTION_KEYS}


# ---------------------------------------------------------------- Sparse-from-exp page

EXP_GRID = np.linspace(-4.0, 2.0, 241)


def relu_power(x: np.ndarray, beta: float) -> np.ndarray:
    """relu(1 + beta x)^(1/beta), the approximation of exp(x) that gives (1 + beta)-entmax."""
    return np.maximum(0.0, 1.0 + beta * x) ** (1.0 / beta)


def entmax_from_threshold(x: tuple, beta: float) -> dict:
    """alpha-entmax with alpha = 1 + beta written out: p = relu(beta x - lambda)^(1/beta) with the
    threshold lambda solving sum p = 1 (probcore.threshold), beside probcore.entmax(x, alpha)."""
    from probcore.threshold import entmax_threshold
    z = torch.tensor(x, dtype=D64)
    alpha = 1.0 + beta
    lam = float(entmax_threshold((beta * z).unsqueeze(0), alpha)[0])
    by_hand = np.maximum(0.0, beta * np.asarray(x) - lam) ** (1.0 / beta)
    return {"alpha": alpha, "lambda": lam, "by_hand": by_hand, "probcore": probcore.entmax(z, alpha=alpha).numpy(),
            "softmax": probcore.softmax(z).numpy()}


def kkt_steps(x: tuple) -> dict:
    """The sparsemax threshold step by step: z sorted decreasingly, cumulative sums, the test
    1 + k z_(k) > sum_{j<=k} z_(j), its largest passing k = K, lambda_k = (sum_{j<=k} z_(j) - 1) / k,
    lambda = lambda_K, beside probcore's threshold and p = relu(z - lambda)."""
    z = np.sort(np.asarray(x, dtype=float))[::-1]
    k = np.arange(1, len(z) + 1)
    cumsum = np.cumsum(z)
    passes = 1 + k * z > cumsum
    support = int(k[passes].max())
    lam = (cumsum[support - 1] - 1) / support
    zt = torch.tensor(x, dtype=D64)
    return {"k": k, "z_sorted": z, "cumsum": cumsum, "lhs": 1 + k * z, "passes": passes, "lambda_k": (cumsum - 1) / k,
            "support": support, "lambda": float(lam), "lambda_probcore": float(sparsemax_threshold(zt.unsqueeze(0))[0]),
            "p": np.maximum(0.0, np.asarray(x) - lam), "p_probcore": probcore.sparsemax(zt).numpy()}


# ---------------------------------------------------------------- vocabulary page: training with NCE and sampled softmax

TRAIN_BATCH = 256


@st.cache_data(max_entries=16, show_spinner=False)
@_one_thread
def nce_self_normalisation(n: int, s: float, sigma: float, seed: int, k: int, steps: int, offset: float) -> dict:
    """NCE training of one scalar c, the model's learned -log Z, on scores x + offset + c: x the
    context logits of the page, offset making them unnormalised (Z = e^offset sum e^x). Targets
    t ~ softmax(x) and k unigram noise words per target, TRAIN_BATCH targets per Adam step (lr 0.05).
    NCE's optimum is x + offset + c = log softmax(x), i.e. c = -log Z: the model normalises itself."""
    x = vocab_logits(n, s, sigma, seed) + offset
    log_z = float(torch.logsumexp(x, 0))
    p = torch.softmax(x, 0)
    q = vocab_proposal("unigram", n, s)
    logq = q.log()
    c = torch.zeros((), dtype=D64, requires_grad=True)
    opt = torch.optim.Adam([c], lr=0.05)
    g = torch.Generator().manual_seed(seed)
    trace = [0.0]
    for _ in range(steps):
        t = draw_samples(p, TRAIN_BATCH, generator=g)
        noise = draw_samples(q, TRAIN_BATCH * k, generator=g).reshape(TRAIN_BATCH, k)
        loss = nce_loss(x[t] + c, x[noise] + c, logq[t], logq[noise], k)
        opt.zero_grad()
        loss.backward()
        opt.step()
        trace.append(float(c.detach()))
    return {"c": np.array(trace), "minus_log_z": -log_z, "log_z": log_z}


@st.cache_data(max_entries=16, show_spinner=False)
@_one_thread
def sampled_softmax_training(n: int, s: float, sigma: float, seed: int, m: int, steps: int) -> dict:
    """Free scores theta (from 0) trained on targets t ~ softmax(x) (the page's context) with Adam
    (lr 0.1, TRAIN_BATCH targets per step), once with the full cross-entropy and once with the
    sampled softmax loss (m unigram samples per target, logQ correction); KL(softmax(x) || softmax(theta))
    after every step. Both estimate the same gradient p - onehot, so both converge."""
    x = vocab_logits(n, s, sigma, seed)
    p = torch.softmax(x, 0)
    q = vocab_proposal("unigram", n, s)
    logq = q.log()
    out = {}
    for method in ("full", "sampled"):
        theta = torch.zeros(n, dtype=D64, requires_grad=True)
        opt = torch.optim.Adam([theta], lr=0.1)
        g = torch.Generator().manual_seed(seed)
        kl = []
        for _ in range(steps):
            t = draw_samples(p, TRAIN_BATCH, generator=g)
            if method == "full":
                loss = losses.cross_entropy(theta.expand(TRAIN_BATCH, n), t)
            else:
                sampled = draw_samples(q, TRAIN_BATCH * m, generator=g).reshape(TRAIN_BATCH, m)
                loss = sampled_softmax_loss(theta[t], theta[sampled], logq[t], logq[sampled])
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                kl.append(float((p * (p.log() - torch.log_softmax(theta, 0))).sum()))
        out[method] = np.array(kl)
    return out


def vocab_training(settings: tuple, progress=None) -> tuple:
    """The vocabulary page's training run as a job (explorer.serving.jobs: run in the job process, queued,
    identical settings computed once): settings = (n, s, sigma, seed, k, m, steps, offset) ->
    (settings, NCE run, sampled-softmax run)."""
    n, s, sigma, seed, k, m, steps, offset = settings
    return (settings, nce_self_normalisation(n, s, sigma, seed, k, steps, offset),
            sampled_softmax_training(n, s, sigma, seed, m, steps))
