"""Attention page figures: the weights of each query over the keys as heat maps, zeros marked."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.figures import ZERO_COLOR, ZERO_SYMBOL, finish
from explorer.drawing.plain_figure import PlainFigure, plain_subplots
from explorer.i18n import t


def _weight_cells(z: np.ndarray) -> np.ndarray:
    """Cell texts of a weight heat map: blank at an exact zero (a × marks it), '<0.01' for a
    tiny positive weight, else two decimals."""
    return np.vectorize(lambda v: "" if v == 0 else ("<0.01" if v < 0.005 else f"{v:.2f}"))(z)


def _zero_marks(z: np.ndarray, size: float) -> dict | None:
    """A scatter of × markers on the exact zeros of heat map z (cells at integer positions)."""
    rows, cols = np.nonzero(z == 0)
    if not len(rows):
        return None
    return dict(
        type="scatter",
        x=cols.astype(float),
        y=rows.astype(float),
        mode="markers",
        name=t("fig.exact_zero"),
        legendgroup="zero",
        marker=dict(symbol=ZERO_SYMBOL, size=size, color=ZERO_COLOR, line=dict(width=2.5, color=ZERO_COLOR)),
        hovertemplate="w = 0 (exact)<extra></extra>",
    )


def weight_heatmap(
    weights: np.ndarray, row_labels: list[str], col_labels: list[str], title: str, x_title: str, y_title: str
) -> go.Figure:
    """Heat map of attention weights (rows = mapping or query, columns = key position), one colour
    bar on [0, 1]; an exact zero is an empty cell with a grey × (legend), a tiny positive weight
    reads '<0.01'."""
    z = np.asarray(weights, dtype=np.float64)
    rows, cols = z.shape
    fig = PlainFigure()
    fig.add_heatmap(
        z=z,
        x=np.arange(cols),
        y=np.arange(rows),
        zmin=0,
        zmax=1,
        colorscale="Viridis",
        text=_weight_cells(z) if cols <= 24 else None,
        texttemplate="%{text}" if cols <= 24 else None,
        colorbar=dict(title=dict(text="wⱼ")),
        name=t("attention.weight"),
        showlegend=False,
        customdata=np.array([[f"{r}" for _ in range(cols)] for r in row_labels]),
        hovertemplate="%{customdata}<br>key %{x}: w = %{z:.6g}<extra></extra>",
    )
    marks = _zero_marks(z, float(np.clip(260 / max(cols, rows), 8, 22)))
    if marks:
        fig.add_trace(marks)
    fig.update_xaxes(tickmode="array", tickvals=list(range(cols)), ticktext=col_labels, showgrid=False, zeroline=False)
    fig.update_yaxes(
        tickmode="array",
        tickvals=list(range(rows)),
        ticktext=row_labels,
        autorange="reversed",
        showgrid=False,
        zeroline=False,
        automargin=True,
    )
    fig.update_layout(title=title, legend=dict(orientation="h", y=-0.2, x=0))
    return finish(fig, x_title, y_title, None, height=130 + 48 * rows)


def weight_heatmaps(
    panels: dict[str, np.ndarray],
    col_labels: list[str],
    row_labels: list[str],
    title: str,
    x_title: str,
    y_title: str,
    cols: int = 2,
) -> go.Figure:
    """One weight heat map per mapping (rows = query, columns = key), one colour bar on [0, 1],
    exact zeros marked by a grey × (one legend entry)."""
    names = list(panels)
    rows_n = -(-len(names) // cols)
    height = 80 + rows_n * (150 + 40 * len(row_labels))
    fig = plain_subplots(
        rows=rows_n,
        cols=cols,
        subplot_titles=names,
        horizontal_spacing=0.1,
        vertical_spacing=min(0.5, 110 / height) if rows_n > 1 else 0.0,
    )
    shown = False
    for k, name in enumerate(names):
        z = np.asarray(panels[name], dtype=np.float64)
        r, c = k // cols + 1, k % cols + 1
        fig.add_heatmap(
            z=z,
            x=np.arange(z.shape[1]),
            y=np.arange(z.shape[0]),
            coloraxis="coloraxis",
            name=name,
            text=_weight_cells(z),
            texttemplate="%{text}",
            hovertemplate="query %{y}, key %{x}: w = %{z:.6g}<extra>" + name + "</extra>",
            row=r,
            col=c,
        )
        marks = _zero_marks(z, float(np.clip(200 / max(z.shape), 7, 18)))
        if marks:
            marks["showlegend"] = not shown
            shown = True
            fig.add_trace(marks, row=r, col=c)
        fig.update_xaxes(
            title_text=x_title,
            tickmode="array",
            tickvals=list(range(z.shape[1])),
            ticktext=col_labels,
            showgrid=False,
            zeroline=False,
            row=r,
            col=c,
        )
        fig.update_yaxes(
            title_text=y_title,
            tickmode="array",
            tickvals=list(range(z.shape[0])),
            ticktext=row_labels,
            autorange="reversed",
            showgrid=False,
            zeroline=False,
            automargin=True,
            row=r,
            col=c,
        )
    fig.update_layout(
        title=title,
        height=height,
        margin=dict(l=10, r=10, t=70, b=10),
        showlegend=True,
        legend=dict(orientation="h", yanchor="top", y=-60 / height, x=0),
        coloraxis=dict(colorscale="Viridis", cmin=0, cmax=1, colorbar=dict(title=dict(text="wⱼ"))),
    )
    return fig
