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
from streamlit.errors import StreamlitAPIException

from explorer.session import state
from explorer.session.state import runs_javascript
from explorer.drawing.colors import mapping_color, mapping_cue
from explorer.i18n import language, param_label, t
from probcore.registry import MAPPINGS

STATIC = Path(__file__).parent / "static"
PROBCORE_JS = (STATIC / "probcore.js").read_text()
CSS = (STATIC / "live.css").read_text()
LIVE_PARAMS = ("temperature", "beta", "order", "k", "top_p", "alpha", "noise", "margin", "scale")
SHORT = {
    "temperature": "T",
    "beta": "β",
    "order": "order",
    "k": "k",
    "top_p": "top-p",
    "alpha": "α",
    "noise": "noise",
    "margin": "m",
    "scale": "s",
}  # a control's name in the view (its full label is its tooltip)
NOT_LIVE = ("gumbel_softmax",)  # a seeded sample: drawn by the server only

# A few words of the live views that explorer.i18n does not have (same two languages).
WORDS = {
    "en": {
        "server_only": "Gumbel-softmax draws a random sample: the live chart leaves it out (its statistics are in the table below).",
        "jacobian_scale": "Colour: ∂pᵢ/∂xⱼ, blue < 0 < red, scaled to each map's largest |entry|; row i, column j.",
        "logits": "logits",
        "zeros": "{k} exact zero(s)",
        "underflows": "{k} p > 0 rounded to 0 (underflow)",
        "parameters": "Parameters",
        "view_compare": "Live chart: p of each mapping per class",
        "view_jacobian": "Live heat maps of the Jacobian ∂pᵢ/∂xⱼ",
        "view_simplex": "Live simplex: p of each mapping in the triangle, and the logits on the plane Σ = 1",
        "view_loss": "Live loss planes over (x₀ − x₂, x₁ − x₂) with the current logits",
        "view_sweeps": "Live sweeps: p of each mapping at a temperature T and at an α",
        "loss_scale": "Colour: the loss, dark low, yellow high (each plane its own scale); white arrows: the descent step; star: the current logits (drag it).",
        "drag_plane": "Drag the star (or press anywhere in the plane) to move the logits.",
        "loss_need3": "The current logits are drawn (and dragged) on the planes for n = 3 only.",
        "param_control": "{short} of {mappings}",
        "param_control_many": "{short} of the {k} shown mappings that have it",
        "sweep_control": "{short} of the sweep “{title}”",
        "list_separator": ", ",
        "name_separator": ": ",
    },
    "zh": {
        "server_only": "Gumbel-softmax 是随机采样：实时图表不画它（其统计量见下表）。",
        "jacobian_scale": "颜色：∂pᵢ/∂xⱼ，蓝 < 0 < 红，按每张图最大的 |元素| 缩放；第 i 行，第 j 列。",
        "logits": "logits",
        "zeros": "{k} 个精确的 0",
        "underflows": "{k} 个大于 0 但舍入为 0 的 p（下溢）",
        "parameters": "参数",
        "view_compare": "实时图表：各映射在每个类别上的 p",
        "view_jacobian": "雅可比矩阵 ∂pᵢ/∂xⱼ 的实时热图",
        "view_simplex": "实时单纯形：各映射的 p 在三角形中的位置，以及 Σ = 1 平面上的 logits",
        "view_loss": "(x₀ − x₂, x₁ − x₂) 平面上的实时损失与当前 logits",
        "view_sweeps": "实时扫描：各映射在温度 T 与 α 处的 p",
        "loss_scale": "颜色：损失，深色低、黄色高（每个平面各自缩放）；白色箭头：下降一步；星号：当前 logits（可拖动）。",
        "drag_plane": "拖动星号（或在平面内任意处按下）即可移动 logits。",
        "loss_need3": "只有 n = 3 时才在平面上画出（并可拖动）当前 logits。",
        "param_control": "{mappings} 的 {short}",
        "param_control_many": "所示映射中含此参数的 {k} 个映射的 {short}",
        "sweep_control": "扫描「{title}」的 {short}",
        "list_separator": "、",
        "name_separator": "：",
    },
}


def _component(view: str, *extra: str):
    """The components v2 mount command of one live view: probcore.js + live_core.js + the ``extra``
    static files (e.g. stats.js) + static/<view>.js as one module, and the common CSS."""
    parts = [PROBCORE_JS, *((STATIC / f"{name}.js").read_text() for name in ("live_core", *extra, view))]
    js = "\n".join(parts)
    return st.components.v2.component(f"probcore_live_{view}", js=js, css=CSS, isolate_styles=False)


_COMPARE = _component("compare", "stats")
_JACOBIAN = _component("jacobian")
_SIMPLEX = _component("simplex")
_LOSS = _component("loss")
_SWEEPS = _component("sweeps")
NO_CLOSED_FORM = ("perturbmax",)  # its Jacobian is autograd's: drawn by the server


def _control_name(short: str, users: list[str]) -> str:
    """A live parameter control's accessible name: what it moves, the parameter of which shown mappings
    (``users``: their labels; more than three are counted). Unique on the page: the Mappings expander's
    field of the same parameter is named by its label alone, the Sweeps page's own T and α by their sweep."""
    words = WORDS[language()]
    if len(users) > 3:
        return words["param_control_many"].format(short=short, k=len(users))
    return words["param_control"].format(short=short, mappings=words["list_separator"].join(users))


def _param_specs(
    names: list[str], n: int, labels: dict[str, str], exclude: tuple[str, ...] = ()
) -> tuple[list[dict], dict]:
    """The live parameter controls of the shown mappings (registry slider ranges, the accessible name of
    :func:`_control_name` from the mappings' ``labels``) and their values (the session's; a None one,
    beta or top_p not given, gets no control; nor those in ``exclude``)."""
    users: dict[str, list[str]] = {}  # each parameter's shown mappings (their labels), in order
    for name in names:
        for p in MAPPINGS[name].params:
            users.setdefault(p.name, []).append(labels[name])
    ss = st.session_state
    session = {name: ss.get(name) for name in users}  # each parameter read once, not once per mapping using it
    specs, values = [], {}
    for name in names:
        for p in MAPPINGS[name].params:
            if p.name not in LIVE_PARAMS or p.name in exclude or p.name in values:
                continue
            value = session[p.name]
            if value is None:
                continue
            high = n if p.name == "k" else p.ui_high
            if p.kind != "choice":  # clipped to [ui_low, high] (np.clip's value, at a fraction of its cost)
                value = (
                    float(min(max(value, p.ui_low), high))
                    if p.kind == "float"
                    else int(min(max(value, p.ui_low), high))
                )
            values[p.name] = value
            specs.append(
                dict(
                    name=p.name,
                    label=param_label(p.name),
                    short=SHORT[p.name],
                    control=_control_name(SHORT[p.name], users[p.name]),
                    kind=p.kind,
                    low=p.ui_low,
                    high=high,
                    step=p.step or 1,
                    choices=list(p.choices),
                )
            )
    return specs, values


def _take_state(key: str, whole: str | None, wider: Callable[[], str | None] | None = None) -> None:
    """Release in the browser (component ``key``): the logits and parameters it sends become the
    session's controls. The rerun is the innermost fragment that holds the view, but the fragment
    ``whole`` (the page's, with the logit controls) while the Logits expander is open and shows them,
    else the fragment ``wider()`` names (one around the view that shows the logits too), if any. A
    released parameter reruns the whole page (the Mappings expander, outside the fragments, shows it),
    but on a page that names ``wider`` (it knows what its fragments show) only while that expander is
    open: closed, it draws no widget."""
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
    params_moved = False
    for name, value in (sent.get("params") or {}).items():
        if name in LIVE_PARAMS and name in ss:
            try:
                MAPPINGS[next(m for m in MAPPINGS if any(p.name == name for p in MAPPINGS[m].params))].validate(
                    **{name: value}
                )
            except (ValueError, StopIteration):
                continue
            if ss[name] != value:
                ss[name] = value
                params_moved = True
    if params_moved and (wider is None or ss.get(state.MAPPINGS_OPEN)):  # the Mappings expander shows them
        st.rerun(scope="app")  # from a callback: the interaction's one run (no fragment run first)
    around = whole if whole and ss.get(state.LOGITS_OPEN) else wider() if wider else None
    if around:
        try:
            st.rerun(around)
        except StreamlitAPIException:  # not drawn by the last run: the view's fragment reruns
            pass


def _data(ctl: state.Controls, names: list[str], page: str, exclude: tuple[str, ...] = ()) -> dict:
    """What a live view draws from: the logits, the mappings with their checked keyword arguments,
    the live parameters, labels, colours and second cues (explorer.drawing.colors.mapping_cue), the
    words every view uses (the view's own are added by its function) and sizes (presentation mode:
    larger; the browser fits the height to the first screen)."""
    labels = ctl.labels  # every mapping's label in the session's language: built once, not once per name
    specs, values = _param_specs(names, ctl.n, labels, exclude)
    present = bool(st.session_state.get("present"))
    words = WORDS[language()]
    return dict(
        logits=[float(v) for v in ctl.logits],
        mappings=names,
        target=ctl.target,
        kwargs={name: ctl.kwargs[name] for name in names},
        params=specs,
        param_values=values,
        labels={name: labels[name] for name in names},
        colors={name: mapping_color(name) for name in names},
        cues={name: mapping_cue(name) for name in names},
        handles=ctl.n <= state.SLIDER_MAX_N,
        bound=float(max(10.0, np.ceil(np.abs(ctl.logits).max()))),
        height=560 if present else 420,
        font_size=20 if present else 15,
        lang=language(),
        present=present,
        text={
            "view_name": words[f"view_{page}"],
            "logits": words["logits"],
            "zeros": words["zeros"],
            "underflows": words["underflows"],
            "download": t("ui.download"),
            "parameters": words["parameters"],
            "probability": t("fig.probability"),
            "class_axis": t("fig.class_axis"),
            "exact_zero": t("fig.exact_zero"),
            "underflow": t("fig.underflow"),
            "underflow_hover": t("fig.underflow_hover"),
        },
    )


def _mount(
    component, key: str, data: dict, whole: str | None = None, wider: Callable[[], str | None] | None = None
) -> None:
    """Mount a live view (a released parameter reruns the whole page: :func:`_take_state`). ``seq``
    numbers the releases the server has taken: the view ignores a run made before its last release.
    ``whole``: the key of the page's fragment that draws the logit controls, ``wider``: names a fragment
    around the view to rerun after a release (:func:`_take_state`)."""
    ss = st.session_state
    sent = (ss.get(key) or {}).get("state")
    data["seq"] = int(sent.get("seq", 0)) if isinstance(sent, dict) and isinstance(sent.get("seq"), int) else 0
    component(key=key, data=as_sent(data), on_state_change=lambda: _take_state(key, whole, wider))


def as_sent(data: dict) -> dict:
    """``data`` with its first-level lists as tuples: the same JSON (the view gets the same), but
    Streamlit, which looks for a data frame in each first-level value of a component's data, skips a
    tuple at once, where a list costs it ~0.1-0.2 ms (is_dataframe_like; ~0.6 ms a mount)."""
    return {name: tuple(value) if isinstance(value, list) else value for name, value in data.items()}


def compare_view(
    ctl: state.Controls,
    log_y: bool,
    server_figure: Callable[[], None],
    whole: str,
    table: dict | None = None,
    wider: Callable[[], str | None] | None = None,
) -> None:
    """Compare's chart, live: the grouped bars of every shown mapping with a handle per logit (n <=
    state.SLIDER_MAX_N), the top of a bar draggable, and the shown mappings' parameters; ``whole``: the
    page's fragment with the logit controls, ``wider``: a fragment around the view a release reruns
    (:func:`_mount`). ``table``: the statistics table's words (views.compare.page.table_words): the
    view draws the table under the chart in the same frame (static/stats.js); None: the server does.
    Calls ``server_figure()`` (the server's chart) instead where JavaScript does not run."""
    if not runs_javascript():
        server_figure()
        return
    names = [name for name in ctl.mappings if name not in NOT_LIVE]
    data = _data(ctl, names, "compare")
    data.update(log_y=bool(log_y), table=table)
    _mount(_COMPARE, "live_compare", data, whole, wider)
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
    data = _data(ctl, [name for name in ctl.mappings if name not in NOT_LIVE + NO_CLOSED_FORM], "jacobian")
    data.update(drawn=live)
    data["text"]["scale"] = WORDS[language()]["jacobian_scale"]
    _mount(_JACOBIAN, "live_jacobian", data)
    server_figures([name for name in drawn if name not in live])


def simplex_view(ctl: state.Controls, server_figures: Callable[[], None]) -> None:
    """Simplex's first row, live: each shown mapping's p in the triangle with its path as T runs,
    and the plane sum = 1 with the logits (dragged there) and their Euclidean projection. Calls
    ``server_figures()`` instead where JavaScript does not run."""
    if not runs_javascript():
        server_figures()
        return
    names = [name for name in ctl.mappings if name not in NOT_LIVE]
    data = _data(ctl, names, "simplex")
    words = WORDS[language()]
    data["text"].update(
        points_title=t("fig.simplex_points"),
        projection_title=t("fig.projection_title"),
        logits_on_plane=t("fig.logits_on_plane"),
        projection=t("fig.euclidean_projection"),
        need3="" if ctl.n == 3 else t("simplex.need3", n=ctl.n),
        drag=words["drag_plane"],
    )
    _mount(_SIMPLEX, "live_simplex", data)
    st.caption(words["drag_plane"])
    if any(name in NOT_LIVE for name in ctl.mappings):
        st.caption(words["server_only"])


def loss_view(
    ctl: state.Controls, drawn: list[str], target: int, radius: float, m: int, server_figures: Callable[[], None]
) -> None:
    """The Loss landscape's planes, live: each mapping of ``drawn`` over the plane (x0 - x2, x1 - x2)
    (m x m points, |u|, |v| <= radius, class ``target``) with its descent arrows and the current
    logits, which a press or a drag on a plane moves. ``server_figures()`` where JavaScript does not run."""
    if not runs_javascript():
        server_figures()
        return
    names = [name for name in ctl.mappings if name not in NOT_LIVE]
    data = _data(ctl, names, "loss")
    data.update(drawn=[name for name in drawn if name in names], radius=float(radius), m=int(m), target=int(target))
    words = WORDS[language()]
    data["text"].update(
        plane_title=t("loss.plane_title", mapping="{mapping}", target=target),
        u_axis=t("fig.plane_x02"),
        v_axis=t("fig.plane_x12"),
        loss=t("fig.loss"),
        scale=words["loss_scale"],
        need3=words["loss_need3"],
    )
    _mount(_LOSS, "live_loss", data)


def sweeps_view(ctl: state.Controls, alpha_names: list[str], t_start: int, alpha_start: int) -> None:
    """The Sweeps page's two animations, live (the page calls it where :func:`runs_javascript`; else
    it draws Plotly's in-chart player): bars of p(x / T) of every shown mapping and of alpha-entmax
    at alpha (``alpha_names``), each with its own range input and Play / Pause buttons, starting at
    grid indices ``t_start`` and ``alpha_start``."""
    names = [name for name in ctl.mappings if name not in NOT_LIVE]
    data = _data(ctl, names, "sweeps", exclude=("temperature",))  # the sweep sets T itself
    data.update(
        alpha_mappings=[name for name in alpha_names if name in names],
        t_start=int(t_start),
        alpha_start=int(alpha_start),
    )
    sweep_control = WORDS[language()]["sweep_control"]
    data["text"].update(
        play=t("fig.play"),
        pause=t("fig.pause"),
        t_title=t("sweeps.temperature_anim"),
        alpha_title=t("sweeps.alpha_anim"),
        t_control=sweep_control.format(short="T", title=t("sweeps.temperature_anim")),
        alpha_control=sweep_control.format(short="α", title=t("sweeps.alpha_anim")),
        no_alpha=t("ui.no_alpha"),
        name_separator=WORDS[language()]["name_separator"],
    )
    _mount(_SWEEPS, "live_sweeps", data)
    if any(name in NOT_LIVE for name in ctl.mappings):
        st.caption(WORDS[language()]["server_only"])
