"""Loss landscape: for n = 3 each loss over the plane (x0 - x2, x1 - x2) (shift invariance) with
descent arrows; the binary slice, loss of [t, 0] against the margin t; the classic entropy /
prediction / loss panels for alpha in {1, 1.5, 2, inf}."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer import compute
from explorer.drawing import figures, ui
from explorer.drawing.colors import ALPHA_MAPPINGS, EXTRA_COLORS, mapping_color
from explorer.i18n import t
from explorer.live import loss_view, runs_javascript
from explorer.session import state
from probcore.registry import MAPPINGS
from views.loss_landscape import compute as loss_landscape_compute
from views.registry import PAGES
from views.loss_landscape import figures as loss_landscape_figures

declared = PAGES["loss"].option  # this page's own controls (views/registry.py)

ui.header("page.loss", "loss.intro")
state.mapping_controls(expanded=not runs_javascript())


def losses_of(ctl: state.Controls) -> list[str]:
    """The selected mappings that have a loss (with their current parameters)."""
    return [name for name in ctl.mappings if compute.has_loss(name, ctl.kw(name))]


@ui.fragment
def live() -> None:
    """Everything that depends on the logits: the question and the planes with the current point."""
    ctl = state.controls(expanded=not runs_javascript())
    labels = ctl.labels
    with_loss = losses_of(ctl)
    target = ctl.target if ctl.target < 3 else 0
    if ctl.target >= 3:
        st.warning(t("loss.target3", target=ctl.target))
    point = (ctl.logits[0] - ctl.logits[2], ctl.logits[1] - ctl.logits[2]) if ctl.n == 3 else None

    others = np.delete(ctl.logits, ctl.target)

    def zero_loss() -> str:
        """Sparsemax and softmax losses at the current logits beside the target's margin (computed)."""
        values = {
            name: compute.loss_and_grad(name, ctl.x, state.default_kw(name), ctl.target)[0]
            for name in ("sparsemax", "softmax")
        }
        return t(
            "q_loss.a",
            margin=f"{ctl.logits[ctl.target] - others.max():.4g}",
            sparsemax=f"{values['sparsemax']:.4g}",
            softmax=f"{values['softmax']:.4g}",
        )

    def margin_one() -> None:
        x = ctl.logits.copy()
        x[ctl.target] = others.max() + 1.0
        state.set_logits(x)

    if not runs_javascript():  # the live view names itself (figure first)
        st.subheader(t("loss.plane"))
    if with_loss:
        figure = st.container()  # the planes first, their radius and picks under them (figure first)
        radius = state.page_slider(declared("plane"), t("loss.radius"), 0.5)
        drawn = ui.pick_figures(declared("planes"), t("ctl.planes_of"), with_loss)
        m = 49

        def server_figures() -> None:
            grid = loss_landscape_compute.plane_grid(radius, m)
            surfaces = ui.per_mapping(
                ctl, lambda name: loss_landscape_compute.loss_surface(name, ctl.kw(name), target, radius, m), drawn
            )
            columns = st.columns(2)
            for k, (name, (loss, du, dv)) in enumerate(surfaces.items()):
                with columns[k % 2]:
                    title = t("loss.plane_title", mapping=labels[name], target=target)
                    ui.show_figure(
                        loss_landscape_figures.loss_landscape(
                            grid, grid, loss, du, dv, point, title, mapping_color(name)
                        ),
                        f"loss_plane_{name}",
                        table=lambda g=grid, values=loss: ui.grid_frame(g, values),
                    )

        with figure:
            loss_view(ctl, drawn, target, radius, m, server_figures)
        st.caption(t("loss.plane_note"))
        sliced = [labels[name] for name in with_loss if not MAPPINGS[name].shift_invariant]
        if sliced:
            st.caption(t("loss.not_invariant", mappings=", ".join(sliced)))
    else:
        st.info(t("loss.none"))

    ui.predict("q_loss.q", ("q_loss.c0", "q_loss.c1", "q_loss.c2"), 1, zero_loss, (t("q_loss.do"), margin_one))


live()
ctl, _ = state.checked()  # the binary slice depends on the mappings, not on the logits
labels = ctl.labels
with_loss = losses_of(ctl)

st.subheader(t("loss.binary"))
margins = np.linspace(-3, 3, 241)
too_many = [name for name in with_loss if (dict(ctl.kw(name)).get("k") or 0) > 2]  # top-k: k <= n = 2 here
for name in too_many:
    st.info(t("loss.binary_k", mapping=labels[name], k=dict(ctl.kw(name))["k"]))
binary = ui.per_mapping(
    ctl,
    lambda name: loss_landscape_compute.binary_losses(name, ctl.kw(name), tuple(margins)),
    [name for name in with_loss if name not in too_many],
    quiet=True,
)
curves = [figures.mapping_curve(name, labels[name], y) for name, y in binary.items()]
references = [
    figures.Curve(t("loss.hinge"), loss_landscape_compute.hinge(margins), EXTRA_COLORS["hinge"], "dash"),
    figures.Curve(t("loss.logistic"), loss_landscape_compute.logistic(margins), EXTRA_COLORS["logistic"], "dot"),
    figures.Curve(
        t("loss.huber"), loss_landscape_compute.modified_huber(margins) / 4, EXTRA_COLORS["modified_huber"], "dashdot"
    ),
]
curves += references
top, tall = loss_landscape_compute.binary_axis_top(binary, np.array([c.y for c in references]))
binary_figure = figures.line_chart(
    margins, curves, t("loss.margin_axis"), t("fig.loss"), t("loss.binary_title"), legend_title=t("fig.loss")
)
binary_figure.update_yaxes(range=[0, top])
ui.show_figure(
    binary_figure, "loss_binary", table=lambda: pd.DataFrame({"t": margins, **{c.label: c.y for c in curves}})
)
st.caption(t("loss.binary_note"))
for name in tall:
    peak = int(np.nanargmax(binary[name]))
    st.caption(
        t(
            "loss.binary_tall",
            mapping=labels[name],
            peak=f"{binary[name][peak]:.4g}",
            at=f"{margins[peak]:g}",
            top=f"{top:.2g}",
        )
    )
if "taylor_softmax" in binary:
    st.caption(t("loss.taylor_binary", **loss_landscape_compute.taylor_binary_turn(margins, binary["taylor_softmax"])))

st.subheader(t("loss.classic"))
probs01 = np.linspace(0, 1, 201)
classic = loss_landscape_compute.classic_panels(tuple(margins), tuple(probs01))
panel_curves = [
    [
        figures.mapping_curve(ALPHA_MAPPINGS[a], f"α = {a:g}", values[k])
        if a in ALPHA_MAPPINGS
        else figures.Curve(f"α = {a:g}", values[k], EXTRA_COLORS["argmax"], "dot")
        for a, values in classic.items()
    ]
    for k in range(3)
]
ui.show_figure(
    figures.panels(
        [probs01, margins, margins],
        panel_curves,
        [t("loss.p_axis"), t("loss.margin_axis"), t("loss.margin_axis")],
        [t("loss.entropy_axis"), t("loss.prediction_axis"), t("fig.loss")],
        [t("loss.panel_entropy"), t("loss.panel_prediction"), t("loss.panel_loss")],
        "α",
    ),
    "loss_classic",
)
st.caption(t("loss.classic_note"))
