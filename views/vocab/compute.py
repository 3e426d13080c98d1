"""Large vocabularies page: hierarchical softmax on a Zipf vocabulary, sampled softmax, NCE and their
costs; p_i ∝ i^-s (Zipf), cached (explorer.compute.memo)."""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np
import streamlit as st
import torch

from explorer.compute import D64, memo
from probcore import losses
from probcore.vocab import draw_samples, nce_loss, sampled_softmax_loss

VOCAB_D = 16  # hidden size of the hierarchical-softmax demo (random h and node vectors)


VOCAB_TREE_MAX_N = 32  # the tree is drawn up to this n


VOCAB_REPEATS = 200  # draws per m (importance sampling) and per k (NCE)


VOCAB_MS = tuple(2**k for k in range(12))  # samples m = 1 .. 2048


VOCAB_KS = tuple(2**k for k in range(11))  # NCE noise samples k = 1 .. 1024


VOCAB_BOUND_NS = (2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000)  # code-length bound


VOCAB_COST_NS = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000)


VOCAB_COST = dict(d=64, m=64, batch=16, repeats=5)  # measure_costs settings of the cost plot


VOCAB_PROPOSALS = ("uniform", "unigram")


def vocab_logits(n: int, s: float, sigma: float, seed: int) -> torch.Tensor:
    """Logits of one context over n classes: the Zipf(s) unigram log-frequency plus N(0, sigma^2)
    noise (the context moves the scores away from the unigram), float64, from ``seed``."""
    from probcore.vocab import zipf_frequencies

    noise = torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return zipf_frequencies(n, s).log() + sigma * noise


def vocab_proposal(name: str, n: int, s: float) -> torch.Tensor:
    """The sampling distribution q: uniform 1/n, or the Zipf(s) unigram frequencies."""
    from probcore.vocab import zipf_frequencies

    return torch.full((n,), 1.0 / n, dtype=torch.float64) if name == "uniform" else zipf_frequencies(n, s)


@memo(32)
def vocab_hs(n: int, s: float, seed: int) -> dict:
    """Huffman tree of Zipf(s) over n classes and the hierarchical-softmax probabilities of one
    random h with random node vectors (both N(0, 1), d = VOCAB_D, drawn from ``seed``: first the
    (n - 1, d) node vectors, then h). Returns numpy arrays and the code-length figures."""
    from probcore import vocab

    freqs = vocab.zipf_frequencies(n, s)
    tree = vocab.huffman_tree(freqs)
    g = torch.Generator().manual_seed(seed)
    vectors = torch.randn(n - 1, VOCAB_D, generator=g, dtype=torch.float64)
    h = torch.randn(VOCAB_D, generator=g, dtype=torch.float64)
    with torch.no_grad():
        p = vocab.hierarchical_softmax(h, vectors, tree)
    return dict(
        p=p.numpy(),
        sum=float(p.sum()),
        freqs=freqs.numpy(),
        lengths=tree.lengths.numpy(),
        nodes=tree.nodes.numpy(),
        codes=tree.codes.numpy(),
        entropy=vocab.entropy_bits(freqs),
        expected=vocab.expected_path_length(tree, freqs),
        log2_n=float(np.log2(n)),
        max_length=tree.max_length,
    )


@memo(16)
def huffman_uniform(n: int) -> dict[str, float]:
    """code_length_summary of n equal frequencies (Zipf s = 0): the Huffman expected length equals
    log2 n only when n is a power of 2."""
    from probcore.vocab import code_length_summary, zipf_frequencies

    return code_length_summary(zipf_frequencies(n, 0.0))


@memo(16)
def vocab_bounds(s: float) -> dict[str, np.ndarray]:
    """Entropy, Huffman expected and maximum code length of Zipf(s) for n in VOCAB_BOUND_NS."""
    from probcore.vocab import code_length_summary, zipf_frequencies

    rows = [code_length_summary(zipf_frequencies(n, s)) for n in VOCAB_BOUND_NS]
    return {
        key: np.array([r[key] for r in rows], dtype=float)
        for key in ("n", "entropy_bits", "expected_length", "log2_n", "max_length")
    }


@memo(32)
def vocab_importance(n: int, s: float, sigma: float, seed: int) -> dict:
    """``importance_sampling_stats`` of ``vocab_logits`` for each proposal and each m in VOCAB_MS
    (VOCAB_REPEATS draws, a generator seeded with ``seed`` for every m): {proposal: {field: array}}
    plus "log_z" (exact) and "chi2" (chi^2(p || q), the variance of Z_hat / Z with one sample)."""
    from probcore.vocab import importance_sampling_stats, partition_estimate_variance

    x = vocab_logits(n, s, sigma, seed)
    out = {"log_z": float(torch.logsumexp(x, 0)), "chi2": {}}
    for name in VOCAB_PROPOSALS:
        q = vocab_proposal(name, n, s)
        stats = [
            importance_sampling_stats(x, q, m, VOCAB_REPEATS, torch.Generator().manual_seed(seed)) for m in VOCAB_MS
        ]
        out[name] = {f: np.array([getattr(st_, f) for st_ in stats], dtype=float) for f in stats[0]._fields}
        out["chi2"][name] = float(partition_estimate_variance(x, q, 1))
    return out


@memo(32)
def vocab_nce(n: int, s: float, sigma: float, seed: int) -> dict:
    """NCE with k unigram noise samples (k in VOCAB_KS) for the normalised model scores
    log softmax(vocab_logits) and one target t ~ softmax (drawn from ``seed``):

    * ``loss_mean`` / ``loss_sd``: nce_loss over VOCAB_REPEATS noise draws,
    * ``loss_exact``: its expectation log(1 + k q_t / p_t) + k sum_i q_i log(1 + p_i / (k q_i)),
    * ``loss_limit``: CE + log(k q_t) + Z - log Z with Z = sum exp(score) = 1 here (normalised scores),
      what the expectation tends to as k grows,
    * ``grad_err_draw``: mean over draws of |g_hat - g|_1 / |g|_1, g = p - onehot(t) the gradient of
      the full softmax cross-entropy CE = -log p_t, g_hat the autograd gradient of one draw,
    * ``grad_err_exact``: the same for the exact expected NCE gradient k q D - (1 - D_t) onehot(t),
      D = p / (p + k q) (the bias left for finite k)."""
    from probcore.vocab import draw_samples, nce_loss

    x = vocab_logits(n, s, sigma, seed)
    logp = torch.log_softmax(x, 0)
    p = logp.exp()
    q = vocab_proposal("unigram", n, s)
    logq = q.log()
    g = torch.Generator().manual_seed(seed)
    t = int(torch.multinomial(p, 1, generator=g))
    ce = float(-logp[t])
    grad_ce = p.clone()
    grad_ce[t] -= 1
    norm = float(grad_ce.abs().sum())
    chunk = max(1, 2**20 // n)
    out = {key: [] for key in ("loss_mean", "loss_sd", "loss_exact", "loss_limit", "grad_err_draw", "grad_err_exact")}
    for k in VOCAB_KS:
        noise = draw_samples(q, k, (VOCAB_REPEATS,), g)
        x_t = logp[t].expand(VOCAB_REPEATS).clone().requires_grad_(True)
        x_noise = logp[noise].requires_grad_(True)
        loss = nce_loss(x_t, x_noise, logq[t], logq[noise], k, reduction="none")
        loss.sum().backward()
        err = []
        for start in range(0, VOCAB_REPEATS, chunk):  # dense gradients, ~2^20 entries at a time
            rows = slice(start, min(start + chunk, VOCAB_REPEATS))
            dense = torch.zeros(rows.stop - start, n, dtype=torch.float64)
            dense.scatter_add_(1, noise[rows], x_noise.grad[rows])
            dense[:, t] += x_t.grad[rows]
            err.append((dense - grad_ce).abs().sum(1) / norm)
        d = p / (p + k * q)
        expected = k * q * d
        expected[t] -= 1 - d[t]
        loss = loss.detach()
        out["loss_mean"].append(float(loss.mean()))
        out["loss_sd"].append(float(loss.std()))
        out["loss_exact"].append(float(torch.log1p(k * q[t] / p[t]) + k * (q * torch.log1p(p / (k * q))).sum()))
        out["loss_limit"].append(ce + float(np.log(k * float(q[t]))) + 1.0)
        out["grad_err_draw"].append(float(torch.cat(err).mean()))
        out["grad_err_exact"].append(float((expected - grad_ce).abs().sum() / norm))
    return {
        **{key: np.array(v) for key, v in out.items()},
        "target": t,
        "ce": ce,
        "p_t": float(p[t]),
        "q_t": float(q[t]),
    }


def vocab_costs(s: float) -> dict:
    """Wall time of one loss (full softmax, hierarchical, sampled) for n in VOCAB_COST_NS, measured
    now on this machine by ``probcore.vocab.measure_costs`` (not cached: a new measurement each call)."""
    import time

    from probcore.vocab import COST_METHODS, measure_costs

    start = time.perf_counter()
    rows = [measure_costs(n, s=s, **VOCAB_COST) for n in VOCAB_COST_NS]
    return {
        "n": np.array(VOCAB_COST_NS, dtype=float),
        "s": s,
        "threads": torch.get_num_threads(),
        "seconds": time.perf_counter() - start,
        **{meth: np.array([r[meth] for r in rows]) for meth in COST_METHODS},
    }


def _one_thread(fn):
    """Run ``fn`` with one torch thread: many small tensors, where thread hand-offs cost more than
    they save (see probcore.check.torch_threads). For the runs done in the job process
    (explorer.serving.jobs), which a plain ``streamlit run`` starts with torch's default thread count; the
    app's own process already computes on one thread (explorer/serving/process.py: one_torch_thread)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from probcore.check import torch_threads

        with torch_threads(1):
            return fn(*args, **kwargs)

    return wrapper


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
    after every step. The full loss's expected gradient is softmax(theta) - softmax(x); the sampled loss's is in
    general another vector for a finite m, but it too vanishes where softmax(theta) = softmax(x)."""
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
    return (
        settings,
        nce_self_normalisation(n, s, sigma, seed, k, steps, offset),
        sampled_softmax_training(n, s, sigma, seed, m, steps),
    )


def cost_job(s: float, progress: Callable) -> dict:
    """The vocabulary page's cost measurement (vocab_costs) as a job (explorer.serving.jobs)."""
    return vocab_costs(s)
