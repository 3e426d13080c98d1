"""Figures written as Plotly's JSON, without building a Plotly object on each step.

:class:`Spec` is a figure given as Plotly's JSON form (plain dicts and numpy arrays);
:class:`PlainFigure` builds one with a small part of ``go.Figure``'s interface; :func:`plain_subplots`
is ``make_subplots`` for it. Building and validating a ``go.Figure`` was most of a topic page's
script time (~9 ms of a Compare step); tests/test_figures.py holds every figure the pages draw
equal to the one ``go.Figure`` makes from the same calls.

The supported subset, all of it:

- ``Spec``: ``to_dict()`` (numpy arrays as plotly.js typed arrays, as ``go.Figure.to_dict`` sends
  them) and ``to_json()``.
- ``PlainFigure``: those, plus ``add_trace(dict, row, col)``, ``add_scatter / add_bar / add_heatmap /
  add_contour / add_scatterternary(row, col, **props)``, ``update_layout(**props)``,
  ``update_xaxes / update_yaxes(row, col, **props)``, ``add_vline / add_hline(position,
  annotation_text, **props)``. Properties as ``go.Figure`` reads them: "magic underscore" paths
  (``title_text=...``), a title string as its text, a named colour scale as its colours, None unset.

Anything else (``.data``, ``.layout``, ``.frames``, ``update_traces()``, ``show()``, any other
attribute) raises :class:`UnsupportedFigureAPI` naming it and what to use instead:
``go.Figure(fig.to_dict())`` is the validated figure with the whole interface.

Why it works: both classes subclass ``go.Figure`` without running its ``__init__``;
``st.plotly_chart`` hands a figure to ``plotly.tools.return_figure_from_figure_or_data``, which
takes any ``BaseFigure`` by its ``to_dict()`` as already validated. That is the one outside
behaviour this leans on (Streamlit 1.67, Plotly 7.1); tests/test_figures.py would catch a change.
"""

from __future__ import annotations

import base64
import copy
import functools
import json

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots


class UnsupportedFigureAPI(AttributeError):
    """A part of go.Figure's interface that Spec / PlainFigure do not have (an AttributeError, so
    ``hasattr`` answers False)."""


def _refusal(cls_name: str, name: str, supported: str) -> UnsupportedFigureAPI:
    return UnsupportedFigureAPI(
        f"{cls_name}.{name} is not supported: {cls_name} writes Plotly's JSON without a go.Figure and "
        f"supports only {supported} (explorer/drawing/plain_figure.py). Use go.Figure(fig.to_dict()) "
        f"for the full go.Figure interface."
    )


_JS_TYPES = {
    np.dtype(name): code
    for name, code in (  # plotly.js typed arrays
        ("int8", "i1"),
        ("uint8", "u1"),
        ("int16", "i2"),
        ("uint16", "u2"),
        ("int32", "i4"),
        ("uint32", "u4"),
        ("float32", "f4"),
        ("float64", "f8"),
    )
}


def _typed_array(v: np.ndarray):
    """A numpy array as a plotly.js typed array spec, as plotly's to_typed_array_spec writes it
    (64-bit integers narrowed to the smallest type that holds them; other dtypes left to the JSON
    encoder), without its per-array dataframe check (~0.2 ms an array: 0.1 s a Sweeps step)."""
    if v.size == 0:
        return v
    if v.dtype.kind in "iu" and v.dtype.itemsize == 8:
        low, high = v.min(), v.max()
        kinds = ("int8", "int16", "int32") if v.dtype.kind == "i" else ("uint8", "uint16", "uint32")
        fits = [k for k in kinds if np.iinfo(k).min <= low and high <= np.iinfo(k).max]
        if not fits:
            return v
        v = v.astype(fits[0])
    code = _JS_TYPES.get(v.dtype)
    if code is None:
        return v
    spec = {"dtype": code, "bdata": base64.b64encode(np.ascontiguousarray(v)).decode("ascii")}
    if v.ndim > 1:
        spec["shape"] = str(v.shape)[1:-1]
    return spec


def _typed_arrays(obj):
    """Numpy arrays in a figure spec as plotly.js typed arrays (as go.Figure.to_dict sends them),
    without plotly's check of every other value."""
    if isinstance(obj, np.ndarray):
        return _typed_array(obj)
    if isinstance(obj, dict):
        return {k: _typed_arrays(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_typed_arrays(v) for v in obj]
    return obj


class Spec(go.Figure):
    """A figure given as Plotly's JSON form (plain dicts and numpy arrays). st.plotly_chart takes
    any go.Figure by its ``to_dict()``, so a Spec goes out as it is: no go.Figure is built and
    validated on the step (that cost ~9 ms of a Compare step). Nothing but ``to_dict`` (and
    ``to_json``, which calls it) is used: ``go.Figure(spec.to_dict())`` gives the validated figure
    where one is needed (:func:`for_projector`)."""

    def __new__(cls, spec: dict):
        fig = super().__new__(cls)  # go.Figure.__init__ is skipped on purpose (it is the cost)
        fig._spec = spec
        return fig

    def __init__(self, spec: dict):
        pass

    SUPPORTED = ("to_dict", "to_json")

    def to_dict(self) -> dict:
        return _typed_arrays(self._spec)

    def to_json(self, *args, **kwargs) -> str:
        return go.Figure.to_json(self, *args, **kwargs)

    def __getattr__(self, name: str):
        """Only called for a name found nowhere: an attribute go.Figure does not have either."""
        if name.startswith("__"):
            raise AttributeError(name)
        raise _refusal(type(self).__name__, name, ", ".join(self.SUPPORTED))

    def __setattr__(self, name: str, value) -> None:
        if not name.startswith("_"):
            raise _refusal(type(self).__name__, name, ", ".join(self.SUPPORTED))
        object.__setattr__(self, name, value)


_UNDERSCORED = frozenset({"error_x", "error_y", "paper_bgcolor", "plot_bgcolor"})  # names, not paths


@functools.lru_cache(maxsize=16)
def _named_colorscale(name: str) -> list:
    """Plotly's named colour scale as go.Figure writes it (plotly.js has its own, other "RdBu")."""
    return [list(stop) for stop in go.layout.Coloraxis(colorscale=name).colorscale]


def _props(props: dict) -> dict:
    """Figure properties as go.Figure reads them, in plain dicts: a "magic underscore" key is a
    path (title_text=... -> title={"text": ...}), a title string is its text, a colour scale's
    name its colours, None means unset."""
    out: dict = {}
    for key, value in props.items():
        if value is None:
            continue
        if isinstance(value, dict):
            value = _props(value)
        elif key == "title" and isinstance(value, str):
            value = {"text": value}
        elif key == "colorscale" and isinstance(value, str):
            value = _named_colorscale(value)
        if "_" in key and key not in _UNDERSCORED:
            head, rest = key.split("_", 1)
            _merge(out, {head: _props({rest: value})})
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            _merge(out[key], value)
        else:
            out[key] = value
    return out


def _merge(target: dict, updates: dict) -> dict:
    """go.Figure's update: nested dicts merge, anything else replaces."""
    for key, value in updates.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value
    return target


class PlainFigure(Spec):
    """The part of go.Figure's interface these builders use (add_<trace>, update_layout,
    update_xaxes / update_yaxes with row / col), writing plain dicts: no Plotly object is built or
    validated per step (that was most of a topic page's script time). tests/test_figures.py checks
    that every figure the pages draw equals the one go.Figure would have made from the same calls."""

    def __new__(cls, layout: dict | None = None, cells: dict | None = None):
        fig = super().__new__(cls, dict(data=[], layout=layout or {}))
        fig._cells = cells or {}  # (row, col) -> the trace's subplot keys, e.g. {"xaxis": "x2", "yaxis": "y2"}
        return fig

    def __init__(self, layout: dict | None = None, cells: dict | None = None):
        pass

    def add_trace(self, trace: dict, row: int | None = None, col: int | None = None) -> None:
        trace = _props(trace)
        if row is not None:
            trace.update(self._cells[row, col])
        self._spec["data"].append(trace)

    def add_scatter(self, row: int | None = None, col: int | None = None, **props) -> None:
        self.add_trace(dict(type="scatter", **props), row, col)

    def add_bar(self, row: int | None = None, col: int | None = None, **props) -> None:
        self.add_trace(dict(type="bar", **props), row, col)

    def add_heatmap(self, row: int | None = None, col: int | None = None, **props) -> None:
        self.add_trace(dict(type="heatmap", **props), row, col)

    def add_contour(self, row: int | None = None, col: int | None = None, **props) -> None:
        self.add_trace(dict(type="contour", **props), row, col)

    def add_scatterternary(self, row: int | None = None, col: int | None = None, **props) -> None:
        self.add_trace(dict(type="scatterternary", **props), row, col)

    def update_layout(self, **props) -> PlainFigure:
        _merge(self._spec["layout"], _props(props))
        return self

    def _line(self, shape: dict, note: dict, annotation_text: str | None, props: dict) -> None:
        """A line across the plot (as go.Figure.add_vline / add_hline draw it, annotation at the
        top right)."""
        layout = self._spec["layout"]
        layout.setdefault("shapes", []).append(dict(type="line", **shape, **_props(props)))
        if annotation_text is not None:
            layout.setdefault("annotations", []).append(dict(showarrow=False, text=annotation_text, **note))

    def add_vline(self, x: float, annotation_text: str | None = None, **props) -> None:
        self._line(
            dict(x0=x, x1=x, xref="x", y0=0, y1=1, yref="y domain"),
            dict(x=x, xanchor="left", xref="x", y=1, yanchor="top", yref="y domain"),
            annotation_text,
            props,
        )

    def add_hline(self, y: float, annotation_text: str | None = None, **props) -> None:
        self._line(
            dict(x0=0, x1=1, xref="x domain", y0=y, y1=y, yref="y"),
            dict(x=1, xanchor="right", xref="x domain", y=y, yanchor="bottom", yref="y"),
            annotation_text,
            props,
        )

    def _update_axes(self, axis: str, row: int | None, col: int | None, props: dict) -> PlainFigure:
        layout = self._spec["layout"]
        if row is not None:
            names = [self._cells[row, col][axis].replace(axis[0], axis, 1)]  # "x2" -> "xaxis2"
        else:
            names = sorted(k for k in layout if k.startswith(axis)) or [axis]
        for name in names:
            _merge(layout.setdefault(name, {}), _props(props))
        return self

    def update_xaxes(self, row: int | None = None, col: int | None = None, **props) -> PlainFigure:
        return self._update_axes("xaxis", row, col, props)

    def update_yaxes(self, row: int | None = None, col: int | None = None, **props) -> PlainFigure:
        return self._update_axes("yaxis", row, col, props)

    SUPPORTED = (
        *Spec.SUPPORTED,
        "add_trace",
        "add_scatter",
        "add_bar",
        "add_heatmap",
        "add_contour",
        "add_scatterternary",
        "update_layout",
        "update_xaxes",
        "update_yaxes",
        "add_vline",
        "add_hline",
    )


def _refuse_the_rest(cls: type) -> None:
    """Every public attribute of go.Figure that ``cls`` does not support raises on access."""
    for name in dir(go.Figure):
        if not name.startswith("_") and name not in cls.SUPPORTED and name != "SUPPORTED":
            setattr(
                cls,
                name,
                property(
                    lambda self, name=name: (_ for _ in ()).throw(
                        _refusal(type(self).__name__, name, ", ".join(type(self).SUPPORTED))
                    )
                ),
            )


_refuse_the_rest(Spec)
_refuse_the_rest(PlainFigure)


@functools.lru_cache(maxsize=32)
def _grid(
    rows: int,
    cols: int,
    specs: str,
    titles: tuple[bool, ...],
    horizontal_spacing: float | None,
    vertical_spacing: float | None,
) -> tuple[dict, dict]:
    """make_subplots' layout (axis domains and anchors, title annotations, template left out) and
    each cell's subplot keys, computed once per grid shape by Plotly itself."""
    fig = make_subplots(
        rows=rows,
        cols=cols,
        specs=json.loads(specs),
        subplot_titles=[f"{k}" if shown else "" for k, shown in enumerate(titles)] or None,
        horizontal_spacing=horizontal_spacing,
        vertical_spacing=vertical_spacing,
    )
    layout = fig.to_dict()["layout"]
    layout.pop("template", None)
    cells = {}
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            sub = fig.get_subplot(r, c)
            if sub is None:
                continue
            if hasattr(sub, "xaxis"):
                cells[r, c] = {
                    "xaxis": sub.xaxis.plotly_name.replace("axis", ""),
                    "yaxis": sub.yaxis.plotly_name.replace("axis", ""),
                }
            else:
                cells[r, c] = {"subplot": sub.plotly_name}
    return layout, cells


def plain_subplots(
    rows: int = 1,
    cols: int = 1,
    specs: list | None = None,
    subplot_titles: list[str] | None = None,
    horizontal_spacing: float | None = None,
    vertical_spacing: float | None = None,
) -> PlainFigure:
    """make_subplots(...) as a :class:`PlainFigure` (the same arguments, the same layout)."""
    titles = list(subplot_titles or [])
    layout, cells = _grid(
        rows,
        cols,
        json.dumps(specs or [[{}] * cols] * rows),
        tuple(bool(x) for x in titles),
        horizontal_spacing,
        vertical_spacing,
    )
    layout = copy.deepcopy(layout)
    for note in layout.get("annotations", []):  # the grid's placeholder titles: their index
        note["text"] = titles[int(note["text"])] if note.get("text") else note.get("text")
    return PlainFigure(layout, cells)
