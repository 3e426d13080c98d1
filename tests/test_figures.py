"""explorer.drawing.figures builds its figures as plain dicts (PlainFigure, plain_subplots: no Plotly object
validated per step). Every figure the pages draw must equal the one go.Figure / make_subplots make
from the same calls: each page runs twice under AppTest, once as shipped and once with go.Figure
and make_subplots put back, and every chart's JSON is compared (Plotly's template, which the
plain figures leave to the Streamlit theme, aside). The builders that use the plain classes must
all be reached."""
from __future__ import annotations

import inspect
import math
import sys

import numpy as np
import plotly.graph_objects as go
import pytest
from _plotly_utils.utils import to_typed_array_spec
from plotly.subplots import make_subplots
from test_app import PAGES, figures, run_app

from explorer.drawing import figures as F
from views.registry import PAGES as REGISTRY

VIEWS = [  # (page, query): every page, plus the settings that draw the builders a default view does not
    *((page, {}) for page in PAGES),
    (REGISTRY["compare"].script, {"present": "1"}),
    (REGISTRY["vocab"].script, {"vocab_n": "12"}),
    (REGISTRY["attention"].script, {"attention_queries": "3"}),
]


def plain_builders() -> set[str]:
    """The functions of explorer.drawing.figures that create a PlainFigure or a plain grid."""
    return {name for name, fn in inspect.getmembers(F, inspect.isfunction) if fn.__module__ == F.__name__
            and name not in ("plain_subplots", "_grid") and any(
                call in inspect.getsource(fn) for call in ("PlainFigure(", "plain_subplots("))}


def _pruned(obj):
    """Plotly JSON without what plotly.js reads as unset (None values, empty dicts and lists),
    NaN written "nan" (so that it equals itself)."""
    if isinstance(obj, dict):
        out = {k: _pruned(v) for k, v in obj.items() if v is not None}
        return {k: v for k, v in out.items() if v not in ({}, [])}
    if isinstance(obj, list):
        return [_pruned(v) for v in obj]
    return "nan" if isinstance(obj, float) and math.isnan(obj) else obj


def charts(page: str, query: dict) -> list[dict]:
    at = run_app(page, **query)
    assert not at.exception, [e.value for e in at.exception]
    out = []
    for fig in figures(at):
        fig.get("layout", {}).pop("template", None)
        out.append(_pruned(fig))
    return out


def test_plain_figures_equal_plotlys(monkeypatch):
    called = set()

    def recording(factory):
        def make(*args, **kwargs):
            called.add(sys._getframe(1).f_code.co_name)
            return factory(*args, **kwargs)
        return make

    monkeypatch.setattr(F, "PlainFigure", recording(F.PlainFigure))
    monkeypatch.setattr(F, "plain_subplots", recording(F.plain_subplots))
    plain = {(page, tuple(query.items())): charts(page, query) for page, query in VIEWS}
    assert called >= plain_builders(), sorted(plain_builders() - called)

    monkeypatch.setattr(F, "PlainFigure", lambda layout=None: go.Figure(layout=layout))
    monkeypatch.setattr(F, "plain_subplots", make_subplots)
    for (page, query), shipped in plain.items():
        validated = charts(page, dict(query))
        assert len(shipped) == len(validated), page
        for mine, theirs in zip(shipped, validated):
            assert mine == theirs, (page, query, mine.get("layout", {}).get("title"))


@pytest.mark.parametrize("props, expected", [
    ({"title_text": "a"}, {"title": {"text": "a"}}),
    ({"title": "a", "marker_color": "red", "marker": {"size": 3}}, {"title": {"text": "a"}, "marker": {"color": "red", "size": 3}}),
    ({"error_y": {"array": [1]}, "type": None}, {"error_y": {"array": [1]}}),
    ({"legend": {"title": {"text": None}}}, {"legend": {"title": {}}}),
])
def test_props_read_keys_as_go_figure_does(props, expected):
    assert F._props(props) == expected


@pytest.mark.parametrize("array", [
    np.arange(3), np.arange(300), np.arange(70000), np.array([2 ** 40]), np.uint64([3, 70000]),
    np.arange(6.0).reshape(2, 3), np.float32([1.5, 2]), np.arange(12).reshape(3, 4)[:, 1],
    np.array([True, False]), np.array(["a", "b"]), np.array([], float),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_typed_arrays_as_plotly_writes_them(array):
    """_typed_array (without plotly's per-array dataframe check) writes what to_typed_array_spec writes."""
    ours, plotlys = F._typed_array(array), to_typed_array_spec(array)
    if isinstance(plotlys, dict):
        assert ours == plotlys
    else:
        assert ours is array and np.array_equal(plotlys, array)
