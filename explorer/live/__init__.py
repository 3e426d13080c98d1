"""Live views (issue 21): the core views computed and drawn in the browser while the pointer moves.

Each view is a Streamlit components v2 component (``st.components.v2.component``: bidirectional,
no iframe) whose JavaScript is ``static/probcore.js`` (probcore's maths, checked against probcore
by tests/test_live_parity.py), ``static/live_core.js`` (handles, parameters, frames, release) and
the view's own file (``static/<view>.js``). While a
control moves the browser recomputes and redraws every animation frame; on release it sends the
state (logits, parameters) to the server once (:func:`_take_state`), so the URL, the tables,
lessons and follow mode see it as they see a Streamlit widget's value. The server's next run sends
that same state back and the component does not draw it again.

Where JavaScript does not run (AppTest: a session without request headers; every browser that
shows a Streamlit page runs JavaScript) the page draws its server figure as before.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import streamlit as st

from explorer.session import state
from explorer.drawing.colors import mapping_color
from explorer.i18n import language, param_label, t
from probcore.registry import MAPPINGS

STATIC = Path(__file__).parent / "static"
PROBCORE_JS = (STATIC / "probcore.js").read_text()
CSS = (STATIC / "live.css").read_text()
LIVE_PARAMS = ("temperature", "beta", "order", "k", "top_p", "alpha", "noise", "margin", "scale")
NOT_LIVE = ("gumbel_softmax",)  # a seeded sample: drawn by the server only

# A few words of the live views that explorer.i18n does not have (same two languages).
WORDS = {
    "en": {"server_only": "Gumbel-softmax draws a random sample: the live chart leaves it out (its statistics are in the table below).",
           "jacobian_scale": "Colour: ∂pᵢ/∂xⱼ, blue < 0 < red, scaled to each map's largest |entry|; row i, column j."},
    "zh": {"server_only": "Gumbel-softmax 是随机采样：实时图表不画它（其统计量见下表）。",
           "jacobian_scale": "颜色：∂pᵢ/∂xⱼ，蓝 < 0 < 红，按每张图最大的 |元素| 缩放；第 i 行，第 j 列。"},
}


def _component(view: str):
    """The components v2 mount command of one live view: probcore.js + live_core.js + static/<view>.js
    as one module, and the common CSS."""
    js = "\n".join([PROBCORE_JS, (STATIC / "live_core.js").read_text(), (STATIC / f"{view}.js").read_text()])
    return st.components.v2.component(f"probcore_live_{view}", js=js, css=CSS, isolate_styles=False)


_COMPARE = _component("compare")
_JACOBIAN = _component("jacobian")
NO_CLOSED_FORM = ("perturbmax",)  # its Jacobian is autograd's: drawn by the server


def runs_javascript() -> bool:
    """Whether this session is a browser's (its websocket request has headers), not AppTest's."""
    return bool(st.context.headers)


def _param_specs(names: list[str], n: int) -> tuple[list[dict], dict]:
    """The live parameter controls of the shown mappings (registry slider ranges) and their values
    (the session's; a None one, beta or top_p not given, gets no control)."""
    ss = st.session_state
    specs, values = [], {}
    for name in names:
        for p in MAPPINGS[name].params:
            if p.name not in LIVE_PARAMS or p.name in values or ss.get(p.name) is None:
                continue
            high = n if p.name == "k" else p.ui_high
            value = ss[p.name]
            if p.kind != "choice":
                value = float(np.clip(value, p.ui_low, high)) if p.kind == "float" else int(np.clip(value, p.ui_low, high))
            values[p.name] = value
            specs.append(dict(name=p.name, label=param_label(p.name), kind=p.kind, low=p.ui_low, high=high,
                              step=p.step or 1, choices=list(p.choices)))
    return specs, values


def _take_state(key: str) -> None:
    """Release in the browser (component ``key``): the logits and parameters it sends become the
    session's controls."""
    ss = st.session_state
    sent = (ss.get(key) or {}).get("state")
    if not isinstance(sent, dict):
        return
    try:
        x = np.array([float(v) for v in sent.get("logits", [])], dtype=float)
    except (TypeError, ValueError):
        return
    last = state.last_logits()
    moved = last is None or not np.array_equal(x, last)
    if moved and state.N_MIN <= len(x) <= state.N_MAX and np.all(np.isfinite(x)):  # a preset stays a preset
        state.set_logits(x)
    for name, value in (sent.get("params") or {}).items():
        if name in LIVE_PARAMS and name in ss:
            try:
                MAPPINGS[next(m for m in MAPPINGS if any(p.name == name for p in MAPPINGS[m].params))].validate(
                    **{name: value})
            except (ValueError, StopIteration):
                continue
            if ss[name] != value:
                ss[name] = value
                ss["_live_params_moved"] = True  # the Mappings expander (outside the fragment) shows it: a full run


def _data(ctl: state.Controls, names: list[str]) -> dict:
    """What a live view draws from: the logits, the mappings with their checked keyword arguments,
    the live parameters, labels, colours, the page's words and sizes (presentation mode: larger)."""
    specs, values = _param_specs(names, ctl.n)
    present = bool(st.session_state.get("present"))
    labels = ctl.labels  # every mapping's label in the session's language: built once, not once per name
    return dict(
        logits=[float(v) for v in ctl.logits], mappings=names, target=ctl.target,
        kwargs={name: ctl.kwargs[name] for name in names}, params=specs, param_values=values,
        labels={name: labels[name] for name in names}, colors={name: mapping_color(name) for name in names},
        handles=ctl.n <= state.SLIDER_MAX_N, bound=float(max(10.0, np.ceil(np.abs(ctl.logits).max()))),
        height=520 if present else 380, font_size=20 if present else 13, lang=language())


def _mount(component, key: str, data: dict) -> None:
    """Mount a live view; a rerun asked by a released parameter happens first (see _take_state). ``seq``
    numbers the releases the server has taken: the view ignores a run made before its last release."""
    ss = st.session_state
    if ss.pop("_live_params_moved", False):
        st.rerun(scope="app")
    sent = (ss.get(key) or {}).get("state")
    data["seq"] = int(sent.get("seq", 0)) if isinstance(sent, dict) and isinstance(sent.get("seq"), int) else 0
    component(key=key, data=data, on_state_change=lambda: _take_state(key))


def compare_view(ctl: state.Controls, log_y: bool, server_figure: Callable[[], None]) -> None:
    """Compare's chart, live: the grouped bars of every shown mapping with a handle per logit (n <=
    state.SLIDER_MAX_N), the top of a bar draggable, and the shown mappings' parameters. Calls
    ``server_figure()`` (the server's chart) instead where JavaScript does not run."""
    if not runs_javascript():
        server_figure()
        return
    names = [name for name in ctl.mappings if name not in NOT_LIVE]
    data = _data(ctl, names)
    data.update(log_y=bool(log_y), text={"probability": t("fig.probability"), "class_axis": t("fig.class_axis"),
                                         "exact_zero": t("fig.exact_zero")})
    _mount(_COMPARE, "live_compare", data)
    if any(name in NOT_LIVE for name in ctl.mappings):
        st.caption(WORDS[language()]["server_only"])


def jacobian_view(ctl: state.Controls, drawn: list[str], server_figures: Callable[[list[str]], None]) -> None:
    """The Jacobian page's heat maps, live: J = dp/dx of each mapping in ``drawn`` from probcore.js's
    closed forms, with the logit handles and the parameters. ``server_figures(names)`` draws the
    others (no closed form, or a random sample), and all of them where JavaScript does not run."""
    if not runs_javascript():
        server_figures(drawn)
        return
    live = [name for name in drawn if name not in NOT_LIVE + NO_CLOSED_FORM]
    data = _data(ctl, [name for name in ctl.mappings if name not in NOT_LIVE + NO_CLOSED_FORM])
    data.update(drawn=live, text={"scale": WORDS[language()]["jacobian_scale"]})
    _mount(_JACOBIAN, "live_jacobian", data)
    server_figures([name for name in drawn if name not in live])
