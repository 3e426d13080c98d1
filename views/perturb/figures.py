"""Perturb-max & Gumbel page figures: noise colours, Monte-Carlo error against N, Gumbel-softmax sample
strips and the sharpness curve."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.colors import mapping_color
from explorer.drawing.figures import SYMBOLS, ZERO_COLOR, Curve, finish
from explorer.drawing.plain_figure import PlainFigure, plain_subplots
from explorer.i18n import t

NOISE_COLORS = {"gumbel": "#E377C2", "normal": "#6F8FCF", "uniform": "#3E9E7E", "logistic": "#D67F3A"}


def noise_color(noise: str) -> str:
    return NOISE_COLORS.get(noise, ZERO_COLOR)


def error_chart(
    ns: np.ndarray, curves: list[Curve], x_title: str, y_title: str, title: str, legend_title: str | None = None
) -> go.Figure:
    """Errors against the sample count on log-log axes: lines with markers (a different symbol per
    curve, so coinciding curves stay visible); dashed curves are references, without markers.
    Errors below 1e-12 (an estimate equal to the exact value up to rounding) are left out: no log of 0."""
    fig = PlainFigure()
    for k, c in enumerate(curves):
        y = np.asarray(c.y, dtype=np.float64)
        reference = c.dash == "dash"
        fig.add_scatter(
            x=ns,
            y=np.where(y > 1e-12, y, np.nan),
            name=c.label,
            mode="lines" if reference else "lines+markers",
            line=dict(color=c.color, dash=c.dash, width=2.2),
            marker=dict(size=8, color=c.color, symbol=SYMBOLS[k % len(SYMBOLS)]),
            hovertemplate="N = %{x}<br>%{y:.4g}<extra>%{fullData.name}</extra>",
        )
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig.update_layout(title=title)
    return finish(fig, x_title, y_title, legend_title, height=400)


def sample_strips(
    index: np.ndarray, soft: np.ndarray, hard: np.ndarray, titles: tuple[str, str], title: str
) -> go.Figure:
    """Two heat maps side by side, rows = draw, columns = class: soft samples and their hard
    (one-hot) version, one colour bar on [0, 1]; values written in the cells when few."""
    fig = plain_subplots(rows=1, cols=2, subplot_titles=list(titles), horizontal_spacing=0.08)
    cols = [str(i) for i in index]
    rows = [f"#{r + 1}" for r in range(soft.shape[0])]
    write = len(index) <= 16
    for c, matrix in enumerate((soft, hard), start=1):
        z = np.asarray(matrix, dtype=np.float64)
        fig.add_heatmap(
            z=z,
            x=cols,
            y=rows,
            coloraxis="coloraxis",
            name=titles[c - 1],
            text=np.vectorize(lambda v: f"{v:.2f}")(z) if write else None,
            texttemplate="%{text}" if write else None,
            hovertemplate="draw %{y}, class %{x}<br>y = %{z:.4g}<extra>" + titles[c - 1] + "</extra>",
            row=1,
            col=c,
        )
        fig.update_xaxes(title_text=t("fig.class_axis").split(" (")[0], type="category", row=1, col=c)
        fig.update_yaxes(
            title_text=t("perturb.draw_axis"), type="category", autorange="reversed", automargin=True, row=1, col=c
        )
    fig.update_layout(
        title=title,
        height=140 + 34 * soft.shape[0],
        margin=dict(l=10, r=10, t=70, b=10),
        coloraxis=dict(colorscale="Viridis", cmin=0, cmax=1, colorbar=dict(title=dict(text="yᵢ"))),
    )
    return fig


def sharpness_curve(taus: np.ndarray, mean_max: np.ndarray, tau: float, n: int, title: str) -> go.Figure:
    """Mean largest entry of Gumbel-softmax samples against tau (log x), the limits 1 (one-hot,
    tau -> 0) and 1/n (uniform, tau -> inf), and the chosen tau."""
    color = mapping_color("gumbel_softmax")
    fig = PlainFigure()
    fig.add_scatter(
        x=taus,
        y=mean_max,
        mode="lines",
        name=t("perturb.mean_max"),
        line=dict(color=color, width=2.2),
        hovertemplate="T = %{x:.3g}<br>%{y:.4f}<extra></extra>",
    )
    for level, label in ((1.0, t("perturb.onehot_limit")), (1.0 / n, t("perturb.uniform_limit", n=n))):
        fig.add_scatter(
            x=[taus[0], taus[-1]],
            y=[level, level],
            mode="lines",
            name=label,
            line=dict(color=ZERO_COLOR, dash="dot", width=1.5),
            hoverinfo="skip",
        )
    k = int(np.argmin(np.abs(np.log(taus) - np.log(tau))))
    fig.add_scatter(
        x=[taus[k]],
        y=[mean_max[k]],
        mode="markers",
        name=t("perturb.chosen_tau", tau=f"{tau:g}"),
        marker=dict(symbol="star", size=14, color=color),
        cliponaxis=False,
    )
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 1.05])
    fig.update_layout(title=title)
    return finish(fig, "T", t("perturb.mean_max_axis"), None, height=380)
