"""probcore/rows.py reads a CSV line of plain finite numbers in one match (_finite_row); every
file reads exactly as the cell-by-cell path reads it: the same float64 values bit for bit, the same
error naming the same line and column."""

from __future__ import annotations

import io

import numpy as np
import pytest

from probcore import rows
from probcore.errors import ProbcoreError


def read(data: bytes, fast: bool, monkeypatch, allow_nonfinite: bool = False):
    """load_rows of a .csv with the one-match line reader (fast) or without it: (array or None, error or None)."""
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(rows, "_finite_row", lambda cells: None)
        try:
            return rows.load_rows(data, "x.csv", allow_nonfinite=allow_nonfinite), None
        except ValueError as err:
            return None, (type(err), str(err))


def same(data: bytes, monkeypatch, allow_nonfinite: bool = False) -> np.ndarray | None:
    fast, fast_err = read(data, True, monkeypatch, allow_nonfinite)
    slow, slow_err = read(data, False, monkeypatch, allow_nonfinite)
    assert fast_err == slow_err
    if slow is not None:
        assert fast.dtype == slow.dtype == np.float64 and fast.tobytes() == slow.tobytes()
    return slow


@pytest.mark.parametrize("fmt", ["%.9g", "%.17g", "%+.3e", "%.0f", "%r"])
def test_plain_numbers_read_bit_for_bit_as_cell_by_cell(monkeypatch, fmt):
    x = np.random.default_rng(7).normal(0, 50, (30, 12)) * np.logspace(-300, 300, 12)
    buf = io.StringIO()
    if fmt == "%r":
        buf.write("\n".join(",".join(repr(float(v)) for v in row) for row in x))
    else:
        np.savetxt(buf, x, delimiter=",", fmt=fmt)
    read_back = same(buf.getvalue().encode(), monkeypatch)
    assert read_back.shape == x.shape
    if fmt in ("%.17g", "%r"):
        assert read_back.tobytes() == x.tobytes()  # float64 round-trips


@pytest.mark.parametrize(
    "text",
    [
        "a,b,c\n1,2,3\n.5,1.,+2e-3\n",  # a header line, numbers without leading or trailing digits
        " 1 , 2 ,3\n\n4,5,6\n",  # spaces around cells, a blank line
        "1,nan,3\n",  # non-finite: cell by cell
        "1,2,inf\n",
        "1,1e999,3\n",  # overflows
        "1,2,abc\n",  # a bad cell named by its column
        '1,"2,5",3\n',  # a quoted cell holding a comma
        "1,2_000,3\n",  # float() reads it, a decimal number it is not
        "1,0x10,3\n",
        "1,2\n3,4,5\n",  # a line of another width
        "1,,3\n",  # an empty cell
    ],
)
@pytest.mark.parametrize("allow_nonfinite", [False, True])
def test_any_other_line_gives_what_the_cell_by_cell_path_gives(monkeypatch, text, allow_nonfinite):
    same(text.encode(), monkeypatch, allow_nonfinite)


def test_the_fast_path_takes_only_finite_decimal_cells():
    assert rows._finite_row(["1", "-2.5", ".5", "1.", "+3e-2"]) == [1.0, -2.5, 0.5, 1.0, 0.03]
    for cells in (["1", "nan"], ["1", "inf"], ["1e999"], ["1,5"], ["1_0"], ["x"], [""]):
        assert rows._finite_row(cells) is None, cells
    with pytest.raises(ProbcoreError):  # and the cell-by-cell path still names the cell
        rows.load_rows(b"1,2,abc\n", "x.csv")
