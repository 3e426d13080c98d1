"""Sweeps: p as a function of the temperature and of alpha, animated in the browser with Plotly
frames (play does not rerun the script), with entropy against temperature and support size
against alpha."""

import numpy as np
import streamlit as st

from explorer import compute
from explorer.drawing import figures, ui
from explorer.drawing.colors import mapping_color
from explorer.i18n import t
from explorer.live import runs_javascript, sweeps_view
from explorer.session import state
from views.sweeps import figures as sweeps_figures

ui.header("page.sweeps", "sweeps.intro")
state.mapping_controls(expanded=not runs_javascript())


@ui.fragment
def live() -> None:
    live_view = runs_javascript()  # the two animations drawn in the browser, with the app's own controls
    ctl = state.controls(expanded=not live_view)
    labels = ctl.labels
    probs = ctl.probabilities()
    index = compute.view_index(ctl.logits, probs, state.TOP_VIEW)
    if len(index) < ctl.n:
        st.caption(t("ui.top_view", top=len(index), n=ctl.n))
    alpha_maps = [name for name in compute.alpha_names() if name in ctl.mappings]
    t_start = int(np.argmin(np.abs(np.log(compute.TEMPERATURES))))
    alpha_start = int(np.argmin(np.abs(compute.ALPHAS - 1.5)))
    if live_view:
        sweeps_view(ctl, alpha_maps, t_start, alpha_start)

    def one_hot_temperature() -> str:
        """The temperature below which sparsemax(x / T) is one-hot, from the logits and from the sweep."""
        top = np.sort(ctl.logits)[::-1]
        gap = top[0] - top[1]
        if gap == 0:
            return t("q_sweeps.tied")
        kw = state.default_kw("sparsemax")
        rows = compute.temperature_sweep("sparsemax", ctl.x, kw, 0, 0)
        one_hot = compute.TEMPERATURES[np.count_nonzero(rows, axis=1) == 1]
        softmax_at_gap = compute.probabilities(
            "softmax", tuple(v / gap for v in ctl.x), state.default_kw("softmax")
        ).max()
        return t(
            "q_sweeps.a",
            gap=f"{gap:.4g}",
            seen=f"{one_hot.max():.3g}" if len(one_hot) else "—",
            softmax=f"{softmax_at_gap:.4f}",
        )

    ui.predict("q_sweeps.q", ("q_sweeps.c0", "q_sweeps.c1", "q_sweeps.c2"), 1, one_hot_temperature)
    st.subheader(t("sweeps.temperature"))
    by_t = ui.per_mapping(ctl, lambda name: compute.temperature_sweep(name, ctl.x, ctl.kw(name), ctl.target, ctl.seed))
    if by_t:
        temps = compute.TEMPERATURES
        if not live_view:
            frames = [{name: rows[f, index] for name, rows in by_t.items()} for f in range(len(temps))]
            ui.show_figure(
                sweeps_figures.animated_bars(
                    index, ctl.logits[index], frames, temps, "T", labels, t_start, t("sweeps.temperature_anim")
                ),
                "sweeps_temperature_anim",
            )
        curves = [figures.mapping_curve(name, labels[name], compute.entropy(rows)) for name, rows in by_t.items()]
        curves.append(figures.Curve(t("sweeps.log_n"), np.full(len(temps), np.log(ctl.n)), "#8C8C8C", "dot"))
        ui.show_figure(
            figures.line_chart(
                temps,
                curves,
                t("sweeps.t_axis"),
                t("sweeps.entropy_axis"),
                t("sweeps.entropy_title"),
                log_x=True,
                legend_title=t("fig.mapping"),
            ),
            "sweeps_entropy",
            table=lambda: ui.curves_frame("T", temps, curves),
        )

    st.subheader(t("sweeps.alpha"))
    by_a = ui.per_mapping(
        ctl, lambda name: compute.alpha_sweep(name, ctl.x, ctl.kw(name), ctl.target, ctl.seed), alpha_maps
    )
    if by_a:
        alphas = compute.ALPHAS
        if not live_view:
            frames = [{name: rows[f, index] for name, rows in by_a.items()} for f in range(len(alphas))]
            ui.show_figure(
                sweeps_figures.animated_bars(
                    index, ctl.logits[index], frames, alphas, "α", labels, alpha_start, t("sweeps.alpha_anim")
                ),
                "sweeps_alpha_anim",
            )
        left, right = st.columns(2)
        with left:
            curves = [
                figures.mapping_curve(name, labels[name], np.count_nonzero(rows, axis=1).astype(float))
                for name, rows in by_a.items()
            ]
            ui.show_figure(
                figures.line_chart(
                    alphas,
                    curves,
                    t("sweeps.alpha_axis"),
                    t("sweeps.support_axis"),
                    t("sweeps.support_title"),
                    log_x=True,
                    legend_title=t("fig.mapping"),
                    shape="hv",
                ),
                "sweeps_support",
                table=lambda: ui.curves_frame("alpha", alphas, curves),
            )
        with right:
            name, rows = next(iter(by_a.items()))
            shown = index[:10]
            curves = [
                figures.Curve(
                    f"p{i} (x{i} = {ctl.logits[i]:.3g})",
                    rows[:, i],
                    sweeps_figures.faded(mapping_color(name), k, len(shown)),
                    sweeps_figures.DASHES[k % len(sweeps_figures.DASHES)],
                )
                for k, i in enumerate(shown)
            ]
            ui.show_figure(
                figures.line_chart(
                    alphas,
                    curves,
                    t("sweeps.alpha_axis"),
                    t("fig.probability"),
                    t("sweeps.p_alpha_title", mapping=labels[name]),
                    log_x=True,
                    legend_title=t("fig.class_axis"),
                ),
                "sweeps_p_alpha",
                table=lambda: ui.curves_frame("alpha", alphas, curves),
            )
    else:
        st.info(t("ui.no_alpha"))


live()
