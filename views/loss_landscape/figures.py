"""Loss landscape page figure: a mapping's loss over a plane of logits, with its gradient arrows."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.figures import finish
from explorer.drawing.plain_figure import PlainFigure
from explorer.i18n import t


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


def loss_landscape(
    u: np.ndarray,
    v: np.ndarray,
    loss: np.ndarray,
    grad_u: np.ndarray,
    grad_v: np.ndarray,
    point: tuple[float, float] | None,
    title: str,
    color: str,
    arrow_step: int = 6,
) -> go.Figure:
    """Contour map of a loss over the plane (u, v) = (x0 - x2, x1 - x2) with arrows along the
    descent step of (u, v), -(grad_u, grad_v) (loss_landscape_compute.loss_surface), and the current logits."""
    fig = PlainFigure()
    fig.add_contour(
        x=u,
        y=v,
        z=loss,
        colorscale="Viridis",
        name=t("fig.loss"),
        ncontours=24,
        colorbar=dict(title=dict(text=t("fig.loss"))),
        line=dict(width=0.5),
        hovertemplate="u = %{x:.2f}<br>v = %{y:.2f}<br>loss = %{z:.4g}<extra></extra>",
    )
    uu, vv = np.meshgrid(u[::arrow_step], v[::arrow_step])
    gu, gv = grad_u[::arrow_step, ::arrow_step], grad_v[::arrow_step, ::arrow_step]
    xs, ys, sizes = _arrows(uu.ravel(), vv.ravel(), -gu.ravel(), -gv.ravel(), 0.9 * (u[arrow_step] - u[0]))
    fig.add_scatter(
        x=xs,
        y=ys,
        mode="lines+markers",
        name=t("fig.descent"),
        hoverinfo="skip",
        showlegend=False,
        line=dict(color="rgba(255,255,255,0.85)", width=1.2),
        marker=dict(symbol="arrow", angleref="previous", size=sizes, color="rgba(255,255,255,0.95)"),
    )
    if point is not None:
        fig.add_scatter(
            x=[point[0]],
            y=[point[1]],
            mode="markers",
            name=t("fig.current_logits"),
            cliponaxis=False,
            marker=dict(symbol="star", size=16, color=color, line=dict(width=1.5, color="white")),
        )
    fig.update_xaxes(range=[u[0], u[-1]])
    fig.update_yaxes(range=[v[0], v[-1]], scaleanchor="x", scaleratio=1)
    fig.update_layout(title=title, legend=dict(orientation="h", y=-0.18))
    return finish(fig, t("fig.plane_x02"), t("fig.plane_x12"), None, height=470)
