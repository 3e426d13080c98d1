"""Jacobian: heat maps of J[i, j] = dp_i/dx_j of each mapping at the current logits, probcore's
analytic Jacobian beside torch autograd's, their largest difference, rank and support, and the
softmax identity 1/2 ||J||_1 = (1 - sum p^2) / |T|."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer import compute
from explorer.drawing import ui
from explorer.i18n import t
from explorer.live import jacobian_view, runs_javascript
from explorer.session import state
from views.registry import PAGES
from views.jacobian import figures as jacobian_figures

declared = PAGES["jacobian"].option  # this page's own controls (views/registry.py)

ui.header("page.jacobian", "jacobian.intro")
state.mapping_controls(expanded=not runs_javascript())


@ui.fragment
def live() -> None:
    ctl = state.controls(expanded=not runs_javascript())
    probs = ctl.probabilities()
    labels = ctl.labels

    def zero_rows() -> str:
        """Sparsemax's Jacobian on the classes it gives p = 0 (computed at the current logits)."""
        p = compute.probabilities("sparsemax", ctl.x, state.default_kw("sparsemax"))
        zeros = np.flatnonzero(p == 0)
        if not len(zeros):
            return t("q_jacobian.none")
        analytic, _ = compute.jacobians("sparsemax", ctl.x, state.default_kw("sparsemax"), 0, 0)
        largest = max(np.abs(analytic[zeros]).max(), np.abs(analytic[:, zeros]).max())
        return t(
            "q_jacobian.a", zeros=", ".join(map(str, zeros[:20])), largest=f"{largest:g}", support=len(p) - len(zeros)
        )

    jacobians = ui.per_mapping(ctl, lambda name: compute.jacobians(name, ctl.x, ctl.kw(name), ctl.target, ctl.seed))
    if jacobians:
        figure = st.container()  # the heat maps first (figure first), their table under them
        rows = []
        for name, (analytic, auto) in jacobians.items():
            p = probs[name]
            rows.append(
                {
                    t("col.mapping"): labels[name],
                    t("col.max_diff"): float(np.abs(analytic - auto).max()) if auto is not None else None,
                    t("col.rank"): compute.rank(analytic) if ctl.n <= compute.AUTOGRAD_MAX_N else None,
                    t("col.support"): compute.support_size(p),
                    t("col.half_l1"): 0.5 * float(np.abs(analytic).sum()),
                    t("col.one_minus_sq"): 1.0 - float(np.sum(p**2)),
                }
            )
        index = compute.view_index(ctl.logits, probs, state.TOP_VIEW)
        if len(index) < ctl.n:
            st.caption(t("ui.top_view", top=len(index), n=ctl.n))
        block = np.ix_(index, index)
        drawn = ui.pick_figures(declared("heatmaps"), t("ctl.heatmaps_of"), list(jacobians))

        def server_figures(names: list[str]) -> None:
            columns = st.columns(2 if len(index) <= 12 else 1)
            for k, name in enumerate(names):
                analytic, auto = jacobians[name]
                with columns[k % len(columns)]:
                    ui.show_figure(
                        jacobian_figures.jacobian_pair(
                            analytic[block], None if auto is None else auto[block], index, labels[name]
                        ),
                        f"jacobian_{name}",
                        table=lambda a=analytic: pd.DataFrame(a),
                    )

        with figure:
            jacobian_view(ctl, drawn, server_figures)
        st.dataframe(
            ui.records_frame(rows),
            hide_index=True,
            column_config={
                t("col.max_diff"): st.column_config.NumberColumn(format="%.2e"),
                t("col.half_l1"): st.column_config.NumberColumn(format="%.6f"),
                t("col.one_minus_sq"): st.column_config.NumberColumn(format="%.6f"),
            },
        )
        st.caption(t("jacobian.table_note"))
        if ctl.n > compute.AUTOGRAD_MAX_N:
            st.caption(t("jacobian.no_autograd", n=ctl.n, limit=compute.AUTOGRAD_MAX_N))
    ui.predict(
        "q_jacobian.q",
        ("q_jacobian.c0", "q_jacobian.c1", "q_jacobian.c2"),
        0,
        zero_rows,
        (t("q_jacobian.do"), lambda: state.set_logits(state.preset_logits("two_tied", max(ctl.n, 6), 0))),
    )


live()
