"""Simplex page figures: points and paths of p in the probability triangle, the image of a grid of
logits, and the logits against their Euclidean projection onto the simplex."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.colors import mapping_color, mapping_cue, plotly_dash
from explorer.drawing.figures import ZERO_COLOR, base_layout, finish
from explorer.drawing.plain_figure import Spec, plain_subplots
from explorer.i18n import t


def _below(fig: go.Figure) -> go.Figure:
    """Legend in rows under the plot (ternary plots need the width), room for the corner titles."""
    fig.update_layout(
        legend=dict(orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0), margin=dict(l=70, r=70, t=60, b=10)
    )
    return fig


def _ternary_layout(axis_titles: tuple[str, str, str]) -> dict:
    return dict(
        sum=1,
        aaxis=dict(title=dict(text=axis_titles[0]), min=0, ticks="outside"),
        baxis=dict(title=dict(text=axis_titles[1]), min=0, ticks="outside"),
        caxis=dict(title=dict(text=axis_titles[2]), min=0, ticks="outside"),
    )


def _ternary_spec(data: list[dict], axis_titles: tuple[str, str, str], title: str) -> Spec:
    """A ternary figure as a plain spec: legend in rows under the plot (as :func:`_below`)."""
    layout = base_layout(None, None, t("fig.mapping"), height=560)
    layout["legend"].update(orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0)
    layout.update(margin=dict(l=70, r=70, t=60, b=10), ternary=_ternary_layout(axis_titles), title=dict(text=title))
    return Spec(dict(data=data, layout=layout))


def simplex_points(points: dict[str, np.ndarray], labels: dict[str, str], axis_titles: tuple[str, str, str]) -> Spec:
    """Each mapping's p in the probability simplex (a ternary plot); points on an edge or a
    vertex stay visible (cliponaxis=False). Marker sizes decrease so coinciding points all show.
    A plain spec: it is redrawn on every logit step."""
    data = [
        dict(
            type="scatterternary",
            a=[p[0]],
            b=[p[1]],
            c=[p[2]],
            mode="markers",
            name=labels[name],
            cliponaxis=False,
            marker=dict(
                size=max(8, 22 - 2 * k),
                color=mapping_color(name),
                symbol=mapping_cue(name)["marker"],
                line=dict(width=1, color="rgba(128,128,128,0.8)"),
            ),
            hovertemplate="p = (%{a:.4f}, %{b:.4f}, %{c:.4f})<extra>%{fullData.name}</extra>",
        )
        for k, (name, p) in enumerate(points.items())
    ]
    return _ternary_spec(data, axis_titles, t("fig.simplex_points"))


def simplex_images(
    clouds: dict[str, np.ndarray], labels: dict[str, str], axis_titles: tuple[str, str, str], cols: int = 3
) -> go.Figure:
    """One ternary panel per mapping with the image of a grid of logits (rows of ``clouds[name]``)."""
    names = list(clouds)
    rows = -(-len(names) // cols)
    cols = min(cols, len(names))
    specs = [[{"type": "ternary"} if r * cols + c < len(names) else None for c in range(cols)] for r in range(rows)]
    fig = plain_subplots(
        rows=rows,
        cols=cols,
        specs=specs,
        subplot_titles=[labels[n] for n in names],
        vertical_spacing=0.12 / rows,
        horizontal_spacing=0.14,
    )
    for k, name in enumerate(names):
        cloud = clouds[name]
        fig.add_scatterternary(
            a=cloud[:, 0],
            b=cloud[:, 1],
            c=cloud[:, 2],
            mode="markers",
            name=labels[name],
            cliponaxis=False,
            marker=dict(size=4, color=mapping_color(name), opacity=0.75, symbol=mapping_cue(name)["marker"]),
            hovertemplate="p = (%{a:.3f}, %{b:.3f}, %{c:.3f})<extra>%{fullData.name}</extra>",
            row=k // cols + 1,
            col=k % cols + 1,
        )
    layout = _ternary_layout(tuple(a.split(" ")[0] for a in axis_titles))
    for k in range(len(names)):
        fig.update_layout(**{f"ternary{k + 1 if k else ''}": layout})
    fig.update_layout(title=t("fig.simplex_images"))
    return finish(fig, None, None, t("fig.mapping"), height=330 * rows + 60)


def simplex_paths(
    paths: dict[str, np.ndarray],
    values: np.ndarray,
    value_name: str,
    labels: dict[str, str],
    axis_titles: tuple[str, str, str],
    title: str,
) -> Spec:
    """Each mapping's p as a parameter (temperature, alpha) runs over ``values``: a path in the
    simplex (a plain spec: redrawn on every logit step)."""
    data = []
    for name, path in paths.items():
        color = mapping_color(name)
        data.append(
            dict(
                type="scatterternary",
                a=path[:, 0],
                b=path[:, 1],
                c=path[:, 2],
                mode="lines+markers",
                name=labels[name],
                cliponaxis=False,
                line=dict(color=color, width=2, dash=plotly_dash(name)),
                marker=dict(size=4, color=color, symbol=mapping_cue(name)["marker"]),
                customdata=values,
                hovertemplate=f"{value_name} = %{{customdata:.3g}}<br>p = (%{{a:.3f}}, %{{b:.3f}}, %{{c:.3f}})"
                "<extra>%{fullData.name}</extra>",
            )
        )
    return _ternary_spec(data, axis_titles, title)


def _plane(points: np.ndarray) -> np.ndarray:
    """Orthonormal coordinates of points in the plane sum = 1 (centre of the simplex at 0)."""
    basis = np.array([[1, -1, 0], [1, 1, -2]]) / np.sqrt([[2], [6]])
    return (np.atleast_2d(points) - 1 / 3) @ basis.T


def projection_plane(x: np.ndarray, points: dict[str, np.ndarray], projection: str, labels: dict[str, str]) -> Spec:
    """The plane sum = 1 seen from above: the simplex triangle, the logits moved onto the plane
    (x - (sum x - 1)/3, same mapping outputs by shift invariance) and each mapping's p, with the
    Euclidean projection (mapping ``projection``, sparsemax) joined to the logits by a dashed segment.
    A plain spec: it is redrawn on every logit step."""
    tri = _plane(np.vstack([np.eye(3), np.eye(3)[:1]]))
    data = [
        dict(
            type="scatter",
            x=tri[:, 0],
            y=tri[:, 1],
            mode="lines",
            name=t("fig.simplex_edge"),
            line=dict(color="rgba(128,128,128,0.9)", width=1.5),
            hoverinfo="skip",
        )
    ]
    moved = _plane(x - (x.sum() - 1) / 3)[0]
    if projection in points:
        target = _plane(points[projection])[0]
        data.append(
            dict(
                type="scatter",
                x=[moved[0], target[0]],
                y=[moved[1], target[1]],
                mode="lines",
                name=t("fig.euclidean_projection"),
                line=dict(color=mapping_color(projection), dash="dash", width=2),
                hoverinfo="skip",
            )
        )
    data.append(
        dict(
            type="scatter",
            x=[moved[0]],
            y=[moved[1]],
            mode="markers",
            name=t("fig.logits_on_plane"),
            marker=dict(symbol="star", size=16, color=ZERO_COLOR),
            cliponaxis=False,
            hovertemplate="x - (Σx - 1)/3<extra></extra>",
        )
    )
    for k, (name, p) in enumerate(points.items()):
        u, v = _plane(p)[0]
        data.append(
            dict(
                type="scatter",
                x=[u],
                y=[v],
                mode="markers",
                name=labels[name],
                cliponaxis=False,
                marker=dict(size=max(8, 18 - 2 * k), color=mapping_color(name), symbol=mapping_cue(name)["marker"]),
                customdata=[list(p)],
                hovertemplate="p = (%{customdata[0]:.3f}, %{customdata[1]:.3f}, "
                "%{customdata[2]:.3f})<extra>%{fullData.name}</extra>",
            )
        )
    layout = base_layout(t("fig.plane_u"), t("fig.plane_v"), t("fig.legend"), height=480)
    layout["yaxis"].update(scaleanchor="x", scaleratio=1)
    layout.update(
        title=dict(text=t("fig.projection_title")),
        annotations=[
            dict(x=u, y=v, text=f"e{i}", showarrow=False, yshift=12 if v > 0 else -12)
            for i, (u, v) in enumerate(tri[:3])
        ],
    )
    return Spec(dict(data=data, layout=layout))
