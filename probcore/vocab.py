"""Softmax over a large vocabulary without the full O(n) partition function.

For logits x in R^n (usually x = W h with W in R^{n x d}) the softmax p_i = exp(x_i) / Z needs
Z = sum_j exp(x_j): O(n d) work per example. Three remedies live here:

* hierarchical softmax on a binary (Huffman) tree over the classes:
  p(i | h) = prod_{v on path(i)} sigma(s_v h . w_v), s_v = +1 (left, code 0) or -1 (right, code 1);
  O(depth d) per target, and a Huffman tree makes the expected depth < H(freqs) + 1 bits.
* importance sampling of Z and of its gradient: Z = E_{j~q}[exp(x_j) / q_j], so
  Z_hat = (1/m) sum_s exp(x_s) / q_s is unbiased, and d log Z / dx = softmax(x) is estimated by the
  self-normalised weights w_s / sum_t w_t; the sampled-softmax loss uses the same logQ correction.
* noise-contrastive estimation: logistic regression of data against k noise samples with logit
  x - log(k q); its optimum is x_i = log p_data(i), self-normalised, so Z is never computed.

Plus cost measurements (``measure_costs`` and the ``time_*`` helpers) for plots of time against n.
"""

from __future__ import annotations

import functools
import math
import statistics
import time
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from numpy.typing import ArrayLike
from torch import Tensor

from .errors import ProbcoreError
from ._validate import check_nonnegative, check_positive_int, check_reduction

COST_METHODS = ("full", "hierarchical", "sampled")

# ---------------------------------------------------------------------------------------------
# checks


def _check_float(name: str, x: object) -> Tensor:
    if not isinstance(x, Tensor) or not x.is_floating_point():
        got = type(x).__name__ + (f" of dtype {x.dtype}" if isinstance(x, Tensor) else "")
        raise ProbcoreError("float_tensor", name=name, got=got)
    return x


def _check_freqs(freqs: ArrayLike | Tensor) -> Tensor:
    f = torch.as_tensor(freqs, dtype=torch.float64)
    if f.ndim != 1 or f.numel() < 1:
        raise ProbcoreError("freqs_shape", shape=str(tuple(f.shape)))
    if not bool(torch.isfinite(f).all()) or not bool((f > 0).all()):
        raise ProbcoreError("freqs_entries", min=repr(f.min().item()), nonfinite=int((~torch.isfinite(f)).sum()))
    return f


def _check_proposal(q: Tensor, x: Tensor) -> Tensor:
    """q: a probability vector over the last dim of x, shape (n,) or x.shape, entries > 0."""
    q = _check_float("q", q)
    n = x.shape[-1]
    if q.shape != (n,) and q.shape != x.shape:
        raise ProbcoreError("q_shape", n=n, shape=str(tuple(x.shape)), got=str(tuple(q.shape)))
    if not bool(torch.isfinite(q).all()) or not bool((q > 0).all()):
        raise ProbcoreError("q_entries")
    err = (q.sum(-1) - 1).abs().max().item()
    if err > 1e-4:
        raise ProbcoreError("q_sum", off_by=f"{err:.3g}")
    return q


def _check_broadcast(name: str, value: Tensor, shape: torch.Size, to: str) -> None:
    _check_float(name, value)
    try:
        ok = torch.broadcast_shapes(value.shape, shape) == shape
    except RuntimeError:
        ok = False
    if not ok:
        raise ProbcoreError("broadcast", name=name, to=to, shape=str(tuple(shape)), got=str(tuple(value.shape)))


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    reduction = check_reduction(reduction)
    return loss if reduction == "none" else getattr(loss, reduction)()


# ---------------------------------------------------------------------------------------------
# frequencies and the Huffman tree


def zipf_frequencies(n: int, s: float = 1.0) -> Tensor:
    """Zipf probabilities p_i = i^{-s} / sum_{j=1..n} j^{-s}, i = 1..n (float64; s = 0 is uniform)."""
    n = check_positive_int("n", n)
    s = check_nonnegative("s", s)
    w = torch.arange(1, n + 1, dtype=torch.float64).pow(-s)
    return w / w.sum()


def entropy_bits(freqs: ArrayLike | Tensor) -> float:
    """H = -sum_i p_i log2 p_i of p = freqs / sum(freqs): the lower bound on expected code length."""
    p = _check_freqs(freqs)
    p = p / p.sum()
    return float(-(p * p.log2()).sum())


@dataclass(frozen=True, eq=False)
class HuffmanTree:
    """Binary tree over n classes with n - 1 internal nodes, numbered so the root is node 0.

    Row i of ``nodes`` / ``codes`` is the path of class i from the root, left-aligned and padded
    (with 0) to ``max_length``; only the first ``lengths[i]`` entries are real. Code 0 = left child,
    taken with probability sigma(h . w_v); code 1 = right, sigma(-h . w_v).
    """

    nodes: Tensor  # (n, L) long, internal-node index of each step
    codes: Tensor  # (n, L) long, 0 = left, 1 = right
    lengths: Tensor  # (n,) long, path length = code length in bits

    @property
    def n_classes(self) -> int:
        return self.lengths.numel()

    @property
    def n_internal(self) -> int:
        return self.n_classes - 1

    @property
    def max_length(self) -> int:
        return self.nodes.shape[1]

    def path(self, i: int) -> list[int]:
        """Internal nodes from the root to class i."""
        return self.nodes[i, : self.lengths[i]].tolist()

    def code(self, i: int) -> str:
        """Code word of class i, e.g. '0110' (root decision first)."""
        return "".join(map(str, self.codes[i, : self.lengths[i]].tolist()))


def huffman_tree(freqs: ArrayLike | Tensor) -> HuffmanTree:
    """Huffman tree of class frequencies (any positive scale): repeatedly merge the two lightest.

    Expected code length sum_i p_i len_i lies in [H(p), H(p) + 1) bits. Built with the linear
    two-queue method (sorted leaves, merged nodes appear in non-decreasing weight); ties prefer leaves.
    """
    f = _check_freqs(freqs)
    n = f.numel()
    weight = f.tolist() + [0.0] * (n - 1)  # ids 0..n-1 leaves, n..2n-2 merged nodes
    parent = [-1] * (2 * n - 1)
    side = [0] * (2 * n - 1)
    leaves = deque(sorted(range(n), key=lambda i: (weight[i], i)))
    merged: deque[int] = deque()

    def pop_lightest() -> int:
        if merged and (not leaves or weight[merged[0]] < weight[leaves[0]]):
            return merged.popleft()
        return leaves.popleft()

    for new in range(n, 2 * n - 1):
        a, b = pop_lightest(), pop_lightest()
        weight[new] = weight[a] + weight[b]
        parent[a], parent[b], side[a], side[b] = new, new, 0, 1
        merged.append(new)

    root = 2 * n - 2
    depth = [0] * (2 * n - 1)
    for i in range(root - 1, -1, -1):  # a parent always has a larger id than its children
        depth[i] = depth[parent[i]] + 1
    lengths = torch.tensor(depth[:n], dtype=torch.long)
    n_steps = int(lengths.max())
    nodes = torch.zeros(n, n_steps, dtype=torch.long)
    codes = torch.zeros(n, n_steps, dtype=torch.long)
    parent_t, side_t = torch.tensor(parent), torch.tensor(side)
    rows, cur, pos = torch.arange(n), torch.arange(n), lengths - 1
    for _ in range(n_steps):  # walk all leaves up one level at a time, filling paths from the end
        active = pos >= 0
        r, c, p = rows[active], cur[active], pos[active]
        up = parent_t[c]
        nodes[r, p] = root - up  # renumber internal nodes so the root is 0
        codes[r, p] = side_t[c]
        cur[active], pos[active] = up, p - 1
    return HuffmanTree(nodes=nodes, codes=codes, lengths=lengths)


def expected_path_length(tree: HuffmanTree, freqs: ArrayLike | Tensor) -> float:
    """E[len] = sum_i p_i len_i with p = freqs / sum(freqs): the mean cost of one target in HS."""
    p = _check_freqs(freqs)
    if p.numel() != tree.n_classes:
        raise ProbcoreError("freqs_count", n=tree.n_classes, got=p.numel())
    return float((p / p.sum() * tree.lengths).sum())


def code_length_summary(freqs: ArrayLike | Tensor) -> dict[str, float]:
    """Huffman figures for plots: entropy H <= expected length < H + 1, against log2 n (balanced) and max length."""
    f = _check_freqs(freqs)
    tree = huffman_tree(f)
    return {
        "n": f.numel(),
        "log2_n": math.log2(f.numel()),
        "entropy_bits": entropy_bits(f),
        "expected_length": expected_path_length(tree, f),
        "max_length": tree.max_length,
    }


# ---------------------------------------------------------------------------------------------
# hierarchical softmax


def _path_signs(codes: Tensor, lengths: Tensor, dtype: torch.dtype) -> Tensor:
    """s = +1 (left) / -1 (right) on real steps, 0 on padding."""
    real = torch.arange(codes.shape[-1]) < lengths.unsqueeze(-1)
    return ((1 - 2 * codes) * real).to(dtype)


def _check_hs(h: Tensor, node_vectors: Tensor, tree: HuffmanTree) -> None:
    _check_float("h", h)
    _check_float("node_vectors", node_vectors)
    if h.ndim < 1:
        raise ProbcoreError("h_ndim")
    want = (tree.n_internal, h.shape[-1])
    if tuple(node_vectors.shape) != want:
        raise ProbcoreError("node_vectors_shape", shape=str(want), got=str(tuple(node_vectors.shape)))
    if node_vectors.dtype != h.dtype:
        raise ProbcoreError("node_vectors_dtype", dtype=str(node_vectors.dtype), h_dtype=str(h.dtype))


def _path_log_prob(scores: Tensor, signs: Tensor) -> Tensor:
    """log p = sum_steps log sigma(s_v * h.w_v); padded steps have s = 0 and are masked out."""
    return (F.logsigmoid(scores * signs) * (signs != 0)).sum(-1)


def hierarchical_softmax(h: Tensor, node_vectors: Tensor, tree: HuffmanTree, log: bool = False) -> Tensor:
    """Probabilities of every class, p(i | h) = prod_{v in path(i)} sigma(s_v h . w_v), shape (..., n).

    h: (..., d); node_vectors: (n - 1, d), row v for internal node v. sigma(a) + sigma(-a) = 1 at
    every node, so the n leaf probabilities sum to 1 by construction. Cost O(n d + n depth);
    ``log=True`` returns log-probabilities.
    """
    _check_hs(h, node_vectors, tree)
    scores = h @ node_vectors.T  # (..., n - 1), one per internal node
    logp = _path_log_prob(scores[..., tree.nodes], _path_signs(tree.codes, tree.lengths, h.dtype))
    return logp if log else logp.exp()


def hierarchical_softmax_log_prob(h: Tensor, node_vectors: Tensor, tree: HuffmanTree, target: Tensor) -> Tensor:
    """log p(target | h) touching only the target's path: cost O(len(path) d), not O(n d).

    h: (..., d); target: long (...) of class indices. Same value as
    ``hierarchical_softmax(h, node_vectors, tree, log=True)`` gathered at target.
    """
    _check_hs(h, node_vectors, tree)
    if not isinstance(target, Tensor) or target.dtype != torch.long or target.shape != h.shape[:-1]:
        raise ProbcoreError("hs_target", shape=str(tuple(h.shape[:-1])))
    if target.numel() and not (0 <= int(target.min()) and int(target.max()) < tree.n_classes):
        raise ProbcoreError("hs_target_range", high=tree.n_classes - 1)
    steps = int(tree.lengths[target].max()) if target.numel() else 0  # paths are left-aligned
    nodes, codes = tree.nodes[target, :steps], tree.codes[target, :steps]
    scores = (node_vectors[nodes] @ h.unsqueeze(-1)).squeeze(-1)  # (..., steps)
    return _path_log_prob(scores, _path_signs(codes, tree.lengths[target], h.dtype))


# ---------------------------------------------------------------------------------------------
# importance sampling of the partition function


def draw_samples(
    q: Tensor, m: int, batch_shape: tuple[int, ...] = (), generator: torch.Generator | None = None
) -> Tensor:
    """m i.i.d. class indices from q (with replacement) per batch entry: long (*batch_shape, m).

    q: (n,) shared by the batch, or (*batch_shape, n) one proposal per entry.
    """
    m = check_positive_int("m", m)
    _check_float("q", q)
    batch_shape = tuple(batch_shape)
    if q.ndim != 1 and tuple(q.shape[:-1]) != batch_shape:
        raise ProbcoreError("q_batch_shape", batch_shape=str(batch_shape), got=str(tuple(q.shape)))
    if q.ndim == 1:
        return torch.multinomial(q, math.prod(batch_shape) * m, replacement=True, generator=generator).view(
            *batch_shape, m
        )
    return torch.multinomial(q.reshape(-1, q.shape[-1]), m, replacement=True, generator=generator).view(*batch_shape, m)


class PartitionEstimate(NamedTuple):
    log_z: Tensor  # log Z_hat, shape (...)
    grad: Tensor  # estimate of d log Z / dx = softmax(x), shape (..., n)
    samples: Tensor  # indices drawn from q, shape (..., m)


def importance_log_partition(
    x: Tensor, q: Tensor, m: int, generator: torch.Generator | None = None
) -> PartitionEstimate:
    """Importance-sampling estimate of log Z = log sum_j exp(x_j) and of its gradient softmax(x).

    With s_1..s_m ~ q i.i.d. and w_s = exp(x_s) / q_s:
    Z_hat = (1/m) sum_s w_s (unbiased for Z; log Z_hat is biased low by Jensen), and
    grad = sum_s (w_s / sum_t w_t) e_{s} (self-normalised, consistent), which is exactly the
    autograd gradient of log Z_hat with respect to x. q = softmax(x) makes every w_s = Z: exact.
    x: (..., n); q: (n,) or (..., n), positive, summing to 1.
    """
    _check_float("x", x)
    q = _check_proposal(q, x)
    samples = draw_samples(q, m, x.shape[:-1], generator)
    log_w = x.gather(-1, samples) - q.log().to(x.dtype).expand(x.shape).gather(-1, samples)
    log_z = torch.logsumexp(log_w, -1) - math.log(m)
    grad = x.new_zeros(x.shape).scatter_add_(-1, samples, torch.softmax(log_w, -1))
    return PartitionEstimate(log_z, grad, samples)


def partition_estimate_variance(x: Tensor, q: Tensor, m: int = 1) -> Tensor:
    """Exact Var[Z_hat / Z] = chi^2(p || q) / m = (sum_j p_j^2 / q_j - 1) / m, p = softmax(x)."""
    _check_float("x", x)
    q = _check_proposal(q, x)
    m = check_positive_int("m", m)
    log_p = torch.log_softmax(x, -1)
    return (torch.exp(2 * log_p - q.log()).sum(-1) - 1) / m


class ISStats(NamedTuple):
    m: int
    repeats: int
    log_z: float  # exact log Z
    ratio_mean: float  # mean of Z_hat / Z over repeats (unbiased: -> 1)
    ratio_std_err: float  # standard error of that mean
    ratio_var: float  # sample variance of Z_hat / Z
    ratio_var_theory: float  # chi^2(p || q) / m
    log_z_bias: float  # mean(log Z_hat) - log Z  (<= 0 in expectation, ~ -Var/2)
    log_z_var: float  # sample variance of log Z_hat
    grad_tv: float  # mean total-variation distance 1/2 |grad_hat - softmax(x)|_1


def importance_sampling_stats(
    x: Tensor, q: Tensor, m: int, repeats: int = 200, generator: torch.Generator | None = None
) -> ISStats:
    """Bias and variance of ``importance_log_partition`` with m samples over R = ``repeats`` draws.

    x, q: 1-D (n,). Deterministic for a seeded ``generator``. Repeats run in chunks so the dense
    gradient estimates stay under ~2^20 entries at a time.
    """
    _check_float("x", x)
    if x.ndim != 1:
        raise ProbcoreError("x_1d", shape=str(tuple(x.shape)))
    m = check_positive_int("m", m)
    repeats = check_positive_int("repeats", repeats, low=2)
    q = _check_proposal(q, x)
    n = x.numel()
    with torch.no_grad():
        log_z = torch.logsumexp(x, 0)
        p = torch.softmax(x, 0)
        chunk = max(1, 2**20 // n)
        log_z_hat, tv = [], []
        for start in range(0, repeats, chunk):
            est = importance_log_partition(x.expand(min(chunk, repeats - start), n), q, m, generator)
            log_z_hat.append(est.log_z)
            tv.append(0.5 * (est.grad - p).abs().sum(-1))
        err = torch.cat(log_z_hat).double() - log_z.double()
        ratio = err.exp()
        return ISStats(
            m=m,
            repeats=repeats,
            log_z=float(log_z),
            ratio_mean=float(ratio.mean()),
            ratio_std_err=float(ratio.std() / math.sqrt(repeats)),
            ratio_var=float(ratio.var()),
            ratio_var_theory=float(partition_estimate_variance(x, q, m)),
            log_z_bias=float(err.mean()),
            log_z_var=float(err.var()),
            grad_tv=float(torch.cat(tv).mean()),
        )


# ---------------------------------------------------------------------------------------------
# training losses: sampled softmax and NCE


def sampled_softmax_loss(
    x_target: Tensor, x_sampled: Tensor, logq_target: Tensor, logq_sampled: Tensor, reduction: str = "mean"
) -> Tensor:
    """Sampled softmax with logQ correction over the target and m sampled classes s_1..s_m ~ q:

    L = -log softmax([x_t - log q_t, x_{s_1} - log q_{s_1}, ..., x_{s_m} - log q_{s_m}])_0.
    Its gradient in the full logits tends to softmax(x) - onehot(t) as m grows (samples equal to the
    target are kept: removing them would bias it). x_target (...), x_sampled (..., m); the logq
    tensors broadcast to them.
    """
    _check_float("x_target", x_target)
    _check_float("x_sampled", x_sampled)
    if x_sampled.ndim < 1 or x_sampled.shape[-1] < 1:
        raise ProbcoreError("x_sampled_ndim", got=str(tuple(x_sampled.shape)))
    if x_sampled.shape[:-1] != x_target.shape:
        raise ProbcoreError("x_sampled_shape", shape=str(tuple(x_target.shape)), got=str(tuple(x_sampled.shape)))
    _check_broadcast("logq_target", logq_target, x_target.shape, "x_target")
    _check_broadcast("logq_sampled", logq_sampled, x_sampled.shape, "x_sampled")
    target = x_target - logq_target
    logits = torch.cat([target.unsqueeze(-1), x_sampled - logq_sampled], -1)
    return _reduce(torch.logsumexp(logits, -1) - target, reduction)


def nce_loss(
    x_target: Tensor, x_noise: Tensor, logq_target: Tensor, logq_noise: Tensor, k: int, reduction: str = "mean"
) -> Tensor:
    """Noise-contrastive estimation with k noise samples per data point.

    With D(w) = sigma(x_w - log(k q_w)) the posterior that w came from the data (prior 1 : k):
    L = -log D(t) - sum_{j=1..k} log(1 - D(n_j))
      = softplus(-(x_t - log k q_t)) + sum_j softplus(x_{n_j} - log k q_{n_j}).
    Its minimiser over free scores is x_w = log p_data(w): normalised without computing Z
    (subtract a learned log Z from x to model it explicitly). x_target (...), x_noise (..., k).
    """
    k = check_positive_int("k", k)
    _check_float("x_target", x_target)
    _check_float("x_noise", x_noise)
    if x_noise.shape != x_target.shape + (k,):
        raise ProbcoreError(
            "x_noise_shape", shape=str(tuple(x_target.shape) + (k,)), k=k, got=str(tuple(x_noise.shape))
        )
    _check_broadcast("logq_target", logq_target, x_target.shape, "x_target")
    _check_broadcast("logq_noise", logq_noise, x_noise.shape, "x_noise")
    log_k = math.log(k)
    data = F.softplus(-(x_target - logq_target - log_k))
    noise = F.softplus(x_noise - logq_noise - log_k).sum(-1)
    return _reduce(data + noise, reduction)


# ---------------------------------------------------------------------------------------------
# cost against n


@functools.lru_cache(maxsize=8)
def _zipf_tree(n: int, s: float) -> HuffmanTree:
    return huffman_tree(zipf_frequencies(n, s))


def measure_costs(
    n: int,
    d: int = 64,
    m: int = 64,
    batch: int = 16,
    repeats: int = 5,
    s: float = 1.0,
    methods: tuple[str, ...] = COST_METHODS,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
) -> dict[str, float]:
    """Median wall seconds of one forward loss for a batch of hidden vectors h (batch, d), per method.

    Targets follow Zipf(s) over n classes. "full": log_softmax(h W^T), O(n d); "hierarchical":
    ``hierarchical_softmax_log_prob`` on the Huffman tree of Zipf(s), O(depth d); "sampled": draw m
    classes from q = Zipf(s) (shared by the batch) and ``sampled_softmax_loss``, O(m d) plus the
    sampler. Repetitions are interleaved across methods (round-robin, after one warm-up each) so
    machine drift hits all alike. Setup (weights, tree; trees are cached) is not timed.
    """
    n = check_positive_int("n", n)
    d = check_positive_int("d", d)
    m = check_positive_int("m", m)
    batch = check_positive_int("batch", batch)
    repeats = check_positive_int("repeats", repeats)
    bad = [meth for meth in methods if meth not in COST_METHODS]
    if bad or not methods:
        raise ProbcoreError("methods", choices=", ".join(COST_METHODS), value=repr(methods))
    g = torch.Generator().manual_seed(seed)
    q = zipf_frequencies(n, s)
    logq = q.log().to(dtype)
    target = draw_samples(q, batch, generator=g).view(batch)
    h = torch.randn(batch, d, generator=g, dtype=dtype)

    runs = {}
    if "full" in methods or "sampled" in methods:
        weights = torch.randn(n, d, generator=g, dtype=dtype) / math.sqrt(d)
        runs["full"] = lambda: torch.log_softmax(h @ weights.T, -1).gather(-1, target[:, None]).mean()

        def sampled() -> Tensor:
            neg = draw_samples(q, m, generator=g)
            x_target = (h * weights[target]).sum(-1)
            return sampled_softmax_loss(x_target, h @ weights[neg].T, logq[target], logq[neg])

        runs["sampled"] = sampled
    if "hierarchical" in methods:
        tree = _zipf_tree(n, float(s))
        vectors = torch.randn(n - 1, d, generator=g, dtype=dtype) / math.sqrt(d)
        runs["hierarchical"] = lambda: hierarchical_softmax_log_prob(h, vectors, tree, target).mean()
    times: dict[str, list[float]] = {meth: [] for meth in methods}
    with torch.no_grad():
        for meth in methods:
            runs[meth]()
        for _ in range(repeats):
            for meth in methods:
                t0 = time.perf_counter()
                runs[meth]()
                times[meth].append(time.perf_counter() - t0)
    return {meth: statistics.median(ts) for meth, ts in times.items()}


def time_full_softmax(n: int, d: int = 64, batch: int = 16, repeats: int = 5, seed: int = 0) -> float:
    """Median seconds of a full-softmax loss over n classes (see ``measure_costs``)."""
    return measure_costs(n, d, batch=batch, repeats=repeats, methods=("full",), seed=seed)["full"]


def time_hierarchical(n: int, d: int = 64, batch: int = 16, repeats: int = 5, s: float = 1.0, seed: int = 0) -> float:
    """Median seconds of a hierarchical-softmax loss on a Zipf(s) Huffman tree (see ``measure_costs``)."""
    return measure_costs(n, d, batch=batch, repeats=repeats, s=s, methods=("hierarchical",), seed=seed)["hierarchical"]


def time_sampled(
    n: int, d: int = 64, m: int = 64, batch: int = 16, repeats: int = 5, s: float = 1.0, seed: int = 0
) -> float:
    """Median seconds of a sampled-softmax loss with m Zipf(s) samples (see ``measure_costs``)."""
    return measure_costs(n, d, m=m, batch=batch, repeats=repeats, s=s, methods=("sampled",), seed=seed)["sampled"]
