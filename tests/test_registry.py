"""probcore.registry: the entries, their parameters and slider ranges, validation, and that each
entry's torch forward, numpy reference and flags agree with what the mapping does."""

import inspect
import math

import numpy as np
import pytest
import torch

import probcore
from probcore import losses
from probcore.registry import MAPPINGS, Mapping, Param, get_mapping

NAMES = [
    "softmax",
    "taylor_softmax",
    "sparse_softmax",
    "sparsemax",
    "entmax15",
    "entmax",
    "perturbmax",
    "gumbel_softmax",
    "am_softmax",
]
# one invalid value per parameter name
BAD = {
    "temperature": 0.0,
    "beta": math.inf,
    "order": 3,
    "k": 0,
    "top_p": 1.5,
    "alpha": 0.0,
    "noise": "cauchy",
    "margin": -0.1,
    "scale": 0.0,
    "hard": "yes",
}


def test_names_in_display_order():
    assert list(MAPPINGS) == NAMES
    assert all(get_mapping(name) is MAPPINGS[name] and MAPPINGS[name].name == name for name in NAMES)


@pytest.mark.parametrize("bad", ["softmin", None, 3])
def test_unknown_mapping(bad):
    with pytest.raises(ValueError, match="mapping must be one of softmax, taylor_softmax, .*am_softmax"):
        get_mapping(bad)


@pytest.mark.parametrize("name", NAMES)
def test_entry_fields(name):
    m = MAPPINGS[name]
    assert isinstance(m, Mapping) and m.label and "p" in m.latex
    assert callable(m.forward) and callable(m.reference)
    assert m.loss is None or callable(getattr(losses, m.loss))
    assert all(
        isinstance(flag, bool)
        for flag in (m.analytic_jacobian, m.sparse, m.shift_invariant, m.stochastic, m.needs_target)
    )
    assert m.analytic_jacobian == (name != "perturbmax")
    forward_kw, reference_kw = inspect.signature(m.forward).parameters, inspect.signature(m.reference).parameters
    for p in m.params:
        assert isinstance(p, Param) and p.label and p.kind in ("float", "int", "choice", "bool")
        assert p.name in forward_kw and p.name in reference_kw


@pytest.mark.parametrize("name", NAMES)
def test_defaults_and_slider_ranges_are_valid(name):
    m = MAPPINGS[name]
    assert m.validate(n=8, **{p.name: p.default for p in m.params}) == {p.name: p.default for p in m.params}
    for p in m.params:
        if p.kind == "choice":
            assert p.default in p.choices
        if p.kind not in ("float", "int") or p.ui_low is None:
            continue
        for value in (v for v in (p.ui_low, p.ui_high, p.default) if v is not None):
            assert p.low is None or value > p.low or (value == p.low and not p.low_open)
            assert p.high is None or value < p.high or (value == p.high and not p.high_open)
            others = {q.name: q.default for q in m.params} | ({"k": None} if p.name == "top_p" else {})
            m.validate(n=8, **others | {p.name: int(value) if p.kind == "int" else float(value)})
        if p.default is not None and p.ui_high is not None:
            assert p.ui_low <= p.default <= p.ui_high


def param(name, mapping):
    return next(p for p in MAPPINGS[mapping].params if p.name == name)


@pytest.mark.parametrize(
    "name, mapping, ui",
    [
        ("temperature", "softmax", (0.05, 5.0, 0.05)),
        ("alpha", "entmax", (0.1, 4.0, 0.05)),
        ("order", "taylor_softmax", (2, 8, 2)),
        ("k", "sparse_softmax", (1, None, 1)),  # up to n, known with x
        ("top_p", "sparse_softmax", (0.05, 1.0, 0.05)),
        ("margin", "am_softmax", (0.0, 1.0, 0.01)),
        ("scale", "am_softmax", (1.0, 64.0, 1.0)),
    ],
)
def test_slider_specs(name, mapping, ui):
    p = param(name, mapping)
    assert (p.ui_low, p.ui_high, p.step) == ui


def test_validate_converts_and_checks():
    assert MAPPINGS["softmax"].validate(temperature=2) == {"temperature": 2.0}
    cleaned = MAPPINGS["sparse_softmax"].validate(n=5, k=np.int64(3), temperature=np.float32(0.5))
    assert cleaned == {"k": 3, "temperature": 0.5} and type(cleaned["k"]) is int
    assert MAPPINGS["sparse_softmax"].validate(k=50) == {"k": 50}  # without n only k >= 1 is known
    assert MAPPINGS["softmax"].validate(beta=-2, temperature=1.0) == {"beta": -2.0, "temperature": 1.0}
    assert MAPPINGS["entmax"].validate(alpha=1) == {"alpha": 1.0}


@pytest.mark.parametrize("name", NAMES)
def test_validate_names_the_bad_parameter(name):
    m = MAPPINGS[name]
    for p in m.params:
        with pytest.raises(ValueError, match=rf"^{p.name} must"):
            m.validate(n=4, **{p.name: BAD[p.name]}, **({"top_p": 0.5} if p.name == "k" else {}))
    with pytest.raises(ValueError, match="unknown parameter 'bogus'"):
        m.validate(bogus=1)


@pytest.mark.parametrize(
    "mapping, params, match",
    [
        ("sparse_softmax", {"k": 5}, r"k must be an integer in \[1, 4\]"),
        ("sparse_softmax", {"k": 2, "top_p": 0.5}, "exactly one of k"),
        ("sparse_softmax", {"temperature": 2.0}, "exactly one of k"),
        ("softmax", {"beta": 2.0, "temperature": 0.5}, "either temperature or beta"),
        ("gumbel_softmax", {"temperature": -1.0}, r"temperature must be in \(0, inf\)"),
    ],
)
def test_validate_rules(mapping, params, match):
    with pytest.raises(ValueError, match=match):
        MAPPINGS[mapping].validate(n=4, **params)


def test_forward_matches_reference(case):
    if case.mapping.stochastic:
        pytest.skip("different random generators")
    x = 2 * torch.randn(3, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(31))
    x[1, 4] = -math.inf
    p = case(x)
    target = {"target": 0} if case.mapping.needs_target else {}
    atol = 1e-5 if case.name == "perturbmax" else 1e-9
    for row, expected in zip(x.numpy(), p.numpy()):
        np.testing.assert_allclose(case.mapping.reference(row, **case.params, **target), expected, atol=atol, rtol=0)


def test_flags_match_behaviour(case):
    x = torch.tensor([[3.0, 0.1, -2.5, 0.4, -4.0]], dtype=torch.float64)
    m = case.mapping
    assert torch.allclose(case(x + 1.5), case(x), atol=1e-9) == m.shift_invariant
    if case.id in ("topk", "sparsemax", "entmax15", "entmax_1.3", "entmax_3_T"):
        assert m.sparse and (case(x) == 0).any()
    params = {**case.params, **({"target": torch.tensor([0])} if m.needs_target else {})}
    assert (not torch.equal(m.forward(x, **params), m.forward(x, **params))) == m.stochastic
    if m.needs_target:
        with pytest.raises(TypeError):
            m.forward(x, **case.params)


def test_package_exports():
    for name in NAMES + [
        "smooth_max",
        "perturbmax_sample",
        "jacobian",
        "MAPPINGS",
        "get_mapping",
        "losses",
        "nn",
        "reference",
    ]:
        assert hasattr(probcore, name)
    assert probcore.MAPPINGS is MAPPINGS and probcore.softmax is MAPPINGS["softmax"].forward
