"""The figure builders (explorer/drawing/figures.py and each page's views/<page>/figures.py) build
their figures as plain dicts (explorer/drawing/plain_figure.py: PlainFigure, plain_subplots; no
Plotly object validated per step). Every figure the pages draw must equal the one go.Figure / make_subplots make
from the same calls: each page runs twice under AppTest, once as shipped and once with go.Figure
and make_subplots put back, and every chart's JSON is compared (Plotly's template, which the
plain figures leave to the Streamlit theme, aside). The builders that use the plain classes must
all be reached."""

from __future__ import annotations

import importlib
import inspect
import math
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from _plotly_utils.utils import to_typed_array_spec
from plotly.subplots import make_subplots
from helpers import PAGES, figures, run_app

from explorer.drawing import figures as F
from explorer.drawing import plain_figure as P
from views.registry import PAGES as REGISTRY

BUILDER_MODULES = [
    F,
    *(
        importlib.import_module(f"views.{page.parent.name}.figures")
        for page in sorted(Path(F.__file__).resolve().parents[2].glob("views/*/figures.py"))
    ),
]

pytestmark = pytest.mark.slow  # whole pages run under AppTest

VIEWS = [  # (page, query): every page, plus the settings that draw the builders a default view does not
    *((page, {}) for page in PAGES),
    (REGISTRY["compare"].script, {"present": "1"}),
    (REGISTRY["vocab"].script, {"vocab_n": "12"}),
    (REGISTRY["attention"].script, {"attention_queries": "3"}),
]


def plain_builders() -> set[str]:
    """The builders (shared and the pages') that create a PlainFigure or a plain grid."""
    return {
        name
        for module in BUILDER_MODULES
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if fn.__module__ == module.__name__
        and any(call in inspect.getsource(fn) for call in ("PlainFigure(", "plain_subplots("))
    }


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

    def put(name, value):  # in every module that builds figures with it
        for module in BUILDER_MODULES:
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)

    put("PlainFigure", recording(P.PlainFigure))
    put("plain_subplots", recording(P.plain_subplots))
    plain = {(page, tuple(query.items())): charts(page, query) for page, query in VIEWS}
    assert called >= plain_builders(), sorted(plain_builders() - called)

    put("PlainFigure", lambda layout=None: go.Figure(layout=layout))
    put("plain_subplots", make_subplots)
    for (page, query), shipped in plain.items():
        validated = charts(page, dict(query))
        assert len(shipped) == len(validated), page
        for mine, theirs in zip(shipped, validated):
            assert mine == theirs, (page, query, mine.get("layout", {}).get("title"))


@pytest.mark.parametrize(
    "props, expected",
    [
        ({"title_text": "a"}, {"title": {"text": "a"}}),
        (
            {"title": "a", "marker_color": "red", "marker": {"size": 3}},
            {"title": {"text": "a"}, "marker": {"color": "red", "size": 3}},
        ),
        ({"error_y": {"array": [1]}, "type": None}, {"error_y": {"array": [1]}}),
        ({"legend": {"title": {"text": None}}}, {"legend": {"title": {}}}),
    ],
)
def test_props_read_keys_as_go_figure_does(props, expected):
    assert P._props(props) == expected


@pytest.mark.parametrize(
    "array",
    [
        np.arange(3),
        np.arange(300),
        np.arange(70000),
        np.array([2**40]),
        np.uint64([3, 70000]),
        np.arange(6.0).reshape(2, 3),
        np.float32([1.5, 2]),
        np.arange(12).reshape(3, 4)[:, 1],
        np.array([True, False]),
        np.array(["a", "b"]),
        np.array([], float),
    ],
    ids=lambda a: f"{a.dtype}{a.shape}",
)
def test_typed_arrays_as_plotly_writes_them(array):
    """_typed_array (without plotly's per-array dataframe check) writes what to_typed_array_spec writes."""
    ours, plotlys = P._typed_array(array), to_typed_array_spec(array)
    if isinstance(plotlys, dict):
        assert ours == plotlys
    else:
        assert ours is array and np.array_equal(plotlys, array)


@pytest.mark.parametrize("name", ["data", "layout", "frames", "update_traces", "show", "no_such_thing"])
def test_what_a_plain_figure_does_not_support_says_so(name):
    """Outside the documented subset: an error naming the attribute, the subset and what to use
    instead (an AttributeError, so hasattr is False), for reading and for setting."""
    fig = P.plain_subplots(1, 2)
    fig.add_scatter(x=[0, 1], y=[1, 0], row=1, col=2)
    for error in (lambda: getattr(fig, name), lambda: setattr(fig, name, 1)):
        with pytest.raises(
            P.UnsupportedFigureAPI,
            match=rf"PlainFigure\.{name} is not supported.*update_layout.*go\.Figure\(fig\.to_dict\(\)\)",
        ):
            error()
    assert not hasattr(fig, name)
    spec = P.Spec({"data": [], "layout": {}})
    with pytest.raises(P.UnsupportedFigureAPI, match=rf"Spec\.{name} is not supported: .* only to_dict, to_json "):
        getattr(spec, name)
    assert go.Figure(fig.to_dict()).data[0].x == (0, 1)  # the way out works
