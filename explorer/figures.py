"""Every Plotly figure of the explorer.

Builders take plain numpy arrays (already computed by ``explorer.compute``) and return a
``go.Figure`` with axis titles, a legend (a colour bar for heat maps) and the mapping colours of
``explorer.colors``. They set no background or font colours, so ``st.plotly_chart(theme="streamlit")``
styles them for the light and the dark theme alike.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.colors import mapping_color, with_alpha
from explorer.i18n import t

ZERO_SYMBOL = "x-thin-open"
ZERO_COLOR = "#8C8C8C"
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "pentagon", "hexagon", "star", "cross", "triangle-down")


class Curve(NamedTuple):
    """One line of a line chart: its legend label, y values, colour and dash."""

    label: str
    y: np.ndarray
    color: str
    dash: str = "solid"


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


def _group_offsets(m: int, width: float = 0.84) -> tuple[np.ndarray, float]:
    """x offsets of m bars grouped around each category, and the bar width."""
    w = width / max(m, 1)
    return (np.arange(m) - (m - 1) / 2) * w, w


def _class_ticks(index: np.ndarray, logits: np.ndarray) -> dict:
    text = [f"{i}<br>{x:.3g}" for i, x in zip(index, logits)]
    return dict(tickmode="array", tickvals=list(range(len(index))), ticktext=text)


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
    layout["xaxis"].update(_class_ticks(index, logits))
    layout["yaxis"].update(yaxis)
    return go.Figure(data=data, layout=dict(layout, title=title))


def _ternary_layout(axis_titles: tuple[str, str, str]) -> dict:
    return dict(
        sum=1,
        aaxis=dict(title=dict(text=axis_titles[0]), min=0, ticks="outside"),
        baxis=dict(title=dict(text=axis_titles[1]), min=0, ticks="outside"),
        caxis=dict(title=dict(text=axis_titles[2]), min=0, ticks="outside"),
    )


def simplex_points(points: dict[str, np.ndarray], labels: dict[str, str],
                   axis_titles: tuple[str, str, str]) -> go.Figure:
    """Each mapping's p in the probability simplex (a ternary plot); points on an edge or a
    vertex stay visible (cliponaxis=False). Marker sizes decrease so coinciding points all show."""
    fig = go.Figure()
    for k, (name, p) in enumerate(points.items()):
        fig.add_scatterternary(
            a=[p[0]], b=[p[1]], c=[p[2]], mode="markers", name=labels[name], cliponaxis=False,
            marker=dict(size=max(8, 22 - 2 * k), color=mapping_color(name), symbol=_SYMBOLS[k % len(_SYMBOLS)],
                        line=dict(width=1, color="rgba(128,128,128,0.8)")),
            hovertemplate="p = (%{a:.4f}, %{b:.4f}, %{c:.4f})<extra>%{fullData.name}</extra>",
        )
    fig.update_layout(ternary=_ternary_layout(axis_titles), title=t("fig.simplex_points"))
    return _below(_finish(fig, None, None, t("fig.mapping"), height=560))


def simplex_images(clouds: dict[str, np.ndarray], labels: dict[str, str],
                   axis_titles: tuple[str, str, str], cols: int = 3) -> go.Figure:
    """One ternary panel per mapping with the image of a grid of logits (rows of ``clouds[name]``)."""
    names = list(clouds)
    rows = -(-len(names) // cols)
    cols = min(cols, len(names))
    specs = [[{"type": "ternary"} if r * cols + c < len(names) else None for c in range(cols)] for r in range(rows)]
    fig = make_subplots(rows=rows, cols=cols, specs=specs,
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
        fig.layout[f"ternary{k + 1 if k else ''}"].update(layout)
    fig.update_layout(title=t("fig.simplex_images"))
    return _finish(fig, None, None, t("fig.mapping"), height=330 * rows + 60)


def simplex_paths(paths: dict[str, np.ndarray], values: np.ndarray, value_name: str,
                  labels: dict[str, str], axis_titles: tuple[str, str, str], title: str) -> go.Figure:
    """Each mapping's p as a parameter (temperature, alpha) runs over ``values``: a path in the simplex."""
    fig = go.Figure()
    for k, (name, path) in enumerate(paths.items()):
        color = mapping_color(name)
        fig.add_scatterternary(
            a=path[:, 0], b=path[:, 1], c=path[:, 2], mode="lines+markers", name=labels[name], cliponaxis=False,
            line=dict(color=color, width=2), marker=dict(size=4, color=color, symbol=_SYMBOLS[k % len(_SYMBOLS)]),
            customdata=values,
            hovertemplate=f"{value_name} = %{{customdata:.3g}}<br>p = (%{{a:.3f}}, %{{b:.3f}}, %{{c:.3f}})"
                          "<extra>%{fullData.name}</extra>",
        )
    fig.update_layout(ternary=_ternary_layout(axis_titles), title=title)
    return _below(_finish(fig, None, None, t("fig.mapping"), height=560))


def _plane(points: np.ndarray) -> np.ndarray:
    """Orthonormal coordinates of points in the plane sum = 1 (centre of the simplex at 0)."""
    basis = np.array([[1, -1, 0], [1, 1, -2]]) / np.sqrt([[2], [6]])
    return (np.atleast_2d(points) - 1 / 3) @ basis.T


def projection_plane(x: np.ndarray, points: dict[str, np.ndarray], projection: str,
                     labels: dict[str, str]) -> go.Figure:
    """The plane sum = 1 seen from above: the simplex triangle, the logits moved onto the plane
    (x - (sum x - 1)/3, same mapping outputs by shift invariance) and each mapping's p, with the
    Euclidean projection (mapping ``projection``, sparsemax) joined to the logits by a dashed segment."""
    fig = go.Figure()
    tri = _plane(np.vstack([np.eye(3), np.eye(3)[:1]]))
    fig.add_scatter(x=tri[:, 0], y=tri[:, 1], mode="lines", name=t("fig.simplex_edge"),
                    line=dict(color="rgba(128,128,128,0.9)", width=1.5), hoverinfo="skip")
    for i, (u, v) in enumerate(tri[:3]):
        fig.add_annotation(x=u, y=v, text=f"e{i}", showarrow=False, yshift=12 if v > 0 else -12)
    moved = _plane(x - (x.sum() - 1) / 3)[0]
    if projection in points:
        target = _plane(points[projection])[0]
        fig.add_scatter(x=[moved[0], target[0]], y=[moved[1], target[1]], mode="lines",
                        name=t("fig.euclidean_projection"),
                        line=dict(color=mapping_color(projection), dash="dash", width=2), hoverinfo="skip")
    fig.add_scatter(x=[moved[0]], y=[moved[1]], mode="markers", name=t("fig.logits_on_plane"),
                    marker=dict(symbol="star", size=16, color=ZERO_COLOR), cliponaxis=False,
                    hovertemplate="x - (Σx - 1)/3<extra></extra>")
    for k, (name, p) in enumerate(points.items()):
        u, v = _plane(p)[0]
        fig.add_scatter(x=[u], y=[v], mode="markers", name=labels[name], cliponaxis=False,
                        marker=dict(size=max(8, 18 - 2 * k), color=mapping_color(name), symbol=_SYMBOLS[k % len(_SYMBOLS)]),
                        customdata=[p], hovertemplate="p = (%{customdata[0]:.3f}, %{customdata[1]:.3f}, "
                                                      "%{customdata[2]:.3f})<extra>%{fullData.name}</extra>")
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    fig.update_layout(title=t("fig.projection_title"))
    return _finish(fig, t("fig.plane_u"), t("fig.plane_v"), t("fig.legend"), height=480)


def jacobian_pair(analytic: np.ndarray, autograd: np.ndarray | None, index: np.ndarray, title: str) -> go.Figure:
    """Heat maps of J[i, j] = dp_i/dx_j: the analytic one beside torch autograd's (one colour bar)."""
    panels = [(t("fig.analytic"), analytic)] + ([(t("fig.autograd"), autograd)] if autograd is not None else [])
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels], horizontal_spacing=0.16)
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
    """Contour map of a loss over the plane (u, v) = (x0 - x2, x1 - x2) with arrows along -grad
    (where gradient descent moves the logits) and the current logits."""
    fig = go.Figure()
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


def line_chart(x: np.ndarray, curves: list[Curve], x_title: str, y_title: str, title: str | None = None,
               log_x: bool = False, legend_title: str | None = None, height: int | None = None,
               shape: str = "linear") -> go.Figure:
    """Lines y(x), one per curve."""
    fig = go.Figure()
    for c in curves:
        fig.add_scatter(x=x, y=c.y, mode="lines", name=c.label, line=dict(color=c.color, dash=c.dash, width=2.2,
                                                                          shape=shape))
    if log_x:
        fig.update_xaxes(type="log")
    fig.update_layout(title=title)
    return _finish(fig, x_title, y_title, legend_title, height=height)


def panels(x: list[np.ndarray], panel_curves: list[list[Curve]], x_titles: list[str], y_titles: list[str],
           panel_titles: list[str], legend_title: str | None = None) -> go.Figure:
    """Side-by-side line panels whose curves share legend entries by label."""
    fig = make_subplots(rows=1, cols=len(panel_curves), subplot_titles=panel_titles, horizontal_spacing=0.07)
    shown = set()
    for c, (xs, curves) in enumerate(zip(x, panel_curves), start=1):
        for curve in curves:
            fig.add_scatter(x=xs, y=curve.y, mode="lines", name=curve.label, legendgroup=curve.label,
                            showlegend=curve.label not in shown, line=dict(color=curve.color, dash=curve.dash, width=2.2),
                            row=1, col=c)
            shown.add(curve.label)
        fig.update_xaxes(title_text=x_titles[c - 1], row=1, col=c)
        fig.update_yaxes(title_text=y_titles[c - 1], row=1, col=c)
    fig.update_layout(showlegend=True, legend_title_text=legend_title, height=380,
                      margin=dict(l=10, r=10, t=50, b=10), legend=dict(orientation="h", y=-0.22))
    return fig


def animated_bars(index: np.ndarray, logits: np.ndarray, frames: list[dict[str, np.ndarray]], values: np.ndarray,
                  value_name: str, labels: dict[str, str], start: int = 0, title: str | None = None) -> go.Figure:
    """Grouped bars of p per mapping, one Plotly frame per parameter value; the play button and
    the slider animate in the browser (no script rerun)."""
    names = list(frames[0])
    offsets, w = _group_offsets(len(names))
    pos = np.arange(len(index), dtype=float)

    def bars(frame):  # the first frame in full
        return [go.Bar(x=pos + off, y=frame[name], width=w, name=labels[name], marker_color=mapping_color(name),
                       customdata=index, hovertemplate="class %{customdata}<br>p = %{y:.4g}<extra>%{fullData.name}</extra>")
                for name, off in zip(names, offsets)]

    fmt = [f"{v:.3g}" for v in values]
    # Frames carry only the new bar heights (plain dicts: fast to build and to validate).
    fig = go.Figure(data=bars(frames[start]), frames=[
        dict(name=s, traces=list(range(len(names))), data=[dict(type="bar", y=f[name]) for name in names])
        for f, s in zip(frames, fmt)])
    play = dict(frame=dict(duration=120, redraw=True), transition=dict(duration=0), fromcurrent=True, mode="immediate")
    fig.update_layout(
        title=title,
        updatemenus=[dict(type="buttons", direction="left", x=0, y=-0.32, xanchor="left", yanchor="top", showactive=False,
                          buttons=[dict(label="▶ " + t("fig.play"), method="animate", args=[None, play]),
                                   dict(label="■ " + t("fig.pause"), method="animate",
                                        args=[[None], dict(frame=dict(duration=0, redraw=False), mode="immediate")])])],
        sliders=[dict(active=start, x=0.2, len=0.8, y=-0.25, yanchor="top", currentvalue=dict(prefix=f"{value_name} = "),
                      steps=[dict(method="animate", label=s, args=[[s], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                                                              transition=dict(duration=0))])
                             for s in fmt])],
        height=470, margin=dict(l=10, r=10, t=50, b=130),
    )
    fig.update_xaxes(**_class_ticks(index, logits))
    fig.update_yaxes(range=[0, 1])
    return _finish(fig, t("fig.class_axis"), t("fig.probability"), t("fig.mapping"), height=500)


def faded(color: str, k: int, m: int) -> str:
    """The k-th of m shades of a mapping colour (for several lines of one mapping)."""
    return with_alpha(color, 1.0 - 0.65 * k / max(m - 1, 1))
