"""Margin softmax page figures: the class regions of the 2-D feature plane with and without margin, p
over the plane and the loss against the margin."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.colors import mapping_color
from explorer.drawing.figures import CLASS_COLORS, ZERO_COLOR, finish
from explorer.drawing.plain_figure import plain_subplots
from explorer.i18n import t

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


def _margin_overlay(
    fig: go.Figure, centres: np.ndarray, point: np.ndarray, target: int, row: int, col: int, legend: bool
) -> None:
    """Unit circle, class centres w_j (numbered), the feature point with its ray from the origin."""
    a = np.linspace(0, 2 * np.pi, 181)
    fig.add_scatter(
        x=np.cos(a),
        y=np.sin(a),
        mode="lines",
        name=t("margin.fig_circle"),
        legendgroup="circle",
        showlegend=legend,
        line=dict(color="#C8C8C8", width=1.2, dash="dot"),
        hoverinfo="skip",
        row=row,
        col=col,
    )
    fig.add_scatter(
        x=centres[:, 0],
        y=centres[:, 1],
        mode="markers+text",
        name=t("margin.fig_centres"),
        legendgroup="centres",
        showlegend=legend,
        text=[str(j) for j in range(len(centres))],
        textposition="middle center",
        textfont=dict(color="white", size=11),
        marker=dict(size=20, color=list(CLASS_COLORS[: len(centres)]), line=dict(width=2, color="white")),
        hovertemplate="w%{text} = (%{x:.3f}, %{y:.3f})<extra></extra>",
        cliponaxis=False,
        row=row,
        col=col,
    )
    fig.add_scatter(
        x=[0, point[0]],
        y=[0, point[1]],
        mode="lines+markers",
        name=t("margin.fig_point", target=target),
        legendgroup="point",
        showlegend=legend,
        line=dict(color="#3A3A3A", width=2),
        marker=dict(
            symbol=["circle", "star"], size=[4, 18], color=CLASS_COLORS[target], line=dict(width=1.5, color="black")
        ),
        hovertemplate="x = (%{x:.3f}, %{y:.3f})<extra></extra>",
        cliponaxis=False,
        row=row,
        col=col,
    )


def _square_axes(fig: go.Figure, grid: np.ndarray, cols: int) -> None:
    for c in range(1, cols + 1):
        fig.update_xaxes(range=[grid[0], grid[-1]], constrain="domain", row=1, col=c)
        fig.update_yaxes(
            range=[grid[0], grid[-1]],
            scaleanchor=f"x{c if c > 1 else ''}",
            scaleratio=1,
            constrain="domain",
            row=1,
            col=c,
        )


def margin_regions(
    grid: np.ndarray,
    plain: np.ndarray,
    strict: np.ndarray,
    centres: np.ndarray,
    point: np.ndarray,
    target: int,
    margin: float,
) -> go.Figure:
    """Two maps of the plane of 2-D features: the class regions without margin (argmax cos) and
    with margin m (a point counts for class t only if cos theta_t - m >= max_{j != t} cos theta_j;
    grey elsewhere: no-man's-land). Arrays indexed [y, x] over grid x grid."""
    classes = len(centres)
    fig = plain_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.06,
        subplot_titles=[t("margin.fig_plain"), t("margin.fig_strict", m=f"{margin:.2f}")],
    )
    hover = "(%{x:.2f}, %{y:.2f})<br>" + t("margin.fig_region") + " %{z}<extra></extra>"
    for c, z in enumerate((plain, strict), start=1):
        fig.add_heatmap(
            x=grid.astype(np.float32),
            y=grid.astype(np.float32),
            z=z,
            coloraxis="coloraxis",
            name=t("margin.fig_regions"),
            hovertemplate=hover,
            row=1,
            col=c,
        )
        _margin_overlay(fig, centres, point, target, 1, c, legend=c == 1)
    _square_axes(fig, grid, 2)
    fig.update_layout(
        coloraxis=dict(
            colorscale=_class_colorscale(classes),
            cmin=-1.5,
            cmax=classes - 0.5,
            colorbar=dict(
                title=dict(text=t("margin.fig_regions")),
                tickvals=list(range(-1, classes)),
                ticktext=[t("margin.fig_none")] + [t("margin.fig_class", j=j) for j in range(classes)],
            ),
        )
    )
    finish(fig, "x₁", "x₂", t("fig.legend"), height=480)
    fig.update_layout(legend=dict(orientation="h", y=-0.15))
    return fig


def margin_probability_map(
    grid: np.ndarray, p: np.ndarray, centres: np.ndarray, point: np.ndarray, target: int, margin: float, scale: float
) -> go.Figure:
    """Heat map of the AM-softmax probability p_t of class ``target`` for a feature labelled
    ``target`` at each point of the plane (indexed [y, x])."""
    fig = plain_subplots(rows=1, cols=1)
    fig.add_heatmap(
        x=grid.astype(np.float32),
        y=grid.astype(np.float32),
        z=p,
        colorscale="Viridis",
        zmin=0,
        zmax=1,
        name=t("margin.fig_pt", target=target),
        colorbar=dict(title=dict(text=t("margin.fig_pt", target=target))),
        hovertemplate="(%{x:.2f}, %{y:.2f})<br>p = %{z:.4f}<extra></extra>",
        row=1,
        col=1,
    )
    _margin_overlay(fig, centres, point, target, 1, 1, legend=True)
    _square_axes(fig, grid, 1)
    fig.update_layout(title=t("margin.fig_pt_title", target=target, m=f"{margin:.2f}", s=f"{scale:g}"))
    finish(fig, "x₁", "x₂", t("fig.legend"), height=480)
    fig.update_layout(legend=dict(orientation="h", y=-0.15))
    return fig


def margin_sweep(
    ms: np.ndarray,
    loss: np.ndarray,
    target_logit: np.ndarray,
    runner_logit: np.ndarray,
    current: float,
    gap: float,
    target: int,
    runner: int,
) -> go.Figure:
    """Against the margin m: the AM-softmax loss of the feature (left), and its target logit
    s (cos_t - m) beside the largest other logit s cos_j (right); vertical lines at the chosen m
    and at m = cos_t - max_{j != t} cos_j, where the target stops winning."""
    fig = plain_subplots(
        rows=1, cols=2, horizontal_spacing=0.08, subplot_titles=[t("margin.fig_loss_m"), t("margin.fig_logits_m")]
    )
    am = mapping_color("am_softmax")
    fig.add_scatter(
        x=ms, y=loss, mode="lines", name=t("margin.fig_loss"), line=dict(color=am, width=2.5, dash="dot"), row=1, col=1
    )
    fig.add_scatter(
        x=ms,
        y=target_logit,
        mode="lines",
        name=t("margin.fig_target_logit", target=target),
        line=dict(color=CLASS_COLORS[target], width=2.5),
        row=1,
        col=2,
    )
    fig.add_scatter(
        x=ms,
        y=runner_logit,
        mode="lines",
        name=t("margin.fig_runner_logit", j=runner),
        line=dict(color=CLASS_COLORS[runner], width=2.5, dash="dash"),
        row=1,
        col=2,
    )
    spans = [
        (float(np.min(loss)), float(np.max(loss))),
        (float(min(target_logit.min(), runner_logit.min())), float(max(target_logit.max(), runner_logit.max()))),
    ]
    lines = [(current, t("margin.fig_current_m"), ZERO_COLOR, "solid")]
    if ms[0] <= gap <= ms[-1]:
        lines.append((gap, t("margin.fig_gap_m"), "#E45756", "dashdot"))
    for c, (low, high) in enumerate(spans, start=1):
        for x, name, color, dash in lines:
            fig.add_scatter(
                x=[x, x],
                y=[low, high],
                mode="lines",
                name=name,
                legendgroup=name,
                showlegend=c == 1,
                line=dict(color=color, width=1.5, dash=dash),
                hovertemplate=f"m = {x:.3f}<extra></extra>",
                row=1,
                col=c,
            )
    fig.update_xaxes(title_text=t("margin.fig_m_axis"))
    fig.update_yaxes(title_text=t("fig.loss"), row=1, col=1)
    fig.update_yaxes(title_text=t("margin.fig_logit_axis"), row=1, col=2)
    fig.update_layout(
        showlegend=True,
        legend=dict(orientation="h", y=-0.22, title=dict(text=t("fig.legend"))),
        height=400,
        margin=dict(l=10, r=10, t=50, b=10),
        hoverlabel=dict(namelength=-1),
    )
    return fig
