"""Smooth max page: LSE_T(x) = T log sum exp(x / T) against max(x), its gradient softmax(x / T), the
properties of a smooth max tested on random draws, beta-curves and attention saturation."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st
import torch

import probcore
from explorer.compute import D64, given_defaults
from probcore.registry import MAPPINGS


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
        extra.update(given_defaults(name))
        with torch.no_grad():
            p, shifted = mapping.forward(x, **extra), mapping.forward(x + shift, **extra)
        bigger = x[:, :, None] > x[:, None, :]
        smaller = p[:, :, None] < p[:, None, :] - PROPERTY_TOL
        broken = (bigger & smaller).flatten(1).any(1).numpy()
        first = int(np.argmax(broken)) if broken.any() else None
        out[name] = {
            "shift": float((shifted - p).abs().max()),
            "order": float(broken.mean()),
            "example": None if first is None else (x[first].numpy(), p[first].numpy()),
        }
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
    return {
        "d": np.array(DIMS, dtype=float),
        "raw": np.array(raw),
        "scaled": np.array(scaled),
        "score_sd": np.array(spread),
        "uniform": 1 - 1 / ATTENTION_KEYS,
    }


def softmax_readings(x: tuple, draws: int = 200, seed: int = 0) -> dict:
    """Softmax read four ways, at logits x: (1) an exponential family p_i = exp(x_i - A(x)) with
    the log-partition A = log sum e^x (its gradient, by autograd, is softmax); (2) the maximum-
    entropy distribution with the same mean logit sum p_i x_i: ``draws`` random distributions
    q = p + s delta, delta orthogonal to 1 and x (same total, same mean), s between 0.1 and 1 of the
    most that keeps q >= 0,
    all have less entropy; (3) base e^beta: cosines in [-1, 1] keep p_i / p_j <= e^(2 beta); (4) a
    soft read of memory: values v_i = i read with weights p give sum p_i i, argmax reads one slot."""
    z = torch.tensor(x, dtype=D64, requires_grad=True)
    log_partition = torch.logsumexp(z, 0)
    log_partition.backward()
    p = probcore.softmax(z.detach()).numpy()
    xs = np.asarray(x, dtype=float)
    entropy = float(-np.sum(p * np.log(p)))
    rng = np.random.default_rng(seed)
    constraints = np.stack([np.ones_like(xs), xs], axis=1)  # q - p must be orthogonal to 1 and to x
    free = len(xs) - np.linalg.matrix_rank(constraints)
    frame = np.linalg.qr(constraints)[0]
    best = -np.inf
    for _ in range(draws if free else 0):
        g = rng.normal(size=len(xs))
        delta = g - frame @ (frame.T @ g)
        room = np.min(np.where(delta < 0, p / -np.where(delta < 0, delta, -1.0), np.inf))
        q = np.clip(p + rng.uniform(0.1, 1.0) * room * delta, 0.0, None)
        best = max(best, float(-np.sum(np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0)), 0.0))))
    ratios = {
        beta: float(np.divide(*probcore.softmax(torch.tensor([1.0, -1.0], dtype=D64), beta=beta).numpy()))
        for beta in (1.0, 10.0)
    }
    return {
        "A": float(log_partition.detach()),
        "grad_diff": float(np.abs(z.grad.numpy() - p).max()),
        "mean": float(p @ xs),
        "entropy": entropy,
        "draws": draws if free else 0,
        "best_other": best,
        "ratios": ratios,
        "soft_read": float(p @ np.arange(len(xs))),
        "hard_read": int(np.argmax(xs)),
    }


def collision(x: tuple, pairs: int = 100_000, seed: int = 0) -> dict:
    """Sum p^2 of p = softmax(x): the chance that two independent draws from p collide (checked
    by drawing ``pairs`` pairs), the collision (Renyi order-2) entropy H2 = -log sum p^2 beside
    Shannon's H (H2 <= H), and 1 - sum p^2 = 1 - e^-H2."""
    p = probcore.softmax(torch.tensor(x, dtype=D64)).numpy()
    rng = np.random.default_rng(seed)
    a, b = rng.choice(len(p), size=pairs, p=p), rng.choice(len(p), size=pairs, p=p)
    square = float(np.sum(p**2))
    return {
        "sum_sq": square,
        "frequency": float(np.mean(a == b)),
        "pairs": pairs,
        "h2": -math.log(square),
        "shannon": float(-np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0))),
        "one_minus": 1.0 - square,
    }
