"""Check my numbers page: parsing pasted or uploaded rows, running probcore.check on them, the worked
examples (user_* functions with their mistakes) and the reference downloads."""

from __future__ import annotations

import functools
import inspect

import numpy as np
import streamlit as st

from explorer.compute import Kw
from probcore.errors import ProbcoreError
from probcore.registry import MAPPINGS

CHECK_MAPPINGS = tuple(name for name, m in MAPPINGS.items() if not m.stochastic)  # output is reproducible


CHECK_TEXT_CHARS = 4_000_000  # pasted text, per text area


CHECK_EAGER_VALUES = 200_000  # reference downloads up to this size are prepared with the page


CHECK_TOP_VIEW = 40  # entries shown in the bar chart of one row


UPLOAD_TTL = 600  # seconds the check caches keep an upload's arrays (up to 16 uploads of 2M values each)


def check_parse_rows(text: str, name: str) -> np.ndarray:
    """(rows, n) float64 from pasted text, never eval: one row per line when the lines hold
    several numbers each (also [[...], [...]] as printed by numpy or Python), else the whole text
    is one vector (numbers separated by commas, spaces or new lines). nan / inf are accepted (an
    output may have overflowed; check_outputs refuses them in the logits). ValueError names the
    line and the token."""
    import re

    from probcore.check import MAX_ROWS, MAX_VALUES, parse_vector

    if not isinstance(text, str) or not text.strip():
        raise ProbcoreError("empty", name=name)
    if len(text) > CHECK_TEXT_CHARS:
        raise ValueError(
            f"{name} must be at most {CHECK_TEXT_CHARS:,} characters, got {len(text):,}; upload a .npy file"
        )
    body = text.strip().replace("−", "-")
    if body[:2] in ("[[", "((") and body[-2:] in ("]]", "))"):
        chunks = re.split(r"[\])]\s*[,;]?\s*[\[(]", body[1:-1])  # split between rows
        unit = "row"
    else:
        chunks = [line for line in body.splitlines() if line.strip()]
        unit = "line"
    if len(chunks) > MAX_ROWS:
        raise ProbcoreError("max_rows", name=name, limit=f"{MAX_ROWS:,}", got=f"{len(chunks):,}")
    rows = []
    for i, chunk in enumerate(chunks, start=1):
        chunk = chunk.strip().rstrip(",;").strip()
        if unit == "row":  # the first row keeps its "[", the last its "]"
            chunk = chunk.lstrip("[(").rstrip("])")
        try:
            rows.append(parse_vector(chunk, allow_nonfinite=True, name=f"{name}, {unit} {i}"))
        except ValueError as err:
            raise err from None
    if len(rows) > 1 and all(len(r) == 1 for r in rows):
        rows = [np.concatenate(rows)]  # a column of numbers: one vector
    width = len(rows[0])
    for i, r in enumerate(rows, start=1):
        if len(r) != width:
            raise ValueError(f"{name}: {unit} {i} has {len(r)} values, expected {width} like {unit} 1")
    if len(rows) * width > MAX_VALUES:
        raise ProbcoreError("max_values", name=name, limit=f"{MAX_VALUES:,}", got=f"{len(rows) * width:,}")
    return np.stack(rows)


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner=False)
def check_load_file(data: bytes, filename: str, name: str) -> np.ndarray:
    """probcore.check.load_rows of an uploaded .csv / .npy (nan / inf kept: see check_parse_rows)."""
    from probcore.check import load_rows

    return load_rows(data, filename, allow_nonfinite=True, name=name)


@st.cache_data(max_entries=16, ttl=UPLOAD_TTL, show_spinner=False)
def check_run(x: np.ndarray, p: np.ndarray, mapping: str, params: Kw, atol: float, rtol: float) -> list:
    """probcore.check.check_outputs, one RowVerdict per row (params: sorted items, target included)."""
    from probcore.check import check_outputs

    return check_outputs(x, p, mapping, atol=atol, rtol=rtol, **dict(params))


@st.cache_data(max_entries=8, ttl=UPLOAD_TTL, show_spinner=False)
def check_reference_files(reference: np.ndarray) -> tuple[bytes, bytes]:
    """The reference output as CSV and as .npy (probcore.check.rows_bytes)."""
    from probcore.check import rows_bytes

    return rows_bytes(reference, "csv"), rows_bytes(reference, "npy")


def check_view_index(reference: np.ndarray, user: np.ndarray, top: int) -> np.ndarray:
    """All entries when n <= top, else the ``top`` entries with the largest error (non-finite
    first), then the largest reference values, in index order."""
    n = len(reference)
    if n <= top:
        return np.arange(n)
    with np.errstate(invalid="ignore"):
        err = np.abs(user - reference)
    err = np.where(np.isnan(err), np.inf, err)
    by_error = np.argsort(-err, kind="stable")[: top // 2]
    by_error = by_error[err[by_error] > 0]
    by_ref = np.argsort(-reference, kind="stable")[:top]
    rest = by_ref[~np.isin(by_ref, by_error)][: top - len(by_error)]
    return np.sort(np.concatenate([by_error, rest]))


def user_softmax(z, temperature=1.0):
    """A correct softmax: subtract the max before exp."""
    z = np.asarray(z, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def user_softmax_no_max(z, temperature=1.0):
    """The textbook formula as written: exp(z) / sum exp(z). exp overflows beyond z = 709.78."""
    with np.errstate(all="ignore"):
        e = np.exp(np.asarray(z, dtype=np.float64) / temperature)
        return e / e.sum()


def user_softmax_forgot_temperature(z, temperature=1.0):
    """Softmax that never divides by the temperature it is given."""
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def user_log_softmax(z, temperature=1.0):
    """Returns log p (as log_softmax does) where p was wanted."""
    z = np.asarray(z, dtype=np.float64) / temperature
    return z - z.max() - np.log(np.exp(z - z.max()).sum())


def user_sparsemax(z, temperature=1.0):
    """A correct sparsemax: sort, support size K = max{k : 1 + k z_(k) > sum_(j<=k) z_(j)} with k
    counted from 1, threshold tau = (sum of the K largest - 1) / K."""
    z = np.asarray(z, dtype=np.float64) / temperature
    zs = np.sort(z)[::-1]
    cs = np.cumsum(zs)
    k = np.arange(1, len(z) + 1)
    K = k[1 + k * zs > cs][-1]
    tau = (cs[K - 1] - 1) / K
    return np.maximum(z - tau, 0.0)


def user_sparsemax_off_by_one(z, temperature=1.0):
    """Sparsemax with the support size off by one: k already counts from 1, and the code adds 1
    again, as if it were a 0-based index."""
    z = np.asarray(z, dtype=np.float64) / temperature
    zs = np.sort(z)[::-1]
    cs = np.cumsum(zs)
    k = np.arange(1, len(z) + 1)
    K = k[1 + k * zs > cs][-1] + 1  # bug: K is a count already
    tau = (cs[K - 1] - 1) / K
    return np.maximum(z - tau, 0.0)


def _example_logits(large_row: bool) -> np.ndarray:
    """Three rows of 8 logits (N(0, 1.5^2), a seed whose sparsemax supports have 2 to 4 entries: the
    off-by-one threshold then differs visibly); the last row shifted to ~750 when ``large_row``
    (large logits, e.g. unscaled dot products: exp overflows)."""
    x = np.round(np.random.default_rng(1).normal(0.0, 1.5, size=(3, 8)), 3)
    if large_row:
        x[2] += 750.0
    return x


# name -> (mapping, parameters, user implementation, large last row?)
DEFAULT_EXAMPLE = "softmax_no_max"  # the example shown first: a verdict at once, two rows ok, one overflowing
CHECK_EXAMPLES = {
    "softmax_ok": ("softmax", {}, user_softmax, True),
    "softmax_no_max": ("softmax", {}, user_softmax_no_max, True),
    "softmax_forgot_temperature": ("softmax", {"temperature": 2.0}, user_softmax_forgot_temperature, False),
    "log_softmax": ("softmax", {}, user_log_softmax, False),
    "sparsemax_ok": ("sparsemax", {}, user_sparsemax, False),
    "sparsemax_off_by_one": ("sparsemax", {}, user_sparsemax_off_by_one, False),
}


def check_example(name: str) -> tuple[str, dict, np.ndarray, np.ndarray]:
    """(mapping, parameters, logits rows, the example implementation's output rows)."""
    mapping, params, impl, large = CHECK_EXAMPLES[name]
    x = _example_logits(large)
    return mapping, params, x, np.stack([impl(row, **params) for row in x])


@functools.cache
def example_source(name: str) -> str:
    """The source of example ``name``'s implementation, read once per process (inspect.getsource
    reads and tokenizes the module on every call: 1-5 ms a run of the page with an example)."""
    return inspect.getsource(CHECK_EXAMPLES[name][2])


def format_rows(rows: np.ndarray) -> str:
    """One line per row, values separated by ', ' (repr: float64 round-trips; nan / inf as words)."""
    return "\n".join(", ".join(repr(float(v)) for v in row) for row in np.atleast_2d(rows))
