"""The hypotheses of :func:`probcore.check.check_outputs`: each reproduces a failing row with a
typical mistake (no max-subtraction, a forgotten temperature, a support off by one, ...), and
:func:`_diagnose` tries them in order (the order and the causes: :mod:`probcore.check`'s docstring).

A hypothesis ``_h_<name>(case, rows)`` gets a :class:`_Case` (the user's rows, the reference and
the tolerance) and returns one :data:`Finding` per row: ``(cause, Sentence, fitted)`` when the
mistake gives the user's row, else None. :class:`Sentence` is a diagnosis in English that carries
its id in :data:`SENTENCES` and its fields; :class:`_Problem` evaluates the chosen mapping with
other settings (dtype, support, temperature)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

import numpy as np
import torch

from probcore.errors import ProbcoreError
from probcore.registry import get_mapping

Finding = tuple[str, str, dict[str, Any]] | None  # (cause, sentence, fitted) from a hypothesis, for one row


# Every diagnosis sentence once, by a stable id; ``Sentence(id, **fields)`` is the English text
# that also carries its id and fields, so an interface translates it without parsing the English.
SENTENCES: dict[str, str] = {
    "diag_overflow": "reproduced by exp(x) / sum exp(x) in {dtype} without subtracting max x: exp overflows / "
    "underflows beyond |x| = {limit} (here up to {big}), giving nan, inf or 0; compute "
    "exp(x - max x) instead (the result is the same)",
    "diag_float16_overflow": "{what} overflows float16: it reaches {big}, beyond float16's largest value {limit}, "
    "and becomes inf (then nan); compute in float32 and cast the result to float16 (as "
    "torch.softmax does)",
    "diag_ties": "your row is the reference with entries tied in x exchanged (indices {indices}): ties broken "
    "differently; any of the tied entries is a valid choice (probcore keeps those torch.topk "
    "returns), so compare tied entries as a set",
    "diag_clipping": "your row is {formula} without the clipping max(0, .): it equals the reference on the support "
    "and is nonzero on {count} entries off it (down to {low}); clip at 0",
    "diag_wrong_mapping": "your row matches {label}, not {mapping}: your code computes another mapping (or the "
    "check was given the wrong one)",
    "diag_passthrough": "your output equals the {what}: the mapping was not applied",
    "what_logits": "logits x",
    "what_scaled": "scaled logits x / T",
    "diag_log_probs": "your output is log p: exp(output) equals the reference (log-probabilities, e.g. "
    "log_softmax, instead of p)",
    "diag_renormalisation": "your row sums to {sum}, and dividing it by that sum gives the reference: missing "
    "renormalisation (divide by the sum)",
    "diag_wrong_axis": "your rows equal the mapping applied down the columns (dim=0): normalise each row (the last "
    "axis) instead",
    "diag_top_k": "your row matches top-k with k = {got} instead of {want}: k is off by one",
    "diag_top_p": "your row keeps the top {got} entries instead of {want}: the top-p cut-off keeps one entry {side} "
    "(>= versus >, or the cumulative sum shifted by one)",
    "diag_threshold": "your row matches the threshold tau computed from the top {got} entries instead of {want}: "
    "the support size is off by one (one {side}; K = max{{k : 1 + k z_(k) > sum_(j<=k) z_(j)}} "
    "for sparsemax, indices counted from 1)",
    "side_many": "too many",
    "side_few": "too few",
    "diag_temperature": "your row matches temperature T' = {new} instead of T = {old} (fitted{note}): the logits "
    "are scaled by {c} relative to your setting",
    "diag_beta": "your row matches beta' = {new} instead of beta = {old} (fitted{note}): the logits are scaled by "
    "{c} relative to your setting",
    "not_unique": " (not unique: nearby temperatures give the same output)",
    "diag_temperature_forgotten": "your row matches {name} = 1: {name} = {value} was not applied (the logits need "
    "{how} before the mapping)",
    "diag_temperature_twice": "your row matches {name}' = {name}^2 = {twice}: the logits were {how} = {value} twice",
    "diag_precision": "your row agrees only to {dtype} resolution (max error {err}, {dtype} epsilon {eps}): compute "
    "in float64, or loosen atol / rtol",
    "where_indices": "nan / inf at indices {indices}",
    "where_zero_row": "an all-zero row",
    "diag_masked": "{where} for a row whose logits are all -inf (fully masked): the reference is all zeros; x - max "
    "x is nan there, so such rows need a guard",
    "diag_overflow_nonfinite": "{where} with logits up to {big}: an overflow (exp passes {dtype}'s range beyond "
    "{limit}); the mapping is shift-invariant, so subtract the row max first: the result "
    "is the same",
    "diag_float16_sum": "{where} with logits up to {big}: sums of {count} such values pass float16's largest value "
    "{limit}; compute in float32 (after subtracting the row max) and cast the result to float16",
    "diag_nonfinite": "your output has {where} where the reference is finite",
    "diag_not_diagnosed": "not diagnosed: only the first {budget} failing rows are analysed",
}


class Sentence(str):
    """A diagnosis: the English text ``SENTENCES[code].format(**fields)``, carrying ``code`` and
    ``fields`` (a field is text, or a nested Sentence) so that an interface can show it in another
    language from its template. Pickles with its code and fields."""

    code: str
    fields: dict[str, Any]

    def __new__(cls, code: str, **fields: Any) -> Sentence:
        sentence = super().__new__(cls, SENTENCES[code].format(**fields))
        sentence.code, sentence.fields = code, fields
        return sentence

    def __reduce__(self) -> tuple[Any, ...]:
        return (_sentence, (self.code, self.fields))


def _sentence(code: str, fields: dict[str, Any]) -> Sentence:
    return Sentence(code, **fields)


class _Problem:
    """The chosen mapping with validated parameters, evaluated in float64 (or a given dtype)."""

    def __init__(self, mapping: str, params: dict[str, Any], n_rows: int, n: int) -> None:
        self.spec = get_mapping(mapping)
        if self.spec.stochastic:
            raise ProbcoreError("stochastic", mapping=repr(mapping))
        target = params.pop("target", None)
        if self.spec.needs_target:
            if target is None:
                raise ProbcoreError("target_required", mapping=repr(mapping))
            target = np.asarray(target)
            if target.dtype.kind not in "iu" or target.ndim > 1 or target.size not in (1, n_rows):
                raise ProbcoreError("target_rows", rows=n_rows)
            self.target = torch.as_tensor(np.broadcast_to(target.reshape(-1), (n_rows,)).copy(), dtype=torch.long)
        elif target is not None:
            raise ProbcoreError("target_unused", mapping=repr(mapping))
        self.params = self.spec.validate(n=n, **params)
        self.name = self.spec.name
        # p = f(s x): the logit scale s set by temperature T (s = 1/T) or beta (s = beta)
        names = {p.name for p in self.spec.params}
        self.has_temperature = "temperature" in names and not self.spec.needs_target
        beta = self.params.get("beta")
        self.uses_beta = beta is not None
        self.scale = float(beta) if beta is not None else 1.0 / float(self.params.get("temperature", 1.0))

    def __call__(
        self, x: np.ndarray, rows: Any, dim: int = -1, dtype: torch.dtype = torch.float64, **override: Any
    ) -> np.ndarray:
        """f(x) for the given rows of the input (rows: their indices, for am_softmax's target)."""
        params = {**self.params, **override}
        if self.spec.needs_target:
            params["target"] = self.target[rows]
        t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)).to(dtype)
        with torch.no_grad():
            return self.spec.forward(t, dim=dim, **params).double().numpy()

    def temperature_fit(self, c: float) -> tuple[str, dict[str, str], dict[str, float]]:
        """The setting that scales the logits by c, T' = T / c or beta' = beta c: the sentence's id,
        its fields (new, old) and the fitted value."""
        if self.uses_beta:
            b = self.params["beta"]
            return "diag_beta", {"new": f"{b * c:.6g}", "old": f"{b:g}"}, {"beta": b * c}
        t = 1.0 / self.scale
        return "diag_temperature", {"new": f"{t / c:.6g}", "old": f"{t:g}"}, {"temperature": t / c}


# the floating types a user may have computed in (check_outputs(dtype=...))
DTYPES = ("float16", "bfloat16", "float32", "float64")
# exp(z) overflows the type beyond z = log(its largest value): float16 11.1, bfloat16 / float32 88.7, float64 709.8
_EXP_LIMITS = {name: math.log(torch.finfo(getattr(torch, name)).max) for name in DTYPES}
_NUMPY_TYPES: dict[str, type[np.floating]] = {
    "float16": np.float16,
    "bfloat16": np.float32,
    "float32": np.float32,
    "float64": np.float64,
}
_FLOAT16_MAX = float(torch.finfo(torch.float16).max)


@dataclass
class _Case:
    """Everything the hypotheses need; ``matches(alt, rows)`` compares the user's rows with an
    alternative output at the diagnosis tolerance (NaN equal to NaN)."""

    problem: _Problem
    x: np.ndarray
    p: np.ndarray
    ref: np.ndarray
    atol: float
    rtol: float
    dtype: str | None = None  # the type the user computed in, when known

    def matches(self, alt: np.ndarray, rows: Any) -> np.ndarray:
        return np.isclose(self.p[rows], alt, atol=self.atol, rtol=self.rtol, equal_nan=True).all(-1)

    def differs_from_ref(self, alt: np.ndarray, rows: Any) -> np.ndarray:
        return ~np.isclose(alt, self.ref[rows], atol=self.atol, rtol=self.rtol).all(-1)

    def support(self, rows: Any) -> np.ndarray:
        return (self.ref[rows] > 0).sum(-1)

    def n_finite(self, rows: Any) -> np.ndarray:
        return np.isfinite(self.x[rows]).sum(-1)


def _naive_exp(z: np.ndarray, dtype: type[np.floating], k: int | None) -> np.ndarray:
    """exp(z) / sum exp(z) without subtracting max z, in dtype (over the top k entries if k)."""
    with np.errstate(all="ignore"):
        e = np.exp(z.astype(dtype))
        if k is not None:
            kth = -np.sort(-z, axis=-1)[:, k - 1 : k]
            e = np.where(z >= kth, e, 0)
        return (e / e.sum(-1, keepdims=True)).astype(np.float64)


def _h_overflow(case: _Case, rows: Any) -> list[Finding]:
    """Softmax / top-k softmax computed as exp(x) / sum exp(x): reproduce its overflow."""
    pr = case.problem
    if pr.name == "softmax":
        k = None
    elif pr.name == "sparse_softmax" and pr.params.get("k") is not None:
        k = pr.params["k"]
    else:
        return [None] * len(rows)
    z = case.x[rows] * pr.scale
    out: list[Finding] = [None] * len(rows)
    # the user's type when known, else float64 first: name the widest type that overflows
    for name in (case.dtype,) if case.dtype else ("float64", "float32"):
        limit = _EXP_LIMITS[name]
        naive = _naive_exp(z, _NUMPY_TYPES[name], k)
        big = np.abs(np.where(np.isfinite(z), z, 0)).max(-1)
        hit = case.matches(naive, rows) & case.differs_from_ref(naive, rows) & (big > limit)
        for i in np.flatnonzero(hit):
            if out[i] is None:
                out[i] = (
                    "max_subtraction",
                    Sentence("diag_overflow", dtype=name, limit=f"{limit:.1f}", big=f"{big[i]:.4g}"),
                    {"dtype": name},
                )
    return out


_EXP_MAPPINGS = {"softmax", "sparse_softmax", "am_softmax", "gumbel_softmax", "perturbmax"}


def _uses_exp(problem: _Problem) -> bool:
    """Whether the mapping computes exp(x / T) (softmax and its kin, entmax at alpha = 1)."""
    return problem.name in _EXP_MAPPINGS or (problem.name == "entmax" and problem.params.get("alpha") == 1)


def _entmax_alpha(problem: _Problem) -> float | None:
    """alpha of a thresholded mapping p = max(0, (alpha - 1) z - tau)^(1/(alpha - 1)) (alpha > 1), else None."""
    alpha = {"sparsemax": 2.0, "entmax15": 1.5}.get(problem.name)
    if problem.name == "entmax":
        alpha = problem.params.get("alpha", 1.5)
    if not isinstance(alpha, (int, float)) or alpha <= 1:
        return None
    return float(alpha)


def _h_float16_overflow(case: _Case, rows: Any) -> list[Finding]:
    """Computed in float16: x / T (or x itself) past float16's largest value 65504 becomes inf; the
    row is the mapping of those float16 logits (nan where inf - inf appears)."""
    pr = case.problem
    if case.dtype != "float16" or pr.spec.needs_target:
        return [None] * len(rows)
    x = case.x[rows]
    with np.errstate(all="ignore"):
        z16 = x.astype(np.float16) * np.float16(pr.scale)
    overflow = (np.isinf(z16) & np.isfinite(x)).any(-1)
    if not overflow.any():
        return [None] * len(rows)
    unit: dict[str, Any] = {"beta": 1.0} if pr.uses_beta else {"temperature": 1.0} if pr.has_temperature else {}
    with np.errstate(all="ignore"):
        alt = pr(z16.astype(np.float64), rows, **unit)
    hit = overflow & case.matches(alt, rows)
    big = np.abs(np.where(np.isfinite(x), x * pr.scale, 0)).max(-1)
    what = "x / T" if pr.has_temperature and pr.scale != 1 else "x"
    return [
        (
            "float16_overflow",
            Sentence("diag_float16_overflow", what=what, big=f"{big[i]:.4g}", limit=f"{_FLOAT16_MAX:.0f}"),
            {"dtype": "float16"},
        )
        if hit[i]
        else None
        for i in range(len(rows))
    ]


def _h_ties(case: _Case, rows: Any) -> list[Finding]:
    """Entries tied in x exchanged: the row equals the reference once each group of equal logits is
    sorted (top-k keeps any of the tied entries at its cut-off)."""
    x, p, ref = case.x[rows], case.p[rows], case.ref[rows]
    tied = (np.diff(np.sort(x, -1), axis=-1) == 0).any(-1)
    sorted_p = np.take_along_axis(p, np.lexsort((p, x), axis=-1), -1)
    sorted_ref = np.take_along_axis(ref, np.lexsort((ref, x), axis=-1), -1)
    hit = tied & np.isclose(sorted_p, sorted_ref, atol=case.atol, rtol=case.rtol, equal_nan=True).all(-1)
    out: list[Finding] = []
    for i in range(len(rows)):
        if not hit[i]:
            out.append(None)
            continue
        moved = np.flatnonzero(~np.isclose(p[i], ref[i], atol=case.atol, rtol=case.rtol)).tolist()
        out.append(("ties", Sentence("diag_ties", indices=str(moved)), {"indices": moved}))
    return out


def _h_clipping(case: _Case, rows: Any) -> list[Finding]:
    """A thresholded mapping without its max(0, .): the reference on the support and
    ((alpha - 1) z - tau)^(1/(alpha - 1)) off it (z - tau for sparsemax: negative entries)."""
    pr = case.problem
    alpha = _entmax_alpha(pr)
    if alpha is None:
        return [None] * len(rows)
    x, p, ref = case.x[rows], case.p[rows], case.ref[rows]
    with np.errstate(all="ignore"):
        z = x * pr.scale
        z = (alpha - 1) * (z - np.max(np.where(np.isfinite(z), z, -np.inf), -1, keepdims=True))
        support = ref > 0
        tau = np.where(support, z - ref ** (alpha - 1), 0).sum(-1) / np.maximum(support.sum(-1), 1)
        d = z - tau[:, None]
        q = 1 / (alpha - 1)
        signed = np.sign(d) * np.abs(d) ** q  # an odd power, e.g. sparsemax's z - tau
        plain = d**q  # an even power, e.g. entmax15's (z / 2 - tau)^2
    hit = (~support & (p != 0)).any(-1) & (case.matches(signed, rows) | case.matches(plain, rows))
    formula = "z - tau" if alpha == 2 else "((alpha - 1) z - tau)^(1/(alpha - 1))"
    out: list[Finding] = []
    for i in range(len(rows)):
        if not hit[i]:
            out.append(None)
            continue
        off = ~support[i] & (p[i] != 0)
        out.append(
            (
                "clipping",
                Sentence("diag_clipping", formula=formula, count=str(int(off.sum())), low=f"{p[i][off].min():.3g}"),
                {"off_support": int(off.sum())},
            )
        )
    return out


def _alternatives(pr: _Problem) -> list[tuple[str, dict[str, Any]]]:
    """Other mappings a row might have been computed with: each deterministic mapping other than
    the chosen one (perturb-max with each non-Gumbel noise; Gumbel perturb-max is softmax), at the
    user's temperature where it takes one."""
    from probcore._validate import NOISES
    from probcore.registry import MAPPINGS

    out: list[tuple[str, dict[str, Any]]] = []
    for name, spec in MAPPINGS.items():
        if spec.stochastic or spec.needs_target or name in (pr.name, "entmax", "sparse_softmax"):
            continue
        variants: list[dict[str, Any]] = (
            [{"noise": noise} for noise in NOISES if noise != "gumbel"] if name == "perturbmax" else [{}]
        )
        for params in variants:
            if "temperature" in {p.name for p in spec.params} and pr.scale != 1:
                params = {**params, "temperature": 1 / pr.scale}
            out.append((name, params))
    return out


def _h_wrong_mapping(case: _Case, rows: Any) -> list[Finding]:
    """The row is another mapping's output (e.g. softmax values checked as sparsemax)."""
    pr = case.problem
    rows = np.asarray(rows)
    out: list = [None] * len(rows)
    for name, params in _alternatives(pr):
        spec = get_mapping(name)
        t = torch.from_numpy(np.ascontiguousarray(case.x[rows]))
        with torch.no_grad(), np.errstate(all="ignore"):
            alt = spec.forward(t, dim=-1, **params).double().numpy()
        hit = case.matches(alt, rows) & case.differs_from_ref(alt, rows)
        shown = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
        label = f"{name} ({shown})" if shown else name
        for i in np.flatnonzero(hit):
            out[i] = out[i] or (
                "wrong_mapping",
                Sentence("diag_wrong_mapping", label=label, mapping=pr.name),
                {"mapping": name, **params},
            )
    return out


def _h_passthrough(case: _Case, rows: Any) -> list[Finding]:
    x = case.x[rows]
    out: list[Finding] = [None] * len(rows)
    for alt, what in ((x, "what_logits"), (x * case.problem.scale, "what_scaled")):
        for i in np.flatnonzero(case.matches(alt, rows)):
            out[i] = out[i] or ("passthrough", Sentence("diag_passthrough", what=Sentence(what)), {})
    return out


def _h_log_probs(case: _Case, rows: Any) -> list[Finding]:
    p = case.p[rows]
    with np.errstate(all="ignore"):
        hit = (np.nan_to_num(p, nan=np.inf) <= case.atol).all(-1)
        hit &= np.isclose(np.exp(p), case.ref[rows], atol=case.atol, rtol=case.rtol).all(-1)
    return [("log_probs", Sentence("diag_log_probs"), {}) if h else None for h in hit]


def _h_renormalisation(case: _Case, rows: Any) -> list[Finding]:
    p = case.p[rows]
    s = p.sum(-1)
    ok = np.isfinite(s) & (s > 0) & (np.abs(s - 1) > case.atol)
    with np.errstate(all="ignore"):
        hit = ok & case.matches(case.ref[rows] * s[:, None], rows)
    return [
        ("renormalisation", Sentence("diag_renormalisation", sum=f"{s[i]:.6g}"), {"sum": float(s[i])})
        if hit[i]
        else None
        for i in range(len(rows))
    ]


def _h_wrong_axis(case: _Case, rows: Any) -> list[Finding]:
    if len(case.x) < 2 or case.problem.spec.needs_target:
        return [None] * len(rows)
    by_column = case.problem(case.x, slice(None), dim=0)
    # a property of the whole array: every row (not only the failing ones) equals the mapping by columns
    if not case.matches(by_column, slice(None)).all():
        return [None] * len(rows)
    hit = case.matches(by_column[rows], rows)
    return [("wrong_axis", Sentence("diag_wrong_axis"), {}) if h else None for h in hit]


def _by_support(
    case: _Case, rows: Any, alternative: Callable[[np.ndarray, int], np.ndarray | None]
) -> list[tuple[int, int, int] | None]:
    """Try supports K - 1 and K + 1 (K = the reference's support size) per row;
    ``alternative(sub_rows, K')`` gives the rows' output for the shifted support or None."""
    rows = np.asarray(rows)
    K = case.support(rows)
    limit = case.n_finite(rows)
    out: list[tuple[int, int, int] | None] = [None] * len(rows)
    for delta in (-1, 1):
        k_new = K + delta
        for value in np.unique(k_new[(k_new >= 1) & (k_new <= limit)]):
            pick = np.flatnonzero(k_new == value)
            alt = alternative(rows[pick], int(value))
            if alt is None:
                continue
            for j in np.flatnonzero(case.matches(alt, rows[pick])):
                i = pick[j]
                out[i] = out[i] or (int(K[i]), int(value), delta)
    return out


def _support_findings(
    found: list[tuple[int, int, int] | None], cause: str, sentence: Callable[[int, int, Sentence], Sentence]
) -> list[Finding]:
    """Each row's finding from :func:`_by_support`'s (K, K', delta): None where no shifted support
    matched, else (cause, ``sentence(K, K', side)``, {"support": K', "expected_support": K}) with K
    the reference's support size, K' = K + delta the one that matched and side "too many" for
    delta = +1, "too few" for delta = -1."""
    out: list[Finding] = []
    for f in found:
        if f is None:
            out.append(None)
            continue
        K, k_new, delta = f
        side = Sentence("side_many" if delta > 0 else "side_few")
        out.append((cause, sentence(K, k_new, side), {"support": k_new, "expected_support": K}))
    return out


def _h_top_k(case: _Case, rows: Any) -> list[Finding]:
    pr = case.problem
    if pr.name != "sparse_softmax":
        return [None] * len(rows)
    found = _by_support(case, rows, lambda r, k: pr(case.x[r], r, k=k, top_p=None))

    def sentence(K: int, k_new: int, side: Sentence) -> Sentence:
        if pr.params.get("k") is not None:
            return Sentence("diag_top_k", got=str(k_new), want=str(K))
        return Sentence("diag_top_p", got=str(k_new), want=str(K), side=side)

    return _support_findings(found, "top_k", sentence)


def _fixed_support(z: np.ndarray, K: int, power: int) -> np.ndarray:
    """relu(z - tau_K)^power with tau_K the closed-form threshold for a support of the K largest:
    power 1 (sparsemax) tau_K = (sum_{j<=K} z_(j) - 1) / K; power 2 (entmax-1.5)
    tau_K = mean_K - sqrt(max(0, (1 - K var_K) / K)) over the K largest."""
    z = z - z.max(-1, keepdims=True)
    top = -np.sort(-z, axis=-1)[:, :K]
    if power == 1:
        tau = (top.sum(-1) - 1) / K
    else:
        mean = top.mean(-1)
        tau = mean - np.sqrt(np.maximum(0.0, (1 - K * top.var(-1)) / K))
    return np.maximum(z - tau[:, None], 0) ** power


def _h_threshold(case: _Case, rows: Any) -> list[Finding]:
    """Sparsemax / entmax with the support size off by one: tau from the closed form for K +- 1
    entries (alpha 2 and 1.5), or the mapping restricted to the top K - 1 entries (any alpha)."""
    pr = case.problem
    alpha = _entmax_alpha(pr)
    if alpha is None:
        return [None] * len(rows)
    scale = pr.scale * (alpha - 1)  # z = (alpha - 1) x / T

    def closed_form(r: np.ndarray, k: int) -> np.ndarray | None:
        return _fixed_support(case.x[r] * scale, k, int(round(1 / (alpha - 1)))) if alpha in (1.5, 2.0) else None

    def restricted(r: np.ndarray, k: int) -> np.ndarray | None:
        if k >= case.support(r).min():
            return None
        x = case.x[r]
        kth = -np.sort(-x, axis=-1)[:, k - 1 : k]
        return pr(np.where(x >= kth, x, -np.inf), r)

    found = [a or b for a, b in zip(_by_support(case, rows, closed_form), _by_support(case, rows, restricted))]
    return _support_findings(
        found, "threshold", lambda K, k_new, side: Sentence("diag_threshold", got=str(k_new), want=str(K), side=side)
    )


_GRID = np.exp(np.linspace(math.log(1e-3), math.log(1e3), 25))  # neighbours 1.78x apart
_GOLDEN = (math.sqrt(5) - 1) / 2


def _fit_scale(f: Callable[[np.ndarray], np.ndarray], m: int) -> np.ndarray:
    """argmin_c f(c) per row, f: (m,) scales -> (m,) errors: best point of a log-grid over
    [1e-3, 1e3], then golden-section search on log c between its neighbours."""
    grid = np.stack([f(np.full(m, c)) for c in _GRID])
    best = grid.argmin(0)
    lo = np.log(_GRID[np.maximum(best - 1, 0)])
    hi = np.log(_GRID[np.minimum(best + 1, len(_GRID) - 1)])
    a, b = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    fa, fb = f(np.exp(a)), f(np.exp(b))
    for _ in range(40):  # bracket width 1.15 * 0.618^40 in log c: c to ~5e-9
        left = fa <= fb  # the minimum lies in [lo, b]
        lo, hi = np.where(left, lo, a), np.where(left, b, hi)
        a, b = np.where(left, hi - _GOLDEN * (hi - lo), b), np.where(left, a, lo + _GOLDEN * (hi - lo))
        f_new = f(np.exp(np.where(left, a, b)))
        fa, fb = np.where(left, f_new, fb), np.where(left, fa, f_new)
    return np.exp((lo + hi) / 2)


def _h_temperature(case: _Case, rows: Any) -> list[Finding]:
    """p = f(c x) with c fitted per row (least squares); reported as T' = T / c when it
    reproduces the row and c differs from 1."""
    pr = case.problem
    fit_rows = np.asarray(rows)[np.isfinite(case.p[rows]).all(-1)]
    found = {}
    if pr.has_temperature and len(fit_rows):
        x, p = case.x[fit_rows], case.p[fit_rows]

        def sse(c: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                err = ((pr(x * c[:, None], fit_rows) - p) ** 2).sum(-1)
            return np.where(np.isfinite(err), err, np.inf)

        c = _fit_scale(sse, len(fit_rows))
        hit = case.matches(pr(x * c[:, None], fit_rows), fit_rows) & (np.abs(c - 1) > 1e-4)
        # a sparse output (e.g. one-hot) may stay the same over a range of temperatures
        flat = case.matches(pr(x * c[:, None] * 1.01, fit_rows), fit_rows)
        flat |= case.matches(pr(x * c[:, None] / 1.01, fit_rows), fit_rows)
        for i in np.flatnonzero(hit):
            code, shown, fitted = pr.temperature_fit(float(c[i]))
            slip = None if flat[i] else _temperature_slip(pr, float(c[i]))
            if slip is not None:
                found[fit_rows[i]] = slip
                continue
            note = Sentence("not_unique") if flat[i] else ""
            found[fit_rows[i]] = (
                "temperature",
                Sentence(code, **shown, note=note, c=f"{c[i]:.6g}"),
                {**fitted, "unique": not flat[i]},
            )
    return [found.get(r) for r in rows]


def _temperature_slip(pr: _Problem, c: float) -> Finding:
    """The fitted scale c read as a slip: the temperature (or beta) not applied (the logits' scale
    is 1) or applied twice (scale s^2 for the setting's s); None for any other c."""
    s = pr.scale
    if abs(s - 1) < 1e-6:
        return None
    name, value = ("beta", pr.params["beta"]) if pr.uses_beta else ("T", 1 / s)
    if abs(s * c - 1) < 1e-3:
        how = "multiplying by beta" if pr.uses_beta else "dividing by T"
        return (
            "temperature_forgotten",
            Sentence("diag_temperature_forgotten", name=name, value=f"{value:g}", how=how),
            {name if pr.uses_beta else "temperature": 1.0},
        )
    if abs(s * c / (s * s) - 1) < 1e-3:
        how = "multiplied by beta" if pr.uses_beta else "divided by T"
        twice = value * value
        return (
            "temperature_twice",
            Sentence("diag_temperature_twice", name=name, twice=f"{twice:g}", how=how, value=f"{value:g}"),
            {name if pr.uses_beta else "temperature": twice},
        )
    return None


def _h_precision(
    case: _Case, rows: Any, dtypes: tuple[torch.dtype, ...] = (torch.float32, torch.float16)
) -> list[Finding]:
    """Agreement only to the resolution of a lower precision: |p - q| <= 4 eps |q| + 1e-7 with q
    the reference or the mapping evaluated in that dtype (eps: its machine epsilon)."""
    out: list[Finding] = [None] * len(rows)
    p, ref = case.p[rows], case.ref[rows]
    for dtype in dtypes:
        eps = torch.finfo(dtype).eps
        low = case.problem(case.x[rows], rows, dtype=dtype)
        hit = np.isclose(p, ref, atol=1e-7, rtol=4 * eps).all(-1) | np.isclose(p, low, atol=1e-7, rtol=4 * eps).all(-1)
        for i in np.flatnonzero(hit):
            if out[i] is None:
                name = str(dtype).removeprefix("torch.")
                out[i] = (
                    "precision",
                    Sentence("diag_precision", dtype=name, err=f"{np.abs(p[i] - ref[i]).max():.2g}", eps=f"{eps:.2g}"),
                    {"dtype": name},
                )
    return out


def _h_nonfinite(case: _Case, rows: Any) -> list[Finding]:
    """Last resort for nan / inf / all-zero rows: an overflow if the logits are large (beyond the
    user's type's exp limit when known, else the widest type that overflows)."""
    out: list[Finding] = []
    for r in rows:
        p, x, ref = case.p[r], case.x[r], case.ref[r]
        bad = np.isnan(p) | np.isposinf(p) | (np.isneginf(p) & (ref > 0))
        zero = p.sum() == 0 and ref.sum() > 0
        if not (bad.any() or zero):
            out.append(None)
            continue
        big = np.abs(x[np.isfinite(x)] * case.problem.scale).max(initial=0.0)
        name = case.dtype or ("float64" if big > _EXP_LIMITS["float64"] else "float32")
        where = (
            Sentence("where_indices", indices=str(np.flatnonzero(bad)[:10].tolist()))
            if bad.any()
            else Sentence("where_zero_row")
        )
        if np.isneginf(x).all():
            out.append(("nonfinite", Sentence("diag_masked", where=where), {}))
        elif case.problem.spec.shift_invariant and _uses_exp(case.problem) and big > _EXP_LIMITS[name]:
            out.append(
                (
                    "max_subtraction",
                    Sentence(
                        "diag_overflow_nonfinite",
                        where=where,
                        big=f"{big:.4g}",
                        dtype=name,
                        limit=f"{_EXP_LIMITS[name]:.1f}",
                    ),
                    {},
                )
            )
        elif case.dtype == "float16" and big * np.isfinite(x).sum() > _FLOAT16_MAX:
            out.append(
                (
                    "float16_overflow",
                    Sentence(
                        "diag_float16_sum",
                        where=where,
                        big=f"{big:.4g}",
                        count=str(np.isfinite(x).sum()),
                        limit=f"{_FLOAT16_MAX:.0f}",
                    ),
                    {"dtype": "float16"},
                )
            )
        else:
            out.append(("nonfinite", Sentence("diag_nonfinite", where=where), {}))
    return out


_HYPOTHESES = (
    _h_float16_overflow,  # before the missing max-subtraction: x / T is already inf, before any exp
    _h_overflow,
    _h_passthrough,
    _h_log_probs,
    _h_ties,
    _h_clipping,
    _h_top_k,
    _h_threshold,  # before renormalisation: a support off by one may sum to other than 1
    _h_renormalisation,
    _h_wrong_axis,
    _h_wrong_mapping,
    _h_precision,  # float32 / float16 before the temperature fit, which could absorb their rounding
    _h_temperature,
    partial(_h_precision, dtypes=(torch.bfloat16,)),  # 3 % relative: a wrong T' is the likelier story
    _h_nonfinite,
)


def _diagnose(case: _Case, rows: np.ndarray) -> dict[int, tuple[str, str, dict[str, Any]]]:
    """row -> (cause, message, fitted) from the first hypothesis that reproduces the row."""
    found = {}
    remaining = np.asarray(rows)
    for hypothesis in _HYPOTHESES:
        if not len(remaining):
            break
        results = hypothesis(case, remaining)
        for r, result in zip(remaining, results):
            if result is not None:
                found[int(r)] = result
        remaining = np.asarray([r for r, result in zip(remaining, results) if result is None], dtype=int)
    return found
