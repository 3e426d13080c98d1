""" "Check my numbers": compare a user's probabilities with probcore's and explain the difference.

A user pastes logits x and the probabilities p their own implementation produced (one vector or
many rows), picks a mapping and its parameters; :func:`check_outputs` computes the reference in
float64 through the registry and returns one :class:`RowVerdict` per row. Row ``r`` passes when
every entry satisfies ``|p_i - ref_i| <= atol + rtol * |ref_i|`` (``numpy.isclose``).

For a failing row the check tries, in order, alternative implementations that are wrong in a
typical way (the hypotheses of :mod:`probcore.hypotheses`) and reports the first one that
reproduces the user's row (same tolerance, at least float32 resolution); each has a stable cause id
(a key of :data:`CAUSES`):

1. ``float16_overflow``: x / T formed in float16 overflows past 65504 (when ``dtype="float16"``),
2. ``max_subtraction``: ``exp(x) / sum exp(x)`` without max-subtraction, in the user's ``dtype``
   when given (limits: float16 11.1, float32 / bfloat16 88.7, float64 709.8), else in float64 or
   float32 (the widest type that reproduces the row is named),
3. ``passthrough``: logits passed through unchanged (``p = x`` or ``p = x / T``),
4. ``log_probs``: log-probabilities instead of probabilities (``exp(p) = ref``),
5. ``ties``: entries tied in x exchanged (top-k keeps other tied entries),
6. ``clipping``: a thresholded mapping without its ``max(0, .)`` (sparsemax's ``z - tau``),
7. ``top_k``: top-k / top-p support one entry too large or too small (sparse softmax),
8. ``threshold``: threshold tau from a support of K +- 1 entries (sparsemax, entmax-1.5 closed forms
   ``tau = (sum_{j<=K} z_(j) - 1) / K`` and ``tau = mean_K - sqrt((1 - K var_K) / K)``), or the
   mapping restricted to the top K - 1 entries (entmax with any alpha > 1),
9. ``renormalisation``: missing renormalisation (``p / sum p = ref`` while ``sum p != 1``),
10. ``wrong_axis``: every row equals the mapping applied down the columns (needs >= 2 rows),
11. ``wrong_mapping``: another deterministic mapping's output (named, with its parameters),
12. ``precision``: matches only to float32 / float16 resolution,
13. ``temperature_forgotten`` / ``temperature_twice`` / ``temperature``: ``p = f(c x)`` for a fitted
    scale c: T not applied (c = T), applied twice (c = 1 / T), else reported as ``T' = T / c``,
14. ``precision`` at bfloat16 resolution,
15. ``max_subtraction`` / ``float16_overflow`` / ``nonfinite``: nan / inf / all-zero rows: an exp
    overflow at large logits (mappings with an exp only), float16 sums past 65504, or a fully
    masked row.

Parsing helpers :func:`parse_vector` and :func:`load_rows` (from :mod:`probcore.rows`, re-exported
here) read pasted text, CSV and ``.npy`` (never ``eval``, never pickle) and raise ``ValueError`` with
the offending token or row;
:func:`reference_rows` gives the reference alone and :func:`rows_bytes` writes rows as CSV / ``.npy``.
"""

from __future__ import annotations

import io
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
import torch

from probcore._validate import check_nonnegative
from probcore.errors import ProbcoreError
from probcore.hypotheses import DTYPES, SENTENCES, Sentence, _Case, _diagnose, _Problem
from probcore.rows import MAX_COLS, MAX_FILE_BYTES, MAX_ROWS, MAX_VALUES, check_size, load_rows, parse_vector

__all__ = [
    "CAUSES",
    "DTYPES",
    "MAX_COLS",
    "MAX_FILE_BYTES",
    "MAX_ROWS",
    "MAX_VALUES",
    "RowVerdict",
    "SENTENCES",
    "Sentence",
    "check_outputs",
    "load_rows",
    "parse_vector",
    "reference_rows",
    "rows_bytes",
    "summary",
    "torch_threads",
]

MAX_DIAGNOSED_VALUES = 50_000  # failing rows * n that get the hypothesis tests (at least one row)

CAUSES = {
    "max_subtraction": "overflow: no max-subtraction before exp",
    "float16_overflow": "float16 overflow: x / T computed in float16",
    "nonfinite": "nan / inf in the output",
    "passthrough": "logits passed through unchanged",
    "log_probs": "log-probabilities instead of probabilities",
    "clipping": "clipping max(0, .) forgotten: negative entries",
    "ties": "ties broken differently",
    "renormalisation": "missing renormalisation",
    "wrong_axis": "normalised over the wrong axis",
    "top_k": "top-k / top-p support off by one",
    "threshold": "threshold from a support off by one",
    "wrong_mapping": "another mapping's output",
    "temperature_forgotten": "temperature not applied",
    "temperature_twice": "temperature applied twice",
    "temperature": "wrong temperature",
    "precision": "low floating-point precision",
    "not_diagnosed": "not diagnosed (row limit)",
}


@dataclass(frozen=True, eq=False)
class RowVerdict:
    """Outcome for one row. ``differing``: indices i with |p_i - ref_i| > atol + rtol |ref_i|;
    ``cause`` a key of :data:`CAUSES` (None when ok or unexplained), ``likely_cause`` its
    explanation for this row, ``fitted`` the numbers behind it (e.g. ``{"temperature": 2.0}``)."""

    row: int
    ok: bool
    max_abs_error: float
    differing: tuple[int, ...]
    reference: np.ndarray
    likely_cause: str | None = None
    cause: str | None = None
    fitted: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- reference


@contextmanager
def torch_threads(n: int = 1) -> Iterator[None]:
    """Run torch with n intra-op threads, restoring the previous count afterwards. The check (and
    the training demo) work on many tiny tensors, where thread hand-offs cost more than they save
    (measured on the 2-core box: softmax of a 6 x 12 tensor 24 ms with 2 threads, 10 us with 1)."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _as_rows(values: Any, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ProbcoreError("rows_numeric", name=name) from None
    if array.ndim not in (1, 2) or array.size == 0:
        raise ProbcoreError("rows_shape", name=name, shape=str(array.shape))
    array = array.reshape(-1, array.shape[-1])
    check_size(*array.shape, name)
    return array


def _dtype_name(dtype: object) -> str | None:
    """The name in DTYPES of a dtype given as a name, a torch dtype or a numpy dtype (None stays None)."""
    if dtype is None:
        return None
    name = str(dtype).removeprefix("torch.")
    if name not in DTYPES:
        try:
            name = np.dtype(dtype).name  # type: ignore[call-overload]
        except TypeError:
            pass
    if name not in DTYPES:
        raise ProbcoreError("dtype", choices=", ".join(DTYPES), value=repr(dtype))
    return name


# ---------------------------------------------------------------- API


def check_outputs(
    logits: Any,
    probs: Any,
    mapping: str,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    *,
    dtype: str | torch.dtype | np.dtype | None = None,
    **params: Any,
) -> list[RowVerdict]:
    """Compare the user's probabilities with the mapping of their logits, row by row.

    logits, probs: arrays of the same shape (n,) or (rows, n); logits finite or -inf (masked),
    probs may hold nan / inf (they fail). mapping: a name in probcore.MAPPINGS (deterministic ones;
    ``target=`` a class index or one per row for am_softmax); params: the mapping's parameters.
    Row r is ok when |p_ri - ref_ri| <= atol + rtol |ref_ri| for all i, ref = f(x_r) in float64.
    Failing rows (up to MAX_DIAGNOSED_VALUES values) get a likely cause (see module docstring).
    ``dtype``: the floating type the outputs were computed in (a name in DTYPES, a torch or numpy
    dtype), when known: overflows are then diagnosed at that type's limits."""
    atol = check_nonnegative("atol", atol)
    rtol = check_nonnegative("rtol", rtol)
    dtype_name = _dtype_name(dtype)
    x = _logit_rows(logits)
    p = _as_rows(probs, "probs")
    if x.shape != p.shape:
        raise ProbcoreError("probs_shape", shape=str(x.shape), got=str(p.shape))
    problem = _Problem(mapping, dict(params), *x.shape)
    with torch_threads(1):
        return _verdicts(problem, x, p, atol, rtol, dtype_name)


def reference_rows(logits: Any, mapping: str, **params: Any) -> np.ndarray:
    """f(x) in float64 for every row of logits (n,) or (rows, n): the reference check_outputs
    compares with (deterministic mappings; ``target=`` for am_softmax as there)."""
    x = _logit_rows(logits)
    problem = _Problem(mapping, dict(params), *x.shape)
    with torch_threads(1):
        return problem(x, np.arange(len(x)))


def rows_bytes(rows: np.ndarray, suffix: str) -> bytes:
    """(rows, n) as a file load_rows reads back exactly: ``"csv"`` (no header, 17 significant
    digits: float64 round-trips) or ``"npy"``."""
    buffer = io.BytesIO()
    if suffix == "csv":
        np.savetxt(buffer, rows, fmt="%.17g", delimiter=",")
    elif suffix == "npy":
        np.save(buffer, rows, allow_pickle=False)
    else:
        raise ProbcoreError("file_suffix", value=repr(suffix))
    return buffer.getvalue()


def _logit_rows(logits: Any) -> np.ndarray:
    x = _as_rows(logits, "logits")
    if np.isnan(x).any() or np.isposinf(x).any():
        raise ProbcoreError("logits_finite")
    return x


def _verdicts(
    problem: _Problem, x: np.ndarray, p: np.ndarray, atol: float, rtol: float, dtype: str | None = None
) -> list[RowVerdict]:
    all_rows = np.arange(len(x))
    ref = problem(x, all_rows)
    close = np.isclose(p, ref, atol=atol, rtol=rtol)
    with np.errstate(invalid="ignore"):
        err = np.abs(p - ref)
    err = np.where(np.isnan(err), np.inf, err).max(-1)
    failing = np.flatnonzero(~close.all(-1))
    budget = max(1, MAX_DIAGNOSED_VALUES // x.shape[1])
    floor = 10 * float(np.finfo(np.float32).eps)  # hypotheses are judged at >= float32 resolution
    case = _Case(problem, x, p, ref, max(atol, floor), max(rtol, floor), dtype)
    causes = _diagnose(case, failing[:budget])
    for r in failing[budget:]:
        causes[int(r)] = ("not_diagnosed", Sentence("diag_not_diagnosed", budget=str(budget)), {})
    verdicts = []
    for r in all_rows:
        ok = bool(close[r].all())
        cause, message, fitted = causes.get(int(r), (None, None, {}))
        verdicts.append(
            RowVerdict(
                row=int(r),
                ok=ok,
                max_abs_error=float(err[r]),
                differing=tuple(np.flatnonzero(~close[r]).tolist()),
                reference=ref[r],
                likely_cause=message,
                cause=cause,
                fitted=fitted,
            )
        )
    return verdicts


def summary(verdicts: list[RowVerdict]) -> dict[str, Any]:
    """Counts over the rows: {"rows", "passed", "failed", "max_abs_error", "causes": {cause: rows},
    "text": one sentence}."""
    if not verdicts:
        raise ProbcoreError("no_verdicts")
    failed = [v for v in verdicts if not v.ok]
    causes: dict[str, int] = {}
    for v in failed:
        key = v.cause or "unexplained"
        causes[key] = causes.get(key, 0) + 1
    worst = max(v.max_abs_error for v in verdicts)
    text = f"{len(verdicts) - len(failed)} of {len(verdicts)} rows match (max abs error {worst:.3g})"
    if causes:
        text += "; failing rows: " + ", ".join(
            f"{count} {CAUSES.get(key, 'no known cause found')}"
            for key, count in sorted(causes.items(), key=lambda kv: -kv[1])
        )
    return {
        "rows": len(verdicts),
        "passed": len(verdicts) - len(failed),
        "failed": len(failed),
        "max_abs_error": worst,
        "causes": causes,
        "text": text,
    }
