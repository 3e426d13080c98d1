"""probcore.check: verdicts on users' outputs, the diagnosed causes, and the hostile-input parsers.

The "user implementations" (tests/helpers.py: softmax_np, sparsemax_np) are written from the formulas,
independently of probcore."""

import io
import math
import pickle

import numpy as np
import pytest

from helpers import softmax_np, sparsemax_np
from probcore import check
from probcore.check import check_outputs, load_rows, parse_vector, summary


@pytest.fixture
def rows():
    """Logits whose sparsemax support lies strictly inside (1, n) for every row."""
    x = np.random.default_rng(0).normal(scale=1.5, size=(6, 12))
    support = (sparsemax_np(x) > 0).sum(-1)
    assert ((support > 1) & (support < 12)).all()
    return x


def test_correct_implementations_pass(rows):
    for mapping, impl in (("softmax", softmax_np), ("sparsemax", sparsemax_np)):
        verdicts = check_outputs(rows, impl(rows), mapping)
        assert [v.row for v in verdicts] == list(range(len(rows)))
        assert all(v.ok and v.cause is None and v.differing == () for v in verdicts)
        assert max(v.max_abs_error for v in verdicts) < 1e-12
        s = summary(verdicts)
        assert (s["passed"], s["failed"], s["causes"]) == (len(rows), 0, {})


def test_one_vector_and_float32_output_pass(rows):
    verdicts = check_outputs(rows[0], softmax_np(rows[0]).astype(np.float32), "softmax")
    assert len(verdicts) == 1 and verdicts[0].ok
    np.testing.assert_allclose(verdicts[0].reference, softmax_np(rows[0]), atol=1e-15)


@pytest.mark.parametrize("off_by", [1, -1])
def test_sparsemax_threshold_off_by_one_is_flagged(rows, off_by):
    verdicts = check_outputs(rows, sparsemax_np(rows, off_by), "sparsemax")
    support = (sparsemax_np(rows) > 0).sum(-1)
    for v, K in zip(verdicts, support):
        assert not v.ok
        assert v.cause == "threshold", v.likely_cause
        assert v.fitted == {"support": K + off_by, "expected_support": K}
        assert "off by one" in v.likely_cause


def test_entmax15_threshold_off_by_one_is_flagged(rows):
    def tau(z, K):  # tau from the K largest: mean - sqrt((1 - K var) / K)
        top = np.sort(z)[::-1][:K]
        return top.mean() - math.sqrt(max(0.0, (1 - K * top.var()) / K))

    z = rows / 2
    K = [sum(tau(r, k) <= np.sort(r)[::-1][k - 1] for k in range(1, len(r) + 1)) for r in z]
    wrong = np.array([np.maximum(r - tau(r, k + 1), 0) ** 2 for r, k in zip(z, K)])
    verdicts = check_outputs(rows, wrong, "entmax15")
    assert [int((v.reference > 0).sum()) for v in verdicts] == K
    assert [v.cause for v in verdicts] == ["threshold"] * len(rows)
    assert [v.fitted["support"] for v in verdicts] == [k + 1 for k in K]


@pytest.mark.parametrize("scale,dtype", [(1000.0, np.float64), (100.0, np.float32)])
def test_softmax_without_max_subtraction_is_flagged(scale, dtype):
    x = scale + np.random.default_rng(1).normal(size=(4, 8))
    with np.errstate(all="ignore"):
        e = np.exp(x.astype(dtype))
        naive = (e / e.sum(-1, keepdims=True)).astype(np.float64)
    assert not np.isfinite(naive).all()
    verdicts = check_outputs(x, naive, "softmax")
    assert all(not v.ok and v.cause == "max_subtraction" for v in verdicts)
    assert all(v.max_abs_error == math.inf for v in verdicts)
    assert summary(verdicts)["causes"] == {"max_subtraction": 4}
    # the diagnosis names the precision that overflows at these logits, and its exp limit
    limit = math.log(np.finfo(dtype).max)
    assert all(v.fitted["dtype"] == np.dtype(dtype).name for v in verdicts)
    assert all(f"|x| = {limit:.1f}" in v.likely_cause for v in verdicts)


@pytest.mark.parametrize("mapping,true_t", [("softmax", 2.5), ("sparsemax", 1.6), ("entmax15", 0.8)])
def test_wrong_temperature_is_fitted(rows, mapping, true_t):
    from probcore.registry import get_mapping

    import torch

    user = get_mapping(mapping).forward(torch.from_numpy(rows), dim=-1, temperature=true_t).numpy()
    verdicts = check_outputs(rows, user, mapping, temperature=1.0)
    for v in verdicts:
        assert v.cause == "temperature", v.likely_cause
        assert v.fitted["temperature"] == pytest.approx(true_t, rel=1e-4)
        assert v.fitted["unique"]


def test_wrong_beta_is_fitted(rows):
    verdicts = check_outputs(rows, softmax_np(rows, t=0.5), "softmax", beta=3.0)
    assert all(v.cause == "temperature" and v.fitted["beta"] == pytest.approx(2.0, rel=1e-4) for v in verdicts)


def test_other_causes(rows):
    p = softmax_np(rows)
    cases = {
        "passthrough": rows,
        "log_probs": np.log(p),
        "renormalisation": np.exp(rows - rows.max(-1, keepdims=True)),
        "wrong_axis": softmax_np(rows.T).T,
        "precision": p.astype(np.float16).astype(np.float64),
    }
    for cause, user in cases.items():
        verdicts = check_outputs(rows, user, "softmax")
        assert [v.cause for v in verdicts] == [cause] * len(rows), (cause, verdicts[0].likely_cause)
    fp16 = check_outputs(rows, cases["precision"], "softmax")[0]
    assert fp16.fitted == {"dtype": "float16"} and 0 < fp16.max_abs_error < 1e-3


@pytest.mark.parametrize("delta", [1, -1])
def test_top_k_off_by_one(rows, delta):
    k = 4
    order = np.argsort(-rows, axis=-1)
    user = np.zeros_like(rows)
    for r, idx in enumerate(order):
        keep = idx[: k + delta]
        user[r, keep] = softmax_np(rows[r, keep])
    verdicts = check_outputs(rows, user, "sparse_softmax", k=k)
    assert all(v.cause == "top_k" and v.fitted["support"] == k + delta for v in verdicts)


def test_unexplained_row_has_no_cause(rows):
    user = softmax_np(rows)[:, ::-1].copy()  # a permutation: none of the hypotheses
    verdicts = check_outputs(rows, user, "softmax")
    assert all(not v.ok and v.cause is None and v.likely_cause is None for v in verdicts)
    assert summary(verdicts)["causes"] == {"unexplained": len(rows)}


def test_differing_indices_and_mixed_rows(rows):
    user = softmax_np(rows)
    user[2, 5] += 0.01
    verdicts = check_outputs(rows, user, "softmax")
    assert [v.ok for v in verdicts] == [True, True, False, True, True, True]
    assert verdicts[2].differing == (5,)
    assert verdicts[2].max_abs_error == pytest.approx(0.01)
    assert summary(verdicts)["text"].startswith("5 of 6 rows match")


@pytest.mark.parametrize(
    "kwargs,word",
    [
        (dict(logits=np.zeros(3), probs=np.zeros(4), mapping="softmax"), "probs"),
        (dict(logits=np.array([0.0, np.nan]), probs=np.zeros(2), mapping="softmax"), "logits"),
        (dict(logits=np.zeros(3), probs=np.zeros(3), mapping="softmax", atol=-1), "atol"),
        (dict(logits=np.zeros(3), probs=np.zeros(3), mapping="gumbel_softmax"), "mapping"),
        (dict(logits=np.zeros(3), probs=np.zeros(3), mapping="softmax", temperature=0.0), "temperature"),
        (dict(logits=np.zeros(3), probs=np.zeros(3), mapping="no_such_map"), "no_such_map"),
        (dict(logits=np.zeros((2, 2, 2)), probs=np.zeros((2, 2, 2)), mapping="softmax"), "logits"),
    ],
)
def test_bad_arguments(kwargs, word):
    with pytest.raises(ValueError, match=word):
        check_outputs(**kwargs)


# ---------------------------------------------------------------- parsing


def test_parse_vector_separators():
    np.testing.assert_array_equal(parse_vector("1, 2 3\n4;5\t-6e-1"), [1, 2, 3, 4, 5, -0.6])
    np.testing.assert_array_equal(parse_vector("[0.25, .5, +1.]"), [0.25, 0.5, 1.0])
    out = parse_vector("nan, inf, -inf, 1e999", allow_nonfinite=True)
    assert np.isnan(out[0]) and out[1] == out[3] == math.inf and out[2] == -math.inf


@pytest.mark.parametrize(
    "text,word",
    [
        ("1, abc, 3", "value 2 'abc'"),
        ("1e999", "overflows"),
        ("nan", "not a finite number"),
        ("inf 1", "not a finite number"),
        ("", "empty"),
        ("  \n ,", "empty"),
        ("__import__('os').system('true')", "not a number"),
        ("1_000", "not a number"),
        ("0x10", "not a number"),
    ],
)
def test_parse_vector_rejects(text, word):
    with pytest.raises(ValueError, match=word.replace("(", r"\(")):
        parse_vector(text)


def test_parse_vector_size_limit():
    with pytest.raises(ValueError, match="at most"):
        parse_vector(" ".join(["1"] * (check.MAX_COLS + 1)))


def _npy(array, **kwargs):
    buf = io.BytesIO()
    np.save(buf, array, **kwargs)
    return buf.getvalue()


def test_csv_round_trip_with_and_without_header(rows):
    text = "\n".join(",".join(repr(float(v)) for v in r) for r in rows)
    np.testing.assert_array_equal(load_rows(text.encode(), "x.csv"), rows)
    header = ",".join(f"c{i}" for i in range(rows.shape[1]))
    np.testing.assert_array_equal(load_rows(("\ufeff" + header + "\n" + text + "\n\n").encode(), "X.CSV"), rows)


def test_npy_round_trip(rows):
    np.testing.assert_array_equal(load_rows(_npy(rows), "x.npy"), rows)
    np.testing.assert_array_equal(load_rows(_npy(rows[0].astype(np.float32)), "x.npy"), rows[:1].astype(np.float32))
    np.testing.assert_array_equal(load_rows(_npy(np.arange(6).reshape(2, 3)), "x.npy"), [[0, 1, 2], [3, 4, 5]])


def _huge_header_npy():
    """A valid .npy header claiming 10^12 values, followed by a few bytes."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    header += " " * (118 - len(header)) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 64


class Evil:
    def __reduce__(self):
        return (print, ("pickle ran",))


@pytest.mark.parametrize(
    "data,name,word",
    [
        (b"1,2,3\n4,5\n", "x.csv", "line 2 has 2 values, expected 3"),
        (b"1,2\n3,abc\n", "x.csv", "line 2, column 2"),
        (b"1,2\n3,nan\n", "x.csv", "not a finite number"),
        (b"", "x.csv", "no rows"),
        (b"a,b\n", "x.csv", "no rows"),
        (b"\xff\xfe1,2", "x.csv", "UTF-8"),
        (b"1,2\n", "x.txt", "filename"),
        (pickle.dumps(Evil()), "x.npy", "not a valid .npy"),
        (_npy(np.array([{"a": 1}], dtype=object), allow_pickle=True), "x.npy", "dtype object"),
        (_npy(np.array(["a", "b"])), "x.npy", "dtype"),
        (_npy(np.array([1 + 2j])), "x.npy", "dtype"),
        (_npy(np.zeros((2, 2, 2))), "x.npy", "2-D"),
        (_npy(np.zeros((0, 3))), "x.npy", "non-empty"),
        (_npy(np.array([1.0, np.inf])), "x.npy", "not a finite number"),
        (_npy(np.zeros((check.MAX_ROWS + 1, 1))), "x.npy", "at most"),
        (_huge_header_npy(), "x.npy", "at most"),
        (b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'}", "x.npy", "not a valid .npy"),
    ],
)
def test_load_rows_rejects(data, name, word, capsys):
    with pytest.raises(ValueError, match=word.replace("(", r"\(")):
        load_rows(data, name)
    assert "pickle ran" not in capsys.readouterr().out


def test_load_rows_limits():
    too_many = ("1\n" * (check.MAX_ROWS + 1)).encode()
    with pytest.raises(ValueError, match="at most 10,000 rows"):
        load_rows(too_many, "x.csv")
    with pytest.raises(ValueError, match="at most"):
        load_rows(b"0" * (check.MAX_FILE_BYTES + 1), "x.csv")


def test_entmax_other_alpha_support_one_too_few(rows):
    """alpha = 1.3 has no closed form: the bug is the mapping restricted to the top K - 1 entries."""
    import torch

    from probcore import entmax

    x = torch.from_numpy(rows)
    K = (entmax(x, alpha=1.3) > 0).sum(-1)
    kth = x.sort(-1, descending=True).values.gather(1, (K - 2)[:, None])
    user = entmax(x.masked_fill(x < kth, -math.inf), alpha=1.3).numpy()
    verdicts = check_outputs(rows, user, "entmax", alpha=1.3)
    failing = [(v, k) for v, k in zip(verdicts, K.tolist()) if not v.ok]  # a tiny dropped entry may pass
    assert len(failing) >= 4
    assert all((v.cause, v.fitted["support"]) == ("threshold", k - 1) for v, k in failing)


def test_masked_rows():
    x = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]])
    ok = check_outputs(
        x,
        np.array([[softmax_np(np.array([0.0, 1.0]))[0], 0, softmax_np(np.array([0.0, 1.0]))[1]], [0.0, 0.0, 0.0]]),
        "softmax",
    )
    assert [v.ok for v in ok] == [True, True]
    bad = check_outputs(x[1], np.full(3, np.nan), "softmax")[0]
    assert bad.cause == "nonfinite" and "fully masked" in bad.likely_cause
