"""Hostile input, issue 25 findings 6, 7, 12: no traceback to a user, uploads read with caps.

- A lesson nested 3,000 levels deep: tomllib's RecursionError is a LessonError (before: the stack).
- A .npy header with shape (True, 3): a ValueError naming the shape (before: TypeError).
- A CSV field over 131,072 characters: a ValueError naming the line (before: _csv.Error).
- A CSV line of 16 MiB of commas: refused before csv splits it; memory of the read bounded
  (before: 23 times the upload, 1.4 GB for 60 MiB).
- The served configuration shows no error details (client.showErrorDetails = "none").
- The jump list's crafted value "abc": no move, no traceback (before: ValueError)."""

from __future__ import annotations

import io
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer.classroom import lessons
from probcore.check import MAX_COLS, load_rows

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def test_a_deeply_nested_lesson_is_a_lesson_error():
    text = 'title_en = "T"\ntitle_zh = "T"\nx = ' + "[" * 3000 + "]" * 3000 + "\n"
    with pytest.raises(lessons.LessonError):
        lessons.parse(text, "nested")


def test_an_npy_header_with_a_bool_shape_is_refused_by_name():
    buf = io.BytesIO()
    np.save(buf, np.zeros((2, 3)))
    crafted = buf.getvalue().replace(b"(2, 3), }", b"(True, 3), }")
    assert crafted != buf.getvalue()
    with pytest.raises(ValueError, match=r"shape \(True, 3\)"):
        load_rows(crafted, "crafted.npy")


def test_a_csv_field_over_csvs_limit_is_refused_by_line():
    data = b"1,2\n3," + b"4" * 200_000 + b"\n"
    with pytest.raises(ValueError, match="line 2"):
        load_rows(data, "long.csv")


def test_a_line_of_commas_is_refused_before_it_is_split():
    """Peak memory of reading a 16 MiB line of commas: under 3 times the upload (before: about 23 times)."""
    data = b"," * (16 * 2**20)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=f"at most {MAX_COLS:,} values per row"):
            load_rows(data, "commas.csv")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(data), f"{peak / 2**20:.0f} MiB for a {len(data) / 2**20:.0f} MiB upload"


def test_the_served_configuration_shows_no_error_details():
    code = (
        "from streamlit import config; config.get_config_options(force_reparse=True); "
        "print(config.get_option('client.showErrorDetails'))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    assert out.strip() == "none"


def crafted_jump():
    """The jump list's callback with the value a crafted websocket message sets ("abc": the list
    offers only "K. Page")."""
    import streamlit as st

    from explorer.classroom import lesson_bar

    st.session_state["lesson_jump_x"] = "abc"
    st.session_state["_lesson_step"] = 0
    lesson_bar._jump("lesson_jump_x", 0)
    st.write("no move" if st.session_state["_lesson_step"] == 0 else "moved")


def test_a_crafted_jump_list_value_is_no_move():
    at = AppTest.from_function(crafted_jump, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [m.value for m in at.markdown] == ["no move"]
