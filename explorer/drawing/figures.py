"""Every Plotly figure of the explorer.

Builders take plain numpy arrays (already computed by ``explorer.compute``) and return a figure
with axis titles, a legend (a colour bar for heat maps) and the mapping colours of
``explorer.drawing.colors``, written as Plotly's JSON (:class:`Spec`, :class:`PlainFigure`: a ``go.Figure``
for st.plotly_chart, but no Plotly object is built and validated on a step). They set no background or font colours, so ``st.plotly_chart(theme="streamlit")``
styles them for the light and the dark theme alike.
"""
from __future__ import annotations

import base64
import copy
import functools
import json
import unicodedata
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.drawing.colors import mapping_color, with_alpha
from explorer.i18n import t

ZERO_SYMBOL = "x-thin-open"
ZERO_COLOR = "#8C8C8C"
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "pentagon", "hexagon", "star", "cross", "triangle-down")


_JS_TYPES = {np.dtype(name): code for name, code in (  # plotly.js typed arrays
    ("int8", "i1"), ("uint8", "u1"), ("int16", "i2"), ("uint16", "u2"), ("int32", "i4"), ("uint32", "u4"),
    ("float32", "f4"), ("float64", "f8"))}


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

    def to_dict(self) -> dict:
        return _typed_arrays(self._spec)


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
        self._line(dict(x0=x, x1=x, xref="x", y0=0, y1=1, yref="y domain"),
                   dict(x=x, xanchor="left", xref="x", y=1, yanchor="top", yref="y domain"), annotation_text, props)

    def add_hline(self, y: float, annotation_text: str | None = None, **props) -> None:
        self._line(dict(x0=0, x1=1, xref="x domain", y0=y, y1=y, yref="y"),
                   dict(x=1, xanchor="right", xref="x domain", y=y, yanchor="bottom", yref="y"), annotation_text, props)

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


def _with_traces(fig: PlainFigure, data: list[dict]) -> PlainFigure:
    for trace in data:
        fig.add_trace(trace)
    return fig


@functools.lru_cache(maxsize=32)
def _grid(rows: int, cols: int, specs: str, titles: tuple[bool, ...], horizontal_spacing: float | None,
          vertical_spacing: float | None) -> tuple[dict, dict]:
    """make_subplots' layout (axis domains and anchors, title annotations, template left out) and
    each cell's subplot keys, computed once per grid shape by Plotly itself."""
    fig = make_subplots(rows=rows, cols=cols, specs=json.loads(specs),
                        subplot_titles=[f"{k}" if shown else "" for k, shown in enumerate(titles)] or None,
                        horizontal_spacing=horizontal_spacing, vertical_spacing=vertical_spacing)
    layout = fig.to_dict()["layout"]
    layout.pop("template", None)
    cells = {}
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            sub = fig.get_subplot(r, c)
            if sub is None:
                continue
            if hasattr(sub, "xaxis"):
                cells[r, c] = {"xaxis": sub.xaxis.plotly_name.replace("axis", ""),
                               "yaxis": sub.yaxis.plotly_name.replace("axis", "")}
            else:
                cells[r, c] = {"subplot": sub.plotly_name}
    return layout, cells


def plain_subplots(rows: int = 1, cols: int = 1, specs: list | None = None, subplot_titles: list[str] | None = None,
                   horizontal_spacing: float | None = None, vertical_spacing: float | None = None) -> PlainFigure:
    """make_subplots(...) as a :class:`PlainFigure` (the same arguments, the same layout)."""
    titles = list(subplot_titles or [])
    layout, cells = _grid(rows, cols, json.dumps(specs or [[{}] * cols] * rows), tuple(bool(x) for x in titles),
                          horizontal_spacing, vertical_spacing)
    layout = copy.deepcopy(layout)
    for note in layout.get("annotations", []):  # the grid's placeholder titles: their index
        note["text"] = titles[int(note["text"])] if note.get("text") else note.get("text")
    return PlainFigure(layout, cells)


class Curve(NamedTuple):
    """One trace of a line chart: its legend label, y values, colour, dash, mode ("lines",
    "markers" or both) and optional symmetric error bars."""

    label: str
    y: np.ndarray
    color: str
    dash: str = "solid"
    mode: str = "lines"
    error: np.ndarray | None = None


def _layout(x_title: str | None, y_title: str | None, legend_title: str | None = None,
            height: int | None = None) -> dict:
    """The common layout: legend (with a title), margins, full trace names on hover, axis titles
    (None: no cartesian axes, as in ternary plots)."""
    layout = dict(showlegend=True, legend=dict(title=dict(text=legend_title)), margin=dict(l=10, r=10, t=50, b=10),
                  height=height, hoverlabel=dict(namelength=-1))
    if x_title is not None:
        layout.update(xaxis=dict(title=dict(text=x_title)), yaxis=dict(title=dict(text=y_title)))
    return layout


def _finish(fig: go.Figure, x_title: str | None, y_title: str | None, legend_title: str | None = None,
            height: int | None = None) -> go.Figure:
    """Applies :func:`_layout` to a figure (on every cartesian axis of a subplot grid)."""
    layout = _layout(None, None, legend_title, height)
    fig.update_layout(**layout)
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
        fig.update_yaxes(title_text=y_title)
    return fig


def _below(fig: go.Figure) -> go.Figure:
    """Legend in rows under the plot (ternary plots need the width), room for the corner titles."""
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0),
                      margin=dict(l=70, r=70, t=60, b=10))
    return fig


PROJECTOR_FONT = 22
PROJECTOR_LINE = 5.0
PROJECTOR_MARKER = 1.8  # marker size factor


def for_projector(fig: go.Figure) -> go.Figure:
    """Presentation mode: large fonts, thick lines and big markers on any figure (in place; a
    :class:`Spec` becomes a validated figure first)."""
    if isinstance(fig, Spec):
        fig = go.Figure(fig.to_dict())
    fig.update_layout(font=dict(size=PROJECTOR_FONT), title_font_size=PROJECTOR_FONT + 4,
                      legend_font_size=PROJECTOR_FONT, legend_title_font_size=PROJECTOR_FONT,
                      hoverlabel_font_size=PROJECTOR_FONT,
                      height=int((fig.layout.height or 450) * 1.3))
    axis_fonts = dict(tickfont_size=PROJECTOR_FONT, title_font_size=PROJECTOR_FONT)  # the theme sets them per axis
    fig.update_xaxes(**axis_fonts)
    fig.update_yaxes(**axis_fonts)
    fig.update_ternaries(**{f"{axis}axis": axis_fonts for axis in "abc"})
    fig.update_annotations(font_size=PROJECTOR_FONT)  # subplot titles
    for trace in fig.data:
        if trace.type in ("scatter", "scatterternary", "scattergl"):
            mode = trace.mode or "lines+markers"
            if "lines" in mode:
                trace.line.width = max(trace.line.width or 2.0, PROJECTOR_LINE)
            if "markers" in mode and not isinstance(trace.marker.size, (list, tuple, np.ndarray)):
                trace.marker.size = (trace.marker.size or 6) * PROJECTOR_MARKER
        elif trace.type == "heatmap" and trace.texttemplate:
            trace.textfont.size = PROJECTOR_FONT
        elif trace.type == "bar" and trace.text is not None:
            trace.textfont.size = PROJECTOR_FONT
    return fig


def _group_offsets(m: int, width: float = 0.84) -> tuple[np.ndarray, float]:
    """x offsets of m bars grouped around each category, and the bar width."""
    w = width / max(m, 1)
    return (np.arange(m) - (m - 1) / 2) * w, w


def _class_ticks(index: np.ndarray, logits: np.ndarray) -> dict:
    text = [f"{i}<br>{x:.3g}" for i, x in zip(index, logits)]
    return dict(tickmode="array", tickvals=list(range(len(index))), ticktext=text)


def _margin_for_legend(names: list[str]) -> dict:
    """Margins that already hold the class ticks, the axis titles and a vertical legend of
    ``names``: Plotly widens a margin that is too small only after drawing the figure, and then
    draws it all again. A generous estimate (a wide character counts twice); a larger font, as in
    presentation mode, still widens them."""
    chars = max(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in name) for name in names)
    return dict(l=84, r=75 + 6 * chars, t=50, b=88)


def probability_bars(index: np.ndarray, logits: np.ndarray, probs: dict[str, np.ndarray],
                     labels: dict[str, str], log_y: bool = False, title: str | None = None) -> go.Figure:
    """Grouped bars p_i per mapping over the classes ``index`` (logits[i] under each group).

    Exact zeros get a cross on the axis, so a 0 never looks like a tiny positive value (hover
    shows the value in full). Built as one dict (the slider hot path: no incremental updates)."""
    offsets, w = _group_offsets(len(probs))
    pos = np.arange(len(index), dtype=float)
    positive = np.concatenate([p[p > 0] for p in probs.values()] or [np.ones(1)])
    floor = max(float(positive.min()) / 3, 1e-16) if log_y else 0.0
    size = float(np.clip(800 * w / max(len(index), 1), 6, 14))
    data = []
    for (name, p), off in zip(probs.items(), offsets):
        color = mapping_color(name)
        zero = p == 0
        data.append(dict(
            type="bar", x=pos + off, y=np.where(zero, np.nan, p), width=w, name=labels[name], legendgroup=name,
            marker=dict(color=color), customdata=index,
            hovertemplate="class %{customdata}<br>p = %{y:.6g}<extra>%{fullData.name}</extra>"))
        if zero.any():
            data.append(dict(
                type="scatter", x=(pos + off)[zero], y=np.full(int(zero.sum()), floor), mode="markers",
                marker=dict(symbol=ZERO_SYMBOL, size=size, color=color, line=dict(width=2, color=color)),
                name=labels[name], legendgroup=name, showlegend=False, cliponaxis=False, customdata=index[zero],
                hovertemplate="class %{customdata}<br>p = 0 (exact)<extra>%{fullData.name}</extra>"))
    if any(d["type"] == "scatter" for d in data):  # legend key for the zero marker
        data.append(dict(type="scatter", x=[None], y=[None], mode="markers", name=t("fig.exact_zero"),
                         marker=dict(symbol=ZERO_SYMBOL, size=10, color=ZERO_COLOR,
                                     line=dict(width=2, color=ZERO_COLOR))))
    yaxis = (dict(type="log", range=[np.log10(floor) - 0.2, 0.05]) if log_y
             else dict(range=[0, 1.02 * max(1e-9, float(positive.max()))]))
    layout = _layout(t("fig.class_axis"), t("fig.probability"), t("fig.mapping"))
    layout["margin"] = _margin_for_legend([t("fig.mapping"), *(d["name"] for d in data if d.get("showlegend", True))])
    layout["xaxis"].update(_class_ticks(index, logits))
    layout["yaxis"].update(yaxis)
    return Spec(dict(data=data, layout=dict(layout, title=dict(text=title))))


def _ternary_layout(axis_titles: tuple[str, str, str]) -> dict:
    return dict(
        sum=1,
        aaxis=dict(title=dict(text=axis_titles[0]), min=0, ticks="outside"),
        baxis=dict(title=dict(text=axis_titles[1]), min=0, ticks="outside"),
        caxis=dict(title=dict(text=axis_titles[2]), min=0, ticks="outside"),
    )


def _ternary_spec(data: list[dict], axis_titles: tuple[str, str, str], title: str) -> Spec:
    """A ternary figure as a plain spec: legend in rows under the plot (as :func:`_below`)."""
    layout = _layout(None, None, t("fig.mapping"), height=560)
    layout["legend"].update(orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0)
    layout.update(margin=dict(l=70, r=70, t=60, b=10), ternary=_ternary_layout(axis_titles), title=dict(text=title))
    return Spec(dict(data=data, layout=layout))


def simplex_points(points: dict[str, np.ndarray], labels: dict[str, str],
                   axis_titles: tuple[str, str, str]) -> Spec:
    """Each mapping's p in the probability simplex (a ternary plot); points on an edge or a
    vertex stay visible (cliponaxis=False). Marker sizes decrease so coinciding points all show.
    A plain spec: it is redrawn on every logit step."""
    data = [dict(type="scatterternary", a=[p[0]], b=[p[1]], c=[p[2]], mode="markers", name=labels[name],
                 cliponaxis=False,
                 marker=dict(size=max(8, 22 - 2 * k), color=mapping_color(name), symbol=_SYMBOLS[k % len(_SYMBOLS)],
                             line=dict(width=1, color="rgba(128,128,128,0.8)")),
                 hovertemplate="p = (%{a:.4f}, %{b:.4f}, %{c:.4f})<extra>%{fullData.name}</extra>")
            for k, (name, p) in enumerate(points.items())]
    return _ternary_spec(data, axis_titles, t("fig.simplex_points"))


def simplex_images(clouds: dict[str, np.ndarray], labels: dict[str, str],
                   axis_titles: tuple[str, str, str], cols: int = 3) -> go.Figure:
    """One ternary panel per mapping with the image of a grid of logits (rows of ``clouds[name]``)."""
    names = list(clouds)
    rows = -(-len(names) // cols)
    cols = min(cols, len(names))
    specs = [[{"type": "ternary"} if r * cols + c < len(names) else None for c in range(cols)] for r in range(rows)]
    fig = plain_subplots(rows=rows, cols=cols, specs=specs,
                        subplot_titles=[labels[n] for n in names], vertical_spacing=0.12 / rows,
                        horizontal_spacing=0.14)
    for k, name in enumerate(names):
        cloud = clouds[name]
        fig.add_scatterternary(
            a=cloud[:, 0], b=cloud[:, 1], c=cloud[:, 2], mode="markers", name=labels[name], cliponaxis=False,
            marker=dict(size=4, color=mapping_color(name), opacity=0.75),
            hovertemplate="p = (%{a:.3f}, %{b:.3f}, %{c:.3f})<extra>%{fullData.name}</extra>",
            row=k // cols + 1, col=k % cols + 1,
        )
    layout = _ternary_layout(tuple(a.split(" ")[0] for a in axis_titles))
    for k in range(len(names)):
        fig.update_layout(**{f"ternary{k + 1 if k else ''}": layout})
    fig.update_layout(title=t("fig.simplex_images"))
    return _finish(fig, None, None, t("fig.mapping"), height=330 * rows + 60)


def simplex_paths(paths: dict[str, np.ndarray], values: np.ndarray, value_name: str,
                  labels: dict[str, str], axis_titles: tuple[str, str, str], title: str) -> Spec:
    """Each mapping's p as a parameter (temperature, alpha) runs over ``values``: a path in the
    simplex (a plain spec: redrawn on every logit step)."""
    data = []
    for k, (name, path) in enumerate(paths.items()):
        color = mapping_color(name)
        data.append(dict(
            type="scatterternary", a=path[:, 0], b=path[:, 1], c=path[:, 2], mode="lines+markers", name=labels[name],
            cliponaxis=False, line=dict(color=color, width=2),
            marker=dict(size=4, color=color, symbol=_SYMBOLS[k % len(_SYMBOLS)]), customdata=values,
            hovertemplate=f"{value_name} = %{{customdata:.3g}}<br>p = (%{{a:.3f}}, %{{b:.3f}}, %{{c:.3f}})"
                          "<extra>%{fullData.name}</extra>"))
    return _ternary_spec(data, axis_titles, title)


def _plane(points: np.ndarray) -> np.ndarray:
    """Orthonormal coordinates of points in the plane sum = 1 (centre of the simplex at 0)."""
    basis = np.array([[1, -1, 0], [1, 1, -2]]) / np.sqrt([[2], [6]])
    return (np.atleast_2d(points) - 1 / 3) @ basis.T


def projection_plane(x: np.ndarray, points: dict[str, np.ndarray], projection: str,
                     labels: dict[str, str]) -> Spec:
    """The plane sum = 1 seen from above: the simplex triangle, the logits moved onto the plane
    (x - (sum x - 1)/3, same mapping outputs by shift invariance) and each mapping's p, with the
    Euclidean projection (mapping ``projection``, sparsemax) joined to the logits by a dashed segment.
    A plain spec: it is redrawn on every logit step."""
    tri = _plane(np.vstack([np.eye(3), np.eye(3)[:1]]))
    data = [dict(type="scatter", x=tri[:, 0], y=tri[:, 1], mode="lines", name=t("fig.simplex_edge"),
                 line=dict(color="rgba(128,128,128,0.9)", width=1.5), hoverinfo="skip")]
    moved = _plane(x - (x.sum() - 1) / 3)[0]
    if projection in points:
        target = _plane(points[projection])[0]
        data.append(dict(type="scatter", x=[moved[0], target[0]], y=[moved[1], target[1]], mode="lines",
                         name=t("fig.euclidean_projection"),
                         line=dict(color=mapping_color(projection), dash="dash", width=2), hoverinfo="skip"))
    data.append(dict(type="scatter", x=[moved[0]], y=[moved[1]], mode="markers", name=t("fig.logits_on_plane"),
                     marker=dict(symbol="star", size=16, color=ZERO_COLOR), cliponaxis=False,
                     hovertemplate="x - (Σx - 1)/3<extra></extra>"))
    for k, (name, p) in enumerate(points.items()):
        u, v = _plane(p)[0]
        data.append(dict(type="scatter", x=[u], y=[v], mode="markers", name=labels[name], cliponaxis=False,
                         marker=dict(size=max(8, 18 - 2 * k), color=mapping_color(name),
                                     symbol=_SYMBOLS[k % len(_SYMBOLS)]),
                         customdata=[list(p)], hovertemplate="p = (%{customdata[0]:.3f}, %{customdata[1]:.3f}, "
                                                             "%{customdata[2]:.3f})<extra>%{fullData.name}</extra>"))
    layout = _layout(t("fig.plane_u"), t("fig.plane_v"), t("fig.legend"), height=480)
    layout["yaxis"].update(scaleanchor="x", scaleratio=1)
    layout.update(title=dict(text=t("fig.projection_title")), annotations=[
        dict(x=u, y=v, text=f"e{i}", showarrow=False, yshift=12 if v > 0 else -12) for i, (u, v) in enumerate(tri[:3])])
    return Spec(dict(data=data, layout=layout))


def jacobian_pair(analytic: np.ndarray, autograd: np.ndarray | None, index: np.ndarray, title: str) -> go.Figure:
    """Heat maps of J[i, j] = dp_i/dx_j: the analytic one beside torch autograd's (one colour bar)."""
    panels = [(t("fig.analytic"), analytic)] + ([(t("fig.autograd"), autograd)] if autograd is not None else [])
    fig = plain_subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels], horizontal_spacing=0.16)
    bound = max(float(np.abs(analytic).max()), 1e-12)
    labels = [str(i) for i in index]
    for c, (name, matrix) in enumerate(panels, start=1):
        fig.add_heatmap(z=matrix, x=labels, y=labels, coloraxis="coloraxis", name=name,
                        hovertemplate="∂p_%{y}/∂x_%{x} = %{z:.4g}<extra>" + name + "</extra>", row=1, col=c)
        fig.update_xaxes(title_text=t("fig.jac_x"), type="category", row=1, col=c)
        fig.update_yaxes(title_text=t("fig.jac_y"), type="category", autorange="reversed", row=1, col=c)
    fig.update_layout(
        title=title, height=360 if len(index) <= 12 else 520, margin=dict(l=10, r=10, t=60, b=10),
        coloraxis=dict(colorscale="RdBu", cmin=-bound, cmax=bound, colorbar=dict(title=dict(text="∂p_i/∂x_j"))),
    )
    return fig


def _arrows(u: np.ndarray, v: np.ndarray, du: np.ndarray, dv: np.ndarray, length: float) -> tuple[list, list, list]:
    """Line segments (with None breaks) of arrows from (u, v) along (du, dv), scaled so the
    longest is ``length``; arrow heads sit on the end points."""
    norm = np.hypot(du, dv)
    scale = length / max(float(norm.max()), 1e-12)
    xs, ys, sizes = [], [], []
    for a, b, da, db in zip(u, v, du * scale, dv * scale):
        xs += [a, a + da, None]
        ys += [b, b + db, None]
        sizes += [0, 7 if np.hypot(da, db) > 1e-3 * length else 0, 0]
    return xs, ys, sizes


def loss_landscape(u: np.ndarray, v: np.ndarray, loss: np.ndarray, grad_u: np.ndarray, grad_v: np.ndarray,
                   point: tuple[float, float] | None, title: str, color: str, arrow_step: int = 6) -> go.Figure:
    """Contour map of a loss over the plane (u, v) = (x0 - x2, x1 - x2) with arrows along the
    descent step of (u, v), -(grad_u, grad_v) (loss_landscape_compute.loss_surface), and the current logits."""
    fig = PlainFigure()
    fig.add_contour(x=u, y=v, z=loss, colorscale="Viridis", name=t("fig.loss"), ncontours=24,
                    colorbar=dict(title=dict(text=t("fig.loss"))), line=dict(width=0.5),
                    hovertemplate="u = %{x:.2f}<br>v = %{y:.2f}<br>loss = %{z:.4g}<extra></extra>")
    uu, vv = np.meshgrid(u[::arrow_step], v[::arrow_step])
    gu, gv = grad_u[::arrow_step, ::arrow_step], grad_v[::arrow_step, ::arrow_step]
    xs, ys, sizes = _arrows(uu.ravel(), vv.ravel(), -gu.ravel(), -gv.ravel(), 0.9 * (u[arrow_step] - u[0]))
    fig.add_scatter(x=xs, y=ys, mode="lines+markers", name=t("fig.descent"), hoverinfo="skip", showlegend=False,
                    line=dict(color="rgba(255,255,255,0.85)", width=1.2),
                    marker=dict(symbol="arrow", angleref="previous", size=sizes, color="rgba(255,255,255,0.95)"))
    if point is not None:
        fig.add_scatter(x=[point[0]], y=[point[1]], mode="markers", name=t("fig.current_logits"), cliponaxis=False,
                        marker=dict(symbol="star", size=16, color=color, line=dict(width=1.5, color="white")))
    fig.update_xaxes(range=[u[0], u[-1]])
    fig.update_yaxes(range=[v[0], v[-1]], scaleanchor="x", scaleratio=1)
    fig.update_layout(title=title, legend=dict(orientation="h", y=-0.18))
    return _finish(fig, t("fig.plane_x02"), t("fig.plane_x12"), None, height=470)


def _add_curve(fig: go.Figure, x: np.ndarray, c: Curve, shape: str = "linear", **where) -> None:
    """One curve as a scatter trace (error bars where given)."""
    fig.add_scatter(x=np.asarray(x), y=np.asarray(c.y), mode=c.mode, name=c.label,
                    line=dict(color=c.color, dash=c.dash, width=2.2, shape=shape), marker=dict(color=c.color, size=7),
                    error_y=None if c.error is None else dict(type="data", array=np.asarray(c.error),
                                                             visible=True, color=c.color, thickness=1.2),
                    **where)


def line_chart(x: np.ndarray, curves: list[Curve], x_title: str, y_title: str, title: str | None = None,
               log_x: bool = False, legend_title: str | None = None, height: int | None = None,
               shape: str = "linear", log_y: bool = False) -> go.Figure:
    """Curves y(x), one trace per curve."""
    fig = PlainFigure()
    for c in curves:
        _add_curve(fig, x, c, shape)
    fig.update_xaxes(type="log" if log_x else None)
    fig.update_yaxes(type="log" if log_y else None)
    fig.update_layout(title=title)
    return _finish(fig, x_title, y_title, legend_title, height=height)


def panels(x: list[np.ndarray], panel_curves: list[list[Curve]], x_titles: list[str], y_titles: list[str],
           panel_titles: list[str], legend_title: str | None = None, log_x: bool = False,
           log_y: tuple[bool, ...] = (), title: str | None = None) -> go.Figure:
    """Side-by-side panels of curves; curves with the same label share one legend entry."""
    fig = plain_subplots(rows=1, cols=len(panel_curves), subplot_titles=panel_titles, horizontal_spacing=0.08)
    shown = set()
    for c, (xs, curves) in enumerate(zip(x, panel_curves), start=1):
        for curve in curves:
            _add_curve(fig, xs, curve, legendgroup=curve.label, showlegend=curve.label not in shown, row=1, col=c)
            shown.add(curve.label)
        fig.update_xaxes(title_text=x_titles[c - 1], type="log" if log_x else None, row=1, col=c)
        fig.update_yaxes(title_text=y_titles[c - 1], type="log" if c - 1 < len(log_y) and log_y[c - 1] else None,
                         row=1, col=c)
    fig.update_layout(title=title, showlegend=True, legend=dict(title=dict(text=legend_title), orientation="h", y=-0.22),
                      height=400, margin=dict(l=10, r=10, t=70 if title else 50, b=10), hoverlabel=dict(namelength=-1))
    return fig


def animated_bars(index: np.ndarray, logits: np.ndarray, frames: list[dict[str, np.ndarray]], values: np.ndarray,
                  value_name: str, labels: dict[str, str], start: int = 0, title: str | None = None) -> Spec:
    """Grouped bars of p per mapping, one Plotly frame per parameter value; the play button and
    the slider animate in the browser (no script rerun). A plain spec: it is rebuilt on every
    logit step, and frames carry only the new bar heights."""
    names = list(frames[0])
    offsets, w = _group_offsets(len(names))
    pos = np.arange(len(index), dtype=float)
    data = [dict(type="bar", x=pos + off, y=frames[start][name], width=w, name=labels[name],
                 marker=dict(color=mapping_color(name)), customdata=index,
                 hovertemplate="class %{customdata}<br>p = %{y:.4g}<extra>%{fullData.name}</extra>")
            for name, off in zip(names, offsets)]
    fmt = [f"{v:.3g}" for v in values]
    play = dict(frame=dict(duration=120, redraw=True), transition=dict(duration=0), fromcurrent=True, mode="immediate")
    layout = _layout(t("fig.class_axis"), t("fig.probability"), t("fig.mapping"), height=500)
    layout["xaxis"].update(_class_ticks(index, logits))
    layout["yaxis"].update(range=[0, 1])
    layout.update(
        updatemenus=[dict(type="buttons", direction="left", x=0, y=-0.32, xanchor="left", yanchor="top", showactive=False,
                          buttons=[dict(label="▶ " + t("fig.play"), method="animate", args=[None, play]),
                                   dict(label="■ " + t("fig.pause"), method="animate",
                                        args=[[None], dict(frame=dict(duration=0, redraw=False), mode="immediate")])])],
        sliders=[dict(active=start, x=0.2, len=0.8, y=-0.25, yanchor="top", currentvalue=dict(prefix=f"{value_name} = "),
                      steps=[dict(method="animate", label=s, args=[[s], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                                                              transition=dict(duration=0))])
                             for s in fmt])])
    if title is not None:
        layout["title"] = dict(text=title)
    return Spec(dict(data=data, layout=layout, frames=[
        dict(name=s, traces=list(range(len(names))), data=[dict(type="bar", y=f[name]) for name in names])
        for f, s in zip(frames, fmt)]))


def faded(color: str, k: int, m: int) -> str:
    """The k-th of m shades of a mapping colour (for several lines of one mapping)."""
    return with_alpha(color, 1.0 - 0.65 * k / max(m - 1, 1))


# ---------------------------------------------------------------- perturb page ----

NOISE_COLORS = {"gumbel": "#E377C2", "normal": "#6F8FCF", "uniform": "#3E9E7E", "logistic": "#D67F3A"}


def noise_color(noise: str) -> str:
    return NOISE_COLORS.get(noise, ZERO_COLOR)


class BarSeries(NamedTuple):
    """One set of bars or markers: its legend label, values and colour."""

    label: str
    y: np.ndarray
    color: str


def bars_and_markers(index: np.ndarray, logits: np.ndarray, bars: list[BarSeries], markers: list[BarSeries],
                     title: str, y_title: str, legend_title: str, symbol: str = "diamond") -> go.Figure:
    """Grouped bars over the classes ``index`` (logits[i] under each group) with, on the k-th bar of
    each group, a marker of ``markers[k]`` (an exact value over an estimate, or the reverse)."""
    offsets, w = _group_offsets(len(bars))
    pos = np.arange(len(index), dtype=float)
    size = float(np.clip(700 * w / max(len(index), 1), 7, 16))
    data = []
    for s, off in zip(bars, offsets):
        data.append(dict(type="bar", x=pos + off, y=np.asarray(s.y, dtype=np.float64), width=w, name=s.label,
                         marker=dict(color=with_alpha(s.color, 0.75)), customdata=index,
                         hovertemplate="class %{customdata}<br>%{y:.6g}<extra>%{fullData.name}</extra>"))
    for s, off in zip(markers, offsets):
        data.append(dict(type="scatter", x=pos + off, y=np.asarray(s.y, dtype=np.float64), mode="markers",
                         name=s.label, cliponaxis=False, customdata=index,
                         marker=dict(symbol=symbol, size=size, color=s.color, line=dict(width=2.5, color=s.color)),
                         hovertemplate="class %{customdata}<br>%{y:.6g}<extra>%{fullData.name}</extra>"))
    layout = _layout(t("fig.class_axis"), y_title, legend_title)
    layout["xaxis"].update(_class_ticks(index, logits))
    layout["yaxis"].update(rangemode="tozero")
    return _with_traces(PlainFigure(dict(layout, title=dict(text=title))), data)


def error_chart(ns: np.ndarray, curves: list[Curve], x_title: str, y_title: str, title: str,
                legend_title: str | None = None) -> go.Figure:
    """Errors against the sample count on log-log axes: lines with markers (a different symbol per
    curve, so coinciding curves stay visible); dashed curves are references, without markers.
    Errors below 1e-12 (an estimate equal to the exact value up to rounding) are left out: no log of 0."""
    fig = PlainFigure()
    for k, c in enumerate(curves):
        y = np.asarray(c.y, dtype=np.float64)
        reference = c.dash == "dash"
        fig.add_scatter(x=ns, y=np.where(y > 1e-12, y, np.nan), name=c.label,
                        mode="lines" if reference else "lines+markers",
                        line=dict(color=c.color, dash=c.dash, width=2.2),
                        marker=dict(size=8, color=c.color, symbol=_SYMBOLS[k % len(_SYMBOLS)]),
                        hovertemplate="N = %{x}<br>%{y:.4g}<extra>%{fullData.name}</extra>")
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(title=title)
    return _finish(fig, x_title, y_title, legend_title, height=400)


def sample_strips(index: np.ndarray, soft: np.ndarray, hard: np.ndarray, titles: tuple[str, str],
                  title: str) -> go.Figure:
    """Two heat maps side by side, rows = draw, columns = class: soft samples and their hard
    (one-hot) version, one colour bar on [0, 1]; values written in the cells when few."""
    fig = plain_subplots(rows=1, cols=2, subplot_titles=list(titles), horizontal_spacing=0.08)
    cols = [str(i) for i in index]
    rows = [f"#{r + 1}" for r in range(soft.shape[0])]
    write = len(index) <= 16
    for c, matrix in enumerate((soft, hard), start=1):
        z = np.asarray(matrix, dtype=np.float64)
        fig.add_heatmap(z=z, x=cols, y=rows, coloraxis="coloraxis", name=titles[c - 1],
                        text=np.vectorize(lambda v: f"{v:.2f}")(z) if write else None,
                        texttemplate="%{text}" if write else None,
                        hovertemplate="draw %{y}, class %{x}<br>y = %{z:.4g}<extra>" + titles[c - 1] + "</extra>",
                        row=1, col=c)
        fig.update_xaxes(title_text=t("fig.class_axis").split(" (")[0], type="category", row=1, col=c)
        fig.update_yaxes(title_text=t("perturb.draw_axis"), type="category", autorange="reversed", automargin=True,
                         row=1, col=c)
    fig.update_layout(title=title, height=140 + 34 * soft.shape[0], margin=dict(l=10, r=10, t=70, b=10),
                      coloraxis=dict(colorscale="Viridis", cmin=0, cmax=1, colorbar=dict(title=dict(text="yᵢ"))))
    return fig


def sharpness_curve(taus: np.ndarray, mean_max: np.ndarray, tau: float, n: int, title: str) -> go.Figure:
    """Mean largest entry of Gumbel-softmax samples against tau (log x), the limits 1 (one-hot,
    tau -> 0) and 1/n (uniform, tau -> inf), and the chosen tau."""
    color = mapping_color("gumbel_softmax")
    fig = PlainFigure()
    fig.add_scatter(x=taus, y=mean_max, mode="lines", name=t("perturb.mean_max"), line=dict(color=color, width=2.2),
                    hovertemplate="T = %{x:.3g}<br>%{y:.4f}<extra></extra>")
    for level, label in ((1.0, t("perturb.onehot_limit")), (1.0 / n, t("perturb.uniform_limit", n=n))):
        fig.add_scatter(x=[taus[0], taus[-1]], y=[level, level], mode="lines", name=label,
                        line=dict(color=ZERO_COLOR, dash="dot", width=1.5), hoverinfo="skip")
    k = int(np.argmin(np.abs(np.log(taus) - np.log(tau))))
    fig.add_scatter(x=[taus[k]], y=[mean_max[k]], mode="markers", name=t("perturb.chosen_tau", tau=f"{tau:g}"),
                    marker=dict(symbol="star", size=14, color=color), cliponaxis=False)
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 1.05])
    fig.update_layout(title=title)
    return _finish(fig, "T", t("perturb.mean_max_axis"), None, height=380)


# ---------------------------------------------------------------- margin page ----

CLASS_COLORS = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#B279A2", "#2CA6A4", "#9D755D", "#E377C2")
NO_MANS_LAND = "#8C8C8C"


def _class_colorscale(classes: int) -> list:
    """A discrete colour scale for z in {-1 (no-man's-land), 0, ..., C - 1} with cmin = -1.5 and
    cmax = C - 0.5: one flat band per value."""
    colors = [NO_MANS_LAND, *CLASS_COLORS[:classes]]
    m = len(colors)
    scale = []
    for i, color in enumerate(colors):
        scale += [[i / m, color], [(i + 1) / m, color]]
    return scale


def _margin_overlay(fig: go.Figure, centres: np.ndarray, point: np.ndarray, target: int, row: int, col: int,
                    legend: bool) -> None:
    """Unit circle, class centres w_j (numbered), the feature point with its ray from the origin."""
    a = np.linspace(0, 2 * np.pi, 181)
    fig.add_scatter(x=np.cos(a), y=np.sin(a), mode="lines", name=t("margin.fig_circle"), legendgroup="circle",
                    showlegend=legend, line=dict(color="#C8C8C8", width=1.2, dash="dot"), hoverinfo="skip",
                    row=row, col=col)
    fig.add_scatter(x=centres[:, 0], y=centres[:, 1], mode="markers+text", name=t("margin.fig_centres"),
                    legendgroup="centres", showlegend=legend, text=[str(j) for j in range(len(centres))],
                    textposition="middle center", textfont=dict(color="white", size=11),
                    marker=dict(size=20, color=list(CLASS_COLORS[:len(centres)]), line=dict(width=2, color="white")),
                    hovertemplate="w%{text} = (%{x:.3f}, %{y:.3f})<extra></extra>", cliponaxis=False, row=row, col=col)
    fig.add_scatter(x=[0, point[0]], y=[0, point[1]], mode="lines+markers", name=t("margin.fig_point", target=target),
                    legendgroup="point", showlegend=legend,
                    line=dict(color="#3A3A3A", width=2), marker=dict(symbol=["circle", "star"], size=[4, 18],
                                                                  color=CLASS_COLORS[target], line=dict(width=1.5, color="black")),
                    hovertemplate="x = (%{x:.3f}, %{y:.3f})<extra></extra>", cliponaxis=False, row=row, col=col)


def _square_axes(fig: go.Figure, grid: np.ndarray, cols: int) -> None:
    for c in range(1, cols + 1):
        fig.update_xaxes(range=[grid[0], grid[-1]], constrain="domain", row=1, col=c)
        fig.update_yaxes(range=[grid[0], grid[-1]], scaleanchor=f"x{c if c > 1 else ''}", scaleratio=1,
                         constrain="domain", row=1, col=c)


def margin_regions(grid: np.ndarray, plain: np.ndarray, strict: np.ndarray, centres: np.ndarray, point: np.ndarray,
                   target: int, margin: float) -> go.Figure:
    """Two maps of the plane of 2-D features: the class regions without margin (argmax cos) and
    with margin m (a point counts for class t only if cos theta_t - m >= max_{j != t} cos theta_j;
    grey elsewhere: no-man's-land). Arrays indexed [y, x] over grid x grid."""
    classes = len(centres)
    fig = plain_subplots(rows=1, cols=2, horizontal_spacing=0.06, subplot_titles=[
        t("margin.fig_plain"), t("margin.fig_strict", m=f"{margin:.2f}")])
    hover = "(%{x:.2f}, %{y:.2f})<br>" + t("margin.fig_region") + " %{z}<extra></extra>"
    for c, z in enumerate((plain, strict), start=1):
        fig.add_heatmap(x=grid.astype(np.float32), y=grid.astype(np.float32), z=z, coloraxis="coloraxis",
                        name=t("margin.fig_regions"), hovertemplate=hover, row=1, col=c)
        _margin_overlay(fig, centres, point, target, 1, c, legend=c == 1)
    _square_axes(fig, grid, 2)
    fig.update_layout(coloraxis=dict(
        colorscale=_class_colorscale(classes), cmin=-1.5, cmax=classes - 0.5,
        colorbar=dict(title=dict(text=t("margin.fig_regions")), tickvals=list(range(-1, classes)),
                      ticktext=[t("margin.fig_none")] + [t("margin.fig_class", j=j) for j in range(classes)])))
    _finish(fig, "x₁", "x₂", t("fig.legend"), height=480)
    fig.update_layout(legend=dict(orientation="h", y=-0.15))
    return fig


def margin_probability_map(grid: np.ndarray, p: np.ndarray, centres: np.ndarray, point: np.ndarray, target: int,
                           margin: float, scale: float) -> go.Figure:
    """Heat map of the AM-softmax probability p_t of class ``target`` for a feature labelled
    ``target`` at each point of the plane (indexed [y, x])."""
    fig = plain_subplots(rows=1, cols=1)
    fig.add_heatmap(x=grid.astype(np.float32), y=grid.astype(np.float32), z=p, colorscale="Viridis", zmin=0, zmax=1,
                    name=t("margin.fig_pt", target=target), colorbar=dict(title=dict(text=t("margin.fig_pt", target=target))),
                    hovertemplate="(%{x:.2f}, %{y:.2f})<br>p = %{z:.4f}<extra></extra>", row=1, col=1)
    _margin_overlay(fig, centres, point, target, 1, 1, legend=True)
    _square_axes(fig, grid, 1)
    fig.update_layout(title=t("margin.fig_pt_title", target=target, m=f"{margin:.2f}", s=f"{scale:g}"))
    _finish(fig, "x₁", "x₂", t("fig.legend"), height=480)
    fig.update_layout(legend=dict(orientation="h", y=-0.15))
    return fig


def margin_sweep(ms: np.ndarray, loss: np.ndarray, target_logit: np.ndarray, runner_logit: np.ndarray,
                 current: float, gap: float, target: int, runner: int) -> go.Figure:
    """Against the margin m: the AM-softmax loss of the feature (left), and its target logit
    s (cos_t - m) beside the largest other logit s cos_j (right); vertical lines at the chosen m
    and at m = cos_t - max_{j != t} cos_j, where the target stops winning."""
    fig = plain_subplots(rows=1, cols=2, horizontal_spacing=0.08,
                        subplot_titles=[t("margin.fig_loss_m"), t("margin.fig_logits_m")])
    am = mapping_color("am_softmax")
    fig.add_scatter(x=ms, y=loss, mode="lines", name=t("margin.fig_loss"), line=dict(color=am, width=2.5), row=1, col=1)
    fig.add_scatter(x=ms, y=target_logit, mode="lines", name=t("margin.fig_target_logit", target=target),
                    line=dict(color=CLASS_COLORS[target], width=2.5), row=1, col=2)
    fig.add_scatter(x=ms, y=runner_logit, mode="lines", name=t("margin.fig_runner_logit", j=runner),
                    line=dict(color=CLASS_COLORS[runner], width=2.5, dash="dash"), row=1, col=2)
    spans = [(float(np.min(loss)), float(np.max(loss))),
             (float(min(target_logit.min(), runner_logit.min())), float(max(target_logit.max(), runner_logit.max())))]
    lines = [(current, t("margin.fig_current_m"), ZERO_COLOR, "solid")]
    if ms[0] <= gap <= ms[-1]:
        lines.append((gap, t("margin.fig_gap_m"), "#E45756", "dot"))
    for c, (low, high) in enumerate(spans, start=1):
        for x, name, color, dash in lines:
            fig.add_scatter(x=[x, x], y=[low, high], mode="lines", name=name, legendgroup=name, showlegend=c == 1,
                            line=dict(color=color, width=1.5, dash=dash), hovertemplate=f"m = {x:.3f}<extra></extra>",
                            row=1, col=c)
    fig.update_xaxes(title_text=t("margin.fig_m_axis"))
    fig.update_yaxes(title_text=t("fig.loss"), row=1, col=1)
    fig.update_yaxes(title_text=t("margin.fig_logit_axis"), row=1, col=2)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.22, title=dict(text=t("fig.legend"))),
                      height=400, margin=dict(l=10, r=10, t=50, b=10), hoverlabel=dict(namelength=-1))
    return fig



# ---------------------------------------------------------------- vocab page ----

VOCAB_COLORS = {
    "uniform": "#E45756", "unigram": "#4C78A8", "exact": "#8C8C8C",
    "full": "#4C78A8", "hierarchical": "#54A24B", "sampled": "#F58518",
    "classes": "#4C78A8", "mass": "#F58518", "entropy": "#54A24B", "expected": "#E45756", "log2_n": "#8C8C8C",
    "max_length": "#B279A2",
}


def _tree_layout(nodes: np.ndarray, codes: np.ndarray, lengths: np.ndarray):
    """Positions of a binary code tree: leaves left to right in code order (x = 0, 1, ...),
    an internal node above the middle of its children, y = -depth. Returns (internal (n-1, 2),
    leaves (n, 2), edges [(parent xy, child xy, bit)])."""
    n = len(lengths)
    children: dict[int, dict[int, tuple[str, int]]] = {}
    for i in range(n):
        path, bits = nodes[i, : lengths[i]], codes[i, : lengths[i]]
        for k, (v, bit) in enumerate(zip(path, bits)):
            child = ("node", int(path[k + 1])) if k + 1 < lengths[i] else ("leaf", i)
            children.setdefault(int(v), {})[int(bit)] = child
    internal, leaves = np.zeros((max(n - 1, 0), 2)), np.zeros((n, 2))
    edges = []
    order = [0]

    def place(kind: str, idx: int, depth: int) -> tuple[float, float]:
        if kind == "leaf":
            leaves[idx] = (order[0], -depth)
            order[0] += 1
            return tuple(leaves[idx])
        xy = [place(*children[idx][bit], depth + 1) for bit in (0, 1)]
        internal[idx] = ((xy[0][0] + xy[1][0]) / 2, -depth)
        for bit in (0, 1):
            edges.append((tuple(internal[idx]), xy[bit], bit))
        return tuple(internal[idx])

    if n == 1:
        leaves[0] = (0, 0)
    else:
        place("node", 0, 0)
    return internal, leaves, edges


def vocab_tree(nodes: np.ndarray, codes: np.ndarray, lengths: np.ndarray, p: np.ndarray, freqs: np.ndarray,
               title: str) -> go.Figure:
    """The Huffman tree: internal nodes (one sigmoid each), leaves = classes coloured by their
    hierarchical-softmax probability, edges labelled with the code bit (0 = left, 1 = right)."""
    internal, leaves, edges = _tree_layout(nodes, codes, lengths)
    fig = PlainFigure()
    xs, ys = [], []
    for (x0, y0), (x1, y1), _ in edges:
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    fig.add_scatter(x=xs, y=ys, mode="lines", name=t("vocab.fig_edge"), line=dict(color=VOCAB_COLORS["exact"], width=1.2),
                    hoverinfo="skip")
    mid = np.array([((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b, _ in edges]).reshape(-1, 2)
    fig.add_scatter(x=mid[:, 0], y=mid[:, 1], mode="text", text=[str(bit) for *_, bit in edges], showlegend=False,
                    name=t("vocab.fig_bit"), hoverinfo="skip", textfont=dict(color=VOCAB_COLORS["exact"]))
    fig.add_scatter(x=internal[:, 0], y=internal[:, 1], mode="markers", name=t("vocab.fig_internal"),
                    marker=dict(symbol="circle", size=10, color=VOCAB_COLORS["exact"]),
                    customdata=np.arange(len(internal)), hovertemplate="node %{customdata}<extra></extra>")
    code_text = ["".join(map(str, codes[i, : lengths[i]])) for i in range(len(lengths))]
    fig.add_scatter(x=leaves[:, 0], y=leaves[:, 1], mode="markers+text", name=t("vocab.fig_leaf"),
                    text=[str(i) for i in range(len(lengths))], textposition="bottom center",
                    marker=dict(symbol="square", size=14, color=p, colorscale="Viridis", cmin=0,
                                colorbar=dict(title=dict(text=t("vocab.fig_hs_p")))),
                    customdata=np.stack([np.arange(len(lengths)), freqs, p], axis=1), hovertext=code_text,
                    hovertemplate="class %{customdata[0]}<br>code %{hovertext}<br>freq %{customdata[1]:.4g}"
                                  "<br>p_HS %{customdata[2]:.4g}<extra></extra>")
    fig.update_xaxes(showticklabels=False, zeroline=False, showgrid=False)
    fig.update_yaxes(zeroline=False, dtick=1)
    fig.update_layout(title=title)
    _finish(fig, t("vocab.fig_leaf_order"), t("vocab.fig_depth"), None, height=460)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.15, xanchor="left", x=0))
    return fig


def vocab_code_lengths(lengths: np.ndarray, freqs: np.ndarray, entropy: float, expected: float, log2_n: float,
                       title: str) -> go.Figure:
    """Share of classes and share of frequency mass at each code length, with the entropy H, the
    expected length E[len] (H <= E[len] < H + 1) and log2 n (a balanced tree) as vertical lines."""
    p = freqs / freqs.sum()
    ls = np.arange(1, int(lengths.max()) + 1)
    classes = np.array([(lengths == k).mean() for k in ls])
    mass = np.array([p[lengths == k].sum() for k in ls])
    fig = PlainFigure()
    fig.add_bar(x=ls, y=classes, name=t("vocab.fig_share_classes"), marker_color=VOCAB_COLORS["classes"],
                hovertemplate="len %{x}: %{y:.3f}<extra>%{fullData.name}</extra>")
    fig.add_bar(x=ls, y=mass, name=t("vocab.fig_share_mass"), marker_color=VOCAB_COLORS["mass"],
                hovertemplate="len %{x}: %{y:.3f}<extra>%{fullData.name}</extra>")
    top = float(max(classes.max(), mass.max())) * 1.08
    for key, value, dash in (("entropy", entropy, "dot"), ("expected", expected, "solid"), ("log2_n", log2_n, "dash")):
        fig.add_scatter(x=[value, value], y=[0, top], mode="lines", name=t(f"vocab.fig_{key}", value=value),
                        line=dict(color=VOCAB_COLORS[key], dash=dash, width=2.5), hoverinfo="name")
    fig.update_layout(title=title, barmode="group")
    return _finish(fig, t("vocab.fig_code_length"), t("vocab.fig_share"), None)


def vocab_bound(ns: np.ndarray, entropy: np.ndarray, expected: np.ndarray, log2_n: np.ndarray,
                max_length: np.ndarray, title: str) -> go.Figure:
    """Expected Huffman path length against n, between the entropy H and H + 1, beside log2 n
    (a balanced tree, or the uniform distribution) and the longest path."""
    c = VOCAB_COLORS
    series = [Curve(t("vocab.fig_expected_n"), expected, c["expected"], mode="lines+markers"),
              Curve(t("vocab.fig_entropy_n"), entropy, c["entropy"], "dot", "lines"),
              Curve(t("vocab.fig_entropy_1"), entropy + 1, c["entropy"], "dash", "lines"),
              Curve(t("vocab.fig_log2_n_curve"), log2_n, c["log2_n"], "dash", "lines"),
              Curve(t("vocab.fig_max_length"), max_length, c["max_length"], "dot", "lines+markers")]
    return line_chart(ns, series, t("vocab.fig_n"), t("vocab.fig_bits"), title, log_x=True)


def vocab_log_z(ms: np.ndarray, stats: dict[str, dict[str, np.ndarray]], log_z: float, labels: dict[str, str],
                title: str) -> go.Figure:
    """Mean of log Z_hat ± one standard deviation over the repeats, per proposal, against m, and the exact log Z."""
    series = [Curve(labels[q], s["log_z"] + s["log_z_bias"], VOCAB_COLORS[q], mode="lines+markers", error=np.sqrt(s["log_z_var"]))
              for q, s in stats.items()]
    series.append(Curve(t("vocab.fig_exact_log_z", value=log_z), np.full(len(ms), log_z), VOCAB_COLORS["exact"],
                         "dash", "lines"))
    return line_chart(ms, series, t("vocab.fig_m"), t("vocab.fig_log_z"), title, log_x=True, legend_title=t("vocab.fig_proposal"))


def vocab_bias_variance(ms: np.ndarray, stats: dict[str, dict[str, np.ndarray]], chi2: dict[str, float],
                        repeats: int, labels: dict[str, str], title: str) -> go.Figure:
    """Left: bias mean(log Z_hat) - log Z (± 2 standard errors) and the large-m approximation
    -chi^2 / (2m), drawn where chi^2 / m <= 1. Right: Var[Z_hat / Z] measured and its exact value chi^2 / m."""
    bias, var = [], []
    for q, s in stats.items():
        theory = chi2[q] / ms
        bias.append(Curve(labels[q], s["log_z_bias"], VOCAB_COLORS[q], mode="lines+markers", error=2 * np.sqrt(s["log_z_var"] / repeats)))
        bias.append(Curve(t("vocab.fig_bias_theory", q=labels[q]), np.where(theory <= 1, -theory / 2, np.nan),
                           VOCAB_COLORS[q], "dash", "lines"))
        var.append(Curve(labels[q], s["ratio_var"], VOCAB_COLORS[q], mode="markers"))
        var.append(Curve(t("vocab.fig_var_theory", q=labels[q]), theory, VOCAB_COLORS[q], "dash", "lines"))
    return panels([ms, ms], [bias, var], [t("vocab.fig_m")] * 2, [t("vocab.fig_bias"), t("vocab.fig_var")],
                  [t("vocab.fig_bias_title"), t("vocab.fig_var_title")], log_x=True, log_y=(False, True), title=title,
                  legend_title=t("vocab.fig_proposal"))


def vocab_grad_error(ms: np.ndarray, stats: dict[str, dict[str, np.ndarray]], labels: dict[str, str],
                     title: str) -> go.Figure:
    """Mean total-variation distance between the self-normalised gradient estimate and softmax(x)."""
    series = [Curve(labels[q], s["grad_tv"], VOCAB_COLORS[q], mode="lines+markers") for q, s in stats.items()]
    return line_chart(ms, series, t("vocab.fig_m"), t("vocab.fig_grad_tv"), title, log_x=True, log_y=True,
                    legend_title=t("vocab.fig_proposal"))


def vocab_nce(ks: np.ndarray, nce: dict, title: str) -> go.Figure:
    """Left: NCE loss against k (mean ± sd over draws, its exact expectation, the large-k limit
    CE + log(k q_t) + 1). Right: relative L1 error of the NCE gradient against the softmax
    cross-entropy gradient p - onehot(t), for one draw and for the exact expectation."""
    c = VOCAB_COLORS
    loss = [Curve(t("vocab.fig_nce_sampled"), nce["loss_mean"], c["unigram"], "solid", "markers", nce["loss_sd"]),
            Curve(t("vocab.fig_nce_exact"), nce["loss_exact"], c["unigram"], "solid", "lines"),
            Curve(t("vocab.fig_nce_limit"), nce["loss_limit"], c["expected"], "dash", "lines"),
            Curve(t("vocab.fig_ce", value=nce["ce"]), np.full(len(ks), nce["ce"]), c["exact"], "dot", "lines")]
    grad = [Curve(t("vocab.fig_nce_grad_draw"), nce["grad_err_draw"], c["unigram"], "solid", "lines+markers"),
            Curve(t("vocab.fig_nce_grad_exact"), nce["grad_err_exact"], c["expected"], "dash", "lines+markers")]
    return panels([ks, ks], [loss, grad], [t("vocab.fig_k")] * 2, [t("vocab.fig_loss"), t("vocab.fig_grad_rel")],
                  [t("vocab.fig_nce_loss_title"), t("vocab.fig_nce_grad_title")], log_x=True, log_y=(False, True),
                  title=title)


def vocab_costs(ns: np.ndarray, seconds: dict[str, np.ndarray], labels: dict[str, str], title: str) -> go.Figure:
    """Measured wall time of one loss against n, log-log, per method."""
    series = [Curve(labels[meth], 1e3 * y, VOCAB_COLORS[meth], mode="lines+markers") for meth, y in seconds.items()]
    return line_chart(ns, series, t("vocab.fig_n"), t("vocab.fig_ms"), title, log_x=True, log_y=True,
                    legend_title=t("vocab.fig_method"))


# ---------------------------------------------------------------- attention page ----

def _weight_cells(z: np.ndarray) -> np.ndarray:
    """Cell texts of a weight heat map: blank at an exact zero (a × marks it), '<0.01' for a
    tiny positive weight, else two decimals."""
    return np.vectorize(lambda v: "" if v == 0 else ("<0.01" if v < 0.005 else f"{v:.2f}"))(z)


def _zero_marks(z: np.ndarray, size: float) -> dict | None:
    """A scatter of × markers on the exact zeros of heat map z (cells at integer positions)."""
    rows, cols = np.nonzero(z == 0)
    if not len(rows):
        return None
    return dict(type="scatter", x=cols.astype(float), y=rows.astype(float), mode="markers", name=t("fig.exact_zero"),
                legendgroup="zero", marker=dict(symbol=ZERO_SYMBOL, size=size, color=ZERO_COLOR,
                                                line=dict(width=2.5, color=ZERO_COLOR)),
                hovertemplate="w = 0 (exact)<extra></extra>")


def weight_heatmap(weights: np.ndarray, row_labels: list[str], col_labels: list[str], title: str,
                   x_title: str, y_title: str) -> go.Figure:
    """Heat map of attention weights (rows = mapping or query, columns = key position), one colour
    bar on [0, 1]; an exact zero is an empty cell with a grey × (legend), a tiny positive weight
    reads '<0.01'."""
    z = np.asarray(weights, dtype=np.float64)
    rows, cols = z.shape
    fig = PlainFigure()
    fig.add_heatmap(z=z, x=np.arange(cols), y=np.arange(rows), zmin=0, zmax=1, colorscale="Viridis",
                    text=_weight_cells(z) if cols <= 24 else None, texttemplate="%{text}" if cols <= 24 else None,
                    colorbar=dict(title=dict(text="wⱼ")), name=t("attention.weight"), showlegend=False,
                    customdata=np.array([[f"{r}" for _ in range(cols)] for r in row_labels]),
                    hovertemplate="%{customdata}<br>key %{x}: w = %{z:.6g}<extra></extra>")
    marks = _zero_marks(z, float(np.clip(260 / max(cols, rows), 8, 22)))
    if marks:
        fig.add_trace(marks)
    fig.update_xaxes(tickmode="array", tickvals=list(range(cols)), ticktext=col_labels, showgrid=False, zeroline=False)
    fig.update_yaxes(tickmode="array", tickvals=list(range(rows)), ticktext=row_labels, autorange="reversed",
                     showgrid=False, zeroline=False, automargin=True)
    fig.update_layout(title=title, legend=dict(orientation="h", y=-0.2, x=0))
    return _finish(fig, x_title, y_title, None, height=130 + 48 * rows)


def weight_heatmaps(panels: dict[str, np.ndarray], col_labels: list[str], row_labels: list[str], title: str,
                    x_title: str, y_title: str, cols: int = 2) -> go.Figure:
    """One weight heat map per mapping (rows = query, columns = key), one colour bar on [0, 1],
    exact zeros marked by a grey × (one legend entry)."""
    names = list(panels)
    rows_n = -(-len(names) // cols)
    height = 80 + rows_n * (150 + 40 * len(row_labels))
    fig = plain_subplots(rows=rows_n, cols=cols, subplot_titles=names, horizontal_spacing=0.1,
                        vertical_spacing=min(0.5, 110 / height) if rows_n > 1 else 0.0)
    shown = False
    for k, name in enumerate(names):
        z = np.asarray(panels[name], dtype=np.float64)
        r, c = k // cols + 1, k % cols + 1
        fig.add_heatmap(z=z, x=np.arange(z.shape[1]), y=np.arange(z.shape[0]), coloraxis="coloraxis", name=name,
                        text=_weight_cells(z), texttemplate="%{text}",
                        hovertemplate="query %{y}, key %{x}: w = %{z:.6g}<extra>" + name + "</extra>", row=r, col=c)
        marks = _zero_marks(z, float(np.clip(200 / max(z.shape), 7, 18)))
        if marks:
            marks["showlegend"] = not shown
            shown = True
            fig.add_trace(marks, row=r, col=c)
        fig.update_xaxes(title_text=x_title, tickmode="array", tickvals=list(range(z.shape[1])), ticktext=col_labels,
                         showgrid=False, zeroline=False, row=r, col=c)
        fig.update_yaxes(title_text=y_title, tickmode="array", tickvals=list(range(z.shape[0])), ticktext=row_labels,
                         autorange="reversed", showgrid=False, zeroline=False, automargin=True, row=r, col=c)
    fig.update_layout(title=title, height=height,
                      margin=dict(l=10, r=10, t=70, b=10), showlegend=True,
                      legend=dict(orientation="h", yanchor="top", y=-60 / height, x=0),
                      coloraxis=dict(colorscale="Viridis", cmin=0, cmax=1, colorbar=dict(title=dict(text="wⱼ"))))
    return fig


def grouped_bars(categories: list[str], series: list[BarSeries], x_title: str, y_title: str, title: str,
                 legend_title: str | None = None) -> go.Figure:
    """Bars of each series grouped over categories (e.g. output coordinates per mapping)."""
    fig = PlainFigure()
    for s in series:
        fig.add_bar(x=categories, y=np.asarray(s.y, dtype=np.float64), name=s.label, marker_color=s.color,
                    hovertemplate="%{x}: %{y:.4g}<extra>%{fullData.name}</extra>")
    fig.update_layout(title=title, barmode="group")
    fig.update_xaxes(type="category")
    return _finish(fig, x_title, y_title, legend_title, height=360)


# ---------------------------------------------------------------- check page ----

CHECK_USER_COLOR = "#8C8C8C"
CHECK_BAD_COLOR = "#D62728"
CHECK_BAD_ALT = "#7B3FE4"  # when the mapping's own colour is a red


def _bad_color(color: str) -> str:
    """The highlight of differing entries: red, or violet next to a red mapping colour."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return CHECK_BAD_ALT if r > 1.6 * max(g, b) else CHECK_BAD_COLOR


def check_row_bars(index: np.ndarray, reference: np.ndarray, user: np.ndarray, differing: np.ndarray,
                   color: str, reference_label: str, title: str) -> go.Figure:
    """Reference p (mapping colour) beside the user's p (grey) for the entries ``index`` of one
    row; entries outside the tolerance get a hatched user bar and a red marker above the pair,
    nan / inf user entries a red cross on the axis (hover gives every value and the error)."""
    pos = np.arange(len(index), dtype=float)
    ref, usr, bad = reference[index], user[index], differing[index]
    hi = _bad_color(color)
    finite = np.isfinite(usr)
    with np.errstate(invalid="ignore"):
        err = np.abs(usr - ref)
    offsets, w = _group_offsets(2)
    top = float(np.nanmax(np.concatenate([ref, np.where(finite, usr, np.nan), [1e-12]])))
    low = float(min(0.0, np.nanmin(np.where(finite, usr, 0.0))))
    text = [f"{v:.6g}" for v in usr]
    data = [
        dict(type="bar", x=pos + offsets[0], y=ref, width=w, name=reference_label, marker=dict(color=color),
             customdata=index, hovertemplate="entry %{customdata}<br>reference p = %{y:.8g}<extra></extra>"),
        dict(type="bar", x=pos + offsets[1], y=np.where(finite, usr, np.nan), width=w, name=t("check.fig_yours"),
             marker=dict(color=CHECK_USER_COLOR, line=dict(color=np.where(bad, hi, CHECK_USER_COLOR).tolist(),
                                                            width=np.where(bad, 2.5, 0.5).tolist()),
                         pattern=dict(shape=np.where(bad, "x", "").tolist(), fgcolor=hi)),
             customdata=np.stack([index, err], axis=1), hovertext=text,
             hovertemplate="entry %{customdata[0]}<br>your p = %{hovertext}<br>|error| = %{customdata[1]:.3g}"
                           "<extra></extra>"),
    ]
    if bad.any():
        data.append(dict(type="scatter", x=pos[bad], y=np.full(int(bad.sum()), 1.06 * top), mode="markers",
                         name=t("check.fig_differs"), cliponaxis=False, customdata=index[bad],
                         marker=dict(symbol="triangle-down", size=11, color=hi),
                         hovertemplate="entry %{customdata} differs<extra></extra>"))
    if (~finite).any():
        data.append(dict(type="scatter", x=(pos + offsets[1])[~finite], y=np.zeros(int((~finite).sum())), mode="markers",
                         name=t("check.fig_nonfinite"), cliponaxis=False, customdata=index[~finite],
                         hovertext=[text[i] for i in np.flatnonzero(~finite)],
                         marker=dict(symbol="x-thin-open", size=12, color=hi, line=dict(width=2.5, color=hi)),
                         hovertemplate="entry %{customdata}: your p = %{hovertext}<extra></extra>"))
    layout = _layout(t("check.fig_entry"), t("fig.probability"), None)
    layout["xaxis"].update(tickmode="array", tickvals=pos.tolist(), ticktext=[str(i) for i in index])
    layout["yaxis"].update(range=[low * 1.1, 1.12 * top])
    return _with_traces(PlainFigure(dict(layout, title=dict(text=title))), data)
