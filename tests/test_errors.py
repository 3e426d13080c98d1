"""probcore.errors: every message has a stable code and fields, and the English is the catalogue's.

The table holds one call per code; the test asserts the code, the fields named, that the text is
the catalogue's template filled with the fields, and that pickling keeps code and fields."""

from __future__ import annotations

import io
import math
import pickle
import string

import numpy as np
import pytest
import torch

import probcore as pc
from probcore import check, losses, reference, testing, vocab
from probcore.errors import MESSAGES, ProbcoreError

x3 = torch.tensor([[1.0, 0.0, -1.0]])
tree = vocab.huffman_tree([1.0, 2.0, 3.0])


def _npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


CALLS = [
    (lambda: pc.softmax(x3, temperature="hot"), "real", {"name": "temperature", "value": "'hot'"}),
    (lambda: pc.softmax(x3, temperature=0.0), "temperature", {"value": "0.0"}),
    (lambda: pc.gumbel_softmax(x3, temperature=-1.0), "open_positive", {"name": "temperature", "value": "-1.0"}),
    (lambda: pc.am_softmax(x3, torch.tensor([0]), margin=-0.1), "nonnegative", {"name": "margin", "value": "-0.1"}),
    (lambda: pc.softmax(x3, beta=math.inf), "beta", {"value": "inf"}),
    (lambda: pc.taylor_softmax(x3, order=3), "order", {"value": "3", "high": 170}),
    (lambda: pc.sparse_softmax(x3, k=4), "k", {"n": 3, "value": "4"}),
    (lambda: pc.sparse_softmax(x3, top_p=1.5), "top_p", {"value": "1.5"}),
    (lambda: pc.entmax(x3, alpha=-1.0), "alpha", {"value": "-1.0"}),
    (lambda: pc.perturbmax(x3, noise="cauchy"), "one_of", {"name": "noise", "value": "'cauchy'"}),
    (lambda: pc.entmax(x3, alpha=1.3, n_iter=0), "integer_at_least", {"name": "n_iter", "low": 1, "value": "0"}),
    (lambda: pc.softmax(x3, temperature=2.0, beta=1.0), "temperature_or_beta", {}),
    (lambda: pc.sparse_softmax(x3), "k_or_top_p", {}),
    (lambda: pc.sparsemax(x3, fused=1), "fused", {"value": "1"}),
    (lambda: pc.gumbel_softmax(x3, hard=1), "bool", {"name": "hard", "value": "1"}),
    (
        lambda: pc.get_mapping("softmax").validate(alpha=1.5),
        "unknown_param",
        {"name": "'alpha'", "mapping": "softmax", "valid": "temperature, beta"},
    ),
    (lambda: pc.softmax(np.zeros(3)), "x_dtype", {"got": "ndarray"}),
    (lambda: pc.softmax(torch.tensor(1.0)), "x_scalar", {}),
    (lambda: pc.softmax(x3, dim=2), "dim", {"low": -2, "high": 1, "ndim": 2, "value": "2"}),
    (lambda: pc.softmax(torch.zeros(2, 0)), "x_empty", {}),
    (lambda: reference.softmax(np.zeros((2, 2))), "x_vector", {"shape": "(2, 2)"}),
    (lambda: pc.am_softmax(x3, torch.tensor([0.5])), "target_dtype", {"high": 2, "dtype": "torch.float32"}),
    (lambda: pc.am_softmax(x3, torch.tensor([0, 1])), "target_shape", {"shape": "(1,)", "got": "(2,)"}),
    (lambda: pc.am_softmax(x3, torch.tensor([3])), "target_range", {"high": 2}),
    (lambda: reference.am_softmax(np.zeros(3), 3), "target_index", {"high": 2, "value": "3"}),
    (lambda: pc.entmax(x3, alpha=torch.tensor([True])), "alpha_dtype", {"dtype": "torch.bool"}),
    (lambda: pc.entmax(x3, alpha=torch.tensor([[-1.0]])), "alpha_entries", {}),
    (
        lambda: pc.entmax(torch.zeros(2, 3), alpha=torch.full((3, 1), 1.5)),
        "alpha_shape",
        {"shape": "(3, 1)", "x_shape": "(2, 3)", "dim": -1, "kept": "(2, 1)", "rows": ", or (2,) (one alpha per row)"},
    ),
    (lambda: pc.jacobian("gumbel_softmax", x3), "jacobian_generator", {}),
    (lambda: losses.cross_entropy(x3, torch.tensor([0]), ignore_index=0.5), "ignore_index", {"value": "0.5"}),
    (
        lambda: losses.cross_entropy(torch.tensor([1, 2]), torch.tensor(0)),
        "loss_input",
        {"name": "x", "got": "torch.int64(2,)"},
    ),
    (lambda: losses.cross_entropy(x3, torch.tensor([0.0])), "loss_target_dtype", {"n": 3, "got": "torch.float32"}),
    (
        lambda: losses.cross_entropy(x3, torch.tensor([0, 1])),
        "loss_target_shape",
        {"shape": "(1,)", "name": "x", "class_dim": 1, "got": "(2,)"},
    ),
    (
        lambda: losses.cross_entropy(x3, torch.tensor([5])),
        "loss_target_range",
        {"n": 3, "ignore_index": -100, "value": "5"},
    ),
    (lambda: check.parse_vector("1, nan"), "value_at", {"name": "values", "i": 2}),
    (lambda: check.parse_vector("1, x1"), "value_at", {"name": "values", "i": 2}),
    (lambda: check.parse_vector("1e999"), "value_at", {"name": "values", "i": 1}),
    (
        lambda: check.load_rows(b"1,2\n3,4,5\n", "a.csv"),
        "line_width",
        {"name": "'a.csv'", "line": 2, "got": 3, "width": 2},
    ),
    (lambda: check.load_rows(b"1,2\n3,zz\n", "a.csv"), "line_column", {"name": "'a.csv'", "line": 2, "col": 2}),
    (lambda: check.parse_vector(3), "not_text", {"name": "values", "type": "int"}),
    (lambda: check.parse_vector(" [ ] "), "empty", {"name": "values"}),
    (
        lambda: check.parse_vector(",".join(["1"] * (check.MAX_COLS + 1))),
        "max_cols",
        {"name": "values", "limit": "100,000", "got": "100,001"},
    ),
    (
        lambda: check.check_outputs(np.zeros((check.MAX_ROWS + 1, 1)), np.zeros((check.MAX_ROWS + 1, 1)), "softmax"),
        "max_rows",
        {"name": "logits", "limit": "10,000", "got": "10,001"},
    ),
    (
        lambda: check.reference_rows(np.zeros((2000, 1001)), "softmax"),
        "max_values",
        {"name": "logits", "limit": "2,000,000", "got": "2,002,000"},
    ),
    (lambda: check.load_rows(b"a,b\n", "a.csv"), "no_rows", {"name": "'a.csv'"}),
    (lambda: check.load_rows(b"\xff\xfe1", "a.csv"), "not_utf8", {"name": "'a.csv'"}),
    (lambda: check.load_rows(b"not an npy file", "a.npy"), "npy_pickle", {"name": "'a.npy'"}),
    (lambda: check.load_rows(_npy(np.zeros(4))[:-8], "a.npy"), "npy_invalid", {"name": "'a.npy'"}),
    (lambda: check.load_rows(_npy(np.array(["a"])), "a.npy"), "npy_dtype", {"name": "'a.npy'", "dtype": "<U1"}),
    (
        lambda: check.load_rows(_npy(np.zeros((2, 2, 2))), "a.npy"),
        "npy_shape",
        {"name": "'a.npy'", "shape": "(2, 2, 2)"},
    ),
    (
        lambda: check.load_rows(_npy(np.array([[1.0, np.nan]])), "a.npy"),
        "npy_nonfinite",
        {"name": "'a.npy'", "row": 1, "col": 2, "value": "nan"},
    ),
    (lambda: check.load_rows("1,2", "a.csv"), "not_bytes", {"type": "str"}),
    (
        lambda: check.load_rows(b" " * (check.MAX_FILE_BYTES + 1), "a.csv"),
        "file_size",
        {"name": "'a.csv'", "limit": 64, "got": "64.0"},
    ),
    (lambda: check.load_rows(b"1", "a.txt"), "file_type", {"value": "'a.txt'"}),
    (lambda: check.rows_bytes(np.zeros((1, 2)), "txt"), "file_suffix", {"value": "'txt'"}),
    (lambda: check.reference_rows([["a", "b"]], "softmax"), "rows_numeric", {"name": "logits"}),
    (
        lambda: check.reference_rows(np.zeros((1, 1, 2)), "softmax"),
        "rows_shape",
        {"name": "logits", "shape": "(1, 1, 2)"},
    ),
    (lambda: check.check_outputs([1.0, 2.0], [0.5], "softmax"), "probs_shape", {"shape": "(1, 2)", "got": "(1, 1)"}),
    (lambda: check.reference_rows([1.0, math.nan], "softmax"), "logits_finite", {}),
    (lambda: check.reference_rows([1.0, 2.0], "gumbel_softmax"), "stochastic", {"mapping": "'gumbel_softmax'"}),
    (lambda: check.reference_rows([1.0, 2.0], "am_softmax"), "target_required", {"mapping": "'am_softmax'"}),
    (lambda: check.reference_rows([[1.0, 2.0]] * 3, "am_softmax", target=[0, 1]), "target_rows", {"rows": 3}),
    (lambda: check.reference_rows([1.0, 2.0], "softmax", target=0), "target_unused", {"mapping": "'softmax'"}),
    (lambda: check.summary([]), "no_verdicts", {}),
    (lambda: testing.check_implementation(pc.softmax, "softmax", skip="values"), "skip", {"value": "'values'"}),
    (lambda: testing.check_implementation(pc.am_softmax, "am_softmax", target=0), "kit_target", {}),
    (lambda: check.check_outputs([1.0, 2.0], [0.3, 0.7], "softmax", dtype="float8"), "dtype", {"value": "'float8'"}),
    (
        lambda: vocab.hierarchical_softmax(torch.zeros(2, dtype=torch.long), torch.zeros(2, 2), tree),
        "float_tensor",
        {"name": "h", "got": "Tensor of dtype torch.int64"},
    ),
    (lambda: vocab.entropy_bits([[1.0]]), "freqs_shape", {"shape": "(1, 1)"}),
    (lambda: vocab.entropy_bits([1.0, 0.0]), "freqs_entries", {"min": "0.0", "nonfinite": 0}),
    (lambda: vocab.expected_path_length(tree, [1.0, 1.0]), "freqs_count", {"n": 3, "got": 2}),
    (
        lambda: vocab.importance_log_partition(torch.zeros(3), torch.full((2,), 0.5), 4),
        "q_shape",
        {"n": 3, "shape": "(3,)", "got": "(2,)"},
    ),
    (lambda: vocab.importance_log_partition(torch.zeros(2), torch.tensor([1.0, 0.0]), 4), "q_entries", {}),
    (lambda: vocab.importance_log_partition(torch.zeros(2), torch.tensor([0.3, 0.3]), 4), "q_sum", {"off_by": "0.4"}),
    (
        lambda: vocab.draw_samples(torch.full((2, 3), 1 / 3), 2, batch_shape=(4,)),
        "q_batch_shape",
        {"batch_shape": "(4,)", "got": "(2, 3)"},
    ),
    (
        lambda: vocab.sampled_softmax_loss(torch.zeros(2), torch.zeros(2, 3), torch.zeros(3), torch.zeros(2, 3)),
        "broadcast",
        {"name": "logq_target", "to": "x_target", "shape": "(2,)", "got": "(3,)"},
    ),
    (lambda: vocab.hierarchical_softmax(torch.zeros(()), torch.zeros(2, 2), tree), "h_ndim", {}),
    (
        lambda: vocab.hierarchical_softmax(torch.zeros(4), torch.zeros(3, 4), tree),
        "node_vectors_shape",
        {"shape": "(2, 4)", "got": "(3, 4)"},
    ),
    (
        lambda: vocab.hierarchical_softmax(torch.zeros(4), torch.zeros(2, 4, dtype=torch.float64), tree),
        "node_vectors_dtype",
        {"dtype": "torch.float64", "h_dtype": "torch.float32"},
    ),
    (
        lambda: vocab.hierarchical_softmax_log_prob(torch.zeros(4), torch.zeros(2, 4), tree, torch.tensor(0.0)),
        "hs_target",
        {"shape": "()"},
    ),
    (
        lambda: vocab.hierarchical_softmax_log_prob(torch.zeros(4), torch.zeros(2, 4), tree, torch.tensor(3)),
        "hs_target_range",
        {"high": 2},
    ),
    (lambda: vocab.importance_sampling_stats(torch.zeros(2, 2), torch.full((2,), 0.5), 4), "x_1d", {"shape": "(2, 2)"}),
    (
        lambda: vocab.sampled_softmax_loss(torch.zeros(2), torch.zeros(()), torch.zeros(2), torch.zeros(())),
        "x_sampled_ndim",
        {"got": "()"},
    ),
    (
        lambda: vocab.sampled_softmax_loss(torch.zeros(2), torch.zeros(3, 4), torch.zeros(2), torch.zeros(3, 4)),
        "x_sampled_shape",
        {"shape": "(2,)", "got": "(3, 4)"},
    ),
    (
        lambda: vocab.nce_loss(torch.zeros(2), torch.zeros(2, 3), torch.zeros(2), torch.zeros(2, 3), 2),
        "x_noise_shape",
        {"shape": "(2, 2)", "k": 2, "got": "(2, 3)"},
    ),
    (lambda: vocab.measure_costs(8, methods=("fast",)), "methods", {"choices": "full, hierarchical, sampled"}),
]
NESTED = [  # calls whose message wraps another: (call, the inner error's code)
    (lambda: check.parse_vector("1, nan"), "not_finite"),
    (lambda: check.parse_vector("1, x1"), "not_a_number"),
    (lambda: check.parse_vector("1e999"), "overflows"),
    (lambda: check.load_rows(b"1,2\n3,zz\n", "a.csv"), "not_a_number"),
]


@pytest.mark.parametrize("call, code, fields", CALLS, ids=[f"{i}-{c[1]}" for i, c in enumerate(CALLS)])
def test_each_call_raises_its_code_with_its_fields(call, code, fields):
    with pytest.raises(ProbcoreError) as info:
        call()
    err = info.value
    assert isinstance(err, ValueError)
    assert err.code == code, str(err)
    assert {k: err.fields[k] for k in fields} == fields
    assert set(err.fields) == set(_placeholders(MESSAGES[code]))
    assert str(err) == MESSAGES[code].format(**err.fields)
    if "error" in err.fields:
        inner = err.fields["error"]
        assert isinstance(inner, ProbcoreError) and str(inner) in str(err)
    copy = pickle.loads(pickle.dumps(err))
    assert (type(copy), copy.code, str(copy)) == (ProbcoreError, code, str(err))
    assert {k: str(v) for k, v in copy.fields.items()} == {k: str(v) for k, v in err.fields.items()}


def test_every_code_in_the_catalogue_is_raised_by_some_call():
    raised = {code for _, code, _ in CALLS} | {code for _, code in NESTED}
    assert raised == set(MESSAGES)


@pytest.mark.parametrize("call, inner_code", NESTED)
def test_a_nested_message_carries_the_inner_error_object(call, inner_code):
    with pytest.raises(ProbcoreError) as info:
        call()
    inner = info.value.fields["error"]
    assert isinstance(inner, ProbcoreError) and inner.code == inner_code
    assert str(info.value).endswith(str(inner))
    copy = pickle.loads(pickle.dumps(info.value))
    assert copy.fields["error"].code == inner_code and str(copy) == str(info.value)


def test_the_explorer_translates_every_code_from_its_fields():
    """The explorer reads an error's code and fields, not its English: in Chinese every raised error
    of the table reads with its fields filled (a nested error translated too)."""
    import streamlit as st

    from explorer.i18n import localize

    st.session_state["lang"] = "zh"
    try:
        for call, code, _ in CALLS + [(call, None, None) for call, _ in NESTED]:
            with pytest.raises(ProbcoreError) as info:
                call()
            text = localize(info.value)
            assert text != str(info.value) and "{" not in text, (code, text)
    finally:
        st.session_state["lang"] = "en"


def _placeholders(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def test_diagnoses_are_coded_sentences_that_pickle():
    """The checker's diagnoses carry a code and fields (probcore.check.SENTENCES), like the errors:
    the text is the template filled with the fields, nested sentences included, and it pickles."""
    from probcore.check import SENTENCES, Sentence

    s = Sentence("diag_masked", where=Sentence("where_indices", indices="[1, 2]"))
    assert str(s) == SENTENCES["diag_masked"].format(where=SENTENCES["where_indices"].format(indices="[1, 2]"))
    copy = pickle.loads(pickle.dumps(s))
    assert copy == s and copy.code == "diag_masked" and copy.fields["where"].code == "where_indices"
