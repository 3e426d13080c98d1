"""Check my numbers page figure: one row of the user's p against the reference, the differing entries
marked."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.figures import base_layout, group_offsets, with_traces
from explorer.drawing.plain_figure import PlainFigure
from explorer.i18n import t

CHECK_USER_COLOR = "#8C8C8C"


CHECK_BAD_COLOR = "#D62728"


CHECK_BAD_ALT = "#7B3FE4"  # when the mapping's own colour is a red


def _bad_color(color: str) -> str:
    """The highlight of differing entries: red, or violet next to a red mapping colour."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return CHECK_BAD_ALT if r > 1.6 * max(g, b) else CHECK_BAD_COLOR


def check_row_bars(
    index: np.ndarray,
    reference: np.ndarray,
    user: np.ndarray,
    differing: np.ndarray,
    color: str,
    reference_label: str,
    title: str,
) -> go.Figure:
    """Reference p (mapping colour) beside the user's p (grey) for the entries ``index`` of one
    row; entries outside the tolerance get a hatched user bar and a red marker above the pair,
    nan / inf user entries a red cross on the axis (hover gives every value and the error)."""
    pos = np.arange(len(index), dtype=float)
    ref, usr, bad = reference[index], user[index], differing[index]
    hi = _bad_color(color)
    finite = np.isfinite(usr)
    with np.errstate(invalid="ignore"):
        err = np.abs(usr - ref)
    offsets, w = group_offsets(2)
    top = float(np.nanmax(np.concatenate([ref, np.where(finite, usr, np.nan), [1e-12]])))
    low = float(min(0.0, np.nanmin(np.where(finite, usr, 0.0))))
    text = [f"{v:.6g}" for v in usr]
    data = [
        dict(
            type="bar",
            x=pos + offsets[0],
            y=ref,
            width=w,
            name=reference_label,
            marker=dict(color=color),
            customdata=index,
            hovertemplate="entry %{customdata}<br>reference p = %{y:.8g}<extra></extra>",
        ),
        dict(
            type="bar",
            x=pos + offsets[1],
            y=np.where(finite, usr, np.nan),
            width=w,
            name=t("check.fig_yours"),
            marker=dict(
                color=CHECK_USER_COLOR,
                line=dict(color=np.where(bad, hi, CHECK_USER_COLOR).tolist(), width=np.where(bad, 2.5, 0.5).tolist()),
                pattern=dict(shape=np.where(bad, "x", "").tolist(), fgcolor=hi),
            ),
            customdata=np.stack([index, err], axis=1),
            hovertext=text,
            hovertemplate="entry %{customdata[0]}<br>your p = %{hovertext}<br>|error| = %{customdata[1]:.3g}"
            "<extra></extra>",
        ),
    ]
    if bad.any():
        data.append(
            dict(
                type="scatter",
                x=pos[bad],
                y=np.full(int(bad.sum()), 1.06 * top),
                mode="markers",
                name=t("check.fig_differs"),
                cliponaxis=False,
                customdata=index[bad],
                marker=dict(symbol="triangle-down", size=11, color=hi),
                hovertemplate="entry %{customdata} differs<extra></extra>",
            )
        )
    if (~finite).any():
        data.append(
            dict(
                type="scatter",
                x=(pos + offsets[1])[~finite],
                y=np.zeros(int((~finite).sum())),
                mode="markers",
                name=t("check.fig_nonfinite"),
                cliponaxis=False,
                customdata=index[~finite],
                hovertext=[text[i] for i in np.flatnonzero(~finite)],
                marker=dict(symbol="x-thin-open", size=12, color=hi, line=dict(width=2.5, color=hi)),
                hovertemplate="entry %{customdata}: your p = %{hovertext}<extra></extra>",
            )
        )
    layout = base_layout(t("check.fig_entry"), t("fig.probability"), None)
    layout["xaxis"].update(tickmode="array", tickvals=pos.tolist(), ticktext=[str(i) for i in index])
    layout["yaxis"].update(range=[low * 1.1, 1.12 * top])
    return with_traces(PlainFigure(dict(layout, title=dict(text=title))), data)
