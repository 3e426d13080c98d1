"""Charts that speak (issue 26): every chart's accessible name, a short summary computed from the
numbers it draws, and those numbers as a table (CSV), in the session's language.

:func:`describe` reads a figure (a :class:`~explorer.drawing.plain_figure.Spec`, a ``PlainFigure``
or a ``go.Figure``) and returns its name (the title) and summary; a builder that knows more than the
drawn traces (``probability_bars``: a bar left out is an exact zero) attaches its own summary with
:func:`attach`. :func:`figure_frame` is the long table (trace, x, y, z) of every drawn value, the CSV
of a chart that has no table of its own. ``explorer.drawing.ui.show_figure`` puts the name and the
summary on the page as text a screen reader reads, before the chart.
"""

from __future__ import annotations

import base64
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from explorer.i18n import t

LISTED = 8  # up to this many values are read out one by one; longer series by their range
SUMMARY_ATTR = "_a11y_summary"


def attach(fig: go.Figure, summary: str) -> go.Figure:
    """Give ``fig`` a summary of its own (one that knows what the drawn traces do not say)."""
    object.__setattr__(fig, SUMMARY_ATTR, summary)
    return fig


def _spec(fig: go.Figure) -> dict:
    """The figure's JSON form, without converting arrays (a Spec's own dict, else to_plotly_json)."""
    spec = getattr(fig, "_spec", None)
    return spec if isinstance(spec, dict) else fig.to_plotly_json()


def _values(v) -> np.ndarray | None:
    """A trace attribute as a numpy array (lists, arrays, plotly.js typed arrays); None if absent."""
    if v is None:
        return None
    if isinstance(v, dict) and "bdata" in v:
        array = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        return array.reshape([int(s) for s in str(v["shape"]).split(",")]) if v.get("shape") else array
    try:
        return np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        return np.asarray(v, dtype=object)


def number(v: float) -> str:
    """A value as read out: 3 significant digits, an exact zero as 0."""
    return "0" if v == 0 else f"{v:.3g}"


def _plain(text) -> str:
    """A title or a trace name without Plotly's HTML (<br>, <b>, <sup>, ...)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", str(text or ""))).strip()


def values_text(values: np.ndarray) -> str:
    """'0.95, 0.05, 0' for a short series; '50 values from 0.01 to 0.95' for a long one."""
    finite = values[np.isfinite(values)]
    if len(values) <= LISTED:
        return ", ".join("–" if not np.isfinite(v) else number(v) for v in values)
    if not len(finite):
        return t("a11y.no_values", n=len(values))
    return t("a11y.range", n=len(values), low=number(finite.min()), high=number(finite.max()))


def zeros_text(values: np.ndarray) -> str:
    """'; one exact zero' / '; 3 exact zeros' (empty when none)."""
    zeros = int(np.sum(values == 0))
    return "" if zeros == 0 else "; " + (t("a11y.one_zero") if zeros == 1 else t("a11y.zeros", n=zeros))


def _trace_text(trace: dict) -> str | None:
    """One trace read out: its name, then its values (the z grid of a heat map by its range)."""
    name = _plain(trace.get("name")) or trace.get("type", "scatter")
    kind = trace.get("type", "scatter")
    if kind in ("heatmap", "contour", "surface"):
        z = _values(trace.get("z"))
        if z is None or z.dtype == object or not np.isfinite(z).any():
            return None
        finite = z[np.isfinite(z)]
        return t(
            "a11y.grid",
            name=name,
            rows=z.shape[0],
            cols=z.shape[-1],
            low=number(finite.min()),
            high=number(finite.max()),
        )
    if kind == "scatterternary":
        a = _values(trace.get("a"))
        return None if a is None else t("a11y.points", name=name, n=len(a))
    y = _values(trace.get("y"))
    if y is None or y.dtype == object or not len(y):
        return None
    if not np.isfinite(y).any():  # a legend key (x = y = None) draws nothing
        return None
    return f"{name}: {values_text(y)}{zeros_text(y)}"


def describe(fig: go.Figure) -> tuple[str, str]:
    """(name, summary) of a chart: its title, and its traces' values read out (an attached summary
    instead, where the builder gave one). Traces drawn without a legend entry of their own (a
    mapping's zero markers, a curve repeated in a second panel) are read with the one that has it."""
    spec = _spec(fig)
    layout = spec.get("layout", {}) or {}
    title = layout.get("title")
    name = _plain(title.get("text") if isinstance(title, dict) else title) or t("a11y.chart")
    own = getattr(fig, SUMMARY_ATTR, None) if SUMMARY_ATTR in getattr(fig, "__dict__", {}) else None
    if own:
        return name, own
    parts = [
        text
        for trace in spec.get("data", [])
        if trace.get("showlegend", True) is not False
        and trace.get("visible", True) is not False
        and (text := _trace_text(trace))
    ]
    return name, "; ".join(dict.fromkeys(parts)) if parts else t("a11y.no_data")


def figure_frame(fig: go.Figure) -> pd.DataFrame:
    """Every drawn value in long form: one row per point (trace, x, y), grid cell (trace, x, y, z)
    or ternary point (trace, a, b, c)."""
    rows: list[dict] = []
    for k, trace in enumerate(_spec(fig).get("data", [])):
        name = _plain(trace.get("name")) or f"{trace.get('type', 'trace')} {k}"
        if trace.get("type") in ("heatmap", "contour", "surface"):
            z = _values(trace.get("z"))
            if z is None or z.ndim != 2:
                continue
            x, y = _values(trace.get("x")), _values(trace.get("y"))
            x = np.arange(z.shape[1]) if x is None else x
            y = np.arange(z.shape[0]) if y is None else y
            rows += [dict(trace=name, x=x[j], y=y[i], z=z[i, j]) for i in range(z.shape[0]) for j in range(z.shape[1])]
        elif trace.get("type") == "scatterternary":
            a, b, c = (_values(trace.get(axis)) for axis in "abc")
            if a is not None and b is not None and c is not None:
                rows += [dict(trace=name, a=aa, b=bb, c=cc) for aa, bb, cc in zip(a, b, c)]
        else:
            y = _values(trace.get("y"))
            if y is None:
                continue
            x = _values(trace.get("x"))
            x = np.arange(len(y)) if x is None else x
            rows += [dict(trace=name, x=xx, y=yy) for xx, yy in zip(x, y)]
    return pd.DataFrame(
        rows, columns=[c for c in ("trace", "x", "y", "z", "a", "b", "c") if any(c in row for row in rows)] or ["trace"]
    )
