"""Jacobian page figure: dp/dx of a mapping as a heat map beside its autograd twin."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.plain_figure import plain_subplots
from explorer.i18n import t


def jacobian_pair(analytic: np.ndarray, autograd: np.ndarray | None, index: np.ndarray, title: str) -> go.Figure:
    """Heat maps of J[i, j] = dp_i/dx_j: the analytic one beside torch autograd's (one colour bar,
    on [-1, 1] for an all-zero J, ticks in plain or e-notation, never SI prefixes such as "1p"); the
    maps 0.24 of the width apart, room for the second map's tick labels and y title (0.16 put the
    title over the first map on a narrow page)."""
    panels = [(t("fig.analytic"), analytic)] + ([(t("fig.autograd"), autograd)] if autograd is not None else [])
    fig = plain_subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels], horizontal_spacing=0.24)
    bound = float(np.abs(analytic).max()) or 1.0
    labels = [str(i) for i in index]
    for c, (name, matrix) in enumerate(panels, start=1):
        fig.add_heatmap(
            z=matrix,
            x=labels,
            y=labels,
            coloraxis="coloraxis",
            name=name,
            hovertemplate="∂p_%{y}/∂x_%{x} = %{z:.4g}<extra>" + name + "</extra>",
            row=1,
            col=c,
        )
        fig.update_xaxes(title_text=t("fig.jac_x"), type="category", row=1, col=c)
        fig.update_yaxes(title_text=t("fig.jac_y"), type="category", autorange="reversed", row=1, col=c)
    fig.update_layout(
        title=title,
        height=360 if len(index) <= 12 else 520,
        margin=dict(l=10, r=10, t=60, b=10),
        coloraxis=dict(
            colorscale="RdBu", cmin=-bound, cmax=bound, colorbar=dict(title=dict(text="∂p_i/∂x_j"), exponentformat="e")
        ),
    )
    return fig
