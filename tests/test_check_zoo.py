"""A zoo of buggy implementations, one per common bug: probcore.check names each bug's cause,
and no other cause, on every row the bug makes fail (rows it leaves right may pass)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probcore import check

RNG = np.random.default_rng(2026_11_26)
X = RNG.normal(0.0, 2.0, (6, 8))  # six rows of eight logits


def _torch(fn, x, dtype=torch.float64):
    with torch.no_grad():
        return fn(torch.tensor(x, dtype=dtype)).double().numpy()


def _sparsemax_tau(z: np.ndarray, shift: int = 0) -> np.ndarray:
    """Sparsemax's threshold per row, from a support of K + shift entries."""
    s = -np.sort(-z, axis=-1)
    k = np.arange(1, z.shape[-1] + 1)
    K = (1 + k * s > np.cumsum(s, -1)).sum(-1) + shift
    return (np.take_along_axis(np.cumsum(s, -1), K[:, None] - 1, -1)[:, 0] - 1) / K


def no_clipping(x):
    """sparsemax as z - tau: the max(0, .) forgotten."""
    return x - _sparsemax_tau(x)[:, None]


def off_by_one_threshold(x):
    """sparsemax with the support counted one too large (> where >= ... or k from 0)."""
    return np.maximum(x - _sparsemax_tau(x, shift=1)[:, None], 0)


def softmax_as_sparsemax(x):
    return _torch(lambda t: torch.softmax(t, -1), x)


def log_softmax(x):
    return _torch(lambda t: torch.log_softmax(t, -1), x)


def temperature_forgotten(x):
    """softmax meant at T = 2, computed at T = 1."""
    return _torch(lambda t: torch.softmax(t, -1), x)


def temperature_twice(x):
    """softmax at T = 2, x divided by T twice."""
    return _torch(lambda t: torch.softmax(t / 2 / 2, -1), x)


def no_max_subtraction_float32(x):
    """exp(x) / sum exp(x) in float32, on logits up to 100 (exp overflows past 88.7)."""
    e = np.exp(x.astype(np.float32))
    with np.errstate(all="ignore"):
        return (e / e.sum(-1, keepdims=True)).astype(np.float64)


def no_renormalisation(x):
    """exp(x - max x), the division by the sum forgotten."""
    return np.exp(x - x.max(-1, keepdims=True))


def transposed(x):
    """softmax over the rows' axis (dim=0)."""
    return _torch(lambda t: torch.softmax(t, 0), x)


def top_k_other_tie(x):
    """top-2 softmax on rows with a tie at the 2nd place, keeping the last of the tied entries."""
    out = np.zeros_like(x)
    for r, row in enumerate(x):
        order = sorted(range(len(row)), key=lambda i: (-row[i], -i))[:2]
        e = np.exp(row[order] - row[order].max())
        out[r, order] = e / e.sum()
    return out


def float16_without_float32_inside(x):
    """softmax(x / T) with x / T formed in float16: past 65504 it overflows to inf (T = 0.01)."""
    return _torch(lambda t: torch.softmax(t / 0.01, -1).half().float(), x, dtype=torch.float16)


def sparsemax_in_float16(x):
    """sparsemax by sorting and cumulative sums in float16: the sums of logits near 1e4 pass 65504."""
    with np.errstate(all="ignore"):
        z = x.astype(np.float16)
        s = -np.sort(-z, axis=-1)
        k = np.arange(1, z.shape[-1] + 1, dtype=np.float16)
        cs = np.cumsum(s, -1, dtype=np.float16)
        K = np.maximum((1 + k * s > cs).sum(-1), 1)
        tau = (np.take_along_axis(cs, K[:, None] - 1, -1) - 1) / K[:, None].astype(np.float16)
        return np.maximum(z - tau, 0).astype(np.float64)


TIES = np.array([[3.0, 1.0, 1.0, -2.0, 0.5], [2.0, 2.0, 2.0, 0.0, -1.0], [0.3, 1.7, 0.9, 0.9, 1.7]])
ZOO = [  # (buggy implementation, its logits, mapping, parameters, the cause named)
    (no_clipping, X, "sparsemax", {}, "clipping"),
    (off_by_one_threshold, X, "sparsemax", {}, "threshold"),
    (softmax_as_sparsemax, X, "sparsemax", {}, "wrong_mapping"),
    (log_softmax, X, "softmax", {}, "log_probs"),
    (temperature_forgotten, X, "softmax", {"temperature": 2.0}, "temperature_forgotten"),
    (temperature_twice, X, "softmax", {"temperature": 2.0}, "temperature_twice"),
    (no_max_subtraction_float32, X * 30, "softmax", {"dtype": "float32"}, "max_subtraction"),
    (no_renormalisation, X, "softmax", {}, "renormalisation"),
    (transposed, X, "softmax", {}, "wrong_axis"),
    (top_k_other_tie, TIES, "sparse_softmax", {"k": 2}, "ties"),
    (float16_without_float32_inside, X * 300, "softmax", {"temperature": 0.01, "dtype": "float16"}, "float16_overflow"),
    (sparsemax_in_float16, 1e4 + X, "sparsemax", {"dtype": "float16"}, "float16_overflow"),
]


@pytest.mark.parametrize("buggy, x, mapping, params, cause", ZOO, ids=[z[0].__name__ for z in ZOO])
def test_each_bug_is_named_with_its_cause_and_nothing_else(buggy, x, mapping, params, cause):
    verdicts = check.check_outputs(x, buggy(x), mapping, **params)
    counts = check.summary(verdicts)
    assert counts["failed"] >= 1, "the bug must show"
    assert counts["causes"] == {cause: counts["failed"]}, [v.likely_cause for v in verdicts if not v.ok]
    assert cause in check.CAUSES


NAMED = {  # what the sentence must say for the bug to be fixable
    "no_clipping": "without the clipping max(0, .)",
    "softmax_as_sparsemax": "your row matches softmax, not sparsemax",
    "temperature_forgotten": "T = 2 was not applied",
    "temperature_twice": "T' = T^2 = 4",
    "no_max_subtraction_float32": "in float32 without subtracting max x: exp overflows / underflows beyond |x| = 88.7",
    "off_by_one_threshold": "off by one (one too many",
    "float16_without_float32_inside": "overflows float16",
    "top_k_other_tie": "ties broken differently",
}


@pytest.mark.parametrize("name, phrase", NAMED.items())
def test_the_sentence_names_the_bug(name, phrase):
    buggy, x, mapping, params, _ = next(z for z in ZOO if z[0].__name__ == name)
    causes = {v.likely_cause for v in check.check_outputs(x, buggy(x), mapping, **params) if not v.ok}
    assert causes and all(phrase in c for c in causes), causes


def test_a_float32_overflow_is_not_blamed_on_float64_when_the_dtype_is_known():
    x = X * 1000  # past float64's exp limit too: without the dtype, the widest type that reproduces a row is named
    p = no_max_subtraction_float32(x)
    unknown = {v.fitted.get("dtype") for v in check.check_outputs(x, p, "softmax") if v.cause == "max_subtraction"}
    known = {v.fitted.get("dtype") for v in check.check_outputs(x, p, "softmax", dtype=torch.float32) if not v.ok}
    assert "float64" in unknown and known == {"float32"}


def test_each_new_cause_has_a_sentence_in_the_catalogue():
    assert {z[-1] for z in ZOO} <= set(check.CAUSES)


def test_a_correct_implementation_gets_no_cause():
    p = _torch(lambda t: torch.softmax(t / 2, -1), X)
    assert check.summary(check.check_outputs(X, p, "softmax", temperature=2.0))["failed"] == 0


@pytest.mark.parametrize("buggy, x, mapping, params, cause", ZOO, ids=[z[0].__name__ for z in ZOO])
def test_each_diagnosis_reads_in_chinese(buggy, x, mapping, params, cause):
    """The Check page shows every cause's sentence in Chinese too: a coded Sentence and its template
    (explorer/i18n/messages.py), every field filled."""
    import re

    import streamlit as st

    from explorer.i18n import localize

    st.session_state["lang"] = "zh"
    try:
        for v in check.check_outputs(x, buggy(x), mapping, **params):
            if v.likely_cause:
                assert isinstance(v.likely_cause, check.Sentence), v.likely_cause
                text = localize(v.likely_cause)
                assert re.search("[\u4e00-\u9fff]", text) and "{" not in text.replace("max{", ""), (
                    v.likely_cause,
                    text,
                )
    finally:
        st.session_state["lang"] = "en"
