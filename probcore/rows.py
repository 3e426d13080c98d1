"""Rows of numbers from a user: pasted text, CSV and ``.npy``, read without ``eval`` or pickle.

:func:`parse_vector` reads one vector from text, :func:`load_rows` a (rows, n) array from an uploaded
file; both raise a coded :class:`~probcore.errors.ProbcoreError` (a ``ValueError``) naming the offending
token, line or column. Limits: at most :data:`MAX_ROWS` rows, :data:`MAX_COLS` values a row,
:data:`MAX_VALUES` values in all and :data:`MAX_FILE_BYTES` bytes a file. ``probcore.check`` re-exports
all of it.
"""

from __future__ import annotations

import csv
import io
import math
import re
from typing import Iterator

import numpy as np

from probcore.errors import ProbcoreError

__all__ = ["MAX_COLS", "MAX_FILE_BYTES", "MAX_ROWS", "MAX_VALUES", "check_size", "load_rows", "parse_vector"]

MAX_ROWS = 10_000
MAX_COLS = 100_000
MAX_VALUES = 2_000_000  # rows * n
MAX_FILE_BYTES = 64 * 2**20

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_NONFINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_SEPARATORS = re.compile(r"[,;\s]+")


def _parse_token(token: str, allow_nonfinite: bool) -> float:
    """One decimal number; ValueError with the reason (no location: callers add it)."""
    if _NONFINITE.fullmatch(token):
        if not allow_nonfinite:
            raise ProbcoreError("not_finite", token=repr(token))
        return float(token)
    if not _NUMBER.fullmatch(token):
        raise ProbcoreError("not_a_number", token=repr(token[:40]))
    value = float(token)
    if math.isinf(value) and not allow_nonfinite:
        raise ProbcoreError("overflows", token=repr(token[:40]))
    return value


_NUMBERS = re.compile(rf"{_NUMBER.pattern}(?:,{_NUMBER.pattern})*")  # cells joined by commas


def _finite_row(cells: list[str]) -> list[float] | None:
    """The values of a CSV line's cells when each is a decimal number (_NUMBER) that float() reads
    as finite: what :func:`_parse_token` gives them, found with one regular-expression match for
    the line instead of two a cell (cell by cell, a 50 x 20 upload took ~1.9x as long). None otherwise (nan,
    inf, an overflow, a bad cell, a quoted cell holding a comma): the caller reads cell by cell."""
    if not _NUMBERS.fullmatch(",".join(cells)):
        return None
    try:
        values = list(map(float, cells))
    except ValueError:  # a cell that held a comma itself (quoted): not a number
        return None
    return values if all(map(math.isfinite, values)) else None


def check_size(rows: int, n: int, name: str) -> None:
    if n > MAX_COLS:
        raise ProbcoreError("max_cols", name=name, limit=f"{MAX_COLS:,}", got=f"{n:,}")
    if rows > MAX_ROWS:
        raise ProbcoreError("max_rows", name=name, limit=f"{MAX_ROWS:,}", got=f"{rows:,}")
    if rows * n > MAX_VALUES:
        raise ProbcoreError("max_values", name=name, limit=f"{MAX_VALUES:,}", got=f"{rows * n:,}")


def parse_vector(text: str, *, allow_nonfinite: bool = False, name: str = "values") -> np.ndarray:
    """Float64 vector from text: numbers separated by commas, semicolons, spaces or new lines,
    optionally inside one pair of [] or (). ``nan`` / ``inf`` (and overflow such as 1e999) only
    with ``allow_nonfinite`` (e.g. for an output that overflowed). ValueError names the token."""
    if not isinstance(text, str):
        raise ProbcoreError("not_text", name=name, type=type(text).__name__)
    body = text.strip()
    if len(body) >= 2 and (body[0], body[-1]) in (("[", "]"), ("(", ")")):
        body = body[1:-1]
    tokens = [t for t in _SEPARATORS.split(body) if t]
    if not tokens:
        raise ProbcoreError("empty", name=name)
    check_size(1, len(tokens), name)
    values = np.empty(len(tokens))
    for i, token in enumerate(tokens):
        try:
            values[i] = _parse_token(token, allow_nonfinite)
        except ProbcoreError as err:
            raise ProbcoreError("value_at", name=name, i=i + 1, error=err) from None
    return values


def _load_csv(data: bytes, allow_nonfinite: bool, name: str) -> np.ndarray:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProbcoreError("not_utf8", name=name) from None
    rows: list[list[float]] = []
    width = None
    reader = csv.reader(_capped_lines(text, name))
    while True:
        try:
            cells = next(reader, None)
        except csv.Error as err:  # a field over csv.field_size_limit() (131,072 characters), a stray NUL
            raise ValueError(f"{name}: line {reader.line_num}: {err}") from None
        if cells is None:
            break
        line_no = reader.line_num
        cells = [c.strip() for c in cells]
        if not any(cells):
            continue  # blank line
        if width is None:
            width = len(cells)
            check_size(1, width, name)
            if not all(_NUMBER.fullmatch(c) or _NONFINITE.fullmatch(c) for c in cells):
                continue  # a header line: names, not numbers
        elif len(cells) != width:
            raise ProbcoreError("line_width", name=name, line=line_no, got=len(cells), width=width)
        check_size(len(rows) + 1, width, name)
        row = _finite_row(cells)
        if row is None:  # a non-finite or bad cell: read one by one, the first bad one named
            row = []
            for col, cell in enumerate(cells, start=1):
                try:
                    row.append(_parse_token(cell, allow_nonfinite))
                except ProbcoreError as err:
                    raise ProbcoreError("line_column", name=name, line=line_no, col=col, error=err) from None
        rows.append(row)
    if not rows:
        raise ProbcoreError("no_rows", name=name)
    return np.array(rows, dtype=np.float64)


def _capped_lines(text: str, name: str) -> Iterator[str]:
    """The lines of ``text``, each refused before csv splits it when it holds MAX_COLS or more
    commas, counted in place (memory of a read: about twice the upload, not 23 times)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start) + 1 or len(text)
        commas = text.count(",", start, end)
        if commas >= MAX_COLS:
            raise ValueError(f"{name} must have at most {MAX_COLS:,} values per row, got {commas + 1:,}")
        yield text[start:end]
        start = end


def _load_npy(data: bytes, allow_nonfinite: bool, name: str) -> np.ndarray:
    fmt = np.lib.format
    buf = io.BytesIO(data)
    try:  # the header first: shape and dtype are checked before any data is allocated
        version = fmt.read_magic(buf)
        read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, _, dtype = read_header(buf)
    except (ValueError, OSError, EOFError, SyntaxError) as err:
        raise ProbcoreError("npy_pickle", name=name, detail=str(err)) from None
    if dtype.hasobject or dtype.kind not in "fiu":
        raise ProbcoreError("npy_dtype", name=name, dtype=str(dtype))
    if len(shape) not in (1, 2) or 0 in shape or any(type(size) is not int for size in shape):
        raise ProbcoreError("npy_shape", name=name, shape=str(shape))
    rows, n = (1, shape[0]) if len(shape) == 1 else shape
    check_size(rows, n, name)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:
        raise ProbcoreError("npy_invalid", name=name, detail=str(err)) from None
    array = np.asarray(array, dtype=np.float64).reshape(rows, n)
    if not allow_nonfinite and not np.isfinite(array).all():
        r, c = np.argwhere(~np.isfinite(array))[0]
        raise ProbcoreError("npy_nonfinite", name=name, row=int(r) + 1, col=int(c) + 1, value=str(array[r, c]))
    return array


def load_rows(
    file_bytes: bytes, filename: str, *, allow_nonfinite: bool = False, name: str | None = None
) -> np.ndarray:
    """(rows, n) float64 array from an uploaded ``.csv`` (comma separated, optional header line)
    or ``.npy`` (numeric dtype, loaded with ``allow_pickle=False``; a 1-D array is one row).

    Limits: <= MAX_ROWS rows, <= MAX_COLS values a row, <= MAX_VALUES in all, <= MAX_FILE_BYTES.
    ValueError names the file and the offending line / column."""
    name = name or repr(filename)
    if not isinstance(file_bytes, (bytes, bytearray)):
        raise ProbcoreError("not_bytes", type=type(file_bytes).__name__)
    if len(file_bytes) > MAX_FILE_BYTES:
        raise ProbcoreError("file_size", name=name, limit=MAX_FILE_BYTES // 2**20, got=f"{len(file_bytes) / 2**20:.1f}")
    suffix = str(filename).lower().rsplit(".", 1)[-1]
    if suffix == "csv":
        return _load_csv(bytes(file_bytes), allow_nonfinite, name)
    if suffix == "npy":
        return _load_npy(bytes(file_bytes), allow_nonfinite, name)
    raise ProbcoreError("file_type", value=repr(filename))
