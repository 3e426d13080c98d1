"""Margin softmax (AM-softmax): 2-D features and C class centres on the unit circle; the class
regions without and with the margin m (no-man's-land between them), the AM-softmax probability of
a class over the plane, one feature's loss and probabilities, and how its loss depends on m."""

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from explorer.drawing import figures, prose, ui
from explorer.i18n import t
from explorer.session import state
from views.margin import compute as margin_compute
from views.registry import PAGES
from views.margin import figures as margin_figures

declared = PAGES["margin"].option  # this page's own controls (views/registry.py)

MAX_CLASSES = len(figures.CLASS_COLORS)


ui.header("page.margin", "margin.intro")
prose.section(
    None,
    t("margin.explain"),
    prose.formula(
        r"L = -\log \frac{e^{s(\cos\theta_t - m)}}{e^{s(\cos\theta_t - m)} + \sum_{j \ne t} e^{s\cos\theta_j}},"
        r"\qquad \cos\theta_j = \frac{\langle x, w_j\rangle}{\lVert x\rVert\,\lVert w_j\rVert}"
    ),
)


@ui.fragment
def live() -> None:
    """The controls and all that they change: a step reruns only this fragment."""
    c1, c2, c3 = st.columns(3)
    with c1:
        classes = state.page_slider(declared("margin_classes"), t("margin.classes"), 1)
    with c2:
        margin = state.page_slider(declared("margin_m"), t("margin.m"), margin_compute.MARGIN_STEP)
    with c3:
        scale = state.page_slider(declared("margin_s"), t("margin.s"), 1.0)

    def _target(key: str) -> int:
        """Target class slider over 0..C-1; a value left from more classes (or the URL) falls back to 0."""
        if not 0 <= st.session_state[key] < classes:
            st.warning(state.plain(t("margin.target_missing", target=st.session_state[key], classes=classes)))
            st.session_state[key] = 0
        return state.slider(t("margin.target"), 0, classes - 1, key, step=1)

    c1, c2 = st.columns(2)
    with c1:
        angle = state.page_option(
            declared("margin_angle"),
            lambda key: state.slider(
                t("margin.angle"), -180.0, 180.0, key, step=1.0, format="%.0f°", help=t("margin.angle_help")
            ),
        )
    with c2:
        target = state.page_option(declared("margin_target"), _target)

    classes, target = int(classes), int(target)
    margin, scale, angle = float(margin), float(scale), float(angle)
    centres = margin_compute.margin_centres(classes)
    point = np.array([np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))])

    # ---- regions
    st.subheader(t("margin.regions"))
    grid, plain, strict, p_map = margin_compute.margin_regions(classes, margin, scale, target)
    ui.show_figure(
        margin_figures.margin_regions(grid, plain, strict, centres, point, target, margin),
        "margin_regions",
        table=lambda: pd.DataFrame(
            {
                **ui.grid_frame(grid, plain).rename(columns={"u": "x1", "v": "x2", "value": "region_no_margin"}),
                "region_with_margin": strict.ravel(),
            }
        ),
    )
    share = margin_compute.margin_share(classes, margin)
    st.caption(t("margin.regions_note", share=f"{100 * share:.1f}", m=f"{margin:.2f}", grid=len(grid)))
    if share >= 1.0:  # even a class centre (the largest gap) is short of the margin
        best = float(margin_compute.margin_gap(margin_compute.margin_cosines(centres, classes))[1].max())
        st.warning(t("margin.all_none", m=f"{margin:.2f}", classes=classes, best=f"{best:.3f}"))

    # ---- the feature point
    st.subheader(t("margin.point"))
    res = margin_compute.margin_point(classes, angle, margin, scale, target)
    cos = res["cos"]
    others = np.delete(np.arange(classes), target)
    runner = int(others[np.argmax(cos[others])])
    gap = float(cos[target] - cos[runner])
    m1, m2, m3, m4, m5 = st.columns(5)
    m1.metric(t("margin.cos_t", target=target), f"{cos[target]:.4f}")
    m2.metric(t("margin.cos_runner", j=runner), f"{cos[runner]:.4f}")
    m3.metric(t("margin.gap"), f"{gap:.4f}", delta=f"{gap - margin:+.4f} " + t("margin.vs_m"), delta_color="normal")
    m4.metric(
        t("margin.loss"),
        f"{res['loss']:.4f}",
        delta=f"{res['loss'] - res['loss0']:+.4f} " + t("margin.vs_plain"),
        delta_color="inverse",
    )
    m5.metric(t("margin.p_t", target=target), f"{res['p'][target]:.4f}")
    if int(np.argmax(cos)) != target:
        st.info(t("margin.status_wrong", target=target, j=runner))
    elif gap >= margin:
        st.success(t("margin.status_counts", target=target, gap=f"{gap:.4f}", m=f"{margin:.2f}"))
    else:
        st.warning(t("margin.status_between", target=target, gap=f"{gap:.4f}", m=f"{margin:.2f}"))
    table = pa.table(  # an Arrow table goes out as it is (a DataFrame is converted on every run)
        {
            t("margin.col_class"): np.arange(classes),
            "cos θⱼ": cos,
            t("margin.col_logit"): res["logits"],
            t("margin.col_p"): res["p"],
            t("margin.col_p0"): res["p0"],
        }
    )
    st.dataframe(
        table,
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.6g") for c in table.column_names[1:]},
    )
    st.caption(t("margin.table_note", loss0=f"{res['loss0']:.4f}", loss=f"{res['loss']:.4f}"))

    # ---- probability map and the margin sweep
    left, right = st.columns(2)
    with left:
        ui.show_figure(
            margin_figures.margin_probability_map(grid, p_map, centres, point, target, margin, scale),
            "margin_p_map",
            table=lambda: ui.grid_frame(grid, p_map).rename(columns={"u": "x1", "v": "x2", "value": "p_target"}),
        )
        st.caption(t("margin.p_map_note"))
    with right:
        sweep = margin_compute.margin_sweep(classes, angle, scale, target)
        ui.show_figure(
            margin_figures.margin_sweep(
                sweep["m"], sweep["loss"], sweep["target_logit"], sweep["runner_logit"], margin, gap, target, runner
            ),
            "margin_sweep",
            table=lambda: pd.DataFrame(
                {
                    "m": sweep["m"],
                    "loss": sweep["loss"],
                    "p_target": sweep["p_target"],
                    "target_logit": sweep["target_logit"],
                    "runner_up_logit": sweep["runner_logit"],
                }
            ),
        )
        st.caption(t("margin.sweep_note", gap=f"{gap:.4f}"))


live()

# ---------------------------------------------------------------- why a margin: trained as classification, used for retrieval
MOTIVATION_LOSS, MOTIVATION_MARGIN, MOTIVATION_SCALE = 0.01, 0.35, 30.0  # AM-softmax's defaults


def motivation_section() -> None:
    prose.section(t("margin.why"), t("margin.why_text"))
    plain, plain_loss = margin_compute.gap_for_loss(MOTIVATION_LOSS, 0.0, MOTIVATION_SCALE)
    strict, strict_loss = margin_compute.gap_for_loss(MOTIVATION_LOSS, MOTIVATION_MARGIN, MOTIVATION_SCALE)
    st.caption(
        t(
            "margin.why_note",
            s=f"{MOTIVATION_SCALE:g}",
            loss=f"{MOTIVATION_LOSS:g}",
            plain=f"{plain:.4f}",
            m=f"{MOTIVATION_MARGIN:g}",
            strict=f"{strict:.4f}",
            check=f"{max(plain_loss, strict_loss):.6g}",
        )
    )


motivation_section()
