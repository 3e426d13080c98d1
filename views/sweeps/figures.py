"""Sweeps page figures: p as the temperature or alpha sweeps, animated in the browser (Plotly frames),
and faded earlier frames."""

from __future__ import annotations

import numpy as np

from explorer.drawing.colors import bar_pattern, mapping_color, with_alpha
from explorer.drawing.figures import base_layout, class_ticks, group_offsets
from explorer.drawing.plain_figure import Spec
from explorer.i18n import t

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def animated_bars(
    index: np.ndarray,
    logits: np.ndarray,
    frames: list[dict[str, np.ndarray]],
    values: np.ndarray,
    value_name: str,
    labels: dict[str, str],
    start: int = 0,
    title: str | None = None,
) -> Spec:
    """Grouped bars of p per mapping, one Plotly frame per parameter value; the play button and
    the slider animate in the browser (no script rerun). A plain spec: it is rebuilt on every
    logit step, and frames carry only the new bar heights."""
    names = list(frames[0])
    offsets, w = group_offsets(len(names))
    pos = np.arange(len(index), dtype=float)
    data = [
        dict(
            type="bar",
            x=pos + off,
            y=frames[start][name],
            width=w,
            name=labels[name],
            marker=dict(color=mapping_color(name), pattern=bar_pattern(name)),
            customdata=index,
            hovertemplate="class %{customdata}<br>p = %{y:.4g}<extra>%{fullData.name}</extra>",
        )
        for name, off in zip(names, offsets)
    ]
    fmt = [f"{v:.3g}" for v in values]
    play = dict(frame=dict(duration=120, redraw=True), transition=dict(duration=0), fromcurrent=True, mode="immediate")
    layout = base_layout(t("fig.class_axis"), t("fig.probability"), t("fig.mapping"), height=500)
    layout["xaxis"].update(class_ticks(index, logits))
    layout["yaxis"].update(range=[0, 1])
    layout.update(
        updatemenus=[
            dict(
                type="buttons",
                direction="left",
                x=0,
                y=-0.32,
                xanchor="left",
                yanchor="top",
                showactive=False,
                buttons=[
                    dict(label="▶ " + t("fig.play"), method="animate", args=[None, play]),
                    dict(
                        label="■ " + t("fig.pause"),
                        method="animate",
                        args=[[None], dict(frame=dict(duration=0, redraw=False), mode="immediate")],
                    ),
                ],
            )
        ],
        sliders=[
            dict(
                active=start,
                x=0.2,
                len=0.8,
                y=-0.25,
                yanchor="top",
                currentvalue=dict(prefix=f"{value_name} = "),
                steps=[
                    dict(
                        method="animate",
                        label=s,
                        args=[
                            [s],
                            dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0)),
                        ],
                    )
                    for s in fmt
                ],
            )
        ],
    )
    if title is not None:
        layout["title"] = dict(text=title)
    return Spec(
        dict(
            data=data,
            layout=layout,
            frames=[
                dict(name=s, traces=list(range(len(names))), data=[dict(type="bar", y=f[name]) for name in names])
                for f, s in zip(frames, fmt)
            ],
        )
    )


def faded(color: str, k: int, m: int) -> str:
    """The k-th of m shades of a mapping colour (for several lines of one mapping)."""
    return with_alpha(color, 1.0 - 0.65 * k / max(m - 1, 1))
