"""The Plotly figure builders several pages share (a page's own are in views/<page>/figures.py).

Builders take plain numpy arrays (already computed) and return a figure
with axis titles, a legend (a colour bar for heat maps) and the mapping colours and second cues
(dash, marker, bar pattern) of ``explorer.drawing.colors``, written as Plotly's JSON (explorer/drawing/plain_figure.py: a ``go.Figure``
for st.plotly_chart, but no Plotly object is built and validated on a step). They set no
background or font colours: ``st.plotly_chart(theme="streamlit")`` styles them for the light and the
dark theme, and :func:`with_text_color` (called by ``ui.show_figure``) gives every chart text the
session's theme colour of :data:`TEXT_COLORS` (Streamlit's own grey ticks were 3.7:1).
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.colors import bar_pattern, mapping_color, mapping_cue, plotly_dash, with_alpha
from explorer.drawing import speak
from explorer.drawing.plain_figure import PlainFigure, Spec, plain_subplots
from explorer.i18n import t

ZERO_SYMBOL = "x-thin-open"
UNDERFLOW_SYMBOL = "circle-open"  # a p > 0 that float64 rounds to 0
ZERO_COLOR = "#8C8C8C"
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "pentagon", "hexagon", "star", "cross", "triangle-down")
# chart text (ticks, titles, legend, annotations) per theme: >= 4.5:1 on its background (tests/test_a11y.py)
TEXT_COLORS = {"light": "#3C3E4A", "dark": "#E6E7EB"}
MARKERS_SHOWN = 12


def with_traces(fig: PlainFigure, data: list[dict]) -> PlainFigure:
    for trace in data:
        fig.add_trace(trace)
    return fig


class Curve(NamedTuple):
    """One trace of a line chart: its legend label, y values, colour, dash, mode ("lines",
    "markers" or both), optional symmetric error bars and marker symbol."""

    label: str
    y: np.ndarray
    color: str
    dash: str = "solid"
    mode: str = "lines"
    error: np.ndarray | None = None
    symbol: str | None = None


def mapping_curve(name: str, label: str, y: np.ndarray, mode: str = "lines") -> Curve:
    """The curve of mapping ``name``: its colour, its dash and its marker (colors.mapping_cue), the
    same on every page."""
    return Curve(label, y, mapping_color(name), plotly_dash(name), mode, symbol=mapping_cue(name)["marker"])


def base_layout(
    x_title: str | None, y_title: str | None, legend_title: str | None = None, height: int | None = None
) -> dict:
    """The common layout: legend (with a title), margins, full trace names on hover, axis titles
    (None: no cartesian axes, as in ternary plots)."""
    layout = dict(
        showlegend=True,
        legend=dict(title=dict(text=legend_title)),
        margin=dict(l=10, r=10, t=50, b=10),
        height=height,
        hoverlabel=dict(namelength=-1),
    )
    if x_title is not None:
        layout.update(xaxis=dict(title=dict(text=x_title)), yaxis=dict(title=dict(text=y_title)))
    return layout


def finish(
    fig: go.Figure, x_title: str | None, y_title: str | None, legend_title: str | None = None, height: int | None = None
) -> go.Figure:
    """Applies :func:`base_layout` to a figure (on every cartesian axis of a subplot grid)."""
    layout = base_layout(None, None, legend_title, height)
    fig.update_layout(**layout)
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
        fig.update_yaxes(title_text=y_title)
    return fig


PROJECTOR_FONT = 22
PROJECTOR_LINE = 5.0
PROJECTOR_MARKER = 1.8  # marker size factor


def for_projector(fig: go.Figure) -> go.Figure:
    """Presentation mode: large fonts, thick lines and big markers on any figure (in place; a
    :class:`Spec` becomes a validated figure first)."""
    if isinstance(fig, Spec):
        fig = go.Figure(fig.to_dict())
    fig.update_layout(
        font=dict(size=PROJECTOR_FONT),
        title_font_size=PROJECTOR_FONT + 4,
        legend_font_size=PROJECTOR_FONT,
        legend_title_font_size=PROJECTOR_FONT,
        hoverlabel_font_size=PROJECTOR_FONT,
        height=int((fig.layout.height or 450) * 1.3),
    )
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


def _recolor(part: dict | None, color: str, *paths: str) -> dict:
    """A copy of layout part ``part`` whose fonts at ``paths`` ("tickfont", "title.font", ...) take ``color``."""
    out = dict(part or {})
    for path in paths:
        *heads, last = path.split(".")
        node = out
        for head in heads:
            child = node.get(head)
            node[head] = dict(child) if isinstance(child, dict) else ({"text": child} if isinstance(child, str) else {})
            node = node[head]
        node[last] = {**(node.get(last) or {}), "color": color}
    return out


def with_text_color(fig: go.Figure, theme: str | None) -> go.Figure:
    """A copy of ``fig`` whose text (title, axes' ticks and titles, legend, colour bars, annotations
    without a colour of their own) is drawn in ``TEXT_COLORS[theme]`` (light when unknown); the
    figure's data is shared, not copied."""
    color = TEXT_COLORS.get(theme or "light", TEXT_COLORS["light"])
    spec = getattr(fig, "_spec", None)
    spec = spec if isinstance(spec, dict) else fig.to_dict()
    layout = dict(spec.get("layout") or {})
    layout["font"] = {**(layout.get("font") or {}), "color": color}
    layout = _recolor(layout, color, "title.font", "legend.font", "legend.title.font")
    axes = [k for k in layout if k.startswith(("xaxis", "yaxis"))] or (
        [] if any(k.startswith("ternary") for k in layout) else ["xaxis", "yaxis"]
    )
    for key in axes:
        layout[key] = _recolor(layout.get(key), color, "tickfont", "title.font")
    for key in [k for k in layout if k.startswith("ternary")]:
        layout[key] = _recolor(
            layout[key], color, *(f"{a}axis.{part}" for a in "abc" for part in ("tickfont", "title.font"))
        )
    if "coloraxis" in layout:
        layout["coloraxis"] = _recolor(layout["coloraxis"], color, "colorbar.tickfont", "colorbar.title.font")
    if layout.get("annotations"):
        layout["annotations"] = [
            note if (note.get("font") or {}).get("color") else _recolor(note, color, "font")
            for note in layout["annotations"]
        ]
    data = [
        _recolor(trace, color, "colorbar.tickfont", "colorbar.title.font")
        if trace.get("type") in ("heatmap", "contour") or "colorbar" in trace
        else trace
        for trace in spec.get("data", [])
    ]
    themed = Spec({**spec, "data": data, "layout": layout})
    summary = getattr(fig, speak.SUMMARY_ATTR, None) if speak.SUMMARY_ATTR in fig.__dict__ else None
    return speak.attach(themed, summary) if summary else themed


def group_offsets(m: int, width: float = 0.84) -> tuple[np.ndarray, float]:
    """x offsets of m bars grouped around each category, and the bar width."""
    w = width / max(m, 1)
    return (np.arange(m) - (m - 1) / 2) * w, w


def class_ticks(index: np.ndarray, logits: np.ndarray) -> dict:
    text = [f"{i}<br>{x:.3g}" for i, x in zip(index, logits)]
    return dict(tickmode="array", tickvals=list(range(len(index))), ticktext=text)


def _margin_for_legend(names: list[str]) -> dict:
    """Margins that already hold the class ticks, the axis titles and a vertical legend of
    ``names``: Plotly widens a margin that is too small only after drawing the figure, and then
    draws it all again. A generous estimate (a wide character counts twice); a larger font, as in
    presentation mode, still widens them."""
    chars = max(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in name) for name in names)
    return dict(l=84, r=75 + 6 * chars, t=50, b=88)


def probability_bars(
    index: np.ndarray,
    logits: np.ndarray,
    probs: dict[str, np.ndarray],
    labels: dict[str, str],
    log_y: bool = False,
    title: str | None = None,
    underflow: dict[str, np.ndarray] | None = None,
) -> go.Figure:
    """Grouped bars p_i per mapping over the classes ``index`` (logits[i] under each group).

    Exact zeros get a cross on the axis, so a 0 never looks like a tiny positive value (hover
    shows the value in full); a 0 that ``underflow[name]`` marks (> 0 exactly, rounded to 0:
    compute.underflows) gets an open circle instead. Built as one dict (the slider hot path: no
    incremental updates)."""
    offsets, w = group_offsets(len(probs))
    pos = np.arange(len(index), dtype=float)
    positive = np.concatenate([p[p > 0] for p in probs.values()] or [np.ones(1)])
    floor = max(float(positive.min()) / 3, 1e-16) if log_y else 0.0
    size = float(np.clip(800 * w / max(len(index), 1), 6, 14))
    data = []
    for (name, p), off in zip(probs.items(), offsets):
        color = mapping_color(name)
        under = np.zeros(len(p), dtype=bool) if underflow is None or name not in underflow else underflow[name]
        zero = (p == 0) & ~under
        data.append(
            dict(
                type="bar",
                x=pos + off,
                y=np.where(zero, np.nan, p),
                width=w,
                name=labels[name],
                legendgroup=name,
                marker=dict(color=color, pattern=bar_pattern(name)),
                customdata=index,
                hovertemplate="class %{customdata}<br>p = %{y:.6g}<extra>%{fullData.name}</extra>",
            )
        )
        if zero.any():
            data.append(
                dict(
                    type="scatter",
                    x=(pos + off)[zero],
                    y=np.full(int(zero.sum()), floor),
                    mode="markers",
                    marker=dict(symbol=ZERO_SYMBOL, size=size, color=color, line=dict(width=2, color=color)),
                    name=labels[name],
                    legendgroup=name,
                    showlegend=False,
                    cliponaxis=False,
                    customdata=index[zero],
                    hovertemplate="class %{customdata}<br>p = 0 (exact)<extra>%{fullData.name}</extra>",
                )
            )
        if under.any():
            data.append(
                dict(
                    type="scatter",
                    x=(pos + off)[under],
                    y=np.full(int(under.sum()), floor),
                    mode="markers",
                    marker=dict(symbol=UNDERFLOW_SYMBOL, size=size, color=color, line=dict(width=2, color=color)),
                    name=labels[name],
                    legendgroup=name,
                    showlegend=False,
                    cliponaxis=False,
                    customdata=index[under],
                    hovertemplate="class %{customdata}<br>"
                    + t("fig.underflow_hover")
                    + "<extra>%{fullData.name}</extra>",
                )
            )
    for symbol, key in ((ZERO_SYMBOL, "fig.exact_zero"), (UNDERFLOW_SYMBOL, "fig.underflow")):  # legend keys
        if any(d["type"] == "scatter" and d["marker"]["symbol"] == symbol for d in data):
            data.append(
                dict(
                    type="scatter",
                    x=[None],
                    y=[None],
                    mode="markers",
                    name=t(key),
                    marker=dict(symbol=symbol, size=10, color=ZERO_COLOR, line=dict(width=2, color=ZERO_COLOR)),
                )
            )
    yaxis = (
        dict(type="log", range=[np.log10(floor) - 0.2, 0.05])
        if log_y
        else dict(range=[0, 1.02 * max(1e-9, float(positive.max()))])
    )
    layout = base_layout(t("fig.class_axis"), t("fig.probability"), t("fig.mapping"))
    layout["margin"] = _margin_for_legend([t("fig.mapping"), *(d["name"] for d in data if d.get("showlegend", True))])
    layout["xaxis"].update(class_ticks(index, logits))
    layout["yaxis"].update(yaxis)
    summary = "; ".join(f"{labels[name]}: p = {speak.values_text(p)}{speak.zeros_text(p)}" for name, p in probs.items())
    return speak.attach(Spec(dict(data=data, layout=dict(layout, title=dict(text=title)))), summary)


def _add_curve(fig: go.Figure, x: np.ndarray, c: Curve, shape: str = "linear", **where) -> None:
    """One curve as a scatter trace (error bars where given)."""
    marker = dict(color=c.color, size=7)
    if c.symbol is not None:  # a mapping's marker, on at most MARKERS_SHOWN points of a long curve
        marker.update(symbol=c.symbol, maxdisplayed=MARKERS_SHOWN)
    fig.add_scatter(
        x=np.asarray(x),
        y=np.asarray(c.y),
        mode=c.mode,
        name=c.label,
        line=dict(color=c.color, dash=c.dash, width=2.2, shape=shape),
        marker=marker,
        error_y=None
        if c.error is None
        else dict(type="data", array=np.asarray(c.error), visible=True, color=c.color, thickness=1.2),
        **where,
    )


def line_chart(
    x: np.ndarray,
    curves: list[Curve],
    x_title: str,
    y_title: str,
    title: str | None = None,
    log_x: bool = False,
    legend_title: str | None = None,
    height: int | None = None,
    shape: str = "linear",
    log_y: bool = False,
) -> go.Figure:
    """Curves y(x), one trace per curve."""
    fig = PlainFigure()
    for c in curves:
        _add_curve(fig, x, c, shape)
    fig.update_xaxes(type="log" if log_x else None)
    fig.update_yaxes(type="log" if log_y else None)
    fig.update_layout(title=title)
    return finish(fig, x_title, y_title, legend_title, height=height)


def panels(
    x: list[np.ndarray],
    panel_curves: list[list[Curve]],
    x_titles: list[str],
    y_titles: list[str],
    panel_titles: list[str],
    legend_title: str | None = None,
    log_x: bool = False,
    log_y: tuple[bool, ...] = (),
    title: str | None = None,
) -> go.Figure:
    """Side-by-side panels of curves; curves with the same label share one legend entry."""
    fig = plain_subplots(rows=1, cols=len(panel_curves), subplot_titles=panel_titles, horizontal_spacing=0.08)
    shown = set()
    for c, (xs, curves) in enumerate(zip(x, panel_curves), start=1):
        for curve in curves:
            _add_curve(fig, xs, curve, legendgroup=curve.label, showlegend=curve.label not in shown, row=1, col=c)
            shown.add(curve.label)
        fig.update_xaxes(title_text=x_titles[c - 1], type="log" if log_x else None, row=1, col=c)
        fig.update_yaxes(
            title_text=y_titles[c - 1], type="log" if c - 1 < len(log_y) and log_y[c - 1] else None, row=1, col=c
        )
    fig.update_layout(
        title=title,
        showlegend=True,
        legend=dict(title=dict(text=legend_title), orientation="h", y=-0.22),
        height=400,
        margin=dict(l=10, r=10, t=70 if title else 50, b=10),
        hoverlabel=dict(namelength=-1),
    )
    return fig


# ---------------------------------------------------------------- perturb page ----


class BarSeries(NamedTuple):
    """One set of bars or markers: its legend label, values, colour and, for a mapping's bars, the
    mapping (its fill pattern, colors.bar_pattern)."""

    label: str
    y: np.ndarray
    color: str
    mapping: str | None = None


def mapping_bars(name: str, label: str, y: np.ndarray) -> BarSeries:
    """The bars of mapping ``name``: its colour and its fill pattern."""
    return BarSeries(label, y, mapping_color(name), name)


def _bar_marker(s: BarSeries, color: str) -> dict:
    return dict(color=color) if s.mapping is None else dict(color=color, pattern=bar_pattern(s.mapping))


def bars_and_markers(
    index: np.ndarray,
    logits: np.ndarray,
    bars: list[BarSeries],
    markers: list[BarSeries],
    title: str,
    y_title: str,
    legend_title: str,
    symbol: str = "diamond",
) -> go.Figure:
    """Grouped bars over the classes ``index`` (logits[i] under each group) with, on the k-th bar of
    each group, a marker of ``markers[k]`` (an exact value over an estimate, or the reverse): ``symbol``,
    or the mapping's own marker for a mapping's series (:func:`mapping_bars`)."""
    offsets, w = group_offsets(len(bars))
    pos = np.arange(len(index), dtype=float)
    size = float(np.clip(700 * w / max(len(index), 1), 7, 16))
    data = []
    for s, off in zip(bars, offsets):
        data.append(
            dict(
                type="bar",
                x=pos + off,
                y=np.asarray(s.y, dtype=np.float64),
                width=w,
                name=s.label,
                marker=_bar_marker(s, with_alpha(s.color, 0.75)),
                customdata=index,
                hovertemplate="class %{customdata}<br>%{y:.6g}<extra>%{fullData.name}</extra>",
            )
        )
    for s, off in zip(markers, offsets):
        data.append(
            dict(
                type="scatter",
                x=pos + off,
                y=np.asarray(s.y, dtype=np.float64),
                mode="markers",
                name=s.label,
                cliponaxis=False,
                customdata=index,
                marker=dict(
                    symbol=mapping_cue(s.mapping)["marker"] if s.mapping else symbol,
                    size=size,
                    color=s.color,
                    line=dict(width=2.5, color=s.color),
                ),
                hovertemplate="class %{customdata}<br>%{y:.6g}<extra>%{fullData.name}</extra>",
            )
        )
    layout = base_layout(t("fig.class_axis"), y_title, legend_title)
    layout["xaxis"].update(class_ticks(index, logits))
    layout["yaxis"].update(rangemode="tozero")
    return with_traces(PlainFigure(dict(layout, title=dict(text=title))), data)


# ---------------------------------------------------------------- margin page ----

CLASS_COLORS = ("#4C78A8", "#DD720A", "#53A04A", "#E45756", "#B279A2", "#2A9E9C", "#9D755D", "#DE60B8")
CLASS_DASHES = ("solid", "dot", "dash", "longdash", "dashdot", "longdashdot", "4,2", "12,3,3,3")  # a class's second cue


# ---------------------------------------------------------------- vocab page ----


# ---------------------------------------------------------------- attention page ----


def grouped_bars(
    categories: list[str],
    series: list[BarSeries],
    x_title: str,
    y_title: str,
    title: str,
    legend_title: str | None = None,
) -> go.Figure:
    """Bars of each series grouped over categories (e.g. output coordinates per mapping)."""
    fig = PlainFigure()
    for s in series:
        fig.add_bar(
            x=categories,
            y=np.asarray(s.y, dtype=np.float64),
            name=s.label,
            marker=_bar_marker(s, s.color),
            hovertemplate="%{x}: %{y:.4g}<extra>%{fullData.name}</extra>",
        )
    fig.update_layout(title=title, barmode="group")
    fig.update_xaxes(type="category")
    return finish(fig, x_title, y_title, legend_title, height=360)


# ---------------------------------------------------------------- check page ----
