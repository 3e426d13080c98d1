"""The "Check my numbers" page under AppTest: examples, pasted text and uploaded CSV / .npy files
driven through the widgets, verdicts and likely causes, the chart of one row, the reference
downloads, hostile input and the Chinese interface.

The "user implementations" (here and in test_check.py) are written from the formulas, independently
of probcore and of the page's own examples."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest
from helpers import assert_readable, figures, run_app, trace
from helpers import softmax_np as softmax
from helpers import sparsemax_np as sparsemax

import probcore
from explorer.i18n import EN, ZH
from probcore import check
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest

PAGE = REGISTRY["check"].script
CAUSE = EN["check.col_cause"]
VERDICT = EN["check.col_verdict"]


# ---------------------------------------------------------------- user implementations


def softmax_no_max(x):
    with np.errstate(all="ignore"):
        e = np.exp(np.atleast_2d(x))
        return e / e.sum(-1, keepdims=True)


def rows_text(a) -> str:
    return "\n".join(", ".join(repr(float(v)) for v in r) for r in np.atleast_2d(a))


X = np.random.default_rng(1).normal(0.0, 1.0, size=(5, 9))  # sparsemax supports of 2 to 4 entries
SUPPORT = (sparsemax(X) > 0).sum(-1)
assert ((SUPPORT > 1) & (SUPPORT < 9)).all()


# ---------------------------------------------------------------- helpers


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def table(at: AppTest):
    assert at.dataframe, "no verdict table"
    return at.dataframe[0].value


def paste(at: AppTest, logits: str, probs: str) -> AppTest:
    at.text_area(key="check_logits_text").input(logits)
    at.text_area(key="check_probs_text").input(probs)
    return at.run()


def errors(at: AppTest) -> str:
    return " ".join(e.value for e in at.error).replace("\\", "")


def npy(array, **kwargs) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


def in_chinese(at: AppTest) -> AppTest:
    """The page switched to Chinese by its sidebar control. (?lang=zh with AppTest's switch before a
    first run no longer reaches the page: before its first run AppTest finds a page by its file name,
    and every page's script is now views/<page>/page.py; a browser goes by the URL path.)"""
    at.selectbox(key="lang").set_value("zh").run()
    return at


@pytest.fixture
def media(monkeypatch):
    """The in-memory media stores AppTest creates (one per run): eager download data lives there."""
    import streamlit.testing.v1.app_test as app_test
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    made = []

    class Recording(MemoryMediaFileStorage):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(app_test, "MemoryMediaFileStorage", Recording)
    return made


def download(at: AppTest, media: list, key: str) -> bytes:
    url = at.download_button(key=key).proto.url
    assert url, f"{key}: no eager download data"
    return media[-1].get_file(url.rsplit("/", 1)[-1]).content


# ---------------------------------------------------------------- defaults and examples


def test_default_example_shows_a_verdict_at_once():
    at = run_app(PAGE)
    no_exception(at)
    frame = table(at)
    assert list(frame[VERDICT]) == ["ok", "ok", "mismatch"]
    assert list(frame[CAUSE])[2] == EN["check.cause_max_subtraction"]
    assert any("2 of 3 rows match" in w.value.replace("\\", "") for w in at.warning)
    fig = figures(at)[0]
    assert_readable(fig)
    assert fig["layout"]["title"]["text"] == "Row 2: mismatch"  # the first mismatching row
    x = np.array(
        [[float(v) for v in line.split(",")] for line in at.text_area(key="check_logits_text").value.splitlines()]
    )
    ref = probcore.softmax(torch.from_numpy(x), dim=-1).numpy()
    np.testing.assert_allclose(trace(fig, EN["check.fig_reference"].format(mapping="Softmax"))["y"], ref[2], rtol=1e-12)
    assert len(trace(fig, EN["check.fig_differs"])["x"]) == 8  # every entry overflowed
    assert len(trace(fig, EN["check.fig_nonfinite"])["x"]) == 8
    assert any("def user_softmax_no_max" in c.value for c in at.code)  # the example's code


@pytest.mark.parametrize(
    "example,verdicts,cause",
    [
        ("softmax_ok", ["ok"] * 3, None),
        ("sparsemax_ok", ["ok"] * 3, None),
        ("softmax_no_max", ["ok", "ok", "mismatch"], "max_subtraction"),
        ("softmax_forgot_temperature", ["mismatch"] * 3, "temperature_forgotten"),
        ("log_softmax", ["mismatch"] * 3, "log_probs"),
        ("sparsemax_off_by_one", ["mismatch"] * 3, "threshold"),
    ],
)
def test_examples_from_the_url(example, verdicts, cause):
    at = run_app(PAGE, check_example=example)
    no_exception(at)
    assert not at.error
    frame = table(at)
    assert list(frame[VERDICT]) == verdicts
    if cause:
        assert EN[f"check.cause_{cause}"] in list(frame[CAUSE])
    else:
        assert any(s.value.replace("\\", "").startswith("3 of 3 rows match") for s in at.success)


def test_example_select_fills_and_typing_leaves_it():
    at = run_app(PAGE)
    at.selectbox(key="check_example").set_value("softmax_forgot_temperature").run()
    assert at.number_input(key="check_temperature").value == 2.0
    assert list(table(at)[CAUSE]) == [EN["check.cause_temperature_forgotten"]] * 3
    assert "T = 2 was not applied" in table(at)[EN["check.col_detail"]][0]
    at.text_area(key="check_probs_text").input(rows_text(softmax(X[:3, :8] * 0 + 1))).run()  # typed: own numbers
    assert at.selectbox(key="check_example").value == "none"
    no_exception(at)


# ---------------------------------------------------------------- pasted text through the widgets


def test_correct_implementations_pass_every_row():
    at = run_app(PAGE)
    paste(at, rows_text(X), rows_text(softmax(X)))
    no_exception(at)
    assert set(table(at)[VERDICT]) == {"ok"} and len(table(at)) == 5
    at.selectbox(key="check_mapping").set_value("sparsemax").run()
    paste(at, rows_text(X), rows_text(sparsemax(X)))
    assert set(table(at)[VERDICT]) == {"ok"}
    at.selectbox(key="check_mapping").set_value("softmax").run()
    at.number_input(key="check_temperature").set_value(0.7).run()
    paste(at, rows_text(X), rows_text(softmax(X, 0.7)))
    assert set(table(at)[VERDICT]) == {"ok"}
    assert not at.error


def test_sparsemax_threshold_off_by_one_index():
    at = run_app(PAGE)
    at.selectbox(key="check_mapping").set_value("sparsemax").run()
    paste(at, rows_text(X), rows_text(sparsemax(X, off_by=1)))
    frame = table(at)
    assert set(frame[VERDICT]) == {"mismatch"}
    assert set(frame[CAUSE]) == {EN["check.cause_threshold"]}
    for detail, K in zip(frame[EN["check.col_detail"]], SUPPORT):
        assert f"top {K + 1} entries instead of {K}" in detail


def test_softmax_without_max_subtraction_on_large_logits():
    at = run_app(PAGE)
    big = X + 1000.0
    paste(at, rows_text(big), rows_text(softmax_no_max(big)))
    frame = table(at)
    assert set(frame[VERDICT]) == {"mismatch"} and set(frame[CAUSE]) == {EN["check.cause_max_subtraction"]}
    small = softmax_no_max(X)  # the same code is right on small logits
    paste(at, rows_text(X), rows_text(small))
    assert set(table(at)[VERDICT]) == {"ok"}


def test_temperature_forgotten():
    at = run_app(PAGE)
    at.number_input(key="check_temperature").set_value(2.5).run()
    paste(at, rows_text(X), rows_text(softmax(X)))  # the user's code ignores T
    frame = table(at)
    assert set(frame[CAUSE]) == {EN["check.cause_temperature_forgotten"]}
    assert all("T = 2.5 was not applied" in d for d in frame[EN["check.col_detail"]])


def test_one_differing_entry_is_highlighted_and_the_row_can_be_picked():
    user = softmax(X)
    user[3, 4] += 0.01
    at = run_app(PAGE)
    paste(at, rows_text(X), rows_text(user))
    frame = table(at)
    assert list(frame[VERDICT]) == ["ok", "ok", "ok", "mismatch", "ok"]
    assert frame[EN["check.col_differing"]][3] == "4"
    assert frame[EN["check.col_max_err"]][3] == pytest.approx(0.01, rel=1e-6)
    fig = figures(at)[0]
    assert fig["layout"]["title"]["text"] == "Row 3: mismatch"
    assert trace(fig, EN["check.fig_differs"])["customdata"] == [4]
    assert trace(fig, EN["check.fig_yours"])["marker"]["pattern"]["shape"] == ["", "", "", "", "x", "", "", "", ""]
    at.number_input(key="check_row").set_value(1).run()
    assert figures(at)[0]["layout"]["title"]["text"] == "Row 1: ok"
    assert at.query_params["check_row"] == "1"
    at.number_input(key="check_row").set_value(7).run()  # beyond the 5 rows
    assert "Row 7 does not exist" in " ".join(w.value.replace("\\", "") for w in at.warning)
    no_exception(at)


def test_long_rows_show_the_largest_errors_first():
    x = np.random.default_rng(2).normal(size=(2, 300))
    user = softmax(x)
    user[1, [17, 250]] *= 1.5
    at = run_app(PAGE)
    paste(at, rows_text(x), rows_text(user))
    no_exception(at)
    assert list(table(at)[VERDICT]) == ["ok", "mismatch"]
    assert any("n = 300: showing 40 entries" in c.value for c in at.caption)
    fig = figures(at)[0]
    bars = trace(fig, EN["check.fig_yours"])
    assert len(bars["x"]) == 40
    assert sorted(trace(fig, EN["check.fig_differs"])["customdata"]) == [17, 250]


# ---------------------------------------------------------------- uploads and downloads


def test_uploaded_csv_and_npy(media):
    at = run_app(PAGE)
    at.radio(key="check_source").set_value("upload").run()
    assert at.info  # asks for the two files
    header = ",".join(f"x{i}" for i in range(X.shape[1]))
    csv = (header + "\n" + "\n".join(",".join(repr(float(v)) for v in r) for r in X)).encode()
    at.file_uploader(key="check_logits_file").set_value(("logits.csv", csv, "text/csv"))
    at.file_uploader(key="check_probs_file").set_value(
        ("probs.npy", npy(sparsemax(X, off_by=1)), "application/octet-stream")
    )
    at.selectbox(key="check_mapping").set_value("sparsemax")
    at.run()
    no_exception(at)
    assert not at.error
    frame = table(at)
    assert len(frame) == len(X) and set(frame[CAUSE]) == {EN["check.cause_threshold"]}

    reference = np.stack([v.reference for v in check.check_outputs(X, sparsemax(X, 1), "sparsemax")])
    np.testing.assert_allclose(reference, probcore.sparsemax(torch.from_numpy(X), dim=-1).numpy(), atol=1e-15)
    from_csv = np.loadtxt(io.BytesIO(download(at, media, "check_download_csv")), delimiter=",", ndmin=2)
    np.testing.assert_array_equal(from_csv, reference)  # 17 digits: float64 round-trips
    from_npy = np.load(io.BytesIO(download(at, media, "check_download_npy")), allow_pickle=False)
    assert from_npy.dtype == np.float64
    np.testing.assert_array_equal(from_npy, reference)


class Evil:
    def __reduce__(self):
        return (print, ("pickle ran",))


def _huge_header_npy() -> bytes:
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    header += " " * (118 - len(header)) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 64


@pytest.mark.parametrize(
    "name,data,word",
    [
        ("x.npy", pickle.dumps(Evil()), "not a valid .npy"),
        ("x.npy", npy(np.array([{"a": 1}], dtype=object), allow_pickle=True), "dtype object"),
        ("x.npy", _huge_header_npy(), "at most"),
        ("x.npy", npy(np.zeros((2, 2, 2))), "2-D"),
        ("x.csv", b"1,2,3\n4,5\n", "line 2 has 2 values"),
        ("x.csv", b"1,2\n3,[x](https://example.com)\n", "line 2, column 2"),
        ("x.csv", b"\xff\xfe1,2", "UTF-8"),
        ("x.csv", b"0," * (check.MAX_FILE_BYTES // 2 + 1), "at most 64 MiB"),
    ],
    ids=["pickle", "object", "huge_header", "3d", "ragged", "markdown", "utf16", "too_big"],
)
def test_hostile_uploads_give_an_inline_error(name, data, word, capsys):
    at = run_app(PAGE)
    at.radio(key="check_source").set_value("upload").run()
    at.file_uploader(key="check_logits_file").set_value((name, data, "application/octet-stream")).run()
    no_exception(at)
    assert word in errors(at), errors(at)
    assert all("](" not in e.value for e in at.error)
    assert "pickle ran" not in capsys.readouterr().out


# ---------------------------------------------------------------- hostile input


@pytest.mark.parametrize(
    "logits,probs,word",
    [
        ("1, 2, 3", "0.2, 0.3, 0.4, 0.1", "probs must have the shape of logits"),
        ("1, abc, 3", "0.2, 0.3, 0.5", "'abc' is not a number"),
        ("1, 2\n3", "0.5, 0.5\n1", "line 2 has 1 values"),
        ("__import__('os').system('true')", "1", "not a number"),
        ("[x](https://example.com)", "![i](https://example.com/i.png)", "not a number"),
        ("1, nan", "0.5, 0.5", "logits must be finite or -inf"),
        ("1, 2", "1" * (4_000_001), "at most 4,000,000 characters"),
    ],
    ids=["shape", "token", "ragged", "code", "markdown", "nan_logits", "huge"],
)
def test_bad_text_gives_an_inline_error(logits, probs, word):
    at = run_app(PAGE)
    paste(at, logits, probs)
    no_exception(at)
    assert word in errors(at), errors(at)
    assert all("](" not in e.value for e in at.error)
    assert not at.dataframe


def test_bad_parameters_give_an_inline_error():
    at = run_app(PAGE, check_example="softmax_ok")
    at.number_input(key="check_temperature").set_value(0.0).run()
    assert "temperature" in errors(at) and not at.dataframe
    at.selectbox(key="check_mapping").set_value("sparse_softmax").run()
    at.number_input(key="check_temperature").set_value(1.0)
    at.number_input(key="check_k").set_value(99).run()
    assert "k must be" in errors(at)
    at.selectbox(key="check_mapping").set_value("am_softmax").run()
    at.number_input(key="check_target").set_value(99).run()
    assert "target" in errors(at)
    at.number_input(key="check_target").set_value(1).run()
    no_exception(at)
    assert at.dataframe  # am_softmax with a valid target checks (the softmax outputs do not match)


@pytest.mark.parametrize(
    "params,key",
    [
        ({"check_mapping": "gumbel_softmax"}, "check_mapping"),
        ({"check_mapping": "<b>x</b>"}, "check_mapping"),
        ({"check_atol": "-1"}, "check_atol"),
        ({"check_rtol": "nan"}, "check_rtol"),
        ({"check_atol": "2"}, "check_atol"),
        ({"check_row": "abc"}, "check_row"),
        ({"check_row": "-3"}, "check_row"),
        ({"check_example": "evil"}, "check_example"),
        ({"check_source": "ftp"}, "check_source"),
        ({"check_example": "none", "check_mapping": "sparse_softmax", "check_k": "2.5"}, "check_k"),
    ],
)
def test_hostile_url_params(params, key):
    at = run_app(PAGE, **params)
    no_exception(at)
    text = " ".join(w.value for w in at.warning).replace("\\", "")
    assert key in text, text
    assert "](" not in text and "<b>" not in " ".join(w.value for w in at.warning)


def test_url_round_trip():
    at = run_app(PAGE)
    at.selectbox(key="check_example").set_value("sparsemax_off_by_one").run()
    at.number_input(key="check_row").set_value(2).run()
    params = dict(at.query_params)
    assert params == {"check_example": "sparsemax_off_by_one", "check_mapping": "sparsemax", "check_row": "2"}
    again = run_app(PAGE, **params)
    assert figures(again)[0]["layout"]["title"]["text"] == "Row 2: mismatch"
    assert list(table(again)[CAUSE]) == list(table(at)[CAUSE])


def test_chinese():
    at = in_chinese(run_app(PAGE, check_example="sparsemax_off_by_one"))
    no_exception(at)
    assert at.title[0].value == ZH["page.check"]
    frame = at.dataframe[0].value
    assert set(frame[ZH["check.col_verdict"]]) == {ZH["check.mismatch"]}
    assert set(frame[ZH["check.col_cause"]]) == {ZH["check.cause_threshold"]}
    assert figures(at)[0]["layout"]["title"]["text"] == ZH["check.fig_title"].format(
        row=0, verdict=ZH["check.mismatch"]
    )
