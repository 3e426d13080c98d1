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
